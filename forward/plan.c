/* SPDX-License-Identifier: MIT */
/* plan.c — lowers every op version (OpenVINO Interpolate-1/4/11, ONNX
 * Resize-10..19, the PyTorch preset) onto one drs_plan, validating every
 * argument first.  Nothing here touches tensor data; the public forward calls
 * build a plan, check the output view against it and hand it to
 * drs_plan_execute().  Serial. */
#include "core.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define FAIL(st, ...) return drs__fail((st), __VA_ARGS__)

/* ------------------------------------------------------------ helpers */
static int axis_in(const int *axes, int n, int a)
{
    for (int i = 0; i < n; i++)
        if (axes[i] == a)
            return 1;
    return 0;
}

/* Reads a user axes list into out[] (normalising negatives when allowed),
 * rejecting out-of-range and duplicate values.  NULL/0 -> all axes. */
static drs_status read_axes(const char *op, const int64_t *axes, int n, int rank, int allow_neg,
                            int required, int *out, int *nout)
{
    if (!axes || n <= 0) {
        if (required)
            FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: axes is required", op);
        for (int i = 0; i < rank; i++)
            out[i] = i;
        *nout = rank;
        return DRS_OK;
    }
    if (n > rank)
        FAIL(DRS_ERR_SHAPE, "%s: axes has %d entries but data rank is %d", op, n, rank);
    for (int i = 0; i < n; i++) {
        int64_t a = axes[i];
        if (allow_neg && a < 0 && a >= -rank)
            a += rank;
        if (a < 0 || a >= rank)
            FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: axes[%d] must be in [%d, %d], got %lld", op, i,
                 allow_neg ? -rank : 0, rank - 1, (long long)axes[i]);
        if (axis_in(out, i, (int)a))
            FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: axes[%d] = %lld is a duplicate", op, i,
                 (long long)axes[i]);
        out[i] = (int)a;
    }
    *nout = n;
    return DRS_OK;
}

static drs_status check_scale(const char *op, const char *name, int i, double s)
{
    if (!(s > 0.0) || isinf(s))
        FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: %s[%d] must be a finite value > 0, got %g", op, name, i,
             s);
    return DRS_OK;
}

static drs_status check_size(const char *op, const char *name, int i, int64_t v)
{
    if (v < 0)
        FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: %s[%d] must be >= 0, got %lld", op, name, i,
             (long long)v);
    return DRS_OK;
}

/* Output length of floor(L * s) (ONNX) or trunc of a float32 product (OV). */
static drs_status len_from_double(const char *op, int axis, double v, int64_t *O)
{
    if (!(v < 9.2e18))
        FAIL(DRS_ERR_OVERFLOW, "%s: output length of axis %d overflows 64 bits (%g)", op, axis, v);
    *O = (int64_t)v;
    return DRS_OK;
}

static void plan_init(drs_plan *p, const char *op, const drs_tensor *x)
{
    memset(p, 0, sizeof *p);
    p->op = op;
    p->dtype = x->dtype;
    p->rank = x->rank;
    for (int i = 0; i < x->rank; i++)
        p->in_shape[i] = p->out_shape[i] = x->shape[i];
}

static drs_axis_plan *add_pass(drs_plan *p, int axis)
{
    drs_axis_plan *ap = &p->pass[p->npass++];
    memset(ap, 0, sizeof *ap);
    ap->axis = axis;
    ap->in_len = p->in_shape[axis];
    ap->L = ap->in_len;
    ap->scale = 1.0;
    ap->aa_scale = 1.0;
    ap->cubic_a = -0.75;
    ap->roi_end = 1.0;
    ap->param_index = -1;
    return ap;
}

static drs_status finish_axis(const drs_plan *p, const drs_axis_plan *ap)
{
    if (ap->L == 0 && ap->O > 0)
        FAIL(DRS_ERR_SHAPE, "%s: axis %d has input length 0 but output length %lld", p->op,
             ap->axis, (long long)ap->O);
    return DRS_OK;
}

/* Orders passes: shrinking axes first (less work downstream).  Stable, so
 * equal ratios keep their listed order.  Pillow plans keep their fixed order. */
static void order_passes(drs_plan *p)
{
    for (int i = 1; i < p->npass; i++) {
        drs_axis_plan cur = p->pass[i];
        const double r = cur.L ? (double)cur.O / (double)cur.L : 0.0;
        int j = i - 1;
        while (j >= 0) {
            const double rj = p->pass[j].L ? (double)p->pass[j].O / (double)p->pass[j].L : 0.0;
            if (rj <= r)
                break;
            p->pass[j + 1] = p->pass[j];
            j--;
        }
        p->pass[j + 1] = cur;
    }
}

/* The output shape must be one a consumer can hold: the product of its
 * non-zero extents times the element size fits in 64 bits, even when another
 * extent is 0 (TensorFlow and PyTorch CVEs: sizes like 2065374891 x
 * 1145309325; an empty batch with 536870912 x 1250999896764). */
static drs_status plan_finish(drs_plan *p)
{
    return drs__check_extents(p->op, "output from the requested sizes or scales", p->rank,
                              p->out_shape, drs_dtype_size(p->dtype), NULL);
}

static drs_status check_data(const char *op, const char *name, const drs_tensor *x)
{
    return drs__check_tensor(op, name, x, NULL);
}

/* =====================================================================
 * OpenVINO Interpolate-1 / -4 / -11
 * ===================================================================== */
drs_interpolate_attrs drs_interpolate_attrs_default(int version)
{
    drs_interpolate_attrs a;
    memset(&a, 0, sizeof a);
    a.version = version;
    a.mode = DRS_MODE_NEAREST;
    a.shape_calculation_mode = DRS_SHAPE_SIZES;
    a.coordinate_transformation_mode = DRS_COORD_HALF_PIXEL;
    a.nearest_mode = DRS_NEAREST_ROUND_PREFER_FLOOR;
    a.antialias = 0;
    a.align_corners = 1;
    a.cube_coeff = -0.75;
    return a;
}

drs_status drs_plan_interpolate(drs_plan *p, const drs_interpolate_attrs *at, const drs_tensor *x,
                              const drs_interpolate_inputs *in)
{
    if (!at)
        FAIL(DRS_ERR_INVALID_ARGUMENT, "Interpolate: attrs is NULL");
    const char *op = at->version == 1    ? "Interpolate-1"
                     : at->version == 4  ? "Interpolate-4"
                     : at->version == 11 ? "Interpolate-11"
                                         : NULL;
    if (!op)
        FAIL(DRS_ERR_INVALID_ARGUMENT, "Interpolate: version must be 1, 4 or 11, got %d",
             at->version);
    drs_status st = check_data(op, at->version == 11 ? "image" : "data", x);
    if (st)
        return st;
    if (!in)
        FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: inputs is NULL", op);
    plan_init(p, op, x);
    const int rank = x->rank;
    const int v = at->version;

    /* ---- mode / attribute vocabulary per version ---- */
    const drs_interp_mode mode = at->mode;
    int mode_ok;
    if (v == 1)
        mode_ok = mode == DRS_MODE_NEAREST || mode == DRS_MODE_LINEAR || mode == DRS_MODE_CUBIC ||
                  mode == DRS_MODE_AREA;
    else if (v == 4)
        mode_ok = mode == DRS_MODE_NEAREST || mode == DRS_MODE_LINEAR ||
                  mode == DRS_MODE_LINEAR_ONNX || mode == DRS_MODE_CUBIC;
    else
        mode_ok = mode == DRS_MODE_NEAREST || mode == DRS_MODE_LINEAR ||
                  mode == DRS_MODE_LINEAR_ONNX || mode == DRS_MODE_CUBIC ||
                  mode == DRS_MODE_BILINEAR_PILLOW || mode == DRS_MODE_BICUBIC_PILLOW;
    if (!mode_ok)
        FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: mode '%s' (%d) is not supported by this version", op,
             drs_interp_mode_str(mode), (int)mode);
    const int pillow = mode == DRS_MODE_BILINEAR_PILLOW || mode == DRS_MODE_BICUBIC_PILLOW;
    const drs_coord_mode cm = at->coordinate_transformation_mode;
    if (v != 1 && !(cm == DRS_COORD_HALF_PIXEL || cm == DRS_COORD_PYTORCH_HALF_PIXEL ||
                    cm == DRS_COORD_ASYMMETRIC || cm == DRS_COORD_TF_HALF_PIXEL_FOR_NN ||
                    cm == DRS_COORD_ALIGN_CORNERS))
        FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: coordinate_transformation_mode '%s' (%d) is not valid",
             op, drs_coord_mode_str(cm), (int)cm);
    if (v != 1 && ((int)at->nearest_mode < 0 || at->nearest_mode > DRS_NEAREST_SIMPLE))
        FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: nearest_mode %d is not valid", op,
             (int)at->nearest_mode);
    if (v != 1 && at->shape_calculation_mode != DRS_SHAPE_SIZES &&
        at->shape_calculation_mode != DRS_SHAPE_SCALES)
        FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: shape_calculation_mode %d is not valid", op,
             (int)at->shape_calculation_mode);
    if (at->antialias != 0 && at->antialias != 1)
        FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: antialias must be 0 or 1, got %d", op, at->antialias);
    if (at->antialias && mode == DRS_MODE_NEAREST)
        FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: antialias=1 is not valid with mode nearest", op);
    if (!isfinite(at->cube_coeff))
        FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: cube_coeff must be finite, got %g", op, at->cube_coeff);

    /* ---- pads: zero-extended to the rank, never longer, never negative ---- */
    int64_t pb[DRS_MAX_RANK] = {0}, pe[DRS_MAX_RANK] = {0};
    if (at->n_pads_begin < 0 || at->n_pads_begin > rank)
        FAIL(DRS_ERR_SHAPE, "%s: pads_begin has %d entries, data rank is %d", op, at->n_pads_begin,
             rank);
    if (at->n_pads_end < 0 || at->n_pads_end > rank)
        FAIL(DRS_ERR_SHAPE, "%s: pads_end has %d entries, data rank is %d", op, at->n_pads_end,
             rank);
    for (int i = 0; i < at->n_pads_begin; i++) {
        if (at->pads_begin[i] < 0)
            FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: pads_begin[%d] must be >= 0, got %lld", op, i,
                 (long long)at->pads_begin[i]);
        pb[i] = at->pads_begin[i];
    }
    for (int i = 0; i < at->n_pads_end; i++) {
        if (at->pads_end[i] < 0)
            FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: pads_end[%d] must be >= 0, got %lld", op, i,
                 (long long)at->pads_end[i]);
        pe[i] = at->pads_end[i];
    }
    int64_t padded[DRS_MAX_RANK];
    int any_pad = 0;
    for (int i = 0; i < rank; i++) {
        if (drs__add_overflow(x->shape[i], pb[i], &padded[i]) ||
            drs__add_overflow(padded[i], pe[i], &padded[i]))
            FAIL(DRS_ERR_OVERFLOW, "%s: padded length of axis %d overflows", op, i);
        any_pad |= pb[i] != 0 || pe[i] != 0;
    }

    /* ---- axes ---- */
    int axes[DRS_MAX_RANK], nax;
    drs_status s = read_axes(op, in->axes, in->n_axes, rank, 0, v == 1, axes, &nax);
    if (s)
        return s;
    if (v == 1) { /* AxisSet: ascending order */
        for (int i = 1; i < nax; i++)
            for (int j = i; j > 0 && axes[j - 1] > axes[j]; j--) {
                int t = axes[j];
                axes[j] = axes[j - 1];
                axes[j - 1] = t;
            }
        for (int i = 0; i < rank; i++)
            if ((pb[i] || pe[i]) && !axis_in(axes, nax, i))
                FAIL(DRS_ERR_INVALID_ARGUMENT,
                     "%s: pads on axis %d, which is not in axes, are not supported", op, i);
    }
    if (pillow && nax != 2)
        FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: mode %s needs exactly 2 axes, got %d", op,
             drs_interp_mode_str(mode), nax);

    /* ---- sizes / scales ---- */
    const int use_scales = v != 1 && at->shape_calculation_mode == DRS_SHAPE_SCALES;
    if (use_scales) {
        if (!in->scales)
            FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: scales is required in scales mode", op);
        if (in->n_scales != nax)
            FAIL(DRS_ERR_SHAPE, "%s: scales has %d entries but there are %d axes", op,
                 in->n_scales, nax);
        for (int i = 0; i < nax; i++)
            if ((s = check_scale(op, "scales", i, in->scales[i])))
                return s;
    } else {
        const char *nm = v == 1 ? "target_spatial_shape" : "sizes";
        if (!in->sizes)
            FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: %s is required", op, nm);
        if (in->n_sizes != nax)
            FAIL(DRS_ERR_SHAPE, "%s: %s has %d entries but there are %d axes", op, nm, in->n_sizes,
                 nax);
        for (int i = 0; i < nax; i++)
            if ((s = check_size(op, nm, i, in->sizes[i])))
                return s;
    }

    /* ---- v1 -> v4 lowering (as OpenVINO's reference evaluates v1) ---- */
    drs_interp_mode m4 = mode;
    drs_coord_mode cm4 = cm;
    drs_nearest_mode nm4 = at->nearest_mode;
    double a4 = at->cube_coeff;
    if (v == 1) {
        if (at->align_corners != 0 && at->align_corners != 1)
            FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: align_corners must be 0 or 1, got %d", op,
                 at->align_corners);
        nm4 = DRS_NEAREST_SIMPLE;
        a4 = -0.75;
        if (mode == DRS_MODE_LINEAR)
            m4 = rank < 5 ? DRS_MODE_LINEAR_ONNX : DRS_MODE_LINEAR;
        const int nchw_spatial = rank == 4 && nax == 2 && axes[0] == 2 && axes[1] == 3;
        if (at->align_corners)
            cm4 = DRS_COORD_ALIGN_CORNERS;
        else if (mode == DRS_MODE_LINEAR && !any_pad && !nchw_spatial)
            cm4 = DRS_COORD_HALF_PIXEL;
        else
            cm4 = DRS_COORD_ASYMMETRIC;
    }

    /* ---- linear_onnx axis rule (OpenVINO linear_onnx_func), v4/v11 ---- */
    if (v != 1 && m4 == DRS_MODE_LINEAR_ONNX) {
        int ok = 0, all = nax == rank, spatial = 0;
        for (int i = 0; i < nax && all; i++)
            all = axes[i] == i;
        if (rank >= 4) {
            spatial = nax == rank - 2;
            for (int i = 0; i < nax && spatial; i++)
                spatial = axes[i] == i + 2;
        }
        ok = rank >= 2 && (all || spatial);
        if (!ok)
            FAIL(DRS_ERR_INVALID_ARGUMENT,
                 "%s: linear_onnx needs axes = all axes in order%s (rank %d)", op,
                 rank >= 4 ? " or the spatial axes 2..rank-1 in order" : "", rank);
        if (all && rank >= 4) {
            for (int i = 0; i < 2; i++) {
                const int bad = use_scales ? in->scales[i] != 1.0 : in->sizes[i] != padded[i];
                if (bad)
                    FAIL(DRS_ERR_INVALID_ARGUMENT,
                         "%s: linear_onnx with all axes cannot resize axis %d (batch/channel)",
                         op, i);
            }
        }
    }

    /* ---- output shape ---- */
    for (int i = 0; i < rank; i++)
        p->out_shape[i] = v == 1 ? x->shape[i] : padded[i];
    double coord_scale[DRS_MAX_RANK];
    for (int i = 0; i < nax; i++) {
        const int d = axes[i];
        int64_t O = 0;
        double sc;
        if (use_scales) {
            const float sf = (float)in->scales[i];
            if (sf == 1.0f) {
                O = padded[d];
            } else {
                const float prod = (float)padded[d] * (sf + 1e-6f);
                if ((s = len_from_double(op, d, (double)prod, &O)))
                    return s;
            }
            sc = in->scales[i];
        } else {
            O = in->sizes[i];
            sc = padded[d] ? (double)((float)O / (float)padded[d]) : 1.0;
        }
        p->out_shape[d] = O;
        coord_scale[i] = sc;
    }

    /* ---- passes ---- */
    for (int i = 0; i < nax; i++) {
        const int d = axes[i];
        drs_axis_plan *ap = add_pass(p, d);
        ap->param_index = i;
        ap->pad_begin = pb[d];
        ap->L = padded[d];
        ap->O = p->out_shape[d];
        ap->scale = coord_scale[i];
        ap->out_width = (double)ap->O;
        ap->coord = cm4;
        ap->nearest = nm4;
        ap->cubic_a = a4;
        ap->coord_shortcut = !pillow && ((float)ap->scale == 1.0f || ap->O == ap->L);
        ap->ov_f32 = 1;
        ap->scale_is_param = use_scales;
        switch (m4) {
        case DRS_MODE_NEAREST: ap->kernel = DRS_K_NEAREST; break;
        case DRS_MODE_LINEAR:
            ap->kernel = DRS_K_LINEAR_OV;
            ap->antialias = at->antialias;
            ap->aa_scale = at->antialias && ap->scale < 1.0 ? ap->scale : 1.0;
            break;
        case DRS_MODE_LINEAR_ONNX: ap->kernel = DRS_K_LINEAR_CLAMP; break;
        case DRS_MODE_CUBIC: ap->kernel = DRS_K_ONNX_CUBIC; break;
        case DRS_MODE_AREA: ap->kernel = DRS_K_AREA; break;
        case DRS_MODE_BILINEAR_PILLOW:
        case DRS_MODE_BICUBIC_PILLOW:
            ap->kernel = m4 == DRS_MODE_BILINEAR_PILLOW ? DRS_K_PIL_LINEAR : DRS_K_PIL_CUBIC;
            ap->aa_scale = ap->O ? (double)ap->L / (double)ap->O : 1.0;
            break;
        }
        if ((s = finish_axis(p, ap)))
            return s;
    }
    if (v != 1) /* pads on axes that are not resized: identity-with-offset passes */
        for (int d = 0; d < rank; d++)
            if ((pb[d] || pe[d]) && !axis_in(axes, nax, d)) {
                drs_axis_plan *ap = add_pass(p, d);
                ap->kernel = DRS_K_IDENTITY;
                ap->pad_begin = pb[d];
                ap->L = padded[d];
                ap->O = padded[d];
                ap->out_width = (double)ap->O;
            }
    if (pillow) { /* Pillow: horizontal (axes[1]) pass first, then vertical */
        drs_axis_plan t = p->pass[0];
        p->pass[0] = p->pass[1];
        p->pass[1] = t;
        p->round_each_pass = 1;
    } else {
        order_passes(p);
    }
    p->rounding = (m4 == DRS_MODE_LINEAR_ONNX || m4 == DRS_MODE_CUBIC) ? DRS_ROUND_TRUNC
                                                                       : DRS_ROUND_HALF_AWAY;
    return plan_finish(p);
}

drs_status drs_interpolate_infer_shape(const drs_interpolate_attrs *attrs, const drs_tensor *data,
                                       const drs_interpolate_inputs *in, int *out_rank,
                                       int64_t out_shape[DRS_MAX_RANK])
{
    drs_plan p;
    drs__clear_error();
    if (!out_rank || !out_shape)
        FAIL(DRS_ERR_INVALID_ARGUMENT, "Interpolate: out_rank/out_shape is NULL");
    drs_tensor shape_only;
    if (data) { /* shape inference does not need the data pointer */
        shape_only = *data;
        shape_only.data = (void *)1;
        data = &shape_only;
    }
    drs_status s = drs_plan_interpolate(&p, attrs, data, in);
    if (s)
        return s;
    *out_rank = p.rank;
    memcpy(out_shape, p.out_shape, sizeof(int64_t) * (size_t)p.rank);
    return DRS_OK;
}

drs_status drs_interpolate_forward(drs_tensor *output, const drs_tensor *data,
                                   const drs_interpolate_inputs *in,
                                   const drs_interpolate_attrs *attrs)
{
    drs_plan p;
    drs__clear_error();
    drs_status s = drs_plan_interpolate(&p, attrs, data, in);
    if (!s)
        s = drs_plan_check_output(&p, output, data);
    /* integer linear / linear_onnx / cubic: OpenVINO's float32 arithmetic */
    if (!s)
        s = drs_plan_execute(&p, output, data);
    return s;
}

/* =====================================================================
 * ONNX Resize-10 / 11 / 13 / 18 / 19
 * ===================================================================== */
drs_resize_attrs drs_resize_attrs_default(int opset)
{
    drs_resize_attrs a;
    memset(&a, 0, sizeof a);
    a.opset = opset;
    a.mode = DRS_MODE_NEAREST;
    a.coordinate_transformation_mode =
        opset == 10 ? DRS_COORD_ASYMMETRIC : DRS_COORD_HALF_PIXEL;
    a.nearest_mode = opset == 10 ? DRS_NEAREST_SIMPLE : DRS_NEAREST_ROUND_PREFER_FLOOR;
    a.cubic_coeff_a = -0.75;
    a.keep_aspect_ratio_policy = DRS_ASPECT_STRETCH;
    return a;
}

drs_status drs_plan_resize(drs_plan *p, const drs_resize_attrs *at, const drs_tensor *x,
                              const drs_resize_inputs *in)
{
    static char opname[5][12] = {"Resize-10", "Resize-11", "Resize-13", "Resize-18", "Resize-19"};
    if (!at)
        FAIL(DRS_ERR_INVALID_ARGUMENT, "Resize: attrs is NULL");
    const int v = at->opset;
    const char *op = v == 10   ? opname[0]
                     : v == 11 ? opname[1]
                     : v == 13 ? opname[2]
                     : v == 18 ? opname[3]
                     : v == 19 ? opname[4]
                               : NULL;
    if (!op)
        FAIL(DRS_ERR_INVALID_ARGUMENT, "Resize: opset must be 10, 11, 13, 18 or 19, got %d", v);
    drs_status s = check_data(op, "X", x);
    if (s)
        return s;
    if (!in)
        FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: inputs is NULL", op);
    plan_init(p, op, x);
    const int rank = x->rank;

    const drs_interp_mode mode = at->mode;
    if (!(mode == DRS_MODE_NEAREST || mode == DRS_MODE_LINEAR ||
          (v >= 11 && mode == DRS_MODE_CUBIC)))
        FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: mode '%s' (%d) is not valid", op,
             drs_interp_mode_str(mode), (int)mode);
    drs_coord_mode cm = at->coordinate_transformation_mode;
    drs_nearest_mode nm = at->nearest_mode;
    if (v == 10) { /* ORT/OpenVINO convention: asymmetric + simple */
        cm = DRS_COORD_ASYMMETRIC;
        nm = DRS_NEAREST_SIMPLE;
    } else {
        const int cm_ok = (int)cm >= 0 && cm <= DRS_COORD_HALF_PIXEL_SYMMETRIC &&
                          !(cm == DRS_COORD_TF_HALF_PIXEL_FOR_NN && v >= 13) &&
                          !(cm == DRS_COORD_HALF_PIXEL_SYMMETRIC && v < 19);
        if (!cm_ok)
            FAIL(DRS_ERR_INVALID_ARGUMENT,
                 "%s: coordinate_transformation_mode '%s' (%d) is not valid at this opset", op,
                 drs_coord_mode_str(cm), (int)cm);
        if ((int)nm < 0 || nm > DRS_NEAREST_CEIL)
            FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: nearest_mode '%s' (%d) is not valid", op,
                 drs_nearest_mode_str(nm), (int)nm);
    }
    if (at->exclude_outside != 0 && at->exclude_outside != 1)
        FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: exclude_outside must be 0 or 1, got %d", op,
             at->exclude_outside);
    if (at->exclude_outside && (v == 10 || mode == DRS_MODE_NEAREST))
        FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: exclude_outside=1 is not valid with mode %s", op,
             drs_interp_mode_str(mode));
    if (!isfinite(at->cubic_coeff_a))
        FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: cubic_coeff_a must be finite, got %g", op,
             at->cubic_coeff_a);
    if (isnan(at->extrapolation_value))
        FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: extrapolation_value must not be NaN", op);
    if (at->antialias != 0 && at->antialias != 1)
        FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: antialias must be 0 or 1, got %d", op, at->antialias);
    if (at->antialias && v < 18)
        FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: antialias needs opset 18 or later", op);
    if (at->antialias && mode == DRS_MODE_NEAREST)
        FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: antialias=1 is not valid with mode nearest", op);
    const drs_aspect_policy pol = at->keep_aspect_ratio_policy;
    if ((int)pol < 0 || pol > DRS_ASPECT_NOT_SMALLER)
        FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: keep_aspect_ratio_policy %d is not valid", op,
             (int)pol);
    if (pol != DRS_ASPECT_STRETCH && v < 18)
        FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: keep_aspect_ratio_policy needs opset 18 or later", op);
    if (at->n_axes && v < 18)
        FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: the axes attribute needs opset 18 or later", op);
    if (at->n_axes < 0 || at->n_axes > DRS_MAX_RANK)
        FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: n_axes must be in [0, %d], got %d", op, DRS_MAX_RANK,
             at->n_axes);

    int axes[DRS_MAX_RANK], nax;
    if ((s = read_axes(op, at->n_axes ? at->axes : NULL, at->n_axes, rank, 1, 0, axes, &nax)))
        return s;

    const int have_scales = in->scales && in->n_scales > 0;
    const int have_sizes = in->sizes && in->n_sizes > 0;
    const int have_roi = in->roi && in->n_roi > 0;
    if (v == 10) {
        if (!have_scales)
            FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: scales is required", op);
        if (have_sizes || have_roi)
            FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: takes no sizes or roi input", op);
    }
    if (have_scales && have_sizes)
        FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: only one of scales and sizes may be given", op);
    if (!have_scales && !have_sizes)
        FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: one of scales and sizes is required", op);
    if (have_scales && pol != DRS_ASPECT_STRETCH)
        FAIL(DRS_ERR_INVALID_ARGUMENT,
             "%s: keep_aspect_ratio_policy must be stretch when scales are given", op);
    if (have_scales && in->n_scales != nax)
        FAIL(DRS_ERR_SHAPE, "%s: scales has %d entries, expected %d", op, in->n_scales, nax);
    if (have_sizes && in->n_sizes != nax)
        FAIL(DRS_ERR_SHAPE, "%s: sizes has %d entries, expected %d", op, in->n_sizes, nax);
    if (have_roi && in->n_roi != 2 * nax)
        FAIL(DRS_ERR_SHAPE, "%s: roi has %d entries, expected %d", op, in->n_roi, 2 * nax);
    if (cm == DRS_COORD_TF_CROP_AND_RESIZE && !have_roi)
        FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: tf_crop_and_resize needs a roi input", op);
    if (have_roi)
        for (int i = 0; i < 2 * nax; i++)
            if (!isfinite(in->roi[i]))
                FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: roi[%d] must be finite, got %g", op, i,
                     in->roi[i]);
    for (int i = 0; have_scales && i < nax; i++)
        if ((s = check_scale(op, "scales", i, in->scales[i])))
            return s;
    for (int i = 0; have_sizes && i < nax; i++)
        if ((s = check_size(op, "sizes", i, in->sizes[i])))
            return s;

    /* ---- output lengths and coordinate scales (ONNX-REF _interpolate_nd) ---- */
    double sc[DRS_MAX_RANK];
    int64_t O[DRS_MAX_RANK];
    if (have_scales) {
        for (int i = 0; i < nax; i++) {
            sc[i] = in->scales[i];
            if ((s = len_from_double(op, axes[i], floor(sc[i] * (double)x->shape[axes[i]]), &O[i])))
                return s;
        }
    } else if (pol == DRS_ASPECT_STRETCH) {
        for (int i = 0; i < nax; i++) {
            O[i] = in->sizes[i];
            const int64_t L = x->shape[axes[i]];
            sc[i] = L ? (double)O[i] / (double)L : 1.0;
        }
    } else {
        double common = 0.0;
        for (int i = 0; i < nax; i++) {
            const int64_t L = x->shape[axes[i]];
            if (L == 0)
                FAIL(DRS_ERR_SHAPE, "%s: keep_aspect_ratio_policy with an empty axis %d", op,
                     axes[i]);
            const double r = (double)in->sizes[i] / (double)L;
            if (i == 0 || (pol == DRS_ASPECT_NOT_LARGER ? r < common : r > common))
                common = r;
        }
        for (int i = 0; i < nax; i++) {
            sc[i] = common;
            if ((s = len_from_double(op, axes[i], common * (double)x->shape[axes[i]] + 0.5, &O[i])))
                return s;
        }
    }
    for (int i = 0; i < nax; i++) {
        const int d = axes[i];
        p->out_shape[d] = O[i];
        drs_axis_plan *ap = add_pass(p, d);
        ap->param_index = i;
        ap->O = O[i];
        ap->scale = sc[i];
        ap->out_width = sc[i] * (double)ap->L; /* ONNX-REF's fractional width */
        ap->coord = cm;
        ap->nearest = nm;
        ap->cubic_a = at->cubic_coeff_a;
        ap->exclude_outside = at->exclude_outside;
        ap->antialias = at->antialias;
        ap->onnx_ref = 1;
        ap->scale_is_param = have_scales;
        if (have_roi) {
            ap->roi_start = in->roi[i];
            ap->roi_end = in->roi[nax + i];
        }
        ap->kernel = mode == DRS_MODE_NEAREST  ? DRS_K_NEAREST
                     : mode == DRS_MODE_LINEAR ? DRS_K_ONNX_LINEAR
                                               : DRS_K_ONNX_CUBIC;
        if ((s = finish_axis(p, ap)))
            return s;
    }
    p->rounding = DRS_ROUND_HALF_EVEN;
    p->has_extrapolation = cm == DRS_COORD_TF_CROP_AND_RESIZE;
    p->extrapolation_value = at->extrapolation_value;
    order_passes(p);
    return plan_finish(p);
}

drs_status drs_resize_infer_shape(const drs_resize_attrs *attrs, const drs_tensor *X,
                                  const drs_resize_inputs *in, int *out_rank,
                                  int64_t out_shape[DRS_MAX_RANK])
{
    drs_plan p;
    drs__clear_error();
    if (!out_rank || !out_shape)
        FAIL(DRS_ERR_INVALID_ARGUMENT, "Resize: out_rank/out_shape is NULL");
    drs_tensor shape_only;
    if (X) {
        shape_only = *X;
        shape_only.data = (void *)1;
        X = &shape_only;
    }
    drs_status s = drs_plan_resize(&p, attrs, X, in);
    if (s)
        return s;
    *out_rank = p.rank;
    memcpy(out_shape, p.out_shape, sizeof(int64_t) * (size_t)p.rank);
    return DRS_OK;
}

drs_status drs_resize_forward(drs_tensor *Y, const drs_tensor *X, const drs_resize_inputs *in,
                              const drs_resize_attrs *attrs)
{
    drs_plan p;
    drs__clear_error();
    drs_status s = drs_plan_resize(&p, attrs, X, in);
    if (!s)
        s = drs_plan_check_output(&p, Y, X);
    if (!s)
        s = drs_plan_execute(&p, Y, X);
    return s;
}

/* =====================================================================
 * PyTorch F.interpolate preset
 * ===================================================================== */
drs_torch_interpolate_attrs drs_torch_interpolate_attrs_default(void)
{
    drs_torch_interpolate_attrs a;
    memset(&a, 0, sizeof a);
    a.mode = DRS_TORCH_NEAREST;
    a.align_corners = -1;
    a.recompute_scale_factor = -1;
    return a;
}

drs_status drs_plan_torch(drs_plan *p, const drs_torch_interpolate_attrs *at,
                             const drs_tensor *x)
{
    const char *op = "TorchInterpolate";
    if (!at)
        FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: attrs is NULL", op);
    drs_status s = check_data(op, "input", x);
    if (s)
        return s;
    plan_init(p, op, x);
    const int rank = x->rank, nsp = rank - 2;
    if (rank < 3 || rank > 5)
        FAIL(DRS_ERR_SHAPE, "%s: input must be 3-D, 4-D or 5-D, got rank %d", op, rank);
    const drs_torch_mode m = at->mode;
    if ((int)m < 0 || m > DRS_TORCH_AREA)
        FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: mode %d is not valid", op, (int)m);
    static const char *const mname[] = {"nearest", "nearest-exact", "linear", "bilinear",
                                        "bicubic", "trilinear",     "area"};
    const int need_rank = m == DRS_TORCH_LINEAR                                 ? 3
                          : (m == DRS_TORCH_BILINEAR || m == DRS_TORCH_BICUBIC) ? 4
                          : m == DRS_TORCH_TRILINEAR                            ? 5
                                                                                : 0;
    if (need_rank && rank != need_rank)
        FAIL(DRS_ERR_SHAPE, "%s: mode %s needs a %d-D input, got %d-D", op, mname[m], need_rank,
             rank);
    const int interp = m == DRS_TORCH_LINEAR || m == DRS_TORCH_BILINEAR ||
                       m == DRS_TORCH_BICUBIC || m == DRS_TORCH_TRILINEAR;
    if (at->align_corners < -1 || at->align_corners > 1)
        FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: align_corners must be -1 (None), 0 or 1, got %d", op,
             at->align_corners);
    if (!interp && at->align_corners != -1)
        FAIL(DRS_ERR_INVALID_ARGUMENT,
             "%s: align_corners can only be set with the interpolating modes, not %s", op,
             mname[m]);
    if (at->antialias != 0 && at->antialias != 1)
        FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: antialias must be 0 or 1, got %d", op, at->antialias);
    if (at->antialias && !(m == DRS_TORCH_BILINEAR || m == DRS_TORCH_BICUBIC))
        FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: antialias is only supported for bilinear and bicubic",
             op);
    if (at->recompute_scale_factor < -1 || at->recompute_scale_factor > 1)
        FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: recompute_scale_factor must be -1, 0 or 1, got %d", op,
             at->recompute_scale_factor);
    const int has_size = at->n_size != 0, has_sf = at->n_scale_factor != 0;
    if (has_size == has_sf)
        FAIL(DRS_ERR_INVALID_ARGUMENT, "%s: exactly one of size and scale_factor must be given",
             op);
    if (has_size && at->recompute_scale_factor == 1)
        FAIL(DRS_ERR_INVALID_ARGUMENT,
             "%s: recompute_scale_factor is not meaningful with an explicit size", op);
    if (has_size && at->n_size != 1 && at->n_size != nsp)
        FAIL(DRS_ERR_SHAPE, "%s: size has %d entries, expected 1 or %d", op, at->n_size, nsp);
    if (has_sf && at->n_scale_factor != 1 && at->n_scale_factor != nsp)
        FAIL(DRS_ERR_SHAPE, "%s: scale_factor has %d entries, expected 1 or %d", op,
             at->n_scale_factor, nsp);
    if (x->dtype != DRS_F32 && x->dtype != DRS_F64 &&
        !(m == DRS_TORCH_NEAREST || m == DRS_TORCH_NEAREST_EXACT))
        FAIL(DRS_ERR_UNSUPPORTED, "%s: mode %s supports f32/f64 data only, got %s", op, mname[m],
             drs_dtype_name(x->dtype));
    const int align = at->align_corners == 1;
    for (int i = 0; i < nsp; i++) {
        const int d = i + 2;
        const int64_t L = x->shape[d];
        int64_t O = 0;
        double sf = 0.0;
        if (has_size) {
            O = at->size[at->n_size == 1 ? 0 : i];
            if ((s = check_size(op, "size", i, O)))
                return s;
        } else {
            sf = at->scale_factor[at->n_scale_factor == 1 ? 0 : i];
            if ((s = check_scale(op, "scale_factor", i, sf)))
                return s;
            if ((s = len_from_double(op, d, floor((double)L * sf), &O)))
                return s;
        }
        const int use_sf = has_sf && at->recompute_scale_factor != 1;
        p->out_shape[d] = O;
        drs_axis_plan *ap = add_pass(p, d);
        ap->param_index = i;
        ap->O = O;
        ap->out_width = (double)O;
        /* coordinate scale s (c = (o+.5)/s - .5); PyTorch's own scale is 1/s */
        ap->scale = use_sf ? sf : (L ? (double)O / (double)L : 1.0);
        const double tscale = use_sf ? 1.0 / sf : (O ? (double)L / (double)O : 0.0);
        ap->coord = align ? DRS_COORD_ALIGN_CORNERS : DRS_COORD_HALF_PIXEL;
        switch (m) {
        case DRS_TORCH_NEAREST:
        case DRS_TORCH_NEAREST_EXACT:
            ap->kernel = m == DRS_TORCH_NEAREST ? DRS_K_TORCH_NEAREST : DRS_K_TORCH_NEAREST_EXACT;
            /* PyTorch 1.13 dispatches a C == 1 tensor (which is also channels-last
             * contiguous) to the channels-last kernel, which uses nearest_idx */
            ap->torch_nearest_idx = rank >= 4 && x->shape[1] == 1;
            /* compute_scales_value<float>: (float)(1.0/sf) or (float)L / O */
            ap->aa_scale = use_sf ? (double)(float)(1.0 / sf)
                                  : (O ? (double)((float)L / (float)O) : 0.0);
            break;
        case DRS_TORCH_AREA:
            ap->kernel = DRS_K_AREA;
            break;
        case DRS_TORCH_BICUBIC:
            if (at->antialias) {
                ap->kernel = DRS_K_PIL_CUBIC;
                ap->cubic_a = -0.5;
                ap->aa_scale = align ? (O > 1 ? (double)(L - 1) / (double)(O - 1) : 0.0) : tscale;
            } else {
                ap->kernel = DRS_K_ONNX_CUBIC;
                ap->cubic_a = -0.75;
            }
            break;
        default: /* linear, bilinear, trilinear */
            if (at->antialias) {
                ap->kernel = DRS_K_PIL_LINEAR;
                ap->aa_scale = align ? (O > 1 ? (double)(L - 1) / (double)(O - 1) : 0.0) : tscale;
            } else {
                ap->kernel = DRS_K_LINEAR_CLAMP;
                ap->torch_clamp0 = !align;
                /* PyTorch copies an axis whose length is unchanged, whatever the
                 * scale_factor (scale_factor=1.1 on L=5 returns the input) */
                ap->coord_shortcut = O == L;
            }
            break;
        }
        if ((s = finish_axis(p, ap)))
            return s;
    }
    p->rounding = DRS_ROUND_HALF_AWAY; /* integers: nearest modes only (exact) */
    order_passes(p);
    return plan_finish(p);
}

drs_status drs_torch_interpolate_infer_shape(const drs_torch_interpolate_attrs *attrs,
                                             const drs_tensor *input, int *out_rank,
                                             int64_t out_shape[DRS_MAX_RANK])
{
    drs_plan p;
    drs__clear_error();
    if (!out_rank || !out_shape)
        FAIL(DRS_ERR_INVALID_ARGUMENT, "TorchInterpolate: out_rank/out_shape is NULL");
    drs_tensor shape_only;
    if (input) {
        shape_only = *input;
        shape_only.data = (void *)1;
        input = &shape_only;
    }
    drs_status s = drs_plan_torch(&p, attrs, input);
    if (s)
        return s;
    *out_rank = p.rank;
    memcpy(out_shape, p.out_shape, sizeof(int64_t) * (size_t)p.rank);
    return DRS_OK;
}

drs_status drs_torch_interpolate_forward(drs_tensor *output, const drs_tensor *input,
                                         const drs_torch_interpolate_attrs *attrs)
{
    drs_plan p;
    drs__clear_error();
    drs_status s = drs_plan_torch(&p, attrs, input);
    if (!s)
        s = drs_plan_check_output(&p, output, input);
    if (!s)
        s = drs_plan_execute(&p, output, input);
    return s;
}
