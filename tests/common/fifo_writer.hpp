#ifndef INFOFLOW_TESTS_COMMON_FIFO_WRITER_HPP_
#define INFOFLOW_TESTS_COMMON_FIFO_WRITER_HPP_

// Sends bytes through a FIFO from a thread, as a program at the other end of a pipe would, and
// never hangs a test: it waits for a reader without blocking, gives up once the test is done
// (a reader that never came is then the test's failure, not a hang), and stops when the reader
// closes its end early (EPIPE, with SIGPIPE ignored).

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <string>
#include <thread>

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

namespace infoflow::testing {

class FifoWriter {
 public:
  FifoWriter(std::filesystem::path fifo, std::size_t bytes, char fill = '#')
      : thread_([this, fifo = std::move(fifo), bytes, fill] { send(fifo, bytes, fill); }) {}
  ~FifoWriter() { finish(); }
  FifoWriter(const FifoWriter&) = delete;
  FifoWriter& operator=(const FifoWriter&) = delete;

  /// Waits for the thread: call it once the reader is done.
  void finish() {
    done_ = true;
    if (thread_.joinable()) thread_.join();
  }

 private:
  void send(const std::filesystem::path& fifo, std::size_t bytes, char fill) {
    ::signal(SIGPIPE, SIG_IGN);
    int fd = -1;
    while (!done_ && (fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK)) < 0 && errno == ENXIO)
      std::this_thread::sleep_for(std::chrono::milliseconds(2));  // no reader yet
    if (fd < 0) return;
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    const std::string chunk(1 << 16, fill);
    for (std::size_t sent = 0; sent < bytes;) {
      const ssize_t wrote = ::write(fd, chunk.data(), std::min(chunk.size(), bytes - sent));
      if (wrote <= 0) break;  // EPIPE: the reader stopped
      sent += static_cast<std::size_t>(wrote);
    }
    ::close(fd);
  }

  std::atomic<bool> done_{false};
  std::thread thread_;
};

}  // namespace infoflow::testing

#endif  // INFOFLOW_TESTS_COMMON_FIFO_WRITER_HPP_
