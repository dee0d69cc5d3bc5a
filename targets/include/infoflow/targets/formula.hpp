#ifndef INFOFLOW_TARGETS_FORMULA_HPP_
#define INFOFLOW_TARGETS_FORMULA_HPP_

/// \file
/// The target language: a formula over the tokens x[t] of a sequence, built from token-wise
/// operations and reductions over index tuples. Examples (docs/theory.md, section 8.1):
///
///   sum(i = 1..D) max(s, t) bilinear(A[i], x[s], x[t])     intrinsic dimension D
///   min(t1 < t2 < t3) sqnorm(x[t1] + x[t2] + x[t3])         triangle centre
///   min(s != t) dot(x[s], x[t])                            depth separation
///   kth(2, t by dot(a, x[t])) dot(b, x[t])                 value at the 2nd largest score
///   sqnorm(x[1] + x[2] + x[3])                             fixed positions
///
/// Grammar (PEGTL; whitespace is free):
///   formula   := expr
///   expr      := term (('+' | '-') term)*
///   term      := unary (('*' | '/') unary)*
///   unary     := '-' unary | power
///   power     := primary ('^' unary)?
///   primary   := number | reduction | kth | call | ref | '(' expr ')'
///   reduction := ('max' | 'min' | 'sum') '(' binders ('by' expr)? ')' unary
///   kth       := 'kth' '(' bound ',' binders ('by' expr)? ')' unary
///   binders   := item (',' item)*          item := name ('=' bound '..' bound)? | chain
///   chain     := name (('!=' | '<') name)+  (binds every name; s != t, t1 < t2 < t3)
///   call      := name '(' expr (',' expr)* ')'
///   ref       := name ('[' (number | name) (('+' | '-') number)? ']')?
///
/// An index bound without a range runs over the tokens 1..T; `i = 1..D` runs over a range
/// (over tokens if the index subscripts x, over a parameter family otherwise). `kth(k, ...)`
/// takes the k-th largest body value, or, with `by key`, the body at the index tuple of the
/// k-th largest key; `max`/`min` likewise (`max(t by dot(a, x[t])) dot(b, x[t])` reads the
/// token of the largest score). Functions: dot(v, v),
/// bilinear(M, v, v), norm(v), sqnorm(v) and the scalar functions exp, log, sqrt, abs, tanh,
/// sin, cos, relu. Any other name is a random parameter drawn from the task seed, its kind
/// (scalar, vector, matrix) given by its use; x is the sequence.
///
/// Positions: x[3] is a fixed position, x[T] the last token and x[T-1] the one before it;
/// x[t+1] and x[t-2] are relative to a token index t (a zero vector where t+c falls outside
/// 1..T). A chain may name an index bound further out, which it constrains without binding it:
/// max(s) min(t != s) dot(x[s], x[t]). T and the formula's named integers cannot be indices.

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "infoflow/core/error.hpp"

namespace infoflow::targets {

enum class ValueKind { kScalar, kVector, kMatrix };
enum class ReduceOp { kMax, kMin, kSum, kKth };

/// A range bound: an integer, or a named integer (T, D, k, ...) fixed when the formula is used.
struct Bound {
  long value = 0;
  std::string name;  ///< empty for a literal
  [[nodiscard]] std::string text() const { return name.empty() ? std::to_string(value) : name; }
};

struct Binder {
  std::string name;
  bool has_range = false;  ///< false: the tokens 1..T
  Bound low;
  Bound high;
  std::size_t column = 0;
  bool from_chain = false;  ///< named in a chain (s != t), which may refer to an outer index
};

/// `a != b` or `a < b` between two bound indices.
struct IndexConstraint {
  std::string left;
  bool strict_order = false;  ///< '<' (ordered) rather than '!=' (distinct)
  std::string right;
};

struct Node {
  enum class Kind { kNumber, kRef, kCall, kAdd, kSub, kMul, kDiv, kPow, kNeg, kReduce };
  Kind kind = Kind::kNumber;
  double number = 0;
  std::string name;        ///< kRef: "x" or a parameter; kCall: the function
  std::string index;       ///< kRef: the subscript's index name ("" if none or a literal)
  long position = 0;       ///< kRef: a literal subscript (x[3]), 0 if none
  std::string position_name;  ///< kRef: a named position (x[T]), "" if none
  long offset = 0;            ///< kRef: x[t+1], x[T-1]
  std::vector<Node> args;  ///< operands; kReduce: body, then the key if any
  // kReduce only:
  ReduceOp op = ReduceOp::kMax;
  Bound rank;  ///< kth
  std::vector<Binder> binders;
  std::vector<IndexConstraint> constraints;
  std::size_t column = 0;                ///< 1-based column of the node's first character
  ValueKind value = ValueKind::kScalar;  ///< set by the checks

  [[nodiscard]] bool has_key() const { return kind == Kind::kReduce && args.size() == 2; }
};

/// A random parameter of the formula (a, A[i]) and how it is used.
struct Parameter {
  std::string name;
  ValueKind kind = ValueKind::kScalar;
  bool indexed = false;       ///< a family A[i]
  Bound family_size;          ///< the range of the index that subscripts it
  std::size_t first_use = 0;  ///< order of first appearance
};

class Formula {
 public:
  /// Parses and checks: syntax, unknown functions, arities, kinds (a dot of scalars, ...),
  /// unbound and unused indices. Errors are InputError at `where` shifted to the column.
  static Formula parse(std::string_view text, const SourceLocation& where = {});
  /// The formula a tree made in code (a rewrite of a parsed formula's) stands for: the one its
  /// text, to_text(root), reads as, built and checked without printing and parsing it (but for
  /// the limits on length and nesting, which guard what is typed). Errors are InputError at
  /// `where` shifted to the column a node carries.
  static Formula from_tree(Node root, const SourceLocation& where = {});

  [[nodiscard]] const Node& root() const { return root_; }
  [[nodiscard]] const std::string& text() const { return text_; }
  /// Random parameters, in order of first appearance.
  [[nodiscard]] const std::vector<Parameter>& parameters() const { return parameters_; }
  /// Names used as range bounds or ranks (T, D, k, ...): values needed to evaluate.
  [[nodiscard]] const std::vector<std::string>& free_integers() const { return free_integers_; }
  /// The largest literal token position (x[3] gives 3), 0 if none.
  [[nodiscard]] long highest_position() const { return highest_position_; }
  /// Reads token positions: a fixed or named position, a relative offset or an order
  /// constraint (s < t). Such a target is order-dependent unless its body is symmetric.
  [[nodiscard]] bool reads_positions() const { return reads_positions_; }

 private:
  Node root_;
  std::string text_;
  std::vector<Parameter> parameters_;
  std::vector<std::string> free_integers_;
  long highest_position_ = 0;
  bool reads_positions_ = false;
  friend class Checker;
};

/// The formula printed back, with normalised spacing.
std::string to_text(const Node& node);

/// A reference's subscript as the language writes it (3, T, t+1, T-1); "" for none.
std::string subscript_text(const Node& ref);

/// A literal as the language writes it: the shortest decimal that reads back as the same double,
/// without an exponent, which the language has not (1e-7 prints 0.0000001).
std::string number_text(double value);

/// Values of the named integers of a formula (T, D, k, ...).
using Bindings = std::map<std::string, long, std::less<>>;

/// Resolves a bound; throws InputError if a name has no value.
long resolve(const Bound& bound, const Bindings& bindings);

}  // namespace infoflow::targets

#endif  // INFOFLOW_TARGETS_FORMULA_HPP_
