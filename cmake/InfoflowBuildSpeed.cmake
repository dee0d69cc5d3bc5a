# Build speed: ccache, which does not change the code that is compiled.
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
