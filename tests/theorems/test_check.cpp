#include <boost/test/unit_test.hpp>

#include <algorithm>

#include "common/symbols.hpp"
#include "common/temp_catalogue.hpp"
#include "infoflow/theorems/check.hpp"

using namespace infoflow::theorems;
using infoflow::testing::TempCatalogue;

namespace {

const CheckReport& shipped_report() {
  static const CheckReport report = check(Catalogue::load_directory(INFOFLOW_CATALOGUE_DIR));
  return report;
}

/// The finding of that kind naming exactly these entries (in order), or nullptr.
const Finding* find(const CheckReport& r, FindingKind kind, std::vector<std::string> ids) {
  for (const Finding& f : r.findings) {
    if (f.kind == kind && f.entries == ids) return &f;
  }
  return nullptr;
}

bool has_suggestion(const Finding& f, const std::string& text) {
  return std::find(f.suggestions.begin(), f.suggestions.end(), text) != f.suggestions.end();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(check_catalogue)

BOOST_AUTO_TEST_CASE(theorem_three_degenerate_where_T0_d_at_most_E) {
  const Finding* f = find(shipped_report(), FindingKind::kDegenerate, {"infoflow.thm3.decoding"});
  BOOST_TEST_REQUIRE(f != nullptr);
  BOOST_TEST(f->condition == "T0*d <= E");
  BOOST_TEST(f->severity == Severity::kWarning);
  BOOST_TEST_REQUIRE(f->witnesses.size() == 2u);  // one point on each side
}

BOOST_AUTO_TEST_CASE(global_aggregation_against_theorem_three_at_T0_equal_T) {
  // Theorem 3 at T0 = T gives eps^(1 - T d/E); the seed's form is eps^(-T/E). The gap
  // T/E - (T d/E - 1) = (E + T - T d)/E: Theorem 3 implies the seed's form (d = 1 always),
  // and the seed's form claims more than Theorem 3 wherever T d > T + E.
  const Finding* f = find(shipped_report(), FindingKind::kImplication,
                          {"infoflow.thm3.decoding", "infoflow.global_aggregation"});
  BOOST_TEST_REQUIRE(f != nullptr);
  BOOST_TEST(f->gap == "T/E + 1 - T*d/E");
  BOOST_TEST(f->summary.find("stronger claim where T*d > T + E") != std::string::npos);
  BOOST_TEST(f->summary.find("T0 = T") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_contradiction_puts_the_less_supported_entry_in_doubt_first) {
  // The same contradiction with the upper bound demoted to a conjecture: it is the suspect, named
  // first; no restriction of it removes the overlap here (both are one-layer, single-head
  // settings), so the published theorem's restriction follows as the alternative.
  TempCatalogue t;
  BOOST_TEST_REQUIRE(t.replace("head_count.toml",
                               "id = \"head_count.memorisation\"\nsource = \"single head, n >= "
                               "T*d\"\nprovenance = \"predecessor\"",
                               "id = \"head_count.memorisation\"\nsource = \"single head, n >= "
                               "T*d\"\nprovenance = \"conjecture\""));
  const CheckReport r = check(Catalogue::load_directory(t.dir()));
  const Finding* f = nullptr;
  for (const Finding& x : r.findings) {
    if (x.entries == std::vector<std::string>{"infoflow.thm1.one_layer", "head_count.memorisation"})
      f = &x;
  }
  BOOST_TEST_REQUIRE(f != nullptr);
  BOOST_TEST_REQUIRE(f->suggestions.size() == 3u);
  BOOST_TEST(f->suggestions.front() ==
             "re-examine head_count.memorisation first: it is a conjecture bound, "
             "infoflow.thm1.one_layer a seed one");
  BOOST_TEST(f->suggestions[1] == "restrict infoflow.thm1.one_layer to h != 1");
  BOOST_TEST(f->suggestions[2] == "restrict infoflow.thm1.one_layer to n < T*d");
  // Both published (the shipped catalogue): the lower bound is restricted, and nothing named.
  const Finding* shipped = find(shipped_report(), FindingKind::kContradiction,
                                {"infoflow.thm1.one_layer", "head_count.memorisation"});
  BOOST_TEST_REQUIRE(shipped != nullptr);
  BOOST_TEST(shipped->suggestions.front().find("restrict ") == 0u);
}

BOOST_AUTO_TEST_CASE(memorisation_contradicts_unrestricted_one_layer_bound) {
  const Finding* f = find(shipped_report(), FindingKind::kContradiction,
                          {"infoflow.thm1.one_layer", "head_count.memorisation"});
  BOOST_TEST_REQUIRE(f != nullptr);
  BOOST_TEST(f->severity == Severity::kError);
  // c*T - c0 > 1 + gamma, solved for T: one fraction (c cancels in no term).
  BOOST_TEST(f->condition ==
             "T > (gamma + c0@infoflow.thm1.one_layer + 1)/c@infoflow.thm1.one_layer");
  BOOST_TEST(has_suggestion(*f, "restrict infoflow.thm1.one_layer to n < T*d"));
  BOOST_TEST_REQUIRE(!f->witnesses.empty());
  const auto& w = f->witnesses.front().point;
  const GiNaC::ex n = infoflow::testing::sym("n");
  const GiNaC::ex T = infoflow::testing::sym("T");
  const GiNaC::ex d = infoflow::testing::sym("d");
  BOOST_TEST(GiNaC::ex_to<GiNaC::numeric>(w.evaluate(n - T * d)).is_nonneg_integer());
}

BOOST_AUTO_TEST_CASE(restricting_the_bound_removes_the_contradiction) {
  TempCatalogue t;
  BOOST_TEST_REQUIRE(t.replace("infoflow.toml", "depth = \"L == 1\"\nrate = \"eps^(-(c*T - c0))\"",
                               "depth = \"L == 1\"\nhypotheses = [\"n < T*d\"]\nrate = \"eps^(-(c*T - c0))\""));
  const CheckReport r = check(Catalogue::load_directory(t.dir()));
  BOOST_TEST(find(r, FindingKind::kContradiction, {"infoflow.thm1.one_layer", "head_count.memorisation"}) ==
             nullptr);
  BOOST_TEST(r.count(Severity::kError) == 0u);
}

BOOST_AUTO_TEST_CASE(predecessor_lower_bound_exceeds_upper_bound_above_threshold) {
  // k > gamma iff T > 4 (D + gamma((n+1)s + 1) + (n+1)s + s), expanded.
  const Finding* f = find(shipped_report(), FindingKind::kSeparation,
                          {"head_count.too_few_heads", "head_count.enough_heads"});
  BOOST_TEST_REQUIRE(f != nullptr);
  BOOST_TEST(f->condition == "T > 4*n*s*gamma + 4*n*s + 4*s*gamma + 8*s + 4*D + 4*gamma");
  BOOST_TEST(f->witnesses.size() >= 2u);
}

BOOST_AUTO_TEST_CASE(entry_five_vacuous_and_no_false_contradiction) {
  const CheckReport& r = shipped_report();
  const Finding* f = find(r, FindingKind::kVacuous, {"head_count.too_few_heads"});
  BOOST_TEST_REQUIRE(f != nullptr);
  BOOST_TEST(f->condition == "T <= 4*n*s + 8*s + 4*D");
  // With h = s = 1 and n >= T d, k < 0: entry 5 cannot exceed the memorisation bound.
  BOOST_TEST(find(r, FindingKind::kContradiction, {"head_count.too_few_heads", "head_count.memorisation"}) ==
             nullptr);
}

BOOST_AUTO_TEST_CASE(depth_separation_of_theorem_one) {
  const Finding* f = find(shipped_report(), FindingKind::kSeparation,
                          {"infoflow.thm1.one_layer", "infoflow.thm1.two_layer"});
  BOOST_TEST_REQUIRE(f != nullptr);
  BOOST_TEST(f->condition ==
             "T > (c0@infoflow.thm1.one_layer + 1)/c@infoflow.thm1.one_layer");
}

BOOST_AUTO_TEST_CASE(conjecture_conflicts_are_warnings) {
  // The memorisation bound is a theorem whose rate does not grow with T: it settles where the
  // conjecture fails, whatever the conjecture's unknown constants.
  const Finding* f = find(shipped_report(), FindingKind::kConjectureContradicted,
                          {"head_count.depth_conjecture", "head_count.memorisation"});
  BOOST_TEST_REQUIRE(f != nullptr);
  BOOST_TEST(f->severity == Severity::kWarning);
  BOOST_TEST(f->summary.find("contradicted by theorem head_count.memorisation") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(everything_decided) {
  const CheckReport& r = shipped_report();
  BOOST_TEST(r.comparisons > 0u);
  BOOST_TEST(r.comparisons_decided == r.comparisons);
  BOOST_TEST(r.count(Severity::kError) == 1u);
}

BOOST_AUTO_TEST_CASE(at_equal_eps_exponents_the_log_power_decides_a_contradiction) {
  // Lower Omega(eps^(2-k) log(1/eps)) against upper O(eps^(4-2k)), k >= 2: the eps exponents
  // k - 2 and 2k - 4 agree only at k = 2, where the lower bound's log(1/eps) exceeds O(1).
  TempCatalogue t;
  const std::string entries =
      "\n[[entry]]\nid = \"infoflow.edge_lower\"\nsource = \"Lemma 9\"\nprovenance = \"seed\"\n"
      "kind = \"lower\"\nquantity = \"M\"\ntask = \"kth_retrieval\"\ndepth = \"L == 3\"\n"
      "hypotheses = [\"k >= 2\"]\nrate = \"eps^(2-k)*log(1/eps)\"\n"
      "\n[[entry]]\nid = \"infoflow.edge_upper\"\nsource = \"Lemma 10\"\nprovenance = \"seed\"\n"
      "kind = \"upper\"\nquantity = \"M\"\ntask = \"kth_retrieval\"\ndepth = \"L == 3\"\n"
      "hypotheses = [\"k >= 2\"]\nrate = \"eps^(4-2*k)\"\n";
  t.write("infoflow.toml", t.read("infoflow.toml") + entries);
  const CheckReport r = check(Catalogue::load_directory(t.dir()));
  const Finding* f =
      find(r, FindingKind::kContradiction, {"infoflow.edge_lower", "infoflow.edge_upper"});
  BOOST_TEST_REQUIRE(f != nullptr);
  BOOST_TEST(f->condition == "2 = k");
  BOOST_TEST_REQUIRE(f->witnesses.size() == 2u);
  const GiNaC::ex k = infoflow::testing::sym("k");
  BOOST_TEST(f->witnesses[0].label == "lower exceeds upper");
  BOOST_TEST(infoflow::testing::same(f->witnesses[0].point.evaluate(k), GiNaC::ex(2)));
  BOOST_TEST(f->witnesses[1].label == "consistent");
  BOOST_TEST(GiNaC::ex_to<GiNaC::numeric>(f->witnesses[1].point.evaluate(k)) > 2);
}

BOOST_AUTO_TEST_CASE(an_implication_weighs_log_factors_and_says_which_sides_are_empty) {
  // Upper O(eps^(-1)) for k >= 2 implies O(eps^(-1) log(1/eps)) for k >= 3, weaker by one power
  // of log(1/eps); the narrower is never stronger nor equal, and the finding says so.
  TempCatalogue t;
  const std::string entries =
      "\n[[entry]]\nid = \"infoflow.wide\"\nsource = \"Lemma 9\"\nprovenance = \"seed\"\n"
      "kind = \"upper\"\nquantity = \"M\"\ntask = \"kth_retrieval\"\ndepth = \"L == 3\"\n"
      "hypotheses = [\"k >= 2\"]\nrate = \"eps^(-1)\"\n"
      "\n[[entry]]\nid = \"infoflow.narrow\"\nsource = \"Lemma 10\"\nprovenance = \"seed\"\n"
      "kind = \"upper\"\nquantity = \"M\"\ntask = \"kth_retrieval\"\ndepth = \"L == 3\"\n"
      "hypotheses = [\"k >= 3\"]\nrate = \"eps^(-1)*log(1/eps)\"\n";
  t.write("infoflow.toml", t.read("infoflow.toml") + entries);
  const CheckReport r = check(Catalogue::load_directory(t.dir()));
  const Finding* f = find(r, FindingKind::kImplication, {"infoflow.wide", "infoflow.narrow"});
  BOOST_TEST_REQUIRE(f != nullptr);
  BOOST_TEST(f->condition == "always");
  BOOST_TEST(f->summary.find("weaker by a factor log(1/eps)^(1)") != std::string::npos, f->summary);
  BOOST_TEST_REQUIRE(f->witnesses.size() == 1u);
  BOOST_TEST(f->witnesses[0].label == "implied, weaker");
  BOOST_TEST(f->missing_witnesses ==
             (std::vector<std::string>{"narrower is stronger: none, no point of the setting",
                                       "implied, equal: none, no point of the setting"}));
}

BOOST_AUTO_TEST_CASE(every_shipped_finding_has_a_witness_or_a_reason_on_each_side) {
  for (const Finding& f : shipped_report().findings) {
    if (f.kind == FindingKind::kUndecided) continue;
    const std::size_t sides = f.kind == FindingKind::kSeparation || f.kind == FindingKind::kImplication ? 3 : 2;
    BOOST_TEST(f.witnesses.size() + f.missing_witnesses.size() == sides, f.summary);
  }
}

BOOST_AUTO_TEST_SUITE_END()
