// Masks (docs/constructions.md, "Masks"), for the passes "attention" and "FFN": a quantity's
// index constraints on the candidates (s < t, s != t) by one-hot positions or, without
// positions, by content; and the chains of k-th largest, each step's candidates those below
// the step before, by a flag the FFN computes or by hats of the held score.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "passes.hpp"

namespace infoflow::construct::detail {

using theorems::PlanStep;
using theorems::Quantity;

namespace {

/// T coordinates holding the input token's position one-hot: what a mask's query and key read.
const std::vector<long>& one_hot_positions(Lowering& st, const std::string& step) {
  if (!st.one_hot_code.empty()) return st.one_hot_code;
  if (st.network->free() < st.tokens) {
    throw Failure(Shortfall::kEmbedding, step,
                  fmt::format("{}: a mask reads the positions one-hot, T = {} "
                              "coordinates of the stream, and {} are free (E >= {})",
                              step, st.tokens, st.network->free(),
                              st.plan.architecture.embedding + st.tokens - st.network->free()));
  }
  for (long p = 1; p <= st.tokens; ++p) {
    st.one_hot_code.push_back(st.network->allocate("the position, one-hot", step));
    st.network->mark_position(st.one_hot_code.back(), p);
  }
  return st.one_hot_code;
}

/// s != t without positions: one key dimension per content feature, the holder's query the
/// penalty times its own features. The candidate s = t loses at least half the penalty; a
/// candidate loses part of it only where its projection lies within two centres of the
/// holder's, the construction's error (the finer the grid, the rarer: --mask-features).
void content_mask(Lowering& st, Role& role, const std::string& step) {
  for (const std::string& key : st.content_keys) {
    const Form feature = st.network->unit(st.features.at(key));
    role.query.push_back(-Network::kPenalty * feature);
    role.key.push_back(feature);
  }
  st.described.push_back(fmt::format(
      "{}: the mask s != t by content: {} hat functions of u.x "
      "(centres {:.3g} to {:.3g}), a key dimension each",
      step, st.content_keys.size(), st.content_centres.front(), st.content_centres.back()));
}

}  // namespace

/// The quantity's index constraints as a mask: the candidate s is out where (s, t) breaks one,
/// t the holder's token. Query and key read the one-hot positions: T key dimensions, query
/// row s = -penalty [(s, t) masked] as a linear form of t's one-hot code. Without positions,
/// s != t by content.
void mask(Lowering& st, int id, const Quantity& q, Role& role, const std::string& step) {
  if (!st.plan.architecture.encodes_positions()) {
    content_mask(st, role, step);
    return;
  }
  const std::vector<long>& code = one_hot_positions(st, step);
  std::vector<bool> has_candidates(static_cast<std::size_t>(st.tokens + 1), false);
  const double scale = Network::kPenalty;  // set_head scales queries by beta
  for (long candidate = 1; candidate <= st.tokens; ++candidate) {
    Form query = st.network->zero();
    for (long holder = 1; holder <= st.tokens; ++holder) {
      bool out = false;
      for (const targets::IndexConstraint& c : q.form.constraints) {
        const long left = c.left == q.form.index ? candidate : holder;
        const long right = c.left == q.form.index ? holder : candidate;
        out = out || (c.strict_order ? left >= right : left == right);
      }
      if (out) {
        query(code[static_cast<std::size_t>(holder - 1)]) = -scale;
      } else {
        has_candidates[static_cast<std::size_t>(holder)] = true;
      }
    }
    role.query.push_back(query);
    role.key.push_back(st.network->unit(code[static_cast<std::size_t>(candidate - 1)]));
  }
  // A holder with no candidate (t = 1 under s < t) has no value: a step that ranks the
  // holders by it must leave that token out.
  for (long holder = 1; holder <= st.tokens; ++holder) {
    if (!has_candidates[static_cast<std::size_t>(holder)]) st.undefined_at[id].push_back(holder);
  }
}

/// Step j of a k-th largest takes the candidates below step j - 1's score. At the readout,
/// the head of step j - 1 acts alike at the input tokens, so that each holds that score (a
/// chain at the input tokens holds it already); the FFN after
/// the layer flags the tokens at or above it (a clamp of the difference, exact outside a band
/// below it of kClampBand times the difference's range); step j's score takes the penalty on
/// the flag.
void rank_mask(Lowering& st, const PlanStep& s, Class at, const Role& role, Role& twin) {
  const int id = st.by_name.at(s.quantity);
  const std::string step = st.label(s);
  const int next = st.chained.at(id);
  const auto held = st.own_score.find(id);
  if (held == st.own_score.end()) {
    throw Failure(Shortfall::kConstructor, step,
                  step + ": the step fetches no score of its own to compare with");
  }
  // Chains are of maxima (R2): the flag compares signed scores with the unsigned one held.
  if (st.quantity(s).form.minimum) {
    throw Failure(Shortfall::kConstructor, step, step + ": a chain of minima");
  }
  // A step masked by content excludes the token at the step before's score only; the next
  // would have to exclude both.
  if (st.threshold_masks.count(id) != 0) {
    throw Failure(Shortfall::kConstructor, step,
                  step + ": a chain's third step after a mask by content (the constructor's "
                         "content mask excludes one earlier step's token)");
  }
  if (!role.query.empty()) {
    throw Failure(Shortfall::kConstructor, step,
                  step +
                      ": the chain's score reads the holder, so the "
                      "threshold differs from token to token");
  }
  // A chain at the input tokens (a global k-th largest each token computes) holds the step's
  // score there already; one at the readout has the head act alike at the input tokens.
  if (at == Class::kReadout) {
    if (twin.used) {
      // The head is taken at the input tokens: the readout compares by content instead.
      st.thresholds.push_back(Threshold{id, next, held->second, st.candidate_score.at(id), step});
      return;
    }
    twin.used = true;
    twin.score = role.score;
  }
  const long flag =
      st.network->allocate(fmt::format("1 at the tokens at or above {}'s score (the mask of {})",
                                       st.name(id), st.name(next)),
                           step);
  st.layer.clamps.push_back(
      Clamp{st.candidate_score.at(id) - st.network->unit(held->second), flag});
  st.rank_masks[next] = flag;
  st.described.push_back(fmt::format(
      "{}: {}the FFN after the layer flags the tokens at or above "
      "its score",
      step, at == Class::kReadout ? "the same retrieval at every input token, and " : ""));
}

/// A readout chain's step whose head the input tokens use for another step: the next step's
/// candidates are masked by content against the score the readout holds. The FFN after the
/// layer computes m hats of that score at the readout and the same hats of each input token's
/// own score, into the same m coordinates (each class its own); the next step's query is
/// -penalty times the readout's hats, its key the candidate's. The hats are centred at
/// quantiles of the held score (the largest's distribution, where the comparison is made),
/// the last flat above. The step's own token (score equal to the held one) is out; so is a
/// runner-up within two centres of it, the construction's error (--mask-features).
std::vector<Job> threshold_jobs(Lowering& st, long layer) {
  std::vector<Job> jobs;
  if (st.thresholds.empty()) return jobs;
  const Eigen::MatrixXd states = calibration_states(st, layer);
  for (const Threshold& t : st.thresholds) {
    std::vector<double> held;
    for (long c = 0; c < states.cols(); ++c) {
      if (column_at(st, layer, c, Class::kReadout)) held.push_back(states(t.held, c));
    }
    // The candidate's score as a ridge of the coordinates it reads.
    std::vector<long> inputs;
    std::vector<double> weights;
    for (long c = 0; c < t.candidate.size(); ++c) {
      if (t.candidate(c) == 0) continue;
      inputs.push_back(c);
      weights.push_back(t.candidate(c));
    }
    const Eigen::VectorXd direction =
        Eigen::Map<const Eigen::VectorXd>(weights.data(), static_cast<long>(weights.size()));
    // No candidate's score is above the held one, the largest: the first hat need not be flat.
    const Hats hats = hats_at_quantiles(held, st.options.mask_features, false, direction);
    if (hats.centres.empty()) {
      throw Failure(Shortfall::kConstructor, t.step,
                    t.step + ": the held score takes one value: no content tells its token "
                             "from the others");
    }
    std::vector<long>& mask = st.threshold_masks[t.next];
    const auto count = static_cast<long>(hats.ridges.size());
    for (long i = 0; i < count; ++i) {
      const Ridge& at_inputs = hats.ridges[static_cast<std::size_t>(i)];
      const Ridge at_readout{Eigen::VectorXd::Ones(1), at_inputs.shape, at_inputs.kinks};
      const long into =
          st.network->allocate(fmt::format("hat {} of {} of {}'s score (the mask of {})", i + 1,
                                           count, st.name(t.id), st.name(t.next)),
                               t.step);
      mask.push_back(into);
      const auto known = [](const Ridge& r) {
        RidgeSum sum;
        sum.linear = Eigen::VectorXd::Zero(r.direction.size());
        sum.ridges.push_back(r);
        return sum;
      };
      jobs.push_back(Job{Class::kReadout, {t.held},
                         [at_readout](const Eigen::VectorXd& z) { return at_readout.shape(z(0)); },
                         into, "a hat of the held score", nullptr, known(at_readout)});
      jobs.push_back(Job{Class::kInputs, inputs,
                         [at_inputs](const Eigen::VectorXd& z) {
                           return at_inputs.shape(at_inputs.direction.dot(z));
                         },
                         into, "a hat of the candidate's score", nullptr, known(at_inputs)});
    }
    st.described.push_back(
        fmt::format("{}: the FFN after the layer computes {} hats of the held "
                    "score at the readout and of each input token's own, the "
                    "mask of {} by content",
                    t.step, count, st.name(t.next)));
  }
  st.thresholds.clear();
  return jobs;
}

}  // namespace infoflow::construct::detail
