// The engine on the table of targets in tests/data/engine_targets.toml: each row's verdict on
// one architecture and the smallest efficient architecture, checked by hand against the rules;
// and the shipped targets planned within the placement search's cap.
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>
#include <toml++/toml.h>

#include "infoflow/theorems/engine.hpp"

namespace th = infoflow::theorems;
namespace tg = infoflow::targets;

namespace {

std::vector<long> heads_of(const std::string& text) {
  std::vector<long> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    out.push_back(std::stol(text.substr(start, comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::string heads_text(const std::vector<long>& h) {
  std::string out;
  for (const long x : h) out += (out.empty() ? "" : ",") + std::to_string(x);
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(engine_table)

BOOST_AUTO_TEST_CASE(every_target_of_the_table_gets_the_answer_of_the_rules) {
  const th::Catalogue catalogue = th::Catalogue::load_directory(INFOFLOW_CATALOGUE_DIR);
  th::Engine engine(catalogue);
  const toml::table table = toml::parse_file(INFOFLOW_TEST_DATA_DIR "/engine_targets.toml");
  const toml::array& cases = *table["case"].as_array();
  BOOST_TEST(cases.size() >= 40u);
  for (const toml::node& node : cases) {
    const toml::table& row = *node.as_table();
    const std::string formula = row["formula"].value_or(std::string());
    tg::Bindings bindings;
    if (const toml::table* set = row["set"].as_table()) {
      for (const auto& [k, v] : *set) bindings[std::string(k.str())] = v.value_or(0L);
    }
    th::Architecture a;
    a.heads = heads_of(row["on"].value_or(std::string()));
    a.embedding = 16;
    a.token_dim = 4;
    a.head_dim = 4;
    a.positional = infoflow::core::encoding_for(row["pe"].value_or(false));
    BOOST_TEST_CONTEXT(formula << " on (" << heads_text(a.heads) << ")"
                               << (a.encodes_positions() ? " with positions" : "") << ": "
                               << row["why"].value_or(std::string())) {
      const th::Target target("t", tg::Formula::parse(formula), bindings, "retrieval");
      const th::Plan plan = engine.plan(target, a);
      BOOST_TEST(th::to_text(plan.verdict) == row["verdict"].value_or(std::string()));
      BOOST_TEST(!plan.truncated);
      BOOST_TEST(plan.reason.empty() == (plan.verdict == th::Verdict::kEfficient));
      const th::Search search = engine.search(target, a, 4, 8);
      BOOST_TEST(search.capped == 0);  // no placement search reached its cap
      const std::string smallest = search.smallest    ? heads_text(search.smallest->architecture.heads)
                                   : search.undecided ? "undecided"
                                                      : "none";
      BOOST_TEST(smallest == row["smallest"].value_or(std::string()));
    }
  }
}

// The shipped targets as derive and `check --targets` plan them: the search over every
// architecture and each architecture the file lists, none reaching the placement search's cap.
BOOST_AUTO_TEST_CASE(no_shipped_target_reaches_the_placement_cap) {
  const th::Catalogue catalogue = th::Catalogue::load_directory(INFOFLOW_CATALOGUE_DIR);
  th::Engine engine(catalogue);
  const std::vector<tg::TargetSpec> specs = tg::load_targets(INFOFLOW_TARGETS_FILE);
  BOOST_TEST(specs.size() >= 6u);
  for (const tg::TargetSpec& spec : specs) {
    BOOST_TEST_CONTEXT("target " << spec.name) {
      const th::Target target = th::to_target(spec);
      const th::Search search =
          engine.search(target, th::architecture_for(spec, spec.embedding, 0, {1}));
      BOOST_TEST(search.capped == 0);
      for (const std::vector<long>& heads : spec.architectures) {
        const th::Plan plan =
            engine.plan(target, th::architecture_for(spec, spec.embedding, 0, heads));
        BOOST_TEST(!plan.truncated);
        BOOST_TEST(plan.priced());
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
