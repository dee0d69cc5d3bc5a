#include "infoflow/report/experiment_report.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <iterator>
#include <optional>
#include <set>
#include <system_error>
#include <tuple>

#include <fmt/format.h>

#include "infoflow/core/atomic_file.hpp"
#include "infoflow/numeric/fit.hpp"
#include "infoflow/report/catalogue_report.hpp"
#include "infoflow/report/verification_text.hpp"
#include "infoflow/symbolic/rate.hpp"

#include <unistd.h>

namespace infoflow::report {

namespace fs = std::filesystem;
using experiments::Agreement;
using experiments::Claim;
using experiments::Confrontation;
using experiments::ConstructedCell;
using experiments::Efficiency;
using experiments::ExperimentResult;
using experiments::LearningCurve;
using experiments::PaperComparison;
using experiments::RunRow;
using experiments::Series;

namespace {

const char* kColours[] = {"blue", "red", "teal", "orange", "violet", "brown", "black", "olive"};
constexpr std::size_t kNamedCurves = 12;  // the most learning curves drawn with a legend

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (const char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string labels_text(const std::map<std::string, std::string>& labels) {
  std::string out;
  for (const auto& [k, v] : labels) out += (out.empty() ? "" : "; ") + k + "=" + v;
  return out;
}

bool have(const char* tool) {
  const std::string command = std::string("command -v ") + tool + " >/dev/null 2>&1";
  return std::system(command.c_str()) == 0;
}

/// A page holding one figure, for its PDF and PNG: `width` by `height` centimetres.
std::string figure_document(const std::string& name, double width, double height) {
  return "\\documentclass{article}\n" +
         fmt::format("\\usepackage[paperwidth={:.1f}cm,paperheight={:.1f}cm,margin=2mm]{{geometry}}\n",
                     width, height) +
         "\\usepackage{pgfplots}\n\\usepgfplotslibrary{fillbetween,groupplots}\n"
         "\\pgfplotsset{compat=1.18}\n"
         "\\pagestyle{empty}\n"
         "\\begin{document}\n\\centering\n\\input{fig_" +
         name + ".tex}\n\\end{document}\n";
}

/// The text ended by a full stop, unless it ends a sentence already.
std::string sentence(const std::string& text) {
  if (text.empty() || text.back() == '.' || text.back() == '!' || text.back() == '?') return text;
  return text + ".";
}

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

/// The end (one past the closing parenthesis) of the group opening at `open`, or npos.
std::size_t group_end(const std::string& text, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < text.size(); ++i) {
    if (text[i] == '(') ++depth;
    if (text[i] == ')' && --depth == 0) return i + 1;
  }
  return std::string::npos;
}

}  // namespace

std::string prose_latex(const std::string& text) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const bool word_start = i == 0 || !word_char(text[i - 1]);
    // A bound the tool printed: O(...), Omega(...), Theta(...).
    if (word_start) {
      bool done = false;
      for (const char* landau : {"Omega(", "Theta(", "O("}) {
        const std::string_view l(landau);
        if (text.compare(i, l.size(), l) != 0) continue;
        const std::size_t end = group_end(text, i + l.size() - 1);
        if (end == std::string::npos) break;
        try {
          const symbolic::WrittenBound b = symbolic::parse_bound(text.substr(i, end - i));
          out += "$" + b.rate.print(b.landau.value_or(symbolic::Landau::kBigO),
                                    symbolic::Format::kLatex) + "$";
          i = end;
          done = true;
        } catch (const InputError&) {
        }
        break;
      }
      if (done) continue;
    }
    // A power: M^(-2.00), T^0.54, 1e-5 stays as it is.
    if (word_start && std::isalpha(static_cast<unsigned char>(text[i])) != 0) {
      std::size_t j = i;
      while (j < text.size() && word_char(text[j])) ++j;
      if (j + 1 < text.size() && text[j] == '^') {
        std::size_t end = std::string::npos;
        std::string exponent;
        if (text[j + 1] == '(') {
          end = group_end(text, j + 1);
          if (end != std::string::npos) exponent = text.substr(j + 2, end - j - 3);
        } else {
          std::size_t k = j + 1;
          if (k < text.size() && text[k] == '-') ++k;
          while (k < text.size() && (std::isdigit(static_cast<unsigned char>(text[k])) != 0 ||
                                     (text[k] == '.' && k + 1 < text.size() &&
                                      std::isdigit(static_cast<unsigned char>(text[k + 1])) != 0))) {
            ++k;
          }
          if (k > j + 1) {
            end = k;
            exponent = text.substr(j + 1, k - j - 1);
          }
        }
        if (end != std::string::npos &&
            exponent.find_first_not_of("0123456789.-+ ") == std::string::npos) {
          const std::string base = text.substr(i, j - i);
          out += "$" + (base == "eps" ? std::string("\\varepsilon") : latex_escape(base)) + "^{" +
                 exponent + "}$";
          i = end;
          continue;
        }
      }
      out += latex_escape(text.substr(i, j - i));
      i = j;
      continue;
    }
    // A command in backticks: typewriter, its options' "--" kept two dashes (not an en dash).
    if (text[i] == '`') {
      const std::size_t close = text.find('`', i + 1);
      if (close != std::string::npos) {
        std::string code;
        for (const char c : text.substr(i + 1, close - i - 1))
          code += c == '-' ? std::string("-{}") : latex_escape(std::string(1, c));
        out += "\\texttt{" + code + "}";
        i = close + 1;
        continue;
      }
    }
    if (text.compare(i, 2, "--") == 0) {
      out += "-{}";
    } else if (text[i] == '~') {
      out += "$\\sim$";
    } else if (text.compare(i, 2, "<=") == 0 || text.compare(i, 2, ">=") == 0) {
      out += text[i] == '<' ? "$\\le$" : "$\\ge$";
      ++i;
    } else if (text[i] == '<' || text[i] == '>') {
      out += text[i] == '<' ? "$<$" : "$>$";
    } else {
      out += latex_escape(std::string(1, text[i]));
    }
    ++i;
  }
  return out;
}

namespace {

/// Whether an experiment's series have no axis to spread over (a heads_phase without a group:
/// every configuration would sit at one x). Its figure is then one point per architecture.
bool without_x_axis(const ExperimentResult& r) {
  if (r.series.empty() || r.rows.empty()) return false;
  const double x0 = r.series.front().x.empty() ? 0.0 : r.series.front().x.front();
  return std::ranges::all_of(r.series, [&](const Series& s) {
    return std::ranges::all_of(s.x, [&](double x) { return x == x0; });
  });
}

/// One labelled point per architecture (median, bars min and max over the seeds; the runs
/// that count are those the claims count: finished, not diverged), filled where the engine
/// calls the architecture efficient and open where not; a colour per group (each T, say).
std::string architectures_pgfplots(const ExperimentResult& r) {
  struct Point {
    std::vector<double> nmse;
    bool efficient = false;
  };
  std::vector<std::string> archs;   // in the spec's order
  std::vector<std::string> groups;  // likewise
  std::map<std::pair<std::string, std::string>, Point> points;
  for (const RunRow& row : r.rows) {
    std::map<std::string, std::string> group = row.labels;
    for (const char* arm : {"heads", "heads_pattern", "L", "seed"}) group.erase(arm);
    const std::string g = labels_text(group);
    const std::string arch = row.labels.count("heads") ? row.labels.at("heads") : "?";
    if (std::find(archs.begin(), archs.end(), arch) == archs.end()) archs.push_back(arch);
    if (std::find(groups.begin(), groups.end(), g) == groups.end()) groups.push_back(g);
    Point& p = points[{g, arch}];
    p.efficient = row.predicted_verdict == theorems::to_text(theorems::Verdict::kEfficient);
    const bool counted = row.status && *row.status != numeric::RunStatus::kDiverged &&
                         std::isfinite(row.best_nmse) && row.best_nmse > 0;
    if (counted) p.nmse.push_back(row.best_nmse);
  }
  std::string ticks;
  std::string names;
  for (std::size_t i = 0; i < archs.size(); ++i) {
    ticks += fmt::format("{}{}", i == 0 ? "" : ",", i);
    names += (i == 0 ? "{" : ",{") + latex_escape(archs[i]) + "}";
  }
  std::string out = fmt::format(
      "\\begin{{tikzpicture}}\n\\begin{{axis}}[width=10cm, height=6.6cm, ymode=log, "
      "xmin=-0.5, xmax={:.1f}, xtick={{{}}}, xticklabels={{{}}}, "
      "xlabel={{architecture (heads per layer)}}, ylabel={{best validation NMSE}}, "
      "legend style={{font=\\scriptsize, at={{(0.5,-0.24)}}, anchor=north, draw=none}}, "
      "legend columns=2, grid=major, grid style={{gray!25}}]\n",
      static_cast<double>(archs.size()) - 0.5, ticks, names);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    // Groups side by side around each tick, so that their bars do not hide one another.
    const double shift =
        groups.size() < 2 ? 0.0 : 0.24 * (static_cast<double>(g) / static_cast<double>(groups.size() - 1) - 0.5);
    for (const bool efficient : {true, false}) {
      std::string rows;
      for (std::size_t i = 0; i < archs.size(); ++i) {
        const auto it = points.find({groups[g], archs[i]});
        if (it == points.end() || it->second.nmse.empty() || it->second.efficient != efficient) continue;
        const std::vector<double>& v = it->second.nmse;
        const double median = numeric::median_of(v);
        rows += fmt::format("{:g} {:.6e} {:.6e} {:.6e}\n", static_cast<double>(i) + shift, median,
                            *std::max_element(v.begin(), v.end()) - median,
                            median - *std::min_element(v.begin(), v.end()));
      }
      if (rows.empty()) continue;
      out += fmt::format(
          "\\addplot[{}, only marks, mark={}, mark size=2.5pt, forget plot, error bars/.cd, "
          "y dir=both, y explicit] table[x=x, y=y, y error plus=ep, y error minus=em] {{\n"
          "x y ep em\n{}}};\n",
          kColours[g % 8], efficient ? "*" : "o", rows);
    }
  }
  // The legend from its own images: a colour per group (if several), a mark per verdict.
  if (groups.size() > 1) {
    for (std::size_t g = 0; g < groups.size(); ++g)
      out += fmt::format("\\addlegendimage{{{}, only marks, mark=square*}}\n\\addlegendentry{{{}}}\n",
                         kColours[g % 8], latex_escape(groups[g]));
  }
  out += "\\addlegendimage{black, only marks, mark=*}\n\\addlegendentry{engine: efficient}\n"
         "\\addlegendimage{black, only marks, mark=o}\n\\addlegendentry{engine: not efficient}\n";
  return out + "\\end{axis}\n\\end{tikzpicture}\n";
}

}  // namespace

std::string figure_pgfplots(const ExperimentResult& r) {
  if (without_x_axis(r)) return architectures_pgfplots(r);
  // The legend goes under the axis, two columns: series names are long ("L = 2, heads = (1,1)").
  std::string out = fmt::format(
      "\\begin{{tikzpicture}}\n\\begin{{axis}}[width=10cm, height=6.6cm, ymode=log, "
      "{}xlabel={{{}}}, "
      "ylabel={{{}}}, legend style={{font=\\scriptsize, at={{(0.5,-0.24)}}, "
      "anchor=north, draw=none}}, legend columns=2, grid=major, grid style={{gray!25}}]\n",
      r.log_x ? "xmode=log, log basis x=2, " : "xtick=data, ", latex_escape(r.x_label),
      latex_escape(r.y_label));
  for (std::size_t i = 0; i < r.series.size(); ++i) {
    const Series& s = r.series[i];
    if (s.x.empty()) continue;
    const char* colour = kColours[i % 8];
    if (s.constructed) {  // one value a point: no bars; dashed, crosses
      out += fmt::format("\\addplot+[{}, dashed, mark=x, mark size=3pt] table[x=x, y=y] {{\nx y\n",
                         colour);
      for (std::size_t k = 0; k < s.x.size(); ++k)
        out += fmt::format("{:g} {:.6e}\n", s.x[k], s.median[k]);
      out += "};\n\\addlegendentry{" + latex_escape(s.name) + "}\n";
      continue;
    }
    out += fmt::format(
        "\\addplot+[{}, mark=*, error bars/.cd, y dir=both, y explicit] table[x=x, y=y, "
        "y error plus=ep, y error minus=em] {{\nx y ep em\n",
        colour);
    for (std::size_t k = 0; k < s.x.size(); ++k) {
      out += fmt::format("{:g} {:.6e} {:.6e} {:.6e}\n", s.x[k], s.median[k],
                         s.high[k] - s.median[k], s.median[k] - s.low[k]);
    }
    out += "};\n\\addlegendentry{" + latex_escape(s.name) + "}\n";
    if (s.has_fit && s.x.size() >= 2) {
      // Over the fitted points only (saturated ones are shown, not fitted): the slope's bootstrap
      // interval as a band, pivoting at the geometric mean of their x, and the fit.
      const double from = s.fit.x_min;
      const double to = s.fit.x_max;
      const double pivot = std::sqrt(from * to);
      const double at_pivot = std::pow(10.0, s.fit.intercept) * std::pow(pivot, s.fit.slope);
      out += fmt::format(
          "\\addplot[draw=none, name path=lo{0}, domain={1:g}:{2:g}, samples=2, forget plot] "
          "{{{3:.6e}*(x/{4:g})^({5:.6f})}};\n"
          "\\addplot[draw=none, name path=hi{0}, domain={1:g}:{2:g}, samples=2, forget plot] "
          "{{{3:.6e}*(x/{4:g})^({6:.6f})}};\n"
          "\\addplot[{7}, opacity=0.12, forget plot] fill between[of=lo{0} and hi{0}];\n",
          i, from, to, at_pivot, pivot, s.fit.slope_ci.low, s.fit.slope_ci.high, colour);
      out += fmt::format(
          "\\addplot[{}, dashed, domain={:g}:{:g}, samples=2, forget plot] "
          "{{10^({:.6f})*x^({:.6f})}};\n",
          colour, from, to, s.fit.intercept, s.fit.slope);
    }
    if (s.predicted_slope && s.x.size() >= 2) {
      out += fmt::format(
          "\\addplot[{}, dotted, thick, domain={:g}:{:g}, samples=2, forget plot] "
          "{{{:.6e}*(x/{:g})^({:.6f})}};\n",
          colour, s.x.front(), s.x.back(), s.median.front(), s.x.front(), *s.predicted_slope);
    }
  }
  // The lines drawn for every series (fit, its band, the predicted slope) have one legend entry
  // each, in black: their colour is the series'.
  bool any_fit = false;
  bool any_predicted = false;
  bool any_constructed = false;
  for (const Series& s : r.series) any_constructed = any_constructed || s.constructed;
  if (any_constructed) {
    out += "\\addlegendimage{black, dashed, mark=x}\n\\addlegendentry{constructed (under "
           "training: optimisation gap)}\n";
  }
  for (const Series& s : r.series) {
    any_fit = any_fit || (s.has_fit && s.x.size() >= 2);
    any_predicted = any_predicted || (s.predicted_slope && s.x.size() >= 2);
  }
  if (any_fit) {
    out += "\\addlegendimage{black, dashed}\n\\addlegendentry{least-squares fit of log NMSE}\n"
           "\\addlegendimage{area legend, draw=none, fill=black, fill opacity=0.12}\n"
           "\\addlegendentry{95\\,\\% bootstrap interval of its slope}\n";
  }
  if (any_predicted) {
    out += "\\addlegendimage{black, dotted, thick}\n\\addlegendentry{predicted slope}\n";
  }
  out += "\\end{axis}\n\\end{tikzpicture}\n";
  return out;
}

/// A claim's constructions in its table cell: the built ones counted (their NMSE is in the
/// table of constructions), the others with their reasons, and the constructed slope.
std::string constructed_latex(const Claim& c) {
  if (c.constructed.empty()) return "";
  long built = 0;
  std::vector<std::string> rest;
  for (const std::string& line : c.constructed) {
    if (line.find(" at M = ") != std::string::npos)
      ++built;
    else
      rest.push_back(line);
  }
  if (built > 0)
    rest.insert(rest.begin(), fmt::format("{} built (the table of constructions)", built));
  return " \\textbf{Constructed:} " + prose_latex(sentence(fmt::format("{}", fmt::join(rest, "; "))));
}

std::string constructions_table_latex(const ExperimentResult& r) {
  bool any = false;
  for (const ConstructedCell& c : r.constructed) any = any || c.built;
  if (!any) return "";
  std::string out =
      "\\noindent Constructions: the plan of each configuration the engine calls efficient, "
      "compiled into the weights of the runs' architecture at their FFN width W and measured on "
      "4,096 fresh sequences (docs/constructions.md). A construction shows that such a network "
      "exists; below training's median, the difference is an optimisation gap.\n"
      "\\begin{longtable}{>{\\raggedright\\arraybackslash}p{0.4\\textwidth}rrlll}\n"
      "\\toprule\nConfiguration & M & W & constructed & trained (median) & gap \\\\\n"
      "\\midrule\n\\endhead\n";
  for (const ConstructedCell& c : r.constructed) {
    if (!c.built) continue;
    const bool trained = std::isfinite(c.trained_median);
    std::vector<std::string> labels;
    for (const auto& [k, v] : c.labels) labels.push_back(k + " = " + v);
    out += fmt::format("{} & {} & {} & {:.2e} & {} & {} \\\\\n",
                       latex_escape(fmt::format("{}", fmt::join(labels, ", "))), c.parameters,
                       c.ffn_width, c.nmse,
                       trained ? fmt::format("{:.2e} ({} seeds)", c.trained_median, c.seeds)
                               : std::string("none"),
                       trained && c.nmse < c.trained_median
                           ? fmt::format("{:.1f} decades", std::log10(c.trained_median / c.nmse))
                           : std::string("none"));
  }
  return out + "\\bottomrule\n\\end{longtable}\n";
}

std::string claims_table_latex(const ExperimentResult& r) {
  std::string out =
      "\\begin{longtable}{>{\\raggedright\\arraybackslash}p{0.13\\textwidth}"
      ">{\\raggedright\\arraybackslash}p{0.25\\textwidth}"
      ">{\\raggedright\\arraybackslash}p{0.3\\textwidth}"
      ">{\\raggedright\\arraybackslash}p{0.22\\textwidth}}\n"
      "\\toprule\nGroup & Predicted & Measured & Verdict, and why \\\\\n\\midrule\n\\endhead\n";
  for (const Claim& c : r.claims) {
    out += fmt::format("{} & {} & {} ({}){} & \\textbf{{{}}}: {}{}{} \\\\\n", prose_latex(c.group),
                       prose_latex(c.prediction), prose_latex(c.measured),
                       prose_latex(to_text(c.runs)),
                       constructed_latex(c), to_text(c.verdict),
                       prose_latex(c.cross_check.empty() && c.evidence.empty() ? c.why
                                                                               : sentence(c.why)),
                       c.cross_check.empty()
                           ? ""
                           : " \\textbf{But} " + prose_latex(sentence(c.cross_check)),
                       c.evidence.empty() ? "" : " Rests on " + prose_latex(sentence(c.evidence)));
  }
  return out + "\\bottomrule\n\\end{longtable}\n";
}

/// The validation curves of the runs that stopped at their budget without converging: what a
/// reader needs to judge "not converged at this budget".
std::string curves_pgfplots(const ExperimentResult& r) {
  std::string out =
      "\\begin{tikzpicture}\n\\begin{axis}[width=10cm, height=6cm, ymode=log, "
      "xlabel={step}, ylabel={validation NMSE}, legend style={font=\\tiny, at={(0.5,-0.2)}, "
      "anchor=north, draw=none}, legend columns=2, grid=major, grid style={gray!25}]\n";
  // Beyond a dozen, a legend is a list no one reads: the curves are drawn alike, unnamed.
  const bool named = r.curves.size() <= kNamedCurves;
  for (std::size_t i = 0; i < r.curves.size(); ++i) {
    const LearningCurve& c = r.curves[i];
    const std::string colour = named ? kColours[i % 8] : "gray";
    out += named ? fmt::format("\\addplot[{}, no marks] coordinates {{", colour)
                 : std::string("\\addplot[gray, opacity=0.5, no marks] coordinates {");
    // The point evaluated where the cool-down began (a run trained until the plateau that
    // reached its cap): the learning rate falls from there.
    std::optional<std::pair<long, double>> cooldown_point;
    for (const auto& [step, nmse] : c.points) {
      if (!std::isfinite(nmse) || nmse <= 0) continue;
      out += fmt::format(" ({},{:.6e})", step, nmse);
      if (c.cooldown_start > 0 && step <= c.cooldown_start) cooldown_point = std::pair{step, nmse};
    }
    out += named ? "};\n\\addlegendentry{" + latex_escape(c.run) + "}\n" : "};\n";
    if (cooldown_point) {
      out += fmt::format("\\addplot[{}, only marks, mark=*, mark size=1.5pt, forget plot] "
                         "coordinates {{ ({},{:.6e}) }};\n",
                         colour, cooldown_point->first, cooldown_point->second);
    }
  }
  return out + "\\end{axis}\n\\end{tikzpicture}\n";
}

/// Whether any of the curves trained until the plateau (their figure marks the cool-down).
bool any_cooldown(const ExperimentResult& r) {
  return std::ranges::any_of(r.curves,
                             [](const LearningCurve& c) { return c.cooldown_start > 0; });
}

std::string reported_table_latex(const ExperimentResult& r) {
  std::string out = "\\begin{center}\n\\begin{tabular}{lrrrr}\n\\toprule\n"
                    "Configuration & Paper & Ours (min) & Ours (median) & Ours / paper \\\\\n"
                    "\\midrule\n";
  for (const PaperComparison& c : r.reported) {
    out += fmt::format("{} & {:.2e} & {} & {} & {} \\\\\n", latex_escape(c.configuration),
                       c.paper, c.seeds > 0 ? fmt::format("{:.2e}", c.ours_min) : "--",
                       c.seeds > 0 ? fmt::format("{:.2e}", c.ours_median) : "--",
                       ratio_text(c));
  }
  return out + "\\bottomrule\n\\end{tabular}\n\\end{center}\n\\noindent Paper values: " +
         latex_escape(r.reported_source) +
         ". Both columns are the best validation NMSE; the paper's is the minimum over its "
         "seeds.\n\n";
}

/// A confronted experiment laid out as the reader compares it: one part per panel (the group
/// without T), its architectures in the spec's order, one column or line per T.
struct ConfrontationGrid {
  std::vector<std::string> panels;
  std::vector<long> lengths;  ///< the T values with at least one finished run, ascending
  std::vector<long> empty_lengths;  ///< those without any
  std::map<std::string, std::vector<std::string>> architectures;
  std::map<std::tuple<std::string, std::string, long>, const Confrontation*> at;

  explicit ConfrontationGrid(const std::vector<Confrontation>& rows) {
    std::set<long> all;
    std::set<long> finished;
    for (const Confrontation& c : rows) {
      if (std::find(panels.begin(), panels.end(), c.panel) == panels.end())
        panels.push_back(c.panel);
      auto& archs = architectures[c.panel];
      if (std::find(archs.begin(), archs.end(), c.architecture) == archs.end())
        archs.push_back(c.architecture);
      at[{c.panel, c.architecture, c.tokens}] = &c;
      all.insert(c.tokens);
      if (c.seeds > 0) finished.insert(c.tokens);
    }
    lengths.assign(finished.begin(), finished.end());
    std::set_difference(all.begin(), all.end(), finished.begin(), finished.end(),
                        std::back_inserter(empty_lengths));
  }
  [[nodiscard]] const Confrontation* find(const std::string& panel, const std::string& arch,
                                          long tokens) const {
    const auto it = at.find({panel, arch, tokens});
    return it == at.end() ? nullptr : it->second;
  }
};

/// One verdict of a row over its T columns, or each T's where they differ.
std::string across_lengths(const ConfrontationGrid& grid, const std::string& panel,
                           const std::string& arch,
                           const std::function<std::string(const Confrontation&)>& part) {
  std::vector<std::pair<long, std::string>> seen;
  for (const auto& [key, c] : grid.at) {
    if (std::get<0>(key) == panel && std::get<1>(key) == arch)
      seen.emplace_back(c->tokens, part(*c));
  }
  const bool same = std::all_of(seen.begin(), seen.end(),
                                [&](const auto& x) { return x.second == seen.front().second; });
  if (same) return seen.empty() ? "" : seen.front().second;
  std::string out;
  for (const auto& [tokens, text] : seen)
    out += fmt::format("{}T = {}: {}", out.empty() ? "" : "; ", tokens, text);
  return out;
}

std::string confrontation_table_latex(const ExperimentResult& r) {
  const ConfrontationGrid grid(r.confrontations);
  const auto column = [](double fraction) {
    return fmt::format(
        ">{{\\raggedright\\arraybackslash}}p{{\\dimexpr {:.2f}\\linewidth-2\\tabcolsep\\relax}}",
        fraction);
  };
  std::string out = "{\\small\n\\begin{longtable}{" + column(0.08) + column(0.19) +
                    column(0.13) + std::string(grid.lengths.size(), 'r') +
                    "}\n\\toprule\nHeads & Engine & Entry";
  for (const long t : grid.lengths) out += fmt::format(" & $T = {}$", t);
  out += " \\\\\n\\midrule\n\\endhead\n";
  const std::size_t width = 3 + grid.lengths.size();
  std::vector<std::pair<std::string, std::vector<std::string>>> reasons;  // text, cells
  for (const std::string& panel : grid.panels) {
    if (grid.panels.size() > 1 || panel != "all runs")
      out += fmt::format("\\multicolumn{{{}}}{{l}}{{\\textit{{{}}}}} \\\\\n", width,
                         latex_escape(panel));
    for (const std::string& arch : grid.architectures.at(panel)) {
      const std::string entry =
          across_lengths(grid, panel, arch, [](const Confrontation& c) {
            return c.entry == Efficiency::kUndecided ? std::string("no claim")
                                                     : entry_claim_text(c);
          });
      out += latex_escape(arch) + " & " +
             latex_escape(across_lengths(grid, panel, arch,
                                         [](const Confrontation& c) { return c.engine; })) +
             " & " + latex_escape(entry);
      for (const long t : grid.lengths) {
        const Confrontation* c = grid.find(panel, arch, t);
        if (c == nullptr || c->seeds == 0) {
          out += " & --";
          continue;
        }
        const bool inconclusive = c->measured == Efficiency::kUndecided;
        std::string mark = inconclusive                              ? "?"
                           : c->measured == Efficiency::kEfficient ? "E"
                                                                   : "N";
        if (c->entry_contradicted) mark = "\\textbf{" + mark + "}$^{*}$";
        if (c->engine_contradicted) mark += "$^{\\dagger}$";
        out += fmt::format(" & {:.1e} ({}/{}) {}", c->median, c->converged, c->seeds, mark);
        if (std::isfinite(c->constructed))
          out += fmt::format("; c {:.1e}{}", c->constructed,
                             c->entry_contradicted_by_construction ? "$^{\\ddagger}$" : "");
        if (inconclusive) {
          const std::string& why = c->measured_reason;
          const std::string where = fmt::format("{} at T = {}", arch, t);
          auto it = std::find_if(reasons.begin(), reasons.end(),
                                 [&](const auto& x) { return x.first == why; });
          if (it == reasons.end()) reasons.push_back({why, {panel + ": " + where}});
          else it->second.push_back(panel + ": " + where);
        }
      }
      out += " \\\\\n";
    }
  }
  out += "\\bottomrule\n\\end{longtable}\n}\n";
  out += "\\noindent Each cell: median best validation NMSE over the finished seeds (converged "
         "of finished), and the measured verdict: E efficient, N not efficient, ? inconclusive; "
         "$^{*}$ in bold: the entry is contradicted; $^{\\dagger}$: the engine is; c: the "
         "construction's NMSE at the runs' size (docs/experiments.md, ``Constructed beside "
         "trained''), $^{\\ddagger}$: the entry is contradicted by it (a decade or more below "
         "the reference).";
  for (const long t : grid.empty_lengths) out += fmt::format(" No finished run at $T = {}$.", t);
  for (const auto& [why, cells] : reasons) {
    std::string list;
    for (std::size_t i = 0; i < cells.size(); ++i)
      list += (i == 0 ? "" : "; ") + latex_escape(cells[i]);
    out += " Inconclusive (" + latex_escape(why) + "): " + list + ".";
  }
  return out + "\n\n";
}

std::string confrontation_pgfplots(const ExperimentResult& r) {
  const ConfrontationGrid grid(r.confrontations);
  std::string out = fmt::format(
      "\\begin{{tikzpicture}}\n\\begin{{groupplot}}[group style={{group size=1 by {}, "
      "vertical sep=2.4cm}}, width=15cm, height=5.6cm, ymode=log, unbounded coords=jump, "
      "x tick label style={{rotate=60, anchor=east, font=\\scriptsize}}, "
      "ylabel={{best validation NMSE (median)}}, grid=major, grid style={{gray!25}}, "
      "legend style={{font=\\scriptsize, at={{(0.5,-0.42)}}, anchor=north, draw=none, "
      "/tikz/every even column/.append style={{column sep=0.4cm}}}}, legend columns=-1]\n",
      grid.panels.size());
  for (std::size_t p = 0; p < grid.panels.size(); ++p) {
    const std::string& panel = grid.panels[p];
    const std::vector<std::string>& archs = grid.architectures.at(panel);
    std::string positions;
    std::string names;
    for (std::size_t i = 0; i < archs.size(); ++i) {
      positions += fmt::format("{}{}", i == 0 ? "" : ",", i);
      names += (i == 0 ? "" : ",") + ("{" + latex_escape(archs[i]) + "}");
    }
    out += fmt::format("\\nextgroupplot[{}xtick={{{}}}, xticklabels={{{}}}{}]\n",
                       panel == "all runs" ? "" : "title={" + latex_escape(panel) + "}, ",
                       positions, names,
                       p + 1 == grid.panels.size() ? ", xlabel={heads per layer}" : "");
    // Every plot is kept out of the legend (an empty one would shift the entries after it);
    // the legend is drawn once, from its own images.
    std::string circled;
    std::string crossed;
    for (std::size_t k = 0; k < grid.lengths.size(); ++k) {
      out += fmt::format("\\addplot[{}, mark=*, forget plot] coordinates {{",
                         kColours[k % 8]);
      for (std::size_t i = 0; i < archs.size(); ++i) {
        const Confrontation* c = grid.find(panel, archs[i], grid.lengths[k]);
        const bool has = c != nullptr && std::isfinite(c->median) && c->median > 0;
        out += has ? fmt::format(" ({},{:.6e})", i, c->median) : fmt::format(" ({},nan)", i);
        if (has && c->entry_contradicted) circled += fmt::format(" ({},{:.6e})", i, c->median);
        if (has && c->engine_contradicted) crossed += fmt::format(" ({},{:.6e})", i, c->median);
      }
      out += "};\n";
    }
    if (!circled.empty())
      out += "\\addplot[only marks, mark=o, mark size=4.5pt, thick, black, forget plot] "
             "coordinates {" + circled + "};\n";
    if (!crossed.empty())
      out += "\\addplot[only marks, mark=x, mark size=5pt, thick, red, forget plot] "
             "coordinates {" + crossed + "};\n";
    if (p + 1 == grid.panels.size()) {
      for (std::size_t k = 0; k < grid.lengths.size(); ++k)
        out += fmt::format("\\addlegendimage{{{}, mark=*}}\n\\addlegendentry{{$T = {}$}}\n",
                           kColours[k % 8], grid.lengths[k]);
      out += "\\addlegendimage{only marks, mark=o, mark size=4.5pt, thick, black}\n"
             "\\addlegendentry{entry contradicted}\n"
             "\\addlegendimage{only marks, mark=x, mark size=5pt, thick, red}\n"
             "\\addlegendentry{engine contradicted}\n";
    }
  }
  return out + "\\end{groupplot}\n\\end{tikzpicture}\n";
}

std::string confrontations_csv(const std::vector<ExperimentResult>& results) {
  std::string out =
      "experiment,profile,entry,group,heads,engine,entry_claim,median_nmse,seeds,converged,"
      "measured,entry_contradicted,engine_contradicted\n";
  for (const ExperimentResult& r : results) {
    for (const Confrontation& c : r.confrontations) {
      out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{}\n", r.name, r.profile,
                         csv_field(entry_statement_text(*r.confronted)),
                         csv_field(c.group), csv_field(c.architecture), csv_field(c.engine),
                         csv_field(entry_claim_text(c)),
                         std::isfinite(c.median) ? fmt::format("{:.6e}", c.median) : "",
                         c.seeds, c.converged, csv_field(measured_text(c)), c.entry_contradicted,
                         c.engine_contradicted);
    }
  }
  return out;
}

std::string results_csv(const std::vector<ExperimentResult>& results) {
  std::string out =
      "experiment,profile,labels,status,best_validation_nmse,parameters,parameters_M,seconds,"
      "predicted_verdict,predicted_rate\n";
  for (const ExperimentResult& r : results) {
    for (const RunRow& row : r.rows) {
      out += fmt::format("{},{},{},{},{},{},{},{:.3f},{},{}\n", r.name, r.profile,
                         csv_field(labels_text(row.labels)), status_text(row),
                         row.status ? fmt::format("{:.6e}", row.best_nmse) : "",
                         row.parameters, row.parameters_theory, row.seconds,
                         csv_field(row.predicted_verdict), csv_field(row.predicted_rate));
    }
  }
  return out;
}

std::string claims_csv(const std::vector<ExperimentResult>& results) {
  std::string out =
      "experiment,profile,group,predicted,measured,verdict,why,cross_check,runs,converged,"
      "budget_reached,diverged,constructed,evidence\n";
  for (const ExperimentResult& r : results) {
    for (const Claim& c : r.claims) {
      out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", r.name, r.profile,
                         csv_field(c.group), csv_field(c.prediction), csv_field(c.measured),
                         to_text(c.verdict), csv_field(c.why), csv_field(c.cross_check),
                         c.runs.planned, c.runs.converged, c.runs.budget_reached,
                         c.runs.diverged, csv_field(fmt::format("{}", fmt::join(c.constructed, "; "))),
                         csv_field(c.evidence));
    }
  }
  return out;
}

ReportFiles write_report(const fs::path& dir, const std::vector<ExperimentResult>& results,
                         bool compile, const theorems::Catalogue* catalogue) {
  ReportFiles files;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {  // the user's folder: exit 2, with the reason
    throw InputError(SourceLocation{dir.string(), 0, 0},
                     "cannot create the report folder: " + ec.message());
  }
  auto put = [&](const std::string& name, const std::string& content) {
    write_file_atomically(dir / name, content);
    files.written.push_back(dir / name);
  };
  long agrees = 0;
  long disagrees = 0;
  long inconclusive = 0;
  for (const ExperimentResult& r : results) {
    for (const Claim& c : r.claims) {
      (c.verdict == Agreement::kAgrees      ? agrees
       : c.verdict == Agreement::kDisagrees ? disagrees
                                            : inconclusive) += 1;
    }
  }
  std::string cites;
  if (catalogue != nullptr) {
    for (const theorems::Paper& p : catalogue->papers()) {
      if (!p.cite.empty()) cites += (cites.empty() ? "" : ",") + p.cite;
    }
  }
  std::string doc =
      "\\documentclass[10pt]{article}\n\\usepackage[margin=1.8cm]{geometry}\n" + latex_preamble() +
      "\\usepackage{pgfplots}\n\\usepgfplotslibrary{fillbetween,groupplots}\n"
      "\\pgfplotsset{compat=1.18}\n\\title{InfoFlow: predictions against measurements}\n\\author{infoflow report}\n"
      "\\date{}\n\\begin{document}\n\\maketitle\n";
  doc += fmt::format(
      "{} claims: {} agree, {} disagree, {} inconclusive (profile {}). Each claim compares the "
      "InfoFlow engine's prediction{} for a configuration with the best validation NMSE of trained "
      "networks (median over seeds; bars: min and max). An agreement is consistency with a "
      "bound, not its proof: training can contradict a lower bound, or show that this recipe "
      "does not reach an upper bound, never that an upper bound is tight or wrong. The rules of "
      "the verdicts are in docs/experiments.md.\n",
      agrees + disagrees + inconclusive, agrees, disagrees, inconclusive,
      results.empty() ? std::string("-") : latex_escape(results.front().profile),
      cites.empty() ? std::string()
                    : " (the bounds of~\\cite{" + cites +
                          "}, combined by this tool's formalization of the InfoFlow rules)");
  for (const ExperimentResult& r : results) {
    // A confronted experiment's figure is the confrontation: architectures along x, one
    // panel per group and one line per T (the NMSE-against-group plot would draw a line per
    // architecture).
    const bool confronted = !r.confrontations.empty();
    const std::size_t panels = ConfrontationGrid(r.confrontations).panels.size();
    put("fig_" + r.name + ".tex", confronted ? confrontation_pgfplots(r) : figure_pgfplots(r));
    put("fig_" + r.name + "_standalone.tex",
        confronted ? figure_document(r.name, 17.2, 6.6 * static_cast<double>(panels) + 1.6)
                   : figure_document(r.name, 14.5, 8.3));
    doc += "\\section{" + latex_escape(r.name) + ": " + prose_latex(r.title) + "}\\label{" +
           latex_label("sec", r.name) + "}\n";
    doc += "\\begin{center}\n\\input{fig_" + r.name + ".tex}\n\\end{center}\n";
    doc += claims_table_latex(r);
    doc += constructions_table_latex(r);
    if (!r.reported.empty()) doc += reported_table_latex(r);
    if (confronted) {
      doc += "\\noindent Architecture by architecture, the engine's verdict, that of " +
             entry_statement_latex(*r.confronted) +
             ", and the measured one (rule: docs/experiments.md, ``Confronting an entry''):\n" +
             confrontation_table_latex(r);
    }
    if (!r.curves.empty()) {
      put("curves_" + r.name + ".tex", curves_pgfplots(r));
      doc += fmt::format(
          "\\noindent {} runs stopped at their step budget while still improving (plateau "
          "test, docs/experiments.md); their validation curves{}{}:\n\\begin{{center}}\n"
          "\\input{{curves_{}.tex}}\n\\end{{center}}\n",
          r.curves.size(),
          r.curves.size() <= kNamedCurves
              ? ""
              : " (unnamed: results.csv lists them, status budget\\_reached)",
          any_cooldown(r) ? " (a dot: the cool-down began there, at the cap, the plateau "
                            "test not having held)"
                          : "",
          r.name);
    }
    for (const std::string& n : r.notes) doc += "\\noindent Note: " + prose_latex(n) + "\n\n";
    doc += fmt::format("\\noindent Training time of the runs: {:.0f} s.\n", r.run_seconds);
  }
  if (catalogue != nullptr) doc += bibliography_latex(doc, *catalogue);
  doc += "\\end{document}\n";
  put("report.tex", doc);
  put("results.csv", results_csv(results));
  put("claims.csv", claims_csv(results));
  if (std::any_of(results.begin(), results.end(),
                  [](const ExperimentResult& r) { return !r.confrontations.empty(); }))
    put("confront.csv", confrontations_csv(results));
  if (!compile) return files;
  if (!have("pdflatex")) {
    files.note =
        "pdflatex is not installed: no PDF or PNG (install texlive-latex-base texlive-pictures)";
    return files;
  }
  // Compile in a scratch folder, then move the PDFs in: a failed run leaves the old ones.
  const fs::path scratch = dir / fmt::format(".build-{}", ::getpid());
  fs::create_directories(scratch);
  for (const fs::path& f : files.written) {
    if (f.extension() == ".tex")
      fs::copy_file(f, scratch / f.filename(), fs::copy_options::overwrite_existing);
  }
  auto latex = [&](const std::string& stem) {
    const std::string command = "cd '" + scratch.string() +
                                "' && pdflatex -interaction=nonstopmode -halt-on-error " + stem +
                                ".tex > " + stem + ".out 2>&1";
    return std::system(command.c_str()) == 0;
  };
  files.pdf = latex("report") && latex("report");  // twice: longtable widths
  if (files.pdf) {
    fs::rename(scratch / "report.pdf", dir / "report.pdf");
    files.written.push_back(dir / "report.pdf");
  } else {
    files.note = "pdflatex failed on report.tex; see " + (scratch / "report.out").string();
    return files;
  }
  const bool png_tool = have("pdftoppm");
  for (const ExperimentResult& r : results) {
    const std::string stem = "fig_" + r.name + "_standalone";
    if (!latex(stem)) {
      files.note = "pdflatex failed on " + stem + ".tex";
      continue;
    }
    fs::rename(scratch / (stem + ".pdf"), dir / ("fig_" + r.name + ".pdf"));
    files.written.push_back(dir / ("fig_" + r.name + ".pdf"));
    if (png_tool) {
      const std::string command = "pdftoppm -png -r 110 -singlefile '" +
                                  (dir / ("fig_" + r.name + ".pdf")).string() + "' '" +
                                  (scratch / ("fig_" + r.name)).string() + "'";
      if (std::system(command.c_str()) == 0) {
        fs::rename(scratch / ("fig_" + r.name + ".png"), dir / ("fig_" + r.name + ".png"));
        files.written.push_back(dir / ("fig_" + r.name + ".png"));
      } else {
        files.note = "pdftoppm failed on fig_" + r.name + ".pdf";
      }
    }
  }
  if (!png_tool) files.note = "pdftoppm is not installed: no PNG previews (install poppler-utils)";
  fs::remove_all(scratch);
  return files;
}

}  // namespace infoflow::report
