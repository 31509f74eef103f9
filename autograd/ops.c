/* SPDX-License-Identifier: MIT */
/* ops.c — the tape's own ops and their backward: add, sub, mul, scale, relu,
 * sum, mean, mse_loss, matmul (BLIS gemm) and affine_grid (PyTorch
 * F.affine_grid, 2-D and 3-D).
 *
 * Shapes: elementwise ops take equal shapes; reductions give [1]; matmul
 * [M,K]x[K,N]; affine_grid theta [N,S,S+1] -> grid [N, size..., S].
 *
 * Threads: elementwise loops are `omp parallel for schedule(static)` with each
 * element written by one iteration; reductions (sum, mean, mse, the theta
 * gradient) run serially in double in index order, so every result is
 * bitwise the same for any thread count.  BLIS level-3 threads itself and is
 * never called from inside a parallel region.
 */
/* blis.h needs POSIX types (pthread barriers) under strict -std=c11 */
#define _POSIX_C_SOURCE 200809L
#include "ag_internal.h"

#include <blis.h>
#include <math.h>
#include <omp.h>
#include <string.h>

/* Runs BODY with T = double or float per dtype. */
#define AG_TYPED(dt, ...)                                                                    \
    do {                                                                                     \
        if ((dt) == DRS_F64) {                                                               \
            typedef double T;                                                                \
            __VA_ARGS__                                                                      \
        } else {                                                                             \
            typedef float T;                                                                 \
            __VA_ARGS__                                                                      \
        }                                                                                    \
    } while (0)
#define AG_PRAGMA(x) _Pragma(#x)
/* #pragma cannot appear inside a macro argument: these can. */
#define AG_OMP_FOR_IF(cond) AG_PRAGMA(omp parallel for schedule(static) num_threads((cond) ? ag__nthreads() : 1))
#define AG_OMP_FOR AG_OMP_FOR_IF(n > AG_PAR_MIN)

static int wants(const drs_var *v) { return v && v->requires_grad && v->tape->grad_enabled; }

/* Output node: recorded (kind, inputs) only when it requires grad. */
static drs_status out_node(const char *op, drs_tape *t, drs_dtype dt, int rank,
                           const int64_t *shape, int rg, ag_op kind, drs_var *a, drs_var *b,
                           drs_var **o)
{
    drs_status s = drs__ag_node(t, op, dt, rank, shape, rg, rg ? kind : AG_LEAF, o);
    if (s)
        return s;
    if (rg) {
        (*o)->in[0] = a;
        (*o)->in[1] = b;
    }
    return DRS_OK;
}

/* ------------------------------------------------------- elementwise */
static drs_status binary(const char *op, ag_op kind, drs_var **out, drs_var *a, drs_var *b)
{
    drs_status s;
    if (!out)
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op, "out is NULL");
    if ((s = drs__ag_check_var(op, "a", a, NULL)) || (s = drs__ag_check_var(op, "b", b, a->tape)) ||
        (s = drs__ag_check_same(op, "a", a, "b", b)))
        return s;
    int rg = wants(a) || wants(b);
    drs_var *o;
    if ((s = out_node(op, a->tape, a->value.dtype, a->value.rank, a->value.shape, rg, kind, a, b,
                      &o)))
        return s;
    const int64_t n = a->numel;
    AG_TYPED(a->value.dtype, {
        const T *x = a->value.data;
        const T *y = b->value.data;
        T *z = o->value.data;
        if (kind == AG_ADD) {
            AG_OMP_FOR
            for (int64_t i = 0; i < n; i++)
                z[i] = x[i] + y[i];
        } else if (kind == AG_SUB) {
            AG_OMP_FOR
            for (int64_t i = 0; i < n; i++)
                z[i] = x[i] - y[i];
        } else {
            AG_OMP_FOR
            for (int64_t i = 0; i < n; i++)
                z[i] = x[i] * y[i];
        }
    });
    *out = o;
    return DRS_OK;
}

drs_status drs_ag_add(drs_var **out, drs_var *a, drs_var *b)
{
    return binary("drs_ag_add", AG_ADD, out, a, b);
}
drs_status drs_ag_sub(drs_var **out, drs_var *a, drs_var *b)
{
    return binary("drs_ag_sub", AG_SUB, out, a, b);
}
drs_status drs_ag_mul(drs_var **out, drs_var *a, drs_var *b)
{
    return binary("drs_ag_mul", AG_MUL, out, a, b);
}

drs_status drs_ag_scale(drs_var **out, drs_var *a, double c)
{
    const char *op = "drs_ag_scale";
    drs_status s;
    if (!out)
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op, "out is NULL");
    if ((s = drs__ag_check_var(op, "a", a, NULL)))
        return s;
    if (!isfinite(c))
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op, "c must be finite, got %g", c);
    drs_var *o;
    if ((s = out_node(op, a->tape, a->value.dtype, a->value.rank, a->value.shape, wants(a),
                      AG_SCALE, a, NULL, &o)))
        return s;
    o->c = c;
    const int64_t n = a->numel;
    AG_TYPED(a->value.dtype, {
        const T *x = a->value.data;
        T *z = o->value.data;
        const T cc = (T)c;
        AG_OMP_FOR
        for (int64_t i = 0; i < n; i++)
            z[i] = cc * x[i];
    });
    *out = o;
    return DRS_OK;
}

drs_status drs_ag_relu(drs_var **out, drs_var *a)
{
    const char *op = "drs_ag_relu";
    drs_status s;
    if (!out)
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op, "out is NULL");
    if ((s = drs__ag_check_var(op, "a", a, NULL)))
        return s;
    drs_var *o;
    if ((s = out_node(op, a->tape, a->value.dtype, a->value.rank, a->value.shape, wants(a),
                      AG_RELU, a, NULL, &o)))
        return s;
    const int64_t n = a->numel;
    AG_TYPED(a->value.dtype, {
        const T *x = a->value.data;
        T *z = o->value.data;
        AG_OMP_FOR
        for (int64_t i = 0; i < n; i++)
            z[i] = x[i] > 0 ? x[i] : (T)0;
    });
    *out = o;
    return DRS_OK;
}

/* -------------------------------------------------------- reductions */
static double sum_of(const drs_var *a)
{
    double acc = 0;
    AG_TYPED(a->value.dtype, {
        const T *x = a->value.data;
        for (int64_t i = 0; i < a->numel; i++)
            acc += (double)x[i];
    });
    return acc;
}

static void set_scalar(drs_var *o, double v)
{
    if (o->value.dtype == DRS_F64)
        ((double *)o->value.data)[0] = v;
    else
        ((float *)o->value.data)[0] = (float)v;
}

static double scalar_grad(const drs_var *o)
{
    return o->value.dtype == DRS_F64 ? ((const double *)o->grad.data)[0]
                                     : (double)((const float *)o->grad.data)[0];
}

static drs_status reduce(const char *op, ag_op kind, drs_var **out, drs_var *a, drs_var *b)
{
    drs_status s;
    if (!out)
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op, "out is NULL");
    if ((s = drs__ag_check_var(op, "a", a, NULL)))
        return s;
    if (kind == AG_MSE &&
        ((s = drs__ag_check_var(op, "b", b, a->tape)) || (s = drs__ag_check_same(op, "a", a, "b", b))))
        return s;
    if (kind != AG_SUM && a->numel == 0)
        return drs__ag_fail(DRS_ERR_SHAPE, op, "a must not be empty (its mean is undefined)");
    const int64_t one = 1;
    drs_var *o;
    int rg = wants(a) || (kind == AG_MSE && wants(b));
    if ((s = out_node(op, a->tape, a->value.dtype, 1, &one, rg, kind, a, b, &o)))
        return s;
    double v;
    if (kind == AG_MSE) {
        double acc = 0;
        AG_TYPED(a->value.dtype, {
            const T *x = a->value.data;
            const T *y = b->value.data;
            for (int64_t i = 0; i < a->numel; i++) {
                double d = (double)x[i] - (double)y[i];
                acc += d * d;
            }
        });
        v = acc / (double)a->numel;
    } else {
        v = sum_of(a);
        if (kind == AG_MEAN)
            v /= (double)a->numel;
    }
    set_scalar(o, v);
    *out = o;
    return DRS_OK;
}

drs_status drs_ag_sum(drs_var **out, drs_var *a) { return reduce("drs_ag_sum", AG_SUM, out, a, NULL); }
drs_status drs_ag_mean(drs_var **out, drs_var *a)
{
    return reduce("drs_ag_mean", AG_MEAN, out, a, NULL);
}
drs_status drs_ag_mse_loss(drs_var **out, drs_var *a, drs_var *b)
{
    return reduce("drs_ag_mse_loss", AG_MSE, out, a, b);
}

/* ------------------------------------------------------------ matmul */
/* C[m,n] = alpha * op(A) op(B) + beta * C with explicit strides (BLIS). */
static void gemm(drs_dtype dt, int64_t m, int64_t n, int64_t k, const void *A, int64_t rsa,
                 int64_t csa, const void *B, int64_t rsb, int64_t csb, double beta, void *C,
                 int64_t rsc, int64_t csc)
{
    if (m == 0 || n == 0)
        return;
    if (k == 0) { /* BLIS would only scale C by beta; do it here, strides stay simple */
        if (beta == 0)
            for (int64_t i = 0; i < m; i++)
                for (int64_t j = 0; j < n; j++) {
                    if (dt == DRS_F64)
                        ((double *)C)[i * rsc + j * csc] = 0;
                    else
                        ((float *)C)[i * rsc + j * csc] = 0;
                }
        return;
    }
    if (dt == DRS_F64) {
        double al = 1, be = beta;
        bli_dgemm(BLIS_NO_TRANSPOSE, BLIS_NO_TRANSPOSE, m, n, k, &al, (double *)A, rsa, csa,
                  (double *)B, rsb, csb, &be, (double *)C, rsc, csc);
    } else {
        float al = 1, be = (float)beta;
        bli_sgemm(BLIS_NO_TRANSPOSE, BLIS_NO_TRANSPOSE, m, n, k, &al, (float *)A, rsa, csa,
                  (float *)B, rsb, csb, &be, (float *)C, rsc, csc);
    }
}

drs_status drs_ag_matmul(drs_var **out, drs_var *a, drs_var *b)
{
    const char *op = "drs_ag_matmul";
    drs_status s;
    if (!out)
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op, "out is NULL");
    if ((s = drs__ag_check_var(op, "a", a, NULL)) || (s = drs__ag_check_var(op, "b", b, a->tape)))
        return s;
    if (a->value.rank != 2)
        return drs__ag_fail(DRS_ERR_SHAPE, op, "a rank must be 2, got %d", a->value.rank);
    if (b->value.rank != 2)
        return drs__ag_fail(DRS_ERR_SHAPE, op, "b rank must be 2, got %d", b->value.rank);
    if (b->value.dtype != a->value.dtype)
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op, "b dtype must be %s (a's), got %s",
                            drs_dtype_name(a->value.dtype), drs_dtype_name(b->value.dtype));
    const int64_t M = a->value.shape[0], K = a->value.shape[1], N = b->value.shape[1];
    if (b->value.shape[0] != K)
        return drs__ag_fail(DRS_ERR_SHAPE, op, "b shape[0] must be %lld (a's shape[1]), got %lld",
                            (long long)K, (long long)b->value.shape[0]);
    if (omp_in_parallel())
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op,
                            "called inside an OpenMP parallel region (BLIS gemm threads itself)");
    const int64_t shape[2] = {M, N};
    drs_var *o;
    if ((s = out_node(op, a->tape, a->value.dtype, 2, shape, wants(a) || wants(b), AG_MATMUL, a,
                      b, &o)))
        return s;
    gemm(a->value.dtype, M, N, K, a->value.data, K, 1, b->value.data, N, 1, 0.0, o->value.data,
         N, 1);
    *out = o;
    return DRS_OK;
}

/* ------------------------------------------------------- affine_grid */
/* PyTorch's base coordinate of index i on an axis of length L. */
static double base_coord(int64_t i, int64_t L, int align_corners)
{
    if (L <= 1)
        return 0.0;
    if (align_corners)
        return -1.0 + 2.0 * (double)i / (double)(L - 1);
    return (2.0 * (double)i + 1.0) / (double)L - 1.0;
}

/* The base (x, y[, z]) of flat pixel p of a grid with spatial size sz (D,H,W
 * order, S entries). */
static void base_of(int64_t p, int S, const int64_t *sz, int ac, double *xyz)
{
    for (int k = 0; k < S; k++) { /* k = 0: x (last axis) */
        int64_t L = sz[S - 1 - k];
        int64_t i = p % L;
        p /= L;
        xyz[k] = base_coord(i, L, ac);
    }
}

drs_status drs_ag_affine_grid(drs_var **grid, drs_var *theta, int n_spatial,
                              const int64_t *size, int align_corners)
{
    const char *op = "drs_ag_affine_grid";
    drs_status s;
    if (!grid)
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op, "grid is NULL");
    if ((s = drs__ag_check_var(op, "theta", theta, NULL)))
        return s;
    if (n_spatial != 2 && n_spatial != 3)
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op, "n_spatial must be 2 or 3, got %d",
                            n_spatial);
    if (!size)
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op, "size is NULL");
    if (align_corners != 0 && align_corners != 1)
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, op, "align_corners must be 0 or 1, got %d",
                            align_corners);
    const int S = n_spatial;
    if (theta->value.rank != 3)
        return drs__ag_fail(DRS_ERR_SHAPE, op, "theta rank must be 3 ([N, %d, %d]), got %d", S,
                            S + 1, theta->value.rank);
    if (theta->value.shape[1] != S)
        return drs__ag_fail(DRS_ERR_SHAPE, op, "theta shape[1] must be %d (n_spatial %d), got %lld",
                            S, S, (long long)theta->value.shape[1]);
    if (theta->value.shape[2] != S + 1)
        return drs__ag_fail(DRS_ERR_SHAPE, op,
                            "theta shape[2] must be %d (n_spatial %d), got %lld", S + 1, S,
                            (long long)theta->value.shape[2]);
    int64_t shape[5];
    shape[0] = theta->value.shape[0];
    for (int k = 0; k < S; k++) {
        if (size[k] < 0)
            return drs__ag_fail(DRS_ERR_SHAPE, op, "size[%d] must be >= 0, got %lld", k,
                                (long long)size[k]);
        shape[1 + k] = size[k];
    }
    shape[1 + S] = S;
    drs_var *o;
    if ((s = out_node(op, theta->tape, theta->value.dtype, S + 2, shape, wants(theta),
                      AG_AFFINE_GRID, theta, NULL, &o)))
        return s;
    o->u.affine.n_spatial = S;
    o->u.affine.align_corners = align_corners;
    for (int k = 0; k < S; k++)
        o->u.affine.size[k] = size[k];
    const int64_t P = o->numel / (shape[0] ? shape[0] * S : 1); /* pixels per batch item */
    const int64_t n = o->numel / S;                              /* pixels in all */
    const int64_t *sz = o->u.affine.size;
    AG_TYPED(theta->value.dtype, {
        const T *th = theta->value.data;
        T *g = o->value.data;
        AG_OMP_FOR
        for (int64_t q = 0; q < n; q++) {
            const T *tn = th + (q / P) * S * (S + 1);
            double xyz[3];
            base_of(q % P, S, sz, align_corners, xyz);
            for (int i = 0; i < S; i++) {
                double acc = (double)tn[i * (S + 1) + S];
                for (int j = 0; j < S; j++)
                    acc += (double)tn[i * (S + 1) + j] * xyz[j];
                g[q * S + i] = (T)acc;
            }
        }
    });
    *grid = o;
    return DRS_OK;
}

/* ---------------------------------------------------------- backward */
static drs_status backward_affine(drs_var *v)
{
    drs_var *th = v->in[0];
    const int S = v->u.affine.n_spatial;
    const int64_t N = th->value.shape[0];
    const int64_t P = N ? v->numel / (N * S) : 0;
    const int64_t *sz = v->u.affine.size;
    const int ac = v->u.affine.align_corners;
    /* dtheta[n,i,j] = sum_p dgrid[n,p,i] base_j(p) (base_S = 1): a serial sum
     * per batch item, in pixel order, parallel over the batch. */
    AG_TYPED(v->value.dtype, {
        const T *dg = v->grad.data;
        T *dth = th->grad.data;
AG_OMP_FOR_IF(N > 1 && N * P > AG_PAR_MIN)
        for (int64_t b = 0; b < N; b++) {
            double acc[3][4] = {{0}};
            for (int64_t p = 0; p < P; p++) {
                double xyz[4];
                base_of(p, S, sz, ac, xyz);
                xyz[S] = 1.0;
                const T *d = dg + (b * P + p) * S;
                for (int i = 0; i < S; i++)
                    for (int j = 0; j <= S; j++)
                        acc[i][j] += (double)d[i] * xyz[j];
            }
            for (int i = 0; i < S; i++)
                for (int j = 0; j <= S; j++)
                    dth[(b * S + i) * (S + 1) + j] += (T)acc[i][j];
        }
    });
    drs__ag_touch(th);
    return DRS_OK;
}

static drs_status backward_matmul(drs_var *v)
{
    drs_var *a = v->in[0], *b = v->in[1];
    const int64_t M = a->value.shape[0], K = a->value.shape[1], N = b->value.shape[1];
    if (omp_in_parallel())
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, "drs_tape_backward",
                            "matmul backward inside an OpenMP parallel region");
    const drs_dtype dt = v->value.dtype;
    if (a->requires_grad) { /* da[M,K] += dc[M,N] . b^T (b^T: rs 1, cs N) */
        gemm(dt, M, K, N, v->grad.data, N, 1, b->value.data, 1, N, 1.0, a->grad.data, K, 1);
        drs__ag_touch(a);
    }
    if (b->requires_grad) { /* db[K,N] += a^T (rs 1, cs K) . dc[M,N] */
        gemm(dt, K, N, M, a->value.data, 1, K, v->grad.data, N, 1, 1.0, b->grad.data, N, 1);
        drs__ag_touch(b);
    }
    return DRS_OK;
}

drs_status drs__ag_backward_basic(drs_var *v)
{
    drs_var *a = v->in[0], *b = v->in[1];
    const int64_t n = v->numel;
    const drs_dtype dt = v->value.dtype;
    switch (v->op) {
    case AG_ADD:
    case AG_SUB:
        /* out = a ± b: da += g, db ±= g */
        if (a->requires_grad) {
            drs__ag_axpy(dt, n, 1.0, v->grad.data, a->grad.data);
            drs__ag_touch(a);
        }
        if (b->requires_grad) {
            drs__ag_axpy(dt, n, v->op == AG_ADD ? 1.0 : -1.0, v->grad.data, b->grad.data);
            drs__ag_touch(b);
        }
        return DRS_OK;
    case AG_SCALE: /* out = c a: da += c g */
        drs__ag_axpy(dt, n, v->c, v->grad.data, a->grad.data);
        drs__ag_touch(a);
        return DRS_OK;
    case AG_MUL: /* out = a * b: da += g b, db += g a (a == b gets both) */
        AG_TYPED(dt, {
            const T *g = v->grad.data, *x = a->value.data, *y = b->value.data;
            if (a->requires_grad) {
                T *dx = a->grad.data;
                AG_OMP_FOR
                for (int64_t i = 0; i < n; i++)
                    dx[i] += g[i] * y[i];
            }
            if (b->requires_grad) {
                T *dy = b->grad.data;
                AG_OMP_FOR
                for (int64_t i = 0; i < n; i++)
                    dy[i] += g[i] * x[i];
            }
        });
        if (a->requires_grad)
            drs__ag_touch(a);
        if (b->requires_grad)
            drs__ag_touch(b);
        return DRS_OK;
    case AG_RELU: /* out = max(a, 0): da += g [a > 0] */
        AG_TYPED(dt, {
            const T *g = v->grad.data, *x = a->value.data;
            T *dx = a->grad.data;
            AG_OMP_FOR
            for (int64_t i = 0; i < n; i++)
                if (x[i] > 0)
                    dx[i] += g[i];
        });
        drs__ag_touch(a);
        return DRS_OK;
    case AG_SUM:
    case AG_MEAN: { /* out = sum a (/ n): da += g0 (/ n) */
        double g0 = scalar_grad(v);
        if (v->op == AG_MEAN)
            g0 /= (double)a->numel;
        const int64_t m = a->numel;
        AG_TYPED(dt, {
            T *dx = a->grad.data;
            const T gg = (T)g0;
AG_OMP_FOR_IF(m > AG_PAR_MIN)
            for (int64_t i = 0; i < m; i++)
                dx[i] += gg;
        });
        drs__ag_touch(a);
        return DRS_OK;
    }
    case AG_MSE: { /* out = mean((a-b)^2): da += 2 g0 (a-b)/n, db -= the same */
        const double c = 2.0 * scalar_grad(v) / (double)a->numel;
        const int64_t m = a->numel;
        AG_TYPED(dt, {
            const T *x = a->value.data, *y = b->value.data;
            if (a->requires_grad) {
                T *dx = a->grad.data;
AG_OMP_FOR_IF(m > AG_PAR_MIN)
                for (int64_t i = 0; i < m; i++)
                    dx[i] += (T)(c * ((double)x[i] - (double)y[i]));
            }
            if (b->requires_grad) {
                T *dy = b->grad.data;
AG_OMP_FOR_IF(m > AG_PAR_MIN)
                for (int64_t i = 0; i < m; i++)
                    dy[i] -= (T)(c * ((double)x[i] - (double)y[i]));
            }
        });
        if (a->requires_grad)
            drs__ag_touch(a);
        if (b->requires_grad)
            drs__ag_touch(b);
        return DRS_OK;
    }
    case AG_MATMUL:
        return backward_matmul(v);
    case AG_AFFINE_GRID:
        return backward_affine(v);
    default:
        return drs__ag_fail(DRS_ERR_INVALID_ARGUMENT, "drs_tape_backward",
                            "internal: op %d is not a basic op", (int)v->op);
    }
}
