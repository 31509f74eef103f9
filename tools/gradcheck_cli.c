/* SPDX-License-Identifier: MIT */
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
    uint64_t case_seed; /* the seed of the case (its reproduce line's --seed) */
    int64_t n_kink;     /* values compared with one-sided differences */
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
    res->sampled = cb->op;
    res->case_seed = seed ^ fnv1a(desc);
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
    res->n_kink = rep.n_kink;
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
        res->msg = dupf("%s\n    %s\n    worst: %s[%lld] output %lld: analytic %.12g numeric %.12g",
                        full, rep.message,
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

#define GC_USAGE                                                                             \
    "dresample gradcheck [--op OP] [--quick] [--fast] [--verbose] [--seed N] "                \
    "[--max-failures N] [--json FILE] | dresample gradcheck OP [--attr NAME=VALUE]... "        \
    "[--in PORT=FILE.npy|v1,v2,...]... [--shape d0,d1,...] [--grid-shape ...] [--seed N] "    \
    "[--fast]"

static int usage(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
static int usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "dresample: error: ");
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (usage: " GC_USAGE ")\n");
    return 2;
}

/* ------------------------------------------------- one configuration
 * `dresample gradcheck OP [--attr NAME=VALUE]... [--in PORT=VALUE]...` with
 * the attribute and port names of `dresample run`.  A port's VALUE is a .npy
 * file or, for the 1-D ports, a comma-separated list (scales=1,1,1.9,2.1).
 * Without a data file --shape d0,d1,... gives the data shape (uniform random
 * data in [-1, 1] from --seed); GridSample without a grid file takes
 * --grid-shape (random points away from kinks).  The scales, roi and grid
 * given are kept as they are: values on or near a kink or a size step are
 * compared with one-sided differences (the library's kink rule).  The sweep's
 * reproduce lines use this form. */
#include "npy.h"

typedef struct op_name {
    const char *name;
    drs_gc_family fam;
    int version;
    const char *data_port;
} op_name;

static const op_name op_names[] = {
    {"Interpolate-1", DRS_GC_INTERPOLATE, 1, "data"},
    {"Interpolate-4", DRS_GC_INTERPOLATE, 4, "data"},
    {"Interpolate-11", DRS_GC_INTERPOLATE, 11, "image"},
    {"InterpolateBackprop-4", DRS_GC_INTERPOLATE_BACKPROP, 4, "data"},
    {"Resize-10", DRS_GC_RESIZE, 10, "X"},
    {"Resize-11", DRS_GC_RESIZE, 11, "X"},
    {"Resize-13", DRS_GC_RESIZE, 13, "X"},
    {"Resize-18", DRS_GC_RESIZE, 18, "X"},
    {"Resize-19", DRS_GC_RESIZE, 19, "X"},
    {"TorchInterpolate", DRS_GC_TORCH, 0, "input"},
    {"GridSample-9", DRS_GC_GRID_SAMPLE, 9, "data"},
    {"GridSample-16", DRS_GC_GRID_SAMPLE, 16, "X"},
    {"GridSample-20", DRS_GC_GRID_SAMPLE, 20, "X"},
    {"GridSample-22", DRS_GC_GRID_SAMPLE, 22, "X"}};
#define N_OP_NAMES ((int)(sizeof op_names / sizeof op_names[0]))

static const op_name *op_name_of(const drs_gc_op *op)
{
    for (int i = 0; i < N_OP_NAMES; i++) {
        const op_name *n = &op_names[i];
        if (n->fam != op->family)
            continue;
        const int v = op->family == DRS_GC_INTERPOLATE ? op->interp.version
                      : op->family == DRS_GC_RESIZE    ? op->resize.opset
                      : op->family == DRS_GC_GRID_SAMPLE ? op->grid.version
                      : n->version;
        if (v == n->version)
            return n;
    }
    return &op_names[0];
}

static const char *const torch_modes[] = {"nearest", "nearest-exact", "linear", "bilinear",
                                          "bicubic", "trilinear",     "area"};
static const char *const aspect_names[] = {"stretch", "not_larger", "not_smaller"};

typedef struct sbuf {
    char *b;
    size_t n, k;
} sbuf;

static void sb_add(sbuf *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void sb_add(sbuf *s, const char *fmt, ...)
{
    if (s->k >= s->n)
        return;
    va_list ap;
    va_start(ap, fmt);
    const int w = vsnprintf(s->b + s->k, s->n - s->k, fmt, ap);
    va_end(ap);
    s->k = w < 0 ? s->n : (s->k + (size_t)w < s->n ? s->k + (size_t)w : s->n);
}

static void sb_ints(sbuf *s, const int64_t *v, int n)
{
    for (int i = 0; i < n; i++)
        sb_add(s, i ? ",%lld" : "%lld", (long long)v[i]);
}

/* The shortest of %.15g .. %.17g that reads back as the same double. */
static void sb_dbls(sbuf *s, const double *v, int n)
{
    for (int i = 0; i < n; i++) {
        char t[40];
        for (int p = 15; p <= 17; p++) {
            snprintf(t, sizeof t, "%.*g", p, v[i]);
            if (strtod(t, NULL) == v[i])
                break;
        }
        sb_add(s, i ? ",%s" : "%s", t);
    }
}

/* "OP --attr NAME=VALUE ...": every attribute of the case, spelled as
 * `dresample run` takes them (the group label of the sweep's failures). */
static void op_attr_args(const drs_gc_op *op, sbuf *s)
{
    sb_add(s, "%s", op_name_of(op)->name);
    switch (op->family) {
    case DRS_GC_INTERPOLATE:
    case DRS_GC_INTERPOLATE_BACKPROP: {
        const drs_interpolate_attrs *a = &op->interp;
        sb_add(s, " --attr mode=%s", drs_interp_mode_str(a->mode));
        if (a->version == 1) {
            sb_add(s, " --attr axes=");
            sb_ints(s, op->axes, op->n_axes);
            sb_add(s, " --attr align_corners=%d", a->align_corners);
        } else {
            sb_add(s, " --attr shape_calculation_mode=%s",
                   a->shape_calculation_mode == DRS_SHAPE_SCALES ? "scales" : "sizes");
            sb_add(s, " --attr coordinate_transformation_mode=%s",
                   drs_coord_mode_str(a->coordinate_transformation_mode));
            sb_add(s, " --attr nearest_mode=%s", drs_nearest_mode_str(a->nearest_mode));
            sb_add(s, " --attr cube_coeff=");
            sb_dbls(s, &a->cube_coeff, 1);
        }
        sb_add(s, " --attr antialias=%d", a->antialias);
        if (a->n_pads_begin) {
            sb_add(s, " --attr pads_begin=");
            sb_ints(s, a->pads_begin, a->n_pads_begin);
        }
        if (a->n_pads_end) {
            sb_add(s, " --attr pads_end=");
            sb_ints(s, a->pads_end, a->n_pads_end);
        }
        break;
    }
    case DRS_GC_RESIZE: {
        const drs_resize_attrs *a = &op->resize;
        sb_add(s, " --attr mode=%s", drs_interp_mode_str(a->mode));
        if (a->opset == 10)
            break;
        sb_add(s, " --attr coordinate_transformation_mode=%s",
               drs_coord_mode_str(a->coordinate_transformation_mode));
        sb_add(s, " --attr nearest_mode=%s", drs_nearest_mode_str(a->nearest_mode));
        sb_add(s, " --attr cubic_coeff_a=");
        sb_dbls(s, &a->cubic_coeff_a, 1);
        sb_add(s, " --attr exclude_outside=%d --attr extrapolation_value=", a->exclude_outside);
        sb_dbls(s, &a->extrapolation_value, 1);
        if (a->opset >= 18) {
            sb_add(s, " --attr antialias=%d --attr keep_aspect_ratio_policy=%s", a->antialias,
                   aspect_names[a->keep_aspect_ratio_policy]);
            if (a->n_axes) {
                sb_add(s, " --attr axes=");
                sb_ints(s, a->axes, a->n_axes);
            }
        }
        break;
    }
    case DRS_GC_TORCH: {
        const drs_torch_interpolate_attrs *a = &op->torch;
        sb_add(s, " --attr mode=%s", torch_modes[a->mode]);
        if (a->align_corners >= 0)
            sb_add(s, " --attr align_corners=%d", a->align_corners);
        sb_add(s, " --attr antialias=%d", a->antialias);
        if (a->n_size) {
            sb_add(s, " --attr size=");
            sb_ints(s, a->size, a->n_size);
        }
        if (a->n_scale_factor) {
            sb_add(s, " --attr scale_factor=");
            sb_dbls(s, a->scale_factor, a->n_scale_factor);
        }
        if (a->recompute_scale_factor >= 0)
            sb_add(s, " --attr recompute_scale_factor=%d", a->recompute_scale_factor);
        break;
    }
    case DRS_GC_GRID_SAMPLE: {
        const drs_grid_sample_attrs *a = &op->grid;
        sb_add(s, " --attr mode=%s --attr padding_mode=%s --attr align_corners=%d",
               drs_grid_mode_str(a->mode, a->version), drs_grid_padding_str(a->padding_mode),
               a->align_corners);
        break;
    }
    }
}

/* " --in PORT=v,... --shape ..." : the inputs of the case. */
static void op_input_args(const drs_gc_op *op, sbuf *s)
{
    if (op->family == DRS_GC_INTERPOLATE || op->family == DRS_GC_INTERPOLATE_BACKPROP) {
        const drs_interpolate_attrs *a = &op->interp;
        if (a->version == 1) {
            sb_add(s, " --in target_spatial_shape=");
            sb_ints(s, op->sizes, op->n_sizes);
        } else if (a->version == 11) {
            sb_add(s, " --in scales_or_sizes=");
            if (a->shape_calculation_mode == DRS_SHAPE_SCALES)
                sb_dbls(s, op->scales, op->n_scales);
            else
                sb_ints(s, op->sizes, op->n_sizes);
        } else {
            if (op->n_sizes) {
                sb_add(s, " --in sizes=");
                sb_ints(s, op->sizes, op->n_sizes);
            }
            if (op->n_scales) {
                sb_add(s, " --in scales=");
                sb_dbls(s, op->scales, op->n_scales);
            }
        }
        if (a->version != 1 && op->n_axes) {
            sb_add(s, " --in axes=");
            sb_ints(s, op->axes, op->n_axes);
        }
    } else if (op->family == DRS_GC_RESIZE) {
        if (op->n_roi) {
            sb_add(s, " --in roi=");
            sb_dbls(s, op->roi, op->n_roi);
        }
        if (op->n_scales) {
            sb_add(s, " --in scales=");
            sb_dbls(s, op->scales, op->n_scales);
        }
        if (op->n_sizes) {
            sb_add(s, " --in sizes=");
            sb_ints(s, op->sizes, op->n_sizes);
        }
    }
    sb_add(s, " --shape ");
    sb_ints(s, op->shape, op->rank);
    if (op->family == DRS_GC_GRID_SAMPLE) {
        sb_add(s, " --grid-shape ");
        sb_ints(s, op->grid_shape, op->grid_rank);
    }
}

/* The command line that reruns exactly this case. */
static void op_command(const drs_gc_op *op, uint64_t case_seed, int fast, char *buf, size_t n)
{
    sbuf s = {buf, n, 0};
    buf[0] = 0;
    sb_add(&s, "dresample gradcheck ");
    op_attr_args(op, &s);
    op_input_args(op, &s);
    sb_add(&s, " --seed %llu%s", (unsigned long long)case_seed, fast ? " --fast" : "");
}

static int split_list(const char *v, int is_int, int64_t *vi, double *vd, int max, int *n)
{
    *n = 0;
    const char *p = v;
    if (!*p)
        return 0;
    for (;;) {
        if (*n >= max)
            return 0;
        char *end;
        if (is_int) {
            const long long x = strtoll(p, &end, 10);
            vi[*n] = x;
        } else {
            vd[*n] = strtod(p, &end);
        }
        if (end == p)
            return 0;
        (*n)++;
        if (*end == 0)
            return 1;
        if (*end != ',')
            return 0;
        p = end + 1;
    }
}

static int parse_flag(const char *v, int *out)
{
    if (!strcmp(v, "1") || !strcmp(v, "true"))
        *out = 1;
    else if (!strcmp(v, "0") || !strcmp(v, "false"))
        *out = 0;
    else
        return 0;
    return 1;
}

static int parse_num(const char *v, double *out)
{
    char *end;
    *out = strtod(v, &end);
    return end != v && *end == 0;
}

/* Sets one attribute: 0 ok, 1 unknown name, 2 bad value. */
static int set_attr(drs_gc_op *op, const char *name, const char *v)
{
    int e, n = 0;
    double d;
#define ENUM(field, fn)                                                                          \
    do {                                                                                       \
        if ((e = fn(v)) < 0)                                                                   \
            return 2;                                                                          \
        field = e;                                                                             \
        return 0;                                                                              \
    } while (0)
    switch (op->family) {
    case DRS_GC_INTERPOLATE:
    case DRS_GC_INTERPOLATE_BACKPROP: {
        drs_interpolate_attrs *a = &op->interp;
        if (!strcmp(name, "mode"))
            ENUM(a->mode, drs_interp_mode_from_str);
        if (!strcmp(name, "shape_calculation_mode") && a->version != 1)
            ENUM(a->shape_calculation_mode, drs_shape_calc_from_str);
        if (!strcmp(name, "coordinate_transformation_mode") && a->version != 1)
            ENUM(a->coordinate_transformation_mode, drs_coord_mode_from_str);
        if (!strcmp(name, "nearest_mode") && a->version != 1)
            ENUM(a->nearest_mode, drs_nearest_mode_from_str);
        if (!strcmp(name, "antialias"))
            return parse_flag(v, &a->antialias) ? 0 : 2;
        if (!strcmp(name, "align_corners") && a->version == 1)
            return parse_flag(v, &a->align_corners) ? 0 : 2;
        if (!strcmp(name, "cube_coeff") && a->version != 1)
            return parse_num(v, &a->cube_coeff) ? 0 : 2;
        if (!strcmp(name, "pads_begin"))
            return split_list(v, 1, a->pads_begin, NULL, DRS_MAX_RANK, &a->n_pads_begin) ? 0 : 2;
        if (!strcmp(name, "pads_end"))
            return split_list(v, 1, a->pads_end, NULL, DRS_MAX_RANK, &a->n_pads_end) ? 0 : 2;
        if (!strcmp(name, "axes") && a->version == 1)
            return split_list(v, 1, op->axes, NULL, DRS_MAX_RANK, &op->n_axes) ? 0 : 2;
        return 1;
    }
    case DRS_GC_RESIZE: {
        drs_resize_attrs *a = &op->resize;
        if (!strcmp(name, "mode"))
            ENUM(a->mode, drs_interp_mode_from_str);
        if (a->opset == 10)
            return 1;
        if (!strcmp(name, "coordinate_transformation_mode"))
            ENUM(a->coordinate_transformation_mode, drs_coord_mode_from_str);
        if (!strcmp(name, "nearest_mode"))
            ENUM(a->nearest_mode, drs_nearest_mode_from_str);
        if (!strcmp(name, "cubic_coeff_a"))
            return parse_num(v, &a->cubic_coeff_a) ? 0 : 2;
        if (!strcmp(name, "exclude_outside"))
            return parse_flag(v, &a->exclude_outside) ? 0 : 2;
        if (!strcmp(name, "extrapolation_value"))
            return parse_num(v, &a->extrapolation_value) ? 0 : 2;
        if (a->opset < 18)
            return 1;
        if (!strcmp(name, "antialias"))
            return parse_flag(v, &a->antialias) ? 0 : 2;
        if (!strcmp(name, "keep_aspect_ratio_policy"))
            ENUM(a->keep_aspect_ratio_policy, drs_aspect_policy_from_str);
        if (!strcmp(name, "axes"))
            return split_list(v, 1, a->axes, NULL, DRS_MAX_RANK, &a->n_axes) ? 0 : 2;
        return 1;
    }
    case DRS_GC_TORCH: {
        drs_torch_interpolate_attrs *a = &op->torch;
        if (!strcmp(name, "mode"))
            ENUM(a->mode, drs_torch_mode_from_str);
        if (!strcmp(name, "align_corners"))
            return parse_flag(v, &a->align_corners) ? 0 : 2;
        if (!strcmp(name, "antialias"))
            return parse_flag(v, &a->antialias) ? 0 : 2;
        if (!strcmp(name, "recompute_scale_factor"))
            return parse_flag(v, &a->recompute_scale_factor) ? 0 : 2;
        if (!strcmp(name, "size"))
            return split_list(v, 1, a->size, NULL, 3, &a->n_size) ? 0 : 2;
        if (!strcmp(name, "scale_factor"))
            return split_list(v, 0, NULL, a->scale_factor, 3, &a->n_scale_factor) ? 0 : 2;
        return 1;
    }
    case DRS_GC_GRID_SAMPLE: {
        drs_grid_sample_attrs *a = &op->grid;
        if (!strcmp(name, "mode"))
            ENUM(a->mode, drs_grid_mode_from_str);
        if (!strcmp(name, "padding_mode"))
            ENUM(a->padding_mode, drs_grid_padding_from_str);
        if (!strcmp(name, "align_corners"))
            return parse_flag(v, &a->align_corners) ? 0 : 2;
        return 1;
    }
    }
#undef ENUM
    (void)n;
    (void)d;
    return 1;
}

typedef struct single_in {
    npy_array data, grid; /* .npy files given (owned) */
    int have_data, have_grid;
    double sos[DRS_MAX_RANK]; /* Interpolate-11 scales_or_sizes, resolved at the end */
    int n_sos;
} single_in;

/* A 1-D port from a list or a .npy file into ints or doubles. */
static int port_values(const char *v, int is_int, int64_t *vi, double *vd, int max, int *n,
                       char *err, size_t errlen)
{
    const size_t L = strlen(v);
    if (L > 4 && !strcmp(v + L - 4, ".npy")) {
        npy_array a;
        if (npy_load(v, NPY_ALLOW_SCALAR, &a, err, errlen) != DRS_OK)
            return 0;
        int64_t m = 1;
        for (int k = 0; k < a.t.rank; k++)
            m *= a.t.shape[k];
        if (a.t.rank != 1 || m > max) {
            snprintf(err, errlen, "%s: expected a 1-D array of at most %d values", v, max);
            npy_free(&a);
            return 0;
        }
        for (int64_t k = 0; k < m; k++) {
            double x;
            switch (a.t.dtype) {
            case DRS_F32: x = ((const float *)a.t.data)[k]; break;
            case DRS_F64: x = ((const double *)a.t.data)[k]; break;
            case DRS_U8: x = ((const uint8_t *)a.t.data)[k]; break;
            case DRS_I8: x = ((const int8_t *)a.t.data)[k]; break;
            case DRS_I32: x = ((const int32_t *)a.t.data)[k]; break;
            default: x = (double)((const int64_t *)a.t.data)[k]; break;
            }
            if (is_int && a.t.dtype != DRS_I64 && !(x == floor(x) && fabs(x) < 9.2e18)) {
                /* no float -> int conversion of NaN, inf, fractions or huge values */
                snprintf(err, errlen, "%s: element %lld (%g) is not an integer", v, (long long)k,
                         x);
                npy_free(&a);
                return 0;
            }
            if (is_int)
                vi[k] = a.t.dtype == DRS_I64 ? ((const int64_t *)a.t.data)[k] : (int64_t)x;
            else
                vd[k] = x;
        }
        *n = (int)m;
        npy_free(&a);
        return 1;
    }
    if (!split_list(v, is_int, vi, vd, max, n)) {
        snprintf(err, errlen, "not a comma-separated list of at most %d %s: '%s'", max,
                 is_int ? "integers" : "numbers", v);
        return 0;
    }
    return 1;
}

/* Sets one input port: 0 ok, 1 unknown port, 2 bad value (err says why). */
static int set_port(drs_gc_op *op, single_in *si, const char *name, const char *v, char *err,
                    size_t errlen)
{
    const op_name *on = op_name_of(op);
    if (!strcmp(name, on->data_port) || (op->family == DRS_GC_GRID_SAMPLE && !strcmp(name, "grid"))) {
        const int is_grid = strcmp(name, on->data_port) != 0;
        npy_array *a = is_grid ? &si->grid : &si->data;
        if (is_grid ? si->have_grid : si->have_data) {
            snprintf(err, errlen, "%s given twice", name);
            return 2;
        }
        if (npy_load(v, 0, a, err, errlen) != DRS_OK)
            return 2;
        if (a->t.dtype != DRS_F32 && a->t.dtype != DRS_F64) {
            snprintf(err, errlen, "%s: gradients need f32 or f64 data, got %s", v,
                     drs_dtype_name(a->t.dtype));
            npy_free(a);
            return 2;
        }
        if (is_grid) {
            si->have_grid = 1;
            op->grid_rank = a->t.rank;
            memcpy(op->grid_shape, a->t.shape, sizeof op->grid_shape);
        } else {
            si->have_data = 1;
            op->rank = a->t.rank;
            memcpy(op->shape, a->t.shape, sizeof op->shape);
        }
        return 0;
    }
    if (op->family == DRS_GC_INTERPOLATE || op->family == DRS_GC_INTERPOLATE_BACKPROP) {
        const int ver = op->interp.version;
        if (ver == 1 && !strcmp(name, "target_spatial_shape"))
            return port_values(v, 1, op->sizes, NULL, DRS_MAX_RANK, &op->n_sizes, err, errlen) ? 0 : 2;
        if (ver == 11 && !strcmp(name, "scales_or_sizes"))
            return port_values(v, 0, NULL, si->sos, DRS_MAX_RANK, &si->n_sos, err, errlen) ? 0 : 2;
        if (ver == 4 && !strcmp(name, "sizes"))
            return port_values(v, 1, op->sizes, NULL, DRS_MAX_RANK, &op->n_sizes, err, errlen) ? 0 : 2;
        if (ver == 4 && !strcmp(name, "scales"))
            return port_values(v, 0, NULL, op->scales, DRS_MAX_RANK, &op->n_scales, err, errlen) ? 0 : 2;
        if (ver != 1 && !strcmp(name, "axes"))
            return port_values(v, 1, op->axes, NULL, DRS_MAX_RANK, &op->n_axes, err, errlen) ? 0 : 2;
        return 1;
    }
    if (op->family == DRS_GC_RESIZE) {
        if (!strcmp(name, "roi") && op->resize.opset != 10)
            return port_values(v, 0, NULL, op->roi, 2 * DRS_MAX_RANK, &op->n_roi, err, errlen) ? 0 : 2;
        if (!strcmp(name, "scales"))
            return port_values(v, 0, NULL, op->scales, DRS_MAX_RANK, &op->n_scales, err, errlen) ? 0 : 2;
        if (!strcmp(name, "sizes") && op->resize.opset != 10)
            return port_values(v, 1, op->sizes, NULL, DRS_MAX_RANK, &op->n_sizes, err, errlen) ? 0 : 2;
    }
    return 1;
}

static const char *kind_word(int k)
{
    return k == DRS_GC_CHECK ? "central differences"
           : k == DRS_GC_ZERO ? "exactly 0"
           : k == DRS_GC_KINK ? "one-sided differences (on or near a kink)"
                              : "not checked";
}

/* Copies a loaded f32/f64 array into a double buffer of n elements. */
static void to_double(const npy_array *a, double *dst, int64_t n)
{
    for (int64_t k = 0; k < n; k++)
        dst[k] = a->t.dtype == DRS_F32 ? (double)((const float *)a->t.data)[k]
                                       : ((const double *)a->t.data)[k];
}

static int gc_single(int argc, char **argv)
{
    const op_name *on = NULL;
    for (int i = 0; i < N_OP_NAMES; i++)
        if (!strcmp(argv[0], op_names[i].name))
            on = &op_names[i];
    if (!on)
        return usage("unknown op '%s' for gradcheck (dresample gradcheck --help lists them)",
                     argv[0]);
    drs_gc_op op = drs_gc_op_init(on->fam, on->version);
    single_in si;
    memset(&si, 0, sizeof si);
    uint64_t seed = 1;
    int fast = 0, have_shape = 0, have_gshape = 0, rc = 0;
    char err[600];
    for (int i = 1; i < argc && !rc; i++) {
        const char *o = argv[i];
        if (!strcmp(o, "--fast")) {
            fast = 1;
            continue;
        }
        if (i + 1 >= argc) {
            rc = usage("%s needs a value", o);
            break;
        }
        const char *arg = argv[++i];
        if (!strcmp(o, "--seed")) {
            char *end;
            seed = strtoull(arg, &end, 10);
            if (*end || !*arg)
                rc = usage("--seed: not a number: '%s'", arg);
        } else if (!strcmp(o, "--shape") || !strcmp(o, "--grid-shape")) {
            const int g = o[2] == 'g';
            int n = 0;
            if (!split_list(arg, 1, g ? op.grid_shape : op.shape, NULL, DRS_MAX_RANK, &n) || n < 1)
                rc = usage("%s: not a list of 1 to 8 integers", o);
            else if (g) {
                op.grid_rank = n;
                have_gshape = 1;
            } else {
                op.rank = n;
                have_shape = 1;
            }
        } else if (!strcmp(o, "--attr") || !strcmp(o, "--in")) {
            const char *eq = strchr(arg, '=');
            char name[64];
            if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof name) {
                rc = usage("%s needs NAME=VALUE, got '%s'", o, arg);
                break;
            }
            memcpy(name, arg, (size_t)(eq - arg));
            name[eq - arg] = 0;
            err[0] = 0;
            const int r = o[2] == 'a' ? set_attr(&op, name, eq + 1)
                                      : set_port(&op, &si, name, eq + 1, err, sizeof err);
            if (r == 1)
                rc = usage(o[2] == 'a' ? "%s: no such attribute (dresample --help lists them)"
                                       : "%s: no such input port (dresample --help lists them)",
                           name);
            else if (r == 2) {
                fprintf(stderr, "dresample: error: %s %s: %s\n", o, arg,
                        err[0] ? err : "bad value");
                rc = 1;
            }
        } else {
            rc = usage("unknown gradcheck argument '%s'", o);
        }
    }
    if (!rc && !si.have_data && !have_shape)
        rc = usage("%s: give the data (--in %s=FILE.npy) or its shape (--shape d0,d1,...)",
                   on->name, on->data_port);
    if (!rc && on->fam == DRS_GC_GRID_SAMPLE && !si.have_grid && !have_gshape)
        rc = usage("%s: give the grid (--in grid=FILE.npy) or its shape (--grid-shape ...)",
                   on->name);
    if (!rc && si.have_data && have_shape)
        rc = usage("%s: --shape and a data file both given", on->name);
    if (rc) {
        npy_free(&si.data);
        npy_free(&si.grid);
        return rc;
    }
    if (si.n_sos) { /* Interpolate-11: scales or sizes per shape_calculation_mode */
        if (op.interp.shape_calculation_mode == DRS_SHAPE_SCALES) {
            op.n_scales = si.n_sos;
            memcpy(op.scales, si.sos, sizeof(double) * (size_t)si.n_sos);
        } else {
            op.n_sizes = si.n_sos;
            for (int k = 0; k < si.n_sos; k++) {
                const double x = si.sos[k];
                if (!(x == floor(x) && fabs(x) < 9.2e18)) {
                    npy_free(&si.data);
                    npy_free(&si.grid);
                    fprintf(stderr, "dresample: error: gradcheck: scales_or_sizes[%d] = %g is not "
                                    "an integer size (shape_calculation_mode=sizes)\n", k, x);
                    return 2;
                }
                op.sizes[k] = (int64_t)x;
            }
        }
    }
    for (int k = 0; k < DRS_MAX_RANK; k++)
        op.scale_fixed[k] = 1; /* the given values, not draws */
    op.roi_fixed = 1;

    char desc[600], cmd[2048];
    drs_gc_op_describe(&op, desc, sizeof desc);
    op_command(&op, seed, fast, cmd, sizeof cmd);
    printf("%s\n  case: %s\n", cmd, desc);
    drs_gc_case c;
    drs_gc_avoid av;
    memset(&av, 0, sizeof av);
    drs_status st = drs_gc_case_prepare(&c, &op, seed, &av);
    if (st) {
        printf("FAIL: the library rejects this call: %s: %s\n", drs_status_str(st),
               drs_last_error());
        npy_free(&si.data);
        npy_free(&si.grid);
        return 1;
    }
    if (si.have_data)
        to_double(&si.data, c.fn.in[0].value, c.fn.in[0].n);
    if (si.have_grid && c.idx_grid >= 0) {
        drs_gc_input *g = &c.fn.in[c.idx_grid];
        to_double(&si.grid, g->value, g->n);
        unsigned char *k = (unsigned char *)(uintptr_t)g->elem_kind;
        for (int64_t j = 0; j < g->n; j++) /* the user's points: one-sided differences */
            if (k[j] != DRS_GC_ZERO)
                k[j] = DRS_GC_KINK;
        c.grad_grid = op.grid.mode == DRS_GRID_NEAREST ? DRS_GC_ZERO : DRS_GC_CHECK;
    }
    npy_free(&si.data);
    npy_free(&si.grid);
    drs_gc_options o = drs_gc_options_default();
    o.seed = seed;
    o.fast_mode = fast;
    drs_gc_report rep;
    st = drs_gradcheck(&c.fn, &o, &rep);
    if (st) {
        printf("FAIL: gradcheck could not run: %s\n", drs_status_str(st));
        drs_gc_case_free(&c);
        return 1;
    }
    printf("  output shape:");
    for (int k = 0; k < c.out_rank; k++)
        printf(" %lld", (long long)c.out_shape[k]);
    printf("; %s, eps %g, atol %g, rtol %g\n", fast ? "v^T J u (2 probes)" : "full Jacobian",
           o.eps, o.atol, o.rtol);
    for (int i = 0; i < c.fn.n_inputs; i++) {
        const drs_gc_input *in = &c.fn.in[i];
        int64_t cnt[4] = {0};
        for (int64_t j = 0; j < in->n; j++)
            cnt[in->elem_kind ? in->elem_kind[j] : in->kind]++;
        printf("  %-7s %lld values:", in->name, (long long)in->n);
        const char *sep = " ";
        for (int k = 0; k < 4; k++)
            if (cnt[k]) {
                printf("%s%lld by %s", sep, (long long)cnt[k], kind_word(k));
                sep = ", ";
            }
        const drs_gc_entry *w = &rep.input_worst[i];
        if (w->input >= 0) {
            if (w->out_index >= 0)
                printf("\n          worst %s[%lld] (output %lld): analytic %.12g, numeric %.12g, "
                       "err/tol %.3g\n",
                       in->name, (long long)w->index, (long long)w->out_index, w->analytic,
                       w->numeric, rep.input_err_ratio[i]);
            else
                printf("\n          worst %s probe %lld: analytic %.12g, numeric %.12g, err/tol "
                       "%.3g\n",
                       in->name, (long long)w->index, w->analytic, w->numeric,
                       rep.input_err_ratio[i]);
        } else {
            printf("%s\n", cnt[DRS_GC_ZERO] ? " (checked to be 0.0 bit for bit)" : "");
        }
    }
    printf("  kinks: %lld values on or near a kink or a size step, compared with one-sided "
           "differences (%lld with one side only: the other changes the output size); where the "
           "sides differ, %lld entries matched the right side, %lld the left\n",
           (long long)rep.n_kink, (long long)rep.n_kink_one_side, (long long)rep.n_kink_right,
           (long long)rep.n_kink_left);
    if (rep.passed) {
        printf("PASS (max err/tol %.3g, %lld entries compared, %lld zero checks)\n",
               rep.max_err_ratio, (long long)rep.n_compared, (long long)rep.n_zero_checked);
    } else {
        printf("FAIL: %s\n", rep.message);
        if (rep.fail_input >= 0)
            printf("  while perturbing %s[%lld]\n", c.fn.in[rep.fail_input].name,
                   (long long)rep.fail_index);
        if (rep.error[0])
            printf("  library: %s\n", rep.error);
    }
    drs_gc_case_free(&c);
    return rep.passed ? 0 : 1;
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
           "  --max-failures N  print at most N groups of failures (default 10)\n"
           "  --json FILE every case's result (state, err/tol, message, reproduce command)\n"
           "Failures are grouped by op, mode and attribute set, each with a\n"
           "`dresample gradcheck OP ...` line that reruns its first case exactly.\n"
           "\n"
           "One configuration: dresample gradcheck OP --attr NAME=VALUE... --in PORT=VALUE...\n"
           "  (the names of `dresample run`; VALUE a .npy file or, for 1-D ports, a list\n"
           "  such as scales=1,1,1.9,2.1), --shape d0,d1,... for random data (no data file),\n"
           "  --grid-shape for a random grid, --seed N, --fast.  Checks every gradient of\n"
           "  that call (data, scales, roi, grid), prints the worst element of each, the\n"
           "  values on kinks and how they were checked, then PASS or FAIL.\n"
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
    return k == DRS_GC_CHECK ? "fd" : k == DRS_GC_ZERO ? "zero" : k == DRS_GC_KINK ? "kink" : "skip";
}

static void json_str(FILE *f, const char *t)
{
    if (!t) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    for (; *t; t++) {
        const unsigned char ch = (unsigned char)*t;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch == '\n')
            fputs("\\n", f);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

static void json_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.6g", v);
    else
        fputs("null", f);
}

/* Every case's result as JSON; 0 on success. */
static int write_json(const char *path, const sweep *s, const result *res,
                      const unsigned char *valid, const unsigned char *run, uint64_t seed,
                      int fast)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return 1;
    fprintf(f, "{\"seed\": %llu, \"quick\": %s, \"fast\": %s, \"cases\": [\n",
            (unsigned long long)seed, s->quick ? "true" : "false", fast ? "true" : "false");
    static const char *const gn[4] = {"data", "scales", "roi", "grid"};
    for (int64_t i = 0; i < s->n; i++) {
        const row *r = &s->rows[s->c[i].row];
        const result *x = &res[i];
        char d[600], cmd[2048];
        const int ran = valid[i] && run[i];
        drs_gc_op_describe(ran ? &x->sampled : &s->c[i].op, d, sizeof d);
        fprintf(f, "{\"index\": %lld, \"op\": ", (long long)i);
        json_str(f, r->op);
        fputs(", \"mode\": ", f);
        json_str(f, r->mode);
        fputs(", \"case\": ", f);
        json_str(f, d);
        fprintf(f, ", \"state\": \"%s\"",
                !valid[i] ? "invalid" : !run[i] ? "not_run" : x->state == R_PASS ? "pass" : "fail");
        if (ran) {
            fputs(", \"err_tol\": ", f);
            json_num(f, x->worst_ratio);
            fputs(", \"max_abs_err\": ", f);
            json_num(f, x->worst_abs);
            fprintf(f, ", \"kink_values\": %lld, \"gradients\": {", (long long)x->n_kink);
            for (int k = 0; k < 4; k++)
                fprintf(f, "%s\"%s\": \"%s\"", k ? ", " : "", gn[k],
                        x->grad[k] < 0 ? "-" : kind_str(x->grad[k]));
            fputs("}, \"message\": ", f);
            json_str(f, x->state == R_PASS ? NULL : (x->msg ? x->msg : "out of memory"));
            op_command(&x->sampled, x->case_seed, fast, cmd, sizeof cmd);
            fputs(", \"reproduce\": ", f);
            json_str(f, cmd);
        }
        fprintf(f, "}%s\n", i + 1 < s->n ? "," : "");
    }
    fputs("]}\n", f);
    const int bad = ferror(f);
    return (fclose(f) != 0) | bad;
}

int drs_cli_gradcheck(int argc, char **argv)
{
    sweep s;
    memset(&s, 0, sizeof s);
    s.ok_alloc = 1;
    int verbose = 0, fast = 0;
    uint64_t seed = 1;
    int64_t max_failures = 10;
    const char *json = NULL;
    if (argc >= 1 && argv[0][0] != '-')
        return gc_single(argc, argv);
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
        } else if (!strcmp(argv[i], "--max-failures")) {
            char *end;
            if (i + 1 >= argc)
                return usage("--max-failures needs a value%s", "");
            max_failures = strtoll(argv[++i], &end, 10);
            if (*end || !*argv[i] || max_failures < 0)
                return usage("--max-failures: not a count >= 0: '%s'", argv[i]);
        } else if (!strcmp(argv[i], "--json")) {
            if (i + 1 >= argc)
                return usage("--json needs a file name%s", "");
            json = argv[++i];
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

    /* ---- failures, grouped by (op, mode, attribute set) ---- */
    int64_t worst_fail = -1;
    if (nfail) {
        typedef struct fgroup {
            char *key;
            int64_t count, first;
        } fgroup;
        fgroup *G = calloc((size_t)nfail, sizeof *G);
        int64_t ng = 0;
        char key[2048], cmd[2048];
        for (int64_t i = 0; i < s.n && G; i++) {
            if (!valid[i] || !run[i] || res[i].state == R_PASS)
                continue;
            if (worst_fail < 0 || res[i].worst_ratio > res[worst_fail].worst_ratio)
                worst_fail = i;
            sbuf kb = {key, sizeof key, 0};
            key[0] = 0;
            op_attr_args(&s.c[i].op, &kb);
            int64_t g = 0;
            while (g < ng && strcmp(G[g].key, key) != 0)
                g++;
            if (g == ng) {
                G[ng].key = dupf("%s", key);
                G[ng].first = i;
                ng++;
            }
            G[g].count++;
        }
        printf("%lld failed cases in %lld groups (op, mode, attribute set); each with its first "
               "case and a command that reruns it:\n",
               (long long)nfail, (long long)ng);
        for (int64_t g = 0; g < ng && g < max_failures; g++) {
            const result *x = &res[G[g].first];
            printf("FAIL x%lld  %s\n", (long long)G[g].count, G[g].key ? G[g].key : "?");
            printf("    first: %s\n", x->msg ? x->msg : "(out of memory)");
            op_command(&x->sampled, x->case_seed, fast, cmd, sizeof cmd);
            printf("    reproduce: %s\n", cmd);
        }
        if (ng > max_failures)
            printf("... %lld more groups not shown (--max-failures %lld; --json FILE lists every "
                   "case)\n",
                   (long long)(ng - max_failures), (long long)max_failures);
        for (int64_t g = 0; g < ng; g++)
            free(G[g].key);
        free(G);
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
    int64_t kink_values = 0;
    for (int64_t i = 0; i < s.n; i++)
        kink_values += (valid[i] && run[i]) ? res[i].n_kink : 0;
    printf("; %lld values on or near a kink or a size step compared with one-sided differences, "
           "%lld left unchecked\n",
           (long long)kink_values, (long long)avoid.unchecked);
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
    if (worst_fail >= 0) {
        char d[600], cmd[2048];
        drs_gc_op_describe(&res[worst_fail].sampled, d, sizeof d);
        op_command(&res[worst_fail].sampled, res[worst_fail].case_seed, fast, cmd, sizeof cmd);
        printf("worst failure (err/tol %.3g): %s\n    reproduce: %s\n",
               res[worst_fail].worst_ratio, d, cmd);
    } else if (wr >= 0) {
        printf("closest to the tolerance (err/tol %.2g): %s\n", s.rows[wr].worst_ratio,
               s.rows[wr].worst_case);
    }
    if (json && write_json(json, &s, res, valid, run, seed, fast)) {
        fprintf(stderr, "dresample: error: --json %s: cannot write the file\n", json);
        nfail++;
    }
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
