# Finds what the Python module needs (pybind11, a Python with numpy); sets INFOFLOW_HAVE_PYTHON.
#
# The interpreter: Python_EXECUTABLE if given, else the first of `python3` on PATH and
# /usr/bin/python3 that imports numpy. (A pyenv or virtualenv shim first on PATH often lacks
# Debian's python3-numpy; the module must be built for the interpreter that will import it.)
set(INFOFLOW_HAVE_PYTHON OFF)
if(NOT Python_EXECUTABLE)
  find_program(infoflow_python_on_path NAMES python3 NO_CACHE)
  foreach(candidate IN ITEMS ${infoflow_python_on_path} /usr/bin/python3)
    if(EXISTS "${candidate}")
      execute_process(COMMAND "${candidate}" -c "import numpy"
        RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
      if(rc EQUAL 0)
        set(Python_EXECUTABLE "${candidate}" CACHE FILEPATH "The Python of the infoflow module")
        break()
      endif()
    endif()
  endforeach()
endif()
if(NOT Python_EXECUTABLE)
  message(STATUS "infoflow: Python module not built: no python3 with numpy "
                 "(apt-get install python3-numpy pybind11-dev)")
  return()
endif()
find_package(Python 3.9 COMPONENTS Interpreter Development.Module)
if(NOT Python_FOUND)
  message(STATUS "infoflow: Python module not built: no Python headers for ${Python_EXECUTABLE} "
                 "(apt-get install python3-dev)")
  return()
endif()
set(PYBIND11_FINDPYTHON ON)
find_package(pybind11 2.6 CONFIG QUIET)
if(NOT pybind11_FOUND)
  message(STATUS "infoflow: Python module not built: pybind11 not found (apt-get install "
                 "pybind11-dev)")
  return()
endif()
set(INFOFLOW_HAVE_PYTHON ON)
message(STATUS "infoflow: Python module for ${Python_EXECUTABLE} (${Python_VERSION}), "
               "pybind11 ${pybind11_VERSION}")
# Where `cmake --install` puts the package: Debian's python3 reads /usr/lib/python3/dist-packages
# and /usr/local/lib/python3.X/dist-packages; elsewhere, set PYTHONPATH (docs/installing.md).
if(NOT INFOFLOW_INSTALL_PYTHONDIR)
  if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
    set(dir "lib/python3/dist-packages")
  else()
    set(dir "lib/python${Python_VERSION_MAJOR}.${Python_VERSION_MINOR}/dist-packages")
  endif()
  set(INFOFLOW_INSTALL_PYTHONDIR "${dir}" CACHE STRING
      "Where the Python package is installed, relative to the prefix")
endif()
