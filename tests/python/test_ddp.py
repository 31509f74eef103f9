# SPDX-License-Identifier: MIT
"""dresample.torch inside torch.nn.parallel.DistributedDataParallel.

A small model whose forward is a convolution, a dresample bilinear upsampling
with a *learnable* scale factor and a dresample grid_sample with a learnable
affine warp is trained for a few SGD steps with DDP (gloo backend, 2 local
processes started with torch.multiprocessing.spawn, each on half the batch).
The parameters must be bitwise identical across the ranks and equal (to
rounding) to a single-process run on the whole batch.

The test runs this file as a script (python test_ddp.py OUTDIR), so that the
spawned workers import a plain module rather than pytest's test module.
"""
import os
import subprocess
import sys

import pytest

STEPS = 3
BATCH = 4
WORLD = 2


def _model():
    import torch

    import dresample.torch as dt

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            g = torch.Generator().manual_seed(1)
            self.conv = torch.nn.Conv2d(2, 3, 3, padding=1).double()
            with torch.no_grad():
                for p in self.conv.parameters():
                    p.copy_(torch.rand(p.shape, generator=g, dtype=torch.float64) - 0.5)
            self.scale = torch.nn.Parameter(torch.tensor([1.7, 2.3], dtype=torch.float64))
            self.theta = torch.nn.Parameter(torch.tensor([[0.9, 0.1, 0.05], [-0.1, 1.1, 0.0]],
                                                         dtype=torch.float64))

        def forward(self, x):
            h = torch.tanh(self.conv(x))
            u = dt.interpolate(h, scale_factor=self.scale, mode="bilinear")
            grid = torch.nn.functional.affine_grid(self.theta.expand(x.shape[0], 2, 3),
                                                   [x.shape[0], 3, 9, 11], align_corners=False)
            y = dt.grid_sample(u, grid, mode="bilinear", padding_mode="border")
            return (y * y).mean(dim=(2, 3))  # [N, 3], whatever the upsampled size

    return Net()


def _data():
    import torch
    g = torch.Generator().manual_seed(2)
    x = torch.rand(BATCH, 2, 6, 7, generator=g, dtype=torch.float64) - 0.5
    t = torch.rand(BATCH, 3, generator=g, dtype=torch.float64)
    return x, t


def _train(model, x, t):
    import torch
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for _ in range(STEPS):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), t)
        loss.backward()
        opt.step()


def _worker(rank, outdir):
    import torch
    import torch.distributed as dist

    import dresample
    torch.set_num_threads(1)
    dresample.set_num_threads(1)
    dist.init_process_group("gloo", init_method="file://" + os.path.join(outdir, "store"),
                            rank=rank, world_size=WORLD)
    model = _model()
    ddp = torch.nn.parallel.DistributedDataParallel(model)
    x, t = _data()
    n = BATCH // WORLD
    _train(ddp, x[rank * n:(rank + 1) * n], t[rank * n:(rank + 1) * n])
    torch.save({k: v.detach().clone() for k, v in model.named_parameters()},
               os.path.join(outdir, f"rank{rank}.pt"))
    dist.destroy_process_group()


def main(outdir):
    import torch
    import torch.multiprocessing as mp
    torch.set_num_threads(1)
    mp.spawn(_worker, args=(outdir,), nprocs=WORLD, join=True)
    model = _model()
    x, t = _data()
    _train(model, x, t)
    torch.save({k: v.detach().clone() for k, v in model.named_parameters()},
               os.path.join(outdir, "single.pt"))


def test_ddp_matches_single_process(tmp_path):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    pytest.importorskip("dresample.torch", reason="dresample.torch is unavailable")
    if not torch.distributed.is_available() or not torch.distributed.is_gloo_available():
        pytest.skip("this PyTorch has no gloo backend")
    r = subprocess.run([sys.executable, os.path.abspath(__file__), str(tmp_path)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    p0 = torch.load(tmp_path / "rank0.pt")
    p1 = torch.load(tmp_path / "rank1.pt")
    ps = torch.load(tmp_path / "single.pt")
    init = dict(_model().named_parameters())
    for k in ps:
        assert torch.equal(p0[k], p1[k]), k
        assert torch.allclose(p0[k], ps[k], rtol=1e-12, atol=1e-13), (k, p0[k] - ps[k])
        assert not torch.allclose(ps[k], init[k].detach(), rtol=0, atol=1e-6), k  # it trained
    # the learnable scale factor moved but kept the upsampled size (floor(L * s))
    assert torch.all((ps["scale"] > 1.6) & (ps["scale"] < 2.4))


if __name__ == "__main__":
    main(sys.argv[1])
