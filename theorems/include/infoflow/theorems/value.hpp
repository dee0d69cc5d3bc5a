#ifndef INFOFLOW_THEOREMS_VALUE_HPP_
#define INFOFLOW_THEOREMS_VALUE_HPP_

/// \file
/// The value of a reduction as the engine resolved it, in the quantities a network holds: the
/// typed expression the engine hands the constructor (Program::values). Its nodes are the
/// formula language's operations and leaves, and what a network holds: the value of a quantity
/// (or one of a mean's components), a selection's body read at the token a quantity chose, the
/// sum or extremum of unrolled copies, a coordinate of the residual stream. Nothing in it is
/// named by text: printing (to_text) is for people.

#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "infoflow/targets/formula.hpp"

namespace infoflow::theorems {

struct Value {
  /// The value quantity `quantity` holds, or the `component`-th value a mean carries.
  struct Held {
    int quantity = -1;
    int component = -1;  ///< -1: the quantity's one value
  };
  /// args[0] (the selection's body, over `index`) read at the token quantity `quantity` chose.
  struct Selected {
    int quantity = -1;
    std::string index;
  };
  /// The sum, maximum or minimum of args (the copies of an unrolled reduction).
  struct Combined {
    targets::ReduceOp op = targets::ReduceOp::kSum;
  };
  /// The coordinate `unit` of the residual stream (an FFN's output, as the constructor lays it).
  struct Coordinate {
    long unit = 0;
  };
  /// A reduction whose value Program::values records under it (resolved where it is read).
  struct Reduction {
    targets::Node node;
  };

  /// A formula operation or leaf (a number, x[t], a parameter, +, dot, ...) whose operands are
  /// `args`, not the node's own (which are empty); or one of the kinds above.
  std::variant<targets::Node, Held, Selected, Combined, Coordinate, Reduction> what;
  std::vector<Value> args;

  /// The formula operation, or null for the other kinds.
  [[nodiscard]] const targets::Node* operation() const { return std::get_if<targets::Node>(&what); }
  [[nodiscard]] bool is(targets::Node::Kind kind) const {
    const targets::Node* op = operation();
    return op != nullptr && op->kind == kind;
  }
};

/// `n` as a value (its reductions kept as Value::Reduction); each subexpression that is
/// `what` (same_expression()) becomes `by` where `what` is given.
Value lifted(const targets::Node& n, const targets::Node* what = nullptr, const Value* by = nullptr);
/// `v` with each subvalue that is `what` (same_value()) replaced by `by`.
Value replaced(const Value& v, const Value& what, const Value& by);

/// The number `v`.
Value number(double v);
/// `a op b` for a formula operation of two operands (kAdd, kMul, kPow, ...); `-a` for kNeg.
Value operation(targets::Node::Kind kind, std::vector<Value> args);
/// The sum of `terms`, in order (left-nested, as targets::sum_of); the number 0 for none.
Value sum_of(std::vector<Value> terms);
/// The value of quantity `id` (or its `component`) times `ratio` (the value alone for 1).
Value held(int id, double ratio = 1, int component = -1);

/// The additive terms of `v` with their numeric coefficients, in order: +, -, a negation, a
/// number times a value (on the left) and a Combined sum are split, and a term that is the
/// number 0 is dropped (2 * #0 - (#1 + 3 * #2) gives (2, #0), (-1, #1), (-3, #2)). Other
/// factors stay in their term: the readout computes each term as one function.
std::vector<std::pair<double, Value>> additive_terms(const Value& v);

/// Whether `a` and `b` are one value (same_expression() on their formula parts).
bool same_value(const Value& a, const Value& b);
/// Whether `v` or a value inside it is a Held or a Selected: what a token holds, beyond tokens
/// and parameters.
bool reads_held_value(const Value& v);

/// The value printed for people: `#N` (`#N.J`) a held value, `#select(#N, body)`, `#sum(...)`,
/// `#max(...)`, `#min(...)` and `#@N` a stream coordinate.
std::string to_text(const Value& v);

}  // namespace infoflow::theorems

#endif  // INFOFLOW_THEOREMS_VALUE_HPP_
