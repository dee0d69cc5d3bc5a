// Verdicts on measurements made up to have a known answer, and the report folder.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

#include <boost/test/unit_test.hpp>

#include "infoflow/core/error.hpp"
#include "infoflow/core/random.hpp"
#include "infoflow/experiments/constructed.hpp"
#include "infoflow/experiments/cross_check.hpp"
#include "infoflow/experiments/results.hpp"
#include "infoflow/experiments/verification.hpp"
#include "infoflow/report/catalogue_report.hpp"
#include "infoflow/report/experiment_report.hpp"

#include "common/temp_dir.hpp"
#include "evidence.hpp"
#include <unistd.h>

namespace ex = infoflow::experiments;
namespace nm = infoflow::numeric;
namespace rp = infoflow::report;
namespace th = infoflow::theorems;
namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& file) {
  std::ifstream in(file);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct Fixture {
  infoflow::testing::TempDir temp;
  const fs::path& dir = temp.dir();
  th::Catalogue catalogue = th::Catalogue::load_directory(INFOFLOW_CATALOGUE_DIR);

  ex::ExperimentSpec spec(const std::string& name, const std::string& text) const {
    return ex::ExperimentSpec::load(temp.write(name + ".toml", text));
  }
};

/// A record for every run of the profile, NMSE from `nmse(run)` times noise of 0.05 decade.
std::vector<ex::RunRecord> measure(
    const ex::ExperimentSpec& spec, const std::function<double(const ex::RunConfig&)>& nmse,
    const std::function<bool(const ex::RunConfig&)>& converged = [](const ex::RunConfig&) {
      return true;
    }) {
  std::vector<ex::RunRecord> out;
  infoflow::Rng rng(3);
  for (const ex::RunConfig& r : spec.runs("quick")) {
    ex::RunRecord rec;
    rec.key = r.key;
    rec.experiment = r.experiment;
    rec.labels = r.labels;
    rec.status = converged(r) ? nm::RunStatus::kConverged : nm::RunStatus::kBudgetReached;
    rec.best_validation_nmse = nmse(r) * std::pow(10.0, 0.05 * rng.normal());
    rec.curve = {{100, 1.0}, {200, rec.best_validation_nmse}};
    rec.parameters = rec.parameters_theory = 100 * r.model.ffn_width;
    out.push_back(rec);
  }
  return out;
}

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

const char* kPhase = R"([experiment]
name = "phase"
claim = "heads_phase"
task = "intrinsic_dim"
group = "D"
arm = "heads"
[profile.quick]
D = [2, 3]
T = 16
heads = ["D,D", "D-1,D"]
E = 16
head_dim = 8
seeds = [1, 2, 3]
)";

const char* kGrowth = R"([experiment]
name = "growth"
claim = "growth_in_T"
task = "min_inner"
[profile.quick]
T = [4, 6, 8, 12, 16, 24, 32]
heads = ["1", "1,1"]
E = 16
seeds = [1, 2, 3]
)";

const char* kExponent = R"([experiment]
name = "exponent"
claim = "exponent"
task = "fixed_positions"
arm = "ffn_width"
[profile.quick]
T0 = 8
T = 8
heads = "1"
E = 8
ffn_width = [8, 16, 32, 64, 128, 256]
seeds = [1, 2, 3]
)";

}  // namespace

BOOST_FIXTURE_TEST_SUITE(verification, Fixture)

BOOST_AUTO_TEST_CASE(a_clear_phase_transition_agrees_and_a_reversed_one_disagrees) {
  th::Engine engine(catalogue);
  const ex::ExperimentSpec s = spec("phase", kPhase);
  auto efficient = [](const ex::RunConfig& r) { return r.model.heads[0] == r.task.comparisons; };
  const ex::ExperimentResult good = ex::verify(
      s, "quick", measure(s, [&](const ex::RunConfig& r) { return efficient(r) ? 1e-5 : 1e-2; }),
      engine);
  BOOST_TEST_REQUIRE(good.claims.size() == 2u);
  for (const ex::Claim& c : good.claims) BOOST_TEST(ex::to_text(c.verdict) == "agrees");
  BOOST_TEST(good.claims[0].group == "D = 2");
  const ex::ExperimentResult bad = ex::verify(
      s, "quick", measure(s, [&](const ex::RunConfig& r) { return efficient(r) ? 1e-2 : 1e-5; }),
      engine);
  for (const ex::Claim& c : bad.claims) BOOST_TEST(ex::to_text(c.verdict) == "disagrees");
  const ex::ExperimentResult same =
      ex::verify(s, "quick", measure(s, [](const ex::RunConfig&) { return 1e-3; }), engine);
  for (const ex::Claim& c : same.claims) BOOST_TEST(ex::to_text(c.verdict) == "inconclusive");
  // Missing runs are reported, not silently dropped.
  std::vector<ex::RunRecord> part = measure(s, [](const ex::RunConfig&) { return 1e-3; });
  part.resize(5);
  BOOST_TEST(ex::verify(s, "quick", part, engine).missing_runs == 7);
  // ... with the command that resumes them into the folder they were read from.
  const ex::ExperimentResult partial =
      ex::verify_in_context(s, "quick", part, dir / "runs" / "phase.jsonl", engine);
  BOOST_TEST_REQUIRE(!partial.notes.empty());
  BOOST_TEST(partial.notes[0].find("7 of 12 runs have no result yet") == 0u);
  BOOST_TEST(partial.notes[0].find("phase.toml --results " + (dir / "runs").string() + "`)") !=
                 std::string::npos,
             partial.notes[0]);
  // An experiment named on the command line (a shipped one) is named so again, not by the
  // absolute path of its file (which the report printed).
  const std::vector<ex::ExperimentSpec> named =
      ex::load_specs({"phase"}, s.file.parent_path());
  BOOST_TEST_REQUIRE(named.size() == 1u);
  BOOST_TEST(named.front().called == "phase");
  const ex::ExperimentResult by_name =
      ex::verify_in_context(named.front(), "quick", part, dir / "runs" / "phase.jsonl", engine);
  BOOST_TEST(by_name.notes[0].find("(run `infoflow sweep phase --results ") != std::string::npos,
             by_name.notes[0]);
}

BOOST_AUTO_TEST_CASE(a_gap_where_the_rates_at_its_T_do_not_separate_is_undecided) {
  // Intrinsic dimension on E = 16, d = 4, n = 8. One head fewer falls back to a global
  // aggregation, eps^(1 - T/4): the decoding floor eps^-1 at T = 8, eps^-3 at T = 16. (D, D)
  // decodes 4 D positions, but no more than the T there are: eps^-1 for D = 2; for D = 3, 12
  // positions, eps^-2, at T = 16, and the 8 there are, eps^-1, at T = 8. At T = 8 neither D
  // separates, and a clear gap there decides nothing; at T = 16 both do, and it agrees.
  th::Engine engine(catalogue);
  for (const std::string t : {"8", "16"}) {
    std::string text = kPhase;
    text.replace(text.find("T = 16"), 6, "T = " + t);
    const ex::ExperimentSpec s = spec("phase" + t, text);
    const ex::ExperimentResult r = ex::verify(s, "quick", measure(s, [](const ex::RunConfig& c) {
      return c.model.heads[0] == c.task.comparisons ? 1e-5 : 1e-2;
    }), engine);
    BOOST_TEST_REQUIRE(r.claims.size() == 2u);
    if (t == "8") {
      for (const ex::Claim& c : r.claims) {
        BOOST_TEST(ex::to_text(c.verdict) == "inconclusive");
        BOOST_TEST((c.need == ex::Need::kNothing));
        BOOST_TEST(c.why.find("undecided: at T = 8 the rates do not separate them (not "
                              "efficient: O(eps^(-1)) at this T, efficient: O(eps^(-1)))") == 0u,
                   c.why);
        BOOST_TEST(c.measured.find("gap ") == 0u, c.measured);  // what was measured stays shown
      }
    } else {
      for (const ex::Claim& c : r.claims) {
        BOOST_TEST(ex::to_text(c.verdict) == "agrees");
        BOOST_TEST(c.why.find("do not separate") == std::string::npos, c.why);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(a_configuration_without_a_rate_separates_nothing_but_not_computable_does) {
  // Plans of real formulas at T = 8 on one head: efficient, outside the framework (log of a
  // value that reaches 0), and not computable (an order without positions).
  th::Engine engine(catalogue);
  const auto plan_of = [&](const std::string& formula) {
    infoflow::targets::TargetSpec spec;
    spec.name = "t";
    spec.formula = infoflow::targets::Formula::parse(formula);
    spec.set["T"] = 8;
    return engine.plan(th::to_target(spec), th::architecture_for(spec, 16, 0, {1}));
  };
  const th::Plan efficient = plan_of("max(t) dot(a, x[t])");
  const th::Plan outside = plan_of("log(abs(max(t) dot(a, x[t])))");
  const th::Plan blind = plan_of("max(s < t) (dot(a, x[s]) + dot(b, x[t]))");
  BOOST_TEST_REQUIRE((outside.verdict == th::Verdict::kOutsideFramework));
  BOOST_TEST_REQUIRE((blind.verdict == th::Verdict::kNotComputable));
  const auto cell = [](const th::Plan& p, const std::string& heads) {
    ex::Cell c;
    c.labels = {{"heads", heads}};
    c.plan = &p;
    c.tokens = 8;
    return c;
  };
  const ex::Cell good = cell(efficient, "1,1");
  const ex::Cell none = cell(outside, "1");
  const ex::Cell never = cell(blind, "2");
  BOOST_TEST(ex::rates_alike_at_T({&good}, {&none}) ==
             "at T = 8 the rates cannot separate them: heads = 1 has none (outside the "
             "framework), so a gap measured here tests no prediction");
  BOOST_TEST(ex::rates_alike_at_T({&good}, {&never}).empty());
}

BOOST_AUTO_TEST_CASE(a_high_nmse_counts_only_from_converged_runs_and_intervals_need_three_seeds) {
  th::Engine engine(catalogue);
  const ex::ExperimentSpec s = spec("phase", kPhase);
  auto efficient = [](const ex::RunConfig& r) { return r.model.heads[0] == r.task.comparisons; };
  auto clear = [&](const ex::RunConfig& r) { return efficient(r) ? 1e-5 : 1e-2; };
  // The inefficient side still improving at its budget: the gap may be the budget's.
  const ex::ExperimentResult unconverged = ex::verify(
      s, "quick",
      measure(s, clear, [&](const ex::RunConfig& r) { return efficient(r); }), engine);
  for (const ex::Claim& c : unconverged.claims) {
    BOOST_TEST(ex::to_text(c.verdict) == "inconclusive");
    BOOST_TEST(c.why.find("not converged at this budget") == 0u, c.why);
    // What the verdict rests on, counted: the group's 2 architectures x 3 seeds.
    BOOST_TEST(c.runs.planned == 6);
    BOOST_TEST(c.runs.converged == 3);
    BOOST_TEST(c.runs.budget_reached == 3);
    BOOST_TEST(ex::to_text(c.runs) == "6 runs, 3 converged, 3 budget reached");
  }
  BOOST_TEST(unconverged.curves.size() == 6u);  // their learning curves go to the report
  // The efficient side unconverged does not matter when it is the low one.
  const ex::ExperimentResult low_unconverged = ex::verify(
      s, "quick",
      measure(s, clear, [&](const ex::RunConfig& r) { return !efficient(r); }), engine);
  for (const ex::Claim& c : low_unconverged.claims) BOOST_TEST(ex::to_text(c.verdict) == "agrees");
  // Two seeds: no interval.
  std::vector<ex::RunRecord> two = measure(s, clear);
  std::erase_if(two, [](const ex::RunRecord& r) { return r.labels.at("seed") == "3"; });
  for (const ex::Claim& c : ex::verify(s, "quick", two, engine).claims) {
    BOOST_TEST(ex::to_text(c.verdict) == "inconclusive");
    BOOST_TEST(c.why.find("too few seeds") == 0u, c.why);
    BOOST_TEST(ex::to_text(c.runs) == "6 runs, 4 converged, 2 missing");
  }
}

/// More seeds are asked for where a gap's interval straddles a boundary (0 or 0.5 decade), not
/// where it lies between them: there they would only narrow it.
BOOST_AUTO_TEST_CASE(a_gap_between_zero_and_a_separation_asks_for_no_seeds) {
  th::Engine engine(catalogue);
  const ex::ExperimentSpec s = spec("phase", kPhase);
  auto efficient = [](const ex::RunConfig& r) { return r.model.heads[0] == r.task.comparisons; };
  const auto apart = [&](double decades) {
    return [=](const ex::RunConfig& r) { return efficient(r) ? 1e-3 : 1e-3 * std::pow(10.0, decades); };
  };
  // 0.25 decade, noise 0.05: the interval lies inside (0, 0.5). On 3 seeds it is not trusted
  // yet: seeds; on 6, nothing.
  const ex::ExperimentResult between = ex::verify(s, "quick", measure(s, apart(0.25)), engine);
  BOOST_TEST_REQUIRE(between.claims.size() == 2u);  // D = 2 and 3
  for (const ex::Claim& c : between.claims) {
    BOOST_TEST(ex::to_text(c.verdict) == "inconclusive");
    BOOST_TEST(c.why.find("the gap's interval lies between 0 and 0.5 decade") == 0u, c.why);
    BOOST_TEST(ex::to_text(c.need) == "seeds");
  }
  std::string six = kPhase;
  six.replace(six.find("seeds = [1, 2, 3]"), 17, "seeds = [1, 2, 3, 4, 5, 6]");
  const ex::ExperimentSpec s6 = spec("phase", six);
  const ex::ExperimentResult between6 = ex::verify(s6, "quick", measure(s6, apart(0.25)), engine);
  BOOST_TEST_REQUIRE(between6.claims.size() == 2u);
  for (const ex::Claim& c : between6.claims) {
    BOOST_TEST(c.why.find("the gap's interval lies between 0 and 0.5 decade") == 0u, c.why);
    BOOST_TEST(c.why.find("more seeds would only narrow it") != std::string::npos, c.why);
    BOOST_TEST(ex::to_text(c.need) == "nothing");
  }
  // The same gap with the efficient side still improving: longer runs may widen it.
  const ex::ExperimentResult short_runs = ex::verify(
      s, "quick", measure(s, apart(0.25), [&](const ex::RunConfig& r) { return !efficient(r); }),
      engine);
  BOOST_TEST_REQUIRE(short_runs.claims.size() == 2u);
  for (const ex::Claim& c : short_runs.claims) {
    BOOST_TEST(c.why.find("not converged at this budget: 3 of 6 runs of the group") !=
               std::string::npos, c.why);
    BOOST_TEST(ex::to_text(c.need) == "steps");
  }
  // 0.5 decade: the interval straddles the separation, and seeds may carry it out.
  const ex::ExperimentResult straddling = ex::verify(s, "quick", measure(s, apart(0.5)), engine);
  BOOST_TEST_REQUIRE(straddling.claims.size() == 2u);
  for (const ex::Claim& c : straddling.claims) {
    BOOST_TEST(ex::to_text(c.verdict) == "inconclusive");
    BOOST_TEST(c.why.find("reaches below 0.5 decade") != std::string::npos, c.why);
    BOOST_TEST(ex::to_text(c.need) == "seeds");
  }
}

BOOST_AUTO_TEST_CASE(a_curve_that_cooled_down_at_its_cap_is_drawn_with_the_cool_down_marked) {
  th::Engine engine(catalogue);
  const ex::ExperimentSpec s = spec("phase", kPhase);
  std::vector<ex::RunRecord> records = measure(
      s, [](const ex::RunConfig&) { return 1e-2; }, [](const ex::RunConfig&) { return false; });
  for (ex::RunRecord& r : records) r.cooldown_start = 150;  // the cap, between two evaluations
  records.front().cooldown_start = 0;                       // a fixed-budget run: no mark
  const ex::ExperimentResult r = ex::verify(s, "quick", records, engine);
  BOOST_TEST_REQUIRE(r.curves.size() == 12u);
  BOOST_TEST(r.curves.front().cooldown_start == 0);
  BOOST_TEST(r.curves.back().cooldown_start == 150);
  (void)rp::write_report(dir / "cool", {r}, false);
  const std::string figure = read_text(dir / "cool" / "curves_phase.tex");
  // The dot sits on the last evaluation before the cool-down, in the curve's colour.
  const std::string dot = "only marks, mark=*, mark size=1.5pt, forget plot] coordinates { "
                          "(100,1.000000e+00) };";
  BOOST_TEST(occurrences(figure, dot) == 11u, figure);
  BOOST_TEST(figure.find("\\addplot[red, only marks") != std::string::npos);
  BOOST_TEST(read_text(dir / "cool" / "report.tex").find("a dot: the cool-down began there") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_quick_verdict_that_the_full_results_contradict_says_so) {
  th::Engine engine(catalogue);
  const ex::ExperimentSpec s = spec("phase", kPhase);
  auto efficient = [](const ex::RunConfig& r) { return r.model.heads[0] == r.task.comparisons; };
  ex::ExperimentResult quick = ex::verify(
      s, "quick", measure(s, [&](const ex::RunConfig& r) { return efficient(r) ? 1e-5 : 1e-2; }),
      engine);
  ex::ExperimentResult full = ex::verify(
      s, "quick", measure(s, [&](const ex::RunConfig& r) { return efficient(r) ? 1e-2 : 1e-5; }),
      engine);
  full.profile = "full";
  ex::cross_check(quick, full);
  for (const ex::Claim& c : quick.claims)
    BOOST_TEST(c.cross_check.find("the full profile's results say: disagrees") == 0u);
  ex::ExperimentResult same = quick;
  for (ex::Claim& c : same.claims) c.cross_check.clear();
  ex::cross_check(same, quick);
  for (const ex::Claim& c : same.claims) BOOST_TEST(c.cross_check.empty());

  // A full profile that varies T (groups "D = 2, T = 16", "D = 2, T = 32") against a quick one
  // that fixes T = 16 (group "D = 2"): only the T = 16 claim speaks for the quick one.
  std::string varied = kPhase;
  varied.replace(varied.find("T = 16"), 6, "T = [16, 32]");
  const ex::ExperimentSpec v = spec("varied", varied);
  ex::ExperimentResult over_t = ex::verify(
      v, "quick", measure(v, [&](const ex::RunConfig& r) {
        const bool disagree = r.task.tokens == 16;
        return efficient(r) == disagree ? 1e-2 : 1e-5;
      }),
      engine);
  over_t.profile = "full";
  BOOST_TEST_REQUIRE(over_t.claims.size() == 4u);
  BOOST_TEST(over_t.claims[0].group == "D = 2, T = 16");
  for (ex::Claim& c : quick.claims) c.cross_check.clear();
  ex::cross_check(quick, over_t);
  for (const ex::Claim& c : quick.claims)
    BOOST_TEST(c.cross_check.find("the full profile's results say: disagrees") == 0u, c.group);
  // Without runs of its own, a claim has no T to meet the full one at: nothing said.
  ex::ExperimentResult no_rows = quick;
  no_rows.rows.clear();
  for (ex::Claim& c : no_rows.claims) c.cross_check.clear();
  ex::cross_check(no_rows, over_t);
  for (const ex::Claim& c : no_rows.claims) BOOST_TEST(c.cross_check.empty(), c.cross_check);
  // At T = 32 the full results agree with the quick ones, and T = 16 is not there: nothing said.
  std::erase_if(over_t.claims, [](const ex::Claim& c) { return c.group.ends_with("T = 16"); });
  for (ex::Claim& c : quick.claims) c.cross_check.clear();
  ex::cross_check(quick, over_t);
  for (const ex::Claim& c : quick.claims) BOOST_TEST(c.cross_check.empty(), c.cross_check);

  // The other profile inconclusive while runs of that claim are still to come: nothing said (its
  // inconclusive may be only their lack); with all its runs in, it is said.
  std::vector<ex::RunRecord> flat = measure(s, [](const ex::RunConfig&) { return 1e-3; });
  BOOST_TEST_REQUIRE(flat.back().labels.at("D") == "3");
  flat.pop_back();
  ex::ExperimentResult incomplete = ex::verify(s, "quick", flat, engine);
  incomplete.profile = "full";
  for (ex::Claim& c : quick.claims) c.cross_check.clear();
  ex::cross_check(quick, incomplete);
  BOOST_TEST(quick.claims[0].cross_check.find("the full profile's results say: inconclusive") ==
                 0u,
             quick.claims[0].cross_check);  // D = 2: all its runs in
  BOOST_TEST(quick.claims[1].cross_check.empty(), quick.claims[1].cross_check);  // D = 3

  // A profile at another fixed T (the paper's T = 64 against the full profile's T = 16) has the
  // same group labels ("D = 2") but not the same configurations: nothing said.
  std::string longer = kPhase;
  longer.replace(longer.find("T = 16"), 6, "T = 64");
  const ex::ExperimentSpec l = spec("longer", longer);
  ex::ExperimentResult at_64 = ex::verify(
      l, "quick", measure(l, [&](const ex::RunConfig& r) { return efficient(r) ? 1e-5 : 1e-2; }),
      engine);
  BOOST_TEST_REQUIRE(at_64.claims.size() == 2u);
  BOOST_TEST(at_64.claims[0].group == full.claims[0].group);
  ex::cross_check(at_64, full);
  for (const ex::Claim& c : at_64.claims) BOOST_TEST(c.cross_check.empty(), c.cross_check);
}

BOOST_AUTO_TEST_CASE(every_other_profile_with_shipped_results_is_cross_checked) {
  th::Engine engine(catalogue);
  // Three profiles at T = 16; "full" and the paper-like "long" have results shipped beside the
  // spec: full's agree with the prediction, long's disagree.
  std::string text = kPhase;
  const std::string quick = text.substr(text.find("[profile.quick]"));
  for (const char* other : {"full", "long"}) {
    std::string p = quick;
    p.replace(0, std::string("[profile.quick]").size(), std::string("[profile.") + other + "]");
    text += p;
  }
  const ex::ExperimentSpec s = spec("phase", text);
  auto efficient = [](const ex::RunConfig& r) { return r.model.heads[0] == r.task.comparisons; };
  for (const char* other : {"full", "long"}) {
    const bool agree = std::string(other) == "full";
    const ex::ResultStore shipped(ex::shipped_results(s, other));
    BOOST_TEST(shipped.file() == dir / "results" / other / "phase.jsonl");
    fs::create_directories(shipped.file().parent_path());
    for (const ex::RunConfig& r : s.runs(other)) {
      nm::TrainResult t;
      t.status = nm::RunStatus::kConverged;
      t.best_validation_nmse = t.final_validation_nmse = efficient(r) == agree ? 1e-5 : 1e-2;
      t.curve = {{100, 3e-3, 1.0, 1.0}, {200, 3e-3, t.best_validation_nmse, t.best_validation_nmse}};
      shipped.append(r, t);
    }
  }
  // Quick results that agree: only long's differ.
  const std::vector<ex::RunRecord> mine =
      measure(s, [&](const ex::RunConfig& r) { return efficient(r) ? 1e-5 : 1e-2; });
  const ex::ExperimentResult r =
      ex::verify_in_context(s, "quick", mine, dir / "elsewhere.jsonl", engine);
  BOOST_TEST_REQUIRE(r.claims.size() == 2u);
  for (const ex::Claim& c : r.claims) {
    BOOST_TEST(ex::to_text(c.verdict) == "agrees");
    BOOST_TEST(c.cross_check.find("the long profile's results say: disagrees") == 0u, c.cross_check);
    BOOST_TEST(c.cross_check.find("full") == std::string::npos, c.cross_check);
  }
  // Verifying long's shipped file itself: full speaks, long is not checked against itself.
  const ex::ExperimentResult own = ex::verify_in_context(
      s, "long", ex::ResultStore(ex::shipped_results(s, "long")).read(),
      ex::shipped_results(s, "long"), engine);
  for (const ex::Claim& c : own.claims) {
    BOOST_TEST(ex::to_text(c.verdict) == "disagrees");
    BOOST_TEST(c.cross_check.find("the full profile's results say: agrees") == 0u, c.cross_check);
    BOOST_TEST(c.cross_check.find("long profile") == std::string::npos, c.cross_check);
  }
}

BOOST_AUTO_TEST_CASE(growth_in_T_claims_and_the_saturation_rule) {
  th::Engine engine(catalogue);
  const ex::ExperimentSpec s = spec("growth", kGrowth);
  // One layer grows like T^1.5, two layers stay flat: both agree, and two layers win at T = 32.
  const ex::ExperimentResult r =
      ex::verify(s, "quick",
                 measure(s,
                         [](const ex::RunConfig& c) {
                           return c.model.heads.size() == 1
                                      ? 1e-4 * std::pow(static_cast<double>(c.task.tokens), 1.5)
                                      : 1e-3;
                         }),
                 engine);
  BOOST_TEST_REQUIRE(r.claims.size() == 3u);
  for (const ex::Claim& c : r.claims)
    BOOST_TEST(ex::to_text(c.verdict) == "agrees", c.group << ": " << c.why);
  BOOST_TEST(r.claims[2].group == "at T = 32");
  // Agreement is consistency with a bound, never its confirmation.
  BOOST_TEST(r.claims[0].why == "the NMSE grows in T: consistent with the lower bound");
  BOOST_TEST(r.claims[1].why == "the NMSE does not grow in T: consistent with the upper bound");
  BOOST_TEST(r.claims[2].why.find("consistent with the bounds") != std::string::npos);
  // One layer saturated near 1 at every T: flat, but that measures nothing.
  const ex::ExperimentResult sat = ex::verify(
      s, "quick",
      measure(s, [](const ex::RunConfig& c) { return c.model.heads.size() == 1 ? 0.9 : 1e-3; }),
      engine);
  BOOST_TEST(ex::to_text(sat.claims[0].verdict) == "inconclusive");
  BOOST_TEST_MESSAGE(sat.claims[0].why);
  BOOST_TEST(sat.claims[0].why.find("saturated") == 0u);
  BOOST_TEST(ex::to_text(sat.claims[0].need) == "a wider network");
  // The same on a profile of 3 values of T: no width gives it the 6 points a slope needs.
  std::string three = kGrowth;
  three.replace(three.find("[4, 6, 8, 12, 16, 24, 32]"), 25, "[4, 8, 16]");
  const ex::ExperimentSpec s3 = spec("growth", three);
  const ex::ExperimentResult sat3 = ex::verify(
      s3, "quick",
      measure(s3, [](const ex::RunConfig& c) { return c.model.heads.size() == 1 ? 0.9 : 1e-3; }),
      engine);
  BOOST_TEST(ex::to_text(sat3.claims[0].need) == "nothing");
  BOOST_TEST(sat3.claims[0].why.find("; the profile measures 3 values of T, fewer than a slope "
                                     "needs") != std::string::npos,
             sat3.claims[0].why);
  // Nor do longer runs: the unsaturated line, not converged, asks for nothing either.
  const ex::ExperimentResult short3 = ex::verify(
      s3, "quick",
      measure(s3, [](const ex::RunConfig&) { return 1e-3; },
              [](const ex::RunConfig&) { return false; }),
      engine);
  BOOST_TEST_REQUIRE(short3.claims.size() >= 2u);
  BOOST_TEST(ex::to_text(short3.claims[1].verdict) == "inconclusive");
  BOOST_TEST(ex::to_text(short3.claims[1].need) == "nothing", short3.claims[1].why);
  // Two layers growing while predicted efficient, past the accuracy 0.1 (0.2 at T = 32): a
  // disagreement, said as such.
  const ex::ExperimentResult worse =
      ex::verify(s, "quick",
                 measure(s,
                         [](const ex::RunConfig& c) {
                           return 2e-4 * static_cast<double>(c.task.tokens * c.task.tokens);
                         }),
                 engine);
  BOOST_TEST(ex::to_text(worse.claims[1].verdict) == "disagrees");
  BOOST_TEST(worse.claims[1].why ==
             "the NMSE grows in T: the upper bound is not reached by training with this recipe");
  // A growth below the accuracy at every T (depth_separation's two layers under numeric-4,
  // between 2.2e-3 and 9.7e-3): a mean error growing under a sup-norm bound, undecided.
  const auto mild_growth = [](const ex::RunConfig& c) {
    return 1e-3 * std::pow(static_cast<double>(c.task.tokens), 0.7);
  };
  const ex::ExperimentResult mild = ex::verify(s, "quick", measure(s, mild_growth), engine);
  BOOST_TEST(ex::to_text(mild.claims[1].verdict) == "inconclusive");
  BOOST_TEST(mild.claims[1].measured.find("growing") == 0u, mild.claims[1].measured);
  BOOST_TEST(mild.claims[1].why.find("the median NMSE grows, between ") == 0u,
             mild.claims[1].why);
  BOOST_TEST(mild.claims[1].why.find(" but stays below the accuracy 0.1 at every T") !=
                 std::string::npos,
             mild.claims[1].why);
  BOOST_TEST(ex::to_text(mild.claims[1].need) == "a wider network");
  // A growth above the accuracy at every T (0.15 at T = 4 to 0.45 at T = 32): the parameters
  // the accuracy needs exceed this size at every T, which shows no growth of them.
  const ex::ExperimentResult above = ex::verify(
      s, "quick",
      measure(s,
              [](const ex::RunConfig& c) {
                return 0.15 * std::pow(static_cast<double>(c.task.tokens) / 4, 0.53);
              }),
      engine);
  BOOST_TEST(ex::to_text(above.claims[1].verdict) == "inconclusive");
  BOOST_TEST(above.claims[1].why.find("but never from below the accuracy 0.1 to above it") !=
                 std::string::npos,
             above.claims[1].why);
  // The mild growth with runs not converged at T = 32: longer training decides, and the claim
  // says so (the accuracy rereads only a disagreement that would otherwise stand).
  const ex::ExperimentResult unsettled = ex::verify(
      s, "quick",
      measure(s, mild_growth, [](const ex::RunConfig& c) { return c.task.tokens != 32; }),
      engine);
  BOOST_TEST(ex::to_text(unsettled.claims[1].verdict) == "inconclusive");
  BOOST_TEST(unsettled.claims[1].why.find("not converged at this budget") == 0u,
             unsettled.claims[1].why);
  BOOST_TEST(ex::to_text(unsettled.claims[1].need) == "steps");
  // The mild growth with no run at T = 32: a missing T cannot turn it into a disagreement.
  std::vector<ex::RunRecord> without = measure(s, mild_growth);
  without.erase(std::remove_if(without.begin(), without.end(),
                               [](const ex::RunRecord& r) { return r.labels.at("T") == "32"; }),
                without.end());
  const ex::ExperimentResult gap = ex::verify(s, "quick", without, engine);
  BOOST_TEST(ex::to_text(gap.claims[1].verdict) == "inconclusive");
  BOOST_TEST(gap.claims[1].why.find(" but stays below the accuracy 0.1 at every T") !=
                 std::string::npos,
             gap.claims[1].why);
  // One layer flat while predicted not efficient: its lower bound is contradicted.
  const ex::ExperimentResult flat = ex::verify(
      s, "quick", measure(s, [](const ex::RunConfig&) { return 1e-3; }), engine);
  BOOST_TEST(ex::to_text(flat.claims[0].verdict) == "disagrees");
  BOOST_TEST(flat.claims[0].why == "the NMSE does not grow in T: contradicts the lower bound");
  // Flat at 0.3 to 0.4, never below the accuracy 0.1 (depth_separation's one layer under
  // numeric-4): errors the lower bound allows, so no contradiction; M* is what measures it.
  const ex::ExperimentResult high = ex::verify(
      s, "quick",
      measure(s,
              [](const ex::RunConfig& c) {
                return c.model.heads.size() == 1
                           ? 0.3 + 0.1 * std::log2(static_cast<double>(c.task.tokens)) / 5
                           : 1e-3;
              }),
      engine);
  BOOST_TEST(ex::to_text(high.claims[0].verdict) == "inconclusive");
  BOOST_TEST(high.claims[0].why.find("the median NMSE stays between 0.3") == 0u, high.claims[0].why);
  BOOST_TEST(high.claims[0].why.find(", above the accuracy 0.1 at every T: the network does not "
                                     "learn the target at this size") != std::string::npos,
             high.claims[0].why);
  BOOST_TEST(ex::to_text(high.claims[0].need) == "a wider network");
  // Saturated points are shown, not fitted: one layer at 0.9 from T = 24 on leaves 5 points.
  const ex::ExperimentResult capped = ex::verify(
      s, "quick",
      measure(s,
              [](const ex::RunConfig& c) {
                return c.model.heads.size() == 1 && c.task.tokens >= 24
                           ? 0.9
                           : 1e-4 * std::pow(static_cast<double>(c.task.tokens), 1.5);
              }),
      engine);
  BOOST_TEST(ex::to_text(capped.claims[0].verdict) == "inconclusive");
  BOOST_TEST(capped.claims[0].why.find("only 5 points outside saturation") == 0u,
             capped.claims[0].why);
  BOOST_TEST(capped.series[0].x.size() == 7u);
  // Growth in T from runs that had not converged at some T: no verdict.
  const ex::ExperimentResult budget = ex::verify(
      s, "quick",
      measure(
          s, [](const ex::RunConfig&) { return 1e-3; },
          [](const ex::RunConfig& c) { return c.task.tokens != 32; }),
      engine);
  BOOST_TEST(ex::to_text(budget.claims[1].verdict) == "inconclusive");
  BOOST_TEST(budget.claims[1].why.find("not converged at this budget") == 0u);
}

BOOST_AUTO_TEST_CASE(a_slope_whose_interval_crosses_only_the_falling_boundary_is_decided) {
  th::Engine engine(catalogue);
  const ex::ExperimentSpec s = spec("growth", kGrowth);
  // Both lines fall like T^-0.25: their intervals straddle -0.25, the boundary between flat and
  // falling, and lie below +0.25. Both predictions are about growth, and the answer is "no":
  // kth_max's k = 1 under numeric-4 measured -0.04 [-0.30, 0.16] and was left undecided.
  const ex::ExperimentResult r = ex::verify(
      s, "quick",
      measure(s,
              [](const ex::RunConfig& c) {
                return 1e-3 * std::pow(static_cast<double>(c.task.tokens), -0.25);
              }),
      engine);
  BOOST_TEST_REQUIRE(r.claims.size() >= 2u);
  for (const ex::Claim& c : {r.claims[0], r.claims[1]}) {
    BOOST_TEST(c.measured.find("not growing (flat or falling): slope") == 0u, c.measured);
  }
  BOOST_TEST(ex::to_text(r.claims[1].verdict) == "agrees", r.claims[1].why);
  BOOST_TEST(r.claims[1].why == "the NMSE does not grow in T: consistent with the upper bound");
  // One layer, predicted to grow, below the accuracy 0.1: its lower bound is contradicted.
  BOOST_TEST(ex::to_text(r.claims[0].verdict) == "disagrees", r.claims[0].why);
  BOOST_TEST(r.claims[0].why == "the NMSE does not grow in T: contradicts the lower bound");
}

BOOST_AUTO_TEST_CASE(an_upper_bound_exponent_allows_steeper_not_shallower) {
  th::Engine engine(catalogue);
  const ex::ExperimentSpec s = spec("exponent", kExponent);
  // T0 d / E - 1 = 3: the bound says NMSE falls at least like M^(-2/3).
  auto with_slope = [&](double slope) {
    return ex::verify(s, "quick",
                      measure(s,
                              [&](const ex::RunConfig& c) {
                                return std::pow(1000.0 * static_cast<double>(c.model.ffn_width),
                                                slope);
                              }),
                      engine);
  };
  const ex::ExperimentResult steep = with_slope(-2.0);
  BOOST_TEST(ex::to_text(steep.claims[0].verdict) == "agrees");
  // Training never shows an upper bound tight nor wrong: it is consistent, or not reached.
  BOOST_TEST(steep.claims[0].why.find("consistent with the upper bound") != std::string::npos);
  BOOST_TEST(steep.claims[0].why.find("tight") == std::string::npos);
  BOOST_TEST(with_slope(-2.0 / 3.0).claims[0].why.find("tight") == std::string::npos);
  BOOST_TEST(with_slope(-0.1).claims[0].why.find("not reached by training") != std::string::npos);
  BOOST_TEST(*steep.series[0].predicted_slope == -2.0 / 3.0, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(ex::to_text(with_slope(-2.0 / 3.0).claims[0].verdict) == "agrees");
  BOOST_TEST(ex::to_text(with_slope(-0.1).claims[0].verdict) == "disagrees");
  const ex::ExperimentResult shallow_budget = ex::verify(
      s, "quick",
      measure(
          s,
          [&](const ex::RunConfig& c) {
            return std::pow(1000.0 * static_cast<double>(c.model.ffn_width), -0.1);
          },
          [](const ex::RunConfig& c) { return c.model.ffn_width < 256; }),
      engine);
  BOOST_TEST(ex::to_text(shallow_budget.claims[0].verdict) == "inconclusive");
}

const char* kConfront = R"toml([experiment]
name = "confront"
claim = "heads_phase"
formula = "sum(i = 1..D) max(t) dot(a[i], x[t])"
group = "D"
confront = "head_count.depth_conjecture"
[profile.quick]
D = 3
T = 8
heads = ["D-1", "D", "1,1", "1,2"]
pe = "none"
E = 16
head_dim = 4
seeds = [1, 2, 3]
)toml";

BOOST_AUTO_TEST_CASE(a_confronted_conjecture_is_judged_architecture_by_architecture) {
  th::Engine engine(catalogue);
  const ex::ExperimentSpec s = spec("confront", kConfront);
  // Measured as the rules predict: (2) high, the others three decades lower; (1,2) unconverged.
  const auto records = measure(
      s, [](const ex::RunConfig& r) { return r.model.heads == std::vector<long>{2} ? 0.2 : 2e-4; },
      [](const ex::RunConfig& r) { return r.model.heads != std::vector<long>{1, 2}; });
  const ex::ExperimentResult r = ex::verify(s, "quick", records, engine);
  BOOST_TEST(
      rp::entry_statement_text(*r.confronted).find("head_count.depth_conjecture (conjecture") ==
      0u);
  BOOST_TEST_REQUIRE(r.confrontations.size() == 4u);
  std::map<std::string, ex::Confrontation> by;
  for (const ex::Confrontation& c : r.confrontations) by[c.architecture] = c;
  // (2): both predictions say not efficient; it is the reference, and converged.
  BOOST_TEST(by["(2)"].engine == "exponential in T");
  BOOST_TEST(ex::entry_claim_text(by["(2)"]) == "not efficient");
  BOOST_TEST(ex::measured_text(by["(2)"]) == "not efficient");
  // (1,1): L*h = 2 < 3, the conjecture says not efficient; the engine and the runs disagree.
  BOOST_TEST(by["(1,1)"].engine == "efficient");
  BOOST_TEST(ex::entry_claim_text(by["(1,1)"]) == "not efficient");
  BOOST_TEST(ex::measured_text(by["(1,1)"]) == "efficient");
  BOOST_TEST(by["(1,1)"].entry_contradicted);
  BOOST_TEST(!by["(1,1)"].engine_contradicted);
  // (3): L*h = 3, the hypothesis fails and the conjecture says nothing.
  BOOST_TEST(ex::entry_claim_text(by["(3)"]).find(
                 "no claim (hypotheses L*h < D of head_count.depth_conjecture fails)") == 0u);
  BOOST_TEST(!by["(3)"].entry_contradicted);
  // A low NMSE counts from unconverged runs too.
  BOOST_TEST(ex::measured_text(by["(1,2)"]) == "efficient");

  // Built beside: (1,1), which the conjecture calls not efficient, is constructed decades below
  // the reference (2)'s 0.2, so a construction contradicts the conjecture there; (2) has no
  // plan to build.
  ex::ExperimentResult built = r;
  ex::add_constructions(built, engine);
  std::map<std::string, ex::Confrontation> with;
  for (const ex::Confrontation& c : built.confrontations) with[c.architecture] = c;
  BOOST_TEST(with["(1,1)"].constructed < 1e-6);
  BOOST_TEST(with["(1,1)"].entry_contradicted_by_construction);
  BOOST_TEST(!std::isfinite(with["(2)"].constructed));
  BOOST_TEST(!with["(3)"].entry_contradicted_by_construction);  // no claim to contradict

  // Everything at one level: nothing is efficient, (1,1) is "not efficient" and the engine is
  // the one contradicted, said so.
  const auto flat = measure(s, [](const ex::RunConfig&) { return 0.2; });
  for (const ex::Confrontation& c : ex::verify(s, "quick", flat, engine).confrontations) {
    BOOST_TEST(ex::measured_text(c) == "not efficient");
    BOOST_TEST(c.engine_contradicted == (c.engine == "efficient"));
    BOOST_TEST(!c.entry_contradicted);
  }
  // The reference not converged: no verdict but "inconclusive", with the reason.
  const auto unconverged = measure(
      s, [](const ex::RunConfig& c) { return c.model.heads == std::vector<long>{2} ? 0.2 : 2e-4; },
      [](const ex::RunConfig&) { return false; });
  for (const ex::Confrontation& c : ex::verify(s, "quick", unconverged, engine).confrontations)
    BOOST_TEST(ex::measured_text(c).find("inconclusive: the reference (2)") == 0u);
  // Two seeds: too few.
  auto two = records;
  two.erase(std::remove_if(two.begin(), two.end(),
                           [](const ex::RunRecord& x) { return x.labels.at("seed") == "3"; }),
            two.end());
  for (const ex::Confrontation& c : ex::verify(s, "quick", two, engine).confrontations)
    BOOST_TEST(ex::measured_text(c).find("inconclusive: 2 finished seeds") == 0u);
  // An unknown entry is an error at the spec's line.
  std::string text = kConfront;
  text.replace(text.find("head_count.depth_conjecture"), 27, "head_count.nope");
  const ex::ExperimentSpec bad = spec("bad", text);
  try {
    (void)ex::verify(bad, "quick", {}, engine);
    BOOST_FAIL("an unknown entry must be refused");
  } catch (const infoflow::InputError& e) {
    BOOST_TEST(std::string(e.what()).find("bad.toml:6:12") != std::string::npos, e.what());
  }
  const rp::ReportFiles files = rp::write_report(dir / "out", {r}, false);
  BOOST_TEST(fs::exists(dir / "out" / "confront.csv"));
  // The figure is the confrontation: one panel, one line for T = 8, (1,1) circled.
  const std::string figure = read_text(dir / "out" / "fig_confront.tex");
  BOOST_TEST(figure.find("\\nextgroupplot[xtick={0,1,2,3}") != std::string::npos, figure);
  BOOST_TEST(figure.find("\\addlegendentry{$T = 8$}") != std::string::npos);
  BOOST_TEST(figure.find("mark=o, mark size=4.5pt, thick, black, forget plot] coordinates { (2,") !=
             std::string::npos);
  // The table: one row per architecture, a column per T, (1,1) marked as contradicting the entry.
  const std::string tex = read_text(dir / "out" / "report.tex");
  const std::size_t row = tex.find("\n(1,1) & efficient & not efficient & ");
  BOOST_TEST_REQUIRE(row != std::string::npos);
  const std::string line = tex.substr(row + 1, tex.find('\n', row + 1) - row - 1);
  BOOST_TEST(line.find("e-04 (3/3) \\textbf{E}$^{*}$ \\\\") != std::string::npos, line);
}

BOOST_AUTO_TEST_CASE(a_confrontation_is_drawn_per_group_with_a_line_per_T) {
  th::Engine engine(catalogue);
  std::string text = kConfront;
  const std::string single = "D = 3\nT = 8";
  text.replace(text.find(single), single.size(), "D = [3, 4]\nT = [8, 16]");
  const ex::ExperimentSpec s = spec("panels", text);
  // At D = 4, (3) and (1,1) are the reference (both call them not efficient) and (1,2), which
  // the engine calls efficient, measures as high: the engine is contradicted there. T = 16 has
  // no run of D = 4.
  auto records = measure(s, [](const ex::RunConfig& r) {
    const bool four = r.task.comparisons == 4;
    const std::vector<long>& h = r.model.heads;
    const bool high = h == std::vector<long>{r.task.comparisons - 1} ||
                      (four && (h == std::vector<long>{1, 1} || h == std::vector<long>{1, 2}));
    return high ? 0.2 : 2e-4;
  });
  std::erase_if(records, [](const ex::RunRecord& x) {
    return x.labels.at("D") == "4" && x.labels.at("T") == "16";
  });
  const ex::ExperimentResult r = ex::verify(s, "quick", records, engine);
  (void)rp::write_report(dir / "panels", {r}, false);
  const std::string figure = read_text(dir / "panels" / "fig_confront.tex");
  BOOST_TEST(figure.find("\\begin{groupplot}[group style={group size=1 by 2,") !=
             std::string::npos, figure);
  BOOST_TEST(figure.find("\\nextgroupplot[title={D = 3}, ") != std::string::npos);
  BOOST_TEST(figure.find("\\nextgroupplot[title={D = 4}, ") != std::string::npos);
  BOOST_TEST(figure.find("\\addlegendentry{$T = 16$}") != std::string::npos);
  // D = 4 at T = 16: a gap in the line, not a point.
  BOOST_TEST(figure.find("(0,nan) (1,nan) (2,nan) (3,nan)") != std::string::npos);
  BOOST_TEST(figure.find("mark=x, mark size=5pt, thick, red, forget plot] coordinates { (3,") !=
             std::string::npos);
  const std::string tex = read_text(dir / "panels" / "report.tex");
  BOOST_TEST(tex.find("Heads & Engine & Entry & $T = 8$ & $T = 16$ \\\\") != std::string::npos);
  BOOST_TEST(tex.find("\\multicolumn{5}{l}{\\textit{D = 4}}") != std::string::npos);
  const std::size_t d4 = tex.find("\\textit{D = 4}");
  const std::size_t row = tex.find("\n(1,2) & efficient & not efficient & ", d4);
  BOOST_TEST_REQUIRE(row != std::string::npos);
  const std::string line = tex.substr(row + 1, tex.find('\n', row + 1) - row - 1);
  BOOST_TEST(line.find("(3/3) N$^{\\dagger}$ & -- \\\\") != std::string::npos, line);
}

BOOST_AUTO_TEST_CASE(a_fit_is_drawn_over_the_points_it_fitted_not_the_saturated_ones) {
  th::Engine engine(catalogue);
  const ex::ExperimentSpec s = spec("growth", kGrowth);
  // One layer grows like T^2 and saturates (NMSE 0.9, not fitted) from T = 24 on.
  const ex::ExperimentResult r = ex::verify(
      s, "quick",
      measure(s,
              [](const ex::RunConfig& c) {
                const double t = static_cast<double>(c.task.tokens);
                return c.model.heads.size() == 1 ? (t >= 24 ? 0.9 : 1e-5 * t * t) : 1e-3;
              }),
      engine);
  (void)rp::write_report(dir / "sat", {r}, false);
  const std::string figure = read_text(dir / "sat" / "fig_growth.tex");
  // Each series's band (two bounding lines) and fit: over T = 4..16 for the saturating one,
  // 4..32 for the other.
  BOOST_TEST(occurrences(figure, "domain=4:16, samples=2") == 3u, figure);
  BOOST_TEST(occurrences(figure, "domain=4:32, samples=2") == 3u, figure);
}

BOOST_AUTO_TEST_CASE(the_report_folder_holds_tables_figures_and_csv) {
  th::Engine engine(catalogue);
  const ex::ExperimentSpec s = spec("growth", kGrowth);
  const ex::ExperimentResult r = ex::verify(
      s, "quick",
      measure(s,
              [](const ex::RunConfig& c) {
                return c.model.heads.size() == 1 ? 1e-4 * static_cast<double>(c.task.tokens) : 1e-3;
              }),
      engine);
  const bool need_pdf = std::getenv("INFOFLOW_REQUIRE_PDFLATEX") != nullptr;
  const rp::ReportFiles files = rp::write_report(dir / "out", {r}, true);
  for (const char* f : {"report.tex", "claims.csv", "results.csv", "fig_growth.tex"})
    BOOST_TEST(fs::exists(dir / "out" / f), f);
  std::ifstream csv(dir / "out" / "results.csv");
  std::string header;
  std::getline(csv, header);
  BOOST_TEST(header.find("experiment,profile,labels,status,best_validation_nmse") == 0u);
  if (need_pdf || files.pdf) {
    BOOST_TEST(files.pdf, files.note);
    BOOST_TEST(fs::file_size(dir / "out" / "report.pdf") > 1000u);
    BOOST_TEST(fs::exists(dir / "out" / "fig_growth.png"));
  }
  BOOST_TEST(
      !fs::exists(dir / "out" / (".build-" + std::to_string(::getpid()))));  // scratch removed
}

BOOST_AUTO_TEST_CASE(efficient_configurations_are_built_beside_training_and_lower_bounds_are_not) {
  th::Engine engine(catalogue);
  const ex::ExperimentSpec s = spec("built", R"([experiment]
name = "built"
claim = "growth_in_T"
task = "kth_max"
[profile.quick]
k = [1, 2]
T = [4, 8, 16]
heads = "1"
E = 16
ffn_width = 64
seeds = [1, 2, 3]
)");
  ex::ExperimentResult r = ex::verify(
      s, "quick", measure(s, [](const ex::RunConfig& c) { return c.task.rank == 1 ? 0.1 : 0.7; }),
      engine);
  ex::add_constructions(r, engine);
  // k = 1 (the maximum) is efficient: one construction per T, each far below training's 0.1.
  BOOST_TEST_REQUIRE(r.constructed.size() == 3u);
  for (const ex::ConstructedCell& c : r.constructed) {
    BOOST_TEST(c.labels.at("k") == "1");
    BOOST_TEST_REQUIRE(c.built, c.failure);
    BOOST_TEST(c.nmse < 1e-2);
    BOOST_TEST(c.seeds == 3);
    BOOST_TEST(c.trained_median == 0.1, boost::test_tools::tolerance(0.2));
  }
  for (const ex::Claim& c : r.claims) {
    BOOST_TEST_CONTEXT(c.group) {
      if (c.group_labels.count("k") == 0) continue;
      if (c.group_labels.at("k") == "1") {
        BOOST_TEST_REQUIRE(c.constructed.size() == 4u);  // three T and the slope against T
        BOOST_TEST(c.constructed[0].find("T = 4: ") == 0u);
        BOOST_TEST(c.constructed[0].find("optimisation gap") != std::string::npos);
        BOOST_TEST(c.constructed[3].find("constructed slope of log NMSE against log T") == 0u);
        BOOST_TEST(c.evidence.find("constructions show") != std::string::npos);
      } else {
        BOOST_TEST(c.constructed.empty());
        BOOST_TEST(c.evidence.find("training alone") == 0u);
      }
    }
  }
  // Two layers on min(s != t) are efficient, and without positions the mask is made by content,
  // whose 64 features the runs' E = 16 has no room for: one line names every T and the
  // shortfall, and the verdict rests on training alone.
  const ex::ExperimentSpec g = spec("growth", kGrowth);
  ex::ExperimentResult refused =
      ex::verify(g, "quick", measure(g, [](const ex::RunConfig&) { return 1e-3; }), engine);
  ex::add_constructions(refused, engine);
  BOOST_TEST(!refused.constructed.empty());
  long lines = 0;
  for (const ex::Claim& c : refused.claims) {
    if (c.constructed.empty()) continue;
    ++lines;
    BOOST_TEST(c.constructed.size() == 1u);
    BOOST_TEST(c.constructed[0].find("not built (embedding:") != std::string::npos,
               c.constructed[0]);
    BOOST_TEST(c.evidence.find("training alone: no construction") == 0u);
  }
  BOOST_TEST(lines >= 1);
}

BOOST_AUTO_TEST_SUITE_END()
