# SPDX-License-Identifier: MIT
# ctest bench_workload_names: drs_bench --workload exits 2, naming the name, for every
# comma-separated name that is neither a probe (copy, arith) nor selects a workload,
# and prints nothing on standard output then.  Run as: cmake -DBENCH=path -P this file.
foreach(list "foo,arith" "arithx" "W1,,W2" "W1,W99")
  execute_process(COMMAND "${BENCH}" --smoke --workload "${list}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 2)
    message(FATAL_ERROR "--workload '${list}': exit status ${rc}, expected 2")
  endif()
  if(NOT err MATCHES "--workload '${list}': '[^']*' selects nothing")
    message(FATAL_ERROR "--workload '${list}': message '${err}'")
  endif()
  if(NOT out STREQUAL "")
    message(FATAL_ERROR "--workload '${list}': printed '${out}'")
  endif()
endforeach()
