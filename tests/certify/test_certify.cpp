// Certificates: the bridge library compiles, a planted wrong statement is found false, a true
// statement Coq's real-arithmetic tactics cannot prove stays unconfirmed, the shipped catalogue's
// certificates all check. Cases that need coqc (or cvc5) say so and pass when it is absent.

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <boost/test/unit_test.hpp>

#include "infoflow/certify.hpp"
#include "infoflow/symbolic/compare.hpp"
#include "infoflow/theorems/catalogue.hpp"
#include "infoflow/theorems/check.hpp"

#include "common/temp_dir.hpp"

namespace {

using infoflow::certify::CrossCheck;
using infoflow::certify::ProofStatus;
using infoflow::symbolic::JournalEntry;
using infoflow::symbolic::RelOp;
using infoflow::symbolic::Satisfiability;
using infoflow::symbolic::SymbolRegistry;

bool have_coq() {
  const std::string why = infoflow::certify::coq_unavailable();
  if (!why.empty()) BOOST_TEST_MESSAGE("skipped: " + why + " (scripts/install-deps.sh installs it)");
  return why.empty();
}

bool have_cvc5() {
  const bool ok = std::system("cvc5 --version > /dev/null 2>&1") == 0;
  if (!ok) BOOST_TEST_MESSAGE("skipped: cvc5 is not installed (scripts/install-deps.sh installs it)");
  return ok;
}

const infoflow::symbolic::SymbolInfo& T() {
  return SymbolRegistry::standard().info(SymbolRegistry::standard().seq_len());
}

/// "T - 5 > 0 holds nowhere": false (T = 6).
JournalEntry planted_universal() {
  JournalEntry e;
  e.has_relation = true;
  e.expr = T().symbol - 5;
  e.op = RelOp::kGreater;
  e.result.status = Satisfiability::kUnsatisfiable;
  e.method = "z3";
  e.context.topic = "planted";
  return e;
}

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Which checkers a case asks.
enum class Checkers { kCoq, kCvc5, kBoth, kBothIfCvc5, kNone };

/// `journal` certified in a scratch folder of its own, kept for reading the files it wrote.
struct Certified {
  infoflow::testing::TempDir tmp;
  infoflow::certify::Options options;
  infoflow::certify::Summary summary;

  Certified(const infoflow::symbolic::Journal& journal, Checkers checkers) {
    options.directory = tmp.dir();
    options.run_coq = checkers != Checkers::kCvc5 && checkers != Checkers::kNone;
    options.run_cvc5 = checkers == Checkers::kCvc5 || checkers == Checkers::kBoth ||
                       (checkers == Checkers::kBothIfCvc5 && have_cvc5());
    summary = infoflow::certify::certify(journal, options);
  }
  /// The text of the file that holds fact `i`.
  [[nodiscard]] std::string file_of(std::size_t i) const {
    return read(tmp.dir() / summary.facts.at(i).file);
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(bridge_lemma_compiles) {
  if (!have_coq()) return;
  infoflow::testing::TempDir tmp;
  tmp.write("Bridge.v", infoflow::certify::bridge_library());
  const std::string command =
      "cd '" + tmp.dir().string() + "' && coqc -Q . Infoflow Bridge.v > bridge.log 2>&1";
  BOOST_TEST(std::system(command.c_str()) == 0, read(tmp.dir() / "bridge.log"));
  // The three bridges the certificates use are there, proved (no Admitted).
  const std::string& text = infoflow::certify::bridge_library();
  for (const char* name : {"Theorem eps_gap_little_o", "Theorem log_tie_break", "Theorem T_growth"}) {
    BOOST_TEST(text.find(name) != std::string::npos, name);
  }
  BOOST_TEST(text.find("Admitted") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(planted_wrong_witness_is_found_false) {
  if (!have_coq()) return;
  infoflow::symbolic::Journal journal;
  JournalEntry e = planted_universal();
  e.result.status = Satisfiability::kSatisfiable;  // "T - 5 > 0 at T = 2": false
  infoflow::symbolic::Witness w;
  w.values.emplace_back(&T(), GiNaC::numeric(2));
  e.result.witness = w;
  journal.entries.push_back(e);
  const Certified c(journal, Checkers::kCoq);
  const infoflow::certify::Summary& s = c.summary;
  BOOST_REQUIRE_EQUAL(s.facts.size(), 1u);
  BOOST_TEST(s.facts[0].status == ProofStatus::kFalse, s.problems());
  BOOST_TEST(c.file_of(0).find("fact_0_false") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_witness_completes_the_symbols_only_the_exponents_name) {
  if (!have_coq()) return;
  // The gap T - 1 of exponents T + D + s and D + s + 1 (D cancels): Z3's point gives T and s
  // only. D must then satisfy the implicit fact s < D (D = 4 for s = 3), not sit at 1, where
  // the region would fail and the true fact would read as false.
  const SymbolRegistry& r = SymbolRegistry::standard();
  const GiNaC::ex D = r.at("D").symbol;
  const GiNaC::ex s_ = r.at("s").symbol;
  infoflow::symbolic::Journal journal;
  JournalEntry e;
  e.has_relation = true;
  e.expr = T().symbol - 1;
  e.op = RelOp::kGreater;
  e.result.status = Satisfiability::kSatisfiable;
  infoflow::symbolic::Witness w;
  w.values.emplace_back(&T(), GiNaC::numeric(2));
  w.values.emplace_back(&r.at("s"), GiNaC::numeric(3));
  e.result.witness = w;
  e.method = "z3";
  e.context = {"exponents", T().symbol + D + s_, D + s_ + 1, "eps", std::nullopt};
  journal.entries.push_back(e);
  const Certified c(journal, Checkers::kCoq);
  const infoflow::certify::Summary& s = c.summary;
  BOOST_REQUIRE_EQUAL(s.facts.size(), 1u);
  BOOST_TEST(s.facts[0].status == ProofStatus::kReproved, s.problems());
  BOOST_TEST(s.facts[0].claim_proved);
  BOOST_TEST(c.file_of(0).find("region_0 2 3 4)") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(planted_wrong_universal_statement_is_found_false_and_solvers_disagree) {
  if (!have_coq() || !have_cvc5()) return;
  infoflow::symbolic::Journal journal;
  journal.entries.push_back(planted_universal());
  const Certified c(journal, Checkers::kBoth);
  const infoflow::certify::Summary& s = c.summary;
  BOOST_REQUIRE_EQUAL(s.facts.size(), 1u);
  BOOST_TEST(s.facts[0].cross == CrossCheck::kDisagree);
  BOOST_TEST(s.facts[0].status == ProofStatus::kFalse, s.problems());
  BOOST_TEST(s.problems().find("FALSE") != std::string::npos);
}

/// "T > 2 and T - 3 `op` 0 holds nowhere", with `gap` for T - 3: true only because T is an
/// integer.
JournalEntry integral_fact(const GiNaC::ex& gap, RelOp op) {
  JournalEntry e;
  e.domain.push_back({T().symbol - 2, RelOp::kGreater, "T > 2"});
  e.has_relation = true;
  e.expr = gap;
  e.op = op;
  e.result.status = Satisfiability::kUnsatisfiable;
  e.method = "z3";
  return e;
}

BOOST_AUTO_TEST_CASE(integral_statement_is_reproved_through_Z) {
  if (!have_coq()) return;
  // T > 2 gives T >= 3 only because T is an integer: the reals' tactics cannot see it; the
  // route through Z (lia, nia) can.
  infoflow::symbolic::Journal journal;
  journal.entries.push_back(integral_fact(T().symbol - 3, RelOp::kLess));
  const Certified c(journal, Checkers::kBothIfCvc5);
  const infoflow::certify::Summary& s = c.summary;
  BOOST_REQUIRE_EQUAL(s.facts.size(), 1u);
  BOOST_TEST(s.facts[0].status == ProofStatus::kReproved, s.problems());
  if (c.options.run_cvc5) BOOST_TEST(s.facts[0].cross == CrossCheck::kAgree);
  BOOST_TEST(c.file_of(0).find("nia") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(cvc5_is_asked_with_the_implicit_facts_the_oracle_assumed) {
  if (!have_cvc5()) return;
  // "T0 - T - 1 > 0 holds nowhere" is true only by the implicit fact T0 <= T + 1. Asked without
  // it, cvc5 found T0 = T + 2 and disagreed with Z3 (447 times on the generated catalogue).
  infoflow::symbolic::Journal journal;
  JournalEntry e;
  e.has_relation = true;
  e.expr = SymbolRegistry::standard().at("T0").symbol - T().symbol - 1;
  e.op = RelOp::kGreater;
  e.result.status = Satisfiability::kUnsatisfiable;
  e.method = "z3";
  journal.entries.push_back(e);
  const Certified c(journal, Checkers::kCvc5);
  const infoflow::certify::Summary& s = c.summary;
  BOOST_REQUIRE_EQUAL(s.facts.size(), 1u);
  BOOST_TEST(s.facts[0].cross == CrossCheck::kAgree);
}

BOOST_AUTO_TEST_CASE(true_but_unprovable_statement_stays_unconfirmed_not_false) {
  if (!have_coq()) return;
  // (T - 3)/T < 0 nowhere for T > 2: integrality again, but through a quotient, which the
  // route through Z does not take. No counterexample exists: the answer stands unconfirmed.
  infoflow::symbolic::Journal journal;
  journal.entries.push_back(integral_fact((T().symbol - 3) / T().symbol, RelOp::kLess));
  const Certified c(journal, Checkers::kCoq);
  const infoflow::certify::Summary& s = c.summary;
  BOOST_REQUIRE_EQUAL(s.facts.size(), 1u);
  BOOST_TEST(s.facts[0].status == ProofStatus::kTacticsFailed, s.problems());
  BOOST_TEST(c.file_of(0).find("Admitted") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(many_findings_share_files_that_compile) {
  if (!have_coq()) return;
  // 130 findings (T + 1 <= 0 holds nowhere, each its own): at most 64 files, so three findings
  // a file, 44 files whose names are Coq module names.
  infoflow::symbolic::Journal journal;
  for (long i = 0; i < 130; ++i) {
    JournalEntry e = planted_universal();
    e.expr = T().symbol + 1;
    e.op = RelOp::kLessEqual;
    e.finding = i;
    journal.entries.push_back(e);
  }
  const Certified c(journal, Checkers::kCoq);
  const infoflow::certify::Summary& s = c.summary;
  BOOST_TEST(s.files == 44u);
  BOOST_TEST(s.count(ProofStatus::kReproved) == 130u, s.problems());
  BOOST_TEST(s.facts.front().file == "findings_0000_0002.v");
  BOOST_TEST(s.facts.back().file == "findings_0129_0129.v");
}

BOOST_AUTO_TEST_CASE(undecided_questions_are_not_certified) {
  infoflow::symbolic::Journal journal;
  JournalEntry e = planted_universal();
  e.result.status = Satisfiability::kUnknown;
  journal.entries.push_back(e);
  const Certified c(journal, Checkers::kNone);
  const infoflow::certify::Summary& s = c.summary;
  BOOST_TEST(s.facts[0].status == ProofStatus::kNotCertifiable);
  BOOST_TEST(s.decided() == 0u);
  BOOST_TEST(std::filesystem::exists(c.tmp.dir() / "certificates.json"));
}

BOOST_AUTO_TEST_CASE(shipped_catalogue_certificates_all_check) {
  if (!have_coq()) return;
  const infoflow::theorems::Catalogue catalogue =
      infoflow::theorems::Catalogue::load_directory(INFOFLOW_CATALOGUE_DIR);
  infoflow::symbolic::Journal journal;
  infoflow::theorems::CheckOptions check_options;
  check_options.journal = &journal;
  infoflow::theorems::CheckReport report = infoflow::theorems::check(catalogue, check_options);
  const Certified c(journal, Checkers::kBothIfCvc5);
  const infoflow::certify::Summary& s = c.summary;
  BOOST_TEST_MESSAGE(s.brief());
  BOOST_TEST(s.decided() > 50u);
  BOOST_TEST(s.count(ProofStatus::kReproved) == s.decided(), s.problems());
  BOOST_TEST(s.count(CrossCheck::kDisagree) == 0u, s.problems());
  infoflow::certify::annotate(report, s);
  for (const infoflow::theorems::Finding& f : report.findings) {
    BOOST_TEST(f.certificate.rfind("re-proved by Coq", 0) == 0, f.summary + ": " + f.certificate);
  }
}

BOOST_AUTO_TEST_CASE(growth_in_T_ends_in_the_bridge_claim) {
  if (!have_coq()) return;
  // eps^(-T/(n+1)) against eps^(-T/(n+2)) as T -> infinity: the exponent gap is linear in T
  // with slope 1/((n+1)(n+2)) > 0; the certificate ends in T_growth's limit. A gap with T in
  // its denominator (degree 1, not linear) gets the sign fact only.
  infoflow::symbolic::Journal journal;
  infoflow::symbolic::SignOracle oracle;
  oracle.set_journal(&journal);
  using infoflow::symbolic::Rate;
  const auto T_regime = [&](const char* first, const char* second) {
    journal.context = {"as T -> infinity", {}, {}, {}, {}};
    return infoflow::symbolic::compare_as_T_to_infinity(Rate::parse(first), Rate::parse(second),
                                                        {}, oracle);
  };
  BOOST_TEST(T_regime("eps^(-T/(n+1))", "eps^(-T/(n+2))").growth ==
             infoflow::symbolic::Growth::kFaster);
  const std::size_t linear = journal.entries.size();
  BOOST_TEST(T_regime("eps^(-(T^2+1)/(T+1))", "eps^(-1)").growth ==
             infoflow::symbolic::Growth::kFaster);
  const Certified c(journal, Checkers::kCoq);
  const infoflow::certify::Summary& s = c.summary;
  BOOST_TEST(s.count(ProofStatus::kReproved) == s.decided(), s.problems());
  std::size_t growth_claims = 0;
  for (std::size_t i = 0; i < s.facts.size(); ++i) {
    if (!s.facts[i].claim_proved) continue;
    BOOST_TEST(i < linear);
    BOOST_TEST(c.file_of(i).find("apply T_growth") != std::string::npos);
    ++growth_claims;
  }
  BOOST_TEST(growth_claims == 1u);
}

BOOST_AUTO_TEST_CASE(unwritable_directory_is_bad_input_with_its_place) {
  const std::string command = std::string(INFOFLOW_BINARY) +
                              " check --certify /proc/infoflow-no-such-dir --no-coq --no-cvc5"
                              " > /dev/null 2> certify-err.txt";
  const int status = std::system(command.c_str());
  BOOST_TEST(WEXITSTATUS(status) == 2);
  const std::string err = read("certify-err.txt");
  BOOST_TEST(err.find("/proc/infoflow-no-such-dir") != std::string::npos, err);
  std::filesystem::remove("certify-err.txt");
}
