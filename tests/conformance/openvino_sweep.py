#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""openvino_sweep.py — dresample's OpenVINO ops against the OpenVINO runtime.

Usage: openvino_sweep.py PATH/TO/dresample [--cases N] [--seed S] [--verbose]

A seeded random sweep over every attribute of Interpolate-1, Interpolate-4,
Interpolate-11 and GridSample-9 (https://docs.openvino.ai/ operation specs),
data types f32, f64, u8, i8, i32, ranks 1-5, sizes and scales modes, pads,
axes in any order.  Each case gets two OpenVINO answers:

  reference  the node built on Constant inputs and folded by OpenVINO's
             ConstantFolding pass, which calls the op's reference `evaluate`
             (ov::reference::interpolate / grid_sample).  Interpolate-1 has no
             evaluate: it is converted to Interpolate-4 exactly as OpenVINO's
             ConvertInterpolate1ToInterpolate4 transformation does (sizes
             mode, scales = f32(O)/f32(L), nearest `simple`, linear ->
             linear_onnx below rank 5, the coordinate-mode rule) and then
             folded.  The reference has kernels for f32, u8, i8 (Interpolate)
             and f32 (GridSample) only; other types have no reference answer.
  CPU        the node compiled for OpenVINO's CPU plugin, run in a child
             process (the plugin corrupts its heap on some pillow / NHWC
             cases; a crash is recorded and the child restarted).

and dresample's answer through the CLI.  Agreement: integer outputs equal,
float outputs within 1e-5 * max(1, max|data|) (f32 rounding of a handful of
operations), the same output shape, errors on both sides.  Every disagreement
is put in a named class (CLASSES below: an OpenVINO defect, a deviation listed
in docs/semantics.md, a CPU-plugin deviation from its own reference); the
script prints the count of every class and exits 1 on any disagreement it
cannot classify or one of class "ours".  77 (skip) when openvino is missing.

The default sweep is small enough for ctest; DRS_OV_CASES=N (or --cases)
runs a larger one.
"""
import os
import pickle
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset9 as o9
    import openvino.opset10 as o10
    import openvino.opset11 as o11
    from openvino.passes import ConstantFolding, Manager
except ImportError as e:  # the reference package is optional: ctest reports a skip
    print(f"skipped: OpenVINO conformance needs numpy and openvino ({e})")
    sys.exit(77)

DEFAULT_CASES = 150
DTYPES = ["float32", "float64", "uint8", "int8", "int32"]
REF_DTYPES = {"Interpolate": {"float32", "uint8", "int8"}, "GridSample": {"float32"}}

# name -> (kind, explanation).  kind: "ov-defect", "listed", "cpu", "ours".
CLASSES = {
    "ov-defect: pillow reversed axes": (
        "ov-defect", "pillow modes with axes in descending order: the reference transposes back "
        "wrongly (output scrambled or uninitialised); dresample resamples the named axes"),
    "ov-defect: linear_onnx 5-D merged axes": (
        "ov-defect", "linear_onnx on 5-D with axes [2,3,4] and an unchanged depth: the reference "
        "merges two axes and applies the wrong scales"),
    "ov-defect: linear_onnx resizing N or C": (
        "ov-defect", "linear_onnx with axes = all axes that resizes axis 0 or 1: the reference "
        "interpolates only axes 2.. and reads the batch/channel planes out of place"),
    "ov-defect: reference crash": (
        "ov-defect", "the reference evaluate crashed the process (seen with pillow modes on "
        "reversed axes)"),
    "listed: antialias mixed up/down": (
        "listed", "linear + antialias with some axes up- and some down-sampled: OpenVINO stretches "
        "by one global factor, dresample uses min(s, 1) per axis"),
    "listed: linear_onnx rank < 4": (
        "listed", "linear_onnx on rank 1-3: OpenVINO reads past its scales array"),
    "listed: rejected by dresample": (
        "listed", "input OpenVINO accepts with undefined or ignored meaning and dresample "
        "rejects (antialias with nearest, duplicate axes, pads outside the axes of "
        "Interpolate-1, linear_onnx with all axes resizing axis 0 or 1, where the reference's "
        "answer is wrong)"),
    "listed: Interpolate-1 evaluated where OpenVINO throws": (
        "listed", "Interpolate-1 area (no OpenVINO implementation) and linear on rank < 5 with "
        "axes other than all/spatial (OpenVINO: 'Axes are not correct'): dresample evaluates them"),
    "listed: integer out of range": (
        "listed", "integer cubic/linear result outside the type's range: OpenVINO casts "
        "(undefined), dresample truncates then saturates (the other points are checked equal)"),
    "cpu: differs from its reference": (
        "cpu", "the CPU plugin's kernels compute differently from ov::reference (dresample "
        "follows the reference): other rounding of integers, antialias, pads, non-spatial axes"),
    "cpu: resizes spatial axes only": (
        "cpu", "the CPU plugin refuses to resize axis 0 or 1 ('only supports resize on spatial "
        "dimensions'); the reference resizes them"),
    "cpu: linear_onnx on axes the reference refuses": (
        "cpu", "linear_onnx on axes other than all/spatial: the reference throws 'Axes are not "
        "correct', the CPU plugin computes something"),
    "cpu: crash": ("cpu", "the CPU plugin crashed (heap corruption) on this case"),
    "cpu: rejects": ("cpu", "the CPU plugin refuses a case the reference evaluates"),
    "cpu: accepts what the reference rejects": (
        "cpu", "the CPU plugin computes a case the reference refuses"),
    "ours: float32 nearest tie": (
        "ours", "nearest picks the other neighbour where OpenVINO's float32 coordinate "
        "and dresample's double coordinate round differently (checked point by point)"),
    "ours: integer +-1": (
        "ours", "integer output off by one from the reference (dresample computes OpenVINO's "
        "integer linear/linear_onnx/cubic in the reference's float32 arithmetic and order)"),
    "ours: value": ("ours", "dresample differs from the reference"),
    "ours: shape": ("ours", "dresample's output shape differs from the reference"),
    "ours: rejects": ("ours", "dresample rejects a case the reference evaluates"),
    "ours: accepts": ("ours", "dresample computes a case OpenVINO rejects"),
}


# ----------------------------------------------------------------------------
# case generation

def gen_data(rs, shape, dtype):
    if dtype in ("float32", "float64"):
        return rs.uniform(-10, 10, shape).astype(dtype)
    lo, hi = {"uint8": (0, 256), "int8": (-128, 128), "int32": (-1000, 1001)}[dtype]
    return rs.randint(lo, hi, shape).astype(dtype)


def pick_scale(rs):
    return float(rs.choice([0.5, 0.75, 1.0, 4 / 3, 1.5, 2.0, 2.5, 3.0, 0.3, 0.6])
                 if rs.rand() < 0.6 else np.float32(rs.uniform(0.25, 3.0)))


def gen_interpolate(rs, version):
    dtype = DTYPES[rs.randint(len(DTYPES))]
    modes = ["nearest", "linear", "linear_onnx", "cubic"]
    if version == 11:
        modes += ["bilinear_pillow", "bicubic_pillow"]
    if version == 1:  # the modes of Interpolate-1
        modes = ["nearest", "linear", "cubic", "area"]
    mode = modes[rs.randint(len(modes))]
    pillow = mode.endswith("pillow")
    rank = int(rs.randint(2 if pillow else 1, 6))
    if pillow:
        axes = sorted(rs.choice(rank, 2, replace=False).tolist())
        if rs.rand() < 0.25:
            axes = axes[::-1]
    elif mode == "linear_onnx" and rank == 5 and rs.rand() < 0.5:
        axes = [2, 3, 4]
    else:
        k = int(rs.randint(1, rank + 1))
        axes = sorted(rs.choice(rank, k, replace=False).tolist())
        if version != 1 and rs.rand() < 0.15:
            rs.shuffle(axes)
    shape = [int(rs.randint(1, 3)) if d not in axes else int(rs.randint(1, 7)) for d in range(rank)]
    if pillow and rs.rand() < 0.5:
        shape = [int(rs.randint(1, 9)) if d in axes else s for d, s in enumerate(shape)]
    pads_b, pads_e = [0] * rank, [0] * rank
    if rs.rand() < 0.3:
        for d in axes:
            pads_b[d], pads_e[d] = int(rs.randint(0, 3)), int(rs.randint(0, 3))
    c = dict(op=f"Interpolate-{version}", dtype=dtype, mode=mode, axes=axes,
             x=gen_data(rs, shape, dtype), pads_begin=pads_b, pads_end=pads_e)
    padded = [s + b + e for s, b, e in zip(shape, pads_b, pads_e)]
    if mode == "linear_onnx" and axes == [2, 3, 4] and rs.rand() < 0.7:
        sizes = [padded[2]] + [int(rs.randint(1, 9)) for _ in axes[1:]]
    else:
        sizes = [int(rs.randint(1, 10)) for _ in axes]
    if version == 1:
        c.update(sizes=sizes, align_corners=bool(rs.rand() < 0.4),
                 antialias=bool(rs.rand() < 0.2))
        return c
    c["shape_calculation_mode"] = "sizes" if rs.rand() < 0.5 else "scales"
    c["scales"] = [pick_scale(rs) for _ in axes]
    c["sizes"] = sizes
    c["coordinate_transformation_mode"] = ["half_pixel", "pytorch_half_pixel", "asymmetric",
                                           "tf_half_pixel_for_nn", "align_corners"][rs.randint(5)]
    c["nearest_mode"] = ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil",
                         "simple"][rs.randint(5)]
    c["antialias"] = bool(rs.rand() < (0.05 if mode == "nearest" else 0.3))
    c["cube_coeff"] = -0.75 if rs.rand() < 0.6 else float(np.float32(rs.uniform(-1.0, -0.3)))
    return c


def gen_grid_sample(rs):
    dtype = DTYPES[rs.randint(len(DTYPES))]
    shape = [int(rs.randint(1, 3)), int(rs.randint(1, 3)), int(rs.randint(1, 7)), int(rs.randint(1, 7))]
    out = [int(rs.randint(1, 6)), int(rs.randint(1, 6))]
    g = rs.uniform(-1.3, 1.3, (shape[0], *out, 2))
    align = bool(rs.rand() < 0.5)
    if rs.rand() < 0.4:  # exact nearest ties: pixel coordinates k + 0.5
        for k, L in enumerate((shape[3], shape[2])):
            u = rs.randint(-1, L + 1, g.shape[:-1]) + 0.5
            g[..., k] = (2 * u / (L - 1) - 1) if (align and L > 1) else ((2 * u + 1) / L - 1)
    return dict(op="GridSample-9", dtype=dtype, x=gen_data(rs, shape, dtype),
                grid=g.astype(np.float32), align_corners=align,
                mode=["bilinear", "bicubic", "nearest"][rs.randint(3)],
                padding_mode=["zeros", "border", "reflection"][rs.randint(3)])


def gen_cases(n, seed):
    rs = np.random.RandomState(seed)
    cases = []
    for i in range(n):
        kind = i % 6
        c = gen_grid_sample(rs) if kind == 5 else gen_interpolate(rs, [1, 4, 4, 11, 11][kind])
        c["id"] = i
        cases.append(c)
    return cases


# ----------------------------------------------------------------------------
# OpenVINO graphs

def ov_node(c, data):
    """The OpenVINO node of case `c` on the data node `data` (Interpolate-1 as
    the Interpolate-4 that ConvertInterpolate1ToInterpolate4 makes when
    `convert_v1`)."""
    i64 = lambda v: o1.constant(np.array(v, dtype=np.int64))
    if c["op"] == "GridSample-9":
        return o9.grid_sample(data, o1.constant(c["grid"]), {
            "align_corners": c["align_corners"], "mode": c["mode"], "padding_mode": c["padding_mode"]})
    if c["op"] == "Interpolate-1":
        return o1.interpolate(data, i64(c["sizes"]), {
            "axes": c["axes"], "mode": c["mode"], "align_corners": c["align_corners"],
            "antialias": c["antialias"], "pads_begin": c["pads_begin"], "pads_end": c["pads_end"]})
    kw = dict(pads_begin=c["pads_begin"], pads_end=c["pads_end"],
              coordinate_transformation_mode=c["coordinate_transformation_mode"],
              nearest_mode=c["nearest_mode"], antialias=c["antialias"], cube_coeff=c["cube_coeff"],
              axes=i64(c["axes"]))
    sc = o1.constant(np.array(c["scales"], dtype=np.float32))
    if c["op"] == "Interpolate-4":
        return o10.interpolate(data, i64(c["sizes"]), sc, c["mode"], c["shape_calculation_mode"], **kw)
    arg = i64(c["sizes"]) if c["shape_calculation_mode"] == "sizes" else sc
    return o11.interpolate(data, arg, c["mode"], c["shape_calculation_mode"], **kw)


def v1_as_v4(c):
    """Interpolate-1 case -> the Interpolate-4 case OpenVINO converts it to,
    or None where the conversion does not apply (area; linear above rank 5)."""
    rank = c["x"].ndim
    mode = c["mode"]
    if mode == "linear":
        if rank > 5:
            return None
        mode = "linear_onnx" if rank < 5 else "linear"
    elif mode not in ("nearest", "cubic", "linear_onnx"):
        return None
    ctm = "asymmetric"
    if c["align_corners"]:
        ctm = "align_corners"
    elif (mode in ("linear_onnx", "linear") and not any(c["pads_begin"]) and not any(c["pads_end"])
          and not (rank - 2 == 2 and sorted(c["axes"]) == [2, 3])):
        ctm = "half_pixel"
    L = [c["x"].shape[a] for a in c["axes"]]
    scales = [float(np.float32(o) / np.float32(l)) for o, l in zip(c["sizes"], L)]
    return dict(c, op="Interpolate-4", mode=mode, shape_calculation_mode="sizes", scales=scales,
                coordinate_transformation_mode=ctm, nearest_mode="simple", cube_coeff=-0.75)


def ov_reference(c):
    """(array, None) or (None, reason) from OpenVINO's reference evaluate."""
    if c["op"] == "Interpolate-1":
        c4 = v1_as_v4(c)
        if c4 is None:
            return None, "no Interpolate-1 -> 4 conversion (area or rank > 5)"
        c = c4
    shadow = c["dtype"] not in REF_DTYPES[c["op"].split("-")[0]]
    x = c["x"].astype(np.float32) if shadow else c["x"]
    try:
        m = ov.Model([o1.result(ov_node(c, o1.constant(x)))], [], "case")
        mgr = Manager()
        mgr.register_pass(ConstantFolding())
        mgr.run_passes(m)
    except Exception as e:  # node validation refuses the case
        return None, f"rejects: {short_error(e)}"
    src = m.get_results()[0].input_value(0).get_node()
    if src.get_type_name() != "Constant":
        return None, "rejects: evaluate throws"
    return np.array(src.get_data()), ("shadow" if shadow else None)


def short_error(e):
    lines = [ln.strip() for ln in str(e).splitlines()
             if ln.strip() and not ln.startswith("Exception from") and "Check '" not in ln]
    return " | ".join(lines)[:240] if lines else type(e).__name__


def ov_cpu(c, core):
    """(array, None) or (None, reason) from OpenVINO's CPU plugin."""
    try:
        p = o1.parameter(list(c["x"].shape), c["x"].dtype)
        m = ov.Model([o1.result(ov_node(c, p))], [p], "case")
        y = core.compile_model(m, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})([c["x"]])[0]
        return np.asarray(y), None
    except Exception as e:
        return None, short_error(e)


def ov_child(path, start):
    """Runs tasks start.. of the pickle at `path` ((case, "ref" or "cpu")
    pairs), writing <path>.<task>.pkl as it goes.  A child process because
    both the reference (pillow modes, reversed axes) and the CPU plugin can
    crash the process."""
    with open(path, "rb") as f:
        tasks = pickle.load(f)
    core = ov.Core()
    for t, (c, which) in enumerate(tasks[start:], start):
        res = ov_reference(c) if which == "ref" else ov_cpu(c, core)
        with open(f"{path}.{t}.tmp", "wb") as f:  # then renamed: a crash never leaves half a file
            pickle.dump(res, f)
        os.replace(f"{path}.{t}.tmp", f"{path}.{t}.pkl")


def run_openvino(cases, tmp):
    """{(case index, "ref"/"cpu"): (array or None, note)}, a crash noted as "crash"."""
    path = os.path.join(tmp, "tasks.pkl")
    tasks = [(c, w) for c in cases for w in ("ref", "cpu")]
    with open(path, "wb") as f:
        pickle.dump(tasks, f)
    out, start = {}, 0
    while start < len(tasks):
        subprocess.run([sys.executable, os.path.abspath(__file__), "--ov-child", path, str(start)],
                       capture_output=True, timeout=1200)
        t = start
        while t < len(tasks) and os.path.exists(f"{path}.{t}.pkl"):
            with open(f"{path}.{t}.pkl", "rb") as f:
                out[(t // 2, tasks[t][1])] = pickle.load(f)
            t += 1
        if t < len(tasks):
            out[(t // 2, tasks[t][1])] = (None, "crash")
            t += 1
        start = t
    return out


# ----------------------------------------------------------------------------
# dresample

def ours(cli, tmp, c):
    args = [cli, "run", c["op"]]
    ins = {}
    if c["op"] == "GridSample-9":
        attrs = {k: c[k] for k in ("align_corners", "mode", "padding_mode")}
        ins = {"data": c["x"], "grid": c["grid"]}
    elif c["op"] == "Interpolate-1":
        attrs = {k: c[k] for k in ("axes", "mode", "align_corners", "antialias", "pads_begin", "pads_end")}
        ins = {"data": c["x"], "target_spatial_shape": np.array(c["sizes"], dtype=np.int64)}
    else:
        attrs = {k: c[k] for k in ("mode", "shape_calculation_mode", "coordinate_transformation_mode",
                                   "nearest_mode", "antialias", "pads_begin", "pads_end", "cube_coeff")}
        sizes = np.array(c["sizes"], dtype=np.int64)
        scales = np.array(c["scales"], dtype=np.float32)
        axes = np.array(c["axes"], dtype=np.int64)
        if c["op"] == "Interpolate-4":
            ins = {"data": c["x"], "axes": axes}
            ins["sizes" if c["shape_calculation_mode"] == "sizes" else "scales"] = \
                sizes if c["shape_calculation_mode"] == "sizes" else scales
        else:
            ins = {"image": c["x"], "axes": axes,
                   "scales_or_sizes": sizes if c["shape_calculation_mode"] == "sizes" else scales}
    for k, v in attrs.items():
        if isinstance(v, bool):
            v = int(v)
        if isinstance(v, list):
            v = ",".join(str(int(a)) for a in v)
        args += ["--attr", f"{k}={v}"]
    for k, v in ins.items():
        p = os.path.join(tmp, f"{k}.npy")
        np.save(p, v)
        args += ["--in", f"{k}={p}"]
    y = os.path.join(tmp, "out.npy")
    if os.path.exists(y):
        os.unlink(y)
    args += ["--out", f"output={y}"]
    r = subprocess.run(args, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        return None, r.stderr.strip().splitlines()[-1] if r.stderr.strip() else f"exit {r.returncode}"
    return np.load(y), None


# ----------------------------------------------------------------------------
# classification

def agree(a, b, c):
    if a.shape != b.shape:
        return False
    if np.issubdtype(np.asarray(a).dtype, np.integer) and np.issubdtype(np.asarray(b).dtype, np.integer):
        return np.array_equal(a.astype(np.int64), b.astype(np.int64))
    tol = 1e-5 * max(1.0, float(np.abs(c["x"]).max()) if c["x"].size else 1.0)
    return bool(np.all(np.abs(a.astype(np.float64) - b.astype(np.float64)) <= tol))


def listed(c, ours_out):
    """The listed deviation that explains a difference from OpenVINO, or None."""
    op, mode = c["op"], c["mode"]
    axes = c.get("axes", [])
    if mode.endswith("pillow") and axes != sorted(axes):
        return "ov-defect: pillow reversed axes"
    if op.startswith("Interpolate"):
        rank = c["x"].ndim
        pb = [c["pads_begin"][a] + c["pads_end"][a] + c["x"].shape[a] for a in range(rank)]
        onnx_linear = mode == "linear_onnx" or (op == "Interpolate-1" and mode == "linear" and rank < 5)
        if onnx_linear and rank == 5 and sorted(axes) == [2, 3, 4]:
            return "ov-defect: linear_onnx 5-D merged axes"
        if onnx_linear and rank >= 4 and len(axes) == rank and ours_out is not None \
                and ours_out.shape[:2] != tuple(pb[:2]):
            return "ov-defect: linear_onnx resizing N or C"
        if mode in ("linear_onnx",) and rank < 4 or (op == "Interpolate-1" and mode == "linear" and rank < 4):
            return "listed: linear_onnx rank < 4"
        if mode == "linear" and c["antialias"] and op != "Interpolate-1":
            sc = c["scales"] if c["shape_calculation_mode"] == "scales" else \
                [o / pb[a] for o, a in zip(c["sizes"], axes)]
            if any(s < 1 for s in sc) and any(s > 1 for s in sc):
                return "listed: antialias mixed up/down"
        if mode == "linear" and c["antialias"] and op == "Interpolate-1" and rank == 5:
            sc = [o / pb[a] for o, a in zip(c["sizes"], axes)]
            if any(s < 1 for s in sc) and any(s > 1 for s in sc):
                return "listed: antialias mixed up/down"
        if ours_out is not None and np.issubdtype(ours_out.dtype, np.integer) and mode != "nearest":
            info = np.iinfo(ours_out.dtype)
            if ours_out.size and (ours_out.min() == info.min or ours_out.max() == info.max):
                return "listed: integer out of range"
    return None


def nearest_index(x, mode, down):
    """OpenVINO's nearest-pixel rule on coordinates x (numpy, any float type)."""
    f = np.floor(x)
    if mode == "round_prefer_floor":
        return np.where(x == f + x.dtype.type(0.5), f, np.sign(x) * np.floor(np.abs(x) + x.dtype.type(0.5)))
    if mode == "round_prefer_ceil":
        return np.sign(x) * np.floor(np.abs(x) + x.dtype.type(0.5))
    if mode == "floor":
        return f
    if mode == "ceil":
        return np.ceil(x)
    return np.ceil(x) if down else np.trunc(x)  # simple


def source_coord(o, s, O, L, ctm, t):
    """OpenVINO's coordinate transform in type t (np.float32 or np.float64)."""
    o, s, O, L = t(o), t(s), t(O), t(L)
    if s == t(1) or O == L:
        return o
    if ctm == "half_pixel":
        return (o + t(0.5)) / s - t(0.5)
    if ctm == "pytorch_half_pixel":
        return (o + t(0.5)) / s - t(0.5) if O > t(1) else t(0) * o
    if ctm == "asymmetric":
        return o / s
    if ctm == "tf_half_pixel_for_nn":
        return (o + t(0.5)) / s
    return t(0) * o if O == t(1) else o * (L - t(1)) / (O - t(1))  # align_corners


def tie_mask(c, out_shape):
    """Output points where OpenVINO's float32 nearest coordinate and the same
    coordinate in double pick different input points (a float32 tie)."""
    mask = np.zeros(out_shape, dtype=bool)
    if c["op"] == "GridSample-9":
        g = c["grid"]
        for k, L in enumerate((c["x"].shape[3], c["x"].shape[2])):
            idx = []
            for t in (np.float32, np.float64):
                v = g[..., k].astype(t)
                u = (v + t(1)) * t(L - 1) / t(2) if c["align_corners"] else ((v + t(1)) * t(L) - t(1)) / t(2)
                idx.append(np.rint(u))
            mask |= (idx[0] != idx[1])[:, None]
        return mask
    if c["op"] == "Interpolate-1":
        c = v1_as_v4(c)
    rank = c["x"].ndim
    padded = [c["x"].shape[a] + c["pads_begin"][a] + c["pads_end"][a] for a in range(rank)]
    for k, a in enumerate(c["axes"]):
        L, O = padded[a], out_shape[a]
        s = np.float32(c["scales"][k]) if c["shape_calculation_mode"] == "scales" else np.float32(O) / np.float32(L)
        o = np.arange(O)
        idx = [np.clip(nearest_index(source_coord(o, s, O, L, c["coordinate_transformation_mode"], t),
                                     c["nearest_mode"], s < 1), 0, L - 1) for t in (np.float32, np.float64)]
        shp = [1] * rank
        shp[a] = O
        mask |= (idx[0] != idx[1]).reshape(shp)
    return mask


def compare_ref(c, o, r, shadow):
    """The class of a difference between an answer `o` and the reference `r`
    (None when they agree)."""
    if o.shape != r.shape:
        return "shape"
    if shadow:  # the reference ran on f32 data: a value within f32 error (float) or a rounding (integer)
        if np.issubdtype(o.dtype, np.integer):  # saturated to the type, as dresample does
            r = np.clip(r, np.iinfo(o.dtype).min, np.iinfo(o.dtype).max)
        d = np.abs(o.astype(np.float64) - r.astype(np.float64))
        tol = 1e-5 * max(1.0, float(np.abs(c["x"]).max()) if c["x"].size else 1.0)
        lim = tol if not np.issubdtype(o.dtype, np.integer) else 1.0 + tol
        if np.all(d <= lim):
            return None
        if c["mode"] == "nearest":
            bad = d > lim
            if not (bad & ~tie_mask(c, o.shape)).any():
                return "tie"
        return "value"
    if agree(o, r, c):
        return None
    bad = o.astype(np.float64) != r.astype(np.float64)
    if c["mode"] == "nearest":
        if not (bad & ~tie_mask(c, o.shape)).any():
            return "tie"
        return "value"
    if np.issubdtype(o.dtype, np.integer) and np.abs(o.astype(np.int64) - r.astype(np.int64)).max() <= 1:
        return "int1"
    return "value"


OURS = {"shape": "ours: shape", "value": "ours: value",
        "tie": "ours: float32 nearest tie", "int1": "ours: integer +-1"}


def saturated_only(o, r):
    """True when integer outputs `o` and `r` differ only where `o` is at its
    type's bound (the listed out-of-range class must not hide other points)."""
    info = np.iinfo(o.dtype)
    sat = (o == info.min) | (o == info.max)
    return bool(np.array_equal(o[~sat].astype(np.int64), r[~sat].astype(np.int64)))


def classify(c, ref, cpu, our):
    """[(class, detail)] of the disagreements of one case."""
    (r, rnote), (p, perr), (o, oerr) = ref, cpu, our
    shadow = rnote == "shadow"
    found = []
    if r is not None and o is not None:
        k = compare_ref(c, o, r, shadow)
        if k:
            cls = listed(c, o)
            if cls == "listed: integer out of range" and not shadow and o.shape == r.shape \
                    and not saturated_only(o, r):
                cls = None
            found.append((cls or OURS[k], diff_text(o, r)))
    elif r is not None:
        found.append(("listed: rejected by dresample" if listed_reject(c) else "ours: rejects", oerr))
    elif o is not None and rnote != "crash":
        found.append((listed(c, o) or ("listed: Interpolate-1 evaluated where OpenVINO throws"
                                       if c["op"] == "Interpolate-1" else "ours: accepts"), rnote))
    if rnote == "crash":
        found.append(("ov-defect: reference crash", ""))
    if perr == "crash":
        found.append(("cpu: crash", ""))
    elif r is not None and p is None:
        found.append(("cpu: resizes spatial axes only" if "only supports resize on spatial" in perr
                      else "cpu: rejects", perr))
    elif r is None and p is not None:
        found.append(("cpu: linear_onnx on axes the reference refuses" if "Axes are not correct" in rnote
                      else "cpu: accepts what the reference rejects", rnote))
    elif r is not None:
        k = compare_ref(c, p, r, shadow)
        if k:
            kind = "integer" if np.issubdtype(p.dtype, np.integer) else "float"
            mode = c["mode"] if c["op"] != "Interpolate-1" else (v1_as_v4(c) or c)["mode"]
            op = "GridSample" if c["op"] == "GridSample-9" else "Interpolate"
            found.append((f"cpu: differs from its reference ({op} {mode}, {kind})", diff_text(p, r)))
    return found


def listed_reject(c):
    if c["op"] == "GridSample-9":
        return False
    if c["mode"] == "nearest" and c["antialias"]:
        return True
    if len(set(c["axes"])) != len(c["axes"]):
        return True
    if c["op"] == "Interpolate-1":
        if any(c["pads_begin"][a] or c["pads_end"][a] for a in range(c["x"].ndim) if a not in c["axes"]):
            return True
    elif c["mode"] == "linear_onnx" and c["x"].ndim >= 4 and len(c["axes"]) == c["x"].ndim:
        k = [c["axes"].index(a) for a in (0, 1)]  # resizing N or C: the reference's answer is wrong
        L = [c["x"].shape[a] + c["pads_begin"][a] + c["pads_end"][a] for a in (0, 1)]
        if c["shape_calculation_mode"] == "sizes":
            return any(c["sizes"][i] != l for i, l in zip(k, L))
        return any(np.float32(c["scales"][i]) != 1 for i in k)
    return False


def diff_text(a, b):
    if a.shape != b.shape:
        return f"shape {list(a.shape)} vs {list(b.shape)}"
    d = np.abs(a.astype(np.float64) - b.astype(np.float64))
    i = np.unravel_index(np.argmax(d), d.shape)
    return f"{int((d > 0).sum())}/{d.size} differ, max {d.max():.3g} at {list(i)}: {a[i]!r} vs {b[i]!r}"


def describe(c):
    keys = [k for k in ("mode", "shape_calculation_mode", "coordinate_transformation_mode", "nearest_mode",
                        "antialias", "axes", "sizes", "scales", "pads_begin", "pads_end", "cube_coeff",
                        "align_corners", "padding_mode") if k in c]
    return f"#{c['id']} {c['op']} {c['dtype']}{list(c['x'].shape)} " + " ".join(f"{k}={c[k]}" for k in keys)


def main():
    argv = sys.argv[1:]
    if argv[:1] == ["--ov-child"]:
        ov_child(argv[1], int(argv[2]))
        return 0
    if not argv or argv[0].startswith("-"):
        print(__doc__)
        return 2
    cli = os.path.abspath(argv[0])
    n = int(os.environ.get("DRS_OV_CASES", DEFAULT_CASES))
    seed = 20260
    verbose = "--verbose" in argv
    if "--cases" in argv:
        n = int(argv[argv.index("--cases") + 1])
    if "--seed" in argv:
        seed = int(argv[argv.index("--seed") + 1])
    t0 = time.time()
    cases = gen_cases(n, seed)
    counts, bad = {}, []
    per_op = {}
    with tempfile.TemporaryDirectory(prefix="dresample_ov_") as tmp:
        answers = run_openvino(cases, tmp)
        for k, c in enumerate(cases):
            ref = answers[(k, "ref")]
            our = ours(cli, tmp, c)
            found = classify(c, ref, answers[(k, "cpu")], our)
            po = per_op.setdefault(c["op"], [0, 0])
            po[0] += 1
            po[1] += ref[0] is not None
            for cls, detail in found:
                counts[cls] = counts.get(cls, 0) + 1
                kind = CLASSES.get(cls.split(" (")[0], ("unexplained",))[0]
                if kind in ("ours", "unexplained"):
                    bad.append(cls)
                if verbose or kind in ("ours", "unexplained"):
                    print(f"{'FAIL' if kind in ('ours', 'unexplained') else 'note'} [{cls}] "
                          f"{describe(c)}: {detail}")
    print(f"openvino {ov.__version__.split('-')[0]}: {n} cases (seed {seed}; "
          + ", ".join(f"{op}: {a} ({r} with a reference answer)" for op, (a, r) in sorted(per_op.items()))
          + f"), {time.time() - t0:.1f} s")
    for cls in sorted(counts):
        kind, why = CLASSES.get(cls.split(" (")[0], ("unexplained", ""))
        print(f"  {counts[cls]:5d}  {cls}  ({100.0 * counts[cls] / n:.1f} %)  {why}")
    if not counts:
        print("  no disagreement")
    print(f"openvino conformance: {'FAIL' if bad else 'ok'} ({len(bad)} unexplained or ours)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
