#include "infoflow/report/derivation_report.hpp"

#include <algorithm>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "infoflow/report/catalogue_report.hpp"
#include "infoflow/symbolic/canonical.hpp"
#include "infoflow/symbolic/symbols.hpp"

namespace infoflow::report {

namespace {

using symbolic::Format;
using symbolic::Landau;

/// The name a formula given on the command line gets without --name.
constexpr const char* kUnnamed = "formula";

/// T at its value where the target sets one: the engine keeps T symbolic (a verdict is about
/// growth in T), the printed rate is the one at that T.
GiNaC::exmap T_as_set(const theorems::Target& t) {
  GiNaC::exmap map;
  if (const auto it = t.bindings.find("T"); it != t.bindings.end())
    map[symbolic::SymbolRegistry::standard().seq_len()] = it->second;
  return map;
}

std::string set_text(const std::vector<std::string>& parts) {
  if (parts.empty()) return "{}";
  if (parts.size() == 1 && parts.front().front() == '{') return parts.front();
  std::string out;
  bool plain = true;  // layer 1: the fetched tokens themselves
  for (const std::string& p : parts) plain = plain && p.rfind("I(", 0) != 0 && p.front() != '{';
  if (plain) return fmt::format("{{{}}}", fmt::join(parts, ", "));
  for (const std::string& p : parts) out += (out.empty() ? "" : " ∪ ") + p;
  return out;
}

/// The target's T where it sets one.
std::optional<long> T_of(const theorems::Target& t) {
  const auto T = t.bindings.find("T");
  if (T == t.bindings.end()) return std::nullopt;
  return T->second;
}

/// The plan's rate at the target's T where it sets one. The decoding floor applies at that T,
/// which the rate in T (compared as T grows) leaves out: eps^(1 - T/8) is O(eps^-1) at T = 8.
std::optional<symbolic::Rate> rate_at_T(const theorems::Target& t, const theorems::Plan& p) {
  const auto T = T_of(t);
  if (!T) return std::nullopt;
  return p.rate_at(*T);
}

/// A set's size, at the target's T where it sets one and the set names more positions than
/// there are: "4; 6 as T grows".
std::string size_text(const theorems::Target& t, const GiNaC::ex& size) {
  const std::string in_T = symbolic::canonical(size);
  const auto T = T_of(t);
  if (!T) return in_T;
  const std::string at = symbolic::canonical(theorems::size_at(size, *T));
  return at == in_T ? in_T : fmt::format("{}; {} as T grows", at, in_T);
}

std::string rate_text(const theorems::Target& t, const theorems::Plan& p) {
  if (!p.priced()) return "no rate";
  // The rate at the target's T first, where it sets one; in T beside it (the verdict's growth).
  const Landau landau = p.landau();
  const std::string in_T = p.rate().print(landau);
  std::string out = in_T;
  std::string beside;
  if (const auto at = rate_at_T(t, p)) {
    const std::string at_T = at->print(landau);
    if (at_T != in_T) {
      out = fmt::format("{} at T = {}", at_T, t.bindings.find("T")->second);
      beside = "in T: " + in_T;
    }
  }
  const std::string general = p.general_rate().print(landau);
  if (general != in_T) beside += (beside.empty() ? "" : "; ") + ("in d, E, n: " + general);
  if (!beside.empty()) out += " (" + beside + ")";
  if (!p.general_condition.empty()) out += " (while " + p.general_condition + ")";
  return out;
}

/// "FFN at the readout decodes 4 positions (of 6 as T grows: ...)  [eps^-(1), entry]", at the
/// target's T where it sets one: a set of T tokens holds at most T positions.
std::string decoding_line(const theorems::Target& t, const theorems::Decoding& d,
                          const GiNaC::ex& floor) {
  GiNaC::ex size = d.size;
  GiNaC::ex exponent = d.exponent;
  std::string capped;
  if (const auto T = T_of(t); T && theorems::size_at(d.size, *T) != d.size) {
    size = theorems::size_at(d.size, *T);
    exponent = d.exponent_at(*T);
    if (GiNaC::is_a<GiNaC::numeric>(exponent) && GiNaC::is_a<GiNaC::numeric>(floor) &&
        GiNaC::ex_to<GiNaC::numeric>(exponent) < GiNaC::ex_to<GiNaC::numeric>(floor))
      exponent = floor;
    capped = fmt::format(" (of {} as T grows: T = {} tokens hold {} at most)",
                         symbolic::canonical(d.size), *T, *T);
  }
  return fmt::format("    FFN at the {} decodes {} positions{}  [eps^-({}), {}]\n",
                     theorems::to_text(d.where), symbolic::canonical(size), capped,
                     symbolic::canonical(exponent), d.entry);
}

/// What a lower-bound plan prints beside its rate: the best upper bound the rules give on the
/// same architecture, and what decides it. Nothing for an upper bound.
std::string upper_bound_text(const theorems::Target& t, const theorems::Plan& p,
                             const std::string& indent) {
  if (p.kind != theorems::Kind::kLower || !p.upper) return "";
  return fmt::format("{}best upper bound the rules give: M = {}\n{}  dominant: {}\n", indent,
                     rate_text(t, *p.upper), indent, p.upper->dominant);
}

/// "\newline $M = O(...)$ at $T = 8$,\newline in $T$: $O(...)$", with Omega for a lower bound.
std::string rate_latex(const theorems::Target& t, const theorems::Plan& p) {
  const std::string in_T = p.rate().print(p.landau(), Format::kLatex);
  const auto at_rate = rate_at_T(t, p);
  const std::string at = at_rate ? at_rate->print(p.landau(), Format::kLatex) : in_T;
  std::string out = "\\newline $M = " + at + "$";
  if (at != in_T) out += fmt::format(" at $T = {}$,\\newline in $T$: ${}$", *T_of(t), in_T);
  return out;
}

/// n in each layer, as planned.
std::vector<long> head_dims(const theorems::Architecture& a) {
  std::vector<long> out;
  for (long l = 0; l < a.layers(); ++l) out.push_back(a.head_dim_of(l));
  return out;
}

/// The options that plan on `a` again (derive, plan, construct): the search holds n fixed, so an
/// architecture it reports has an n that E / h need not give.
std::string architecture_arguments(const theorems::Architecture& a) {
  std::string out = fmt::format("--heads {} --E {}", fmt::join(a.heads, ","), a.embedding);
  const bool derived_n = std::all_of(a.heads.begin(), a.heads.end(),
                                     [&](long h) { return a.head_dim * h == a.embedding; });
  if (a.head_dim > 0 && !derived_n) out += fmt::format(" --head-dim {}", a.head_dim);
  return out;
}

std::string architecture_line(const theorems::Target& t, const theorems::Plan& p) {
  return fmt::format("{}: {} {}", p.architecture.text(), rate_text(t, p),
                     theorems::to_text(p.verdict));
}

std::string comparisons_text(const theorems::Program& program) {
  std::string out;
  for (const theorems::Comparison& c : program.comparisons) {
    out += fmt::format("    {}: order {}{}; {}\n", c.text, c.order, c.sum ? " (a sum)" : "",
                       c.elimination);
  }
  return out;
}

}  // namespace

std::string derivation_text(const Derivation& d) {
  const theorems::Target& t = *d.target;
  const theorems::Program& program = *t.program;
  std::string out = fmt::format("target {}: {}\n", t.name, targets::to_text(t.formula.root()));
  out += fmt::format("  comparison order beta' = {}, dimension beta_1 = {}, comparison number = {}\n",
                     program.order, program.dimension(),
                     symbolic::canonical(program.comparison_number.subs(T_as_set(t))));
  out += comparisons_text(program);
  for (const std::string& c : program.constants) out += "    constant: " + c + "\n";
  if (!program.read_as.empty())
    out += fmt::format("  read as {} ({})\n", program.read_as, fmt::join(program.rewrites, ", "));
  if (program.outside) out += "  outside the framework: " + *program.outside + "\n";
  if (!program.order_dependent.empty())
    out += fmt::format("  order-dependent: {}\n", fmt::join(program.order_dependent, "; "));
  else if (program.reads_positions())
    out += "  reads positions, though permuting the tokens leaves its value unchanged (terms that "
           "vanish or cancel, not simplified): undecided without a positional encoding\n";
  if (d.plan) {
    out += fmt::format("  on {}\n    M = {}: {}\n", d.plan->architecture.text(), rate_text(t, *d.plan),
                       theorems::to_text(d.plan->verdict));
    if (d.plan->priced()) out += "    dominant: " + d.plan->dominant + "\n";
    out += upper_bound_text(t, *d.plan, "    ");
    if (!d.plan->reason.empty()) out += "    because " + d.plan->reason + "\n";
  }
  const std::string space = fmt::format("L <= {}, h <= {}", d.search.max_layers, d.search.max_heads);
  if (d.search.smallest) {
    // "Smallest" is one order everywhere (Search::smallest): (1,1) comes before (2).
    out += fmt::format("  smallest efficient architecture (of {} with {}; smallest: fewest heads in "
                       "the widest layer, then fewest layers, then fewest heads in all): {}\n",
                       d.search.architectures, space, architecture_line(t, *d.search.smallest));
    // The search holds n fixed; train's default is E/h a layer, another network where h > 1.
    const theorems::Architecture& a = d.search.smallest->architecture;
    const bool other_default = std::any_of(a.heads.begin(), a.heads.end(), [&](long h) {
      return a.head_dim > 0 && a.head_dim * h != a.embedding;
    });
    if (other_default)
      out += fmt::format("    (n = {} in every layer, as searched: train it with --head-dim {})\n",
                         a.head_dim, a.head_dim);
    // Each with the n it was searched with, and the options that plan on it again.
    for (const theorems::Plan& p : d.search.per_depth) {
      out += fmt::format("    fewest heads with L = {}: {}, n = {} ({})\n", p.architecture.layers(),
                         p.architecture.heads_text(), p.architecture.head_dim_of(0),
                         architecture_arguments(p.architecture));
    }
  } else if (d.search.undecided) {
    out += "  smallest efficient architecture: undecided (" + *d.search.undecided + ")\n";
  } else {
    out += fmt::format("  no efficient architecture among the {} with {}\n", d.search.architectures,
                       space);
  }
  return out;
}

std::string derivation_label(const Derivation& d, const LatexOptions& options) {
  const theorems::Target& t = *d.target;
  if (!options.label_prefix.empty()) return options.label("target", t.name);
  // A target named by its file or --name keeps its name (and the plan's heads); a formula
  // without a name is told apart by what it is: formula, values and architecture.
  std::string id = t.name;
  if (t.name == kUnnamed) {
    std::string content = targets::to_text(t.formula.root());
    for (const auto& [name, value] : t.bindings) content += fmt::format(";{}={}", name, value);
    if (d.plan) content += ";" + d.plan->architecture.text();
    id += "-" + short_hash(content);
  } else if (d.plan) {
    id += "-h" + fmt::format("{}", fmt::join(d.plan->architecture.heads, "-"));
  }
  return latex_label("target", id);
}

std::string derivations_latex(const std::vector<Derivation>& ds, const theorems::Catalogue& catalogue,
                              const LatexOptions& options) {
  const theorems::Paper* infoflow = catalogue.find_paper("infoflow");
  const std::string cite =
      infoflow != nullptr && !infoflow->cite.empty() ? "~\\cite{" + infoflow->cite + "}" : "";
  LatexTable table;
  table.comment = "% infoflow derive --format latex (needs: booktabs, longtable, array, amsmath)";
  // The target's formula breaks only at its top-level signs: its column is the widest.
  table.widths = {0.36, 0.06, 0.06, 0.10, 0.24, 0.18};
  table.caption = "Costs derived with the InfoFlow framework" + cite +
                  " under this tool's rules (information sets, one action per head and token "
                  "class, plans priced by the catalogue's bounds): comparison order $\\beta'$, "
                  "comparison dimension $\\beta_1$, comparison number, the parameter count $M$ of "
                  "a plan and the smallest efficient architecture ($L$ layers, $h$ heads per "
                  "layer; smallest: fewest heads in the widest layer, then fewest layers, then "
                  "fewest heads in all).";
  table.header = "Target & $\\beta'$ & $\\beta_1$ & Compared tuples & Plan: $M$ & Smallest efficient";
  table.rows_per_float = 12;
  std::string labels;  // the rows', which the table's label sums up
  for (const Derivation& d : ds) {
    const theorems::Target& t = *d.target;
    const theorems::Program& program = *t.program;
    const GiNaC::exmap at_T = T_as_set(t);
    std::string rate = "---";
    if (d.plan) {
      rate = fmt::format("$L = {}$, $h = {}$:", d.plan->architecture.layers(),
                         d.plan->architecture.heads_text());
      if (d.plan->priced()) rate += rate_latex(t, *d.plan);
      rate += "\\newline (" + latex_escape(theorems::to_text(d.plan->verdict)) + ")";
      // A lower bound (Theorem 2) is printed with the best upper bound the rules give.
      if (d.plan->kind == theorems::Kind::kLower && d.plan->upper)
        rate += "\\newline upper bound:" + rate_latex(t, *d.plan->upper);
    }
    const std::string smallest =
        d.search.smallest ? fmt::format("$L = {}$, $h = {}$", d.search.smallest->architecture.layers(),
                                        d.search.smallest->architecture.heads_text())
        : d.search.undecided ? (d.search.capped > 0 ? "undecided (search cap reached)"
                                                    : "undecided (outside the framework)")
                             : "none";
    std::string set;
    for (const auto& [name, value] : t.bindings)
      set += fmt::format("{}${} = {}$", set.empty() ? "" : ", ", name, value);
    const std::string label = derivation_label(d, options);
    labels += label + "\n";
    table.rows.push_back(fmt::format(
        "{}\\label{{{}}}\\newline ${}${} & ${}$ & ${}$ & ${}$ & {} & {}", latex_identifier(t.name),
        label, formula_latex(t.formula.root()), set.empty() ? "" : " (" + set + ")", program.order,
        program.dimension(),
        symbolic::canonical(program.comparison_number.subs(at_T), Format::kLatex), rate,
        smallest));
  }
  table.label = options.label_prefix.empty() ? latex_label("tab", "derivations-" + short_hash(labels))
                                             : options.label("tab", "derivations");
  return table_latex(table, options);
}

std::string derived_catalogue_toml(const theorems::Engine& engine, const std::vector<Derivation>& ds) {
  toml::table root;
  root.insert("paper", toml::table{{"id", "derived"},
                                   {"title", "Bounds derived by the InfoFlow engine (infoflow derive)"},
                                   {"reference", "docs/infoflow_engine.md"}});
  toml::array tasks;
  toml::array entries;
  std::set<std::string> seen;
  for (const Derivation& d : ds) {
    const theorems::Target& t = *d.target;
    std::vector<const theorems::Plan*> plans;
    if (d.plan && d.plan->priced()) plans.push_back(&*d.plan);
    if (d.search.smallest) plans.push_back(&*d.search.smallest);
    for (const theorems::Plan& p : d.search.per_depth) plans.push_back(&p);
    const theorems::TaskFamily family = theorems::Engine::derived_family(t);
    if (!t.is_family && seen.insert("task:" + family.id).second) {
      tasks.push_back(toml::table{
          {"id", family.id}, {"parent", family.parent}, {"description", family.description}});
    }
    for (const theorems::Plan* p : plans) {
      const theorems::Entry e = engine.derived_entry(t, *p);
      if (!seen.insert(e.id).second) continue;
      toml::table entry{{"id", e.id},
                        {"source", e.source},
                        {"provenance", "derived"},
                        {"kind", theorems::to_text(e.kind)},
                        {"quantity", e.quantity},
                        {"task", e.task}};
      toml::array constraints;
      for (const theorems::WrittenRelation& r : e.setting) {
        const std::string text = symbolic::to_text(r.relation);
        if (r.field == "constraints") {
          constraints.push_back(text);
        } else {
          entry.insert(r.field, text);
        }
      }
      if (!constraints.empty()) entry.insert("constraints", constraints);
      entry.insert("rate", symbolic::to_text(e.rate_written));
      entry.insert("notes", e.notes);
      toml::array from;
      for (const std::string& id : e.derived_from) from.push_back(id);
      entry.insert("derived_from", from);
      entries.push_back(std::move(entry));
    }
  }
  if (!tasks.empty()) root.insert("task", tasks);
  root.insert("entry", entries);
  std::ostringstream out;
  out << "# Written by infoflow derive --format toml; read it with infoflow --add FILE check.\n"
      << root << "\n";
  return out.str();
}

std::string condition_text(const theorems::Condition& c) {
  std::string out = fmt::format("  L = {}: ", c.layers);
  if (!c.monotone) {
    out += fmt::format("not monotone in {}: efficient for some {} but not for a smaller one\n",
                       c.name, c.name);
  } else if (!c.closed_form.empty()) {
    const bool always = c.closed_form.rfind("no ", 0) == 0 || c.closed_form.rfind("every ", 0) == 0;
    out += fmt::format("efficient {} {} (checked on all {} head vectors with h <= {}, {} = 1..{})\n",
                       always ? "for" : "iff", c.closed_form, c.capacity.size(), c.max_heads,
                       c.name, c.limit);
  } else {
    out += "no closed form among those tried; the largest efficient " + c.name + " per head vector:\n";
  }
  if (c.closed_form.empty()) {
    for (const auto& [heads, cap] : c.capacity) {
      out += fmt::format("    ({}): {}\n", fmt::join(heads, ","),
                         cap == 0 ? "none" : c.name + " <= " + std::to_string(cap));
    }
  }
  return out;
}

std::string conditions_text(const targets::TargetSpec& spec, const std::string& name,
                            const std::vector<theorems::Condition>& conditions) {
  std::string out = fmt::format("target {}: {}\n  {} has no value: for which {} is it efficient?\n",
                                spec.name, targets::to_text(spec.formula.root()), name, name);
  for (const theorems::Condition& c : conditions) out += condition_text(c);
  return out;
}

nlohmann::json to_json(const theorems::Plan& p, std::optional<long> tokens) {
  nlohmann::json steps = nlohmann::json::array();
  for (const theorems::PlanStep& s : p.steps) {
    steps.push_back({{"layer", s.layer},
                     {"head", s.head},
                     {"heads", s.heads},
                     {"at", theorems::to_text(s.where)},
                     {"action", theorems::to_text(s.action)},
                     {"rule", theorems::rule_of(s.action)},
                     {"quantity", s.quantity},
                     {"what", s.what},
                     {"entry", s.entry},
                     {"kind", theorems::to_text(s.kind)},
                     {"exponent", symbolic::canonical(s.exponent)}});
  }
  nlohmann::json sets = nlohmann::json::array();
  for (const theorems::LayerSets& s : p.sets) {
    sets.push_back({{"layer", s.layer},
                    {"token", s.token},
                    {"token_size", symbolic::canonical(s.token_size)},
                    {"readout", s.readout},
                    {"readout_size", symbolic::canonical(s.readout_size)}});
  }
  nlohmann::json decodings = nlohmann::json::array();
  for (const theorems::Decoding& d : p.decodings) {
    decodings.push_back({{"layer", d.layer},
                         {"at", theorems::to_text(d.where)},
                         {"size", symbolic::canonical(d.size)},
                         {"entry", d.entry},
                         {"exponent", symbolic::canonical(d.exponent)}});
  }
  const theorems::Architecture& a = p.architecture;
  nlohmann::json out = {{"architecture",
                         {{"L", a.layers()},
                          {"heads", a.heads},
                          {"E", a.embedding},
                          {"d", a.token_dim},
                          {"n", head_dims(a)},
                          {"pe", a.encodes_positions()},
                          {"arguments", architecture_arguments(a)}}},
                        {"verdict", theorems::to_text(p.verdict)},
                        {"reason", p.reason},
                        {"steps", steps},
                        {"information_sets", sets},
                        {"decodings", decodings},
                        {"entries", p.entries},
                        {"search_truncated", p.truncated}};
  // Without a rate, every field of it is null (the keys stay, with one type each).
  for (const char* key : {"kind", "rate", "rate_latex", "exponent", "rate_general",
                          "rate_general_condition", "dominant", "upper_bound", "at_T"})
    out[key] = nullptr;
  if (!p.priced()) return out;
  out["kind"] = theorems::to_text(p.kind);
  out["rate"] = p.rate().print(p.landau());
  out["rate_latex"] = p.rate().print(p.landau(), Format::kLatex);
  out["exponent"] = symbolic::canonical(p.exponent);
  out["rate_general"] = p.general_rate().print(p.landau());
  out["rate_general_condition"] = p.general_condition;
  out["dominant"] = p.dominant;
  if (p.upper) out["upper_bound"] = to_json(*p.upper, tokens);
  if (tokens) {
    out["at_T"] = {{"T", *tokens},
                   {"exponent", symbolic::canonical(p.exponent_at(*tokens))},
                   {"rate", p.rate_at(*tokens).print(p.landau())}};
  }
  return out;
}

nlohmann::json to_json(const theorems::Program& program) {
  nlohmann::json comparisons = nlohmann::json::array();
  for (const theorems::Comparison& c : program.comparisons) {
    comparisons.push_back({{"text", c.text},
                           {"order", c.order},
                           {"sum", c.sum},
                           {"blocked", c.blocked},
                           {"summary", c.summary},
                           {"elimination", c.elimination}});
  }
  nlohmann::json quantities = nlohmann::json::array();
  for (const theorems::Quantity& q : program.quantities) {
    std::vector<std::string> needs;
    for (const int n : q.needs) needs.push_back(program.quantities[static_cast<std::size_t>(n)].name);
    quantities.push_back({{"name", q.name},
                          {"holder", q.holder == theorems::Holder::kGlobal ? "global" : "token"},
                          {"mode", theorems::to_text(q.mode)},
                          {"what", q.what},
                          {"values", q.values},
                          {"needs", needs}});
  }
  return {{"comparison_order", program.order},
          {"comparison_dimension", program.dimension()},
          {"comparison_number", symbolic::canonical(program.comparison_number)},
          {"comparisons", comparisons},
          {"quantities", quantities},
          {"order_dependent", program.order_dependent},
          {"constants", program.constants},
          {"outside_framework",
           program.outside ? nlohmann::json(*program.outside) : nlohmann::json(nullptr)},
          {"read_as", program.read_as.empty() ? nlohmann::json(nullptr) : nlohmann::json(program.read_as)}};
}

nlohmann::json to_json(const Derivation& d) {
  const theorems::Target& t = *d.target;
  nlohmann::json out = to_json(*t.program);
  out["target"] = t.name;
  out["formula"] = targets::to_text(t.formula.root());
  out["bindings"] = t.bindings;
  out["architectures_searched"] = d.search.architectures;
  out["search_space"] = {{"max_layers", d.search.max_layers}, {"max_heads", d.search.max_heads}};
  if (d.plan) out["plan"] = to_json(*d.plan, T_of(t));
  out["smallest_efficient"] =
      d.search.smallest ? to_json(*d.search.smallest, T_of(t)) : nlohmann::json(nullptr);
  out["undecided"] = d.search.undecided ? nlohmann::json(*d.search.undecided) : nlohmann::json(nullptr);
  nlohmann::json depth = nlohmann::json::array();
  for (const theorems::Plan& p : d.search.per_depth) {
    depth.push_back({{"L", p.architecture.layers()},
                     {"heads", p.architecture.heads},
                     {"n", head_dims(p.architecture)},
                     {"arguments", architecture_arguments(p.architecture)}});
  }
  out["fewest_heads_per_depth"] = depth;
  return out;
}

std::string plan_text(const theorems::Target& t, const theorems::Plan& p) {
  const theorems::Program& program = *t.program;
  std::string out = fmt::format("plan for {} = {}\non {}\n", t.name,
                                targets::to_text(t.formula.root()), p.architecture.text());
  if (!program.comparisons.empty()) out += "  elimination: " + program.elimination_text() + "\n";
  if (!p.priced()) {
    return out + fmt::format("{}: {}\n", theorems::to_text(p.verdict), p.reason);
  }
  for (const theorems::Quantity& q : program.quantities) out += "  quantity " + q.what + "\n";
  // Each layer under its own heading: what its heads and FFNs do, then what the tokens and the
  // readout know after it.
  out += fmt::format("  before layer 1: I(t) = {}  I(T+1) = {{}}\n", set_text(p.sets[0].token));
  for (long l = 1; l <= p.architecture.layers(); ++l) {
    out += fmt::format("  layer {}:\n", l);
    for (const theorems::PlanStep& s : p.steps) {
      if (s.layer != l) continue;
      out += fmt::format(
          "    {} at the {}: {}: {}  [{}eps^-({}), {}{}; rule {}]\n", theorems::heads_text(s),
          theorems::to_text(s.where), theorems::to_text(s.action), s.what,
          s.kind == theorems::Kind::kLower ? "at least " : "", symbolic::canonical(s.exponent),
          s.entry, s.kind == theorems::Kind::kLower ? ", a lower bound" : "",
          theorems::rule_of(s.action));
    }
    for (const theorems::Decoding& d : p.decodings) {
      if (d.layer != l) continue;
      out += decoding_line(t, d, p.floor);
    }
    const theorems::LayerSets& s = p.sets[static_cast<std::size_t>(l)];
    out += fmt::format("    after layer {}: I(t) = {} (size {})  I(T+1) = {} (size {})\n", l,
                       set_text(s.token), size_text(t, s.token_size), set_text(s.readout),
                       size_text(t, s.readout_size));
  }
  if (!p.reason.empty()) out += "  because " + p.reason + "\n";
  out += fmt::format("M = {}: {}\n  dominant: {}\n", rate_text(t, p), theorems::to_text(p.verdict),
                     p.dominant);
  out += upper_bound_text(t, p, "  ");
  out += fmt::format("  catalogue entries: {}\n",
                     p.entries.empty() ? "none" : fmt::format("{}", fmt::join(p.entries, ", ")));
  return out;
}

}  // namespace infoflow::report
