/* SPDX-License-Identifier: MIT */
/* ov_reference.c — OpenVINO Interpolate-1/4/11 on 8-bit integer data (u8, i8)
 * in modes linear, linear_onnx and cubic, computed with the arithmetic of
 * OpenVINO's reference implementation (ov::reference::interpolate), so that
 * every integer output is the one OpenVINO gives, bit for bit.
 *
 * That reference is not separable: for each output point it computes, per
 * resized axis, a float32 source coordinate and float32 tap weights, then
 * loops over every combination of the axes' taps (the first listed axis
 * slowest), multiplies the per-axis weights in float32 in the order of the
 * axes list and accumulates weight * value in float32; the sum is converted
 * with std::round (linear, after dividing by the sum of the weights) or a
 * cast (linear_onnx, cubic: truncation).  The separable double passes of
 * resample.c gave another integer (one unit off) somewhere in 19 of the 240
 * u8/i8 cases of these modes in the OpenVINO conformance sweep, so these
 * calls come here instead.  Per mode, per axis (c: drs_ov_coord):
 *   linear       taps j = round(c) - r .. round(c) + r inside [0, L), r = 2 when
 *                upsampling else ceil(2 / a); weight max(0, 1 - |a (c - j)|),
 *                a = the antialias stretch; the product starts at prod(a).
 *   linear_onnx  c clamped to [0, L-1]; i1 = int(c), i2 = min(i1 + 1, L - 1);
 *                taps (i1, |c - i2|), (i2, |c - i1|), both 0.5 when i1 == i2;
 *                every axis of the list except the batch and channel axes of
 *                an all-axes list of rank >= 4 (which the reference loops over).
 *   cubic        taps floor(c) - 1 .. floor(c) + 2 clamped into [0, L), Keys
 *                weights of t = c - floor(c) in float32.
 * Pad cells (pads_begin/pads_end) read 0 and keep their weight, as the
 * reference's zero-padded copy of the input.  Taps of weight exactly 0 are
 * left out: they add +-0 to the sums and cannot change a result.  The
 * result saturates into the type (the reference's cast is undefined there;
 * NaN, from a scale whose float32 value is 0 on an axis of a million or
 * more, gives 0).
 * Serial tables; OpenMP over output rows, each output written by one
 * iteration in a fixed order: the bits do not depend on the thread count. */
#include "core.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PAR_MIN_WORK 4096

/* The taps of one axis: for output o, taps start[o] .. start[o+1]-1, each an
 * input offset (index * element stride; valid[k] == 0 for a pad cell) and a
 * float32 weight. */
typedef struct ov_axis {
    int axis;
    int64_t *start; /* O + 1 entries */
    int64_t *off;
    uint8_t *valid;
    float *w;
} ov_axis;

int drs_ov_reference_applies(const drs_plan *p)
{
    /* i32 keeps the exact double passes: OpenVINO's reference has no i32
     * kernel to agree with, and float32 would lose bits beyond 2^24 */
    if (p->dtype != DRS_U8 && p->dtype != DRS_I8)
        return 0;
    for (int i = 0; i < p->npass; i++) {
        const drs_axis_plan *ap = &p->pass[i];
        if (ap->kernel == DRS_K_IDENTITY)
            continue;
        if (!ap->ov_f32)
            return 0;
        if (ap->kernel == DRS_K_LINEAR_OV || ap->kernel == DRS_K_LINEAR_CLAMP ||
            ap->kernel == DRS_K_ONNX_CUBIC)
            return 1;
        return 0; /* nearest (exact already), area, pillow (the reference is separable) */
    }
    return 0;
}

/* max(0, 1 - |v|) as std::max(0.0f, 1.0f - std::fabs(v)). */
static float ov_triangle(float v)
{
    const float t = 1.0f - fabsf(v);
    return 0.0f < t ? t : 0.0f;
}

/* Keys weights as the reference's get_cubic_coeff (float32, its operation order). */
static void ov_cubic_coeff(float s, float a, float c[4])
{
    const float t = fabsf(s);
    c[0] = ((a * (t + 1.0f) - 5.0f * a) * (t + 1.0f) + 8.0f * a) * (t + 1.0f) - 4.0f * a;
    c[1] = ((a + 2.0f) * t - (a + 3.0f)) * t * t + 1.0f;
    c[2] = ((a + 2.0f) * (1.0f - t) - (a + 3.0f)) * (1.0f - t) * (1.0f - t) + 1.0f;
    c[3] = ((a * (2.0f - t) - 5.0f * a) * (2.0f - t) + 8.0f * a) * (2.0f - t) - 4.0f * a;
}

/* Writes the taps of output o of axis ap into (j, w) pairs in padded index
 * space (at most cap of them) and returns their count; the weights are those
 * of the reference, zero weights dropped.  a: the linear stretch. */
static int64_t ov_taps(const drs_axis_plan *ap, int64_t o, float a, int64_t *j, float *w,
                       int64_t cap)
{
    const int64_t L = ap->L;
    const float c = drs_ov_coord(ap, o);
    int64_t n = 0;
    switch (ap->kernel) {
    case DRS_K_LINEAR_OV: {
        /* r = (scale > 1.0) ? 2 : ceil(2.0f / a); taps round(c) +- r inside [0, L) */
        const float sf = (float)ap->scale;
        const double r = (double)sf > 1.0 ? 2.0 : (double)ceilf(2.0f / a);
        const double ic = (double)roundf(c);
        double lo = ic - r, hi = ic + r;
        if (lo < 0.0)
            lo = 0.0;
        if (hi > (double)(L - 1))
            hi = (double)(L - 1);
        if (!(lo <= hi))
            return 0;
        for (int64_t q = (int64_t)lo; q <= (int64_t)hi && n < cap; q++) {
            const float t = ov_triangle(a * (c - (float)q));
            if (t != 0.0f) {
                j[n] = q;
                w[n++] = t;
            }
        }
        return n;
    }
    case DRS_K_LINEAR_CLAMP: {
        const float Lm1 = (float)(L - 1);
        float cc = Lm1 < c ? Lm1 : c;
        cc = 0.0f < cc ? cc : 0.0f;
        int64_t i1 = (int64_t)cc;
        if (i1 > L - 1)
            i1 = L - 1;
        const int64_t i2 = i1 + 1 < L - 1 ? i1 + 1 : L - 1;
        float d1 = fabsf(cc - (float)i1), d2 = fabsf(cc - (float)i2);
        if (i1 == i2)
            d1 = d2 = 0.5f;
        /* the reference's combination order: (i1, d2) before (i2, d1) */
        if (d2 != 0.0f) {
            j[n] = i1;
            w[n++] = d2;
        }
        if (d1 != 0.0f) {
            j[n] = i2;
            w[n++] = d1;
        }
        return n;
    }
    case DRS_K_ONNX_CUBIC: {
        /* base = int64(floor(c)), t = c - base (exact: floor(c) is a float
         * value); the tap indices in double, clamped into [0, L) */
        const float fl = floorf(c);
        float cw[4];
        ov_cubic_coeff(c - fl, (float)ap->cubic_a, cw);
        for (int k = 0; k < 4; k++) {
            const double qd = (double)fl + (double)(k - 1);
            /* (a NaN coordinate, e.g. from a scale whose float32 value is 0, takes tap 0) */
            const int64_t q = !(qd >= 0.0) ? 0 : (qd > (double)(L - 1) ? L - 1 : (int64_t)qd);
            if (cw[k] != 0.0f) {
                j[n] = q;
                w[n++] = cw[k];
            }
        }
        return n;
    }
    default:
        return 0;
    }
}

static void ov_axis_free(ov_axis *t)
{
    free(t->start);
    free(t->off);
    free(t->valid);
    free(t->w);
    memset(t, 0, sizeof *t);
}

/* Builds the tap lists of one axis (two sweeps: count, then fill). */
static drs_status ov_axis_build(const drs_plan *p, const drs_axis_plan *ap, float a,
                                int64_t stride, ov_axis *t)
{
    memset(t, 0, sizeof *t);
    t->axis = ap->axis;
    const int64_t O = ap->O;
    /* taps of one output: 4 (cubic), 2 (linear_onnx), for linear those with
     * |a (c - j)| < 1: at most 2/a + 1, and at most L */
    int64_t cap = 4;
    if (ap->kernel == DRS_K_LINEAR_OV) {
        const double nw = 2.0 / (double)a + 3.0;
        cap = !(nw < (double)ap->L) ? ap->L : (int64_t)nw;
        if (cap < 1)
            cap = 1;
    }
    int64_t *jb = drs__malloc((size_t)cap * sizeof *jb);
    float *wb = drs__malloc((size_t)cap * sizeof *wb);
    t->start = drs__malloc((size_t)(O + 1) * sizeof *t->start);
    if (!jb || !wb || !t->start)
        goto nomem;
    t->start[0] = 0;
    for (int64_t o = 0; o < O; o++) {
        const int64_t n = ov_taps(ap, o, a, jb, wb, cap);
        if (drs__add_overflow(t->start[o], n, &t->start[o + 1]))
            goto nomem;
    }
    const size_t nt = (size_t)(t->start[O] > 0 ? t->start[O] : 1);
    t->off = drs__malloc(nt * sizeof *t->off);
    t->valid = drs__malloc(nt);
    t->w = drs__malloc(nt * sizeof *t->w);
    if (!t->off || !t->valid || !t->w)
        goto nomem;
    for (int64_t o = 0; o < O; o++) {
        const int64_t n = ov_taps(ap, o, a, jb, wb, cap), s = t->start[o];
        for (int64_t k = 0; k < n; k++) {
            const int64_t i = jb[k] - ap->pad_begin; /* unpadded index */
            const int v = i >= 0 && i < ap->in_len;
            t->valid[s + k] = (uint8_t)v;
            t->off[s + k] = v ? i * stride : 0;
            t->w[s + k] = wb[k];
        }
    }
    free(jb);
    free(wb);
    return DRS_OK;
nomem:
    free(jb);
    free(wb);
    ov_axis_free(t);
    return drs__fail(DRS_ERR_NOMEM, "%s: out of memory building the taps of axis %d", p->op,
                     ap->axis);
}

/* What the row loop needs: the resized axes' tap lists in the order of the
 * axes list, and for the other axes the padded -> input index shift. */
typedef struct ov_run {
    int rank, m, linear;
    const int64_t *out_shape, *in_shape;
    int64_t pb[DRS_MAX_RANK];      /* pads_begin of the axes without taps */
    int64_t istride[DRS_MAX_RANK]; /* input element strides */
    int is_tap[DRS_MAX_RANK];
    ov_axis ax[DRS_MAX_RANK];
    float w0; /* the first factor of every product: prod(a) (linear) or 1 */
    int no_pads; /* no pad cell anywhere: every tap valid (the 1- and 2-axis loops) */
} ov_run;

/* Saturating conversion of the reference's float result (already rounded or
 * truncated) into the output type. */
#define OV_STORE(T, LO, HI, dst, v)                                                             \
    do {                                                                                       \
        const double v_ = (double)(v);                                                         \
        (dst) = v_ != v_ ? (T)0 : v_ <= (double)(LO) ? (T)(LO) : v_ >= (double)(HI) ? (T)(HI) \
                                                                          : (T)v_;             \
    } while (0)

#define DEFINE_OV_RUN(NAME, T, LO, HI)                                                          \
    static void NAME(const ov_run *c, T *y, const T *x)                                        \
    {                                                                                          \
        const int R = c->rank, m = c->m;                                                       \
        const int64_t W = c->out_shape[R - 1];                                                 \
        const int last_tap = c->is_tap[R - 1];                                                 \
        int64_t nrows = 1;                                                                     \
        for (int d = 0; d < R - 1; d++)                                                        \
            nrows *= c->out_shape[d];                                                          \
        const int64_t work = nrows * W;                                                        \
        _Pragma("omp parallel for schedule(static) num_threads((work > PAR_MIN_WORK) ? drs__nthreads() : 1)") \
        for (int64_t row = 0; row < nrows; row++) {                                            \
            int64_t coord[DRS_MAX_RANK];                                                       \
            int64_t rem = row;                                                                 \
            for (int d = R - 2; d >= 0; d--) {                                                 \
                coord[d] = rem % c->out_shape[d];                                              \
                rem /= c->out_shape[d];                                                        \
            }                                                                                  \
            /* axes without taps: the output coordinate, in padded space */                    \
            int64_t base_row = 0;                                                              \
            int inside_row = 1;                                                                \
            for (int d = 0; d < R - 1; d++) {                                                  \
                if (c->is_tap[d])                                                              \
                    continue;                                                                  \
                const int64_t i = coord[d] - c->pb[d];                                         \
                inside_row &= i >= 0 && i < c->in_shape[d];                                    \
                base_row += i * c->istride[d];                                                 \
            }                                                                                  \
            T *yrow = y + row * W;                                                             \
            for (int64_t ow = 0; ow < W; ow++) {                                               \
                coord[R - 1] = ow;                                                             \
                int64_t base = base_row;                                                       \
                int inside = inside_row;                                                       \
                if (!last_tap) {                                                               \
                    const int64_t i = ow - c->pb[R - 1];                                       \
                    inside &= i >= 0 && i < c->in_shape[R - 1];                                \
                    base += i;                                                                 \
                }                                                                              \
                int64_t s[DRS_MAX_RANK], n[DRS_MAX_RANK], k[DRS_MAX_RANK];                     \
                int empty = 0;                                                                 \
                for (int a = 0; a < m; a++) {                                                  \
                    const int64_t o = coord[c->ax[a].axis];                                    \
                    s[a] = c->ax[a].start[o];                                                  \
                    n[a] = c->ax[a].start[o + 1] - s[a];                                       \
                    k[a] = 0;                                                                  \
                    empty |= n[a] == 0;                                                        \
                }                                                                              \
                /* every combination of taps, the first listed axis slowest:               \
                 * w = ((w0 * w_0) * w_1) ..., wsum += w, summa += w * x (float32) */      \
                float summa = 0.0f, wsum = 0.0f;                                               \
                if (empty) { /* an axis without taps: 0 */                                      \
                } else if (c->no_pads && m == 1) {                                             \
                    const float *wa = c->ax[0].w + s[0];                                       \
                    const int64_t *oa = c->ax[0].off + s[0];                                   \
                    for (int64_t ka = 0; ka < n[0]; ka++) {                                    \
                        const float w = c->w0 * wa[ka];                                        \
                        wsum += w;                                                             \
                        summa += w * (float)x[base + oa[ka]];                                  \
                    }                                                                          \
                } else if (c->no_pads && m == 2) {                                             \
                    const float *wa = c->ax[0].w + s[0], *wb = c->ax[1].w + s[1];              \
                    const int64_t *oa = c->ax[0].off + s[0], *ob = c->ax[1].off + s[1];        \
                    for (int64_t ka = 0; ka < n[0]; ka++) {                                    \
                        const float pa = c->w0 * wa[ka];                                       \
                        const T *xa = x + base + oa[ka];                                       \
                        for (int64_t kb = 0; kb < n[1]; kb++) {                                \
                            const float w = pa * wb[kb];                                       \
                            wsum += w;                                                         \
                            summa += w * (float)xa[ob[kb]];                                    \
                        }                                                                      \
                    }                                                                          \
                } else {                                                                       \
                    for (;;) {                                                                 \
                        float w = c->w0;                                                       \
                        int64_t off = base;                                                    \
                        int valid = inside;                                                    \
                        for (int a = 0; a < m; a++) {                                          \
                            const int64_t q = s[a] + k[a];                                     \
                            w *= c->ax[a].w[q];                                                \
                            off += c->ax[a].off[q];                                            \
                            valid &= c->ax[a].valid[q];                                        \
                        }                                                                      \
                        wsum += w;                                                             \
                        summa += w * (valid ? (float)x[off] : 0.0f);                           \
                        int a = m - 1;                                                         \
                        while (a >= 0 && ++k[a] == n[a])                                       \
                            k[a--] = 0;                                                        \
                        if (a < 0)                                                             \
                            break;                                                             \
                    }                                                                          \
                }                                                                              \
                if (!c->linear)                                                                \
                    OV_STORE(T, LO, HI, yrow[ow], truncf(summa));                              \
                else if (wsum == 0.0f)                                                         \
                    yrow[ow] = 0;                                                              \
                else                                                                           \
                    OV_STORE(T, LO, HI, yrow[ow], roundf(summa / wsum));                       \
            }                                                                                  \
        }                                                                                      \
    }

DEFINE_OV_RUN(ov_run_u8, uint8_t, 0, 255)
DEFINE_OV_RUN(ov_run_i8, int8_t, -128, 127)

drs_status drs_ov_reference_execute(const drs_plan *p, drs_tensor *y, const drs_tensor *x)
{
    /* (called by drs_plan_execute once the output and input are non-empty) */
    ov_run c;
    memset(&c, 0, sizeof c);
    c.rank = p->rank;
    c.out_shape = p->out_shape;
    c.in_shape = p->in_shape;
    int64_t st = 1;
    for (int d = p->rank - 1; d >= 0; d--) {
        c.istride[d] = st;
        st *= p->in_shape[d];
    }
    /* the resized axes in the order of the axes list (param_index) */
    const drs_axis_plan *list[DRS_MAX_RANK] = {NULL};
    int nax = 0;
    c.no_pads = 1;
    for (int i = 0; i < p->npass; i++) {
        const drs_axis_plan *ap = &p->pass[i];
        c.pb[ap->axis] = ap->pad_begin;
        c.no_pads &= ap->pad_begin == 0 && ap->L == ap->in_len;
        if (ap->kernel != DRS_K_IDENTITY)
            list[nax++] = ap;
    }
    for (int i = 1; i < nax; i++)
        for (int j = i; j > 0 && list[j - 1]->param_index > list[j]->param_index; j--) {
            const drs_axis_plan *t = list[j];
            list[j] = list[j - 1];
            list[j - 1] = t;
        }
    if (nax == 0) /* not a plan of this kernel: drs_ov_reference_applies is 0 */
        return drs__fail(DRS_ERR_UNSUPPORTED, "%s: no resized axis for the integer kernel",
                         p->op);
    const drs_kernel kern = list[0]->kernel;
    c.linear = kern == DRS_K_LINEAR_OV;
    c.w0 = 1.0f;
    drs_status s = DRS_OK;
    for (int i = 0; i < nax; i++) {
        const drs_axis_plan *ap = list[i];
        /* linear_onnx on all axes of rank >= 4: the reference loops over the
         * batch and channel axes (left unchanged) and interpolates the others */
        if (kern == DRS_K_LINEAR_CLAMP && nax == p->rank && p->rank >= 4 && ap->axis < 2 &&
            ap->O == ap->L)
            continue;
        const float a = c.linear ? (float)ap->aa_scale : 1.0f;
        c.w0 *= a;
        c.is_tap[ap->axis] = 1;
        if ((s = ov_axis_build(p, ap, a, c.istride[ap->axis], &c.ax[c.m])))
            goto done;
        c.m++;
    }
    switch (p->dtype) {
    case DRS_U8: ov_run_u8(&c, (uint8_t *)y->data, (const uint8_t *)x->data); break;
    case DRS_I8: ov_run_i8(&c, (int8_t *)y->data, (const int8_t *)x->data); break;
    default: break;
    }
done:
    for (int i = 0; i < c.m; i++)
        ov_axis_free(&c.ax[i]);
    return s;
}
