/* grid_sample_backward.c — GridSample gradients w.r.t. data and grid
 * (PyTorch's rules, notes §7.5), f32 and f64.
 *
 * Forward (grid_sample.c):  y[n,c,q] = sum_k w_k(g[n,q]) x[n,c,off_k]
 *  - grid_delta[n,q,k] = m_k * sum_c dy[n,c,q] * sum_taps (dw/du_k) x[n,c,off]
 *    (m_k = du/dg * kappa: 0 for nearest and non-finite g, kappa from the
 *    border clip and the reflection sign).  Owner computes: one iteration per
 *    point, parallel over (n, q).
 *  - data_delta[n,c,j] = sum over (q, tap) with off = j of w * dy[n,c,q]: the
 *    scatter of the forward, done as a gather through the transposed tap list
 *    (a stable counting sort by pixel, so the entries of a pixel stay in
 *    ascending point order).  Parallel over pixels even for N = C = 1, no
 *    atomics; points are processed in blocks whose size depends on the shapes
 *    only, so the summation order (and the bits) never depend on the thread
 *    count. */
#include "grid_sample.h"

#include <stdlib.h>
#include <string.h>

#define PAR_MIN_WORK 16384
#define GS_BLOCK_ENTRIES ((int64_t)1 << 20) /* entries of one transposed block */

/* ------------------------------------------------------------ grid_delta */
/* Points in blocks of GS_GG_BLOCK: a point whose taps are the 2-D bilinear
 * interior (4 taps, no depth term) is done channel-outer over the block with
 * its taps and weight derivatives in local arrays; any other point is done on
 * its own.  Either way a point's sum runs over the channels in ascending
 * order, so the bits do not depend on the blocking or the threads. */
#define GS_GG_BLOCK 256
#define GS_GRID_GRAD(T, GT, NAME)                                                              \
    static void NAME(const drs_gs_plan *p, const T *x, const T *dy, const drs_tensor *grid,    \
                     GT *dg, int accumulate)                                                   \
    {                                                                                          \
        const int64_t C = p->C, P = p->P, Q = p->Q;                                            \
        const int S = p->S;                                                                    \
        const int64_t nb = (P + GS_GG_BLOCK - 1) / GS_GG_BLOCK, NB = p->N * nb;                \
        _Pragma("omp parallel for schedule(static) if (p->N * P * C > PAR_MIN_WORK)")          \
        for (int64_t blk = 0; blk < NB; blk++) {                                               \
            const int64_t n = blk / nb, q0 = (blk % nb) * GS_GG_BLOCK;                         \
            const int64_t q1 = q0 + GS_GG_BLOCK < P ? q0 + GS_GG_BLOCK : P;                    \
            int64_t off[GS_GG_BLOCK * 4];                                                      \
            double hh[GS_GG_BLOCK * 4], vv[GS_GG_BLOCK * 4], m1[GS_GG_BLOCK], m2[GS_GG_BLOCK]; \
            double G1[GS_GG_BLOCK], G2[GS_GG_BLOCK];                                           \
            unsigned char fast[GS_GG_BLOCK];                                                   \
            int nfast = 0;                                                                     \
            for (int64_t q = q0; q < q1; q++) {                                                \
                const int64_t pt = n * P + q, b = q - q0;                                      \
                double g[3], G[3] = {0.0, 0.0, 0.0};                                           \
                drs_gs_taps t;                                                                 \
                drs_gs_read_point(p, grid, pt, g);                                             \
                drs_gs_point_taps(p, g, 1, &t);                                                \
                fast[b] = S == 2 && t.n == 4 && (t.m[1] != 0.0 || t.m[2] != 0.0);              \
                if (fast[b]) { /* 2-D: the dummy depth axis has m[0] = 0 */                    \
                    for (int k = 0; k < 4; k++) {                                              \
                        off[b * 4 + k] = t.off[k];                                             \
                        hh[b * 4 + k] = t.dw[1][k];                                            \
                        vv[b * 4 + k] = t.dw[2][k];                                            \
                    }                                                                          \
                    m1[b] = t.m[1];                                                            \
                    m2[b] = t.m[2];                                                            \
                    G1[b] = G2[b] = 0.0;                                                       \
                    nfast++;                                                                   \
                    continue;                                                                  \
                }                                                                              \
                if (t.m[0] != 0.0 || t.m[1] != 0.0 || t.m[2] != 0.0) {                         \
                    for (int64_t c = 0; c < C; c++) {                                          \
                        const T *xc = x + (n * C + c) * Q;                                     \
                        const double d = (double)dy[(n * C + c) * P + q];                      \
                        double a0 = 0.0, a1 = 0.0, a2 = 0.0;                                   \
                        for (int k = 0; k < t.n; k++) {                                        \
                            const double v = (double)xc[t.off[k]];                             \
                            a0 += t.dw[0][k] * v;                                              \
                            a1 += t.dw[1][k] * v;                                              \
                            a2 += t.dw[2][k] * v;                                              \
                        }                                                                      \
                        G[0] += d * a0;                                                        \
                        G[1] += d * a1;                                                        \
                        G[2] += d * a2;                                                        \
                    }                                                                          \
                }                                                                              \
                GT *out = dg + pt * S;                                                         \
                for (int k = 0; k < S; k++) { /* component k drives plan axis 2 - k */         \
                    const double v = t.m[2 - k] * G[2 - k];                                    \
                    out[k] = accumulate ? (GT)((double)out[k] + v) : (GT)v;                    \
                }                                                                              \
            }                                                                                  \
            if (nfast == 0)                                                                    \
                continue;                                                                      \
            for (int64_t c = 0; c < C; c++) {                                                  \
                const T *xc = x + (n * C + c) * Q;                                             \
                const T *dyc = dy + (n * C + c) * P;                                           \
                for (int64_t q = q0; q < q1; q++) {                                            \
                    const int64_t b = q - q0;                                                  \
                    if (!fast[b])                                                              \
                        continue;                                                              \
                    const int64_t *o4 = off + b * 4;                                           \
                    const double *h4 = hh + b * 4, *v4 = vv + b * 4;                           \
                    const double d = (double)dyc[q];                                           \
                    const double x0 = (double)xc[o4[0]], x1 = (double)xc[o4[1]];               \
                    const double x2 = (double)xc[o4[2]], x3 = (double)xc[o4[3]];               \
                    double a1 = 0.0, a2 = 0.0;                                                 \
                    a1 += h4[0] * x0;                                                          \
                    a2 += v4[0] * x0;                                                          \
                    a1 += h4[1] * x1;                                                          \
                    a2 += v4[1] * x1;                                                          \
                    a1 += h4[2] * x2;                                                          \
                    a2 += v4[2] * x2;                                                          \
                    a1 += h4[3] * x3;                                                          \
                    a2 += v4[3] * x3;                                                          \
                    G1[b] += d * a1;                                                           \
                    G2[b] += d * a2;                                                           \
                }                                                                              \
            }                                                                                  \
            for (int64_t q = q0; q < q1; q++) {                                                \
                const int64_t b = q - q0;                                                      \
                if (!fast[b])                                                                  \
                    continue;                                                                  \
                GT *out = dg + (n * P + q) * S;                                                \
                /* S == 2 here: component 0 (x) is axis 2, component 1 (y) axis 1 */          \
                const double vx = m2[b] * G2[b], vy = m1[b] * G1[b];                           \
                out[0] = accumulate ? (GT)((double)out[0] + vx) : (GT)vx;                      \
                out[1] = accumulate ? (GT)((double)out[1] + vy) : (GT)vy;                      \
            }                                                                                  \
        }                                                                                      \
    }
GS_GRID_GRAD(float, float, gs_grid_grad_f32_f32)
GS_GRID_GRAD(float, double, gs_grid_grad_f32_f64)
GS_GRID_GRAD(double, float, gs_grid_grad_f64_f32)
GS_GRID_GRAD(double, double, gs_grid_grad_f64_f64)

/* ------------------------------------------------------------ data_delta */
typedef struct gs_scratch {
    int64_t *tap_off; /* [Pb * T] */
    double *tap_w;    /* [Pb * T] */
    int32_t *ntap;    /* [Pb] */
    int64_t *rowptr;  /* [Q + 1] */
    int64_t *pt;      /* [Pb * T] point of each transposed entry */
    double *w;        /* [Pb * T] */
} gs_scratch;

static void scratch_free(gs_scratch *s)
{
    free(s->tap_off);
    free(s->tap_w);
    free(s->ntap);
    free(s->rowptr);
    free(s->pt);
    free(s->w);
}

/* Taps of the points [p0, p1) of image n, then the stable transpose. */
static void gs_block_transpose(const drs_gs_plan *p, const drs_tensor *grid, int64_t n, int64_t p0,
                               int64_t p1, gs_scratch *s)
{
    const int T = p->max_taps;
    const int64_t nb = p1 - p0, Q = p->Q;
    _Pragma("omp parallel for schedule(static) if (nb * T > PAR_MIN_WORK)")
    for (int64_t b = 0; b < nb; b++) {
        double g[3];
        drs_gs_taps t;
        drs_gs_read_point(p, grid, n * p->P + p0 + b, g);
        drs_gs_point_taps(p, g, 0, &t);
        s->ntap[b] = t.n;
        memcpy(s->tap_off + b * T, t.off, (size_t)t.n * sizeof(int64_t));
        memcpy(s->tap_w + b * T, t.w, (size_t)t.n * sizeof(double));
    }
    memset(s->rowptr, 0, (size_t)(Q + 1) * sizeof(int64_t));
    for (int64_t b = 0; b < nb; b++)
        for (int k = 0; k < s->ntap[b]; k++)
            s->rowptr[s->tap_off[b * T + k] + 1]++;
    for (int64_t j = 0; j < Q; j++)
        s->rowptr[j + 1] += s->rowptr[j];
    /* fill in ascending (point, tap) order; rowptr[j] walks to rowptr[j+1] */
    for (int64_t b = 0; b < nb; b++)
        for (int k = 0; k < s->ntap[b]; k++) {
            const int64_t e = s->rowptr[s->tap_off[b * T + k]]++;
            s->pt[e] = p0 + b;
            s->w[e] = s->tap_w[b * T + k];
        }
    for (int64_t j = Q; j > 0; j--) /* restore the row starts */
        s->rowptr[j] = s->rowptr[j - 1];
    s->rowptr[0] = 0;
}

/* Parallel over blocks of 256 pixels; within a block channel by channel, so
 * the output_delta plane of one channel is read for the block's pixels
 * together.  Each (c, pixel) sums its entries in ascending point order. */
#define GS_DATA_GATHER(T, NAME)                                                                \
    static void NAME(const drs_gs_plan *p, const T *dy, T *dx, int64_t n, const gs_scratch *s)  \
    {                                                                                          \
        const int64_t C = p->C, P = p->P, Q = p->Q, nbk = (Q + 255) / 256;                     \
        _Pragma("omp parallel for schedule(static) if (Q * C > PAR_MIN_WORK)")                 \
        for (int64_t bk = 0; bk < nbk; bk++) {                                                 \
            const int64_t j0 = bk * 256, j1 = j0 + 256 < Q ? j0 + 256 : Q;                     \
            if (s->rowptr[j0] == s->rowptr[j1])                                                \
                continue;                                                                      \
            for (int64_t c = 0; c < C; c++) {                                                  \
                const T *dyc = dy + (n * C + c) * P;                                           \
                T *dxc = dx + (n * C + c) * Q;                                                 \
                for (int64_t j = j0; j < j1; j++) {                                            \
                    const int64_t e0 = s->rowptr[j], e1 = s->rowptr[j + 1];                    \
                    if (e0 == e1)                                                              \
                        continue;                                                              \
                    double acc = 0.0;                                                          \
                    for (int64_t e = e0; e < e1; e++)                                          \
                        acc += s->w[e] * (double)dyc[s->pt[e]];                                \
                    dxc[j] = (T)((double)dxc[j] + acc);                                        \
                }                                                                              \
            }                                                                                  \
        }                                                                                      \
    }
GS_DATA_GATHER(float, gs_gather_f32)
GS_DATA_GATHER(double, gs_gather_f64)

static drs_status gs_scratch_alloc(const drs_gs_plan *p, int64_t Pb, gs_scratch *s)
{
    memset(s, 0, sizeof *s);
    const int64_t E = Pb * p->max_taps; /* <= GS_BLOCK_ENTRIES (or one point's taps) */
    s->tap_off = drs__malloc((size_t)E * sizeof(int64_t));
    s->tap_w = drs__malloc((size_t)E * sizeof(double));
    s->ntap = drs__malloc((size_t)Pb * sizeof(int32_t));
    s->pt = drs__malloc((size_t)E * sizeof(int64_t));
    s->w = drs__malloc((size_t)E * sizeof(double));
    s->rowptr = NULL;
    if (p->Q < INT64_MAX / 8 - 1)
        s->rowptr = drs__malloc((size_t)(p->Q + 1) * sizeof(int64_t));
    if (!s->tap_off || !s->tap_w || !s->ntap || !s->pt || !s->w || !s->rowptr) {
        scratch_free(s);
        return drs__fail(DRS_ERR_NOMEM, "%s backward: out of memory (transposed tap list of "
                         "%lld entries over %lld pixels)",
                         p->op, (long long)E, (long long)p->Q);
    }
    return DRS_OK;
}

/* ------------------------------------------------------------ public */
drs_status drs_grid_sample_backward(drs_tensor *data_delta, drs_tensor *grid_delta,
                                    const drs_tensor *output_delta, const drs_tensor *data,
                                    const drs_tensor *grid, const drs_grid_sample_attrs *attrs,
                                    drs_grad_mode mode)
{
    drs_gs_plan p;
    drs_status s = drs_gs_plan_make(&p, attrs, data, grid, 1);
    if (s != DRS_OK)
        return s;
    const char *op = p.op;
    if (data->dtype != DRS_F32 && data->dtype != DRS_F64)
        return drs__fail(DRS_ERR_UNSUPPORTED,
                         "%s backward: gradients need f32 or f64 data, got %s", op,
                         drs_dtype_name(data->dtype));
    if (mode != DRS_GRAD_OVERWRITE && mode != DRS_GRAD_ACCUMULATE)
        return drs__fail(DRS_ERR_INVALID_ARGUMENT, "%s backward: mode must be 0 or 1, got %d", op,
                         (int)mode);
    if ((s = drs_gs_check_like(op, "output_delta", output_delta, data->dtype, p.out_rank,
                               p.out_shape)) != DRS_OK)
        return s;
    if (data_delta && (s = drs_gs_check_like(op, "data_delta", data_delta, data->dtype,
                                             data->rank, data->shape)) != DRS_OK)
        return s;
    if (grid_delta && (s = drs_gs_check_like(op, "grid_delta", grid_delta, grid->dtype,
                                             grid->rank, grid->shape)) != DRS_OK)
        return s;
    const drs_tensor *ins[3] = {data, grid, output_delta};
    for (int i = 0; i < 3; i++)
        if ((data_delta && drs__overlaps(data_delta, ins[i])) ||
            (grid_delta && drs__overlaps(grid_delta, ins[i])))
            return drs__fail(DRS_ERR_INVALID_ARGUMENT, "%s backward: a gradient overlaps an input",
                             op);
    if (data_delta && grid_delta && drs__overlaps(data_delta, grid_delta))
        return drs__fail(DRS_ERR_INVALID_ARGUMENT,
                         "%s backward: data_delta and grid_delta overlap", op);
    const int accumulate = mode == DRS_GRAD_ACCUMULATE;

    /* everything that can fail is done before the first write */
    gs_scratch sc;
    int64_t Pb = 0;
    const int64_t nx = p.N * p.C * p.Q;
    const int want_dx = data_delta && nx > 0;
    if (want_dx && p.P > 0) {
        Pb = GS_BLOCK_ENTRIES / p.max_taps;
        if (Pb > p.P)
            Pb = p.P;
        if ((s = gs_scratch_alloc(&p, Pb, &sc)) != DRS_OK)
            return s;
    }

    if (grid_delta && p.N * p.P > 0 && p.C == 0) {
        /* no channel contributes (and the data's pixel count may not even be
         * representable): the gradient is 0 */
        if (!accumulate)
            memset(grid_delta->data, 0, (size_t)(p.N * p.P * p.S) * drs_dtype_size(grid->dtype));
    } else if (grid_delta && p.N * p.P > 0) {
        const int gf = grid->dtype == DRS_F32;
        if (data->dtype == DRS_F32) {
            if (gf)
                gs_grid_grad_f32_f32(&p, data->data, output_delta->data, grid, grid_delta->data,
                                     accumulate);
            else
                gs_grid_grad_f32_f64(&p, data->data, output_delta->data, grid, grid_delta->data,
                                     accumulate);
        } else {
            if (gf)
                gs_grid_grad_f64_f32(&p, data->data, output_delta->data, grid, grid_delta->data,
                                     accumulate);
            else
                gs_grid_grad_f64_f64(&p, data->data, output_delta->data, grid, grid_delta->data,
                                     accumulate);
        }
    }
    if (want_dx) {
        if (!accumulate)
            memset(data_delta->data, 0, (size_t)nx * drs_dtype_size(data->dtype));
        for (int64_t n = 0; n < p.N && p.P > 0; n++)
            for (int64_t p0 = 0; p0 < p.P; p0 += Pb) {
                const int64_t p1 = p0 + Pb < p.P ? p0 + Pb : p.P;
                gs_block_transpose(&p, grid, n, p0, p1, &sc);
                if (data->dtype == DRS_F32)
                    gs_gather_f32(&p, output_delta->data, data_delta->data, n, &sc);
                else
                    gs_gather_f64(&p, output_delta->data, data_delta->data, n, &sc);
            }
        if (p.P > 0)
            scratch_free(&sc);
    }
    return DRS_OK;
}
