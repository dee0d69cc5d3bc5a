// Metamorphic checks of the engine: random targets from the grammar, each written again in ways
// that leave its value unchanged on every sequence (commuted sums, added zero terms, y as
// (y + y) / 2, renamed indices, an extremum as the negated opposite extremum, positive scaling,
// polynomials expanded or factored, a symmetric body under s < t, reductions that cancel, sums
// over fixed positions). The verdict and the smallest efficient architecture must not change.
// Each class of disagreement found has a row in tests/data/engine_targets.toml.
#include <map>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "infoflow/theorems/canonical_forms.hpp"
#include "infoflow/theorems/engine.hpp"
#include "theorems/target_generator.hpp"

namespace th = infoflow::theorems;
namespace tg = infoflow::targets;

using namespace infoflow::test_targets;  // NOLINT(google-build-using-namespace)

namespace {

/// The rewrites of `f` (name, text), each equal to it in value.
std::vector<std::pair<std::string, std::string>> rewrites(const Target& f, Generator& gen) {
  std::vector<std::pair<std::string, std::string>> out;
  const std::string plain = text_of(f);
  for (std::size_t i = 0; i < f.terms.size(); ++i) {
    for (const Form form : forms_of(f.terms[i].shape.kind)) {
      Target g = f;
      g.forms[i] = form;
      const char* names[] = {"", "dual", "scaled", "swapped", "expanded", "ordered", "ranked"};
      out.emplace_back(names[static_cast<int>(form)], text_of(g));
    }
  }
  if (f.terms.size() >= 2) {
    Target g = f;
    std::swap(g.terms[0], g.terms[1]);
    out.emplace_back("commuted", text_of(g));
  }
  Target renamed = f;
  renamed.names = {"u", "v"};
  out.emplace_back("renamed", text_of(renamed));
  out.emplace_back("zero", plain + " + 0 * " + text_of(Target{{{gen.shape(), 1}}, {Form::kPlain}, {}}));
  out.emplace_back("halved", "(" + plain + " + " + plain + ") / 2");
  const std::string other = text_of(Target{{{gen.shape(), 1}}, {Form::kPlain}, {}});
  out.emplace_back("cancelled", plain + " + " + other + " - " + other);
  return out;
}

struct Answer {
  std::string verdict;
  std::string smallest;
  bool operator==(const Answer&) const = default;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(engine_metamorphic)

BOOST_AUTO_TEST_CASE(rewrites_that_keep_the_value_keep_the_verdict_and_the_smallest_architecture) {
  constexpr int kTargets = 300;
  const th::Catalogue catalogue = th::Catalogue::load_directory(INFOFLOW_CATALOGUE_DIR);
  th::Engine engine(catalogue);
  th::Architecture base;
  base.heads = {1, 1};
  base.embedding = 16;
  base.token_dim = 4;
  base.head_dim = 4;
  const auto answer = [&](const std::string& text, bool positional) {
    th::Architecture a = base;
    a.positional = infoflow::core::encoding_for(positional);
    const th::Target t("t", tg::Formula::parse(text), {}, "retrieval");
    const th::Search s = engine.search(t, a, 3, 3);
    std::string smallest = s.undecided ? "undecided" : "none";
    if (s.smallest) {
      smallest.clear();
      for (const long h : s.smallest->architecture.heads)
        smallest += (smallest.empty() ? "" : ",") + std::to_string(h);
    }
    return Answer{th::to_text(engine.plan(t, a).verdict), smallest};
  };
  Generator gen(20261205);
  std::map<std::string, int> disagreements;
  long pairs = 0;
  for (int n = 0; n < kTargets; ++n) {
    const Target f = gen.target();
    const std::string written = text_of(f);
    // Fixed positions need a positional encoding to be computable at all.
    const bool positional = reads_positions(f);
    const Answer reference = answer(written, positional);
    for (const auto& [name, text] : rewrites(f, gen)) {
      ++pairs;
      const Answer other = answer(text, positional);
      BOOST_TEST_CONTEXT(written << "  vs (" << name << ")  " << text) {
        BOOST_TEST(other.verdict == reference.verdict);
        BOOST_TEST(other.smallest == reference.smallest);
      }
      if (!(other == reference)) ++disagreements[name];
    }
  }
  std::string summary;
  for (const auto& [name, count] : disagreements) summary += " " + name + ": " + std::to_string(count);
  BOOST_TEST_MESSAGE(kTargets << " targets, " << pairs << " rewrites, disagreements:"
                              << (summary.empty() ? " none" : summary));
  BOOST_TEST(pairs >= 2000);
}

BOOST_AUTO_TEST_SUITE_END()
