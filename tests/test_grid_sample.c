/* SPDX-License-Identifier: MIT */
/* test_grid_sample.c — GridSample-9/16/20/22 by hand values, float64 finite
 * differences and adjoints, exact gradient factors (border 0 at the edge,
 * reflection sign flip), non-finite and huge grids, every rejection rule with
 * canary outputs, and 1/2/4-thread bit equality of forward and backward.
 * PyTorch and the ONNX backend data are checked in tests/conformance/. */
#include <dresample.h>

#include "check.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>



static uint64_t g_seed = 0x9e3779b97f4a7c15ull;
static double urand(void) /* [0, 1) */
{
    g_seed ^= g_seed << 13;
    g_seed ^= g_seed >> 7;
    g_seed ^= g_seed << 17;
    return (double)(g_seed >> 11) / 9007199254740992.0;
}

/* a[i] = scale * urand() - shift, in order (float: rounded once) */
static void fill_f32(float *a, int64_t n, double scale, double shift)
{
    for (int64_t i = 0; i < n; i++)
        a[i] = (float)(scale * urand() - shift);
}

static void fill_f64(double *a, int64_t n, double scale, double shift)
{
    for (int64_t i = 0; i < n; i++)
        a[i] = scale * urand() - shift;
}

static drs_grid_sample_attrs attrs(int version, drs_grid_mode m, drs_grid_padding p, int ac)
{
    drs_grid_sample_attrs a = drs_grid_sample_attrs_default(version);
    a.mode = m;
    a.padding_mode = p;
    a.align_corners = ac;
    return a;
}

static int64_t numel(const drs_tensor *t)
{
    int64_t n = 1;
    for (int i = 0; i < t->rank; i++)
        n *= t->shape[i];
    return n;
}

/* Forward on f64 data [1,1,1,W] (or [1,1,H,W]) at grid points given as (x, y). */
static double sample2d(const double *img, int64_t H, int64_t W, double gx, double gy,
                       drs_grid_sample_attrs a)
{
    double grid[2] = {gx, gy}, out = -12345.0;
    drs_tensor x = {DRS_F64, 4, {1, 1, H, W}, (void *)img};
    drs_tensor g = {DRS_F64, 4, {1, 1, 1, 2}, grid};
    drs_tensor y = {DRS_F64, 4, {1, 1, 1, 1}, &out};
    drs_status s = drs_grid_sample_forward(&y, &x, &g, &a);
    CHECK(s == DRS_OK, "sample2d: %s", drs_last_error());
    return out;
}

/* g such that the denormalised coordinate is u on an axis of length L. */
static double g_of_u(double u, int64_t L, int ac)
{
    return ac ? 2.0 * u / (double)(L - 1) - 1.0 : (2.0 * u + 1.0) / (double)L - 1.0;
}

/* Keys kernel, a = -0.75, and the interpolated value of f(k) = k at u. */
static double keys_ref(double s)
{
    const double a = -0.75, t = fabs(s);
    if (t <= 1.0)
        return (a + 2.0) * t * t * t - (a + 3.0) * t * t + 1.0;
    if (t < 2.0)
        return a * t * t * t - 5.0 * a * t * t + 8.0 * a * t - 4.0 * a;
    return 0.0;
}
static double keys_mean(double u)
{
    const double x0 = floor(u);
    double v = 0.0;
    for (int k = -1; k <= 2; k++)
        v += keys_ref(u - (x0 + k)) * (x0 + k);
    return v;
}

/* ------------------------------------------------------------ hand values */
static void test_hand_values(void)
{
    const double row[4] = {1.0, 2.0, 4.0, 8.0};
    const drs_grid_mode BL = DRS_GRID_BILINEAR, NN = DRS_GRID_NEAREST, BC = DRS_GRID_BICUBIC;
    const drs_grid_padding Z = DRS_GRID_PAD_ZEROS, B = DRS_GRID_PAD_BORDER,
                           R = DRS_GRID_PAD_REFLECTION;
    /* denormalisation: align_corners=1 maps -1/+1 to pixel centres 0 and L-1 */
    CHECK(NEAR(sample2d(row, 1, 4, -1.0, 0.0, attrs(9, BL, Z, 1)), 1.0, 1e-15), "ac -1");
    CHECK(NEAR(sample2d(row, 1, 4, 1.0, 0.0, attrs(9, BL, Z, 1)), 8.0, 1e-15), "ac +1");
    /* align_corners=0 maps -1 to the outer edge u=-0.5: zeros fade to half */
    CHECK(NEAR(sample2d(row, 1, 4, -1.0, 0.0, attrs(9, BL, Z, 0)), 0.5, 1e-15), "edge fade");
    CHECK(NEAR(sample2d(row, 1, 4, 1.0, 0.0, attrs(9, BL, Z, 0)), 4.0, 1e-15), "edge fade +");
    CHECK(NEAR(sample2d(row, 1, 4, -1.0, 0.0, attrs(9, BL, B, 0)), 1.0, 1e-15), "border");
    /* u = 1.25: 0.75*2 + 0.25*4 */
    CHECK(NEAR(sample2d(row, 1, 4, g_of_u(1.25, 4, 0), 0.0, attrs(9, BL, Z, 0)), 2.5, 1e-14),
          "bilinear interior");
    /* |g| > 1 with zeros: outside entirely */
    CHECK(sample2d(row, 1, 4, 1.6, 0.0, attrs(9, BL, Z, 0)) == 0.0, "outside");
    /* reflection, align_corners=0, about -0.5 and 3.5: u = 4.25 -> 2.75 */
    CHECK(NEAR(sample2d(row, 1, 4, g_of_u(4.25, 4, 0), 0.0, attrs(9, BL, R, 0)),
               0.25 * 4.0 + 0.75 * 8.0, 1e-14),
          "reflect once");
    /* reflection, align_corners=1 about 0 and 3: u = -3.5 -> 3.5 -> 2.5 (the
     * x = -3.5 example of OpenVINO's page: two reflections) */
    CHECK(NEAR(sample2d(row, 1, 4, g_of_u(-3.5, 4, 1), 0.0, attrs(9, BL, R, 1)), 6.0, 1e-14),
          "reflect twice");
    /* u = 7.25 with align_corners=1: period 6 -> 1.25 */
    CHECK(NEAR(sample2d(row, 1, 4, g_of_u(7.25, 4, 1), 0.0, attrs(9, BL, R, 1)), 2.5, 1e-13),
          "reflect period");
    /* nearest ties round half to even: u = 0.5 -> 0, 1.5 -> 2, 2.5 -> 2 */
    CHECK(sample2d(row, 1, 4, g_of_u(0.5, 4, 1), 0.0, attrs(9, NN, Z, 1)) == 1.0, "tie 0.5");
    CHECK(sample2d(row, 1, 4, g_of_u(1.5, 4, 1), 0.0, attrs(9, NN, Z, 1)) == 4.0, "tie 1.5");
    CHECK(sample2d(row, 1, 4, g_of_u(2.5, 4, 1), 0.0, attrs(9, NN, Z, 1)) == 4.0, "tie 2.5");
    /* nearest + reflection tie (OpenVINO/ONNX round first): align_corners=0, L=4, u=4.5
     * (g=1.5): OpenVINO/ONNX round first (4) then reflect -> 3 (value 8);
     * PyTorch would reflect first (2.5) and round to 2 (value 4).  Ours: 8. */
    CHECK(sample2d(row, 1, 4, 1.5, 0.0, attrs(9, NN, R, 0)) == 8.0, "nearest reflect tie");
    CHECK(sample2d(row, 1, 4, 1.5, 0.0, attrs(16, NN, R, 0)) == 8.0, "nearest reflect tie 16");
    /* bicubic at an integer u is exact */
    CHECK(NEAR(sample2d(row, 1, 4, g_of_u(2.0, 4, 0), 0.0, attrs(9, BC, Z, 0)), 4.0, 1e-14),
          "bicubic integer");
    /* bicubic at u = 1.5, a = -0.75: weights (-0.09375, 0.59375, 0.59375, -0.09375) */
    CHECK(NEAR(sample2d(row, 1, 4, g_of_u(1.5, 4, 0), 0.0, attrs(9, BC, Z, 0)),
               -0.09375 * 1 + 0.59375 * 2 + 0.59375 * 4 - 0.09375 * 8, 1e-14),
          "bicubic half");
    /* bicubic + border outside (ONNX clamps first): align_corners=1, u = -0.5:
     * OpenVINO/PyTorch clamp the taps -> 1.09375 x0 - 0.09375 x1; ONNX-REF
     * clamps the coordinate -> x0. */
    const double gm = g_of_u(-0.5, 4, 1);
    CHECK(NEAR(sample2d(row, 1, 4, gm, 0.0, attrs(9, BC, B, 1)), 1.09375 * 1 - 0.09375 * 2,
               1e-14),
          "bicubic border OV");
    CHECK(NEAR(sample2d(row, 1, 4, gm, 0.0, attrs(16, BC, B, 1)), 1.0, 1e-14),
          "bicubic border ONNX");
    CHECK(NEAR(sample2d(row, 1, 4, gm, 0.0, attrs(20, BC, B, 1)), 1.0, 1e-14),
          "bicubic border ONNX 20");
    /* L = 1 with align_corners=1 and reflection: index 0 (no division by 0) */
    const double one = 5.0;
    CHECK(sample2d(&one, 1, 1, 0.7, 0.0, attrs(16, BL, R, 1)) == 5.0, "L=1 reflection");
    CHECK(sample2d(&one, 1, 1, 0.7, 0.0, attrs(16, NN, R, 1)) == 5.0, "L=1 reflection nn");
    CHECK(sample2d(&one, 1, 1, 0.7, 0.0, attrs(16, BC, R, 1)) == 5.0, "L=1 reflection bc");
    /* 2-D: y selects the row */
    const double img[6] = {1, 2, 3, 10, 20, 30};
    CHECK(NEAR(sample2d(img, 2, 3, 0.0, 1.0, attrs(9, BL, Z, 1)), 20.0, 1e-14), "2-D row");
    CHECK(NEAR(sample2d(img, 2, 3, 0.0, 0.0, attrs(9, BL, Z, 1)), 11.0, 1e-14), "2-D centre");

    /* 5-D: trilinear at the centre of a 2x2x2 cube is the mean; tricubic on a
     * cube of a linear function reproduces it in the interior (Keys is exact on
     * linear functions when all taps are inside) */
    double cube[8], lin[64];
    for (int i = 0; i < 8; i++)
        cube[i] = (double)(i * i);
    for (int z = 0; z < 4; z++)
        for (int y = 0; y < 4; y++)
            for (int x = 0; x < 4; x++)
                lin[(z * 4 + y) * 4 + x] = 1.0 + 2.0 * x - 3.0 * y + 0.5 * z;
    double gpt[3] = {0.0, 0.0, 0.0}, out = 0.0;
    drs_tensor xc = {DRS_F64, 5, {1, 1, 2, 2, 2}, cube};
    drs_tensor g5 = {DRS_F64, 5, {1, 1, 1, 1, 3}, gpt};
    drs_tensor y5 = {DRS_F64, 5, {1, 1, 1, 1, 1}, &out};
    drs_grid_sample_attrs a5 = attrs(20, BL, Z, 1);
    CHECK(drs_grid_sample_forward(&y5, &xc, &g5, &a5) == DRS_OK, "%s", drs_last_error());
    CHECK(NEAR(out, 140.0 / 8.0, 1e-13), "trilinear centre %g", out);
    /* (x, y, z) = (1.5, 1.25, 1.75) in pixel units, align_corners=1, L=4 */
    gpt[0] = g_of_u(1.5, 4, 1);
    gpt[1] = g_of_u(1.25, 4, 1);
    gpt[2] = g_of_u(1.75, 4, 1);
    drs_tensor xl = {DRS_F64, 5, {1, 1, 4, 4, 4}, lin};
    a5 = attrs(20, BC, Z, 1);
    CHECK(drs_grid_sample_forward(&y5, &xl, &g5, &a5) == DRS_OK, "%s", drs_last_error());
    /* Keys (a = -0.75) is not exact on linear functions off the half-pixel;
     * the separable value is 1 + 2 I(1.5) - 3 I(1.25) + 0.5 I(1.75) with
     * I(u) = sum_k keys(u - k) k over the four taps (written out here from
     * the Keys formula, independent of the library) */
    CHECK(NEAR(out, 1.0 + 2.0 * keys_mean(1.5) - 3.0 * keys_mean(1.25) + 0.5 * keys_mean(1.75),
               1e-13),
          "tricubic separable linear %g", out);
    /* tricubic separable hand value: data = f(z) only (constant in x, y) at
     * z = 1.5 -> the 1-D bicubic weights */
    for (int z = 0; z < 4; z++)
        for (int i = 0; i < 16; i++)
            lin[z * 16 + i] = row[z];
    gpt[2] = g_of_u(1.5, 4, 0);
    a5 = attrs(22, BC, B, 0);
    CHECK(drs_grid_sample_forward(&y5, &xl, &g5, &a5) == DRS_OK, "%s", drs_last_error());
    CHECK(NEAR(out, -0.09375 * 1 + 0.59375 * 2 + 0.59375 * 4 - 0.09375 * 8, 1e-13),
          "tricubic separable %g", out);
}

/* ------------------------------------------------------------ integer data */
static void test_integer(void)
{
    /* u8 [1,1,1,2] = {0, 3}: bilinear at u = 0.5 -> 1.5 -> 2 (half to even);
     * u = 0.25 -> 0.75 -> 1; i32 saturation is not reachable by convex
     * weights, bicubic overshoot is: {0,255,255,0} at u=1.5... stays in range,
     * so use {255, 0, 0, 255} at u = 0.5 with align_corners=1 (negative lobe) */
    uint8_t x[2] = {0, 3}, y = 99;
    float gr[2] = {0.0f, 0.0f};
    drs_tensor xt = {DRS_U8, 4, {1, 1, 1, 2}, x};
    drs_tensor gt = {DRS_F32, 4, {1, 1, 1, 2}, gr};
    drs_tensor yt = {DRS_U8, 4, {1, 1, 1, 1}, &y};
    drs_grid_sample_attrs a = attrs(9, DRS_GRID_BILINEAR, DRS_GRID_PAD_ZEROS, 1);
    CHECK(drs_grid_sample_forward(&yt, &xt, &gt, &a) == DRS_OK, "%s", drs_last_error());
    CHECK(y == 2, "u8 half to even: got %d", y);
    gr[0] = -0.5f; /* u = 0.25 */
    CHECK(drs_grid_sample_forward(&yt, &xt, &gt, &a) == DRS_OK, "%s", drs_last_error());
    CHECK(y == 1, "u8 0.75 -> 1: got %d", y);
    uint8_t x4[4] = {0, 255, 255, 0};
    drs_tensor x4t = {DRS_U8, 4, {1, 1, 1, 4}, x4};
    a.mode = DRS_GRID_BICUBIC;
    gr[0] = (float)g_of_u(1.5, 4, 1); /* 0.59375*510 - 0 = 302.8 -> saturates 255 */
    CHECK(drs_grid_sample_forward(&yt, &x4t, &gt, &a) == DRS_OK, "%s", drs_last_error());
    CHECK(y == 255, "u8 saturation: got %d", y);
    int32_t xi[4] = {-7, 100, 1000, 5}, yi = 0;
    drs_tensor xit = {DRS_I32, 4, {1, 1, 1, 4}, xi};
    drs_tensor yit = {DRS_I32, 4, {1, 1, 1, 1}, &yi};
    a.mode = DRS_GRID_BILINEAR;
    gr[0] = (float)g_of_u(1.25, 4, 1); /* 0.75*100 + 0.25*1000 = 325 */
    CHECK(drs_grid_sample_forward(&yit, &xit, &gt, &a) == DRS_OK, "%s", drs_last_error());
    CHECK(yi == 325, "i32: got %d", yi);
}

/* ------------------------------------------------------------ gradients */
typedef struct gcase {
    int version, S;
    drs_grid_mode mode;
    drs_grid_padding pad;
    int ac;
} gcase;

/* loss = <dy, y(x, g)>; returns it for finite differences */
static double loss_of(const gcase *c, const drs_tensor *x, const drs_tensor *g, const double *dy,
                      double *ybuf, int64_t ny)
{
    drs_grid_sample_attrs a = attrs(c->version, c->mode, c->pad, c->ac);
    int r;
    int64_t os[8];
    drs_grid_sample_infer_shape(&a, x, g, &r, os);
    drs_tensor y = {DRS_F64, r, {0}, ybuf};
    memcpy(y.shape, os, sizeof os);
    if (drs_grid_sample_forward(&y, x, g, &a) != DRS_OK)
        return NAN;
    double l = 0.0;
    for (int64_t i = 0; i < ny; i++)
        l += dy[i] * ybuf[i];
    return l;
}

/* Distance (pixel units) from u to the nearest kink of the mode/padding. */
static double kink_dist(double u, int64_t L, const gcase *c)
{
    double d = fabs(u - round(u)); /* integer taps (bilinear floor, cubic floor) */
    if (c->mode == DRS_GRID_NEAREST)
        d = fabs(fabs(u - floor(u)) - 0.5); /* rounding switch points */
    /* clip / reflection switch points: 0, L-1, and (align 0) -0.5, L-0.5 */
    const double pts[4] = {0.0, (double)(L - 1), -0.5, (double)L - 0.5};
    for (int i = 0; i < 4; i++)
        if (fabs(u - pts[i]) < d)
            d = fabs(u - pts[i]);
    return d;
}

static void test_fd(void)
{
    const drs_grid_mode modes[3] = {DRS_GRID_BILINEAR, DRS_GRID_NEAREST, DRS_GRID_BICUBIC};
    int nfd = 0, nadj = 0;
    for (int S = 1; S <= 3; S++)
        for (int mi = 0; mi < 3; mi++)
            for (int pad = 0; pad < 3; pad++)
                for (int ac = 0; ac < 2; ac++) {
                    gcase c = {S == 2 ? 9 : 20, S, modes[mi], (drs_grid_padding)pad, ac};
                    const int64_t N = 2, C = 2, L[3] = {5, 4, 3}, Lo[3] = {3, 2, 4};
                    drs_tensor x = {DRS_F64, S + 2, {N, C}, NULL};
                    drs_tensor g = {DRS_F64, S + 2, {N}, NULL};
                    for (int k = 0; k < S; k++) {
                        x.shape[2 + k] = L[k];
                        g.shape[1 + k] = Lo[k];
                    }
                    g.shape[S + 1] = S;
                    const int64_t nx = numel(&x), ng = numel(&g), ny = ng / S * C;
                    double *xb = malloc(sizeof(double) * (size_t)nx);
                    double *gb = malloc(sizeof(double) * (size_t)ng);
                    double *dy = malloc(sizeof(double) * (size_t)ny);
                    double *yb = malloc(sizeof(double) * (size_t)ny);
                    double *dx = malloc(sizeof(double) * (size_t)nx);
                    double *dg = malloc(sizeof(double) * (size_t)ng);
                    double *xs = malloc(sizeof(double) * (size_t)nx);
                    for (int64_t i = 0; i < nx; i++)
                        xb[i] = 2.0 * urand() - 1.0;
                    for (int64_t i = 0; i < ny; i++)
                        dy[i] = 2.0 * urand() - 1.0;
                    /* grid points in [-1.7, 1.7], kept 1e-3 px away from kinks */
                    for (int64_t i = 0; i < ng; i++) {
                        const int k = (int)(i % S);
                        const int64_t Lk = L[S - 1 - k]; /* component k -> axis S-1-k */
                        double v;
                        do {
                            v = 3.4 * urand() - 1.7;
                        } while (kink_dist(ac ? (v + 1) / 2 * (Lk - 1) : ((v + 1) * Lk - 1) / 2,
                                           Lk, &c) < 1e-3);
                        gb[i] = v;
                    }
                    x.data = xb;
                    g.data = gb;
                    drs_tensor tdx = x, tdg = g, tdy;
                    tdx.data = dx;
                    tdg.data = dg;
                    tdy.dtype = DRS_F64;
                    tdy.rank = S + 2;
                    tdy.shape[0] = N;
                    tdy.shape[1] = C;
                    for (int k = 0; k < S; k++)
                        tdy.shape[2 + k] = Lo[k];
                    tdy.data = dy;
                    drs_grid_sample_attrs a = attrs(c.version, c.mode, c.pad, c.ac);
                    drs_status s =
                        drs_grid_sample_backward(&tdx, &tdg, &tdy, &x, &g, &a, DRS_GRAD_OVERWRITE);
                    CHECK(s == DRS_OK, "backward: %s", drs_last_error());
                    /* adjoint: <F x, dy> = <x, F^T dy> (the loss is linear in x) */
                    const double l0 = loss_of(&c, &x, &g, dy, yb, ny);
                    double ip = 0.0;
                    for (int64_t i = 0; i < nx; i++)
                        ip += xb[i] * dx[i];
                    CHECK(NEAR(l0, ip, 1e-12 * (1.0 + fabs(l0))),
                          "adjoint S=%d mode=%d pad=%d ac=%d: %.17g vs %.17g", S, mi, pad, ac,
                          l0, ip);
                    nadj++;
                    /* grid gradient: central differences, h = 1e-6 */
                    const double h = 1e-6;
                    double worst = 0.0;
                    for (int64_t i = 0; i < ng; i++) {
                        const double keep = gb[i];
                        gb[i] = keep + h;
                        const double lp = loss_of(&c, &x, &g, dy, yb, ny);
                        gb[i] = keep - h;
                        const double lm = loss_of(&c, &x, &g, dy, yb, ny);
                        gb[i] = keep;
                        const double fd = (lp - lm) / (2.0 * h);
                        const double e = fabs(fd - dg[i]);
                        if (e > worst)
                            worst = e;
                        if (c.mode == DRS_GRID_NEAREST)
                            CHECK(dg[i] == 0.0, "nearest grid gradient must be 0, got %g", dg[i]);
                    }
                    CHECK(worst < 1e-6, "grid FD S=%d mode=%d pad=%d ac=%d: worst %g", S, mi,
                          pad, ac, worst);
                    nfd++;
                    /* accumulate mode adds exactly once more */
                    memcpy(xs, dx, sizeof(double) * (size_t)nx);
                    s = drs_grid_sample_backward(&tdx, NULL, &tdy, &x, &g, &a,
                                                 DRS_GRAD_ACCUMULATE);
                    int acc_ok = s == DRS_OK;
                    for (int64_t i = 0; i < nx && acc_ok; i++)
                        acc_ok = NEAR(dx[i], 2.0 * xs[i], 1e-14 * (1 + fabs(xs[i])));
                    CHECK(acc_ok, "accumulate S=%d mode=%d pad=%d", S, mi, pad);
                    free(xb), free(gb), free(dy), free(yb), free(dx), free(dg), free(xs);
                }
    printf("  finite differences: %d grid-gradient cases, %d adjoint cases\n", nfd, nadj);
}

/* Exact factors of the PyTorch rules at special points (edge, reflection, clipping). */
static double grid_grad_1pt(const double *img, int64_t W, double gx, drs_grid_sample_attrs a)
{
    double grid[2] = {gx, 0.0}, dg[2] = {-7, -7}, dy = 1.0;
    drs_tensor x = {DRS_F64, 4, {1, 1, 1, W}, (void *)img};
    drs_tensor g = {DRS_F64, 4, {1, 1, 1, 2}, grid};
    drs_tensor tdy = {DRS_F64, 4, {1, 1, 1, 1}, &dy};
    drs_tensor tdg = {DRS_F64, 4, {1, 1, 1, 2}, dg};
    CHECK(drs_grid_sample_backward(NULL, &tdg, &tdy, &x, &g, &a, DRS_GRAD_OVERWRITE) == DRS_OK,
          "%s", drs_last_error());
    return dg[0];
}

static void test_grad_factors(void)
{
    const double row[4] = {1.0, 2.0, 4.0, 8.0};
    drs_grid_sample_attrs a = attrs(9, DRS_GRID_BILINEAR, DRS_GRID_PAD_BORDER, 1);
    /* border: kappa = 0 exactly at u = 0 and u = L-1, and beyond */
    CHECK(grid_grad_1pt(row, 4, -1.0, a) == 0.0, "border kappa at u=0");
    CHECK(grid_grad_1pt(row, 4, 1.0, a) == 0.0, "border kappa at u=L-1");
    CHECK(grid_grad_1pt(row, 4, 1.3, a) == 0.0, "border kappa beyond");
    /* inside: slope (x2 - x1) * du/dg = 2 * 1.5 at u = 1.25 */
    CHECK(NEAR(grid_grad_1pt(row, 4, g_of_u(1.25, 4, 1), a), 3.0, 1e-14), "border inside");
    /* reflection flips the sign: u = 4.25 (align 0) reflects to 2.75 where the
     * slope is +4; d u'/du = -1, du/dg = 2 -> -8 */
    a = attrs(9, DRS_GRID_BILINEAR, DRS_GRID_PAD_REFLECTION, 0);
    CHECK(NEAR(grid_grad_1pt(row, 4, g_of_u(4.25, 4, 0), a), -8.0, 1e-13), "reflection flip");
    /* two reflections (u = -4.75 -> 3.75 -> clipped to 3): kappa_clip 0 */
    CHECK(grid_grad_1pt(row, 4, g_of_u(-4.75, 4, 0), a) == 0.0, "reflection clip");
    /* u = -1.75 (align 0) reflects about -0.5 to 0.75: slope +1, sign -1, du/dg 2 */
    CHECK(NEAR(grid_grad_1pt(row, 4, g_of_u(-1.75, 4, 0), a), -2.0, 1e-13),
          "reflection flip left");
    /* bicubic has no padding factor: border far outside -> taps all on the edge,
     * derivative sum 0 */
    a = attrs(9, DRS_GRID_BICUBIC, DRS_GRID_PAD_BORDER, 0);
    CHECK(fabs(grid_grad_1pt(row, 4, 3.0, a)) < 1e-12, "bicubic border far");
    /* ... but next to the edge it is not zero (PyTorch: no kappa) */
    CHECK(fabs(grid_grad_1pt(row, 4, g_of_u(-0.25, 4, 0), a)) > 0.1, "bicubic border near");
    /* nearest: 0 */
    a = attrs(9, DRS_GRID_NEAREST, DRS_GRID_PAD_ZEROS, 0);
    CHECK(grid_grad_1pt(row, 4, 0.1, a) == 0.0, "nearest grid gradient");

    /* many grid points on one pixel: data gradient sums them (in point order) */
    double img[4] = {0}, grid[2 * 5], dy[5] = {1, 2, 3, 4, 5}, dx[4];
    for (int i = 0; i < 5; i++) {
        grid[2 * i] = g_of_u(2.0, 4, 1);
        grid[2 * i + 1] = 0.0;
    }
    drs_tensor x = {DRS_F64, 4, {1, 1, 1, 4}, img};
    drs_tensor g = {DRS_F64, 4, {1, 1, 5, 2}, grid};
    drs_tensor tdy = {DRS_F64, 4, {1, 1, 1, 5}, dy};
    drs_tensor tdx = {DRS_F64, 4, {1, 1, 1, 4}, dx};
    g.shape[1] = 1;
    g.shape[2] = 5;
    for (int m = 0; m < 3; m++) {
        a = attrs(9, (drs_grid_mode)m, DRS_GRID_PAD_ZEROS, 1);
        CHECK(drs_grid_sample_backward(&tdx, NULL, &tdy, &x, &g, &a, DRS_GRAD_OVERWRITE) ==
                  DRS_OK,
              "%s", drs_last_error());
        CHECK(NEAR(dx[2], 15.0, 1e-14) && NEAR(dx[0] + dx[1] + dx[3], 0.0, 1e-14),
              "many-to-one mode %d: %g %g %g %g", m, dx[0], dx[1], dx[2], dx[3]);
    }
    /* border cubic: taps clamped onto pixel 0 add there (add_value_bounded) */
    a = attrs(9, DRS_GRID_BICUBIC, DRS_GRID_PAD_BORDER, 1);
    grid[0] = g_of_u(0.0, 4, 1);
    g.shape[2] = 1;
    tdy.shape[3] = 1;
    dy[0] = 1.0;
    CHECK(drs_grid_sample_backward(&tdx, NULL, &tdy, &x, &g, &a, DRS_GRAD_OVERWRITE) == DRS_OK,
          "%s", drs_last_error());
    CHECK(NEAR(dx[0], 1.0, 1e-15) && dx[1] == 0.0, "border cubic at the edge: %g %g", dx[0],
          dx[1]);
}

/* ------------------------------------------------------------ non-finite */
static void test_nonfinite(void)
{
    const double row[4] = {1.0, 2.0, 4.0, 8.0};
    const double vals[7] = {NAN, INFINITY, -INFINITY, 1e38, -1e38, 3e38, 1e308};
    for (int m = 0; m < 3; m++)
        for (int pad = 0; pad < 3; pad++)
            for (int ac = 0; ac < 2; ac++)
                for (int v = 0; v < 7; v++) {
                    drs_grid_sample_attrs a =
                        attrs(9, (drs_grid_mode)m, (drs_grid_padding)pad, ac);
                    const double y = sample2d(row, 1, 4, vals[v], 0.0, a);
                    CHECK(isfinite(y), "non-finite grid %g mode %d pad %d: y = %g", vals[v], m,
                          pad, y);
                    if (pad == DRS_GRID_PAD_ZEROS && v < 3)
                        CHECK(y == 0.0, "zeros + %g: %g", vals[v], y);
                    if (pad != DRS_GRID_PAD_ZEROS && v == 0)
                        CHECK(y == 1.0, "NaN samples coordinate 0: %g", y);
                    if (pad != DRS_GRID_PAD_ZEROS && v == 1)
                        CHECK(y == 8.0, "+inf clamps to the last pixel: %g", y);
                    if (pad != DRS_GRID_PAD_ZEROS && v == 2)
                        CHECK(y == 1.0, "-inf clamps to the first pixel: %g", y);
                    if (pad == DRS_GRID_PAD_BORDER && v >= 3)
                        CHECK(NEAR(y, vals[v] > 0 ? 8.0 : 1.0, 1e-12), "border huge: %g", y);
                    if (v < 3)
                        CHECK(grid_grad_1pt(row, 4, vals[v], a) == 0.0,
                              "non-finite grid gradient");
                    else
                        CHECK(isfinite(grid_grad_1pt(row, 4, vals[v], a)), "huge grid gradient");
                }
    /* f32 grids with NaN and huge values through the 5-D path */
    float g5[3] = {NAN, 3e38f, -INFINITY};
    double cube[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out = -1;
    drs_tensor x = {DRS_F64, 5, {1, 1, 2, 2, 2}, cube};
    drs_tensor g = {DRS_F32, 5, {1, 1, 1, 1, 3}, g5};
    drs_tensor y = {DRS_F64, 5, {1, 1, 1, 1, 1}, &out};
    for (int m = 0; m < 3; m++)
        for (int pad = 0; pad < 3; pad++) {
            drs_grid_sample_attrs a = attrs(22, (drs_grid_mode)m, (drs_grid_padding)pad, 0);
            CHECK(drs_grid_sample_forward(&y, &x, &g, &a) == DRS_OK, "%s", drs_last_error());
            CHECK(isfinite(out), "5-D non-finite: %g", out);
        }
}

/* ------------------------------------------------------------ errors */
static void expect_err(drs_status got, drs_status want, const char *needle, const char *what)
{
    CHECK(got == want, "%s: status %d, want %d (%s)", what, got, want, drs_last_error());
    CHECK(strstr(drs_last_error(), needle) != NULL, "%s: message '%s' lacks '%s'", what,
          drs_last_error(), needle);
}

static void test_errors(void)
{
    double xb[2 * 3 * 4 * 5], gb[2 * 2 * 3 * 2], yb[2 * 3 * 2 * 3], dyb[2 * 3 * 2 * 3];
    double dxb[2 * 3 * 4 * 5], dgb[2 * 2 * 3 * 2];
    memset(xb, 0, sizeof xb);
    memset(gb, 0, sizeof gb);
    memset(dyb, 0, sizeof dyb);
    drs_tensor x = {DRS_F64, 4, {2, 3, 4, 5}, xb};
    drs_tensor g = {DRS_F64, 4, {2, 2, 3, 2}, gb};
    drs_tensor y = {DRS_F64, 4, {2, 3, 2, 3}, yb};
    drs_tensor dy = {DRS_F64, 4, {2, 3, 2, 3}, dyb};
    drs_tensor dx = {DRS_F64, 4, {2, 3, 4, 5}, dxb};
    drs_tensor dg = {DRS_F64, 4, {2, 2, 3, 2}, dgb};
    const unsigned char canary = 0xA5;
    struct {
        const char *what;
        int field; /* which thing to break */
        drs_status want;
        const char *needle;
    } cases[] = {
        {"version", 0, DRS_ERR_INVALID_ARGUMENT, "version must be 9, 16, 20 or 22, got 11"},
        {"mode", 1, DRS_ERR_INVALID_ARGUMENT, "mode must be 0..2, got 7"},
        {"padding", 2, DRS_ERR_INVALID_ARGUMENT, "padding_mode must be 0..2, got -1"},
        {"align_corners", 3, DRS_ERR_INVALID_ARGUMENT, "align_corners must be 0 or 1, got 2"},
        {"N mismatch", 4, DRS_ERR_SHAPE, "grid shape[0] (N) must be 2 (data's), got 3"},
        {"last dim", 5, DRS_ERR_SHAPE, "grid shape[3] must be 2 (the spatial rank), got 3"},
        {"grid dtype", 6, DRS_ERR_INVALID_ARGUMENT, "grid dtype must be f32 or f64, got i32"},
        {"rank 9", 7, DRS_ERR_SHAPE, "data must be 4-D"},
        {"grid rank", 8, DRS_ERR_SHAPE, "grid rank must equal data rank 4, got 3"},
        {"output shape", 9, DRS_ERR_SHAPE, "output shape[3] must be 3, got 4"},
        {"output dtype", 10, DRS_ERR_INVALID_ARGUMENT, "output dtype must be f64, got f32"},
        {"negative", 11, DRS_ERR_SHAPE, "grid shape[1] must be >= 0, got -2"},
        {"overflow", 12, DRS_ERR_OVERFLOW, "non-zero extents"},
        {"empty data, nonempty out", 13, DRS_ERR_SHAPE, "data spatial axes must be non-empty"},
        {"NULL data", 14, DRS_ERR_INVALID_ARGUMENT, "data: data pointer is NULL for 120 elements"},
        {"overlap", 15, DRS_ERR_INVALID_ARGUMENT, "output overlaps an input"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        drs_grid_sample_attrs a = attrs(9, DRS_GRID_BILINEAR, DRS_GRID_PAD_ZEROS, 0);
        drs_tensor xx = x, gg = g, yy = y;
        switch (cases[i].field) {
        case 0: a.version = 11; break;
        case 1: a.mode = (drs_grid_mode)7; break;
        case 2: a.padding_mode = (drs_grid_padding)-1; break;
        case 3: a.align_corners = 2; break;
        case 4: gg.shape[0] = 3; break;
        case 5: gg.shape[3] = 3; break;
        case 6: gg.dtype = DRS_I32; break;
        case 7: xx.rank = 5; xx.shape[4] = 1; gg.rank = 5; gg.shape[4] = 3; break;
        case 8: gg.rank = 3; break;
        case 9: yy.shape[3] = 4; break;
        case 10: yy.dtype = DRS_F32; break;
        case 11: gg.shape[1] = -2; break;
        case 12: xx.shape[2] = INT64_MAX / 2; xx.shape[3] = 4; break;
        case 13: xx.shape[2] = 0; break;
        case 14: xx.data = NULL; break;
        case 15: yy.data = xb; break;
        }
        memset(yb, canary, sizeof yb);
        memset(xb, 0, sizeof xb);
        expect_err(drs_grid_sample_forward(&yy, &xx, &gg, &a), cases[i].want, cases[i].needle,
                   cases[i].what);
        int untouched = 1;
        if (cases[i].field != 15)
            for (size_t k = 0; k < sizeof yb; k++)
                untouched &= ((unsigned char *)yb)[k] == canary;
        CHECK(untouched, "%s: output written on error", cases[i].what);
    }
    /* backward rejections: gradients untouched */
    struct {
        const char *what;
        int field;
        drs_status want;
        const char *needle;
    } bc[] = {
        {"dy shape", 0, DRS_ERR_SHAPE, "output_delta shape[2] must be 2, got 3"},
        {"dy dtype", 1, DRS_ERR_INVALID_ARGUMENT, "output_delta dtype must be f64, got f32"},
        {"dx shape", 2, DRS_ERR_SHAPE, "data_delta shape[1] must be 3, got 1"},
        {"dg dtype", 3, DRS_ERR_INVALID_ARGUMENT, "grid_delta dtype must be f64, got f32"},
        {"int data", 4, DRS_ERR_UNSUPPORTED, "gradients need f32 or f64 data, got i32"},
        {"grad mode", 5, DRS_ERR_INVALID_ARGUMENT, "mode must be 0 or 1, got 3"},
        {"dx overlaps dy", 6, DRS_ERR_INVALID_ARGUMENT, "overlaps an input"},
        {"dx overlaps dg", 7, DRS_ERR_INVALID_ARGUMENT, "data_delta and grid_delta overlap"},
        {"grid last dim", 8, DRS_ERR_SHAPE, "grid shape[3] must be 2"},
    };
    for (size_t i = 0; i < sizeof bc / sizeof bc[0]; i++) {
        drs_grid_sample_attrs a = attrs(9, DRS_GRID_BICUBIC, DRS_GRID_PAD_BORDER, 1);
        drs_tensor xx = x, gg = g, ddy = dy, ddx = dx, ddg = dg;
        drs_grad_mode gm = DRS_GRAD_OVERWRITE;
        switch (bc[i].field) {
        case 0: ddy.shape[2] = 3; break;
        case 1: ddy.dtype = DRS_F32; break;
        case 2: ddx.shape[1] = 1; break;
        case 3: ddg.dtype = DRS_F32; break;
        case 4: xx.dtype = DRS_I32; break;
        case 5: gm = (drs_grad_mode)3; break;
        case 6: ddx.data = dyb; break; /* dx (120 doubles) over dy: rejected before any write */
        case 7: ddg.data = dxb; break;
        case 8: gg.shape[3] = 1; ddg.shape[3] = 1; break;
        }
        memset(dxb, canary, sizeof dxb);
        memset(dgb, canary, sizeof dgb);
        unsigned char dysave[sizeof dyb];
        memcpy(dysave, dyb, sizeof dyb);
        expect_err(drs_grid_sample_backward(&ddx, &ddg, &ddy, &xx, &gg, &a, gm), bc[i].want,
                   bc[i].needle, bc[i].what);
        int untouched = memcmp(dysave, dyb, sizeof dyb) == 0;
        for (size_t k = 0; k < sizeof dxb; k++)
            untouched &= ((unsigned char *)dxb)[k] == canary;
        for (size_t k = 0; k < sizeof dgb; k++)
            untouched &= ((unsigned char *)dgb)[k] == canary;
        CHECK(untouched, "%s: gradient written on error", bc[i].what);
    }
    /* ONNX 20 rank 6 is unsupported (3 spatial axes at most); rank 2 a shape error */
    drs_tensor x6 = {DRS_F64, 6, {1, 1, 1, 1, 1, 1}, xb}, g6 = {DRS_F64, 6, {1, 1, 1, 1, 1, 4}, gb};
    drs_grid_sample_attrs a20 = attrs(20, DRS_GRID_BILINEAR, DRS_GRID_PAD_ZEROS, 0);
    int r;
    int64_t os[8];
    expect_err(drs_grid_sample_infer_shape(&a20, &x6, &g6, &r, os), DRS_ERR_UNSUPPORTED,
               "data rank must be 3, 4 or 5", "rank 6");
    drs_tensor x2 = {DRS_F64, 2, {1, 1}, xb}, g2 = {DRS_F64, 2, {1, 0}, gb};
    expect_err(drs_grid_sample_infer_shape(&a20, &x2, &g2, &r, os), DRS_ERR_SHAPE,
               "data rank must be 3, 4 or 5", "rank 2");
    /* shape inference reads shapes only: views without data pointers are fine */
    drs_tensor xv = {DRS_F32, 4, {2, 3, 4, 5}, NULL}, gv = {DRS_F32, 4, {2, 7, 9, 2}, NULL};
    CHECK(drs_grid_sample_infer_shape(&a20, &xv, &gv, &r, os) == DRS_OK && r == 4 && os[2] == 7 &&
              os[3] == 9,
          "infer without data: %s", drs_last_error());
    /* GridSample-16 is 4-D only */
    drs_grid_sample_attrs a16 = attrs(16, DRS_GRID_BILINEAR, DRS_GRID_PAD_ZEROS, 0);
    drs_tensor x5 = {DRS_F64, 5, {1, 1, 1, 1, 1}, xb}, g5 = {DRS_F64, 5, {1, 1, 1, 1, 3}, gb};
    expect_err(drs_grid_sample_infer_shape(&a16, &x5, &g5, &r, os), DRS_ERR_SHAPE,
               "data must be 4-D", "16 5-D");

    /* empty outputs are valid: Ho = 0, N = 0, C = 0 (with large other sizes
     * whose non-zero extents still fit in 64 bits) */
    drs_grid_sample_attrs a = attrs(9, DRS_GRID_BICUBIC, DRS_GRID_PAD_REFLECTION, 0);
    drs_tensor ge = g, ye = y;
    ge.shape[1] = 0;
    ye.shape[2] = 0;
    CHECK(drs_grid_sample_forward(&ye, &x, &ge, &a) == DRS_OK, "Ho=0: %s", drs_last_error());
    drs_tensor xn = {DRS_F64, 4, {0, 3, 1000000, 1000000}, NULL};
    drs_tensor gn = {DRS_F64, 4, {0, 100000, 100000, 2}, NULL};
    drs_tensor yn = {DRS_F64, 4, {0, 3, 100000, 100000}, NULL};
    CHECK(drs_grid_sample_forward(&yn, &xn, &gn, &a) == DRS_OK, "N=0: %s", drs_last_error());
    drs_tensor dyn = yn, dxn = xn, dgn = gn;
    CHECK(drs_grid_sample_backward(&dxn, &dgn, &dyn, &xn, &gn, &a, DRS_GRAD_OVERWRITE) == DRS_OK,
          "N=0 backward: %s", drs_last_error());
    /* fuzz_ops regression: an empty batch whose grid's point count overflows
     * int64 (8467847891884938657 x 5 points per image): the shape is rejected
     * (its non-zero extents overflow), whatever the batch */
    drs_tensor gh = {DRS_F64, 4, {0, 8467847891884938657LL, 5, 2}, NULL};
    drs_tensor yh = {DRS_F64, 4, {0, 3, 8467847891884938657LL, 5}, NULL};
    expect_err(drs_grid_sample_forward(&yh, &x, &gh, &a), DRS_ERR_OVERFLOW, "grid: shape",
               "huge grid, N mismatch");
    drs_tensor xh0 = x;
    xh0.shape[0] = 0;
    xh0.data = NULL;
    expect_err(drs_grid_sample_forward(&yh, &xh0, &gh, &a), DRS_ERR_OVERFLOW, "grid: shape",
               "empty batch, huge grid");
    drs_tensor dxh = xh0;
    drs_tensor dgh = gh;
    expect_err(drs_grid_sample_backward(&dxh, &dgh, &yh, &xh0, &gh, &a, DRS_GRAD_OVERWRITE),
               DRS_ERR_OVERFLOW, "non-zero extents", "empty batch, huge grid backward");
    /* C = 0 with an unrepresentable pixel count: rejected, grid_delta untouched */
    double gq[2 * 2 * 3 * 2];
    memset(gq, 0x7f, sizeof gq);
    drs_tensor xq = {DRS_F64, 4, {2, 0, 4611686018427387904LL, 4}, NULL};
    drs_tensor yq = {DRS_F64, 4, {2, 0, 2, 3}, NULL}, gq_t = {DRS_F64, 4, {2, 2, 3, 2}, gq};
    expect_err(drs_grid_sample_backward(NULL, &gq_t, &yq, &xq, &g, &a, DRS_GRAD_OVERWRITE),
               DRS_ERR_OVERFLOW, "data: shape", "C=0 huge pixels");
    CHECK(gq[0] != 0.0 && gq[11] != 0.0, "C=0 huge pixels: grid_delta untouched");
    /* C = 0: grid_delta is all zeros (no channel contributes) */
    double gz[2 * 2 * 3 * 2];
    memset(gz, 0x7f, sizeof gz);
    drs_tensor xc0 = {DRS_F64, 4, {2, 0, 4, 5}, NULL}, yc0 = {DRS_F64, 4, {2, 0, 2, 3}, NULL};
    drs_tensor gz_t = {DRS_F64, 4, {2, 2, 3, 2}, gz};
    CHECK(drs_grid_sample_backward(NULL, &gz_t, &yc0, &xc0, &g, &a, DRS_GRAD_OVERWRITE) == DRS_OK,
          "C=0 backward: %s", drs_last_error());
    int zero = 1;
    for (int i = 0; i < 12; i++)
        zero &= gz[i] == 0.0;
    CHECK(zero, "C=0: grid_delta zeros");
}

/* ------------------------------------------------------------ threads */
static void test_threads(void)
{
    const drs_grid_mode modes[3] = {DRS_GRID_BILINEAR, DRS_GRID_NEAREST, DRS_GRID_BICUBIC};
    int ncases = 0;
    for (int S = 2; S <= 3; S++)
        for (int mi = 0; mi < 3; mi++)
            for (int pad = 0; pad < 3; pad++)
                for (int dt = 0; dt < 2; dt++) {
                    const drs_dtype T = dt ? DRS_F64 : DRS_F32;
                    const size_t es = drs_dtype_size(T);
                    /* N = 1, C = 2: the parallel path must not depend on N */
                    drs_tensor x = {T, S + 2, {1, 2}, NULL}, g = {T, S + 2, {1}, NULL};
                    const int64_t Lin = S == 2 ? 61 : 13, Lout = S == 2 ? 97 : 17;
                    for (int k = 0; k < S; k++) {
                        x.shape[2 + k] = Lin;
                        g.shape[1 + k] = Lout;
                    }
                    g.shape[S + 1] = S;
                    const int64_t nx = numel(&x), ng = numel(&g), ny = ng / S * 2;
                    unsigned char *xb = malloc((size_t)nx * es), *gb = malloc((size_t)ng * es);
                    unsigned char *dyb = malloc((size_t)ny * es);
                    unsigned char *res[3][3];
                    for (int64_t i = 0; i < nx; i++) {
                        const double v = 2 * urand() - 1;
                        if (dt) ((double *)xb)[i] = v; else ((float *)xb)[i] = (float)v;
                    }
                    for (int64_t i = 0; i < ng; i++) { /* an affine-ish grid + noise */
                        const double v = 2.4 * urand() - 1.2;
                        if (dt) ((double *)gb)[i] = v; else ((float *)gb)[i] = (float)v;
                    }
                    for (int64_t i = 0; i < ny; i++) {
                        const double v = 2 * urand() - 1;
                        if (dt) ((double *)dyb)[i] = v; else ((float *)dyb)[i] = (float)v;
                    }
                    x.data = xb;
                    g.data = gb;
                    drs_grid_sample_attrs a = attrs(S == 2 ? 9 : 20, modes[mi], (drs_grid_padding)pad, pad == 1);
                    const int threads[3] = {1, 2, 4};
                    for (int t = 0; t < 3; t++) {
                        drs_set_num_threads(threads[t]);
                        res[t][0] = malloc((size_t)ny * es);
                        res[t][1] = malloc((size_t)nx * es);
                        res[t][2] = malloc((size_t)ng * es);
                        drs_tensor y = {T, S + 2, {1, 2}, res[t][0]};
                        for (int k = 0; k < S; k++)
                            y.shape[2 + k] = Lout;
                        drs_tensor dy = y;
                        dy.data = dyb;
                        drs_tensor dx = x, dg = g;
                        dx.data = res[t][1];
                        dg.data = res[t][2];
                        CHECK(drs_grid_sample_forward(&y, &x, &g, &a) == DRS_OK, "%s", drs_last_error());
                        CHECK(drs_grid_sample_backward(&dx, &dg, &dy, &x, &g, &a, DRS_GRAD_OVERWRITE) == DRS_OK,
                              "%s", drs_last_error());
                    }
                    for (int t = 1; t < 3; t++) {
                        CHECK(memcmp(res[0][0], res[t][0], (size_t)ny * es) == 0, "threads fwd S=%d m=%d p=%d t=%d", S, mi, pad, threads[t]);
                        CHECK(memcmp(res[0][1], res[t][1], (size_t)nx * es) == 0, "threads dx S=%d m=%d p=%d t=%d", S, mi, pad, threads[t]);
                        CHECK(memcmp(res[0][2], res[t][2], (size_t)ng * es) == 0, "threads dg S=%d m=%d p=%d t=%d", S, mi, pad, threads[t]);
                    }
                    for (int t = 0; t < 3; t++)
                        for (int k = 0; k < 3; k++)
                            free(res[t][k]);
                    free(xb), free(gb), free(dyb);
                    ncases++;
                }
    drs_set_num_threads(2);
    printf("  threads: %d configurations bitwise equal at 1/2/4 threads\n", ncases);
}

/* NaN payloads in output_delta: two points sharing their 4 pixels carry +NaN
 * (payload 1) and -NaN (payload 2) in every channel.  Which NaN survives is
 * the build's business, but it must be the same at every thread count (the
 * data gradient's scheme is chosen from the shapes alone). */
static void test_nan_threads(void)
{
    enum { C = 16 };
    drs_grid_sample_attrs a = drs_grid_sample_attrs_default(16);
    static double x[C * 25], dx[C * 25], dy[C * 2];
    double gg[4] = {0.1, 0.1, 0.15, 0.12};
    drs_tensor X = {DRS_F64, 4, {1, C, 5, 5}, x}, G = {DRS_F64, 4, {1, 1, 2, 2}, gg};
    drs_tensor DY = {DRS_F64, 4, {1, C, 1, 2}, dy}, DX = {DRS_F64, 4, {1, C, 5, 5}, dx};
    const uint64_t pn = 0x7ff8000000000001ULL, nn = 0xfff8000000000002ULL;
    for (int c = 0; c < C; c++) {
        memcpy(&dy[2 * c], &pn, 8);
        memcpy(&dy[2 * c + 1], &nn, 8);
    }
    const int threads[4] = {1, 2, 4, 8};
    uint64_t ref = 0;
    for (int t = 0; t < 4; t++) {
        drs_set_num_threads(threads[t]);
        const drs_status s = drs_grid_sample_backward(&DX, NULL, &DY, &X, &G, &a,
                                                      DRS_GRAD_OVERWRITE);
        uint64_t b;
        memcpy(&b, &dx[12], 8);
        CHECK(s == DRS_OK && dx[12] != dx[12], "NaN data gradient (status %d)", (int)s);
        if (t == 0)
            ref = b;
        CHECK(b == ref, "NaN bits at %d threads: %016llx, at 1: %016llx", threads[t],
              (unsigned long long)b, (unsigned long long)ref);
    }
}

/* Backward with enough images to share them among the threads (N = 8,
 * C = 16: each thread then takes whole images): the gradients must be the
 * same bits at every thread count, overwritten and accumulated. */
static void test_image_threads(void)
{
    const drs_grid_mode modes[3] = {DRS_GRID_BILINEAR, DRS_GRID_NEAREST, DRS_GRID_BICUBIC};
    enum { N = 8, C = 16, H = 21, W = 23, Ho = 17, Wo = 19 };
    const int64_t nx = (int64_t)N * C * H * W, ng = (int64_t)N * Ho * Wo * 2;
    const int64_t ny = (int64_t)N * C * Ho * Wo;
    float *x = malloc((size_t)nx * 4), *g = malloc((size_t)ng * 4), *dy = malloc((size_t)ny * 4);
    float *dx = malloc((size_t)nx * 4), *dg = malloc((size_t)ng * 4);
    float *dx1 = malloc((size_t)nx * 4), *dg1 = malloc((size_t)ng * 4);
    float *dxo = malloc((size_t)nx * 4); /* the overwrite result of the same mode */
    CHECK(x && g && dy && dx && dg && dx1 && dg1 && dxo, "test_image_threads: out of memory");
    if (!(x && g && dy && dx && dg && dx1 && dg1 && dxo))
        return;
    fill_f32(x, nx, 2, 1);
    fill_f32(g, ng, 2.4, 1.2);
    fill_f32(dy, ny, 2, 1);
    drs_tensor X = {DRS_F32, 4, {N, C, H, W}, x}, G = {DRS_F32, 4, {N, Ho, Wo, 2}, g};
    drs_tensor DY = {DRS_F32, 4, {N, C, Ho, Wo}, dy};
    drs_tensor DX = {DRS_F32, 4, {N, C, H, W}, dx}, DG = {DRS_F32, 4, {N, Ho, Wo, 2}, dg};
    const int threads[5] = {1, 2, 3, 4, 8};
    int ncases = 0;
    for (int mi = 0; mi < 3; mi++)
        for (int pad = 0; pad < 3; pad++)
            for (int acc = 0; acc < 2; acc++) {
                drs_grid_sample_attrs a = attrs(9, modes[mi], (drs_grid_padding)pad, 0);
                for (int t = 0; t < 5; t++) {
                    drs_set_num_threads(threads[t]);
                    for (int64_t i = 0; i < nx; i++) /* accumulate: onto a known start */
                        dx[i] = (float)(i % 7) * 0.25f;
                    for (int64_t i = 0; i < ng; i++)
                        dg[i] = (float)(i % 5) * 0.5f;
                    CHECK(drs_grid_sample_backward(&DX, &DG, &DY, &X, &G, &a,
                                                   acc ? DRS_GRAD_ACCUMULATE : DRS_GRAD_OVERWRITE) ==
                              DRS_OK, "%s", drs_last_error());
                    if (t == 0) {
                        memcpy(dx1, dx, (size_t)nx * 4);
                        memcpy(dg1, dg, (size_t)ng * 4);
                        if (!acc) {
                            memcpy(dxo, dx, (size_t)nx * 4);
                            continue;
                        }
                        /* accumulate = the start + the overwrite result, every pixel
                         * (those no point reaches keep the start) */
                        int64_t bad = -1;
                        for (int64_t i = 0; i < nx && bad < 0; i++) {
                            const double want = (double)((float)(i % 7) * 0.25f) + dxo[i];
                            if (fabs((double)dx[i] - want) > 1e-6 * (1.0 + fabs(want)))
                                bad = i;
                        }
                        CHECK(bad < 0, "image threads accumulate m=%d p=%d: dx[%lld] = %g, expected %g",
                              mi, pad, (long long)bad, bad < 0 ? 0.0 : (double)dx[bad],
                              bad < 0 ? 0.0 : (double)((float)(bad % 7) * 0.25f) + dxo[bad]);
                        continue;
                    }
                    CHECK(memcmp(dx, dx1, (size_t)nx * 4) == 0, "image threads dx m=%d p=%d acc=%d t=%d", mi, pad, acc, threads[t]);
                    CHECK(memcmp(dg, dg1, (size_t)ng * 4) == 0, "image threads dg m=%d p=%d acc=%d t=%d", mi, pad, acc, threads[t]);
                }
                ncases++;
            }
    drs_set_num_threads(2);
    free(x), free(g), free(dy), free(dx), free(dg), free(dx1), free(dg1), free(dxo);
    printf("  image tasks: %d configurations bitwise equal at 1/2/3/4/8 threads\n", ncases);
}

/* f32 data: every output is the f64 path's sum rounded once, so the f32
 * forward must equal (float) of the f64 forward on the same values, bit for
 * bit, whichever kernel takes a point (channel groups and their remainder,
 * partial tiles, taps outside with zeros padding, a spread-out grid whose
 * tiles are too wide to copy, infinities and NaNs in the data). */
static void test_f32_matches_f64(void)
{
    const drs_grid_mode modes[3] = {DRS_GRID_BILINEAR, DRS_GRID_NEAREST, DRS_GRID_BICUBIC};
    const int64_t Cs[4] = {1, 3, 4, 9};
    int ncases = 0;
    for (int ci = 0; ci < 4; ci++)
        for (int mi = 0; mi < 3; mi++)
            for (int pad = 0; pad < 3; pad++)
                for (int kind = 0; kind < 3; kind++) { /* affine, spread-out, non-finite */
                    const int64_t N = 2, C = Cs[ci], H = 37, W = 45, Ho = 29, Wo = 51;
                    const int64_t nx = N * C * H * W, ng = N * Ho * Wo * 2, ny = N * C * Ho * Wo;
                    float *xf = malloc((size_t)nx * 4), *gf = malloc((size_t)ng * 4);
                    float *yf = malloc((size_t)ny * 4);
                    double *xd = malloc((size_t)nx * 8), *yd = malloc((size_t)ny * 8);
                    for (int64_t i = 0; i < nx; i++) {
                        xf[i] = (float)(2 * urand() - 1);
                        if (kind == 2 && i % 97 == 5)
                            xf[i] = i % 3 ? INFINITY : NAN;
                        xd[i] = xf[i];
                    }
                    const double ang = 0.3, sc = kind == 1 ? 7.0 : 1.1;
                    for (int64_t n = 0; n < N; n++)
                        for (int64_t i = 0; i < Ho; i++)
                            for (int64_t j = 0; j < Wo; j++) {
                                const double u = (2.0 * j + 1.0) / Wo - 1.0;
                                const double v = (2.0 * i + 1.0) / Ho - 1.0;
                                float *g = gf + ((n * Ho + i) * Wo + j) * 2;
                                g[0] = (float)(sc * (cos(ang) * u - sin(ang) * v) + 0.05 * n);
                                g[1] = (float)(sc * (sin(ang) * u + cos(ang) * v) - 0.02);
                            }
                    drs_tensor X = {DRS_F32, 4, {N, C, H, W}, xf}, G = {DRS_F32, 4, {N, Ho, Wo, 2}, gf};
                    drs_tensor Y = {DRS_F32, 4, {N, C, Ho, Wo}, yf};
                    drs_tensor XD = {DRS_F64, 4, {N, C, H, W}, xd}, YD = {DRS_F64, 4, {N, C, Ho, Wo}, yd};
                    drs_grid_sample_attrs a = attrs(9, modes[mi], (drs_grid_padding)pad, kind == 1);
                    CHECK(drs_grid_sample_forward(&Y, &X, &G, &a) == DRS_OK, "%s", drs_last_error());
                    CHECK(drs_grid_sample_forward(&YD, &XD, &G, &a) == DRS_OK, "%s", drs_last_error());
                    int64_t bad = 0, first = -1;
                    for (int64_t i = 0; i < ny; i++) {
                        const float r = (float)yd[i];
                        if (memcmp(&r, &yf[i], 4) != 0 && bad++ == 0)
                            first = i;
                    }
                    CHECK(bad == 0, "f32 != (float)f64: C=%lld mode=%d pad=%d kind=%d, %lld outputs, "
                          "first at %lld: %.9g vs %.9g", (long long)C, mi, pad, kind, (long long)bad,
                          (long long)first, first >= 0 ? (double)yf[first] : 0.0,
                          first >= 0 ? yd[first] : 0.0);
                    /* the backward: data and grid gradients of f32 data against the
                     * f64 data path (the same f32 grid), rounded */
                    float *dyf = malloc((size_t)ny * 4), *dxf = malloc((size_t)nx * 4);
                    float *dgf = malloc((size_t)ng * 4), *dgf2 = malloc((size_t)ng * 4);
                    double *dyd = malloc((size_t)ny * 8), *dxd = malloc((size_t)nx * 8);
                    for (int64_t i = 0; i < ny; i++)
                        dyd[i] = dyf[i] = (float)(2 * urand() - 1);
                    drs_tensor DYF = Y, DXF = X, DGF = G, DYD = YD, DXD = XD, DGF2 = G;
                    DYF.data = dyf, DXF.data = dxf, DGF.data = dgf, DYD.data = dyd;
                    DXD.data = dxd, DGF2.data = dgf2;
                    CHECK(drs_grid_sample_backward(&DXF, &DGF, &DYF, &X, &G, &a, DRS_GRAD_OVERWRITE) ==
                              DRS_OK, "%s", drs_last_error());
                    CHECK(drs_grid_sample_backward(&DXD, &DGF2, &DYD, &XD, &G, &a,
                                                   DRS_GRAD_OVERWRITE) == DRS_OK, "%s",
                          drs_last_error());
                    /* (two NaNs count as equal: where different NaNs meet in a
                     * sum, which one survives is the compiler's choice) */
                    int64_t bdx = 0, bdg = 0;
                    for (int64_t i = 0; i < nx; i++) {
                        const float r = (float)dxd[i];
                        bdx += memcmp(&r, &dxf[i], 4) != 0 && !(isnan(r) && isnan(dxf[i]));
                    }
                    for (int64_t i = 0; i < ng; i++)
                        bdg += memcmp(&dgf[i], &dgf2[i], 4) != 0 &&
                               !(isnan(dgf[i]) && isnan(dgf2[i]));
                    CHECK(bdx == 0 && bdg == 0, "f32 gradients != f64 data path's: C=%lld mode=%d "
                          "pad=%d kind=%d, %lld data and %lld grid elements differ", (long long)C,
                          mi, pad, kind, (long long)bdx, (long long)bdg);
                    /* and with an f64 grid (the same values): its gradient in f64 */
                    double *gd = malloc((size_t)ng * 8), *dgd = malloc((size_t)ng * 8);
                    double *dgd2 = malloc((size_t)ng * 8);
                    for (int64_t i = 0; i < ng; i++)
                        gd[i] = gf[i];
                    drs_tensor GD = {DRS_F64, 4, {N, Ho, Wo, 2}, gd}, DGD = GD, DGD2 = GD;
                    DGD.data = dgd, DGD2.data = dgd2;
                    CHECK(drs_grid_sample_backward(NULL, &DGD, &DYF, &X, &GD, &a,
                                                   DRS_GRAD_OVERWRITE) == DRS_OK, "%s",
                          drs_last_error());
                    CHECK(drs_grid_sample_backward(NULL, &DGD2, &DYD, &XD, &GD, &a,
                                                   DRS_GRAD_OVERWRITE) == DRS_OK, "%s",
                          drs_last_error());
                    /* the forward with the f64 grid too */
                    CHECK(drs_grid_sample_forward(&Y, &X, &GD, &a) == DRS_OK, "%s", drs_last_error());
                    CHECK(drs_grid_sample_forward(&YD, &XD, &GD, &a) == DRS_OK, "%s",
                          drs_last_error());
                    int64_t byd = 0;
                    for (int64_t i = 0; i < ny; i++) {
                        const float r = (float)yd[i];
                        byd += memcmp(&r, &yf[i], 4) != 0;
                    }
                    CHECK(byd == 0, "f32 != (float)f64 with an f64 grid: C=%lld mode=%d pad=%d "
                          "kind=%d, %lld outputs differ", (long long)C, mi, pad, kind, (long long)byd);
                    int64_t bdgd = 0;
                    for (int64_t i = 0; i < ng; i++)
                        bdgd += memcmp(&dgd[i], &dgd2[i], 8) != 0 &&
                                !(isnan(dgd[i]) && isnan(dgd2[i]));
                    CHECK(bdgd == 0, "f64-grid gradient of f32 data != f64 data path's: C=%lld "
                          "mode=%d pad=%d kind=%d, %lld elements differ", (long long)C, mi, pad,
                          kind, (long long)bdgd);
                    free(gd), free(dgd), free(dgd2);
                    free(dyf), free(dxf), free(dgf), free(dgf2), free(dyd), free(dxd);
                    free(xf), free(gf), free(yf), free(xd), free(yd);
                    ncases++;
                }
    printf("  f32 = rounded f64 (forward, data and grid gradients): %d configurations bitwise\n",
           ncases);
}

/* Forward and data gradient (overwrite) of f64 tensors, then the adjoint
 * identity <G x, dy> = <x, G^T dy> to rounding. */
static void check_adjoint(const char *what, int mi, int pad, const drs_grid_sample_attrs *a,
                          const drs_tensor *X, const drs_tensor *G, drs_tensor *Y,
                          const drs_tensor *DY, drs_tensor *DX)
{
    CHECK(drs_grid_sample_forward(Y, X, G, a) == DRS_OK, "%s", drs_last_error());
    CHECK(drs_grid_sample_backward(DX, NULL, DY, X, G, a, DRS_GRAD_OVERWRITE) == DRS_OK, "%s",
          drs_last_error());
    const int64_t ny = numel(Y), nx = numel(X);
    const double *y = Y->data, *dy = DY->data, *x = X->data, *dx = DX->data;
    double lhs = 0, rhs = 0, mag = 0;
    for (int64_t i = 0; i < ny; i++)
        lhs += y[i] * dy[i], mag += fabs(y[i] * dy[i]);
    for (int64_t i = 0; i < nx; i++)
        rhs += x[i] * dx[i];
    CHECK(fabs(lhs - rhs) <= 1e-12 * mag, "%s adjoint m=%d p=%d: <Gx,dy> %.17g, <x,G'dy> %.17g",
          what, mi, pad, lhs, rhs);
}

/* Large images (more than 65 536 pixels, C >= 4: the banded scatter, pixels
 * in bands with each band's list of points): the f64 data gradient is the
 * forward's adjoint (<G x, dy> = <x, G^T dy> to rounding), the f32 one is the
 * f64 one rounded once (the same sums), accumulate adds the overwrite result
 * to the start, and 1/2/3/16 threads give the same bits.  C = 11: a full
 * group of 8 channels and a remainder of 3; 300 x 300: 11 bands, the last
 * partial; a random grid reaching past the borders. */
static void test_banded(void)
{
    const drs_grid_mode modes[3] = {DRS_GRID_BILINEAR, DRS_GRID_NEAREST, DRS_GRID_BICUBIC};
    enum { N = 2, C = 11, H = 300, W = 300, Ho = 150, Wo = 170 };
    const int64_t nx = (int64_t)N * C * H * W, ng = (int64_t)N * Ho * Wo * 2;
    const int64_t ny = (int64_t)N * C * Ho * Wo;
    double *x = malloc((size_t)nx * 8), *g = malloc((size_t)ng * 8), *dy = malloc((size_t)ny * 8);
    double *y = malloc((size_t)ny * 8), *dx = malloc((size_t)nx * 8);
    float *xf = malloc((size_t)nx * 4), *gf = malloc((size_t)ng * 4), *dyf = malloc((size_t)ny * 4);
    float *dxf = malloc((size_t)nx * 4), *dxf1 = malloc((size_t)nx * 4);
    const int ok = x && g && dy && y && dx && xf && gf && dyf && dxf && dxf1;
    CHECK(ok, "test_banded: out of memory");
    if (!ok)
        return;
    fill_f32(xf, nx, 2, 1);
    fill_f32(gf, ng, 2.4, 1.2);
    fill_f32(dyf, ny, 2, 1);
    for (int64_t i = 0; i < nx; i++)
        x[i] = xf[i];
    for (int64_t i = 0; i < ng; i++)
        g[i] = gf[i];
    for (int64_t i = 0; i < ny; i++)
        dy[i] = dyf[i];
    drs_tensor X = {DRS_F64, 4, {N, C, H, W}, x}, G = {DRS_F64, 4, {N, Ho, Wo, 2}, g};
    drs_tensor Y = {DRS_F64, 4, {N, C, Ho, Wo}, y}, DY = {DRS_F64, 4, {N, C, Ho, Wo}, dy};
    drs_tensor DX = {DRS_F64, 4, {N, C, H, W}, dx};
    drs_tensor XF = {DRS_F32, 4, {N, C, H, W}, xf}, GF = {DRS_F32, 4, {N, Ho, Wo, 2}, gf};
    drs_tensor DYF = {DRS_F32, 4, {N, C, Ho, Wo}, dyf}, DXF = {DRS_F32, 4, {N, C, H, W}, dxf};
    const int threads[4] = {1, 2, 3, 16};
    int ncases = 0;
    for (int mi = 0; mi < 3; mi++)
        for (int pad = 0; pad < 3; pad++) {
            drs_grid_sample_attrs a = attrs(16, modes[mi], (drs_grid_padding)pad, pad == 2);
            drs_set_num_threads(2);
            check_adjoint("banded", mi, pad, &a, &X, &G, &Y, &DY, &DX);
            for (int t = 0; t < 4; t++) {
                drs_set_num_threads(threads[t]);
                CHECK(drs_grid_sample_backward(&DXF, NULL, &DYF, &XF, &GF, &a,
                                               DRS_GRAD_OVERWRITE) == DRS_OK, "%s", drs_last_error());
                if (t == 0) {
                    int64_t bad = -1;
                    for (int64_t i = 0; i < nx && bad < 0; i++)
                        if (dxf[i] != (float)dx[i])
                            bad = i;
                    CHECK(bad < 0, "banded f32 m=%d p=%d: dx[%lld] = %.9g, the f64 sum rounded "
                          "%.9g", mi, pad, (long long)bad, bad < 0 ? 0.0 : (double)dxf[bad],
                          bad < 0 ? 0.0 : (double)(float)dx[bad]);
                    memcpy(dxf1, dxf, (size_t)nx * 4);
                } else {
                    CHECK(memcmp(dxf, dxf1, (size_t)nx * 4) == 0, "banded dx m=%d p=%d at %d "
                          "threads", mi, pad, threads[t]);
                }
            }
            /* accumulate: the start plus the same sums */
            for (int64_t i = 0; i < nx; i++)
                dxf[i] = (float)(i % 7) * 0.25f;
            CHECK(drs_grid_sample_backward(&DXF, NULL, &DYF, &XF, &GF, &a,
                                           DRS_GRAD_ACCUMULATE) == DRS_OK, "%s", drs_last_error());
            int64_t bad = -1;
            for (int64_t i = 0; i < nx && bad < 0; i++) {
                const double want = (double)((float)(i % 7) * 0.25f) + dx[i];
                if (fabs((double)dxf[i] - want) > 1e-6 * (1.0 + fabs(want)))
                    bad = i;
            }
            CHECK(bad < 0, "banded accumulate m=%d p=%d: dx[%lld]", mi, pad, (long long)bad);
            ncases++;
        }
    drs_set_num_threads(2);
    free(x), free(g), free(dy), free(y), free(dx), free(xf), free(gf), free(dyf), free(dxf),
        free(dxf1);
    printf("  banded scatter: %d configurations (adjoint, f32 = f64 rounded, accumulate, "
           "1/2/3/16 threads)\n", ncases);
}

/* Allocation failures in the data gradient's parallel schemes (whole images,
 * (image, group) pairs, bands): every failure is DRS_ERR_NOMEM with both
 * gradients untouched, and the call that succeeds gives the reference bits. */
static void sweep_case(const char *what, int64_t N, int64_t C, int64_t H, int64_t W, int threads)
{
    const int64_t Ho = 37, Wo = 41, nx = N * C * H * W, ng = N * Ho * Wo * 2,
                  ny = N * C * Ho * Wo;
    float *x = malloc((size_t)nx * 4), *g = malloc((size_t)ng * 4), *dy = malloc((size_t)ny * 4);
    float *dx0 = malloc((size_t)nx * 4), *dg0 = malloc((size_t)ng * 4);
    float *dx = malloc((size_t)nx * 4), *dg = malloc((size_t)ng * 4);
    const int ok = x && g && dy && dx0 && dg0 && dx && dg;
    CHECK(ok, "%s: out of memory", what);
    if (ok) {
        fill_f32(x, nx, 2, 1);
        fill_f32(g, ng, 2.4, 1.2);
        fill_f32(dy, ny, 2, 1);
        drs_grid_sample_attrs a = attrs(9, DRS_GRID_BILINEAR, DRS_GRID_PAD_BORDER, 0);
        drs_tensor X = {DRS_F32, 4, {N, C, H, W}, x}, G = {DRS_F32, 4, {N, Ho, Wo, 2}, g};
        drs_tensor DY = {DRS_F32, 4, {N, C, Ho, Wo}, dy};
        drs_tensor DX0 = {DRS_F32, 4, {N, C, H, W}, dx0}, DG0 = {DRS_F32, 4, {N, Ho, Wo, 2}, dg0};
        drs_tensor DX = {DRS_F32, 4, {N, C, H, W}, dx}, DG = {DRS_F32, 4, {N, Ho, Wo, 2}, dg};
        drs_set_num_threads(threads);
        CHECK(drs_grid_sample_backward(&DX0, &DG0, &DY, &X, &G, &a, DRS_GRAD_OVERWRITE) ==
                  DRS_OK, "%s: %s", what, drs_last_error());
        int nomem = 0;
        for (long n = 0; n < 200; n++) {
            memset(dx, 0xC3, (size_t)nx * 4);
            memset(dg, 0xC3, (size_t)ng * 4);
            drs_debug_fail_allocation(n);
            const drs_status s = drs_grid_sample_backward(&DX, &DG, &DY, &X, &G, &a,
                                                          DRS_GRAD_OVERWRITE);
            drs_debug_fail_allocation(-1);
            if (s == DRS_OK) {
                CHECK(memcmp(dx, dx0, (size_t)nx * 4) == 0 && memcmp(dg, dg0, (size_t)ng * 4) == 0,
                      "%s: result after %ld failed allocations differs", what, n);
                break;
            }
            nomem++;
            CHECK(s == DRS_ERR_NOMEM, "%s: allocation %ld failing gave status %d", what, n, (int)s);
            CHECK(strstr(drs_last_error(), "out of memory") != NULL, "%s: message '%s'", what,
                  drs_last_error());
            int untouched = 1;
            for (int64_t i = 0; i < nx; i += 97)
                untouched &= ((const unsigned char *)dx)[i * 4] == 0xC3;
            for (int64_t i = 0; i < ng; i += 13)
                untouched &= ((const unsigned char *)dg)[i * 4] == 0xC3;
            CHECK(untouched, "%s: a gradient written when allocation %ld failed", what, n);
        }
        CHECK(nomem >= 3, "%s: only %d allocations to fail", what, nomem);
    }
    drs_set_num_threads(2);
    free(x), free(g), free(dy), free(dx0), free(dg0), free(dx), free(dg);
}

/* A wide banded image (12 x 9 000: each row spans two bands, so a point's
 * vertical neighbours sit in bands with the band between them listed too):
 * the f64 data gradient is the forward's adjoint, in every mode. */
static void test_banded_wide(void)
{
    enum { C = 8, H = 12, W = 9000, Ho = 20, Wo = 30 };
    const int64_t nx = (int64_t)C * H * W, ny = (int64_t)C * Ho * Wo, ng = (int64_t)Ho * Wo * 2;
    double *x = malloc((size_t)nx * 8), *dx = malloc((size_t)nx * 8), *y = malloc((size_t)ny * 8);
    double *dy = malloc((size_t)ny * 8), *g = malloc((size_t)ng * 8);
    CHECK(x && dx && y && dy && g, "test_banded_wide: out of memory");
    if (x && dx && y && dy && g) {
        fill_f64(x, nx, 2, 1);
        fill_f64(dy, ny, 2, 1);
        fill_f64(g, ng, 2.2, 1.1);
        drs_tensor X = {DRS_F64, 4, {1, C, H, W}, x}, G = {DRS_F64, 4, {1, Ho, Wo, 2}, g};
        drs_tensor Y = {DRS_F64, 4, {1, C, Ho, Wo}, y}, DY = {DRS_F64, 4, {1, C, Ho, Wo}, dy};
        drs_tensor DX = {DRS_F64, 4, {1, C, H, W}, dx};
        const drs_grid_mode modes[3] = {DRS_GRID_BILINEAR, DRS_GRID_NEAREST, DRS_GRID_BICUBIC};
        for (int mi = 0; mi < 3; mi++)
            for (int pad = 0; pad < 3; pad++) {
                drs_grid_sample_attrs a = attrs(16, modes[mi], (drs_grid_padding)pad, pad == 1);
                check_adjoint("wide banded", mi, pad, &a, &X, &G, &Y, &DY, &DX);
            }
    }
    free(x), free(dx), free(y), free(dy), free(g);
}

/* The scatter's planes are sized for the threads that have a task, not for
 * every thread: 4 channels of a 280 x 250 image are 9 (group, band) tasks,
 * so 64 threads take 9 threads' planes (9 x 512 KiB), not 32 MiB; 3 images
 * of 16 channels at 64 threads are 48 (image, channel) tasks, 48 x 1 MiB of
 * planes for 128 x 128 images, not 64. */
static void test_plane_team(void)
{
    const int64_t cases[2][4] = {{1, 4, 280, 250}, {3, 16, 128, 128}};
    const size_t most[2] = {(size_t)9 * 8192 * 64, (size_t)48 * 128 * 128 * 64};
    for (int ci = 0; ci < 2; ci++) {
        const int64_t N = cases[ci][0], C = cases[ci][1], H = cases[ci][2], W = cases[ci][3];
        const int64_t Ho = 16, Wo = 16, nx = N * C * H * W, ng = N * Ho * Wo * 2, ny = N * C * Ho * Wo;
        float *x = calloc((size_t)nx, 4), *g = calloc((size_t)ng, 4), *dy = calloc((size_t)ny, 4);
        float *dx = malloc((size_t)nx * 4), *dx1 = malloc((size_t)nx * 4);
        CHECK(x && g && dy && dx && dx1, "test_plane_team: out of memory");
        if (x && g && dy && dx && dx1) {
            fill_f32(g, ng, 2, 1);
            fill_f32(dy, ny, 2, 1);
            drs_grid_sample_attrs a = attrs(9, DRS_GRID_BILINEAR, DRS_GRID_PAD_ZEROS, 0);
            drs_tensor X = {DRS_F32, 4, {N, C, H, W}, x}, G = {DRS_F32, 4, {N, Ho, Wo, 2}, g};
            drs_tensor DY = {DRS_F32, 4, {N, C, Ho, Wo}, dy};
            drs_tensor DX = {DRS_F32, 4, {N, C, H, W}, dx}, DX1 = {DRS_F32, 4, {N, C, H, W}, dx1};
            drs_set_num_threads(1);
            CHECK(drs_grid_sample_backward(&DX1, NULL, &DY, &X, &G, &a, DRS_GRAD_OVERWRITE) ==
                      DRS_OK, "%s", drs_last_error());
            drs_set_num_threads(64);
            drs_debug_max_allocation(1);
            CHECK(drs_grid_sample_backward(&DX, NULL, &DY, &X, &G, &a, DRS_GRAD_OVERWRITE) ==
                      DRS_OK, "%s", drs_last_error());
            const size_t got = drs_debug_max_allocation(1);
            CHECK(got <= most[ci] + 64, "plane team %d: largest allocation %zu bytes at 64 "
                  "threads, want <= %zu", ci, got, most[ci] + 64);
            CHECK(memcmp(dx, dx1, (size_t)nx * 4) == 0, "plane team %d: 64 threads differ", ci);
        }
        free(x), free(g), free(dy), free(dx), free(dx1);
    }
    drs_set_num_threads(2);
}

static void test_scheme_alloc_failures(void)
{
    sweep_case("image tasks (N = 2, 2 threads)", 2, 16, 64, 64, 2);
    sweep_case("(image, group) pairs (N = 3, 2 threads)", 3, 16, 64, 64, 2);
    sweep_case("bands (300 x 300, 2 threads)", 1, 11, 300, 300, 2);
    sweep_case("bands (300 x 300, 1 thread)", 1, 11, 300, 300, 1);
    printf("  allocation failures in the image, pair and band schemes: NOMEM, untouched\n");
}

int main(void)
{
    test_hand_values();
    test_integer();
    test_fd();
    test_grad_factors();
    test_nonfinite();
    test_errors();
    test_threads();
    test_nan_threads();
    test_f32_matches_f64();
    test_image_threads();
    test_banded();
    test_scheme_alloc_failures();
    test_plane_team();
    test_banded_wide();
    printf("test_grid_sample: %d checks, %d failed\n", g_checks, g_fail);
    return g_fail ? 1 : 0;
}
