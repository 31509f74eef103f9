# SPDX-License-Identifier: MIT
# CLI tests (included by tests/CMakeLists.txt): the .npy reader/writer unit
# test, and the `dresample` command line driven from Python (numpy + stdlib).

# test_npy needs only tools/npy.c and the header's types, not the library.
add_executable(test_npy ${CMAKE_CURRENT_LIST_DIR}/test_npy.c ${PROJECT_SOURCE_DIR}/tools/npy.c)
target_compile_options(test_npy PRIVATE ${DRS_WARN})
target_include_directories(test_npy PRIVATE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/tools)
add_test(NAME test_npy COMMAND test_npy)

add_test(NAME test_cli
         COMMAND ${DRS_TEST_PY} ${CMAKE_CURRENT_LIST_DIR}/test_cli.py $<TARGET_FILE:dresample_cli>)

# The TensorFlow/PyTorch/Pillow resize CVE inputs through the command line (numpy + stdlib).
add_test(NAME test_hostile_cli
         COMMAND ${DRS_TEST_PY} ${CMAKE_CURRENT_LIST_DIR}/test_hostile_cli.py $<TARGET_FILE:dresample_cli>)
# both need numpy: without it they exit 77 and ctest reports them skipped
set_tests_properties(test_cli test_hostile_cli PROPERTIES SKIP_RETURN_CODE 77)
