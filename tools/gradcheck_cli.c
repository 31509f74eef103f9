/* gradcheck_cli.c — `dresample gradcheck [--op OP] [--quick] [--fast] [--verbose] [--seed N]`:
 * the sweep.  Enumerates every combination of every op (mode x coordinate
 * mode x nearest mode x antialias x exclude_outside x pads x shape
 * calculation mode x axes pattern x cube coefficient x padding mode x
 * align_corners x rank), asks the library which are valid (a combination
 * rejected with DRS_ERR_INVALID_ARGUMENT is counted "invalid, skipped"),
 * and runs the float64 gradcheck (gradcheck/, full Jacobian) on each valid
 * one for every gradient that exists (data, scales, roi, grid).  --quick
 * checks a deterministic subset (every row kept, small shapes); --fast uses
 * v^T J u instead of the full Jacobian.
 *
 * Threads: combinations run in parallel (OpenMP, dynamic schedule); each
 * writes only its own result slot and everything is printed afterwards in
 * enumeration order, so the output does not depend on the thread count.
 * Exit status: 0 all passed, 1 any failure (or an op with no valid
 * combination), 2 usage error. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, isatty */
#include <dresample.h>
#include <dresample_gradcheck.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

int drs_cli_gradcheck(int argc, char **argv);

/* --------------------------------------------------------- combinations */
typedef struct combo {
    drs_gc_op op;
    int row;
} combo;

typedef struct row {
    char op[24], mode[24];
    int64_t combos, invalid, checked, passed, failed;
    int64_t n_data, n_scales, n_roi, n_grid; /* gradients compared by differences */
    int64_t n_zero;                          /* gradients checked to be exactly 0 */
    double worst_ratio, worst_abs;
    char worst_case[600];
} row;

typedef struct sweep {
    combo *c;
    int64_t n, cap;
    row *rows;
    int nrows, rows_cap;
    int quick;
    const char *only; /* --op */
    int ok_alloc;
} sweep;

static int row_index(sweep *s, const char *op, const char *mode)
{
    for (int i = 0; i < s->nrows; i++)
        if (!strcmp(s->rows[i].op, op) && !strcmp(s->rows[i].mode, mode))
            return i;
    if (s->nrows == s->rows_cap) {
        const int cap = s->rows_cap ? 2 * s->rows_cap : 64;
        row *r = realloc(s->rows, sizeof(row) * (size_t)cap);
        if (!r) {
            s->ok_alloc = 0;
            return -1;
        }
        s->rows = r;
        s->rows_cap = cap;
    }
    row *r = &s->rows[s->nrows];
    memset(r, 0, sizeof *r);
    snprintf(r->op, sizeof r->op, "%s", op);
    snprintf(r->mode, sizeof r->mode, "%s", mode);
    return s->nrows++;
}

static void add(sweep *s, const char *opname, const char *mode, const drs_gc_op *op)
{
    if (s->only && strcmp(s->only, opname) != 0)
        return;
    if (s->n == s->cap) {
        const int64_t cap = s->cap ? 2 * s->cap : 1024;
        combo *c = realloc(s->c, sizeof(combo) * (size_t)cap);
        if (!c) {
            s->ok_alloc = 0;
            return;
        }
        s->c = c;
        s->cap = cap;
    }
    const int r = row_index(s, opname, mode);
    if (r < 0)
        return;
    s->c[s->n].op = *op;
    s->c[s->n].row = r;
    s->n++;
}

/* Data shapes per rank: small enough for the full Jacobian. */
static void data_shape(int rank, int quick, int64_t *shape)
{
    static const int64_t full[6][5] = {{0}, {7}, {5, 6}, {2, 5, 6}, {2, 2, 4, 5}, {1, 2, 3, 4, 4}};
    static const int64_t small[6][5] = {{0}, {5}, {4, 5}, {1, 4, 5}, {1, 2, 3, 4}, {1, 1, 3, 3, 4}};
    for (int i = 0; i < rank; i++)
        shape[i] = quick ? small[rank][i] : full[rank][i];
}

/* A target size that differs from L (up- or down-sampling by axis). */
static int64_t target_size(int64_t L, int i)
{
    if (i % 2 == 0)
        return 2 * L - 1;
    return L > 3 ? L - 2 : L + 1;
}

/* Axis patterns: 0 all (omitted, or listed for Interpolate-1), 1 spatial,
 * 2 spatial reordered, 3 a subset (C and the last axis), 4 negative axes
 * (Resize-18+: -1, 1). */

static int axes_of(int pattern, int rank, int64_t *axes)
{
    int n = 0;
    switch (pattern) {
    case 0:
        for (int i = 0; i < rank; i++)
            axes[n++] = i;
        break;
    case 1:
        for (int i = rank >= 3 ? 2 : 0; i < rank; i++)
            axes[n++] = i;
        break;
    case 2:
        for (int i = rank - 1; i >= (rank >= 3 ? 2 : 0); i--)
            axes[n++] = i;
        break;
    case 3:
        axes[n++] = 1;
        axes[n++] = rank - 1;
        break;
    default:
        axes[n++] = -1;
        axes[n++] = 1;
        break;
    }
    return n;
}

/* ---- OpenVINO Interpolate-1/4/11 and InterpolateBackprop-4 ---- */
static void enum_interpolate(sweep *s, int version, int backprop)
{
    static const drs_interp_mode modes[] = {DRS_MODE_NEAREST,         DRS_MODE_LINEAR,
                                            DRS_MODE_LINEAR_ONNX,     DRS_MODE_CUBIC,
                                            DRS_MODE_AREA,            DRS_MODE_BILINEAR_PILLOW,
                                            DRS_MODE_BICUBIC_PILLOW};
    static const drs_coord_mode cms[] = {DRS_COORD_HALF_PIXEL, DRS_COORD_PYTORCH_HALF_PIXEL,
                                         DRS_COORD_ASYMMETRIC, DRS_COORD_TF_HALF_PIXEL_FOR_NN,
                                         DRS_COORD_ALIGN_CORNERS};
    char opname[32];
    if (backprop)
        snprintf(opname, sizeof opname, "InterpolateBackprop-4");
    else
        snprintf(opname, sizeof opname, "Interpolate-%d", version);
    const int v1 = version == 1;
    for (int mi = 0; mi < 7; mi++) {
        const drs_interp_mode m = modes[mi];
        /* modes of other versions are asked too: the library rejects them */
        const int cubic = m == DRS_MODE_CUBIC || m == DRS_MODE_BICUBIC_PILLOW;
        for (int ci = 0; ci < (v1 ? 2 : 5); ci++)          /* v1: align_corners 0/1 */
            for (int nmi = 0; nmi < (m == DRS_MODE_NEAREST && !v1 ? 5 : 1); nmi++)
                for (int aa = 0; aa < 2; aa++)
                    for (int pads = 0; pads < 2; pads++)
                        for (int sc = 0; sc < (v1 ? 1 : 2); sc++)
                            for (int ap = 0; ap < 4; ap++)
                                for (int ki = 0; ki < (cubic ? 2 : 1); ki++)
                                    for (int rank = 3; rank <= 5; rank++) {
                                        drs_gc_op op = drs_gc_op_init(
                                            backprop ? DRS_GC_INTERPOLATE_BACKPROP
                                                     : DRS_GC_INTERPOLATE,
                                            version);
                                        drs_interpolate_attrs *a = &op.interp;
                                        a->mode = m;
                                        if (v1)
                                            a->align_corners = ci;
                                        else
                                            a->coordinate_transformation_mode = cms[ci];
                                        a->nearest_mode = (drs_nearest_mode)nmi;
                                        a->antialias = aa;
                                        a->shape_calculation_mode =
                                            sc ? DRS_SHAPE_SCALES : DRS_SHAPE_SIZES;
                                        a->cube_coeff = ki ? -0.5 : -0.75;
                                        op.rank = rank;
                                        data_shape(rank, s->quick, op.shape);
                                        int64_t ax[DRS_MAX_RANK] = {0};
                                        const int nax = axes_of(ap, rank, ax);
                                        if (ap != 0 || v1) { /* v4/v11: "all" = axes omitted */
                                            op.n_axes = nax;
                                            memcpy(op.axes, ax, sizeof(int64_t) * (size_t)nax);
                                        }
                                        if (pads) {
                                            a->n_pads_begin = a->n_pads_end = rank;
                                            if (v1) { /* v1: pads on resized axes only */
                                                a->pads_begin[ax[0]] = 1;
                                                a->pads_end[ax[nax - 1]] = 1;
                                            } else {
                                                a->pads_begin[rank - 2] = 1;
                                                a->pads_end[rank - 1] = 2;
                                                a->pads_begin[1] = 1; /* maybe not resized */
                                            }
                                        }
                                        const int lonnx_all = m == DRS_MODE_LINEAR_ONNX &&
                                                              ap == 0 && rank >= 4;
                                        for (int i = 0; i < nax; i++) {
                                            const int d = (int)ax[i];
                                            const int64_t L = op.shape[d] +
                                                              (pads ? a->pads_begin[d] + a->pads_end[d] : 0);
                                            const int keep = lonnx_all && d < 2;
                                            op.sizes[i] = keep ? L : target_size(op.shape[d], i);
                                            op.scales[i] = keep ? 1.0 : (i % 2 ? 0.77 : 1.37);
                                            op.scale_fixed[i] = (unsigned char)keep;
                                        }
                                        /* v1 and sizes mode: the sizes input; v4 passes
                                         * both ports (the scales gradient must be 0);
                                         * v11 has one port (scales_or_sizes) */
                                        if (v1 || !sc)
                                            op.n_sizes = nax;
                                        if (!v1 && (sc || version == 4))
                                            op.n_scales = nax;
                                        add(s, opname, drs_interp_mode_str(m), &op);
                                    }
    }
}

/* ---- ONNX Resize-10/11/13/18/19 ---- */
static void enum_resize(sweep *s, int opset)
{
    static const drs_interp_mode modes[] = {DRS_MODE_NEAREST, DRS_MODE_LINEAR, DRS_MODE_CUBIC};
    static const drs_coord_mode cms[] = {
        DRS_COORD_HALF_PIXEL,           DRS_COORD_PYTORCH_HALF_PIXEL, DRS_COORD_ASYMMETRIC,
        DRS_COORD_TF_HALF_PIXEL_FOR_NN, DRS_COORD_ALIGN_CORNERS,      DRS_COORD_TF_CROP_AND_RESIZE,
        DRS_COORD_HALF_PIXEL_SYMMETRIC};
    char opname[32];
    snprintf(opname, sizeof opname, "Resize-%d", opset);
    const int v10 = opset == 10, v18 = opset >= 18;
    for (int mi = 0; mi < 3; mi++) {
        const drs_interp_mode m = modes[mi];
        for (int ci = 0; ci < (v10 ? 1 : 7); ci++)
            for (int nmi = 0; nmi < (m == DRS_MODE_NEAREST && !v10 ? 4 : 1); nmi++)
                for (int ex = 0; ex < 2; ex++)
                    for (int aa = 0; aa < 2; aa++)
                        /* shape: 0 scales, 1 sizes stretch, 2 not_larger, 3 not_smaller */
                        for (int sh = 0; sh < 4; sh++)
                            for (int ap = 0; ap < (v18 ? 5 : 2); ap++)
                                for (int ki = 0; ki < (m == DRS_MODE_CUBIC ? 2 : 1); ki++)
                                    for (int rank = 3; rank <= 4; rank++) {
                                        drs_gc_op op = drs_gc_op_init(DRS_GC_RESIZE, opset);
                                        drs_resize_attrs *a = &op.resize;
                                        a->mode = m;
                                        if (!v10) {
                                            a->coordinate_transformation_mode = cms[ci];
                                            a->nearest_mode = (drs_nearest_mode)nmi;
                                        }
                                        a->exclude_outside = ex;
                                        a->antialias = aa;
                                        a->extrapolation_value = 0.25;
                                        a->cubic_coeff_a = ki ? -0.5 : -0.75;
                                        if (sh >= 2)
                                            a->keep_aspect_ratio_policy =
                                                sh == 2 ? DRS_ASPECT_NOT_LARGER : DRS_ASPECT_NOT_SMALLER;
                                        op.rank = rank;
                                        data_shape(rank, s->quick, op.shape);
                                        /* axes: v18+ patterns of the axes attribute; before,
                                         * all axes with either every axis resized (0) or
                                         * N/C kept at scale 1 (1) */
                                        int64_t ax[DRS_MAX_RANK] = {0};
                                        int nax;
                                        int keep_nc = 0;
                                        if (v18) {
                                            nax = axes_of(ap, rank, ax);
                                            if (ap != 0) {
                                                a->n_axes = nax;
                                                memcpy(a->axes, ax, sizeof(int64_t) * (size_t)nax);
                                            }
                                        } else {
                                            nax = axes_of(0, rank, ax);
                                            keep_nc = ap == 1;
                                        }
                                        for (int i = 0; i < nax; i++) {
                                            const int d = (int)(ax[i] < 0 ? ax[i] + rank : ax[i]);
                                            const int keep = keep_nc && d < rank - 2;
                                            op.sizes[i] = keep ? op.shape[d] : target_size(op.shape[d], i);
                                            op.scales[i] = keep ? 1.0 : (i % 2 ? 0.77 : 1.37);
                                            op.scale_fixed[i] = (unsigned char)keep;
                                            op.roi[i] = 0.1;
                                            op.roi[nax + i] = 0.9;
                                        }
                                        if (sh == 0)
                                            op.n_scales = nax;
                                        else
                                            op.n_sizes = nax;
                                        /* roi: a required input of Resize-11 (0 gradient
                                         * unless tf_crop_and_resize); later only where used */
                                        if (!v10 && (opset == 11 || cms[ci] == DRS_COORD_TF_CROP_AND_RESIZE))
                                            op.n_roi = 2 * nax;
                                        add(s, opname, drs_interp_mode_str(m), &op);
                                    }
    }
}

/* ---- PyTorch preset ---- */
static void enum_torch(sweep *s)
{
    static const char *const names[] = {"nearest", "nearest-exact", "linear", "bilinear",
                                         "bicubic", "trilinear",     "area"};
    for (int m = 0; m <= DRS_TORCH_AREA; m++)
        for (int al = -1; al <= 1; al++)
            for (int aa = 0; aa < 2; aa++)
                /* 0 size per axis, 1 size broadcast, 2..4 scale_factor (broadcast)
                 * with recompute_scale_factor None/0/1, 5 scale_factor per axis */
                for (int sz = 0; sz < 6; sz++)
                    for (int rank = 3; rank <= 5; rank++) {
                        const int need = m == DRS_TORCH_LINEAR ? 3
                                         : (m == DRS_TORCH_BILINEAR || m == DRS_TORCH_BICUBIC) ? 4
                                         : m == DRS_TORCH_TRILINEAR ? 5 : 0;
                        if (need && rank != need)
                            continue; /* the mode fixes the rank (DRS_ERR_SHAPE otherwise) */
                        drs_gc_op op = drs_gc_op_init(DRS_GC_TORCH, 0);
                        drs_torch_interpolate_attrs *a = &op.torch;
                        a->mode = (drs_torch_mode)m;
                        a->align_corners = al;
                        a->antialias = aa;
                        op.rank = rank;
                        data_shape(rank, s->quick, op.shape);
                        const int nsp = rank - 2;
                        if (sz <= 1) {
                            a->n_size = sz == 0 ? nsp : 1;
                            for (int i = 0; i < nsp; i++)
                                a->size[i] = target_size(op.shape[i + 2], i);
                        } else {
                            a->n_scale_factor = sz == 5 ? nsp : 1;
                            for (int i = 0; i < 3; i++)
                                a->scale_factor[i] = i % 2 ? 0.61 : 1.7;
                            a->recompute_scale_factor = sz == 5 ? -1 : sz - 3;
                        }
                        add(s, "TorchInterpolate", names[m], &op);
                    }
}

/* ---- GridSample-9/16/20/22 ---- */
static void enum_grid(sweep *s, int version)
{
    static const char *const names[] = {"bilinear", "nearest", "bicubic"};
    char opname[32];
    snprintf(opname, sizeof opname, "GridSample-%d", version);
    for (int m = 0; m < 3; m++)
        for (int p = 0; p < 3; p++)
            for (int al = 0; al < 2; al++)
                for (int rank = 3; rank <= 5; rank++) {
                    if ((version == 9 || version == 16) && rank != 4)
                        continue; /* 4-D only (DRS_ERR_SHAPE otherwise) */
                    drs_gc_op op = drs_gc_op_init(DRS_GC_GRID_SAMPLE, version);
                    op.grid.mode = (drs_grid_mode)m;
                    op.grid.padding_mode = (drs_grid_padding)p;
                    op.grid.align_corners = al;
                    op.rank = rank;
                    data_shape(rank, s->quick, op.shape);
                    /* grid [N, out spatial..., S]: output spatial sizes 3, 4, 2 */
                    static const int64_t osp[3] = {3, 4, 2};
                    op.grid_rank = rank;
                    op.grid_shape[0] = op.shape[0];
                    for (int i = 1; i < rank - 1; i++)
                        op.grid_shape[i] = osp[i - 1];
                    op.grid_shape[rank - 1] = rank - 2;
                    add(s, opname, names[m], &op);
                }
}

static const char *const all_ops[] = {
    "Interpolate-1", "Interpolate-4", "Interpolate-11", "InterpolateBackprop-4",
    "Resize-10",     "Resize-11",     "Resize-13",      "Resize-18",
    "Resize-19",     "TorchInterpolate", "GridSample-9", "GridSample-16",
    "GridSample-20", "GridSample-22"};

static void enumerate(sweep *s)
{
    enum_interpolate(s, 1, 0);
    enum_interpolate(s, 4, 0);
    enum_interpolate(s, 11, 0);
    enum_interpolate(s, 4, 1);
    enum_resize(s, 10);
    enum_resize(s, 11);
    enum_resize(s, 13);
    enum_resize(s, 18);
    enum_resize(s, 19);
    enum_torch(s);
    enum_grid(s, 9);
    enum_grid(s, 16);
    enum_grid(s, 20);
    enum_grid(s, 22);
}

/* ---------------------------------------------------------------- run */
enum { R_NOT_RUN = 0, R_PASS, R_FAIL };

typedef struct result {
    int state;
    drs_gc_op sampled; /* the case with its drawn scales/roi (for reports) */
    int grad[4]; /* data, scales, roi, grid: -1 absent, else drs_gc_kind summary */
    double worst_ratio, worst_abs;
    drs_gc_avoid avoid;
    char *msg; /* failures only */
} result;

static uint64_t fnv1a(const char *t)
{
    uint64_t h = 1469598103934665603ull;
    for (; *t; t++)
        h = (h ^ (unsigned char)*t) * 1099511628211ull;
    return h;
}

static char *dupf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
static char *dupf(const char *fmt, ...)
{
    char b[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b, sizeof b, fmt, ap);
    va_end(ap);
    char *r = malloc(strlen(b) + 1);
    if (r)
        strcpy(r, b);
    return r;
}

static void run_one(const combo *cb, result *res, uint64_t seed, int fast)
{
    char desc[600];
    drs_gc_op_describe(&cb->op, desc, sizeof desc);
    drs_gc_case c;
    memset(res, 0, sizeof *res);
    drs_status st = drs_gc_case_prepare(&c, &cb->op, seed ^ fnv1a(desc), &res->avoid);
    if (st) { /* validated before: the sampled parameters made it invalid */
        res->state = R_FAIL;
        res->msg = dupf("%s\n    the library rejected a combination with %s: %s", desc,
                        drs_status_str(st), drs_last_error());
        return;
    }
    drs_gc_options o = drs_gc_options_default();
    o.seed = seed ^ fnv1a(desc);
    o.fast_mode = fast;
    drs_gc_report rep;
    st = drs_gradcheck(&c.fn, &o, &rep);
    res->sampled = c.op;
    res->grad[0] = c.grad_data;
    res->grad[1] = c.grad_scales;
    res->grad[2] = c.grad_roi;
    res->grad[3] = c.grad_grid;
    if (st) {
        res->state = R_FAIL;
        res->msg = dupf("%s\n    gradcheck could not run: %s", desc, drs_status_str(st));
    } else if (!rep.passed) {
        char full[600];
        drs_gc_op_describe(&c.op, full, sizeof full); /* with the sampled scales/roi */
        res->state = R_FAIL;
        const drs_gc_entry *w = &rep.worst;
        res->msg = dupf("%s\n    %s%s%s\n    worst: %s[%lld] output %lld: analytic %.12g numeric %.12g",
                        full, rep.message, c.error[0] ? "; library: " : "", c.error,
                        w->input >= 0 ? c.fn.in[w->input].name : "-", (long long)w->index,
                        (long long)w->out_index, w->analytic, w->numeric);
        res->worst_ratio = rep.max_err_ratio;
        res->worst_abs = rep.max_abs_err;
    } else {
        res->state = R_PASS;
        res->worst_ratio = rep.max_err_ratio;
        res->worst_abs = rep.max_abs_err;
    }
    drs_gc_case_free(&c);
}

typedef struct pick {
    int row;
    uint64_t hash;
    int64_t idx;
} pick;

static int pick_cmp(const void *a, const void *b)
{
    const pick *x = a, *y = b;
    if (x->row != y->row)
        return x->row < y->row ? -1 : 1;
    if (x->hash != y->hash)
        return x->hash < y->hash ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

#define GC_USAGE "dresample gradcheck [--op OP] [--quick] [--fast] [--verbose] [--seed N]"

static int usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "dresample: error: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (usage: " GC_USAGE ")\n");
    return 2;
}

static void help(void)
{
    printf("usage: " GC_USAGE "\n"
           "  Checks every gradient of every valid op combination against float64 central\n"
           "  differences (eps 1e-6, atol 1e-5, rtol 1e-3) and prints a summary table.\n"
           "  --op OP     one op:");
    for (size_t k = 0; k < sizeof all_ops / sizeof all_ops[0]; k++)
        printf(" %s", all_ops[k]);
    printf("\n  --quick     a deterministic subset (<= 40 valid combinations per op and mode,\n"
           "              small shapes)\n"
           "  --fast      v^T J u with random unit u, v instead of the full Jacobian\n"
           "  --verbose   one line per checked combination\n"
           "  --seed N    other random data and parameter draws (default 1)\n"
           "Exit status: 0 all passed, 1 a failure, 2 usage error.\n");
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void progress(int64_t done, int64_t total, double t0)
{
    const int W = 40;
    const int fill = total ? (int)(W * done / total) : W;
    char bar[64];
    for (int i = 0; i < W; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[W] = 0;
    fprintf(stderr, "\r[%s] %lld/%lld  %.1fs ", bar, (long long)done, (long long)total,
            now() - t0);
    fflush(stderr);
}

static const char *kind_str(int k)
{
    return k == DRS_GC_CHECK ? "fd" : k == DRS_GC_ZERO ? "zero" : "skip";
}

int drs_cli_gradcheck(int argc, char **argv)
{
    sweep s;
    memset(&s, 0, sizeof s);
    s.ok_alloc = 1;
    int verbose = 0, fast = 0;
    uint64_t seed = 1;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            s.quick = 1;
        else if (!strcmp(argv[i], "--verbose"))
            verbose = 1;
        else if (!strcmp(argv[i], "--fast"))
            fast = 1;
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            help();
            return 0;
        }
        else if (!strcmp(argv[i], "--op")) {
            if (i + 1 >= argc)
                return usage("--op needs a value%s", "");
            s.only = argv[++i];
            int known = 0;
            for (size_t k = 0; k < sizeof all_ops / sizeof all_ops[0]; k++)
                known |= !strcmp(all_ops[k], s.only);
            if (!known)
                return usage("unknown op '%s' for gradcheck (dresample gradcheck --help lists them)",
                             s.only);
        } else if (!strcmp(argv[i], "--seed")) {
            char *end;
            if (i + 1 >= argc)
                return usage("--seed needs a value%s", "");
            seed = strtoull(argv[++i], &end, 10);
            if (*end || !*argv[i])
                return usage("--seed: not a number: '%s'", argv[i]);
        } else {
            return usage("unknown gradcheck argument '%s'", argv[i]);
        }
    }
    enumerate(&s);
    if (!s.ok_alloc) {
        fprintf(stderr, "dresample: error: out of memory\n");
        free(s.c);
        free(s.rows);
        return 1;
    }
    result *res = calloc((size_t)s.n + 1, sizeof *res);
    if (!res) {
        fprintf(stderr, "dresample: error: out of memory\n");
        free(s.c);
        free(s.rows);
        return 1;
    }
    const int tty = isatty(STDERR_FILENO);
    const double t0 = now();

    /* Every combination is put to the library first (cheap: shape
     * inference only); DRS_ERR_INVALID_ARGUMENT marks it invalid.  --quick
     * then keeps, per row, the QUICK_PER_ROW valid combinations with the
     * smallest hash of their description (deterministic and well spread), so
     * every row is still exercised. */
    unsigned char *run = malloc((size_t)s.n + 1), *valid = malloc((size_t)s.n + 1);
    pick *pk = malloc(sizeof(pick) * ((size_t)s.n + 1));
    if (!run || !valid || !pk) {
        fprintf(stderr, "dresample: error: out of memory\n");
        free(run);
        free(valid);
        free(pk);
        free(res);
        free(s.c);
        free(s.rows);
        return 1;
    }
    int64_t np = 0;
    for (int64_t i = 0; i < s.n; i++) {
        valid[i] = drs_gc_op_validate(&s.c[i].op) != DRS_ERR_INVALID_ARGUMENT;
        run[i] = valid[i] && !s.quick; /* other errors run, and fail there */
        if (valid[i] && s.quick) {
            char d[600];
            drs_gc_op_describe(&s.c[i].op, d, sizeof d);
            pk[np++] = (pick){s.c[i].row, fnv1a(d), i};
        }
    }
    if (s.quick) {
        enum { QUICK_PER_ROW = 40 };
        qsort(pk, (size_t)np, sizeof *pk, pick_cmp);
        for (int64_t k = 0, in_row = 0; k < np; k++) {
            in_row = (k > 0 && pk[k].row == pk[k - 1].row) ? in_row + 1 : 0;
            if (in_row < QUICK_PER_ROW)
                run[pk[k].idx] = 1;
        }
    }

    int64_t done = 0, total = 0;
    for (int64_t i = 0; i < s.n; i++)
        total += run[i];
    if (tty)
        progress(0, total, t0);
#pragma omp parallel for schedule(dynamic, 4)
    for (int64_t i = 0; i < s.n; i++) {
        if (!run[i])
            continue;
        run_one(&s.c[i], &res[i], seed, fast);
        if (tty) {
#pragma omp critical(drs_gc_progress)
            {
                done++;
                if (done % 64 == 0 || done == total)
                    progress(done, total, t0);
            }
        }
    }
    if (tty)
        fprintf(stderr, "\n");
    const double elapsed = now() - t0;

    /* ---- collect ---- */
    drs_gc_avoid avoid;
    memset(&avoid, 0, sizeof avoid);
    int64_t nfail = 0;
    for (int64_t i = 0; i < s.n; i++) {
        row *r = &s.rows[s.c[i].row];
        r->combos++;
        if (!valid[i]) {
            r->invalid++;
            continue;
        }
        if (!run[i])
            continue;
        const result *x = &res[i];
        drs_gc_avoid_add(&avoid, &x->avoid);
        r->checked++;
        if (x->state != R_PASS) {
            r->failed++;
            nfail++;
            printf("FAIL %s\n", x->msg ? x->msg : "(out of memory)");
        } else {
            r->passed++;
        }
        int64_t *cnt[4] = {&r->n_data, &r->n_scales, &r->n_roi, &r->n_grid};
        for (int k = 0; k < 4; k++) {
            if (x->grad[k] == DRS_GC_CHECK)
                (*cnt[k])++;
            else if (x->grad[k] == DRS_GC_ZERO)
                r->n_zero++;
        }
        if (x->worst_ratio > r->worst_ratio) {
            r->worst_ratio = x->worst_ratio;
            drs_gc_op_describe(&x->sampled, r->worst_case, sizeof r->worst_case);
        }
        if (x->worst_abs > r->worst_abs)
            r->worst_abs = x->worst_abs;
        if (verbose) {
            char d[600];
            drs_gc_op_describe(x->state == R_PASS ? &x->sampled : &s.c[i].op, d, sizeof d);
            printf("%s %s [data %s, scales %s, roi %s, grid %s] draws %lld/%lld err/tol %.3g\n",
                   x->state == R_PASS ? "ok  " : "FAIL", d, x->grad[0] < 0 ? "-" : kind_str(x->grad[0]),
                   x->grad[1] < 0 ? "-" : kind_str(x->grad[1]),
                   x->grad[2] < 0 ? "-" : kind_str(x->grad[2]),
                   x->grad[3] < 0 ? "-" : kind_str(x->grad[3]), (long long)x->avoid.accepted,
                   (long long)x->avoid.candidates, x->worst_ratio);
        }
    }

    /* ---- summary ---- */
    printf("\ndresample gradcheck%s%s%s%s: float64 central differences (eps 1e-6), %s, "
           "atol 1e-5, rtol 1e-3\n",
           s.quick ? " --quick" : "", fast ? " --fast" : "", s.only ? " --op " : "",
           s.only ? s.only : "", fast ? "v^T J u (2 probes)" : "full Jacobian");
    printf("%-22s %-16s %6s %7s %6s %7s %6s %6s | %6s %6s %5s %6s %5s | %8s %8s\n", "op", "mode",
           "combos", "invalid", "valid", "checked", "passed", "failed", "d_data", "d_scal", "d_roi",
           "d_grid", "zero", "err/tol", "max|err|");
    int64_t T[12] = {0};
    for (int i = 0; i < s.nrows; i++) {
        const row *r = &s.rows[i];
        const int64_t v[11] = {r->combos,  r->invalid, r->combos - r->invalid, r->checked,
                               r->passed,  r->failed,  r->n_data,  r->n_scales,
                               r->n_roi,   r->n_grid,  r->n_zero};
        for (int k = 0; k < 11; k++)
            T[k] += v[k];
        if (r->combos == r->invalid)
            continue; /* a mode the op does not have: listed below */
        printf("%-22s %-16s %6lld %7lld %6lld %7lld %6lld %6lld | %6lld %6lld %5lld %6lld %5lld | "
               "%8.1e %8.1e\n",
               r->op, r->mode, (long long)v[0], (long long)v[1], (long long)v[2], (long long)v[3],
               (long long)v[4], (long long)v[5], (long long)v[6], (long long)v[7], (long long)v[8],
               (long long)v[9], (long long)v[10], r->worst_ratio, r->worst_abs);
    }
    printf("%-22s %-16s %6lld %7lld %6lld %7lld %6lld %6lld | %6lld %6lld %5lld %6lld %5lld |\n",
           "total", "", (long long)T[0], (long long)T[1], (long long)T[2], (long long)T[3],
           (long long)T[4], (long long)T[5], (long long)T[6], (long long)T[7], (long long)T[8],
           (long long)T[9], (long long)T[10]);
    int first = 1;
    for (int i = 0; i < s.nrows; i++) {
        const row *r = &s.rows[i];
        if (r->combos && r->combos == r->invalid) {
            printf("%s%s %s (%lld)", first ? "modes the op rejects in every combination (asked, "
                                             "counted as invalid): " : ", ",
                   r->op, r->mode, (long long)r->combos);
            first = 0;
        }
    }
    if (!first)
        printf("\n");
    printf("columns: d_* = combinations whose data/scales/roi/grid gradient was compared with "
           "differences; zero = gradients checked to be exactly 0 (see docs/semantics.md)\n");
    printf("kink-aware sampling: %lld draws, %lld accepted; rejected:", (long long)avoid.candidates,
           (long long)avoid.accepted);
    for (int k = 0; k < DRS_GC_AVOID_COUNT; k++)
        printf("%s %lld %s", k ? "," : "", (long long)avoid.rejected[k],
               drs_gc_avoid_reason_str((drs_gc_avoid_reason)k));
    printf("; %lld fixed values on a kink left unchecked\n", (long long)avoid.fixed_on_kink);
    /* every op must have had valid combinations checked */
    int unexercised = 0;
    for (size_t k = 0; k < sizeof all_ops / sizeof all_ops[0]; k++) {
        if (s.only && strcmp(s.only, all_ops[k]))
            continue;
        int64_t checked = 0;
        for (int i = 0; i < s.nrows; i++)
            if (!strcmp(s.rows[i].op, all_ops[k]))
                checked += s.rows[i].passed;
        if (checked == 0) {
            printf("FAIL %s: no valid combination was checked\n", all_ops[k]);
            unexercised++;
        }
    }
    int wr = -1;
    for (int i = 0; i < s.nrows; i++)
        if (s.rows[i].checked && (wr < 0 || s.rows[i].worst_ratio > s.rows[wr].worst_ratio))
            wr = i;
    if (wr >= 0)
        printf("closest to the tolerance (err/tol %.2g): %s\n", s.rows[wr].worst_ratio,
               s.rows[wr].worst_case);
    printf("%lld combinations: %lld invalid (skipped), %lld valid, %lld checked, %lld failed; "
           "%.1f s\n", (long long)T[0], (long long)T[1], (long long)T[2], (long long)T[3],
           (long long)T[5], elapsed);
    for (int64_t i = 0; i < s.n; i++)
        free(res[i].msg);
    free(res);
    free(run);
    free(valid);
    free(pk);
    free(s.c);
    free(s.rows);
    return (nfail || unexercised) ? 1 : 0;
}
