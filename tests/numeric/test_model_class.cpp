// The model class of docs/theory.md, section 2, in the forward pass: the readout token queries
// and is never a key, and the MLP encoder receives the position as an input, so that it forms
// products of position and content.
#include <vector>

#include <boost/test/unit_test.hpp>

#include "infoflow/numeric/random.hpp"
#include "infoflow/numeric/transformer.hpp"

namespace nm = infoflow::numeric;
using nm::Index;

BOOST_AUTO_TEST_SUITE(model_class)

BOOST_AUTO_TEST_CASE(the_readout_token_is_never_a_key) {
  nm::ModelConfig c;
  c.tokens = 4;
  c.token_dim = 3;
  c.embedding = 8;
  c.heads = {2, 2};
  c.ffn_width = 6;
  nm::Transformer<double> model(c);
  model.initialize(5);
  nm::Rng rng(9);
  std::vector<double> x(static_cast<std::size_t>(c.token_dim * c.tokens * 2));
  for (double& v : x) v = rng.normal();
  nm::Workspace<double> ws(c, 2);
  std::vector<double> pred(2);
  ws.forward(model, x.data(), 2, pred.data());
  const Eigen::MatrixXd before = ws.state_entering(1, 2);
  // Layer 1's weights: T x S per (sequence, head), each query's column a distribution over
  // the T input tokens.
  const Eigen::Map<const Eigen::MatrixXd> w(ws.attention_weights(0), c.tokens,
                                            2 * 2 * c.sequence());
  for (Index j = 0; j < w.cols(); ++j)
    BOOST_TEST(w.col(j).sum() == 1.0, boost::test_tools::tolerance(1e-12));
  // A new readout token changes what the readout holds, and nothing the input tokens hold.
  model.tensor("embed.readout_token").array() += 3.0;
  ws.forward(model, x.data(), 2, pred.data());
  const Eigen::MatrixXd after = ws.state_entering(1, 2);
  for (Index b = 0; b < 2; ++b) {
    for (Index t = 0; t < c.tokens; ++t)
      BOOST_TEST((after.col(b * c.sequence() + t) - before.col(b * c.sequence() + t)).norm() == 0.0);
    BOOST_TEST((after.col(b * c.sequence() + c.tokens) - before.col(b * c.sequence() + c.tokens))
                   .norm() > 0.1);
  }
}

BOOST_AUTO_TEST_CASE(the_mlp_encoder_forms_position_times_content) {
  // T = 3, d = 1, E = 3: z(t) = e_t x(t), the predecessor's e_t (kron) x(t) encoding. Hidden
  // units relu(+-x + C p_i(t) - C) pass +-x at position i alone (|x| < C); W2 subtracts them.
  nm::ModelConfig c;
  c.tokens = 3;
  c.token_dim = 1;
  c.embedding = 3;
  c.heads = {1};
  c.encoder_width = 6;
  c.positional = nm::PositionalEncoding::kLearned;
  nm::Transformer<double> model(c);
  const double big = 100;
  model.tensor("embed.position").setIdentity();  // p(t) = e_t
  for (Index i = 0; i < 3; ++i) {
    for (Index sign = 0; sign < 2; ++sign) {
      const Index unit = 2 * i + sign;
      model.tensor("embed.w1")(unit, 0) = sign == 0 ? 1 : -1;
      model.tensor("embed.w1_position")(unit, i) = big;
      model.tensor("embed.b1")(unit, 0) = -big;
      model.tensor("embed.w2")(i, unit) = sign == 0 ? 1 : -1;
    }
  }
  const std::vector<double> x{0.7, -1.3, 2.1};
  nm::Workspace<double> ws(c, 1);
  double pred = 0;
  ws.forward(model, x.data(), 1, &pred);
  const Eigen::MatrixXd z = ws.state_entering(0, 1);
  for (Index t = 0; t < 3; ++t) {
    for (Index i = 0; i < 3; ++i)
      BOOST_TEST(z(i, t) == (i == t ? x[static_cast<std::size_t>(t)] : 0.0),
                 boost::test_tools::tolerance(1e-12));
  }
}

BOOST_AUTO_TEST_SUITE_END()
