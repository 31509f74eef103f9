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

import jax
import jax.numpy as jnp
import numpy as np

import dresample as _d

__all__ = ["resize", "interpolate", "grid_sample"]


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

    @jax.custom_vjp
    def f(X, scales, roi):
        return jax.pure_callback(fwd_cb, jax.ShapeDtypeStruct(out_shape, X.dtype), X, scales, roi)

    def f_fwd(X, scales, roi):
        return f(X, scales, roi), (X, scales, roi)

    def f_bwd(res, dy):
        X, scales, roi = res
        shapes = (jax.ShapeDtypeStruct(X.shape, X.dtype),
                  jax.ShapeDtypeStruct(scales.shape, scales.dtype),
                  jax.ShapeDtypeStruct(roi.shape, roi.dtype))
        return jax.pure_callback(bwd_cb, shapes, X, scales, roi, dy)

    f.defvjp(f_fwd, f_bwd)
    return f


def resize(X, scales=None, sizes=None, roi=None, *, out_shape=None, **attrs):
    """ONNX Resize (opset=10..19, default 19; the op's attributes as keywords),
    differentiable w.r.t. X, scales and roi.  ``sizes`` must be static.
    See https://onnx.ai/onnx/operators/onnx__Resize.html"""
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

    @jax.custom_vjp
    def f(data, scales):
        return jax.pure_callback(fwd_cb, jax.ShapeDtypeStruct(out_shape, data.dtype), data,
                                 scales)

    def f_fwd(data, scales):
        return f(data, scales), (data, scales)

    def f_bwd(res, dy):
        data, scales = res
        shapes = (jax.ShapeDtypeStruct(data.shape, data.dtype),
                  jax.ShapeDtypeStruct(scales.shape, scales.dtype))
        return jax.pure_callback(bwd_cb, shapes, data, scales, dy)

    f.defvjp(f_fwd, f_bwd)
    return f


def _interp_backward(data, dy, sizes, scales, axes, version, kw):
    return _d.interpolate_backward(data, dy, sizes=None if sizes is None else list(sizes),
                                   scales=scales, axes=None if axes is None else list(axes),
                                   version=version, **kw)


def interpolate(data, sizes=None, scales=None, axes=None, version=4, *, out_shape=None,
                **attrs):
    """OpenVINO Interpolate-1/4/11 (the op's attributes as keywords),
    differentiable w.r.t. data and scales.  ``sizes`` and ``axes`` must be static.
    See https://docs.openvino.ai/2024/documentation/openvino-ir-format/operation-sets/operation-specs/image/interpolate-4.html"""
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

    @jax.custom_vjp
    def f(X, grid):
        shape = tuple(X.shape[:2]) + tuple(grid.shape[1:-1])
        return jax.pure_callback(fwd_cb, jax.ShapeDtypeStruct(shape, X.dtype), X, grid)

    def f_fwd(X, grid):
        return f(X, grid), (X, grid)

    def f_bwd(res, dy):
        X, grid = res
        shapes = (jax.ShapeDtypeStruct(X.shape, X.dtype),
                  jax.ShapeDtypeStruct(grid.shape, grid.dtype))
        return jax.pure_callback(bwd_cb, shapes, X, grid, dy)

    f.defvjp(f_fwd, f_bwd)
    return f


def grid_sample(X, grid, mode="bilinear", padding_mode="zeros", align_corners=False,
                version=None):
    """GridSample (PyTorch's grid_sample semantics; 4-D and 5-D, bicubic on 5-D
    is tricubic), differentiable w.r.t. X and grid.  version: 9 (OpenVINO
    GridSample-9), 16, 20 or 22 (ONNX); default 9 for 4-D and 22 otherwise."""
    X, grid = jnp.asarray(X), jnp.asarray(grid)
    _check_dtype("grid_sample", "X", X)
    _check_dtype("grid_sample", "grid", grid)
    if version is None:
        version = 9 if X.ndim == 4 else 22
    return _grid_fn(str(mode), str(padding_mode), bool(align_corners), int(version))(X, grid)
