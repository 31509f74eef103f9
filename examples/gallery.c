/* SPDX-License-Identifier: MIT */
/* gallery.c — resamples a synthetic 64x64 test image (a zone plate, whose
 * local frequency rises to Nyquist at the border, with an "F" glyph for
 * orientation and a checkerboard strip) through every mode of the library
 * and writes PNG images with libpng (the gallery of
 * docs/differentiable-resampling.md), plus six gradient heat-maps (grad_*.png).
 *
 * Build (needs libpng): cmake --build build --target drs_gallery
 *   build/examples/drs_gallery [OUTDIR]        (default: the current directory)
 *
 * OUTDIR is created when missing (one level).  Every image is pixel-replicated to about 256 px so single pixels stay
 * visible.  Float64 throughout; the library's own thread count.  Exit 0 when
 * every file was written, 1 on any error (the library's message on stderr). */
#define _POSIX_C_SOURCE 200809L /* mkdir */
#include <dresample.h>

#include <errno.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define S 64      /* input size */
#define D 20      /* downsampled size (scale 0.3125) */
#define CROP 16   /* crop around the glyph, upsampled x8 */
#define UP 128

static const double PI = 3.14159265358979323846;

static const char *g_dir = ".";
static int g_written = 0;

/* ------------------------------------------------------------ helpers */
static void die(const char *what)
{
    fprintf(stderr, "gallery: %s: %s\n", what, drs_last_error());
    exit(1);
}

#define TRY(call)                                                                                  \
    do {                                                                                           \
        if ((call) != DRS_OK)                                                                      \
            die(#call);                                                                            \
    } while (0)

static double clamp01(double v)
{
    return v < 0.0 ? 0.0 : v > 1.0 ? 1.0 : v;
}

/* Writes an h x w RGB image (values in [0,1]) replicated zoom x zoom. */
static void write_rgb(const char *name, const double *rgb, int h, int w, int zoom)
{
    const int H = h * zoom, W = w * zoom;
    unsigned char *buf = malloc((size_t)H * (size_t)W * 3);
    if (!buf) {
        fprintf(stderr, "gallery: out of memory\n");
        exit(1);
    }
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int c = 0; c < 3; c++)
                buf[((size_t)y * W + x) * 3 + c] =
                    (unsigned char)lround(255.0 * clamp01(rgb[((size_t)(y / zoom) * w + x / zoom) * 3 + c]));
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    png_image im;
    memset(&im, 0, sizeof im);
    im.version = PNG_IMAGE_VERSION;
    im.width = (png_uint_32)W;
    im.height = (png_uint_32)H;
    im.format = PNG_FORMAT_RGB;
    if (!png_image_write_to_file(&im, path, 0, buf, 0, NULL)) {
        fprintf(stderr, "gallery: cannot write %s: %s\n", path, im.message);
        exit(1);
    }
    free(buf);
    g_written++;
}

static void write_gray(const char *name, const double *v, int h, int w, int zoom)
{
    double *rgb = malloc(sizeof(double) * (size_t)(h * w * 3));
    if (!rgb)
        exit(1);
    for (int i = 0; i < h * w; i++)
        rgb[3 * i] = rgb[3 * i + 1] = rgb[3 * i + 2] = v[i];
    write_rgb(name, rgb, h, w, zoom);
    free(rgb);
}

/* Piecewise-linear colour maps: a magma-like sequential map for magnitudes,
 * blue-white-red for signed values. */
static void cmap(const double stops[][3], int n, double t, double *out)
{
    t = clamp01(t) * (n - 1);
    int i = (int)t;
    if (i >= n - 1)
        i = n - 2;
    const double f = t - i;
    for (int c = 0; c < 3; c++)
        out[c] = stops[i][c] * (1.0 - f) + stops[i + 1][c] * f;
}

static const double MAGMA[5][3] = {{0.001, 0.000, 0.016}, {0.232, 0.059, 0.439},
                                   {0.550, 0.161, 0.506}, {0.871, 0.288, 0.409},
                                   {0.988, 0.992, 0.749}};
static const double DIVERGE[3][3] = {{0.129, 0.400, 0.675}, {0.97, 0.97, 0.97},
                                     {0.698, 0.094, 0.169}};

/* sqrt(|v| / max|v|) through MAGMA, or sign(v) sqrt(|v| / max|v|) through
 * DIVERGE (the square root lifts the small tails and negative lobes). */
static void write_heat(const char *name, const double *v, int h, int w, int zoom, int signed_map)
{
    double m = 0.0;
    for (int i = 0; i < h * w; i++)
        m = fabs(v[i]) > m ? fabs(v[i]) : m;
    double *rgb = malloc(sizeof(double) * (size_t)(h * w * 3));
    if (!rgb)
        exit(1);
    for (int i = 0; i < h * w; i++) {
        const double t = m > 0.0 ? v[i] / m : 0.0;
        if (signed_map)
            cmap(DIVERGE, 3, 0.5 + 0.5 * (t < 0.0 ? -sqrt(-t) : sqrt(t)), rgb + 3 * i);
        else
            cmap(MAGMA, 5, sqrt(fabs(t)), rgb + 3 * i);
    }
    write_rgb(name, rgb, h, w, zoom);
    free(rgb);
}

static drs_tensor t4(double *data, int64_t h, int64_t w)
{
    drs_tensor t = {DRS_F64, 4, {1, 1, h, w}, data};
    return t;
}

/* ------------------------------------------------------- the test image */
static void make_image(double *img)
{
    for (int y = 0; y < S; y++)
        for (int x = 0; x < S; x++) {
            const double dx = x + 0.5 - S / 2.0, dy = y + 0.5 - S / 2.0;
            /* phase pi r^2 / 64: local frequency r/64 cycles/px, Nyquist at r = 32 */
            double v = 0.5 + 0.5 * cos(PI * (dx * dx + dy * dy) / 64.0);
            if (y >= 4 && y < 24 && x >= 4 && x < 22) { /* the glyph on white */
                v = 1.0;
                const int bar = (x >= 7 && x < 10 && y >= 7 && y < 21) ||
                                (y >= 7 && y < 10 && x >= 7 && x < 19) ||
                                (y >= 13 && y < 16 && x >= 7 && x < 16);
                if (bar)
                    v = 0.05;
            }
            if (y >= 56) /* checkerboard strip, 3-px squares */
                v = ((x / 3 + y / 3) % 2) ? 0.9 : 0.1;
            img[y * S + x] = v;
        }
}

/* ------------------------------------------------------------ resizes */
typedef struct {
    const char *file;
    int kind; /* 0 Resize-19, 1 Interpolate-1 area, 2 Interpolate-11, 3 torch, 4 Interpolate-4 */
    drs_interp_mode mode;
    int antialias;
} method;

static void resize(const method *m, const double *x, int h, int w, double *y, int oh, int ow)
{
    drs_tensor X = t4((double *)x, h, w), Y = t4(y, oh, ow);
    const int64_t sizes[2] = {oh, ow}, axes[2] = {2, 3};
    if (m->kind == 0) {
        drs_resize_attrs a = drs_resize_attrs_default(19);
        a.mode = m->mode;
        a.antialias = m->antialias;
        if (m->antialias && m->mode == DRS_MODE_CUBIC) { /* PyTorch/Pillow-style AA cubic */
            a.cubic_coeff_a = -0.5;
            a.exclude_outside = 1;
        }
        a.n_axes = 2;
        a.axes[0] = 2;
        a.axes[1] = 3;
        drs_resize_inputs in = {NULL, 0, NULL, 0, sizes, 2};
        TRY(drs_resize_forward(&Y, &X, &in, &a));
    } else if (m->kind == 1 || m->kind == 2 || m->kind == 4) {
        drs_interpolate_attrs a = drs_interpolate_attrs_default(m->kind == 1 ? 1 : m->kind == 2 ? 11 : 4);
        a.mode = m->mode;
        a.antialias = m->antialias;
        if (m->mode == DRS_MODE_BICUBIC_PILLOW)
            a.cube_coeff = -0.5; /* Pillow's a */
        drs_interpolate_inputs in = {sizes, 2, NULL, 0, axes, 2};
        TRY(drs_interpolate_forward(&Y, &X, &in, &a));
    } else {
        drs_torch_interpolate_attrs a = drs_torch_interpolate_attrs_default();
        a.mode = DRS_TORCH_BILINEAR;
        a.antialias = m->antialias;
        a.n_size = 2;
        a.size[0] = oh;
        a.size[1] = ow;
        TRY(drs_torch_interpolate_forward(&Y, &X, &a));
    }
}

/* ------------------------------------------------------- grid sampling */
/* A rotation by `deg` with zoom-out `z` about the centre, as a GridSample
 * grid [1, S, S, 2] (x then y, align_corners = 0). */
static void rotation_grid(double *grid, double deg, double z)
{
    const double c = cos(deg * PI / 180.0), s = sin(deg * PI / 180.0);
    for (int i = 0; i < S; i++)
        for (int j = 0; j < S; j++) {
            const double xt = (2.0 * j + 1.0) / S - 1.0, yt = (2.0 * i + 1.0) / S - 1.0;
            grid[(i * S + j) * 2 + 0] = z * (c * xt - s * yt);
            grid[(i * S + j) * 2 + 1] = z * (s * xt + c * yt);
        }
}

static void grid_sample(const double *x, const double *grid, double *y, drs_grid_mode mode,
                        drs_grid_padding pad)
{
    drs_grid_sample_attrs a = drs_grid_sample_attrs_default(20);
    a.mode = mode;
    a.padding_mode = pad;
    drs_tensor X = t4((double *)x, S, S), Y = t4(y, S, S);
    drs_tensor G = {DRS_F64, 4, {1, S, S, 2}, (void *)grid};
    TRY(drs_grid_sample_forward(&Y, &X, &G, &a));
}

/* ------------------------------------------------------------- a plot */
#define PW 480
#define PH 240

static void plot_dot(double *rgb, double x, double y, const double col[3], int r)
{
    for (int dy = -r; dy <= r; dy++)
        for (int dx = -r; dx <= r; dx++) {
            const int px = (int)lround(x) + dx, py = (int)lround(y) + dy;
            if (px >= 0 && px < PW && py >= 0 && py < PH)
                memcpy(rgb + 3 * (py * PW + px), col, sizeof(double) * 3);
        }
}

static void plot_line(double *rgb, double x0, double y0, double x1, double y1, const double col[3],
                      int r)
{
    const double n = ceil(fmax(fabs(x1 - x0), fabs(y1 - y0))) + 1.0;
    for (double k = 0; k <= n; k++)
        plot_dot(rgb, x0 + (x1 - x0) * k / n, y0 + (y1 - y0) * k / n, col, r);
}

/* 1-D: loss(s) = 1/2 |Resize-19(x; s) - t|^2 for s over one size step (O is
 * the same for every s plotted), t = Resize-19(x; s*), for linear and cubic;
 * short black segments are the tangents whose slope is the library's
 * scales_delta at a few points.  Linear has kinks where a sample coordinate
 * crosses an integer; cubic is smooth. */
static void scales_plot(void)
{
    enum { L = 40, NS = 400, NT = 6 };
    const double s0 = 0.5005, s1 = 0.5245, sstar = 0.5125; /* floor(40 s) = 20 throughout */
    double x[L], t[20], y[20], r[20];
    for (int i = 0; i < L; i++)
        x[i] = sin(0.9 * i) + 0.5 * sin(2.3 * i + 1.0) + 0.3 * cos(0.37 * i * i);
    static double loss[2][NS];
    static double rgb[PW * PH * 3];
    for (int i = 0; i < PW * PH * 3; i++)
        rgb[i] = 1.0;
    const double colour[2][3] = {{0.85, 0.33, 0.10}, {0.00, 0.45, 0.74}}, black[3] = {0, 0, 0},
                 grey[3] = {0.75, 0.75, 0.75};
    double tan_s[2][NT], tan_l[2][NT], tan_g[2][NT], lmax = 0.0;
    for (int m = 0; m < 2; m++) {
        drs_resize_attrs a = drs_resize_attrs_default(19);
        a.mode = m ? DRS_MODE_CUBIC : DRS_MODE_LINEAR;
        drs_tensor X = {DRS_F64, 1, {L}, x}, Y = {DRS_F64, 1, {20}, y}, T = {DRS_F64, 1, {20}, t};
        drs_resize_inputs in = {NULL, 0, &sstar, 1, NULL, 0};
        TRY(drs_resize_forward(&T, &X, &in, &a));
        for (int k = 0; k < NS + NT; k++) {
            const int tangent = k >= NS;
            double s = tangent ? s0 + (s1 - s0) * (k - NS + 0.5) / NT : s0 + (s1 - s0) * k / (NS - 1);
            in.scales = &s;
            TRY(drs_resize_forward(&Y, &X, &in, &a)); /* rejects any other output size */
            double l = 0.0;
            for (int o = 0; o < 20; o++) {
                r[o] = y[o] - t[o];
                l += 0.5 * r[o] * r[o];
            }
            if (!tangent) {
                loss[m][k] = l;
                lmax = l > lmax ? l : lmax;
                continue;
            }
            double g;
            drs_tensor R = {DRS_F64, 1, {20}, r};
            TRY(drs_resize_backward(NULL, &g, NULL, &R, &X, &in, &a, DRS_GRAD_OVERWRITE));
            tan_s[m][k - NS] = s;
            tan_l[m][k - NS] = l;
            tan_g[m][k - NS] = g;
        }
    }
#define PX(s) (20.0 + ((s) - s0) / (s1 - s0) * (PW - 40))
#define PY(l) (PH - 20.0 - (l) / (1.1 * lmax) * (PH - 40))
    plot_line(rgb, 20, PH - 20, PW - 20, PH - 20, grey, 0);
    plot_line(rgb, 20, 20, 20, PH - 20, grey, 0);
    plot_line(rgb, PX(sstar), 20, PX(sstar), PH - 20, grey, 0);
    for (int m = 0; m < 2; m++) {
        for (int k = 1; k < NS; k++) {
            const double sa = s0 + (s1 - s0) * (k - 1) / (NS - 1), sb = s0 + (s1 - s0) * k / (NS - 1);
            plot_line(rgb, PX(sa), PY(loss[m][k - 1]), PX(sb), PY(loss[m][k]), colour[m], 1);
        }
        for (int k = 0; k < NT; k++) {
            const double h = 0.0016;
            plot_line(rgb, PX(tan_s[m][k] - h), PY(tan_l[m][k] - h * tan_g[m][k]),
                      PX(tan_s[m][k] + h), PY(tan_l[m][k] + h * tan_g[m][k]), black, 0);
            plot_dot(rgb, PX(tan_s[m][k]), PY(tan_l[m][k]), black, 2);
        }
    }
#undef PX
#undef PY
    write_rgb("grad_scales_curve.png", rgb, PH, PW, 1);
}

int main(int argc, char **argv)
{
    if (argc > 2) {
        fprintf(stderr, "usage: gallery [OUTDIR]\n");
        return 2;
    }
    if (argc == 2)
        g_dir = argv[1];
    if (mkdir(g_dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "gallery: cannot create %s\n", g_dir);
        return 1;
    }
    static double img[S * S], small[D * D], crop[CROP * CROP], up[UP * UP], out[S * S];
    static double grid[S * S * 2], dgrid[S * S * 2], dx[S * S], dy[S * S], mag[S * S];
    make_image(img);
    write_gray("input.png", img, S, S, 4);
    for (int y = 0; y < CROP; y++)
        for (int x = 0; x < CROP; x++)
            crop[y * CROP + x] = img[(y + 10) * S + x + 10]; /* glyph corner + rings */
    write_gray("input_crop.png", crop, CROP, CROP, 16);

    /* 1. downsampling 64 -> 20: aliasing (moire in the zone plate) vs antialias */
    static const method down[] = {
        {"down_nearest.png", 0, DRS_MODE_NEAREST, 0},
        {"down_linear.png", 0, DRS_MODE_LINEAR, 0},
        {"down_linear_aa.png", 0, DRS_MODE_LINEAR, 1},
        {"down_cubic.png", 0, DRS_MODE_CUBIC, 0},
        {"down_cubic_aa.png", 0, DRS_MODE_CUBIC, 1},
        {"down_area.png", 1, DRS_MODE_AREA, 0},
        {"down_linear_onnx.png", 4, DRS_MODE_LINEAR_ONNX, 0},
        {"down_bilinear_pillow.png", 2, DRS_MODE_BILINEAR_PILLOW, 0},
        {"down_bicubic_pillow.png", 2, DRS_MODE_BICUBIC_PILLOW, 0},
        {"down_torch_bilinear_aa.png", 3, DRS_MODE_LINEAR, 1},
    };
    for (size_t k = 0; k < sizeof down / sizeof down[0]; k++) {
        resize(&down[k], img, S, S, small, D, D);
        write_gray(down[k].file, small, D, D, 13);
    }

    /* 2. upsampling a 16x16 crop (the glyph's corner and the first rings) to
     * 128 (x8): blocks, tents, cubic sharpness and overshoot */
    static const method upm[] = {
        {"up_nearest.png", 0, DRS_MODE_NEAREST, 0},
        {"up_linear.png", 0, DRS_MODE_LINEAR, 0},
        {"up_cubic.png", 0, DRS_MODE_CUBIC, 0},
        {"up_bicubic_pillow.png", 2, DRS_MODE_BICUBIC_PILLOW, 0},
    };
    for (size_t k = 0; k < sizeof upm / sizeof upm[0]; k++) {
        resize(&upm[k], crop, CROP, CROP, up, UP, UP);
        write_gray(upm[k].file, up, UP, UP, 2);
    }

    /* 3. GridSample through a rotation grid (25 degrees, zoomed out 1.3x so
     * the padding shows) */
    rotation_grid(grid, 25.0, 1.3);
    static const struct {
        const char *file;
        drs_grid_mode mode;
        drs_grid_padding pad;
    } gs[] = {
        {"grid_bilinear_zeros.png", DRS_GRID_BILINEAR, DRS_GRID_PAD_ZEROS},
        {"grid_nearest_zeros.png", DRS_GRID_NEAREST, DRS_GRID_PAD_ZEROS},
        {"grid_bicubic_zeros.png", DRS_GRID_BICUBIC, DRS_GRID_PAD_ZEROS},
        {"grid_bilinear_border.png", DRS_GRID_BILINEAR, DRS_GRID_PAD_BORDER},
        {"grid_bilinear_reflection.png", DRS_GRID_BILINEAR, DRS_GRID_PAD_REFLECTION},
    };
    for (size_t k = 0; k < sizeof gs / sizeof gs[0]; k++) {
        grid_sample(img, grid, out, gs[k].mode, gs[k].pad);
        write_gray(gs[k].file, out, S, S, 4);
    }

    /* 4a. Footprints: the data gradient of four single output pixels of the
     * 64 -> 20 downsampling, i.e. rows of the resampling matrix drawn as
     * images (F^T e_o).  Without antialias each output reads 2x2 (linear)
     * input pixels and ignores the rest (aliasing); with antialias the tent
     * is stretched to the output spacing; cubic has negative lobes. */
    static const method fp[] = {
        {"grad_footprint_linear.png", 0, DRS_MODE_LINEAR, 0},
        {"grad_footprint_linear_aa.png", 0, DRS_MODE_LINEAR, 1},
        {"grad_footprint_cubic_aa.png", 0, DRS_MODE_CUBIC, 1},
    };
    for (size_t k = 0; k < sizeof fp / sizeof fp[0]; k++) {
        memset(dy, 0, sizeof dy);
        dy[4 * D + 4] = dy[5 * D + 14] = dy[14 * D + 6] = dy[15 * D + 15] = 1.0;
        drs_resize_attrs a = drs_resize_attrs_default(19);
        a.mode = fp[k].mode;
        a.antialias = fp[k].antialias;
        if (fp[k].antialias && fp[k].mode == DRS_MODE_CUBIC) {
            a.cubic_coeff_a = -0.5;
            a.exclude_outside = 1;
        }
        a.n_axes = 2;
        a.axes[0] = 2;
        a.axes[1] = 3;
        const int64_t sizes[2] = {D, D};
        drs_resize_inputs in = {NULL, 0, NULL, 0, sizes, 2};
        drs_tensor X = t4(img, S, S), DX = t4(dx, S, S), DY = t4(dy, D, D);
        TRY(drs_resize_backward(&DX, NULL, NULL, &DY, &X, &in, &a, DRS_GRAD_OVERWRITE));
        write_heat(fp[k].file, dx, S, S, 4, 1);
    }

    /* 4b. |dL/dx| for L = 1/2 |cubic(x) - area(x)|^2 (both 64 -> 20): where
     * the cubic downsampling disagrees with the box average, traced back to
     * the input pixels responsible (the aliased rings of the zone plate). */
    {
        static double target[D * D], r[D * D];
        const method area = {"", 1, DRS_MODE_AREA, 0}, cub = {"", 0, DRS_MODE_CUBIC, 0};
        resize(&area, img, S, S, target, D, D);
        resize(&cub, img, S, S, small, D, D);
        double loss = 0.0;
        for (int i = 0; i < D * D; i++) {
            r[i] = small[i] - target[i];
            loss += 0.5 * r[i] * r[i];
        }
        drs_resize_attrs a = drs_resize_attrs_default(19);
        a.mode = DRS_MODE_CUBIC;
        a.n_axes = 2;
        a.axes[0] = 2;
        a.axes[1] = 3;
        const int64_t sizes[2] = {D, D};
        drs_resize_inputs in = {NULL, 0, NULL, 0, sizes, 2};
        drs_tensor X = t4(img, S, S), DX = t4(dx, S, S), DY = t4(r, D, D);
        TRY(drs_resize_backward(&DX, NULL, NULL, &DY, &X, &in, &a, DRS_GRAD_OVERWRITE));
        write_heat("grad_loss_cubic.png", dx, S, S, 4, 0);
        printf("cubic vs area loss %.4f\n", loss);
    }

    /* 4c. Grid gradient magnitude |dL/dgrid| for L = 1/2 |GridSample(x, g) - x|^2
     * with the rotation grid: where moving a sample point changes the loss
     * (edges of the glyph, the zone plate's rings; zero in the flat padding). */
    {
        grid_sample(img, grid, out, DRS_GRID_BILINEAR, DRS_GRID_PAD_ZEROS);
        for (int i = 0; i < S * S; i++)
            dy[i] = out[i] - img[i];
        drs_grid_sample_attrs a = drs_grid_sample_attrs_default(20);
        drs_tensor X = t4(img, S, S), DY = t4(dy, S, S);
        drs_tensor G = {DRS_F64, 4, {1, S, S, 2}, grid}, DG = {DRS_F64, 4, {1, S, S, 2}, dgrid};
        TRY(drs_grid_sample_backward(NULL, &DG, &DY, &X, &G, &a, DRS_GRAD_OVERWRITE));
        for (int i = 0; i < S * S; i++)
            mag[i] = hypot(dgrid[2 * i], dgrid[2 * i + 1]);
        write_heat("grad_grid_magnitude.png", mag, S, S, 4, 0);
    }
    scales_plot();
    printf("gallery: wrote %d PNG files to %s\n", g_written, g_dir);
    return 0;
}
