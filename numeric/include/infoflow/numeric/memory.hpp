#ifndef INFOFLOW_NUMERIC_MEMORY_HPP_
#define INFOFLOW_NUMERIC_MEMORY_HPP_

/// \file
/// The memory a training run needs, estimated from its configuration before anything is
/// allocated, so that a run too large for the machine is refused with its size, not killed.

#include "infoflow/numeric/config.hpp"
#include "infoflow/numeric/train.hpp"

namespace infoflow::numeric {

/// Bytes of the model, its gradients and AdamW moments, the workspaces, the batch and the
/// validation set (the largest allocations of train(); small ones are left out).
[[nodiscard]] double training_memory_bytes(const ModelConfig& model, const TrainOptions& options);

/// Throws InputError, with the estimate, when it exceeds the machine's physical memory.
void check_training_memory(const ModelConfig& model, const TrainOptions& options);

}  // namespace infoflow::numeric

#endif  // INFOFLOW_NUMERIC_MEMORY_HPP_
