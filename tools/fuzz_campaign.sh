#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fuzz_campaign.sh: a long fuzzing campaign over every libFuzzer harness.
#
# Each harness runs in libFuzzer's fork mode with -ignore_crashes/-ignore_ooms/
# -ignore_timeouts (one finding does not hide the next) until it has done at
# least --execs executions (default 10 million) or --minutes minutes, starting
# from its committed corpus.  Afterwards every finding is replayed, grouped by
# the top frames of its stack (or the sanitizer's report location), and the
# first of each group minimised; the inputs that add coverage are merged into
# fuzz/corpus/<harness>/ (-merge=1 keeps it small).  Prints per harness:
# executions, coverage (cov: edges, ft: features), corpus size, distinct
# findings.  Exit status 1 when any finding remains.
#
# Usage: tools/fuzz_campaign.sh [--execs N] [--minutes T] [--jobs J]
#                               [--harness ops,grid,...] [--build DIR] [--no-merge]
# The harnesses are built with clang, ASan+UBSan (-DDRS_FUZZ=ON) in DIR
# (default build-fuzz).  Findings land in DIR/campaign/findings/.
set -euo pipefail
cd "$(dirname "$0")/.."

EXECS=10000000
MINUTES=0
JOBS=2
HARNESSES=""
BUILD=build-fuzz
MERGE=1
while [ $# -gt 0 ]; do
  case "$1" in
    --execs) EXECS=$2; shift 2 ;;
    --minutes) MINUTES=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    --harness) HARNESSES=$(echo "$2" | tr ',' ' '); shift 2 ;;
    --build) BUILD=$2; shift 2 ;;
    --no-merge) MERGE=0; shift ;;
    -h|--help) sed -n '3,20p' "$0"; exit 0 ;;
    *) echo "fuzz_campaign.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tools/lsan.supp:print_suppressions=0}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}

if [ ! -d "$BUILD" ] || [ ! -x "$BUILD/fuzz/fuzz_ops" ]; then
  CC=clang cmake -S . -B "$BUILD" -DDRS_FUZZ=ON -DDRS_BUILD_TESTS=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
else
  cmake -S . -B "$BUILD" >/dev/null # re-read the tree: a harness added since is listed too
fi
# only the harnesses (and what they link)
targets=$(cmake --build "$BUILD" --target help | sed -nE 's/^\.\.\. (fuzz_[a-z0-9_]+).*/\1/p')
[ -n "$targets" ] || { echo "fuzz_campaign.sh: no fuzz_* targets in $BUILD" >&2; exit 2; }
cmake --build "$BUILD" -j2 --target $targets >/dev/null

if [ -z "$HARNESSES" ]; then
  for t in $targets; do HARNESSES="$HARNESSES ${t#fuzz_}"; done
fi

work=$BUILD/campaign
mkdir -p "$work/findings"
summary=$work/summary.txt
printf '%-8s %12s %8s %8s %14s %9s %s\n' harness executions cov ft corpus findings seconds > "$summary"
total_findings=0

# The dedup key of a finding: the sanitizer's own location line, else the top
# three stack frames inside the project tree.
dedup_key() {
  local log=$1 key
  key=$(grep -m1 -oE '[A-Za-z0-9_./-]+:[0-9]+:[0-9]+: runtime error: [a-z -]+' "$log" |
        sed -E 's/^.*\/(forward|backward|autograd|gradcheck|tools|fuzz)\//\1\//' || true)
  if [ -z "$key" ]; then
    key=$(grep -E '^ *#[0-9]+ 0x[0-9a-f]+ in ' "$log" |
          grep -E '/(forward|backward|autograd|gradcheck|tools|fuzz)/' | sed -n 1,3p |
          sed -E 's/^ *#[0-9]+ 0x[0-9a-f]+ in ([^ ]+) .*\/([a-z_]+\/[a-z_0-9]+\.[ch]):([0-9]+).*/\1@\2:\3/' |
          tr '\n' ' ')
    key="$(grep -m1 -oE 'ERROR: [A-Za-z]+Sanitizer: [a-z-]+|ERROR: libFuzzer: [a-z -]+' "$log" || echo unknown) $key"
  fi
  echo "$key"
}

for h in $HARNESSES; do
  exe=$BUILD/fuzz/fuzz_$h
  [ -x "$exe" ] || { echo "fuzz_campaign.sh: no harness $exe" >&2; exit 2; }
  corpus=fuzz/corpus/$h
  new=$work/new-$h
  art=$work/artifacts-$h
  rm -rf "$new" "$art" && mkdir -p "$new" "$art" "$corpus"
  before=$(ls "$corpus" | wc -l)
  limit=()
  [ "$MINUTES" != 0 ] && limit=(-max_total_time=$((MINUTES * 60)))
  echo "== fuzz_$h: up to $EXECS executions${limit:+ or $MINUTES min}, $JOBS jobs (fork mode)"
  t0=$(date +%s)
  "$exe" -fork="$JOBS" -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1 \
    -runs="$EXECS" "${limit[@]}" -rss_limit_mb=4096 -timeout=30 \
    -artifact_prefix="$art/" "$new" "$corpus" > "$work/fuzz-$h.log" 2>&1 || true
  secs=$(( $(date +%s) - t0 ))
  last=$(grep -E '^#[0-9]+: cov:' "$work/fuzz-$h.log" | tail -n 1 || true)
  execs=$(echo "$last" | sed -nE 's/^#([0-9]+):.*/\1/p')
  cov=$(echo "$last" | sed -nE 's/.* cov: ([0-9]+).*/\1/p')
  ft=$(echo "$last" | sed -nE 's/.* ft: ([0-9]+).*/\1/p')

  # findings: replay, group, minimise the first of each group
  declare -A groups=()
  n=0
  for f in "$art"/*; do
    [ -f "$f" ] || continue
    rlog=$work/replay-$h-$(basename "$f").log
    "$exe" -runs=1 "$f" > "$rlog" 2>&1 && continue # no longer reproduces
    key=$(dedup_key "$rlog")
    if [ -z "${groups[$key]:-}" ]; then
      n=$((n + 1))
      groups[$key]=$f
      min=$work/findings/$h-$n
      "$exe" -minimize_crash=1 -runs=20000 -exact_artifact_path="$min" "$f" \
        > "$work/minimize-$h-$n.log" 2>&1 || true
      [ -f "$min" ] || cp "$f" "$min"
      echo "   finding $n: $key"
      echo "     reproducer: $min ($(wc -c < "$min") bytes; run: $exe $min)"
    fi
  done
  unset groups
  total_findings=$((total_findings + n))

  if [ "$MERGE" = 1 ]; then
    "$exe" -merge=1 "$corpus" "$new" > "$work/merge-$h.log" 2>&1 ||
      { tail -n 20 "$work/merge-$h.log"; echo "fuzz_$h: merge failed"; exit 1; }
  fi
  after=$(ls "$corpus" | wc -l)
  printf '%-8s %12s %8s %8s %14s %9s %s\n' "$h" "${execs:-?}" "${cov:-?}" "${ft:-?}" \
    "$before->$after" "$n" "$secs" | tee -a "$summary"
done

echo
cat "$summary"
if [ "$total_findings" -gt 0 ]; then
  echo "fuzz_campaign: $total_findings distinct finding(s); reproducers in $work/findings/"
  exit 1
fi
echo "fuzz_campaign: no findings"
