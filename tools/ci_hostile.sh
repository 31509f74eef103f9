#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The hostile-input suite, run by .ci/run before the README's test
# command, and by hand with `bash tools/ci_hostile.sh`:
#  1. the whole ctest suite built with clang under ASan + UBSan (incl.
#     float-cast-overflow) + LeakSanitizer;
#  2. valgrind memcheck on the examples and the tape test (where built);
#  3. every libFuzzer harness: replay of its committed corpus, then
#     DRS_FUZZ_SECONDS (default 300) of fuzzing in fork mode with
#     DRS_FUZZ_JOBS (default 2) jobs; executions and coverage are printed.
#     Longer campaigns: tools/fuzz_campaign.sh.
#  4. the Python package built with ASan + UBSan (gcc; needs the venv that
#     .ci/run makes): tests/python/test_api_fuzz.py's random valid and hostile
#     calls (seed: the day's, or DRS_PY_FUZZ_SEED) for DRS_PY_FUZZ_SECONDS
#     (default 60) each through the NumPy API and dresample.torch, then the
#     NumPy and torch test suites, with the sanitizer runtimes preloaded into
#     the venv's Python.
# Exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZ_SECONDS=${DRS_FUZZ_SECONDS:-300}
FUZZ_JOBS=${DRS_FUZZ_JOBS:-2}
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# only libomp's thread pool is suppressed (tools/lsan.supp)
export LSAN_OPTIONS=suppressions=$PWD/tools/lsan.supp:print_suppressions=0

echo "== 1. ctest under ASan+UBSan+LSan (clang)"
CC=clang cmake -S . -B build-asan -DDRS_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-asan -j2 >/dev/null
# header_cxx only parses the header: it runs none of our code.  install_consumer
# builds its outside consumers with the same sanitizer flags.
if ! ctest --test-dir build-asan --output-on-failure -E "header_cxx|valgrind" \
     > build-asan/ctest.log 2>&1; then
  cat build-asan/ctest.log
  echo "sanitizer ctest: FAILED"
  exit 1
fi
tail -n 4 build-asan/ctest.log

echo "== 2. valgrind memcheck"
if command -v valgrind >/dev/null; then
  cmake -S . -B build-vg -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build build-vg -j2 >/dev/null
  for exe in build-vg/examples/drs_demo build-vg/examples/drs_embed build-vg/examples/drs_learn_scale \
             build-vg/examples/drs_register; do
    [ -x "$exe" ] || continue
    echo "-- $exe"
    OMP_NUM_THREADS=1 valgrind --quiet --error-exitcode=1 --leak-check=full \
      --errors-for-leak-kinds=definite,indirect "$exe" >/dev/null
  done
  echo "valgrind: clean"
else
  echo "valgrind not installed: skipped"
fi

echo "== 3. fuzzers (${FUZZ_SECONDS} s each, fork mode, ${FUZZ_JOBS} jobs)"
CC=clang cmake -S . -B build-fuzz -DDRS_FUZZ=ON -DDRS_BUILD_TESTS=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz -j2 >/dev/null
rm -f build-fuzz/crash-* build-fuzz/leak-* build-fuzz/timeout-* build-fuzz/oom-*
for exe in build-fuzz/fuzz/fuzz_*; do
  [ -x "$exe" ] || continue
  name=$(basename "$exe" | sed 's/^fuzz_//')
  corpus=fuzz/corpus/$name
  new=build-fuzz/new-corpus/$name
  rm -rf "$new" && mkdir -p "$new" "$corpus"
  "$exe" -runs=0 "$corpus" > "build-fuzz/replay-$name.log" 2>&1 ||
    { cat "build-fuzz/replay-$name.log"; echo "fuzz_$name: corpus replay FAILED"; exit 1; }
  # fork mode: a crash in a child ends the run with a non-zero status and an
  # artifact (no -ignore_crashes here: CI must fail on any finding)
  OMP_NUM_THREADS=1 "$exe" -fork="$FUZZ_JOBS" "$new" "$corpus" -max_total_time="$FUZZ_SECONDS" \
    -rss_limit_mb=4096 -artifact_prefix=build-fuzz/ > "build-fuzz/fuzz-$name.log" 2>&1 ||
    { tail -n 60 "build-fuzz/fuzz-$name.log"; echo "fuzz_$name: FAILED"; exit 1; }
  if ls build-fuzz/crash-* build-fuzz/leak-* build-fuzz/timeout-* build-fuzz/oom-* >/dev/null 2>&1; then
    tail -n 60 "build-fuzz/fuzz-$name.log"; echo "fuzz_$name: artifacts left in build-fuzz/"; exit 1
  fi
  last=$(grep -E '^#[0-9]+: cov:' "build-fuzz/fuzz-$name.log" | tail -n 1 || true)
  runs=$(echo "$last" | sed -nE 's/^#([0-9]+):.*/\1/p')
  cov=$(echo "$last" | sed -nE 's/.* cov: ([0-9]+) ft: ([0-9]+).*/cov \1, ft \2/p')
  echo "fuzz_$name: corpus of $(ls "$corpus" | wc -l) replayed, ${runs:-?} executions in ${FUZZ_SECONDS} s (${FUZZ_JOBS} jobs; ${cov:-?}), no crash"
done

echo "== 4. the Python package under ASan+UBSan (gcc)"
if [ -x venv/bin/python ] && venv/bin/python -c "import pytest, numpy" 2>/dev/null; then
  rm -rf build-asan-py
  # the package into a directory of its own, ahead of the venv's copy on PYTHONPATH
  venv/bin/pip install -q --disable-pip-version-check --no-deps --target build-asan-py/site \
    --config-settings="cmake.define.CMAKE_C_FLAGS=-fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer" \
    --config-settings="cmake.define.CMAKE_MODULE_LINKER_FLAGS=-fsanitize=address,undefined,float-cast-overflow" \
    --config-settings=build-dir=build-asan-py/build .
  san_py() {  # the venv's Python with the sanitized package first and the runtimes preloaded
    PYTHONPATH="$ROOT_SAN/build-asan-py/site" \
    LD_PRELOAD="$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)" \
    ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:allocator_may_return_null=1:max_allocation_size_mb=4096 \
    "$ROOT_SAN/venv/bin/python" "$@"
  }
  # (leaks: Python keeps its objects to the end by design; huge requests must
  # come back as NULL, as glibc's do, not abort; none larger than 4 GiB is made)
  ROOT_SAN="$PWD"
  so="$(san_py -c "import dresample._core as c; print(c.__file__)")"
  case "$so" in *build-asan-py/*) ;; *)
    echo "python under ASan+UBSan: the sanitized build is not the one imported ($so)"; exit 1;;
  esac
  # (ldd's output is taken whole before it is searched: `ldd | grep -q` under
  # pipefail fails whenever grep exits on its match while the loader still
  # writes the next line, one write per line, and ldd dies of SIGPIPE)
  ldd_out="$(ldd "$so")"
  case "$ldd_out" in *libasan*) ;; *)
    echo "python under ASan+UBSan: $so is not instrumented"; exit 1;;
  esac
  (cd tests/python && DRS_PY_FUZZ_SECONDS="${DRS_PY_FUZZ_SECONDS:-60}" \
   DRS_PY_FUZZ_SEED="${DRS_PY_FUZZ_SEED:-$(date +%Y%m%d)}" \
   san_py -m pytest -q -p no:cacheprovider test_api_fuzz.py test_numpy.py test_torch.py) \
    > build-asan-py/pytest.log 2>&1 ||
    { tail -n 80 build-asan-py/pytest.log; echo "python under ASan+UBSan: FAILED"; exit 1; }
  echo "python under ASan+UBSan: $(tail -n 1 build-asan-py/pytest.log)"
else
  echo "python under ASan+UBSan: skipped (no venv with numpy and pytest; .ci/run makes it)"
fi
echo "hostile suite: all green"
