# SPDX-License-Identifier: MIT
# The imported targets dresample's libraries link besides OpenMP::OpenMP_C:
#   dresample::m     the C maths library (libm), where the platform has one
#   dresample::blis  BLIS (header blis.h, library libblis), used by the
#                    autograd library's matmul only; not created when absent
# Included by the top-level CMakeLists.txt and, installed next to it, by
# dresampleConfig.cmake, so that a consumer's machine finds its own copies:
# the exported targets name these targets, never a path.
# Debian 12's libblis-dev ships no blis.pc, so BLIS is found directly; set
# BLIS_INCLUDE_DIR / BLIS_LIBRARY to point at another installation.
if(NOT TARGET dresample::m)
  find_library(DRS_M_LIBRARY m)
  mark_as_advanced(DRS_M_LIBRARY)
  if(DRS_M_LIBRARY)
    add_library(dresample::m UNKNOWN IMPORTED)
    set_target_properties(dresample::m PROPERTIES IMPORTED_LOCATION "${DRS_M_LIBRARY}")
  else() # not in CMake's search path: leave it to the linker
    add_library(dresample::m INTERFACE IMPORTED)
    set_target_properties(dresample::m PROPERTIES INTERFACE_LINK_LIBRARIES m)
  endif()
endif()

if(NOT TARGET dresample::blis)
  find_path(BLIS_INCLUDE_DIR blis.h PATH_SUFFIXES blis x86_64-linux-gnu aarch64-linux-gnu)
  find_library(BLIS_LIBRARY NAMES blis blis-mt)
  mark_as_advanced(BLIS_INCLUDE_DIR BLIS_LIBRARY)
  if(BLIS_LIBRARY AND EXISTS "${BLIS_INCLUDE_DIR}/blis.h")
    add_library(dresample::blis UNKNOWN IMPORTED)
    set_target_properties(dresample::blis PROPERTIES
      IMPORTED_LOCATION "${BLIS_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${BLIS_INCLUDE_DIR}")
  endif()
endif()
