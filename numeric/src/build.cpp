#include "infoflow/numeric/build.hpp"

namespace infoflow::numeric {

// INFOFLOW_MARCH, INFOFLOW_DEFAULT_MARCH and INFOFLOW_BUILD_TYPE come from CMake, for this file
// only (numeric/CMakeLists.txt).
std::string instruction_set() {
  return INFOFLOW_MARCH;
}
std::string build_type() {
  return INFOFLOW_BUILD_TYPE;
}
bool default_numeric_build() {
  return instruction_set() == INFOFLOW_DEFAULT_MARCH && build_type() == "Release";
}

std::string build_tag() {
  std::string tag;
  if (instruction_set() != INFOFLOW_DEFAULT_MARCH) tag += "/march=" + instruction_set();
  if (build_type() != "Release") tag += "/build=" + build_type();
  return tag;
}

}  // namespace infoflow::numeric
