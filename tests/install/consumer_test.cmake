# Run by CTest (tests/install/CMakeLists.txt). Fails on the first step that fails.
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  message(STATUS "${what}: ok")
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")
# The installed Python module's environment; a sanitizer build preloads its runtimes (top-level
# CMakeLists.txt), since the interpreter is not instrumented.
set(python_env "PYTHONPATH=${prefix}/${PYTHONDIR}")
if(PRELOAD)
  list(APPEND python_env "LD_PRELOAD=${PRELOAD}" "ASAN_OPTIONS=detect_leaks=0")
endif()
run("cmake --install" ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")
foreach(f bin/infoflow share/infoflow/catalogue/tasks.toml
          include/infoflow/theorems/engine.hpp include/infoflow/core/error.hpp)
  if(NOT EXISTS "${prefix}/${f}")
    message(FATAL_ERROR "not installed: ${prefix}/${f}")
  endif()
endforeach()
file(GLOB config "${prefix}/lib*/cmake/infoflow/infoflowConfig.cmake"
                 "${prefix}/lib/*/cmake/infoflow/infoflowConfig.cmake")
if(NOT config)
  message(FATAL_ERROR "no infoflowConfig.cmake under ${prefix}")
endif()

run("configure the consumer" ${CMAKE_COMMAND} -S "${CONSUMER_DIR}" -B "${WORK_DIR}/consumer"
    -G "${GENERATOR}" -D "CMAKE_CXX_COMPILER=${CXX}" -D "CMAKE_PREFIX_PATH=${prefix}"
    -D "CMAKE_CXX_FLAGS=${CXX_FLAGS}" -D CMAKE_BUILD_TYPE=Release)
run("build the consumer" ${CMAKE_COMMAND} --build "${WORK_DIR}/consumer")
# Run from a folder without any catalogue, with INFOFLOW_CATALOGUE unset.
run("run the consumer" ${CMAKE_COMMAND} -E env --unset=INFOFLOW_CATALOGUE
    "${WORK_DIR}/consumer/consumer")
message(STATUS "${last_output}")
if(NOT last_output MATCHES "catalogue: [0-9]+ entries from ${prefix}/share/infoflow/catalogue")
  message(FATAL_ERROR "the consumer did not read the installed catalogue: ${last_output}")
endif()

# The installed command and module read the installed catalogue (not the source tree's): a
# broken file put there must be what they report.
set(broken "${prefix}/share/infoflow/catalogue/zz_broken.toml")
file(WRITE "${broken}" "[paper\n")
foreach(step command python)
  if(step STREQUAL "command")
    set(cmd "${prefix}/bin/infoflow" list)
  elseif(PYTHON)
    set(cmd ${python_env} "${PYTHON}" -c
        "import infoflow\nprint(infoflow.__file__)\ninfoflow.catalogue()")
  else()
    continue()
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=INFOFLOW_CATALOGUE ${cmd}
    WORKING_DIRECTORY "${WORK_DIR}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 0 OR NOT err MATCHES "zz_broken.toml:1:")
    message(FATAL_ERROR "the installed ${step} did not read ${broken}:\n${out}\n${err}")
  endif()
  if(step STREQUAL "python" AND NOT out MATCHES "^${prefix}/")
    message(FATAL_ERROR "python imported infoflow from elsewhere: ${out}")
  endif()
  message(STATUS "the installed ${step} reads the installed catalogue: ok")
endforeach()
file(REMOVE "${broken}")
run("installed infoflow derive" ${CMAKE_COMMAND} -E env --unset=INFOFLOW_CATALOGUE
    "${prefix}/bin/infoflow" derive "max(t) dot(a, x[t])" --heads 1)
if(PYTHON)
  run("installed Python module derive" ${CMAKE_COMMAND} -E env --unset=INFOFLOW_CATALOGUE
      ${python_env} "${PYTHON}" -c
      "import infoflow\nprint(infoflow.derive('max(t) dot(a, x[t])', heads=[1])['plan_rate']['verdict'])")
  message(STATUS "${last_output}")
endif()
file(REMOVE_RECURSE "${prefix}")
