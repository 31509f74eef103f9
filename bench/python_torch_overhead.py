# SPDX-License-Identifier: MIT
"""Call overhead of dresample.torch (the PyTorch wrappers).

Times whole calls on a tiny input, where the kernel itself costs almost
nothing: a 1x1x8x8 float32 resize x2 through dresample.torch.resize (ONNX
Resize-19 linear) and dresample.torch.interpolate (the F.interpolate
drop-in), without and with autograd recording, grid_sample, the backward of
the resize, and PyTorch's own F.interpolate for comparison.  Each figure is
the best of --repeat rounds of --number calls (the minimum is the figure least
disturbed by other processes on a shared machine), library and PyTorch at one
thread.  Target: the torch resize call under 40 us.

Usage: venv/bin/python bench/python_torch_overhead.py [--number N] [--repeat R] [--json]
"""
import argparse
import json
import sys
import timeit

import torch
import torch.nn.functional as F

import dresample as dr
import dresample.torch as dt

TARGET_US = 40.0


def cases():
    g = torch.Generator().manual_seed(0)
    x = torch.rand(1, 1, 8, 8, generator=g)
    xg = x.clone().requires_grad_()
    grid = torch.zeros(1, 8, 8, 2)
    dy = torch.ones(1, 1, 16, 16)
    sc = [1.0, 1.0, 2.0, 2.0]
    y = dt.resize(xg, scales=sc, mode="linear")
    return [
        ("torch resize 1x1x8x8 linear x2", lambda: dt.resize(x, scales=sc, mode="linear")),
        ("torch interpolate 1x1x8x8 bilinear x2",
         lambda: dt.interpolate(x, scale_factor=2, mode="bilinear")),
        ("torch resize, input requires_grad (autograd node)",
         lambda: dt.resize(xg, scales=sc, mode="linear")),
        ("torch resize backward (autograd.grad)",
         lambda: torch.autograd.grad(y, xg, dy, retain_graph=True)),
        ("torch grid_sample 1x1x8x8 bilinear", lambda: dt.grid_sample(x, grid)),
        ("numpy resize (for reference)",
         lambda: dr.resize(x.numpy(), scales=sc, mode="linear")),
        ("PyTorch F.interpolate bilinear x2 (for reference)",
         lambda: F.interpolate(x, scale_factor=2, mode="bilinear")),
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--number", type=int, default=3000, help="calls per round")
    ap.add_argument("--repeat", type=int, default=7, help="rounds (the best is reported)")
    ap.add_argument("--json", action="store_true", help="one JSON object per line")
    args = ap.parse_args()
    before = dr.get_num_threads()
    torch.set_num_threads(1)
    dr.set_num_threads(1)
    rows = []
    try:
        for name, fn in cases():
            fn()
            t = min(timeit.repeat(fn, number=args.number, repeat=args.repeat)) / args.number
            rows.append({"case": name, "us": t * 1e6})
    finally:
        dr.set_num_threads(before)
    if args.json:
        for r in rows:
            print(json.dumps(r))
    else:
        print("dresample %s, torch %s, python %s" % (dr.__version__, torch.__version__,
                                                     sys.version.split()[0]))
        print("%-52s %10s" % ("call (1 thread)", "us/call"))
        for r in rows:
            print("%-52s %10.2f" % (r["case"], r["us"]))
    t = rows[0]["us"]
    print("torch resize call: %.2f us (target < %.0f us): %s"
          % (t, TARGET_US, "ok" if t < TARGET_US else "OVER"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
