// The model against PyTorch: tests/data/torch_reference.json was written offline by
// bench/make_reference_fixture.py (float64, every position of every layer computed; the
// readout token never a key; a linear and an MLP encoder).
#include <cmath>
#include <fstream>
#include <string>

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include "infoflow/numeric/optimizer.hpp"
#include "infoflow/numeric/transformer.hpp"

namespace nm = infoflow::numeric;
using nlohmann::json;

namespace {

const json& fixture() {
  static const json j = [] {
    std::ifstream in(std::string(INFOFLOW_TEST_DATA_DIR) + "/torch_reference.json");
    return json::parse(in);
  }();
  return j;
}

nm::ModelConfig config_of(const json& c) {
  nm::ModelConfig m;
  m.tokens = c["T"];
  m.token_dim = c["d"];
  m.embedding = c["E"];
  m.heads = c["heads"].get<std::vector<nm::Index>>();
  m.head_dim = c["head_dim"];
  m.ffn_width = c["W"];
  m.readout_width = c["R"];
  m.encoder = nm::parse_encoder(c["encoder"].get<std::string>());
  m.encoder_width = c["encoder_width"];
  m.activation = nm::parse_activation(c["activation"].get<std::string>());
  m.positional = nm::parse_positional_encoding(c["positional"].get<std::string>());
  m.pre_layer_norm = c["pre_ln"];
  m.attention_scale = c["scale"];
  return m;
}

/// Copies stored tensors (row-major) into a buffer of the model's layout; checks every tensor
/// of the layout is there with its shape.
void load(const nm::Transformer<double>& model, const json& tensors, double* buffer) {
  BOOST_TEST_REQUIRE(tensors.size() == model.layout().tensors().size());
  for (const nm::TensorInfo& t : model.layout().tensors()) {
    BOOST_TEST_REQUIRE(tensors.contains(t.name), "missing " << t.name);
    const json& stored = tensors[t.name];
    BOOST_TEST_REQUIRE(stored["shape"][0].get<nm::Index>() == t.rows, t.name);
    BOOST_TEST_REQUIRE(stored["shape"][1].get<nm::Index>() == t.cols, t.name);
    nm::MatrixMap<double> m = model.tensor_in(buffer, t);
    for (nm::Index r = 0; r < t.rows; ++r) {
      for (nm::Index c = 0; c < t.cols; ++c)
        m(r, c) = stored["data"][static_cast<std::size_t>(r * t.cols + c)];
    }
  }
}

/// Relative error of a buffer's tensor against the stored one, in the Euclidean norm.
double relative_error(const nm::Transformer<double>& model, const nm::TensorInfo& t,
                      const double* ours, const json& stored) {
  double diff2 = 0;
  double ref2 = 0;
  for (nm::Index r = 0; r < t.rows; ++r) {
    for (nm::Index c = 0; c < t.cols; ++c) {
      const double ref = stored["data"][static_cast<std::size_t>(r * t.cols + c)];
      const double mine = model.tensor_in(const_cast<double*>(ours), t)(r, c);
      diff2 += (mine - ref) * (mine - ref);
      ref2 += ref * ref;
    }
  }
  return std::sqrt(diff2) / std::max(std::sqrt(ref2), 1e-300);
}

struct Replay {
  nm::Transformer<double> model;
  std::vector<double> inputs;  // d x (B*T), column per token
  std::vector<double> targets;
  explicit Replay(const json& c) : model(config_of(c["config"])) {
    load(model, c["parameters"], model.parameters().data());
    // Stored (B, T, d) row-major is exactly our column-per-token layout.
    inputs = c["inputs"].get<std::vector<double>>();
    targets = c["targets"].get<std::vector<double>>();
  }
  nm::Index batch() const { return static_cast<nm::Index>(targets.size()); }
  /// MSE loss and its gradient (accumulated into `gradient`).
  double loss_and_gradient(nm::Workspace<double>& ws, double* gradient, std::vector<double>& pred) {
    ws.forward(model, inputs.data(), batch(), pred.data());
    std::vector<double> dpred(pred.size());
    double loss = 0;
    for (std::size_t b = 0; b < pred.size(); ++b) {
      loss += (pred[b] - targets[b]) * (pred[b] - targets[b]) / static_cast<double>(batch());
      dpred[b] = 2 * (pred[b] - targets[b]) / static_cast<double>(batch());
    }
    ws.backward(model, dpred.data(), gradient);
    return loss;
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(reference)

BOOST_DATA_TEST_CASE(forward_and_every_gradient_match_pytorch, boost::unit_test::data::xrange(3),
                     index) {
  const json& c = fixture()["cases"][static_cast<std::size_t>(index)];
  BOOST_TEST_MESSAGE("case " << c["config"]["name"].get<std::string>());
  Replay replay(c);
  nm::Workspace<double> ws(replay.model.config(), replay.batch());
  std::vector<double> pred(static_cast<std::size_t>(replay.batch()));
  std::vector<double> grad(replay.model.parameters().size(), 0.0);
  const double loss = replay.loss_and_gradient(ws, grad.data(), pred);
  for (std::size_t b = 0; b < pred.size(); ++b) {
    BOOST_TEST(pred[b] == c["predictions"][b].get<double>(), boost::test_tools::tolerance(1e-10));
  }
  BOOST_TEST(loss == c["loss"].get<double>(), boost::test_tools::tolerance(1e-10));
  for (const nm::TensorInfo& t : replay.model.layout().tensors()) {
    BOOST_TEST_INFO("gradient of " << t.name);
    BOOST_TEST(relative_error(replay.model, t, grad.data(), c["gradients"][t.name]) < 1e-9);
  }
}

BOOST_DATA_TEST_CASE(five_adamw_steps_follow_pytorch, boost::unit_test::data::xrange(3), index) {
  const json& c = fixture()["cases"][static_cast<std::size_t>(index)];
  const json& a = c["adamw"];
  Replay replay(c);
  nm::Workspace<double> ws(replay.model.config(), replay.batch());
  nm::AdamW<double> adam(replay.model.layout(),
                         {a["lr"], a["beta1"], a["beta2"], a["eps"], a["weight_decay"]});
  const nm::Index steps = a["steps"];
  const nm::Schedule schedule{a["lr"], a["warmup"], steps, a["min_ratio"]};
  std::vector<double> pred(static_cast<std::size_t>(replay.batch()));
  std::vector<double> grad(replay.model.parameters().size());
  for (nm::Index s = 0; s < steps; ++s) {
    std::fill(grad.begin(), grad.end(), 0.0);
    const double loss = replay.loss_and_gradient(ws, grad.data(), pred);
    BOOST_TEST(loss == a["losses"][static_cast<std::size_t>(s)].get<double>(),
               boost::test_tools::tolerance(1e-10));
    nm::clip_gradient_norm(grad.data(), static_cast<nm::Index>(grad.size()),
                           a["clip"].get<double>());
    adam.step(replay.model.parameters().data(), grad.data(), schedule.at(s));
  }
  for (const nm::TensorInfo& t : replay.model.layout().tensors()) {
    BOOST_TEST_INFO("parameter " << t.name << " after " << steps << " steps");
    BOOST_TEST(relative_error(replay.model, t, replay.model.parameters().data(),
                              a["final_parameters"][t.name]) < 1e-10);
  }
}

BOOST_AUTO_TEST_SUITE_END()
