#include <boost/test/unit_test.hpp>

#include "common/symbols.hpp"
#include "common/temp_catalogue.hpp"
#include "common/temp_dir.hpp"
#include "infoflow/theorems/catalogue.hpp"

using namespace infoflow;
using namespace infoflow::theorems;
using infoflow::testing::ex_of;
using infoflow::testing::same;
using infoflow::testing::TempCatalogue;

namespace {

/// The InputError loading `dir` throws, or fails the test.
InputError load_failure(const std::filesystem::path& dir) {
  try {
    Catalogue::load_directory(dir);
  } catch (const InputError& e) {
    return e;
  }
  BOOST_FAIL("the catalogue loaded without error");
  throw;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(catalogue)

BOOST_AUTO_TEST_CASE(holds_every_entry_of_the_theory) {
  const Catalogue c = Catalogue::load_directory(INFOFLOW_CATALOGUE_DIR);
  BOOST_TEST(c.entries().size() == 10u);
  BOOST_TEST(c.papers().size() == 2u);
  // Hand-checked exponents of 1/eps, one per theorem of docs/theory.md, section 4.
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"infoflow.thm1.one_layer", "c*T - c0"},
      {"infoflow.thm1.two_layer", "1"},
      {"infoflow.thm2.kth_max", "(T - k - 1)/(n + 1)"},
      {"infoflow.thm3.decoding", "T0*d/E - 1"},
      {"infoflow.global_aggregation", "T/E"},
      {"head_count.enough_heads", "gamma"},
      {"head_count.too_few_heads", "(T/4 - s - D + 1)/((n+1)*s + 1) - 1"},
      {"head_count.memorisation", "1 + gamma"},
      {"head_count.depth_conjecture", "c*T - c0"},
      {"infoflow.uniform_aggregation", "1"}};
  for (const auto& [id, exponent] : expected) {
    const Entry* e = c.find(id);
    BOOST_TEST_REQUIRE(e != nullptr, id);
    BOOST_TEST(same(e->rate.eps_exponent(), ex_of(exponent)), id);
  }
  BOOST_TEST(c.find("head_count.depth_conjecture")->provenance == Provenance::kConjecture);
  BOOST_TEST(c.find("infoflow.uniform_aggregation")->provenance == Provenance::kFormalization);
  BOOST_TEST(c.find("infoflow.thm2.kth_max")->kind == Kind::kLower);
  BOOST_TEST(c.find("infoflow.thm2.kth_max")->hypotheses.size() == 1u);
}

BOOST_AUTO_TEST_CASE(task_families_nest) {
  const Catalogue c = Catalogue::load_directory(INFOFLOW_CATALOGUE_DIR);
  BOOST_TEST(c.task_within("d_retrieval", "retrieval"));
  BOOST_TEST(c.task_within("d_retrieval", "sequence_to_scalar"));
  BOOST_TEST(!c.task_within("retrieval", "d_retrieval"));
  BOOST_TEST(!c.task_within("kth_retrieval", "decode_aggregated"));
}

BOOST_AUTO_TEST_CASE(malformed_toml_names_line_and_column) {
  TempCatalogue t;
  t.write("broken.toml", "[paper]\nid = \"x\"\ntitle = \n");
  const InputError e = load_failure(t.dir());
  BOOST_TEST(e.where().file.ends_with("broken.toml"));
  BOOST_TEST(e.where().line == 3u);
  BOOST_TEST(e.where().column > 0u);
}

BOOST_AUTO_TEST_CASE(unknown_symbol_in_a_rate_names_its_column) {
  TempCatalogue t;
  BOOST_TEST_REQUIRE(t.replace("infoflow.toml", "rate = \"eps^(-1)\"", "rate = \"eps^(-zeta)\""));
  const InputError e = load_failure(t.dir());
  BOOST_TEST(e.message().find("unknown symbol 'zeta'") != std::string::npos);
  // rate = "eps^(-zeta)": the value starts at column 9, 'zeta' at column 15.
  BOOST_TEST(e.where().column == 15u);
  BOOST_TEST(e.where().line > 0u);
}

BOOST_AUTO_TEST_CASE(unknown_key_duplicate_id_bad_values) {
  {
    TempCatalogue t;
    BOOST_TEST_REQUIRE(t.replace("infoflow.toml", "quantity = \"M\"", "quantity = \"M\"\nqantity = 1"));
    BOOST_TEST(load_failure(t.dir()).message().find("unknown key 'qantity'") != std::string::npos);
  }
  {
    TempCatalogue t;
    BOOST_TEST_REQUIRE(
        t.replace("head_count.toml", "id = \"head_count.memorisation\"", "id = \"infoflow.thm1.two_layer\""));
    const InputError e = load_failure(t.dir());
    BOOST_TEST(e.message().find("duplicate entry id 'infoflow.thm1.two_layer'") != std::string::npos);
    BOOST_TEST(e.message().find("first defined at") != std::string::npos);
  }
  {
    TempCatalogue t;
    BOOST_TEST_REQUIRE(t.replace("infoflow.toml", "kind = \"upper\"", "kind = \"above\""));
    BOOST_TEST(load_failure(t.dir()).message().find("expected one of: upper, lower, tight") !=
               std::string::npos);
  }
  {
    TempCatalogue t;
    BOOST_TEST_REQUIRE(t.replace("infoflow.toml", "task = \"kth_retrieval\"", "task = \"kth\""));
    BOOST_TEST(load_failure(t.dir()).message().find("unknown task family 'kth'") != std::string::npos);
  }
  {
    TempCatalogue t;
    BOOST_TEST_REQUIRE(t.replace("infoflow.toml", "rate = \"eps^(-1)\"", "rate = \"eps^(-1) + eps^(-2)\""));
    BOOST_TEST(load_failure(t.dir()).message().find("rate:") != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(contradictory_hypotheses_are_rejected) {
  TempCatalogue t;
  BOOST_TEST_REQUIRE(t.replace("infoflow.toml", "hypotheses = [\"k >= 2\"]", "hypotheses = [\"k >= 2\", \"k < 2\"]"));
  const InputError e = load_failure(t.dir());
  BOOST_TEST(e.message().find("contradict each other") != std::string::npos);
  BOOST_TEST(e.message().find("infoflow.thm2.kth_max") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(task_cycles_are_rejected) {
  TempCatalogue t;
  BOOST_TEST_REQUIRE(t.replace("tasks.toml", "id = \"sequence_to_scalar\"",
                               "id = \"sequence_to_scalar\"\nparent = \"retrieval\""));
  const InputError e = load_failure(t.dir());
  BOOST_TEST(e.where().file.find("tasks.toml") != std::string::npos);
  BOOST_TEST(e.where().line == 6u);  // where sequence_to_scalar names its parent
  BOOST_TEST(e.where().column == 11u);
  BOOST_TEST(e.message() ==
             "task family 'sequence_to_scalar': its parents form a cycle (sequence_to_scalar -> "
             "retrieval -> sequence_to_scalar ...)");
}

BOOST_AUTO_TEST_CASE(an_unknown_parent_and_a_division_by_zero_name_their_place) {
  {
    TempCatalogue t;
    BOOST_TEST_REQUIRE(t.replace("tasks.toml", "parent = \"sequence_to_scalar\"",
                                 "parent = \"sequence_to_scalr\""));
    const InputError e = load_failure(t.dir());
    BOOST_TEST(e.where().line == 10u);
    BOOST_TEST(e.where().column == 11u);
    BOOST_TEST(e.message() ==
               "task family 'retrieval' has an unknown parent 'sequence_to_scalr'");
  }
  {
    TempCatalogue t;
    BOOST_TEST_REQUIRE(t.replace("infoflow.toml", "rate = \"eps^(-(c*T - c0))\"",
                                 "rate = \"eps^(-(c*T - c0)/(n - n))\""));
    const InputError e = load_failure(t.dir());
    BOOST_TEST(e.where().file.find("infoflow.toml") != std::string::npos);
    BOOST_TEST(e.where().line == 23u);
    BOOST_TEST(e.where().column == 27u);  // the divisor n - n
    BOOST_TEST(e.message().find("division by zero") == 0u);
  }
}

BOOST_AUTO_TEST_CASE(an_empty_folder_is_not_an_empty_catalogue) {
  const infoflow::testing::TempDir empty;
  BOOST_TEST(load_failure(empty.dir()).message() == "no catalogue files (*.toml) here");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(catalogue_assumptions)

// The scope check (docs/infoflow_engine.md, "S Scope") enforces what the theorems assume of a
// target; each theorem's entry says it in words.
BOOST_AUTO_TEST_CASE(every_theorem_states_what_it_assumes_of_the_target) {
  const infoflow::theorems::Catalogue catalogue =
      infoflow::theorems::Catalogue::load_directory(INFOFLOW_CATALOGUE_DIR);
  BOOST_TEST(catalogue.entries().size() >= 10u);
  for (const infoflow::theorems::Entry& e : catalogue.entries()) {
    BOOST_TEST_CONTEXT(e.id) {
      BOOST_TEST(e.assumes.size() == 2u);
      BOOST_TEST(e.assumes.back().find("bounded variation") != std::string::npos);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
