# infoflow_set_warnings(target): our warning set, PRIVATE, so consumers never inherit it.
function(infoflow_set_warnings target)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow
      -Wnon-virtual-dtor -Woverloaded-virtual -Wold-style-cast
      $<$<BOOL:${INFOFLOW_WERROR}>:-Werror>)
    # GCC 12 reports false -Wrestrict overlaps in std::string concatenation (GCC PR 105329).
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
      target_compile_options(${target} PRIVATE -Wno-restrict)
      # GCC 12 also reports `_mm256_undefined_pd` in Eigen's AVX-512 reductions as maybe
      # uninitialised (a false positive in its own intrinsics header).
      target_compile_options(${target} PRIVATE -Wno-maybe-uninitialized)
    endif()
  endif()
endfunction()
