#include "printers.hpp"

#include <algorithm>
#include <set>
#include <sstream>

#include "infoflow/symbolic/canonical.hpp"

namespace infoflow::certify::detail {
namespace {

using GiNaC::ex;
using GiNaC::numeric;

std::string integer_text(const numeric& z) {
  std::ostringstream out;
  out << z;
  return out.str();
}

/// Operands of a sum or product in a deterministic order (GiNaC's varies between runs).
std::vector<ex> sorted_operands(const ex& e) {
  std::vector<std::pair<std::string, ex>> ops;
  for (std::size_t i = 0; i < e.nops(); ++i) ops.emplace_back(symbolic::canonical(e.op(i)), e.op(i));
  std::sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<ex> out;
  for (auto& [key, op] : ops) out.push_back(op);
  return out;
}

int small_exponent(const ex& e) {
  if (!GiNaC::is_a<numeric>(e)) throw NotPrintable("a symbolic exponent");
  const numeric p = GiNaC::ex_to<numeric>(e);
  if (!p.is_integer() || GiNaC::abs(p) > 16) throw NotPrintable("a non-integer or large exponent");
  return p.to_int();
}

}  // namespace

std::string identifier(const std::string& name) {
  std::string out;
  for (char c : name) out += (std::isalnum(static_cast<unsigned char>(c)) != 0) ? c : '_';
  return out;
}

std::string coq_number(const numeric& q) {
  if (!q.is_rational()) throw NotPrintable("an irrational number");
  const std::string num = integer_text(GiNaC::abs(q.numer()));
  const std::string body = q.is_integer() ? num : "(" + num + "/" + integer_text(q.denom()) + ")";
  return q.is_negative() ? "(- " + body + ")" : body;
}

std::string coq_relation(symbolic::RelOp op) {
  switch (op) {
    case symbolic::RelOp::kLess: return "<";
    case symbolic::RelOp::kLessEqual: return "<=";
    case symbolic::RelOp::kGreater: return ">";
    case symbolic::RelOp::kGreaterEqual: return ">=";
    case symbolic::RelOp::kEqual: return "=";
    case symbolic::RelOp::kNotEqual: return "<>";
  }
  return "=";
}

namespace {

std::string coq_rec(const ex& e, const Names& names, bool& divides) {
  if (GiNaC::is_a<numeric>(e)) return coq_number(GiNaC::ex_to<numeric>(e));
  if (GiNaC::is_a<GiNaC::symbol>(e)) {
    const symbolic::SymbolRegistry& registry = symbolic::SymbolRegistry::standard();
    if (!registry.contains(e)) throw NotPrintable("a symbol outside the registry");
    const auto it = names.find(&registry.info(e));
    if (it == names.end()) throw NotPrintable("an unnamed symbol");
    return it->second;
  }
  if (GiNaC::is_a<GiNaC::add>(e)) {
    std::string out;
    for (const ex& op : sorted_operands(e)) {
      out += out.empty() ? "" : " + ";
      out += coq_rec(op, names, divides);
    }
    return "(" + out + ")";
  }
  if (GiNaC::is_a<GiNaC::mul>(e) || GiNaC::is_a<GiNaC::power>(e)) {
    std::vector<ex> factors = GiNaC::is_a<GiNaC::mul>(e) ? sorted_operands(e) : std::vector<ex>{e};
    std::vector<std::string> up;
    std::vector<std::string> down;
    for (const ex& f : factors) {
      if (GiNaC::is_a<GiNaC::power>(f)) {
        const int p = small_exponent(f.op(1));
        const std::string base = coq_rec(f.op(0), names, divides);
        for (int i = 0; i < std::abs(p); ++i) (p > 0 ? up : down).push_back(base);
        if (p < 0 && !GiNaC::is_a<numeric>(f.op(0))) divides = true;
      } else {
        up.push_back(coq_rec(f, names, divides));
      }
    }
    const auto product = [](const std::vector<std::string>& v) {
      if (v.empty()) return std::string("1");
      std::string out;
      for (const std::string& s : v) out += (out.empty() ? "" : " * ") + s;
      return v.size() == 1 ? out : "(" + out + ")";
    };
    if (down.empty()) return product(up);
    return "(" + product(up) + " / " + product(down) + ")";
  }
  throw NotPrintable("a function");
}

}  // namespace

CoqText coq_term(const ex& e, const Names& names) {
  CoqText out;
  out.text = coq_rec(e, names, out.divides_by_symbol);
  return out;
}

std::string smt_number(const numeric& q) {
  if (!q.is_rational()) throw NotPrintable("an irrational number");
  const std::string num = integer_text(GiNaC::abs(q.numer())) + ".0";
  const std::string body =
      q.is_integer() ? num : "(/ " + num + " " + integer_text(q.denom()) + ".0)";
  return q.is_negative() ? "(- " + body + ")" : body;
}

std::string smt_term(const ex& e, const Names& names) {
  if (GiNaC::is_a<numeric>(e)) return smt_number(GiNaC::ex_to<numeric>(e));
  if (GiNaC::is_a<GiNaC::symbol>(e)) {
    const symbolic::SymbolRegistry& registry = symbolic::SymbolRegistry::standard();
    if (!registry.contains(e)) throw NotPrintable("a symbol outside the registry");
    return names.at(&registry.info(e));
  }
  if (GiNaC::is_a<GiNaC::add>(e) || GiNaC::is_a<GiNaC::mul>(e)) {
    std::string out = GiNaC::is_a<GiNaC::add>(e) ? "(+" : "(*";
    for (const ex& op : sorted_operands(e)) out += " " + smt_term(op, names);
    return out + ")";
  }
  if (GiNaC::is_a<GiNaC::power>(e)) {
    const int p = small_exponent(e.op(1));
    if (p <= 0) throw NotPrintable("a division (clear denominators first)");
    const std::string base = smt_term(e.op(0), names);
    if (p == 1) return base;
    std::string out = "(*";
    for (int i = 0; i < p; ++i) out += " " + base;
    return out + ")";
  }
  throw NotPrintable("a function");
}

std::vector<const symbolic::SymbolInfo*> symbols_in(const std::vector<ex>& parts) {
  std::set<const symbolic::SymbolInfo*> seen;
  for (const ex& p : parts) {
    for (const symbolic::SymbolInfo* s : symbolic::symbols_of(p)) seen.insert(s);
  }
  std::vector<const symbolic::SymbolInfo*> out(seen.begin(), seen.end());
  std::sort(out.begin(), out.end(), [](const auto* a, const auto* b) { return a->order < b->order; });
  return out;
}

std::vector<symbolic::Constraint> implicit_constraints(
    const std::vector<const symbolic::SymbolInfo*>& symbols) {
  std::vector<symbolic::Constraint> out;
  for (const symbolic::FactBetween& f :
       symbolic::SymbolRegistry::standard().implicit_facts_among(symbols)) {
    out.push_back({f.smaller->symbol - f.larger->symbol - f.fact->offset,
                   symbolic::RelOp::kLessEqual, "implicit: " + f.fact->why});
  }
  return out;
}

}  // namespace infoflow::certify::detail
