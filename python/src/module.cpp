// infoflow._infoflow: the libraries of the `infoflow` command, seen from Python.
//
// Every function here calls the same library code as the command line (and, for targets given
// as a formula or a file, the command line's own TargetArguments::resolve); results come back
// as plain Python data built from the same JSON the command prints (report::to_json), or as the
// same text. The documented API is python/infoflow/__init__.py; these functions are private.
//
// Errors: infoflow::InputError becomes infoflow.InputError (a ValueError) carrying the
// command's message ("file:line:column: error: ...") and the place as attributes; any other
// infoflow::Error becomes infoflow.Error (a RuntimeError); std::bad_alloc a MemoryError.
// Training and sweeps run with the GIL released.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "infoflow/core/error.hpp"
#include "infoflow/experiments.hpp"
#include "infoflow/numeric.hpp"
#include "infoflow/report.hpp"
#include "infoflow/symbolic/compare.hpp"
#include "infoflow/symbolic/symbols.hpp"
#include "infoflow/theorems/check.hpp"
#include "infoflow/theorems/engine.hpp"

#include "commands/target_arguments.hpp"
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

namespace py = pybind11;
namespace fs = std::filesystem;
using nlohmann::json;

namespace infoflow::python {
namespace {

// ---------------------------------------------------------------------------------------------
// Conversions

py::object to_py(const json& j) {
  switch (j.type()) {
    case json::value_t::null:
      return py::none();
    case json::value_t::boolean:
      return py::bool_(j.get<bool>());
    case json::value_t::number_integer:
      return py::int_(j.get<std::int64_t>());
    case json::value_t::number_unsigned:
      return py::int_(j.get<std::uint64_t>());
    case json::value_t::number_float:
      return py::float_(j.get<double>());
    case json::value_t::string:
      return py::str(j.get_ref<const std::string&>());
    case json::value_t::array: {
      py::list out;
      for (const json& e : j) out.append(to_py(e));
      return out;
    }
    case json::value_t::object: {
      py::dict out;
      for (const auto& [k, v] : j.items()) out[py::str(k)] = to_py(v);
      return out;
    }
    default:
      return py::none();
  }
}

/// Keyword options of a call, read with the types the command line's options have. A value of
/// the wrong type is a TypeError naming the option; an option the call does not know, too.
class Options {
 public:
  Options(const py::dict& d, std::string call) : call_(std::move(call)) {
    for (const auto& [k, v] : d) {
      if (!py::isinstance<py::str>(k)) throw py::type_error(call_ + "(): option names are strings");
      if (!v.is_none()) values_[k.cast<std::string>()] = py::reinterpret_borrow<py::object>(v);
    }
  }
  [[nodiscard]] bool has(const std::string& key) const { return values_.count(key) > 0; }

  long integer(const std::string& key, long fallback) {
    const py::object* v = take(key);
    if (v == nullptr) return fallback;
    // bool is an int in Python; a flag where a number belongs is a mistake.
    if (py::isinstance<py::bool_>(*v) || !py::isinstance<py::int_>(*v)) fail(key, "an int", *v);
    try {
      return v->cast<long>();
    } catch (const py::cast_error&) {
      throw py::value_error(fmt::format("{}(): {} = {} is out of range", call_, key,
                                        py::repr(*v).cast<std::string>()));
    }
  }
  std::uint64_t seed(const std::string& key, std::uint64_t fallback) {
    const long v = integer(key, static_cast<long>(fallback));
    if (v < 0) throw py::value_error(fmt::format("{}(): {} must be >= 0", call_, key));
    return static_cast<std::uint64_t>(v);
  }
  double real(const std::string& key, double fallback) {
    const py::object* v = take(key);
    if (v == nullptr) return fallback;
    if (py::isinstance<py::bool_>(*v) ||
        !(py::isinstance<py::float_>(*v) || py::isinstance<py::int_>(*v)))
      fail(key, "a number", *v);
    return v->cast<double>();
  }
  bool flag(const std::string& key, bool fallback) {
    const py::object* v = take(key);
    if (v == nullptr) return fallback;
    if (!py::isinstance<py::bool_>(*v)) fail(key, "a bool", *v);
    return v->cast<bool>();
  }
  std::string text(const std::string& key, const std::string& fallback = {}) {
    const py::object* v = take(key);
    if (v == nullptr) return fallback;
    if (py::isinstance<py::str>(*v)) return v->cast<std::string>();
    if (py::isinstance(*v, py::module_::import("os").attr("PathLike")))
      return py::str(py::module_::import("os").attr("fspath")(*v)).cast<std::string>();
    fail(key, "a str", *v);
  }
  /// Heads per layer: a list or tuple of ints, an int (one layer) or "2,2".
  std::optional<std::vector<long>> heads(const std::string& key) {
    const py::object* v = take(key);
    if (v == nullptr) return std::nullopt;
    return heads_of(call_, key, *v);
  }
  /// Values of the formula's integers: {"D": 3} (or ["D=3"]), as the command's --set D=3.
  std::vector<std::string> sets(const std::string& key) {
    const py::object* v = take(key);
    std::vector<std::string> out;
    if (v == nullptr) return out;
    if (py::isinstance<py::dict>(*v)) {
      for (const auto& [k, value] : v->cast<py::dict>()) {
        if (!py::isinstance<py::str>(k)) fail(key, "a dict of str to int", *v);
        if (py::isinstance<py::bool_>(value) || !py::isinstance<py::int_>(value))
          fail(key + "['" + k.cast<std::string>() + "']", "an int",
               py::reinterpret_borrow<py::object>(value));
        out.push_back(k.cast<std::string>() + "=" + py::str(value).cast<std::string>());
      }
      return out;
    }
    if (py::isinstance<py::list>(*v) || py::isinstance<py::tuple>(*v)) {
      for (const py::handle e : *v) {
        if (!py::isinstance<py::str>(e)) fail(key, "a dict such as {'D': 3}", *v);
        out.push_back(e.cast<std::string>());
      }
      return out;
    }
    fail(key, "a dict such as {'D': 3}", *v);
  }
  std::vector<std::string> texts(const std::string& key) {
    const py::object* v = take(key);
    std::vector<std::string> out;
    if (v == nullptr) return out;
    if (py::isinstance<py::str>(*v)) return {v->cast<std::string>()};
    if (!(py::isinstance<py::list>(*v) || py::isinstance<py::tuple>(*v)))
      fail(key, "a list of str", *v);
    for (const py::handle e : *v) {
      if (py::isinstance<py::str>(e)) {
        out.push_back(e.cast<std::string>());
      } else if (py::isinstance(e, py::module_::import("os").attr("PathLike"))) {
        out.push_back(py::str(py::module_::import("os").attr("fspath")(e)).cast<std::string>());
      } else {
        fail(key, "a list of str", *v);
      }
    }
    return out;
  }
  /// Every option was used: an unknown one is a TypeError, as for any Python function.
  void finish() const {
    for (const auto& [k, v] : values_) {
      if (used_.count(k) == 0) {
        std::string known;
        for (const std::string& u : used_) known += (known.empty() ? "" : ", ") + u;
        throw py::type_error(fmt::format(
            "{}() got an unexpected keyword argument '{}' (it takes: {})", call_, k, known));
      }
    }
  }

  static std::vector<long> heads_of(const std::string& call, const std::string& key,
                                    const py::object& v) {
    if (py::isinstance<py::str>(v)) {
      return targets::parse_heads(v.cast<std::string>(), SourceLocation{key, 0, 0});
    }
    if (py::isinstance<py::int_>(v) && !py::isinstance<py::bool_>(v)) {
      return heads_of(call, key, py::make_tuple(v));
    }
    if (!(py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)))
      throw py::type_error(fmt::format("{}(): {} must be a list of ints such as [2, 2], got {}",
                                       call, key, py::repr(v).cast<std::string>()));
    std::vector<long> out;
    for (const py::handle e : v) {
      if (py::isinstance<py::bool_>(e) || !py::isinstance<py::int_>(e))
        throw py::type_error(fmt::format("{}(): {} must be a list of ints such as [2, 2], got {}",
                                         call, key, py::repr(v).cast<std::string>()));
      const long h = e.cast<long>();
      if (h < 1) {
        throw InputError(SourceLocation{key, 0, 0},
                         fmt::format("heads per layer must be positive integers (got {})", h));
      }
      out.push_back(h);
    }
    if (out.empty()) throw InputError(SourceLocation{key, 0, 0}, "at least one layer is needed");
    return out;
  }

 private:
  const py::object* take(const std::string& key) {
    used_.insert(key);
    const auto it = values_.find(key);
    return it == values_.end() ? nullptr : &it->second;
  }
  [[noreturn]] void fail(const std::string& key, const char* expected, const py::object& v) const {
    throw py::type_error(fmt::format("{}(): {} must be {}, got {} {}", call_, key, expected,
                                     py::str(py::type::of(v).attr("__name__")).cast<std::string>(),
                                     py::repr(v).cast<std::string>()));
  }
  std::string call_;
  std::map<std::string, py::object> values_;
  std::set<std::string> used_;
};

// ---------------------------------------------------------------------------------------------
// The catalogue

theorems::Catalogue load_catalogue(const std::string& directory,
                                   const std::vector<std::string>& added) {
  std::vector<fs::path> more(added.begin(), added.end());
  return theorems::Catalogue::load_directory(directory, more);
}

py::object symbols() {
  py::list out;
  for (const symbolic::SymbolInfo* s : symbolic::SymbolRegistry::standard().all()) {
    if (s->name.find('@') != std::string::npos) continue;
    py::dict d;
    d["name"] = s->name;
    d["latex"] = s->latex;
    d["meaning"] = s->meaning;
    d["integer"] = s->integer;
    d["lower"] = s->lower.to_double();
    d["lower_strict"] = s->lower_strict;
    d["upper"] = s->upper ? py::object(py::float_(s->upper->to_double())) : py::object(py::none());
    out.append(d);
  }
  return out;
}

py::object catalogue_entries(const std::string& directory, const std::vector<std::string>& added,
                             const std::string& format) {
  const theorems::Catalogue catalogue = load_catalogue(directory, added);
  if (format == "text") return py::str(report::catalogue_list_text(catalogue));
  if (format == "json") return py::str(report::to_json(catalogue).dump(2) + "\n");
  if (format == "latex") return py::str(report::catalogue_table_latex(catalogue));
  return to_py(report::to_json(catalogue));
}

py::object check(const std::string& directory, const std::vector<std::string>& added,
                 const std::vector<std::string>& target_files, long timeout_ms,
                 const std::string& format) {
  if (timeout_ms < 1) throw InputError("timeout_ms must be positive");
  theorems::Catalogue catalogue = load_catalogue(directory, added);
  theorems::add_derived_bounds(catalogue, target_files);
  theorems::CheckOptions options;
  options.solver_timeout_ms = static_cast<unsigned>(timeout_ms);
  theorems::CheckReport result;
  {
    py::gil_scoped_release release;
    result = theorems::check(catalogue, options);
  }
  if (format == "text") return py::str(report::findings_text(result, catalogue));
  if (format == "latex") return py::str(report::findings_table_latex(result, catalogue));
  if (format == "json") return py::str(report::to_json(result).dump(2) + "\n");
  py::object out = to_py(report::to_json(result));
  out["errors"] = result.count(theorems::Severity::kError);
  out["brief"] = result.brief();
  return out;
}

std::string table(const std::string& directory, const std::vector<std::string>& added,
                  const std::string& of, bool standalone) {
  if (of != "catalogue" && of != "findings" && of != "both")
    throw py::value_error("table(): of must be 'catalogue', 'findings' or 'both', got '" + of +
                          "'");
  const theorems::Catalogue catalogue = load_catalogue(directory, added);
  std::string body;
  if (of != "findings") body += report::catalogue_table_latex(catalogue);
  if (of != "catalogue") body += report::findings_table_latex(theorems::check(catalogue), catalogue);
  return standalone ? report::latex_document(body, catalogue) : body;
}

// ---------------------------------------------------------------------------------------------
// Rates

py::dict rate_dict(const symbolic::Rate& r) {
  py::dict d;
  d["text"] = r.print();
  d["latex"] = r.print(symbolic::Format::kLatex);
  d["eps_exponent"] = symbolic::canonical(r.eps_exponent());
  d["log_exponent"] = symbolic::canonical(r.log_exponent());
  d["power_of_T"] = symbolic::canonical(r.power_of_T());
  d["exp_rate_in_T"] = symbolic::canonical(r.exp_rate_in_T());
  d["coefficient"] = symbolic::canonical(r.coefficient());
  return d;
}

py::dict parse_rate(const std::string& text) {
  return rate_dict(symbolic::Rate::parse(text, SourceLocation{"rate", 1, 1}));
}

py::dict compare(const std::string& first, const std::string& second,
                 const std::vector<std::string>& assumptions) {
  const symbolic::Rate a = symbolic::Rate::parse(first, SourceLocation{"first rate", 1, 1});
  const symbolic::Rate b = symbolic::Rate::parse(second, SourceLocation{"second rate", 1, 1});
  symbolic::Domain domain;
  for (std::size_t i = 0; i < assumptions.size(); ++i) {
    const SourceLocation where{"--assume #" + std::to_string(i + 1), 1, 1};
    for (const symbolic::Relation& r : symbolic::parse_relations(assumptions[i], where)) {
      domain.require(r, assumptions[i]);
    }
  }
  symbolic::SignOracle oracle;
  if (oracle.satisfiable(domain).status == symbolic::Satisfiability::kUnsatisfiable) {
    throw InputError("the assumptions contradict each other: " + domain.to_text());
  }
  const symbolic::RateComparison eps = symbolic::compare_as_eps_to_zero(a, b, domain, oracle);
  const symbolic::RateComparison T = symbolic::compare_as_T_to_infinity(a, b, domain, oracle);
  // The keys of `compare --json`, with the LaTeX of the condition and the summary line beside.
  const auto describe = [](const symbolic::RateComparison& c) {
    py::dict d;
    d["growth"] = symbolic::to_text(c.growth);
    d["decided_by"] = c.decided_by;
    d["gap"] = symbolic::canonical(c.gap);
    d["gap_latex"] = symbolic::canonical(c.gap, symbolic::Format::kLatex);
    d["note"] = c.note;
    d["summary"] = c.summary();
    if (c.growth == symbolic::Growth::kDepends) {
      d["faster_when"] = c.faster_when.text;
      d["faster_when_latex"] = c.faster_when.latex;
    }
    if (c.gap_sign.positive_at) d["faster_at"] = c.gap_sign.positive_at->to_text();
    if (c.gap_sign.negative_at) d["slower_at"] = c.gap_sign.negative_at->to_text();
    if (c.gap_sign.zero_at) d["equal_at"] = c.gap_sign.zero_at->to_text();
    return d;
  };
  py::dict out;
  out["first"] = a.print();
  out["second"] = b.print();
  out["first_latex"] = a.print(symbolic::Format::kLatex);
  out["second_latex"] = b.print(symbolic::Format::kLatex);
  out["eps_to_zero"] = describe(eps);
  out["T_to_infinity"] = describe(T);
  return out;
}

// ---------------------------------------------------------------------------------------------
// The engine: derive and plan (the command's derive_commands.cpp, over the same libraries)

struct ArchitectureOptions {
  std::optional<std::vector<long>> heads;
  long embedding = 16;
  long head_dim = 0;
};

app::TargetArguments target_arguments(const std::string& source, Options& o) {
  app::TargetArguments t;
  t.source = source;
  t.name = o.text("name");
  t.sets = o.sets("set");
  t.token_dim = o.integer("d", 0);
  t.positional = o.text("pe");  // checked by resolve, as on the command line
  return t;
}

ArchitectureOptions architecture_options(Options& o) {
  ArchitectureOptions a;
  a.heads = o.heads("heads");
  a.embedding = o.integer("E", a.embedding);
  a.head_dim = o.integer("head_dim", a.head_dim);
  return a;
}

/// A plan's verdict and rates, under the names of `plan --json` (rate: the bound O(...)), plus
/// eps_rate, the rate alone as compare() takes it; each as text and LaTeX.
py::dict plan_extras(const theorems::Plan& p) {
  py::dict d;
  d["heads"] = p.architecture.heads;
  d["architecture_text"] = p.architecture.text();
  d["verdict"] = theorems::to_text(p.verdict);
  d["priced"] = p.priced();
  if (p.priced()) {
    const symbolic::Rate rate = p.rate();
    const symbolic::Rate general = p.general_rate();
    d["rate"] = rate.print(symbolic::Landau::kBigO);
    d["rate_latex"] = rate.print(symbolic::Landau::kBigO, symbolic::Format::kLatex);
    d["eps_rate"] = rate.print();
    d["eps_rate_latex"] = rate.print(symbolic::Format::kLatex);
    d["rate_general"] = general.print(symbolic::Landau::kBigO);
    d["rate_general_latex"] = general.print(symbolic::Landau::kBigO, symbolic::Format::kLatex);
    d["rate_general_condition"] = p.general_condition;
  }
  return d;
}

py::object condition_dict(const theorems::Condition& c) {
  py::dict d;
  d["name"] = c.name;
  d["layers"] = c.layers;
  d["max_heads"] = c.max_heads;
  d["limit"] = c.limit;
  d["closed_form"] = c.closed_form;
  d["monotone"] = c.monotone;
  py::list capacity;
  for (const auto& [heads, n] : c.capacity) capacity.append(py::make_tuple(heads, n));
  d["capacity"] = capacity;
  d["text"] = report::condition_text(c);
  return d;
}

py::object derive(const std::string& source, const std::string& directory,
                  const std::vector<std::string>& added, const std::string& format,
                  const py::dict& kwargs) {
  Options o(kwargs, "derive");
  const app::TargetArguments t = target_arguments(source, o);
  const ArchitectureOptions arch = architecture_options(o);
  o.finish();
  if (format != "data" && format != "text" && format != "latex" && format != "json" &&
      format != "toml")
    throw py::value_error(
        "derive(): format must be 'data', 'text', 'latex', 'json' or 'toml', "
        "got '" +
        format + "'");
  const std::vector<targets::TargetSpec> specs = t.resolve(false);
  const theorems::Catalogue catalogue = load_catalogue(directory, added);
  theorems::Engine engine(catalogue);
  const std::string unset =
      specs.size() == 1
          ? targets::unset_integer_for_conditions(specs.front(), format == "text" || format == "data")
          : "";
  if (!unset.empty()) {
    const targets::TargetSpec& spec = specs.front();
    const theorems::Architecture base =
        theorems::architecture_for(spec, arch.embedding, arch.head_dim, std::vector<long>{1});
    const std::vector<theorems::Condition> conditions =
        theorems::conditions_by_depth(engine, spec, unset, base);
    if (format == "text") return py::str(report::conditions_text(spec, unset, conditions));
    py::list dicts;
    for (const theorems::Condition& c : conditions) dicts.append(condition_dict(c));
    py::dict d;
    d["target"] = spec.name;
    d["formula"] = targets::to_text(spec.formula.root());
    d["unset"] = unset;
    d["conditions"] = dicts;
    return d;
  }
  std::vector<theorems::Target> targets;
  targets.reserve(specs.size());
  for (const targets::TargetSpec& s : specs) targets.push_back(theorems::to_target(s));
  std::vector<report::Derivation> ds;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    report::Derivation d;
    d.target = &targets[i];
    const theorems::Architecture base = theorems::architecture_for(
        specs[i], arch.embedding, arch.head_dim, arch.heads ? *arch.heads : std::vector<long>{1});
    if (arch.heads) d.plan = engine.plan(targets[i], base);
    d.search = engine.search(targets[i], base);
    ds.push_back(std::move(d));
  }
  if (format == "toml") return py::str(report::derived_catalogue_toml(engine, ds));
  if (format == "latex") return py::str(report::derivations_latex(ds, catalogue));
  if (format == "text") {
    std::string out;
    for (const report::Derivation& d : ds) out += report::derivation_text(d);
    return py::str(out);
  }
  if (format == "json") {
    json j = json::array();
    for (const report::Derivation& d : ds) j.push_back(report::to_json(d));
    return py::str((ds.size() == 1 ? j[0] : j).dump(2) + "\n");
  }
  py::list out;
  for (const report::Derivation& d : ds) {
    py::object j = to_py(report::to_json(d));
    // Rates in both forms, ready for a notebook: the plan's, and each depth's smallest.
    if (d.plan) j["plan_rate"] = plan_extras(*d.plan);
    j["smallest_rate"] =
        d.search.smallest ? py::object(plan_extras(*d.search.smallest)) : py::object(py::none());
    py::list depths;
    for (const theorems::Plan& p : d.search.per_depth) depths.append(plan_extras(p));
    j["per_depth_rates"] = depths;
    j["latex_row"] = report::derivations_latex({d}, catalogue);
    out.append(j);
  }
  return out.size() == 1 ? py::object(out[0]) : py::object(out);
}

py::object plan(const std::string& source, const std::string& directory,
                const std::vector<std::string>& added, const std::string& format,
                const py::dict& kwargs) {
  Options o(kwargs, "plan");
  const app::TargetArguments t = target_arguments(source, o);
  const ArchitectureOptions arch = architecture_options(o);
  o.finish();
  if (format != "data" && format != "text" && format != "json")
    throw py::value_error("plan(): format must be 'data', 'text' or 'json', got '" + format + "'");
  const targets::TargetSpec spec = t.resolve(true).front();
  const theorems::Catalogue catalogue = load_catalogue(directory, added);
  theorems::Engine engine(catalogue);
  const theorems::Target target = theorems::to_target(spec);
  std::string note;
  std::optional<theorems::Plan> chosen;
  if (!arch.heads) {
    theorems::Search s =
        engine.search(target, theorems::architecture_for(spec, arch.embedding, arch.head_dim, {1}));
    chosen = s.smallest;
    note = s.smallest    ? "(no --heads: the smallest efficient architecture)\n"
           : s.undecided ? "(no --heads, and the smallest efficient architecture undecided: one layer, one head)\n"
                         : "(no --heads and no efficient architecture: one layer, one head)\n";
  }
  const theorems::Plan p =
      chosen ? *chosen
             : engine.plan(target, theorems::architecture_for(
                                       spec, arch.embedding, arch.head_dim,
                                       arch.heads ? *arch.heads : std::vector<long>{1}));
  if (format == "text") return py::str(note + report::plan_text(target, p));
  json j = report::to_json(p);
  j["target"] = report::to_json(*target.program);
  if (format == "json") return py::str(j.dump(2) + "\n");
  py::object out = to_py(j);
  py::dict extras = plan_extras(p);
  for (const auto& [k, v] : extras) {
    if (!out.contains(k)) out[k] = v;  // the command's keys keep the command's values
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Training (the command's train_command.cpp, over the same libraries)

py::array_t<double> array_of(const std::vector<double>& v) {
  py::array_t<double> a(static_cast<py::ssize_t>(v.size()));
  std::copy(v.begin(), v.end(), a.mutable_data());
  return a;
}
py::array_t<std::int64_t> array_of(const std::vector<std::int64_t>& v) {
  py::array_t<std::int64_t> a(static_cast<py::ssize_t>(v.size()));
  std::copy(v.begin(), v.end(), a.mutable_data());
  return a;
}

py::dict curve_arrays(const std::vector<numeric::CurvePoint>& curve) {
  std::vector<std::int64_t> step;
  std::vector<double> lr;
  std::vector<double> train;
  std::vector<double> validation;
  for (const numeric::CurvePoint& p : curve) {
    step.push_back(static_cast<std::int64_t>(p.step));
    lr.push_back(p.learning_rate);
    train.push_back(p.train_nmse);
    validation.push_back(p.validation_nmse);
  }
  py::dict d;
  d["step"] = array_of(step);
  d["learning_rate"] = array_of(lr);
  d["train_nmse"] = array_of(train);
  d["validation_nmse"] = array_of(validation);
  return d;
}

py::dict train(const py::dict& kwargs) {
  Options o(kwargs, "train");
  numeric::TaskOptions task{.name = ""};
  task.name = o.text("task");
  const std::string target_file = o.text("target");
  const std::string formula = o.text("formula");
  const std::string target_name = o.text("name");
  const std::vector<std::string> sets = o.sets("set");
  const bool tokens_given = o.has("T");
  task.tokens = o.integer("T", task.tokens);
  task.token_dim = o.integer("d", task.token_dim);
  task.comparisons = o.integer("D", task.comparisons);
  task.rank = o.integer("k", task.rank);
  task.positions = o.integer("T0", task.positions);
  const std::string norm = o.text("norm", "squared");
  task.seed = o.seed("task_seed", task.seed);
  numeric::ModelConfig model;
  const std::vector<long> heads = o.heads("heads").value_or(std::vector<long>{2, 2});
  model.embedding = o.integer("E", model.embedding);
  model.head_dim = o.integer("head_dim", model.head_dim);
  model.ffn_width = o.integer("ffn_width", model.ffn_width);
  model.readout_width = o.integer("readout_width", model.readout_width);
  const std::string activation = o.text("activation", "gelu");
  const std::string positional = o.text("pe");
  model.pre_layer_norm = o.flag("pre_ln", model.pre_layer_norm);
  model.attention_scale = o.real("scale", model.attention_scale);
  numeric::TrainOptions t;
  t.steps = o.integer("steps", t.steps);
  t.batch = o.integer("batch", t.batch);
  t.adam.learning_rate = o.real("lr", t.adam.learning_rate);
  t.adam.beta1 = o.real("beta1", t.adam.beta1);
  t.adam.beta2 = o.real("beta2", t.adam.beta2);
  t.adam.weight_decay = o.real("weight_decay", t.adam.weight_decay);
  t.warmup = o.integer("warmup", t.warmup);
  t.min_lr_ratio = o.real("min_lr_ratio", t.min_lr_ratio);
  t.clip = o.real("clip", t.clip);
  t.eval_every = o.integer("eval_every", t.eval_every);
  t.validation_size = o.integer("val_size", t.validation_size);
  t.seed = o.seed("seed", t.seed);
  t.threads = o.integer("threads", t.threads);
  t.chunks = o.integer("chunks", t.chunks);
  const std::string precision = o.text("precision", "float32");
  t.max_steps = o.integer("until_plateau", t.max_steps);
  t.plateau_tolerance = o.real("plateau_tolerance", t.plateau_tolerance);
  t.checkpoint = o.text("checkpoint");
  t.checkpoint_every = o.integer("checkpoint_every", t.checkpoint_every);
  o.finish();

  // Everything is validated before any work starts, as by the command.
  if (norm != "squared" && norm != "plain")
    throw InputError(SourceLocation{"norm", 0, 0}, "must be squared or plain (got '" + norm + "')");
  task.norm = norm == "plain" ? numeric::NormKind::kPlain : numeric::NormKind::kSquared;
  const int sources =
      (task.name.empty() ? 0 : 1) + (target_file.empty() ? 0 : 1) + (formula.empty() ? 0 : 1);
  if (sources != 1) throw InputError("give exactly one of task, target and formula");
  std::unique_ptr<numeric::Task> made;
  if (task.name.empty()) {
    app::TargetArguments ta;
    ta.source = formula.empty() ? target_file : formula;
    ta.name = target_name;
    ta.sets = sets;
    ta.token_dim = task.token_dim;
    ta.file_only = !target_file.empty();
    targets::TargetSpec spec = ta.resolve(true).front();
    if (tokens_given || spec.set.count("T") == 0) spec.set["T"] = task.tokens;
    targets::Evaluator evaluator(spec.formula, spec.set, spec.token_dim, task.seed);
    made = numeric::make_formula_task(
        spec.name, std::move(evaluator),
        numeric::InputDistribution{spec.variance, spec.min_norm, spec.max_norm},
        spec.positional ? numeric::PositionalEncoding::kLearned
                        : numeric::PositionalEncoding::kNone);
  } else {
    if (!sets.empty() || !target_name.empty())
      throw InputError("set and name apply to a formula or a target file, not to a task");
    made = numeric::make_task(task);
  }
  model.tokens = made->tokens();
  model.token_dim = made->token_dim();
  model.heads.assign(heads.begin(), heads.end());
  model.activation = numeric::parse_activation(activation);
  model.positional = positional.empty() ? made->recommended_positional()
                                        : numeric::parse_positional_encoding(positional);
  model.validate();
  t.precision = numeric::parse_precision(precision);
  t.checkpoint_tag = fmt::format("task_seed={} D={} k={} T0={} norm={}", task.seed,
                                 task.comparisons, task.rank, task.positions, norm);
  t.validate();

  // Ctrl-C in a notebook stops the run: the progress callback looks for signals (with the GIL)
  // a few times a second and ends the run with KeyboardInterrupt.
  const numeric::ProgressCallback interrupt = [](const numeric::Progress&) {
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
  };
  numeric::TrainResult r;
  {
    py::gil_scoped_release release;
    r = numeric::train(model, *made, t, interrupt);
  }

  // The keys of `train --json`, with the curve as numpy arrays.
  const numeric::ModelConfig& m = model;
  py::dict out;
  py::dict task_d;
  task_d["name"] = r.task_name;
  task_d["formula"] = r.task_description;
  task_d["T"] = m.tokens;
  task_d["d"] = m.token_dim;
  task_d["D"] = task.comparisons;
  task_d["k"] = task.rank;
  task_d["T0"] = task.positions;
  task_d["norm"] = norm;
  task_d["task_seed"] = task.seed;
  out["task"] = task_d;
  py::dict model_d;
  model_d["L"] = m.layers();
  model_d["heads"] = m.heads;
  model_d["E"] = m.embedding;
  model_d["head_dim"] = m.head_dim;
  model_d["ffn_width"] = m.ffn_width;
  model_d["readout_width"] = m.readout_width;
  model_d["activation"] = std::string(numeric::to_string(m.activation));
  model_d["positional"] = std::string(numeric::to_string(m.positional));
  model_d["pre_layer_norm"] = m.pre_layer_norm;
  model_d["attention_scale"] = m.attention_scale;
  out["model"] = model_d;
  py::dict training;
  training["steps"] = t.steps;
  training["batch"] = t.batch;
  training["learning_rate"] = t.adam.learning_rate;
  training["beta1"] = t.adam.beta1;
  training["beta2"] = t.adam.beta2;
  training["weight_decay"] = t.adam.weight_decay;
  training["warmup"] = t.warmup_steps();
  training["min_lr_ratio"] = t.min_lr_ratio;
  training["clip"] = t.clip;
  training["eval_every"] = t.eval_interval();
  training["validation_size"] = t.validation_size;
  training["seed"] = t.seed;
  training["chunks"] = t.chunks;
  training["threads"] = r.threads_used;
  training["precision"] = std::string(numeric::to_string(t.precision));
  training["plateau_tolerance"] = t.plateau_tolerance;
  training["max_steps"] = t.budget();
  out["training"] = training;
  py::dict parameters;
  parameters["total"] = r.parameters.total;
  parameters["theory_M"] = r.parameters.theory();
  parameters["encoder"] = r.parameters.encoder;
  parameters["attention"] = r.parameters.attention;
  parameters["ffn"] = r.parameters.ffn;
  parameters["norm"] = r.parameters.norm;
  parameters["readout"] = r.parameters.readout;
  out["parameters"] = parameters;
  py::dict result;
  result["status"] = std::string(numeric::to_string(r.status));
  result["converged"] = r.status == numeric::RunStatus::kConverged;
  result["steps_done"] = r.steps_done;
  result["cooldown_start"] = r.cooldown.start;
  result["resumed_from"] = r.resumed_from;
  result["diverged_at"] = r.diverged_at;
  result["best_validation_nmse"] = r.best_validation_nmse;
  result["best_step"] = r.best_step;
  result["final_validation_nmse"] = std::isfinite(r.final_validation_nmse)
                                        ? py::object(py::float_(r.final_validation_nmse))
                                        : py::object(py::none());
  result["target_mean"] = r.target_mean;
  result["target_std"] = r.target_std;
  out["result"] = result;
  py::dict timing;
  timing["seconds_total"] = r.seconds_total;
  timing["seconds_training"] = r.seconds_training;
  timing["ms_per_step"] = 1e3 * r.seconds_per_step();
  out["timing"] = timing;
  out["curve"] = curve_arrays(r.curve);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Experiments: sweep, merge, read, verify

py::list sweep(const std::vector<std::string>& experiments, const std::string& experiments_dir,
               const py::dict& kwargs) {
  Options o(kwargs, "sweep");
  const std::string profile = o.text("profile", "quick");
  const std::string results = o.text("results", "results");
  const std::string shard = o.text("shard", "0/1");
  const std::vector<std::string> where = o.texts("where");
  experiments::SweepOptions base;
  base.workers = o.integer("workers", 0);
  base.checkpoint_every = o.integer("checkpoint_every", base.checkpoint_every);
  o.finish();
  if (base.workers < 0 || base.workers > 1024)
    throw InputError("workers must be 0 (one per core) to 1024");
  if (base.checkpoint_every < 0) throw InputError("checkpoint_every must be 0 (none) or positive");
  std::tie(base.shard, base.shards) = experiments::parse_shard(shard);
  for (const std::string& w : where) {
    auto [label, value] = experiments::parse_where(w);
    base.where[label].insert(value);
  }
  const std::vector<experiments::ExperimentSpec> specs =
      experiments::load_specs(experiments, experiments_dir);
  for (const experiments::ExperimentSpec& s : specs) {
    if (std::find(s.profiles.begin(), s.profiles.end(), profile) == s.profiles.end()) {
      throw InputError(SourceLocation{s.file.string(), 0, 0},
                       "experiment " + s.name + " has no profile '" + profile + "'");
    }
  }
  py::list out;
  for (const experiments::ExperimentSpec& s : specs) {
    experiments::SweepOptions opt = base;
    opt.profile = profile;
    const experiments::ResultStore store(fs::path(results) / (s.name + ".jsonl"));
    experiments::SweepSummary r;
    {
      py::gil_scoped_release release;
      r = experiments::run_sweep(s, store, opt);
    }
    py::dict d;
    d["experiment"] = s.name;
    d["profile"] = profile;
    d["results"] = store.file().string();
    d["runs"] = r.runs;
    d["skipped"] = r.skipped;
    d["completed"] = r.completed;
    d["diverged"] = r.diverged;
    d["seconds"] = r.seconds;
    d["warnings"] = r.warnings;
    out.append(d);
  }
  return out;
}

py::dict merge(const std::vector<std::string>& inputs, const std::string& output) {
  std::vector<fs::path> files(inputs.begin(), inputs.end());
  std::vector<std::string> warnings;
  {
    py::gil_scoped_release release;
    warnings = experiments::merge_results(files, output);
  }
  py::dict d;
  d["output"] = output;
  d["runs"] = experiments::ResultStore(output).read().size();
  d["warnings"] = warnings;
  return d;
}

/// A results file's records: columns for a DataFrame (the labels as their own columns).
py::dict read_results(const std::string& file) {
  if (!fs::is_regular_file(file))
    throw InputError(SourceLocation{file, 0, 0}, "no such results file");
  std::vector<std::string> warnings;
  const std::vector<experiments::RunRecord> records =
      experiments::ResultStore(file).read(&warnings);
  py::list rows;
  for (const experiments::RunRecord& r : records) {
    py::dict d;
    d["key"] = r.key;
    d["experiment"] = r.experiment;
    py::dict labels;
    for (const auto& [k, v] : r.labels) labels[py::str(k)] = v;
    d["labels"] = labels;
    d["status"] = std::string(numeric::to_string(r.status));
    d["converged"] = r.converged();
    d["best_validation_nmse"] = r.best_validation_nmse;
    d["final_validation_nmse"] = std::isfinite(r.final_validation_nmse)
                                     ? py::object(py::float_(r.final_validation_nmse))
                                     : py::object(py::none());
    d["steps_done"] = r.steps_done;
    d["diverged_at"] = r.diverged_at;
    d["cooldown_start"] = r.cooldown_start;
    d["parameters"] = r.parameters;
    d["parameters_theory"] = r.parameters_theory;
    d["seconds"] = r.seconds;
    d["seed"] = r.seed;
    std::vector<std::int64_t> steps;
    std::vector<double> nmse;
    for (const auto& [s, v] : r.curve) {
      steps.push_back(s);
      nmse.push_back(v);
    }
    d["curve_step"] = array_of(steps);
    d["curve_nmse"] = array_of(nmse);
    rows.append(d);
  }
  py::dict out;
  out["rows"] = rows;
  out["warnings"] = warnings;
  return out;
}

py::list verify(const std::vector<std::string>& experiments, const std::string& experiments_dir,
                const std::string& directory, const std::vector<std::string>& added,
                const std::string& profile, const std::string& results, const std::string& format) {
  if (format != "data" && format != "text" && format != "latex")
    throw py::value_error("verify(): format must be 'data', 'text' or 'latex', got '" + format +
                          "'");
  const std::vector<experiments::ExperimentSpec> specs =
      experiments::load_specs(experiments, experiments_dir);
  const theorems::Catalogue catalogue = load_catalogue(directory, added);
  theorems::Engine engine(catalogue);
  py::list out;
  for (const experiments::ExperimentSpec& s : specs) {
    const experiments::ResultStore store(fs::path(results) / (s.name + ".jsonl"));
    std::vector<std::string> warnings;
    const std::vector<experiments::RunRecord> records = store.read(&warnings);
    const experiments::ExperimentResult r =
        experiments::verify_in_context(s, profile, records, store.file(), engine);
    if (format == "text") {
      out.append(report::verification_text(r));
      continue;
    }
    if (format == "latex") {
      out.append(report::claims_table_latex(r));
      continue;
    }
    py::list claims;
    for (const experiments::Claim& c : r.claims) {
      py::dict d;
      d["group"] = c.group;
      d["predicted"] = c.prediction;
      d["measured"] = c.measured;
      d["verdict"] = experiments::to_text(c.verdict);
      d["why"] = c.why;
      d["cross_check"] = c.cross_check;
      py::dict runs;
      runs["planned"] = c.runs.planned;
      runs["converged"] = c.runs.converged;
      runs["budget_reached"] = c.runs.budget_reached;
      runs["diverged"] = c.runs.diverged;
      d["runs"] = runs;
      claims.append(d);
    }
    py::dict d;
    d["experiment"] = r.name;
    d["title"] = r.title;
    d["profile"] = r.profile;
    d["claim"] = r.claim_kind;
    d["claims"] = claims;
    d["notes"] = r.notes;
    d["warnings"] = warnings;
    d["latex"] = report::claims_table_latex(r);
    d["text"] = report::verification_text(r);
    out.append(d);
  }
  return out;
}

}  // namespace
}  // namespace infoflow::python

PYBIND11_MODULE(_infoflow, m) {
  namespace ip = infoflow::python;
  m.doc() = "The compiled core of the infoflow package (private: use the functions of `infoflow`).";
  m.attr("__version__") = INFOFLOW_VERSION;
  m.attr("code_version") = infoflow::numeric::kCodeVersion;

  static py::exception<infoflow::Error> error(m, "Error", PyExc_RuntimeError);
  static py::exception<infoflow::InputError> input_error(m, "InputError", PyExc_ValueError);
  error.attr("__doc__") =
      "An error of infoflow that is not the caller's input (a bug: please report it).";
  input_error.attr("__doc__") =
      "Bad input, as the command's exit code 2: str(e) is the command's message\n"
      "('file:line:column: error: ...'); e.message is the message alone, e.file, e.line and\n"
      "e.column the place (None where there is none).";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const infoflow::InputError& e) {
      // py::exception's own operator() sets the error from a string; the type is called through a
      // handle to make the instance that carries the attributes.
      const py::handle type = input_error;
      py::object exc = type(py::str(e.what()));
      const infoflow::SourceLocation& w = e.where();
      exc.attr("message") = e.message();
      exc.attr("file") = w.file.empty() ? py::object(py::none()) : py::object(py::str(w.file));
      exc.attr("line") = w.line > 0 ? py::object(py::int_(w.line)) : py::object(py::none());
      exc.attr("column") = w.column > 0 ? py::object(py::int_(w.column)) : py::object(py::none());
      PyErr_SetObject(input_error.ptr(), exc.ptr());
    } catch (const infoflow::Error& e) {
      error(e.what());
    }
  });

  m.def("symbols", &ip::symbols);
  m.def("catalogue", &ip::catalogue_entries, py::arg("directory"), py::arg("add"),
        py::arg("format"));
  m.def("check", &ip::check, py::arg("directory"), py::arg("add"), py::arg("targets"),
        py::arg("timeout_ms"), py::arg("format"));
  m.def("table", &ip::table, py::arg("directory"), py::arg("add"), py::arg("of"),
        py::arg("standalone"));
  m.def(
      "latex_document",
      [](const std::string& body, const std::string& directory,
         const std::vector<std::string>& added) {
        return infoflow::report::latex_document(body, ip::load_catalogue(directory, added));
      },
      py::arg("body"), py::arg("directory"), py::arg("add"));
  m.def("parse_rate", &ip::parse_rate, py::arg("text"));
  m.def("compare", &ip::compare, py::arg("first"), py::arg("second"), py::arg("assume"));
  m.def("derive", &ip::derive, py::arg("source"), py::arg("directory"), py::arg("add"),
        py::arg("format"), py::arg("options"));
  m.def("plan", &ip::plan, py::arg("source"), py::arg("directory"), py::arg("add"),
        py::arg("format"), py::arg("options"));
  m.def("tasks", [] { return infoflow::numeric::task_names(); });
  m.def("train", &ip::train, py::arg("options"));
  m.def("sweep", &ip::sweep, py::arg("experiments"), py::arg("experiments_dir"),
        py::arg("options"));
  m.def("merge", &ip::merge, py::arg("inputs"), py::arg("output"));
  m.def("read_results", &ip::read_results, py::arg("file"));
  m.def("verify", &ip::verify, py::arg("experiments"), py::arg("experiments_dir"),
        py::arg("directory"), py::arg("add"), py::arg("profile"), py::arg("results"),
        py::arg("format"));
}
