/* SPDX-License-Identifier: MIT */
/* test_bitwise.c — a broad set of calls (every op family, forward and
 * backward with the scales and grid gradients, every mode, all dtypes, odd
 * lengths, channels-first and channels-last layouts, 4-D and 5-D GridSample)
 * whose output bytes are hashed, for two bit-equality checks:
 *
 *   test_bitwise                 prints the SIMD variant in use, then one line
 *                                "<case> <hash>" per call; tests/simd_variants.cmake
 *                                runs it under each DRS_SIMD value and
 *                                byte-compares the lists;
 *   test_bitwise --threads 16,64 runs every call at 1 thread and at each count
 *                                given and fails on any differing byte;
 *   test_bitwise --variant       prints the SIMD variant in use only.
 *
 * The shapes are large enough for the library's parallel paths. */
#include <dresample.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum family { RESIZE, INTERP, TORCH, GRID };

typedef struct spec {
    enum family fam;
    drs_dtype dt;
    int mode;     /* the family's mode enum */
    int aa;       /* antialias */
    int nhwc;     /* channels-last: the resized axes are 1, 2 */
    int bwd;      /* 1: the gradients (data, scales or grid) */
    int sc;       /* scale set: 0 {1.7, 0.55} (odd), 1 {2, 2}, 2 {0.5, 0.5} */
    int pad;      /* GridSample padding */
    int align;    /* GridSample align_corners */
    int rank5;    /* GridSample 5-D */
    int special;  /* GridSample 2-D with a grid of special values (special_grid):
                     1 GridSample-9 (OpenVINO), 2 GridSample-16 (ONNX); 3: a smooth
                     warp (warp_grid), GridSample-16; 4: two images of large planes,
                     GridSample-16; 5: as 3 with 5 channels (the forward's vector
                     groups take channels in pairs: an odd one is left) */
    int wide;     /* resampling: 1: x [1, 8, 64, 1044] (rows of 4 KiB and more) at scale
                     set 3 {0.25, 0.25}: the fused forward's four-row vertical pass that
                     prefetches the next output row's rows (area, cubic); 2: x [2, 4, 33,
                     64] (rows of whole 16-float vectors) at {2, 2}: the linear scales
                     gradient's rows read from aligned positions (AVX-512) */
} spec;

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 1099511628211ull;
    }
    return h;
}

static unsigned lcg(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

static void *fill(drs_dtype dt, int64_t n, unsigned seed, double lo, double hi)
{
    const size_t es = drs_dtype_size(dt);
    unsigned char *b = malloc((size_t)(n > 0 ? n : 1) * es);
    for (int64_t i = 0; i < n; i++) {
        const unsigned r = lcg(&seed);
        const double u = lo + (hi - lo) * (double)(r % 1000003) / 1000002.0;
        switch (dt) {
        case DRS_F32: ((float *)b)[i] = (float)u; break;
        case DRS_F64: ((double *)b)[i] = u; break;
        case DRS_U8: b[i] = (unsigned char)r; break;
        case DRS_I8: ((int8_t *)b)[i] = (int8_t)(r & 0xff); break;
        case DRS_I32: ((int32_t *)b)[i] = (int32_t)(r % 200001) - 100000; break;
        default: ((int64_t *)b)[i] = (int64_t)(r % 2000001) - 1000000; break;
        }
    }
    return b;
}

static int64_t numel(const drs_tensor *t)
{
    int64_t n = 1;
    for (int d = 0; d < t->rank; d++)
        n *= t->shape[d];
    return n;
}

static const double scale_sets[4][2] = {{1.7, 0.55}, {2.0, 2.0}, {0.5, 0.5}, {0.25, 0.25}};

/* The resampling families: x [2, 4, 67, 91] (or its channels-last twin), or
 * the wide x [1, 8, 64, 1044]. */
static drs_status run_resample(const spec *s, uint64_t *h)
{
    const int64_t N = s->wide == 1 ? 1 : 2, C = s->wide == 1 ? 8 : 4,
                  H = s->wide == 1 ? 64 : s->wide == 2 ? 33 : 67,
                  W = s->wide == 1 ? 1044 : s->wide == 2 ? 64 : 91;
    const int64_t axes[2] = {s->nhwc ? 1 : 2, s->nhwc ? 2 : 3};
    drs_tensor x = {s->dt, 4, {N, C, H, W}, NULL};
    if (s->nhwc) {
        x.shape[1] = H;
        x.shape[2] = W;
        x.shape[3] = C;
    }
    const double *sc = scale_sets[s->sc];
    int64_t sizes[2];
    sizes[0] = (int64_t)((double)H * sc[0]);
    sizes[1] = (int64_t)((double)W * sc[1]);
    drs_resize_attrs ra = drs_resize_attrs_default(19);
    drs_resize_inputs rin = {NULL, 0, sc, 2, NULL, 0};
    drs_interpolate_attrs ia = drs_interpolate_attrs_default(s->mode == DRS_MODE_AREA ? 1 : 11);
    drs_interpolate_inputs iin = {NULL, 0, sc, 2, axes, 2};
    drs_torch_interpolate_attrs ta = drs_torch_interpolate_attrs_default();
    int r;
    int64_t os[8];
    drs_status st;
    switch (s->fam) {
    case RESIZE:
        ra.mode = (drs_interp_mode)s->mode;
        ra.antialias = s->aa;
        ra.n_axes = 2;
        ra.axes[0] = axes[0];
        ra.axes[1] = axes[1];
        st = drs_resize_infer_shape(&ra, &x, &rin, &r, os);
        break;
    case INTERP:
        ia.mode = (drs_interp_mode)s->mode;
        ia.antialias = s->aa;
        if (ia.version == 1) { /* sizes only */
            iin.sizes = sizes;
            iin.n_sizes = 2;
            iin.scales = NULL;
            iin.n_scales = 0;
        } else {
            ia.shape_calculation_mode = DRS_SHAPE_SCALES;
        }
        st = drs_interpolate_infer_shape(&ia, &x, &iin, &r, os);
        break;
    default: /* TORCH: NCHW only */
        ta.mode = (drs_torch_mode)s->mode;
        ta.antialias = s->aa;
        ta.n_scale_factor = 2;
        ta.scale_factor[0] = sc[0];
        ta.scale_factor[1] = sc[1];
        st = drs_torch_interpolate_infer_shape(&ta, &x, &r, os);
        break;
    }
    if (st)
        return st;
    drs_tensor y = {s->dt, 4, {os[0], os[1], os[2], os[3]}, NULL};
    const size_t es = drs_dtype_size(s->dt);
    x.data = fill(s->dt, numel(&x), 11, -1.0, 1.0);
    if (!s->bwd) {
        y.data = malloc((size_t)numel(&y) * es);
        st = s->fam == RESIZE   ? drs_resize_forward(&y, &x, &rin, &ra)
             : s->fam == INTERP ? drs_interpolate_forward(&y, &x, &iin, &ia)
                                : drs_torch_interpolate_forward(&y, &x, &ta);
        if (!st)
            *h = fnv(*h, y.data, (size_t)numel(&y) * es);
    } else {
        y.data = fill(s->dt, numel(&y), 23, -0.5, 0.5); /* the output gradient */
        drs_tensor dx = x;
        dx.data = malloc((size_t)numel(&x) * es);
        double sd[2] = {0.0, 0.0};
        const int want_sd = s->fam != TORCH && !(s->fam == INTERP && ia.version == 1);
        st = s->fam == RESIZE ? drs_resize_backward(&dx, sd, NULL, &y, &x, &rin, &ra,
                                                    DRS_GRAD_OVERWRITE)
             : s->fam == INTERP
                 ? drs_interpolate_backward(&dx, want_sd ? sd : NULL, &y, &x, &iin, &ia,
                                            DRS_GRAD_OVERWRITE)
                 : drs_torch_interpolate_backward(&dx, &y, &x, &ta, DRS_GRAD_OVERWRITE);
        if (!st) {
            *h = fnv(*h, dx.data, (size_t)numel(&dx) * es);
            *h = fnv(*h, sd, sizeof sd);
        }
        free(dx.data);
    }
    free(x.data);
    free(y.data);
    return st;
}

/* Every third grid value of a float grid of n values replaced by a special
 * one: the edges -1 and 1 and -7 (rounding ties of nearest without
 * align_corners on these odd lengths), 0 (a pixel center), +-0.5 and 2.5
 * (pixel centers with align_corners), values far outside, huge (past
 * float's range: +-3e38 in an f32 grid), infinite, NaN.  The vector paths
 * leave a group with such a point to the scalar ones. */
static void special_grid(drs_dtype dt, void *g, int64_t n)
{
    static const double sv[] = {-1.0, 1.0, 0.0, 1.0 / 37.0, -3.0 / 41.0, 0.5, -0.5, 2.5, -7.0,
                                1e10, -1e10, 3e38, -1e300, 1e300, NAN, INFINITY, -INFINITY};
    const int k = (int)(sizeof sv / sizeof sv[0]);
    for (int64_t i = 0; i < n; i += 3) {
        const double v = sv[(i / 3) % k];
        if (dt == DRS_F32) /* (a finite value past float's range becomes +-3e38) */
            ((float *)g)[i] =
                (float)(v > 3e38 && v < 1e308 ? 3e38 : (v < -3e38 && v > -1e308 ? -3e38 : v));
        else if (dt == DRS_F64)
            ((double *)g)[i] = v;
    }
}

/* A smooth warp of a 2-D grid [N, H, W, 2]: per output row i a rotation by
 * -30 .. +30 degrees (with the row), scale 0.95 for n = 0 (inside the data
 * but for corners) and 1.2 with a shift for n = 1 (partly outside), the way
 * affine_grid places points (align_corners=False).  Neighbouring points then
 * lie close together, in windows of 1 to 4 rows, near every edge, as the
 * vector paths for such grids expect, with a few groups that do not fit. */
static void warp_grid(drs_dtype dt, void *g, const int64_t *gs)
{
    for (int64_t n = 0; n < gs[0]; n++)
        for (int64_t i = 0; i < gs[1]; i++)
            for (int64_t j = 0; j < gs[2]; j++) {
                const double deg = -30.0 + 60.0 * (double)i / (double)(gs[1] - 1);
                const double a = deg * 3.14159265358979 / 180.0;
                const double sc = n ? 1.2 : 0.95, tx = n ? 0.1 : 0.0, ty = n ? -0.07 : 0.0;
                const double xn = (2.0 * (double)j + 1.0) / (double)gs[2] - 1.0;
                const double yn = (2.0 * (double)i + 1.0) / (double)gs[1] - 1.0;
                const double gx = sc * (cos(a) * xn - sin(a) * yn) + tx;
                const double gy = sc * (sin(a) * xn + cos(a) * yn) + ty;
                const int64_t k = ((n * gs[1] + i) * gs[2] + j) * 2;
                if (dt == DRS_F32)
                    ((float *)g)[k] = (float)gx, ((float *)g)[k + 1] = (float)gy;
                else
                    ((double *)g)[k] = gx, ((double *)g)[k + 1] = gy;
            }
}

/* GridSample: data [2, 16, 41, 37] (16 channels: the backward's scatter
 * scheme, whose channel groups depend on the thread count; 5 with special 5)
 * with a grid [2, 33, 35, 2], or (special 4) data [2, 16, 272, 272] with a
 * grid [2, 40, 40, 2], or data
 * [2, 4, 9, 11, 13] with a grid [2, 7, 9, 10, 3]; coordinates in
 * [-1.2, 1.2] (some outside). */
static drs_status run_grid(const spec *s, uint64_t *h)
{
    drs_grid_sample_attrs ga =
        drs_grid_sample_attrs_default(s->special == 1 ? 9 : s->rank5 ? 20 : 16);
    ga.mode = (drs_grid_mode)s->mode;
    ga.padding_mode = (drs_grid_padding)s->pad;
    ga.align_corners = s->align;
    drs_tensor x = {s->dt, 4, {2, s->special == 5 ? 5 : 16, 41, 37}, NULL};
    drs_tensor g = {s->dt, 4, {2, 33, 35, 2}, NULL};
    if (s->special == 4) { /* planes of 73,984 pixels: the vector scatter's large planes
                              (image tasks at 2 threads, one team of 16 threads at 16, a
                              team capped at 28 threads at 64) */
        const drs_tensor xl = {s->dt, 4, {2, 16, 272, 272}, NULL};
        const drs_tensor gl = {s->dt, 4, {2, 40, 40, 2}, NULL};
        x = xl;
        g = gl;
    }
    if (s->rank5) {
        const drs_tensor x5 = {s->dt, 5, {2, 4, 9, 11, 13}, NULL};
        const drs_tensor g5 = {s->dt, 5, {2, 7, 9, 10, 3}, NULL};
        x = x5;
        g = g5;
    }
    int r;
    int64_t os[8];
    drs_status st = drs_grid_sample_infer_shape(&ga, &x, &g, &r, os);
    if (st)
        return st;
    drs_tensor y = {s->dt, r, {0}, NULL};
    for (int d = 0; d < r; d++)
        y.shape[d] = os[d];
    const size_t es = drs_dtype_size(s->dt);
    x.data = fill(s->dt, numel(&x), 5, -1.0, 1.0);
    for (int64_t i = 0; i < numel(&x); i += 13) /* negative zeros: outputs 0.0 + -0.0 */
        if (s->dt == DRS_F32)
            ((float *)x.data)[i] = -0.0f;
        else if (s->dt == DRS_F64)
            ((double *)x.data)[i] = -0.0;
    g.data = fill(s->dt, numel(&g), 7, -1.2, 1.2);
    if (s->special == 3 || s->special == 5)
        warp_grid(s->dt, g.data, g.shape);
    else if (s->special == 1 || s->special == 2)
        special_grid(s->dt, g.data, numel(&g));
    if (!s->bwd) {
        y.data = malloc((size_t)numel(&y) * es);
        st = drs_grid_sample_forward(&y, &x, &g, &ga);
        if (!st)
            *h = fnv(*h, y.data, (size_t)numel(&y) * es);
    } else {
        y.data = fill(s->dt, numel(&y), 9, -0.5, 0.5);
        drs_tensor dx = x, dg = g;
        dx.data = malloc((size_t)numel(&x) * es);
        dg.data = malloc((size_t)numel(&g) * es);
        st = drs_grid_sample_backward(&dx, &dg, &y, &x, &g, &ga, DRS_GRAD_OVERWRITE);
        if (!st) {
            *h = fnv(*h, dx.data, (size_t)numel(&dx) * es);
            *h = fnv(*h, dg.data, (size_t)numel(&dg) * es);
        }
        free(dx.data);
        free(dg.data);
    }
    free(x.data);
    free(g.data);
    free(y.data);
    return st;
}

#define MAX_CASES 1024
static spec g_spec[MAX_CASES];
static char g_name[MAX_CASES][96];
static int g_n = 0;

static void add(spec s)
{
    static const char *fam[4] = {"Resize-19", "Interpolate", "TorchInterpolate", "GridSample"};
    if (g_n == MAX_CASES)
        return;
    g_spec[g_n] = s;
    if (s.fam == GRID)
        snprintf(g_name[g_n], sizeof g_name[g_n], "%s-%s/%s/%s/align=%d/%s/%s", fam[s.fam],
                 s.special == 1   ? "9-4d-special"
                 : s.special == 2 ? "16-4d-special"
                 : s.special == 3 ? "16-4d-warp"
                 : s.special == 4 ? "16-4d-large-plane"
                 : s.special == 5 ? "16-4d-warp-5-channels"
                 : s.rank5        ? "5d"
                                  : "4d",
                 drs_grid_mode_str((drs_grid_mode)s.mode, 20),
                 drs_grid_padding_str((drs_grid_padding)s.pad), s.align, drs_dtype_name(s.dt),
                 s.bwd ? "backward" : "forward");
    else
        snprintf(g_name[g_n], sizeof g_name[g_n], "%s/mode=%d/aa=%d/%s/scales=%d/%s/%s%s",
                 fam[s.fam], s.mode, s.aa, s.nhwc ? "nhwc" : "nchw", s.sc, drs_dtype_name(s.dt),
                 s.bwd ? "backward" : "forward",
                 s.wide == 1 ? "/wide" : s.wide == 2 ? "/w64" : "");
    g_n++;
}

static void build_cases(void)
{
    const drs_dtype all[6] = {DRS_F32, DRS_F64, DRS_U8, DRS_I8, DRS_I32, DRS_I64};
    const int rmodes[3] = {DRS_MODE_NEAREST, DRS_MODE_LINEAR, DRS_MODE_CUBIC};
    const int imodes[7] = {DRS_MODE_NEAREST,         DRS_MODE_LINEAR,         DRS_MODE_LINEAR_ONNX,
                           DRS_MODE_CUBIC,           DRS_MODE_BILINEAR_PILLOW, DRS_MODE_BICUBIC_PILLOW,
                           DRS_MODE_AREA};
    const int tmodes[4] = {DRS_TORCH_NEAREST, DRS_TORCH_BILINEAR, DRS_TORCH_BICUBIC, DRS_TORCH_AREA};
    for (int m = 0; m < 3; m++)
        for (int aa = 0; aa < 2; aa++)
            for (int nhwc = 0; nhwc < 2; nhwc++)
                for (int sc = 0; sc < 3; sc++) {
                    if (aa && rmodes[m] == DRS_MODE_NEAREST)
                        continue;
                    for (int t = 0; t < 6; t++) /* forward: every dtype on the odd scales */
                        if (t < 2 || sc == 0)
                            add((spec){RESIZE, all[t], rmodes[m], aa, nhwc, 0, sc, 0, 0, 0, 0, 0});
                    for (int t = 0; t < 2; t++)
                        add((spec){RESIZE, all[t], rmodes[m], aa, nhwc, 1, sc, 0, 0, 0, 0, 0});
                }
    for (int m = 0; m < 7; m++)
        for (int nhwc = 0; nhwc < 2; nhwc++)
            for (int sc = 0; sc < 3; sc += 2) {
                if (nhwc && imodes[m] == DRS_MODE_LINEAR_ONNX)
                    continue; /* linear_onnx: the spatial axes 2.. only */
                const int aa = imodes[m] == DRS_MODE_LINEAR || imodes[m] == DRS_MODE_CUBIC;
                for (int t = 0; t < 6; t++)
                    if (t < 2 || sc == 0)
                        add((spec){INTERP, all[t], imodes[m], aa, nhwc, 0, sc, 0, 0, 0, 0, 0});
                for (int t = 0; t < 2; t++)
                    add((spec){INTERP, all[t], imodes[m], aa, nhwc, 1, sc, 0, 0, 0, 0, 0});
            }
    for (int m = 0; m < 4; m++)
        for (int aa = 0; aa < 2; aa++)
            for (int sc = 0; sc < 3; sc++) {
                if (aa && !(tmodes[m] == DRS_TORCH_BILINEAR || tmodes[m] == DRS_TORCH_BICUBIC))
                    continue;
                for (int bwd = 0; bwd < 2; bwd++)
                    add((spec){TORCH, DRS_F32, tmodes[m], aa, 0, bwd, sc, 0, 0, 0, 0, 0});
            }
    /* the wide rows at 1/4: area and cubic (four taps a row, four rows apart) and
     * antialiased linear (more taps) */
    for (int t = 0; t < 2; t++) {
        add((spec){INTERP, all[t], DRS_MODE_AREA, 0, 0, 0, 3, 0, 0, 0, 0, 1});
        add((spec){RESIZE, all[t], DRS_MODE_CUBIC, 0, 0, 0, 3, 0, 0, 0, 0, 1});
        add((spec){RESIZE, all[t], DRS_MODE_LINEAR, 1, 0, 0, 3, 0, 0, 0, 0, 1});
    }
    /* the linear scales gradient on rows of whole vectors, 2x, half_pixel: Resize-19
     * linear and Interpolate-11 linear_onnx */
    add((spec){RESIZE, DRS_F32, DRS_MODE_LINEAR, 0, 0, 1, 1, 0, 0, 0, 0, 2});
    add((spec){INTERP, DRS_F32, DRS_MODE_LINEAR_ONNX, 0, 0, 1, 1, 0, 0, 0, 0, 2});
    /* and the cubic one (T and V in one sweep, the AVX-512 variant's vector form) */
    add((spec){RESIZE, DRS_F32, DRS_MODE_CUBIC, 0, 0, 1, 1, 0, 0, 0, 0, 2});
    add((spec){INTERP, DRS_F32, DRS_MODE_CUBIC, 0, 0, 1, 1, 0, 0, 0, 0, 2});
    for (int bwd = 0; bwd < 2; bwd++) {
        add((spec){TORCH, DRS_F32, DRS_TORCH_AREA, 0, 0, bwd, 3, 0, 0, 0, 0, 1});
        add((spec){TORCH, DRS_F32, DRS_TORCH_BICUBIC, 0, 0, bwd, 3, 0, 0, 0, 0, 1});
    }
    for (int r5 = 0; r5 < 2; r5++)
        for (int m = 0; m < 3; m++)
            for (int pad = 0; pad < 3; pad++)
                for (int al = 0; al < 2; al++)
                    for (int t = 0; t < 2; t++)
                        for (int bwd = 0; bwd < 2; bwd++) {
                            if (r5 && m == DRS_GRID_BICUBIC && (al || t))
                                continue; /* 5-D tricubic: a few, it is the slowest */
                            add((spec){GRID, all[t], m, 0, 0, bwd, 0, pad, al, r5, 0, 0});
                            for (int sp = 1; sp <= 2 && !r5 && m != DRS_GRID_BICUBIC; sp++)
                                add((spec){GRID, all[t], m, 0, 0, bwd, 0, pad, al, 0, sp, 0});
                            if (!r5)
                                add((spec){GRID, all[t], m, 0, 0, bwd, 0, pad, al, 0, 3, 0});
                            if (!r5 && !bwd)
                                add((spec){GRID, all[t], m, 0, 0, bwd, 0, pad, al, 0, 5, 0});
                            if (!r5 && bwd && !al && m != DRS_GRID_NEAREST)
                                add((spec){GRID, all[t], m, 0, 0, bwd, 0, pad, al, 0, 4, 0});
                        }
}

static drs_status run(int i, uint64_t *h)
{
    *h = 14695981039346656037ull;
    return g_spec[i].fam == GRID ? run_grid(&g_spec[i], h) : run_resample(&g_spec[i], h);
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--variant")) {
        printf("variant %s\n", drs_simd_variant());
        return 0;
    }
    build_cases();
    int fail = 0;
    if (argc == 3 && !strcmp(argv[1], "--threads")) {
        int counts[8], nc = 0;
        for (char *p = argv[2]; *p && nc < 8;) {
            counts[nc++] = (int)strtol(p, &p, 10);
            if (*p == ',')
                p++;
        }
        for (int i = 0; i < g_n; i++) {
            uint64_t h1, hn;
            drs_set_num_threads(1);
            if (run(i, &h1)) {
                printf("FAIL %s: %s\n", g_name[i], drs_last_error());
                fail++;
                continue;
            }
            for (int c = 0; c < nc; c++) {
                if (drs_set_num_threads(counts[c]) || run(i, &hn)) {
                    printf("FAIL %s at %d threads: %s\n", g_name[i], counts[c], drs_last_error());
                    fail++;
                } else if (hn != h1) {
                    printf("FAIL %s: %d threads differ from 1 thread\n", g_name[i], counts[c]);
                    fail++;
                }
            }
        }
        drs_set_num_threads(0);
        printf("test_bitwise --threads %s: %d cases, %d failed\n", argv[2], g_n, fail);
        return fail ? 1 : 0;
    }
    if (argc != 1) {
        fprintf(stderr, "usage: %s [--threads N,N,...| --variant]\n", argv[0]);
        return 2;
    }
    printf("variant %s\n", drs_simd_variant());
    for (int i = 0; i < g_n; i++) {
        uint64_t h;
        if (run(i, &h)) {
            printf("%s FAIL %s\n", g_name[i], drs_last_error());
            fail++;
        } else {
            printf("%s %016llx\n", g_name[i], (unsigned long long)h);
        }
    }
    fprintf(stderr, "test_bitwise: %d cases, %d failed\n", g_n, fail);
    return fail ? 1 : 0;
}
