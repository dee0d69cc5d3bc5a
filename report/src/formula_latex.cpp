// The target language typeset: what `derive --format latex` prints beside a target's name.

#include <cctype>
#include <set>

#include "infoflow/report/catalogue_report.hpp"
#include "infoflow/report/derivation_report.hpp"

namespace infoflow::report {
namespace {

using targets::Node;
using targets::ReduceOp;

/// t1 -> t_{1}; a one-letter name stays italic, a longer one is upright (\mathit would join it).
std::string name_latex(const std::string& name) {
  std::size_t digits = name.size();
  while (digits > 0 && std::isdigit(static_cast<unsigned char>(name[digits - 1])) != 0) --digits;
  const std::string letters = name.substr(0, digits);
  std::string out = letters.size() <= 1 ? letters : "\\mathit{" + latex_escape(letters) + "}";
  if (letters == "T") out = "T";
  if (digits < name.size()) out += "_{" + name.substr(digits) + "}";
  return out;
}

std::string bound_latex_text(const targets::Bound& b) {
  return b.name.empty() ? std::to_string(b.value) : name_latex(b.name);
}

/// Binding strength as in the grammar: sums 1, products 2, prefixes 3, powers 4, primaries 5.
int precedence(const Node& n) {
  switch (n.kind) {
    case Node::Kind::kAdd:
    case Node::Kind::kSub: return 1;
    case Node::Kind::kMul:
    case Node::Kind::kDiv: return 2;
    case Node::Kind::kNeg:
    case Node::Kind::kReduce: return 3;
    case Node::Kind::kPow: return 4;
    default: return 5;
  }
}

std::string print(const Node& n, int at_least);

std::string subscript_of_binders(const Node& n) {
  std::set<std::string> in_chain;
  std::string chain;
  for (std::size_t i = 0; i < n.constraints.size(); ++i) {
    const targets::IndexConstraint& c = n.constraints[i];
    in_chain.insert(c.left);
    in_chain.insert(c.right);
    if (i == 0 || n.constraints[i - 1].right != c.left) {
      if (!chain.empty()) chain += ",\\, ";
      chain += name_latex(c.left);
    }
    chain += (c.strict_order ? " < " : " \\ne ") + name_latex(c.right);
  }
  std::string out;
  for (const targets::Binder& b : n.binders) {
    if (in_chain.count(b.name) != 0) continue;
    if (!out.empty()) out += ",\\, ";
    out += name_latex(b.name);
    if (b.has_range) {
      out += " \\in \\{" + bound_latex_text(b.low) + ", \\dots, " + bound_latex_text(b.high) + "\\}";
    }
  }
  if (!chain.empty()) out = out.empty() ? chain : chain + ",\\, " + out;
  return out;
}

std::string reduce_latex(const Node& n) {
  const std::string body = print(n.args[0], 3);
  // sum(i = a..b) with one binder: the usual limits.
  if (n.op == ReduceOp::kSum && n.binders.size() == 1 && n.binders[0].has_range &&
      n.constraints.empty()) {
    const targets::Binder& b = n.binders[0];
    return "\\sum_{" + name_latex(b.name) + " = " + bound_latex_text(b.low) + "}^{" +
           bound_latex_text(b.high) + "} " + body;
  }
  const std::string op = n.op == ReduceOp::kMax   ? "\\max"
                         : n.op == ReduceOp::kMin ? "\\min"
                         : n.op == ReduceOp::kSum ? "\\sum"
                                                  : "\\max^{(" + bound_latex_text(n.rank) + ")}";
  if (!n.has_key()) return op + "_{" + subscript_of_binders(n) + "} " + body;
  // max(t by key) body: the body read at the index where the key is largest (k-th largest).
  const std::string arg = n.op == ReduceOp::kMin ? "\\operatorname*{arg\\,min}"
                          : n.op == ReduceOp::kKth
                              ? "\\operatorname*{arg\\,max}^{(" + bound_latex_text(n.rank) + ")}"
                              : "\\operatorname*{arg\\,max}";
  std::string indices;
  for (const targets::Binder& b : n.binders) {
    indices += (indices.empty() ? "" : ", ") + name_latex(b.name);
  }
  if (n.binders.size() > 1) indices = "(" + indices + ")";
  return body + "\\big|_{" + indices + " = " + arg + "_{" + subscript_of_binders(n) + "} " +
         print(n.args[1], 0) + "}";
}

std::string call_latex(const Node& n) {
  std::vector<std::string> a;
  for (const Node& arg : n.args) a.push_back(print(arg, 0));
  const std::string& f = n.name;
  if (f == "dot" && a.size() == 2) return "\\langle " + a[0] + ", " + a[1] + " \\rangle";
  if (f == "bilinear" && a.size() == 3) {
    return print(n.args[1], 5) + "^{\\top} " + print(n.args[0], 5) + " " + print(n.args[2], 5);
  }
  if (f == "norm" && a.size() == 1) return "\\lVert " + a[0] + " \\rVert";
  if (f == "sqnorm" && a.size() == 1) return "\\lVert " + a[0] + " \\rVert^{2}";
  if (f == "abs" && a.size() == 1) return "\\lvert " + a[0] + " \\rvert";
  if (f == "sqrt" && a.size() == 1) {
    // A radical is one box, which a table cell cannot break: the root of a sum, or of what
    // |.| or a norm already encloses, is written as a power.
    const Node& u = n.args[0];
    if (u.kind == Node::Kind::kCall && (u.name == "abs" || u.name == "norm"))
      return a[0] + "^{1/2}";
    if (u.kind == Node::Kind::kAdd || u.kind == Node::Kind::kSub) return "(" + a[0] + ")^{1/2}";
    return "\\sqrt{" + a[0] + "}";
  }
  std::string head = (f == "exp" || f == "log" || f == "tanh" || f == "sin" || f == "cos")
                         ? "\\" + f
                         : "\\operatorname{" + latex_escape(f) + "}";
  std::string out = head + "(";
  for (std::size_t i = 0; i < a.size(); ++i) out += (i ? ", " : "") + a[i];
  return out + ")";
}

std::string print(const Node& n, int at_least) {
  using K = Node::Kind;
  std::string s;
  switch (n.kind) {
    case K::kNumber:
      s = targets::number_text(n.number);
      break;
    case K::kRef: {
      std::string sub = n.position > 0               ? std::to_string(n.position)
                        : !n.position_name.empty() ? name_latex(n.position_name)
                        : !n.index.empty()         ? name_latex(n.index)
                                                   : std::string();
      if (n.offset > 0) sub += " + " + std::to_string(n.offset);
      if (n.offset < 0) sub += " - " + std::to_string(-n.offset);
      s = name_latex(n.name) + (sub.empty() ? "" : "_{" + sub + "}");
      break;
    }
    case K::kCall: s = call_latex(n); break;
    case K::kAdd: s = print(n.args[0], 1) + " + " + print(n.args[1], 2); break;
    case K::kSub: s = print(n.args[0], 1) + " - " + print(n.args[1], 2); break;
    case K::kMul: s = print(n.args[0], 2) + " \\cdot " + print(n.args[1], 3); break;
    case K::kDiv: s = "\\frac{" + print(n.args[0], 0) + "}{" + print(n.args[1], 0) + "}"; break;
    case K::kPow: s = print(n.args[0], 5) + "^{" + print(n.args[1], 0) + "}"; break;
    case K::kNeg: s = "-" + print(n.args[0], 3); break;
    case K::kReduce: s = reduce_latex(n); break;
  }
  if (n.kind == K::kDiv) return s;  // a fraction needs no parentheses
  // Plain parentheses: \left( ... \right) would make the group one box, which a table cell
  // cannot break at its + and -, however long.
  return precedence(n) < at_least ? "(" + s + ")" : s;
}

}  // namespace

std::string formula_latex(const targets::Node& root) { return print(root, 0); }

}  // namespace infoflow::report
