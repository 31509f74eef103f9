/* SPDX-License-Identifier: MIT */
/* simd.c — which SIMD variant of the hot row kernels runs.
 *
 * On x86-64 with GCC the row kernels are compiled three times (baseline
 * x86-64, AVX2, AVX-512: see DRS_SIMD_FN in core.h).  The variant is chosen
 * once, on the first kernel call: the best one the CPU supports, or the one
 * the environment variable DRS_SIMD names (baseline, avx2, avx512), lowered
 * to the best supported one when the CPU lacks it; any other value is
 * ignored.  Contraction is off (-ffp-contract=off) and no variant
 * reassociates, so every variant gives the same bits.
 */
#include "core.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if DRS_SIMD_MULTI
#include <immintrin.h>
#endif

_Atomic int drs__simd_level_cache = -1;

#if DRS_SIMD_MULTI
static int cpu_best(void)
{
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx2"))
        return DRS_SIMD_AVX512;
    if (__builtin_cpu_supports("avx2"))
        return DRS_SIMD_AVX2;
    return DRS_SIMD_BASELINE;
}
#else
static int cpu_best(void) { return DRS_SIMD_BASELINE; }
#endif

int drs__simd_init(void)
{
    int level = cpu_best();
    const char *env = getenv("DRS_SIMD");
    if (env) {
        int want = -1;
        if (!strcmp(env, "baseline"))
            want = DRS_SIMD_BASELINE;
        else if (!strcmp(env, "avx2"))
            want = DRS_SIMD_AVX2;
        else if (!strcmp(env, "avx512"))
            want = DRS_SIMD_AVX512;
        if (want >= 0 && want < level)
            level = want;
    }
    /* every thread computes the same value: a race only stores it twice */
    atomic_store_explicit(&drs__simd_level_cache, level, memory_order_relaxed);
    return level;
}

const char *drs_simd_variant(void)
{
    switch (drs__simd_level()) {
    case DRS_SIMD_AVX512: return "avx512";
    case DRS_SIMD_AVX2: return "avx2";
    default: return "baseline";
    }
}

/* Streaming (non-temporal) stores where the target has them (x86-64),
 * memcpy elsewhere.  For outputs far larger than the caches: no
 * read-for-ownership of the destination, which would otherwise double the
 * memory traffic of a write.  Each thread that streams
 * owns a drs_stream, puts its rows in (drs__stream_put: contiguous rows form
 * whole lines across row ends) and calls drs__stream_end() before the
 * region's closing barrier.
 * The kernels that stream (the nearest gather, the fused last two forward
 * passes, the tiled 2-D data gradient when it overwrites dx) form each row in
 * a per-thread buffer and stream it out (a copy: the bits of a direct write),
 * or where they can, stream it from the registers (the same bits),
 * when drs__stream_output says so; GridSample's float32 forward (outside the
 * tiled 2-D bicubic path) does the same with each block's points of a
 * channel when drs__stream_footprint says so.  The environment variable DRS_STREAM,
 * read once, changes that: 0 never, 1 always (to test the path on small
 * tensors). */
#define DRS_STREAM_MIN_BYTES ((int64_t)32 << 20)
/* k whole 64-byte lines d[0..64k) = s[0..64k) with streaming stores; d is
 * 64-byte aligned */
#if DRS_SIMD_MULTI
DRS_TARGET_AVX512 static void stream_lines_avx512(char *d, const char *s, size_t k)
{
    for (; k > 0; k--, d += 64, s += 64)
        _mm512_stream_si512((void *)d, _mm512_loadu_si512((const void *)s));
}
#endif
static void stream_lines(char *d, const char *s, size_t k)
{
#if DRS_SIMD_MULTI
    if (drs__simd_level() == DRS_SIMD_AVX512) {
        stream_lines_avx512(d, s, k);
        return;
    }
#endif
#if defined(__SSE2__)
    for (; k > 0; k--, d += 64, s += 64)
        for (int q = 0; q < 64; q += 16)
            _mm_stream_si128((__m128i *)(void *)(d + q),
                             _mm_loadu_si128((const __m128i *)(const void *)(s + q)));
#else
    memcpy(d, s, 64 * k);
#endif
}

/* Outputs j < n of a channels-last chunk whose outputs each read one or two
 * (nt[j]) columns of tmp (resample.c's taps2): y[j * inner + i] = w0 * p0[i]
 * + w1 * p1[i] with p0 = tmp + (first[j] - c0) * inner, p1 = p0 + inner, or
 * w0 * p0[i], the same products and sum as there (the same bits), written
 * with streaming stores
 * straight from the registers instead of through a row buffer; the next
 * chunk's input columns prefetched a slice per output as there.  Returns 0
 * (nothing written) unless y is on a 64-byte line, inner is a multiple of
 * 16 and the variant in use is AVX-512 or AVX2. */
#define LERP2_PREFETCH                                                                         \
    if (pfs > 0) {                                                                             \
        int64_t q0 = pf0 + j * pfs, q1 = q0 + pfs;                                             \
        q1 = q1 < rowlen ? q1 : rowlen;                                                        \
        for (int k = 0; k < nh && q1 > q0; k++)                                                \
            drs__prefetch_span(xr + k * rowlen + q0, q1 - q0, sizeof(float));                  \
    }
#if DRS_SIMD_MULTI
DRS_TARGET_AVX512 static void lerp2_stream_avx512(float *y, const float *tmp,
                                                  const int64_t *first, const int32_t *nt,
                                                  const float *W,
                                                  int64_t stride, int64_t n, int64_t c0,
                                                  int64_t inner, const float *xr, int64_t rowlen,
                                                  int nh, int64_t pf0, int64_t pfs)
{
    for (int64_t j = 0; j < n; j++) {
        LERP2_PREFETCH
        const __m512 w0 = _mm512_set1_ps(W[j * stride]),
                     w1 = _mm512_set1_ps(nt[j] == 2 ? W[j * stride + 1] : 0.0f);
        const float *p0 = tmp + (first[j] - c0) * inner, *p1 = p0 + inner;
        float *yo = y + j * inner;
        if (nt[j] == 1)
            for (int64_t i = 0; i < inner; i += 16)
                _mm512_stream_ps(yo + i, _mm512_mul_ps(w0, _mm512_loadu_ps(p0 + i)));
        else
            for (int64_t i = 0; i < inner; i += 16)
                _mm512_stream_ps(yo + i,
                                 _mm512_add_ps(_mm512_mul_ps(w0, _mm512_loadu_ps(p0 + i)),
                                               _mm512_mul_ps(w1, _mm512_loadu_ps(p1 + i))));
    }
}
DRS_TARGET_AVX2 static void lerp2_stream_avx2(float *y, const float *tmp, const int64_t *first,
                                              const int32_t *nt, const float *W, int64_t stride, int64_t n,
                                              int64_t c0, int64_t inner, const float *xr,
                                              int64_t rowlen, int nh, int64_t pf0, int64_t pfs)
{
    for (int64_t j = 0; j < n; j++) {
        LERP2_PREFETCH
        const __m256 w0 = _mm256_set1_ps(W[j * stride]),
                     w1 = _mm256_set1_ps(nt[j] == 2 ? W[j * stride + 1] : 0.0f);
        const float *p0 = tmp + (first[j] - c0) * inner, *p1 = p0 + inner;
        float *yo = y + j * inner;
        if (nt[j] == 1)
            for (int64_t i = 0; i < inner; i += 8)
                _mm256_stream_ps(yo + i, _mm256_mul_ps(w0, _mm256_loadu_ps(p0 + i)));
        else
            for (int64_t i = 0; i < inner; i += 8)
                _mm256_stream_ps(yo + i,
                                 _mm256_add_ps(_mm256_mul_ps(w0, _mm256_loadu_ps(p0 + i)),
                                               _mm256_mul_ps(w1, _mm256_loadu_ps(p1 + i))));
    }
}
#endif
/* d[0..inner) = 0 + w[0] s[0][i] (+ w[1] s[1][i] ...), ne (1 to 8) terms in
 * that order (backward.c's TSWEEP, overwriting: the same bits), written with
 * streaming stores from the registers */
#if DRS_SIMD_MULTI
/* the loop for NE terms (a constant: one straight sweep) */
#define TSWEEP_STREAM(NE, V, ZERO, SET1, LOAD, ADD, MUL, STREAM, STEP)                         \
    do {                                                                                       \
        V wv_[NE];                                                                             \
        for (int k_ = 0; k_ < (NE); k_++)                                                      \
            wv_[k_] = SET1(w[k_]);                                                             \
        for (int64_t i = 0; i < inner; i += (STEP)) {                                          \
            V a_ = ADD(ZERO(), MUL(wv_[0], LOAD(s[0] + i)));                                   \
            for (int k_ = 1; k_ < (NE); k_++)                                                  \
                a_ = ADD(a_, MUL(wv_[k_], LOAD(s[k_] + i)));                                   \
            STREAM(d + i, a_);                                                                 \
        }                                                                                      \
    } while (0)
#define TSWEEP_STREAM_512(NE)                                                                  \
    TSWEEP_STREAM(NE, __m512, _mm512_setzero_ps, _mm512_set1_ps, _mm512_loadu_ps,              \
                  _mm512_add_ps, _mm512_mul_ps, _mm512_stream_ps, 16)
#define TSWEEP_STREAM_256(NE)                                                                  \
    TSWEEP_STREAM(NE, __m256, _mm256_setzero_ps, _mm256_set1_ps, _mm256_loadu_ps,              \
                  _mm256_add_ps, _mm256_mul_ps, _mm256_stream_ps, 8)
/* the loop of M for ne's value */
#define TSWEEP_STREAM_NE(M)                                                                    \
    switch (ne) {                                                                              \
    case 1: M(1); break;                                                                       \
    case 2: M(2); break;                                                                       \
    case 3: M(3); break;                                                                       \
    case 4: M(4); break;                                                                       \
    case 5: M(5); break;                                                                       \
    case 6: M(6); break;                                                                       \
    case 7: M(7); break;                                                                       \
    default: M(8); break;                                                                      \
    }
DRS_TARGET_AVX512 static void tsweep_stream_avx512(float *d, const float *const *s,
                                                   const float *w, int ne, int64_t inner)
{
    TSWEEP_STREAM_NE(TSWEEP_STREAM_512);
}
DRS_TARGET_AVX2 static void tsweep_stream_avx2(float *d, const float *const *s, const float *w,
                                               int ne, int64_t inner)
{
    TSWEEP_STREAM_NE(TSWEEP_STREAM_256);
}
#undef TSWEEP_STREAM_NE
#undef TSWEEP_STREAM_512
#undef TSWEEP_STREAM_256
#undef TSWEEP_STREAM
#endif
int drs__tsweep_stream_f32(float *d, const float *const *s, const float *w, int ne, int64_t inner)
{
#if DRS_SIMD_MULTI
    if (((uintptr_t)d & 63) || inner % 16 || ne < 1 || ne > 8)
        return 0;
    const int l = drs__simd_level();
    if (l == DRS_SIMD_AVX512)
        tsweep_stream_avx512(d, s, w, ne, inner);
    else if (l == DRS_SIMD_AVX2)
        tsweep_stream_avx2(d, s, w, ne, inner);
    else
        return 0;
    return 1;
#else
    (void)d, (void)s, (void)w, (void)ne, (void)inner;
    return 0;
#endif
}
int drs__lerp2_stream_f32(float *y, const float *tmp, const int64_t *first, const int32_t *nt,
                          const float *W,
                          int64_t stride, int64_t n, int64_t c0, int64_t inner, const float *xr,
                          int64_t rowlen, int nh, int64_t pf0, int64_t pfs)
{
#if DRS_SIMD_MULTI
    if (((uintptr_t)y & 63) || inner % 16)
        return 0;
    const int l = drs__simd_level();
    if (l == DRS_SIMD_AVX512)
        lerp2_stream_avx512(y, tmp, first, nt, W, stride, n, c0, inner, xr, rowlen, nh, pf0, pfs);
    else if (l == DRS_SIMD_AVX2)
        lerp2_stream_avx2(y, tmp, first, nt, W, stride, n, c0, inner, xr, rowlen, nh, pf0, pfs);
    else
        return 0;
    return 1;
#else
    (void)y, (void)tmp, (void)first, (void)nt, (void)W, (void)stride, (void)n, (void)c0, (void)inner;
    (void)xr, (void)rowlen, (void)nh, (void)pf0, (void)pfs;
    return 0;
#endif
}
#undef LERP2_PREFETCH

/* The 2-periodic two-tap interior of a row (resample.c's PER2_LOOP with two
 * taps) streamed out: outputs 2j and 2j + 1, j < np (a multiple of 16), are
 * a = c[0] * x0[j] + c[1] * x0[j + 1] and b = c[2] * x1[j] + c[3] * x1[j + 1],
 * the same two products and one sum each (the same bits), interleaved in the
 * registers and written to y (on a 64-byte line) with streaming stores.
 * Returns 0 (nothing written) unless the variant in use is AVX-512. */
#if DRS_SIMD_MULTI
DRS_TARGET_AVX512 static void per2_stream_avx512(float *y, const float *x0, const float *x1,
                                                 const float c[4], int64_t np)
{
    const __m512 c00 = _mm512_set1_ps(c[0]), c01 = _mm512_set1_ps(c[1]);
    const __m512 c10 = _mm512_set1_ps(c[2]), c11 = _mm512_set1_ps(c[3]);
    const __m512i lo = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
    const __m512i hi =
        _mm512_set_epi32(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8);
    for (int64_t j = 0; j < np; j += 16) {
        const __m512 a = _mm512_add_ps(_mm512_mul_ps(c00, _mm512_loadu_ps(x0 + j)),
                                       _mm512_mul_ps(c01, _mm512_loadu_ps(x0 + j + 1)));
        const __m512 b = _mm512_add_ps(_mm512_mul_ps(c10, _mm512_loadu_ps(x1 + j)),
                                       _mm512_mul_ps(c11, _mm512_loadu_ps(x1 + j + 1)));
        _mm512_stream_ps(y + 2 * j, _mm512_permutex2var_ps(a, lo, b));
        _mm512_stream_ps(y + 2 * j + 16, _mm512_permutex2var_ps(a, hi, b));
    }
}
#endif
#if DRS_SIMD_MULTI
/* per2_row2x's 32 outputs from y on: the even ones c[2] b0 + c[3] b1 and the odd
 * ones c[0] a0 + c[1] a1 interleaved, the first replaced by e0 (first) and the
 * last by e1 (last), streamed */
DRS_TARGET_AVX512 static inline __attribute__((always_inline)) void
row2x_out32(float *y, __m512 b0, __m512 b1, __m512 a0, __m512 a1, const __m512 c[4], int first,
            int last, float e0, float e1)
{
    const __m512i lo = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
    const __m512i hi =
        _mm512_set_epi32(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8);
    __m512 E = _mm512_add_ps(_mm512_mul_ps(c[2], b0), _mm512_mul_ps(c[3], b1));
    __m512 O = _mm512_add_ps(_mm512_mul_ps(c[0], a0), _mm512_mul_ps(c[1], a1));
    if (first)
        E = _mm512_mask_mov_ps(E, 1, _mm512_set1_ps(e0));
    if (last)
        O = _mm512_mask_mov_ps(O, (__mmask16)0x8000, _mm512_set1_ps(e1));
    _mm512_stream_ps(y, _mm512_permutex2var_ps(E, lo, O));
    _mm512_stream_ps(y + 16, _mm512_permutex2var_ps(E, hi, O));
}
#endif
/* A whole row of Ow = 32 * M outputs whose outputs 1 .. Ow - 2 are a 2-periodic
 * two-tap run (2x upsampling): output 1 + 2j is c[0] * xa[j] + c[1] * xa[j + 1],
 * output 2 + 2j is c[2] * xb[j] + c[3] * xb[j + 1] (the same two products and
 * one sum as PER2_LOOP: the same bits), outputs 0 and Ow - 1 are e0 and e1;
 * every line formed in the registers and streamed to y (on a 64-byte line).
 * Each 32 outputs from 32m on are the even ones E (xb from 16m - 1) and the
 * odd ones O (xa from 16m) interleaved; at m = 0 the lane before xb[0] is a
 * zero moved in, at m = M - 1 the load after the row's last input is masked
 * off, and those lanes are replaced by e0 and e1. */
#if DRS_SIMD_MULTI
DRS_TARGET_AVX512 static void per2_row2x_avx512(float *y, int64_t M, float e0, float e1,
                                                const float *xa, const float *xb,
                                                const float c[4])
{
    const __m512 cv[4] = {_mm512_set1_ps(c[0]), _mm512_set1_ps(c[1]), _mm512_set1_ps(c[2]),
                          _mm512_set1_ps(c[3])};
    for (int64_t m = 0; m < M; m++) {
        const float *pa = xa + 16 * m;
        const __mmask16 last = m == M - 1 ? (__mmask16)0x7fff : (__mmask16)0xffff;
        /* xb[16m - 1 + i] and xb[16m + i]; at m = 0 the first is xb[0 .. 14] moved up a
         * lane (lane 0 is replaced by e0) */
        const __m512 b1 = _mm512_loadu_ps(xb + 16 * m);
        const __m512 b0 =
            m == 0 ? _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(b1),
                                                             _mm512_setzero_si512(), 15))
                   : _mm512_loadu_ps(xb + 16 * m - 1);
        row2x_out32(y + 32 * m, b0, b1, _mm512_loadu_ps(pa), _mm512_maskz_loadu_ps(last, pa + 1),
                    cv, m == 0, m == M - 1, e0, e1);
    }
}
#endif
int drs__per2_row2x_stream_f32(float *y, int64_t Ow, float e0, float e1, const float *xa,
                               const float *xb, const float c[4])
{
#if DRS_SIMD_MULTI
    if (((uintptr_t)y & 63) || Ow % 32 || Ow < 32 || drs__simd_level() != DRS_SIMD_AVX512)
        return 0;
    per2_row2x_avx512(y, Ow / 32, e0, e1, xa, xb, c);
    return 1;
#else
    (void)y, (void)Ow, (void)e0, (void)e1, (void)xa, (void)xb, (void)c;
    return 0;
#endif
}

/* One or two whole 2x rows (per2_row2x's outputs) with their row of pass h
 * formed in the registers too: that row is xr[i] = v[0] * x0[i] (+ v[1] *
 * x1[i] with x1), the arithmetic of resample.c's two-tap lerp2 or one-tap
 * OUTPUT_ROWS (the same bits), and per2_row2x's xa = xb = xr (the caller
 * checks that the table's outputs 1 and 2 start at input 0).  With ya2, a
 * second row from the same input rows with the weights v[2], v[3] and the
 * edges e[2], e[3]: each input element loaded once for both.  The row of pass
 * h is never stored; each 16 of its elements are formed once and their
 * neighbours taken from the 16 before and after (valignd). */
#if DRS_SIMD_MULTI
DRS_TARGET_AVX512 static void rows2x_avx512(float *ya, float *ya2, int64_t M, const float *x0,
                                            const float *x1, const float v[4], const float e[4],
                                            const float c[4])
{
    const __m512 cv[4] = {_mm512_set1_ps(c[0]), _mm512_set1_ps(c[1]), _mm512_set1_ps(c[2]),
                          _mm512_set1_ps(c[3])};
    const __m512 v0 = _mm512_set1_ps(v[0]), v1 = _mm512_set1_ps(v[1]);
    const __m512 v2 = _mm512_set1_ps(v[2]), v3 = _mm512_set1_ps(v[3]);
    const __m512 z = _mm512_setzero_ps();
    /* elements [16m, 16m + 16) of the row(s) of pass h */
#define ROWS2X_H(m, A, B)                                                                      \
    do {                                                                                       \
        const __m512 p0_ = _mm512_loadu_ps(x0 + 16 * (m));                                     \
        if (x1) {                                                                              \
            const __m512 p1_ = _mm512_loadu_ps(x1 + 16 * (m));                                 \
            A = _mm512_add_ps(_mm512_mul_ps(v0, p0_), _mm512_mul_ps(v1, p1_));                 \
            if (ya2)                                                                           \
                B = _mm512_add_ps(_mm512_mul_ps(v2, p0_), _mm512_mul_ps(v3, p1_));             \
        } else {                                                                               \
            A = _mm512_mul_ps(v0, p0_);                                                        \
            if (ya2)                                                                           \
                B = _mm512_mul_ps(v2, p0_);                                                    \
        }                                                                                      \
    } while (0)
    /* per2_row2x's 32 outputs from 32m on, from the row's elements before (P), at (C)
     * and after (N) 16m, streamed to y */
#define ROWS2X_OUT(y, P, C, N, e0, e1)                                                         \
    row2x_out32((y) + 32 * m,                                                                  \
                _mm512_castsi512_ps(                                                           \
                    _mm512_alignr_epi32(_mm512_castps_si512(C), _mm512_castps_si512(P), 15)),  \
                C, C,                                                                          \
                _mm512_castsi512_ps(                                                           \
                    _mm512_alignr_epi32(_mm512_castps_si512(N), _mm512_castps_si512(C), 1)),   \
                cv, m == 0, m == M - 1, e0, e1)
    __m512 pa = z, pb = z, ca = z, cb = z, na = z, nb = z;
    ROWS2X_H(0, ca, cb);
    for (int64_t m = 0; m < M; m++) {
        if (m + 1 < M)
            ROWS2X_H(m + 1, na, nb);
        else
            na = nb = z;
        ROWS2X_OUT(ya, pa, ca, na, e[0], e[1]);
        if (ya2)
            ROWS2X_OUT(ya2, pb, cb, nb, e[2], e[3]);
        pa = ca, ca = na, pb = cb, cb = nb;
    }
#undef ROWS2X_H
#undef ROWS2X_OUT
}
#endif
int drs__rows2x_stream_f32(float *ya, float *ya2, int64_t Ow, const float *x0, const float *x1,
                           const float v[4], const float e[4], const float c[4])
{
#if DRS_SIMD_MULTI
    if (((uintptr_t)ya & 63) || (ya2 && ((uintptr_t)ya2 & 63)) || Ow % 32 || Ow < 32 ||
        drs__simd_level() != DRS_SIMD_AVX512)
        return 0;
    rows2x_avx512(ya, ya2, Ow / 32, x0, x1, v, e, c);
    return 1;
#else
    (void)ya, (void)ya2, (void)Ow, (void)x0, (void)x1, (void)v, (void)e, (void)c;
    return 0;
#endif
}

int drs__per2_stream_f32(float *y, const float *x0, const float *x1, const float c[4], int64_t np)
{
#if DRS_SIMD_MULTI
    if (((uintptr_t)y & 63) || np % 16 || drs__simd_level() != DRS_SIMD_AVX512)
        return 0;
    per2_stream_avx512(y, x0, x1, c, np);
    return 1;
#else
    (void)y, (void)x0, (void)x1, (void)c, (void)np;
    return 0;
#endif
}

/* One row of the 2-D data gradient of an integer-factor downsampling with one
 * tap per input on both axes (area with exact factors, backward.c's direct
 * rows): d[q] = 0 + w * (0 + c[q % K] * s[q / K]), q < n, the arithmetic of
 * its two transposed passes (TROW_DOWN forms T[q] = 0 + c[q % K] * s[q / K],
 * TSWEEP's one tap 0 + w * T[q]: the same bits, -0 products included),
 * written straight from the registers (streaming stores when nt, else
 * ordinary ones); the row of T is never stored.  Returns 0 (nothing written)
 * unless d is on a 64-byte line, n is a multiple of 16 and K * ns >= n (ns:
 * the elements of s), 2 <= K <= 8, and the variant in use is AVX-512. */
#if DRS_SIMD_MULTI
/* one vector of down_stream_avx512: 16 outputs (0 + w * (0 + c * x)) to d */
DRS_TARGET_AVX512 static inline void down_put_avx512(float *d, __m512 x, __m512 c, __m512 vw,
                                                     int nt)
{
    const __m512 z = _mm512_setzero_ps();
    const __m512 y = _mm512_add_ps(z, _mm512_mul_ps(vw, _mm512_add_ps(z, _mm512_mul_ps(c, x))));
    if (nt)
        _mm512_stream_ps(d, y);
    else
        _mm512_store_ps(d, y);
}
DRS_TARGET_AVX512 static void down_stream_avx512(float *d, const float *s, int64_t ns,
                                                 const float *c, int K, float w, int64_t n,
                                                 int nt)
{
    /* the 16 outputs from q0 = 16v read s[q0 / K + idx[p][l]] with coefficient
     * cf[p][l], p = v % P, P = K / gcd(K, 16) phases */
    const int P = (K & 1) ? K : (K & 3) ? K / 2 : (K & 7) ? K / 4 : 1;
    int32_t idx[8][16];
    float cf[8][16];
    int dm[8]; /* q0 / K grows by dm[p] from phase p to the next */
    for (int p = 0; p < P; p++) {
        for (int l = 0; l < 16; l++) {
            const int q = 16 * p + l;
            idx[p][l] = q / K - (16 * p) / K;
            cf[p][l] = c[q % K];
        }
        dm[p] = (16 * (p + 1)) / K - (16 * p) / K;
    }
    const __m512 vw = _mm512_set1_ps(w);
    if (P == 1) {
        /* K = 2, 4 or 8: every vector reads the dm[0] = 16 / K values from m0 = q0 / K
         * (K * ns >= n: all of them exist) with the same indices and coefficients,
         * held in registers: the loop below with one phase, the same operations.
         * With its per-vector mask and phase bookkeeping W6's backward took 1.41 ms
         * at 1 thread on a Zen 5 core, 1.15 ms without (drs_bench, thread CPU time,
         * min of 5 alternating rounds; 2 threads, ordinary stores: 0.97 both) */
        const __mmask16 k = (__mmask16)((1u << dm[0]) - 1u);
        const __m512i vi = _mm512_loadu_si512((const void *)idx[0]);
        const __m512 vc = _mm512_loadu_ps(cf[0]);
        const float *sp = s;
        for (int64_t q0 = 0; q0 < n; q0 += 16, sp += dm[0])
            down_put_avx512(d + q0, _mm512_permutexvar_ps(vi, _mm512_maskz_loadu_ps(k, sp)), vc,
                            vw, nt);
        return;
    }
    int p = 0;
    int64_t m0 = 0;
    for (int64_t q0 = 0; q0 < n; q0 += 16, m0 += dm[p], p = p + 1 == P ? 0 : p + 1) {
        const int64_t left = ns - m0;
        const __mmask16 k = left >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << left) - 1u);
        const __m512 x = _mm512_permutexvar_ps(_mm512_loadu_si512((const void *)idx[p]),
                                               _mm512_maskz_loadu_ps(k, s + m0));
        down_put_avx512(d + q0, x, _mm512_loadu_ps(cf[p]), vw, nt);
    }
}
#endif
int drs__down_stream_f32(float *d, const float *s, int64_t ns, const float *c, int K, float w,
                         int64_t n, int nt)
{
#if DRS_SIMD_MULTI
    if (((uintptr_t)d & 63) || n % 16 || K < 2 || K > 8 || (int64_t)K * ns < n ||
        drs__simd_level() != DRS_SIMD_AVX512)
        return 0;
    down_stream_avx512(d, s, ns, c, K, w, n, nt);
    return 1;
#else
    (void)d, (void)s, (void)ns, (void)c, (void)K, (void)w, (void)n, (void)nt;
    return 0;
#endif
}

/* The difference form's lane sums of a row of dy (backward.c, diff_row_f32,
 * which has the plain-C form of the same arithmetic and says what it is):
 * one sweep over the row in vectors of 16 inputs, both sums at once, no row
 * stored (AVX-512: x[j - 1] from the vector before moved in; AVX2: two halves
 * of 8 lanes, x[j - 1] loaded).  Only where gA and P_h x read the same two rows
 * (linear); 0 otherwise and when the variant in use is neither (nothing
 * written). */
#if DRS_SIMD_MULTI
/* backward.c's LANES16_COMBINE of 16 double lanes after its first step (l[k] +=
 * l[k + 8], done by the caller): l[k] += l[k + 4], then l[0] + l[2], l[1] + l[3],
 * then their sum */
DRS_TARGET_AVX512 static inline double diff_combine16(__m512d v)
{
    const __m256d a = _mm256_add_pd(_mm512_castpd512_pd256(v), _mm512_extractf64x4_pd(v, 1));
    const __m128d b = _mm_add_pd(_mm256_castpd256_pd128(a), _mm256_extractf128_pd(a, 1));
    return _mm_cvtsd_f64(b) + _mm_cvtsd_f64(_mm_unpackhi_pd(b, b));
}
/* a block's float accumulators into the double lanes l (A's lanes 0-7 and 8-15,
 * then B's): even vectors' first, then odd ones' */
DRS_TARGET_AVX512 static inline void diff_flush(__m512d *l, __m512 A0, __m512 A1, __m512 B0,
                                                __m512 B1)
{
    l[0] = _mm512_add_pd(l[0], _mm512_cvtps_pd(_mm512_castps512_ps256(A0)));
    l[1] = _mm512_add_pd(l[1], _mm512_cvtps_pd(_mm512_extractf32x8_ps(A0, 1)));
    l[0] = _mm512_add_pd(l[0], _mm512_cvtps_pd(_mm512_castps512_ps256(A1)));
    l[1] = _mm512_add_pd(l[1], _mm512_cvtps_pd(_mm512_extractf32x8_ps(A1, 1)));
    l[2] = _mm512_add_pd(l[2], _mm512_cvtps_pd(_mm512_castps512_ps256(B0)));
    l[3] = _mm512_add_pd(l[3], _mm512_cvtps_pd(_mm512_extractf32x8_ps(B0, 1)));
    l[2] = _mm512_add_pd(l[2], _mm512_cvtps_pd(_mm512_castps512_ps256(B1)));
    l[3] = _mm512_add_pd(l[3], _mm512_cvtps_pd(_mm512_extractf32x8_ps(B1, 1)));
}
/* p + i for a masked load whose lanes before p are off: formed as an integer, since
 * a pointer before the array (the first vector's x[j - 1] or dy[2j + a] at j = 0) is
 * not one C lets a program form */
static inline const float *diff_at(const float *p, int64_t i)
{
    return (const float *)((uintptr_t)p + (uintptr_t)i * sizeof(float));
}
/* bits [lo, hi) of a w-bit mask, the range clipped to [0, w] */
static inline uint32_t diff_rmask(int64_t lo, int64_t hi, int w)
{
    lo = lo < 0 ? 0 : lo > w ? w : lo;
    hi = hi < 0 ? 0 : hi > w ? w : hi;
    if (hi <= lo)
        return 0;
    const uint64_t m = ((uint64_t)1 << (hi - lo)) - 1;
    return (uint32_t)(m << lo);
}
/* one vector of 16 inputs j.. into the accumulators A, B (x0, x1: the two rows both
 * sums read; w0, w1 Px's weights); full: every lane in [0, Lw) and in the pairs'
 * [J0, J1); p0, p1: x0, x1 of the vector before (x[j - 1] of lane 0; at j = 0 its
 * lanes are not used, J0 >= 1), replaced by this one's */
#define DIFF_VEC(j, A, B, full)                                                                \
    do {                                                                                       \
        __m512 x0_, x1_, y0_, y1_, t_, gl_, gh_, ce_, co_;                                     \
        __mmask16 pr_ = 0xffff;                                                                \
        if (full) {                                                                            \
            x0_ = _mm512_loadu_ps(x0 + (j));                                                   \
            x1_ = _mm512_loadu_ps(x1 + (j));                                                   \
            t_ = _mm512_loadu_ps(T + (j));                                                     \
            gl_ = _mm512_loadu_ps(g + (2 * (j) + a));                                          \
            gh_ = _mm512_loadu_ps(g + (2 * (j) + a + 16));                                     \
            ce_ = _mm512_loadu_ps(cE + (j));                                                   \
            co_ = _mm512_loadu_ps(cO + (j));                                                   \
        } else {                                                                               \
            const __mmask16 in_ = (__mmask16)diff_rmask(0, Lw - (j), 16);                      \
            pr_ = (__mmask16)diff_rmask(J0 - (j), J1 - (j), 16);                               \
            x0_ = _mm512_maskz_loadu_ps(in_, x0 + (j));                                        \
            x1_ = _mm512_maskz_loadu_ps(in_, x1 + (j));                                        \
            t_ = _mm512_maskz_loadu_ps(in_, T + (j));                                          \
            const int64_t ol_ = 2 * (J0 - (j)), oh_ = 2 * (J1 - (j));                          \
            gl_ = _mm512_maskz_loadu_ps((__mmask16)diff_rmask(ol_, oh_, 16),                   \
                                        diff_at(g, 2 * (j) + a));                              \
            gh_ = _mm512_maskz_loadu_ps((__mmask16)diff_rmask(ol_ - 16, oh_ - 16, 16),         \
                                        diff_at(g, 2 * (j) + a + 16));                         \
            ce_ = _mm512_maskz_loadu_ps(pr_, cE + (j));                                        \
            co_ = _mm512_maskz_loadu_ps(pr_, cO + (j));                                        \
        }                                                                                      \
        y0_ = _mm512_castsi512_ps(                                                             \
            _mm512_alignr_epi32(_mm512_castps_si512(x0_), _mm512_castps_si512(p0), 15));       \
        y1_ = _mm512_castsi512_ps(                                                             \
            _mm512_alignr_epi32(_mm512_castps_si512(x1_), _mm512_castps_si512(p1), 15));       \
        p0 = x0_;                                                                              \
        p1 = x1_;                                                                              \
        A = _mm512_add_ps(A, _mm512_mul_ps(t_, _mm512_sub_ps(x1_, x0_)));                      \
        const __m512 dp_ = _mm512_add_ps(_mm512_mul_ps(w0, _mm512_sub_ps(x0_, y0_)),           \
                                         _mm512_mul_ps(w1, _mm512_sub_ps(x1_, y1_)));          \
        const __m512 h_ =                                                                      \
            _mm512_add_ps(_mm512_mul_ps(ce_, _mm512_permutex2var_ps(gl_, ev, gh_)),            \
                          _mm512_mul_ps(co_, _mm512_permutex2var_ps(gl_, od, gh_)));           \
        B = _mm512_add_ps(B, _mm512_maskz_mul_ps(pr_, h_, dp_));                               \
    } while (0)
/* the common case: gA and Px read the same two rows */
DRS_TARGET_AVX512 static void diff_sums_avx512(const float *T, const float *x0, const float *x1,
                                               float wp0, float wp1, int64_t Lw, const float *g,
                                               int64_t a, const float *cE, const float *cO,
                                               int64_t J0, int64_t J1, double *sums)
{
    const __m512 w0 = _mm512_set1_ps(wp0), w1 = _mm512_set1_ps(wp1);
    const __m512i ev = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i od = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
    __m512d l[4] = {_mm512_setzero_pd(), _mm512_setzero_pd(), _mm512_setzero_pd(),
                    _mm512_setzero_pd()}; /* the double lanes: A's 0-7, 8-15, B's */
    __m512 p0 = _mm512_setzero_ps(), p1 = p0; /* x0, x1 of the vector before */
    /* [fl, fh): the vectors whose every lane is in [0, Lw) and [J0, J1) */
    const int64_t fl = (J0 + 15) / 16 * 16, fh = (J1 < Lw ? J1 : Lw) / 16 * 16;
    for (int64_t v0 = 0; v0 < Lw; v0 += 128) {
        __m512 A0 = _mm512_setzero_ps(), A1 = _mm512_setzero_ps();
        __m512 B0 = _mm512_setzero_ps(), B1 = _mm512_setzero_ps();
        const int64_t ve = v0 + 128 < Lw ? v0 + 128 : Lw;
        int64_t j = v0;
        for (; j + 16 < ve; j += 32) {
            if (j >= fl && j + 32 <= fh) {
                DIFF_VEC(j, A0, B0, 1);
                DIFF_VEC(j + 16, A1, B1, 1);
            } else {
                DIFF_VEC(j, A0, B0, j >= fl && j + 16 <= fh);
                DIFF_VEC(j + 16, A1, B1, j + 16 >= fl && j + 32 <= fh);
            }
        }
        if (j < ve)
            DIFF_VEC(j, A0, B0, j >= fl && j + 16 <= fh);
        diff_flush(l, A0, A1, B0, B1);
    }
    sums[0] = diff_combine16(_mm512_add_pd(l[0], l[1]));
    sums[1] = diff_combine16(_mm512_add_pd(l[2], l[3]));
}
#undef DIFF_VEC
/* The same sums where the pairs' outputs start one before their input's double
 * (a = -1: half_pixel and pytorch_half_pixel 2x), 1 <= J0 <= 16, J1 >= Lw - 15, Lw a
 * multiple of 16: dy's 32 floats of a vector read from 2j on, where the loads of
 * the general form, from 2j - 1, each crossed a line; the pairs' first outputs
 * (dy[2j - 1]) are the odd lanes of those 32 shifted by one lane, the vector
 * before's last coming in (0 at j = 0, where lane 0 is outside the pairs).  No
 * masked loads: only the first and last vectors' products are masked, by masks
 * set once.  The same lanes, terms and order as diff_sums_avx512 (the same bits; where
 * two NaNs meet in a lane, which payload survives may differ, as between variants).
 * W12 rows (128 inputs) in the L1 on a Zen 5 core: 36 -> 18.5 ns a row (1024
 * inputs: 2.37 -> 1.78 ns a vector). */
/* The transposed row T of a half_pixel 2x row can be formed in the same sweep
 * (drs__trow_diff_f32, form = 1): T[j] = ((0 + c0 dy[2j - 1]) + c1 dy[2j]) + c2 dy[2j +
 * 1]) + c3 dy[2j + 2] (trow's period-two interior, the same operations in the same
 * order) from the even and odd lanes the sums read anyway, dy[2j + 2] being the next
 * vector's even lanes shifted in; T[0] and T[Lw - 1] (the row's general entries, summed
 * by the caller: t0, tl) put in their lanes; T stored to Tr and used from the register.
 * With form = 0, T is read.  Either way each vector's dy lanes are those the vector
 * before loaded (the next vector's loads, past the row's last vector none), and the
 * sums are the same bits.  With form = 1 the sweep requests dy into the L1
 * DRS_PF_ROW_BYTES ahead, as trow's vector loop does (the caller leaves out its
 * request of whole rows into the L2 for these rows): see tiled2's fz. */
#define DIFF2_VEC(j, A, B)                                                                     \
    do {                                                                                       \
        __m512 no_ = zero, ne_ = zero; /* the next vector's odd and even dy lanes */           \
        if (form) { /* dy's two lines DRS_PF_ROW_BYTES on, as trow requests them */            \
            _mm_prefetch((const char *)diff_at(g, 2 * (j) + DRS_PF_ROW_BYTES / 4),             \
                         _MM_HINT_T0);                                                         \
            _mm_prefetch((const char *)diff_at(g, 2 * (j) + DRS_PF_ROW_BYTES / 4 + 16),        \
                         _MM_HINT_T0);                                                         \
            /* and x DRS_DIFF_PF_ROWS input rows on */                                         \
            _mm_prefetch((const char *)diff_at(x0, (j) + DRS_DIFF_PF_ROWS * Lw), _MM_HINT_T0); \
        }                                                                                      \
        if ((j) + 16 < Lw) {                                                                   \
            const __m512 n0_ = _mm512_loadu_ps(g + 2 * (j) + 32);                              \
            const __m512 n1_ = _mm512_loadu_ps(g + 2 * (j) + 48);                              \
            no_ = _mm512_permutex2var_ps(n0_, od, n1_);                                        \
            ne_ = _mm512_permutex2var_ps(n0_, ev, n1_);                                        \
        }                                                                                      \
        const __m512 gp_ = _mm512_castsi512_ps(                                                \
            _mm512_alignr_epi32(_mm512_castps_si512(go), _mm512_castps_si512(pg), 15));        \
        __m512 t_;                                                                             \
        if (form) {                                                                            \
            const __m512 gn_ = _mm512_castsi512_ps(                                            \
                _mm512_alignr_epi32(_mm512_castps_si512(ne_), _mm512_castps_si512(ge), 1));    \
            t_ = _mm512_add_ps(zero, _mm512_mul_ps(c0, gp_));                                  \
            t_ = _mm512_add_ps(t_, _mm512_mul_ps(c1, ge));                                     \
            t_ = _mm512_add_ps(t_, _mm512_mul_ps(c2, go));                                     \
            t_ = _mm512_add_ps(t_, _mm512_mul_ps(c3, gn_));                                    \
            if ((j) == 0)                                                                      \
                t_ = _mm512_mask_blend_ps((__mmask16)1, t_, _mm512_set1_ps(t0));               \
            if ((j) == jl)                                                                     \
                t_ = _mm512_mask_blend_ps((__mmask16)0x8000, t_, _mm512_set1_ps(tl));          \
            _mm512_storeu_ps(Tr + (j), t_);                                                    \
        } else {                                                                               \
            t_ = _mm512_loadu_ps(T + (j));                                                     \
        }                                                                                      \
        const __m512 x0_ = _mm512_loadu_ps(x0 + (j)), x1_ = _mm512_loadu_ps(x1 + (j));         \
        const __m512 y0_ = _mm512_castsi512_ps(                                                \
            _mm512_alignr_epi32(_mm512_castps_si512(x0_), _mm512_castps_si512(p0), 15));       \
        const __m512 y1_ = _mm512_castsi512_ps(                                                \
            _mm512_alignr_epi32(_mm512_castps_si512(x1_), _mm512_castps_si512(p1), 15));       \
        p0 = x0_;                                                                              \
        p1 = x1_;                                                                              \
        A = _mm512_add_ps(A, _mm512_mul_ps(t_, _mm512_sub_ps(x1_, x0_)));                      \
        const __m512 dp_ = _mm512_add_ps(_mm512_mul_ps(w0, _mm512_sub_ps(x0_, y0_)),           \
                                         _mm512_mul_ps(w1, _mm512_sub_ps(x1_, y1_)));          \
        const __m512 h_ = _mm512_add_ps(_mm512_mul_ps(_mm512_loadu_ps(cE + (j)), gp_),         \
                                        _mm512_mul_ps(_mm512_loadu_ps(cO + (j)), ge));         \
        const uint32_t mj_ = ((j) == 0 ? m0 : 0xffffu) & ((j) == jl ? ml : 0xffffu);           \
        B = _mm512_add_ps(B, _mm512_maskz_mul_ps((__mmask16)mj_, h_, dp_));                    \
        pg = go;                                                                               \
        go = no_;                                                                              \
        ge = ne_;                                                                              \
    } while (0)
/* the sweep of both forms (form a constant where it is inlined) */
DRS_TARGET_AVX512 static inline __attribute__((always_inline)) void
diff2_sweep(int form, const float *T, float *Tr, const float *c, float t0, float tl,
            const float *x0, const float *x1, float wp0, float wp1, int64_t Lw, const float *g,
            const float *cE, const float *cO, int64_t J0, int64_t J1, double *sums)
{
    const __m512 w0 = _mm512_set1_ps(wp0), w1 = _mm512_set1_ps(wp1), zero = _mm512_setzero_ps();
    const float *cw = form ? c : (const float[4]){0.0f, 0.0f, 0.0f, 0.0f}; /* T's weights */
    const __m512 c0 = _mm512_set1_ps(cw[0]), c1 = _mm512_set1_ps(cw[1]);
    const __m512 c2 = _mm512_set1_ps(cw[2]), c3 = _mm512_set1_ps(cw[3]);
    const __m512i ev = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i od = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
    const int64_t jl = Lw - 16; /* the last vector; m0, ml: the first's and last's pair lanes */
    const uint32_t m0 = diff_rmask(J0, 16, 16), ml = diff_rmask(0, J1 - jl, 16);
    __m512d l[4] = {_mm512_setzero_pd(), _mm512_setzero_pd(), _mm512_setzero_pd(),
                    _mm512_setzero_pd()}; /* the double lanes: A's 0-7, 8-15, B's */
    __m512 p0 = zero, p1 = zero, pg = zero; /* the vector before's x0, x1, odd dy */
    const __m512 f0 = _mm512_loadu_ps(g), f1 = _mm512_loadu_ps(g + 16);
    __m512 go = _mm512_permutex2var_ps(f0, od, f1), ge = _mm512_permutex2var_ps(f0, ev, f1);
    for (int64_t v0 = 0; v0 < Lw; v0 += 128) {
        __m512 A0 = zero, A1 = zero, B0 = zero, B1 = zero;
        const int64_t ve = v0 + 128 < Lw ? v0 + 128 : Lw;
        int64_t j = v0;
        for (; j + 16 < ve; j += 32) {
            DIFF2_VEC(j, A0, B0);
            DIFF2_VEC(j + 16, A1, B1);
        }
        if (j < ve)
            DIFF2_VEC(j, A0, B0);
        diff_flush(l, A0, A1, B0, B1);
    }
    sums[0] = diff_combine16(_mm512_add_pd(l[0], l[1]));
    sums[1] = diff_combine16(_mm512_add_pd(l[2], l[3]));
}
#undef DIFF2_VEC
DRS_TARGET_AVX512 static void diff_sums2_avx512(const float *T, const float *x0, const float *x1,
                                                float wp0, float wp1, int64_t Lw, const float *g,
                                                const float *cE, const float *cO, int64_t J0,
                                                int64_t J1, double *sums)
{
    diff2_sweep(0, T, NULL, NULL, 0.0f, 0.0f, x0, x1, wp0, wp1, Lw, g, cE, cO, J0, J1, sums);
}
DRS_TARGET_AVX512 static void trow_diff_avx512(float *Tr, const float *g, int64_t Lw,
                                               const float *c, float t0, float tl,
                                               const float *x0, const float *x1, float wp0,
                                               float wp1, const float *cE, const float *cO,
                                               int64_t J0, int64_t J1, double *sums)
{
    diff2_sweep(1, NULL, Tr, c, t0, tl, x0, x1, wp0, wp1, Lw, g, cE, cO, J0, J1, sums);
}
/* the same sums with AVX2: a vector of 16 lanes is two of 8 (lo: lanes 0-7) */
DRS_TARGET_AVX2 static inline __m256 diff_even8(__m256 a, __m256 b)
{
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(a, b, 0x88)), 0xD8));
}
DRS_TARGET_AVX2 static inline __m256 diff_odd8(__m256 a, __m256 b)
{
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(a, b, 0xDD)), 0xD8));
}
#define DIFF_HALF8(o, AC, BC)                                                                  \
    do {                                                                                       \
        const int64_t jj_ = j + (o);                                                           \
        const __m256 x0_ = _mm256_loadu_ps(x0 + jj_), x1_ = _mm256_loadu_ps(x1 + jj_);         \
        AC = _mm256_add_ps(AC, _mm256_mul_ps(_mm256_loadu_ps(T + jj_), _mm256_sub_ps(x1_, x0_))); \
        const __m256 dp_ =                                                                     \
            _mm256_add_ps(_mm256_mul_ps(w0, _mm256_sub_ps(x0_, _mm256_loadu_ps(x0 + jj_ - 1))), \
                          _mm256_mul_ps(w1, _mm256_sub_ps(x1_, _mm256_loadu_ps(x1 + jj_ - 1)))); \
        const __m256 ga_ = _mm256_loadu_ps(g + (2 * jj_ + a));                                 \
        const __m256 gb_ = _mm256_loadu_ps(g + (2 * jj_ + a + 8));                             \
        const __m256 h_ =                                                                      \
            _mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(cE + jj_), diff_even8(ga_, gb_)),      \
                          _mm256_mul_ps(_mm256_loadu_ps(cO + jj_), diff_odd8(ga_, gb_)));      \
        BC = _mm256_add_ps(BC, _mm256_mul_ps(h_, dp_));                                        \
    } while (0)
/* the same with the lanes outside [0, Lw) and [J0, J1) as 0 (in, pr: lanes k of
 * this half with jj + k < Lw, with J0 <= jj + k < J1; nothing read outside them) */
#define DIFF_HALF8M(o, AC, BC)                                                                 \
    do {                                                                                       \
        const int64_t jj_ = j + (o);                                                           \
        const __m256i k_ = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);                          \
        const int nin_ = (int)(Lw - jj_ < 0 ? 0 : Lw - jj_ > 8 ? 8 : Lw - jj_);                \
        const int plo_ = (int)(J0 - jj_ < 0 ? 0 : J0 - jj_ > 8 ? 8 : J0 - jj_);                \
        const int phi_ = (int)(J1 - jj_ < 0 ? 0 : J1 - jj_ > 8 ? 8 : J1 - jj_);                \
        const __m256i in_ = _mm256_cmpgt_epi32(_mm256_set1_epi32(nin_), k_);                   \
        const __m256i pr_ = _mm256_andnot_si256(_mm256_cmpgt_epi32(_mm256_set1_epi32(plo_), k_), \
                                                _mm256_cmpgt_epi32(_mm256_set1_epi32(phi_), k_)); \
        const __m256i pa_ = _mm256_permutevar8x32_epi32(pr_, _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3)); \
        const __m256i pb_ = _mm256_permutevar8x32_epi32(pr_, _mm256_setr_epi32(4, 4, 5, 5, 6, 6, 7, 7)); \
        const __m256 x0_ = _mm256_maskload_ps(x0 + jj_, in_);                                  \
        const __m256 x1_ = _mm256_maskload_ps(x1 + jj_, in_);                                  \
        const __m256 ta_ = _mm256_mul_ps(_mm256_maskload_ps(T + jj_, in_), _mm256_sub_ps(x1_, x0_)); \
        AC = _mm256_add_ps(AC, _mm256_and_ps(ta_, _mm256_castsi256_ps(in_)));                  \
        const __m256 dp_ = _mm256_add_ps(                                                      \
            _mm256_mul_ps(w0, _mm256_sub_ps(_mm256_maskload_ps(x0 + jj_, pr_),                 \
                                            _mm256_maskload_ps(diff_at(x0, jj_ - 1), pr_))),   \
            _mm256_mul_ps(w1, _mm256_sub_ps(_mm256_maskload_ps(x1 + jj_, pr_),                 \
                                            _mm256_maskload_ps(diff_at(x1, jj_ - 1), pr_))));  \
        const __m256 ga_ = _mm256_maskload_ps(diff_at(g, 2 * jj_ + a), pa_);                   \
        const __m256 gb_ = _mm256_maskload_ps(diff_at(g, 2 * jj_ + a + 8), pb_);               \
        const __m256 h_ = _mm256_add_ps(                                                       \
            _mm256_mul_ps(_mm256_maskload_ps(cE + jj_, pr_), diff_even8(ga_, gb_)),            \
            _mm256_mul_ps(_mm256_maskload_ps(cO + jj_, pr_), diff_odd8(ga_, gb_)));            \
        BC = _mm256_add_ps(BC, _mm256_and_ps(_mm256_mul_ps(h_, dp_),                           \
                                             _mm256_castsi256_ps(pr_)));                       \
    } while (0)
/* L[k0], L[k0 + 1] (double lanes 4 k0 .. 4 k0 + 7) += the 8 floats of ACC */
#define DIFF_FLUSH4(L, ACC, k0)                                                                \
    do {                                                                                       \
        (L)[k0] = _mm256_add_pd((L)[k0], _mm256_cvtps_pd(_mm256_castps256_ps128(ACC)));        \
        (L)[(k0) + 1] = _mm256_add_pd((L)[(k0) + 1], _mm256_cvtps_pd(_mm256_extractf128_ps(ACC, 1))); \
    } while (0)
DRS_TARGET_AVX2 static void diff_sums_avx2(const float *T, const float *x0, const float *x1,
                                           float wp0, float wp1, int64_t Lw, const float *g,
                                           int64_t a, const float *cE, const float *cO,
                                           int64_t J0, int64_t J1, double *sums)
{
    const __m256 w0 = _mm256_set1_ps(wp0), w1 = _mm256_set1_ps(wp1);
    __m256d la[4], lb[4]; /* lanes 0-3, 4-7, 8-11, 12-15 */
    for (int k = 0; k < 4; k++)
        la[k] = lb[k] = _mm256_setzero_pd();
    const int64_t fl = (J0 + 15) / 16 * 16, fh = (J1 < Lw ? J1 : Lw) / 16 * 16;
    for (int64_t v0 = 0; v0 < Lw; v0 += 128) {
        /* A, B of even (0) and odd (1) vectors, lanes 0-7 (l) and 8-15 (h) */
        __m256 A0l = _mm256_setzero_ps(), A0h = A0l, A1l = A0l, A1h = A0l;
        __m256 B0l = A0l, B0h = A0l, B1l = A0l, B1h = A0l;
        const int64_t ve = v0 + 128 < Lw ? v0 + 128 : Lw;
        for (int64_t j = v0; j < ve; j += 16) {
            const int odd = (int)((j / 16) & 1);
            if (j >= fl && j + 16 <= fh) {
                if (odd) {
                    DIFF_HALF8(0, A1l, B1l);
                    DIFF_HALF8(8, A1h, B1h);
                } else {
                    DIFF_HALF8(0, A0l, B0l);
                    DIFF_HALF8(8, A0h, B0h);
                }
            } else if (odd) {
                DIFF_HALF8M(0, A1l, B1l);
                DIFF_HALF8M(8, A1h, B1h);
            } else {
                DIFF_HALF8M(0, A0l, B0l);
                DIFF_HALF8M(8, A0h, B0h);
            }
        }
        DIFF_FLUSH4(la, A0l, 0);
        DIFF_FLUSH4(la, A0h, 2);
        DIFF_FLUSH4(la, A1l, 0);
        DIFF_FLUSH4(la, A1h, 2);
        DIFF_FLUSH4(lb, B0l, 0);
        DIFF_FLUSH4(lb, B0h, 2);
        DIFF_FLUSH4(lb, B1l, 0);
        DIFF_FLUSH4(lb, B1h, 2);
    }
    /* LANES16_COMBINE: l[k] += l[k + 8], l[k] += l[k + 4], l0 + l2, l1 + l3, their sum */
    for (int u = 0; u < 2; u++) {
        __m256d *l = u ? lb : la;
        const __m256d s4 = _mm256_add_pd(_mm256_add_pd(l[0], l[2]), _mm256_add_pd(l[1], l[3]));
        const __m128d s2 = _mm_add_pd(_mm256_castpd256_pd128(s4), _mm256_extractf128_pd(s4, 1));
        sums[u] = _mm_cvtsd_f64(s2) + _mm_cvtsd_f64(_mm_unpackhi_pd(s2, s2));
    }
}
#undef DIFF_HALF8
#undef DIFF_HALF8M
#undef DIFF_FLUSH4
#endif
/* 1 where diff2_sweep takes the row (AVX-512; rows of at least minL inputs) */
static int diff2_ok(int64_t Lw, int64_t glen, int64_t a, int64_t J0, int64_t J1, int64_t minL)
{
#if DRS_SIMD_MULTI
    return drs__simd_level() == DRS_SIMD_AVX512 && a == -1 && Lw >= minL && Lw % 16 == 0 &&
           2 * Lw <= glen && J0 >= 1 && J0 <= 16 && J1 >= Lw - 15 && J1 <= Lw && J0 < J1;
#else
    (void)Lw, (void)glen, (void)a, (void)J0, (void)J1, (void)minL;
    return 0;
#endif
}
int drs__trow_diff_ok(int64_t Lw, int64_t glen, int64_t a, int64_t J0, int64_t J1)
{
    return diff2_ok(Lw, glen, a, J0, J1, 32);
}
void drs__trow_diff_f32(float *Tr, const float *g, int64_t Lw, const float *c, float t0, float tl,
                        const float *x0, const float *x1, float wp0, float wp1, const float *cE,
                        const float *cO, int64_t J0, int64_t J1, double *sums)
{
#if DRS_SIMD_MULTI
    trow_diff_avx512(Tr, g, Lw, c, t0, tl, x0, x1, wp0, wp1, cE, cO, J0, J1, sums);
#else
    (void)Tr, (void)g, (void)Lw, (void)c, (void)t0, (void)tl, (void)x0, (void)x1, (void)wp0;
    (void)wp1, (void)cE, (void)cO, (void)J0, (void)J1, (void)sums;
#endif
}
int drs__diff_sums_f32(const float *T, const float *xa0, const float *xa1, const float *xp0,
                       const float *xp1, float wp0, float wp1, int np, int64_t Lw,
                       const float *g, int64_t glen, int64_t a, const float *cE,
                       const float *cO, int64_t J0, int64_t J1, double *sums)
{
#if DRS_SIMD_MULTI
    if (np != 2 || xa0 != xp0 || xa1 != xp1)
        return 0;
    const int l = drs__simd_level();
    if (diff2_ok(Lw, glen, a, J0, J1, 16))
        diff_sums2_avx512(T, xp0, xp1, wp0, wp1, Lw, g, cE, cO, J0, J1, sums);
    else if (l == DRS_SIMD_AVX512)
        diff_sums_avx512(T, xp0, xp1, wp0, wp1, Lw, g, a, cE, cO, J0, J1, sums);
    else if (l == DRS_SIMD_AVX2)
        diff_sums_avx2(T, xp0, xp1, wp0, wp1, Lw, g, a, cE, cO, J0, J1, sums);
    else
        return 0;
    return 1;
#else
    (void)T, (void)xa0, (void)xa1, (void)xp0, (void)xp1, (void)wp0, (void)wp1, (void)np;
    (void)Lw, (void)g, (void)glen, (void)a, (void)cE, (void)cO, (void)J0, (void)J1, (void)sums;
    return 0;
#endif
}

void drs__stream_begin(drs_stream *w)
{
    w->at = NULL;
    w->np = 0;
}

/* Writes what is held back (ordinary stores); nothing is held while at is
 * NULL. */
static void stream_flush(drs_stream *w)
{
    if (w->np) {
        memcpy(w->at, w->pend, w->np);
        w->at += w->np;
        w->np = 0;
    }
}

/* Invariant: the bytes before w->at are written; w->np > 0 bytes held in
 * w->pend belong at w->at, which is then 64-byte aligned.  Only whole
 * aligned lines are streamed: a destination that is not 64-byte aligned (a
 * NumPy array's 16-byte alignment, rows of any length) costs ordinary stores
 * for its first partial line and the last one only, not for a partial line
 * at every row's ends. */
void drs__stream_put(drs_stream *w, void *dst, const void *src, size_t n)
{
    const char *s = src;
    if (n == 0)
        return;
    if (!w->at || (char *)dst != w->at + w->np) { /* not a continuation: restart at dst */
        stream_flush(w);
        w->at = dst;
    }
    if (w->np == 0 && ((uintptr_t)w->at & 63)) { /* up to the first line boundary */
        size_t h = 64 - ((uintptr_t)w->at & 63);
        h = h < n ? h : n;
        memcpy(w->at, s, h);
        w->at += h;
        s += h;
        n -= h;
    }
    if (w->np > 0) { /* complete the held line */
        size_t t = 64 - w->np;
        t = t < n ? t : n;
        memcpy(w->pend + w->np, s, t);
        w->np += t;
        s += t;
        n -= t;
        if (w->np < 64)
            return;
        stream_lines(w->at, (const char *)w->pend, 1);
        w->at += 64;
        w->np = 0;
    }
    const size_t k = n / 64;
    if (k) {
        stream_lines(w->at, s, k);
        w->at += 64 * k;
        s += 64 * k;
        n -= 64 * k;
    }
    if (n) {
        memcpy(w->pend, s, n);
        w->np = n;
    }
}

void drs__stream_end(drs_stream *w)
{
    stream_flush(w);
#if defined(__SSE2__)
    _mm_sfence();
#endif
}

/* DRS_STREAM, read once: -1 off (0), 1 always (1), 0 by size (unset) */
int drs__stream_mode(void)
{
    static _Atomic int mode = -2;
    int m = atomic_load_explicit(&mode, memory_order_relaxed);
    if (m == -2) {
        const char *e = getenv("DRS_STREAM");
        m = (e && !strcmp(e, "0")) ? -1 : (e && !strcmp(e, "1")) ? 1 : 0;
        atomic_store_explicit(&mode, m, memory_order_relaxed);
    }
    return m;
}

/* 1 when an output of this many bytes, written by a team of nthr threads,
 * is streamed out.  Measured on a 2-core AVX-512 machine with a large shared
 * L3 (bench/drs_bench, 128 MiB outputs): one thread writing with ordinary
 * stores was bound by its read-for-ownership misses, and streaming more than
 * halved the time of the fused bilinear passes (W1 28 -> 13 ms; since their
 * row buffers are placed against 4 KiB aliasing, their ordinary stores win
 * at one thread, and resample.c asks only for a team); with two threads the
 * ordinary stores land in the L3 and streaming loses (W10 2.0 -> 3.1 ms).
 * So: one thread and at least DRS_STREAM_MIN_BYTES, or any team and an
 * output larger than the L3 (when its size is unknown: not).  Kernels that
 * gain at every team size (the nearest gather, channels-last rows) pass
 * nthr = 1.  Where the target has no streaming stores, never (unless
 * forced): the row buffer would only add a copy. */
long drs__cache_bytes(int level)
{
    static _Atomic long size[2] = {-1, -1}; /* L1d, L3 */
    const int k = level == 1 ? 0 : 1;
    long v = atomic_load_explicit(&size[k], memory_order_relaxed);
    if (v < 0) {
        v = 0;
#if defined(_SC_LEVEL1_DCACHE_SIZE)
        if (k == 0)
            v = sysconf(_SC_LEVEL1_DCACHE_SIZE);
#endif
#if defined(_SC_LEVEL3_CACHE_SIZE)
        if (k == 1)
            v = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
        v = v > 0 ? v : 0;
        atomic_store_explicit(&size[k], v, memory_order_relaxed);
    }
    return v;
}

int drs__stream_output(int64_t bytes, int nthr)
{
    const int m = drs__stream_mode();
    if (m != 0)
        return m == 1;
#if defined(__SSE2__)
    if (bytes < DRS_STREAM_MIN_BYTES)
        return 0;
    if (nthr <= 1)
        return 1;
    const long c = drs__cache_bytes(3);
    return c > 0 && bytes > (int64_t)c;
#else
    (void)bytes;
    (void)nthr;
    return 0;
#endif
}

/* 1 when a data gradient of wbytes, formed from rbytes of the output gradient
 * by a team of nthr threads, is streamed out: as drs__stream_output, and at any
 * team size also when it reads at least twice what it writes (an upsampling's
 * gradient: the read-for-ownership of ordinary stores competes with the reads)
 * and the two together reach DRS_STREAM_MIN_BYTES (the reads evict dx from the
 * caches anyway), dx of DRS_STREAM_FOOTPRINT_MIN_OUT or more.  Measured on the
 * machine above (bench/drs_bench, min of alternating rounds): at 2 threads the
 * backward of W1 (128 MiB read, 32 MiB written) 5.9 -> 5.3 ms streamed, W2 5.7
 * -> 5.1, W3 9.6 -> 8.9, W10 1.9 -> 1.7, W12 5.6 -> 5.0; W6's (3 MiB read, 48
 * MiB written) 1.5 -> 1.8, so not there; W10's (48 MiB read, 12 MiB written)
 * at 1 thread 4.5-4.9 -> 3.9-4.1 ms, at 2 3.4-3.6 -> 3.0-3.2 (a busier host). */
#define DRS_STREAM_FOOTPRINT_MIN_OUT ((int64_t)4 << 20)
int drs__stream_gradient(int64_t wbytes, int64_t rbytes, int nthr)
{
    if (drs__stream_output(wbytes, nthr))
        return 1;
#if defined(__SSE2__)
    (void)nthr;
    return drs__stream_mode() == 0 && wbytes >= DRS_STREAM_FOOTPRINT_MIN_OUT &&
           rbytes / 2 >= wbytes && rbytes >= DRS_STREAM_MIN_BYTES - wbytes;
#else
    (void)rbytes;
    return 0;
#endif
}

/* 1 when a gather kernel's output of out bytes is streamed out, the call
 * touching total bytes in all (its inputs and the output): from
 * DRS_STREAM_MIN_BYTES on, a last-level cache's size on the machines these
 * were measured on, ordinary stores would read each output line for
 * ownership only to evict the input lines the next points gather from.
 * Outputs under DRS_STREAM_FOOTPRINT_MIN_OUT bytes never (a consumer would
 * find them in the cache).  Measured on a 2-core AVX-512 machine with a
 * 32 MiB L3 (bench/drs_bench, W8c: 16 MiB of data and 16 MiB of
 * nearest-gathered output, 1 thread): 3.3 -> 2.3 ms. */
int drs__stream_footprint(int64_t out, int64_t total)
{
    const int m = drs__stream_mode();
    if (m != 0)
        return m == 1;
#if defined(__SSE2__)
    return out >= DRS_STREAM_FOOTPRINT_MIN_OUT && total >= DRS_STREAM_MIN_BYTES;
#else
    (void)out;
    (void)total;
    return 0;
#endif
}

