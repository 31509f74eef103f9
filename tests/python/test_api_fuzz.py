# SPDX-License-Identifier: MIT
"""Random calls of the whole NumPy API and of dresample.torch, valid and
hostile alike (shapes with zero or one-element axes, every attribute value and
some unknown ones, scales 0 / negative / NaN / inf / 1e20, sizes past 2^62,
roi NaN, grids with NaN, inf and 1e30, wrong dtypes, byte-swapped and
non-contiguous arrays, lists, scalars, None; through dresample.torch tensors
requiring gradients and every output's backward), in a child process: every
call must return arrays of the documented shapes or raise ValueError,
TypeError or MemoryError with a message, and never kill the process.
DRS_PY_FUZZ_SECONDS (default 8, per test) and DRS_PY_FUZZ_SEED (default fixed;
tools/ci_hostile.sh passes the day's) set the budget and the seed; a failure
prints the seed and the call to replay."""
import os
import subprocess
import sys
import time

import pytest

np = pytest.importorskip("numpy", reason="numpy is not installed")
dr = pytest.importorskip("dresample", reason="the dresample package is not installed")

F32, F64 = np.float32, np.float64
# The child's address space beyond what it has mapped at the start: some calls
# the library accepts ask for outputs of terabytes (a scale of 1e-300 reads as
# about 1e-6 against a pad of 2^62), which must fail as MemoryError instead of
# being touched where the kernel overcommits memory (vm.overcommit_memory=1).
# Not under AddressSanitizer, whose shadow memory needs the address space (its
# own allocator refuses such sizes: ci_hostile.sh's max_allocation_size_mb).
AS_SPARE = 4 << 30


_HOSTILE = [True]  # this call may use hostile values (half the calls: clean ones only)


def _pick(rng, seq):
    return seq[int(rng.integers(len(seq)))]


def _attr(rng, valid, invalid=()):
    """An attribute value: a valid one, or on a hostile call now and then not."""
    if invalid and _HOSTILE[0] and rng.random() < 0.3:
        return _pick(rng, invalid)
    return _pick(rng, valid)


def _num(rng):
    """A scale or coordinate-like number, now and then hostile."""
    if not _HOSTILE[0] or rng.random() < 0.8:
        return float(_pick(rng, (0.5, 1.0, 1.5, 2.0, 3.0, 0.25, 0.7, 1.33)))
    return _pick(rng, (0.0, -1.0, float("nan"), float("inf"), -float("inf"), 1e20, 1e-300,
                       5e-324, 2.0 ** 62, "2", None, [1.0]))


def _int(rng):
    if not _HOSTILE[0] or rng.random() < 0.85:
        return int(rng.integers(1, 7)) if not _HOSTILE[0] else int(rng.integers(0, 7))
    return _pick(rng, (-1, 2 ** 62, 2 ** 63 - 1, 2 ** 63, -(2 ** 63), 1.5, "3", None))


def _array(rng, rank, float_only=False):
    shape = tuple(int(rng.integers(0, 5)) if _HOSTILE[0] and rng.random() < 0.1
                  else int(rng.integers(1, 6))
                  for _ in range(rank))
    dt = _pick(rng, (F32, F64) if float_only or not _HOSTILE[0] or rng.random() < 0.8 else
               (np.uint8, np.int8, np.int32, np.int64, np.float16, ">f4", np.bool_, np.complex64))
    a = (rng.standard_normal(shape) * 3).astype(dt)
    r = rng.random()
    if r < 0.05:
        a = np.asfortranarray(a)
    elif r < 0.1 and a.ndim and a.shape[-1] > 1:
        a = a[..., ::2]
    elif r < 0.12:
        a = a.tolist()
    return a


def _vec(rng, n, fn):
    if _HOSTILE[0] and rng.random() < 0.05:
        return _pick(rng, (None, [], "1,2", 3.0, np.zeros((2, 2))))
    return [fn(rng) for _ in range(n)]


def _resize_call(rng):
    rank = int(rng.integers(1, 6))
    X = _array(rng, rank)
    kw = {"opset": _attr(rng, (10, 11, 13, 18, 19, 19, 19), (12, 20))}
    xr = np.ndim(X)
    n = xr if not _HOSTILE[0] or rng.random() < 0.9 else xr + _pick(rng, (-1, 1))
    if rng.random() < 0.6:
        kw["scales"] = _vec(rng, n, _num)
    else:
        kw["sizes"] = _vec(rng, n, _int)
    if rng.random() < 0.2:
        kw["roi"] = _vec(rng, 2 * n, lambda r: _pick(r, (0.0, 0.25, 1.0, float("nan"), 2.0)))
    attrs = {
        "mode": (("nearest", "linear", "cubic"), ("bogus", 3)),
        "coordinate_transformation_mode": (("half_pixel", "asymmetric", "align_corners",
                                            "pytorch_half_pixel", "tf_crop_and_resize",
                                            "half_pixel_symmetric", "tf_half_pixel_for_nn"),
                                           ("x",)),
        "nearest_mode": (("round_prefer_floor", "round_prefer_ceil", "floor", "ceil"), ("up",)),
        "cubic_coeff_a": ((-0.75, -0.5), (float("nan"), 1e30)),
        "exclude_outside": ((0, 1), (2,)),
        "extrapolation_value": ((0.0, -1.5), (float("inf"),)),
        "antialias": ((0, 1, True), (5,)),
        "axes": ((None,), ([2, 3], [-1], [0, 0], [9], [1, 2, 3])),
        "keep_aspect_ratio_policy": (("stretch", "not_larger", "not_smaller"), ("huge",)),
    }
    for k, (ok, bad) in attrs.items():
        if rng.random() < 0.3:
            kw[k] = _attr(rng, ok, bad)
    return X, kw


def _preset_call(rng):
    """Data and keywords of a PyTorch-preset interpolate call (scale_factor a
    number or a list)."""
    rank = _attr(rng, (3, 4, 5), (1, 2, 6))
    X = _array(rng, rank)
    ns = max(rank - 2, 1)
    kw = {"mode": _attr(rng, ("nearest", "nearest-exact", "linear", "bilinear", "bicubic",
                              "trilinear", "area"), ("cubic",))}
    if rng.random() < 0.5:
        kw["size"] = _pick(rng, (_int(rng), tuple(_int(rng) for _ in range(ns))))
    if (rng.random() < 0.6 and _HOSTILE[0]) or "size" not in kw:
        kw["scale_factor"] = _pick(rng, (_num(rng), [_num(rng) for _ in range(ns)]))
    for k, vals in {"align_corners": (None, False, True), "antialias": (False, True),
                    "recompute_scale_factor": (None, False, True)}.items():
        if rng.random() < 0.3:
            kw[k] = _pick(rng, vals)
    return X, kw


def _one(rng):
    """One random call; returns (description, callable)."""
    _HOSTILE[0] = bool(rng.random() < 0.5)
    op = _pick(rng, ("resize", "resize_backward", "interpolate", "interpolate_backward",
                     "interpolate_backprop", "torch_interpolate", "torch_interpolate_backward",
                     "grid_sample", "grid_sample_backward"))
    if op.startswith("resize"):
        X, kw = _resize_call(rng)
        if op == "resize":
            return f"resize({_d(X)}, **{kw!r})", lambda: _check_forward(dr.resize(X, **kw), X)
        fkw = dict(kw)
        kw["grads"] = _attr(rng, (None, None, "X", ["scales"], ["roi", "X"]), (["Y"],))
        dY = _grad_of(rng, lambda: dr.resize(X, **fkw), X)
        return (f"resize_backward({_d(X)}, dY, **{kw!r})",
                lambda: _check_grads(dr.resize_backward(X, dY(), **kw), X))
    if op.startswith("interpolate"):
        rank = int(rng.integers(1, 6))
        X = _array(rng, rank)
        kw = {}
        if op == "interpolate":
            kw["version"] = _attr(rng, (1, 4, 11, 4), (2,))
        axes = _attr(rng, (None, [rank - 1], [0]), ([2, 3], [5], [-1], [1, 1]))
        na = rank if axes is None else len(axes)
        if rng.random() < 0.5:
            kw["scales"] = _vec(rng, na, _num)
        if rng.random() < 0.6:
            kw["sizes"] = _vec(rng, na, _int)
        kw["axes"] = axes
        if not _HOSTILE[0] and "sizes" not in kw and "scales" not in kw:
            kw["sizes"] = _vec(rng, na, _int)
        for k, (ok, bad) in {
                "mode": (("nearest", "linear", "linear_onnx", "cubic", "bilinear_pillow",
                          "bicubic_pillow"), ("area", "nope")),
                "shape_calculation_mode": (("sizes", "scales"), ("what",)),
                "coordinate_transformation_mode": (("half_pixel", "asymmetric", "align_corners",
                                                    "pytorch_half_pixel",
                                                    "tf_half_pixel_for_nn"), ()),
                "nearest_mode": (("round_prefer_floor", "floor", "ceil", "simple"), ("up",)),
                "antialias": ((0, 1), (2,)),
                "pads_begin": (([0] * rank, [1] * rank), ([-1] * rank, [2 ** 62])),
                "pads_end": (([0] * rank, [2] * rank), ([-(2 ** 40)] * rank,)),
                "cube_coeff": ((-0.75, -0.5), (float("nan"),)),
                "align_corners": ((False, True), ())}.items():
            if rng.random() < 0.25:
                kw[k] = _attr(rng, ok, bad)
        if op == "interpolate":
            return (f"interpolate({_d(X)}, **{kw!r})",
                    lambda: _check_forward(dr.interpolate(X, **kw), X))
        if op == "interpolate_backprop":
            kw.pop("align_corners", None)
        fkw = dict(kw)
        kw["grads"] = _attr(rng, (None, "data", ["scales"]), (["x"],))
        dY = _grad_of(rng, lambda: dr.interpolate(X, **fkw), X)
        fn = getattr(dr, op)
        return (f"{op}({_d(X)}, dY, **{kw!r})",
                lambda: _check_pair(fn(X, dY(), **kw), X))
    if op.startswith("torch_interpolate"):
        X, kw = _preset_call(rng)
        if op == "torch_interpolate":
            return (f"torch_interpolate({_d(X)}, **{kw!r})",
                    lambda: _check_forward(dr.torch_interpolate(X, **kw), X))
        dY = _grad_of(rng, lambda: dr.torch_interpolate(X, **kw), X)
        return (f"torch_interpolate_backward({_d(X)}, dY, **{kw!r})",
                lambda: _check_forward(dr.torch_interpolate_backward(X, dY(), **kw), X))
    # grid sample
    rank = _attr(rng, (4, 4, 5, 3), (2, 6))
    X = _array(rng, rank)
    S = max(rank - 2, 1) if not _HOSTILE[0] or rng.random() < 0.9 else int(rng.integers(1, 4))
    gshape = (np.shape(X)[0] if np.ndim(X) else 1,) + tuple(
        int(rng.integers(0 if _HOSTILE[0] else 1, 5)) for _ in range(max(rank - 2, 0))) + (S,)
    grid = (rng.random(gshape) * 2.4 - 1.2).astype(_attr(rng, (F32, F64, F32), (np.int32,)))
    if grid.size and grid.dtype.kind == "f" and _HOSTILE[0] and rng.random() < 0.3:
        grid.flat[int(rng.integers(grid.size))] = _pick(rng, (np.nan, np.inf, -np.inf, 1e30,
                                                               -1e30, 3e9))
    kw = {"mode": _attr(rng, ("bilinear", "linear", "nearest", "bicubic", "cubic"), ("area",)),
          "padding_mode": _attr(rng, ("zeros", "border", "reflection"), ("wrap",)),
          "align_corners": _attr(rng, (False, True, 0, 1), (2,)),
          "version": _attr(rng, (9, 16, 20, 22, 9), (8,))}
    if op == "grid_sample":
        return (f"grid_sample({_d(X)}, {_d(grid)}, **{kw!r})",
                lambda: _check_forward(dr.grid_sample(X, grid, **kw), X))
    fkw = dict(kw)
    kw["grads"] = _attr(rng, (None, "X", ["grid"]), (["Q"],))
    dY = _grad_of(rng, lambda: dr.grid_sample(X, grid, **fkw), X)
    return (f"grid_sample_backward({_d(X)}, {_d(grid)}, dY, **{kw!r})",
            lambda: _check_grads(dr.grid_sample_backward(X, grid, dY(), **kw), X))


def _grad_of(rng, forward, X):
    """A maker of output_delta: on a clean call random values of the forward's
    output shape and X's dtype (the forward run first: its refusal is the
    call's), on a hostile one also any array."""
    if _HOSTILE[0] and rng.random() < 0.5:
        dY = _array(rng, int(rng.integers(1, 6)), float_only=True)
        return lambda: dY
    seed = int(rng.integers(1 << 30))

    def make():
        y = forward()
        dt = np.asarray(X).dtype
        dt = dt if dt.kind == "f" else np.dtype(F32)
        return np.random.default_rng(seed).standard_normal(y.shape).astype(dt)
    return make


def _d(a):
    a = np.asarray(a)
    return f"<{a.dtype} {a.shape}>"


def _check_forward(y, X):
    assert isinstance(y, np.ndarray), type(y)
    assert y.flags.c_contiguous and y.dtype == np.asarray(X).dtype.newbyteorder("="), y.dtype


def _check_grads(g, X):
    assert isinstance(g, dict), type(g)
    for k, v in g.items():
        assert isinstance(v, np.ndarray), (k, type(v))
        if k in ("X_delta",):
            assert v.shape == np.shape(X), (k, v.shape, np.shape(X))


def _check_pair(t, X):
    assert isinstance(t, tuple) and len(t) == 2, t
    dx, ds = t
    assert dx is None or dx.shape == np.shape(X), (dx.shape, np.shape(X))
    assert ds is None or (ds.dtype == np.float64 and ds.ndim == 1), ds


def _loop(seed, seconds, one):
    """The child: random calls one(rng) until the budget is spent; prints each
    call before making it (the last line names the call that killed a process)."""
    _limit_address_space()
    rng = np.random.default_rng(seed)
    t_end = time.monotonic() + seconds
    n = raised = clean = clean_ok = 0
    while time.monotonic() < t_end:
        what, call = one(rng)
        hostile = _HOSTILE[0]
        print(what, flush=True)
        try:
            call()
            clean_ok += not hostile
        except (ValueError, TypeError, MemoryError) as e:
            if not str(e):
                raise AssertionError(f"{type(e).__name__} without a message: {what}") from e
            raised += 1
        n += 1
        clean += not hostile
    print(f"DONE {n} calls, {raised} refused, {clean_ok} of {clean} clean calls returned",
          flush=True)


def _limit_address_space():
    if "asan" in os.environ.get("LD_PRELOAD", ""):
        return
    try:
        import resource
        with open("/proc/self/status") as f:
            vm = next(int(line.split()[1]) << 10 for line in f if line.startswith("VmSize:"))
        resource.setrlimit(resource.RLIMIT_AS, (vm + AS_SPARE, resource.RLIM_INFINITY))
    except (ImportError, OSError, StopIteration, ValueError):
        pass  # no /proc or no setrlimit: the kernel's own overcommit check stands


def _run(seed, seconds):
    _loop(seed, seconds, _one)


def _child(runner):
    """Runs runner(seed, seconds) of this module in a child process and checks
    that it ended normally, after enough calls."""
    seconds = float(os.environ.get("DRS_PY_FUZZ_SECONDS", "8"))
    seed = int(os.environ.get("DRS_PY_FUZZ_SEED", "20261127"))  # ci_hostile.sh: the day's
    here = os.path.dirname(os.path.abspath(__file__))
    code = (f"import sys; sys.path.insert(0, {here!r}); import test_api_fuzz as t; "
            f"t.{runner}({seed}, {seconds})")
    try:
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           timeout=seconds + 300)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        lines = out.splitlines()
        pytest.fail(f"{runner}, seed {seed}: no end after {seconds + 300:.0f} s; last call: "
                    f"{lines[-1] if lines else '(none)'}")
    lines = p.stdout.splitlines()
    last = lines[-1] if lines else "(no call)"
    assert p.returncode == 0, (f"{runner}, seed {seed}: exit {p.returncode} after {len(lines)} "
                               f"calls; last call: {last}\n{p.stderr[-3000:]}")
    assert last.startswith("DONE"), last
    f = last.split()
    n, clean_ok, clean = int(f[1]), int(f[5]), int(f[7])
    assert n >= 200, last  # the budget ran calls, not setup
    # half the calls use valid values only; about half of those make a valid
    # combination (the rest are refused for a rule, e.g. antialias with
    # nearest): a change that refused valid calls wholesale would show here
    assert clean_ok >= 0.3 * clean, last


def test_random_calls_never_crash():
    _child("_run")


def test_torch_random_calls_never_crash():
    # the same through dresample.torch: tensors (some requiring a gradient,
    # channels_last, strided), scales / roi / scale_factor as tensors that
    # require a gradient, each output's backward run
    pytest.importorskip("torch", reason="PyTorch is not installed")
    _child("_run_torch")


# ---------------------------------------------------------------- dresample.torch
def _tensor(torch, rng, a, grad):
    """A tensor of the array-like a; float ones requiring a gradient when grad
    (and a clean call), now and then channels_last or a non-contiguous view."""
    a = np.asarray(a)
    t = torch.as_tensor(np.ascontiguousarray(a.astype(a.dtype.newbyteorder("="))))
    if t.dtype in (torch.float32, torch.float64) and grad:
        t.requires_grad_()
    r = rng.random()
    if r < 0.1 and t.dim() == 4:
        t = t.contiguous(memory_format=torch.channels_last)
    elif r < 0.15 and t.dim() >= 1 and t.shape[-1] > 1:
        t = t[..., ::2]
    return t


def _param(torch, rng, v):
    """A scales / roi list as given, or as a float64 tensor requiring a gradient."""
    if isinstance(v, list) and v and all(isinstance(x, float) for x in v) and rng.random() < 0.5:
        return torch.tensor(v, dtype=_pick(rng, (torch.float64, torch.float32)),
                            requires_grad=bool(rng.random() < 0.8))
    return v


def _one_torch(torch, dt, rng):
    op = _pick(rng, ("resize", "openvino_interpolate", "interpolate", "grid_sample"))
    grad = bool(rng.random() < 0.6)
    if op == "resize":
        X, kw = _resize_call(rng)
        for k in ("scales", "roi"):
            if k in kw:
                kw[k] = _param(torch, rng, kw[k])
        t = _tensor(torch, rng, X, grad)
        return f"dt.resize({_d(X)}, **{kw!r})", lambda: _backward(torch, dt.resize(t, **kw))
    if op == "openvino_interpolate":
        rank = int(rng.integers(1, 6))
        X = _array(rng, rank)
        na = rank
        kw = {"version": _attr(rng, (1, 4, 11, 4), (2,))}
        if rng.random() < 0.6:
            kw["scales"] = _param(torch, rng, _vec(rng, na, _num))
        if rng.random() < 0.6 or "scales" not in kw:
            kw["sizes"] = _vec(rng, na, _int)
        if kw["version"] == 1:
            kw["axes"] = list(range(rank))
        kw["mode"] = _attr(rng, ("nearest", "linear", "linear_onnx", "cubic"), ("area",))
        t = _tensor(torch, rng, X, grad)
        return (f"dt.openvino_interpolate({_d(X)}, **{kw!r})",
                lambda: _backward(torch, dt.openvino_interpolate(t, **kw)))
    if op == "interpolate":
        X, kw = _preset_call(rng)
        sf = kw.get("scale_factor")
        if isinstance(sf, float) and rng.random() < 0.3:
            kw["scale_factor"] = torch.tensor(sf, dtype=torch.float64, requires_grad=True)
        elif isinstance(sf, list):
            kw["scale_factor"] = _param(torch, rng, sf)
        t = _tensor(torch, rng, X, grad)
        return (f"dt.interpolate({_d(X)}, **{kw!r})",
                lambda: _backward(torch, dt.interpolate(t, **kw)))
    rank = _attr(rng, (4, 4, 5), (3, 2))
    X = _array(rng, rank, float_only=not _HOSTILE[0])
    gshape = (np.shape(X)[0] if np.ndim(X) else 1,) + tuple(
        int(rng.integers(1, 5)) for _ in range(max(rank - 2, 0))) + (max(rank - 2, 1),)
    g = (rng.random(gshape) * 2.4 - 1.2).astype(_pick(rng, (F32, F64)))
    if g.size and _HOSTILE[0] and rng.random() < 0.3:
        g.flat[int(rng.integers(g.size))] = _pick(rng, (np.nan, np.inf, 1e30))
    kw = {"mode": _attr(rng, ("bilinear", "nearest", "bicubic"), ("linear", "area")),
          "padding_mode": _attr(rng, ("zeros", "border", "reflection"), ("wrap",)),
          "align_corners": _pick(rng, (None, False, True))}
    t = _tensor(torch, rng, X, grad)
    gt = _tensor(torch, rng, g, bool(rng.random() < 0.5))
    return (f"dt.grid_sample({_d(X)}, {_d(g)}, **{kw!r})",
            lambda: _backward(torch, dt.grid_sample(t, gt, **kw)))


def _backward(torch, y):
    assert isinstance(y, torch.Tensor) and y.device.type == "cpu", type(y)
    if y.requires_grad:
        y.backward(torch.ones_like(y))


def _run_torch(seed, seconds):
    import torch
    import dresample.torch as dt

    def one(rng):
        _HOSTILE[0] = bool(rng.random() < 0.5)
        return _one_torch(torch, dt, rng)
    _loop(seed, seconds, one)
