// What a new user reads: the findings, derivations and plans as text, the report's figures and
// tables; each case one thing issue 29 found hard to read.
#include <boost/test/unit_test.hpp>

#include "infoflow/report/catalogue_report.hpp"
#include "infoflow/report/derivation_report.hpp"
#include "infoflow/report/experiment_report.hpp"

#include "common/temp_catalogue.hpp"

namespace rp = infoflow::report;
namespace th = infoflow::theorems;
namespace ex = infoflow::experiments;
using infoflow::testing::TempCatalogue;

namespace {

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

/// A lower and an upper bound of the same exponent of 1/eps, the lower one with a power of
/// log(1/eps) more: they contradict each other on all of L = 2, a setting with no free symbol.
const char* kLogApart =
    "[paper]\nid = \"mine\"\ntitle = \"Notes\"\n\n"
    "[[entry]]\nid = \"mine.upper\"\nsource = \"Prop. 3\"\nprovenance = \"ours\"\nkind = \"upper\"\n"
    "quantity = \"M\"\ntask = \"d_retrieval\"\ndepth = \"L == 2\"\nrate = \"eps^(-1)\"\n\n"
    "[[entry]]\nid = \"mine.lower\"\nsource = \"Prop. 4\"\nprovenance = \"ours\"\nkind = \"lower\"\n"
    "quantity = \"M\"\ntask = \"d_retrieval\"\ndepth = \"L == 2\"\nrate = \"eps^(-1)*log(1/eps)\"\n";

rp::Derivation derive(th::Engine& engine, const th::Target& target, const infoflow::targets::TargetSpec& spec,
                      std::vector<long> heads) {
  rp::Derivation d;
  d.target = &target;
  const th::Architecture a = th::architecture_for(spec, 16, 0, std::move(heads));
  d.plan = engine.plan(target, a);
  d.search = engine.search(target, a);
  return d;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(paper_outputs)

BOOST_AUTO_TEST_CASE(findings_name_each_thing_once_and_say_everywhere) {
  TempCatalogue c;
  c.write("mine.toml", kLogApart);
  const th::Catalogue catalogue = th::Catalogue::load_directory(c.dir());
  const std::string text = rp::findings_text(th::check(catalogue), catalogue);
  // The kind is printed once, before the summary.
  BOOST_TEST(!contains(text, "separation: separation:"));
  BOOST_TEST(!contains(text, "implication: implication"));
  BOOST_TEST(contains(text, "note: separation: head_count.too_few_heads (L == 1"));
  // Where the contradiction holds on the whole overlap: "everywhere" and why, and a witness
  // that is any point of a setting that fixes every symbol.
  BOOST_TEST(contains(text, "overlap (L = 2), everywhere (the same exponent of 1/eps, and a power "
                            "of log(1/eps) higher by 1)"));
  BOOST_TEST(!contains(text, "1 > 0"));
  BOOST_TEST(contains(text, "lower exceeds upper: any point (the setting fixes every symbol)"));
  // Constants renamed apart are short, with their legend; 4 and 5 are the entries' places in
  // the catalogue (head_count.toml: enough_heads, too_few_heads, memorisation, depth_conjecture;
  // infoflow.toml: thm1.one_layer first).
  BOOST_TEST(!contains(text, "@"));
  BOOST_TEST(contains(text, "T > (gamma + c0_4 + 1)/c_4"));
  BOOST_TEST(contains(text, "symbols renamed apart: X_N is entry N's own X (4: "
                            "head_count.depth_conjecture; 5: infoflow.thm1.one_layer)"));
}

BOOST_AUTO_TEST_CASE(a_rate_at_a_set_T_is_printed_at_that_T) {
  const th::Catalogue catalogue = th::Catalogue::load_directory(INFOFLOW_CATALOGUE_DIR);
  th::Engine engine(catalogue);
  infoflow::targets::TargetSpec spec;
  spec.name = "pairs";
  spec.formula = infoflow::targets::Formula::parse("max(s != t) dot(x[s], x[t])",
                                                   infoflow::SourceLocation{"formula", 1, 1});
  // On one head the rate is eps^(1 - T/4) (global aggregation, d = 4, E = 16). At T = 12 that
  // is eps^-2; at T = 6 Theorem 3's exponent, eps^(-1/2), is below the decoding floor, so the
  // rate there is the floor's eps^-1. T^2 compared pairs: 144 and 36. The form in T stays
  // beside it: the verdict is about growth in T.
  spec.set["T"] = 12;
  const th::Target at_12 = th::to_target(spec);  // a derivation points at its target
  const rp::Derivation above = derive(engine, at_12, spec, {1});
  const std::string above_text = rp::derivation_text(above);
  BOOST_TEST(contains(above_text, "M = O(eps^(-2)) at T = 12 (in T: O(eps^(1 - T/4)); in d, E, "
                                  "n: O(eps^(1 - T*d/E))): exponential in T"),
             above_text);
  BOOST_TEST(contains(above_text, "comparison number = 144"));

  spec.set["T"] = 6;
  const th::Target at_6 = th::to_target(spec);
  const rp::Derivation d = derive(engine, at_6, spec, {1});
  const std::string text = rp::derivation_text(d);
  BOOST_TEST(contains(text, "M = O(eps^(-1)) at T = 6 (in T: O(eps^(1 - T/4)); in d, E, n: "
                            "O(eps^(1 - T*d/E))): exponential in T"), text);
  BOOST_TEST(contains(text, "comparison number = 36"));
  const std::string latex = rp::derivations_latex({d}, catalogue);
  BOOST_TEST(contains(latex, "($T = 6$) & $2$ & $1$ & $36$ &"), latex);
  BOOST_TEST(contains(latex, "$M = O\\left(\\varepsilon^{-1}\\right)$ at $T = 6$,"
                             "\\newline in $T$: $O\\left(\\varepsilon^{1 - \\frac{T}{4}}\\right)$"),
             latex);
}

BOOST_AUTO_TEST_CASE(a_plan_heads_each_layer_above_its_actions) {
  const th::Catalogue catalogue = th::Catalogue::load_directory(INFOFLOW_CATALOGUE_DIR);
  th::Engine engine(catalogue);
  infoflow::targets::TargetSpec spec;
  spec.name = "pairs";
  spec.formula = infoflow::targets::Formula::parse("max(s != t) dot(x[s], x[t])",
                                                   infoflow::SourceLocation{"formula", 1, 1});
  const th::Target target = th::to_target(spec);
  const th::Plan plan = engine.plan(target, th::architecture_for(spec, 16, 0, {1, 1}));
  const std::string text = rp::plan_text(target, plan);
  BOOST_TEST(!contains(text, "layer 0"));
  BOOST_TEST(contains(text, "  before layer 1: I(t) = {t}  I(T+1) = {}\n  layer 1:\n    head 1 "), text);
  BOOST_TEST(contains(text, "\n  layer 2:\n    head 1 at the readout"), text);
  BOOST_TEST(contains(text, "    after layer 2: I(t) = "));
}

BOOST_AUTO_TEST_CASE(a_cross_check_follows_a_full_stop) {
  ex::ExperimentResult r;
  ex::Claim claim;
  claim.group = "all runs";
  claim.why = "the efficient ones reach a lower NMSE in three of three converged runs";
  claim.cross_check = "the full profile's results disagree";
  r.claims.push_back(claim);
  BOOST_TEST(contains(rp::claims_table_latex(r),
                      "converged runs. \\textbf{But} the full profile's results disagree. \\\\"));
}

BOOST_AUTO_TEST_CASE(architectures_without_an_axis_are_points_marked_by_the_verdict) {
  // A heads_phase without a group: every series at one x. The figure puts one labelled point
  // per architecture, filled where the engine says efficient, open where not.
  ex::ExperimentResult r;
  r.claim_kind = "heads_phase";
  r.x_label = "configuration";
  r.log_x = false;
  const std::vector<std::pair<std::string, std::string>> archs = {
      {"(1)", "exponential in T"}, {"(2)", "exponential in T"}, {"(1,1)", "efficient"}};
  for (const auto& [heads, verdict] : archs) {
    ex::Series s;
    s.name = "heads " + heads;
    s.x = {0};
    s.median = {0.1};
    s.low = {0.1};
    s.high = {0.1};
    r.series.push_back(s);
    for (const double nmse : {0.1, 0.2, 0.4}) {
      ex::RunRow row;
      row.labels = {{"heads", heads}, {"seed", std::to_string(nmse)}};
      row.status = infoflow::numeric::RunStatus::kConverged;
      row.best_nmse = nmse;
      row.predicted_verdict = verdict;
      r.rows.push_back(row);
    }
  }
  const std::string figure = rp::figure_pgfplots(r);
  BOOST_TEST(contains(figure, "xtick={0,1,2}, xticklabels={{(1)},{(2)},{(1,1)}}"), figure);
  BOOST_TEST(contains(figure, "xlabel={architecture (heads per layer)}"));
  BOOST_TEST(!contains(figure, "configuration"));
  // Median 0.2, bars to 0.4 and 0.1: filled at (1,1), open at (1) and (2).
  BOOST_TEST(contains(figure, "mark=*, mark size=2.5pt, forget plot, error bars/.cd, y dir=both, "
                              "y explicit] table[x=x, y=y, y error plus=ep, y error minus=em] {\n"
                              "x y ep em\n2 2.000000e-01 2.000000e-01 1.000000e-01\n}"),
             figure);
  BOOST_TEST(contains(figure, "x y ep em\n0 2.000000e-01 2.000000e-01 1.000000e-01\n"
                              "1 2.000000e-01 2.000000e-01 1.000000e-01\n}"));
  BOOST_TEST(contains(figure, "\\addlegendentry{engine: efficient}"));
  BOOST_TEST(contains(figure, "\\addlegendentry{engine: not efficient}"));
}

BOOST_AUTO_TEST_SUITE_END()
