# SPDX-License-Identifier: MIT
# Install rules (included by the top-level CMakeLists.txt when DRS_INSTALL is
# ON): the libraries shared and static, the public headers, the CLI, the CMake
# package (dresampleConfig.cmake: relocatable, no absolute path) and one
# pkg-config file per library.
#
# CMake targets after find_package(dresample):
#   dresample::dresample                  shared core
#   dresample::dresample_static           static core
#   dresample::dresample_autograd[_static]  tape autograd over the same kind of core
#   dresample::dresample_gradcheck[_static] gradient checker over the same kind of core
set(_drs_targets dresample_shared dresample_static)
set(_drs_headers include/dresample.h)
set(DRS_HAVE_AUTOGRAD 0)
set(DRS_HAVE_GRADCHECK 0)
if(TARGET dresample_autograd_shared)
  list(APPEND _drs_targets dresample_autograd_shared dresample_autograd_static)
  list(APPEND _drs_headers include/dresample_autograd.h)
  set(DRS_HAVE_AUTOGRAD 1)
endif()
if(TARGET dresample_gradcheck_shared)
  list(APPEND _drs_targets dresample_gradcheck_shared dresample_gradcheck_static)
  list(APPEND _drs_headers include/dresample_gradcheck.h)
  set(DRS_HAVE_GRADCHECK 1)
endif()

install(TARGETS ${_drs_targets} EXPORT dresampleTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${_drs_headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET dresample_cli)
  install(TARGETS dresample_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

# ---- CMake package ----
set(_drs_cmakedir ${CMAKE_INSTALL_LIBDIR}/cmake/dresample)
install(EXPORT dresampleTargets NAMESPACE dresample:: DESTINATION ${_drs_cmakedir})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/dresampleConfig.cmake.in
  ${PROJECT_BINARY_DIR}/dresampleConfig.cmake
  INSTALL_DESTINATION ${_drs_cmakedir})
# 0.x: a minor release may break the ABI, so only the same MAJOR.MINOR is
# compatible; from 1.0 the same MAJOR.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(_drs_compat SameMinorVersion)
else()
  set(_drs_compat SameMajorVersion)
endif()
write_basic_package_version_file(${PROJECT_BINARY_DIR}/dresampleConfigVersion.cmake
  COMPATIBILITY ${_drs_compat})
install(FILES ${PROJECT_BINARY_DIR}/dresampleConfig.cmake
              ${PROJECT_BINARY_DIR}/dresampleConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/dresampleDeps.cmake
        DESTINATION ${_drs_cmakedir})

# ---- pkg-config ----
# prefix is found from the .pc file's own directory, so the tree can move.
set(_drs_pcdir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(IS_ABSOLUTE "${_drs_pcdir}")
  set(DRS_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  set(DRS_PC_PREFIX "\${pcfiledir}")
  string(REPLACE "/" ";" _parts "${_drs_pcdir}")
  foreach(_p ${_parts})
    string(APPEND DRS_PC_PREFIX "/..")
  endforeach()
endif()
set(DRS_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
set(DRS_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
if(IS_ABSOLUTE "${DRS_PC_LIBDIR}")
  set(DRS_PC_LIBDIR_VALUE "${DRS_PC_LIBDIR}")
else()
  set(DRS_PC_LIBDIR_VALUE "\${prefix}/${DRS_PC_LIBDIR}")
endif()
if(IS_ABSOLUTE "${DRS_PC_INCLUDEDIR}")
  set(DRS_PC_INCLUDEDIR_VALUE "${DRS_PC_INCLUDEDIR}")
else()
  set(DRS_PC_INCLUDEDIR_VALUE "\${prefix}/${DRS_PC_INCLUDEDIR}")
endif()
# What a static link needs besides the archives: OpenMP's flag, libm, BLIS.
set(DRS_PC_OPENMP "${OpenMP_C_FLAGS}")
set(DRS_PC_BLIS "")
if(TARGET dresample::blis)
  get_target_property(_blis dresample::blis IMPORTED_LOCATION)
  get_filename_component(_blis_dir "${_blis}" DIRECTORY)
  get_filename_component(_blis_name "${_blis}" NAME_WE)
  string(REGEX REPLACE "^lib" "" _blis_name "${_blis_name}")
  list(FIND CMAKE_C_IMPLICIT_LINK_DIRECTORIES "${_blis_dir}" _implicit)
  if(_implicit EQUAL -1)
    set(DRS_PC_BLIS "-L${_blis_dir} ")
  endif()
  string(APPEND DRS_PC_BLIS "-l${_blis_name}")
endif()
set(_drs_pcs dresample)
if(DRS_HAVE_AUTOGRAD)
  list(APPEND _drs_pcs dresample_autograd)
endif()
if(DRS_HAVE_GRADCHECK)
  list(APPEND _drs_pcs dresample_gradcheck)
endif()
foreach(_pc ${_drs_pcs})
  configure_file(${CMAKE_CURRENT_LIST_DIR}/${_pc}.pc.in ${PROJECT_BINARY_DIR}/${_pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${_pc}.pc DESTINATION ${_drs_pcdir})
endforeach()
