# SPDX-License-Identifier: MIT
# cmake --install: the library, its header, palev-gen, the EventSource probe provider, the CMake
# package (find_package(paleventing) + palev_add_provider()) and paleventing.pc for pkg-config.
include(CMakePackageConfigHelpers)

set(PALEV_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/paleventing)

install(TARGETS paleventing palev-gen EXPORT paleventingTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/paleventing.h ${PROJECT_SOURCE_DIR}/include/paleventing-gen.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The loader looks beside libpaleventing.so for the EventSource probe provider.
if(TARGET Paleventing-lttng)
  install(TARGETS Paleventing-lttng LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()

# PALEV_STACK=unwind loads it from beside libpaleventing.so too.
if(TARGET paleventing-unwind)
  install(TARGETS paleventing-unwind LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
install(EXPORT paleventingTargets NAMESPACE paleventing:: DESTINATION ${PALEV_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/paleventingConfig.cmake.in
  ${PROJECT_BINARY_DIR}/paleventingConfig.cmake
  INSTALL_DESTINATION ${PALEV_CMAKE_DIR})
# 0.x: a new minor version may break the API, so only the same minor version matches.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/paleventingConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/paleventingConfig.cmake
  ${PROJECT_BINARY_DIR}/paleventingConfigVersion.cmake
  ${CMAKE_CURRENT_LIST_DIR}/PalevAddProvider.cmake
  DESTINATION ${PALEV_CMAKE_DIR})

# paleventing.pc locates the prefix from its own directory, so `cmake --install --prefix DIR`
# and a relocated tree both give right paths.
set(pc_dir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}"
   OR IS_ABSOLUTE "${CMAKE_INSTALL_BINDIR}")
  set(PALEV_PC_PREFIX ${CMAKE_INSTALL_PREFIX})
else()
  file(RELATIVE_PATH up /prefix/${pc_dir} /prefix)
  string(REGEX REPLACE "/$" "" up "${up}")
  set(PALEV_PC_PREFIX "\${pcfiledir}/${up}")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/paleventing.pc.in ${PROJECT_BINARY_DIR}/paleventing.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/paleventing.pc DESTINATION ${pc_dir})
install(FILES ${PROJECT_SOURCE_DIR}/pal/valgrind.supp DESTINATION ${CMAKE_INSTALL_DATADIR}/paleventing)

# palev-collect: the collector, beside palev-gen and palev-trace (which it runs).
install(TARGETS palev-collect RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# palev-trace: reads traces (libbabeltrace2); not part of the CMake package's exported targets.
if(TARGET palev-trace)
  install(TARGETS palev-trace RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
