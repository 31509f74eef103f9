# SPDX-License-Identifier: MIT
# Packaging tests (included by tests/CMakeLists.txt):
#   install_consumer  the install tree, relocated, consumed four ways
#                     (test_install.sh: find_package shared and static, pkg-config,
#                     add_subdirectory from a host with demo/bench/tests targets)
#   abi_exports       the dynamic symbols of each shared library are exactly the
#                     functions its public header declares (check_exports.sh)
set(_drs_san_flags "")
if(DRS_SANITIZE OR DRS_FUZZ)
  set(_drs_san_flags "-fsanitize=address,undefined")
  if(CMAKE_C_COMPILER_ID MATCHES "Clang")
    string(APPEND _drs_san_flags " -fsanitize=float-cast-overflow")
  endif()
endif()
if(DRS_INSTALL AND DRS_BUILD_CLI AND TARGET dresample_autograd_shared AND TARGET dresample_gradcheck_shared)
  add_test(NAME install_consumer
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/test_install.sh ${PROJECT_BINARY_DIR}
                   ${PROJECT_SOURCE_DIR} ${CMAKE_C_COMPILER} ${CMAKE_COMMAND} ${DRS_SOVERSION}
                   "${_drs_san_flags}")
  set_tests_properties(install_consumer PROPERTIES TIMEOUT 900)
endif()

set(_drs_abi_args $<TARGET_FILE:dresample_shared> ${PROJECT_SOURCE_DIR}/include/dresample.h)
foreach(l autograd gradcheck)
  if(TARGET dresample_${l}_shared)
    list(APPEND _drs_abi_args $<TARGET_FILE:dresample_${l}_shared>
                              ${PROJECT_SOURCE_DIR}/include/dresample_${l}.h)
  endif()
endforeach()
add_test(NAME abi_exports
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/check_exports.sh ${CMAKE_NM} ${_drs_abi_args})
