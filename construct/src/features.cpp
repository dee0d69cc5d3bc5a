// Token-wise features (docs/constructions.md, "Heads"): the pieces of a score that are affine in
// the token's x go into a key as they are; the others, and the content features a mask without
// positions reads, are computed into coordinates of their own by the FFN of the layer before a
// step, or by the MLP encoder for layer 1's: the pass "encoder" (registry.cpp).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "infoflow/core/progress.hpp"
#include "infoflow/core/random.hpp"
#include "infoflow/numeric/tasks.hpp"

#include "passes.hpp"

namespace infoflow::construct::detail {

bool affine_in_x(Lowering& st, const TokenFunction& piece) {
  const auto known = st.affine.find(piece.key);
  if (known != st.affine.end()) return known->second.has_value();
  std::string why;
  std::optional<detail::RidgeSum> r =
      detail::decompose([&](const Eigen::VectorXd& x) { return piece.f(x); },
                        Eigen::VectorXd::Ones(st.d), derive_seed(st.options.seed, {31}), why);
  std::optional<std::pair<Eigen::VectorXd, double>> affine;
  if (r && r->ridges.empty()) affine.emplace(r->linear, r->constant);
  st.affine.emplace(piece.key, affine);
  return affine.has_value();
}

/// Feature `key` computed by the FFN after `ffn_layer` at the latest (the earliest layer that
/// reads it asks first).
void compute_by(Lowering& st, const std::string& key, long ffn_layer) {
  auto [it, fresh] = st.feature_layer.emplace(key, ffn_layer);
  if (!fresh) it->second = std::min(it->second, ffn_layer);
}

/// A feature of the candidate's own x that the FFN after `ffn_layer` computes (0: the encoder,
/// for layer 1's steps).
void request_feature(Lowering& st, const TokenFunction& piece, long ffn_layer) {
  compute_by(st, piece.key, ffn_layer);
  st.feature_functions.emplace(piece.key, piece.f);
}

/// The content features a mask without positions reads (THEORY.md section 4: a token tells
/// itself from the others by content): m = --mask-features hat functions of one projection
/// z = u . x of the token, centred at quantiles of z (1 % to 99 %), the outer two flat beyond.
/// They sum to 1, so a token's features have a product of at least 1/2 with themselves, and 0
/// with a token whose z lies two centres away or more. Computed exactly (their kinks are
/// known) by the FFN after `ffn_layer` (0: the encoder) at every input token.
void request_content_features(Lowering& st, long ffn_layer) {
  if (st.content_keys.empty()) {
    Rng rng(derive_seed(st.options.seed, {61}));
    Eigen::VectorXd u(st.d);
    for (long i = 0; i < st.d; ++i) u(i) = rng.normal();
    u.normalize();
    constexpr long kSequences = 512;
    Eigen::MatrixXd x(st.d, kSequences * st.tokens);
    Eigen::VectorXd y(kSequences);
    numeric::draw_samples(*st.task, derive_seed(st.options.seed, {67}), 0, kSequences, x, y);
    const Eigen::VectorXd z = x.transpose() * u;
    const Hats hats =
        hats_at_quantiles(std::vector<double>(z.begin(), z.end()), st.options.mask_features, true, u);
    if (hats.centres.empty()) {
      throw Failure(Shortfall::kConstructor, "",
                    "a mask without positions tells tokens apart by content, "
                    "and the tokens' projection takes one value");
    }
    st.content_centres = hats.centres;
    const auto count = static_cast<long>(hats.ridges.size());
    // Numbered to sort in order among the feature keys (a std::map's).
    const int digits = static_cast<int>(std::to_string(count).size());
    for (long i = 0; i < count; ++i) {
      const Ridge& ridge = hats.ridges[static_cast<std::size_t>(i)];
      const std::string key =
          fmt::format("content feature {:0{}} of {} (a hat of u.x)", i + 1, digits, count);
      detail::RidgeSum known;
      known.linear = Eigen::VectorXd::Zero(st.d);
      known.ridges.push_back(ridge);
      st.feature_known.emplace(key, known);
      st.feature_functions.emplace(key, [ridge](const Eigen::VectorXd& token) {
        return ridge.shape(ridge.direction.dot(token));
      });
      st.content_keys.push_back(key);
    }
  }
  for (const std::string& key : st.content_keys) compute_by(st, key, ffn_layer);
}

/// The features the next layers' scores and means read, computed at the input tokens by the
/// FFN after layer `level` (0: the encoder), each into a coordinate of its own.
std::vector<Job> feature_jobs(Lowering& st, long level) {
  std::vector<Job> jobs;
  const std::string where = level == 0 ? "encoder" : fmt::format("FFN {}", level);
  long content = 0;  // described as one line: there are --mask-features of them
  for (const auto& [key, layer] : st.feature_layer) {
    if (layer != level) continue;
    std::vector<long> inputs;
    for (long j = 0; j < st.d; ++j) inputs.push_back(Network::kToken + j);
    // `name`: Clang 14 cannot capture a structured binding (scripts/fuzz.sh builds with it).
    const auto known = st.feature_known.find(key);
    // The content features hold one thing together, one range of the printed layout.
    const std::string what = known == st.feature_known.end()
                                 ? "feature " + key
                                 : "the content features of the mask s != t (hats of u.x)";
    jobs.push_back(Job{Class::kInputs, inputs, st.feature_functions.at(key), -1, what,
                       [state = &st, name = key](long into) { state->features[name] = into; },
                       known == st.feature_known.end()
                           ? std::nullopt
                           : std::optional<detail::RidgeSum>(known->second)});
    if (known != st.feature_known.end()) {
      ++content;
      continue;
    }
    st.described.push_back(fmt::format("{}: computes {} at every input token", where, key));
  }
  if (content > 0) {
    st.described.push_back(fmt::format("{}: computes the {} content features of the mask s != t "
                                       "at every input token (hats of u.x, exactly)",
                                       where, content));
  }
  return jobs;
}

Form token_function_form(Lowering& st, const TokenFunction& piece) {
  Form f = st.network->zero();
  const auto& affine = st.affine.at(piece.key);
  if (affine) {
    for (long j = 0; j < st.d; ++j) f(Network::kToken + j) += affine->first(j);
    f(Network::kInputFlag) += affine->second;
  } else {
    f(st.features.at(piece.key)) += 1;
  }
  return f;
}

Form candidate_form(Lowering& st, const Score& score, const std::string& step) {
  Form f = st.network->zero();
  for (const TokenFunction& piece : score.candidate) f += token_function_form(st, piece);
  for (const auto& [id, c] : score.candidate_messages) {
    const auto made = st.made_in.find(id);
    if (made != st.made_in.end() && made->second >= st.current_layer) {
      throw Failure(Shortfall::kEngine, step,
                    fmt::format("{}: its score reads {} at the candidates, which "
                                "layer {} makes, not an earlier one",
                                step, st.name(id), made->second));
    }
    f += c * st.held(Class::kInputs, id, step);
  }
  return f;
}

void encoder(Lowering& st) {
  core::progress::set("building the network");
  ffn(st, Network::kEncoder, feature_jobs(st, 0), {}, false);
}

}  // namespace infoflow::construct::detail
