// Random formulas from the grammar: each compiled reduction against the same reduction walked
// node by node. A formula and its "walked twin" differ only by a `+ 0` (or `+ 0 * x[1]`) where
// the compiler looks for a shape: the twin means the same, but no kernel matches it, so the
// tree walk computes it. Adding zero changes no bit, so any difference is the compiled kernel's.
// Per-token sums must agree bit for bit; blocked sums (matrix products) to 1e-12 relative.
#include <cmath>
#include <cstdint>
#include <string>

#include <boost/test/unit_test.hpp>

#include "infoflow/core/random.hpp"
#include "infoflow/targets/evaluator.hpp"

namespace tg = infoflow::targets;

namespace {

/// A formula and its walked twin.
struct Twin {
  std::string compiled;
  std::string walked;
};

class Generator {
 public:
  explicit Generator(std::uint64_t seed) : rng_(seed) {}

  /// Integers the formulas use; T >= 3 so that every shape has index tuples.
  long tokens = 0;
  long members = 0;  // D, the size of a family
  long rank = 0;     // k of kth, and K of a leading sum, both <= T

  void draw_integers() {
    tokens = 3 + pick(7);
    members = 1 + pick(3);
    rank = 1 + pick(tokens);
    next_name_ = 0;
  }

  /// One compiled shape, wrapped in arithmetic shared by both sides.
  Twin formula() {
    Twin f = shape();
    switch (pick(7)) {
      case 0:
        return f;
      case 1:
        return {"2.5 * " + paren(f.compiled), "2.5 * " + paren(f.walked)};
      case 2: {
        const Twin g = shape();
        return {f.compiled + " - " + g.compiled, f.walked + " - " + g.walked};
      }
      case 3: {
        const Twin g = shape();
        return {paren(f.compiled) + " * " + paren(g.compiled),
                paren(f.walked) + " * " + paren(g.walked)};
      }
      case 4:
        return {"tanh(" + f.compiled + ")", "tanh(" + f.walked + ")"};
      case 5:
        return {"exp(" + f.compiled + " / 8)", "exp(" + f.walked + " / 8)"};
      default:
        return {"abs(" + f.compiled + ") + 1", "abs(" + f.walked + ") + 1"};
    }
  }

 private:
  int pick(long n) { return static_cast<int>(rng_.next() % static_cast<std::uint64_t>(n)); }
  std::string fresh(const char* stem) { return stem + std::to_string(++next_name_); }
  static std::string paren(const std::string& s) { return "(" + s + ")"; }
  std::string extremum() { return pick(2) == 0 ? "max" : "min"; }
  std::string any_op() {
    const int o = pick(3);
    return o == 0 ? "max" : o == 1 ? "min" : "sum";
  }

  Twin shape() {
    switch (pick(7)) {
      case 0:
        return pairs();
      case 1:
        return tokens_shape();
      case 2:
        return family_tokens();
      case 3:
        return ranked();
      case 4:
        return triples();
      case 5:
        return chain();
      default:
        return leading_sum();
    }
  }

  // max|min|sum(s, t) dot(x[s], x[t]) or bilinear(A, x[s], x[t]), s != t, s < t or neither.
  Twin pairs() {
    const std::string op = any_op();
    const int c = pick(3);
    const std::string binders = c == 0 ? "s, t" : c == 1 ? "s != t" : "s < t";
    const bool swapped = pick(2) == 0;
    const std::string args = swapped ? "x[t], x[s]" : "x[s], x[t]";
    if (pick(3) == 0) {
      const std::string body = "dot(" + args + ")";
      return {op + "(" + binders + ") " + body, op + "(" + binders + ") (" + body + " + 0)"};
    }
    if (pick(2) == 0) {  // a family member per i of an outer sum
      const std::string a = fresh("A");
      const std::string body = "bilinear(" + a + "[i], " + args + ")";
      const std::string range = "sum(i = 1.." + std::to_string(members) + ") ";
      return {range + op + "(" + binders + ") " + body,
              range + op + "(" + binders + ") (" + body + " + 0)"};
    }
    const std::string body = "bilinear(" + fresh("A") + ", " + args + ")";
    return {op + "(" + binders + ") " + body, op + "(" + binders + ") (" + body + " + 0)"};
  }

  // max|min|sum(t) dot(a, x[t]).
  Twin tokens_shape() {
    const std::string op = any_op();
    const std::string a = fresh("a");
    const std::string body = pick(2) == 0 ? "dot(" + a + ", x[t])" : "dot(x[t], " + a + ")";
    return {op + "(t) " + body, op + "(t) (" + body + " + 0)"};
  }

  // sum(i = 1..D) max|min(t) dot(a[i], x[t]): the family as one matrix when blocked.
  Twin family_tokens() {
    const std::string op = extremum();
    const std::string body = "dot(" + fresh("a") + "[i], x[t])";
    const std::string range = "sum(i = 1.." + std::to_string(members) + ") ";
    return {range + op + "(t) " + body, range + op + "(t) (" + body + " + 0)"};
  }

  // kth(k, t by dot(a, x[t])) dot(b, x[t]), or kth(k, t) dot(a, x[t]).
  Twin ranked() {
    const std::string k = std::to_string(rank);
    const std::string a = "dot(" + fresh("a") + ", x[t])";
    if (pick(2) == 0) {
      return {"kth(" + k + ", t) " + a, "kth(" + k + ", t) (" + a + " + 0)"};
    }
    const std::string b = "dot(x[t], " + fresh("b") + ")";
    // Not "+ 0" in the key: a key is read without its monotone function (monotone.hpp).
    return {"kth(" + k + ", t by " + a + ") " + b,
            "kth(" + k + ", t by (" + a + " + 0 * " + a + ")) (" + b + " + 0)"};
  }

  // max|min(t1 < t2 < t3) sqnorm|norm(x[t1] + x[t2] + x[t3]).
  Twin triples() {
    const std::string body =
        std::string(pick(2) == 0 ? "sqnorm" : "norm") + "(x[t1] + x[t2] + x[t3])";
    const std::string head = extremum() + "(t1 < t2 < t3) ";
    return {head + body, head + "(" + body + " + 0)"};
  }

  // max|min over three indices of F(.,.) +|- G(.,.), pairwise forms sharing one index, in any
  // order of binders and arguments; a form is dot, bilinear or a family member of an outer sum.
  Twin chain() {
    std::string index[3] = {"r", "s", "t"};
    for (int i = 2; i > 0; --i) std::swap(index[i], index[pick(i + 1)]);
    const std::string& shared = index[0];
    std::string outer;
    auto form = [&](const std::string& other) {
      const std::string args = pick(2) == 0 ? "x[" + shared + "], x[" + other + "]"
                                            : "x[" + other + "], x[" + shared + "]";
      const int kind = pick(3);
      if (kind == 0) return "dot(" + args + ")";
      if (kind == 1 || !outer.empty()) return "bilinear(" + fresh("A") + ", " + args + ")";
      outer = "sum(i = 1.." + std::to_string(members) + ") ";
      return "bilinear(" + fresh("A") + "[i], " + args + ")";
    };
    const std::string body =
        form(index[1]) + (pick(2) == 0 ? " + " : " - ") + form(index[2]);
    std::string binders[3] = {"r", "s", "t"};
    for (int i = 2; i > 0; --i) std::swap(binders[i], binders[pick(i + 1)]);
    const std::string head =
        outer + extremum() + "(" + binders[0] + ", " + binders[1] + ", " + binders[2] + ") ";
    return {head + "(" + body + ")", head + "(" + body + " + 0)"};
  }

  // sqnorm(sum(p = 1..K) x[p]).
  Twin leading_sum() {
    const std::string sum = "sum(p = 1.." + std::to_string(rank) + ") x[p]";
    return {"sqnorm(" + sum + ")", "sqnorm(" + sum + " + 0 * x[1])"};
  }

  infoflow::Rng rng_;
  int next_name_ = 0;
};

Eigen::MatrixXd sequences(infoflow::Rng& rng, long d, long columns) {
  Eigen::MatrixXd x(d, columns);
  for (long j = 0; j < columns; ++j)
    for (long i = 0; i < d; ++i) x(i, j) = rng.normal();
  return x;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(formula_random)

BOOST_AUTO_TEST_CASE(compiled_reductions_agree_with_the_tree_walk_on_random_formulas) {
  constexpr int kFormulas = 400;
  constexpr long kSequences = 12;
  Generator gen(20261203);
  infoflow::Rng data(7);
  int per_token_equal = 0;
  double blocked_worst = 0;
  for (int n = 0; n < kFormulas; ++n) {
    gen.draw_integers();
    const Twin f = gen.formula();
    const long d = 1 + n % 5;
    const tg::Bindings b{{"T", gen.tokens}};
    const Eigen::MatrixXd x = sequences(data, d, kSequences * gen.tokens);
    const std::uint64_t task_seed = 100 + static_cast<std::uint64_t>(n);
    BOOST_TEST_CONTEXT(f.compiled << "  (T = " << gen.tokens << ", d = " << d << ")") {
      const tg::Evaluator walked(tg::Formula::parse(f.walked), b, d, task_seed);
      Eigen::VectorXd reference(kSequences);
      walked(x, reference);
      for (const tg::Summation order : {tg::Summation::kPerToken, tg::Summation::kBlocked}) {
        const tg::Evaluator compiled(tg::Formula::parse(f.compiled), b, d, task_seed, order);
        Eigen::VectorXd y(kSequences);
        compiled(x, y);
        for (long i = 0; i < kSequences; ++i) {
          if (order == tg::Summation::kPerToken) {
            BOOST_TEST(y(i) == reference(i));
          } else {
            const double scale = 1 + std::abs(reference(i));
            BOOST_TEST(std::abs(y(i) - reference(i)) <= 1e-12 * scale);
            blocked_worst = std::max(blocked_worst, std::abs(y(i) - reference(i)) / scale);
          }
        }
        if (order == tg::Summation::kPerToken && y == reference) ++per_token_equal;
      }
    }
  }
  BOOST_TEST_MESSAGE(per_token_equal << " of " << kFormulas
                                     << " formulas bit for bit per token; blocked within "
                                     << blocked_worst);
}

BOOST_AUTO_TEST_SUITE_END()
