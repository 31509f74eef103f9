/* SPDX-License-Identifier: MIT */
/* resample_ops.c — the library's forward ops on the tape, and their backward
 * through the paired library calls (DRS_GRAD_ACCUMULATE into the inputs'
 * gradients):
 *
 *   drs_ag_interpolate       Interpolate-1/4/11  -> drs_interpolate_backward
 *                            (data_delta, scales_delta)
 *   drs_ag_resize            Resize-10..19       -> drs_resize_backward
 *                            (X_delta, scales_delta, roi_delta)
 *   drs_ag_torch_interpolate TorchInterpolate    -> drs_torch_interpolate_backward
 *   drs_ag_grid_sample       GridSample 4-D/5-D  -> drs_grid_sample_backward
 *                            (data_delta, grid_delta)
 *
 * Each op asks the library for the output shape first (which validates every
 * argument), then allocates the output var and runs the forward; a failing
 * forward rewinds the arena, so a failed op leaves no trace.  The 1-D inputs
 * (sizes, axes, constant scales/roi) are copied into the tape: the backward
 * needs them after the caller's arrays are gone.  Threads: the library's.
 */
#include "ag_internal.h"

#include <string.h>

static int wants(const drs_var *v) { return v && v->requires_grad && v->tape->grad_enabled; }

/* Checks a 1-D count before anything is copied (the library checks the exact
 * length against the rank; this only bounds the copy). */
static drs_status check_count(const char *op, const char *name, int n, int max)
{
    if (n < 0 || n > max)
        return drs__ag_fail(DRS_ERR_SHAPE, op, "%s has %d entries, must be in [0, %d]", name, n,
                            max);
    return DRS_OK;
}

/* A scales/roi var: f64, rank 1, at most max entries, on the tape; the
 * constant array it replaces must be absent. */
static drs_status check_param_var(const char *op, const char *name, const drs_var *p,
                                  const drs_tape *t, const void *constant, int max)
{
    drs_status s = drs__ag_check_var(op, name, p, t);
    if (s)
        return s;
    if (p->value.dtype != DRS_F64)
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op, "%s var dtype must be f64, got %s", name,
                            drs_dtype_name(p->value.dtype));
    if (p->value.rank != 1)
        return drs__ag_fail(DRS_ERR_SHAPE, op, "%s var rank must be 1, got %d", name,
                            p->value.rank);
    if (p->numel > max)
        return drs__ag_fail(DRS_ERR_SHAPE, op, "%s var has %lld entries, at most %d", name,
                            (long long)p->numel, max);
    if (constant)
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op,
                            "in->%s must be NULL when a %s var is given", name, name);
    return DRS_OK;
}

/* Copies n elements of `size` bytes into the tape (NULL stays NULL). */
static const void *keep(drs_tape *t, const void *src, int n, size_t size, int *nomem)
{
    if (!src || n <= 0)
        return src;
    void *d = drs__ag_alloc(t, (size_t)n * size);
    if (!d) {
        *nomem = 1;
        return NULL;
    }
    memcpy(d, src, (size_t)n * size);
    return d;
}

/* Allocates the output node of a resample op; undone by the caller on error. */
static drs_status new_out(const char *op, drs_tape *t, drs_dtype dt, int rank,
                          const int64_t *shape, int rg, ag_op kind, drs_var **o)
{
    return drs__ag_node(t, op, dt, rank, shape, rg, rg ? kind : AG_LEAF, o);
}

/* ------------------------------------------------------- Interpolate */
drs_status drs_ag_interpolate(drs_var **out, drs_var *data, drs_var *scales,
                              const drs_interpolate_inputs *in,
                              const drs_interpolate_attrs *attrs)
{
    const char *op = "drs_ag_interpolate";
    drs_status s;
    if (!out)
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op, "out is NULL");
    if ((s = drs__ag_check_var(op, "data", data, NULL)))
        return s;
    if (!attrs)
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op, "attrs is NULL");
    drs_interpolate_inputs use;
    memset(&use, 0, sizeof use);
    if (in)
        use = *in;
    if ((use.sizes && (s = check_count(op, "sizes", use.n_sizes, DRS_MAX_RANK))) ||
        (use.axes && (s = check_count(op, "axes", use.n_axes, DRS_MAX_RANK))) ||
        (use.scales && (s = check_count(op, "scales", use.n_scales, DRS_MAX_RANK))))
        return s;
    if (scales) {
        if (attrs->version == 1)
            return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op,
                                "Interpolate-1 has no scales input, but a scales var was given");
        if ((s = check_param_var(op, "scales", scales, data->tape, use.scales, DRS_MAX_RANK)))
            return s;
        use.scales = scales->value.data;
        use.n_scales = (int)scales->numel;
    }
    int rank;
    int64_t shape[DRS_MAX_RANK];
    if ((s = drs_interpolate_infer_shape(attrs, &data->value, &use, &rank, shape)))
        return drs__ag_wrap(s, op);
    drs_tape *t = data->tape;
    const int rg = wants(data) || wants(scales);
    drs_tape_pos pos = drs_tape_tell(t);
    drs_var *o;
    if ((s = new_out(op, t, data->value.dtype, rank, shape, rg, AG_INTERPOLATE, &o)))
        return s;
    if (rg) {
        int nomem = 0;
        use.sizes = keep(t, use.sizes, use.n_sizes, sizeof(int64_t), &nomem);
        use.axes = keep(t, use.axes, use.n_axes, sizeof(int64_t), &nomem);
        if (!scales)
            use.scales = keep(t, use.scales, use.n_scales, sizeof(double), &nomem);
        if (nomem) {
            drs__ag_undo(t, pos);
            return drs__ag_fail(DRS_ERR_NOMEM, op, "out of memory");
        }
        o->u.interp.a = *attrs;
        o->u.interp.in = use;
        o->in[0] = data;
        o->in[1] = scales;
    }
    if ((s = drs_interpolate_forward(&o->value, &data->value, &use, attrs))) {
        drs__ag_undo(t, pos);
        return drs__ag_wrap(s, op);
    }
    *out = o;
    return DRS_OK;
}

/* ------------------------------------------------------------ Resize */
drs_status drs_ag_resize(drs_var **Y, drs_var *X, drs_var *roi, drs_var *scales,
                         const drs_resize_inputs *in, const drs_resize_attrs *attrs)
{
    const char *op = "drs_ag_resize";
    drs_status s;
    if (!Y)
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op, "Y is NULL");
    if ((s = drs__ag_check_var(op, "X", X, NULL)))
        return s;
    if (!attrs)
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op, "attrs is NULL");
    drs_resize_inputs use;
    memset(&use, 0, sizeof use);
    if (in)
        use = *in;
    if ((use.roi && (s = check_count(op, "roi", use.n_roi, 2 * DRS_MAX_RANK))) ||
        (use.scales && (s = check_count(op, "scales", use.n_scales, DRS_MAX_RANK))) ||
        (use.sizes && (s = check_count(op, "sizes", use.n_sizes, DRS_MAX_RANK))))
        return s;
    if (roi) {
        if ((s = check_param_var(op, "roi", roi, X->tape, use.roi, 2 * DRS_MAX_RANK)))
            return s;
        use.roi = roi->value.data;
        use.n_roi = (int)roi->numel;
    }
    if (scales) {
        if ((s = check_param_var(op, "scales", scales, X->tape, use.scales, DRS_MAX_RANK)))
            return s;
        use.scales = scales->value.data;
        use.n_scales = (int)scales->numel;
    }
    int rank;
    int64_t shape[DRS_MAX_RANK];
    if ((s = drs_resize_infer_shape(attrs, &X->value, &use, &rank, shape)))
        return drs__ag_wrap(s, op);
    drs_tape *t = X->tape;
    const int rg = wants(X) || wants(roi) || wants(scales);
    drs_tape_pos pos = drs_tape_tell(t);
    drs_var *o;
    if ((s = new_out(op, t, X->value.dtype, rank, shape, rg, AG_RESIZE, &o)))
        return s;
    if (rg) {
        int nomem = 0;
        if (!roi)
            use.roi = keep(t, use.roi, use.n_roi, sizeof(double), &nomem);
        if (!scales)
            use.scales = keep(t, use.scales, use.n_scales, sizeof(double), &nomem);
        use.sizes = keep(t, use.sizes, use.n_sizes, sizeof(int64_t), &nomem);
        if (nomem) {
            drs__ag_undo(t, pos);
            return drs__ag_fail(DRS_ERR_NOMEM, op, "out of memory");
        }
        o->u.resize.a = *attrs;
        o->u.resize.in = use;
        o->in[0] = X;
        o->in[1] = roi;
        o->in[2] = scales;
    }
    if ((s = drs_resize_forward(&o->value, &X->value, &use, attrs))) {
        drs__ag_undo(t, pos);
        return drs__ag_wrap(s, op);
    }
    *Y = o;
    return DRS_OK;
}

/* -------------------------------------------------- TorchInterpolate */
drs_status drs_ag_torch_interpolate(drs_var **out, drs_var *input,
                                    const drs_torch_interpolate_attrs *attrs)
{
    const char *op = "drs_ag_torch_interpolate";
    drs_status s;
    if (!out)
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op, "out is NULL");
    if ((s = drs__ag_check_var(op, "input", input, NULL)))
        return s;
    if (!attrs)
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op, "attrs is NULL");
    int rank;
    int64_t shape[DRS_MAX_RANK];
    if ((s = drs_torch_interpolate_infer_shape(attrs, &input->value, &rank, shape)))
        return drs__ag_wrap(s, op);
    drs_tape *t = input->tape;
    const int rg = wants(input);
    drs_tape_pos pos = drs_tape_tell(t);
    drs_var *o;
    if ((s = new_out(op, t, input->value.dtype, rank, shape, rg, AG_TORCH, &o)))
        return s;
    if (rg) {
        o->u.torch = *attrs;
        o->in[0] = input;
    }
    if ((s = drs_torch_interpolate_forward(&o->value, &input->value, attrs))) {
        drs__ag_undo(t, pos);
        return drs__ag_wrap(s, op);
    }
    *out = o;
    return DRS_OK;
}

/* -------------------------------------------------------- GridSample */
drs_status drs_ag_grid_sample(drs_var **out, drs_var *data, drs_var *grid,
                              const drs_grid_sample_attrs *attrs)
{
    const char *op = "drs_ag_grid_sample";
    drs_status s;
    if (!out)
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op, "out is NULL");
    if ((s = drs__ag_check_var(op, "data", data, NULL)) ||
        (s = drs__ag_check_var(op, "grid", grid, data->tape)))
        return s;
    if (!attrs)
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op, "attrs is NULL");
    int rank;
    int64_t shape[DRS_MAX_RANK];
    if ((s = drs_grid_sample_infer_shape(attrs, &data->value, &grid->value, &rank, shape)))
        return drs__ag_wrap(s, op);
    drs_tape *t = data->tape;
    const int rg = wants(data) || wants(grid);
    drs_tape_pos pos = drs_tape_tell(t);
    drs_var *o;
    if ((s = new_out(op, t, data->value.dtype, rank, shape, rg, AG_GRID_SAMPLE, &o)))
        return s;
    if (rg) {
        o->u.grid = *attrs;
        o->in[0] = data;
        o->in[1] = grid;
    }
    if ((s = drs_grid_sample_forward(&o->value, &data->value, &grid->value, attrs))) {
        drs__ag_undo(t, pos);
        return drs__ag_wrap(s, op);
    }
    *out = o;
    return DRS_OK;
}

/* ---------------------------------------------------------- backward */
static drs_tensor *grad_of(drs_var *v) { return v && v->requires_grad ? &v->grad : NULL; }
static double *param_grad_of(drs_var *v)
{
    return v && v->requires_grad ? (double *)v->grad.data : NULL;
}
static void touch(drs_var *v)
{
    if (v && v->requires_grad)
        drs__ag_touch(v);
}

drs_status drs__ag_backward_resample(drs_var *v)
{
    const char *op = "drs_tape_backward";
    drs_status s = DRS_OK;
    drs_var *a = v->in[0], *b = v->in[1], *c = v->in[2];
    switch (v->op) {
    case AG_INTERPOLATE:
        /* out = Interpolate(data; scales): data_delta and scales_delta */
        s = drs_interpolate_backward(grad_of(a), param_grad_of(b), &v->grad, &a->value,
                                     &v->u.interp.in, &v->u.interp.a, DRS_GRAD_ACCUMULATE);
        break;
    case AG_RESIZE:
        /* Y = Resize(X; roi, scales): X_delta, scales_delta, roi_delta */
        s = drs_resize_backward(grad_of(a), param_grad_of(c), param_grad_of(b), &v->grad,
                                &a->value, &v->u.resize.in, &v->u.resize.a, DRS_GRAD_ACCUMULATE);
        break;
    case AG_TORCH:
        s = drs_torch_interpolate_backward(grad_of(a), &v->grad, &a->value, &v->u.torch,
                                           DRS_GRAD_ACCUMULATE);
        break;
    case AG_GRID_SAMPLE:
        /* out = GridSample(data, grid): data_delta and grid_delta */
        s = drs_grid_sample_backward(grad_of(a), grad_of(b), &v->grad, &a->value, &b->value,
                                     &v->u.grid, DRS_GRAD_ACCUMULATE);
        break;
    default:
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op, "internal: op %d is not a resample op",
                            (int)v->op);
    }
    if (s)
        return drs__ag_wrap(s, op);
    touch(a);
    touch(b);
    touch(c);
    return DRS_OK;
}
