/* SPDX-License-Identifier: MIT */
/* dresample_autograd.h — a minimal tape (Wengert list) autograd over the
 * dresample operators (public API; library dresample_autograd).
 *
 * A tape records the ops you call on its variables; drs_tape_backward() walks
 * the record in reverse and calls each op's paired backward kernel
 * (drs_interpolate_backward, drs_resize_backward,
 * drs_torch_interpolate_backward, drs_grid_sample_backward, BLIS gemm for
 * matmul, ...), accumulating gradients into every variable that requires one.
 *
 *     drs_tape *tape;  drs_tape_new(&tape);
 *     drs_var *theta, *moving, *fixed, *grid, *warped, *loss;
 *     drs_var_new(&theta, tape, DRS_F64, 3, (int64_t[]){1, 2, 3}, theta0, 1);
 *     drs_var_new(&moving, tape, DRS_F64, 4, (int64_t[]){1, 1, 64, 64}, img, 0);
 *     drs_var_new(&fixed, tape, DRS_F64, 4, (int64_t[]){1, 1, 64, 64}, target, 0);
 *     drs_tape_pos start = drs_tape_tell(tape);    // parameters live before this
 *     for (int step = 0; step < 200; step++) {
 *         drs_ag_affine_grid(&grid, theta, 2, (int64_t[]){64, 64}, 0);
 *         drs_ag_grid_sample(&warped, moving, grid, &gs_attrs);
 *         drs_ag_mse_loss(&loss, warped, fixed);
 *         drs_tape_zero_grad(tape);
 *         drs_tape_backward(loss);                 // theta's gradient is ready
 *         update(drs_var_value(theta), drs_var_grad(theta));
 *         drs_tape_rewind(tape, start);            // frees this step's vars
 *     }
 *     drs_tape_free(tape);                          // frees everything at once
 *
 * Ownership and lifetime
 *  - A tape owns one arena.  Every variable, value and gradient buffer is
 *    allocated in it; nothing is freed one by one.  drs_tape_free() frees it
 *    all; drs_tape_rewind(t, pos) frees everything created after drs_tape_tell()
 *    returned pos (so a training loop keeps its parameters before pos and
 *    rewinds every step: memory stays flat).  A drs_var pointer is valid until
 *    its tape is freed or rewound to a position taken before the var existed.
 *  - drs_var_value() / drs_var_grad() return views (drs_tensor by value) of
 *    buffers owned by the tape.  You may write the elements of a value (e.g.
 *    an optimiser step on a leaf) but must not do so between recording an op
 *    that reads that var and the backward that uses it: the backward kernels
 *    read the forward inputs (data, grid, scales) as they are at backward time.
 *  - Every var of one op must belong to the same tape.
 *
 * Types and shapes
 *  - Values are f32 or f64 (f64 is the working type for training; f32 runs the
 *    same kernels).  Elementwise ops, matmul and losses need equal dtypes.
 *    Gradients have the value's dtype and shape.  A scalar is shape [1].
 *  - scales and roi variables (the differentiable scales of Interpolate-4/11
 *    and Resize, the roi of tf_crop_and_resize) are f64 rank-1 vars: the
 *    library takes them as double arrays.
 *  - Sizes are checked in 64 bits (element counts and byte counts overflow →
 *    DRS_ERR_OVERFLOW).
 *
 * Gradients
 *  - Leaves created with requires_grad = 1 get a zero-filled gradient buffer.
 *    An op's output requires grad when grad mode is on and one of its
 *    differentiable inputs requires grad; only such ops are recorded.
 *  - drs_tape_backward(loss) seeds d loss = 1 (loss has one element), zeroes
 *    the gradients of the non-leaf vars recorded up to loss, then walks the
 *    record from loss back to the start, skipping vars no gradient reached.
 *    Leaf gradients ACCUMULATE (+=) across calls, as in PyTorch; a var that
 *    feeds several ops receives the sum of their contributions.  Call
 *    drs_tape_zero_grad() before each step.  Backward may be called any
 *    number of times on the same record (nothing is consumed).
 *  - Grad mode (drs_tape_set_grad_enabled(t, 0)): ops compute their values but
 *    record nothing; their outputs require no grad (use it for evaluation and
 *    finite differences).
 *
 * Errors
 *  - Every call returns a drs_status; drs_last_error() (dresample.h) gives the
 *    thread-local message naming the argument and value, e.g.
 *    "drs_ag_add: b shape[1] must be 3 (a's), got 4".  Library errors keep the
 *    library's message behind the tape op's name ("drs_ag_resize: Resize-19:
 *    scales[1] must be > 0, got -2").
 *  - A failing op records nothing, allocates nothing (the arena is rewound),
 *    leaves *out untouched and the tape usable.  If drs_tape_backward() fails
 *    half-way (only on out-of-memory in a kernel's scratch), the gradients are
 *    unspecified until the next drs_tape_zero_grad().
 *
 * Threads
 *  - A tape is not thread-safe: use one tape per thread.  The kernels are
 *    OpenMP-parallel and bitwise deterministic for any thread count (sums run
 *    in a fixed order, in double).  matmul calls BLIS level-3 (threaded by
 *    BLIS itself): do not record ops from inside an OpenMP parallel region.
 */
#ifndef DRESAMPLE_AUTOGRAD_H
#define DRESAMPLE_AUTOGRAD_H

#include "dresample.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct drs_tape drs_tape;
typedef struct drs_var drs_var;

/* A position on a tape (from drs_tape_tell); its fields are private. */
typedef struct drs_tape_pos {
    const void *block_;
    size_t used_;
    const drs_var *last_;
    int64_t count_;
} drs_tape_pos;

/* ---------------------------------------------------------------- tape */
/* Creates an empty tape (grad mode on).  *tape is set only on success. */
DRS_API drs_status drs_tape_new(drs_tape **tape);
/* Frees the tape, every var and buffer in it.  NULL is a no-op. */
DRS_API void drs_tape_free(drs_tape *tape);

/* Current end of the tape; drs_tape_rewind(t, pos) frees everything created
 * after it.  A position stays valid until the tape is rewound to an earlier
 * one. */
DRS_API drs_tape_pos drs_tape_tell(const drs_tape *tape);
DRS_API drs_status drs_tape_rewind(drs_tape *tape, drs_tape_pos pos);

/* Grad mode: returns the previous setting (1 = record, 0 = no-grad). */
DRS_API int drs_tape_set_grad_enabled(drs_tape *tape, int enabled);
DRS_API int drs_tape_grad_enabled(const drs_tape *tape);

/* Sets every gradient on the tape (leaves and recorded vars) to zero. */
DRS_API drs_status drs_tape_zero_grad(drs_tape *tape);

/* Backward from a one-element var (d loss = 1).  Errors: loss NULL, not one
 * element, or requiring no grad (built in no-grad mode or from constants). */
DRS_API drs_status drs_tape_backward(drs_var *loss);
/* Backward from any var with a given output gradient dy (same shape and
 * dtype as y's value): vector-Jacobian product, otherwise as above. */
DRS_API drs_status drs_tape_backward_grad(drs_var *y, const drs_tensor *dy);

/* Number of vars on the tape and arena bytes in use (for tests, leak hunts). */
DRS_API int64_t drs_tape_num_vars(const drs_tape *tape);
DRS_API size_t drs_tape_bytes(const drs_tape *tape);

/* ---------------------------------------------------------------- vars */
/* A leaf of the given dtype (f32 or f64) and shape (rank 1..8).  init: NULL
 * for zeros, else numel elements of dtype copied in.  requires_grad: 0 or 1. */
DRS_API drs_status drs_var_new(drs_var **out, drs_tape *tape, drs_dtype dtype, int rank,
                       const int64_t *shape, const void *init, int requires_grad);
/* A leaf holding a copy of t (f32 or f64). */
DRS_API drs_status drs_var_from_tensor(drs_var **out, drs_tape *tape, const drs_tensor *t,
                               int requires_grad);

/* The value (a view into the tape: the elements may be written, see above). */
DRS_API drs_tensor drs_var_value(const drs_var *v);
/* The gradient view; data is NULL when v requires no grad. */
DRS_API drs_tensor drs_var_grad(const drs_var *v);
DRS_API int drs_var_requires_grad(const drs_var *v);
DRS_API int drs_var_is_leaf(const drs_var *v);
/* Element 0 of the value as a double (the loss); NaN when v is NULL or empty. */
DRS_API double drs_var_item(const drs_var *v);

/* ---------------------------------------------------------------- ops
 * Each op: *out receives a new var on the inputs' tape.  Shapes below. */

/* Elementwise, a and b of equal dtype and shape: out = a + b, a - b, a * b. */
DRS_API drs_status drs_ag_add(drs_var **out, drs_var *a, drs_var *b);
DRS_API drs_status drs_ag_sub(drs_var **out, drs_var *a, drs_var *b);
DRS_API drs_status drs_ag_mul(drs_var **out, drs_var *a, drs_var *b);
/* out = c * a (c finite). */
DRS_API drs_status drs_ag_scale(drs_var **out, drs_var *a, double c);
/* out = max(a, 0); the gradient at a == 0 is 0. */
DRS_API drs_status drs_ag_relu(drs_var **out, drs_var *a);
/* Reductions to shape [1]: sum (0 for an empty a), mean (a non-empty). */
DRS_API drs_status drs_ag_sum(drs_var **out, drs_var *a);
DRS_API drs_status drs_ag_mean(drs_var **out, drs_var *a);
/* mean((a - b)^2), shape [1]; a, b non-empty, equal dtype and shape. */
DRS_API drs_status drs_ag_mse_loss(drs_var **out, drs_var *a, drs_var *b);
/* 2-D: a [M, K] x b [K, N] -> [M, N] (BLIS dgemm/sgemm, forward and
 * backward: da += dout b^T, db += a^T dout). */
DRS_API drs_status drs_ag_matmul(drs_var **out, drs_var *a, drs_var *b);

/* torch.nn.functional.affine_grid.  n_spatial = 2: theta [N, 2, 3], size =
 * {H, W} -> grid [N, H, W, 2] with (x, y) = theta . (x_w, y_h, 1);
 * n_spatial = 3: theta [N, 3, 4], size = {D, H, W} -> grid [N, D, H, W, 3]
 * with (x, y, z) = theta . (x_w, y_h, z_d, 1).  Base coordinates:
 * align_corners = 1: x_w = -1 + 2w/(W-1); 0: x_w = (2w+1)/W - 1; a length-1
 * axis gives 0 (PyTorch's rule).  Sizes >= 0; align_corners 0 or 1.  The
 * output feeds drs_ag_grid_sample directly (x innermost-first). */
DRS_API drs_status drs_ag_affine_grid(drs_var **grid, drs_var *theta, int n_spatial,
                              const int64_t *size, int align_corners);

/* OpenVINO Interpolate-1/4/11 on data (f32/f64).  in: sizes and axes (copied
 * into the tape) and, when scales is NULL, constant scales.  scales: NULL, or
 * an f64 rank-1 var used as in->scales (Interpolate-11: scales_or_sizes in
 * scales mode) whose gradient is scales_delta (docs/semantics.md: output size held
 * fixed); then in->scales must be NULL.  Interpolate-1 takes no scales.
 * in == NULL means every 1-D input absent (so a scales var is the only one). */
DRS_API drs_status drs_ag_interpolate(drs_var **out, drs_var *data, drs_var *scales,
                              const drs_interpolate_inputs *in,
                              const drs_interpolate_attrs *attrs);

/* ONNX Resize-10..19 on X (f32/f64).  roi and scales: NULL, or f64 rank-1
 * vars replacing in->roi / in->scales (which must then be NULL); their
 * gradients are roi_delta (tf_crop_and_resize) and scales_delta.  in->sizes
 * and the constant arrays are copied into the tape; in may be NULL. */
DRS_API drs_status drs_ag_resize(drs_var **Y, drs_var *X, drs_var *roi, drs_var *scales,
                         const drs_resize_inputs *in, const drs_resize_attrs *attrs);

/* Keeps learned scales where the output shape holds: y is the output of
 * drs_ag_interpolate / drs_ag_resize recorded with a scales var (grad mode on,
 * the var requiring grad).  Call it after the optimiser wrote new values into
 * that var (before rewinding y away): each entry is clamped, in place, into
 * the half-open interval of values that give y's output length on its axis
 * under the op's own size rule (dresample.h, drs_*_scale_range), i.e. into
 * [lo, nextafter(hi, 0)]; entries already inside stay bit for bit.  At the low
 * end lo the scales gradient is the right derivative (the kink rule,
 * dresample.h), so descent can go on from there.  y's value and gradients
 * still belong to the scales it was computed with: call this after backward
 * and the optimiser step, then record the next forward.  Errors: y NULL or not such
 * an output, a NaN entry, no value giving the length; nothing is written on
 * error. */
DRS_API drs_status drs_ag_project_scales(drs_var *y);

/* torch.nn.functional.interpolate preset (input gradient only). */
DRS_API drs_status drs_ag_torch_interpolate(drs_var **out, drs_var *input,
                                    const drs_torch_interpolate_attrs *attrs);

/* GridSample-9/16/20/22, 4-D or 5-D: data [N, C, ...], grid [N, ..., S];
 * gradients to data and grid (PyTorch's rules, dresample.h). */
DRS_API drs_status drs_ag_grid_sample(drs_var **out, drs_var *data, drs_var *grid,
                              const drs_grid_sample_attrs *attrs);

#ifdef __cplusplus
}
#endif
#endif /* DRESAMPLE_AUTOGRAD_H */
