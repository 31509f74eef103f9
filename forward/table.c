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
    if (ap->ov_shortcut)
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

/* PyTorch's nearest/nearest-exact index (UpSample.h), float32 arithmetic. */
static int64_t torch_nearest_index(const drs_axis_plan *ap, int64_t o)
{
    const int64_t L = ap->L, O = ap->O;
    if (ap->kernel == DRS_K_TORCH_NEAREST) {
        if (O == L)
            return o;
        if (O == 2 * L)
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

/* Adds weight w at padded index j (already clamped into [0, L)) to the row
 * that starts at padded index *lo; rows are zeroed, length = stride. */
typedef struct row_acc {
    double *w;
    int64_t lo, hi; /* occupied padded range, hi < lo when empty */
    int64_t stride;
} row_acc;

static void row_add(row_acc *r, int64_t j, double w)
{
    if (r->hi < r->lo) {
        r->lo = r->hi = j;
        r->w[0] = w;
        return;
    }
    if (j < r->lo) { /* taps arrive in ascending order except when folding left */
        const int64_t sh = r->lo - j;
        memmove(r->w + sh, r->w, (size_t)(r->hi - r->lo + 1) * sizeof(double));
        for (int64_t k = 0; k < sh; k++)
            r->w[k] = 0.0;
        r->lo = j;
    }
    while (r->hi < j)
        r->w[++r->hi - r->lo] = 0.0;
    r->w[j - r->lo] += w;
}

/* ONNX-REF window kernel (linear, cubic, with or without antialias) for one
 * output: positions kk-m+1 .. kk+m with kk = floor(c) (c-1 when c is an
 * integer, ratio then 1), edge replication or exclude+renormalise. */
static void onnx_taps(const drs_axis_plan *ap, double c, int64_t n, row_acc *r)
{
    const int64_t L = ap->L, m = n / 2;
    c = clamp_coord(c, L, (double)n);
    double kk = floor(c);
    double ratio = c - kk;
    if (c == kk) {
        kk -= 1.0;
        ratio = 1.0;
    }
    const int64_t k = (int64_t)kk;
    const double a = ap->cubic_a;
    const double sc = ap->scale < 1.0 ? ap->scale : 1.0;
    double total = 0.0;
    for (int64_t p = 0; p < n; p++) {
        const int64_t i = p - (m - 1); /* position relative to kk: start .. */
        double w;
        if (!ap->antialias) {
            if (ap->kernel == DRS_K_ONNX_LINEAR) {
                w = (i == 0) ? 1.0 - ratio : ratio;
            } else { /* the exact polynomials of ONNX-REF _cubic_coeffs */
                const double r1 = ratio + 1.0, q = 1.0 - ratio, q1 = q + 1.0;
                switch (i) {
                case -1: w = ((a * r1 - 5.0 * a) * r1 + 8.0 * a) * r1 - 4.0 * a; break;
                case 0: w = ((a + 2.0) * ratio - (a + 3.0)) * ratio * ratio + 1.0; break;
                case 1: w = ((a + 2.0) * q - (a + 3.0)) * q * q + 1.0; break;
                default: w = ((a * q1 - 5.0 * a) * q1 + 8.0 * a) * q1 - 4.0 * a; break;
                }
            }
        } else {
            const double u = sc * ((double)i - ratio);
            if (ap->kernel == DRS_K_ONNX_LINEAR) {
                w = 1.0 - fabs(u);
                w = w < 0.0 ? 0.0 : (w > 1.0 ? 1.0 : w);
            } else {
                w = keys(a, u);
            }
        }
        int64_t j = k + i;
        const int inside = j >= 0 && j < L;
        if (!inside) {
            if (ap->exclude_outside)
                continue;
            j = j < 0 ? 0 : L - 1;
        }
        total += w;
        if (w != 0.0)
            row_add(r, j, w);
    }
    const int normalise = ap->antialias || ap->exclude_outside;
    if (normalise && r->hi >= r->lo) {
        const double inv = total != 0.0 ? total : 1.0;
        for (int64_t q = 0; q <= r->hi - r->lo; q++)
            r->w[q] /= inv;
        if (total == 0.0)
            r->hi = r->lo - 1;
    }
}

/* OpenVINO 'linear': triangle of half-width 1/a, taps outside [0, L)
 * excluded, weights renormalised; zero sum -> output 0. */
static void ov_linear_taps(const drs_axis_plan *ap, double c, row_acc *r)
{
    const int64_t L = ap->L;
    const double a = ap->aa_scale;
    const double half = 1.0 / a;
    c = clamp_coord(c, L, half);
    int64_t lo = (int64_t)floor(c - half), hi = (int64_t)ceil(c + half);
    if (lo < 0)
        lo = 0;
    if (hi > L - 1)
        hi = L - 1;
    double total = 0.0;
    for (int64_t j = lo; j <= hi; j++) {
        const double w = a * tri(a * (c - (double)j));
        if (w != 0.0) {
            row_add(r, j, w);
            total += w;
        }
    }
    if (r->hi >= r->lo) {
        for (int64_t q = 0; q <= r->hi - r->lo; q++)
            r->w[q] /= total;
    }
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
        row_add(r, x, w);
        total += w;
    }
    if (total != 0.0 && r->hi >= r->lo)
        for (int64_t q = 0; q <= r->hi - r->lo; q++)
            r->w[q] /= total;
}

/* Adaptive average pooling: [floor(o L / O), ceil((o+1) L / O)). */
static void area_taps(const drs_axis_plan *ap, int64_t o, row_acc *r)
{
    const __int128 L = ap->L, O = ap->O;
    const int64_t start = (int64_t)(((__int128)o * L) / O);
    const int64_t end = (int64_t)((((__int128)o + 1) * L + O - 1) / O);
    const double w = 1.0 / (double)(end - start);
    for (int64_t j = start; j < end; j++)
        row_add(r, j, w);
}

void drs_table_free(drs_table *t)
{
    free(t->first);
    free(t->ntap);
    free(t->extrap);
    free(t->w);
    free(t->wf);
    memset(t, 0, sizeof *t);
}

drs_status drs_table_build(const drs_axis_plan *ap, drs_table *t, int want_float)
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
    const int64_t stride = tap_bound(ap);
    int64_t nw;
    if (drs__mul_overflow(stride, O, &nw) || nw > ((int64_t)1 << 40))
        return drs__fail(DRS_ERR_OVERFLOW, "resample: weight table for axis %d overflows",
                         ap->axis);
    t->O = O;
    t->stride = stride;
    const size_t no = (size_t)(O > 0 ? O : 1);
    t->first = malloc(no * sizeof *t->first);
    t->ntap = malloc(no * sizeof *t->ntap);
    t->w = calloc((size_t)(nw > 0 ? nw : 1), sizeof *t->w);
    /* scratch row in padded space (folding may need up to stride+1 cells) */
    double *row = malloc((size_t)(stride + 2) * sizeof *row);
    if (want_float)
        t->wf = malloc((size_t)(nw > 0 ? nw : 1) * sizeof *t->wf);
    if (ap->coord == DRS_COORD_TF_CROP_AND_RESIZE)
        t->extrap = calloc(no, 1);
    if (!t->first || !t->ntap || !t->w || !row || (want_float && !t->wf) ||
        (ap->coord == DRS_COORD_TF_CROP_AND_RESIZE && !t->extrap)) {
        free(row);
        drs_table_free(t);
        return drs__fail(DRS_ERR_NOMEM, "resample: out of memory building the table of axis %d",
                         ap->axis);
    }

    for (int64_t o = 0; o < O; o++) {
        row_acc r = {row, 0, -1, stride + 2};
        double c = 0.0;
        const int uses_coord = ap->kernel != DRS_K_IDENTITY && ap->kernel != DRS_K_AREA &&
                               ap->kernel != DRS_K_PIL_LINEAR && ap->kernel != DRS_K_PIL_CUBIC &&
                               ap->kernel != DRS_K_TORCH_NEAREST &&
                               ap->kernel != DRS_K_TORCH_NEAREST_EXACT;
        if (uses_coord)
            c = drs_coord(ap, o);
        if (ap->coord == DRS_COORD_TF_CROP_AND_RESIZE && uses_coord &&
            (c < 0.0 || c > (double)(L - 1) || c != c)) {
            t->extrap[o] = 1;
            t->first[o] = 0;
            t->ntap[o] = 0;
            continue;
        }
        switch (ap->kernel) {
        case DRS_K_IDENTITY:
            row_add(&r, o, 1.0); /* padded index o; trimmed below if it is a pad cell */
            break;
        case DRS_K_NEAREST:
            row_add(&r, nearest_index(ap, c), 1.0);
            break;
        case DRS_K_TORCH_NEAREST:
        case DRS_K_TORCH_NEAREST_EXACT:
            row_add(&r, torch_nearest_index(ap, o), 1.0);
            break;
        case DRS_K_LINEAR_CLAMP: {
            /* OpenVINO linear_onnx: clamp c, i1 = trunc, i2 = i1+1 (clamped);
             * x[i1] gets |c - i2|, x[i2] gets |c - i1|; i1 == i2 -> 0.5 each */
            double cc = c < 0.0 ? 0.0 : (c > (double)(L - 1) ? (double)(L - 1) : c);
            if (cc != cc)
                cc = 0.0;
            const int64_t i1 = clamp_index(cc, L);
            const int64_t i2 = i1 + 1 < L ? i1 + 1 : L - 1;
            if (i1 == i2) {
                row_add(&r, i1, 1.0);
            } else {
                row_add(&r, i1, fabs(cc - (double)i2));
                row_add(&r, i2, fabs(cc - (double)i1));
            }
            break;
        }
        case DRS_K_LINEAR_OV:
            ov_linear_taps(ap, c, &r);
            break;
        case DRS_K_ONNX_LINEAR:
        case DRS_K_ONNX_CUBIC:
            onnx_taps(ap, c, onnx_window(ap), &r);
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
        int64_t lo = r.lo, hi = r.hi;
        const int64_t plo = ap->pad_begin, phi = ap->pad_begin + ap->in_len - 1;
        int64_t a0 = lo < plo ? plo : lo, a1 = hi > phi ? phi : hi;
        double *dst = t->w + o * stride;
        if (hi < lo || a1 < a0) {
            t->first[o] = 0;
            t->ntap[o] = 0;
            continue;
        }
        /* drop zero weights at both ends (e.g. nearest windows, triangle tails) */
        while (a0 < a1 && row[a0 - lo] == 0.0)
            a0++;
        while (a1 > a0 && row[a1 - lo] == 0.0)
            a1--;
        t->first[o] = a0 - ap->pad_begin;
        t->ntap[o] = (int32_t)(a1 - a0 + 1);
        memcpy(dst, row + (a0 - lo), (size_t)(a1 - a0 + 1) * sizeof(double));
    }
    free(row);
    if (want_float)
        for (int64_t q = 0; q < nw; q++)
            t->wf[q] = (float)t->w[q];
    return DRS_OK;
}
