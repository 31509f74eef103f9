#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fuzz_coverage.sh: how much of the library the committed fuzz corpora reach.
#
# Builds every libFuzzer harness with clang source-based coverage
# (-fprofile-instr-generate -fcoverage-mapping, on top of the usual
# ASan+UBSan fuzz build), replays each harness's corpus (fuzz/corpus/<name>/,
# -runs=0: every input once, no fuzzing), merges the profiles and prints line,
# function and branch coverage per file of forward/, backward/, autograd/,
# gradcheck/ and the .npy code (tools/npy.c), plus the total.
#
# Usage: tools/fuzz_coverage.sh [--build DIR] [--show FILE]
#   --show FILE  also prints the uncovered lines of FILE (e.g. forward/plan.c)
# Needs clang, llvm-profdata and llvm-cov (Debian: clang, llvm).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=build-cov
SHOW=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build) BUILD=$2; shift 2 ;;
    --show) SHOW=$2; shift 2 ;;
    -h|--help) sed -n '3,15p' "$0"; exit 0 ;;
    *) echo "fuzz_coverage.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
PROFDATA=$(command -v llvm-profdata || command -v llvm-profdata-14)
LLVMCOV=$(command -v llvm-cov || command -v llvm-cov-14)

CC=clang cmake -S . -B "$BUILD" -DDRS_FUZZ=ON -DDRS_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_C_FLAGS=-fprofile-instr-generate -fcoverage-mapping" \
  "-DCMAKE_EXE_LINKER_FLAGS=-fprofile-instr-generate" >/dev/null
cmake --build "$BUILD" -j2 >/dev/null

export ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1
export OMP_NUM_THREADS=1
prof=$BUILD/profiles
rm -rf "$prof" && mkdir -p "$prof"
objects=()
for exe in "$BUILD"/fuzz/fuzz_*; do
  [ -x "$exe" ] || continue
  name=$(basename "$exe" | sed 's/^fuzz_//')
  LLVM_PROFILE_FILE="$prof/$name-%p.profraw" "$exe" -runs=0 "fuzz/corpus/$name" \
    > "$prof/$name.log" 2>&1 || { tail -n 20 "$prof/$name.log"; echo "replay of $name failed"; exit 1; }
  echo "replayed fuzz/corpus/$name ($(ls "fuzz/corpus/$name" | wc -l) inputs)"
  objects+=(-object "$exe")
done
"$PROFDATA" merge -sparse "$prof"/*.profraw -o "$prof/all.profdata"

src=()
for d in forward backward autograd gradcheck; do
  for f in "$d"/*.c; do src+=("$PWD/$f"); done
done
src+=("$PWD/tools/npy.c")
# the first -object is the binary; the rest are extra objects
first=${objects[1]}
rest=("${objects[@]:2}")
"$LLVMCOV" report "$first" "${rest[@]}" -instr-profile="$prof/all.profdata" \
  -show-branch-summary "${src[@]}" | sed "s|$PWD/||"
if [ -n "$SHOW" ]; then
  "$LLVMCOV" show "$first" "${rest[@]}" -instr-profile="$prof/all.profdata" \
    -show-line-counts-or-regions "$PWD/$SHOW" | grep -E '^ *[0-9]+\| *0\|' || true
fi
