// The searches over architectures: the smallest efficient one (Engine::search), and the
// conditions on an unset integer (Engine::condition).
#include "infoflow/theorems/engine.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <tuple>

#include <fmt/format.h>

#include "infoflow/core/progress.hpp"

#include "pipeline.hpp"
#include "pricer.hpp"

namespace infoflow::theorems {

using detail::Pricer;

Search Engine::search(const Target& target, const Architecture& base, long max_layers,
                      long max_heads) {
  Search out;
  out.max_layers = max_layers;
  out.max_heads = max_heads;
  Architecture a = base;
  if (a.head_dim == 0) a.head_dim = base.head_dim_of(0);  // fixed n: every head count is allowed
  // The verdicts before the placement depend on the program and the positional encoding alone.
  const auto can_plan = [&](const std::shared_ptr<const Program>& program) {
    detail::Planning verdicts(detail::passes(), *this, program, a, node_cap_);
    detail::plan_with(verdicts, &detail::kPlacementPass);
    return !verdicts.done;
  };
  // The programs tried in turn (plan()'s reading choice takes the second where the first is not
  // efficient).
  std::vector<const Program*> programs;
  if (can_plan(target.program)) programs.push_back(target.program.get());
  if (target.alternative && can_plan(target.alternative))
    programs.push_back(target.alternative.get());
  const bool plannable = !programs.empty();
  // Prices per layer for the deepest architecture searched (n is fixed, so they agree).
  Architecture deepest = a;
  deepest.heads.assign(static_cast<std::size_t>(max_layers), 1);
  const Pricer pricer{*this, deepest};
  const detail::PriceModel prices = plannable ? pricer.model() : detail::PriceModel{};
  auto dominates = [](const std::vector<long>& x, const std::vector<long>& y) {
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (x[i] < y[i]) return false;
    }
    return true;
  };
  auto smaller = [](const Architecture& x, const Architecture& y) {
    return std::make_tuple(x.widest(), x.layers(), x.total_heads(), x.heads) <
           std::make_tuple(y.widest(), y.layers(), y.total_heads(), y.heads);
  };
  const auto key = [](const std::vector<long>& h) {
    long total = 0;
    for (const long x : h) total += x;
    return std::make_tuple(total, *std::max_element(h.begin(), h.end()), h);
  };
  // Architectures whose search reached the cap: neither efficient nor not. Where one of them
  // could be an answer printed (the smallest, or the fewest heads at its depth), the search
  // says so instead of answering.
  std::vector<Architecture> capped;
  bool answer_capped = false;
  long to_try = 0;  // architectures, for the progress line
  for (long layers = 1, count = max_heads; layers <= max_layers; ++layers, count *= max_heads)
    to_try += count;
  for (long layers = 1; layers <= max_layers; ++layers) {
    std::vector<std::vector<long>> efficient;  // known efficient (monotone: more heads help)
    std::vector<std::vector<long>> not_efficient;
    std::optional<std::vector<long>> fewest;
    std::optional<std::vector<long>> narrowest;
    std::vector<long> heads(static_cast<std::size_t>(layers), 1);
    while (true) {
      ++out.architectures;
      core::progress::set("architectures searched", out.architectures, to_try);
      bool is_efficient = false;
      if (plannable) {
        if (std::any_of(efficient.begin(), efficient.end(),
                        [&](const auto& e) { return dominates(heads, e); })) {
          is_efficient = true;
        } else if (std::none_of(not_efficient.begin(), not_efficient.end(),
                                [&](const auto& e) { return dominates(e, heads); })) {
          a.heads = heads;
          bool reached_cap = false;
          for (const Program* program : programs) {
            const detail::PlacementResult r =
                detail::place(*program, a, prices, true, node_cap_);
            is_efficient = r.best && r.best->cost.slope == 0;
            if (is_efficient) break;
            reached_cap = reached_cap || r.truncated;
          }
          if (is_efficient) {
            efficient.push_back(heads);
          } else if (reached_cap) {
            capped.push_back(a);
          } else {
            not_efficient.push_back(heads);
          }
        }
      }
      if (is_efficient) {
        if (!fewest || key(heads) < key(*fewest)) fewest = heads;
        const auto narrow = [&](const std::vector<long>& h) {
          const auto [total, widest, all] = key(h);
          return std::make_tuple(widest, total, all);
        };
        if (!narrowest || narrow(heads) < narrow(*narrowest)) narrowest = heads;
      }
      std::size_t i = 0;
      while (i < heads.size() && heads[i] == max_heads) heads[i++] = 1;
      if (i == heads.size()) break;
      ++heads[i];
    }
    for (const Architecture& c : capped) {
      if (c.layers() == layers && (!fewest || key(c.heads) < key(*fewest))) answer_capped = true;
    }
    if (fewest) {
      a.heads = *fewest;
      out.per_depth.push_back(plan(target, a));
      a.heads = *narrowest;
      if (!out.smallest || smaller(a, out.smallest->architecture)) {
        out.smallest = *narrowest == *fewest ? out.per_depth.back() : plan(target, a);
      }
    }
  }
  for (const Architecture& c : capped) {
    if (!out.smallest || smaller(c, out.smallest->architecture)) answer_capped = true;
  }
  out.capped = static_cast<long>(capped.size());
  for (const Plan& p : out.per_depth) out.capped += p.truncated ? 1 : 0;
  if (out.smallest && out.smallest->truncated &&
      std::none_of(out.per_depth.begin(), out.per_depth.end(), [&](const Plan& p) {
        return p.architecture.heads == out.smallest->architecture.heads;
      }))
    ++out.capped;
  if (answer_capped) {
    out.undecided = fmt::format(
        "search cap reached: the placement search stopped at its cap of {} nodes on {} of the {} "
        "architectures (the first {}), any of which may be the answer",
        node_cap_, capped.size(), out.architectures, capped.front().heads_text());
    out.smallest.reset();
    out.per_depth.clear();
  }
  if (!plannable) {  // no rule covers the target: no answer, not "none is efficient"
    a.heads = {1};
    if (const Plan any = plan(target, a); any.verdict == Verdict::kOutsideFramework)
      out.undecided = any.reason;
  }
  return out;
}

Condition Engine::condition(const Target& target, const std::string& name,
                            const Architecture& base, long layers, long max_heads) {
  Condition out;
  out.name = name;
  out.layers = layers;
  out.max_heads = max_heads;
  out.limit = 2 * layers * max_heads + 2;  // every quantity takes a slot: no more fit
  std::map<long, Target> by_value;
  auto efficient = [&](long value, const std::vector<long>& heads) {
    auto it = by_value.find(value);
    if (it == by_value.end()) {
      targets::Bindings b = target.bindings;
      b[name] = value;
      it = by_value
               .emplace(value, Target(target.name, target.formula, b, target.family,
                                      target.is_family, target.token_dim))
               .first;
    }
    Architecture a = base;
    if (a.head_dim == 0) a.head_dim = base.head_dim_of(0);
    a.heads = heads;
    return plan(it->second, a).verdict == Verdict::kEfficient;
  };
  std::vector<long> heads(static_cast<std::size_t>(layers), 1);
  while (true) {
    long cap = 0;
    while (cap < out.limit && efficient(cap + 1, heads)) ++cap;
    if (cap + 2 <= out.limit && efficient(cap + 2, heads)) out.monotone = false;
    out.capacity.emplace_back(heads, cap);
    std::size_t i = 0;
    while (i < heads.size() && heads[i] == max_heads) heads[i++] = 1;
    if (i == heads.size()) break;
    ++heads[i];
  }
  if (!out.monotone) return out;
  auto cap_at = [&](const std::vector<long>& h) {
    for (const auto& [x, c] : out.capacity) {
      if (x == h) return c;
    }
    return -1L;
  };
  auto holds = [&](const std::function<long(const std::vector<long>&)>& form) {
    return std::all_of(out.capacity.begin(), out.capacity.end(), [&](const auto& row) {
      const long predicted = std::min(form(row.first), out.limit);
      return std::max(predicted, 0L) == row.second;
    });
  };
  auto h_name = [](std::size_t l) { return "h_" + std::to_string(l + 1); };
  const std::vector<long> ones(static_cast<std::size_t>(layers), 1);
  // A linear form, from the unit steps at (1, ..., 1).
  std::vector<long> slope;
  long constant = cap_at(ones);
  for (std::size_t l = 0; l < ones.size(); ++l) {
    std::vector<long> up = ones;
    up[l] = 2;
    slope.push_back(cap_at(up) - cap_at(ones));
    constant -= slope.back();
  }
  if (holds([&](const std::vector<long>& h) {
        long v = constant;
        for (std::size_t l = 0; l < h.size(); ++l) v += slope[l] * h[l];
        return v;
      })) {
    std::string form;
    for (std::size_t l = 0; l < slope.size(); ++l) {
      if (slope[l] == 0) continue;
      form += (form.empty() ? "" : " + ") + (slope[l] == 1 ? "" : std::to_string(slope[l]) + "*") + h_name(l);
    }
    if (constant != 0 || form.empty())
      form += (form.empty() ? "" : constant > 0 ? " + " : " - ") + std::to_string(form.empty() ? constant : std::abs(constant));
    out.closed_form = constant >= out.limit && form == std::to_string(constant)
                          ? "every " + name + " tried"
                          : name + " <= " + form;
    if (cap_at(ones) == 0 && std::all_of(slope.begin(), slope.end(), [](long a) { return a == 0; }))
      out.closed_form = "no " + name;
    return out;
  }
  // The smallest head count over a set of layers.
  for (unsigned set = 1; set < (1u << layers); ++set) {
    const auto form = [&](const std::vector<long>& h) {
      long v = std::numeric_limits<long>::max();
      for (std::size_t l = 0; l < h.size(); ++l) {
        if (set & (1u << l)) v = std::min(v, h[l]);
      }
      return v;
    };
    if (holds(form)) {
      std::vector<std::string> parts;
      for (std::size_t l = 0; l < static_cast<std::size_t>(layers); ++l) {
        if (set & (1u << l)) parts.push_back(h_name(l) + " >= " + name);
      }
      out.closed_form = fmt::format("{}", fmt::join(parts, " and "));
      return out;
    }
  }
  return out;
}

std::vector<Condition> conditions_by_depth(Engine& engine, const targets::TargetSpec& spec,
                                           const std::string& name, const Architecture& base) {
  targets::TargetSpec probe = spec;
  probe.set[name] = 1;  // a value to compile with; the conditions try every one
  const Target target = to_target(probe);
  std::vector<Condition> out;
  for (long layers = 1; layers <= 3; ++layers) {
    out.push_back(engine.condition(target, name, base, layers, 4));
  }
  return out;
}

}  // namespace infoflow::theorems
