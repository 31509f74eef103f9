/* SPDX-License-Identifier: MIT */
/* bench.c — the benchmark against PyTorch, over the public API only.
 *
 * Times the forward and the backward (every gradient PyTorch computes for the
 * same call: the input gradient; for grid sample the input and grid gradients)
 * of workloads W1..W12 in f32, plus a copy-bandwidth probe (a parallel memcpy
 * of a buffer the size of W1's output) and, with --workload arith, a probe of
 * the core's peak rates of 512-bit float operations.  Outputs and gradients are allocated
 * and touched once before timing; each measurement is the median of --runs
 * timed calls after --warmup untimed ones.
 *
 * Inputs are filled with a formula that numpy reproduces bit for bit (see
 * fill() and bench/compare_torch.py), and after the timed runs each result's
 * sum, sum of |.| and a 64-bit hash are printed, so compare_torch.py can check
 * that PyTorch computed the same thing and that the bits do not depend on the
 * thread count.
 *
 * Output: a table, or with --json one JSON object per line:
 *   {"probe":"copy", "bytes":B, "threads":T, "ms":M, "gbs":G}    (G counts read + write)
 *   {"probe":"arith", "unit":U, "mul":R, "add":R, "mul_add_mix":R, "fma":R,
 *    "permutex2var":R}                   (512-bit operations per ns on 1 thread), or
 *   {"probe":"arith", "skipped":WHY}     (not x86-64 with AVX-512)
 *   {"workload":"W1", ..., "fwd_ms":M, "bwd_ms":M, "bytes_fwd":B, ...}
 * Threads: drs_set_num_threads(T) for each count of --threads (e.g. 1,2):
 * the timed calls of the counts are interleaved (T1, T2, T1, T2, ...) so that
 * a change in the machine's load hits every count alike; one record per count.
 * The copy probe uses as many threads.
 *
 * --bound adds, per workload, phase and thread count, the traffic bound: the
 * time of a loop that moves exactly the phase's bytes and nothing else (reads
 * its R bytes sequentially, writes its W bytes sequentially, R and W
 * interleaved in proportion; the writes once with non-temporal stores and
 * once with ordinary ones, the faster counts), with as many threads.  An
 * implementation that reads its inputs and writes its outputs once should
 * not be faster on this machine (it is a measured loop, not a proof);
 * "%bnd" = bound / time.  The copy probe (memcpy,
 * R = W) is the same bound for rows whose reads equal their writes only. */
#define _DEFAULT_SOURCE /* madvise()'s MADV_HUGEPAGE, with POSIX 2008 */
#define _POSIX_C_SOURCE 200809L
#include <dresample.h>

#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define DRS_BENCH_ARITH 1
#endif
#include <unistd.h>

#ifndef DRS_BENCH_BUILD /* the library's CMAKE_BUILD_TYPE, set by bench/CMakeLists.txt */
#define DRS_BENCH_BUILD "unknown"
#endif

/* ------------------------------------------------------------ workloads */
typedef enum { K_TORCH, K_RESIZE_NHWC, K_GRID, K_BACKPROP } wl_kind;

typedef struct {
    const char *name;
    const char *what;
    wl_kind kind;
    int rank;
    int64_t shape[5];     /* input shape */
    int64_t smoke[5];     /* input shape under --smoke */
    int64_t osz[3];       /* K_TORCH: output spatial size; K_GRID: output H, W */
    int64_t osz_smoke[3];
    drs_torch_mode tmode; /* K_TORCH */
    int antialias;        /* K_TORCH */
    drs_grid_mode gmode;  /* K_GRID */
    drs_grid_padding gpad;
} wl_def;

#define S4(a, b, c, d) {a, b, c, d, 0}
static const wl_def WL[] = {
    {"W1", "bilinear 2x up 8x64x128^2 (TorchInterpolate, align_corners=False)", K_TORCH, 4,
     S4(8, 64, 128, 128), S4(1, 2, 8, 8), {256, 256}, {16, 16}, DRS_TORCH_BILINEAR, 0, 0, 0},
    {"W2", "nearest 2x up 8x64x128^2", K_TORCH, 4, S4(8, 64, 128, 128), S4(1, 2, 8, 8),
     {256, 256}, {16, 16}, DRS_TORCH_NEAREST, 0, 0, 0},
    {"W3", "bicubic 2x up 8x64x128^2", K_TORCH, 4, S4(8, 64, 128, 128), S4(1, 2, 8, 8),
     {256, 256}, {16, 16}, DRS_TORCH_BICUBIC, 0, 0, 0},
    {"W4", "bilinear antialias 4x3x1024^2 -> 224^2", K_TORCH, 4, S4(4, 3, 1024, 1024),
     S4(1, 2, 32, 32), {224, 224}, {7, 7}, DRS_TORCH_BILINEAR, 1, 0, 0},
    {"W5", "bicubic antialias 4x3x1024^2 -> 224^2", K_TORCH, 4, S4(4, 3, 1024, 1024),
     S4(1, 2, 32, 32), {224, 224}, {7, 7}, DRS_TORCH_BICUBIC, 1, 0, 0},
    {"W6", "area 4x3x1024^2 -> 256^2", K_TORCH, 4, S4(4, 3, 1024, 1024), S4(1, 2, 32, 32),
     {256, 256}, {8, 8}, DRS_TORCH_AREA, 0, 0, 0},
    {"W7", "trilinear 2x up 2x16x32x64^2", K_TORCH, 5, {2, 16, 32, 64, 64}, {1, 2, 4, 8, 8},
     {64, 128, 128}, {8, 16, 16}, DRS_TORCH_TRILINEAR, 0, 0, 0},
    {"W8a", "grid_sample 8x32x128^2 affine grid -> 128^2, bilinear/zeros (GridSample-9)",
     K_GRID, 4, S4(8, 32, 128, 128), S4(1, 2, 8, 8), {128, 128}, {8, 8}, 0, 0,
     DRS_GRID_BILINEAR, DRS_GRID_PAD_ZEROS},
    {"W8b", "grid_sample 8x32x128^2 affine grid -> 128^2, bilinear/reflection", K_GRID, 4,
     S4(8, 32, 128, 128), S4(1, 2, 8, 8), {128, 128}, {8, 8}, 0, 0, DRS_GRID_BILINEAR,
     DRS_GRID_PAD_REFLECTION},
    {"W8c", "grid_sample 8x32x128^2 affine grid -> 128^2, nearest/border", K_GRID, 4,
     S4(8, 32, 128, 128), S4(1, 2, 8, 8), {128, 128}, {8, 8}, 0, 0, DRS_GRID_NEAREST,
     DRS_GRID_PAD_BORDER},
    {"W8d", "grid_sample 8x32x128^2 affine grid -> 128^2, bicubic/border", K_GRID, 4,
     S4(8, 32, 128, 128), S4(1, 2, 8, 8), {128, 128}, {8, 8}, 0, 0, DRS_GRID_BICUBIC,
     DRS_GRID_PAD_BORDER},
    {"W9", "W1 in NHWC: Resize-19 linear half_pixel axes {1,2}, [8,128,128,64] -> 256^2",
     K_RESIZE_NHWC, 4, S4(8, 128, 128, 64), S4(1, 8, 8, 2), {256, 256}, {16, 16}, 0, 0, 0, 0},
    {"W10", "one image 1x3x1024^2 bilinear 2x up", K_TORCH, 4, S4(1, 3, 1024, 1024),
     S4(1, 1, 16, 16), {2048, 2048}, {32, 32}, DRS_TORCH_BILINEAR, 0, 0, 0},
    {"W11", "grid_sample bilinear/zeros N=1 C=16 512^2 affine grid -> 512^2", K_GRID, 4,
     S4(1, 16, 512, 512), S4(1, 2, 16, 16), {512, 512}, {16, 16}, 0, 0, DRS_GRID_BILINEAR,
     DRS_GRID_PAD_ZEROS},
    {"W12", "InterpolateBackprop-4 linear_onnx half_pixel scales {2,2} axes {2,3} on W1 shapes",
     K_BACKPROP, 4, S4(8, 64, 128, 128), S4(1, 2, 8, 8), {256, 256}, {16, 16}, 0, 0, 0, 0},
};
#define NWL ((int)(sizeof WL / sizeof WL[0]))

/* W12's Interpolate mode (--w12-mode): the scales gradient's cost per mode */
static drs_interp_mode g_w12_mode = DRS_MODE_LINEAR_ONNX;

static const char *const TORCH_MODE_NAME[] = {"nearest",  "nearest-exact", "linear", "bilinear",
                                              "bicubic", "trilinear",     "area"};

/* The affine grid of W8/W11: theta = [[a, b, tx], [c, d, ty]] applied to
 * affine_grid's align_corners=False base grid, x = (2j + 1)/W - 1. */
#define GRID_ANGLE 0.17453292519943295 /* 10 degrees */
#define GRID_SCALE 0.9
#define GRID_TX 0.05
#define GRID_TY (-0.03)

/* ------------------------------------------------------------ helpers */
static void die(const char *what, drs_status s)
{
    fprintf(stderr, "bench: %s failed: %s: %s\n", what, drs_status_str(s), drs_last_error());
    exit(1);
}

/* Buffers of 4 MiB or more are 2 MiB-aligned and advised as huge pages,
 * as NumPy does with its arrays (PyTorch's and the Python package's inputs
 * and outputs in compare_torch.py, compare.py and python_ratios.py), so that
 * every side of a comparison runs on the same kind of pages. */
#define HUGE_MIN ((size_t)4 << 20)
#define HUGE_PAGE ((size_t)2 << 20)
static void *xalloc(size_t n)
{
    size_t r = (n + 63) / 64 * 64;
    void *p;
    if (r >= HUGE_MIN) {
        r = (r + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
        p = aligned_alloc(HUGE_PAGE, r);
#ifdef MADV_HUGEPAGE
        /* (advice only: failure changes nothing).  The range may be heap
         * memory touched before (under compare.py's malloc settings nothing
         * goes back to the system), whose small pages would stay small:
         * MADV_DONTNEED drops them, so that the memset below faults the range
         * in afresh, as huge pages wherever the kernel has them. */
        if (p) {
            (void)madvise(p, r, MADV_DONTNEED);
            (void)madvise(p, r, MADV_HUGEPAGE);
        }
#endif
    } else {
        p = aligned_alloc(64, r ? r : 64);
    }
    if (!p) {
        fprintf(stderr, "bench: out of memory (%zu bytes)\n", n);
        exit(1);
    }
    memset(p, 0, r ? r : 64); /* touch every page before timing */
    return p;
}

/* --cpu-time: the calling thread's CPU time (with --threads 1 the calls run
 * on it alone), which a shared machine's time slicing does not inflate */
static clockid_t g_clock = CLOCK_MONOTONIC;

/* --cold: before every timed call (untimed) the calling thread writes and reads
 * a buffer of twice the last-level cache (llc_bytes; 64 MiB when unknown), so
 * that the call finds its inputs in memory, not in the caches, as it does in
 * compare.py, whose other libraries' calls run between two of dresample's
 * (another thread's private L2 keeps what it last read) */
static unsigned char *g_cold = NULL;
static size_t g_cold_n = 0;
static volatile unsigned g_cold_sink;
/* cpu0's last-level cache in bytes as Linux's sysfs gives it (index3, "32768K"),
 * capped at 512 MiB; 0 when unknown.  (glibc's sysconf(_SC_LEVEL3_CACHE_SIZE)
 * can say ten times the L3 a core has: 320 MiB on a VM whose cores share 32 MiB.) */
static size_t llc_bytes(void)
{
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/cache/index3/size", "r");
    if (!f)
        return 0;
    unsigned long long v = 0;
    char unit = 0;
    const int n = fscanf(f, "%llu%c", &v, &unit);
    fclose(f);
    if (n < 1 || v == 0)
        return 0;
    if (n == 2 && (unit == 'K' || unit == 'k'))
        v <<= 10;
    else if (n == 2 && (unit == 'M' || unit == 'm'))
        v <<= 20;
    return v > ((unsigned long long)512 << 20) ? (size_t)512 << 20 : (size_t)v;
}

static void evict_caches(void)
{
    if (!g_cold)
        return;
    static unsigned char v = 1;
    memset(g_cold, v++, g_cold_n);
    unsigned acc = 0;
    for (size_t i = 0; i < g_cold_n; i += 64)
        acc += g_cold[i];
    g_cold_sink = acc;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(g_clock, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static long minflt(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* v = ((i + seed) * 0x9E3779B1 mod 2^24) / 2^24 - 0.5: exact in f32, and numpy
 * computes the same bits with uint64 arithmetic (only the low 24 bits matter). */
static void fill(float *p, int64_t n, uint64_t seed)
{
    for (int64_t i = 0; i < n; i++) {
        uint64_t h = (((uint64_t)i + seed) * 0x9E3779B1u) & 0xFFFFFFu;
        p[i] = (float)h * (1.0f / 16777216.0f) - 0.5f;
    }
}

typedef struct {
    double sum, abs;
    uint64_t hash;
} digest;

static digest digest_of(const float *p, int64_t n)
{
    digest d = {0, 0, 1469598103934665603ull};
    for (int64_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, p + i, 4);
        d.hash = (d.hash ^ u) * 1099511628211ull;
        d.sum += p[i];
        d.abs += fabs(p[i]);
    }
    return d;
}

static int64_t numel(const drs_tensor *t)
{
    int64_t n = 1;
    for (int i = 0; i < t->rank; i++)
        n *= t->shape[i];
    return n;
}

static drs_tensor tensor_new(int rank, const int64_t *shape)
{
    drs_tensor t;
    memset(&t, 0, sizeof t);
    t.dtype = DRS_F32;
    t.rank = rank;
    for (int i = 0; i < rank; i++)
        t.shape[i] = shape[i];
    t.data = xalloc((size_t)numel(&t) * sizeof(float));
    return t;
}

/* ------------------------------------------------------------ a prepared workload */
typedef struct {
    const wl_def *w;
    drs_tensor x, y, dy, dx, grid, dgrid;
    drs_torch_interpolate_attrs ta;
    drs_resize_attrs ra;
    drs_resize_inputs ri;
    double rscales[2];
    drs_interpolate_attrs ia;
    drs_interpolate_inputs ii;
    double iscales[2];
    int64_t iaxes[2];
    double dscales[2];
    double theta[6];
} bench_rt;

static void rt_setup(bench_rt *r, const wl_def *w, int smoke)
{
    memset(r, 0, sizeof *r);
    r->w = w;
    const int64_t *shape = smoke ? w->smoke : w->shape;
    const int64_t *osz = smoke ? w->osz_smoke : w->osz;
    int orank;
    int64_t oshape[DRS_MAX_RANK];
    drs_status s;
    r->x = tensor_new(w->rank, shape);
    fill(r->x.data, numel(&r->x), 0);
    switch (w->kind) {
    case K_TORCH:
        r->ta = drs_torch_interpolate_attrs_default();
        r->ta.mode = w->tmode;
        r->ta.n_size = w->rank - 2;
        for (int i = 0; i < w->rank - 2; i++)
            r->ta.size[i] = osz[i];
        r->ta.align_corners = (w->tmode == DRS_TORCH_NEAREST || w->tmode == DRS_TORCH_AREA) ? -1 : 0;
        r->ta.antialias = w->antialias;
        s = drs_torch_interpolate_infer_shape(&r->ta, &r->x, &orank, oshape);
        if (s)
            die("drs_torch_interpolate_infer_shape", s);
        break;
    case K_RESIZE_NHWC:
        r->ra = drs_resize_attrs_default(19);
        r->ra.mode = DRS_MODE_LINEAR;
        r->ra.coordinate_transformation_mode = DRS_COORD_HALF_PIXEL;
        r->ra.n_axes = 2;
        r->ra.axes[0] = 1;
        r->ra.axes[1] = 2;
        r->rscales[0] = (double)osz[0] / (double)shape[1];
        r->rscales[1] = (double)osz[1] / (double)shape[2];
        r->ri.scales = r->rscales;
        r->ri.n_scales = 2;
        s = drs_resize_infer_shape(&r->ra, &r->x, &r->ri, &orank, oshape);
        if (s)
            die("drs_resize_infer_shape", s);
        break;
    case K_BACKPROP:
        r->ia = drs_interpolate_attrs_default(4);
        r->ia.mode = g_w12_mode;
        r->ia.shape_calculation_mode = DRS_SHAPE_SCALES;
        r->ia.coordinate_transformation_mode = DRS_COORD_HALF_PIXEL;
        r->iscales[0] = (double)osz[0] / (double)shape[2];
        r->iscales[1] = (double)osz[1] / (double)shape[3];
        r->iaxes[0] = 2;
        r->iaxes[1] = 3;
        r->ii.scales = r->iscales;
        r->ii.n_scales = 2;
        r->ii.axes = r->iaxes;
        r->ii.n_axes = 2;
        s = drs_interpolate_infer_shape(&r->ia, &r->x, &r->ii, &orank, oshape);
        if (s)
            die("drs_interpolate_infer_shape", s);
        break;
    case K_GRID: {
        const int64_t N = shape[0], Ho = osz[0], Wo = osz[1];
        const double ca = cos(GRID_ANGLE) * GRID_SCALE, sa = sin(GRID_ANGLE) * GRID_SCALE;
        r->theta[0] = ca, r->theta[1] = -sa, r->theta[2] = GRID_TX;
        r->theta[3] = sa, r->theta[4] = ca, r->theta[5] = GRID_TY;
        const int64_t gs[4] = {N, Ho, Wo, 2};
        r->grid = tensor_new(4, gs);
        float *g = r->grid.data;
        for (int64_t n = 0; n < N; n++)
            for (int64_t i = 0; i < Ho; i++)
                for (int64_t j = 0; j < Wo; j++) {
                    const double xn = (2.0 * (double)j + 1.0) / (double)Wo - 1.0;
                    const double yn = (2.0 * (double)i + 1.0) / (double)Ho - 1.0;
                    float *p = g + ((n * Ho + i) * Wo + j) * 2;
                    p[0] = (float)(r->theta[0] * xn + r->theta[1] * yn + r->theta[2]);
                    p[1] = (float)(r->theta[3] * xn + r->theta[4] * yn + r->theta[5]);
                }
        r->dgrid = tensor_new(4, gs);
        drs_grid_sample_attrs ga = drs_grid_sample_attrs_default(9);
        ga.mode = w->gmode;
        ga.padding_mode = w->gpad;
        s = drs_grid_sample_infer_shape(&ga, &r->x, &r->grid, &orank, oshape);
        if (s)
            die("drs_grid_sample_infer_shape", s);
        break;
    }
    }
    r->y = tensor_new(orank, oshape);
    r->dy = tensor_new(orank, oshape);
    fill(r->dy.data, numel(&r->dy), 1000003);
    r->dx = tensor_new(w->rank, shape);
}

static void rt_free(bench_rt *r)
{
    free(r->x.data);
    free(r->y.data);
    free(r->dy.data);
    free(r->dx.data);
    free(r->grid.data);
    free(r->dgrid.data);
}

static drs_grid_sample_attrs grid_attrs(const wl_def *w)
{
    drs_grid_sample_attrs ga = drs_grid_sample_attrs_default(9);
    ga.mode = w->gmode;
    ga.padding_mode = w->gpad;
    ga.align_corners = 0;
    return ga;
}

static void run_fwd(bench_rt *r)
{
    drs_status s = DRS_OK;
    switch (r->w->kind) {
    case K_TORCH:
        s = drs_torch_interpolate_forward(&r->y, &r->x, &r->ta);
        break;
    case K_RESIZE_NHWC:
        s = drs_resize_forward(&r->y, &r->x, &r->ri, &r->ra);
        break;
    case K_BACKPROP:
        s = drs_interpolate_forward(&r->y, &r->x, &r->ii, &r->ia);
        break;
    case K_GRID: {
        drs_grid_sample_attrs ga = grid_attrs(r->w);
        s = drs_grid_sample_forward(&r->y, &r->x, &r->grid, &ga);
        break;
    }
    }
    if (s)
        die("forward", s);
}

/* with_scales: K_BACKPROP only, also computes scales_delta. */
static void run_bwd(bench_rt *r, int with_scales)
{
    drs_status s = DRS_OK;
    switch (r->w->kind) {
    case K_TORCH:
        s = drs_torch_interpolate_backward(&r->dx, &r->dy, &r->x, &r->ta, DRS_GRAD_OVERWRITE);
        break;
    case K_RESIZE_NHWC:
        s = drs_resize_backward(&r->dx, NULL, NULL, &r->dy, &r->x, &r->ri, &r->ra,
                                DRS_GRAD_OVERWRITE);
        break;
    case K_BACKPROP:
        s = drs_interpolate_backprop(&r->dx, with_scales ? r->dscales : NULL, &r->x, &r->dy,
                                     &r->ii, &r->ia, DRS_GRAD_OVERWRITE);
        break;
    case K_GRID: {
        drs_grid_sample_attrs ga = grid_attrs(r->w);
        s = drs_grid_sample_backward(&r->dx, &r->dgrid, &r->dy, &r->x, &r->grid, &ga,
                                     DRS_GRAD_OVERWRITE);
        break;
    }
    }
    if (s)
        die("backward", s);
}

typedef struct {
    double med, min, max;
    double flt; /* minor page faults per timed call */
} timing;

typedef enum { PHASE_FWD, PHASE_BWD, PHASE_BWD_SCALES } phase;

#define MAX_THREAD_COUNTS 8
typedef struct {
    int n;
    int t[MAX_THREAD_COUNTS];
} thread_list;

static void set_threads(int T)
{
    drs_status s = drs_set_num_threads(T);
    if (s)
        die("drs_set_num_threads", s);
    omp_set_num_threads(T); /* the copy probe's own parallel region */
}

static void run_phase(bench_rt *r, phase ph)
{
    if (ph == PHASE_FWD)
        run_fwd(r);
    else
        run_bwd(r, ph == PHASE_BWD_SCALES);
}

static timing summarize(double *t, int runs, long flt)
{
    timing res;
    qsort(t, (size_t)runs, sizeof *t, cmp_double);
    res.med = (runs % 2) ? t[runs / 2] : 0.5 * (t[runs / 2 - 1] + t[runs / 2]);
    res.min = t[0];
    res.max = t[runs - 1];
    res.flt = (double)flt / runs;
    return res;
}

/* The results a phase writes, digested after the last timed call at each
 * thread count (untimed), so the caller can check they do not depend on it. */
typedef struct {
    digest out, grid;
    double dscales[2];
} phase_result;

static void digest_phase(bench_rt *r, phase ph, phase_result *pr)
{
    memset(pr, 0, sizeof *pr);
    if (ph == PHASE_FWD) {
        pr->out = digest_of(r->y.data, numel(&r->y));
        return;
    }
    pr->out = digest_of(r->dx.data, numel(&r->dx));
    if (r->w->kind == K_GRID)
        pr->grid = digest_of(r->dgrid.data, numel(&r->dgrid));
    if (ph == PHASE_BWD_SCALES)
        memcpy(pr->dscales, r->dscales, sizeof pr->dscales);
}

/* Times a phase at every thread count of tl, interleaved call by call
 * (T1, T2, T1, T2, ...) so that a change in the machine's load hits every
 * count alike; the warm-up calls (per count) come first.  pr: the results'
 * digests after the last timed call, or NULL for none. */
static void time_phase(bench_rt *r, phase ph, int warmup, int runs, const thread_list *tl,
                       timing *out, phase_result *pr, double *times)
{
    double *t = malloc((size_t)runs * (size_t)tl->n * sizeof *t);
    long flt[MAX_THREAD_COUNTS] = {0};
    if (!t)
        die("malloc", DRS_ERR_NOMEM);
    for (int k = 0; k < tl->n; k++) {
        set_threads(tl->t[k]);
        for (int i = 0; i < warmup; i++) {
            const double t0 = now_ms();
            run_phase(r, ph);
            if (now_ms() - t0 > 1000.0) /* slow: one warm-up call is enough */
                break;
        }
    }
    for (int i = 0; i < runs; i++)
        for (int k = 0; k < tl->n; k++) {
            set_threads(tl->t[k]);
            evict_caches();
            const long f0 = minflt();
            const double t0 = now_ms();
            run_phase(r, ph);
            t[k * runs + i] = now_ms() - t0;
            flt[k] += minflt() - f0;
            if (i == runs - 1 && pr)
                digest_phase(r, ph, &pr[k]);
        }
    if (times) /* every call's time, in call order (one thread count) */
        memcpy(times, t, (size_t)runs * sizeof *t);
    for (int k = 0; k < tl->n; k++)
        out[k] = summarize(t + k * runs, runs, flt[k]);
    free(t);
}

/* ------------------------------------------------------ traffic bound */
/* The loops use the widest vectors the CPU has (as the library's kernels
 * do): a bound measured with narrower loads would not be one. */
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define BENCH_X86 1
__attribute__((target("avx512f"))) static uint64_t fold_avx512(const uint64_t *r, size_t n,
                                                               size_t *done)
{
    __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        a0 = _mm512_xor_si512(a0, _mm512_loadu_si512((const void *)(r + i)));
        a1 = _mm512_xor_si512(a1, _mm512_loadu_si512((const void *)(r + i + 8)));
        a2 = _mm512_xor_si512(a2, _mm512_loadu_si512((const void *)(r + i + 16)));
        a3 = _mm512_xor_si512(a3, _mm512_loadu_si512((const void *)(r + i + 24)));
    }
    *done = i;
    return (uint64_t)_mm512_reduce_add_epi64(_mm512_xor_si512(_mm512_xor_si512(a0, a1),
                                                              _mm512_xor_si512(a2, a3)));
}
__attribute__((target("avx512f"))) static void ntw_avx512(uint64_t *w, size_t n, uint64_t v)
{
    const __m512i x = _mm512_set1_epi64((long long)v);
    for (size_t i = 0; i + 8 <= n; i += 8) /* w 64-byte aligned, n a multiple of 8 */
        _mm512_stream_si512((void *)(w + i), x);
}
__attribute__((target("avx2"))) static uint64_t fold_avx2(const uint64_t *r, size_t n,
                                                          size_t *done)
{
    __m256i a0 = _mm256_setzero_si256(), a1 = a0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        a0 = _mm256_xor_si256(a0, _mm256_loadu_si256((const __m256i *)(const void *)(r + i)));
        a1 = _mm256_xor_si256(a1, _mm256_loadu_si256((const __m256i *)(const void *)(r + i + 4)));
    }
    *done = i;
    uint64_t l[4];
    _mm256_storeu_si256((__m256i *)(void *)l, _mm256_xor_si256(a0, a1));
    return l[0] ^ l[1] ^ l[2] ^ l[3];
}
__attribute__((target("avx2"))) static void ntw_avx2(uint64_t *w, size_t n, uint64_t v)
{
    const __m256i x = _mm256_set1_epi64x((long long)v);
    for (size_t i = 0; i + 4 <= n; i += 4)
        _mm256_stream_si256((__m256i *)(void *)(w + i), x);
}
static int g_vec = -1; /* 2: AVX-512, 1: AVX2, 0: plain loops */
#endif

/* this thread's share of r (read, xor-folded into the result) and of w
 * (written), in chunks: the share of r that goes with the next 16 KiB of w is
 * read, then those 16 KiB written; w is 64-byte aligned and its share a whole
 * number of lines */
static uint64_t traffic_pass(const uint64_t *r, size_t nr, uint64_t *w, size_t nw, int nt_stores)
{
    (void)nt_stores; /* (only x86 has the non-temporal variant) */
    const size_t CH = 2048; /* 64-bit words written per chunk */
    uint64_t acc = 0;
    size_t ri = 0, wi = 0;
    do {
        const size_t we = wi + CH < nw ? wi + CH : nw;
        const size_t re = we == nw ? nr : (size_t)((double)nr * (double)we / (double)nw);
        const size_t rend = re < nr ? re : nr;
        if (rend > ri) {
            size_t done = 0;
#if defined(BENCH_X86)
            if (g_vec == 2)
                acc ^= fold_avx512(r + ri, rend - ri, &done);
            else if (g_vec == 1)
                acc ^= fold_avx2(r + ri, rend - ri, &done);
#endif
            for (size_t i = ri + done; i < rend; i++)
                acc ^= r[i];
            ri = rend;
        }
        if (we > wi) {
#if defined(BENCH_X86)
            if (nt_stores && g_vec == 2)
                ntw_avx512(w + wi, we - wi, acc);
            else if (nt_stores && g_vec == 1)
                ntw_avx2(w + wi, we - wi, acc);
            else
#endif
                memset(w + wi, (int)(acc & 0x7f), (we - wi) * 8);
        }
        wi = we;
    } while (wi < nw || ri < nr);
#if defined(BENCH_X86)
    if (nt_stores && g_vec > 0)
        _mm_sfence();
#endif
    return acc;
}

static volatile uint64_t g_sink;

/* The traffic bound of rbytes read + wbytes written (ms, the median of runs,
 * the faster of non-temporal and ordinary stores), with the current thread
 * count; *nt_ms: the non-temporal stores' (the bound of a kernel that streams
 * its output: ordinary stores can also find part of an output smaller than a
 * few times the L3 still cached from the call before). */
static double traffic_bound_ms(size_t rbytes, size_t wbytes, int warmup, int runs,
                               double *nt_ms)
{
#if defined(BENCH_X86)
    if (g_vec < 0)
        g_vec = __builtin_cpu_supports("avx512f") ? 2 : __builtin_cpu_supports("avx2") ? 1 : 0;
#endif
    /* whole 8-byte words read, whole 64-byte lines written (at most 60 bytes short) */
    const size_t nr = rbytes / 8, nw = wbytes / 64 * 8;
    uint64_t *r = xalloc(nr * 8 + 8), *w = xalloc(nw * 8 + 8);
    for (size_t i = 0; i < nr; i++)
        r[i] = i * 0x9E3779B97F4A7C15u;
    double *t = xalloc((size_t)runs * sizeof *t), best = INFINITY;
    for (int nt_stores = 0; nt_stores < 2; nt_stores++) {
        for (int it = -warmup; it < runs; it++) {
            const double t0 = now_ms();
            uint64_t acc = 0;
#pragma omp parallel reduction(^ : acc)
            {
                const size_t T = (size_t)omp_get_num_threads(), id = (size_t)omp_get_thread_num();
                /* whole 64-byte lines per thread */
                const size_t cr = ((nr + T - 1) / T + 7) / 8 * 8;
                const size_t cw = ((nw + T - 1) / T + 7) / 8 * 8;
                const size_t r0 = cr * id < nr ? cr * id : nr, r1 = r0 + cr < nr ? r0 + cr : nr;
                const size_t w0 = cw * id < nw ? cw * id : nw, w1 = w0 + cw < nw ? w0 + cw : nw;
                acc ^= traffic_pass(r + r0, r1 - r0, w + w0, w1 - w0, nt_stores);
            }
            g_sink = acc;
            if (it >= 0)
                t[it] = now_ms() - t0;
        }
        const timing m = summarize(t, runs, 0);
        best = m.med < best ? m.med : best;
        if (nt_stores)
            *nt_ms = m.med;
    }
    free(t);
    free(r);
    free(w);
    return best;
}

/* ------------------------------------------------------------ copy probe */
static timing copy_probe(size_t bytes, int warmup, int runs)
{
    char *a = xalloc(bytes), *b = xalloc(bytes);
    memset(a, 1, bytes);
    double *t = xalloc((size_t)runs * sizeof *t);
    for (int it = -warmup; it < runs; it++) {
        const double t0 = now_ms();
#pragma omp parallel
        {
            const int nt = omp_get_num_threads(), id = omp_get_thread_num();
            const size_t chunk = (bytes / (size_t)nt + 63) / 64 * 64;
            const size_t lo = chunk * (size_t)id < bytes ? chunk * (size_t)id : bytes;
            const size_t hi = lo + chunk < bytes ? lo + chunk : bytes;
            memcpy(b + lo, a + lo, hi - lo);
        }
        if (it >= 0)
            t[it] = now_ms() - t0;
    }
    timing res = summarize(t, runs, 0);
    free(t);
    free(a);
    free(b);
    return res;
}

/* ------------------------------------------------------------ arithmetic probe */
/* The core's peak rate of 512-bit float operations, for the accounts that set
 * a kernel's operations against it: 12 independent chains of one operation
 * (the mix: a multiply then an add in each chain), all in registers
 * (multiplies by 1 and adds of 0, read from a volatile so that nothing
 * folds), on the calling thread.  Rates are operations (vectors of 16 floats)
 * per ns, the best of 5 runs. */
#ifdef DRS_BENCH_ARITH
enum { AR_MUL, AR_ADD, AR_MIX, AR_FMA, AR_PERM, AR_N };
static volatile float g_arith_sink;
#define AR_CHAINS(OP)                                                                          \
    do {                                                                                       \
        OP(a0); OP(a1); OP(a2); OP(a3); OP(a4); OP(a5);                                        \
        OP(a6); OP(a7); OP(a8); OP(a9); OP(a10); OP(a11);                                      \
    } while (0)
__attribute__((target("avx512f,fma"), noinline)) static double arith_run(int kind, long iters)
{
    static volatile float one = 1.0f, zero = 0.0f;
    const __m512 m = _mm512_set1_ps(one), c = _mm512_set1_ps(zero);
    const __m512i ix = _mm512_set_epi32(1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23, 8, 24);
    /* distinct starting values, so that no two chains are the same computation */
#define AR_INIT(k) _mm512_set1_ps((float)(k + 1) * one)
    __m512 a0 = AR_INIT(0), a1 = AR_INIT(1), a2 = AR_INIT(2), a3 = AR_INIT(3), a4 = AR_INIT(4),
           a5 = AR_INIT(5), a6 = AR_INIT(6), a7 = AR_INIT(7), a8 = AR_INIT(8), a9 = AR_INIT(9),
           a10 = AR_INIT(10), a11 = AR_INIT(11);
#undef AR_INIT
#define AR_MULOP(v) v = _mm512_mul_ps(v, m)
#define AR_ADDOP(v) v = _mm512_add_ps(v, c)
#define AR_FMAOP(v) v = _mm512_fmadd_ps(v, m, c)
#define AR_PERMOP(v) v = _mm512_permutex2var_ps(v, ix, m)
    const double t0 = now_ms();
    for (long i = 0; i < iters; i++) {
        switch (kind) {
        case AR_MUL: AR_CHAINS(AR_MULOP); break;
        case AR_ADD: AR_CHAINS(AR_ADDOP); break;
        case AR_MIX: /* each chain a multiply, then an add: 24 operations */
            AR_CHAINS(AR_MULOP);
            AR_CHAINS(AR_ADDOP);
            break;
        case AR_FMA: AR_CHAINS(AR_FMAOP); break;
        default: AR_CHAINS(AR_PERMOP); break;
        }
    }
    const double t = now_ms() - t0;
#undef AR_MULOP
#undef AR_ADDOP
#undef AR_FMAOP
#undef AR_PERMOP
    __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)),
                             _mm512_add_ps(_mm512_add_ps(a4, a5), _mm512_add_ps(a6, a7)));
    s = _mm512_add_ps(s, _mm512_add_ps(_mm512_add_ps(a8, a9), _mm512_add_ps(a10, a11)));
    g_arith_sink = _mm512_reduce_add_ps(s);
    return t;
}
#endif

/* 1 and the rates (vectors of 16 floats per ns) in r[AR_N], or 0 where the
 * probe does not run (not x86-64 with AVX-512) */
static int arith_probe(int smoke, double *r)
{
#ifdef DRS_BENCH_ARITH
    if (!__builtin_cpu_supports("avx512f"))
        return 0;
    const long iters = smoke ? 20000 : 4000000;
    for (int k = 0; k < AR_N; k++) {
        double best = 0.0;
        for (int rep = 0; rep < 5; rep++) {
            const double ms = arith_run(k, iters);
            const double rate = (k == AR_MIX ? 24.0 : 12.0) * (double)iters / (ms * 1e6);
            if (ms > 0 && rate > best)
                best = rate;
        }
        r[k] = best;
    }
    return 1;
#else
    (void)smoke;
    (void)r;
    return 0;
#endif
}

/* ------------------------------------------------------------ output */
static void json_shape(const drs_tensor *t)
{
    putchar('[');
    for (int i = 0; i < t->rank; i++)
        printf("%s%lld", i ? "," : "", (long long)t->shape[i]);
    putchar(']');
}

static void json_digest(const char *key, digest d)
{
    printf(",\"%s\":{\"sum\":%.17g,\"abs\":%.17g,\"hash\":\"%016llx\"}", key, d.sum, d.abs,
           (unsigned long long)d.hash);
}

/* 1 when the name p[0..n) of --workload's list selects workload `name`: "W8"
 * selects W8a..W8d, but "W1" does not select W10/W11/W12 */
static int wl_name_selects(const char *p, size_t n, const char *name)
{
    return n && strncmp(name, p, n) == 0 && (name[n] == 0 || (name[n] >= 'a' && name[n] <= 'z'));
}

/* the name after the one at p in a comma-separated list (its length: strcspn(p, ",")) */
static const char *next_name(const char *p)
{
    p += strcspn(p, ",");
    return *p ? p + 1 : p;
}

/* 1 when the name p[0..n) is tok */
static int name_is(const char *p, size_t n, const char *tok)
{
    return n == strlen(tok) && !strncmp(p, tok, n);
}

/* 1 when the list filter names tok exactly */
static int filter_names(const char *filter, const char *tok)
{
    for (const char *p = filter; p && *p; p = next_name(p))
        if (name_is(p, strcspn(p, ","), tok))
            return 1;
    return 0;
}

static int wl_selected(const char *name, const char *filter)
{
    if (!filter)
        return 1;
    for (const char *p = filter; *p; p = next_name(p))
        if (wl_name_selects(p, strcspn(p, ","), name))
            return 1;
    return 0;
}

static void usage(void)
{
    printf("usage: bench [--threads N[,N...]] [--runs R] [--warmup K] [--workload W1,W8,...]\n"
           "             [--phase fwd|bwd] [--json] [--smoke] [--no-copy] [--bound]\n"
           "             [--cpu-time] [--cold] [--list] [--w12-mode M]\n"
           "  --threads     OpenMP thread counts (default 1); 1,2 times both, call by call\n"
           "  --runs R      timed calls per measurement, the median is reported (default 7)\n"
           "  --warmup K    untimed calls before them (default 2; 1 when a call takes > 1 s)\n"
           "  --workload    comma-separated names; W8 selects W8a-W8d; 'copy' = only the probe;\n"
           "                'arith' = the core's peak rates of 512-bit float operations\n"
           "  --phase P     fwd, bwd or fwd,bwd (default): time only these (e.g. under perf;\n"
           "                the other phase's fields are 0)\n"
           "  --json        one JSON object per line (what compare_torch.py reads)\n"
           "  --smoke       tiny shapes (for the ctest smoke run; times nothing meaningful)\n"
           "  --no-copy     skip the copy-bandwidth probe\n"
           "  --bound       per row and phase also time its traffic bound: a loop moving\n"
           "                exactly the phase's bytes (%%bnd = bound / time)\n"
           "  --cpu-time    time the calling thread's CPU time, not wall time (--threads 1\n"
           "                only: on a loaded machine it leaves out the time slices lost to\n"
           "                other processes; DRS_SIMD=baseline|avx2|avx512 picks the kernels)\n"
           "  --cold        before every timed call (untimed) write and read a buffer of\n"
           "                twice the last-level cache (sysfs; 64 MiB when unknown) from the\n"
           "                calling thread: the call's inputs come from memory, as in\n"
           "                compare.py's interleaved calls\n"
           "  --list        print the workloads and exit\n"
           "  --w12-mode M  W12's mode: linear_onnx (default), linear, cubic or nearest (the\n"
           "                scales gradient per mode; W12's description still says linear_onnx)\n");
}

static int parse_threads(const char *v, thread_list *tl)
{
    tl->n = 0;
    while (*v) {
        char *e;
        const long t = strtol(v, &e, 10);
        if (e == v || t < 1 || t > 1024 || tl->n == MAX_THREAD_COUNTS || (*e && *e != ','))
            return 0;
        tl->t[tl->n++] = (int)t;
        v = *e ? e + 1 : e;
    }
    return tl->n > 0;
}

static void json_timing(const char *key, timing t)
{
    printf(",\"%s_ms\":%.6g,\"%s_min_ms\":%.6g,\"%s_max_ms\":%.6g,\"%s_flt\":%.6g", key, t.med, key,
           t.min, key, t.max, key, t.flt);
}

#ifdef DRS_BENCH_MODULE
/* In the module the command line's main is an ordinary (hidden) function. */
#define main drs_bench_cli_main
#endif
int main(int argc, char **argv)
{
    int runs = 7, warmup = 2, json = 0, smoke = 0, do_copy = 1, phases = 3, bound = 0;
    thread_list tl = {1, {1}};
    const char *filter = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = (i + 1 < argc) ? argv[i + 1] : NULL;
        if (!strcmp(a, "--threads") && v) {
            if (!parse_threads(v, &tl)) {
                fprintf(stderr, "bench: --threads wants counts >= 1 like 2 or 1,2 (at most %d), "
                        "got '%s'\n", MAX_THREAD_COUNTS, v);
                return 2;
            }
            i++;
        } else if (!strcmp(a, "--runs") && v)
            runs = atoi(v), i++;
        else if (!strcmp(a, "--warmup") && v)
            warmup = atoi(v), i++;
        else if (!strcmp(a, "--workload") && v)
            filter = v, i++;
        else if (!strcmp(a, "--phase") && v) {
            phases = (strstr(v, "fwd") ? 1 : 0) | (strstr(v, "bwd") ? 2 : 0);
            if (!phases) {
                fprintf(stderr, "bench: --phase wants fwd, bwd or fwd,bwd, got '%s'\n", v);
                return 2;
            }
            i++;
        } else if (!strcmp(a, "--w12-mode") && v) {
            if (!strcmp(v, "linear_onnx"))
                g_w12_mode = DRS_MODE_LINEAR_ONNX;
            else if (!strcmp(v, "linear"))
                g_w12_mode = DRS_MODE_LINEAR;
            else if (!strcmp(v, "cubic"))
                g_w12_mode = DRS_MODE_CUBIC;
            else if (!strcmp(v, "nearest"))
                g_w12_mode = DRS_MODE_NEAREST;
            else {
                fprintf(stderr, "bench: --w12-mode wants linear_onnx, linear, cubic or nearest, got '%s'\n",
                        v);
                return 2;
            }
            i++;
        } else if (!strcmp(a, "--json"))
            json = 1;
        else if (!strcmp(a, "--smoke"))
            smoke = 1;
        else if (!strcmp(a, "--no-copy"))
            do_copy = 0;
        else if (!strcmp(a, "--bound"))
            bound = 1;
        else if (!strcmp(a, "--cpu-time"))
            g_clock = CLOCK_THREAD_CPUTIME_ID;
        else if (!strcmp(a, "--cold")) {
            if (!g_cold) {
                const size_t llc = llc_bytes();
                g_cold_n = llc ? 2 * llc : (size_t)64 << 20;
                g_cold = xalloc(g_cold_n);
            }
        }
        else if (!strcmp(a, "--list")) {
            for (int k = 0; k < NWL; k++)
                printf("%-4s %s\n", WL[k].name, WL[k].what);
            return 0;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage();
            return 0;
        } else {
            fprintf(stderr, "bench: unknown or incomplete argument '%s' (try --help)\n", a);
            return 2;
        }
    }
    if (runs < 1 || warmup < 0) {
        fprintf(stderr, "bench: --runs must be >= 1, --warmup >= 0\n");
        return 2;
    }

    int nsel = 0;
    for (int wi = 0; wi < NWL; wi++)
        nsel += wl_selected(WL[wi].name, filter);
    /* every name must be a probe or select a workload */
    if (filter && !*filter) {
        fprintf(stderr, "bench: --workload '' selects nothing (try --list)\n");
        return 2;
    }
    for (const char *p = filter; p && *p; p = next_name(p)) {
        const size_t n = strcspn(p, ",");
        int ok = name_is(p, n, "copy") || name_is(p, n, "arith");
        for (int wi = 0; wi < NWL && !ok; wi++)
            ok = wl_name_selects(p, n, WL[wi].name);
        if (!ok) {
            fprintf(stderr, "bench: --workload '%s': '%.*s' selects nothing (try --list)\n",
                    filter, (int)n, p);
            return 2;
        }
    }
    if (g_clock == CLOCK_THREAD_CPUTIME_ID && (tl.n != 1 || tl.t[0] != 1)) {
        fprintf(stderr, "bench: --cpu-time needs --threads 1 (it times the calling thread)\n");
        return 2;
    }
    if (!json)
        printf("dresample %d.%d.%d (library build %s, SIMD variant %s), median of %d calls after "
               "%d warm-up%s%s\n",
               DRS_VERSION_MAJOR, DRS_VERSION_MINOR, DRS_VERSION_PATCH, DRS_BENCH_BUILD,
               drs_simd_variant(), runs, warmup,
               g_clock == CLOCK_THREAD_CPUTIME_ID ? ", CPU time of the calling thread" : "",
               g_cold ? ", caches evicted before each timed call" : "");
    if (do_copy && (!filter || filter_names(filter, "copy"))) {
        const wl_def *w1 = &WL[0];
        const int64_t *sh = smoke ? w1->smoke : w1->shape;
        const int64_t *os = smoke ? w1->osz_smoke : w1->osz;
        const size_t bytes = (size_t)(sh[0] * sh[1] * os[0] * os[1]) * sizeof(float);
        for (int k = 0; k < tl.n; k++) {
            set_threads(tl.t[k]);
            timing c = copy_probe(bytes, warmup > 0 ? warmup : 1, runs);
            const double gbs = 2.0 * (double)bytes / (c.med * 1e6);
            if (json)
                printf("{\"probe\":\"copy\",\"bytes\":%zu,\"threads\":%d,\"runs\":%d,\"ms\":%.6g,"
                       "\"min_ms\":%.6g,\"gbs\":%.6g,\"build\":\"%s\",\"version\":\"%d.%d.%d\"}\n",
                       bytes, tl.t[k], runs, c.med, c.min, gbs, DRS_BENCH_BUILD,
                       DRS_VERSION_MAJOR, DRS_VERSION_MINOR, DRS_VERSION_PATCH);
            else
                printf("copy probe: memcpy %.1f MiB, %d thread(s): %.3f ms, %.2f GB/s "
                       "(read + write)\n",
                       (double)bytes / 1048576.0, tl.t[k], c.med, gbs);
        }
        fflush(stdout);
    }
    if (filter_names(filter, "arith")) {
        double r[5];
        if (!arith_probe(smoke, r)) {
            if (json)
                printf("{\"probe\":\"arith\",\"skipped\":\"needs x86-64 with AVX-512\"}\n");
            else
                printf("arith probe: skipped (it needs x86-64 with AVX-512)\n");
        } else if (json)
            printf("{\"probe\":\"arith\",\"unit\":\"512-bit operations per ns, 1 thread\","
                   "\"mul\":%.4g,\"add\":%.4g,\"mul_add_mix\":%.4g,\"fma\":%.4g,"
                   "\"permutex2var\":%.4g}\n",
                   r[0], r[1], r[2], r[3], r[4]);
        else
            printf("arith probe (1 thread, 12 independent chains of 512-bit operations in "
                   "registers), per ns:\n  multiplies %.2f, adds %.2f, multiplies and adds "
                   "mixed %.2f, fused multiply-adds %.2f, two-source permutes %.2f\n",
                   r[0], r[1], r[2], r[3], r[4]);
        fflush(stdout);
    }
    if (filter && !nsel) /* only probes named */
        return 0;

    if (!json && bound)
        printf("%-4s %3s %11s %11s %8s %8s %6s %6s  %s\n", "name", "thr", "fwd ms", "bwd ms",
               "fwd GB/s", "bwd GB/s", "f %bnd", "b %bnd", "what");
    else if (!json)
        printf("%-4s %3s %11s %11s %8s %8s  %s\n", "name", "thr", "fwd ms", "bwd ms", "fwd GB/s",
               "bwd GB/s", "what");
    for (int wi = 0; wi < NWL; wi++) {
        const wl_def *w = &WL[wi];
        if (!wl_selected(w->name, filter))
            continue;
        bench_rt r;
        rt_setup(&r, w, smoke);
        const int64_t nx = numel(&r.x), ny = numel(&r.y), ng = w->kind == K_GRID ? numel(&r.grid) : 0;
        /* bytes read + written (f32): forward reads x (and the grid), writes y;
         * backward reads dy (grid sample also x and the grid), writes dx (and dgrid) */
        const size_t rd_fwd = 4 * (size_t)(nx + ng), wr_fwd = 4 * (size_t)ny;
        const size_t rd_bwd = 4 * (size_t)(ny + (w->kind == K_GRID ? nx + ng : 0));
        const size_t wr_bwd = 4 * (size_t)(nx + ng);
        const double bytes_fwd = (double)(rd_fwd + wr_fwd), bytes_bwd = (double)(rd_bwd + wr_bwd);

        timing tf[MAX_THREAD_COUNTS], tb[MAX_THREAD_COUNTS], ts[MAX_THREAD_COUNTS];
        phase_result rf[MAX_THREAD_COUNTS], rb[MAX_THREAD_COUNTS], rs[MAX_THREAD_COUNTS];
        memset(tf, 0, sizeof tf), memset(tb, 0, sizeof tb), memset(ts, 0, sizeof ts);
        memset(rf, 0, sizeof rf), memset(rb, 0, sizeof rb), memset(rs, 0, sizeof rs);
        if (phases & 1)
            time_phase(&r, PHASE_FWD, warmup, runs, &tl, tf, rf, NULL);
        if (phases & 2)
            time_phase(&r, PHASE_BWD, warmup, runs, &tl, tb, rb, NULL);
        if ((phases & 2) && w->kind == K_BACKPROP)
            time_phase(&r, PHASE_BWD_SCALES, warmup, runs, &tl, ts, rs, NULL);
        double bf[MAX_THREAD_COUNTS] = {0}, bb[MAX_THREAD_COUNTS] = {0};
        double bfn[MAX_THREAD_COUNTS] = {0}, bbn[MAX_THREAD_COUNTS] = {0};
        for (int k = 0; k < tl.n && bound; k++) {
            set_threads(tl.t[k]);
            const int wu = warmup > 0 ? warmup : 1;
            if (phases & 1)
                bf[k] = traffic_bound_ms(rd_fwd, wr_fwd, wu, runs, &bfn[k]);
            if (phases & 2)
                bb[k] = traffic_bound_ms(rd_bwd, wr_bwd, wu, runs, &bbn[k]);
        }

        for (int k = 0; k < tl.n; k++) {
            if (json) {
                printf("{\"workload\":\"%s\",\"what\":\"%s\",\"threads\":%d,\"runs\":%d,"
                       "\"smoke\":%d,\"kind\":\"%s\",\"in_shape\":",
                       w->name, w->what, tl.t[k], runs, smoke,
                       w->kind == K_TORCH ? "torch" : w->kind == K_RESIZE_NHWC ? "nhwc"
                                                    : w->kind == K_GRID        ? "grid"
                                                                               : "backprop");
                json_shape(&r.x);
                if (w->kind != K_GRID) /* the PyTorch mode of the same computation */
                    printf(",\"tmode\":\"%s\",\"antialias\":%d",
                           w->kind == K_TORCH ? TORCH_MODE_NAME[w->tmode] : "bilinear",
                           w->antialias);
                printf(",\"out_shape\":");
                json_shape(&r.y);
                json_timing("fwd", tf[k]);
                json_timing("bwd", tb[k]);
                printf(",\"bytes_fwd\":%.17g,\"bytes_bwd\":%.17g", bytes_fwd, bytes_bwd);
                if (bound)
                    printf(",\"bound_fwd_ms\":%.6g,\"bound_bwd_ms\":%.6g,\"bound_nt_fwd_ms\":%.6g,"
                           "\"bound_nt_bwd_ms\":%.6g,\"read_bytes_fwd\":%zu,"
                           "\"write_bytes_fwd\":%zu,\"read_bytes_bwd\":%zu,\"write_bytes_bwd\":%zu",
                           bf[k], bb[k], bfn[k], bbn[k], rd_fwd, wr_fwd, rd_bwd, wr_bwd);
                json_digest("fwd", rf[k].out);
                json_digest("bwd", rb[k].out);
                if (w->kind == K_GRID) {
                    json_digest("bwd_grid", rb[k].grid);
                    printf(",\"grid_shape\":");
                    json_shape(&r.grid);
                    printf(",\"grid_mode\":%d,\"grid_padding\":%d,\"theta\":[%.17g,%.17g,%.17g,"
                           "%.17g,%.17g,%.17g]",
                           (int)w->gmode, (int)w->gpad, r.theta[0], r.theta[1], r.theta[2],
                           r.theta[3], r.theta[4], r.theta[5]);
                }
                if (w->kind == K_BACKPROP) {
                    json_timing("bwd_scales", ts[k]);
                    json_digest("bwd_scales", rs[k].out);
                    printf(",\"scales_delta\":[%.17g,%.17g]", rs[k].dscales[0], rs[k].dscales[1]);
                }
                printf("}\n");
            } else if (bound) {
                printf("%-4s %3d %11.3f %11.3f %8.2f %8.2f %6.0f %6.0f  %s\n", w->name, tl.t[k],
                       tf[k].med, tb[k].med, bytes_fwd / (tf[k].med * 1e6),
                       bytes_bwd / (tb[k].med * 1e6), tf[k].med > 0 ? 100.0 * bf[k] / tf[k].med : 0.0,
                       tb[k].med > 0 ? 100.0 * bb[k] / tb[k].med : 0.0, w->what);
            } else {
                printf("%-4s %3d %11.3f %11.3f %8.2f %8.2f  %s\n", w->name, tl.t[k], tf[k].med,
                       tb[k].med, bytes_fwd / (tf[k].med * 1e6), bytes_bwd / (tb[k].med * 1e6),
                       w->what);
                if (w->kind == K_BACKPROP)
                    printf("%-4s %3s %11s %11.3f %8s %8s  with scales_delta: +%.1f%% over the "
                           "data gradient alone\n",
                           "", "", "", ts[k].med, "", "", 100.0 * (ts[k].med / tb[k].med - 1.0));
            }
        }
        fflush(stdout);
        rt_free(&r);
    }
    return 0;
}

#ifdef DRS_BENCH_MODULE
/* ------------------------------------------------- in-process entry points
 * The module build of this file (libdrs_bench_module, not installed) lets a
 * Python process run the bench's own setup and timing loop next to its own
 * calls: bench/python_ratios.py alternates them with the Python wrappers'
 * calls, so that both sides see the same machine at the same moment and the
 * same process environment.  Errors still exit the process, as in the
 * command line program. */
#define DRS_BENCH_API __attribute__((visibility("default")))

DRS_BENCH_API void *drs_bench_open(const char *workload, int smoke);
DRS_BENCH_API int drs_bench_time(void *h, int ph, int threads, int warmup, int runs, int cpu_time,
                                 double *times_ms);
DRS_BENCH_API const float *drs_bench_input(void *h, int which, int *rank, int64_t *shape);
DRS_BENCH_API void drs_bench_close(void *h);

/* The prepared workload named exactly `workload` (W1 .. W12), or NULL. */
void *drs_bench_open(const char *workload, int smoke)
{
    for (int k = 0; k < NWL; k++)
        if (!strcmp(WL[k].name, workload)) {
            bench_rt *r = malloc(sizeof *r);
            if (!r)
                return NULL;
            rt_setup(r, &WL[k], smoke != 0);
            return r;
        }
    return NULL;
}

/* Times phase ph (0 forward, 1 backward, 2 backward with scales_delta, W12
 * only) exactly as the command line does for one thread count: warmup
 * untimed calls, then runs timed ones, whose times (ms, in call order) go to
 * times_ms[0 .. runs-1].  Returns 0, or -1 on a bad argument. */
int drs_bench_time(void *h, int ph, int threads, int warmup, int runs, int cpu_time,
                   double *times_ms)
{
    bench_rt *r = h;
    if (!r || !times_ms || ph < PHASE_FWD || ph > PHASE_BWD_SCALES || threads < 1 || warmup < 0 || runs < 1 ||
        (ph == PHASE_BWD_SCALES && r->w->kind != K_BACKPROP))
        return -1;
    const thread_list tl = {1, {threads}};
    timing t;
    g_clock = cpu_time ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC;
    /* no digests: reading the outputs after the block would leave the caches
     * in another state than a block of the Python contenders (which drop
     * theirs) leaves them, and the next contender's calls would pay for it */
    time_phase(r, (phase)ph, warmup, runs, &tl, &t, NULL, times_ms);
    return 0;
}

/* The data of one of the workload's inputs (0: x, 1: grid, 2: dy), f32, C
 * order, with its rank and shape (shape[0 .. rank-1]), or NULL (a workload
 * without a grid, or a bad argument): python_ratios.py gives the wrappers
 * these very buffers, so that both sides read the same memory (the page size
 * and placement of a 16-50 MB input move a call's time by several %). */
const float *drs_bench_input(void *h, int which, int *rank, int64_t *shape)
{
    bench_rt *r = h;
    if (!r || !rank || !shape || which < 0 || which > 2)
        return NULL;
    const drs_tensor *t = which == 0 ? &r->x : which == 1 ? &r->grid : &r->dy;
    if (!t->data)
        return NULL;
    *rank = t->rank;
    for (int i = 0; i < t->rank; i++)
        shape[i] = t->shape[i];
    return t->data;
}

void drs_bench_close(void *h)
{
    if (h) {
        rt_free(h);
        free(h);
    }
}
#endif
