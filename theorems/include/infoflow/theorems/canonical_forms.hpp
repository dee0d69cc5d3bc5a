#ifndef INFOFLOW_THEOREMS_CANONICAL_FORMS_HPP_
#define INFOFLOW_THEOREMS_CANONICAL_FORMS_HPP_

/// \file
/// Canonical forms (docs/infoflow_engine.md, "C0 Canonical forms"): before the quantity compiler
/// plans a target, equal targets written differently are brought to one form, so that a
/// function gets one answer however it is written. Each rewrite is an identity of the target's
/// value on every sequence, a small function from a formula node to a node, named by its rule
/// id; one registry lists them in the order they are tried. The list of what is not brought to
/// one form is in the docs.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "infoflow/targets/formula.hpp"

namespace infoflow::theorems {

struct CanonicalRewrite {
  std::string id;    ///< "C1 like terms"
  std::string rule;  ///< the identity it applies, in one line
  /// The node rewritten, or nullopt where the rule does not apply. Called on a node whose
  /// operands are already canonical.
  std::function<std::optional<targets::Node>(const targets::Node&)> apply;
};

/// The rewrites in the order they are tried at each node.
const std::vector<CanonicalRewrite>& canonical_rewrites();

struct CanonicalForm {
  targets::Node root;
  std::vector<std::string> applied;  ///< ids of the rewrites that changed it, first use order
};

/// `root` rewritten bottom-up, each node to a fixed point of the registry.
CanonicalForm canonical_form(const targets::Node& root);

/// Whether the formula reads token positions once in canonical form (max(s < t) of a symmetric
/// body does not): what a positional encoding is needed for by default.
bool reads_positions_when_canonical(const targets::Formula& formula);

/// A text two expressions share when they are equal up to the order of the operands of +, *
/// and dot, and the names of the indices their reductions bind.
std::string structure_key(const targets::Node& n);

}  // namespace infoflow::theorems

#endif  // INFOFLOW_THEOREMS_CANONICAL_FORMS_HPP_
