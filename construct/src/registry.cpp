// The lowering's passes in the order they run (docs/constructions.md, "The lowering's passes").
// Each reads what the passes before it left in the shared state (lowering_state.hpp). A new
// pass: its file, its declaration in passes.hpp and its line here.

#include "passes.hpp"

namespace infoflow::construct {
namespace detail {

// The analysis comes before the stream's layout, since the features it asks of layer 1 choose
// the encoder; the per-layer passes run in turn for layer 1, then layer 2, and so on, since a
// layer's FFN is calibrated on the states its attention makes; the readout MLP comes last, as
// it reads what every layer left at the readout.
const std::vector<Pass>& registered_passes() {
  static const std::vector<Pass> kPasses{
      {"set up", false, set_up,
       "reads the plan: the sizes, the target's data, the positions read, the target's value in "
       "the quantities' values"},
      {"analyse", false, analyse,
       "splits each step's score by where its terms are read, and asks for the token-wise "
       "features some FFN must compute first"},
      {"stream layout", false, stream_layout,
       "builds the network: the flags and x in the stream, and the MLP encoder where layer 1 "
       "reads a feature that is not linear in x"},
      {"encoder", false, encoder, "computes layer 1's token-wise features in the MLP encoder"},
      {"attention", true, attention,
       "writes the layer's heads: retrievals, means, fetches by position, masks and chains"},
      {"FFN", true, layer_ffn,
       "writes the FFN after the layer: the values not linear in what was fetched, the next "
       "layers' features, the chains' flags and hats, the readout's first level"},
      {"readout", false, readout,
       "writes the readout MLP, the target's value from what the "
       "readout holds"},
      {"measure", false, measure, "measures the NMSE on fresh sequences"},
  };
  return kPasses;
}

}  // namespace detail

std::vector<LoweringPass> lowering_passes() {
  std::vector<LoweringPass> out;
  for (const detail::Pass& p : detail::registered_passes())
    out.push_back({p.name, p.per_layer, p.does});
  return out;
}

}  // namespace infoflow::construct
