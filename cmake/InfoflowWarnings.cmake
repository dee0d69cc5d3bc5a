# infoflow_set_warnings(target): our warning set, PRIVATE, so consumers never inherit it.
function(infoflow_set_warnings target)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow
      -Wnon-virtual-dtor -Woverloaded-virtual -Wold-style-cast
      $<$<BOOL:${INFOFLOW_WERROR}>:-Werror>)
    # GCC 12 reports false -Wrestrict overlaps in std::string concatenation (GCC PR 105329).
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
      target_compile_options(${target} PRIVATE -Wno-restrict)
    endif()
  endif()
endfunction()
