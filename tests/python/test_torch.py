# SPDX-License-Identifier: MIT
"""Tests of dresample.torch: forward and autograd against PyTorch's own
F.interpolate / F.grid_sample for every preset mode, torch.autograd.gradcheck
(float64 finite differences) on every wrapper and every differentiable input
(data, grid, scales, roi, a learnable scale_factor), patch() on a small U-Net,
compare() catching a planted wrong gradient, and the error paths."""
import math

import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed")
pytest.importorskip("dresample", reason="the dresample package is not installed")
dt = pytest.importorskip("dresample.torch", reason="dresample.torch is unavailable")

import torch.nn.functional as F  # noqa: E402

D = torch.float64


def rnd(*shape, seed=0, dtype=D):
    g = torch.Generator().manual_seed(seed)
    return torch.rand(shape, generator=g, dtype=torch.float64).mul(2).sub(1).to(dtype)


def close(a, b, tol=1e-12):
    assert a.shape == b.shape, (a.shape, b.shape)
    err = (a.double() - b.double()).abs().max().item() if a.numel() else 0.0
    assert err <= tol * max(1.0, b.double().abs().max().item()), err


# ---------------------------------------------------------------- interpolate
# (shape, kwargs) per preset mode; sizes off the trivial ratios on purpose
INTERP_CASES = [
    ((2, 3, 7), dict(mode="nearest", scale_factor=2.3)),
    ((2, 3, 5, 6), dict(mode="nearest", size=(9, 4))),
    ((1, 2, 3, 4, 5), dict(mode="nearest", scale_factor=1.7)),
    ((2, 3, 5, 6), dict(mode="nearest-exact", size=(11, 3))),
    ((2, 3, 7), dict(mode="linear", scale_factor=1.6, align_corners=False)),
    ((2, 3, 7), dict(mode="linear", size=12, align_corners=True)),
    ((2, 3, 5, 6), dict(mode="bilinear", scale_factor=(2.5, 1.5), align_corners=False)),
    ((2, 3, 5, 6), dict(mode="bilinear", size=(8, 9), align_corners=True)),
    ((2, 3, 12, 11), dict(mode="bilinear", size=(5, 4), antialias=True, align_corners=False)),
    ((2, 3, 5, 6), dict(mode="bicubic", scale_factor=1.7, align_corners=False)),
    ((2, 3, 5, 6), dict(mode="bicubic", size=(8, 9), align_corners=True)),
    ((2, 3, 12, 11), dict(mode="bicubic", size=(5, 6), antialias=True, align_corners=False)),
    ((1, 2, 3, 4, 5), dict(mode="trilinear", scale_factor=(1.5, 2.0, 0.6), align_corners=False)),
    ((1, 2, 3, 4, 5), dict(mode="trilinear", size=(5, 3, 7), align_corners=True)),
    ((2, 3, 9, 10), dict(mode="area", size=(4, 3))),
    ((2, 3, 9), dict(mode="area", size=5)),
]


@pytest.mark.parametrize("shape,kw", INTERP_CASES, ids=lambda v: str(v))
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_interpolate_matches_pytorch(shape, kw, dtype):
    x = rnd(*shape, seed=1, dtype=dtype).requires_grad_()
    xr = x.detach().clone().requires_grad_()
    y = dt.interpolate(x, **kw)
    yr = F.interpolate(xr, **kw)
    close(y, yr, 1e-5 if dtype == torch.float32 else 1e-12)
    dy = rnd(*yr.shape, seed=2, dtype=dtype)
    try:
        yr.backward(dy)
    except (RuntimeError, NotImplementedError) as e:  # e.g. no antialias backward
        pytest.skip(f"PyTorch has no backward here: {e}")
    y.backward(dy)
    close(x.grad, xr.grad, 1e-5 if dtype == torch.float32 else 1e-12)


def test_interpolate_integer_forward():
    x = (rnd(2, 3, 5, 6, seed=3) * 100 + 120).to(torch.uint8)
    for kw in (dict(mode="nearest", scale_factor=2.4), dict(mode="nearest-exact", size=(7, 3))):
        assert torch.equal(dt.interpolate(x, **kw), F.interpolate(x, **kw))


def test_zero_copy_input():
    x = rnd(2, 3, 4, 5)
    assert dt._arr(x).ctypes.data == x.data_ptr()
    y = dt.interpolate(x, scale_factor=2.0, mode="bilinear")
    assert y.is_contiguous() and y.dtype == x.dtype


def test_outputs_from_torch_allocator():
    # outputs and gradients are torch.empty's (64-byte aligned at every size;
    # NumPy aligns small arrays to 16 bytes only)
    ptrs = []
    for n in range(1, 9):
        x = rnd(1, 1, n, n + 1).requires_grad_()
        g = (torch.rand(1, n, 2, 2, generator=torch.Generator().manual_seed(n)) * 2 - 1)
        g = g.to(torch.float64).requires_grad_()
        y = dt.interpolate(x, scale_factor=2.0, mode="bilinear")
        z = dt.grid_sample(x, g, mode="bilinear", align_corners=False)
        gx, gg = torch.autograd.grad(z.sum(), (x, g))
        ptrs += [y.data_ptr(), z.data_ptr(), gx.data_ptr(), gg.data_ptr()]
    assert all(p % 64 == 0 for p in ptrs), [p % 64 for p in ptrs]


def test_large_outputs_aligned_and_exact():
    # outputs and gradients of 2 MiB or more start on a 2 MiB boundary (a block
    # of their own, whatever the PyTorch version), match PyTorch's, and live
    # on through autograd and views
    x = rnd(1, 3, 256, 512, seed=4, dtype=torch.float32).requires_grad_()   # 1.5 MiB
    xr = x.detach().clone().requires_grad_()
    y = dt.interpolate(x, scale_factor=2.0, mode="bilinear", align_corners=False)  # 6 MiB
    yr = F.interpolate(xr, scale_factor=2.0, mode="bilinear", align_corners=False)
    assert y.data_ptr() % (2 << 20) == 0 and y.is_contiguous() and y.storage_offset() == 0
    close(y, yr, 1e-5)
    dy = rnd(*y.shape, seed=5, dtype=torch.float32)
    y.backward(dy)
    yr.backward(dy)
    close(x.grad, xr.grad, 1e-5)
    x2 = rnd(1, 4, 512, 256, seed=6, dtype=torch.float32).requires_grad_()  # 2 MiB
    g = rnd(1, 300, 400, 2, seed=7, dtype=torch.float32)
    z = dt.grid_sample(x2, g, mode="bilinear", align_corners=False)          # 1.8 MiB
    (gx,) = torch.autograd.grad(z.sum(), x2)
    assert gx.data_ptr() % (2 << 20) == 0
    close(gx, torch.autograd.grad(F.grid_sample(x2, g, mode="bilinear",
                                                align_corners=False).sum(), x2)[0], 1e-4)
    tail = y.detach()[0, 2, 400:]
    keep = tail.clone()
    del y, yr
    for _ in range(3):
        with torch.no_grad():
            dt.interpolate(x, scale_factor=2.0, mode="bilinear").fill_(7.0)
    assert torch.equal(tail, keep)


@pytest.mark.skipif(not hasattr(torch, "set_default_device"),
                    reason="PyTorch < 2.0 has no default device")
def test_cpu_tensors_under_another_default_device():
    # a user's default device (torch.device context / set_default_device)
    # must not move the wrappers' outputs or gradients off the CPU
    x = rnd(1, 2, 5, 6).requires_grad_()
    s = torch.tensor(1.5, dtype=D, requires_grad=True)
    g = (torch.rand(1, 4, 3, 2, generator=torch.Generator().manual_seed(1), dtype=D) * 2 - 1)
    g.requires_grad_()
    sc = torch.tensor([1.0, 1.0, 1.5, 2.0], dtype=D)

    def run():
        y = dt.interpolate(x, scale_factor=s, mode="bilinear", align_corners=False)
        z = dt.grid_sample(x, g, mode="bilinear", align_corners=False)
        w = dt.resize(x, scales=sc, mode="linear")
        grads = torch.autograd.grad(y.sum() + z.sum() + w.sum(), (x, s, g))
        return [y, z, w] + list(grads)

    want = run()
    with torch.device("meta"):
        got = run()
    for a, b in zip(got, want):
        assert a.device.type == "cpu"
        assert torch.equal(a, b)


def test_noncontiguous_input():
    x = rnd(2, 5, 4, 3).permute(0, 3, 2, 1)  # [2, 3, 4, 5], not contiguous
    close(dt.interpolate(x, size=(6, 7), mode="bilinear"),
          F.interpolate(x, size=(6, 7), mode="bilinear"))


# ---------------------------------------------------------------- gradcheck
def gc(fn, *inputs):
    assert torch.autograd.gradcheck(fn, inputs, eps=1e-6, atol=1e-7, rtol=1e-6)


@pytest.mark.parametrize("kw", [
    dict(mode="linear", scale_factor=1.7), dict(mode="bilinear", scale_factor=(1.7, 2.3)),
    dict(mode="bilinear", size=(4, 3), antialias=True), dict(mode="bicubic", scale_factor=1.3),
    dict(mode="bicubic", size=(4, 3), antialias=True), dict(mode="trilinear", size=(4, 5, 3)),
    dict(mode="area", size=(3, 2)), dict(mode="nearest", scale_factor=1.5),
])
def test_gradcheck_interpolate_input(kw):
    rank = {"linear": 3, "trilinear": 5}.get(kw["mode"], 4)
    x = rnd(*[1, 2, 5, 6, 4][:rank], seed=4).requires_grad_()
    gc(lambda x: dt.interpolate(x, **kw), x)


@pytest.mark.parametrize("mode,shape,s", [
    ("linear", (1, 2, 7), [2.3]), ("bilinear", (1, 2, 5, 6), [1.7, 2.3]),
    ("bilinear", (1, 2, 5, 6), [1.7]), ("bicubic", (1, 2, 5, 6), [1.3, 0.7]),
    ("trilinear", (1, 1, 3, 4, 5), [1.3, 1.7, 0.9]),
    ("bilinear-aa", (1, 2, 13, 11), [0.47, 0.37]),
    ("bicubic-aa", (1, 2, 13, 11), [0.47, 0.37]),
    ("bilinear", (1, 2, 5, 6), [1.1, 1.3]),  # an axis copied (floor(5 * 1.1) == 5)
])
def test_gradcheck_learnable_scale_factor(mode, shape, s):
    aa = mode.endswith("-aa")
    mode = mode.split("-")[0]
    x = rnd(*shape, seed=5).requires_grad_()
    sf = torch.tensor(s[0] if len(s) == 1 else s, dtype=D, requires_grad=True)
    y = dt.interpolate(x, scale_factor=sf, mode=mode, antialias=aa)
    assert list(y.shape[2:]) == [math.floor(L * v) for L, v in
                                 zip(shape[2:], s * (len(shape) - 2) if len(s) == 1 else s)]
    gc(lambda x, sf: dt.interpolate(x, scale_factor=sf, mode=mode, antialias=aa), x, sf)


def test_scale_factor_gradient_is_zero_where_documented():
    x = rnd(1, 2, 5, 6, seed=6)
    for kw in (dict(mode="nearest"), dict(mode="nearest-exact"),
               dict(mode="bilinear", align_corners=True)):
        sf = torch.tensor([1.7, 2.3], dtype=D, requires_grad=True)
        dt.interpolate(x, scale_factor=sf, **kw).sum().backward()
        assert torch.equal(sf.grad, torch.zeros(2, dtype=D)), kw


def test_scale_factor_gradient_vs_finite_difference_by_hand():
    # d/ds of sum(w * y) at fixed output size, central differences on s
    x = rnd(1, 1, 6, 5, seed=7)
    w = rnd(1, 1, 13, 11, seed=8)
    s0 = 2.25
    sf = torch.tensor(s0, dtype=D, requires_grad=True)
    (dt.interpolate(x, scale_factor=sf, mode="bilinear") * w).sum().backward()
    h = 1e-6
    def f(s):
        return (dt.interpolate(x, scale_factor=s, mode="bilinear") * w).sum()
    fd = (f(s0 + h) - f(s0 - h)) / (2 * h)
    assert abs(sf.grad.item() - fd.item()) < 1e-6 * max(1, abs(fd.item()))


# Scale factors n/10 with n odd: no output lands exactly on an input sample or
# a tap boundary (the kinks of linear interpolation, where the derivative is
# one-sided), and floor(L * s) does not change under the finite-difference step.
@pytest.mark.parametrize("attrs,s", [
    (dict(mode="linear"), [1.7, 2.3]),
    (dict(mode="cubic"), [1.3, 0.7]),
    (dict(mode="linear", coordinate_transformation_mode="align_corners"), [1.7, 2.3]),
    (dict(mode="cubic", antialias=1), [0.7, 0.9]),
    (dict(mode="linear", coordinate_transformation_mode="pytorch_half_pixel"), [0.7, 1.3]),
])
def test_gradcheck_resize_scales(attrs, s):
    X = rnd(1, 2, 9, 7, seed=9).requires_grad_()
    sc = torch.tensor(s, dtype=D, requires_grad=True)
    gc(lambda X, sc: dt.resize(X, scales=sc, axes=[2, 3], **attrs), X, sc)
    sc4 = torch.tensor([1.0, 1.0] + s, dtype=D)  # full-rank scales, X only
    gc(lambda X: dt.resize(X, scales=sc4, **attrs), X)


def test_gradcheck_resize_roi_and_sizes():
    X = rnd(1, 2, 6, 7, seed=10).requires_grad_()
    roi = torch.tensor([0, 0.1, 0.13, 0.21, 1, 0.9, 0.87, 0.93], dtype=D, requires_grad=True)
    gc(lambda X, roi: dt.resize(X, sizes=[1, 2, 5, 9], roi=roi, mode="linear",
                                coordinate_transformation_mode="tf_crop_and_resize"), X, roi)
    gc(lambda X: dt.resize(X, sizes=[1, 2, 9, 4], mode="cubic"), X)


@pytest.mark.parametrize("version,attrs,kw", [
    (4, dict(mode="linear_onnx", shape_calculation_mode="scales"),
     dict(scales=[1.7, 2.3], axes=[2, 3])),
    (4, dict(mode="cubic", shape_calculation_mode="scales"), dict(scales=[1.3, 0.7], axes=[2, 3])),
    (4, dict(mode="linear", shape_calculation_mode="scales"), dict(scales=[0.7, 1.3], axes=[2, 3])),
    (11, dict(mode="linear_onnx", shape_calculation_mode="scales"),
     dict(scales=[1.7, 2.3], axes=[2, 3])),
])
def test_gradcheck_openvino_interpolate(version, attrs, kw):
    data = rnd(1, 2, 6, 7, seed=11).requires_grad_()
    sc = torch.tensor(kw["scales"], dtype=D, requires_grad=True)
    gc(lambda d, s: dt.openvino_interpolate(d, scales=s, axes=kw["axes"], version=version,
                                            **attrs), data, sc)


def test_openvino_interpolate_sizes_mode():
    data = rnd(1, 2, 6, 7, seed=12).requires_grad_()
    gc(lambda d: dt.openvino_interpolate(d, sizes=[9, 4], axes=[2, 3], mode="cubic"), data)


# ---------------------------------------------------------------- grid_sample
def grid(*shape, seed, lim=0.95):
    return rnd(*shape, seed=seed) * lim


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("pad", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("ac", [False, True])
def test_grid_sample_matches_pytorch(mode, pad, ac):
    x = rnd(2, 3, 5, 6, seed=13).requires_grad_()
    g = (grid(2, 4, 7, 2, seed=14, lim=1.2)).requires_grad_()
    xr = x.detach().clone().requires_grad_()
    gr = g.detach().clone().requires_grad_()
    y = dt.grid_sample(x, g, mode=mode, padding_mode=pad, align_corners=ac)
    yr = F.grid_sample(xr, gr, mode=mode, padding_mode=pad, align_corners=ac)
    close(y, yr)
    dy = rnd(*y.shape, seed=15)
    y.backward(dy)
    yr.backward(dy)
    close(x.grad, xr.grad)
    close(g.grad, gr.grad, 1e-10)


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
def test_grid_sample_5d_matches_pytorch(mode):
    x = rnd(1, 2, 3, 4, 5, seed=16).requires_grad_()
    g = grid(1, 2, 3, 4, 3, seed=17).requires_grad_()
    xr, gr = x.detach().clone().requires_grad_(), g.detach().clone().requires_grad_()
    y = dt.grid_sample(x, g, mode=mode, padding_mode="border", align_corners=False)
    yr = F.grid_sample(xr, gr, mode=mode, padding_mode="border", align_corners=False)
    close(y, yr)
    dy = rnd(*y.shape, seed=18)
    y.backward(dy)
    yr.backward(dy)
    close(x.grad, xr.grad)
    close(g.grad, gr.grad, 1e-10)


@pytest.mark.parametrize("rank,mode,pad", [(4, "bilinear", "zeros"), (4, "bicubic", "border"),
                                           (4, "bilinear", "reflection"),
                                           (5, "bilinear", "zeros"), (5, "bicubic", "zeros"),
                                           (5, "bicubic", "reflection")])
def test_gradcheck_grid_sample(rank, mode, pad):
    xs = [1, 2, 4, 5] if rank == 4 else [1, 2, 3, 4, 5]
    gs = [1, 3, 4, 2] if rank == 4 else [1, 2, 3, 2, 3]
    x = rnd(*xs, seed=19).requires_grad_()
    g = grid(*gs, seed=20, lim=0.9).requires_grad_()
    gc(lambda x, g: dt.grid_sample(x, g, mode=mode, padding_mode=pad, align_corners=False), x, g)


def test_tricubic_is_not_trilinear():
    x = rnd(1, 1, 4, 4, 4, seed=21)
    g = grid(1, 2, 2, 2, 3, seed=22, lim=0.5)
    a = dt.grid_sample(x, g, mode="bicubic")
    b = dt.grid_sample(x, g, mode="bilinear")
    assert (a - b).abs().max() > 1e-3


# ---------------------------------------------------------------- patch()
class TinyUNet(torch.nn.Module):
    """conv down, bilinear upsampling (nn.Upsample and F.interpolate), a skip,
    and a learned affine warp through F.grid_sample."""

    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(23)
        self.down = torch.nn.Conv2d(2, 4, 3, stride=2, padding=1).double()
        self.mid = torch.nn.Conv2d(4, 4, 3, padding=1).double()
        self.up = torch.nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)
        self.out = torch.nn.Conv2d(6, 2, 3, padding=1).double()
        self.theta = torch.nn.Parameter(torch.tensor([[1.0, 0.1, 0.05], [-0.08, 0.95, 0.02]],
                                                     dtype=D))
        for p in self.parameters():
            with torch.no_grad():
                p.copy_(torch.rand(p.shape, generator=g, dtype=D) - 0.5 if p is not self.theta
                        else p)

    def forward(self, x):
        h = torch.tanh(self.down(x))
        h = torch.tanh(self.mid(h))
        u = self.up(h)
        u2 = F.interpolate(h, size=x.shape[2:], mode="bicubic", align_corners=True)
        y = self.out(torch.cat([u + u2, x], 1))
        grid = F.affine_grid(self.theta.expand(x.shape[0], 2, 3), list(y.shape),
                             align_corners=False)
        return F.grid_sample(y, grid, mode="bilinear", padding_mode="border",
                             align_corners=False)


def run_model(m, x):
    m.zero_grad()
    xx = x.clone().requires_grad_()
    y = m(xx)
    y.backward(rnd(*y.shape, seed=24))
    return y.detach(), {n: p.grad.clone() for n, p in m.named_parameters()}, xx.grad


def test_patch_unet_matches_pytorch():
    m = TinyUNet()
    x = rnd(2, 2, 8, 10, seed=25)
    y0, g0, gx0 = run_model(m, x)
    with dt.patch() as p:
        assert F.interpolate is not dt._TORCH_INTERPOLATE
        y1, g1, gx1 = run_model(m, x)
    assert F.interpolate is dt._TORCH_INTERPOLATE and F.grid_sample is dt._TORCH_GRID_SAMPLE
    assert p.stats.dresample == {"interpolate": 2, "grid_sample": 1}, p.stats
    assert p.stats.fallback == {"interpolate": 0, "grid_sample": 0}, p.stats
    close(y1, y0)
    close(gx1, gx0, 1e-10)
    for n in g0:
        close(g1[n], g0[n], 1e-10)


def test_patch_decorator_and_fallback():
    calls = []

    @dt.patch()
    def f(x):
        calls.append(F.interpolate is not dt._TORCH_INTERPOLATE)
        return F.interpolate(x, scale_factor=2, mode="bilinear")

    x = rnd(1, 1, 3, 3, seed=26)
    close(f(x), F.interpolate(x, scale_factor=2, mode="bilinear"))
    assert calls == [True]
    with dt.patch() as p:
        xb = x.to(torch.bfloat16)
        try:
            F.interpolate(xb, scale_factor=2, mode="nearest")
        except RuntimeError:
            pass  # this PyTorch has no bfloat16 kernel: the call still went to it
    assert p.stats.fallback["interpolate"] == 1 and p.stats.dresample["interpolate"] == 0
    assert any("bfloat16" in r for r in p.stats.reasons)


# ---------------------------------------------------------------- compare()
def test_compare_clean_and_planted(monkeypatch):
    m = TinyUNet()
    x = rnd(2, 2, 8, 10, seed=27).requires_grad_()
    rep = dt.compare(m, x)
    d = rep.to_dict()
    assert len(d["sites"]) == 3, d["sites"].keys()
    assert rep.max_abs() < 1e-10, str(rep)
    assert "grad theta" in str(rep)
    # a planted wrong data gradient in the grid_sample backward (10% too large)
    good = dt._grid_bwd

    def bad(*a, **k):
        dx, dg = good(*a, **k)
        return (None if dx is None else dx * 1.1), dg
    monkeypatch.setattr(dt, "_grid_bwd", bad)
    rep = dt.compare(m, x)
    d = rep.to_dict()
    gs = [v for k, v in d["sites"].items() if k.startswith("grid_sample")][0]
    assert gs["output"]["abs"] < 1e-12           # the forward is still right
    assert gs["grads"][0]["rel"] > 0.05          # its input gradient is not
    assert gs["grads"][1]["abs"] < 1e-12         # its grid gradient is
    assert d["params"]["out.weight"]["rel"] > 0.01
    assert d["params"]["down.weight"]["rel"] > 0.01
    assert d["params"]["theta"]["rel"] < 1e-10   # the grid gradient was not touched
    ups = [v for k, v in d["sites"].items() if k.startswith("interpolate")]
    assert all(u["grads"][0]["rel"] > 0.01 for u in ups)  # downstream of the bad gradient


# ---------------------------------------------------------------- errors
def test_errors():
    x = rnd(1, 1, 4, 4)
    with pytest.raises(ValueError, match="device"):
        dt.interpolate(torch.empty(1, 1, 4, 4, device="meta"), scale_factor=2)
    with pytest.raises(ValueError, match="device"):
        dt.grid_sample(x, torch.empty(1, 2, 2, 2, device="meta"))
    with pytest.raises(TypeError, match="float16"):
        dt.interpolate(x.half(), scale_factor=2)
    with pytest.raises(TypeError, match="grid"):
        dt.grid_sample(x, torch.zeros(1, 2, 2, 2, dtype=torch.float32))
    with pytest.raises(ValueError, match="mode"):
        dt.interpolate(x, scale_factor=2, mode="bogus")
    with pytest.raises(ValueError, match="recompute_scale_factor"):
        dt.interpolate(x, scale_factor=torch.tensor(2.0, dtype=D, requires_grad=True),
                       mode="bilinear", recompute_scale_factor=True)
    with pytest.raises(ValueError, match="scales"):  # the library's message
        dt.resize(x, scales=[1.0, 1.0, -2.0, 2.0], mode="linear")
    with pytest.raises(TypeError, match="unexpected keyword"):
        dt.resize(x, scales=[1.0, 1.0, 2.0, 2.0], modee="linear")


def test_import_dresample_does_not_import_torch_or_jax():
    import subprocess
    import sys
    code = ("import sys, dresample; bad = [m for m in ('torch', 'jax') if m in sys.modules]; "
            "sys.exit(1 if bad else 0)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_docstring_examples():
    import doctest
    r = doctest.testmod(dt, extraglobs={"torch": torch}, optionflags=doctest.ELLIPSIS)
    assert r.attempted > 10 and r.failed == 0, r
