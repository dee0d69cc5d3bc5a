#include "infoflow/targets/formula.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <system_error>
#include <set>

#include <tao/pegtl.hpp>
#include <tao/pegtl/contrib/parse_tree.hpp>

#include "infoflow/core/limits.hpp"

namespace infoflow::targets {

namespace peg = tao::pegtl;

namespace grammar {

struct sp : peg::star<peg::space> {};
template <class Rule>
struct tok : peg::seq<Rule, sp> {};

struct number : peg::seq<peg::plus<peg::digit>, peg::opt<peg::one<'.'>, peg::plus<peg::digit>>> {};
struct name : peg::identifier {};
struct kw_max : TAO_PEGTL_KEYWORD("max") {};
struct kw_min : TAO_PEGTL_KEYWORD("min") {};
struct kw_sum : TAO_PEGTL_KEYWORD("sum") {};
struct kw_kth : TAO_PEGTL_KEYWORD("kth") {};
struct kw_by : TAO_PEGTL_KEYWORD("by") {};

struct open_paren : tok<peg::one<'('>> {};
struct close_paren : tok<peg::one<')'>> {};
struct comma : tok<peg::one<','>> {};
struct close_bracket : tok<peg::one<']'>> {};
struct dots : tok<TAO_PEGTL_STRING("..")> {};

struct expr;
struct unary;

struct bound : peg::sor<number, name> {};
struct range : peg::seq<tok<bound>, peg::must<dots>, peg::must<tok<bound>>> {};
struct binder : peg::seq<tok<name>, peg::opt<tok<peg::one<'='>>, peg::must<range>>> {};
struct not_equal : TAO_PEGTL_STRING("!=") {};
struct less : peg::one<'<'> {};
struct chain_op : peg::sor<not_equal, less> {};
struct chain : peg::seq<tok<name>, peg::plus<tok<chain_op>, peg::must<tok<name>>>> {};
struct binders : peg::list_must<peg::sor<chain, binder>, comma> {};

struct reduce_op : peg::sor<kw_max, kw_min, kw_sum> {};
struct key : peg::seq<tok<kw_by>, peg::must<expr>> {};
struct reduction : peg::seq<tok<reduce_op>, open_paren, peg::must<binders>, peg::opt<key>,
                            peg::must<close_paren>, peg::must<unary>> {};
/// The comma after kth's rank: its own rule, so that what stands there says what a rank is.
struct rank_end : tok<peg::one<','>> {};
struct kth
    : peg::seq<tok<kw_kth>, peg::must<open_paren>, peg::must<tok<bound>>, peg::must<rank_end>,
               peg::must<binders>, peg::opt<key>, peg::must<close_paren>, peg::must<unary>> {};
struct call : peg::seq<tok<name>, open_paren, peg::list_must<expr, comma>, peg::must<close_paren>> {
};
struct subscript_value : peg::sor<number, name> {};
struct offset_sign : tok<peg::one<'+', '-'>> {};
struct subscript_offset : peg::seq<offset_sign, peg::must<tok<number>>> {};
struct ref : peg::seq<tok<name>, peg::opt<tok<peg::one<'['>>, peg::must<tok<subscript_value>>,
                                          peg::opt<subscript_offset>, peg::must<close_bracket>>> {
};
struct paren : peg::seq<open_paren, peg::must<expr>, peg::must<close_paren>> {};
struct literal : tok<number> {};
struct primary : peg::sor<literal, reduction, kth, call, ref, paren> {};
struct power : peg::seq<primary, peg::opt<tok<peg::one<'^'>>, peg::must<unary>>> {};
struct negate : peg::seq<tok<peg::one<'-'>>, peg::must<unary>> {};
struct unary : peg::sor<negate, power> {};
struct mul_op : tok<peg::one<'*', '/'>> {};
struct term : peg::seq<unary, peg::star<mul_op, peg::must<unary>>> {};
struct add_op : tok<peg::one<'+', '-'>> {};
struct expr : peg::seq<term, peg::star<add_op, peg::must<term>>> {};
struct formula : peg::seq<sp, peg::must<expr>, peg::must<peg::eof>> {};

template <class Rule>
struct message {
  static constexpr const char* text = "syntax error";
};
#define INFOFLOW_MESSAGE(rule, msg)          \
  template <>                                \
  struct message<rule> {                     \
    static constexpr const char* text = msg; \
  }
INFOFLOW_MESSAGE(expr, "expected an expression");
INFOFLOW_MESSAGE(unary, "expected an operand");
INFOFLOW_MESSAGE(term, "expected an operand");
INFOFLOW_MESSAGE(peg::eof, "unexpected text after the formula");
INFOFLOW_MESSAGE(close_paren, "expected ')'");
INFOFLOW_MESSAGE(open_paren, "expected '('");
INFOFLOW_MESSAGE(close_bracket, "expected ']'");
INFOFLOW_MESSAGE(comma, "expected ','");
INFOFLOW_MESSAGE(rank_end,
                 "expected ',' after kth's rank, which is an integer or the name of one "
                 "(kth(2, t), kth(k, t), kth(T, t)), not an expression");
INFOFLOW_MESSAGE(binders, "expected an index, e.g. t, s != t or i = 1..D");
INFOFLOW_MESSAGE(range, "expected a range, e.g. 1..D");
INFOFLOW_MESSAGE(dots, "expected '..' in the range");
INFOFLOW_MESSAGE(tok<bound>, "expected an integer or a name");
INFOFLOW_MESSAGE(tok<name>, "expected an index name");
INFOFLOW_MESSAGE(tok<subscript_value>, "expected an index or a position");
INFOFLOW_MESSAGE(tok<number>, "expected an integer offset, e.g. x[t+1]");
#undef INFOFLOW_MESSAGE

/// How deep the parse is: every level of recursion enters a negation or a power.
struct Depth {
  std::size_t now = 0;
};
template <class Rule>
inline constexpr bool kNests = std::is_same_v<Rule, negate> || std::is_same_v<Rule, power>;

template <class Rule>
struct control : peg::normal<Rule> {
  template <class Input, class... States>
  [[noreturn]] static void raise(const Input& in, States&&... /*unused*/) {
    throw peg::parse_error(message<Rule>::text, in);
  }
  template <class Input>
  static void start(const Input& in, Depth& depth) {
    if (kNests<Rule> && ++depth.now > limits::kNesting) {
      throw peg::parse_error(
          "nested more than " + std::to_string(limits::kNesting) + " levels deep", in);
    }
  }
  template <class Input>
  static void success(const Input& /*unused*/, Depth& depth) {
    if (kNests<Rule>) --depth.now;
  }
  template <class Input>
  static void failure(const Input& /*unused*/, Depth& depth) {
    if (kNests<Rule>) --depth.now;
  }
};

template <class Rule>
using selector = peg::parse_tree::selector<
    Rule,
    peg::parse_tree::store_content::on<number, name, bound, subscript_value, reduce_op, not_equal,
                                       less, mul_op, add_op, offset_sign>,
    peg::parse_tree::remove_content::on<expr, term, negate, power, reduction, kth, key, call, ref,
                                        binder, chain, range, binders, literal, subscript_offset>>;

}  // namespace grammar

namespace {

using PNode = peg::parse_tree::node;

[[noreturn]] void fail(const SourceLocation& where, std::size_t column,
                       const std::string& message) {
  SourceLocation at = where;
  at.column = (where.column > 0 ? where.column - 1 : 0) + column;
  if (at.line == 0) at.line = 1;
  throw InputError(at, message);
}

std::size_t column_of(const PNode& n) {
  return n.begin().column;
}

/// An integer of the formula; one that does not fit a long is bad input at its column.
/// A number as written, its middle cut out when it is long (a 400-digit literal).
std::string abbreviated(std::string_view s) {
  if (s.size() <= 24) return std::string(s);
  return std::string(s.substr(0, 12)) + "..." + std::string(s.substr(s.size() - 6)) + " (" +
         std::to_string(s.size()) + " characters)";
}

long to_long(const PNode& n, const SourceLocation& where) {
  const std::string_view s = n.string_view();
  long v = 0;
  const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (error != std::errc() || end != s.data() + s.size())
    fail(where, column_of(n), "the integer " + abbreviated(s) + " is out of range");
  return v;
}

/// A literal's value; one past a double's range (over 1.8e308, or so small that it would be
/// 0) is refused at its column.
double to_double(const PNode& n, const SourceLocation& where) {
  const std::string_view s = n.string_view();
  double v = 0;
  const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (error != std::errc() || end != s.data() + s.size()) {
    fail(where, column_of(n),
         "the number " + abbreviated(s) +
             " is out of range (a number is 0, or between 4.9e-324 and 1.8e308 in size)");
  }
  return v;
}

Bound to_bound(const PNode& n, const SourceLocation& where) {
  const PNode& inner = *n.children.front();
  if (inner.is_type<grammar::number>()) return Bound{to_long(inner, where), ""};
  return Bound{0, inner.string()};
}

/// Turns PEGTL's generic tree into our AST.
class Builder {
 public:
  explicit Builder(const SourceLocation& where) : where_(where) {}

  Node build(const PNode& n) {
    if (n.is_type<grammar::expr>() || n.is_type<grammar::term>()) return fold(n);
    if (n.is_type<grammar::negate>()) {
      Node out;
      out.kind = Node::Kind::kNeg;
      out.column = column_of(n);
      out.args.push_back(build(*n.children.front()));
      return out;
    }
    if (n.is_type<grammar::power>()) {
      Node base = build(*n.children.front());
      if (n.children.size() == 1) return base;
      Node out;
      out.kind = Node::Kind::kPow;
      out.column = base.column;
      out.args.push_back(std::move(base));
      out.args.push_back(build(*n.children.back()));
      return out;
    }
    if (n.is_type<grammar::literal>()) {
      Node out;
      out.kind = Node::Kind::kNumber;
      out.number = to_double(*n.children.front(), where_);
      out.column = column_of(n);
      return out;
    }
    if (n.is_type<grammar::ref>()) return ref(n);
    if (n.is_type<grammar::call>()) {
      Node out;
      out.kind = Node::Kind::kCall;
      out.name = n.children.front()->string();
      out.column = column_of(n);
      for (std::size_t i = 1; i < n.children.size(); ++i) out.args.push_back(build(*n.children[i]));
      return out;
    }
    if (n.is_type<grammar::reduction>() || n.is_type<grammar::kth>()) return reduction(n);
    // A parenthesised expression or a pass-through rule: its single child.
    if (n.children.size() == 1) return build(*n.children.front());
    fail(where_, column_of(n), "internal: unexpected parse node " + std::string(n.type));
  }

 private:
  Node fold(const PNode& n) {
    Node left = build(*n.children.front());
    for (std::size_t i = 1; i + 1 < n.children.size(); i += 2) {
      const char op = n.children[i]->string_view().front();  // the token keeps its spaces
      Node out;
      out.kind = op == '+'   ? Node::Kind::kAdd
                 : op == '-' ? Node::Kind::kSub
                 : op == '*' ? Node::Kind::kMul
                             : Node::Kind::kDiv;
      out.column = left.column;
      out.args.push_back(std::move(left));
      out.args.push_back(build(*n.children[i + 1]));
      left = std::move(out);
    }
    return left;
  }

  Node ref(const PNode& n) {
    Node out;
    out.kind = Node::Kind::kRef;
    out.name = n.children.front()->string();
    out.column = column_of(n);
    if (n.children.size() >= 2) {
      const PNode& sub = *n.children[1]->children.front();
      const bool literal = sub.is_type<grammar::number>();
      if (literal) {
        out.position = to_long(sub, where_);
        if (out.position < 1) fail(where_, column_of(sub), "positions count from 1");
      } else {
        out.index = sub.string();
      }
      if (n.children.size() == 3) {
        const PNode& offset = *n.children[2];
        if (literal) {
          fail(where_, column_of(offset),
               "an offset goes with an index or T (x[t+1], x[T-1]); write the position itself");
        }
        const long magnitude = to_long(*offset.children[1], where_);
        out.offset = offset.children[0]->string_view().front() == '-' ? -magnitude : magnitude;
      }
    }
    return out;
  }

  Node reduction(const PNode& n) {
    Node out;
    out.kind = Node::Kind::kReduce;
    out.column = column_of(n);
    std::size_t i = 0;
    if (n.is_type<grammar::kth>()) {
      out.op = ReduceOp::kKth;
      out.rank = to_bound(*n.children[i++], where_);
    } else {
      const std::string op = n.children[i++]->string();
      out.op = op == "max" ? ReduceOp::kMax : op == "min" ? ReduceOp::kMin : ReduceOp::kSum;
    }
    for (const auto& item : n.children[i++]->children) {
      if (item->is_type<grammar::binder>()) {
        Binder b{item->children.front()->string(), false, {}, {}, column_of(*item)};
        if (item->children.size() == 2) {
          b.has_range = true;
          b.low = to_bound(*item->children[1]->children[0], where_);
          b.high = to_bound(*item->children[1]->children[1], where_);
        }
        out.binders.push_back(b);
      } else {  // chain: name (op name)+
        const auto& c = item->children;
        out.binders.push_back(Binder{c[0]->string(), false, {}, {}, column_of(*c[0]), true});
        for (std::size_t k = 1; k + 1 < c.size(); k += 2) {
          out.binders.push_back(
              Binder{c[k + 1]->string(), false, {}, {}, column_of(*c[k + 1]), true});
          out.constraints.push_back(
              {c[k - 1]->string(), c[k]->is_type<grammar::less>(), c[k + 1]->string()});
        }
      }
    }
    Node key;
    bool has_key = false;
    if (n.children[i]->is_type<grammar::key>()) {
      key = build(*n.children[i]->children.front());
      has_key = true;
      ++i;
    }
    out.args.push_back(build(*n.children[i]));
    if (has_key) out.args.push_back(std::move(key));
    return out;
  }

  SourceLocation where_;
};

}  // namespace

/// Kinds, arities, index scopes and parameter kinds.
class Checker {
 public:
  Checker(Formula& f, const SourceLocation& where) : f_(f), where_(where) {}

  void run() {
    check(f_.root_);
    if (f_.root_.value != ValueKind::kScalar)
      fail(where_, f_.root_.column, "the formula must be a number, not a vector");
    std::sort(f_.parameters_.begin(), f_.parameters_.end(),
              [](const Parameter& a, const Parameter& b) { return a.first_use < b.first_use; });
  }

 private:
  struct Scope {
    std::string name;
    bool used = false;
    bool subscripts_x = false;
    bool subscripts_parameter = false;
    const Binder* binder = nullptr;
  };

  void note_integer(const Bound& b) {
    if (!b.name.empty() && std::find(f_.free_integers_.begin(), f_.free_integers_.end(), b.name) ==
                               f_.free_integers_.end()) {
      f_.free_integers_.push_back(b.name);
    }
  }

  /// A name some range, rank or position of the formula uses as an integer (D in 1..D).
  [[nodiscard]] bool is_integer_name(const std::string& name) const {
    return std::find(integer_names_.begin(), integer_names_.end(), name) != integer_names_.end();
  }

  Scope* find(const std::string& name) {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      if (it->name == name) return &*it;
    }
    return nullptr;
  }

  Parameter& parameter(const Node& n, ValueKind kind) {
    for (Parameter& p : f_.parameters_) {
      if (p.name != n.name) continue;
      if (p.kind != kind) {
        fail(where_, n.column,
             "parameter '" + n.name + "' is used as a " + kind_name(kind) + " here but as a " +
                 kind_name(p.kind) + " before");
      }
      if (p.indexed != (!n.index.empty() || n.position > 0)) {
        fail(where_, n.column, "parameter '" + n.name + "' is used with and without a subscript");
      }
      return p;
    }
    Parameter p{n.name, kind, !n.index.empty() || n.position > 0, {}, counter_++};
    f_.parameters_.push_back(p);
    return f_.parameters_.back();
  }

  static std::string kind_name(ValueKind k) {
    return k == ValueKind::kScalar ? "number" : k == ValueKind::kVector ? "vector" : "matrix";
  }

  void expect(const Node& n, ValueKind kind, const std::string& context) {
    if (n.value != kind) {
      // dot(2 * a, x[t]): a parameter takes its kind from where it stands, here a product.
      const bool scaled_parameter =
          kind == ValueKind::kVector && n.kind != Node::Kind::kRef && n.kind != Node::Kind::kNumber;
      fail(where_, n.column,
           context + " needs a " + kind_name(kind) + ", not a " + kind_name(n.value) +
               (scaled_parameter ? " (a parameter is a vector only where it is the argument "
                                   "itself: -a and 2 * a are numbers; write -dot(a, ...) or "
                                   "2 * dot(a, ...))"
                                 : ""));
    }
  }

  /// A reference's kind is given by where it is used; `wanted` is that kind.
  void check_ref(Node& n, ValueKind wanted) {
    if (n.name == "x" && n.index == "T" && find("T") == nullptr) {  // x[T], x[T-1]
      n.position_name = "T";
      n.index.clear();
      if (n.offset > 0) fail(where_, n.column, "x[T+" + std::to_string(n.offset) + "] is beyond the last token");
      f_.reads_positions_ = true;
      note_integer(Bound{0, "T"});
    }
    if (n.offset != 0 && n.name != "x")
      fail(where_, n.column, "a parameter family is subscripted by its index alone, e.g. " + n.name + "[i]");
    if (!n.index.empty()) {
      Scope* s = find(n.index);
      if (s == nullptr)
        fail(where_, n.column, "index '" + n.index + "' is not bound by any reduction");
      if (n.offset != 0) f_.reads_positions_ = true;
      s->used = true;
      (n.name == "x" ? s->subscripts_x : s->subscripts_parameter) = true;
      if (n.name != "x" && !s->binder->has_range) {
        fail(where_, n.column,
             "index '" + n.index + "' runs over tokens; a parameter family needs a range, e.g. " +
                 n.index + " = 1..D");
      }
    }
    if (n.name == "x") {
      if (n.index.empty() && n.position == 0 && n.position_name.empty())
        fail(where_, n.column, "x needs a subscript: x[t] or x[1]");
      if (n.position > 0) f_.reads_positions_ = true;
      f_.highest_position_ = std::max(f_.highest_position_, n.position);
      n.value = ValueKind::kVector;
      return;
    }
    if (n.position > 0)
      fail(where_, n.column,
           "a parameter family is subscripted by an index, e.g. " + n.name + "[i]");
    if (find(n.name) != nullptr) {
      fail(where_, n.column,
           "'" + n.name + "' is an index; use it as a subscript, x[" + n.name + "]");
    }
    // Anything else would be a random parameter: T / D or relu(T - 20) would draw T from
    // N(0, 1), silently, where the writer meant the sequence length.
    if (n.name == "T" || n.name == "eps" || is_integer_name(n.name)) {
      fail(where_, n.column,
           "'" + n.name + "' is a named quantity (sequence length, precision, a range bound or a "
           "rank), not a number of the formula: a value that depends on it is not supported");
    }
    Parameter& p = parameter(n, wanted);
    if (!n.index.empty()) {
      const Binder* b = find(n.index)->binder;
      p.family_size = b->high;
      if (b->low.name.empty() && b->low.value != 1)
        fail(where_, n.column, "a parameter family's range starts at 1");
    }
    n.value = wanted;
  }

  void check(Node& n, ValueKind wanted_ref = ValueKind::kScalar) {
    using K = Node::Kind;
    switch (n.kind) {
      case K::kNumber:
        n.value = ValueKind::kScalar;
        return;
      case K::kRef:
        check_ref(n, n.name == "x" ? ValueKind::kVector : wanted_ref);
        return;
      case K::kNeg:
        check(n.args[0], ValueKind::kScalar);
        n.value = n.args[0].value;
        if (n.value == ValueKind::kMatrix) fail(where_, n.column, "a matrix cannot be negated");
        return;
      case K::kAdd:
      case K::kSub: {
        check(n.args[0], ValueKind::kScalar);
        check(n.args[1], ValueKind::kScalar);
        if (n.args[0].value != n.args[1].value || n.args[0].value == ValueKind::kMatrix) {
          fail(where_, n.column,
               "cannot add a " + kind_name(n.args[0].value) + " and a " +
                   kind_name(n.args[1].value));
        }
        n.value = n.args[0].value;
        return;
      }
      case K::kMul: {
        check(n.args[0], ValueKind::kScalar);
        check(n.args[1], ValueKind::kScalar);
        const bool sv =
            n.args[0].value == ValueKind::kScalar || n.args[1].value == ValueKind::kScalar;
        if (!sv || n.args[0].value == ValueKind::kMatrix || n.args[1].value == ValueKind::kMatrix) {
          fail(where_, n.column,
               "'*' multiplies numbers, or a number and a vector; use dot(u, v) for vectors");
        }
        n.value = n.args[0].value == ValueKind::kVector || n.args[1].value == ValueKind::kVector
                      ? ValueKind::kVector
                      : ValueKind::kScalar;
        return;
      }
      case K::kDiv:
        check(n.args[0], ValueKind::kScalar);
        check(n.args[1], ValueKind::kScalar);
        expect(n.args[1], ValueKind::kScalar, "a divisor");
        if (n.args[0].value == ValueKind::kMatrix)
          fail(where_, n.column, "a matrix cannot be divided");
        n.value = n.args[0].value;
        return;
      case K::kPow:
        check(n.args[0], ValueKind::kScalar);
        check(n.args[1], ValueKind::kScalar);
        expect(n.args[0], ValueKind::kScalar, "'^'");
        expect(n.args[1], ValueKind::kScalar, "an exponent");
        n.value = ValueKind::kScalar;
        return;
      case K::kCall:
        check_call(n);
        return;
      case K::kReduce:
        check_reduce(n);
        return;
    }
  }

  void check_call(Node& n) {
    static const std::set<std::string> scalar_functions{"exp",  "log", "sqrt", "abs",
                                                        "tanh", "sin", "cos",  "relu"};
    auto arity = [&](std::size_t k) {
      if (n.args.size() != k) {
        fail(where_, n.column,
             n.name + "() takes " + std::to_string(k) + " argument" + (k == 1 ? "" : "s") +
                 ", not " + std::to_string(n.args.size()));
      }
    };
    if (n.name == "dot") {
      arity(2);
      for (Node& a : n.args) {
        check(a, ValueKind::kVector);
        expect(a, ValueKind::kVector, "dot()");
      }
    } else if (n.name == "bilinear") {
      arity(3);
      check(n.args[0], ValueKind::kMatrix);
      expect(n.args[0], ValueKind::kMatrix, "bilinear()'s first argument");
      for (std::size_t i = 1; i < 3; ++i) {
        check(n.args[i], ValueKind::kVector);
        expect(n.args[i], ValueKind::kVector, "bilinear()");
      }
    } else if (n.name == "norm" || n.name == "sqnorm") {
      arity(1);
      check(n.args[0], ValueKind::kVector);
      expect(n.args[0], ValueKind::kVector, n.name + "()");
    } else if (scalar_functions.count(n.name) != 0) {
      arity(1);
      check(n.args[0], ValueKind::kScalar);
      expect(n.args[0], ValueKind::kScalar, n.name + "()");
    } else {
      fail(where_, n.column,
           "unknown function '" + n.name +
               "' (known: dot, bilinear, norm, sqnorm, exp, log, sqrt, abs, tanh, sin, cos, relu)");
    }
    n.value = ValueKind::kScalar;
  }

  void check_reduce(Node& n) {
    const std::size_t depth = scopes_.size();
    // A chain may constrain an index bound further out (min(t != s) inside max(s)): that name
    // is a reference, not a binder.
    std::erase_if(n.binders, [&](const Binder& b) { return b.from_chain && find(b.name) != nullptr; });
    if (n.binders.empty()) fail(where_, n.column, "the reduction binds no index of its own");
    for (const IndexConstraint& c : n.constraints) {
      for (const std::string& name : {c.left, c.right}) {
        if (Scope* outer = find(name)) outer->used = true;  // a constraint on an outer index
      }
    }
    for (const IndexConstraint& c : n.constraints) {
      if (c.strict_order) f_.reads_positions_ = true;
    }
    for (const Binder& b : n.binders) {
      if (b.name == "x") fail(where_, b.column, "x is the sequence; pick another index name");
      if (b.name == "T" || b.name == "eps" || is_integer_name(b.name)) {
        fail(where_, b.column,
             "'" + b.name + "' is a named quantity (sequence length, precision or a range bound), "
             "not an index; pick another index name");
      }
      if (find(b.name) != nullptr)
        fail(where_, b.column, "index '" + b.name + "' is already bound");
      for (std::size_t j = depth; j < scopes_.size(); ++j) {
        if (scopes_[j].name == b.name)
          fail(where_, b.column, "index '" + b.name + "' is bound twice");
      }
      scopes_.push_back(Scope{b.name, false, false, false, &b});
      if (b.has_range) {
        note_integer(b.low);
        note_integer(b.high);
      }
    }
    if (n.op == ReduceOp::kKth) note_integer(n.rank);
    if (n.op == ReduceOp::kKth && n.rank.name.empty() && n.rank.value < 1) {
      fail(where_, n.column, "kth() counts from 1");
    }
    // The key is written before the body: check it first, so first uses follow the text.
    if (n.has_key()) check(n.args[1], ValueKind::kScalar);
    check(n.args[0], ValueKind::kScalar);
    if (n.has_key()) expect(n.args[1], ValueKind::kScalar, "the key after 'by'");
    if (n.op != ReduceOp::kSum)
      expect(n.args[0], ValueKind::kScalar,
             std::string(n.op == ReduceOp::kKth   ? "kth"
                         : n.op == ReduceOp::kMax ? "max"
                                                  : "min") +
                 "()");
    if (n.args[0].value == ValueKind::kMatrix)
      fail(where_, n.column, "a sum of matrices is not supported");
    for (std::size_t j = depth; j < scopes_.size(); ++j) {
      const Scope& s = scopes_[j];
      if (!s.used) fail(where_, s.binder->column, "index '" + s.name + "' is bound but not used");
      const Binder& b = *s.binder;
      const bool all_tokens =
          !b.has_range || (b.low.name.empty() && b.low.value == 1 && b.high.name == "T");
      if (s.subscripts_x && !all_tokens) f_.reads_positions_ = true;  // sum(p = 1..3) x[p]
      if (s.subscripts_x && s.subscripts_parameter) {
        fail(where_, s.binder->column,
             "index '" + s.name + "' subscripts both x and a parameter family");
      }
    }
    n.value = n.args[0].value;
    scopes_.resize(depth);
  }

  Formula& f_;
  SourceLocation where_;
  std::vector<Scope> scopes_;
  std::size_t counter_ = 0;

 public:
  std::vector<std::string> integer_names_;  ///< every named bound and rank, collected first
};

namespace {
void collect_integer_names(const Node& n, std::vector<std::string>& out) {
  if (n.kind == Node::Kind::kReduce) {
    auto note = [&](const Bound& b) {
      if (!b.name.empty()) out.push_back(b.name);
    };
    if (n.op == ReduceOp::kKth) note(n.rank);
    for (const Binder& b : n.binders) {
      if (b.has_range) {
        note(b.low);
        note(b.high);
      }
    }
  }
  for (const Node& a : n.args) collect_integer_names(a, out);
}
}  // namespace

namespace {
/// The tree parse() builds from `n`'s text (to_text()), so that a tree made in code and its text
/// are one formula: a reduction binds the names of its chains first, as the chains list them (a
/// name bound further out among them: the checks drop it again), then its other binders; x[T]
/// has T for its index, for the checks to read; a negative number is the negation of its
/// magnitude (as the base of a power too, where the text, -2^2, would read otherwise).
Node as_parsed(Node n) {  // NOLINT(misc-no-recursion)
  if (n.kind == Node::Kind::kNumber && std::signbit(n.number)) {
    Node magnitude = n;
    magnitude.number = -n.number;
    n.kind = Node::Kind::kNeg;
    n.number = 0;
    n.args = {std::move(magnitude)};
  }
  if (n.kind == Node::Kind::kRef && !n.position_name.empty()) {
    n.index = std::move(n.position_name);
    n.position_name.clear();
  }
  if (n.kind == Node::Kind::kReduce) {
    std::vector<Binder> binders;
    std::set<std::string> in_chain;
    const auto chained = [&](const std::string& name) {
      in_chain.insert(name);
      binders.push_back(Binder{name, false, {}, {}, n.column, true});
    };
    for (std::size_t i = 0; i < n.constraints.size(); ++i) {
      const IndexConstraint& c = n.constraints[i];
      if (i == 0 || n.constraints[i - 1].right != c.left) chained(c.left);
      chained(c.right);
    }
    for (const Binder& b : n.binders) {
      if (in_chain.count(b.name) == 0)
        binders.push_back(Binder{b.name, b.has_range, b.low, b.high, b.column, false});
    }
    n.binders = std::move(binders);
  }
  for (Node& a : n.args) a = as_parsed(std::move(a));
  return n;
}
}  // namespace

Formula Formula::parse(std::string_view text, const SourceLocation& where) {
  Formula f;
  f.text_ = std::string(text);
  if (text.size() > limits::kFormulaLength) {
    fail(where, 1, "the formula has " + std::to_string(text.size()) + " characters; at most " +
                       std::to_string(limits::kFormulaLength) + " are accepted");
  }
  peg::memory_input in(text.data(), text.size(), where.file.empty() ? "<formula>" : where.file);
  std::unique_ptr<PNode> tree;
  grammar::Depth depth;
  try {
    tree =
        peg::parse_tree::parse<grammar::formula, grammar::selector, peg::nothing, grammar::control>(
            in, depth);
  } catch (const peg::parse_error& e) {
    fail(where, e.positions().front().column, std::string(e.message()));
  }
  if (!tree || tree->children.empty()) fail(where, 1, "expected an expression");
  f.root_ = Builder(where).build(*tree->children.front());
  Checker checker(f, where);
  collect_integer_names(f.root_, checker.integer_names_);
  checker.run();
  return f;
}

Formula Formula::from_tree(Node root, const SourceLocation& where) {
  Formula f;
  f.text_ = to_text(root);
  f.root_ = as_parsed(std::move(root));
  Checker checker(f, where);
  collect_integer_names(f.root_, checker.integer_names_);
  checker.run();
  return f;
}

long resolve(const Bound& bound, const Bindings& bindings) {
  if (bound.name.empty()) return bound.value;
  const auto it = bindings.find(bound.name);
  if (it == bindings.end())
    throw InputError("the formula needs a value for " + bound.name + " (e.g. --set " + bound.name +
                     "=2)");
  return it->second;
}

namespace {
std::string bound_list(const Node& n) {
  std::string out;
  std::set<std::string> in_chain;
  for (const IndexConstraint& c : n.constraints) {
    in_chain.insert(c.left);
    in_chain.insert(c.right);
  }
  // Chains print as written (a != b, t1 < t2 < t3); other binders on their own.
  std::string chain;
  for (std::size_t i = 0; i < n.constraints.size(); ++i) {
    const IndexConstraint& c = n.constraints[i];
    if (i == 0 || n.constraints[i - 1].right != c.left) {
      if (!chain.empty()) chain += ", ";
      chain += c.left;
    }
    chain += (c.strict_order ? " < " : " != ") + c.right;
  }
  for (const Binder& b : n.binders) {
    if (in_chain.count(b.name) != 0) continue;
    if (!out.empty()) out += ", ";
    out += b.name;
    if (b.has_range) out += " = " + b.low.text() + ".." + b.high.text();
  }
  if (!chain.empty()) out = out.empty() ? chain : chain + ", " + out;
  return out;
}
}  // namespace

namespace {
/// Binding strength, as in the grammar: sums 1, products 2, prefixes 3, powers 4, primaries 5.
int precedence(const Node& n) {
  using K = Node::Kind;
  switch (n.kind) {
    case K::kAdd:
    case K::kSub:
      return 1;
    case K::kMul:
    case K::kDiv:
      return 2;
    case K::kNeg:
    case K::kReduce:
      return 3;  // a reduction's body runs to the end of a unary operand
    case K::kPow:
      return 4;
    default:
      return 5;
  }
}

std::string print(const Node& n, int at_least) {
  using K = Node::Kind;
  std::string s;
  switch (n.kind) {
    case K::kNumber:
      s = number_text(n.number);
      break;
    case K::kRef: {
      const std::string sub = subscript_text(n);
      s = sub.empty() ? n.name : n.name + "[" + sub + "]";
      break;
    }
    case K::kCall:
      s = n.name + "(";
      for (std::size_t i = 0; i < n.args.size(); ++i) s += (i ? ", " : "") + print(n.args[i], 0);
      s += ")";
      break;
    case K::kAdd:
      s = print(n.args[0], 1) + " + " + print(n.args[1], 2);
      break;
    case K::kSub:
      s = print(n.args[0], 1) + " - " + print(n.args[1], 2);
      break;
    case K::kMul:
      s = print(n.args[0], 2) + " * " + print(n.args[1], 3);
      break;
    case K::kDiv:
      s = print(n.args[0], 2) + " / " + print(n.args[1], 3);
      break;
    case K::kPow:
      s = print(n.args[0], 5) + "^" + print(n.args[1], 3);
      break;
    case K::kNeg:
      s = "-" + print(n.args[0], 3);
      break;
    case K::kReduce: {
      s = n.op == ReduceOp::kMax   ? "max("
          : n.op == ReduceOp::kMin ? "min("
          : n.op == ReduceOp::kSum ? "sum("
                                   : "kth(" + n.rank.text() + ", ";
      s += bound_list(n);
      if (n.has_key()) s += " by " + print(n.args[1], 0);
      s += ") " + print(n.args[0], 3);
      break;
    }
  }
  return precedence(n) < at_least ? "(" + s + ")" : s;
}
}  // namespace

std::string number_text(double value) {
  // Fixed notation at the shortest precision that round-trips; a double needs at most 309
  // digits before the point and 1074 after it.
  char buffer[1100];
  const std::to_chars_result r =
      std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed);
  return std::string(buffer, r.ptr);
}

std::string subscript_text(const Node& ref) {
  const std::string sub = ref.position > 0               ? std::to_string(ref.position)
                          : !ref.position_name.empty() ? ref.position_name
                                                       : ref.index;
  if (sub.empty()) return "";
  const std::string offset = ref.offset > 0   ? "+" + std::to_string(ref.offset)
                             : ref.offset < 0 ? std::to_string(ref.offset)
                                              : "";
  return sub + offset;
}

std::string to_text(const Node& n) {
  return print(n, 0);
}

}  // namespace infoflow::targets
