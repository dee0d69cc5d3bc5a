#include "infoflow/report/verdict_table.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace infoflow::report {

namespace {

constexpr std::size_t kCellLines = 3;      // a cell shows at most this many lines
constexpr std::size_t kGap = 2;            // spaces between columns
constexpr std::size_t kVerdictWidth = 12;  // "inconclusive"

/// `text` broken on spaces into lines of at most `width` characters (a longer word is split).
std::vector<std::string> wrap(const std::string& text, std::size_t width) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t space = text.find(' ', at);
    std::string word = text.substr(at, space == std::string::npos ? std::string::npos : space - at);
    at = space == std::string::npos ? text.size() : space + 1;
    if (word.empty()) continue;
    while (word.size() > width) {  // a word wider than the column: split it
      if (!line.empty()) lines.push_back(line), line.clear();
      lines.push_back(word.substr(0, width));
      word = word.substr(width);
    }
    if (!line.empty() && line.size() + 1 + word.size() > width) lines.push_back(line), line.clear();
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

/// wrap(), cut after kCellLines lines, the last ending in "..." when text was cut.
std::vector<std::string> cell(const std::string& text, std::size_t width) {
  std::vector<std::string> lines = wrap(text, width);
  if (lines.size() > kCellLines) {
    lines.resize(kCellLines);
    std::string& last = lines.back();
    if (last.size() + 3 > width) last.resize(width - 3);
    last += "...";
  }
  return lines;
}

/// Every line of `text` wrapped to `width`, the first after `label`, the rest under it.
std::string indented(const std::string& label, const std::string& text, std::size_t width) {
  std::string out;
  const std::vector<std::string> lines = wrap(text, width - label.size());
  for (std::size_t i = 0; i < lines.size(); ++i)
    out += (i == 0 ? label : std::string(label.size(), ' ')) + lines[i] + "\n";
  return out;
}

}  // namespace

std::string verdict_table(const std::vector<experiments::ExperimentResult>& results,
                          std::size_t width) {
  if (width < kMinTableWidth)
    throw std::invalid_argument(
        fmt::format("verdict_table(): a width of {} columns; at least {}", width, kMinTableWidth));
  // Columns after the verdict: group, predicted, measured in the proportions 1 : 4/3 : 4/3.
  const std::size_t rest = width - kVerdictWidth - 3 * kGap;
  const std::size_t group_width = rest * 3 / 11;
  const std::size_t predicted_width = (rest - group_width) / 2;
  const std::size_t measured_width = rest - group_width - predicted_width;
  const auto row = [&](const std::string& v, const std::string& g, const std::string& p,
                       const std::string& m) {
    std::string line = fmt::format("{:<{}}{:{}}{:<{}}{:{}}{:<{}}{:{}}{}", v, kVerdictWidth, "",
                                   kGap, g, group_width, "", kGap, p, predicted_width, "", kGap, m);
    line.erase(line.find_last_not_of(' ') + 1);
    return line + "\n";
  };
  std::string out = row("verdict", "claim", "predicted", "measured");
  out += std::string(width, '-') + "\n";
  for (const experiments::ExperimentResult& r : results) {
    out += fmt::format("{} ({}, profile {})\n", r.name, r.claim_kind, r.profile);
    for (const experiments::Claim& c : r.claims) {
      const std::string statistic = c.measured.substr(0, c.measured.find("; "));
      const std::vector<std::string> g = cell(c.group, group_width);
      const std::vector<std::string> p = cell(c.prediction, predicted_width);
      const std::vector<std::string> m = cell(statistic, measured_width);
      const std::size_t lines = std::max({g.size(), p.size(), m.size(), std::size_t{1}});
      const auto at = [](const std::vector<std::string>& v, std::size_t i) {
        return i < v.size() ? v[i] : std::string();
      };
      for (std::size_t i = 0; i < lines; ++i)
        out += row(i == 0 ? to_text(c.verdict) : "", at(g, i), at(p, i), at(m, i));
      const std::string indent(kVerdictWidth + kGap, ' ');
      // Why a claim is open, and which bound a disagreement speaks to (wording matters there).
      if (c.verdict != experiments::Agreement::kAgrees)
        out += indented(indent + "why: ", c.why, width);
      if (!c.cross_check.empty()) out += indented(indent + "BUT: ", c.cross_check, width);
    }
  }
  return out;
}

}  // namespace infoflow::report
