# SPDX-License-Identifier: MIT
# Conformance suites (included by tests/CMakeLists.txt).  Each script takes
# the CLI binary as argv[1] and exits 77 (ctest: skipped) when its reference
# package (onnx, torch, PIL, openvino, onnxruntime) cannot be imported by
# ${DRS_TEST_PY}.
set(_drs_conformance
  conformance_onnx_resize onnx_resize.py
  conformance_torch torch_interpolate.py
  conformance_pillow pillow_modes.py
  conformance_torch_backward torch_backward.py
  conformance_torch_grid_sample torch_grid_sample.py
  conformance_onnx_gridsample onnx_gridsample.py
  conformance_openvino openvino_sweep.py
  conformance_onnxruntime onnxruntime_sweep.py)
while(_drs_conformance)
  list(POP_FRONT _drs_conformance _name _script)
  # The torch and pillow scripts are written separately; register them once present.
  if(EXISTS ${CMAKE_CURRENT_LIST_DIR}/${_script})
    add_test(NAME ${_name}
             COMMAND ${DRS_TEST_PY} ${CMAKE_CURRENT_LIST_DIR}/${_script} $<TARGET_FILE:dresample_cli>)
    set_tests_properties(${_name} PROPERTIES SKIP_RETURN_CODE 77)
  endif()
endwhile()
# Re-configure when a script appears in this directory (its mtime changes).
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR})
