# `cmake --install`: the libraries and their headers with exported targets (infoflow::core,
# infoflow::symbolic, infoflow::targets, infoflow::numeric, infoflow::theorems,
# infoflow::construct, infoflow::experiments, infoflow::report, infoflow::session) and a package config file, the command, the catalogue and the shipped
# experiment specifications; the Python package is installed by python/CMakeLists.txt.
#
#   find_package(infoflow 0.1 REQUIRED)
#   target_link_libraries(app PRIVATE infoflow::theorems)
#   # the installed catalogue: ${infoflow_CATALOGUE_DIR}
include(CMakePackageConfigHelpers)

set_target_properties(infoflow_core PROPERTIES EXPORT_NAME core)
set(infoflow_libraries infoflow_core infoflow_symbolic infoflow_targets infoflow_numeric
    infoflow_theorems infoflow_construct infoflow_experiments infoflow_report infoflow_session)
install(TARGETS ${infoflow_libraries} EXPORT infoflowTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime
  FILE_SET HEADERS DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT development)
install(TARGETS infoflow RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)

set(infoflow_cmake_dir "${CMAKE_INSTALL_LIBDIR}/cmake/infoflow")
install(EXPORT infoflowTargets NAMESPACE infoflow:: DESTINATION "${infoflow_cmake_dir}"
  COMPONENT development)
set(INFOFLOW_INSTALL_CATALOGUE "${CMAKE_INSTALL_DATADIR}/infoflow/catalogue")
configure_package_config_file(cmake/infoflowConfig.cmake.in
  "${PROJECT_BINARY_DIR}/infoflowConfig.cmake"
  INSTALL_DESTINATION "${infoflow_cmake_dir}"
  PATH_VARS INFOFLOW_INSTALL_CATALOGUE)
write_basic_package_version_file("${PROJECT_BINARY_DIR}/infoflowConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/infoflowConfig.cmake"
  "${PROJECT_BINARY_DIR}/infoflowConfigVersion.cmake"
  DESTINATION "${infoflow_cmake_dir}" COMPONENT development)

# Data: the catalogue (found by the installed command and module) and the experiment specs.
install(DIRECTORY theorems/catalogue/ DESTINATION "${INFOFLOW_INSTALL_CATALOGUE}"
  COMPONENT runtime FILES_MATCHING PATTERN "*.toml")
install(DIRECTORY experiments/ DESTINATION "${CMAKE_INSTALL_DATADIR}/infoflow/experiments"
  COMPONENT runtime FILES_MATCHING PATTERN "*.toml"
  # Results are not data of the specifications; the library's sources share the folder.
  PATTERN "results" EXCLUDE PATTERN "archive" EXCLUDE PATTERN "src" EXCLUDE PATTERN "include" EXCLUDE)
install(FILES targets/targets.toml DESTINATION "${CMAKE_INSTALL_DATADIR}/infoflow"
  COMPONENT runtime)
