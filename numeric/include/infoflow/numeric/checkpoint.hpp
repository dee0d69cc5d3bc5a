#ifndef INFOFLOW_NUMERIC_CHECKPOINT_HPP_
#define INFOFLOW_NUMERIC_CHECKPOINT_HPP_

/// \file
/// The state of a training run between two steps, as a file: parameters, AdamW moments and
/// step count, the learning curve and the best validation NMSE so far. The random state is the
/// step number: every step draws its samples from a stream derived from (seed, step), and the
/// validation set is drawn again from the seed, so a run resumed from a checkpoint continues
/// bitwise as the uninterrupted run would.
///
/// Format (native byte order, the machine that wrote it): the magic "INFOFLOW-CKPT-1\n", then
/// length-prefixed fields, then an FNV-1a checksum of everything before it. Written atomically
/// (temporary file, fsync, rename), so a kill leaves the previous checkpoint or the new one.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "infoflow/numeric/train.hpp"

namespace infoflow::numeric {

struct Checkpoint {
  std::string fingerprint;  ///< the configuration it belongs to (see train.cpp)
  Index steps_done = 0;
  bool finished = false;  ///< the run ended here (budget or plateau): resuming returns at once
  RunStatus status = RunStatus::kBudgetReached;
  Index scalar_bytes = 4;  ///< 4: float32, 8: float64
  Index optimizer_steps = 0;
  std::vector<unsigned char> parameters;  ///< raw scalars
  std::vector<unsigned char> first_moment;
  std::vector<unsigned char> second_moment;
  std::vector<CurvePoint> curve;
  double best_validation_nmse = 0;
  Index best_step = 0;
  double final_validation_nmse = 0;
  double seconds_training = 0;  ///< so that a resumed run reports its whole time
  double seconds_total = 0;
};

/// The fingerprint's model part: the shape a checkpoint's parameters have.
std::string model_fingerprint(const ModelConfig& m);

/// A checkpoint that holds a model and no training (a construction, docs/constructions.md):
/// its fingerprint is "construction|" and the model part. train() starts from its parameters
/// with fresh optimizer moments, where the model matches, and writes its own checkpoints over it.
Checkpoint starting_checkpoint(const ModelConfig& m, const std::vector<double>& parameters);
/// Whether `c` is a starting checkpoint (starting_checkpoint).
bool is_starting_checkpoint(const Checkpoint& c);

/// Writes `c` to `path` atomically (creating the directory). Throws Error if it cannot.
void save_checkpoint(const std::filesystem::path& path, const Checkpoint& c);

/// Reads a checkpoint; throws InputError naming the file if it is truncated, corrupt or of
/// another format.
Checkpoint load_checkpoint(const std::filesystem::path& path);

}  // namespace infoflow::numeric

#endif  // INFOFLOW_NUMERIC_CHECKPOINT_HPP_
