// The lowering of an engine plan into weights (docs/constructions.md): each step of the plan a
// head's role at one token class, each value a linear form over the residual stream, each
// nonlinear function of held values a job of the FFN after the layer (or of the readout MLP).
#include "infoflow/construct/construction.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include <Eigen/SVD>
#include <fmt/format.h>

#include "infoflow/core/error.hpp"
#include "infoflow/core/progress.hpp"
#include "infoflow/core/random.hpp"
#include "infoflow/numeric/tasks.hpp"
#include "infoflow/numeric/transformer.hpp"
#include "infoflow/targets/node_algebra.hpp"

#include "network.hpp"
#include "ridge.hpp"
#include "terms.hpp"

namespace infoflow::construct {

void ConstructOptions::validate() const {
  if (!(beta > 0) || !std::isfinite(beta)) throw InputError("--beta must be a positive number");
  if (ffn_width < 4 || ffn_width > 1 << 20)
    throw InputError("--ffn-width must be between 4 and 1048576");
  if (encoder_width != 0 && (encoder_width < 4 || encoder_width > 1 << 20))
    throw InputError("--encoder-width must be 0 (the FFN width) or between 4 and 1048576");
  if (readout_width != 0 && (readout_width < 4 || readout_width > 1 << 20))
    throw InputError("--readout-width must be 0 (the FFN width) or between 4 and 1048576");
  if (mask_features < 2 || mask_features > 4096)
    throw InputError("--mask-features must be between 2 and 4096");
  if (samples < 16 || samples > 1 << 22) throw InputError("--samples must be between 16 and 4194304");
  if (calibration < 16 || calibration > 1 << 20)
    throw InputError("the calibration sequences must be between 16 and 1048576");
}

namespace {

using detail::Class;
using detail::Failure;
using detail::Form;
using detail::Network;
using detail::Role;
using targets::Node;
using theorems::FormTerm;
using theorems::Mode;
using theorems::PlanStep;
using theorems::Quantity;
using theorems::Value;
using K = Node::Kind;
/// Each token read by position (x[3], x[T]) -> its position.
using Positions = std::map<Node, long, targets::ExpressionOrder>;

/// Grid knots below which an interpolated function is too coarse to be a construction.
constexpr long kFewestKnots = 3;
/// Sequences one forward pass takes.
constexpr long kBatch = 128;

std::string class_name(Class c) { return c == Class::kInputs ? "input tokens" : "readout"; }

/// A function the FFN after a layer computes at one token class and adds to one coordinate.
struct Job {
  Class at = Class::kInputs;
  std::vector<long> inputs;  ///< the coordinates it reads
  detail::Function f;        ///< of their values, in that order
  long into = 0;  ///< -1: a coordinate given out once the FFN has freed what it erases
  std::string what;
  std::function<void(long)> placed;  ///< told the coordinate given out
  /// f as a ridge sum known in advance (a feature the constructor designed): no decomposition.
  std::optional<detail::RidgeSum> known;
};

/// A step function the FFN after a layer computes at the input tokens: 0 where u <= -delta, 1
/// where u >= 0, into one coordinate.
struct Clamp {
  Form u;
  long into = 0;
};
/// A clamp's band, a fraction of the largest |u| met in calibration: the step to flag the tokens
/// tied with the one above within this fraction, which a k-th largest then skips (an error
/// whose probability is about proportional to the band).
constexpr double kClampBand = 1e-6;

/// A piece of a score or of a value: a function of one token's x, times a number.
struct TokenFunction {
  std::function<double(const Eigen::VectorXd&)> f;
  std::string key;  ///< what it is, so that two steps share one computed feature
};

/// A score's terms split by where they are read (the candidate, the holder, both).
struct Score {
  std::vector<TokenFunction> candidate;  ///< of x at the candidate
  std::vector<std::pair<int, double>> candidate_messages;  ///< (quantity, coefficient)
  Eigen::MatrixXd cross;                 ///< x_holder' B x_candidate; empty if none
  std::vector<TokenFunction> holder;     ///< of x at the holder
  std::vector<std::pair<int, double>> holder_messages;  ///< at the holder, or global
  /// The holder's x is the tokens it fetched by position (P's mean), not its own token.
  bool holder_positions = false;
  bool holder_token = false;  ///< a term reads the holder's own token
};

/// A cross part x_holder' B x_candidate written as x_holder' P V' x_candidate, with r columns
/// each: V' x_candidate is what a key (and a fetched value) holds, P' x_holder the query. A B of
/// full rank keeps the token's own coordinates (P = B, V = I); a rank-deficient one (a product
/// of two linear forms: rank 1) takes its r singular directions, so that a head spends r key
/// dimensions on it instead of d.
struct CrossFactors {
  Eigen::MatrixXd holder;     ///< P, d x r
  Eigen::MatrixXd candidate;  ///< V, d x r
};

CrossFactors factor_cross(const Eigen::MatrixXd& b) {
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(b, Eigen::ComputeFullU | Eigen::ComputeFullV);
  const Eigen::VectorXd& sigma = svd.singularValues();
  const double largest = sigma.size() > 0 ? sigma(0) : 0;
  long rank = 0;
  while (rank < sigma.size() && sigma(rank) > 1e-9 * largest) ++rank;
  if (rank == b.cols()) return {b, Eigen::MatrixXd::Identity(b.cols(), b.cols())};
  return {svd.matrixU().leftCols(rank) * sigma.head(rank).asDiagonal(), svd.matrixV().leftCols(rank)};
}

class Lowering {
 public:
  Lowering(const targets::TargetSpec& spec, const theorems::Plan& plan,
           const ConstructOptions& options)
      : spec_(spec), plan_(plan), program_(*plan.program), options_(options) {}

  Construction run() {
    Construction out;
    out.config = asked_config();  // a refusal names the architecture asked for, too
    const auto start = std::chrono::steady_clock::now();
    out.plan_text = fmt::format("{}: {}", plan_.architecture.text(), theorems::to_text(plan_.verdict));
    try {
      core::progress::set("reading the plan");
      prepare();
      core::progress::set("building the network");
      build();
      core::progress::set(
          fmt::format("measuring the NMSE on {} fresh sequences", options_.samples));
      measure(out);
      out.built = true;
    } catch (const Failure& f) {
      out.failure = f.what();
      out.failed_in = f.failed_in;
      out.head_dim_needed = f.head_dim_needed;
    }
    if (network_) {
      out.config = network_->config();
      out.parameters.assign(network_->model().parameters().begin(), network_->model().parameters().end());
      out.counts = network_->model().layout().count();
      out.layout = network_->layout();
    }
    out.knots = fewest_knots_;
    out.ffn_units = widest_units_;
    out.steps = described_;
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
  }

 private:
  // ------------------------------------------------------------------ set-up and analysis

  /// The network the plan asks for: the plan's heads, E and n, the target's T and d, the widths.
  [[nodiscard]] numeric::ModelConfig asked_config() const {
    numeric::ModelConfig config;
    core::Architecture& shape = config;
    shape = plan_.architecture;
    const auto tokens = spec_.set.find("T");
    config.tokens = tokens == spec_.set.end() ? core::defaults::kTokens : tokens->second;
    config.token_dim = spec_.token_dim;
    config.ffn_width = options_.ffn_width;
    config.readout_width = options_.readout_width > 0 ? options_.readout_width : options_.ffn_width;
    config.activation = numeric::Activation::kRelu;
    // The linear encoder, a special case of the class: x and the flags are written into the
    // stream as they are, and the plans compute what they need after it (prepare() asks for the
    // MLP encoder where layer 1 reads a nonlinear token-wise feature).
    config.encoder = numeric::Encoder::kLinear;
    // Learned positions: the constructor writes indicators and one-hot codes into the table.
    config.positional = core::encoding_for(plan_.architecture.encodes_positions());
    config.attention_scale = 1;  // beta is in the queries
    return config;
  }

  void prepare() {
    if (plan_.verdict != theorems::Verdict::kEfficient) {
      throw Failure("plan", fmt::format("the engine's plan on {} is not efficient ({}{}): "
                                        "nothing to construct",
                                        plan_.architecture.heads_text(),
                                        theorems::to_text(plan_.verdict),
                                        plan_.reason.empty() ? "" : ": " + plan_.reason));
    }
    if (!program_.constants.empty() && program_.quantities.empty()) {
      throw Failure("constructor", "the target is a constant (" + program_.constants.front() +
                                       "): no action to compile");
    }
    const numeric::ModelConfig asked = asked_config();
    tokens_ = asked.tokens;
    d_ = asked.token_dim;
    if (d_ + 2 > plan_.architecture.embedding) {
      throw Failure("embedding", fmt::format("the stream holds the token's d = {} coordinates and "
                                             "two flags: E = {} is too small (E >= {})",
                                             d_, plan_.architecture.embedding, d_ + 2));
    }
    evaluator_ = std::make_unique<targets::Evaluator>(spec_.formula, spec_.set, d_, options_.task_seed);
    task_ = numeric::make_formula_task(
        spec_.name, *evaluator_,
        numeric::InputDistribution{spec_.variance, spec_.min_norm, spec_.max_norm});
    for (std::size_t i = 0; i < program_.quantities.size(); ++i) {
      by_name_[program_.quantities[i].name] = static_cast<int>(i);
      if (program_.quantities[i].mode == Mode::kPositions) {
        for (const FormTerm& t : program_.quantities[i].form.terms)
          positions_[*t.node] = position_of(*t.node);
      }
    }
    // The output first: which values the readout needs, and the fetches its selections read.
    output_ = resolved(program_.root);
    note_selections(output_);
    for (const PlanStep& s : plan_.steps) analyse(s);
    // The MLP encoder where layer 1 reads a token-wise feature that is not linear in x (it
    // computes the feature, and passes x and the flags through); the linear encoder, a special
    // case of the class, otherwise.
    numeric::ModelConfig config = asked;
    const bool features_first = std::any_of(feature_layer_.begin(), feature_layer_.end(),
                                            [](const auto& f) { return f.second == 0; });
    if (features_first) {
      config.encoder = numeric::Encoder::kMlp;
      config.encoder_width = options_.encoder_width > 0 ? options_.encoder_width : options_.ffn_width;
    }
    network_ = std::make_unique<Network>(config, options_.beta);
  }

  /// The target's value as an expression in the quantities' values (Program::values).
  Value resolved(const Node& n) { return resolved(theorems::lifted(n)); }
  Value resolved(const Value& v) {  // NOLINT(misc-no-recursion)
    if (const auto* reduction = std::get_if<Value::Reduction>(&v.what)) {
      const Node& n = reduction->node;
      const auto value = program_.values.find(n);
      if (value == program_.values.end()) {
        if (const std::optional<Value> copies = unrolled(n)) return resolved(*copies);
        throw Failure("constructor", fmt::format("the engine's reading records no value for '{}' "
                                                 "(a rule the constructor has no compilation for)",
                                                 targets::to_text(n)));
      }
      return resolved(value->second);
    }
    Value out = v;
    for (Value& a : out.args) a = resolved(a);
    return out;
  }

  /// `v` with each reduction over ranges of its own unrolled, as far as they are.
  [[nodiscard]] Value ranges_unrolled(const Value& v) const {  // NOLINT(misc-no-recursion)
    if (const auto* reduction = std::get_if<Value::Reduction>(&v.what)) {
      if (const std::optional<Value> copies = unrolled(reduction->node, true))
        return ranges_unrolled(*copies);
      return v;
    }
    Value out = v;
    for (Value& a : out.args) a = ranges_unrolled(a);
    return out;
  }

  /// A sum over ranges of its own (sum(p = 1..T0) x[p], E0) as the sum of its copies; with
  /// `extrema`, a maximum or minimum as the Combined maximum or minimum of them.
  [[nodiscard]] std::optional<Value> unrolled(const Node& n, bool extrema = false) const {
    const bool extremum = n.op == targets::ReduceOp::kMax || n.op == targets::ReduceOp::kMin;
    if (!(n.op == targets::ReduceOp::kSum || (extrema && extremum)) || n.has_key() ||
        !n.constraints.empty())
      return std::nullopt;
    std::vector<targets::IndexRange> ranges;
    for (const targets::Binder& b : n.binders) {
      if (!b.has_range) return std::nullopt;
      auto bound = [&](const targets::Bound& x) -> std::optional<long> {
        if (x.name.empty()) return x.value;
        if (x.name == "T") return tokens_;
        const auto it = spec_.set.find(x.name);
        return it == spec_.set.end() ? std::nullopt : std::optional<long>(it->second);
      };
      const std::optional<long> low = bound(b.low);
      const std::optional<long> high = bound(b.high);
      if (!low || !high) return std::nullopt;
      ranges.push_back({b.name, *low, *high});
    }
    const std::vector<Node> copies = targets::copies_over(n.args[0], ranges);
    std::vector<Value> lifted;
    lifted.reserve(copies.size());
    for (const Node& c : copies) lifted.push_back(theorems::lifted(c));
    if (extremum) {
      if (lifted.empty()) return std::nullopt;
      return Value{Value::Combined{n.op}, std::move(lifted)};
    }
    return theorems::sum_of(std::move(lifted));  // an empty sum is the number 0
  }

  void note_selections(const Value& v) {  // NOLINT(misc-no-recursion)
    if (const auto* s = std::get_if<Value::Selected>(&v.what)) {
      selected_.insert(s->quantity);
      selections_[s->quantity] = &v;
      return;
    }
    if (const auto* h = std::get_if<Value::Held>(&v.what); h != nullptr && h->component < 0)
      needed_at_readout_.insert(h->quantity);
    for (const Value& a : v.args) note_selections(a);
  }

  [[nodiscard]] std::string label(const PlanStep& s) const {
    return fmt::format("layer {}, {} at the {} ({})", s.layer, theorems::heads_text(s),
                       s.where == theorems::TokenClass::kReadout ? "readout" : "input tokens",
                       s.quantity.empty() ? theorems::to_text(s.action) : s.quantity);
  }

  const Quantity& quantity(const PlanStep& s) const {
    return program_.quantities[static_cast<std::size_t>(by_name_.at(s.quantity))];
  }

  // ------------------------------------------------------------------ positions

  /// The 1-based position a token read by position names (x[3], x[T], x[T-1]).
  [[nodiscard]] long position_of(const Node& ref) const {
    long p = ref.position;
    if (p == 0) {
      const auto named = spec_.set.find(ref.position_name);
      if (ref.position_name != "T" && named == spec_.set.end()) {
        throw Failure("constructor", fmt::format("the position {} has no value (--set {}=...)",
                                                 targets::to_text(ref), ref.position_name));
      }
      p = ref.position_name == "T" ? tokens_ : named->second;
    }
    p += ref.offset;
    if (p < 1 || p > tokens_) {
      throw Failure("plan", fmt::format("{} is position {}, outside 1..T = 1..{}",
                                        targets::to_text(ref), p, tokens_));
    }
    return p;
  }

  /// One head's uniform mean over the positions P holds their tokens' sum only. An expression
  /// that reads them must read nothing else of them: probed with every positioned token drawn
  /// at random against all of them replaced by their mean (the other values held fixed).
  void require_through_sum(const Value& e, const std::string& step) const {
    std::set<long> distinct;
    for (const auto& [text, p] : positions_) distinct.insert(p);
    if (distinct.size() < 2) return;
    Rng rng(derive_seed(options_.seed, {53}));
    auto draw = [&](long n) {
      Eigen::VectorXd v(n);
      for (long i = 0; i < n; ++i) v(i) = rng.normal();
      return v;
    };
    for (int trial = 0; trial < 6; ++trial) {
      detail::TermInputs in;
      in.parameters = evaluator_.get();
      in.tokens_count = tokens_;
      std::vector<std::string> indices;
      detail::token_indices(e, indices);
      for (const std::string& i : indices) in.tokens[i] = draw(d_);
      // Each held value, selection and coordinate drawn once, on its first read.
      std::map<std::pair<int, int>, detail::TermValue> references;
      in.reference = [&](const Value::Held& h) {
        auto [it, fresh] = references.emplace(std::pair{h.quantity, h.component}, detail::TermValue{});
        if (fresh) {
          const auto vector = h.component < 0 ? components_[1].end()
                                              : components_[1].find({h.quantity, h.component});
          it->second.vector = vector != components_[1].end() && vector->second.size() > 1;
          it->second.v = it->second.vector ? draw(static_cast<long>(vector->second.size()))
                                           : Eigen::VectorXd();
          it->second.s = it->second.vector ? it->second.v(0) : rng.normal();
        }
        return it->second;
      };
      std::vector<std::pair<const Value*, double>> selections;
      in.selection = [&](const Value& n) {
        for (const auto& [seen, value] : selections) {
          if (theorems::same_value(*seen, n)) return value;
        }
        selections.emplace_back(&n, rng.normal());
        return selections.back().second;
      };
      std::map<long, double> coordinates;
      in.coordinate = [&](long unit) {
        auto [it, fresh] = coordinates.emplace(unit, 0.0);
        if (fresh) it->second = rng.normal();
        return it->second;
      };
      std::map<long, Eigen::VectorXd> at;
      Eigen::VectorXd mean = Eigen::VectorXd::Zero(d_);
      for (const long p : distinct) {
        at[p] = draw(d_);
        mean += at[p] / static_cast<double>(distinct.size());
      }
      for (const auto& [ref, p] : positions_) in.positioned[ref] = at[p];
      const double exact = detail::evaluate(e, in).s;
      for (const auto& [ref, p] : positions_) in.positioned[ref] = mean;
      const double through_mean = detail::evaluate(e, in).s;
      if (std::abs(exact - through_mean) > 1e-9 * (1 + std::abs(exact))) {
        throw Failure("constructor",
                      fmt::format("{}: {} reads the tokens at positions {{{}}} apart, and one "
                                  "head's mean over them holds their sum only (the constructor "
                                  "has no decoding of several positions from one embedding)",
                                  step, theorems::to_text(e), fmt::join(distinct, ", ")));
      }
    }
  }

  /// The stream coordinate that is 1 at the input positions `at` and 0 elsewhere.
  long indicator(const std::set<long>& at, const std::string& step) {
    const auto known = indicators_.find(at);
    if (known != indicators_.end()) return known->second;
    const long c = network_->allocate(fmt::format("1 at positions {{{}}}", fmt::join(at, ", ")), step);
    for (const long p : at) network_->mark_position(c, p);
    indicators_.emplace(at, c);
    return c;
  }

  /// T coordinates holding the input token's position one-hot: what a mask's query and key read.
  const std::vector<long>& one_hot(const std::string& step) {
    if (!one_hot_.empty()) return one_hot_;
    if (network_->free() < tokens_) {
      throw Failure("embedding", fmt::format("{}: a mask reads the positions one-hot, T = {} "
                                             "coordinates of the stream, and {} are free (E >= {})",
                                             step, tokens_, network_->free(),
                                             plan_.architecture.embedding + tokens_ - network_->free()));
    }
    for (long p = 1; p <= tokens_; ++p) {
      one_hot_.push_back(network_->allocate("the position, one-hot", step));
      network_->mark_position(one_hot_.back(), p);
    }
    return one_hot_;
  }

  /// A term holding a reduction held at a token: its value there is a message.
  void split_message(const FormTerm& t, const std::string& v, const std::string& u, Score& score,
                     const std::string& step) {
    const Value value = resolved(*t.node);
    double c = t.coefficient;
    const Value* ref = &value;
    if (value.is(K::kMul) && value.args[0].is(K::kNumber)) {
      c *= value.args[0].operation()->number;
      ref = &value.args[1];
    }
    const std::vector<std::string> free = targets::free_indices(*t.node, {.constraints = true});
    const auto* held = std::get_if<Value::Held>(&ref->what);
    if (held == nullptr || free.size() > 1) {
      throw Failure("constructor", fmt::format("{}: the term {} holds a reduction the "
                                               "constructor cannot read as one held value",
                                               step, targets::to_text(*t.node)));
    }
    FormTerm message;
    message.message = held->quantity;
    message.message_at = free.empty() ? "" : free.front();
    message.coefficient = c;
    split(message, v, u, score, step);
  }

  /// Splits a term read at `v` (the candidate) and `u` (the holder) into its parts.
  void split(const FormTerm& t, const std::string& v, const std::string& u, Score& score,
             const std::string& step) {
    if (t.message >= 0) {
      auto& into = t.message_at == v && !v.empty() ? score.candidate_messages : score.holder_messages;
      if (!t.message_at.empty() && t.message_at != v && t.message_at != u) {
        throw Failure("constructor", step + ": a message read at an index bound further out");
      }
      into.emplace_back(t.message, t.coefficient);
      return;
    }
    Value term = theorems::lifted(*t.node);
    if (contains_reduction(term)) {
      // Reductions over ranges of their own only (max(i = 1..2) dot(a[i], x[t])): a token-wise
      // term, their copies.
      if (Value flat = ranges_unrolled(term); !contains_reduction(flat)) {
        term = std::move(flat);
      } else {
        split_message(t, v, u, score, step);
        return;
      }
    }
    const std::string text = theorems::to_text(term);
    std::vector<std::string> indices;
    detail::token_indices(term, indices);
    for (const std::string& i : indices) {
      if (i != v && i != u) {
        throw Failure("constructor", fmt::format("{}: the term {} reads index {}, bound further out",
                                                 step, text, i));
      }
    }
    const bool reads_v = std::find(indices.begin(), indices.end(), v) != indices.end();
    const bool reads_own = !u.empty() && std::find(indices.begin(), indices.end(), u) != indices.end();
    // Tokens read by position are what the holder fetched by position: they take its x's place.
    const bool by_position = detail::reads_position(term);
    if (by_position) {
      if (reads_own) {
        throw Failure("constructor", fmt::format("{}: the term {} reads the holder's own token and "
                                                 "tokens by position, which one query does not "
                                                 "hold together",
                                                 step, text));
      }
      require_through_sum(term, step);
      score.holder_positions = true;
    }
    score.holder_token = score.holder_token || reads_own;
    const bool reads_u = reads_own || by_position;
    const double c = t.coefficient;
    const targets::Evaluator* parameters = evaluator_.get();
    const long count = tokens_;
    const long d = d_;
    const Positions positions = positions_;
    // f(x_u, x_v), either of them absent when the term does not read it.
    auto f = [term, c, parameters, count, v, u, d, by_position, positions](
                 const Eigen::VectorXd& xu, const Eigen::VectorXd& xv) {
      detail::TermInputs in;
      in.parameters = parameters;
      in.tokens_count = count;
      const Eigen::VectorXd holder = xu.size() == d ? xu : Eigen::VectorXd::Zero(d);
      if (by_position) {
        for (const auto& [ref, p] : positions) in.positioned[ref] = holder;
      } else if (!u.empty()) {
        in.tokens[u] = holder;
      }
      if (!v.empty()) in.tokens[v] = xv.size() == d ? xv : Eigen::VectorXd::Zero(d);
      return c * detail::evaluate(term, in).s;
    };
    const Eigen::VectorXd zero = Eigen::VectorXd::Zero(d);
    if (reads_v && !reads_u) {
      score.candidate.push_back({[f, zero](const Eigen::VectorXd& x) { return f(zero, x); },
                                 fmt::format("{}*{}@{}", c, text, v)});
      return;
    }
    if (!reads_v) {
      score.holder.push_back({[f, zero](const Eigen::VectorXd& x) { return f(x, zero); },
                              fmt::format("{}*{}@{}", c, text, u)});
      return;
    }
    // Both: f(u, v) = f(u, 0) + f(0, v) - f(0, 0) + cross(u, v), the cross part bilinear.
    const double f00 = f(zero, zero);
    score.candidate.push_back({[f, zero, f00](const Eigen::VectorXd& x) { return f(zero, x) - f00; },
                               fmt::format("{}*{}@{}|candidate", c, text, v)});
    score.holder.push_back({[f, zero](const Eigen::VectorXd& x) { return f(x, zero); },
                            fmt::format("{}*{}@{}|holder", c, text, u)});
    Eigen::MatrixXd b(d, d);
    for (long i = 0; i < d; ++i) {
      for (long j = 0; j < d; ++j) {
        Eigen::VectorXd ei = zero;
        Eigen::VectorXd ej = zero;
        ei(i) = 1;
        ej(j) = 1;
        b(i, j) = f(ei, ej) - f(ei, zero) - f(zero, ej) + f00;
      }
    }
    Rng rng(derive_seed(options_.seed, {17}));
    for (int trial = 0; trial < 8; ++trial) {
      Eigen::VectorXd xu(d);
      Eigen::VectorXd xv(d);
      for (long i = 0; i < d; ++i) {
        xu(i) = rng.normal();
        xv(i) = rng.normal();
      }
      const double cross = f(xu, xv) - f(xu, zero) - f(zero, xv) + f00;
      if (std::abs(cross - xu.dot(b * xv)) > 1e-7 * (1 + std::abs(cross))) {
        throw Failure("constructor",
                      fmt::format("{}: the term {} couples {} and {} beyond a bilinear form, which "
                                  "a query-key product is not",
                                  step, text, u, v));
      }
    }
    score.cross = score.cross.size() == 0 ? b : Eigen::MatrixXd(score.cross + b);
  }

  static bool contains_reduction(const Value& v) {  // NOLINT(misc-no-recursion)
    return std::holds_alternative<Value::Reduction>(v.what) ||
           std::any_of(v.args.begin(), v.args.end(), [](const Value& a) { return contains_reduction(a); });
  }

  /// `n` as a linear form of an input token's stream, where it is affine in the values that
  /// token holds (a quantity's value made by an earlier layer) and constants; nullopt otherwise.
  std::optional<Form> held_affine(const Value& n,
                                  const std::string& step) {  // NOLINT(misc-no-recursion)
    const auto number = [](const Value& m) { return m.is(K::kNumber); };
    if (const auto* held = std::get_if<Value::Held>(&n.what)) {
      if (held->component >= 0) return std::nullopt;
      const auto it = values_[0].find(held->quantity);
      if (it == values_[0].end()) return std::nullopt;
      return it->second;
    }
    if (n.operation() == nullptr) return std::nullopt;
    switch (n.operation()->kind) {
      case K::kNumber: {
        Form f = network_->zero();
        f(Network::kInputFlag) = n.operation()->number;
        return f;
      }
      case K::kNeg: {
        std::optional<Form> a = held_affine(n.args[0], step);
        if (a) *a = -*a;
        return a;
      }
      case K::kAdd:
      case K::kSub: {
        std::optional<Form> a = held_affine(n.args[0], step);
        std::optional<Form> b = held_affine(n.args[1], step);
        if (!a || !b) return std::nullopt;
        return n.is(K::kAdd) ? Form(*a + *b) : Form(*a - *b);
      }
      case K::kMul:
        if (number(n.args[0]) || number(n.args[1])) {
          const bool left = number(n.args[0]);
          std::optional<Form> a = held_affine(n.args[left ? 1 : 0], step);
          if (a) *a *= n.args[left ? 0 : 1].operation()->number;
          return a;
        }
        return std::nullopt;
      case K::kDiv:
        if (number(n.args[1]) && n.args[1].operation()->number != 0) {
          std::optional<Form> a = held_affine(n.args[0], step);
          if (a) *a /= n.args[1].operation()->number;
          return a;
        }
        return std::nullopt;
      default:
        return std::nullopt;
    }
  }

  /// What each step reads and makes, before anything is built: the candidate features some FFN
  /// must compute first.
  void analyse(const PlanStep& s) {
    const std::string step = label(s);
    if (s.action == theorems::Action::kCarry) return;
    if (s.action == theorems::Action::kPositionAggregation) {
      if (!plan_.architecture.encodes_positions()) {
        throw Failure("engine", step + ": a fetch by position on an architecture without "
                                       "positional encoding");
      }
      return;
    }
    if (s.action != theorems::Action::kMaxRetrieval && s.action != theorems::Action::kMaskedRetrieval &&
        s.action != theorems::Action::kUniformAggregation) {
      throw Failure("constructor", fmt::format("{}: the constructor has no compilation for {} "
                                               "yet",
                                               step, theorems::to_text(s.action)));
    }
    const Quantity& q = quantity(s);
    if (!q.form.known) {
      throw Failure("constructor", fmt::format("{}: {} is made by a rule whose terms the "
                                               "constructor cannot read ({})",
                                               step, q.name,
                                               q.form.unknown.empty() ? "not recorded" : q.form.unknown));
    }
    for (const targets::IndexConstraint& c : q.form.constraints) {
      const std::set<std::string> named{c.left, c.right};
      if (q.form.at.empty() || named != std::set<std::string>{q.form.index, q.form.at}) {
        throw Failure("constructor", fmt::format("{}: the mask {} {} {} is not between the "
                                                 "candidate {} and the holder's token",
                                                 step, c.left, c.strict_order ? "<" : "!=",
                                                 c.right, q.form.index));
      }
    }
    // Without positions the mask is s != t by content (content_mask). The engine plans an order
    // mask there only where the body is symmetric in the two indices (E4: s < t gives the
    // values of s != t), and the measured NMSE checks that reading.
    if (!q.form.constraints.empty() && !plan_.architecture.encodes_positions())
      request_content_features(s.layer - 1);
    const int id = by_name_.at(s.quantity);
    if (q.form.below >= 0) {
      if (!q.form.at.empty()) {
        throw Failure("constructor", fmt::format("{}: a k-th largest at every token: its mask "
                                                 "compares each candidate with the holder's own "
                                                 "earlier step, which the constructor builds for "
                                                 "the readout's chains only",
                                                 step));
      }
      chained_[q.form.below] = id;
    }
    Score score;
    const std::string at = q.mode == Mode::kMean ? "" : q.form.at;
    for (const FormTerm& t : q.form.terms) split(t, q.form.index, at, score, step);
    if (score.holder_positions && score.holder_token) {
      throw Failure("constructor", step + ": the score reads the holder's own token and tokens "
                                          "by position, which one query does not hold together");
    }
    if (q.mode == Mode::kMean && (score.cross.size() > 0 || !score.holder.empty())) {
      throw Failure("constructor", step + ": an averaged term reads the holder");
    }
    for (const TokenFunction& piece : score.candidate) {
      if (!affine_in_x(piece)) request_feature(piece, s.layer - 1);
    }
    if (q.mode != Mode::kMean && selected_.count(id) != 0) require_few_ties(score, q.form.minimum, step);
    scores_.emplace(id, std::move(score));
  }

  /// A selection reads the token its score picks, and where several tie at the extreme (relu's
  /// 0 on a half-space) the target takes the first of them, which softmax does not: refused
  /// where that happens in more than 1% of sequences (x ~ N(0, I), T tokens).
  void require_few_ties(const Score& score, bool minimum, const std::string& step) const {
    // What else the score reads (the holder, messages) may break the ties: not probed here.
    if (score.candidate.empty() || score.cross.size() > 0 || !score.candidate_messages.empty()) return;
    Rng rng(derive_seed(options_.seed, {59}));
    constexpr int kSequences = 400;
    int tied = 0;
    for (int sequence = 0; sequence < kSequences; ++sequence) {
      std::vector<double> values;
      for (long t = 0; t < tokens_; ++t) {
        Eigen::VectorXd x(d_);
        for (long i = 0; i < d_; ++i) x(i) = rng.normal();
        double value = 0;
        for (const TokenFunction& piece : score.candidate) value += piece.f(x);
        values.push_back(value);
      }
      std::sort(values.begin(), values.end());
      if (minimum ? values[0] == values[1] : values[values.size() - 1] == values[values.size() - 2])
        ++tied;
    }
    if (tied * 100 > kSequences) {
      throw Failure("constructor", fmt::format("{}: its score ties at the extreme in {}% of "
                                               "sequences, where the target selects the first "
                                               "tied token and softmax averages them (the "
                                               "constructor breaks no tie by position)",
                                               step, 100 * tied / kSequences));
    }
  }

  bool affine_in_x(const TokenFunction& piece) {
    const auto known = affine_.find(piece.key);
    if (known != affine_.end()) return known->second.has_value();
    std::string why;
    std::optional<detail::RidgeSum> r = detail::decompose(
        [&](const Eigen::VectorXd& x) { return piece.f(x); }, Eigen::VectorXd::Ones(d_),
        derive_seed(options_.seed, {31}), why);
    std::optional<std::pair<Eigen::VectorXd, double>> affine;
    if (r && r->ridges.empty()) affine.emplace(r->linear, r->constant);
    affine_.emplace(piece.key, affine);
    return affine.has_value();
  }

  /// A feature of the candidate's own x that the FFN after `ffn_layer` computes (0: the encoder,
  /// for layer 1's steps).
  void request_feature(const TokenFunction& piece, long ffn_layer) {
    auto [it, fresh] = feature_layer_.emplace(piece.key, ffn_layer);
    if (!fresh) it->second = std::min(it->second, ffn_layer);
    feature_functions_.emplace(piece.key, piece.f);
  }

  /// The content features a mask without positions reads (THEORY.md section 4: a token tells
  /// itself from the others by content): m = --mask-features hat functions of one projection
  /// z = u . x of the token, centred at quantiles of z (1 % to 99 %), the outer two flat beyond.
  /// They sum to 1, so a token's features have a product of at least 1/2 with themselves, and 0
  /// with a token whose z lies two centres away or more. Computed exactly (their kinks are
  /// known) by the FFN after `ffn_layer` (0: the encoder) at every input token.
  void request_content_features(long ffn_layer) {
    if (content_keys_.empty()) {
      const long m = options_.mask_features;
      Rng rng(derive_seed(options_.seed, {61}));
      Eigen::VectorXd u(d_);
      for (long i = 0; i < d_; ++i) u(i) = rng.normal();
      u.normalize();
      constexpr long kSequences = 512;
      Eigen::MatrixXd x(d_, kSequences * tokens_);
      Eigen::VectorXd y(kSequences);
      numeric::draw_samples(*task_, derive_seed(options_.seed, {67}), 0, kSequences, x, y);
      Eigen::VectorXd z = x.transpose() * u;
      std::sort(z.begin(), z.end());
      std::vector<double> centres;
      for (long i = 0; i < m; ++i) {
        const double q = 0.01 + 0.98 * static_cast<double>(i) / static_cast<double>(m - 1);
        const double c = z(std::lround(q * static_cast<double>(z.size() - 1)));
        if (centres.empty() || c > centres.back()) centres.push_back(c);
      }
      if (centres.size() < 2) {
        throw Failure("constructor", "a mask without positions tells tokens apart by content, "
                                     "and the tokens' projection takes one value");
      }
      content_centres_ = centres;
      const auto count = static_cast<long>(centres.size());
      for (long i = 0; i < count; ++i) {
        const auto at = [&](long j) { return centres[static_cast<std::size_t>(j)]; };
        const double left = i > 0 ? at(i - 1) : at(i) - 1;  // the outer hats are flat beyond
        const double right = i + 1 < count ? at(i + 1) : at(i) + 1;
        const double centre = at(i);
        const bool first = i == 0;
        const bool last = i + 1 == count;
        auto hat = [=](double v) {
          if (v <= centre) return first ? 1.0 : std::max(0.0, (v - left) / (centre - left));
          return last ? 1.0 : std::max(0.0, (right - v) / (right - centre));
        };
        const std::string key = fmt::format("content feature {} of {} (a hat of u.x)", i + 1, count);
        detail::RidgeSum known;
        known.linear = Eigen::VectorXd::Zero(d_);
        known.ridges.push_back(detail::Ridge{u, hat, {left - 1, left, centre, right, right + 1}});
        feature_known_.emplace(key, known);
        feature_functions_.emplace(key, [u, hat](const Eigen::VectorXd& token) { return hat(u.dot(token)); });
        content_keys_.push_back(key);
      }
    }
    for (const std::string& key : content_keys_) {
      auto [it, fresh] = feature_layer_.emplace(key, ffn_layer);
      if (!fresh) it->second = std::min(it->second, ffn_layer);
    }
  }

  // ------------------------------------------------------------------ building

  /// The candidate's part of a score, a linear form over its stream.
  Form candidate_form(const Score& score, const std::string& step) {
    Form f = network_->zero();
    for (const TokenFunction& piece : score.candidate) {
      const auto& affine = affine_.at(piece.key);
      if (affine) {
        for (long j = 0; j < d_; ++j) f(Network::kToken + j) += affine->first(j);
        f(Network::kInputFlag) += affine->second;
      } else {
        f(features_.at(piece.key)) += 1;
      }
    }
    for (const auto& [id, c] : score.candidate_messages) {
      const auto made = made_in_.find(id);
      if (made != made_in_.end() && made->second >= current_layer_) {
        throw Failure("engine", fmt::format("{}: its score reads {} at the candidates, which "
                                            "layer {} makes, not an earlier one",
                                            step, program_.quantities[static_cast<std::size_t>(id)].name,
                                            made->second));
      }
      f += c * held(Class::kInputs, id, step);
    }
    return f;
  }

  const Form& held(Class at, int id, const std::string& step) const {
    const auto& values = values_[static_cast<int>(at)];
    const auto it = values.find(id);
    if (it == values.end()) {
      throw Failure("engine", fmt::format("{}: it reads {} at the {}, where no earlier step put it",
                                          step, program_.quantities[static_cast<std::size_t>(id)].name,
                                          class_name(at)));
    }
    return it->second;
  }

  void build() {
    const long layers = plan_.architecture.layers();
    ffn(Network::kEncoder, feature_jobs(0), {}, false);
    for (long l = 0; l < layers; ++l) {
      current_layer_ = l + 1;
      std::vector<Job> jobs;
      std::vector<std::pair<long, std::optional<Class>>> erasures;  // (coordinate, at; none: all)
      std::map<long, std::array<Role, 2>> heads;
      std::map<long, std::string> head_steps;
      std::vector<Clamp> clamps;
      pending_values_.clear();
      for (const PlanStep& s : plan_.steps) {
        if (s.layer != l + 1) continue;
        const Class at = s.where == theorems::TokenClass::kReadout ? Class::kReadout : Class::kInputs;
        const long available = plan_.architecture.heads[static_cast<std::size_t>(l)];
        if (s.head - 1 + s.heads > available) {
          throw Failure("engine", fmt::format("{}: layer {} has {} heads", label(s), l + 1, available));
        }
        const bool a_mean = s.action == theorems::Action::kUniformAggregation;
        for (long head = s.head - 1; head < s.head - 1 + s.heads; ++head) {
          Role& role = heads[head][static_cast<std::size_t>(at)];
          if (role.used && !(a_mean && role.only_means))
            throw Failure("engine", label(s) + ": two actions on one head at one class");
          if (!role.used) role.score = network_->zero();
          role.used = true;
          role.only_means = a_mean;
          head_steps[head] += (head_steps[head].empty() ? "" : "; ") + label(s);
        }
        const long head = s.head - 1;
        Role& role = heads[head][static_cast<std::size_t>(at)];
        if (s.action == theorems::Action::kCarry) {
          carry(s, role);
        } else if (s.action == theorems::Action::kPositionAggregation) {
          fetch_positions(s, at, role);
        } else if (quantity(s).mode == Mode::kMean) {
          Role gathered;
          mean(s, at, gathered);
          spread(s, at, gathered, heads);
        } else {
          retrieval(s, at, role, jobs, erasures);
          if (chained_.count(by_name_.at(s.quantity)) != 0)
            rank_mask(s, at, role, heads[head][static_cast<std::size_t>(Class::kInputs)], clamps);
        }
      }
      for (auto& [head, roles] : heads) network_->set_head(l, head, roles[0], roles[1], head_steps[head]);
      std::vector<Job> features = feature_jobs(l + 1);
      jobs.insert(jobs.end(), std::make_move_iterator(features.begin()), std::make_move_iterator(features.end()));
      std::vector<Job> hats = threshold_jobs(l);
      jobs.insert(jobs.end(), std::make_move_iterator(hats.begin()), std::make_move_iterator(hats.end()));
      if (l + 1 == layers) {
        std::vector<Job> first = first_level(l);
        jobs.insert(jobs.end(), std::make_move_iterator(first.begin()), std::make_move_iterator(first.end()));
      }
      ffn(l, jobs, erasures, l + 1 == layers, clamps);
    }
    readout();
  }

  /// The features the next layers' scores and means read, computed at the input tokens by the
  /// FFN after layer `level` (0: the encoder), each into a coordinate of its own.
  std::vector<Job> feature_jobs(long level) {
    std::vector<Job> jobs;
    for (const auto& [key, layer] : feature_layer_) {
      if (layer != level) continue;
      std::vector<long> inputs;
      for (long j = 0; j < d_; ++j) inputs.push_back(Network::kToken + j);
      // `name`: Clang 14 cannot capture a structured binding (scripts/fuzz.sh builds with it).
      const auto known = feature_known_.find(key);
      jobs.push_back(Job{Class::kInputs, inputs, feature_functions_.at(key), -1, "feature " + key,
                         [this, name = key](long into) { features_[name] = into; },
                         known == feature_known_.end() ? std::nullopt
                                                       : std::optional<detail::RidgeSum>(known->second)});
      described_.push_back(level == 0 ? fmt::format("encoder: computes {} at every input token", key)
                                      : fmt::format("FFN {}: computes {} at every input token", level, key));
    }
    return jobs;
  }

  void carry(const PlanStep& s, Role& role) {
    // The readout fetches any input token: the global values they hold, all alike.
    carry_globals(role, label(s), nullptr);
    described_.push_back(label(s) + ": a uniform average over the input tokens of the global values they hold");
  }

  /// Into `role`'s values at the readout, the global values the input tokens hold and the
  /// readout does not (only those in `wanted`, where given): every token holds the same, so any
  /// average over them is that value.
  void carry_globals(Role& role, const std::string& step, const std::set<int>* wanted) {
    for (const auto& [id, form] : values_[0]) {
      if (program_.quantities[static_cast<std::size_t>(id)].holder != theorems::Holder::kGlobal) continue;
      if (values_[1].count(id) != 0 || (wanted != nullptr && wanted->count(id) == 0)) continue;
      const long into = network_->allocate(program_.quantities[static_cast<std::size_t>(id)].name + " (carried)", step);
      role.values.push_back(form);
      role.into.push_back(into);
      values_[1][id] = network_->unit(into);
    }
    // A mean held at the tokens, value by value (a vector's mean is d of them).
    for (const auto& [key, forms] : components_[0]) {
      const int id = key.first;
      if (program_.quantities[static_cast<std::size_t>(id)].holder != theorems::Holder::kGlobal) continue;
      if (components_[1].count(key) != 0 || (wanted != nullptr && wanted->count(id) == 0)) continue;
      std::vector<Form>& carried = components_[1][key];
      for (std::size_t r = 0; r < forms.size(); ++r) {
        const long into = network_->allocate(
            fmt::format("{}: mean {}{} (carried)", program_.quantities[static_cast<std::size_t>(id)].name,
                        key.second, forms.size() == 1 ? "" : fmt::format(", entry {}", r)),
            step);
        role.values.push_back(forms[r]);
        role.into.push_back(into);
        carried.push_back(network_->unit(into));
      }
    }
  }

  /// The quantities whose held values `v` reads.
  static void quantities_read(const Value& v, std::set<int>& out) {
    if (const auto* held = std::get_if<Value::Held>(&v.what)) out.insert(held->quantity);
    for (const Value& a : v.args) quantities_read(a, out);
  }

  /// Uniform attention over the positions P reads: their tokens' mean, which is all an
  /// expression reading them through their sum needs (require_through_sum).
  void fetch_positions(const PlanStep& s, Class at, Role& role) {
    const std::string step = label(s);
    std::set<long> at_positions;
    for (const auto& [text, p] : positions_) at_positions.insert(p);
    role.score = network_->unit(indicator(at_positions, step));
    std::vector<long>& held = positions_held_[static_cast<int>(at)];
    held.clear();
    for (long j = 0; j < d_; ++j) {
      held.push_back(network_->allocate(fmt::format("mean of x at positions {{{}}}", fmt::join(at_positions, ", ")), step));
      role.values.push_back(network_->unit(Network::kToken + j));
      role.into.push_back(held.back());
    }
    made_in_[-1] = s.layer;  // -1: the positions' mean
    described_.push_back(fmt::format("{}: uniform attention over the positions {{{}}} (their "
                                     "indicator in the positional encoding), averaging their x",
                                     step, fmt::join(at_positions, ", ")));
  }

  void mean(const PlanStep& s, Class at, Role& role) {
    const int id = by_name_.at(s.quantity);
    const Quantity& q = quantity(s);
    const std::string step = label(s);
    for (std::size_t j = 0; j < q.form.terms.size(); ++j) {
      const FormTerm& t = q.form.terms[j];
      std::vector<Form> forms;
      if (t.node && !targets::contains(*t.node, [](const Node& n) { return n.kind == K::kReduce; }) &&
          vector_valued(*t.node, q.form.index)) {
        forms = vector_forms(t, q.form.index, step);
      } else {
        Score one;
        split(t, q.form.index, "", one, step);
        forms.push_back(candidate_form(one, step));
      }
      std::vector<Form>& component = components_[static_cast<int>(at)][{id, static_cast<int>(j)}];
      for (std::size_t r = 0; r < forms.size(); ++r) {
        const long into = network_->allocate(
            forms.size() == 1 ? fmt::format("{}: mean {}", q.name, j)
                              : fmt::format("{}: mean {}, entry {}", q.name, j, r),
            step);
        role.values.push_back(forms[r]);
        role.into.push_back(into);
        component.push_back(network_->unit(into));
      }
    }
    // A mean at the readout averages every token's values: the globals they hold and the
    // target reads come with it (the plan's information sets count them there).
    if (at == Class::kReadout) {
      std::set<int> read;
      quantities_read(output_, read);
      carry_globals(role, step, &read);
    }
    described_.push_back(fmt::format("{}: uniform attention over the input tokens, averaging "
                                     "{} value(s): {}",
                                     step, q.form.terms.size(), q.what));
  }

  /// A mean's values over the heads its step spans, in turn: each head takes what room its n
  /// value dimensions have left (both classes share them), the last the rest, so that a head
  /// too narrow for it is reported as a width failure when the layer is written.
  void spread(const PlanStep& s, Class at, const Role& gathered,
              std::map<long, std::array<Role, 2>>& heads) const {
    const long n = plan_.architecture.head_dim_of(s.layer - 1);
    const long last = s.head - 1 + s.heads - 1;
    std::size_t next = 0;
    for (long head = s.head - 1; head <= last; ++head) {
      std::array<Role, 2>& roles = heads[head];
      const auto taken = static_cast<long>(roles[0].values.size() + roles[1].values.size());
      const std::size_t room = head == last ? gathered.values.size() - next
                                            : static_cast<std::size_t>(std::max<long>(0, n - taken));
      Role& role = roles[static_cast<std::size_t>(at)];
      for (std::size_t j = 0; j < room && next < gathered.values.size(); ++j, ++next) {
        role.values.push_back(gathered.values[next]);
        role.into.push_back(gathered.into[next]);
      }
    }
  }

  bool vector_valued(const Node& n, const std::string& v) const {
    detail::TermInputs in;
    in.parameters = evaluator_.get();
    in.tokens_count = tokens_;
    in.tokens[v] = Eigen::VectorXd::Zero(d_);
    return detail::evaluate(n, in).vector;
  }

  /// A vector term averaged over v, as one linear form of the token's x per entry (it must be
  /// affine in x: an FFN level would be needed per entry otherwise).
  std::vector<Form> vector_forms(const FormTerm& t, const std::string& v, const std::string& step) const {
    auto at = [&](const Eigen::VectorXd& x) {
      detail::TermInputs in;
      in.parameters = evaluator_.get();
      in.tokens_count = tokens_;
      in.tokens[v] = x;
      return Eigen::VectorXd(t.coefficient * detail::evaluate(*t.node, in).v);
    };
    const Eigen::VectorXd zero = Eigen::VectorXd::Zero(d_);
    const Eigen::VectorXd base = at(zero);
    Eigen::MatrixXd map(base.size(), d_);
    for (long i = 0; i < d_; ++i) {
      Eigen::VectorXd e = zero;
      e(i) = 1;
      map.col(i) = at(e) - base;
    }
    Rng rng(derive_seed(options_.seed, {23}));
    Eigen::VectorXd x(d_);
    for (long i = 0; i < d_; ++i) x(i) = rng.normal();
    if ((at(x) - base - map * x).norm() > 1e-7 * (1 + at(x).norm())) {
      throw Failure("constructor", fmt::format("{}: the averaged vector {} is not affine in the "
                                               "token",
                                               step, targets::to_text(*t.node)));
    }
    std::vector<Form> out;
    for (Eigen::Index r = 0; r < base.size(); ++r) {
      Form f = network_->zero();
      for (long i = 0; i < d_; ++i) f(Network::kToken + i) = map(r, i);
      f(Network::kInputFlag) = base(r);
      out.push_back(f);
    }
    return out;
  }

  /// The selection's body read at the candidate as a linear form of its stream, if it is affine
  /// in the token (one value to fetch, not the token).
  std::optional<Form> affine_selection(int id, const std::string& index, const std::string& step) {
    const Value& select = *selections_.at(id);
    const Value body = select.args[0];
    const std::string v = std::get<Value::Selected>(select.what).index;
    if (contains_reduction(body)) return std::nullopt;
    // A body that reads values the candidate holds (a message m(s) made by an earlier layer)
    // is read off the candidate's stream where it is affine in them; x alone does not give it.
    if (theorems::reads_held_value(body)) {
      if (std::optional<Form> held = held_affine(body, step)) return held;
      throw Failure("constructor",
                    fmt::format("{}: the selection's value {} reads what the chosen token holds, "
                                "but not as an affine function of it, which the constructor "
                                "cannot fetch in one step",
                                step, theorems::to_text(body)));
    }
    TokenFunction piece{[this, body, v](const Eigen::VectorXd& x) {
                          detail::TermInputs in;
                          in.parameters = evaluator_.get();
                          in.tokens_count = tokens_;
                          in.tokens[v] = x;
                          const detail::TermValue value = detail::evaluate(body, in);
                          return value.vector ? std::nan("") : value.s;
                        },
                        "selected " + theorems::to_text(body) + "@" + index};
    (void)step;
    if (!affine_in_x(piece)) return std::nullopt;
    const auto& affine = *affine_.at(piece.key);
    Form f = network_->zero();
    for (long j = 0; j < d_; ++j) f(Network::kToken + j) = affine.first(j);
    f(Network::kInputFlag) = affine.second;
    return f;
  }

  void retrieval(const PlanStep& s, Class at, Role& role, std::vector<Job>& jobs,
                 std::vector<std::pair<long, std::optional<Class>>>& erasures) {
    const int id = by_name_.at(s.quantity);
    const Quantity& q = quantity(s);
    const std::string step = label(s);
    const Score& score = scores_.at(id);
    if (q.holder == theorems::Holder::kToken && at == Class::kReadout)
      throw Failure("engine", step + ": a token's quantity placed at the readout");
    const double sign = q.form.minimum ? -1 : 1;
    // The candidate's own part of the score, fetched with the token where it is not zero.
    const Form s_form = candidate_form(score, step);
    role.score = sign * s_form;
    for (const auto& [message, c] : score.candidate_messages) {
      const auto undefined = undefined_at_.find(message);
      if (undefined == undefined_at_.end()) continue;
      for (const long p : undefined->second)
        role.score -= Network::kPenalty * network_->unit(one_hot_.at(static_cast<std::size_t>(p - 1)));
    }
    if (q.form.below >= 0 && threshold_masks_.count(id) != 0) {
      // Below the step before, by content (threshold_jobs).
      for (const long c : threshold_masks_.at(id)) {
        role.query.push_back(-Network::kPenalty * network_->unit(c));
        role.key.push_back(network_->unit(c));
      }
    } else if (q.form.below >= 0) {
      // Below the step before: the tokens at or above its score are flagged by the FFN before.
      const auto flag = rank_masks_.find(id);
      if (flag == rank_masks_.end()) {
        throw Failure("engine", fmt::format("{}: its candidates are those below {}'s score, which "
                                            "no earlier layer made at the readout",
                                            step, program_.quantities[static_cast<std::size_t>(q.form.below)].name));
      }
      role.score -= Network::kPenalty * network_->unit(flag->second);
    }
    Form value = network_->zero();
    if (s_form.cwiseAbs().maxCoeff() > 0) {
      const long s_into = network_->allocate(q.name + ": the candidate's score", step);
      role.values.push_back(s_form);
      role.into.push_back(s_into);
      value = network_->unit(s_into);
      own_score_[id] = s_into;
      candidate_score_[id] = sign * s_form;
    }
    // The holder's x: its own token, or what it fetched by position.
    std::vector<long> holder;
    for (long j = 0; j < d_; ++j) holder.push_back(Network::kToken + j);
    if (score.holder_positions) {
      holder = positions_held_[static_cast<int>(at)];
      if (holder.empty() || made_in_.at(-1) >= s.layer) {
        throw Failure("engine", step + ": its score reads tokens by position at the holder, where "
                                       "no earlier layer fetched them");
      }
    }
    // Keys 2..: the holder's x against the candidate's x through B = P V', one key dimension
    // for each of B's r singular directions (x itself when B has full rank).
    const bool cross = score.cross.size() > 0;
    const bool selected = at == Class::kReadout && selected_.count(id) != 0;
    std::optional<Form> selected_value;
    if (selected) selected_value = affine_selection(id, q.form.index, step);
    const bool fetch_x = selected && !selected_value;  // a selection's nonlinear body reads x
    const CrossFactors factors = cross ? factor_cross(score.cross) : CrossFactors{};
    const long rank = factors.candidate.cols();
    std::vector<long> fetched;
    for (long j = 0; j < rank; ++j) {
      Form query = network_->zero();
      Form key = network_->zero();
      for (long i = 0; i < d_; ++i) {
        query(holder[static_cast<std::size_t>(i)]) = sign * factors.holder(i, j);
        key(Network::kToken + i) = factors.candidate(i, j);
      }
      role.query.push_back(query);
      role.key.push_back(key);
    }
    // What the holder's FFN multiplies with its own x: the candidate's x, or its projections.
    const long fetched_width = fetch_x ? d_ : rank;
    for (long j = 0; j < fetched_width; ++j) {
      Form fetched_value = network_->zero();
      if (fetch_x) {
        fetched_value(Network::kToken + j) = 1;
      } else {
        for (long i = 0; i < d_; ++i) fetched_value(Network::kToken + i) = factors.candidate(i, j);
      }
      fetched.push_back(network_->allocate(q.name + ": the token fetched", step));
      role.values.push_back(fetched_value);
      role.into.push_back(fetched.back());
    }
    if (fetch_x) fetched_x_[id] = fetched;
    // The cross term as the FFN computes it: x_holder' P (what was fetched).
    const Eigen::MatrixXd cross_on_fetched = fetch_x ? score.cross : factors.holder;
    if (selected_value) {
      const long into = network_->allocate(q.name + ": the selection's value", step);
      role.values.push_back(*selected_value);
      role.into.push_back(into);
      fetched_value_[id] = into;
    }
    // A retrieval at the readout brings what the chosen token holds: the global values the
    // readout needs and holds not yet.
    if (at == Class::kReadout) {
      for (const int g : needed_at_readout_) {
        // Held by the candidates entering this layer: made by an earlier one.
        if (values_[1].count(g) != 0 || values_[0].count(g) == 0 || made_in_.at(g) >= s.layer) continue;
        const long into = network_->allocate(program_.quantities[static_cast<std::size_t>(g)].name + " (brought along)", step);
        role.values.push_back(values_[0].at(g));
        role.into.push_back(into);
        values_[1][g] = network_->unit(into);
      }
    }
    // The value at the holder: the fetched score part, the holder's terms, the cross term.
    for (const auto& [message, c] : score.holder_messages) value += c * held(at, message, step);
    std::vector<TokenFunction> nonlinear;
    for (const TokenFunction& piece : score.holder) {
      if (affine_in_x(piece)) {
        const auto& affine = *affine_.at(piece.key);
        for (long j = 0; j < d_; ++j) value(holder[static_cast<std::size_t>(j)]) += affine.first(j);
        value(Network::flag(at)) += affine.second;
      } else {
        nonlinear.push_back(piece);
      }
    }
    if (!q.form.constraints.empty()) mask(id, q, role, step);
    if (cross || !nonlinear.empty()) {
      std::vector<long> inputs = holder;
      if (cross) inputs.insert(inputs.end(), fetched.begin(), fetched.end());
      const Eigen::MatrixXd b = cross_on_fetched;
      const long d = d_;
      jobs.push_back(Job{at, inputs,
                         [b, d, cross, nonlinear](const Eigen::VectorXd& z) {
                           const Eigen::VectorXd xu = z.head(d);
                           double out = 0;
                           if (cross) out += xu.dot(b * z.segment(d, b.cols()));
                           for (const TokenFunction& piece : nonlinear) out += piece.f(xu);
                           return out;
                         },
                         -1, q.name + "'s value",
                         [this, at, id](long into) {
                           values_[static_cast<int>(at)][id] += network_->unit(into);
                         },
                         std::nullopt});
      if (cross && !fetch_x) {
        for (const long c : fetched) erasures.emplace_back(c, std::nullopt);
      }
      pending_values_.insert(id);
    }
    values_[static_cast<int>(at)][id] = value;
    made_in_[id] = s.layer;
    described_.push_back(fmt::format("{}: {}; score {}{}", step, q.what,
                                     cross ? "a query-key product of the two tokens" : "the candidate's own",
                                     at == Class::kInputs ? "" : ""));
  }

  /// The quantity's index constraints as a mask: the candidate s is out where (s, t) breaks one,
  /// t the holder's token. Query and key read the one-hot positions: T key dimensions, query
  /// row s = -penalty [(s, t) masked] as a linear form of t's one-hot code. Without positions,
  /// s != t by content.
  void mask(int id, const Quantity& q, Role& role, const std::string& step) {
    if (!plan_.architecture.encodes_positions()) {
      content_mask(role, step);
      return;
    }
    const std::vector<long>& code = one_hot(step);
    std::vector<bool> has_candidates(static_cast<std::size_t>(tokens_ + 1), false);
    const double scale = Network::kPenalty;  // set_head scales queries by beta
    for (long candidate = 1; candidate <= tokens_; ++candidate) {
      Form query = network_->zero();
      for (long holder = 1; holder <= tokens_; ++holder) {
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
      role.key.push_back(network_->unit(code[static_cast<std::size_t>(candidate - 1)]));
    }
    // A holder with no candidate (t = 1 under s < t) has no value: a step that ranks the
    // holders by it must leave that token out.
    for (long holder = 1; holder <= tokens_; ++holder) {
      if (!has_candidates[static_cast<std::size_t>(holder)]) undefined_at_[id].push_back(holder);
    }
  }

  /// s != t without positions: one key dimension per content feature, the holder's query the
  /// penalty times its own features. The candidate s = t loses at least half the penalty; a
  /// candidate loses part of it only where its projection lies within two centres of the
  /// holder's, the construction's error (the finer the grid, the rarer: --mask-features).
  void content_mask(Role& role, const std::string& step) {
    for (const std::string& key : content_keys_) {
      const Form feature = network_->unit(features_.at(key));
      role.query.push_back(-Network::kPenalty * feature);
      role.key.push_back(feature);
    }
    described_.push_back(fmt::format("{}: the mask s != t by content: {} hat functions of u.x "
                                     "(centres {:.3g} to {:.3g}), a key dimension each",
                                     step, content_keys_.size(), content_centres_.front(),
                                     content_centres_.back()));
  }

  /// Step j of a k-th largest takes the candidates below step j - 1's score. At the readout,
  /// the head of step j - 1 acts alike at the input tokens, so that each holds that score (a
  /// chain at the input tokens holds it already); the FFN after
  /// the layer flags the tokens at or above it (a clamp of the difference, exact outside a band
  /// below it of kClampBand times the difference's range); step j's score takes the penalty on
  /// the flag.
  void rank_mask(const PlanStep& s, Class at, const Role& role, Role& twin,
                 std::vector<Clamp>& clamps) {
    const int id = by_name_.at(s.quantity);
    const std::string step = label(s);
    const int next = chained_.at(id);
    const auto held = own_score_.find(id);
    if (held == own_score_.end()) {
      throw Failure("constructor", step + ": the step fetches no score of its own to compare with");
    }
    if (!role.query.empty()) {
      throw Failure("constructor", step + ": the chain's score reads the holder, so the "
                                          "threshold differs from token to token");
    }
    // A chain at the input tokens (a global k-th largest each token computes) holds the step's
    // score there already; one at the readout has the head act alike at the input tokens.
    if (at == Class::kReadout) {
      if (twin.used) {
        // The head is taken at the input tokens: the readout compares by content instead.
        thresholds_.push_back(Threshold{id, next, held->second, candidate_score_.at(id), step});
        return;
      }
      twin.used = true;
      twin.score = role.score;
    }
    const long flag = network_->allocate(
        fmt::format("1 at the tokens at or above {}'s score (the mask of {})", program_.quantities[static_cast<std::size_t>(id)].name,
                    program_.quantities[static_cast<std::size_t>(next)].name),
        step);
    clamps.push_back(Clamp{candidate_score_.at(id) - network_->unit(held->second), flag});
    rank_masks_[next] = flag;
    described_.push_back(fmt::format("{}: {}the FFN after the layer flags the tokens at or above "
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
  std::vector<Job> threshold_jobs(long layer) {
    std::vector<Job> jobs;
    if (thresholds_.empty()) return jobs;
    const Eigen::MatrixXd states = calibration_states(layer);
    for (const Threshold& t : thresholds_) {
      std::vector<double> held;
      for (long c = 0; c < states.cols(); ++c) {
        if (column_at(layer, c, Class::kReadout)) held.push_back(states(t.held, c));
      }
      std::sort(held.begin(), held.end());
      const long m = options_.mask_features;
      std::vector<double> centres;
      for (long i = 0; i < m; ++i) {
        const double q = 0.01 + 0.98 * static_cast<double>(i) / static_cast<double>(m - 1);
        const double c = held[static_cast<std::size_t>(std::lround(q * static_cast<double>(held.size() - 1)))];
        if (centres.empty() || c > centres.back()) centres.push_back(c);
      }
      if (centres.size() < 2) {
        throw Failure("constructor", t.step + ": the held score takes one value: no content "
                                              "tells its token from the others");
      }
      // The candidate's score as a ridge of the coordinates it reads.
      std::vector<long> inputs;
      std::vector<double> weights;
      for (long c = 0; c < t.candidate.size(); ++c) {
        if (t.candidate(c) == 0) continue;
        inputs.push_back(c);
        weights.push_back(t.candidate(c));
      }
      const Eigen::VectorXd direction = Eigen::Map<const Eigen::VectorXd>(weights.data(), static_cast<long>(weights.size()));
      std::vector<long>& mask = threshold_masks_[t.next];
      const auto count = static_cast<long>(centres.size());
      for (long i = 0; i < count; ++i) {
        const auto at = [&](long j) { return centres[static_cast<std::size_t>(j)]; };
        const double left = i > 0 ? at(i - 1) : 2 * at(0) - at(1);
        const double centre = at(i);
        const bool last = i + 1 == count;
        const double right = last ? centre + 1 : at(i + 1);
        auto hat = [=](double v) {
          if (v <= centre) return std::max(0.0, (v - left) / (centre - left));
          return last ? 1.0 : std::max(0.0, (right - v) / (right - centre));
        };
        const std::vector<double> kinks{left - 1, left, centre, right, right + 1};
        const long into = network_->allocate(
            fmt::format("hat {} of {} of {}'s score (the mask of {})", i + 1, count,
                        program_.quantities[static_cast<std::size_t>(t.id)].name,
                        program_.quantities[static_cast<std::size_t>(t.next)].name),
            t.step);
        mask.push_back(into);
        detail::RidgeSum at_readout;
        at_readout.linear = Eigen::VectorXd::Zero(1);
        at_readout.ridges.push_back(detail::Ridge{Eigen::VectorXd::Ones(1), hat, kinks});
        jobs.push_back(Job{Class::kReadout, {t.held}, [hat](const Eigen::VectorXd& z) { return hat(z(0)); },
                           into, "a hat of the held score", nullptr, at_readout});
        detail::RidgeSum at_inputs;
        at_inputs.linear = Eigen::VectorXd::Zero(direction.size());
        at_inputs.ridges.push_back(detail::Ridge{direction, hat, kinks});
        jobs.push_back(Job{Class::kInputs, inputs,
                           [hat, direction](const Eigen::VectorXd& z) { return hat(direction.dot(z)); },
                           into, "a hat of the candidate's score", nullptr, at_inputs});
      }
      described_.push_back(fmt::format("{}: the FFN after the layer computes {} hats of the held "
                                       "score at the readout and of each input token's own, the "
                                       "mask of {} by content",
                                       t.step, count,
                                       program_.quantities[static_cast<std::size_t>(t.next)].name));
    }
    thresholds_.clear();
    return jobs;
  }

  // ------------------------------------------------------------------ FFNs

  /// Stream states of `count` calibration sequences after `layer`'s attention (its FFN and all
  /// later weights still zero): E x (count * S), or the readout's E x count for the last layer.
  Eigen::MatrixXd calibration_states(long layer) {
    const numeric::ModelConfig& c = network_->config();
    const long count = options_.calibration;
    Eigen::MatrixXd x(d_, count * tokens_);
    Eigen::VectorXd y(count);
    numeric::draw_samples(*task_, derive_seed(options_.seed, {1}), 0, count, x, y);
    const bool last = layer + 1 == c.layers();
    const long per = last ? 1 : tokens_ + 1;
    Eigen::MatrixXd out(c.embedding, count * per);
    numeric::Workspace<double> ws(c, kBatch);
    Eigen::VectorXd predictions(kBatch);
    for (long first = 0; first < count; first += kBatch) {
      const long n = std::min(kBatch, count - first);
      ws.forward(network_->model(), x.data() + first * tokens_ * d_, n, predictions.data());
      if (last || layer == c.layers()) {
        out.middleCols(first, n) = ws.readout_state(n);
      } else {
        out.middleCols(first * per, n * per) = ws.state_entering(layer + 1, n);
      }
    }
    return out;
  }

  /// Whether column i of calibration_states(layer) is a token of class `at`.
  [[nodiscard]] bool column_at(long layer, long i, Class at) const {
    const bool last = layer + 1 >= network_->config().layers();
    const bool readout = last || i % (tokens_ + 1) == tokens_;
    return readout == (at == Class::kReadout);
  }

  struct Unit {
    Form pre;
    double bias = 0;
    long into = 0;
    double weight = 0;
  };

  /// The FFN after `layer` (layer = L: the readout MLP, whose one output is `into` = 0; layer =
  /// kEncoder: the MLP encoder, whose inputs are x as the linear encoder writes it).
  void ffn(long layer, std::vector<Job> jobs,
           const std::vector<std::pair<long, std::optional<Class>>>& erasures, bool last,
           const std::vector<Clamp>& clamps = {}) {
    if (jobs.empty() && erasures.empty() && clamps.empty()) return;
    const bool readout_mlp = layer == network_->config().layers();
    const bool encoder = layer == Network::kEncoder;
    // The readout MLP runs at the readout alone, the encoder at the input tokens alone: no gate,
    // and their constants are output biases.
    const bool one_class = readout_mlp || encoder;
    const std::string name = encoder       ? "the encoder"
                             : readout_mlp ? "the readout MLP"
                                           : "the FFN after layer " + std::to_string(layer + 1);
    const Eigen::MatrixXd states = calibration_states(std::min(layer, network_->config().layers() - 1));
    const long columns = states.cols();
    auto gate_of = [&](const Form& pre) {  // a bound on |pre| over every calibration token
      return 4 * (states.transpose() * pre).cwiseAbs().maxCoeff() + 10;
    };
    std::vector<Unit> units;
    std::map<Class, std::map<long, double>> constants;
    struct Pending {
      const Job* job;
      detail::Ridge ridge;
    };
    std::vector<Pending> ridges;
    for (const auto& [coordinate, at] : erasures) {
      const Form u = network_->unit(coordinate);
      units.push_back(Unit{u, 0, coordinate, -1});
      units.push_back(Unit{-u, 0, coordinate, 1});
      if (at) {
        gate(units[units.size() - 2], *at, false, gate_of);
        gate(units.back(), *at, false, gate_of);
      }
      network_->release(coordinate);
    }
    // A step from 0 (u <= -delta) to 1 (u >= 0), exactly: relu(u / delta + 1) - relu(u / delta).
    for (const Clamp& c : clamps) {
      double largest = 0;
      for (long i = 0; i < columns; ++i) {
        if (column_at(layer, i, Class::kInputs)) largest = std::max(largest, std::abs(states.col(i).dot(c.u)));
      }
      const double delta = kClampBand * std::max(largest, 1e-12);
      // Not gated: the flag is in [0, 1] at the readout too, where nothing reads it (the readout
      // is never a candidate), and a gate's large offset would cost the clamp its precision in
      // float32.
      units.push_back(Unit{c.u / delta, 1, c.into, 1});
      units.push_back(Unit{c.u / delta, 0, c.into, -1});
    }
    // What the erasures freed can hold this FFN's outputs.
    for (Job& job : jobs) {
      if (job.into >= 0) continue;
      try {
        job.into = network_->allocate(job.what, name);
      } catch (const Failure& f) {
        if (!encoder || job.known) throw;  // a content feature: the mask's width, E's shortfall
        // The engine counts what each token holds; this layout keeps x beside the features and
        // gives each token class's values coordinates of their own.
        throw Failure("constructor", std::string(f.what()) + " (the constructor keeps x beside "
                                     "the encoder's features and gives the values of each token "
                                     "class coordinates of their own)");
      }
      if (job.placed) job.placed(job.into);
    }
    for (const Job& job : jobs) {
      if (last && !readout_mlp && job.at == Class::kInputs) continue;  // never read
      Eigen::VectorXd scale(static_cast<long>(job.inputs.size()));
      for (std::size_t i = 0; i < job.inputs.size(); ++i) {
        double sum = 0;
        long n = 0;
        for (long c = 0; c < columns; ++c) {
          if (!column_at(layer, c, job.at)) continue;
          sum += states(job.inputs[i], c) * states(job.inputs[i], c);
          ++n;
        }
        scale(static_cast<long>(i)) = std::max(1e-3, std::sqrt(sum / std::max<long>(n, 1)));
      }
      std::vector<Eigen::VectorXd> data;
      for (long c = 0; c < columns; ++c) {
        if (!column_at(layer, c, job.at)) continue;
        Eigen::VectorXd z(static_cast<long>(job.inputs.size()));
        for (std::size_t i = 0; i < job.inputs.size(); ++i) z(static_cast<long>(i)) = states(job.inputs[i], c);
        data.push_back(z);
      }
      std::string why;
      const std::optional<detail::RidgeSum> r =
          job.known ? job.known
                    : detail::decompose(job.f, scale, derive_seed(options_.seed, {43}), why, data);
      if (!r) {
        throw Failure("constructor", fmt::format("{} {}: {} is not one FFN level's function: {}",
                                                 name, class_name(job.at), job.what, why));
      }
      constants[job.at][job.into] += r->constant;
      Form linear = network_->zero();
      for (std::size_t i = 0; i < job.inputs.size(); ++i) linear(job.inputs[i]) += r->linear(static_cast<long>(i));
      if (linear.cwiseAbs().maxCoeff() > 0) {
        // relu(u) - relu(-u) = u, exactly.
        units.push_back(Unit{linear, 0, job.into, 1});
        units.push_back(Unit{-linear, 0, job.into, -1});
        gate(units[units.size() - 2], job.at, one_class, gate_of);
        gate(units.back(), job.at, one_class, gate_of);
      }
      for (const detail::Ridge& ridge : r->ridges) {
        if (ridge.kinks.empty()) {
          ridges.push_back(Pending{&job, ridge});
          continue;
        }
        // Piecewise linear with known kinks: exact on them, whatever the width.
        Form w = network_->zero();
        for (std::size_t i = 0; i < job.inputs.size(); ++i) w(job.inputs[i]) += ridge.direction(static_cast<long>(i));
        const detail::Interpolant exact = detail::interpolate_at(ridge.shape, ridge.kinks);
        constants[job.at][job.into] += exact.constant;
        for (std::size_t k = 0; k < exact.breaks.size(); ++k) {
          if (exact.weights[k] == 0) continue;
          units.push_back(Unit{w, -exact.breaks[k], job.into, exact.weights[k]});
          gate(units.back(), job.at, one_class, gate_of);
        }
        if (exact.weights.back() != 0) {
          units.push_back(Unit{-w, exact.low, job.into, exact.weights.back()});
          gate(units.back(), job.at, one_class, gate_of);
        }
      }
    }
    const long width = encoder       ? network_->config().encoder_hidden()
                       : readout_mlp ? network_->config().readout_width
                                     : network_->config().ffn_width;
    // The encoder's pass-through of x (and positions) is already there.
    const long fixed = network_->units(layer) + static_cast<long>(units.size()) +
                       static_cast<long>(constants.size());
    if (fixed > width) {
      throw Failure("width", fmt::format("{} needs {} exact units: width {} is too small (use {} >= {})",
                                         name, fixed, width,
                                         encoder ? "--encoder-width"
                                         : readout_mlp && options_.readout_width > 0 ? "--readout-width"
                                                                                     : "--ffn-width",
                                         fixed));
    }
    long knots = 0;
    if (!ridges.empty()) {
      knots = (width - fixed) / static_cast<long>(ridges.size());
      if (knots < kFewestKnots) {
        throw Failure("width", fmt::format("{} needs {} interpolated functions and {} exact units: "
                                           "width {} leaves fewer than {} knots each (use {} >= {})",
                                           name, ridges.size(), fixed, width, kFewestKnots,
                                           encoder ? "--encoder-width"
                                           : readout_mlp && options_.readout_width > 0 ? "--readout-width"
                                                                                       : "--ffn-width",
                                           fixed + kFewestKnots * static_cast<long>(ridges.size())));
      }
      fewest_knots_ = fewest_knots_ == 0 ? knots : std::min(fewest_knots_, knots);
    }
    for (const Pending& p : ridges) {
      Form w = network_->zero();
      for (std::size_t i = 0; i < p.job->inputs.size(); ++i) w(p.job->inputs[i]) += p.ridge.direction(static_cast<long>(i));
      double low = std::numeric_limits<double>::infinity();
      double high = -low;
      for (long c = 0; c < columns; ++c) {
        if (!column_at(layer, c, p.job->at)) continue;
        const double u = states.col(c).dot(w);
        low = std::min(low, u);
        high = std::max(high, u);
      }
      if (!std::isfinite(low)) low = high = 0;
      const double margin = std::max(0.05 * (high - low), 1e-3);
      low -= margin;
      high += margin;
      if (low < 0 && high > 0) {
        // A knot at 0: the kinks of relu and abs of a linear form, and of max(u, v) = v +
        // relu(u - v), are there, and a grid through them interpolates those exactly.
        const double step = (high - low) / static_cast<double>(knots - 2);
        low = std::floor(low / step) * step;
        high = low + step * static_cast<double>(knots - 1);
      }
      const detail::Interpolant interp = detail::interpolate(p.ridge.shape, low, high, knots);
      constants[p.job->at][p.job->into] += interp.constant;
      for (std::size_t k = 0; k < interp.breaks.size(); ++k) {
        units.push_back(Unit{w, -interp.breaks[k], p.job->into, interp.weights[k]});
        gate(units.back(), p.job->at, one_class, gate_of);
      }
      units.push_back(Unit{-w, interp.low, p.job->into, interp.weights.back()});
      gate(units.back(), p.job->at, one_class, gate_of);
    }
    for (const auto& [at, into_values] : constants) {
      if (one_class) {
        for (const auto& [into, c] : into_values) network_->add_constant(layer, into, c);
        continue;
      }
      // relu(flag) is 1 at the class and 0 elsewhere: the class's constants, exactly.
      Eigen::VectorXd out = Eigen::VectorXd::Zero(network_->width());
      for (const auto& [into, c] : into_values) out(into) += c;
      network_->add_unit(layer, network_->unit(Network::flag(at)), 0, out);
    }
    for (const Unit& u : units) {
      Eigen::VectorXd out = Eigen::VectorXd::Zero(readout_mlp ? 1 : network_->width());
      out(readout_mlp ? 0 : u.into) = u.weight;
      network_->add_unit(layer, u.pre, u.bias, out);
    }
    widest_units_ = std::max(widest_units_, network_->units(layer));
  }

  /// Switches a unit off away from class `at` (pre - G (1 - flag), G above |pre| anywhere).
  template <class Bound>
  void gate(Unit& u, Class at, bool one_class, const Bound& bound) {
    if (one_class) return;  // a network that runs at one class only
    const double g = bound(u.pre) + std::abs(u.bias);
    u.pre(Network::flag(at)) += g;
    u.bias -= g;
  }

  // ------------------------------------------------------------------ readout and measuring

  /// The readout MLP computes the target's value, one job per additive term; the terms that
  /// read tokens by position are one job, since the positions' mean holds their sum only, and
  /// it is their sum that must be a function of it (dot(c, x[1]) + dot(c, x[2]) is, neither
  /// term alone is).
  void readout() {
    std::vector<Job> jobs;
    std::vector<Value> by_position;
    for (const auto& [coefficient, term] : additive_terms(leveled(output_))) {
      if (detail::reads_position(term)) {
        by_position.push_back(coefficient == 1 ? term
                                               : theorems::operation(K::kMul, {theorems::number(coefficient), term}));
        continue;
      }
      jobs.push_back(readout_job(term, coefficient, 0));
      jobs.back().what = "the term " + theorems::to_text(term) + " of the target's value";
    }
    if (!by_position.empty()) {
      const Value sum = theorems::sum_of(std::move(by_position));
      jobs.push_back(readout_job(sum, 1, 0));
      jobs.back().what = "the terms " + theorems::to_text(sum) + " of the target's value";
    }
    ffn(network_->config().layers(), jobs, {}, true);
  }

  /// A job at the readout computing c times `e`, an expression in what the readout holds.
  Job readout_job(const Value& e, double c, long into) {
    const targets::Evaluator* parameters = evaluator_.get();
    const long count = tokens_;
    const long width = network_->width();
    const auto values = values_[1];
    const auto components = components_[1];
    const auto fetched = fetched_x_;
    const auto values_fetched = fetched_value_;
    const std::vector<long> by_position = positions_held_[1];
    const Positions positions = positions_;
    Job part;
    part.at = Class::kReadout;
    part.into = into;
    std::set<long> part_read;
    collect_coordinates(e, part_read);
    part.inputs.assign(part_read.begin(), part_read.end());
    const std::vector<long> part_inputs = part.inputs;
    const Value t = e;
    if (detail::reads_position(e)) require_through_sum(e, "the readout MLP");
    part.f = [=](const Eigen::VectorXd& z_in) {
      Eigen::VectorXd z = Eigen::VectorXd::Zero(width);
      for (std::size_t i = 0; i < part_inputs.size(); ++i) z(part_inputs[i]) = z_in(static_cast<long>(i));
      detail::TermInputs in;
      in.parameters = parameters;
      in.tokens_count = count;
      if (!by_position.empty()) {
        Eigen::VectorXd mean(static_cast<long>(by_position.size()));
        for (std::size_t j = 0; j < by_position.size(); ++j) mean(static_cast<long>(j)) = z(by_position[j]);
        for (const auto& [ref, p] : positions) in.positioned[ref] = mean;
      }
      in.coordinate = [&](long unit) { return z(unit); };  // computed by the last layer's FFN
      in.reference = [&](const Value::Held& h) {
        detail::TermValue value;
        if (h.component < 0) {
          value.s = values.at(h.quantity).dot(z);
          return value;
        }
        const std::vector<Form>& forms = components.at({h.quantity, h.component});
        value.vector = forms.size() > 1;
        value.v.resize(static_cast<long>(forms.size()));
        for (std::size_t r = 0; r < forms.size(); ++r) value.v(static_cast<long>(r)) = forms[r].dot(z);
        value.s = value.v(0);
        return value;
      };
      in.selection = [&](const Value& select) {
        const auto& selected = std::get<Value::Selected>(select.what);
        const int id = selected.quantity;
        if (const auto value = values_fetched.find(id); value != values_fetched.end()) return z(value->second);
        const std::vector<long>& x = fetched.at(id);
        detail::TermInputs body = in;
        Eigen::VectorXd token(static_cast<long>(x.size()));
        for (std::size_t j = 0; j < x.size(); ++j) token(static_cast<long>(j)) = z(x[j]);
        body.tokens[selected.index] = token;
        return detail::evaluate(select.args[0], body).s;
      };
      return c * detail::evaluate(t, in).s;
    };
    return part;
  }

  /// Two FFN levels at the readout: a term that is not one ridge level (a function of a
  /// maximum of held values, the maximum of |E|'s two readings) has its innermost maxima and
  /// minima computed first by the last layer's FFN at the readout, each into a coordinate.
  std::vector<Job> first_level(long layer) {
    std::vector<Job> jobs;
    const Eigen::MatrixXd states = calibration_states(layer);  // the readout's, after attention
    const auto among = [](const Value& e, const auto& list, const auto& value_of) {
      return std::any_of(list.begin(), list.end(),
                         [&](const auto& x) { return theorems::same_value(value_of(x), e); });
    };
    for (const auto& [coefficient, term] : additive_terms(output_)) {
      // Terms read by position are read through their sum, as one (readout()).
      if (detail::reads_position(term) || one_level(term, states)) continue;
      std::vector<const Value*> extrema;
      innermost_extrema(term, extrema);
      for (const Value* e : extrema) {
        if (among(*e, first_level_, [](const auto& x) -> const Value& { return x.first; }) ||
            among(*e, pending_, [](const Value& x) -> const Value& { return x; }))
          continue;
        if (reads_pending(*e)) continue;  // its inputs are this FFN's own outputs: a third level
        const std::string text = theorems::to_text(*e);
        Job job = readout_job(*e, 1, -1);
        job.what = "the first level " + text;
        job.placed = [this, extremum = *e](long into) { first_level_.emplace_back(extremum, into); };
        pending_.push_back(*e);
        jobs.push_back(std::move(job));
        described_.push_back(fmt::format("FFN {} at the readout: computes {}, which the readout "
                                         "MLP reads",
                                         layer + 1, text));
      }
    }
    return jobs;
  }

  /// Whether a readout term is one FFN level's function, probed at the readout's calibration
  /// states as the readout MLP will read it.
  bool one_level(const Value& term, const Eigen::MatrixXd& states) {
    Job job = readout_job(term, 1, 0);
    if (job.inputs.empty()) return true;
    std::vector<Eigen::VectorXd> data;
    for (long c = 0; c < states.cols(); ++c) {
      Eigen::VectorXd z(static_cast<long>(job.inputs.size()));
      for (std::size_t i = 0; i < job.inputs.size(); ++i) z(static_cast<long>(i)) = states(job.inputs[i], c);
      data.push_back(z);
    }
    std::string why;
    const Eigen::VectorXd scale = Eigen::VectorXd::Ones(static_cast<long>(job.inputs.size()));
    return detail::decompose(job.f, scale, derive_seed(options_.seed, {43}), why, data).has_value();
  }

  static void innermost_extrema(const Value& n, std::vector<const Value*>& out) {  // NOLINT(misc-no-recursion)
    const std::size_t before = out.size();
    for (const Value& a : n.args) innermost_extrema(a, out);
    const auto* combined = std::get_if<Value::Combined>(&n.what);
    if (out.size() == before && combined != nullptr && combined->op != targets::ReduceOp::kSum)
      out.push_back(&n);
  }

  /// Whether `n` reads a value some job of the current layer is still to compute.
  bool reads_pending(const Value& n) const {  // NOLINT(misc-no-recursion)
    if (const auto* held = std::get_if<Value::Held>(&n.what);
        held != nullptr && pending_values_.count(held->quantity) != 0)
      return true;
    return std::any_of(n.args.begin(), n.args.end(), [&](const Value& a) { return reads_pending(a); });
  }

  /// `n` with each first-level extremum replaced by its coordinate.
  Value leveled(const Value& n) const {  // NOLINT(misc-no-recursion)
    for (const auto& [extremum, unit] : first_level_) {
      if (theorems::same_value(n, extremum)) return Value{Value::Coordinate{unit}, {}};
    }
    Value out = n;
    for (Value& a : out.args) a = leveled(a);
    return out;
  }

  /// The additive terms of an expression, with their numeric coefficients.
  static std::vector<std::pair<double, Value>> additive_terms(const Value& n) {  // NOLINT(misc-no-recursion)
    std::vector<std::pair<double, Value>> out;
    auto add = [&](const Value& a, double c) {
      for (auto& [k, t] : additive_terms(a)) out.emplace_back(c * k, std::move(t));
    };
    const auto* combined = std::get_if<Value::Combined>(&n.what);
    if (n.is(K::kAdd) || n.is(K::kSub)) {
      add(n.args[0], 1);
      add(n.args[1], n.is(K::kSub) ? -1 : 1);
    } else if (n.is(K::kNeg)) {
      add(n.args[0], -1);
    } else if (combined != nullptr && combined->op == targets::ReduceOp::kSum) {
      for (const Value& a : n.args) add(a, 1);
    } else if (n.is(K::kMul) && n.args[0].is(K::kNumber)) {
      add(n.args[1], n.args[0].operation()->number);
    } else if (n.is(K::kNumber) && n.operation()->number == 0) {
    } else {
      out.emplace_back(1.0, n);
    }
    return out;
  }

  /// The readout's coordinates an expression reads; Failure where a value is not at the readout.
  void collect_coordinates(const Value& n, std::set<long>& out) const {  // NOLINT(misc-no-recursion)
    if (const auto* coordinate = std::get_if<Value::Coordinate>(&n.what)) {
      out.insert(coordinate->unit);
      return;
    }
    if (const Node* op = n.operation(); op != nullptr && detail::positioned(*op)) {
      if (positions_held_[1].empty()) {
        throw Failure("engine", fmt::format("the readout MLP reads {}, which no step fetches to "
                                            "the readout",
                                            targets::to_text(*op)));
      }
      out.insert(positions_held_[1].begin(), positions_held_[1].end());
      return;
    }
    if (const auto* held = std::get_if<Value::Held>(&n.what)) {
      std::vector<Form> forms;
      if (held->component >= 0) {
        const auto it = components_[1].find({held->quantity, held->component});
        if (it != components_[1].end()) forms = it->second;
      } else {
        const auto it = values_[1].find(held->quantity);
        if (it != values_[1].end()) forms.push_back(it->second);
      }
      if (forms.empty()) {
        // The plan's information sets hold it at the readout (the planner oracle agrees with
        // them), so the carry missing here is the constructor's.
        throw Failure("constructor",
                      fmt::format("the readout MLP reads {}, which the plan carries to the readout "
                                  "but no step of this construction brings there",
                                  program_.quantities[static_cast<std::size_t>(held->quantity)].name));
      }
      for (const Form& form : forms) {
        for (long i = 0; i < form.size(); ++i) {
          if (form(i) != 0) out.insert(i);
        }
      }
      return;
    }
    if (const auto* selected = std::get_if<Value::Selected>(&n.what)) {
      const int id = selected->quantity;
      if (const auto value = fetched_value_.find(id); value != fetched_value_.end()) {
        out.insert(value->second);
        return;
      }
      const auto it = fetched_x_.find(id);
      if (it == fetched_x_.end()) {
        throw Failure("constructor", fmt::format("the selection {} is read at a token the readout "
                                                 "did not fetch itself",
                                                 theorems::to_text(n.args[0])));
      }
      out.insert(it->second.begin(), it->second.end());
      return;
    }
    for (const Value& a : n.args) collect_coordinates(a, out);
  }

  void measure(Construction& out) {
    const numeric::ModelConfig& c = network_->config();
    const long count = options_.samples;
    Eigen::MatrixXd x(d_, count * tokens_);
    Eigen::VectorXd y(count);
    numeric::draw_samples(*task_, options_.seed, 0, count, x, y);
    numeric::Workspace<double> ws(c, kBatch);
    Eigen::VectorXd predictions(count);
    for (long first = 0; first < count; first += kBatch) {
      const long n = std::min(kBatch, count - first);
      ws.forward(network_->model(), x.data() + first * tokens_ * d_, n, predictions.data() + first);
    }
    const double mean = y.mean();
    out.target_variance = (y.array() - mean).square().mean();
    const double mse = (predictions - y).squaredNorm() / static_cast<double>(count);
    out.nmse = out.target_variance > 0 ? mse / out.target_variance : mse;
  }

  const targets::TargetSpec& spec_;
  const theorems::Plan& plan_;
  const theorems::Program& program_;
  ConstructOptions options_;
  long tokens_ = core::defaults::kTokens;
  long d_ = core::defaults::kTokenDim;
  std::unique_ptr<targets::Evaluator> evaluator_;
  std::unique_ptr<numeric::Task> task_;
  std::unique_ptr<Network> network_;
  std::map<std::string, int> by_name_;
  Value output_;
  std::set<int> selected_;
  std::map<int, const Value*> selections_;  ///< into output_
  std::map<int, Score> scores_;
  std::map<std::string, std::optional<std::pair<Eigen::VectorXd, double>>> affine_;
  std::map<std::string, long> feature_layer_;
  std::map<std::string, std::function<double(const Eigen::VectorXd&)>> feature_functions_;
  std::map<std::string, detail::RidgeSum> feature_known_;  ///< features written exactly
  std::vector<std::string> content_keys_;  ///< the content features, in order
  std::vector<double> content_centres_;    ///< their hats' centres on u.x
  std::map<std::string, long> features_;
  std::array<std::map<int, Form>, 2> values_;
  /// A mean's values, by (quantity, component): a form per entry.
  std::array<std::map<std::pair<int, int>, std::vector<Form>>, 2> components_;
  std::map<int, std::vector<long>> fetched_x_;
  std::map<int, long> fetched_value_;  ///< a selection whose body is affine: its value's coordinate
  std::set<int> needed_at_readout_;     ///< the quantities whose values the output reads
  std::map<int, long> made_in_;  ///< the layer that made each retrieved value (-1: positions)
  std::map<int, int> chained_;       ///< a k-th largest's step -> the step below it
  std::map<int, std::vector<long>> undefined_at_;  ///< a masked quantity -> holders with no candidate
  std::set<int> pending_values_;  ///< values the FFN of the layer being built completes
  std::vector<Value> pending_;  ///< first-level extrema asked of the last layer's FFN
  std::vector<std::pair<Value, long>> first_level_;  ///< ... and the coordinates they were put in
  /// A chain's step masked by content at the readout (rank_mask, threshold_jobs).
  struct Threshold {
    int id = 0;      ///< the step whose score is the threshold
    int next = 0;    ///< the step it masks
    long held = 0;   ///< the readout's coordinate holding the score
    Form candidate;  ///< the candidate's score, over the stream
    std::string step;
  };
  std::vector<Threshold> thresholds_;  ///< this layer's, for its FFN
  std::map<int, std::vector<long>> threshold_masks_;  ///< a chain's step -> its hats' coordinates
  std::map<int, long> rank_masks_;   ///< a chain's step -> the flag its candidates are masked by
  std::map<int, long> own_score_;    ///< a retrieval -> the coordinate of its fetched score
  std::map<int, Form> candidate_score_;  ///< a retrieval -> its score as the candidate's form
  Positions positions_;  ///< each token read by position
  std::map<std::set<long>, long> indicators_;  ///< a set of positions -> its indicator coordinate
  std::vector<long> one_hot_;                  ///< position p's one-hot coordinate at p - 1
  std::array<std::vector<long>, 2> positions_held_;  ///< P's mean of x, at each class
  long current_layer_ = 0;              ///< 1-based, while building
  std::vector<std::string> described_;
  long fewest_knots_ = 0;
  long widest_units_ = 0;
};

}  // namespace

Construction construct(const targets::TargetSpec& spec, const theorems::Plan& plan,
                       const ConstructOptions& options) {
  options.validate();
  if (!plan.program) throw std::invalid_argument("construct(): a plan without its program");
  Lowering lowering(spec, plan, options);
  return lowering.run();
}

}  // namespace infoflow::construct
