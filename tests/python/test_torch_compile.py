# SPDX-License-Identifier: MIT
"""dresample.torch under torch.compile and torch.export (torch >= 2.4, where the
kernels are torch.library custom ops with fake kernels): torch.library.opcheck
on each op, an exported graph holding the dresample ops, and a compiled
function's outputs and gradients equal to the eager ones.  Skipped with older
PyTorch (Debian 12's 1.13), where the wrappers are autograd.Functions."""
import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed")
pytest.importorskip("dresample", reason="the dresample package is not installed")
dt = pytest.importorskip("dresample.torch", reason="dresample.torch is unavailable")

if not dt._HAS_LIBRARY:
    pytest.skip(f"torch {torch.__version__} < 2.4: no torch.library custom ops",
                allow_module_level=True)

D = torch.float64


def rnd(*shape, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.rand(shape, generator=g, dtype=D) * 2 - 1


def test_opcheck():
    x = rnd(1, 2, 5, 6, seed=1).requires_grad_()
    g = (rnd(1, 3, 4, 2, seed=2) * 0.9).requires_grad_()
    s = torch.tensor([1.7, 2.3], dtype=D, requires_grad=True)
    ops = torch.ops.dresample
    torch.library.opcheck(ops.grid_sample.default, (x, g, "bilinear", "zeros", False))
    torch.library.opcheck(ops.torch_interpolate.default,
                          (x, s, None, [1.7, 2.3], "bilinear", 0, -1, False))
    torch.library.opcheck(ops.resize.default,
                          (x, s, None, [1.7, 2.3], None, None, '{"axes": [2, 3], "mode": "linear"}'))
    torch.library.opcheck(ops.openvino_interpolate.default,
                          (x, None, [7, 4], None, [2, 3], 4, '{"mode": "cubic"}'))


class Net(torch.nn.Module):
    def forward(self, x, g):
        u = dt.interpolate(x, scale_factor=2.0, mode="bilinear")
        v = dt.resize(u, scales=[1.0, 1.0, 0.7, 1.3], mode="cubic")
        return dt.grid_sample(v, g, mode="bicubic", padding_mode="border")


def test_export_graph_holds_the_ops():
    x, g = rnd(1, 2, 5, 6, seed=3), rnd(1, 3, 4, 2, seed=4) * 0.9
    ep = torch.export.export(Net(), (x, g))
    text = str(ep.graph)
    for op in ("dresample.torch_interpolate", "dresample.resize", "dresample.grid_sample"):
        assert op in text, text
    torch.testing.assert_close(ep.module()(x, g), Net()(x, g), rtol=0, atol=0)


def test_compile_forward_and_gradients():
    x = rnd(1, 2, 5, 6, seed=5).requires_grad_()
    g = (rnd(1, 3, 4, 2, seed=6) * 0.9).requires_grad_()
    s = torch.tensor([1.7, 2.3], dtype=D, requires_grad=True)

    def f(x, g, s):
        u = dt.interpolate(x, scale_factor=s, mode="bilinear")
        return dt.grid_sample(u, g, mode="bilinear", padding_mode="zeros")

    y0 = f(x, g, s)
    d0 = torch.autograd.grad(y0.sum(), (x, g, s))
    fc = torch.compile(f, backend="aot_eager")
    y1 = fc(x, g, s)
    d1 = torch.autograd.grad(y1.sum(), (x, g, s))
    torch.testing.assert_close(y1, y0, rtol=0, atol=0)
    for a, b in zip(d1, d0):
        torch.testing.assert_close(a, b, rtol=0, atol=0)
