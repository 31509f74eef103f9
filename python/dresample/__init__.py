# SPDX-License-Identifier: MIT
"""dresample: differentiable resampling operators (NumPy API).

ONNX Resize-10..19, OpenVINO Interpolate-1/4/11 and InterpolateBackprop-4,
GridSample (OpenVINO 9, ONNX 16/20/22, 2-D and 3-D) and a PyTorch
``F.interpolate`` preset, with their gradients w.r.t. the data, the scales,
the roi and the grid.  Every function takes array-likes (converted with
``numpy.ascontiguousarray``, so C-contiguous arrays are not copied) and
returns new arrays.  Attribute keywords are the op documents' names; strings,
bools, ints, floats and tuples are accepted.  Bad input raises ``ValueError``
(``TypeError`` for an unsupported dtype or a wrong argument type) carrying the
C library's message; nothing is returned half-written.  The kernels run with
the GIL released.  The whole API is described in docs/python.md.

PyTorch and JAX wrappers live in ``dresample.torch`` and ``dresample.jax``.
"""
import threading as _threading

import numpy as _np

from . import _core

__version__ = _core.version
"""The version of the linked C library (drs_version_string())."""

__all__ = [
    "resize", "resize_backward",
    "interpolate", "interpolate_backward", "interpolate_backprop",
    "grid_sample", "grid_sample_backward",
    "torch_interpolate", "torch_interpolate_backward",
    "set_num_threads", "get_num_threads", "simd_variant", "scratch_release", "scratch_held",
    "__version__",
]

_ALIGN_MIN = 1 << 16  # outputs of this many bytes or more start on a 64-byte boundary
_HUGE_MIN = 2 << 20   # ... and of this many or more on a 2 MiB boundary, in their own block


def _huge(shape, dtype, n):
    """An uninitialised array of n (>= _HUGE_MIN) bytes in a block of its own
    (_core.huge_block): 2 MiB-aligned and advised as huge pages, as PyTorch
    >= 2.2 allocates its large tensors with THP_MEM_ALLOC_ENABLE=1.  The array
    keeps the block alive; the block's memory is freed with the last view."""
    try:
        block = _core.huge_block(n)
    except MemoryError:
        raise MemoryError(f"dresample: cannot allocate an output of shape {_shape_str(shape)} "
                          f"and dtype {dtype} ({n} bytes)") from None
    return _np.frombuffer(block, dtype, n // dtype.itemsize).reshape(shape)


def _shape_str(shape):
    return "[" + ", ".join(str(int(d)) for d in _dims(shape)) + "]"


def _dims(shape):
    """A shape as allocators get it (an int or a sequence of ints) as a tuple."""
    return (shape,) if isinstance(shape, int) else tuple(shape)


def _nbytes(shape, dtype):
    """The size in bytes of an output of that shape and NumPy dtype."""
    return int(_np.prod(_dims(shape), dtype=_np.int64)) * dtype.itemsize


def _empty(shape, dtype):
    """A new uninitialised output (every element is written by the call).

    Large ones start on a 64-byte boundary, as the library's vector stores
    prefer (NumPy's own alignment is 16 bytes: every other 32- or 64-byte store
    would straddle two cache lines); the array is then a view of a slightly
    larger buffer.  Those of 2 MiB or more start on a 2 MiB boundary (_huge):
    where a heap block starts, the output's huge pages and its offset from the
    inputs' pages change from call to call, and its time with them (4-8 % on
    a 48 MiB output)."""
    dtype = _np.dtype(dtype)
    n = _nbytes(shape, dtype)
    if n < _ALIGN_MIN:
        return _np.empty(shape, dtype)
    if n >= _HUGE_MIN:
        return _huge(shape, dtype, n)
    buf = _np.empty(n + 64, _np.uint8)
    k = -buf.ctypes.data % 64
    return buf[k:k + n].view(dtype).reshape(shape)


_local = _threading.local()


def _new(shape, dtype):
    """A new output: _empty, or the allocator the calling thread has set as
    _local.alloc (dresample.torch gets its outputs from torch's own allocator
    this way, as tensors of the framework's kind)."""
    alloc = getattr(_local, "alloc", None)
    return _empty(shape, dtype) if alloc is None else alloc(shape, dtype)


_contig = _np.ascontiguousarray

_RESIZE_ATTRS = ("mode", "coordinate_transformation_mode", "nearest_mode", "cubic_coeff_a",
                 "exclude_outside", "extrapolation_value", "antialias", "axes",
                 "keep_aspect_ratio_policy")
_INTERP_ATTRS = ("mode", "shape_calculation_mode", "coordinate_transformation_mode",
                 "nearest_mode", "antialias", "pads_begin", "pads_end", "cube_coeff",
                 "align_corners")
_RESIZE_SET = frozenset(_RESIZE_ATTRS)
_INTERP_SET = frozenset(_INTERP_ATTRS)


def _grads(grads, every):
    """The set of gradient names asked for (a name or an iterable of names)."""
    if grads is None:
        return set(every)
    return {grads} if isinstance(grads, str) else set(grads)


def _unknown(fn, attrs, known):
    bad = sorted(k for k in attrs if k not in known)
    if bad:
        raise TypeError("%s() got an unexpected keyword argument '%s' (attributes: %s)"
                        % (fn, bad[0], ", ".join(known)))


def _resize_args(fn, roi, scales, sizes, opset, attrs):
    if attrs and not attrs.keys() <= _RESIZE_SET:
        _unknown(fn, attrs, _RESIZE_ATTRS)
    g = attrs.get
    return (roi, scales, sizes, opset, g("mode"), g("coordinate_transformation_mode"),
            g("nearest_mode"), g("cubic_coeff_a"), g("exclude_outside"),
            g("extrapolation_value"), g("antialias"), g("axes"), g("keep_aspect_ratio_policy"))


def _interp_args(fn, sizes, scales, axes, version, attrs):
    if attrs and not attrs.keys() <= _INTERP_SET:
        _unknown(fn, attrs, _INTERP_ATTRS)
    g = attrs.get
    sc = g("shape_calculation_mode")
    if sc is None and version != 1:
        # the mode follows the input given: scales alone means scales mode
        sc = "scales" if sizes is None and scales is not None else "sizes"
    return (sizes, scales, axes, version, g("mode"), sc, g("coordinate_transformation_mode"),
            g("nearest_mode"), g("antialias"), g("pads_begin"), g("pads_end"),
            g("cube_coeff"), g("align_corners"))


def _vec(v):
    """A 1-D input given by the caller: None, or anything NumPy turns into numbers."""
    if v is None or isinstance(v, (tuple, list)):
        return v
    a = _np.asarray(v)
    return a.reshape(-1).tolist() if a.ndim else [a.item()]


# ---------------------------------------------------------------- ONNX Resize

def resize(X, *, scales=None, sizes=None, roi=None, opset=19, **attrs):
    """ONNX Resize (opset 10, 11, 13, 18 or 19).

    X: the data (any rank 1..8; float32, float64, uint8, int8, int32, int64).
    scales, sizes, roi: the op's 1-D inputs (sequences or arrays; None or an
    empty sequence = absent).  attrs: mode, coordinate_transformation_mode,
    cubic_coeff_a, exclude_outside, extrapolation_value, nearest_mode,
    antialias, axes, keep_aspect_ratio_policy (the op's defaults when left out).
    Returns Y, a new array of X's dtype.
    """
    X = _contig(X)
    a = _resize_args("resize", _vec(roi), _vec(scales), _vec(sizes), opset, attrs)
    return _core.resize(_new, X.dtype, X, *a)


def resize_backward(X, output_delta, *, scales=None, sizes=None, roi=None, opset=19,
                    grads=None, **attrs):
    """Gradients of :func:`resize` (float32/float64 data).

    output_delta: d(loss)/dY, Y's shape, X's dtype.  Returns a dict with
    ``X_delta`` (X's shape and dtype), ``scales_delta`` (float64, one per
    scales entry; only when scales are given) and ``roi_delta`` (float64, one
    per roi entry; only when a roi is given).  ``grads``: an iterable of the
    names to compute among "X", "scales", "roi" (default: all that exist).
    """
    X = _contig(X)
    dY = _contig(output_delta)
    roi, scales, sizes = _vec(roi), _vec(scales), _vec(sizes)
    want = _grads(grads, ("X", "scales", "roi"))
    if not want <= {"X", "scales", "roi"}:
        raise ValueError("resize_backward: grads must name X, scales or roi, got %r"
                         % sorted(want - {"X", "scales", "roi"}))
    a = _resize_args("resize_backward", roi, scales, sizes, opset, attrs)
    out = {}
    if "X" in want:
        out["X_delta"] = _new(X.shape, X.dtype)
    if "scales" in want and scales:
        out["scales_delta"] = _new(len(scales), _np.float64)
    if "roi" in want and roi:
        out["roi_delta"] = _new(len(roi), _np.float64)
    _core.resize_backward(out.get("X_delta"), out.get("scales_delta"), out.get("roi_delta"),
                          dY, X, *a)
    return out


# ------------------------------------------------------ OpenVINO Interpolate

def interpolate(data, *, sizes=None, scales=None, axes=None, version=4, **attrs):
    """OpenVINO Interpolate-1, -4 or -11.

    sizes, scales, axes: the op's inputs (Interpolate-1: sizes is
    target_spatial_shape and axes its attribute; Interpolate-11: the one of
    sizes/scales named by shape_calculation_mode is its scales_or_sizes).
    attrs: mode, shape_calculation_mode, coordinate_transformation_mode,
    nearest_mode, antialias, pads_begin, pads_end, cube_coeff and, for
    Interpolate-1, align_corners.  shape_calculation_mode defaults to
    "scales" when only scales are given, else "sizes".  Returns a new array of
    data's dtype.
    """
    data = _contig(data)
    a = _interp_args("interpolate", _vec(sizes), _vec(scales), _vec(axes), version, attrs)
    return _core.interpolate(_new, data.dtype, data, *a)


def _interp_grad(fn, core_fn, data, output_delta, sizes, scales, axes, version, grads, attrs,
                 backprop):
    data = _contig(data)
    dY = _contig(output_delta)
    sizes, scales, axes = _vec(sizes), _vec(scales), _vec(axes)
    want = _grads(grads, ("data", "scales"))
    if not want <= {"data", "scales"}:
        raise ValueError("%s: grads must name data or scales, got %r"
                         % (fn, sorted(want - {"data", "scales"})))
    a = _interp_args(fn, sizes, scales, axes, version, attrs)
    dx = _new(data.shape, data.dtype) if "data" in want else None
    ds = None
    if "scales" in want and a[5] == "scales" and scales is not None:
        ds = _new(len(scales), _np.float64)
    core_fn(dx, ds, dY, data, *a)
    return dx, ds


def interpolate_backward(data, output_delta, *, sizes=None, scales=None, axes=None, version=4,
                         grads=None, **attrs):
    """Gradients of :func:`interpolate` (any version; float32/float64 data).

    Returns ``(data_delta, scales_delta)``: data_delta has data's shape and
    dtype; scales_delta (float64, one per scales entry) is given in scales
    mode only, else None.  ``grads``: the names to compute among "data",
    "scales" (default both); one left out comes back as None.
    """
    return _interp_grad("interpolate_backward", _core.interpolate_backward, data, output_delta,
                        sizes, scales, axes, version, grads, attrs, False)


def interpolate_backprop(data, output_delta, *, sizes=None, scales=None, axes=None,
                         grads=None, **attrs):
    """OpenVINO InterpolateBackprop-4 (the gradient op of Interpolate-4).

    Returns ``(input_delta, scales_delta)``; scales_delta (float64) exists in
    scales mode only (None in sizes mode).  attrs as Interpolate-4.
    """
    return _interp_grad("interpolate_backprop", _core.interpolate_backprop, data, output_delta,
                        sizes, scales, axes, 4, grads, attrs, True)


# ------------------------------------------------------------ PyTorch preset

def _torch_args(size, scale_factor, mode, align_corners, antialias, recompute_scale_factor):
    return (_vec(size), _vec(scale_factor), mode, align_corners, antialias,
            recompute_scale_factor)


def torch_interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                      antialias=False, recompute_scale_factor=None):
    """``torch.nn.functional.interpolate`` on arrays ([N, C, spatial...], 1-3
    spatial axes), with PyTorch's output sizes and values."""
    input = _contig(input)
    return _core.torch_interpolate(
        _new, input.dtype, input,
        *_torch_args(size, scale_factor, mode, align_corners, antialias, recompute_scale_factor))


def torch_interpolate_backward(input, output_delta, size=None, scale_factor=None,
                               mode="nearest", align_corners=None, antialias=False,
                               recompute_scale_factor=None):
    """The input gradient of :func:`torch_interpolate` (float32/float64):
    a new array of input's shape and dtype."""
    input = _contig(input)
    dY = _contig(output_delta)
    dx = _new(input.shape, input.dtype)
    _core.torch_interpolate_backward(
        dx, dY, input,
        *_torch_args(size, scale_factor, mode, align_corners, antialias, recompute_scale_factor))
    return dx


# ---------------------------------------------------------------- GridSample

def grid_sample(X, grid, *, mode="bilinear", padding_mode="zeros", align_corners=False,
                version=9):
    """GridSample: OpenVINO GridSample-9 (version=9) or ONNX GridSample-16/20/22.

    X [N, C, spatial...] (1-3 spatial axes for 20/22, 2 for 9/16); grid
    [N, out spatial..., S] float32/float64, coordinates in [-1, 1], x first.
    mode: "bilinear"/"linear", "nearest", "bicubic"/"cubic" (tricubic on 5-D);
    padding_mode: "zeros", "border", "reflection".  Returns a new array of
    X's dtype.
    """
    X = _contig(X)
    grid = _contig(grid)
    return _core.grid_sample(_new, X.dtype, X, grid, version, mode, padding_mode,
                             align_corners)


def grid_sample_backward(X, grid, output_delta, *, mode="bilinear", padding_mode="zeros",
                         align_corners=False, version=9, grads=None):
    """Gradients of :func:`grid_sample` (float32/float64).

    Returns a dict with ``X_delta`` (X's shape and dtype) and ``grid_delta``
    (grid's shape and dtype).  ``grads``: the names to compute among "X",
    "grid" (default both).
    """
    X = _contig(X)
    grid = _contig(grid)
    dY = _contig(output_delta)
    want = _grads(grads, ("X", "grid"))
    if not want <= {"X", "grid"}:
        raise ValueError("grid_sample_backward: grads must name X or grid, got %r"
                         % sorted(want - {"X", "grid"}))
    out = {}
    if "X" in want:
        out["X_delta"] = _new(X.shape, X.dtype)
    if "grid" in want:
        out["grid_delta"] = _new(grid.shape, grid.dtype)
    _core.grid_sample_backward(out.get("X_delta"), out.get("grid_delta"), dY, X, grid, version,
                               mode, padding_mode, align_corners)
    return out


# ------------------------------------------------------------------- threads

def set_num_threads(n):
    """The library's thread count (0 = OpenMP's default, OMP_NUM_THREADS).
    Results are bitwise identical for any count; the host's OpenMP settings
    are not changed."""
    if isinstance(n, bool) or not isinstance(n, (int, _np.integer)):
        raise TypeError("set_num_threads: n must be an int in [0, 4096], got %r" % (n,))
    _core.set_num_threads(int(n))


def get_num_threads():
    """The value last given to :func:`set_num_threads` (0 if never set)."""
    return _core.get_num_threads()


def scratch_release():
    """Frees the scratch blocks the library keeps between calls.

    Multi-pass resamples (3-D resizes and their gradients) and GridSample's
    backward keep their large scratch blocks (4 MiB or more; at most 4 blocks
    and DRS_SCRATCH_CACHE_MB MiB in all, default 256, read once from the
    environment; 0 keeps none) for the next call, so that a training loop does
    not fault in fresh pages on every call.  Thread-safe; later calls keep
    blocks again."""
    _core.scratch_release()


def scratch_held():
    """The bytes of the scratch blocks the library keeps now (see
    :func:`scratch_release`)."""
    return _core.scratch_held()


def simd_variant():
    """The kernels' SIMD variant in use: "avx512", "avx2" or "baseline" (the
    best the CPU supports, or the one the DRS_SIMD environment variable named
    when the library's first kernel ran). Every variant gives the same bits."""
    return _core.simd_variant()
