/* SPDX-License-Identifier: MIT */
/* project.c — drs_ag_project_scales: keeps a learned scales variable inside
 * the set of values that give the output shape an op was recorded with.
 *
 * After an optimiser step the scales var holds new values; the op output y
 * recorded with it fixes, per scales entry, the output length of that entry's
 * axis.  For each entry the values giving that length form a half-open
 * interval [lo, hi) under the op's own size rule (every rule is a
 * non-decreasing step function of the scale); it is found exactly by
 * bisection over the ordered doubles with the op's infer_shape, from a value
 * known to give the length, and the entry is clamped into
 * [lo, nextafter(hi, 0)].  Only the public shape inference is
 * used, so the projection follows the library's rules to the last bit. */
#include "ag_internal.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* Doubles in order <-> unsigned keys in order (finite values). */
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

typedef struct proj {
    const drs_var *y;
    double *w;    /* working scales vector */
    int axis;     /* output axis of the entry being projected */
    int64_t len;  /* its length in y */
} proj;

/* Output length of p->axis with the working vector; -1 when the op refuses
 * a value <= 0 (below every interval), INT64_MAX when it refuses a larger one. */
static int64_t axis_len(const proj *p, int i, double t)
{
    const drs_var *y = p->y;
    const drs_var *x = y->in[0];
    p->w[i] = t;
    int r;
    int64_t os[DRS_MAX_RANK];
    drs_status s;
    if (y->op == AG_INTERPOLATE) {
        drs_interpolate_inputs in = y->u.interp.in;
        in.scales = p->w;
        s = drs_interpolate_infer_shape(&y->u.interp.a, &x->value, &in, &r, os);
    } else {
        drs_resize_inputs in = y->u.resize.in;
        in.scales = p->w;
        s = drs_resize_infer_shape(&y->u.resize.a, &x->value, &in, &r, os);
    }
    if (s != DRS_OK)
        return (t > 0.0 && t <= DBL_MAX) ? INT64_MAX : -1;
    return os[p->axis];
}

/* Smallest double t with axis_len(t) > bound (bound = len - 1: >= len),
 * treating a refused small value as below and a refused large one as above:
 * finds a value with the wanted length when no simpler candidate has it. */
static double first_above(const proj *p, int i, int64_t bound)
{
    uint64_t a = dkey(-DBL_MAX), b = dkey(DBL_MAX);
    if (axis_len(p, i, dval(a)) > bound)
        return -INFINITY;
    if (!(axis_len(p, i, dval(b)) > bound))
        return INFINITY;
    while (b - a > 1) {
        const uint64_t m = a + (b - a) / 2;
        if (axis_len(p, i, dval(m)) > bound)
            b = m;
        else
            a = m;
    }
    return dval(b);
}

static int same(const proj *p, int i, double t)
{
    return t == t && axis_len(p, i, t) == p->len;
}

/* [lo, hi) around ref (same(ref) holds): values refused on either side are
 * outside (e.g. linear_onnx takes only 1 on N and C: [1, nextafter(1))). */
static void interval(const proj *p, int i, double ref, double *lo, double *hi)
{
    if (same(p, i, -DBL_MAX)) {
        *lo = -INFINITY;
    } else {
        uint64_t a = dkey(-DBL_MAX), b = dkey(ref);
        while (b - a > 1) {
            const uint64_t m = a + (b - a) / 2;
            if (same(p, i, dval(m)))
                b = m;
            else
                a = m;
        }
        *lo = dval(b);
    }
    if (same(p, i, DBL_MAX)) {
        *hi = INFINITY;
    } else {
        uint64_t a = dkey(ref), b = dkey(DBL_MAX);
        while (b - a > 1) {
            const uint64_t m = a + (b - a) / 2;
            if (same(p, i, dval(m)))
                a = m;
            else
                b = m;
        }
        *hi = dval(b);
    }
}

drs_status drs_ag_project_scales(drs_var *y)
{
    const char *op = "drs_ag_project_scales";
    if (!y)
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op, "y is NULL");
    drs_var *sv = y->op == AG_INTERPOLATE ? y->in[1] : y->op == AG_RESIZE ? y->in[2] : NULL;
    if (!sv)
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op,
                            "y was not recorded by drs_ag_interpolate or drs_ag_resize with a "
                            "scales var (record it with grad enabled and a scales var that "
                            "requires grad)");
    const int n = (int)sv->numel;
    const int rank = y->value.rank;
    double *val = sv->value.data;
    double w[DRS_MAX_RANK], out[DRS_MAX_RANK];
    int ax[DRS_MAX_RANK];
    for (int i = 0; i < n; i++) {
        if (y->op == AG_INTERPOLATE) {
            const drs_interpolate_inputs *in = &y->u.interp.in;
            ax[i] = in->axes && in->n_axes ? (int)in->axes[i] : i;
        } else {
            const drs_resize_attrs *a = &y->u.resize.a;
            ax[i] = a->n_axes ? (int)(a->axes[i] < 0 ? a->axes[i] + rank : a->axes[i]) : i;
        }
        if (ax[i] < 0 || ax[i] >= rank)
            return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op, "scales[%d] has no axis in y", i);
        if (val[i] != val[i])
            return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op, "scales[%d] is NaN", i);
        w[i] = 1.0; /* a valid placeholder while the entries before it are projected */
    }
    for (int i = 0; i < n; i++) {
        proj p = {y, w, ax[i], y->value.shape[ax[i]]};
        /* a value with y's length: the new value, 1, length / input length,
         * or the first value reaching the length */
        const int64_t in_len = y->in[0]->value.shape[ax[i]];
        double ref = val[i];
        if (!same(&p, i, ref))
            ref = 1.0;
        if (!same(&p, i, ref) && in_len > 0)
            ref = (double)p.len / (double)in_len;
        if (!same(&p, i, ref))
            ref = first_above(&p, i, p.len - 1);
        double lo = 0.0, hi = 0.0;
        if (same(&p, i, ref))
            interval(&p, i, ref, &lo, &hi);
        if (!(lo < hi))
            return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op,
                                "no value of scales[%d] gives output length %lld on axis %d", i,
                                (long long)p.len, ax[i]);
        double v = val[i];
        if (v < lo)
            v = lo;
        if (v >= hi)
            v = nextafter(hi, -INFINITY);
        out[i] = v;
        w[i] = v;
    }
    for (int i = 0; i < n; i++)
        val[i] = out[i];
    return DRS_OK;
}
