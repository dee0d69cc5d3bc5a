// AdamW, the schedule, clipping and the parameter count, against values worked out by hand.
#include <boost/test/unit_test.hpp>

#include "infoflow/numeric/config.hpp"
#include "infoflow/numeric/optimizer.hpp"
#include "infoflow/numeric/random.hpp"

namespace nm = infoflow::numeric;
namespace tt = boost::test_tools;

BOOST_AUTO_TEST_SUITE(optimizer)

BOOST_AUTO_TEST_CASE(schedule_warms_up_linearly_then_follows_the_cosine) {
  const nm::Schedule s{1.0, 4, 13, 0.1};
  BOOST_TEST(s.at(0) == 0.25, tt::tolerance(1e-15));
  BOOST_TEST(s.at(3) == 1.0, tt::tolerance(1e-15));
  BOOST_TEST(s.at(4) == 1.0, tt::tolerance(1e-15));
  BOOST_TEST(s.at(8) == 0.55, tt::tolerance(1e-15));  // half way: 0.1 + 0.5 * 0.9
  BOOST_TEST(s.at(12) == 0.1, tt::tolerance(1e-15));  // the last step ends at the floor
}

BOOST_AUTO_TEST_CASE(schedule_holds_the_peak_until_the_cool_down) {
  // Warm-up over 2 steps, the peak held through step 5, a cosine over steps 6..10.
  const nm::Schedule s{1.0, 2, 11, 0.0, 6};
  BOOST_TEST(s.at(0) == 0.5, tt::tolerance(1e-15));
  BOOST_TEST(s.at(2) == 1.0, tt::tolerance(1e-15));
  BOOST_TEST(s.at(5) == 1.0, tt::tolerance(1e-15));
  BOOST_TEST(s.at(6) == 1.0, tt::tolerance(1e-15));   // the cosine's first step
  BOOST_TEST(s.at(8) == 0.5, tt::tolerance(1e-15));   // half way
  BOOST_TEST(s.at(10) == 0.0, tt::tolerance(1e-15));  // the floor at the last step
  // A hold inside the warm-up changes nothing: the cosine starts after the warm-up.
  const nm::Schedule plain{1.0, 4, 13, 0.1};
  const nm::Schedule early{1.0, 4, 13, 0.1, 2};
  for (nm::Index step = 0; step < 13; ++step) BOOST_TEST(plain.at(step) == early.at(step));
}

BOOST_AUTO_TEST_CASE(first_adamw_step_moves_each_weight_by_the_learning_rate) {
  // After one step m/(1-b1) = g and sqrt(v/(1-b2)) = |g|: p <- p (1 - lr wd) - lr g / (|g| + eps).
  nm::ModelConfig c;
  c.tokens = 2;
  c.token_dim = 1;
  c.embedding = 2;
  c.heads = {1};
  c.ffn_width = 1;
  c.readout_width = 1;
  c.encoder = nm::Encoder::kLinear;
  const nm::ParameterLayout layout(c);
  nm::AdamW<double> adam(layout, {0.1, 0.9, 0.999, 1e-8, 0.01});
  std::vector<double> p(static_cast<std::size_t>(layout.size()), 1.0);
  std::vector<double> g(p.size(), 0.5);
  adam.step(p.data(), g.data(), 0.1);
  const auto weight = static_cast<std::size_t>(layout.find("embed.weight").offset);
  const auto bias = static_cast<std::size_t>(layout.find("embed.bias").offset);
  BOOST_TEST(p[weight] == 0.999 - 0.1 * 0.5 / (0.5 + 1e-8), tt::tolerance(1e-14));
  BOOST_TEST(p[bias] == 1.0 - 0.1 * 0.5 / (0.5 + 1e-8), tt::tolerance(1e-14));
  BOOST_TEST(adam.steps_taken() == 1);
}

BOOST_AUTO_TEST_CASE(clipping_scales_to_the_maximum_norm) {
  std::vector<double> g{3.0, 4.0};
  BOOST_TEST(nm::clip_gradient_norm(g.data(), 2, 1.0) == 5.0);
  BOOST_TEST(g[0] == 3.0 / (5.0 + 1e-6), tt::tolerance(1e-15));
  BOOST_TEST(g[1] == 4.0 / (5.0 + 1e-6), tt::tolerance(1e-15));
  std::vector<double> small{0.3, 0.4};
  nm::clip_gradient_norm(small.data(), 2, 1.0);
  BOOST_TEST(small[0] == 0.3);
}

BOOST_AUTO_TEST_CASE(parameter_count_splits_as_the_theory_counts) {
  nm::ModelConfig c;
  c.tokens = 5;
  c.token_dim = 3;
  c.embedding = 8;
  c.heads = {2, 4};
  c.ffn_width = 12;
  c.readout_width = 10;
  c.encoder = nm::Encoder::kLinear;
  const nm::ParameterCount n = nm::ParameterLayout(c).count();
  BOOST_TEST(n.encoder == 8 * 3 + 8 + 8);            // W_e, b_e, readout token
  BOOST_TEST(n.attention == 2 * (3 * 64 + 64 + 8));  // q, k, v, o, o_bias per layer
  BOOST_TEST(n.ffn == 2 * (12 * 8 + 12 + 8 * 12 + 8));
  BOOST_TEST(n.readout == 10 * 8 + 10 + 10 + 1);
  BOOST_TEST(n.total == 1093);
  BOOST_TEST(n.theory() == 40 + 424 + 101);
  c.positional = nm::PositionalEncoding::kLearned;
  c.pre_layer_norm = true;
  const nm::ParameterCount m = nm::ParameterLayout(c).count();
  BOOST_TEST(m.encoder == n.encoder + 8 * 5);
  BOOST_TEST(m.norm == 2 * 4 * 8 + 2 * 8);  // ln1, ln2 per layer, the final one
}

BOOST_AUTO_TEST_CASE(the_mlp_encoder_counts_in_m) {
  nm::ModelConfig c;
  c.tokens = 5;
  c.token_dim = 3;
  c.embedding = 8;
  c.heads = {2, 4};
  c.ffn_width = 12;
  c.readout_width = 10;
  BOOST_TEST_REQUIRE((c.encoder == nm::Encoder::kMlp));  // the papers' class is the default
  // Hidden width 12 (the FFN's): W1 12 x 3, b1, W2 8 x 12, b2, and the readout token.
  const nm::ParameterCount n = nm::ParameterLayout(c).count();
  BOOST_TEST(n.encoder == 12 * 3 + 12 + 8 * 12 + 8 + 8);
  BOOST_TEST(n.theory() == n.encoder + 424 + 101);
  // Its own width, and a learned position p(t) (8 x 5) fed through U (5 x 8).
  c.encoder_width = 5;
  c.positional = nm::PositionalEncoding::kLearned;
  const nm::ParameterCount m = nm::ParameterLayout(c).count();
  BOOST_TEST(m.encoder == 5 * 3 + 5 * 8 + 5 + 8 * 5 + 8 + 8 * 5 + 8);
  BOOST_TEST(m.theory() == m.encoder + 424 + 101);
  // Sinusoidal positions are fixed: U alone is trained.
  c.positional = nm::PositionalEncoding::kSinusoidal;
  BOOST_TEST(nm::ParameterLayout(c).count().encoder == m.encoder - 8 * 5);
}

BOOST_AUTO_TEST_CASE(random_streams_are_fixed_and_normal_deviates_standard) {
  // xoshiro256** seeded by splitmix64 from 0: the first output, computed by hand from the
  // reference algorithms, pins the engine across compilers.
  nm::Rng rng(0);
  BOOST_TEST(rng.next() == 0x99EC5F36CB75F2B4ULL);
  nm::Rng normals(123);
  double sum = 0;
  double sum2 = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const double z = normals.normal();
    sum += z;
    sum2 += z * z;
  }
  BOOST_TEST(std::abs(sum / n) < 0.01);
  BOOST_TEST(std::abs(sum2 / n - 1.0) < 0.01);
  BOOST_TEST(nm::derive_seed(1, {2, 3}) != nm::derive_seed(1, {3, 2}));
}

BOOST_AUTO_TEST_SUITE_END()
