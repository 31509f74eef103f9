/* SPDX-License-Identifier: MIT */
/* resample.c — runs a drs_plan: a sequence of 1-D passes, each applying one
 * axis table as a gather on the [outer, L, inner] view of the tensor:
 *   y[b, o, i] = sum_k w[o][k] * x[b, first[o] + k, i]
 * When inner > 1 each output row is a weighted sum of whole input rows (this
 * vectorises over inner and is what makes channels-last fast); when inner == 1
 * it is a gather along the row.  The summation order is the same in both, so
 * NCHW and NHWC give the same bits.
 * Types: f32 runs in float with float weights; f64 and the integer types run
 * in double, and the last pass rounds/saturates into the integer output.
 * Threads: OpenMP over (outer, o); every output element is written by exactly
 * one iteration, so the bits do not depend on the thread count. */
#include "core.h"

#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PAR_MIN_WORK 32768

/* bytes rounded up to whole 64-byte cache lines: the stride of per-thread
 * rows that must not share a line */
static size_t line_round(size_t bytes) { return (bytes + 63) / 64 * 64; }

/* For a pass reading n input rows R bytes apart, from x0 on: the distance
 * from x0's page offset to the offset farthest from all n rows' (the middle
 * of the widest gap between them, modulo 4 KiB), for drs__place(slot, x0,
 * distance); half a page for one row (or more than 4). */
static size_t far_from_rows(size_t R, int n)
{
    if (n <= 1 || n > 4)
        return DRS_PLACE_DELTA;
    size_t o[4] = {0, 0, 0, 0};
    for (int k = 0; k < n; k++) { /* offsets from x0's, sorted (insertion) */
        size_t v = ((size_t)k * R) & 4095;
        int i = k;
        for (; i > 0 && o[i - 1] > v; i--)
            o[i] = o[i - 1];
        o[i] = v;
    }
    size_t best = o[0] + 4096 - o[n - 1], mid = o[n - 1] + best / 2; /* the gap that wraps */
    for (int k = 0; k + 1 < n; k++)
        if (o[k + 1] - o[k] > best) {
            best = o[k + 1] - o[k];
            mid = o[k] + best / 2;
        }
    return mid & 4095;
}

/* Thread tid's slot in a block of slots `size` bytes apart (a multiple of
 * 64; the block, from drs__malloc, starts on a line, so every slot does). */
static void *thread_slot(char *block, size_t size, int64_t tid)
{
    return block + (size_t)tid * size;
}

/* The tap count (1..4) of the longest run of outputs around the middle of t
 * that share it, with the run in [*u0, *u1); 0 when there is none worth it
 * (or outputs extrapolate).  *per2: 1 when the run is moreover 2-periodic
 * (output o + 2 reads one input further than o, with the same weights: 2x
 * upsampling), so it runs as two interleaved contiguous loops; 2 when its
 * outputs read windows of n inputs side by side (with one set of weights:
 * checked by PERIODIC_WEIGHTS), so it runs as one loop over the windows. */
static int uniform_taps(const drs_table *t, int64_t *u0, int64_t *u1, int *per2)
{
    *u0 = *u1 = 0;
    *per2 = 0;
    if (t->extrap || t->O == 0)
        return 0;
    const int64_t mid = t->O / 2;
    const int32_t n = t->ntap[mid];
    if (n < 1 || n > 4)
        return 0;
    int64_t a = mid, b = mid + 1;
    while (a > 0 && t->ntap[a - 1] == n)
        a--;
    while (b < t->O && t->ntap[b] == n)
        b++;
    if (2 * (b - a) < t->O)
        return 0;
    *u0 = a;
    *u1 = b;
    int per = b - a >= 4;
    for (int64_t o = a + 2; o < b && per; o++)
        per = t->first[o] == t->first[o - 2] + 1;
    /* 2: each output reads the n inputs after the previous output's (an
     * integer-factor downsampling with windows side by side: area, linear at
     * 0.5) */
    int perk = !per && n >= 2 && b - a >= 4;
    for (int64_t o = a + 1; o < b && perk; o++)
        perk = t->first[o] == t->first[o - 1] + n;
    *per2 = per ? 1 : perk ? 2 : 0; /* the index pattern; the weights are checked apart */
    return n;
}

/* 1 when the weights W of the run [u0, u1) (n taps) repeat with period per. */
#define DEFINE_PERIOD_WEIGHTS(NAME, A)                                                         \
    static int NAME(const drs_table *t, const A *W, int64_t u0, int64_t u1, int n, int per)    \
    {                                                                                          \
        for (int64_t o = u0 + per; o < u1; o++)                                                \
            for (int k = 0; k < n; k++)                                                        \
                if (W[o * t->stride + k] != W[(o - per) * t->stride + k])                      \
                    return 0;                                                                  \
        return 1;                                                                              \
    }
DEFINE_PERIOD_WEIGHTS(period_weights_f32, float)
DEFINE_PERIOD_WEIGHTS(period_weights_f64, double)
#define PERIOD_WEIGHTS(t, W, u0, u1, n, per)                                                   \
    _Generic((W), const float *: period_weights_f32, float *: period_weights_f32,              \
             default: period_weights_f64)(t, (const void *)(W), u0, u1, n, per)
/* uniform_taps' pattern p (0, 1, 2) kept when the weights W follow it: 1 for
 * period two, 2 for one set of weights over the whole run (period one) */
#define PERIODIC_WEIGHTS(p, t, W, u0, u1, n)                                                   \
    ((p) == 1 ? PERIOD_WEIGHTS(t, W, u0, u1, n, 2)                                             \
     : (p) == 2 ? 2 * PERIOD_WEIGHTS(t, W, u0, u1, n, 1)                                       \
                : 0)

/* outputs s + 2j and s + 2j + 1, j < np, from the weights and inputs of s and
 * s + 1 (any s of a 2-periodic run) */
#define PER2_LOOP(TI, A, NT, s, np)                                                            \
    do {                                                                                       \
        A c0_[NT], c1_[NT];                                                                    \
        for (int k_ = 0; k_ < NT; k_++) {                                                      \
            c0_[k_] = W[(s) * t->stride + k_];                                                 \
            c1_[k_] = W[((s) + 1) * t->stride + k_];                                           \
        }                                                                                      \
        const TI *x0_ = xrow + t->first[s], *x1_ = xrow + t->first[(s) + 1];                   \
        A *y_ = yrow + (s);                                                                    \
        for (int64_t j = 0; j < (np); j++) {                                                   \
            A a_ = c0_[0] * (A)x0_[j];                                                         \
            A b_ = c1_[0] * (A)x1_[j];                                                         \
            for (int k_ = 1; k_ < NT; k_++) {                                                  \
                a_ += c0_[k_] * (A)x0_[j + k_];                                                \
                b_ += c1_[k_] * (A)x1_[j + k_];                                                \
            }                                                                                  \
            y_[2 * j] = a_;                                                                    \
            y_[2 * j + 1] = b_;                                                                \
        }                                                                                      \
    } while (0)
/* The 2-periodic interior: outputs u0 + 2j and u0 + 2j + 1 with the weights
 * of u0 and u0 + 1 over inputs moving by one; each output is OUTPUT_ROW's
 * arithmetic (same order), so the same bits, and the loop vectorises.  The
 * pairs past the last multiple of 16 are formed by the last 16 pairs again
 * (a few twice, the same bits): a vector loop of known length, where the
 * remainder loop ran up to 15 pairs one by one. */
#define PER2_ROW(TI, A, NT)                                                                    \
    do {                                                                                       \
        const int64_t np_ = (u1 - u0) / 2, m_ = np_ & ~(int64_t)15;                            \
        if (np_ >= 16) {                                                                       \
            PER2_LOOP(TI, A, NT, u0, m_);                                                      \
            if (m_ < np_)                                                                      \
                PER2_LOOP(TI, A, NT, u0 + 2 * (np_ - 16), 16);                                 \
        } else                                                                                 \
            PER2_LOOP(TI, A, NT, u0, np_);                                                     \
        for (int64_t q = u0 + 2 * np_; q < u1; q++)                                            \
            OUTPUT_ROW(TI, A, yrow + q, xrow + t->first[q], W + q * t->stride, NT, 1);         \
    } while (0)
/* Windows side by side: output u0 + j reads the NT inputs from first[u0] +
 * NT * j, with u0's weights; OUTPUT_ROW's arithmetic (same order), so the
 * same bits, and the loop vectorises. */
#define PERK_ROW(TI, A, NT)                                                                    \
    do {                                                                                       \
        A c_[NT];                                                                              \
        for (int k_ = 0; k_ < NT; k_++)                                                        \
            c_[k_] = W[u0 * t->stride + k_];                                                   \
        const TI *x0_ = xrow + t->first[u0];                                                   \
        A *y_ = yrow + u0;                                                                     \
        for (int64_t j = 0; j < u1 - u0; j++) {                                                \
            A a_ = c_[0] * (A)x0_[NT * j];                                                     \
            for (int k_ = 1; k_ < NT; k_++)                                                    \
                a_ += c_[k_] * (A)x0_[NT * j + k_];                                            \
            y_[j] = a_;                                                                        \
        }                                                                                      \
    } while (0)
/* the uniform interior [u0, u1) with NT taps: periodic, or per output */
#define INTERIOR_ROW(TI, A, NT)                                                                \
    do {                                                                                       \
        if (per2 == 1)                                                                         \
            PER2_ROW(TI, A, NT);                                                               \
        else if (per2 == 2)                                                                    \
            PERK_ROW(TI, A, NT);                                                               \
        else                                                                                   \
            for (int64_t q = u0; q < u1; q++)                                                  \
                OUTPUT_ROW(TI, A, yrow + q, xrow + t->first[q], W + q * t->stride, NT, 1);     \
    } while (0)

/* One row of a gather along contiguous rows (inner == 1): the edge outputs
 * in general, the uniform interior (nu taps, see uniform_taps) with no
 * per-output branch and the tap loop unrolled.  The same OUTPUT_ROW
 * arithmetic everywhere, so the same bits as the general path. */
#define DEFINE_GATHER_ROW(NAME, TI, A)                                                          \
    DRS_SIMD_FN(NAME,                                                                          \
                (const TI *xrow, A *yrow, const drs_table *t, const A *W, A ev, int nu,        \
                 int per2, int64_t u0, int64_t u1),                                            \
                (xrow, yrow, t, W, ev, nu, per2, u0, u1),                                      \
    {                                                                                          \
        for (int64_t o = 0; o < u0; o++)                                                       \
            PASS_OUTPUT(TI, A, t, W, ev, o, yrow + o, xrow, 1);                                \
        switch (nu) {                                                                          \
        case 0: break;                                                                         \
        case 1: INTERIOR_ROW(TI, A, 1); break;                                                 \
        case 2: INTERIOR_ROW(TI, A, 2); break;                                                 \
        case 3: INTERIOR_ROW(TI, A, 3); break;                                                 \
        default: INTERIOR_ROW(TI, A, 4); break;                                                \
        }                                                                                      \
        for (int64_t o = nu > 0 ? u1 : 0; o < t->O; o++)                                       \
            PASS_OUTPUT(TI, A, t, W, ev, o, yrow + o, xrow, 1);                                \
    })

/* TI: the input element type (the integer types are read directly by the
 * first pass, so no double copy of the input is ever made); A: accumulator,
 * weight and output type. */
#define DEFINE_PASS(NAME, TI, A, ROW)                                                          \
    void NAME(const TI *x, A *y, int64_t outer, int64_t L, int64_t inner, const drs_table *t,  \
              const A *W, A ev)                                                                \
    {                                                                                          \
        const int64_t O = t->O;                                                                \
        int64_t u0, u1;                                                                        \
        int per2;                                                                              \
        const int nu = uniform_taps(t, &u0, &u1, &per2);                                       \
        per2 = PERIODIC_WEIGHTS(per2, t, W, u0, u1, nu);                                        \
        if (inner == 1 && nu > 0) {                                                            \
            _Pragma("omp parallel for schedule(static) num_threads((outer * O > PAR_MIN_WORK) ? drs__nthreads() : 1)")         \
            for (int64_t b = 0; b < outer; b++)                                                \
                ROW(x + b * L, y + b * O, t, W, ev, nu, per2, u0, u1);                         \
            return;                                                                            \
        }                                                                                      \
        /* spans of outputs (b, o) of about 1024 elements each */                         \
        const int64_t n = outer * O, span = inner >= 1024 ? 1 : 1024 / inner;                 \
        const int64_t ns = (n + span - 1) / span;                                              \
        _Pragma("omp parallel for schedule(static) num_threads((outer * O * inner > PAR_MIN_WORK) ? drs__nthreads() : 1)") \
        for (int64_t s = 0; s < ns; s++)                                                       \
            NAME##_span(x, y, s * span, s * span + span < n ? s * span + span : n, L, inner,   \
                        t, W, ev);                                                             \
    }
/* The outputs k in [k0, k1) of a pass, k = b * O + o (inner > 1). */
#define DEFINE_PASS_SPAN(NAME, TI, A)                                                          \
    DRS_SIMD_FN(NAME##_span,                                                                   \
                (const TI *x, A *y, int64_t k0, int64_t k1, int64_t L, int64_t inner,          \
                 const drs_table *t, const A *W, A ev),                                        \
                (x, y, k0, k1, L, inner, t, W, ev),                                            \
    {                                                                                          \
        const int64_t O = t->O;                                                                \
        for (int64_t k = k0; k < k1; k++)                                                      \
            PASS_OUTPUT(TI, A, t, W, ev, k % O, y + k * inner, x + (k / O) * L * inner,        \
                        inner);                                                                \
    })

DEFINE_GATHER_ROW(row_f32, float, float)
DEFINE_GATHER_ROW(row_f64, double, double)
DEFINE_GATHER_ROW(row_f32_f64, float, double)
DEFINE_GATHER_ROW(row_u8_f64, uint8_t, double)
DEFINE_GATHER_ROW(row_i8_f64, int8_t, double)
DEFINE_GATHER_ROW(row_i32_f64, int32_t, double)
DEFINE_GATHER_ROW(row_i64_f64, int64_t, double)
DEFINE_PASS_SPAN(drs_pass_f32, float, float)
DEFINE_PASS(drs_pass_f32, float, float, row_f32)
DEFINE_PASS_SPAN(drs_pass_f64, double, double)
DEFINE_PASS(drs_pass_f64, double, double, row_f64)
DEFINE_PASS_SPAN(drs_pass_f32_f64, float, double)
DEFINE_PASS(drs_pass_f32_f64, float, double, row_f32_f64)

/* A pass fused with the inner product against dy: returns
 *   sum_{b,o,i} dy[b,o,i] * sum_k W[o][k] x[b, first[o]+k, i]
 * without writing the pass's output.  Each outer row b's partial sum is
 * formed by one iteration (o, i, taps ascending) and the partials are added
 * in b order, so the result does not depend on the thread count. */
#define DEFINE_PASS_DOT(NAME, TI, TD)                                                          \
    drs_status NAME(const TI *x, int64_t outer, int64_t L, int64_t inner, const drs_table *t,   \
                    const double *W, const TD *dy, double *out)                                \
    {                                                                                          \
        const int64_t O = t->O, stride = t->stride;                                            \
        double *part = drs__malloc((size_t)(outer > 0 ? outer : 1) * sizeof(double));          \
        if (!part)                                                                             \
            return drs__fail(DRS_ERR_NOMEM, "backward: out of memory (partial sums)");         \
        int64_t u0 = 0, u1 = 0;                                                                \
        int per2_;                                                                             \
        const int nu = inner == 1 ? uniform_taps(t, &u0, &u1, &per2_) : 0;                     \
        if (nu == 2 || nu == 4) { /* rows with a branch-free interior, same order */           \
            _Pragma("omp parallel for schedule(static) num_threads((outer * O > PAR_MIN_WORK) ? drs__nthreads() : 1)")         \
            for (int64_t b = 0; b < outer; b++) {                                              \
                const TI *xrow = x + b * L;                                                    \
                const TD *grow = dy + b * O;                                                   \
                double acc = 0.0;                                                              \
                for (int64_t o = 0; o < O; o++) {                                              \
                    const int32_t n = (o >= u0 && o < u1) ? nu : t->ntap[o];                   \
                    if (n == 0)                                                                \
                        continue;                                                              \
                    const double *w = W + o * stride;                                          \
                    const TI *xr = xrow + t->first[o];                                         \
                    double v = w[0] * (double)xr[0];                                           \
                    if (nu == 2 && n == 2) {                                                   \
                        v += w[1] * (double)xr[1];                                             \
                    } else {                                                                   \
                        for (int32_t k = 1; k < n; k++)                                        \
                            v += w[k] * (double)xr[k];                                         \
                    }                                                                          \
                    acc += (double)grow[o] * v;                                                \
                }                                                                              \
                part[b] = acc;                                                                 \
            }                                                                                  \
        } else                                                                                 \
        _Pragma("omp parallel for schedule(static) num_threads((outer * O * inner > PAR_MIN_WORK) ? drs__nthreads() : 1)")     \
        for (int64_t b = 0; b < outer; b++) {                                                  \
            double acc = 0.0;                                                                  \
            for (int64_t o = 0; o < O; o++) {                                                  \
                const int32_t n = t->ntap[o];                                                  \
                if (n == 0)                                                                    \
                    continue;                                                                  \
                const double *w = W + o * stride;                                              \
                const TI *xr = x + (b * L + t->first[o]) * inner;                              \
                const TD *g = dy + (b * O + o) * inner;                                        \
                for (int64_t i = 0; i < inner; i++) {                                          \
                    double v = w[0] * (double)xr[i];                                           \
                    for (int32_t k = 1; k < n; k++)                                            \
                        v += w[k] * (double)xr[(int64_t)k * inner + i];                        \
                    acc += (double)g[i] * v;                                                   \
                }                                                                              \
            }                                                                                  \
            part[b] = acc;                                                                     \
        }                                                                                      \
        double s = 0.0;                                                                        \
        for (int64_t b = 0; b < outer; b++)                                                    \
            s += part[b];                                                                      \
        free(part);                                                                            \
        *out = s;                                                                              \
        return DRS_OK;                                                                         \
    }

DEFINE_PASS_DOT(drs_pass_dot_f64_f64, double, double)
DEFINE_PASS_DOT(drs_pass_dot_f64_f32, double, float)
DEFINE_PASS_DOT(drs_pass_dot_f32_f32, float, float)
DEFINE_PASS_SPAN(pass_u8_f64, uint8_t, double)
static DEFINE_PASS(pass_u8_f64, uint8_t, double, row_u8_f64)
DEFINE_PASS_SPAN(pass_i8_f64, int8_t, double)
static DEFINE_PASS(pass_i8_f64, int8_t, double, row_i8_f64)
DEFINE_PASS_SPAN(pass_i32_f64, int32_t, double)
static DEFINE_PASS(pass_i32_f64, int32_t, double, row_i32_f64)
DEFINE_PASS_SPAN(pass_i64_f64, int64_t, double)
static DEFINE_PASS(pass_i64_f64, int64_t, double, row_i64_f64)

/* The first pass of an integer tensor: reads the integers, writes doubles. */
static void pass_int_f64(drs_dtype dt, const void *x, double *y, int64_t outer, int64_t L,
                         int64_t inner, const drs_table *t, double ev)
{
    switch (dt) {
    case DRS_U8: pass_u8_f64(x, y, outer, L, inner, t, t->w, ev); break;
    case DRS_I8: pass_i8_f64(x, y, outer, L, inner, t, t->w, ev); break;
    case DRS_I32: pass_i32_f64(x, y, outer, L, inner, t, t->w, ev); break;
    default: pass_i64_f64(x, y, outer, L, inner, t, t->w, ev); break;
    }
}

drs_status drs_plan_check_output(const drs_plan *p, const drs_tensor *y, const drs_tensor *x)
{
    const char *nm = (p->op[0] == 'R') ? "Y" : "output";
    int64_t n;
    drs_status s = drs__check_tensor(p->op, nm, y, &n);
    if (s)
        return s;
    if (y->dtype != p->dtype)
        return drs__fail(DRS_ERR_INVALID_ARGUMENT, "%s: %s dtype must be %s, got %s", p->op, nm,
                         drs_dtype_name(p->dtype), drs_dtype_name(y->dtype));
    if (y->rank != p->rank)
        return drs__fail(DRS_ERR_SHAPE, "%s: %s rank must be %d, got %d", p->op, nm, p->rank,
                         y->rank);
    for (int i = 0; i < p->rank; i++)
        if (y->shape[i] != p->out_shape[i])
            return drs__fail(DRS_ERR_SHAPE, "%s: %s shape[%d] must be %lld, got %lld", p->op, nm,
                             i, (long long)p->out_shape[i], (long long)y->shape[i]);
    if (drs__overlaps(y, x))
        return drs__fail(DRS_ERR_INVALID_ARGUMENT, "%s: %s overlaps the input buffer", p->op, nm);
    return DRS_OK;
}

int drs_table_is_identity(const drs_axis_plan *ap, const drs_table *t)
{
    if (ap->O != ap->in_len || t->extrap)
        return 0;
    for (int64_t o = 0; o < t->O; o++)
        if (t->ntap[o] != 1 || t->first[o] != o || t->w[o * t->stride] != 1.0)
            return 0;
    return 1;
}

void drs_tables_free(const drs_plan *p, drs_tables *T)
{
    for (int k = 0; k < p->npass; k++)
        drs_table_free(&T->tab[k]);
}

drs_status drs_tables_build(const drs_plan *p, drs_tables *T, int want_float, int dpass,
                            drs_param param)
{
    memset(T, 0, sizeof *T);
    for (int k = 0; k < p->npass; k++) {
        drs_status st = drs_table_build(&p->pass[k], &T->tab[k], want_float,
                                        k == dpass ? param : DRS_PARAM_NONE);
        if (st) {
            drs_tables_free(p, T);
            return st;
        }
        if (k == dpass || !drs_table_is_identity(&p->pass[k], &T->tab[k]))
            T->active[T->nact++] = k;
    }
    return DRS_OK;
}

/* Round per the plan's rule and saturate into [lo, hi]; NaN -> 0. */
static double round_sat(double v, drs_round r, double lo, double hi)
{
    if (v != v)
        return 0.0;
    switch (r) {
    case DRS_ROUND_HALF_EVEN: v = nearbyint(v); break;
    case DRS_ROUND_HALF_AWAY: v = round(v); break;
    case DRS_ROUND_TRUNC: v = trunc(v); break;
    }
    if (v < lo)
        v = lo;
    if (v > hi)
        v = hi;
    return v;
}

static void int_range(drs_dtype t, double *lo, double *hi)
{
    switch (t) {
    case DRS_U8: *lo = 0.0; *hi = 255.0; break;
    case DRS_I8: *lo = -128.0; *hi = 127.0; break;
    case DRS_I32: *lo = -2147483648.0; *hi = 2147483647.0; break;
    default: *lo = -9223372036854775808.0; *hi = 9223372036854775807.0; break;
    }
}

void drs__store_rounded(const double *src, drs_tensor *y, int64_t n, drs_round r)
{
    double lo, hi;
    int_range(y->dtype, &lo, &hi);
#define STORE(T)                                                                               \
    do {                                                                                       \
        T *d_ = (T *)y->data;                                                                  \
        _Pragma("omp parallel for schedule(static) num_threads((n > PAR_MIN_WORK) ? drs__nthreads() : 1)")                      \
        for (int64_t i = 0; i < n; i++) {                                                      \
            const double v = round_sat(src[i], r, lo, hi);                                     \
            d_[i] = v >= 9223372036854775807.0 ? (T)INT64_MAX : (T)v;                          \
        }                                                                                      \
    } while (0)
    switch (y->dtype) {
    case DRS_U8: STORE(uint8_t); break;
    case DRS_I8: STORE(int8_t); break;
    case DRS_I32: STORE(int32_t); break;
    case DRS_I64: STORE(int64_t); break;
    default: break;
    }
#undef STORE
}

static void round_in_place(double *v, int64_t n, drs_dtype t)
{
    double lo, hi;
    int_range(t, &lo, &hi);
    _Pragma("omp parallel for schedule(static) num_threads((n > PAR_MIN_WORK) ? drs__nthreads() : 1)")
    for (int64_t i = 0; i < n; i++)
        v[i] = round_sat(v[i], DRS_ROUND_HALF_AWAY, lo, hi);
}

/* w0 * u + w1 * v: OUTPUT_ROWS' two-tap arithmetic (the same bits) */
#define LERP2_EL(A, w0, w1, u, v) ((A)((A)((w0) * (u)) + (A)((w1) * (v))))
/* y[i] = w[0] * p[i] + w[1] * p[xs + i], i < n, for a y that overlaps no input
 * row; with yb (not NULL), yb[i] the same with the weights wb (two output rows
 * of pass h with the same taps: each input element loaded once) */
#define DEFINE_LERP2(A)                                                                        \
    static inline __attribute__((always_inline)) void lerp2x2_##A(                             \
        A *restrict y, A *restrict yb, const A *restrict p, int64_t xs, const A *w,            \
        const A *wb, int64_t n)                                                                \
    {                                                                                          \
        const A w0 = w[0], w1 = w[1], b0 = yb ? wb[0] : 0, b1 = yb ? wb[1] : 0;                \
        const A *restrict p1 = p + xs;                                                         \
        if (!yb)                                                                               \
            for (int64_t i = 0; i < n; i++)                                                    \
                y[i] = LERP2_EL(A, w0, w1, p[i], p1[i]);                                       \
        else                                                                                   \
            for (int64_t i = 0; i < n; i++) {                                                  \
                y[i] = LERP2_EL(A, w0, w1, p[i], p1[i]);                                       \
                yb[i] = LERP2_EL(A, b0, b1, p[i], p1[i]);                                      \
            }                                                                                  \
    }                                                                                          \
    static inline __attribute__((always_inline)) void lerp2_##A(                               \
        A *restrict y, const A *restrict p, int64_t xs, const A *w, int64_t n)                 \
    {                                                                                          \
        lerp2x2_##A(y, NULL, p, xs, w, NULL, n);                                               \
    }
DEFINE_LERP2(float)
DEFINE_LERP2(double)

/* The input columns [*c0, *c1) that outputs [o0, o1) of table tw read (c0 = Lw,
 * c1 = 0 when none reads any); 1 when each of them has one or two taps */
static inline int chunk_cols(const drs_table *tw, int64_t o0, int64_t o1, int64_t Lw,
                             int64_t *c0, int64_t *c1)
{
    int64_t lo = Lw, hi = 0;
    int taps2 = 1;
    for (int64_t o = o0; o < o1; o++)
        if ((taps2 &= tw->ntap[o] == 2 || tw->ntap[o] == 1), tw->ntap[o] > 0) {
            lo = tw->first[o] < lo ? tw->first[o] : lo;
            hi = tw->first[o] + tw->ntap[o] > hi ? tw->first[o] + tw->ntap[o] : hi;
        }
    *c0 = lo;
    *c1 = hi;
    return taps2;
}

/* ---- the last two passes fused, tiled by the first one's output rows ----
 * When the last two active passes resample adjacent axes h and w = h + 1, the
 * rows of pass h's output are exactly pass w's input rows: row (b, oh) of pass
 * h (Lw x inner elements) is computed into a per-thread buffer and pass w is
 * applied to it at once, so the intermediate never leaves the cache.  The
 * arithmetic of every element is that of the two separate passes (same
 * operations, same order), so the bits are identical to the unfused run. */
#define DEFINE_FUSED2(NAME, A, GATHER_ROW)                                                      \
    /* pass h's row from four input rows: OUTPUT_ROWS' four-tap sums, the same operations      \
     * in the same order (w0 x0, then + w1 x1, + w2 x2, + w3 x3, each partial sum stored       \
     * as the same float or double), one input row after the other, each read with the         \
     * line 2 * DRS_PF_BYTES (8 KiB) further on requested into the L1 (a hint: past a row's    \
     * end it falls in the rows that follow, the next output row's when they are next).  An    \
     * integer downsampling by 4 (area) reads its rows of 4 KiB or more once each.  Read       \
     * four rows side by side, with the next output row's four prefetched into the L2 a        \
     * line each per line read (on a Zen 4 core: W6 2.38 -> 1.82 ms against no prefetch),      \
     * W6's forward took 1.82 ms at 1 thread on a Zen 5 core; row after row 1.26 ms            \
     * (drs_bench, thread CPU time, min of 4 alternating rounds; 2 threads 0.81 -> 0.57        \
     * ms; 4 KiB ahead 1.49, 2 KiB 1.62, 12 KiB 1.37; a loop reading 48 MiB in the two         \
     * orders alone: 2.1 against 1.3 ms).  GCC vectors: the plain loop over a line's           \
     * elements came out as scalar code. */                                                    \
    static inline __attribute__((always_inline)) void NAME##_tap4_pf(                          \
        A *restrict tmp, const A *restrict x0, int64_t rowlen, const A *w, int nk)             \
    {                                                                                          \
        typedef A vec_t __attribute__((vector_size(64)));                                      \
        const int64_t V = 64 / (int64_t)sizeof(A);                                             \
        const int64_t nv = rowlen / V * V;                                                     \
        for (int k = 0; k < nk; k++) {                                                         \
            const A *restrict xr = x0 + k * rowlen;                                            \
            const A wk = w[k];                                                                 \
            vec_t wv, xv, tv;                                                                  \
            for (int l = 0; l < (int)V; l++)                                                   \
                wv[l] = wk;                                                                    \
            for (int64_t i = 0; i < nv; i += V) {                                              \
                drs__prefetch_at(xr + i, 2 * DRS_PF_BYTES);                                    \
                memcpy(&xv, xr + i, sizeof xv);                                                \
                if (k == 0) {                                                                  \
                    tv = wv * xv;                                                              \
                } else {                                                                       \
                    memcpy(&tv, tmp + i, sizeof tv);                                           \
                    tv += wv * xv;                                                             \
                }                                                                              \
                memcpy(tmp + i, &tv, sizeof tv);                                               \
            }                                                                                  \
            for (int64_t q = nv; q < rowlen; q++)                                              \
                tmp[q] = k == 0 ? wk * xr[q] : tmp[q] + wk * xr[q];                            \
        }                                                                                      \
    }                                                                                          \
    /* a row (inner == 1) whose interior [u0, u1) is 2-periodic with two taps, when it     \
     * is streamed out: the lines of the interior straight from the registers            \
     * (drs__per2_stream_f32, float with AVX-512), the partial lines at both ends formed \
     * in ob (two 32-output PER2_LOOPs, the edges one by one: the same arithmetic) and     \
     * put through ws; 0 (nothing written) when the row is too short or the variant lacks \
     * it */                                                                                   \
    DRS_SIMD_FN_RET(int, NAME##_row_stream,                                                    \
                    (const A *xrow, A *yrow, A *ob, const drs_table *t, const A *W, A ev,      \
                     int64_t u0, int64_t u1, drs_stream *ws),                                  \
                    (xrow, yrow, ob, t, W, ev, u0, u1, ws), {                                  \
        const int64_t Ow = t->O;                                                               \
        if (sizeof(A) != sizeof(float))                                                        \
            return 0;                                                                          \
        if (u0 == 1 && u1 == Ow - 1 && Ow >= 32) { /* 2x: the whole row from the registers */ \
            A e[2];                                                                            \
            PASS_OUTPUT(A, A, t, W, ev, 0, e, xrow, 1);                                        \
            PASS_OUTPUT(A, A, t, W, ev, Ow - 1, e + 1, xrow, 1);                               \
            const A c[4] = {W[t->stride], W[t->stride + 1], W[2 * t->stride],                  \
                            W[2 * t->stride + 1]};                                             \
            if (drs__per2_row2x_stream_f32((float *)yrow, Ow, (float)e[0], (float)e[1],        \
                                           (const float *)(xrow + t->first[1]),                \
                                           (const float *)(xrow + t->first[2]),                \
                                           (const float *)c))                                  \
                return 1;                                                                      \
        }                                                                                      \
        /* L: the first output of [u0, u1) on a line; [L, E): whole lines, 32 outputs each */ \
        const int64_t L = u0 + (int64_t)(((64 - ((uintptr_t)(yrow + u0) & 63)) & 63) / sizeof(A)); \
        if ((uintptr_t)yrow % sizeof(A) || L + 32 + 32 > u1)                                   \
            return 0;                                                                          \
        const int64_t E = L + (u1 - L) / 32 * 32; /* [E, u1): fewer than 32, by ob */       \
        const A c[4] = {W[L * t->stride], W[L * t->stride + 1], W[(L + 1) * t->stride],         \
                        W[(L + 1) * t->stride + 1]};                                           \
        if (!drs__per2_stream_f32((float *)(yrow + L), (const float *)(xrow + t->first[L]),     \
                                  (const float *)(xrow + t->first[L + 1]), (const float *)c,   \
                                  (E - L) / 2))                                                \
            return 0;                                                                          \
        A *const y = yrow; /* the head [0, L) and the tail [E, Ow) formed in ob */             \
        yrow = ob;                                                                             \
        for (int64_t o = 0; o < u0; o++)                                                       \
            PASS_OUTPUT(A, A, t, W, ev, o, yrow + o, xrow, 1);                                 \
        PER2_LOOP(A, A, 2, u0, 16);                                                            \
        PER2_LOOP(A, A, 2, u1 - 32, 16);                                                       \
        for (int64_t o = u1; o < Ow; o++)                                                      \
            PASS_OUTPUT(A, A, t, W, ev, o, yrow + o, xrow, 1);                                 \
        drs__stream_put(ws, y, ob, (size_t)L * sizeof(A));                                     \
        drs__stream_put(ws, y + E, ob + E, (size_t)(Ow - E) * sizeof(A));                      \
        return 1;                                                                              \
    })                                                                                         \
    /* rows oh and, with pair, oh + 1 of image b when pass w is a whole 2x row        \
     * (_row_stream's first case, with its outputs 1 and 2 from input 0) and pass h   \
     * one or two taps from the same input rows: both passes in the registers        \
     * (drs__rows2x_stream_f32), the edge outputs here from the few elements of the  \
     * row of pass h they read (the same arithmetic as _row: the same bits).         \
     * Returns the rows written: 0 (cannot), 1 or 2 */                                 \
    static int NAME##_rows2x(const A *x, A *y, int64_t b, int64_t oh, int64_t Lh,              \
                             const drs_table *th, const A *Wh, int64_t Lw,                     \
                             const drs_table *tw, const A *Ww, A ev, int pair)                 \
    {                                                                                          \
        const int64_t Oh = th->O, Ow = tw->O, sh = th->stride, sw = tw->stride;                \
        const int32_t nh = th->ntap[oh];                                                       \
        if (sizeof(A) != sizeof(float) || nh < 1 || nh > 2)                                   \
            return 0;                                                                          \
        pair = pair && th->ntap[oh + 1] == nh && th->first[oh + 1] == th->first[oh];           \
        const A *const x0 = x + (b * Lh + th->first[oh]) * Lw, *const x1 = nh == 2 ? x0 + Lw : NULL; \
        const A v[4] = {Wh[oh * sh], nh == 2 ? Wh[oh * sh + 1] : (A)0,                         \
                        pair ? Wh[(oh + 1) * sh] : (A)0,                                       \
                        pair && nh == 2 ? Wh[(oh + 1) * sh + 1] : (A)0};                       \
        A e[4] = {0, 0, 0, 0};                                                                 \
        for (int k = 0; k <= pair; k++)                                                        \
            for (int q = 0; q < 2; q++) {                                                      \
                const int64_t o = q ? Ow - 1 : 0;                                              \
                const int32_t n = tw->ntap[o];                                                 \
                A t[8];                                                                        \
                if (n > 8 || (n > 0 && (tw->first[o] < 0 || tw->first[o] + n > Lw)))           \
                    return 0;                                                                  \
                if (n == 0) {                                                                  \
                    e[2 * k + q] = (tw->extrap && tw->extrap[o]) ? ev : (A)0;                  \
                    continue;                                                                  \
                }                                                                              \
                for (int32_t j = 0; j < n; j++) { /* lerp2's (or one tap's) element */       \
                    const int64_t i = tw->first[o] + j;                                        \
                    t[j] = x1 ? LERP2_EL(A, v[2 * k], v[2 * k + 1], x0[i], x1[i])              \
                              : v[2 * k] * x0[i];                                              \
                }                                                                              \
                OUTPUT_ROW(A, A, &e[2 * k + q], t, Ww + o * sw, n, 1);                         \
            }                                                                                  \
        const float c[4] = {(float)Ww[sw], (float)Ww[sw + 1], (float)Ww[2 * sw],               \
                            (float)Ww[2 * sw + 1]};                                            \
        const float vf[4] = {(float)v[0], (float)v[1], (float)v[2], (float)v[3]};              \
        const float ef[4] = {(float)e[0], (float)e[1], (float)e[2], (float)e[3]};              \
        A *const ya = y + (b * Oh + oh) * Ow;                                                  \
        return drs__rows2x_stream_f32((float *)ya, pair ? (float *)(ya + Ow) : NULL, Ow,       \
                                      (const float *)x0, (const float *)x1, vf, ef, c)         \
                   ? 1 + pair                                                                  \
                   : 0;                                                                        \
    }                                                                                          \
    /* pass w of a row, from its pass-h row tmp into yrow (or ob, streamed out); for           \
     * _row_wide: _row keeps its own copy of these lines, since with this function inlined     \
     * there its code changed (86 bytes more), and its rows are layout-sensitive               \
     * (below) */                                                                              \
    static inline __attribute__((always_inline)) void NAME##_pass_w(                           \
        const A *tmp, A *yrow, A *ob, int64_t inner, const drs_table *tw, const A *Ww, A ev,   \
        drs_stream *ws, int nu, int per2, int64_t u0, int64_t u1)                              \
    {                                                                                          \
        const int64_t Ow = tw->O;                                                              \
        A *const yd = ob ? ob : yrow; /* ob: streamed out */                                   \
        if (inner == 1 && ob && sizeof(A) == sizeof(float) && nu == 2 && per2 == 1 &&          \
            NAME##_row_stream(tmp, yrow, ob, tw, Ww, ev, u0, u1, ws))                          \
            return; /* the interior streamed from the registers */                           \
        if (inner == 1)                                                                        \
            GATHER_ROW(tmp, yd, tw, Ww, ev, nu, per2, u0, u1);                                 \
        else                                                                                   \
            for (int64_t o = 0; o < Ow; o++)                                                   \
                PASS_OUTPUT(A, A, tw, Ww, ev, o, yd + o * inner, tmp, inner);                  \
        if (ob)                                                                                \
            drs__stream_put(ws, yrow, ob, (size_t)(Ow * inner) * sizeof(A));                   \
    }                                                                                          \
    /* one row r = (b, oh): pass h into tmp, then pass w from tmp */                           \
    DRS_SIMD_FN(NAME##_row,                                                                    \
                (const A *x, A *y, int64_t b, int64_t oh, int64_t Lh, const drs_table *th,     \
                 const A *Wh, int64_t Lw, int64_t inner, const drs_table *tw, const A *Ww,     \
                 A ev, A *tmp, A *ob, drs_stream *ws, int nu, int per2, int64_t u0,            \
                 int64_t u1, const size_t *far),                                               \
                (x, y, b, oh, Lh, th, Wh, Lw, inner, tw, Ww, ev, tmp, ob, ws, nu, per2, u0, u1, \
                 far),                                                                         \
    {                                                                                          \
        const int64_t Oh = th->O, Ow = tw->O, rowlen = Lw * inner;                             \
        A *const yrow = y + (b * Oh + oh) * Ow * inner;                                        \
        /* tmp, ob: this thread's slots; the rows go where drs__place() says (tmp: far     \
         * from every input row it is formed from: far[n], far_from_rows for n taps) */        \
        const int32_t nh_ = th->ntap[oh];                                                      \
        tmp = drs__place(tmp, x + (b * Lh + (nh_ > 0 ? th->first[oh] : 0)) * rowlen,           \
                         far[nh_ >= 0 && nh_ <= 4 ? nh_ : 5]);                                 \
        if (ob)                                                                                \
            ob = drs__place(ob, yrow, DRS_PLACE_DELTA);                                        \
        /* pass h, one output row: a weighted sum of input rows */                             \
        if (nh_ == 2) /* the common case, with no aliasing between tmp and x */             \
            lerp2_##A(tmp, x + (b * Lh + th->first[oh]) * rowlen, rowlen, Wh + oh * th->stride,  \
                      rowlen);                                                                 \
        else if (nh_ == 4 && rowlen * (int64_t)sizeof(A) >= 4096 && oh + 1 < Oh &&            \
                 th->ntap[oh + 1] == 4 && th->first[oh + 1] >= th->first[oh] + 4)              \
            NAME##_tap4_pf(tmp, x + (b * Lh + th->first[oh]) * rowlen, rowlen,                 \
                           Wh + oh * th->stride, 4);                                           \
        else                                                                                   \
            PASS_OUTPUT(A, A, th, Wh, ev, oh, tmp, x + b * Lh * rowlen, rowlen);               \
        A *const yd = ob ? ob : yrow; /* ob: streamed out */                                   \
        if (inner == 1 && ob && sizeof(A) == sizeof(float) && nu == 2 && per2 == 1 &&          \
            NAME##_row_stream(tmp, yrow, ob, tw, Ww, ev, u0, u1, ws))                          \
            return; /* the interior streamed from the registers */                           \
        if (inner == 1)                                                                        \
            GATHER_ROW(tmp, yd, tw, Ww, ev, nu, per2, u0, u1);                                 \
        else                                                                                   \
            for (int64_t o = 0; o < Ow; o++)                                                   \
                PASS_OUTPUT(A, A, tw, Ww, ev, o, yd + o * inner, tmp, inner);                  \
        if (ob)                                                                                \
            drs__stream_put(ws, yrow, ob, (size_t)(Ow * inner) * sizeof(A));                   \
    })                                                                                         \
    /* the same row where pass h has more than four taps and rows of 4 KiB or more (the   \
     * antialiased downsamplings): its input rows one after the other, as the four-tap     \
     * rows' sweep reads them (tap4_pf; OUTPUT_ROWS' one-row-a-tap sums, the same bits),   \
     * where PASS_OUTPUT read them without prefetching.  A function of its own, which the  \
     * caller picks: the same branch inside the row function above made the rows it       \
     * keeps slower (W3's and W6's forward, 2-5 %), a matter of the code's layout.        \
     * drs_bench --cpu-time, 1 thread, Zen 5, min of 6 alternating rounds: W4's forward    \
     * 3.02 -> 2.47 ms, W5's 4.39 -> 4.00 */                                               \
    DRS_SIMD_FN(NAME##_row_wide,                                                               \
                (const A *x, A *y, int64_t b, int64_t oh, int64_t Lh, const drs_table *th,     \
                 const A *Wh, int64_t Lw, int64_t inner, const drs_table *tw, const A *Ww,     \
                 A ev, A *tmp, A *ob, drs_stream *ws, int nu, int per2, int64_t u0,            \
                 int64_t u1, const size_t *far),                                               \
                (x, y, b, oh, Lh, th, Wh, Lw, inner, tw, Ww, ev, tmp, ob, ws, nu, per2, u0, u1, \
                 far),                                                                         \
    {                                                                                          \
        const int64_t Oh = th->O, Ow = tw->O, rowlen = Lw * inner;                             \
        A *const yrow = y + (b * Oh + oh) * Ow * inner;                                        \
        const A *const x0 = x + (b * Lh + th->first[oh]) * rowlen;                             \
        tmp = drs__place(tmp, x0, far[5]);                                                     \
        if (ob)                                                                                \
            ob = drs__place(ob, yrow, DRS_PLACE_DELTA);                                        \
        NAME##_tap4_pf(tmp, x0, rowlen, Wh + oh * th->stride, (int)th->ntap[oh]);              \
        NAME##_pass_w(tmp, yrow, ob, inner, tw, Ww, ev, ws, nu, per2, u0, u1);                  \
    })                                                                                         \
    /* outputs o0 + [0, n) of the chunked row below when each reads one or two        \
     * columns of tmp (nt[j], from column c0 on): OUTPUT_ROW's arithmetic, so the same \
     * bits, with the next chunk's input columns prefetched a slice per output */     \
    DRS_SIMD_FN(NAME##_taps2,                                                                  \
                (A *restrict yd, const A *restrict tmp, const int64_t *first,                  \
                 const int32_t *nt, const A *W, int64_t stride, int64_t n, int64_t c0,         \
                 int64_t inner, const A *xr, int64_t rowlen, int nh, int64_t pf0, int64_t pfs), \
                (yd, tmp, first, nt, W, stride, n, c0, inner, xr, rowlen, nh, pf0, pfs),       \
    {                                                                                          \
        for (int64_t j = 0; j < n; j++) {                                                      \
            if (pfs > 0) {                                                                     \
                int64_t q0 = pf0 + j * pfs, q1 = q0 + pfs;                                     \
                q1 = q1 < rowlen ? q1 : rowlen;                                                \
                for (int k = 0; k < nh && q1 > q0; k++)                                        \
                    drs__prefetch_span(xr + k * rowlen + q0, q1 - q0, sizeof(A));              \
            }                                                                                  \
            const A w0 = W[j * stride], w1 = nt[j] == 2 ? W[j * stride + 1] : (A)0;           \
            const A *restrict p0 = tmp + (first[j] - c0) * inner, *restrict p1 = p0 + inner;   \
            A *restrict yo = yd + j * inner;                                                   \
            if (nt[j] == 1) {                                                                  \
                for (int64_t i = 0; i < inner; i++)                                            \
                    yo[i] = w0 * p0[i];                                                        \
                continue;                                                                      \
            }                                                                                  \
            for (int64_t i = 0; i < inner; i++) {                                              \
                A a = w0 * p0[i];                                                              \
                a += w1 * p1[i];                                                               \
                yo[i] = a;                                                                     \
            }                                                                                  \
        }                                                                                      \
    })                                                                                         \
    /* the same row when it is long (channels-last): by chunks of outputs of     \
     * pass w, pass h forming only the input columns [c0, c1) a chunk reads, so  \
     * the slice stays in L1 (columns on a chunk's edge are formed twice, the    \
     * same bits each time); needs tw monotone (checked by the caller).  With    \
     * pair, rows r and r + 1 together (two taps each from the same input rows,  \
     * as the two output rows between two input rows of a 2x upsampling): each  \
     * chunk's input columns are read once for both, into tmp and a second slice \
     * a multiple of 4 KiB after it (the caller checks that it fits) */          \
    DRS_SIMD_FN(NAME##_row_chunked,                                                            \
                (const A *x, A *y, int64_t r, int64_t Lh, const drs_table *th, const A *Wh,    \
                 int64_t Lw, int64_t inner, const drs_table *tw, const A *Ww, A ev, A *tmp,    \
                 A *ob, drs_stream *ws, int64_t chunk, int pair),                              \
                (x, y, r, Lh, th, Wh, Lw, inner, tw, Ww, ev, tmp, ob, ws, chunk, pair),        \
    {                                                                                          \
        const int64_t Oh = th->O, Ow = tw->O, rowlen = Lw * inner;                             \
        const int64_t b = r / Oh, oh = r % Oh, nh = th->ntap[oh];                              \
        const A vh = (th->extrap && th->extrap[oh]) ? ev : (A)0;                               \
        const A *xr = x + (b * Lh + (nh > 0 ? th->first[oh] : 0)) * rowlen;                    \
        A *const tslot = tmp, *const oslot = ob;                                               \
        for (int64_t o0 = 0; o0 < Ow; o0 += chunk) {                                           \
            const int64_t o1 = o0 + chunk < Ow ? o0 + chunk : Ow;                              \
            int64_t c0, c1;                                                                    \
            const int taps2 = chunk_cols(tw, o0, o1, Lw, &c0, &c1);                            \
            const int64_t len = c0 < c1 ? (c1 - c0) * inner : 0;                               \
            /* the second row's slice: the first's page offset, past its end */                \
            const int64_t gap = ((len * (int64_t)sizeof(A) + 4095) / 4096) * 4096 / (int64_t)sizeof(A); \
            if (c0 < c1) { /* pass h on the columns [c0, c1) */                                \
                tmp = drs__place(tslot, xr + c0 * inner,                                       \
                                 far_from_rows((size_t)rowlen * sizeof(A), (int)nh));          \
                if (pair)                                                                      \
                    lerp2x2_##A(tmp, tmp + gap, xr + c0 * inner, rowlen,                       \
                                Wh + oh * th->stride, Wh + (oh + 1) * th->stride, len);        \
                else if (nh == 0)                                                              \
                    for (int64_t i = 0; i < len; i++)                                          \
                        tmp[i] = vh;                                                           \
                else                                                                           \
                    OUTPUT_ROWS(A, A, tmp, xr + c0 * inner, Wh + oh * th->stride, nh, len,     \
                                rowlen);                                                       \
            }                                                                                  \
            /* the next chunk's columns of the input rows, prefetched a slice per output       \
             * (W9 forward at 2 threads 5.8-8.1 -> 4.5-7.0 ms in 5 alternating rounds) */      \
            const int64_t pf0 = c1 * inner, pfn = c0 < c1 && c1 < Lw ? (c1 - c0) * inner : 0;  \
            const int64_t pfs = (pfn + (o1 - o0) - 1) / (o1 - o0);                             \
            for (int k = 0; k <= pair; k++) {                                                  \
                A *const yrow = y + (r + k) * Ow * inner, *const tk = tmp + k * gap;           \
                const int64_t pk = k ? 0 : pfs; /* the second row: prefetched already */       \
                if (oslot)                                                                     \
                    ob = drs__place(oslot, yrow + o0 * inner, DRS_PLACE_DELTA);                \
                if (taps2) { /* every output of the chunk reads 1 or 2 columns */             \
                    if (ob && sizeof(A) == sizeof(float) &&                                    \
                        drs__lerp2_stream_f32((float *)(yrow + o0 * inner), (const float *)tk, \
                                              tw->first + o0, tw->ntap + o0,                   \
                                              (const float *)(Ww + o0 * tw->stride),           \
                                              tw->stride, o1 - o0, c0, inner,                  \
                                              (const float *)xr, rowlen, (int)nh, pf0, pk))    \
                        continue; /* streamed from the registers */                          \
                    NAME##_taps2(ob ? ob : yrow + o0 * inner, tk, tw->first + o0,              \
                                 tw->ntap + o0, Ww + o0 * tw->stride, tw->stride, o1 - o0, c0, \
                                 inner, xr, rowlen, (int)nh, pf0, pk);                         \
                } else {                                                                       \
                    for (int64_t o = o0; o < o1; o++) {                                        \
                        if (pk > 0) {                                                          \
                            int64_t q0 = pf0 + (o - o0) * pk, q1 = q0 + pk;                    \
                            q1 = q1 < rowlen ? q1 : rowlen;                                    \
                            for (int64_t h = 0; h < nh && q1 > q0; h++)                        \
                                drs__prefetch_span(xr + h * rowlen + q0, q1 - q0, sizeof(A));  \
                        }                                                                      \
                        const int32_t n = tw->ntap[o];                                         \
                        A *yd = ob ? ob + (o - o0) * inner : yrow + o * inner; /* ob: out */   \
                        if (n == 0) {                                                          \
                            const A v = (tw->extrap && tw->extrap[o]) ? ev : (A)0;             \
                            for (int64_t i = 0; i < inner; i++)                                \
                                yd[i] = v;                                                     \
                        } else {                                                               \
                            OUTPUT_ROW(A, A, yd, tk + (tw->first[o] - c0) * inner,             \
                                       Ww + o * tw->stride, n, inner);                         \
                        }                                                                      \
                    }                                                                          \
                }                                                                              \
                if (ob)                                                                        \
                    drs__stream_put(ws, yrow + o0 * inner, ob,                                 \
                                    (size_t)((o1 - o0) * inner) * sizeof(A));                  \
            }                                                                                  \
        }                                                                                      \
    })                                                                                         \
    static void NAME(const A *x, A *y, int64_t outer, int64_t Lh, const drs_table *th,         \
                     const A *Wh, int64_t Lw, int64_t inner, const drs_table *tw, const A *Ww, \
                     A ev, char *bufs, size_t tslot, char *obufs, size_t oslot,                \
                     int stream_rows, int nthr)                                                \
    {                                                                                          \
        const int64_t Oh = th->O, Ow = tw->O, rowlen = Lw * inner;                             \
        int64_t u0, u1;                                                                        \
        int per2;                                                                              \
        const int nu = uniform_taps(tw, &u0, &u1, &per2);                                      \
        per2 = PERIODIC_WEIGHTS(per2, tw, Ww, u0, u1, nu);                                      \
        size_t far[6]; /* far_from_rows for rows of pass h with 0..4 taps, [5]: more */        \
        for (int n = 0; n < 6; n++)                                                            \
            far[n] = far_from_rows((size_t)rowlen * sizeof(A), n);                             \
        /* long rows: chunks of pass-w outputs reading about 2 KiB of columns.  With rows     \
         * one at a time 4 KiB was the fastest (W9 forward at 1 thread against 8 KiB: 6.5 ->   \
         * 6.2 ms min of 8 alternating rounds; 2 KiB 6.5, 16 KiB 7.6); with two rows a chunk   \
         * (pair below) 2 KiB: 5.60 / 5.40 ms against 5.62 / 5.61 (min of two sets of 8-10     \
         * rounds), 1 KiB 5.63, 8 KiB 6.63; at 2 threads the same within the noise */         \
        int64_t chunk = 0;                                                                     \
        if (inner > 1 && rowlen * (int64_t)sizeof(A) > ((int64_t)16 << 10) && Lw > 0) {       \
            const int64_t cols = 2048 / (inner * (int64_t)sizeof(A));                          \
            chunk = (cols > 2 ? cols : 2) * Ow / Lw;                                           \
            chunk = chunk < 1 ? 1 : chunk;                                                     \
            for (int64_t o = 1; o < Ow && chunk; o++) /* monotone taps only */                 \
                if (tw->ntap[o] > 0 && tw->ntap[o - 1] > 0 &&                                  \
                    (tw->first[o] < tw->first[o - 1] ||                                        \
                     tw->first[o] + tw->ntap[o] < tw->first[o - 1] + tw->ntap[o - 1]))         \
                    chunk = 0;                                                                 \
        }                                                                                      \
        /* 2x rows along w formed whole in the registers with pass h (_rows2x) */             \
        const int r2x = inner == 1 && sizeof(A) == sizeof(float) && nu == 2 && per2 == 1 &&    \
                        u0 == 1 && u1 == Ow - 1 && Ow % 32 == 0 && tw->first[1] == 0 &&        \
                        tw->first[2] == 0;                                                     \
        /* rows of 4 KiB or more: those with more than four taps in pass h go to _row_wide */ \
        const int wide = rowlen * (int64_t)sizeof(A) >= 4096;                                  \
        /* two rows of pass h per chunk fit in the slot (a row and 4 KiB) when each chunk's    \
         * columns, rounded up to 4 KiB, and the columns again are at most a row */            \
        int pair_ok = 0;                                                                       \
        if (chunk) {                                                                           \
            int64_t most = 0; /* the most columns a chunk reads */                            \
            for (int64_t o0 = 0; o0 < Ow; o0 += chunk) {                                       \
                const int64_t o1 = o0 + chunk < Ow ? o0 + chunk : Ow;                          \
                int64_t c0, c1;                                                                \
                chunk_cols(tw, o0, o1, Lw, &c0, &c1);                                          \
                most = c1 - c0 > most ? c1 - c0 : most;                                        \
            }                                                                                  \
            const int64_t bytes = most * inner * (int64_t)sizeof(A);                           \
            pair_ok = (bytes + 4095) / 4096 * 4096 + bytes <= rowlen * (int64_t)sizeof(A);     \
        }                                                                                      \
        /* bufs, obufs (or NULL): per thread, tslot / oslot bytes apart, a row of pass h       \
         * and an output row to stream out, each with 4 KiB to spare (drs__place()) */         \
        _Pragma("omp parallel num_threads((outer * Oh * Ow * inner > PAR_MIN_WORK) ? nthr : 1)") \
        {                                                                                      \
            const int64_t tid = omp_get_thread_num();                                          \
            A *tmp = (A *)thread_slot(bufs, tslot, tid);                                       \
            A *ob = (obufs && (chunk || stream_rows)) ? (A *)thread_slot(obufs, oslot, tid)   \
                                                      : NULL;                                  \
            drs_stream ws;                                                                     \
            drs__stream_begin(&ws);                                                            \
            /* rows [r0, r1) of this thread, contiguous (schedule(static)'s split), walked  \
             * as (b, oh) without a division per row */                                      \
            const int64_t nr = outer * Oh, nt = omp_get_num_threads();                        \
            const int64_t q = nr / nt, rem = nr % nt;                                          \
            const int64_t r0 = tid * q + (tid < rem ? tid : rem), r1 = r0 + q + (tid < rem);  \
            int64_t b = Oh > 0 ? r0 / Oh : 0, oh = Oh > 0 ? r0 % Oh : 0;                       \
            for (int64_t r = r0; r < r1; r++) {                                                \
                if (chunk) {                                                                   \
                    /* rows oh and oh + 1 from the same two input rows: together */           \
                    const int pair = pair_ok && r + 1 < r1 && oh + 1 < Oh &&                   \
                                     th->ntap[oh] == 2 && th->ntap[oh + 1] == 2 &&             \
                                     th->first[oh] == th->first[oh + 1];                       \
                    NAME##_row_chunked(x, y, r, Lh, th, Wh, Lw, inner, tw, Ww, ev, tmp, ob,    \
                                       &ws, chunk, pair);                                      \
                    if (pair) {                                                                \
                        r++;                                                                   \
                        oh++;                                                                  \
                    }                                                                          \
                } else {                                                                       \
                    const int done = ob && r2x ? NAME##_rows2x(x, y, b, oh, Lh, th, Wh, Lw, tw, Ww, \
                                                               ev, r + 1 < r1 && oh + 1 < Oh)  \
                                               : 0;                                            \
                    if (!done && wide && th->ntap[oh] > 4)                                     \
                        NAME##_row_wide(x, y, b, oh, Lh, th, Wh, Lw, inner, tw, Ww, ev, tmp,   \
                                        ob, &ws, nu, per2, u0, u1, far);                       \
                    else if (!done)                                                            \
                        NAME##_row(x, y, b, oh, Lh, th, Wh, Lw, inner, tw, Ww, ev, tmp, ob,    \
                                   &ws, nu, per2, u0, u1, far);                                \
                    else if (done == 2) {                                                      \
                        r++;                                                                   \
                        oh++;                                                                  \
                    }                                                                          \
                }                                                                              \
                if (++oh == Oh) {                                                              \
                    oh = 0;                                                                    \
                    b++;                                                                       \
                }                                                                              \
            }                                                                                  \
            if (ob)                                                                            \
                drs__stream_end(&ws); /* this thread's streaming stores, before the barrier */ \
        }                                                                                      \
    }
DEFINE_FUSED2(fused2_f32, float, row_f32)
DEFINE_FUSED2(fused2_f64, double, row_f64)

/* 1 when table t's rows are 2x rows (float weights): outputs 1 .. O - 2 a
 * 2-periodic two-tap run and O a multiple of 32, the rows DEFINE_FUSED2's
 * _row_stream streams whole from the registers (other 2-periodic rows send
 * their ends through the row buffer, which the policy below was not measured
 * on) */
static int per2_two_taps(const drs_table *t)
{
    int64_t u0, u1;
    int per2;
    const int nu = uniform_taps(t, &u0, &u1, &per2);
    return nu == 2 && u0 == 1 && u1 == t->O - 1 && t->O % 32 == 0 &&
           PERIODIC_WEIGHTS(per2, t, (const float *)t->wf, u0, u1, nu) == 1;
}

/* 1 when every active pass is a pure selection: one tap of weight exactly 1
 * per output (nearest modes, pads-only axes).  The passes then compose into
 * one index gather, y[i] = x[map(i)], which gives the same values as the
 * passes (x * 1 == x) without intermediates. */
static int all_unit_gathers(const drs_tables *T)
{
    for (int a = 0; a < T->nact; a++) {
        const drs_table *t = &T->tab[T->active[a]];
        if (t->extrap)
            return 0;
        for (int64_t o = 0; o < t->O; o++)
            if (t->ntap[o] != 1 || t->w[o * t->stride] != 1.0)
                return 0;
    }
    return 1;
}

/* One output row of the composed gather (fw: the last axis's map, NULL for
 * none; d2 >= 0: fw[o] == d2 + o / 2 for every o, nearest 2x upsampling,
 * each input copied twice in a loop that vectorises instead of a gather). */
DRS_SIMD_FN(unit_gather_row,
            (char *dst, const char *xrow, const int64_t *fw, int64_t d2, int64_t Wo, size_t es),
            (dst, xrow, fw, d2, Wo, es),
{
    if (!fw) {
        memcpy(dst, xrow, (size_t)Wo * es);
    } else if (d2 >= 0 && es == 4) {
        const uint32_t *xr = (const uint32_t *)(const void *)xrow + d2;
        uint32_t *yr = (uint32_t *)(void *)dst;
        for (int64_t j = 0; j < Wo / 2; j++) {
            yr[2 * j] = xr[j];
            yr[2 * j + 1] = xr[j];
        }
        if (Wo & 1)
            yr[Wo - 1] = xr[Wo / 2];
    } else if (es == 4) {
        const uint32_t *xr = (const uint32_t *)(const void *)xrow;
        uint32_t *yr = (uint32_t *)(void *)dst;
        for (int64_t o = 0; o < Wo; o++)
            yr[o] = xr[fw[o]];
    } else if (es == 8) {
        const uint64_t *xr = (const uint64_t *)(const void *)xrow;
        uint64_t *yr = (uint64_t *)(void *)dst;
        for (int64_t o = 0; o < Wo; o++)
            yr[o] = xr[fw[o]];
    } else {
        for (int64_t o = 0; o < Wo; o++)
            dst[o] = xrow[fw[o]];
    }
})

/* The composed gather: parallel over output rows (all axes but the last);
 * each output element is written once, so the bits never depend on threads.
 * rowbufs (one output row per thread, rbs bytes apart, or NULL): the rows are
 * formed there and streamed out (a row repeating its predecessor's source, as
 * in nearest upsampling, is streamed again without being formed again). */
static void unit_gather(const drs_plan *p, const drs_tables *T, const drs_tensor *x, drs_tensor *y,
                        char *rowbufs, size_t rbs, int nthr)
{
    const int R = p->rank;
    const int64_t *first[DRS_MAX_RANK] = {NULL};
    for (int a = 0; a < T->nact; a++)
        first[p->pass[T->active[a]].axis] = T->tab[T->active[a]].first;
    int64_t xstride[DRS_MAX_RANK];
    xstride[R - 1] = 1;
    for (int d = R - 2; d >= 0; d--)
        xstride[d] = xstride[d + 1] * p->in_shape[d + 1];
    const int64_t Wo = p->out_shape[R - 1];
    int64_t rows = 1;
    for (int d = 0; d < R - 1; d++)
        rows *= p->out_shape[d];
    const size_t es = drs_dtype_size(p->dtype);
    const int64_t *fw = first[R - 1];
    int64_t d2 = fw ? fw[0] : -1; /* the 2x pattern (see unit_gather_row), or -1 */
    for (int64_t o = 0; fw && d2 >= 0 && o < Wo; o++)
        if (fw[o] != fw[0] + o / 2)
            d2 = -1;
    const char *xs = (const char *)x->data;
    char *ys = (char *)y->data;
    _Pragma("omp parallel num_threads((rows * Wo > PAR_MIN_WORK) ? nthr : 1)")
    {
        char *buf = rowbufs ? rowbufs + (size_t)omp_get_thread_num() * rbs : NULL;
        int64_t formed = -1; /* the source row formed in buf */
        drs_stream ws;
        drs__stream_begin(&ws);
        /* the output row's index over the leading axes: decoded (divisions)
         * at the first row of the thread's block, then counted up */
        int64_t od[DRS_MAX_RANK] = {0}, prev = -2;
        _Pragma("omp for schedule(static) nowait")
        for (int64_t r = 0; r < rows; r++) {
            if (r != prev + 1) {
                int64_t rem = r;
                for (int d = R - 2; d >= 0; d--) {
                    od[d] = rem % p->out_shape[d];
                    rem /= p->out_shape[d];
                }
            } else {
                for (int d = R - 2; d >= 0 && ++od[d] == p->out_shape[d]; d--)
                    od[d] = 0;
            }
            prev = r;
            int64_t src = 0;
            for (int d = R - 2; d >= 0; d--)
                src += (first[d] ? first[d][od[d]] : od[d]) * xstride[d];
            char *dst = ys + (size_t)(r * Wo) * es;
            const char *xrow = xs + (size_t)src * es;
            if (!buf) {
                unit_gather_row(dst, xrow, fw, d2, Wo, es);
                continue;
            }
            if (!fw) {
                drs__stream_put(&ws, dst, xrow, (size_t)Wo * es);
                continue;
            }
            if (formed != src)
                unit_gather_row(buf, xrow, fw, d2, Wo, es);
            formed = src;
            drs__stream_put(&ws, dst, buf, (size_t)Wo * es);
        }
        if (rowbufs)
            drs__stream_end(&ws); /* this thread's streaming stores, before the barrier */
    }
}

drs_status drs_plan_execute(const drs_plan *p, drs_tensor *y, const drs_tensor *x)
{
    int64_t ny, nx;
    drs__check_tensor(p->op, "output", y, &ny);
    drs__check_tensor(p->op, "input", x, &nx);
    if (ny == 0)
        return DRS_OK;
    if (nx == 0) {
        /* An empty input with a non-empty output: only zero pads make an
         * empty axis long enough to sample (planning rejects output length
         * > 0 from padded length 0), so every tap of that axis reads a pad
         * and every output is 0, whatever the mode and type.  No pointer is
         * formed from x->data, which may be NULL for an empty tensor. */
        memset(y->data, 0, (size_t)ny * drs_dtype_size(p->dtype));
        return DRS_OK;
    }
    if (drs_ov_reference_applies(p)) /* OpenVINO integer linear/cubic (ov_reference.c) */
        return drs_ov_reference_execute(p, y, x);

    /* the team size of this call, read once: per-thread scratch is sized by it
     * and the regions that index it by thread number ask for exactly it, even
     * if another thread changes drs_set_num_threads() meanwhile */
    const int nthr = drs__nthreads();
    const int is_f32 = p->dtype == DRS_F32;
    const int is_int = p->dtype != DRS_F32 && p->dtype != DRS_F64;
    const size_t esz = is_f32 ? sizeof(float) : sizeof(double);

    /* ---- tables (all allocation happens before the output is touched) ---- */
    drs_tables T;
    drs_status st = drs_tables_build(p, &T, is_f32, -1, DRS_PARAM_NONE);
    if (st)
        return st;
    const int nact = T.nact;
    const int *active = T.active;
    /* outputs far larger than the caches are streamed out (drs_stream):
     * nearest gathers and the fused passes' long channels-last rows (split in
     * chunks) gain at every team size (measured with DRS_STREAM=0 and without
     * at 2 threads: W2 14.7 -> 6.2 ms, W9 11.4 -> 6.5), the fused passes' rows
     * not split in chunks only with a team and as drs__stream_output says: at
     * one thread their ordinary stores won (drs_bench, 1 thread, DRS_STREAM=0 against streaming: W1
     * 8.3-8.7 against 9.3-9.6 ms, W10 2.9 against 3.5, W12 8.4 against 9.6;
     * W1 8.3-8.9 ms wherever the output lay in its page, against 9.4-15.4
     * streamed) */
    const int64_t ybytes = ny * (int64_t)drs_dtype_size(p->dtype);
    const int stream = drs__stream_output(ybytes, 1);
    int stream_rows = nthr > 1 ? drs__stream_output(ybytes, nthr) : drs__stream_mode() == 1;
    if (nact > 0 && all_unit_gathers(&T)) { /* nearest: one gather */
        const int64_t Wo = p->out_shape[p->rank - 1];
        char *rb = NULL;
        /* one row per thread, on cache lines of its own (optional: NULL writes
         * rows directly) */
        const size_t rbs = line_round((size_t)Wo * drs_dtype_size(p->dtype));
        if (stream && Wo <= ((int64_t)1 << 16))
            rb = drs__malloc((size_t)nthr * rbs);
        unit_gather(p, &T, x, y, rb, rbs, nthr);
        free(rb);
        drs_tables_free(p, &T);
        return DRS_OK;
    }

    /* ---- intermediate shapes and scratch ---- */
    int64_t shape[DRS_MAX_RANK];
    memcpy(shape, p->in_shape, sizeof shape);
    /* fuse the last two passes when they resample adjacent axes and one row
     * of the first (Lw x inner elements) is small enough to stay in cache */
    int fuse = 0;
    int64_t rowlen = 0, orowlen = 0;
    if (!is_int && nact >= 2 &&
        p->pass[active[nact - 1]].axis == p->pass[active[nact - 2]].axis + 1) {
        for (int a = 0; a < nact - 2; a++)
            shape[p->pass[active[a]].axis] = p->pass[active[a]].O;
        rowlen = 1;
        for (int i = p->pass[active[nact - 1]].axis; i < p->rank; i++)
            rowlen *= shape[i];
        fuse = rowlen <= ((int64_t)1 << 16);
        memcpy(shape, p->in_shape, sizeof shape);
        orowlen = 1; /* one output row of the last pass */
        for (int i = p->pass[active[nact - 1]].axis; i < p->rank; i++)
            orowlen *= p->out_shape[i];
    }
    /* the extent after the fused passes' last axis (the axes after it are
     * not resized): a product, not a quotient, so no division by an extent */
    int64_t innerw = 1;
    for (int i = fuse ? p->pass[active[nact - 1]].axis + 1 : p->rank; i < p->rank; i++)
        innerw *= p->out_shape[i];
    /* rows whose whole interior is streamed from the registers (the fused passes'
     * 2-periodic two-tap rows in float with AVX-512: DEFINE_FUSED2's _row_stream)
     * gain at every team size too (drs_bench, thread CPU time at 1 thread, 4
     * alternating rounds, DRS_STREAM=0 against 1: W1 8.5-8.8 -> 6.8-7.0 ms, W10
     * 2.9-3.2 -> 2.1-2.4, W12 8.4-9.2 -> 6.8-7.1; at 2 threads W1 5.3-6.8 ->
     * 5.0-5.9, W12 5.5-6.5 -> 5.0-6.0, W10 1.7-2.0 -> 1.9), when every row starts on a
     * line: the rows of an output 16 bytes past a line (NumPy's alignment) went out
     * through the row buffer at their ends and were slower streamed than not (W1's
     * shapes at 1 thread, 7.8-8.2 ms not streamed, 11.7-11.9 streamed; shifting the
     * lines into place in the registers instead, one more permute a line, 11.7-12.4) */
    if (fuse && stream && !stream_rows && is_f32 && innerw == 1 &&
        ((uintptr_t)y->data & 63) == 0 &&
        drs__simd_level() == DRS_SIMD_AVX512 && drs__stream_mode() == 0 &&
        per2_two_taps(&T.tab[active[nact - 1]]))
        stream_rows = 1;
    int64_t maxmid = 0;
    for (int a = 0; a < nact; a++) {
        shape[p->pass[active[a]].axis] = p->pass[active[a]].O;
        if (a >= nact - 1 - fuse && !is_int)
            break; /* the last (fused: two) pass(es) write the output directly */
        int64_t n = 1;
        for (int i = 0; i < p->rank; i++)
            if (drs__mul_overflow(n, shape[i], &n)) {
                st = drs__fail(DRS_ERR_OVERFLOW, "%s: intermediate size overflows", p->op);
                goto done;
            }
        if (n > maxmid)
            maxmid = n;
    }
    void *buf[2] = {NULL, NULL};
    void *rowbufs = NULL, *obufs = NULL;
    if (maxmid > 0 && (uint64_t)maxmid > SIZE_MAX / esz) {
        st = drs__fail(DRS_ERR_OVERFLOW, "%s: scratch size overflows", p->op);
        goto done_free;
    }
    const int nmid = is_int ? nact : nact - 1 - fuse; /* passes that write a scratch buffer */
    size_t tslot = 0, oslot = 0;
    if (fuse) {
        /* per thread: a row (and an output row) with 4 KiB to spare, so that
         * each row can sit at the page offset drs__place() picks */
        tslot = line_round((size_t)rowlen * esz) + 4096;
        rowbufs = drs__malloc((size_t)nthr * tslot);
        if (!rowbufs) {
            st = drs__fail(DRS_ERR_NOMEM, "%s: out of memory (row buffers)", p->op);
            goto done_free;
        }
        /* output rows to stream out, one per thread on its own cache lines
         * (optional: without the memory the rows are written directly), for
         * rows streamed as a whole or long rows split in chunks (inner > 1) */
        if (stream && (stream_rows || innerw > 1) && orowlen <= ((int64_t)1 << 18)) {
            oslot = line_round((size_t)orowlen * esz) + 4096;
            obufs = drs__malloc((size_t)nthr * oslot);
        }
    }
    for (int i = 0; i < 2 && i < nmid && maxmid > 0; i++) {
        buf[i] = drs__scratch_get((size_t)maxmid * esz, 0);
        if (!buf[i]) {
            st = drs__fail(DRS_ERR_NOMEM, "%s: out of memory (%lld-element scratch)", p->op,
                           (long long)maxmid);
            goto done_free;
        }
    }

    /* ---- run ---- */
    if (nact == 0) { /* every pass is the identity */
        memcpy(y->data, x->data, (size_t)ny * drs_dtype_size(p->dtype));
        goto done_free;
    }
    {
        const void *cur = x->data;
        memcpy(shape, p->in_shape, sizeof shape);
        for (int a = 0; a < nact; a++) {
            const drs_axis_plan *ap = &p->pass[active[a]];
            const drs_table *t = &T.tab[active[a]];
            int64_t outer = 1, inner = 1;
            for (int i = 0; i < ap->axis; i++)
                outer *= shape[i];
            for (int i = ap->axis + 1; i < p->rank; i++)
                inner *= shape[i];
            if (fuse && a == nact - 2) { /* the last two passes, tiled */
                const drs_axis_plan *aw = &p->pass[active[a + 1]];
                const drs_table *tw = &T.tab[active[a + 1]];
                if (is_f32)
                    fused2_f32((const float *)cur, (float *)y->data, outer, shape[ap->axis], t,
                               t->wf, shape[aw->axis], innerw, tw, tw->wf,
                               (float)p->extrapolation_value, (char *)rowbufs, tslot, (char *)obufs,
                               oslot, stream_rows, nthr);
                else
                    fused2_f64((const double *)cur, (double *)y->data, outer, shape[ap->axis], t,
                               t->w, shape[aw->axis], innerw, tw, tw->w, p->extrapolation_value,
                               (char *)rowbufs, tslot, (char *)obufs, oslot, stream_rows, nthr);
                break;
            }
            const int last = a == nact - 1;
            void *dst = (last && !is_int) ? y->data : buf[a & 1];
            if (is_int && a == 0)
                pass_int_f64(p->dtype, cur, (double *)dst, outer, shape[ap->axis], inner, t,
                             p->extrapolation_value);
            else if (is_f32)
                drs_pass_f32((const float *)cur, (float *)dst, outer, shape[ap->axis], inner, t,
                             t->wf, (float)p->extrapolation_value);
            else
                drs_pass_f64((const double *)cur, (double *)dst, outer, shape[ap->axis], inner, t,
                             t->w, p->extrapolation_value);
            shape[ap->axis] = ap->O;
            if (is_int && p->round_each_pass && !last) {
                int64_t n = 1;
                for (int i = 0; i < p->rank; i++)
                    n *= shape[i];
                round_in_place((double *)dst, n, p->dtype);
            }
            cur = dst;
        }
        if (is_int)
            drs__store_rounded((const double *)cur, y, ny,
                          p->round_each_pass ? DRS_ROUND_HALF_AWAY : p->rounding);
    }

done_free:
    free(obufs);
    free(rowbufs);
    drs__scratch_put(buf[0]);
    drs__scratch_put(buf[1]);
done:
    drs_tables_free(p, &T);
    return st;
}
