/* SPDX-License-Identifier: MIT */
/* grid_sample.h — private: the GridSample plan and the per-point tap list
 * shared by forward/grid_sample.c and backward/grid_sample_backward.c.
 *
 * Every spatial rank is handled as 3-D: a 4-D call [N,C,H,W] is viewed as
 * [N,C,1,H,W] with a dummy depth axis of one tap, so there is one code path.
 * Axis order inside the plan is the tensor's (D, H, W); the grid lists the
 * coordinates innermost-first (x -> W, y -> H, z -> D), so grid component k
 * drives plan axis 2 - k. */
#ifndef DRS_GRID_SAMPLE_H
#define DRS_GRID_SAMPLE_H

#include "core.h"

#define DRS_GS_MAX_TAPS 64 /* tricubic: 4 x 4 x 4 */
#define DRS_GS_BLOCK_ENTRIES 1024 /* taps of one block of points (>= DRS_GS_MAX_TAPS) */

typedef struct drs_gs_plan {
    const char *op;          /* "GridSample-9", ... (messages) */
    int version;
    int S;                   /* spatial rank 1..3 */
    drs_grid_mode mode;
    drs_grid_padding pad;
    int align;
    int onnx;                /* ONNX reference semantics (cubic+border clamps the coordinate) */
    int64_t N, C;
    int64_t in[3];           /* D, H, W (leading 1s when S < 3) */
    int64_t out[3];          /* Do, Ho, Wo */
    int64_t P;               /* output points per image */
    int64_t Q;               /* pixels per channel plane */
    int out_rank;
    int64_t out_shape[DRS_MAX_RANK];
    int max_taps;            /* taps per point: 1, 2^S or 4^S */
} drs_gs_plan;

/* The taps of one output point: plane offsets, weights, and (want_grad) the
 * derivative of each weight w.r.t. the source coordinate of each axis, plus
 * the multiplier m[axis] = du/dg * kappa (0 for nearest and non-finite g). */
typedef struct drs_gs_taps {
    int n;
    int64_t off[DRS_GS_MAX_TAPS];
    double w[DRS_GS_MAX_TAPS];
    double dw[3][DRS_GS_MAX_TAPS];
    double m[3];
} drs_gs_taps;

/* Two doubles as one vector (GCC/clang vector extension): lane-wise IEEE
 * operations, the same bits as two scalar ones. */
typedef double drs_gs_v2d __attribute__((vector_size(16)));

/* The taps of a run of consecutive points, max_taps slots per point: point i's
 * taps are off/w[i * max_taps + k] for k < nt[i].  With grad (dw[0..2] and m
 * set), also the weight derivatives per axis (dw[d][i * max_taps + k]; only
 * the axes of the data's spatial rank are written) and m[3 * i + d]. */
typedef struct drs_gs_block {
    int64_t *off;
    double *w;
    int32_t *nt;
    double *dw[3]; /* NULL: no derivatives */
    double *m;     /* NULL: no derivatives */
} drs_gs_block;

/* Validates attrs, data and grid (every rejection rule that concerns them) and
 * fills the plan.  need_data: the data pointers must be set (not for shape
 * inference, which reads shapes only). */
drs_status drs_gs_plan_make(drs_gs_plan *p, const drs_grid_sample_attrs *a, const drs_tensor *data,
                            const drs_tensor *grid, int need_data);
/* Reads grid point `pt` (flat over N * P) as doubles, innermost-first. */
void drs_gs_read_point(const drs_gs_plan *p, const drs_tensor *grid, int64_t pt, double g[3]);
void drs_gs_point_taps(const drs_gs_plan *p, const double g[3], int want_grad, drs_gs_taps *t);
/* The taps of points [pt0, pt0 + np) (flat over N * P, within one image) into
 * b; a 2-D grid takes a path without the depth axis (the same bits as
 * drs_gs_point_taps). */
void drs_gs_block_taps(const drs_gs_plan *p, const drs_tensor *grid, int64_t pt0, int64_t np,
                       const drs_gs_block *b);
/* Checks a caller tensor against an expected dtype and shape. */
drs_status drs_gs_check_like(const char *op, const char *name, const drs_tensor *t,
                             drs_dtype dtype, int rank, const int64_t *shape);

/* 2-D bilinear f32 in vector groups (the forward and the grid gradient):
 * DRS_GS_VP consecutive points whose 4 taps are all present, i.e. two pairs
 * of adjacent pixels starting at o0[l] and o2[l] (= o0[l] + W), the lanes
 * being the points.  Each pair is one 64-bit gather per point. */
#define DRS_GS_VP 8
/* the level of the vector groups: 0 (none: the scalar paths), else
 * DRS_SIMD_AVX2 or DRS_SIMD_AVX512 */
static inline int drs_gs_vlevel(void)
{
#if DRS_SIMD_MULTI
    return drs__simd_level();
#else
    return 0;
#endif
}
/* 8 x 8 doubles, generic vectors (every SIMD variant, the same bits):
 * drs_gs_transpose8 turns rows a[r][i] into columns, a[i][r]. */
typedef double drs_gs_v8d __attribute__((vector_size(64), aligned(8)));
typedef float drs_gs_v8f __attribute__((vector_size(32), aligned(4)));
/* (__builtin_shufflevector: GCC >= 12 and Clang) */
#define DRS_GS_SHUF8(a, b, ...) __builtin_shufflevector((a), (b), __VA_ARGS__)
static inline __attribute__((always_inline)) void drs_gs_transpose8(drs_gs_v8d a[8])
{
    drs_gs_v8d b[8], c[8];
    for (int r = 0; r < 8; r += 2) { /* pairs of rows: their even and odd elements */
        b[r] = DRS_GS_SHUF8(a[r], a[r + 1], 0, 8, 2, 10, 4, 12, 6, 14);
        b[r + 1] = DRS_GS_SHUF8(a[r], a[r + 1], 1, 9, 3, 11, 5, 13, 7, 15);
    }
    for (int r = 0; r < 8; r += 4)
        for (int h = 0; h < 2; h++) {
            c[r + h] = DRS_GS_SHUF8(b[r + h], b[r + h + 2], 0, 1, 8, 9, 4, 5, 12, 13);
            c[r + h + 2] = DRS_GS_SHUF8(b[r + h], b[r + h + 2], 2, 3, 10, 11, 6, 7, 14, 15);
        }
    for (int i = 0; i < 4; i++) { /* columns i and i + 4 */
        a[i] = DRS_GS_SHUF8(c[i], c[i + 4], 0, 1, 2, 3, 8, 9, 10, 11);
        a[i + 4] = DRS_GS_SHUF8(c[i], c[i + 4], 4, 5, 6, 7, 12, 13, 14, 15);
    }
}

/* The runs [rb[r], re[r]) of the np points outside the groups of gs points
 * flagged in full[0 .. ng): runs start and end at group bounds or at np.
 * Returns their number (at most ng + 1). */
static inline int64_t drs_gs_runs(int64_t np, int64_t ng, int gs, const unsigned char *full,
                                  int64_t *rb, int64_t *re)
{
    int64_t nr = 0;
    for (int64_t b = 0; b < np;) {
        if (b < ng * gs && full[b / gs]) {
            b += gs;
            continue;
        }
        rb[nr] = b;
        while (b < np && !(b < ng * gs && full[b / gs]))
            b++;
        re[nr++] = b;
    }
    return nr;
}

/* Whether point b of a block is in a full group (of ng, full[j] flags): the
 * group paths computed it, the scalar loops skip it. */
static inline int drs_gs_in_full_group(int64_t b, int64_t ng, const unsigned char *full)
{
    return b < ng * DRS_GS_VP && full[b / DRS_GS_VP];
}
#if DRS_SIMD_MULTI
#include <immintrin.h>
/* x[0..3] = the pixels o0, o0 + 1, o2, o2 + 1 of the 8 points, as doubles */
DRS_TARGET_AVX512 static inline void drs_gs_gather4_avx512(const float *xc, const int64_t *o0,
                                                           const int64_t *o2, __m512d x[4])
{
    const __m512i a = _mm512_i64gather_epi64(_mm512_loadu_si512((const void *)o0),
                                             (const void *)xc, 4);
    const __m512i b = _mm512_i64gather_epi64(_mm512_loadu_si512((const void *)o2),
                                             (const void *)xc, 4);
    x[0] = _mm512_cvtps_pd(_mm256_castsi256_ps(_mm512_cvtepi64_epi32(a)));
    x[1] = _mm512_cvtps_pd(_mm256_castsi256_ps(_mm512_cvtepi64_epi32(_mm512_srli_epi64(a, 32))));
    x[2] = _mm512_cvtps_pd(_mm256_castsi256_ps(_mm512_cvtepi64_epi32(b)));
    x[3] = _mm512_cvtps_pd(_mm256_castsi256_ps(_mm512_cvtepi64_epi32(_mm512_srli_epi64(b, 32))));
}
/* the same for 4 points (the permutation puts the 4 left pixels of a gather
 * in its low half and the 4 right ones in its high half) */
DRS_TARGET_AVX2 static inline void drs_gs_gather4_avx2(const float *xc, const int64_t *o0,
                                                       const int64_t *o2, __m256d x[4])
{
    const __m256i lo = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    const long long *base = (const long long *)(const void *)xc;
    const __m256 a = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(
        _mm256_i64gather_epi64(base, _mm256_loadu_si256((const __m256i *)(const void *)o0), 4),
        lo));
    const __m256 b = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(
        _mm256_i64gather_epi64(base, _mm256_loadu_si256((const __m256i *)(const void *)o2), 4),
        lo));
    x[0] = _mm256_cvtps_pd(_mm256_castps256_ps128(a));
    x[1] = _mm256_cvtps_pd(_mm256_extractf128_ps(a, 1));
    x[2] = _mm256_cvtps_pd(_mm256_castps256_ps128(b));
    x[3] = _mm256_cvtps_pd(_mm256_extractf128_ps(b, 1));
}
/* a line of the next plane: into the L2 (l2), else into every level.  The two
 * helpers below are always inlined: GCC finds a call to one of them without
 * effect (a prefetch changes no memory) and deletes it */
#define DRS_GS_PREFETCH(p, l2)                                                                 \
    do {                                                                                       \
        if (l2)                                                                                \
            __builtin_prefetch((p), 0, 2);                                                     \
        else                                                                                   \
            __builtin_prefetch((p));                                                           \
    } while (0)
/* a group's pixels in the plane xn (every lane: a rotated grid's rows) */
static inline __attribute__((always_inline)) void drs_gs_prefetch_group(const float *xn,
                                                                        const int64_t *o0,
                                                                        const int64_t *o2, int l2)
{
    for (int l = 0; l < DRS_GS_VP; l++) {
        DRS_GS_PREFETCH(xn + o0[l], l2);
        DRS_GS_PREFETCH(xn + o2[l], l2);
    }
}
#endif

/* The permute window of a group (AVX-512): when the group's pixels lie in 16
 * columns and perm + 1 rows (2 to 4) of a plane W wide, base is the window's
 * first pixel and pidx lanes 0-7 each point's top-left pixel in it ((row -
 * top row) * 16 + column - first column; lanes 8-15 the same + 1, its
 * top-right pixel), m2 the lanes (both halves) of top row + 2: the plane's 4
 * taps are then permutes of the window's rows (drs_gs_window4_avx512)
 * instead of two gathers.  perm 0: no window (gathers). */
typedef struct drs_gs_window {
    int64_t base;
    int32_t pidx[16];
    int perm;
    uint16_t m2;
} drs_gs_window;

/* The row and column of the offset o >= 0 in a plane W wide (inv = 1 / W):
 * the quotient through a double multiply, corrected. */
static inline void drs_gs_row_col(int64_t o, int64_t W, double inv, int64_t *r, int64_t *c)
{
    int64_t q = (int64_t)((double)o * inv);
    while (q > 0 && q * W > o)
        q--;
    while ((q + 1) * W <= o)
        q++;
    *r = q;
    *c = o - q * W;
}

/* The rows and columns a group's pixels span, grown pixel by pixel. */
typedef struct drs_gs_span {
    int64_t rmin, rmax, cmin, cmax;
} drs_gs_span;
#define DRS_GS_SPAN_EMPTY {INT64_MAX, 0, INT64_MAX, 0}
/* the row *r and column *c of offset o (drs_gs_row_col), added to sp */
static inline void drs_gs_span_add(drs_gs_span *sp, int64_t o, int64_t W, double inv, int64_t *r,
                                   int64_t *c)
{
    drs_gs_row_col(o, W, inv, r, c);
    sp->rmin = *r < sp->rmin ? *r : sp->rmin;
    sp->rmax = *r > sp->rmax ? *r : sp->rmax;
    sp->cmin = *c < sp->cmin ? *c : sp->cmin;
    sp->cmax = *c > sp->cmax ? *c : sp->cmax;
}

/* The window of the top-left pixels o0[] (o2[l] = o0[l] + W, all 4 taps
 * inside the plane) in a plane W wide; the first column is moved left so
 * that the window stays inside its rows.  Sets w->perm (0: none fits). */
static inline void drs_gs_window_of(const int64_t *o0, const int64_t *o2, int64_t W,
                                    drs_gs_window *w)
{
    w->perm = 0;
    if (W < 16)
        return;
    const double inv = 1.0 / (double)W;
    int64_t r[DRS_GS_VP], c[DRS_GS_VP];
    drs_gs_span sp = DRS_GS_SPAN_EMPTY;
    for (int l = 0; l < DRS_GS_VP; l++) {
        if (o2[l] != o0[l] + W || o0[l] < 0)
            return;
        drs_gs_span_add(&sp, o0[l], W, inv, &r[l], &c[l]);
        if (c[l] + 1 >= W) /* (the taps never wrap a row: checked all the same) */
            return;
    }
    const int64_t rmin = sp.rmin, rmax = sp.rmax, cmin = sp.cmin, cmax = sp.cmax;
    if (rmax - rmin > 2 || cmax - cmin > 14)
        return;
    const int64_t c0 = cmin < W - 16 ? cmin : W - 16;
    w->m2 = 0;
    for (int l = 0; l < DRS_GS_VP; l++) {
        w->pidx[l] = (int32_t)((r[l] - rmin) * 16 + c[l] - c0);
        w->pidx[l + 8] = w->pidx[l] + 1;
        if (r[l] == rmin + 2)
            w->m2 |= (uint16_t)(0x101u << l);
    }
    w->base = rmin * W + c0;
    w->perm = 1 + (int)(rmax - rmin);
}

#if DRS_SIMD_MULTI
/* x[0..3] of drs_gs_gather4_avx512 through the window w (w->perm > 0) of the
 * plane xc, rows W apart: the top taps are permutes of (row 0, row 1), the
 * bottom ones of (row 1, row 2) with the same indices; with perm 3 the lanes
 * of row 2 (index 32 + column) are permuted from rows 2 and 3. */
DRS_TARGET_AVX512 static inline void drs_gs_window4_avx512(const float *xc, int64_t W,
                                                           const drs_gs_window *w, __m512d x[4])
{
    const float *b = xc + w->base;
    const __m512 r0 = _mm512_loadu_ps(b), r1 = _mm512_loadu_ps(b + W);
    const __m512 r2 = w->perm >= 2 ? _mm512_loadu_ps(b + 2 * W) : r1;
    const __m512i ix = _mm512_loadu_si512((const void *)w->pidx);
    __m512 top = _mm512_permutex2var_ps(r0, ix, r1);
    __m512 bot = _mm512_permutex2var_ps(r1, ix, r2);
    if (w->perm == 3) {
        const __m512 r3 = _mm512_loadu_ps(b + 3 * W);
        top = _mm512_mask_permutexvar_ps(top, w->m2, ix, r2);
        bot = _mm512_mask_permutexvar_ps(bot, w->m2, ix, r3);
    }
    x[0] = _mm512_cvtps_pd(_mm512_castps512_ps256(top));
    x[1] = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(top), 1)));
    x[2] = _mm512_cvtps_pd(_mm512_castps512_ps256(bot));
    x[3] = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(bot), 1)));
}
/* the window's rows in the plane xn */
static inline __attribute__((always_inline)) void
drs_gs_prefetch_window(const float *xn, int64_t W, const drs_gs_window *w, int l2)
{
    const float *b = xn + w->base;
    for (int r = 0; r <= w->perm; r++) {
        DRS_GS_PREFETCH(b + r * W, l2);
        DRS_GS_PREFETCH(b + r * W + 15, l2);
    }
}
/* a group's 4 taps in the plane xn: its window's rows (w->perm > 0), else each
 * lane's pixels (drs_gs_prefetch_group) */
static inline __attribute__((always_inline)) void
drs_gs_prefetch_taps(const float *xn, int64_t W, const int64_t *o0, const int64_t *o2,
                     const drs_gs_window *w, int l2)
{
    if (w->perm)
        drs_gs_prefetch_window(xn, W, w, l2);
    else
        drs_gs_prefetch_group(xn, o0, o2, l2);
}
#endif

#endif
