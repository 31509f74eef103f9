/* SPDX-License-Identifier: MIT */
/* dresample_cli.c — the `dresample` command-line tool (contract: docs/semantics.md).
 *
 *   dresample run OP [--attr NAME=VALUE]... [--in PORT=FILE.npy]...
 *                    [--out PORT=FILE.npy]... [--threads N] [--backward]
 *   dresample gradcheck ...   (tools/gradcheck_cli.c)
 *
 * Flow: parse the whole command line against the op's table entry, parse the
 * attribute values, load every input, infer the output shape, allocate, run
 * the forward or backward, and only then write the outputs, all or none
 * (save_outputs: each staged in a temporary file, renamed when all are).
 * Any error prints exactly one line "dresample: error: ..." on stderr, writes
 * no file, and exits 2 for a command line that does not fit the op's
 * signature (unknown/duplicate/missing names, bad options) or 1 for anything
 * else (bad values, bad files, library errors).  Threads: the library's.
 */
#define _POSIX_C_SOURCE 200809L /* lstat, link, unlink */
#include "dresample.h"
#include "npy.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef DRS_CLI_HAVE_GRADCHECK
/* tools/gradcheck_cli.c: `dresample gradcheck [--op OP] [--quick]` (argv after "gradcheck"). */
int drs_cli_gradcheck(int argc, char **argv);
#endif

#define EXIT_ERR 1
#define EXIT_USAGE 2
#define MAX_KV 64   /* more --attr/--in/--out than this is certainly a mistake */
#define MAX_PORTS 5

/* ------------------------------------------------------------ op table */
typedef enum port_kind {
    PK_DATA,            /* the tensor being resampled: any dtype, rank >= 1 */
    PK_INT,             /* 1-D integer list -> int64 (sizes, axes, ...) */
    PK_FLOAT,           /* 1-D float list -> double (scales, roi) */
    PK_SCALES_OR_SIZES, /* Interpolate-11: PK_FLOAT or PK_INT per shape_calculation_mode */
    PK_GRID             /* GridSample: a float tensor, differentiable (grid_delta) */
} port_kind;

typedef enum port_req {
    REQ_NO = 0,
    REQ_YES,
    REQ_IF_SIZES, /* required when shape_calculation_mode=sizes */
    REQ_IF_SCALES
} port_req;

typedef struct port_def {
    const char *name;
    port_kind kind;
    port_req req;
} port_def;

typedef enum op_family { FAM_INTERPOLATE, FAM_RESIZE, FAM_TORCH, FAM_BACKPROP, FAM_GRID } op_family;

typedef struct op_def {
    const char *name;
    op_family family;
    int version;
    port_def in[MAX_PORTS];     /* terminated by a NULL name */
    const char *attrs[12];      /* NULL-terminated */
    const char *required[3];    /* required attributes, NULL-terminated */
    const char *out;
} op_def;

#define INTERP4_ATTRS                                                                      \
    "mode", "shape_calculation_mode", "coordinate_transformation_mode", "nearest_mode",    \
        "antialias", "pads_begin", "pads_end", "cube_coeff"
#define RESIZE11_ATTRS                                                                     \
    "coordinate_transformation_mode", "cubic_coeff_a", "exclude_outside",                  \
        "extrapolation_value", "mode", "nearest_mode"
#define RESIZE11_PORTS                                                                     \
    {"X", PK_DATA, REQ_YES}, {"roi", PK_FLOAT, REQ_NO}, {"scales", PK_FLOAT, REQ_NO},      \
        {"sizes", PK_INT, REQ_NO}
#define RESIZE18_ATTRS RESIZE11_ATTRS, "antialias", "axes", "keep_aspect_ratio_policy"

/* Names are exactly those of the op documents (OpenVINO, ONNX, PyTorch; docs/semantics.md). */
static const op_def ops[] = {
    {"Interpolate-1", FAM_INTERPOLATE, 1,
     {{"data", PK_DATA, REQ_YES}, {"target_spatial_shape", PK_INT, REQ_YES}},
     {"axes", "mode", "align_corners", "antialias", "pads_begin", "pads_end"},
     {"axes", "mode"}, "output"},
    {"Interpolate-4", FAM_INTERPOLATE, 4,
     {{"data", PK_DATA, REQ_YES}, {"sizes", PK_INT, REQ_IF_SIZES},
      {"scales", PK_FLOAT, REQ_IF_SCALES}, {"axes", PK_INT, REQ_NO}},
     {INTERP4_ATTRS}, {"mode", "shape_calculation_mode"}, "output"},
    {"Interpolate-11", FAM_INTERPOLATE, 11,
     {{"image", PK_DATA, REQ_YES}, {"scales_or_sizes", PK_SCALES_OR_SIZES, REQ_YES},
      {"axes", PK_INT, REQ_NO}},
     {INTERP4_ATTRS}, {"mode", "shape_calculation_mode"}, "output"},
    {"Resize-10", FAM_RESIZE, 10,
     {{"X", PK_DATA, REQ_YES}, {"scales", PK_FLOAT, REQ_YES}}, {"mode"}, {NULL}, "Y"},
    {"Resize-11", FAM_RESIZE, 11, {RESIZE11_PORTS}, {RESIZE11_ATTRS}, {NULL}, "Y"},
    {"Resize-13", FAM_RESIZE, 13, {RESIZE11_PORTS}, {RESIZE11_ATTRS}, {NULL}, "Y"},
    {"Resize-18", FAM_RESIZE, 18, {RESIZE11_PORTS}, {RESIZE18_ATTRS}, {NULL}, "Y"},
    {"Resize-19", FAM_RESIZE, 19, {RESIZE11_PORTS}, {RESIZE18_ATTRS}, {NULL}, "Y"},
    {"TorchInterpolate", FAM_TORCH, 0, {{"input", PK_DATA, REQ_YES}},
     {"size", "scale_factor", "mode", "align_corners", "antialias", "recompute_scale_factor"},
     {NULL}, "output"},
    /* the gradient op, with its own port names (outputs input_delta,
     * scales_delta) */
    {"InterpolateBackprop-4", FAM_BACKPROP, 4,
     {{"data", PK_DATA, REQ_YES}, {"output_delta", PK_DATA, REQ_YES},
      {"sizes", PK_INT, REQ_IF_SIZES}, {"scales", PK_FLOAT, REQ_IF_SCALES},
      {"axes", PK_INT, REQ_NO}},
     {INTERP4_ATTRS}, {"mode", "shape_calculation_mode"}, "input_delta"},
    /* OpenVINO GridSample-9 and ONNX GridSample-16/20/22 */
    {"GridSample-9", FAM_GRID, 9, {{"data", PK_DATA, REQ_YES}, {"grid", PK_GRID, REQ_YES}},
     {"align_corners", "mode", "padding_mode"}, {NULL}, "output"},
    {"GridSample-16", FAM_GRID, 16, {{"X", PK_DATA, REQ_YES}, {"grid", PK_GRID, REQ_YES}},
     {"align_corners", "mode", "padding_mode"}, {NULL}, "Y"},
    {"GridSample-20", FAM_GRID, 20, {{"X", PK_DATA, REQ_YES}, {"grid", PK_GRID, REQ_YES}},
     {"align_corners", "mode", "padding_mode"}, {NULL}, "Y"},
    {"GridSample-22", FAM_GRID, 22, {{"X", PK_DATA, REQ_YES}, {"grid", PK_GRID, REQ_YES}},
     {"align_corners", "mode", "padding_mode"}, {NULL}, "Y"},
};
#define NOPS ((int)(sizeof ops / sizeof ops[0]))

/* ------------------------------------------------------------ errors */
/* Prints the one error line (newlines in the message folded to spaces so the
 * "exactly one line" contract holds whatever a library message contains). */
static int fail(int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static int fail(int code, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    for (char *p = msg; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    fprintf(stderr, "dresample: error: %s\n", msg);
    return code;
}

static int fail_lib(drs_status s)
{
    const char *m = drs_last_error();
    return fail(EXIT_ERR, "%s", (m && *m) ? m : drs_status_str(s));
}

/* ------------------------------------------------------------ value parsing */
static int parse_i64(const char *s, int64_t *v)
{
    /* strtoll would skip leading blanks and accept "+"; we want digits only. */
    const char *d = s[0] == '-' ? s + 1 : s;
    if (*d < '0' || *d > '9')
        return 0;
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (errno == ERANGE || *end != '\0')
        return 0;
    *v = (int64_t)x;
    return 1;
}

static int parse_f64(const char *s, double *v)
{
    if (*s == '\0' || *s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == '\f' ||
        *s == '\v')
        return 0;
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (*end != '\0' || (errno == ERANGE && isinf(x)))
        return 0;
    *v = x;
    return 1;
}

static int parse_bool(const char *s, int *v)
{
    if (strcmp(s, "1") == 0 || strcmp(s, "true") == 0)
        *v = 1;
    else if (strcmp(s, "0") == 0 || strcmp(s, "false") == 0)
        *v = 0;
    else
        return 0;
    return 1;
}

/* Comma-separated list of at most max numbers; empty elements are errors.
 * is_int selects int64 (vi) or double (vd). */
static int parse_list(const char *name, const char *s, int is_int, int64_t *vi, double *vd,
                      int max, int *n)
{
    char buf[512];
    if (strlen(s) >= sizeof buf)
        return fail(EXIT_ERR, "attribute %s: value too long", name);
    strcpy(buf, s);
    int k = 0;
    char *p = buf;
    for (;;) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        if (*p == '\0')
            return fail(EXIT_ERR, "attribute %s: empty list element in '%s'", name, s);
        if (k == max)
            return fail(EXIT_ERR, "attribute %s: at most %d values allowed, got '%s'", name,
                        max, s);
        int ok = is_int ? parse_i64(p, &vi[k]) : parse_f64(p, &vd[k]);
        if (!ok)
            return fail(EXIT_ERR, "attribute %s: '%s' is not %s", name, p,
                        is_int ? "an integer" : "a number");
        k++;
        if (!comma)
            break;
        p = comma + 1;
    }
    *n = k;
    return 0;
}

/* ------------------------------------------------------------ the invocation */
typedef struct kv {
    const char *name;
    const char *value;
} kv;

typedef struct input {
    int given;
    npy_array arr;
    int64_t *ints;   /* PK_INT ports, converted */
    double *dbls;    /* PK_FLOAT ports, converted */
    int n;           /* element count of a 1-D port */
} input;

typedef struct invocation {
    const op_def *op;
    kv attr[MAX_KV];
    int nattr;
    kv in[MAX_KV];
    int nin;
    kv out[MAX_KV];
    int nout;
    input port[MAX_PORTS]; /* indexed like op->in */
    void *ybuf;
    drs_tensor y;
    /* --backward (and InterpolateBackprop-4) */
    int backward;
    npy_array dy;          /* output_delta */
    int dy_loaded;
    drs_tensor dx;         /* data gradient, when requested */
    void *dxbuf;
    drs_tensor dgrid;      /* GridSample grid gradient, when requested */
    void *dgridbuf;
    double dparam[2][2 * DRS_MAX_RANK]; /* scales_delta, roi_delta */
    int nparam[2];
    drs_dtype param_dtype[2];
} invocation;

static const char *attr_get(const invocation *v, const char *name)
{
    for (int i = 0; i < v->nattr; i++)
        if (strcmp(v->attr[i].name, name) == 0)
            return v->attr[i].value;
    return NULL;
}

static int port_index(const op_def *op, const char *name)
{
    for (int i = 0; i < MAX_PORTS && op->in[i].name; i++)
        if (strcmp(op->in[i].name, name) == 0)
            return i;
    return -1;
}

/* Typed attribute getters: return 0 when absent or parsed (the value left
 * untouched when absent), else the exit code of the printed error. */
static int attr_bool(const invocation *v, const char *name, int *out)
{
    const char *s = attr_get(v, name);
    if (s && !parse_bool(s, out))
        return fail(EXIT_ERR, "attribute %s: '%s' is not a boolean (0, 1, true, false)", name,
                    s);
    return 0;
}

static int attr_f64(const invocation *v, const char *name, double *out)
{
    const char *s = attr_get(v, name);
    if (s && !parse_f64(s, out))
        return fail(EXIT_ERR, "attribute %s: '%s' is not a number", name, s);
    return 0;
}

static int attr_enum(const invocation *v, const char *name, int (*from_str)(const char *),
                     int *out)
{
    const char *s = attr_get(v, name);
    if (!s)
        return 0;
    int e = from_str(s);
    if (e < 0)
        return fail(EXIT_ERR, "attribute %s: unknown value '%s'", name, s);
    *out = e;
    return 0;
}

static int attr_list(const invocation *v, const char *name, int is_int, int64_t *vi,
                     double *vd, int max, int *n)
{
    const char *s = attr_get(v, name);
    return s ? parse_list(name, s, is_int, vi, vd, max, n) : 0;
}

/* Splits "NAME=VALUE" in place (C lets a program modify its argv strings) and
 * appends it to list, refusing duplicates.  what: "attribute"/"input"/"output". */
static int add_kv(kv *list, int *n, const char *opt, char *arg, const char *what)
{
    if (!arg)
        return fail(EXIT_USAGE, "%s needs an argument NAME=VALUE", opt);
    char *eq = strchr(arg, '=');
    if (!eq || eq == arg)
        return fail(EXIT_USAGE, "%s expects NAME=VALUE, got '%s'", opt, arg);
    if (*n == MAX_KV)
        return fail(EXIT_USAGE, "too many %s options", opt);
    *eq = '\0';
    for (int i = 0; i < *n; i++)
        if (strcmp(list[i].name, arg) == 0)
            return fail(EXIT_USAGE, "%s '%s' given twice", what, arg);
    if (strcmp(what, "attribute") != 0 && eq[1] == '\0')
        return fail(EXIT_USAGE, "%s '%s': empty file name", what, arg);
    list[*n].name = arg;
    list[*n].value = eq + 1;
    (*n)++;
    return 0;
}

/* ------------------------------------------------------------ inputs */
static int is_int_dtype(drs_dtype t) { return t != DRS_F32 && t != DRS_F64; }

/* Loads port i; 1-D ports are converted to int64 or double per kind. */
static int load_port(invocation *v, int i, port_kind kind, const char *path)
{
    const char *pname = v->op->in[i].name;
    input *in = &v->port[i];
    char err[256];
    drs_status s = npy_load(path, kind == PK_DATA || kind == PK_GRID ? 0 : NPY_ALLOW_SCALAR, &in->arr, err,
                            sizeof err);
    if (s != DRS_OK)
        return fail(EXIT_ERR, "input %s (%s): %s", pname, path, err);
    in->given = 1;
    if (kind == PK_DATA || kind == PK_GRID)
        return 0;

    const drs_tensor *t = &in->arr.t;
    if (t->rank != 1)
        return fail(EXIT_ERR, "input %s (%s): must be 1-D, got rank %d", pname, path, t->rank);
    if (t->shape[0] > INT_MAX)
        return fail(EXIT_ERR, "input %s (%s): too many elements (%lld)", pname, path,
                    (long long)t->shape[0]);
    int n = (int)t->shape[0];
    in->n = n;
    if (kind == PK_INT) {
        if (!is_int_dtype(t->dtype))
            return fail(EXIT_ERR, "input %s (%s): must be an integer array, got %s", pname,
                        path, drs_dtype_name(t->dtype));
        in->ints = malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
        if (!in->ints)
            return fail(EXIT_ERR, "out of memory");
        for (int k = 0; k < n; k++) {
            switch (t->dtype) {
            case DRS_U8: in->ints[k] = ((const uint8_t *)t->data)[k]; break;
            case DRS_I8: in->ints[k] = ((const int8_t *)t->data)[k]; break;
            case DRS_I32: in->ints[k] = ((const int32_t *)t->data)[k]; break;
            default: in->ints[k] = ((const int64_t *)t->data)[k]; break;
            }
        }
    } else {
        if (is_int_dtype(t->dtype))
            return fail(EXIT_ERR, "input %s (%s): must be a float array (f32/f64), got %s",
                        pname, path, drs_dtype_name(t->dtype));
        in->dbls = malloc(sizeof(double) * (size_t)(n ? n : 1));
        if (!in->dbls)
            return fail(EXIT_ERR, "out of memory");
        for (int k = 0; k < n; k++)
            in->dbls[k] = t->dtype == DRS_F32 ? (double)((const float *)t->data)[k]
                                              : ((const double *)t->data)[k];
    }
    return 0;
}

/* shape_calc: -1 when the op has none.  Returns 0 or an exit code. */
static int load_inputs(invocation *v, int shape_calc)
{
    const op_def *op = v->op;
    for (int i = 0; i < MAX_PORTS && op->in[i].name; i++) {
        port_req r = op->in[i].req;
        int required = r == REQ_YES || (r == REQ_IF_SIZES && shape_calc == DRS_SHAPE_SIZES) ||
                       (r == REQ_IF_SCALES && shape_calc == DRS_SHAPE_SCALES);
        const char *path = NULL;
        for (int k = 0; k < v->nin; k++)
            if (strcmp(v->in[k].name, op->in[i].name) == 0)
                path = v->in[k].value;
        if (!path) {
            if (required)
                return fail(EXIT_USAGE, "%s: missing required input %s (--in %s=FILE.npy)",
                            op->name, op->in[i].name, op->in[i].name);
            continue;
        }
        port_kind kind = op->in[i].kind;
        if (kind == PK_SCALES_OR_SIZES)
            kind = shape_calc == DRS_SHAPE_SCALES ? PK_FLOAT : PK_INT;
        int rc = load_port(v, i, kind, path);
        if (rc)
            return rc;
    }
    return 0;
}

static const input *port(const invocation *v, const char *name)
{
    int i = port_index(v->op, name);
    return (i >= 0 && v->port[i].given) ? &v->port[i] : NULL;
}

static const drs_tensor *data_tensor(const invocation *v)
{
    return &v->port[0].arr.t; /* every op's first port is its data */
}

/* Allocates the output tensor from an inferred shape (checked byte size). */
static int alloc_output(invocation *v, drs_dtype dtype, int rank, const int64_t *shape)
{
    v->y.dtype = dtype;
    v->y.rank = rank;
    memcpy(v->y.shape, shape, sizeof(int64_t) * (size_t)rank);
    int64_t numel = 1, bytes;
    for (int i = 0; i < rank; i++)
        if (__builtin_mul_overflow(numel, shape[i], &numel))
            return fail(EXIT_ERR, "output %s: element count overflows 64 bits", v->op->out);
    if (__builtin_mul_overflow(numel, (int64_t)drs_dtype_size(dtype), &bytes) ||
        (uint64_t)bytes > SIZE_MAX)
        return fail(EXIT_ERR, "output %s: byte size overflows", v->op->out);
    v->ybuf = malloc(bytes ? (size_t)bytes : 1);
    if (!v->ybuf)
        return fail(EXIT_ERR, "output %s: out of memory (%lld bytes)", v->op->out,
                    (long long)bytes);
    v->y.data = v->ybuf;
    return 0;
}

/* ------------------------------------------------------------ op families */
/* Name of the gradient output of the data port ("data_delta", "X_delta", ...). */
static void delta_name(const char *port, char *buf, size_t n) { snprintf(buf, n, "%s_delta", port); }

/* Loads output_delta for --backward (InterpolateBackprop-4 has it as a regular port). */
static int load_output_delta(invocation *v)
{
    const char *path = NULL;
    for (int k = 0; k < v->nin; k++)
        if (strcmp(v->in[k].name, "output_delta") == 0)
            path = v->in[k].value;
    if (!path)
        return fail(EXIT_USAGE, "%s --backward: missing required input output_delta "
                    "(--in output_delta=FILE.npy)", v->op->name);
    char err[256];
    if (npy_load(path, 0, &v->dy, err, sizeof err) != DRS_OK)
        return fail(EXIT_ERR, "input output_delta (%s): %s", path, err);
    v->dy_loaded = 1;
    return 0;
}

static const char *out_path(const invocation *v, const char *name)
{
    for (int i = 0; i < v->nout; i++)
        if (strcmp(v->out[i].name, name) == 0)
            return v->out[i].value;
    return NULL;
}

/* Allocates a gradient shaped like the loaded tensor x if requested. */
static int alloc_like(invocation *v, const char *name, const drs_tensor *x, drs_tensor *g,
                      void **buf)
{
    if (!out_path(v, name))
        return 0;
    *g = *x;
    int64_t numel = 1, bytes;
    for (int i = 0; i < x->rank; i++)
        numel *= x->shape[i]; /* the tensor was loaded, so its size is known to fit */
    bytes = numel * (int64_t)drs_dtype_size(x->dtype);
    *buf = malloc(bytes ? (size_t)bytes : 1);
    if (!*buf)
        return fail(EXIT_ERR, "output %s: out of memory", name);
    g->data = *buf;
    return 0;
}

/* Allocates the data gradient (shape and dtype of the data) if requested. */
static int alloc_dx(invocation *v, const char *name)
{
    return alloc_like(v, name, data_tensor(v), &v->dx, &v->dxbuf);
}

/* Requested parameter gradient k (0 scales, 1 roi) of a port with n entries. */
static double *want_param(invocation *v, int k, const char *name, const input *p)
{
    if (!out_path(v, name) || !p)
        return NULL;
    v->nparam[k] = p->n;
    v->param_dtype[k] = p->arr.t.dtype;
    return v->dparam[k];
}

static int setup_interpolate(invocation *v, drs_interpolate_attrs *a, drs_interpolate_inputs *in,
                             int64_t *axes)
{
    const op_def *op = v->op;
    *a = drs_interpolate_attrs_default(op->version);
    int mode = (int)a->mode, sc = (int)a->shape_calculation_mode,
        cm = (int)a->coordinate_transformation_mode, nm = (int)a->nearest_mode;
    int n_axes = 0;
    int rc;
    if ((rc = attr_enum(v, "mode", drs_interp_mode_from_str, &mode)) ||
        (rc = attr_enum(v, "shape_calculation_mode", drs_shape_calc_from_str, &sc)) ||
        (rc = attr_enum(v, "coordinate_transformation_mode", drs_coord_mode_from_str, &cm)) ||
        (rc = attr_enum(v, "nearest_mode", drs_nearest_mode_from_str, &nm)) ||
        (rc = attr_bool(v, "antialias", &a->antialias)) ||
        (rc = attr_bool(v, "align_corners", &a->align_corners)) ||
        (rc = attr_f64(v, "cube_coeff", &a->cube_coeff)) ||
        (rc = attr_list(v, "pads_begin", 1, a->pads_begin, NULL, DRS_MAX_RANK,
                        &a->n_pads_begin)) ||
        (rc = attr_list(v, "pads_end", 1, a->pads_end, NULL, DRS_MAX_RANK, &a->n_pads_end)) ||
        (rc = attr_list(v, "axes", 1, axes, NULL, DRS_MAX_RANK, &n_axes)))
        return rc;
    a->mode = (drs_interp_mode)mode;
    a->shape_calculation_mode = (drs_shape_calc)sc;
    a->coordinate_transformation_mode = (drs_coord_mode)cm;
    a->nearest_mode = (drs_nearest_mode)nm;
    if ((rc = load_inputs(v, op->version == 1 ? DRS_SHAPE_SIZES : sc)))
        return rc;

    memset(in, 0, sizeof *in);
    const input *p;
    if (op->version == 1) {
        p = port(v, "target_spatial_shape");
        in->sizes = p->ints;
        in->n_sizes = p->n;
        in->axes = axes;
        in->n_axes = n_axes;
    } else {
        if ((p = port(v, op->version == 11 ? "scales_or_sizes" : "sizes")) && p->ints) {
            in->sizes = p->ints;
            in->n_sizes = p->n;
        }
        if ((p = port(v, op->version == 11 ? "scales_or_sizes" : "scales")) && p->dbls) {
            in->scales = p->dbls;
            in->n_scales = p->n;
        }
        if ((p = port(v, "axes"))) {
            in->axes = p->ints;
            in->n_axes = p->n;
        }
    }
    return 0;
}

static int run_interpolate(invocation *v)
{
    drs_interpolate_attrs a;
    drs_interpolate_inputs in;
    int64_t axes[DRS_MAX_RANK];
    int rc = setup_interpolate(v, &a, &in, axes);
    if (rc)
        return rc;
    const drs_tensor *x = data_tensor(v);
    drs_status s;
    if (v->backward) {
        const int gop = v->op->family == FAM_BACKPROP; /* InterpolateBackprop-4 */
        char dxn[64];
        delta_name(gop ? "input" : v->op->in[0].name, dxn, sizeof dxn);
        const char *spn = v->op->version == 11 ? "scales_or_sizes_delta" : "scales_delta";
        if ((!gop && (rc = load_output_delta(v))) || (rc = alloc_dx(v, dxn)))
            return rc;
        const input *sp = port(v, v->op->version == 11 ? "scales_or_sizes" : "scales");
        if (out_path(v, spn) && !sp)
            return fail(EXIT_ERR, "%s: %s needs the %s input", v->op->name, spn,
                        v->op->version == 11 ? "scales_or_sizes" : "scales");
        if (out_path(v, spn) && sp && !sp->dbls)
            return fail(EXIT_ERR, "%s: %s exists in scales mode only", v->op->name, spn);
        double *ds = want_param(v, 0, spn, sp);
        const drs_tensor *dy = gop ? &port(v, "output_delta")->arr.t : &v->dy.t;
        drs_tensor *dx = out_path(v, dxn) ? &v->dx : NULL;
        s = gop ? drs_interpolate_backprop(dx, ds, x, dy, &in, &a, DRS_GRAD_OVERWRITE)
                 : drs_interpolate_backward(dx, ds, dy, x, &in, &a, DRS_GRAD_OVERWRITE);
        return s == DRS_OK ? 0 : fail_lib(s);
    }
    int rank;
    int64_t shape[DRS_MAX_RANK];
    s = drs_interpolate_infer_shape(&a, x, &in, &rank, shape);
    if (s != DRS_OK)
        return fail_lib(s);
    if ((rc = alloc_output(v, x->dtype, rank, shape)))
        return rc;
    s = drs_interpolate_forward(&v->y, x, &in, &a);
    return s == DRS_OK ? 0 : fail_lib(s);
}

static int run_resize(invocation *v)
{
    drs_resize_attrs a = drs_resize_attrs_default(v->op->version);
    int mode = (int)a.mode, cm = (int)a.coordinate_transformation_mode,
        nm = (int)a.nearest_mode, kp = (int)a.keep_aspect_ratio_policy;
    int rc;
    if ((rc = attr_enum(v, "mode", drs_interp_mode_from_str, &mode)) ||
        (rc = attr_enum(v, "coordinate_transformation_mode", drs_coord_mode_from_str, &cm)) ||
        (rc = attr_enum(v, "nearest_mode", drs_nearest_mode_from_str, &nm)) ||
        (rc = attr_enum(v, "keep_aspect_ratio_policy", drs_aspect_policy_from_str, &kp)) ||
        (rc = attr_f64(v, "cubic_coeff_a", &a.cubic_coeff_a)) ||
        (rc = attr_f64(v, "extrapolation_value", &a.extrapolation_value)) ||
        (rc = attr_bool(v, "exclude_outside", &a.exclude_outside)) ||
        (rc = attr_bool(v, "antialias", &a.antialias)) ||
        (rc = attr_list(v, "axes", 1, a.axes, NULL, DRS_MAX_RANK, &a.n_axes)))
        return rc;
    a.mode = (drs_interp_mode)mode;
    a.coordinate_transformation_mode = (drs_coord_mode)cm;
    a.nearest_mode = (drs_nearest_mode)nm;
    a.keep_aspect_ratio_policy = (drs_aspect_policy)kp;
    if ((rc = load_inputs(v, -1)))
        return rc;

    /* An absent port and an empty tensor both mean "absent" (ONNX convention). */
    drs_resize_inputs in = {0};
    const input *p, *roi_p = port(v, "roi"), *sc_p = port(v, "scales");
    if ((p = roi_p)) {
        in.roi = p->dbls;
        in.n_roi = p->n;
    }
    if ((p = sc_p)) {
        in.scales = p->dbls;
        in.n_scales = p->n;
    }
    if ((p = port(v, "sizes"))) {
        in.sizes = p->ints;
        in.n_sizes = p->n;
    }
    const drs_tensor *x = data_tensor(v);
    drs_status s;
    if (v->backward) {
        if ((rc = load_output_delta(v)) || (rc = alloc_dx(v, "X_delta")))
            return rc;
        double *ds = want_param(v, 0, "scales_delta", sc_p);
        double *dr = want_param(v, 1, "roi_delta", roi_p);
        if (out_path(v, "scales_delta") && !ds)
            return fail(EXIT_ERR, "%s: scales_delta needs the scales input", v->op->name);
        if (out_path(v, "roi_delta") && !dr)
            return fail(EXIT_ERR, "%s: roi_delta needs the roi input", v->op->name);
        s = drs_resize_backward(out_path(v, "X_delta") ? &v->dx : NULL, ds, dr, &v->dy.t, x, &in,
                                &a, DRS_GRAD_OVERWRITE);
        return s == DRS_OK ? 0 : fail_lib(s);
    }
    int rank;
    int64_t shape[DRS_MAX_RANK];
    s = drs_resize_infer_shape(&a, x, &in, &rank, shape);
    if (s != DRS_OK)
        return fail_lib(s);
    if ((rc = alloc_output(v, x->dtype, rank, shape)))
        return rc;
    s = drs_resize_forward(&v->y, x, &in, &a);
    return s == DRS_OK ? 0 : fail_lib(s);
}

static int run_torch(invocation *v)
{
    drs_torch_interpolate_attrs a = drs_torch_interpolate_attrs_default();
    int mode = (int)a.mode;
    int64_t size[DRS_MAX_RANK];
    double sf[DRS_MAX_RANK];
    int n_size = 0, n_sf = 0;
    int rc;
    if ((rc = attr_enum(v, "mode", drs_torch_mode_from_str, &mode)) ||
        (rc = attr_bool(v, "align_corners", &a.align_corners)) ||
        (rc = attr_bool(v, "antialias", &a.antialias)) ||
        (rc = attr_bool(v, "recompute_scale_factor", &a.recompute_scale_factor)) ||
        (rc = attr_list(v, "size", 1, size, NULL, 3, &n_size)) ||
        (rc = attr_list(v, "scale_factor", 0, NULL, sf, 3, &n_sf)))
        return rc;
    a.mode = (drs_torch_mode)mode;
    a.n_size = n_size;
    memcpy(a.size, size, sizeof(int64_t) * (size_t)n_size);
    a.n_scale_factor = n_sf;
    memcpy(a.scale_factor, sf, sizeof(double) * (size_t)n_sf);
    if ((rc = load_inputs(v, -1)))
        return rc;

    const drs_tensor *x = data_tensor(v);
    drs_status s;
    if (v->backward) {
        if ((rc = load_output_delta(v)) || (rc = alloc_dx(v, "input_delta")))
            return rc;
        s = drs_torch_interpolate_backward(out_path(v, "input_delta") ? &v->dx : NULL,
                                           &v->dy.t, x, &a, DRS_GRAD_OVERWRITE);
        return s == DRS_OK ? 0 : fail_lib(s);
    }
    int rank;
    int64_t shape[DRS_MAX_RANK];
    s = drs_torch_interpolate_infer_shape(&a, x, &rank, shape);
    if (s != DRS_OK)
        return fail_lib(s);
    if ((rc = alloc_output(v, x->dtype, rank, shape)))
        return rc;
    s = drs_torch_interpolate_forward(&v->y, x, &a);
    return s == DRS_OK ? 0 : fail_lib(s);
}

static int run_grid(invocation *v)
{
    drs_grid_sample_attrs a = drs_grid_sample_attrs_default(v->op->version);
    int mode = (int)a.mode, pad = (int)a.padding_mode, rc;
    const char *ms = attr_get(v, "mode");
    /* each version accepts its own spelling only (9/16: bilinear, bicubic;
     * 20/22: linear, cubic) */
    if (ms && strcmp(ms, "nearest") != 0 &&
        (drs_grid_mode_from_str(ms) < 0 ||
         strcmp(ms, drs_grid_mode_str((drs_grid_mode)drs_grid_mode_from_str(ms),
                                      v->op->version)) != 0))
        return fail(EXIT_ERR, "attribute mode: unknown value '%s' for %s (use %s, %s or nearest)",
                    ms, v->op->name, drs_grid_mode_str(DRS_GRID_BILINEAR, v->op->version),
                    drs_grid_mode_str(DRS_GRID_BICUBIC, v->op->version));
    if ((rc = attr_enum(v, "mode", drs_grid_mode_from_str, &mode)) ||
        (rc = attr_enum(v, "padding_mode", drs_grid_padding_from_str, &pad)) ||
        (rc = attr_bool(v, "align_corners", &a.align_corners)))
        return rc;
    a.mode = (drs_grid_mode)mode;
    a.padding_mode = (drs_grid_padding)pad;
    if ((rc = load_inputs(v, -1)))
        return rc;
    const drs_tensor *x = data_tensor(v), *g = &port(v, "grid")->arr.t;
    drs_status s;
    if (v->backward) {
        char dxn[64];
        delta_name(v->op->in[0].name, dxn, sizeof dxn);
        if ((rc = load_output_delta(v)) || (rc = alloc_dx(v, dxn)) ||
            (rc = alloc_like(v, "grid_delta", g, &v->dgrid, &v->dgridbuf)))
            return rc;
        s = drs_grid_sample_backward(out_path(v, dxn) ? &v->dx : NULL,
                                     out_path(v, "grid_delta") ? &v->dgrid : NULL, &v->dy.t, x,
                                     g, &a, DRS_GRAD_OVERWRITE);
        return s == DRS_OK ? 0 : fail_lib(s);
    }
    int rank;
    int64_t shape[DRS_MAX_RANK];
    s = drs_grid_sample_infer_shape(&a, x, g, &rank, shape);
    if (s != DRS_OK)
        return fail_lib(s);
    if ((rc = alloc_output(v, x->dtype, rank, shape)))
        return rc;
    s = drs_grid_sample_forward(&v->y, x, g, &a);
    return s == DRS_OK ? 0 : fail_lib(s);
}

/* Writes every requested output all-or-nothing: each is first written
 * completely to a temporary file in its own target directory (npy_stage),
 * and only when all of them are staged are they renamed into place.  On any
 * failure the temporaries are removed, and outputs already renamed (possible
 * only when a later rename fails) are rolled back: removed, or, where they
 * replaced an existing file, that file is put back from a hard link kept
 * until the end.  Two outputs naming one file are refused.  All computation
 * is finished before. */
static int save_outputs(invocation *v)
{
    char err[512];
    char *tmp[MAX_KV] = {NULL};
    char *bak[MAX_KV] = {NULL}; /* hard links keeping files the commit replaces */
    float fparam[2][2 * DRS_MAX_RANK]; /* f32 scales/roi gradients, converted */
    int rc = 0, committed = 0;
    for (int i = 0; i < v->nout; i++)
        for (int j = 0; j < i; j++)
            if (strcmp(v->out[i].value, v->out[j].value) == 0)
                return fail(EXIT_USAGE, "outputs %s and %s name the same file '%s'",
                            v->out[j].name, v->out[i].name, v->out[i].value);
    for (int i = 0; i < v->nout && !rc; i++) {
        const char *name = v->out[i].name, *path = v->out[i].value;
        drs_tensor t;
        if (!v->backward) {
            t = v->y;
        } else if (strcmp(name, "grid_delta") == 0) {
            t = v->dgrid;
        } else {
            int k = strcmp(name, "roi_delta") == 0 ? 1 : (strstr(name, "scales") == name ? 0 : -1);
            if (k < 0) {
                t = v->dx;
            } else {
                double *src = v->dparam[k];
                t.dtype = v->param_dtype[k];
                t.rank = 1;
                t.shape[0] = v->nparam[k];
                t.data = src;
                if (t.dtype == DRS_F32) {
                    for (int q = 0; q < v->nparam[k] && q < 2 * DRS_MAX_RANK; q++)
                        fparam[k][q] = (float)src[q];
                    t.data = fparam[k];
                }
            }
        }
        if (npy_stage(path, &t, &tmp[i], err, sizeof err) != DRS_OK)
            rc = fail(EXIT_ERR, "output %s: %s", name, err);
    }
    for (int i = 0; i < v->nout && !rc; i++) {
        /* an existing file the rename replaces is kept under a hard link
         * (same directory) until every output is in place, so a rollback
         * restores it */
        const char *path = v->out[i].value;
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            const size_t n = strlen(path) + 16;
            bak[i] = malloc(n);
            if (bak[i]) {
                int made = 0;
                for (int attempt = 0; attempt < 100 && !made; attempt++) {
                    snprintf(bak[i], n, "%s.bak%d~", path, attempt);
                    made = link(path, bak[i]) == 0;
                    if (!made && errno != EEXIST)
                        break;
                }
                if (!made) {
                    rc = fail(EXIT_ERR, "output %s: cannot keep a backup of the existing '%s' "
                                        "(%s): nothing written", v->out[i].name, path,
                              strerror(errno));
                    free(bak[i]);
                    bak[i] = NULL;
                    break;
                }
            }
        }
        if (npy_commit(tmp[i], path, err, sizeof err) == DRS_OK)
            committed++;
        else
            rc = fail(EXIT_ERR, "output %s: %s", v->out[i].name, err);
    }
    for (int i = 0; i < v->nout; i++) {
        if (i < committed) { /* renamed: the temporary name is gone */
            if (rc) { /* roll back: the old file, or none */
                if (bak[i])
                    rename(bak[i], v->out[i].value);
                else
                    unlink(v->out[i].value);
            }
            free(tmp[i]);
        } else {
            npy_discard(tmp[i]);
        }
        if (bak[i]) {
            unlink(bak[i]); /* no-op after a rollback rename */
            free(bak[i]);
        }
    }
    return rc;
}

/* ------------------------------------------------------------ help */
/* The gradient outputs of an op under --backward (InterpolateBackprop-4:
 * always): <port>_delta for the data port and every float port. */
static int grad_outputs(const op_def *op, char names[][64])
{
    int na = 0;
    if (op->family == FAM_BACKPROP) {
        snprintf(names[na++], 64, "input_delta");
        snprintf(names[na++], 64, "scales_delta");
        return na;
    }
    delta_name(op->in[0].name, names[na++], 64);
    for (int k = 1; k < MAX_PORTS && op->in[k].name; k++)
        if (op->in[k].kind == PK_FLOAT || op->in[k].kind == PK_SCALES_OR_SIZES ||
            op->in[k].kind == PK_GRID)
            delta_name(op->in[k].name, names[na++], 64);
    return na;
}

static void cat(char *buf, size_t n, const char *s)
{
    const size_t l = strlen(buf);
    snprintf(buf + l, n > l ? n - l : 0, "%s", s);
}

/* Appends "a | b | c" for the values v in [0, n) that ok(op, v) admits,
 * spelled by str (the library's own enum spellings). */
static void enum_values(char *buf, size_t n, const op_def *op, int count,
                        int (*ok)(const op_def *, int), const char *(*str)(const op_def *, int),
                        int dflt)
{
    int first = 1;
    for (int v = 0; v < count; v++) {
        if (!ok(op, v))
            continue;
        cat(buf, n, first ? "" : " | ");
        cat(buf, n, str(op, v));
        if (v == dflt)
            cat(buf, n, " (default)");
        first = 0;
    }
}

/* The library's default of an enum attribute of op (-1: none). */
static int enum_default(const op_def *op, const char *name)
{
    const int ct = !strcmp(name, "coordinate_transformation_mode"),
              nm = !strcmp(name, "nearest_mode"), md = !strcmp(name, "mode");
    if (op->family == FAM_INTERPOLATE || op->family == FAM_BACKPROP) {
        const drs_interpolate_attrs a = drs_interpolate_attrs_default(op->version);
        return ct ? (int)a.coordinate_transformation_mode : nm ? (int)a.nearest_mode : -1;
    }
    if (op->family == FAM_RESIZE) {
        const drs_resize_attrs a = drs_resize_attrs_default(op->version);
        if (!strcmp(name, "keep_aspect_ratio_policy"))
            return (int)a.keep_aspect_ratio_policy;
        return md ? (int)a.mode
               : ct ? (int)a.coordinate_transformation_mode
               : nm ? (int)a.nearest_mode
                    : -1;
    }
    if (op->family == FAM_TORCH)
        return md ? (int)drs_torch_interpolate_attrs_default().mode : -1;
    const drs_grid_sample_attrs a = drs_grid_sample_attrs_default(op->version);
    return md ? (int)a.mode : !strcmp(name, "padding_mode") ? (int)a.padding_mode : -1;
}

static const char *interp_mode_s(const op_def *op, int v)
{
    (void)op;
    return drs_interp_mode_str((drs_interp_mode)v);
}
static int interp_mode_ok(const op_def *op, int v)
{
    const drs_interp_mode m = (drs_interp_mode)v;
    if (op->family == FAM_RESIZE)
        return m == DRS_MODE_NEAREST || m == DRS_MODE_LINEAR ||
               (op->version >= 11 && m == DRS_MODE_CUBIC);
    if (op->version == 1)
        return m == DRS_MODE_NEAREST || m == DRS_MODE_LINEAR || m == DRS_MODE_CUBIC ||
               m == DRS_MODE_AREA;
    return m == DRS_MODE_NEAREST || m == DRS_MODE_LINEAR || m == DRS_MODE_LINEAR_ONNX ||
           m == DRS_MODE_CUBIC ||
           (op->version == 11 && (m == DRS_MODE_BILINEAR_PILLOW || m == DRS_MODE_BICUBIC_PILLOW));
}
static const char *coord_s(const op_def *op, int v)
{
    (void)op;
    return drs_coord_mode_str((drs_coord_mode)v);
}
static int coord_ok(const op_def *op, int v)
{
    const drs_coord_mode c = (drs_coord_mode)v;
    if (op->family == FAM_RESIZE)
        return !(c == DRS_COORD_TF_HALF_PIXEL_FOR_NN && op->version >= 13) &&
               !(c == DRS_COORD_HALF_PIXEL_SYMMETRIC && op->version < 19);
    return c == DRS_COORD_HALF_PIXEL || c == DRS_COORD_PYTORCH_HALF_PIXEL ||
           c == DRS_COORD_ASYMMETRIC || c == DRS_COORD_TF_HALF_PIXEL_FOR_NN ||
           c == DRS_COORD_ALIGN_CORNERS;
}
static const char *nearest_s(const op_def *op, int v)
{
    (void)op;
    return drs_nearest_mode_str((drs_nearest_mode)v);
}
static int nearest_ok(const op_def *op, int v)
{
    return op->family != FAM_RESIZE || v != DRS_NEAREST_SIMPLE;
}
static const char *grid_mode_s(const op_def *op, int v)
{
    return drs_grid_mode_str((drs_grid_mode)v, op->version);
}
static const char *grid_pad_s(const op_def *op, int v)
{
    (void)op;
    return drs_grid_padding_str((drs_grid_padding)v);
}
static int any_ok(const op_def *op, int v)
{
    (void)op;
    (void)v;
    return 1;
}
/* Spellings without a library _str function; each is checked against the
 * library's parser when printed (a mismatch shows as "?"). */
static const char *const torch_modes[] = {"nearest",  "nearest-exact", "linear", "bilinear",
                                          "bicubic",  "trilinear",     "area"};
static const char *const shape_calcs[] = {"sizes", "scales"};
static const char *const aspects[] = {"stretch", "not_larger", "not_smaller"};
static const char *torch_mode_s(const op_def *op, int v)
{
    (void)op;
    return drs_torch_mode_from_str(torch_modes[v]) == v ? torch_modes[v] : "?";
}
static const char *shape_calc_s(const op_def *op, int v)
{
    (void)op;
    return drs_shape_calc_from_str(shape_calcs[v]) == v ? shape_calcs[v] : "?";
}
static const char *aspect_s(const op_def *op, int v)
{
    (void)op;
    return drs_aspect_policy_from_str(aspects[v]) == v ? aspects[v] : "?";
}

/* The values an attribute of op takes, as one line of text. */
static void attr_values(const op_def *op, const char *name, char *buf, size_t n)
{
    buf[0] = '\0';
    const int d = enum_default(op, name);
    if (!strcmp(name, "mode")) {
        if (op->family == FAM_TORCH)
            enum_values(buf, n, op, 7, any_ok, torch_mode_s, d);
        else if (op->family == FAM_GRID)
            enum_values(buf, n, op, 3, any_ok, grid_mode_s, d);
        else
            enum_values(buf, n, op, 7, interp_mode_ok, interp_mode_s, d);
    } else if (!strcmp(name, "coordinate_transformation_mode")) {
        enum_values(buf, n, op, 7, coord_ok, coord_s, d);
    } else if (!strcmp(name, "nearest_mode")) {
        enum_values(buf, n, op, 5, nearest_ok, nearest_s, d);
    } else if (!strcmp(name, "shape_calculation_mode")) {
        enum_values(buf, n, op, 2, any_ok, shape_calc_s, d);
    } else if (!strcmp(name, "keep_aspect_ratio_policy")) {
        enum_values(buf, n, op, 3, any_ok, aspect_s, d);
    } else if (!strcmp(name, "padding_mode")) {
        enum_values(buf, n, op, 3, any_ok, grid_pad_s, d);
    } else if (!strcmp(name, "antialias") || !strcmp(name, "align_corners") ||
               !strcmp(name, "exclude_outside") || !strcmp(name, "recompute_scale_factor")) {
        cat(buf, n, "0 | 1 (or false | true)");
        if (!strcmp(name, "align_corners"))
            cat(buf, n, op->family == FAM_INTERPOLATE ? " (default 1)" : " (default 0)");
    } else if (!strcmp(name, "pads_begin") || !strcmp(name, "pads_end")) {
        cat(buf, n, "integers >= 0, one per axis (default 0)");
    } else if (!strcmp(name, "axes")) {
        cat(buf, n, op->family == FAM_RESIZE ? "distinct integers in [-rank, rank-1]"
                                             : "distinct integers in [0, rank-1]");
    } else if (!strcmp(name, "cube_coeff") || !strcmp(name, "cubic_coeff_a")) {
        cat(buf, n, "a finite number (default -0.75)");
    } else if (!strcmp(name, "extrapolation_value")) {
        cat(buf, n, "a number, not NaN (default 0)");
    } else if (!strcmp(name, "size")) {
        cat(buf, n, "integers >= 0: one, or one per spatial axis (or scale_factor)");
    } else if (!strcmp(name, "scale_factor")) {
        cat(buf, n, "numbers > 0: one, or one per spatial axis (or size)");
    }
}

static void print_usage(FILE *f)
{
    fprintf(f,
            "usage: dresample COMMAND [ARGS]...\n"
            "\n"
            "Commands:\n"
            "  run OP ...      run one op forward, or its gradients with --backward\n"
            "  gradcheck ...   check every op's gradients against float64 finite differences,\n"
            "                  or every gradient of one call: gradcheck OP --attr ... --in ...\n"
            "                  (dresample gradcheck --help)\n"
            "  scale-range OP --attr NAME=VALUE... --in PORT=FILE.npy...\n"
            "                  the interval of each scale (and roi) value that keeps the\n"
            "                  call's output shape, one line per entry\n"
            "  --help          this text;  --version  the version\n"
            "\n"
            "dresample run OP [--attr NAME=VALUE]... [--in PORT=FILE.npy]...\n"
            "                 [--out PORT=FILE.npy]... [--threads N] [--backward]\n"
            "  Lists are comma-separated (axes=2,3); booleans are 0/1/true/false.\n"
            "  Files are .npy (little-endian, C order; f32 f64 u8 i8 i32 i64).\n"
            "  --backward: the gradients of the op; give the forward's inputs and\n"
            "  --in output_delta=FILE.npy (the gradient of the loss w.r.t. the output),\n"
            "  and request one or more gradient outputs with --out.\n"
            "  Outputs are all-or-nothing: each is written to a temporary file in its\n"
            "  directory and renamed only when every output was written; on any error\n"
            "  no output file exists afterwards.\n"
            "  Exit status: 0 ok, 1 error (bad value, file or argument), 2 usage error.\n"
            "\nOPs (* = required):\n");
    for (int i = 0; i < NOPS; i++) {
        const op_def *op = &ops[i];
        fprintf(f, "  %s\n    in:        ", op->name);
        for (int k = 0; k < MAX_PORTS && op->in[k].name; k++) {
            port_req r = op->in[k].req;
            fprintf(f, "%s%s%s", k ? ", " : "", op->in[k].name,
                    r == REQ_YES         ? "*"
                    : r == REQ_IF_SIZES  ? "* (sizes mode)"
                    : r == REQ_IF_SCALES ? "* (scales mode)"
                                         : "");
        }
        char g[4][64];
        const int ng = grad_outputs(op, g);
        if (op->family == FAM_BACKPROP) {
            fprintf(f, "\n    out:       ");
            for (int k = 0; k < ng; k++)
                fprintf(f, "%s%s", k ? ", " : "", g[k]);
            fprintf(f, " (at least one; scales_delta in scales mode)\n");
        } else {
            fprintf(f, "\n    out:       %s*\n    backward:  in output_delta*; out ", op->out);
            for (int k = 0; k < ng; k++)
                fprintf(f, "%s%s", k ? ", " : "", g[k]);
            fprintf(f, " (at least one)\n");
        }
        for (int k = 0; op->attrs[k]; k++) {
            int req = 0;
            for (int r = 0; op->required[r]; r++)
                req |= strcmp(op->required[r], op->attrs[k]) == 0;
            char vals[512];
            attr_values(op, op->attrs[k], vals, sizeof vals);
            fprintf(f, "    %s %s%s = %s\n", k ? "          " : "attr:     ", op->attrs[k],
                    req ? "*" : "", vals);
        }
    }
}

/* ------------------------------------------------------------ main */
static int name_in(const char *name, const char *const *list, int n)
{
    for (int i = 0; i < n && list[i]; i++)
        if (strcmp(list[i], name) == 0)
            return 1;
    return 0;
}

/* Checks the parsed command line against the op's signature (usage errors). */
static int check_signature(const invocation *v)
{
    const op_def *op = v->op;
    const int nattrs = (int)(sizeof op->attrs / sizeof op->attrs[0]);
    for (int i = 0; i < v->nattr; i++)
        if (!name_in(v->attr[i].name, op->attrs, nattrs))
            return fail(EXIT_USAGE, "%s has no attribute '%s'", op->name, v->attr[i].name);
    for (int r = 0; op->required[r]; r++)
        if (!attr_get(v, op->required[r]))
            return fail(EXIT_USAGE, "%s: missing required attribute %s", op->name,
                        op->required[r]);
    for (int i = 0; i < v->nin; i++)
        if (port_index(op, v->in[i].name) < 0 &&
            !(v->backward && strcmp(v->in[i].name, "output_delta") == 0))
            return fail(EXIT_USAGE, "%s has no input port '%s'", op->name, v->in[i].name);
    if (!v->backward) {
        for (int i = 0; i < v->nout; i++)
            if (strcmp(v->out[i].name, op->out) != 0)
                return fail(EXIT_USAGE, "%s has no output port '%s' (its output is %s)",
                            op->name, v->out[i].name, op->out);
        if (v->nout == 0)
            return fail(EXIT_USAGE, "%s: missing output (--out %s=FILE.npy)", op->name, op->out);
        return 0;
    }
    /* backward: <differentiable input>_delta for the data and the float ports */
    char allowed[4][64];
    const int na = grad_outputs(op, allowed);
    for (int i = 0; i < v->nout; i++) {
        int ok = 0;
        for (int k = 0; k < na; k++)
            ok |= strcmp(v->out[i].name, allowed[k]) == 0;
        for (int k = 0; k < i; k++)
            if (strcmp(v->out[i].name, v->out[k].name) == 0)
                return fail(EXIT_USAGE, "output '%s' given twice", v->out[i].name);
        if (!ok) {
            char list[300] = "";
            for (int k = 0; k < na; k++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? ", " : "",
                         allowed[k]);
            return fail(EXIT_USAGE, "%s backward has no output '%s' (outputs: %s)", op->name,
                        v->out[i].name, list);
        }
    }
    if (v->nout == 0)
        return fail(EXIT_USAGE, "%s backward: request at least one gradient with --out "
                    "(e.g. --out %s=FILE.npy)", op->name, allowed[0]);
    return 0;
}

static int cmd_run(invocation *v, int argc, char **argv)
{
    if (argc < 1 || argv[0][0] == '-')
        return fail(EXIT_USAGE, "run: missing OP (see dresample --help)");
    for (int i = 0; i < NOPS; i++)
        if (strcmp(argv[0], ops[i].name) == 0)
            v->op = &ops[i];
    if (!v->op)
        return fail(EXIT_USAGE, "unknown op '%s' (see dresample --help)", argv[0]);

    int threads = 0, rc;
    v->backward = v->op->family == FAM_BACKPROP;
    for (int i = 1; i < argc; i += 2) { /* every option but --backward takes one argument */
        const char *o = argv[i];
        if (strcmp(o, "--backward") == 0) {
            if (v->op->family == FAM_BACKPROP)
                return fail(EXIT_USAGE, "%s is already a gradient op: drop --backward",
                            v->op->name);
            if (v->backward)
                return fail(EXIT_USAGE, "--backward given twice");
            v->backward = 1;
            i--;
            continue;
        }
        char *arg = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(o, "--attr") == 0)
            rc = add_kv(v->attr, &v->nattr, o, arg, "attribute");
        else if (strcmp(o, "--in") == 0)
            rc = add_kv(v->in, &v->nin, o, arg, "input");
        else if (strcmp(o, "--out") == 0)
            rc = add_kv(v->out, &v->nout, o, arg, "output");
        else if (strcmp(o, "--threads") == 0) {
            int64_t n;
            if (!arg || !parse_i64(arg, &n) || n < 1 || n > INT_MAX)
                return fail(EXIT_USAGE, "--threads needs an integer >= 1, got '%s'",
                            arg ? arg : "");
            if (threads)
                return fail(EXIT_USAGE, "--threads given twice");
            threads = (int)n;
            rc = 0;
        } else
            return fail(EXIT_USAGE, "unknown option '%s' (see dresample --help)", o);
        if (rc)
            return rc;
    }
    if ((rc = check_signature(v)))
        return rc;
    if (threads) {
        drs_status s = drs_set_num_threads(threads);
        if (s != DRS_OK)
            return fail_lib(s);
    }

    switch (v->op->family) {
    case FAM_INTERPOLATE:
    case FAM_BACKPROP: rc = run_interpolate(v); break;
    case FAM_RESIZE: rc = run_resize(v); break;
    case FAM_TORCH: rc = run_torch(v); break;
    case FAM_GRID: rc = run_grid(v); break;
    }
    if (rc)
        return rc;
    return save_outputs(v);
}

/* `dresample scale-range OP [--attr NAME=VALUE]... [--in PORT=FILE.npy]...`
 * (the syntax of run, no outputs): per scale entry (and roi entry of Resize,
 * scale_factor entry of TorchInterpolate) the half-open interval of values
 * that keep the call's output shape (drs_*_scale_range), one line each. */
static int cmd_scale_range(invocation *v, int argc, char **argv)
{
    if (argc < 1 || argv[0][0] == '-')
        return fail(EXIT_USAGE, "scale-range: missing OP (see dresample --help)");
    for (int i = 0; i < NOPS; i++)
        if (strcmp(argv[0], ops[i].name) == 0)
            v->op = &ops[i];
    if (!v->op)
        return fail(EXIT_USAGE, "unknown op '%s' (see dresample --help)", argv[0]);
    int rc;
    for (int i = 1; i < argc; i += 2) {
        char *arg = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--attr") == 0)
            rc = add_kv(v->attr, &v->nattr, argv[i], arg, "attribute");
        else if (strcmp(argv[i], "--in") == 0)
            rc = add_kv(v->in, &v->nin, argv[i], arg, "input");
        else
            return fail(EXIT_USAGE, "scale-range: unknown option '%s' (see dresample --help)",
                        argv[i]);
        if (rc)
            return rc;
    }
    const op_def *op = v->op;
    const int nattrs = (int)(sizeof op->attrs / sizeof op->attrs[0]);
    for (int i = 0; i < v->nattr; i++)
        if (!name_in(v->attr[i].name, op->attrs, nattrs))
            return fail(EXIT_USAGE, "%s has no attribute '%s'", op->name, v->attr[i].name);
    for (int i = 0; i < v->nin; i++)
        if (port_index(op, v->in[i].name) < 0)
            return fail(EXIT_USAGE, "%s has no input port '%s'", op->name, v->in[i].name);
    double lo[2 * DRS_MAX_RANK], hi[2 * DRS_MAX_RANK], val[2 * DRS_MAX_RANK];
    const char *name[2 * DRS_MAX_RANK];
    int n = 0, rank = 0;
    int64_t shape[DRS_MAX_RANK];
    drs_status s = DRS_OK;
    if (op->family == FAM_INTERPOLATE || op->family == FAM_BACKPROP) {
        drs_interpolate_attrs a;
        drs_interpolate_inputs in;
        int64_t axes[DRS_MAX_RANK];
        /* InterpolateBackprop-4 sizes its output like Interpolate-4 */
        if ((rc = setup_interpolate(v, &a, &in, axes)))
            return rc;
        const drs_tensor *x = data_tensor(v);
        if ((s = drs_interpolate_infer_shape(&a, x, &in, &rank, shape)) ||
            (s = drs_interpolate_scale_range(&a, x, &in, lo, hi)))
            return fail_lib(s);
        for (int i = 0; in.scales && i < in.n_scales; i++, n++) {
            name[n] = op->version == 11 ? "scales_or_sizes" : "scales";
            val[n] = in.scales[i];
        }
    } else if (op->family == FAM_RESIZE) {
        drs_resize_attrs a = drs_resize_attrs_default(op->version);
        int mode = (int)a.mode, cm = (int)a.coordinate_transformation_mode,
            nm = (int)a.nearest_mode, kp = (int)a.keep_aspect_ratio_policy;
        if ((rc = attr_enum(v, "mode", drs_interp_mode_from_str, &mode)) ||
            (rc = attr_enum(v, "coordinate_transformation_mode", drs_coord_mode_from_str, &cm)) ||
            (rc = attr_enum(v, "nearest_mode", drs_nearest_mode_from_str, &nm)) ||
            (rc = attr_enum(v, "keep_aspect_ratio_policy", drs_aspect_policy_from_str, &kp)) ||
            (rc = attr_f64(v, "cubic_coeff_a", &a.cubic_coeff_a)) ||
            (rc = attr_f64(v, "extrapolation_value", &a.extrapolation_value)) ||
            (rc = attr_bool(v, "exclude_outside", &a.exclude_outside)) ||
            (rc = attr_bool(v, "antialias", &a.antialias)) ||
            (rc = attr_list(v, "axes", 1, a.axes, NULL, DRS_MAX_RANK, &a.n_axes)) ||
            (rc = load_inputs(v, -1)))
            return rc;
        a.mode = (drs_interp_mode)mode;
        a.coordinate_transformation_mode = (drs_coord_mode)cm;
        a.nearest_mode = (drs_nearest_mode)nm;
        a.keep_aspect_ratio_policy = (drs_aspect_policy)kp;
        drs_resize_inputs in = {0};
        const input *p;
        if ((p = port(v, "roi"))) {
            in.roi = p->dbls;
            in.n_roi = p->n;
        }
        if ((p = port(v, "scales"))) {
            in.scales = p->dbls;
            in.n_scales = p->n;
        }
        if ((p = port(v, "sizes"))) {
            in.sizes = p->ints;
            in.n_sizes = p->n;
        }
        const drs_tensor *x = data_tensor(v);
        const int ns = in.scales ? in.n_scales : 0;
        if ((s = drs_resize_infer_shape(&a, x, &in, &rank, shape)) ||
            (s = drs_resize_scale_range(&a, x, &in, lo, hi, lo + ns, hi + ns)))
            return fail_lib(s);
        for (int i = 0; i < ns; i++, n++) {
            name[n] = "scales";
            val[n] = in.scales[i];
        }
        for (int i = 0; in.roi && i < in.n_roi; i++, n++) {
            name[n] = "roi";
            val[n] = in.roi[i];
        }
    } else if (op->family == FAM_TORCH) {
        drs_torch_interpolate_attrs a = drs_torch_interpolate_attrs_default();
        int mode = (int)a.mode, n_size = 0, n_sf = 0;
        int64_t size[DRS_MAX_RANK];
        double sf[DRS_MAX_RANK];
        if ((rc = attr_enum(v, "mode", drs_torch_mode_from_str, &mode)) ||
            (rc = attr_bool(v, "align_corners", &a.align_corners)) ||
            (rc = attr_bool(v, "antialias", &a.antialias)) ||
            (rc = attr_bool(v, "recompute_scale_factor", &a.recompute_scale_factor)) ||
            (rc = attr_list(v, "size", 1, size, NULL, 3, &n_size)) ||
            (rc = attr_list(v, "scale_factor", 0, NULL, sf, 3, &n_sf)) ||
            (rc = load_inputs(v, -1)))
            return rc;
        a.mode = (drs_torch_mode)mode;
        a.n_size = n_size;
        memcpy(a.size, size, sizeof(int64_t) * (size_t)n_size);
        a.n_scale_factor = n_sf;
        memcpy(a.scale_factor, sf, sizeof(double) * (size_t)n_sf);
        const drs_tensor *x = data_tensor(v);
        if ((s = drs_torch_interpolate_infer_shape(&a, x, &rank, shape)) ||
            (s = drs_torch_interpolate_scale_range(&a, x, lo, hi)))
            return fail_lib(s);
        for (int i = 0; i < n_sf; i++, n++) {
            name[n] = "scale_factor";
            val[n] = sf[i];
        }
    } else {
        return fail(EXIT_USAGE, "%s has no scales: scale-range is for Interpolate, "
                    "InterpolateBackprop, Resize and TorchInterpolate", op->name);
    }
    printf("%s output shape", op->name);
    for (int i = 0; i < rank; i++)
        printf("%s%lld", i ? "x" : " ", (long long)shape[i]);
    printf("; the values of each entry (the others held) that keep it, [lo, hi):\n");
    for (int i = 0, k = 0; i < n; i++) {
        k = (i > 0 && strcmp(name[i], name[i - 1]) == 0) ? k + 1 : 0;
        printf("%s[%d] = %.17g: [%.17g, %.17g)\n", name[i], k, val[i], lo[i], hi[i]);
    }
    return 0;
}

static void invocation_free(invocation *v)
{
    for (int i = 0; i < MAX_PORTS; i++) {
        npy_free(&v->port[i].arr);
        free(v->port[i].ints);
        free(v->port[i].dbls);
    }
    free(v->ybuf);
    free(v->dxbuf);
    free(v->dgridbuf);
    if (v->dy_loaded)
        npy_free(&v->dy);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return fail(EXIT_USAGE, "missing command (see dresample --help)");
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        print_usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("dresample %d.%d.%d\n", DRS_VERSION_MAJOR, DRS_VERSION_MINOR, DRS_VERSION_PATCH);
        return 0;
    }
    if (strcmp(cmd, "gradcheck") == 0) {
#ifdef DRS_CLI_HAVE_GRADCHECK
        return drs_cli_gradcheck(argc - 2, argv + 2);
#else
        return fail(EXIT_USAGE, "gradcheck is not built into this binary");
#endif
    }
    if (strcmp(cmd, "run") != 0 && strcmp(cmd, "scale-range") != 0)
        return fail(EXIT_USAGE, "unknown command '%s' (see dresample --help)", cmd);
    invocation *v = calloc(1, sizeof *v);
    if (!v)
        return fail(EXIT_ERR, "out of memory");
    int rc = cmd[0] == 's' ? cmd_scale_range(v, argc - 2, argv + 2) : cmd_run(v, argc - 2, argv + 2);
    invocation_free(v);
    free(v);
    return rc;
}
