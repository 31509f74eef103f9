/* SPDX-License-Identifier: MIT */
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
#include <stdint.h>
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
    int64_t ny;
    drs_status so = drs__check_extents(op, "output (N, C of data, spatial extents of grid)", r,
                                       p->out_shape, drs_dtype_size(data->dtype), &ny);
    if (so != DRS_OK)
        return so;
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
    /* u / span < 1 implies u < span: fmod(u, span) = u and no flip, without
     * the fmod calls (the same values); u < span * 0.9999999 implies
     * u / span < 1 - 2^-30, without the division */
    double extra = u, flips = 0.0;
    if (!(u < span * 0.9999999)) {
        const double r = u / span;
        extra = r < 1.0 ? u : fmod(u, span);
        flips = floor(r);
    }
    if (flips == 0.0 || fmod(flips, 2.0) == 0.0) {
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
        const double P = 2.0 * (double)(L - 1), a = fabs(i);
        const double v = a < P ? a : fmod(a, P);
        return v >= (double)L ? P - v : v;
    }
    const double P = 2.0 * (double)L;
    double v = i >= 0.0 && i < P ? i : fmod(i, P);
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

/* Always inlined: the per-point helpers below take `mode` (p->mode) apart, so
 * that a caller with a constant mode gets the mode tests folded away. */
#if defined(__GNUC__)
#define GS_INLINE static inline __attribute__((always_inline))
#else
#define GS_INLINE static inline
#endif
/* The coordinate of one axis: nearest, the rounded (not yet padded) index;
 * bilinear, u after the padding; bicubic, the raw u; and m (bicubic: du/dg).
 * Returns 0 when the axis has no tap (zeros padding, non-finite u). */
GS_INLINE int axis_coord(const drs_gs_plan *p, drs_grid_mode mode, double g, int64_t L,
                         double *uo, double *mo)
{
    double dudg;
    double u = denorm(g, L, p->align, &dudg);
    const double Lm1 = (double)(L - 1);
    *mo = 0.0;
    if (!isfinite(u)) {
        if (p->pad == DRS_GRID_PAD_ZEROS)
            return 0; /* sample 0, gradient 0 */
        u = isnan(u) ? 0.0 : (u > 0.0 ? Lm1 : 0.0); /* non-finite: edge or pixel 0 */
        dudg = 0.0;
    }
    if (mode == DRS_GRID_NEAREST) {
        if (!p->onnx) {
            /* GridSample-9: OpenVINO denormalises in float32 (its reference's
             * order of operations), so that every tie rounds the same way */
            const float gf = (float)g, Lf = (float)L;
            const float uf = p->align ? (gf + 1.0f) * (Lf - 1.0f) / 2.0f
                                      : ((gf + 1.0f) * Lf - 1.0f) / 2.0f;
            if (isfinite(uf))
                u = (double)uf;
        }
        *uo = round_half_even(u);
        return 1; /* m = 0: nearest has a zero grid gradient */
    }
    if (mode == DRS_GRID_BICUBIC) {
        *uo = u;
        *mo = dudg; /* no padding factor (PyTorch's rule) */
        return 1;
    }
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
    *uo = u;
    *mo = dudg * kappa;
    return 1;
}

/* Nearest: the padded index of the rounded coordinate r; 0 when outside
 * (zeros padding). */
GS_INLINE int nearest_index(const drs_gs_plan *p, double r, int64_t L, double *idx)
{
    const double Lm1 = (double)(L - 1);
    if (p->pad == DRS_GRID_PAD_ZEROS) {
        *idx = r;
        return r >= 0.0 && r <= Lm1;
    }
    if (p->pad == DRS_GRID_PAD_BORDER)
        *idx = r < 0.0 ? 0.0 : (r > Lm1 ? Lm1 : r);
    else
        *idx = reflect_index(r, L, p->align);
    return 1;
}

/* The taps of one axis. */
GS_INLINE void axis_taps_mode(const drs_gs_plan *p, drs_grid_mode mode, double g, int64_t L,
                              gs_axis *a)
{
    double u;
    const double Lm1 = (double)(L - 1);
    a->n = 0;
    if (!axis_coord(p, mode, g, L, &u, &a->m))
        return;
    switch (mode) {
    case DRS_GRID_NEAREST: {
        double i;
        if (nearest_index(p, u, L, &i))
            add_tap(a, i, 1.0, 0.0);
        return;
    }
    case DRS_GRID_BILINEAR: {
        const double x0 = floor(u), t = u - x0;
        if (x0 >= 0.0 && x0 <= Lm1)
            add_tap(a, x0, 1.0 - t, -1.0);
        if (x0 + 1.0 >= 0.0 && x0 + 1.0 <= Lm1)
            add_tap(a, x0 + 1.0, t, 1.0);
        return;
    }
    case DRS_GRID_BICUBIC: {
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
                if (!(u >= 0.0 && u < P)) /* else fmod(u, P) == u */
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

static void axis_taps(const drs_gs_plan *p, double g, int64_t L, gs_axis *a)
{
    axis_taps_mode(p, p->mode, g, L, a);
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

/* The 4 taps of a 2-D bilinear point with both axes' two taps inside: top
 * left offset o, y weights wy0 = 1 - ty and ty, x weights wx0 and tx; the
 * products of gs_taps_2d's general loop (dw/du of the taps is -1, +1). */
GS_INLINE void gs_put4(int64_t o, int64_t W, double wy0, double ty, double wx0, double tx,
                       double my, double mx, int64_t *off, double *w, double *dwy, double *dwx,
                       double *m)
{
    off[0] = o;
    off[1] = o + 1;
    off[2] = o + W;
    off[3] = o + W + 1;
    w[0] = wy0 * wx0;
    w[1] = wy0 * tx;
    w[2] = ty * wx0;
    w[3] = ty * tx;
    if (m) {
        dwy[0] = -1.0 * wx0;
        dwy[1] = -1.0 * tx;
        dwy[2] = 1.0 * wx0;
        dwy[3] = 1.0 * tx;
        dwx[0] = wy0 * -1.0;
        dwx[1] = wy0 * 1.0;
        dwx[2] = ty * -1.0;
        dwx[3] = ty * 1.0;
        m[0] = 0.0;
        m[1] = my;
        m[2] = mx;
    }
}

/* Zeros or border padding with the y and x axes as the two lanes of one
 * vector: denorm, the padding of axis_coord and floor, lane-wise, with the
 * same operations (floor through an int32 conversion, for |u| < 2^31 - 2).
 * The points such a path does not take (reflection, a non-finite or huge
 * coordinate, a tap outside, a rounding tie) go the scalar way. */
typedef long long gs_v2i __attribute__((vector_size(16)));
typedef int gs_v2s __attribute__((vector_size(8)));
#define GS_SEL(mask, a, b) ((drs_gs_v2d)(((gs_v2i)(a) & (mask)) | ((gs_v2i)(b) & ~(mask))))
#define GS_VEC_MAX_L (INT32_MAX - 4)

/* u = denorm({gy, gx}) and du/dg; 0 when a lane is not finite */
GS_INLINE int gs_denorm_vec(const drs_gs_plan *p, double gx, double gy, drs_gs_v2d *u,
                            drs_gs_v2d *dudg)
{
    const drs_gs_v2d L = {(double)p->in[1], (double)p->in[2]};
    const drs_gs_v2d Lm1 = {(double)(p->in[1] - 1), (double)(p->in[2] - 1)}, g = {gy, gx};
    *dudg = p->align ? Lm1 / 2.0 : L / 2.0;
    *u = p->align ? ((g + 1.0) / 2.0) * Lm1 : ((g + 1.0) * L - 1.0) / 2.0;
    return isfinite((*u)[0]) && isfinite((*u)[1]);
}

/* floor of lanes with |u| < 2^31 - 2 (floor(-0.0) = -0.0) */
GS_INLINE drs_gs_v2d gs_floor_vec(drs_gs_v2d u)
{
    drs_gs_v2d r = __builtin_convertvector(__builtin_convertvector(u, gs_v2s), drs_gs_v2d);
    r = GS_SEL((gs_v2i)(r > u), r - 1.0, r);
    return GS_SEL((gs_v2i)(r == u), u, r);
}

/* Nearest: 1 and the tap's offset, 0 (no tap), or -1 (the scalar way). */
GS_INLINE int gs_nearest_vec(const drs_gs_plan *p, double gx, double gy, int64_t *off)
{
    drs_gs_v2d u, dudg;
    if (p->pad == DRS_GRID_PAD_REFLECTION || p->in[1] > GS_VEC_MAX_L ||
        p->in[2] > GS_VEC_MAX_L || !gs_denorm_vec(p, gx, gy, &u, &dudg))
        return -1;
    if (!p->onnx) { /* GridSample-9: axis_coord's float32 coordinate, both finite */
        const float gyf = (float)gy, gxf = (float)gx;
        const float Hf = (float)p->in[1], Wf = (float)p->in[2];
        const float uy = p->align ? (gyf + 1.0f) * (Hf - 1.0f) / 2.0f
                                  : ((gyf + 1.0f) * Hf - 1.0f) / 2.0f;
        const float ux = p->align ? (gxf + 1.0f) * (Wf - 1.0f) / 2.0f
                                  : ((gxf + 1.0f) * Wf - 1.0f) / 2.0f;
        if (!(isfinite(uy) && isfinite(ux)))
            return -1;
        u = (drs_gs_v2d){(double)uy, (double)ux};
    }
    if (!(fabs(u[0]) < 1e9 && fabs(u[1]) < 1e9))
        return -1;
    const drs_gs_v2d Lm1 = {(double)(p->in[1] - 1), (double)(p->in[2] - 1)}, zero = {0.0, 0.0};
    drs_gs_v2d r = gs_floor_vec(u);
    const drs_gs_v2d d = u - r;
    if (d[0] == 0.5 || d[1] == 0.5) /* a tie: round_half_even's parity test */
        return -1;
    r = GS_SEL((gs_v2i)(d > 0.5), r + 1.0, r);
    if (p->pad == DRS_GRID_PAD_ZEROS) {
        if (!(r[0] >= 0.0 && r[0] <= Lm1[0] && r[1] >= 0.0 && r[1] <= Lm1[1]))
            return 0;
    } else {
        r = GS_SEL((gs_v2i)(r < zero), zero, GS_SEL((gs_v2i)(r > Lm1), Lm1, r));
    }
    *off = (int64_t)r[0] * p->in[2] + (int64_t)r[1];
    return 1;
}

/* Bilinear: 1 when it wrote the point's 4 taps. */
GS_INLINE int gs_bilinear_vec(const drs_gs_plan *p, double gx, double gy, int64_t *off,
                              double *w, double *dwy, double *dwx, double *m)
{
    const int64_t H = p->in[1], W = p->in[2];
    drs_gs_v2d u, dudg;
    if (p->pad == DRS_GRID_PAD_REFLECTION || H > GS_VEC_MAX_L || W > GS_VEC_MAX_L ||
        !gs_denorm_vec(p, gx, gy, &u, &dudg))
        return 0;
    const drs_gs_v2d Lm1 = {(double)(H - 1), (double)(W - 1)}, zero = {0.0, 0.0};
    const drs_gs_v2d one = {1.0, 1.0};
    drs_gs_v2d kappa = one;
    if (p->pad == DRS_GRID_PAD_ZEROS) {
        const drs_gs_v2d lo = {-2.0, -2.0}, hi = Lm1 + 2.0;
        u = GS_SEL((gs_v2i)(u < lo), lo, u);
        u = GS_SEL((gs_v2i)(u > hi), hi, u);
    } else { /* clip_set_grad */
        const gs_v2i le0 = (gs_v2i)(u <= zero), ge = (gs_v2i)(u >= Lm1);
        kappa = GS_SEL(le0 | ge, zero, one);
        u = GS_SEL(le0, zero, GS_SEL(ge, Lm1, u));
    }
    const drs_gs_v2d x0 = gs_floor_vec(u); /* u in [-2, L + 1] */
    const gs_v2i in = (gs_v2i)(x0 >= zero) & (gs_v2i)(x0 + 1.0 <= Lm1);
    if (!(in[0] && in[1]))
        return 0;
    const drs_gs_v2d t = u - x0, w0 = 1.0 - t, mm = dudg * kappa;
    gs_put4((int64_t)x0[0] * W + (int64_t)x0[1], W, w0[0], t[0], w0[1], t[1], mm[0], mm[1], off,
            w, dwy, dwx, m);
    return 1;
}

/* A 2-D point: the outer product of the y (H) and x (W) taps, in the order
 * and with the products of drs_gs_point_taps (its dummy depth tap has weight
 * 1 and derivative 0, so w = wy * wx, dw/dy = dwy * wx, dw/dx = wy * dwx: the
 * same bits). */
GS_INLINE int gs_taps_2d(const drs_gs_plan *p, drs_grid_mode mode, double gx, double gy,
                         int64_t *off, double *w, double *dwy, double *dwx, double *m)
{
    const int64_t W = p->in[2];
    if (mode == DRS_GRID_NEAREST) { /* one tap of weight 1 (dw 0, m 0) or none */
        int n = gs_nearest_vec(p, gx, gy, off);
        if (n < 0) {
            double uy, ux, my, mx, iy, ix;
            n = axis_coord(p, mode, gy, p->in[1], &uy, &my) &&
                axis_coord(p, mode, gx, W, &ux, &mx) && nearest_index(p, uy, p->in[1], &iy) &&
                nearest_index(p, ux, W, &ix);
            if (n)
                off[0] = (int64_t)iy * W + (int64_t)ix;
        }
        if (n)
            w[0] = 1.0;
        if (m) {
            if (n)
                dwy[0] = dwx[0] = 0.0;
            m[0] = m[1] = m[2] = 0.0;
        }
        return n;
    }
    if (mode == DRS_GRID_BILINEAR) { /* both axes' 2 taps inside: the 4 taps at once */
        if (gs_bilinear_vec(p, gx, gy, off, w, dwy, dwx, m))
            return 4;
        double uy, ux, my, mx;
        if (axis_coord(p, mode, gy, p->in[1], &uy, &my) && axis_coord(p, mode, gx, W, &ux, &mx)) {
            const double y0 = floor(uy), x0 = floor(ux);
            if (y0 >= 0.0 && y0 + 1.0 <= (double)(p->in[1] - 1) && x0 >= 0.0 &&
                x0 + 1.0 <= (double)(W - 1)) {
                gs_put4((int64_t)y0 * W + (int64_t)x0, W, 1.0 - (uy - y0), uy - y0,
                        1.0 - (ux - x0), ux - x0, my, mx, off, w, dwy, dwx, m);
                return 4;
            }
        }
    }
    gs_axis ay, ax;
    ay.idx[0] = ax.idx[0] = 0; /* (silences -Wmaybe-uninitialized after inlining) */
    axis_taps_mode(p, mode, gy, p->in[1], &ay);
    axis_taps_mode(p, mode, gx, W, &ax);
    int n = 0;
    for (int j = 0; j < ay.n; j++)
        for (int k = 0; k < ax.n; k++, n++) {
            off[n] = ay.idx[j] * W + ax.idx[k];
            w[n] = ay.w[j] * ax.w[k];
            if (m) {
                dwy[n] = ay.dw[j] * ax.w[k];
                dwx[n] = ay.w[j] * ax.dw[k];
            }
        }
    if (m) {
        m[0] = 0.0;
        m[1] = ay.m;
        m[2] = ax.m;
    }
    return n;
}

static int gs_vnearest(int level, const drs_gs_plan *p, const drs_tensor *grid, int64_t pt,
                       int64_t *off, int32_t *nt);

/* 2-D points [pt0, pt0 + np) of one mode (a constant after inlining).
 * Nearest with zeros or border padding on an AVX2 or AVX-512 CPU takes
 * groups of DRS_GS_VP points through gs_vnearest first (the same taps; the
 * unused slots of a point without a tap are written too). */
GS_INLINE void gs_block_taps_2d(const drs_gs_plan *p, drs_grid_mode mode, const drs_tensor *grid,
                                int64_t pt0, int64_t np, const drs_gs_block *b)
{
    const int mt = p->max_taps, grad = b->m != NULL;
    const float *gf = grid->dtype == DRS_F32 ? (const float *)grid->data + pt0 * 2 : NULL;
    const double *gd = grid->dtype == DRS_F32 ? NULL : (const double *)grid->data + pt0 * 2;
    const int vnear = mode == DRS_GRID_NEAREST && p->pad != DRS_GRID_PAD_REFLECTION &&
                      p->in[1] <= GS_VEC_MAX_L && p->in[2] <= GS_VEC_MAX_L
                          ? drs_gs_vlevel()
                          : 0;
    for (int64_t i = 0; i < np; i++) {
        if (vnear && i % DRS_GS_VP == 0 && i + DRS_GS_VP <= np &&
            gs_vnearest(vnear, p, grid, pt0 + i, b->off + i, b->nt + i)) { /* (mt is 1) */
            for (int64_t k = i; k < i + DRS_GS_VP; k++) {
                b->w[k] = 1.0;
                if (grad) {
                    b->dw[1][k] = b->dw[2][k] = 0.0;
                    b->m[3 * k] = b->m[3 * k + 1] = b->m[3 * k + 2] = 0.0;
                }
            }
            i += DRS_GS_VP - 1;
            continue;
        }
        const int64_t e = i * mt;
        const double gx = gf ? (double)gf[2 * i] : gd[2 * i];
        const double gy = gf ? (double)gf[2 * i + 1] : gd[2 * i + 1];
        b->nt[i] = gs_taps_2d(p, mode, gx, gy, b->off + e, b->w + e, grad ? b->dw[1] + e : NULL,
                              grad ? b->dw[2] + e : NULL, grad ? b->m + 3 * i : NULL);
    }
}

void drs_gs_block_taps(const drs_gs_plan *p, const drs_tensor *grid, int64_t pt0, int64_t np,
                       const drs_gs_block *b)
{
    if (p->S == 2) {
        switch (p->mode) {
        case DRS_GRID_BILINEAR: gs_block_taps_2d(p, DRS_GRID_BILINEAR, grid, pt0, np, b); return;
        case DRS_GRID_NEAREST: gs_block_taps_2d(p, DRS_GRID_NEAREST, grid, pt0, np, b); return;
        case DRS_GRID_BICUBIC: gs_block_taps_2d(p, DRS_GRID_BICUBIC, grid, pt0, np, b); return;
        }
    }
    const int mt = p->max_taps, grad = b->m != NULL;
    for (int64_t i = 0; i < np; i++) {
        const int64_t e = i * mt;
        double g[3];
        drs_gs_taps t;
        drs_gs_read_point(p, grid, pt0 + i, g);
        drs_gs_point_taps(p, g, grad, &t);
        b->nt[i] = t.n;
        for (int k = 0; k < t.n; k++) {
            b->off[e + k] = t.off[k];
            b->w[e + k] = t.w[k];
            for (int d = 3 - p->S; d < 3 && grad; d++)
                b->dw[d][e + k] = t.dw[d][k];
        }
        for (int d = 0; d < 3 && grad; d++)
            b->m[3 * i + d] = t.m[d];
    }
}

/* ------------------------------------------------------------- forward */
/* acc += the K taps of one point (K a constant where the caller can make it
 * one, so the loop is unrolled). */
#define GS_DOT(K, acc, w, xc, o)                                                               \
    for (int k_ = 0; k_ < (K); k_++)                                                           \
        (acc) += (w)[k_] * (double)(xc)[(o)[k_]]

/* A 2-D bilinear point with its 4 taps reads two pairs of adjacent pixels
 * (o, o + 1 and o + W, o + W + 1), loaded as vectors of two doubles.  Two
 * such points are done together, the lanes of one vector being the two
 * points' sums: the same IEEE products added in the tap order, so the bits
 * of GS_DOT(4). */
typedef float gs_v2f __attribute__((vector_size(8)));
GS_INLINE drs_gs_v2d gs_pair_f32(const float *x)
{
    gs_v2f v;
    memcpy(&v, x, sizeof v);
    return __builtin_convertvector(v, drs_gs_v2d);
}
GS_INLINE drs_gs_v2d gs_pair_f64(const double *x)
{
    drs_gs_v2d v;
    memcpy(&v, x, sizeof v);
    return v;
}
#define GS_PAIR_INT(x) ((drs_gs_v2d){(double)(x)[0], (double)(x)[1]})
/* acc (two lanes: points A and B) = their 4-tap sums; wt holds the weights
 * of tap k of A and B at wt[k] */
#define GS_BILIN4X2(PAIR, acc, wt, xc, oA, oB)                                                 \
    do {                                                                                       \
        const drs_gs_v2d a01_ = PAIR((xc) + (oA)[0]), b01_ = PAIR((xc) + (oB)[0]);             \
        const drs_gs_v2d a23_ = PAIR((xc) + (oA)[2]), b23_ = PAIR((xc) + (oB)[2]);             \
        (acc) = (drs_gs_v2d){0.0, 0.0};                                                        \
        (acc) += (wt)[0] * (drs_gs_v2d){a01_[0], b01_[0]};                                     \
        (acc) += (wt)[1] * (drs_gs_v2d){a01_[1], b01_[1]};                                     \
        (acc) += (wt)[2] * (drs_gs_v2d){a23_[0], b23_[0]};                                     \
        (acc) += (wt)[3] * (drs_gs_v2d){a23_[1], b23_[1]};                                     \
    } while (0)

/* 2-D bilinear f32 with AVX-512 or AVX2: vector groups of DRS_GS_VP points
 * (grid_sample.h) whose lanes compute acc = 0.0 + w0 * x00 + w1 * x01 + w2 *
 * x10 + w3 * x11, the products and sums of GS_DOT(4) in its order (no
 * contraction), so the bits of the scalar path.  A block's groups are set up
 * once (gs_vgroups) and used for each channel plane. */
#define GS_VP DRS_GS_VP
typedef struct gs_vgroup {
    int64_t o0[GS_VP], o2[GS_VP]; /* the first pixel of each pair */
    double w[4][GS_VP];           /* tap k's weight per point */
    drs_gs_window win; /* AVX-512: the permute window (perm 0: gathers) */
} gs_vgroup;
#define GS_MAX_VGROUPS (DRS_GS_BLOCK_ENTRIES / 4 / GS_VP)

/* The groups of the np points of a block (taps off/w/nt, 4 slots per point);
 * full[j]: whether group j has all its taps.  Returns the number of groups
 * (a partial last group is left to the scalar path). */
static int64_t gs_vgroups(const int64_t *off, const double *w, const int32_t *nt, int64_t np,
                          int64_t W, gs_vgroup *g, uint8_t *full)
{
    const int64_t ng = np / GS_VP;
    for (int64_t j = 0; j < ng; j++) {
        int all = 1;
        for (int l = 0; l < GS_VP; l++) {
            const int64_t b = j * GS_VP + l;
            all &= nt[b] == 4;
            g[j].o0[l] = off[b * 4];
            g[j].o2[l] = off[b * 4 + 2];
            for (int k = 0; k < 4; k++)
                g[j].w[k][l] = w[b * 4 + k];
        }
        full[j] = (uint8_t)all;
        g[j].win.perm = 0;
        if (all)
            drs_gs_window_of(g[j].o0, g[j].o2, W, &g[j].win);
    }
    return ng;
}

#if DRS_SIMD_MULTI
/* groups j < ng with full[j] of the plane xc into yc[j * GS_VP ...]; the
 * same pixels of the plane xn (the next channel, or NULL) are prefetched, into
 * the L2 only with l2 */
DRS_TARGET_AVX512 static inline __attribute__((always_inline)) void
gs_vbilin_avx512(const float *xc, const gs_vgroup *g, const uint8_t *full, int64_t ng, float *yc,
                 const float *xn, int64_t W, int l2)
{
    for (int64_t j = 0; j < ng; j++) {
        if (!full[j])
            continue;
        const gs_vgroup *q = g + j;
        __m512d x[4];
        if (xn)
            drs_gs_prefetch_taps(xn, W, q->o0, q->o2, &q->win, l2);
        if (q->win.perm)
            drs_gs_window4_avx512(xc, W, &q->win, x);
        else
            drs_gs_gather4_avx512(xc, q->o0, q->o2, x);
        __m512d acc = _mm512_setzero_pd();
        for (int k = 0; k < 4; k++)
            acc = _mm512_add_pd(acc, _mm512_mul_pd(_mm512_loadu_pd(q->w[k]), x[k]));
        _mm256_storeu_ps(yc + j * GS_VP, _mm512_cvtpd_ps(acc));
    }
}

/* gs_vbilin_avx512 for the planes of two channels, xc and xc + Q, into yc and
 * yd: the group's weights and window are shared, each channel's arithmetic is
 * gs_vbilin_avx512's (the same bits).  (Each plane's window through its own
 * drs_gs_window4_avx512 call ran as fast as one function loading the indices
 * and testing the shape once for both: W8a 2.40 / 2.40 ms.)  xn, xn2: the
 * planes of the two channels after them, prefetched into the L1 (each may be
 * NULL). */
DRS_TARGET_AVX512 static void gs_vbilin2_avx512(const float *xc, int64_t Q, const gs_vgroup *g,
                                                const uint8_t *full, int64_t ng, float *yc,
                                                float *yd, const float *xn, const float *xn2,
                                                int64_t W)
{
    for (int64_t j = 0; j < ng; j++) {
        if (!full[j])
            continue;
        const gs_vgroup *q = g + j;
        __m512d x[4], z[4];
        if (xn)
            drs_gs_prefetch_taps(xn, W, q->o0, q->o2, &q->win, 0);
        if (xn2)
            drs_gs_prefetch_taps(xn2, W, q->o0, q->o2, &q->win, 0);
        if (q->win.perm) {
            drs_gs_window4_avx512(xc, W, &q->win, x);
            drs_gs_window4_avx512(xc + Q, W, &q->win, z);
        } else {
            drs_gs_gather4_avx512(xc, q->o0, q->o2, x);
            drs_gs_gather4_avx512(xc + Q, q->o0, q->o2, z);
        }
        __m512d acc = _mm512_setzero_pd(), acd = acc;
        for (int k = 0; k < 4; k++) {
            const __m512d wk = _mm512_loadu_pd(q->w[k]);
            acc = _mm512_add_pd(acc, _mm512_mul_pd(wk, x[k]));
            acd = _mm512_add_pd(acd, _mm512_mul_pd(wk, z[k]));
        }
        _mm256_storeu_ps(yc + j * GS_VP, _mm512_cvtpd_ps(acc));
        _mm256_storeu_ps(yd + j * GS_VP, _mm512_cvtpd_ps(acd));
    }
}

DRS_TARGET_AVX2 static inline __attribute__((always_inline)) void
gs_vbilin_avx2(const float *xc, const gs_vgroup *g, const uint8_t *full, int64_t ng, float *yc,
               const float *xn, int l2)
{
    for (int64_t j = 0; j < ng; j++) {
        if (!full[j])
            continue;
        const gs_vgroup *q = g + j;
        if (xn)
            drs_gs_prefetch_group(xn, q->o0, q->o2, l2);
        for (int h = 0; h < GS_VP; h += 4) {
            __m256d x[4];
            drs_gs_gather4_avx2(xc, q->o0 + h, q->o2 + h, x);
            __m256d acc = _mm256_setzero_pd();
            for (int k = 0; k < 4; k++)
                acc = _mm256_add_pd(acc, _mm256_mul_pd(_mm256_loadu_pd(q->w[k] + h), x[k]));
            _mm_storeu_ps(yc + j * GS_VP + h, _mm256_cvtpd_ps(acc));
        }
    }
}
/* the two prefetch levels as constants, each its own loop */
DRS_TARGET_AVX512 static void gs_vbilin_avx512_l1(const float *xc, const gs_vgroup *g,
                                                  const uint8_t *full, int64_t ng, float *yc,
                                                  const float *xn, int64_t W)
{
    gs_vbilin_avx512(xc, g, full, ng, yc, xn, W, 0);
}
DRS_TARGET_AVX512 static void gs_vbilin_avx512_l2(const float *xc, const gs_vgroup *g,
                                                  const uint8_t *full, int64_t ng, float *yc,
                                                  const float *xn, int64_t W)
{
    gs_vbilin_avx512(xc, g, full, ng, yc, xn, W, 1);
}
DRS_TARGET_AVX2 static void gs_vbilin_avx2_l1(const float *xc, const gs_vgroup *g,
                                              const uint8_t *full, int64_t ng, float *yc,
                                              const float *xn)
{
    gs_vbilin_avx2(xc, g, full, ng, yc, xn, 0);
}
DRS_TARGET_AVX2 static void gs_vbilin_avx2_l2(const float *xc, const gs_vgroup *g,
                                              const uint8_t *full, int64_t ng, float *yc,
                                              const float *xn)
{
    gs_vbilin_avx2(xc, g, full, ng, yc, xn, 1);
}
#endif

/* The next channel's pixels go to the L2 only when a plane has GS_PF_L2_BYTES
 * or more and the L1 data cache holds less than GS_PF_L1_BIG.  Measured with
 * drs_bench, 1 thread, thread CPU time, min of 4-5 alternating rounds:
 * - on a Zen 4 core (32 KiB L1d), with --cold, W11's 1 MiB planes took 6.3 ms
 *   with prefetches into the L1 and 5.1 ms into the L2 (6.2 against 5.2 with
 *   its input in the caches), while W8a's and W8b's 64 KiB planes took 2-3 %
 *   longer (4.13 -> 4.22 and 4.10 -> 4.21 ms);
 * - on a Zen 5 core (48 KiB L1d) W11 took 3.96 ms into the L2 and 3.60 into
 *   the L1 with the channels in pairs (gs_vbilin2; --cold 4.02 / 3.64, at 2
 *   threads 1.98-2.41 / 1.86-1.88), and W8c's nearest windows were slow into
 *   the L2 (gs_vnear).
 * An L1d of unknown size counts as small. */
#define GS_PF_L2_BYTES ((int64_t)1 << 20)
#define GS_PF_L1_BIG ((long)48 << 10)
static int gs_pf_l2(int64_t plane_bytes)
{
    return plane_bytes >= GS_PF_L2_BYTES && drs__cache_bytes(1) < GS_PF_L1_BIG;
}
static void gs_vbilin(int level, const float *xc, const gs_vgroup *g, const uint8_t *full,
                      int64_t ng, float *yc, const float *xn, int64_t W, int64_t Q)
{
#if DRS_SIMD_MULTI
    const int l2 = gs_pf_l2(Q * (int64_t)sizeof(float));
    if (level == DRS_SIMD_AVX512)
        (l2 ? gs_vbilin_avx512_l2 : gs_vbilin_avx512_l1)(xc, g, full, ng, yc, xn, W);
    else
        (l2 ? gs_vbilin_avx2_l2 : gs_vbilin_avx2_l1)(xc, g, full, ng, yc, xn);
#else
    (void)level, (void)xc, (void)g, (void)full, (void)ng, (void)yc, (void)xn, (void)W, (void)Q;
#endif
}

/* gs_vbilin for the channels of the planes xc and xc + Q (into yc, yd) at once,
 * with AVX-512 where the next planes go to the L1 (gs_pf_l2); 0 (nothing
 * written) otherwise.  xn, xn2 as gs_vbilin2_avx512's.  Drs_bench, 1 thread,
 * thread CPU time, min of 5 alternating rounds on a Zen 5 core: W8a's forward
 * 2.70 -> 2.32 ms, W8b's 2.69 -> 2.38; W11's 1 MiB planes in pairs with their
 * next two channels prefetched into the L2 3.54 -> 3.59 (3.79 -> 3.91 with
 * --cold), so where they go to the L2 they stay one by one. */
static int gs_vbilin2(int level, const float *xc, const gs_vgroup *g, const uint8_t *full,
                      int64_t ng, float *yc, float *yd, const float *xn, const float *xn2,
                      int64_t W, int64_t Q)
{
#if DRS_SIMD_MULTI
    if (level != DRS_SIMD_AVX512 || gs_pf_l2(Q * (int64_t)sizeof(float)))
        return 0;
    gs_vbilin2_avx512(xc, Q, g, full, ng, yc, yd, xn, xn2, W);
    return 1;
#else
    (void)level, (void)xc, (void)g, (void)full, (void)ng, (void)yc, (void)yd, (void)xn;
    (void)xn2, (void)W, (void)Q;
    return 0;
#endif
}

/* Nearest f32 with AVX-512: groups of GS_NP points (the lanes of one vector
 * of floats) whose pixels lie in 16 columns and up to 4 rows of the plane:
 * the window's first pixel (base), the offsets of its rows 1-3 (0 for a row
 * it lacks: row 0 is read again), each point's pixel in it (pidx: (row -
 * top row) * 16 + column - first column) and the lanes of rows 2 and 3 (m2,
 * m3).  A plane's pixels are then one two-row permute and two masked
 * one-row permutes; each output is 0.0f + pixel, the bits of the scalar
 * (float)(0.0 + (double)pixel). */
#define GS_NP 16
#define GS_MAX_NGROUPS (DRS_GS_BLOCK_ENTRIES / GS_NP)
typedef struct gs_nwin {
    int64_t base, row[3];
    int32_t pidx[GS_NP];
    uint16_t m2, m3;
} gs_nwin;

#if DRS_SIMD_MULTI
/* The rows of window q in the plane xp: into the L2 only (l2), else into
 * every level (a constant after inlining: drs_gs_prefetch_window's reason) */
static inline __attribute__((always_inline)) void gs_nwin_prefetch(const float *xp,
                                                                   const gs_nwin *q, int l2)
{
    const float *b = xp + q->base;
    DRS_GS_PREFETCH(b, l2);
    DRS_GS_PREFETCH(b + 15, l2);
    for (int k = 0; k < 3; k++) {
        DRS_GS_PREFETCH(b + q->row[k], l2);
        DRS_GS_PREFETCH(b + q->row[k] + 15, l2);
    }
}
#endif

/* The windows of the groups of GS_NP of the np points with taps off, nt (one
 * tap each) in a plane W wide; ok[j]: group j has one (all its points have
 * their pixel, in 16 columns and 4 rows).  Returns the number of groups. */
static int64_t gs_nwindows(const int64_t *off, const int32_t *nt, int64_t np, int64_t W,
                           gs_nwin *g, uint8_t *ok)
{
    const int64_t ng = np / GS_NP;
    const double inv = 1.0 / (double)W;
    for (int64_t j = 0; j < ng; j++) {
        ok[j] = 0;
        if (W < 16)
            continue;
        int64_t r[GS_NP], c[GS_NP];
        drs_gs_span sp = DRS_GS_SPAN_EMPTY;
        int all = 1;
        for (int l = 0; l < GS_NP && all; l++) {
            all = nt[j * GS_NP + l] == 1 && off[j * GS_NP + l] >= 0; /* (off only with a tap) */
            if (all)
                drs_gs_span_add(&sp, off[j * GS_NP + l], W, inv, &r[l], &c[l]);
        }
        const int64_t rmin = sp.rmin, rmax = sp.rmax, cmin = sp.cmin, cmax = sp.cmax;
        if (!all || rmax - rmin > 3 || cmax - cmin > 15)
            continue;
        const int64_t c0 = cmin < W - 16 ? cmin : W - 16;
        gs_nwin *q = g + j;
        q->m2 = q->m3 = 0;
        for (int l = 0; l < GS_NP; l++) {
            q->pidx[l] = (int32_t)((r[l] - rmin) * 16 + c[l] - c0);
            q->m2 |= (uint16_t)((r[l] == rmin + 2) << l);
            q->m3 |= (uint16_t)((r[l] == rmin + 3) << l);
        }
        for (int k = 1; k <= 3; k++)
            q->row[k - 1] = rmax - rmin >= k ? k * W : 0;
        q->base = rmin * W + c0;
        ok[j] = 1;
    }
    return ng;
}

#if DRS_SIMD_MULTI
/* gs_nwindows with AVX-512: a group's 16 points in two vectors of 8; the row
 * of offset o is trunc(o / W) through the same double multiply, moved by at
 * most one (a group whose quotient is off by more, which offsets below 2^52
 * never give, goes through drs_gs_row_col); the same windows, the same ok.
 * x0 (or NULL): the block's first plane, whose window rows are requested as
 * each window is found (as gs_block_vtaps does; W8c's forward 1.98 -> 1.90 ms
 * at 1 thread, 2.17 -> 2.10 with --cold, min of 5 alternating rounds); x1 (or
 * NULL) the second, whose rows are requested too: the channel loop prefetches
 * two planes on (GS_FORWARD) */
DRS_TARGET_AVX512 static int64_t gs_nwindows_avx512(const int64_t *off, const int32_t *nt,
                                                    int64_t np, int64_t W, gs_nwin *g,
                                                    uint8_t *ok, const float *x0, const float *x1)
{
    const int64_t ng = np / GS_NP;
    const __m512d inv = _mm512_set1_pd(1.0 / (double)W);
    const __m512i Wv = _mm512_set1_epi64(W), one = _mm512_set1_epi64(1);
    const __m512i zero = _mm512_setzero_si512(), t1 = _mm512_set1_epi32(1);
    for (int64_t j = 0; j < ng; j++) {
        ok[j] = 0;
        if (W < 16) /* (no window fits a row) */
            continue;
        if (_mm512_cmpneq_epi32_mask(_mm512_loadu_si512((const void *)(nt + j * GS_NP)), t1))
            continue; /* a point without its one tap */
        __m512i r[2], c[2];
        int bad = 0;
        for (int h = 0; h < 2; h++) {
            const __m512i o = _mm512_loadu_si512((const void *)(off + j * GS_NP + 8 * h));
            bad |= _mm512_cmplt_epi64_mask(o, zero) != 0;
            __m512i q = _mm512_cvttpd_epi64(_mm512_mul_pd(_mm512_cvtepi64_pd(o), inv));
            /* q * W > o: q - 1 (q > 0); (q + 1) * W <= o: q + 1 */
            const __mmask8 hi = _mm512_cmpgt_epi64_mask(_mm512_mullo_epi64(q, Wv), o) &
                                _mm512_cmpgt_epi64_mask(q, zero);
            q = _mm512_mask_sub_epi64(q, hi, q, one);
            const __mmask8 lo = _mm512_cmple_epi64_mask(
                _mm512_mullo_epi64(_mm512_add_epi64(q, one), Wv), o);
            q = _mm512_mask_add_epi64(q, lo, q, one);
            const __m512i qW = _mm512_mullo_epi64(q, Wv);
            bad |= _mm512_cmpgt_epi64_mask(qW, o) != 0 ||
                   _mm512_cmple_epi64_mask(_mm512_add_epi64(qW, Wv), o) != 0;
            r[h] = q;
            c[h] = _mm512_sub_epi64(o, qW);
        }
        if (bad) { /* (negative offsets: no window; a quotient off by two: the scalar way) */
            gs_nwindows(off + j * GS_NP, nt + j * GS_NP, GS_NP, W, g + j, ok + j);
            continue;
        }
        const int64_t rmin = _mm512_reduce_min_epi64(_mm512_min_epi64(r[0], r[1]));
        const int64_t rmax = _mm512_reduce_max_epi64(_mm512_max_epi64(r[0], r[1]));
        const int64_t cmin = _mm512_reduce_min_epi64(_mm512_min_epi64(c[0], c[1]));
        const int64_t cmax = _mm512_reduce_max_epi64(_mm512_max_epi64(c[0], c[1]));
        if (rmax - rmin > 3 || cmax - cmin > 15)
            continue;
        const int64_t c0 = cmin < W - 16 ? cmin : W - 16;
        gs_nwin *q = g + j;
        const __m512i rm = _mm512_set1_epi64(rmin), cv0 = _mm512_set1_epi64(c0);
        uint16_t m2 = 0, m3 = 0;
        for (int h = 0; h < 2; h++) {
            const __m512i dr = _mm512_sub_epi64(r[h], rm);
            const __m512i pi =
                _mm512_add_epi64(_mm512_slli_epi64(dr, 4), _mm512_sub_epi64(c[h], cv0));
            _mm256_storeu_si256((__m256i *)(void *)(q->pidx + 8 * h), _mm512_cvtepi64_epi32(pi));
            m2 |= (uint16_t)(_mm512_cmpeq_epi64_mask(dr, _mm512_set1_epi64(2)) << (8 * h));
            m3 |= (uint16_t)(_mm512_cmpeq_epi64_mask(dr, _mm512_set1_epi64(3)) << (8 * h));
        }
        q->m2 = m2;
        q->m3 = m3;
        for (int k = 1; k <= 3; k++)
            q->row[k - 1] = rmax - rmin >= k ? k * W : 0;
        q->base = rmin * W + c0;
        ok[j] = 1;
        if (x0) /* the window's rows in the first plane (gs_block_vtaps' x0) */
            gs_nwin_prefetch(x0, q, 0);
        if (x1)
            gs_nwin_prefetch(x1, q, 0);
    }
    return ng;
}

/* groups j < ng with ok[j] of the plane xc into yc[j * GS_NP ...]; the same
 * rows of the plane xn (the channel two on, or NULL) are prefetched, into the
 * L2 only with l2 */
DRS_TARGET_AVX512 static inline __attribute__((always_inline)) void
gs_vnear_avx512(const float *xc, const gs_nwin *g, const uint8_t *ok, int64_t ng, float *yc,
                const float *xn, int l2)
{
    for (int64_t j = 0; j < ng; j++) {
        if (!ok[j])
            continue;
        const gs_nwin *q = g + j;
        const float *b = xc + q->base;
        const __m512i ix = _mm512_loadu_si512((const void *)q->pidx);
        __m512 v = _mm512_permutex2var_ps(_mm512_loadu_ps(b), ix, _mm512_loadu_ps(b + q->row[0]));
        v = _mm512_mask_permutexvar_ps(v, q->m2, ix, _mm512_loadu_ps(b + q->row[1]));
        v = _mm512_mask_permutexvar_ps(v, q->m3, ix, _mm512_loadu_ps(b + q->row[2]));
        if (xn)
            gs_nwin_prefetch(xn, q, l2);
        _mm512_storeu_ps(yc + j * GS_NP, _mm512_add_ps(_mm512_setzero_ps(), v));
    }
}
/* the two prefetch levels as constants, each its own loop */
DRS_TARGET_AVX512 static void gs_vnear_avx512_lv(const float *xc, const gs_nwin *g,
                                                 const uint8_t *ok, int64_t ng, float *yc,
                                                 const float *xn, int l2)
{
    if (l2)
        gs_vnear_avx512(xc, g, ok, ng, yc, xn, 1);
    else
        gs_vnear_avx512(xc, g, ok, ng, yc, xn, 0);
}
#endif

/* gs_nwindows, with AVX-512 where the library has it (the only caller runs on
 * AVX-512 CPUs) */
static int64_t gs_nwindows_vec(const int64_t *off, const int32_t *nt, int64_t np, int64_t W,
                               gs_nwin *g, uint8_t *ok, const float *x0, const float *x1)
{
#if DRS_SIMD_MULTI
    return gs_nwindows_avx512(off, nt, np, W, g, ok, x0, x1);
#else
    (void)x0, (void)x1;
    return gs_nwindows(off, nt, np, W, g, ok);
#endif
}

/* The rows of xn (the channel two on: GS_FORWARD) go to the L1 where the
 * bilinear groups' do (gs_pf_l2).  Into the L2 (as every plane's were
 * before), W8c's forward through the Python package took 2.0-3.3 ms in most
 * of its calls in a process that also ran PyTorch's and OpenCV's, against
 * 1.3-1.5 alone and 1.2-1.3 in drs_bench (Zen 5, 1 thread); into the L1
 * 1.34-1.43 ms there, 1.12-1.14 in drs_bench.  Two
 * channels on instead of the next (with the block's second plane requested
 * with its first): drs_bench 1.17 -> 1.18 ms, with --cold 1.37 -> 1.19, at 2
 * threads 0.72-0.80 -> 0.59-0.68; the package's calls in such a process
 * 1.27-1.38 ms. */
static void gs_vnear(const gs_nwin *g, const uint8_t *ok, int64_t ng, const float *xc, float *yc,
                     const float *xn, int64_t Q)
{
#if DRS_SIMD_MULTI
    gs_vnear_avx512_lv(xc, g, ok, ng, yc, xn, gs_pf_l2(Q * (int64_t)sizeof(float)));
#else
    (void)g, (void)ok, (void)ng, (void)xc, (void)yc, (void)xn, (void)Q;
#endif
}

/* The taps of a group of GS_VP points straight into the group, the points
 * as the lanes, with the operations of the scalar way (gs_taps_2d): denorm,
 * the padding of axis_coord (reflection only within its first band, where
 * reflect_set_grad does not flip), the clip, floor and the weight products
 * of gs_put4.  Only for H, W <= GS_VEC_MAX_L, and only when every point is
 * finite with all 4 taps inside: returns 0 otherwise (nothing usable
 * written; the scalar way then).  (The zeros clamp of u into [-2, L + 1]
 * changes no point that passes.) */
#if DRS_SIMD_MULTI
/* Reflection: the band of reflect_set_grad (its mn and span) for an axis of
 * length L; a coordinate u with |u - mn| < span * 0.9999999 reflects to
 * |u - mn| + mn there (no flip, the same operations).  0: the axis has no
 * band (align_corners with L = 1). */
static int gs_vreflect_band(const drs_gs_plan *p, int64_t L, double *mn, double *span)
{
    const double lo = p->align ? 0.0 : -1.0;
    const double hi = p->align ? 2.0 * (double)(L - 1) : 2.0 * (double)L - 1.0;
    if (lo == hi)
        return 0;
    *mn = lo / 2.0;
    *span = (hi - lo) / 2.0;
    return 1;
}

/* The 8 grid points from pt as lanes: g[0] their x, g[1] their y. */
DRS_TARGET_AVX512 static void gs_vgrid_avx512(const drs_tensor *grid, int64_t pt, __m512d g[2])
{
    if (grid->dtype == DRS_F32) {
        const __m512 s = _mm512_permutexvar_ps(
            _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15),
            _mm512_loadu_ps((const float *)grid->data + pt * 2));
        g[0] = _mm512_cvtps_pd(_mm512_castps512_ps256(s));
        g[1] = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(s), 1)));
    } else {
        const double *gd = (const double *)grid->data + pt * 2;
        const __m512d a = _mm512_loadu_pd(gd), b = _mm512_loadu_pd(gd + 8);
        g[0] = _mm512_permutex2var_pd(a, _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14), b);
        g[1] = _mm512_permutex2var_pd(a, _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15), b);
    }
}

DRS_TARGET_AVX512 static int gs_vtaps_avx512(const drs_gs_plan *p, const drs_tensor *grid,
                                             int64_t pt, gs_vgroup *q)
{
    __m512d g[2]; /* x, y */
    gs_vgrid_avx512(grid, pt, g);
    __m512d t[2], w0[2], x0[2];
    const __m512d one = _mm512_set1_pd(1.0), two = _mm512_set1_pd(2.0), zero = _mm512_setzero_pd();
    for (int a = 0; a < 2; a++) { /* a = 0: x (W), 1: y (H) */
        const int64_t L = p->in[2 - a];
        const __m512d Ld = _mm512_set1_pd((double)L), Lm1 = _mm512_set1_pd((double)(L - 1));
        __m512d u = p->align
                        ? _mm512_mul_pd(_mm512_div_pd(_mm512_add_pd(g[a], one), two), Lm1)
                        : _mm512_div_pd(_mm512_sub_pd(_mm512_mul_pd(_mm512_add_pd(g[a], one), Ld), one),
                                        two);
        if (_mm512_fpclass_pd_mask(u, 0x99)) /* a NaN or an infinity */
            return 0;
        if (p->pad == DRS_GRID_PAD_REFLECTION) {
            double mn, span;
            if (!gs_vreflect_band(p, L, &mn, &span))
                return 0;
            const __m512d r = _mm512_abs_pd(_mm512_sub_pd(u, _mm512_set1_pd(mn)));
            if (_mm512_cmp_pd_mask(r, _mm512_set1_pd(span * 0.9999999), _CMP_LT_OQ) != 0xFF)
                return 0;
            u = _mm512_add_pd(r, _mm512_set1_pd(mn));
        }
        if (p->pad != DRS_GRID_PAD_ZEROS) /* (u >= L - 1 fails the test below either way) */
            u = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(u, zero, _CMP_LE_OQ), u, zero);
        x0[a] = _mm512_roundscale_pd(u, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
        if ((__mmask8)(_mm512_cmp_pd_mask(x0[a], zero, _CMP_GE_OQ) &
                       _mm512_cmp_pd_mask(_mm512_add_pd(x0[a], one), Lm1, _CMP_LE_OQ)) != 0xFF)
            return 0;
        t[a] = _mm512_sub_pd(u, x0[a]);
        w0[a] = _mm512_sub_pd(one, t[a]);
    }
    _mm512_storeu_pd(q->w[0], _mm512_mul_pd(w0[1], w0[0]));
    _mm512_storeu_pd(q->w[1], _mm512_mul_pd(w0[1], t[0]));
    _mm512_storeu_pd(q->w[2], _mm512_mul_pd(t[1], w0[0]));
    _mm512_storeu_pd(q->w[3], _mm512_mul_pd(t[1], t[0]));
    const __m512i W = _mm512_set1_epi64(p->in[2]);
    const __m512i o0 = _mm512_add_epi64(_mm512_mullo_epi64(_mm512_cvttpd_epi64(x0[1]), W),
                                        _mm512_cvttpd_epi64(x0[0]));
    _mm512_storeu_si512((void *)q->o0, o0);
    _mm512_storeu_si512((void *)q->o2, _mm512_add_epi64(o0, W));
    /* the permute window (drs_gs_window_of, here from the rows and columns
     * at hand): every top-left pixel in rows rmin .. rmin + 2 and, with its
     * right neighbour, in 16 columns from c0 (moved left so that the window
     * stays inside the row) */
    drs_gs_window *win = &q->win;
    win->perm = 0;
    const int64_t Wi = p->in[2];
    if (Wi >= 16) {
        const double rmin = _mm512_reduce_min_pd(x0[1]), rmax = _mm512_reduce_max_pd(x0[1]);
        const double cmin = _mm512_reduce_min_pd(x0[0]), cmax = _mm512_reduce_max_pd(x0[0]);
        if (rmax - rmin <= 2.0 && cmax - cmin <= 14.0) {
            const double c0 = cmin < (double)(Wi - 16) ? cmin : (double)(Wi - 16);
            const __m256i l = _mm512_cvttpd_epi32(_mm512_add_pd(
                _mm512_mul_pd(_mm512_sub_pd(x0[1], _mm512_set1_pd(rmin)), _mm512_set1_pd(16.0)),
                _mm512_sub_pd(x0[0], _mm512_set1_pd(c0))));
            _mm512_storeu_si512((void *)win->pidx,
                                _mm512_inserti64x4(_mm512_castsi256_si512(l),
                                                   _mm256_add_epi32(l, _mm256_set1_epi32(1)), 1));
            const __mmask8 m = _mm512_cmp_pd_mask(x0[1], _mm512_set1_pd(rmin + 2.0), _CMP_EQ_OQ);
            win->m2 = (uint16_t)(m | (m << 8));
            win->base = (int64_t)rmin * Wi + (int64_t)c0;
            win->perm = 1 + (int)(rmax - rmin);
        }
    }
    return 1;
}

/* The 8 grid points from pt as lanes: g[h][0] the x of points 4h..4h+3,
 * g[h][1] their y. */
DRS_TARGET_AVX2 static void gs_vgrid_avx2(const drs_tensor *grid, int64_t pt, __m256d g[2][2])
{
    for (int h = 0; h < 2; h++) {
        if (grid->dtype == DRS_F32) {
            const __m256 s = _mm256_permutevar8x32_ps(
                _mm256_loadu_ps((const float *)grid->data + (pt + 4 * h) * 2),
                _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7));
            g[h][0] = _mm256_cvtps_pd(_mm256_castps256_ps128(s));
            g[h][1] = _mm256_cvtps_pd(_mm256_extractf128_ps(s, 1));
        } else {
            const double *gd = (const double *)grid->data + (pt + 4 * h) * 2;
            const __m256d a = _mm256_loadu_pd(gd), b = _mm256_loadu_pd(gd + 4);
            /* {x0, x2, x1, x3} and {y0, y2, y1, y3}, then lanes 0, 2, 1, 3 */
            g[h][0] = _mm256_permute4x64_pd(_mm256_unpacklo_pd(a, b), 0xD8);
            g[h][1] = _mm256_permute4x64_pd(_mm256_unpackhi_pd(a, b), 0xD8);
        }
    }
}

DRS_TARGET_AVX2 static int gs_vtaps_avx2(const drs_gs_plan *p, const drs_tensor *grid,
                                         int64_t pt, gs_vgroup *q)
{
    __m256d g[2][2]; /* [half][x, y] */
    gs_vgrid_avx2(grid, pt, g);
    const __m256d one = _mm256_set1_pd(1.0), two = _mm256_set1_pd(2.0), zero = _mm256_setzero_pd();
    __m256d t[2][2], w0[2][2];
    __m256i xi[2][2];
    for (int h = 0; h < 2; h++)
        for (int a = 0; a < 2; a++) {
            const int64_t L = p->in[2 - a];
            const __m256d Ld = _mm256_set1_pd((double)L), Lm1 = _mm256_set1_pd((double)(L - 1));
            __m256d u = p->align ? _mm256_mul_pd(_mm256_div_pd(_mm256_add_pd(g[h][a], one), two), Lm1)
                                 : _mm256_div_pd(_mm256_sub_pd(_mm256_mul_pd(_mm256_add_pd(g[h][a], one), Ld),
                                                               one),
                                                 two);
            /* finite: u - u == 0 */
            if (_mm256_movemask_pd(_mm256_cmp_pd(_mm256_sub_pd(u, u), zero, _CMP_EQ_OQ)) != 0xF)
                return 0;
            if (p->pad == DRS_GRID_PAD_REFLECTION) {
                double mn, span;
                if (!gs_vreflect_band(p, L, &mn, &span))
                    return 0;
                const __m256d r =
                    _mm256_andnot_pd(_mm256_set1_pd(-0.0), _mm256_sub_pd(u, _mm256_set1_pd(mn)));
                if (_mm256_movemask_pd(_mm256_cmp_pd(r, _mm256_set1_pd(span * 0.9999999),
                                                     _CMP_LT_OQ)) != 0xF)
                    return 0;
                u = _mm256_add_pd(r, _mm256_set1_pd(mn));
            }
            if (p->pad != DRS_GRID_PAD_ZEROS)
                u = _mm256_blendv_pd(u, zero, _mm256_cmp_pd(u, zero, _CMP_LE_OQ));
            const __m256d x0 = _mm256_floor_pd(u);
            const __m256d in = _mm256_and_pd(_mm256_cmp_pd(x0, zero, _CMP_GE_OQ),
                                             _mm256_cmp_pd(_mm256_add_pd(x0, one), Lm1, _CMP_LE_OQ));
            if (_mm256_movemask_pd(in) != 0xF)
                return 0;
            t[h][a] = _mm256_sub_pd(u, x0);
            w0[h][a] = _mm256_sub_pd(one, t[h][a]);
            xi[h][a] = _mm256_cvtepi32_epi64(_mm256_cvttpd_epi32(x0));
        }
    const __m256i W = _mm256_set1_epi64x(p->in[2]);
    for (int h = 0; h < 2; h++) {
        _mm256_storeu_pd(q->w[0] + 4 * h, _mm256_mul_pd(w0[h][1], w0[h][0]));
        _mm256_storeu_pd(q->w[1] + 4 * h, _mm256_mul_pd(w0[h][1], t[h][0]));
        _mm256_storeu_pd(q->w[2] + 4 * h, _mm256_mul_pd(t[h][1], w0[h][0]));
        _mm256_storeu_pd(q->w[3] + 4 * h, _mm256_mul_pd(t[h][1], t[h][0]));
        /* y0 * W in 64 bits (both below 2^31) + x0 */
        const __m256i o0 = _mm256_add_epi64(_mm256_mul_epi32(xi[h][1], W), xi[h][0]);
        _mm256_storeu_si256((__m256i *)(void *)(q->o0 + 4 * h), o0);
        _mm256_storeu_si256((__m256i *)(void *)(q->o2 + 4 * h), _mm256_add_epi64(o0, W));
    }
    q->win.perm = 0; /* (the AVX2 groups always gather) */
    return 1;
}

/* Nearest, zeros or border padding: the taps of DRS_GS_VP points (lanes)
 * with the operations of gs_nearest_vec: the float32 coordinate of
 * GridSample-9 (the double one with p->onnx), round half to even, the
 * padding and the offset.  Writes off and nt (1, or 0 for a point outside
 * with zeros padding; its off 0) and returns 1; returns 0 (nothing written:
 * the scalar way) when a lane is not finite, |u| >= 1e9 or a rounding tie. */
DRS_TARGET_AVX512 static int gs_vnearest_avx512(const drs_gs_plan *p, const drs_tensor *grid,
                                                int64_t pt, int64_t *off, int32_t *nt)
{
    __m512d g[2], r[2];
    gs_vgrid_avx512(grid, pt, g);
    const __m512d zero = _mm512_setzero_pd(), one = _mm512_set1_pd(1.0);
    __mmask8 in = 0xFF;
    for (int a = 0; a < 2; a++) { /* a = 0: x (W), 1: y (H) */
        const int64_t L = p->in[2 - a];
        const __m512d Lm1 = _mm512_set1_pd((double)(L - 1));
        __m512d u;
        if (!p->onnx) { /* axis_coord's float32 operations */
            const __m256 gf = _mm512_cvtpd_ps(g[a]), onef = _mm256_set1_ps(1.0f);
            const __m256 twof = _mm256_set1_ps(2.0f), Lf = _mm256_set1_ps((float)L);
            const __m256 uf =
                p->align ? _mm256_div_ps(_mm256_mul_ps(_mm256_add_ps(gf, onef), _mm256_sub_ps(Lf, onef)),
                                         twof)
                         : _mm256_div_ps(_mm256_sub_ps(_mm256_mul_ps(_mm256_add_ps(gf, onef), Lf), onef),
                                         twof);
            u = _mm512_cvtps_pd(uf); /* (a float NaN or infinity stays one) */
        } else {
            u = p->align ? _mm512_mul_pd(_mm512_div_pd(_mm512_add_pd(g[a], one), _mm512_set1_pd(2.0)),
                                         Lm1)
                         : _mm512_div_pd(_mm512_sub_pd(_mm512_mul_pd(_mm512_add_pd(g[a], one),
                                                                     _mm512_set1_pd((double)L)),
                                                       one),
                                         _mm512_set1_pd(2.0));
        }
        /* |u| < 1e9 (false for a NaN or an infinity) */
        if (_mm512_cmp_pd_mask(_mm512_abs_pd(u), _mm512_set1_pd(1e9), _CMP_LT_OQ) != 0xFF)
            return 0;
        __m512d f = _mm512_roundscale_pd(u, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
        const __m512d d = _mm512_sub_pd(u, f), half = _mm512_set1_pd(0.5);
        if (_mm512_cmp_pd_mask(d, half, _CMP_EQ_OQ)) /* a tie: round_half_even's parity */
            return 0;
        f = _mm512_mask_add_pd(f, _mm512_cmp_pd_mask(d, half, _CMP_GT_OQ), f, one);
        if (p->pad == DRS_GRID_PAD_ZEROS)
            in &= (__mmask8)(_mm512_cmp_pd_mask(f, zero, _CMP_GE_OQ) &
                             _mm512_cmp_pd_mask(f, Lm1, _CMP_LE_OQ));
        else /* border: r < 0 ? 0 : (r > L - 1 ? L - 1 : r) */
            f = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(f, zero, _CMP_LT_OQ),
                                     _mm512_mask_blend_pd(_mm512_cmp_pd_mask(f, Lm1, _CMP_GT_OQ), f, Lm1),
                                     zero);
        r[a] = f;
    }
    const __m512i o = _mm512_add_epi64(
        _mm512_mullo_epi64(_mm512_cvttpd_epi64(r[1]), _mm512_set1_epi64(p->in[2])),
        _mm512_cvttpd_epi64(r[0]));
    _mm512_storeu_si512((void *)off, _mm512_maskz_mov_epi64(in, o));
    _mm256_storeu_si256((__m256i *)(void *)nt, _mm256_maskz_mov_epi32(in, _mm256_set1_epi32(1)));
    return 1;
}

DRS_TARGET_AVX2 static int gs_vnearest_avx2(const drs_gs_plan *p, const drs_tensor *grid,
                                            int64_t pt, int64_t *off, int32_t *nt)
{
    __m256d g[2][2];
    gs_vgrid_avx2(grid, pt, g);
    const __m256d zero = _mm256_setzero_pd(), one = _mm256_set1_pd(1.0), half = _mm256_set1_pd(0.5);
    __m256i ri[2][2];
    __m256d in[2] = {_mm256_cmp_pd(zero, zero, _CMP_EQ_OQ), _mm256_cmp_pd(zero, zero, _CMP_EQ_OQ)};
    for (int h = 0; h < 2; h++)
        for (int a = 0; a < 2; a++) {
            const int64_t L = p->in[2 - a];
            const __m256d Lm1 = _mm256_set1_pd((double)(L - 1));
            __m256d u;
            if (!p->onnx) {
                const __m128 gf = _mm256_cvtpd_ps(g[h][a]), onef = _mm_set1_ps(1.0f);
                const __m128 twof = _mm_set1_ps(2.0f), Lf = _mm_set1_ps((float)L);
                const __m128 uf =
                    p->align ? _mm_div_ps(_mm_mul_ps(_mm_add_ps(gf, onef), _mm_sub_ps(Lf, onef)), twof)
                             : _mm_div_ps(_mm_sub_ps(_mm_mul_ps(_mm_add_ps(gf, onef), Lf), onef), twof);
                u = _mm256_cvtps_pd(uf);
            } else {
                u = p->align
                        ? _mm256_mul_pd(_mm256_div_pd(_mm256_add_pd(g[h][a], one), _mm256_set1_pd(2.0)),
                                        Lm1)
                        : _mm256_div_pd(_mm256_sub_pd(_mm256_mul_pd(_mm256_add_pd(g[h][a], one),
                                                                    _mm256_set1_pd((double)L)),
                                                      one),
                                        _mm256_set1_pd(2.0));
            }
            const __m256d au = _mm256_andnot_pd(_mm256_set1_pd(-0.0), u);
            if (_mm256_movemask_pd(_mm256_cmp_pd(au, _mm256_set1_pd(1e9), _CMP_LT_OQ)) != 0xF)
                return 0;
            __m256d f = _mm256_floor_pd(u);
            const __m256d d = _mm256_sub_pd(u, f);
            if (_mm256_movemask_pd(_mm256_cmp_pd(d, half, _CMP_EQ_OQ)))
                return 0;
            f = _mm256_add_pd(f, _mm256_and_pd(_mm256_cmp_pd(d, half, _CMP_GT_OQ), one));
            if (p->pad == DRS_GRID_PAD_ZEROS)
                in[h] = _mm256_and_pd(in[h], _mm256_and_pd(_mm256_cmp_pd(f, zero, _CMP_GE_OQ),
                                                           _mm256_cmp_pd(f, Lm1, _CMP_LE_OQ)));
            else
                f = _mm256_blendv_pd(_mm256_blendv_pd(f, Lm1, _mm256_cmp_pd(f, Lm1, _CMP_GT_OQ)), zero,
                                     _mm256_cmp_pd(f, zero, _CMP_LT_OQ));
            ri[h][a] = _mm256_cvtepi32_epi64(_mm256_cvttpd_epi32(f)); /* |f| <= 1e9 */
        }
    const __m256i W = _mm256_set1_epi64x(p->in[2]);
    for (int h = 0; h < 2; h++) {
        const __m256i m = _mm256_castpd_si256(in[h]);
        const __m256i o = _mm256_add_epi64(_mm256_mul_epi32(ri[h][1], W), ri[h][0]);
        _mm256_storeu_si256((__m256i *)(void *)(off + 4 * h), _mm256_and_si256(o, m));
        /* the low 32 bits of each 64-bit mask lane, as 0 or 1 */
        const __m128i m32 = _mm256_castsi256_si128(
            _mm256_permutevar8x32_epi32(m, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6)));
        _mm_storeu_si128((__m128i *)(void *)(nt + 4 * h), _mm_and_si128(m32, _mm_set1_epi32(1)));
    }
    return 1;
}
#endif

static int gs_vnearest(int level, const drs_gs_plan *p, const drs_tensor *grid, int64_t pt,
                       int64_t *off, int32_t *nt)
{
#if DRS_SIMD_MULTI
    return level == DRS_SIMD_AVX512 ? gs_vnearest_avx512(p, grid, pt, off, nt)
                                    : gs_vnearest_avx2(p, grid, pt, off, nt);
#else
    (void)level, (void)p, (void)grid, (void)pt, (void)off, (void)nt;
    return 0;
#endif
}

/* The taps of a block's np points (from pt0) for the vector groups: each
 * group straight from the grid (gs_vtaps_*) or, failing that, through the
 * scalar taps into bt and then gs_vgroups; the points after the last whole
 * group through the scalar taps.  The taps of a full group may be left out
 * of bt.  Returns the number of groups.  x0 (or NULL): the block's first
 * plane, whose pixels each group straight from the grid requests as soon as
 * its taps are known: the channel loop reads that plane right after, and no
 * plane before it prefetched them (drs_bench --cold, 1 thread, min of 5
 * alternating rounds: W11's forward 5.31 -> 4.96 ms, W8b's 4.24 -> 4.11, W8a's
 * 4.30 -> 4.21); x1 (or NULL) the second plane, which the channel pairs of
 * gs_vbilin2 read with the first (on a Zen 5 core: W8a 2.69 -> 2.43 ms with
 * --cold, 2.49 -> 2.36 without) */
static int64_t gs_block_vtaps(int level, const drs_gs_plan *p, const drs_tensor *grid,
                              int64_t pt0, int64_t np, const drs_gs_block *bt, gs_vgroup *g,
                              uint8_t *full, const float *x0, const float *x1)
{
    const int direct = p->in[1] <= GS_VEC_MAX_L && p->in[2] <= GS_VEC_MAX_L;
    const int64_t ng = np / GS_VP;
    for (int64_t j = 0; j < ng; j++) {
        int done = 0;
#if DRS_SIMD_MULTI
        if (direct)
            done = level == DRS_SIMD_AVX512 ? gs_vtaps_avx512(p, grid, pt0 + j * GS_VP, g + j)
                                            : gs_vtaps_avx2(p, grid, pt0 + j * GS_VP, g + j);
#else
        (void)level, (void)direct, (void)x0, (void)x1;
#endif
        if (done) {
            full[j] = 1;
#if DRS_SIMD_MULTI
            if (x0) /* the first plane's pixels (into the L1) */
                drs_gs_prefetch_taps(x0, p->in[2], g[j].o0, g[j].o2, &g[j].win, 0);
            if (x1) /* the second one's, which the channel pairs read with it */
                drs_gs_prefetch_taps(x1, p->in[2], g[j].o0, g[j].o2, &g[j].win, 0);
#endif
            continue;
        }
        const drs_gs_block sub = {bt->off + j * GS_VP * 4, bt->w + j * GS_VP * 4,
                                  bt->nt + j * GS_VP, {NULL, NULL, NULL}, NULL};
        drs_gs_block_taps(p, grid, pt0 + j * GS_VP, GS_VP, &sub);
        gs_vgroups(sub.off, sub.w, sub.nt, GS_VP, p->in[2], g + j, full + j);
    }
    if (np > ng * GS_VP) {
        const drs_gs_block tail = {bt->off + ng * GS_VP * 4, bt->w + ng * GS_VP * 4,
                                   bt->nt + ng * GS_VP, {NULL, NULL, NULL}, NULL};
        drs_gs_block_taps(p, grid, pt0 + ng * GS_VP, np - ng * GS_VP, &tail);
    }
    return ng;
}

/* The grid values of the points [pt, pt + np) of an image of P points (np
 * clipped to the image), requested into the L1: GS_FORWARD's next block's,
 * whose taps are computed before anything else (drs_bench, 1 thread, min of 5
 * alternating rounds on a Zen 5 core: W8c's forward 1.34 -> 1.28 ms, with
 * --cold 1.43 -> 1.38; W8a, W8b unchanged) */
static void gs_prefetch_points(const drs_tensor *grid, int64_t pt, int64_t np, int64_t P)
{
    const int64_t e = pt % P + np < P ? np : P - pt % P;
    const size_t vs = 2 * drs_dtype_size(grid->dtype); /* (2-D: two values a point) */
    drs__prefetch_span((const char *)grid->data + (size_t)pt * vs, e, vs);
}

/* Whether GS_FORWARD (float32) streams its output out (drs__stream_footprint):
 * when the call's data, grid and output together reach DRS_STREAM_MIN_BYTES,
 * an output written with ordinary stores is read for ownership and then
 * evicts the data planes that the next blocks gather from.  Not when a
 * block's points of a channel span fewer than 4 lines (3-D bicubic: 16
 * points), where the head and tail of each put are ordinary stores anyway
 * (unless DRS_STREAM=1 forces it, for the tests). */
static int gs_stream_output(const drs_gs_plan *p, const drs_tensor *grid, int64_t item)
{
    if (drs__stream_mode() == 0 && DRS_GS_BLOCK_ENTRIES / p->max_taps * item < 256)
        return 0;
    const int64_t ny = p->N * p->C * p->P * item, nx = p->N * p->C * p->Q * item,
                  ng = p->N * p->P * p->S * (int64_t)drs_dtype_size(grid->dtype);
    return drs__stream_footprint(ny, nx + ng + ny); /* (byte counts of real buffers) */
}

/* Points are processed in blocks (DRS_GS_BLOCK_ENTRIES taps per block): the
 * taps of a block are computed once, then each channel plane is read and
 * written for the whole block (plane-local accesses).  A point with all its
 * taps (the common case) takes a loop of a constant tap count; nearest (one
 * tap of weight 1) adds the pixel to 0.0 directly.  With VEC (f32) and 2-D
 * bilinear on an AVX2 or AVX-512 CPU, the groups of 8 points with all their
 * taps go through gs_vbilin first and the loop skips them.  Parallel over
 * blocks; each output element is written by the one iteration owning its
 * point, whichever thread runs it (the same bits).  The blocks are handed out
 * two at a time (schedule(dynamic, 2)), not as one slab per thread: a thread
 * that starts late, as a virtual CPU that was idle can by milliseconds, leaves
 * its blocks to the others instead of making the call wait for its slab
 * (drs_bench --cold at 2 threads, median of 8 alternating rounds: W11's forward
 * 4.10 -> 3.46 ms, W8a's 3.11 -> 2.89, W8c's 2.00 -> 1.85, W8d's 11.1 -> 9.6;
 * at 1 thread the same). */
#define GS_FORWARD(T, NAME, STORE, PAIR, VEC)                                                  \
    static void NAME(const drs_gs_plan *p, const T *x, const drs_tensor *grid, T *y)           \
    {                                                                                          \
        const int64_t C = p->C, P = p->P, Q = p->Q;                                            \
        const int mt = p->max_taps, bilin2d = p->S == 2 && mt == 4;                            \
        const int vlev = (VEC) && bilin2d ? drs_gs_vlevel() : 0; /* vector groups */        \
        const int64_t bp = DRS_GS_BLOCK_ENTRIES / mt; /* points per block */                   \
        const int64_t nb = (P + bp - 1) / bp, NB = p->N * nb;                                  \
        const int strm = (VEC) && gs_stream_output(p, grid, (int64_t)sizeof(T));               \
        _Pragma("omp parallel num_threads((p->N * P * C > PAR_MIN_WORK) ? drs__nthreads() : 1)") \
        {                                                                                      \
        drs_stream ws; /* strm: each block's channel rows go out through ws */                \
        drs__stream_begin(&ws);                                                                \
        _Pragma("omp for schedule(dynamic, 2) nowait")                                         \
        for (int64_t blk = 0; blk < NB; blk++) {                                               \
            const int64_t n = blk / nb, q0 = (blk % nb) * bp;                                  \
            const int64_t q1 = q0 + bp < P ? q0 + bp : P;                                      \
            if ((VEC) && blk + 1 < NB) /* the next block's grid points, into the L1 */        \
                gs_prefetch_points(grid, (blk + 1) / nb * P + (blk + 1) % nb * bp, bp, P);     \
            int64_t off[DRS_GS_BLOCK_ENTRIES];                                                 \
            double w[DRS_GS_BLOCK_ENTRIES];                                                    \
            int32_t nt[DRS_GS_BLOCK_ENTRIES];                                                  \
            drs_gs_v2d wt[DRS_GS_BLOCK_ENTRIES / 2]; /* bilinear: pairs of points */           \
            const drs_gs_block bt = {off, w, nt, {NULL, NULL, NULL}, NULL};                    \
            /* strm: a channel's row, formed where drs__place() puts it in sslot */          \
            _Alignas(64) T sslot[2][(VEC) ? DRS_GS_BLOCK_ENTRIES + 4096 / sizeof(T) : 1];      \
            gs_vgroup vg[GS_MAX_VGROUPS];                                                      \
            uint8_t vfull[GS_MAX_VGROUPS] = {0};                                               \
            int64_t nvg = 0;                                                                   \
            if (vlev) /* (the taps of a full group may be left out of off, w, nt) */           \
                nvg = gs_block_vtaps(vlev, p, grid, n * P + q0, q1 - q0, &bt, vg, vfull,       \
                                     (const float *)(const void *)(x + n * C * Q),             \
                                     C > 1 && !gs_pf_l2(Q * (int64_t)sizeof(float))           \
                                         ? (const float *)(const void *)(x + (n * C + 1) * Q)  \
                                         : NULL);                                              \
            else                                                                               \
                drs_gs_block_taps(p, grid, n * P + q0, q1 - q0, &bt);                          \
            for (int64_t b = 0; b + 1 < q1 - q0 && bilin2d; b += 2)                            \
                if (!drs_gs_in_full_group(b, nvg, vfull)) /* (their taps may be left out) */   \
                    for (int k = 0; k < 4; k++)                                                \
                        wt[b * 2 + k] = (drs_gs_v2d){w[b * 4 + k], w[b * 4 + 4 + k]};          \
            /* nearest f32, AVX-512: the windows of the groups of GS_NP points */       \
            gs_nwin nw[GS_MAX_NGROUPS];                                                        \
            uint8_t nok[GS_MAX_NGROUPS] = {0};                                                 \
            int64_t nng = 0;                                                                   \
            if ((VEC) && mt == 1 && drs_gs_vlevel() == DRS_SIMD_AVX512)                        \
                nng = gs_nwindows_vec(off, nt, q1 - q0, p->in[2], nw, nok, /* rows W apart */ \
                                      (const float *)(const void *)(x + n * C * Q),            \
                                      C > 1 ? (const float *)(const void *)(x + (n * C + 1) * Q) \
                                            : NULL);                                           \
            /* the runs [rb[r], re[r]) of points outside the full groups: the scalar     \
             * loop's */                                                                 \
            int64_t rb[GS_MAX_NGROUPS + 1], re[GS_MAX_NGROUPS + 1];                            \
            const int64_t nr = mt == 1 ? drs_gs_runs(q1 - q0, nng, GS_NP, nok, rb, re)         \
                                       : drs_gs_runs(q1 - q0, nvg, GS_VP, vfull, rb, re);      \
            int vdone = 0; /* channel c's vector groups were formed with channel c - 1's */   \
            for (int64_t c = 0; c < C; c++) {                                                  \
                const T *xc = x + (n * C + c) * Q;                                             \
                T *const yo = y + (n * C + c) * P + q0;                                        \
                T *const sbuf =                                                                \
                    strm ? (T *)drs__place(sslot[c & 1], yo, DRS_PLACE_DELTA) : NULL;          \
                T *const yc = strm ? sbuf : yo;                                                \
                if (mt == 1) {                                                                 \
                    if (nng) /* (VEC: T is float) */                                           \
                        gs_vnear(nw, nok, nng, (const float *)(const void *)xc,                \
                                 (float *)(void *)yc,                                          \
                                 c + 2 < C ? (const float *)(const void *)(xc + 2 * Q) : NULL, \
                                 Q);                                                           \
                    for (int64_t r = 0; r < nr; r++)                                           \
                    for (int64_t b = rb[r]; b < re[r]; b++) {                                  \
                        double acc = 0.0;                                                      \
                        if (nt[b] && c + 1 < C)                                                \
                            __builtin_prefetch(xc + Q + off[b]);                               \
                        if (nt[b])                                                             \
                            acc += (double)xc[off[b]]; /* weight 1.0 */                        \
                        yc[b] = STORE;                                                         \
                    }                                                                          \
                    if (strm)                                                                  \
                        drs__stream_put(&ws, yo, sbuf, (size_t)(q1 - q0) * sizeof(T));         \
                    continue;                                                                  \
                }                                                                              \
                if (nvg && vdone) /* (VEC: T is float) */                                      \
                    vdone = 0;                                                                 \
                else if (nvg) {                                                                \
                    /* channels c and c + 1 at once, c + 1's row where its turn puts it */     \
                    T *const yc2 = c + 1 == C ? NULL                                           \
                                   : strm     ? (T *)drs__place(sslot[(c + 1) & 1], yo + P,    \
                                                                DRS_PLACE_DELTA)               \
                                              : yo + P;                                        \
                    const float *const xf = (const float *)(const void *)xc;                   \
                    vdone = yc2 && gs_vbilin2(vlev, xf, vg, vfull, nvg, (float *)(void *)yc,   \
                                              (float *)(void *)yc2,                            \
                                              c + 2 < C ? xf + 2 * Q : NULL,                   \
                                              c + 3 < C ? xf + 3 * Q : NULL, p->in[2], Q);     \
                    if (!vdone)                                                                \
                        gs_vbilin(vlev, xf, vg, vfull, nvg, (float *)(void *)yc,               \
                                  c + 1 < C ? xf + Q : NULL, p->in[2], Q);                     \
                }                                                                              \
                for (int64_t r = 0; r < nr; r++)                                               \
                for (int64_t b = rb[r]; b < re[r]; b++) {                                      \
                    const int64_t *o = off + b * mt;                                           \
                    const double *wb = w + b * mt;                                             \
                    if (bilin2d && !(b & 1) && b + 1 < q1 - q0 && nt[b] == 4 && nt[b + 1] == 4) { \
                        drs_gs_v2d a2;                                                         \
                        if (c + 1 < C) { /* the next channel's rows, from memory */            \
                            __builtin_prefetch(xc + Q + o[0]);                                 \
                            __builtin_prefetch(xc + Q + o[2]);                                 \
                        }                                                                      \
                        GS_BILIN4X2(PAIR, a2, wt + b * 2, xc, o, o + 4);                       \
                        double acc = a2[0];                                                    \
                        yc[b] = STORE;                                                         \
                        acc = a2[1];                                                           \
                        yc[++b] = STORE;                                                       \
                        continue;                                                              \
                    }                                                                          \
                    double acc = 0.0;                                                          \
                    if (nt[b] == 16 && mt == 16)                                               \
                        GS_DOT(16, acc, wb, xc, o);                                            \
                    else                                                                       \
                        GS_DOT(nt[b], acc, wb, xc, o);                                         \
                    yc[b] = STORE;                                                             \
                }                                                                              \
                if (strm)                                                                      \
                    drs__stream_put(&ws, yo, sbuf, (size_t)(q1 - q0) * sizeof(T));             \
            }                                                                                  \
        }                                                                                      \
        if (strm)                                                                              \
            drs__stream_end(&ws); /* this thread's streaming stores, before the barrier */     \
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
GS_FORWARD(float, gs_forward_f32, GS_STORE_FLOAT(float, acc), gs_pair_f32, 1)
GS_FORWARD(double, gs_forward_f64, GS_STORE_FLOAT(double, acc), gs_pair_f64, 0)
/* integer data: read directly, accumulated in double, rounded once (no copy) */
GS_FORWARD(uint8_t, gs_forward_u8, GS_STORE_INT(uint8_t, acc, 0.0, 255.0), GS_PAIR_INT, 0)
GS_FORWARD(int8_t, gs_forward_i8, GS_STORE_INT(int8_t, acc, -128.0, 127.0), GS_PAIR_INT, 0)
GS_FORWARD(int32_t, gs_forward_i32, GS_STORE_INT(int32_t, acc, -2147483648.0, 2147483647.0),
           GS_PAIR_INT, 0)
/* i64: the largest double below 2^63 keeps the cast defined */
GS_FORWARD(int64_t, gs_forward_i64,
           GS_STORE_INT(int64_t, acc, -9223372036854775808.0, 9223372036854774784.0),
           GS_PAIR_INT, 0)

/* ------------------------------------------------- 2-D f32, tiled */
/* The 2-D bicubic f32 forward over square tiles of output points
 * (DRS_GS_BLOCK_ENTRIES taps per tile) and groups of GS_TCG channels.  The
 * points of a tile read their taps from a copy of the tile's input box (the
 * rows and columns its taps span), in double with the group's channels
 * interleaved; a missing tap (zeros padding) reads a zero pixel after the
 * box.  The lanes of one vector are the channels, so a tap is one load, one
 * broadcast weight, one multiply and one add for GS_TCG channels.  Lane c
 * computes acc = 0.0 + w[0] * x[o[0]] + ... in tap order, the operations of
 * GS_DOT: the same bits as the row kernels.  A tile whose box is larger
 * than GS_TILE_PIX takes GS_DOT per point and channel.  On an AVX-512 CPU
 * the tiles go in pairs side by side (8 x 16 points), and a pair (else a
 * tile) whose points all have their 16 taps inside the plane takes a fast
 * way (gs_tile_boxes_f32): the boxes and weights of 8 points at a time in
 * vectors, no per-tap lists, and one box copy and one call of the copy
 * and the dot per channel group for the pair.  drs_bench W8d (bicubic 8 x 32
 * x 128^2), 1 thread, min of 5 alternating rounds: 14.7 -> 10.1 ms (single
 * tiles the fast way: 11.9; pairs: 10.9, in a program calling it alone). */
#define GS_TCG 8           /* channels per group: the lanes */
#define GS_TILE_PIX 512    /* the largest input box copied (pixels) */
#define GS_TSIDE 8         /* tile side: GS_TSIDE^2 points of 16 taps */
_Static_assert(GS_TCG == 8 && GS_TSIDE == 8, "gs_tile_dot_rows_f32 transposes 8 x 8");
typedef double gs_vtd __attribute__((vector_size(8 * GS_TCG)));

/* The box [r0, r0 + th) x [c0, c0 + tw) of nc (<= GS_TCG) planes into buf,
 * pixel-major with the channels interleaved (lanes >= nc repeat the last). */
typedef float gs_v4f __attribute__((vector_size(16)));
DRS_SIMD_FN(gs_tile_copy_f32,
            (const float *x, int64_t Q, int64_t W, int64_t r0, int64_t c0, int th, int tw,
             int nc, int next, double *buf),
            (x, Q, W, r0, c0, th, tw, nc, next, buf), {
    const float *xs[GS_TCG];
    for (int i = 0; i < GS_TCG; i++)
        xs[i] = x + (i < nc ? i : nc - 1) * Q + r0 * W + c0;
    for (int r = 0; r < th; r++) {
        double *b = buf + (int64_t)r * tw * GS_TCG;
        const int64_t ro = (int64_t)r * W;
        for (int i = 0; i < GS_TCG && next; i++) /* the next group's box, from memory */
            for (int c = 0; c < tw; c += 16)
                __builtin_prefetch(xs[i] + GS_TCG * Q + ro + c, 0, 2);
        int c = 0;
        for (; c + 8 <= tw; c += 8) { /* 8 pixels of the 8 planes: one 8 x 8 transpose */
            drs_gs_v8d a[8];
            for (int i = 0; i < GS_TCG; i++) {
                drs_gs_v8f f;
                memcpy(&f, xs[i] + ro + c, sizeof f);
                a[i] = __builtin_convertvector(f, drs_gs_v8d);
            }
            drs_gs_transpose8(a); /* a[k]: pixel c + k's 8 planes */
            memcpy(b + (int64_t)c * GS_TCG, a, sizeof a);
        }
        for (; c + 4 <= tw; c += 4) /* 4 pixels of 4 planes at a time: 4x4 transposes */
            for (int h = 0; h < GS_TCG; h += 4) {
                gs_v4f v0, v1, v2, v3;
                memcpy(&v0, xs[h] + ro + c, sizeof v0);
                memcpy(&v1, xs[h + 1] + ro + c, sizeof v1);
                memcpy(&v2, xs[h + 2] + ro + c, sizeof v2);
                memcpy(&v3, xs[h + 3] + ro + c, sizeof v3);
                const gs_v4f t0 = __builtin_shufflevector(v0, v1, 0, 4, 1, 5);
                const gs_v4f t1 = __builtin_shufflevector(v0, v1, 2, 6, 3, 7);
                const gs_v4f t2 = __builtin_shufflevector(v2, v3, 0, 4, 1, 5);
                const gs_v4f t3 = __builtin_shufflevector(v2, v3, 2, 6, 3, 7);
                gs_v4f t[4] = {__builtin_shufflevector(t0, t2, 0, 1, 4, 5),
                               __builtin_shufflevector(t0, t2, 2, 3, 6, 7),
                               __builtin_shufflevector(t1, t3, 0, 1, 4, 5),
                               __builtin_shufflevector(t1, t3, 2, 3, 6, 7)};
                float f[16];
                memcpy(f, t, sizeof f);
                for (int k = 0; k < 4; k++) /* (loops: GCC 12 splits __builtin_convertvector) */
                    for (int i = 0; i < 4; i++)
                        b[(c + k) * GS_TCG + h + i] = (double)f[k * 4 + i];
            }
        for (; c < tw; c++)
            for (int i = 0; i < GS_TCG; i++)
                b[c * GS_TCG + i] = (double)xs[i][ro + c];
    }
    for (int i = 0; i < GS_TCG; i++) /* the zero pixel after the box: missing taps */
        buf[(int64_t)th * tw * GS_TCG + i] = 0.0;
})

/* The points of a tile: point b's MT taps at to[b * MT] (pixels of the
 * box), weights at w[b * MT]; channel i's output to y[i * ys + pq[b]]. */
#define GS_TILE_DOT(MT)                                                                        \
    for (int64_t b = 0; b < np; b++) {                                                         \
        const int32_t *o = to + b * (MT);                                                      \
        const double *wb = w + b * (MT);                                                       \
        gs_vtd acc = {0.0};                                                                    \
        for (int k = 0; k < (MT); k++) {                                                       \
            gs_vtd xv;                                                                         \
            memcpy(&xv, buf + (int64_t)o[k] * GS_TCG, sizeof xv);                              \
            acc += wb[k] * xv;                                                                 \
        }                                                                                      \
        for (int i = 0; i < GS_TCG; i++)                                                       \
            y[i * ys + pq[b]] = (float)acc[i];                                                 \
    }
DRS_SIMD_FN(gs_tile_dot_f32,
            (const double *buf, const int32_t *to, const double *w, const int32_t *pq,
             int64_t np, int mt, float *y, int64_t ys),
            (buf, to, w, pq, np, mt, y, ys), {
                if (mt == 16)
                    GS_TILE_DOT(16)
                else if (mt == 4)
                    GS_TILE_DOT(4)
                else if (mt == 1)
                    GS_TILE_DOT(1)
                else
                    GS_TILE_DOT(mt)
            })

/* Row r of a tile (8 points, 16 taps each; j the point, k the tap, PIX and
 * WGT its box pixel and weight): the 8 points' sums side by side, tap by tap
 * (8 independent chains of additions in flight instead of one), each the
 * sum of GS_TILE_DOT in its order; transposed to 8 points per channel and
 * stored as floats to y + i * P + r * Wo (channels i < nc) */
#define GS_TILE_ROW8(PIX, WGT)                                                                 \
    do {                                                                                       \
        drs_gs_v8d acc[GS_TSIDE];                                                              \
        for (int j = 0; j < GS_TSIDE; j++)                                                     \
            acc[j] = (drs_gs_v8d){0.0};                                                        \
        for (int k = 0; k < 16; k++)                                                           \
            for (int j = 0; j < GS_TSIDE; j++) {                                               \
                gs_vtd xv;                                                                     \
                memcpy(&xv, buf + (int64_t)(PIX) * GS_TCG, sizeof xv);                         \
                acc[j] += (WGT) * xv;                                                          \
            }                                                                                  \
        drs_gs_transpose8(acc); /* acc[i]: channel i's 8 points */                            \
        for (int i = 0; i < nc; i++) {                                                         \
            const drs_gs_v8f f = __builtin_convertvector(acc[i], drs_gs_v8f);                  \
            memcpy(y + i * P + r * Wo, &f, sizeof f);                                          \
        }                                                                                      \
    } while (0)
/* A tile of whole rows of GS_TSIDE (8) points, 16 taps each (th rows): row
 * r's 8 sums of GS_TILE_DOT, transposed to 8 points per channel, go straight
 * to the output rows y + i * P + r * Wo (channels i < nc), the same
 * conversion (float)acc of the same sums. */
DRS_SIMD_FN(gs_tile_dot_rows_f32,
            (const double *buf, const int32_t *to, const double *w, int th, int nc, float *y,
             int64_t P, int64_t Wo),
            (buf, to, w, th, nc, y, P, Wo), {
                for (int r = 0; r < th; r++) {
                    const int32_t *o = to + r * GS_TSIDE * 16;
                    const double *wb = w + r * GS_TSIDE * 16;
                    GS_TILE_ROW8(o[j * 16 + k], wb[j * 16 + k]);
                }
            })

/* A box's columns [*cmin, *cmin + *bw) widened to whole groups of 4 for the
 * copy's transposes, moved left where they would pass the row's end (W); as
 * they are when the row is narrower than that (the copy's plain loop) */
static void gs_box_cols4(int64_t *cmin, int64_t *bw, int64_t W)
{
    if (*bw % 4 == 0)
        return;
    const int64_t bw4 = *bw + 4 - *bw % 4, c4 = *cmin + bw4 > W ? W - bw4 : *cmin;
    if (c4 >= 0) {
        *cmin = c4;
        *bw = bw4;
    }
}

/* The plane row of offset o (0 <= o < 2^53, W >= 1). */
static int64_t gs_row_of(int64_t o, int64_t W)
{
    int64_t r = (int64_t)((double)o / (double)W);
    if (r * W > o)
        r--;
    else if ((r + 1) * W <= o)
        r++;
    return r;
}

/* Whether the tiled forward applies: 2-D bicubic, and a plane's offsets and
 * a tile's point indices fit int32.  (Bilinear and nearest read about as
 * many pixels as they have taps, and the row kernels of GS_FORWARD do them
 * faster than a copy would.) */
static int gs_tiled_ok(const drs_gs_plan *p)
{
    return p->S == 2 && p->Q <= INT32_MAX && p->P <= INT32_MAX && p->C >= 1 &&
           p->max_taps == 16;
}

/* A 2-D bicubic point whose 16 taps are a whole 4x4 box inside the plane,
 * 1 <= u < L - 2 on both axes (no padding, clamp or reflection applies):
 * the box's top left pixel (r0, c0) and the weights in the order and with
 * the operations of gs_taps_2d (axis_coord's denorm, floor, the cubic
 * weights, wy[j] * wx[k]); 0 for any other point (the general way). */
GS_INLINE int gs_cubic_box(const drs_gs_plan *p, double gx, double gy, int64_t *r0, int64_t *c0,
                           double *w)
{
    double wa[2][4], x0[2];
    for (int a = 0; a < 2; a++) { /* a = 0: y (H), 1: x (W) */
        const int64_t L = p->in[1 + a];
        double dudg;
        const double u = denorm(a ? gx : gy, L, p->align, &dudg);
        if (!(u >= 1.0 && u < (double)L - 2.0)) /* (false for a NaN) */
            return 0;
        x0[a] = floor(u);
        drs_cubic_weights(-0.75, u - x0[a], wa[a]);
    }
    *r0 = (int64_t)x0[0] - 1;
    *c0 = (int64_t)x0[1] - 1;
    for (int j = 0; j < 4; j++)
        for (int k = 0; k < 4; k++)
            w[j * 4 + k] = wa[0][j] * wa[1][k];
    return 1;
}

/* The tile dot of a tile of whole boxes (gs_forward_tiled_f32's fast way):
 * point b's tap k reads buf pixel t0[b] + ko[k], with weight wt[(b / 8) *
 * 128 + k * 8 + b % 8]; 8 rows of 8 points, channel i's outputs to y + i *
 * P + r * Wo (i < nc).  The operations of gs_tile_dot_rows_f32, its order. */
DRS_SIMD_FN(gs_tile_dot_boxes_f32,
            (const double *buf, const int32_t *t0, const int32_t *ko, const double *wt, int nc,
             float *y, int64_t P, int64_t Wo),
            (buf, t0, ko, wt, nc, y, P, Wo), {
                for (int r = 0; r < GS_TSIDE; r++) {
                    const int32_t *tr = t0 + r * GS_TSIDE;
                    const double *wr = wt + r * 16 * GS_TSIDE;
                    GS_TILE_ROW8(tr[j] + ko[k], wr[k * GS_TSIDE + j]);
                }
            })

#if DRS_SIMD_MULTI
/* gs_cubic_box of the 8 points from pt, as lanes (the same operations): 1
 * when all 8 are whole boxes, with their top-left rows and columns in r0[],
 * c0[] and tap k's weights in wt[k * 8 ...]; else 0 */
DRS_TARGET_AVX512 static int gs_cubic_boxes_avx512(const drs_gs_plan *p, const drs_tensor *grid,
                                                   int64_t pt, int64_t *r0, int64_t *c0,
                                                   double *wt)
{
    __m512d g[2]; /* x, y */
    gs_vgrid_avx512(grid, pt, g);
    const __m512d one = _mm512_set1_pd(1.0), two = _mm512_set1_pd(2.0);
    const __m512d A = _mm512_set1_pd(-0.75), A5 = _mm512_set1_pd(5.0 * -0.75),
                  A8 = _mm512_set1_pd(8.0 * -0.75), A4 = _mm512_set1_pd(4.0 * -0.75),
                  A2 = _mm512_set1_pd(-0.75 + 2.0), A3 = _mm512_set1_pd(-0.75 + 3.0);
    __m512d wa[2][4], x0[2];
    for (int a = 0; a < 2; a++) { /* a = 0: y (H), 1: x (W) */
        const int64_t L = p->in[1 + a];
        const __m512d ga = a ? g[0] : g[1];
        const __m512d u =
            p->align ? _mm512_mul_pd(_mm512_div_pd(_mm512_add_pd(ga, one), two),
                                     _mm512_set1_pd((double)(L - 1)))
                     : _mm512_div_pd(_mm512_sub_pd(_mm512_mul_pd(_mm512_add_pd(ga, one),
                                                                 _mm512_set1_pd((double)L)),
                                                   one),
                                     two);
        if ((__mmask8)(_mm512_cmp_pd_mask(u, one, _CMP_GE_OQ) &
                       _mm512_cmp_pd_mask(u, _mm512_set1_pd((double)L - 2.0), _CMP_LT_OQ)) !=
            0xFF)
            return 0;
        x0[a] = _mm512_roundscale_pd(u, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
        const __m512d t = _mm512_sub_pd(u, x0[a]); /* drs_cubic_weights(-0.75, t) */
        const __m512d r1 = _mm512_add_pd(t, one), q = _mm512_sub_pd(one, t),
                      q1 = _mm512_add_pd(q, one);
        wa[a][0] = _mm512_sub_pd(
            _mm512_mul_pd(_mm512_add_pd(_mm512_mul_pd(_mm512_sub_pd(_mm512_mul_pd(A, r1), A5), r1),
                                        A8),
                          r1),
            A4);
        wa[a][1] = _mm512_add_pd(
            _mm512_mul_pd(_mm512_mul_pd(_mm512_sub_pd(_mm512_mul_pd(A2, t), A3), t), t), one);
        wa[a][2] = _mm512_add_pd(
            _mm512_mul_pd(_mm512_mul_pd(_mm512_sub_pd(_mm512_mul_pd(A2, q), A3), q), q), one);
        wa[a][3] = _mm512_sub_pd(
            _mm512_mul_pd(_mm512_add_pd(_mm512_mul_pd(_mm512_sub_pd(_mm512_mul_pd(A, q1), A5), q1),
                                        A8),
                          q1),
            A4);
    }
    const __m512i m1 = _mm512_set1_epi64(1);
    _mm512_storeu_si512((void *)r0, _mm512_sub_epi64(_mm512_cvttpd_epi64(x0[0]), m1));
    _mm512_storeu_si512((void *)c0, _mm512_sub_epi64(_mm512_cvttpd_epi64(x0[1]), m1));
    for (int j = 0; j < 4; j++)
        for (int k = 0; k < 4; k++)
            _mm512_storeu_pd(wt + (j * 4 + k) * 8, _mm512_mul_pd(wa[0][j], wa[1][k]));
    return 1;
}
#endif

/* The fast way of an 8 x 8 tile whose 64 points are all whole boxes (AVX-512
 * CPUs): the boxes and weights 8 points at a time (gs_cubic_boxes_avx512),
 * no tap lists, and gs_tile_dot_boxes_f32.  Returns 0 (nothing written) for
 * any other tile, or a box larger than GS_TILE_PIX.  Always inlined: its 48
 * KiB of arrays then share the stack of the tile loop's own (at -O2, left out
 * of line, a thread's stack took 142 KiB instead of 87). */
GS_INLINE int gs_tile_boxes_f32(const drs_gs_plan *p, const float *x, const drs_tensor *grid,
                                float *y, int64_t n, int64_t i0, int64_t j0, int nsub)
{
    const int64_t C = p->C, P = p->P, Q = p->Q, W = p->in[2], Wo = p->out[2];
    const int T = GS_TSIDE, NP = T * T; /* NP points a tile, tile s from column j0 + s * T */
    int64_t r0[2 * GS_TSIDE * GS_TSIDE], c0[2 * GS_TSIDE * GS_TSIDE];
    double wt[2 * GS_TSIDE * 16 * GS_TSIDE];
    for (int s = 0; s < nsub; s++)
        for (int i = 0; i < T; i++) {
#if DRS_SIMD_MULTI
            if (!gs_cubic_boxes_avx512(p, grid, n * P + (i0 + i) * Wo + j0 + s * T,
                                       r0 + s * NP + i * T, c0 + s * NP + i * T,
                                       wt + (s * T + i) * 16 * T))
#else
            (void)grid;
#endif
                return 0;
        }
    int64_t rmin = INT64_MAX, rmax = -1, cmin = INT64_MAX, cmax = -1;
    for (int b = 0; b < nsub * NP; b++) {
        rmin = r0[b] < rmin ? r0[b] : rmin;
        rmax = r0[b] + 3 > rmax ? r0[b] + 3 : rmax;
        cmin = c0[b] < cmin ? c0[b] : cmin;
        cmax = c0[b] + 3 > cmax ? c0[b] + 3 : cmax;
    }
    const int64_t bh = rmax - rmin + 1;
    int64_t bw = cmax - cmin + 1;
    gs_box_cols4(&cmin, &bw, W);
    if (bh * bw > GS_TILE_PIX - 1)
        return 0;
    int32_t t0[2 * GS_TSIDE * GS_TSIDE], ko[16];
    for (int b = 0; b < nsub * NP; b++)
        t0[b] = (int32_t)((r0[b] - rmin) * bw + (c0[b] - cmin));
    for (int k = 0; k < 16; k++)
        ko[k] = (int32_t)(k / 4 * bw + k % 4);
    double buf[GS_TILE_PIX * GS_TCG];
    for (int64_t cg = 0; cg < C; cg += GS_TCG) {
        const int nc = C - cg < GS_TCG ? (int)(C - cg) : GS_TCG;
        gs_tile_copy_f32(x + (n * C + cg) * Q, Q, W, rmin, cmin, (int)bh, (int)bw, nc,
                         cg + 2 * GS_TCG <= C, buf);
        for (int s = 0; s < nsub; s++)
            gs_tile_dot_boxes_f32(buf, t0 + s * NP, ko, wt + s * NP * 16, nc,
                                  y + (n * C + cg) * P + i0 * Wo + j0 + s * T, P, Wo);
    }
    return 1;
}

static void gs_forward_tiled_f32(const drs_gs_plan *p, const float *x, const drs_tensor *grid,
                                 float *y)
{
    const int64_t C = p->C, P = p->P, Q = p->Q, W = p->in[2];
    const int64_t Ho = p->out[1], Wo = p->out[2];
    const int mt = 16, R = 4, T = GS_TSIDE; /* bicubic: rows of 4 taps */
    /* pairs of tiles side by side (8 x 16 points): one box for both when all
     * their points are whole boxes, else each tile its own way */
    const int64_t nty = (Ho + T - 1) / T, ntx = (Wo + 2 * T - 1) / (2 * T), NB = p->N * nty * ntx;
    const int fast = drs_gs_vlevel() == DRS_SIMD_AVX512 && p->in[1] <= GS_VEC_MAX_L &&
                     p->in[2] <= GS_VEC_MAX_L; /* (the boxes' rows and columns as int64 lanes) */
    /* (pairs two at a time, as GS_FORWARD's blocks) */
    _Pragma("omp parallel for schedule(dynamic, 2) num_threads((p->N * P * C > PAR_MIN_WORK) ? drs__nthreads() : 1)")
    for (int64_t blk = 0; blk < NB; blk++) {
        const int64_t n = blk / (nty * ntx), ty = blk % (nty * ntx) / ntx, tx = blk % ntx;
        const int64_t i0 = ty * T, j00 = tx * 2 * T;
        const int th = (int)(Ho - i0 < T ? Ho - i0 : T);
        if (th == T && j00 + 2 * T <= Wo && fast && gs_tile_boxes_f32(p, x, grid, y, n, i0, j00, 2))
            continue;
        for (int64_t j0 = j00; j0 < j00 + 2 * T && j0 < Wo; j0 += T) {
            const int tw = (int)(Wo - j0 < T ? Wo - j0 : T);
            if (th == T && tw == T && fast && gs_tile_boxes_f32(p, x, grid, y, n, i0, j0, 1))
                continue;
            int64_t off[DRS_GS_BLOCK_ENTRIES];
            double w[DRS_GS_BLOCK_ENTRIES], wg[DRS_GS_BLOCK_ENTRIES];
            int32_t nt[DRS_GS_BLOCK_ENTRIES], to[DRS_GS_BLOCK_ENTRIES];
            int32_t pq[GS_TSIDE * GS_TSIDE], bi[GS_TSIDE * GS_TSIDE]; /* output, tile slot */
            int64_t rs[2 * DRS_GS_BLOCK_ENTRIES]; /* each tap's row and column (not of boxes) */
            double buf[GS_TILE_PIX * GS_TCG];
            float ybuf[GS_TCG * GS_TSIDE * GS_TSIDE]; /* the outputs, tile slot order */
            int64_t bxr[GS_TSIDE * GS_TSIDE], bxc[GS_TSIDE * GS_TSIDE]; /* a box's top left */
            uint8_t box[GS_TSIDE * GS_TSIDE];
            for (int i = 0; i < th; i++) /* the taps: a whole box, else the general way */
                for (int j = 0; j < tw; j++) {
                    const int b = i * T + j;
                    const int64_t pt = n * P + (i0 + i) * Wo + j0 + j;
                    double g[3]; /* x, y */
                    drs_gs_read_point(p, grid, pt, g);
                    int64_t *o = off + (int64_t)b * mt;
                    box[b] = (uint8_t)gs_cubic_box(p, g[0], g[1], bxr + b, bxc + b, w + (int64_t)b * mt);
                    if (box[b]) {
                        nt[b] = mt;
                        for (int k = 0; k < mt; k++)
                            o[k] = (bxr[b] + k / R) * W + bxc[b] + k % R;
                    } else {
                        const drs_gs_block bt = {o, w + (int64_t)b * mt, nt + b, {NULL, NULL, NULL},
                                                 NULL};
                        drs_gs_block_taps(p, grid, pt, 1, &bt);
                    }
                }
            /* each tap's row and column; with all its taps, a point's taps come
             * in rows of R sharing a plane row (the outer product's order) */
            int64_t ng = 0, nbad = 0, rmin = INT64_MAX, rmax = -1, cmin = INT64_MAX, cmax = -1;
            for (int i = 0; i < th; i++)
                for (int j = 0; j < tw; j++, ng++) {
                    const int b = i * T + j;
                    const int64_t *o = off + (int64_t)b * mt;
                    const int full = nt[b] == mt;
                    pq[ng] = b;
                    bi[ng] = b;
                    if (box[b]) { /* rows bxr..bxr + 3, columns bxc..bxc + 3 */
                        rmin = bxr[b] < rmin ? bxr[b] : rmin;
                        rmax = bxr[b] + R - 1 > rmax ? bxr[b] + R - 1 : rmax;
                        cmin = bxc[b] < cmin ? bxc[b] : cmin;
                        cmax = bxc[b] + R - 1 > cmax ? bxc[b] + R - 1 : cmax;
                        continue;
                    }
                    int64_t r = 0;
                    for (int k = 0; k < nt[b]; k++) {
                        if (!full || k % R == 0)
                            r = gs_row_of(o[k], W);
                        const int64_t c = o[k] - r * W;
                        rs[(ng * mt + k) * 2] = r;
                        rs[(ng * mt + k) * 2 + 1] = c;
                        rmin = r < rmin ? r : rmin;
                        rmax = r > rmax ? r : rmax;
                        cmin = c < cmin ? c : cmin;
                        cmax = c > cmax ? c : cmax;
                    }
                }
            const int64_t bh = rmax - rmin + 1;
            int64_t bw = cmax - cmin + 1;
            if (rmax >= 0)
                gs_box_cols4(&cmin, &bw, W);
            if (rmax < 0 || bh * bw > GS_TILE_PIX - 1) { /* no tap, or a spread-out tile */
                nbad = ng;
                ng = 0;
            }
            for (int64_t g = 0; g < ng; g++) { /* the box's pixel of each tap; missing: the zero pixel */
                const int b = bi[g];
                if (box[b]) {
                    const int32_t t0 = (int32_t)((bxr[b] - rmin) * bw + (bxc[b] - cmin));
                    for (int k = 0; k < mt; k++) {
                        to[g * mt + k] = t0 + (int32_t)(k / R * bw + k % R);
                        wg[g * mt + k] = w[(int64_t)b * mt + k];
                    }
                    continue;
                }
                for (int k = 0; k < mt; k++) {
                    const int have = k < nt[b];
                    to[g * mt + k] = have ? (int32_t)((rs[(g * mt + k) * 2] - rmin) * bw +
                                                      (rs[(g * mt + k) * 2 + 1] - cmin))
                                          : (int32_t)(bh * bw);
                    wg[g * mt + k] = have ? w[(int64_t)b * mt + k] : 0.0;
                }
            }
            for (int64_t c0 = 0; c0 < C; c0 += GS_TCG) {
                const int nc = C - c0 < GS_TCG ? (int)(C - c0) : GS_TCG;
                const float *xg = x + (n * C + c0) * Q;
                float *yg = y + (n * C + c0) * P;
                const int rows = ng && tw == T; /* whole rows of 8: straight to the output */
                if (ng) {
                    gs_tile_copy_f32(xg, Q, W, rmin, cmin, (int)bh, (int)bw, nc, c0 + 2 * GS_TCG <= C,
                                     buf);
                    if (rows)
                        gs_tile_dot_rows_f32(buf, to, wg, th, nc, yg + i0 * Wo + j0, P, Wo);
                    else
                        gs_tile_dot_f32(buf, to, wg, pq, ng, mt, ybuf, T * T);
                }
                if (rows)
                    continue;
                for (int64_t e = 0; e < nbad; e++) {
                    const int64_t *o = off + (int64_t)bi[e] * mt;
                    const double *wb = w + (int64_t)bi[e] * mt;
                    for (int i = 0; i < nc; i++) {
                        double acc = 0.0;
                        GS_DOT(nt[bi[e]], acc, wb, xg + i * Q, o);
                        ybuf[i * T * T + bi[e]] = (float)acc;
                    }
                }
                for (int i = 0; i < nc; i++) /* the tile's rows, to the output planes */
                    for (int r = 0; r < th; r++) {
                        float *yr = yg + i * P + (i0 + r) * Wo + j0;
                        const float *br = ybuf + i * T * T + r * T;
                        if (tw == GS_TSIDE) { /* (a constant size: two vector moves) */
                            float v[GS_TSIDE];
                            memcpy(v, br, sizeof v);
                            memcpy(yr, v, sizeof v);
                        } else {
                            for (int j = 0; j < tw; j++)
                                yr[j] = br[j];
                        }
                    }
            }
        }
    }
}

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
        if (gs_tiled_ok(&p))
            gs_forward_tiled_f32(&p, (const float *)data->data, grid, (float *)output->data);
        else
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
