/* SPDX-License-Identifier: MIT */
/* test_threads.c — the output is bitwise identical for 1, 2 and 4 threads (or
 * the counts given as arguments), for
 * every op family and mode, on shapes large enough to take the parallel path;
 * and NCHW vs NHWC (axes {1,2}) give the same bits as a transposed copy; and
 * the library's thread setting never changes the host's OpenMP state; and the
 * scratch cache gives the same bits cold, warm, reused, released and from
 * several threads at once. */
#include <dresample.h>
#include <float.h>

#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_fail = 0, g_cases = 0;
/* The thread counts compared with 1 thread: 2 and 4, or the arguments
 * (e.g. 16 64: oversubscribed on a small machine). */
static int g_threads[3] = {1, 2, 4};

static unsigned lcg(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

typedef drs_status (*run_fn)(drs_tensor *y, const drs_tensor *x, const void *cfg);

static drs_status run_resize(drs_tensor *y, const drs_tensor *x, const void *cfg)
{
    const drs_resize_attrs *a = cfg;
    static const double sc[4] = {1, 1, 1.7, 0.55};
    drs_resize_inputs in = {NULL, 0, sc, 4, NULL, 0};
    return drs_resize_forward(y, x, &in, a);
}

static drs_status run_interp(drs_tensor *y, const drs_tensor *x, const void *cfg)
{
    const drs_interpolate_attrs *a = cfg;
    static const int64_t sz[2] = {151, 101}, axes[2] = {2, 3};
    drs_interpolate_inputs in = {sz, 2, NULL, 0, axes, 2};
    return drs_interpolate_forward(y, x, &in, a);
}

static drs_status run_torch(drs_tensor *y, const drs_tensor *x, const void *cfg)
{
    return drs_torch_interpolate_forward(y, x, cfg);
}

static void check(const char *name, run_fn fn, const void *cfg, drs_dtype dt,
                  drs_status (*shape)(const void *, const drs_tensor *, int *, int64_t *))
{
    const int64_t shp[4] = {2, 4, 96, 160};
    const int64_t n = 2 * 4 * 96 * 160;
    const size_t es = drs_dtype_size(dt);
    unsigned char *xb = malloc((size_t)n * es);
    unsigned seed = 12345;
    for (int64_t i = 0; i < n; i++) {
        const unsigned r = lcg(&seed);
        switch (dt) {
        case DRS_F32: ((float *)xb)[i] = (float)(r % 20001) / 10000.0f - 1.0f; break;
        case DRS_F64: ((double *)xb)[i] = (double)(r % 20001) / 10000.0 - 1.0; break;
        case DRS_U8: xb[i] = (unsigned char)r; break;
        default: ((int32_t *)xb)[i] = (int32_t)(r % 2001) - 1000; break;
        }
    }
    drs_tensor x = {dt, 4, {shp[0], shp[1], shp[2], shp[3]}, xb};
    int r;
    int64_t os[8];
    g_cases++;
    if (shape(cfg, &x, &r, os)) {
        printf("FAIL %s: %s\n", name, drs_last_error());
        g_fail++;
        free(xb);
        return;
    }
    const int64_t m = os[0] * os[1] * os[2] * os[3];
    unsigned char *ref = NULL;
    const int *threads = g_threads;
    for (int t = 0; t < 3; t++) {
        drs_set_num_threads(threads[t]);
        unsigned char *yb = malloc((size_t)m * es);
        drs_tensor y = {dt, 4, {os[0], os[1], os[2], os[3]}, yb};
        if (fn(&y, &x, cfg)) {
            printf("FAIL %s: %s\n", name, drs_last_error());
            g_fail++;
            free(yb);
            break;
        }
        if (!ref) {
            ref = yb;
        } else {
            if (memcmp(ref, yb, (size_t)m * es) != 0) {
                printf("FAIL %s: %d threads differ from 1 thread\n", name, threads[t]);
                g_fail++;
            }
            free(yb);
        }
    }
    free(ref);
    free(xb);
}

static drs_status shape_resize(const void *cfg, const drs_tensor *x, int *r, int64_t *os)
{
    static const double sc[4] = {1, 1, 1.7, 0.55};
    drs_resize_inputs in = {NULL, 0, sc, 4, NULL, 0};
    return drs_resize_infer_shape(cfg, x, &in, r, os);
}
static drs_status shape_interp(const void *cfg, const drs_tensor *x, int *r, int64_t *os)
{
    static const int64_t sz[2] = {151, 101}, axes[2] = {2, 3};
    drs_interpolate_inputs in = {sz, 2, NULL, 0, axes, 2};
    return drs_interpolate_infer_shape(cfg, x, &in, r, os);
}
static drs_status shape_torch(const void *cfg, const drs_tensor *x, int *r, int64_t *os)
{
    return drs_torch_interpolate_infer_shape(cfg, x, r, os);
}

/* v[i] in [-0.5, 0.5] from seed (nothing when v is NULL) */
static void fill_signed(float *v, size_t n, unsigned seed)
{
    for (size_t i = 0; v && i < n; i++)
        v[i] = (float)(lcg(&seed) % 1000) / 999.0f - 0.5f;
}

/* PyTorch-style bilinear to Ho x Wo */
static drs_torch_interpolate_attrs bilinear_to(int64_t Ho, int64_t Wo)
{
    drs_torch_interpolate_attrs a = drs_torch_interpolate_attrs_default();
    a.mode = DRS_TORCH_BILINEAR;
    a.n_size = 2;
    a.size[0] = Ho;
    a.size[1] = Wo;
    return a;
}

/* A 2x bilinear output of 32 MiB, which streams by default (the float32 2x
 * rows from the registers when every row starts on a line), gives the bits
 * of the same call in two halves of 16 MiB, which do not stream. */
static void check_stream_policy(void)
{
    const int64_t C = 16, H = 256, W = 512;
    const size_t nx = (size_t)(C * H * W), ny = 4 * nx;
    float *x = malloc(sizeof(float) * nx), *y = aligned_alloc(64, sizeof(float) * ny);
    float *yh = aligned_alloc(64, sizeof(float) * ny);
    fill_signed(x, nx, 11);
    const drs_torch_interpolate_attrs a = bilinear_to(2 * H, 2 * W);
    drs_tensor X = {DRS_F32, 4, {1, C, H, W}, x}, Y = {DRS_F32, 4, {1, C, 2 * H, 2 * W}, y};
    drs_status st = x && y && yh ? drs_torch_interpolate_forward(&Y, &X, &a) : DRS_ERR_NOMEM;
    for (int h = 0; h < 2 && !st; h++) {
        drs_tensor Xh = {DRS_F32, 4, {1, C / 2, H, W}, x + (size_t)h * nx / 2};
        drs_tensor Yh = {DRS_F32, 4, {1, C / 2, 2 * H, 2 * W}, yh + (size_t)h * ny / 2};
        st = drs_torch_interpolate_forward(&Yh, &Xh, &a);
    }
    g_cases++;
    if (st || memcmp(y, yh, sizeof(float) * ny) != 0) {
        printf("FAIL 2x bilinear, 32 MiB output against two 16 MiB halves: %s\n",
               st ? drs_last_error() : "bits differ");
        g_fail++;
    }
    free(x);
    free(y);
    free(yh);
}

/* The default policy for a 2-D data gradient with a team: a 2x bilinear
 * upsampling's 32 MiB dx read from a dy four times larger is streamed out at
 * two threads; the same call in 16 parts of 2 MiB (8 MiB of dy) is not.  Same bits.  (This
 * checks the bits of whatever the policy picks, not the pick itself: a row put
 * one element short in the streamed path failed it when it was written.) */
static void check_grad_stream_policy(void)
{
    const int64_t C = 32, H = 512, W = 512;
    const size_t nx = (size_t)(C * H * W), ny = 4 * nx;
    float *x = calloc(nx, sizeof(float)), *gy = malloc(sizeof(float) * ny);
    float *gx = aligned_alloc(64, sizeof(float) * nx), *gxh = aligned_alloc(64, sizeof(float) * nx);
    fill_signed(gy, ny, 17);
    const drs_torch_interpolate_attrs a = bilinear_to(2 * H, 2 * W);
    const int nt_before = drs_get_num_threads();
    drs_set_num_threads(2);
    drs_tensor X = {DRS_F32, 4, {1, C, H, W}, x}, GX = {DRS_F32, 4, {1, C, H, W}, gx};
    drs_tensor GY = {DRS_F32, 4, {1, C, 2 * H, 2 * W}, gy};
    drs_status st = x && gy && gx && gxh
                        ? drs_torch_interpolate_backward(&GX, &GY, &X, &a, DRS_GRAD_OVERWRITE)
                        : DRS_ERR_NOMEM;
    for (int h = 0; h < 16 && !st; h++) {
        drs_tensor Xh = {DRS_F32, 4, {1, C / 16, H, W}, x + (size_t)h * nx / 16};
        drs_tensor GXh = {DRS_F32, 4, {1, C / 16, H, W}, gxh + (size_t)h * nx / 16};
        drs_tensor GYh = {DRS_F32, 4, {1, C / 16, 2 * H, 2 * W}, gy + (size_t)h * ny / 16};
        st = drs_torch_interpolate_backward(&GXh, &GYh, &Xh, &a, DRS_GRAD_OVERWRITE);
    }
    drs_set_num_threads(nt_before);
    g_cases++;
    if (st || memcmp(gx, gxh, sizeof(float) * nx) != 0) {
        printf("FAIL 2x bilinear backward at 2 threads, 32 MiB dx against two 16 MiB halves: %s\n",
               st ? drs_last_error() : "bits differ");
        g_fail++;
    }
    free(x);
    free(gy);
    free(gx);
    free(gxh);
}

/* The data gradient of an integer-factor area downsampling (adaptive average
 * pooling with exact factors: every input one tap on both axes) into a dx on a
 * 64-byte line: with AVX-512 its rows go straight from dy's (backward.c's
 * direct rows, streaming stores when dx is streamed), with dx one float past a
 * line through the two transposed passes.  Both give the same bits, and with power-of-two
 * factors each element is dy / (kh * kw) exactly (a hand value; dy subnormal:
 * rounded twice, so only the two paths compared).  The ctest
 * entry test_threads_stream forces streaming for the small cases; the last
 * case, a 32 MiB dx at one thread, streams by default. */
static void check_area_down(int64_t kh, int64_t kw, int64_t C, int64_t Ho, int64_t Wo)
{
    const int64_t H = kh * Ho, W = kw * Wo;
    const size_t nx = (size_t)(C * H * W), ny = (size_t)(C * Ho * Wo);
    float *gy = malloc(sizeof(float) * ny), *x = calloc(nx, sizeof(float));
    float *gx = aligned_alloc(64, sizeof(float) * (nx + 16));
    float *gxu = aligned_alloc(64, sizeof(float) * (nx + 16));
    unsigned seed = 13;
    for (size_t i = 0; gy && i < ny; i++) /* with -0, exact zeros and subnormals of both signs */
        gy[i] = i % 97 == 5   ? -0.0f
                : i % 89 == 7 ? (float)((int)(i % 129) - 64) * FLT_TRUE_MIN
                              : (float)((int)(lcg(&seed) % 2001) - 1000) / 7.0f;
    drs_torch_interpolate_attrs a = drs_torch_interpolate_attrs_default();
    a.mode = DRS_TORCH_AREA;
    a.n_size = 2;
    a.size[0] = Ho;
    a.size[1] = Wo;
    drs_tensor X = {DRS_F32, 4, {1, C, H, W}, x}, GY = {DRS_F32, 4, {1, C, Ho, Wo}, gy};
    drs_tensor GX = {DRS_F32, 4, {1, C, H, W}, gx}, GXU = {DRS_F32, 4, {1, C, H, W}, gxu + 1};
    drs_status st = gy && x && gx && gxu ? DRS_OK : DRS_ERR_NOMEM;
    if (!st)
        st = drs_torch_interpolate_backward(&GX, &GY, &X, &a, DRS_GRAD_OVERWRITE);
    if (!st)
        st = drs_torch_interpolate_backward(&GXU, &GY, &X, &a, DRS_GRAD_OVERWRITE);
    g_cases++;
    const int pow2 = !((kh * kw) & (kh * kw - 1));
    size_t bad = nx;
    for (size_t i = 0; !st && i < nx && bad == nx; i++) {
        const size_t c = i / (size_t)(H * W), h = i / (size_t)W % (size_t)H, w = i % (size_t)W;
        const float g0 = gy[(c * (size_t)Ho + h / (size_t)kh) * (size_t)Wo + w / (size_t)kw];
        const float hand = g0 / (float)(kh * kw);
        const int normal = g0 == 0.0f || g0 >= FLT_MIN * 64 || g0 <= -FLT_MIN * 64;
        if (memcmp(&gx[i], &gxu[1 + i], sizeof(float)) != 0 || /* (subnormals: rounded twice) */
            (pow2 && normal && memcmp(&gx[i], &(float){hand + 0.0f}, sizeof(float)) != 0))
            bad = i;
    }
    if (st || bad != nx) {
        printf("FAIL area %lldx%lld down, C=%lld %lldx%lld: %s (element %zu)\n", (long long)kh,
               (long long)kw, (long long)C, (long long)H, (long long)W,
               st ? drs_last_error() : "bits differ", bad);
        g_fail++;
    }
    free(gy);
    free(x);
    free(gx);
    free(gxu);
}

/* NHWC (axes {1,2}) and NCHW (axes {2,3}) give the same bits, forward and
 * data gradient.  C = 200 makes a channels-last row longer than 16 KiB, so
 * the forward runs its chunked row path (and NCHW the plain one); C = 208,
 * a multiple of 16, with the 2x output on a 64-byte line, also its two-tap
 * chunks streamed from the registers when streaming stores are on (the
 * ctest entry test_threads_stream forces them); W = 48 (2x: rows of 96, a
 * multiple of 32; the output off floats past a 64-byte line) gives NCHW's
 * whole-row 2x path streamed from the registers (off = 0) or its rows'
 * interior lines from the registers and their ends through the row buffer
 * (off > 0), as does W = 81 with C = 2, its rows at each 8-byte offset (NHWC
 * runs the per-output path there, so both sides differ). */
static void check_nhwc(int64_t C, int64_t W, int64_t off)
{
    const int64_t N = 2, H = 19, Ho = 31, Wo = 11;
    const size_t nx = (size_t)(N * C * H * W), ny = (size_t)(N * C * Ho * Wo);
    float *x = malloc(sizeof(float) * nx), *xt = malloc(sizeof(float) * nx);
    float *y = malloc(sizeof(float) * ny), *yt = malloc(sizeof(float) * ny);
    /* the data gradients on 64-byte lines: with streaming stores on, the 2-D data
     * gradient's rows of a multiple of 16 floats go out straight from the registers
     * (at C = 208 the NHWC side only: NCHW's rows of 23 go through the row buffer,
     * so the two paths are compared) */
    const size_t gxb = (sizeof(float) * nx + 63) / 64 * 64;
    float *gx = aligned_alloc(64, gxb), *gxt = aligned_alloc(64, gxb);
    float *gy = malloc(sizeof(float) * ny), *gyt = malloc(sizeof(float) * ny);
    unsigned seed = 7;
    for (size_t i = 0; i < nx; i++)
        x[i] = (float)(lcg(&seed) % 1000) / 999.0f;
    for (size_t i = 0; i < ny; i++)
        gy[i] = (float)(lcg(&seed) % 1000) / 999.0f - 0.5f;
    for (int64_t n = 0; n < N; n++) /* xt, gyt = NHWC copies */
        for (int64_t c = 0; c < C; c++) {
            for (int64_t h = 0; h < H; h++)
                for (int64_t w = 0; w < W; w++)
                    xt[((n * H + h) * W + w) * C + c] = x[((n * C + c) * H + h) * W + w];
            for (int64_t h = 0; h < Ho; h++)
                for (int64_t w = 0; w < Wo; w++)
                    gyt[((n * Ho + h) * Wo + w) * C + c] = gy[((n * C + c) * Ho + h) * Wo + w];
        }
    drs_resize_attrs a = drs_resize_attrs_default(19);
    a.n_axes = 2;
    const drs_interp_mode modes[3] = {DRS_MODE_CUBIC, DRS_MODE_LINEAR, DRS_MODE_LINEAR};
    for (int m = 0; m < 3; m++) {
        a.mode = modes[m];
        a.antialias = m == 1; /* linear with antialias (Wo < W) */
        const int64_t sizes[2] = {m == 2 ? 2 * H : Ho, m == 2 ? 2 * W : Wo}; /* 2: 2x up */
        const int64_t ho = sizes[0], wo = sizes[1];
        drs_resize_inputs in = {NULL, 0, NULL, 0, sizes, 2};
        /* on 64-byte lines, as the streaming stores straight from the registers need */
        const size_t yb = (sizeof(float) * (size_t)(N * C * ho * wo) + 127) / 64 * 64;
        float *yb0 = m == 2 ? aligned_alloc(64, yb) : NULL;
        float *yyt = m == 2 ? aligned_alloc(64, yb) : yt;
        float *yy = m == 2 ? yb0 + off : y; /* off floats past a line */
        float *gg = m == 2 ? calloc((size_t)(N * C * ho * wo), sizeof(float)) : gy;
        float *ggt = m == 2 ? calloc((size_t)(N * C * ho * wo), sizeof(float)) : gyt;
        for (int64_t n = 0; m == 2 && n < N; n++)
            for (int64_t c = 0; c < C; c++)
                for (int64_t h = 0; h < ho; h++)
                    for (int64_t w = 0; w < wo; w++) {
                        const float v = (float)(lcg(&seed) % 1000) / 999.0f - 0.5f;
                        gg[((n * C + c) * ho + h) * wo + w] = v;
                        ggt[((n * ho + h) * wo + w) * C + c] = v;
                    }
        a.axes[0] = 2;
        a.axes[1] = 3;
        drs_tensor X = {DRS_F32, 4, {N, C, H, W}, x}, Y = {DRS_F32, 4, {N, C, ho, wo}, yy};
        drs_tensor GX = {DRS_F32, 4, {N, C, H, W}, gx}, GY = {DRS_F32, 4, {N, C, ho, wo}, gg};
        drs_status s1 = drs_resize_forward(&Y, &X, &in, &a);
        s1 = s1 ? s1 : drs_resize_backward(&GX, NULL, NULL, &GY, &X, &in, &a, DRS_GRAD_OVERWRITE);
        a.axes[0] = 1;
        a.axes[1] = 2;
        drs_tensor XT = {DRS_F32, 4, {N, H, W, C}, xt}, YT = {DRS_F32, 4, {N, ho, wo, C}, yyt};
        drs_tensor GXT = {DRS_F32, 4, {N, H, W, C}, gxt}, GYT = {DRS_F32, 4, {N, ho, wo, C}, ggt};
        drs_status s2 = drs_resize_forward(&YT, &XT, &in, &a);
        s2 = s2 ? s2 : drs_resize_backward(&GXT, NULL, NULL, &GYT, &XT, &in, &a,
                                           DRS_GRAD_OVERWRITE);
        g_cases++;
        int diff = s1 || s2;
        for (int64_t n = 0; n < N && !diff; n++)
            for (int64_t c = 0; c < C; c++) {
                for (int64_t h = 0; h < ho; h++)
                    for (int64_t w = 0; w < wo; w++)
                        diff |= memcmp(&yyt[((n * ho + h) * wo + w) * C + c],
                                       &yy[((n * C + c) * ho + h) * wo + w], sizeof(float)) != 0;
                for (int64_t h = 0; h < H; h++)
                    for (int64_t w = 0; w < W; w++)
                        diff |= memcmp(&gxt[((n * H + h) * W + w) * C + c],
                                       &gx[((n * C + c) * H + h) * W + w], sizeof(float)) != 0;
            }
        if (diff) {
            printf("FAIL NHWC vs NCHW, C = %lld, W = %lld, off %lld (%s): %s\n", (long long)C,
                   (long long)W, (long long)off,
                   m == 0 ? "cubic" : m == 1 ? "linear AA" : "linear 2x", drs_last_error());
            g_fail++;
        }
        if (m == 2) {
            free(yb0);
            free(yyt);
            free(gg);
            free(ggt);
        }
    }
    free(x);
    free(xt);
    free(y);
    free(yt);
    free(gx);
    free(gxt);
    free(gy);
    free(gyt);
}

/* The host's own parallel regions keep their thread count whatever the
 * library's setting is, and the library's results do not depend on either. */
static void check_host_threads(void)
{
    g_cases++;
    const int64_t n = 2 * 3 * 64 * 80;
    float *x = malloc((size_t)n * sizeof *x);
    for (int64_t i = 0; i < n; i++)
        x[i] = (float)((i * 7919) % 1000) / 999.0f;
    drs_tensor xt = {DRS_F32, 4, {2, 3, 64, 80}, x};
    drs_resize_attrs a = drs_resize_attrs_default(19);
    a.mode = DRS_MODE_CUBIC;
    static const double sc[4] = {1, 1, 1.7, 0.55};
    drs_resize_inputs in = {NULL, 0, sc, 4, NULL, 0};
    int r;
    int64_t os[8];
    drs_resize_infer_shape(&a, &xt, &in, &r, os);
    const int64_t m = os[0] * os[1] * os[2] * os[3];
    float *y0 = malloc((size_t)m * sizeof *y0), *y1 = malloc((size_t)m * sizeof *y1);
    drs_tensor y0t = {DRS_F32, 4, {os[0], os[1], os[2], os[3]}, y0};
    drs_tensor y1t = y0t;
    y1t.data = y1;

    omp_set_num_threads(3);
    const int lib_vals[3] = {1, 4, 0};
    int bad = 0;
    for (int k = 0; k < 3; k++) {
        if (drs_set_num_threads(lib_vals[k]) != DRS_OK || drs_get_num_threads() != lib_vals[k])
            bad |= 1;
        if (drs_resize_forward(k ? &y1t : &y0t, &xt, &in, &a) != DRS_OK)
            bad |= 2;
        if (k && memcmp(y0, y1, (size_t)m * sizeof *y0) != 0)
            bad |= 4;
        int team = 0;
#pragma omp parallel
        {
#pragma omp single
            team = omp_get_num_threads();
        }
        if (team != 3 || omp_get_max_threads() != 3) {
            printf("FAIL host threads: after drs_set_num_threads(%d) the host's region has %d "
                   "threads (max %d), expected 3\n", lib_vals[k], team, omp_get_max_threads());
            bad |= 8;
        }
    }
    if (drs_set_num_threads(-1) != DRS_ERR_INVALID_ARGUMENT || drs_get_num_threads() != 0 ||
        !strstr(drs_last_error(), "-1"))
        bad |= 16;
    if (bad) {
        printf("FAIL host threads: flags %d\n", bad);
        g_fail++;
    }
    free(x);
    free(y0);
    free(y1);
}

/* Another thread changes the library's thread setting while calls run: the
 * per-thread scratch of a call (fused 2-D rows, the tiled data gradient, the
 * GridSample scatter planes) must be sized for the team that uses it, and the
 * results stay bitwise identical.  Under ASan a mismatch is a heap overflow. */
static _Atomic int g_flip_stop = 0;
static void *flipper(void *arg)
{
    (void)arg;
    for (unsigned k = 0; !g_flip_stop; k++)
        drs_set_num_threads(1 + (int)(k % 8));
    return NULL;
}

static void check_setting_changes_midcall(void)
{
    g_cases++;
    const int64_t n = 1 * 4 * 96 * 120;
    float *x = malloc((size_t)n * sizeof *x);
    for (int64_t i = 0; i < n; i++)
        x[i] = (float)((i * 7919) % 1000) / 999.0f;
    drs_tensor xt = {DRS_F32, 4, {1, 4, 96, 120}, x};
    drs_resize_attrs a = drs_resize_attrs_default(19);
    a.mode = DRS_MODE_LINEAR;
    static const double sc[4] = {1, 1, 2.0, 1.5};
    drs_resize_inputs in = {NULL, 0, sc, 4, NULL, 0};
    int r;
    int64_t os[8];
    drs_resize_infer_shape(&a, &xt, &in, &r, os);
    const int64_t m = os[0] * os[1] * os[2] * os[3];
    float *y0 = malloc((size_t)m * sizeof *y0), *y1 = malloc((size_t)m * sizeof *y1);
    float *dx0 = malloc((size_t)n * sizeof *dx0), *dx1 = malloc((size_t)n * sizeof *dx1);
    drs_tensor y0t = {DRS_F32, 4, {os[0], os[1], os[2], os[3]}, y0}, y1t = y0t;
    y1t.data = y1;
    drs_tensor dx0t = xt, dx1t = xt;
    dx0t.data = dx0;
    dx1t.data = dx1;
    /* GridSample backward with the scatter scheme (many channels, one image) */
    const int64_t gC = 16, gH = 24, gW = 24, gP = 24 * 24;
    double *gx = malloc((size_t)(gC * gH * gW) * sizeof *gx), *gg = malloc((size_t)gP * 2 * sizeof *gg);
    double *gy = malloc((size_t)(gC * gP) * sizeof *gy);
    double *gdx0 = malloc((size_t)(gC * gH * gW) * sizeof *gdx0), *gdx1 = malloc((size_t)(gC * gH * gW) * sizeof *gdx1);
    for (int64_t i = 0; i < gC * gH * gW; i++)
        gx[i] = (double)(i % 17) / 16.0;
    for (int64_t i = 0; i < gP * 2; i++)
        gg[i] = (double)((i * 37) % 200) / 100.0 - 1.0;
    for (int64_t i = 0; i < gC * gP; i++)
        gy[i] = (double)(i % 13) / 12.0;
    drs_tensor GX = {DRS_F64, 4, {1, gC, gH, gW}, gx}, GG = {DRS_F64, 4, {1, 24, 24, 2}, gg};
    drs_tensor GY = {DRS_F64, 4, {1, gC, 24, 24}, gy}, GDX0 = GX, GDX1 = GX;
    GDX0.data = gdx0;
    GDX1.data = gdx1;
    drs_grid_sample_attrs ga = drs_grid_sample_attrs_default(16);

    int bad = 0;
    drs_set_num_threads(1);
    bad |= drs_resize_forward(&y0t, &xt, &in, &a) != DRS_OK;
    bad |= drs_resize_backward(&dx0t, NULL, NULL, &y0t, &xt, &in, &a, DRS_GRAD_OVERWRITE) != DRS_OK;
    bad |= drs_grid_sample_backward(&GDX0, NULL, &GY, &GX, &GG, &ga, DRS_GRAD_OVERWRITE) != DRS_OK;
    pthread_t th;
    g_flip_stop = 0;
    if (pthread_create(&th, NULL, flipper, NULL) != 0) {
        printf("FAIL setting changes mid-call: pthread_create\n");
        g_fail++;
        return;
    }
    for (int it = 0; it < 60 && !bad; it++) {
        bad |= (drs_resize_forward(&y1t, &xt, &in, &a) != DRS_OK) << 1;
        bad |= (memcmp(y0, y1, (size_t)m * sizeof *y0) != 0) << 2;
        bad |= (drs_resize_backward(&dx1t, NULL, NULL, &y0t, &xt, &in, &a, DRS_GRAD_OVERWRITE) != DRS_OK) << 3;
        bad |= (memcmp(dx0, dx1, (size_t)n * sizeof *dx0) != 0) << 4;
        bad |= (drs_grid_sample_backward(&GDX1, NULL, &GY, &GX, &GG, &ga, DRS_GRAD_OVERWRITE) != DRS_OK) << 5;
        bad |= (memcmp(gdx0, gdx1, (size_t)(gC * gH * gW) * sizeof *gdx0) != 0) << 6;
    }
    g_flip_stop = 1;
    pthread_join(th, NULL);
    drs_set_num_threads(0);
    if (bad) {
        printf("FAIL setting changes mid-call: flags %d\n", bad);
        g_fail++;
    }
    free(x); free(y0); free(y1); free(dx0); free(dx1);
    free(gx); free(gg); free(gy); free(gdx0); free(gdx1);
}


/* ---- the scratch cache: a 3-D resize's intermediates (8 and 16 MiB) are kept
 * between calls; results are the same bits with the cache cold, warm, after
 * a larger call left other data in the kept blocks, after a release, and from
 * four POSIX threads calling at once. ---- */
#define SC_N 8
#define SC_D 32
#define SC_H 64
#define SC_W 64
static const double g_sc_scales[5] = {1.0, 1.0, 2.0, 2.0, 2.0};
static const int64_t g_sc_out = (int64_t)SC_N * (2 * SC_D) * (2 * SC_H) * (2 * SC_W);
static const int64_t g_sc_in = (int64_t)SC_N * SC_D * SC_H * SC_W;

/* Resize-19 linear 2x on the three spatial axes of x (f32, [N, 1, D, H, W]):
 * the forward into y; with dy, also the data gradient into dx and the scales
 * gradient into ds.  The status of the first call that fails, else DRS_OK. */
static drs_status sc_call(const float *x, float *y, const float *dy, float *dx, double *ds)
{
    drs_resize_attrs a = drs_resize_attrs_default(19);
    a.mode = DRS_MODE_LINEAR;
    drs_resize_inputs in = {NULL, 0, g_sc_scales, 5, NULL, 0};
    drs_tensor X = {DRS_F32, 5, {SC_N, 1, SC_D, SC_H, SC_W}, (void *)x};
    drs_tensor Y = {DRS_F32, 5, {SC_N, 1, 2 * SC_D, 2 * SC_H, 2 * SC_W}, y};
    drs_tensor DY = {DRS_F32, 5, {SC_N, 1, 2 * SC_D, 2 * SC_H, 2 * SC_W}, (void *)dy};
    drs_tensor DX = {DRS_F32, 5, {SC_N, 1, SC_D, SC_H, SC_W}, dx};
    const drs_status st = drs_resize_forward(&Y, &X, &in, &a);
    if (st != DRS_OK || !dy)
        return st;
    return drs_resize_backward(&DX, ds, NULL, &DY, &X, &in, &a, DRS_GRAD_OVERWRITE);
}

/* the forward and both gradients: 0 when all succeed */
static int sc_run(const float *x, const float *dy, float *y, float *dx, double *ds)
{
    return sc_call(x, y, dy, dx, ds) != DRS_OK;
}

typedef struct sc_job {
    const float *x, *dy, *y0, *dx0;
    const double *ds0;
    int bad;
} sc_job;

static int sc_same(const float *x, const float *dy, const float *y0, const float *dx0,
                   const double *ds0)
{
    float *y = malloc((size_t)g_sc_out * sizeof *y), *dx = malloc((size_t)g_sc_in * sizeof *dx);
    double ds[5] = {0};
    int bad = !y || !dx || sc_run(x, dy, y, dx, ds) ||
              memcmp(y, y0, (size_t)g_sc_out * sizeof *y) != 0 ||
              memcmp(dx, dx0, (size_t)g_sc_in * sizeof *dx) != 0 || memcmp(ds, ds0, sizeof ds) != 0;
    free(y);
    free(dx);
    return bad;
}

static _Atomic int g_sc_stop = 0;
static void *sc_releaser(void *arg)
{
    (void)arg;
    while (!atomic_load(&g_sc_stop))
        drs_scratch_release();
    return NULL;
}

static void *sc_worker(void *arg)
{
    sc_job *j = arg;
    for (int it = 0; it < 3; it++)
        j->bad |= sc_same(j->x, j->dy, j->y0, j->dx0, j->ds0);
    return NULL;
}


/* Makes allocation k = 0, 1, ... of a 3-D resize fail until the call succeeds
 * (its result then y0): the number of allocations that could be made to fail,
 * or -1 on a wrong status, a written output or a wrong result.  warm: blocks
 * are kept in the cache before each try. */
static int sc_fail_sweep(const float *x, const float *dy, const float *y0, int warm)
{
    float *y = malloc((size_t)g_sc_out * sizeof *y), *dx = malloc((size_t)g_sc_in * sizeof *dx);
    double ds[5];
    int k = 0, res = -1;
    for (; k < 200 && y && dx; k++) {
        if (warm && drs_scratch_held() == 0)
            sc_run(x, dy, y, dx, ds);
        if (!warm)
            drs_scratch_release();
        memset(y, 0x7f, (size_t)g_sc_out * sizeof *y);
        drs_debug_fail_allocation(k);
        const drs_status st = sc_call(x, y, NULL, NULL, NULL);
        drs_debug_fail_allocation(-1);
        if (st == DRS_OK) {
            res = memcmp(y, y0, (size_t)g_sc_out * sizeof *y) == 0 ? k : -1;
            break;
        }
        int untouched = 1;
        for (int64_t i = 0; i < g_sc_out && untouched; i += 4099)
            untouched = ((const unsigned char *)y)[i * 4] == 0x7f;
        if (st != DRS_ERR_NOMEM || !untouched) {
            printf("FAIL scratch cache: allocation %d failed with status %d, output %s\n", k,
                   (int)st, untouched ? "untouched" : "written");
            break;
        }
    }
    free(y);
    free(dx);
    return res;
}

static void check_scratch_cache(void)
{
    g_cases++;
    float *x = malloc((size_t)g_sc_in * sizeof *x), *dy = malloc((size_t)g_sc_out * sizeof *dy);
    float *y0 = malloc((size_t)g_sc_out * sizeof *y0), *dx0 = malloc((size_t)g_sc_in * sizeof *dx0);
    if (!x || !dy || !y0 || !dx0) {
        printf("FAIL scratch cache: out of memory\n");
        g_fail++;
        free(x); free(dy); free(y0); free(dx0);
        return;
    }
    unsigned sd = 7;
    for (int64_t i = 0; i < g_sc_in; i++)
        x[i] = (float)(lcg(&sd) % 2001) / 1000.0f - 1.0f;
    for (int64_t i = 0; i < g_sc_out; i++)
        dy[i] = (float)(lcg(&sd) % 2001) / 1000.0f - 1.0f;
    double ds0[5] = {0};
    drs_set_num_threads(2);
    drs_scratch_release();
    int fail = drs_scratch_held() != 0; /* nothing kept after a release */
    fail |= sc_run(x, dy, y0, dx0, ds0); /* cold: fresh blocks */
    const size_t held = drs_scratch_held();
    const char *e = getenv("DRS_SCRATCH_CACHE_MB");
    const int on = !(e && !strcmp(e, "0"));
    if (on && held < ((size_t)8 << 20)) {
        printf("FAIL scratch cache: %zu bytes kept after a 3-D resize (want >= 8 MiB)\n", held);
        fail = 1;
    }
    if (!on && held != 0) {
        printf("FAIL scratch cache: DRS_SCRATCH_CACHE_MB=0 kept %zu bytes\n", held);
        fail = 1;
    }
    fail |= sc_same(x, dy, y0, dx0, ds0); /* warm: the kept blocks */
    {   /* a larger call (another shape) leaves its data in the kept blocks */
        drs_resize_attrs a = drs_resize_attrs_default(19);
        a.mode = DRS_MODE_CUBIC;
        const double sc[5] = {1.0, 1.0, 2.0, 3.0, 2.0};
        drs_resize_inputs in = {NULL, 0, sc, 5, NULL, 0};
        drs_tensor X = {DRS_F32, 5, {SC_N, 1, SC_D, SC_H, SC_W}, x};
        float *yb = malloc((size_t)g_sc_out * 3 / 2 * sizeof *yb);
        drs_tensor Y = {DRS_F32, 5, {SC_N, 1, 2 * SC_D, 3 * SC_H, 2 * SC_W}, yb};
        fail |= !yb || drs_resize_forward(&Y, &X, &in, &a) != DRS_OK;
        free(yb);
    }
    fail |= sc_same(x, dy, y0, dx0, ds0); /* reused blocks with other data in them */
    /* four threads at once (each call takes a kept block or a new one), while a
     * fifth keeps releasing the kept blocks */
    pthread_t th[4], rel;
    sc_job jobs[4];
    int started = 0;
    atomic_store(&g_sc_stop, 0);
    const int rel_ok = pthread_create(&rel, NULL, sc_releaser, NULL) == 0;
    for (int t = 0; t < 4; t++) {
        jobs[t] = (sc_job){x, dy, y0, dx0, ds0, 0};
        if (pthread_create(&th[t], NULL, sc_worker, &jobs[t]) == 0)
            started++;
        else
            break;
    }
    for (int t = 0; t < started; t++) {
        pthread_join(th[t], NULL);
        fail |= jobs[t].bad;
    }
    atomic_store(&g_sc_stop, 1);
    if (rel_ok)
        pthread_join(rel, NULL);
    fail |= started != 4 || !rel_ok;
    /* the kept bytes are counted right: nothing once released */
    drs_scratch_release();
    fail |= drs_scratch_held() != 0;
    fail |= sc_same(x, dy, y0, dx0, ds0);
    fail |= sc_same(x, dy, y0, dx0, ds0); /* (warm again) */
    fail |= on && drs_scratch_held() > ((size_t)256 << 20); /* the default limit */
    drs_scratch_release();
    fail |= drs_scratch_held() != 0;
    fail |= sc_same(x, dy, y0, dx0, ds0); /* cold again */
    /* the allocation-failure hook bypasses the cache: with blocks kept, each
     * allocation of the call can still be made to fail (as many as with none
     * kept), every failure leaving y untouched */
    const int kcold = sc_fail_sweep(x, dy, y0, 0), kwarm = sc_fail_sweep(x, dy, y0, on);
    if (kcold < 2 || kwarm != kcold) {
        printf("FAIL scratch cache: %d allocations can fail with no block kept, %d with blocks "
               "kept\n", kcold, kwarm);
        fail = 1;
    }
    /* GridSample's scatter planes (threads x 8 x H x W doubles: 8 MiB at 2 threads
     * here) are kept too, and given back all zero, so that the next call need
     * not clear them: cold, warm (kept clean) and dirty (a block the 3-D resize
     * left its data in) gradients have the same bits.  N = 1: one team over the
     * channel groups; N = 2: images as the threads' tasks, one block of planes;
     * N = 3: (image, channel group) tasks over every image's taps. */
    for (int64_t N = 1; N <= 3; N++) {
        const int64_t C = 16, H = 256, W = 256, P = H * W, NX = N * C * P, NG = N * P * 2;
        float *gx = malloc((size_t)NX * sizeof *gx), *gg = malloc((size_t)NG * sizeof *gg);
        float *gdy = malloc((size_t)NX * sizeof *gdy);
        float *d0 = malloc((size_t)NX * sizeof *d0), *d1 = malloc((size_t)NX * sizeof *d1);
        float *q0 = malloc((size_t)NG * sizeof *q0), *q1 = malloc((size_t)NG * sizeof *q1);
        float *ry = malloc((size_t)g_sc_out * sizeof *ry), *rdx = malloc((size_t)g_sc_in * sizeof *rdx);
        double rds[5];
        int gfail = !gx || !gg || !gdy || !d0 || !d1 || !q0 || !q1 || !ry || !rdx;
        if (!gfail) {
            for (int64_t i = 0; i < NX; i++) {
                gx[i] = (float)(lcg(&sd) % 2001) / 1000.0f - 1.0f;
                gdy[i] = (float)(lcg(&sd) % 2001) / 1000.0f - 1.0f;
            }
            for (int64_t i = 0; i < NG; i++)
                gg[i] = (float)(lcg(&sd) % 2201) / 1000.0f - 1.1f;
            drs_grid_sample_attrs a = drs_grid_sample_attrs_default(16);
            drs_tensor X = {DRS_F32, 4, {N, C, H, W}, gx}, G = {DRS_F32, 4, {N, H, W, 2}, gg};
            drs_tensor DY = {DRS_F32, 4, {N, C, H, W}, gdy};
            drs_tensor DX0 = {DRS_F32, 4, {N, C, H, W}, d0}, DG0 = {DRS_F32, 4, {N, H, W, 2}, q0};
            drs_tensor DX1 = {DRS_F32, 4, {N, C, H, W}, d1}, DG1 = {DRS_F32, 4, {N, H, W, 2}, q1};
            drs_scratch_release();
            gfail |= drs_grid_sample_backward(&DX0, &DG0, &DY, &X, &G, &a, DRS_GRAD_OVERWRITE) != DRS_OK;
            gfail |= on && drs_scratch_held() == 0;
            for (int it = 0; it < 3 && !gfail; it++) {
                if (it == 2) { /* only the resize's blocks, with its data in them */
                    drs_scratch_release();
                    gfail |= sc_run(x, dy, ry, rdx, rds);
                    gfail |= on && drs_scratch_held() < ((size_t)8 << 20);
                }
                memset(d1, 0x7f, (size_t)NX * sizeof *d1);
                gfail |= drs_grid_sample_backward(&DX1, &DG1, &DY, &X, &G, &a, DRS_GRAD_OVERWRITE) != DRS_OK;
                gfail |= memcmp(d0, d1, (size_t)NX * sizeof *d0) != 0 ||
                         memcmp(q0, q1, (size_t)NG * sizeof *q0) != 0;
            }
            drs_scratch_release();
        }
        if (gfail)
            printf("FAIL scratch cache: GridSample backward (N = %lld) differs with its planes "
                   "kept clean or dirty\n", (long long)N);
        fail |= gfail;
        free(gx); free(gg); free(gdy); free(d0); free(d1); free(q0); free(q1); free(ry); free(rdx);
    }
    drs_set_num_threads(0);
    if (fail) {
        printf("FAIL scratch cache: results differ between a cold, warm, reused, released or "
               "concurrent cache\n");
        g_fail++;
    }
    free(x); free(dy); free(y0); free(dx0);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc && i < 3; i++)
        g_threads[i] = atoi(argv[i]);
    if (argc == 2)
        g_threads[2] = g_threads[1];
    check_host_threads();
    check_setting_changes_midcall();
    const drs_interp_mode rmodes[3] = {DRS_MODE_NEAREST, DRS_MODE_LINEAR, DRS_MODE_CUBIC};
    const drs_dtype types[4] = {DRS_F32, DRS_F64, DRS_U8, DRS_I32};
    char name[128];
    for (int m = 0; m < 3; m++)
        for (int aa = 0; aa < 2; aa++)
            for (int t = 0; t < 4; t++) {
                if (aa && rmodes[m] == DRS_MODE_NEAREST)
                    continue;
                drs_resize_attrs a = drs_resize_attrs_default(19);
                a.mode = rmodes[m];
                a.antialias = aa;
                snprintf(name, sizeof name, "Resize-19 %s aa=%d %s", drs_interp_mode_str(a.mode),
                         aa, drs_dtype_name(types[t]));
                check(name, run_resize, &a, types[t], shape_resize);
            }
    const drs_interp_mode imodes[7] = {DRS_MODE_NEAREST,         DRS_MODE_LINEAR,
                                       DRS_MODE_LINEAR_ONNX,     DRS_MODE_CUBIC,
                                       DRS_MODE_BILINEAR_PILLOW, DRS_MODE_BICUBIC_PILLOW,
                                       DRS_MODE_AREA};
    for (int m = 0; m < 7; m++)
        for (int t = 0; t < 4; t++) {
            drs_interpolate_attrs a = drs_interpolate_attrs_default(imodes[m] == DRS_MODE_AREA ? 1 : 11);
            a.mode = imodes[m];
            a.antialias = imodes[m] == DRS_MODE_LINEAR;
            snprintf(name, sizeof name, "Interpolate-%d %s %s", a.version,
                     drs_interp_mode_str(a.mode), drs_dtype_name(types[t]));
            check(name, run_interp, &a, types[t], shape_interp);
        }
    const drs_torch_mode tmodes[4] = {DRS_TORCH_NEAREST, DRS_TORCH_BILINEAR, DRS_TORCH_BICUBIC,
                                      DRS_TORCH_AREA};
    for (int m = 0; m < 4; m++)
        for (int aa = 0; aa < 2; aa++) {
            drs_torch_interpolate_attrs a = drs_torch_interpolate_attrs_default();
            a.mode = tmodes[m];
            a.antialias = aa;
            if (aa && !(a.mode == DRS_TORCH_BILINEAR || a.mode == DRS_TORCH_BICUBIC))
                continue;
            a.n_size = 2;
            a.size[0] = 129;
            a.size[1] = 211;
            snprintf(name, sizeof name, "TorchInterpolate mode %d aa=%d", (int)a.mode, aa);
            check(name, run_torch, &a, DRS_F32, shape_torch);
        }
    check_nhwc(5, 23, 0);
    check_nhwc(200, 23, 0);
    check_nhwc(208, 23, 0);
    for (int64_t off = 0; off < 16; off += 3) /* 0, 3, ..., 15 floats past a line */
        check_nhwc(3, 48, off);
    check_nhwc(2, 81, 0);
    check_stream_policy();
    check_grad_stream_policy();
    for (int64_t k = 2; k <= 8; k++) /* every downsampling factor the direct rows take */
        check_area_down(k, k, 3, 5, 16);
    check_area_down(2, 4, 2, 7, 4);
    check_area_down(3, 2, 2, 4, 24);
    const int nt_before = drs_get_num_threads();
    drs_set_num_threads(1); /* one thread streams a 32 MiB dx by default */
    check_area_down(4, 4, 8, 256, 256);
    drs_set_num_threads(nt_before);
    check_scratch_cache();
    printf("test_threads: %d cases, %d failed\n", g_cases, g_fail);
    return g_fail ? 1 : 0;
}
