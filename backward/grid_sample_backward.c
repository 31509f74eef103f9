/* SPDX-License-Identifier: MIT */
/* grid_sample_backward.c — GridSample gradients w.r.t. data and grid
 * (PyTorch's rules, docs/semantics.md), f32 and f64.
 *
 * Forward (grid_sample.c):  y[n,c,q] = sum_k w_k(g[n,q]) x[n,c,off_k]
 *  - grid_delta[n,q,k] = m_k * sum_c dy[n,c,q] * sum_taps (dw/du_k) x[n,c,off]
 *    (m_k = du/dg * kappa: 0 for nearest and non-finite g, kappa from the
 *    border clip and the reflection sign).  Owner computes: parallel over
 *    blocks of points, each point summing its channels in ascending order.
 *  - data_delta[n,c,j] = sum over (q, tap) with off = j of w * dy[n,c,q], in
 *    ascending (q, tap) order: either scattered point by point into double
 *    planes, 8 channels per vector (parallel over channel groups), or gathered through the
 *    transposed tap list (a stable counting sort by pixel; parallel over
 *    pixels even for N = C = 1).  Both add the same terms in the same order
 *    to a per-pixel double sum, so they give the same bits; no atomics, and
 *    the blocks of points depend on the shapes only, so the bits never depend
 *    on the thread count (which only picks the scheme). */
#include "grid_sample.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#define PAR_MIN_WORK 16384
#define GS_BLOCK_ENTRIES ((int64_t)1 << 20) /* entries of one transposed block */

/* ------------------------------------------------------------ grid_delta */
/* Points in blocks of GS_GG_ENTRIES taps: the taps and weight derivatives of
 * a block are computed once, then the block is done GS_GG_CH channels at a
 * time (plane-local reads), each point summing its channels in ascending
 * order into G, so the bits do not depend on the blocking or the threads.
 * Only the axes of the spatial rank are summed (the dummy axes have m = 0
 * and are not written); a point whose m are all 0 (non-finite g) gets
 * m * 0 = 0 without reading anything, nearest (m = 0 everywhere) computes no
 * tap.  A 2-D point with all its taps takes a loop of a constant tap count,
 * the two grid components as the lanes of one vector. */
#define GS_GG_ENTRIES 512 /* (the per-block arrays, about 58 KiB, live on the stack) */
#define GS_GG_CH 4 /* channels per pass over a block (a point's taps loaded once) */
#define GS_GG_MAX_POINTS (GS_GG_ENTRIES / 2) /* nearest (1 tap) skips the block loop */

/* {a1, a2} += {dw/dy, dw/dx} * pixel for the K taps of a 2-D point (the two
 * sums as the lanes of one vector: the same bits as two scalar sums) */
#define GS_GG_DOT2(K, a, hv, xc, o)                                                            \
    for (int k_ = 0; k_ < (K); k_++) {                                                         \
        const double x_ = (double)(xc)[(o)[k_]];                                               \
        (a) += (hv)[k_] * (drs_gs_v2d){x_, x_};                                                \
    }

/* Two adjacent pixels as a vector of two doubles. */
typedef float gs_gg_v2f __attribute__((vector_size(8)));
static inline drs_gs_v2d gs_gg_pair_f32(const float *x)
{
    gs_gg_v2f v;
    memcpy(&v, x, sizeof v);
    return __builtin_convertvector(v, drs_gs_v2d);
}
static inline drs_gs_v2d gs_gg_pair_f64(const double *x)
{
    drs_gs_v2d v;
    memcpy(&v, x, sizeof v);
    return v;
}

/* Two 2-D bilinear points A, B with their 4 taps (pixels o, o + 1, o + W,
 * o + W + 1): the lanes of a vector are the two points, one vector per grid
 * component.  Lane A of ay is 0.0 + dwy[0] * x[0] + ... + dwy[3] * x[3] in
 * tap order and G[1] += d * ay, as GS_GG_DOT2 does for one point with the
 * components as its lanes: the same bits, with the pixels loaded as pairs
 * and the products of two points in one instruction. */
#define GS_GG_PAIR2(T, PAIR)                                                                   \
    do {                                                                                       \
        const int64_t *oA = off + b * 4, *oB = oA + 4;                                         \
        drs_gs_v2d hy[4], hx[4];                                                               \
        for (int k = 0; k < 4; k++) {                                                          \
            hy[k] = (drs_gs_v2d){dw[1][b * 4 + k], dw[1][b * 4 + 4 + k]};                      \
            hx[k] = (drs_gs_v2d){dw[2][b * 4 + k], dw[2][b * 4 + 4 + k]};                      \
        }                                                                                      \
        drs_gs_v2d gy = {G2[b][0], G2[b + 1][0]}, gx = {G2[b][1], G2[b + 1][1]};               \
        for (int i = 0; i < cs; i++) {                                                         \
            const T *xc = xc0 + i * Q;                                                         \
            if (c0 + GS_GG_CH + i < C) { /* the next group's rows, from memory */              \
                __builtin_prefetch(xc + GS_GG_CH * Q + oA[0]);                                 \
                __builtin_prefetch(xc + GS_GG_CH * Q + oA[2]);                                 \
            }                                                                                  \
            const drs_gs_v2d a01 = PAIR(xc + oA[0]), b01 = PAIR(xc + oB[0]);                   \
            const drs_gs_v2d a23 = PAIR(xc + oA[2]), b23 = PAIR(xc + oB[2]);                   \
            const drs_gs_v2d x0 = {a01[0], b01[0]}, x1 = {a01[1], b01[1]};                     \
            const drs_gs_v2d x2 = {a23[0], b23[0]}, x3 = {a23[1], b23[1]};                     \
            drs_gs_v2d ay = {0.0, 0.0}, ax = {0.0, 0.0};                                       \
            ay += hy[0] * x0;                                                                  \
            ax += hx[0] * x0;                                                                  \
            ay += hy[1] * x1;                                                                  \
            ax += hx[1] * x1;                                                                  \
            ay += hy[2] * x2;                                                                  \
            ax += hx[2] * x2;                                                                  \
            ay += hy[3] * x3;                                                                  \
            ax += hx[3] * x3;                                                                  \
            const drs_gs_v2d d = {(double)dyc0[i * P + b], (double)dyc0[i * P + b + 1]};       \
            gy += d * ay;                                                                      \
            gx += d * ax;                                                                      \
        }                                                                                      \
        G2[b] = (drs_gs_v2d){gy[0], gx[0]};                                                    \
        G2[b + 1] = (drs_gs_v2d){gy[1], gx[1]};                                                \
    } while (0)

/* 2-D bilinear f32 data with AVX-512 or AVX2: vector groups of DRS_GS_VP
 * points (grid_sample.h) with all 4 taps and a nonzero m.  Lane l computes,
 * per channel, ay = 0.0 + dwy[0] * x[0] + ... + dwy[3] * x[3] (ax with dwx)
 * and gy += d * ay, gx += d * ax, the operations of GS_GG_PAIR2 in its order:
 * the same bits.  The groups of a block are set up once; their sums run
 * over the channels in ascending order, GS_GG_CH at a time like the rest. */
typedef struct gs_gg_vgroup {
    int64_t o0[DRS_GS_VP], o2[DRS_GS_VP]; /* the first pixel of each pair */
    double hy[4][DRS_GS_VP], hx[4][DRS_GS_VP]; /* dw/dy and dw/dx of tap k */
    double gy[DRS_GS_VP], gx[DRS_GS_VP];       /* the sums so far */
    drs_gs_window win; /* AVX-512: the permute window (perm 0: gathers) */
} gs_gg_vgroup;
#define GS_GG_MAX_VGROUPS (GS_GG_ENTRIES / 4 / DRS_GS_VP)

/* The groups of a block's np points; full[j]: group j is all active points
 * with 4 taps.  Returns the number of groups (a partial last group is left
 * to the scalar path). */
static int64_t gs_gg_vgroups(const int64_t *off, double *const dw[3], const int32_t *nt,
                             const unsigned char *act, int64_t np, int64_t W, gs_gg_vgroup *g,
                             unsigned char *full)
{
    const int64_t ng = np / DRS_GS_VP;
    for (int64_t j = 0; j < ng; j++) {
        int all = 1;
        for (int l = 0; l < DRS_GS_VP; l++) {
            const int64_t b = j * DRS_GS_VP + l;
            all &= nt[b] == 4 && act[b];
            g[j].o0[l] = off[b * 4];
            g[j].o2[l] = off[b * 4 + 2];
            for (int k = 0; k < 4; k++) {
                g[j].hy[k][l] = dw[1][b * 4 + k];
                g[j].hx[k][l] = dw[2][b * 4 + k];
            }
            g[j].gy[l] = g[j].gx[l] = 0.0;
        }
        full[j] = (unsigned char)all;
        g[j].win.perm = 0;
        if (all)
            drs_gs_window_of(g[j].o0, g[j].o2, W, &g[j].win);
    }
    return ng;
}

#if DRS_SIMD_MULTI
/* the cs channels at xc0 (planes Q apart; dy rows dyc0, P apart) into the
 * full groups' sums; the first npf planes of the next chunk (GS_GG_CH
 * planes on) are prefetched */
DRS_TARGET_AVX512 static void gs_gg_vbilin_avx512(const float *xc0, const float *dyc0, int64_t Q,
                                                  int64_t P, int cs, gs_gg_vgroup *g,
                                                  const unsigned char *full, int64_t ng,
                                                  int npf, int64_t W)
{
    for (int64_t j = 0; j < ng; j++) {
        if (!full[j])
            continue;
        gs_gg_vgroup *q = g + j;
        __m512d gy = _mm512_loadu_pd(q->gy), gx = _mm512_loadu_pd(q->gx);
        for (int i = 0; i < cs; i++) {
            __m512d x[4];
            if (i < npf)
                drs_gs_prefetch_taps(xc0 + (GS_GG_CH + i) * Q, W, q->o0, q->o2, &q->win, 1);
            if (q->win.perm)
                drs_gs_window4_avx512(xc0 + i * Q, W, &q->win, x);
            else
                drs_gs_gather4_avx512(xc0 + i * Q, q->o0, q->o2, x);
            __m512d ay = _mm512_setzero_pd(), ax = _mm512_setzero_pd();
            for (int k = 0; k < 4; k++) {
                ay = _mm512_add_pd(ay, _mm512_mul_pd(_mm512_loadu_pd(q->hy[k]), x[k]));
                ax = _mm512_add_pd(ax, _mm512_mul_pd(_mm512_loadu_pd(q->hx[k]), x[k]));
            }
            const __m512d d = _mm512_cvtps_pd(_mm256_loadu_ps(dyc0 + i * P + j * DRS_GS_VP));
            gy = _mm512_add_pd(gy, _mm512_mul_pd(d, ay));
            gx = _mm512_add_pd(gx, _mm512_mul_pd(d, ax));
        }
        _mm512_storeu_pd(q->gy, gy);
        _mm512_storeu_pd(q->gx, gx);
    }
}

DRS_TARGET_AVX2 static void gs_gg_vbilin_avx2(const float *xc0, const float *dyc0, int64_t Q,
                                              int64_t P, int cs, gs_gg_vgroup *g,
                                              const unsigned char *full, int64_t ng,
                                              int npf)
{
    for (int64_t j = 0; j < ng; j++) {
        if (!full[j])
            continue;
        gs_gg_vgroup *q = g + j;
        for (int i = 0; i < npf; i++)
            drs_gs_prefetch_group(xc0 + (GS_GG_CH + i) * Q, q->o0, q->o2, 1);
        for (int h = 0; h < DRS_GS_VP; h += 4) {
            __m256d gy = _mm256_loadu_pd(q->gy + h), gx = _mm256_loadu_pd(q->gx + h);
            for (int i = 0; i < cs; i++) {
                __m256d x[4];
                drs_gs_gather4_avx2(xc0 + i * Q, q->o0 + h, q->o2 + h, x);
                __m256d ay = _mm256_setzero_pd(), ax = _mm256_setzero_pd();
                for (int k = 0; k < 4; k++) {
                    ay = _mm256_add_pd(ay, _mm256_mul_pd(_mm256_loadu_pd(q->hy[k] + h), x[k]));
                    ax = _mm256_add_pd(ax, _mm256_mul_pd(_mm256_loadu_pd(q->hx[k] + h), x[k]));
                }
                const __m256d d =
                    _mm256_cvtps_pd(_mm_loadu_ps(dyc0 + i * P + j * DRS_GS_VP + h));
                gy = _mm256_add_pd(gy, _mm256_mul_pd(d, ay));
                gx = _mm256_add_pd(gx, _mm256_mul_pd(d, ax));
            }
            _mm256_storeu_pd(q->gy + h, gy);
            _mm256_storeu_pd(q->gx + h, gx);
        }
    }
}
#endif

static void gs_gg_vbilin(int level, const float *xc0, const float *dyc0, int64_t Q, int64_t P,
                         int cs, gs_gg_vgroup *g, const unsigned char *full, int64_t ng,
                         int npf, int64_t W)
{
#if DRS_SIMD_MULTI
    if (level == DRS_SIMD_AVX512)
        gs_gg_vbilin_avx512(xc0, dyc0, Q, P, cs, g, full, ng, npf, W);
    else
        gs_gg_vbilin_avx2(xc0, dyc0, Q, P, cs, g, full, ng, npf);
#else
    (void)level, (void)xc0, (void)dyc0, (void)Q, (void)P, (void)cs, (void)g, (void)full;
    (void)ng, (void)npf, (void)W;
#endif
}

/* 2-D bicubic f32 with AVX-512: groups of DRS_GS_VP active points whose 16
 * taps are each a 4x4 box inside the plane, with the boxes' top-left pixels
 * in 3 rows and 13 columns: the window (rows 0-5 from base, row k at
 * row[k - 1], 0 for a row it lacks) holds every tap; pidx[h] lanes 0-7 each
 * point's top-left pixel (row - top row) * 16 + column - first column + 2h,
 * lanes 8-15 the same + 1, m2 the lanes of top row + 2.  Tap row t of a
 * plane is then two permutes of window rows (t, t + 1) and two masked ones
 * of row t + 2.  Lane l computes ay = 0.0 + dwy[0] x[0] + ... + dwy[15]
 * x[15] (ax with dwx) and gy += d ay, gx += d ax: GS_GG_DOT2(16)'s operations
 * in its order, the same bits. */
typedef struct gs_gg_cgroup {
    int64_t base, row[5];
    int32_t pidx[2][16];
    uint16_t m2;
    double hy[16][DRS_GS_VP], hx[16][DRS_GS_VP];
    double gy[DRS_GS_VP], gx[DRS_GS_VP];
} gs_gg_cgroup;
#define GS_GG_MAX_CGROUPS (GS_GG_ENTRIES / 16 / DRS_GS_VP)

/* The bicubic groups of a block's np points; full[j]: group j qualifies.
 * Returns the number of groups. */
static int64_t gs_gg_cgroups(const int64_t *off, double *const dw[3], const int32_t *nt,
                             const unsigned char *act, int64_t np, int64_t W, gs_gg_cgroup *g,
                             unsigned char *full)
{
    const int64_t ng = np / DRS_GS_VP;
    const double inv = 1.0 / (double)W;
    for (int64_t j = 0; j < ng; j++) {
        full[j] = 0;
        int64_t r[DRS_GS_VP], c[DRS_GS_VP];
        drs_gs_span sp = DRS_GS_SPAN_EMPTY;
        int ok = W >= 16;
        for (int l = 0; l < DRS_GS_VP && ok; l++) {
            const int64_t b = j * DRS_GS_VP + l;
            const int64_t *o = off + b * 16;
            ok = act[b] && nt[b] == 16 && o[0] >= 0;
            for (int k = 0; k < 16 && ok; k++) /* a 4x4 box */
                ok = o[k] == o[0] + (k / 4) * W + k % 4;
            if (ok) {
                drs_gs_span_add(&sp, o[0], W, inv, &r[l], &c[l]);
                ok = c[l] + 3 < W; /* (the taps never wrap a row: checked all the same) */
            }
        }
        const int64_t rmin = sp.rmin, rmax = sp.rmax, cmin = sp.cmin, cmax = sp.cmax;
        if (!ok || rmax - rmin > 2 || cmax - cmin > 12)
            continue;
        gs_gg_cgroup *q = g + j;
        const int64_t c0 = cmin < W - 16 ? cmin : W - 16;
        q->m2 = 0;
        for (int l = 0; l < DRS_GS_VP; l++) {
            const int32_t i0 = (int32_t)((r[l] - rmin) * 16 + c[l] - c0);
            for (int h = 0; h < 2; h++) {
                q->pidx[h][l] = i0 + 2 * h;
                q->pidx[h][l + 8] = i0 + 2 * h + 1;
            }
            if (r[l] == rmin + 2)
                q->m2 |= (uint16_t)(0x101u << l);
            const int64_t b = j * DRS_GS_VP + l;
            for (int k = 0; k < 16; k++) {
                q->hy[k][l] = dw[1][b * 16 + k];
                q->hx[k][l] = dw[2][b * 16 + k];
            }
            q->gy[l] = q->gx[l] = 0.0;
        }
        for (int k = 1; k <= 5; k++)
            q->row[k - 1] = k <= rmax - rmin + 3 ? k * W : 0;
        q->base = rmin * W + c0;
        full[j] = 1;
    }
    return ng;
}

#if DRS_SIMD_MULTI
/* the cs channels at xc0 (planes Q apart; dy rows dyc0, P apart) into the
 * full groups' sums; the first npf planes of the next chunk prefetched */
DRS_TARGET_AVX512 static void gs_gg_vbicubic_avx512(const float *xc0, const float *dyc0,
                                                    int64_t Q, int64_t P, int cs,
                                                    gs_gg_cgroup *g, const unsigned char *full,
                                                    int64_t ng, int npf)
{
    for (int64_t j = 0; j < ng; j++) {
        if (!full[j])
            continue;
        gs_gg_cgroup *q = g + j;
        const __m512i ix0 = _mm512_loadu_si512((const void *)q->pidx[0]);
        const __m512i ix1 = _mm512_loadu_si512((const void *)q->pidx[1]);
        __m512d gy = _mm512_loadu_pd(q->gy), gx = _mm512_loadu_pd(q->gx);
        for (int i = 0; i < cs; i++) {
            const float *b = xc0 + i * Q + q->base;
            __m512 R[6];
            R[0] = _mm512_loadu_ps(b);
            for (int k = 1; k < 6; k++)
                R[k] = _mm512_loadu_ps(b + q->row[k - 1]);
            if (i < npf) {
                const float *bn = b + GS_GG_CH * Q;
                __builtin_prefetch(bn);
                __builtin_prefetch(bn + 15);
                for (int k = 1; k < 6; k++) {
                    __builtin_prefetch(bn + q->row[k - 1]);
                    __builtin_prefetch(bn + q->row[k - 1] + 15);
                }
            }
            __m512d ay = _mm512_setzero_pd(), ax = _mm512_setzero_pd();
            for (int t = 0; t < 4; t++)
                for (int h = 0; h < 2; h++) {
                    const __m512i ix = h ? ix1 : ix0;
                    __m512 v = _mm512_permutex2var_ps(R[t], ix, R[t + 1]);
                    v = _mm512_mask_permutexvar_ps(v, q->m2, ix, R[t + 2]);
                    const __m512d xa = _mm512_cvtps_pd(_mm512_castps512_ps256(v));
                    const __m512d xb = _mm512_cvtps_pd(
                        _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
                    const int k = t * 4 + 2 * h;
                    ay = _mm512_add_pd(ay, _mm512_mul_pd(_mm512_loadu_pd(q->hy[k]), xa));
                    ax = _mm512_add_pd(ax, _mm512_mul_pd(_mm512_loadu_pd(q->hx[k]), xa));
                    ay = _mm512_add_pd(ay, _mm512_mul_pd(_mm512_loadu_pd(q->hy[k + 1]), xb));
                    ax = _mm512_add_pd(ax, _mm512_mul_pd(_mm512_loadu_pd(q->hx[k + 1]), xb));
                }
            const __m512d d = _mm512_cvtps_pd(_mm256_loadu_ps(dyc0 + i * P + j * DRS_GS_VP));
            gy = _mm512_add_pd(gy, _mm512_mul_pd(d, ay));
            gx = _mm512_add_pd(gx, _mm512_mul_pd(d, ax));
        }
        _mm512_storeu_pd(q->gy, gy);
        _mm512_storeu_pd(q->gx, gx);
    }
}
#endif

static void gs_gg_vbicubic(const float *xc0, const float *dyc0, int64_t Q, int64_t P, int cs,
                           gs_gg_cgroup *g, const unsigned char *full, int64_t ng, int npf)
{
#if DRS_SIMD_MULTI
    gs_gg_vbicubic_avx512(xc0, dyc0, Q, P, cs, g, full, ng, npf);
#else
    (void)xc0, (void)dyc0, (void)Q, (void)P, (void)cs, (void)g, (void)full, (void)ng, (void)npf;
#endif
}

/* Images [n0, n1); keep (not nearest): the taps (offsets, weights, counts)
 * are also left in keep's arrays for the data gradient, image n0 + i's at
 * entry i * P * max_taps.  The blocks of points are handed out two at a time,
 * as the forward's (each point's gradient is its own block's: the same bits):
 * drs_bench --cold at 2 threads, median of 6 alternating rounds, the whole
 * backward of W8a 12.3 -> 10.5 ms, W11 18.0 -> 17.1, W8d 34.2 -> 29.8. */
#define GS_GRID_GRAD(T, GT, NAME, PAIR, VEC)                                                       \
    static void NAME(const drs_gs_plan *p, const T *x, const T *dy, const drs_tensor *grid,    \
                     GT *dg, int accumulate, int64_t n0, int64_t n1, const drs_gs_block *keep)  \
    {                                                                                          \
        const int64_t C = p->C, P = p->P, Q = p->Q;                                            \
        const int S = p->S, mt = p->max_taps, d0 = 3 - S;                                      \
        const int vlev = (VEC) && S == 2 && mt == 4 ? drs_gs_vlevel() : 0; /* vector groups */   \
        /* bicubic vector groups (AVX-512 only) */                                       \
        const int clev = (VEC) && S == 2 && mt == 16 && drs_gs_vlevel() == DRS_SIMD_AVX512;     \
        if (p->mode == DRS_GRID_NEAREST) { /* m = 0 everywhere: the gradient is 0 */           \
            for (int64_t i = n0 * P * S; i < n1 * P * S; i++)                                  \
                dg[i] = accumulate ? (GT)((double)dg[i] + 0.0) : (GT)0.0;                      \
            return;                                                                            \
        }                                                                                      \
        const int64_t bp = GS_GG_ENTRIES / mt;                                                 \
        const int64_t nb = (P + bp - 1) / bp, NB = (n1 - n0) * nb;                             \
        _Pragma("omp parallel for schedule(dynamic, 2) num_threads(((n1 - n0) * P * C > PAR_MIN_WORK) ? drs__nthreads() : 1)")     \
        for (int64_t blk = 0; blk < NB; blk++) {                                               \
            const int64_t n = n0 + blk / nb, q0 = (blk % nb) * bp;                             \
            const int64_t q1 = q0 + bp < P ? q0 + bp : P, np = q1 - q0;                        \
            int64_t offb[GS_GG_ENTRIES];                                                       \
            double wb[GS_GG_ENTRIES], dw[3][GS_GG_ENTRIES];                                    \
            double m[3 * GS_GG_MAX_POINTS], G[3][GS_GG_MAX_POINTS];                            \
            drs_gs_v2d hv[GS_GG_ENTRIES], G2[GS_GG_MAX_POINTS];                                \
            int32_t ntb[GS_GG_ENTRIES];                                                        \
            unsigned char act[GS_GG_MAX_POINTS];                                               \
            const int64_t ke = (n - n0) * P + q0; /* keep: the block's first point */          \
            int64_t *off = keep ? keep->off + ke * mt : offb;                                  \
            int32_t *nt = keep ? keep->nt + ke : ntb;                                          \
            const drs_gs_block bt = {off, keep ? keep->w + ke * mt : wb, nt,                   \
                                     {dw[0], dw[1], dw[2]}, m};                                \
            drs_gs_block_taps(p, grid, n * P + q0, np, &bt);                                   \
            for (int64_t b = 0; b < np; b++) {                                                 \
                act[b] = m[3 * b] != 0.0 || m[3 * b + 1] != 0.0 || m[3 * b + 2] != 0.0;        \
                G[0][b] = G[1][b] = G[2][b] = 0.0;                                             \
                G2[b] = (drs_gs_v2d){0.0, 0.0};                                                \
            }                                                                                  \
            gs_gg_vgroup vg[GS_GG_MAX_VGROUPS];                                                \
            gs_gg_cgroup cg[GS_GG_MAX_CGROUPS];                                                \
            unsigned char vfull[GS_GG_MAX_VGROUPS] = {0};                                      \
            const int64_t nvg =                                                                \
                vlev ? gs_gg_vgroups(off, bt.dw, nt, act, np, p->in[2], vg, vfull)             \
                     : (clev ? gs_gg_cgroups(off, bt.dw, nt, act, np, p->in[2], cg, vfull) : 0); \
            /* the runs [rb[r], re[r]) of points outside the full groups: the scalar   \
             * loop's */                                                                 \
            int64_t rb[GS_GG_MAX_VGROUPS + 1] = {0}, re[GS_GG_MAX_VGROUPS + 1] = {0};          \
            const int64_t nr = drs_gs_runs(np, nvg, DRS_GS_VP, vfull, rb, re);                \
            /* the scalar loop's weight derivatives as pairs, for its points only */           \
            for (int64_t r = 0; r < nr && S == 2; r++)                                         \
                for (int64_t b = rb[r]; b < re[r]; b++)                                        \
                    for (int k = 0; k < nt[b]; k++)                                            \
                        hv[b * mt + k] = (drs_gs_v2d){dw[1][b * mt + k], dw[2][b * mt + k]};   \
            for (int64_t c0 = 0; c0 < C; c0 += GS_GG_CH) {                                     \
                const int cs = C - c0 < GS_GG_CH ? (int)(C - c0) : GS_GG_CH;                   \
                const T *xc0 = x + (n * C + c0) * Q;                                           \
                const T *dyc0 = dy + (n * C + c0) * P + q0;                                    \
                const int npf = (int)(C - c0 - GS_GG_CH < 0 ? 0                                \
                                      : (C - c0 - GS_GG_CH < cs ? C - c0 - GS_GG_CH : cs));    \
                if (nvg && vlev) /* (VEC: T is float) */                                       \
                    gs_gg_vbilin(vlev, (const float *)(const void *)xc0,                       \
                                 (const float *)(const void *)dyc0, Q, P, cs, vg, vfull, nvg,  \
                                 npf, p->in[2]);                                               \
                else if (nvg)                                                                  \
                    gs_gg_vbicubic((const float *)(const void *)xc0,                           \
                                   (const float *)(const void *)dyc0, Q, P, cs, cg, vfull, nvg, \
                                   npf);                                                       \
                for (int64_t r = 0; r < nr; r++)                                               \
                for (int64_t b = rb[r]; b < re[r]; b++) {                                      \
                    if (!act[b])                                                               \
                        continue;                                                              \
                    const int64_t *o = off + b * mt;                                           \
                    if (S == 2 && mt == 4 && nt[b] == 4 && b + 1 < np && act[b + 1] &&         \
                        nt[b + 1] == 4) { /* two points at once */                             \
                        GS_GG_PAIR2(T, PAIR);                                                  \
                        b++;                                                                   \
                        continue;                                                              \
                    }                                                                          \
                    if (S == 2 && nt[b] == 4 && mt == 4) { /* G2 = {G[1], G[2]} */             \
                        const drs_gs_v2d h[4] = {hv[b * 4], hv[b * 4 + 1], hv[b * 4 + 2],      \
                                                 hv[b * 4 + 3]};                               \
                        drs_gs_v2d g2 = G2[b];                                                 \
                        for (int i = 0; i < cs; i++) {                                         \
                            const T *xc = xc0 + i * Q;                                         \
                            const double d = (double)dyc0[i * P + b];                          \
                            drs_gs_v2d a = {0.0, 0.0};                                         \
                            GS_GG_DOT2(4, a, h, xc, o)                                         \
                            g2 += (drs_gs_v2d){d, d} * a;                                      \
                        }                                                                      \
                        G2[b] = g2;                                                            \
                        continue;                                                              \
                    }                                                                          \
                    for (int i = 0; i < cs; i++) {                                             \
                        const T *xc = xc0 + i * Q;                                             \
                        const double d = (double)dyc0[i * P + b];                              \
                        if (S == 2) {                                                          \
                            const drs_gs_v2d *h = hv + b * mt;                                 \
                            drs_gs_v2d a = {0.0, 0.0};                                         \
                            if (nt[b] == 16 && mt == 16)                                       \
                                GS_GG_DOT2(16, a, h, xc, o)                                    \
                            else                                                               \
                                GS_GG_DOT2(nt[b], a, h, xc, o)                                 \
                            G2[b] += (drs_gs_v2d){d, d} * a;                                   \
                            continue;                                                          \
                        }                                                                      \
                        double a[3] = {0.0, 0.0, 0.0};                                         \
                        for (int k = 0; k < nt[b]; k++) {                                      \
                            const double v = (double)xc[o[k]];                                 \
                            for (int ax = d0; ax < 3; ax++)                                    \
                                a[ax] += dw[ax][b * mt + k] * v;                               \
                        }                                                                      \
                        for (int ax = d0; ax < 3; ax++)                                        \
                            G[ax][b] += d * a[ax];                                             \
                    }                                                                          \
                }                                                                              \
            }                                                                                  \
            for (int64_t b = 0; b < nvg * DRS_GS_VP; b++) /* the groups' sums */               \
                if (vfull[b / DRS_GS_VP])                                                      \
                    G2[b] = vlev ? (drs_gs_v2d){vg[b / DRS_GS_VP].gy[b % DRS_GS_VP],           \
                                                vg[b / DRS_GS_VP].gx[b % DRS_GS_VP]}           \
                                 : (drs_gs_v2d){cg[b / DRS_GS_VP].gy[b % DRS_GS_VP],           \
                                                cg[b / DRS_GS_VP].gx[b % DRS_GS_VP]};          \
            for (int64_t b = 0; b < np; b++) {                                                 \
                GT *out = dg + (n * P + q0 + b) * S;                                           \
                if (S == 2) {                                                                  \
                    G[1][b] = G2[b][0];                                                        \
                    G[2][b] = G2[b][1];                                                        \
                }                                                                              \
                for (int k = 0; k < S; k++) { /* component k drives plan axis 2 - k */         \
                    const double v = m[3 * b + 2 - k] * G[2 - k][b];                           \
                    out[k] = accumulate ? (GT)((double)out[k] + v) : (GT)v;                    \
                }                                                                              \
            }                                                                                  \
        }                                                                                      \
    }
GS_GRID_GRAD(float, float, gs_grid_grad_f32_f32, gs_gg_pair_f32, 1)
GS_GRID_GRAD(float, double, gs_grid_grad_f32_f64, gs_gg_pair_f32, 1)
GS_GRID_GRAD(double, float, gs_grid_grad_f64_f32, gs_gg_pair_f64, 0)
GS_GRID_GRAD(double, double, gs_grid_grad_f64_f64, gs_gg_pair_f64, 0)

static void gs_grid_grad(const drs_gs_plan *p, const drs_tensor *data, const drs_tensor *dy,
                         const drs_tensor *grid, drs_tensor *dg, int accumulate, int64_t n0,
                         int64_t n1, const drs_gs_block *keep)
{
    const int gf = grid->dtype == DRS_F32;
    if (data->dtype == DRS_F32) {
        if (gf)
            gs_grid_grad_f32_f32(p, data->data, dy->data, grid, dg->data, accumulate, n0, n1, keep);
        else
            gs_grid_grad_f32_f64(p, data->data, dy->data, grid, dg->data, accumulate, n0, n1, keep);
    } else {
        if (gf)
            gs_grid_grad_f64_f32(p, data->data, dy->data, grid, dg->data, accumulate, n0, n1, keep);
        else
            gs_grid_grad_f64_f64(p, data->data, dy->data, grid, dg->data, accumulate, n0, n1, keep);
    }
}

/* ------------------------------------------------------------ data_delta */
/* data_delta[j] = data_delta[j] + (0.0 + the entries of pixel j in ascending
 * (point, tap) order), one sum per pixel in double.  Two schemes give these
 * same bits:
 *  - scatter (one image's taps in one block, at least 4 channel groups):
 *    groups of up to 8 channels, each thread adding the points in ascending
 *    order into its own channel-interleaved double planes (one vector add
 *    per tap), then one pass storing them.  The parallel tasks: whole images
 *    (enough images for the threads), (image, group) pairs (fewer images),
 *    the groups of one image, or for images of more than 65 536 pixels
 *    (group, band of 8 192 pixels) pairs, each band with its list of points;
 *  - gather: points in blocks of GS_BLOCK_ENTRIES entries, a stable
 *    counting sort of the block's entries by pixel (the transposed list),
 *    then parallel over pixels, each summing its entries in order.
 * Which one runs depends on the shapes only (gs_use_scatter), the bits on
 * neither. */
typedef struct gs_scratch {
    int64_t *tap_off;  /* [Pb * T] */
    double *tap_w;     /* [Pb * T] */
    int32_t *ntap;     /* [Pb] */
    int64_t *rowptr;   /* gather: [Q + 1] */
    int64_t *pt;       /* gather: [Pb * T] point of each transposed entry */
    double *w;         /* gather: [Pb * T] */
    double *plane;     /* scatter: [threads * Q * GS_VS] (banded: [threads * GS_BAND_PIX *
                        * GS_VS]), channel-interleaved */
    size_t plane_bytes; /* the plane's size when this scratch owns it, else 0 */
    int64_t nb;        /* banded scatter: bands (0: not banded) */
    int64_t *bstart;   /* banded: [nb + 1] first entry of each band's list */
    int64_t *bcnt;     /* banded: [threads * nb] counts, then fill positions */
    int32_t *bpts;     /* banded: [Pb * T] the points of each band, ascending */
    int threads;       /* the team size the scratch was sized for */
    int64_t cv;        /* (image, group) tasks: channels per group */
    unsigned char *hit; /* scatter, accumulate: [Q] pixel has an entry */
} gs_scratch;

static void scratch_free(gs_scratch *s)
{
    drs__scratch_put(s->tap_off);
    drs__scratch_put(s->tap_w);
    free(s->ntap);
    free(s->rowptr);
    drs__scratch_put(s->pt);
    drs__scratch_put(s->w);
    /* the scatter leaves its planes zero (as they came): the next call's
     * clear is skipped */
    if (s->plane_bytes)
        drs__scratch_put_zero(s->plane, s->plane_bytes);
    free(s->hit);
    free(s->bstart);
    free(s->bcnt);
    drs__scratch_put(s->bpts);
}

/* The taps of the points [p0, p1) of image n, parallel over runs of points. */
static void gs_taps_parallel(const drs_gs_plan *p, const drs_tensor *grid, int64_t n, int64_t p0,
                             int64_t p1, gs_scratch *s)
{
    const int T = p->max_taps;
    const int64_t run = 256, nr = (p1 - p0 + run - 1) / run;
    _Pragma("omp parallel for schedule(static) num_threads(((p1 - p0) * T > PAR_MIN_WORK) ? drs__nthreads() : 1)")
    for (int64_t r = 0; r < nr; r++) {
        const int64_t b0 = r * run, b1 = b0 + run < p1 - p0 ? b0 + run : p1 - p0;
        const drs_gs_block bt = {s->tap_off + b0 * T, s->tap_w + b0 * T, s->ntap + b0,
                                 {NULL, NULL, NULL}, NULL};
        drs_gs_block_taps(p, grid, n * p->P + p0 + b0, b1 - b0, &bt);
    }
}

/* The stable transpose of the block's taps (gather scheme). */
static void gs_block_transpose(const drs_gs_plan *p, int64_t p0, int64_t nb, gs_scratch *s)
{
    const int T = p->max_taps;
    const int64_t Q = p->Q;
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
        _Pragma("omp parallel for schedule(static) num_threads((Q * C > PAR_MIN_WORK) ? drs__nthreads() : 1)")                 \
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

/* The channel count by which the scheme choice (gs_use_scatter) measures a
 * thread's planes: 4 on planes of up to 65,536 pixels, else 1 (the limits of
 * an earlier scalar scatter, kept so that the same shapes take the scatter
 * scheme). */
#define GS_SCATTER_CH 4
static int gs_scatter_group(const drs_gs_plan *p)
{
    return p->Q <= 65536 ? GS_SCATTER_CH : 1;
}

/* The vector scatter: the nc (<= GS_VS) channels of a group as the lanes of
 * a vector of GS_VS doubles, their planes interleaved pixel by pixel (acc
 * [Q][GS_VS]), so that a tap adds w * d to the pixel's sums of every channel
 * in one vector operation, without conflicts (one lane per channel, the
 * points in ascending order).  Each lane's sum is the gather scheme's: the
 * same products w * d added in the same order, so the same bits.  dy is
 * turned lane-wise a chunk of points at a time (lanes >= nc stay 0). */
#define GS_VS 8
#define GS_VS_CHUNK 128
/* A thread's planes are GS_VS * Q doubles, at most GS_VS_SMALL_DOUBLES
 * (4 MiB, 65 536 pixels); larger images take the banded scatter, whose
 * planes hold one band (gs_banded_f32). */
#define GS_VS_SMALL_DOUBLES ((int64_t)1 << 19)
/* the most taps of all images held at once by the (image, group) tasks
 * (16 bytes each: 64 MiB) */
#define GS_ALL_ENTRIES ((int64_t)1 << 22)
typedef drs_gs_v8d gs_vsd; /* GS_VS doubles */
_Static_assert(GS_VS == 8, "gs_vsd is drs_gs_v8d");
#define GS_VSCATTER(T, NAME)                                                                   \
    DRS_SIMD_FN(NAME,                                                                          \
                (const T *dyc, int64_t P, int nc, const int64_t *toff, const double *tw,       \
                 const int32_t *ntap, int mt, gs_vsd *acc),                                    \
                (dyc, P, nc, toff, tw, ntap, mt, acc), {                                       \
                    gs_vsd dbuf[GS_VS_CHUNK];                                                  \
                    for (int b = 0; b < GS_VS_CHUNK; b++)                                      \
                        dbuf[b] = (gs_vsd){0.0};                                               \
                    for (int64_t q0 = 0; q0 < P; q0 += GS_VS_CHUNK) {                          \
                        const int m = P - q0 < GS_VS_CHUNK ? (int)(P - q0) : GS_VS_CHUNK;      \
                        for (int i = 0; i < nc; i++)                                           \
                            for (int b = 0; b < m; b++)                                        \
                                dbuf[b][i] = (double)dyc[i * P + q0 + b];                      \
                        for (int b = 0; b < m; b++) {                                          \
                            const int64_t q = q0 + b;                                          \
                            const int64_t *o = toff + q * mt;                                  \
                            const double *w = tw + q * mt;                                     \
                            const gs_vsd d = dbuf[b];                                          \
                            if (ntap[q] == 4 && mt == 4) {                                     \
                                acc[o[0]] += w[0] * d;                                         \
                                acc[o[1]] += w[1] * d;                                         \
                                acc[o[2]] += w[2] * d;                                         \
                                acc[o[3]] += w[3] * d;                                         \
                            } else {                                                           \
                                for (int k = 0; k < ntap[q]; k++)                              \
                                    acc[o[k]] += w[k] * d;                                     \
                            }                                                                  \
                        }                                                                      \
                    }                                                                          \
                })
GS_VSCATTER(float, gs_vscatter_f32)
GS_VSCATTER(double, gs_vscatter_f64)

/* Overwrite, f32, a group of GS_VS channels: dx[i * Q + j] = (float)(0.0 +
 * acc[j][i]) for j in [0, len), 8 pixels at a time through an 8 x 8
 * transpose (the same operations per element as the scalar store), and acc
 * zeroed for the next group. */
DRS_SIMD_FN(gs_vstore8_f32, (gs_vsd *acc, float *dx, int64_t len, int64_t Q), (acc, dx, len, Q), {
    int64_t j = 0;
    for (; j + 8 <= len; j += 8) {
        drs_gs_v8d a[8];
        for (int r = 0; r < 8; r++) {
            a[r] = (gs_vsd){0.0} + acc[j + r];
            acc[j + r] = (gs_vsd){0.0};
        }
        drs_gs_transpose8(a); /* a[i]: channel i's 8 pixels */
        for (int i = 0; i < 8; i++) {
            const drs_gs_v8f f = __builtin_convertvector(a[i], drs_gs_v8f);
            memcpy(dx + i * Q + j, &f, sizeof f);
        }
    }
    for (; j < len; j++) {
        const gs_vsd a = acc[j];
        for (int i = 0; i < 8; i++)
            dx[i * Q + j] = (float)(0.0 + a[i]);
        acc[j] = (gs_vsd){0.0};
    }
})
#define gs_vscatter_T(T) _Generic((T *)0, float *: gs_vscatter_f32, double *: gs_vscatter_f64)

/* The sums of a group of nc channels for len pixels (acc[j][i] -> dxg[i * Q
 * + j]), acc zeroed for the next group: overwrite stores 0.0 + sum (the
 * zeroed data_delta plus the sum), accumulate adds the sum to the pixels
 * that have an entry (hit, indexed like acc). */
#define GS_STORE_GROUP(T, NAME)                                                                \
    static void NAME(gs_vsd *acc, T *dxg, int64_t len, int64_t Q, int nc,                      \
                     const unsigned char *hit, int accumulate)                                 \
    {                                                                                          \
        if (sizeof(T) == 4 && nc == GS_VS && !accumulate) {                                    \
            gs_vstore8_f32(acc, (float *)(void *)dxg, len, Q);                                 \
            return;                                                                            \
        }                                                                                      \
        for (int64_t j = 0; j < len; j++) {                                                    \
            const gs_vsd a = acc[j];                                                           \
            if (!accumulate)                                                                   \
                for (int i = 0; i < nc; i++)                                                   \
                    dxg[i * Q + j] = (T)(0.0 + a[i]);                                          \
            else if (hit[j])                                                                   \
                for (int i = 0; i < nc; i++)                                                   \
                    dxg[i * Q + j] = (T)((double)dxg[i * Q + j] + a[i]);                       \
            acc[j] = (gs_vsd){0.0};                                                            \
        }                                                                                      \
    }
GS_STORE_GROUP(float, gs_store_group_f32)
GS_STORE_GROUP(double, gs_store_group_f64)
#define gs_store_group_T(T) _Generic((T *)0, float *: gs_store_group_f32, double *: gs_store_group_f64)

/* One channel group of image n: channels [c0, c0 + nc) scattered through
 * the image's taps (toff, tw, ntap) into acc (zero on entry and on exit),
 * then stored (gs_store_group_T). */
#define GS_SCATTER_GROUP(T, NAME)                                                              \
    static void NAME(const drs_gs_plan *p, const T *dy, T *dx, int64_t n, int64_t c0, int nc,  \
                     const int64_t *toff, const double *tw, const int32_t *ntap,               \
                     const unsigned char *hit, int accumulate, gs_vsd *acc)                    \
    {                                                                                          \
        const int64_t C = p->C, P = p->P, Q = p->Q;                                            \
        gs_vscatter_T(T)(dy + (n * C + c0) * P, P, nc, toff, tw, ntap, p->max_taps, acc);      \
        gs_store_group_T(T)(acc, dx + (n * C + c0) * Q, Q, Q, nc, hit, accumulate);            \
    }
GS_SCATTER_GROUP(float, gs_scatter_group_f32)
GS_SCATTER_GROUP(double, gs_scatter_group_f64)

/* Scatter scheme for image n (all its taps in s): parallel over groups of
 * channels, each thread's planes (zero on entry and on exit) summing the points in
 * ascending order.  Groups of up to GS_VS channels through the vector
 * scatter (fewer when that leaves a thread of the team without a group: the
 * grouping changes no bit). */
#define GS_DATA_SCATTER(T, NAME, GROUP)                                                        \
    static void NAME(const drs_gs_plan *p, const T *dy, T *dx, int64_t n, const gs_scratch *s, \
                     int accumulate)                                                           \
    {                                                                                          \
        const int64_t C = p->C, P = p->P, Q = p->Q;                                            \
        int64_t cv = GS_VS; /* channels per group */                                           \
        if ((C + GS_VS - 1) / GS_VS < s->threads)                                              \
            cv = (C + s->threads - 1) / s->threads;                                            \
        const int64_t nvg = (C + cv - 1) / cv;                                                 \
        _Pragma("omp parallel for schedule(static) num_threads((P * C > PAR_MIN_WORK) ? s->threads : 1)") \
        for (int64_t g = 0; g < nvg; g++) {                                                    \
            const int64_t c0 = g * cv;                                                         \
            const int nc = C - c0 < cv ? (int)(C - c0) : (int)cv;                              \
            gs_vsd *acc = (gs_vsd *)(void *)(s->plane +                                        \
                                             (int64_t)omp_get_thread_num() * GS_VS * Q);       \
            GROUP(p, dy, dx, n, c0, nc, s->tap_off, s->tap_w, s->ntap, s->hit, accumulate,     \
                  acc);                                                                        \
        }                                                                                      \
    }
GS_DATA_SCATTER(float, gs_scatter_f32, gs_scatter_group_f32)
GS_DATA_SCATTER(double, gs_scatter_f64, gs_scatter_group_f64)

/* The banded scatter (large images): the pixels in bands of GS_BAND_PIX
 * (planes of 512 KiB, which stay in a core's L2 where a whole image's 16 MiB
 * did not), each band with the ascending list of the points that have a tap
 * in it, and tasks (channel group, band) for every thread.  A pixel's sum
 * still adds its taps in ascending (point, tap) order: the same bits as the
 * unbanded scatter and the gather. */
#define GS_BAND_PIX ((int64_t)8192)

/* The bands' point lists of the image whose taps are in s: a counting sort
 * by band over s->threads chunks of points (in order, so each list
 * ascends), each point listed once in every band from the lowest to the
 * highest its taps reach (a band between them with none of its taps gets
 * nothing from it: the scatter checks each tap's band). */
static void gs_bands_build(const drs_gs_plan *p, const gs_scratch *s)
{
    const int64_t P = p->P, nb = s->nb, mt = p->max_taps;
    const int nch = s->threads;
    const int64_t per = (P + nch - 1) / nch;
    for (int pass = 0; pass < 2; pass++) {
        _Pragma("omp parallel for schedule(static) num_threads((P * mt > PAR_MIN_WORK) ? nch : 1)")
        for (int c = 0; c < nch; c++) {
            int64_t *cnt = s->bcnt + (int64_t)c * nb;
            const int64_t q0 = c * per < P ? c * per : P, q1 = q0 + per < P ? q0 + per : P;
            if (pass == 0)
                for (int64_t b = 0; b < nb; b++)
                    cnt[b] = 0;
            for (int64_t q = q0; q < q1; q++) {
                const int64_t *o = s->tap_off + q * mt;
                const int n = s->ntap[q];
                if (n == 0)
                    continue;
                int64_t lo = o[0], hi = o[0];
                for (int k = 1; k < n; k++) {
                    lo = o[k] < lo ? o[k] : lo;
                    hi = o[k] > hi ? o[k] : hi;
                }
                for (int64_t b = lo / GS_BAND_PIX; b <= hi / GS_BAND_PIX; b++) {
                    if (pass == 0)
                        cnt[b]++;
                    else
                        s->bpts[cnt[b]++] = (int32_t)q;
                }
            }
        }
        if (pass == 0) { /* chunk c's entries of band b follow those of chunks < c */
            int64_t at = 0;
            for (int64_t b = 0; b < nb; b++) {
                s->bstart[b] = at;
                for (int c = 0; c < nch; c++) {
                    const int64_t k = s->bcnt[(int64_t)c * nb + b];
                    s->bcnt[(int64_t)c * nb + b] = at;
                    at += k;
                }
            }
            s->bstart[nb] = at;
        }
    }
}

/* acc[j - j0] += w * d for the taps in [j0, j0 + len) of the listed points */
#define GS_BSCATTER(T, NAME)                                                                   \
    DRS_SIMD_FN(NAME,                                                                          \
                (const T *dyc, int64_t P, int nc, const int64_t *toff, const double *tw,       \
                 const int32_t *ntap, int mt, const int32_t *pts, int64_t e0, int64_t e1,      \
                 int64_t j0, int64_t len, gs_vsd *acc),                                        \
                (dyc, P, nc, toff, tw, ntap, mt, pts, e0, e1, j0, len, acc), {                 \
                    for (int64_t e = e0; e < e1; e++) {                                        \
                        const int64_t q = pts[e];                                              \
                        gs_vsd d = {0.0};                                                      \
                        if (nc == GS_VS) { /* in the registers: lanes stored one by one and  \
                                            * read back as a vector stalled every point */    \
                            const T *y = dyc + q;                                              \
                            d = (gs_vsd){(double)y[0],     (double)y[P],                       \
                                         (double)y[2 * P], (double)y[3 * P],                   \
                                         (double)y[4 * P], (double)y[5 * P],                   \
                                         (double)y[6 * P], (double)y[7 * P]};                  \
                        } else {                                                               \
                            for (int i = 0; i < nc; i++)                                       \
                                d[i] = (double)dyc[i * P + q];                                 \
                        }                                                                      \
                        const int64_t *o = toff + q * mt;                                      \
                        const double *w = tw + q * mt;                                         \
                        for (int k = 0; k < ntap[q]; k++) {                                    \
                            const int64_t j = o[k] - j0;                                       \
                            if ((uint64_t)j < (uint64_t)len)                                   \
                                acc[j] += w[k] * d;                                            \
                        }                                                                      \
                    }                                                                          \
                })
GS_BSCATTER(float, gs_bscatter_f32)
GS_BSCATTER(double, gs_bscatter_f64)
#define gs_bscatter_T(T) _Generic((T *)0, float *: gs_bscatter_f32, double *: gs_bscatter_f64)

/* Image n through the bands: tasks (group of GS_VS channels, band), each
 * thread's planes zero on entry and on exit, stored by gs_store_group_T. */
#define GS_DATA_BANDED(T, NAME)                                                                \
    static void NAME(const drs_gs_plan *p, const T *dy, T *dx, int64_t n, const gs_scratch *s, \
                     int accumulate)                                                           \
    {                                                                                          \
        const int64_t C = p->C, P = p->P, Q = p->Q, nb = s->nb;                                \
        const int64_t nvg = (C + GS_VS - 1) / GS_VS;                                           \
        _Pragma("omp parallel for schedule(static) num_threads((P * C > PAR_MIN_WORK) ? s->threads : 1)") \
        for (int64_t t = 0; t < nvg * nb; t++) {                                               \
            const int64_t g = t / nb, b = t % nb, c0 = g * GS_VS;                              \
            const int nc = C - c0 < GS_VS ? (int)(C - c0) : GS_VS;                             \
            const int64_t j0 = b * GS_BAND_PIX;                                                \
            const int64_t len = Q - j0 < GS_BAND_PIX ? Q - j0 : GS_BAND_PIX;                   \
            gs_vsd *acc = (gs_vsd *)(void *)(s->plane + (int64_t)omp_get_thread_num() *        \
                                                            GS_VS * GS_BAND_PIX);              \
            gs_bscatter_T(T)(dy + (n * C + c0) * P, P, nc, s->tap_off, s->tap_w, s->ntap,      \
                             p->max_taps, s->bpts, s->bstart[b], s->bstart[b + 1], j0, len,    \
                             acc);                                                             \
            gs_store_group_T(T)(acc, dx + (n * C + c0) * Q + j0, len, Q, nc,                   \
                                accumulate ? s->hit + j0 : NULL, accumulate);                  \
        }                                                                                      \
    }
GS_DATA_BANDED(float, gs_banded_f32)
GS_DATA_BANDED(double, gs_banded_f64)

/* Every image's taps at once (the (image, group) tasks), parallel over runs
 * of points of all images: image n's taps at entry n * P * max_taps. */
static void gs_taps_all(const drs_gs_plan *p, const drs_tensor *grid, const gs_scratch *s)
{
    const int T = p->max_taps;
    const int64_t P = p->P, run = 256, nr = (p->N * P + run - 1) / run;
    _Pragma("omp parallel for schedule(static) num_threads((p->N * P * T > PAR_MIN_WORK) ? drs__nthreads() : 1)")
    for (int64_t r = 0; r < nr; r++) {
        const int64_t b0 = r * run, b1 = b0 + run < p->N * P ? b0 + run : p->N * P;
        const drs_gs_block bt = {s->tap_off + b0 * T, s->tap_w + b0 * T, s->ntap + b0,
                                 {NULL, NULL, NULL}, NULL};
        drs_gs_block_taps(p, grid, b0, b1 - b0, &bt);
    }
}

/* The channels per group of the (image, channel group) tasks: GS_VS, fewer
 * when the tasks would leave some of the threads idle. */
static int64_t gs_all_cv(const drs_gs_plan *p, int threads)
{
    if (p->N * ((p->C + GS_VS - 1) / GS_VS) >= threads)
        return GS_VS;
    const int64_t per = (threads + p->N - 1) / p->N; /* groups per image */
    return (p->C + per - 1) / per;
}

/* The scatter as (image, channel group) tasks (overwrite): every image's taps
 * are in s (entry n * P * max_taps), each thread scatters its tasks into its
 * own planes, groups of s->cv channels; the same sums as gs_scatter_T, so the
 * same bits. */
#define GS_DATA_SCATTER_ALL(T, NAME, GROUP)                                                    \
    static void NAME(const drs_gs_plan *p, const T *dy, T *dx, const gs_scratch *s)            \
    {                                                                                          \
        const int64_t N = p->N, C = p->C, P = p->P, Q = p->Q, mt = p->max_taps;                \
        const int64_t cv = s->cv, nvg = (C + cv - 1) / cv;                                     \
        _Pragma("omp parallel for schedule(static) num_threads((N * P * C > PAR_MIN_WORK) ? s->threads : 1)") \
        for (int64_t t = 0; t < N * nvg; t++) {                                                \
            const int64_t n = t / nvg, c0 = (t % nvg) * cv;                                    \
            const int nc = C - c0 < cv ? (int)(C - c0) : (int)cv;                              \
            gs_vsd *acc = (gs_vsd *)(void *)(s->plane +                                        \
                                             (int64_t)omp_get_thread_num() * GS_VS * Q);       \
            GROUP(p, dy, dx, n, c0, nc, s->tap_off + n * P * mt, s->tap_w + n * P * mt,        \
                  s->ntap + n * P, NULL, 0, acc);                                              \
        }                                                                                      \
    }
GS_DATA_SCATTER_ALL(float, gs_scatter_all_f32, gs_scatter_group_f32)
GS_DATA_SCATTER_ALL(double, gs_scatter_all_f64, gs_scatter_group_f64)

/* The scatter scheme needs one image's taps in one block, planes of at most
 * GS_BLOCK_ENTRIES / 4 / gs_scatter_group doubles (the limits of an earlier
 * scalar scatter, which now only choose the scheme), and at least 4 channel
 * groups to share among the threads (with fewer, the gather is parallel over
 * pixels instead).  The choice depends on the shapes only, never on the thread
 * count: the two schemes add the same terms in the same order, but a NaN
 * meeting another NaN may keep either one's sign and payload depending on
 * how the compiler ordered the operands, so even NaN bits stay the same at
 * every thread count. */
static int gs_use_scatter(const drs_gs_plan *p, int64_t Pb)
{
    const int cg = gs_scatter_group(p);
    const int64_t groups = (p->C + cg - 1) / cg;
    return Pb == p->P && p->Q <= GS_BLOCK_ENTRIES / 4 / cg && groups >= 4;
}

/* Images as the parallel tasks (scatter scheme, one parallel loop over the
 * images, each thread doing whole images with its own scratch: no barrier
 * per image) when there are enough images to share evenly.  Each image's
 * grid gradient and scatter are the very same operations either way, so
 * this choice, made from the thread count, changes no bit. */
static int gs_image_tasks(const drs_gs_plan *p, int scatter, int threads)
{
    return scatter && threads > 1 && p->N >= threads &&
           (p->N % threads == 0 || p->N >= 4 * (int64_t)threads);
}

/* shared_plane: image tasks, the thread's part of one block of planes for
 * the whole team (owned by the caller); NULL: the scratch gets its own. */
static drs_status gs_scratch_alloc(const drs_gs_plan *p, int64_t Pb, int scatter, int banded,
                                   int threads, int accumulate, double *shared_plane,
                                   gs_scratch *s)
{
    memset(s, 0, sizeof *s);
    s->threads = threads;
    const int64_t E = Pb * p->max_taps; /* <= GS_BLOCK_ENTRIES (or one point's taps) */
    /* the tap lists (and the band and transposed lists) through the scratch
     * cache: kept between calls when large, where glibc maps and faults in
     * such blocks afresh on some calls */
    s->tap_off = drs__scratch_get((size_t)E * sizeof(int64_t), 0);
    s->tap_w = drs__scratch_get((size_t)E * sizeof(double), 0);
    s->ntap = drs__malloc((size_t)Pb * sizeof(int32_t));
    int ok = s->tap_off && s->tap_w && s->ntap;
    if (scatter) {
        /* zero: every scatter leaves its planes zero and scratch_free gives
         * them back marked so (drs__scratch_put_zero), so a kept block is
         * cleared only where it is not known to be zero */
        const size_t np =
            (size_t)threads * (size_t)GS_VS * (size_t)(banded ? GS_BAND_PIX : p->Q);
        if (banded) {
            s->nb = (p->Q + GS_BAND_PIX - 1) / GS_BAND_PIX;
            s->bstart = drs__malloc((size_t)(s->nb + 1) * sizeof(int64_t));
            s->bcnt = drs__malloc((size_t)threads * (size_t)s->nb * sizeof(int64_t));
            s->bpts = drs__scratch_get((size_t)E * sizeof(int32_t), 0);
            ok = ok && s->bstart && s->bcnt && s->bpts;
        }
        if (shared_plane) {
            s->plane = shared_plane;
        } else if (np <= SIZE_MAX / sizeof(double)) {
            s->plane = drs__scratch_get(np * sizeof(double), 1);
            s->plane_bytes = s->plane ? np * sizeof(double) : 0;
        }
        if (accumulate)
            s->hit = drs__malloc((size_t)p->Q);
        ok = ok && s->plane && (!accumulate || s->hit);
    } else {
        s->pt = drs__scratch_get((size_t)E * sizeof(int64_t), 0);
        s->w = drs__scratch_get((size_t)E * sizeof(double), 0);
        if (p->Q < INT64_MAX / 8 - 1)
            s->rowptr = drs__malloc((size_t)(p->Q + 1) * sizeof(int64_t));
        ok = ok && s->pt && s->w && s->rowptr;
    }
    if (!ok) {
        scratch_free(s);
        return drs__fail(DRS_ERR_NOMEM, "%s backward: out of memory (tap list of %lld entries "
                         "over %lld pixels)",
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
    gs_scratch sc, *st = NULL; /* st: image tasks, one scratch per thread */
    double *tplanes = NULL;    /* image tasks: the team's planes */
    memset(&sc, 0, sizeof sc);
    int64_t Pb = 0;
    const int64_t nx = p.N * p.C * p.Q;
    const int want_dx = data_delta && nx > 0;
    int scatter = 0, tasks = 0, all = 0, banded = 0;
    const int threads = drs__nthreads();
    int team = threads; /* the scatter's team: no more threads than tasks */
    int64_t cv = 0;     /* (image, group) tasks: channels per group */
    size_t tbytes = 0;  /* image tasks: the team's planes, in bytes */
    if (want_dx && p.P > 0) {
        Pb = GS_BLOCK_ENTRIES / p.max_taps;
        if (Pb > p.P)
            Pb = p.P;
        scatter = gs_use_scatter(&p, Pb);
        /* large planes: the banded scatter, one image at a time, every thread */
        banded = scatter && GS_VS * p.Q > GS_VS_SMALL_DOUBLES;
        tasks = !banded && gs_image_tasks(&p, scatter, threads);
        /* fewer images than threads (or not an even share): (image, channel
         * group) tasks over every image's taps at once, one barrier, when
         * those taps fit GS_ALL_ENTRIES */
        all = scatter && !banded && !tasks && !accumulate && threads > 1 && p.N > 1 &&
              p.N * p.P <= GS_ALL_ENTRIES / p.max_taps;
        /* planes for as many threads as there are tasks, no more */
        if (all || banded) {
            if (all)
                cv = gs_all_cv(&p, threads);
            const int64_t nt = all ? p.N * ((p.C + cv - 1) / cv)
                                   : (p.C + GS_VS - 1) / GS_VS *
                                         ((p.Q + GS_BAND_PIX - 1) / GS_BAND_PIX);
            if (nt < team)
                team = (int)nt;
        }
        if (tasks) {
            /* one block of planes for the team (kept between calls when large) */
            const size_t tp = (size_t)GS_VS * (size_t)p.Q; /* a thread's planes */
            st = drs__calloc((size_t)threads, sizeof *st);
            if (tp <= SIZE_MAX / sizeof(double) / (size_t)threads)
                tbytes = (size_t)threads * tp * sizeof(double);
            tplanes = st && tbytes ? drs__scratch_get(tbytes, 1) : NULL;
            if (!st || !tplanes) {
                free(st);
                drs__scratch_put_zero(tplanes, 0);
                return drs__fail(DRS_ERR_NOMEM, "%s backward: out of memory", op);
            }
            for (int t = 0; t < threads; t++)
                if ((s = gs_scratch_alloc(&p, Pb, 1, 0, 1, accumulate, tplanes + (size_t)t * tp,
                                          &st[t])) != DRS_OK) {
                    for (int u = 0; u < t; u++)
                        scratch_free(&st[u]);
                    free(st);
                    drs__scratch_put_zero(tplanes, tbytes);
                    return s;
                }
        } else if ((s = gs_scratch_alloc(&p, all ? p.N * p.P : Pb, scatter, banded, team,
                                         accumulate, NULL, &sc)) != DRS_OK) {
            return s;
        }
    }

    /* scatter scheme with a grid gradient: the grid gradient of each image
     * computes the taps the scatter needs (computed once) */
    const int keep = scatter && grid_delta && p.mode != DRS_GRID_NEAREST;
    const drs_gs_block kb = {sc.tap_off, sc.tap_w, sc.ntap, {NULL, NULL, NULL}, NULL};
    if (grid_delta && p.N * p.P > 0 && p.C == 0) {
        /* no channel contributes (and the data's pixel count may not even be
         * representable): the gradient is 0 */
        if (!accumulate)
            memset(grid_delta->data, 0, (size_t)(p.N * p.P * p.S) * drs_dtype_size(grid->dtype));
    } else if (grid_delta && p.N * p.P > 0 && !keep) {
        gs_grid_grad(&p, data, output_delta, grid, grid_delta, accumulate, 0, p.N, NULL);
    }
    if (want_dx && tasks) { /* p.P > 0; the scatter stores every pixel */
        const int f32 = data->dtype == DRS_F32;
        _Pragma("omp parallel for schedule(static) num_threads(threads)")
        for (int64_t n = 0; n < p.N; n++) {
            gs_scratch *ts = &st[omp_get_thread_num()];
            const drs_gs_block tb = {ts->tap_off, ts->tap_w, ts->ntap, {NULL, NULL, NULL}, NULL};
            if (keep) /* (nested: the inner loops run on this thread) */
                gs_grid_grad(&p, data, output_delta, grid, grid_delta, accumulate, n, n + 1, &tb);
            else
                gs_taps_parallel(&p, grid, n, 0, p.P, ts);
            if (accumulate) {
                memset(ts->hit, 0, (size_t)p.Q);
                for (int64_t e = 0; e < p.P; e++)
                    for (int k = 0; k < ts->ntap[e]; k++)
                        ts->hit[ts->tap_off[e * p.max_taps + k]] = 1;
            }
            if (f32)
                gs_scatter_f32(&p, output_delta->data, data_delta->data, n, ts, accumulate);
            else
                gs_scatter_f64(&p, output_delta->data, data_delta->data, n, ts, accumulate);
        }
        for (int t = 0; t < threads; t++)
            scratch_free(&st[t]);
        free(st);
        drs__scratch_put_zero(tplanes, tbytes);
    } else if (want_dx && all) { /* p.P > 0, overwrite; the scatter stores every pixel */
        sc.cv = cv;
        if (keep)
            gs_grid_grad(&p, data, output_delta, grid, grid_delta, accumulate, 0, p.N, &kb);
        else
            gs_taps_all(&p, grid, &sc);
        if (data->dtype == DRS_F32)
            gs_scatter_all_f32(&p, output_delta->data, data_delta->data, &sc);
        else
            gs_scatter_all_f64(&p, output_delta->data, data_delta->data, &sc);
        scratch_free(&sc);
    } else if (want_dx) {
        if (!accumulate && !scatter) /* the scatter stores every pixel */
            memset(data_delta->data, 0, (size_t)nx * drs_dtype_size(data->dtype));
        const int f32 = data->dtype == DRS_F32;
        for (int64_t n = 0; n < p.N && p.P > 0; n++)
            for (int64_t p0 = 0; p0 < p.P; p0 += Pb) {
                const int64_t p1 = p0 + Pb < p.P ? p0 + Pb : p.P;
                if (keep) /* p0 = 0, p1 = P */
                    gs_grid_grad(&p, data, output_delta, grid, grid_delta, accumulate, n, n + 1,
                                 &kb);
                else
                    gs_taps_parallel(&p, grid, n, p0, p1, &sc);
                if (scatter) { /* p0 = 0, p1 = P */
                    if (accumulate) {
                        memset(sc.hit, 0, (size_t)p.Q);
                        for (int64_t e = 0; e < p.P; e++)
                            for (int k = 0; k < sc.ntap[e]; k++)
                                sc.hit[sc.tap_off[e * p.max_taps + k]] = 1;
                    }
                    if (banded)
                        gs_bands_build(&p, &sc);
                    if (f32)
                        (banded ? gs_banded_f32 : gs_scatter_f32)(
                            &p, output_delta->data, data_delta->data, n, &sc, accumulate);
                    else
                        (banded ? gs_banded_f64 : gs_scatter_f64)(
                            &p, output_delta->data, data_delta->data, n, &sc, accumulate);
                    continue;
                }
                gs_block_transpose(&p, p0, p1 - p0, &sc);
                if (f32)
                    gs_gather_f32(&p, output_delta->data, data_delta->data, n, &sc);
                else
                    gs_gather_f64(&p, output_delta->data, data_delta->data, n, &sc);
            }
        if (p.P > 0)
            scratch_free(&sc);
    }
    return DRS_OK;
}
