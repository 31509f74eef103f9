/* SPDX-License-Identifier: MIT */
/* table.c — the per-axis (index, weight) table: one coordinate transform plus
 * one kernel, evaluated once per call for each output position of one axis.
 *
 * Every kernel first produces taps in PADDED index space [0, L) (edge
 * replication is folded into the edge weights here, exclude+renormalise drops
 * the outside taps here), then the padded cells (OpenVINO pads, zeros) are
 * trimmed so that the table indexes the unpadded input directly.  Inner loops
 * of the passes therefore never branch on borders.  Serial: tables are built
 * once per call and are small next to the data. */
#include "core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- filters */
static double tri(double x)
{
    x = fabs(x);
    return x < 1.0 ? 1.0 - x : 0.0;
}

/* Keys cubic as ONNX-REF _cubic_coeffs_antialias / PyTorch cubic_convolution. */
static double keys(double a, double x)
{
    x = fabs(x);
    if (x <= 1.0)
        return ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0;
    if (x < 2.0)
        return ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a;
    return 0.0;
}

/* Pillow's bicubic_filter (Resample.c), parameterised by a like OpenVINO. */
static double pil_cubic(double a, double x)
{
    if (x < 0.0)
        x = -x;
    if (x < 1.0)
        return ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0;
    if (x < 2.0)
        return (((x - 5.0) * x + 8.0) * x - 4.0) * a;
    return 0.0;
}

/* --------------------------------------------------- coordinate transform */
double drs_coord(const drs_axis_plan *ap, int64_t o)
{
    const double x = (double)o, s = ap->scale, L = (double)ap->L, ow = ap->out_width;
    if (ap->coord_shortcut)
        return x;
    double c;
    switch (ap->coord) {
    case DRS_COORD_HALF_PIXEL:
        c = (x + 0.5) / s - 0.5;
        break;
    case DRS_COORD_PYTORCH_HALF_PIXEL:
        if (ow == 1.0)
            c = ap->onnx_ref ? -0.5 : 0.0;
        else
            c = (x + 0.5) / s - 0.5;
        break;
    case DRS_COORD_ASYMMETRIC:
        c = x / s;
        break;
    case DRS_COORD_TF_HALF_PIXEL_FOR_NN:
        c = (x + 0.5) / s;
        break;
    case DRS_COORD_ALIGN_CORNERS:
        c = (ow == 1.0) ? 0.0 : x * (L - 1.0) / (ow - 1.0);
        break;
    case DRS_COORD_TF_CROP_AND_RESIZE:
        if (ow == 1.0)
            c = (ap->roi_end - ap->roi_start) * (L - 1.0) / 2.0;
        else
            c = x * (ap->roi_end - ap->roi_start) * (L - 1.0) / (ow - 1.0);
        c += ap->roi_start * (L - 1.0);
        break;
    case DRS_COORD_HALF_PIXEL_SYMMETRIC: {
        const double adj = (double)ap->O / ow;
        const double offset = (L / 2.0) * (1.0 - adj);
        c = offset + (x + 0.5) / s - 0.5;
        break;
    }
    default:
        c = 0.0;
    }
    if (ap->torch_clamp0 && c < 0.0)
        c = 0.0;
    return c;
}

/* Clamp a finite-or-not double to an index in [0, L-1] without any
 * out-of-range float->int conversion. */
static int64_t clamp_index(double v, int64_t L)
{
    if (!(v >= 0.0))
        return 0; /* negative or NaN */
    if (v >= (double)(L - 1))
        return L - 1;
    return (int64_t)v;
}

/* Keep c within a band where floor() fits int64 and every window position
 * beyond it behaves like the band's edge (all taps on one side). */
static double clamp_coord(double c, int64_t L, double margin)
{
    const double lo = -margin - 2.0, hi = (double)L + margin + 2.0;
    if (!(c >= lo))
        return lo;
    if (c > hi)
        return hi;
    return c;
}

/* The kink rule (docs/semantics.md, "Kinks"): with a derivative wanted and
 * ap->kink_dir != 0, the one-sided derivative in the parameter on the side
 * kink_dir; a quantity moving at rate q (d/dθ) is then followed to the left
 * when kink_dir * q < 0.  Otherwise (kink_dir == 0) the right derivative in c. */
static int goes_left(const drs_axis_plan *ap, int want_d, double q)
{
    return want_d && ap->kink_dir != 0 && (double)ap->kink_dir * q < 0.0;
}

static int64_t nearest_index(const drs_axis_plan *ap, double c)
{
    double r;
    switch (ap->nearest) {
    case DRS_NEAREST_ROUND_PREFER_FLOOR:
        r = (c == trunc(c) + 0.5) ? floor(c) : round(c);
        break;
    case DRS_NEAREST_ROUND_PREFER_CEIL:
        r = round(c);
        break;
    case DRS_NEAREST_FLOOR:
        r = floor(c);
        break;
    case DRS_NEAREST_CEIL:
        r = ceil(c);
        break;
    case DRS_NEAREST_SIMPLE:
        r = ((float)ap->scale < 1.0f) ? ceil(c) : trunc(c);
        break;
    default:
        r = 0.0;
    }
    return clamp_index(r, ap->L);
}

/* OpenVINO's nearest index (ov::reference::interpolate, get_input_coords_for_
 * nearest_mode): the coordinate transform (drs_ov_coord) and the rounding rule in float32,
 * the same operations in the same order, so that every tie goes the same way.
 * (int64) casts become truncf/floorf and clamp_index (no out-of-range
 * conversion); the values are the same. */
float drs_ov_coord(const drs_axis_plan *ap, int64_t o)
{
    const float x = (float)o, s = (float)ap->scale, O = (float)ap->O, L = (float)ap->L;
    if (s == 1.0f || O == L)
        return x;
    switch (ap->coord) {
    case DRS_COORD_HALF_PIXEL: return (x + 0.5f) / s - 0.5f;
    case DRS_COORD_PYTORCH_HALF_PIXEL: return O > 1.0f ? (x + 0.5f) / s - 0.5f : 0.0f;
    case DRS_COORD_ASYMMETRIC: return x / s;
    case DRS_COORD_TF_HALF_PIXEL_FOR_NN: return (x + 0.5f) / s;
    case DRS_COORD_ALIGN_CORNERS: return O == 1.0f ? 0.0f : x * (L - 1.0f) / (O - 1.0f);
    default: return 0.0f;
    }
}

static int64_t ov_nearest_index(const drs_axis_plan *ap, int64_t o)
{
    const float s = (float)ap->scale;
    const float c = drs_ov_coord(ap, o);
    float r;
    switch (ap->nearest) {
    case DRS_NEAREST_ROUND_PREFER_FLOOR:
        r = (c == truncf(c) + 0.5f) ? floorf(c) : roundf(c);
        break;
    case DRS_NEAREST_ROUND_PREFER_CEIL: r = roundf(c); break;
    case DRS_NEAREST_FLOOR: r = floorf(c); break;
    case DRS_NEAREST_CEIL: r = ceilf(c); break;
    case DRS_NEAREST_SIMPLE: r = s < 1.0f ? ceilf(c) : truncf(c); break;
    default: r = 0.0f;
    }
    return clamp_index((double)r, ap->L);
}

/* PyTorch's nearest/nearest-exact index (UpSample.h), float32 arithmetic. */
static int64_t torch_nearest_index(const drs_axis_plan *ap, int64_t o)
{
    /* PyTorch 1.13: the channels-last 2-D/3-D nearest kernel (taken when C == 1)
     * goes through nearest_idx, whose closed forms give o for O == L and o >> 1
     * for O == 2L whatever the scale_factor; the other kernels always compute
     * floorf(o * scale) (scale_factor 1.1 on L = 5: 0 0 1 2 3 vs the identity). */
    const int64_t L = ap->L, O = ap->O;
    if (ap->kernel == DRS_K_TORCH_NEAREST) {
        if (ap->torch_nearest_idx && O == L)
            return o;
        if (ap->torch_nearest_idx && O == 2 * L)
            return o >> 1;
        const float sc = (float)ap->aa_scale;
        return clamp_index((double)floorf((float)o * sc), L);
    }
    const float sc = (float)ap->aa_scale;
    return clamp_index((double)floorf((float)(((double)o + 0.5) * sc)), L);
}

/* ------------------------------------------------------- table building */
/* Window size (positions) of the ONNX-REF kernels, before folding. */
static int64_t onnx_window(const drs_axis_plan *ap)
{
    if (!ap->antialias)
        return ap->kernel == DRS_K_ONNX_CUBIC ? 4 : 2;
    const double sc = ap->scale < 1.0 ? ap->scale : 1.0;
    const double support = ap->kernel == DRS_K_ONNX_CUBIC ? 2.0 : 1.0;
    const double start = floor(-support / sc) + 1.0;
    const double n = 2.0 - 2.0 * start;
    return n > 4e18 ? INT64_MAX : (int64_t)n;
}

static double pil_support(const drs_axis_plan *ap)
{
    const double base = ap->kernel == DRS_K_PIL_CUBIC ? 2.0 : 1.0;
    const double fs = ap->aa_scale < 1.0 ? 1.0 : ap->aa_scale;
    return base * fs;
}

/* Upper bound on the taps of one output after folding to [0, L). */
static int64_t tap_bound(const drs_axis_plan *ap)
{
    int64_t b;
    switch (ap->kernel) {
    case DRS_K_IDENTITY:
    case DRS_K_NEAREST:
    case DRS_K_TORCH_NEAREST:
    case DRS_K_TORCH_NEAREST_EXACT:
        b = 1;
        break;
    case DRS_K_LINEAR_CLAMP:
        b = 2;
        break;
    case DRS_K_LINEAR_OV: {
        const double w = 2.0 * ceil(1.0 / ap->aa_scale) + 3.0;
        b = w > (double)ap->L ? ap->L : (int64_t)w;
        break;
    }
    case DRS_K_ONNX_LINEAR:
    case DRS_K_ONNX_CUBIC:
        b = onnx_window(ap);
        break;
    case DRS_K_AREA:
        b = ap->O > 0 ? (ap->L + ap->O - 1) / ap->O + 1 : 1;
        break;
    case DRS_K_PIL_LINEAR:
    case DRS_K_PIL_CUBIC: {
        const double w = 2.0 * ceil(pil_support(ap)) + 2.0;
        b = w > (double)ap->L ? ap->L : (int64_t)w;
        break;
    }
    default:
        b = 1;
    }
    if (b > ap->L)
        b = ap->L;
    return b < 1 ? 1 : b;
}

/* Adds weight w (and its derivative dw w.r.t. the table parameter) at padded
 * index j (already clamped into [0, L)) to the row; rows are zeroed as they
 * grow, the occupied padded range is [lo, hi]. */
typedef struct row_acc {
    double *w, *dw; /* dw NULL when no derivative is wanted */
    int64_t lo, hi; /* hi < lo when empty */
} row_acc;

static void row_add(row_acc *r, int64_t j, double w, double dw)
{
    if (r->hi < r->lo) {
        r->lo = r->hi = j;
        r->w[0] = w;
        if (r->dw)
            r->dw[0] = dw;
        return;
    }
    if (j < r->lo) { /* taps arrive in ascending order except when folding left */
        const int64_t sh = r->lo - j, n = r->hi - r->lo + 1;
        memmove(r->w + sh, r->w, (size_t)n * sizeof(double));
        if (r->dw)
            memmove(r->dw + sh, r->dw, (size_t)n * sizeof(double));
        for (int64_t k = 0; k < sh; k++) {
            r->w[k] = 0.0;
            if (r->dw)
                r->dw[k] = 0.0;
        }
        r->lo = j;
    }
    while (r->hi < j) {
        ++r->hi;
        r->w[r->hi - r->lo] = 0.0;
        if (r->dw)
            r->dw[r->hi - r->lo] = 0.0;
    }
    r->w[j - r->lo] += w;
    if (r->dw)
        r->dw[j - r->lo] += dw;
}

/* Divides the row by its sum S: w = F/S, dw = (dF - w dS)/S. */
static void row_normalise(row_acc *r, double S, double dS)
{
    if (r->hi < r->lo)
        return;
    for (int64_t q = 0; q <= r->hi - r->lo; q++) {
        r->w[q] /= S;
        if (r->dw)
            r->dw[q] = (r->dw[q] - r->w[q] * dS) / S;
    }
}

/* Keys derivative W'(u) for u >= 0. */
static double keys_d(double a, double u)
{
    if (u <= 1.0)
        return 3.0 * (a + 2.0) * u * u - 2.0 * (a + 3.0) * u;
    if (u < 2.0)
        return 3.0 * a * u * u - 10.0 * a * u + 8.0 * a;
    return 0.0;
}

/* The 1-D cubic tap primitive: Keys weights of the taps floor(c)-1 .. floor(c)+2
 * at t = c - floor(c) in [0, 1), as ONNX-REF _cubic_coeffs and PyTorch
 * get_cubic_upsample_coefficients write them, and their derivatives d/dt.
 * Used by the resize tables and by GridSample (bicubic, tricubic). */
void drs_cubic_taps(double a, double t, double w[4], double dwdt[4])
{
    const double r1 = t + 1.0, q = 1.0 - t, q1 = q + 1.0;
    drs_cubic_weights(a, t, w);
    dwdt[0] = keys_d(a, r1);
    dwdt[1] = keys_d(a, t);
    dwdt[2] = -keys_d(a, q);
    dwdt[3] = -keys_d(a, q1);
}

/* ONNX-REF window kernel (linear, cubic, with or without antialias) for one
 * output.  ONNX-REF uses the window kk-m+1 .. kk+m with kk = floor(c), or
 * kk = c-1 and ratio 1 when c is an integer; we always use kk = floor(c),
 * ratio in [0, 1): the extra window position then carries weight exactly 0, so
 * the values are identical, and the derivative is the right derivative
 * (docs/semantics.md).  Edge replication folds outside taps onto the edge; exclude
 * drops them and renormalises.  dc: dc/dθ; dsc: d(antialias stretch)/dθ. */
static void onnx_taps(const drs_axis_plan *ap, double c, double dc, double dsc, int64_t n,
                      row_acc *r)
{
    const int64_t L = ap->L, m = n / 2;
    const double c0 = c;
    c = clamp_coord(c, L, (double)n);
    if (c != c0)
        dc = 0.0;
    double kk = floor(c);
    double ratio = c - kk;
    /* tf_crop_and_resize extrapolates beyond L - 1: there the derivative is the
     * one of the side the forward's branch holds on, the left in c */
    const int edge = r->dw && ap->coord == DRS_COORD_TF_CROP_AND_RESIZE && L > 1 &&
                     c == (double)(L - 1);
    if (ratio == 0.0 && (edge || goes_left(ap, r->dw != NULL, dc))) {
        kk -= 1.0; /* the left derivative in c: taps of [c - 1, c), ratio 1 */
        ratio = 1.0;
    }
    const int64_t k = (int64_t)kk;
    const double a = ap->cubic_a;
    const double sc = ap->scale < 1.0 ? ap->scale : 1.0;
    double S = 0.0, dS = 0.0;
    for (int64_t p = 0; p < n; p++) {
        const int64_t i = p - (m - 1); /* position relative to kk */
        double w, dw;
        if (!ap->antialias) {
            if (ap->kernel == DRS_K_ONNX_LINEAR) {
                w = (i == 0) ? 1.0 - ratio : ratio;
                dw = (i == 0) ? -dc : dc;
            } else { /* the exact polynomials of ONNX-REF _cubic_coeffs */
                double W4[4], D4[4];
                drs_cubic_taps(a, ratio, W4, D4);
                w = W4[i + 1];
                dw = D4[i + 1] * dc;
            }
        } else {
            const double u = sc * ((double)i - ratio);
            const double du = -sc * dc + ((double)i - ratio) * dsc;
            if (ap->kernel == DRS_K_ONNX_LINEAR) {
                w = 1.0 - fabs(u);
                w = w < 0.0 ? 0.0 : (w > 1.0 ? 1.0 : w);
                /* slope on the side u approaches from as c grows (u decreases), or as
                 * the parameter moves (kink rule) */
                const int right_u = ap->kink_dir != 0 && r->dw && (double)ap->kink_dir * du > 0.0;
                const double fp = right_u ? ((u >= -1.0 && u < 0.0) ? 1.0 : (u >= 0.0 && u < 1.0) ? -1.0 : 0.0)
                                          : ((u > -1.0 && u <= 0.0) ? 1.0 : (u > 0.0 && u <= 1.0) ? -1.0 : 0.0);
                dw = fp * du;
            } else {
                w = keys(a, u); /* Keys is C1: no side to choose */
                dw = (u < 0.0 ? -keys_d(a, -u) : keys_d(a, u)) * du;
            }
        }
        int64_t j = k + i;
        if (j < 0 || j >= L) {
            if (ap->exclude_outside)
                continue;
            j = j < 0 ? 0 : L - 1;
        }
        S += w;
        dS += dw;
        if (w != 0.0 || dw != 0.0)
            row_add(r, j, w, dw);
    }
    if (ap->antialias || ap->exclude_outside) {
        if (S != 0.0)
            row_normalise(r, S, dS);
        else
            r->hi = r->lo - 1; /* every tap excluded: output 0 (ONNX-REF: NaN) */
    }
}

/* OpenVINO 'linear': triangle of half-width 1/a, taps outside [0, L)
 * excluded, weights renormalised; zero sum -> output 0.  u = a (c - j) grows
 * with c, so the derivative uses the slope on the right of u. */
static void ov_linear_taps(const drs_axis_plan *ap, double c, double dc, double da, row_acc *r)
{
    const int64_t L = ap->L;
    const double a = ap->aa_scale;
    const double half = 1.0 / a;
    const double c0 = c;
    c = clamp_coord(c, L, half);
    if (c != c0)
        dc = 0.0;
    int64_t lo = (int64_t)floor(c - half) - 1, hi = (int64_t)ceil(c + half) + 1;
    if (lo < 0)
        lo = 0;
    if (hi > L - 1)
        hi = L - 1;
    double S = 0.0, dS = 0.0;
    for (int64_t j = lo; j <= hi; j++) {
        const double u = a * (c - (double)j);
        const double w = tri(u);
        const double du = a * dc + (c - (double)j) * da;
        const double fp = goes_left(ap, r->dw != NULL, du)
                              ? ((u > -1.0 && u <= 0.0) ? 1.0 : (u > 0.0 && u <= 1.0) ? -1.0 : 0.0)
                              : ((u >= -1.0 && u < 0.0) ? 1.0 : (u >= 0.0 && u < 1.0) ? -1.0 : 0.0);
        const double dw = fp * du;
        if (w != 0.0 || dw != 0.0) {
            row_add(r, j, w, dw);
            S += w;
            dS += dw;
        }
    }
    if (S != 0.0)
        row_normalise(r, S, dS);
    else
        r->hi = r->lo - 1;
}

/* Pillow precompute_coeffs (also PyTorch's antialias weights). */
static void pil_taps(const drs_axis_plan *ap, int64_t o, row_acc *r)
{
    const double scale = ap->aa_scale;
    const double fs = scale < 1.0 ? 1.0 : scale;
    const double support = pil_support(ap);
    const double ss = 1.0 / fs;
    const double center = ((double)o + 0.5) * scale;
    const double lo_d = center - support + 0.5, hi_d = center + support + 0.5;
    int64_t xmin = lo_d < 0.0 ? 0 : (lo_d > (double)ap->L ? ap->L : (int64_t)lo_d);
    int64_t xmax = hi_d < 0.0 ? 0 : (hi_d > (double)ap->L ? ap->L : (int64_t)hi_d);
    double total = 0.0;
    for (int64_t x = xmin; x < xmax; x++) {
        const double arg = ((double)x - center + 0.5) * ss;
        const double w = ap->kernel == DRS_K_PIL_CUBIC ? pil_cubic(ap->cubic_a, arg) : tri(arg);
        row_add(r, x, w, 0.0);
        total += w;
    }
    if (total != 0.0)
        row_normalise(r, total, 0.0); /* pillow weights do not depend on the scales */
}

/* Adaptive average pooling: [floor(o L / O), ceil((o+1) L / O)). */
static void area_taps(const drs_axis_plan *ap, int64_t o, row_acc *r)
{
    const __int128 L = ap->L, O = ap->O;
    const int64_t start = (int64_t)(((__int128)o * L) / O);
    const int64_t end = (int64_t)((((__int128)o + 1) * L + O - 1) / O);
    const double w = 1.0 / (double)(end - start);
    for (int64_t j = start; j < end; j++)
        row_add(r, j, w, 0.0);
}

void drs_table_free(drs_table *t)
{
    free(t->first);
    free(t->ntap);
    free(t->extrap);
    free(t->w);
    free(t->wf);
    free(t->dw);
    memset(t, 0, sizeof *t);
}

/* dc/dθ of output o for θ = scale, roi_start or roi_end (O and L fixed). */
double drs_coord_deriv(const drs_axis_plan *ap, int64_t o, drs_param param)
{
    if (param == DRS_PARAM_NONE || ap->coord_shortcut)
        return 0.0;
    const double x = (double)o, s = ap->scale, L = (double)ap->L, ow = ap->out_width;
    if (param == DRS_PARAM_SCALE) {
        if (!ap->scale_is_param)
            return 0.0;
        /* d(ow)/ds = L when the width is ONNX's fractional s*L, else 0 */
        const double dow = ap->onnx_ref ? L : 0.0;
        switch (ap->coord) {
        case DRS_COORD_HALF_PIXEL:
        case DRS_COORD_TF_HALF_PIXEL_FOR_NN:
            return -(x + 0.5) / (s * s);
        case DRS_COORD_PYTORCH_HALF_PIXEL:
            return ow == 1.0 ? 0.0 : -(x + 0.5) / (s * s);
        case DRS_COORD_ASYMMETRIC:
            return -x / (s * s);
        case DRS_COORD_ALIGN_CORNERS:
            return ow == 1.0 ? 0.0 : -x * (L - 1.0) * dow / ((ow - 1.0) * (ow - 1.0));
        case DRS_COORD_TF_CROP_AND_RESIZE:
            return ow == 1.0 ? 0.0
                             : -x * (ap->roi_end - ap->roi_start) * (L - 1.0) * dow /
                                   ((ow - 1.0) * (ow - 1.0));
        case DRS_COORD_HALF_PIXEL_SYMMETRIC:
            return ((double)ap->O / 2.0 - x - 0.5) / (s * s);
        }
        return 0.0;
    }
    if (ap->coord != DRS_COORD_TF_CROP_AND_RESIZE)
        return 0.0;
    if (ow == 1.0)
        return (L - 1.0) / 2.0; /* c = (e-b)(L-1)/2 + b(L-1) */
    const double k = x * (L - 1.0) / (ow - 1.0);
    return param == DRS_PARAM_ROI_END ? k : (L - 1.0) - k;
}

drs_status drs_table_build(const drs_axis_plan *ap, drs_table *t, int want_float,
                           drs_param param)
{
    memset(t, 0, sizeof *t);
    const int64_t O = ap->O, L = ap->L;
    if (ap->kernel == DRS_K_ONNX_LINEAR || ap->kernel == DRS_K_ONNX_CUBIC) {
        const int64_t n = onnx_window(ap);
        int64_t work;
        if (n > ((int64_t)1 << 31) || drs__mul_overflow(n, O, &work) || work > ((int64_t)1 << 34))
            return drs__fail(DRS_ERR_UNSUPPORTED,
                             "%s: antialias window of %lld taps on axis %d is too large "
                             "(scale %g)",
                             "resample", (long long)n, ap->axis, ap->scale);
    }
    /* one extra tap each side: zero weights with a non-zero right derivative */
    const int64_t stride = tap_bound(ap) + (param != DRS_PARAM_NONE ? 2 : 0);
    int64_t nw;
    if (drs__mul_overflow(stride, O, &nw) || nw > ((int64_t)1 << 40))
        return drs__fail(DRS_ERR_OVERFLOW, "resample: weight table for axis %d overflows",
                         ap->axis);
    t->O = O;
    t->stride = stride;
    const size_t no = (size_t)(O > 0 ? O : 1), nws = (size_t)(nw > 0 ? nw : 1);
    t->first = drs__malloc(no * sizeof *t->first);
    t->ntap = drs__malloc(no * sizeof *t->ntap);
    t->w = drs__calloc(nws, sizeof *t->w);
    /* scratch rows in padded space (folding may need up to stride+2 cells) */
    double *row = drs__malloc((size_t)(stride + 4) * sizeof *row);
    double *drow = param != DRS_PARAM_NONE ? drs__malloc((size_t)(stride + 4) * sizeof *drow) : NULL;
    if (want_float)
        t->wf = drs__malloc(nws * sizeof *t->wf);
    if (param != DRS_PARAM_NONE)
        t->dw = drs__calloc(nws, sizeof *t->dw);
    if (ap->coord == DRS_COORD_TF_CROP_AND_RESIZE)
        t->extrap = drs__calloc(no, 1);
    if (!t->first || !t->ntap || !t->w || !row || (want_float && !t->wf) ||
        (param != DRS_PARAM_NONE && (!t->dw || !drow)) ||
        (ap->coord == DRS_COORD_TF_CROP_AND_RESIZE && !t->extrap)) {
        free(row);
        free(drow);
        drs_table_free(t);
        return drs__fail(DRS_ERR_NOMEM, "resample: out of memory building the table of axis %d",
                         ap->axis);
    }
    /* derivative of the antialias stretch min(s, 1) w.r.t. the scale */
    const double dstretch =
        (param == DRS_PARAM_SCALE && ap->scale_is_param && ap->antialias &&
         (ap->scale < 1.0 || (ap->kink_dir < 0 && ap->scale == 1.0)))
            ? 1.0
            : 0.0;
    const int uses_coord = ap->kernel != DRS_K_IDENTITY && ap->kernel != DRS_K_AREA &&
                           ap->kernel != DRS_K_PIL_LINEAR && ap->kernel != DRS_K_PIL_CUBIC &&
                           ap->kernel != DRS_K_TORCH_NEAREST &&
                           ap->kernel != DRS_K_TORCH_NEAREST_EXACT;

    for (int64_t o = 0; o < O; o++) {
        row_acc r = {row, drow, 0, -1};
        double c = 0.0, dc = 0.0;
        if (uses_coord) {
            c = drs_coord(ap, o);
            dc = drs_coord_deriv(ap, o, param);
        }
        if (ap->torch_clamp0 && c <= 0.0)
            dc = 0.0;
        if (ap->coord == DRS_COORD_TF_CROP_AND_RESIZE && uses_coord &&
            (c < 0.0 || c > (double)(L - 1) || c != c)) {
            t->extrap[o] = 1;
            t->first[o] = 0;
            t->ntap[o] = 0;
            continue;
        }
        switch (ap->kernel) {
        case DRS_K_IDENTITY:
            row_add(&r, o, 1.0, 0.0); /* padded index o; trimmed below if it is a pad cell */
            break;
        case DRS_K_NEAREST:
            row_add(&r, ap->ov_f32 ? ov_nearest_index(ap, o) : nearest_index(ap, c), 1.0, 0.0);
            break;
        case DRS_K_TORCH_NEAREST:
        case DRS_K_TORCH_NEAREST_EXACT:
            row_add(&r, torch_nearest_index(ap, o), 1.0, 0.0);
            break;
        case DRS_K_LINEAR_CLAMP: {
            /* OpenVINO linear_onnx: clamp c, i1 = trunc, i2 = i1+1 (clamped);
             * x[i1] gets |c - i2|, x[i2] gets |c - i1|; i1 == i2 -> weight 1.
             * Clamped coordinates (c < 0, c >= L-1) have derivative 0. */
            double cc = c < 0.0 ? 0.0 : (c > (double)(L - 1) ? (double)(L - 1) : c);
            if (cc != cc)
                cc = 0.0;
            const int left = goes_left(ap, param != DRS_PARAM_NONE, dc);
            const double dcc = (left ? (c > 0.0 && c <= (double)(L - 1))
                                     : (c >= 0.0 && c < (double)(L - 1)))
                                   ? dc
                                   : 0.0;
            int64_t i1 = clamp_index(cc, L);
            if (left && cc > 0.0 && cc == (double)i1)
                i1--; /* the left derivative in c: taps of [c - 1, c] */
            const int64_t i2 = i1 + 1 < L ? i1 + 1 : L - 1;
            if (i1 == i2) {
                row_add(&r, i1, 1.0, 0.0);
            } else {
                row_add(&r, i1, fabs(cc - (double)i2), -dcc);
                row_add(&r, i2, fabs(cc - (double)i1), dcc);
            }
            break;
        }
        case DRS_K_LINEAR_OV:
            ov_linear_taps(ap, c, dc, dstretch, &r);
            break;
        case DRS_K_ONNX_LINEAR:
        case DRS_K_ONNX_CUBIC:
            onnx_taps(ap, c, dc, dstretch, onnx_window(ap), &r);
            break;
        case DRS_K_AREA:
            area_taps(ap, o, &r);
            break;
        case DRS_K_PIL_LINEAR:
        case DRS_K_PIL_CUBIC:
            pil_taps(ap, o, &r);
            break;
        }
        /* trim pad cells: padded index j -> input index j - pad_begin */
        const int64_t lo = r.lo, hi = r.hi;
        const int64_t plo = ap->pad_begin, phi = ap->pad_begin + ap->in_len - 1;
        int64_t a0 = lo < plo ? plo : lo, a1 = hi > phi ? phi : hi;
        if (hi < lo || a1 < a0) {
            t->first[o] = 0;
            t->ntap[o] = 0;
            continue;
        }
        /* drop taps that carry neither weight nor derivative at both ends */
        while (a0 < a1 && row[a0 - lo] == 0.0 && (!drow || drow[a0 - lo] == 0.0))
            a0++;
        while (a1 > a0 && row[a1 - lo] == 0.0 && (!drow || drow[a1 - lo] == 0.0))
            a1--;
        t->first[o] = a0 - ap->pad_begin;
        t->ntap[o] = (int32_t)(a1 - a0 + 1);
        memcpy(t->w + o * stride, row + (a0 - lo), (size_t)(a1 - a0 + 1) * sizeof(double));
        if (drow)
            memcpy(t->dw + o * stride, drow + (a0 - lo), (size_t)(a1 - a0 + 1) * sizeof(double));
    }
    free(row);
    free(drow);
    if (want_float)
        for (int64_t q = 0; q < nw; q++)
            t->wf[q] = (float)t->w[q];
    return DRS_OK;
}
