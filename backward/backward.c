/* SPDX-License-Identifier: MIT */
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
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#define PAR_MIN_WORK 32768
/* backward_data's runs of whole leading extents: about this many bytes of the tiled
 * sweep's output a run (W7's backward on a Zen 5 core, 1 thread: 1, 2 and 4 MiB
 * 7.5-7.8 ms, 8 and 16 MiB 8.7-8.8) */
#ifndef DRS_CHAIN_CHUNK
#define DRS_CHAIN_CHUNK ((int64_t)2 << 20)
#endif

/* ---------------------------------------------------- transposed tables */
typedef struct drs_ttable {
    int64_t Lin;
    int64_t *off; /* Lin + 1 */
    int64_t *o;   /* entries: output index */
    double *w;
    float *wf;
    /* inputs [j0, j1) all have un entries on consecutive outputs (the interior
     * of linear/cubic/nearest tables): the gather runs branch-free there.
     * per2: moreover input j + 1's entries are input j's moved by two outputs
     * with the same weights (2x upsampling): the interior then runs as one
     * loop over j with constant weights, which the compiler vectorises. */
    int un, per2;
    /* o2: per2's outputs without its weights: input j's entries are on outputs o0 +
     * 2 (j - j0) + k, k < un (a derivative table times cd, whose weights vary) */
    int o2;
    /* downk (2..8): moreover un == 1, [j0, j1) is whole periods of downk
     * inputs and input j's one entry is output o0 + (j - j0) / downk with the
     * weight of input j0 + (j - j0) % downk (an integer-factor downsampling
     * with one tap per input, e.g. area): the interior runs as a loop over
     * outputs, each spread over downk inputs. */
    int downk;
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

/* The transposed table of t with weights Wsrc (t->w, or t->dw for a
 * derivative table); want_float: also a float copy of the weights.
 * per_tol: the interior counts as periodic when its weights agree with the
 * first interior input's within this relative tolerance (0: exactly; the
 * periodic loop then uses the first input's weights throughout). */
static drs_status ttable_build(const drs_table *t, const double *Wsrc, int64_t Lin, int want_float,
                               double per_tol, drs_ttable *tt)
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
            tt->w[e] = Wsrc[o * t->stride + k];
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
        /* period two: same weights, first output two further on */
        int o2 = tt->un == 2 || tt->un == 4 || tt->un == 8, per = o2;
        for (int64_t j = tt->j0 + 1; j < tt->j1 && o2; j++) {
            const int64_t e = tt->off[j], e0 = tt->off[tt->j0];
            o2 = tt->o[e] == tt->o[e0] + 2 * (j - tt->j0);
            per = per && o2;
            for (int k = 0; k < tt->un && per; k++)
                per = fabs(tt->w[e + k] - tt->w[e0 + k]) <= per_tol * fabs(tt->w[e0 + k]);
        }
        tt->o2 = o2;
        tt->per2 = per;
        /* period downk in the inputs, one output further per period */
        if (tt->un == 1 && tt->j1 - tt->j0 >= 2) {
            const int64_t e0 = tt->off[tt->j0], o0 = tt->o[e0];
            int64_t k = 1;
            while (tt->j0 + k < tt->j1 && k <= 8 && tt->o[tt->off[tt->j0 + k]] == o0)
                k++;
            int down = k >= 2 && k <= 8 && (tt->j1 - tt->j0) % k == 0;
            for (int64_t j = tt->j0; j < tt->j1 && down; j++) {
                const int64_t q = j - tt->j0, e = tt->off[j];
                down = tt->o[e] == o0 + q / k && tt->w[e] == tt->w[tt->off[tt->j0 + q % k]];
            }
            tt->downk = down ? (int)k : 0;
        }
    }
    return DRS_OK;
}

/* One row of a transposed pass: d[j] (+)= sum_{(o, w) in T[j]} w * src[o*inner + i]
 * over entries in ascending o (the fixed summation order of every variant).
 * A: accumulator and weight type; ts_t (a typedef in the function): the type
 * of src. */
#define TENTRY_GENERAL(A, j)                                                                   \
    do {                                                                                       \
        A acc_ = 0;                                                                            \
        for (int64_t e = tt->off[j]; e < tt->off[(j) + 1]; e++)                                \
            acc_ += W[e] * (A)src[tt->o[e]];                                                   \
        d[j] = accumulate ? d[j] + acc_ : acc_;                                                \
    } while (0)
/* the uniform interior: NT consecutive outputs per input, no index loads */
#define TROW_INTERIOR(A, NT)                                                                   \
    for (int64_t j = tt->j0; j < tt->j1; j++) {                                                \
        const int64_t e0 = tt->off[j];                                                         \
        const A *w = W + e0;                                                                   \
        const ts_t *s = src + tt->o[e0];                                                       \
        A acc = 0;                                                                             \
        for (int k = 0; k < NT; k++)                                                           \
            acc += w[k] * (A)s[k];                                                             \
        d[j] = accumulate ? d[j] + acc : acc;                                                  \
    }
/* period two: constant weights, input j's outputs start 2 (j - j0) further;
 * with 4 or 8 entries an input, in blocks of 16 inputs, a last partial block
 * formed as the last 16 (some inputs twice, the same bits: overwriting only):
 * a loop of known length where the remainder had run one input at a time
 * (drs_bench, 1 thread, min of 3 alternating rounds: W1 backward 9.2 -> 8.0
 * ms, W12 9.3 -> 8.0, W3 18.1 -> 15.3, W7 14.8 -> 14.0; at 2 threads, where
 * memory bounds them, the same within the noise).  The AVX-512 variant only:
 * in the AVX2 and baseline ones the blocks made W3 slower (19.4 -> 20.2 and
 * 23.8 -> 28.3 ms) and W1 no faster; and with 2 entries (W2) they came out as
 * scalar code (6.7 -> 9.8 ms): one plain loop there, where TROW_PER2_V16 (float)
 * does not take the row */
#define TROW_PER2_ONE(A, NT, STORE, jj)                                                        \
    do {                                                                                       \
        const int64_t j = (jj);                                                                \
        const ts_t *s = s0 + 2 * (j - tt->j0);                                                 \
        A acc = 0;                                                                             \
        for (int k = 0; k < NT; k++)                                                           \
            acc += c[k] * (A)s[k];                                                             \
        STORE;                                                                                 \
    } while (0)
/* TROW_PER2's float rows (A, ts_t float; overwriting; at least 16 inputs) with NT
 * (2, 4 or 8) entries an input in GCC vectors of 16 (the AVX-512 variant's registers):
 * element k of 16 inputs is the even (k even) or odd lanes of the 32 floats from
 * s0 + 2 (j - j0) + k - k % 2, one shuffle each; the products and sums of
 * TROW_PER2_ONE in its order (the same bits); the last partial block formed as the
 * last 16 (some inputs twice).  The compiler's own loop over TROW_PER2_ONE kept
 * the weights' broadcasts and the block bookkeeping inside the loop (drs_bench,
 * 1 thread, thread CPU time, min of 4-6 alternating rounds: W1 backward 7.90 ->
 * 7.64 ms, W12 7.96 -> 7.66, W7 13.3 -> 13.0, W3 15.5 -> 14.3; with 2 entries,
 * against the plain loop, on a Zen 5 core: W2 4.62 -> 4.16 ms, 2 threads 2.47 ->
 * 2.24) */
typedef float drs_v16f __attribute__((vector_size(64)));
#if defined(__clang__)
#define TROW_V16_EVEN(a, b)                                                                    \
    __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30)
#define TROW_V16_ODD(a, b)                                                                     \
    __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31)
#else /* GCC (__builtin_shufflevector from GCC 12 on) */
typedef int32_t drs_v16i __attribute__((vector_size(64)));
#define TROW_V16_EVEN(a, b)                                                                    \
    __builtin_shuffle(a, b,                                                                    \
                      (drs_v16i){0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30})
#define TROW_V16_ODD(a, b)                                                                     \
    __builtin_shuffle(a, b,                                                                    \
                      (drs_v16i){1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31})
#endif
/* tedge_rows_f32's vector form (GCC: two-source shuffles with vector masks) */
#if DRS_SIMD_MULTI && !defined(__clang__)
#define TEDGE_ROWS_V16 1
#else
#define TEDGE_ROWS_V16 0
#endif
/* lanes s.. of a, then b's first s: a's inputs one to three on (s < 16) */
#if defined(__clang__)
#define TROW_V16_SHIFT(a, b, s)                                                                \
    __builtin_shufflevector(a, b, (s), (s) + 1, (s) + 2, (s) + 3, (s) + 4, (s) + 5,            \
                            (s) + 6, (s) + 7, (s) + 8, (s) + 9, (s) + 10, (s) + 11,            \
                            (s) + 12, (s) + 13, (s) + 14, (s) + 15)
#else
#define TROW_V16_SHIFT(a, b, s)                                                                \
    __builtin_shuffle(a, b,                                                                    \
                      (drs_v16i){(s), (s) + 1, (s) + 2, (s) + 3, (s) + 4, (s) + 5,             \
                                 (s) + 6, (s) + 7, (s) + 8, (s) + 9, (s) + 10, (s) + 11,       \
                                 (s) + 12, (s) + 13, (s) + 14, (s) + 15})
#endif
/* e, o: the even and odd lanes of the 32 floats from p */
#define TROW_V16_EO(p, e, o)                                                                   \
    do {                                                                                       \
        drs_v16f l_, h_;                                                                       \
        memcpy(&l_, (p), sizeof l_);                                                           \
        memcpy(&h_, (p) + 16, sizeof h_);                                                      \
        (e) = TROW_V16_EVEN(l_, h_);                                                           \
        (o) = TROW_V16_ODD(l_, h_);                                                            \
    } while (0)
/* the carried form's next block (from 2 q + 32 on, its dy prefetched ahead) */
#define TROW_V16_NEXT(ss, q, e, o)                                                             \
    do {                                                                                       \
        drs__prefetch_at((ss) + 2 * (q), DRS_PF_ROW_BYTES);                                    \
        drs__prefetch_at((ss) + 2 * (q), DRS_PF_ROW_BYTES + 64);                               \
        TROW_V16_EO((ss) + 2 * (q) + 32, e, o);                                                \
    } while (0)
/* With 8 entries an input (bicubic 2x), the blocks that have a whole block after
 * them (the carried form): element k of 16 inputs, k = 2m or 2m + 1, is the even
 * or odd lanes of the block's first 32 floats shifted by m inputs, the next
 * block's coming in (TROW_V16_SHIFT), and the next block's even and odd lanes
 * are carried to it: two loads and two shuffles a block, where the form below
 * takes eight of each; the same products in the same order (the same bits).
 * drs_bench --cpu-time, 1 thread, min of 4-5 alternating rounds on a Zen 5
 * core: W3's backward 7.45 -> 7.06 ms, W12's in cubic mode 7.55 -> 7.07 (with
 * scales_delta 18.2 -> 17.6).  With 4 entries (bilinear) the same form was
 * slower (W10's backward 1.71 -> 1.91 ms, W7's 7.30 -> 7.50): they keep the
 * form below. */
#define TROW_PER2_V16(NT)                                                                      \
    do {                                                                                       \
        const int64_t n_ = tt->j1 - tt->j0;                                                    \
        float *restrict dd_ = (float *)(d + tt->j0);                                           \
        const float *restrict ss_ = (const float *)s0;                                         \
        drs_v16f cv_[NT];                                                                      \
        for (int k_ = 0; k_ < (NT); k_++)                                                      \
            cv_[k_] = (drs_v16f){0} + (float)c[k_];                                            \
        int64_t q0_ = 0;                                                                       \
        if ((NT) >= 8 && n_ >= 32) { /* TROW_PER2_V16's carried form */                        \
            drs_v16f e_, o_, en_, on_;                                                         \
            TROW_V16_EO(ss_, e_, o_);                                                          \
            for (; q0_ + 32 <= n_; q0_ += 16) {                                                \
                TROW_V16_NEXT(ss_, q0_, en_, on_);                                             \
                drs_v16f acc_ = (drs_v16f){0};                                                 \
                acc_ += cv_[0] * e_;                                                           \
                acc_ += cv_[1] * o_;                                                           \
                if ((NT) >= 4) {                                                               \
                    acc_ += cv_[(NT) >= 4 ? 2 : 0] * TROW_V16_SHIFT(e_, en_, 1);               \
                    acc_ += cv_[(NT) >= 4 ? 3 : 0] * TROW_V16_SHIFT(o_, on_, 1);               \
                }                                                                              \
                if ((NT) >= 8) {                                                               \
                    acc_ += cv_[(NT) >= 8 ? 4 : 0] * TROW_V16_SHIFT(e_, en_, 2);               \
                    acc_ += cv_[(NT) >= 8 ? 5 : 0] * TROW_V16_SHIFT(o_, on_, 2);               \
                    acc_ += cv_[(NT) >= 8 ? 6 : 0] * TROW_V16_SHIFT(e_, en_, 3);               \
                    acc_ += cv_[(NT) >= 8 ? 7 : 0] * TROW_V16_SHIFT(o_, on_, 3);               \
                }                                                                              \
                memcpy(dd_ + q0_, &acc_, sizeof acc_);                                         \
                e_ = en_;                                                                      \
                o_ = on_;                                                                      \
            }                                                                                  \
        }                                                                                      \
        for (int64_t q_ = q0_; q_ < n_; q_ += 16) {                                            \
            const int64_t b_ = q_ + 16 <= n_ ? q_ : n_ - 16;                                   \
            drs_v16f acc_ = (drs_v16f){0};                                                     \
            /* the block's two lines of dy DRS_PF_ROW_BYTES on */                              \
            drs__prefetch_at(ss_ + 2 * b_, DRS_PF_ROW_BYTES);                                  \
            drs__prefetch_at(ss_ + 2 * b_, DRS_PF_ROW_BYTES + 64);                             \
            for (int k_ = 0; k_ < (NT); k_ += 2) {                                             \
                drs_v16f e_, o_;                                                               \
                TROW_V16_EO(ss_ + 2 * b_ + k_, e_, o_);                                        \
                acc_ += cv_[k_] * e_;                                                          \
                acc_ += cv_[k_ + 1] * o_;                                                      \
            }                                                                                  \
            memcpy(dd_ + b_, &acc_, sizeof acc_);                                              \
        }                                                                                      \
    } while (0)
#define TROW_PER2_LOOP(A, NT, STORE)                                                           \
    do {                                                                                       \
        const int avx512_ = DRS_SIMD_MULTI && drs__simd_level() == DRS_SIMD_AVX512;            \
        if (avx512_ && sizeof(A) == 4 && sizeof(ts_t) == 4 && !accumulate &&                   \
            tt->j1 - tt->j0 >= 16) {                                                           \
            TROW_PER2_V16(NT);                                                                 \
            break;                                                                             \
        }                                                                                      \
        if (NT == 2 || !avx512_) {                                                             \
            for (int64_t q = tt->j0; q < tt->j1; q++)                                          \
                TROW_PER2_ONE(A, NT, STORE, q);                                                \
            break;                                                                             \
        }                                                                                      \
        for (int64_t q16 = tt->j0; q16 < tt->j1; q16 += 16) {                                  \
            const int64_t jl = !accumulate && q16 + 16 > tt->j1 && tt->j1 - tt->j0 >= 16       \
                                   ? tt->j1 - 16                                               \
                                   : q16;                                                      \
            const int64_t je = jl + 16 < tt->j1 ? jl + 16 : tt->j1;                            \
            if (je - jl == 16)                                                                 \
                for (int64_t t = 0; t < 16; t++)                                               \
                    TROW_PER2_ONE(A, NT, STORE, jl + t);                                       \
            else                                                                               \
                for (int64_t q = jl; q < je; q++)                                              \
                    TROW_PER2_ONE(A, NT, STORE, q);                                            \
        }                                                                                      \
    } while (0)
#define TROW_PER2(A, NT)                                                                       \
    do {                                                                                       \
        A c[NT];                                                                               \
        for (int k = 0; k < NT; k++)                                                           \
            c[k] = W[tt->off[tt->j0] + k];                                                     \
        const ts_t *s0 = src + tt->o[tt->off[tt->j0]];                                         \
        if (accumulate)                                                                        \
            TROW_PER2_LOOP(A, NT, d[j] += acc);                                                \
        else                                                                                   \
            TROW_PER2_LOOP(A, NT, d[j] = acc);                                                 \
    } while (0)
/* downk: the interior as outputs m, each read once and spread over K inputs
 * with the period's weights (trow's TROW_INTERIOR(A, 1) per input: the same
 * bits) */
#define TROW_DOWN(A, K)                                                                        \
    do {                                                                                       \
        A c[8];                                                                                \
        for (int r = 0; r < (K); r++)                                                          \
            c[r] = W[tt->off[tt->j0 + r]];                                                     \
        const ts_t *s0 = src + tt->o[tt->off[tt->j0]];                                         \
        const int64_t nm = (tt->j1 - tt->j0) / (K); /* whole periods (ttable_build) */         \
        A *dd = d + tt->j0;                                                                    \
        for (int64_t m = 0; m < nm; m++) {                                                     \
            const A sv = (A)s0[m];                                                             \
            for (int r = 0; r < (K); r++) {                                                    \
                A acc = 0;                                                                     \
                acc += c[r] * sv;                                                              \
                dd[m * (K) + r] = accumulate ? dd[m * (K) + r] + acc : acc;                    \
            }                                                                                  \
        }                                                                                      \
    } while (0)
/* for each input j of tt outside its periodic interior [j0, j1), ascending */
#define TT_FOR_EDGES(tt, j, n)                                                                 \
    for (int64_t j = (tt)->j0 == 0 ? (tt)->j1 : 0; j < (n);                                    \
         j = j + 1 == (tt)->j0 ? (tt)->j1 : j + 1)
/* trow's accumulate: bit 0 adds into d; TROW_NO_EDGES leaves the inputs outside the
 * interior unwritten (tiled2 forms them 16 rows at once, tedge_rows_f32) */
#define TROW_NO_EDGES 2
#define DEFINE_TROW(NAME, A, TS)                                                               \
    DRS_SIMD_FN(NAME,                                                                          \
                (const drs_ttable *tt, const A *W, const TS *src, A *d, int64_t inner,         \
                 int accumulate),                                                              \
                (tt, W, src, d, inner, accumulate),                                            \
    {                                                                                          \
        typedef TS ts_t; /* the source type, for the macros below */                           \
        const int noedge_ = accumulate & TROW_NO_EDGES;                                        \
        accumulate &= 1;                                                                       \
        const int64_t Lin = tt->Lin;                                                           \
        if (inner > 1) {                                                                       \
            for (int64_t j = 0; j < Lin; j++)                                                  \
                TENTRY_INNER(A, TS, j, d + j * inner, src, 0);                                 \
            return;                                                                            \
        }                                                                                      \
        const int64_t ja = tt->un > 0 ? tt->j0 : Lin, jb = tt->un > 0 ? tt->j1 : Lin;          \
        for (int64_t j = 0; j < (noedge_ ? 0 : ja); j++)                                       \
            TENTRY_GENERAL(A, j);                                                              \
        if (tt->downk == 2)                                                                    \
            TROW_DOWN(A, 2);                                                                   \
        else if (tt->downk == 3)                                                               \
            TROW_DOWN(A, 3);                                                                   \
        else if (tt->downk == 4)                                                               \
            TROW_DOWN(A, 4);                                                                   \
        else if (tt->downk > 4)                                                                \
            TROW_DOWN(A, tt->downk);                                                           \
        else if (tt->per2 && tt->un == 2)                                                      \
            TROW_PER2(A, 2);                                                                   \
        else if (tt->per2 && tt->un == 4)                                                      \
            TROW_PER2(A, 4);                                                                   \
        else if (tt->per2 && tt->un == 8)                                                      \
            TROW_PER2(A, 8);                                                                   \
        else                                                                                   \
            switch (tt->un) {                                                                  \
            case 0: break;                                                                     \
            case 1: TROW_INTERIOR(A, 1) break;                                                 \
            case 2: TROW_INTERIOR(A, 2) break;                                                 \
            case 3: TROW_INTERIOR(A, 3) break;                                                 \
            case 4: TROW_INTERIOR(A, 4) break;                                                 \
            case 5: TROW_INTERIOR(A, 5) break;                                                 \
            case 6: TROW_INTERIOR(A, 6) break;                                                 \
            case 7: TROW_INTERIOR(A, 7) break;                                                 \
            default: TROW_INTERIOR(A, 8) break;                                                \
            }                                                                                  \
        for (int64_t j = jb; j < (noedge_ ? jb : Lin); j++)                                    \
            TENTRY_GENERAL(A, j);                                                              \
    })
/* inner > 1: input j's row d[0..inner) from whole rows of src (src holds
 * the rows from output obase on); with 1 to 8 entries, one sweep over d */
#define TSWEEP(A, d, NE)                                                                       \
    do {                                                                                       \
        for (int64_t i = 0; i < inner; i++) {                                                  \
            A acc_ = 0;                                                                        \
            for (int k_ = 0; k_ < (NE); k_++)                                                  \
                acc_ += w_[k_] * (A)s_[k_][i];                                                 \
            (d)[i] = accumulate ? (d)[i] + acc_ : acc_;                                        \
        }                                                                                      \
    } while (0)
/* the 1 to N (8 at most) entries [e0, e0 + ne) of one input: weights wn[k] = W[e]
 * and rows sn[k] of src (which holds the rows from output obase on, inner apart);
 * slots past ne, up to N, repeat the first entry */
#define TTAPSN(tt, W, e0, ne, src, obase, inner, wn, sn, N)                                    \
    for (int k_ = 0; k_ < (N); k_++) {                                                         \
        const int64_t e_ = (e0) + (k_ < (ne) ? k_ : 0);                                        \
        (wn)[k_] = (W)[e_];                                                                    \
        (sn)[k_] = (src) + ((tt)->o[e_] - (obase)) * (inner);                                  \
    }
/* NMAX (4 or 8, a constant): the most entries summed in one sweep; more are
 * summed over d one entry at a time.  8 in tiled2's blocks (bicubic 2x: 8 T
 * rows an input row; W3's backward 9.4 -> 7.8 ms at 1 thread, thread CPU time,
 * min of 4 alternating rounds on a Zen 5 core); 4 in trow's and tpass's
 * channels-last rows, where the larger switch made the surrounding code of
 * trow slower (W5's backward 4.8 -> 5.0 ms) */
#define TENTRY_INNER_N(A, TS, j, d, src, obase, NMAX)                                          \
    do {                                                                                       \
        const int64_t e0_ = tt->off[j], e1_ = tt->off[(j) + 1];                                \
        const int64_t ne_ = e1_ - e0_;                                                         \
        if (ne_ >= 1 && ne_ <= (NMAX)) { /* every entry in one sweep, same order */            \
            const TS *s_[8];                                                                   \
            A w_[8];                                                                           \
            TTAPSN(tt, W, e0_, ne_, src, obase, inner, w_, s_, NMAX)                           \
            switch (ne_) {                                                                     \
            case 1: TSWEEP(A, d, 1); break;                                                    \
            case 2: TSWEEP(A, d, 2); break;                                                    \
            case 3: TSWEEP(A, d, 3); break;                                                    \
            case 4: TSWEEP(A, d, 4); break;                                                    \
            case 5: if ((NMAX) > 4) TSWEEP(A, d, 5); break;                                    \
            case 6: if ((NMAX) > 4) TSWEEP(A, d, 6); break;                                    \
            case 7: if ((NMAX) > 4) TSWEEP(A, d, 7); break;                                    \
            default: if ((NMAX) > 4) TSWEEP(A, d, 8); break;                                   \
            }                                                                                  \
        } else if (!accumulate) {                                                              \
            for (int64_t i = 0; i < inner; i++)                                                \
                (d)[i] = 0;                                                                    \
            for (int64_t e = e0_; e < e1_; e++) {                                              \
                const A w_ = W[e];                                                             \
                const TS *s_ = (src) + (tt->o[e] - (obase)) * inner;                           \
                for (int64_t i = 0; i < inner; i++)                                            \
                    (d)[i] += w_ * (A)s_[i];                                                   \
            }                                                                                  \
        } else { /* accumulate: sum first, then add, same bits as overwrite + add */           \
            for (int64_t i = 0; i < inner; i++) {                                              \
                A acc_ = 0;                                                                    \
                for (int64_t e = e0_; e < e1_; e++)                                            \
                    acc_ += W[e] * (A)(src)[(tt->o[e] - (obase)) * inner + i];                 \
                (d)[i] += acc_;                                                                \
            }                                                                                  \
        }                                                                                      \
    } while (0)
#define TENTRY_INNER(A, TS, j, d, src, obase) TENTRY_INNER_N(A, TS, j, d, src, obase, 4)
DEFINE_TROW(trow_f32, float, float)
DEFINE_TROW(trow_f64, double, double)
DEFINE_TROW(trow_f32_f64, double, float) /* f32 dy, double weights and result */

/* dx (+)= T^T dy over [outer, O, inner] -> [outer, Lin, inner], parallel over
 * (b, j): one writer per element, no atomics. */
#define DEFINE_TPASS(NAME, A, WF, ROW)                                                         \
    static void NAME(const A *dy, A *dx, int64_t outer, int64_t O, int64_t inner,              \
                     const drs_ttable *tt, int accumulate)                                     \
    {                                                                                          \
        const int64_t Lin = tt->Lin;                                                           \
        const A *W = (const A *)tt->WF;                                                        \
        /* dy larger than the caches: read DRS_PF_BYTES ahead (see tiled2) */                  \
        const int64_t dyn = drs__prefetch_worth(outer * O * inner, sizeof(A))                  \
                                ? outer * O * inner : 0;                                       \
        if (inner == 1) {                                                                      \
            _Pragma("omp parallel for schedule(static) num_threads((outer * Lin > PAR_MIN_WORK) ? drs__nthreads() : 1)")       \
            for (int64_t b = 0; b < outer; b++) {                                              \
                if (dyn)                                                                       \
                    drs__prefetch_ahead(dy, b * O, O, dyn, sizeof(A));                         \
                ROW(tt, W, dy + b * O, dx + b * Lin, 1, accumulate);                           \
            }                                                                                  \
            return;                                                                            \
        }                                                                                      \
        /* spans of inputs (b, j) of about 1024 elements each */                               \
        const int64_t n = outer * Lin, span = inner >= 1024 ? 1 : 1024 / inner;                \
        const int64_t ns = (n + span - 1) / span;                                              \
        _Pragma("omp parallel for schedule(static) num_threads((outer * Lin * inner > PAR_MIN_WORK) ? drs__nthreads() : 1)") \
        for (int64_t s = 0; s < ns; s++)                                                       \
            NAME##_span(tt, W, dy, dx, s * span, s * span + span < n ? s * span + span : n, O, \
                        inner, accumulate, dyn, 0, 0);                                         \
    }
/* A row read in ascending order, prefetched into the L1 pfd elements ahead:
 * elements up to hi (clipped to end) are wanted; prefetch those of [hi - pfd, hi)
 * not requested yet (*pf_at: requested up to here) */
static inline void pf_step(const void *base, int64_t *pf_at, int64_t hi, int64_t end, int64_t pfd,
                           size_t esz)
{
    hi = hi < end ? hi : end;
    const int64_t lo = *pf_at > hi - pfd ? *pf_at : hi - pfd;
    if (hi > lo)
        drs__prefetch_span((const char *)base + lo * (int64_t)esz, hi - lo, esz);
    *pf_at = hi > *pf_at ? hi : *pf_at;
}

/* The input rows k in [k0, k1) of a transposed pass, k = b * Lin + j (inner > 1).
 * dyn > 0 (dy's element count): dy is read DRS_PF_BYTES ahead of the last row
 * an input row reads (the rows advance with k: the tables are monotone, and
 * where they are not a prefetch only misses); its first pf_from elements are
 * already requested (by the caller's previous call on the rows before).  far:
 * DRS_PF_ROW_BYTES ahead instead of DRS_PF_BYTES, for the channels-last rows of
 * tiled2 (64 KiB in W9).  Those were prefetched 32 KiB ahead into the L2 only,
 * since into the L1 4 KiB ahead their prefetches had waited for the L1's few
 * miss buffers (on a Zen 4 core: W9 backward 10.3 -> 8.9 ms at 1 thread); on a
 * Zen 5 core 12 KiB ahead into the L1 is faster again (drs_bench, min of 5
 * alternating rounds: 5.24 -> 4.62 ms at 1 thread, 3.51 -> 3.01 at 2; 16 KiB
 * 4.79, 24 KiB 4.80, 32 KiB 4.89; into the L2 64 KiB ahead 5.13). */
#define DEFINE_TPASS_SPAN(NAME, A)                                                             \
    DRS_SIMD_FN(NAME##_span,                                                                   \
                (const drs_ttable *tt, const A *W, const A *dy, A *dx, int64_t k0, int64_t k1, \
                 int64_t O, int64_t inner, int accumulate, int64_t dyn, int64_t pf_from,       \
                 int far),                                                                     \
                (tt, W, dy, dx, k0, k1, O, inner, accumulate, dyn, pf_from, far),              \
    {                                                                                          \
        const int64_t Lin = tt->Lin;                                                           \
        const int64_t pfd = (far ? DRS_PF_ROW_BYTES : DRS_PF_BYTES) / (int64_t)sizeof(A);      \
        int64_t pf_at = pf_from; /* dy is prefetched up to here */                             \
        for (int64_t k = k0; k < k1; k++) {                                                    \
            const int64_t j = k % Lin, e1 = tt->off[j + 1];                                    \
            if (dyn && e1 > tt->off[j])                                                        \
                pf_step(dy, &pf_at, ((k / Lin) * O + tt->o[e1 - 1] + 1) * inner + pfd, dyn,    \
                        pfd, sizeof(A));                                                       \
            TENTRY_INNER(A, A, j, dx + k * inner, dy + (k / Lin) * O * inner, 0);              \
        }                                                                                      \
    })

DEFINE_TPASS_SPAN(tpass_f32, float)
DEFINE_TPASS(tpass_f32, float, wf, trow_f32)
DEFINE_TPASS_SPAN(tpass_f64, double)
DEFINE_TPASS(tpass_f64, double, w, trow_f64)

/* ------------------------------------------------------ plan helpers */
static int64_t prod(const int64_t *s, int a, int b)
{
    int64_t n = 1;
    for (int i = a; i < b; i++)
        n *= s[i];
    return n;
}

/* ------------------------- the 2-D data gradient, tiled by input rows
 * Two passes over adjacent axes h, w: dx_b = P_h^T (P_w^T dy_b).  For a block
 * of input rows [i0, i1) of pass h, the rows oh of T = P_w^T dy they read
 * (a contiguous range when the table is monotone, as every resize table is)
 * are formed in a per-thread buffer and combined at once, so T never goes
 * to memory.  Rows on a block's edge are formed once when the thread that
 * forms the block before also forms this one (they are taken from its
 * buffer), else by both neighbours (the same bits each time); each element
 * is the arithmetic of the two separate passes, so dx has the bits of the
 * unfused run.
 *
 * The scales gradients of both passes ride along (tiled2_grad): row r =
 * (b, oh) of dy, while its T row is in the buffer and dy_r in cache, adds
 *   gA = < T_r, (D_h x)_r >,   gB = < E_w^T (cd ⊙ dy_r), (P_h x)_r >
 * (D_w = diag(cd) E_w where it factors and is used so, else D_w^T dy_r), in
 * the data's type with each row's dot product summed in double (float rows: in
 * blocks of float lanes first, dot_f32_lanes).  Each row is counted by the
 * first block that forms it; its two partial sums do not depend on the
 * block or thread, and are added in row order afterwards. */
typedef struct tiled2_grad {
    const drs_table *th, *thd;    /* pass h: weights (th->w / wf), derivative table */
    const void *dwh;              /* thd's dw in the data's type */
    const drs_ttable *ttwd;       /* E_w^T (factored) or D_w^T, weights in the data's type */
    const void *cdw;              /* cd[o] = dc/dθ of pass w in the data's type (factored) */
    const void *cdk;              /* tvrow_per2's V weights by tap in the interior: cv[k] * cd
                                   * (factored, every interior tap weight cv[k] -1, 0 or 1:
                                   * linear) or D_w^T's own (not factored: cubic) */
    int tv16;                     /* tvrow_per2 takes its vector form (TVROW_PER2_V16_8) */
    int vz;                       /* V as trow over Z = cd ⊙ dy, not vrow_per2 (periodic E^T
                                   * whose tap weights are not all -1, 0, 1: cubic) */
    const void *x;
    double *part;                 /* two per row of dy */
    double evh;
    int wantA, wantB, factored;
    /* the difference form (diff_row_f32; f32, inner 1, linear-type derivative tables):
     * pass w's pair outputs 2j + da and 2j + da + 1, j in [dJ0, dJ1), read taps j - 1
     * and j with E = (-1, +1); dcdE[j] / dcdO[j] hold their cd in float (0 outside
     * the run), dE pass w's factored E in float for the other outputs */
    int diff;
    int64_t dJ0, dJ1, da, dne;    /* dne: the other outputs with a derivative, deo[] */
    const int64_t *deo;
    const float *dcdE, *dcdO, *dE;
    const drs_table *twd;
} tiled2_grad;

typedef struct tiled2 {
    const drs_ttable *ttw, *tth;
    const void *dy;
    void *dx;                     /* NULL: only the parameter gradients */
    const int64_t *bstart, *olo, *ohi; /* blocks; oh range [olo, ohi) per input row */
    int64_t nblk, Oh, Ow, Lh, inner, rowlen, maxr;
    int accumulate;
    const tiled2_grad *g;         /* NULL: no parameter gradient */
    int64_t sbuf;                 /* > 0: dx streamed out: float rows of 1 to 4 T rows on a
                                   * 64-byte line from the registers (tiled2_stream_row_f32),
                                   * other rows formed at buf + sbuf first */
    int pf;                       /* prefetch dy ahead (dy larger than DRS_PF_MIN_BYTES) */
    int down;                     /* > 0: direct rows (tiled2_direct_f32), factor down */
    int ebat;                     /* pass w's edge inputs 16 rows at once (tedge_rows_ok) */
    int vbat;                     /* and with the parameter sums: T's and V's (16 rows of V) */
    float dc[8];                  /* their pass-w coefficients */
} tiled2;

/* the fixed tree that combines 16 lanes: l[k] += l[k + w] for w = 8, 4, 2, 1
 * (written out with constant bounds, so that it runs in registers) */
#define LANES16_COMBINE(l)                                                                     \
    do {                                                                                       \
        for (int k_ = 0; k_ < 8; k_++)                                                         \
            (l)[k_] += (l)[k_ + 8];                                                            \
        for (int k_ = 0; k_ < 4; k_++)                                                         \
            (l)[k_] += (l)[k_ + 4];                                                            \
        (l)[0] += (l)[2];                                                                      \
        (l)[1] += (l)[3];                                                                      \
        (l)[0] += (l)[1];                                                                      \
    } while (0)

/* float rows: the products of a block of vectors of 16 are summed in 16 float
 * lanes before the double lanes (row_dots2, dot_f32_lanes); double rows: each
 * product straight to the double lanes (a block of 1: 0 + p is p, and the
 * lanes, which start at +0, are never -0) */
#define ROW_DOTS2_BLOCK 8
#define DOT_BLOCK(A) (sizeof(A) == sizeof(float) ? ROW_DOTS2_BLOCK : 1)

/* < a, b > of float rows summed as row_dots2 sums its rows (16 lanes in a fixed
 * order: the sum depends on n only, and a row's sum has the same bits either
 * way) */
DRS_SIMD_FN_RET(double, dot_f32_lanes, (const float *a, const float *b, int64_t n), (a, b, n), {
    double l[16] = {0.0};
    int64_t i = 0;
    const int64_t nv = n / 16 * 16;
    while (i < nv) {
        const int64_t e = i + ROW_DOTS2_BLOCK * 16 < nv ? i + ROW_DOTS2_BLOCK * 16 : nv;
        float f[16];
        for (int k = 0; k < 16; k++)
            f[k] = 0.0f;
        for (; i < e; i += 16)
            for (int k = 0; k < 16; k++)
                f[k] += a[i + k] * b[i + k];
        for (int k = 0; k < 16; k++)
            l[k] += (double)f[k];
    }
    for (; i < n; i++)
        l[i & 15] += (double)(a[i] * b[i]);
    LANES16_COMBINE(l);
    return l[0];
})
static double dot_lanes(const double *a, const double *b, int64_t n);

/* Both row sums of a row of dy whose two x-row passes (D_h and P_h) share
 * their taps (the same first row, n = 2 or 4): Dx and Px are formed element
 * by element, as PASS_OUTPUT forms them, and never stored.  Float rows: the
 * products go to 16 float lanes over blocks of ROW_DOTS2_BLOCK vectors of 16
 * elements, each block's lanes then added to 16 double lanes (the elements
 * after the last whole vector straight to the double lanes), which are
 * combined as LANES16_COMBINE does: the sums depend on len only, and are those
 * of PASS_OUTPUT followed by dot_f32_lanes / dot_lanes (the same bits).
 * Against a conversion and a double add for every product, W12 in cubic mode
 * with scales_delta on a Zen 5 core (drs_bench --cpu-time, 1 thread, min of 3
 * alternating rounds): 16.30 -> 15.61 ms. */
#define DEFINE_ROW_DOTS2(NAME, A)                                                              \
    DRS_SIMD_FN(NAME,                                                                          \
                (const A *q, const A *v, const A *xr, int64_t len, const A *wd, const A *wp,   \
                 int n, double *part),                                                         \
                (q, v, xr, len, wd, wp, n, part), {                                            \
        double la[16] = {0.0}, lb[16] = {0.0};                                                 \
        const A *x0 = xr, *x1 = xr + len;                                                      \
        const A *x2 = n == 4 ? x1 + len : x1, *x3 = n == 4 ? x2 + len : x1;                    \
        int64_t i = 0;                                                                         \
        const int64_t nv = len / 16 * 16;                                                      \
        while (i < nv) {                                                                       \
            const int64_t e = i + DOT_BLOCK(A) * 16 < nv ? i + DOT_BLOCK(A) * 16 : nv;         \
            A fa[16], fb[16];                                                                  \
            for (int k = 0; k < 16; k++)                                                       \
                fa[k] = fb[k] = 0;                                                             \
            if (n == 2) {                                                                      \
                for (; i < e; i += 16)                                                         \
                    for (int k = 0; k < 16; k++) {                                             \
                        A d = wd[0] * x0[i + k];                                               \
                        d += wd[1] * x1[i + k];                                                \
                        A p = wp[0] * x0[i + k];                                               \
                        p += wp[1] * x1[i + k];                                                \
                        fa[k] += q[i + k] * d;                                                 \
                        fb[k] += v[i + k] * p;                                                 \
                    }                                                                          \
            } else {                                                                           \
                for (; i < e; i += 16)                                                         \
                    for (int k = 0; k < 16; k++) {                                             \
                        A d = wd[0] * x0[i + k];                                               \
                        d += wd[1] * x1[i + k];                                                \
                        d += wd[2] * x2[i + k];                                                \
                        d += wd[3] * x3[i + k];                                                \
                        A p = wp[0] * x0[i + k];                                               \
                        p += wp[1] * x1[i + k];                                                \
                        p += wp[2] * x2[i + k];                                                \
                        p += wp[3] * x3[i + k];                                                \
                        fa[k] += q[i + k] * d;                                                 \
                        fb[k] += v[i + k] * p;                                                 \
                    }                                                                          \
            }                                                                                  \
            for (int k = 0; k < 16; k++) {                                                     \
                la[k] += (double)fa[k];                                                        \
                lb[k] += (double)fb[k];                                                        \
            }                                                                                  \
        }                                                                                      \
        for (; i < len; i++) {                                                                 \
            A d = wd[0] * x0[i];                                                               \
            A p = wp[0] * x0[i];                                                               \
            for (int k = 1; k < n; k++) {                                                      \
                d += wd[k] * (k == 1 ? x1 : k == 2 ? x2 : x3)[i];                              \
                p += wp[k] * (k == 1 ? x1 : k == 2 ? x2 : x3)[i];                              \
            }                                                                                  \
            la[i & 15] += (double)(q[i] * d);                                                  \
            lb[i & 15] += (double)(v[i] * p);                                                  \
        }                                                                                      \
        LANES16_COMBINE(la);                                                                   \
        LANES16_COMBINE(lb);                                                                   \
        part[0] = la[0];                                                                       \
        part[1] = lb[0];                                                                       \
    })
DEFINE_ROW_DOTS2(row_dots2_f32, float)
DEFINE_ROW_DOTS2(row_dots2_f64, double)

/* V = E^T (cd ⊙ g) for one row (inner == 1) when E^T's interior is periodic
 * with period two (tt->per2): cd ⊙ g is formed split into its even and odd
 * outputs (Z[0..ne) and Z[ne..Ow)), so the interior reads every tap from a
 * unit-stride array and vectorises across inputs.  Each V[j] is the sum of
 * trow's TENTRY_GENERAL / TROW_PER2 (from 0, entries in ascending output
 * order) over the same products: the same bits. */
#define VROW_PER2_LOOP(A, UN)                                                                  \
    for (int64_t t = 0; t < nin; t++) {                                                        \
        A acc = 0;                                                                             \
        for (int k = 0; k < (UN); k++)                                                         \
            acc += cw[k] * P[k][t];                                                            \
        V[tt->j0 + t] = acc;                                                                   \
    }
#define DEFINE_VROW_PER2(NAME, A)                                                              \
    DRS_SIMD_FN(NAME,                                                                          \
                (const drs_ttable *tt, const A *W, const A *cd, const A *g, int64_t Ow, A *Z,  \
                 A *V),                                                                        \
                (tt, W, cd, g, Ow, Z, V), {                                                    \
        const int64_t ne = (Ow + 1) / 2, no = Ow / 2;                                          \
        A *Ze = Z, *Zo = Z + ne;                                                               \
        for (int64_t m = 0; m < no; m++) {                                                     \
            Ze[m] = cd[2 * m] * g[2 * m];                                                      \
            Zo[m] = cd[2 * m + 1] * g[2 * m + 1];                                              \
        }                                                                                      \
        if (ne > no)                                                                           \
            Ze[no] = cd[2 * no] * g[2 * no];                                                   \
        TT_FOR_EDGES(tt, j, tt->Lin) {                                                         \
            A acc = 0;                                                                         \
            for (int64_t e = tt->off[j]; e < tt->off[j + 1]; e++) {                            \
                const int64_t o = tt->o[e];                                                    \
                acc += W[e] * ((o & 1) ? Zo : Ze)[o >> 1];                                     \
            }                                                                                  \
            V[j] = acc;                                                                        \
        }                                                                                      \
        const int64_t e0 = tt->off[tt->j0], o0 = tt->o[e0], nin = tt->j1 - tt->j0;             \
        const A *P[8];                                                                         \
        A cw[8];                                                                               \
        for (int k = 0; k < tt->un; k++) {                                                     \
            P[k] = (((o0 + k) & 1) ? Zo : Ze) + ((o0 + k) >> 1);                               \
            cw[k] = W[e0 + k];                                                                 \
        }                                                                                      \
        if (tt->un == 2)                                                                       \
            VROW_PER2_LOOP(A, 2)                                                               \
        else if (tt->un == 4)                                                                  \
            VROW_PER2_LOOP(A, 4)                                                               \
        else                                                                                   \
            VROW_PER2_LOOP(A, 8)                                                               \
    })
DEFINE_VROW_PER2(vrow_per2_f32, float)
DEFINE_VROW_PER2(vrow_per2_f64, double)

/* The rows of tvrow_per2's V weights by tap (tiled2_grad's cdk: tap k of interior
 * input j0 + t at cdk[k * DRS_CDK_STRIDE(nin) + t]) start on 64-byte lines: each
 * row padded to a whole number of vectors of 16 floats, so that the vector form's
 * loads of a block of 16 inputs do not cross a line; a row's last block, which
 * starts at nin - 16, reads a copy of those 16 weights of each tap kept after the
 * rows (cdk[un * DRS_CDK_STRIDE(nin) + 16 k + l], l < 16).  With rows of nin
 * floats (124 in W12, 496 bytes: 7 of the 8 rows off the line, and every last
 * block) W12 in cubic mode with scales_delta on a Zen 5 core (drs_bench
 * --cpu-time, 1 thread, min of 8 alternating rounds) took 13.20 ms, now 12.72
 * (the median run's ratio to the data gradient 2.10 -> 1.98).  (With the weights
 * held in registers instead of loaded, results wrong, timing only: about 1 ms
 * less than with unpadded rows; the loads of the weights are what V costs most.) */
#define DRS_CDK_STRIDE(nin) (((nin) + 15) / 16 * 16)

/* T = P_w^T g and V = E^T (cd ⊙ g) of one row (inner == 1) in one sweep over
 * g, when both transposed tables are periodic with period two over the same
 * interior (tv_fusable): each T[j] is trow's TENTRY_GENERAL / TROW_PER2 sum
 * and each V[j] trow's over Z = cd ⊙ g (cd[o] * g[o] formed in the same way,
 * the terms in the same order), so both have the bits of the two separate
 * calls.  In the interior, tap k of input j0 + t reads its V weight
 * cdk[k * DRS_CDK_STRIDE(nin) + t] (tiled2_grad), a unit-stride load, and adds
 * cdk * g: where
 * V = E^T (cd ⊙ g) (cd given; every interior tap weight cv[k] of E^T is -1, 0
 * or 1: linear), cdk = cv[k] * cd[o0 + 2t + k] and (cv[k] * cd) * g is the
 * number cv[k] * (cd * g) with a multiply less; where V = D_w^T g (cd NULL:
 * cubic, whose D_w is not factored), cdk is D_w^T's own weight, and tv's
 * interior need only have per2's outputs (o2), not its weights. */
#define TVROW_PER2_LOOP(A, NT)                                                                 \
    for (int64_t t = 0; t < nin; t++) {                                                        \
        const A *s = s0 + 2 * t;                                                               \
        A at = 0, av = 0;                                                                      \
        for (int k = 0; k < (NT); k++) {                                                       \
            at += ct[k] * s[k];                                                                \
            av += cdk[k * cks + t] * s[k];                                                     \
        }                                                                                      \
        T[tt->j0 + t] = at;                                                                    \
        V[tt->j0 + t] = av;                                                                    \
    }
/* TVROW_PER2_LOOP's float rows with 8 entries an input (bicubic 2x, at least 16
 * inputs) in GCC vectors of 16 (the AVX-512 variant's registers): T as
 * TROW_PER2_V16 forms it (the carried form while a whole block follows, then the
 * last blocks formed as the last 16), and V from the same shifted lanes of g, tap
 * k's weights loaded from cdk: the terms of TVROW_PER2_LOOP in its order (the same
 * bits).  The shifted lanes are formed once for both rows, and cd ⊙ g is
 * neither stored nor shuffled.  W12 in cubic mode with scales_delta on a Zen 5 core
 * (drs_bench --cpu-time, 1 thread, min of 6 alternating rounds): 17.54 -> 16.77 ms
 * against trow over Z (the data gradient 7.1-7.2 ms); at 2 threads 8.9-9.7 ->
 * 8.8-9.3 (wall, 3 rounds). */
#define TVROW_PER2_V16_8()                                                                     \
    do {                                                                                       \
        const float *restrict ss_ = (const float *)s0, *restrict ck_ = (const float *)cdk;     \
        float *restrict tT_ = (float *)(T + tt->j0), *restrict tV_ = (float *)(V + tt->j0);    \
        drs_v16f ct_[8], s_[8];                                                                \
        for (int k_ = 0; k_ < 8; k_++)                                                         \
            ct_[k_] = (drs_v16f){0} + (float)ct[k_];                                           \
        int64_t q0_ = 0;                                                                       \
        if (nin >= 32) { /* the carried form */                                                \
            drs_v16f e_, o_, en_, on_;                                                         \
            TROW_V16_EO(ss_, e_, o_);                                                          \
            for (; q0_ + 32 <= nin; q0_ += 16) {                                               \
                TROW_V16_NEXT(ss_, q0_, en_, on_);                                             \
                s_[0] = e_;                                                                    \
                s_[1] = o_;                                                                    \
                s_[2] = TROW_V16_SHIFT(e_, en_, 1);                                            \
                s_[3] = TROW_V16_SHIFT(o_, on_, 1);                                            \
                s_[4] = TROW_V16_SHIFT(e_, en_, 2);                                            \
                s_[5] = TROW_V16_SHIFT(o_, on_, 2);                                            \
                s_[6] = TROW_V16_SHIFT(e_, en_, 3);                                            \
                s_[7] = TROW_V16_SHIFT(o_, on_, 3);                                            \
                TVROW_V16_TERMS(q0_);                                                          \
                e_ = en_;                                                                      \
                o_ = on_;                                                                      \
            }                                                                                  \
        }                                                                                      \
        for (int64_t q_ = q0_; q_ < nin; q_ += 16) {                                           \
            const int64_t b_ = q_ + 16 <= nin ? q_ : nin - 16;                                 \
            drs__prefetch_at(ss_ + 2 * b_, DRS_PF_ROW_BYTES);                                  \
            drs__prefetch_at(ss_ + 2 * b_, DRS_PF_ROW_BYTES + 64);                             \
            for (int k_ = 0; k_ < 8; k_ += 2)                                                  \
                TROW_V16_EO(ss_ + 2 * b_ + k_, s_[k_], s_[k_ + 1]);                            \
            TVROW_V16_TERMS(b_);                                                               \
        }                                                                                      \
    } while (0)
/* the 16 inputs from q of TVROW_PER2_V16_8, its tap rows in s_ */
#define TVROW_V16_TERMS(q)                                                                     \
    do {                                                                                       \
        drs_v16f at_ = (drs_v16f){0}, av_ = (drs_v16f){0}, z_;                                 \
        /* (a row's last block, from nin - 16 off the lines: its copy after the rows) */       \
        const int tl_ = ((q) & 15) != 0;                                                       \
        const float *cb_ = tl_ ? ck_ + 8 * cks : ck_ + (q);                                    \
        const int64_t cs_ = tl_ ? 16 : cks;                                                    \
        for (int k_ = 0; k_ < 8; k_++) {                                                       \
            at_ += ct_[k_] * s_[k_];                                                           \
            memcpy(&z_, cb_ + k_ * cs_, sizeof z_);                                            \
            av_ += z_ * s_[k_];                                                                \
        }                                                                                      \
        memcpy(tT_ + (q), &at_, sizeof at_);                                                   \
        memcpy(tV_ + (q), &av_, sizeof av_);                                                   \
    } while (0)
#define DEFINE_TVROW_PER2(NAME, A)                                                             \
    DRS_SIMD_FN(NAME,                                                                          \
                (const drs_ttable *tt, const A *Wt, const drs_ttable *tv, const A *Wv,         \
                 const A *cd, const A *cdk, const A *g, A *restrict T, A *restrict V,          \
                 int noedge),                                                                  \
                (tt, Wt, tv, Wv, cd, cdk, g, T, V, noedge), {                                  \
        TT_FOR_EDGES(tt, j, (noedge ? 0 : tt->Lin)) {                                          \
            A at = 0, av = 0;                                                                  \
            for (int64_t e = tt->off[j]; e < tt->off[j + 1]; e++)                              \
                at += Wt[e] * g[tt->o[e]];                                                     \
            if (cd)                                                                            \
                for (int64_t e = tv->off[j]; e < tv->off[j + 1]; e++) {                        \
                    const int64_t o = tv->o[e];                                                \
                    av += Wv[e] * (cd[o] * g[o]);                                              \
                }                                                                              \
            else                                                                               \
                for (int64_t e = tv->off[j]; e < tv->off[j + 1]; e++)                          \
                    av += Wv[e] * g[tv->o[e]];                                                 \
            T[j] = at;                                                                         \
            V[j] = av;                                                                         \
        }                                                                                      \
        const int64_t e0 = tt->off[tt->j0], o0 = tt->o[e0], nin = tt->j1 - tt->j0;             \
        const int64_t cks = DRS_CDK_STRIDE(nin);                                               \
        const A *s0 = g + o0;                                                                  \
        A ct[8];                                                                               \
        for (int k = 0; k < tt->un; k++)                                                       \
            ct[k] = Wt[e0 + k];                                                                \
        if (DRS_SIMD_MULTI && drs__simd_level() == DRS_SIMD_AVX512 && sizeof(A) == 4 &&        \
            tt->un == 8 && nin >= 16)                                                          \
            TVROW_PER2_V16_8();                                                                \
        else if (tt->un == 2)                                                                  \
            TVROW_PER2_LOOP(A, 2)                                                              \
        else if (tt->un == 4)                                                                  \
            TVROW_PER2_LOOP(A, 4)                                                              \
        else                                                                                   \
            TVROW_PER2_LOOP(A, 8)                                                              \
    })
DEFINE_TVROW_PER2(tvrow_per2_f32, float)
DEFINE_TVROW_PER2(tvrow_per2_f64, double)

/* 1 when tvrow_per2 can form T (table tt) and V (table tv: E^T, factored, or
 * D_w^T) of a row */
static int tv_fusable(const drs_ttable *tt, const drs_ttable *tv, int factored)
{
    return tt->per2 && (factored ? tv->per2 : tv->o2) && tt->un > 0 && tt->un == tv->un &&
           tt->downk == 0 && tt->j0 == tv->j0 && tt->j1 == tv->j1 && tt->j1 > tt->j0 &&
           tt->Lin == tv->Lin && tt->o[tt->off[tt->j0]] == tv->o[tv->off[tv->j0]];
}

/* The two parameter sums of a dy row in the difference form (f32, inner 1,
 * both derivative tables of the linear type: every derivative row is
 * cd * (-1, +1) on two adjacent taps).  With Px = P_h x (this row's pass-h
 * output: weights w0, w1 on rows x0, x1, or w0 on x0) and T = P_w^T dy_r the
 * data gradient's row:
 *   gA_r = cd_h[oh] * < T, x_a1 - x_a0 >     (D_h x = cd_h * (x_a1 - x_a0))
 *   gB_r = sum_o cd[o] dy[o] (E Px)[o]       (< D_w^T dy_r, Px > regrouped)
 * where (E Px)[o] = Px[j] - Px[j - 1] = w0 (x0[j] - x0[j - 1]) + w1 (x1[j] -
 * x1[j - 1]) for the pair outputs 2j + a, 2j + a + 1 of input j in [J0, J1),
 * so D_w^T dy_r is never formed: per input two differences and the pair's
 * two products, where the transposed form took a product and a sum per tap
 * (four per input at 2x).  The differences are of x itself, taken before
 * anything is multiplied, so smooth data loses no digits to cancellation:
 * for x and dy 1 +- 1 % the float32 sums are within 7.2e-7 (gA) and 2.4e-5
 * (gB) of float64, where the products' form was off by up to 3.9e-5 and
 * 9.3e-4 (tests/test_backward.c, f32_scales_smooth).
 *
 * The arithmetic (drs__diff_sums_f32 has it for AVX-512 and AVX2; the same
 * bits): vector v holds j = 16v + k, k < 16, j < Lw; in lane k it adds
 *   ta = T[j] * (xa1[j] - xa0[j])
 *   tb = (cE[j] * dy[2j + a] + cO[j] * dy[2j + a + 1])
 *        * (w0 * (x0[j] - x0[j - 1]) + w1 * (x1[j] - x1[j - 1]))
 * (tb = 0 outside [J0, J1)) to float accumulators A_(v mod 2), B_(v mod 2);
 * after every 8 vectors and after the last, la[k] += A_0[k], then += A_1[k]
 * (lb likewise with B) in double, the accumulators reset; the row's sums are
 * LANES16_COMBINE of la and lb.  part[0] = cd_h[oh] * la's, part[1] = lb's +
 * the outputs outside the pairs whose derivative is not 0, one by one in
 * double in ascending order.  Each row's two sums land in its own slot, as
 * every other row's: the total is the same for any thread count. */
static inline float diff_px(const float *xp0, const float *xp1, float wp0, float wp1, int np,
                            int64_t j)
{
    float p = wp0 * xp0[j];
    if (np == 2)
        p += wp1 * xp1[j];
    return p;
}
/* Px[j] - Px[j - 1] as the difference form takes it: w0 (x0[j] - x0[j - 1]) (+ w1 (...)) */
static inline float diff_dpx(const float *xp0, const float *xp1, float wp0, float wp1, int np,
                             int64_t j)
{
    float p = wp0 * (xp0[j] - xp0[j - 1]);
    if (np == 2)
        p += wp1 * (xp1[j] - xp1[j - 1]);
    return p;
}
/* diff_row_f32's sums in plain C (diff_row_c_f32): the differences of Px and
 * the pairs' h in rows P and S first (loops that vectorise), then vector v (16
 * inputs from j = v) adds its terms to the accumulators of its parity, lanes
 * outside [0, Lw) and [J0, J1) as 0 */
#define DIFF_ROW_C(NP)                                                                         \
    do {                                                                                       \
        for (int64_t j = J0; j < J1; j++) {                                                    \
            P[j] = diff_dpx(xp0, xp1, wp0, wp1, (NP), j);                                      \
            S[j] = cE[j] * g[2 * j + a] + cO[j] * g[2 * j + a + 1];                            \
        }                                                                                      \
        const int64_t fl = (J0 + 15) / 16 * 16, fh = (J1 < Lw ? J1 : Lw) / 16 * 16;            \
        for (int64_t v0 = 0; v0 < Lw; v0 += 128) {                                             \
            float Ac[2][16], Bc[2][16];                                                        \
            for (int k = 0; k < 16; k++)                                                       \
                Ac[0][k] = Ac[1][k] = Bc[0][k] = Bc[1][k] = 0.0f;                              \
            for (int64_t v = v0; v < v0 + 128 && v < Lw; v += 16) {                            \
                float *Ap = Ac[(v / 16) & 1], *Bp = Bc[(v / 16) & 1];                          \
                if (v >= fl && v + 16 <= fh) {                                                 \
                    for (int k = 0; k < 16; k++) {                                             \
                        Ap[k] += T[v + k] * (xa1[v + k] - xa0[v + k]);                         \
                        Bp[k] += S[v + k] * P[v + k];                                          \
                    }                                                                          \
                } else {                                                                       \
                    for (int k = 0; k < 16; k++) {                                             \
                        const int64_t j = v + k;                                               \
                        Ap[k] += j < Lw ? T[j] * (xa1[j] - xa0[j]) : 0.0f;                     \
                        Bp[k] += j >= J0 && j < J1 ? S[j] * P[j] : 0.0f;                       \
                    }                                                                          \
                }                                                                              \
            }                                                                                  \
            if (v0 == 0) /* (la, lb from 0: no initialiser, which became rep stos) */          \
                for (int k = 0; k < 16; k++) {                                                 \
                    la[k] = 0.0 + (double)Ac[0][k];                                            \
                    lb[k] = 0.0 + (double)Bc[0][k];                                            \
                }                                                                              \
            else                                                                               \
                for (int k = 0; k < 16; k++) {                                                 \
                    la[k] += (double)Ac[0][k];                                                 \
                    lb[k] += (double)Bc[0][k];                                                 \
                }                                                                              \
            for (int k = 0; k < 16; k++) {                                                     \
                la[k] += (double)Ac[1][k];                                                     \
                lb[k] += (double)Bc[1][k];                                                     \
            }                                                                                  \
        }                                                                                      \
    } while (0)
/* diff_row_f32's two lane sums in plain C (DIFF_ROW_C): where drs__diff_sums_f32
 * cannot (a one-tap row, gA's rows not Px's, or a variant without its kernels) */
DRS_SIMD_FN(diff_row_c_f32,
            (const tiled2_grad *G, const float *T, const float *xa0, const float *xa1,
             const float *xp0, const float *xp1, float wp0, float wp1, int np, const float *g,
             int64_t Lw, float *restrict P, float *restrict S, double *sums),
            (G, T, xa0, xa1, xp0, xp1, wp0, wp1, np, g, Lw, P, S, sums), {
    const int64_t J0 = G->dJ0, J1 = G->dJ1, a = G->da;
    const float *cE = G->dcdE, *cO = G->dcdO;
    double la[16], lb[16]; /* from 0 (DIFF_ROW_C's first block) */
    if (np == 2)
        DIFF_ROW_C(2);
    else
        DIFF_ROW_C(1);
    LANES16_COMBINE(la);
    LANES16_COMBINE(lb);
    sums[0] = la[0];
    sums[1] = lb[0];
})
/* A plain function, not one of DRS_SIMD_FN's: the row loop calls it once per
 * row of dy, and the vector kernel (drs__diff_sums_f32) is reached without a
 * dispatch and without the C form's vector constants, which, set up before the
 * call in one function with it, were saved and restored around it on every row
 * (W12 with scales_delta, 1 thread: about 2.5 ms of 17) */
/* a row's two parts from its lane sums: the other outputs whose derivative is not 0
 * added one by one, in ascending order: cd[o] dy[o] (E Px)[o] */
static void diff_row_finish(const tiled2_grad *G, const float *xp0, const float *xp1, float wp0,
                            float wp1, int np, const float *g, double cdh, const double *sums,
                            double *part)
{
    const drs_table *tw = G->twd;
    const float *cd = (const float *)G->cdw;
    double e = 0.0;
    for (int64_t r = 0; r < G->dne; r++) {
        const int64_t o = G->deo[r];
        const int32_t nt = tw->ntap[o];
        const float *E = G->dE + o * tw->stride;
        const int64_t f = tw->first[o];
        float v;
        if (nt == 2 && E[0] == -1.0f && E[1] == 1.0f) { /* the pairs' difference */
            v = diff_dpx(xp0, xp1, wp0, wp1, np, f + 1);
        } else {
            v = E[0] * diff_px(xp0, xp1, wp0, wp1, np, f);
            for (int32_t k = 1; k < nt; k++)
                v += E[k] * diff_px(xp0, xp1, wp0, wp1, np, f + k);
        }
        e += (double)((cd[o] * g[o]) * v);
    }
    part[0] = G->wantA ? cdh * sums[0] : 0.0; /* (0 exactly without gA) */
    part[1] = sums[1] + e;
}
static void diff_row_f32(const tiled2_grad *G, const float *T, const float *xa0,
                         const float *xa1, const float *xp0, const float *xp1, float wp0,
                         float wp1, int np, const float *g, int64_t Lw, double cdh, double *part,
                         float *restrict P, float *restrict S)
{
    double sums[2];
    if (!drs__diff_sums_f32(T, xa0, xa1, xp0, xp1, wp0, wp1, np, Lw, g, G->twd->O, G->da,
                            G->dcdE, G->dcdO, G->dJ0, G->dJ1, sums))
        diff_row_c_f32(G, T, xa0, xa1, xp0, xp1, wp0, wp1, np, g, Lw, P, S, sums);
    diff_row_finish(G, xp0, xp1, wp0, wp1, np, g, cdh, sums, part);
}
/* The same row with its transposed row T formed in the same sweep (the caller has
 * not formed it; tiled2's fuse, which drs__trow_diff_ok and the table's shape
 * allow): T[0] and T[Lw - 1], trow's general entries, summed here as TENTRY_GENERAL
 * sums them; the interior and the sums in drs__trow_diff_f32 (the bits of trow
 * and diff_row_f32) */
static void diff_row_trow_f32(const tiled2_grad *G, const drs_ttable *tt, float *T,
                              const float *xp0, const float *xp1, float wp0, float wp1,
                              const float *g, int64_t Lw, double cdh, double *part)
{
    const float *W = tt->wf;
    float t0 = 0, tl = 0;
    for (int64_t e = tt->off[0]; e < tt->off[1]; e++)
        t0 += W[e] * g[tt->o[e]];
    for (int64_t e = tt->off[Lw - 1]; e < tt->off[Lw]; e++)
        tl += W[e] * g[tt->o[e]];
    double sums[2];
    drs__trow_diff_f32(T, g, Lw, W + tt->off[tt->j0], t0, tl, xp0, xp1, wp0, wp1, G->dcdE,
                       G->dcdO, G->dJ0, G->dJ1, sums);
    diff_row_finish(G, xp0, xp1, wp0, wp1, 2, g, cdh, sums, part);
}

/* The difference form's rows of x, DRS_DIFF_PF_ROWS input rows ahead of the row x0
 * of n floats the current row of dy starts at, requested into the L1 when that
 * row moves on (past x's last rows: hints that miss).
 * W12 with scales_delta on a Zen 5 core (drs_bench, min of 4 alternating
 * rounds): 10.8 -> 9.6 ms at 1 thread (thread CPU time), 5.77 -> 5.12 at 2,
 * against a data gradient of 4.6 and 3.4 ms; 2 or 3 rows ahead 10.8 / 9.9, 6
 * or 8 rows 9.6 / 9.7, into the L2 8 rows ahead 9.7.  (On a Zen 4 core the same
 * prefetches into the L1 or the L2 had made it slower.) */
static inline void diff_prefetch_row(const float *x0, int64_t n)
{
    const size_t a = (size_t)(DRS_DIFF_PF_ROWS * n) * sizeof(float);
    for (size_t q = 0; q < (size_t)n * sizeof(float); q += 64)
        drs__prefetch_at(x0, a + q);
}

/* The row sums' x rows (DOTS2: taps shared by D_h and P_h, first row first[oh],
 * nt of them): when a row of dy moves the taps on, the row DRS_DOTS2_PF_ROWS past
 * the new last one is requested into the L1.  Without it the hardware's
 * prefetchers left the sums waiting on x: W12 in cubic mode with scales_delta on a
 * Zen 5 core (drs_bench --cpu-time, 1 thread, min of 6 alternating rounds) 14.23
 * -> 13.15 ms (4, 6 or 8 rows ahead: about 13.1 in a shorter batch); at 2 threads
 * (wall) 7.6-8.2 -> 6.9-7.5 ms.  A loop of the sums alone over W12's rows with x
 * from memory: 96 -> 62 cycles a row (4 to 8 rows ahead), as fast as with x in
 * the L2.  The same bits (a hint). */
#define DRS_DOTS2_PF_ROWS 2

/* the parameter sums of dy row OH inside tiled2's row loop, VR its V row (V, or its
 * slot of Vg) (a do-while, so that the joint form's early exit is a break); it uses
 * DEFINE_TILED2_TASK's locals (G, c, b, g, glen, buf, r0, inner, Dx, Px, Z, xb, cd, fz:
 * T not yet formed) */
#define TILED2_ROW_GRADS(A, WF, TROW, DOT, DOTS2, VROW, OH, VR)                                \
    do {                                                                                       \
        double *part = G->part + 2 * (b * c->Oh + (OH));                                       \
        const A *gr = g + (OH) * glen;                                                         \
        part[0] = part[1] = 0.0;                                                               \
        const int32_t nt = G->th->ntap[(OH)];                                                  \
        if (G->diff && (nt == 1 || nt == 2) &&                                                 \
            (!G->wantA || (G->thd->ntap[(OH)] == 2 &&                                          \
                           G->thd->dw[(OH) * G->thd->stride] ==                                \
                               -G->thd->dw[(OH) * G->thd->stride + 1]))) {                     \
            /* the difference form (f32, inner 1; G->diff is never set otherwise) */           \
            const float *xp0 = (const float *)xb + G->th->first[(OH)] * inner;                 \
            const float *wp = (const float *)G->th->wf + (OH) * G->th->stride;                 \
            const float *xp1 = nt == 2 ? xp0 + inner : xp0;                                    \
            /* (without gA, its rows are P_h x's: the kernels need the same two) */            \
            const float *xa0 =                                                                 \
                G->wantA ? (const float *)xb + G->thd->first[(OH)] * inner : xp0;              \
            if ((OH) > 0 && G->th->first[(OH)] != G->th->first[(OH) - 1] && !fz)               \
                diff_prefetch_row(xp0, inner);                                                 \
            if (fz) { /* T not formed yet: formed here, with the sums */                       \
                diff_row_trow_f32(G, c->ttw, (float *)(buf + ((OH) - r0) * inner), xp0, xp1,   \
                                  wp[0], wp[1], (const float *)gr, c->rowlen,                  \
                                  G->wantA ? G->thd->dw[(OH) * G->thd->stride + 1] : 0.0,      \
                                  part);                                                       \
                break;                                                                         \
            }                                                                                  \
            diff_row_f32(G, (const float *)(buf + ((OH) - r0) * inner), xa0,                   \
                         G->wantA ? xa0 + inner : xp1, xp0, xp1, wp[0],                        \
                         nt == 2 ? wp[1] : 0.0f, nt, (const float *)gr, c->rowlen,             \
                         G->wantA ? G->thd->dw[(OH) * G->thd->stride + 1] : 0.0, part,         \
                         (float *)Dx, (float *)(VR));                                          \
            break;                                                                             \
        }                                                                                      \
        const int both = G->wantA && G->wantB && (nt == 2 || nt == 4) &&                       \
                         G->thd->ntap[(OH)] == nt &&                                           \
                         G->thd->first[(OH)] == G->th->first[(OH)];                            \
        if (G->wantA && !both) {                                                               \
            PASS_OUTPUT(A, A, G->thd, (const A *)G->dwh, (A)0, (OH), Dx, xb, inner);           \
            part[0] = DOT(buf + ((OH) - r0) * inner, Dx, inner);                               \
        }                                                                                      \
        if (G->wantB) {                                                                        \
            const A *src = gr;                                                                 \
            const drs_ttable *tv = G->ttwd;                                                    \
            if (tvf) {                                                                         \
                /* V formed with T by TVROW */                                                 \
            } else if (G->factored && c->inner == 1 && tv->per2 && tv->un > 0 &&               \
                       tv->j1 > tv->j0 && !G->vz) {                                            \
                VROW(tv, (const A *)tv->WF, cd, gr, c->Ow, Z, (VR));                           \
            } else if (G->factored) {                                                          \
                if (c->inner == 1)                                                             \
                    for (int64_t q = 0; q < glen; q++)                                         \
                        Z[q] = cd[q] * gr[q];                                                  \
                else                                                                           \
                    for (int64_t o = 0; o < c->Ow; o++)                                        \
                        for (int64_t i = 0; i < c->inner; i++)                                 \
                            Z[o * c->inner + i] = cd[o] * gr[o * c->inner + i];                \
                src = Z;                                                                       \
                TROW(tv, (const A *)tv->WF, src, (VR), c->inner, 0);                           \
            } else {                                                                           \
                TROW(tv, (const A *)tv->WF, src, (VR), c->inner, 0);                           \
            }                                                                                  \
            if (both) {                                                                        \
                const int64_t xn_ = G->th->first[(OH)] + nt - 1 + DRS_DOTS2_PF_ROWS;           \
                if ((OH) > 0 && G->th->first[(OH)] != G->th->first[(OH) - 1] && xn_ < c->Lh)   \
                    drs__prefetch_span(xb + xn_ * inner, inner, sizeof(A));                    \
                DOTS2(buf + ((OH) - r0) * inner, (VR), xb + G->th->first[(OH)] * inner, inner, \
                      (const A *)G->dwh + (OH) * G->thd->stride,                               \
                      (const A *)G->th->WF + (OH) * G->th->stride, nt, part);                  \
                break;                                                                         \
            }                                                                                  \
            PASS_OUTPUT(A, A, G->th, (const A *)G->th->WF, (A)G->evh, (OH), Px, xb, inner);    \
            part[1] = DOT((VR), Px, inner);                                                    \
        }                                                                                      \
    } while (0)
/* A block of an integer-factor downsampling whose every input row has one tap
 * on both axes (area with exact factors), float, dx overwritten: each dx row
 * straight from its dy row with drs__down_stream_f32 (streaming stores when dx
 * is streamed out, else ordinary ones), T never stored.  With T rows in the
 * buffer, their stores queued behind the stores of dx: W6's backward 2.03 ->
 * 1.85 ms at 1 thread (streamed), about 10 % less at 2 threads (ordinary).
 * The bits of tiled2's rows. */
static void tiled2_direct_f32(const tiled2 *c, int64_t task)
{
    const int64_t b = task / c->nblk, k = task % c->nblk;
    const int64_t i0 = c->bstart[k], i1 = c->bstart[k + 1], glen = c->Ow;
    const drs_ttable *tt = c->tth;
    const float *g = (const float *)c->dy + b * c->Oh * glen;
    float *d = (float *)c->dx + b * c->Lh * c->rowlen;
    const int64_t o0 = c->ttw->o[c->ttw->off[0]];
    int64_t last = -1;
    for (int64_t j = i0; j < i1; j++) {
        const int64_t e = tt->off[j], oh = tt->o[e];
        /* each dy row once, as tiled2 reads it, also where dy would fit the caches
         * (c->pf 0): between other code's calls it comes from memory, and its rows
         * are read between long runs of streaming stores (W6's backward, drs_bench
         * --cold, 1 thread, min of 3 alternating rounds on a Zen 5 core: 1.53 ->
         * 1.17 ms; 1.15 ms warm before and after) */
        if (oh != last)
            drs__prefetch_ahead_l2(g, oh * glen, glen, c->Oh * glen, sizeof(float));
        last = oh;
        float *dr = d + j * c->rowlen;
        const float *s = g + oh * glen + o0, w = tt->wf[e];
        if (!drs__down_stream_f32(dr, s, glen - o0, c->dc, c->down, w, c->rowlen, c->sbuf > 0))
            for (int64_t q = 0; q < c->rowlen; q++) /* (the caller checked what it needs) */
                dr[q] = 0.0f + w * (0.0f + c->dc[q % c->down] * s[q / c->down]);
    }
}

/* dx row j of a float block (1 to 8 T rows, src holding the rows from obase on)
 * streamed out from the registers, not formed in the buffer and copied
 * (drs__tsweep_stream_f32: TSWEEP's sums, the same bits); 0 when it cannot */
static int tiled2_stream_row_f32(const drs_ttable *tt, const float *W, int64_t j, float *d,
                                 const float *src, int64_t obase, int64_t inner)
{
    const int64_t e0 = tt->off[j], ne = tt->off[j + 1] - e0;
    if (ne < 1 || ne > 8)
        return 0;
    const float *s[8];
    float w[8];
    TTAPSN(tt, W, e0, ne, src, obase, inner, w, s, 8)
    return drs__tsweep_stream_f32(d, s, w, (int)ne, inner);
}

/* The edge inputs of float rows 16 at a time (tiled2: the data gradient's rows, and
 * with the parameter sums the T and V rows of tvrow_per2's vector form).  In a
 * transposed row the inputs outside the interior [j0, j1) are sums over a few
 * entries each, summed one input at a time: short chains of dependent loads (the
 * entry's output, then the row's value) and adds at both ends of every row.  With
 * 8 entries an input (bicubic 2x) they took about 1.2 ms of W3's and W12's 7.1-7.5
 * ms backward at 1 thread on a Zen 5 core (measured by leaving them out).  Here
 * the rows' edges are formed after the block's rows, 16 rows at once: each row's
 * first and last 8 floats side by side (outputs 0-7 and glen - 8 .. glen - 1), the
 * 16 x 16 block transposed, so that each of its 16 columns holds one of those
 * outputs for the 16 rows (column k in r[col[k]]), and each edge input's sum is a
 * chain of broadcast weights times columns, lane r row r: the terms of
 * TENTRY_GENERAL in its order, from 0 (the same bits).  Rows past the last 16 one
 * at a time.  W3's backward 7.28 -> 6.41 ms, W12's in cubic mode 7.19 -> 6.49
 * (drs_bench --cpu-time, 1 thread, min of 6 alternating rounds; 6.79 -> 6.17 and
 * 6.80 -> 6.24 in a second batch); with 4 entries an input (bilinear, whose edges
 * are one or two entries) W1's went 4.86 -> 5.38, so those rows keep trow's own
 * edges.  With the parameter sums each row's sums follow its row, so there the next
 * 16 rows' edges are formed before them (and the 16 after those requested): W12's
 * cubic scales run 15.02 -> 14.03 ms and 15.10 -> 14.30 (min of 8 alternating
 * rounds); forming them after the 16 rows and holding the sums back until then was
 * slower (14.40 -> 15.54). */
static int tedge_rows_ok(const drs_ttable *tt, int64_t glen)
{
    if (!TEDGE_ROWS_V16 || tt->un != 8 || glen < 16 || !tt->wf)
        return 0;
    TT_FOR_EDGES(tt, j, tt->Lin) {
        for (int64_t e = tt->off[j]; e < tt->off[j + 1]; e++)
            if (tt->o[e] >= 8 && tt->o[e] < glen - 8)
                return 0; /* not within the row's first or last 8 outputs */
    }
    return 1;
}
/* one stage of the transpose: lanes of a and b interleaved by two masks */
#define TR16_STAGE(a, b, lo, hi, m0, m1)                                                       \
    do {                                                                                       \
        (lo) = __builtin_shuffle(a, b, m0);                                                    \
        (hi) = __builtin_shuffle(a, b, m1);                                                    \
    } while (0)
/* the edge inputs of the n rows g[r * glen ..], row r's sums into d[r * ds + j] (float,
 * overwriting; tedge_rows_ok) */
#if TEDGE_ROWS_V16
DRS_TARGET_AVX512
#endif
static void tedge_rows_f32(const drs_ttable *tt, const float *g, int64_t glen, float *dr,
                           int64_t ds, int64_t n)
{
    const float *W = tt->wf;
    int64_t r0 = 0;
#if TEDGE_ROWS_V16
    /* after the four stages, column k of the block is in r[col[k]] */
    static const int col[16] = {0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15};
    /* the four stages' masks: elements, pairs, quads, then halves interleaved */
    const drs_v16i k1a = {0, 16, 1, 17, 4, 20, 5, 21, 8, 24, 9, 25, 12, 28, 13, 29},
                   k1b = {2, 18, 3, 19, 6, 22, 7, 23, 10, 26, 11, 27, 14, 30, 15, 31},
                   k2a = {0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29},
                   k2b = {2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31},
                   k3a = {0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27},
                   k3b = {4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31},
                   k4a = {0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23},
                   k4b = {8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31},
                   kle = {0, 1, 2, 3, 4, 5, 6, 7, 24, 25, 26, 27, 28, 29, 30, 31};
    for (; r0 + 16 <= n; r0 += 16) {
        drs_v16f r[16], t[16];
        for (int i = 0; i < 16; i++) { /* lanes 0-7: outputs 0-7; 8-15: glen - 8 .. glen */
            drs_v16f l, h;
            memcpy(&l, g + (r0 + i) * glen, sizeof l);
            memcpy(&h, g + (r0 + i) * glen + glen - 16, sizeof h);
            r[i] = __builtin_shuffle(l, h, kle);
        }
        for (int i = 0; i < 16; i += 2)
            TR16_STAGE(r[i], r[i + 1], t[i], t[i + 1], k1a, k1b);
        for (int i = 0; i < 16; i += 4)
            for (int q = 0; q < 2; q++)
                TR16_STAGE(t[i + q], t[i + q + 2], r[i + q], r[i + q + 2], k2a, k2b);
        for (int i = 0; i < 16; i += 8)
            for (int q = 0; q < 4; q++)
                TR16_STAGE(r[i + q], r[i + q + 4], t[i + q], t[i + q + 4], k3a, k3b);
        for (int q = 0; q < 8; q++)
            TR16_STAGE(t[q], t[q + 8], r[q], r[q + 8], k4a, k4b);
        TT_FOR_EDGES(tt, j, tt->Lin) {
            drs_v16f a = (drs_v16f){0};
            for (int64_t e = tt->off[j]; e < tt->off[j + 1]; e++) {
                const int64_t o = tt->o[e];
                a += ((drs_v16f){0} + W[e]) * r[col[o < 8 ? o : o - (glen - 16)]];
            }
            float v[16];
            memcpy(v, &a, sizeof v);
            for (int i = 0; i < 16; i++)
                dr[(r0 + i) * ds + j] = v[i];
        }
    }
#endif
    for (; r0 < n; r0++) { /* the rest one row at a time, as trow sums them */
        const float *src = g + r0 * glen;
        float *d = dr + r0 * ds;
        const int accumulate = 0;
        TT_FOR_EDGES(tt, j, tt->Lin) {
            TENTRY_GENERAL(float, j);
        }
    }
}
#define DEFINE_TILED2_TASK(NAME, A, WF, TROW, DOT, DOTS2, VROW, TVROW, TPASS_SPAN)             \
    DRS_SIMD_FN(NAME, (const tiled2 *c, int64_t task, A *buf, drs_stream *ws, int64_t *last),  \
                (c, task, buf, ws, last), {                                                    \
        const int64_t b = task / c->nblk, k = task % c->nblk;                                  \
        const int64_t i0 = c->bstart[k], i1 = c->bstart[k + 1];                                \
        const int64_t r0 = c->olo[i0], r1 = c->ohi[i1 - 1], inner = c->rowlen;                 \
        const drs_ttable *tt = c->tth;                                                         \
        const A *W = (const A *)tt->WF;                                                        \
        const int accumulate = c->accumulate;                                                  \
        A *const d = c->dx ? (A *)c->dx + (b * c->Lh) * inner : NULL;                          \
        /* the T rows [r0, have) this thread formed for the block before (its task             \
         * before: the same image) are still in the buffer: moved to the front, not            \
         * formed again from dy (the same bits; W9's blocks of 7 input rows read 16            \
         * rows, 2 shared) */                                                                  \
        int64_t have = r0;                                                                     \
        if (k > 0 && *last == task - 1) {                                                      \
            const int64_t p0 = c->olo[c->bstart[k - 1]], p1 = c->ohi[i0 - 1];                  \
            if (p1 > r0 && r0 >= p0) {                                                         \
                memmove(buf, buf + (r0 - p0) * inner,                                          \
                        (size_t)((p1 - r0) * inner) * sizeof(A));                              \
                have = p1 < r1 ? p1 : r1;                                                      \
            }                                                                                  \
        }                                                                                      \
        *last = task;                                                                          \
        const A *g = (const A *)c->dy + b * c->Oh * c->Ow * c->inner;                          \
        const tiled2_grad *G = c->g;                                                           \
        A *Dx = buf + c->maxr * inner, *V = Dx + inner, *Px = V + inner, *Z = Px + inner;      \
        A *const Vg = Z + c->Ow * c->inner; /* vbat: a group's 16 rows of V */                 \
        const A *xb = G ? (const A *)G->x + b * c->Lh * inner : NULL;                          \
        const A *cd = G ? (const A *)G->cdw : NULL;                                            \
        /* the rows this block counts (a row the block before also forms is counted there) */  \
        const int64_t own0 = k > 0 && c->ohi[i0 - 1] > r0 ? c->ohi[i0 - 1] : r0;               \
        /* while a dy row is transposed, dy further on (within image b) is requested:          \
         * without it this sequential read ran well below the memory bandwidth (W1             \
         * backward about 30 % slower at 1 thread): rows under 8 KiB a row's length 4 or       \
         * 8 KiB on into the L2 (drs__prefetch_ahead_l2) and, in the AVX-512 vector loop,      \
         * DRS_PF_ROW_BYTES on into the L1; channels-last rows DRS_PF_ROW_BYTES on into        \
         * the L1 as their inputs are reached (tpass_span, far) */                             \
        const int64_t glen = c->Ow * c->inner;                                                 \
        /* 1: a counted row's T and V in one sweep over dy_r (tvrow_per2) */                   \
        const int tvf = G && G->wantB && G->cdk && c->inner == 1 &&                            \
                        tv_fusable(c->ttw, G->ttwd, G->factored);                              \
        /* a half_pixel 2x row of the difference form: its T formed with its sums              \
         * (diff_row_trow_f32) where trow would take the period-two interior [1, Lw - 1)       \
         * and general entries at 0 and Lw - 1 */                                              \
        const drs_ttable *tw_ = c->ttw;                                                        \
        const int fuse = sizeof(A) == sizeof(float) && G && G->diff && c->inner == 1 &&        \
                         tw_->per2 && tw_->un == 4 && tw_->downk == 0 && tw_->j0 == 1 &&       \
                         tw_->j1 == tw_->Lin - 1 && tw_->Lin == c->rowlen &&                   \
                         tw_->o[tw_->off[1]] == 1 &&                                           \
                         drs__trow_diff_ok(c->rowlen, glen, G->da, G->dJ0, G->dJ1);            \
        /* rows that trow forms in its vector form with 4 or 8 entries an input, which         \
         * requests dy into the L1 as it goes: not also requested into the L2 */               \
        const int v16pf = sizeof(A) == sizeof(float) && c->inner == 1 && tw_->per2 &&          \
                          (tw_->un == 4 || tw_->un == 8) && tw_->downk == 0 &&                 \
                          tw_->j1 - tw_->j0 >= 16 && DRS_SIMD_MULTI &&                         \
                          drs__simd_level() == DRS_SIMD_AVX512;                                \
        /* the rows' edge inputs 16 rows at once after the rows (tedge_rows_f32); with the     \
         * parameter sums (vbat), the counted rows' T and V edges 16 rows at once before the   \
         * rows, V in Vg's 16 rows, so that each row's sums follow its row at once */          \
        const int bat = !G && v16pf && c->ebat;                                                \
        const int vb = sizeof(A) == sizeof(float) && tvf && c->vbat;                           \
        for (int64_t oh = have; oh < r1; oh++) {                                               \
            int fz = 0;                                                                        \
            if (vb && oh >= own0 && (oh - own0) % 16 == 0) {                                   \
                /* the next 16 rows' edges first: T's in their rows, V's in Vg; the 16         \
                 * after them requested (their ends, which the vector sweep does not reach     \
                 * first; without it the scales run gained nothing: 15.19 -> 15.08 ms) */      \
                const int64_t n_ = r1 - oh < 16 ? r1 - oh : 16;                                \
                tedge_rows_f32(c->ttw, (const float *)(g + oh * glen), glen,                   \
                               (float *)(buf + (oh - r0) * inner), inner, n_);                 \
                tedge_rows_f32(G->ttwd, (const float *)(g + oh * glen), glen, (float *)Vg,     \
                               inner, n_);                                                     \
                for (int64_t p_ = oh + 16; p_ < oh + 32 && p_ < r1; p_++) {                    \
                    drs__prefetch_at(g + p_ * glen, 0);                                        \
                    drs__prefetch_at(g + p_ * glen + glen - 1, 0);                             \
                }                                                                              \
            }                                                                                  \
            if (fuse && oh >= own0 && G->th->ntap[oh] == 2) {                                  \
                const drs_table *hd_ = G->thd;                                                 \
                const int64_t q_ = oh * hd_->stride;                                           \
                fz = !G->wantA || (hd_->ntap[oh] == 2 && hd_->dw[q_] == -hd_->dw[q_ + 1] &&    \
                                   hd_->first[oh] == G->th->first[oh]);                        \
            }                                                                                  \
            if (c->pf && c->inner > 1) {                                                       \
                /* a long row (channels-last: 64 KiB in W9) as the transposed pass reads       \
                 * its rows, each input's outputs prefetched as it is reached; one burst per   \
                 * row ran ahead of what the row's loads could use (W9 backward 11.9 ->        \
                 * 10.0-10.3 ms at 1 thread) */                                                \
                TPASS_SPAN(c->ttw, (const A *)c->ttw->WF, g + oh * glen,                       \
                           buf + (oh - r0) * inner, 0, c->ttw->Lin, c->Ow, c->inner, 0,        \
                           (c->Oh - oh) * glen, DRS_PF_ROW_BYTES / (int64_t)sizeof(A), 1);     \
            } else {                                                                           \
                /* the whole row into the L2, except where what forms T requests dy into       \
                 * the L1 as it goes: the fused sweep (fz), tvrow_per2's vector form (tvf      \
                 * rows with tv16) and trow's (v16pf).  Without the L2 request as well,       \
                 * 1 thread: W12's scales run 8.13 -> 7.46-7.54 ms (the median run's ratio     \
                 * to the data gradient +53 % -> +32 to +35 %), in cubic mode 17.2-17.7 ->     \
                 * 16.8-16.9; W1's backward 4.59 -> 4.31, W7's 7.18 -> 6.57 */                 \
                if (c->pf && !(fz || (tvf && oh >= own0 ? G->tv16 : v16pf)))                  \
                    drs__prefetch_ahead_l2(g, oh * glen, glen, c->Oh * glen, sizeof(A));       \
                if (fz) {                                                                      \
                    /* (T formed with the row's sums below) */                                 \
                } else if (tvf && oh >= own0)                                                  \
                    TVROW(c->ttw, (const A *)c->ttw->WF, G->ttwd, (const A *)G->ttwd->WF,      \
                          G->factored ? cd : NULL, (const A *)G->cdk, g + oh * glen,           \
                          buf + (oh - r0) * inner, vb ? Vg + (oh - own0) % 16 * inner : V,     \
                          vb);                                                                 \
                else                                                                           \
                    TROW(c->ttw, (const A *)c->ttw->WF, g + oh * glen,                         \
                         buf + (oh - r0) * inner, c->inner, bat ? TROW_NO_EDGES : 0);          \
            }                                                                                  \
            if (G && oh >= own0) /* row oh's sums, with dy_r and T_r in L1 */                  \
                TILED2_ROW_GRADS(A, WF, TROW, DOT, DOTS2, VROW, oh,                            \
                                 vb ? Vg + (oh - own0) % 16 * inner : V);                      \
        }                                                                                      \
        if (bat && r1 > have)                                                                  \
            tedge_rows_f32(tw_, (const float *)(g + have * glen), glen,                        \
                           (float *)(buf + (have - r0) * inner), inner, r1 - have);            \
        if (d) { /* (NULL: only the parameter gradients; no offset from NULL) */               \
            for (int64_t j = i0; j < i1; j++) {                                                \
                if (c->sbuf > 0) { /* overwrite of a large dx: streamed out */                 \
                    if (sizeof(A) == sizeof(float) &&                                          \
                        tiled2_stream_row_f32(tt, (const float *)W, j,                         \
                                              (float *)(d + j * inner),                        \
                                              (const float *)buf, r0, inner))                  \
                        continue;                                                              \
                    A *ob = buf + c->sbuf;                                                     \
                    TENTRY_INNER_N(A, A, j, ob, buf, r0, 8);                                   \
                    drs__stream_put(ws, d + j * inner, ob, (size_t)inner * sizeof(A));         \
                } else {                                                                       \
                    TENTRY_INNER_N(A, A, j, d + j * inner, buf, r0, 8);                        \
                }                                                                              \
            }                                                                                  \
        }                                                                                      \
    })
DEFINE_TILED2_TASK(tiled2_f32, float, wf, trow_f32, dot_f32_lanes, row_dots2_f32, vrow_per2_f32,
                   tvrow_per2_f32, tpass_f32_span)
DEFINE_TILED2_TASK(tiled2_f64, double, w, trow_f64, dot_lanes, row_dots2_f64, vrow_per2_f64,
                   tvrow_per2_f64, tpass_f64_span)

/* 1 and dx formed when the plan's two active passes are over adjacent axes
 * and pass h's table is monotone; 0 (nothing written) otherwise.  dx may be
 * NULL; g (or NULL): the parameter gradients' row sums into g->part, which
 * also needs every row of dy to lie in some block (else 0). */
/* Blocks of input rows [bstart[k], bstart[k + 1]) whose dy rows [olo, ohi)
 * span at most budget rows (at least one input row each): their count, with
 * bstart[count] = Lh and *maxr the most dy rows a block spans (at least 1). */
static int64_t tiled2_blocks(int64_t Lh, const int64_t *olo, const int64_t *ohi, int64_t budget,
                             int64_t *bstart, int64_t *maxr)
{
    int64_t nblk = 0;
    *maxr = 1;
    for (int64_t i0 = 0; i0 < Lh;) {
        int64_t i1 = i0 + 1;
        while (i1 < Lh && ohi[i1] - olo[i0] <= budget)
            i1++;
        bstart[nblk++] = i0;
        if (ohi[i1 - 1] - olo[i0] > *maxr)
            *maxr = ohi[i1 - 1] - olo[i0];
        i0 = i1;
    }
    bstart[nblk] = Lh;
    return nblk;
}

/* runs > 0 (no parameter gradient): the outer extent taken runs outer units at a time
 * (the last run fewer), dx holding one run, then[fn](ctx, b0, nb) called after the run
 * of outer units [b0, b0 + nb), once dx holds it; everything is allocated before the
 * first run */
typedef void (*tiled2_then_fn)(void *ctx, int64_t b0, int64_t nb);
static drs_status backward2_tiled_runs(const drs_plan *p, const drs_tables *T, drs_tensor *dx,
                                       const drs_tensor *dy, int accumulate,
                                       const tiled2_grad *g, int *done, int64_t runs,
                                       tiled2_then_fn then, void *ctx)
{
    *done = 0;
    if (T->nact != 2 || p->pass[T->active[1]].axis != p->pass[T->active[0]].axis + 1)
        return DRS_OK;
    const drs_axis_plan *ah = &p->pass[T->active[0]], *aw = &p->pass[T->active[1]];
    const int f32 = p->dtype == DRS_F32;
    const size_t esz = f32 ? sizeof(float) : sizeof(double);
    const int64_t outer = prod(p->in_shape, 0, ah->axis);
    const int64_t inner = prod(p->in_shape, aw->axis + 1, p->rank);
    const int64_t Lh = ah->in_len, Lw = aw->in_len, Oh = ah->O, Ow = aw->O;
    const int64_t rowlen = Lw * inner;
    const int64_t run = !g && runs > 0 && runs < outer ? runs : outer; /* outer units a run */
    drs_ttable ttw, tth;
    memset(&ttw, 0, sizeof ttw);
    memset(&tth, 0, sizeof tth);
    int64_t *olo = NULL, *ohi = NULL, *bstart = NULL;
    void *bufs = NULL;
    drs_status st;
    if ((st = ttable_build(&T->tab[T->active[1]], T->tab[T->active[1]].w, Lw, f32, 0.0, &ttw)) ||
        (st = ttable_build(&T->tab[T->active[0]], T->tab[T->active[0]].w, Lh, f32, 0.0, &tth)))
        goto out;
    olo = drs__malloc((size_t)Lh * sizeof *olo);
    ohi = drs__malloc((size_t)Lh * sizeof *ohi);
    bstart = drs__malloc(((size_t)Lh + 1) * sizeof *bstart);
    if (!olo || !ohi || !bstart) {
        st = drs__fail(DRS_ERR_NOMEM, "%s backward: out of memory (scratch)", p->op);
        goto out;
    }
    /* the oh range of each input row; monotone ranges or no tiling */
    int64_t prev_lo = 0, prev_hi = 0;
    for (int64_t j = 0; j < Lh; j++) {
        const int64_t e0 = tth.off[j], e1 = tth.off[j + 1];
        int64_t lo = e0 < e1 ? tth.o[e0] : prev_hi, hi = e0 < e1 ? tth.o[e1 - 1] + 1 : prev_hi;
        if (lo < prev_lo || hi < prev_hi)
            goto out; /* not monotone: the caller runs the two passes */
        if (lo > hi)
            lo = hi;
        olo[j] = prev_lo = lo;
        ohi[j] = prev_hi = hi;
        if (g && j > 0 && lo > ohi[j - 1])
            goto out; /* a row of dy no block forms: the caller's general chain */
    }
    if (g && (Lh == 0 || olo[0] != 0 || ohi[Lh - 1] != Oh))
        goto out;
    /* blocks of input rows whose T rows fit a per-thread buffer of ~512 KiB;
     * with fewer than 4 tasks per thread (few large planes, many threads),
     * smaller blocks, down to 4 tasks per thread.  Each dx row is the same sum
     * of the same T rows whichever block forms it: the blocks change no bit. */
    const int nthr = drs__nthreads();
    const int64_t budget = ((int64_t)512 << 10) / (int64_t)esz / (rowlen > 0 ? rowlen : 1);
    int64_t maxr, nblk = tiled2_blocks(Lh, olo, ohi, budget, bstart, &maxr);
    const int64_t want = 4 * (int64_t)nthr; /* tasks */
    if (nthr > 1 && run * nblk < want && nblk < Lh) {
        const int64_t b2 = Oh / ((want + run - 1) / run); /* dy rows per block */
        if (b2 < budget)
            nblk = tiled2_blocks(Lh, olo, ohi, b2 > 1 ? b2 : 1, bstart, &maxr);
    }
    /* per thread: maxr rows of T; with g also D_h x, V, P_h x rows and cd * dy_r */
    int64_t tstride, tbytes;
    if (drs__mul_overflow(maxr, rowlen, &tstride) || drs__mul_overflow(Ow, inner, &tbytes) ||
        (g && (tstride > INT64_MAX / 2 - tbytes || rowlen > INT64_MAX / 8)))
        goto out; /* scratch beyond 64 bits: the caller's general chain */
    tstride += g ? 3 * rowlen + tbytes : 0;
    /* the parameter sums of rows whose T and V tvrow_per2 forms in its vector form
     * (G->tv16), both tables' edges 16 rows at once: 16 rows of V */
    const int vbat = f32 && g && inner == 1 && g->tv16 && g->wantA && g->wantB && !g->diff &&
                     g->cdk && !g->factored && tv_fusable(&ttw, g->ttwd, 0) &&
                     tedge_rows_ok(&ttw, Ow) && tedge_rows_ok(g->ttwd, Ow) &&
                     rowlen <= 1024; /* (16 rows of V within 64 KiB, near the L1) */
    tstride += vbat ? 16 * rowlen : 0;
    /* an overwritten dx streamed out (drs__stream_gradient: large, or read from a dy
     * at least twice its size, the two together large): one more row per thread,
     * where a dx row not streamed from the registers is formed first */
    int64_t sbuf = 0, nxb, nyb;
    if (dx && !accumulate && !drs__mul_overflow(run * Lh, rowlen * (int64_t)esz, &nxb) &&
        !drs__mul_overflow(run * Oh, Ow * inner * (int64_t)esz, &nyb) &&
        drs__stream_gradient(nxb, nyb, nthr) && tstride <= INT64_MAX - rowlen) {
        sbuf = tstride;
        tstride += rowlen;
    }
    tiled2 c = {&ttw, &tth, dy->data, dx ? dx->data : NULL, bstart, olo, ohi, nblk, Oh,
                Ow, Lh, inner, rowlen, maxr, accumulate, g, sbuf,
                drs__prefetch_worth(outer * Oh * Ow * inner, esz), 0, 0, vbat, {0}};
    c.ebat = f32 && !g && inner == 1 && tedge_rows_ok(&ttw, Ow);
    /* direct rows (tiled2_direct_f32, no scratch): float, dx overwritten, no parameter
     * gradient, every input row one tap on both axes, pass w's inputs whole periods of
     * downk, and dx rows whole lines on 64-byte lines with AVX-512 */
    if (f32 && dx && !accumulate && !g && inner == 1 && ttw.downk >= 2 && ttw.downk <= 8 &&
        ttw.j0 == 0 && ttw.j1 == Lw && rowlen % 16 == 0 && ((uintptr_t)dx->data & 63) == 0 &&
        ttw.o[ttw.off[0]] >= 0 && (int64_t)ttw.downk * (Ow - ttw.o[ttw.off[0]]) >= rowlen &&
        drs__simd_level() == DRS_SIMD_AVX512) {
        int one = 1;
        for (int64_t j = 0; j < Lh && one; j++)
            one = tth.off[j + 1] - tth.off[j] == 1;
        if (one) {
            c.down = ttw.downk;
            for (int r = 0; r < ttw.downk; r++)
                c.dc[r] = ttw.wf[ttw.off[r]];
        }
    }
    if (!c.down) {
        if (drs__mul_overflow(tstride, (int64_t)nthr * (int64_t)esz, &tbytes) ||
            (uint64_t)tbytes > (uint64_t)SIZE_MAX)
            goto out;
        bufs = drs__scratch_get((size_t)tbytes, 0);
        if (!bufs) {
            st = drs__fail(DRS_ERR_NOMEM, "%s backward: out of memory (scratch)", p->op);
            goto out;
        }
    }
    for (int64_t b0 = 0; b0 < outer; b0 += run) {
        const int64_t nb = run < outer - b0 ? run : outer - b0, ntask = nb * nblk;
        c.dy = (const char *)dy->data + (size_t)(b0 * Oh * Ow * inner) * esz;
        /* nthr, not the live setting: the scratch holds nthr rows of buffers, and
         * another thread may change drs_set_num_threads() meanwhile */
        _Pragma("omp parallel num_threads((nb * Oh * Ow * inner > PAR_MIN_WORK) ? nthr : 1)")
        {
            const int64_t off = (int64_t)omp_get_thread_num() * tstride;
            drs_stream ws;
            drs__stream_begin(&ws);
            int64_t last = -1; /* this thread's task before */
            _Pragma("omp for schedule(static) nowait")
            for (int64_t task = 0; task < ntask; task++) {
                if (c.down)
                    tiled2_direct_f32(&c, task);
                else if (f32)
                    tiled2_f32(&c, task, (float *)bufs + off, &ws, &last);
                else
                    tiled2_f64(&c, task, (double *)bufs + off, &ws, &last);
            }
            if (sbuf > 0)
                drs__stream_end(&ws); /* this thread's streaming stores, before the barrier */
        }
        if (then)
            then(ctx, b0, nb);
    }
    *done = 1;
out:
    free(olo);
    free(ohi);
    free(bstart);
    drs__scratch_put(bufs);
    ttable_free(&ttw);
    ttable_free(&tth);
    return st;
}
static drs_status backward2_tiled(const drs_plan *p, const drs_tables *T, drs_tensor *dx,
                                  const drs_tensor *dy, int accumulate, const tiled2_grad *g,
                                  int *done)
{
    return backward2_tiled_runs(p, T, dx, dy, accumulate, g, done, 0, NULL, NULL);
}

/* backward_data's chain of transposed passes: after the tiled pair, run by run, the
 * passes 0 .. nact - 3 on the leading extents [b0, b0 + nb) / unit, from buf[0] (which
 * holds the run) to dx (chain_rest_run); else every pass over the whole tensor */
typedef struct chain_rest {
    const drs_plan *p;
    const drs_tables *T;
    const drs_ttable *tt;
    int64_t (*shp)[DRS_MAX_RANK]; /* the shapes before each pass, forward order */
    void **buf;
    void *dx;
    int accumulate, is_f32, amin;
    int64_t unit;
    size_t esz;
} chain_rest;
/* the chain's passes a .. 0 from cur on the leading extents [c0, c0 + n) (all of them:
 * c0 0, n their product), each into the scratch buffer cur is not, the last into dx */
static void chain_passes(const chain_rest *cr, int a, const void *cur, int64_t c0, int64_t n)
{
    const drs_plan *p = cr->p;
    for (; a >= 0; a--) {
        const drs_axis_plan *ap = &p->pass[cr->T->active[a]];
        int64_t sh[DRS_MAX_RANK]; /* shp[a] with n leading extents */
        memcpy(sh, cr->shp[a], sizeof sh);
        for (int d = 0; d < cr->amin; d++)
            sh[d] = d == 0 ? n : 1;
        const int64_t outer = prod(sh, 0, ap->axis), inner = prod(sh, ap->axis + 1, p->rank);
        const int last = a == 0;
        void *dst = cur == cr->buf[0] ? cr->buf[1] : cr->buf[0];
        if (last) /* dx from leading extent c0 on */
            dst = (char *)cr->dx + (size_t)(c0 * prod(cr->shp[0], cr->amin, p->rank)) * cr->esz;
        if (cr->is_f32)
            tpass_f32(cur, dst, outer, ap->O, inner, &cr->tt[a], last && cr->accumulate);
        else
            tpass_f64(cur, dst, outer, ap->O, inner, &cr->tt[a], last && cr->accumulate);
        cur = dst;
    }
}
static void chain_rest_run(void *ctx, int64_t b0, int64_t nb)
{
    const chain_rest *cr = ctx;
    chain_passes(cr, cr->T->nact - 3, cr->buf[0], b0 / cr->unit, nb / cr->unit);
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
    int done = 0;
    if ((st = backward2_tiled(p, &T, dx, dy, accumulate, NULL, &done)) || done) {
        drs_tables_free(p, &T);
        return st;
    }
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
        st = ttable_build(&T.tab[T.active[a]], T.tab[T.active[a]].w, ap->in_len, is_f32, 0.0,
                          &tt[a]);
        if (st)
            goto out;
    }
    for (int i = 0; i < 2 && i < T.nact - 1 && maxmid > 0; i++) {
        buf[i] = drs__scratch_get((size_t)maxmid * esz, 0);
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
        /* the last two passes (the first two transposed) over adjacent axes: one tiled
         * sweep (backward2_tiled_runs) on the shape before them, into buf[0], and the
         * rest of the chain from there.  Each element is the arithmetic of the separate
         * passes (the same bits); dy's transposed rows never go to memory.  The sweep
         * takes the outer extent in runs of about DRS_CHAIN_CHUNK bytes of its output
         * (whole leading extents no pass resizes: batch, channels), the rest of the
         * chain following each run while the run is still in the caches.  W7 (3-D, 2x
         * up on every axis) backward on a Zen 5 core, 1 thread: 10.3 ms with each pass
         * over memory, 8.8 with the tiled pair over the whole tensor, 7.6 in runs. */
        chain_rest cr = {p, &T, tt, shp, buf, dx->data, accumulate, is_f32, 0, 1, esz};
        int a = T.nact - 1, done2 = 0;
        if (T.nact >= 3 && buf[0] &&
            p->pass[T.active[a]].axis == p->pass[T.active[a - 1]].axis + 1) {
            for (int k = 0; k < T.nact; k++) /* the first axis a pass resizes */
                cr.amin = k == 0 || p->pass[T.active[k]].axis < cr.amin
                              ? p->pass[T.active[k]].axis
                              : cr.amin;
            const drs_axis_plan *ah = &p->pass[T.active[a - 1]];
            const int64_t P = prod(p->in_shape, 0, cr.amin);
            const int64_t outer = prod(shp[a - 1], 0, ah->axis);
            cr.unit = outer / P; /* outer units a leading extent */
            const int64_t mb = prod(shp[a - 1], 0, p->rank) / P * (int64_t)esz;
            int64_t lead = mb > 0 && mb < DRS_CHAIN_CHUNK ? DRS_CHAIN_CHUNK / mb : 1;
            lead = lead < P ? lead : P;
            drs_plan q = *p;
            memcpy(q.in_shape, shp[a - 1], sizeof q.in_shape);
            drs_tables T2 = T;
            T2.nact = 2;
            T2.active[0] = T.active[a - 1];
            T2.active[1] = T.active[a];
            drs_tensor mid = *dx;
            memcpy(mid.shape, shp[a - 1], sizeof mid.shape);
            mid.data = buf[0];
            if ((st = backward2_tiled_runs(&q, &T2, &mid, dy, 0, NULL, &done2, lead * cr.unit,
                                           chain_rest_run, &cr)))
                goto out;
        }
        if (!done2) /* every pass over the whole tensor */
            chain_passes(&cr, a, dy->data, 0, prod(p->in_shape, 0, cr.amin));
    }
out:
    for (int a = 0; a < T.nact; a++)
        ttable_free(&tt[a]);
    drs__scratch_put(buf[0]);
    drs__scratch_put(buf[1]);
    drs_tables_free(p, &T);
    return st;
}

/* ------------------------------- the 2-D parameter gradients in one pass
 * When the only passes of a chain are two over adjacent axes h, w = h + 1
 * (the common 2-D resize), the parameter gradients of both share one read of
 * dy.  Row r = (b, oh) of dy (Ow x inner) adds
 *   gA += < P_w^T dy_r, (D_h x)_r >,   gB += < D_w^T dy_r, (P_h x)_r >
 * where (P_h x)_r and (D_h x)_r are row oh of the h pass and of its
 * derivative, all in double.  Each row's partial sums (dot_lanes: a fixed
 * order) are added in row order: the same bits for any thread count. */
DRS_SIMD_FN_RET(double, dot_lanes, (const double *a, const double *b, int64_t n), (a, b, n),
{
    /* 16 lanes (4 AVX2 vectors) break the add latency chain; they and the
     * tail are combined in a fixed order, so the sum depends on n only */
    double l[16] = {0.0};
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        for (int k = 0; k < 16; k++)
            l[k] += a[i + k] * b[i + k];
    for (; i < n; i++)
        l[i & 15] += a[i] * b[i];
    LANES16_COMBINE(l);
    return l[0];
})


/* Z[o, i] = cd[o] * g[o, i] in double (inner == 1: one vectorisable loop) */
#define SCALE_ROWS(Z, cd, g, Ow, inner)                                                        \
    do {                                                                                       \
        if ((inner) == 1) {                                                                    \
            for (int64_t o = 0; o < (Ow); o++)                                                 \
                (Z)[o] = (cd)[o] * (double)(g)[o];                                             \
        } else {                                                                               \
            for (int64_t o = 0; o < (Ow); o++)                                                 \
                for (int64_t i = 0; i < (inner); i++)                                          \
                    (Z)[o * (inner) + i] = (cd)[o] * (double)(g)[o * (inner) + i];             \
        }                                                                                      \
    } while (0)

typedef struct fused2_job {
    const drs_plan *p;
    int kh, kw;        /* the two passes, in execution order */
    int wantA, wantB;  /* parameter gradients of pass kh / kw */
    drs_param param;
} fused2_job;

typedef struct fused2_ctx {
    const fused2_job *J;
    const drs_table *th, *thd;
    const drs_ttable *ttw, *ttwd;
    const double *cd;
    int factored;
    const void *x, *dy;
    double *bufs;
    int64_t Lh, Ow, Oh, inner, rowlen, bufstride;
    double evh;
} fused2_ctx;

/* Row r = (b, oh) of fused2_grads: the row's two partial sums into
 * part[0..1].  TS: the data type; TROW_D: a transposed row of TS into
 * double. */
#define DEFINE_FUSED2_ROW(NAME, TS, TROW_D)                                                    \
    DRS_SIMD_FN(NAME, (const fused2_ctx *c, int64_t r, int thr, double *part),                 \
                (c, r, thr, part),                                                             \
    {                                                                                          \
        const fused2_job *J = c->J;                                                            \
        const int64_t b = r / c->Oh, oh = r % c->Oh, rowlen = c->rowlen, inner = c->inner;     \
        double *U = c->bufs + (int64_t)thr * c->bufstride, *V = U + rowlen, *Px = V + rowlen,  \
               *Dx = Px + rowlen, *Z = Dx + rowlen;                                            \
        const TS *g = (const TS *)c->dy + r * c->Ow * inner;                                   \
        const TS *xb = (const TS *)c->x + b * c->Lh * rowlen;                                  \
        part[0] = part[1] = 0.0;                                                               \
        if (J->wantA) { /* U = P_w^T dy_r */                                                   \
            TROW_D(c->ttw, c->ttw->w, g, U, inner, 0);                                         \
            PASS_OUTPUT(TS, double, c->thd, c->thd->dw, 0.0, oh, Dx, xb, rowlen);              \
            part[0] = dot_lanes(U, Dx, rowlen);                                                \
        }                                                                                      \
        if (J->wantB) { /* V = D_w^T dy_r */                                                   \
            if (c->factored) {                                                                 \
                SCALE_ROWS(Z, c->cd, g, c->Ow, inner);                                         \
                trow_f64(c->ttwd, c->ttwd->w, Z, V, inner, 0);                                 \
            } else {                                                                           \
                TROW_D(c->ttwd, c->ttwd->w, g, V, inner, 0);                                   \
            }                                                                                  \
            PASS_OUTPUT(TS, double, c->th, c->th->w, c->evh, oh, Px, xb, rowlen);              \
            part[1] = dot_lanes(V, Px, rowlen);                                                \
        }                                                                                      \
    })
DEFINE_FUSED2_ROW(fused2_row_f32, float, trow_f32_f64)
DEFINE_FUSED2_ROW(fused2_row_f64, double, trow_f64)

static drs_status fused2_grads(const fused2_job *J, const drs_tensor *x, const drs_tensor *dy,
                               double *gA, double *gB)
{
    const drs_plan *p = J->p;
    const drs_axis_plan *ah = &p->pass[J->kh], *aw = &p->pass[J->kw];
    const int f32 = p->dtype == DRS_F32;
    *gA = *gB = 0.0;
    /* shapes: x [outer, Lh, Lw, inner] -> [outer, Oh, Lw, inner] -> dy [outer, Oh, Ow, inner] */
    const int64_t outer = prod(p->in_shape, 0, ah->axis);
    const int64_t inner = prod(p->in_shape, aw->axis + 1, p->rank);
    const int64_t Lh = ah->in_len, Lw = aw->in_len, Oh = ah->O, Ow = aw->O;
    const int64_t rowlen = Lw * inner, nrow = outer * Oh;
    if (prod(p->in_shape, 0, p->rank) == 0 || prod(p->out_shape, 0, p->rank) == 0)
        return DRS_OK;
    drs_table th, tw, thd, twd;
    drs_ttable ttw, ttwd;
    memset(&th, 0, sizeof th);
    memset(&tw, 0, sizeof tw);
    memset(&thd, 0, sizeof thd);
    memset(&twd, 0, sizeof twd);
    memset(&ttw, 0, sizeof ttw);
    memset(&ttwd, 0, sizeof ttwd);
    double *bufs = NULL, *part = NULL, *cd = NULL, *E = NULL;
    int factored = 0;
    const int nthr = drs__nthreads();
    /* per thread: U (P_w^T dy in double), V (D_w^T dy), P_h x, D_h x; Z (cd * dy) */
    const int nb = 4;
    const int64_t zlen = Ow * inner;
    drs_status st;
    if ((st = drs_table_build(ah, &th, 0, DRS_PARAM_NONE)) ||
        (st = drs_table_build(aw, &tw, 0, DRS_PARAM_NONE)) ||
        (J->wantA && (st = drs_table_build(ah, &thd, 0, J->param))) ||
        (J->wantB && (st = drs_table_build(aw, &twd, 0, J->param))) ||
        (J->wantA && (st = ttable_build(&tw, tw.w, Lw, 0, 0.0, &ttw))))
        goto out;
    if (J->wantB) {
        /* D_w = E diag(cd) with cd[o] = dc/dθ and E = dw/dc, which is periodic
         * where the weights are (linear/cubic without antialias: dw = w'(t)
         * dc): then V = E^T (cd * dy_r) runs as the periodic loop.  Where it
         * does not factor (cd = 0 with dw != 0), D_w is used as it is. */
        cd = drs__malloc((size_t)Ow * sizeof *cd);
        E = drs__malloc((size_t)(Ow * twd.stride > 0 ? Ow * twd.stride : 1) * sizeof *E);
        if (!cd || !E) {
            st = drs__fail(DRS_ERR_NOMEM, "%s backward: out of memory (scratch)", p->op);
            goto out;
        }
        factored = 1;
        for (int64_t o = 0; o < Ow && factored; o++) {
            cd[o] = drs_coord_deriv(aw, o, J->param);
            for (int32_t k = 0; k < twd.ntap[o] && factored; k++) {
                const double dw = twd.dw[o * twd.stride + k];
                factored = cd[o] != 0.0 || dw == 0.0;
                E[o * twd.stride + k] = cd[o] != 0.0 ? dw / cd[o] : 0.0;
            }
        }
        if ((st = ttable_build(&twd, factored ? E : twd.dw, Lw, 0, factored ? 1e-12 : 0.0,
                               &ttwd)))
            goto out;
    }
    bufs = drs__malloc((size_t)nthr * (nb * (size_t)rowlen + (size_t)zlen) * sizeof *bufs);
    part = drs__malloc((size_t)nrow * 2 * sizeof *part);
    if (!bufs || !part) {
        st = drs__fail(DRS_ERR_NOMEM, "%s backward: out of memory (scratch)", p->op);
        goto out;
    }
    const fused2_ctx C = {J,   &th, &thd, &ttw, &ttwd, cd, factored, x->data, dy->data, bufs, Lh,
                          Ow,  Oh,  inner, rowlen, nb * rowlen + zlen, p->extrapolation_value};
    _Pragma("omp parallel for schedule(static) num_threads((nrow * Ow * inner > PAR_MIN_WORK) ? nthr : 1)") /* the scratch's count */
    for (int64_t r = 0; r < nrow; r++) {
        if (f32)
            fused2_row_f32(&C, r, omp_get_thread_num(), &part[2 * r]);
        else
            fused2_row_f64(&C, r, omp_get_thread_num(), &part[2 * r]);
    }
    for (int64_t r = 0; r < nrow; r++) {
        *gA += part[2 * r];
        *gB += part[2 * r + 1];
    }
out:
    free(bufs);
    free(part);
    free(cd);
    free(E);
    ttable_free(&ttw);
    ttable_free(&ttwd);
    drs_table_free(&th);
    drs_table_free(&tw);
    drs_table_free(&thd);
    drs_table_free(&twd);
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
    memcpy(shape, p->in_shape, sizeof shape);
    for (int a = 0; a + 1 < T.nact; a++) {
        shape[p->pass[T.active[a]].axis] = p->pass[T.active[a]].O;
        const int64_t n = prod(shape, 0, p->rank);
        maxn = n > maxn ? n : maxn;
    }
    if (T.nact > 1) {
        cur = drs__scratch_get((size_t)maxn * sizeof *cur, 0);
        nxt = drs__scratch_get((size_t)maxn * sizeof *nxt, 0);
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
    drs__scratch_put(cur);
    drs__scratch_put(nxt);
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

/* The slot of pass k's parameter in the n-entry result (scales, or roi
 * starts then ends), -1 when it has none. */
static int param_slot(const drs_plan *p, int k, drs_param param, int n)
{
    const int idx = p->pass[k].param_index;
    if (idx < 0)
        return -1;
    const int slot = param == DRS_PARAM_ROI_END ? n / 2 + idx : idx;
    return slot < n ? slot : -1;
}

/* The kink rule (docs/semantics.md, "Kinks"): per pass with a parameter,
 * kink_dir = +1 when only the larger values of its parameter keep the output
 * size (the value is the low end of its drs_*_scale_range interval), -1 when
 * only the smaller ones do (the next double leaves it), else 0 (the right
 * derivative in c, the forward's tap choice).  left/right[slot]: whether the
 * neighbouring doubles keep the size (NULL: none has a side). */
static void set_kink_dirs(drs_plan *p, drs_param param, int n, const int *left,
                          const int *right)
{
    for (int k = 0; k < p->npass; k++) {
        const int slot = param_slot(p, k, param, n);
        p->pass[k].kink_dir = 0;
        if (slot >= 0 && left && left[slot] != right[slot])
            p->pass[k].kink_dir = right[slot] ? 1 : -1;
    }
}

/* Parameter gradients for every pass with a param_index; results land in
 * tmp[] first so that nothing is written before every computation succeeded.
 * A parameter whose chain is two passes over adjacent axes (the common 2-D
 * resize) is computed with its partner's by fused2_grads. */
static drs_status param_grads(const drs_plan *p, const drs_tensor *x, const drs_tensor *dy,
                              drs_param param, int n, double *tmp)
{
    for (int i = 0; i < n; i++)
        tmp[i] = 0.0;
    /* An empty data or output_delta makes every parameter gradient an empty
     * sum: 0, with no table built (an empty batch may carry output extents
     * of 2^31 whose tables would not fit in memory). */
    int64_t nx = 1, ny = 1;
    for (int i = 0; i < x->rank; i++)
        nx *= x->shape[i] ? 1 : 0;
    for (int i = 0; i < dy->rank; i++)
        ny *= dy->shape[i] ? 1 : 0;
    if (nx == 0 || ny == 0)
        return DRS_OK;
    drs_tables T;
    drs_status st = drs_tables_build(p, &T, 0, -1, DRS_PARAM_NONE);
    if (st)
        return st;
    int act[DRS_MAX_RANK] = {0}, done[DRS_MAX_RANK] = {0};
    for (int a = 0; a < T.nact; a++)
        act[T.active[a]] = 1;
    drs_tables_free(p, &T);
    for (int k = 0; k < p->npass; k++) {
        if (done[k] || param_slot(p, k, param, n) < 0)
            continue;
        int S[DRS_MAX_RANK + 1], ns = 0; /* the chain of k: active passes and k */
        for (int q = 0; q < p->npass; q++)
            if (act[q] || q == k)
                S[ns++] = q;
        if (ns == 2 && p->pass[S[1]].axis == p->pass[S[0]].axis + 1) {
            fused2_job J = {p, S[0], S[1], 0, 0, param};
            J.wantA = param_slot(p, S[0], param, n) >= 0 && !done[S[0]];
            J.wantB = param_slot(p, S[1], param, n) >= 0 && !done[S[1]];
            double gA, gB;
            if ((st = fused2_grads(&J, x, dy, &gA, &gB)))
                return st;
            if (J.wantA)
                tmp[param_slot(p, S[0], param, n)] = gA;
            if (J.wantB)
                tmp[param_slot(p, S[1], param, n)] = gB;
            done[S[0]] = done[S[1]] = 1;
            continue;
        }
        if ((st = param_grad(p, x, dy, k, param, &tmp[param_slot(p, k, param, n)])))
            return st;
        done[k] = 1;
    }
    return DRS_OK;
}

static void store_params(double *dst, const double *src, int n, drs_grad_mode mode)
{
    for (int i = 0; i < n; i++)
        dst[i] = mode == DRS_GRAD_ACCUMULATE ? dst[i] + src[i] : src[i];
}

static int all_zero(const double *v, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (v[i] != 0.0)
            return 0;
    return 1;
}

/* 1 when output o of pass w's factored derivative table reads taps j - 1 and j
 * with E = (-1, +1) */
static int diff_pair(const drs_table *tw, const double *E, int64_t o, int64_t j)
{
    return o >= 0 && o < tw->O && tw->ntap[o] == 2 && tw->first[o] == j - 1 &&
           E[o * tw->stride] == -1.0 && E[o * tw->stride + 1] == 1.0;
}

/* The difference form's tables (diff_row_f32): the longest run of inputs j
 * around the middle output whose two outputs 2j + a and 2j + a + 1 both
 * read taps j - 1 and j with E = (-1, +1) (a 2x upsampling's interior for
 * linear); none (G->diff stays 0) when there is no run of 16, or more than 8
 * outputs outside it have a derivative (they are summed one by one). */
static drs_status diff_setup(const char *op, tiled2_grad *G, const drs_table *tw,
                             const double *E, const double *cd, int64_t Lw, float **dcd,
                             float **dE, int64_t **deo)
{
    const int64_t Ow = tw->O, om = Ow / 2;
    if (Ow < 2 || tw->ntap[om] != 2)
        return DRS_OK;
    const int64_t jm = tw->first[om] + 1;
    int64_t best = 0, bJ0 = 0, ba = 0;
    for (int64_t a = om - 2 * jm - 1; a <= om - 2 * jm; a++) {
        if (!diff_pair(tw, E, 2 * jm + a, jm) || !diff_pair(tw, E, 2 * jm + a + 1, jm))
            continue;
        int64_t J0 = jm, J1 = jm + 1;
        while (diff_pair(tw, E, 2 * (J0 - 1) + a, J0 - 1) &&
               diff_pair(tw, E, 2 * (J0 - 1) + a + 1, J0 - 1))
            J0--;
        while (diff_pair(tw, E, 2 * J1 + a, J1) && diff_pair(tw, E, 2 * J1 + a + 1, J1))
            J1++;
        if (J1 - J0 > best) {
            best = J1 - J0;
            bJ0 = J0;
            ba = a;
        }
    }
    if (best < 16)
        return DRS_OK;
    /* cE[j], cO[j]: the cd of input j's two outputs, j < Lw (0 outside the run) */
    *dcd = drs__calloc((size_t)(2 * Lw), sizeof **dcd);
    *dE = drs__malloc((size_t)(Ow * tw->stride) * sizeof **dE);
    *deo = drs__malloc((size_t)Ow * sizeof **deo);
    if (!*dcd || !*dE || !*deo)
        return drs__fail(DRS_ERR_NOMEM, "%s backward: out of memory (scratch)", op);
    for (int64_t j = bJ0; j < bJ0 + best; j++) {
        (*dcd)[j] = (float)cd[2 * j + ba];
        (*dcd)[Lw + j] = (float)cd[2 * j + ba + 1];
    }
    for (int64_t o = 0; o < Ow; o++) /* (E is set for the taps of each output only) */
        for (int32_t k = 0; k < tw->stride; k++)
            (*dE)[o * tw->stride + k] = k < tw->ntap[o] ? (float)E[o * tw->stride + k] : 0.0f;
    /* the outputs outside the pairs whose derivative row cd[o] E[o] is not 0 (one with
     * cd[o] = 0 has dw = 0: the table factors) */
    int64_t ne = 0;
    for (int64_t o = 0; o < Ow; o++) {
        if (o >= 2 * bJ0 + ba && o < 2 * (bJ0 + best) + ba)
            continue;
        int nz = 0;
        for (int32_t k = 0; k < tw->ntap[o]; k++)
            nz |= cd[o] != 0.0 && E[o * tw->stride + k] != 0.0;
        if (nz)
            (*deo)[ne++] = o;
    }
    if (ne > 8)
        return DRS_OK; /* (the run is not most of the row: the transposed form) */
    G->dne = ne;
    G->deo = *deo;
    G->dJ0 = bJ0;
    G->dJ1 = bJ0 + best;
    G->da = ba;
    G->dcdE = *dcd;
    G->dcdO = *dcd + Lw;
    G->dE = *dE;
    G->twd = tw;
    G->diff = 1;
    return DRS_OK;
}

/* The data gradient and the parameter gradients of a 2-D resize in one
 * tiled sweep (backward2_tiled with tiled2_grad): when the plan's active
 * passes are two over adjacent axes and every pass with a parameter slot is
 * one of them.  *done = 0 (nothing written, tmp untouched) otherwise; dx may
 * be NULL.  tmp[n]: the parameter gradients, by slot. */
static drs_status backward2_params(const drs_plan *p, drs_tensor *dx, const drs_tensor *x,
                                   const drs_tensor *dy, int accumulate, drs_param param, int n,
                                   double *tmp, int *done)
{
    *done = 0;
    if (prod(p->in_shape, 0, p->rank) == 0 || prod(p->out_shape, 0, p->rank) == 0)
        return DRS_OK;
    const int f32 = p->dtype == DRS_F32;
    drs_tables T;
    drs_status st = drs_tables_build(p, &T, f32, -1, DRS_PARAM_NONE);
    if (st)
        return st;
    drs_table thd, twd;
    drs_ttable ttwd;
    memset(&thd, 0, sizeof thd);
    memset(&twd, 0, sizeof twd);
    memset(&ttwd, 0, sizeof ttwd);
    double *part = NULL, *cd = NULL, *E = NULL;
    void *dwh = NULL, *cdw = NULL, *cdk = NULL;
    float *dcd = NULL, *dE = NULL;
    int64_t *deo = NULL;
    if (T.nact != 2 || p->pass[T.active[1]].axis != p->pass[T.active[0]].axis + 1)
        goto out;
    const int kh = T.active[0], kw = T.active[1];
    for (int k = 0; k < p->npass; k++)
        if (k != kh && k != kw && param_slot(p, k, param, n) >= 0)
            goto out; /* a parameter of an identity pass: the general chain */
    const drs_axis_plan *ah = &p->pass[kh], *aw = &p->pass[kw];
    const int64_t outer = prod(p->in_shape, 0, ah->axis);
    const int64_t Lw = aw->in_len, Oh = ah->O, Ow = aw->O, nrow = outer * Oh;
    tiled2_grad G;
    memset(&G, 0, sizeof G);
    G.wantA = param_slot(p, kh, param, n) >= 0;
    G.wantB = param_slot(p, kw, param, n) >= 0;
    G.th = &T.tab[kh];
    G.thd = &thd;
    G.ttwd = &ttwd;
    G.x = x->data;
    G.evh = p->extrapolation_value;
    if ((G.wantA && (st = drs_table_build(ah, &thd, 0, param))) ||
        (G.wantB && (st = drs_table_build(aw, &twd, 0, param))))
        goto out;
    /* an all-zero derivative table (nearest, area, pillow, the identity
     * short-cut, integer-width align_corners): exactly 0, nothing to sum */
    const int slotA = G.wantA, slotB = G.wantB;
    G.wantA = G.wantA && !all_zero(thd.dw, thd.O * thd.stride);
    G.wantB = G.wantB && !all_zero(twd.dw, twd.O * twd.stride);
    part = drs__malloc((size_t)(nrow > 0 ? nrow : 1) * 2 * sizeof *part);
    if (!part)
        goto nomem;
    if (G.wantA) {
        const int64_t nw = thd.O * thd.stride > 0 ? thd.O * thd.stride : 1;
        if (f32) {
            float *wf = drs__malloc((size_t)nw * sizeof *wf);
            if (!(dwh = wf))
                goto nomem;
            for (int64_t q = 0; q < thd.O * thd.stride; q++)
                wf[q] = (float)thd.dw[q];
        } else {
            dwh = thd.dw;
        }
    }
    if (G.wantB) {
        /* D_w = diag(cd) E with cd[o] = dc/dθ and E = dw/dc, periodic where
         * the weights are (linear/cubic without antialias): V = E^T (cd * dy_r)
         * runs as the periodic loop.  Where it does not factor (cd = 0 with
         * dw != 0), D_w is used as it is. */
        cd = drs__malloc((size_t)(Ow > 0 ? Ow : 1) * sizeof *cd);
        E = drs__malloc((size_t)(Ow * twd.stride > 0 ? Ow * twd.stride : 1) * sizeof *E);
        cdw = drs__malloc((size_t)(Ow > 0 ? Ow : 1) * (f32 ? sizeof(float) : sizeof(double)));
        if (!cd || !E || !cdw)
            goto nomem;
        G.factored = 1;
        for (int64_t o = 0; o < Ow && G.factored; o++) {
            cd[o] = drs_coord_deriv(aw, o, param);
            for (int32_t k = 0; k < twd.ntap[o] && G.factored; k++) {
                const double dw = twd.dw[o * twd.stride + k];
                G.factored = cd[o] != 0.0 || dw == 0.0;
                E[o * twd.stride + k] = cd[o] != 0.0 ? dw / cd[o] : 0.0;
            }
        }
        for (int64_t o = 0; o < Ow; o++) {
            if (f32)
                ((float *)cdw)[o] = (float)cd[o];
            else
                ((double *)cdw)[o] = cd[o];
        }
        G.cdw = cdw;
        if ((st = ttable_build(&twd, G.factored ? E : twd.dw, Lw, f32, G.factored ? 1e-12 : 0.0,
                               &ttwd)))
            goto out;
        if (f32 && G.factored && prod(p->in_shape, aw->axis + 1, p->rank) == 1 &&
            (st = diff_setup(p->op, &G, &twd, E, cd, Lw, &dcd, &dE, &deo)))
            goto out;
        /* (with the difference form every row's V is its own or vrow_per2's: no cdk) */
        if (!G.diff && G.factored && ttwd.per2 && ttwd.j1 > ttwd.j0 &&
            prod(p->in_shape, aw->axis + 1, p->rank) == 1) { /* tvrow_per2's rows (inner 1) */
            const int64_t nin = ttwd.j1 - ttwd.j0, o0 = ttwd.o[ttwd.off[ttwd.j0]];
            const size_t esz = f32 ? sizeof(float) : sizeof(double);
            const int64_t ev0 = ttwd.off[ttwd.j0];
            double cv[8]; /* the interior's tap weights, as tvrow_per2 reads them */
            int unit = 1;
            for (int k = 0; k < ttwd.un; k++) {
                cv[k] = f32 ? (double)ttwd.wf[ev0 + k] : ttwd.w[ev0 + k];
                unit &= cv[k] == -1.0 || cv[k] == 0.0 || cv[k] == 1.0;
            }
            /* Every interior tap weight -1, 0 or 1 (linear): cdk[k * cks + t] = cv[k] *
             * cd[o0 + 2t + k] (tap k of interior input j0 + t), which tvrow_per2
             * multiplies by dy once instead of twice, for the same bits.  Otherwise
             * (cubic) V = D_w^T dy, D_w not factored: D_w^T's weights are dw itself
             * (rounded once to the data's type), which tvrow_per2 reads by tap from
             * cdk, one multiply a term where E^T (cd ⊙ dy) took two; every other row
             * of V (trow over D_w^T) has the same bits.  W12 in cubic mode with
             * scales_delta on a Zen 5 core (drs_bench --cpu-time, 1 thread, min of 3
             * alternating rounds): 16.07 -> 15.02 ms, the data gradient 7.0 ms.  A
             * kernel that also formed the row's two sums in the same sweep (one pass
             * over the row instead of two) was no faster: about 28 cycles a vector of
             * 16 inputs in the L1, the sum of its three parts' own rates (T 9, V 12,
             * the sums 11), so the operations, not the passes, bound it.  (D_w^T and E^T
             * come from the same taps, zero weights kept, so their interiors agree; were
             * they to differ, V would stay trow over Z = cd ⊙ dy.) */
            drs_ttable dt;
            memset(&dt, 0, sizeof dt);
            if (!unit) {
                if ((st = ttable_build(&twd, twd.dw, Lw, f32, 0.0, &dt)))
                    goto out;
                if (dt.o2 && dt.un == ttwd.un && dt.j0 == ttwd.j0 && dt.j1 == ttwd.j1 &&
                    dt.o[dt.off[dt.j0]] == o0) {
                    ttable_free(&ttwd);
                    ttwd = dt; /* (G.ttwd points at ttwd) */
                    G.factored = 0;
                } else {
                    ttable_free(&dt);
                }
            }
            G.vz = G.factored && !unit; /* (rows tvrow_per2 does not take: trow over Z) */
            if (unit || !G.factored) {
                /* (rows of DRS_CDK_STRIDE(nin), then a copy of each row's last 16) */
                const int64_t cks = DRS_CDK_STRIDE(nin);
                if (!(cdk = drs__malloc((size_t)(ttwd.un * (cks + 16)) * esz)))
                    goto nomem;
                for (int k = 0; k < ttwd.un; k++)
                    for (int64_t t = 0; t < nin; t++) {
                        const int64_t e = ttwd.off[ttwd.j0 + t] + k, q = k * cks + t;
                        const double c = cd[o0 + 2 * t + k];
                        if (!G.factored && f32)
                            ((float *)cdk)[q] = ttwd.wf[e];
                        else if (!G.factored)
                            ((double *)cdk)[q] = ttwd.w[e];
                        else if (f32)
                            ((float *)cdk)[q] = (float)cv[k] * (float)c;
                        else
                            ((double *)cdk)[q] = cv[k] * c;
                    }
                for (int k = 0; k < ttwd.un && nin >= 16; k++) /* the last blocks' copy */
                    memcpy((char *)cdk + (size_t)(ttwd.un * cks + k * 16) * esz,
                           (const char *)cdk + (size_t)(k * cks + nin - 16) * esz, 16 * esz);
                G.tv16 = f32 && ttwd.un == 8 && nin >= 16 && DRS_SIMD_MULTI &&
                         drs__simd_level() == DRS_SIMD_AVX512;
                G.cdk = cdk;
            }
        }
    }
    G.dwh = dwh;
    G.part = part;
    if ((st = backward2_tiled(p, &T, dx, dy, accumulate, &G, done)) || !*done)
        goto out;
    double gA = 0.0, gB = 0.0;
    for (int64_t r = 0; r < nrow; r++) {
        gA += part[2 * r];
        gB += part[2 * r + 1];
    }
    for (int i = 0; i < n; i++)
        tmp[i] = 0.0;
    if (slotA)
        tmp[param_slot(p, kh, param, n)] = gA;
    if (slotB)
        tmp[param_slot(p, kw, param, n)] = gB;
    goto out;
nomem:
    st = drs__fail(DRS_ERR_NOMEM, "%s backward: out of memory (scratch)", p->op);
out:
    free(part);
    free(cd);
    free(E);
    free(cdw);
    free(cdk);
    free(dcd);
    free(dE);
    free(deo);
    if (f32)
        free(dwh);
    ttable_free(&ttwd);
    drs_table_free(&thd);
    drs_table_free(&twd);
    drs_tables_free(p, &T);
    return st;
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
    int left[DRS_MAX_RANK], right[DRS_MAX_RANK], fused = 0;
    if (scales_delta && use_scales) {
        if ((s = drs__interpolate_sides(attrs, data, in, left, right)))
            return s;
        set_kink_dirs(&p, DRS_PARAM_SCALE, ns, left, right);
        /* the 2-D resize: data and scales gradients in one sweep (dx written
         * only when every allocation succeeded; nothing fails after it) */
        if ((s = backward2_params(&p, dx, data, dy, mode == DRS_GRAD_ACCUMULATE,
                                  DRS_PARAM_SCALE, ns, tmp, &fused)))
            return s;
        if (!fused && (s = param_grads(&p, data, dy, DRS_PARAM_SCALE, ns, tmp)))
            return s;
        set_kink_dirs(&p, DRS_PARAM_NONE, 0, NULL, NULL);
    }
    if (scales_delta && !use_scales)
        for (int i = 0; i < ns; i++)
            tmp[i] = 0.0; /* sizes mode: the scales do not enter the forward */
    if (dx && !fused && (s = backward_data(&p, dx, dy, mode == DRS_GRAD_ACCUMULATE)))
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
    int sl[DRS_MAX_RANK], sr[DRS_MAX_RANK], rl[2 * DRS_MAX_RANK], rr[2 * DRS_MAX_RANK];
    if ((scales_delta && (s = drs__resize_sides(attrs, X, in, 0, sl, sr))) ||
        (roi_delta && (s = drs__resize_sides(attrs, X, in, 1, rl, rr))))
        return s;
    if (roi_delta) {
        double te[2 * DRS_MAX_RANK];
        set_kink_dirs(&p, DRS_PARAM_ROI_START, in->n_roi, rl, rr);
        if ((s = param_grads(&p, X, Y_delta, DRS_PARAM_ROI_START, in->n_roi, tr)))
            return s;
        set_kink_dirs(&p, DRS_PARAM_ROI_END, in->n_roi, rl, rr);
        if ((s = param_grads(&p, X, Y_delta, DRS_PARAM_ROI_END, in->n_roi, te)))
            return s;
        for (int i = in->n_roi / 2; i < in->n_roi; i++)
            tr[i] = te[i];
    }
    int fused = 0; /* last: the fused sweep writes X_delta, nothing fails after it */
    if (scales_delta) {
        set_kink_dirs(&p, DRS_PARAM_SCALE, in->n_scales, sl, sr);
        if ((s = backward2_params(&p, X_delta, X, Y_delta, mode == DRS_GRAD_ACCUMULATE,
                                  DRS_PARAM_SCALE, in->n_scales, ts, &fused)))
            return s;
        if (!fused && (s = param_grads(&p, X, Y_delta, DRS_PARAM_SCALE, in->n_scales, ts)))
            return s;
    }
    set_kink_dirs(&p, DRS_PARAM_NONE, 0, NULL, NULL);
    if (X_delta && !fused &&
        (s = backward_data(&p, X_delta, Y_delta, mode == DRS_GRAD_ACCUMULATE)))
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
