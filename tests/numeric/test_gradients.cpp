// The hand-written backward pass against central finite differences, in float64, for every
// parameter tensor, over configurations that exercise each path of the model (the MLP encoder,
// the default, with and without positions; the linear one; the readout masked out of the keys).
#include <cmath>
#include <string>
#include <vector>

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include "infoflow/numeric/random.hpp"
#include "infoflow/numeric/transformer.hpp"

namespace nm = infoflow::numeric;
using nm::Index;

namespace {

struct Case {
  std::string name;
  nm::ModelConfig config;
  Index count = 3;
};

nm::ModelConfig base() {
  nm::ModelConfig c;
  c.tokens = 5;
  c.token_dim = 3;
  c.embedding = 8;
  c.heads = {2, 4};
  c.ffn_width = 12;
  c.readout_width = 10;
  return c;
}

std::vector<Case> cases() {
  std::vector<Case> out;
  out.push_back({"two_layers_gelu", base()});
  nm::ModelConfig c = base();
  c.heads = {2};
  out.push_back({"one_layer", c});
  c = base();
  c.heads = {1, 2, 4};
  c.pre_layer_norm = true;
  out.push_back({"three_layers_pre_layer_norm", c});
  c = base();
  c.positional = nm::PositionalEncoding::kLearned;
  c.activation = nm::Activation::kRelu;
  out.push_back({"learned_positions_relu", c});
  c = base();
  c.positional = nm::PositionalEncoding::kSinusoidal;
  c.head_dim = 3;  // n fixed, E != n*h
  c.attention_scale = 2.5;
  out.push_back({"sinusoidal_fixed_head_dim_scale", c});
  c = base();
  c.tokens = 1;
  c.heads = {8, 1};
  out.push_back({"one_token_one_dim_heads", c});
  // The linear encoder (a sub-class): the position added after its map.
  c = base();
  c.encoder = nm::Encoder::kLinear;
  c.positional = nm::PositionalEncoding::kLearned;
  out.push_back({"linear_encoder_learned_positions", c});
  c.positional = nm::PositionalEncoding::kSinusoidal;
  c.pre_layer_norm = true;
  out.push_back({"linear_encoder_sinusoidal_pre_layer_norm", c});
  // The MLP encoder at its own width, the learned positions through U.
  c = base();
  c.encoder_width = 5;
  c.positional = nm::PositionalEncoding::kLearned;
  out.push_back({"mlp_encoder_own_width_learned_positions", c});
  // S = 10 and n = 7: the attention's products take every path of layers::head_product (blocks
  // of 8 columns and the columns after them; rows in a packet, a half packet and one alone).
  c = base();
  c.tokens = 9;
  c.heads = {2, 2};
  c.head_dim = 7;
  out.push_back({"long_sequence_wide_heads", c});
  return out;
}

// Loss = sum_b w_b * prediction_b, so that backward's output gradient is w.
double loss(nm::Transformer<double>& model, nm::Workspace<double>& ws, const std::vector<double>& x,
            const std::vector<double>& w, Index count) {
  std::vector<double> pred(static_cast<std::size_t>(count));
  ws.forward(model, x.data(), count, pred.data());
  double sum = 0;
  for (Index b = 0; b < count; ++b)
    sum += w[static_cast<std::size_t>(b)] * pred[static_cast<std::size_t>(b)];
  return sum;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(gradients)

BOOST_DATA_TEST_CASE(match_central_differences_for_every_tensor,
                     boost::unit_test::data::xrange(cases().size()), index) {
  const Case c = cases()[index];
  BOOST_TEST_MESSAGE("configuration " << c.name);
  nm::Transformer<double> model(c.config);
  model.initialize(7);
  nm::Rng rng(11);
  // Non-zero biases and gains so that no path is trivially zero.
  for (double& p : model.parameters()) p += 0.05 * rng.normal();
  std::vector<double> x(static_cast<std::size_t>(c.config.token_dim * c.config.tokens * c.count));
  for (double& v : x) v = rng.normal();
  std::vector<double> w(static_cast<std::size_t>(c.count));
  for (double& v : w) v = rng.normal();

  nm::Workspace<double> ws(c.config, c.count + 1);  // capacity above count: offsets must hold
  std::vector<double> pred(static_cast<std::size_t>(c.count));
  ws.forward(model, x.data(), c.count, pred.data());
  std::vector<double> grad(model.parameters().size(), 0.0);
  ws.backward(model, w.data(), grad.data());

  for (const nm::TensorInfo& t : model.layout().tensors()) {
    double diff2 = 0;
    double analytic2 = 0;
    double numeric2 = 0;
    for (Index i = t.offset; i < t.offset + t.size(); ++i) {
      double& p = model.parameters()[static_cast<std::size_t>(i)];
      const double saved = p;
      const double h = 1e-6 * std::max(1.0, std::abs(saved));
      p = saved + h;
      const double up = loss(model, ws, x, w, c.count);
      p = saved - h;
      const double down = loss(model, ws, x, w, c.count);
      p = saved;
      const double numeric = (up - down) / (2 * h);
      const double analytic = grad[static_cast<std::size_t>(i)];
      diff2 += (numeric - analytic) * (numeric - analytic);
      analytic2 += analytic * analytic;
      numeric2 += numeric * numeric;
    }
    const double scale = std::max({std::sqrt(analytic2), std::sqrt(numeric2), 1e-12});
    const double relative = std::sqrt(diff2) / scale;
    BOOST_TEST_INFO(c.name << " " << t.name << ": |g| = " << std::sqrt(analytic2)
                           << ", relative error " << relative);
    BOOST_TEST(relative < 1e-6);
    if (c.config.tokens == 1 && (t.name.ends_with("attn.q") || t.name.ends_with("attn.k"))) {
      // One key, the readout never one: every softmax weight is 1 whatever the scores.
      BOOST_TEST(analytic2 == 0.0);
    } else {
      BOOST_TEST(std::sqrt(analytic2) > 0.0);  // every tensor reaches the output
    }
  }
}

BOOST_AUTO_TEST_CASE(backward_accumulates_into_the_gradient) {
  const nm::ModelConfig c = base();
  nm::Transformer<double> model(c);
  model.initialize(3);
  nm::Rng rng(5);
  std::vector<double> x(static_cast<std::size_t>(c.token_dim * c.tokens * 2));
  for (double& v : x) v = rng.normal();
  const std::vector<double> w{0.5, -1.5};
  nm::Workspace<double> ws(c, 2);
  std::vector<double> pred(2);
  std::vector<double> once(model.parameters().size(), 0.0);
  ws.forward(model, x.data(), 2, pred.data());
  ws.backward(model, w.data(), once.data());
  std::vector<double> twice(model.parameters().size(), 0.0);
  ws.backward(model, w.data(), twice.data());
  ws.backward(model, w.data(), twice.data());
  for (std::size_t i = 0; i < once.size(); ++i)
    BOOST_TEST(twice[i] == 2 * once[i], boost::test_tools::tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(float32_forward_agrees_with_float64) {
  const nm::ModelConfig c = base();
  nm::Transformer<double> m64(c);
  m64.initialize(9);
  nm::Transformer<float> m32(c);
  for (std::size_t i = 0; i < m64.parameters().size(); ++i)
    m32.parameters()[i] = static_cast<float>(m64.parameters()[i]);
  nm::Rng rng(1);
  std::vector<double> x64(static_cast<std::size_t>(c.token_dim * c.tokens * 4));
  for (double& v : x64) v = rng.normal();
  std::vector<float> x32(x64.begin(), x64.end());
  std::vector<double> p64(4);
  std::vector<float> p32(4);
  nm::Workspace<double> w64(c, 4);
  nm::Workspace<float> w32(c, 4);
  w64.forward(m64, x64.data(), 4, p64.data());
  w32.forward(m32, x32.data(), 4, p32.data());
  for (std::size_t b = 0; b < 4; ++b)
    BOOST_TEST(std::abs(p64[b] - p32[b]) < 1e-5 * std::max(1.0, std::abs(p64[b])));
}

BOOST_AUTO_TEST_CASE(a_workspace_refuses_more_sequences_than_it_holds) {
  const nm::ModelConfig c = base();
  nm::Transformer<double> model(c);
  nm::Workspace<double> ws(c, 2);
  std::vector<double> x(static_cast<std::size_t>(c.token_dim * c.tokens * 3));
  std::vector<double> pred(3);
  BOOST_CHECK_THROW(ws.forward(model, x.data(), 3, pred.data()), std::invalid_argument);
  BOOST_CHECK_THROW(ws.forward(model, x.data(), 0, pred.data()), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
