/* SPDX-License-Identifier: MIT */
/* core.h — private: the one resampling core every op lowers to.
 *
 * An op call is lowered to a drs_plan: the input/output shapes, and a list of
 * 1-D passes.  Each pass resamples one tensor axis; it is described by a
 * drs_axis_plan (kernel, coordinate transform, scale, lengths, pads) from
 * which drs_table_build() makes an (index, weight) table once per call.
 * A pass views the tensor as [outer, L, inner] -> [outer, O, inner].
 * Used by forward/ and backward/; never installed.
 */
#ifndef DRS_CORE_H
#define DRS_CORE_H

#include "dresample.h"
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* ---- errors (status.c) ---- */
drs_status drs__fail(drs_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void drs__clear_error(void);
/* Every scratch allocation of the library goes through these (test hook:
 * drs_debug_fail_allocation).  Their blocks start on a 64-byte cache line
 * (DRS_LINE), so that a 64-byte vector never straddles two lines; free()
 * them as usual. */
#define DRS_LINE ((size_t)64)
void *drs__malloc(size_t n);
void *drs__calloc(size_t n, size_t size);
/* Large scratch blocks (status.c): a block of at least n bytes, kept from an
 * earlier call or new (NULL when out of memory), cleared when zero is 1; give
 * it back with drs__scratch_put (NULL allowed), never free(). */
void *drs__scratch_get(size_t n, int zero);
void drs__scratch_put(void *p);
/* drs__scratch_put of a block whose first nzero bytes the caller left zero:
 * a later drs__scratch_get(n, 1) with n <= nzero clears nothing. */
void drs__scratch_put_zero(void *p, size_t nzero);
/* The team size for the library's parallel regions: drs_set_num_threads()'s
 * value, or omp_get_max_threads() when it is 0. */
int drs__nthreads(void);
int drs__mul_overflow(int64_t a, int64_t b, int64_t *r); /* 1 on overflow (a,b >= 0) */
int drs__add_overflow(int64_t a, int64_t b, int64_t *r);
/* 1 when the data ranges of two validated tensors overlap (empty ones never do). */
int drs__overlaps(const drs_tensor *a, const drs_tensor *b);
/* Validates a tensor view's rank/shape/data pointer; name is used in messages. */
drs_status drs__check_tensor(const char *op, const char *name, const drs_tensor *t,
                             int64_t *numel);
/* Shape bound of every tensor, input, output or gradient: extents >= 0 and the
 * product of the non-zero extents times elsize fits in int64 (checked even
 * when an extent is 0).  *numel (may be NULL) gets the element count. */
drs_status drs__check_extents(const char *op, const char *name, int rank, const int64_t *shape,
                              size_t elsize, int64_t *numel);

/* ---- kernels ---- */
typedef enum drs_kernel {
    DRS_K_IDENTITY = 0, /* pads-only axis: o -> o - pad_begin */
    DRS_K_NEAREST,      /* rounding per nearest_mode, clamp */
    DRS_K_LINEAR_OV,    /* OpenVINO 'linear': triangle, exclude+renormalise, optional AA */
    DRS_K_LINEAR_CLAMP, /* linear_onnx / torch linear: clamp c to [0, L-1] */
    DRS_K_ONNX_LINEAR,  /* ONNX-REF window of 2 (or AA footprint), edge/exclude */
    DRS_K_ONNX_CUBIC,   /* ONNX-REF window of 4 (or AA footprint), edge/exclude; OV cubic */
    DRS_K_AREA,         /* adaptive average pooling */
    DRS_K_PIL_LINEAR,   /* Pillow precompute_coeffs, triangle support 1 */
    DRS_K_PIL_CUBIC,    /* Pillow precompute_coeffs, Keys support 2 */
    DRS_K_TORCH_NEAREST,       /* floorf(o * scale) in float32 */
    DRS_K_TORCH_NEAREST_EXACT  /* floorf((o + 0.5) * scale) in float32 */
} drs_kernel;

/* How the last pass rounds into an integer output type. */
typedef enum drs_round {
    DRS_ROUND_HALF_EVEN = 0, /* ONNX: np.round then saturate */
    DRS_ROUND_HALF_AWAY,     /* OpenVINO linear / pillow / area: std::round, saturate */
    DRS_ROUND_TRUNC          /* OpenVINO linear_onnx / cubic: cast (trunc), saturate */
} drs_round;

typedef struct drs_axis_plan {
    int axis;            /* tensor axis */
    drs_kernel kernel;
    drs_coord_mode coord;
    drs_nearest_mode nearest;
    int64_t in_len;      /* unpadded input length */
    int64_t pad_begin;   /* OpenVINO pads on this axis */
    int64_t L;           /* padded input length used by the coordinate transform */
    int64_t O;           /* output length */
    double scale;        /* coordinate scale s (c = (o+.5)/s - .5, ...) */
    double out_width;    /* ONNX fractional output width (= O elsewhere) */
    double cubic_a;
    int exclude_outside;
    int antialias;       /* ONNX AA (linear/cubic) or OV linear AA */
    double aa_scale;     /* OV linear AA stretch a (1 = none); pillow/torch-AA: filter scale L/O */
    int coord_shortcut;  /* c = o: OpenVINO when (float)s == 1 or O == L; PyTorch linear when O == L */
    int onnx_ref;        /* ONNX reference semantics (pytorch_half_pixel O==1 -> -0.5) */
    int torch_clamp0;    /* torch linear: clamp negative c to 0 */
    int torch_nearest_idx; /* torch 2-D/3-D nearest: closed forms for O == L and O == 2L */
    int scale_is_param;  /* the scale is a user input (scales mode): it has a gradient */
    double roi_start, roi_end; /* tf_crop_and_resize */
    int param_index;     /* index of this axis in scales/sizes/roi (-1: pads-only pass) */
    int kink_dir;        /* derivative tables at kinks: 0 right derivative in c; +1 / -1 the
                            right / left derivative in the parameter (set by the backward where
                            only that side keeps the output size) */
    int ov_f32;          /* OpenVINO Interpolate: nearest index in float32, as its reference */
} drs_axis_plan;

typedef struct drs_plan {
    const char *op;      /* op name for messages */
    drs_dtype dtype;
    int rank;
    int64_t in_shape[DRS_MAX_RANK];
    int64_t out_shape[DRS_MAX_RANK];
    int npass;
    drs_axis_plan pass[DRS_MAX_RANK]; /* in execution order */
    drs_round rounding;
    int round_each_pass; /* pillow on integer types: re-round between passes */
    int has_extrapolation;
    double extrapolation_value;
} drs_plan;

/* One axis table: for output o, taps first[o] .. first[o]+ntap[o]-1 (indices
 * into the UNPADDED input) with weights w[o*stride + k].  ntap[o] == 0 means
 * the output is 0, or the extrapolation value when extrap[o] is set. */
typedef struct drs_table {
    int64_t O;
    int64_t stride;
    int64_t *first;
    int32_t *ntap;
    uint8_t *extrap;     /* NULL when no output extrapolates */
    double *w;
    float *wf;           /* float copy for f32 passes (NULL otherwise) */
    double *dw;          /* dw/dθ, same layout as w (NULL unless requested) */
} drs_table;

/* The parameter a table's derivative is taken with respect to. */
typedef enum drs_param {
    DRS_PARAM_NONE = 0,
    DRS_PARAM_SCALE,
    DRS_PARAM_ROI_START,
    DRS_PARAM_ROI_END
} drs_param;

/* Builds the table of one axis; with param != NONE also dw/dθ (right
 * derivative at kinks, docs/semantics.md), keeping zero-weight taps whose derivative is
 * not zero. */
drs_status drs_table_build(const drs_axis_plan *ap, drs_table *t, int want_float, drs_param param);
/* Keys cubic weights (and d/dt) of taps floor(c)-1..floor(c)+2, t = c - floor(c). */
void drs_cubic_taps(double a, double t, double w[4], double dwdt[4]);
/* The weights of drs_cubic_taps alone (the same operations). */
static inline void drs_cubic_weights(double a, double t, double w[4])
{
    const double r1 = t + 1.0, q = 1.0 - t, q1 = q + 1.0;
    w[0] = ((a * r1 - 5.0 * a) * r1 + 8.0 * a) * r1 - 4.0 * a;
    w[1] = ((a + 2.0) * t - (a + 3.0)) * t * t + 1.0;
    w[2] = ((a + 2.0) * q - (a + 3.0)) * q * q + 1.0;
    w[3] = ((a * q1 - 5.0 * a) * q1 + 8.0 * a) * q1 - 4.0 * a;
}
double drs_coord_deriv(const drs_axis_plan *ap, int64_t o, drs_param param);
void drs_table_free(drs_table *t);
/* Source coordinate of output o (before any clamping). Exposed for tests/backward. */
double drs_coord(const drs_axis_plan *ap, int64_t o);
/* OpenVINO's source coordinate of output o in float32, the operations of its
 * reference (GetOriginalCoordinate) in the same order, identity short-cut
 * included (ap->ov_f32 plans only). */
float drs_ov_coord(const drs_axis_plan *ap, int64_t o);

/* Planners (plan.c): validate everything and lower the op onto a plan. */
drs_status drs_plan_interpolate(drs_plan *p, const drs_interpolate_attrs *at, const drs_tensor *x,
                                const drs_interpolate_inputs *in);
drs_status drs_plan_resize(drs_plan *p, const drs_resize_attrs *at, const drs_tensor *x,
                           const drs_resize_inputs *in);
drs_status drs_plan_torch(drs_plan *p, const drs_torch_interpolate_attrs *at, const drs_tensor *x);

/* One pass y[b,o,i] = sum_k W[o][k] x[b, first[o]+k, i] with the given weight
 * array (t->wf, t->w or t->dw); ev fills extrapolated outputs. */
void drs_pass_f32(const float *x, float *y, int64_t outer, int64_t L, int64_t inner,
                  const drs_table *t, const float *W, float ev);
/* f32 input, double weights and output (first pass of a gradient chain). */
void drs_pass_f32_f64(const float *x, double *y, int64_t outer, int64_t L, int64_t inner,
                      const drs_table *t, const double *W, double ev);
/* A pass fused with <dy, pass(x)> (double weights; x and dy as named: the last
 * pass of a parameter-gradient chain).  Deterministic for any thread count. */
drs_status drs_pass_dot_f64_f64(const double *x, int64_t outer, int64_t L, int64_t inner,
                                const drs_table *t, const double *W, const double *dy, double *out);
drs_status drs_pass_dot_f64_f32(const double *x, int64_t outer, int64_t L, int64_t inner,
                                const drs_table *t, const double *W, const float *dy, double *out);
drs_status drs_pass_dot_f32_f32(const float *x, int64_t outer, int64_t L, int64_t inner,
                                const drs_table *t, const double *W, const float *dy, double *out);
void drs_pass_f64(const double *x, double *y, int64_t outer, int64_t L, int64_t inner,
                  const drs_table *t, const double *W, double ev);
int drs_table_is_identity(const drs_axis_plan *ap, const drs_table *t);

/* ---- SIMD variants ----
 * Hot row kernels are compiled three times, for the x86-64 baseline, AVX2 and
 * AVX-512 (F, BW, VL, DQ, CD: x86-64-v4), and the variant is picked at run
 * time (simd.c: the CPU's best, or the DRS_SIMD environment variable).  The C
 * is the same and contraction is off (-ffp-contract=off), so every variant
 * gives the same bits: the wider vectors only process more elements of the
 * same loop at once.  Other compilers and targets build one plain variant.
 *
 * DRS_SIMD_FN(NAME, (params), (args), { body }) defines a static void
 * function NAME as the three variants and a dispatcher; DRS_SIMD_FN_RET(RET,
 * ...) one returning RET; DRS_SIMD_FN_UPTO(MAX, ...) a void one with no
 * variant above MAX (for a kernel that a wider variant makes slower). */
#define DRS_SIMD_BASELINE 0
#define DRS_SIMD_AVX2 1
#define DRS_SIMD_AVX512 2
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(DRS_NO_CLONES)
#define DRS_SIMD_MULTI 1
#else
#define DRS_SIMD_MULTI 0
#endif
extern _Atomic int drs__simd_level_cache;
int drs__simd_init(void);
/* the variant in use (DRS_SIMD_*), decided on the first call */
static inline int drs__simd_level(void)
{
    const int l = atomic_load_explicit(&drs__simd_level_cache, memory_order_relaxed);
    return l >= 0 ? l : drs__simd_init();
}
#if DRS_SIMD_MULTI
#define DRS_TARGET_AVX2 __attribute__((target("avx2")))
#define DRS_TARGET_AVX512                                                                     \
    __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512dq,avx512cd")))
/* RETKW: return (a value) or nothing (void) */
#define DRS_SIMD_DEFINE_(MAX, RETKW, RET, NAME, PARAMS, ARGS, ...)                             \
    DRS_TARGET_AVX512 static RET NAME##_avx512 PARAMS __VA_ARGS__                              \
    DRS_TARGET_AVX2 static RET NAME##_avx2 PARAMS __VA_ARGS__                                  \
    static RET NAME##_base PARAMS __VA_ARGS__                                                  \
    static RET NAME PARAMS                                                                     \
    {                                                                                          \
        const int l_ = drs__simd_level() < (MAX) ? drs__simd_level() : (MAX);                  \
        if (l_ == DRS_SIMD_AVX512) {                                                           \
            RETKW NAME##_avx512 ARGS;                                                          \
        } else if (l_ == DRS_SIMD_AVX2) {                                                      \
            RETKW NAME##_avx2 ARGS;                                                            \
        } else {                                                                               \
            RETKW NAME##_base ARGS;                                                            \
        }                                                                                      \
    }
#else
#define DRS_SIMD_DEFINE_(MAX, RETKW, RET, NAME, PARAMS, ARGS, ...)                             \
    static RET NAME PARAMS __VA_ARGS__
#endif
/* void functions */
#define DRS_SIMD_FN_UPTO(MAX, NAME, PARAMS, ARGS, ...)                                         \
    DRS_SIMD_DEFINE_(MAX, , void, NAME, PARAMS, ARGS, __VA_ARGS__)
#define DRS_SIMD_FN(NAME, PARAMS, ARGS, ...)                                                   \
    DRS_SIMD_DEFINE_(DRS_SIMD_AVX512, , void, NAME, PARAMS, ARGS, __VA_ARGS__)
/* functions returning a value of type RET */
#define DRS_SIMD_FN_RET(RET, NAME, PARAMS, ARGS, ...)                                          \
    DRS_SIMD_DEFINE_(DRS_SIMD_AVX512, return, RET, NAME, PARAMS, ARGS, __VA_ARGS__)

/* ---- 4 KiB aliasing ----
 * A load whose address matches a pending store's in its low 12 bits waits
 * for that store.  A kernel that forms rows (or blocks) in a small buffer and
 * copies or streams them out reads that buffer while its stores to the output
 * are pending, and reads its inputs while its stores to the buffer are: with
 * the buffer at a fixed address, some shapes and output placements alias on
 * every element (the fused forward's W1 took 18.5 ms instead of 9.5 at one
 * thread, depending on where malloc put its buffers).  So such a buffer is a
 * slot with 4 KiB to spare, and each row goes where drs__place() puts it:
 * far (half a page, DRS_PLACE_DELTA, from one row) from the page offsets of
 * the rows it is computed from, or of the output it is streamed to. */
#define DRS_PLACE_DELTA 2048
/* The 64-byte line of slot (64-aligned, with 4 KiB to spare after the row)
 * whose offset within a 4 KiB page is that of ref plus delta, rounded down
 * to a line. */
static inline void *drs__place(void *slot, const void *ref, size_t delta)
{
    const uintptr_t s = (uintptr_t)slot, want = ((uintptr_t)ref + delta) & 4032;
    return (void *)(s + ((want - (s & 4095)) & 4095));
}

/* ---- streaming stores (simd.c) ----
 * A thread writing a large output in ascending contiguous rows puts each row
 * through its own drs_stream: drs__stream_begin, drs__stream_put(w, dst,
 * src, n) per row (dst[0..n) = src[0..n); whole 64-byte lines go out with
 * non-temporal stores, no read-for-ownership of dst), drs__stream_end once,
 * before the parallel region's closing barrier (writes what is held back,
 * then the store fence).  drs__stream_output: 1 when an output of this many
 * bytes written by nthr threads is streamed out; drs__stream_footprint: 1
 * when a gather's output of out bytes, in a call touching total bytes, is
 * (see simd.c; both forced with DRS_STREAM=1, never with DRS_STREAM=0). */
typedef struct drs_stream {
    char *at;                /* the first byte not written yet */
    size_t np;               /* bytes held in pend, which belong at at */
    _Alignas(64) char pend[64];
} drs_stream;
void drs__stream_begin(drs_stream *w);
void drs__stream_put(drs_stream *w, void *dst, const void *src, size_t n);
void drs__stream_end(drs_stream *w);
int drs__stream_output(int64_t bytes, int nthr);
/* the size in bytes of the L1 data cache (level 1) or the L3 (level 3), read once
 * (sysconf); 0 when unknown */
long drs__cache_bytes(int level);
int drs__stream_gradient(int64_t wbytes, int64_t rbytes, int nthr);
int drs__stream_footprint(int64_t out, int64_t total);
int drs__stream_mode(void); /* DRS_STREAM: -1 never, 1 always, 0 by size */
/* a row of an integer-factor downsampling's 2-D data gradient written from
 * the registers, streamed when nt (simd.c); 0 when it cannot (nothing written) */
int drs__down_stream_f32(float *d, const float *s, int64_t ns, const float *c, int K, float w,
                         int64_t n, int nt);
/* the 2-D scales gradient's difference-form sums of a row of dy (simd.c, AVX-512
 * and AVX2; g: glen floats readable); 0 when it cannot (nothing written) */
int drs__diff_sums_f32(const float *T, const float *xa0, const float *xa1, const float *xp0,
                       const float *xp1, float wp0, float wp1, int np, int64_t Lw,
                       const float *g, int64_t glen, int64_t a, const float *cE,
                       const float *cO, int64_t J0, int64_t J1, double *sums);
/* the same sums with the row's transposed row T formed in the same sweep (a half_pixel
 * 2x row: trow's period-two interior with weights c[0..3] on dy[2j - 1 ..], T[0] = t0,
 * T[Lw - 1] = tl) and stored to Tr; only where drs__trow_diff_ok (AVX-512, the shapes
 * of diff_sums2) */
int drs__trow_diff_ok(int64_t Lw, int64_t glen, int64_t a, int64_t J0, int64_t J1);
void drs__trow_diff_f32(float *Tr, const float *g, int64_t Lw, const float *c, float t0, float tl,
                        const float *x0, const float *x1, float wp0, float wp1, const float *cE,
                        const float *cO, int64_t J0, int64_t J1, double *sums);
/* a channels-last chunk's one- or two-tap outputs streamed out from the registers
 * (simd.c); 0 when it cannot (nothing written) */
int drs__lerp2_stream_f32(float *y, const float *tmp, const int64_t *first, const int32_t *nt,
                          const float *W, int64_t stride, int64_t n, int64_t c0, int64_t inner,
                          const float *xr, int64_t rowlen, int nh, int64_t pf0, int64_t pfs);
/* an input row of the 2-D data gradient, 0 + w[0] s[0][i] (+ ...), ne (1 to 8)
 * terms, streamed out from the registers (simd.c); s and w have ne entries (at
 * least); 0 when it cannot (nothing written) */
int drs__tsweep_stream_f32(float *d, const float *const *s, const float *w, int ne,
                           int64_t inner);
/* a row's 2-periodic two-tap interior streamed out from the registers
 * (simd.c); 0 when it cannot (nothing written) */
int drs__per2_stream_f32(float *y, const float *x0, const float *x1, const float c[4],
                         int64_t np);
/* a whole 2x row (edges at 0 and Ow - 1, the rest 2-periodic with two taps)
 * streamed out from the registers (simd.c); 0 when it cannot */
int drs__per2_row2x_stream_f32(float *y, int64_t Ow, float e0, float e1, const float *xa,
                               const float *xb, const float c[4]);
/* one or two such rows (ya, ya2) with their row of pass h, v[0] x0 (+ v[1] x1),
 * formed in the registers too (simd.c); 0 when it cannot */
int drs__rows2x_stream_f32(float *ya, float *ya2, int64_t Ow, const float *x0, const float *x1,
                           const float v[4], const float e[4], const float c[4]);

/* ---- the arithmetic of one pass output (resample.c, backward.c) ---- */
/* One output o of a pass: yd[0..inner) = sum_k w[k] * xr[k*xs + i] for
 * n > 0 taps, in this exact order (every pass variant uses it, so fused and
 * unfused runs give the same bits).  OUTPUT_ROW: input rows of the output's
 * length (xs = inner); OUTPUT_ROWS with xs > inner computes a slice of them. */
#define OUTPUT_ROWS(TI, A, yd, xr, w, n, inner, xs)                                            \
    do {                                                                                       \
        if ((inner) == 1 && (xs) == 1) {                                                       \
            A acc_ = (w)[0] * (A)(xr)[0];                                                      \
            for (int32_t k_ = 1; k_ < (n); k_++)                                               \
                acc_ += (w)[k_] * (A)(xr)[k_];                                                 \
            (yd)[0] = acc_;                                                                    \
        } else if ((n) == 2) { /* two taps in one sweep (the same two operations) */          \
            const A w0_ = (w)[0], w1_ = (w)[1];                                                \
            const TI *r1_ = (xr) + (xs);                                                       \
            for (int64_t i_ = 0; i_ < (inner); i_++) {                                         \
                A a_ = w0_ * (A)(xr)[i_];                                                      \
                a_ += w1_ * (A)r1_[i_];                                                        \
                (yd)[i_] = a_;                                                                 \
            }                                                                                  \
        } else if ((n) == 4) {                                                                 \
            const A w0_ = (w)[0], w1_ = (w)[1], w2_ = (w)[2], w3_ = (w)[3];                    \
            const TI *r1_ = (xr) + (xs), *r2_ = r1_ + (xs), *r3_ = r2_ + (xs);                 \
            for (int64_t i_ = 0; i_ < (inner); i_++) {                                         \
                A a_ = w0_ * (A)(xr)[i_];                                                      \
                a_ += w1_ * (A)r1_[i_];                                                        \
                a_ += w2_ * (A)r2_[i_];                                                        \
                a_ += w3_ * (A)r3_[i_];                                                        \
                (yd)[i_] = a_;                                                                 \
            }                                                                                  \
        } else {                                                                               \
            const A w0_ = (w)[0];                                                              \
            for (int64_t i_ = 0; i_ < (inner); i_++)                                           \
                (yd)[i_] = w0_ * (A)(xr)[i_];                                                  \
            for (int32_t k_ = 1; k_ < (n); k_++) {                                             \
                const A wk_ = (w)[k_];                                                         \
                const TI *xk_ = (xr) + (int64_t)k_ * (xs);                                     \
                for (int64_t i_ = 0; i_ < (inner); i_++)                                       \
                    (yd)[i_] += wk_ * (A)xk_[i_];                                              \
            }                                                                                  \
        }                                                                                      \
    } while (0)
#define OUTPUT_ROW(TI, A, yd, xr, w, n, inner) OUTPUT_ROWS(TI, A, yd, xr, w, n, inner, inner)

/* Output o of the pass of table t with weights W into yd[0..inner): no tap
 * gives the extrapolation value ev where t says so, else 0; otherwise
 * OUTPUT_ROW on the input rows from xbase + first[o] * inner. */
#define PASS_OUTPUT(TI, A, t, W, ev, o, yd, xbase, inner)                                      \
    do {                                                                                       \
        const int32_t n__ = (t)->ntap[o];                                                      \
        A *yd__ = (yd);                                                                        \
        if (n__ == 0) {                                                                        \
            const A v__ = ((t)->extrap && (t)->extrap[o]) ? (ev) : (A)0;                       \
            for (int64_t i__ = 0; i__ < (inner); i__++)                                        \
                yd__[i__] = v__;                                                               \
        } else {                                                                               \
            const A *w__ = (W) + (o) * (t)->stride;                                            \
            const TI *xr__ = (xbase) + (t)->first[o] * (inner);                                \
            OUTPUT_ROW(TI, A, yd__, xr__, w__, n__, inner);                                    \
        }                                                                                      \
    } while (0)

/* Software prefetch of sequential row reads (backward.c): the rows a loop
 * reads DRS_PF_BYTES ahead are requested while it works on the current ones.
 * On the 2-core AVX-512 test machine the backward passes' reads of a large
 * output gradient ran about 25-45 % faster with it (CHANGELOG); the same in
 * the forward's fused pass, whose writes dominate, was slower there and is not
 * done, except for its read-dominated four-tap rows (resample.c, tap4_pf). */
#ifndef DRS_PF_BYTES
#define DRS_PF_BYTES 4096
#endif
/* How far ahead the 2-D data gradient's transposed rows (backward.c: the
 * AVX-512 blocks of 16 inputs of a period-two row, two lines a block as they
 * read it; and the channels-last rows, tpass_span's far) prefetch dy into the
 * L1.  On a Zen 5 core (drs_bench, 1 thread, thread CPU time, min of 4-5
 * alternating rounds) W10's backward 2.52 -> 1.85
 * ms, W1's 5.59 -> 4.93, W12's 5.57 -> 4.84, W3 and W7 within their spread; 2
 * threads (wall, min of 4) W10 1.50 -> 1.21, W1 3.83 -> 3.47, W12 3.87 ->
 * 3.52.  Without it that loop read dy at about half the rate of a plain read
 * loop (its arithmetic and the memory did not overlap).  4 KiB ahead: W10
 * 1.98 ms, W1 5.53; 8 KiB: 1.88 / 5.21; 16 KiB: 2.10 / 4.75; into the L2 only
 * (16 KiB): 2.22 / 4.90.  The period-two rows prefetch in every call, also
 * where dy is in the caches (hints that hit): asked only for a dy larger than
 * the caches, through a flag, their loop was slower (W1 4.86 -> 5.01 ms, W3
 * 9.25 -> 9.87); tpass_span's far rows only when dy is larger than the caches
 * (tiled2's c->pf). */
#ifndef DRS_PF_ROW_BYTES
#define DRS_PF_ROW_BYTES 12288
#endif
/* how many input rows ahead the 2-D scales gradient's difference form requests x
 * (backward.c's diff_prefetch_row and simd.c's fused sweep) */
#define DRS_DIFF_PF_ROWS 4
/* below this many bytes read, the data comes from the caches and is not prefetched */
#ifndef DRS_PF_MIN_BYTES
#define DRS_PF_MIN_BYTES ((int64_t)8 << 20)
#endif
/* prefetch the line `ahead` bytes past p into the L1 (no access: never faults).
 * The address is formed as an integer, not as p + ahead: it may lie past the
 * end of the array p points into, a pointer C does not let a program form. */
static inline void drs__prefetch_at(const void *p, size_t ahead)
{
    __builtin_prefetch((const void *)((uintptr_t)p + ahead));
}
/* prefetch the n elements of esz bytes at p (no access: never faults) */
static inline void drs__prefetch_span(const void *p, int64_t n, size_t esz)
{
    const char *c = (const char *)p;
    const int64_t bytes = n * (int64_t)esz;
    for (int64_t q = 0; q < bytes; q += 64)
        __builtin_prefetch(c + q);
}
/* the same into the L2 only (prefetcht1) */
static inline void drs__prefetch_span_l2(const void *p, int64_t n, size_t esz)
{
    const char *c = (const char *)p;
    const int64_t bytes = n * (int64_t)esz;
    for (int64_t q = 0; q < bytes; q += 64)
        __builtin_prefetch(c + q, 0, 2);
}
/* whether a read of n elements of esz bytes is large enough to prefetch */
static inline int drs__prefetch_worth(int64_t n, size_t esz)
{
    return n > DRS_PF_MIN_BYTES / (int64_t)esz;
}
/* Elements [at, at + len) of base are about to be read: prefetch the same
 * length DRS_PF_BYTES further on, clipped to the array's end (elements). */
static inline void drs__prefetch_ahead(const void *base, int64_t at, int64_t len, int64_t end,
                                       size_t esz)
{
    const int64_t q0 = at + DRS_PF_BYTES / (int64_t)esz;
    const int64_t q1 = q0 + len < end ? q0 + len : end;
    if (q1 > q0)
        drs__prefetch_span((const char *)base + q0 * (int64_t)esz, q1 - q0, esz);
}
/* The same into the L2 only (prefetcht1): a thread's prefetches into the L1
 * wait for its few L1 miss buffers, the L2 has more.  For the 2-D data
 * gradient's dy rows (backward.c): drs_bench, 1 thread, thread CPU time, min of
 * 4 alternating rounds against prefetches into the L1 4 KiB ahead: W1 backward
 * 10.38 -> 9.65 ms, W12 10.36 -> 9.47, W2, W3, W7 and W10 within their spread;
 * with short rows 8 KiB ahead: W1 10.45 -> 9.24, W2 8.10 -> 6.55, W12 10.46 ->
 * 9.38, W10 4.62 -> 3.65, W3 17.9 -> 17.4.  The
 * other prefetches stay in the L1: all of them into the L2 made W7's backward
 * (passes not tiled) 14.2 -> 16.2 ms and W9's forward 6.2 -> 6.3. */
static inline void drs__prefetch_ahead_l2(const void *base, int64_t at, int64_t len,
                                          int64_t end, size_t esz)
{
    /* short rows (under 4 KiB): twice as far ahead (W2's backward, rows of 1 KiB:
     * 8.17 -> 7.01 ms with 8 KiB; W10's, rows of 8 KiB: 4.61 -> 5.35 with 8 KiB, so
     * not those); rows of 8 KiB or more not at all: the hardware's prefetchers follow
     * such rows, and a burst of a row's prefetches at its start only delayed them
     * (W10's backward, min of 4 alternating rounds: 3.36 -> 2.99 ms at 1 thread,
     * 2.06 -> 1.67 at 2; without prefetching, W1's, rows of 1 KiB, 7.9 -> 10.1) */
    if (len * (int64_t)esz >= 8192)
        return;
    const int64_t ahead = len * (int64_t)esz < 4096 ? 2 * DRS_PF_BYTES : DRS_PF_BYTES;
    const int64_t q0 = at + ahead / (int64_t)esz;
    const int64_t q1 = q0 + len < end ? q0 + len : end;
    if (q1 > q0)
        drs__prefetch_span_l2((const char *)base + q0 * (int64_t)esz, q1 - q0, esz);
}

/* The tables of every pass of a plan; active[] lists the passes to run (the
 * identity passes are skipped, except the derivative pass dpass). */
typedef struct drs_tables {
    drs_table tab[DRS_MAX_RANK];
    int active[DRS_MAX_RANK];
    int nact;
} drs_tables;
/* dpass < 0: no derivative table; else pass dpass also gets dw/d(param). */
drs_status drs_tables_build(const drs_plan *p, drs_tables *T, int want_float, int dpass,
                            drs_param param);
void drs_tables_free(const drs_plan *p, drs_tables *T);

/* Stores doubles into an integer tensor (parallel, n elements): rounds per r
 * and saturates (NaN -> 0). */
void drs__store_rounded(const double *src, drs_tensor *y, int64_t n, drs_round r);

/* The kink rule's sides (scale_range.c): per scales entry (Resize: which = 0)
 * or roi entry (which = 1), whether the next smaller / larger double keeps the
 * call's output shape.  The call must be valid (its status otherwise). */
drs_status drs__interpolate_sides(const drs_interpolate_attrs *attrs, const drs_tensor *data,
                                  const drs_interpolate_inputs *in, int *left, int *right);
drs_status drs__resize_sides(const drs_resize_attrs *attrs, const drs_tensor *X,
                             const drs_resize_inputs *in, int which, int *left, int *right);

/* OpenVINO Interpolate on u8/i8 data in linear, linear_onnx or cubic
 * (ov_reference.c): 1 when the plan is one; drs_plan_execute then hands a
 * non-empty call to drs_ov_reference_execute, which runs it with the float32
 * arithmetic of OpenVINO's reference. */
int drs_ov_reference_applies(const drs_plan *p);
drs_status drs_ov_reference_execute(const drs_plan *p, drs_tensor *y, const drs_tensor *x);

/* Runs a plan on validated tensors (plan.c validated everything). */
drs_status drs_plan_execute(const drs_plan *p, drs_tensor *y, const drs_tensor *x);
/* Checks the output tensor against the plan (dtype, shape, non-overlap). */
drs_status drs_plan_check_output(const drs_plan *p, const drs_tensor *y, const drs_tensor *x);

#endif
