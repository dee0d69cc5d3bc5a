#ifndef INFOFLOW_THEOREMS_ENGINE_PRICER_HPP_
#define INFOFLOW_THEOREMS_ENGINE_PRICER_HPP_

// The engine's prices (docs/infoflow_engine.md, "Actions"): exact exponents of 1/eps from the
// catalogue's entries, with the architecture's values, and the plans they price (plans.cpp).
// Internal to the engine.

#include <string>
#include <utility>

#include <ginac/ginac.h>

#include "infoflow/core/error.hpp"
#include "infoflow/symbolic/canonical.hpp"
#include "infoflow/symbolic/symbols.hpp"
#include "infoflow/theorems/engine.hpp"

#include "placement.hpp"

namespace infoflow::theorems::detail {

inline const GiNaC::possymbol& sym(const char* name) {
  return symbolic::SymbolRegistry::standard().at(name).symbol;
}

inline double number(const GiNaC::ex& e, const std::string& what) {
  const GiNaC::ex v = e.evalf();
  if (!GiNaC::is_a<GiNaC::numeric>(v)) {
    throw InputError("the InfoFlow engine needs " + what + " as a number once d, E and n have values, not " +
                     symbolic::canonical(e));
  }
  return GiNaC::ex_to<GiNaC::numeric>(v).to_double();
}

/// An exponent's order as T -> infinity, for exact comparisons of the chosen plan's steps.
inline Price price_of(const GiNaC::ex& a) {
  const GiNaC::ex e = a.expand();
  return {number(e.coeff(sym("T"), 1), "a slope in T"), number(e.coeff(sym("T"), 0), "an exponent")};
}

/// What the plan builder needs from the engine: exact exponents of the priced steps.
struct Pricer {
  Engine& engine;
  const Architecture& a;

  [[nodiscard]] GiNaC::ex floor() const { return engine.exponent_of(engine.costs().efficient, {}); }
  /// Theorem 3's exponent in T0, with d and E given.
  [[nodiscard]] GiNaC::ex decode_law() const {
    return engine.exponent_of(engine.costs().decoding,
                              {{sym("d"), a.token_dim}, {sym("E"), a.embedding}});
  }
  [[nodiscard]] GiNaC::ex decode(const GiNaC::ex& size) const {
    const GiNaC::ex e = decode_law().subs(sym("T0") == size).expand();
    return cheaper(price_of(e), price_of(floor())) ? floor() : e;
  }
  [[nodiscard]] Kind kind_of(const std::string& entry) const {
    return engine.catalogue().find(entry)->kind == Kind::kLower ? Kind::kLower : Kind::kUpper;
  }
  /// Decoding with d and E symbolic: Theorem 3's exponent, or the floor and when it holds.
  [[nodiscard]] std::pair<GiNaC::ex, std::string> decode_general(const GiNaC::ex& size) const {
    const GiNaC::ex general = engine.exponent_of(engine.costs().decoding, {{sym("T0"), size}});
    if (decode(size) == floor() && general != floor()) {
      return {floor(), symbolic::canonical(general) + " <= " + symbolic::canonical(floor())};
    }
    return {general, ""};
  }
  [[nodiscard]] GiNaC::ex kth(long layer, long rank) const {
    return engine.exponent_of(engine.costs().kth,
                              {{sym("k"), rank}, {sym("n"), a.head_dim_of(layer - 1)}});
  }
  [[nodiscard]] GiNaC::ex kth_general(long rank) const {
    return engine.exponent_of(engine.costs().kth, {{sym("k"), rank}});
  }
  [[nodiscard]] GiNaC::ex mean() const { return engine.exponent_of(engine.costs().mean, {}); }

  [[nodiscard]] PriceModel model() const {
    PriceModel m;
    m.floor = price_of(floor());
    const GiNaC::ex d = engine.exponent_of(
        engine.costs().decoding, {{sym("d"), a.token_dim}, {sym("E"), a.embedding}});
    m.decode_per_token = number(d.coeff(sym("T0"), 1), "Theorem 3's slope in T0");
    m.decode_constant = number(d.coeff(sym("T0"), 0), "Theorem 3's constant");
    m.mean = price_of(mean());
    for (long l = 1; l <= a.layers(); ++l) {
      const GiNaC::ex k = engine.exponent_of(engine.costs().kth, {{sym("n"), a.head_dim_of(l - 1)}});
      m.kth_per_layer.push_back(
          {number(k.coeff(sym("T"), 1), "Theorem 2's slope"),
           number(k.coeff(sym("T"), 0).coeff(sym("k"), 0), "Theorem 2's constant")});
      m.kth_rank.push_back(number(k.coeff(sym("T"), 0).coeff(sym("k"), 1), "Theorem 2's rank term"));
    }
    return m;
  }
};

/// Efficient where the exponent does not grow with T (a lower bound that grows says no plan of
/// its kind is efficient).
void set_verdict(Plan& p);
/// The plan of one global aggregation at the readout in layer 1: the readout then holds every
/// input, so it computes anything, at the cost of decoding T tokens.
Plan aggregation_plan(const Pricer& pricer, const Architecture& a, std::string reason);
/// The plan of a placement: each quantity's step priced by its catalogue entry, the information
/// sets after each layer and their decodings; its rate the costliest.
Plan plan_of(const Program& program, const Pricer& pricer, const Placement& placement);

}  // namespace infoflow::theorems::detail

#endif  // INFOFLOW_THEOREMS_ENGINE_PRICER_HPP_
