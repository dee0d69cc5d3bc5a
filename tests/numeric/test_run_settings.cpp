// The run settings' table (numeric/run_settings.hpp): one name a key, read back as written,
// old names still read, and each key's own check.
#include <set>
#include <string>

#include <boost/test/unit_test.hpp>

#include "infoflow/core/error.hpp"
#include "infoflow/numeric/run_settings.hpp"

#include "common/input_error.hpp"

namespace nm = infoflow::numeric;

namespace {

std::string error_of(const std::string& name, const nm::SettingValue& value) {
  nm::RunSettings s;
  return infoflow::testing::input_error_of([&] { nm::find_setting(name)->set(s, value); });
}

}  // namespace

BOOST_AUTO_TEST_SUITE(run_settings)

BOOST_AUTO_TEST_CASE(every_key_has_one_name_and_one_option) {
  std::set<std::string> names;
  std::set<std::string> options;
  for (const nm::Setting& s : nm::run_settings()) {
    BOOST_TEST(names.insert(std::string(s.name)).second, s.name);
    if (!s.old_name.empty()) BOOST_TEST(names.insert(std::string(s.old_name)).second, s.old_name);
    BOOST_TEST(options.insert(s.option()).second, s.option());
    BOOST_TEST(!s.help.empty(), s.name);
  }
  BOOST_TEST(nm::find_setting("val_size")->option() == "--val-size");
  BOOST_TEST(nm::find_setting("no_such_key") == nullptr);
}

BOOST_AUTO_TEST_CASE(a_default_reads_back_as_itself) {
  const nm::RunSettings defaults;
  for (const nm::Setting& s : nm::run_settings()) {
    if (s.type == nm::SettingType::kFlag || !s.shows_default) continue;
    nm::RunSettings again;
    s.set(again, nm::parse_setting(s, nm::setting_text(s.get(defaults))));
    BOOST_TEST((s.get(again) == s.get(defaults)), s.name);
  }
}

BOOST_AUTO_TEST_CASE(the_names_train_json_used_before_still_read) {
  for (const auto& [old_name, name] :
       std::vector<std::pair<std::string, std::string>>{{"positional", "pe"},
                                                        {"learning_rate", "lr"},
                                                        {"validation_size", "val_size"},
                                                        {"attention_scale", "scale"},
                                                        {"pre_layer_norm", "pre_ln"}}) {
    BOOST_TEST_REQUIRE(nm::find_setting(old_name) != nullptr, old_name);
    BOOST_TEST(nm::find_setting(old_name)->name == name);
  }
}

BOOST_AUTO_TEST_CASE(a_value_is_checked_by_its_key) {
  nm::RunSettings s;
  nm::find_setting("heads")->set(s, nm::parse_setting(*nm::find_setting("heads"), "3,2,1"));
  BOOST_TEST((s.model.heads == std::vector<nm::Index>{3, 2, 1}));
  nm::find_setting("pe")->set(s, std::string("learned"));
  BOOST_TEST((s.positional == nm::PositionalEncoding::kLearned));
  nm::find_setting("seed")->set(
      s, nm::parse_setting(*nm::find_setting("seed"), "18446744073709551615"));
  BOOST_TEST(s.training.seed == 18446744073709551615ULL);
  BOOST_TEST(error_of("task_seed", nm::Index{-1}) == "a seed must be zero or positive (got -1)");
  BOOST_TEST(error_of("norm", std::string("cubic")) ==
             "norm must be squared or plain (got 'cubic')");
  BOOST_TEST(error_of("d", nm::Index{0}) == "d must be between 1 and 65536 (got 0)");
  BOOST_TEST(error_of("lr", std::string("fast")) == "expected a number");
  BOOST_TEST(error_of("pe", std::string("rotary")).starts_with("unknown positional encoding"));
  BOOST_CHECK_THROW((void)nm::parse_setting(*nm::find_setting("steps"), "10x"),
                    infoflow::InputError);
  BOOST_CHECK_THROW((void)nm::parse_setting(*nm::find_setting("seed"), "-1"), infoflow::InputError);
}

BOOST_AUTO_TEST_SUITE_END()
