/* SPDX-License-Identifier: MIT */
/* ag_internal.h — private: the tape's node layout, its arena, and the helpers
 * the op files share.  Never installed.
 *
 * A drs_var is one node of the Wengert list: its value, its gradient (when it
 * requires one), the op that made it, that op's inputs and a copy of every
 * attribute the op's backward needs.  Nodes are chained newest → oldest by
 * `prev`, so drs_tape_backward() walks them in reverse order of creation.
 */
#ifndef DRS_AG_INTERNAL_H
#define DRS_AG_INTERNAL_H

#include "dresample_autograd.h"
/* Only the core's public API is used (the libraries are built with hidden
 * visibility): errors go to drs_last_error() through drs_set_last_error(). */

typedef enum ag_op {
    AG_LEAF = 0, /* also: any output made in no-grad mode */
    AG_ADD,
    AG_SUB,
    AG_MUL,
    AG_SCALE,
    AG_RELU,
    AG_SUM,
    AG_MEAN,
    AG_MSE,
    AG_MATMUL,
    AG_AFFINE_GRID,
    AG_INTERPOLATE,
    AG_RESIZE,
    AG_TORCH,
    AG_GRID_SAMPLE
} ag_op;

#define AG_MAX_IN 3

struct drs_var {
    drs_tensor value;
    drs_tensor grad;     /* data == NULL when !requires_grad */
    int64_t numel;
    drs_tape *tape;
    drs_var *prev;       /* previous var on the tape (older) */
    int requires_grad;
    int reached;         /* backward: a gradient flowed into this var */
    ag_op op;
    drs_var *in[AG_MAX_IN];
    double c;            /* scale constant */
    union {
        struct {
            drs_interpolate_attrs a;
            drs_interpolate_inputs in; /* arrays copied into the arena */
        } interp;        /* in[0] data, in[1] scales var or NULL */
        struct {
            drs_resize_attrs a;
            drs_resize_inputs in;
        } resize;        /* in[0] X, in[1] roi var, in[2] scales var */
        drs_torch_interpolate_attrs torch;
        drs_grid_sample_attrs grid;
        struct {
            int n_spatial;
            int align_corners;
            int64_t size[3];
        } affine;
    } u;
};

typedef struct ag_block ag_block;

struct drs_tape {
    ag_block *head;      /* newest arena block */
    drs_var *last;       /* newest var */
    int64_t count;       /* vars on the tape */
    int grad_enabled;
};

/* Arena allocation (64-byte aligned, not zeroed); NULL on overflow/NOMEM. */
void *drs__ag_alloc(drs_tape *t, size_t bytes);

/* Formats "<op>: <message>" into the thread-local error and returns s. */
drs_status drs__ag_fail(drs_status s, const char *op, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Re-raises the library's last message behind the tape op's name. */
drs_status drs__ag_wrap(drs_status s, const char *op);
/* Validates a tensor view argument (dtype, rank, shape, data pointer, 64-bit
 * element and byte counts) as the core does its own, naming op and name. */
drs_status drs__ag_check_tensor(const char *op, const char *name, const drs_tensor *t,
                                int64_t *numel);

/* Checks a var argument: non-NULL, on `tape` (when tape != NULL), f32/f64. */
drs_status drs__ag_check_var(const char *op, const char *name, const drs_var *v,
                             const drs_tape *tape);
/* Checks b against a: same dtype, rank and shape ("b shape[1] must be 3 (a's), got 4"). */
drs_status drs__ag_check_same(const char *op, const char *an, const drs_var *a, const char *bn,
                              const drs_var *b);

/* Makes a new node of dtype/shape on t (value uninitialised; grad zeroed when
 * requires_grad) and links it as the newest var.  On error nothing changes. */
drs_status drs__ag_node(drs_tape *t, const char *op, drs_dtype dtype, int rank,
                        const int64_t *shape, int requires_grad, ag_op kind, drs_var **out);
/* Undoes everything allocated and linked since pos (a failed op). */
void drs__ag_undo(drs_tape *t, drs_tape_pos pos);

/* Accumulates n elements of src (dtype dt) scaled by alpha into dst. */
void drs__ag_axpy(drs_dtype dt, int64_t n, double alpha, const void *src, void *dst);

/* Backward of one recorded var (the op files). */
drs_status drs__ag_backward_basic(drs_var *v);    /* ops.c */
drs_status drs__ag_backward_resample(drs_var *v); /* resample_ops.c */

/* Marks v as reached by a gradient (backward bookkeeping). */
static inline void drs__ag_touch(drs_var *v) { v->reached = 1; }

/* The loop threshold below which OpenMP is not worth starting. */
#define AG_PAR_MIN 32768
/* The library's thread setting (drs_set_num_threads), applied per region. */
int ag__nthreads(void);

#endif
