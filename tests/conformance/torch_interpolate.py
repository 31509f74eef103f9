#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""torch_interpolate.py — op TorchInterpolate against torch.nn.functional.interpolate.

Usage: torch_interpolate.py PATH/TO/dresample [--list] [--verbose] [--filter SUBSTR]

Builds a deterministic table of cases and, for each one, writes the input to a
.npy file, runs

    dresample run TorchInterpolate --attr mode=M [--attr size=..|scale_factor=..]
        [--attr align_corners=0/1] [--attr antialias=1]
        [--attr recompute_scale_factor=0/1] --in input=x.npy --out output=y.npy

and compares output shape, dtype and values with F.interpolate on CPU (torch
1.13; an attribute left out means None).  What is covered:

  * every mode at every rank torch accepts it: nearest, nearest-exact and area
    on 3-D, 4-D and 5-D inputs; linear 3-D; bilinear and bicubic 4-D (also with
    antialias=True); trilinear 5-D;
  * per spatial axis: up- and down-sampling, integer and non-integer ratios,
    identity, output size 1, input size 1, and mixed up/down across axes;
  * `size` given (list, and a single int broadcast to every axis) and
    `scale_factor` given (list and single float) with recompute_scale_factor
    None / True / False; scale factors whose output length truncates
    (L*s not an integer) and ones that hit PyTorch's nearest closed forms
    (O == L, O == 2L with s != 1, 2) with C == 1 and C > 1 (torch 1.13 takes
    its channels-last nearest kernel, with those closed forms, only when a
    4-D/5-D input has C == 1); long 1-D axes (up to 1000) for nearest,
    nearest-exact and area;
  * align_corners None / False / True for the interpolating modes (also with
    antialias);
  * dtypes: f32 data uniform in [-1, 1] for everything; f64 for a subset;
    uint8 for the nearest modes;
  * a few invalid calls torch rejects (both/neither of size and scale_factor,
    align_corners or antialias with nearest, bilinear on 3-D,
    recompute_scale_factor with size, wrong-length size): the CLI must exit
    non-zero and write no output file.

Criteria: nearest / nearest-exact (any dtype) and uint8 bitwise equal; f32
max |error| <= 1e-5; f64 max |error| <= 1e-12.  One line per failing case
(parameters and max error), then "torch conformance: P/T passed".  Exit 1 on
any failure, 77 (skip) when torch or numpy cannot be imported.
"""
import os
import subprocess
import sys
import tempfile
import zlib
from concurrent.futures import ThreadPoolExecutor

try:
    import numpy as np
    import torch
    import torch.nn.functional as F
except ImportError as e:  # the reference package is optional: ctest reports a skip
    print(f"SKIP: torch conformance needs numpy and torch ({e})")
    sys.exit(77)

TOL = {"float32": 1e-5, "float64": 1e-12}
NEAREST = ("nearest", "nearest-exact")
INTERP = ("linear", "bilinear", "bicubic", "trilinear")
RANKS = {"nearest": (3, 4, 5), "nearest-exact": (3, 4, 5), "area": (3, 4, 5),
         "linear": (3,), "bilinear": (4,), "bicubic": (4,), "trilinear": (5,)}

# Per-axis patterns.  SIZES: (input length, output length).
SIZES = [(5, 8), (8, 5), (7, 10), (10, 7), (4, 8), (8, 4), (6, 1), (1, 5),
         (1, 1), (5, 5), (13, 6), (3, 9), (9, 2), (2, 3), (16, 5), (5, 16)]
# SCALES: (input length, scale_factor).  Output = floor(L*s): (9,.3)->2,
# (6,.2)->1 (6*.2 = 1.2000000000000002), (10,.35)->3, (11,.9)->9;
# (5,1.1)->5 (= L, nearest identity closed form), (5,2.1)->10 (= 2L, nearest
# o>>1 closed form, differs from floor(o/2.1) at o = 2), (1,4.)-> input 1.
SCALES = [(5, 2.0), (8, 0.5), (7, 1.5), (10, 0.7), (6, 2.3), (9, 0.3), (5, 1.1),
          (5, 2.1), (4, 3.0), (12, 0.25), (7, 1.7), (1, 4.0), (6, 0.2), (10, 0.35),
          (3, 1.0), (11, 0.9)]
# 1-D only (long axes): float64 product just below an integer (100*.29 =
# 28.999999999999996 -> 28), and a large up/down ratio.
SIZES_1D = [(100, 29), (3, 40), (40, 3)]
SCALES_1D = [(100, 0.29), (20, 0.35), (3, 13.5), (64, 0.1)]
LONG_SIZES = [(1000, 999), (999, 1000), (7, 300), (300, 7), (1000, 333), (333, 1000)]
LONG_SCALES = [(1000, 0.999), (997, 0.37), (300, 3.3), (256, 1 / 3), (100, 1.01), (49, 7.1)]
BATCH = [(1, 1), (2, 3), (1, 2)]


class Case:
    def __init__(self, mode, spatial, out_sizes=None, scales=None, align=None, aa=False,
                 rcf=None, dtype="float32", broadcast=False, nc=(1, 2), expect_error=None):
        self.mode, self.spatial = mode, tuple(spatial)
        self.out_sizes = None if out_sizes is None else tuple(out_sizes)
        self.scales = None if scales is None else tuple(scales)
        self.align, self.aa, self.rcf, self.dtype = align, aa, rcf, dtype
        self.broadcast = broadcast   # pass size / scale_factor as one value
        self.nc = tuple(nc)
        self.expect_error = expect_error  # torch rejects this call: text of the reason
        self.rank = 2 + len(self.spatial)

    # torch's and the CLI's spelling of size / scale_factor
    def size_arg(self):
        if self.out_sizes is None:
            return None
        return self.out_sizes[0] if self.broadcast else list(self.out_sizes)

    def scale_arg(self):
        if self.scales is None:
            return None
        return self.scales[0] if self.broadcast else list(self.scales)

    def attrs(self):
        a = [f"mode={self.mode}"]
        if self.out_sizes is not None:
            v = self.out_sizes[:1] if self.broadcast else self.out_sizes
            a.append("size=" + ",".join(str(int(x)) for x in v))
        if self.scales is not None:
            v = self.scales[:1] if self.broadcast else self.scales
            a.append("scale_factor=" + ",".join(repr(float(x)) for x in v))
        if self.align is not None:
            a.append(f"align_corners={int(self.align)}")
        if self.aa:
            a.append("antialias=1")
        if self.rcf is not None:
            a.append(f"recompute_scale_factor={int(self.rcf)}")
        return a

    def name(self):
        shape = list(self.nc) + list(self.spatial)
        return f"{self.dtype} {shape} " + " ".join(self.attrs())

    def seed(self):
        return zlib.crc32(self.name().encode())

    def make_input(self):
        rng = np.random.default_rng(self.seed())
        shape = self.nc + self.spatial
        if self.dtype == "uint8":
            return rng.integers(0, 256, size=shape, dtype=np.uint8)
        return rng.uniform(-1.0, 1.0, size=shape).astype(self.dtype)

    def reference(self, x):
        kw = dict(size=self.size_arg(), scale_factor=self.scale_arg(), mode=self.mode,
                  align_corners=self.align, recompute_scale_factor=self.rcf)
        if self.aa:
            kw["antialias"] = True
        with torch.no_grad():
            return F.interpolate(torch.from_numpy(x), **kw).numpy()


def axis_combos(patterns, nsp, long_1d=()):
    """Tuples of nsp per-axis patterns: axis k takes patterns[(i + 5k) % n],
    so every pattern appears on every axis and the axes mix up and down."""
    n = len(patterns)
    if nsp == 1:
        return [(p,) for p in list(patterns) + list(long_1d)]
    return [tuple(patterns[(i + 5 * k) % n] for k in range(nsp)) for i in range(n)]


def spec_cases(mode, rank, dtype, align=None, aa=False, stride=1):
    """Size- and scale-given cases for one mode/rank/dtype/align_corners."""
    nsp = rank - 2
    out = []
    combos = axis_combos(SIZES, nsp, SIZES_1D)
    for i, combo in enumerate(combos[::stride]):
        out.append(Case(mode, [p[0] for p in combo], out_sizes=[p[1] for p in combo],
                        align=align, aa=aa, dtype=dtype, nc=BATCH[i % 3]))
    combos = axis_combos(SCALES, nsp, SCALES_1D)
    for i, combo in enumerate(combos[::stride]):
        # 1-D: every recompute_scale_factor value for every pattern; else cycle
        for rcf in ((None, True, False) if nsp == 1 else ((None, True, False)[i % 3],)):
            out.append(Case(mode, [p[0] for p in combo], scales=[p[1] for p in combo],
                            align=align, aa=aa, rcf=rcf, dtype=dtype, nc=BATCH[(i + 1) % 3]))
    if nsp > 1:  # one int / one float broadcast to every spatial axis
        sp = [7, 5, 6][:nsp]
        out.append(Case(mode, sp, out_sizes=[4] * nsp, align=align, aa=aa, dtype=dtype,
                        broadcast=True))
        for rcf in (None, True):
            out.append(Case(mode, sp, scales=[1.6] * nsp, align=align, aa=aa, rcf=rcf,
                            dtype=dtype, broadcast=True))
    return out


def build_cases():
    cases = []
    # f32: everything
    for mode, ranks in RANKS.items():
        for rank in ranks:
            if mode in INTERP:
                # align_corners None is the same as False: a thinner sweep
                cases += spec_cases(mode, rank, "float32", align=None, stride=4)
                for align in (False, True):
                    cases += spec_cases(mode, rank, "float32", align=align)
            else:
                cases += spec_cases(mode, rank, "float32")
    for mode in ("bilinear", "bicubic"):
        for align in (False, True):
            cases += spec_cases(mode, 4, "float32", align=align, aa=True)
        cases += spec_cases(mode, 4, "float32", align=None, aa=True, stride=4)
    # f64: a subset of every mode
    for mode, ranks in RANKS.items():
        for rank in ranks:
            for align in ((False, True) if mode in INTERP else (None,)):
                cases += spec_cases(mode, rank, "float64", align=align, stride=3)
    for mode in ("bilinear", "bicubic"):
        for align in (False, True):
            cases += spec_cases(mode, 4, "float64", align=align, aa=True, stride=3)
    # uint8: nearest modes
    for mode in NEAREST:
        for rank in (3, 4, 5):
            cases += spec_cases(mode, rank, "uint8", stride=2)
    # Scale factors whose output length is L (s != 1) or 2L (s != 2), with the
    # scale kept (recompute_scale_factor None/False).  torch 1.13 on CPU:
    # nearest on a contiguous NCHW input computes floorf(o * (float)(1/s))
    # (generic kernel), except when the input is also channels-last contiguous
    # (4-D/5-D with C == 1), where the channels-last kernel's nearest_idx
    # closed forms o and o >> 1 apply; linear/bilinear/trilinear copy the
    # input whenever O == L (compute_source_index_and_lambda); bicubic and
    # antialias apply the formula.  Both C == 1 and C > 1 are probed.
    for rank in (3, 4, 5):
        nsp = rank - 2
        modes = [m for m, r in RANKS.items() if rank in r]
        for mode in modes:
            for sf in (1.1, 2.1):
                for nc in ((1, 1), (2, 3)):
                    for rcf in (None, False):
                        for dtype in (("float32", "uint8") if mode in NEAREST else ("float32",)):
                            sp = [5, 6, 4][:nsp]
                            scales = [sf] + [1.5, 0.8][:nsp - 1]
                            aligns = (None, True) if mode in INTERP else (None,)
                            for align in aligns:
                                cases.append(Case(mode, sp, scales=scales, align=align, rcf=rcf,
                                                  dtype=dtype, nc=nc))
                                if mode in ("bilinear", "bicubic") and align is None:
                                    cases.append(Case(mode, sp, scales=scales, align=align,
                                                      rcf=rcf, dtype=dtype, nc=nc, aa=True))
    # Long 1-D axes for the exact modes: many float32 products floorf(o * scale)
    # near integers.  (Not for the linear modes: torch computes their
    # coordinates in float32, which alone moves an f32 result by ~2e-6 per
    # 100 input samples of a [-1, 1] signal.)
    for mode in NEAREST + ("area",):
        for dtype in (("float32", "uint8") if mode in NEAREST else ("float32", "float64")):
            for L, O in LONG_SIZES:
                cases.append(Case(mode, [L], out_sizes=[O], dtype=dtype, nc=(1, 2)))
            for L, sf in LONG_SCALES:
                for rcf in (None, True, False):
                    cases.append(Case(mode, [L], scales=[sf], rcf=rcf, dtype=dtype, nc=(1, 2)))
    # calls torch rejects: the CLI must reject them too
    bad = [
        Case("nearest", [5, 6], out_sizes=[3, 3], scales=[2.0, 2.0]),
        Case("bilinear", [5, 6], align=False),
        Case("nearest", [5, 6], out_sizes=[3, 3], align=False),
        Case("area", [5, 6], out_sizes=[3, 3], align=True),
        Case("nearest", [5, 6], out_sizes=[3, 3], aa=True),
        Case("linear", [5], out_sizes=[3], aa=True),
        Case("bilinear", [5], out_sizes=[3]),
        Case("trilinear", [5, 6], out_sizes=[3, 3]),
        Case("bicubic", [5, 6], out_sizes=[3, 3], rcf=True),
        Case("nearest", [5, 6, 7], out_sizes=[3, 3]),
        Case("bilinear", [5, 6], scales=[2.0, 2.0, 2.0]),
    ]
    for c in bad:
        try:
            c.reference(c.make_input())
        except (ValueError, NotImplementedError, RuntimeError) as e:
            c.expect_error = f"{type(e).__name__}: {str(e).splitlines()[0][:70]}"
        else:
            raise AssertionError(f"torch accepted the invalid case {c.name()}")
    cases += bad
    names = set()
    uniq = []
    for c in cases:  # drop accidental duplicates
        if c.name() not in names:
            names.add(c.name())
            uniq.append(c)
    return uniq


def run_case(cli, case, tmp, idx):
    """(ok, detail) for one case."""
    x = case.make_input()
    xin = os.path.join(tmp, f"x{idx}.npy")
    yout = os.path.join(tmp, f"y{idx}.npy")
    np.save(xin, x)
    args = [cli, "run", "TorchInterpolate"]
    for a in case.attrs():
        args += ["--attr", a]
    args += ["--in", f"input={xin}", "--out", f"output={yout}", "--threads", str(1 + idx % 2)]
    r = subprocess.run(args, capture_output=True, text=True, timeout=60)
    if case.expect_error:
        if r.returncode == 0:
            return False, f"exit 0, torch rejects it ({case.expect_error})"
        if os.path.exists(yout):
            return False, f"exit {r.returncode} but the output file was written"
        return True, f"rejected: {r.stderr.strip()}"
    expect = case.reference(x)
    if r.returncode != 0:
        return False, f"exit {r.returncode}: {r.stderr.strip()}"
    got = np.load(yout)
    if got.shape != expect.shape or got.dtype != expect.dtype:
        return False, (f"got {got.dtype}{list(got.shape)}, expected "
                       f"{expect.dtype}{list(expect.shape)}")
    err = np.abs(got.astype(np.float64) - expect.astype(np.float64))
    worst = float(err.max()) if err.size else 0.0
    if case.mode in NEAREST or case.dtype == "uint8":
        ok = got.tobytes() == expect.tobytes()
        crit = "bitwise"
    else:
        ok = worst <= TOL[case.dtype]
        crit = f"<= {TOL[case.dtype]:g}"
    if ok:
        return True, f"max error {worst:.3g}"
    i = np.unravel_index(np.argmax(err), err.shape) if err.size else ()
    nbad = int(np.count_nonzero(got != expect))
    return False, (f"max error {worst:.3g} (need {crit}), {nbad}/{got.size} elements differ; "
                   f"worst at {list(map(int, i))}: got {got[i]!r}, torch {expect[i]!r}")


def main():
    argv = sys.argv[1:]
    listing = "--list" in argv
    verbose = "--verbose" in argv or "-v" in argv
    filt = None
    if "--filter" in argv:
        filt = argv[argv.index("--filter") + 1]
        argv.remove(filt)
    pos = [a for a in argv if not a.startswith("-")]
    torch.set_num_threads(1)
    cases = build_cases()
    if filt:
        cases = [c for c in cases if filt in c.name()]
    if listing:
        for c in cases:
            print(c.name() + (f"   [must fail: {c.expect_error}]" if c.expect_error else ""))
        print(f"{len(cases)} cases")
        return 0
    if len(pos) != 1:
        print("usage: torch_interpolate.py PATH/TO/dresample [--list] [--verbose] "
              "[--filter SUBSTR]", file=sys.stderr)
        return 2
    cli = os.path.abspath(pos[0])
    if not os.access(cli, os.X_OK):
        print(f"FAIL: {cli} is not an executable")
        return 1

    def one(arg):
        idx, case = arg
        try:
            return run_case(cli, case, tmp, idx)
        except Exception as e:  # a broken case is a failure, not a crash of the suite
            return False, f"{type(e).__name__}: {e}"

    with tempfile.TemporaryDirectory(prefix="dresample_torch_") as tmp:
        workers = max(1, min(4, os.cpu_count() or 1))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(one, enumerate(cases)))
    passed = 0
    for case, (ok, detail) in zip(cases, results):
        passed += ok
        if not ok:
            print(f"FAIL {case.name()}: {detail}")
        elif verbose:
            print(f"PASS {case.name()}: {detail}")
    print(f"torch conformance: {passed}/{len(cases)} passed (torch {torch.__version__})")
    return 0 if passed == len(cases) else 1


if __name__ == "__main__":
    sys.exit(main())
