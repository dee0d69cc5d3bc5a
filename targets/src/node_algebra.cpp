#include "infoflow/targets/node_algebra.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <tuple>
#include <utility>

namespace infoflow::targets {

namespace {
using K = Node::Kind;

bool same_bound(const Bound& a, const Bound& b) {
  return a.value == b.value && a.name == b.name;
}
}  // namespace

bool same_expression(const Node& a, const Node& b) {  // NOLINT(misc-no-recursion)
  // A number as printed: -0 is not 0.
  if (a.kind != b.kind || a.number != b.number ||
      std::signbit(a.number) != std::signbit(b.number) || a.name != b.name || a.index != b.index ||
      a.position != b.position || a.position_name != b.position_name || a.offset != b.offset ||
      a.args.size() != b.args.size())
    return false;
  if (a.kind == K::kReduce) {
    if (a.op != b.op || !same_bound(a.rank, b.rank) || a.binders.size() != b.binders.size() ||
        a.constraints.size() != b.constraints.size())
      return false;
    for (std::size_t i = 0; i < a.binders.size(); ++i) {
      const Binder& x = a.binders[i];
      const Binder& y = b.binders[i];
      if (x.name != y.name || x.has_range != y.has_range || !same_bound(x.low, y.low) ||
          !same_bound(x.high, y.high))
        return false;
    }
    for (std::size_t i = 0; i < a.constraints.size(); ++i) {
      const IndexConstraint& x = a.constraints[i];
      const IndexConstraint& y = b.constraints[i];
      if (x.left != y.left || x.strict_order != y.strict_order || x.right != y.right) return false;
    }
  }
  for (std::size_t i = 0; i < a.args.size(); ++i) {
    if (!same_expression(a.args[i], b.args[i])) return false;
  }
  return true;
}

bool contains(const Node& n, const std::function<bool(const Node&)>& test) {  // NOLINT(misc-no-recursion)
  return test(n) ||
         std::any_of(n.args.begin(), n.args.end(), [&](const Node& a) { return contains(a, test); });
}

bool has_product_abs_power_or_range(const Node& n) {
  return contains(n, [](const Node& m) {
    if (m.kind == K::kMul || m.kind == K::kPow || (m.kind == K::kCall && m.name == "abs"))
      return true;
    if (m.kind != K::kReduce) return false;
    // A range binder, unless a chain names it (a chain binds without a range).
    return std::any_of(m.binders.begin(), m.binders.end(), [&](const Binder& b) {
      return b.has_range &&
             std::none_of(m.constraints.begin(), m.constraints.end(), [&](const IndexConstraint& c) {
               return c.left == b.name || c.right == b.name;
             });
    });
  });
}

namespace {
/// -1, 0 or 1 as `a` comes before, is, or comes after `b` in ExpressionOrder.
int compare(const Node& a, const Node& b) {  // NOLINT(misc-no-recursion)
  const auto bound = [](const Bound& x) { return std::tie(x.value, x.name); };
  using Fields = std::tuple<K, bool, double, const std::string&, const std::string&, long,
                            const std::string&, long, std::size_t>;
  const auto fields = [](const Node& n) {
    return Fields(n.kind, std::signbit(n.number), n.number, n.name, n.index, n.position,
                  n.position_name, n.offset, n.args.size());
  };
  if (fields(a) != fields(b)) return fields(a) < fields(b) ? -1 : 1;
  if (a.kind == K::kReduce) {
    const auto reduction = [&](const Node& n) {
      return std::make_tuple(n.op, bound(n.rank), n.binders.size(), n.constraints.size());
    };
    if (reduction(a) != reduction(b)) return reduction(a) < reduction(b) ? -1 : 1;
    for (std::size_t i = 0; i < a.binders.size(); ++i) {
      const auto binder = [&](const Binder& x) {
        return std::tuple_cat(std::tie(x.name, x.has_range), bound(x.low), bound(x.high));
      };
      if (binder(a.binders[i]) != binder(b.binders[i]))
        return binder(a.binders[i]) < binder(b.binders[i]) ? -1 : 1;
    }
    for (std::size_t i = 0; i < a.constraints.size(); ++i) {
      const auto constraint = [](const IndexConstraint& c) {
        return std::tie(c.left, c.strict_order, c.right);
      };
      if (constraint(a.constraints[i]) != constraint(b.constraints[i]))
        return constraint(a.constraints[i]) < constraint(b.constraints[i]) ? -1 : 1;
    }
  }
  for (std::size_t i = 0; i < a.args.size(); ++i) {
    if (const int c = compare(a.args[i], b.args[i]); c != 0) return c;
  }
  return 0;
}
}  // namespace

bool ExpressionOrder::operator()(const Node& a, const Node& b) const { return compare(a, b) < 0; }

bool mentions_token(const Node& n) {  // NOLINT(misc-no-recursion)
  if (n.kind == K::kRef && n.name == "x") return true;
  if (n.kind == K::kReduce) return true;
  return std::any_of(n.args.begin(), n.args.end(), [](const Node& a) { return mentions_token(a); });
}

bool subscripts_x(const Node& n, const std::string& index) {  // NOLINT(misc-no-recursion)
  if (n.kind == K::kRef && n.name == "x" && n.index == index) return true;
  return std::any_of(n.args.begin(), n.args.end(),
                     [&](const Node& a) { return subscripts_x(a, index); });
}

bool names_index(const Node& n, const std::string& name) {  // NOLINT(misc-no-recursion)
  if (n.kind == K::kRef && n.index == name) return true;
  if (n.kind == K::kReduce &&
      std::any_of(n.constraints.begin(), n.constraints.end(),
                  [&](const IndexConstraint& c) { return c.left == name || c.right == name; }))
    return true;
  return std::any_of(n.args.begin(), n.args.end(),
                     [&](const Node& a) { return names_index(a, name); });
}

namespace {
void collect_free(const Node& n, const IndexReads& also,  // NOLINT(misc-no-recursion)
                  std::set<std::string> bound, std::vector<std::string>& out) {
  const auto read = [&](const std::string& i) {
    if (bound.count(i) == 0 && std::find(out.begin(), out.end(), i) == out.end()) out.push_back(i);
  };
  if (n.kind == K::kReduce) {
    for (const Binder& b : n.binders) bound.insert(b.name);
    if (also.constraints) {
      for (const IndexConstraint& c : n.constraints) {
        read(c.left);
        read(c.right);
      }
    }
  }
  if (n.kind == K::kRef && !n.index.empty() && (n.name == "x" || also.parameters)) read(n.index);
  for (const Node& a : n.args) collect_free(a, also, bound, out);
}
}  // namespace

std::vector<std::string> free_indices(const Node& n, IndexReads also) {
  std::vector<std::string> out;
  collect_free(n, also, {}, out);
  return out;
}

std::set<std::string> token_indices_read(const Node& n) {
  const std::vector<std::string> read = free_indices(n);
  return {read.begin(), read.end()};
}

std::optional<double> literal_number(const Node& n) {  // NOLINT(misc-no-recursion)
  if (n.kind == K::kNumber) return n.number;
  if (n.kind == K::kNeg) {
    const std::optional<double> v = literal_number(n.args[0]);
    return v ? std::optional<double>(-*v) : std::nullopt;
  }
  if (n.kind == K::kMul || n.kind == K::kDiv) {
    const std::optional<double> a = literal_number(n.args[0]);
    const std::optional<double> b = literal_number(n.args[1]);
    if (!a || !b || (n.kind == K::kDiv && *b == 0)) return std::nullopt;
    return n.kind == K::kMul ? *a * *b : *a / *b;
  }
  return std::nullopt;
}

Node substitute(Node n, const std::string& index, long position) {  // NOLINT(misc-no-recursion)
  if (n.kind == K::kRef && n.index == index) {
    n.index.clear();
    n.position = position + n.offset;
    n.offset = 0;
  }
  for (Node& a : n.args) a = substitute(std::move(a), index, position);
  return n;
}

Node renamed(Node n, const std::string& from, const std::string& to) {  // NOLINT(misc-no-recursion)
  if (n.kind == K::kRef && n.index == from) n.index = to;
  for (Node& a : n.args) a = renamed(std::move(a), from, to);
  return n;
}

Node replaced(const Node& n, const Node& what, const Node& by) {  // NOLINT(misc-no-recursion)
  if (same_expression(n, what)) return by;
  Node out = n;
  for (Node& a : out.args) a = replaced(a, what, by);
  return out;
}

std::vector<Node> copies_over(const Node& n, const std::vector<IndexRange>& ranges) {
  std::vector<Node> copies{n};
  for (const IndexRange& r : ranges) {
    std::vector<Node> next;
    for (const Node& c : copies) {
      for (long v = r.low; v <= r.high; ++v) next.push_back(substitute(c, r.index, v));
    }
    copies = std::move(next);
  }
  return copies;
}

std::vector<const Node*> product_parts(const Node& n) {  // NOLINT(misc-no-recursion)
  if (n.kind != K::kMul) return {&n};
  std::vector<const Node*> out = product_parts(n.args[0]);
  const std::vector<const Node*> right = product_parts(n.args[1]);
  out.insert(out.end(), right.begin(), right.end());
  return out;
}

Node product_of(const std::vector<const Node*>& factors) {
  Node product = *factors.front();
  for (std::size_t i = 1; i < factors.size(); ++i) {
    Node next;
    next.kind = K::kMul;
    next.args = {std::move(product), *factors[i]};
    product = std::move(next);
  }
  return product;
}

Node sum_of(std::vector<Node> terms) {
  if (terms.empty()) return Node{};  // the number 0
  Node out = std::move(terms.front());
  for (std::size_t i = 1; i < terms.size(); ++i) {
    Node sum;
    sum.kind = K::kAdd;
    sum.args = {std::move(out), std::move(terms[i])};
    out = std::move(sum);
  }
  return out;
}

}  // namespace infoflow::targets
