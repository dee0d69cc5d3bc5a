#include "cells.hpp"

#include <exception>
#include <limits>

#include "infoflow/numeric/fit.hpp"

namespace infoflow::experiments {

std::map<std::string, std::string> labels_without(const std::map<std::string, std::string>& labels,
                                                  const std::set<std::string>& skip) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : labels) {
    if (skip.count(k) == 0) out.emplace(k, v);
  }
  return out;
}

std::string group_text(const std::map<std::string, std::string>& labels) {
  std::string out;
  for (const auto& [k, v] : labels) out += (out.empty() ? "" : ", ") + k + " = " + v;
  return out.empty() ? "all runs" : out;
}

std::string labels_except(const std::map<std::string, std::string>& labels,
                          const std::set<std::string>& skip) {
  return group_text(labels_without(labels, skip));
}

double as_number(const std::string& s) {
  try {
    return std::stod(s);
  } catch (const std::exception&) {
    return std::numeric_limits<double>::quiet_NaN();
  }
}

Series series_from(const std::string& name, std::vector<std::pair<double, const Cell*>> points) {
  std::sort(points.begin(), points.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  Series s;
  s.name = name;
  for (const auto& [x, c] : points) {
    std::vector<double> v;
    for (const double y : c->nmse) {
      if (std::isfinite(y) && y > 0) v.push_back(y);
    }
    if (v.empty()) continue;
    s.x.push_back(x);
    s.median.push_back(numeric::median_of(v));
    s.low.push_back(*std::min_element(v.begin(), v.end()));
    s.high.push_back(*std::max_element(v.begin(), v.end()));
  }
  return s;
}

}  // namespace infoflow::experiments
