# SPDX-License-Identifier: MIT
# Tests of the NumPy API of the dresample package (module `dresample`):
# every op and gradient against the `dresample` CLI bit for bit (the same C
# library reached through another door: .npy files and its own argument
# parsing), against hand-derived values (outputs, data/scales/roi/grid
# gradients), errors (the library's message, the CLI's message, inputs left
# untouched), thread-count equality, dtypes and input conversion.
import gc
import importlib.metadata
import os
import re
import subprocess
import sys
import threading

import pytest

np = pytest.importorskip("numpy", reason="numpy is not installed")
dr = pytest.importorskip("dresample", reason="the dresample package is not installed "
                         "(pip install . from the repository root)")

from conftest import REPO, CliError  # noqa: E402

RNG = np.random.default_rng(20261123)


def rand(shape, dtype=np.float32):
    if np.dtype(dtype).kind == "f":
        return RNG.standard_normal(shape).astype(dtype)
    info = np.iinfo(dtype)
    return RNG.integers(max(info.min, -100), min(info.max, 200), size=shape).astype(dtype)


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def f64(*v):
    return np.array(v, np.float64)


def i64(*v):
    return np.array(v, np.int64)


# ------------------------------------------------------------------ CLI cases
# Each case: (id, CLI op, CLI inputs, CLI attrs, python forward, {CLI out name: python key}).

def _resize_cases():
    cases = []
    X = rand((2, 3, 5, 7))
    Xd = rand((1, 2, 6, 4), np.float64)
    Xu8 = rand((1, 2, 5, 6), np.uint8)
    spec = [
        (10, X, dict(scales=f64(1, 1, 2, 1.5)), dict(mode="nearest")),
        (10, X, dict(scales=f64(1, 1, 0.6, 2)), dict(mode="linear")),
        (11, X, dict(scales=f64(1, 1, 1.7, 0.8)), dict(mode="cubic", cubic_coeff_a=-0.5,
                                                         exclude_outside=1)),
        (11, Xd, dict(roi=f64(0, 0, 0.1, 0.2, 1, 1, 0.9, 0.7), sizes=i64(1, 2, 9, 5)),
         dict(mode="linear", coordinate_transformation_mode="tf_crop_and_resize",
              extrapolation_value=-3.5)),
        (13, X, dict(sizes=i64(2, 3, 3, 11)), dict(mode="nearest", nearest_mode="ceil",
                                                   coordinate_transformation_mode="asymmetric")),
        (13, Xd, dict(scales=f64(1, 1, 2.5, 3)), dict(mode="cubic",
                                                      coordinate_transformation_mode="align_corners")),
        (18, X, dict(scales=f64(1, 1, 0.4, 0.5)), dict(mode="linear", antialias=1)),
        (18, X, dict(sizes=i64(8, 9)), dict(mode="linear", axes=(2, 3),
                                            keep_aspect_ratio_policy="not_larger")),
        (19, X, dict(scales=f64(1, 1, 1.5, 2.25)),
         dict(mode="linear", coordinate_transformation_mode="half_pixel_symmetric")),
        (19, Xd, dict(scales=f64(1, 1, 0.7, 1.3)), dict(mode="cubic", antialias=1,
                                                        coordinate_transformation_mode="pytorch_half_pixel")),
        (19, Xu8, dict(scales=f64(1, 1, 1.5, 0.5)), dict(mode="linear")),
        (19, Xu8, dict(sizes=i64(1, 2, 7, 3)), dict(mode="nearest", nearest_mode="round_prefer_ceil")),
    ]
    for k, (opset, x, ins, attrs) in enumerate(spec):
        def fwd(x=x, ins=ins, attrs=attrs, opset=opset):
            return {"Y": dr.resize(x, opset=opset, **ins, **attrs)}
        cases.append(("Resize-%d-%d" % (opset, k), "Resize-%d" % opset, dict(X=x, **ins), attrs,
                      fwd))
    return cases


def _interp_cases():
    cases = []
    data = rand((2, 3, 6, 5))
    datad = rand((1, 2, 4, 7), np.float64)
    spec4 = [
        (data, dict(sizes=i64(9, 3), axes=i64(2, 3)), dict(mode="linear_onnx",
                                                            shape_calculation_mode="sizes")),
        (data, dict(scales=f64(1.5, 0.5), axes=i64(2, 3)),
         dict(mode="cubic", shape_calculation_mode="scales", cube_coeff=-0.6)),
        (datad, dict(scales=f64(2.0, 1.0, 1.0, 1.0), sizes=i64(2, 2, 4, 7)),
         dict(mode="nearest", shape_calculation_mode="scales", nearest_mode="floor")),
        (data, dict(sizes=i64(4, 3), axes=i64(2, 3)),
         dict(mode="linear", shape_calculation_mode="sizes", antialias=1)),
        (datad, dict(scales=f64(1.5, 2.0), axes=i64(2, 3)),
         dict(mode="linear_onnx", shape_calculation_mode="scales", pads_begin=(0, 0, 1, 0),
              pads_end=(0, 0, 0, 2), coordinate_transformation_mode="align_corners")),
    ]
    for k, (x, ins, attrs) in enumerate(spec4):
        def fwd(x=x, ins=ins, attrs=attrs):
            return {"output": dr.interpolate(x, version=4, **ins, **attrs)}
        cases.append(("Interpolate-4-%d" % k, "Interpolate-4", dict(data=x, **ins), attrs, fwd))
    # Interpolate-1: target_spatial_shape and the axes attribute
    for k, attrs in enumerate([dict(mode="linear", align_corners=True, axes=(2, 3)),
                               dict(mode="cubic", align_corners=False, axes=(2, 3)),
                               dict(mode="area", axes=(2, 3)),
                               dict(mode="nearest", axes=(3,))]):
        tss = i64(4, 11) if len(attrs["axes"]) == 2 else i64(2)

        def fwd(attrs=attrs, tss=tss):
            a = dict(attrs)
            axes = a.pop("axes")
            return {"output": dr.interpolate(data, sizes=tss, axes=axes, version=1, **a)}
        cases.append(("Interpolate-1-%d" % k, "Interpolate-1",
                      dict(data=data, target_spatial_shape=tss), attrs, fwd))
    # Interpolate-11: scales_or_sizes
    for k, (sos, attrs) in enumerate([
            (f64(1.25, 0.6), dict(mode="bilinear_pillow", shape_calculation_mode="scales")),
            (i64(3, 8), dict(mode="bicubic_pillow", shape_calculation_mode="sizes")),
            (f64(2.0, 2.0), dict(mode="linear_onnx", shape_calculation_mode="scales"))]):
        def fwd(sos=sos, attrs=attrs):
            key = "scales" if attrs["shape_calculation_mode"] == "scales" else "sizes"
            return {"output": dr.interpolate(data, version=11, axes=(2, 3), **{key: sos}, **attrs)}
        cases.append(("Interpolate-11-%d" % k, "Interpolate-11",
                      dict(image=data, scales_or_sizes=sos, axes=i64(2, 3)), attrs, fwd))
    return cases


def _torch_cases():
    cases = []
    spec = [
        (rand((2, 3, 5, 6)), dict(scale_factor=(2.0, 1.5), mode="bilinear", align_corners=False)),
        (rand((1, 2, 5, 6), np.float64), dict(size=(7, 3), mode="bicubic", align_corners=True)),
        (rand((1, 2, 9, 8)), dict(size=(4, 3), mode="bilinear", antialias=True)),
        (rand((1, 2, 9)), dict(scale_factor=(1.7,), mode="linear", recompute_scale_factor=True)),
        (rand((1, 2, 3, 4, 5)), dict(size=(5, 6, 2), mode="trilinear")),
        (rand((1, 2, 7, 6)), dict(size=(3, 4), mode="area")),
        (rand((1, 2, 5, 6), np.uint8), dict(scale_factor=(2.0, 0.5), mode="nearest-exact")),
        (rand((1, 2, 5, 6), np.int64), dict(size=(3, 9), mode="nearest")),
    ]
    for k, (x, attrs) in enumerate(spec):
        def fwd(x=x, attrs=attrs):
            return {"output": dr.torch_interpolate(x, **attrs)}
        cases.append(("TorchInterpolate-%d" % k, "TorchInterpolate", dict(input=x), attrs, fwd))
    return cases


def _grid(shape, dtype=np.float32, spread=1.3):
    return (RNG.uniform(-spread, spread, size=shape)).astype(dtype)


def _grid_cases():
    cases = []
    spec = [
        (9, rand((2, 3, 5, 6)), _grid((2, 4, 3, 2)), dict(mode="bilinear", padding_mode="zeros",
                                                           align_corners=False)),
        (9, rand((1, 2, 5, 6), np.float64), _grid((1, 3, 3, 2), np.float64),
         dict(mode="bicubic", padding_mode="border", align_corners=True)),
        (16, rand((1, 2, 5, 6)), _grid((1, 4, 4, 2)), dict(mode="nearest",
                                                           padding_mode="reflection")),
        (20, rand((1, 2, 4, 5, 6)), _grid((1, 3, 2, 4, 3)), dict(mode="cubic",
                                                                  padding_mode="zeros")),
        (22, rand((1, 2, 4, 5, 6), np.float64), _grid((1, 2, 2, 3, 3), np.float64),
         dict(mode="linear", padding_mode="reflection", align_corners=True)),
        (20, rand((1, 2, 7)), _grid((1, 5, 1)), dict(mode="linear", padding_mode="border")),
        (9, rand((1, 2, 5, 6), np.uint8), _grid((1, 3, 3, 2)), dict(mode="bilinear")),
    ]
    for k, (v, x, g, attrs) in enumerate(spec):
        def fwd(v=v, x=x, g=g, attrs=attrs):
            return {"output" if v == 9 else "Y": dr.grid_sample(x, g, version=v, **attrs)}
        names = ("data", "grid") if v == 9 else ("X", "grid")
        cases.append(("GridSample-%d-%d" % (v, k), "GridSample-%d" % v,
                      {names[0]: x, names[1]: g}, attrs, fwd))
    return cases


FORWARD_CASES = _resize_cases() + _interp_cases() + _torch_cases() + _grid_cases()


@pytest.mark.parametrize("case", FORWARD_CASES, ids=[c[0] for c in FORWARD_CASES])
def test_forward_matches_cli(cli, case):
    _, op, ins, attrs, fwd = case
    ours = fwd()
    ref = cli.run(op, ins, list(ours), attrs)
    assert not isinstance(ref, CliError), ref
    for k in ours:
        assert same_bits(ours[k], ref[k]), (k, ours[k], ref[k])


# ------------------------------------------------------------ backward vs CLI

def _out_shape(case):
    return next(iter(case[4]().values())).shape


def _float_cases(cases):
    return [c for c in cases if all(np.asarray(v).dtype.kind == "f" or np.asarray(v).ndim == 1
                                    for v in c[2].values())]


def _backward_call(case, dY):
    cid, op, ins, attrs, _ = case
    if op.startswith("Resize"):
        opset = int(op.split("-")[1])
        kw = {k: v for k, v in ins.items() if k != "X"}
        r = dr.resize_backward(ins["X"], dY, opset=opset, **kw, **attrs)
        return r
    if op == "Interpolate-4":
        kw = {k: v for k, v in ins.items() if k != "data"}
        dx, ds = dr.interpolate_backward(ins["data"], dY, version=4, **kw, **attrs)
        r = {"data_delta": dx}
        if ds is not None:
            r["scales_delta"] = ds
        return r
    if op == "Interpolate-1":
        a = dict(attrs)
        axes = a.pop("axes")
        dx, _ = dr.interpolate_backward(ins["data"], dY, sizes=ins["target_spatial_shape"],
                                        axes=axes, version=1, **a)
        return {"data_delta": dx}
    if op == "Interpolate-11":
        key = "scales" if attrs["shape_calculation_mode"] == "scales" else "sizes"
        dx, ds = dr.interpolate_backward(ins["image"], dY, version=11, axes=ins["axes"],
                                         **{key: ins["scales_or_sizes"]}, **attrs)
        r = {"image_delta": dx}
        if ds is not None:
            r["scales_or_sizes_delta"] = ds
        return r
    if op == "TorchInterpolate":
        return {"input_delta": dr.torch_interpolate_backward(ins["input"], dY, **attrs)}
    if op.startswith("GridSample"):
        v = int(op.split("-")[1])
        xname = "data" if v == 9 else "X"
        r = dr.grid_sample_backward(ins[xname], ins["grid"], dY, version=v, **attrs)
        return {"%s_delta" % xname: r["X_delta"], "grid_delta": r["grid_delta"]}
    raise AssertionError(op)


BACKWARD_CASES = _float_cases(FORWARD_CASES)


@pytest.mark.parametrize("case", BACKWARD_CASES, ids=[c[0] for c in BACKWARD_CASES])
def test_backward_matches_cli(cli, case):
    _, op, ins, attrs, _ = case
    shape = _out_shape(case)
    data = next(v for v in ins.values() if np.asarray(v).ndim > 1)
    dY = rand(shape, data.dtype)
    ours = _backward_call(case, dY)
    assert ours, "no gradient computed"
    ref = cli.run(op, dict(ins, output_delta=dY), list(ours), attrs, backward=True)
    assert not isinstance(ref, CliError), ref
    for k in ours:
        assert same_bits(ours[k], ref[k]), (k, ours[k], ref[k])


def test_interpolate_backprop_matches_cli(cli):
    data = rand((2, 3, 6, 5))
    for ins, attrs in [
            (dict(sizes=i64(9, 3), scales=f64(1.5, 0.6), axes=i64(2, 3)),
             dict(mode="linear_onnx", shape_calculation_mode="scales")),
            (dict(sizes=i64(4, 8), axes=i64(2, 3)),
             dict(mode="cubic", shape_calculation_mode="sizes"))]:
        y = dr.interpolate(data, version=4, **ins, **attrs)
        dY = rand(y.shape)
        dx, ds = dr.interpolate_backprop(data, dY, **ins, **attrs)
        outs = ["input_delta"] + (["scales_delta"] if ds is not None else [])
        ref = cli.run("InterpolateBackprop-4", dict(data=data, output_delta=dY, **ins), outs,
                      attrs)
        assert not isinstance(ref, CliError), ref
        assert same_bits(dx, ref["input_delta"])
        if ds is not None:
            assert same_bits(ds, ref["scales_delta"])
        else:
            assert attrs["shape_calculation_mode"] == "sizes"


# ------------------------------------------------------------------ hand values

def test_resize_nearest_hand():
    X = np.array([[1, 2], [3, 4]], np.float32)
    Y = dr.resize(X, scales=(2, 2), mode="nearest")
    assert Y.tolist() == [[1, 1, 2, 2], [1, 1, 2, 2], [3, 3, 4, 4], [3, 3, 4, 4]]
    assert Y.dtype == np.float32


def test_resize_linear_align_corners_hand():
    Y = dr.resize(np.array([0.0, 1.0]), sizes=[3], mode="linear",
                  coordinate_transformation_mode="align_corners")
    assert Y.tolist() == [0.0, 0.5, 1.0]


def test_resize_scales_and_data_gradient_hand():
    # ramp X = [0..4], asymmetric: Y[i] = X(i / s) = i / s inside the ramp, so
    # dY[i]/ds = -i / s^2; output_delta 1 at i = 1..5 (x_in 0.5..2.5)
    X = np.arange(5.0)
    dY = np.zeros(10)
    dY[1:6] = 1
    r = dr.resize_backward(X, dY, scales=[2.0], mode="linear",
                           coordinate_transformation_mode="asymmetric")
    assert set(r) == {"X_delta", "scales_delta"}
    assert r["scales_delta"].tolist() == [-(1 + 2 + 3 + 4 + 5) / 4]
    # x_in 0.5, 1, 1.5, 2, 2.5 -> X_delta = [.5, .5+1+.5, .5+1+.5, .5, 0]
    assert r["X_delta"].tolist() == [0.5, 2.0, 2.0, 0.5, 0.0]


def test_resize_roi_gradient_hand():
    # tf_crop_and_resize, L = 5, O = 5, roi [0.25, 0.75]: x_in = 1 + 0.5 i, and
    # on the ramp Y[i] = x_in = (L-1) (start + i (end - start) / (O-1)), so
    # dY/dstart = 4 (1 - i/4), dY/dend = 4 i/4; summed over i: 10 and 10
    X = np.arange(5.0)
    Y = dr.resize(X, roi=[0.25, 0.75], sizes=[5], mode="linear",
                  coordinate_transformation_mode="tf_crop_and_resize")
    assert Y.tolist() == [1.0, 1.5, 2.0, 2.5, 3.0]
    r = dr.resize_backward(X, np.ones(5), roi=[0.25, 0.75], sizes=[5], mode="linear",
                           coordinate_transformation_mode="tf_crop_and_resize")
    assert set(r) == {"X_delta", "roi_delta"}
    assert np.allclose(r["roi_delta"], [10.0, 10.0], rtol=0, atol=1e-12)
    only = dr.resize_backward(X, np.ones(5), roi=[0.25, 0.75], sizes=[5], mode="linear",
                              coordinate_transformation_mode="tf_crop_and_resize",
                              grads=["roi"])
    assert set(only) == {"roi_delta"} and same_bits(only["roi_delta"], r["roi_delta"])


def test_grid_sample_hand():
    X = np.array([[[[1.0, 2.0], [3.0, 4.0]]]])
    g = np.zeros((1, 1, 1, 2))
    assert dr.grid_sample(X, g, mode="bilinear").tolist() == [[[[2.5]]]]
    # centre of a 2x2 image, align_corners=False: d(pixel)/d(grid) = W/2 = 1;
    # dY/dx = mean column difference 1, dY/dy = mean row difference 2
    r = dr.grid_sample_backward(X, g, np.ones((1, 1, 1, 1)), mode="bilinear")
    assert r["grid_delta"].tolist() == [[[[1.0, 2.0]]]]
    assert r["X_delta"].tolist() == [[[[0.25, 0.25], [0.25, 0.25]]]]
    assert set(dr.grid_sample_backward(X, g, np.ones((1, 1, 1, 1)), grads=("grid",))) == \
        {"grid_delta"}
    only = dr.grid_sample_backward(X, g, np.ones((1, 1, 1, 1)), grads="grid")
    assert set(only) == {"grid_delta"} and same_bits(only["grid_delta"], r["grid_delta"])


def test_interpolate_scales_mode_follows_inputs():
    data = np.arange(4.0).reshape(1, 1, 2, 2)
    y = dr.interpolate(data, scales=[2.0, 2.0], axes=[2, 3], mode="nearest")
    assert y.shape == (1, 1, 4, 4)
    dx, ds = dr.interpolate_backward(data, np.ones_like(y), scales=[2.0, 2.0], axes=[2, 3],
                                     mode="nearest")
    assert dx.tolist() == [[[[4.0, 4.0], [4.0, 4.0]]]]
    assert ds.tolist() == [0.0, 0.0]  # nearest: exactly zero
    dx, ds = dr.interpolate_backward(data, np.ones((1, 1, 3, 3)), sizes=[3, 3], axes=[2, 3],
                                     mode="nearest")
    assert ds is None


def test_torch_interpolate_hand():
    x = np.array([[[0.0, 1.0]]])
    y = dr.torch_interpolate(x, scale_factor=2, mode="linear", align_corners=False)
    assert y.tolist() == [[[0.0, 0.25, 0.75, 1.0]]]
    dx = dr.torch_interpolate_backward(x, np.ones((1, 1, 4)), scale_factor=2, mode="linear",
                                       align_corners=False)
    assert dx.tolist() == [[[2.0, 2.0]]]


# ------------------------------------------------------------------ errors

ERROR_CASES = [
    # (id, python call, CLI op, CLI inputs, CLI attrs, exception type)
    ("negative-scale", lambda X: dr.resize(X, scales=[1, 1, -2, 2]),
     "Resize-19", lambda X: dict(X=X, scales=f64(1, 1, -2, 2)), {}, ValueError),
    ("scales-length", lambda X: dr.resize(X, scales=[1, 2]),
     "Resize-19", lambda X: dict(X=X, scales=f64(1, 2)), {}, ValueError),
    ("cubic-antialias-v11", lambda X: dr.interpolate(X, sizes=[3, 3], axes=[2, 3], version=11,
                                                     mode="nearest", antialias=True,
                                                     shape_calculation_mode="sizes"),
     "Interpolate-11", lambda X: dict(image=X, scales_or_sizes=i64(3, 3), axes=i64(2, 3)),
     dict(mode="nearest", antialias=1, shape_calculation_mode="sizes"), ValueError),
    ("grid-rank", lambda X: dr.grid_sample(X, np.zeros((1, 2, 2, 3), np.float32)),
     "GridSample-9", lambda X: dict(data=X, grid=np.zeros((1, 2, 2, 3), np.float32)), {},
     ValueError),
    ("torch-mode-rank", lambda X: dr.torch_interpolate(X, size=(3, 3), mode="trilinear"),
     "TorchInterpolate", lambda X: dict(input=X), dict(size=(3, 3), mode="trilinear"),
     ValueError),
]


@pytest.mark.parametrize("case", ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_errors_carry_library_message(cli, case):
    _, call, op, ins, attrs, exc = case
    X = rand((1, 2, 4, 4))
    keep = X.copy()
    with pytest.raises(exc) as e:
        call(X)
    assert same_bits(X, keep), "input changed"
    ref = cli.run(op, ins(X), ["output" if op != "Resize-19" else "Y"], attrs)
    assert isinstance(ref, CliError), "the CLI accepted what Python refused"
    assert str(e.value) == ref.message
    assert e.value.status in ("invalid argument", "shape mismatch", "unsupported")


def test_allocation_failure_raises_memory_error():
    # the library's test hook fails its first scratch allocation on this
    # thread: MemoryError with the library's message, inputs untouched, and
    # the next call works
    X = rand((1, 2, 9, 7))
    keep = X.copy()
    ref = dr.resize(X, scales=[1, 1, 1.5, 2], mode="cubic")
    dr._core._debug_fail_allocation(0)
    try:
        with pytest.raises(MemoryError) as e:
            dr.resize(X, scales=[1, 1, 1.5, 2], mode="cubic")
    finally:
        dr._core._debug_fail_allocation(-1)
    assert e.value.status == "out of memory" and str(e.value)
    assert same_bits(X, keep)
    assert same_bits(dr.resize(X, scales=[1, 1, 1.5, 2], mode="cubic"), ref)


def _vm_flags(addr):
    """The VmFlags of the mapping that holds addr (Linux /proc/self/smaps)."""
    inside = False
    with open("/proc/self/smaps") as f:
        for line in f:
            head = line.split()[0]
            if "-" in head and not head.endswith(":"):
                lo, hi = (int(v, 16) for v in head.split("-"))
                inside = lo <= addr < hi
            elif inside and head == "VmFlags:":
                return line.split()[1:]
    return None


def test_large_outputs_in_aligned_blocks():
    # outputs of 2 MiB or more start on a 2 MiB boundary, in a block of their
    # own that lives as long as any view of it; smaller ones keep NumPy's
    # allocation (64-byte aligned from 64 KiB on); the values do not depend on it
    X = rand((1, 2, 512, 512), np.float64)          # 4 MiB; out 16 MiB
    y = dr.resize(X, scales=[1, 1, 2, 2], mode="linear")
    assert y.ctypes.data % (2 << 20) == 0 and y.flags.writeable and y.flags.c_contiguous
    dr._local.alloc = np.empty                      # the same call into a NumPy array
    try:
        ref = dr.resize(X, scales=[1, 1, 2, 2], mode="linear")
    finally:
        dr._local.alloc = None
    assert same_bits(y, ref)
    g = dr.resize_backward(X, y, scales=[1, 1, 2, 2], mode="linear")["X_delta"]
    assert g.ctypes.data % (2 << 20) == 0 and g.shape == X.shape
    part = y[0, 1, 1000:]                           # a view outlives the array
    keep = part.copy()
    del y, g
    gc.collect()
    for _ in range(3):                              # reuse whatever was freed
        dr.resize(X, scales=[1, 1, 2, 2], mode="linear").fill(7.0)
    assert same_bits(part, keep)
    small = dr.resize(rand((1, 1, 8, 8)), scales=[1, 1, 2, 2])
    assert small.base is None                       # NumPy's own array below 64 KiB


def _thp_available():
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            return "[never]" not in f.read()
    except OSError:
        return False


@pytest.mark.skipif(not (os.path.exists("/proc/self/smaps") and _thp_available()),
                    reason="no transparent huge pages (Linux /proc/self/smaps and "
                    "/sys/kernel/mm/transparent_hugepage) here")
def test_large_outputs_advised_huge():
    # a block's whole 2 MiB pages carry MADV_HUGEPAGE ("hg" in its mapping's
    # VmFlags), and DRS_HUGEPAGES=0 leaves the advice out: each in a fresh
    # process whose 64 MiB block is mapped on its own (above glibc's mmap
    # threshold, no MALLOC_ settings), so no other advice covers it
    code = ("import sys; sys.path.insert(0, %r); import test_numpy as t, dresample as d; "
            "b = d._core.huge_block(64 << 20); import numpy as np; "
            "a = np.frombuffer(b, np.uint8); print(' '.join(t._vm_flags(a.ctypes.data)))"
            % os.path.dirname(os.path.abspath(__file__)))
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    env.pop("GLIBC_TUNABLES", None)
    for setting, want in (("0", False), ("1", True)):
        env["DRS_HUGEPAGES"] = setting
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, check=True).stdout.split()
        assert ("hg" in out) == want, (setting, out)


def test_large_outputs_traced():
    # tracemalloc counts a block (NumPy's domain) while an array views it
    import tracemalloc
    X = rand((1, 2, 512, 512), np.float32)          # out 8 MiB
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        y = dr.resize(X, scales=[1, 1, 2, 2], mode="linear")
        held = tracemalloc.get_traced_memory()[0] - before
        del y
        gc.collect()
        after = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert held >= 8 << 20 and after < 1 << 20, (held, after)


def test_huge_block_errors():
    with pytest.raises(ValueError, match="nbytes must be positive, got 0"):
        dr._core.huge_block(0)
    with pytest.raises(ValueError, match="got -5"):
        dr._core.huge_block(-5)
    with pytest.raises(MemoryError, match=r"cannot allocate 4611686018427387904 bytes"):
        dr._core.huge_block(1 << 62)
    # an output the library accepts (2^62 one-byte elements fit its 64-bit size
    # checks) but no machine holds: MemoryError naming the output, not a bare one
    with pytest.raises(MemoryError, match=r"cannot allocate an output of shape "
                       r"\[4611686018427387904\] and dtype int8 \(4611686018427387904 bytes\)"):
        dr.interpolate(np.ones(4, np.int8), sizes=[1 << 62], version=4)
    with pytest.raises(TypeError):
        dr._core.huge_block("8")


def test_error_types_and_messages():
    X = rand((1, 1, 4, 4))
    with pytest.raises(TypeError, match=r"gradients need f32 or f64 data, got i32"):
        dr.resize_backward(X.astype(np.int32), np.zeros((1, 1, 8, 8), np.int32),
                           scales=[1, 1, 2, 2])
    with pytest.raises(ValueError, match=r"output_delta"):
        dr.resize_backward(X, np.zeros((1, 1, 7, 8), np.float32), scales=[1, 1, 2, 2])
    with pytest.raises(ValueError, match=r"Resize-19: attribute mode: unknown value 'cubicc'"):
        dr.resize(X, scales=[1, 1, 2, 2], mode="cubicc")
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'mood'"):
        dr.resize(X, scales=[1, 1, 2, 2], mood="linear")
    with pytest.raises(TypeError, match=r"sizes\[0\]: expected an integer"):
        dr.resize(X, sizes=[1.5, 1, 2, 2])
    with pytest.raises(TypeError, match=r"dtype"):
        dr.resize(X.astype(np.float16), scales=[1, 1, 2, 2])
    with pytest.raises(TypeError, match=r"dtype"):
        dr.resize(X.astype(">f4"), scales=[1, 1, 2, 2])
    with pytest.raises(ValueError, match=r"opset"):
        dr.resize(X, scales=[1, 1, 2, 2], opset=12)
    with pytest.raises(ValueError, match=r"rank must be 1..8"):
        dr.resize(np.zeros((1,) * 9, np.float32), scales=[1.0] * 9)
    with pytest.raises(ValueError, match=r"grads must name"):
        dr.resize_backward(X, np.zeros((1, 1, 8, 8), np.float32), scales=[1, 1, 2, 2],
                           grads=["Y"])
    # list lengths past what the C structs hold are refused before any copy
    # (the same lists ran clean under AddressSanitizer)
    for n in (9, 16, 17):
        with pytest.raises(ValueError, match=r"Resize-18: attribute axes: at most 8 entries"
                           if n < 17 else r"at most 16 entries"):
            dr.resize(X, sizes=[2] * 4, axes=list(range(n)), opset=18)
        with pytest.raises(ValueError, match=r"pads_end: at most"):
            dr.interpolate(X, sizes=[2, 2], axes=[2, 3], pads_end=[0] * n)
    with pytest.raises(ValueError, match=r"scales: at most 16 entries, got 17"):
        dr.resize(X, scales=[1.0] * 17)
    with pytest.raises(ValueError, match=r"size has 4 entries"):
        dr.torch_interpolate(X, size=(1, 2, 3, 4))
    with pytest.raises(ValueError, match=r"n"):
        dr.set_num_threads(-1)
    for bad in (None, 1.5, "2", True):
        with pytest.raises(TypeError, match=r"set_num_threads"):
            dr.set_num_threads(bad)
    assert dr.get_num_threads() == 0 or dr.get_num_threads() > 0


# ------------------------------------------------------------------ threads

def _workload():
    X = rand((2, 3, 40, 37))
    g = _grid((2, 33, 29, 2))
    out = [dr.resize(X, scales=[1, 1, 1.7, 0.6], mode="cubic"),
           dr.torch_interpolate(X, scale_factor=(2.0, 2.0), mode="bilinear"),
           dr.grid_sample(X, g, mode="bicubic", padding_mode="reflection")]
    r = dr.resize_backward(X, rand(out[0].shape), scales=[1, 1, 1.7, 0.6], mode="cubic")
    out += [r["X_delta"], r["scales_delta"]]
    r = dr.grid_sample_backward(X, g, rand(out[2].shape), mode="bicubic",
                                padding_mode="reflection")
    out += [r["X_delta"], r["grid_delta"]]
    return out


def test_threads_bitwise_equal():
    state = RNG.bit_generator.state
    before = dr.get_num_threads()
    try:
        dr.set_num_threads(1)
        assert dr.get_num_threads() == 1
        one = _workload()
        RNG.bit_generator.state = state
        dr.set_num_threads(2)
        assert dr.get_num_threads() == 2
        two = _workload()
    finally:
        dr.set_num_threads(before)
    for a, b in zip(one, two):
        assert same_bits(a, b)


def test_scratch_cache_release_same_bits():
    # a 3-D resize keeps its intermediates (>= 4 MiB) for the next call; the
    # results do not depend on whether the blocks are fresh or kept
    x = (np.arange(4 * 32 * 64 * 64, dtype=np.float32) % 11 / 5).reshape(1, 4, 32, 64, 64)
    sc = [1, 1, 2, 2, 2]
    dr.scratch_release()
    assert dr.scratch_held() == 0
    y0 = dr.resize(x, scales=sc, mode="linear")
    g0 = dr.resize_backward(x, np.ones_like(y0), scales=sc, mode="linear")
    kept = dr.scratch_held()
    if os.environ.get("DRS_SCRATCH_CACHE_MB") != "0":
        assert kept >= 4 << 20
    y1 = dr.resize(x, scales=sc, mode="linear")
    g1 = dr.resize_backward(x, np.ones_like(y0), scales=sc, mode="linear")
    dr.scratch_release()
    assert dr.scratch_held() == 0
    assert same_bits(y0, y1) and same_bits(g0["X_delta"], g1["X_delta"])
    assert g0["scales_delta"].tolist() == g1["scales_delta"].tolist()


def test_simd_variant_forced_same_bits():
    # DRS_SIMD picks the kernels' variant at the first call; every variant
    # must give the same bits (a child process per variant)
    import subprocess
    import sys
    code = ("import numpy as np, dresample as dr\n"
            "x = (np.arange(2 * 3 * 17 * 29, dtype=np.float32) % 7 / 3).reshape(2, 3, 17, 29)\n"
            "y = dr.resize(x, scales=[1, 1, 1.7, 0.6], mode='cubic')\n"
            "g = dr.resize_backward(x, np.ones_like(y), scales=[1, 1, 1.7, 0.6], mode='cubic')\n"
            "print(dr.simd_variant(), y.tobytes().hex(), g['X_delta'].tobytes().hex())\n")
    out = {}
    for v in ("baseline", "avx2", "avx512"):
        env = dict(os.environ, DRS_SIMD=v)
        r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                           check=True)
        out[v] = r.stdout.split()
    assert out["baseline"][0] == "baseline"
    for v in ("avx2", "avx512"):
        assert out[v][0] in ("baseline", "avx2", "avx512")
        assert out[v][1:] == out["baseline"][1:], v
    assert dr.simd_variant() in ("baseline", "avx2", "avx512")


def test_python_threads_concurrent_calls():
    # the kernels run without the GIL: concurrent calls from Python threads
    # give the results of serial calls
    X = rand((1, 3, 64, 64))
    ref = dr.resize(X, scales=[1, 1, 1.5, 1.5], mode="cubic")
    res = [None] * 4

    def work(i):
        res[i] = dr.resize(X, scales=[1, 1, 1.5, 1.5], mode="cubic")
    ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert all(same_bits(r, ref) for r in res)


# ------------------------------------------------------------------ dtypes, conversion

@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.uint8, np.int8, np.int32,
                                   np.int64])
def test_dtypes_nearest(dtype):
    X = np.array([[1, 2], [3, 4]], dtype)
    Y = dr.resize(X, scales=(1, 2), mode="nearest")
    assert Y.dtype == np.dtype(dtype)
    assert Y.tolist() == [[1, 1, 2, 2], [3, 3, 4, 4]]


def test_array_likes_and_views():
    X = rand((1, 1, 5, 6), np.float64)
    ref = dr.resize(X, scales=np.array([1, 1, 2, 0.5]), mode="linear")
    assert same_bits(dr.resize(X.tolist(), scales=[1, 1, 2, 0.5], mode="linear"), ref)
    # a non-contiguous view is copied to C order first
    T = np.ascontiguousarray(X.transpose(0, 1, 3, 2)).transpose(0, 1, 3, 2)
    assert not T.flags.c_contiguous
    assert same_bits(dr.resize(T, scales=(1, 1, 2, 0.5), mode="linear"), ref)
    # scalar scale_factor, numpy scalars, bools
    a = dr.torch_interpolate(X, scale_factor=np.float64(2), mode="bilinear",
                             align_corners=np.bool_(False))
    b = dr.torch_interpolate(X, scale_factor=(2.0, 2.0), mode="bilinear", align_corners=False)
    assert same_bits(a, b)


def test_version():
    header = (REPO / "include" / "dresample.h").read_text()
    m = re.search(r'#define DRS_VERSION_STRING "([0-9.]+)"', header)
    assert m and dr.__version__ == m.group(1)
    assert importlib.metadata.version("dresample") == dr.__version__
