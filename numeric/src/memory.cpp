#include "infoflow/numeric/memory.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <unistd.h>

#include "infoflow/core/error.hpp"
#include "infoflow/numeric/transformer.hpp"

#include "capacity.hpp"

namespace infoflow::numeric {

namespace {

template <class Scalar>
double bytes_as(const ModelConfig& model, const TrainOptions& o) {
  const double scalar = sizeof(Scalar);
  const double chunks = static_cast<double>(std::min(o.chunks, o.batch));
  const Index chunk = (o.batch + std::min(o.chunks, o.batch) - 1) / std::min(o.chunks, o.batch);
  const double parameters = static_cast<double>(ParameterLayout(model).size());
  const double tokens = static_cast<double>(model.tokens * model.token_dim);
  // Weights, AdamW's two moments, one gradient per chunk.
  const double model_bytes = parameters * (3 + chunks) * scalar;
  const Index capacity = workspace_capacity<Scalar>(model, chunk);
  const double workspaces =
      chunks * static_cast<double>(Workspace<Scalar>::size_for(model, capacity)) * scalar;
  // A chunk's batch is drawn in double and cast; the validation set likewise, plus the
  // calibration set drawn before it.
  const double batch = chunks * static_cast<double>(chunk) * tokens * (8 + scalar);
  const double validation = static_cast<double>(o.validation_size) * tokens * (2 * 8 + scalar);
  return model_bytes + workspaces + batch + validation;
}

double physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 0;
}

}  // namespace

double training_memory_bytes(const ModelConfig& model, const TrainOptions& options) {
  return options.precision == Precision::kFloat32 ? bytes_as<float>(model, options)
                                                  : bytes_as<double>(model, options);
}

void check_training_memory(const ModelConfig& model, const TrainOptions& options) {
  const double needed = training_memory_bytes(model, options);
  const double available = physical_memory_bytes();
  if (available > 0 && needed > available) {
    throw InputError(fmt::format(
        "this run needs about {:.1f} GiB of memory and the machine has {:.1f} GiB (T = {}, E = {}, "
        "batch {}, {} validation sequences): make it smaller",
        needed / (1 << 30), available / (1 << 30), model.tokens, model.embedding, options.batch,
        options.validation_size));
  }
}

}  // namespace infoflow::numeric
