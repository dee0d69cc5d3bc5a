#ifndef INFOFLOW_SYMBOLIC_EXPRESSION_HPP_
#define INFOFLOW_SYMBOLIC_EXPRESSION_HPP_

/// \file
/// Formulas as their authors write them: a strict parser over the symbol registry that keeps
/// the written form (for tables that look like the paper) and converts it to GiNaC (for the
/// algebra). GiNaC's own parser is not used: it creates unknown names as complex symbols unless
/// primed, reads `1.5` as an inexact float and reports no column for an unknown name.
///
/// Grammar (integers only, `^` binds tighter than unary minus and is right-associative):
///   relation := expr (relop expr)+          relop := < <= > >= == !=
///   expr     := term (('+' | '-') term)*
///   term     := unary (('*' | '/') unary)*
///   unary    := '-' unary | power
///   power    := primary ('^' unary)?
///   primary  := integer | name | name '(' expr ')' | '(' expr ')'
/// Functions: log (natural), exp, sqrt.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <ginac/ginac.h>

#include "infoflow/core/error.hpp"

namespace infoflow::symbolic {

/// A node of a parsed formula.
struct Expr {
  enum class Kind { kInteger, kSymbol, kAdd, kSub, kMul, kDiv, kPow, kNeg, kCall };
  Kind kind = Kind::kInteger;
  std::string text;         ///< the integer's digits, the symbol's or the function's name
  std::vector<Expr> args;   ///< operands, in order
  std::size_t column = 0;   ///< 1-based column of the node's first character in its source
};

enum class RelOp { kLess, kLessEqual, kGreater, kGreaterEqual, kEqual, kNotEqual };

/// `lhs op rhs`, as written.
struct Relation {
  Expr lhs;
  RelOp op = RelOp::kEqual;
  Expr rhs;
};

/// Parses an expression. `where` is the position of the text's first character in its file
/// (so errors name the file, line and column); throws InputError.
Expr parse_expression(std::string_view text, const SourceLocation& where = {});

/// Parses a relation or a chain `a <= b < c` (returned as its links: a <= b, b < c).
std::vector<Relation> parse_relations(std::string_view text, const SourceLocation& where = {});

/// The GiNaC expression of a parsed formula, over the standard registry's symbols.
GiNaC::ex to_ex(const Expr& expr);
/// `lhs - rhs` of a relation (the relation reads `to_ex_difference(r) op 0`).
GiNaC::ex to_ex_difference(const Relation& relation);

/// The formula as written, with normalised spacing: "eps^(-(T - k - 1)/(n + 1))".
std::string to_text(const Expr& expr);
std::string to_text(const Relation& relation);
/// The formula in LaTeX, in the author's order: "\varepsilon^{-\frac{T - k - 1}{n + 1}}".
std::string to_latex(const Expr& expr);
std::string to_latex(const Relation& relation);

std::string to_text(RelOp op);
std::string to_latex(RelOp op);

}  // namespace infoflow::symbolic

#endif  // INFOFLOW_SYMBOLIC_EXPRESSION_HPP_
