# SPDX-License-Identifier: MIT
# Source of docs/notebooks/04_verifying_gradients.ipynb (tools/make_notebooks.py builds it).

# %% [markdown]
# # 4. Verifying a model's gradients
#
# A model that resizes or warps inside its forward pass depends on those kernels' gradients
# being right — and a wrong gradient rarely crashes: the model just trains worse. Two tools
# catch it:
#
# * **`dresample.torch.compare(model, *inputs)`** runs the model once with PyTorch's own
#   `F.interpolate` / `F.grid_sample` and once with dresample's kernels (under
#   `dresample.torch.patch()`), from the same parameters, inputs and seed, backpropagates the
#   same random output gradient, and reports, per call site, the difference of the outputs
#   and of the gradients reaching each input, then of the final outputs and of every
#   parameter gradient. Two independent implementations that agree are strong evidence.
# * **Finite differences** (`torch.autograd.gradcheck`, in float64) compare a backward with
#   the forward itself, $\frac{f(\theta + \varepsilon) - f(\theta - \varepsilon)}{2\varepsilon}$.
#
# We run both on a small U-Net and on a spatial transformer, then plant a wrong gradient and
# watch both tools flag it.

# %%
import numpy as np
import matplotlib.pyplot as plt
import torch
import torch.nn as nn
import torch.nn.functional as F
import dresample.torch as drt

torch.manual_seed(0)
print("torch", torch.__version__)

# %% [markdown]
# ## Two small models
#
# The U-Net downsamples with `F.interpolate(mode="area")` and upsamples with bilinear
# (`align_corners=False`) and nearest; the spatial transformer predicts an affine $\theta$
# from the image and warps it with `F.grid_sample` (bilinear, border padding). Both call
# the *PyTorch* functions: `compare` swaps the kernels underneath.

# %%
class TinyUNet(nn.Module):
    def __init__(self, c=4):
        super().__init__()
        self.enc1 = nn.Conv2d(1, c, 3, padding=1)
        self.enc2 = nn.Conv2d(c, 2 * c, 3, padding=1)
        self.mid = nn.Conv2d(2 * c, 2 * c, 3, padding=1)
        self.dec2 = nn.Conv2d(4 * c, c, 3, padding=1)
        self.dec1 = nn.Conv2d(2 * c, 1, 3, padding=1)

    def forward(self, x):
        e1 = torch.tanh(self.enc1(x))                                     # 16x16
        e2 = torch.tanh(self.enc2(F.interpolate(e1, scale_factor=0.5, mode="area")))      # 8x8
        m = torch.tanh(self.mid(F.interpolate(e2, scale_factor=0.5, mode="area")))        # 4x4
        u2 = F.interpolate(m, scale_factor=2, mode="bilinear", align_corners=False)       # 8x8
        d2 = torch.tanh(self.dec2(torch.cat([u2, e2], 1)))
        u1 = F.interpolate(d2, size=(16, 16), mode="nearest")                            # 16x16
        return self.dec1(torch.cat([u1, e1], 1))


class SpatialTransformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.loc = nn.Sequential(nn.Conv2d(1, 4, 5, stride=2), nn.Tanh(), nn.Flatten(),
                                 nn.Linear(4 * 6 * 6, 6))
        nn.init.zeros_(self.loc[-1].weight)
        with torch.no_grad():
            self.loc[-1].bias.copy_(torch.tensor([0.9, 0.1, 0.05, -0.1, 0.95, 0.0]))

    def forward(self, x):
        theta = self.loc(x).view(-1, 2, 3)
        grid = F.affine_grid(theta, x.shape, align_corners=False)
        return F.grid_sample(x, grid, mode="bilinear", padding_mode="border",
                             align_corners=False)


x = torch.randn(2, 1, 16, 16, dtype=torch.float64, requires_grad=True)
unet = TinyUNet().double()
stn = SpatialTransformer().double()

# %% [markdown]
# ## `compare()` on the U-Net

# %%
report = drt.compare(unet, x)
print(report)
assert report.max_abs() < 1e-10

# %% [markdown]
# Every interpolate site and every parameter gradient agrees to rounding (float64 here; in
# float32 expect about $10^{-6}$ relative). The footer counts how many calls dresample
# served.
#
# ## `compare()` on the spatial transformer

# %%
report_stn = drt.compare(stn, x)
print(report_stn)
assert report_stn.max_abs() < 1e-10

# %% [markdown]
# ## Finite differences
#
# `torch.autograd.gradcheck` perturbs every input entry in float64 and compares the Jacobian
# with the backward. Here on dresample's kernels directly (a small input keeps it fast):

# %%
xs = torch.randn(1, 2, 5, 6, dtype=torch.float64, requires_grad=True)
grid = (torch.rand(1, 4, 3, 2, dtype=torch.float64) * 1.8 - 0.9).requires_grad_(True)
print("interpolate bicubic:",
      torch.autograd.gradcheck(lambda t: drt.interpolate(t, size=(7, 4), mode="bicubic",
                                                         align_corners=False), (xs,)))
print("grid_sample bilinear (data and grid):",
      torch.autograd.gradcheck(lambda t, g: drt.grid_sample(t, g, mode="bilinear",
                                                            align_corners=False), (xs, grid)))

# %% [markdown]
# ## Planting a wrong gradient
#
# Now a bug: the backward of the bilinear upsampling is off by 10 %. We plant it by
# monkeypatching the function `dresample.torch` uses for the input gradient of
# `interpolate` — exactly the kind of slip (a forgotten normalisation, a scale applied
# twice) that leaves the forward perfect.

# %%
_orig = drt._torch_interp_bwd_input


def buggy_bwd_input(*args, **kwargs):
    return 1.1 * _orig(*args, **kwargs)


drt._torch_interp_bwd_input = buggy_bwd_input
try:
    bad_report = drt.compare(unet, x)
    bad_fd = torch.autograd.gradcheck(
        lambda t: drt.interpolate(t, scale_factor=2, mode="bilinear", align_corners=False),
        (xs,), raise_exception=False)
finally:
    drt._torch_interp_bwd_input = _orig
print(bad_report)
print("gradcheck with the planted bug:", bad_fd)
assert bad_report.max_abs() > 1e-3 and not bad_fd

# %% [markdown]
# The forward outputs still agree exactly (the bug is backward-only), but the gradient rows
# of every interpolate site and the gradients of all parameters upstream of them differ:
# the site table points at the culprit. Side by side, per parameter:

# %%
good = {k: v["rel"] if v else 0.0 for k, v in report.params.items()}
bad = {k: v["rel"] if v else 0.0 for k, v in bad_report.params.items()}
names = list(good)
fig, ax = plt.subplots(figsize=(9, 3.6))
pos = np.arange(len(names))
ax.bar(pos - 0.2, [max(good[n], 1e-18) for n in names], 0.4, label="correct kernels")
ax.bar(pos + 0.2, [max(bad[n], 1e-18) for n in names], 0.4, label="planted 10 % bug")
ax.set_yscale("log")
ax.set_xticks(pos)
ax.set_xticklabels(names, rotation=45, ha="right", fontsize=8)
ax.set_ylabel("relative difference\nPyTorch vs dresample")
ax.set_title("U-Net parameter gradients: compare() with and without the planted bug")
ax.axhline(1e-6, color="grey", ls="--", lw=0.8)
ax.legend()
plt.show()

# %% [markdown]
# ## A wrong custom autograd Function
#
# The same happens to your own code. `ScaledUpsample` below has a correct forward and a
# backward scaled by 0.9; gradcheck's report names the input and shows both Jacobians'
# entries.

# %%
class ScaledUpsample(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return drt.interpolate(t, scale_factor=2, mode="bilinear", align_corners=False)

    @staticmethod
    def backward(ctx, dy):
        (t,) = ctx.saved_tensors
        with torch.enable_grad():
            tt = t.detach().requires_grad_(True)
            y = drt.interpolate(tt, scale_factor=2, mode="bilinear", align_corners=False)
            (g,) = torch.autograd.grad(y, tt, dy)
        return 0.9 * g                                          # the bug


try:
    torch.autograd.gradcheck(ScaledUpsample.apply, (xs,))
except RuntimeError as e:
    print(str(e)[:600])

# %% [markdown]
# ## Exercises
#
# 1. **float32.** Run `compare()` on the U-Net in float32 (`unet.float()`, `x.float()`).
#    Which differences appear, and how large are they relative to the values?
# 2. **A subtler bug.** Plant a bug that changes only one input pixel's gradient (e.g.
#    zero `dx[..., 0, 0]`). Does `compare()` still catch it? Which row of the report?
# 3. **Bicubic sites.** Change the U-Net's upsampling to `mode="bicubic"` and
#    `align_corners=True`; compare again.
# 4. **Your own model.** Use `drt.patch()` as a context manager to train the spatial
#    transformer for a few steps on dresample's kernels; check with `compare` before and
#    after that the gradients still agree.
#
# Solutions: [solutions.md](solutions.md#notebook-4).
