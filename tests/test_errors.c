/* SPDX-License-Identifier: MIT */
/* test_errors.c — every rejection rule of docs/semantics.md, table-driven: each case
 * mutates a valid base call, and the test checks the status code, that the
 * thread-local message names the argument and the value, and that the output
 * buffer (filled with a canary pattern) is untouched. */
#include <dresample.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

static int g_fail = 0, g_cases = 0;
static unsigned char g_out[1 << 16];
static unsigned char g_canary[1 << 16];

static void verdict(const char *name, drs_status got, drs_status want, const char *m1,
                    const char *m2)
{
    g_cases++;
    const char *msg = drs_last_error();
    int ok = got == want;
    if (ok && want != DRS_OK) {
        ok = (!m1 || strstr(msg, m1)) && (!m2 || strstr(msg, m2));
    }
    if (memcmp(g_out, g_canary, sizeof g_out) != 0 && want != DRS_OK) {
        printf("FAIL %s: output buffer was written on error\n", name);
        g_fail++;
        return;
    }
    if (!ok) {
        printf("FAIL %s: status %d (%s) want %d; message '%s' (want '%s' and '%s')\n", name,
               (int)got, drs_status_str(got), (int)want, msg, m1 ? m1 : "", m2 ? m2 : "");
        g_fail++;
    }
}

static void reset_out(void) { memcpy(g_out, g_canary, sizeof g_out); }

/* ---- the backward of every case: gradients filled with the canary must be
 * untouched when the call fails.  output_delta is the forward's output view
 * (shape, dtype, data), the data gradient has the data's shape and dtype. */
static unsigned char g_dx[1 << 16];
static double g_dparam[2][32];
static int g_bwd_rejected = 0, g_bwd_accepted = 0;

static void reset_grads(void)
{
    memcpy(g_dx, g_canary, sizeof g_dx);
    memset(g_dparam, 0xA5, sizeof g_dparam);
}

static int grads_untouched(void)
{
    unsigned char c[sizeof g_dparam];
    memset(c, 0xA5, sizeof c);
    return memcmp(g_dx, g_canary, sizeof g_dx) == 0 && memcmp(g_dparam, c, sizeof c) == 0;
}

static drs_tensor like(const drs_tensor *x)
{
    drs_tensor t = x ? *x : (drs_tensor){DRS_F32, 4, {1, 1, 4, 4}, NULL};
    t.data = g_dx;
    return t;
}

/* fwd_want: the forward's expected status.  A valid forward must have a valid
 * backward; a rejected one either is rejected by the backward too (gradients
 * untouched) or concerns the forward output alone (the backward takes no
 * output), which is counted and named. */
static void bverdict(const char *name, drs_status got, drs_status fwd_want)
{
    g_cases++;
    if (fwd_want == DRS_OK) {
        if (got != DRS_OK) {
            printf("FAIL %s (backward): status %d: %s\n", name, (int)got, drs_last_error());
            g_fail++;
        }
        return;
    }
    if (got == DRS_OK) {
        g_bwd_accepted++;
        printf("note %s: forward-only rule (the backward has no output tensor to check)\n", name);
        return;
    }
    g_bwd_rejected++;
    if (!grads_untouched()) {
        printf("FAIL %s (backward): a gradient was written on error\n", name);
        g_fail++;
    }
}

/* ------------------------------------------------------------ Resize */
typedef struct {
    drs_resize_attrs a;
    drs_tensor X, Y;
    drs_resize_inputs in;
    double scales[8], roi[16];
    int64_t sizes[8];
} rcfg;

static float g_x[64];

static void rbase(rcfg *c)
{
    memset(c, 0, sizeof *c);
    c->a = drs_resize_attrs_default(19);
    c->a.mode = DRS_MODE_LINEAR;
    c->X = (drs_tensor){DRS_F32, 4, {1, 1, 4, 4}, g_x};
    c->Y = (drs_tensor){DRS_F32, 4, {1, 1, 8, 8}, g_out};
    c->scales[0] = c->scales[1] = 1;
    c->scales[2] = c->scales[3] = 2;
    c->in = (drs_resize_inputs){NULL, 0, c->scales, 4, NULL, 0};
}

static void rrun(const char *name, rcfg *c, drs_status want, const char *m1, const char *m2)
{
    reset_out();
    drs_status s = drs_resize_forward(&c->Y, &c->X, &c->in, &c->a);
    verdict(name, s, want, m1, m2);
    reset_grads();
    drs_tensor dx = like(&c->X);
    const int ns = c->in.n_scales > 0 && c->in.n_scales <= 32 && c->in.scales;
    const int nr = c->in.n_roi > 0 && c->in.n_roi <= 32 && c->in.roi &&
                   c->a.coordinate_transformation_mode == DRS_COORD_TF_CROP_AND_RESIZE;
    s = drs_resize_backward(&dx, ns ? g_dparam[0] : NULL, nr ? g_dparam[1] : NULL, &c->Y, &c->X,
                            &c->in, &c->a, DRS_GRAD_OVERWRITE);
    bverdict(name, s, want);
}

#define RCASE(name, want, m1, m2, ...)                                                         \
    do {                                                                                       \
        rcfg c;                                                                                \
        rbase(&c);                                                                             \
        __VA_ARGS__;                                                                           \
        rrun(name, &c, want, m1, m2);                                                          \
    } while (0)

static void resize_cases(void)
{
    const drs_status BAD = DRS_ERR_INVALID_ARGUMENT, SHP = DRS_ERR_SHAPE, OVF = DRS_ERR_OVERFLOW;
    RCASE("valid base", DRS_OK, NULL, NULL, (void)0);
    /* unknown values */
    RCASE("unknown opset", BAD, "opset", "12", c.a.opset = 12);
    RCASE("unknown mode", BAD, "mode", "99", c.a.mode = (drs_interp_mode)99);
    RCASE("area is not a Resize mode", BAD, "mode", "area", c.a.mode = DRS_MODE_AREA);
    RCASE("cubic at opset 10", BAD, "mode", "cubic", c.a.opset = 10; c.a.mode = DRS_MODE_CUBIC);
    RCASE("unknown coordinate mode", BAD, "coordinate_transformation_mode", "99",
          c.a.coordinate_transformation_mode = (drs_coord_mode)99);
    RCASE("tf_half_pixel_for_nn at 13", BAD, "coordinate_transformation_mode",
          "tf_half_pixel_for_nn", c.a.opset = 13;
          c.a.coordinate_transformation_mode = DRS_COORD_TF_HALF_PIXEL_FOR_NN);
    RCASE("half_pixel_symmetric at 18", BAD, "coordinate_transformation_mode",
          "half_pixel_symmetric", c.a.opset = 18;
          c.a.coordinate_transformation_mode = DRS_COORD_HALF_PIXEL_SYMMETRIC);
    RCASE("simple nearest at 11", BAD, "nearest_mode", "simple", c.a.opset = 11;
          c.a.mode = DRS_MODE_NEAREST; c.a.nearest_mode = DRS_NEAREST_SIMPLE);
    RCASE("unknown aspect policy", BAD, "keep_aspect_ratio_policy", "7",
          c.a.keep_aspect_ratio_policy = (drs_aspect_policy)7);
    RCASE("exclude_outside=2", BAD, "exclude_outside", "2", c.a.exclude_outside = 2);
    RCASE("antialias=3", BAD, "antialias", "3", c.a.antialias = 3);
    RCASE("cubic_coeff_a NaN", BAD, "cubic_coeff_a", "nan", c.a.cubic_coeff_a = NAN);
    /* invalid combinations */
    RCASE("antialias with nearest", BAD, "antialias", "nearest", c.a.mode = DRS_MODE_NEAREST;
          c.a.antialias = 1);
    RCASE("antialias at opset 13", BAD, "antialias", "opset 18", c.a.opset = 13;
          c.a.antialias = 1);
    RCASE("exclude_outside with nearest", BAD, "exclude_outside", "nearest",
          c.a.mode = DRS_MODE_NEAREST; c.a.exclude_outside = 1);
    RCASE("keep_aspect_ratio with scales", BAD, "keep_aspect_ratio_policy", "scales",
          c.a.keep_aspect_ratio_policy = DRS_ASPECT_NOT_LARGER);
    RCASE("axes attribute at opset 13", BAD, "axes", "opset 18", c.a.opset = 13; c.a.n_axes = 1;
          c.a.axes[0] = 2);
    RCASE("both scales and sizes", BAD, "scales", "sizes", c.sizes[0] = 1;
          c.in.sizes = c.sizes; c.in.n_sizes = 4);
    RCASE("neither scales nor sizes", BAD, "scales", "sizes", c.in.n_scales = 0);
    RCASE("Resize-10 with sizes", BAD, "no sizes", NULL, c.a.opset = 10; c.in.sizes = c.sizes;
          c.in.n_sizes = 4; c.sizes[0] = 1);
    RCASE("tf_crop_and_resize without roi", BAD, "roi", NULL,
          c.a.coordinate_transformation_mode = DRS_COORD_TF_CROP_AND_RESIZE);
    RCASE("roi NaN", BAD, "roi[1]", "nan", c.in.roi = c.roi; c.in.n_roi = 8; c.roi[1] = NAN);
    /* axes */
    RCASE("axes out of range", BAD, "axes[1]", "4", c.a.n_axes = 2; c.a.axes[0] = 2;
          c.a.axes[1] = 4; c.in.n_scales = 2);
    RCASE("axes below -rank", BAD, "axes[0]", "-5", c.a.n_axes = 2; c.a.axes[0] = -5;
          c.a.axes[1] = 3; c.in.n_scales = 2);
    RCASE("duplicate axes after normalising", BAD, "duplicate", "-1", c.a.n_axes = 2;
          c.a.axes[0] = 3; c.a.axes[1] = -1; c.in.n_scales = 2);
    /* lengths */
    RCASE("scales length", SHP, "scales", "3", c.in.n_scales = 3);
    RCASE("sizes length", SHP, "sizes", "2", c.in.n_scales = 0; c.in.sizes = c.sizes;
          c.in.n_sizes = 2);
    RCASE("roi length", SHP, "roi", "6", c.in.roi = c.roi; c.in.n_roi = 6);
    /* values */
    RCASE("scale zero", BAD, "scales[2]", "0", c.scales[2] = 0);
    RCASE("scale negative", BAD, "scales[3]", "-2", c.scales[3] = -2);
    RCASE("scale NaN", BAD, "scales[2]", "nan", c.scales[2] = NAN);
    RCASE("scale inf", BAD, "scales[2]", "inf", c.scales[2] = INFINITY);
    RCASE("negative size", BAD, "sizes[2]", "-3", c.in.n_scales = 0; c.in.sizes = c.sizes;
          c.in.n_sizes = 4; c.sizes[0] = c.sizes[1] = 1; c.sizes[2] = -3; c.sizes[3] = 8);
    /* ranks / tensors */
    RCASE("X rank 0", SHP, "X rank", "0", c.X.rank = 0);
    RCASE("X rank 9", SHP, "X rank", "9", c.X.rank = 9);
    RCASE("X NULL data", BAD, "X: data pointer is NULL", NULL, c.X.data = NULL);
    RCASE("X negative dim", SHP, "X shape[2]", "-4", c.X.shape[2] = -4);
    RCASE("Y rank", SHP, "Y rank", "3", c.Y.rank = 3);
    RCASE("Y shape", SHP, "Y shape[3]", "9", c.Y.shape[3] = 9);
    RCASE("Y dtype", BAD, "Y dtype", "f64", c.Y.dtype = DRS_F64);
    RCASE("Y overlaps X", BAD, "overlaps", NULL, c.X.data = g_out + 16);
    RCASE("empty X axis to non-empty output", SHP, "length 0", NULL, c.X.shape[2] = 0;
          c.in.n_scales = 0; c.in.sizes = c.sizes; c.in.n_sizes = 4; c.sizes[0] = c.sizes[1] = 1;
          c.sizes[2] = 8; c.sizes[3] = 8);
    /* overflow (TensorFlow / PyTorch CVE inputs) */
    RCASE("sizes 2065374891 x 1145309325 (bytes overflow)", OVF, "overflows", NULL,
          c.in.n_scales = 0; c.in.sizes = c.sizes; c.in.n_sizes = 4; c.sizes[0] = 1;
          c.sizes[1] = 1; c.sizes[2] = 2065374891; c.sizes[3] = 1145309325;
          c.Y.shape[2] = 2065374891; c.Y.shape[3] = 1145309325);
    RCASE("sizes 1879048192^2 x 4 channels", OVF, "overflows", NULL, c.in.n_scales = 0;
          c.X.shape[1] = 4; c.in.sizes = c.sizes; c.in.n_sizes = 4; c.sizes[0] = 1;
          c.sizes[1] = 4; c.sizes[2] = 1879048192; c.sizes[3] = 1879048192);
    RCASE("scale 1e20", OVF, "overflows", NULL, c.scales[2] = 1e20);
    RCASE("scale 1250999896765 on both axes", OVF, "overflows", NULL, c.scales[2] = 1250999896765.0;
          c.scales[3] = 1250999896765.0);
    {
        rcfg c;
        rbase(&c);
        reset_out();
        verdict("NULL attrs", drs_resize_forward(&c.Y, &c.X, &c.in, NULL), BAD, "attrs", NULL);
        reset_out();
        verdict("NULL inputs", drs_resize_forward(&c.Y, &c.X, NULL, &c.a), BAD, "inputs", NULL);
        reset_out();
        verdict("NULL output", drs_resize_forward(NULL, &c.X, &c.in, &c.a), BAD, "Y is NULL",
                NULL);
    }
}

/* ------------------------------------------------------- Interpolate */
typedef struct {
    drs_interpolate_attrs a;
    drs_tensor X, Y;
    drs_interpolate_inputs in;
    double scales[8];
    int64_t sizes[8], axes[8];
} icfg;

static void ibase(icfg *c)
{
    memset(c, 0, sizeof *c);
    c->a = drs_interpolate_attrs_default(4);
    c->a.mode = DRS_MODE_LINEAR;
    c->a.shape_calculation_mode = DRS_SHAPE_SIZES;
    c->X = (drs_tensor){DRS_F32, 4, {1, 1, 4, 4}, g_x};
    c->Y = (drs_tensor){DRS_F32, 4, {1, 1, 8, 8}, g_out};
    c->sizes[0] = c->sizes[1] = 8;
    c->scales[0] = c->scales[1] = 2;
    c->axes[0] = 2;
    c->axes[1] = 3;
    c->in = (drs_interpolate_inputs){c->sizes, 2, c->scales, 2, c->axes, 2};
}

static void irun(const char *name, icfg *c, drs_status want, const char *m1, const char *m2)
{
    reset_out();
    drs_status s = drs_interpolate_forward(&c->Y, &c->X, &c->in, &c->a);
    verdict(name, s, want, m1, m2);
    reset_grads();
    drs_tensor dx = like(&c->X);
    const int ns = c->a.shape_calculation_mode == DRS_SHAPE_SCALES && c->in.scales &&
                   c->in.n_scales > 0 && c->in.n_scales <= 32;
    s = drs_interpolate_backward(&dx, ns ? g_dparam[0] : NULL, &c->Y, &c->X, &c->in, &c->a,
                                 DRS_GRAD_OVERWRITE);
    bverdict(name, s, want);
}

#define ICASE(name, want, m1, m2, ...)                                                         \
    do {                                                                                       \
        icfg c;                                                                                \
        ibase(&c);                                                                             \
        __VA_ARGS__;                                                                           \
        irun(name, &c, want, m1, m2);                                                          \
    } while (0)

static void interpolate_cases(void)
{
    const drs_status BAD = DRS_ERR_INVALID_ARGUMENT, SHP = DRS_ERR_SHAPE, OVF = DRS_ERR_OVERFLOW;
    ICASE("valid base", DRS_OK, NULL, NULL, (void)0);
    ICASE("valid base v11 pillow", DRS_OK, NULL, NULL, c.a.version = 11;
          c.a.mode = DRS_MODE_BICUBIC_PILLOW);
    ICASE("valid base v1", DRS_OK, NULL, NULL, c.a.version = 1);
    ICASE("unknown version", BAD, "version", "5", c.a.version = 5);
    ICASE("pillow at v4", BAD, "mode", "bilinear_pillow", c.a.mode = DRS_MODE_BILINEAR_PILLOW);
    ICASE("area at v4", BAD, "mode", "area", c.a.mode = DRS_MODE_AREA);
    ICASE("linear_onnx at v1", BAD, "mode", "linear_onnx", c.a.version = 1;
          c.a.mode = DRS_MODE_LINEAR_ONNX);
    ICASE("unknown mode", BAD, "mode", "42", c.a.mode = (drs_interp_mode)42);
    ICASE("tf_crop_and_resize in OpenVINO", BAD, "coordinate_transformation_mode",
          "tf_crop_and_resize", c.a.coordinate_transformation_mode = DRS_COORD_TF_CROP_AND_RESIZE);
    ICASE("unknown nearest mode", BAD, "nearest_mode", "9", c.a.nearest_mode = (drs_nearest_mode)9);
    ICASE("unknown shape_calculation_mode", BAD, "shape_calculation_mode", "4",
          c.a.shape_calculation_mode = (drs_shape_calc)4);
    ICASE("antialias with nearest", BAD, "antialias", "nearest", c.a.mode = DRS_MODE_NEAREST;
          c.a.antialias = 1);
    ICASE("cube_coeff inf", BAD, "cube_coeff", "inf", c.a.cube_coeff = INFINITY);
    ICASE("align_corners=2 (v1)", BAD, "align_corners", "2", c.a.version = 1;
          c.a.align_corners = 2);
    ICASE("pillow with 3 axes", BAD, "exactly 2 axes", "3", c.a.version = 11;
          c.a.mode = DRS_MODE_BILINEAR_PILLOW; c.in.n_axes = 3; c.axes[2] = 1; c.in.n_sizes = 3;
          c.sizes[2] = 1);
    ICASE("linear_onnx reversed axes", BAD, "linear_onnx", "axes", c.a.mode = DRS_MODE_LINEAR_ONNX;
          c.axes[0] = 3; c.axes[1] = 2);
    ICASE("linear_onnx axes {1,2}", BAD, "linear_onnx", "axes", c.a.mode = DRS_MODE_LINEAR_ONNX;
          c.axes[0] = 1; c.axes[1] = 2; c.Y.shape[1] = 8; c.Y.shape[3] = 4);
    ICASE("linear_onnx rank 1", BAD, "linear_onnx", "rank 1", c.a.mode = DRS_MODE_LINEAR_ONNX;
          c.X.rank = 1; c.X.shape[0] = 4; c.in.n_axes = 1; c.axes[0] = 0; c.in.n_sizes = 1);
    ICASE("linear_onnx all axes resizing N", BAD, "linear_onnx", "axis 0",
          c.a.mode = DRS_MODE_LINEAR_ONNX; c.a.shape_calculation_mode = DRS_SHAPE_SCALES;
          c.in.n_axes = 4; c.axes[0] = 0; c.axes[1] = 1; c.axes[2] = 2; c.axes[3] = 3;
          c.in.n_scales = 4; c.scales[0] = 2; c.scales[1] = 1; c.scales[2] = 2; c.scales[3] = 2);
    ICASE("negative axis (OpenVINO)", BAD, "axes[0]", "-1", c.axes[0] = -1);
    ICASE("axis out of range", BAD, "axes[1]", "4", c.axes[1] = 4);
    ICASE("duplicate axes", BAD, "duplicate", "3", c.axes[0] = 3);
    ICASE("v1 without axes", BAD, "axes", "required", c.a.version = 1; c.in.axes = NULL);
    ICASE("v1 pads on a non-axis", BAD, "pads", "axis 1", c.a.version = 1; c.a.n_pads_begin = 2;
          c.a.pads_begin[1] = 1);
    ICASE("sizes length", SHP, "sizes", "3", c.in.n_sizes = 3);
    ICASE("scales length", SHP, "scales", "1", c.a.shape_calculation_mode = DRS_SHAPE_SCALES;
          c.in.n_scales = 1);
    ICASE("scales missing", BAD, "scales", "required", c.a.shape_calculation_mode = DRS_SHAPE_SCALES;
          c.in.scales = NULL);
    ICASE("target_spatial_shape missing", BAD, "target_spatial_shape", NULL, c.a.version = 1;
          c.in.sizes = NULL);
    ICASE("pads_begin longer than rank", SHP, "pads_begin", "5", c.a.n_pads_begin = 5);
    ICASE("negative pad", BAD, "pads_end[2]", "-1", c.a.n_pads_end = 3; c.a.pads_end[2] = -1);
    ICASE("scale -2", BAD, "scales[1]", "-2", c.a.shape_calculation_mode = DRS_SHAPE_SCALES;
          c.scales[1] = -2);
    ICASE("scale NaN", BAD, "scales[0]", "nan", c.a.shape_calculation_mode = DRS_SHAPE_SCALES;
          c.scales[0] = NAN);
    ICASE("negative size", BAD, "sizes[1]", "-8", c.sizes[1] = -8);
    ICASE("output shape mismatch", SHP, "output shape[2]", "7", c.Y.shape[2] = 7);
    {
        icfg c;
        ibase(&c);
        c.a.version = 11;
        reset_out();
        verdict("image NULL (v11)", drs_interpolate_forward(&c.Y, NULL, &c.in, &c.a), BAD,
                "image is NULL", NULL);
    }
    ICASE("scale 1e20", OVF, "overflows", NULL, c.a.shape_calculation_mode = DRS_SHAPE_SCALES;
          c.scales[0] = 1e20);
    ICASE("pad overflow", OVF, "overflows", NULL, c.a.n_pads_begin = 3;
          c.a.pads_begin[2] = INT64_MAX);
}

/* ------------------------------------------------------- Torch preset */
typedef struct {
    drs_torch_interpolate_attrs a;
    drs_tensor X, Y;
} tcfg;

static void tbase(tcfg *c)
{
    memset(c, 0, sizeof *c);
    c->a = drs_torch_interpolate_attrs_default();
    c->a.mode = DRS_TORCH_BILINEAR;
    c->a.n_size = 2;
    c->a.size[0] = c->a.size[1] = 8;
    c->X = (drs_tensor){DRS_F32, 4, {1, 1, 4, 4}, g_x};
    c->Y = (drs_tensor){DRS_F32, 4, {1, 1, 8, 8}, g_out};
}

#define TCASE(name, want, m1, m2, ...)                                                         \
    do {                                                                                       \
        tcfg c;                                                                                \
        tbase(&c);                                                                             \
        __VA_ARGS__;                                                                           \
        reset_out();                                                                           \
        verdict(name, drs_torch_interpolate_forward(&c.Y, &c.X, &c.a), want, m1, m2);          \
        reset_grads();                                                                         \
        drs_tensor dx_ = like(&c.X);                                                           \
        bverdict(name, drs_torch_interpolate_backward(&dx_, &c.Y, &c.X, &c.a,                  \
                                                      DRS_GRAD_OVERWRITE), want);              \
    } while (0)

static void torch_cases(void)
{
    const drs_status BAD = DRS_ERR_INVALID_ARGUMENT, SHP = DRS_ERR_SHAPE;
    TCASE("valid base", DRS_OK, NULL, NULL, (void)0);
    TCASE("bilinear on 3-D", SHP, "bilinear", "3-D", c.X.rank = 3; c.Y.rank = 3);
    TCASE("align_corners with nearest", BAD, "align_corners", "nearest",
          c.a.mode = DRS_TORCH_NEAREST; c.a.align_corners = 0);
    TCASE("antialias with trilinear", BAD, "antialias", NULL, c.a.mode = DRS_TORCH_NEAREST;
          c.a.antialias = 1);
    TCASE("both size and scale_factor", BAD, "size", "scale_factor", c.a.n_scale_factor = 1;
          c.a.scale_factor[0] = 2);
    TCASE("recompute with size", BAD, "recompute_scale_factor", NULL,
          c.a.recompute_scale_factor = 1);
    TCASE("size length 3 on 4-D", SHP, "size", "3", c.a.n_size = 3);
    TCASE("scale_factor -1", BAD, "scale_factor[0]", "-1", c.a.n_size = 0; c.a.n_scale_factor = 1;
          c.a.scale_factor[0] = -1);
    TCASE("u8 bilinear", DRS_ERR_UNSUPPORTED, "f32/f64", "u8", c.X.dtype = DRS_U8;
          c.Y.dtype = DRS_U8);
    TCASE("rank 6", SHP, "rank 6", NULL, c.X.rank = 6; c.Y.rank = 6);
}

static void empty_cases(void)
{
    /* A zero-length dimension is valid and gives an empty output. */
    rcfg c;
    rbase(&c);
    c.X.shape[0] = 0;
    c.Y.shape[0] = 0;
    rrun("empty batch", &c, DRS_OK, NULL, NULL);
    /* an empty batch with huge sizes: the non-zero extents times 4 bytes
     * overflow 64 bits, so the shape is rejected although it holds nothing */
    rbase(&c);
    c.X.shape[0] = 0;
    c.in.n_scales = 0;
    c.in.sizes = c.sizes;
    c.in.n_sizes = 4;
    c.sizes[0] = 0;
    c.sizes[1] = 1;
    c.sizes[2] = 2065374891;
    c.sizes[3] = 1145309325;
    c.Y = (drs_tensor){DRS_F32, 4, {0, 1, 2065374891, 1145309325}, NULL};
    rrun("empty batch with huge sizes", &c, DRS_ERR_OVERFLOW, "non-zero extents", "2065374891");
}

/* ------------------------------------------------------------ shape bounds */
/* Every op, forward and backward: an output (or output_delta) shape whose
 * non-zero extents times the element size overflow 64 bits is rejected even
 * when the batch is empty; one element less and it is a valid empty call.
 * f32: 2^30 x 2^31 x 4 bytes = 2^63 overflows, 2^30 x (2^31 - 1) x 4 fits. */
static void bound_verdict(const char *op, const char *what, int fits, drs_status s)
{
    char name[160];
    snprintf(name, sizeof name, "shape bound %s %s (%s)", op, what, fits ? "fits" : "overflows");
    if (fits)
        verdict(name, s, DRS_OK, NULL, NULL);
    else
        verdict(name, s, DRS_ERR_OVERFLOW, "non-zero extents", fits ? NULL : "2147483648");
}

static void shape_bound_cases(void)
{
    const int64_t H = (int64_t)1 << 30;
    for (int fits = 0; fits <= 1; fits++) {
        const int64_t W = ((int64_t)1 << 31) - fits;
        int r;
        int64_t os[DRS_MAX_RANK];
        drs_tensor X = {DRS_F32, 4, {0, 1, 1, 1}, NULL};
        drs_tensor Y = {DRS_F32, 4, {0, 1, H, W}, NULL};
        drs_tensor dx = X;
        double ds[4];
        int64_t numel = -1;
        bound_verdict("drs_tensor_numel", "", fits, drs_tensor_numel(&Y, &numel));
        if (fits && numel != 0) {
            printf("FAIL drs_tensor_numel of an empty tensor: %lld\n", (long long)numel);
            g_fail++;
        }
        /* OpenVINO Interpolate-1/4/11 and InterpolateBackprop-4, sizes mode */
        for (int v = 0; v < 4; v++) {
            const int ver = v == 0 ? 1 : v == 2 ? 11 : 4;
            const char *op = v == 0 ? "Interpolate-1" : v == 1 ? "Interpolate-4"
                             : v == 2 ? "Interpolate-11" : "InterpolateBackprop-4";
            drs_interpolate_attrs a = drs_interpolate_attrs_default(ver);
            a.mode = DRS_MODE_LINEAR;
            const int64_t sz[2] = {H, W}, axes[2] = {2, 3};
            drs_interpolate_inputs in = {sz, 2, NULL, 0, axes, 2};
            if (v < 3) {
                bound_verdict(op, "infer_shape", fits,
                              drs_interpolate_infer_shape(&a, &X, &in, &r, os));
                bound_verdict(op, "forward", fits, drs_interpolate_forward(&Y, &X, &in, &a));
                bound_verdict(op, "backward", fits,
                              drs_interpolate_backward(&dx, NULL, &Y, &X, &in, &a,
                                                       DRS_GRAD_OVERWRITE));
            } else {
                bound_verdict(op, "input_delta", fits,
                              drs_interpolate_backprop(&dx, NULL, &X, &Y, &in, &a,
                                                       DRS_GRAD_OVERWRITE));
            }
        }
        /* the same through scales: Interpolate-4 scales mode, with scales_delta */
        {
            drs_interpolate_attrs a = drs_interpolate_attrs_default(4);
            a.mode = DRS_MODE_LINEAR;
            a.shape_calculation_mode = DRS_SHAPE_SCALES;
            /* a margin for the scales mode (it rounds in f32); the shape comes from
             * infer_shape */
            const double sc[2] = {(double)H, (double)W - (fits ? 127 : 0)}; /* f32-exact */
            const int64_t axes[2] = {2, 3};
            drs_interpolate_inputs in = {NULL, 0, sc, 2, axes, 2};
            drs_tensor Ys = Y;
            drs_status si = drs_interpolate_infer_shape(&a, &X, &in, &r, os);
            bound_verdict("Interpolate-4 scales", "infer_shape", fits, si);
            if (si == DRS_OK)
                memcpy(Ys.shape, os, sizeof os);
            bound_verdict("Interpolate-4 scales", "forward", fits,
                          drs_interpolate_forward(&Ys, &X, &in, &a));
            bound_verdict("Interpolate-4 scales", "scales_delta", fits,
                          drs_interpolate_backward(NULL, ds, &Ys, &X, &in, &a,
                                                   DRS_GRAD_OVERWRITE));
            bound_verdict("InterpolateBackprop-4 scales", "scales_delta", fits,
                          drs_interpolate_backprop(&dx, ds, &X, &Ys, &in, &a,
                                                   DRS_GRAD_OVERWRITE));
        }
        /* ONNX Resize-10 (scales only) and 11..19 (sizes) */
        const int opsets[5] = {10, 11, 13, 18, 19};
        for (int k = 0; k < 5; k++) {
            char op[32];
            snprintf(op, sizeof op, "Resize-%d", opsets[k]);
            drs_resize_attrs a = drs_resize_attrs_default(opsets[k]);
            a.mode = opsets[k] == 10 ? DRS_MODE_LINEAR : DRS_MODE_CUBIC;
            const double sc[4] = {1, 1, (double)H, (double)W};
            const int64_t sz[4] = {0, 1, H, W};
            drs_resize_inputs in = opsets[k] == 10
                                       ? (drs_resize_inputs){NULL, 0, sc, 4, NULL, 0}
                                       : (drs_resize_inputs){NULL, 0, NULL, 0, sz, 4};
            bound_verdict(op, "infer_shape", fits, drs_resize_infer_shape(&a, &X, &in, &r, os));
            bound_verdict(op, "forward", fits, drs_resize_forward(&Y, &X, &in, &a));
            bound_verdict(op, "backward", fits,
                          drs_resize_backward(&dx, opsets[k] == 10 ? ds : NULL, NULL, &Y, &X,
                                              &in, &a, DRS_GRAD_OVERWRITE));
        }
        /* PyTorch preset */
        {
            drs_torch_interpolate_attrs a = drs_torch_interpolate_attrs_default();
            a.mode = DRS_TORCH_BILINEAR;
            a.n_size = 2;
            a.size[0] = H;
            a.size[1] = W;
            bound_verdict("TorchInterpolate", "infer_shape", fits,
                          drs_torch_interpolate_infer_shape(&a, &X, &r, os));
            bound_verdict("TorchInterpolate", "forward", fits,
                          drs_torch_interpolate_forward(&Y, &X, &a));
            bound_verdict("TorchInterpolate", "backward", fits,
                          drs_torch_interpolate_backward(&dx, &Y, &X, &a, DRS_GRAD_OVERWRITE));
        }
        /* GridSample: data [0, C, 1, 1(, 1)], grid [0, 2^30, 1(, 1), S]: data
         * and grid fit, the output [0, C, 2^30, 1(, 1)] does not when C = 2^31 */
        const int versions[4] = {9, 16, 20, 22};
        for (int k = 0; k < 6; k++) {
            const int ver = versions[k < 4 ? k : k - 2], S = k < 4 ? 2 : 3;
            char op[40];
            snprintf(op, sizeof op, "GridSample-%d %dD", ver, S + 2);
            drs_grid_sample_attrs a = drs_grid_sample_attrs_default(ver);
            drs_tensor D = {DRS_F32, S + 2, {0, W, 1, 1, 1}, NULL};
            drs_tensor G = {DRS_F32, S + 2, {0, H, 1, 1, S}, NULL};
            G.shape[S + 1] = S;
            drs_tensor O = {DRS_F32, S + 2, {0, W, H, 1, 1}, NULL};
            drs_tensor dD = D, dG = G;
            bound_verdict(op, "infer_shape", fits,
                          drs_grid_sample_infer_shape(&a, &D, &G, &r, os));
            bound_verdict(op, "forward", fits, drs_grid_sample_forward(&O, &D, &G, &a));
            bound_verdict(op, "backward", fits,
                          drs_grid_sample_backward(&dD, &dG, &O, &D, &G, &a,
                                                   DRS_GRAD_OVERWRITE));
            bound_verdict(op, "grid_delta only", fits,
                          drs_grid_sample_backward(NULL, &dG, &O, &D, &G, &a,
                                                   DRS_GRAD_OVERWRITE));
        }
    }
}

int main(void)
{
    memset(g_canary, 0xA5, sizeof g_canary);
    for (int i = 0; i < 64; i++)
        g_x[i] = (float)i;
    resize_cases();
    interpolate_cases();
    torch_cases();
    empty_cases();
    shape_bound_cases();
    printf("backward: %d rejections checked with canary gradients, %d forward-only rules\n",
           g_bwd_rejected, g_bwd_accepted);
    printf("test_errors: %d cases, %d failed\n", g_cases, g_fail);
    return g_fail ? 1 : 0;
}
