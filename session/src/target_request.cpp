#include "infoflow/session/target_request.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <map>
#include <system_error>
#include <utility>

#include "infoflow/core/architecture.hpp"
#include "infoflow/core/error.hpp"
#include "infoflow/core/limits.hpp"
#include "infoflow/theorems/canonical_forms.hpp"

namespace infoflow::session {

namespace {

/// A formula has a character no file name of ours has (brackets, operators, spaces); only
/// other arguments are looked up as files, so the file system never sees a formula.
bool could_be_file_name(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) {
    return std::isalnum(c) != 0 || c == '_' || c == '-' || c == '.' || c == '/' || c == '~';
  });
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

/// "D=3" as (D, 3); InputError unless NAME=INTEGER with the integer at least 1 (T at most
/// limits::kTokens).
std::pair<std::string, long> parse_set(const std::string& s) {
  const std::size_t eq = s.find('=');
  long value = 0;
  const char* end = s.data() + s.size();
  const bool whole = eq != std::string::npos && eq > 0 && [&] {
    const auto [stop, error] = std::from_chars(s.data() + eq + 1, end, value);
    return stop == end && error == std::errc();
  }();
  if (!whole) throw InputError("--set needs NAME=INTEGER, e.g. D=3 (got '" + s + "')");
  std::string key = s.substr(0, eq);
  // Every named integer counts something (tokens, comparisons, a rank, positions): >= 1.
  if (value < 1) throw InputError("--set " + s + ": " + key + " must be at least 1");
  if (key == "T" && value > limits::kTokens) {
    throw InputError("--set " + s + ": T must be between 1 and " + std::to_string(limits::kTokens));
  }
  return {std::move(key), value};
}

}  // namespace

void TargetRequest::check() const {
  if (token_dim) limits::check_in_range(*token_dim, 1, limits::kTokenDim, "d");
  if (!positional.empty()) (void)core::parse_positional_encoding(positional);
  // A name set twice is a slip (the last would win unseen), even with the same value.
  std::map<std::string, std::string> seen;
  for (const std::string& s : sets) {
    const std::string key = parse_set(s).first;
    if (const auto [at, fresh] = seen.emplace(key, s); !fresh)
      throw InputError("--set " + s + ": " + key + " is set twice (" + at->second + " before)");
  }
}

std::vector<targets::TargetSpec> TargetRequest::resolve(bool single) const {
  check();
  // One parser for the words, as for train and spec files (core/architecture.hpp).
  const bool with_positions =
      !positional.empty() &&
      core::parse_positional_encoding(positional) != core::PositionalEncoding::kNone;
  std::vector<targets::TargetSpec> specs;
  bool named_formula = false;  // --name named the formula, rather than picked a file's target
  std::error_code ignored;     // an unreadable or overlong name is simply not a file here
  const bool looks_like_file =
      could_be_file_name(source) &&
      (source.ends_with(".toml") || source.find('/') != std::string::npos);
  // A FIFO or a device is read as a file is; a folder named like a file is refused as one.
  if ((file_only || could_be_file_name(source)) && std::filesystem::exists(source, ignored) &&
      (file_only || looks_like_file || !std::filesystem::is_directory(source, ignored))) {
    specs = targets::load_targets(source);
  } else {
    if (file_only || looks_like_file) {
      // 1/0 is a formula too, but one of no token: say so beside the missing file.
      bool formula = false;
      try {
        (void)targets::Formula::parse(source, SourceLocation{"formula", 1, 1});
        formula = !file_only;
      } catch (const InputError&) {  // not a formula either: the missing file is all there is
        formula = false;
      }
      throw InputError(SourceLocation{source, 0, 0},
                       formula ? "no such target file (read as a formula, it reads no token)"
                               : "no such target file");
    }
    targets::TargetSpec t;
    // A formula's name: --name, as a file's target would be named (labels, tables, reports).
    if (!name.empty() &&
        name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") !=
            std::string::npos) {
      throw InputError("--name '" + name + "': a target name may use letters, digits and '_' only");
    }
    t.name = name.empty() ? "formula" : name;
    named_formula = true;
    t.formula = targets::Formula::parse(source, SourceLocation{"formula", 1, 1});
    t.positional = theorems::reads_positions_when_canonical(t.formula);
    specs.push_back(std::move(t));
  }
  if (!name.empty() && !named_formula) {
    std::erase_if(specs, [&](const targets::TargetSpec& t) { return t.name != name; });
    if (specs.empty()) throw InputError("no target named '" + name + "' in " + source);
  }
  if (single && specs.size() > 1) {
    throw InputError(source + " holds " + std::to_string(specs.size()) +
                     " targets; pick one with --name");
  }
  for (targets::TargetSpec& t : specs) {
    for (const std::string& s : sets) {
      const auto [key, value] = parse_set(s);
      const std::vector<std::string>& known = t.formula.free_integers();
      if (key != "T" && std::find(known.begin(), known.end(), key) == known.end()) {
        throw InputError("--set " + s + ": the formula of " + t.name + " has no integer " + key +
                         (known.empty() ? std::string(" (it names none)")
                                        : " (its integers: " + join(known) + ")"));
      }
      t.set[key] = value;
    }
    if (token_dim) t.token_dim = *token_dim;
    if (!positional.empty()) t.positional = with_positions;
  }
  return specs;
}

void ArchitectureRequest::check() const {
  core::Architecture shape;
  shape.heads = heads.value_or(std::vector<long>{1});
  shape.embedding = embedding;
  shape.head_dim = head_dim;
  shape.token_dim = 1;  // d is the target's, checked by TargetRequest::check
  shape.validate();
}

theorems::Architecture ArchitectureRequest::for_target(const targets::TargetSpec& spec) const {
  return theorems::architecture_for(spec, embedding, head_dim,
                                    heads.value_or(std::vector<long>{1}));
}

}  // namespace infoflow::session
