/* SPDX-License-Identifier: MIT */
/* _core.c — the CPython extension `dresample._core`: a thin binding of the
 * public C API (include/dresample.h) for the Python package.
 *
 * Every entry point takes its tensors as C-contiguous buffers (the buffer
 * protocol: NumPy arrays, memoryviews, ...; the dtype comes from the buffer's
 * format), its 1-D inputs (scales, sizes, roi, axes, pads) as sequences of
 * numbers, and its attributes as plain Python values (None = the op's
 * default), fills the library's attribute structs from *_attrs_default() plus
 * the given fields, and calls the library.  Forward calls allocate their
 * output through a caller-given allocator, alloc(shape, dtype), after the
 * library's shape inference; backward calls write into caller-allocated
 * gradient buffers (None = not computed).  The GIL is released while a kernel
 * runs.  A library error raises ValueError (TypeError for an unsupported
 * dtype, MemoryError for a failed scratch allocation) with drs_last_error()'s
 * message and the status name in the exception's `status` attribute.
 *
 * The argument checking of the public API (docs/python.md) lives in
 * python/dresample/__init__.py; this file trusts only what it checks itself.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "dresample.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#define MAX_LIST (2 * DRS_MAX_RANK) /* the longest 1-D input: a Resize roi */

/* ------------------------------------------------------------- errors */

static PyObject *raise_msg(PyObject *type, const char *status, const char *msg)
{
    PyObject *exc = PyObject_CallFunction(type, "s", msg);
    if (!exc)
        return NULL;
    PyObject *st = PyUnicode_FromString(status);
    if (st) {
        PyObject_SetAttrString(exc, "status", st);
        Py_DECREF(st);
    }
    PyErr_Clear();
    PyErr_SetObject(type, exc);
    Py_DECREF(exc);
    return NULL;
}

/* Raises the exception for a failed library call (message: drs_last_error()). */
static PyObject *raise_status(drs_status s)
{
    const char *msg = drs_last_error();
    PyObject *type = PyExc_ValueError;
    if (s == DRS_ERR_NOMEM)
        type = PyExc_MemoryError;
    else if (s == DRS_ERR_UNSUPPORTED && strstr(msg, "f32"))
        type = PyExc_TypeError; /* "gradients need f32 or f64 data, got i32" and alike */
    return raise_msg(type, drs_status_str(s), msg[0] ? msg : drs_status_str(s));
}

/* ------------------------------------------------------------- tensors */

typedef struct tbuf {
    Py_buffer view;
    int held;
    drs_tensor t;
} tbuf;

static void tbuf_release(tbuf *b)
{
    if (b->held)
        PyBuffer_Release(&b->view);
    b->held = 0;
}

static const char *dtype_numpy_name(drs_dtype d)
{
    static const char *names[] = {"float32", "float64", "uint8", "int8", "int32", "int64"};
    return (unsigned)d < 6 ? names[d] : "?";
}

/* The library dtype of a buffer format ("f", "<d", "=q", ...) in native byte
 * order; -1 if none. */
static int dtype_of_format(const char *fmt, Py_ssize_t itemsize)
{
    if (!fmt)
        fmt = "B";
#if PY_BIG_ENDIAN
    if (*fmt == '@' || *fmt == '=' || *fmt == '>' || *fmt == '!')
        fmt++;
#else
    if (*fmt == '@' || *fmt == '=' || *fmt == '<')
        fmt++;
#endif
    if (fmt[0] == '\0' || fmt[1] != '\0')
        return -1;
    switch (fmt[0]) {
    case 'f': return itemsize == 4 ? DRS_F32 : -1;
    case 'd': return itemsize == 8 ? DRS_F64 : -1;
    case 'B': return itemsize == 1 ? DRS_U8 : -1;
    case 'b': return itemsize == 1 ? DRS_I8 : -1;
    case 'i': case 'l': case 'q':
        return itemsize == 4 ? DRS_I32 : itemsize == 8 ? DRS_I64 : -1;
    default: return -1;
    }
}

/* Gets a C-contiguous buffer of o as a drs_tensor (rank 1..8). */
static int tbuf_get(tbuf *b, PyObject *o, const char *name, int writable)
{
    b->held = 0;
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(o, &b->view, flags) < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s: expected a C-contiguous%s array, got %.100s", name,
                     writable ? " writable" : "", Py_TYPE(o)->tp_name);
        return -1;
    }
    b->held = 1;
    int d = dtype_of_format(b->view.format, b->view.itemsize);
    if (d < 0) {
        PyErr_Format(PyExc_TypeError,
                     "%s: dtype with buffer format '%s' is not supported (float32, float64, "
                     "uint8, int8, int32, int64)",
                     name, b->view.format ? b->view.format : "B");
        tbuf_release(b);
        return -1;
    }
    if (b->view.ndim < 1 || b->view.ndim > DRS_MAX_RANK) {
        PyErr_Format(PyExc_ValueError, "%s: rank must be 1..%d, got %d", name, DRS_MAX_RANK,
                     b->view.ndim);
        tbuf_release(b);
        return -1;
    }
    b->t.dtype = (drs_dtype)d;
    b->t.rank = b->view.ndim;
    for (int i = 0; i < b->view.ndim; i++)
        b->t.shape[i] = (int64_t)b->view.shape[i];
    b->t.data = b->view.buf;
    return 0;
}

/* Like tbuf_get, but None gives *pt = NULL. */
static int tbuf_get_opt(tbuf *b, drs_tensor **pt, PyObject *o, const char *name, int writable)
{
    b->held = 0;
    *pt = NULL;
    if (o == Py_None)
        return 0;
    if (tbuf_get(b, o, name, writable) < 0)
        return -1;
    *pt = &b->t;
    return 0;
}

/* ------------------------------------------------------------- 1-D inputs */

/* A sequence of numbers (or one number) -> doubles / int64s.  None -> *n = -1. */
static int list_get(PyObject *o, const char *name, int is_int, double *vd, int64_t *vi, int *n)
{
    *n = -1;
    if (o == Py_None)
        return 0;
    PyObject *seq;
    if (PySequence_Check(o)) {
        seq = PySequence_Fast(o, name);
        if (!seq)
            return -1;
    } else {
        seq = PyTuple_Pack(1, o);
        if (!seq)
            return -1;
    }
    Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
    if (len > MAX_LIST) {
        PyErr_Format(PyExc_ValueError, "%s: at most %d entries, got %zd", name, MAX_LIST, len);
        Py_DECREF(seq);
        return -1;
    }
    PyObject **items = PySequence_Fast_ITEMS(seq);
    for (Py_ssize_t i = 0; i < len; i++) {
        if (is_int) {
            PyObject *ix = PyNumber_Index(items[i]);
            if (!ix) {
                PyErr_Format(PyExc_TypeError, "%s[%zd]: expected an integer, got %.100s", name, i,
                             Py_TYPE(items[i])->tp_name);
                Py_DECREF(seq);
                return -1;
            }
            int overflow = 0;
            long long v = PyLong_AsLongLongAndOverflow(ix, &overflow);
            Py_DECREF(ix);
            if (overflow) {
                PyErr_Format(PyExc_ValueError, "%s[%zd]: does not fit in int64", name, i);
                Py_DECREF(seq);
                return -1;
            }
            vi[i] = (int64_t)v;
        } else {
            double v = PyFloat_AsDouble(items[i]);
            if (v == -1.0 && PyErr_Occurred()) {
                PyErr_Format(PyExc_TypeError, "%s[%zd]: expected a number, got %.100s", name, i,
                             Py_TYPE(items[i])->tp_name);
                Py_DECREF(seq);
                return -1;
            }
            vd[i] = v;
        }
    }
    *n = (int)len;
    Py_DECREF(seq);
    return 0;
}

/* ------------------------------------------------------------- attributes */

static int attr_int(PyObject *o, const char *op, const char *name, int *out)
{
    if (o == Py_None)
        return 0;
    if (PyBool_Check(o)) {
        *out = (o == Py_True);
        return 0;
    }
    if (strcmp(Py_TYPE(o)->tp_name, "numpy.bool_") == 0 ||
        strcmp(Py_TYPE(o)->tp_name, "numpy.bool") == 0) {
        int t = PyObject_IsTrue(o);
        if (t < 0)
            return -1;
        *out = t;
        return 0;
    }
    PyObject *ix = PyNumber_Index(o);
    if (!ix) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s: attribute %s: expected an integer or bool, got %.100s",
                     op, name, Py_TYPE(o)->tp_name);
        return -1;
    }
    int overflow = 0;
    long v = PyLong_AsLongAndOverflow(ix, &overflow);
    Py_DECREF(ix);
    if (overflow || v < INT32_MIN || v > INT32_MAX) {
        PyErr_Format(PyExc_ValueError, "%s: attribute %s: value out of range", op, name);
        return -1;
    }
    *out = (int)v;
    return 0;
}

static int attr_double(PyObject *o, const char *op, const char *name, double *out)
{
    if (o == Py_None)
        return 0;
    double v = PyFloat_AsDouble(o);
    if (v == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s: attribute %s: expected a number, got %.100s", op, name,
                     Py_TYPE(o)->tp_name);
        return -1;
    }
    *out = v;
    return 0;
}

static int attr_enum(PyObject *o, const char *op, const char *name, int (*from_str)(const char *),
                     int *out)
{
    if (o == Py_None)
        return 0;
    if (!PyUnicode_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s: attribute %s: expected a string, got %.100s", op, name,
                     Py_TYPE(o)->tp_name);
        return -1;
    }
    const char *s = PyUnicode_AsUTF8(o);
    if (!s)
        return -1;
    int e = from_str(s);
    if (e < 0) {
        PyErr_Format(PyExc_ValueError, "%s: attribute %s: unknown value '%s'", op, name, s);
        return -1;
    }
    *out = e;
    return 0;
}

static int attr_i64_list(PyObject *o, const char *op, const char *name, int64_t *v, int *n)
{
    char full[96];
    snprintf(full, sizeof full, "%s: attribute %s", op, name);
    int k;
    int64_t tmp[MAX_LIST]; /* list_get writes up to MAX_LIST entries; v holds DRS_MAX_RANK */
    if (list_get(o, full, 1, NULL, tmp, &k) < 0)
        return -1;
    if (k > DRS_MAX_RANK) {
        PyErr_Format(PyExc_ValueError, "%s: at most %d entries, got %d", full, DRS_MAX_RANK, k);
        return -1;
    }
    if (k >= 0) {
        memcpy(v, tmp, (size_t)k * sizeof *v);
        *n = k;
    }
    return 0;
}

static int check_nargs(const char *fn, Py_ssize_t nargs, Py_ssize_t want)
{
    if (nargs == want)
        return 0;
    PyErr_Format(PyExc_TypeError, "%s() takes %zd arguments (%zd given)", fn, want, nargs);
    return -1;
}

/* Calls alloc(shape, dtype) and gets the result's buffer; checks it matches. */
static PyObject *alloc_output(PyObject *alloc, PyObject *dtype, tbuf *b, drs_dtype want, int rank,
                              const int64_t *shape)
{
    PyObject *sh = PyTuple_New(rank);
    if (!sh)
        return NULL;
    for (int i = 0; i < rank; i++) {
        PyObject *v = PyLong_FromLongLong((long long)shape[i]);
        if (!v) {
            Py_DECREF(sh);
            return NULL;
        }
        PyTuple_SET_ITEM(sh, i, v);
    }
    PyObject *out = PyObject_CallFunctionObjArgs(alloc, sh, dtype, NULL);
    Py_DECREF(sh);
    if (!out)
        return NULL;
    /* A plain writable buffer (no format or shape: cheaper for a fresh NumPy
     * array, which would build its format string for us); the exporter
     * refuses a non-contiguous one.  Its byte length and item size must be
     * those of the requested array. */
    b->held = 0;
    if (PyObject_GetBuffer(out, &b->view, PyBUF_WRITABLE) < 0) {
        Py_DECREF(out);
        return NULL;
    }
    b->held = 1;
    const Py_ssize_t item = (Py_ssize_t)drs_dtype_size(want);
    Py_ssize_t n = item;
    for (int i = 0; i < rank; i++) {
        b->t.shape[i] = shape[i];
        n *= (Py_ssize_t)shape[i];
    }
    if (b->view.len != n || b->view.itemsize != item) {
        tbuf_release(b);
        Py_DECREF(out);
        PyErr_Format(PyExc_TypeError, "output: the allocator returned a buffer of another "
                                      "dtype or size (wanted %s, %zd bytes)",
                     dtype_numpy_name(want), n);
        return NULL;
    }
    b->t.dtype = want;
    b->t.rank = rank;
    b->t.data = b->view.buf;
    return out;
}

/* ------------------------------------------------------------- calls */

/* The tensors one call holds, released together. */
#define MAX_BUFS 6

typedef struct bufs {
    tbuf b[MAX_BUFS];
    int n;
} bufs;

static void bufs_release(bufs *s)
{
    while (s->n > 0)
        tbuf_release(&s->b[--s->n]);
}

/* One tensor argument: optional ones may be None; vec >= 0 asks for a
 * writable float64 vector of exactly vec entries (a scales/roi gradient). */
typedef struct argspec {
    const char *name;
    int writable, optional, vec;
} argspec;

#define IN(name) {name, 0, 0, -1}
#define GRAD(name) {name, 1, 1, -1}
#define VGRAD(name, n) {name, 1, 1, (n)}

/* Gets args[0..n) as spec says into s; p[i] is the tensor or NULL (None).
 * On error every buffer is released and an exception is set. */
static int bufs_get(bufs *s, PyObject *const *args, const argspec *spec, int n, drs_tensor **p)
{
    s->n = 0;
    for (int i = 0; i < n; i++) {
        tbuf *b = &s->b[s->n++];
        const argspec *a = &spec[i];
        if (a->optional ? tbuf_get_opt(b, &p[i], args[i], a->name, a->writable) < 0
                        : tbuf_get(b, args[i], a->name, a->writable) < 0)
            goto fail;
        if (!a->optional)
            p[i] = &b->t;
        if (a->vec >= 0 && p[i] &&
            (p[i]->dtype != DRS_F64 || p[i]->rank != 1 || p[i]->shape[0] != a->vec)) {
            PyErr_Format(PyExc_ValueError, "%s: expected a float64 vector of %d entries",
                         a->name, a->vec);
            goto fail;
        }
    }
    return 0;
fail:
    bufs_release(s);
    return -1;
}

static double *vec_of(drs_tensor *t)
{
    return t ? (double *)t->data : NULL;
}

typedef drs_status (*shape_fn)(const void *op, drs_tensor *const *in, int *rank, int64_t *shape);
typedef drs_status (*forward_fn)(const void *op, drs_tensor *y, drs_tensor *const *in);
typedef drs_status (*backward_fn)(const void *op, drs_tensor *const *p);

/* A forward call: args = (alloc, dtype, inputs...); the output is
 * alloc(shape, dtype) with the shape the op infers, the data type of the
 * first input. */
static PyObject *run_forward(PyObject *const *args, const argspec *in_spec, int n_in,
                             const void *op, shape_fn shape_of, forward_fn forward)
{
    bufs s;
    drs_tensor *in[MAX_BUFS - 1];
    if (bufs_get(&s, args + 2, in_spec, n_in, in) < 0)
        return NULL;
    int rank;
    int64_t shape[DRS_MAX_RANK];
    drs_status st = shape_of(op, in, &rank, shape);
    if (st != DRS_OK) {
        bufs_release(&s);
        return raise_status(st);
    }
    tbuf *y = &s.b[s.n];
    PyObject *out = alloc_output(args[0], args[1], y, in[0]->dtype, rank, shape);
    if (!out) {
        bufs_release(&s);
        return NULL;
    }
    s.n++;
    Py_BEGIN_ALLOW_THREADS
    st = forward(op, &y->t, in);
    Py_END_ALLOW_THREADS
    bufs_release(&s);
    if (st != DRS_OK) {
        Py_DECREF(out);
        return raise_status(st);
    }
    return out;
}

/* A backward call: args are the tensors of spec (gradients first, written in
 * place, None for one not wanted); returns None. */
static PyObject *run_backward(PyObject *const *args, const argspec *spec, int n, const void *op,
                              backward_fn backward)
{
    bufs s;
    drs_tensor *p[MAX_BUFS];
    if (bufs_get(&s, args, spec, n, p) < 0)
        return NULL;
    drs_status st;
    Py_BEGIN_ALLOW_THREADS
    st = backward(op, p);
    Py_END_ALLOW_THREADS
    bufs_release(&s);
    if (st != DRS_OK)
        return raise_status(st);
    Py_RETURN_NONE;
}

/* ======================================================================
 * ONNX Resize
 * a[0..2]: roi, scales, sizes; a[3..12]: opset, mode,
 * coordinate_transformation_mode, nearest_mode, cubic_coeff_a,
 * exclude_outside, extrapolation_value, antialias, axes,
 * keep_aspect_ratio_policy.
 * ====================================================================== */
#define RESIZE_NA 13

typedef struct resize_args {
    drs_resize_attrs attrs;
    drs_resize_inputs in;
    double roi[MAX_LIST], scales[MAX_LIST];
    int64_t sizes[MAX_LIST];
    char op[32];
} resize_args;

static int resize_parse(resize_args *r, PyObject *const *a)
{
    int opset = 19;
    if (attr_int(a[3], "Resize", "opset", &opset) < 0)
        return -1;
    r->attrs = drs_resize_attrs_default(opset);
    snprintf(r->op, sizeof r->op, "Resize-%d", opset);
    const char *op = r->op;
    int mode = (int)r->attrs.mode, cm = (int)r->attrs.coordinate_transformation_mode;
    int nm = (int)r->attrs.nearest_mode, kp = (int)r->attrs.keep_aspect_ratio_policy;
    if (attr_enum(a[4], op, "mode", drs_interp_mode_from_str, &mode) < 0 ||
        attr_enum(a[5], op, "coordinate_transformation_mode", drs_coord_mode_from_str, &cm) < 0 ||
        attr_enum(a[6], op, "nearest_mode", drs_nearest_mode_from_str, &nm) < 0 ||
        attr_double(a[7], op, "cubic_coeff_a", &r->attrs.cubic_coeff_a) < 0 ||
        attr_int(a[8], op, "exclude_outside", &r->attrs.exclude_outside) < 0 ||
        attr_double(a[9], op, "extrapolation_value", &r->attrs.extrapolation_value) < 0 ||
        attr_int(a[10], op, "antialias", &r->attrs.antialias) < 0 ||
        attr_i64_list(a[11], op, "axes", r->attrs.axes, &r->attrs.n_axes) < 0 ||
        attr_enum(a[12], op, "keep_aspect_ratio_policy", drs_aspect_policy_from_str, &kp) < 0)
        return -1;
    r->attrs.mode = (drs_interp_mode)mode;
    r->attrs.coordinate_transformation_mode = (drs_coord_mode)cm;
    r->attrs.nearest_mode = (drs_nearest_mode)nm;
    r->attrs.keep_aspect_ratio_policy = (drs_aspect_policy)kp;
    int n;
    memset(&r->in, 0, sizeof r->in);
    if (list_get(a[0], "roi", 0, r->roi, NULL, &n) < 0)
        return -1;
    if (n > 0) {
        r->in.roi = r->roi;
        r->in.n_roi = n;
    }
    if (list_get(a[1], "scales", 0, r->scales, NULL, &n) < 0)
        return -1;
    if (n > 0) {
        r->in.scales = r->scales;
        r->in.n_scales = n;
    }
    if (list_get(a[2], "sizes", 1, NULL, r->sizes, &n) < 0)
        return -1;
    if (n > 0) {
        r->in.sizes = r->sizes;
        r->in.n_sizes = n;
    }
    return 0;
}

static drs_status resize_shape(const void *op, drs_tensor *const *in, int *rank,
                               int64_t *shape)
{
    const resize_args *r = op;
    return drs_resize_infer_shape(&r->attrs, in[0], &r->in, rank, shape);
}

static drs_status resize_run(const void *op, drs_tensor *y, drs_tensor *const *in)
{
    const resize_args *r = op;
    return drs_resize_forward(y, in[0], &r->in, &r->attrs);
}

/* resize(alloc, dtype, X, roi, scales, sizes, <attrs>) -> Y */
static PyObject *py_resize(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    resize_args r;
    if (check_nargs("resize", nargs, 3 + RESIZE_NA) < 0 || resize_parse(&r, args + 3) < 0)
        return NULL;
    static const argspec in[] = {IN("X")};
    return run_forward(args, in, 1, &r, resize_shape, resize_run);
}

static drs_status resize_grad(const void *op, drs_tensor *const *p)
{
    const resize_args *r = op;
    return drs_resize_backward(p[0], vec_of(p[1]), vec_of(p[2]), p[3], p[4], &r->in, &r->attrs,
                               DRS_GRAD_OVERWRITE);
}

/* resize_backward(X_delta, scales_delta, roi_delta, output_delta, X, roi, scales, sizes,
 *                 <attrs>) -> None; each gradient buffer may be None */
static PyObject *py_resize_backward(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    resize_args r;
    if (check_nargs("resize_backward", nargs, 5 + RESIZE_NA) < 0 || resize_parse(&r, args + 5) < 0)
        return NULL;
    const argspec spec[] = {GRAD("X_delta"), VGRAD("scales_delta", r.in.n_scales),
                            VGRAD("roi_delta", r.in.n_roi), IN("output_delta"), IN("X")};
    return run_backward(args, spec, 5, &r, resize_grad);
}

/* ======================================================================
 * OpenVINO Interpolate-1/4/11
 * a[0..2]: sizes, scales, axes; a[3..12]: version, mode,
 * shape_calculation_mode, coordinate_transformation_mode, nearest_mode,
 * antialias, pads_begin, pads_end, cube_coeff, align_corners.
 * ====================================================================== */
#define INTERP_NA 13

typedef struct interp_args {
    drs_interpolate_attrs attrs;
    drs_interpolate_inputs in;
    double scales[MAX_LIST];
    int64_t sizes[MAX_LIST], axes[MAX_LIST];
    char op[32];
} interp_args;

static int interp_parse(interp_args *r, PyObject *const *a)
{
    int version = 4;
    if (attr_int(a[3], "Interpolate", "version", &version) < 0)
        return -1;
    r->attrs = drs_interpolate_attrs_default(version);
    snprintf(r->op, sizeof r->op, "Interpolate-%d", version);
    const char *op = r->op;
    int mode = (int)r->attrs.mode, sc = (int)r->attrs.shape_calculation_mode;
    int cm = (int)r->attrs.coordinate_transformation_mode, nm = (int)r->attrs.nearest_mode;
    if (attr_enum(a[4], op, "mode", drs_interp_mode_from_str, &mode) < 0 ||
        attr_enum(a[5], op, "shape_calculation_mode", drs_shape_calc_from_str, &sc) < 0 ||
        attr_enum(a[6], op, "coordinate_transformation_mode", drs_coord_mode_from_str, &cm) < 0 ||
        attr_enum(a[7], op, "nearest_mode", drs_nearest_mode_from_str, &nm) < 0 ||
        attr_int(a[8], op, "antialias", &r->attrs.antialias) < 0 ||
        attr_i64_list(a[9], op, "pads_begin", r->attrs.pads_begin, &r->attrs.n_pads_begin) < 0 ||
        attr_i64_list(a[10], op, "pads_end", r->attrs.pads_end, &r->attrs.n_pads_end) < 0 ||
        attr_double(a[11], op, "cube_coeff", &r->attrs.cube_coeff) < 0 ||
        attr_int(a[12], op, "align_corners", &r->attrs.align_corners) < 0)
        return -1;
    r->attrs.mode = (drs_interp_mode)mode;
    r->attrs.shape_calculation_mode = (drs_shape_calc)sc;
    r->attrs.coordinate_transformation_mode = (drs_coord_mode)cm;
    r->attrs.nearest_mode = (drs_nearest_mode)nm;
    int n;
    memset(&r->in, 0, sizeof r->in);
    if (list_get(a[0], "sizes", 1, NULL, r->sizes, &n) < 0)
        return -1;
    if (n >= 0) {
        r->in.sizes = r->sizes;
        r->in.n_sizes = n;
    }
    if (list_get(a[1], "scales", 0, r->scales, NULL, &n) < 0)
        return -1;
    if (n >= 0) {
        r->in.scales = r->scales;
        r->in.n_scales = n;
    }
    if (list_get(a[2], "axes", 1, NULL, r->axes, &n) < 0)
        return -1;
    if (n >= 0) {
        r->in.axes = r->axes;
        r->in.n_axes = n;
    }
    return 0;
}

static drs_status interp_shape(const void *op, drs_tensor *const *in, int *rank,
                               int64_t *shape)
{
    const interp_args *r = op;
    return drs_interpolate_infer_shape(&r->attrs, in[0], &r->in, rank, shape);
}

static drs_status interp_run(const void *op, drs_tensor *y, drs_tensor *const *in)
{
    const interp_args *r = op;
    return drs_interpolate_forward(y, in[0], &r->in, &r->attrs);
}

/* interpolate(alloc, dtype, data, sizes, scales, axes, <attrs>) -> output */
static PyObject *py_interpolate(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    interp_args r;
    if (check_nargs("interpolate", nargs, 3 + INTERP_NA) < 0 || interp_parse(&r, args + 3) < 0)
        return NULL;
    static const argspec in[] = {IN("data")};
    return run_forward(args, in, 1, &r, interp_shape, interp_run);
}

static drs_status interp_backward_run(const void *op, drs_tensor *const *p)
{
    const interp_args *r = op;
    return drs_interpolate_backward(p[0], vec_of(p[1]), p[2], p[3], &r->in, &r->attrs,
                                    DRS_GRAD_OVERWRITE);
}

static drs_status interp_backprop_run(const void *op, drs_tensor *const *p)
{
    const interp_args *r = op;
    return drs_interpolate_backprop(p[0], vec_of(p[1]), p[3], p[2], &r->in, &r->attrs,
                                    DRS_GRAD_OVERWRITE);
}

/* interpolate_backward / interpolate_backprop(data_delta, scales_delta, output_delta, data,
 * sizes, scales, axes, <attrs>) -> None */
static PyObject *interp_grad(const char *fn, int backprop, PyObject *const *args,
                             Py_ssize_t nargs)
{
    interp_args r;
    if (check_nargs(fn, nargs, 4 + INTERP_NA) < 0 || interp_parse(&r, args + 4) < 0)
        return NULL;
    const argspec spec[] = {GRAD(backprop ? "input_delta" : "data_delta"),
                            VGRAD("scales_delta", r.in.n_scales > 0 ? r.in.n_scales : 0),
                            IN("output_delta"), IN("data")};
    return run_backward(args, spec, 4, &r, backprop ? interp_backprop_run : interp_backward_run);
}

static PyObject *py_interpolate_backward(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return interp_grad("interpolate_backward", 0, args, nargs);
}

static PyObject *py_interpolate_backprop(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return interp_grad("interpolate_backprop", 1, args, nargs);
}

/* ======================================================================
 * PyTorch preset
 * a[0..5]: size, scale_factor, mode, align_corners, antialias,
 * recompute_scale_factor (None = PyTorch's default).
 * ====================================================================== */
#define TORCH_NA 6

static int torch_parse(drs_torch_interpolate_attrs *t, PyObject *const *a)
{
    const char *op = "torch_interpolate";
    *t = drs_torch_interpolate_attrs_default();
    int64_t size[MAX_LIST];
    double sf[MAX_LIST];
    int n, mode = (int)t->mode;
    if (list_get(a[0], "size", 1, NULL, size, &n) < 0)
        return -1;
    if (n > 3) {
        PyErr_Format(PyExc_ValueError, "%s: size has %d entries (at most 3 spatial axes)", op, n);
        return -1;
    }
    t->n_size = n > 0 ? n : 0;
    for (int i = 0; i < t->n_size; i++)
        t->size[i] = size[i];
    if (list_get(a[1], "scale_factor", 0, sf, NULL, &n) < 0)
        return -1;
    if (n > 3) {
        PyErr_Format(PyExc_ValueError, "%s: scale_factor has %d entries (at most 3 spatial axes)",
                     op, n);
        return -1;
    }
    t->n_scale_factor = n > 0 ? n : 0;
    for (int i = 0; i < t->n_scale_factor; i++)
        t->scale_factor[i] = sf[i];
    if (attr_enum(a[2], op, "mode", drs_torch_mode_from_str, &mode) < 0 ||
        attr_int(a[3], op, "align_corners", &t->align_corners) < 0 ||
        attr_int(a[4], op, "antialias", &t->antialias) < 0 ||
        attr_int(a[5], op, "recompute_scale_factor", &t->recompute_scale_factor) < 0)
        return -1;
    t->mode = (drs_torch_mode)mode;
    return 0;
}

static drs_status torch_shape(const void *op, drs_tensor *const *in, int *rank, int64_t *shape)
{
    return drs_torch_interpolate_infer_shape(op, in[0], rank, shape);
}

static drs_status torch_run(const void *op, drs_tensor *y, drs_tensor *const *in)
{
    return drs_torch_interpolate_forward(y, in[0], op);
}

/* torch_interpolate(alloc, dtype, input, <attrs>) -> output */
static PyObject *py_torch_interpolate(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    drs_torch_interpolate_attrs a;
    if (check_nargs("torch_interpolate", nargs, 3 + TORCH_NA) < 0 || torch_parse(&a, args + 3) < 0)
        return NULL;
    static const argspec in[] = {IN("input")};
    return run_forward(args, in, 1, &a, torch_shape, torch_run);
}

static drs_status torch_grad(const void *op, drs_tensor *const *p)
{
    return drs_torch_interpolate_backward(p[0], p[1], p[2], op, DRS_GRAD_OVERWRITE);
}

/* torch_interpolate_backward(input_delta, output_delta, input, <attrs>) -> None */
static PyObject *py_torch_interpolate_backward(PyObject *self, PyObject *const *args,
                                               Py_ssize_t nargs)
{
    (void)self;
    drs_torch_interpolate_attrs a;
    if (check_nargs("torch_interpolate_backward", nargs, 3 + TORCH_NA) < 0 ||
        torch_parse(&a, args + 3) < 0)
        return NULL;
    static const argspec spec[] = {{"input_delta", 1, 0, -1}, IN("output_delta"), IN("input")};
    return run_backward(args, spec, 3, &a, torch_grad);
}

/* ======================================================================
 * GridSample
 * a[0..3]: version, mode, padding_mode, align_corners.
 * ====================================================================== */
#define GRID_NA 4

static int grid_parse(drs_grid_sample_attrs *g, PyObject *const *a)
{
    int version = 9;
    if (attr_int(a[0], "GridSample", "version", &version) < 0)
        return -1;
    *g = drs_grid_sample_attrs_default(version);
    char op[32];
    snprintf(op, sizeof op, "GridSample-%d", version);
    int mode = (int)g->mode, pad = (int)g->padding_mode;
    if (attr_enum(a[1], op, "mode", drs_grid_mode_from_str, &mode) < 0 ||
        attr_enum(a[2], op, "padding_mode", drs_grid_padding_from_str, &pad) < 0 ||
        attr_int(a[3], op, "align_corners", &g->align_corners) < 0)
        return -1;
    g->mode = (drs_grid_mode)mode;
    g->padding_mode = (drs_grid_padding)pad;
    return 0;
}

static drs_status grid_shape(const void *op, drs_tensor *const *in, int *rank, int64_t *shape)
{
    return drs_grid_sample_infer_shape(op, in[0], in[1], rank, shape);
}

static drs_status grid_run(const void *op, drs_tensor *y, drs_tensor *const *in)
{
    return drs_grid_sample_forward(y, in[0], in[1], op);
}

/* grid_sample(alloc, dtype, X, grid, <attrs>) -> Y */
static PyObject *py_grid_sample(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    drs_grid_sample_attrs a;
    if (check_nargs("grid_sample", nargs, 4 + GRID_NA) < 0 || grid_parse(&a, args + 4) < 0)
        return NULL;
    static const argspec in[] = {IN("X"), IN("grid")};
    return run_forward(args, in, 2, &a, grid_shape, grid_run);
}

static drs_status grid_grad(const void *op, drs_tensor *const *p)
{
    return drs_grid_sample_backward(p[0], p[1], p[2], p[3], p[4], op, DRS_GRAD_OVERWRITE);
}

/* grid_sample_backward(X_delta, grid_delta, output_delta, X, grid, <attrs>) -> None */
static PyObject *py_grid_sample_backward(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    drs_grid_sample_attrs a;
    if (check_nargs("grid_sample_backward", nargs, 5 + GRID_NA) < 0 ||
        grid_parse(&a, args + 5) < 0)
        return NULL;
    static const argspec spec[] = {GRAD("X_delta"), GRAD("grid_delta"), IN("output_delta"),
                                   IN("X"), IN("grid")};
    return run_backward(args, spec, 5, &a, grid_grad);
}

/* ======================================================================
 * Threads and version
 * ====================================================================== */
static PyObject *py_set_num_threads(PyObject *self, PyObject *arg)
{
    (void)self;
    int n = 0;
    if (attr_int(arg, "set_num_threads", "n", &n) < 0)
        return NULL;
    drs_status s = drs_set_num_threads(n);
    if (s != DRS_OK)
        return raise_status(s);
    Py_RETURN_NONE;
}

static PyObject *py_get_num_threads(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyLong_FromLong(drs_get_num_threads());
}

/* ------------------------------------------------------- large outputs */

/* A block of memory for one large output (2 MiB or more), exported through
 * the buffer protocol (writable bytes): the package views it as a NumPy array
 * (numpy.frombuffer), which keeps the block alive, and the block frees its
 * memory when the last view goes.  It is allocated as PyTorch >= 2.2 allocates
 * its large tensors with THP_MEM_ALLOC_ENABLE=1: its start on a 2 MiB
 * boundary and, on Linux, its whole 2 MiB pages advised as huge pages before
 * the first touch (DRS_HUGEPAGES=0 leaves the advice out, as it does for the
 * library's own blocks).  tracemalloc sees it in NumPy's domain.  A heap
 * block instead starts wherever the heap has room (glibc: 16 bytes past a
 * boundary of 64), so an output's 2 MiB pages, and its place relative to the
 * inputs' pages, change from call to call. */
#define HUGE_ALIGN ((size_t)2 << 20)

typedef struct {
    PyObject_HEAD
    void *p;
    Py_ssize_t n;
} HugeBlock;

static int huge_getbuffer(PyObject *self, Py_buffer *view, int flags)
{
    HugeBlock *b = (HugeBlock *)self;
    return PyBuffer_FillInfo(view, self, b->p, b->n, 0, flags);
}

/* NumPy's tracemalloc domain (numpy/core/include/numpy/ndarraytypes.h,
 * NPY_TRACE_DOMAIN): a block is an array's data, and tracemalloc counts it as
 * NumPy counts the arrays it allocates itself */
#define HUGE_TRACE_DOMAIN 389047

static void huge_dealloc(PyObject *self)
{
    (void)PyTraceMalloc_Untrack(HUGE_TRACE_DOMAIN, (uintptr_t)((HugeBlock *)self)->p);
    free(((HugeBlock *)self)->p);
    Py_TYPE(self)->tp_free(self);
}

static PyBufferProcs huge_as_buffer = {huge_getbuffer, NULL};

static PyTypeObject HugeBlockType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "dresample._core.HugeBlock",
    .tp_basicsize = sizeof(HugeBlock),
    .tp_dealloc = huge_dealloc,
    .tp_as_buffer = &huge_as_buffer,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Memory of one large output (2 MiB-aligned; a buffer of writable bytes).",
};

#if defined(__linux__) && defined(MADV_HUGEPAGE)
static int huge_advice_on(void)
{
    static _Atomic int on = -1; /* DRS_HUGEPAGES=0 (read once) turns the advice off */
    int o = atomic_load_explicit(&on, memory_order_relaxed);
    if (o < 0) {
        const char *e = getenv("DRS_HUGEPAGES");
        o = !(e && !strcmp(e, "0"));
        atomic_store_explicit(&on, o, memory_order_relaxed);
    }
    return o;
}
#endif

/* huge_block(nbytes) -> HugeBlock of nbytes (> 0) uninitialised bytes */
static PyObject *py_huge_block(PyObject *self, PyObject *arg)
{
    (void)self;
    Py_ssize_t n = PyLong_AsSsize_t(arg);
    if (n == -1 && PyErr_Occurred())
        return NULL;
    if (n <= 0) {
        PyErr_Format(PyExc_ValueError, "huge_block: nbytes must be positive, got %zd", n);
        return NULL;
    }
    void *p = NULL;
    if (posix_memalign(&p, HUGE_ALIGN, (size_t)n) != 0 || !p) {
        PyErr_Format(PyExc_MemoryError, "huge_block: cannot allocate %zd bytes", n);
        return NULL;
    }
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    /* the whole 2 MiB pages of the block, as the library advises its own large
     * blocks: advice only, its failure changes nothing */
    if (huge_advice_on())
        (void)madvise(p, (size_t)n & ~(HUGE_ALIGN - 1), MADV_HUGEPAGE);
#endif
    HugeBlock *b = PyObject_New(HugeBlock, &HugeBlockType);
    if (!b) {
        free(p);
        return NULL;
    }
    b->p = p;
    b->n = n;
    (void)PyTraceMalloc_Track(HUGE_TRACE_DOMAIN, (uintptr_t)p, (size_t)n);
    return (PyObject *)b;
}

static PyObject *py_scratch_release(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    drs_scratch_release();
    Py_RETURN_NONE;
}

static PyObject *py_scratch_held(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyLong_FromSize_t(drs_scratch_held());
}

static PyObject *py_simd_variant(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyUnicode_FromString(drs_simd_variant());
}

/* Test hook: drs_debug_fail_allocation(n) (the n-th scratch allocation of the
 * library on this thread fails once; -1 disables). */
static PyObject *py_debug_fail_allocation(PyObject *self, PyObject *arg)
{
    (void)self;
    long n = PyLong_AsLong(arg);
    if (n == -1 && PyErr_Occurred())
        return NULL;
    drs_debug_fail_allocation(n);
    Py_RETURN_NONE;
}

static PyMethodDef core_methods[] = {
    {"_debug_fail_allocation", py_debug_fail_allocation, METH_O, NULL},
    {"resize", (PyCFunction)(void (*)(void))py_resize, METH_FASTCALL, NULL},
    {"resize_backward", (PyCFunction)(void (*)(void))py_resize_backward, METH_FASTCALL, NULL},
    {"interpolate", (PyCFunction)(void (*)(void))py_interpolate, METH_FASTCALL, NULL},
    {"interpolate_backward", (PyCFunction)(void (*)(void))py_interpolate_backward, METH_FASTCALL,
     NULL},
    {"interpolate_backprop", (PyCFunction)(void (*)(void))py_interpolate_backprop, METH_FASTCALL,
     NULL},
    {"torch_interpolate", (PyCFunction)(void (*)(void))py_torch_interpolate, METH_FASTCALL, NULL},
    {"torch_interpolate_backward", (PyCFunction)(void (*)(void))py_torch_interpolate_backward,
     METH_FASTCALL, NULL},
    {"grid_sample", (PyCFunction)(void (*)(void))py_grid_sample, METH_FASTCALL, NULL},
    {"grid_sample_backward", (PyCFunction)(void (*)(void))py_grid_sample_backward, METH_FASTCALL,
     NULL},
    {"set_num_threads", py_set_num_threads, METH_O, NULL},
    {"get_num_threads", py_get_num_threads, METH_NOARGS, NULL},
    {"simd_variant", py_simd_variant, METH_NOARGS, NULL},
    {"scratch_release", py_scratch_release, METH_NOARGS, NULL},
    {"scratch_held", py_scratch_held, METH_NOARGS, NULL},
    {"huge_block", py_huge_block, METH_O, NULL},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT, "dresample._core",
    "Private binding of the dresample C library; use the dresample package.", -1, core_methods,
    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__core(void)
{
    if (PyType_Ready(&HugeBlockType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&core_module);
    if (!m)
        return NULL;
    if (PyModule_AddStringConstant(m, "version", drs_version_string()) < 0 ||
        PyModule_AddStringConstant(m, "header_version", DRS_VERSION_STRING) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
