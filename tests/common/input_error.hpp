#ifndef INFOFLOW_TESTS_COMMON_INPUT_ERROR_HPP_
#define INFOFLOW_TESTS_COMMON_INPUT_ERROR_HPP_

// What a refusal says: the message of the InputError a call throws, without its location.

#include <string>

#include "infoflow/core/error.hpp"

namespace infoflow::testing {

/// The message (no location prefix) of the InputError `f` throws; "" when it throws none.
template <class F>
std::string input_error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.message();
  }
  return "";
}

}  // namespace infoflow::testing

#endif  // INFOFLOW_TESTS_COMMON_INPUT_ERROR_HPP_
