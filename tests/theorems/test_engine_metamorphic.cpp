// Metamorphic checks of the engine: random targets from the grammar, each written again in ways
// that leave its value unchanged on every sequence (commuted sums, added zero terms, y as
// (y + y) / 2, renamed indices, an extremum as the negated opposite extremum, positive scaling,
// polynomials expanded or factored, a symmetric body under s < t, reductions that cancel, sums
// over fixed positions). The verdict and the smallest efficient architecture must not change.
// Each class of disagreement found has a row in tests/data/engine_targets.toml.
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "infoflow/core/random.hpp"
#include "infoflow/theorems/canonical_forms.hpp"
#include "infoflow/theorems/engine.hpp"

namespace th = infoflow::theorems;
namespace tg = infoflow::targets;

namespace {

/// How a term is written: each form is equal in value to kPlain.
enum class Form {
  kPlain,
  kDual,      ///< max(t) y as -min(t) (-y)
  kScaled,    ///< max(t) y as 0.5 * max(t) (2 * y)
  kSwapped,   ///< dot(a, x[t]) as dot(x[t], a)
  kExpanded,  ///< a polynomial expanded (or a sum factored)
  kOrdered,   ///< a symmetric body under s != t, written under s < t
  kRanked,    ///< max as kth(1, ...); a symmetric max(s != t) as kth(2, s != t)
};

enum class Kind {
  kLinear,     ///< op(t) dot(p, x[t])
  kTwoLinear,  ///< op(t) (dot(p, x[t]) + dot(q, x[t]))
  kPair,       ///< op(s != t) dot(x[s], x[t])
  kRank,       ///< kth(k, t) dot(p, x[t])
  kMean,       ///< sum(t) dot(p, x[t]) or sum(t) sqnorm(x[t])
  kPairSum,    ///< sum(s != t) dot(x[s], x[t])
  kSelection,  ///< op(t by dot(p, x[t])) dot(q, x[t])
  kTopThree,   ///< max(t) y + kth(2, t) y + kth(3, t) y
  kPositions,  ///< dot(p, x[1]) + dot(p, x[2])
};
constexpr int kKinds = 9;

struct Shape {
  Kind kind = Kind::kLinear;
  bool max = true;
  std::string p = "a";
  std::string q = "b";
  long k = 2;
  bool square = false;  ///< kMean: sqnorm(x[t]) rather than dot(p, x[t])
};

struct Names {
  std::string s = "s";
  std::string t = "t";
};

std::vector<Form> forms_of(Kind kind) {
  switch (kind) {
    case Kind::kLinear:
      return {Form::kDual, Form::kScaled, Form::kSwapped, Form::kRanked};
    case Kind::kTwoLinear:
      return {Form::kDual, Form::kScaled, Form::kSwapped, Form::kExpanded};
    case Kind::kPair:
      return {Form::kDual, Form::kScaled, Form::kSwapped, Form::kOrdered, Form::kRanked,
              Form::kExpanded};
    case Kind::kRank:
      return {Form::kScaled, Form::kSwapped};
    case Kind::kMean:
      return {Form::kDual, Form::kScaled, Form::kSwapped};
    case Kind::kPairSum:
      return {Form::kExpanded, Form::kOrdered, Form::kSwapped, Form::kScaled};
    case Kind::kSelection:
      return {Form::kDual, Form::kScaled, Form::kSwapped};
    case Kind::kTopThree:
      return {Form::kSwapped, Form::kScaled};
    case Kind::kPositions:
      return {Form::kExpanded, Form::kSwapped};
  }
  return {};
}

std::string text_of(const Shape& sh, Form form, const Names& n) {
  const std::string& s = n.s;
  const std::string& t = n.t;
  const std::string op = sh.max ? "max" : "min";
  const std::string opposite = sh.max ? "min" : "max";
  const bool swapped = form == Form::kSwapped;
  const auto lin = [&](const std::string& p, const std::string& i) {
    return swapped ? "dot(x[" + i + "], " + p + ")" : "dot(" + p + ", x[" + i + "])";
  };
  const std::string pair = swapped ? "dot(x[" + t + "], x[" + s + "])" : "dot(x[" + s + "], x[" + t + "])";
  switch (sh.kind) {
    case Kind::kLinear: {
      const std::string y = lin(sh.p, t);
      if (form == Form::kDual) return "-" + opposite + "(" + t + ") (-" + y + ")";
      if (form == Form::kScaled) return "0.5 * " + op + "(" + t + ") (2 * " + y + ")";
      if (form == Form::kRanked && sh.max) return "kth(1, " + t + ") " + y;
      return op + "(" + t + ") " + y;
    }
    case Kind::kTwoLinear: {
      const std::string y = "(" + lin(sh.p, t) + " + " + lin(sh.q, t) + ")";
      if (form == Form::kDual) return "-" + opposite + "(" + t + ") (-" + lin(sh.p, t) + " - " + lin(sh.q, t) + ")";
      if (form == Form::kScaled) return "0.5 * " + op + "(" + t + ") (2 * " + y + ")";
      if (form == Form::kExpanded)
        return op + "(" + t + ") (dot(" + sh.p + ", x[" + t + "] + x[" + t + "]) / 2 + " + lin(sh.q, t) + ")";
      return op + "(" + t + ") " + y;
    }
    case Kind::kPair: {
      const std::string binders = s + (form == Form::kOrdered ? " < " : " != ") + t;
      if (form == Form::kDual) return "-" + opposite + "(" + binders + ") (-" + pair + ")";
      if (form == Form::kScaled) return "0.5 * " + op + "(" + binders + ") (2 * " + pair + ")";
      if (form == Form::kRanked && sh.max) return "kth(2, " + binders + ") " + pair;
      if (form == Form::kExpanded)  // <x_s, x_t> = (|x_s + x_t|^2 - |x_s|^2 - |x_t|^2) / 2
        return op + "(" + binders + ") ((sqnorm(x[" + s + "] + x[" + t + "]) - sqnorm(x[" + s +
               "]) - sqnorm(x[" + t + "])) / 2)";
      return op + "(" + binders + ") " + pair;
    }
    case Kind::kRank: {
      const std::string k = std::to_string(sh.k);
      const std::string y = lin(sh.p, t);
      if (form == Form::kScaled) return "0.5 * kth(" + k + ", " + t + ") (2 * " + y + ")";
      return "kth(" + k + ", " + t + ") " + y;
    }
    case Kind::kMean: {
      const std::string y = sh.square ? (swapped ? "dot(x[" + t + "], x[" + t + "])" : "sqnorm(x[" + t + "])")
                                      : lin(sh.p, t);
      if (form == Form::kDual) return "-sum(" + t + ") (-" + y + ")";
      if (form == Form::kScaled) return "3 * sum(" + t + ") (" + y + " / 3)";
      return "sum(" + t + ") " + y;
    }
    case Kind::kPairSum: {
      if (form == Form::kExpanded) return "(sqnorm(sum(" + t + ") x[" + t + "]) - sum(" + t + ") sqnorm(x[" + t + "]))";
      if (form == Form::kOrdered) return "2 * sum(" + s + " < " + t + ") " + pair;
      if (form == Form::kScaled) return "0.5 * sum(" + s + " != " + t + ") (2 * " + pair + ")";
      return "sum(" + s + " != " + t + ") " + pair;
    }
    case Kind::kSelection: {
      const std::string key = lin(sh.p, t);
      const std::string value = lin(sh.q, t);
      if (form == Form::kDual) return opposite + "(" + t + " by -" + key + ") " + value;
      if (form == Form::kScaled) return op + "(" + t + " by 2 * " + key + ") " + value;
      return op + "(" + t + " by " + key + ") " + value;
    }
    case Kind::kTopThree: {
      const std::string y = lin(sh.p, t);
      if (form == Form::kScaled)
        return "(max(" + t + ") " + y + " + kth(2, " + t + ") (2 * " + y + ") / 2 + kth(3, " + t + ") " + y + ")";
      return "(max(" + t + ") " + y + " + kth(2, " + t + ") " + y + " + kth(3, " + t + ") " + y + ")";
    }
    case Kind::kPositions: {
      if (form == Form::kExpanded) return "dot(" + sh.p + ", x[1] + x[2])";
      if (swapped) return "(dot(x[2], " + sh.p + ") + dot(x[1], " + sh.p + "))";
      return "(dot(" + sh.p + ", x[1]) + dot(" + sh.p + ", x[2]))";
    }
  }
  return "";
}

struct Term {
  Shape shape;
  double coefficient = 1;  ///< 1, -1, 2 or -0.5
};

/// A target: a sum of terms, each with its form.
struct Target {
  std::vector<Term> terms;
  std::vector<Form> forms;
  Names names;
};

std::string number_text(double c) {
  if (c == 2) return "2 * ";
  if (c == -0.5) return "0.5 * ";
  return "";
}

std::string text_of(const Target& f) {
  std::string out;
  for (std::size_t i = 0; i < f.terms.size(); ++i) {
    const Term& term = f.terms[i];
    const bool negative = term.coefficient < 0;
    const std::string body = number_text(term.coefficient) + text_of(term.shape, f.forms[i], f.names);
    if (i == 0)
      out = negative ? "-(" + body + ")" : body;
    else
      out += (negative ? " - " : " + ") + body;
  }
  return out;
}

class Generator {
 public:
  explicit Generator(std::uint64_t seed) : rng_(seed) {}

  int pick(long n) { return static_cast<int>(rng_.next() % static_cast<std::uint64_t>(n)); }

  Shape shape() {
    Shape sh;
    sh.kind = static_cast<Kind>(pick(kKinds));
    sh.max = pick(2) == 0;
    const char* params[] = {"a", "b", "c"};
    sh.p = params[pick(3)];
    sh.q = sh.p == "a" ? "b" : "a";
    sh.k = 2 + pick(2);
    sh.square = pick(2) == 0;
    return sh;
  }

  Target target() {
    Target f;
    const int terms = 1 + pick(2);
    const double coefficients[] = {1, 1, -1, 2, -0.5};
    for (int i = 0; i < terms; ++i) {
      f.terms.push_back({shape(), coefficients[pick(5)]});
      f.forms.push_back(Form::kPlain);
    }
    return f;
  }

 private:
  infoflow::Rng rng_;
};

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
    const bool positional = std::any_of(f.terms.begin(), f.terms.end(), [](const Term& t) {
      return t.shape.kind == Kind::kPositions;
    });
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
