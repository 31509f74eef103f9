#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""compare_builds.py — do two builds of the `dresample` CLI give the same bits?

For speed work that promises "same bits": build the commit before the change
(e.g. `git worktree add /tmp/base HEAD~1` and a Release build there) and the
change, then

    python3 tools/compare_builds.py /tmp/base/build/dresample build/dresample

It runs both CLIs on the same random inputs and compares:
  forward   Resize-19 over f32/f64/u8/i32, linear/cubic/nearest, four
            coordinate modes, antialias and exclude_outside, NCHW and NHWC,
            1 and 2 threads: outputs byte-equal;
  long rows channels-last rows over 16 KiB (tf_crop_and_resize with an
            extrapolation value included): byte-equal;
  backward  Resize-19 X_delta byte-equal, scales_delta within 1e-9 relative
            (a double sum whose order a change may legitimately alter), alone
            and together; TorchInterpolate area/antialias/nearest input_delta
            byte-equal.
Exits 1 on any difference (or when one build fails where the other does
not).  --quick runs a tenth of the forward grid.  Needs numpy (Debian's
python3-numpy, or the venv of the README).
"""
import argparse
import itertools
import os
import subprocess
import sys
import tempfile

import numpy as np


class Runner:
    def __init__(self, base, new, workdir):
        self.clis = {"base": base, "new": new}
        self.d = workdir
        self.n = self.bad = 0

    def path(self, name):
        return os.path.join(self.d, name)

    def save(self, name, a):
        p = self.path(name + ".npy")
        np.save(p, a)
        return p

    def run(self, which, op, attrs, ins, outs, threads, backward):
        cmd = [self.clis[which], "run", op]
        for a in attrs:
            cmd += ["--attr", a]
        for k, v in ins.items():
            cmd += ["--in", f"{k}={v}"]
        if backward:
            cmd.append("--backward")
        files = {k: self.path(f"{k}_{which}.npy") for k in outs}
        for k, f in files.items():
            cmd += ["--out", f"{k}={f}"]
        cmd += ["--threads", str(threads)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode:
            return None, r.stderr.strip()
        return {k: np.load(f) for k, f in files.items()}, ""

    def compare(self, label, op, attrs, ins, outs, threads, backward=False, tol=None):
        """tol: {port: relative tolerance}; other ports must be byte-equal."""
        a, ea = self.run("base", op, attrs, ins, outs, threads, backward)
        b, eb = self.run("new", op, attrs, ins, outs, threads, backward)
        self.n += 1
        if a is None or b is None:
            if (a is None) != (b is None):
                self.bad += 1
                print(f"DIFF {label}: one build failed: base '{ea}' new '{eb}'")
            return
        for k in outs:
            t = (tol or {}).get(k)
            if t is None:
                same = a[k].dtype == b[k].dtype and a[k].tobytes() == b[k].tobytes()
            else:
                scale = max(np.abs(a[k]).max(), 1e-300)
                same = np.abs(a[k] - b[k]).max() <= t * scale
            if not same:
                self.bad += 1
                print(f"DIFF {label} {k} threads={threads} attrs={attrs}")


def forward(R, rng, quick):
    grid = list(itertools.product(
        ["float32", "float64", "uint8", "int32"], ["linear", "cubic", "nearest"],
        ["half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel"],
        [(2, 3, 9, 11), (1, 2, 5, 7, 3), (1, 1, 40, 64)],
        [(2.0, 2.0), (1.7, 0.6), (3.0, 0.5), (2.0, 1.0), (1.0, 2.0)], ["nchw", "nhwc"],
        ["", "antialias=1", "exclude_outside=1"]))
    if quick:
        grid = grid[::10]
    for dt, mode, coord, shape, sc, layout, extra in grid:
        if extra and mode == "nearest":
            continue
        rank = len(shape)
        ax = [rank - 2, rank - 1] if layout == "nchw" else [1, 2]
        x = (rng.standard_normal(shape) * 50 + 100).astype(dt)
        ins = {"X": R.save("x", x), "scales": R.save("sc", np.array(sc, np.float32))}
        attrs = [f"mode={mode}", f"coordinate_transformation_mode={coord}",
                 "axes=" + ",".join(map(str, ax))] + ([extra] if extra else [])
        for thr in (1, 2):
            R.compare("forward", "Resize-19", attrs, ins, ["Y"], thr)


def long_rows(R, rng):
    for dt, mode, coord, shape, sc, extra in itertools.product(
            ["float32", "float64"], ["linear", "cubic", "nearest"],
            ["half_pixel", "align_corners", "tf_crop_and_resize"],
            [(1, 30, 300, 16), (2, 20, 150, 24)],
            [(2.0, 2.0), (1.7, 0.6), (3.0, 0.5), (2.0, 1.0), (1.0, 2.0)],
            ["", "antialias=1"]):
        if extra and mode == "nearest":
            continue
        x = rng.standard_normal(shape).astype(dt)
        ins = {"X": R.save("x", x), "scales": R.save("sc", np.array(sc, np.float32))}
        attrs = [f"mode={mode}", f"coordinate_transformation_mode={coord}", "axes=1,2"]
        attrs += [extra] if extra else []
        if coord == "tf_crop_and_resize":
            ins["roi"] = R.save("roi", np.array([-0.1, 0.2, 1.2, 0.9], np.float32))
            attrs.append("extrapolation_value=3.5")
        R.compare("long rows", "Resize-19", attrs, ins, ["Y"], 2)


def backward(R, rng):
    for dt, mode, coord, shape, sc, layout in itertools.product(
            ["float32", "float64"], ["linear", "cubic", "nearest"],
            ["half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel"],
            [(2, 3, 9, 11), (1, 2, 5, 7, 3)], [(2.0, 2.0), (1.7, 0.6), (3.0, 0.5)],
            ["nchw", "nhwc"]):
        rank = len(shape)
        ax = [rank - 2, rank - 1] if layout == "nchw" else [1, 2]
        out = list(shape)
        for a, s in zip(ax, sc):
            out[a] = int(np.floor(shape[a] * s))
        ins = {"X": R.save("x", rng.standard_normal(shape).astype(dt)),
               "scales": R.save("sc", np.array(sc, np.float32)),
               "output_delta": R.save("dy", rng.standard_normal(out).astype(dt))}
        attrs = [f"mode={mode}", f"coordinate_transformation_mode={coord}",
                 "axes=" + ",".join(map(str, ax))]
        for outs in (["X_delta"], ["X_delta", "scales_delta"], ["scales_delta"]):
            for thr in (1, 2):
                R.compare("backward", "Resize-19", attrs, ins, outs, thr, True,
                          {"scales_delta": 1e-9})
    for dt, mode, aa, shape, size in itertools.product(
            ["float32", "float64"], ["area", "bilinear", "bicubic", "nearest", "nearest-exact"],
            [0, 1], [(2, 3, 37, 41), (1, 1, 64, 64)], [(9, 10), (64, 20), (100, 130), (32, 32)]):
        if aa and mode not in ("bilinear", "bicubic"):
            continue
        ins = {"input": R.save("tx", rng.standard_normal(shape).astype(dt)),
               "output_delta": R.save("tdy", rng.standard_normal(shape[:2] + size).astype(dt))}
        attrs = [f"mode={mode}", "size=" + ",".join(map(str, size))]
        attrs += ["antialias=1"] if aa else []
        for thr in (1, 2):
            R.compare("torch backward", "TorchInterpolate", attrs, ins, ["input_delta"], thr,
                      True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("base", help="the dresample CLI of the build before the change")
    ap.add_argument("new", help="the dresample CLI of the change")
    ap.add_argument("--quick", action="store_true", help="a tenth of the forward grid")
    args = ap.parse_args()
    rng = np.random.default_rng(1)
    with tempfile.TemporaryDirectory(prefix="drs-compare-") as d:
        R = Runner(args.base, args.new, d)
        for name, fn in (("forward", lambda: forward(R, rng, args.quick)),
                         ("long rows", lambda: long_rows(R, rng)),
                         ("backward", lambda: backward(R, rng))):
            n0, b0 = R.n, R.bad
            fn()
            print(f"{name}: {R.n - n0} runs, {R.bad - b0} differences", flush=True)
    print(f"compare_builds: {R.n} runs, {R.bad} differences")
    return 1 if R.bad else 0


if __name__ == "__main__":
    sys.exit(main())
