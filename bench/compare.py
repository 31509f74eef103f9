#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""compare.py — dresample against every CPU anchor that can express the workload, in one run.

Usage: compare.py PATH/TO/drs_bench [--threads 1,2] [--quick] [--runs R] [--warmup K]
                  [--workload W1,W8,...] [--anchors torch,openvino,jax,cv2] [--smoke]
                  [--no-malloc-env] [--json-out FILE]

For each workload W1..W12 of bench/bench.c (same shapes, same input bits,
f32) it times, in this process and interleaved call by call (dresample,
anchor 1, anchor 2, ..., then the next thread count, then the next run):

- dresample through its Python package (dresample._core, the extension over
  the C API, with preallocated outputs and gradients, as the C bench does);
- PyTorch (whichever is installed): the ATen kernels with preallocated outputs
  (bench/compare_torch.py's calls), torch.set_num_threads;
- OpenVINO's CPU plugin, forward only: an Interpolate-11 / GridSample-9 /
  AvgPool-1 model compiled once per workload and thread count
  (INFERENCE_NUM_THREADS, INFERENCE_PRECISION_HINT=f32), one infer request
  whose output tensor is reused; the output is poisoned with NaN before every
  timed call (untimed), so a call that did not compute fails its check;
- OpenCV: cv2.resize / cv2.remap on HxWxC images (the NCHW input transposed
  once, untimed), one call per image, cv2.setNumThreads;
- JAX (CPU, jit; forward and jax.vjp backward; W12's scale gradient through
  jax.image.scale_and_translate): XLA cannot change its thread count inside a
  process, so JAX runs in a child process per thread count (affinity to T
  cores, XLA_FLAGS intra_op_parallelism_threads=T, and for T = 1
  --xla_cpu_multi_thread_eigen=false); the child times dresample again,
  interleaved with JAX, and the JAX ratio is the child's dresample / JAX.

It also runs the C bench (drs_bench --json) on the same workload for
reference (dresample's Python-vs-C overhead), its copy probe (the
roofline: bytes read + written by dresample / time / copy GB/s) and, per
row, its traffic bound (drs_bench --bound: the time of a loop that moves
exactly the row's bytes read and written; %bnd = that time / dresample's),
and prints the core's peak rates of 512-bit float operations (drs_bench
--workload arith), against which the accounts of compute-bound rows set
their operation counts.

Checks: every anchor's result is compared once element by element with
dresample's (max |a - b| <= tol * max(1, max |b|), tol per anchor and
workload, printed in the legend), and every timed call's result by its sum
and sum of |.| (relative 1e-4, or the element tolerance where it is
looser).  dresample's own results must be bitwise identical at every thread
count.  A failed check is printed and makes the exit status 1.

A missing anchor package skips its columns with a message; a workload an
anchor cannot express is a '-' with the reason in the legend.  Exit status 77
when numpy or the dresample package is missing (nothing to compare).
"""
import os
import sys

from bench_common import (MALLOC_ENV, affine_grid, fill, geomean,  # noqa: E402,F401
                          list_workloads, reexec_with_malloc_env, run_bench)

if __name__ == "__main__":
    reexec_with_malloc_env()

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402

SKIP = 77
MEMORY_BOUND = ("W1", "W2", "W6", "W9", "W10", "W12")
GRID_MODES = ("bilinear", "nearest", "bicubic")
GRID_PADS = ("zeros", "border", "reflection")
ANCHORS = ("torch", "openvino", "jax", "cv2")

try:
    import numpy as np
    import dresample
    from dresample import _core
except ImportError as e:  # pragma: no cover - exercised by the smoke test's skip
    print(f"compare.py: SKIPPED: needs numpy and the dresample package ({e})")
    sys.exit(SKIP)


# ------------------------------------------------------------------ inputs


def inputs(rec):
    ins, outs = rec["in_shape"], rec["out_shape"]
    x = fill(math.prod(ins), 0).reshape(ins)
    dy = fill(math.prod(outs), 1000003).reshape(outs)
    g = affine_grid(rec["theta"], rec["grid_shape"]) if rec["kind"] == "grid" else None
    return x, dy, g


# ------------------------------------------------------------------ checks
def digest(a):
    a = np.asarray(a)
    return float(np.sum(a, dtype=np.float64)), float(np.sum(np.abs(a), dtype=np.float64))


def digest_ok(d, ref, rel):
    scale = max(abs(ref[1]), 1e-30)
    return abs(d[0] - ref[0]) <= rel * scale + 1e-9 and abs(d[1] - ref[1]) <= rel * scale + 1e-9


def max_err(a, ref, skip=None):
    """max |a - ref| / max(1, max |ref|) (NaN counts as an error of inf), leaving out the
    elements where skip (same shape, or None) is True."""
    a = np.asarray(a, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    if a.shape != ref.shape:
        return float("inf")
    d = np.abs(a - ref)
    if skip is not None and skip.shape == d.shape:
        d[skip] = 0.0
    if not np.all(np.isfinite(d)):
        return float("inf")
    return float(d.max(initial=0.0)) / max(1.0, float(np.abs(ref).max(initial=0.0)))


# ------------------------------------------------------------------ dresample
class DresCase:
    """The workload through dresample._core with preallocated results (the C bench's calls),
    allocated as the package's functions allocate theirs (dresample._empty: on a 64-byte
    line, from 2 MiB in a 2 MiB-aligned block), not with np.empty (16 bytes past a line
    here, which the library's streaming stores handle more slowly)."""

    def __init__(self, rec):
        kind = rec["kind"]
        x, dy, g = inputs(rec)
        self.x, self.dy, self.g = x, dy, g
        y = dresample._empty(rec["out_shape"], np.float32)
        dx = dresample._empty(x.shape, x.dtype)
        alloc = lambda shape, dtype: y  # noqa: E731  (the output is y, every call)
        self.y, self.dx = y, dx
        self.bwd_scales = None
        self.skips = None
        if kind == "grid":
            dg = dresample._empty(g.shape, g.dtype)
            a = (9, GRID_MODES[rec["grid_mode"]], GRID_PADS[rec["grid_padding"]], False)
            # The grid gradient jumps where a sampling position crosses a pixel line
            # (bilinear/bicubic: an integer coordinate): dresample computes positions in
            # double, the anchors in float32, so within a float32 rounding of such a line
            # the two take opposite one-sided derivatives.  Those grid points (both
            # components) are left out of the grid gradient's element check.
            if a[1] != "nearest":
                H, W = rec["in_shape"][2], rec["in_shape"][3]
                gd = g.astype(np.float64)
                px = ((gd[..., 0] + 1.0) * W - 1.0) / 2.0
                py = ((gd[..., 1] + 1.0) * H - 1.0) / 2.0
                near = (np.abs(px - np.round(px)) < 1e-4) | (np.abs(py - np.round(py)) < 1e-4)
                self.skips = [None, np.repeat(near[..., None], 2, axis=-1)]
            self.fwd = lambda: _core.grid_sample(alloc, y.dtype, x, g, *a)

            def bwd():
                _core.grid_sample_backward(dx, dg, dy, x, g, *a)
                return (dx, dg)
            self.bwd = bwd
        elif kind == "nhwc":
            ins, outs = rec["in_shape"], rec["out_shape"]
            sc = [outs[1] / ins[1], outs[2] / ins[2]]
            a = dresample._resize_args("resize", None, sc, None, 19,
                                       {"mode": "linear", "axes": [1, 2]})
            self.fwd = lambda: _core.resize(alloc, y.dtype, x, *a)

            def bwd():
                _core.resize_backward(dx, None, None, dy, x, *a)
                return (dx,)
            self.bwd = bwd
        elif kind == "backprop":
            ins, outs = rec["in_shape"], rec["out_shape"]
            sc = [outs[2] / ins[2], outs[3] / ins[3]]
            self.scales = sc
            a = dresample._interp_args("interpolate", None, sc, [2, 3], 4, {
                "mode": "linear_onnx", "shape_calculation_mode": "scales",
                "coordinate_transformation_mode": "half_pixel"})
            ds = np.empty(2, np.float64)
            self.fwd = lambda: _core.interpolate(alloc, y.dtype, x, *a)

            def bwd():
                _core.interpolate_backprop(dx, None, dy, x, *a)
                return (dx,)

            def bwd_scales():
                _core.interpolate_backprop(dx, ds, dy, x, *a)
                return (dx, ds)
            self.bwd, self.bwd_scales = bwd, bwd_scales
        else:
            mode, aa = rec["tmode"], bool(rec["antialias"])
            ac = False if mode in ("bilinear", "bicubic", "trilinear", "linear") else None
            a = (list(rec["out_shape"][2:]), None, mode, ac, aa, None)
            self.fwd = lambda: _core.torch_interpolate(alloc, y.dtype, x, *a)

            def bwd():
                _core.torch_interpolate_backward(dx, dy, x, *a)
                return (dx,)
            self.bwd = bwd


# ------------------------------------------------------------------ anchors
class Skip(Exception):
    """This anchor cannot express this workload (the message says why)."""


def load_anchor(name):
    """Imports an anchor; returns (module-ish handle, version) or raises ImportError."""
    if name == "torch":
        import torch
        return torch, torch.__version__
    if name == "openvino":
        import openvino as ov
        return ov, ov.__version__.split("-")[0]
    if name == "cv2":
        import cv2
        return cv2, cv2.__version__
    if name == "jax":
        import importlib.util
        if importlib.util.find_spec("jax") is None:
            raise ImportError("No module named 'jax'")
        out = subprocess.run([sys.executable, "-c", "import jax; print(jax.__version__)"],
                             capture_output=True, text=True)
        if out.returncode:
            raise ImportError(out.stderr.strip().splitlines()[-1])
        return None, out.stdout.strip()
    raise ValueError(name)


class TorchAnchor:
    """PyTorch's ATen kernels with preallocated results, as bench/compare_torch.py calls them."""
    tol = 1e-4

    def __init__(self, torch, rec, d):
        A = torch.ops.aten
        self.torch = torch
        kind = rec["kind"]
        tt = torch.from_numpy
        if kind == "backprop":
            kind, rec = "torch", dict(rec, tmode="bilinear", antialias=0)  # = W1's call
        if kind == "grid":
            x, g, dy = tt(d.x), tt(d.g), tt(d.dy)
            m, p = rec["grid_mode"], rec["grid_padding"]  # aten's enum order
            self.fwd = lambda: A.grid_sampler_2d(x, g, m, p, False)
            self.bwd = lambda: A.grid_sampler_2d_backward(dy, x, g, m, p, False, [True, True])
            self.out = lambda r: r.numpy()
            self.grads = lambda r: [t.numpy() for t in r]
            self.desc = "aten.grid_sampler_2d / grid_sampler_2d_backward (functional)"
            return
        if kind == "nhwc":
            x, dy = tt(d.x).permute(0, 3, 1, 2), tt(d.dy).permute(0, 3, 1, 2)
            y = torch.empty(list(dy.shape)).contiguous(memory_format=torch.channels_last)
            self.out = lambda r: r.permute(0, 2, 3, 1).numpy()
            self.grads = lambda r: [r.permute(0, 2, 3, 1).numpy()]
        else:
            x, dy = tt(d.x), tt(d.dy)
            y = torch.empty(list(dy.shape))
            self.out = lambda r: r.numpy()
            self.grads = lambda r: [r.numpy()]
        dx = torch.empty_like(x)
        mode, aa = rec["tmode"], rec["antialias"]
        osz, isz = list(dy.shape[2:]), list(x.shape)
        if mode == "area":
            self.fwd = lambda: A.adaptive_avg_pool2d.out(x, osz, out=y)
            self.bwd = lambda: A._adaptive_avg_pool2d_backward(dy, x)
            op = "adaptive_avg_pool2d.out / _adaptive_avg_pool2d_backward (functional)"
        elif mode == "nearest":
            op = "upsample_nearest2d"
            self.fwd = lambda: A.upsample_nearest2d.out(x, osz, None, None, out=y)
            self.bwd = lambda: A.upsample_nearest2d_backward.grad_input(
                dy, osz, isz, None, None, grad_input=dx)
        elif mode == "trilinear":
            op = "upsample_trilinear3d"
            self.fwd = lambda: A.upsample_trilinear3d.out(x, osz, False, None, None, None, out=y)
            self.bwd = lambda: A.upsample_trilinear3d_backward.grad_input(
                dy, osz, isz, False, None, None, None, grad_input=dx)
        else:
            op = {("bilinear", 0): "upsample_bilinear2d", ("bicubic", 0): "upsample_bicubic2d",
                  ("bilinear", 1): "_upsample_bilinear2d_aa",
                  ("bicubic", 1): "_upsample_bicubic2d_aa"}[(mode, aa)]
            f, b = getattr(A, op), getattr(A, op + "_backward")
            self.fwd = lambda: f.out(x, osz, False, None, None, out=y)
            self.bwd = lambda: b.grad_input(dy, osz, isz, False, None, None, grad_input=dx)
        self.desc = "aten." + op + ("" if "/" in op else ".out / _backward.grad_input") + (
            " (channels_last)" if kind == "nhwc" else "")

    def set_threads(self, T):
        self.torch.set_num_threads(T)


class OpenVINOAnchor:
    """OpenVINO's CPU plugin, forward: one compiled model and infer request per thread count."""
    tol = 1e-4
    bwd = None

    def __init__(self, ov, rec, d, threads):
        import openvino.opset1 as o1
        import openvino.opset9 as o9
        import openvino.opset11 as o11
        kind = rec["kind"]
        ins, outs = rec["in_shape"], rec["out_shape"]
        p = o11.parameter(ins, ov.Type.f32)
        params = [p]
        feeds = [d.x]
        self.desc = None
        if kind == "grid":
            q = o11.parameter(rec["grid_shape"], ov.Type.f32)
            params.append(q)
            feeds.append(d.g)
            node = o9.grid_sample(p, q, {"align_corners": False,
                                         "mode": GRID_MODES[rec["grid_mode"]],
                                         "padding_mode": GRID_PADS[rec["grid_padding"]]})
            self.desc = "GridSample-9"
        elif kind == "nhwc":
            node = o11.interpolate(p, np.array(outs[1:3], np.int64), "linear_onnx", "sizes",
                                   coordinate_transformation_mode="half_pixel",
                                   axes=np.array([1, 2], np.int64))
            self.desc = "Interpolate-11 linear_onnx half_pixel, NHWC axes {1,2}"
        elif kind == "backprop":
            ax = np.array([2, 3], np.int64)
            sc = np.array([outs[2] / ins[2], outs[3] / ins[3]], np.float32)
            node = o11.interpolate(p, sc, "linear_onnx", "scales",
                                   coordinate_transformation_mode="half_pixel", axes=ax)
            self.desc = "Interpolate-11 linear_onnx half_pixel scales"
        elif rec["tmode"] == "area":
            if any(i % o for i, o in zip(ins[2:], outs[2:])):
                raise Skip("AvgPool expresses area only for integer factors")
            k = [i // o for i, o in zip(ins[2:], outs[2:])]
            node = o1.avg_pool(p, k, [0, 0], [0, 0], k, True)
            self.desc = "AvgPool-1 (integer factor)"
        else:
            mode, aa = rec["tmode"], rec["antialias"]
            r = len(ins) - 2
            ax = np.arange(2, 2 + r, dtype=np.int64)
            sz = np.array(outs[2:], np.int64)
            kw = dict(coordinate_transformation_mode="half_pixel", axes=ax)
            if mode == "nearest":
                kw.update(coordinate_transformation_mode="asymmetric", nearest_mode="floor")
                m = "nearest"
            elif mode in ("bilinear", "trilinear"):
                m = "bilinear_pillow" if aa else ("linear_onnx" if r == 2 else "linear")
            elif mode == "bicubic":
                m = "bicubic_pillow" if aa else "cubic"
                kw.update(cube_coeff=-0.5 if aa else -0.75)
            else:
                raise Skip(f"no Interpolate-11 mode for {mode}")
            node = o11.interpolate(p, sz, m, "sizes", **kw)
            self.desc = f"Interpolate-11 {m}"
        model = ov.Model([node], params)
        core = ov.Core()
        self.reqs = {}
        for T in threads:
            cm = core.compile_model(model, "CPU", {"INFERENCE_NUM_THREADS": T,
                                                   "INFERENCE_PRECISION_HINT": "f32",
                                                   "NUM_STREAMS": 1})
            req = cm.create_infer_request()
            for i, a in enumerate(feeds):
                req.set_input_tensor(i, ov.Tensor(a, shared_memory=True))
            self.reqs[T] = req
        self.T = threads[0]
        self.out = lambda r: r

    def set_threads(self, T):
        self.T = T

    def poison(self):
        self.reqs[self.T].get_output_tensor(0).data[...] = np.nan

    def fwd(self):
        req = self.reqs[self.T]
        req.infer()
        return req.get_output_tensor(0).data


class Cv2Anchor:
    """cv2.resize / cv2.remap on the HxWxC image of each batch entry (one call per image)."""
    tol = 1e-4
    bwd = None

    def __init__(self, cv2, rec, d):
        self.cv2 = cv2
        kind = rec["kind"]
        ins, outs = rec["in_shape"], rec["out_shape"]
        if kind == "nhwc":
            xs = d.x
            y = np.empty(outs, np.float32)
            self.out = lambda r: r
        elif len(ins) != 4:
            raise Skip("cv2 resizes 2-D images only")
        else:
            xs = np.ascontiguousarray(d.x.transpose(0, 2, 3, 1))
            y = np.empty([outs[0], outs[2], outs[3], outs[1]], np.float32)
            self.out = lambda r: r.transpose(0, 3, 1, 2)
        self.y = y
        if xs.shape[-1] > 512:
            raise Skip("cv2 takes at most 512 channels")
        N = xs.shape[0]
        if kind == "grid":
            m, p = GRID_MODES[rec["grid_mode"]], GRID_PADS[rec["grid_padding"]]
            H, W = ins[2], ins[3]
            g = d.g.astype(np.float64)
            mx = (((g[..., 0] + 1.0) * W - 1.0) / 2.0).astype(np.float32)
            my = (((g[..., 1] + 1.0) * H - 1.0) / 2.0).astype(np.float32)
            inter = {"bilinear": cv2.INTER_LINEAR, "nearest": cv2.INTER_NEAREST,
                     "bicubic": cv2.INTER_CUBIC}[m]
            border = {"zeros": cv2.BORDER_CONSTANT, "border": cv2.BORDER_REPLICATE,
                      "reflection": cv2.BORDER_REFLECT}[p]
            self.desc = f"cv2.remap {m}/{p}"
            if m == "bilinear":
                # INTER_LINEAR rounds positions to 1/32 pixel (INTER_TAB_SIZE): looser check
                self.tol = 0.05
                self.desc += ", positions rounded to 1/32 pixel"
            C = xs.shape[-1]
            if m == "bicubic" and C > 4:
                # cv2.remap's INTER_CUBIC takes at most 4 channels: the image is held as
                # contiguous 4-channel slices (split once, untimed), one call per slice
                ks = range(0, C, 4)
                xc = [[np.ascontiguousarray(xs[n][..., k:k + 4]) for k in ks] for n in range(N)]
                yc = [[np.empty(y.shape[1:3] + (min(4, C - k),), np.float32) for k in ks]
                      for n in range(N)]
                self.desc += ", 4-channel slices"
                self.fwd = lambda: [cv2.remap(xc[n][j], mx[n], my[n], inter, dst=yc[n][j],
                                              borderMode=border, borderValue=0)
                                    for n in range(N) for j in range(len(ks))] and yc
                self.out = lambda r: np.stack([np.concatenate(r[n], axis=-1)
                                               for n in range(N)]).transpose(0, 3, 1, 2)
                return
            self.fwd = lambda: [cv2.remap(xs[n], mx[n], my[n], inter, dst=y[n],
                                          borderMode=border, borderValue=0)
                                for n in range(N)] and y
            return
        if kind in ("nhwc", "backprop"):
            inter, self.desc = cv2.INTER_LINEAR, "cv2.resize INTER_LINEAR (half_pixel)"
        else:
            mode, aa = rec["tmode"], rec["antialias"]
            if aa:
                raise Skip("cv2.resize has no antialiased (widened) bilinear/bicubic filter")
            if mode == "area" and any(i % o for i, o in zip(ins[2:], outs[2:])):
                raise Skip("INTER_AREA equals adaptive pooling only for integer factors")
            inter = {"bilinear": cv2.INTER_LINEAR, "nearest": cv2.INTER_NEAREST,
                     "bicubic": cv2.INTER_CUBIC, "area": cv2.INTER_AREA}[mode]
            self.desc = {"bilinear": "cv2.resize INTER_LINEAR (half_pixel)",
                         "nearest": "cv2.resize INTER_NEAREST (floor(i / scale))",
                         "bicubic": "cv2.resize INTER_CUBIC (a = -0.75, replicated border)",
                         "area": "cv2.resize INTER_AREA (box mean, integer factor)"}[mode]
        Ho, Wo = y.shape[1], y.shape[2]
        self.fwd = lambda: [cv2.resize(xs[n], (Wo, Ho), dst=y[n], interpolation=inter)
                            for n in range(N)] and y

    def set_threads(self, T):
        self.cv2.setNumThreads(T)


# ------------------------------------------------------------------ JAX (child process)
JAX_SCALES_KEY = "bwd_scales"


class JaxCase:
    """The JAX expression of one workload: jit forward, jit vjp backward."""
    tol = 1e-4

    def __init__(self, jax, rec, d):
        import jax.numpy as jnp
        from jax.scipy.ndimage import map_coordinates
        kind = rec["kind"]
        ins, outs = rec["in_shape"], rec["out_shape"]
        self.args = [jnp.asarray(d.x)]
        self.dy = jnp.asarray(d.dy)
        self.scales_fn = None
        if kind == "grid":
            m, p = GRID_MODES[rec["grid_mode"]], GRID_PADS[rec["grid_padding"]]
            if m == "bicubic":
                raise Skip("map_coordinates has orders 0 and 1 only")
            order = 0 if m == "nearest" else 1
            mode = {"zeros": "constant", "border": "nearest", "reflection": "reflect"}[p]
            H, W = ins[2], ins[3]

            def plane(img, cy, cx):
                return map_coordinates(img, [cy, cx], order=order, mode=mode, cval=0.0)

            per_c = jax.vmap(plane, in_axes=(0, None, None))    # over C
            per_n = jax.vmap(per_c, in_axes=(0, 0, 0))           # over N

            def f(x, g):
                cx = ((g[..., 0] + 1.0) * W - 1.0) * 0.5
                cy = ((g[..., 1] + 1.0) * H - 1.0) * 0.5
                return per_n(x, cy, cx)
            self.args.append(jnp.asarray(d.g))
            self.desc = f"map_coordinates order {order} mode {mode}"
            self.nout = 2
        elif kind in ("nhwc", "backprop") or rec["tmode"] in ("bilinear", "trilinear"):
            if kind not in ("nhwc", "backprop") and rec["antialias"]:
                self.desc = "image.resize linear antialias"
                f = lambda x: jax.image.resize(x, outs, "linear", antialias=True)  # noqa
            else:
                self.desc = "image.resize linear"
                f = lambda x: jax.image.resize(x, outs, "linear", antialias=False)  # noqa
            self.nout = 1
            if kind == "backprop":
                sc = jnp.asarray([outs[2] / ins[2], outs[3] / ins[3]], jnp.float32)
                tr = jnp.zeros(2, jnp.float32)

                def fs(x, s):
                    return jax.image.scale_and_translate(x, outs, (2, 3), s, tr, "linear",
                                                         antialias=False)
                sfn = jax.jit(lambda x, s, dy: jax.vjp(fs, x, s)[1](dy))
                self.scales_fn = lambda: sfn(self.args[0], sc, self.dy)
                self.desc += "; scale gradient: vjp of image.scale_and_translate"
        elif rec["tmode"] == "nearest":
            self.desc = "image.resize nearest"
            f = lambda x: jax.image.resize(x, outs, "nearest")  # noqa: E731
            self.nout = 1
        elif rec["tmode"] == "bicubic":
            if not rec["antialias"]:
                raise Skip("jax cubic is Keys a = -0.5; W3 (PyTorch bicubic) is a = -0.75")
            self.desc = "image.resize cubic antialias (a = -0.5)"
            f = lambda x: jax.image.resize(x, outs, "cubic", antialias=True)  # noqa: E731
            self.nout = 1
        elif rec["tmode"] == "area":
            if any(i % o for i, o in zip(ins[2:], outs[2:])):
                raise Skip("area as a reshape-mean needs integer factors")
            k = [i // o for i, o in zip(ins[2:], outs[2:])]
            self.desc = "reshape + mean (integer-factor area)"
            f = lambda x: x.reshape(ins[0], ins[1], outs[2], k[0], outs[3], k[1]).mean((3, 5))  # noqa
            self.nout = 1
        else:
            raise Skip(f"no jax.image method for {rec['tmode']}")
        jf = jax.jit(f)
        jb = jax.jit(lambda *a: jax.vjp(f, *a[:-1])[1](a[-1]))
        self.fwd = lambda: jf(*self.args).block_until_ready()
        self.bwd = lambda: [t.block_until_ready() for t in jb(*self.args, self.dy)]
        if self.scales_fn is not None:
            sf = self.scales_fn
            self.bwd_scales = lambda: [t.block_until_ready() for t in sf()]


def jax_child(args):
    """Runs in a child with its thread count fixed before jax is imported: times JAX and
    dresample interleaved on each workload and prints one JSON line per workload."""
    T = args.jax_child
    import jax
    jax.config.update("jax_platforms", "cpu")
    dresample.set_num_threads(T)
    for line in sys.stdin:
        rec = json.loads(line)
        d = DresCase(rec)
        r = {"workload": rec["workload"], "threads": T}
        try:
            jc = JaxCase(jax, rec, d)
        except Skip as e:
            r["skip"] = str(e)
            print(json.dumps(r), flush=True)
            continue
        r["desc"] = jc.desc
        phases = [("fwd", d.fwd, jc.fwd), ("bwd", d.bwd, jc.bwd)]
        if jc.scales_fn is not None:
            phases.append((JAX_SCALES_KEY, d.bwd_scales, jc.bwd_scales))
        for ph, df, jf in phases:
            ref = df()
            ref = [np.array(ref)] if ph == "fwd" else [np.array(t) for t in ref]
            res = jf()
            res = [np.asarray(res)] if ph == "fwd" else [np.asarray(t) for t in res]
            if ph == JAX_SCALES_KEY:  # jax's scale gradient is per scale entry: same layout
                res[1] = res[1].astype(np.float64)
            sk = (d.skips if ph != "fwd" else None) or [None] * len(ref)
            errs = [max_err(a, b, k) for a, b, k in zip(res, ref, sk)]
            ok = len(res) == len(ref) and all(e <= jc.tol for e in errs)
            refd = [digest(t) for t in ref]
            ts = {"dres": [], "jax": []}
            for _ in range(args.warmup):
                df()
                jf()
            for _ in range(args.runs):
                t0 = time.perf_counter()
                df()
                ts["dres"].append((time.perf_counter() - t0) * 1e3)
                t0 = time.perf_counter()
                out = jf()
                ts["jax"].append((time.perf_counter() - t0) * 1e3)
                out = [out] if ph == "fwd" else out
                rel = max(1e-4, jc.tol)
                ok = ok and all(digest_ok(digest(np.asarray(a)), b, rel)
                                for a, b in zip(out, refd))
            r[ph] = {"dres_ms": statistics.median(ts["dres"]),
                     "ms": statistics.median(ts["jax"]), "ok": ok, "err": max(errs)}
        print(json.dumps(r), flush=True)
    return 0


def run_jax(recs_by_name, threads, args):
    """{T: {name: child record}} from one JAX child per thread count."""
    res = {}
    ncpu = os.cpu_count() or 1
    for T in threads:
        env = dict(os.environ)
        flags = env.get("XLA_FLAGS", "")
        flags += f" --xla_cpu_multi_thread_eigen={'false' if T == 1 else 'true'}"
        flags += f" intra_op_parallelism_threads={T}"
        env["XLA_FLAGS"] = flags.strip()
        env.setdefault("JAX_PLATFORMS", "cpu")
        cpus = ",".join(str(c) for c in range(min(T, ncpu)))
        cmd = [sys.executable, os.path.abspath(__file__), "--jax-child", str(T),
               "--runs", str(args.runs), "--warmup", str(args.warmup), "x"]
        if T < ncpu and _has_taskset():
            cmd = ["taskset", "-c", cpus] + cmd
        inp = "".join(json.dumps(r) + "\n" for r in recs_by_name.values())
        p = subprocess.run(cmd, input=inp, capture_output=True, text=True, env=env)
        if p.returncode:
            raise RuntimeError(f"JAX child (threads {T}) failed: {p.stderr.strip()[-2000:]}")
        res[T] = {}
        for line in p.stdout.splitlines():
            if line.startswith("{"):
                r = json.loads(line)
                res[T][r["workload"]] = r
    return res


def _has_taskset():
    from shutil import which
    return which("taskset") is not None


# ------------------------------------------------------------------ the run



def time_phase(d, ph, anchors, threads, warmup, runs, failures, name, errors):
    """Times dresample's phase ph and each anchor's, interleaved call by call
    (dresample, anchor, ..., next thread count, next run); checks every result.
    Returns {T: {"dres": ms, anchor: ms}} and dresample's digests per T."""
    dfn = {"fwd": d.fwd, "bwd": d.bwd, "bwd_scales": d.bwd_scales}[ph]

    def arrs(r):
        return [np.asarray(r)] if ph == "fwd" else [np.asarray(t) for t in r]
    ref = [np.array(a) for a in arrs(dfn())]
    refd = [digest(a) for a in ref]
    calls = {"dres": (dfn, lambda r: arrs(r), 1e-4, None)}
    for an, a in anchors.items():
        f = getattr(a, ph, None)
        if f is None:
            continue
        conv = (lambda r, a=a: [a.out(r)]) if ph == "fwd" else (lambda r, a=a: a.grads(r))
        for T in threads:
            a.set_threads(T)
            got = conv(f())
            sk = (d.skips if ph != "fwd" else None) or [None] * len(ref)
            errs = [max_err(x, y, k) for x, y, k in zip(got, ref, sk)]
            errors[(an, name)] = max(errors.get((an, name), 0.0), max(errs))
            if len(got) != len(ref) or max(errs) > a.tol:
                failures.append(f"{name} {ph} {an} threads {T}: max error {max(errs):.3g} > "
                                f"{a.tol:g} (relative to max(1, max|dresample|))")
        calls[an] = (f, conv, max(1e-4, a.tol), getattr(a, "poison", None))
    dig = {}
    ts = {T: {k: [] for k in calls} for T in threads}
    for T in threads:
        dresample.set_num_threads(T)
        for an in anchors:
            anchors[an].set_threads(T)
        for _ in range(warmup):
            for k, (f, _, _, _) in calls.items():
                f()
    for i in range(runs):
        for T in threads:
            dresample.set_num_threads(T)
            for an in anchors:
                anchors[an].set_threads(T)
            for k, (f, conv, rel, poison) in calls.items():
                if poison is not None:
                    poison()
                t0 = time.perf_counter()
                r = f()
                ts[T][k].append((time.perf_counter() - t0) * 1e3)
                got = [digest(a) for a in conv(r)]
                if k == "dres" and i == runs - 1:
                    dig[T] = got
                bad = [j for j, (a, b) in enumerate(zip(got, refd)) if not digest_ok(a, b, rel)]
                if bad or len(got) != len(refd):
                    j = bad[0] if bad else 0
                    what = ("output", "input gradient", "grid gradient", "scales gradient")[
                        0 if ph == "fwd" else min(j + 1, 3)]
                    if ph == "bwd_scales" and j == 1:
                        what = "scales gradient"
                    failures.append(f"{name} {ph} {k} threads {T} run {i}: {what} sum "
                                    f"{got[j][0]:.6g} |sum| {got[j][1]:.6g} against dresample's "
                                    f"{refd[j][0]:.6g} {refd[j][1]:.6g}")
    return {T: {k: statistics.median(v) for k, v in ts[T].items()} for T in threads}, dig


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("bench", help="path to the C bench (build/bench/drs_bench)")
    ap.add_argument("--threads", default="1", help="comma-separated thread counts, e.g. 1,2")
    ap.add_argument("--quick", action="store_true", help="3 runs, 1 warm-up (not for the README)")
    ap.add_argument("--runs", type=int, help="timed calls per measurement (default 7; --quick 3)")
    ap.add_argument("--warmup", type=int, help="untimed calls first (default 2; --quick 1)")
    ap.add_argument("--workload", help="comma-separated workloads (W8 = W8a-d)")
    ap.add_argument("--anchors", default=",".join(ANCHORS),
                    help="comma-separated anchors to try (default all: torch,openvino,jax,cv2)")
    ap.add_argument("--smoke", action="store_true", help="tiny shapes: checks results, not times")
    ap.add_argument("--no-malloc-env", action="store_true",
                    help="do not set the glibc malloc variables")
    ap.add_argument("--json-out", help="also write every number to this JSON file")
    ap.add_argument("--jax-child", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.runs = args.runs or (3 if args.quick else 7)
    args.warmup = args.warmup if args.warmup is not None else (1 if args.quick else 2)
    if args.jax_child:
        return jax_child(args)
    threads = [int(t) for t in args.threads.split(",")]
    bench = os.path.abspath(args.bench)
    names = list_workloads(bench, args.workload)
    if not names:
        sys.exit("compare.py: --workload selects nothing")
    common = ["--runs", str(args.runs), "--warmup", str(args.warmup)] + \
        (["--smoke"] if args.smoke else [])
    tlist = ",".join(map(str, threads))

    mods, versions, missing = {}, {}, {}
    for an in args.anchors.split(","):
        if an not in ANCHORS:
            sys.exit(f"compare.py: --anchors: unknown anchor '{an}' (know {', '.join(ANCHORS)})")
        try:
            mods[an], versions[an] = load_anchor(an)
        except Exception as e:  # noqa: BLE001  (any import failure skips the anchor)
            missing[an] = str(e).splitlines()[0] if str(e) else type(e).__name__
    active = [a for a in ANCHORS if a in versions]
    print(f"dresample {dresample.__version__} (Python package, this process) against "
          + (", ".join(f"{a} {versions[a]}" for a in active) or "no anchor")
          + f"; {os.cpu_count()} CPUs, f32, median of {args.runs} interleaved calls after "
          f"{args.warmup} warm-up" + ("" if args.no_malloc_env else
                                      "; env " + " ".join(f"{k}={v}" for k, v in
                                                            MALLOC_ENV.items())), flush=True)
    for a, why in missing.items():
        print(f"anchor {a} skipped: {why}", flush=True)
    if not active:
        print("compare.py: SKIPPED: no anchor package could be imported")
        return SKIP

    t_start = time.time()
    load0 = os.getloadavg()
    copy = {c["threads"]: c for c in run_bench(bench, ["--threads", tlist, "--workload", "copy"]
                                               + common)}
    build = copy[threads[0]].get("build", "unknown")
    print(f"C library build type {build}", flush=True)
    try:
        arith = (run_bench(bench, ["--workload", "arith"] + (["--smoke"] if args.smoke else []))
                 or [{}])[0]
    except subprocess.CalledProcessError:  # a drs_bench older than its arithmetic probe
        arith = {"skipped": "this drs_bench has no arithmetic probe"}
    if "skipped" in arith:
        print(f"core's peak: not measured ({arith['skipped']})", flush=True)
    elif "mul" in arith:
        print(f"core's peak (drs_bench arith probe, 1 thread; 512-bit operations per ns): "
              f"multiplies {arith['mul']:.2f}, adds {arith['add']:.2f}, the two mixed "
              f"{arith['mul_add_mix']:.2f}, fused multiply-adds {arith['fma']:.2f}, two-source "
              f"permutes {arith['permutex2var']:.2f}", flush=True)
    failures, notes, errors, kinks = [], {}, {}, {}
    res = {T: {} for T in threads}
    recs0 = {}
    for name in names:
        recs = run_bench(bench, ["--threads", tlist, "--workload", name, "--no-copy", "--bound"]
                         + common)
        recs0[name] = recs[0]
        d = DresCase(recs[0])
        anchors = {}
        for an in active:
            if an == "jax":
                continue
            try:
                if an == "torch":
                    anchors[an] = TorchAnchor(mods[an], recs[0], d)
                elif an == "openvino":
                    anchors[an] = OpenVINOAnchor(mods[an], recs[0], d, threads)
                elif an == "cv2":
                    anchors[an] = Cv2Anchor(mods[an], recs[0], d)
                desc = getattr(anchors[an], "desc", None)
                if desc:
                    notes.setdefault(an, {})[name] = desc
            except Skip as e:
                notes.setdefault(an, {})[name] = "skipped: " + str(e)
        if d.skips is not None:
            kinks[name] = int(d.skips[1][..., 0].sum())
        phases = ["fwd", "bwd"] + (["bwd_scales"] if d.bwd_scales else [])
        out = {}
        for ph in phases:
            anc = {k: v for k, v in anchors.items()
                   if ph != "bwd_scales" and getattr(v, ph, None) is not None}
            out[ph], dig = time_phase(d, ph, anc, threads, args.warmup, args.runs, failures, name,
                                        errors)
            if len({json.dumps(v) for v in dig.values()}) > 1:
                failures.append(f"{name} {ph}: dresample's result depends on the thread count")
        for rec in recs:
            T = rec["threads"]
            res[T][name] = {"c": rec, **{ph: out[ph][T] for ph in phases}}
        print(f"  {name}: " + "; ".join(
            f"T{T} fwd " + " ".join(f"{k} {v:.2f}" for k, v in out['fwd'][T].items())
            for T in threads), file=sys.stderr, flush=True)
        del d, anchors
    jres = None
    if "jax" in active:
        print("  JAX: one child process per thread count ...", file=sys.stderr, flush=True)
        try:
            jres = run_jax(recs0, threads, args)
        except RuntimeError as e:
            failures.append(str(e))
        if jres:
            for T in threads:
                for name, r in jres[T].items():
                    if "skip" in r:
                        notes.setdefault("jax", {})[name] = "skipped: " + r["skip"]
                        continue
                    notes.setdefault("jax", {})[name] = r["desc"]
                    errors[("jax", name)] = max(errors.get(("jax", name), 0.0),
                                                *(r[ph]["err"] for ph in ("fwd", "bwd", JAX_SCALES_KEY)
                                                  if ph in r))
                    for ph in ("fwd", "bwd", JAX_SCALES_KEY):
                        if ph in r and not r[ph]["ok"]:
                            failures.append(f"{name} {ph} jax threads {T}: result differs "
                                            f"(max error {r[ph]['err']:.3g})")
    for c2 in run_bench(bench, ["--threads", tlist, "--workload", "copy"] + common):
        T = c2["threads"]
        copy[T]["gbs_end"] = c2["gbs"]
        copy[T]["gbs_best"] = max(copy[T]["gbs"], c2["gbs"])
    load1 = os.getloadavg()
    print(f"load average {load0[0]:.2f} at start, {load1[0]:.2f} at end; "
          f"{time.time() - t_start:.0f} s")

    cols = [a for a in active]
    geo = {}
    for T in threads:
        cb = max(copy[T]["gbs_best"], 1e-9)
        print()
        print(f"== threads {T} ==  copy roofline {cb:.2f} GB/s (drs_bench probe, read + write)")
        hdr = (f"{'name':<4} {'fwd ms':>7} {'C ms':>7} " + " ".join(f"{a[:6]:>6}" for a in cols)
               + f" | {'bwd ms':>7} {'C ms':>7} "
               + " ".join(f"{a[:6]:>6}" for a in cols if a in ("torch", "jax"))
               + f" | {'%roof f':>7} {'%roof b':>7} {'%bnd f':>6} {'%bnd b':>6}")
        print(hdr)
        print("-" * len(hdr))
        rat = {a: {"fwd": [], "bwd": []} for a in cols}
        over = []
        for name in names:
            r = res[T][name]
            c = r["c"]
            cells = []
            for ph in ("fwd", "bwd"):
                ms = r[ph]["dres"]
                over.append(ms / c[ph + "_ms"])
                cell = f"{ms:7.2f} {c[ph + '_ms']:7.2f}"
                for a in cols:
                    if ph == "bwd" and a not in ("torch", "jax"):
                        continue
                    v = None
                    if a == "jax":
                        jr = (jres or {}).get(T, {}).get(name, {})
                        if ph in jr:
                            v = jr[ph]["dres_ms"] / jr[ph]["ms"]
                    elif a in r[ph]:
                        v = ms / r[ph][a]
                    if v is not None:
                        rat[a][ph].append(v)
                    cell += f" {'-':>6}" if v is None else f" {v:6.2f}"
                cells.append(cell)
            star = "*" if name in MEMORY_BOUND else " "
            pf = 100 * c["bytes_fwd"] / (r["fwd"]["dres"] * 1e6) / cb
            pb = 100 * c["bytes_bwd"] / (r["bwd"]["dres"] * 1e6) / cb
            # the bound and the C bench's time: the same process, minutes apart at most,
            # with no anchor's calls between (which evict the caches the package's calls find)
            bf = 100 * c.get("bound_fwd_ms", 0.0) / max(c["fwd_ms"], 1e-9)
            bb = 100 * c.get("bound_bwd_ms", 0.0) / max(c["bwd_ms"], 1e-9)
            print(f"{name:<3}{star} {cells[0]} | {cells[1]} | {pf:7.0f} {pb:7.0f} {bf:6.0f} {bb:6.0f}")
            if "bwd_scales" in r:
                s = r["bwd_scales"]["dres"]
                line = (f"     {name} with scales_delta: {s:.2f} ms, "
                        f"{100 * (s / r['bwd']['dres'] - 1):+.0f}% over the data gradient")
                if c.get("bwd_scales_ms") and c.get("bwd_ms"):
                    # the C bench times both calls in one process, one block after the
                    # other: the package's two medians come from separate phases here
                    line += (f" (C bench: {c['bwd_scales_ms']:.2f} ms, "
                             f"{100 * (c['bwd_scales_ms'] / c['bwd_ms'] - 1):+.0f}%)")
                jr = (jres or {}).get(T, {}).get(name, {})
                if JAX_SCALES_KEY in jr:
                    q = jr[JAX_SCALES_KEY]
                    line += (f"; JAX data + scale gradient {q['ms']:.2f} ms, ratio "
                             f"{q['dres_ms'] / q['ms']:.2f}")
                print(line)
        geo[T] = {a: {ph: geomean(rat[a][ph]) for ph in ("fwd", "bwd")} for a in cols}
        geo[T]["python_over_c"] = geomean(over)
        print(f"dresample Python package / C bench time: geomean {geomean(over):.2f} "
              f"(1.00 = no overhead)")
        for a in cols:
            g = geo[T][a]
            print(f"geomean ratio vs {a} {versions[a]}: fwd {g['fwd']:.2f} ({len(rat[a]['fwd'])} "
                  f"rows)" + (f" bwd {g['bwd']:.2f} ({len(rat[a]['bwd'])} rows)"
                              if rat[a]["bwd"] else "") + f" (threads {T})")

    print("\nratio = dresample / anchor (< 1: dresample faster); fwd/bwd ms = dresample "
          "through its Python package in this process, C ms = drs_bench in the same run; "
          "* = memory-bound row; %roof = dresample's bytes read + written / time / copy GB/s; "
          "%bnd = the row's traffic bound (drs_bench --bound: a loop moving exactly its bytes "
          "read and written) / the C bench's time. "
          "JAX ratios pair JAX with dresample timed in the JAX child.")
    print("how each anchor expresses each workload (and the element check's tolerance):")
    tols = {"torch": "1e-4", "openvino": "1e-4", "jax": "1e-4", "cv2": "1e-4 (remap bilinear 0.05)"}
    for a in cols:
        print(f"  {a} (max error <= {tols[a]} x max(1, max|dresample|)):")
        for name in names:
            if name in notes.get(a, {}):
                e = errors.get((a, name))
                print(f"    {name:<4} {notes[a][name]}" + ("" if e is None else
                                                           f" (max error {e:.2g})"))
    if kinks:
        print("grid gradients: grid points within 1e-4 pixel of a pixel line (one-sided "
              "derivatives; dresample's positions are double, the anchors' float32) left out of "
              "the element check: " + ", ".join(f"{n} {k}" for n, k in kinks.items()))
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump({"versions": versions, "missing": missing, "copy": copy, "arith": arith,
                       "load": [load0, load1], "geomean": geo, "notes": notes,
                       "results": {str(T): res[T] for T in threads},
                       "jax": {str(T): v for T, v in (jres or {}).items()},
                       "max_errors": {f"{a} {n}": e for (a, n), e in errors.items()},
                       "failures": failures}, f, indent=1)
    if failures:
        print(f"\nCHECK FAILED ({len(failures)}):")
        for f_ in failures[:50]:
            print("  " + f_)
        return 1
    print("\nall checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
