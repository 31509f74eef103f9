/* SPDX-License-Identifier: MIT */
/* test_empty.c — zero-length axes in every op, version and mode, forward and
 * backward, with and without pads, every empty tensor passed with a NULL data
 * pointer (which the API allows for zero elements).
 *
 * Each call must either fail cleanly (a status, a message, the output's canary
 * bytes untouched) or succeed with the defined result: an empty input whose
 * padded axis still gives a non-empty output samples only zero pads, so every
 * output is exactly 0 (OpenVINO pads with zeros before interpolating); the data
 * gradient of an empty input is empty, and its scales gradient is 0.  Run under
 * ASan+UBSan (tools/ci_hostile.sh) this also proves that no division by a zero
 * extent and no pointer arithmetic on a NULL data pointer happens. */
#include <dresample.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_TAIL() printf("  [last error: %s]\n", drs_last_error())
#include "check.h"

static int g_ok = 0, g_err = 0, g_zero_out = 0;

enum { CANARY = 0x5a };

/* Buffer of n elements of es bytes with 64 canary bytes after it; NULL for n == 0. */
static unsigned char *buf_new(int64_t n, size_t es)
{
    if (n == 0)
        return NULL;
    unsigned char *b = malloc((size_t)n * es + 64);
    memset(b, CANARY, (size_t)n * es + 64);
    return b;
}

static int canary_ok(const unsigned char *b, int64_t n, size_t es, int whole)
{
    if (!b)
        return 1;
    const size_t from = whole ? 0 : (size_t)n * es, to = (size_t)n * es + 64;
    for (size_t i = from; i < to; i++)
        if (b[i] != CANARY)
            return 0;
    return 1;
}

static int64_t numel(int rank, const int64_t *s)
{
    int64_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= s[i];
    return n;
}

static int all_zero(const unsigned char *b, int64_t n, drs_dtype dt)
{
    for (int64_t i = 0; i < n; i++) {
        double v;
        switch (dt) {
        case DRS_F32: v = ((const float *)b)[i]; break;
        case DRS_F64: v = ((const double *)b)[i]; break;
        case DRS_U8: v = b[i]; break;
        default: v = ((const int32_t *)b)[i]; break;
        }
        if (v != 0.0)
            return 0;
    }
    return 1;
}

static void fill(unsigned char *b, int64_t n, drs_dtype dt)
{
    for (int64_t i = 0; i < n; i++) {
        const double v = (double)((i * 37) % 11) - 5.0;
        switch (dt) {
        case DRS_F32: ((float *)b)[i] = (float)v; break;
        case DRS_F64: ((double *)b)[i] = v; break;
        case DRS_U8: b[i] = (unsigned char)(v + 5.0); break;
        default: ((int32_t *)b)[i] = (int32_t)v; break;
        }
    }
}

/* One op family behind a uniform interface. */
typedef struct call {
    const char *name;
    int kind; /* 0 interpolate, 1 resize, 2 torch, 3 grid */
    drs_interpolate_attrs ia;
    drs_interpolate_inputs ii;
    drs_resize_attrs ra;
    drs_resize_inputs ri;
    drs_torch_interpolate_attrs ta;
    drs_grid_sample_attrs ga;
    drs_tensor grid;
    int n_params;
} call;

static drs_status infer(const call *c, const drs_tensor *x, int *r, int64_t *os)
{
    switch (c->kind) {
    case 0: return drs_interpolate_infer_shape(&c->ia, x, &c->ii, r, os);
    case 1: return drs_resize_infer_shape(&c->ra, x, &c->ri, r, os);
    case 2: return drs_torch_interpolate_infer_shape(&c->ta, x, r, os);
    default: return drs_grid_sample_infer_shape(&c->ga, x, &c->grid, r, os);
    }
}

static drs_status fwd(const call *c, drs_tensor *y, const drs_tensor *x)
{
    switch (c->kind) {
    case 0: return drs_interpolate_forward(y, x, &c->ii, &c->ia);
    case 1: return drs_resize_forward(y, x, &c->ri, &c->ra);
    case 2: return drs_torch_interpolate_forward(y, x, &c->ta);
    default: return drs_grid_sample_forward(y, x, &c->grid, &c->ga);
    }
}

static drs_status bwd(const call *c, drs_tensor *dx, double *dp, double *droi, drs_tensor *dgrid,
                      const drs_tensor *dy, const drs_tensor *x)
{
    switch (c->kind) {
    case 0: return drs_interpolate_backward(dx, dp, dy, x, &c->ii, &c->ia, DRS_GRAD_OVERWRITE);
    case 1: return drs_resize_backward(dx, dp, droi, dy, x, &c->ri, &c->ra, DRS_GRAD_OVERWRITE);
    case 2: return drs_torch_interpolate_backward(dx, dy, x, &c->ta, DRS_GRAD_OVERWRITE);
    default: return drs_grid_sample_backward(dx, dgrid, dy, x, &c->grid, &c->ga, DRS_GRAD_OVERWRITE);
    }
}

/* Runs forward (every dtype the op takes) and backward (float types) of one
 * configuration on data of the given shape. */
static void run(const call *c, int rank, const int64_t *shape, const char *desc)
{
    static const drs_dtype types[3] = {DRS_F32, DRS_F64, DRS_U8};
    for (int t = 0; t < 3; t++) {
        const drs_dtype dt = types[t];
        if (c->kind == 2 && dt == DRS_U8)
            continue; /* the torch preset's float-only modes would just refuse */
        const size_t es = drs_dtype_size(dt);
        drs_tensor x = {dt, rank, {0}, NULL};
        memcpy(x.shape, shape, sizeof(int64_t) * (size_t)rank);
        const int64_t nx = numel(rank, shape);
        unsigned char *xb = buf_new(nx, es);
        if (xb)
            fill(xb, nx, dt);
        x.data = xb;
        int r = 0;
        int64_t os[DRS_MAX_RANK];
        drs_status s = infer(c, &x, &r, os);
        if (s != DRS_OK) {
            CHECK(drs_last_error()[0] != '\0', "%s %s %s: infer failed without a message", c->name,
                  desc, drs_dtype_name(dt));
            g_err++;
            free(xb);
            continue;
        }
        const int64_t ny = numel(r, os);
        unsigned char *yb = buf_new(ny, es);
        drs_tensor y = {dt, r, {0}, yb};
        memcpy(y.shape, os, sizeof(int64_t) * (size_t)r);
        s = fwd(c, &y, &x);
        if (s != DRS_OK) {
            CHECK(drs_last_error()[0] != '\0' && canary_ok(yb, ny, es, 1),
                  "%s %s %s: forward failed (%s) but wrote or gave no message", c->name, desc,
                  drs_dtype_name(dt), drs_status_str(s));
            g_err++;
        } else {
            g_ok++;
            CHECK(canary_ok(yb, ny, es, 0), "%s %s %s: forward wrote past the output", c->name,
                  desc, drs_dtype_name(dt));
            if (nx == 0 && ny > 0) {
                g_zero_out++;
                CHECK(all_zero(yb, ny, dt), "%s %s %s: empty input, output not all 0", c->name,
                      desc, drs_dtype_name(dt));
            }
        }
        if (s == DRS_OK && dt != DRS_U8) {
            unsigned char *dyb = buf_new(ny, es), *dxb = buf_new(nx, es);
            if (dyb)
                fill(dyb, ny, dt);
            drs_tensor dy = y, dx = x;
            dy.data = dyb;
            dx.data = dxb;
            double dp[DRS_MAX_RANK + 1], droi[2 * DRS_MAX_RANK];
            for (int i = 0; i < DRS_MAX_RANK + 1; i++)
                dp[i] = NAN;
            for (int i = 0; i < 2 * DRS_MAX_RANK; i++)
                droi[i] = NAN;
            drs_tensor dg = c->grid;
            unsigned char *dgb = NULL;
            if (c->kind == 3) {
                const int64_t ng = numel(c->grid.rank, c->grid.shape);
                dgb = buf_new(ng, drs_dtype_size(c->grid.dtype));
                dg.data = dgb;
            }
            const int want_p = c->n_params > 0 && c->kind != 2 && c->kind != 3;
            const int want_roi = c->kind == 1 && c->ri.n_roi > 0;
            s = bwd(c, &dx, want_p ? dp : NULL, want_roi ? droi : NULL, c->kind == 3 ? &dg : NULL,
                    &dy, &x);
            if (s != DRS_OK) {
                CHECK(drs_last_error()[0] != '\0' && canary_ok(dxb, nx, es, 1),
                      "%s %s %s: backward failed (%s) but wrote or gave no message", c->name,
                      desc, drs_dtype_name(dt), drs_status_str(s));
                g_err++;
            } else {
                g_ok++;
                CHECK(canary_ok(dxb, nx, es, 0), "%s %s %s: backward wrote past data_delta",
                      c->name, desc, drs_dtype_name(dt));
                for (int i = 0; want_p && i < c->n_params; i++)
                    CHECK(isfinite(dp[i]) && (nx > 0 || dp[i] == 0.0),
                          "%s %s %s: scales_delta[%d] = %g", c->name, desc, drs_dtype_name(dt),
                          i, dp[i]);
            }
            free(dyb);
            free(dxb);
            free(dgb);
        }
        free(yb);
        free(xb);
    }
}

/* The data shapes: each axis of (2,3,4,5) zeroed in turn, and none. */
static void shapes_4d(const call *c)
{
    char desc[96];
    for (int z = -1; z < 4; z++) {
        int64_t s[4] = {2, 3, 4, 5};
        if (z >= 0)
            s[z] = 0;
        snprintf(desc, sizeof desc, "x(%lld,%lld,%lld,%lld)", (long long)s[0], (long long)s[1],
                 (long long)s[2], (long long)s[3]);
        run(c, 4, s, desc);
    }
}

static void shapes_5d(const call *c)
{
    char desc[96];
    for (int z = -1; z < 5; z++) {
        int64_t s[5] = {1, 2, 3, 4, 2};
        if (z >= 0)
            s[z] = 0;
        snprintf(desc, sizeof desc, "x(%lld,%lld,%lld,%lld,%lld)", (long long)s[0],
                 (long long)s[1], (long long)s[2], (long long)s[3], (long long)s[4]);
        run(c, 5, s, desc);
    }
}

static void test_interpolate(void)
{
    static const int64_t axes2[2] = {2, 3};
    static const int64_t sz2[2] = {3, 4};
    static const double sc2[2] = {1.5, 0.75};
    static const int64_t sz4[4] = {2, 3, 3, 4};
    static const double sc4[4] = {1.0, 1.0, 1.5, 0.75};
    const drs_interp_mode modes[7] = {DRS_MODE_NEAREST,         DRS_MODE_LINEAR,
                                      DRS_MODE_LINEAR_ONNX,     DRS_MODE_CUBIC,
                                      DRS_MODE_AREA,            DRS_MODE_BILINEAR_PILLOW,
                                      DRS_MODE_BICUBIC_PILLOW};
    const int versions[3] = {1, 4, 11};
    static const int64_t pads[4][2][4] = {
        {{0, 0, 0, 0}, {0, 0, 0, 0}},
        {{0, 0, 0, 2}, {0, 0, 1, 1}}, /* the pads of the SIGFPE report */
        {{0, 0, 1, 0}, {0, 0, 0, 2}},
        {{0, 0, 2, 1}, {0, 0, 1, 0}},
    };
    for (int v = 0; v < 3; v++)
        for (int m = 0; m < 7; m++)
            for (int calc = 0; calc < 2; calc++)
                for (int full = 0; full < 2; full++)
                    for (int pd = 0; pd < 4; pd++)
                        for (int aa = 0; aa < 2; aa++) {
                            call c;
                            memset(&c, 0, sizeof c);
                            c.kind = 0;
                            c.name = "Interpolate";
                            c.ia = drs_interpolate_attrs_default(versions[v]);
                            c.ia.mode = modes[m];
                            c.ia.antialias = aa;
                            if (versions[v] == 1)
                                c.ia.align_corners = calc;
                            else
                                c.ia.shape_calculation_mode =
                                    calc ? DRS_SHAPE_SCALES : DRS_SHAPE_SIZES;
                            if (versions[v] != 1 && (m % 2))
                                c.ia.coordinate_transformation_mode = DRS_COORD_ALIGN_CORNERS;
                            c.ia.n_pads_begin = c.ia.n_pads_end = 4;
                            memcpy(c.ia.pads_begin, pads[pd][0], sizeof c.ia.pads_begin[0] * 4);
                            memcpy(c.ia.pads_end, pads[pd][1], sizeof c.ia.pads_end[0] * 4);
                            const int n = full && versions[v] != 1 ? 4 : 2;
                            c.ii.sizes = n == 4 ? sz4 : sz2;
                            c.ii.n_sizes = n;
                            if (versions[v] != 1 && calc) {
                                c.ii.scales = n == 4 ? sc4 : sc2;
                                c.ii.n_scales = n;
                                c.n_params = n;
                            }
                            if (n == 2) {
                                c.ii.axes = axes2;
                                c.ii.n_axes = 2;
                            }
                            shapes_4d(&c);
                        }
    /* InterpolateBackprop-4 on an empty input with pads */
    {
        drs_interpolate_attrs a = drs_interpolate_attrs_default(4);
        a.mode = DRS_MODE_CUBIC;
        a.shape_calculation_mode = DRS_SHAPE_SCALES;
        a.n_pads_begin = a.n_pads_end = 4;
        memcpy(a.pads_begin, pads[1][0], sizeof a.pads_begin[0] * 4);
        memcpy(a.pads_end, pads[1][1], sizeof a.pads_end[0] * 4);
        drs_interpolate_inputs in = {sz4, 4, sc4, 4, NULL, 0};
        drs_tensor x = {DRS_F32, 4, {1, 1, 5, 0}, NULL};
        int r;
        int64_t os[DRS_MAX_RANK];
        CHECK(drs_interpolate_infer_shape(&a, &x, &in, &r, os) == DRS_OK, "backprop infer");
        const int64_t ny = numel(r, os);
        float *dy = malloc((size_t)(ny ? ny : 1) * sizeof *dy);
        for (int64_t i = 0; i < ny; i++)
            dy[i] = 1.0f;
        drs_tensor dyt = {DRS_F32, r, {os[0], os[1], os[2], os[3]}, dy};
        drs_tensor dx = x;
        double ds[4] = {NAN, NAN, NAN, NAN};
        CHECK(drs_interpolate_backprop(&dx, ds, &x, &dyt, &in, &a, DRS_GRAD_OVERWRITE) == DRS_OK &&
                  ds[0] == 0.0 && ds[3] == 0.0,
              "InterpolateBackprop-4 on an empty padded input: ds %g %g", ds[0], ds[3]);
        free(dy);
    }
}

static void test_resize(void)
{
    static const double sc4[4] = {1.0, 1.0, 1.5, 0.75};
    static const int64_t sz4[4] = {2, 3, 3, 4};
    static const double roi8[8] = {0, 0, 0.1, 0.2, 1, 1, 0.9, 0.7};
    const int opsets[5] = {10, 11, 13, 18, 19};
    const drs_interp_mode modes[3] = {DRS_MODE_NEAREST, DRS_MODE_LINEAR, DRS_MODE_CUBIC};
    const drs_coord_mode coords[3] = {DRS_COORD_HALF_PIXEL, DRS_COORD_ALIGN_CORNERS,
                                      DRS_COORD_TF_CROP_AND_RESIZE};
    for (int o = 0; o < 5; o++)
        for (int m = 0; m < 3; m++)
            for (int cm = 0; cm < 3; cm++)
                for (int use_sizes = 0; use_sizes < 2; use_sizes++)
                    for (int aa = 0; aa < 2; aa++) {
                        if (opsets[o] == 10 && (cm || use_sizes || aa))
                            continue;
                        if (aa && opsets[o] < 18)
                            continue;
                        call c;
                        memset(&c, 0, sizeof c);
                        c.kind = 1;
                        c.name = "Resize";
                        c.ra = drs_resize_attrs_default(opsets[o]);
                        c.ra.mode = modes[m];
                        c.ra.antialias = aa;
                        if (opsets[o] > 10)
                            c.ra.coordinate_transformation_mode = coords[cm];
                        c.ra.extrapolation_value = 7.0;
                        if (use_sizes) {
                            c.ri.sizes = sz4;
                            c.ri.n_sizes = 4;
                        } else {
                            c.ri.scales = sc4;
                            c.ri.n_scales = 4;
                            c.n_params = 4;
                        }
                        if (coords[cm] == DRS_COORD_TF_CROP_AND_RESIZE && opsets[o] > 10) {
                            c.ri.roi = roi8;
                            c.ri.n_roi = 8;
                        }
                        shapes_4d(&c);
                    }
}

static void test_torch(void)
{
    const drs_torch_mode modes[5] = {DRS_TORCH_NEAREST, DRS_TORCH_NEAREST_EXACT,
                                     DRS_TORCH_BILINEAR, DRS_TORCH_BICUBIC, DRS_TORCH_AREA};
    for (int m = 0; m < 5; m++)
        for (int by_size = 0; by_size < 2; by_size++) {
            call c;
            memset(&c, 0, sizeof c);
            c.kind = 2;
            c.name = "TorchInterpolate";
            c.ta = drs_torch_interpolate_attrs_default();
            c.ta.mode = modes[m];
            if (by_size) {
                c.ta.n_size = 2;
                c.ta.size[0] = 3;
                c.ta.size[1] = 7;
            } else {
                c.ta.n_scale_factor = 2;
                c.ta.scale_factor[0] = 1.5;
                c.ta.scale_factor[1] = 0.6;
            }
            shapes_4d(&c);
        }
}

static void test_grid(void)
{
    const int versions[4] = {9, 16, 20, 22};
    for (int v = 0; v < 4; v++)
        for (int m = 0; m < 3; m++)
            for (int pad = 0; pad < 3; pad++)
                for (int g = 0; g < 3; g++) { /* grid: normal, empty points, empty batch */
                    for (int five = 0; five < 2; five++) {
                        if (five && versions[v] < 20)
                            continue;
                        call c;
                        memset(&c, 0, sizeof c);
                        c.kind = 3;
                        c.name = "GridSample";
                        c.ga = drs_grid_sample_attrs_default(versions[v]);
                        c.ga.mode = (drs_grid_mode)m;
                        c.ga.padding_mode = (drs_grid_padding)pad;
                        const int S = five ? 3 : 2;
                        int64_t gs[5] = {five ? 1 : 2, 3, 2, 2, S};
                        if (g == 1)
                            gs[1] = 0;
                        if (five)
                            gs[3] = S;
                        const int grank = five ? 5 : 4;
                        if (!five)
                            gs[3] = S;
                        const int64_t ng = numel(grank, gs);
                        double *gd = ng ? malloc((size_t)ng * sizeof *gd) : NULL;
                        for (int64_t i = 0; i < ng; i++)
                            gd[i] = ((double)((i * 7) % 9) - 4.0) / 3.0;
                        c.grid = (drs_tensor){DRS_F64, grank, {0}, gd};
                        memcpy(c.grid.shape, gs, sizeof(int64_t) * (size_t)grank);
                        if (five)
                            shapes_5d(&c);
                        else
                            shapes_4d(&c);
                        if (g == 2) { /* batch 0 on both */
                            c.grid.shape[0] = 0;
                            c.grid.data = NULL;
                            int64_t s4[4] = {0, 3, 4, 5};
                            int64_t s5[5] = {0, 2, 3, 4, 2};
                            run(&c, five ? 5 : 4, five ? s5 : s4, "x(batch 0)");
                        }
                        free(gd);
                    }
                }
}

int main(void)
{
    drs_set_num_threads(2);
    test_interpolate();
    test_resize();
    test_torch();
    test_grid();
    printf("test_empty: %d checks, %d failed; %d calls succeeded (%d empty-input outputs checked "
           "all 0), %d refused cleanly\n",
           g_checks, g_fail, g_ok, g_zero_out, g_err);
    /* the matrix must really exercise the padded empty-input path */
    if (g_zero_out < 100 || g_ok < 1000) {
        printf("FAIL: too few successful calls for the matrix to mean anything\n");
        return 1;
    }
    return g_fail ? 1 : 0;
}
