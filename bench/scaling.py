# SPDX-License-Identifier: MIT
"""scaling.py — how each workload of drs_bench scales with the thread count.

Runs the C bench once over a list of thread counts (drs_bench times them call
by call, interleaved), checks that every result is bitwise identical at every
count (the library's determinism promise), and prints per workload and phase
the median time at each count, the speed-up over 1 thread, and at the largest
count the bytes moved per second against the copy probe's at that count:

    python3 bench/scaling.py build/bench/drs_bench [--threads 1,2,4,8,16]
        [--runs 7] [--workload W1,W8] [--json-out FILE] [--no-bind] [--smoke]

The default counts are 1, 2, 4, ... up to the cores this process may run on.
Threads are bound (OMP_PROC_BIND=close, OMP_PLACES=cores) unless the caller
set either variable.  Exit status 1 when a result differs between counts.
Needs only the standard library.
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import _with_malloc_env  # noqa: E402


def default_threads():
    n = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    ts, t = [], 1
    while t < n:
        ts.append(t)
        t *= 2
    return ts + [n]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bench", help="path to the C bench (build/bench/drs_bench)")
    ap.add_argument("--threads", help="comma-separated counts (default 1,2,4,... up to the cores)")
    ap.add_argument("--runs", type=int, default=7, help="timed calls per measurement (median; default 7)")
    ap.add_argument("--workload", help="comma-separated workloads (W8 = W8a-d)")
    ap.add_argument("--no-bind", action="store_true", help="leave OMP_PROC_BIND/OMP_PLACES unset")
    ap.add_argument("--no-malloc-env", action="store_true", help="do not set the glibc malloc variables")
    ap.add_argument("--json-out", help="also write every record of the bench to this file")
    ap.add_argument("--smoke", action="store_true",
                    help="tiny shapes, 1 call (checks the bits across counts, times nothing)")
    a = ap.parse_args()

    threads = [int(t) for t in a.threads.split(",")] if a.threads else default_threads()
    if not threads or min(threads) < 1:
        ap.error("--threads: counts must be >= 1, got %r" % a.threads)
    if 1 not in threads:
        threads = [1] + threads  # the speed-ups are over 1 thread
    env = dict(os.environ) if a.no_malloc_env else _with_malloc_env(os.environ)
    if not a.no_bind and "OMP_PROC_BIND" not in env and "OMP_PLACES" not in env:
        env.update(OMP_PROC_BIND="close", OMP_PLACES="cores")
    cmd = [a.bench, "--json", "--bound", "--runs", str(a.runs),
           "--threads", ",".join(map(str, threads))]
    if a.smoke:
        cmd += ["--smoke", "--warmup", "0", "--no-copy"]
    if a.workload:
        cmd += ["--workload", a.workload + ",copy"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    recs = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    if a.json_out:
        with open(a.json_out, "w") as f:
            json.dump({"threads": threads, "env": {k: env.get(k) for k in
                       ("OMP_PROC_BIND", "OMP_PLACES")}, "records": recs}, f, indent=1)

    copy = {r["threads"]: r for r in recs if r.get("probe") == "copy"}
    rows = {}
    for r in recs:
        if "workload" in r:
            rows.setdefault(r["workload"], {})[r["threads"]] = r

    tmax = max(threads)
    print("dresample scaling: %s, OMP_PROC_BIND=%s OMP_PLACES=%s, median of %d calls"
          % (a.bench, env.get("OMP_PROC_BIND", "-"), env.get("OMP_PLACES", "-"), a.runs))
    if copy:
        print("copy probe GB/s (read + write): " +
              ", ".join("%dT %.1f" % (t, copy[t]["gbs"]) for t in threads if t in copy))
    head = "%-5s %-4s" % ("row", "ph") + "".join("%9s" % ("%dT ms" % t) for t in threads)
    head += "  %8s %8s %7s" % ("x@%dT" % tmax, "GB/s", "%copy")
    print(head)
    bad = []
    for w, by_t in rows.items():
        phases = [("fwd", "fwd_ms", "bytes_fwd", "fwd"), ("bwd", "bwd_ms", "bytes_bwd", "bwd")]
        if any("bwd_scales_ms" in r for r in by_t.values()):
            phases.append(("bwdS", "bwd_scales_ms", "bytes_bwd", "bwd_scales"))
        for ph, key, bkey, hkey in phases:
            ms = {t: by_t[t].get(key) for t in threads if t in by_t}
            if not ms.get(1):
                continue
            hashes = {by_t[t].get(hkey, {}).get("hash") for t in ms}
            if len(hashes) > 1:
                bad.append("%s %s" % (w, ph))
            line = "%-5s %-4s" % (w, ph) + "".join(
                "%9.3f" % ms[t] if ms.get(t) else "%9s" % "-" for t in threads)
            if ms.get(tmax):
                gbs = by_t[tmax][bkey] / (ms[tmax] * 1e6)
                pc = "%6.0f%%" % (100.0 * gbs / copy[tmax]["gbs"]) if tmax in copy else "%7s" % "-"
                line += "  %8.2f %8.1f %s" % (ms[1] / ms[tmax], gbs, pc)
            print(line)
    print("results bitwise identical at %s threads: %s"
          % (",".join(map(str, threads)), "yes" if not bad else "NO: " + ", ".join(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
