// The reproducers of issue 43 as the user met them: outputs that respect the file system (a
// link kept, a FIFO written through, a directory refused, missing folders made by every -o),
// inputs bounded in size, option checks before any engine work, ranges and durations printed and
// read as the user writes them, and a refusal's JSON that names the architecture asked for.
// Links and FIFOs are made in each test's own temporary folder; nothing touches /dev.

#include <filesystem>
#include <fstream>
#include <string>

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include "common/cli.hpp"
#include "common/fifo_writer.hpp"
#include "common/temp_dir.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;
using infoflow::testing::contains;
using infoflow::testing::run;
using infoflow::testing::Run;
using infoflow::testing::TempDir;

namespace {

const std::string kFormula = "'max(t) dot(a, x[t])'";

std::string content_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(outputs)

BOOST_AUTO_TEST_CASE(an_output_through_a_link_keeps_the_link) {
  // Issue 43: -o and --checkpoint renamed a temporary over the link, which became a file.
  const TempDir t;
  const fs::path target = t.write("real.txt", "old");
  fs::create_symlink("real.txt", t.dir() / "out.txt");
  fs::create_symlink("real.ckpt", t.dir() / "out.ckpt");  // dangling: the checkpoint is made there
  const Run r = run("construct " + kFormula + " --heads 1 --samples 16 -o " +
                    (t.dir() / "out.txt").string() + " --checkpoint " +
                    (t.dir() / "out.ckpt").string());
  BOOST_TEST(r.code == 0);
  BOOST_TEST(fs::is_symlink(t.dir() / "out.txt"));
  BOOST_TEST(contains(content_of(target), "NMSE"));
  BOOST_TEST(fs::is_symlink(t.dir() / "out.ckpt"));
  BOOST_TEST(fs::is_regular_file(t.dir() / "real.ckpt"));
}

BOOST_AUTO_TEST_CASE(an_output_to_a_fifo_is_written_through) {
  // Issue 43: a FIFO or a device (as root: /dev/null) was replaced by a regular file. The test
  // holds the FIFO's reading end open without blocking, so the command's write never waits.
  const TempDir t;
  const fs::path fifo = t.dir() / "fifo";
  BOOST_TEST_REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  BOOST_TEST_REQUIRE(reader >= 0);
  const Run r = run("derive " + kFormula + " --heads 1 -o " + fifo.string());
  std::string received(1 << 16, '\0');
  const ssize_t got = ::read(reader, received.data(), received.size());
  ::close(reader);
  BOOST_TEST(r.code == 0);
  struct stat st {};
  BOOST_TEST_REQUIRE(::lstat(fifo.c_str(), &st) == 0);
  BOOST_TEST(S_ISFIFO(st.st_mode));
  BOOST_TEST_REQUIRE(got > 0);
  BOOST_TEST(received.substr(0, 29) == "target formula: max(t) dot(a,");
}

BOOST_AUTO_TEST_CASE(a_directory_is_refused_as_an_output_before_any_work) {
  const TempDir t;
  const std::string dir = t.dir().string();
  // The formula does not even parse: the output is refused first, when the options are read.
  Run r = run("derive 'max(t) dot(' -o " + dir);
  BOOST_TEST(r.code == 2);
  BOOST_TEST(contains(r.out, dir + ": error: is a directory: give a file to write"));
  // Issue 43: exit 3, "basic_filebuf::underflow ... Is a directory".
  r = run("train --task min_inner --T 4 --heads 1 --E 4 --steps 1 --checkpoint " + dir);
  BOOST_TEST(r.code == 2);
  BOOST_TEST(contains(r.out, dir + ": error: is a directory: give a file to write"));
  r = run("construct " + kFormula + " --heads 1 --checkpoint " + dir);
  BOOST_TEST(r.code == 2);
  BOOST_TEST(contains(r.out, "is a directory"));
  r = run("merge " + t.write("a.jsonl", "").string() + " -o " + dir);
  BOOST_TEST(r.code == 2);
  BOOST_TEST(contains(r.out, "is a directory"));
  BOOST_TEST(fs::is_directory(t.dir()));
}

BOOST_AUTO_TEST_CASE(every_output_makes_its_missing_folders) {
  // Issue 43: merge -o did not, where construct --checkpoint did.
  const TempDir t;
  Run r = run("merge " + t.write("a.jsonl", "").string() + " -o " +
              (t.dir() / "m" / "sub" / "all.jsonl").string());
  BOOST_TEST(r.code == 0);
  BOOST_TEST(fs::is_regular_file(t.dir() / "m" / "sub" / "all.jsonl"));
  r = run("derive " + kFormula + " --heads 1 -o " + (t.dir() / "d" / "sub" / "out.txt").string());
  BOOST_TEST(r.code == 0);
  BOOST_TEST(fs::is_regular_file(t.dir() / "d" / "sub" / "out.txt"));
  // A folder on the way that is a file: refused before any work, nothing made.
  r = run("derive " + kFormula + " --heads 1 -o " + (t.dir() / "a.jsonl" / "out.txt").string());
  BOOST_TEST(r.code == 2);
  BOOST_TEST(contains(r.out, "a.jsonl: error: is not a folder"));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(inputs)

BOOST_AUTO_TEST_CASE(a_directory_read_as_a_file_is_exit_two) {
  const TempDir t;
  fs::create_directory(t.dir() / "targets.toml");
  Run r = run("derive " + (t.dir() / "targets.toml").string());
  BOOST_TEST(r.code == 2);
  BOOST_TEST(contains(r.out, "targets.toml: error: is a directory (the target file must be a file)"));
  fs::create_directory(t.dir() / "a.jsonl");
  r = run("merge " + (t.dir() / "a.jsonl").string() + " -o " + (t.dir() / "m.jsonl").string());
  BOOST_TEST(r.code == 2);
  BOOST_TEST(contains(r.out, "a.jsonl: error: is a directory (the results file must be a file)"));
}

BOOST_AUTO_TEST_CASE(an_endless_input_is_refused_at_its_limit) {
  // Issue 43: an endless input (a /dev/zero) was read until the process was killed. A FIFO that
  // sends more than a target file's limit (64 MiB) stands in for it: the command stops at the
  // limit; a writer that sent everything ends anyway, so nothing hangs.
  const TempDir t;
  const fs::path fifo = t.dir() / "targets.toml";
  BOOST_TEST_REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  infoflow::testing::FifoWriter writer(fifo, std::size_t{65} << 20);  // a '#' comment, 65 MiB
  const Run r = run("derive " + fifo.string());
  writer.finish();
  BOOST_TEST(r.code == 2);
  BOOST_TEST(contains(r.out, "targets.toml: error: longer than 64 MiB, the limit on one target "
                             "file (docs/commands.md, Limits)"));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(options)

BOOST_AUTO_TEST_CASE(options_are_checked_before_the_target_is_read) {
  // Issue 43: heads that do not divide E were refused after the engine's work (10-14 s). The
  // formula here does not parse: the architecture's refusal comes first.
  Run r = run("derive 'max(t) dot(' --heads 3 --E 16");
  BOOST_TEST(r.code == 2);
  BOOST_TEST(contains(r.out, "layer 1: 3 heads do not divide E = 16"));
  r = run("plan 'max(t) dot(' --heads 1 --head-dim -1");
  BOOST_TEST(r.code == 2);
  BOOST_TEST(contains(r.out, "the head dimension n (0: E / h) must be between 0 and 65536 (got -1)"));
  r = run("construct 'max(t) dot(' --heads 1 --samples 0");
  BOOST_TEST(r.code == 2);
  BOOST_TEST(contains(r.out, "--samples must be between 16 and 4194304"));
  // A sweep's every value before its first construction (T = 0 once failed after T = 4 was built).
  r = run("construct 'max(t) dot(' --heads 1 --sweep --Ts 4,0");
  BOOST_TEST(r.code == 2);
  BOOST_TEST(contains(r.out, "T must be between 1 and 16384 (got 0)"));
  // d = 0 and d = -1: the command and Python give one message (Python once used d = 4).
  r = run("derive " + kFormula + " --heads 1 --d 0");
  BOOST_TEST(r.code == 2);
  BOOST_TEST(contains(r.out, "d must be between 1 and 65536 (got 0)"));
  // A seed is read by train's parser: -1 was taken as 2^64 - 1.
  r = run("construct " + kFormula + " --heads 1 --seed -1");
  BOOST_TEST(r.code == 2);
  BOOST_TEST(contains(r.out, "a seed must be zero or positive (got -1)"));
}

BOOST_AUTO_TEST_CASE(ranges_are_printed_as_the_user_writes_them) {
  // Issue 43: "not in range 0 to 1797693...": a 300-digit maximum.
  Run r = run("verify --workers -1");
  BOOST_TEST(r.code == 2);
  BOOST_TEST(contains(r.out, "workers must be between 0 (one per core) and 1024 (got -1)"));
  r = run("check --timeout-ms 0");
  BOOST_TEST(r.code == 2);
  BOOST_TEST(contains(r.out, "the solver timeout in ms must be between 1 and 3600000 (got 0)"));
}

BOOST_AUTO_TEST_CASE(a_budget_is_a_number_and_a_unit) {
  // Issue 43: 1e9, 90, 0x10s and 1e-9s were taken and 0s refused. The profile does not exist:
  // a duration that is taken reaches that refusal, one that is not is refused first.
  const std::string tail = " --profile no_such_profile intrinsic_dim";
  for (const char* bad : {"1e9", "90", "0x10s", "1e-9s", "0s", "0.5s"}) {
    const Run r = run(std::string("verify --budget ") + bad + tail);
    BOOST_TEST_INFO(bad << " -> " << r.out);
    BOOST_TEST(r.code == 2);
    BOOST_TEST(contains(r.out, "--budget needs a duration such as 90s, 15m, 2.5h or 1h30m"));
  }
  for (const char* good : {"1s", "90s", "2.5h", "1h30m"}) {
    const Run r = run(std::string("verify --budget ") + good + tail);
    BOOST_TEST_INFO(good << " -> " << r.out);
    BOOST_TEST(contains(r.out, "has no profile 'no_such_profile'"));
  }
}

BOOST_AUTO_TEST_CASE(a_refusal_in_json_names_the_architecture_asked_for) {
  // Issue 43: the JSON reported a default architecture, heads (2,2), for a plan not built.
  const Run r = run("construct 'min(s != t) dot(x[s], x[t])' --heads 3 --E 24 --format json");
  BOOST_TEST(r.code == 1);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  BOOST_TEST(j["built"].get<bool>() == false);
  BOOST_TEST(j["failed_in"].get<std::string>() == "plan");
  BOOST_TEST(j["architecture"]["heads"] == nlohmann::json::array({3}));
  BOOST_TEST(j["architecture"]["E"].get<long>() == 24);
  BOOST_TEST(j["readout_width"].get<long>() == 256);  // the FFN width, as --readout-width 0 asks
}

BOOST_AUTO_TEST_SUITE_END()
