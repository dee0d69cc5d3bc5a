#ifndef INFOFLOW_NUMERIC_SRC_CAPACITY_HPP_
#define INFOFLOW_NUMERIC_SRC_CAPACITY_HPP_

// How many sequences a training workspace holds. A chunk of the batch goes through its
// workspace a few sequences at a time, so that the activations the forward pass writes and the
// backward pass reads back stay in the core's cache: a whole chunk's (tens of MiB at T = 64)
// went to memory and back. The count depends on the model and the chunk alone, never on the
// threads or the machine, so a run's numbers stay reproducible.

#include <algorithm>

#include "infoflow/numeric/transformer.hpp"

namespace infoflow::numeric {

inline constexpr Index kWorkspaceBytes = Index{1} << 20;

template <class Scalar>
Index workspace_capacity(const ModelConfig& model, Index chunk) {
  const Index per_sequence = Workspace<Scalar>::size_for(model, 1) * Index{sizeof(Scalar)};
  return std::clamp<Index>(kWorkspaceBytes / per_sequence, 1, chunk);
}

}  // namespace infoflow::numeric

#endif  // INFOFLOW_NUMERIC_SRC_CAPACITY_HPP_
