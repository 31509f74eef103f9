#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""torch_grid_sample.py — GridSample against torch.nn.functional.grid_sample.

Usage: torch_grid_sample.py PATH/TO/dresample [--verbose] [--filter SUBSTR]

Every check writes .npy files, runs the CLI, e.g.

    dresample run GridSample-9 --attr mode=bicubic --attr padding_mode=reflection
        --attr align_corners=1 --in data=x.npy --in grid=g.npy --out output=y.npy
    dresample run GridSample-9 --backward ... --in output_delta=dy.npy
        --out data_delta=dx.npy --out grid_delta=dg.npy

and compares with torch 1.13 on CPU (forward values and autograd .grad).
What is covered:

  * 4-D through GridSample-9: every mode (bilinear, bicubic, nearest) x padding
    (zeros, border, reflection) x align_corners (0, 1), on shapes with an axis
    of length 1, both axes 1, non-square, N > 1, C > 1, output smaller and
    larger than the input, and one with large data values (|x| ~ 1000);
  * 5-D through GridSample-20 (mode=linear / nearest = torch 'bilinear' i.e.
    trilinear / 'nearest'), every padding x align_corners, D = 1 and H = 1
    axes included;
  * the ONNX op versions GridSample-16/20/22 on 4-D wherever their semantics
    equal PyTorch's (linear and nearest with every padding; cubic with zeros
    and reflection; cubic + border differs on purpose: ONNX clamps the
    coordinate first), forward and backward, f64;
  * grids: uniform in [-1.6, 1.6], ~6 % of the coordinates replaced by far
    values (|g| in [5, 8], either sign); the f64 grids also hold the exact
    values -1, -0.5, 0, 0.5, 1 (pixel edges/centres, border clip points);
  * forward f64 (max |error| <= 1e-10 * max(1, max|x|)) and f32 (<= 1e-5 *
    max(1, max|x|)); the f32 reference is torch run in float64 on the very
    same f32 values (our coordinates and weights are double, torch's f32
    kernel computes coordinates in float32, which at |u| ~ 100 pixels is
    itself ~1e-5 off);
  * backward: data_delta and grid_delta vs torch autograd with a random
    output_delta, f64 (<= 1e-10 relative to the gradient's max) and f32
    (<= 1e-4 relative to the gradient's max, reference as above); a few calls
    request only one of the two gradients;
  * mixed dtypes (f64 data with an f32 grid and vice versa);
  * integer data forward (u8, i8, i32, i64) for bilinear, nearest and bicubic
    (bicubic overshoot exercises saturation): the float64 torch result rounded
    half to even and saturated, exact except where the float result is within
    1e-4 of a .5 tie;
  * --threads 1 vs --threads 2 on larger cases (forward and backward, 4-D and
    5-D, also 5-D cubic): identical bytes.

What the f32 grids avoid: every grid point whose pixel coordinate u (computed
in double from the f32 value, per axis) lies within 1e-3 of a multiple of 0.5
is redrawn.  Those are the kinks of the bilinear/bicubic tap choice (integers),
the clip points (0, L-1), the reflection folds (integers or half-integers) and
the nearest ties (half-integers); near them a gradient (or a nearest sample)
legitimately jumps under a 1-ulp coordinate difference.  The f64 tests do not
avoid anything (their exact special values sit on those points on purpose).
Nearest + reflection exact ties (the documented OpenVINO/ONNX vs PyTorch
difference) cannot occur: the special values all lie inside [-1, 1].

One line per failure, then "torch grid_sample: P/T passed".  Exit 1 on any
failure, 77 (skip) when torch or numpy cannot be imported.
"""
import os
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np
    import torch
    import torch.nn.functional as F
except Exception as e:  # the reference package is optional: ctest reports a skip
    print(f"skipped: torch grid_sample conformance needs numpy and torch ({e})")
    sys.exit(77)

MODES = ("bilinear", "bicubic", "nearest")
PADS = ("zeros", "border", "reflection")
ONNX_MODE = {"bilinear": "linear", "bicubic": "cubic", "nearest": "nearest"}
FWD_TOL = {"float32": 1e-5, "float64": 1e-10}
BWD_TOL = {"float32": 1e-4, "float64": 1e-10}
SPECIAL = np.array([-1.0, -0.5, 0.0, 0.5, 1.0])

# (N, C, spatial), out spatial
SHAPES_4D = [
    ((1, 1, 5, 7), (4, 6)),      # output smaller, non-square
    ((2, 3, 6, 5), (9, 11)),     # N > 1, C > 1, output larger
    ((1, 2, 1, 8), (3, 5)),      # H = 1
    ((2, 1, 7, 1), (6, 2)),      # W = 1
    ((1, 1, 1, 1), (2, 3)),      # 1 x 1 image
    ((1, 3, 16, 12), (10, 14)),  # larger, non-square
    ((2, 13, 9, 10), (7, 8)),    # 13 channels: the backward's scatter scheme, groups of 8 + 5
    ((1, 20, 17, 18), (12, 21)),  # 20 channels, one image: groups of 8, 8 and 4
    ((1, 9, 260, 270), (9, 10)),  # planes of 70,200 pixels: the scatter's large planes
]
SHAPES_5D = [
    ((1, 2, 4, 5, 3), (3, 4, 5)),
    ((2, 1, 1, 4, 6), (2, 3, 2)),  # D = 1
    ((1, 2, 3, 1, 4), (2, 2, 3)),  # H = 1
]
BIG = 1000.0  # data scale of the "large values" case
# Gradient tolerances are relative to max(GRAD_FLOOR, max|reference|): a gradient
# that is 0 in exact arithmetic (nearest grid_delta; bicubic on a 1x1 image,
# where the tap weights' derivatives sum to 0) is only rounding noise.
GRAD_FLOOR = 1e-2


class Suite:
    def __init__(self, cli, tmp, verbose=False, filt=None):
        self.cli, self.tmp, self.verbose, self.filt = cli, tmp, verbose, filt
        self.passed = self.total = 0
        self.failures = []
        self.k = 0

    def path(self, tag):
        self.k += 1
        return os.path.join(self.tmp, f"{self.k}_{tag}.npy")

    def check(self, name, ok, detail=""):
        self.total += 1
        if ok:
            self.passed += 1
            if self.verbose:
                print(f"PASS {name}: {detail}")
        else:
            self.failures.append(name)
            print(f"FAIL {name}: {detail}")

    def cli_run(self, op, attrs, ins, outs, backward=False, threads=None):
        """Runs the CLI; returns ({port: array}, None) or (None, error text)."""
        args = [self.cli, "run", op]
        if backward:
            args.append("--backward")
        for k, v in attrs.items():
            args += ["--attr", f"{k}={v}"]
        for port, arr in ins.items():
            p = self.path(port)
            np.save(p, arr)
            args += ["--in", f"{port}={p}"]
        out_paths = {}
        for port in outs:
            p = self.path(port)
            out_paths[port] = p
            args += ["--out", f"{port}={p}"]
        if threads is not None:
            args += ["--threads", str(threads)]
        r = subprocess.run(args, capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            return None, f"exit {r.returncode}: {r.stderr.strip()}"
        res = {}
        for port, p in out_paths.items():
            if not os.path.exists(p):
                return None, f"no file written for --out {port}"
            res[port] = np.load(p)
        return res, None


# ----------------------------------------------------------------------------
# inputs

def pixel_coord(g, L, align):
    g = np.asarray(g, dtype=np.float64)
    return (g + 1.0) * (L - 1) / 2.0 if align else ((g + 1.0) * L - 1.0) / 2.0


def near_kink(g, L, align):
    """True where u(g) is within 1e-3 of a multiple of 0.5 (kinks, folds, ties)."""
    if align and L == 1:
        return np.zeros(np.shape(g), dtype=bool)  # u == 0 for every g, du/dg == 0
    u = pixel_coord(g, L, align)
    return np.abs(2.0 * u - np.round(2.0 * u)) < 2e-3


def make_grid(rs, n, out_sp, in_sp, dtype, align, special=False, avoid=False):
    """Grid [n, *out_sp, S], x first; S = len(in_sp) (in_sp is D,H,W order)."""
    S = len(in_sp)
    g = rs.uniform(-1.6, 1.6, (n, *out_sp, S))
    far = rs.uniform(0, 1, g.shape) < 0.06
    g[far] = rs.choice([-1.0, 1.0], far.sum()) * rs.uniform(5.0, 8.0, far.sum())
    if special:
        sp = rs.uniform(0, 1, g.shape) < 0.15
        g[sp] = rs.choice(SPECIAL, sp.sum())
    g = g.astype(dtype)
    if avoid:
        lengths = list(in_sp)[::-1]  # axis k of the last grid dim is x, y, z
        for _ in range(1000):
            bad = np.zeros(g.shape, dtype=bool)
            for k, L in enumerate(lengths):
                bad[..., k] = near_kink(g[..., k], L, align)
            if not bad.any():
                break
            g[bad] = rs.uniform(-1.6, 1.6, bad.sum()).astype(dtype)
        else:
            raise RuntimeError("could not draw a grid away from the kinks")
    return g


def tie_points(g, in_sp, align):
    """Output points [N, *out] where some axis' pixel coordinate is exactly k + 0.5."""
    tie = np.zeros(g.shape[:-1], dtype=bool)
    for k, L in enumerate(list(in_sp)[::-1]):
        u = pixel_coord(g[..., k], L, align)
        tie |= (np.floor(u) + 0.5 == u)
    return tie


def pad_index(i, L, pad, align):
    """Index padding after rounding (OpenVINO): returns (index, valid)."""
    if pad == "zeros":
        return np.clip(i, 0, L - 1), (i >= 0) & (i < L)
    if pad == "border":
        return np.clip(i, 0, L - 1), np.ones(i.shape, dtype=bool)
    if align:
        P = max(2 * (L - 1), 1)
        j = np.abs(i) % P
        j = np.where(j >= L, P - j, j)
    else:
        P = 2 * L
        j = ((i % P) + P) % P
        j = np.where(j >= L, P - 1 - j, j)
    return j, np.ones(i.shape, dtype=bool)


def nearest_oracle(x, g, pad, align, dy):
    """Nearest forward and data gradient, half to even then pad (float64)."""
    N, C = x.shape[:2]
    sp = x.shape[2:]
    idx, valid = [], np.ones(g.shape[:-1], dtype=bool)
    for a, L in enumerate(sp):  # axis a (D, H, W order) is grid component S-1-a
        u = pixel_coord(g[..., len(sp) - 1 - a], L, align)
        u = np.where(np.isfinite(u), u, 0.0)
        i, v = pad_index(np.rint(u).astype(np.int64), L, pad, align)
        idx.append(i)
        valid &= v
    xd = x.astype(np.float64)
    y = np.zeros((N, C) + g.shape[1:-1])
    dx = np.zeros(x.shape)
    for n in range(N):
        sel = tuple(t[n] for t in idx)
        for c in range(C):
            y[n, c] = np.where(valid[n], xd[n, c][sel], 0.0)
            np.add.at(dx[n, c], tuple(t[valid[n]] for t in sel), dy[n, c][valid[n]].astype(np.float64))
    return y, dx


def torch_ref(x, g, mode, pad, align, dy=None):
    """float64 torch forward (and autograd when dy is given) on the given values."""
    xt = torch.tensor(x.astype(np.float64), requires_grad=dy is not None)
    gt = torch.tensor(g.astype(np.float64), requires_grad=dy is not None)
    y = F.grid_sample(xt, gt, mode=mode, padding_mode=pad, align_corners=bool(align))
    if dy is None:
        return y.detach().numpy(), None, None
    y.backward(torch.tensor(dy.astype(np.float64)))
    return y.detach().numpy(), xt.grad.numpy(), gt.grad.numpy()


def max_err(got, want):
    if got.size == 0:
        return 0.0
    return float(np.abs(got.astype(np.float64) - want.astype(np.float64)).max())


def compare(suite, name, got, want, tol, scale, dtype):
    if got.shape != want.shape or got.dtype != np.dtype(dtype):
        suite.check(name, False, f"got {got.dtype}{list(got.shape)}, expected {dtype}{list(want.shape)}")
        return
    err = max_err(got, want)
    ok = err <= tol * scale and np.isfinite(got).all()
    detail = f"max error {err:.3g} (tolerance {tol * scale:.3g})"
    if not ok and got.size:
        i = np.unravel_index(np.argmax(np.abs(got.astype(np.float64) - want)), got.shape)
        detail += f" at {list(i)}: got {got[i]!r}, expected {want[i]!r}"
    suite.check(name, ok, detail)


# ----------------------------------------------------------------------------
# the checks

def float_case(suite, op, mode, pad, align, shape, out_sp, dtype, seed, scale=1.0,
               grid_dtype=None, backward=True, only=None):
    """Forward (and backward) of one float case against torch."""
    grid_dtype = grid_dtype or dtype
    rs = np.random.RandomState(seed)
    n = shape[0]
    x = (rs.uniform(-1, 1, shape) * scale).astype(dtype)
    f64 = dtype == "float64" and grid_dtype == "float64"
    g = make_grid(rs, n, out_sp, shape[2:], grid_dtype, align, special=f64, avoid=not f64)
    dy = rs.uniform(-1, 1, (n, shape[1], *out_sp)).astype(dtype)
    y_ref, dx_ref, dg_ref = torch_ref(x, g, mode, pad, align, dy if backward else None)
    ties = 0
    if mode == "nearest" and len(shape) == 5:
        # torch 1.13's 3-D nearest rounds ties half away from zero (std::round; its
        # 2-D kernel, OpenVINO and ONNX round half to even, and PyTorch switched in
        # PR 97000).  At exact ties (the f64 grids' special values) the expected
        # value comes from nearest_oracle (half to even, then pad the index),
        # which must agree with torch everywhere else.
        tie = tie_points(g, shape[2:], align)
        ties = int(tie.sum())
        if ties:
            tie_b = np.broadcast_to(tie[:, None], y_ref.shape)
            y_or, dx_or = nearest_oracle(x, g, pad, align, dy)
            _, dx_t, _ = torch_ref(x, g, mode, pad, align, np.where(tie_b, 0, dy))
            _, dx_o2 = nearest_oracle(x, g, pad, align, np.where(tie_b, 0, dy))
            if not (np.array_equal(y_or[~tie_b], y_ref[~tie_b]) and np.allclose(dx_o2, dx_t, 0, 1e-12)):
                suite.check(f"nearest oracle vs torch (non-tie points) {op} {pad}/ac={align} {list(shape)}",
                            False, "the test's own oracle disagrees with torch")
                return
            y_ref, dx_ref = y_or, dx_or
    ver = int(op.split("-")[1])
    m = mode if ver < 20 else ONNX_MODE[mode]
    attrs = {"mode": m, "padding_mode": pad, "align_corners": align}
    xport, yport = ("data", "output") if ver == 9 else ("X", "Y")
    name = (f"{op} {m}/{pad}/ac={align} x{list(shape)}->{list(out_sp)} {dtype}"
            + (f" grid {grid_dtype}" if grid_dtype != dtype else "") + (" x1000" if scale != 1 else "")
            + (f" ({ties} tie points: half-to-even oracle)" if ties else ""))
    if suite.filt and suite.filt not in name:
        return
    xs = max(1.0, float(np.abs(x).max()))
    res, err = suite.cli_run(op, attrs, {xport: x, "grid": g}, [yport])
    if err:
        suite.check(f"forward {name}", False, err)
    else:
        compare(suite, f"forward {name}", res[yport], y_ref, FWD_TOL[dtype], xs, dtype)
    if not backward:
        return
    tol = max(BWD_TOL[dtype], BWD_TOL[grid_dtype])
    outs = [f"{xport}_delta", "grid_delta"] if only is None else [only]
    res, err = suite.cli_run(op, attrs, {xport: x, "grid": g, "output_delta": dy}, outs, backward=True)
    if err:
        suite.check(f"backward {name} {outs}", False, err)
        return
    if f"{xport}_delta" in outs:
        compare(suite, f"backward {xport}_delta {name}", res[f"{xport}_delta"], dx_ref, tol,
                max(GRAD_FLOOR, float(np.abs(dx_ref).max())), dtype)
    if "grid_delta" in outs:
        compare(suite, f"backward grid_delta {name}", res["grid_delta"], dg_ref, tol,
                max(GRAD_FLOOR, float(np.abs(dg_ref).max())), grid_dtype)


INT_RANGE = {"uint8": (0, 255), "int8": (-128, 127), "int32": (-2**31, 2**31 - 1),
             "int64": (-2**36, 2**36)}


def int_case(suite, mode, pad, align, dtype, grid_dtype, seed):
    rs = np.random.RandomState(seed)
    shape, out_sp = (2, 2, 6, 7), (8, 5)
    lo, hi = INT_RANGE[dtype]
    # extremes next to each other make bicubic overshoot: saturation
    x = rs.choice([lo, hi, (lo + hi) // 2], shape).astype(np.float64)
    mix = rs.uniform(0, 1, shape) < 0.5
    x[mix] = rs.randint(lo, hi + 1, mix.sum(), dtype=np.int64)
    x = x.astype(dtype)
    g = make_grid(rs, shape[0], out_sp, shape[2:], grid_dtype, align)
    want_f, _, _ = torch_ref(x, g, mode, pad, align)
    info = np.iinfo(dtype)
    want = np.clip(np.rint(want_f), info.min, info.max)
    tie = np.abs(np.abs(want_f - np.floor(want_f)) - 0.5) < 1e-4
    name = f"forward GridSample-9 {mode}/{pad}/ac={align} {dtype} data, {grid_dtype} grid"
    if suite.filt and suite.filt not in name:
        return
    res, err = suite.cli_run("GridSample-9", {"mode": mode, "padding_mode": pad, "align_corners": align},
                             {"data": x, "grid": g}, ["output"])
    if err:
        suite.check(name, False, err)
        return
    got = res["output"]
    if got.dtype != np.dtype(dtype) or got.shape != want.shape:
        suite.check(name, False, f"got {got.dtype}{list(got.shape)}, expected {dtype}{list(want.shape)}")
        return
    # |values| <= 2**36 for i64: exact in a double
    diff = np.abs(got.astype(np.float64) - want)
    bad = (diff != 0) & ~(tie & (diff <= 1))
    sat = int(((want_f > info.max) | (want_f < info.min)).sum())
    detail = f"{sat} saturated, {int(tie.sum())} near-tie values allowed +-1"
    if bad.any():
        i = np.unravel_index(np.argmax(bad), bad.shape)
        detail = (f"{int(bad.sum())} values differ, e.g. at {list(i)}: got {got[i]!r}, expected "
                  f"{want[i]:.0f} (float result {want_f[i]!r})")
    suite.check(name, not bad.any(), detail)


def fd_case(suite, op, mode, pad, align, shape, out_sp, seed):
    """Modes torch lacks (5-D cubic; ONNX cubic + border, which clamps the
    coordinate first): float64 self-consistency of the backward.  data_delta
    must satisfy the adjoint identity <F(x'), dy> == <x', data_delta(dy)> for a
    random x' (F is linear in the data); grid_delta must equal the central
    difference (h = 1e-6) of sum(dy * Y) per grid component, on a grid kept
    1e-3 pixels away from the kinks (see the docstring); 1e-7 relative."""
    rs = np.random.RandomState(seed)
    x = rs.uniform(-1, 1, shape)
    g = make_grid(rs, shape[0], out_sp, shape[2:], "float64", align, avoid=True)
    dy = rs.uniform(-1, 1, (shape[0], shape[1], *out_sp))
    ver = int(op.split("-")[1])
    xport, yport = ("data", "output") if ver == 9 else ("X", "Y")
    attrs = {"mode": mode, "padding_mode": pad, "align_corners": align}
    name = f"self-consistency {op} {mode}/{pad}/ac={align} {list(shape)}->{list(out_sp)} float64"
    if suite.filt and suite.filt not in name:
        return
    res, err = suite.cli_run(op, attrs, {xport: x, "grid": g, "output_delta": dy},
                             [f"{xport}_delta", "grid_delta"], backward=True)
    if err:
        suite.check(name, False, err)
        return
    dx, dg = res[f"{xport}_delta"], res["grid_delta"]
    x2 = rs.uniform(-1, 1, shape)
    fwd, err = suite.cli_run(op, attrs, {xport: x2, "grid": g}, [yport])
    if err:
        suite.check(name, False, err)
        return
    lhs, rhs = float(np.sum(fwd[yport] * dy)), float(np.sum(x2 * dx))
    suite.check(f"adjoint {name}", abs(lhs - rhs) <= 1e-12 * max(1.0, abs(lhs)),
                f"<F(x'), dy> = {lhs!r}, <x', data_delta> = {rhs!r}")
    h = 1e-6
    fd = np.zeros_like(g)
    for k in range(g.shape[-1]):
        ys = []
        for sgn in (1, -1):
            gp = g.copy()
            gp[..., k] += sgn * h
            r, err = suite.cli_run(op, attrs, {xport: x, "grid": gp}, [yport])
            if err:
                suite.check(name, False, err)
                return
            ys.append(r[yport])
        fd[..., k] = np.sum(dy * (ys[0] - ys[1]), axis=1) / (2 * h)
    compare(suite, f"grid_delta vs finite differences {name}", dg, fd, 1e-7,
            max(GRAD_FLOOR, float(np.abs(fd).max())), "float64")


def empty_case(suite, op, shape, gshape, dtype="float32"):
    """A zero-length dimension is valid: empty output of the right shape; the
    backward gives data_delta = 0 (overwritten) and an empty/zero grid_delta."""
    ver = int(op.split("-")[1])
    xport, yport = ("data", "output") if ver == 9 else ("X", "Y")
    x = np.ones(shape, dtype=dtype)
    g = np.zeros(gshape, dtype=dtype)
    want = (shape[0], shape[1], *gshape[1:-1]) if shape[0] == gshape[0] else None
    name = f"empty {op} data {list(shape)} grid {list(gshape)}"
    if suite.filt and suite.filt not in name:
        return
    res, err = suite.cli_run(op, {}, {xport: x, "grid": g}, [yport])
    if err:
        suite.check(name, False, err)
        return
    y = res[yport]
    suite.check(f"forward {name}", y.shape == want and y.dtype == x.dtype,
                f"got {y.dtype}{list(y.shape)}, expected {dtype}{list(want)}")
    res, err = suite.cli_run(op, {}, {xport: x, "grid": g, "output_delta": np.zeros(want, dtype)},
                             [f"{xport}_delta", "grid_delta"], backward=True)
    if err:
        suite.check(f"backward {name}", False, err)
        return
    dx, dg = res[f"{xport}_delta"], res["grid_delta"]
    ok = dx.shape == x.shape and dg.shape == g.shape and not dx.any() and not dg.any()
    suite.check(f"backward {name}", ok, f"data_delta {dx.dtype}{list(dx.shape)} (all zero: {not dx.any()}), "
                f"grid_delta {dg.dtype}{list(dg.shape)}")


def reject_case(suite, label, op, ins, outs, backward=False, attrs=None):
    """An invalid call: non-zero exit, one 'dresample: error:' line, no output file."""
    if suite.filt and suite.filt not in label:
        return
    args = [suite.cli, "run", op] + (["--backward"] if backward else [])
    for k, v in (attrs or {}).items():
        args += ["--attr", f"{k}={v}"]
    for port, arr in ins.items():
        p = suite.path(port)
        np.save(p, arr)
        args += ["--in", f"{port}={p}"]
    paths = []
    for port in outs:
        p = suite.path(port)
        paths.append(p)
        args += ["--out", f"{port}={p}"]
    r = subprocess.run(args, capture_output=True, text=True, timeout=120)
    written = [os.path.basename(p) for p in paths if os.path.exists(p)]
    ok = r.returncode != 0 and not written and r.stderr.startswith("dresample: error:")
    suite.check(f"rejects {label}", ok, f"exit {r.returncode}, stderr {r.stderr.strip()!r}, "
                f"files written {written}")


def thread_case(suite, op, mode, pad, align, shape, out_sp, dtype, seed):
    rs = np.random.RandomState(seed)
    x = rs.uniform(-1, 1, shape).astype(dtype)
    g = make_grid(rs, shape[0], out_sp, shape[2:], dtype, align)
    dy = rs.uniform(-1, 1, (shape[0], shape[1], *out_sp)).astype(dtype)
    ver = int(op.split("-")[1])
    xport, yport = ("data", "output") if ver == 9 else ("X", "Y")
    attrs = {"mode": mode, "padding_mode": pad, "align_corners": align}
    name = f"threads 1 vs 2 {op} {mode}/{pad}/ac={align} {list(shape)}->{list(out_sp)} {dtype}"
    if suite.filt and suite.filt not in name:
        return
    for backward in (False, True):
        ins = {xport: x, "grid": g}
        outs = [yport]
        if backward:
            ins["output_delta"] = dy
            outs = [f"{xport}_delta", "grid_delta"]
        got = []
        for t in (1, 2):
            res, err = suite.cli_run(op, attrs, ins, outs, backward=backward, threads=t)
            if err:
                suite.check(f"{name} {'backward' if backward else 'forward'}", False, f"--threads {t}: {err}")
                break
            got.append(res)
        else:
            same = all(got[0][p].tobytes() == got[1][p].tobytes() and got[0][p].shape == got[1][p].shape
                       for p in outs)
            diff = {p: max_err(got[0][p], got[1][p]) for p in outs}
            suite.check(f"{name} {'backward' if backward else 'forward'}", same,
                        "identical bytes" if same else f"outputs differ: {diff}")


def main():
    argv = sys.argv[1:]
    if not argv or argv[0].startswith("-"):
        print(__doc__)
        return 2
    cli = os.path.abspath(argv[0])
    verbose = "--verbose" in argv
    filt = argv[argv.index("--filter") + 1] if "--filter" in argv else None
    torch.set_num_threads(1)
    t0 = time.time()
    seed = 0
    with tempfile.TemporaryDirectory(prefix="dresample_gs_") as tmp:
        s = Suite(cli, tmp, verbose, filt)
        # 4-D, GridSample-9, every combination, f64 and f32, forward + backward
        for mode in MODES:
            for pad in PADS:
                for align in (0, 1):
                    for si, (shape, out_sp) in enumerate(SHAPES_4D):
                        for dtype in ("float64", "float32"):
                            seed += 1
                            float_case(s, "GridSample-9", mode, pad, align, shape, out_sp, dtype, seed)
                    seed += 1
                    float_case(s, "GridSample-9", mode, pad, align, (2, 2, 5, 6), (4, 3), "float32",
                               seed, scale=BIG)
        # 5-D, GridSample-20 (and one sweep through -22)
        for mode in ("bilinear", "nearest"):
            for pad in PADS:
                for align in (0, 1):
                    for shape, out_sp in SHAPES_5D:
                        for dtype in ("float64", "float32"):
                            seed += 1
                            float_case(s, "GridSample-20", mode, pad, align, shape, out_sp, dtype, seed)
                    seed += 1
                    float_case(s, "GridSample-22", mode, pad, align, SHAPES_5D[0][0], SHAPES_5D[0][1],
                               "float64", seed)
        # ONNX versions on 4-D where their semantics equal PyTorch's
        for op in ("GridSample-16", "GridSample-20", "GridSample-22"):
            for mode in MODES:
                for pad in PADS:
                    if mode == "bicubic" and pad == "border":
                        continue  # ONNX clamps the coordinate first: differs from PyTorch on purpose
                    for align in (0, 1):
                        seed += 1
                        float_case(s, op, mode, pad, align, (2, 2, 6, 5), (7, 4), "float64", seed)
        # one gradient at a time
        for mode in MODES:
            for only in ("data_delta", "grid_delta"):
                seed += 1
                float_case(s, "GridSample-9", mode, "reflection", 0, (2, 3, 6, 5), (9, 11), "float64",
                           seed, only=only)
        # mixed dtypes
        for dt, gdt in (("float64", "float32"), ("float32", "float64")):
            for mode in MODES:
                seed += 1
                float_case(s, "GridSample-9", mode, "border", 1, (2, 3, 6, 5), (9, 11), dt, seed,
                           grid_dtype=gdt)
        # integer data
        for dtype in ("uint8", "int8", "int32", "int64"):
            for mode in MODES:
                for pad, align in (("zeros", 0), ("border", 1), ("reflection", 0)):
                    seed += 1
                    int_case(s, mode, pad, align, dtype, "float32" if seed % 2 else "float64", seed)
        # no torch counterpart: tricubic 5-D and ONNX cubic + border, self-consistency
        for pad in PADS:
            for align in (0, 1):
                seed += 1
                fd_case(s, "GridSample-20", "cubic", pad, align, (1, 2, 4, 5, 3), (3, 4, 5), seed)
                seed += 1
                fd_case(s, "GridSample-22", "cubic", pad, align, (2, 1, 3, 1, 4), (2, 3, 2), seed)
        for align in (0, 1):
            seed += 1
            fd_case(s, "GridSample-16", "bicubic", "border", align, (2, 2, 6, 5), (7, 4), seed)
        # zero-length dimensions and invalid calls (torch rejects these too)
        empty_case(s, "GridSample-9", (1, 2, 3, 4), (1, 0, 5, 2))
        empty_case(s, "GridSample-9", (0, 2, 3, 4), (0, 3, 3, 2))
        empty_case(s, "GridSample-9", (2, 0, 3, 4), (2, 3, 3, 2), "float64")
        empty_case(s, "GridSample-20", (1, 2, 3, 4, 5), (1, 2, 0, 3, 3))
        x4, g4 = np.zeros((2, 1, 3, 4), np.float32), np.zeros((2, 2, 2, 2), np.float32)
        x5, g5 = np.zeros((1, 1, 2, 3, 4), np.float32), np.zeros((1, 2, 2, 2, 3), np.float32)
        reject_case(s, "grid batch 1 for data batch 2", "GridSample-9",
                    {"data": x4, "grid": g4[:1]}, ["output"])
        reject_case(s, "grid last dim 3 for 4-D data", "GridSample-9",
                    {"data": x4, "grid": np.zeros((2, 2, 2, 3), np.float32)}, ["output"])
        reject_case(s, "grid last dim 2 for 5-D data", "GridSample-20",
                    {"X": x5, "grid": np.zeros((1, 2, 2, 2, 2), np.float32)}, ["Y"])
        reject_case(s, "5-D data through GridSample-9", "GridSample-9", {"data": x5, "grid": g5}, ["output"])
        reject_case(s, "5-D data through GridSample-16", "GridSample-16", {"X": x5, "grid": g5}, ["Y"])
        reject_case(s, "integer grid", "GridSample-9",
                    {"data": x4, "grid": np.zeros((2, 2, 2, 2), np.int32)}, ["output"])
        reject_case(s, "unknown padding_mode", "GridSample-9", {"data": x4, "grid": g4}, ["output"],
                    attrs={"padding_mode": "wrap"})
        reject_case(s, "output_delta of the wrong shape", "GridSample-9",
                    {"data": x4, "grid": g4, "output_delta": np.zeros((2, 1, 2, 3), np.float32)},
                    ["data_delta", "grid_delta"], backward=True)
        reject_case(s, "integer data in backward", "GridSample-9",
                    {"data": x4.astype(np.uint8), "grid": g4,
                     "output_delta": np.zeros((2, 1, 2, 2), np.uint8)}, ["data_delta"], backward=True)
        # thread invariance
        for mode in MODES:
            seed += 1
            thread_case(s, "GridSample-9", mode, "reflection", 0, (2, 4, 48, 40), (56, 64), "float32", seed)
            seed += 1
            thread_case(s, "GridSample-9", mode, "zeros", 1, (1, 1, 40, 48), (64, 56), "float64", seed)
        for mode in ("linear", "cubic", "nearest"):
            seed += 1
            thread_case(s, "GridSample-20", mode, "border", 1, (1, 3, 12, 14, 10), (16, 12, 14), "float32",
                        seed)
        dt = time.time() - t0
        print(f"torch grid_sample: {s.passed}/{s.total} passed (torch {torch.__version__}, {dt:.1f} s)")
        if s.failures:
            return 1
        if s.total == 0:
            print("FAIL: no case ran")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
