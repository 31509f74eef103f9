/* grid_sample.c — GridSample forward (OpenVINO GridSample-9, ONNX
 * GridSample-16/20/22), spatial rank 1-3, and the per-point tap list shared
 * with the backward.
 *
 * data [N,C,spatial...], grid [N,out spatial...,S] (x first) ->
 * output [N,C,out spatial...].  Per output point and axis, a 1-D tap list
 * (index, weight, d weight/du) is made from the denormalised coordinate u and
 * the padding mode; the point's taps are the outer product over the axes.
 * Bilinear and nearest pad at the coordinate/index level the way PyTorch and
 * OpenVINO do (identical values; PyTorch's gradient factors follow from it);
 * bicubic taps the raw coordinate and pads each tap index (the cubic weights
 * come from the core's 1-D primitive drs_cubic_taps).
 * Threads: the forward is parallel over (n, point); each output element is
 * written by the one iteration that owns its point, so the bits do not depend
 * on the thread count.  No float->int conversion ever sees a value outside
 * the int64 range: every coordinate is clamped into a small band, reduced
 * modulo the reflection period, or handled as non-finite first. */
#include "grid_sample.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PAR_MIN_WORK 16384

/* ---------------------------------------------------------------- names */
drs_grid_sample_attrs drs_grid_sample_attrs_default(int version)
{
    drs_grid_sample_attrs a;
    a.version = version;
    a.mode = DRS_GRID_BILINEAR;
    a.padding_mode = DRS_GRID_PAD_ZEROS;
    a.align_corners = 0;
    return a;
}

int drs_grid_mode_from_str(const char *s)
{
    if (!s)
        return -1;
    if (!strcmp(s, "bilinear") || !strcmp(s, "linear"))
        return DRS_GRID_BILINEAR;
    if (!strcmp(s, "nearest"))
        return DRS_GRID_NEAREST;
    if (!strcmp(s, "bicubic") || !strcmp(s, "cubic"))
        return DRS_GRID_BICUBIC;
    return -1;
}

int drs_grid_padding_from_str(const char *s)
{
    if (!s)
        return -1;
    if (!strcmp(s, "zeros"))
        return DRS_GRID_PAD_ZEROS;
    if (!strcmp(s, "border"))
        return DRS_GRID_PAD_BORDER;
    if (!strcmp(s, "reflection"))
        return DRS_GRID_PAD_REFLECTION;
    return -1;
}

const char *drs_grid_mode_str(drs_grid_mode m, int version)
{
    const int onnx20 = version >= 20;
    switch (m) {
    case DRS_GRID_BILINEAR: return onnx20 ? "linear" : "bilinear";
    case DRS_GRID_NEAREST: return "nearest";
    case DRS_GRID_BICUBIC: return onnx20 ? "cubic" : "bicubic";
    }
    return "?";
}

const char *drs_grid_padding_str(drs_grid_padding p)
{
    switch (p) {
    case DRS_GRID_PAD_ZEROS: return "zeros";
    case DRS_GRID_PAD_BORDER: return "border";
    case DRS_GRID_PAD_REFLECTION: return "reflection";
    }
    return "?";
}

/* ------------------------------------------------------------ validation */
drs_status drs_gs_check_like(const char *op, const char *name, const drs_tensor *t,
                             drs_dtype dtype, int rank, const int64_t *shape)
{
    drs_status s = drs__check_tensor(op, name, t, NULL);
    if (s != DRS_OK)
        return s;
    if (t->dtype != dtype)
        return drs__fail(DRS_ERR_INVALID_ARGUMENT, "%s: %s dtype must be %s, got %s", op, name,
                         drs_dtype_name(dtype), drs_dtype_name(t->dtype));
    if (t->rank != rank)
        return drs__fail(DRS_ERR_SHAPE, "%s: %s rank must be %d, got %d", op, name, rank,
                         t->rank);
    for (int i = 0; i < rank; i++)
        if (t->shape[i] != shape[i])
            return drs__fail(DRS_ERR_SHAPE, "%s: %s shape[%d] must be %lld, got %lld", op, name,
                             i, (long long)shape[i], (long long)t->shape[i]);
    return DRS_OK;
}

drs_status drs_gs_plan_make(drs_gs_plan *p, const drs_grid_sample_attrs *a, const drs_tensor *data,
                            const drs_tensor *grid, int need_data)
{
    memset(p, 0, sizeof *p);
    if (!a)
        return drs__fail(DRS_ERR_INVALID_ARGUMENT, "GridSample: attrs is NULL");
    const int v = a->version;
    p->op = v == 9 ? "GridSample-9" : v == 16 ? "GridSample-16" : v == 20 ? "GridSample-20"
                                                                          : "GridSample-22";
    const char *op = p->op;
    if (v != 9 && v != 16 && v != 20 && v != 22)
        return drs__fail(DRS_ERR_INVALID_ARGUMENT,
                         "GridSample: version must be 9, 16, 20 or 22, got %d", v);
    if ((int)a->mode < 0 || (int)a->mode > DRS_GRID_BICUBIC)
        return drs__fail(DRS_ERR_INVALID_ARGUMENT, "%s: mode must be 0..2, got %d", op,
                         (int)a->mode);
    if ((int)a->padding_mode < 0 || (int)a->padding_mode > DRS_GRID_PAD_REFLECTION)
        return drs__fail(DRS_ERR_INVALID_ARGUMENT, "%s: padding_mode must be 0..2, got %d", op,
                         (int)a->padding_mode);
    if (a->align_corners != 0 && a->align_corners != 1)
        return drs__fail(DRS_ERR_INVALID_ARGUMENT, "%s: align_corners must be 0 or 1, got %d",
                         op, a->align_corners);
    int64_t nd, ng;
    drs_status s;
    if (!need_data) { /* shape inference: the views may carry no data pointer */
        drs_tensor dv, gv;
        if (data) {
            dv = *data;
            dv.data = (void *)data;
        }
        if (grid) {
            gv = *grid;
            gv.data = (void *)grid;
        }
        if ((s = drs__check_tensor(op, "data", data ? &dv : NULL, &nd)) != DRS_OK ||
            (s = drs__check_tensor(op, "grid", grid ? &gv : NULL, &ng)) != DRS_OK)
            return s;
    } else if ((s = drs__check_tensor(op, "data", data, &nd)) != DRS_OK ||
               (s = drs__check_tensor(op, "grid", grid, &ng)) != DRS_OK)
        return s;
    const int r = data->rank;
    if (v == 9 || v == 16) {
        if (r != 4)
            return drs__fail(DRS_ERR_SHAPE, "%s: data must be 4-D [N,C,H,W], got rank %d", op, r);
    } else if (r < 3 || r > 5) {
        return drs__fail(r < 3 ? DRS_ERR_SHAPE : DRS_ERR_UNSUPPORTED,
                         "%s: data rank must be 3, 4 or 5 (1-3 spatial axes), got %d", op, r);
    }
    if (grid->rank != r)
        return drs__fail(DRS_ERR_SHAPE, "%s: grid rank must equal data rank %d, got %d", op, r,
                         grid->rank);
    if (grid->dtype != DRS_F32 && grid->dtype != DRS_F64)
        return drs__fail(DRS_ERR_INVALID_ARGUMENT, "%s: grid dtype must be f32 or f64, got %s",
                         op, drs_dtype_name(grid->dtype));
    if (grid->shape[0] != data->shape[0])
        return drs__fail(DRS_ERR_SHAPE, "%s: grid shape[0] (N) must be %lld (data's), got %lld",
                         op, (long long)data->shape[0], (long long)grid->shape[0]);
    const int S = r - 2;
    if (grid->shape[r - 1] != S)
        return drs__fail(DRS_ERR_SHAPE,
                         "%s: grid shape[%d] must be %d (the spatial rank), got %lld", op, r - 1,
                         S, (long long)grid->shape[r - 1]);
    p->version = v;
    p->S = S;
    p->mode = a->mode;
    p->pad = a->padding_mode;
    p->align = a->align_corners;
    p->onnx = v != 9;
    p->N = data->shape[0];
    p->C = data->shape[1];
    for (int k = 0; k < 3; k++) {
        p->in[k] = 1;
        p->out[k] = 1;
    }
    for (int k = 0; k < S; k++) {
        p->in[3 - S + k] = data->shape[2 + k];
        p->out[3 - S + k] = grid->shape[1 + k];
    }
    p->out_rank = r;
    p->out_shape[0] = p->N;
    p->out_shape[1] = p->C;
    for (int k = 0; k < S; k++)
        p->out_shape[2 + k] = grid->shape[1 + k];
    /* P and Q can only overflow when the tensor holding them is empty (N or C
     * is 0, the tensors' element counts were checked): there is no work then,
     * and 0 stands for "no point" / "no pixel" */
    if (drs__mul_overflow(p->out[0], p->out[1], &p->P) || drs__mul_overflow(p->P, p->out[2], &p->P))
        p->P = 0;
    if (drs__mul_overflow(p->in[0], p->in[1], &p->Q) || drs__mul_overflow(p->Q, p->in[2], &p->Q))
        p->Q = 0;
    int64_t ny = 1;
    for (int i = 0; i < r; i++)
        if (drs__mul_overflow(ny, p->out_shape[i], &ny))
            return drs__fail(DRS_ERR_OVERFLOW, "%s: output element count overflows 64 bits", op);
    int64_t bytes;
    if (drs__mul_overflow(ny, (int64_t)drs_dtype_size(data->dtype), &bytes))
        return drs__fail(DRS_ERR_OVERFLOW, "%s: output byte size overflows 64 bits", op);
    if (ny > 0 && (p->in[0] == 0 || p->in[1] == 0 || p->in[2] == 0))
        return drs__fail(DRS_ERR_SHAPE,
                         "%s: data spatial axes must be non-empty when the output is not "
                         "(data shape[%d] = 0)",
                         op, p->in[0] == 0 ? 2 : (p->in[1] == 0 ? r - 2 : r - 1));
    const int t1 = p->mode == DRS_GRID_NEAREST ? 1 : p->mode == DRS_GRID_BILINEAR ? 2 : 4;
    p->max_taps = S == 1 ? t1 : S == 2 ? t1 * t1 : t1 * t1 * t1;
    return DRS_OK;
}

drs_status drs_grid_sample_infer_shape(const drs_grid_sample_attrs *attrs, const drs_tensor *data,
                                       const drs_tensor *grid, int *out_rank,
                                       int64_t out_shape[DRS_MAX_RANK])
{
    drs_gs_plan p;
    drs_status s = drs_gs_plan_make(&p, attrs, data, grid, 0);
    if (s != DRS_OK)
        return s;
    if (!out_rank || !out_shape)
        return drs__fail(DRS_ERR_INVALID_ARGUMENT, "%s: out_rank/out_shape is NULL", p.op);
    *out_rank = p.out_rank;
    for (int i = 0; i < DRS_MAX_RANK; i++)
        out_shape[i] = i < p.out_rank ? p.out_shape[i] : 0;
    return DRS_OK;
}

/* ------------------------------------------------------------ 1-D taps */
typedef struct gs_axis {
    int n;
    int64_t idx[4];
    double w[4], dw[4]; /* weight and d weight / du */
    double m;           /* du/dg * kappa */
} gs_axis;

/* grid_sampler_unnormalize (PyTorch's operation order). */
static double denorm(double g, int64_t L, int align, double *dudg)
{
    if (align) {
        *dudg = (double)(L - 1) / 2.0;
        return ((g + 1.0) / 2.0) * (double)(L - 1);
    }
    *dudg = (double)L / 2.0;
    return ((g + 1.0) * (double)L - 1.0) / 2.0;
}

/* clip_coordinates_set_grad: the border counts as clipped (kappa 0). */
static double clip_set_grad(double u, int64_t L, double *kappa)
{
    if (u <= 0.0) {
        *kappa = 0.0;
        return 0.0;
    }
    if (u >= (double)(L - 1)) {
        *kappa = 0.0;
        return (double)(L - 1);
    }
    *kappa = 1.0;
    return u;
}

/* reflect_coordinates_set_grad on [twice_lo/2, twice_hi/2]; the parity of the
 * flip count is taken in floating point (no int conversion of huge values). */
static double reflect_set_grad(double u, double twice_lo, double twice_hi, double *sign)
{
    if (twice_lo == twice_hi) {
        *sign = 0.0;
        return 0.0;
    }
    const double mn = twice_lo / 2.0, span = (twice_hi - twice_lo) / 2.0;
    double g = 1.0;
    u -= mn;
    if (u < 0.0) {
        g = -1.0;
        u = -u;
    }
    const double extra = fmod(u, span), flips = floor(u / span);
    if (fmod(flips, 2.0) == 0.0) {
        *sign = g;
        return extra + mn;
    }
    *sign = -g;
    return span - extra + mn;
}

/* OpenVINO's reflection of an integer tap index (any magnitude, in double). */
static double reflect_index(double i, int64_t L, int align)
{
    if (align) {
        if (L == 1)
            return 0.0;
        const double P = 2.0 * (double)(L - 1);
        const double v = fmod(fabs(i), P);
        return v >= (double)L ? P - v : v;
    }
    const double P = 2.0 * (double)L;
    double v = fmod(i, P);
    if (v < 0.0)
        v += P;
    return v >= (double)L ? P - 1.0 - v : v;
}

/* Round half to even, independent of the floating-point environment. */
static double round_half_even(double u)
{
    double r = floor(u);
    const double d = u - r;
    if (d > 0.5 || (d == 0.5 && fmod(r, 2.0) != 0.0))
        r += 1.0;
    return r;
}

static void add_tap(gs_axis *a, double idx, double w, double dw)
{
    a->idx[a->n] = (int64_t)idx;
    a->w[a->n] = w;
    a->dw[a->n] = dw;
    a->n++;
}

static void axis_taps(const drs_gs_plan *p, double g, int64_t L, gs_axis *a)
{
    double dudg;
    double u = denorm(g, L, p->align, &dudg);
    const double Lm1 = (double)(L - 1);
    a->n = 0;
    a->m = 0.0;
    const int finite = isfinite(u);
    if (!finite) {
        if (p->pad == DRS_GRID_PAD_ZEROS)
            return; /* sample 0, gradient 0 */
        u = isnan(u) ? 0.0 : (u > 0.0 ? Lm1 : 0.0); /* SPEC §4 */
        dudg = 0.0;
    }
    switch (p->mode) {
    case DRS_GRID_NEAREST: {
        double r = round_half_even(u);
        if (p->pad == DRS_GRID_PAD_ZEROS) {
            if (r >= 0.0 && r <= Lm1)
                add_tap(a, r, 1.0, 0.0);
        } else if (p->pad == DRS_GRID_PAD_BORDER) {
            add_tap(a, r < 0.0 ? 0.0 : (r > Lm1 ? Lm1 : r), 1.0, 0.0);
        } else {
            add_tap(a, reflect_index(r, L, p->align), 1.0, 0.0);
        }
        return; /* m = 0: nearest has a zero grid gradient */
    }
    case DRS_GRID_BILINEAR: {
        double kappa = 1.0;
        if (p->pad == DRS_GRID_PAD_ZEROS) {
            if (u < -2.0) /* every tap outside either way */
                u = -2.0;
            else if (u > Lm1 + 2.0)
                u = Lm1 + 2.0;
        } else if (p->pad == DRS_GRID_PAD_BORDER) {
            u = clip_set_grad(u, L, &kappa);
        } else {
            double sign, clip;
            if (p->align)
                u = reflect_set_grad(u, 0.0, 2.0 * Lm1, &sign);
            else
                u = reflect_set_grad(u, -1.0, 2.0 * (double)L - 1.0, &sign);
            u = clip_set_grad(u, L, &clip);
            kappa = sign * clip;
        }
        const double x0 = floor(u), t = u - x0;
        if (x0 >= 0.0 && x0 <= Lm1)
            add_tap(a, x0, 1.0 - t, -1.0);
        if (x0 + 1.0 >= 0.0 && x0 + 1.0 <= Lm1)
            add_tap(a, x0 + 1.0, t, 1.0);
        a->m = dudg * kappa;
        return;
    }
    case DRS_GRID_BICUBIC: {
        a->m = dudg; /* no padding factor (notes §7.5) */
        const double xmin = p->align ? 0.0 : -0.5, xmax = p->align ? Lm1 : (double)L - 0.5;
        if (p->onnx && p->pad == DRS_GRID_PAD_BORDER && (u < xmin || u > xmax)) {
            u = u < 0.0 ? 0.0 : (u > Lm1 ? Lm1 : u); /* ONNX-REF clamps the coordinate */
            a->m = 0.0;
        }
        if (p->pad == DRS_GRID_PAD_REFLECTION) {
            /* the reflected lattice has period P: shifting u by a multiple of P
             * changes no tap value and keeps t exact (fmod is exact) */
            const double P = p->align ? 2.0 * Lm1 : 2.0 * (double)L;
            if (P > 0.0) {
                u = fmod(u, P);
                if (u < 0.0)
                    u += P;
            } else {
                u = 0.0;
            }
        } else if (u < -4.0) { /* zeros: all taps outside; border: all on the edge */
            u = -4.0;
        } else if (u > Lm1 + 4.0) {
            u = Lm1 + 4.0;
        }
        const double x0 = floor(u), t = u - x0;
        double w[4], dw[4];
        drs_cubic_taps(-0.75, t, w, dw);
        for (int k = 0; k < 4; k++) {
            double i = x0 - 1.0 + (double)k;
            if (p->pad == DRS_GRID_PAD_ZEROS) {
                if (i < 0.0 || i > Lm1)
                    continue;
            } else if (p->pad == DRS_GRID_PAD_BORDER) {
                i = i < 0.0 ? 0.0 : (i > Lm1 ? Lm1 : i);
            } else {
                i = reflect_index(i, L, p->align);
            }
            add_tap(a, i, w[k], dw[k]);
        }
        return;
    }
    }
}

void drs_gs_read_point(const drs_gs_plan *p, const drs_tensor *grid, int64_t pt, double g[3])
{
    const int S = p->S;
    g[0] = g[1] = g[2] = 0.0;
    if (grid->dtype == DRS_F32) {
        const float *src = (const float *)grid->data + pt * S;
        for (int k = 0; k < S; k++)
            g[k] = (double)src[k];
    } else {
        const double *src = (const double *)grid->data + pt * S;
        for (int k = 0; k < S; k++)
            g[k] = src[k];
    }
}

void drs_gs_point_taps(const drs_gs_plan *p, const double g[3], int want_grad, drs_gs_taps *t)
{
    gs_axis ax[3];
    for (int d = 0; d < 3; d++) {
        if (d < 3 - p->S) { /* dummy axis: one tap of weight 1 */
            ax[d].n = 1;
            ax[d].idx[0] = 0;
            ax[d].w[0] = 1.0;
            ax[d].dw[0] = 0.0;
            ax[d].m = 0.0;
        } else {
            axis_taps(p, g[2 - d], p->in[d], &ax[d]);
        }
        t->m[d] = ax[d].m;
    }
    const int64_t H = p->in[1], W = p->in[2];
    int n = 0;
    for (int i = 0; i < ax[0].n; i++)
        for (int j = 0; j < ax[1].n; j++) {
            const int64_t rowoff = (ax[0].idx[i] * H + ax[1].idx[j]) * W;
            const double wij = ax[0].w[i] * ax[1].w[j];
            for (int k = 0; k < ax[2].n; k++) {
                t->off[n] = rowoff + ax[2].idx[k];
                t->w[n] = wij * ax[2].w[k];
                if (want_grad) {
                    t->dw[0][n] = ax[0].dw[i] * ax[1].w[j] * ax[2].w[k];
                    t->dw[1][n] = ax[0].w[i] * ax[1].dw[j] * ax[2].w[k];
                    t->dw[2][n] = wij * ax[2].dw[k];
                }
                n++;
            }
        }
    t->n = n;
}

/* ------------------------------------------------------------- forward */
/* Points are processed in blocks (DRS_GS_BLOCK_ENTRIES taps per block): the
 * taps of a block are computed once, then each channel plane is read and
 * written for the whole block (plane-local accesses).  Parallel over blocks;
 * each output element is written by the one iteration owning its point. */
#define GS_FORWARD(T, NAME, STORE)                                                             \
    static void NAME(const drs_gs_plan *p, const T *x, const drs_tensor *grid, T *y)           \
    {                                                                                          \
        const int64_t C = p->C, P = p->P, Q = p->Q;                                            \
        const int mt = p->max_taps;                                                            \
        const int64_t bp = DRS_GS_BLOCK_ENTRIES / mt; /* points per block */                   \
        const int64_t nb = (P + bp - 1) / bp, NB = p->N * nb;                                  \
        _Pragma("omp parallel for schedule(static) if (p->N * P * C > PAR_MIN_WORK)")          \
        for (int64_t blk = 0; blk < NB; blk++) {                                               \
            const int64_t n = blk / nb, q0 = (blk % nb) * bp;                                  \
            const int64_t q1 = q0 + bp < P ? q0 + bp : P;                                      \
            int64_t off[DRS_GS_BLOCK_ENTRIES];                                                 \
            double w[DRS_GS_BLOCK_ENTRIES];                                                    \
            int nt[DRS_GS_BLOCK_ENTRIES];                                                      \
            for (int64_t q = q0; q < q1; q++) {                                                \
                double g[3];                                                                   \
                drs_gs_taps t;                                                                 \
                drs_gs_read_point(p, grid, n * P + q, g);                                      \
                drs_gs_point_taps(p, g, 0, &t);                                                \
                const int64_t i = (q - q0) * mt;                                               \
                nt[q - q0] = t.n;                                                              \
                for (int k = 0; k < t.n; k++) {                                                \
                    off[i + k] = t.off[k];                                                     \
                    w[i + k] = t.w[k];                                                         \
                }                                                                              \
            }                                                                                  \
            int all4 = mt == 4;                                                                \
            for (int64_t q = q0; q < q1 && all4; q++)                                          \
                all4 = nt[q - q0] == 4;                                                        \
            if (all4) { /* 2-D bilinear, every point inside: a fixed 4-tap loop */             \
                for (int64_t c = 0; c < C; c++) {                                              \
                    const T *xc = x + (n * C + c) * Q;                                         \
                    T *yc = y + (n * C + c) * P;                                               \
                    for (int64_t q = q0; q < q1; q++) {                                        \
                        const int64_t *o4 = off + (q - q0) * 4;                                \
                        const double *w4 = w + (q - q0) * 4;                                   \
                        double acc = 0.0;                                                      \
                        acc += w4[0] * (double)xc[o4[0]];                                      \
                        acc += w4[1] * (double)xc[o4[1]];                                      \
                        acc += w4[2] * (double)xc[o4[2]];                                      \
                        acc += w4[3] * (double)xc[o4[3]];                                      \
                        yc[q] = STORE;                                                         \
                    }                                                                          \
                }                                                                              \
                continue;                                                                      \
            }                                                                                  \
            for (int64_t c = 0; c < C; c++) {                                                  \
                const T *xc = x + (n * C + c) * Q;                                             \
                T *yc = y + (n * C + c) * P;                                                   \
                for (int64_t q = q0; q < q1; q++) {                                            \
                    const int64_t i = (q - q0) * mt;                                           \
                    double acc = 0.0;                                                          \
                    for (int k = 0; k < nt[q - q0]; k++)                                       \
                        acc += w[i + k] * (double)xc[off[i + k]];                              \
                    yc[q] = STORE;                                                             \
                }                                                                              \
            }                                                                                  \
        }                                                                                      \
    }
/* Round half to even and saturate into [lo, hi] (NaN cannot occur: finite
 * weights times integers). */
static double gs_round_sat(double v, double lo, double hi)
{
    v = nearbyint(v);
    return v < lo ? lo : (v > hi ? hi : v);
}
#define GS_STORE_FLOAT(T, acc) ((T)(acc))
#define GS_STORE_INT(T, acc, lo, hi) ((T)gs_round_sat((acc), (lo), (hi)))
GS_FORWARD(float, gs_forward_f32, GS_STORE_FLOAT(float, acc))
GS_FORWARD(double, gs_forward_f64, GS_STORE_FLOAT(double, acc))
/* integer data: read directly, accumulated in double, rounded once (no copy) */
GS_FORWARD(uint8_t, gs_forward_u8, GS_STORE_INT(uint8_t, acc, 0.0, 255.0))
GS_FORWARD(int8_t, gs_forward_i8, GS_STORE_INT(int8_t, acc, -128.0, 127.0))
GS_FORWARD(int32_t, gs_forward_i32, GS_STORE_INT(int32_t, acc, -2147483648.0, 2147483647.0))
/* i64: the largest double below 2^63 keeps the cast defined */
GS_FORWARD(int64_t, gs_forward_i64,
           GS_STORE_INT(int64_t, acc, -9223372036854775808.0, 9223372036854774784.0))

drs_status drs_grid_sample_forward(drs_tensor *output, const drs_tensor *data,
                                   const drs_tensor *grid, const drs_grid_sample_attrs *attrs)
{
    drs_gs_plan p;
    drs_status s = drs_gs_plan_make(&p, attrs, data, grid, 1);
    if (s != DRS_OK)
        return s;
    if ((s = drs_gs_check_like(p.op, "output", output, data->dtype, p.out_rank, p.out_shape)) !=
        DRS_OK)
        return s;
    if (drs__overlaps(output, data) || drs__overlaps(output, grid))
        return drs__fail(DRS_ERR_INVALID_ARGUMENT, "%s: output overlaps an input", p.op);
    const int64_t ny = p.N * p.C * p.P;
    if (ny == 0)
        return DRS_OK;
    switch (data->dtype) {
    case DRS_F32:
        gs_forward_f32(&p, (const float *)data->data, grid, (float *)output->data);
        break;
    case DRS_F64:
        gs_forward_f64(&p, (const double *)data->data, grid, (double *)output->data);
        break;
    case DRS_U8: gs_forward_u8(&p, data->data, grid, output->data); break;
    case DRS_I8: gs_forward_i8(&p, data->data, grid, output->data); break;
    case DRS_I32: gs_forward_i32(&p, data->data, grid, output->data); break;
    case DRS_I64: gs_forward_i64(&p, data->data, grid, output->data); break;
    }
    return DRS_OK;
}
