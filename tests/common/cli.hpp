#ifndef INFOFLOW_TESTS_COMMON_CLI_HPP_
#define INFOFLOW_TESTS_COMMON_CLI_HPP_

// Runs the `infoflow` command as a user does: its exit code and everything it printed.

#include <array>
#include <cstdio>
#include <string>

#include <boost/test/unit_test.hpp>

#include <sys/wait.h>

namespace infoflow::testing {

struct Run {
  int code = -1;
  std::string out;  // standard output and standard error together
};

inline Run run(const std::string& args) {
  const std::string command = std::string(INFOFLOW_BINARY) + " " + args + " 2>&1";
  Run r;
  FILE* pipe = ::popen(command.c_str(), "r");
  BOOST_TEST_REQUIRE(pipe != nullptr);
  std::array<char, 4096> buffer{};
  std::size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    r.out.append(buffer.data(), n);
  const int status = ::pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

}  // namespace infoflow::testing

#endif  // INFOFLOW_TESTS_COMMON_CLI_HPP_
