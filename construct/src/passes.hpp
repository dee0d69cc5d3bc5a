#ifndef INFOFLOW_CONSTRUCT_PASSES_HPP_
#define INFOFLOW_CONSTRUCT_PASSES_HPP_

// The lowering's passes (registry.cpp puts them in order) and the helpers one pass's file lends
// another. Every function reads and writes the shared state, Lowering.

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "lowering_state.hpp"

namespace infoflow::construct::detail {

/// One pass: `run` over the state, once or once per layer (state.current_layer set).
struct Pass {
  const char* name;
  bool per_layer;
  void (*run)(Lowering&);
  const char* does;
};
/// The passes, in the order they run (registry.cpp).
const std::vector<Pass>& registered_passes();

// ---------------------------------------------------------------- the passes, in order
void set_up(Lowering& st);         // set_up.cpp
void analyse(Lowering& st);        // analyse.cpp
void stream_layout(Lowering& st);  // stream_layout.cpp
void encoder(Lowering& st);        // features.cpp
void attention(Lowering& st);      // attention.cpp
void layer_ffn(Lowering& st);      // ffn.cpp
void readout(Lowering& st);        // readout.cpp
void measure(Lowering& st);        // measure.cpp

// ---------------------------------------------------------------- set_up.cpp
/// The network the plan asks for: the plan's heads, E and n, the target's T and d, the widths.
numeric::ModelConfig asked_config(const Lowering& st);
/// The target's value as an expression in the quantities' values (Program::values).
theorems::Value resolved(const Lowering& st, const targets::Node& n);
theorems::Value resolved(const Lowering& st, const theorems::Value& v);
/// `v` with each reduction over ranges of its own unrolled, as far as they are.
theorems::Value ranges_unrolled(const Lowering& st, const theorems::Value& v);

// ---------------------------------------------------------------- analyse.cpp
/// Splits a term read at `v` (the candidate) and `u` (the holder) into its parts.
void split(Lowering& st, const theorems::FormTerm& t, const std::string& v, const std::string& u,
           Score& score, const std::string& step);
bool contains_reduction(const theorems::Value& v);
/// Whether `e` reads the tokens fetched by position through their sum only (probed: each
/// drawn at random against all of them replaced by their mean).
bool reads_through_sum(const Lowering& st, const theorems::Value& e);
/// Failure unless `e` reads the tokens fetched by position through their sum only.
void require_through_sum(const Lowering& st, const theorems::Value& e, const std::string& step);

// ---------------------------------------------------------------- features.cpp
/// Whether a piece is affine in x (cached in st.affine by its key).
bool affine_in_x(Lowering& st, const TokenFunction& piece);
void request_feature(Lowering& st, const TokenFunction& piece, long ffn_layer);
void request_content_features(Lowering& st, long ffn_layer);
/// The features computed at the input tokens by the FFN after layer `level` (0: the encoder).
std::vector<Job> feature_jobs(Lowering& st, long level);
/// The candidate's part of a score, a linear form over its stream.
Form candidate_form(Lowering& st, const Score& score, const std::string& step);
/// A token-wise function as a linear form of an input token's stream: its affine form in x, or
/// the coordinate the encoder or an FFN computed it into.
Form token_function_form(Lowering& st, const TokenFunction& piece);

// ---------------------------------------------------------------- means.cpp
void carry(Lowering& st, const theorems::PlanStep& s, Role& role);
/// Into `role`'s values at the readout, the global selections' values the input tokens fetched
/// in earlier layers and the readout holds not yet (the chosen token holds them, as all do).
void bring_selections(Lowering& st, Role& role, const std::string& step);

void fetch_positions(Lowering& st, const theorems::PlanStep& s, Class at, Role& role);
void mean(Lowering& st, const theorems::PlanStep& s, Class at, Role& role);
void spread(const Lowering& st, const theorems::PlanStep& s, Class at, const Role& gathered,
            std::map<long, std::array<Role, 2>>& heads);

// ---------------------------------------------------------------- masks.cpp
/// The quantity's index constraints as a mask on the candidates.
void mask(Lowering& st, int id, const theorems::Quantity& q, Role& role, const std::string& step);
void rank_mask(Lowering& st, const theorems::PlanStep& s, Class at, const Role& role, Role& twin);
/// The hats the FFN after `layer` computes for the chains masked by content.
std::vector<Job> threshold_jobs(Lowering& st, long layer);

// ---------------------------------------------------------------- ffn.cpp
/// Stream states of the calibration sequences (`sequences`, or as many as the options ask)
/// after `layer`'s attention.
Eigen::MatrixXd calibration_states(Lowering& st, long layer, long sequences = 0);
/// Whether column i of calibration_states(layer) is a token of class `at`.
bool column_at(const Lowering& st, long layer, long i, Class at);
/// The FFN after `layer` (the readout MLP for layer = L, the MLP encoder for kEncoder).
void ffn(Lowering& st, long layer, std::vector<Job> jobs,
         const std::vector<std::pair<long, std::optional<Class>>>& erasures, bool last,
         const std::vector<Clamp>& clamps = {});

// ---------------------------------------------------------------- readout.cpp
/// The last layer's FFN's jobs at the readout: the innermost extrema the readout MLP reads.
std::vector<Job> first_level(Lowering& st, long layer);

}  // namespace infoflow::construct::detail

#endif  // INFOFLOW_CONSTRUCT_PASSES_HPP_
