// The reader: applies the registry's readings to every node of a target, operands first.
#include <utility>

#include "infoflow/core/error.hpp"
#include "infoflow/targets/node_algebra.hpp"

#include "compiler.hpp"
#include "pipeline.hpp"
#include "readings/reading.hpp"
#include "values.hpp"

namespace infoflow::theorems::detail {

Reader::Reader(const targets::Bindings& bindings, long token_dim, bool second_reading)
    : bindings_(bindings), token_dim_(token_dim), second_reading_(second_reading) {}

targets::Node Reader::read(const targets::Node& n) {  // NOLINT(misc-no-recursion)
  const std::span<const ReadingStep> steps = reading_steps();
  const auto applies = [&](const ReadingStep& s) {
    return second_reading_ || !s.reading->second_reading_only;
  };
  for (const ReadingStep& s : steps) {
    if (!s.before_operands || !applies(s)) continue;
    if (std::optional<targets::Node> rewritten = s.reading->rewrite(n, n, *this))
      return s.then == Then::kReadAgain ? read(*rewritten) : std::move(*rewritten);
  }
  targets::Node out = n;
  for (targets::Node& a : out.args) a = read(a);
  for (const ReadingStep& s : steps) {
    if (s.before_operands || !applies(s)) continue;
    std::optional<targets::Node> rewritten = s.reading->rewrite(out, n, *this);
    if (!rewritten) continue;
    if (s.then == Then::kReadAgain) return read(*rewritten);
    if (s.then == Then::kDone) return std::move(*rewritten);
    out = std::move(*rewritten);
  }
  return out;
}

void Reader::note(const targets::Node& reduction, const std::string& how) {
  std::string& notes = notes_[reduction];
  if (notes.find(how) == std::string::npos) notes += how;
}

long Reader::resolve(const targets::Bound& b, std::size_t column) const {
  if (b.name.empty()) return b.value;
  const auto it = bindings_.find(b.name);
  if (it == bindings_.end()) {
    throw InputError(
        SourceLocation{"<formula>", 1, column},
        "the range or rank needs a value for " + b.name + " (e.g. --set " + b.name + "=3)");
  }
  return it->second;
}

std::optional<double> Reader::closed_constant(const targets::Node& n, bool every_length) const {
  try {
    return constant_value(targets::Formula::from_tree(n), bindings_, token_dim_, every_length);
  } catch (const InputError&) {  // an index bound further out, a member of an unrolled family
    return std::nullopt;
  }
}

std::optional<bool> Reader::same_values(const targets::Node& a, const targets::Node& b) const {
  try {
    return detail::same_values(targets::Formula::from_tree(a), targets::Formula::from_tree(b),
                               bindings_, token_dim_);
  } catch (const InputError&) {  // an index bound further out
    return std::nullopt;
  }
}

bool ranged(const targets::Binder& b, const targets::Node& n) {
  const bool all_tokens = b.low.name.empty() && b.low.value == 1 && b.high.name == "T";
  return b.has_range && !(all_tokens && targets::subscripts_x(n, b.name));
}

namespace {

void read_target(Compilation& state) {
  state.root = state.reader.read(state.formula().root());
}

/// The registry's steps, each with its rule's id and where the reader tries it.
std::vector<std::string> reading_names() {
  std::vector<std::string> out;
  for (const ReadingStep& s : reading_steps()) {
    out.push_back(std::string(s.reading->rule) + " " + s.reading->name +
                  (s.before_operands ? " (before the operands)" : "") +
                  (s.reading->second_reading_only ? " (second reading)" : ""));
  }
  return out;
}

}  // namespace

extern const Pass kReadingsPass;  // registered in pipeline.cpp
const Pass kReadingsPass{
    .rule = "E0 E1 E3 R1 R5",
    .name = "readings",
    .does =
        "rewrites that keep the value and show what the rules price, each node "
        "with its operands read, in readings/registry.cpp's order",
    .stage = Stage::kTarget,
    .on_target = read_target,
    .steps = reading_names};

}  // namespace infoflow::theorems::detail
