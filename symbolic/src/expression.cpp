#include "infoflow/symbolic/expression.hpp"

#include <algorithm>
#include <cctype>
#include <exception>
#include <sstream>
#include <utility>

#include "infoflow/core/limits.hpp"
#include "infoflow/symbolic/symbols.hpp"

namespace infoflow::symbolic {
namespace {

bool is_function(std::string_view name) {
  return name == "log" || name == "exp" || name == "sqrt";
}

/// Recursive descent over one string; positions are 0-based internally. Every level of
/// recursion passes through unary(), which counts it: nesting is bounded, the stack is not.
class Parser {
 public:
  Parser(std::string_view text, SourceLocation where) : text_(text), where_(std::move(where)) {
    if (text_.size() > limits::kFormulaLength) {
      SourceLocation loc = where_;
      if (loc.line == 0) loc.line = 1;
      throw InputError(loc, "the formula has " + std::to_string(text_.size()) +
                                " characters; at most " + std::to_string(limits::kFormulaLength) +
                                " are accepted");
    }
  }

  Expr expression_only() {
    Expr e = expression();
    skip_space();
    if (pos_ < text_.size()) fail(pos_, "unexpected '" + std::string(1, text_[pos_]) + "'");
    return e;
  }

  std::vector<Relation> relations() {
    std::vector<Relation> out;
    Expr left = expression();
    skip_space();
    while (pos_ < text_.size()) {
      const RelOp op = relop();
      Expr right = expression();
      out.push_back(Relation{left, op, right});
      left = std::move(right);
      skip_space();
      if (pos_ < text_.size() && !at_relop()) {
        fail(pos_, "unexpected '" + std::string(1, text_[pos_]) + "'");
      }
    }
    if (out.empty()) fail(pos_, "expected a relation (<, <=, >, >=, ==, !=)");
    return out;
  }

 private:
  [[noreturn]] void fail(std::size_t at, const std::string& message) const {
    SourceLocation loc = where_;
    if (loc.line == 0) loc.line = 1;
    loc.column = (loc.column == 0 ? 1 : loc.column) + at;
    throw InputError(loc, message + " in \"" + std::string(text_) + "\"");
  }

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  bool at_relop() {
    skip_space();
    if (pos_ >= text_.size()) return false;
    const char c = text_[pos_];
    return c == '<' || c == '>' || c == '!' ||
           (c == '=' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '=');
  }

  RelOp relop() {
    skip_space();
    const std::string_view rest = text_.substr(pos_);
    const auto take = [&](std::size_t n, RelOp op) {
      pos_ += n;
      return op;
    };
    if (rest.starts_with("<=")) return take(2, RelOp::kLessEqual);
    if (rest.starts_with(">=")) return take(2, RelOp::kGreaterEqual);
    if (rest.starts_with("==")) return take(2, RelOp::kEqual);
    if (rest.starts_with("!=")) return take(2, RelOp::kNotEqual);
    if (rest.starts_with("<")) return take(1, RelOp::kLess);
    if (rest.starts_with(">")) return take(1, RelOp::kGreater);
    if (rest.starts_with("=")) fail(pos_, "'=' is not a relation; write '=='");
    fail(pos_, "expected a relation (<, <=, >, >=, ==, !=)");
  }

  Expr node(Expr::Kind kind, std::size_t at, std::vector<Expr> args, std::string text = {}) {
    Expr e;
    e.kind = kind;
    e.text = std::move(text);
    e.args = std::move(args);
    e.column = at + 1;
    return e;
  }

  Expr expression() {
    skip_space();
    const std::size_t start = pos_;
    Expr left = term();
    for (;;) {
      skip_space();
      if (pos_ >= text_.size() || (text_[pos_] != '+' && text_[pos_] != '-')) return left;
      const Expr::Kind kind = text_[pos_] == '+' ? Expr::Kind::kAdd : Expr::Kind::kSub;
      ++pos_;
      Expr right = term();
      left = node(kind, start, {std::move(left), std::move(right)});
    }
  }

  Expr term() {
    skip_space();
    const std::size_t start = pos_;
    Expr left = unary();
    for (;;) {
      skip_space();
      if (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
                                  text_[pos_] == '(')) {
        fail(pos_, "missing operator (write '*' for a product)");
      }
      if (pos_ >= text_.size() || (text_[pos_] != '*' && text_[pos_] != '/')) return left;
      const Expr::Kind kind = text_[pos_] == '*' ? Expr::Kind::kMul : Expr::Kind::kDiv;
      ++pos_;
      Expr right = unary();
      left = node(kind, start, {std::move(left), std::move(right)});
    }
  }

  Expr unary() {
    skip_space();
    if (depth_ > limits::kNesting) {  // the outermost level is 0: 100 parentheses are fine
      fail(pos_, "nested more than " + std::to_string(limits::kNesting) + " levels deep");
    }
    ++depth_;
    const Nested nested{depth_};
    if (pos_ < text_.size() && text_[pos_] == '-') {
      const std::size_t start = pos_++;
      return node(Expr::Kind::kNeg, start, {unary()});
    }
    return power();
  }

  Expr power() {
    skip_space();
    const std::size_t start = pos_;
    Expr base = primary();
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == '^') {
      ++pos_;
      return node(Expr::Kind::kPow, start, {std::move(base), unary()});
    }
    if (text_.substr(pos_).starts_with("**")) fail(pos_, "use '^' for powers, not '**'");
    return base;
  }

  Expr primary() {
    skip_space();
    if (pos_ >= text_.size()) fail(pos_, "unexpected end of expression");
    const std::size_t start = pos_;
    const char c = text_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '.' || text_[pos_] == 'e' || text_[pos_] == 'E')) {
        fail(start, "only integers are allowed (write 3/2, not 1.5): exponents must stay exact");
      }
      return node(Expr::Kind::kInteger, start, {}, std::string(text_.substr(start, pos_ - start)));
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      while (pos_ < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
        ++pos_;
      }
      std::string name(text_.substr(start, pos_ - start));
      skip_space();
      if (pos_ < text_.size() && text_[pos_] == '(') {
        if (!is_function(name)) fail(start, "unknown function '" + name + "' (known: log, exp, sqrt)");
        ++pos_;
        Expr arg = expression();
        expect(')');
        return node(Expr::Kind::kCall, start, {std::move(arg)}, name);
      }
      if (is_function(name)) fail(start, "function '" + name + "' needs an argument in parentheses");
      if (SymbolRegistry::standard().find(name) == nullptr) {
        fail(start, "unknown symbol '" + name + "'" + suggestion(name));
      }
      return node(Expr::Kind::kSymbol, start, {}, name);
    }
    if (c == '(') {
      ++pos_;
      Expr inner = expression();
      expect(')');
      return inner;
    }
    fail(pos_, "unexpected '" + std::string(1, c) + "'");
  }

  static std::string suggestion(const std::string& name) {
    if (name == "epsilon" || name == "e") return " (precision is 'eps')";
    if (name == "T_0") return " (write 'T0')";
    if (name == "c_0") return " (write 'c0')";
    return " (see `infoflow symbols`)";
  }

  void expect(char closing) {
    skip_space();
    if (pos_ >= text_.size() || text_[pos_] != closing) {
      fail(pos_, std::string("expected '") + closing + "'");
    }
    ++pos_;
  }

  struct Nested {
    std::size_t& depth;
    ~Nested() { --depth; }
  };

  std::string_view text_;
  SourceLocation where_;
  std::size_t pos_ = 0;
  std::size_t depth_ = 0;
};

enum Precedence { kSum = 1, kProduct = 2, kUnary = 3, kPower = 4, kAtom = 5 };

int precedence(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::kAdd:
    case Expr::Kind::kSub: return kSum;
    case Expr::Kind::kMul:
    case Expr::Kind::kDiv: return kProduct;
    case Expr::Kind::kNeg: return kUnary;
    case Expr::Kind::kPow: return kPower;
    default: return kAtom;
  }
}

std::string text_of(const Expr& e);

std::string text_wrapped(const Expr& e, int min_precedence) {
  const std::string inner = text_of(e);
  return precedence(e) < min_precedence ? "(" + inner + ")" : inner;
}

std::string text_of(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::kInteger:
    case Expr::Kind::kSymbol: return e.text;
    case Expr::Kind::kAdd: return text_wrapped(e.args[0], kSum) + " + " + text_wrapped(e.args[1], kSum);
    case Expr::Kind::kSub:
      return text_wrapped(e.args[0], kSum) + " - " + text_wrapped(e.args[1], kProduct);
    case Expr::Kind::kMul:
      return text_wrapped(e.args[0], kProduct) + "*" + text_wrapped(e.args[1], kUnary);
    case Expr::Kind::kDiv:
      return text_wrapped(e.args[0], kProduct) + "/" + text_wrapped(e.args[1], kPower);
    case Expr::Kind::kNeg: return "-" + text_wrapped(e.args[0], kUnary);
    case Expr::Kind::kPow:
      return text_wrapped(e.args[0], kAtom) + "^" + text_wrapped(e.args[1], kAtom);
    case Expr::Kind::kCall: return e.text + "(" + text_of(e.args[0]) + ")";
  }
  return {};
}

std::string latex_of(const Expr& e);

std::string latex_wrapped(const Expr& e, int min_precedence) {
  const std::string inner = latex_of(e);
  return precedence(e) < min_precedence ? "\\left(" + inner + "\\right)" : inner;
}

bool starts_with_digit(const std::string& s) {
  return !s.empty() && std::isdigit(static_cast<unsigned char>(s.front()));
}

std::string latex_of(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::kInteger: return e.text;
    case Expr::Kind::kSymbol: return SymbolRegistry::standard().at(e.text).latex;
    case Expr::Kind::kAdd:
      return latex_wrapped(e.args[0], kSum) + " + " + latex_wrapped(e.args[1], kSum);
    case Expr::Kind::kSub:
      return latex_wrapped(e.args[0], kSum) + " - " + latex_wrapped(e.args[1], kProduct);
    case Expr::Kind::kMul: {
      const std::string right = latex_wrapped(e.args[1], kUnary);
      const char* joint = starts_with_digit(right) ? " \\cdot " : " ";
      return latex_wrapped(e.args[0], kProduct) + joint + right;
    }
    case Expr::Kind::kDiv:
      // -(a)/b is parsed as (-(a))/b; typeset the sign in front of the fraction.
      if (e.args[0].kind == Expr::Kind::kNeg) {
        return "-\\frac{" + latex_of(e.args[0].args[0]) + "}{" + latex_of(e.args[1]) + "}";
      }
      return "\\frac{" + latex_of(e.args[0]) + "}{" + latex_of(e.args[1]) + "}";
    case Expr::Kind::kNeg: return "-" + latex_wrapped(e.args[0], kUnary);
    case Expr::Kind::kPow: {
      const Expr& base = e.args[0];
      if (base.kind == Expr::Kind::kCall && base.text == "log") {
        return "\\log^{" + latex_of(e.args[1]) + "}\\left(" + latex_of(base.args[0]) + "\\right)";
      }
      return latex_wrapped(base, kAtom) + "^{" + latex_of(e.args[1]) + "}";
    }
    case Expr::Kind::kCall:
      if (e.text == "sqrt") return "\\sqrt{" + latex_of(e.args[0]) + "}";
      return "\\" + e.text + "\\left(" + latex_of(e.args[0]) + "\\right)";
  }
  return {};
}

}  // namespace

namespace {

/// Exact numbers past this size are refused: 444^444444323 would take GiNaC hours.
constexpr long kMaxNumberBits = 100'000;

/// Throws InputError about `e`, placed in `where`'s text if given.
[[noreturn]] void fail_at(const Expr& e, const SourceLocation* where, const std::string& message) {
  if (where == nullptr) throw InputError(message);
  SourceLocation at = *where;
  if (at.line == 0) at.line = 1;
  at.column = (at.column == 0 ? 1 : at.column) + e.column - 1;
  throw InputError(at, message);
}

/// Whether base^exponent, both numbers, would be an exact number of more than kMaxNumberBits.
bool too_large(const GiNaC::ex& base, const GiNaC::ex& exponent) {
  if (!GiNaC::is_a<GiNaC::numeric>(base) || !GiNaC::is_a<GiNaC::numeric>(exponent)) return false;
  const GiNaC::numeric b = GiNaC::abs(GiNaC::ex_to<GiNaC::numeric>(base));
  const GiNaC::numeric x = GiNaC::abs(GiNaC::ex_to<GiNaC::numeric>(exponent));
  if (!b.is_rational() || b.is_zero() || b == 1) return false;
  const long bits = std::max(b.numer().int_length(), b.denom().int_length());
  return x > GiNaC::numeric(kMaxNumberBits) / bits;
}

/// GiNaC's form of `e`; a division by zero or a number too large is bad input, placed in
/// `where`'s text if given.
GiNaC::ex convert(const Expr& e, const SourceLocation* where) {
  const auto recurse = [where](const Expr& x) { return convert(x, where); };
  switch (e.kind) {
    case Expr::Kind::kInteger: return GiNaC::numeric(e.text.c_str());
    case Expr::Kind::kSymbol: return SymbolRegistry::standard().at(e.text).symbol;
    case Expr::Kind::kAdd: return recurse(e.args[0]) + recurse(e.args[1]);
    case Expr::Kind::kSub: return recurse(e.args[0]) - recurse(e.args[1]);
    case Expr::Kind::kMul: return recurse(e.args[0]) * recurse(e.args[1]);
    case Expr::Kind::kDiv: {
      const GiNaC::ex den = recurse(e.args[1]);
      if (den.is_zero()) fail_at(e.args[1], where, "division by zero in \"" + to_text(e) + "\"");
      return recurse(e.args[0]) / den;
    }
    case Expr::Kind::kNeg: return -recurse(e.args[0]);
    case Expr::Kind::kPow: {
      const GiNaC::ex base = recurse(e.args[0]);
      const GiNaC::ex exponent = recurse(e.args[1]);
      // 0^x has a value only for x > 0; GiNaC keeps 0^(k-1) as it is and throws (a pole) once
      // a value of k makes the exponent negative, so it is refused here for every value.
      const bool positive = GiNaC::is_a<GiNaC::numeric>(exponent) &&
                            GiNaC::ex_to<GiNaC::numeric>(exponent).is_positive();
      if (base.is_zero() && !positive) {
        fail_at(e, where, "\"" + to_text(e) + "\" has no value: 0 to the power " +
                              to_text(e.args[1]) + ", which is not a positive number");
      }
      if (too_large(base, exponent)) {
        fail_at(e, where, "the number " + to_text(e) + " is too large (over " +
                              std::to_string(kMaxNumberBits) + " bits)");
      }
      return GiNaC::pow(base, exponent);
    }
    case Expr::Kind::kCall: {
      const GiNaC::ex arg = recurse(e.args[0]);
      if (e.text == "log") return GiNaC::log(arg);
      if (e.text == "exp") return GiNaC::exp(arg);
      return GiNaC::sqrt(arg);
    }
  }
  return 0;
}

/// GiNaC's polynomial algorithms (normal(), gcd) hold degrees in an int, and are slow long
/// before: a power of a symbol with an exponent past this is refused (eps^(2^40) threw).
constexpr long kMaxExponent = 10'000;
/// GiNaC's normal() takes time exponential in the height of a tower of exponents: 10 levels of
/// eps^eps^...^2 took 34 s. Rates need 2 (log(1/eps)^b, exp(g*T) with g a power).
constexpr int kMaxTower = 4;

/// How many exponents and exp() arguments are nested inside each other in `e`.
int tower(const Expr& e) {
  int height = 0;
  for (std::size_t i = 0; i < e.args.size(); ++i) {
    const bool up = (e.kind == Expr::Kind::kPow && i == 1) ||
                    (e.kind == Expr::Kind::kCall && e.text == "exp");
    height = std::max(height, tower(e.args[i]) + (up ? 1 : 0));
  }
  return height;
}

/// GiNaC's normal() multiplies out the denominators of a rational expression: its time grows
/// about twice with each (12 nested ones took 24 s, 8 up to 5 s). Rates need 1 or 2.
constexpr int kMaxDenominators = 4;

bool has_symbol(const Expr& e) {
  return e.kind == Expr::Kind::kSymbol ||
         std::any_of(e.args.begin(), e.args.end(), [](const Expr& a) { return has_symbol(a); });
}

/// Divisions by, and powers of, expressions with symbols that are not a single symbol.
int denominators(const Expr& e) {
  int count = 0;
  if (e.kind == Expr::Kind::kDiv && has_symbol(e.args[1])) ++count;
  if (e.kind == Expr::Kind::kPow && e.args[0].kind != Expr::Kind::kSymbol &&
      has_symbol(e.args[0])) {
    ++count;
  }
  for (const Expr& a : e.args) count += denominators(a);
  return count;
}

void validate(const Expr& e, const SourceLocation& where) {
  if (denominators(e) > kMaxDenominators) {
    fail_at(e, &where, "more than " + std::to_string(kMaxDenominators) +
                           " divisions by (or powers of) expressions with symbols");
  }
  if (tower(e) > kMaxTower) {
    fail_at(e, &where, "exponents are nested more than " + std::to_string(kMaxTower) +
                           " deep (a^b^c^... or exp(exp(...)))");
  }
  try {
    const GiNaC::ex value = convert(e, &where);
    // Every number in an exponent, not only a whole one: expand() splits eps^(D + 2^40) into
    // eps^D * eps^(2^40), and CLN then threw "Not a 32-bit integer" (found by fuzzing).
    for (auto it = value.preorder_begin(); it != value.preorder_end(); ++it) {
      if (!GiNaC::is_a<GiNaC::power>(*it)) continue;
      const GiNaC::ex exponent = it->op(1);
      for (auto n = exponent.preorder_begin(); n != exponent.preorder_end(); ++n) {
        if (!GiNaC::is_a<GiNaC::numeric>(*n)) continue;
        const GiNaC::numeric x = GiNaC::ex_to<GiNaC::numeric>(*n);
        if (x.is_rational() &&
            (GiNaC::abs(x.numer()) > kMaxExponent || x.denom() > kMaxExponent)) {
          std::ostringstream text;
          text << x;
          const bool whole = GiNaC::is_a<GiNaC::numeric>(exponent);
          fail_at(e, &where,
                  (whole ? "the exponent " : "the number ") + text.str() +
                      (whole ? "" : " in an exponent") + " is too large (at most " +
                      std::to_string(kMaxExponent) + ")");
        }
      }
    }
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& error) {  // GiNaC's pole_error, domain_error, ...
    fail_at(e, &where, "\"" + to_text(e) + "\" has no value: " + error.what());
  }
}

}  // namespace

// Parsing converts once, so that a division by zero, a number too large or a value GiNaC
// refuses (0^(-1) is a pole) is reported with its place here rather than later, by whichever
// command first needs the value.
Expr parse_expression(std::string_view text, const SourceLocation& where) {
  Expr e = Parser(text, where).expression_only();
  validate(e, where);
  return e;
}

std::vector<Relation> parse_relations(std::string_view text, const SourceLocation& where) {
  std::vector<Relation> out = Parser(text, where).relations();
  for (const Relation& r : out) {
    validate(r.lhs, where);
    validate(r.rhs, where);
  }
  return out;
}

GiNaC::ex to_ex(const Expr& e) { return convert(e, nullptr); }

GiNaC::ex to_ex_difference(const Relation& relation) {
  return to_ex(relation.lhs) - to_ex(relation.rhs);
}

std::string to_text(const Expr& expr) { return text_of(expr); }
std::string to_latex(const Expr& expr) { return latex_of(expr); }

std::string to_text(RelOp op) {
  switch (op) {
    case RelOp::kLess: return "<";
    case RelOp::kLessEqual: return "<=";
    case RelOp::kGreater: return ">";
    case RelOp::kGreaterEqual: return ">=";
    case RelOp::kEqual: return "==";
    case RelOp::kNotEqual: return "!=";
  }
  return {};
}

std::string to_latex(RelOp op) {
  switch (op) {
    case RelOp::kLess: return "<";
    case RelOp::kLessEqual: return "\\le";
    case RelOp::kGreater: return ">";
    case RelOp::kGreaterEqual: return "\\ge";
    case RelOp::kEqual: return "=";
    case RelOp::kNotEqual: return "\\ne";
  }
  return {};
}

std::string to_text(const Relation& r) {
  return to_text(r.lhs) + " " + to_text(r.op) + " " + to_text(r.rhs);
}

std::string to_latex(const Relation& r) {
  return to_latex(r.lhs) + " " + to_latex(r.op) + " " + to_latex(r.rhs);
}

}  // namespace infoflow::symbolic
