/* SPDX-License-Identifier: MIT */
/* ops.c — dresample ops as functions under test, with kink-aware sampling.
 *
 * A drs_gc_op (family, attributes, shapes, 1-D inputs) becomes a drs_gc_fn
 * over float64 buffers: inputs data [, scales] [, roi] [, grid], forward
 * through the public forward call, backward through the public backward call
 * (overwrite mode).  Which gradients exist and which are exactly zero follows
 * docs/semantics.md.  The differentiable parameters are drawn at random and a draw is
 * rejected when the op is not differentiable anywhere near it (see
 * axis_kinks() and grid_kinks() for the model of where the kinks are).
 * Everything here goes through include/dresample.h only. */
#include <dresample_gradcheck.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parameter margin: the finite-difference interval (eps = 1e-6) widened 100x.
 * Coordinate margin: no kink within this distance of any sampling coordinate
 * anywhere in the parameter box. */
#define GC_PARAM_MARGIN 1e-4
#define GC_COORD_MARGIN 5e-3
#define GC_MAX_DRAWS 400

/* ------------------------------------------------------------ random */
static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double uniform(uint64_t *s, double lo, double hi)
{
    return lo + (hi - lo) * ((double)(splitmix(s) >> 11) / 9007199254740992.0);
}

static int64_t numel(int rank, const int64_t *shape)
{
    int64_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= shape[i];
    return n;
}

/* ------------------------------------------------------------ naming */
const char *drs_gc_avoid_reason_str(drs_gc_avoid_reason r)
{
    switch (r) {
    case DRS_GC_AVOID_SIZE_STEP: return "output size step";
    case DRS_GC_AVOID_TAP_SWITCH: return "coordinate near an integer (tap switch)";
    case DRS_GC_AVOID_ROUNDING: return "coordinate near k+1/2 (nearest rounding switch)";
    case DRS_GC_AVOID_CLIP: return "coordinate near a clip/border/extrapolation edge";
    case DRS_GC_AVOID_SUPPORT_EDGE: return "coordinate near an antialias support edge";
    case DRS_GC_AVOID_SCALE_ONE: return "scale near 1 (min(s,1) / identity short-cut)";
    default: return "?";
    }
}

void drs_gc_avoid_add(drs_gc_avoid *sum, const drs_gc_avoid *a)
{
    sum->candidates += a->candidates;
    sum->accepted += a->accepted;
    sum->fixed_on_kink += a->fixed_on_kink;
    sum->unchecked += a->unchecked;
    for (int i = 0; i < DRS_GC_AVOID_COUNT; i++)
        sum->rejected[i] += a->rejected[i];
}

static const char *torch_mode_name(drs_torch_mode m)
{
    static const char *const n[] = {"nearest", "nearest-exact", "linear", "bilinear",
                                    "bicubic", "trilinear",     "area"};
    return (int)m >= 0 && m <= DRS_TORCH_AREA ? n[m] : "?";
}

static int list_str(char *b, size_t n, const char *name, int cnt, const int64_t *iv,
                    const double *dv)
{
    size_t k = (size_t)snprintf(b, n, " %s=", name);
    for (int i = 0; i < cnt && k < n; i++)
        k += (size_t)(iv ? snprintf(b + k, n - k, i ? ",%lld" : "%lld", (long long)iv[i])
                         : snprintf(b + k, n - k, i ? ",%.4g" : "%.4g", dv[i]));
    return (int)k;
}

void drs_gc_op_describe(const drs_gc_op *op, char *buf, size_t size)
{
    char t[512];
    size_t k = 0;
    t[0] = 0;
#define ADD(...) k += (size_t)snprintf(t + k, k < sizeof t ? sizeof t - k : 0, __VA_ARGS__)
    switch (op->family) {
    case DRS_GC_INTERPOLATE:
    case DRS_GC_INTERPOLATE_BACKPROP: {
        const drs_interpolate_attrs *a = &op->interp;
        if (op->family == DRS_GC_INTERPOLATE_BACKPROP)
            ADD("InterpolateBackprop-4 mode=%s", drs_interp_mode_str(a->mode));
        else
            ADD("Interpolate-%d mode=%s", a->version, drs_interp_mode_str(a->mode));
        if (a->version == 1)
            ADD(" align_corners=%d", a->align_corners);
        else
            ADD(" %s coord=%s", a->shape_calculation_mode == DRS_SHAPE_SCALES ? "scales" : "sizes",
                drs_coord_mode_str(a->coordinate_transformation_mode));
        if (a->mode == DRS_MODE_NEAREST && a->version != 1)
            ADD(" nearest=%s", drs_nearest_mode_str(a->nearest_mode));
        ADD(" aa=%d", a->antialias);
        if (a->mode == DRS_MODE_CUBIC || a->mode == DRS_MODE_BICUBIC_PILLOW)
            ADD(" cube_coeff=%g", a->cube_coeff);
        if (a->n_pads_begin || a->n_pads_end) {
            k += (size_t)list_str(t + k, sizeof t - k, "pads_begin", a->n_pads_begin,
                                  a->pads_begin, NULL);
            k += (size_t)list_str(t + k, sizeof t - k, "pads_end", a->n_pads_end, a->pads_end, NULL);
        }
        break;
    }
    case DRS_GC_RESIZE: {
        const drs_resize_attrs *a = &op->resize;
        ADD("Resize-%d mode=%s coord=%s", a->opset, drs_interp_mode_str(a->mode),
            drs_coord_mode_str(a->coordinate_transformation_mode));
        if (a->mode == DRS_MODE_NEAREST)
            ADD(" nearest=%s", drs_nearest_mode_str(a->nearest_mode));
        ADD(" aa=%d exclude_outside=%d", a->antialias, a->exclude_outside);
        if (a->mode == DRS_MODE_CUBIC)
            ADD(" cubic_coeff_a=%g", a->cubic_coeff_a);
        if (a->keep_aspect_ratio_policy != DRS_ASPECT_STRETCH)
            ADD(" keep_aspect_ratio_policy=%s",
                a->keep_aspect_ratio_policy == DRS_ASPECT_NOT_LARGER ? "not_larger" : "not_smaller");
        if (a->n_axes)
            k += (size_t)list_str(t + k, sizeof t - k, "axes", a->n_axes, a->axes, NULL);
        break;
    }
    case DRS_GC_TORCH: {
        const drs_torch_interpolate_attrs *a = &op->torch;
        ADD("TorchInterpolate mode=%s align_corners=%d aa=%d", torch_mode_name(a->mode),
            a->align_corners, a->antialias);
        if (a->n_size)
            k += (size_t)list_str(t + k, sizeof t - k, "size", a->n_size, a->size, NULL);
        if (a->n_scale_factor) {
            k += (size_t)list_str(t + k, sizeof t - k, "scale_factor", a->n_scale_factor, NULL,
                                  a->scale_factor);
            ADD(" recompute_scale_factor=%d", a->recompute_scale_factor);
        }
        break;
    }
    case DRS_GC_GRID_SAMPLE: {
        const drs_grid_sample_attrs *a = &op->grid;
        ADD("GridSample-%d mode=%s padding=%s align_corners=%d", a->version,
            drs_grid_mode_str(a->mode, a->version), drs_grid_padding_str(a->padding_mode),
            a->align_corners);
        break;
    }
    }
    if (k >= sizeof t)
        k = sizeof t - 1;
    if (op->n_axes)
        k += (size_t)list_str(t + k, sizeof t - k, "axes", op->n_axes, op->axes, NULL);
    if (k < sizeof t && op->n_sizes)
        k += (size_t)list_str(t + k, sizeof t - k, "sizes", op->n_sizes, op->sizes, NULL);
    if (k < sizeof t && op->n_scales)
        k += (size_t)list_str(t + k, sizeof t - k, "scales", op->n_scales, NULL, op->scales);
    if (k < sizeof t && op->n_roi)
        k += (size_t)list_str(t + k, sizeof t - k, "roi", op->n_roi, NULL, op->roi);
    if (k < sizeof t)
        k += (size_t)list_str(t + k, sizeof t - k, "shape", op->rank, op->shape, NULL);
    if (k < sizeof t && op->family == DRS_GC_GRID_SAMPLE)
        k += (size_t)list_str(t + k, sizeof t - k, "grid", op->grid_rank, op->grid_shape, NULL);
#undef ADD
    snprintf(buf, size, "%s", t);
}

drs_gc_op drs_gc_op_init(drs_gc_family family, int version)
{
    drs_gc_op op;
    memset(&op, 0, sizeof op);
    op.family = family;
    switch (family) {
    case DRS_GC_INTERPOLATE:
        op.interp = drs_interpolate_attrs_default(version);
        break;
    case DRS_GC_INTERPOLATE_BACKPROP:
        op.interp = drs_interpolate_attrs_default(4);
        break;
    case DRS_GC_RESIZE:
        op.resize = drs_resize_attrs_default(version);
        break;
    case DRS_GC_TORCH:
        op.torch = drs_torch_interpolate_attrs_default();
        break;
    case DRS_GC_GRID_SAMPLE:
        op.grid = drs_grid_sample_attrs_default(version);
        break;
    }
    op.scale_lo = 0.45;
    op.scale_hi = 1.9;
    return op;
}

/* ------------------------------------------------- library calls */
static int is_interp(const drs_gc_op *op)
{
    return op->family == DRS_GC_INTERPOLATE || op->family == DRS_GC_INTERPOLATE_BACKPROP;
}

/* The scales input is read by the forward (Interpolate-4/11 scales mode, Resize scales). */
static int scales_mode(const drs_gc_op *op)
{
    if (is_interp(op))
        return op->interp.version != 1 && op->interp.shape_calculation_mode == DRS_SHAPE_SCALES;
    return op->family == DRS_GC_RESIZE && op->n_scales > 0;
}

static drs_status infer(const drs_gc_op *op, const double *scales, const double *roi, int *r,
                        int64_t *os)
{
    /* shape inference reads no data; a non-NULL placeholder keeps every op's
     * "data is NULL" check quiet */
    drs_tensor x = {DRS_F64, op->rank, {0}, (void *)op};
    memcpy(x.shape, op->shape, sizeof x.shape);
    switch (op->family) {
    case DRS_GC_INTERPOLATE:
    case DRS_GC_INTERPOLATE_BACKPROP: {
        drs_interpolate_inputs in = {op->n_sizes ? op->sizes : NULL, op->n_sizes,
                                     op->n_scales ? scales : NULL, op->n_scales,
                                     op->n_axes ? op->axes : NULL, op->n_axes};
        return drs_interpolate_infer_shape(&op->interp, &x, &in, r, os);
    }
    case DRS_GC_RESIZE: {
        drs_resize_inputs in = {op->n_roi ? roi : NULL, op->n_roi, op->n_scales ? scales : NULL,
                                op->n_scales, op->n_sizes ? op->sizes : NULL, op->n_sizes};
        return drs_resize_infer_shape(&op->resize, &x, &in, r, os);
    }
    case DRS_GC_TORCH:
        return drs_torch_interpolate_infer_shape(&op->torch, &x, r, os);
    case DRS_GC_GRID_SAMPLE: {
        drs_tensor g = {DRS_F64, op->grid_rank, {0}, (void *)op};
        memcpy(g.shape, op->grid_shape, sizeof g.shape);
        return drs_grid_sample_infer_shape(&op->grid, &x, &g, r, os);
    }
    }
    return DRS_ERR_INVALID_ARGUMENT;
}

drs_status drs_gc_op_validate(const drs_gc_op *op)
{
    if (!op)
        return DRS_ERR_INVALID_ARGUMENT;
    int r;
    int64_t os[DRS_MAX_RANK];
    return infer(op, op->scales, op->roi, &r, os);
}

/* Inputs of the function under test, in this order when present. */
enum { IN_DATA = 0 };

static void keep_error(drs_gc_case *c)
{
    snprintf(c->error, sizeof c->error, "%s", drs_last_error());
}

static const char *case_error(void *ctx)
{
    return ((const drs_gc_case *)ctx)->error;
}

static int case_forward(void *ctx, double *const *x, double *y)
{
    drs_gc_case *c = ctx;
    const drs_gc_op *op = &c->op;
    const double *scales = c->idx_scales >= 0 ? x[c->idx_scales] : op->scales;
    const double *roi = c->idx_roi >= 0 ? x[c->idx_roi] : op->roi;
    /* The gradient is defined with the output size held fixed: a perturbed
     * point whose output shape differs is refused. */
    int r;
    int64_t os[DRS_MAX_RANK];
    drs_status s = infer(op, scales, roi, &r, os);
    if (s) {
        keep_error(c);
        return (int)s;
    }
    if (r != c->out_rank || memcmp(os, c->out_shape, sizeof(int64_t) * (size_t)r) != 0) {
        snprintf(c->error, sizeof c->error, "the output shape changed at a perturbed point");
        return 100;
    }
    drs_tensor X = {DRS_F64, op->rank, {0}, x[IN_DATA]};
    memcpy(X.shape, op->shape, sizeof X.shape);
    drs_tensor Y = {DRS_F64, r, {0}, y};
    memcpy(Y.shape, os, sizeof Y.shape);
    switch (op->family) {
    case DRS_GC_INTERPOLATE:
    case DRS_GC_INTERPOLATE_BACKPROP: {
        drs_interpolate_inputs in = {op->n_sizes ? op->sizes : NULL, op->n_sizes,
                                     op->n_scales ? scales : NULL, op->n_scales,
                                     op->n_axes ? op->axes : NULL, op->n_axes};
        s = drs_interpolate_forward(&Y, &X, &in, &op->interp);
        break;
    }
    case DRS_GC_RESIZE: {
        drs_resize_inputs in = {op->n_roi ? roi : NULL, op->n_roi, op->n_scales ? scales : NULL,
                                op->n_scales, op->n_sizes ? op->sizes : NULL, op->n_sizes};
        s = drs_resize_forward(&Y, &X, &in, &op->resize);
        break;
    }
    case DRS_GC_TORCH:
        s = drs_torch_interpolate_forward(&Y, &X, &op->torch);
        break;
    case DRS_GC_GRID_SAMPLE: {
        drs_tensor G = {DRS_F64, op->grid_rank, {0}, x[c->idx_grid]};
        memcpy(G.shape, op->grid_shape, sizeof G.shape);
        s = drs_grid_sample_forward(&Y, &X, &G, &op->grid);
        break;
    }
    }
    if (s)
        keep_error(c);
    return (int)s;
}

static int case_backward(void *ctx, double *const *x, const double *dy, double *const *grad)
{
    drs_gc_case *c = ctx;
    const drs_gc_op *op = &c->op;
    const int is = c->idx_scales, ir = c->idx_roi;
    const double *scales = is >= 0 ? x[is] : op->scales;
    const double *roi = ir >= 0 ? x[ir] : op->roi;
    drs_tensor X = {DRS_F64, op->rank, {0}, x[IN_DATA]};
    memcpy(X.shape, op->shape, sizeof X.shape);
    drs_tensor DX = X;
    DX.data = grad[IN_DATA];
    drs_tensor DY = {DRS_F64, c->out_rank, {0}, (void *)dy};
    memcpy(DY.shape, c->out_shape, sizeof DY.shape);
    drs_tensor *dxp = grad[IN_DATA] ? &DX : NULL;
    double *ds = is >= 0 ? grad[is] : NULL, *dr = ir >= 0 ? grad[ir] : NULL;
    drs_status s = DRS_ERR_INVALID_ARGUMENT;
    switch (op->family) {
    case DRS_GC_INTERPOLATE:
    case DRS_GC_INTERPOLATE_BACKPROP: {
        drs_interpolate_inputs in = {op->n_sizes ? op->sizes : NULL, op->n_sizes,
                                     op->n_scales ? scales : NULL, op->n_scales,
                                     op->n_axes ? op->axes : NULL, op->n_axes};
        if (op->family == DRS_GC_INTERPOLATE)
            s = drs_interpolate_backward(dxp, ds, &DY, &X, &in, &op->interp, DRS_GRAD_OVERWRITE);
        else
            s = drs_interpolate_backprop(dxp, ds, &X, &DY, &in, &op->interp, DRS_GRAD_OVERWRITE);
        break;
    }
    case DRS_GC_RESIZE: {
        drs_resize_inputs in = {op->n_roi ? roi : NULL, op->n_roi, op->n_scales ? scales : NULL,
                                op->n_scales, op->n_sizes ? op->sizes : NULL, op->n_sizes};
        s = drs_resize_backward(dxp, ds, dr, &DY, &X, &in, &op->resize, DRS_GRAD_OVERWRITE);
        break;
    }
    case DRS_GC_TORCH:
        s = drs_torch_interpolate_backward(dxp, &DY, &X, &op->torch, DRS_GRAD_OVERWRITE);
        break;
    case DRS_GC_GRID_SAMPLE: {
        drs_tensor G = {DRS_F64, op->grid_rank, {0}, x[c->idx_grid]};
        memcpy(G.shape, op->grid_shape, sizeof G.shape);
        drs_tensor DG = G;
        DG.data = grad[c->idx_grid];
        s = drs_grid_sample_backward(dxp, DG.data ? &DG : NULL, &DY, &X, &G, &op->grid,
                                     DRS_GRAD_OVERWRITE);
        break;
    }
    }
    if (s)
        keep_error(c);
    return (int)s;
}

/* ------------------------------------------------------- kink model */
/* One resized axis as the op's home system evaluates it (its coordinate
 * modes, output-size rule and sizes-mode scale): the coordinate of output o
 * as a function of the scale s and the roi (b, e), and the kernel's
 * non-differentiable offsets. */
typedef struct axis_model {
    int onnx;            /* 1: ONNX Resize (fractional width s*L); 0: OpenVINO Interpolate */
    drs_coord_mode cm;
    int64_t L;           /* (padded) input length */
    int64_t O;           /* output length */
    double s_fixed;      /* coordinate scale when the scale is not an input (sizes mode) */
    int s_is_param;
    int kink_kernel;     /* 0: no concern (nearest/area/pillow), 1: linear/cubic */
    int aa;              /* antialias active on this axis: kinks at c - j = +-k/min(s,1) */
    int aa_cubic;        /* ... with k = 1, 2 (else k = 1) */
} axis_model;

static double model_coord(const axis_model *m, double s, double b, double e, int64_t o)
{
    const double x = (double)o, L = (double)m->L;
    if (!m->s_is_param)
        s = m->s_fixed;
    if (!m->onnx) {
        if ((float)s == 1.0f || m->O == m->L)
            return x; /* OpenVINO's identity short-cut */
        switch (m->cm) {
        case DRS_COORD_HALF_PIXEL: return (x + 0.5) / s - 0.5;
        case DRS_COORD_PYTORCH_HALF_PIXEL: return m->O > 1 ? (x + 0.5) / s - 0.5 : 0.0;
        case DRS_COORD_ASYMMETRIC: return x / s;
        case DRS_COORD_TF_HALF_PIXEL_FOR_NN: return (x + 0.5) / s;
        case DRS_COORD_ALIGN_CORNERS: return m->O > 1 ? x * (L - 1.0) / (double)(m->O - 1) : 0.0;
        default: return 0.0;
        }
    }
    const double ow = s * L; /* ONNX-REF's fractional output width */
    switch (m->cm) {
    case DRS_COORD_HALF_PIXEL: return (x + 0.5) / s - 0.5;
    case DRS_COORD_PYTORCH_HALF_PIXEL: return ow == 1.0 ? -0.5 : (x + 0.5) / s - 0.5;
    case DRS_COORD_ASYMMETRIC: return x / s;
    case DRS_COORD_TF_HALF_PIXEL_FOR_NN: return (x + 0.5) / s;
    case DRS_COORD_ALIGN_CORNERS: return ow == 1.0 ? 0.0 : x * (L - 1.0) / (ow - 1.0);
    case DRS_COORD_TF_CROP_AND_RESIZE:
        return (ow == 1.0 ? (e - b) * (L - 1.0) / 2.0 : x * (e - b) * (L - 1.0) / (ow - 1.0)) +
               b * (L - 1.0);
    case DRS_COORD_HALF_PIXEL_SYMMETRIC: {
        const double adj = (double)m->O / ow;
        return (L / 2.0) * (1.0 - adj) + (x + 0.5) / s - 0.5;
    }
    default: return 0.0;
    }
}

/* 1 when [lo, hi] contains a point k + off (k integer); *at gets the point. */
static int hits(double lo, double hi, double off, double *at)
{
    const double k = ceil(lo - off);
    if (k + off <= hi) {
        *at = k + off;
        return 1;
    }
    return 0;
}

/* Checks every coordinate of one axis over the parameter box
 * (s +- ds, b +- dr, e +- dr).  Returns -1 when no kink is near, else the
 * reason. */
static int axis_kinks(const axis_model *m, double s, double ds, double b, double e, double dr)
{
    if (!m->kink_kernel)
        return -1;
    const double sv[2] = {s - ds, s + ds}, bv[2] = {b - dr, b + dr}, ev[2] = {e - dr, e + dr};
    const int nk = m->aa ? (m->aa_cubic ? 5 : 3) : 1;
    static const double kmul[5] = {0.0, 1.0, -1.0, 2.0, -2.0};
    for (int64_t o = 0; o < m->O; o++)
        for (int k = 0; k < nk; k++) {
            double lo = INFINITY, hi = -INFINITY;
            for (int i = 0; i < 8; i++) {
                const double sc = sv[i & 1];
                const double a = m->aa ? ((m->s_is_param ? sc : m->s_fixed) < 1.0
                                              ? (m->s_is_param ? sc : m->s_fixed)
                                              : 1.0)
                                       : 1.0;
                const double q = model_coord(m, sc, bv[(i >> 1) & 1], ev[(i >> 2) & 1], o) -
                                 kmul[k] / a;
                lo = q < lo ? q : lo;
                hi = q > hi ? q : hi;
            }
            /* A coordinate that does not move with the parameters (asymmetric
             * o = 0, align_corners ends) cannot cross a kink: its derivative
             * is 0 on both sides. */
            if (hi - lo < 1e-9)
                continue;
            double at;
            if (hits(lo - GC_COORD_MARGIN, hi + GC_COORD_MARGIN, 0.0, &at)) {
                if (k == 0)
                    return (at <= 0.0 || at >= (double)(m->L - 1)) ? DRS_GC_AVOID_CLIP
                                                                   : DRS_GC_AVOID_TAP_SWITCH;
                return DRS_GC_AVOID_SUPPORT_EDGE;
            }
        }
    return -1;
}

/* Grid coordinate g along an axis of length L (denormalised, then padded). */
static int grid_kinks(const drs_grid_sample_attrs *a, int64_t L, double g)
{
    const double d = GC_PARAM_MARGIN;
    double u0, u1;
    if (a->align_corners) {
        u0 = (g - d + 1.0) * (double)(L - 1) / 2.0;
        u1 = (g + d + 1.0) * (double)(L - 1) / 2.0;
    } else {
        u0 = ((g - d + 1.0) * (double)L - 1.0) / 2.0;
        u1 = ((g + d + 1.0) * (double)L - 1.0) / 2.0;
    }
    const double lo = u0 - GC_COORD_MARGIN, hi = u1 + GC_COORD_MARGIN;
    double at;
    if (a->mode == DRS_GRID_NEAREST) {
        if (hits(lo, hi, 0.5, &at))
            return DRS_GC_AVOID_ROUNDING;
        return -1; /* nearest: piecewise constant between rounding switches */
    }
    if (hits(lo, hi, 0.0, &at))
        return (at <= 0.0 || at >= (double)(L - 1)) ? DRS_GC_AVOID_CLIP : DRS_GC_AVOID_TAP_SWITCH;
    /* reflection about -0.5 and L - 0.5 (period 2L) when align_corners = 0 */
    if (a->padding_mode == DRS_GRID_PAD_REFLECTION && !a->align_corners &&
        hits(lo / (double)L, hi / (double)L, -0.5 / (double)L, &at))
        return DRS_GC_AVOID_CLIP;
    return -1;
}

/* ------------------------------------------------------------ prepare */
typedef struct axis_info {
    int d;      /* tensor axis */
    int64_t L;  /* padded length */
} axis_info;

/* The resized axes in parameter order, with their (padded) lengths. */
static int resolve_axes(const drs_gc_op *op, axis_info *ax)
{
    int n = 0;
    if (is_interp(op)) {
        const drs_interpolate_attrs *a = &op->interp;
        if (op->n_axes)
            for (int i = 0; i < op->n_axes; i++)
                ax[n++].d = (int)op->axes[i];
        else
            for (int i = 0; i < op->rank; i++)
                ax[n++].d = i;
        for (int i = 0; i < n; i++) {
            const int d = ax[i].d;
            ax[i].L = op->shape[d] + (d < a->n_pads_begin ? a->pads_begin[d] : 0) +
                      (d < a->n_pads_end ? a->pads_end[d] : 0);
        }
    } else {
        const drs_resize_attrs *a = &op->resize;
        if (a->n_axes)
            for (int i = 0; i < a->n_axes; i++)
                ax[n++].d = (int)(a->axes[i] < 0 ? a->axes[i] + op->rank : a->axes[i]);
        else
            for (int i = 0; i < op->rank; i++)
                ax[n++].d = i;
        for (int i = 0; i < n; i++)
            ax[i].L = op->shape[ax[i].d];
    }
    return n;
}

/* The coordinate scale of Resize in sizes mode. */
static double resize_sizes_scale(const drs_gc_op *op, const axis_info *ax, int nax, int i)
{
    const drs_aspect_policy pol = op->resize.keep_aspect_ratio_policy;
    if (pol == DRS_ASPECT_STRETCH)
        return ax[i].L ? (double)op->sizes[i] / (double)ax[i].L : 1.0;
    double common = 0.0;
    for (int k = 0; k < nax; k++) {
        const double r = (double)op->sizes[k] / (double)ax[k].L;
        if (k == 0 || (pol == DRS_ASPECT_NOT_LARGER ? r < common : r > common))
            common = r;
    }
    return common;
}

static void fill_model(axis_model *m, const drs_gc_op *op, const axis_info *ax, int nax, int i,
                       int64_t O)
{
    memset(m, 0, sizeof *m);
    m->L = ax[i].L;
    m->O = O;
    m->s_is_param = scales_mode(op);
    if (is_interp(op)) {
        const drs_interpolate_attrs *a = &op->interp;
        m->onnx = 0;
        m->cm = a->coordinate_transformation_mode;
        m->s_fixed = m->L ? (double)((float)O / (float)m->L) : 1.0;
        m->kink_kernel = a->mode == DRS_MODE_LINEAR || a->mode == DRS_MODE_LINEAR_ONNX ||
                         a->mode == DRS_MODE_CUBIC;
        m->aa = a->mode == DRS_MODE_LINEAR && a->antialias; /* ignored by linear_onnx/cubic */
    } else {
        const drs_resize_attrs *a = &op->resize;
        m->onnx = 1;
        m->cm = a->opset == 10 ? DRS_COORD_ASYMMETRIC : a->coordinate_transformation_mode;
        m->s_fixed = m->s_is_param ? 1.0 : resize_sizes_scale(op, ax, nax, i);
        m->kink_kernel = a->mode != DRS_MODE_NEAREST;
        m->aa = a->antialias && a->mode != DRS_MODE_NEAREST;
        m->aa_cubic = a->mode == DRS_MODE_CUBIC;
    }
}

/* The scales gradient of axis i is exactly zero (docs/semantics.md). */
static int scale_grad_zero(const drs_gc_op *op, const axis_model *m, double s)
{
    if (!scales_mode(op))
        return 1; /* sizes mode: the scales do not enter the forward */
    if (is_interp(op)) {
        const drs_interpolate_attrs *a = &op->interp;
        if (a->mode == DRS_MODE_NEAREST || a->mode == DRS_MODE_BILINEAR_PILLOW ||
            a->mode == DRS_MODE_BICUBIC_PILLOW || a->mode == DRS_MODE_AREA)
            return 1;
        if ((float)s == 1.0f || m->O == m->L) /* identity short-cut */
            return 1;
        if (a->coordinate_transformation_mode == DRS_COORD_ALIGN_CORNERS && !m->aa)
            return 1; /* integer-width align_corners */
        return 0;
    }
    return op->resize.mode == DRS_MODE_NEAREST;
}

static int out_len(const drs_gc_op *op, const double *scales, const double *roi, int d,
                   int64_t *O)
{
    int r;
    int64_t os[DRS_MAX_RANK];
    if (infer(op, scales, roi, &r, os))
        return 1;
    *O = os[d];
    return 0;
}

/* Draws scales (and roi) axis by axis; fills the kinds of their elements. */
static drs_status sample_params(drs_gc_op *op, uint64_t *seed, drs_gc_avoid *av,
                                unsigned char *skind, unsigned char *rkind)
{
    axis_info ax[DRS_MAX_RANK];
    const int nax = resolve_axes(op, ax);
    const int smode = scales_mode(op);
    const int have_roi = op->family == DRS_GC_RESIZE && op->n_roi == 2 * nax;
    const int tfcr = have_roi &&
                     op->resize.coordinate_transformation_mode == DRS_COORD_TF_CROP_AND_RESIZE &&
                     op->resize.opset != 10;
    const int roi_checked = tfcr && op->resize.mode != DRS_MODE_NEAREST;
    for (int i = 0; i < nax; i++) {
        const int has_scale = op->n_scales == nax;
        const int free_s = smode && has_scale && !op->scale_fixed[i];
        /* A scale fixed by the case (e.g. 1 on N and C) is checked once: on or
         * near a kink or a size step its gradient is compared with one-sided
         * differences (KINK: the library's kink rule). */
        int s_off = 0;
        if (has_scale && smode && !free_s) {
            int64_t O;
            if (out_len(op, op->scales, op->roi, ax[i].d, &O))
                return DRS_ERR_INVALID_ARGUMENT;
            axis_model m;
            fill_model(&m, op, ax, nax, i, O);
            const double s = op->scales[i];
            int reason = -1;
            if (!scale_grad_zero(op, &m, s)) {
                double t[DRS_MAX_RANK];
                int64_t Om, Op;
                memcpy(t, op->scales, sizeof t);
                t[i] = s - GC_PARAM_MARGIN;
                const int e1 = out_len(op, t, op->roi, ax[i].d, &Om);
                t[i] = s + GC_PARAM_MARGIN;
                const int e2 = out_len(op, t, op->roi, ax[i].d, &Op);
                if (e1 || e2 || Om != O || Op != O)
                    reason = DRS_GC_AVOID_SIZE_STEP;
                else if (!roi_checked) /* with a drawn roi: checked with each draw below */
                    reason = axis_kinks(&m, s, GC_PARAM_MARGIN, 0.0, 1.0, 0.0);
                skind[i] = DRS_GC_CHECK;
            } else {
                skind[i] = DRS_GC_ZERO;
            }
            if (reason >= 0) {
                av->fixed_on_kink++;
                skind[i] = DRS_GC_KINK;
                s_off = 1;
            }
        }
        int ok = 0;
        for (int draw = 0; draw < GC_MAX_DRAWS && !ok; draw++) {
            double s = has_scale ? op->scales[i] : 1.0;
            if (free_s)
                s = uniform(seed, op->scale_lo, op->scale_hi);
            double b = have_roi ? op->roi[i] : 0.0, e = have_roi ? op->roi[nax + i] : 1.0;
            if (roi_checked && !op->roi_fixed) {
                b = uniform(seed, -0.2, 0.45);
                e = uniform(seed, 0.55, 1.2);
            }
            const int drawn = free_s || (roi_checked && !op->roi_fixed);
            av->candidates += drawn;
            double trial_s[DRS_MAX_RANK], trial_r[2 * DRS_MAX_RANK];
            memcpy(trial_s, op->scales, sizeof trial_s);
            memcpy(trial_r, op->roi, sizeof trial_r);
            if (has_scale)
                trial_s[i] = s;
            if (have_roi) {
                trial_r[i] = b;
                trial_r[nax + i] = e;
            }
            int64_t O;
            if (out_len(op, trial_s, trial_r, ax[i].d, &O) || (drawn && O < 1)) {
                if (!drawn)
                    return DRS_ERR_INVALID_ARGUMENT;
                av->rejected[DRS_GC_AVOID_SIZE_STEP]++;
                continue;
            }
            axis_model m;
            fill_model(&m, op, ax, nax, i, O);
            const int szero = !has_scale || scale_grad_zero(op, &m, s);
            const int s_fd = has_scale && smode && !szero && !s_off; /* s is perturbed */
            const int r_fd = roi_checked;
            int reason = -1;
            if (s_fd && free_s) {
                int64_t Om, Op;
                trial_s[i] = s - GC_PARAM_MARGIN;
                const int e1 = out_len(op, trial_s, trial_r, ax[i].d, &Om);
                trial_s[i] = s + GC_PARAM_MARGIN;
                const int e2 = out_len(op, trial_s, trial_r, ax[i].d, &Op);
                trial_s[i] = s;
                if (e1 || e2 || Om != O || Op != O)
                    reason = DRS_GC_AVOID_SIZE_STEP;
                else if (fabs(s - 1.0) < 10.0 * GC_PARAM_MARGIN)
                    reason = DRS_GC_AVOID_SCALE_ONE;
            }
            if (reason < 0 && (s_fd || r_fd))
                reason = axis_kinks(&m, s, s_fd ? GC_PARAM_MARGIN : 0.0, b, e,
                                    r_fd ? GC_PARAM_MARGIN : 0.0);
            if (reason >= 0 && !drawn) { /* fixed values on a kink: one-sided differences */
                av->fixed_on_kink++;
                if (has_scale && !s_off)
                    skind[i] = s_fd ? DRS_GC_KINK : (szero ? DRS_GC_ZERO : DRS_GC_CHECK);
                if (have_roi)
                    rkind[i] = rkind[nax + i] = roi_checked ? DRS_GC_KINK : DRS_GC_ZERO;
                ok = 1;
                break;
            }
            if (reason >= 0) {
                av->rejected[reason]++;
                continue;
            }
            av->accepted += drawn;
            if (has_scale && !s_off) {
                op->scales[i] = s;
                skind[i] = szero ? DRS_GC_ZERO : DRS_GC_CHECK;
            }
            if (have_roi) {
                op->roi[i] = b;
                op->roi[nax + i] = e;
                rkind[i] = rkind[nax + i] = roi_checked ? DRS_GC_CHECK : DRS_GC_ZERO;
            }
            ok = 1;
        }
        if (!ok) { /* no kink-free draw in GC_MAX_DRAWS: one-sided differences at the given values */
            av->fixed_on_kink++;
            if (has_scale && free_s)
                skind[i] = DRS_GC_KINK;
            if (have_roi)
                rkind[i] = rkind[nax + i] = roi_checked ? DRS_GC_KINK : DRS_GC_ZERO;
        }
    }
    return DRS_OK;
}

static int summary_kind(const unsigned char *k, int64_t n)
{
    int any_check = 0, any_zero = 0;
    for (int64_t i = 0; i < n; i++) {
        any_check |= k[i] == DRS_GC_CHECK || k[i] == DRS_GC_KINK;
        any_zero |= k[i] == DRS_GC_ZERO;
    }
    return any_check ? DRS_GC_CHECK : any_zero ? DRS_GC_ZERO : DRS_GC_SKIP;
}

drs_status drs_gc_case_prepare(drs_gc_case *c, const drs_gc_op *op_in, uint64_t seed,
                               drs_gc_avoid *avoid)
{
    if (!c || !op_in)
        return DRS_ERR_INVALID_ARGUMENT;
    memset(c, 0, sizeof *c);
    c->op = *op_in;
    drs_gc_op *op = &c->op;
    drs_gc_avoid local;
    memset(&local, 0, sizeof local);
    uint64_t rs = seed * 0x9E3779B97F4A7C15ull + 0x1234567ull;

    /* The library decides whether the combination is valid. */
    int r;
    int64_t os[DRS_MAX_RANK];
    drs_status s = infer(op, op->scales, op->roi, &r, os);
    if (s)
        return s;

    const int64_t nx = numel(op->rank, op->shape);
    const int is_grid = op->family == DRS_GC_GRID_SAMPLE;
    const int64_t ng = is_grid ? numel(op->grid_rank, op->grid_shape) : 0;
    const int want_scales = (is_interp(op) && op->n_scales > 0 &&
                             !(op->family == DRS_GC_INTERPOLATE_BACKPROP && !scales_mode(op))) ||
                            (op->family == DRS_GC_RESIZE && op->n_scales > 0);
    const int want_roi = op->family == DRS_GC_RESIZE && op->n_roi > 0;
    unsigned char skind[DRS_MAX_RANK], rkind[2 * DRS_MAX_RANK];
    memset(skind, DRS_GC_SKIP, sizeof skind);
    memset(rkind, DRS_GC_SKIP, sizeof rkind);
    if (op->family == DRS_GC_INTERPOLATE || op->family == DRS_GC_INTERPOLATE_BACKPROP ||
        op->family == DRS_GC_RESIZE) {
        axis_info ax[DRS_MAX_RANK];
        const int nax = resolve_axes(op, ax);
        if ((op->n_scales && op->n_scales != nax) || (op->n_roi && op->n_roi != 2 * nax))
            return DRS_ERR_SHAPE; /* infer() accepted it: cannot happen */
        if ((s = sample_params(op, &rs, &local, skind, rkind)))
            return s;
    }
    if ((s = infer(op, op->scales, op->roi, &c->out_rank, c->out_shape)))
        return s;
    const int64_t ny = numel(c->out_rank, c->out_shape);

    const size_t nbuf = (size_t)(nx + (want_scales ? op->n_scales : 0) + (want_roi ? op->n_roi : 0) + ng);
    c->buf = malloc(sizeof(double) * (nbuf + 1));
    c->kinds = malloc((size_t)ng + 3 * DRS_MAX_RANK + 1);
    if (!c->buf || !c->kinds) {
        drs_gc_case_free(c);
        return DRS_ERR_NOMEM;
    }
    double *p = c->buf;
    unsigned char *kp = c->kinds;
    drs_gc_fn *f = &c->fn;
    f->ctx = c;
    f->error = case_error;
    f->forward = case_forward;
    f->backward = case_backward;
    f->n_out = ny;
    /* data: uniform in [-1, 1], from a stream of its own (the same data for
     * the same seed however the parameters were drawn, so a case rerun with
     * its drawn parameters fixed sees the same data) */
    uint64_t ds = seed * 0xD1B54A32D192ED03ull + 0x5BD1E995ull;
    for (int64_t i = 0; i < nx; i++)
        p[i] = uniform(&ds, -1.0, 1.0);
    f->in[0] = (drs_gc_input){"data", p, nx, DRS_GC_CHECK, NULL, 0};
    f->n_inputs = 1;
    p += nx;
    c->grad_data = DRS_GC_CHECK;
    c->grad_scales = c->grad_roi = c->grad_grid = -1;
    c->idx_scales = c->idx_roi = c->idx_grid = -1;
    if (want_scales) {
        memcpy(p, op->scales, sizeof(double) * (size_t)op->n_scales);
        memcpy(kp, skind, (size_t)op->n_scales);
        c->idx_scales = f->n_inputs;
        f->in[f->n_inputs++] = (drs_gc_input){"scales", p, op->n_scales, DRS_GC_CHECK, kp, 0};
        c->grad_scales = summary_kind(kp, op->n_scales);
        p += op->n_scales;
        kp += op->n_scales;
    }
    if (want_roi) {
        memcpy(p, op->roi, sizeof(double) * (size_t)op->n_roi);
        memcpy(kp, rkind, (size_t)op->n_roi);
        c->idx_roi = f->n_inputs;
        f->in[f->n_inputs++] = (drs_gc_input){"roi", p, op->n_roi, DRS_GC_CHECK, kp, 0};
        c->grad_roi = summary_kind(kp, op->n_roi);
        p += op->n_roi;
        kp += op->n_roi;
    }
    if (is_grid) {
        uint64_t gs = seed * 0xA24BAED4963EE407ull + 0x9FB21C651E98DF25ull; /* own stream */
        const int S = (int)op->grid_shape[op->grid_rank - 1];
        const int zero = op->grid.mode == DRS_GRID_NEAREST;
        for (int64_t i = 0; i < ng; i++) {
            const int k = (int)(i % S);
            const int64_t L = op->shape[op->rank - 1 - k];
            int ok = 0;
            for (int draw = 0; draw < GC_MAX_DRAWS && !ok; draw++) {
                const double g = uniform(&gs, -1.5, 1.5); /* some points outside, reflected or clipped */
                local.candidates++;
                const int why = grid_kinks(&op->grid, L, g);
                if (why >= 0) {
                    local.rejected[why]++;
                    continue;
                }
                local.accepted++;
                p[i] = g;
                ok = 1;
            }
            kp[i] = zero ? DRS_GC_ZERO : DRS_GC_CHECK;
            if (!ok) {
                local.fixed_on_kink++;
                p[i] = 0.0;
                kp[i] = zero ? DRS_GC_ZERO : DRS_GC_KINK;
            }
        }
        c->idx_grid = f->n_inputs;
        f->in[f->n_inputs++] = (drs_gc_input){"grid", p, ng, DRS_GC_CHECK, kp, 0};
        c->grad_grid = summary_kind(kp, ng);
    }
    /* parameter values left unchecked (DRS_GC_SKIP): none is expected */
    for (int k = 1; k < f->n_inputs; k++)
        for (int64_t j = 0; j < f->in[k].n; j++)
            local.unchecked += f->in[k].elem_kind && f->in[k].elem_kind[j] == DRS_GC_SKIP;
    if (avoid)
        drs_gc_avoid_add(avoid, &local);
    return DRS_OK;
}

void drs_gc_case_free(drs_gc_case *c)
{
    if (!c)
        return;
    free(c->buf);
    free(c->kinds);
    c->buf = NULL;
    c->kinds = NULL;
}
