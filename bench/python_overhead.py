# SPDX-License-Identifier: MIT
"""Call overhead of the dresample Python package (NumPy API).

Times a whole call on a tiny input, where the kernel itself costs almost
nothing: a 1x1x8x8 float32 resize (ONNX Resize-19, linear, scales 2x2), and
for comparison the same call through the private extension alone
(dresample._core, no argument handling in Python), a 1x1x8x8 grid_sample and
the backward of the resize.  Each figure is the best of --repeat rounds of
--number calls (the minimum is the figure least disturbed by other
processes on a shared machine), with the library at 1 thread and at its
default.  Target: the NumPy resize call under 20 us.

Usage: venv/bin/python bench/python_overhead.py [--number N] [--repeat R] [--json]
"""
import argparse
import json
import sys
import timeit

import numpy as np

import dresample as dr

TARGET_US = 20.0


def cases():
    X = np.random.default_rng(0).standard_normal((1, 1, 8, 8)).astype(np.float32)
    dY = np.ones((1, 1, 16, 16), np.float32)
    grid = np.zeros((1, 8, 8, 2), np.float32)
    sc = (1.0, 1.0, 2.0, 2.0)
    empty = np.empty
    core = dr._core
    return [
        ("numpy resize 1x1x8x8 linear x2", lambda: dr.resize(X, scales=sc, mode="linear")),
        ("_core resize (no Python layer)",
         lambda: core.resize(empty, X.dtype, X, None, sc, None, 19, "linear", None, None, None,
                             None, None, None, None, None)),
        ("numpy resize_backward 1x1x8x8 (X, scales)",
         lambda: dr.resize_backward(X, dY, scales=sc, mode="linear")),
        ("numpy grid_sample 1x1x8x8 bilinear", lambda: dr.grid_sample(X, grid)),
        ("numpy torch_interpolate 1x1x8x8 bilinear x2",
         lambda: dr.torch_interpolate(X, scale_factor=2, mode="bilinear")),
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--number", type=int, default=5000, help="calls per round")
    ap.add_argument("--repeat", type=int, default=7, help="rounds (the best is reported)")
    ap.add_argument("--json", action="store_true", help="one JSON object per line")
    args = ap.parse_args()
    before = dr.get_num_threads()
    rows = []
    try:
        for threads in (1, 0):
            dr.set_num_threads(threads)
            for name, fn in cases():
                fn()
                t = min(timeit.repeat(fn, number=args.number, repeat=args.repeat)) / args.number
                rows.append({"case": name, "threads": threads or "default", "us": t * 1e6})
    finally:
        dr.set_num_threads(before)
    if args.json:
        for r in rows:
            print(json.dumps(r))
    else:
        print("dresample %s, numpy %s, python %s" % (dr.__version__, np.__version__,
                                                     sys.version.split()[0]))
        print("%-46s %8s %10s" % ("call", "threads", "us/call"))
        for r in rows:
            print("%-46s %8s %10.2f" % (r["case"], r["threads"], r["us"]))
    worst = max(r["us"] for r in rows if r["case"].startswith("numpy resize 1x1"))
    print("numpy resize call: %.2f us at worst over thread settings (target < %.0f us): %s"
          % (worst, TARGET_US, "ok" if worst < TARGET_US else "OVER"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
