# SPDX-License-Identifier: MIT
"""dresample.torch: the dresample kernels as differentiable PyTorch operations.

CPU tensors of dtype float32/float64 (integer dtypes forward only).  A
contiguous tensor reaches the C library without a copy (``tensor.numpy()``
view) and the result comes back without one (``torch.from_numpy``).  Every
floating input is differentiable: data, grid, and the scale factors / roi when
they are given as tensors.  CUDA tensors and unsupported dtypes raise; nothing
is ever moved to the CPU behind the caller's back.

  interpolate(...)           drop-in for torch.nn.functional.interpolate, and
                             scale_factor may be a tensor with requires_grad
  resize(...)                ONNX Resize-10..19 (gradients to X, scales, roi)
  openvino_interpolate(...)  OpenVINO Interpolate-1/4/11 (data, scales)
  grid_sample(...)           drop-in for torch.nn.functional.grid_sample, plus
                             bicubic (tricubic) on 5-D inputs
  patch()                    routes F.interpolate / F.grid_sample through
                             dresample (context manager and decorator)
  compare(fn, *inputs)       PyTorch's kernels vs dresample's on a model

With torch >= 2.4 the kernels are also registered as torch.library custom ops
(namespace ``dresample``) with fake kernels, so torch.compile and torch.export
trace them; with older torch (1.13) they are torch.autograd.Functions.
"""
import contextlib
import functools
import json
import math
import os
import sys
import threading

import numpy as np

try:
    import torch
    import torch.nn.functional as _F
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError("dresample.torch needs PyTorch: pip install torch (CPU builds are enough)"
                      ) from e

import dresample as _d

__all__ = ["interpolate", "resize", "openvino_interpolate", "grid_sample", "patch", "compare",
           "CompareReport", "PatchStats"]

_FLOAT = (torch.float32, torch.float64)
_INT = (torch.uint8, torch.int8, torch.int32, torch.int64)

# The functions of PyTorch that patch() replaces, kept before any patching.
_TORCH_INTERPOLATE = _F.interpolate
_TORCH_GRID_SAMPLE = _F.grid_sample


def _torch_version():
    v = []
    for p in torch.__version__.split("+")[0].split(".")[:2]:
        n = "".join(ch for ch in p if ch.isdigit())
        v.append(int(n) if n else 0)
    return tuple(v)


_HAS_LIBRARY = _torch_version() >= (2, 4) and hasattr(torch, "library") and hasattr(
    torch.library, "custom_op")


_is_compiling = getattr(getattr(torch, "compiler", None), "is_compiling", lambda: False)
_PLAIN = (torch.Tensor, torch.nn.Parameter)


def _use_lib(*ts):
    """Whether to go through the torch.library custom ops: only while tracing
    (torch.compile, torch.export: fake or functional tensors).  Eager calls take
    the autograd.Function path, which costs a fraction of the custom-op
    dispatch (tens of microseconds per call)."""
    if not _HAS_LIBRARY:
        return False
    if _is_compiling():
        return True
    return any(t is not None and type(t) not in _PLAIN for t in ts)


# ------------------------------------------------------------------ checks
def _check_tensor(fn, t, name):
    """Validates a data-like tensor argument: CPU, float32/float64, or an
    integer dtype when no gradient is wanted."""
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"dresample.torch.{fn}: {name} must be a torch.Tensor, got "
                        f"{type(t).__name__}")
    if t.device.type != "cpu":
        raise ValueError(f"dresample.torch.{fn}: {name} is on device '{t.device}'; dresample "
                         f"runs on CPU tensors only (call .cpu() yourself if a copy is what "
                         f"you want)")
    if t.dtype in _FLOAT:
        return
    if t.dtype in _INT:
        if t.requires_grad:
            raise TypeError(f"dresample.torch.{fn}: {name} of dtype {t.dtype} cannot require a "
                            f"gradient")
        return
    raise TypeError(f"dresample.torch.{fn}: {name} has dtype {t.dtype}; supported are "
                    f"float32 and float64 (uint8, int8, int32, int64 forward only)")


def _check_param(fn, name, t):
    """A 1-D parameter tensor (scales, roi): CPU, float dtype if it requires grad."""
    if t.device.type != "cpu":
        raise ValueError(f"dresample.torch.{fn}: {name} is on device '{t.device}'; dresample "
                         f"runs on CPU tensors only")
    if t.requires_grad and t.dtype not in _FLOAT:
        raise TypeError(f"dresample.torch.{fn}: {name} requires a gradient but has dtype "
                        f"{t.dtype}; use float32 or float64")
    if t.dim() > 1:
        raise ValueError(f"dresample.torch.{fn}: {name} must be 0-D or 1-D, got shape "
                         f"{tuple(t.shape)}")


def _arr(t):
    """A NumPy view of a CPU tensor (a contiguous copy first when it is not)."""
    if t.requires_grad:
        t = t.detach()
    if not t.is_contiguous():
        t = t.contiguous()
    return t.numpy()


_TORCH_OF = {np.dtype(k): v for k, v in ((np.float32, torch.float32), (np.float64, torch.float64),
                                         (np.uint8, torch.uint8), (np.int8, torch.int8),
                                         (np.int32, torch.int32), (np.int64, torch.int64))}


def _talloc(shape, dtype):
    """A new output as the NumPy view the library writes into: from torch's own
    allocator (torch.empty), so that the wrappers' outputs and gradients are
    ordinary torch storage, allocated (and reused) as PyTorch's own ops'
    outputs are; those of 2 MiB or more in a 2 MiB-aligned block of their own
    advised as huge pages (dresample._huge), as PyTorch >= 2.2 allocates them
    with THP_MEM_ALLOC_ENABLE=1, whatever the PyTorch version and setting
    (their storage is then not resizable)."""
    dtype = np.dtype(dtype)
    tdtype = _TORCH_OF[dtype]
    n = _d._nbytes(shape, dtype)
    if n >= _d._HUGE_MIN:
        return _d._huge(shape, dtype, n)
    return torch.empty(shape, dtype=tdtype, device="cpu").numpy()


def _call(fn, *args, **kw):
    """fn of the NumPy API with its outputs from _talloc."""
    loc = _d._local
    prev = getattr(loc, "alloc", None)
    loc.alloc = _talloc
    try:
        return fn(*args, **kw)
    finally:
        loc.alloc = prev


def _grad_tensor(g, shape, dtype=torch.float64):
    """A parameter's gradient (scales, roi) as a CPU tensor of the parameter's
    shape and dtype: the library's float64 values, or zeros where it gave none."""
    if g is None:
        return torch.zeros(shape, dtype=dtype, device="cpu")
    return torch.as_tensor(np.asarray(g, np.float64), device="cpu").reshape(shape).to(dtype)


def _ten(a):
    """The tensor of an output array: the torch storage it views (_talloc's),
    else a tensor over the array itself (C-contiguous: no copy)."""
    b = a.base
    if (isinstance(b, torch.Tensor) and b.shape == a.shape and b.dtype == _TORCH_OF[a.dtype]
            and b.data_ptr() == a.__array_interface__["data"][0]):
        return b
    return torch.from_numpy(a)


def _floats(v):
    """A tensor / sequence / number as a list of Python floats (None stays None)."""
    if v is None:
        return None
    if isinstance(v, torch.Tensor):
        return [float(x) for x in v.detach().reshape(-1).tolist()]
    if isinstance(v, (int, float)):
        return [float(v)]
    return [float(x) for x in v]


def _ints(v):
    if v is None:
        return None
    if isinstance(v, torch.Tensor):
        return [int(x) for x in v.detach().reshape(-1).tolist()]
    if isinstance(v, int):
        return [v]
    return [int(x) for x in v]


# ------------------------------------------------- F.interpolate (PyTorch preset)
_TORCH_MODES = ("nearest", "nearest-exact", "linear", "bilinear", "bicubic", "trilinear", "area")
_MODE_RANK = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}


def _torch_out_size(shape, size, scales):
    S = len(shape) - 2
    if size is not None:
        sz = list(size) if isinstance(size, (list, tuple)) else [size] * S
        return [int(s) for s in sz]
    return [int(math.floor(float(shape[2 + i]) * scales[i])) for i in range(S)]


def _scale_grad_lowering(mode, align_corners, antialias, recompute):
    """The ONNX Resize-19 attributes whose scales gradient is the gradient of
    F.interpolate w.r.t. its scale factor, or None where that gradient is 0."""
    if mode not in ("linear", "bilinear", "trilinear", "bicubic") or align_corners or recompute:
        return None
    attrs = {"mode": "cubic" if mode == "bicubic" else "linear",
             "coordinate_transformation_mode": "half_pixel"}
    if mode == "bicubic":
        attrs["cubic_coeff_a"] = -0.5 if antialias else -0.75
    if antialias:
        attrs["antialias"] = 1
        attrs["exclude_outside"] = 1
    return attrs


def _torch_interp_fwd(x, size, scale_list, mode, align_corners, recompute, antialias):
    sf = None
    if scale_list is not None:
        sf = scale_list[0] if len(set(scale_list)) == 1 else tuple(scale_list)
    y = _call(_d.torch_interpolate, _arr(x), size=size, scale_factor=sf, mode=mode,
              align_corners=align_corners, antialias=antialias,
              recompute_scale_factor=recompute)
    return _ten(y)


def _torch_interp_bwd_input(dy, x, size, scale_list, mode, align_corners, recompute, antialias):
    sf = None
    if scale_list is not None:
        sf = scale_list[0] if len(set(scale_list)) == 1 else tuple(scale_list)
    dx = _call(_d.torch_interpolate_backward, _arr(x), _arr(dy), size=size, scale_factor=sf,
               mode=mode, align_corners=align_corners, antialias=antialias,
               recompute_scale_factor=recompute)
    return _ten(dx)


def _torch_interp_bwd_scale(dy, x, scale_list, mode, align_corners, recompute, antialias):
    """d loss / d scale_factor[i] (float64 list over the spatial axes)."""
    S = x.dim() - 2
    attrs = _scale_grad_lowering(mode, align_corners, antialias, recompute)
    if attrs is None:
        return [0.0] * S
    scales = [1.0, 1.0] + list(scale_list)
    copied = [False] * S
    if not antialias and mode != "bicubic":
        # PyTorch copies an axis whose length is unchanged: no dependence on
        # its scale, and an identity pass for the other axes' gradients.
        for i in range(S):
            if dy.shape[2 + i] == x.shape[2 + i]:
                copied[i] = True
                scales[2 + i] = 1.0
    res = _call(_d.resize_backward, _arr(x), _arr(dy), scales=scales, opset=19,
                grads=("scales",), **attrs)
    g = [float(v) for v in np.asarray(res["scales_delta"]).reshape(-1)[2:]]
    return [0.0 if c else v for v, c in zip(g, copied)]


def _interpolate_impl(input, size, scale_factor, mode, align_corners, recompute_scale_factor,
                      antialias):
    _check_tensor("interpolate", input, "input")
    if mode not in _TORCH_MODES:
        raise ValueError(f"dresample.torch.interpolate: mode must be one of "
                         f"{', '.join(_TORCH_MODES)}, got {mode!r}")
    S = input.dim() - 2
    if S < 1 or S > 3:
        raise ValueError(f"dresample.torch.interpolate: input must be 3-D, 4-D or 5-D "
                         f"[N, C, spatial...], got shape {tuple(input.shape)}")
    scale_t = None
    scale_list = None
    if scale_factor is not None:
        if size is not None:
            raise ValueError("dresample.torch.interpolate: only one of size or scale_factor "
                             "should be defined")
        if isinstance(scale_factor, torch.Tensor):
            _check_param("interpolate", "scale_factor", scale_factor)
            if scale_factor.numel() not in (1, S):
                raise ValueError(f"dresample.torch.interpolate: scale_factor tensor must have "
                                 f"1 or {S} elements, got {scale_factor.numel()}")
            scale_t = scale_factor
        scale_list = _floats(scale_factor)
        if len(scale_list) == 1:
            scale_list = scale_list * S
        if len(scale_list) != S:
            raise ValueError(f"dresample.torch.interpolate: scale_factor has {len(scale_list)} "
                             f"entries, the input has {S} spatial axes")
    elif size is None:
        raise ValueError("dresample.torch.interpolate: either size or scale_factor should be "
                         "defined")
    if size is not None:
        size = _ints(size)
        if len(size) == 1:
            size = size * S
    grad_scale = scale_t is not None and scale_t.requires_grad and torch.is_grad_enabled()
    if grad_scale and recompute_scale_factor:
        raise ValueError("dresample.torch.interpolate: scale_factor requires a gradient but "
                         "recompute_scale_factor=True makes the output independent of it")
    ac = None if align_corners is None else bool(align_corners)
    rc = None if recompute_scale_factor is None else bool(recompute_scale_factor)
    if _use_lib(input, scale_t):
        return _lib_torch_interpolate(input, scale_t if grad_scale else None, size, scale_list,
                                      mode, ac, rc, bool(antialias))
    if not (input.requires_grad or grad_scale) or not torch.is_grad_enabled():
        return _torch_interp_fwd(input, size, scale_list, mode, ac, rc, bool(antialias))
    return _apply_torch_interp(input, scale_t if grad_scale else None, size, scale_list, mode, ac,
                               rc, bool(antialias))


def _apply_torch_interp(input, scale_t, size, scale_list, mode, ac, rc, aa):
    meta = None if scale_t is None else (scale_t.numel(), scale_t.shape, scale_t.dtype)
    return _TorchInterpolateApply.apply(input, scale_t, size, scale_list, mode, ac, rc, aa, meta)


class _TorchInterpolateApply(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale_t, size, scale_list, mode, align_corners, recompute, antialias,
                meta):
        ctx.save_for_backward(x)
        ctx.args = (size, scale_list, mode, align_corners, recompute, antialias)
        ctx.meta = meta
        return _torch_interp_fwd(x, size, scale_list, mode, align_corners, recompute, antialias)

    @staticmethod
    def backward(ctx, dy):
        (x,) = ctx.saved_tensors
        size, scale_list, mode, ac, rc, aa = ctx.args
        dy = dy.contiguous()
        dx = gs = None
        if ctx.needs_input_grad[0]:
            dx = _torch_interp_bwd_input(dy, x, size, scale_list, mode, ac, rc, aa)
        if ctx.needs_input_grad[1]:
            n, shape, dtype = ctx.meta
            g = _torch_interp_bwd_scale(dy, x, scale_list, mode, ac, rc, aa)
            if n == 1:
                g = [math.fsum(g)]
            gs = torch.tensor(g, dtype=torch.float64, device="cpu").reshape(shape).to(dtype)
        return dx, gs, None, None, None, None, None, None, None


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Drop-in for ``torch.nn.functional.interpolate`` (same signature and defaults).

    Parameters
    ----------
    input : Tensor
        [N, C, spatial...] with 1-3 spatial axes; CPU, float32/float64 (integer
        dtypes for the nearest modes, forward only).
    size, scale_factor, mode, align_corners, recompute_scale_factor, antialias
        As in PyTorch.  ``scale_factor`` may also be a tensor (0-D or one entry
        per spatial axis); when it requires a gradient the output size is
        floor(L * s) from its value and its gradient is d loss / d s with the
        output size held fixed (exactly 0 for nearest, nearest-exact, area and
        align_corners=True, whose outputs do not depend on the scale value).

    Returns
    -------
    Tensor
        PyTorch's output size and values, input's dtype.

    Raises
    ------
    ValueError
        A tensor not on the CPU, a bad mode/size/scale (the library's message).
    TypeError
        An unsupported dtype.

    Examples
    --------
    >>> x = torch.arange(4.0).reshape(1, 1, 2, 2)
    >>> s = torch.tensor(1.5, requires_grad=True)
    >>> y = interpolate(x, scale_factor=s, mode="bilinear")
    >>> tuple(y.shape)
    (1, 1, 3, 3)
    >>> y.sum().backward()
    >>> bool(s.grad != 0)
    True
    """
    return _interpolate_impl(input, size, scale_factor, mode, align_corners,
                             recompute_scale_factor, antialias)


# ------------------------------------------------------------ ONNX Resize
def _resize_fwd(X, scales, roi, sizes, attrs):
    return _ten(_call(_d.resize, _arr(X), scales=scales, sizes=sizes, roi=roi, **attrs))


def _resize_bwd(dy, X, scales, roi, sizes, attrs, want=("X", "scales", "roi")):
    res = _call(_d.resize_backward, _arr(X), _arr(dy), scales=scales, sizes=sizes, roi=roi,
                grads=want, **attrs)
    return res.get("X_delta"), res.get("scales_delta"), res.get("roi_delta")


class _ResizeFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, X, scales_t, roi_t, scales, roi, sizes, attrs):
        ctx.save_for_backward(X)
        ctx.args = (scales, roi, sizes, attrs)
        ctx.meta = [None if t is None else (t.shape, t.dtype) for t in (scales_t, roi_t)]
        return _resize_fwd(X, scales, roi, sizes, attrs)

    @staticmethod
    def backward(ctx, dy):
        (X,) = ctx.saved_tensors
        scales, roi, sizes, attrs = ctx.args
        want = [n for n, k in (("X", 0), ("scales", 1), ("roi", 2)) if ctx.needs_input_grad[k]]
        dx, ds, dr = _resize_bwd(dy.contiguous(), X, scales, roi, sizes, attrs, want)
        out = [None] * 7
        if ctx.needs_input_grad[0]:
            out[0] = _ten(dx)
        for k, g in ((1, ds), (2, dr)):
            if ctx.needs_input_grad[k]:
                shape, dtype = ctx.meta[k - 1]
                out[k] = _grad_tensor(g, shape, dtype)
        return tuple(out)


def resize(X, scales=None, sizes=None, roi=None, **onnx_attrs):
    """ONNX Resize (https://onnx.ai/onnx/operators/onnx__Resize.html).

    Parameters
    ----------
    X : Tensor
        Any rank 1-8; CPU, float32/float64 (integer dtypes forward only).
    scales, sizes, roi : sequence or Tensor, optional
        The op's 1-D inputs.  ``scales`` and ``roi`` may be tensors that
        require a gradient (the output size is held fixed).
    **onnx_attrs
        ``opset`` (10, 11, 13, 18, 19; default 19) and the op's attributes:
        mode, coordinate_transformation_mode, nearest_mode, cubic_coeff_a,
        exclude_outside, extrapolation_value, antialias, axes,
        keep_aspect_ratio_policy.

    Returns
    -------
    Tensor
        Y, X's dtype.

    Raises
    ------
    ValueError, TypeError
        As :func:`interpolate`; bad attributes carry the library's message.

    Examples
    --------
    >>> X = torch.ones(1, 1, 2, 2, dtype=torch.float64, requires_grad=True)
    >>> sc = torch.tensor([1.0, 1.0, 1.5, 1.5], dtype=torch.float64, requires_grad=True)
    >>> Y = resize(X, scales=sc, mode="linear")
    >>> tuple(Y.shape)
    (1, 1, 3, 3)
    >>> Y.sum().backward()
    >>> tuple(sc.grad.shape), tuple(X.grad.shape)
    ((4,), (1, 1, 2, 2))
    """
    _check_tensor("resize", X, "X")
    ts = {}
    for name, v in (("scales", scales), ("roi", roi)):
        if isinstance(v, torch.Tensor):
            _check_param("resize", name, v)
            ts[name] = v
    s_list = _floats(scales)
    r_list = _floats(roi)
    z_list = _ints(sizes)
    if s_list is not None and len(s_list) == 0:
        s_list = None
    if r_list is not None and len(r_list) == 0:
        r_list = None
    need = torch.is_grad_enabled() and (X.requires_grad or any(
        t.requires_grad for t in ts.values()))
    attrs = dict(onnx_attrs)
    if _use_lib(X, *ts.values()):
        return _lib_resize(X, ts.get("scales") if need else None, ts.get("roi") if need else None,
                           s_list, r_list, z_list, attrs)
    if not need:
        return _resize_fwd(X, s_list, r_list, z_list, attrs)
    st = ts.get("scales") if "scales" in ts and ts["scales"].requires_grad else None
    rt = ts.get("roi") if "roi" in ts and ts["roi"].requires_grad else None
    return _ResizeFn.apply(X, st, rt, s_list, r_list, z_list, attrs)


# -------------------------------------------------- OpenVINO Interpolate
def _ov_fwd(data, sizes, scales, axes, version, attrs):
    return _ten(_call(_d.interpolate, _arr(data), sizes=sizes, scales=scales, axes=axes,
                      version=version, **attrs))


def _ov_bwd(dy, data, sizes, scales, axes, version, attrs, want=("data", "scales")):
    return _call(_d.interpolate_backward, _arr(data), _arr(dy), sizes=sizes, scales=scales,
                 axes=axes, version=version, grads=want, **attrs)


class _OVFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, data, scales_t, sizes, scales, axes, version, attrs):
        ctx.save_for_backward(data)
        ctx.args = (sizes, scales, axes, version, attrs)
        ctx.meta = None if scales_t is None else (scales_t.shape, scales_t.dtype)
        return _ov_fwd(data, sizes, scales, axes, version, attrs)

    @staticmethod
    def backward(ctx, dy):
        (data,) = ctx.saved_tensors
        sizes, scales, axes, version, attrs = ctx.args
        want = [n for n, k in (("data", 0), ("scales", 1)) if ctx.needs_input_grad[k]]
        dx, ds = _ov_bwd(dy.contiguous(), data, sizes, scales, axes, version, attrs, want)
        gx = _ten(dx) if ctx.needs_input_grad[0] else None
        gs = None
        if ctx.needs_input_grad[1]:
            shape, dtype = ctx.meta
            gs = _grad_tensor(ds, shape, dtype)
        return gx, gs, None, None, None, None, None


def openvino_interpolate(data, sizes=None, scales=None, axes=None, version=4, **attrs):
    """OpenVINO Interpolate-1/4/11 (https://docs.openvino.ai/2024/documentation/openvino-ir-format/operation-sets/operation-specs/image/interpolate-4.html).

    Parameters
    ----------
    data : Tensor
        CPU, float32/float64 (integer dtypes forward only).
    sizes, scales, axes : sequence or Tensor, optional
        The op's inputs; ``scales`` may be a tensor that requires a gradient
        (scales mode; in sizes mode its gradient is 0).
    version : int
        1, 4 or 11.
    **attrs
        mode, shape_calculation_mode (default: scales when only scales are
        given), coordinate_transformation_mode, nearest_mode, antialias,
        pads_begin, pads_end, cube_coeff, align_corners (version 1).

    Returns
    -------
    Tensor
        The output, data's dtype.

    Raises
    ------
    ValueError, TypeError
        As :func:`interpolate`.

    Examples
    --------
    >>> d = torch.ones(1, 1, 4, 4, dtype=torch.float64)
    >>> s = torch.tensor([0.5, 0.5], dtype=torch.float64, requires_grad=True)
    >>> tuple(openvino_interpolate(d, scales=s, axes=[2, 3], mode="linear_onnx").shape)
    (1, 1, 2, 2)
    """
    _check_tensor("openvino_interpolate", data, "data")
    st = None
    if isinstance(scales, torch.Tensor):
        _check_param("openvino_interpolate", "scales", scales)
        st = scales
    s_list, z_list, a_list = _floats(scales), _ints(sizes), _ints(axes)
    need = torch.is_grad_enabled() and (data.requires_grad or (st is not None and
                                                                st.requires_grad))
    if _use_lib(data, st):
        return _lib_ov(data, st if need else None, z_list, s_list, a_list, int(version),
                       dict(attrs))
    if not need:
        return _ov_fwd(data, z_list, s_list, a_list, int(version), dict(attrs))
    return _OVFn.apply(data, st if (st is not None and st.requires_grad) else None, z_list,
                       s_list, a_list, int(version), dict(attrs))


# ------------------------------------------------------------- grid_sample
_GRID_MODES = ("bilinear", "nearest", "bicubic")
_GRID_PADS = ("zeros", "border", "reflection")


def _grid_version(X):
    # GridSample-9 is PyTorch's semantics on 4-D; 5-D needs the ONNX 20+ version
    # (same semantics for bilinear/nearest; bicubic on 5-D is tricubic).
    return 9 if X.dim() == 4 else 22


def _grid_fwd(X, grid, mode, padding_mode, align_corners):
    y = _call(_d.grid_sample, _arr(X), _arr(grid), mode=mode, padding_mode=padding_mode,
              align_corners=align_corners, version=_grid_version(X))
    return _ten(y)


def _grid_bwd(dy, X, grid, mode, padding_mode, align_corners, want=("X", "grid")):
    res = _call(_d.grid_sample_backward, _arr(X), _arr(grid), _arr(dy), mode=mode,
                padding_mode=padding_mode, align_corners=align_corners,
                version=_grid_version(X), grads=want)
    return res.get("X_delta"), res.get("grid_delta")


class _GridFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, X, grid, mode, padding_mode, align_corners):
        ctx.save_for_backward(X, grid)
        ctx.args = (mode, padding_mode, align_corners)
        return _grid_fwd(X, grid, mode, padding_mode, align_corners)

    @staticmethod
    def backward(ctx, dy):
        X, grid = ctx.saved_tensors
        want = [n for n, k in (("X", 0), ("grid", 1)) if ctx.needs_input_grad[k]]
        dx, dg = _grid_bwd(dy.contiguous(), X, grid, *ctx.args, want)
        return (_ten(dx) if ctx.needs_input_grad[0] else None,
                _ten(dg) if ctx.needs_input_grad[1] else None, None, None, None)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Drop-in for ``torch.nn.functional.grid_sample`` (same signature and defaults).

    Parameters
    ----------
    input : Tensor
        [N, C, H, W] or [N, C, D, H, W]; CPU, float32/float64.
    grid : Tensor
        [N, H_out, W_out, 2] or [N, D_out, H_out, W_out, 3], input's dtype.
    mode, padding_mode, align_corners
        As in PyTorch (align_corners=None means False); mode="bicubic" also on
        5-D inputs (tricubic, with gradients; PyTorch has none).

    Returns
    -------
    Tensor
        [N, C, out spatial...], gradients to input and grid by PyTorch's rules.

    Raises
    ------
    ValueError, TypeError
        A tensor not on the CPU, a dtype mismatch, a bad mode or rank.

    Examples
    --------
    >>> x = torch.rand(1, 2, 4, 4, 4, dtype=torch.float64)
    >>> g = torch.zeros(1, 1, 1, 1, 3, dtype=torch.float64, requires_grad=True)
    >>> y = grid_sample(x, g, mode="bicubic")
    >>> tuple(y.shape)
    (1, 2, 1, 1, 1)
    >>> y.sum().backward()
    >>> tuple(g.grad.shape)
    (1, 1, 1, 1, 3)
    """
    _check_tensor("grid_sample", input, "input")
    _check_tensor("grid_sample", grid, "grid")
    if grid.dtype not in _FLOAT:
        raise TypeError(f"dresample.torch.grid_sample: grid has dtype {grid.dtype}; it must be "
                        f"float32 or float64")
    if input.dtype in _FLOAT and grid.dtype != input.dtype:
        raise TypeError(f"dresample.torch.grid_sample: grid has dtype {grid.dtype} but input "
                        f"has {input.dtype}; they must match")
    if mode not in _GRID_MODES:
        raise ValueError(f"dresample.torch.grid_sample: mode must be one of "
                         f"{', '.join(_GRID_MODES)}, got {mode!r}")
    if padding_mode not in _GRID_PADS:
        raise ValueError(f"dresample.torch.grid_sample: padding_mode must be one of "
                         f"{', '.join(_GRID_PADS)}, got {padding_mode!r}")
    if input.dim() not in (4, 5):
        raise ValueError(f"dresample.torch.grid_sample: input must be 4-D or 5-D, got shape "
                         f"{tuple(input.shape)}")
    ac = bool(align_corners) if align_corners is not None else False
    need = torch.is_grad_enabled() and (input.requires_grad or grid.requires_grad)
    if _use_lib(input, grid):
        return _lib_grid(input, grid, mode, padding_mode, ac)
    if not need:
        return _grid_fwd(input, grid, mode, padding_mode, ac)
    return _GridFn.apply(input, grid, mode, padding_mode, ac)


# ------------------------------------------ torch.library custom ops (torch >= 2.4)
if _HAS_LIBRARY:
    from typing import List, Optional, Tuple  # noqa: E402 (schema inference reads these)

    # -- F.interpolate preset.  The scale tensor (when its gradient is wanted)
    # is an input; its values also travel as a float list so that the output
    # shape is known while tracing.
    @torch.library.custom_op("dresample::torch_interpolate", mutates_args=())
    def _op_ti(x: torch.Tensor, scale_t: Optional[torch.Tensor], size: Optional[List[int]],
               scales: Optional[List[float]], mode: str, align_corners: int, recompute: int,
               antialias: bool) -> torch.Tensor:
        return _torch_interp_fwd(x, size, scales, mode, _tri(align_corners), _tri(recompute),
                                 antialias)

    @_op_ti.register_fake
    def _(x, scale_t, size, scales, mode, align_corners, recompute, antialias):
        return x.new_empty(list(x.shape[:2]) + _torch_out_size(x.shape, size, scales))

    @torch.library.custom_op("dresample::torch_interpolate_backward", mutates_args=())
    def _op_ti_bwd(dy: torch.Tensor, x: torch.Tensor, want_scale: bool,
                   size: Optional[List[int]], scales: Optional[List[float]], mode: str,
                   align_corners: int, recompute: int, antialias: bool
                   ) -> Tuple[torch.Tensor, torch.Tensor]:
        ac, rc = _tri(align_corners), _tri(recompute)
        dx = _torch_interp_bwd_input(dy.contiguous(), x, size, scales, mode, ac, rc, antialias)
        g = (_torch_interp_bwd_scale(dy.contiguous(), x, scales, mode, ac, rc, antialias)
             if want_scale else None)
        return dx, _grad_tensor(g, (x.dim() - 2,))

    @_op_ti_bwd.register_fake
    def _(dy, x, want_scale, size, scales, mode, align_corners, recompute, antialias):
        return torch.empty_like(x), x.new_empty([x.dim() - 2], dtype=torch.float64)

    def _ti_setup(ctx, inputs, output):
        x, scale_t, size, scales, mode, ac, rc, aa = inputs
        ctx.save_for_backward(x)
        ctx.args = (size, scales, mode, ac, rc, aa)
        ctx.meta = None if scale_t is None else (scale_t.shape, scale_t.dtype, scale_t.numel())

    def _ti_backward(ctx, dy):
        (x,) = ctx.saved_tensors
        size, scales, mode, ac, rc, aa = ctx.args
        dx, g = _op_ti_bwd(dy, x, ctx.meta is not None, size, scales, mode, ac, rc, aa)
        gs = None
        if ctx.meta is not None:
            shape, dtype, n = ctx.meta
            gs = (g.sum() if n == 1 else g).reshape(shape).to(dtype)
        return dx, gs, None, None, None, None, None, None

    _op_ti.register_autograd(_ti_backward, setup_context=_ti_setup)

    def _tri(v):
        return None if v < 0 else bool(v)

    def _lib_torch_interpolate(x, scale_t, size, scales, mode, ac, rc, aa):
        return _op_ti(x, scale_t, size, scales, mode, -1 if ac is None else int(ac),
                      -1 if rc is None else int(rc), aa)

    # -- grid_sample
    @torch.library.custom_op("dresample::grid_sample", mutates_args=())
    def _op_gs(x: torch.Tensor, grid: torch.Tensor, mode: str, padding_mode: str,
               align_corners: bool) -> torch.Tensor:
        return _grid_fwd(x, grid, mode, padding_mode, align_corners)

    @_op_gs.register_fake
    def _(x, grid, mode, padding_mode, align_corners):
        return x.new_empty(list(x.shape[:2]) + list(grid.shape[1:-1]))

    @torch.library.custom_op("dresample::grid_sample_backward", mutates_args=())
    def _op_gs_bwd(dy: torch.Tensor, x: torch.Tensor, grid: torch.Tensor, mode: str,
                   padding_mode: str, align_corners: bool) -> Tuple[torch.Tensor, torch.Tensor]:
        dx, dg = _grid_bwd(dy.contiguous(), x, grid, mode, padding_mode, align_corners)
        return _ten(dx), _ten(dg)

    @_op_gs_bwd.register_fake
    def _(dy, x, grid, mode, padding_mode, align_corners):
        return torch.empty_like(x), torch.empty_like(grid)

    def _gs_setup(ctx, inputs, output):
        x, grid, mode, pad, ac = inputs
        ctx.save_for_backward(x, grid)
        ctx.args = (mode, pad, ac)

    def _gs_backward(ctx, dy):
        x, grid = ctx.saved_tensors
        dx, dg = _op_gs_bwd(dy, x, grid, *ctx.args)
        return dx, dg, None, None, None

    _op_gs.register_autograd(_gs_backward, setup_context=_gs_setup)

    def _lib_grid(x, grid, mode, pad, ac):
        return _op_gs(x, grid, mode, pad, ac)

    # -- Resize and Interpolate: attributes travel as a JSON string; the output
    # shape for tracing comes from the library on a zero-batch view.
    def _shape_probe(fwd, X, *args):
        probe = X.new_empty([0] + list(X.shape[1:])) if X.dim() > 0 else X
        y = fwd(probe, *args)
        return list(y.shape)

    @torch.library.custom_op("dresample::resize", mutates_args=())
    def _op_rs(X: torch.Tensor, scales_t: Optional[torch.Tensor], roi_t: Optional[torch.Tensor],
               scales: Optional[List[float]], roi: Optional[List[float]],
               sizes: Optional[List[int]], attrs: str) -> torch.Tensor:
        return _resize_fwd(X, scales, roi, sizes, json.loads(attrs))

    @_op_rs.register_fake
    def _(X, scales_t, roi_t, scales, roi, sizes, attrs):
        return X.new_empty(_static_shape("resize", X, scales, roi, sizes, attrs))

    @torch.library.custom_op("dresample::resize_backward", mutates_args=())
    def _op_rs_bwd(dy: torch.Tensor, X: torch.Tensor, scales: Optional[List[float]],
                   roi: Optional[List[float]], sizes: Optional[List[int]], attrs: str
                   ) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        dx, ds, dr = _resize_bwd(dy.contiguous(), X, scales, roi, sizes, json.loads(attrs))
        ns, nr = len(scales or []), len(roi or [])
        return _ten(dx), _grad_tensor(ds, (ns,)), _grad_tensor(dr, (nr,))

    @_op_rs_bwd.register_fake
    def _(dy, X, scales, roi, sizes, attrs):
        return (torch.empty_like(X), X.new_empty([len(scales or [])], dtype=torch.float64),
                X.new_empty([len(roi or [])], dtype=torch.float64))

    def _rs_setup(ctx, inputs, output):
        X, st, rt, scales, roi, sizes, attrs = inputs
        ctx.save_for_backward(X)
        ctx.args = (scales, roi, sizes, attrs)
        ctx.meta = [None if t is None else (t.shape, t.dtype) for t in (st, rt)]

    def _rs_backward(ctx, dy):
        (X,) = ctx.saved_tensors
        dx, ds, dr = _op_rs_bwd(dy, X, *ctx.args)
        out = [dx, None, None, None, None, None, None]
        for k, g in ((1, ds), (2, dr)):
            if ctx.meta[k - 1] is not None:
                shape, dtype = ctx.meta[k - 1]
                out[k] = g.reshape(shape).to(dtype)
        return tuple(out)

    _op_rs.register_autograd(_rs_backward, setup_context=_rs_setup)

    def _lib_resize(X, st, rt, scales, roi, sizes, attrs):
        return _op_rs(X, st, rt, scales, roi, sizes, json.dumps(attrs, sort_keys=True))

    @torch.library.custom_op("dresample::openvino_interpolate", mutates_args=())
    def _op_ov(data: torch.Tensor, scales_t: Optional[torch.Tensor], sizes: Optional[List[int]],
               scales: Optional[List[float]], axes: Optional[List[int]], version: int,
               attrs: str) -> torch.Tensor:
        return _ov_fwd(data, sizes, scales, axes, version, json.loads(attrs))

    @_op_ov.register_fake
    def _(data, scales_t, sizes, scales, axes, version, attrs):
        return data.new_empty(_static_shape("ov", data, sizes, scales, axes, version, attrs))

    @torch.library.custom_op("dresample::openvino_interpolate_backward", mutates_args=())
    def _op_ov_bwd(dy: torch.Tensor, data: torch.Tensor, sizes: Optional[List[int]],
                   scales: Optional[List[float]], axes: Optional[List[int]], version: int,
                   attrs: str) -> Tuple[torch.Tensor, torch.Tensor]:
        dx, ds = _ov_bwd(dy.contiguous(), data, sizes, scales, axes, version, json.loads(attrs))
        n = len(scales or [])
        return _ten(dx), _grad_tensor(ds, (n,))

    @_op_ov_bwd.register_fake
    def _(dy, data, sizes, scales, axes, version, attrs):
        return torch.empty_like(data), data.new_empty([len(scales or [])], dtype=torch.float64)

    def _ov_setup(ctx, inputs, output):
        data, st, sizes, scales, axes, version, attrs = inputs
        ctx.save_for_backward(data)
        ctx.args = (sizes, scales, axes, version, attrs)
        ctx.meta = None if st is None else (st.shape, st.dtype)

    def _ov_backward(ctx, dy):
        (data,) = ctx.saved_tensors
        dx, ds = _op_ov_bwd(dy, data, *ctx.args)
        gs = None
        if ctx.meta is not None:
            gs = ds.reshape(ctx.meta[0]).to(ctx.meta[1])
        return dx, gs, None, None, None, None, None

    _op_ov.register_autograd(_ov_backward, setup_context=_ov_setup)

    def _lib_ov(data, st, sizes, scales, axes, version, attrs):
        return _op_ov(data, st, sizes, scales, axes, version, json.dumps(attrs, sort_keys=True))

    def _static_shape(kind, X, *args):
        """The output shape while tracing, from the library's own shape rule:
        one probe per axis with that axis's real length and length 1 elsewhere
        (an axis's output length depends only on its own input length, except
        with Resize's keep_aspect_ratio_policy, which is not traceable)."""
        shape = [int(s) for s in X.shape]
        attrs = json.loads(args[-1])
        if attrs.get("keep_aspect_ratio_policy", "stretch") != "stretch":
            raise NotImplementedError("dresample: Resize with keep_aspect_ratio_policy is not "
                                      "traceable (its output shape couples the axes)")
        out = []
        for i in range(len(shape)):
            probe = [1] * len(shape)
            probe[i] = shape[i]
            z = np.zeros(probe, dtype=np.float32)  # a real array, also under fake mode
            if kind == "resize":
                scales, roi, sizes, _ = args
                y = _d.resize(z, scales=scales, sizes=sizes, roi=roi, **attrs)
            else:
                sizes, scales, axes, version, _ = args
                y = _d.interpolate(z, sizes=sizes, scales=scales, axes=axes, version=version,
                                   **attrs)
            out.append(int(y.shape[i]))
        return out


# ------------------------------------------------------------------ patch()
class PatchStats:
    """What a patch() saw: calls served by dresample and calls passed to
    PyTorch (with the reason), per function."""

    def __init__(self):
        self.dresample = {"interpolate": 0, "grid_sample": 0}
        self.fallback = {"interpolate": 0, "grid_sample": 0}
        self.reasons = {}

    def _fall(self, fn, why):
        self.fallback[fn] += 1
        key = f"{fn}: {why}"
        self.reasons[key] = self.reasons.get(key, 0) + 1

    def to_dict(self):
        return {"dresample": dict(self.dresample), "fallback": dict(self.fallback),
                "reasons": dict(self.reasons)}

    def __repr__(self):
        return f"PatchStats({self.to_dict()})"


_patch_lock = threading.RLock()
_patch_depth = [0]
_observer = [None]  # compare()'s per-call hook, or None


def _interp_unsupported(input, size, scale_factor, mode, align_corners,
                        recompute_scale_factor, antialias):
    if not isinstance(input, torch.Tensor):
        return "input is not a tensor"
    if input.device.type != "cpu":
        return f"device {input.device}"
    if input.dtype not in _FLOAT and not (input.dtype in _INT and mode in
                                          ("nearest", "nearest-exact")):
        return f"dtype {input.dtype} with mode {mode}"
    if mode not in _TORCH_MODES:
        return f"mode {mode}"
    if input.dim() < 3 or input.dim() > 5:
        return f"rank {input.dim()}"
    if mode in _MODE_RANK and input.dim() != _MODE_RANK[mode]:
        return f"mode {mode} on a {input.dim()}-D input"
    if antialias and mode not in ("bilinear", "bicubic"):
        return f"antialias with mode {mode}"
    if (size is None) == (scale_factor is None):
        return "size/scale_factor both or neither given"
    return None


def _grid_unsupported(input, grid, mode, padding_mode, align_corners):
    if not isinstance(input, torch.Tensor) or not isinstance(grid, torch.Tensor):
        return "arguments are not tensors"
    if input.device.type != "cpu" or grid.device.type != "cpu":
        return f"device {input.device}"
    if input.dtype not in _FLOAT or grid.dtype != input.dtype:
        return f"dtype {input.dtype}/{grid.dtype}"
    if input.dim() not in (4, 5) or grid.dim() != input.dim() or grid.shape[-1] != input.dim() - 2:
        return f"rank {input.dim()}"
    if mode not in _GRID_MODES or padding_mode not in _GRID_PADS:
        return f"mode {mode}/{padding_mode}"
    if mode == "bicubic" and input.dim() == 5:
        return "bicubic on 5-D (PyTorch has none)"
    return None


def _patched_interpolate(stats):
    def interpolate_(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                     recompute_scale_factor=None, antialias=False):
        why = _interp_unsupported(input, size, scale_factor, mode, align_corners,
                                  recompute_scale_factor, antialias)
        if why is not None:
            stats._fall("interpolate", why)
            return _TORCH_INTERPOLATE(input, size, scale_factor, mode, align_corners,
                                      recompute_scale_factor, antialias)
        stats.dresample["interpolate"] += 1
        call = lambda x: interpolate(x, size, scale_factor, mode, align_corners,  # noqa: E731
                                     recompute_scale_factor, antialias)
        obs = _observer[0]
        return call(input) if obs is None else obs("interpolate", call, (input,))
    functools.update_wrapper(interpolate_, _TORCH_INTERPOLATE)
    return interpolate_


def _patched_grid_sample(stats):
    def grid_sample_(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
        why = _grid_unsupported(input, grid, mode, padding_mode, align_corners)
        if why is not None:
            stats._fall("grid_sample", why)
            return _TORCH_GRID_SAMPLE(input, grid, mode, padding_mode, align_corners)
        stats.dresample["grid_sample"] += 1
        call = lambda x, g: grid_sample(x, g, mode, padding_mode, align_corners)  # noqa: E731
        obs = _observer[0]
        return call(input, grid) if obs is None else obs("grid_sample", call, (input, grid))
    functools.update_wrapper(grid_sample_, _TORCH_GRID_SAMPLE)
    return grid_sample_


class patch(contextlib.ContextDecorator):
    """Routes ``torch.nn.functional.interpolate`` and ``grid_sample`` through dresample.

    A context manager and a decorator.  While active, the two functions of
    ``torch.nn.functional`` (hence ``nn.Upsample`` and everything built on
    them) run on dresample's kernels; calls dresample does not support (CUDA
    tensors, other dtypes, modes or ranks) go to PyTorch and are counted in
    ``.stats`` (a :class:`PatchStats`) with their reason.  Patching replaces
    the module attributes: process-wide while active, not per thread.

    Examples
    --------
    >>> up = torch.nn.Upsample(scale_factor=2, mode="bilinear")
    >>> with patch() as p:
    ...     y = up(torch.rand(1, 1, 3, 3))
    >>> p.stats.dresample["interpolate"], p.stats.fallback["interpolate"]
    (1, 0)
    >>> @patch()
    ... def f(x):
    ...     return _F.interpolate(x, scale_factor=2)
    >>> tuple(f(torch.rand(1, 1, 2, 2)).shape)
    (1, 1, 4, 4)
    """

    def __init__(self):
        self.stats = PatchStats()
        self._saved = []

    def __enter__(self):
        with _patch_lock:
            self._saved.append((_F.interpolate, _F.grid_sample))
            _F.interpolate = _patched_interpolate(self.stats)
            _F.grid_sample = _patched_grid_sample(self.stats)
        return self

    def __exit__(self, *exc):
        with _patch_lock:
            _F.interpolate, _F.grid_sample = self._saved.pop()
        return False


# ---------------------------------------------------------------- compare()
class _Tap(torch.autograd.Function):
    """Identity whose backward stores the gradient passing through."""

    @staticmethod
    def forward(ctx, x, slot):
        ctx.slot = slot
        return x.view_as(x)

    @staticmethod
    def backward(ctx, g):
        ctx.slot.append(g.detach().clone())
        return g, None


def _diff(a, b):
    """(max abs difference, max abs difference / max |b|) of two tensors."""
    if a is None or b is None:
        return None
    a = a.detach().double()
    b = b.detach().double()
    if a.shape != b.shape:
        return {"abs": float("inf"), "rel": float("inf"), "shape": [list(a.shape), list(b.shape)]}
    if a.numel() == 0:
        return {"abs": 0.0, "rel": 0.0}
    d = (a - b).abs().max().item()
    m = b.abs().max().item()
    return {"abs": d, "rel": d / m if m > 0 else (0.0 if d == 0 else float("inf"))}


class _Recorder:
    """Records, per call site (file:line of the caller, and the n-th call from
    there), each resampling call's output and the gradients reaching its
    inputs."""

    def __init__(self):
        self.sites = {}
        self.order = []
        self.count = {}

    def __call__(self, fn, call, args):
        f = sys._getframe(2)
        while f is not None and (f.f_code.co_filename == __file__ or
                                 f.f_code.co_filename.endswith(os.path.join("torch", "nn",
                                                                            "functional.py"))):
            f = f.f_back
        where = "?" if f is None else f"{os.path.basename(f.f_code.co_filename)}:{f.f_lineno}"
        base = f"{fn} @ {where}"
        n = self.count.get(base, 0)
        self.count[base] = n + 1
        key = base if n == 0 else f"{base} #{n + 1}"
        slots = []
        tapped = []
        for a in args:
            s = []
            slots.append(s)
            tapped.append(_Tap.apply(a, s) if a.requires_grad and torch.is_grad_enabled() else a)
        y = call(*tapped)
        self.sites[key] = {"output": y.detach().clone(), "grads": slots,
                           "inputs": [tuple(a.shape) for a in args]}
        self.order.append(key)
        return y


def _run_recorded(fn, inputs, kwargs, params, seed, grad_outputs, patched):
    rec = _Recorder()
    ins = [x.detach().clone().requires_grad_(x.requires_grad) if isinstance(x, torch.Tensor)
           else x for x in inputs]
    for _, p in params:
        p.grad = None
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        with _patch_lock:
            ctx = patch() if patched else contextlib.nullcontext()
            old = _observer[0]
            with ctx:
                if not patched:
                    # PyTorch's kernels, observed through the same wrappers
                    saved = (_F.interpolate, _F.grid_sample)

                    def ti(input, size=None, scale_factor=None, mode="nearest",
                           align_corners=None, recompute_scale_factor=None, antialias=False):
                        return rec("interpolate", lambda x: _TORCH_INTERPOLATE(
                            x, size, scale_factor, mode, align_corners, recompute_scale_factor,
                            antialias), (input,))

                    def tg(input, grid, mode="bilinear", padding_mode="zeros",
                           align_corners=None):
                        return rec("grid_sample", lambda x, g: _TORCH_GRID_SAMPLE(
                            x, g, mode, padding_mode, align_corners), (input, grid))
                    _F.interpolate, _F.grid_sample = ti, tg
                _observer[0] = rec
                try:
                    out = fn(*ins, **kwargs)
                finally:
                    _observer[0] = old
                    if not patched:
                        _F.interpolate, _F.grid_sample = saved
                stats = ctx.stats if patched else None
        outs = out if isinstance(out, (tuple, list)) else (out,)
        outs = [o for o in outs if isinstance(o, torch.Tensor)]
        if grad_outputs is None:
            g = torch.Generator().manual_seed(seed + 1)
            grad_outputs = [torch.randn(o.shape, generator=g, dtype=torch.float64).to(o.dtype)
                            for o in outs]
        diffable = [(o, go) for o, go in zip(outs, grad_outputs) if o.requires_grad]
        if diffable:
            torch.autograd.backward([o for o, _ in diffable], [go for _, go in diffable])
    pgrads = {n: (None if p.grad is None else p.grad.detach().clone()) for n, p in params}
    igrads = [x.grad.detach().clone() if isinstance(x, torch.Tensor) and x.grad is not None
              else None for x in ins]
    return rec, [o.detach() for o in outs], pgrads, igrads, grad_outputs, stats


class CompareReport:
    """The result of compare(): differences between PyTorch's kernels (the
    reference) and dresample's on one model evaluation.  ``abs`` is the largest
    absolute difference, ``rel`` that divided by the largest magnitude of the
    PyTorch value.  Print it for a table; ``to_dict()`` for the numbers."""

    def __init__(self, sites, outputs, params, inputs, stats):
        self.sites, self.outputs, self.params, self.inputs, self.stats = (
            sites, outputs, params, inputs, stats)

    def to_dict(self):
        return {"sites": self.sites, "outputs": self.outputs, "params": self.params,
                "inputs": self.inputs, "patch": None if self.stats is None else
                self.stats.to_dict()}

    def max_abs(self):
        """The largest absolute difference anywhere in the report."""
        vals = []
        for s in self.sites.values():
            vals += [v["abs"] for v in [s["output"]] + s["grads"] if v]
        vals += [v["abs"] for v in self.outputs + list(self.params.values()) + self.inputs if v]
        return max(vals) if vals else 0.0

    def __str__(self):
        def f(v):
            return "        -" if v is None else f"{v['abs']:9.2e} {v['rel']:9.2e}"
        lines = [f"{'what':<44} {'abs':>9} {'rel':>9}"]
        lines.append("-" * len(lines[0]))
        for k, s in self.sites.items():
            lines.append(f"{k + ' output':<44} {f(s['output'])}")
            for i, g in enumerate(s["grads"]):
                nm = ["input", "grid"][i] if k.startswith("grid_sample") else "input"
                lines.append(f"{'  d ' + nm:<44} {f(g)}")
        for i, o in enumerate(self.outputs):
            lines.append(f"{'final output ' + str(i):<44} {f(o)}")
        for n, p in self.params.items():
            lines.append(f"{'grad ' + n:<44} {f(p)}")
        for i, g in enumerate(self.inputs):
            if g is not None:
                lines.append(f"{'grad input ' + str(i):<44} {f(g)}")
        if self.stats is not None:
            lines.append(f"dresample calls {self.stats.dresample}, passed to PyTorch "
                         f"{self.stats.fallback}")
            for r, c in self.stats.reasons.items():
                lines.append(f"  passed to PyTorch x{c}: {r}")
        return "\n".join(lines)

    __repr__ = __str__


def compare(fn, *inputs, params=None, grad_outputs=None, seed=0, **kwargs):
    """PyTorch's kernels vs dresample's on one evaluation of a model.

    Runs ``fn(*inputs, **kwargs)`` once with PyTorch's kernels and once under
    :func:`patch`, from the same parameters, inputs and random seed, and
    back-propagates ``grad_outputs`` through both.

    Parameters
    ----------
    fn : callable or torch.nn.Module
    *inputs, **kwargs
        Passed to ``fn``; tensor inputs that require a gradient get theirs compared.
    params : Module, dict or list, optional
        The parameters whose gradients are compared; default
        ``fn.named_parameters()`` when ``fn`` is a Module.
    grad_outputs : list of Tensor, optional
        Default: a seeded standard-normal tensor per output.
    seed : int
        The random seed of both runs (and of the default grad_outputs).

    Returns
    -------
    CompareReport
        Per interpolate/grid_sample call site the differences of its output
        and of the gradients reaching its inputs; the differences of the final
        outputs, of every parameter gradient and of the input gradients.
        Printable as a table; ``.to_dict()``, ``.max_abs()``.

    Examples
    --------
    >>> m = torch.nn.Sequential(torch.nn.Conv2d(1, 2, 3), torch.nn.Upsample(scale_factor=2))
    >>> rep = compare(m, torch.rand(1, 1, 6, 6))
    >>> sorted(rep.to_dict()["params"])
    ['0.bias', '0.weight']
    >>> rep.max_abs() < 1e-5
    True
    """
    if params is None:
        params = list(fn.named_parameters()) if isinstance(fn, torch.nn.Module) else []
    elif isinstance(params, torch.nn.Module):
        params = list(params.named_parameters())
    elif isinstance(params, dict):
        params = list(params.items())
    else:
        params = [(f"param{i}", p) for i, p in enumerate(params)]
    ra, oa, pa, ia, go, _ = _run_recorded(fn, inputs, kwargs, params, seed, grad_outputs, False)
    rb, ob, pb, ib, _, stats = _run_recorded(fn, inputs, kwargs, params, seed, go, True)
    sites = {}
    for k in ra.order:
        a = ra.sites[k]
        b = rb.sites.get(k)
        if b is None:
            sites[k] = {"output": None, "grads": [], "missing": True}
            continue
        grads = []
        for sa, sb in zip(a["grads"], b["grads"]):
            ga = functools.reduce(torch.add, sa) if sa else None
            gb = functools.reduce(torch.add, sb) if sb else None
            grads.append(_diff(gb, ga))
        sites[k] = {"output": _diff(b["output"], a["output"]), "grads": grads}
    outputs = [_diff(y, x) for x, y in zip(oa, ob)]
    pdiff = {n: _diff(pb[n], pa[n]) for n, _ in params}
    idiff = [_diff(y, x) for x, y in zip(ia, ib)]
    return CompareReport(sites, outputs, pdiff, idiff, stats)
