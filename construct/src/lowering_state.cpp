#include "lowering_state.hpp"

#include <fmt/format.h>

namespace infoflow::construct::detail {

std::string Lowering::label(const theorems::PlanStep& s) const {
  return fmt::format("layer {}, {} at the {} ({})", s.layer, theorems::heads_text(s),
                     s.where == theorems::TokenClass::kReadout ? "readout" : "input tokens",
                     s.quantity.empty() ? theorems::to_text(s.action) : s.quantity);
}

const theorems::Quantity& Lowering::quantity(const theorems::PlanStep& s) const {
  return program.quantities[static_cast<std::size_t>(by_name.at(s.quantity))];
}

const std::string& Lowering::name(int id) const {
  return program.quantities[static_cast<std::size_t>(id)].name;
}

const Form& Lowering::held(Class at, int id, const std::string& step) const {
  const auto& held_at = values[static_cast<int>(at)];
  const auto it = held_at.find(id);
  if (it == held_at.end()) {
    throw Failure(Shortfall::kEngine, step,
                  fmt::format("{}: it reads {} at the {}, where no earlier step put it", step,
                              name(id), class_name(at)));
  }
  return it->second;
}

}  // namespace infoflow::construct::detail
