# SPDX-License-Identifier: MIT
# Source of docs/notebooks/03_gridsample_registration.ipynb (tools/make_notebooks.py builds it).

# %% [markdown]
# # 3. GridSample and registration
#
# GridSample reads its input at arbitrary points: a grid $g \in [-1, 1]^{\dots \times d}$ is
# mapped to pixel coordinates, e.g. without `align_corners`
#
# $$u = \frac{(g + 1)\,L - 1}{2},$$
#
# and the input is interpolated there. Its gradient with respect to the **grid** is what makes
# image registration and spatial transformers trainable: for bilinear sampling along one
# axis,
#
# $$\frac{\partial \ell}{\partial u} = \delta y \cdot \big(x_{\lfloor u\rfloor + 1} -
#   x_{\lfloor u\rfloor}\big), \qquad
#   \frac{\partial \ell}{\partial g} = \frac{\partial \ell}{\partial u}\cdot\frac{L}{2}.$$
#
# Here we register a 2-D image under an affine map and a 3-D volume with **tricubic**
# sampling (`mode="bicubic"` on 5-D tensors — which PyTorch's own `F.grid_sample` does not
# offer), and draw the grid gradient as a vector field.

# %%
import numpy as np
import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F
import dresample.torch as drt

torch.manual_seed(0)


def blobs(shape, centres, widths, amps):
    """A smooth test image or volume: a sum of Gaussian blobs (coordinates in [-1, 1])."""
    axes = torch.meshgrid(*[torch.linspace(-1, 1, n, dtype=torch.float64) for n in shape],
                          indexing="ij")
    v = torch.zeros(shape, dtype=torch.float64)
    for c, w, a in zip(centres, widths, amps):
        r2 = sum((ax - ci) ** 2 for ax, ci in zip(axes, c))
        v = v + a * torch.exp(-r2 / (2 * w * w))
    return v


# %% [markdown]
# ## 2-D affine registration
#
# The fixed image is the moving one warped by a known affine map $\theta^\dagger$ (rotation
# by 0.2 rad, slight zoom, a shift). We start from the identity and fit $\theta$ (2×3) by
# gradient descent on $\ell(\theta) = \operatorname{mean}\big(\text{GridSample}(x,
# \text{affine\_grid}(\theta)) - x_\text{fixed}\big)^2$: PyTorch builds the grid
# (`F.affine_grid`), dresample samples it and returns the grid gradient, and autograd
# carries it back to $\theta$.

# %%
H = W = 32
moving = blobs((H, W), [(-0.4, -0.3), (0.35, 0.1), (0.0, 0.5), (0.3, -0.5)],
               [0.18, 0.25, 0.12, 0.15], [1.0, 0.7, 0.9, -0.6])[None, None]
a = 0.2
theta_true = torch.tensor([[[1.05 * np.cos(a), -np.sin(a), 0.10],
                            [np.sin(a), 1.05 * np.cos(a), -0.08]]], dtype=torch.float64)
fixed = drt.grid_sample(moving, F.affine_grid(theta_true, moving.shape, align_corners=False),
                        mode="bilinear", padding_mode="border", align_corners=False)

theta = torch.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]], dtype=torch.float64,
                     requires_grad=True)
opt = torch.optim.Adam([theta], lr=0.02)
losses = []
for it in range(120):
    opt.zero_grad()
    grid = F.affine_grid(theta, moving.shape, align_corners=False)
    warped = drt.grid_sample(moving, grid, mode="bilinear", padding_mode="border",
                             align_corners=False)
    loss = F.mse_loss(warped, fixed)
    loss.backward()
    opt.step()
    losses.append(float(loss))
print("theta found:\n", theta.detach().numpy().round(4)[0])
print("theta true:\n", theta_true.numpy().round(4)[0])
print(f"loss {losses[0]:.3e} -> {losses[-1]:.3e}")
assert torch.allclose(theta.detach(), theta_true, atol=0.02)

# %%
fig, axes = plt.subplots(1, 4, figsize=(14, 3.3), constrained_layout=True)
for ax, img, title in zip(axes, (moving, fixed, warped.detach()),
                          ("moving $x$", "fixed (warped by $\\theta^\\dagger$)",
                           "moving warped by the fitted $\\theta$")):
    im = ax.imshow(img[0, 0], cmap="viridis", vmin=-0.6, vmax=1.0)
    ax.set_title(title)
    ax.set_xlabel("column (pixels)")
    ax.set_ylabel("row (pixels)")
fig.colorbar(im, ax=axes[:3], shrink=0.8, label="intensity")
axes[3].semilogy(losses)
axes[3].set_xlabel("iteration")
axes[3].set_ylabel("MSE loss")
axes[3].set_title("2-D registration: loss")
axes[3].grid(alpha=0.3)
plt.show()

# %% [markdown]
# ## The grid gradient as a vector field
#
# At the start (identity $\theta$) each output pixel's grid point gets a 2-vector
# $\partial\ell/\partial g$. Its negative is the direction in which moving that sample point
# lowers the loss: the arrows point along the image gradients, towards where the fixed image
# has its matching structure. Flat regions get no push. (`grid.retain_grad()` keeps the
# gradient of the non-leaf grid tensor.)

# %%
theta0 = torch.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]], dtype=torch.float64)
grid = F.affine_grid(theta0, moving.shape, align_corners=False).requires_grad_(True)
loss = F.mse_loss(drt.grid_sample(moving, grid, mode="bilinear", padding_mode="border",
                                  align_corners=False), fixed)
loss.backward()
gg = grid.grad[0].numpy()                                   # [H, W, 2]: (d/dg_x, d/dg_y)
fig, ax = plt.subplots(figsize=(6.4, 5.4))
ax.imshow((fixed - moving)[0, 0], cmap="RdBu_r", vmin=-1, vmax=1)
yy, xx = np.mgrid[0:H:2, 0:W:2]
q = ax.quiver(xx, yy, -gg[::2, ::2, 0], -gg[::2, ::2, 1], angles="xy", color="black",
              pivot="mid", width=0.004)
ax.set_title("background: fixed − moving; arrows: $-\\partial\\ell/\\partial g$")
ax.set_xlabel("column (pixels)")
ax.set_ylabel("row (pixels)")
plt.show()

# %% [markdown]
# The same vector field, checked: the grid gradient of dresample equals PyTorch's own
# `F.grid_sample` gradient for bilinear sampling (PyTorch is the reference the library
# follows).

# %%
g2 = grid.detach().clone().requires_grad_(True)
F.mse_loss(F.grid_sample(moving, g2, mode="bilinear", padding_mode="border",
                         align_corners=False), fixed).backward()
print("max |dresample - PyTorch| grid gradient:", float((g2.grad - grid.grad).abs().max()))
assert torch.allclose(g2.grad, grid.grad, atol=1e-12)

# %% [markdown]
# ## 3-D registration with tricubic sampling
#
# A 14³ volume, an affine map with a rotation about the depth axis and a shift. `mode=
# "bicubic"` on a 5-D input is tricubic interpolation (64 taps per sample, Keys $a=-0.75$) —
# smoother than trilinear, with a continuous grid gradient. PyTorch's `F.grid_sample` refuses
# it:

# %%
D3 = 14
vol = blobs((D3, D3, D3), [(-0.3, -0.3, 0.2), (0.3, 0.2, -0.3), (0.0, 0.4, 0.4)],
            [0.25, 0.3, 0.2], [1.0, 0.8, -0.7])[None, None]
b = 0.15
theta3_true = torch.tensor([[[np.cos(b), -np.sin(b), 0.0, 0.06],
                             [np.sin(b), np.cos(b), 0.0, -0.05],
                             [0.0, 0.0, 1.0, 0.08]]], dtype=torch.float64)
grid3 = F.affine_grid(theta3_true, vol.shape, align_corners=False)
try:
    F.grid_sample(vol, grid3, mode="bicubic", align_corners=False)
    print("PyTorch accepted bicubic on 5-D")
except RuntimeError as e:
    print("PyTorch F.grid_sample:", str(e).splitlines()[0])
fixed3 = drt.grid_sample(vol, grid3, mode="bicubic", padding_mode="border", align_corners=False)

# %%
theta3 = torch.eye(3, 4, dtype=torch.float64)[None].requires_grad_(True)
opt = torch.optim.Adam([theta3], lr=0.02)
losses3 = []
for it in range(60):
    opt.zero_grad()
    warped3 = drt.grid_sample(vol, F.affine_grid(theta3, vol.shape, align_corners=False),
                              mode="bicubic", padding_mode="border", align_corners=False)
    loss = F.mse_loss(warped3, fixed3)
    loss.backward()
    opt.step()
    losses3.append(float(loss))
print("theta found:\n", theta3.detach().numpy().round(3)[0])
print("theta true:\n", theta3_true.numpy().round(3)[0])
print(f"loss {losses3[0]:.3e} -> {losses3[-1]:.3e}")
assert losses3[-1] < 0.05 * losses3[0]

# %%
fig, axes = plt.subplots(1, 4, figsize=(14, 3.3), constrained_layout=True)
k = D3 // 2
for ax, v, title in zip(axes, (vol, fixed3, warped3.detach()),
                        ("moving, slice $z = 7$", "fixed, slice $z = 7$", "fitted, slice $z = 7$")):
    im = ax.imshow(v[0, 0, k], cmap="viridis", vmin=-0.7, vmax=1.0)
    ax.set_title(title)
    ax.set_xlabel("x (voxels)")
    ax.set_ylabel("y (voxels)")
fig.colorbar(im, ax=axes[:3], shrink=0.8, label="intensity")
axes[3].semilogy(losses3)
axes[3].set_xlabel("iteration")
axes[3].set_ylabel("MSE loss")
axes[3].set_title("3-D tricubic registration: loss")
axes[3].grid(alpha=0.3)
plt.show()

# %% [markdown]
# The tricubic grid gradient, checked against float64 central differences of the forward at a
# few random grid entries:

# %%
g = F.affine_grid(theta3.detach(), vol.shape, align_corners=False).clone().requires_grad_(True)
w = torch.randn(1, 1, D3, D3, D3, dtype=torch.float64)
(drt.grid_sample(vol, g, mode="bicubic", align_corners=False) * w).sum().backward()
rng = np.random.default_rng(0)
for _ in range(4):
    idx = tuple(int(rng.integers(0, n)) for n in g.shape)
    eps = 1e-6
    gp, gm = g.detach().clone(), g.detach().clone()
    gp[idx] += eps
    gm[idx] -= eps
    num = ((drt.grid_sample(vol, gp, mode="bicubic", align_corners=False) -
            drt.grid_sample(vol, gm, mode="bicubic", align_corners=False)) * w).sum() / (2 * eps)
    print(f"grid{list(idx)}: analytic {float(g.grad[idx]):+.8f}, numeric {float(num):+.8f}")
    assert abs(float(g.grad[idx]) - float(num)) < 1e-6 + 1e-5 * abs(float(num))

# %% [markdown]
# ## Exercises
#
# 1. **Padding modes.** Repeat the 2-D registration with `padding_mode="zeros"` and a larger
#    shift (0.4). Does it still converge? Look at the grid gradient near the border.
# 2. **Nearest has no grid gradient.** With `mode="nearest"` the grid gradient is exactly 0.
#    Check it, and explain why from the sampling formula.
# 3. **Trilinear vs tricubic.** Register the 3-D volume with `mode="bilinear"` (trilinear on
#    5-D) and compare the loss curves. Which one reaches a lower loss in 60 iterations?
# 4. **A deformation field.** Instead of an affine $\theta$, learn a free displacement field
#    (a `[1, 8, 8, 2]` tensor upsampled to the image size with `drt.interpolate`) added to
#    the identity grid. Add a smoothness penalty and plot the learned field with `quiver`.
#
# Solutions: [solutions.md](solutions.md#notebook-3).
