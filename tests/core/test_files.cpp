// The one reader and the one writer of user files (core/read_file.hpp, core/atomic_file.hpp),
// issue 43: outputs that respect the file system (a link kept, a FIFO or device written through,
// a directory refused) and inputs bounded in size (a FIFO that never ends is refused at the
// limit). Everything happens in the test's own temporary folder; no test touches /dev.

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <string>

#include <boost/test/unit_test.hpp>

#include "common/fifo_writer.hpp"
#include "common/input_error.hpp"
#include "common/temp_dir.hpp"
#include "infoflow/core/atomic_file.hpp"
#include "infoflow/core/read_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;
using infoflow::testing::FifoWriter;
using infoflow::testing::input_error_of;
using infoflow::testing::TempDir;

namespace {

std::string content_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct stat status_of(const fs::path& file) {
  struct stat st {};
  BOOST_TEST_REQUIRE(::lstat(file.c_str(), &st) == 0);
  return st;
}

/// The files of `dir`: a temporary left behind would show here.
std::size_t entries(const fs::path& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), {}));
}

/// A FIFO's reading end opened without blocking: the writer then opens at once, and what it
/// writes (less than the pipe's buffer) waits here. Nothing can hang.
struct FifoReader {
  explicit FifoReader(const fs::path& fifo) : fd(::open(fifo.c_str(), O_RDONLY | O_NONBLOCK)) {
    BOOST_TEST_REQUIRE(fd >= 0);
  }
  ~FifoReader() { ::close(fd); }
  std::string drain() const {
    std::string out;
    char buffer[4096];
    ssize_t got = 0;
    while ((got = ::read(fd, buffer, sizeof buffer)) > 0) out.append(buffer, static_cast<std::size_t>(got));
    return out;
  }
  int fd;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(writing)

BOOST_AUTO_TEST_CASE(a_regular_file_is_replaced_atomically_and_keeps_its_mode) {
  const TempDir t;
  const fs::path file = t.write("out.txt", "old");
  ::chmod(file.c_str(), 0600);
  const ino_t before = status_of(file).st_ino;
  infoflow::write_file_atomically(file, "new");
  BOOST_TEST(content_of(file) == "new");
  BOOST_TEST(status_of(file).st_ino != before);  // a new file renamed in, not written over
  BOOST_TEST((status_of(file).st_mode & 0777) == 0600u);
  BOOST_TEST(entries(t.dir()) == 1u);  // no temporary left
}

BOOST_AUTO_TEST_CASE(missing_folders_are_made) {
  const TempDir t;
  infoflow::write_file_atomically(t.dir() / "a" / "b" / "out.txt", "x");
  BOOST_TEST(content_of(t.dir() / "a" / "b" / "out.txt") == "x");
}

BOOST_AUTO_TEST_CASE(a_link_is_kept_and_its_target_written_in_the_targets_folder) {
  // Issue 43: the rename replaced the link by a regular file.
  const TempDir t;
  fs::create_directory(t.dir() / "data");
  fs::create_directory(t.dir() / "links");
  const fs::path target = t.write("data/real.txt", "old");
  const fs::path link = t.dir() / "links" / "out.txt";
  fs::create_symlink("../data/real.txt", link);  // relative: read from the link's folder
  infoflow::write_file_atomically(link, "new");
  BOOST_TEST(fs::is_symlink(link));
  BOOST_TEST(fs::read_symlink(link) == fs::path("../data/real.txt"));
  BOOST_TEST(content_of(target) == "new");
  BOOST_TEST(entries(t.dir() / "links") == 1u);
  BOOST_TEST(entries(t.dir() / "data") == 1u);
  // A chain of links, the last one dangling: the file is made where it points.
  fs::create_symlink("links/out.txt", t.dir() / "chain");
  infoflow::write_file_atomically(t.dir() / "chain", "chained");
  BOOST_TEST(content_of(target) == "chained");
  fs::create_symlink("data/new.txt", t.dir() / "dangling");
  infoflow::write_file_atomically(t.dir() / "dangling", "made");
  BOOST_TEST(fs::is_symlink(t.dir() / "dangling"));
  BOOST_TEST(content_of(t.dir() / "data" / "new.txt") == "made");
}

BOOST_AUTO_TEST_CASE(a_fifo_is_written_through_and_stays_a_fifo) {
  // Issue 43: a device or a FIFO became a regular file (as root: /dev/null deleted).
  const TempDir t;
  const fs::path fifo = t.dir() / "fifo";
  BOOST_TEST_REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const FifoReader reader(fifo);
  infoflow::write_file_atomically(fifo, "through the pipe\n");
  BOOST_TEST(S_ISFIFO(status_of(fifo).st_mode));
  BOOST_TEST(reader.drain() == "through the pipe\n");
  BOOST_TEST(entries(t.dir()) == 1u);
  infoflow::check_output_path(fifo);  // writable as it is
  // Through a link too.
  fs::create_symlink("fifo", t.dir() / "to_fifo");
  infoflow::write_file_atomically(t.dir() / "to_fifo", "linked\n");
  BOOST_TEST(fs::is_symlink(t.dir() / "to_fifo"));
  BOOST_TEST(reader.drain() == "linked\n");
}

BOOST_AUTO_TEST_CASE(a_directory_is_refused_and_left_as_it_is) {
  // Issue 43: train --checkpoint DIR ended in exit 3.
  const TempDir t;
  fs::create_directory(t.dir() / "dir");
  t.write("dir/inside.txt", "kept");
  fs::create_symlink("dir", t.dir() / "to_dir");
  for (const fs::path& p : {t.dir() / "dir", t.dir() / "to_dir"}) {
    BOOST_TEST(input_error_of([&] { infoflow::write_file_atomically(p, "x"); }) ==
               "is a directory: give a file to write");
    BOOST_TEST(input_error_of([&] { infoflow::check_output_path(p); }) ==
               "is a directory: give a file to write");
  }
  BOOST_TEST(input_error_of([&] { infoflow::write_file_atomically(t.dir() / "new/", "x"); }) ==
             "names a folder (it ends with '/'): give a file to write");
  BOOST_TEST(fs::is_directory(t.dir() / "dir"));
  BOOST_TEST(content_of(t.dir() / "dir" / "inside.txt") == "kept");
  BOOST_TEST(!fs::exists(t.dir() / "new"));
}

BOOST_AUTO_TEST_CASE(a_path_checked_before_the_work_makes_nothing) {
  const TempDir t;
  const fs::path file = t.write("file.txt", "kept");
  infoflow::check_output_path(t.dir() / "a" / "b" / "out.txt");  // would be made
  BOOST_TEST(!fs::exists(t.dir() / "a"));
  // A folder on the way is a file: refused by both, naming it.
  const infoflow::InputError e = [&] {
    try {
      infoflow::check_output_path(file / "sub" / "out.txt");
    } catch (const infoflow::InputError& error) {
      return error;
    }
    return infoflow::InputError("not refused");
  }();
  BOOST_TEST(e.where().file == file.string());
  BOOST_TEST(e.message() == "is not a folder: nothing can be made in it");
  BOOST_TEST(input_error_of([&] { infoflow::write_file_atomically(file / "out.txt", "x"); }) ==
             "is not a folder: nothing can be made in it");
  BOOST_TEST(content_of(file) == "kept");
}

BOOST_AUTO_TEST_CASE(a_long_file_name_gets_a_temporary_that_fits) {
  // A name of 250 bytes is allowed; its temporary ".NAME.XXXXXX" once was not (exit 3 from an
  // Error that was no InputError).
  const TempDir t;
  const fs::path file = t.dir() / std::string(250, 'n');
  infoflow::write_file_atomically(file, "x");
  BOOST_TEST(content_of(file) == "x");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(reading)

BOOST_AUTO_TEST_CASE(a_file_is_read_whole_and_a_missing_one_named) {
  const TempDir t;
  const fs::path file = t.write("in.toml", "a = 1\n");
  BOOST_TEST(infoflow::read_input_file(file, 100, "target file") == "a = 1\n");
  BOOST_TEST(input_error_of([&] { (void)infoflow::read_input_file(t.dir() / "no", 100, "target file"); }) ==
             "no such target file");
  BOOST_TEST(!infoflow::read_input_file_if_present(t.dir() / "no", 100, "results file"));
}

BOOST_AUTO_TEST_CASE(a_directory_is_refused) {
  // Issue 43: reading a directory ended in exit 3 (basic_filebuf::underflow).
  const TempDir t;
  BOOST_TEST(input_error_of([&] { (void)infoflow::read_input_file(t.dir(), 100, "checkpoint"); }) ==
             "is a directory (the checkpoint must be a file)");
  BOOST_TEST(input_error_of([&] {
               (void)infoflow::read_input_file_if_present(t.dir(), 100, "results file");
             }) == "is a directory (the results file must be a file)");
}

BOOST_AUTO_TEST_CASE(a_file_over_the_limit_is_refused_unread) {
  const TempDir t;
  const fs::path file = t.write("big.toml", std::string(101, 'x'));
  BOOST_TEST(input_error_of([&] { (void)infoflow::read_input_file(file, 100, "target file"); }) ==
             "longer than 100 bytes, the limit on one target file (docs/commands.md, Limits)");
  BOOST_TEST(infoflow::read_input_file(file, 101, "target file").size() == 101u);
}

BOOST_AUTO_TEST_CASE(a_fifo_is_read_to_its_end_or_to_the_limit) {
  // Issue 43: an endless input (a /dev/zero) was read until the process was killed. Here a
  // writer sends 4 MiB through a FIFO, more than the limit of 1 MiB: the reader stops at the
  // limit (a reader without one would return all of it: the test fails, it does not hang).
  const TempDir t;
  const fs::path fifo = t.dir() / "fifo";
  BOOST_TEST_REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  {
    FifoWriter endless(fifo, std::size_t{4} << 20, '\0');
    BOOST_TEST(input_error_of([&] {
                 (void)infoflow::read_input_file(fifo, std::uint64_t{1} << 20, "target file");
               }) == "longer than 1 MiB, the limit on one target file (docs/commands.md, Limits)");
  }
  FifoWriter small(fifo, std::size_t{1} << 16);
  const std::string read = infoflow::read_input_file(fifo, std::uint64_t{1} << 20, "target file");
  small.finish();
  BOOST_TEST(read == std::string(std::size_t{1} << 16, '#'));
}

BOOST_AUTO_TEST_SUITE_END()
