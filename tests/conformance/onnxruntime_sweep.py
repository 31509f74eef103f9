#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""onnxruntime_sweep.py — Resize and GridSample: dresample, the ONNX reference, ONNX Runtime.

Usage: onnxruntime_sweep.py PATH/TO/dresample [--cases N] [--seed S] [--verbose]

A seeded random sweep over the attributes of Resize-10/11/13/18/19 and
GridSample-16/20/22 (https://onnx.ai/onnx/operators/): modes, coordinate
transforms, nearest modes, cubic_coeff_a, exclude_outside, antialias, axes,
keep_aspect_ratio_policy, roi with tf_crop_and_resize, scales and sizes,
padding modes, align_corners, ranks 1-5, data f32, f64, u8, i8, i32.  Each
case runs through

  reference  onnx.reference.ReferenceEvaluator on the one-node model, and on
             the data converted to float64 (the real-valued result that
             integer outputs are a rounding of);
  ORT        onnxruntime's CPU execution provider on the same model;
  dresample  the CLI.

Agreement: the same shape; float outputs within 1e-5 * max(1, max|X|);
integer outputs equal to the float64 reference rounded half to even and
saturated (dresample's documented rule) up to values within 1e-6 of a tie.
Every disagreement is put in a named class (CLASSES); the script prints the
count of every class and exits 1 on a disagreement it cannot classify or one
of class "ours".  77 (skip) when onnxruntime or onnx.reference is missing.
The default sweep is small enough for ctest; DRS_ORT_CASES=N runs a larger one.
"""
import os
import subprocess
import sys
import tempfile
import time
import warnings

try:
    import numpy as np
    import onnx
    import onnxruntime as ort
    from onnx import helper, numpy_helper
    from onnx.reference import ReferenceEvaluator
except ImportError as e:  # the reference packages are optional: ctest reports a skip
    print(f"skipped: ONNX Runtime conformance needs numpy, onnx >= 1.13 and onnxruntime ({e})")
    sys.exit(77)

DEFAULT_CASES = 60
DTYPES = ["float32", "float64", "uint8", "int8", "int32"]
TENSOR_TYPE = {"float32": onnx.TensorProto.FLOAT, "float64": onnx.TensorProto.DOUBLE,
               "uint8": onnx.TensorProto.UINT8, "int8": onnx.TensorProto.INT8,
               "int32": onnx.TensorProto.INT32}

# name -> (kind, explanation); kind: "listed", "reference", "ort", "ours".
CLASSES = {
    "listed: integer rounding": (
        "listed", "integer outputs: the ONNX reference truncates (astype) or saturates without "
        "rounding; dresample rounds half to even, then saturates"),
    "listed: rejected by dresample": (
        "listed", "input the reference accepts and dresample rejects as documented "
        "(exclude_outside with nearest, a NaN result from all taps excluded)"),
    "listed: all taps excluded": (
        "listed", "exclude_outside=1 with a coordinate far outside: the reference gives 0/0 = NaN, "
        "dresample 0"),
    "listed: reflection on a length-1 axis": (
        "listed", "GridSample reflection + align_corners=1 on an axis of length 1: the reference "
        "divides by zero, dresample maps every tap to index 0"),
    "reference: fails": (
        "reference", "onnx.reference raises or warns on a valid case (implementation limit: an "
        "empty output; Resize-10 nearest, which it lacks, mixing up- and downsampling)"),
    "ort: rejects": ("ort", "ONNX Runtime refuses a case the reference evaluates"),
    "ort: differs from the reference": (
        "ort", "ONNX Runtime computes coordinates and weights in float32 (and has its own "
        "kernels): values beyond f32 rounding, nearest ties, integer rounding"),
    "ours: value": ("ours", "dresample differs from the reference"),
    "ours: shape": ("ours", "dresample's output shape differs from the reference"),
    "ours: rejects": ("ours", "dresample rejects a case the reference evaluates"),
}


# ----------------------------------------------------------------------------
# cases

def gen_data(rs, shape, dtype):
    if dtype in ("float32", "float64"):
        return rs.uniform(-10, 10, shape).astype(dtype)
    lo, hi = {"uint8": (0, 256), "int8": (-128, 128), "int32": (-1000, 1001)}[dtype]
    return rs.randint(lo, hi, shape).astype(dtype)


def out_size(c):
    """The number of output elements (roughly: the onnx reference is slow)."""
    if c["op"] == "GridSample":
        return c["grid"].size // c["grid"].shape[-1] * c["x"].shape[1]
    shape = list(c["x"].shape)
    axes = c["attrs"].get("axes", list(range(len(shape))))
    for k, a in enumerate(axes):
        shape[a] = int(c["sizes"][k]) if c["sizes"] is not None else int(shape[a] * c["scales"][k])
    return int(np.prod(shape))


def gen_resize(rs):
    while True:  # keep the outputs small: onnx.reference computes point by point in Python
        c = gen_resize_any(rs)
        if out_size(c) <= 256:
            return c


def gen_resize_any(rs):
    ver = [10, 11, 13, 18, 19][rs.randint(5)]
    dtype = DTYPES[rs.randint(len(DTYPES))]
    rank = int(rs.randint(1, 6))
    shape = [int(rs.randint(1, 6)) for _ in range(rank)]
    mode = ["nearest", "linear", "cubic"][rs.randint(3 if ver > 10 else 2)]
    attrs = {"mode": mode}
    axes = list(range(rank))
    if ver >= 18 and rs.rand() < 0.3:
        axes = sorted(rs.choice(rank, int(rs.randint(1, rank + 1)), replace=False).tolist())
        attrs["axes"] = axes
    scales = sizes = roi = None
    if rs.rand() < 0.5 or ver == 10:
        scales = np.array([1.0 if rs.rand() < 0.3 else rs.choice([0.5, 0.75, 1.5, 2.0, 3.0, 0.6, 1.7])
                           for _ in axes], dtype=np.float32)
    else:
        sizes = np.array([int(rs.randint(1, 9)) for _ in axes], dtype=np.int64)
        if ver >= 18 and rs.rand() < 0.3:
            attrs["keep_aspect_ratio_policy"] = ["stretch", "not_larger", "not_smaller"][rs.randint(3)]
    if ver >= 11:
        ctms = ["half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_crop_and_resize"]
        if ver >= 19:
            ctms.append("half_pixel_symmetric")
        ctm = ctms[rs.randint(len(ctms))]
        attrs["coordinate_transformation_mode"] = ctm
        if ctm == "tf_crop_and_resize":
            lo = rs.uniform(-0.2, 0.5, len(axes))
            roi = np.concatenate([lo, lo + rs.uniform(0.3, 1.2, len(axes))]).astype(np.float32)
            attrs["extrapolation_value"] = float(rs.choice([0.0, -1.0, 2.5]))
        if mode == "nearest":
            attrs["nearest_mode"] = ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"][rs.randint(4)]
        if mode == "cubic":
            attrs["cubic_coeff_a"] = float(rs.choice([-0.75, -0.5]))
            if rs.rand() < 0.3:
                attrs["exclude_outside"] = 1
        if ver >= 18 and mode != "nearest" and rs.rand() < 0.3:
            attrs["antialias"] = 1
    return dict(op="Resize", ver=ver, dtype=dtype, x=gen_data(rs, shape, dtype), attrs=attrs,
                roi=roi, scales=scales, sizes=sizes)


def gen_grid_sample(rs):
    ver = [16, 20, 22][rs.randint(3)]
    dtype = DTYPES[rs.randint(len(DTYPES))]
    S = 2 if ver == 16 else int(rs.randint(1, 4))
    shape = [int(rs.randint(1, 3)), int(rs.randint(1, 3))] + [int(rs.randint(1, 6)) for _ in range(S)]
    out = [int(rs.randint(1, 5)) for _ in range(S)]
    g = rs.uniform(-1.3, 1.3, (shape[0], *out, S)).astype(np.float32 if dtype != "float64" else np.float64)
    modes = ["bilinear", "bicubic", "nearest"] if ver == 16 else ["linear", "cubic", "nearest"]
    attrs = {"mode": modes[rs.randint(3)], "padding_mode": ["zeros", "border", "reflection"][rs.randint(3)],
             "align_corners": int(rs.rand() < 0.5)}
    return dict(op="GridSample", ver=ver, dtype=dtype, x=gen_data(rs, shape, dtype), grid=g, attrs=attrs)


def gen_cases(n, seed):
    rs = np.random.RandomState(seed)
    cases = [gen_resize(rs) if i % 3 else gen_grid_sample(rs) for i in range(n)]
    for i, c in enumerate(cases):
        c["id"] = i
    return cases


# ----------------------------------------------------------------------------
# the three answers

def model(c, x_dtype, for_ort=False):
    inits = []
    if c["op"] == "Resize":
        names = ["X"]
        for nm, arr in (("roi", c["roi"]), ("scales", c["scales"]), ("sizes", c["sizes"])):
            if c["ver"] == 10 and nm != "scales":
                continue
            if arr is None and for_ort and c["ver"] == 11 and nm in ("roi", "scales"):
                arr = np.zeros(0, dtype=np.float32)  # ORT: Resize-11 requires both inputs
            if arr is None:
                names.append("")
                continue
            names.append(nm)
            inits.append(numpy_helper.from_array(arr, nm))
        while names[-1] == "":
            names.pop()
        node = helper.make_node("Resize", names, ["Y"], **c["attrs"])
        ins = [helper.make_tensor_value_info("X", TENSOR_TYPE[x_dtype], list(c["x"].shape))]
    else:
        node = helper.make_node("GridSample", ["X", "grid"], ["Y"], **c["attrs"])
        gt = TENSOR_TYPE[str(c["grid"].dtype)]
        ins = [helper.make_tensor_value_info("X", TENSOR_TYPE[x_dtype], list(c["x"].shape)),
               helper.make_tensor_value_info("grid", gt, list(c["grid"].shape))]
    graph = helper.make_graph([node], "case", ins, [helper.make_tensor_value_info("Y", TENSOR_TYPE[x_dtype], None)],
                              initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", c["ver"])], ir_version=8)


def feeds(c, x):
    return {"X": x} if c["op"] == "Resize" else {"X": x, "grid": c["grid"]}


def as_resize13(c):
    """Resize-10 as the Resize-13 that computes it (onnx.reference has no
    Resize-10): asymmetric; nearest `simple` is floor when upsampling and ceil
    when downsampling (None when the axes mix both)."""
    a = dict(c["attrs"], coordinate_transformation_mode="asymmetric")
    if a["mode"] == "nearest":
        s = c["scales"][c["scales"] != 1]
        if (s > 1).all():
            a["nearest_mode"] = "floor"
        elif (s < 1).all():
            a["nearest_mode"] = "ceil"
        else:
            return None
    return dict(c, ver=13, attrs=a)


def reference(c, x):
    if c["op"] == "GridSample" and c["ver"] == 16:  # onnx.reference knows the -20 spelling
        m = {"bilinear": "linear", "bicubic": "cubic", "nearest": "nearest"}
        c = dict(c, ver=20, attrs=dict(c["attrs"], mode=m[c["attrs"]["mode"]]))
    if c["op"] == "Resize" and c["ver"] == 10:
        c = as_resize13(c)
        if c is None:
            return None, "no Resize-10 reference (nearest up- and downsampling at once)"
    try:
        with warnings.catch_warnings():
            # a division by zero must not pass silently in GridSample (the reference's
            # Resize warns in its nearest path on valid input)
            warnings.simplefilter("error" if c["op"] == "GridSample" else "ignore")
            y = ReferenceEvaluator(model(c, str(x.dtype))).run(None, feeds(c, x))[0]
        return np.asarray(y), None
    except Exception as e:
        return None, f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"


ort.set_default_logger_severity(3)


def onnxruntime(c):
    try:
        so = ort.SessionOptions()
        so.log_severity_level = 3
        s = ort.InferenceSession(model(c, c["dtype"], True).SerializeToString(), so, providers=["CPUExecutionProvider"])
        return np.asarray(s.run(None, feeds(c, c["x"]))[0]), None
    except Exception as e:
        return None, " ".join(str(e).split())[-300:] or type(e).__name__


def ours(cli, tmp, c):
    op = f"{c['op']}-{c['ver']}"
    args = [cli, "run", op]
    for k, v in c["attrs"].items():
        args += ["--attr", f"{k}={','.join(map(str, v)) if isinstance(v, list) else v}"]
    ins = {"X": c["x"]}
    if c["op"] == "GridSample":
        ins["grid"] = c["grid"]
    else:
        for nm in ("roi", "scales", "sizes"):
            if c[nm] is not None:
                ins[nm] = c[nm]
    for k, v in ins.items():
        p = os.path.join(tmp, f"{k}.npy")
        np.save(p, v)
        args += ["--in", f"{k}={p}"]
    y = os.path.join(tmp, "Y.npy")
    if os.path.exists(y):
        os.unlink(y)
    args += ["--out", f"Y={y}"]
    r = subprocess.run(args, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        return None, r.stderr.strip().splitlines()[-1] if r.stderr.strip() else f"exit {r.returncode}"
    return np.load(y), None


# ----------------------------------------------------------------------------
# comparison

def differs(c, a, real):
    """None when answer `a` agrees with the float64 reference `real`, else a text."""
    if a.shape != real.shape:
        return f"shape {list(a.shape)} vs {list(real.shape)}"
    r = real.astype(np.float64)
    if np.issubdtype(a.dtype, np.integer):
        info = np.iinfo(a.dtype)
        want = np.clip(np.rint(r), info.min, info.max)
        tie = np.abs(np.abs(r - np.floor(r)) - 0.5) < 1e-6
        bad = (a.astype(np.float64) != want) & ~(tie & (np.abs(a - r) <= 0.5 + 1e-6))
    else:
        tol = 1e-5 * max(1.0, float(np.abs(c["x"]).max()) if c["x"].size else 1.0)
        bad = ~(np.abs(a.astype(np.float64) - r) <= tol) & ~(np.isnan(a) & np.isnan(r))
    if not bad.any():
        return None
    i = np.unravel_index(np.argmax(bad), bad.shape)
    return f"{int(bad.sum())}/{bad.size} differ, first at {list(i)}: {a[i]!r} vs {r[i]!r}"


def classify(c, ref, real, rt, our):
    """[(class, detail)] of one case."""
    (r, rerr), (q, qerr), (o, oerr), (f, ferr) = ref, rt, our, real
    found = []
    a = c["attrs"]
    if f is None:
        if o is not None and a.get("padding_mode") == "reflection" and a.get("align_corners") == 1 \
                and 1 in c["x"].shape[2:]:
            found.append(("listed: reflection on a length-1 axis", ferr))
        elif o is not None:
            why = ("Resize-10 nearest up- and downsampling at once" if "Resize-10" in ferr else
                   "empty output" if "into shape (0,)" in ferr else "other")
            found.append((f"reference: fails ({why})", ferr))
        return found
    if np.isnan(f).any() and a.get("exclude_outside") == 1 and o is not None \
            and not np.isnan(o).any():
        f = np.where(np.isnan(f), 0.0, f)
        found.append(("listed: all taps excluded", ""))
    if o is None:
        found.append(("listed: rejected by dresample" if a.get("exclude_outside") and a["mode"] == "nearest"
                      else "ours: rejects", oerr))
    else:
        d = differs(c, o, f)
        if d:
            found.append(("ours: shape" if d.startswith("shape") else "ours: value", d))
        elif r is not None and np.issubdtype(o.dtype, np.integer) and not np.array_equal(o, r):
            found.append(("listed: integer rounding", f"{int((o != r).sum())} values"))
    if q is None:
        why = ("no kernel for the type" if "Could not find an implementation" in qerr else
               "linear/cubic limited to some ranks and axes" if "only supports" in qerr or
               "in the Resize operator" in qerr else
               "GridSample with one spatial axis" if "Only 4-D or 5-D" in qerr else
               "GridSample cubic on 5-D" if "Cubic mode in 4-D" in qerr else
               "Tensor type mismatch on integer cubic, an ORT defect" if "Tensor type mismatch" in qerr
               else "other")
        found.append((f"ort: rejects ({why})", qerr))
    else:
        d = differs(c, q, f)
        if d:
            kind = "integer" if np.issubdtype(q.dtype, np.integer) else "float"
            found.append((f"ort: differs from the reference ({c['op']} {a['mode']}, {kind})", d))
    return found


def describe(c):
    extra = "" if c["op"] == "GridSample" else \
        f" roi={c['roi']} scales={c['scales']} sizes={c['sizes']}"
    return f"#{c['id']} {c['op']}-{c['ver']} {c['dtype']}{list(c['x'].shape)} {c['attrs']}{extra}"


def main():
    argv = sys.argv[1:]
    if not argv or argv[0].startswith("-"):
        print(__doc__)
        return 2
    cli = os.path.abspath(argv[0])
    n = int(os.environ.get("DRS_ORT_CASES", DEFAULT_CASES))
    seed = 20261
    if "--cases" in argv:
        n = int(argv[argv.index("--cases") + 1])
    if "--seed" in argv:
        seed = int(argv[argv.index("--seed") + 1])
    verbose = "--verbose" in argv
    t0 = time.time()
    counts, bad = {}, []
    with tempfile.TemporaryDirectory(prefix="dresample_ort_") as tmp:
        for c in gen_cases(n, seed):
            ref = reference(c, c["x"])
            real = reference(c, c["x"].astype(np.float64)) if c["dtype"] != "float64" else ref
            if c["op"] == "GridSample" and c["dtype"] != "float64":
                real = reference(dict(c, grid=c["grid"].astype(np.float64)), c["x"].astype(np.float64))
            found = classify(c, ref, real, onnxruntime(c), ours(cli, tmp, c))
            for cls, detail in found:
                counts[cls] = counts.get(cls, 0) + 1
                kind = CLASSES.get(cls.split(" (")[0], ("unexplained",))[0]
                fail = kind in ("ours", "unexplained")
                if fail:
                    bad.append(cls)
                if verbose or fail:
                    print(f"{'FAIL' if fail else 'note'} [{cls}] {describe(c)}: {detail}")
    print(f"onnxruntime {ort.__version__}, onnx {onnx.__version__}: {n} cases (seed {seed}), "
          f"{time.time() - t0:.1f} s")
    for cls in sorted(counts):
        kind, why = CLASSES.get(cls.split(" (")[0], ("unexplained", ""))
        print(f"  {counts[cls]:5d}  {cls}  ({100.0 * counts[cls] / n:.1f} %)  {why}")
    print(f"onnxruntime conformance: {'FAIL' if bad else 'ok'} ({len(bad)} unexplained or ours)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
