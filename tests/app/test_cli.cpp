// The `infoflow` command as a user runs it: exit codes, messages, files written or not.
#include <boost/test/unit_test.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include "common/temp_catalogue.hpp"

using infoflow::testing::TempCatalogue;

namespace {

struct Run {
  int code = -1;
  std::string out;  // standard output and standard error together
};

Run run(const std::string& args) {
  const std::string command = std::string(INFOFLOW_BINARY) + " " + args + " 2>&1";
  Run r;
  FILE* pipe = ::popen(command.c_str(), "r");
  BOOST_TEST_REQUIRE(pipe != nullptr);
  std::array<char, 4096> buffer{};
  std::size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) r.out.append(buffer.data(), n);
  const int status = ::pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(cli)

BOOST_AUTO_TEST_CASE(check_exits_one_on_errors_and_reports_them) {
  const Run r = run("check");
  BOOST_TEST(r.code == 1);
  BOOST_TEST(contains(r.out, "error: contradiction"));
  BOOST_TEST(contains(r.out, "fix: restrict infoflow.thm1.one_layer to n < T*d"));
  BOOST_TEST(contains(r.out, "1 errors"));
}

BOOST_AUTO_TEST_CASE(check_exits_zero_once_fixed) {
  TempCatalogue t;
  BOOST_TEST_REQUIRE(t.replace("infoflow.toml", "depth = \"L == 1\"\nrate = \"eps^(-(c*T - c0))\"",
                               "depth = \"L == 1\"\nhypotheses = [\"n < T*d\"]\nrate = \"eps^(-(c*T - c0))\""));
  BOOST_TEST(run("--catalogue " + t.dir().string() + " check").code == 0);
}

BOOST_AUTO_TEST_CASE(json_output_parses) {
  const Run r = run("check --format json");
  BOOST_TEST(r.code == 1);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  BOOST_TEST(j["errors"].get<int>() == 1);
  BOOST_TEST(j["findings"].size() > 5u);
  const nlohmann::json list = nlohmann::json::parse(run("list --format json").out);
  BOOST_TEST(list["entries"].size() == 9u);
}

BOOST_AUTO_TEST_CASE(bad_catalogue_exits_two_and_writes_nothing) {
  TempCatalogue t;
  BOOST_TEST_REQUIRE(t.replace("infoflow.toml", "rate = \"eps^(-1)\"", "rate = \"eps^(-1.5)\""));
  const std::filesystem::path output = t.dir() / "report.txt";
  const Run r = run("--catalogue " + t.dir().string() + " check -o " + output.string());
  BOOST_TEST(r.code == 2);
  BOOST_TEST(contains(r.out, "infoflow.toml:"));
  BOOST_TEST(contains(r.out, ": error: only integers are allowed"));
  BOOST_TEST(!std::filesystem::exists(output));
}

BOOST_AUTO_TEST_CASE(usage_errors_exit_two) {
  BOOST_TEST(run("frobnicate").code == 2);
  BOOST_TEST(run("show no.such.entry").code == 2);
  BOOST_TEST(run("check --format pdf").code == 2);
  const Run bad_rate = run("compare 'eps^(-x)' 'eps^(-1)'");
  BOOST_TEST(bad_rate.code == 2);
  BOOST_TEST(contains(bad_rate.out, "first rate:1:7: error: unknown symbol 'x'"));
  BOOST_TEST(run("compare 'eps^(-T)' 'eps^(-1)' --assume 'k >= 2' --assume 'k < 2'").code == 2);
}

BOOST_AUTO_TEST_CASE(compare_gives_condition_and_witnesses) {
  const Run r = run("compare 'eps^(-(T/4 - s - D + 1)/((n+1)*s + 1) + 1)' 'eps^(-gamma)' --assume 's < D'");
  BOOST_TEST(r.code == 0);
  BOOST_TEST(contains(r.out, "as eps -> 0:      first grows depends"));
  BOOST_TEST(contains(r.out, "faster where T > 4*n*s*gamma + 4*n*s + 4*s*gamma + 8*s + 4*D + 4*gamma"));
  BOOST_TEST(contains(r.out, "faster at: T="));
  BOOST_TEST(contains(r.out, "slower at: T="));
  const Run t = run("compare 'eps^(-T/(n+1))' 'eps^(-T/(n+2))'");
  BOOST_TEST(contains(t.out, "as T -> infinity: first grows faster"));
}

BOOST_AUTO_TEST_CASE(show_prints_the_written_form) {
  const Run r = run("show infoflow.thm3.decoding --format latex");
  BOOST_TEST(r.code == 0);
  BOOST_TEST(r.out == "M = O\\left(\\varepsilon^{1 - \\frac{T_0 d}{E}}\\right)\n");
  BOOST_TEST(contains(run("show infoflow.thm2.kth_max").out, "hypotheses: k >= 2"));
}

BOOST_AUTO_TEST_CASE(latex_tables_compile) {
  TempCatalogue t;
  const std::filesystem::path tex = t.dir() / "tables.tex";
  const Run r = run("table --of both --standalone -o " + tex.string());
  BOOST_TEST_REQUIRE(r.code == 0);
  BOOST_TEST_REQUIRE(std::filesystem::exists(tex));
  if (std::system("command -v pdflatex >/dev/null 2>&1") != 0) {
    BOOST_TEST_REQUIRE(std::getenv("INFOFLOW_REQUIRE_PDFLATEX") == nullptr,
                       "pdflatex is required here but not installed");
    BOOST_TEST_MESSAGE("pdflatex not installed: compiled nothing");
    return;
  }
  const std::string command = "cd " + t.dir().string() +
                              " && pdflatex -interaction=nonstopmode -halt-on-error tables.tex"
                              " > pdflatex.log 2>&1";
  const int status = std::system(command.c_str());
  BOOST_TEST(status == 0, t.read("pdflatex.log").substr(0, 3000));
  BOOST_TEST(std::filesystem::exists(t.dir() / "tables.pdf"));
}

BOOST_AUTO_TEST_CASE(train_prints_a_summary_and_json) {
  const std::string args = "train --task intrinsic_dim --D 2 --T 6 --heads 2,2 --E 8 --steps 40 "
                           "--batch 16 --val-size 64 --seed 3";
  const Run text = run(args);
  BOOST_TEST(text.code == 0);
  BOOST_TEST(contains(text.out, "train intrinsic_dim T=6 d=4 L=2 heads=(2,2) E=8: best validation NMSE"));
  BOOST_TEST(contains(text.out, "seed 3"));
  BOOST_TEST(!contains(text.out, "\r"));  // no progress line when not on a terminal
  const Run j = run(args + " --json");
  BOOST_TEST_REQUIRE(j.code == 0);
  const nlohmann::json r = nlohmann::json::parse(j.out);
  BOOST_TEST(r["training"]["seed"].get<int>() == 3);
  BOOST_TEST(r["parameters"]["total"].get<int>() > r["parameters"]["theory_M"].get<int>());
  BOOST_TEST(r["result"]["status"].get<std::string>() == "completed");
  BOOST_TEST(r["curve"].size() == 20u);
  BOOST_TEST(r["timing"]["ms_per_step"].get<double>() > 0.0);
  // The same seed prints the same numbers.
  const nlohmann::json again = nlohmann::json::parse(run(args + " --json").out);
  BOOST_TEST(again["result"]["best_validation_nmse"].get<double>() ==
             r["result"]["best_validation_nmse"].get<double>());
}

BOOST_AUTO_TEST_CASE(train_rejects_bad_input_with_exit_two) {
  const std::string base = "train --task intrinsic_dim --steps 5 ";
  const std::vector<std::pair<std::string, std::string>> cases{
      {"--heads 3,3 --E 8", "3 heads do not divide E = 8"},
      {"--T 0", "T must be at least 1"},
      {"--lr -0.001", "learning rate must be positive"},
      {"--T", "--T: 1 required"},
      {"--heads 0,2", "layer 1 has 0 heads"},
      {"--pe rotary", "unknown positional encoding 'rotary'"},
  };
  for (const auto& [args, message] : cases) {
    const Run r = run(base + args);
    BOOST_TEST_INFO(args << " -> " << r.out);
    BOOST_TEST(r.code == 2);
    BOOST_TEST(contains(r.out, message));
  }
  const Run unknown = run("train --task sorting");
  BOOST_TEST(unknown.code == 2);
  BOOST_TEST(contains(unknown.out, "unknown task 'sorting'"));
  const Run kth = run("train --task kth_max --k 9 --T 8");
  BOOST_TEST(kth.code == 2);
  BOOST_TEST(contains(kth.out, "k must be between 1 and T = 8"));
}

BOOST_AUTO_TEST_CASE(train_reports_divergence_with_exit_one) {
  const Run r = run("train --task min_inner --T 4 --heads 1,1 --E 4 --steps 500 --batch 8 "
                    "--val-size 16 --lr 1e30 --clip 0");
  BOOST_TEST(r.code == 1);
  BOOST_TEST(contains(r.out, "DIVERGED at step"));
}

BOOST_AUTO_TEST_SUITE_END()
