// The quantity compiler: formula -> quantities, by unrolling parameter ranges and eliminating
// token indices (docs/infoflow_engine.md, "Quantities").
#include "infoflow/theorems/program.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "infoflow/core/error.hpp"
#include "infoflow/symbolic/symbols.hpp"
#include "infoflow/targets/monotone.hpp"
#include "infoflow/targets/node_algebra.hpp"
#include "infoflow/theorems/canonical_forms.hpp"

#include "scope.hpp"
#include "values.hpp"

namespace infoflow::theorems {

namespace {

using targets::Node;
using K = targets::Node::Kind;
using targets::literal_number;
using targets::mentions_token;
using targets::monotone_step;
using targets::MonotoneStep;
using targets::names_index;
using targets::product_of;
using targets::product_parts;
using targets::renamed;
using targets::subscripts_x;
using targets::substitute;
using targets::sum_of;
using targets::token_indices_read;

/// How many token indices a search over elimination orders tries exhaustively.
constexpr std::size_t kExhaustiveIndices = 6;
/// The most copies unrolling may make (a guard against sum(i = 1..1000000)).
constexpr long kMaxCopies = 4096;
/// The highest rank of a k-th largest: R2 chains k masked maxima, a quantity each, and planning
/// grows with k^2 (kth(1000000, t) once ran for minutes); no architecture searched places more
/// than a few dozen.
constexpr long kMaxRank = 1024;

/// A text that two expressions share iff they are equal up to the order of commutative
/// operands and the renaming `rename` (used for symmetry and for merging identical actions).
std::string canonical(const Node& n, const std::map<std::string, std::string>& rename) {  // NOLINT(misc-no-recursion)
  auto sub = [&](const Node& a) { return canonical(a, rename); };
  switch (n.kind) {
    case K::kAdd:
    case K::kSub:
    case K::kMul: {
      std::vector<std::string> parts;
      std::function<void(const Node&, bool)> flatten = [&](const Node& m, bool negative) {
        const bool additive = n.kind != K::kMul;
        if (additive && (m.kind == K::kAdd || m.kind == K::kSub)) {
          flatten(m.args[0], negative);
          flatten(m.args[1], m.kind == K::kSub ? !negative : negative);
        } else if (!additive && m.kind == K::kMul) {
          flatten(m.args[0], false);
          flatten(m.args[1], false);
        } else {
          parts.push_back((negative ? "-" : "+") + sub(m));
        }
      };
      flatten(n, false);
      std::sort(parts.begin(), parts.end());
      std::string out = n.kind == K::kMul ? "mul(" : "add(";
      for (const std::string& p : parts) out += p + ",";
      return out + ")";
    }
    case K::kRef: {
      std::string index = n.index;
      if (const auto it = rename.find(index); it != rename.end()) index = it->second;
      return fmt::format("{}[{}|{}|{}|{}]", n.name, index, n.position, n.position_name, n.offset);
    }
    case K::kCall: {
      std::vector<std::string> args;
      for (const Node& a : n.args) args.push_back(sub(a));
      if (n.name == "dot") std::sort(args.begin(), args.end());
      return n.name + "(" + fmt::format("{}", fmt::join(args, ",")) + ")";
    }
    case K::kReduce: {
      std::string out = targets::to_text(n);  // bound names inside stay as written
      for (const auto& [from, to] : rename) out += "|" + from + "=" + to;
      return out;
    }
    default: {
      std::string out = std::to_string(static_cast<int>(n.kind)) + ":" + std::to_string(n.number) + "(";
      for (const Node& a : n.args) out += sub(a) + ",";
      return out + ")";
    }
  }
}

/// The slope of `g` in the subexpression `inner` (g affine in it, its numbers literal), if known.
std::optional<double> slope_in(const Node& g, const Node& inner) {  // NOLINT(misc-no-recursion)
  if (targets::same_expression(g, inner)) return 1.0;
  const std::function<bool(const Node&)> mentions = [&](const Node& m) {
    return targets::same_expression(m, inner) ||
           std::any_of(m.args.begin(), m.args.end(), mentions);
  };
  if (!mentions(g)) return 0.0;
  if (g.kind == K::kNeg) {
    const std::optional<double> a = slope_in(g.args[0], inner);
    return a ? std::optional<double>(-*a) : std::nullopt;
  }
  if (g.kind == K::kAdd || g.kind == K::kSub) {
    const std::optional<double> a = slope_in(g.args[0], inner);
    const std::optional<double> b = slope_in(g.args[1], inner);
    if (!a || !b) return std::nullopt;
    return g.kind == K::kAdd ? *a + *b : *a - *b;
  }
  if (g.kind == K::kMul || g.kind == K::kDiv) {
    const bool left = mentions(g.args[0]);
    const std::optional<double> factor = literal_number(g.args[left ? 1 : 0]);
    const std::optional<double> a = slope_in(g.args[left ? 0 : 1], inner);
    if (!factor || !a || (g.kind == K::kDiv && (!left || *factor == 0))) return std::nullopt;
    return g.kind == K::kMul ? *a * *factor : *a / *factor;
  }
  return std::nullopt;
}

/// A term of an objective and the constant factor taken off it: its sign and the constants it
/// was multiplied or divided by. The factor changes neither the indices the term couples nor
/// whether attention forms its score, but it is part of what the term maximises: the maxima of
/// y and of -y (or c y, c of unknown sign) are two actions, not one.
struct Term {
  const Node* node = nullptr;
  bool negative = false;
  std::vector<std::string> constants;  ///< "*c" and "/c", c in canonical form, but numbers
  double magnitude = 1;                ///< the numbers' product, without their signs
  std::vector<std::string> written;    ///< every factor as written, numbers too, for the text
  bool zero = false;                   ///< a factor is the number 0: the term vanishes

  [[nodiscard]] Term negated() const {
    Term t = *this;
    t.negative = !t.negative;
    return t;
  }
  [[nodiscard]] Term scaled(const char* op, const Node& constant) const {
    Term t = *this;
    const std::string text = targets::to_text(constant);
    t.written.push_back(op + (text.find(' ') == std::string::npos ? text : "(" + text + ")"));
    // A number's sign is the term's; its size is known to be positive (sign() leaves it out,
    // scale() keeps it: y + 2 z and y + z are two scores). A parameter's sign is a draw.
    if (const std::optional<double> number = literal_number(constant)) {
      if (*number == 0 && op[0] == '/') {  // y / 0 is no term that vanishes: keep it as written
        t.constants.push_back(op + canonical(constant, {}));
        return t;
      }
      if (*number < 0) t.negative = !t.negative;
      t.zero = t.zero || *number == 0;
      if (*number != 0)
        t.magnitude = op[0] == '/' ? t.magnitude / std::abs(*number) : t.magnitude * std::abs(*number);
      return t;
    }
    t.constants.push_back(op + canonical(constant, {}));
    return t;
  }
  /// The factor of a product of this term and `other`.
  [[nodiscard]] Term times(const Term& other) const {
    Term t = other.negative ? negated() : *this;
    t.zero = t.zero || other.zero;
    t.magnitude *= other.magnitude;
    t.constants.insert(t.constants.end(), other.constants.begin(), other.constants.end());
    t.written.insert(t.written.end(), other.written.begin(), other.written.end());
    return t;
  }
  /// The term's text with its sign and constant factors, as a quantity shows what it maximises.
  [[nodiscard]] std::string shown(const std::string& text) const {
    std::string times;
    std::string divided;
    for (const std::string& c : written) {
      if (c.front() == '*')
        times += c.substr(1) + " * ";
      else
        divided += " / " + c.substr(1);
    }
    const std::string body =
        times.empty() && divided.empty() ? text : times + "(" + text + ")" + divided;
    return negative ? "-" + body : body;
  }
  /// Equal for two terms that scale their objectives alike.
  [[nodiscard]] std::string scale() const {
    return sign() + (magnitude == 1 ? "" : fmt::format("*{}", magnitude)) + "|";
  }
  /// The same, up to a positive number: equal for two terms whose maxima are at one token
  /// (y and 2 y), where the term is the whole score.
  [[nodiscard]] std::string sign() const {
    std::vector<std::string> sorted = constants;
    std::sort(sorted.begin(), sorted.end());
    return (negative ? "-" : "+") + fmt::format("{}", fmt::join(sorted, ""));
  }
};

/// The additive terms of a vector (or number) expression, each with its sign and the numbers
/// it is scaled by (a closed factor of a vector is a number: dot(a, 2 * x[t]) is 2 dot(a, x[t])).
void vector_terms(const Node& n, const Term& sign, std::vector<Term>& out) {
  if (n.kind == K::kAdd || n.kind == K::kSub) {
    vector_terms(n.args[0], sign, out);
    vector_terms(n.args[1], n.kind == K::kSub ? sign.negated() : sign, out);
  } else if (n.kind == K::kNeg) {
    vector_terms(n.args[0], sign.negated(), out);
  } else if (n.kind == K::kMul && !mentions_token(n.args[0])) {
    vector_terms(n.args[1], sign.scaled("*", n.args[0]), out);
  } else if ((n.kind == K::kMul || n.kind == K::kDiv) && !mentions_token(n.args[1])) {
    vector_terms(n.args[0], sign.scaled(n.kind == K::kMul ? "*" : "/", n.args[1]), out);
  } else {
    Term t = sign;
    t.node = &n;
    out.push_back(t);
  }
}

/// The factors of the product `n` that read tokens, in order, into `tokens`; its closed factors
/// and signs into `factor`. Whether there were any of those.
bool product_factors(const Node& n, Term& factor, std::vector<const Node*>& tokens) {
  if (n.kind == K::kMul) {
    const bool left = product_factors(n.args[0], factor, tokens);
    return product_factors(n.args[1], factor, tokens) || left;
  }
  if (n.kind == K::kNeg) {
    factor = factor.negated();
    product_factors(n.args[0], factor, tokens);
    return true;
  }
  if (n.kind == K::kDiv && !mentions_token(n.args[1])) {
    factor = factor.scaled("/", n.args[1]);
    product_factors(n.args[0], factor, tokens);
    return true;
  }
  if (!mentions_token(n)) {
    factor = factor.scaled("*", n);
    return true;
  }
  tokens.push_back(&n);
  return false;
}

/// Top-level additive terms of `n` (scaled by `scale`), with dot and bilinear distributed over
/// sums of vectors and constant factors taken off (they change neither which indices a term
/// couples nor whether attention forms its score; Term keeps them for merging actions).
void additive_terms(const Node& n, const Term& scale, std::vector<Term>& out,
                    std::deque<Node>& made, bool distribute) {
  if (n.kind == K::kCall && (n.name == "dot" || n.name == "bilinear")) {
    // dot(u + v, w) = dot(u, w) + dot(v, w): each pair of vector terms is a term of its own.
    const std::size_t first = n.name == "dot" ? 0 : 1;
    std::vector<Term> left;
    std::vector<Term> right;
    vector_terms(n.args[first], Term{}, left);
    vector_terms(n.args[first + 1], Term{}, right);
    const auto plain = [](const Term& t) { return !t.negative && t.written.empty(); };
    if (left.size() * right.size() > 1 || !plain(left.front()) || !plain(right.front())) {
      for (const Term& l : left) {
        for (const Term& r : right) {
          Node call = n;
          call.args[first] = *l.node;
          call.args[first + 1] = *r.node;
          made.push_back(std::move(call));
          Term t = scale.times(l).times(r);
          t.node = &made.back();
          out.push_back(t);
        }
      }
      return;
    }
  }
  if (n.kind == K::kMul && mentions_token(n.args[0]) && mentions_token(n.args[1])) {
    // A product of token terms: its numbers and signs, wherever they stand ((2 * u) * v,
    // -u * v), are the term's constant factor, and the rest its term (u * v).
    Term factor = scale;
    std::vector<const Node*> tokens;
    const bool moved = product_factors(n, factor, tokens);
    const auto sum = [](const Node* m) { return m->kind == K::kAdd || m->kind == K::kSub; };
    if (distribute && tokens.size() == 2 && (sum(tokens[0]) || sum(tokens[1]))) {
      // (u + v) * w = u * w + v * w, a term each: a product of linear forms in two tokens is
      // then a rank-one query-key product (R1; (dot(a, x[s]) + 1) * dot(b, x[t]) once took
      // (1,1,1) where its expansion took (1,1)). Not in the second reading, which reads a
      // product of independent factors at its vertices.
      std::vector<Term> left;
      std::vector<Term> right;
      vector_terms(*tokens[0], Term{}, left);
      vector_terms(*tokens[1], Term{}, right);
      for (const Term& l : left) {
        for (const Term& r : right) {
          Node product;
          product.kind = K::kMul;
          product.args = {*l.node, *r.node};
          made.push_back(std::move(product));
          additive_terms(made.back(), factor.times(l).times(r), out, made, distribute);
        }
      }
      return;
    }
    if (moved) {
      made.push_back(product_of(tokens));
      factor.node = &made.back();
      out.push_back(factor);
      return;
    }
  }
  switch (n.kind) {
    case K::kAdd:
    case K::kSub:
      additive_terms(n.args[0], scale, out, made, distribute);
      additive_terms(n.args[1], n.kind == K::kSub ? scale.negated() : scale, out, made, distribute);
      return;
    case K::kNeg:
      additive_terms(n.args[0], scale.negated(), out, made, distribute);
      return;
    case K::kMul:
      if (!mentions_token(n.args[0]))
        return additive_terms(n.args[1], scale.scaled("*", n.args[0]), out, made, distribute);
      if (!mentions_token(n.args[1]))
        return additive_terms(n.args[0], scale.scaled("*", n.args[1]), out, made, distribute);
      break;
    case K::kDiv:
      if (!mentions_token(n.args[1]))
        return additive_terms(n.args[0], scale.scaled("/", n.args[1]), out, made, distribute);
      break;
    default:
      break;
  }
  Term t = scale;
  t.node = &n;
  out.push_back(t);
}

/// A factor of an objective: the token indices it couples and the quantities it reads. It is
/// a term of the objective, an index constraint, or a message of an earlier elimination.
/// Said of a retrieval whose score needs an FFN first (scores_from_raw_tokens()).
constexpr const char* kScoreNeedsFfn =
    " (its score is not a query-key product of the raw tokens: an FFN computes it first, so "
    "layer 2 at the earliest)";

struct Factor {
  std::set<std::string> indices;
  std::set<int> quantities;
  std::string text;
  const Node* term = nullptr;
  std::string scale;  ///< a term's sign and constants (Term::scale())
  std::string sign;   ///< the same up to a positive number (Term::sign())
  double magnitude = 1;  ///< that number (Term::magnitude)
  std::string shown;  ///< a term's text with them (Term::shown())
  const targets::IndexConstraint* constraint = nullptr;
  int message = -1;
  std::string message_at;
  double ratio = 1;  ///< a message: its value over that of the quantity's form (Form)

  /// What a quantity maximises, with the term's sign and constants (the checks read `text`).
  [[nodiscard]] std::string signed_text() const { return shown.empty() ? text : shown; }

  /// Equal for two factors that are the same up to the renaming (for merging actions), and,
  /// `up_to_size`, up to a positive number (a score of one term, a mean's value).
  [[nodiscard]] std::string key(const std::map<std::string, std::string>& rename,
                                bool up_to_size = false) const {
    auto named = [&](const std::string& i) {
      const auto it = rename.find(i);
      return it == rename.end() ? i : it->second;
    };
    if (term != nullptr) return (up_to_size ? sign + "|" : scale) + canonical(*term, rename);
    if (constraint != nullptr) {
      std::string a = named(constraint->left);
      std::string b = named(constraint->right);
      if (!constraint->strict_order && b < a) std::swap(a, b);
      return (constraint->strict_order ? "lt(" : "ne(") + a + "," + b + ")";
    }
    return (scale.empty() ? "+" : scale) + "q" + std::to_string(message) + "(" + named(message_at) +
           ")";
  }
};

struct Deps {
  std::set<std::string> indices;
  std::set<int> quantities;
  void add(const Deps& o) {
    indices.insert(o.indices.begin(), o.indices.end());
    quantities.insert(o.quantities.begin(), o.quantities.end());
  }
};

/// Puts a flag back as it was when the scope ends.
class Restore {
 public:
  explicit Restore(bool& flag) : flag_(flag), saved_(flag) {}
  Restore(const Restore&) = delete;
  Restore& operator=(const Restore&) = delete;
  ~Restore() { flag_ = saved_; }

 private:
  bool& flag_;
  bool saved_;
};

/// The value of quantity `id` (`#id`, or `#id.component` for one of a mean's values) times
/// `ratio`, as Program::values writes it.
Node value_of(int id, double ratio = 1, int component = -1) {
  Node ref;
  ref.kind = K::kRef;
  ref.name = "#" + std::to_string(id) + (component >= 0 ? "." + std::to_string(component) : "");
  if (ratio == 1) return ref;
  Node number;
  number.number = ratio;
  Node product;
  product.kind = K::kMul;
  product.args = {number, ref};
  return product;
}

/// |E| as the larger of E's largest and -E's smallest values, squared for E^2: #max(largest,
/// -smallest) as Program::values writes it.
Node larger_magnitude(Node largest, Node smallest, bool square) {
  Node negated;
  negated.kind = K::kNeg;
  negated.args = {std::move(smallest)};
  Node larger;
  larger.kind = K::kCall;
  larger.name = "#max";
  larger.args = {std::move(largest), std::move(negated)};
  if (!square) return larger;
  Node two;
  two.number = 2;
  Node power;
  power.kind = K::kPow;
  power.args = {std::move(larger), std::move(two)};
  return power;
}

/// A factor as a construction reads it; nullopt where a parameter (not a number) scales it.
std::optional<FormTerm> form_term(const Factor& f) {
  FormTerm t;
  if (f.message >= 0) {
    t.message = f.message;
    t.message_at = f.message_at;
    t.coefficient = f.ratio;
    return t;
  }
  if (f.term == nullptr || f.sign.size() != 1) return std::nullopt;
  t.node = std::make_shared<const Node>(*f.term);
  t.coefficient = (f.sign == "-" ? -1.0 : 1.0) * f.magnitude;
  return t;
}

class Compiler {
 public:
  Compiler(const targets::Formula& f, const targets::Bindings& b, long token_dim,
           bool split_products)
      : formula_(f), bindings_(b), token_dim_(token_dim), split_products_(split_products) {}

  Program run() {
    // A target undefined on some sequences has no rate to derive, and R1's reading of a
    // monotone function (max(t) log(y) as log(max(t) y)) would hide where it is undefined.
    if (detail::undefined_somewhere(formula_, bindings_, token_dim_)) {
      throw InputError(SourceLocation{"<formula>", 1, 1},
                       "the target is not a finite number on some random sequences (a log or "
                       "sqrt of a negative value, a division by zero, an overflow): it must be "
                       "defined on every sequence");
    }
    root_ = flatten(formula_.root());
    // E5 for the whole target too: reductions that cancel (max(t) y - max(s) y) or a term that
    // vanishes (dot(x[1], x[2]) * 0) leave a constant, which no action computes.
    if (root_.kind != K::kReduce) {
      if (const std::optional<double> value = closed_constant(root_)) {
        p_.constants.push_back(fmt::format(
            "the target {} takes one value on every random sequence ({} for one draw of its "
            "parameters): no action",
            targets::to_text(formula_.root()), targets::number_text(*value)));
        return std::move(p_);
      }
    }
    p_.root = root_;
    const Deps top = expr(root_, {});
    for (const int q : top.quantities) p_.outputs.push_back(q);
    if (positions_ >= 0) {
      Quantity& pq = p_.quantities[static_cast<std::size_t>(positions_)];
      pq.positions = static_cast<long>(position_names_.size());
      pq.what = fmt::format("the tokens at positions {{{}}}", fmt::join(position_names_, ", "));
    }
    std::set<std::string> counted;  // one reduction written twice is one comparison
    for (const Comparison& c : p_.comparisons) {
      if (!c.counts() || !counted.insert(c.text).second) continue;
      p_.order = std::max(p_.order, c.order);
      p_.comparison_number += GiNaC::pow(symbolic::SymbolRegistry::standard().seq_len(), c.order);
    }
    // Said in the tree, compared nowhere (no order, not in the comparison number).
    for (const std::string& text : idle_) {
      Comparison c;
      c.text = text;
      c.order = 0;
      c.elimination =
          "the body reads none of the selected indices: its value, whichever tuple "
          "the key selects (no action)";
      p_.comparisons.push_back(c);
    }
    return std::move(p_);
  }

 private:
  long resolve(const targets::Bound& b, std::size_t column) const {
    if (b.name.empty()) return b.value;
    const auto it = bindings_.find(b.name);
    if (it == bindings_.end()) {
      throw InputError(SourceLocation{"<formula>", 1, column},
                       "the range or rank needs a value for " + b.name + " (e.g. --set " + b.name +
                           "=3)");
    }
    return it->second;
  }

  /// Per mean quantity: the key (up to size) and coefficient of each value its form carries.
  std::map<int, std::vector<std::pair<std::string, double>>> mean_values_;

  int add(Quantity q, const std::string& key) {
    if (!key.empty()) {
      const auto hit = merged_.find(key);
      if (hit != merged_.end()) return hit->second;  // identical actions are one action
    }
    const int id = static_cast<int>(p_.quantities.size());
    if (q.name.empty()) q.name = (q.holder == Holder::kGlobal ? "g" : "m") + std::to_string(id + 1);
    std::sort(q.needs.begin(), q.needs.end());
    p_.quantities.push_back(std::move(q));
    if (!key.empty()) merged_.emplace(key, id);
    return id;
  }

  /// The one quantity gathering every fixed position the target reads; its form's terms are the
  /// positioned tokens (x[3], x[T]), one each.
  int positions_quantity(const Node& ref, const std::string& name) {
    if (positions_ < 0) {
      Quantity q;
      q.name = "P";
      q.mode = Mode::kPositions;
      q.form.known = true;
      positions_ = add(q, "");
    }
    if (std::find(position_names_.begin(), position_names_.end(), name) == position_names_.end()) {
      position_names_.push_back(name);
      FormTerm term;
      term.node = std::make_shared<const Node>(ref);
      p_.quantities[static_cast<std::size_t>(positions_)].form.terms.push_back(std::move(term));
    }
    return positions_;
  }

  Deps expr(const Node& n, const std::set<std::string>& scope) {
    Deps d;
    // Below anything but a sum, a sign or a closed factor, a reduction's value is no longer a
    // term of the target's sum (summed_).
    const bool additive =
        n.kind == K::kAdd || n.kind == K::kSub || n.kind == K::kNeg || n.kind == K::kReduce ||
        (n.kind == K::kMul && (!mentions_token(n.args[0]) || !mentions_token(n.args[1]))) ||
        (n.kind == K::kDiv && !mentions_token(n.args[1]));  // 1 / mean is no term of a sum
    const Restore restore(summed_);
    summed_ = summed_ && additive;
    if (n.kind == K::kRef && n.name == "x") {
      if (n.position > 0 || !n.position_name.empty()) {
        const std::string where =
            n.position > 0 ? std::to_string(n.position) : targets::to_text(n).substr(2, targets::to_text(n).size() - 3);
        note_order(targets::to_text(n) + " reads a fixed position");
        d.quantities.insert(positions_quantity(n, where));
      } else if (n.offset != 0) {
        note_order(targets::to_text(n) + " reads a relative position");
        Quantity q;
        q.name = fmt::format("r{:+}", n.offset);
        q.holder = Holder::kToken;
        q.mode = Mode::kRelative;
        q.what = fmt::format("x[t{:+}] at every token t", n.offset);
        d.quantities.insert(add(q, "relative" + std::to_string(n.offset)));
        d.indices.insert(n.index);
      } else if (!n.index.empty()) {
        d.indices.insert(n.index);
      }
      return d;
    }
    if (n.kind == K::kReduce) return reduction(n, scope);
    // Times the number 0 the rest is never computed (max(t) y * 0 + max(t) z is max z).
    if (n.kind == K::kMul && std::any_of(n.args.begin(), n.args.end(), [](const Node& a) {
          const std::optional<double> number = literal_number(a);
          return number && *number == 0;
        }))
      return d;
    if (n.kind == K::kDiv && softmax_weighted(n.args[0], n.args[1])) {
      outside("'" + targets::to_text(n) +
              "' is a softmax-weighted mean (attention at finite temperature, which one head "
              "computes exactly where the score and the value are linear in the token); R6 "
              "prices uniform averages only: read as undecided");
    }
    for (const Node& a : n.args) d.add(expr(a, scope));
    return d;
  }

  /// sum(t) (exp(L) * V) / sum(s) exp(L), one token index each, the same L up to its name:
  /// a softmax-weighted mean (exp(L) as any factor of the numerator's product).
  static bool softmax_weighted(const Node& numerator, const Node& denominator) {
    const auto token_sum = [](const Node& m) {
      return m.kind == K::kReduce && m.op == targets::ReduceOp::kSum && !m.has_key() &&
             m.constraints.empty() && m.binders.size() == 1 && !m.binders[0].has_range;
    };
    if (!token_sum(numerator) || !token_sum(denominator)) return false;
    const Node& weight = denominator.args[0];
    if (weight.kind != K::kCall || weight.name != "exp") return false;
    const std::string score = canonical(weight, {{denominator.binders[0].name, "#v"}});
    const std::vector<const Node*> parts = product_parts(numerator.args[0]);
    return std::any_of(parts.begin(), parts.end(), [&](const Node* p) {
      return canonical(*p, {{numerator.binders[0].name, "#v"}}) == score;
    });
  }

  void note_order(const std::string& why) {
    if (std::find(p_.order_dependent.begin(), p_.order_dependent.end(), why) ==
        p_.order_dependent.end())
      p_.order_dependent.push_back(why);
  }

  void outside(const std::string& why) {
    if (!p_.outside) p_.outside = why;
  }

  /// A reduction over parameter ranges or fixed position ranges is a finite combination: its
  /// copies are compiled one by one.
  Deps reduction(const Node& n, const std::set<std::string>& scope) {
    std::vector<const targets::Binder*> unrolled;
    std::vector<const targets::Binder*> tokens;
    for (const targets::Binder& b : n.binders) {
      // An index without a range runs over the tokens (it may be read only through a
      // constraint, as t in sum(t) max(s < t) ...); one ranged 1..T that subscripts x does too.
      const bool all_tokens = b.low.name.empty() && b.low.value == 1 && b.high.name == "T";
      if (!b.has_range || (all_tokens && subscripts_x(n, b.name)))
        tokens.push_back(&b);
      else
        unrolled.push_back(&b);
    }
    if (unrolled.empty()) return token_reduction(n, scope);
    if (!tokens.empty() && n.op != targets::ReduceOp::kSum) {
      outside("'" + targets::to_text(n) +
              "' reduces over tokens and a range at once; write the range outside, e.g. "
              "max(i = 1..D) max(t) ...");
      return {};
    }
    if (n.op == targets::ReduceOp::kKth) {
      outside("'" + targets::to_text(n) + "': a k-th largest over a parameter range is not a rule of the framework");
    }
    const Restore restore(summed_);
    summed_ = summed_ && n.op == targets::ReduceOp::kSum;  // a sum's copies are its terms
    // Expand the combinations of the unrolled binders.
    std::vector<Node> copies{n};
    for (const targets::Binder* b : unrolled) {
      const long low = resolve(b->low, b->column);
      const long high = resolve(b->high, b->column);
      if (high < low) {
        throw InputError(SourceLocation{"<formula>", 1, b->column},
                         fmt::format("the range {} = {}..{} is empty", b->name, low, high));
      }
      if (static_cast<long>(copies.size()) * (high - low + 1) > kMaxCopies) {
        throw InputError(SourceLocation{"<formula>", 1, b->column},
                         fmt::format("unrolling {} = {}..{} makes more than {} copies", b->name,
                                     low, high, kMaxCopies));
      }
      std::vector<Node> next;
      for (const Node& c : copies) {
        for (long v = low; v <= high; ++v) next.push_back(substitute(c, b->name, v));
      }
      copies = std::move(next);
    }
    Deps d;
    std::vector<int> firsts;
    std::vector<std::string> shapes;
    Node combined;  // Program::values: the copies' values, summed or compared
    combined.kind = K::kCall;
    combined.name = n.op == targets::ReduceOp::kSum   ? "#sum"
                    : n.op == targets::ReduceOp::kMin ? "#min"
                                                      : "#max";
    for (Node& c : copies) {
      std::erase_if(c.binders, [&](const targets::Binder& b) {
        return std::any_of(unrolled.begin(), unrolled.end(),
                           [&](const targets::Binder* u) { return u->name == b.name; });
      });
      const int first = static_cast<int>(p_.quantities.size());
      if (c.binders.empty()) {
        d.add(expr(c.args[0], scope));
        if (c.has_key()) d.add(expr(c.args[1], scope));
        combined.args.push_back(c.args[0]);
      } else {
        d.add(token_reduction(c, scope));
        combined.args.push_back(c);
      }
      firsts.push_back(first);
      shapes.push_back(shape(first));
    }
    // Copies that made the same shape of new quantities are interchangeable in a plan.
    const bool same = firsts.size() >= 2 && shapes.front() != "" &&
                      std::all_of(shapes.begin(), shapes.end(),
                                  [&](const std::string& s) { return s == shapes.front(); });
    if (same) p_.interchangeable.push_back(firsts);
    if (!n.has_key()) p_.values.emplace(targets::to_text(n), std::move(combined));
    return d;
  }

  /// The quantities made from `first` on, with needs inside them as offsets from `first`.
  [[nodiscard]] std::string shape(int first) const {
    std::string out;
    for (std::size_t i = static_cast<std::size_t>(first); i < p_.quantities.size(); ++i) {
      const Quantity& q = p_.quantities[i];
      out += fmt::format("{}{}{}{}{}:", static_cast<int>(q.mode), static_cast<int>(q.holder),
                         q.needs_at_tokens, q.needs_ffn, q.positions);
      for (const int n : q.needs)
        out += n >= first ? "+" + std::to_string(n - first) + "," : std::to_string(n) + ",";
      out += ";";
    }
    return out;
  }

  Factor factor_of(const Term& term, const std::set<std::string>& scope) {
    const Deps d = expr(*term.node, scope);
    Factor f;
    f.indices = d.indices;
    f.quantities = d.quantities;
    f.text = targets::to_text(*term.node);
    f.term = term.node;
    f.scale = term.scale();
    f.sign = term.sign();
    f.magnitude = term.magnitude;
    f.shown = term.shown(f.text);
    return f;
  }

  /// Is `objective` unchanged by every permutation of `indices` (adjacent swaps generate them)?
  static bool symmetric(const Node& objective, const std::vector<std::string>& indices) {
    const std::string base = canonical(objective, {});
    for (std::size_t i = 0; i + 1 < indices.size(); ++i) {
      const std::map<std::string, std::string> swap{{indices[i], indices[i + 1]},
                                                    {indices[i + 1], indices[i]}};
      if (canonical(objective, swap) != base) return false;
    }
    return true;
  }

  /// The sign a closed term keeps on random sequences (+1, -1), if it keeps one.
  std::optional<int> closed_sign(const Node& n) const {
    try {
      return detail::constant_sign(targets::Formula::from_tree(n), bindings_, token_dim_);
    } catch (const InputError&) {  // an index bound further out
      return std::nullopt;
    }
  }

  /// E5: a closed reduction (no index bound further out) that takes one value on random
  /// sequences is a constant, which no action computes (min(s, t) sqnorm(x[s] - x[t]) is 0: s = t
  /// is allowed).
  std::optional<double> closed_constant(const Node& n) const {
    try {
      return detail::constant_value(targets::Formula::from_tree(n), bindings_, token_dim_);
    } catch (const InputError&) {  // an index bound further out, a member of an unrolled family
      return std::nullopt;
    }
  }

  Deps token_reduction(const Node& n, const std::set<std::string>& scope) {
    if (std::optional<Node> free = without_idle_constraints(n)) {
      Deps d = token_reduction(*free, scope);
      const auto value = p_.values.find(targets::to_text(*free));
      if (value != p_.values.end()) p_.values.emplace(targets::to_text(n), value->second);
      return d;
    }
    // Whether this reduction is a term of the target's sum; what its body holds is not.
    const bool summed = summed_;
    const Restore restore(summed_);
    summed_ = false;
    if (const std::optional<double> value = closed_constant(n)) {
      p_.constants.push_back(
          fmt::format("{} takes one value on every random sequence ({} for one draw of its "
                      "parameters): no action",
                      targets::to_text(n), targets::number_text(*value)));
      return {};
    }
    std::vector<std::string> bound;
    for (const targets::Binder& b : n.binders) bound.push_back(b.name);
    std::set<std::string> inner = scope;
    inner.insert(bound.begin(), bound.end());
    const Node& body = n.args[0];
    const Node& objective = n.has_key() ? n.args[1] : body;
    std::vector<Term> terms;
    additive_terms(objective, Term{}, terms, made_, !split_products_);
    // A term times the number 0 couples nothing (max(s, t) (y_t + 0 * z_s) is max y); where
    // every term is one, E5 has found the constant already.
    if (std::any_of(terms.begin(), terms.end(), [](const Term& t) { return !t.zero; }))
      std::erase_if(terms, [](const Term& t) { return t.zero; });
    std::vector<Factor> factors;
    for (const Term& t : terms) factors.push_back(factor_of(t, inner));
    Deps body_deps;
    if (n.has_key()) body_deps = expr(body, inner);
    // Index constraints couple the indices they name.
    std::vector<std::string> ordered;
    for (const targets::IndexConstraint& c : n.constraints) {
      Factor f;
      f.indices = {c.left, c.right};
      f.text = c.left + (c.strict_order ? " < " : " != ") + c.right;
      f.constraint = &c;
      factors.push_back(f);
      if (c.strict_order) {
        for (const std::string& i : {c.left, c.right}) {
          if (std::find(ordered.begin(), ordered.end(), i) == ordered.end()) ordered.push_back(i);
        }
      }
    }
    // A symmetric body makes s < t the same as s != t only when this reduction binds both: with
    // t bound further out, the tokens s ranges over depend on t's position.
    const bool binds_ordered =
        std::all_of(ordered.begin(), ordered.end(), [&](const std::string& i) {
          return std::find(bound.begin(), bound.end(), i) != bound.end();
        });
    if (!ordered.empty() && !(binds_ordered && symmetric(objective, ordered) &&
                              (!n.has_key() || symmetric(body, ordered)))) {
      note_order("'" + targets::to_text(n) + "' orders its indices (" +
                 fmt::format("{}", fmt::join(ordered, " < ")) + ") and " +
                 (binds_ordered ? "its body is not symmetric in them"
                                : "binds only some of them (the range depends on a position)"));
    }
    if (const auto tokens = bindings_.find("T");
        tokens != bindings_.end() && tokens->second < fewest_tokens(n)) {
      throw InputError(SourceLocation{"<formula>", 1, n.column},
                       fmt::format("'{}' has no index tuple for T = {}: it needs {} distinct "
                                   "tokens",
                                   targets::to_text(n), tokens->second, fewest_tokens(n)));
    }
    Comparison c;
    c.text = targets::to_text(n);
    if (n.op == targets::ReduceOp::kSum)
      return annotated(mean(n, bound, factors, summed, c), c.text);
    if (n.op == targets::ReduceOp::kKth && !ranks_last(n)) {
      const long k = resolve(n.rank, n.column);
      if (k < 1) throw InputError(SourceLocation{"<formula>", 1, n.column}, "kth() counts from 1");
      if (k > kMaxRank) {
        throw InputError(SourceLocation{"<formula>", 1, n.column},
                         fmt::format("kth({}): the engine plans ranks up to {}", k, kMaxRank));
      }
      // Each constraint on the one ranked index (t != s, t < s) takes at least one token away.
      const long excluded =
          n.binders.size() == 1
              ? std::count_if(n.constraints.begin(), n.constraints.end(),
                              [&](const targets::IndexConstraint& ic) {
                                return ic.left == bound.front() || ic.right == bound.front();
                              })
              : 0;
      if (const auto tokens = bindings_.find("T");
          tokens != bindings_.end() && k > tokens->second - excluded) {
        throw InputError(SourceLocation{"<formula>", 1, n.column},
                         fmt::format("kth({}) over {} candidates: the rank exceeds them", k,
                                     tokens->second - excluded));
      }
      if (k >= 2) {
        Deps d = annotated(ranked(n, bound, factors, body_deps, k, c), c.text);
        // The plan holds k fixed as T grows; at a set T a rank past the middle is a rank from the
        // bottom (k = T is the minimum), which a reader comparing with training must be told.
        if (const auto tokens = bindings_.find("T");
            tokens != bindings_.end() && n.binders.size() == 1 && !p_.comparisons.empty() &&
            p_.comparisons.back().text == c.text) {
          const long candidates = tokens->second - excluded;
          if (2 * k > candidates + 1) {
            const long from_bottom = candidates - k + 1;
            p_.comparisons.back().elimination += fmt::format(
                " (at the set T = {}, rank {} of {} is the {}; the plan is for k = {} fixed as T "
                "grows)",
                tokens->second, k, candidates,
                from_bottom == 1 ? std::string("minimum")
                                 : fmt::format("{}{} smallest", from_bottom,
                                               from_bottom % 100 / 10 == 1 ? "th"
                                               : from_bottom % 10 == 1     ? "st"
                                               : from_bottom % 10 == 2     ? "nd"
                                               : from_bottom % 10 == 3     ? "rd"
                                                                           : "th"),
                k);
          }
        }
        return d;
      }
    }
    if (std::optional<Deps> split = absolute_maximum(n, bound, factors, body_deps, scope, c))
      return annotated(*split, c.text);
    return annotated(extremum(n, bound, factors, body_deps, scope, c), c.text);
  }

  /// Records how a rewritten reduction was written (once: a rewrite seen twice says it once).
  void note(const std::string& reduction, const std::string& how) {
    std::string& notes = notes_[reduction];
    if (notes.find(how) == std::string::npos) notes += how;
  }

  /// Says in the comparison just made how its reduction was written, if a rewrite made it.
  Deps annotated(Deps d, const std::string& text) {
    const auto note = notes_.find(text);
    if (note != notes_.end() && !p_.comparisons.empty() && p_.comparisons.back().text == text)
      p_.comparisons.back().elimination += note->second;
    return d;
  }

  /// E3: a closed extremum under `!=` constraints that takes the same values without them (the
  /// constraints never bind: max(s != t) (y_s - y_t) is at distinct tokens anyway, the maximum
  /// and the minimum of y) is compiled without them; they would couple indices that are free
  /// (the engine once said exponential in T on (2) for it). Tried on random sequences, as E4.
  std::optional<Node> without_idle_constraints(const Node& n) {
    if (n.constraints.empty() || n.has_key() || n.op == targets::ReduceOp::kSum ||
        n.op == targets::ReduceOp::kKth ||
        std::any_of(n.constraints.begin(), n.constraints.end(),
                    [](const targets::IndexConstraint& c) { return c.strict_order; }) ||
        std::any_of(n.binders.begin(), n.binders.end(),
                    [](const targets::Binder& b) { return b.has_range; }))
      return std::nullopt;
    Node free = n;
    free.constraints.clear();
    for (targets::Binder& b : free.binders) b.from_chain = false;
    const std::string written = targets::to_text(n);
    const std::string unconstrained = targets::to_text(free);
    try {
      if (!detail::same_values(targets::Formula::from_tree(n), targets::Formula::from_tree(free),
                               bindings_, token_dim_))
        return std::nullopt;
    } catch (const InputError&) {  // an index bound further out, a member of an unrolled family
      return std::nullopt;
    }
    note(unconstrained,
         " (written " + written + ": the constraints never bind on random sequences, E3)");
    return free;
  }

  /// kth(T, t ...): the T-th largest of the T tokens' values is the smallest, one retrieval
  /// (whatever T is), not a chain of T masked maxima.
  static bool ranks_last(const Node& n) {
    return n.op == targets::ReduceOp::kKth && n.rank.name == "T" && n.binders.size() == 1 &&
           n.constraints.empty();
  }

  /// max over one token of |L|, L linear in the token (no key, no constraint): |y| = max(y, -y),
  /// so two retrievals of linear scores, one each, and the readout's FFN takes the larger.
  /// Attention forms both scores from the raw tokens, where |L| itself would wait for an FFN (R1).
  /// A selection by |L| (or L^2), `max(t by abs(L)) V`, is V at the token of max L or at that of
  /// min L, whichever |L| is larger: the selections by L and by -L and the two extrema of L,
  /// which share their retrievals.
  std::optional<Deps> absolute_maximum(const Node& n, const std::vector<std::string>& bound,
                                       const std::vector<Factor>& factors, const Deps& body_deps,
                                       const std::set<std::string>& scope, Comparison& c) {
    if (n.op != targets::ReduceOp::kMax || bound.size() != 1 || !body_deps.quantities.empty() ||
        !n.constraints.empty())
      return std::nullopt;
    const Node& objective = n.has_key() ? n.args[1] : n.args[0];
    const std::string& v = bound.front();
    const Factor* term = nullptr;
    for (const Factor& f : factors) {
      if (f.indices.count(v) == 0) continue;
      if (term != nullptr || f.constraint != nullptr) return std::nullopt;
      term = &f;
    }
    // The whole body, so that no sign or factor the terms drop (max(t) -abs(L) is -min |L|) hides.
    if (term == nullptr || term->indices.size() != 1 || !term->quantities.empty() ||
        !targets::same_expression(objective, *term->term))
      return std::nullopt;
    // |L| or L^2 (= |L|^2): L the one argument.
    const Node& t = *term->term;
    const bool absolute = t.kind == K::kCall && t.name == "abs" && t.args.size() == 1;
    const bool square = t.kind == K::kPow && t.args[1].kind == K::kNumber && t.args[1].number == 2;
    if (!absolute && !square) return std::nullopt;
    const Node& score = affine_argument(t.args[0]);
    if (!linear_in_tokens(score, v)) return std::nullopt;
    const std::string inner = targets::to_text(score);
    if (n.has_key()) return absolute_selection(n, score, square, scope, c);
    // Keyed as the retrievals of max L and min L elsewhere (one action with them).
    const std::string plain = canonical(score, {{v, "#v"}});
    std::vector<std::string> names;
    std::vector<Node> at_extremes;  // g(L) at the score's largest and smallest values
    Deps d = leftovers(factors, bound);
    for (const char* sign : {"", "-"}) {
      const int id = add(Quantity{}, std::string("ret|max|g|") + (*sign ? "-" : "+") + "|" + plain);
      Quantity& made = p_.quantities[static_cast<std::size_t>(id)];
      if (made.what.empty()) {
        made.what =
            fmt::format("{} = the token maximising {}{} over {}", made.name, sign, inner, v);
        made.form.known = true;
        made.form.index = v;
        FormTerm signed_score;
        signed_score.node = std::make_shared<const Node>(score);
        signed_score.coefficient = *sign ? -1 : 1;
        made.form.terms.push_back(std::move(signed_score));
      }
      names.push_back(made.name);
      d.quantities.insert(id);
      // The quantity's value is c L at its token (c its form's number, the sign here unless
      // another retrieval made it): L there is the value over c.
      const Form& form = made.form;
      if (form.known && form.terms.size() == 1 && form.terms.front().node &&
          targets::same_expression(*form.terms.front().node, score) &&
          form.terms.front().coefficient != 0)
        at_extremes.push_back(
            targets::replaced(t.args[0], score, value_of(id, 1 / form.terms.front().coefficient)));
    }
    // |g(L)| over the tokens, g affine of slope a > 0, is largest at max L or at min L: the
    // larger of g(max L) and -g(min L), which are ordered (g(max L) >= g(min L)) so that one
    // ReLU takes it; with a < 0 the two swap. g(L)^2 is that, squared.
    const std::optional<double> slope = slope_in(t.args[0], score);
    if (at_extremes.size() == 2 && slope && *slope != 0) {
      if (*slope < 0) std::swap(at_extremes[0], at_extremes[1]);
      p_.values.emplace(targets::to_text(n), larger_magnitude(std::move(at_extremes[0]),
                                                              std::move(at_extremes[1]), square));
    }
    c.order = 1;
    c.elimination =
        &score == &t.args[0]
            ? fmt::format("{} -> {}, {} (|y| = max(y, -y){}: two maxima of a linear score)", v,
                          names[0], names[1], square ? ", y^2 = |y|^2" : "")
            : fmt::format("{} -> {}, {} ({} is largest where {} is largest or smallest: two "
                          "maxima of a linear score)",
                          v, names[0], names[1], targets::to_text(t), inner);
    p_.comparisons.push_back(c);
    return d;
  }

  Deps absolute_selection(const Node& n, const Node& score, bool square,
                          const std::set<std::string>& scope, Comparison& c) {
    Deps d;
    std::vector<std::string> parts;
    for (const targets::ReduceOp op : {targets::ReduceOp::kMax, targets::ReduceOp::kMin}) {
      Node selection = n;
      selection.op = op;
      selection.args = {n.args[0], score};
      Node extremum = n;
      extremum.op = op;
      extremum.args = {score};
      for (const Node* r : {&selection, &extremum}) {
        d.add(token_reduction(*r, scope));
        parts.push_back(targets::to_text(*r));
      }
    }
    c.order = 1;
    c.elimination = fmt::format(
        "the token of the largest |y|{} is that of max y or of min y: {}, the readout's FFN "
        "taking the one whose key is larger",
        square ? " (y^2 = |y|^2)" : "", fmt::join(parts, ", "));
    c.summary = true;
    p_.comparisons.push_back(c);
    return d;
  }

  /// The score inside an affine map of it (an offset, a sign, a nonzero factor): |g(L)| and
  /// g(L)^2 are largest where L is largest or smallest, whatever the affine g (`abs(dot(a, x[t])
  /// + 1)` and `abs(-dot(a, x[t]))` were put after an FFN, exponential in T on (2)).
  static const Node& affine_argument(const Node& m) {
    const Node* at = &m;
    while (at->kind != K::kCall && at->kind != K::kPow) {
      const std::optional<MonotoneStep> step = monotone_step(*at, true);
      if (!step) break;
      at = &at->args[step->argument];
    }
    return *at;
  }

  /// The extremum over (r, s, t, ...) of a product of factors that split the indices into
  /// independent groups (f(r) g(s, t): no factor, constraint or selection joins r to s or t):
  /// the product is multilinear in the groups' values, which vary independently, so its
  /// extremum is at a vertex, each group's product at its maximum or its minimum. Each group is
  /// a reduction of its own, max and min (over one index: two retrievals; over a pair: E2); the
  /// readout's FFN takes the best of the products (as |y| = max(y, -y)). Tried only where
  /// elimination is blocked: over two indices the rank-one query-key product (R1) needs fewer
  /// heads.
  std::optional<Deps> separable_product(const Node& n, const std::vector<std::string>& bound,
                                        const std::vector<Factor>& factors,
                                        const std::set<std::string>& scope, Comparison& c) {
    if (n.has_key() || !n.constraints.empty()) return std::nullopt;
    const Factor* term = nullptr;
    for (const Factor& f : factors) {
      if (std::none_of(bound.begin(), bound.end(),
                       [&](const std::string& b) { return f.indices.count(b) != 0; }))
        continue;
      if (term != nullptr || f.term == nullptr) return std::nullopt;
      term = &f;
    }
    if (term == nullptr || term->indices.size() != bound.size()) return std::nullopt;
    const std::vector<ProductGroup> groups = product_groups(*term->term);
    // Factors over none of the bound indices that vary with the sequence (a mean, a retrieved
    // value: max(t) (y_t * sum(s) z_s)) are a value the readout holds beside the groups'
    // extrema; its sign picks the vertex, so where the sign is unknown both extrema are
    // fetched (one layer of three heads, where reading the mean first takes two layers).
    // The factors were compiled with the term (factor_of()); read here from the tree alone.
    std::vector<const Node*> free_parts;
    std::vector<const Node*> constant_parts;
    for (const Node* part : product_parts(*term->term)) {
      if (!token_indices_read(*part).empty()) continue;
      (summarises(*part) ? free_parts : constant_parts).push_back(part);
    }
    if (groups.size() < 2 && free_parts.empty()) return std::nullopt;
    for (const ProductGroup& g : groups) {
      for (const Node* member : g.members) {
        if (summarises(*member)) return std::nullopt;
      }
    }
    // With one group, a free factor of a known sign (E5's draws: never negative, say) leaves one
    // extremum of the group to fetch, where the term's own sign and constants are known too (a
    // parameter's sign is a draw).
    std::optional<int> sign = groups.size() == 1 && term->sign == "+" && constant_parts.empty()
                                  ? std::optional<int>(1)
                                  : std::nullopt;
    for (const Node* part : free_parts) {
      const std::optional<int> s = sign ? closed_sign(*part) : std::nullopt;
      sign = s ? std::optional<int>(*sign * *s) : std::nullopt;
    }
    Deps d = leftovers(factors, bound);
    d.quantities.insert(term->quantities.begin(), term->quantities.end());  // the free factors'
    for (const std::string& i : term->indices) {
      if (std::find(bound.begin(), bound.end(), i) == bound.end()) d.indices.insert(i);
    }
    std::vector<std::string> parts_text;
    int order = 1;
    for (const auto& [indices, members] : groups) {
      const Node product = product_of(members);
      std::vector<targets::ReduceOp> ops{targets::ReduceOp::kMax, targets::ReduceOp::kMin};
      if (sign) ops = {(n.op == targets::ReduceOp::kMax) == (*sign > 0) ? targets::ReduceOp::kMax
                                                                        : targets::ReduceOp::kMin};
      for (const targets::ReduceOp op : ops) {
        Node r = n;
        r.op = op;
        r.binders.clear();
        for (const targets::Binder& b : n.binders) {
          if (indices.count(b.name) != 0) r.binders.push_back(b);
        }
        r.args = {product};
        const std::size_t before = p_.comparisons.size();
        d.add(token_reduction(r, scope));
        for (std::size_t i = before; i < p_.comparisons.size(); ++i)
          order = std::max(order, p_.comparisons[i].order);
        parts_text.push_back(targets::to_text(r));
      }
    }
    std::vector<std::string> free_text;
    for (const Node* part : free_parts) free_text.push_back(targets::to_text(*part));
    // The term's sign and numbers were taken off it (additive_terms()); the text shows them.
    const std::string scaled =
        term->signed_text() == term->text ? "" : ", in " + term->signed_text();
    c.order = order;
    c.elimination =
        groups.size() >= 2
            ? fmt::format("its factors split the indices into independent groups, so its "
                          "extremum is at a vertex: {} (a product of each group's maximum or "
                          "minimum{}{})",
                          fmt::join(parts_text, ", "),
                          free_text.empty() ? "" : ", times " + fmt::format("{}", fmt::join(free_text, " * ")),
                          scaled)
            : fmt::format("{} varies with the sequence but not with the indices, so the extremum "
                          "is at {}{}",
                          fmt::join(free_text, " * "), fmt::join(parts_text, " or "),
                          sign ? " (its sign never changes on random sequences)" : "");
    c.summary = true;
    p_.comparisons.push_back(c);
    return d;
  }

  /// Whether a term reads a quantity of the sequence: a reduction, or a token at a fixed
  /// position.
  static bool summarises(const Node& m) {  // NOLINT(misc-no-recursion)
    if (m.kind == K::kReduce) return true;
    if (m.kind == K::kRef && m.name == "x" && (m.position > 0 || !m.position_name.empty()))
      return true;
    return std::any_of(m.args.begin(), m.args.end(), [](const Node& a) { return summarises(a); });
  }

  struct ProductGroup {
    std::set<std::string> indices;
    std::vector<const Node*> members;  // the product's factors over these indices, in order
  };

  /// The factors of a product term grouped by the indices they share (f(r) g(s) h(t): three
  /// groups; one when the factors join every index), in the order they are written. Factors
  /// over no index (constants) are left out: their sign is read at the vertices.
  std::vector<ProductGroup> product_groups(const Node& term) {
    std::vector<ProductGroup> groups;
    for (const Node* part : product_parts(term)) {
      ProductGroup joined{token_indices_read(*part), {}};
      if (joined.indices.empty()) continue;
      for (auto it = groups.begin(); it != groups.end();) {
        if (std::any_of(it->indices.begin(), it->indices.end(),
                        [&](const std::string& x) { return joined.indices.count(x) != 0; })) {
          joined.indices.insert(it->indices.begin(), it->indices.end());
          joined.members.insert(joined.members.end(), it->members.begin(), it->members.end());
          it = groups.erase(it);
        } else {
          ++it;
        }
      }
      joined.members.push_back(part);
      groups.push_back(std::move(joined));
    }
    return groups;
  }

  /// Whether the blocking goes away when each product term splitting into independent groups
  /// is read as one factor a group: then the comparison is not a coupling of three indices but
  /// a product no rule combines with the other terms (undecided, not super-polynomial).
  bool blocked_only_by_products(const std::vector<Factor>& factors,
                                const std::vector<std::string>& bound) {
    std::vector<Factor> relaxed;
    bool split = false;
    for (const Factor& f : factors) {
      if (f.term != nullptr && f.quantities.empty() && f.indices.size() >= 2) {
        const std::vector<ProductGroup> groups = product_groups(*f.term);
        if (groups.size() >= 2) {
          split = true;
          for (const ProductGroup& g : groups) {
            Factor part;
            part.indices = g.indices;
            relaxed.push_back(part);
          }
          continue;
        }
      }
      relaxed.push_back(f);
    }
    return split && best_order(relaxed, bound).widest < 2;
  }

  /// The maximum of |E| (or of E^2) is the larger of max E and -min E (squared): two
  /// reductions of E, each compiled on its own (E's terms may then be eliminated one index at a
  /// time, where |E| couples them all: max(r, s, t) abs(f(r) + g(s) + h(t)) was once blocked,
  /// super-polynomial). Tried where elimination is blocked, and in the second reading where
  /// it is not (max(s, t) abs(y_s - y_t) is then max y - min y, two retrievals on (2), not a
  /// pair's score after an FFN on (1,1,1)), like separable_product(). The minimum of |E| is
  /// no such combination.
  std::optional<Deps> absolute_split(const Node& n, const std::vector<Factor>& factors,
                                     const std::set<std::string>& scope, Comparison& c) {
    if (n.op != targets::ReduceOp::kMax || n.has_key()) return std::nullopt;
    const auto scoring = std::count_if(factors.begin(), factors.end(),
                                       [](const Factor& f) { return f.constraint == nullptr; });
    if (scoring != 1) return std::nullopt;
    const Factor& only = *std::find_if(factors.begin(), factors.end(),
                                       [](const Factor& f) { return f.constraint == nullptr; });
    if (only.term == nullptr || only.sign != "+") return std::nullopt;
    const Node& t = *only.term;
    const bool absolute = t.kind == K::kCall && t.name == "abs" && t.args.size() == 1;
    const bool square = t.kind == K::kPow && t.args[1].kind == K::kNumber && t.args[1].number == 2;
    if (!absolute && !square) return std::nullopt;
    Deps d;
    std::vector<std::string> parts;
    for (const targets::ReduceOp op : {targets::ReduceOp::kMax, targets::ReduceOp::kMin}) {
      Node r = n;
      r.op = op;
      r.args = {t.args[0]};
      d.add(token_reduction(r, scope));
      parts.push_back(targets::to_text(r));
    }
    int order = 1;
    for (const Comparison& other : p_.comparisons) {
      if (std::find(parts.begin(), parts.end(), other.text) != parts.end())
        order = std::max(order, other.order);
    }
    c.order = order;
    c.elimination = fmt::format("{} is the larger of {} and -{}{}", absolute ? "|E|" : "E^2",
                                parts[0], parts[1], absolute ? "" : ", squared");
    c.summary = true;
    p_.comparisons.push_back(c);
    const auto largest = p_.values.find(parts[0]);
    const auto smallest = p_.values.find(parts[1]);
    if (largest != p_.values.end() && smallest != p_.values.end())
      p_.values.emplace(targets::to_text(n),
                        larger_magnitude(largest->second, smallest->second, square));
    return d;
  }

  /// Leftover factors (over no bound index) pass through to the value.
  static Deps leftovers(const std::vector<Factor>& factors, const std::vector<std::string>& bound) {
    Deps d;
    for (const Factor& f : factors) {
      if (std::none_of(bound.begin(), bound.end(),
                       [&](const std::string& b) { return f.indices.count(b) != 0; })) {
        d.indices.insert(f.indices.begin(), f.indices.end());
        d.quantities.insert(f.quantities.begin(), f.quantities.end());
      }
    }
    return d;
  }

  struct Elimination {
    std::vector<std::string> order;
    std::size_t widest = 0;  // the largest message scope
    std::size_t depth = 0;   // the longest chain of messages: layers the plan needs
    [[nodiscard]] bool better_than(const Elimination& o) const {
      return std::tie(widest, depth) < std::tie(o.widest, o.depth);
    }
  };

  static Elimination best_order(const std::vector<Factor>& factors,
                                const std::vector<std::string>& bound) {
    auto simulate = [&](const std::vector<std::string>& order) {
      std::vector<std::pair<std::set<std::string>, std::size_t>> scopes;  // with message depth
      for (const Factor& f : factors) scopes.emplace_back(f.indices, 0);
      Elimination e{order, 0, 0};
      for (const std::string& v : order) {
        std::set<std::string> message;
        std::size_t depth = 0;
        std::vector<std::pair<std::set<std::string>, std::size_t>> rest;
        for (auto& s : scopes) {
          if (s.first.count(v) != 0) {
            message.insert(s.first.begin(), s.first.end());
            depth = std::max(depth, s.second);
          } else {
            rest.push_back(std::move(s));
          }
        }
        message.erase(v);
        e.widest = std::max(e.widest, message.size());
        e.depth = std::max(e.depth, depth + 1);
        rest.emplace_back(message, depth + 1);
        scopes = std::move(rest);
      }
      return e;
    };
    Elimination best = simulate(bound);
    if (bound.size() <= kExhaustiveIndices) {
      std::vector<std::string> order = bound;
      std::sort(order.begin(), order.end());
      do {
        const Elimination e = simulate(order);
        if (e.better_than(best)) best = e;
      } while (std::next_permutation(order.begin(), order.end()));
      return best;
    }
    // Beyond, the written order and the greedy one: each step the index whose message is
    // smallest, then shallowest (a chain or tree of pairwise factors, leaves first from every
    // end, is admissible however it is written: a chain of seven dots was once blocked,
    // "super-polynomial", written in one order).
    std::vector<std::pair<std::set<std::string>, std::size_t>> scopes;  // with message depth
    for (const Factor& f : factors) scopes.emplace_back(f.indices, 0);
    std::vector<std::string> left = bound;
    std::vector<std::string> greedy;
    const auto message_of = [&](const std::string& v) {
      std::pair<std::set<std::string>, std::size_t> m{{}, 0};
      for (const auto& [indices, depth] : scopes) {
        if (indices.count(v) == 0) continue;
        m.first.insert(indices.begin(), indices.end());
        m.second = std::max(m.second, depth + 1);
      }
      m.first.erase(v);
      return m;
    };
    while (!left.empty()) {
      std::size_t pick = 0;
      std::pair<std::size_t, std::size_t> least{std::numeric_limits<std::size_t>::max(), 0};
      for (std::size_t i = 0; i < left.size(); ++i) {
        const auto m = message_of(left[i]);
        const std::pair<std::size_t, std::size_t> cost{m.first.size(), m.second};
        if (cost < least) {
          least = cost;
          pick = i;
        }
      }
      auto message = message_of(left[pick]);
      std::vector<std::pair<std::set<std::string>, std::size_t>> rest;
      for (auto& scope : scopes) {
        if (scope.first.count(left[pick]) == 0) rest.push_back(std::move(scope));
      }
      rest.push_back(std::move(message));
      scopes = std::move(rest);
      greedy.push_back(left[pick]);
      left.erase(left.begin() + static_cast<std::ptrdiff_t>(pick));
    }
    if (const Elimination e = simulate(greedy); e.better_than(best)) best = e;
    return best;
  }

  /// A comparison no retrieval order resolves: only global aggregation reaches it (R4).
  Deps blocked(Comparison& c, int order, std::string why, const std::vector<Factor>& factors,
               const std::vector<std::string>& bound) {
    c.blocked = true;
    c.order = order;
    c.elimination = std::move(why);
    p_.comparisons.push_back(c);
    Quantity q;
    q.mode = Mode::kAggregation;
    q.order = order;
    q.what = "the whole sequence, for " + c.text;
    Deps d = leftovers(factors, bound);
    d.quantities.insert(add(q, ""));
    return d;
  }

  Deps extremum(const Node& n, const std::vector<std::string>& bound, std::vector<Factor> factors,
                const Deps& body_deps, const std::set<std::string>& scope, Comparison& c) {
    const Elimination e = best_order(factors, bound);
    const char* op = n.op == targets::ReduceOp::kMin || ranks_last(n) ? "min" : "max";
    if (split_products_ && e.widest < 2) {
      if (std::optional<Deps> split = separable_product(n, bound, factors, scope, c)) return *split;
      if (std::optional<Deps> split = absolute_split(n, factors, scope, c)) return *split;
    }
    if (e.widest >= 2) {
      if (std::optional<Deps> split = separable_product(n, bound, factors, scope, c)) return *split;
      if (std::optional<Deps> split = absolute_split(n, factors, scope, c)) return *split;
      if (blocked_only_by_products(factors, bound)) {
        outside("'" + c.text +
                "': a product of factors over independent groups of indices, "
                "beside other terms, is what couples the indices; its extremum is at a vertex of "
                "the groups, which no rule of the framework combines with the other terms: read "
                "as undecided, not as a blocked comparison");
      }
      if (bound.size() > kExhaustiveIndices) {
        // Not every order was tried: that none is admissible is not shown.
        outside(fmt::format("'{}': over {} indices, neither the written elimination order nor "
                            "the greedy one is admissible (a factor over {} indices remains), "
                            "and the {}! orders are not all tried: undecided, not a blocked "
                            "comparison",
                            c.text, bound.size(), e.widest, bound.size()));
      }
      return blocked(c, static_cast<int>(e.widest) + 1,
                     fmt::format("no elimination order: eliminating any index leaves a factor "
                                 "over {} indices", e.widest),
                     factors, bound);
    }
    std::vector<std::string> steps;
    int last = -1;
    std::string last_at;
    double last_ratio = 1;
    std::string last_index;
    for (const std::string& v : e.order) {
      std::set<std::string> message;
      std::set<int> needs;
      std::vector<std::string> texts;
      std::vector<std::string> constraints;
      std::vector<const Factor*> used;
      for (const Factor& f : factors) {
        if (f.indices.count(v) == 0) continue;
        message.insert(f.indices.begin(), f.indices.end());
        needs.insert(f.quantities.begin(), f.quantities.end());
        (f.constraint != nullptr ? constraints : texts).push_back(f.signed_text());
        used.push_back(&f);
      }
      // An index no term reads (its term was times 0) is free in a maximum's value: no fetch. A
      // selection still picks its token (by position, where its key ties).
      if (used.empty() && !n.has_key()) continue;
      message.erase(v);
      const std::string over =
          constraints.empty() ? v : fmt::format("{} ({})", v, fmt::join(constraints, ", "));
      const std::string at_name = message.empty() ? "" : *message.begin();
      std::map<std::string, std::string> rename{{v, "#v"}};
      if (!at_name.empty()) rename.emplace(at_name, "#u");
      std::vector<std::string> keys;
      const bool one_term = scoring_terms(used) == 1;  // y and 2 y: one token; y + 2 z: not y + z
      for (const Factor* f : used) keys.push_back(f->key(rename, one_term));
      // The value read at the retrieved token must be there: the body's quantities on v.
      if (body_deps.indices.count(v) != 0 || bound.size() == 1)
        needs.insert(body_deps.quantities.begin(), body_deps.quantities.end());
      const std::string& at = at_name;
      Quantity q;
      q.holder = at.empty() ? Holder::kGlobal : Holder::kToken;
      q.needs.assign(needs.begin(), needs.end());
      q.needs_ffn = !scores_from_raw_tokens(used, v, at, n.has_key());
      const std::string objective = fmt::format("{}", fmt::join(texts, " + "));
      // The minimum of -y is at the token of the maximum of y: one action (max(t) y - min(t) (-y)
      // is 2 max(t) y). A minimum is keyed as the maximum of its negated terms and messages; its
      // own message is then the negated value of the quantity.
      const bool negated = std::string(op) == "min";
      if (negated) {
        for (std::string& k : keys) {
          if (k.front() == '+' || k.front() == '-') k.front() = k.front() == '-' ? '+' : '-';
        }
      }
      std::sort(keys.begin(), keys.end());
      std::string key = fmt::format("ret|max|{}|{}", at.empty() ? "g" : "t", fmt::join(keys, ";"));
      for (const int need : needs) key += "|" + std::to_string(need);
      const int id = add(q, key);
      Quantity& made = p_.quantities[static_cast<std::size_t>(id)];
      if (made.what.empty()) {
        made.what = at.empty() ? fmt::format("{} = the token {}imising {} over {}", made.name,
                                             op, objective, over)
                               : fmt::format("{}({}) = for each token {}, the token {} {}imising {}",
                                             made.name, at, at, over, op, objective);
        if (made.needs_ffn) made.what += kScoreNeedsFfn;
        made.form = form_of(used, v, at, negated);
      }
      const double ratio = ratio_to_form(made.form, used, negated, one_term);
      const std::string label = at.empty() ? made.name : made.name + "(" + at + ")";
      steps.push_back(v + " -> " + label);
      std::vector<Factor> kept;
      for (Factor& f : factors) {
        if (f.indices.count(v) == 0) kept.push_back(std::move(f));
      }
      Factor m;
      m.indices = message;
      m.quantities = {id};
      m.text = label;
      m.message = id;
      m.message_at = at;
      m.ratio = ratio;
      // A score of one term was keyed up to its size; the message keeps the size (4 m(t) and
      // m(t) / 4 are two values for the next step).
      m.scale = std::string(negated ? "-" : "+") +
                (one_term && single_score(used)->magnitude != 1
                     ? fmt::format("*{}", single_score(used)->magnitude)
                     : "");
      kept.push_back(m);
      factors = std::move(kept);
      last = id;
      last_at = at;
      last_ratio = ratio;
      last_index = v;
    }
    c.order = static_cast<int>(e.widest) + 1;
    c.elimination = fmt::format("{}", fmt::join(steps, "; "));
    p_.comparisons.push_back(c);
    if (last >= 0 && last_at.empty()) record_value(n, factors, last, last_ratio, last_index);
    // A reduction held at a token (its value a message of the enclosing one) is that message.
    if (last >= 0 && !last_at.empty() && !n.has_key() && factors.size() == 1)
      p_.values.emplace(targets::to_text(n), value_of(last, last_ratio));
    // What is left (terms over outer indices only, and the messages) makes the value.
    Deps d = leftovers(factors, bound);
    if (last >= 0) d.quantities.insert(last);
    if (!last_at.empty()) d.indices.insert(last_at);
    outer_indices_of_body(body_deps, bound, d);
    return d;
  }

  /// The form of a retrieval made from `used` (the factors over `v`), held at `at`.
  static Form form_of(const std::vector<const Factor*>& used, const std::string& v,
                      const std::string& at, bool minimum) {
    Form form;
    form.index = v;
    form.at = at;
    form.minimum = minimum;
    form.known = true;
    for (const Factor* f : used) {
      if (f->constraint != nullptr) {
        form.constraints.push_back(*f->constraint);
      } else if (std::optional<FormTerm> t = form_term(*f)) {
        form.terms.push_back(std::move(*t));
      } else {
        form.known = false;
        form.unknown = "a parameter, not a number, scales the term " + f->text;
      }
    }
    return form;
  }

  /// This use's value over the value of the quantity's form: an action serves every score that
  /// is its own up to a positive number (one term) or up to the sign of a minimum.
  static double ratio_to_form(const Form& form, const std::vector<const Factor*>& used,
                              bool minimum, bool one_term) {
    const double sign = form.minimum == minimum ? 1 : -1;
    if (!one_term || form.terms.size() != 1) return sign;
    const Factor* mine = single_score(used);
    const std::optional<FormTerm> term = form_term(*mine);
    if (!term || term->coefficient == 0 || form.terms.front().coefficient == 0) return sign;
    return sign * std::abs(term->coefficient / form.terms.front().coefficient);
  }

  /// Program::values for a closed extremum resolved by `last`: its value, plus the terms left
  /// over that read no index (a constant offset); a selection's value is its body at the token.
  void record_value(const Node& n, const std::vector<Factor>& left, int last, double ratio,
                    const std::string& index) {
    std::vector<Node> terms;
    if (n.has_key()) {
      if (n.binders.size() != 1) return;
      Node select;
      select.kind = K::kCall;
      select.name = "#select";
      select.index = index;
      select.args = {value_of(last), n.args[0]};
      p_.values.emplace(targets::to_text(n), std::move(select));
      return;
    }
    terms.push_back(value_of(last, ratio));
    for (std::size_t i = 0; i < left.size(); ++i) {
      const Factor& f = left[i];
      if (i + 1 == left.size() && f.message == last) continue;  // the value itself
      if (!f.indices.empty() || f.constraint != nullptr) return;
      if (f.message >= 0) {  // a closed maximum eliminated before: a term of the value
        terms.push_back(value_of(f.message, f.ratio));
        continue;
      }
      const std::optional<FormTerm> t = form_term(f);
      if (!t) return;
      Node number;
      number.number = t->coefficient;
      Node product;
      product.kind = K::kMul;
      product.args = {number, *t->node};
      terms.push_back(std::move(product));
    }
    p_.values.emplace(targets::to_text(n), sum_of(std::move(terms)));
  }

  /// Program::values for a k-th largest resolved by its chain's last step `last`: the step's
  /// value, or the selection's body at its token; recorded where the score is the whole body.
  void record_rank_value(const Node& n, int last, const std::vector<const Factor*>& used,
                         const std::vector<Factor>& factors, const std::string& index,
                         const std::string& at) {
    if (used.size() != factors.size()) return;
    const Quantity& q = p_.quantities[static_cast<std::size_t>(last)];
    if (n.has_key()) {
      if (!at.empty()) return;
      Node select;
      select.kind = K::kCall;
      select.name = "#select";
      select.index = index;
      select.args = {value_of(last), n.args[0]};
      p_.values.emplace(targets::to_text(n), std::move(select));
      return;
    }
    const double ratio = ratio_to_form(q.form, used, false, scoring_terms(used) == 1);
    p_.values.emplace(targets::to_text(n), value_of(last, ratio));
  }

  /// A selection's body read at the selected token may also read an index bound further out
  /// (`max(s) max(t by dot(a, x[t])) dot(x[t], x[s])`): the value depends on that index too, so
  /// whatever reduces over it must wait for the selection (the key alone does not say so).
  static void outer_indices_of_body(const Deps& body_deps, const std::vector<std::string>& bound,
                                    Deps& d) {
    for (const std::string& i : body_deps.indices) {
      if (std::find(bound.begin(), bound.end(), i) == bound.end()) d.indices.insert(i);
    }
  }

  Deps ranked(const Node& n, const std::vector<std::string>& bound, std::vector<Factor> factors,
              const Deps& body_deps, long k, Comparison& c) {
    const bool selection = n.has_key();
    if (bound.size() != 1) {
      outside("'" + c.text + "': a k-th largest over index tuples is not a rule of the framework "
              "(Theorem 2 ranks single tokens)");
      return {};
    }
    const std::string& v = bound.front();
    std::set<std::string> message;
    std::set<int> needs;
    std::vector<std::string> texts;
    std::vector<const Factor*> used;
    for (const Factor& f : factors) {
      if (f.indices.count(v) == 0) continue;
      message.insert(f.indices.begin(), f.indices.end());
      needs.insert(f.quantities.begin(), f.quantities.end());
      texts.push_back(f.signed_text());
      used.push_back(&f);
    }
    message.erase(v);
    if (message.size() >= 2) {
      return blocked(c, static_cast<int>(message.size()) + 1,
                     "the k-th largest couples " + std::to_string(message.size() + 1) + " indices",
                     factors, bound);
    }
    needs.insert(body_deps.quantities.begin(), body_deps.quantities.end());
    const std::string at = message.empty() ? "" : *message.begin();
    const std::string objective = fmt::format("{}", fmt::join(texts, " + "));
    // Identical k-th largests (same rank, score up to renaming the indices, inputs) are one
    // chain, as identical retrievals are one action: kth(2, t) y + kth(2, s) y needs one.
    std::map<std::string, std::string> rename{{v, "#v"}};
    if (!at.empty()) rename.emplace(at, "#u");
    std::vector<std::string> keys;
    const bool one_term = scoring_terms(used) == 1;
    for (const Factor* f : used) keys.push_back(f->key(rename, one_term));
    std::sort(keys.begin(), keys.end());
    std::string chain_key = fmt::format("kth|{}|{}|{}|{}", k, at.empty() ? "g" : "t",
                                        selection ? "by" : "", fmt::join(keys, ";"));
    for (const int need : needs) chain_key += "|" + std::to_string(need);
    if (const auto same = merged_chains_.find(chain_key); same != merged_chains_.end()) {
      const Ranked& earlier = p_.ranked[same->second];
      std::vector<std::string> names;
      for (const int step : earlier.steps)
        names.push_back(p_.quantities[static_cast<std::size_t>(step)].name);
      c.order = at.empty() ? 1 : 2;
      c.elimination = fmt::format("{} -> {} (k = {} masked maxima, the chain of {})", v,
                                  fmt::join(names, ", "), k, earlier.text);
      p_.comparisons.push_back(c);
      record_rank_value(n, earlier.steps.back(), used, factors, v, at);
      Deps d = leftovers(factors, bound);
      d.quantities.insert(earlier.steps.back());
      if (!at.empty()) d.indices.insert(at);
      outer_indices_of_body(body_deps, bound, d);
      return d;
    }
    merged_chains_.emplace(chain_key, p_.ranked.size());
    Ranked r;
    r.rank = k;
    r.text = c.text;
    int previous = -1;
    std::vector<std::string> steps;
    for (long j = 1; j <= k; ++j) {
      Quantity q;
      q.holder = at.empty() ? Holder::kGlobal : Holder::kToken;
      q.mode = j == 1 ? Mode::kRetrieval : Mode::kRankStep;
      q.needs.assign(needs.begin(), needs.end());
      q.needs_ffn = !scores_from_raw_tokens(used, v, at, selection);
      if (previous >= 0) q.needs.push_back(previous);
      // Step j of every chain with this score is one action, the first the maximum's (max(t) y
      // + kth(2, t) y + kth(3, t) y is one chain of three).
      std::string step_key = fmt::format("{}|{}|{}", j == 1 ? "ret|max" : fmt::format("rank|{}", j),
                                         at.empty() ? "g" : "t", fmt::join(keys, ";"));
      for (const int need : needs) step_key += "|" + std::to_string(need);
      const int id = add(q, step_key);
      Quantity& made = p_.quantities[static_cast<std::size_t>(id)];
      if (made.what.empty()) {
        made.what = j == 1 ? fmt::format("{}{} = the token of the largest {} over {}", made.name,
                                         at.empty() ? "" : "(" + at + ")", objective, v)
                           : fmt::format("{}{} = the token of the largest {} over {} below {}'s",
                                         made.name, at.empty() ? "" : "(" + at + ")", objective, v,
                                         p_.quantities[static_cast<std::size_t>(previous)].name);
        if (made.needs_ffn) made.what += kScoreNeedsFfn;
        made.form = form_of(used, v, at, false);
        made.form.below = previous;
      }
      steps.push_back(made.name);
      r.steps.push_back(id);
      previous = id;
    }
    record_rank_value(n, previous, used, factors, v, at);
    p_.ranked.push_back(r);
    c.order = at.empty() ? 1 : 2;
    c.elimination = fmt::format("{} -> {} (k = {} masked maxima)", v, fmt::join(steps, ", "), k);
    p_.comparisons.push_back(c);
    Deps d = leftovers(factors, bound);
    d.quantities.insert(previous);
    if (!at.empty()) d.indices.insert(at);
    outer_indices_of_body(body_deps, bound, d);
    return d;
  }

  /// A sum over tokens: the mean mode prices a sum of token-wise values; anything else is
  /// outside the framework.
  Deps mean(const Node& n, const std::vector<std::string>& bound, const std::vector<Factor>& factors,
            bool summed, Comparison& c) {
    c.sum = true;
    c.order = 1;
    if (!n.constraints.empty()) {
      outside("'" + c.text + "': a sum over constrained index tuples grows its active index set with T; no mode prices it");
      return {};
    }
    Deps d;
    std::vector<std::string> steps;
    std::vector<Node> value;  // T times each mean, for Program::values
    bool value_known = true;
    for (const Factor& f : factors) {
      std::vector<std::string> on;
      for (const std::string& b : bound) {
        if (f.indices.count(b) != 0) on.push_back(b);
      }
      const bool outer = f.indices.size() > on.size();
      if (on.size() >= 2 || (!on.empty() && outer)) {
        outside("'" + c.text + "': the term " + f.text +
                " couples tokens inside a sum, whose active index set grows with T; no mode of "
                "the framework prices it");
        return {};
      }
      if (on.empty()) {  // a constant of the sum
        d.quantities.insert(f.quantities.begin(), f.quantities.end());
        d.indices.insert(f.indices.begin(), f.indices.end());
        value_known = false;
        continue;
      }
      // One uniform head averages every token-wise value the tokens hold at its layer, as many
      // as its dimension n carries: the means of terms that need the same quantities (and an
      // FFN or not) are one action (sum(t) (y_t^2 + z_t^2) once took a head a term, (1,2) where
      // (1,1) trains to 1.6e-4); the placement pools the means of one (layer, token class) on
      // heads of n values each (placement.cpp).
      Quantity q;
      q.mode = Mode::kMean;
      q.needs.assign(f.quantities.begin(), f.quantities.end());
      q.needs_at_tokens = true;
      q.needs_ffn = f.term == nullptr || !linear_in_tokens(*f.term, on.front());
      const int id =
          add(q, fmt::format("mean|{}|{}", fmt::join(q.needs, ","), q.needs_ffn ? "ffn" : ""));
      Quantity& made = p_.quantities[static_cast<std::size_t>(id)];
      const std::string term = f.signed_text();
      std::set<std::string>& averaged = averaged_[id];
      // 2 y's mean is y's; the means that are terms of the target's sum are one value, the mean
      // of their sum (sum(i = 1..20) sum(t) y_i^2 is one, where (sum(t) y_i)^2 are twenty).
      if (averaged.insert((summed ? "sum:" : "") + f.key({{on.front(), "#v"}}, true)).second) {
        const auto terms_of_the_sum =
            std::count_if(averaged.begin(), averaged.end(),
                          [](const std::string& k) { return k.rfind("sum:", 0) == 0; });
        made.values = static_cast<long>(averaged.size()) - terms_of_the_sum +
                      (terms_of_the_sum > 0 ? 1 : 0);
        made.what += made.what.empty()
                         ? fmt::format("{} = the mean over {} of {}", made.name, on.front(), term)
                         : fmt::format(", and of {}", term);
      }
      const std::string step = on.front() + " -> " + made.name;
      if (std::find(steps.begin(), steps.end(), step) == steps.end()) steps.push_back(step);
      d.quantities.insert(id);
      if (std::optional<Node> part = averaged_value(made, id, f, on.front())) {
        value.push_back(std::move(*part));
      } else {
        value_known = false;
      }
    }
    c.elimination = fmt::format("{} (uniform averages)", fmt::join(steps, "; "));
    p_.comparisons.push_back(c);
    if (value_known && !value.empty()) p_.values.emplace(c.text, sum_of(std::move(value)));
    return d;
  }

  /// T times the mean of factor `f` over `v` as a value of mean quantity `id`: a new value of
  /// its form, or a multiple of one it carries already (y and 2 y average one value).
  std::optional<Node> averaged_value(Quantity& made, int id, const Factor& f, const std::string& v) {
    std::optional<FormTerm> term = form_term(f);
    if (!term) {
      made.form.unknown = "a parameter, not a number, scales the averaged term " + f.text;
      return std::nullopt;
    }
    if (made.form.terms.empty() && made.form.unknown.empty()) {
      made.form.known = true;
      made.form.index = v;
    }
    const std::string key = f.key({{v, "#v"}}, true);
    std::vector<std::pair<std::string, double>>& carried = mean_values_[id];
    std::size_t component = 0;
    while (component < carried.size() && carried[component].first != key) ++component;
    double ratio = 1;
    if (component == carried.size()) {
      // In the form's own index name, so that its terms read one index.
      if (term->node && v != made.form.index) term->node = std::make_shared<const Node>(
                                               renamed(*term->node, v, made.form.index));
      if (term->message >= 0 && term->message_at == v) term->message_at = made.form.index;
      carried.emplace_back(key, term->coefficient);
      made.form.terms.push_back(*term);
    } else {
      ratio = term->coefficient / carried[component].second;
    }
    Node tokens;
    tokens.kind = K::kRef;
    tokens.name = "T";
    Node product;
    product.kind = K::kMul;
    product.args = {tokens, value_of(id, ratio, static_cast<int>(component))};
    return product;
  }

  /// Whether attention forms the score of a retrieval over `v` (at the token `at`; empty: at the
  /// readout) from the raw tokens, with no FFN before it (our rule, R1): a query-key product is
  /// bilinear, so each term must be one (query_key_product()), or the score a monotone function
  /// of one. A nonlinear function of one token (sqnorm(x[v]), a square, a norm) is a token
  /// quantity an FFN computes first. Terms read from earlier retrievals and index constraints
  /// are the planner's other rules' business.
  static bool scores_from_raw_tokens(const std::vector<const Factor*>& terms, const std::string& v,
                                     const std::string& at, bool selection) {
    // A monotone function of such a score alone is extreme where the score is (either way, so a
    // sign the terms dropped does not matter): attention retrieves by the score itself. Where
    // the token matters and not only the value (a `by` selection), it must be strictly monotone:
    // relu is flat below 0, where its minimum (or a maximum of all-negative scores) ties.
    if (scoring_terms(terms) == 1) {
      const Node* score = single_score(terms)->term;  // null: a message
      const std::vector<const char*> monotone_functions =
          selection ? std::vector<const char*>{"exp", "tanh"}
                    : std::vector<const char*>{"exp", "tanh", "relu"};
      for (const char* monotone : monotone_functions) {
        if (score != nullptr && call_of(*score, monotone, 1) &&
            query_key_product(score->args[0], v, at))
          return true;
      }
    }
    return std::all_of(terms.begin(), terms.end(), [&](const Factor* f) {
      return f->constraint != nullptr || f->message >= 0 || query_key_product(*f->term, v, at);
    });
  }

  /// The fewest tokens on which reduction `n` has an index tuple: its token indices, and the
  /// outer ones its constraints name, on tokens that each constraint keeps apart (an order
  /// chains: t1 < t2 < t3 needs three, s != t and t != u two). The least number of colours of
  /// that graph, by trying them in turn (a reduction binds a few indices).
  static long fewest_tokens(const Node& n) {
    std::vector<std::string> names;
    const auto id = [&](const std::string& name) {
      const auto it = std::find(names.begin(), names.end(), name);
      if (it != names.end()) return static_cast<std::size_t>(it - names.begin());
      names.push_back(name);
      return names.size() - 1;
    };
    for (const targets::Binder& b : n.binders) {
      if (!b.has_range) id(b.name);
    }
    for (const targets::IndexConstraint& c : n.constraints) {
      id(c.left);
      id(c.right);
    }
    const std::size_t v = names.size();
    std::vector<std::vector<bool>> apart(v, std::vector<bool>(v, false));
    std::vector<std::vector<bool>> before(v, std::vector<bool>(v, false));
    for (const targets::IndexConstraint& c : n.constraints) {
      const std::size_t a = id(c.left);
      const std::size_t b = id(c.right);
      apart[a][b] = apart[b][a] = true;
      if (c.strict_order) before[a][b] = true;
    }
    for (std::size_t k = 0; k < v; ++k) {
      for (std::size_t i = 0; i < v; ++i) {
        for (std::size_t j = 0; j < v; ++j) {
          if (before[i][k] && before[k][j]) before[i][j] = true;
        }
      }
    }
    for (std::size_t i = 0; i < v; ++i) {
      for (std::size_t j = 0; j < v; ++j) {
        if (before[i][j]) apart[i][j] = apart[j][i] = true;
      }
    }
    std::vector<long> colour(v, -1);
    const std::function<bool(std::size_t, long)> colourable = [&](std::size_t i, long colours) {
      if (i == v) return true;
      for (long k = 0; k < colours; ++k) {
        bool free = true;
        for (std::size_t j = 0; j < i; ++j) free = free && !(apart[i][j] && colour[j] == k);
        if (!free) continue;
        colour[i] = k;
        if (colourable(i + 1, colours)) return true;
      }
      return false;
    };
    long colours = 1;
    while (!colourable(0, colours)) ++colours;
    return colours;
  }

  /// One term attention forms from the raw tokens: linear in x[v], or (at a token `at`) a
  /// bilinear form of x[v] and x[at]: dot, bilinear(M, ., .), or a product of linear forms in
  /// the two tokens, the rank-one form x[v]^T (a b^T) x[at].
  static bool query_key_product(const Node& term, const std::string& v, const std::string& at) {
    if (linear_in_tokens(term, v)) return true;
    if (at.empty()) return false;
    const auto the_pair = [&](const Node& a, const Node& b) {
      return (token_at(a, v) && token_at(b, at)) || (token_at(a, at) && token_at(b, v));
    };
    if (call_of(term, "dot", 2) && the_pair(term.args[0], term.args[1])) return true;
    if (call_of(term, "bilinear", 3) && is_parameter(term.args[0]) &&
        the_pair(term.args[1], term.args[2]))
      return true;
    // u * w: a product of three or more factors has one of its own on the left, no linear form.
    if (term.kind != K::kMul) return false;
    const Node& left = term.args[0];
    const Node& right = term.args[1];
    return (linear_in_tokens(left, v) && linear_in_tokens(right, at)) ||
           (linear_in_tokens(left, at) && linear_in_tokens(right, v));
  }

  /// How many of a score's factors are terms (not index constraints).
  static long scoring_terms(const std::vector<const Factor*>& factors) {
    return std::count_if(factors.begin(), factors.end(),
                         [](const Factor* f) { return f->constraint == nullptr; });
  }

  /// The one term of a score that is not an index constraint (the caller counted them).
  static const Factor* single_score(const std::vector<const Factor*>& terms) {
    for (const Factor* f : terms) {
      if (f->constraint == nullptr) return f;
    }
    return nullptr;
  }

  /// `name(...)` with `arity` operands.
  static bool call_of(const Node& n, const char* name, std::size_t arity) {
    return n.kind == K::kCall && n.name == name && n.args.size() == arity;
  }

  /// The token x[v] itself, no offset.
  static bool token_at(const Node& n, const std::string& v) {
    return n.kind == K::kRef && n.name == "x" && n.index == v && n.offset == 0 && n.position == 0 &&
           n.position_name.empty();
  }

  /// A random parameter (a, A[i], A[3]): the only operand of dot or bilinear that a checked
  /// formula lets read no token.
  static bool is_parameter(const Node& n) { return n.kind == K::kRef && n.name != "x"; }

  /// A term that attention's values can carry without an FFN: x[v] or dot(a, x[v]), a a
  /// parameter.
  static bool linear_in_tokens(const Node& term, const std::string& v) {
    if (token_at(term, v)) return true;
    if (!call_of(term, "dot", 2)) return false;
    const Node& a = term.args[0];
    const Node& b = term.args[1];
    return (token_at(a, v) && is_parameter(b)) || (token_at(b, v) && is_parameter(a));
  }

  /// E1: a maximum over s of a maximum over t is one maximum over (s, t) (likewise for min),
  /// constraints included (max(s) max(t < s) is max(t < s) over both), so that elimination
  /// sees every index at once: written nested, max(s) max(t) max(u) (<x_s, x_t> + <x_t, x_u>)
  /// was compiled inner reduction first, one layer per level, where the chain needs two. Only
  /// where no selection, no range and no more indices than the exhaustive search tries.
  Node flatten(const Node& n) {  // NOLINT(misc-no-recursion)
    // Nested reductions of one kind are one before anything moves a term out of the inner one:
    // max(s) max(t) (y_s + z_t + <x_s, x_t>) as written is an elimination over (s, t), whose
    // best order shares s's message, where y_s pulled out of max(t) fixed t first.
    if (std::optional<Node> merged = nested_as_one(n, n)) return flatten(*merged);
    Node out = n;
    for (Node& a : out.args) a = flatten(a);
    // A selection whose body reads none of its indices is its body, whichever tuple the key
    // selects (max(t by bilinear(A, x[s], x[t])) dot(a, x[s]) is dot(a, x[s])): no action.
    if (out.kind == K::kReduce && out.has_key() &&
        std::none_of(out.binders.begin(), out.binders.end(),
                     [&](const targets::Binder& b) { return names_index(out.args[0], b.name); })) {
      idle_.push_back(targets::to_text(n));
      return out.args[0];
    }
    // u * u is u^2, which the rules for squares read (max(t) y * y is max |y|, two retrievals).
    if (out.kind == K::kMul && mentions_token(out.args[0]) &&
        canonical(out.args[0], {}) == canonical(out.args[1], {})) {
      Node square;
      square.kind = K::kPow;
      square.args = {out.args[0], Node{}};
      square.args[1].number = 2;
      return flatten(square);
    }
    if (std::optional<Node> copies = unrolled_sum(out)) return flatten(*copies);
    if (split_products_) {
      if (std::optional<Node> swapped = range_outside(out)) return flatten(*swapped);
    }
    if (std::optional<Node> split = outside_terms(out)) return flatten(*split);
    if (std::optional<Node> moved = anchored(out)) out = std::move(*moved);
    if (std::optional<Node> peeled = monotone_outside(out)) return *peeled;
    if (std::optional<Node> merged = nested_as_one(out, n)) return *merged;
    return out;
  }

  /// E1: `n`, a maximum of a maximum (or minima) over tokens, as one reduction (`written`: as
  /// the user wrote it, for the note).
  std::optional<Node> nested_as_one(const Node& n, const Node& written) {
    const auto plain = [](const Node& r) {
      return r.kind == K::kReduce && !r.has_key() &&
             (r.op == targets::ReduceOp::kMax || r.op == targets::ReduceOp::kMin) &&
             std::none_of(r.binders.begin(), r.binders.end(),
                          [](const targets::Binder& b) { return b.has_range; });
    };
    if (!plain(n) || !plain(n.args[0]) || n.args[0].op != n.op ||
        n.binders.size() + n.args[0].binders.size() > kExhaustiveIndices)
      return std::nullopt;
    Node out = n;
    Node inner = std::move(out.args[0]);
    out.binders.insert(out.binders.end(), inner.binders.begin(), inner.binders.end());
    out.constraints.insert(out.constraints.end(), inner.constraints.begin(),
                           inner.constraints.end());
    out.args[0] = std::move(inner.args[0]);
    note(targets::to_text(out),
         " (written " + targets::to_text(written) + ": nested reductions of one kind are one, E1)");
    return out;
  }

  /// Whether a binder runs over a range of its own, not over the tokens (as reduction() reads it).
  static bool ranged(const targets::Binder& b, const Node& n) {
    const bool all_tokens = b.low.name.empty() && b.low.value == 1 && b.high.name == "T";
    return b.has_range && !(all_tokens && subscripts_x(n, b.name));
  }

  /// E0: a sum over a range inside a token reduction's body, with no reduction inside it, is the
  /// sum of its copies, a term each (max(t) sum(i = 1..2) dot(a[i], x[t]) is max(t) of a linear
  /// score, one retrieval, trained 1.7e-4 on (1); the engine once read the sum as a score an FFN
  /// computes first, (1,1)). At most 16 copies, with its bounds known.
  std::optional<Node> unrolled_sum(const Node& n) const {
    if (n.kind != K::kReduce || n.op != targets::ReduceOp::kSum || n.has_key() ||
        !n.constraints.empty() ||
        !std::all_of(n.binders.begin(), n.binders.end(),
                     [&](const targets::Binder& b) { return ranged(b, n); }))
      return std::nullopt;
    bool reads_outer_token = false;
    bool nested = false;
    const std::function<void(const Node&)> visit = [&](const Node& m) {
      nested = nested || m.kind == K::kReduce;
      if (m.kind == K::kRef && m.name == "x" && !m.index.empty() &&
          std::none_of(n.binders.begin(), n.binders.end(),
                       [&](const targets::Binder& b) { return b.name == m.index; }))
        reads_outer_token = true;
      for (const Node& a : m.args) visit(a);
    };
    visit(n.args[0]);
    if (nested || !reads_outer_token) return std::nullopt;
    std::vector<Node> copies{n.args[0]};
    try {
      for (const targets::Binder& b : n.binders) {
        const long low = resolve(b.low, b.column);
        const long high = resolve(b.high, b.column);
        if (high < low || static_cast<long>(copies.size()) * (high - low + 1) > 16)
          return std::nullopt;
        std::vector<Node> next;
        for (const Node& c : copies) {
          for (long v = low; v <= high; ++v) next.push_back(substitute(c, b.name, v));
        }
        copies = std::move(next);
      }
    } catch (const InputError&) {  // a bound with no value: the sum stays
      return std::nullopt;
    }
    Node sum = std::move(copies.front());
    for (std::size_t i = 1; i < copies.size(); ++i) {
      Node next;
      next.kind = K::kAdd;
      next.args = {std::move(sum), std::move(copies[i])};
      sum = std::move(next);
    }
    return sum;
  }

  /// E0: a maximum over tokens of a maximum over a range (or minima) is the maximum over the
  /// range of the maximum over tokens, which the range unrolls into copies: max(t) max(i = 1..2)
  /// dot(a[i], x[t]) is two retrievals, as written the other way round (trained 6.8e-4 on (2);
  /// the engine once said exponential on (2)). The second reading only: where an FFN computes
  /// the inner maximum at each token (max_i |A_i x_t|), one retrieval after it is cheaper.
  static std::optional<Node> range_outside(const Node& n) {
    const auto plain = [](const Node& r) {
      return r.kind == K::kReduce && !r.has_key() && r.constraints.empty() &&
             (r.op == targets::ReduceOp::kMax || r.op == targets::ReduceOp::kMin);
    };
    if (!plain(n) || !plain(n.args[0]) || n.args[0].op != n.op) return std::nullopt;
    const Node& inner = n.args[0];
    if (std::any_of(n.binders.begin(), n.binders.end(),
                    [&](const targets::Binder& b) { return ranged(b, n); }) ||
        !std::all_of(inner.binders.begin(), inner.binders.end(),
                     [&](const targets::Binder& b) { return ranged(b, inner); }))
      return std::nullopt;
    Node outer = n;
    outer.args[0] = inner.args[0];
    Node out = inner;
    out.args[0] = std::move(outer);
    return out;
  }

  /// E1: the extremum over t of A + B, A reading none of the reduction's indices, is A plus the
  /// extremum of B (a k-th largest and a selection likewise: adding A reorders nothing, and
  /// the key picks the tuple). So the terms of the body that read none of them leave it, each
  /// planned on its own: max(s) min(t) (y_s + z_t) is max(s) y_s + min(t) z_t, two retrievals
  /// (trained, T = 8: (2) 4.5e-4, 3.3e-4; (1) 7.4e-2), where the engine once planned a pair,
  /// exponential on (2). A sum's terms would leave it times the count of its tuples, which
  /// the language cannot write (T is no number of a formula): sums are left as they are.
  std::optional<Node> outside_terms(const Node& n) {
    if (n.kind != K::kReduce || n.op == targets::ReduceOp::kSum) return std::nullopt;
    std::vector<std::pair<const Node*, bool>> inside;  // (term, negated)
    std::vector<std::pair<const Node*, bool>> outside;
    const std::function<void(const Node&, bool)> split = [&](const Node& m, bool negated) {
      if (m.kind == K::kAdd || m.kind == K::kSub) {
        split(m.args[0], negated);
        split(m.args[1], m.kind == K::kSub ? !negated : negated);
      } else if (m.kind == K::kNeg) {
        split(m.args[0], !negated);
      } else {
        const bool reads = std::any_of(n.binders.begin(), n.binders.end(),
                                       [&](const targets::Binder& b) { return names_index(m, b.name); });
        (reads ? inside : outside).emplace_back(&m, negated);
      }
    };
    split(n.args[0], false);
    if (inside.empty() || outside.empty()) return std::nullopt;
    const auto sum = [](const std::vector<std::pair<const Node*, bool>>& terms, Node first) {
      for (const auto& [term, negated] : terms) {
        Node next;
        next.kind = negated ? K::kSub : K::kAdd;
        next.args = {std::move(first), *term};
        first = std::move(next);
      }
      return first;
    };
    const auto leading = [](const std::pair<const Node*, bool>& term) {
      if (!term.second) return *term.first;
      Node negated;
      negated.kind = K::kNeg;
      negated.args = {*term.first};
      return negated;
    };
    Node reduction = n;
    reduction.args[0] = sum({inside.begin() + 1, inside.end()}, leading(inside.front()));
    note(targets::to_text(reduction),
         " (written " + targets::to_text(n) +
             ": a term that reads none of its indices moves out of the extremum, E1)");
    Node out;
    out.kind = K::kAdd;
    out.args = {sum({outside.begin() + 1, outside.end()}, leading(outside.front())),
                std::move(reduction)};
    return out;
  }

  /// R5: a reduction over one token index t that reads x only at offsets of t (x[t-1], x[t+1])
  /// is the same reduction anchored at one of them (x[t], x[t+2]) where the two take the same
  /// values on random sequences (the zero vector outside 1..T must leave the boundary terms
  /// unchanged, as in a dot): each token then fetches one neighbour, not two (the engine once
  /// said (1,1,1) for max(t) dot(x[t-1], x[t+1]), which trains to 3.1e-4 on (1,1), the very
  /// NMSE of max(t) dot(x[t], x[t+2])).
  std::optional<Node> anchored(const Node& n) {
    if (n.kind != K::kReduce || n.binders.size() != 1 || n.binders[0].has_range ||
        !n.constraints.empty())
      return std::nullopt;
    const std::string& t = n.binders[0].name;
    std::set<long> offsets;
    std::function<void(const Node&)> collect = [&](const Node& m) {
      if (m.kind == K::kRef && m.name == "x" && m.index == t) offsets.insert(m.offset);
      for (const Node& a : m.args) collect(a);
    };
    for (const Node& a : n.args) collect(a);
    if (offsets.empty() || offsets.count(0) != 0) return std::nullopt;
    std::function<Node(Node, long)> shifted = [&](Node m, long by) {
      if (m.kind == K::kRef && m.name == "x" && m.index == t) m.offset -= by;
      for (Node& a : m.args) a = shifted(std::move(a), by);
      return m;
    };
    const std::string written = targets::to_text(n);
    for (const long anchor : offsets) {
      Node moved = n;
      for (Node& a : moved.args) a = shifted(std::move(a), anchor);
      try {
        if (!detail::same_values(targets::Formula::from_tree(n), targets::Formula::from_tree(moved),
                                 bindings_, token_dim_))
          continue;
      } catch (const InputError&) {  // an index bound further out
        return std::nullopt;
      }
      note(targets::to_text(moved), " (written " + written + ": the same values anchored at x[" +
                                        t + fmt::format("{:+}", anchor) + "], R5)");
      return moved;
    }
    return std::nullopt;
  }

  /// R1's monotone rewrite: an extremum over some indices of a monotone function of a score,
  /// the function reading none of them, is that function of the score's extremum (its opposite
  /// extremum where the function decreases), at the same tuple, so the score is eliminated
  /// alone: max(r, s, t) (abs(E) + 1) is max |E| + 1, six retrievals (the engine once said
  /// super-polynomial: |E| + 1 was no |E|); min(t) -abs(L) is -max |L|; max(s, t) exp(f(s) +
  /// g(t)) two independent maxima (once one coupled pair, (1,1,1)). Peeled from the top: a
  /// closed term added or subtracted, a product or quotient by a nonzero number, a negation,
  /// exp, log, sqrt, tanh, an odd power, and relu, which is flat below 0 and so not in a key,
  /// where the token matters and its flat part ties (a selection's key is peeled, its value
  /// kept). A k-th largest keeps its direction: there is no k-th smallest to turn to.
  std::optional<Node> monotone_outside(const Node& n) {  // NOLINT(misc-no-recursion)
    if (n.kind != K::kReduce || n.op == targets::ReduceOp::kSum) return std::nullopt;
    // E5 on the reduction as written: max(t) relu(-sqnorm(x[t])) is 0, which relu(min(t)
    // sqnorm(x[t])) would hide (the engine once said (1,1) for it plus a maximum).
    if (closed_constant(n)) return std::nullopt;
    const bool keyed = n.has_key();
    const Node& score = keyed ? n.args[1] : n.args[0];
    std::vector<std::size_t> path;  // the argument followed at each step
    bool decreasing = false;
    const Node* at = &score;
    for (std::optional<MonotoneStep> step = monotone_step(*at, keyed);
         step && !(n.op == targets::ReduceOp::kKth && step->decreasing);
         step = monotone_step(*at, keyed)) {
      path.push_back(step->argument);
      decreasing = decreasing != step->decreasing;
      at = &at->args[step->argument];
    }
    // An even power E^p, p >= 4, is |E|^p, non-decreasing in |E|: an extremum of it is one of
    // |E| (max(t) y^4 is (max |y|)^4, two retrievals; the engine once said exponential on (2),
    // where (2) trains to 2e-3 to 6e-3). E^2 is read by the rules for |E| and E^2 themselves.
    const bool even_power = at->kind == K::kPow && at->args[1].kind == K::kNumber &&
                            at->args[1].number >= 4 && std::fmod(at->args[1].number, 2) == 0;
    if (path.empty() && !even_power) return std::nullopt;
    Node extremum = n;
    if (decreasing)
      extremum.op = n.op == targets::ReduceOp::kMax ? targets::ReduceOp::kMin : targets::ReduceOp::kMax;
    if (even_power) {
      Node magnitude;
      magnitude.kind = K::kCall;
      magnitude.name = "abs";
      magnitude.args = {at->args[0]};
      extremum.args[keyed ? 1 : 0] = std::move(magnitude);
    } else {
      extremum.args[keyed ? 1 : 0] = *at;
    }
    extremum = flatten(extremum);
    std::string how =
        keyed ? (decreasing ? "a strictly decreasing function of the key selects the token of "
                              "the opposite extremum"
                            : "a strictly increasing function of the key selects the same token")
              : n.op == targets::ReduceOp::kKth
              ? "a non-decreasing function of the score, at the score's tuple of the same rank"
              : (decreasing ? "a non-increasing function of the score, at the score's opposite "
                              "extremum"
                            : "a non-decreasing function of the score, at the score's extremum");
    if (even_power) how += "; an even power, |E|^p, is so of |E|";
    note(targets::to_text(extremum), fmt::format(" (written {}: {}, R1)", targets::to_text(n), how));
    if (keyed) return extremum;
    Node out = score;
    Node* slot = &out;
    for (const std::size_t i : path) slot = &slot->args[i];
    if (even_power) slot = &slot->args[0];  // the power stays, of the extremum of |E|
    *slot = std::move(extremum);
    return out;
  }

  const targets::Formula& formula_;
  const targets::Bindings& bindings_;
  std::vector<std::string> idle_;  // selections whose body reads none of their indices
  long token_dim_ = 0;             // the target's d, if known: E4 and E5 try it too
  bool split_products_ = false;    // every separable product at its vertices (the alternative)
  bool summed_ = true;  // the expression compiled is a term of the target's sum (R6's values)
  Node root_;
  std::map<std::string, std::string> notes_;  // a rewritten reduction: how it was written
  std::map<int, std::set<std::string>> averaged_;  // a mean quantity: the terms it averages
  std::deque<Node> made_;  // terms made by distributing dot over sums (stable addresses)
  Program p_;
  std::map<std::string, int> merged_;
  std::map<std::string, std::size_t> merged_chains_;  // a k-th largest's chain: its Ranked
  int positions_ = -1;
  std::vector<std::string> position_names_;
};

bool has_selection(const Node& n) {
  if (n.has_key()) return true;
  return std::any_of(n.args.begin(), n.args.end(), [](const Node& a) { return has_selection(a); });
}

/// E4: the constructs noted while compiling may read token order; the target's values decide
/// whether they do (a symmetric body under s < t, whatever its syntax, does not), and find what
/// no construct shows: a selection (`by`) whose key ties takes the first tuple in token order.
/// Where the formula cannot be evaluated, the constructs stand.
void decide_order(const targets::Formula& formula, const targets::Bindings& bindings,
                  long token_dim, Program& p) {
  // Reductions over all tokens with no selection: no permutation changes their values.
  if (!formula.reads_positions() && !has_selection(formula.root())) return;
  const std::optional<bool> changes =
      detail::changes_when_tokens_permuted(formula, bindings, token_dim);
  if (!changes) return;
  if (!*changes) {
    p.order_dependent.clear();
  } else if (p.order_dependent.empty()) {
    p.order_dependent.push_back(
        "permuting the tokens changes its value: a selection ('by') whose key ties takes the "
        "first tuple in token order");
  }
}

}  // namespace

std::string to_text(Mode mode) {
  switch (mode) {
    case Mode::kRetrieval:
      return "max-position retrieval";
    case Mode::kRankStep:
      return "masked retrieval";
    case Mode::kPositions:
      return "specific-position aggregation";
    case Mode::kRelative:
      return "relative-position fetch";
    case Mode::kMean:
      return "uniform aggregation";
    case Mode::kAggregation:
      return "global aggregation";
  }
  return "";
}

bool Program::blocked() const {
  return std::any_of(quantities.begin(), quantities.end(),
                     [](const Quantity& q) { return q.mode == Mode::kAggregation; });
}

long Program::dimension() const {
  std::set<std::string> distinct;
  for (const Comparison& c : comparisons) {
    if (c.counts()) distinct.insert(c.text);
  }
  return static_cast<long>(distinct.size());
}

bool Program::reads_positions() const {
  return std::any_of(quantities.begin(), quantities.end(), [](const Quantity& q) {
    return q.mode == Mode::kPositions || q.mode == Mode::kRelative;
  });
}

std::string Program::elimination_text() const {
  std::string out;
  for (const Comparison& c : comparisons) out += (out.empty() ? "" : "; ") + c.elimination;
  return out;
}

Program compile(const targets::Formula& formula, const targets::Bindings& bindings, long token_dim,
                bool split_products) {
  if (std::optional<std::string> why = detail::broken_hypothesis(formula, bindings, token_dim)) {
    Program p;
    p.outside = std::move(why);
    return p;
  }
  // Equal targets written differently compile alike (C0). Where the canonical form cannot be
  // compiled, the written one is, so that an error points into the formula as written.
  const CanonicalForm canonical = canonical_form(formula.root());
  if (const std::string text = targets::to_text(canonical.root);
      !canonical.applied.empty() && text != targets::to_text(formula.root())) {
    try {
      const targets::Formula read = targets::Formula::from_tree(canonical.root);
      Program p = Compiler(read, bindings, token_dim, split_products).run();
      decide_order(read, bindings, token_dim, p);
      p.read_as = text;
      p.rewrites = canonical.applied;
      return p;
    } catch (const InputError&) {
    }
  }
  Program p = Compiler(formula, bindings, token_dim, split_products).run();
  decide_order(formula, bindings, token_dim, p);
  return p;
}

}  // namespace infoflow::theorems
