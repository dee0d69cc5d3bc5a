# Build speed: ccache and precompiled headers. Neither changes the code that is compiled.

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

# Precompiled headers for the third-party headers that most sources of a target include: parsed
# once per target instead of once per source, where that pays (experiments/CMakeLists.txt).
# They are off by default under a compiler launcher: ccache does not cache a source compiled with one (not without relaxing its checks, and the
# compiled header, a binary of each build folder, would differ between folders anyway), so with
# them every such source would be compiled again in each build.
set(infoflow_pch_default ON)
if(CMAKE_CXX_COMPILER_LAUNCHER)
  set(infoflow_pch_default OFF)
endif()
option(INFOFLOW_PCH "Precompile the heavy third-party headers" ${infoflow_pch_default})

# infoflow_precompile_headers(target header...): those headers precompiled for the target's
# sources, when INFOFLOW_PCH is on.
function(infoflow_precompile_headers target)
  if(INFOFLOW_PCH)
    target_precompile_headers(${target} PRIVATE ${ARGN})
    # GCC 12 then reports false -Wstringop-overflow in std::string's operator+ inlined into our
    # code (silent when <string> is not precompiled).
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
      target_compile_options(${target} PRIVATE -Wno-stringop-overflow)
    endif()
  endif()
endfunction()
