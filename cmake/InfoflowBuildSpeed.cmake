# Build speed: ccache, which does not change the code that is compiled, and unity builds of the
# glue libraries.
# (Precompiled headers were measured and left out: -O3 code generation, not header parsing,
# dominates our sources, so they saved at most 1-2 s a source and cost about as much to compile
# per target; and GCC 12 then reports false -Wstringop-overflow and -Warray-bounds in
# std::string, which breaks the warnings-as-errors presets.)

# ccache, when installed and no launcher is set (-DCMAKE_CXX_COMPILER_LAUNCHER=..., or the
# environment variable of that name at the first configure): a source compiled before with the
# same flags, in any build folder, is then a cache hit. -DINFOFLOW_CCACHE=OFF compiles without it.
option(INFOFLOW_CCACHE "Compile through ccache when it is installed" ON)
if(INFOFLOW_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  find_program(INFOFLOW_CCACHE_PROGRAM ccache)
  if(INFOFLOW_CCACHE_PROGRAM)
    set(CMAKE_CXX_COMPILER_LAUNCHER "${INFOFLOW_CCACHE_PROGRAM}")
  endif()
endif()

# Unity builds of the targets whose sources mostly parse and instantiate the same heavy headers
# (CLI11, nlohmann-json, fmt, GiNaC through the engine's header) and do little else: compiled as
# one source each, the command's ten sources took 30 s of one core against 126 s apart, session's
# 17 s against 59 s, report's 18 s against 49 s (measured on a fresh clone, 2026-12-06). The
# libraries with real computation keep one object a source, so that a change recompiles little,
# and their file-local helpers may share names. -DINFOFLOW_UNITY=OFF builds every source apart.
option(INFOFLOW_UNITY "Unity builds of the command, session and report" ON)
function(infoflow_unity_build target)
  if(INFOFLOW_UNITY)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 16)
  endif()
endfunction()
