/* backward.c — gradients of every Interpolate/Resize/TorchInterpolate mode,
 * built from the same per-axis tables as the forward (forward/table.c), never
 * from a second copy of the mode logic.
 *
 *  data gradient: the forward is y = P_k ... P_1 x (one table per pass), so
 *    dx = P_1^T ... P_k^T dy.  Each transposed pass is a GATHER through the
 *    transposed table (CSR over input index j, entries in ascending o):
 *      dx[b, j, i] = sum_{(o, w) in T[j]} w * dy[b, o, i]
 *    parallel over (b, j): one writer per element, no atomics, and still
 *    parallel for a single image (N*C = 1).
 *  scales/roi gradient of the parameter θ of pass k (O held fixed):
 *    dℓ/dθ = < dy, P_n ... P_{k+1} D_k P_{k-1} ... P_1 x >,
 *    with D_k the table of dw/dθ (same taps).  The chain runs in double; its
 *    first pass reads x in its own type and its last pass is fused with the
 *    inner product against dy (per-row partial sums added in row order, so
 *    it is deterministic for any thread count).
 * Computation runs in the data's type for the data gradient and in double for
 * the parameter gradients. */
#define _POSIX_C_SOURCE 200809L
#include "core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PAR_MIN_WORK 32768

/* ---------------------------------------------------- transposed tables */
typedef struct drs_ttable {
    int64_t Lin;
    int64_t *off; /* Lin + 1 */
    int64_t *o;   /* entries: output index */
    double *w;
    float *wf;
    /* inputs [j0, j1) all have un entries on consecutive outputs (the interior
     * of linear/cubic/nearest tables): the gather runs branch-free there */
    int un;
    int64_t j0, j1;
} drs_ttable;

static void ttable_free(drs_ttable *tt)
{
    free(tt->off);
    free(tt->o);
    free(tt->w);
    free(tt->wf);
    memset(tt, 0, sizeof *tt);
}

static drs_status ttable_build(const drs_table *t, int64_t Lin, int want_float, drs_ttable *tt)
{
    memset(tt, 0, sizeof *tt);
    int64_t nnz = 0;
    for (int64_t o = 0; o < t->O; o++)
        nnz += t->ntap[o];
    tt->Lin = Lin;
    tt->off = drs__calloc((size_t)Lin + 1, sizeof *tt->off);
    tt->o = drs__malloc((size_t)(nnz ? nnz : 1) * sizeof *tt->o);
    tt->w = drs__malloc((size_t)(nnz ? nnz : 1) * sizeof *tt->w);
    if (want_float)
        tt->wf = drs__malloc((size_t)(nnz ? nnz : 1) * sizeof *tt->wf);
    int64_t *fill = drs__calloc((size_t)Lin + 1, sizeof *fill);
    if (!tt->off || !tt->o || !tt->w || (want_float && !tt->wf) || !fill) {
        free(fill);
        ttable_free(tt);
        return drs__fail(DRS_ERR_NOMEM, "backward: out of memory (transposed table)");
    }
    for (int64_t o = 0; o < t->O; o++)
        for (int32_t k = 0; k < t->ntap[o]; k++)
            tt->off[t->first[o] + k + 1]++;
    for (int64_t j = 0; j < Lin; j++)
        tt->off[j + 1] += tt->off[j];
    for (int64_t o = 0; o < t->O; o++) /* ascending o: fixed summation order */
        for (int32_t k = 0; k < t->ntap[o]; k++) {
            const int64_t j = t->first[o] + k;
            const int64_t e = tt->off[j] + fill[j]++;
            tt->o[e] = o;
            tt->w[e] = t->w[o * t->stride + k];
            if (want_float)
                tt->wf[e] = (float)tt->w[e];
        }
    free(fill);
    /* the run of uniform, contiguous inputs around the middle */
    if (Lin > 0) {
        const int64_t mid = Lin / 2;
        const int64_t n = tt->off[mid + 1] - tt->off[mid];
#define TT_UNIFORM(j)                                                                          \
    (tt->off[(j) + 1] - tt->off[j] == n &&                                                     \
     tt->o[tt->off[(j) + 1] - 1] - tt->o[tt->off[j]] == n - 1)
        if (n >= 1 && n <= 8 && TT_UNIFORM(mid)) {
            int64_t a = mid, b = mid + 1;
            while (a > 0 && TT_UNIFORM(a - 1))
                a--;
            while (b < Lin && TT_UNIFORM(b))
                b++;
            if (2 * (b - a) >= Lin) {
                tt->un = (int)n;
                tt->j0 = a;
                tt->j1 = b;
            }
        }
#undef TT_UNIFORM
    }
    return DRS_OK;
}

/* inner == 1 with a uniform interior: per row, the edge inputs by the entry
 * list, the interior [j0, j1) by NT consecutive outputs (no index loads).
 * Same summation order (ascending output) as the general loop, same bits. */
#define TROW_GENERAL(A, j)                                                                     \
    do {                                                                                       \
        A acc_ = 0;                                                                            \
        for (int64_t e = tt->off[j]; e < tt->off[(j) + 1]; e++)                                \
            acc_ += W[e] * src[tt->o[e]];                                                      \
        d[j] = accumulate ? d[j] + acc_ : acc_;                                                \
    } while (0)
#define TROWS(A, NT)                                                                           \
    _Pragma("omp parallel for schedule(static) if (outer * Lin > PAR_MIN_WORK)")               \
    for (int64_t b = 0; b < outer; b++) {                                                      \
        A *d = dx + b * Lin;                                                                   \
        const A *src = dy + b * O;                                                             \
        for (int64_t j = 0; j < tt->j0; j++)                                                   \
            TROW_GENERAL(A, j);                                                                \
        for (int64_t j = tt->j0; j < tt->j1; j++) {                                            \
            const int64_t e0 = tt->off[j];                                                     \
            const A *w = W + e0;                                                               \
            const A *s = src + tt->o[e0];                                                      \
            A acc = 0;                                                                         \
            for (int k = 0; k < NT; k++)                                                       \
                acc += w[k] * s[k];                                                            \
            d[j] = accumulate ? d[j] + acc : acc;                                              \
        }                                                                                      \
        for (int64_t j = tt->j1; j < Lin; j++)                                                 \
            TROW_GENERAL(A, j);                                                                \
    }

#define DEFINE_TPASS(NAME, A, WF)                                                               \
    static void NAME(const A *dy, A *dx, int64_t outer, int64_t O, int64_t inner,              \
                     const drs_ttable *tt, int accumulate)                                     \
    {                                                                                          \
        const int64_t Lin = tt->Lin;                                                           \
        const A *W = (const A *)tt->WF;                                                        \
        if (inner == 1 && tt->un > 0) { /* rows: a branch-free interior */                     \
            switch (tt->un) {                                                                  \
            case 1: TROWS(A, 1) return;                                                        \
            case 2: TROWS(A, 2) return;                                                        \
            case 3: TROWS(A, 3) return;                                                        \
            case 4: TROWS(A, 4) return;                                                        \
            case 5: TROWS(A, 5) return;                                                        \
            case 6: TROWS(A, 6) return;                                                        \
            case 7: TROWS(A, 7) return;                                                        \
            default: TROWS(A, 8) return;                                                       \
            }                                                                                  \
        }                                                                                      \
        _Pragma("omp parallel for collapse(2) schedule(static) if (outer * Lin * inner > PAR_MIN_WORK)") \
        for (int64_t b = 0; b < outer; b++) {                                                  \
            for (int64_t j = 0; j < Lin; j++) {                                                \
                A *d = dx + (b * Lin + j) * inner;                                             \
                const int64_t e0 = tt->off[j], e1 = tt->off[j + 1];                            \
                const A *src = dy + b * O * inner;                                             \
                if (inner == 1) {                                                              \
                    A acc = 0;                                                                 \
                    for (int64_t e = e0; e < e1; e++)                                          \
                        acc += W[e] * src[tt->o[e]];                                           \
                    d[0] = accumulate ? d[0] + acc : acc;                                      \
                } else if (!accumulate) {                                                      \
                    for (int64_t i = 0; i < inner; i++)                                        \
                        d[i] = 0;                                                              \
                    for (int64_t e = e0; e < e1; e++) {                                        \
                        const A w = W[e];                                                      \
                        const A *s = src + tt->o[e] * inner;                                   \
                        for (int64_t i = 0; i < inner; i++)                                    \
                            d[i] += w * s[i];                                                  \
                    }                                                                          \
                } else { /* accumulate: sum first, then add, same bits as overwrite + add */   \
                    for (int64_t i = 0; i < inner; i++) {                                      \
                        A acc = 0;                                                             \
                        for (int64_t e = e0; e < e1; e++)                                      \
                            acc += W[e] * src[tt->o[e] * inner + i];                           \
                        d[i] += acc;                                                           \
                    }                                                                          \
                }                                                                              \
            }                                                                                  \
        }                                                                                      \
    }

DEFINE_TPASS(tpass_f32, float, wf)
DEFINE_TPASS(tpass_f64, double, w)

/* ------------------------------------------------------ plan helpers */
static int64_t prod(const int64_t *s, int a, int b)
{
    int64_t n = 1;
    for (int i = a; i < b; i++)
        n *= s[i];
    return n;
}

/* dx (+)= F^T dy.  dx, dy validated; f32 or f64. */
static drs_status backward_data(const drs_plan *p, drs_tensor *dx, const drs_tensor *dy,
                                int accumulate)
{
    const int is_f32 = p->dtype == DRS_F32;
    const size_t esz = is_f32 ? sizeof(float) : sizeof(double);
    const int64_t nx = prod(p->in_shape, 0, p->rank);
    if (nx == 0)
        return DRS_OK;
    if (prod(p->out_shape, 0, p->rank) == 0) {
        /* an empty output (its view may have no data pointer): dx = 0 */
        if (!accumulate)
            memset(dx->data, 0, (size_t)nx * esz);
        return DRS_OK;
    }
    drs_tables T;
    drs_status st = drs_tables_build(p, &T, is_f32, -1, DRS_PARAM_NONE);
    if (st)
        return st;
    drs_ttable tt[DRS_MAX_RANK];
    memset(tt, 0, sizeof tt);
    void *buf[2] = {NULL, NULL};
    /* shapes before each active pass (forward order) */
    int64_t shp[DRS_MAX_RANK + 1][DRS_MAX_RANK];
    memcpy(shp[0], p->in_shape, sizeof shp[0]);
    int64_t maxmid = 0;
    for (int a = 0; a < T.nact; a++) {
        const drs_axis_plan *ap = &p->pass[T.active[a]];
        memcpy(shp[a + 1], shp[a], sizeof shp[0]);
        shp[a + 1][ap->axis] = ap->O;
        if (a + 1 < T.nact) {
            const int64_t n = prod(shp[a + 1], 0, p->rank);
            maxmid = n > maxmid ? n : maxmid;
        }
        st = ttable_build(&T.tab[T.active[a]], ap->in_len, is_f32, &tt[a]);
        if (st)
            goto out;
    }
    for (int i = 0; i < 2 && i < T.nact - 1 && maxmid > 0; i++) {
        buf[i] = drs__malloc((size_t)maxmid * esz);
        if (!buf[i]) {
            st = drs__fail(DRS_ERR_NOMEM, "%s backward: out of memory (scratch)", p->op);
            goto out;
        }
    }
    if (T.nact == 0) { /* identity */
        if (is_f32) {
            float *d = dx->data;
            const float *s = dy->data;
            for (int64_t i = 0; i < nx; i++)
                d[i] = accumulate ? d[i] + s[i] : s[i];
        } else {
            double *d = dx->data;
            const double *s = dy->data;
            for (int64_t i = 0; i < nx; i++)
                d[i] = accumulate ? d[i] + s[i] : s[i];
        }
        goto out;
    }
    {
        const void *cur = dy->data;
        for (int a = T.nact - 1; a >= 0; a--) {
            const drs_axis_plan *ap = &p->pass[T.active[a]];
            const int64_t outer = prod(shp[a], 0, ap->axis);
            const int64_t inner = prod(shp[a], ap->axis + 1, p->rank);
            const int last = a == 0;
            void *dst = last ? dx->data : buf[(T.nact - 1 - a) & 1];
            if (is_f32)
                tpass_f32(cur, dst, outer, ap->O, inner, &tt[a], last && accumulate);
            else
                tpass_f64(cur, dst, outer, ap->O, inner, &tt[a], last && accumulate);
            cur = dst;
        }
    }
out:
    for (int a = 0; a < T.nact; a++)
        ttable_free(&tt[a]);
    free(buf[0]);
    free(buf[1]);
    drs_tables_free(p, &T);
    return st;
}

/* dℓ/dθ for the parameter θ of pass k (scale or roi end), O held fixed. */
static drs_status param_grad(const drs_plan *p, const drs_tensor *x, const drs_tensor *dy, int k,
                             drs_param param, double *out)
{
    *out = 0.0;
    const int64_t nx = prod(p->in_shape, 0, p->rank), ny = prod(p->out_shape, 0, p->rank);
    if (ny == 0 || nx == 0)
        return DRS_OK;
    drs_tables T;
    drs_status st = drs_tables_build(p, &T, 0, k, param);
    if (st)
        return st;
    const drs_table *D = &T.tab[k];
    int nonzero = 0;
    for (int64_t q = 0; q < D->O * D->stride && !nonzero; q++)
        nonzero = D->dw[q] != 0.0;
    double *cur = NULL, *nxt = NULL;
    if (!nonzero) /* exactly zero (nearest, area, pillow, shortcut, ...) */
        goto out;
    /* <dy, P_n .. D_k .. P_1 x> in double: the first pass reads x in its own
     * type, the last pass is fused with the inner product against dy (read in
     * its own type), so only the intermediates between are materialised. */
    const int f32 = p->dtype == DRS_F32;
    int64_t maxn = 1;
    int64_t shape[DRS_MAX_RANK];
    memcpy(shape, p->in_shape, sizeof shape);
    if (T.nact == 2 && p->pass[T.active[1]].axis == p->pass[T.active[0]].axis + 1) {
        /* two passes over adjacent axes (the common 2-D case): one streaming
         * call reads x and dy once, no intermediate */
        const drs_axis_plan *ah = &p->pass[T.active[0]], *aw = &p->pass[T.active[1]];
        const drs_table *th = &T.tab[T.active[0]], *tw = &T.tab[T.active[1]];
        const int64_t outer = prod(shape, 0, ah->axis);
        const int64_t inner = prod(shape, aw->axis + 1, p->rank);
        const double *Wh = T.active[0] == k ? th->dw : th->w;
        const double *Ww = T.active[1] == k ? tw->dw : tw->w;
        const double evh = T.active[0] == k ? 0.0 : p->extrapolation_value;
        st = f32 ? drs_pass2_dot_f32(x->data, outer, shape[ah->axis], th, Wh, evh,
                                     shape[aw->axis], inner, tw, Ww, dy->data, out)
                 : drs_pass2_dot_f64(x->data, outer, shape[ah->axis], th, Wh, evh,
                                     shape[aw->axis], inner, tw, Ww, dy->data, out);
        goto out;
    }
    memcpy(shape, p->in_shape, sizeof shape);
    for (int a = 0; a + 1 < T.nact; a++) {
        shape[p->pass[T.active[a]].axis] = p->pass[T.active[a]].O;
        const int64_t n = prod(shape, 0, p->rank);
        maxn = n > maxn ? n : maxn;
    }
    if (T.nact > 1) {
        cur = drs__malloc((size_t)maxn * sizeof *cur);
        nxt = drs__malloc((size_t)maxn * sizeof *nxt);
        if (!cur || !nxt) {
            st = drs__fail(DRS_ERR_NOMEM, "%s backward: out of memory (parameter gradient)",
                           p->op);
            goto out;
        }
    }
    memcpy(shape, p->in_shape, sizeof shape);
    int after = 0;
    const void *src = x->data; /* pass input: x (own type) first, then doubles */
    for (int a = 0; a < T.nact; a++) {
        const int kk = T.active[a];
        const drs_axis_plan *ap = &p->pass[kk];
        const drs_table *t = &T.tab[kk];
        const int64_t outer = prod(shape, 0, ap->axis), inner = prod(shape, ap->axis + 1, p->rank);
        after |= kk == k;
        const double *W = kk == k ? t->dw : t->w;
        if (a == T.nact - 1) { /* the derivative pass is at or before this one */
            if (a == 0)
                st = f32 ? drs_pass_dot_f32_f32(src, outer, shape[ap->axis], inner, t, W,
                                                dy->data, out)
                         : drs_pass_dot_f64_f64(src, outer, shape[ap->axis], inner, t, W,
                                                dy->data, out);
            else
                st = f32 ? drs_pass_dot_f64_f32(src, outer, shape[ap->axis], inner, t, W,
                                                dy->data, out)
                         : drs_pass_dot_f64_f64(src, outer, shape[ap->axis], inner, t, W,
                                                dy->data, out);
            break;
        }
        /* from the derivative pass on, constants (extrapolation values) drop out */
        const double ev = after ? 0.0 : p->extrapolation_value;
        if (a == 0 && f32)
            drs_pass_f32_f64(src, nxt, outer, shape[ap->axis], inner, t, W, ev);
        else
            drs_pass_f64(src, nxt, outer, shape[ap->axis], inner, t, W, ev);
        shape[ap->axis] = ap->O;
        double *tmp = cur;
        cur = nxt;
        nxt = tmp;
        src = cur;
    }
out:
    free(cur);
    free(nxt);
    drs_tables_free(p, &T);
    return st;
}

/* ------------------------------------------------------- validation */
static drs_status check_grad_tensors(const drs_plan *p, const drs_tensor *dx,
                                     const drs_tensor *dy, const drs_tensor *x,
                                     const char *dx_name, const char *dy_name)
{
    int64_t n;
    if (p->dtype != DRS_F32 && p->dtype != DRS_F64)
        return drs__fail(DRS_ERR_UNSUPPORTED, "%s backward: gradients need f32 or f64 data, got %s",
                         p->op, drs_dtype_name(p->dtype));
    drs_status s = drs__check_tensor(p->op, dy_name, dy, &n);
    if (s)
        return s;
    if (dy->dtype != p->dtype)
        return drs__fail(DRS_ERR_INVALID_ARGUMENT, "%s: %s dtype must be %s, got %s", p->op,
                         dy_name, drs_dtype_name(p->dtype), drs_dtype_name(dy->dtype));
    if (dy->rank != p->rank)
        return drs__fail(DRS_ERR_SHAPE, "%s: %s rank must be %d (the forward output), got %d",
                         p->op, dy_name, p->rank, dy->rank);
    for (int i = 0; i < p->rank; i++)
        if (dy->shape[i] != p->out_shape[i])
            return drs__fail(DRS_ERR_SHAPE,
                             "%s: %s shape[%d] must be %lld (the forward output), got %lld", p->op,
                             dy_name, i, (long long)p->out_shape[i], (long long)dy->shape[i]);
    if (!dx)
        return DRS_OK;
    if ((s = drs__check_tensor(p->op, dx_name, dx, &n)))
        return s;
    if (dx->dtype != p->dtype)
        return drs__fail(DRS_ERR_INVALID_ARGUMENT, "%s: %s dtype must be %s, got %s", p->op,
                         dx_name, drs_dtype_name(p->dtype), drs_dtype_name(dx->dtype));
    if (dx->rank != p->rank)
        return drs__fail(DRS_ERR_SHAPE, "%s: %s rank must be %d, got %d", p->op, dx_name, p->rank,
                         dx->rank);
    for (int i = 0; i < p->rank; i++)
        if (dx->shape[i] != p->in_shape[i])
            return drs__fail(DRS_ERR_SHAPE, "%s: %s shape[%d] must be %lld, got %lld", p->op,
                             dx_name, i, (long long)p->in_shape[i], (long long)dx->shape[i]);
    if (drs__overlaps(dx, dy) || drs__overlaps(dx, x))
        return drs__fail(DRS_ERR_INVALID_ARGUMENT, "%s: %s overlaps an input buffer", p->op,
                         dx_name);
    return DRS_OK;
}

static drs_status check_mode(const char *op, drs_grad_mode mode)
{
    if (mode != DRS_GRAD_OVERWRITE && mode != DRS_GRAD_ACCUMULATE)
        return drs__fail(DRS_ERR_INVALID_ARGUMENT, "%s: grad mode must be 0 or 1, got %d", op,
                         (int)mode);
    return DRS_OK;
}

/* Parameter gradients for every pass with a param_index; results land in
 * tmp[] first so that nothing is written before every computation succeeded. */
static drs_status param_grads(const drs_plan *p, const drs_tensor *x, const drs_tensor *dy,
                              drs_param param, int n, double *tmp)
{
    for (int i = 0; i < n; i++)
        tmp[i] = 0.0;
    for (int k = 0; k < p->npass; k++) {
        const int idx = p->pass[k].param_index;
        if (idx < 0)
            continue;
        const int slot = param == DRS_PARAM_ROI_END ? n / 2 + idx : idx;
        if (slot >= n)
            continue;
        drs_status st = param_grad(p, x, dy, k, param, &tmp[slot]);
        if (st)
            return st;
    }
    return DRS_OK;
}

static void store_params(double *dst, const double *src, int n, drs_grad_mode mode)
{
    for (int i = 0; i < n; i++)
        dst[i] = mode == DRS_GRAD_ACCUMULATE ? dst[i] + src[i] : src[i];
}

/* ------------------------------------------------------- public API */
static drs_status interp_backward(drs_tensor *dx, double *scales_delta, const drs_tensor *dy,
                                  const drs_tensor *data, const drs_interpolate_inputs *in,
                                  const drs_interpolate_attrs *attrs, drs_grad_mode mode,
                                  const char *dx_name)
{
    drs_plan p;
    drs_status s = drs_plan_interpolate(&p, attrs, data, in);
    if (s)
        return s;
    if ((s = check_mode(p.op, mode)) ||
        (s = check_grad_tensors(&p, dx, dy, data, dx_name, "output_delta")))
        return s;
    const int use_scales = attrs->version != 1 && attrs->shape_calculation_mode == DRS_SHAPE_SCALES;
    const int ns = in->scales ? in->n_scales : 0;
    /* sizes mode does not validate the (unused) scales input: bound it here,
     * as scales_delta gets one entry per scales entry */
    if (scales_delta && (ns < 0 || ns > DRS_MAX_RANK))
        return drs__fail(DRS_ERR_SHAPE, "%s: scales has %d entries, expected 0..%d", p.op, ns,
                         DRS_MAX_RANK);
    double tmp[DRS_MAX_RANK];
    if (scales_delta && use_scales &&
        (s = param_grads(&p, data, dy, DRS_PARAM_SCALE, ns, tmp)))
        return s;
    if (scales_delta && !use_scales)
        for (int i = 0; i < ns; i++)
            tmp[i] = 0.0; /* sizes mode: the scales do not enter the forward */
    if (dx && (s = backward_data(&p, dx, dy, mode == DRS_GRAD_ACCUMULATE)))
        return s;
    if (scales_delta)
        store_params(scales_delta, tmp, ns, mode);
    return DRS_OK;
}

drs_status drs_interpolate_backward(drs_tensor *data_delta, double *scales_delta,
                                    const drs_tensor *output_delta, const drs_tensor *data,
                                    const drs_interpolate_inputs *in,
                                    const drs_interpolate_attrs *attrs, drs_grad_mode mode)
{
    drs__clear_error();
    if (!attrs)
        return drs__fail(DRS_ERR_INVALID_ARGUMENT, "Interpolate: attrs is NULL");
    return interp_backward(data_delta, scales_delta, output_delta, data, in, attrs, mode,
                           attrs->version == 11 ? "image_delta" : "data_delta");
}

drs_status drs_interpolate_backprop(drs_tensor *input_delta, double *scales_delta,
                                    const drs_tensor *data, const drs_tensor *output_delta,
                                    const drs_interpolate_inputs *in,
                                    const drs_interpolate_attrs *attrs, drs_grad_mode mode)
{
    drs__clear_error();
    if (!attrs)
        return drs__fail(DRS_ERR_INVALID_ARGUMENT, "InterpolateBackprop-4: attrs is NULL");
    if (attrs->version != 4)
        return drs__fail(DRS_ERR_INVALID_ARGUMENT,
                         "InterpolateBackprop-4: attrs.version must be 4, got %d", attrs->version);
    if (scales_delta && attrs->shape_calculation_mode != DRS_SHAPE_SCALES)
        return drs__fail(DRS_ERR_INVALID_ARGUMENT,
                         "InterpolateBackprop-4: scales_delta is only produced in scales mode "
                         "(shape_calculation_mode is sizes)");
    return interp_backward(input_delta, scales_delta, output_delta, data, in, attrs, mode,
                           "input_delta");
}

drs_status drs_resize_backward(drs_tensor *X_delta, double *scales_delta, double *roi_delta,
                               const drs_tensor *Y_delta, const drs_tensor *X,
                               const drs_resize_inputs *in, const drs_resize_attrs *attrs,
                               drs_grad_mode mode)
{
    drs_plan p;
    drs__clear_error();
    drs_status s = drs_plan_resize(&p, attrs, X, in);
    if (s)
        return s;
    if ((s = check_mode(p.op, mode)) ||
        (s = check_grad_tensors(&p, X_delta, Y_delta, X, "X_delta", "output_delta")))
        return s;
    const int have_scales = in->scales && in->n_scales > 0;
    const int have_roi = in->roi && in->n_roi > 0;
    if (scales_delta && !have_scales)
        return drs__fail(DRS_ERR_INVALID_ARGUMENT,
                         "%s: scales_delta was requested but no scales were given", p.op);
    if (roi_delta && !have_roi)
        return drs__fail(DRS_ERR_INVALID_ARGUMENT,
                         "%s: roi_delta was requested but no roi was given", p.op);
    double ts[DRS_MAX_RANK], tr[2 * DRS_MAX_RANK];
    if (scales_delta && (s = param_grads(&p, X, Y_delta, DRS_PARAM_SCALE, in->n_scales, ts)))
        return s;
    if (roi_delta) {
        double te[2 * DRS_MAX_RANK];
        if ((s = param_grads(&p, X, Y_delta, DRS_PARAM_ROI_START, in->n_roi, tr)) ||
            (s = param_grads(&p, X, Y_delta, DRS_PARAM_ROI_END, in->n_roi, te)))
            return s;
        for (int i = in->n_roi / 2; i < in->n_roi; i++)
            tr[i] = te[i];
    }
    if (X_delta && (s = backward_data(&p, X_delta, Y_delta, mode == DRS_GRAD_ACCUMULATE)))
        return s;
    if (scales_delta)
        store_params(scales_delta, ts, in->n_scales, mode);
    if (roi_delta)
        store_params(roi_delta, tr, in->n_roi, mode);
    return DRS_OK;
}

drs_status drs_torch_interpolate_backward(drs_tensor *input_delta,
                                          const drs_tensor *output_delta,
                                          const drs_tensor *input,
                                          const drs_torch_interpolate_attrs *attrs,
                                          drs_grad_mode mode)
{
    drs_plan p;
    drs__clear_error();
    drs_status s = drs_plan_torch(&p, attrs, input);
    if (s)
        return s;
    if ((s = check_mode(p.op, mode)) ||
        (s = check_grad_tensors(&p, input_delta, output_delta, input, "input_delta",
                                "output_delta")))
        return s;
    if (input_delta)
        return backward_data(&p, input_delta, output_delta, mode == DRS_GRAD_ACCUMULATE);
    return DRS_OK;
}
