# SPDX-License-Identifier: MIT
"""Tests of dresample.jax: resize, interpolate and grid_sample under jax.jit,
their gradients (data, scales, roi, grid) against float64 central finite
differences, and the forward against PyTorch's F.grid_sample where PyTorch is
installed."""
import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="JAX is not installed")
pytest.importorskip("dresample", reason="the dresample package is not installed")
dj = pytest.importorskip("dresample.jax", reason="dresample.jax is unavailable")

import jax.numpy as jnp  # noqa: E402

jax.config.update("jax_enable_x64", True)


def rnd(*shape, seed=0):
    return np.random.default_rng(seed).uniform(-1, 1, shape)


def check_grads(loss, args, argnums, h=1e-6, tol=1e-6, seed=0):
    """jax.grad of a jitted scalar loss vs central differences along a random
    direction per argument."""
    grads = jax.jit(jax.grad(loss, argnums=argnums))(*args)
    rng = np.random.default_rng(seed)
    for k, g in zip(argnums, grads):
        v = rng.standard_normal(np.shape(args[k]))
        a = [np.array(x) for x in args]
        ap = list(a)
        am = list(a)
        ap[k] = a[k] + h * v
        am[k] = a[k] - h * v
        fd = (float(loss(*ap)) - float(loss(*am))) / (2 * h)
        an = float(np.sum(np.asarray(g) * v))
        assert abs(an - fd) <= tol * max(1.0, abs(fd)), (k, an, fd)


def test_resize_jit_grads_x_scales():
    X = rnd(1, 2, 6, 7, seed=1)
    w = rnd(1, 2, 10, 16, seed=2)
    s = np.array([1.7, 2.3])  # n/10 with n odd: no output on a kink

    def loss(X, s):
        return jnp.sum(w * dj.resize(X, scales=s, axes=[2, 3], mode="linear",
                                     out_shape=(1, 2, 10, 16)))
    check_grads(loss, (X, s), (0, 1))
    y = jax.jit(lambda X: dj.resize(X, scales=[1.0, 1.0, 1.7, 2.3], mode="cubic"))(X)
    assert y.shape == (1, 2, 10, 16)


def test_resize_roi_grad():
    X = rnd(1, 1, 6, 7, seed=3)
    w = rnd(1, 1, 5, 9, seed=4)
    roi = np.array([0, 0, 0.13, 0.21, 1, 1, 0.87, 0.93])

    def loss(X, roi):
        return jnp.sum(w * dj.resize(X, sizes=[1, 1, 5, 9], roi=roi, mode="linear",
                                     coordinate_transformation_mode="tf_crop_and_resize",
                                     out_shape=(1, 1, 5, 9)))
    check_grads(loss, (X, roi), (0, 1))


def test_interpolate_jit_grads():
    d = rnd(1, 2, 6, 7, seed=5)
    w = rnd(1, 2, 7, 4, seed=6)
    s = np.array([1.3, 0.7])

    def loss(d, s):
        return jnp.sum(w * dj.interpolate(d, scales=s, axes=[2, 3], mode="cubic",
                                          shape_calculation_mode="scales",
                                          out_shape=(1, 2, 7, 4)))
    check_grads(loss, (d, s), (0, 1))


def test_interpolate_concrete_shape():
    d = rnd(1, 1, 4, 5, seed=7)
    y = dj.interpolate(d, sizes=[7, 3], axes=[2, 3], mode="linear_onnx")
    assert y.shape == (1, 1, 7, 3)
    with pytest.raises(ValueError, match="out_shape"):
        jax.jit(lambda s: dj.interpolate(d, scales=s, axes=[2, 3],
                                         shape_calculation_mode="scales"))(np.array([1.5, 1.5]))


@pytest.mark.parametrize("mode,pad", [("bilinear", "zeros"), ("bicubic", "border"),
                                      ("bilinear", "reflection")])
def test_grid_sample_jit_grads(mode, pad):
    X = rnd(2, 3, 5, 6, seed=8)
    g = rnd(2, 4, 3, 2, seed=9) * 0.9
    w = rnd(2, 3, 4, 3, seed=10)

    def loss(X, g):
        return jnp.sum(w * dj.grid_sample(X, g, mode=mode, padding_mode=pad))
    check_grads(loss, (X, g), (0, 1))


def test_grid_sample_5d_tricubic_grads():
    X = rnd(1, 2, 3, 4, 5, seed=11)
    g = rnd(1, 2, 2, 3, 3, seed=12) * 0.9
    w = rnd(1, 2, 2, 2, 3, seed=13)

    def loss(X, g):
        return jnp.sum(w * dj.grid_sample(X, g, mode="bicubic", padding_mode="zeros"))
    check_grads(loss, (X, g), (0, 1))


def test_grid_sample_matches_pytorch():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    X = rnd(2, 3, 5, 6, seed=14)
    g = rnd(2, 4, 3, 2, seed=15) * 1.1
    for mode in ("bilinear", "nearest", "bicubic"):
        ref = torch.nn.functional.grid_sample(torch.from_numpy(X), torch.from_numpy(g), mode=mode,
                                              padding_mode="border", align_corners=False)
        y = jax.jit(lambda X, g: dj.grid_sample(X, g, mode=mode, padding_mode="border"))(X, g)
        np.testing.assert_allclose(np.asarray(y), ref.numpy(), rtol=0, atol=1e-12)


def test_float32_and_errors():
    X = rnd(1, 1, 4, 4, seed=16).astype(np.float32)
    y = dj.resize(X, scales=[1, 1, 2, 2], mode="linear")
    assert y.dtype == jnp.float32 and y.shape == (1, 1, 8, 8)
    with pytest.raises(TypeError, match="int32"):
        dj.grid_sample(np.zeros((1, 1, 2, 2), np.int32), np.zeros((1, 1, 1, 2)))
    with pytest.raises(ValueError, match="scales"):  # the library's message
        dj.resize(X, scales=[1, 1, -2, 2], mode="linear")
    with pytest.raises(ValueError, match="unknown value 'cubicc'"):  # also while tracing
        jax.jit(lambda x: dj.resize(x, scales=[1, 1, 2, 2], mode="cubicc"))(X)
    # a traced bad scale is seen only inside the callback: JAX's runtime error
    # (its class differs between versions), ending with the library's message
    with pytest.raises(Exception, match=r"ValueError: Resize-19: scales\[2\] must be a finite "
                       r"value > 0, got -2"):
        jax.grad(lambda s: dj.resize(X, scales=s, out_shape=(1, 1, 8, 8),
                                     mode="linear").sum())(jnp.array([1.0, 1.0, -2.0, 2.0]))


def test_vmap_over_a_batch_of_grids():
    X = rnd(1, 2, 5, 6, seed=17)
    gs = rnd(3, 1, 4, 3, 2, seed=18) * 0.9
    f = jax.jit(jax.vmap(lambda g: dj.grid_sample(X, g, mode="bilinear")))
    y = f(gs)
    assert y.shape == (3, 1, 2, 4, 3)
    for i in range(3):
        np.testing.assert_array_equal(np.asarray(y[i]), np.asarray(dj.grid_sample(X, gs[i])))


def test_docstring_examples():
    import doctest
    r = doctest.testmod(dj, optionflags=doctest.ELLIPSIS)
    assert r.attempted >= 4 and r.failed == 0, r
