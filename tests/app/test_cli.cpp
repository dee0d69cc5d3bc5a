// The `infoflow` command as a user runs it: exit codes, messages, files written or not.
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include "common/cli.hpp"
#include "common/temp_catalogue.hpp"
#include "common/temp_dir.hpp"
#include "infoflow/numeric/build.hpp"
#include "infoflow/numeric/checkpoint.hpp"
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

using infoflow::testing::contains;
using infoflow::testing::run;
using infoflow::testing::Run;
using infoflow::testing::TempCatalogue;
using infoflow::testing::TempDir;

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
  BOOST_TEST_REQUIRE(
      t.replace("infoflow.toml", "depth = \"L == 1\"\nrate = \"eps^(-(c*T - c0))\"",
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
  BOOST_TEST(list["entries"].size() == 10u);
}

BOOST_AUTO_TEST_CASE(a_construction_sweep_fits_along_what_it_varies) {
  // Along T at one width the slope is against T; along widths at one T against M; varying both,
  // none, with the reason. The maximum is exact at every T (NMSE below 1e-8).
  const std::string f = "construct 'max(t) dot(a, x[t])' --heads 1 --samples 256 --sweep ";
  const nlohmann::json along_t = nlohmann::json::parse(run(f + "--Ts 4,8,16 --format json").out);
  BOOST_TEST_REQUIRE(along_t["points"].size() == 3u);
  BOOST_TEST(along_t["fit"]["against"] == "T");
  BOOST_TEST(along_t["fit"]["points"] == 3);
  for (const nlohmann::json& p : along_t["points"]) BOOST_TEST(p["nmse"].get<double>() < 1e-8);
  const nlohmann::json along_m =
      nlohmann::json::parse(run(f + "--widths 16,32,64 --format json").out);
  BOOST_TEST(along_m["fit"]["against"] == "M");
  const Run both = run(f + "--Ts 4,8 --widths 16,32");
  BOOST_TEST(both.code == 0);
  BOOST_TEST(contains(both.out, "no slope: the sweep varies T together with beta or the width"));
  const Run few = run(f + "--widths 16,32");
  BOOST_TEST(contains(few.out, "no slope: 2 built points with distinct M: a slope needs 3"));
}

BOOST_AUTO_TEST_CASE(a_written_construction_prints_the_train_command_that_starts_from_it) {
  const TempDir d;
  const std::string file = (d.dir() / "c.ckpt").string();
  const Run r = run("construct 'max(t) dot(a, x[t])' --heads 1 --pe learned --samples 256 "
                    "--checkpoint " + file);
  BOOST_TEST_REQUIRE(r.code == 0, r.out);
  const std::size_t at = r.out.find("infoflow train ");
  BOOST_TEST_REQUIRE(at != std::string::npos);
  const std::size_t close = r.out.rfind(')', r.out.find('\n', at));  // "(train from it: ...)"
  const std::string command = r.out.substr(at + 9, close - at - 9);
  BOOST_TEST(contains(command, "--pe learned"));
  const Run trained = run(command + " --steps 4 --lr 1e-7 --val-size 256");
  BOOST_TEST_REQUIRE(trained.code == 0, trained.out);
  std::smatch m;
  BOOST_TEST_REQUIRE(std::regex_search(trained.out, m, std::regex("best validation NMSE ([0-9.e+-]+)")));
  BOOST_TEST(std::stod(m[1].str()) < 1e-5);  // starts at the construction's accuracy
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
  const Run r =
      run("compare 'eps^(-(T/4 - s - D + 1)/((n+1)*s + 1) + 1)' 'eps^(-gamma)' --assume 's < D'");
  BOOST_TEST(r.code == 0);
  BOOST_TEST(contains(r.out, "as eps -> 0:      first grows depends"));
  BOOST_TEST(
      contains(r.out, "faster where T > 4*n*s*gamma + 4*n*s + 4*s*gamma + 8*s + 4*D + 4*gamma"));
  BOOST_TEST(contains(r.out, "faster at: T="));
  BOOST_TEST(contains(r.out, "slower at: T="));
  const Run t = run("compare 'eps^(-T/(n+1))' 'eps^(-T/(n+2))'");
  BOOST_TEST(contains(t.out, "as T -> infinity: first grows faster"));
}

BOOST_AUTO_TEST_CASE(show_prints_the_written_form) {
  const Run r = run("show infoflow.thm3.decoding --format latex");
  BOOST_TEST(r.code == 0);
  BOOST_TEST(contains(r.out, "M = O\\left(\\varepsilon^{1 - \\frac{T_0 d}{E}}\\right)"));
  BOOST_TEST(contains(r.out, "\\cite[Theorem~3]{yu2026infoflow}"));
  BOOST_TEST(contains(r.out, "under $1 \\le T_0$, $T_0 \\le T + 1$"));
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

BOOST_AUTO_TEST_CASE(one_command_line) {
  // --version from the build's project version.
  const Run v = run("--version");
  BOOST_TEST(v.code == 0);
  BOOST_TEST(v.out == "infoflow " INFOFLOW_VERSION "\n");
  // --format everywhere output has forms; plan's former --json is gone (no script used it).
  const Run plan = run("plan 'max(t) dot(a, x[t])' --heads 1 --format json");
  BOOST_TEST_REQUIRE(plan.code == 0);
  BOOST_TEST(nlohmann::json::parse(plan.out).contains("target"));
  BOOST_TEST(run("plan 'max(t) dot(a, x[t])' --json").code == 2);
  BOOST_TEST(nlohmann::json::parse(run("compare 'eps^(-1)' 'eps^(-2)' --format json").out)
                 ["eps_to_zero"]["growth"] == "slower");
  BOOST_TEST(run("list --format latex").code == 2);  // a form list does not have
  // The same --pe words as train, and "off" as derive prints it (pe=off); "on" would not say
  // which encoding.
  BOOST_TEST(run("derive 'max(t) dot(a, x[t])' --pe on").code == 2);
  const Run off = run("derive 'sum(i = 1..D) max(t) dot(a[i], x[t])' --set D=3 --heads 1,1 --pe off");
  BOOST_TEST_REQUIRE(off.code == 0);
  BOOST_TEST(contains(off.out, "on L=2 h=(1,1) E=16 d=4 n=E/h pe=off"));
  BOOST_TEST(run("derive 'max(t) dot(a, x[t])' --pe learned").code == 0);
  // Unknown --set names are errors, for a built-in task too.
  const Run set = run("derive 'max(t) dot(a, x[t])' --set Q=3");
  BOOST_TEST(set.code == 2);
  BOOST_TEST(contains(set.out, "has no integer Q"));
  const Run task = run("train --task kth_max --set Q=3 --steps 5");
  BOOST_TEST(task.code == 2);
  BOOST_TEST(contains(task.out, "--set Q=3: --set gives values to a formula's integers"));
  // compare takes what the tool prints: O(...), Omega(...), Theta(...), "M = ...".
  const Run c = run("compare 'O(eps^(-1))' 'M = Omega(eps^(-2)*log(1/eps))'");
  BOOST_TEST(c.code == 0);
  BOOST_TEST(contains(c.out, "first:  O(eps^(-1))\nsecond: Omega(eps^(-2)*log(1/eps))"));
  BOOST_TEST(contains(c.out, "as eps -> 0:      first grows slower"));
  BOOST_TEST(run("compare 'Theta(eps^(-k))' 'eps^(-2)' --assume 'k >= 1'").code == 0);
  // A bad rate inside O(...) names its column in the whole argument.
  const Run bad = run("compare 'O(eps^(-1) +* 2)' 'eps'");
  BOOST_TEST(bad.code == 2);
  BOOST_TEST(contains(bad.out, "first rate:1:"));
  BOOST_TEST(!contains(bad.out, "first rate:1:1:"));
  // Shell completion, hidden from the help, generated at build time beside the binary.
  const TempDir t;
  BOOST_TEST(run("--bash-completion " + (t.dir() / "c.bash").string()).code == 0);
  std::ifstream in(t.dir() / "c.bash");
  const std::string script((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  BOOST_TEST(contains(script, "complete -F _infoflow infoflow"));
  BOOST_TEST(contains(script, "derive) opts=\""));
  BOOST_TEST(std::system(("bash -n " + (t.dir() / "c.bash").string()).c_str()) == 0);
  BOOST_TEST(!contains(run("--help").out, "bash-completion"));
}

BOOST_AUTO_TEST_CASE(at_equal_exponents_the_log_power_decides_vacuity) {
  // Omega(eps^(2-k) log(1/eps)) with k >= 2 grows at k = 2 (like log(1/eps)): never vacuous.
  // With k >= 1 it is vacuous exactly where k < 2, a strict condition.
  TempCatalogue t;
  const std::string entry =
      "\n[[entry]]\nid = \"infoflow.log_edge\"\nsource = \"Lemma 9\"\nprovenance = "
      "\"conjecture\"\nkind = \"lower\"\nquantity = \"M\"\ntask = \"kth_retrieval\"\n"
      "depth = \"L == 3\"\nhypotheses = [\"k >= HYP\"]\nrate = \"eps^(2-k)*log(1/eps)\"\n";
  std::string text = t.read("infoflow.toml");
  t.write("infoflow.toml", text + std::regex_replace(entry, std::regex("HYP"), "2"));
  const Run two = run("--catalogue " + t.dir().string() + " check");
  BOOST_TEST(!contains(two.out, "Omega(eps^(2 - k)*log(1/eps)) is vacuous"), two.out);
  t.write("infoflow.toml", text + std::regex_replace(entry, std::regex("HYP"), "1"));
  const Run one = run("--catalogue " + t.dir().string() + " check");
  BOOST_TEST(contains(one.out, "is vacuous where k < 2"), one.out);
  BOOST_TEST(contains(one.out, "bounded: k=1"), one.out);
  BOOST_TEST(contains(one.out, "grows: k="), one.out);
}

BOOST_AUTO_TEST_CASE(train_prints_a_summary_and_json) {
  const std::string args =
      "train --task intrinsic_dim --D 2 --T 6 --heads 2,2 --E 8 --steps 40 "
      "--batch 16 --val-size 64 --seed 3";
  const Run text = run(args);
  BOOST_TEST(text.code == 0);
  BOOST_TEST(
      contains(text.out, "train intrinsic_dim T=6 d=4 L=2 heads=(2,2) E=8: best validation NMSE"));
  BOOST_TEST(contains(text.out, "seed 3"));
  BOOST_TEST(!contains(text.out, "\r"));  // no progress line when not on a terminal
  const Run j = run(args + " --json");
  BOOST_TEST_REQUIRE(j.code == 0);
  const nlohmann::json r = nlohmann::json::parse(j.out);
  BOOST_TEST(r["training"]["seed"].get<int>() == 3);
  BOOST_TEST(r["parameters"]["total"].get<int>() > r["parameters"]["theory_M"].get<int>());
  const std::string status = r["result"]["status"].get<std::string>();
  BOOST_TEST((status == "converged" || status == "budget_reached"));
  BOOST_TEST(r["result"]["converged"].get<bool>() == (status == "converged"));
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
      {"--T 0", "T must be between 1 and 16384 (got 0)"},
      {"--lr -0.001", "learning rate must be positive"},
      {"--T", "--T: 1 required"},
      {"--heads 0,2", "--heads: heads must be positive integers separated by commas"},
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
  const Run r =
      run("train --task min_inner --T 4 --heads 1,1 --E 4 --steps 500 --batch 8 "
          "--val-size 16 --lr 1e30 --clip 0");
  BOOST_TEST(r.code == 1);
  BOOST_TEST(contains(r.out, "DIVERGED at step"));
}

BOOST_AUTO_TEST_CASE(derive_gives_rate_verdict_and_smallest_architecture) {
  const Run r = run("derive 'min(s != t) dot(x[s], x[t])' --heads 1");
  BOOST_TEST(r.code == 0);
  BOOST_TEST(
      contains(r.out, "comparison order beta' = 2, dimension beta_1 = 1, comparison number = T^2"));
  BOOST_TEST(contains(r.out, "M = O(eps^(1 - T/4)) (in d, E, n: O(eps^(1 - T*d/E))): exponential in T"));
  BOOST_TEST(
      contains(r.out, "smallest efficient architecture (of 4680 with L <= 4, h <= 8; smallest: "
                      "fewest heads in the widest layer, then fewest layers, then fewest heads in "
                      "all): L=2 h=(1,1)"));
  BOOST_TEST(!contains(r.out, "--head-dim"));  // one head a layer: n = E either way
  // The search holds n fixed; where the smallest has a layer of several heads, train's default
  // n = E/h would build another network.
  const Run wide = run("derive 'sum(i = 1..D) max(t) dot(a[i], x[t])' --set D=9");
  BOOST_TEST(contains(wide.out, "L=3 h=(2,2,1) E=16 d=4 n=16"));
  BOOST_TEST(contains(wide.out, "(n = 16 in every layer, as searched: train it with --head-dim 16)"));
  const nlohmann::json j =
      nlohmann::json::parse(run("derive 'sum(i = 1..D) max(s, t) bilinear(A[i], x[s], x[t])' --set "
                                "D=3 --heads 3,3 --E 12 --format json")
                                .out);
  BOOST_TEST(j["plan"]["verdict"].get<std::string>() == "efficient");
  BOOST_TEST(j["comparison_number"].get<std::string>() == "3*T^2");  // D has a value
  BOOST_TEST(j["fewest_heads_per_depth"][0]["heads"] == nlohmann::json::array({3, 3}));
  const Run latex = run("derive " + std::string(INFOFLOW_TARGETS_FILE) + " --format latex");
  BOOST_TEST(latex.code == 0);
  BOOST_TEST(contains(latex.out, "\\toprule"));
  BOOST_TEST(contains(latex.out, "\\label{target:triangle-h4-4}"));  // one row an architecture the file lists
  // The file sets T = 8 for the triangle: its T^3 compared triples are 512.
  BOOST_TEST(contains(latex.out, "($T = 8$) & $3$ & $1$ & $512$ &"));
}

BOOST_AUTO_TEST_CASE(derive_states_the_condition_on_an_unset_integer) {
  const Run r = run("derive 'sum(i = 1..D) max(t) dot(a[i], x[t])' --E 64 --head-dim 8");
  BOOST_TEST(r.code == 0);
  BOOST_TEST(contains(r.out, "L = 2: efficient iff D <= 2*h_1 + h_2 (checked on all 16 head vectors"));
  const Run k = run("derive 'kth(k, t) dot(a, x[t])'");
  BOOST_TEST(contains(k.out, "L = 3: efficient iff k <= 3"));
}

BOOST_AUTO_TEST_CASE(derived_bounds_as_toml_are_read_back_by_check) {
  const TempDir temp;
  const std::string file = (temp.dir() / "derived.toml").string();
  const Run w = run("derive 'sum(i = 1..D) max(t) dot(a[i], x[t])' --set D=3 --heads 1,1 "
                    "--format toml -o " + file);
  BOOST_TEST_REQUIRE(w.code == 0);
  const Run r = run("--add " + file + " list --format json");
  BOOST_TEST_REQUIRE(r.code == 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  bool found = false;
  for (const nlohmann::json& e : j["entries"]) {
    if (e["id"] == "derived.formula.L2.h1-1.E16") {
      found = true;
      BOOST_TEST(e["provenance"].get<std::string>() == "derived");
      BOOST_TEST(e["task"].get<std::string>() == "target.formula");
    }
  }
  BOOST_TEST(found);
  const Run c = run("--add " + file + " check");
  BOOST_TEST(c.code <= 1);
  BOOST_TEST(contains(c.out, "entries"));
  const Run missing = run("--add " + file + ".nope check");
  BOOST_TEST(missing.code == 2);
  BOOST_TEST(contains(missing.out, "no such catalogue file"));
}

BOOST_AUTO_TEST_CASE(plan_prints_information_sets_layer_by_layer) {
  const Run r =
      run("plan " + std::string(INFOFLOW_TARGETS_FILE) + " --name intrinsic_dim --heads 2,2");
  BOOST_TEST(r.code == 0);
  BOOST_TEST(contains(r.out, "layer 1: I(t) = {t, m1(t), m3(t)} (size 3)"));
  BOOST_TEST(contains(r.out, "I(T+1) = I(g2,1) ∪ I(g4,1) (size 6)"));
  BOOST_TEST(contains(r.out, "elimination: s -> m1(t); t -> g2; s -> m3(t); t -> g4"));
  BOOST_TEST(contains(r.out, "catalogue entries: infoflow.thm1.two_layer, infoflow.thm3.decoding"));
}

BOOST_AUTO_TEST_CASE(passes_lists_the_engine_passes_in_the_order_it_runs_them) {
  const Run r = run("passes");
  BOOST_TEST(r.code == 0);
  // The first two passes, the stages in order, Theorem 2's route last but the reading choice (the
  // registry's own listing is checked against the registry in tests/theorems/test_pipeline.cpp).
  const std::size_t scope = r.out.find("  1. S ");
  const std::size_t canonical = r.out.find("  2. C0 ");
  const std::size_t reductions = r.out.find("each token reduction");
  const std::size_t elimination = r.out.find("elimination");
  const std::size_t architecture = r.out.find("each architecture");
  const std::size_t kth = r.out.find(" R3 ");
  const std::size_t last = r.out.find(" reading choice ");
  BOOST_TEST(scope != std::string::npos);
  BOOST_TEST(canonical > scope);
  BOOST_TEST(contains(r.out, "in order: C1 like terms; C2 self dot;"));
  BOOST_TEST(reductions > canonical);
  BOOST_TEST(elimination > reductions);
  BOOST_TEST(architecture > elimination);
  BOOST_TEST(kth > architecture);
  BOOST_TEST(last > kth);
  BOOST_TEST(last != std::string::npos);
}

BOOST_AUTO_TEST_CASE(derived_bounds_appear_in_check) {
  const Run r = run("check --targets " + std::string(INFOFLOW_TARGETS_FILE));
  BOOST_TEST(r.code == 1);
  BOOST_TEST(contains(r.out, "exceeds upper bound derived.min_inner.L1.h1.E16 O(eps^(1 - T/4))"));
  BOOST_TEST(contains(r.out, "20 entries"));
  BOOST_TEST(contains(r.out, "conjecture head_count.depth_conjecture is contradicted by derivation "
                             "derived.d_retrieval.L2.h1-1.E12 O(eps^(-1))"));
}

BOOST_AUTO_TEST_CASE(a_target_file_trains_like_the_builtin_task) {
  const std::string common = " --T 5 --heads 1,1 --E 8 --steps 30 --batch 8 --val-size 32 --json";
  const nlohmann::json file = nlohmann::json::parse(
      run("train --target " + std::string(INFOFLOW_TARGETS_FILE) + " --name min_inner" + common)
          .out);
  const nlohmann::json builtin = nlohmann::json::parse(run("train --task min_inner" + common).out);
  BOOST_TEST(file["result"]["best_validation_nmse"].get<double>() ==
             builtin["result"]["best_validation_nmse"].get<double>());
  BOOST_TEST(file["task"]["name"].get<std::string>() == "min_inner");
}

BOOST_AUTO_TEST_CASE(bad_targets_and_architectures_exit_two) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"derive 'max(s, t) dot(x[s], x[t]'", "formula:1:25: error: expected ')'"},
      {"derive 'max(s) dot(x[s], x[u])'",
       "formula:1:18: error: index 'u' is not bound by any reduction"},
      {"derive 'max(t) dott(x[t], a)'", "unknown function 'dott'"},
      {"derive 'max(t) dot(x[t])'", "dot() takes 2 arguments, not 1"},
      {"derive 'max(s, t) dot(x[s], x[s])'", "index 't' is bound but not used"},
      // --heads is read by train's parser, as Python's heads are; ranges by the architecture's.
      {"derive 'min(s != t) dot(x[s], x[t])' --heads 0,1",
       "--heads: error: heads must be positive integers separated by commas, e.g. 2,2 (got '0,1')"},
      {"derive 'min(s != t) dot(x[s], x[t])' --heads 300",
       "layer 1's head count must be between 1 and 256 (got 300)"},
      {"derive 'min(s != t) dot(x[s], x[t])' --heads 3 --E 16", "3 heads do not divide E = 16"},
      // d = 0 once meant "the target's d" silently, and d = -1 too.
      {"derive 'max(t) dot(a, x[t])' --d 0", "d must be between 1 and 65536 (got 0)"},
      {"train --formula 'max(t) dot(a, x[t])' --d -1", "--d: d must be between 1 and 65536 (got -1)"},
      {"derive 'sum(i = 1..D) max(t) dot(a[i], x[t])' --format json",
       "the formula needs values for D (e.g. --set D=3)"},
      {"derive 'kth(k, t) dot(a, x[t]) + sum(i = 1..D) max(t) dot(b[i], x[t])'",
       "the formula needs values for k, D"},
      {"plan 'sum(i = 1..D) max(t) dot(a[i], x[t])'", "the range or rank needs a value for D"},
      {"derive 'min(s != t) dot(x[s], x[t])' --set T=0", "T must be at least 1"},
      {"derive 'min(s != t) dot(x[s], x[t])' --set T=-5", "T must be at least 1"},
      {"derive 'min(s != t) dot(x[s], x[t])' --set T=1",
       "'min(s != t) dot(x[s], x[t])' has no index tuple for T = 1: it needs 2 distinct tokens"},
      {"derive 'max(s) min(t1 < t2 < t3) sqnorm(x[t1] + x[t2] + x[s] + x[t3])' --set T=2",
       "it needs 3 distinct tokens"},
      {"derive 'kth(k, t) dot(a, x[t])' --set k=0", "k must be at least 1"},
      {"derive 'kth(1000000, t) dot(a, x[t])'", "kth(1000000): the engine plans ranks up to 1024"},
      {"derive 'kth(k, t) dot(a, x[t])' --set k=9 --set T=4",
       "kth(9) over 4 candidates: the rank exceeds them"},
      {"derive 'max(s) kth(T, t != s) dot(x[s], x[t])' --set T=8",
       "kth(8) over 7 candidates: the rank exceeds them"},
      {"derive 'kth(k, t) dot(a, x[t])' --set Q=3", "has no integer Q (its integers: k)"},
      {"derive 'sum(i = 1..D) max(t) dot(a[i], x[t])' --set D=10000000",
       "unrolling i = 1..10000000 makes more than 4096 copies"},
      {"derive missing.toml", "missing.toml: error: no such target file"},
      {"derive '1/0'", "1/0: error: no such target file (read as a formula, it reads no token)"},
      {"plan '-max(t) dot(a, x[t])'",
       "starts with '-' and was read as an option: put -- before a formula that starts with a "
       "sign (infoflow plan -- '-max(t) dot(a, x[t])')"},
      {"train --formula 'max(t) dot(x[t]' --steps 5", "formula:1:16: error: expected ')'"},
      {"train --target no_such_file --steps 5", "no_such_file: error: no such target file"},
      {"train --task min_inner --formula 'max(t) dot(a, x[t])'",
       "give exactly one of --task, --target and --formula"},
  };
  for (const auto& [args, message] : cases) {
    const Run r = run(args);
    BOOST_TEST_INFO(args << " -> " << r.out);
    BOOST_TEST(r.code == 2);
    BOOST_TEST(contains(r.out, message));
  }
}

BOOST_AUTO_TEST_CASE(a_formula_with_a_sign_after_the_options_end_is_a_formula) {
  // Issue 46: --heads took the -- as the end of its list, and the formula became an option.
  const Run r = run("derive --heads 1 -- '-max(t) dot(a, x[t])'");
  BOOST_TEST(r.code == 0, r.out);
  BOOST_TEST(contains(r.out, "target formula: -max(t) dot(a, x[t])"), r.out);
  BOOST_TEST(contains(r.out, "M = O(eps^(-1)): efficient"), r.out);
  const Run two = run("plan --heads 1,1 -- '-max(t) dot(a, x[t]) - min(t) dot(b, x[t])'");
  BOOST_TEST(two.code == 0, two.out);
  BOOST_TEST(contains(two.out, "on L=2 h=(1,1)"), two.out);
  // --set likewise, for derive, construct and train alike.
  const Run set = run("construct --heads 1 --set T=8 -- '-max(t) dot(a, x[t])'");
  BOOST_TEST(set.code == 0, set.out);
  BOOST_TEST(contains(set.out, "built and measured"), set.out);
  const Run trained = run("train --heads 1 --E 8 --steps 5 --batch 8 --val-size 32 --set T=4 "
                          "--formula '-max(t) dot(a, x[t])'");
  BOOST_TEST(trained.code == 0, trained.out);
  // A name set twice is refused, not the last one taken unseen.
  const Run twice = run("construct --heads 1 --set T=8 --set T=16 'max(t) dot(a, x[t])'");
  BOOST_TEST(twice.code == 2);
  BOOST_TEST(contains(twice.out, "--set T=16: T is set twice (T=8 before)"), twice.out);
  const Run bad = run("plan 'max(t) dot(a, x[t])' --heads 1,x");
  BOOST_TEST(bad.code == 2);
  BOOST_TEST(contains(bad.out, "--heads: error: heads must be positive integers separated by commas, e.g. 2,2 (got '1,x')"));
}

BOOST_AUTO_TEST_CASE(an_architecture_the_search_prints_plans_again_as_printed) {
  // Issue 46: the search holds n fixed (E / 2 = 8 here) and printed "(3)", which --heads 3
  // alone cannot give (3 heads do not divide E = 16). Each architecture now comes with the
  // options that give it.
  const std::string formula = "'max(t) dot(a, x[t]) + min(t) dot(b, x[t]) + max(t) dot(c, x[t])'";
  const Run r = run("derive " + formula + " --heads 2");
  BOOST_TEST_REQUIRE(r.code == 0, r.out);
  const std::string line = "fewest heads with L = 1: (3), n = 8 (";
  const std::size_t at = r.out.find(line);
  BOOST_TEST_REQUIRE(at != std::string::npos, r.out);
  const std::size_t from = at + line.size();
  const std::string arguments = r.out.substr(from, r.out.find(')', from) - from);
  BOOST_TEST(arguments == "--heads 3 --E 16 --head-dim 8");
  const Run again = run("plan " + formula + " " + arguments);
  BOOST_TEST(again.code == 0, again.out);
  BOOST_TEST(contains(again.out, "on L=1 h=(3) E=16 d=4 n=8"), again.out);
  BOOST_TEST(contains(again.out, "M = O(eps^(-1)): efficient"), again.out);
  BOOST_TEST(run("plan " + formula + " --heads 3").code == 2);
}

BOOST_AUTO_TEST_CASE(derive_on_a_target_file_plans_on_the_architectures_it_lists) {
  // Issue 46: without --heads, derive ignored the file's architectures, and the LaTeX table's
  // M column said "---".
  TempDir temp;
  const std::string file =
      temp.write("targets.toml",
                 "[[target]]\nname = \"kth2\"\nformula = \"kth(2, t) dot(a, x[t])\"\n"
                 "set = { T = 32 }\narchitectures = [\"1\", \"1,1\"]\n")
          .string();
  const Run text = run("derive " + file);
  BOOST_TEST_REQUIRE(text.code == 0, text.out);
  BOOST_TEST(contains(text.out, "on L=1 h=(1) E=16"), text.out);
  BOOST_TEST(contains(text.out, "on L=2 h=(1,1) E=16"), text.out);
  const Run latex = run("derive " + file + " --format latex");
  BOOST_TEST_REQUIRE(latex.code == 0, latex.out);
  BOOST_TEST(contains(latex.out, "\\label{target:kth2-h1}"), latex.out);
  BOOST_TEST(contains(latex.out, "\\label{target:kth2-h1-1}"), latex.out);
  BOOST_TEST(!contains(latex.out, "& --- &"), latex.out);
  // The one-layer plan rests on Theorem 2, a lower bound, with the best upper bound beside it.
  BOOST_TEST(contains(latex.out, "$M = \\Omega\\left(\\varepsilon^{-\\frac{29}{17}}\\right)$"),
             latex.out);
  BOOST_TEST(contains(latex.out, "upper bound:\\newline $M = O\\left(\\varepsilon^{-7}\\right)$"),
             latex.out);
}

BOOST_AUTO_TEST_CASE(a_long_derive_or_construct_says_what_it_is_doing) {
  // Issue 46: construct ran 12 minutes without a word. On a terminal, from 5 s on (here from 0 s:
  // INFOFLOW_PROGRESS_AFTER), a line on standard error says the command, the time and the stage.
  if (std::system("command -v script >/dev/null 2>&1") != 0) {
    BOOST_TEST_MESSAGE("script (util-linux) not installed: no terminal to test the line on");
    return;
  }
  // Each runs a second or so, time enough for the line to be drawn.
  for (const std::string command :
       {"derive 'max(r, s, t, u) (dot(x[r], x[s]) + dot(x[s], x[t]) + dot(x[t], x[u]))' --heads 1",
        "construct 'max(t) exp(-dot(a, x[t]))' --heads 1 --samples 200000"}) {
    const std::string shell = "env -u CI INFOFLOW_PROGRESS_AFTER=0 script -qec \"" +
                              std::string(INFOFLOW_BINARY) + " " + command + "\" /dev/null 2>&1";
    FILE* pipe = ::popen(shell.c_str(), "r");
    BOOST_TEST_REQUIRE(pipe != nullptr);
    std::string out;
    std::array<char, 4096> buffer{};
    for (std::size_t n = 0; (n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0;)
      out.append(buffer.data(), n);
    BOOST_TEST(::pclose(pipe) == 0, out);
    BOOST_TEST(contains(out, "\r\033[Kinfoflow " + command.substr(0, command.find(' ')) + ": 0 s"),
               out);
  }
  // Not on a terminal: no line redrawn into a log.
  const Run plain = run("derive 'max(t) dot(a, x[t])' --heads 1");
  BOOST_TEST(!contains(plain.out, "\033[K"));
}

BOOST_AUTO_TEST_CASE(bad_target_files_name_file_line_and_column) {
  const TempDir temp;
  const std::filesystem::path& dir = temp.dir();
  const std::filesystem::path file = dir / "t.toml";
  std::ofstream(file) << "[[target]]\nname = \"a\"\nformula = \"max(t) dot(x[t], a) +\"\n";
  Run r = run("derive " + file.string());
  BOOST_TEST(r.code == 2);
  BOOST_TEST(contains(r.out, file.string() + ":3:33: error: expected an operand"));
  std::ofstream(file)
      << "[[target]]\nname = \"a\"\nformula = \"max(t) dot(x[t], a)\"\ncolour = 1\n";
  r = run("derive " + file.string());
  BOOST_TEST(contains(r.out, file.string() + ":4:10: error: target: unknown key 'colour'"));
  std::ofstream(file) << "[[target]]\nname = \"a\"\nformula = \"max(t) dot(x[t], a)\"\n"
                         "[[target]]\nname = \"a\"\nformula = \"min(t) dot(x[t], a)\"\n";
  r = run("derive " + file.string());
  BOOST_TEST(r.code == 2);
  BOOST_TEST(contains(r.out, file.string() + ":5:9: error: duplicate target name 'a'"));
  std::ofstream(file) << "[[target]]\nname = \"a\"\nformula = \"max(t) dot(x[t], a)\"\n"
                         "family = \"retrieval\"\nsame_as = \"kth_retrieval\"\n";
  r = run("derive " + file.string());
  BOOST_TEST(r.code == 2);
  BOOST_TEST(contains(r.out, "give 'family' or 'same_as', not both"));
}

namespace {
std::vector<std::string> lines_of(const std::filesystem::path& file) {
  std::vector<std::string> out;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}
}  // namespace

BOOST_AUTO_TEST_CASE(a_sweep_killed_mid_way_resumes_and_keeps_every_run_once) {
  const TempDir temp;
  const std::filesystem::path& dir = temp.dir();
  std::ofstream(dir / "k.toml")
      << "[experiment]\nname = \"k\"\nclaim = \"growth_in_T\"\ntask = \"min_inner\"\n"
         "[profile.quick]\nT = [4, 6, 8, 10, 12, 14]\nheads = \"1,1\"\nE = 8\n"
         "seeds = [1, 2]\nsteps = 2500\nbatch = 16\nval_size = 64\n";
  const std::filesystem::path results = dir / "results" / "k.jsonl";
  const pid_t pid = ::fork();
  BOOST_TEST_REQUIRE(pid >= 0);
  if (pid == 0) {
    const std::string spec = (dir / "k.toml").string();
    const std::string out = (dir / "results").string();
    ::execl(INFOFLOW_BINARY, INFOFLOW_BINARY, "sweep", spec.c_str(), "--results", out.c_str(),
            "--workers", "2", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Kill it once some runs are in, mid-way through the others.
  for (int i = 0; i < 1200 && lines_of(results).size() < 3; ++i) ::usleep(50000);
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  BOOST_TEST(WIFSIGNALED(status));
  const std::vector<std::string> before = lines_of(results);
  BOOST_TEST_REQUIRE(before.size() >= 3u);
  BOOST_TEST_REQUIRE(before.size() < 12u);  // it was stopped before the end
  const Run resumed =
      run("sweep " + (dir / "k.toml").string() + " --results " + (dir / "results").string());
  BOOST_TEST(resumed.code == 0);
  BOOST_TEST(contains(resumed.out, "12 runs: " + std::to_string(before.size()) + " already done, " +
                                       std::to_string(12 - before.size()) + " run now"));
  const std::vector<std::string> after = lines_of(results);
  BOOST_TEST(after.size() == 12u);
  std::set<std::string> keys;
  for (const std::string& line : after)
    keys.insert(nlohmann::json::parse(line).at("key").get<std::string>());
  BOOST_TEST(keys.size() == 12u);  // every run exactly once
  for (std::size_t i = 0; i < before.size(); ++i)
    BOOST_TEST(after[i] == before[i]);  // finished runs kept as they were
}

BOOST_AUTO_TEST_CASE(a_sweep_killed_mid_run_resumes_that_run_from_its_checkpoint_bitwise) {
  const TempDir temp;
  const std::filesystem::path& dir = temp.dir();
  std::ofstream(dir / "c.toml")
      << "[experiment]\nname = \"c\"\nclaim = \"growth_in_T\"\ntask = \"min_inner\"\n"
         "[profile.quick]\nT = 6\nheads = \"1,1\"\nE = 8\nseeds = [1]\nsteps = 20000\n"
         "batch = 16\nval_size = 64\neval_every = 500\n";
  const std::string spec = (dir / "c.toml").string();
  const std::filesystem::path checkpoints = dir / "a" / "checkpoints" / "c";
  const pid_t pid = ::fork();
  BOOST_TEST_REQUIRE(pid >= 0);
  if (pid == 0) {
    const std::string out = (dir / "a").string();
    ::execl(INFOFLOW_BINARY, INFOFLOW_BINARY, "sweep", spec.c_str(), "--results", out.c_str(),
            "--workers", "1", "--checkpoint-every", "500", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Kill it as soon as a checkpoint is there, mid-run: the run has 39 more to go (on a fast
  // machine the whole run takes about a second, so no waiting beyond the poll).
  // (A checkpoint, not the hidden copy it is written to first.)
  const auto checkpointed = [&] {
    std::error_code none;
    for (const auto& e : std::filesystem::directory_iterator(checkpoints, none)) {
      if (e.path().extension() == ".ckpt") return true;
    }
    return false;
  };
  for (int i = 0; i < 12000 && !checkpointed(); ++i) ::usleep(10000);
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  BOOST_TEST_REQUIRE(WIFSIGNALED(status));
  BOOST_TEST_REQUIRE(lines_of(dir / "a" / "c.jsonl").empty());  // stopped before the end
  // A writer killed mid-write leaves its hidden copy (".KEY.ckpt.XXXXXX"); one is planted, and
  // must go with the checkpoint once the run is recorded.
  BOOST_TEST_REQUIRE(checkpointed());
  for (const auto& e : std::filesystem::directory_iterator(checkpoints)) {
    if (e.path().extension() == ".ckpt")
      std::ofstream(checkpoints / ("." + e.path().filename().string() + ".Ab12Cd")) << "partial";
  }
  BOOST_TEST_REQUIRE(run("sweep " + spec + " --results " + (dir / "a").string()).code == 0);
  BOOST_TEST(std::filesystem::is_empty(checkpoints));  // removed once the run is recorded
  BOOST_TEST_REQUIRE(
      run("sweep " + spec + " --results " + (dir / "b").string() + " --checkpoint-every 0").code ==
      0);
  const std::vector<std::string> a = lines_of(dir / "a" / "c.jsonl");
  const std::vector<std::string> b = lines_of(dir / "b" / "c.jsonl");
  BOOST_TEST_REQUIRE(a.size() == 1u);
  BOOST_TEST_REQUIRE(b.size() == 1u);
  const nlohmann::json resumed = nlohmann::json::parse(a[0]);
  const nlohmann::json whole = nlohmann::json::parse(b[0]);
  BOOST_TEST(resumed["resumed_from"].get<long>() > 0);
  BOOST_TEST(resumed["resumed_from"].get<long>() < 20000);
  BOOST_TEST(whole["resumed_from"].get<long>() == 0);
  BOOST_TEST(resumed["curve"].dump() == whole["curve"].dump());  // bitwise the same numbers
  BOOST_TEST(resumed["best_validation_nmse"].get<double>() ==
             whole["best_validation_nmse"].get<double>());
  BOOST_TEST(resumed["key"] == whole["key"]);
}

BOOST_AUTO_TEST_CASE(train_refuses_a_checkpoint_of_another_configuration) {
  const TempDir temp;
  const std::string base = "train --task intrinsic_dim --D 2 --T 6 --heads 2,2 --E 8 --steps 50 "
                           "--batch 8 --val-size 32 --checkpoint " +
                           (temp.dir() / "run.ckpt").string();
  BOOST_TEST_REQUIRE(run(base).code == 0);
  const Run again = run(base);  // finished: the same result at once
  BOOST_TEST(again.code == 0);
  const Run other = run(base + " --task-seed 7");
  BOOST_TEST(other.code == 2);
  BOOST_TEST(contains(other.out, "belongs to another configuration"));
}

BOOST_AUTO_TEST_CASE(train_refuses_a_checkpoint_of_another_code_version) {
  // The same run written by an earlier code version: resuming it would join curves whose
  // numbers were summed in another order.
  const TempDir temp;
  const std::filesystem::path file = temp.dir() / "run.ckpt";
  const std::string base = "train --task intrinsic_dim --D 2 --T 6 --heads 2,2 --E 8 --steps 50 "
                           "--batch 8 --val-size 32 --checkpoint " + file.string();
  BOOST_TEST_REQUIRE(run(base).code == 0);
  infoflow::numeric::Checkpoint c = infoflow::numeric::load_checkpoint(file);
  const std::string now = std::string("code=") + infoflow::numeric::kCodeVersion;
  const std::size_t at = c.fingerprint.find(now);
  BOOST_TEST_REQUIRE(at != std::string::npos, c.fingerprint);
  c.fingerprint.replace(at, now.size(), "code=infoflow-numeric-0");
  infoflow::numeric::save_checkpoint(file, c);
  const Run resumed = run(base);
  BOOST_TEST(resumed.code == 2);
  BOOST_TEST(contains(resumed.out, "code version"));
}

BOOST_AUTO_TEST_CASE(a_bad_experiment_is_rejected_before_anything_runs) {
  const TempDir temp;
  const std::filesystem::path& dir = temp.dir();
  std::ofstream(dir / "good.toml")
      << "[experiment]\nname = \"good\"\nclaim = \"growth_in_T\"\ntask = \"min_inner\"\n"
         "[profile.quick]\nT = [4, 6]\nheads = \"1\"\nE = 8\nseeds = [1]\nsteps = 5\n";
  std::ofstream(dir / "bad.toml")
      << "[experiment]\nname = \"bad\"\nclaim = \"growth_in_T\"\ntask = \"kth_max\"\n"
         "[profile.quick]\nT = [4, 6]\nk = 5\nheads = \"1\"\nE = 8\nseeds = [1]\n";
  const Run r = run("sweep " + (dir / "good.toml").string() + " " + (dir / "bad.toml").string() +
                    " --results " + (dir / "results").string());
  BOOST_TEST(r.code == 2);
  BOOST_TEST(contains(r.out, "bad.toml:"));
  BOOST_TEST(contains(r.out, "k must be between 1 and T = 4"));
  BOOST_TEST(!std::filesystem::exists(dir / "results" / "good.jsonl"));  // nothing ran
}

BOOST_AUTO_TEST_CASE(shards_merge_verify_and_report) {
  const TempDir temp;
  const std::filesystem::path& dir = temp.dir();
  const std::string spec = (dir / "s.toml").string();
  std::ofstream(spec) << "[experiment]\nname = \"s\"\ntitle = \"shards\"\nclaim = "
                         "\"growth_in_T\"\ntask = \"kth_max\"\n"
                         "[profile.quick]\nk = [1, 2]\nT = [4, 16]\nheads = \"1\"\nE = 8\nseeds = "
                         "[1, 2]\nsteps = 40\n"
                         "batch = 8\nval_size = 32\n";
  const std::string a = (dir / "a").string();
  const std::string b = (dir / "b").string();
  BOOST_TEST(contains(run("sweep " + spec + " --results " + a + " --shard 0/2").out,
                      "4 runs in shard 0/2"));
  BOOST_TEST(run("sweep " + spec + " --results " + b + " --shard 1/2").code == 0);
  const std::string merged = (dir / "m" / "s.jsonl").string();
  std::filesystem::create_directories(dir / "m");
  const Run m = run("merge " + a + "/s.jsonl " + b + "/s.jsonl " + a + "/s.jsonl -o " + merged);
  BOOST_TEST(m.code == 0);
  BOOST_TEST(contains(m.out, "(8 runs)"));
  const Run v = run("verify " + spec + " --results " + (dir / "m").string());
  BOOST_TEST(v.code == 0);
  BOOST_TEST(contains(v.out, "s (growth_in_T, profile quick): shards"));
  BOOST_TEST(contains(v.out, "predicted: O(eps^(-1)) (efficient): NMSE does not grow in T"));
  const nlohmann::json j = nlohmann::json::parse(
      run("verify " + spec + " --json --results " + (dir / "m").string()).out);
  // k = 1, k = 2, and the two compared at T = 16, where their rates separate on n = 8
  BOOST_TEST(j[0]["claims"].size() == 3u);
  BOOST_TEST(j[0]["claims"][2]["need"] == "seeds");  // two seeds: too few for an interval
  const std::string out = (dir / "report").string();
  const Run r = run("report " + spec + " --no-sweep --no-compile --results " +
                    (dir / "m").string() + " -o " + out);
  BOOST_TEST(r.code == 0);
  // After the counts, the verdict table: a row per claim, and why each open one is open.
  BOOST_TEST(contains(r.out, "s: 3 claims"));
  BOOST_TEST(contains(r.out, "verdict       claim"));
  BOOST_TEST(r.out.find("s: 3 claims") < r.out.find("verdict       claim"), r.out);
  BOOST_TEST(contains(r.out, "s (growth_in_T, profile quick)\n"));
  BOOST_TEST(contains(r.out, "k = 1"));
  BOOST_TEST(contains(r.out, "why: "));
  BOOST_TEST(std::filesystem::exists(dir / "report" / "report.tex"));
  BOOST_TEST(std::filesystem::exists(dir / "report" / "claims.csv"));
  BOOST_TEST(run("sweep " + spec + " --shard 2/2").code == 2);
  const Run missing = run("merge " + a + "/none.jsonl -o " + (dir / "x.jsonl").string());
  BOOST_TEST(missing.code == 2);
  BOOST_TEST(contains(missing.out, "none.jsonl: error: no such results file"));
  BOOST_TEST(!std::filesystem::exists(dir / "x.jsonl"));
  BOOST_TEST(contains(run("sweep " + spec + " --profile full").out, "has no profile 'full'"));
}

BOOST_AUTO_TEST_CASE(a_budget_trains_where_claims_are_undecided_and_says_what_is_left) {
  const TempDir temp;
  const std::filesystem::path& dir = temp.dir();
  const std::string spec = (dir / "b.toml").string();
  std::ofstream(spec) << "[experiment]\nname = \"b\"\nclaim = \"growth_in_T\"\ntask = "
                         "\"kth_max\"\n[profile.quick]\nk = [1, 2]\nT = [4, 8]\nheads = \"1\"\n"
                         "E = 8\nseeds = [1, 2]\nsteps = 20\nbatch = 8\nval_size = 32\n";
  const std::string results = " --results " + (dir / "r").string();
  // A bad duration, or a budget with --no-sweep, is refused before anything runs.
  const Run bad = run("verify " + spec + results + " --budget soon");
  BOOST_TEST(bad.code == 2);
  BOOST_TEST(contains(bad.out, "--budget needs a duration such as 90s"));
  BOOST_TEST(run("report " + spec + results + " --no-sweep --budget 1m -o " +
                 (dir / "rep").string())
                 .code == 2);
  BOOST_TEST(run("verify " + spec + results + " --budget 1m --workers -1").code == 2);
  BOOST_TEST(run("verify " + spec + results + " --budget 1m --workers 2000").code == 2);
  BOOST_TEST(run("verify " + spec + results + " --workers 2").code == 2);  // nothing trains
  BOOST_TEST(!std::filesystem::exists(dir / "r" / "b.jsonl"));
  const Run v = run("verify " + spec + results + " --budget 2m --workers 1");
  BOOST_TEST(v.code == 0);
  BOOST_TEST(contains(v.out, "budget 2.0 min: "), v.out);
  BOOST_TEST(contains(v.out, "trained b, "), v.out);
  BOOST_TEST(contains(v.out, "still undecided, and what each would need:"), v.out);
}

BOOST_AUTO_TEST_SUITE_END()
