# SPDX-License-Identifier: MIT
# ctest registration of the Python package's pytest suites: one test per
# tests/python/test_*.py, run by run_pytest.py with the tests' interpreter
# (DRS_TEST_PY: <repo>/venv/bin/python when it exists).  Each reports
# SKIPPED (exit 77) when pytest, numpy or the installed dresample package is
# missing there, or when all its tests were skipped; it never fails for that.
# The package under test is the one installed in that interpreter
# (`venv/bin/pip install .`), not this build tree; the CLI comparisons use
# this build's dresample tool (DRESAMPLE_CLI).
file(GLOB DRS_PY_TESTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/test_*.py)
foreach(f ${DRS_PY_TESTS})
  get_filename_component(n ${f} NAME_WE)
  add_test(NAME python_${n}
           COMMAND ${DRS_TEST_PY} ${CMAKE_CURRENT_LIST_DIR}/run_pytest.py ${f}
           WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set(env "PYTHONDONTWRITEBYTECODE=1")
  if(TARGET dresample_cli)
    list(APPEND env "DRESAMPLE_CLI=$<TARGET_FILE:dresample_cli>")
  endif()
  set_tests_properties(python_${n} PROPERTIES SKIP_RETURN_CODE 77 ENVIRONMENT "${env}"
                       LABELS python)
endforeach()
