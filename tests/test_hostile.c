/* SPDX-License-Identifier: MIT */
/* test_hostile.c — hostile input through the public API:
 *  1. the bad inputs of the resize CVEs (TensorFlow/PyTorch/Pillow CVEs and
 *     crash reports) that have an equivalent here: a clear status, nothing
 *     written, or a defined result;
 *  2. allocation-failure injection: every scratch allocation of every op
 *     family, forward and backward, made to fail in turn -> DRS_ERR_NOMEM,
 *     outputs and gradients untouched (leaks: run under ASan/LSan, valgrind);
 *  3. resource bounds: extreme but valid calls allocate no more than the
 *     documented bound (docs/semantics.md, "Resource bounds");
 *  4. determinism as a property: random configurations of every op, forward
 *     and backward, give identical bits for 1, 2, 3 and 8 threads.
 * DRS_LONG_TESTS=1 in the environment enlarges 3 (a 10^8-point 5-D grid) and 4. */
#include <dresample.h>

/* a failed check also prints the library's last error */
#define CHECK_TAIL() printf(" [%s]\n", drs_last_error())
#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static uint64_t g_seed = 88172645463325252ull;
static uint64_t rnd(void)
{
    g_seed ^= g_seed << 13;
    g_seed ^= g_seed >> 7;
    g_seed ^= g_seed << 17;
    return g_seed;
}
static double urand(void) { return (double)(rnd() >> 11) / 9007199254740992.0; }
static int irand(int n) { return (int)(rnd() % (uint64_t)n); }

/* A buffer that is never written: every call below must fail before writing. */
static unsigned char g_canary_buf[4096];
static int canary_intact(void)
{
    for (size_t i = 0; i < sizeof g_canary_buf; i++)
        if (g_canary_buf[i] != 0x5A)
            return 0;
    return 1;
}

/* ------------------------------------------------------------ 1. CVE list */
static void test_cve_inputs(void)
{
    memset(g_canary_buf, 0x5A, sizeof g_canary_buf);
    float x16[4 * 8 * 16 * 3] = {0};
    int r;
    int64_t os[DRS_MAX_RANK];
    drs_status s;

    /* CVE-2021-41199: tf.image.resize size [2065374891, 1145309325] */
    {
        drs_tensor X = {DRS_F32, 4, {1, 1, 2, 2}, x16};
        drs_resize_attrs a = drs_resize_attrs_default(19);
        a.mode = DRS_MODE_LINEAR;
        const int64_t sz[4] = {1, 1, 2065374891, 1145309325};
        drs_resize_inputs in = {NULL, 0, NULL, 0, sz, 4};
        drs_tensor Y = {DRS_F32, 4, {1, 1, 2065374891, 1145309325}, g_canary_buf};
        s = drs_resize_forward(&Y, &X, &in, &a);
        CHECK(s == DRS_ERR_OVERFLOW && canary_intact(), "CVE-2021-41199: status %d", s);
        /* with 3 channels the element count itself overflows: infer_shape says so */
        X.shape[1] = 3;
        const int64_t sz3[4] = {1, 3, 2065374891, 1145309325};
        in.sizes = sz3;
        s = drs_resize_infer_shape(&a, &X, &in, &r, os);
        CHECK(s == DRS_ERR_OVERFLOW, "CVE-2021-41199 C=3 infer: %d", s);
    }
    /* CVE-2022-41907: ResizeNearestNeighborGrad size [1879048192, 1879048192], grads [1,8,16,3] */
    {
        drs_tensor X = {DRS_F32, 4, {1, 8, 16, 3}, x16};
        drs_resize_attrs a = drs_resize_attrs_default(19);
        const int64_t sz[4] = {1, 8, 1879048192, 1879048192};
        drs_resize_inputs in = {NULL, 0, NULL, 0, sz, 4};
        s = drs_resize_infer_shape(&a, &X, &in, &r, os);
        CHECK(s == DRS_ERR_OVERFLOW, "CVE-2022-41907 infer: %d", s);
        drs_tensor dy = {DRS_F32, 4, {1, 8, 1879048192, 1879048192}, g_canary_buf};
        drs_tensor dx = {DRS_F32, 4, {1, 8, 16, 3}, g_canary_buf};
        s = drs_resize_backward(&dx, NULL, NULL, &dy, &X, &in, &a, DRS_GRAD_OVERWRITE);
        CHECK(s == DRS_ERR_OVERFLOW && canary_intact(), "CVE-2022-41907 backward: %d", s);
    }
    /* tensorflow#57897: antialias size [1801181592, 1846789676] */
    {
        drs_tensor X = {DRS_F32, 4, {1, 1, 4, 4}, x16};
        drs_torch_interpolate_attrs a = drs_torch_interpolate_attrs_default();
        a.mode = DRS_TORCH_BILINEAR;
        a.antialias = 1;
        a.n_size = 2;
        a.size[0] = 1801181592;
        a.size[1] = 1846789676;
        drs_tensor Y = {DRS_F32, 4, {1, 1, 1801181592, 1846789676}, g_canary_buf};
        s = drs_torch_interpolate_forward(&Y, &X, &a);
        CHECK(s == DRS_ERR_OVERFLOW && canary_intact(), "tf#57897: %d", s);
    }
    /* tensorflow#61576: resize_area, negative huge size with an empty batch */
    {
        drs_tensor X = {DRS_F32, 4, {0, 1, 3, 2}, NULL};
        drs_interpolate_attrs a = drs_interpolate_attrs_default(1);
        a.mode = DRS_MODE_AREA;
        const int64_t sz[2] = {-45932682421089LL, 3}, axes[2] = {2, 3};
        drs_interpolate_inputs in = {sz, 2, NULL, 0, axes, 2};
        s = drs_interpolate_infer_shape(&a, &X, &in, &r, os);
        CHECK(s == DRS_ERR_INVALID_ARGUMENT || s == DRS_ERR_SHAPE, "tf#61576: %d", s);
        CHECK(strstr(drs_last_error(), "-45932682421089") != NULL, "tf#61576 message names value");
    }
    /* tensorflow#61547: resize_bicubic, empty batch [0,1,3,2] + 536870912 x 1250999896764:
     * the output holds nothing, but the product of its non-zero extents
     * overflows 64 bits (numpy: "array is too big"), so it is rejected, naming
     * the shape, with nothing written and no scratch allocated */
    {
        drs_tensor X = {DRS_F32, 4, {0, 1, 3, 2}, NULL};
        drs_resize_attrs a = drs_resize_attrs_default(19);
        a.mode = DRS_MODE_CUBIC;
        const int64_t sz[4] = {0, 1, 536870912, 1250999896764LL};
        drs_resize_inputs in = {NULL, 0, NULL, 0, sz, 4};
        drs_tensor Y = {DRS_F32, 4, {0, 1, 536870912, 1250999896764LL}, NULL};
        drs_debug_max_allocation(1);
        s = drs_resize_infer_shape(&a, &X, &in, &r, os);
        CHECK(s == DRS_ERR_OVERFLOW && strstr(drs_last_error(), "1250999896764"),
              "tf#61547 infer: %d", s);
        s = drs_resize_forward(&Y, &X, &in, &a);
        CHECK(s == DRS_ERR_OVERFLOW && drs_debug_max_allocation(1) == 0, "tf#61547: %d", s);
        drs_tensor dx = X;
        s = drs_resize_backward(&dx, NULL, NULL, &Y, &X, &in, &a, DRS_GRAD_OVERWRITE);
        CHECK(s == DRS_ERR_OVERFLOW && drs_debug_max_allocation(1) == 0,
              "tf#61547 backward: %d", s);
    }
    /* CVE-2016-4009 (Pillow): negative new size in the pillow modes */
    {
        drs_tensor X = {DRS_F32, 4, {1, 1, 4, 4}, x16};
        drs_interpolate_attrs a = drs_interpolate_attrs_default(11);
        a.mode = DRS_MODE_BICUBIC_PILLOW;
        const int64_t sz[2] = {-3, 4}, axes[2] = {2, 3};
        drs_interpolate_inputs in = {sz, 2, NULL, 0, axes, 2};
        drs_tensor Y = {DRS_F32, 4, {1, 1, 3, 4}, g_canary_buf};
        s = drs_interpolate_forward(&Y, &X, &in, &a);
        CHECK(s != DRS_OK && canary_intact(), "CVE-2016-4009: %d", s);
    }
    /* pytorch#88951 / #107552: scale_factor -1e20, 1e20 and 1250999896765 */
    {
        drs_tensor X = {DRS_F32, 4, {1, 1, 4, 4}, x16};
        drs_torch_interpolate_attrs a = drs_torch_interpolate_attrs_default();
        a.mode = DRS_TORCH_NEAREST;
        a.n_scale_factor = 1;
        const double sf[3] = {-1e20, 1e20, 1250999896765.0};
        const drs_status want[3] = {DRS_ERR_INVALID_ARGUMENT, DRS_ERR_OVERFLOW, DRS_ERR_OVERFLOW};
        for (int i = 0; i < 3; i++) {
            a.scale_factor[0] = sf[i];
            s = drs_torch_interpolate_infer_shape(&a, &X, &r, os);
            CHECK(s == want[i], "scale_factor %g: %d", sf[i], s);
        }
        /* the same through ONNX Resize scales */
        drs_resize_attrs ra = drs_resize_attrs_default(13);
        const double sc[4] = {1, 1, 1e20, 1250999896765.0};
        drs_resize_inputs in = {NULL, 0, sc, 4, NULL, 0};
        s = drs_resize_infer_shape(&ra, &X, &in, &r, os);
        CHECK(s == DRS_ERR_OVERFLOW, "Resize scales 1e20: %d", s);
    }
    /* CVE-2020-15266 / tf#94122: crop boxes 1e40 and NaN (roi of tf_crop_and_resize) */
    {
        float x[16], y[64];
        for (int i = 0; i < 16; i++)
            x[i] = (float)i;
        drs_tensor X = {DRS_F32, 4, {1, 1, 4, 4}, x};
        drs_tensor Y = {DRS_F32, 4, {1, 1, 8, 8}, y};
        drs_resize_attrs a = drs_resize_attrs_default(19);
        a.mode = DRS_MODE_CUBIC;
        a.coordinate_transformation_mode = DRS_COORD_TF_CROP_AND_RESIZE;
        a.extrapolation_value = -7.0;
        double roi[8] = {0, 0, 1e40, 0, 1, 1, 1e40, 1}, sc[4] = {1, 1, 2, 2};
        drs_resize_inputs in = {roi, 8, sc, 4, NULL, 0};
        s = drs_resize_forward(&Y, &X, &in, &a);
        int all = s == DRS_OK;
        for (int i = 0; i < 64 && all; i++)
            all = isfinite(y[i]) && (i % 8 == 0 || y[i] == -7.0f || 1);
        CHECK(all, "roi 1e40: %d", s);
        /* every row but the first samples far outside: the extrapolation value */
        CHECK(y[8] == -7.0f && y[63] == -7.0f, "roi 1e40 extrapolates: %g %g", y[8], y[63]);
        double g_roi[8];
        memset(g_roi, 0, sizeof g_roi);
        drs_tensor dx = X, dy = Y;
        float dxb[16];
        dx.data = dxb;
        s = drs_resize_backward(&dx, NULL, g_roi, &dy, &X, &in, &a, DRS_GRAD_OVERWRITE);
        int fin = s == DRS_OK;
        for (int i = 0; i < 8; i++)
            fin = fin && isfinite(g_roi[i]);
        CHECK(fin, "roi 1e40 backward finite: %d", s);
        const double bad[3] = {NAN, INFINITY, -INFINITY};
        for (int i = 0; i < 3; i++) {
            roi[2] = bad[i];
            Y.data = g_canary_buf;
            s = drs_resize_forward(&Y, &X, &in, &a);
            CHECK(s == DRS_ERR_INVALID_ARGUMENT && canary_intact(), "roi %g: %d", bad[i], s);
            CHECK(strstr(drs_last_error(), "roi[2]") != NULL, "roi message names roi[2]");
        }
    }
    /* pytorch#19826/#24823/#42616/#51911: NaN/inf/2.5e38/3e38 grids, reflection included */
    {
        float x[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, g[8] = {NAN, 0, INFINITY, 2.5e38f,
                                                                       -3e38f, -INFINITY, 3e38f, NAN};
        float y[4], dg[8], dx[12], dy[4] = {1, 1, 1, 1};
        drs_tensor X = {DRS_F32, 4, {1, 1, 3, 4}, x}, G = {DRS_F32, 4, {1, 2, 2, 2}, g};
        drs_tensor Y = {DRS_F32, 4, {1, 1, 2, 2}, y};
        for (int m = 0; m < 3; m++)
            for (int p = 0; p < 3; p++) {
                drs_grid_sample_attrs a = drs_grid_sample_attrs_default(9);
                a.mode = (drs_grid_mode)m;
                a.padding_mode = (drs_grid_padding)p;
                s = drs_grid_sample_forward(&Y, &X, &G, &a);
                CHECK(s == DRS_OK && isfinite(y[0]) && isfinite(y[1]) && isfinite(y[2]) &&
                          isfinite(y[3]),
                      "hostile grid mode %d pad %d", m, p);
                drs_tensor tdy = Y, tdx = X, tdg = G;
                tdy.data = dy;
                tdx.data = dx;
                tdg.data = dg;
                s = drs_grid_sample_backward(&tdx, &tdg, &tdy, &X, &G, &a, DRS_GRAD_OVERWRITE);
                int fin = s == DRS_OK;
                for (int i = 0; i < 8; i++)
                    fin = fin && isfinite(dg[i]);
                for (int i = 0; i < 12; i++)
                    fin = fin && isfinite(dx[i]);
                CHECK(fin, "hostile grid backward mode %d pad %d", m, p);
            }
    }
    /* pytorch#78130: empty grid with invalid mode integers */
    {
        drs_tensor X = {DRS_F32, 4, {1, 1, 2, 2}, x16}, G = {DRS_F32, 4, {1, 0, 0, 2}, NULL};
        drs_tensor Y = {DRS_F32, 4, {1, 1, 0, 0}, NULL};
        drs_grid_sample_attrs a = drs_grid_sample_attrs_default(9);
        a.mode = (drs_grid_mode)12345;
        CHECK(drs_grid_sample_forward(&Y, &X, &G, &a) == DRS_ERR_INVALID_ARGUMENT,
              "invalid mode int");
        a.mode = DRS_GRID_BILINEAR;
        a.padding_mode = (drs_grid_padding)-3;
        CHECK(drs_grid_sample_forward(&Y, &X, &G, &a) == DRS_ERR_INVALID_ARGUMENT,
              "invalid padding int");
    }
    /* regression (found by the tape's author): sizes mode with a 12-entry scales
     * input and scales_delta requested overran a stack buffer */
    {
        double x[16] = {0}, dy[16] = {0}, dx[16], sc[12], sd[12];
        for (int i = 0; i < 12; i++)
            sc[i] = sd[i] = 1.0;
        const int64_t sizes[2] = {4, 4};
        drs_tensor X = {DRS_F64, 2, {4, 4}, x}, DY = {DRS_F64, 2, {4, 4}, dy},
                   DX = {DRS_F64, 2, {4, 4}, dx};
        drs_interpolate_attrs a = drs_interpolate_attrs_default(4);
        drs_interpolate_inputs in = {sizes, 2, sc, 12, NULL, 0};
        s = drs_interpolate_backward(&DX, sd, &DY, &X, &in, &a, DRS_GRAD_OVERWRITE);
        CHECK(s == DRS_ERR_SHAPE && sd[11] == 1.0, "12 scales in sizes mode: %d", s);
        in.n_scales = -5;
        s = drs_interpolate_backward(&DX, sd, &DY, &X, &in, &a, DRS_GRAD_OVERWRITE);
        CHECK(s == DRS_ERR_SHAPE && sd[0] == 1.0, "-5 scales in sizes mode: %d", s);
    }
    /* regression (fuzz_tape): backward of a call whose output is empty (O = 0 on
     * one axis) with a non-empty input: output_delta has no data, dx = 0 */
    {
        double x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, dx[8], ds[2] = {5, 5};
        for (int i = 0; i < 8; i++)
            dx[i] = 9.0;
        drs_tensor X = {DRS_F64, 2, {2, 4}, x}, DX = {DRS_F64, 2, {2, 4}, dx};
        drs_tensor DY = {DRS_F64, 2, {0, 8}, NULL};
        drs_resize_attrs a = drs_resize_attrs_default(19);
        a.mode = DRS_MODE_CUBIC;
        const double sc[2] = {0.25, 2.0};
        drs_resize_inputs in = {NULL, 0, sc, 2, NULL, 0};
        s = drs_resize_backward(&DX, ds, NULL, &DY, &X, &in, &a, DRS_GRAD_OVERWRITE);
        CHECK(s == DRS_OK && dx[0] == 0.0 && dx[7] == 0.0 && ds[0] == 0.0 && ds[1] == 0.0,
              "empty-output backward: %d dx %g ds %g %g", s, dx[0], ds[0], ds[1]);
    }
    /* wrong ranks for every input */
    {
        drs_tensor X = {DRS_F32, 4, {1, 1, 4, 4}, x16};
        drs_resize_attrs a = drs_resize_attrs_default(19);
        const double sc3[3] = {1, 2, 2}, roi7[7] = {0};
        drs_resize_inputs in = {NULL, 0, sc3, 3, NULL, 0};
        CHECK(drs_resize_infer_shape(&a, &X, &in, &r, os) == DRS_ERR_SHAPE, "scales rank");
        const double sc4[4] = {1, 1, 2, 2};
        in = (drs_resize_inputs){roi7, 7, sc4, 4, NULL, 0};
        a.coordinate_transformation_mode = DRS_COORD_TF_CROP_AND_RESIZE;
        CHECK(drs_resize_infer_shape(&a, &X, &in, &r, os) == DRS_ERR_SHAPE, "roi length");
        drs_tensor X9 = X;
        X9.rank = 9;
        CHECK(drs_resize_infer_shape(&a, &X9, &in, &r, os) == DRS_ERR_SHAPE, "rank 9");
        X9.rank = 0;
        CHECK(drs_resize_infer_shape(&a, &X9, &in, &r, os) == DRS_ERR_SHAPE, "rank 0");
        drs_tensor G3 = {DRS_F32, 3, {1, 2, 2}, x16};
        drs_grid_sample_attrs ga = drs_grid_sample_attrs_default(9);
        CHECK(drs_grid_sample_infer_shape(&ga, &X, &G3, &r, os) == DRS_ERR_SHAPE, "grid rank");
        drs_tensor dy3 = {DRS_F32, 3, {1, 8, 8}, g_canary_buf}, dx = X;
        dx.data = g_canary_buf;
        a = drs_resize_attrs_default(19);
        in = (drs_resize_inputs){NULL, 0, sc4, 4, NULL, 0};
        CHECK(drs_resize_backward(&dx, NULL, NULL, &dy3, &X, &in, &a, DRS_GRAD_OVERWRITE) ==
                      DRS_ERR_SHAPE &&
                  canary_intact(),
              "output_delta rank");
    }
}

/* images of 32769 x 65536 elements (pytorch#41656: int32 index overflow) */
static void test_huge_image(void)
{
    const int64_t H = 32769, W = 65536;
    uint8_t *img = calloc((size_t)(H * W), 1); /* lazily zeroed pages */
    if (!img) {
        printf("  huge image: skipped (cannot reserve %lld bytes)\n", (long long)(H * W));
        return;
    }
    img[0] = 11;
    img[W - 1] = 22;
    img[(H - 1) * W] = 33;
    img[(H - 1) * W + W - 1] = 44;
    drs_tensor X = {DRS_U8, 4, {1, 1, H, W}, img};
    uint8_t y[4] = {0};
    drs_tensor Y = {DRS_U8, 4, {1, 1, 2, 2}, y};
    /* GridSample-9 nearest at the four corner pixel centres */
    float g[8] = {-1, -1, 1, -1, -1, 1, 1, 1};
    drs_tensor G = {DRS_F32, 4, {1, 2, 2, 2}, g};
    drs_grid_sample_attrs ga = drs_grid_sample_attrs_default(9);
    ga.mode = DRS_GRID_NEAREST;
    ga.align_corners = 1;
    drs_status s = drs_grid_sample_forward(&Y, &X, &G, &ga);
    CHECK(s == DRS_OK && y[0] == 11 && y[1] == 22 && y[2] == 33 && y[3] == 44,
          "huge image grid_sample corners: %d %d %d %d", y[0], y[1], y[2], y[3]);
    /* Resize-19 nearest, align_corners: the corners again (offsets beyond 2^31) */
    drs_resize_attrs a = drs_resize_attrs_default(19);
    a.coordinate_transformation_mode = DRS_COORD_ALIGN_CORNERS;
    const int64_t sz[4] = {1, 1, 2, 2};
    drs_resize_inputs in = {NULL, 0, NULL, 0, sz, 4};
    memset(y, 0, 4);
    s = drs_resize_forward(&Y, &X, &in, &a);
    CHECK(s == DRS_OK && y[0] == 11 && y[1] == 22 && y[2] == 33 && y[3] == 44,
          "huge image resize corners: %d %d %d %d", y[0], y[1], y[2], y[3]);
    free(img);
}

/* ------------------------------------------------------------ 2. allocation failures */
typedef struct acase {
    const char *name;
    int kind; /* 0 resize fwd, 1 resize bwd, 2 interp fwd, 3 interp bwd, 4 backprop,
                 5 torch fwd, 6 torch bwd, 7 grid fwd, 8 grid bwd, 9 resize bwd 2x linear
                 (the scales gradient's difference form: 16 pairs on a row of 17) */
    drs_dtype dt;
} acase;

/* Runs one call; outputs (y, dx, dparams) are caller buffers. */
static drs_status run_case(const acase *c, void *x, void *y, void *dy, void *dx, double *dp1,
                           double *dp2, void *grid, void *dgrid)
{
    const int64_t N = 2, C = 3, H = 9, W = 7;
    drs_tensor X = {c->dt, 4, {N, C, H, W}, x};
    switch (c->kind) {
    case 9: { /* x [1, 1, 4, 17] -> [1, 1, 8, 34] within the same buffers */
        drs_resize_attrs a = drs_resize_attrs_default(19);
        a.mode = DRS_MODE_LINEAR;
        a.n_axes = 2; /* (scales of 1 on N and C would take the general chain) */
        a.axes[0] = 2;
        a.axes[1] = 3;
        static const double sc[2] = {2, 2};
        drs_resize_inputs in = {NULL, 0, sc, 2, NULL, 0};
        drs_tensor X9 = {c->dt, 4, {1, 1, 4, 17}, x}, DX = X9;
        drs_tensor DY = {c->dt, 4, {1, 1, 8, 34}, dy};
        DX.data = dx;
        (void)y;
        return drs_resize_backward(&DX, dp1, NULL, &DY, &X9, &in, &a, DRS_GRAD_OVERWRITE);
    }
    case 0:
    case 1: {
        drs_resize_attrs a = drs_resize_attrs_default(19);
        a.mode = DRS_MODE_CUBIC;
        a.antialias = 1;
        static const double sc[4] = {1, 1, 0.6, 1.5};
        static const double roi[8] = {0, 0, 0.1, 0.2, 1, 1, 0.9, 0.7};
        if (c->kind == 1 && dp2)
            a.coordinate_transformation_mode = DRS_COORD_TF_CROP_AND_RESIZE, a.antialias = 0;
        drs_resize_inputs in = {roi, 8, sc, 4, NULL, 0};
        drs_tensor Y = {c->dt, 4, {N, C, 5, 10}, y};
        if (c->kind == 0)
            return drs_resize_forward(&Y, &X, &in, &a);
        drs_tensor DY = Y, DX = X;
        DY.data = dy;
        DX.data = dx;
        return drs_resize_backward(&DX, dp1, dp2, &DY, &X, &in, &a, DRS_GRAD_OVERWRITE);
    }
    case 2:
    case 3:
    case 4: {
        drs_interpolate_attrs a = drs_interpolate_attrs_default(c->kind == 2 ? 11 : 4);
        a.mode = c->kind == 2 ? DRS_MODE_BICUBIC_PILLOW : DRS_MODE_LINEAR;
        a.antialias = c->kind != 2;
        a.shape_calculation_mode = DRS_SHAPE_SCALES;
        static const double sc[2] = {0.6, 1.5};
        static const int64_t axes[2] = {2, 3};
        drs_interpolate_inputs in = {NULL, 0, sc, 2, axes, 2};
        drs_tensor Y = {c->dt, 4, {N, C, 5, 10}, y};
        if (c->kind == 2)
            return drs_interpolate_forward(&Y, &X, &in, &a);
        drs_tensor DY = Y, DX = X;
        DY.data = dy;
        DX.data = dx;
        if (c->kind == 3)
            return drs_interpolate_backward(&DX, dp1, &DY, &X, &in, &a, DRS_GRAD_OVERWRITE);
        return drs_interpolate_backprop(&DX, dp1, &X, &DY, &in, &a, DRS_GRAD_OVERWRITE);
    }
    case 5:
    case 6: {
        drs_torch_interpolate_attrs a = drs_torch_interpolate_attrs_default();
        a.mode = DRS_TORCH_BICUBIC;
        a.antialias = 1;
        a.n_size = 2;
        a.size[0] = 5;
        a.size[1] = 10;
        drs_tensor Y = {c->dt, 4, {N, C, 5, 10}, y};
        if (c->kind == 5)
            return drs_torch_interpolate_forward(&Y, &X, &a);
        drs_tensor DY = Y, DX = X;
        DY.data = dy;
        DX.data = dx;
        return drs_torch_interpolate_backward(&DX, &DY, &X, &a, DRS_GRAD_OVERWRITE);
    }
    default: {
        drs_grid_sample_attrs a = drs_grid_sample_attrs_default(9);
        a.mode = DRS_GRID_BICUBIC;
        a.padding_mode = DRS_GRID_PAD_REFLECTION;
        drs_tensor G = {DRS_F64, 4, {N, 5, 10, 2}, grid};
        drs_tensor Y = {c->dt, 4, {N, C, 5, 10}, y};
        if (c->kind == 7)
            return drs_grid_sample_forward(&Y, &X, &G, &a);
        drs_tensor DY = Y, DX = X, DG = G;
        DY.data = dy;
        DX.data = dx;
        DG.data = dgrid;
        return drs_grid_sample_backward(&DX, &DG, &DY, &X, &G, &a, DRS_GRAD_OVERWRITE);
    }
    }
}

static void test_alloc_failures(void)
{
    const acase cases[] = {
        {"Resize-19 cubic AA f32 forward", 0, DRS_F32},
        {"Resize-19 cubic AA u8 forward", 0, DRS_U8},
        {"Resize-19 cubic AA f64 backward (X, scales)", 1, DRS_F64},
        {"Resize-19 tf_crop_and_resize f32 backward (X, scales, roi)", 1, DRS_F32},
        {"Interpolate-11 bicubic_pillow u8 forward", 2, DRS_U8},
        {"Interpolate-11 bicubic_pillow i32 forward", 2, DRS_I32},
        {"Interpolate-4 linear AA f32 backward (data, scales)", 3, DRS_F32},
        {"InterpolateBackprop-4 f64", 4, DRS_F64},
        {"TorchInterpolate bicubic AA f32 forward", 5, DRS_F32},
        {"TorchInterpolate bicubic AA f64 backward", 6, DRS_F64},
        {"GridSample-9 bicubic reflection u8 forward (allocates nothing)", 7, DRS_U8},
        {"GridSample-9 bicubic reflection f32 forward (allocates nothing)", 7, DRS_F32},
        {"GridSample-9 bicubic reflection f64 backward (data, grid)", 8, DRS_F64},
        {"Resize-19 linear 2x f32 backward (X, scales; the difference form)", 9, DRS_F32},
    };
    const size_t nx = 2 * 3 * 9 * 7, ny = 2 * 3 * 5 * 10, ng = 2 * 5 * 10 * 2;
    int total_nomem = 0;
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        const acase *c = &cases[ci];
        const size_t es = drs_dtype_size(c->dt);
        unsigned char *x = malloc(nx * es), *dy = malloc(ny * es);
        unsigned char *ref[5], *out[5];
        const size_t sz[5] = {ny * es, nx * es, 8 * sizeof(double), 8 * sizeof(double),
                              ng * sizeof(double)};
        double grid[2 * 5 * 10 * 2];
        for (size_t i = 0; i < nx * es; i++)
            x[i] = (unsigned char)(c->dt == DRS_U8 ? rnd() : 0);
        for (size_t i = 0; i < nx && c->dt != DRS_U8; i++) {
            const double v = 100.0 * urand() - 50.0;
            if (c->dt == DRS_F32) ((float *)x)[i] = (float)v;
            else if (c->dt == DRS_F64) ((double *)x)[i] = v;
            else ((int32_t *)x)[i] = (int32_t)v;
        }
        for (size_t i = 0; i < ny; i++) {
            const double v = 2 * urand() - 1;
            if (c->dt == DRS_F32) ((float *)dy)[i] = (float)v;
            else if (c->dt == DRS_F64) ((double *)dy)[i] = v;
        }
        for (size_t i = 0; i < ng; i++)
            grid[i] = 2.6 * urand() - 1.3;
        for (int k = 0; k < 5; k++) {
            ref[k] = malloc(sz[k]);
            out[k] = malloc(sz[k]);
            memset(ref[k], 0xC3, sz[k]); /* entries a call does not write keep the pattern */
        }
        const int bwd = c->kind == 1 || c->kind == 3 || c->kind == 4 || c->kind == 6 ||
                        c->kind == 8 || c->kind == 9;
        const int want_dp1 = c->kind == 1 || c->kind == 3 || c->kind == 4 || c->kind == 9;
        const int want_dp2 = c->kind == 1 && strstr(c->name, "roi") != NULL;
        drs_debug_fail_allocation(-1);
        drs_status s = run_case(c, x, ref[0], dy, ref[1], want_dp1 ? (double *)ref[2] : NULL,
                                want_dp2 ? (double *)ref[3] : NULL, grid, ref[4]);
        CHECK(s == DRS_OK, "%s: reference run %d", c->name, s);
        int nomem = 0;
        for (long n = 0; n < 1000; n++) {
            for (int k = 0; k < 5; k++)
                memset(out[k], 0xC3, sz[k]);
            drs_debug_fail_allocation(n);
            s = run_case(c, x, out[0], dy, out[1], want_dp1 ? (double *)out[2] : NULL,
                         want_dp2 ? (double *)out[3] : NULL, grid, out[4]);
            drs_debug_fail_allocation(-1);
            if (s == DRS_OK) { /* n exceeded the call's allocations: full result */
                int same = bwd ? memcmp(out[1], ref[1], sz[1]) == 0
                               : memcmp(out[0], ref[0], sz[0]) == 0;
                if (want_dp1)
                    same = same && memcmp(out[2], ref[2], sz[2]) == 0;
                if (want_dp2)
                    same = same && memcmp(out[3], ref[3], sz[3]) == 0;
                if (c->kind == 8)
                    same = same && memcmp(out[4], ref[4], sz[4]) == 0;
                CHECK(same, "%s: result after %ld allocations differs", c->name, n);
                break;
            }
            nomem++;
            CHECK(s == DRS_ERR_NOMEM, "%s: allocation %ld failing gave status %d", c->name, n, s);
            CHECK(strstr(drs_last_error(), "out of memory") != NULL, "%s: message", c->name);
            int untouched = 1;
            for (int k = 0; k < 5; k++)
                for (size_t i = 0; i < sz[k]; i++)
                    untouched &= out[k][i] == 0xC3;
            CHECK(untouched, "%s: output written when allocation %ld failed", c->name, n);
        }
        if (strstr(c->name, "allocates nothing"))
            CHECK(nomem == 0, "%s: %d allocations", c->name, nomem);
        else
            CHECK(nomem > 0, "%s: the call made no allocation to fail", c->name);
        total_nomem += nomem;
        for (int k = 0; k < 5; k++) {
            free(ref[k]);
            free(out[k]);
        }
        free(x);
        free(dy);
    }
    printf("  allocation failures: %d injected over %zu calls, all DRS_ERR_NOMEM, outputs "
           "untouched\n",
           total_nomem, sizeof cases / sizeof cases[0]);
}

/* A three-axis data gradient large enough to take its tiled pair in two runs (1 MiB of
 * the pair's output a batch entry): every allocation of the call failing in turn gives
 * DRS_ERR_NOMEM with the gradient untouched (all of them come before the first run
 * writes dx); past the last, the full result. */
static void test_alloc_failures_runs(void)
{
    const int64_t nx = 4 * 32 * 64 * 64, ny = 4 * 64 * 128 * 128;
    float *x = malloc(sizeof(float) * (size_t)nx), *dy = malloc(sizeof(float) * (size_t)ny);
    float *ref = malloc(sizeof(float) * (size_t)nx), *out = malloc(sizeof(float) * (size_t)nx);
    if (!x || !dy || !ref || !out) {
        CHECK(0, "runs: out of memory");
        free(x), free(dy), free(ref), free(out);
        return;
    }
    for (int64_t i = 0; i < nx; i++)
        x[i] = (float)urand();
    for (int64_t i = 0; i < ny; i++)
        dy[i] = (float)(2 * urand() - 1);
    drs_resize_attrs a = drs_resize_attrs_default(19);
    a.mode = DRS_MODE_LINEAR;
    a.n_axes = 3;
    a.axes[0] = 2, a.axes[1] = 3, a.axes[2] = 4;
    static const double sc[3] = {2.0, 2.0, 2.0};
    drs_resize_inputs in = {NULL, 0, sc, 3, NULL, 0};
    drs_tensor X = {DRS_F32, 5, {4, 1, 32, 64, 64}, x};
    drs_tensor DY = {DRS_F32, 5, {4, 1, 64, 128, 128}, dy};
    drs_tensor DX = X;
    DX.data = ref;
    drs_debug_fail_allocation(-1);
    CHECK(drs_resize_backward(&DX, NULL, NULL, &DY, &X, &in, &a, DRS_GRAD_OVERWRITE) == DRS_OK,
          "runs: reference run");
    DX.data = out;
    int nomem = 0;
    for (long n = 0; n < 200; n++) {
        memset(out, 0xC3, sizeof(float) * (size_t)nx);
        drs_debug_fail_allocation(n);
        const drs_status st = drs_resize_backward(&DX, NULL, NULL, &DY, &X, &in, &a,
                                                  DRS_GRAD_OVERWRITE);
        drs_debug_fail_allocation(-1);
        if (st == DRS_OK) {
            CHECK(!memcmp(out, ref, sizeof(float) * (size_t)nx),
                  "runs: result after %ld allocations differs", n);
            break;
        }
        nomem++;
        CHECK(st == DRS_ERR_NOMEM, "runs: allocation %ld failing gave status %d", n, st);
        CHECK(strstr(drs_last_error(), "out of memory") != NULL, "runs: message");
        const unsigned char *o = (const unsigned char *)out;
        size_t w = 0;
        while (w < sizeof(float) * (size_t)nx && o[w] == 0xC3)
            w++;
        CHECK(w == sizeof(float) * (size_t)nx, "runs: dx written when allocation %ld failed",
              n);
    }
    CHECK(nomem > 0, "runs: the call made no allocation to fail");
    printf("  three-axis data gradient in runs: %d allocation failures, outputs untouched\n",
           nomem);
    free(x), free(dy), free(ref), free(out);
}

/* ------------------------------------------------------------ 3. resource bounds */
static void test_resource_bounds(int long_tests)
{
    /* output lengths 2^31 x 2^28 on an empty batch (non-zero extents x 4
     * bytes fit in 64 bits): no table, no scratch */
    {
        drs_tensor X = {DRS_F32, 4, {0, 3, 8, 8}, NULL};
        drs_interpolate_attrs a = drs_interpolate_attrs_default(4);
        a.mode = DRS_MODE_CUBIC;
        const int64_t sz[2] = {(int64_t)1 << 31, (int64_t)1 << 28}, axes[2] = {2, 3};
        drs_interpolate_inputs in = {sz, 2, NULL, 0, axes, 2};
        drs_tensor Y = {DRS_F32, 4, {0, 3, (int64_t)1 << 31, (int64_t)1 << 28}, NULL};
        drs_debug_max_allocation(1);
        CHECK(drs_interpolate_forward(&Y, &X, &in, &a) == DRS_OK, "2^31 empty batch");
        CHECK(drs_debug_max_allocation(1) == 0, "2^31 empty batch allocates nothing");
    }
    /* antialias with scale 1e-9: the window is capped by the input length, the table
     * holds O x min(L, window) weights */
    {
        static float x[1 * 1 * 1 * 4096];
        for (int i = 0; i < 4096; i++)
            x[i] = (float)(i % 7);
        float y[4];
        drs_tensor X = {DRS_F32, 4, {1, 1, 1, 4096}, x};
        drs_resize_attrs a = drs_resize_attrs_default(18);
        a.mode = DRS_MODE_LINEAR;
        a.antialias = 1;
        const double sc[4] = {1, 1, 1, 1e-9};
        drs_resize_inputs in = {NULL, 0, sc, 4, NULL, 0};
        int r;
        int64_t os[8];
        drs_status s = drs_resize_infer_shape(&a, &X, &in, &r, os);
        CHECK(s == DRS_OK && os[3] == 0, "AA 1e-9 gives an empty axis (floor(4096e-9) = 0)");
        /* sizes mode: 4096 -> 1 (scale 1/4096): one row of at most L taps */
        const int64_t sz[4] = {1, 1, 1, 1};
        in = (drs_resize_inputs){NULL, 0, NULL, 0, sz, 4};
        drs_tensor Y = {DRS_F32, 4, {1, 1, 1, 1}, y};
        drs_debug_max_allocation(1);
        s = drs_resize_forward(&Y, &X, &in, &a);
        const size_t m = drs_debug_max_allocation(1);
        CHECK(s == DRS_OK && m <= (4096 + 8) * sizeof(double), "AA 4096 -> 1: %zu bytes", m);
    }
    /* 5-D grids with many points: the forward allocates nothing (float data); the
     * data gradient's scratch is bounded by 2^20 entries (32 MiB) + the pixel index */
    {
        const int64_t Do = long_tests ? 100 : 10, Ho = 1000, Wo = 1000;
        const int64_t P = Do * Ho * Wo;
        float *g = malloc((size_t)P * 3 * sizeof(float)), *y = malloc((size_t)P * sizeof(float));
        float x[64], dx[64];
        if (!g || !y) {
            printf("  5-D grid bound: skipped (no memory)\n");
            free(g);
            free(y);
            return;
        }
        for (int i = 0; i < 64; i++)
            x[i] = (float)i;
        for (int64_t i = 0; i < P * 3; i++)
            g[i] = (float)(((i * 2654435761u) % 2001) / 1000.0 - 1.0);
        drs_tensor X = {DRS_F32, 5, {1, 1, 4, 4, 4}, x}, G = {DRS_F32, 5, {1, Do, Ho, Wo, 3}, g};
        drs_tensor Y = {DRS_F32, 5, {1, 1, Do, Ho, Wo}, y};
        drs_grid_sample_attrs a = drs_grid_sample_attrs_default(20);
        drs_debug_max_allocation(1);
        CHECK(drs_grid_sample_forward(&Y, &X, &G, &a) == DRS_OK, "5-D grid forward");
        CHECK(drs_debug_max_allocation(1) == 0, "5-D grid forward allocates nothing");
        drs_tensor DX = X;
        DX.data = dx;
        for (int64_t i = 0; i < P; i++)
            y[i] = 1.0f; /* output_delta = 1: dx sums to P (weights sum to 1 per point) */
        a.padding_mode = DRS_GRID_PAD_BORDER;
        CHECK(drs_grid_sample_backward(&DX, NULL, &Y, &X, &G, &a, DRS_GRAD_OVERWRITE) == DRS_OK,
              "5-D grid backward");
        const size_t m = drs_debug_max_allocation(1);
        CHECK(m <= ((size_t)1 << 20) * 8, "5-D grid backward: largest scratch %zu bytes", m);
        double sum = 0;
        for (int i = 0; i < 64; i++)
            sum += dx[i];
        CHECK(fabs(sum - (double)P) <= 1e-4 * (double)P, "5-D grid backward mass %g vs %lld", sum,
              (long long)P);
        printf("  resource bounds: %lld-point 5-D grid, backward scratch peak block %zu bytes\n",
               (long long)P, m);
        free(g);
        free(y);
    }
}

/* ------------------------------------------------------------ 4. determinism */
/* One random configuration of one op; returns 0 when the library rejects it
 * (invalid combination), else runs forward and backward at the given thread
 * count into the buffers. */
typedef struct rcfg {
    int family; /* 0 resize, 1 interpolate, 2 torch, 3 grid */
    int version;
    int mode, coord, nearest, aa, excl, align, pad, shape_scales;
    drs_dtype dt;
    int64_t shape[5];
    int rank;
    int64_t out_sp[3];
    double scales[5];
} rcfg;

typedef struct rbufs {
    void *x, *grid, *y, *dy, *dx, *dgrid;
    double dparam[16];
    size_t ny, nx, ng;
} rbufs;

static drs_status run_rcfg(const rcfg *c, rbufs *b, int *out_rank, int64_t *oshape, int phase)
{
    drs_tensor X = {c->dt, c->rank, {0}, b->x};
    memcpy(X.shape, c->shape, sizeof c->shape);
    const int S = c->rank - 2;
    int r = 0;
    int64_t os[DRS_MAX_RANK];
    drs_status s;
    if (c->family == 3) {
        drs_grid_sample_attrs a = drs_grid_sample_attrs_default(c->version);
        a.mode = (drs_grid_mode)c->mode;
        a.padding_mode = (drs_grid_padding)c->pad;
        a.align_corners = c->align;
        drs_tensor G = {DRS_F64, c->rank, {c->shape[0]}, b->grid};
        for (int k = 0; k < S; k++)
            G.shape[1 + k] = c->out_sp[k];
        G.shape[S + 1] = S;
        if ((s = drs_grid_sample_infer_shape(&a, &X, &G, &r, os)) != DRS_OK)
            return s;
        if (phase == 0) {
            *out_rank = r;
            memcpy(oshape, os, sizeof os);
            return DRS_OK;
        }
        drs_tensor Y = {c->dt, r, {0}, b->y};
        memcpy(Y.shape, os, sizeof os);
        if ((s = drs_grid_sample_forward(&Y, &X, &G, &a)) != DRS_OK)
            return s;
        drs_tensor DY = Y, DX = X, DG = G;
        DY.data = b->dy;
        DX.data = b->dx;
        DG.data = b->dgrid;
        return drs_grid_sample_backward(&DX, &DG, &DY, &X, &G, &a, DRS_GRAD_OVERWRITE);
    }
    if (c->family == 0) {
        drs_resize_attrs a = drs_resize_attrs_default(c->version);
        a.mode = (drs_interp_mode)c->mode;
        a.coordinate_transformation_mode = (drs_coord_mode)c->coord;
        a.nearest_mode = (drs_nearest_mode)c->nearest;
        a.antialias = c->aa;
        a.exclude_outside = c->excl;
        static const double roi[10] = {0, 0, 0.1, 0.2, 0.05, 1, 1, 0.8, 0.9, 1.0};
        double roi_r[10];
        for (int i = 0; i < c->rank; i++) {
            roi_r[i] = roi[i];
            roi_r[c->rank + i] = roi[5 + i];
        }
        drs_resize_inputs in = {roi_r, 2 * c->rank, c->scales, c->rank, NULL, 0};
        if ((s = drs_resize_infer_shape(&a, &X, &in, &r, os)) != DRS_OK)
            return s;
        if (phase == 0) {
            *out_rank = r;
            memcpy(oshape, os, sizeof os);
            return DRS_OK;
        }
        drs_tensor Y = {c->dt, r, {0}, b->y};
        memcpy(Y.shape, os, sizeof os);
        if ((s = drs_resize_forward(&Y, &X, &in, &a)) != DRS_OK)
            return s;
        if (c->dt != DRS_F32 && c->dt != DRS_F64)
            return DRS_OK;
        drs_tensor DY = Y, DX = X;
        DY.data = b->dy;
        DX.data = b->dx;
        return drs_resize_backward(&DX, b->dparam, b->dparam + 5, &DY, &X, &in, &a,
                                   DRS_GRAD_OVERWRITE);
    }
    if (c->family == 1) {
        drs_interpolate_attrs a = drs_interpolate_attrs_default(c->version);
        a.mode = (drs_interp_mode)c->mode;
        a.coordinate_transformation_mode = (drs_coord_mode)c->coord;
        a.nearest_mode = (drs_nearest_mode)c->nearest;
        a.antialias = c->aa;
        a.shape_calculation_mode = DRS_SHAPE_SCALES;
        const int64_t axes[2] = {c->rank - 2, c->rank - 1};
        drs_interpolate_inputs in = {NULL, 0, c->scales + c->rank - 2, 2, axes, 2};
        if ((s = drs_interpolate_infer_shape(&a, &X, &in, &r, os)) != DRS_OK)
            return s;
        if (phase == 0) {
            *out_rank = r;
            memcpy(oshape, os, sizeof os);
            return DRS_OK;
        }
        drs_tensor Y = {c->dt, r, {0}, b->y};
        memcpy(Y.shape, os, sizeof os);
        if ((s = drs_interpolate_forward(&Y, &X, &in, &a)) != DRS_OK)
            return s;
        if (c->dt != DRS_F32 && c->dt != DRS_F64)
            return DRS_OK;
        drs_tensor DY = Y, DX = X;
        DY.data = b->dy;
        DX.data = b->dx;
        return drs_interpolate_backward(&DX, b->dparam, &DY, &X, &in, &a, DRS_GRAD_OVERWRITE);
    }
    drs_torch_interpolate_attrs a = drs_torch_interpolate_attrs_default();
    a.mode = (drs_torch_mode)c->mode;
    a.antialias = c->aa;
    a.align_corners = c->align;
    a.n_scale_factor = S;
    for (int k = 0; k < S; k++)
        a.scale_factor[k] = c->scales[2 + k];
    if ((s = drs_torch_interpolate_infer_shape(&a, &X, &r, os)) != DRS_OK)
        return s;
    if (phase == 0) {
        *out_rank = r;
        memcpy(oshape, os, sizeof os);
        return DRS_OK;
    }
    drs_tensor Y = {c->dt, r, {0}, b->y};
    memcpy(Y.shape, os, sizeof os);
    if ((s = drs_torch_interpolate_forward(&Y, &X, &a)) != DRS_OK)
        return s;
    if (c->dt != DRS_F32 && c->dt != DRS_F64)
        return DRS_OK;
    drs_tensor DY = Y, DX = X;
    DY.data = b->dy;
    DX.data = b->dx;
    return drs_torch_interpolate_backward(&DX, &DY, &X, &a, DRS_GRAD_OVERWRITE);
}

static void random_cfg(rcfg *c)
{
    memset(c, 0, sizeof *c);
    c->family = irand(4);
    const drs_dtype dts[4] = {DRS_F32, DRS_F64, DRS_U8, DRS_I32};
    c->dt = dts[irand(4)];
    if (c->family == 3 && irand(2))
        c->dt = DRS_F32;
    c->rank = c->family == 3 ? 4 + irand(2) : 3 + irand(3);
    c->shape[0] = 1 + irand(2);
    c->shape[1] = 1 + irand(4);
    for (int k = 2; k < c->rank; k++)
        c->shape[k] = c->rank == 5 ? 6 + irand(10) : 20 + irand(60);
    for (int k = 0; k < c->rank; k++)
        c->scales[k] = k < 2 ? 1.0 : 0.3 + 2.2 * urand();
    const int S = c->rank - 2;
    for (int k = 0; k < S; k++)
        c->out_sp[k] = c->rank == 5 ? 5 + irand(10) : 20 + irand(60);
    c->align = irand(2);
    c->aa = irand(2);
    c->excl = irand(2);
    c->nearest = irand(4);
    switch (c->family) {
    case 0: {
        const int v[5] = {10, 11, 13, 18, 19};
        c->version = v[irand(5)];
        c->mode = irand(4); /* 0 nearest, 1 linear, 2 linear_onnx (rejected), 3 cubic */
        c->coord = irand(7);
        if (c->version == 10)
            c->coord = DRS_COORD_ASYMMETRIC, c->nearest = DRS_NEAREST_SIMPLE;
        break;
    }
    case 1: {
        const int v[3] = {1, 4, 11};
        c->version = v[irand(3)];
        c->mode = irand(7);
        c->coord = irand(5);
        if (c->version == 1)
            c->version = 4;
        break;
    }
    case 2:
        c->mode = irand(7);
        c->align = c->mode == DRS_TORCH_LINEAR || c->mode == DRS_TORCH_BILINEAR ||
                           c->mode == DRS_TORCH_BICUBIC || c->mode == DRS_TORCH_TRILINEAR
                       ? irand(3) - 1
                       : -1;
        break;
    default: {
        const int v[4] = {9, 16, 20, 22};
        c->version = c->rank == 5 ? 20 + 2 * irand(2) : v[irand(4)];
        c->mode = irand(3);
        c->pad = irand(3);
        break;
    }
    }
}

static void test_determinism(int long_tests)
{
    const int want = long_tests ? 400 : 60;
    int valid = 0, tried = 0;
    const int threads[4] = {1, 2, 3, 8};
    while (valid < want && tried < 50 * want) {
        tried++;
        rcfg c;
        random_cfg(&c);
        int r;
        int64_t os[DRS_MAX_RANK];
        rbufs b;
        memset(&b, 0, sizeof b);
        /* shape phase (no data needed: infer only) */
        if (run_rcfg(&c, &b, &r, os, 0) != DRS_OK)
            continue;
        const size_t es = drs_dtype_size(c.dt);
        size_t nx = 1, ny = 1, ng = 1;
        for (int i = 0; i < c.rank; i++)
            nx *= (size_t)c.shape[i];
        for (int i = 0; i < r; i++)
            ny *= (size_t)os[i];
        ng = (size_t)c.shape[0] * (size_t)(c.rank - 2);
        for (int k = 0; k < c.rank - 2; k++)
            ng *= (size_t)c.out_sp[k];
        if (ny > ((size_t)1 << 22) || ny == 0)
            continue;
        b.x = malloc(nx * es);
        b.dx = malloc(nx * es);
        b.dy = malloc(ny * es);
        b.grid = malloc(ng * sizeof(double));
        b.dgrid = malloc(ng * sizeof(double));
        unsigned char *ref[4] = {malloc(ny * es), malloc(nx * es), malloc(ng * sizeof(double)),
                                 malloc(sizeof b.dparam)};
        for (size_t i = 0; i < nx * es; i++)
            ((unsigned char *)b.x)[i] = (unsigned char)rnd();
        if (c.dt == DRS_F32)
            for (size_t i = 0; i < nx; i++)
                ((float *)b.x)[i] = (float)(2 * urand() - 1);
        if (c.dt == DRS_F64)
            for (size_t i = 0; i < nx; i++)
                ((double *)b.x)[i] = 2 * urand() - 1;
        for (size_t i = 0; i < ny; i++) {
            if (c.dt == DRS_F32) ((float *)b.dy)[i] = (float)(2 * urand() - 1);
            if (c.dt == DRS_F64) ((double *)b.dy)[i] = 2 * urand() - 1;
        }
        for (size_t i = 0; i < ng; i++)
            ((double *)b.grid)[i] = 2.6 * urand() - 1.3;
        int ok = 1;
        for (int t = 0; t < 4 && ok; t++) {
            drs_set_num_threads(threads[t]);
            unsigned char *y = t ? malloc(ny * es) : ref[0];
            b.y = y;
            memset(b.dx, 0, nx * es);
            memset(b.dgrid, 0, ng * sizeof(double));
            memset(b.dparam, 0, sizeof b.dparam);
            drs_status s = run_rcfg(&c, &b, &r, os, 1);
            if (s != DRS_OK) { /* a backward-only rejection is fine; the forward ran */
                ok = 0;
                if (t == 0 && (s == DRS_ERR_INVALID_ARGUMENT || s == DRS_ERR_UNSUPPORTED)) {
                    break;
                }
                CHECK(0, "determinism family %d version %d: status %d at %d threads", c.family,
                      c.version, s, threads[t]);
                break;
            }
            if (t == 0) {
                memcpy(ref[1], b.dx, nx * es);
                memcpy(ref[2], b.dgrid, ng * sizeof(double));
                memcpy(ref[3], b.dparam, sizeof b.dparam);
            } else {
                const int same = memcmp(y, ref[0], ny * es) == 0 &&
                                 memcmp(b.dx, ref[1], nx * es) == 0 &&
                                 memcmp(b.dgrid, ref[2], ng * sizeof(double)) == 0 &&
                                 memcmp(b.dparam, ref[3], sizeof b.dparam) == 0;
                CHECK(same, "determinism family %d version %d mode %d dt %d rank %d: %d threads "
                      "differ from 1",
                      c.family, c.version, c.mode, (int)c.dt, c.rank, threads[t]);
                free(y);
            }
        }
        if (ok)
            valid++;
        for (int k = 0; k < 4; k++)
            free(ref[k]);
        free(b.x), free(b.dx), free(b.dy), free(b.grid), free(b.dgrid);
    }
    drs_set_num_threads(2);
    CHECK(valid == want, "determinism: only %d valid configurations in %d tries", valid, tried);
    printf("  determinism: %d random configurations (of %d drawn) bitwise equal at 1/2/3/8 "
           "threads, forward and backward\n",
           valid, tried);
}

int main(void)
{
    const char *lt = getenv("DRS_LONG_TESTS");
    const int long_tests = lt && lt[0] == '1';
    const char *only = getenv("DRS_HOSTILE_ONLY"); /* debugging: run one part */
    if (!only || !strcmp(only, "cve"))
        test_cve_inputs();
    if (!only || !strcmp(only, "huge"))
        test_huge_image();
    if (!only || !strcmp(only, "alloc")) {
        test_alloc_failures();
        test_alloc_failures_runs();
    }
    if (!only || !strcmp(only, "bounds"))
        test_resource_bounds(long_tests);
    if (!only || !strcmp(only, "determinism"))
        test_determinism(long_tests);
    printf("test_hostile: %d checks, %d failed\n", g_checks, g_fail);
    return g_fail ? 1 : 0;
}
