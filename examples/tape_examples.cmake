# The training examples: each is built here and run by a test
# with a pass/fail criterion, so none can rot.
#   register     learn an affine theta through GridSample(affine_grid(theta))
#   learn_scale  recover a resize factor through scales_delta (Interpolate-4)
#   embed        a host framework calling the paired forward/backward kernels
#                directly (no tape): checks its gradients by finite differences
if(TARGET dresample_autograd)
  foreach(ex register learn_scale)
    add_executable(${ex} ${CMAKE_CURRENT_SOURCE_DIR}/${ex}.c)
    target_compile_options(${ex} PRIVATE ${DRS_WARN})
    target_link_libraries(${ex} PRIVATE dresample_autograd ${M_LIB})
    add_test(NAME example_${ex} COMMAND ${ex})
    set_tests_properties(example_${ex} PROPERTIES TIMEOUT 60)
  endforeach()
endif()
# embed uses no tape: only the core library, as a host framework would.
add_executable(embed ${CMAKE_CURRENT_SOURCE_DIR}/embed.c)
target_compile_options(embed PRIVATE ${DRS_WARN})
target_link_libraries(embed PRIVATE dresample_shared ${M_LIB})
add_test(NAME example_embed COMMAND embed)
set_tests_properties(example_embed PROPERTIES TIMEOUT 60)
