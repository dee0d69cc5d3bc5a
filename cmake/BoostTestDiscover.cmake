# infoflow_discover_boost_tests(target [LABELS ...]): after each build, list the test tree of a
# Boost.Test module and register one CTest entry per test case (Boost has no gtest_discover_tests).
function(infoflow_discover_boost_tests target)
  cmake_parse_arguments(ARG "" "" "LABELS" ${ARGN})
  set(out "${CMAKE_CURRENT_BINARY_DIR}/${target}_tests.cmake")
  # Five minutes a test case; unoptimised or sanitised code trains about five times slower.
  set(timeout 300)
  if(CMAKE_BUILD_TYPE STREQUAL "Debug")
    set(timeout 1500)
  endif()
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${INFOFLOW_BUILD_TIME_ENV}
            "${CMAKE_COMMAND}" -D "EXE=$<TARGET_FILE:${target}>" -D "OUT=${out}"
            -D "PREFIX=${target}" -D "LABELS=${ARG_LABELS}" -D "TIMEOUT=${timeout}"
            -D "WORKDIR=${CMAKE_CURRENT_BINARY_DIR}"
            -P "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/BoostTestAddTests.cmake"
    BYPRODUCTS "${out}" VERBATIM)
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${out}")
endfunction()
