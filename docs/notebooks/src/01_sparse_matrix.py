# SPDX-License-Identifier: MIT
# Source of docs/notebooks/01_sparse_matrix.ipynb (tools/make_notebooks.py builds it).

# %% [markdown]
# # 1. Resampling is a sparse matrix
#
# Every resize in dresample — ONNX Resize, OpenVINO Interpolate, the PyTorch preset — is
# **linear in the data**. Along one axis of input length $L$ and output length $O$ there is a
# matrix $W \in \mathbb{R}^{O \times L}$ with
#
# $$y = W x, \qquad y_o = \sum_j W_{oj}\, x_j ,$$
#
# and each row of $W$ has only a few non-zeros (one for nearest, two for linear, four for
# cubic, about $2/s$ for the antialiased modes when downsampling by $s$). In this notebook
# we *measure* $W$ for every mode by feeding unit vectors through the library, plot it, and
# check two facts that the rest of the notebooks build on:
#
# * the forward is the matrix product $y = Wx$;
# * the data gradient is the transposed product, $\partial \ell / \partial x = W^\top\,
#   \partial \ell / \partial y$ — which is what `dresample.resize_backward` returns.
#
# Everything here uses the NumPy API of the `dresample` package (`pip install .` at the
# repository root; see docs/python.md).

# %%
import numpy as np
import matplotlib.pyplot as plt
import dresample as dr

np.set_printoptions(precision=4, suppress=True, linewidth=110)
print("dresample", dr.__version__)

# %% [markdown]
# ## Measuring the matrix
#
# A 1-D resize of a tensor of shape `[1, 1, L]` (batch, channel, length). Column $j$ of $W$ is
# the output for the unit vector $e_j$. Six modes, all from $L = 10$ to $O = 6$ (a
# downsampling by $s = 0.6$, where antialiasing matters):
#
# | name | op | what it is |
# |---|---|---|
# | nearest | ONNX Resize-19 `mode="nearest"` | one tap, `round_prefer_floor` |
# | linear | ONNX Resize-19 `mode="linear"` | the triangle kernel, 2 taps |
# | cubic | ONNX Resize-19 `mode="cubic"` | Keys cubic, $a=-0.75$, 4 taps |
# | area | OpenVINO Interpolate-1 `mode="area"` | box average over the output cell |
# | antialias | ONNX Resize-19 linear, `antialias=1` | triangle stretched to the output spacing $1/s$ |
# | pillow | OpenVINO Interpolate-11 `bicubic_pillow` | Pillow's antialiased bicubic, $a=-0.5$ |

# %%
L, O = 10, 6
MODES = {
    "nearest":   lambda x: dr.resize(x, sizes=[O], axes=[2], mode="nearest"),
    "linear":    lambda x: dr.resize(x, sizes=[O], axes=[2], mode="linear"),
    "cubic":     lambda x: dr.resize(x, sizes=[O], axes=[2], mode="cubic"),
    "area":      lambda x: dr.interpolate(x, sizes=[O], axes=[2], version=1, mode="area"),
    "antialias": lambda x: dr.resize(x, sizes=[O], axes=[2], mode="linear", antialias=1),
    # the Pillow modes are 2-D only: a [1, 1, 1, L] image with height 1
    "pillow":    lambda x: dr.interpolate(x[:, :, None, :], sizes=[1, O], axes=[2, 3], version=11,
                                          mode="bicubic_pillow", cube_coeff=-0.5)[:, :, 0, :],
}


def matrix_of(f, L):
    """The matrix of a linear map f on [1, 1, L] arrays: column j = f(e_j)."""
    cols = []
    for j in range(L):
        e = np.zeros((1, 1, L))
        e[0, 0, j] = 1.0
        cols.append(f(e)[0, 0])
    return np.stack(cols, axis=1)


W = {name: matrix_of(f, L) for name, f in MODES.items()}
for name, m in W.items():
    print(f"{name:10s} shape {m.shape}, non-zeros per row {np.count_nonzero(np.abs(m) > 1e-15, axis=1)}, "
          f"row sums {m.sum(axis=1).round(6)}")

# %% [markdown]
# Every row sums to 1 (a constant signal stays constant: the edges are folded into the
# weights by replicating the edge pixel), and the rows are short. The plot shows each matrix
# with a symmetric colour scale: red positive, blue negative (cubic's lobes).

# %%
fig, axes = plt.subplots(2, 3, figsize=(12, 6.4), constrained_layout=True)
for ax, (name, m) in zip(axes.flat, W.items()):
    v = np.abs(m).max()
    im = ax.imshow(m, cmap="RdBu_r", vmin=-v, vmax=v, interpolation="nearest")
    ax.set_title(f"{name}: $W$ ({O}×{L})")
    ax.set_xlabel("input index $j$")
    ax.set_ylabel("output index $o$")
    ax.set_xticks(range(L))
    ax.set_yticks(range(O))
    fig.colorbar(im, ax=ax, shrink=0.8, label="$W_{oj}$")
plt.show()

# %% [markdown]
# ## Forward = matrix product
#
# For any signal $x$ the library's output is $Wx$ (to rounding):

# %%
rng = np.random.default_rng(0)
x = rng.standard_normal((1, 1, L))
for name, f in MODES.items():
    np.testing.assert_allclose(f(x)[0, 0], W[name] @ x[0, 0], rtol=1e-12, atol=1e-12)
print("forward == W @ x for", ", ".join(W))

# %% [markdown]
# ## Backward = transposed product
#
# For a loss $\ell(y)$ the backward takes $\delta y = \partial\ell/\partial y$
# (`output_delta`) and returns $\delta x = W^\top \delta y$. The library does **not** scatter
# (`dx[j] += w * dy[o]`, which would need atomics in parallel); it builds the transposed
# table and gathers, so each $\delta x_j$ is written by one thread in a fixed order and the
# result is bitwise identical for any thread count. Checked against `resize_backward` and
# `interpolate_backward`:

# %%
dy = rng.standard_normal((1, 1, O))
BACKWARD = {
    "nearest":   lambda: dr.resize_backward(x, dy, sizes=[O], axes=[2], mode="nearest")["X_delta"],
    "linear":    lambda: dr.resize_backward(x, dy, sizes=[O], axes=[2], mode="linear")["X_delta"],
    "cubic":     lambda: dr.resize_backward(x, dy, sizes=[O], axes=[2], mode="cubic")["X_delta"],
    "area":      lambda: dr.interpolate_backward(x, dy, sizes=[O], axes=[2], version=1,
                                                 mode="area")[0],
    "antialias": lambda: dr.resize_backward(x, dy, sizes=[O], axes=[2], mode="linear",
                                            antialias=1)["X_delta"],
    "pillow":    lambda: dr.interpolate_backward(x[:, :, None, :], dy[:, :, None, :], sizes=[1, O],
                                                 axes=[2, 3], version=11, mode="bicubic_pillow",
                                                 cube_coeff=-0.5)[0][:, :, 0, :],
}
for name, g in BACKWARD.items():
    np.testing.assert_allclose(g()[0, 0], W[name].T @ dy[0, 0], rtol=1e-12, atol=1e-12)
print("backward == W.T @ dy for", ", ".join(W))

# %% [markdown]
# The transpose is the *adjoint*: $\langle Wx, \delta y\rangle = \langle x, W^\top \delta
# y\rangle$ for every pair — the "dot-product test" that any hand-written backward must pass.

# %%
for name, f in MODES.items():
    lhs = np.vdot(f(x), dy)
    rhs = np.vdot(x, BACKWARD[name]())
    print(f"{name:10s} <Wx, dy> = {lhs:+.12f}   <x, W^T dy> = {rhs:+.12f}")
    assert abs(lhs - rhs) < 1e-12

# %% [markdown]
# ## Upsampling: rows become interpolation kernels
#
# Upsampling $L = 6 \to O = 15$ with linear and cubic: row $o$ is the kernel centred at the
# sampling coordinate $c(o) = (o + \tfrac12)/s - \tfrac12$ (ONNX `half_pixel`). Plotting each
# row against $j - c(o)$ gives back the triangle and the Keys cubic — the edges excepted,
# where replication folds the outside taps onto the first and last pixel.

# %%
L2, O2 = 6, 15
s = O2 / L2
fig, axes = plt.subplots(1, 2, figsize=(11, 3.6), constrained_layout=True)
for ax, mode in zip(axes, ("linear", "cubic")):
    m = matrix_of(lambda e: dr.resize(e, sizes=[O2], axes=[2], mode=mode), L2)
    for o in range(O2):
        c = (o + 0.5) / s - 0.5
        inside = 2 <= c <= L2 - 3
        ax.plot(np.arange(L2) - c, m[o], "o-" if inside else "x:", ms=3, lw=0.8,
                color="tab:blue" if inside else "tab:grey")
    ax.axhline(0, color="black", lw=0.5)
    ax.set_xlabel("distance $j - c(o)$ (input pixels)")
    ax.set_ylabel("weight $W_{oj}$")
    ax.set_title(f"{mode}, {L2} → {O2}: rows of $W$ (grey: near an edge)")
    ax.set_xlim(-3, 3)
    ax.grid(alpha=0.3)
plt.show()

# %% [markdown]
# ## 2-D is a Kronecker product
#
# A 2-D resize is one pass per axis, so on the flattened image its matrix is
# $W = W_H \otimes W_W$: row-major flattening of $y = W_H X W_W^\top$.

# %%
H, Wd, OH, OW = 5, 7, 3, 4
WH = matrix_of(lambda e: dr.resize(e, sizes=[OH], axes=[2], mode="cubic"), H)
WW = matrix_of(lambda e: dr.resize(e, sizes=[OW], axes=[2], mode="cubic"), Wd)
X = rng.standard_normal((1, 1, H, Wd))
Y = dr.resize(X, sizes=[OH, OW], axes=[2, 3], mode="cubic")
np.testing.assert_allclose(Y[0, 0].ravel(), np.kron(WH, WW) @ X[0, 0].ravel(), atol=1e-12)
np.testing.assert_allclose(Y[0, 0], WH @ X[0, 0] @ WW.T, atol=1e-12)
print("2-D cubic resize == kron(W_H, W_W) @ vec(X); non-zeros:",
      np.count_nonzero(np.abs(np.kron(WH, WW)) > 1e-15), "of", OH * OW * H * Wd)

# %% [markdown]
# ## Exercises
#
# 1. **Antialias width.** For linear with `antialias=1`, count the non-zeros per row of $W$
#    for $L = 40$ and $O = 20, 10, 5$. How does the count grow with $1/s$? Compare with
#    `antialias=0`.
# 2. **Nearest modes.** Build the nearest matrix for $L = 7 \to O = 4$ with
#    `nearest_mode` = `round_prefer_floor`, `round_prefer_ceil`, `floor`, `ceil`. Which
#    columns are never read (a zero column of $W$)? What is the data gradient of those inputs?
# 3. **Adjoint by hand.** Write a function `my_backward(dy)` for the area mode that uses only
#    the forward (hint: build $W$ once) and check it against `dr.interpolate_backward` on a
#    random `dy`.
# 4. **Area vs antialias.** Plot the rows of `area` and `antialias` for $L = 12 \to O = 5$ in
#    one figure. Which one is the box and which one the tent?
#
# Solutions: [solutions.md](solutions.md#notebook-1).
