#include "terms.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace infoflow::construct::detail {

namespace {
using targets::Node;
using K = Node::Kind;

const Eigen::MatrixXd& parameter(const Node& ref, const TermInputs& in) {
  const long member = ref.position > 0 ? ref.position - 1 : 0;
  return in.parameters->parameter(ref.name, static_cast<std::size_t>(member));
}
}  // namespace

TermValue evaluate(const Node& n, const TermInputs& in) {  // NOLINT(misc-no-recursion)
  TermValue out;
  switch (n.kind) {
    case K::kNumber:
      out.s = n.number;
      return out;
    case K::kRef: {
      if (n.name.starts_with("#")) return in.reference(n.name);
      if (n.name == "T") {  // the sequence length (T is a named integer, never a parameter)
        out.s = static_cast<double>(in.tokens_count);
        return out;
      }
      if (n.name == "x") {
        if (positioned(n)) {
          out.vector = true;
          out.v = in.positioned.at(targets::to_text(n));
          return out;
        }
        if (n.offset != 0) throw std::invalid_argument("evaluate(): a term reads a token by offset");
        out.vector = true;
        out.v = in.tokens.at(n.index);
        return out;
      }
      const Eigen::MatrixXd& p = parameter(n, in);
      if (n.value == targets::ValueKind::kVector) {
        out.vector = true;
        out.v = p.col(0);
      } else {
        out.s = p(0, 0);
      }
      return out;
    }
    case K::kCall: {
      if (n.name == "#select") {
        out.s = in.selection(n);
        return out;
      }
      if (n.name == "#sum" || n.name == "#max" || n.name == "#min") {
        for (std::size_t i = 0; i < n.args.size(); ++i) {
          const TermValue a = evaluate(n.args[i], in);
          if (a.vector) {  // a sum of vectors (sum(p = 1..3) x[p])
            if (n.name != "#sum") throw std::invalid_argument("evaluate(): an extremum of vectors");
            out.vector = true;
            out.v = i == 0 ? a.v : Eigen::VectorXd(out.v + a.v);
            continue;
          }
          const double v = a.s;
          out.s = i == 0              ? v
                  : n.name == "#sum" ? out.s + v
                  : n.name == "#max" ? std::max(out.s, v)
                                     : std::min(out.s, v);
        }
        return out;
      }
      if (n.name == "bilinear") {
        const Eigen::MatrixXd& a = parameter(n.args[0], in);
        out.s = evaluate(n.args[1], in).v.dot(a * evaluate(n.args[2], in).v);
        return out;
      }
      if (n.name == "dot") {
        out.s = evaluate(n.args[0], in).v.dot(evaluate(n.args[1], in).v);
        return out;
      }
      const TermValue a = evaluate(n.args[0], in);
      if (n.name == "norm") out.s = a.v.norm();
      else if (n.name == "sqnorm") out.s = a.v.squaredNorm();
      else if (n.name == "exp") out.s = std::exp(a.s);
      else if (n.name == "log") out.s = std::log(a.s);
      else if (n.name == "sqrt") out.s = std::sqrt(a.s);
      else if (n.name == "abs") out.s = std::abs(a.s);
      else if (n.name == "tanh") out.s = std::tanh(a.s);
      else if (n.name == "sin") out.s = std::sin(a.s);
      else if (n.name == "cos") out.s = std::cos(a.s);
      else if (n.name == "relu") out.s = std::max(0.0, a.s);
      else throw std::invalid_argument("evaluate(): no function " + n.name);
      return out;
    }
    case K::kNeg:
      out = evaluate(n.args[0], in);
      out.s = -out.s;
      if (out.vector) out.v = -out.v;
      return out;
    case K::kAdd:
    case K::kSub: {
      const TermValue a = evaluate(n.args[0], in);
      const TermValue b = evaluate(n.args[1], in);
      const double sign = n.kind == K::kAdd ? 1.0 : -1.0;
      out.vector = a.vector;
      if (a.vector) out.v = a.v + sign * b.v;
      else out.s = a.s + sign * b.s;
      return out;
    }
    case K::kMul: {
      const TermValue a = evaluate(n.args[0], in);
      const TermValue b = evaluate(n.args[1], in);
      out.vector = a.vector || b.vector;
      if (a.vector) out.v = a.v * b.s;
      else if (b.vector) out.v = a.s * b.v;
      else out.s = a.s * b.s;
      return out;
    }
    case K::kDiv: {
      const TermValue a = evaluate(n.args[0], in);
      const double b = evaluate(n.args[1], in).s;
      out.vector = a.vector;
      if (a.vector) out.v = a.v / b;
      else out.s = a.s / b;
      return out;
    }
    case K::kPow:
      out.s = std::pow(evaluate(n.args[0], in).s, evaluate(n.args[1], in).s);
      return out;
    case K::kReduce:
      break;
  }
  throw std::invalid_argument("evaluate(): a reduction inside a term");
}

bool positioned(const Node& n) {
  return n.kind == K::kRef && n.name == "x" && (n.position > 0 || !n.position_name.empty());
}

bool reads_position(const Node& n) {  // NOLINT(misc-no-recursion)
  return positioned(n) || std::any_of(n.args.begin(), n.args.end(), [](const Node& a) { return reads_position(a); });
}

void token_indices(const Node& n, std::vector<std::string>& out) {  // NOLINT(misc-no-recursion)
  if (n.kind == K::kRef && n.name == "x" && !n.index.empty() && !positioned(n) &&
      std::find(out.begin(), out.end(), n.index) == out.end())
    out.push_back(n.index);
  for (const Node& a : n.args) token_indices(a, out);
}

}  // namespace infoflow::construct::detail
