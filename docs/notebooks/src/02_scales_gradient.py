# SPDX-License-Identifier: MIT
# Source of docs/notebooks/02_scales_gradient.ipynb (tools/make_notebooks.py builds it).

# %% [markdown]
# # 2. The scales gradient
#
# A resize depends on its scale $s$ in two ways: through the **output length**
# ($O = \lfloor sL \rfloor$ in ONNX Resize and PyTorch) and through the **sampling
# coordinates**, e.g. ONNX `half_pixel`:
#
# $$c(o; s) = \frac{o + \tfrac12}{s} - \tfrac12, \qquad
#   \frac{\partial c}{\partial s} = -\frac{o + \tfrac12}{s^2}.$$
#
# The length is a step function of $s$: across a step the output has a different number of
# elements and the loss cannot even be compared. dresample therefore defines the scales
# gradient **with the output size held fixed**, on the interval of $s$ where $O$ is constant:
#
# $$\frac{\partial \ell}{\partial s} = \sum_o \delta y_o \sum_k
#   \frac{\partial w_{ok}}{\partial c}\, x_{j_k(o)}\, \frac{\partial c(o)}{\partial s}.$$
#
# This notebook draws $\ell(s)$ on such an interval, the library's `scales_delta` as tangents,
# the kinks of linear interpolation and the one-sided rule the library applies there, and
# learns a zoom factor by gradient descent with `dresample.torch` — which PyTorch's own
# `F.interpolate` cannot do.

# %%
import numpy as np
import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F
import dresample as dr
import dresample.torch as drt

torch.manual_seed(0)
print("dresample", dr.__version__, "| torch", torch.__version__)

# %% [markdown]
# ## The interval that keeps the output size
#
# For ONNX's rule $O = \lfloor sL \rfloor$ the scales giving output length $O$ form the
# half-open interval $[O/L, (O+1)/L)$. (The C library computes this interval exactly, in
# floating point, for every op — `drs_resize_scale_range` and friends, or the CLI
# `dresample scale-range`; the NumPy package does not expose it, so we use the formula.)

# %%
L = 40
i = np.arange(L)
x = np.sin(0.9 * i) + 0.5 * np.sin(2.3 * i + 1.0) + 0.3 * np.cos(0.37 * i * i)
O = 20
lo, hi = O / L, (O + 1) / L
print(f"L = {L}: output length {O} for s in [{lo}, {hi})")
for s in (lo, np.nextafter(hi, 0), hi):
    print(f"  s = {s!r:22} -> output length {dr.resize(x, scales=[s]).shape[0]}")

# %% [markdown]
# ## The loss along $s$, and the gradient as tangents
#
# $\ell(s) = \tfrac12\|y(s) - y(s^*)\|^2$ with $s^* = 0.5125$, for linear and cubic. At a few
# points we draw the tangent whose slope is the library's `scales_delta`
# (`resize_backward(x, y(s) - y(s^*), scales=[s])`), and the dotted lines mark the scales
# where a linear sample sits exactly on an input pixel: $c(o; s) = j$, i.e.
# $s = (o + \tfrac12)/(j + \tfrac12)$.

# %%
s_star = 0.5125
ss = np.linspace(0.5005, 0.5245, 401)


def loss_and_grad(s, mode, t, xx=x, **kw):
    r = dr.resize(xx, scales=[s], mode=mode, **kw) - t
    g = dr.resize_backward(xx, r, scales=[s], mode=mode, **kw)["scales_delta"][0]
    return 0.5 * r @ r, g


fig, ax = plt.subplots(figsize=(9, 4.2))
for mode, colour in (("linear", "tab:orange"), ("cubic", "tab:blue")):
    t = dr.resize(x, scales=[s_star], mode=mode)
    ax.plot(ss, [loss_and_grad(s, mode, t)[0] for s in ss], color=colour, label=mode)
    for s in np.linspace(0.503, 0.523, 6):
        l, g = loss_and_grad(s, mode, t)
        h = 0.002
        ax.plot([s - h, s + h], [l - h * g, l + h * g], "k-", lw=1.5)
        ax.plot(s, l, "ko", ms=3)
kinks = [(o + 0.5) / (j + 0.5) for o in range(O) for j in range(L)]
for k in sorted(v for v in kinks if ss[0] <= v <= ss[-1]):
    ax.axvline(k, color="tab:orange", ls=":", lw=0.6)
ax.axvline(s_star, color="grey", ls="--", lw=0.8)
ax.set_xlabel("scale $s$  (output length 20 throughout)")
ax.set_ylabel(r"$\ell(s)$")
ax.set_title("loss at fixed output size; black: tangents with slope scales_delta")
ax.legend()
ax.grid(alpha=0.3)
plt.show()

# %% [markdown]
# Cubic (Keys) is $C^1$: its curve is smooth and its tangents touch it. Linear has a corner
# wherever a sample crosses an input pixel (the tap pair switches): between the dotted lines
# it is smooth and the tangents fit; *on* a dotted line the derivative has two values.
#
# Let us check the tangents numerically at points away from kinks, with float64 central
# differences:

# %%
for mode in ("linear", "cubic"):
    t = dr.resize(x, scales=[s_star], mode=mode)
    for s in (0.5037, 0.5101, 0.5199):
        eps = 1e-7
        num = (loss_and_grad(s + eps, mode, t)[0] - loss_and_grad(s - eps, mode, t)[0]) / (2 * eps)
        ana = loss_and_grad(s, mode, t)[1]
        print(f"{mode:6s} s = {s}: scales_delta = {ana:+.6f}, central difference = {num:+.6f}")
        np.testing.assert_allclose(ana, num, rtol=1e-4, atol=1e-6)

# %% [markdown]
# ## At a kink: the one-sided rule
#
# Which of the two derivatives does the library return at a kink? The rule (docs/semantics.md,
# "Kinks"):
#
# 1. if only one side of $s$ keeps the output size (s is the low end $O/L$ of its interval, or
#    the last double before the high end), the derivative **from that side**;
# 2. otherwise the side that the forward's tap choice selects: taps $\lfloor c\rfloor,
#    \lfloor c\rfloor + 1$, i.e. the **right derivative in $c$**. With $\partial c/\partial s
#    < 0$ that is the **left** derivative in $s$.
#
# We pick kinks that are exact in floating point. With `asymmetric` coordinates
# $c(o) = o/s$ and $L = 5$, $s = 1.5$ gives $O = 7$ (interval $[1.4, 1.6)$, both sides keep the
# size) and $c(3) = 2$, $c(6) = 4$ exactly: rule 2. $s = 2$ gives $O = 10$ on $[2, 2.2)$ —
# the low end, so rule 1: the right derivative in $s$.

# %%
x5 = np.array([0.3, -1.2, 2.0, 0.7, -0.4])
w = np.random.default_rng(1).standard_normal(10)
kw = dict(mode="linear", coordinate_transformation_mode="asymmetric")


def f(s):
    """A scalar loss: a fixed weighting of the resized signal."""
    y = dr.resize(x5, scales=[s], **kw)
    return w[:y.size] @ y


def lib_grad(s):
    n = dr.resize(x5, scales=[s], **kw).size
    return dr.resize_backward(x5, w[:n], scales=[s], **kw)["scales_delta"][0]


h = 1e-7
for s, why in ((1.5, "interior kink (rule 2)"), (2.0, "low end of [2, 2.2) (rule 1)")):
    c = np.arange(dr.resize(x5, scales=[s], **kw).size) / s
    left = (f(s) - f(s - h)) / h if dr.resize(x5, scales=[s - h], **kw).size == c.size else np.nan
    right = (f(s + h) - f(s)) / h
    print(f"s = {s}: {why}; integer coordinates c = {c[c == np.round(c)]}")
    print(f"   left difference  {left:+.6f}" + ("   (output size changes: not defined)"
                                                 if np.isnan(left) else ""))
    print(f"   right difference {right:+.6f}")
    print(f"   scales_delta     {lib_grad(s):+.6f}")

np.testing.assert_allclose(lib_grad(1.5), (f(1.5) - f(1.5 - h)) / h, rtol=1e-5, atol=1e-6)
np.testing.assert_allclose(lib_grad(2.0), (f(2.0 + h) - f(2.0)) / h, rtol=1e-5, atol=1e-6)
print("the library's value is the left derivative at s = 1.5 and the right one at s = 2")

# %% [markdown]
# A central difference *across* a kink returns the average of the two sides — neither value
# — which is why gradient checkers (the library's `dresample gradcheck`) keep their sample
# points away from kinks.

# %%
ss_k = np.linspace(1.5 - 0.02, 1.5 + 0.02, 201)
fig, ax = plt.subplots(figsize=(7, 3.6))
ax.plot(ss_k, [f(s) for s in ss_k], label="$f(s)$, linear, asymmetric")
for side, val, col in (("left", (f(1.5) - f(1.5 - h)) / h, "tab:red"),
                       ("right", (f(1.5 + h) - f(1.5)) / h, "tab:green")):
    d = np.array([-0.02, 0.02])
    ax.plot(1.5 + d, f(1.5) + val * d, "--", color=col, label=f"{side} derivative {val:+.3f}")
ax.plot(1.5, f(1.5), "ko")
ax.set_xlabel("scale $s$")
ax.set_ylabel("$f(s)$")
ax.set_title(f"a kink at s = 1.5; scales_delta = {lib_grad(1.5):+.3f}")
ax.legend(fontsize=8)
ax.grid(alpha=0.3)
plt.show()

# %% [markdown]
# ## Learning a zoom factor
#
# A signal was zoomed by an unknown factor $s^\dagger$; we see the zoomed signal and want
# $s^\dagger$. `dresample.torch.interpolate` is a drop-in for `F.interpolate` whose
# `scale_factor` may be a tensor that requires a gradient. The output length comes from the
# scale's value, so we keep $s$ inside the interval of the observed length (projection after
# each step) — here $L = 8$, $O = 12$: $s \in [1.5, 1.625)$.

# %%
Lz = 8
xz = torch.randn(1, 16, Lz, dtype=torch.float64)           # 16 channels, length 8
s_true = 1.6
target = F.interpolate(xz, scale_factor=s_true, mode="linear", align_corners=False,
                       recompute_scale_factor=False)
lo_z, hi_z = 12 / Lz, 13 / Lz
s = torch.tensor(1.51, dtype=torch.float64, requires_grad=True)
opt = torch.optim.Adam([s], lr=0.01)
history = []
for step in range(80):
    opt.zero_grad()
    y = drt.interpolate(xz, scale_factor=s, mode="linear", align_corners=False)
    loss = F.mse_loss(y, target)
    loss.backward()
    opt.step()
    with torch.no_grad():                                  # stay on the interval of O = 12
        s.clamp_(lo_z, np.nextafter(hi_z, 0))
    history.append((step, float(s), float(loss)))
print(f"recovered s = {float(s):.6f} (true {s_true}); final loss {history[-1][2]:.2e}")
assert abs(float(s) - s_true) < 1e-3

fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 3.4), constrained_layout=True)
steps, sv, lv = zip(*history)
a1.plot(steps, sv)
a1.axhline(s_true, color="grey", ls="--", label="true scale")
a1.set_xlabel("step")
a1.set_ylabel("scale_factor $s$")
a1.legend()
a2.semilogy(steps, lv)
a2.set_xlabel("step")
a2.set_ylabel("MSE loss")
for a in (a1, a2):
    a.grid(alpha=0.3)
plt.show()

# %% [markdown]
# ## PyTorch's own `F.interpolate` cannot do this
#
# `torch.nn.functional.interpolate` takes the scale as a Python number: a tensor is
# converted to a float (or refused), the output does not depend on it in the autograd
# graph, and no gradient reaches it.

# %%
s_t = torch.tensor(1.51, dtype=torch.float64, requires_grad=True)
try:
    y = F.interpolate(xz, scale_factor=s_t, mode="linear", align_corners=False,
                      recompute_scale_factor=False)
    loss = F.mse_loss(y, target)
    print("F.interpolate accepted a tensor scale; loss.requires_grad =", loss.requires_grad)
    if loss.requires_grad:
        loss.backward()
    print("gradient reaching the scale:", s_t.grad)
except (TypeError, RuntimeError) as e:
    print("F.interpolate refused a tensor scale:", type(e).__name__, str(e).splitlines()[0])
assert s_t.grad is None
y = F.interpolate(xz, scale_factor=float(s_t), mode="linear", align_corners=False,
                  recompute_scale_factor=False)
print("with float(s): output.requires_grad =", y.requires_grad, "- the graph ends at the float")

y = drt.interpolate(xz, scale_factor=s_t, mode="linear", align_corners=False)
F.mse_loss(y, target).backward()
print("dresample.torch.interpolate: d loss / d s =", float(s_t.grad))

# %% [markdown]
# ## Exercises
#
# 1. **Cubic has no kinks.** Repeat the one-sided differences at $s = 1.5$ with
#    `mode="cubic"`. Do the left and right differences agree? Why?
# 2. **Where the gradient is zero by definition.** Compute `scales_delta` for
#    `mode="nearest"` and for OpenVINO Interpolate-1 `area`
#    (`dr.interpolate_backward(..., version=1, mode="area")`). Explain why both are 0.
# 3. **A 2-D zoom.** Learn two scale factors (height and width, a tensor of 2 entries) for a
#    `[1, 3, 8, 8]` image zoomed by $(1.55, 1.6)$ with `mode="bilinear"`. Which interval must
#    each factor stay in?
# 4. **The high end of an interval.** Take $s$ = `np.nextafter(0.525, 0)` for $L = 40$. Which
#    side keeps the output size? Check that a right difference is not even defined there.
#
# Solutions: [solutions.md](solutions.md#notebook-2).
