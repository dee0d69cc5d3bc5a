// infoflow._infoflow: the libraries of the `infoflow` command, seen from Python.
//
// Every function here calls the workflow layer the command line calls (infoflow/session.hpp);
// results come back as plain Python data built from the same JSON the command prints, or as the
// same text, and the training keywords are the run settings' own table
// (numeric/run_settings.hpp). The documented API is python/infoflow/__init__.py; these
// functions are private.
//
// Errors: infoflow::InputError becomes infoflow.InputError (a ValueError) carrying the
// command's message ("file:line:column: error: ...") and the place as attributes; any other
// infoflow::Error becomes infoflow.Error (a RuntimeError); std::bad_alloc a MemoryError.
// Training and sweeps run with the GIL released.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
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
#include "infoflow/session.hpp"
#include "infoflow/symbolic/compare.hpp"
#include "infoflow/symbolic/symbols.hpp"
#include "infoflow/theorems/check.hpp"
#include "infoflow/theorems/engine.hpp"

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

/// An int beyond a C++ long saturates, as the command line's options do (CLI11), so that the
/// range check that follows gives the command's message.
long saturated_long(const py::handle& v) {
  try {
    return v.cast<long>();
  } catch (const py::cast_error&) {
    return v < py::int_(0) ? std::numeric_limits<long>::min() : std::numeric_limits<long>::max();
  }
}

/// An int or float as a double; an int beyond a double's range is infinite, as the command
/// line reads 1e400.
double as_double(const py::handle& v) {
  try {
    return v.cast<double>();
  } catch (const py::cast_error&) {
    return v < py::int_(0) ? -std::numeric_limits<double>::infinity()
                           : std::numeric_limits<double>::infinity();
  }
}

/// Keyword options of a call, read with the types the command line's options have. A value of
/// the wrong type is a TypeError naming the option; an option the call does not know, too.
/// Values go through the checks the command's options go through (session/, numeric's run
/// settings), where a bad one raises InputError with the command's message.
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
    return saturated_long(*v);
  }
  /// The command's seed parser on the int's digits: a negative seed is refused, as there.
  std::uint64_t seed(const std::string& key, std::uint64_t fallback) {
    const py::object* v = take(key);
    if (v == nullptr) return fallback;
    if (py::isinstance<py::bool_>(*v) || !py::isinstance<py::int_>(*v)) fail(key, "an int", *v);
    try {
      return session::parse_seed(py::str(*v).cast<std::string>());
    } catch (const InputError& e) {
      throw InputError(SourceLocation{key, 0, 0}, e.message());
    }
  }
  double real(const std::string& key, double fallback) {
    const py::object* v = take(key);
    if (v == nullptr) return fallback;
    if (py::isinstance<py::bool_>(*v) ||
        !(py::isinstance<py::float_>(*v) || py::isinstance<py::int_>(*v)))
      fail(key, "a number", *v);
    return as_double(*v);
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
  /// A list or tuple of numbers; empty when not given.
  std::vector<double> numbers(const std::string& key) {
    std::vector<double> out;
    for (const py::handle e : list_of(key, "a list of numbers", [](const py::handle& e) {
           return py::isinstance<py::int_>(e) || py::isinstance<py::float_>(e);
         }))
      out.push_back(as_double(e));
    return out;
  }
  /// A list or tuple of ints, each saturated as integer() does; empty when not given.
  std::vector<long> integers(const std::string& key) {
    std::vector<long> out;
    for (const py::handle e : list_of(key, "a list of int",
                                      [](const py::handle& e) { return py::isinstance<py::int_>(e); }))
      out.push_back(saturated_long(e));
    return out;
  }
  /// Heads per layer: a list or tuple of ints, an int (one layer) or "2,2", read by the
  /// command's parser as the text "2,2".
  std::optional<std::vector<long>> heads(const std::string& key) {
    const py::object* v = take(key);
    if (v == nullptr) return std::nullopt;
    return targets::parse_heads(heads_text(call_, key, *v), SourceLocation{key, 0, 0});
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
  /// A run setting (numeric/run_settings.hpp), under its name or its old one, of its type: as
  /// the text its option takes on the command line (an int's digits, a float's repr, "2,2",
  /// true or false), which the command's parser and check then read.
  std::optional<std::string> setting(const numeric::Setting& s) {
    std::string key(s.name);
    if (!has(key) && !s.old_name.empty() && has(std::string(s.old_name))) key = s.old_name;
    if (!has(key)) {
      used_.insert(key);  // a keyword train() takes, for the message of an unknown one
      return std::nullopt;
    }
    const py::object v = *take(key);
    const bool is_int = py::isinstance<py::int_>(v) && !py::isinstance<py::bool_>(v);
    switch (s.type) {
      case numeric::SettingType::kInteger:
      case numeric::SettingType::kSeed:
        if (!is_int) fail(key, "an int", v);
        return py::str(v).cast<std::string>();
      case numeric::SettingType::kNumber:
        if (!is_int && !py::isinstance<py::float_>(v)) fail(key, "a number", v);
        return py::repr(v).cast<std::string>();
      case numeric::SettingType::kFlag:
        if (!py::isinstance<py::bool_>(v)) fail(key, "a bool", v);
        return v.cast<bool>() ? "true" : "false";
      case numeric::SettingType::kHeads:
        return heads_text(call_, key, v);
      case numeric::SettingType::kText:
        break;
    }
    return text(key);
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

  /// Heads as the command line writes them: "2,2" for [2, 2], (2, 2), 2 (one layer) or "2,2".
  static std::string heads_text(const std::string& call, const std::string& key,
                                const py::object& v) {
    if (py::isinstance<py::str>(v)) return v.cast<std::string>();
    if (py::isinstance<py::int_>(v) && !py::isinstance<py::bool_>(v))
      return py::str(v).cast<std::string>();
    const auto wrong = [&] {
      return py::type_error(fmt::format("{}(): {} must be a list of ints such as [2, 2], got {}",
                                        call, key, py::repr(v).cast<std::string>()));
    };
    if (!(py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v))) throw wrong();
    std::string out;
    for (const py::handle e : v) {
      if (py::isinstance<py::bool_>(e) || !py::isinstance<py::int_>(e)) throw wrong();
      out += (out.empty() ? "" : ",") + py::str(e).cast<std::string>();
    }
    return out;
  }

 private:
  /// The list or tuple under `key` (an empty list when not given), each element of the type
  /// `fits` accepts (never a bool); a TypeError otherwise.
  template <class Fits>
  py::list list_of(const std::string& key, const char* what, Fits fits) {
    const py::object* v = take(key);
    py::list out;
    if (v == nullptr) return out;
    if (!(py::isinstance<py::list>(*v) || py::isinstance<py::tuple>(*v))) fail(key, what, *v);
    for (const py::handle e : *v) {
      if (py::isinstance<py::bool_>(e) || !fits(e)) fail(key, what, *v);
      out.append(e);
    }
    return out;
  }
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
                 const std::vector<std::string>& target_files, const py::int_& timeout_ms,
                 const std::string& format) {
  const theorems::CheckOptions options = session::check_options(saturated_long(timeout_ms));
  theorems::Catalogue catalogue = load_catalogue(directory, added);
  theorems::add_derived_bounds(catalogue, target_files);
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

py::object compare(const std::string& first, const std::string& second,
                   const std::vector<std::string>& assumptions) {
  symbolic::SignOracle oracle;
  return to_py(session::comparison_json(session::compare(first, second, assumptions, oracle)));
}

// ---------------------------------------------------------------------------------------------
// The engine: derive and plan (the command's derive_commands.cpp, over the same libraries)

session::TargetRequest target_request(const std::string& source, Options& o) {
  session::TargetRequest t;
  t.source = source;
  t.name = o.text("name");
  t.sets = o.sets("set");
  const long d = o.integer("d", 0);
  if (o.has("d")) t.token_dim = d;  // checked by the request, as the command's --d
  t.positional = o.text("pe");  // checked by resolve, as on the command line
  return t;
}

session::ArchitectureRequest architecture_request(Options& o) {
  session::ArchitectureRequest a;
  a.heads = o.heads("heads");
  a.embedding = o.integer("E", a.embedding);
  a.head_dim = o.integer("head_dim", a.head_dim);
  return a;
}

py::object derive(const std::string& source, const std::string& directory,
                  const std::vector<std::string>& added, const std::string& format,
                  const py::dict& kwargs) {
  Options o(kwargs, "derive");
  const session::TargetRequest t = target_request(source, o);
  const session::ArchitectureRequest arch = architecture_request(o);
  o.finish();
  if (format != "data" && format != "text" && format != "latex" && format != "json" &&
      format != "toml")
    throw py::value_error(
        "derive(): format must be 'data', 'text', 'latex', 'json' or 'toml', got '" + format + "'");
  const theorems::Catalogue catalogue = load_catalogue(directory, added);
  theorems::Engine engine(catalogue);
  const session::Derived d = session::derive(engine, t, arch, format == "text" || format == "data");
  if (format == "text") return py::str(session::derived_text(d));
  if (!d.unset.empty()) return to_py(session::conditions_json(d));
  if (format == "toml") return py::str(report::derived_catalogue_toml(engine, d.derivations));
  if (format == "latex") return py::str(report::derivations_latex(d.derivations, catalogue));
  if (format == "json") return py::str(session::derived_json(d).dump(2) + "\n");
  return to_py(session::derived_data(d, catalogue));
}

py::object plan(const std::string& source, const std::string& directory,
                const std::vector<std::string>& added, const std::string& format,
                const py::dict& kwargs) {
  Options o(kwargs, "plan");
  const session::TargetRequest t = target_request(source, o);
  const session::ArchitectureRequest arch = architecture_request(o);
  o.finish();
  if (format != "data" && format != "text" && format != "json")
    throw py::value_error("plan(): format must be 'data', 'text' or 'json', got '" + format + "'");
  const theorems::Catalogue catalogue = load_catalogue(directory, added);
  theorems::Engine engine(catalogue);
  const session::Planned p = session::plan(engine, t, arch);
  if (format == "text") return py::str(session::planned_text(p));
  if (format == "json") return py::str(session::planned_json(p).dump(2) + "\n");
  return to_py(session::planned_data(p));
}

/// construct()'s and construct_sweep()'s options, as the command's.
construct::ConstructOptions construct_options(Options& o) {
  construct::ConstructOptions options;
  options.beta = o.real("beta", options.beta);
  options.ffn_width = o.integer("ffn_width", options.ffn_width);
  options.readout_width = o.integer("readout_width", options.readout_width);
  options.encoder_width = o.integer("encoder_width", options.encoder_width);
  options.mask_features = o.integer("mask_features", options.mask_features);
  options.samples = o.integer("samples", options.samples);
  options.seed = o.seed("seed", options.seed);
  options.task_seed = o.seed("task_seed", options.task_seed);
  return options;
}

py::object construct(const std::string& source, const std::string& directory,
                     const std::vector<std::string>& added, const std::string& format,
                     const py::dict& kwargs) {
  Options o(kwargs, "construct");
  const session::TargetRequest t = target_request(source, o);
  const session::ArchitectureRequest arch = architecture_request(o);
  const construct::ConstructOptions options = construct_options(o);
  o.finish();
  if (format != "data" && format != "text" && format != "json")
    throw py::value_error("construct(): format must be 'data', 'text' or 'json', got '" + format +
                          "'");
  const targets::TargetSpec spec = session::construction_target(t, arch, options);
  const theorems::Catalogue catalogue = load_catalogue(directory, added);
  theorems::Engine engine(catalogue);
  construct::Construction c;
  {
    py::gil_scoped_release release;
    c = session::construct(engine, spec, arch, options);
  }
  if (format == "text") return py::str(session::construction_text(c, options));
  if (format == "json") return py::str(session::construction_json(c, options).dump(2) + "\n");
  return to_py(session::construction_json(c, options));
}

/// `construct --sweep --format json` as a dict: points, fit, no_fit.
py::object construct_sweep(const std::string& source, const std::string& directory,
                           const std::vector<std::string>& added, const py::dict& kwargs) {
  Options o(kwargs, "construct_sweep");
  const session::TargetRequest t = target_request(source, o);
  const session::ArchitectureRequest arch = architecture_request(o);
  const construct::ConstructOptions options = construct_options(o);
  session::ConstructionSweep sweep;
  sweep.betas = o.numbers("betas");
  sweep.widths = o.integers("widths");
  sweep.lengths = o.integers("Ts");
  o.finish();
  const theorems::Catalogue catalogue = load_catalogue(directory, added);
  theorems::Engine engine(catalogue);
  session::ConstructionSweepResult r;
  {
    py::gil_scoped_release release;
    r = session::construct_sweep(engine, t, arch, options, sweep);
  }
  return to_py(session::sweep_json(r));
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
  session::TrainRequest request;
  request.task = o.text("task");
  request.target_file = o.text("target");
  request.formula = o.text("formula");
  request.target_name = o.text("name");
  request.sets = o.sets("set");
  for (const numeric::Setting& s : numeric::run_settings()) {
    const std::optional<std::string> v = o.setting(s);
    if (!v) continue;
    try {
      s.set(request.settings, numeric::parse_setting(s, *v));
    } catch (const InputError& e) {
      throw InputError(SourceLocation{std::string(s.name), 0, 0}, e.message());
    }
    if (s.name == "T") request.tokens_given = true;
  }
  o.finish();
  const session::PreparedRun run = session::prepare_training(request);

  // Ctrl-C in a notebook stops the run: the progress callback looks for signals (with the GIL)
  // a few times a second and ends the run with KeyboardInterrupt.
  const numeric::ProgressCallback interrupt = [](const numeric::Progress&) {
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
  };
  numeric::TrainResult r;
  {
    py::gil_scoped_release release;
    r = numeric::train(run.settings.model, *run.task, run.settings.training, interrupt);
  }
  // The JSON of `train --format json`, with the curve as numpy arrays.
  py::dict out = to_py(session::training_json(run, r)).cast<py::dict>();
  out["curve"] = curve_arrays(r.curve);
  return out;
}

/// The run settings' table (numeric/run_settings.hpp): train()'s keywords, the command's
/// options and an experiment's profile keys.
py::list run_settings() {
  static const numeric::RunSettings kDefaults;
  py::list out;
  for (const numeric::Setting& s : numeric::run_settings()) {
    py::dict d;
    d["name"] = std::string(s.name);
    d["option"] = s.option();
    d["section"] = std::string(numeric::to_string(s.section));
    d["type"] = std::string(numeric::to_string(s.type));
    d["default"] = s.shows_default
                       ? to_py(std::visit([](const auto& v) { return json(v); }, s.get(kDefaults)))
                       : py::object(py::none());
    d["help"] = std::string(s.help);
    d["old_name"] = s.old_name.empty() ? py::object(py::none()) : py::str(std::string(s.old_name));
    d["in_spec"] = s.in_spec;
    out.append(d);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Experiments: sweep, merge, read, verify

py::list sweep(const std::vector<std::string>& experiments, const std::string& experiments_dir,
               const py::dict& kwargs) {
  Options o(kwargs, "sweep");
  session::SweepRequest request;
  request.experiments = experiments;
  request.profile = o.text("profile", request.profile);
  request.results = o.text("results", request.results);
  request.shard = o.text("shard", request.shard);
  request.where = o.texts("where");
  request.workers = o.integer("workers", request.workers);
  request.checkpoint_every = o.integer("checkpoint_every", request.checkpoint_every);
  o.finish();
  const session::PreparedSweep sweep = session::prepare_sweep(request, experiments_dir);
  py::list out;
  for (const experiments::ExperimentSpec& s : sweep.specs) {
    const experiments::ResultStore store = sweep.store(s);
    experiments::SweepSummary r;
    {
      py::gil_scoped_release release;
      r = experiments::run_sweep(s, store, sweep.options);
    }
    py::dict d;
    d["experiment"] = s.name;
    d["profile"] = request.profile;
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
                const std::string& profile, const std::string& results, const std::string& format,
                bool constructions) {
  if (format != "data" && format != "text" && format != "latex")
    throw py::value_error("verify(): format must be 'data', 'text' or 'latex', got '" + format +
                          "'");
  const std::vector<experiments::ExperimentSpec> specs =
      experiments::load_specs(experiments, experiments_dir);
  const theorems::Catalogue catalogue = load_catalogue(directory, added);
  theorems::Engine engine(catalogue);
  py::list out;
  for (const session::Verified& v :
       session::verify(specs, profile, results, engine, constructions)) {
    if (format == "text") {
      out.append(report::verification_text(v.result));
    } else if (format == "latex") {
      out.append(report::claims_table_latex(v.result));
    } else {
      py::object d = to_py(session::verification_json(v.result));
      d["warnings"] = v.warnings;
      d["latex"] = report::claims_table_latex(v.result);
      d["text"] = report::verification_text(v.result);
      out.append(d);
    }
  }
  return out;
}

py::object spend_budget(const std::vector<std::string>& experiments,
                        const std::string& experiments_dir, const std::string& directory,
                        const std::vector<std::string>& added, const std::string& profile,
                        const std::string& results, const std::string& budget,
                        const py::int_& workers_given) {
  // The command's checks, in its order: before the specs are read.
  const long workers = saturated_long(workers_given);
  session::check_workers(workers);
  const double seconds = experiments::parse_duration(budget);
  const std::vector<experiments::ExperimentSpec> specs =
      experiments::load_specs(experiments, experiments_dir);
  const theorems::Catalogue catalogue = load_catalogue(directory, added);
  theorems::Engine engine(catalogue);
  experiments::BudgetSummary spent;
  {
    py::gil_scoped_release release;
    spent = session::spend_budget(specs, profile, results, engine, seconds, workers);
  }
  return to_py(session::budget_json(spent, seconds));
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
  m.def("construct", &ip::construct, py::arg("source"), py::arg("directory"), py::arg("add"),
        py::arg("format"), py::arg("options"));
  m.def("construct_sweep", &ip::construct_sweep, py::arg("source"), py::arg("directory"),
        py::arg("add"), py::arg("options"));
  m.def("tasks", [] { return infoflow::numeric::task_names(); });
  m.def("train", &ip::train, py::arg("options"));
  m.def("run_settings", &ip::run_settings);
  m.def("sweep", &ip::sweep, py::arg("experiments"), py::arg("experiments_dir"),
        py::arg("options"));
  m.def("merge", &ip::merge, py::arg("inputs"), py::arg("output"));
  m.def("read_results", &ip::read_results, py::arg("file"));
  m.def("verify", &ip::verify, py::arg("experiments"), py::arg("experiments_dir"),
        py::arg("directory"), py::arg("add"), py::arg("profile"), py::arg("results"),
        py::arg("format"), py::arg("constructions"));
  m.def("spend_budget", &ip::spend_budget, py::arg("experiments"), py::arg("experiments_dir"),
        py::arg("directory"), py::arg("add"), py::arg("profile"), py::arg("results"),
        py::arg("budget"), py::arg("workers"));
}
