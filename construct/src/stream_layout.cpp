// The pass "stream layout" (registry.cpp): the network the plan asks for, its stream holding
// the two flags and x, with the MLP encoder where the analysis asked layer-1 features of it.
#include <algorithm>
#include <memory>

#include "passes.hpp"

namespace infoflow::construct::detail {

void stream_layout(Lowering& st) {
  // The MLP encoder where layer 1 reads a token-wise feature that is not linear in x (it
  // computes the feature, and passes x and the flags through); the linear encoder, a special
  // case of the class, otherwise.
  numeric::ModelConfig config = asked_config(st);
  const bool features_first = std::any_of(st.feature_layer.begin(), st.feature_layer.end(),
                                          [](const auto& f) { return f.second == 0; });
  if (features_first) {
    config.encoder = numeric::Encoder::kMlp;
    config.encoder_width =
        st.options.encoder_width > 0 ? st.options.encoder_width : st.options.ffn_width;
  }
  st.network = std::make_unique<Network>(config, st.options.beta);
}

}  // namespace infoflow::construct::detail
