// What derive and plan write, as a program reads it (the JSON's field types) and as a paper
// prints it (the LaTeX table of the engine table's rows, compiled): issue 46's defects 6.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "infoflow/report/catalogue_report.hpp"
#include "infoflow/report/derivation_report.hpp"

#include "common/temp_dir.hpp"

namespace rp = infoflow::report;
namespace th = infoflow::theorems;
namespace tg = infoflow::targets;
namespace fs = std::filesystem;
using infoflow::testing::TempDir;
using Json = nlohmann::json;

namespace {

const th::Catalogue& catalogue() {
  static const th::Catalogue c = th::Catalogue::load_directory(INFOFLOW_CATALOGUE_DIR);
  return c;
}

std::vector<long> heads_of(const std::string& text) {
  std::vector<long> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    out.push_back(std::stol(text.substr(start, comma - start)));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

th::Architecture architecture(std::vector<long> heads, bool positions = false) {
  th::Architecture a;
  a.heads = std::move(heads);
  a.embedding = 16;
  a.token_dim = 4;
  a.head_dim = 4;
  a.positional = infoflow::core::encoding_for(positions);
  return a;
}

// ---- the JSON schema: one type per field, null where a value is absent ----

enum class Type { kString, kInteger, kBoolean, kStringOrNull, kIntegers, kStrings };

bool has_type(const Json& v, Type t) {
  const auto all = [&](const std::function<bool(const Json&)>& each) {
    if (!v.is_array()) return false;
    for (const Json& x : v) {
      if (!each(x)) return false;
    }
    return true;
  };
  switch (t) {
    case Type::kString:
      return v.is_string();
    case Type::kInteger:
      return v.is_number_integer();
    case Type::kBoolean:
      return v.is_boolean();
    case Type::kStringOrNull:
      return v.is_string() || v.is_null();
    case Type::kIntegers:
      return all([](const Json& x) { return x.is_number_integer(); });
    case Type::kStrings:
      return all([](const Json& x) { return x.is_string(); });
  }
  return false;
}

void expect(const Json& object, const std::string& where,
            const std::vector<std::pair<std::string, Type>>& fields) {
  for (const auto& [key, type] : fields) {
    BOOST_TEST_CONTEXT(where << "." << key << " = "
                             << (object.contains(key) ? object[key].dump() : "absent")) {
      BOOST_TEST_REQUIRE(object.contains(key));
      BOOST_TEST(has_type(object[key], type));
    }
  }
}

void expect_plan(const Json& plan, const std::string& where);

void expect_at_T(const Json& at, const std::string& where) {
  if (at.is_null()) return;
  expect(at, where, {{"T", Type::kInteger}, {"exponent", Type::kString}, {"rate", Type::kString}});
}

void expect_plan(const Json& plan, const std::string& where) {
  expect(plan["architecture"], where + ".architecture",
         {{"L", Type::kInteger},
          {"heads", Type::kIntegers},
          {"E", Type::kInteger},
          {"d", Type::kInteger},
          {"n", Type::kIntegers},
          {"pe", Type::kBoolean},
          {"arguments", Type::kString}});
  BOOST_TEST(plan["architecture"]["n"].size() == plan["architecture"]["heads"].size());
  expect(plan, where,
         {{"verdict", Type::kString},
          {"reason", Type::kString},
          {"entries", Type::kStrings},
          {"search_truncated", Type::kBoolean},
          {"kind", Type::kStringOrNull},
          {"rate", Type::kStringOrNull},
          {"rate_latex", Type::kStringOrNull},
          {"exponent", Type::kStringOrNull},
          {"rate_general", Type::kStringOrNull},
          {"rate_general_condition", Type::kStringOrNull},
          {"dominant", Type::kStringOrNull}});
  for (const Json& s : plan["steps"]) {
    expect(s, where + ".steps[]",
           {{"layer", Type::kInteger},
            {"head", Type::kInteger},
            {"heads", Type::kInteger},
            {"at", Type::kString},
            {"action", Type::kString},
            {"rule", Type::kString},
            {"quantity", Type::kString},
            {"what", Type::kString},
            {"entry", Type::kString},
            {"kind", Type::kString},
            {"exponent", Type::kString}});
  }
  for (const Json& s : plan["information_sets"]) {
    expect(s, where + ".information_sets[]",
           {{"layer", Type::kInteger},
            {"token", Type::kStrings},
            {"token_size", Type::kString},
            {"readout", Type::kStrings},
            {"readout_size", Type::kString}});
  }
  for (const Json& d : plan["decodings"]) {
    expect(d, where + ".decodings[]",
           {{"layer", Type::kInteger},
            {"at", Type::kString},
            {"size", Type::kString},
            {"entry", Type::kString},
            {"exponent", Type::kString}});
  }
  BOOST_TEST_REQUIRE(plan.contains("upper_bound"));
  BOOST_TEST_REQUIRE(plan.contains("at_T"));
  if (!plan["upper_bound"].is_null()) expect_plan(plan["upper_bound"], where + ".upper_bound");
  expect_at_T(plan["at_T"], where + ".at_T");
}

// ---- pdflatex ----

std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(derivation_outputs)

BOOST_AUTO_TEST_CASE(json_fields_keep_one_type_whatever_the_plan) {
  // Issue 46, defect 7: `readout_size` was a string and `token_size` an int, and `n` was 0 (E/h)
  // in the plan but 16 in smallest_efficient. Plans of each kind: efficient, aggregation (a set
  // of size T), a lower bound beside its upper one, outside the framework (no rate).
  th::Engine engine(catalogue());
  const std::vector<std::pair<std::string, std::string>> cases{
      {"min(s != t) dot(x[s], x[t])", "1,1"},
      {"min(s != t) dot(x[s], x[t])", "1"},
      {"kth(2, t) dot(a, x[t])", "1"},
      {"log(abs(max(t) dot(a, x[t])))", "1"},
  };
  for (const auto& [formula, heads] : cases) {
    const th::Target target("t", tg::Formula::parse(formula), {{"T", 32}}, "retrieval");
    rp::Derivation d;
    d.target = &target;
    th::Architecture a = architecture(heads_of(heads));
    a.head_dim = 0;  // n = E / h, as derive plans without --head-dim
    d.plan = engine.plan(target, a);
    d.search = engine.search(target, a, 2, 2);
    const Json j = rp::to_json(d);
    BOOST_TEST_CONTEXT(formula << " on (" << heads << ")") {
      expect(j, "derivation",
             {{"target", Type::kString},
              {"formula", Type::kString},
              {"comparison_order", Type::kInteger},
              {"comparison_dimension", Type::kInteger},
              {"comparison_number", Type::kString},
              {"architectures_searched", Type::kInteger},
              {"undecided", Type::kStringOrNull}});
      expect_plan(j["plan"], "plan");
      // n as planned: E / h = 16 here, not the 0 that stands for it.
      BOOST_TEST(j["plan"]["architecture"]["n"][0].get<long>() == 16 / a.heads[0]);
      if (!j["smallest_efficient"].is_null()) expect_plan(j["smallest_efficient"], "smallest");
      for (const Json& p : j["fewest_heads_per_depth"]) {
        expect(p, "fewest_heads_per_depth[]",
               {{"L", Type::kInteger},
                {"heads", Type::kIntegers},
                {"n", Type::kIntegers},
                {"arguments", Type::kString}});
      }
    }
  }
  // The lower bound says so, with the upper one beside it, and both at T.
  const th::Target kth("t", tg::Formula::parse("kth(2, t) dot(a, x[t])"), {{"T", 32}}, "retrieval");
  th::Architecture one = architecture({1});
  one.head_dim = 0;
  const Json plan = rp::to_json(engine.plan(kth, one), 32);
  BOOST_TEST(plan["kind"] == "lower");
  BOOST_TEST(plan["rate"] == "Omega(eps^(3/17 - T/17))");
  BOOST_TEST(plan["at_T"]["exponent"] == "29/17");
  BOOST_TEST(plan["upper_bound"]["kind"] == "upper");
  BOOST_TEST(plan["upper_bound"]["at_T"]["rate"] == "O(eps^(-7))");
}

BOOST_AUTO_TEST_CASE(the_engine_tables_rows_make_a_derivation_table_without_overfull_boxes) {
  // Issue 46, defect 7: a derivation table was 13 pt overfull. Every row of the engine table on
  // its architecture, at T = 32 where the row allows it (the rate at T and in T both print),
  // with the smallest architecture the row expects (its plan prints in the last column).
  th::Engine engine(catalogue());
  const toml::table table = toml::parse_file(INFOFLOW_TEST_DATA_DIR "/engine_targets.toml");
  // A formula compiles once (its E4 and E5 samples take most of the time), whatever its rows.
  std::map<std::string, th::Target> targets;
  std::vector<rp::Derivation> rows;
  for (const toml::node& node : *table["case"].as_array()) {
    const toml::table& row = *node.as_table();
    tg::Bindings bindings;
    if (const toml::table* set = row["set"].as_table()) {
      for (const auto& [k, v] : *set) bindings[std::string(k.str())] = v.value_or(0L);
    }
    const std::string text = row["formula"].value_or(std::string());
    std::string key = text;
    for (const auto& [name, value] : bindings) key += ";" + name + "=" + std::to_string(value);
    auto it = targets.find(key);
    if (it == targets.end()) {
      const std::string name = "row" + std::to_string(targets.size() + 1);
      const tg::Formula formula = tg::Formula::parse(text);
      tg::Bindings at_32 = bindings;
      at_32["T"] = 32;
      try {
        it = targets.emplace(key, th::Target(name, formula, at_32, "retrieval")).first;
      } catch (const infoflow::InputError&) {  // T = 32 too few for it: T stays symbolic
        it = targets.emplace(key, th::Target(name, formula, bindings, "retrieval")).first;
      }
    }
    const th::Target& target = it->second;
    const bool positions = row["pe"].value_or(false);
    rp::Derivation d;
    d.target = &target;
    d.plan =
        engine.plan(target, architecture(heads_of(row["on"].value_or(std::string())), positions));
    const std::string smallest = row["smallest"].value_or(std::string());
    if (smallest == "undecided") {
      d.search.undecided = "outside the framework";
    } else if (smallest != "none") {
      d.search.smallest = engine.plan(target, architecture(heads_of(smallest), positions));
    }
    rows.push_back(std::move(d));
  }
  const std::string tex = rp::latex_document(rp::derivations_latex(rows, catalogue()), catalogue());
  if (std::system("command -v pdflatex >/dev/null 2>&1") != 0) {
    BOOST_TEST_REQUIRE(std::getenv("INFOFLOW_REQUIRE_PDFLATEX") == nullptr,
                       "pdflatex is required here but not installed");
    BOOST_TEST_MESSAGE("pdflatex not installed: the table was written, not compiled");
    return;
  }
  const TempDir t;
  std::ofstream(t.dir() / "rows.tex") << tex;
  const std::string command = "cd '" + t.dir().string() +
                              "' && pdflatex -interaction=nonstopmode -halt-on-error rows.tex "
                              "> /dev/null 2>&1";
  BOOST_TEST_REQUIRE(std::system(command.c_str()) == 0, read(t.dir() / "rows.log").substr(0, 2000));
  const std::string log = read(t.dir() / "rows.log");
  const std::regex overfull(R"(Overfull \\[hv]box \(([0-9.]+)pt too (wide|high)\)[^\n]*\n[^\n]*)");
  std::string found;
  for (auto it = std::sregex_iterator(log.begin(), log.end(), overfull);
       it != std::sregex_iterator(); ++it)
    found += it->str() + "\n";
  BOOST_TEST(found.empty(), "overfull boxes:\n" << found);
}

BOOST_AUTO_TEST_SUITE_END()
