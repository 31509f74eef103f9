# SPDX-License-Identifier: MIT
# The training examples: each is built here and run by a test with a
# pass/fail criterion, so none can rot.
#   drs_register     learn an affine theta through GridSample(affine_grid(theta))
#   drs_learn_scale  recover a resize factor through scales_delta (Interpolate-4)
#   drs_embed        a host framework calling the paired forward/backward kernels
#                    directly (no tape): checks its gradients by finite differences
# The first two need the autograd library (and so BLIS).
if(TARGET dresample_autograd_shared)
  foreach(ex register learn_scale)
    add_executable(drs_${ex} ${CMAKE_CURRENT_SOURCE_DIR}/${ex}.c)
    target_compile_options(drs_${ex} PRIVATE ${DRS_WARN})
    target_link_libraries(drs_${ex} PRIVATE dresample::dresample_autograd dresample::m)
    if(DRS_BUILD_TESTS)
      add_test(NAME example_${ex} COMMAND drs_${ex})
      set_tests_properties(example_${ex} PROPERTIES TIMEOUT 60)
    endif()
  endforeach()
else()
  message(STATUS "dresample: no autograd library: examples drs_register and drs_learn_scale skipped")
endif()
# embed uses no tape: only the core library, as a host framework would.
add_executable(drs_embed ${CMAKE_CURRENT_SOURCE_DIR}/embed.c)
target_compile_options(drs_embed PRIVATE ${DRS_WARN})
target_link_libraries(drs_embed PRIVATE dresample::dresample dresample::m)
if(DRS_BUILD_TESTS)
  add_test(NAME example_embed COMMAND drs_embed)
  set_tests_properties(example_embed PROPERTIES TIMEOUT 60)
endif()
