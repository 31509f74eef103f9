/* SPDX-License-Identifier: MIT */
/* tape.c — the tape: its arena, variables, positions (tell/rewind), grad
 * mode, zero_grad and the reverse walk of drs_tape_backward().
 *
 * Arena: a chain of malloc'd blocks, newest first; allocations are bumped
 * from the newest block (64-byte aligned), a request that does not fit opens
 * a new block of max(AG_BLOCK, request) bytes.  A position is (newest block,
 * its fill, newest var, var count); rewinding frees the newer blocks and
 * resets the fill, so freeing is O(blocks) and never per var.
 *
 * Threads: the tape itself is serial; drs__ag_axpy is an OpenMP loop whose
 * elements are each written by one iteration (deterministic).
 */
#include "ag_internal.h"

#include <omp.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ag__nthreads(void)
{
    const int n = drs_get_num_threads();
    return n > 0 ? n : omp_get_max_threads();
}

#define AG_ALIGN 64
#define AG_BLOCK ((size_t)1 << 20)

struct ag_block {
    ag_block *prev;
    size_t cap;
    size_t used;
    unsigned char *base; /* AG_ALIGN-aligned start of the payload */
};

/* ------------------------------------------------------------- errors */
drs_status drs__ag_fail(drs_status s, const char *op, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char full[512];
    snprintf(full, sizeof full, "%s: %s", op, msg);
    return drs_set_last_error(s, full);
}

drs_status drs__ag_wrap(drs_status s, const char *op)
{
    char msg[400];
    /* copy first: drs_set_last_error writes the buffer drs_last_error() points to */
    snprintf(msg, sizeof msg, "%s", drs_last_error());
    char full[512];
    snprintf(full, sizeof full, "%s: %s", op, msg);
    return drs_set_last_error(s, full);
}

drs_status drs__ag_check_tensor(const char *op, const char *name, const drs_tensor *t,
                                int64_t *numel)
{
    if (!t)
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op, "%s is NULL", name);
    if (drs_dtype_size(t->dtype) == 0)
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op, "%s has unknown dtype %d", name,
                            (int)t->dtype);
    if (t->rank < 1 || t->rank > DRS_MAX_RANK)
        return drs__ag_fail(DRS_ERR_SHAPE, op, "%s rank must be in [1, %d], got %d", name,
                            DRS_MAX_RANK, t->rank);
    int64_t n = 1, bytes;
    for (int i = 0; i < t->rank; i++) {
        if (t->shape[i] < 0)
            return drs__ag_fail(DRS_ERR_SHAPE, op, "%s shape[%d] must be >= 0, got %lld", name, i,
                                (long long)t->shape[i]);
        if (__builtin_mul_overflow(n, t->shape[i], &n))
            return drs__ag_fail(DRS_ERR_OVERFLOW, op, "%s element count overflows 64 bits",
                                name);
    }
    if (__builtin_mul_overflow(n, (int64_t)drs_dtype_size(t->dtype), &bytes))
        return drs__ag_fail(DRS_ERR_OVERFLOW, op, "%s byte size overflows 64 bits", name);
    if (n > 0 && !t->data)
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op,
                            "%s: data pointer is NULL for %lld elements", name, (long long)n);
    if (numel)
        *numel = n;
    return DRS_OK;
}

/* -------------------------------------------------------------- arena */
void *drs__ag_alloc(drs_tape *t, size_t bytes)
{
    if (bytes == 0)
        bytes = 1; /* every buffer gets a distinct non-NULL address */
    if (bytes > SIZE_MAX - AG_ALIGN)
        return NULL;
    bytes = (bytes + AG_ALIGN - 1) & ~(size_t)(AG_ALIGN - 1);
    ag_block *b = t->head;
    if (!b || b->cap - b->used < bytes) {
        size_t cap = bytes > AG_BLOCK ? bytes : AG_BLOCK;
        if (cap > SIZE_MAX - sizeof(ag_block) - AG_ALIGN)
            return NULL;
        unsigned char *raw = malloc(sizeof(ag_block) + AG_ALIGN + cap);
        if (!raw)
            return NULL;
        b = (ag_block *)raw;
        uintptr_t p = (uintptr_t)(raw + sizeof(ag_block));
        b->base = (unsigned char *)((p + AG_ALIGN - 1) & ~(uintptr_t)(AG_ALIGN - 1));
        b->cap = cap;
        b->used = 0;
        b->prev = t->head;
        t->head = b;
    }
    void *r = b->base + b->used;
    b->used += bytes;
    return r;
}

static void free_blocks_until(drs_tape *t, const ag_block *keep)
{
    while (t->head && t->head != keep) {
        ag_block *b = t->head;
        t->head = b->prev;
        free(b);
    }
}

/* --------------------------------------------------------------- tape */
drs_status drs_tape_new(drs_tape **tape)
{
    if (!tape)
        return drs_set_last_error(DRS_ERR_INVALID_ARGUMENT, "drs_tape_new: tape is NULL");
    drs_tape *t = calloc(1, sizeof *t);
    if (!t)
        return drs_set_last_error(DRS_ERR_NOMEM, "drs_tape_new: out of memory");
    t->grad_enabled = 1;
    *tape = t;
    return DRS_OK;
}

void drs_tape_free(drs_tape *tape)
{
    if (!tape)
        return;
    free_blocks_until(tape, NULL);
    free(tape);
}

drs_tape_pos drs_tape_tell(const drs_tape *tape)
{
    drs_tape_pos p = {NULL, 0, NULL, 0};
    if (!tape)
        return p;
    p.block_ = tape->head;
    p.used_ = tape->head ? tape->head->used : 0;
    p.last_ = tape->last;
    p.count_ = tape->count;
    return p;
}

void drs__ag_undo(drs_tape *t, drs_tape_pos pos)
{
    free_blocks_until(t, pos.block_);
    if (t->head)
        t->head->used = pos.used_;
    t->last = (drs_var *)pos.last_;
    t->count = pos.count_;
}

drs_status drs_tape_rewind(drs_tape *tape, drs_tape_pos pos)
{
    const char *op = "drs_tape_rewind";
    if (!tape)
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op, "tape is NULL");
    if (pos.count_ < 0 || pos.count_ > tape->count)
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op,
                            "pos holds %lld vars but the tape has %lld (a position from "
                            "another tape, or one already rewound past)",
                            (long long)pos.count_, (long long)tape->count);
    /* the block must still be on the chain, at a fill not beyond today's */
    const ag_block *b = tape->head;
    while (b && b != pos.block_)
        b = b->prev;
    if (b != pos.block_ || (b == tape->head && b && pos.used_ > b->used) ||
        (b && pos.used_ > b->cap))
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op,
                            "pos does not belong to this tape's current arena");
    const drs_var *v = tape->last;
    for (int64_t k = tape->count; k > pos.count_; k--)
        v = v->prev;
    if (v != pos.last_)
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op,
                            "pos does not match the tape's vars (another tape's position?)");
    drs__ag_undo(tape, pos);
    return DRS_OK;
}

int drs_tape_set_grad_enabled(drs_tape *tape, int enabled)
{
    if (!tape)
        return 0;
    int old = tape->grad_enabled;
    tape->grad_enabled = enabled ? 1 : 0;
    return old;
}

int drs_tape_grad_enabled(const drs_tape *tape) { return tape ? tape->grad_enabled : 0; }

int64_t drs_tape_num_vars(const drs_tape *tape) { return tape ? tape->count : 0; }

size_t drs_tape_bytes(const drs_tape *tape)
{
    size_t n = 0;
    for (const ag_block *b = tape ? tape->head : NULL; b; b = b->prev)
        n += b->used;
    return n;
}

static void zero_grad(drs_var *v)
{
    if (v->requires_grad)
        memset(v->grad.data, 0, (size_t)v->numel * drs_dtype_size(v->grad.dtype));
}

drs_status drs_tape_zero_grad(drs_tape *tape)
{
    if (!tape)
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, "drs_tape_zero_grad", "tape is NULL");
    for (drs_var *v = tape->last; v; v = v->prev)
        zero_grad(v);
    return DRS_OK;
}

/* ---------------------------------------------------------------- vars */
drs_status drs__ag_check_var(const char *op, const char *name, const drs_var *v,
                             const drs_tape *tape)
{
    if (!v)
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op, "%s is NULL", name);
    if (tape && v->tape != tape)
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op,
                            "%s is on another tape than the op's first input", name);
    return DRS_OK;
}

drs_status drs__ag_check_same(const char *op, const char *an, const drs_var *a, const char *bn,
                              const drs_var *b)
{
    if (a->value.dtype != b->value.dtype)
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op, "%s dtype must be %s (%s's), got %s",
                            bn, drs_dtype_name(a->value.dtype), an,
                            drs_dtype_name(b->value.dtype));
    if (a->value.rank != b->value.rank)
        return drs__ag_fail(DRS_ERR_SHAPE, op, "%s rank must be %d (%s's), got %d", bn,
                            a->value.rank, an, b->value.rank);
    for (int i = 0; i < a->value.rank; i++)
        if (a->value.shape[i] != b->value.shape[i])
            return drs__ag_fail(DRS_ERR_SHAPE, op, "%s shape[%d] must be %lld (%s's), got %lld",
                                bn, i, (long long)a->value.shape[i], an,
                                (long long)b->value.shape[i]);
    return DRS_OK;
}

drs_status drs__ag_node(drs_tape *t, const char *op, drs_dtype dtype, int rank,
                        const int64_t *shape, int requires_grad, ag_op kind, drs_var **out)
{
    if (dtype != DRS_F32 && dtype != DRS_F64)
        return drs__ag_fail(DRS_ERR_UNSUPPORTED, op, "dtype must be f32 or f64, got %s",
                            drs_dtype_name(dtype));
    if (rank < 1 || rank > DRS_MAX_RANK)
        return drs__ag_fail(DRS_ERR_SHAPE, op, "rank must be in [1, %d], got %d", DRS_MAX_RANK,
                            rank);
    int64_t n = 1, bytes;
    for (int i = 0; i < rank; i++) {
        if (shape[i] < 0)
            return drs__ag_fail(DRS_ERR_SHAPE, op, "shape[%d] must be >= 0, got %lld", i,
                                (long long)shape[i]);
        if (__builtin_mul_overflow(n, shape[i], &n))
            return drs__ag_fail(DRS_ERR_OVERFLOW, op, "element count overflows 64 bits");
    }
    if (__builtin_mul_overflow(n, (int64_t)drs_dtype_size(dtype), &bytes) ||
        (uint64_t)bytes > (uint64_t)(SIZE_MAX / 4))
        return drs__ag_fail(DRS_ERR_OVERFLOW, op, "byte size of %lld elements overflows",
                            (long long)n);
    drs_tape_pos pos = drs_tape_tell(t);
    drs_var *v = drs__ag_alloc(t, sizeof *v);
    void *val = v ? drs__ag_alloc(t, (size_t)bytes) : NULL;
    void *g = (val && requires_grad) ? drs__ag_alloc(t, (size_t)bytes) : NULL;
    if (!v || !val || (requires_grad && !g)) {
        drs__ag_undo(t, pos);
        return drs__ag_fail(DRS_ERR_NOMEM, op, "out of memory for %lld elements", (long long)n);
    }
    memset(v, 0, sizeof *v);
    v->value.dtype = dtype;
    v->value.rank = rank;
    for (int i = 0; i < rank; i++)
        v->value.shape[i] = shape[i];
    v->value.data = val;
    v->grad = v->value;
    v->grad.data = g;
    if (g)
        memset(g, 0, (size_t)bytes);
    v->numel = n;
    v->tape = t;
    v->requires_grad = requires_grad ? 1 : 0;
    v->op = kind;
    v->prev = t->last;
    t->last = v;
    t->count++;
    *out = v;
    return DRS_OK;
}

drs_status drs_var_new(drs_var **out, drs_tape *tape, drs_dtype dtype, int rank,
                       const int64_t *shape, const void *init, int requires_grad)
{
    const char *op = "drs_var_new";
    if (!out)
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op, "out is NULL");
    if (!tape)
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op, "tape is NULL");
    if (rank < 1 || rank > DRS_MAX_RANK)
        return drs__ag_fail(DRS_ERR_SHAPE, op, "rank must be in [1, %d], got %d", DRS_MAX_RANK,
                            rank);
    if (!shape)
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op, "shape is NULL");
    if (requires_grad != 0 && requires_grad != 1)
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op, "requires_grad must be 0 or 1, got %d",
                            requires_grad);
    drs_var *v;
    drs_status s = drs__ag_node(tape, op, dtype, rank, shape, requires_grad, AG_LEAF, &v);
    if (s)
        return s;
    size_t bytes = (size_t)v->numel * drs_dtype_size(dtype);
    if (init)
        memcpy(v->value.data, init, bytes);
    else
        memset(v->value.data, 0, bytes);
    *out = v;
    return DRS_OK;
}

drs_status drs_var_from_tensor(drs_var **out, drs_tape *tape, const drs_tensor *t,
                               int requires_grad)
{
    int64_t n = 0;
    drs_status s = drs__ag_check_tensor("drs_var_from_tensor", "t", t, &n);
    if (s)
        return s;
    return drs_var_new(out, tape, t->dtype, t->rank, t->shape, n ? t->data : NULL, requires_grad);
}

drs_tensor drs_var_value(const drs_var *v)
{
    if (!v) {
        drs_tensor z;
        memset(&z, 0, sizeof z);
        return z;
    }
    return v->value;
}

drs_tensor drs_var_grad(const drs_var *v)
{
    if (!v) {
        drs_tensor z;
        memset(&z, 0, sizeof z);
        return z;
    }
    return v->grad;
}

int drs_var_requires_grad(const drs_var *v) { return v ? v->requires_grad : 0; }
int drs_var_is_leaf(const drs_var *v) { return v ? v->op == AG_LEAF : 0; }

double drs_var_item(const drs_var *v)
{
    if (!v || v->numel < 1)
        return NAN;
    return v->value.dtype == DRS_F64 ? ((const double *)v->value.data)[0]
                                     : (double)((const float *)v->value.data)[0];
}

void drs__ag_axpy(drs_dtype dt, int64_t n, double alpha, const void *src, void *dst)
{
    if (dt == DRS_F64) {
        const double *x = src;
        double *y = dst;
#pragma omp parallel for schedule(static) num_threads((n > AG_PAR_MIN) ? ag__nthreads() : 1)
        for (int64_t i = 0; i < n; i++)
            y[i] += alpha * x[i];
    } else {
        const float *x = src;
        float *y = dst;
        const float a = (float)alpha;
#pragma omp parallel for schedule(static) num_threads((n > AG_PAR_MIN) ? ag__nthreads() : 1)
        for (int64_t i = 0; i < n; i++)
            y[i] += a * x[i];
    }
}

/* ------------------------------------------------------------ backward */
static drs_status backward_walk(drs_var *y, const char *op, const drs_tensor *dy)
{
    if (!y)
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op, "the var is NULL");
    if (!y->requires_grad)
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op,
                            "the var requires no grad (made from constants or in no-grad mode)");
    if (!dy && y->numel != 1)
        return drs__ag_fail(DRS_ERR_SHAPE, op,
                            "loss must have exactly 1 element, got %lld (use "
                            "drs_tape_backward_grad for a non-scalar output)",
                            (long long)y->numel);
    if (dy) {
        int64_t n;
        drs_status s = drs__ag_check_tensor(op, "dy", dy, &n);
        if (s)
            return s;
        if (dy->dtype != y->value.dtype)
            return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op, "dy dtype must be %s, got %s",
                                drs_dtype_name(y->value.dtype), drs_dtype_name(dy->dtype));
        if (dy->rank != y->value.rank)
            return drs__ag_fail(DRS_ERR_SHAPE, op, "dy rank must be %d, got %d", y->value.rank,
                                dy->rank);
        for (int i = 0; i < dy->rank; i++)
            if (dy->shape[i] != y->value.shape[i])
                return drs__ag_fail(DRS_ERR_SHAPE, op, "dy shape[%d] must be %lld, got %lld", i,
                                    (long long)y->value.shape[i], (long long)dy->shape[i]);
    }
    /* Fresh gradients for the recorded (non-leaf) vars up to y; leaves keep
     * accumulating across calls. */
    for (drs_var *v = y; v; v = v->prev) {
        v->reached = 0;
        if (v->op != AG_LEAF)
            zero_grad(v);
    }
    if (dy)
        drs__ag_axpy(y->value.dtype, y->numel, 1.0, dy->data, y->grad.data);
    else if (y->value.dtype == DRS_F64)
        ((double *)y->grad.data)[0] += 1.0;
    else
        ((float *)y->grad.data)[0] += 1.0f;
    y->reached = 1;
    /* Inputs are always older than the var they feed: newest → oldest is a
     * reverse topological order. */
    for (drs_var *v = y; v; v = v->prev) {
        if (!v->reached || v->op == AG_LEAF || !v->requires_grad)
            continue;
        drs_status s = v->op >= AG_INTERPOLATE ? drs__ag_backward_resample(v)
                                               : drs__ag_backward_basic(v);
        if (s)
            return s;
    }
    return DRS_OK;
}

drs_status drs_tape_backward(drs_var *loss)
{
    return backward_walk(loss, "drs_tape_backward", NULL);
}

drs_status drs_tape_backward_grad(drs_var *y, const drs_tensor *dy)
{
    if (!dy)
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, "drs_tape_backward_grad", "dy is NULL");
    return backward_walk(y, "drs_tape_backward_grad", dy);
}
