/* SPDX-License-Identifier: MIT */
/* scale_range.c — the size-preserving interval of each scale (and roi) entry.
 *
 * For one call (attributes, input shape, 1-D inputs) and one entry θ of its
 * scales / roi / scale_factor, the set of values of θ (the others held) for
 * which the op's own shape inference gives the same output shape is a
 * half-open interval [lo, hi) of doubles: every size rule is a
 * non-decreasing step function of the scale (ONNX's float64 floor, OpenVINO's
 * float32 int64(L * (s + 1e-6f)) with pads, PyTorch's floor).  It is found
 * exactly by bisection over the ordered bit patterns of the doubles, asking
 * the op's infer_shape at each probe, so the answer is the op's own rule to
 * the last bit.  An entry that does not enter the shape (sizes mode, roi)
 * gets (-inf, +inf). */
#include "core.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* Same output shape as the reference at this value vector? */
typedef int (*same_fn)(void *ctx, const double *vals);

/* Doubles in order <-> unsigned keys in order (finite values only). */
static uint64_t dkey(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return (u >> 63) ? ~u : (u | ((uint64_t)1 << 63));
}

static double dval(uint64_t k)
{
    const uint64_t u = (k >> 63) ? (k & ~((uint64_t)1 << 63)) : ~k;
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* [lo, hi) of entry i of vals (vals[i] restored afterwards). */
static void range_one(same_fn same, void *ctx, double *vals, int i, double *lo, double *hi)
{
    const double v = vals[i];
    vals[i] = -DBL_MAX;
    if (same(ctx, vals)) {
        *lo = -INFINITY;
    } else {
        uint64_t a = dkey(-DBL_MAX), b = dkey(v); /* same(b), !same(a) */
        while (b - a > 1) {
            const uint64_t m = a + (b - a) / 2;
            vals[i] = dval(m);
            if (same(ctx, vals))
                b = m;
            else
                a = m;
        }
        *lo = dval(b);
    }
    vals[i] = DBL_MAX;
    if (same(ctx, vals)) {
        *hi = INFINITY;
    } else {
        uint64_t a = dkey(v), b = dkey(DBL_MAX); /* same(a), !same(b) */
        while (b - a > 1) {
            const uint64_t m = a + (b - a) / 2;
            vals[i] = dval(m);
            if (same(ctx, vals))
                a = m;
            else
                b = m;
        }
        *hi = dval(b);
    }
    vals[i] = v;
}

static int same_shape(drs_status s, int r, const int64_t *os, int r0, const int64_t *os0)
{
    return s == DRS_OK && r == r0 && memcmp(os, os0, sizeof(int64_t) * (size_t)r) == 0;
}

/* ------------------------------------------------------ Interpolate */
typedef struct interp_ctx {
    const drs_interpolate_attrs *at;
    const drs_tensor *x;
    drs_interpolate_inputs in;
    int r0;
    int64_t os0[DRS_MAX_RANK];
} interp_ctx;

static int interp_same(void *vc, const double *vals)
{
    interp_ctx *c = vc;
    drs_interpolate_inputs in = c->in;
    in.scales = vals;
    int r;
    int64_t os[DRS_MAX_RANK];
    const drs_status s = drs_interpolate_infer_shape(c->at, c->x, &in, &r, os);
    return same_shape(s, r, os, c->r0, c->os0);
}

drs_status drs_interpolate_scale_range(const drs_interpolate_attrs *attrs, const drs_tensor *data,
                                       const drs_interpolate_inputs *in, double *lo, double *hi)
{
    drs__clear_error();
    if (!attrs || !data || !in)
        return drs__fail(DRS_ERR_INVALID_ARGUMENT,
                         "Interpolate scale range: %s is NULL",
                         !attrs ? "attrs" : !data ? "data" : "inputs");
    const int n = in->scales ? in->n_scales : 0;
    if (n < 0 || n > DRS_MAX_RANK)
        return drs__fail(DRS_ERR_SHAPE, "Interpolate scale range: scales has %d entries, expected 0..%d",
                         n, DRS_MAX_RANK);
    if (n > 0 && (!lo || !hi))
        return drs__fail(DRS_ERR_INVALID_ARGUMENT, "Interpolate scale range: %s is NULL",
                         !lo ? "lo" : "hi");
    interp_ctx c = {attrs, data, *in, 0, {0}};
    drs_status s = drs_interpolate_infer_shape(attrs, data, in, &c.r0, c.os0);
    if (s)
        return s;
    double vals[DRS_MAX_RANK], tl[DRS_MAX_RANK], th[DRS_MAX_RANK];
    for (int i = 0; i < n; i++)
        vals[i] = in->scales[i];
    for (int i = 0; i < n; i++)
        range_one(interp_same, &c, vals, i, &tl[i], &th[i]);
    drs__clear_error();
    for (int i = 0; i < n; i++) {
        lo[i] = tl[i];
        hi[i] = th[i];
    }
    return DRS_OK;
}

/* ------------------------------------------------------------ Resize */
typedef struct resize_ctx {
    const drs_resize_attrs *at;
    const drs_tensor *x;
    drs_resize_inputs in;
    int which; /* 0 scales, 1 roi */
    int r0;
    int64_t os0[DRS_MAX_RANK];
} resize_ctx;

static int resize_same(void *vc, const double *vals)
{
    resize_ctx *c = vc;
    drs_resize_inputs in = c->in;
    if (c->which == 0)
        in.scales = vals;
    else
        in.roi = vals;
    int r;
    int64_t os[DRS_MAX_RANK];
    const drs_status s = drs_resize_infer_shape(c->at, c->x, &in, &r, os);
    return same_shape(s, r, os, c->r0, c->os0);
}

drs_status drs_resize_scale_range(const drs_resize_attrs *attrs, const drs_tensor *X,
                                  const drs_resize_inputs *in, double *scales_lo,
                                  double *scales_hi, double *roi_lo, double *roi_hi)
{
    drs__clear_error();
    if (!attrs || !X || !in)
        return drs__fail(DRS_ERR_INVALID_ARGUMENT, "Resize scale range: %s is NULL",
                         !attrs ? "attrs" : !X ? "X" : "inputs");
    const int ns = in->scales ? in->n_scales : 0, nr = in->roi ? in->n_roi : 0;
    if (ns < 0 || ns > DRS_MAX_RANK || nr < 0 || nr > 2 * DRS_MAX_RANK)
        return drs__fail(DRS_ERR_SHAPE,
                         "Resize scale range: scales has %d entries (0..%d), roi %d (0..%d)", ns,
                         DRS_MAX_RANK, nr, 2 * DRS_MAX_RANK);
    if ((scales_lo || scales_hi) && !(scales_lo && scales_hi))
        return drs__fail(DRS_ERR_INVALID_ARGUMENT,
                         "Resize scale range: scales_lo and scales_hi must both be given");
    if ((roi_lo || roi_hi) && !(roi_lo && roi_hi))
        return drs__fail(DRS_ERR_INVALID_ARGUMENT,
                         "Resize scale range: roi_lo and roi_hi must both be given");
    resize_ctx c = {attrs, X, *in, 0, 0, {0}};
    drs_status s = drs_resize_infer_shape(attrs, X, in, &c.r0, c.os0);
    if (s)
        return s;
    double vals[2 * DRS_MAX_RANK], sl[DRS_MAX_RANK], sh[DRS_MAX_RANK], rl[2 * DRS_MAX_RANK],
        rh[2 * DRS_MAX_RANK];
    if (scales_lo) {
        for (int i = 0; i < ns; i++)
            vals[i] = in->scales[i];
        for (int i = 0; i < ns; i++)
            range_one(resize_same, &c, vals, i, &sl[i], &sh[i]);
    }
    if (roi_lo) {
        c.which = 1;
        for (int i = 0; i < nr; i++)
            vals[i] = in->roi[i];
        for (int i = 0; i < nr; i++)
            range_one(resize_same, &c, vals, i, &rl[i], &rh[i]);
    }
    drs__clear_error();
    for (int i = 0; scales_lo && i < ns; i++) {
        scales_lo[i] = sl[i];
        scales_hi[i] = sh[i];
    }
    for (int i = 0; roi_lo && i < nr; i++) {
        roi_lo[i] = rl[i];
        roi_hi[i] = rh[i];
    }
    return DRS_OK;
}

/* -------------------------------------------------- TorchInterpolate */
typedef struct torch_ctx {
    drs_torch_interpolate_attrs at;
    const drs_tensor *x;
    int r0;
    int64_t os0[DRS_MAX_RANK];
} torch_ctx;

static int torch_same(void *vc, const double *vals)
{
    torch_ctx *c = vc;
    drs_torch_interpolate_attrs at = c->at;
    for (int i = 0; i < at.n_scale_factor; i++)
        at.scale_factor[i] = vals[i];
    int r;
    int64_t os[DRS_MAX_RANK];
    const drs_status s = drs_torch_interpolate_infer_shape(&at, c->x, &r, os);
    return same_shape(s, r, os, c->r0, c->os0);
}

drs_status drs_torch_interpolate_scale_range(const drs_torch_interpolate_attrs *attrs,
                                             const drs_tensor *input, double *lo, double *hi)
{
    drs__clear_error();
    if (!attrs || !input)
        return drs__fail(DRS_ERR_INVALID_ARGUMENT, "TorchInterpolate scale range: %s is NULL",
                         !attrs ? "attrs" : "input");
    const int n = attrs->n_scale_factor;
    if (n < 0 || n > 3)
        return drs__fail(DRS_ERR_SHAPE,
                         "TorchInterpolate scale range: n_scale_factor must be in [0, 3], got %d",
                         n);
    if (n > 0 && (!lo || !hi))
        return drs__fail(DRS_ERR_INVALID_ARGUMENT, "TorchInterpolate scale range: %s is NULL",
                         !lo ? "lo" : "hi");
    torch_ctx c = {*attrs, input, 0, {0}};
    drs_status s = drs_torch_interpolate_infer_shape(attrs, input, &c.r0, c.os0);
    if (s)
        return s;
    double vals[3], tl[3], th[3];
    for (int i = 0; i < n; i++)
        vals[i] = attrs->scale_factor[i];
    for (int i = 0; i < n; i++)
        range_one(torch_same, &c, vals, i, &tl[i], &th[i]);
    drs__clear_error();
    for (int i = 0; i < n; i++) {
        lo[i] = tl[i];
        hi[i] = th[i];
    }
    return DRS_OK;
}
