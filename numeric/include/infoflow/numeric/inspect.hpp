#ifndef INFOFLOW_NUMERIC_INSPECT_HPP_
#define INFOFLOW_NUMERIC_INSPECT_HPP_

/// \file
/// What a network computes inside, for the seed's two qualitative observations
/// (docs/experiments.md, "Inside a trained network"):
///
/// - **probe**: for each head of the first layer, a linear map (least squares with a bias,
///   fitted on the first half of the sequences and scored on the second) from an input token's
///   state after layer 1 to the raw token at the input position where that head's attention
///   from the token is largest, and to the one where it is second largest. Its error is the
///   held-out NMSE (squared error over the targets' variance); the seed compares the trained
///   network's error with the initial one's (a ratio well below 1 for the largest, near 1 for
///   the second).
/// - **attention**: the readout token's attention weights in a layer, one row per sequence, one
///   column per input position (the readout token is never a key).
///
/// Both run the model in float64 on sequences drawn from the task with an explicit seed.

#include <cstdint>
#include <filesystem>
#include <vector>

#include <Eigen/Core>

#include "infoflow/numeric/tasks.hpp"
#include "infoflow/numeric/transformer.hpp"

namespace infoflow::numeric {

struct ProbeScore {
  Index head = 0;              ///< in the first layer
  double to_largest = 0;       ///< held-out NMSE of the probe to the largest-weight token
  double to_second = 0;        ///< ... to the second largest
};

/// Needs at least two layers (the state after layer 1 of the input tokens) and T >= 2.
/// Throws InputError otherwise.
std::vector<ProbeScore> probe_first_layer(const Transformer<double>& model, const Task& task,
                                          Index sequences, std::uint64_t seed);

/// sequences x T: the readout token's weights over the input positions in `layer`, head `head`.
Eigen::MatrixXd readout_attention(const Transformer<double>& model, const Task& task,
                                  Index sequences, std::uint64_t seed, Index layer, Index head);

/// A trained model from a checkpoint of train() (float32 parameters widened to float64).
/// Throws InputError if the checkpoint does not fit the configuration.
Transformer<double> model_from_checkpoint(const ModelConfig& config,
                                          const std::filesystem::path& checkpoint);

/// The model train() starts from with this run seed.
Transformer<double> initial_model(const ModelConfig& config, std::uint64_t run_seed);

}  // namespace infoflow::numeric

#endif  // INFOFLOW_NUMERIC_INSPECT_HPP_
