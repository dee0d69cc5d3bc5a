// R1's score tests, matched on the syntax tree.
#include "score_tests.hpp"

#include <algorithm>

namespace infoflow::theorems::detail {

namespace {

using targets::Node;
using K = targets::Node::Kind;

/// The token x[v] itself, no offset.
bool token_at(const Node& n, const std::string& v) {
  return n.kind == K::kRef && n.name == "x" && n.index == v && n.offset == 0 && n.position == 0 &&
         n.position_name.empty();
}

/// A random parameter (a, A[i], A[3]): the only operand of dot or bilinear that a checked formula
/// lets read no token.
bool is_parameter(const Node& n) {
  return n.kind == K::kRef && n.name != "x";
}

/// `name(...)` with `arity` operands.
bool call_of(const Node& n, const char* name, std::size_t arity) {
  return n.kind == K::kCall && n.name == name && n.args.size() == arity;
}

/// Every token the term reads is x[v] itself (no offset, no fixed position), and it reduces over
/// no tokens (a range of parameters, max(i = 1..2) dot(a[i], x[v]), is a finite combination): a
/// function of the one token x[v] and of parameters.
bool reads_only(const Node& n, const std::string& v) {
  if (n.kind == K::kReduce &&
      std::any_of(n.binders.begin(), n.binders.end(),
                  [](const targets::Binder& b) { return !b.has_range; }))
    return false;
  if (n.kind == K::kRef && n.name == "x") return token_at(n, v);
  return std::all_of(n.args.begin(), n.args.end(),
                     [&](const Node& a) { return reads_only(a, v); });
}

bool reads_a_token(const Node& n) {
  if (n.kind == K::kRef) return n.name == "x";
  return std::any_of(n.args.begin(), n.args.end(), reads_a_token);
}

}  // namespace

bool token_wise(const Node& term, const std::string& v) {
  return reads_only(term, v) && reads_a_token(term);
}

bool linear_in_tokens(const Node& term, const std::string& v) {
  if (token_at(term, v)) return true;
  if (!call_of(term, "dot", 2)) return false;
  const Node& a = term.args[0];
  const Node& b = term.args[1];
  return (token_at(a, v) && is_parameter(b)) || (token_at(b, v) && is_parameter(a));
}

bool query_key_product(const Node& term, const std::string& v, const std::string& at) {
  if (linear_in_tokens(term, v)) return true;
  if (at.empty()) return false;
  const auto the_pair = [&](const Node& a, const Node& b) {
    return (token_at(a, v) && token_at(b, at)) || (token_at(a, at) && token_at(b, v));
  };
  if (call_of(term, "dot", 2) && the_pair(term.args[0], term.args[1])) return true;
  if (call_of(term, "bilinear", 3) && is_parameter(term.args[0]) &&
      the_pair(term.args[1], term.args[2]))
    return true;
  // u * w: a product of three or more factors has one of its own on the left, no linear form.
  if (term.kind != K::kMul) return false;
  const Node& left = term.args[0];
  const Node& right = term.args[1];
  return (linear_in_tokens(left, v) && linear_in_tokens(right, at)) ||
         (linear_in_tokens(left, at) && linear_in_tokens(right, v));
}

bool encoded_query_key_product(const Node& term, const std::string& v, const std::string& at) {
  if (query_key_product(term, v, at) || token_wise(term, v)) return true;
  if (at.empty()) return false;
  // A function of the query token alone shifts every score alike; a product of a function of
  // each is phi(x[v]) psi(x[at]), a key feature times a query feature.
  if (token_wise(term, at)) return true;
  if (term.kind != K::kMul) return false;
  // Its factors in any order (a_s b_t c_s as a_s c_s b_t): each a function of one of the two.
  const std::vector<const Node*> parts = targets::product_parts(term);
  return std::all_of(parts.begin(), parts.end(),
                     [&](const Node* p) { return token_wise(*p, v) || token_wise(*p, at); });
}

bool scores_from_encoded_tokens(const std::vector<const Factor*>& terms, const std::string& v,
                            const std::string& at, bool selection) {
  // A monotone function of such a score alone is extreme where the score is (either way, so a
  // sign the terms dropped does not matter): attention retrieves by the score itself. Where
  // the token matters and not only the value (a `by` selection), it must be strictly monotone:
  // relu is flat below 0, where its minimum (or a maximum of all-negative scores) ties.
  if (scoring_terms(terms) == 1) {
    const Node* score = single_score(terms)->term;  // null: a message
    const std::vector<const char*> monotone_functions =
        selection ? std::vector<const char*>{"exp", "tanh"}
                  : std::vector<const char*>{"exp", "tanh", "relu"};
    for (const char* monotone : monotone_functions) {
      if (score != nullptr && call_of(*score, monotone, 1) &&
          query_key_product(score->args[0], v, at))
        return true;
    }
  }
  return std::all_of(terms.begin(), terms.end(), [&](const Factor* f) {
    return f->constraint != nullptr || f->message >= 0 || encoded_query_key_product(*f->term, v, at);
  });
}

}  // namespace infoflow::theorems::detail
