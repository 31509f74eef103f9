/* SPDX-License-Identifier: MIT */
/* test_forward.c — hand-computed values for every mode and coordinate mode,
 * including the known edge cases of the op families (output-size rounding,
 * length 1, rounding ties, pads, axis order, Resize-10, roi).  Every expected
 * number below was worked out by hand from the formulas (the comment shows
 * the coordinate c or the arithmetic); none comes from this library. */
#include <dresample.h>

#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static void expect(const char *name, const double *got, const double *want, int n, double tol)
{
    for (int i = 0; i < n; i++) {
        g_checks++;
        if (!(fabs(got[i] - want[i]) <= tol)) {
            g_fail++;
            printf("FAIL %s: [%d] got %.9g want %.9g\n", name, i, got[i], want[i]);
        }
    }
}

/* ---- 1-D helpers (rank 1, f64) ---- */
static drs_status resize1d(int opset, drs_interp_mode mode, drs_coord_mode cm, const double *x,
                           int64_t L, const double *scale, const int64_t *size, double *y,
                           int64_t *O, drs_resize_attrs *extra)
{
    drs_resize_attrs a = extra ? *extra : drs_resize_attrs_default(opset);
    a.opset = opset;
    a.mode = mode;
    if (opset != 10)
        a.coordinate_transformation_mode = cm;
    drs_tensor X = {DRS_F64, 1, {L}, (void *)x};
    drs_resize_inputs in = {NULL, 0, scale, scale ? 1 : 0, size, size ? 1 : 0};
    int r;
    int64_t shp[8];
    drs_status s = drs_resize_infer_shape(&a, &X, &in, &r, shp);
    if (s)
        return s;
    *O = shp[0];
    drs_tensor Y = {DRS_F64, 1, {shp[0]}, y};
    return drs_resize_forward(&Y, &X, &in, &a);
}

static drs_status resize1d_roi(drs_interp_mode mode, const double *x, int64_t L, int64_t size,
                               const double roi[2], double ev, double *y)
{
    drs_resize_attrs a = drs_resize_attrs_default(19);
    a.mode = mode;
    a.coordinate_transformation_mode = DRS_COORD_TF_CROP_AND_RESIZE;
    a.extrapolation_value = ev;
    drs_tensor X = {DRS_F64, 1, {L}, (void *)x};
    drs_resize_inputs in = {roi, 2, NULL, 0, &size, 1};
    drs_tensor Y = {DRS_F64, 1, {size}, y};
    return drs_resize_forward(&Y, &X, &in, &a);
}

static drs_status interp1d(drs_interpolate_attrs a, const double *x, int64_t L,
                           const double *scale, const int64_t *size, double *y, int64_t *O)
{
    drs_tensor X = {DRS_F64, 1, {L}, (void *)x};
    const int64_t ax = 0;
    drs_interpolate_inputs in = {size, size ? 1 : 0, scale, scale ? 1 : 0, &ax, 1};
    if (a.version != 1)
        a.shape_calculation_mode = scale ? DRS_SHAPE_SCALES : DRS_SHAPE_SIZES;
    int r;
    int64_t shp[8];
    drs_status s = drs_interpolate_infer_shape(&a, &X, &in, &r, shp);
    if (s)
        return s;
    *O = shp[0];
    drs_tensor Y = {DRS_F64, 1, {shp[0]}, y};
    return drs_interpolate_forward(&Y, &X, &in, &a);
}

static int64_t ov_len(int64_t L, double s)
{
    drs_interpolate_attrs a = drs_interpolate_attrs_default(4);
    a.shape_calculation_mode = DRS_SHAPE_SCALES;
    drs_tensor X = {DRS_F64, 1, {L}, (void *)1};
    const int64_t ax = 0;
    drs_interpolate_inputs in = {NULL, 0, &s, 1, &ax, 1};
    int r;
    int64_t shp[8];
    if (drs_interpolate_infer_shape(&a, &X, &in, &r, shp))
        return -1;
    return shp[0];
}

static int64_t onnx_len(int64_t L, double s)
{
    drs_resize_attrs a = drs_resize_attrs_default(19);
    drs_tensor X = {DRS_F64, 1, {L}, (void *)1};
    drs_resize_inputs in = {NULL, 0, &s, 1, NULL, 0};
    int r;
    int64_t shp[8];
    if (drs_resize_infer_shape(&a, &X, &in, &r, shp))
        return -1;
    return shp[0];
}

static const double X4[4] = {1, 2, 3, 4};

static void test_output_size_rules(void)
{
    /* OpenVINO int64(float(L)*(s+1e-6f)) vs ONNX floor(L*double(float s)) */
    struct { int64_t L; float s; int64_t ov, onnx; } c[] = {
        {10, 0.7f, 7, 6}, {10, 0.9f, 9, 8}, {20, 0.35f, 7, 6}, {100, 0.29f, 29, 28},
        {10, 2.3f, 23, 22}, {5, 0.6f, 3, 3}, {4, 0.6f, 2, 2}, {3, 1.2f, 3, 3}};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        CHECK(ov_len(c[i].L, c[i].s) == c[i].ov, "OV len L=%lld s=%g: got %lld want %lld",
              (long long)c[i].L, c[i].s, (long long)ov_len(c[i].L, c[i].s), (long long)c[i].ov);
        CHECK(onnx_len(c[i].L, c[i].s) == c[i].onnx, "ONNX len L=%lld s=%g: got %lld want %lld",
              (long long)c[i].L, c[i].s, (long long)onnx_len(c[i].L, c[i].s),
              (long long)c[i].onnx);
    }
}

static void test_coordinate_modes(void)
{
    double y[16];
    int64_t O;
    double s;
    /* L=4, s=0.6 -> O=2; c = (o+.5)/.6-.5 = 1/3, 2 */
    s = (double)0.6f;
    CHECK(!resize1d(19, DRS_MODE_LINEAR, DRS_COORD_HALF_PIXEL, X4, 4, &s, NULL, y, &O, NULL), "%s",
          drs_last_error());
    expect("half_pixel s=0.6", y, (double[]){1.0 + (0.5 / (double)0.6f - 0.5), 3.0}, 2, 1e-7);
    /* align_corners with ONNX's fractional width 2.4: c(1) = 3/1.4 */
    CHECK(!resize1d(19, DRS_MODE_LINEAR, DRS_COORD_ALIGN_CORNERS, X4, 4, &s, NULL, y, &O, NULL),
          "%s", drs_last_error());
    expect("align_corners fractional", y, (double[]){1.0, 1.0 + 3.0 / (4.0 * (double)0.6f - 1.0)},
           2, 1e-9);
    /* OpenVINO: integer O -> c(1) = 3 */
    drs_interpolate_attrs a = drs_interpolate_attrs_default(4);
    a.mode = DRS_MODE_LINEAR_ONNX;
    a.coordinate_transformation_mode = DRS_COORD_ALIGN_CORNERS;
    drs_tensor X2 = {DRS_F64, 2, {1, 4}, (void *)X4};
    {
        const double sc[2] = {1.0, 0.6};
        drs_interpolate_inputs in = {NULL, 0, sc, 2, NULL, 0};
        a.shape_calculation_mode = DRS_SHAPE_SCALES;
        drs_tensor Y = {DRS_F64, 2, {1, 2}, y};
        CHECK(!drs_interpolate_forward(&Y, &X2, &in, &a), "%s", drs_last_error());
        expect("OV align_corners integer O", y, (double[]){1, 4}, 2, 1e-12);
    }
    /* asymmetric: c = o/s, s = 2 -> 0, .5, 1, 1.5, 2, 2.5, 3, 3.5 */
    s = 2.0;
    CHECK(!resize1d(19, DRS_MODE_LINEAR, DRS_COORD_ASYMMETRIC, X4, 4, &s, NULL, y, &O, NULL), "%s",
          drs_last_error());
    expect("asymmetric x2", y, (double[]){1, 1.5, 2, 2.5, 3, 3.5, 4, 4}, 8, 1e-12);
    /* tf_half_pixel_for_nn (Resize-11): c = (o+.5)/2 -> nearest floor: .25 .75 1.25 ... */
    drs_resize_attrs ra = drs_resize_attrs_default(11);
    ra.nearest_mode = DRS_NEAREST_FLOOR;
    CHECK(!resize1d(11, DRS_MODE_NEAREST, DRS_COORD_TF_HALF_PIXEL_FOR_NN, X4, 4, &s, NULL, y, &O,
                    &ra),
          "%s", drs_last_error());
    expect("tf_half_pixel_for_nn floor", y, (double[]){1, 1, 2, 2, 3, 3, 4, 4}, 8, 0);
    /* output length 1 */
    const int64_t one = 1;
    CHECK(!resize1d(19, DRS_MODE_LINEAR, DRS_COORD_ALIGN_CORNERS, X4, 4, NULL, &one, y, &O, NULL),
          "%s", drs_last_error());
    expect("O=1 align_corners -> c=0", y, (double[]){1}, 1, 0);
    CHECK(!resize1d(19, DRS_MODE_LINEAR, DRS_COORD_HALF_PIXEL, X4, 4, NULL, &one, y, &O, NULL),
          "%s", drs_last_error());
    expect("O=1 half_pixel -> centre c=1.5", y, (double[]){2.5}, 1, 1e-12);
    /* pytorch_half_pixel O=1: ONNX-REF c=-0.5; cubic on [1,2,3,4]:
     * taps -2..1 (edge 1,1,1,2) weights W(1.5),W(.5),W(.5),W(1.5) with a=-0.75:
     * W(.5)=.59375, W(1.5)=-.09375 -> 1*(-.09375+.59375+.59375) + 2*(-.09375) = .90625 */
    CHECK(!resize1d(19, DRS_MODE_CUBIC, DRS_COORD_PYTORCH_HALF_PIXEL, X4, 4, NULL, &one, y, &O,
                    NULL),
          "%s", drs_last_error());
    expect("ONNX pytorch_half_pixel O=1 cubic", y, (double[]){0.90625}, 1, 1e-12);
    /* OpenVINO pytorch_half_pixel O=1: c = 0 -> 1.0 */
    a = drs_interpolate_attrs_default(4);
    a.mode = DRS_MODE_CUBIC;
    a.coordinate_transformation_mode = DRS_COORD_PYTORCH_HALF_PIXEL;
    CHECK(!interp1d(a, X4, 4, NULL, &one, y, &O), "%s", drs_last_error());
    expect("OV pytorch_half_pixel O=1 cubic", y, (double[]){1.0}, 1, 1e-12);
    /* input length 1, align_corners: c = 0 for every o (no division by L-1 = 0) */
    const int64_t three = 3;
    const double x1[1] = {7};
    CHECK(!resize1d(19, DRS_MODE_CUBIC, DRS_COORD_ALIGN_CORNERS, x1, 1, NULL, &three, y, &O, NULL),
          "%s", drs_last_error());
    expect("L=1 align_corners", y, (double[]){7, 7, 7}, 3, 1e-12);
    /* half_pixel_symmetric, L=4 s=0.6: O=2, width 2.4, offset 2*(1-2/2.4)=1/3;
     * c = 1/3 + (o+.5)/.6 - .5 -> 2/3, 7/3 */
    s = 0.6;
    CHECK(!resize1d(19, DRS_MODE_LINEAR, DRS_COORD_HALF_PIXEL_SYMMETRIC, X4, 4, &s, NULL, y, &O,
                    NULL),
          "%s", drs_last_error());
    expect("half_pixel_symmetric", y, (double[]){1 + 2.0 / 3, 1 + 7.0 / 3}, 2, 1e-12);
    /* with s*L integer it equals half_pixel: s = .5 -> c = .5, 2.5 */
    s = 0.5;
    CHECK(!resize1d(19, DRS_MODE_LINEAR, DRS_COORD_HALF_PIXEL_SYMMETRIC, X4, 4, &s, NULL, y, &O,
                    NULL),
          "%s", drs_last_error());
    expect("half_pixel_symmetric integer", y, (double[]){1.5, 3.5}, 2, 1e-12);
}

static void test_ov_shortcut(void)
{
    /* L=3, s=1.2 -> O = 3 == L: OpenVINO returns the input; ONNX does not:
     * c = (o+.5)/1.2-.5 = -1/12, .75, 19/12 -> 1, 1.75, 2+7/12*2 */
    const double x[3] = {1, 2, 4};
    double y[4];
    int64_t O;
    double s = 1.2;
    drs_interpolate_attrs a = drs_interpolate_attrs_default(4);
    drs_interp_mode modes[] = {DRS_MODE_NEAREST, DRS_MODE_LINEAR, DRS_MODE_LINEAR_ONNX,
                               DRS_MODE_CUBIC};
    for (int m = 0; m < 4; m++) {
        a.mode = modes[m];
        if (modes[m] == DRS_MODE_LINEAR_ONNX) { /* needs rank >= 2: use [1, 3] */
            drs_tensor X = {DRS_F64, 2, {1, 3}, (void *)x};
            const double sc[2] = {1.0, 1.2};
            drs_interpolate_inputs in = {NULL, 0, sc, 2, NULL, 0};
            a.shape_calculation_mode = DRS_SHAPE_SCALES;
            drs_tensor Y = {DRS_F64, 2, {1, 3}, y};
            CHECK(!drs_interpolate_forward(&Y, &X, &in, &a), "%s", drs_last_error());
        } else {
            CHECK(!interp1d(a, x, 3, &s, NULL, y, &O), "%s", drs_last_error());
            CHECK(O == 3, "O=%lld", (long long)O);
        }
        expect("OV short-circuit", y, x, 3, 0);
    }
    CHECK(!resize1d(19, DRS_MODE_LINEAR, DRS_COORD_HALF_PIXEL, x, 3, &s, NULL, y, &O, NULL), "%s",
          drs_last_error());
    expect("ONNX no short-circuit", y, (double[]){1, 1.75, 2 + 2 * (19.0 / 12 - 1)}, 3, 1e-12);
    /* tf_half_pixel_for_nn with s = 1 is the identity in OpenVINO (c = o, not o+.5) */
    a.mode = DRS_MODE_NEAREST;
    a.coordinate_transformation_mode = DRS_COORD_TF_HALF_PIXEL_FOR_NN;
    a.nearest_mode = DRS_NEAREST_CEIL;
    s = 1.0;
    CHECK(!interp1d(a, x, 3, &s, NULL, y, &O), "%s", drs_last_error());
    expect("OV tf_half_pixel_for_nn s=1", y, x, 3, 0);
}

static void test_nearest_modes(void)
{
    const double x8[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    double y[8];
    int64_t O;
    double s = 0.5; /* half_pixel: c = 2o + .5 -> exact ties .5 2.5 4.5 6.5 */
    struct { drs_nearest_mode m; double want[4]; } t[] = {
        {DRS_NEAREST_ROUND_PREFER_FLOOR, {0, 2, 4, 6}},
        {DRS_NEAREST_ROUND_PREFER_CEIL, {1, 3, 5, 7}},
        {DRS_NEAREST_FLOOR, {0, 2, 4, 6}},
        {DRS_NEAREST_CEIL, {1, 3, 5, 7}}};
    for (int i = 0; i < 4; i++) {
        drs_resize_attrs ra = drs_resize_attrs_default(19);
        ra.nearest_mode = t[i].m;
        CHECK(!resize1d(19, DRS_MODE_NEAREST, DRS_COORD_HALF_PIXEL, x8, 8, &s, NULL, y, &O, &ra),
              "%s", drs_last_error());
        expect(drs_nearest_mode_str(t[i].m), y, t[i].want, 4, 0);
        drs_interpolate_attrs a = drs_interpolate_attrs_default(4);
        a.nearest_mode = t[i].m;
        CHECK(!interp1d(a, x8, 8, &s, NULL, y, &O), "%s", drs_last_error());
        expect(drs_nearest_mode_str(t[i].m), y, t[i].want, 4, 0);
    }
    /* negative c: L=2 x2 half_pixel: c = -.25 .25 .75 1.25 */
    const double x2[2] = {10, 20};
    s = 2.0;
    struct { drs_nearest_mode m; double want[4]; } u[] = {
        {DRS_NEAREST_ROUND_PREFER_FLOOR, {10, 10, 20, 20}},
        {DRS_NEAREST_ROUND_PREFER_CEIL, {10, 10, 20, 20}},
        {DRS_NEAREST_FLOOR, {10, 10, 10, 20}},
        {DRS_NEAREST_CEIL, {10, 20, 20, 20}}};
    for (int i = 0; i < 4; i++) {
        drs_resize_attrs ra = drs_resize_attrs_default(19);
        ra.nearest_mode = u[i].m;
        CHECK(!resize1d(19, DRS_MODE_NEAREST, DRS_COORD_HALF_PIXEL, x2, 2, &s, NULL, y, &O, &ra),
              "%s", drs_last_error());
        expect("negative c", y, u[i].want, 4, 0);
    }
    /* c beyond L-1 clamps: asymmetric s=0.5 on L=3 -> O=1, c=0; tf_half_pixel_for_nn s=.5:
     * c = (o+.5)*2 = 1 -> [x1]; ceil */
    /* simple: up-sample truncates (c = o/2 -> 0 0 1 1), down-sample ceils
     * (s=.75, c = 0, 4/3, 8/3 -> 0, 2, 3) */
    drs_interpolate_attrs a = drs_interpolate_attrs_default(4);
    a.nearest_mode = DRS_NEAREST_SIMPLE;
    a.coordinate_transformation_mode = DRS_COORD_ASYMMETRIC;
    s = 2.0;
    CHECK(!interp1d(a, X4, 2, &s, NULL, y, &O), "%s", drs_last_error());
    expect("simple up", y, (double[]){1, 1, 2, 2}, 4, 0);
    s = 0.75;
    CHECK(!interp1d(a, X4, 4, &s, NULL, y, &O), "%s", drs_last_error());
    expect("simple down", y, (double[]){1, 3, 4}, 3, 0);
    /* Resize-10: asymmetric + simple */
    const double x3[3] = {1, 2, 3};
    s = 2.0;
    CHECK(!resize1d(10, DRS_MODE_NEAREST, DRS_COORD_ASYMMETRIC, x3, 3, &s, NULL, y, &O, NULL),
          "%s", drs_last_error());
    expect("Resize-10 nearest", y, (double[]){1, 1, 2, 2, 3, 3}, 6, 0);
    CHECK(!resize1d(10, DRS_MODE_LINEAR, DRS_COORD_ASYMMETRIC, x3, 3, &s, NULL, y, &O, NULL), "%s",
          drs_last_error());
    expect("Resize-10 linear", y, (double[]){1, 1.5, 2, 2.5, 3, 3}, 6, 1e-12);
}

static void test_antialias(void)
{
    double y[8];
    int64_t O;
    double s = 0.6;
    /* ONNX linear AA, edge replicate: c = 1/3: window -1..2 (pos) weights
     * tri(.6*(j-c)): j=-1: .2, 0: .8, 1: .6, 2: 0 -> (.2*1+.8*1+.6*2)/1.6 = 1.375;
     * c = 2: j=0: 0, 1: .4, 2: 1, 3: .4 -> (0.8+3+1.6)/1.8 = 3 */
    drs_resize_attrs ra = drs_resize_attrs_default(19);
    ra.antialias = 1;
    CHECK(!resize1d(19, DRS_MODE_LINEAR, DRS_COORD_HALF_PIXEL, X4, 4, &s, NULL, y, &O, &ra), "%s",
          drs_last_error());
    expect("ONNX AA linear replicate", y, (double[]){1.375, 3.0}, 2, 1e-12);
    ra.exclude_outside = 1; /* drop j=-1: (.8+1.2)/1.4 */
    CHECK(!resize1d(19, DRS_MODE_LINEAR, DRS_COORD_HALF_PIXEL, X4, 4, &s, NULL, y, &O, &ra), "%s",
          drs_last_error());
    expect("ONNX AA linear exclude", y, (double[]){2.0 / 1.4, 3.0}, 2, 1e-12);
    /* OpenVINO linear + antialias: exclude+renormalise -> same numbers */
    drs_interpolate_attrs a = drs_interpolate_attrs_default(4);
    a.mode = DRS_MODE_LINEAR;
    a.antialias = 1;
    CHECK(!interp1d(a, X4, 4, &s, NULL, y, &O), "%s", drs_last_error());
    expect("OV linear AA", y, (double[]){2.0 / 1.4, 3.0}, 2, 1e-7);
    /* antialias with up-sampling is the plain kernel: x2 half_pixel */
    s = 2.0;
    CHECK(!interp1d(a, X4, 2, &s, NULL, y, &O), "%s", drs_last_error());
    expect("OV linear AA up", y, (double[]){1, 1.25, 1.75, 2}, 4, 1e-12);
    /* mixed up/down (OpenVINO leaves zero holes; we stretch min(s,1) per axis):
     * 2-D [2 x 4] -> scales (4, 0.5): rows up x4, columns down x2; no zero outputs */
    const double x24[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    double y82[16];
    drs_tensor X = {DRS_F64, 2, {2, 4}, (void *)x24};
    const double sc[2] = {4.0, 0.5};
    drs_interpolate_inputs in = {NULL, 0, sc, 2, NULL, 0};
    a.shape_calculation_mode = DRS_SHAPE_SCALES;
    drs_tensor Y = {DRS_F64, 2, {8, 2}, y82};
    CHECK(!drs_interpolate_forward(&Y, &X, &in, &a), "%s", drs_last_error());
    int zeros = 0;
    for (int i = 0; i < 16; i++)
        zeros += y82[i] == 0.0;
    CHECK(zeros == 0, "mixed AA left %d zero holes", zeros);
    /* columns: AA stretch .5 on [1,2,3,4], c = .5, 2.5: j=0..2 weights .75 .75 .25 ->
     * (.75+1.5+.75)/1.75 = 12/7; first row (c_row = -0.375 -> row 0 only) */
    expect("mixed AA row 0", y82, (double[]){12.0 / 7.0, 4 - 12.0 / 7.0 + 1}, 2, 1e-12);
}

static void test_cubic_and_area(void)
{
    double y[8];
    int64_t O;
    /* cubic a=-0.75, x2 half_pixel on [1,2,3,4]: c(1) = .25: taps -1..2 -> (1,1,2,3)
     * t=.25: W(1.25)=-.10546875, W(.25)=.87890625, W(.75)=.26171875, W(1.75)=-.03515625
     * -> 1*(-.10546875+.87890625) + 2*.26171875 + 3*(-.03515625) = 1.19140625 */
    double s = 2.0;
    CHECK(!resize1d(19, DRS_MODE_CUBIC, DRS_COORD_HALF_PIXEL, X4, 4, &s, NULL, y, &O, NULL), "%s",
          drs_last_error());
    CHECK(fabs(y[1] - 1.19140625) < 1e-12, "cubic c=.25 got %.12g", y[1]);
    /* exclude_outside: same point, tap -1 dropped, renormalised by 1.10546875 */
    drs_resize_attrs ra = drs_resize_attrs_default(19);
    ra.exclude_outside = 1;
    CHECK(!resize1d(19, DRS_MODE_CUBIC, DRS_COORD_HALF_PIXEL, X4, 4, &s, NULL, y, &O, &ra), "%s",
          drs_last_error());
    const double ex = (1 * .87890625 + 2 * .26171875 + 3 * -.03515625) /
                      (.87890625 + .26171875 - .03515625);
    CHECK(fabs(y[1] - ex) < 1e-12, "cubic exclude got %.12g want %.12g", y[1], ex);
    /* cube_coeff -0.5 (OV cubic, asymmetric x2: c = .5 -> taps -1..2 = 1,1,2,3;
     * W(1.5)=-.0625, W(.5)=.5625 -> 1*(-.0625+.5625) + 2*.5625 + 3*(-.0625) = 1.4375 */
    drs_interpolate_attrs a = drs_interpolate_attrs_default(4);
    a.mode = DRS_MODE_CUBIC;
    a.cube_coeff = -0.5;
    a.coordinate_transformation_mode = DRS_COORD_ASYMMETRIC;
    CHECK(!interp1d(a, X4, 4, &s, NULL, y, &O), "%s", drs_last_error());
    CHECK(fabs(y[1] - 1.4375) < 1e-12, "cube_coeff -0.5 got %.12g", y[1]);
    /* Interpolate-1 area (adaptive average pooling): 5 -> 2: [0,3) and [2,5) */
    const double x5[5] = {1, 2, 3, 4, 5};
    drs_interpolate_attrs a1 = drs_interpolate_attrs_default(1);
    a1.mode = DRS_MODE_AREA;
    const int64_t two = 2;
    CHECK(!interp1d(a1, x5, 5, NULL, &two, y, &O), "%s", drs_last_error());
    expect("area 5->2", y, (double[]){2, 4}, 2, 1e-12);
    /* area 2 -> 5: [floor(2o/5), ceil(2(o+1)/5)) = [0,1) [0,1) [0,2) [1,2) [1,2) */
    const int64_t five = 5;
    CHECK(!interp1d(a1, x5, 2, NULL, &five, y, &O), "%s", drs_last_error());
    expect("area 2->5", y, (double[]){1, 1, 1.5, 2, 2}, 5, 1e-12);
}

static void test_crop_and_resize(void)
{
    double y[8];
    /* roi [0.25, 1.5], O=3: width 3, c = .75 + o*1.25*3/2 = .75, 2.625, 4.5 (> 3: extrapolate) */
    const double roi[2] = {0.25, 1.5};
    CHECK(!resize1d_roi(DRS_MODE_LINEAR, X4, 4, 3, roi, 10.0, y), "%s", drs_last_error());
    expect("crop partly outside", y, (double[]){1.75, 3.625, 10.0}, 3, 1e-12);
    /* c exactly 0 and L-1: roi [0,1] -> c = 0, 1.5, 3 (no extrapolation) */
    const double roi01[2] = {0.0, 1.0};
    CHECK(!resize1d_roi(DRS_MODE_LINEAR, X4, 4, 3, roi01, 10.0, y), "%s", drs_last_error());
    expect("crop c=0 and L-1", y, (double[]){1, 2.5, 4}, 3, 1e-12);
    /* O=1: c = (e-b)(L-1)/2 + b(L-1) = .6 + .6 = 1.2 */
    const double roi2[2] = {0.2, 0.6};
    CHECK(!resize1d_roi(DRS_MODE_LINEAR, X4, 4, 1, roi2, 10.0, y), "%s", drs_last_error());
    expect("crop O=1", y, (double[]){2.2}, 1, 1e-12);
    /* nearest + crop: c = -1.5 (extrapolated), 0, 1.5 -> prefer_floor 1 */
    const double roi3[2] = {-0.5, 0.5};
    CHECK(!resize1d_roi(DRS_MODE_NEAREST, X4, 4, 3, roi3, -1.0, y), "%s", drs_last_error());
    expect("crop nearest", y, (double[]){-1.0, 1, 2}, 3, 0);
    /* roi does not change the output shape */
    drs_resize_attrs a = drs_resize_attrs_default(19);
    a.coordinate_transformation_mode = DRS_COORD_TF_CROP_AND_RESIZE;
    drs_tensor X = {DRS_F64, 1, {4}, (void *)X4};
    const double sc = 2.0;
    drs_resize_inputs in = {roi2, 2, &sc, 1, NULL, 0};
    int r;
    int64_t shp[8];
    CHECK(!drs_resize_infer_shape(&a, &X, &in, &r, shp) && shp[0] == 8, "roi changed shape");
}

static void test_pads_axes_aspect(void)
{
    double y[16];
    /* pads on the interpolated axis: [1,2] -> padded [0,1,2,0], x2 half_pixel
     * linear_onnx (rank 2 [1,2] with all axes): c = -.25 .25 .75 1.25 1.75 2.25 2.75 3.25 */
    drs_interpolate_attrs a = drs_interpolate_attrs_default(4);
    a.mode = DRS_MODE_LINEAR_ONNX;
    a.shape_calculation_mode = DRS_SHAPE_SCALES;
    a.n_pads_begin = 2;
    a.pads_begin[1] = 1;
    a.n_pads_end = 2;
    a.pads_end[1] = 1;
    const double x2[2] = {1, 2};
    drs_tensor X = {DRS_F64, 2, {1, 2}, (void *)x2};
    const double sc[2] = {1, 2};
    drs_interpolate_inputs in = {NULL, 0, sc, 2, NULL, 0};
    drs_tensor Y = {DRS_F64, 2, {1, 8}, y};
    CHECK(!drs_interpolate_forward(&Y, &X, &in, &a), "%s", drs_last_error());
    expect("pads linear_onnx", y, (double[]){0, .25, .75, 1.25, 1.75, 1.5, .5, 0}, 8, 1e-12);
    /* pads on a non-interpolated axis grow it: shape (1,2), pads_begin (1,0), axes {1} */
    a = drs_interpolate_attrs_default(4);
    a.n_pads_begin = 1;
    a.pads_begin[0] = 1;
    const int64_t ax1 = 1, sz2 = 2;
    drs_interpolate_inputs in2 = {&sz2, 1, NULL, 0, &ax1, 1};
    int r;
    int64_t shp[8];
    CHECK(!drs_interpolate_infer_shape(&a, &X, &in2, &r, shp) && shp[0] == 2 && shp[1] == 2,
          "pad shape %lld %lld", (long long)shp[0], (long long)shp[1]);
    drs_tensor Y2 = {DRS_F64, 2, {2, 2}, y};
    CHECK(!drs_interpolate_forward(&Y2, &X, &in2, &a), "%s", drs_last_error());
    expect("pads on a non-axis", y, (double[]){0, 0, 1, 2}, 4, 0);

    /* unordered axes [3,2] with distinct sizes: (1,1,2,3) -> sizes (6 for axis 3, 4 for
     * axis 2); nearest asymmetric floor */
    const double x6[6] = {1, 2, 3, 4, 5, 6};
    drs_tensor X4d = {DRS_F64, 4, {1, 1, 2, 3}, (void *)x6};
    drs_resize_attrs ra = drs_resize_attrs_default(19);
    ra.coordinate_transformation_mode = DRS_COORD_ASYMMETRIC;
    ra.nearest_mode = DRS_NEAREST_FLOOR;
    ra.n_axes = 2;
    ra.axes[0] = 3;
    ra.axes[1] = -2; /* negative axes are normalised (Resize-18+) */
    const int64_t sizes[2] = {6, 4};
    drs_resize_inputs rin = {NULL, 0, NULL, 0, sizes, 2};
    CHECK(!drs_resize_infer_shape(&ra, &X4d, &rin, &r, shp) && shp[2] == 4 && shp[3] == 6,
          "axes [3,2] shape %lld %lld", (long long)shp[2], (long long)shp[3]);
    drs_tensor Y4 = {DRS_F64, 4, {1, 1, 4, 6}, y};
    double big[24];
    Y4.data = big;
    CHECK(!drs_resize_forward(&Y4, &X4d, &rin, &ra), "%s", drs_last_error());
    expect("axes [3,-2] row 0", big, (double[]){1, 1, 2, 2, 3, 3}, 6, 0);
    expect("axes [3,-2] row 2", big + 12, (double[]){4, 4, 5, 5, 6, 6}, 6, 0);

    /* keep_aspect_ratio_policy: (4,6) sizes (1,100): not_larger scale .25 ->
     * int(1+.5)=1, int(1.5+.5)=2; not_smaller scale 100/6 -> int(66.67+.5)=67, 100 */
    drs_tensor X46 = {DRS_F64, 2, {4, 6}, (void *)1};
    const int64_t sz[2] = {1, 100};
    drs_resize_inputs kin = {NULL, 0, NULL, 0, sz, 2};
    ra = drs_resize_attrs_default(18);
    ra.keep_aspect_ratio_policy = DRS_ASPECT_NOT_LARGER;
    CHECK(!drs_resize_infer_shape(&ra, &X46, &kin, &r, shp) && shp[0] == 1 && shp[1] == 2,
          "not_larger %lld %lld", (long long)shp[0], (long long)shp[1]);
    ra.keep_aspect_ratio_policy = DRS_ASPECT_NOT_SMALLER;
    CHECK(!drs_resize_infer_shape(&ra, &X46, &kin, &r, shp) && shp[0] == 67 && shp[1] == 100,
          "not_smaller %lld %lld", (long long)shp[0], (long long)shp[1]);
}

static void test_interpolate1_lowering(void)
{
    double y[8];
    int64_t O;
    /* default align_corners=1: linear [1,2] -> 3: c = 0, .5, 1 */
    drs_interpolate_attrs a = drs_interpolate_attrs_default(1);
    a.mode = DRS_MODE_LINEAR;
    const int64_t three = 3, four = 4;
    CHECK(!interp1d(a, X4, 2, NULL, &three, y, &O), "%s", drs_last_error());
    expect("v1 linear align_corners", y, (double[]){1, 1.5, 2}, 3, 1e-12);
    /* align_corners=0, 4-D axes {2,3} -> asymmetric: [1,2] -> 4 along axis 3 */
    a.align_corners = 0;
    {
        drs_tensor X = {DRS_F64, 4, {1, 1, 1, 2}, (void *)X4};
        const int64_t axes[2] = {3, 2}, tgt[2] = {1, 4}; /* a set: sorted to {2,3} */
        drs_interpolate_inputs in = {tgt, 2, NULL, 0, axes, 2};
        drs_tensor Y = {DRS_F64, 4, {1, 1, 1, 4}, y};
        CHECK(!drs_interpolate_forward(&Y, &X, &in, &a), "%s", drs_last_error());
        expect("v1 linear NCHW asymmetric", y, (double[]){1, 1.5, 2, 2}, 4, 1e-12);
        /* axes {3} only -> half_pixel: c = -.25 .25 .75 1.25 */
        const int64_t ax3 = 3;
        drs_interpolate_inputs in3 = {&four, 1, NULL, 0, &ax3, 1};
        CHECK(!drs_interpolate_forward(&Y, &X, &in3, &a), "%s", drs_last_error());
        expect("v1 linear half_pixel", y, (double[]){1, 1.25, 1.75, 2}, 4, 1e-12);
    }
    /* nearest (simple) with align_corners: [1,2,3] -> 5, s = 5/3 >= 1 -> trunc;
     * c = o*2/4 = 0 .5 1 1.5 2 */
    a = drs_interpolate_attrs_default(1);
    const int64_t five = 5;
    const double x3[3] = {1, 2, 3};
    CHECK(!interp1d(a, x3, 3, NULL, &five, y, &O), "%s", drs_last_error());
    expect("v1 nearest", y, (double[]){1, 1, 2, 2, 3}, 5, 0);
    /* 5-D linear uses OpenVINO 'linear' (antialias honoured) */
    a = drs_interpolate_attrs_default(1);
    a.mode = DRS_MODE_LINEAR;
    a.align_corners = 0;
    a.antialias = 1;
    {
        drs_tensor X = {DRS_F64, 5, {1, 1, 1, 1, 4}, (void *)X4};
        const int64_t ax = 4, tgt = 2;
        drs_interpolate_inputs in = {&tgt, 1, NULL, 0, &ax, 1};
        drs_tensor Y = {DRS_F64, 5, {1, 1, 1, 1, 2}, y};
        CHECK(!drs_interpolate_forward(&Y, &X, &in, &a), "%s", drs_last_error());
        /* s = .5: c = .5, 2.5; triangle half-width 2: j=0..2 weights .75 .75 .25 */
        expect("v1 5-D linear AA", y, (double[]){12.0 / 7.0, 5 - 12.0 / 7.0}, 2, 1e-12);
    }
}

static void test_integer_rounding(void)
{
    /* [0,5] x2 asymmetric -> values 0, 2.5, 5, 5 */
    const uint8_t x[2] = {0, 5};
    uint8_t y[4];
    drs_tensor X = {DRS_U8, 1, {2}, (void *)x};
    drs_tensor Y = {DRS_U8, 1, {4}, y};
    const double s = 2.0;
    const int64_t ax = 0;
    drs_interpolate_inputs in = {NULL, 0, &s, 1, &ax, 1};
    drs_interpolate_attrs a = drs_interpolate_attrs_default(4);
    a.shape_calculation_mode = DRS_SHAPE_SCALES;
    a.coordinate_transformation_mode = DRS_COORD_ASYMMETRIC;
    a.mode = DRS_MODE_LINEAR; /* OpenVINO linear: half away from zero */
    CHECK(!drs_interpolate_forward(&Y, &X, &in, &a), "%s", drs_last_error());
    CHECK(y[0] == 0 && y[1] == 3 && y[2] == 5 && y[3] == 5, "OV linear u8 %d %d %d %d", y[0], y[1],
          y[2], y[3]);
    /* ONNX: half to even -> 2 */
    drs_resize_attrs ra = drs_resize_attrs_default(11);
    ra.mode = DRS_MODE_LINEAR;
    ra.coordinate_transformation_mode = DRS_COORD_ASYMMETRIC;
    drs_resize_inputs rin = {NULL, 0, &s, 1, NULL, 0};
    CHECK(!drs_resize_forward(&Y, &X, &rin, &ra), "%s", drs_last_error());
    CHECK(y[0] == 0 && y[1] == 2 && y[2] == 5 && y[3] == 5, "ONNX linear u8 %d %d %d %d", y[0],
          y[1], y[2], y[3]);
    /* OpenVINO cubic truncates; i8 saturates: [-128,-128,127,127] cubic x2 overshoots
     * past 127 next to the step and must clip, not wrap */
    const int8_t xi[4] = {-128, -128, 127, 127};
    int8_t yi[8];
    drs_tensor Xi = {DRS_I8, 1, {4}, (void *)xi};
    drs_tensor Yi = {DRS_I8, 1, {8}, yi};
    a.mode = DRS_MODE_CUBIC;
    a.coordinate_transformation_mode = DRS_COORD_HALF_PIXEL;
    CHECK(!drs_interpolate_forward(&Yi, &Xi, &in, &a), "%s", drs_last_error());
    /* c(5) = 2.25: taps 1..4 -> (-128,127,127,127): t=.25 weights
     * -.10546875 .87890625 .26171875 -.03515625 -> 127 + 255*.10546875 = 153.89 -> 127 */
    CHECK(yi[5] == 127, "i8 saturation got %d", yi[5]);
    /* c(2) = .75: taps -1..2 -> (-128,-128,-128,127), weights W(1.75) W(.75) W(.25) W(1.25)
     * = -.03515625 .26171875 .87890625 -.10546875 -> -128 - 255*.10546875 = -154.89 -> -128 */
    CHECK(yi[2] == -128, "i8 low saturation got %d", yi[2]);
    /* c(3) = 1.25: taps 0..3 (-128,-128,127,127) weights -.10546875 .87890625 .26171875
     * -.03515625 -> -128*.7734375 + 127*.2265625 = -70.2265625, truncated to -70 */
    CHECK(yi[3] == -70, "i8 cubic trunc got %d", yi[3]);
}

/* OpenVINO Interpolate on integer data computes in float32 as its reference
 * implementation (ov::reference::interpolate) does: per output point, every
 * combination of the axes' taps, weights multiplied in the axes' order and
 * summed in float32, then std::round (linear) or truncation (linear_onnx,
 * cubic).  Values hand-derived in float32 below, or OpenVINO 2026.4.1's
 * reference output where noted; the separable double arithmetic gives the
 * other integer at the marked points. */
static void test_ov_integer_float32(void)
{
    const int64_t ax0 = 0;
    { /* i32 stays exact: a constant 2^24 + 1 resized by linear_onnx is 2^24 + 1
         everywhere (float32 would give 2^24) */
        const int32_t x[3] = {16777217, 16777217, 16777217};
        int32_t y[5] = {0};
        const int64_t sizes[2] = {1, 5}, axes[2] = {2, 3};
        drs_tensor X = {DRS_I32, 4, {1, 1, 1, 3}, (void *)x};
        drs_tensor Y = {DRS_I32, 4, {1, 1, 1, 5}, y};
        drs_interpolate_inputs in = {sizes, 2, NULL, 0, axes, 2};
        drs_interpolate_attrs a = drs_interpolate_attrs_default(11);
        a.mode = DRS_MODE_LINEAR_ONNX;
        CHECK(!drs_interpolate_forward(&Y, &X, &in, &a), "%s", drs_last_error());
        for (int i = 0; i < 5; i++)
            CHECK(y[i] == 16777217, "OV linear_onnx i32 [%d]: got %d, want 16777217", i, y[i]);
    }
    { /* linear_onnx, u8 [0, 11, 24] of shape (1,1,1,3), sizes (1,1), half_pixel:
         s = 1.0f/3.0f = 0.33333334f, c = 0.5f/s - 0.5f = 1.5f - 0.5f = 1 exactly
         (0.49999996 in double, which gave 10); H (L = O = 1): i1 = i2, both 0.5:
         0.5 * 11 + 0.5 * 11 = 11 */
        const uint8_t x[3] = {0, 11, 24};
        uint8_t y[1] = {0};
        const int64_t sizes[2] = {1, 1}, axes[2] = {2, 3};
        drs_tensor X = {DRS_U8, 4, {1, 1, 1, 3}, (void *)x};
        drs_tensor Y = {DRS_U8, 4, {1, 1, 1, 1}, y};
        drs_interpolate_inputs in = {sizes, 2, NULL, 0, axes, 2};
        drs_interpolate_attrs a = drs_interpolate_attrs_default(11);
        a.mode = DRS_MODE_LINEAR_ONNX;
        CHECK(!drs_interpolate_forward(&Y, &X, &in, &a), "%s", drs_last_error());
        CHECK(y[0] == 11, "OV linear_onnx u8 float32 coordinate: got %d, want 11", y[0]);
    }
    { /* linear, u8 L = 6 -> 9 (s = 1.5f), half_pixel.  o = 5: c = 5.5f/1.5f - 0.5f =
         3.1666667f; weights 1 - (c - 3) = 0.83333325f on x[3] = 5 and 0.16666675f on
         x[4] = 104: 4.1666665f + 17.333342f = 21.500008f -> 22 (21.49999... in double:
         21); o = 6: c = 3.8333335f, 0.16666651f * 5 + 0.8333335f * 104 = 87.50002f -> 88;
         ties round away from zero (76.5 -> 77) */
        const uint8_t x[6] = {36, 117, 220, 5, 104, 221};
        const uint8_t want[9] = {36, 77, 134, 203, 113, 22, 88, 163, 221};
        uint8_t y[9];
        const int64_t size = 9;
        drs_tensor X = {DRS_U8, 1, {6}, (void *)x};
        drs_tensor Y = {DRS_U8, 1, {9}, y};
        drs_interpolate_inputs in = {&size, 1, NULL, 0, &ax0, 1};
        drs_interpolate_attrs a = drs_interpolate_attrs_default(4);
        a.mode = DRS_MODE_LINEAR;
        CHECK(!drs_interpolate_forward(&Y, &X, &in, &a), "%s", drs_last_error());
        for (int i = 0; i < 9; i++)
            CHECK(y[i] == want[i], "OV linear u8 [%d]: got %d, want %d", i, y[i], want[i]);
    }
    { /* cubic, i8 [2, -106] -> 6, half_pixel, cube_coeff -0.6946454644203186 (a
         float32 value).  o = 4: c = 4.5f/3 - 0.5f = 1, t = 0; taps 0, 1, 1, 1 (clamped);
         float32 Keys weights 0, 1, 0, -7.1525574e-7 (the last is 0 in exact
         arithmetic): -106 + 7.6e-5 = -105.99992f, truncated to -105 (double: -106) */
        const int8_t x[2] = {2, -106};
        const int8_t want[6] = {13, 2, -31, -72, -105, -117}; /* OpenVINO's reference */
        int8_t y[6];
        const int64_t size = 6;
        drs_tensor X = {DRS_I8, 1, {2}, (void *)x};
        drs_tensor Y = {DRS_I8, 1, {6}, y};
        drs_interpolate_inputs in = {&size, 1, NULL, 0, &ax0, 1};
        drs_interpolate_attrs a = drs_interpolate_attrs_default(4);
        a.mode = DRS_MODE_CUBIC;
        a.cube_coeff = -0.6946454644203186;
        CHECK(!drs_interpolate_forward(&Y, &X, &in, &a), "%s", drs_last_error());
        for (int i = 0; i < 6; i++)
            CHECK(y[i] == want[i], "OV cubic i8 [%d]: got %d, want %d", i, y[i], want[i]);
    }
    { /* 2-D cubic, i8 (3, 6) -> (5, 2), pytorch_half_pixel, cube_coeff
         -0.7688673138618469: OpenVINO's reference sums the 16 products of each point in
         float32 (the separable double passes give 26 and -100 at [2, 0] and [2, 1]) */
        const int8_t x[18] = {8,   70,  71,  -76, 59,  87,  42,  27,   116,
                              99,  -101, -125, 105, -10, -73, -73, -122, -46};
        const int8_t want[10] = {74, 74, 56, -1, 27, -101, 1, -125, -13, -124};
        int8_t y[10];
        const int64_t sizes[2] = {5, 2}, axes[2] = {0, 1};
        drs_tensor X = {DRS_I8, 2, {3, 6}, (void *)x};
        drs_tensor Y = {DRS_I8, 2, {5, 2}, y};
        drs_interpolate_inputs in = {sizes, 2, NULL, 0, axes, 2};
        drs_interpolate_attrs a = drs_interpolate_attrs_default(11);
        a.mode = DRS_MODE_CUBIC;
        a.coordinate_transformation_mode = DRS_COORD_PYTORCH_HALF_PIXEL;
        a.cube_coeff = -0.7688673138618469;
        CHECK(!drs_interpolate_forward(&Y, &X, &in, &a), "%s", drs_last_error());
        for (int i = 0; i < 10; i++)
            CHECK(y[i] == want[i], "OV 2-D cubic i8 [%d]: got %d, want %d", i, y[i], want[i]);
    }
    { /* the axes list's order is the order of the weight product and of the taps loop:
         i8 (6, 3) -> (6, 5), cubic, half_pixel, cube_coeff -0.9970144629478455, with
         axes [0, 1] and with axes [1, 0]: OpenVINO's reference gives -53 and -52 at
         [1, 2] (all other points equal); at [2, 0] the sum is 143.x, which its cast
         wraps to -113 and dresample saturates to 127 */
        const int8_t x[18] = {-22, -81, -24, 43,  -53, -66, 116, -103, 25,
                              -22, 72,  42,  -67, -84, -84, 53,  32,   28};
        const int8_t want01[30] = {-14, -51, -80, -52, -16, 55,  5,   -53, -69, -67,
                                   127,  16, -102, -47, 41,  -33, 18,  71,  62,  38,
                                   -64, -73, -83, -85, -83, 55,  44,  31,  27,  27};
        int8_t y[30];
        const int64_t sizes[2] = {6, 5}, axes[2] = {0, 1}, sizes_r[2] = {5, 6}, axes_r[2] = {1, 0};
        drs_tensor X = {DRS_I8, 2, {6, 3}, (void *)x};
        drs_tensor Y = {DRS_I8, 2, {6, 5}, y};
        drs_interpolate_attrs a = drs_interpolate_attrs_default(11);
        a.mode = DRS_MODE_CUBIC;
        a.cube_coeff = -0.9970144629478455;
        for (int order = 0; order < 2; order++) {
            drs_interpolate_inputs in = {order ? sizes_r : sizes, 2, NULL, 0,
                                         order ? axes_r : axes, 2};
            CHECK(!drs_interpolate_forward(&Y, &X, &in, &a), "%s", drs_last_error());
            for (int i = 0; i < 30; i++) {
                const int want = (order && i == 7) ? -52 : want01[i];
                CHECK(y[i] == want, "OV cubic i8 axes order %d [%d]: got %d, want %d", order, i,
                      y[i], want);
            }
        }
    }
    { /* linear with pads: u8 [10, 20], pads_begin 1 -> padded [0, 10, 20] (L = 3), sizes
         2: s = 2.0f/3.0f, c = 0.25 and 1.75; the pad cell keeps its weight:
         (0.75 * 0 + 0.25 * 10) / 1 = 2.5 -> 3, (0.25 * 10 + 0.75 * 20) = 17.5 -> 18 */
        const uint8_t x[2] = {10, 20};
        uint8_t y[2];
        const int64_t size = 2, pb = 1;
        drs_tensor X = {DRS_U8, 1, {2}, (void *)x};
        drs_tensor Y = {DRS_U8, 1, {2}, y};
        drs_interpolate_inputs in = {&size, 1, NULL, 0, &ax0, 1};
        drs_interpolate_attrs a = drs_interpolate_attrs_default(4);
        a.mode = DRS_MODE_LINEAR;
        a.pads_begin[0] = pb;
        a.n_pads_begin = 1;
        CHECK(!drs_interpolate_forward(&Y, &X, &in, &a), "%s", drs_last_error());
        CHECK(y[0] == 3 && y[1] == 18, "OV linear u8 with pads: got %d %d, want 3 18", y[0],
              y[1]);
    }
    { /* the same bits for 1, 2 and 4 threads (a call large enough to be parallel),
         every mode and integer type */
        enum { H = 40, W = 50, HO = 57, WO = 33 };
        static int32_t xi[3 * H * W];
        static int32_t yt[3][3 * HO * WO];
        for (int i = 0; i < 3 * H * W; i++)
            xi[i] = (int32_t)((i * 7919) % 251) - 60;
        const int64_t sizes[2] = {HO, WO}, axes[2] = {2, 3};
        drs_interpolate_inputs in = {sizes, 2, NULL, 0, axes, 2};
        const drs_interp_mode modes[3] = {DRS_MODE_LINEAR, DRS_MODE_LINEAR_ONNX,
                                          DRS_MODE_CUBIC};
        const drs_dtype types[3] = {DRS_U8, DRS_I8, DRS_I32};
        for (int m = 0; m < 3; m++)
            for (int t = 0; t < 3; t++) {
                static uint8_t xb[3 * H * W * 4];
                const size_t es = drs_dtype_size(types[t]);
                for (int i = 0; i < 3 * H * W; i++) {
                    if (types[t] == DRS_U8)
                        xb[i] = (uint8_t)(xi[i] + 60);
                    else if (types[t] == DRS_I8)
                        ((int8_t *)xb)[i] = (int8_t)(xi[i] - 40);
                    else
                        ((int32_t *)xb)[i] = xi[i] * 1000;
                }
                drs_tensor X = {types[t], 4, {1, 3, H, W}, xb};
                drs_interpolate_attrs a = drs_interpolate_attrs_default(4);
                a.mode = modes[m];
                a.antialias = modes[m] == DRS_MODE_LINEAR;
                const int nt[3] = {1, 2, 4};
                for (int k = 0; k < 3; k++) {
                    drs_set_num_threads(nt[k]);
                    drs_tensor Y = {types[t], 4, {1, 3, HO, WO}, yt[k]};
                    CHECK(!drs_interpolate_forward(&Y, &X, &in, &a), "%s", drs_last_error());
                }
                drs_set_num_threads(0);
                const size_t nb = (size_t)3 * HO * WO * es;
                CHECK(!memcmp(yt[0], yt[1], nb) && !memcmp(yt[0], yt[2], nb),
                      "OV integer mode %d type %d: threads change the bits", m, t);
            }
    }
}

static void test_torch_preset(void)
{
    /* bilinear align_corners=True 2x2 -> 3x3 */
    const float x[4] = {1, 2, 3, 4};
    float y[9];
    drs_tensor X = {DRS_F32, 4, {1, 1, 2, 2}, (void *)x};
    drs_tensor Y = {DRS_F32, 4, {1, 1, 3, 3}, y};
    drs_torch_interpolate_attrs t = drs_torch_interpolate_attrs_default();
    t.mode = DRS_TORCH_BILINEAR;
    t.align_corners = 1;
    t.n_size = 1;
    t.size[0] = 3;
    CHECK(!drs_torch_interpolate_forward(&Y, &X, &t), "%s", drs_last_error());
    const float want[9] = {1, 1.5f, 2, 2, 2.5f, 3, 3, 3.5f, 4};
    for (int i = 0; i < 9; i++)
        CHECK(y[i] == want[i], "torch bilinear [%d] %g", i, y[i]);
    /* nearest with scale_factor 1.5 on L=2: O = 3, src = floorf(o * (float)(1/1.5)) = 0,0,1 */
    t = drs_torch_interpolate_attrs_default();
    t.n_scale_factor = 1;
    t.scale_factor[0] = 1.5;
    drs_tensor X3 = {DRS_F32, 3, {1, 1, 2}, (void *)x};
    drs_tensor Y3 = {DRS_F32, 3, {1, 1, 3}, y};
    CHECK(!drs_torch_interpolate_forward(&Y3, &X3, &t), "%s", drs_last_error());
    CHECK(y[0] == 1 && y[1] == 1 && y[2] == 2, "torch nearest %g %g %g", y[0], y[1], y[2]);
}

/* Nearest 2x upsampling of rows long enough for the vector loops (and the
 * duplicating row loop of the composed gather), odd and even lengths, f32
 * and f64 and u8: y[., i, o] = x[., floor(i / 2), floor(o / 2)], by hand. */
static void test_nearest_2x_rows(void)
{
    static const int64_t lens[] = {5, 37, 40, 129};
    for (int li = 0; li < 4; li++)
        for (int ti = 0; ti < 3; ti++) {
            const int64_t L = lens[li], H = 3, O = 2 * L;
            const drs_dtype dt = ti == 0 ? DRS_F32 : ti == 1 ? DRS_F64 : DRS_U8;
            const size_t es = drs_dtype_size(dt);
            unsigned char *x = malloc((size_t)(2 * H * L) * es);
            unsigned char *y = malloc((size_t)(2 * 2 * H * O) * es);
            if (!x || !y) {
                CHECK(0, "out of memory");
                free(x);
                free(y);
                return;
            }
            for (int64_t i = 0; i < 2 * H * L; i++) {
                if (dt == DRS_F32)
                    ((float *)(void *)x)[i] = (float)(i * 7 % 101) - 50.5f;
                else if (dt == DRS_F64)
                    ((double *)(void *)x)[i] = (double)(i * 7 % 101) - 50.25;
                else
                    x[i] = (unsigned char)(i * 7 % 251);
            }
            drs_tensor X = {dt, 4, {1, 2, H, L}, x};
            drs_tensor Y = {dt, 4, {1, 2, 2 * H, O}, y};
            drs_torch_interpolate_attrs t = drs_torch_interpolate_attrs_default();
            t.n_size = 2;
            t.size[0] = 2 * H;
            t.size[1] = O;
            CHECK(!drs_torch_interpolate_forward(&Y, &X, &t), "%s", drs_last_error());
            int bad = 0;
            for (int64_t c = 0; c < 2; c++)
                for (int64_t i = 0; i < 2 * H; i++)
                    for (int64_t o = 0; o < O; o++) {
                        const int64_t yi = (c * 2 * H + i) * O + o;
                        const int64_t xi = (c * H + i / 2) * L + o / 2;
                        bad += memcmp(y + (size_t)yi * es, x + (size_t)xi * es, es) != 0;
                    }
            CHECK(!bad, "nearest 2x, row length %lld, %s: %d outputs wrong", (long long)L,
                  drs_dtype_name(dt), bad);
            free(x);
            free(y);
        }
}

/* Integer-factor downsampling whose outputs read windows side by side (area
 * 1/k: the mean of k x k blocks; linear at 0.5, half_pixel: the mean of 2 x
 * 2 blocks): every output against the block mean computed here, in f32 and
 * f64 (test_backward's layout_bits checks the same loops bit for bit). */
static void test_window_downsampling(void)
{
    static const int ks[4] = {2, 3, 4, 5};
    for (int ki = 0; ki < 5; ki++)
        for (int f64 = 0; f64 < 2; f64++) {
            const int lin = ki == 4, k = lin ? 2 : ks[ki];
            /* 1/4 with rows of 4 KiB or more (not a multiple of 64 bytes): the fused
             * pass that prefetches the next output row's four input rows */
            const int64_t OW = k == 4 && !lin ? 261 : 37;
            const int64_t H = 3 * k, L = OW * k, OH = 3;
            double *xd = malloc(sizeof(double) * (size_t)(2 * H * L));
            void *x = malloc(sizeof(double) * (size_t)(2 * H * L));
            void *y = malloc(sizeof(double) * (size_t)(2 * OH * OW));
            if (!xd || !x || !y) {
                CHECK(0, "out of memory");
                free(xd);
                free(x);
                free(y);
                return;
            }
            for (int64_t i = 0; i < 2 * H * L; i++) {
                xd[i] = (double)(i * 37 % 101) / 8.0 - 6.0; /* exact in f32 */
                if (f64)
                    ((double *)x)[i] = xd[i];
                else
                    ((float *)x)[i] = (float)xd[i];
            }
            const drs_dtype dt = f64 ? DRS_F64 : DRS_F32;
            drs_tensor X = {dt, 4, {1, 2, H, L}, x}, Y = {dt, 4, {1, 2, OH, OW}, y};
            drs_status st;
            if (lin) {
                drs_resize_attrs a = drs_resize_attrs_default(19);
                a.mode = DRS_MODE_LINEAR;
                const double sc[4] = {1, 1, 0.5, 0.5};
                const drs_resize_inputs ri = {NULL, 0, sc, 4, NULL, 0};
                st = drs_resize_forward(&Y, &X, &ri, &a);
            } else {
                drs_torch_interpolate_attrs t = drs_torch_interpolate_attrs_default();
                t.mode = DRS_TORCH_AREA;
                t.n_size = 2;
                t.size[0] = OH;
                t.size[1] = OW;
                st = drs_torch_interpolate_forward(&Y, &X, &t);
            }
            CHECK(!st, "%s", drs_last_error());
            int bad = 0;
            for (int64_t c = 0; c < 2; c++)
                for (int64_t i = 0; i < OH; i++)
                    for (int64_t o = 0; o < OW; o++) {
                        double m = 0.0;
                        for (int64_t a = 0; a < k; a++)
                            for (int64_t b = 0; b < k; b++)
                                m += xd[(c * H + i * k + a) * L + o * k + b];
                        m /= (double)(k * k);
                        const int64_t yi = (c * OH + i) * OW + o;
                        const double got = f64 ? ((double *)y)[yi] : (double)((float *)y)[yi];
                        bad += !(fabs(got - m) <= (f64 ? 1e-12 : 1e-5) * (1.0 + fabs(m)));
                    }
            CHECK(!bad, "%s 1/%d, %s: %d outputs differ from the block mean",
                  lin ? "linear" : "area", k, f64 ? "f64" : "f32", bad);
            free(xd);
            free(x);
            free(y);
        }
}

int main(void)
{
    test_output_size_rules();
    test_coordinate_modes();
    test_ov_shortcut();
    test_nearest_modes();
    test_antialias();
    test_cubic_and_area();
    test_crop_and_resize();
    test_pads_axes_aspect();
    test_interpolate1_lowering();
    test_integer_rounding();
    test_ov_integer_float32();
    test_torch_preset();
    test_nearest_2x_rows();
    test_window_downsampling();
    printf("test_forward: %d checks, %d failed\n", g_checks, g_fail);
    return g_fail ? 1 : 0;
}
