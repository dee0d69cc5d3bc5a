#ifndef INFOFLOW_TESTS_THEOREMS_TARGET_GENERATOR_HPP_
#define INFOFLOW_TESTS_THEOREMS_TARGET_GENERATOR_HPP_

/// \file
/// The engine tests' generator of random targets from the grammar: sums of one or two terms
/// (extrema of linear scores, pairs, k-th largests, means, sums over pairs, selections, the
/// top-three sum, fixed positions), each term writable in forms equal to it in value. The
/// metamorphic test (test_engine_metamorphic.cpp) and the planner oracle
/// (test_planner_oracle.cpp) draw from it.

#include <cstdint>
#include <string>
#include <vector>

#include "infoflow/core/random.hpp"

namespace infoflow::test_targets {

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

inline std::vector<Form> forms_of(Kind kind) {
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

inline std::string text_of(const Shape& sh, Form form, const Names& n) {
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

inline std::string number_text(double c) {
  if (c == 2) return "2 * ";
  if (c == -0.5) return "0.5 * ";
  return "";
}

inline std::string text_of(const Target& f) {
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

/// Whether a target reads fixed positions (and so needs a positional encoding to be computable).
inline bool reads_positions(const Target& f) {
  for (const Term& t : f.terms) {
    if (t.shape.kind == Kind::kPositions) return true;
  }
  return false;
}

}  // namespace infoflow::test_targets

#endif  // INFOFLOW_TESTS_THEOREMS_TARGET_GENERATOR_HPP_
