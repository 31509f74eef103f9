# SPDX-License-Identifier: MIT
"""dresample.jax: the dresample kernels as differentiable JAX functions.

resize, interpolate and grid_sample are jax.custom_vjp functions whose forward
and backward run the C library through jax.pure_callback, so they work under
jax.jit and jax.grad (CPU; float32, or float64 with jax_enable_x64).
Gradients flow to the data, to the scales (and roi) of resize/interpolate, and
to the grid of grid_sample.

The output shape must be known when tracing.  It is taken from the library's
shape rule when sizes/scales are concrete values (Python numbers, NumPy
arrays); when the scales are traced (e.g. differentiated under jax.jit), pass
``out_shape=`` (the output size is held fixed when differentiating w.r.t. the
scales, as in the library).
"""
import functools

import numpy as np

try:
    import jax
    import jax.numpy as jnp
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError('dresample.jax needs JAX: pip install "jax[cpu]"') from e

import dresample as _d

__all__ = ["resize", "interpolate", "grid_sample"]


try:
    import inspect as _inspect
    _VMAP = ({"vmap_method": "sequential"}
             if "vmap_method" in _inspect.signature(jax.pure_callback).parameters else {})
except (TypeError, ValueError):
    _VMAP = {}


def _callback(fn, shapes, *args):
    """jax.pure_callback; under jax.vmap the callback runs once per batch entry."""
    return jax.pure_callback(fn, shapes, *args, **_VMAP)


def _vjp(fwd_cb, bwd_cb, out_shape):
    """A jax.custom_vjp function of n arrays whose forward is fwd_cb(*inputs)
    with output shape out_shape(*inputs) (the first input's dtype) and whose
    backward is bwd_cb(*inputs, dy), returning one gradient per input."""
    @jax.custom_vjp
    def f(*inputs):
        return _callback(fwd_cb, jax.ShapeDtypeStruct(out_shape(*inputs), inputs[0].dtype),
                         *inputs)

    def f_fwd(*inputs):
        return f(*inputs), inputs

    def f_bwd(inputs, dy):
        shapes = tuple(jax.ShapeDtypeStruct(a.shape, a.dtype) for a in inputs)
        return _callback(bwd_cb, shapes, *inputs, dy)

    f.defvjp(f_fwd, f_bwd)
    return f


def _concrete(v, name, fn):
    """v as a NumPy float64 array if its value is known now, else None."""
    if v is None:
        return None
    try:
        return np.asarray(v, dtype=np.float64).reshape(-1)
    except (jax.errors.TracerArrayConversionError, jax.errors.ConcretizationTypeError,
            TypeError):
        return None


def _freeze(attrs):
    out = []
    for k in sorted(attrs):
        v = attrs[k]
        if isinstance(v, (list, tuple, np.ndarray)):
            v = tuple(np.asarray(v).tolist())
        out.append((k, v))
    return tuple(out)


def _opt(a):
    """An absent 1-D input is passed through JAX as an empty array."""
    return None if a is None or np.asarray(a).size == 0 else np.asarray(a, dtype=np.float64)


def _probe_shape(run, shape):
    """The output shape from the library's shape rule: one probe per axis with
    that axis's real length and 1 elsewhere (an axis's output length depends
    only on its own input length and the attributes)."""
    out = []
    for i in range(len(shape)):
        p = [1] * len(shape)
        p[i] = int(shape[i])
        out.append(int(run(np.zeros(p, np.float32)).shape[i]))
    return tuple(out)


def _check_dtype(fn, name, x):
    dt = jnp.result_type(x)
    if dt not in (jnp.float32, jnp.float64):
        raise TypeError(f"dresample.jax.{fn}: {name} has dtype {dt}; supported are float32 "
                        f"and float64")
    return dt


# ------------------------------------------------------------------ resize
@functools.lru_cache(maxsize=256)
def _resize_fn(out_shape, sizes, attrs, has_scales, has_roi):
    kw = dict(attrs)

    def fwd_cb(X, scales, roi):
        return np.asarray(_d.resize(np.asarray(X), scales=_opt(scales) if has_scales else None,
                                    sizes=None if sizes is None else list(sizes),
                                    roi=_opt(roi) if has_roi else None, **kw),
                          dtype=np.asarray(X).dtype)

    def bwd_cb(X, scales, roi, dy):
        X = np.asarray(X)
        r = _d.resize_backward(X, np.asarray(dy), scales=_opt(scales) if has_scales else None,
                               sizes=None if sizes is None else list(sizes),
                               roi=_opt(roi) if has_roi else None, **kw)
        ds = r.get("scales_delta")
        dr = r.get("roi_delta")
        return (np.asarray(r["X_delta"], X.dtype),
                np.zeros(np.shape(scales), np.asarray(scales).dtype) if ds is None else
                np.asarray(ds).astype(np.asarray(scales).dtype).reshape(np.shape(scales)),
                np.zeros(np.shape(roi), np.asarray(roi).dtype) if dr is None else
                np.asarray(dr).astype(np.asarray(roi).dtype).reshape(np.shape(roi)))

    return _vjp(fwd_cb, bwd_cb, lambda *_: out_shape)


def resize(X, scales=None, sizes=None, roi=None, *, out_shape=None, **attrs):
    """ONNX Resize (https://onnx.ai/onnx/operators/onnx__Resize.html), differentiable.

    Parameters
    ----------
    X : array
        float32 (float64 with jax_enable_x64).
    scales, roi : array, optional
        Differentiable 1-D inputs (the output size is held fixed).
    sizes : sequence of int, optional
        Static.
    out_shape : tuple of int, optional
        The output shape; needed when scales/roi are traced (e.g. differentiated
        under jax.jit), else taken from the library's shape rule.
    **attrs
        ``opset`` (default 19) and the op's attributes, as dresample.resize.

    Returns
    -------
    array
        Y, X's dtype; gradients to X, scales and roi.

    Raises
    ------
    ValueError, TypeError
        Traced scales without out_shape, a bad dtype, the library's message.

    Examples
    --------
    >>> y = resize(np.ones((1, 1, 2, 2), np.float32), scales=[1, 1, 2, 2], mode="linear")
    >>> y.shape
    (1, 1, 4, 4)
    """
    X = jnp.asarray(X)
    _check_dtype("resize", "X", X)
    sz = None if sizes is None else tuple(int(v) for v in np.asarray(sizes).reshape(-1))
    fa = _freeze(attrs)
    if out_shape is None:
        cs, cr = _concrete(scales, "scales", "resize"), _concrete(roi, "roi", "resize")
        if (scales is not None and cs is None) or (roi is not None and cr is None):
            raise ValueError("dresample.jax.resize: scales/roi are traced values, so the output "
                             "shape is unknown: pass out_shape=")
        out_shape = _probe_shape(lambda z: _d.resize(z, scales=_opt(cs), sizes=sz, roi=_opt(cr),
                                                     **attrs), X.shape)
    dt = X.dtype
    s = jnp.zeros((0,), dt) if scales is None else jnp.asarray(scales, dt).reshape(-1)
    r = jnp.zeros((0,), dt) if roi is None else jnp.asarray(roi, dt).reshape(-1)
    f = _resize_fn(tuple(int(v) for v in out_shape), sz, fa, scales is not None, roi is not None)
    return f(X, s, r)


# ------------------------------------------------------------- interpolate
@functools.lru_cache(maxsize=256)
def _interp_fn(out_shape, sizes, axes, version, attrs, has_scales):
    kw = dict(attrs)

    def fwd_cb(data, scales):
        data = np.asarray(data)
        return np.asarray(_d.interpolate(data, sizes=None if sizes is None else list(sizes),
                                         scales=_opt(scales) if has_scales else None,
                                         axes=None if axes is None else list(axes),
                                         version=version, **kw), dtype=data.dtype)

    def bwd_cb(data, scales, dy):
        data = np.asarray(data)
        sdt = np.asarray(scales).dtype
        dx, ds = _interp_backward(data, np.asarray(dy), sizes, _opt(scales) if has_scales
                                  else None, axes, version, kw)
        return (np.asarray(dx, data.dtype),
                np.zeros(np.shape(scales), sdt) if ds is None else
                np.asarray(ds).astype(sdt).reshape(np.shape(scales)))

    return _vjp(fwd_cb, bwd_cb, lambda *_: out_shape)


def _interp_backward(data, dy, sizes, scales, axes, version, kw):
    return _d.interpolate_backward(data, dy, sizes=None if sizes is None else list(sizes),
                                   scales=scales, axes=None if axes is None else list(axes),
                                   version=version, **kw)


def interpolate(data, sizes=None, scales=None, axes=None, version=4, *, out_shape=None,
                **attrs):
    """OpenVINO Interpolate-1/4/11 (https://docs.openvino.ai/2024/documentation/openvino-ir-format/operation-sets/operation-specs/image/interpolate-4.html), differentiable.

    Parameters
    ----------
    data : array
    sizes, axes : sequence of int, optional
        Static.
    scales : array, optional
        Differentiable (scales mode).
    version : int
        1, 4 or 11.
    out_shape : tuple of int, optional
        Needed when scales are traced.
    **attrs
        The op's attributes, as dresample.interpolate.

    Returns
    -------
    array
        The output, data's dtype; gradients to data and scales.

    Raises
    ------
    ValueError, TypeError
        As :func:`resize`.

    Examples
    --------
    >>> d = np.ones((1, 1, 4, 4), np.float32)
    >>> interpolate(d, sizes=[2, 3], axes=[2, 3], mode="linear_onnx").shape
    (1, 1, 2, 3)
    """
    data = jnp.asarray(data)
    _check_dtype("interpolate", "data", data)
    sz = None if sizes is None else tuple(int(v) for v in np.asarray(sizes).reshape(-1))
    ax = None if axes is None else tuple(int(v) for v in np.asarray(axes).reshape(-1))
    fa = _freeze(attrs)
    if out_shape is None:
        cs = _concrete(scales, "scales", "interpolate")
        if scales is not None and cs is None:
            raise ValueError("dresample.jax.interpolate: scales are traced values, so the output "
                             "shape is unknown: pass out_shape=")
        out_shape = _probe_shape(lambda z: _d.interpolate(
            z, sizes=None if sz is None else list(sz), scales=_opt(cs),
            axes=None if ax is None else list(ax), version=int(version), **attrs), data.shape)
    s = (jnp.zeros((0,), data.dtype) if scales is None else
         jnp.asarray(scales, data.dtype).reshape(-1))
    f = _interp_fn(tuple(int(v) for v in out_shape), sz, ax, int(version), fa,
                   scales is not None)
    return f(data, s)


# ------------------------------------------------------------- grid_sample
@functools.lru_cache(maxsize=256)
def _grid_fn(mode, padding_mode, align_corners, version):
    kw = dict(mode=mode, padding_mode=padding_mode, align_corners=align_corners,
              version=version)

    def fwd_cb(X, grid):
        X = np.asarray(X)
        return np.asarray(_d.grid_sample(X, np.asarray(grid), **kw), dtype=X.dtype)

    def bwd_cb(X, grid, dy):
        X, grid = np.asarray(X), np.asarray(grid)
        r = _d.grid_sample_backward(X, grid, np.asarray(dy), **kw)
        return np.asarray(r["X_delta"], X.dtype), np.asarray(r["grid_delta"], grid.dtype)

    return _vjp(fwd_cb, bwd_cb,
                lambda X, grid: tuple(X.shape[:2]) + tuple(grid.shape[1:-1]))


def grid_sample(X, grid, mode="bilinear", padding_mode="zeros", align_corners=False,
                version=None):
    """GridSample (PyTorch's grid_sample semantics), differentiable w.r.t. X and grid.

    Parameters
    ----------
    X : array
        [N, C, spatial...], 1-3 spatial axes (bicubic on 5-D is tricubic).
    grid : array
        [N, out spatial..., S], coordinates in [-1, 1], x first.
    mode, padding_mode, align_corners
        As PyTorch's grid_sample.
    version : int, optional
        9 (OpenVINO GridSample-9), 16, 20 or 22 (ONNX); default 9 for 4-D
        and 22 otherwise.

    Returns
    -------
    array
        [N, C, out spatial...]; gradients to X and grid.

    Raises
    ------
    TypeError, ValueError
        A non-float dtype, the library's message.

    Examples
    --------
    >>> X = np.arange(4.0, dtype=np.float32).reshape(1, 1, 2, 2)
    >>> y = grid_sample(X, np.zeros((1, 1, 1, 2), np.float32), align_corners=True)
    >>> float(y[0, 0, 0, 0])
    1.5
    """
    X, grid = jnp.asarray(X), jnp.asarray(grid)
    _check_dtype("grid_sample", "X", X)
    _check_dtype("grid_sample", "grid", grid)
    if version is None:
        version = 9 if X.ndim == 4 else 22
    return _grid_fn(str(mode), str(padding_mode), bool(align_corners), int(version))(X, grid)
