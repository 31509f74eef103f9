/* SPDX-License-Identifier: MIT */
/* test_autograd.c — the tape autograd (include/dresample_autograd.h).
 *
 *  - hand-checkable values and gradients of add, sub, mul, scale, relu, sum,
 *    mean, mse_loss; matmul against a hand loop (values and both gradients);
 *    affine_grid against hand values and against PyTorch's F.affine_grid;
 *  - every recorded resample op (Interpolate-1/4/11, Resize-10..19,
 *    TorchInterpolate, GridSample 4-D/5-D, affine_grid -> GridSample): the
 *    tape's gradients to data, scales, roi, grid and theta against float64
 *    central finite differences of the forward (points kept off kinks);
 *  - accumulation (one var feeding several ops, backward twice), zero_grad,
 *    no-grad mode, vector-Jacobian backward, rewind, f32 vs f64, 1 vs 3
 *    threads (memcmp);
 *  - failing ops: a status, a message naming the argument and value, *out
 *    untouched, nothing recorded, and the tape still usable.
 *
 * `test_autograd --quick` checks fewer elements per finite-difference case
 * (the valgrind run).  Exit status 0 only if every check passed.
 */
#include <dresample.h>
#include <dresample_autograd.h>

#include "check.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_quick;
static int g_fd_cases, g_fd_checks;


/* Stops the current test function on a failed call (the message says why). */
#define OKR(call)                                                                            \
    do {                                                                                     \
        drs_status st_ = (call);                                                             \
        if (st_ != DRS_OK) {                                                                 \
            g_fail++;                                                                        \
            printf("FAIL %s:%d: %s -> %s: %s\n", __FILE__, __LINE__, #call,                  \
                   drs_status_str(st_), drs_last_error());                                   \
            return;                                                                          \
        }                                                                                    \
    } while (0)

static uint64_t g_rng = 0x9e3779b97f4a7c15ull;
static double urand(void) /* [0, 1) */
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return (double)(g_rng >> 11) / 9007199254740992.0;
}
static double srand2(double lo, double hi) { return lo + (hi - lo) * urand(); }

static double *f64(drs_var *v) { return drs_var_value(v).data; }
static double *g64(drs_var *v) { return drs_var_grad(v).data; }
static int64_t numel(drs_var *v)
{
    drs_tensor t = drs_var_value(v);
    int64_t n = 0;
    drs_tensor_numel(&t, &n);
    return n;
}

static drs_var *leaf(drs_tape *t, int rank, const int64_t *shape, const double *init, int rg)
{
    drs_var *v = NULL;
    if (drs_var_new(&v, t, DRS_F64, rank, shape, init, rg) != DRS_OK) {
        printf("drs_var_new failed: %s\n", drs_last_error());
        exit(2);
    }
    return v;
}

static drs_var *rand_leaf(drs_tape *t, int rank, const int64_t *shape, double lo, double hi, int rg)
{
    drs_var *v = leaf(t, rank, shape, NULL, rg);
    double *x = f64(v);
    for (int64_t i = 0; i < numel(v); i++)
        x[i] = srand2(lo, hi);
    return v;
}

static int near(double a, double b, double tol) { return fabs(a - b) <= tol; }

/* ================================================= elementwise, by hand */
static void test_elementwise(void)
{
    drs_tape *t;
    OKR(drs_tape_new(&t));
    const int64_t sh[1] = {3};
    const double av[3] = {1, -2, 3}, bv[3] = {0.5, 4, -1};
    drs_var *a = leaf(t, 1, sh, av, 1), *b = leaf(t, 1, sh, bv, 1), *o, *L;
    drs_tape_pos p0 = drs_tape_tell(t);

    /* add: values a+b; d sum / da = 1, d/db = 1 */
    OKR(drs_ag_add(&o, a, b));
    OKR(drs_ag_sum(&L, o));
    CHECK(f64(o)[0] == 1.5 && f64(o)[1] == 2 && f64(o)[2] == 2, "add values");
    CHECK(drs_var_item(L) == 5.5, "sum(add) = %g", drs_var_item(L));
    OKR(drs_tape_backward(L));
    for (int i = 0; i < 3; i++)
        CHECK(g64(a)[i] == 1 && g64(b)[i] == 1, "add grads [%d]", i);
    OKR(drs_tape_rewind(t, p0));

    /* sub: d/db = -1 */
    OKR(drs_tape_zero_grad(t));
    OKR(drs_ag_sub(&o, a, b));
    OKR(drs_ag_sum(&L, o));
    CHECK(f64(o)[0] == 0.5 && f64(o)[1] == -6 && f64(o)[2] == 4, "sub values");
    OKR(drs_tape_backward(L));
    for (int i = 0; i < 3; i++)
        CHECK(g64(a)[i] == 1 && g64(b)[i] == -1, "sub grads [%d]", i);
    OKR(drs_tape_rewind(t, p0));

    /* mul: da = b, db = a */
    OKR(drs_tape_zero_grad(t));
    OKR(drs_ag_mul(&o, a, b));
    OKR(drs_ag_sum(&L, o));
    CHECK(f64(o)[0] == 0.5 && f64(o)[1] == -8 && f64(o)[2] == -3, "mul values");
    OKR(drs_tape_backward(L));
    for (int i = 0; i < 3; i++)
        CHECK(g64(a)[i] == bv[i] && g64(b)[i] == av[i], "mul grads [%d]", i);
    OKR(drs_tape_rewind(t, p0));

    /* mul(a, a): both operands are a, da = 2a */
    OKR(drs_tape_zero_grad(t));
    OKR(drs_ag_mul(&o, a, a));
    OKR(drs_ag_sum(&L, o));
    CHECK(drs_var_item(L) == 14, "sum(a*a) = %g", drs_var_item(L));
    OKR(drs_tape_backward(L));
    for (int i = 0; i < 3; i++)
        CHECK(g64(a)[i] == 2 * av[i], "mul(a,a) grad [%d] = %g", i, g64(a)[i]);
    OKR(drs_tape_rewind(t, p0));

    /* scale by 2.5: da = 2.5 */
    OKR(drs_tape_zero_grad(t));
    OKR(drs_ag_scale(&o, a, 2.5));
    OKR(drs_ag_sum(&L, o));
    CHECK(f64(o)[0] == 2.5 && f64(o)[1] == -5 && f64(o)[2] == 7.5, "scale values");
    OKR(drs_tape_backward(L));
    for (int i = 0; i < 3; i++)
        CHECK(g64(a)[i] == 2.5 && g64(b)[i] == 0, "scale grads [%d]", i);
    OKR(drs_tape_rewind(t, p0));

    /* relu: [1, 0, 3], grad [1, 0, 1] */
    OKR(drs_tape_zero_grad(t));
    OKR(drs_ag_relu(&o, a));
    OKR(drs_ag_sum(&L, o));
    CHECK(f64(o)[0] == 1 && f64(o)[1] == 0 && f64(o)[2] == 3, "relu values");
    OKR(drs_tape_backward(L));
    CHECK(g64(a)[0] == 1 && g64(a)[1] == 0 && g64(a)[2] == 1, "relu grads");
    OKR(drs_tape_rewind(t, p0));

    /* mean: 2/3, grad 1/3 */
    OKR(drs_tape_zero_grad(t));
    OKR(drs_ag_mean(&L, a));
    CHECK(near(drs_var_item(L), 2.0 / 3.0, 1e-15), "mean = %.17g", drs_var_item(L));
    OKR(drs_tape_backward(L));
    for (int i = 0; i < 3; i++)
        CHECK(near(g64(a)[i], 1.0 / 3.0, 1e-15), "mean grad [%d]", i);
    OKR(drs_tape_rewind(t, p0));

    /* mse: (0.25 + 36 + 16)/3; da = 2(a-b)/3 = [1/3, -4, 8/3], db = -da */
    OKR(drs_tape_zero_grad(t));
    OKR(drs_ag_mse_loss(&L, a, b));
    CHECK(near(drs_var_item(L), 52.25 / 3.0, 1e-13), "mse = %.17g", drs_var_item(L));
    OKR(drs_tape_backward(L));
    const double dm[3] = {1.0 / 3.0, -4.0, 8.0 / 3.0};
    for (int i = 0; i < 3; i++)
        CHECK(near(g64(a)[i], dm[i], 1e-15) && near(g64(b)[i], -dm[i], 1e-15),
              "mse grads [%d]: %g %g", i, g64(a)[i], g64(b)[i]);
    OKR(drs_tape_rewind(t, p0));

    /* sum of an empty var is 0 */
    const int64_t z[1] = {0};
    drs_var *e = leaf(t, 1, z, NULL, 1);
    OKR(drs_ag_sum(&L, e));
    CHECK(drs_var_item(L) == 0, "sum(empty) = %g", drs_var_item(L));
    OKR(drs_tape_backward(L));
    drs_tape_free(t);
}

/* ============================================================ matmul */
static void test_matmul(void)
{
    drs_tape *t;
    OKR(drs_tape_new(&t));
    const int64_t dims[][3] = {{3, 4, 5}, {1, 1, 7}, {4, 1, 1}, {2, 6, 1}, {5, 3, 2}};
    for (size_t c = 0; c < sizeof dims / sizeof dims[0]; c++) {
        const int64_t M = dims[c][0], K = dims[c][1], N = dims[c][2];
        drs_tape_pos p = drs_tape_tell(t);
        const int64_t sa[2] = {M, K}, sb[2] = {K, N}, sw[2] = {M, N};
        drs_var *A = rand_leaf(t, 2, sa, -1, 1, 1), *B = rand_leaf(t, 2, sb, -1, 1, 1);
        drs_var *W = rand_leaf(t, 2, sw, -1, 1, 0), *C, *CW, *L;
        OKR(drs_ag_matmul(&C, A, B));
        OKR(drs_ag_mul(&CW, C, W));
        OKR(drs_ag_sum(&L, CW));
        OKR(drs_tape_backward(L));
        const double *a = f64(A), *b = f64(B), *w = f64(W);
        double e = 0, ea = 0, eb = 0;
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) {
                double s = 0;
                for (int64_t k = 0; k < K; k++)
                    s += a[i * K + k] * b[k * N + j];
                e = fmax(e, fabs(s - f64(C)[i * N + j]));
            }
        for (int64_t i = 0; i < M; i++) /* dA = W B^T */
            for (int64_t k = 0; k < K; k++) {
                double s = 0;
                for (int64_t j = 0; j < N; j++)
                    s += w[i * N + j] * b[k * N + j];
                ea = fmax(ea, fabs(s - g64(A)[i * K + k]));
            }
        for (int64_t k = 0; k < K; k++) /* dB = A^T W */
            for (int64_t j = 0; j < N; j++) {
                double s = 0;
                for (int64_t i = 0; i < M; i++)
                    s += a[i * K + k] * w[i * N + j];
                eb = fmax(eb, fabs(s - g64(B)[k * N + j]));
            }
        CHECK(e < 1e-13 && ea < 1e-13 && eb < 1e-13,
              "matmul %lldx%lldx%lld: value %g dA %g dB %g", (long long)M, (long long)K,
              (long long)N, e, ea, eb);
        OKR(drs_tape_rewind(t, p));
    }
    /* K = 0: a [2,0] x [0,3] is zeros */
    const int64_t s20[2] = {2, 0}, s03[2] = {0, 3};
    drs_var *A = leaf(t, 2, s20, NULL, 1), *B = leaf(t, 2, s03, NULL, 1), *C, *L;
    OKR(drs_ag_matmul(&C, A, B));
    int zero = numel(C) == 6;
    for (int i = 0; i < 6 && zero; i++)
        zero = f64(C)[i] == 0;
    CHECK(zero, "matmul with K=0 gives zeros");
    OKR(drs_ag_sum(&L, C));
    OKR(drs_tape_backward(L));

    /* f32 goes through sgemm */
    const int64_t sa[2] = {2, 3}, sb[2] = {3, 2};
    const float af[6] = {1, 2, 3, 4, 5, 6}, bf[6] = {1, -1, 0.5f, 2, -2, 1};
    drs_var *Af, *Bf, *Cf;
    OKR(drs_var_new(&Af, t, DRS_F32, 2, sa, af, 1));
    OKR(drs_var_new(&Bf, t, DRS_F32, 2, sb, bf, 0));
    OKR(drs_ag_matmul(&Cf, Af, Bf));
    const float *cf = drs_var_value(Cf).data;
    CHECK(cf[0] == -4 && cf[1] == 6 && cf[2] == -5.5f && cf[3] == 12, "sgemm values %g %g %g %g",
          cf[0], cf[1], cf[2], cf[3]);
    drs_tape_free(t);
}

/* ======================================================= affine_grid */
/* PyTorch 1.13 F.affine_grid(theta, size, align_corners) in float64, printed
 * with repr() and pasted here:
 *   th2 = [[[0.9,-0.2,0.1],[0.3,1.1,-0.05]], [[1.2,0.4,-0.3],[-0.25,0.8,0.2]]]
 *   th3 = [[[0.9,-0.2,0.1,0.05],[0.3,1.1,-0.05,-0.1],[0.02,0.15,0.95,0.3]]]
 *   A: affine_grid(th2, (2,1,2,3), align_corners=False)
 *   B: affine_grid(th2, (2,1,3,2), align_corners=True)
 *   C: affine_grid(th3, (1,1,2,3,2), align_corners=False)
 *   D: affine_grid(th3, (1,1,1,2,3), align_corners=True)   (a length-1 axis -> 0) */
static const double TORCH_A[24] = {
    -0.4, -0.8, 0.2, -0.6000000000000001, 0.7999999999999999, -0.4000000000000001, -0.6,
    0.3000000000000001, 0.0, 0.5, 0.6, 0.7, -1.3, -0.033333333333333354, -0.5, -0.2,
    0.2999999999999999, -0.36666666666666664, -0.8999999999999999, 0.7666666666666666,
    -0.09999999999999998, 0.6000000000000001, 0.7, 0.43333333333333335};
static const double TORCH_B[24] = {
    -0.6, -1.4500000000000002, 1.2000000000000002, -0.8500000000000001, -0.8, -0.35, 1.0, 0.25,
    -1.0, 0.75, 0.7999999999999999, 1.35, -1.9000000000000001, -0.35000000000000003,
    0.49999999999999994, -0.8500000000000001, -1.5, 0.45, 0.8999999999999999,
    -0.04999999999999999, -1.0999999999999999, 1.25, 1.3, 0.75};
static const double TORCH_C[36] = {
    -0.31666666666666665, -0.9583333333333334, -0.285, 0.5833333333333334, -0.6583333333333333,
    -0.26499999999999996, -0.45, -0.225, -0.185, 0.45, 0.07499999999999998, -0.16499999999999998,
    -0.5833333333333334, 0.5083333333333334, -0.08500000000000002, 0.31666666666666665,
    0.8083333333333335, -0.065, -0.21666666666666667, -1.0083333333333335, 0.665,
    0.6833333333333335, -0.7083333333333334, 0.685, -0.35000000000000003, -0.275,
    0.7649999999999999, 0.55, 0.024999999999999994, 0.7849999999999999, -0.48333333333333334,
    0.45833333333333337, 0.865, 0.41666666666666663, 0.7583333333333334, 0.885};
static const double TORCH_D[18] = {
    -0.6499999999999999, -1.5000000000000002, 0.13, 0.25, -1.2000000000000002, 0.15,
    1.1500000000000001, -0.9, 0.16999999999999998, -1.05, 0.7000000000000001, 0.43,
    -0.15000000000000002, 1.0, 0.44999999999999996, 0.75, 1.3, 0.47};

static void test_affine_grid(void)
{
    drs_tape *t;
    OKR(drs_tape_new(&t));
    /* identity, H=2, W=3, align_corners=0: x = (2w+1)/3 - 1, y = (2h+1)/2 - 1 */
    const int64_t s23[3] = {1, 2, 3};
    const double id[6] = {1, 0, 0, 0, 1, 0};
    drs_var *th = leaf(t, 3, s23, id, 1), *g, *L;
    const int64_t hw[2] = {2, 3};
    OKR(drs_ag_affine_grid(&g, th, 2, hw, 0));
    const double hand0[12] = {-2.0 / 3, -0.5, 0, -0.5, 2.0 / 3, -0.5,
                              -2.0 / 3, 0.5,  0, 0.5,  2.0 / 3, 0.5};
    double e = 0;
    for (int i = 0; i < 12; i++)
        e = fmax(e, fabs(f64(g)[i] - hand0[i]));
    CHECK(numel(g) == 12 && e < 1e-15, "affine_grid identity ac=0: err %g", e);
    /* d sum(grid)/d theta: row i gets (sum x, sum y, count) = (0, 0, 6) */
    OKR(drs_ag_sum(&L, g));
    OKR(drs_tape_backward(L));
    const double hg[6] = {0, 0, 6, 0, 0, 6};
    e = 0;
    for (int i = 0; i < 6; i++)
        e = fmax(e, fabs(g64(th)[i] - hg[i]));
    CHECK(e < 1e-14, "affine_grid theta grad of sum: err %g", e);
    /* align_corners=1, a shift: x = -1..1 in W-1 steps, + theta[.,2] */
    const double sh[6] = {1, 0, 0.25, 0, 1, -0.5};
    drs_var *th2 = leaf(t, 3, s23, sh, 0), *g2;
    OKR(drs_ag_affine_grid(&g2, th2, 2, hw, 1));
    const double hand1[12] = {-0.75, -1.5, 0.25, -1.5, 1.25, -1.5,
                              -0.75, 0.5,  0.25, 0.5,  1.25, 0.5};
    e = 0;
    for (int i = 0; i < 12; i++)
        e = fmax(e, fabs(f64(g2)[i] - hand1[i]));
    CHECK(e < 1e-15, "affine_grid shift ac=1: err %g", e);
    CHECK(!drs_var_requires_grad(g2), "affine_grid of a constant theta requires no grad");

    /* PyTorch values */
    const double t2[12] = {0.9, -0.2, 0.1, 0.3, 1.1, -0.05, 1.2, 0.4, -0.3, -0.25, 0.8, 0.2};
    const double t3[12] = {0.9, -0.2, 0.1, 0.05, 0.3, 1.1, -0.05, -0.1, 0.02, 0.15, 0.95, 0.3};
    const int64_t s2[3] = {2, 2, 3}, s3[3] = {1, 3, 4};
    drs_var *T2 = leaf(t, 3, s2, t2, 0), *T3 = leaf(t, 3, s3, t3, 0), *G;
    struct {
        drs_var *th;
        int ns;
        int64_t size[3];
        int ac;
        const double *ref;
        int n;
        const char *name;
    } cs[4] = {{T2, 2, {2, 3}, 0, TORCH_A, 24, "A"},
               {T2, 2, {3, 2}, 1, TORCH_B, 24, "B"},
               {T3, 3, {2, 3, 2}, 0, TORCH_C, 36, "C"},
               {T3, 3, {1, 2, 3}, 1, TORCH_D, 18, "D"}};
    for (int c = 0; c < 4; c++) {
        OKR(drs_ag_affine_grid(&G, cs[c].th, cs[c].ns, cs[c].size, cs[c].ac));
        e = numel(G) == cs[c].n ? 0 : 1;
        for (int i = 0; i < cs[c].n && e == 0; i++)
            e = fmax(e, fabs(f64(G)[i] - cs[c].ref[i]));
        CHECK(e < 1e-14, "affine_grid vs PyTorch case %s: err %g", cs[c].name, e);
    }
    /* an empty size is valid and gives an empty grid */
    const int64_t z2[2] = {0, 4};
    OKR(drs_ag_affine_grid(&G, T2, 2, z2, 0));
    CHECK(numel(G) == 0, "affine_grid with H=0 is empty");
    drs_tape_free(t);
}

/* ======================================= finite differences via the tape */
typedef drs_status (*build_fn)(void *ctx, drs_var **leaves, drs_var **out);

/* Loss = sum(out * W) with a fixed random W; every leaf that requires grad
 * is checked against central differences, eps = 1e-6, on up to `maxel`
 * elements (all when fewer).  Elements of scales leaves equal to 1 are
 * skipped (the output size steps there). */
static void fd_check(const char *name, drs_tape *t, drs_var **leaves, int nleaf, build_fn f,
                     void *ctx)
{
    const double eps = 1e-6, atol = 1e-6, rtol = 1e-6;
    drs_tape_pos p = drs_tape_tell(t);
    drs_var *out, *Wv, *prod, *L;
    drs_status s = f(ctx, leaves, &out);
    CHECK(s == DRS_OK, "%s: forward: %s", name, drs_last_error());
    if (s)
        return;
    g_fd_cases++;
    const int64_t n = numel(out);
    drs_tensor ov = drs_var_value(out);
    double *W = malloc(sizeof(double) * (size_t)(n ? n : 1));
    for (int64_t i = 0; i < n; i++)
        W[i] = srand2(-1, 1);
    if (drs_var_new(&Wv, t, DRS_F64, ov.rank, ov.shape, W, 0) || drs_ag_mul(&prod, out, Wv) ||
        drs_ag_sum(&L, prod) || drs_tape_zero_grad(t) || drs_tape_backward(L)) {
        CHECK(0, "%s: backward: %s", name, drs_last_error());
        free(W);
        drs_tape_rewind(t, p);
        return;
    }
    double *an[4] = {0};
    for (int k = 0; k < nleaf; k++)
        if (drs_var_requires_grad(leaves[k])) {
            an[k] = malloc(sizeof(double) * (size_t)(numel(leaves[k]) + 1));
            memcpy(an[k], g64(leaves[k]), sizeof(double) * (size_t)numel(leaves[k]));
        }
    drs_tape_rewind(t, p);
    const int prev = drs_tape_set_grad_enabled(t, 0);
    const int maxel = g_quick ? 6 : 40;
    double worst = 0;
    int bad = 0, checked = 0;
    for (int k = 0; k < nleaf && !bad; k++) {
        if (!an[k])
            continue;
        const int64_t m = numel(leaves[k]);
        const int64_t step = m > maxel ? (m + maxel - 1) / maxel : 1;
        double *x = f64(leaves[k]);
        const int is_param = drs_var_value(leaves[k]).rank == 1;
        for (int64_t i = (m > maxel ? (int64_t)(urand() * (double)step) : 0); i < m; i += step) {
            if (is_param && x[i] == 1.0)
                continue;
            const double x0 = x[i];
            double Lpm[2];
            for (int sgn = 0; sgn < 2; sgn++) {
                x[i] = x0 + (sgn ? -eps : eps);
                drs_var *o2;
                if ((s = f(ctx, leaves, &o2)) || numel(o2) != n) {
                    CHECK(0, "%s: FD forward at leaf %d[%lld]: %s", name, k, (long long)i,
                          s ? drs_last_error() : "output size changed (a kink)");
                    bad = 1;
                    break;
                }
                double acc = 0;
                const double *y = f64(o2);
                for (int64_t j = 0; j < n; j++)
                    acc += y[j] * W[j];
                Lpm[sgn] = acc;
                drs_tape_rewind(t, p);
            }
            x[i] = x0;
            if (bad)
                break;
            const double fd = (Lpm[0] - Lpm[1]) / (2 * eps);
            const double err = fabs(fd - an[k][i]);
            checked++;
            if (err > atol + rtol * fabs(fd)) {
                CHECK(0, "%s: leaf %d[%lld]: tape %.12g, finite difference %.12g", name, k,
                      (long long)i, an[k][i], fd);
                bad = 1;
                break;
            }
            worst = fmax(worst, err);
        }
    }
    drs_tape_set_grad_enabled(t, prev);
    if (!bad)
        CHECK(checked > 0, "%s: nothing was checked", name);
    g_fd_checks += checked;
    for (int k = 0; k < nleaf; k++)
        free(an[k]);
    free(W);
}

/* ---- Interpolate */
typedef struct {
    drs_interpolate_attrs a;
    int64_t sizes[4], axes[4];
    int n_sizes, n_axes;
    int use_scales; /* leaves[1] is the scales var */
} interp_case;

static drs_status build_interp(void *ctx, drs_var **lv, drs_var **out)
{
    interp_case *c = ctx;
    drs_interpolate_inputs in = {c->n_sizes ? c->sizes : NULL, c->n_sizes, NULL, 0,
                                 c->n_axes ? c->axes : NULL, c->n_axes};
    return drs_ag_interpolate(out, lv[0], c->use_scales ? lv[1] : NULL, &in, &c->a);
}

static void interp_fd(const char *name, interp_case *c, int rank, const int64_t *shape,
                      const double *scales, int ns)
{
    drs_tape *t;
    OKR(drs_tape_new(&t));
    drs_var *lv[2];
    lv[0] = rand_leaf(t, rank, shape, -1, 1, 1);
    int nl = 1;
    if (scales) {
        const int64_t sn[1] = {ns};
        lv[1] = leaf(t, 1, sn, scales, 1);
        c->use_scales = 1;
        nl = 2;
    }
    fd_check(name, t, lv, nl, build_interp, c);
    drs_tape_free(t);
}

static void test_interpolate_fd(void)
{
    const int64_t s4[4] = {1, 2, 5, 6}, s7[4] = {1, 1, 7, 9};
    interp_case c;
    /* Interpolate-1 (sizes; align_corners default 1), linear/cubic/area */
    drs_interp_mode m1[3] = {DRS_MODE_LINEAR, DRS_MODE_CUBIC, DRS_MODE_AREA};
    for (int k = 0; k < 3; k++)
        for (int ac = 0; ac < 2; ac++) {
            memset(&c, 0, sizeof c);
            c.a = drs_interpolate_attrs_default(1);
            c.a.mode = m1[k];
            c.a.align_corners = ac;
            c.sizes[0] = 7, c.sizes[1] = 4, c.n_sizes = 2;
            c.axes[0] = 2, c.axes[1] = 3, c.n_axes = 2;
            char nm[64];
            snprintf(nm, sizeof nm, "Interpolate-1 %s ac=%d", drs_interp_mode_str(m1[k]), ac);
            interp_fd(nm, &c, 4, s4, NULL, 0);
        }
    /* Interpolate-4 scales mode: data and scales gradients */
    struct {
        drs_interp_mode mode;
        drs_coord_mode cm;
        int aa;
        double sc[2];
        const int64_t *shape;
    } v4[] = {
        {DRS_MODE_LINEAR, DRS_COORD_HALF_PIXEL, 0, {1.37, 0.77}, s4},
        {DRS_MODE_LINEAR, DRS_COORD_PYTORCH_HALF_PIXEL, 1, {0.63, 0.71}, s7},
        {DRS_MODE_LINEAR_ONNX, DRS_COORD_ASYMMETRIC, 0, {1.43, 1.61}, s4},
        {DRS_MODE_LINEAR_ONNX, DRS_COORD_HALF_PIXEL, 0, {0.83, 1.51}, s7},
        {DRS_MODE_CUBIC, DRS_COORD_HALF_PIXEL, 0, {1.53, 0.87}, s4},
        {DRS_MODE_CUBIC, DRS_COORD_TF_HALF_PIXEL_FOR_NN, 0, {1.29, 1.83}, s4},
        {DRS_MODE_CUBIC, DRS_COORD_ALIGN_CORNERS, 0, {1.45, 0.7}, s4},
        {DRS_MODE_NEAREST, DRS_COORD_ASYMMETRIC, 0, {1.37, 0.77}, s4},
    };
    for (size_t k = 0; k < sizeof v4 / sizeof v4[0]; k++) {
        memset(&c, 0, sizeof c);
        c.a = drs_interpolate_attrs_default(4);
        c.a.mode = v4[k].mode;
        c.a.shape_calculation_mode = DRS_SHAPE_SCALES;
        c.a.coordinate_transformation_mode = v4[k].cm;
        c.a.antialias = v4[k].aa;
        if (v4[k].mode == DRS_MODE_CUBIC)
            c.a.cube_coeff = -0.5;
        c.axes[0] = 2, c.axes[1] = 3, c.n_axes = 2;
        char nm[96];
        snprintf(nm, sizeof nm, "Interpolate-4 %s %s aa=%d scales", drs_interp_mode_str(v4[k].mode),
                 drs_coord_mode_str(v4[k].cm), v4[k].aa);
        interp_fd(nm, &c, 4, v4[k].shape, v4[k].sc, 2);
    }
    /* Interpolate-4 with pads (linear_onnx on all axes of a 2-D tensor) */
    memset(&c, 0, sizeof c);
    c.a = drs_interpolate_attrs_default(4);
    c.a.mode = DRS_MODE_LINEAR_ONNX;
    c.a.shape_calculation_mode = DRS_SHAPE_SCALES;
    c.a.n_pads_begin = 2, c.a.pads_begin[0] = 1, c.a.pads_begin[1] = 0;
    c.a.n_pads_end = 2, c.a.pads_end[0] = 0, c.a.pads_end[1] = 2;
    {
        const int64_t s2[2] = {5, 4};
        const double sc[2] = {1.37, 1.29};
        interp_fd("Interpolate-4 linear_onnx pads scales", &c, 2, s2, sc, 2);
    }
    /* Interpolate-11: scales_or_sizes as scales (cubic), and a pillow mode */
    memset(&c, 0, sizeof c);
    c.a = drs_interpolate_attrs_default(11);
    c.a.mode = DRS_MODE_CUBIC;
    c.a.shape_calculation_mode = DRS_SHAPE_SCALES;
    c.axes[0] = 2, c.axes[1] = 3, c.n_axes = 2;
    {
        const double sc[2] = {1.61, 0.73};
        interp_fd("Interpolate-11 cubic scales_or_sizes", &c, 4, s4, sc, 2);
    }
    memset(&c, 0, sizeof c);
    c.a = drs_interpolate_attrs_default(11);
    c.a.mode = DRS_MODE_BICUBIC_PILLOW;
    c.sizes[0] = 3, c.sizes[1] = 8, c.n_sizes = 2;
    c.axes[0] = 2, c.axes[1] = 3, c.n_axes = 2;
    interp_fd("Interpolate-11 bicubic_pillow sizes", &c, 4, s4, NULL, 0);
}

/* ---- Resize */
typedef struct {
    drs_resize_attrs a;
    int64_t sizes[4];
    int n_sizes;
    int roi_leaf, scales_leaf; /* index into leaves, -1 when absent */
} resize_case;

static drs_status build_resize(void *ctx, drs_var **lv, drs_var **out)
{
    resize_case *c = ctx;
    drs_resize_inputs in = {NULL, 0, NULL, 0, c->n_sizes ? c->sizes : NULL, c->n_sizes};
    return drs_ag_resize(out, lv[0], c->roi_leaf >= 0 ? lv[c->roi_leaf] : NULL,
                         c->scales_leaf >= 0 ? lv[c->scales_leaf] : NULL, &in, &c->a);
}

static void resize_fd(const char *name, resize_case *c, int rank, const int64_t *shape,
                      const double *roi, int nroi, const double *scales, int ns)
{
    drs_tape *t;
    OKR(drs_tape_new(&t));
    drs_var *lv[3];
    int nl = 0;
    lv[nl++] = rand_leaf(t, rank, shape, -1, 1, 1);
    c->roi_leaf = c->scales_leaf = -1;
    if (roi) {
        const int64_t sn[1] = {nroi};
        c->roi_leaf = nl;
        lv[nl++] = leaf(t, 1, sn, roi, 1);
    }
    if (scales) {
        const int64_t sn[1] = {ns};
        c->scales_leaf = nl;
        lv[nl++] = leaf(t, 1, sn, scales, 1);
    }
    fd_check(name, t, lv, nl, build_resize, c);
    drs_tape_free(t);
}

static void test_resize_fd(void)
{
    const int64_t s4[4] = {1, 2, 5, 6}, s9[4] = {1, 2, 9, 10};
    resize_case c;
    char nm[128];
    /* Resize-10: linear, asymmetric, scales var */
    memset(&c, 0, sizeof c);
    c.a = drs_resize_attrs_default(10);
    c.a.mode = DRS_MODE_LINEAR;
    {
        const double sc[4] = {1, 1, 1.37, 1.71};
        resize_fd("Resize-10 linear scales", &c, 4, s4, NULL, 0, sc, 4);
    }
    /* Resize-11/13/19: mode x coordinate mode with a scales var */
    struct {
        int opset;
        drs_interp_mode mode;
        drs_coord_mode cm;
        int excl;
        double a;
        double sc[4];
    } cs[] = {
        {11, DRS_MODE_LINEAR, DRS_COORD_HALF_PIXEL, 0, -0.75, {1, 1, 1.37, 0.71}},
        {11, DRS_MODE_CUBIC, DRS_COORD_PYTORCH_HALF_PIXEL, 0, -0.75, {1, 1, 1.53, 1.21}},
        {11, DRS_MODE_CUBIC, DRS_COORD_TF_HALF_PIXEL_FOR_NN, 1, -0.5, {1, 1, 0.83, 1.63}},
        {13, DRS_MODE_LINEAR, DRS_COORD_ALIGN_CORNERS, 0, -0.75, {1, 1, 1.43, 1.55}},
        {13, DRS_MODE_CUBIC, DRS_COORD_ASYMMETRIC, 1, -0.5, {1, 1, 0.81, 1.31}},
        {13, DRS_MODE_NEAREST, DRS_COORD_HALF_PIXEL, 0, -0.75, {1, 1, 1.37, 0.71}},
        {19, DRS_MODE_CUBIC, DRS_COORD_HALF_PIXEL_SYMMETRIC, 0, -0.75, {1, 1, 1.45, 0.65}},
        {19, DRS_MODE_LINEAR, DRS_COORD_HALF_PIXEL_SYMMETRIC, 0, -0.75, {1, 1, 1.77, 0.85}},
    };
    for (size_t k = 0; k < sizeof cs / sizeof cs[0]; k++) {
        memset(&c, 0, sizeof c);
        c.a = drs_resize_attrs_default(cs[k].opset);
        c.a.mode = cs[k].mode;
        c.a.coordinate_transformation_mode = cs[k].cm;
        c.a.exclude_outside = cs[k].excl;
        c.a.cubic_coeff_a = cs[k].a;
        snprintf(nm, sizeof nm, "Resize-%d %s %s excl=%d scales", cs[k].opset,
                 drs_interp_mode_str(cs[k].mode), drs_coord_mode_str(cs[k].cm), cs[k].excl);
        resize_fd(nm, &c, 4, s4, NULL, 0, cs[k].sc, 4);
    }
    /* Resize-11/19 tf_crop_and_resize: roi and scales vars, extrapolation */
    for (int op = 0; op < 2; op++)
        for (int m = 0; m < 2; m++) {
            memset(&c, 0, sizeof c);
            c.a = drs_resize_attrs_default(op ? 19 : 11);
            c.a.mode = m ? DRS_MODE_CUBIC : DRS_MODE_LINEAR;
            c.a.coordinate_transformation_mode = DRS_COORD_TF_CROP_AND_RESIZE;
            c.a.extrapolation_value = 0.5;
            const double roi[8] = {0, 0.1, 0.13, -0.07, 1, 0.9, 0.83, 1.09};
            const double sc[4] = {1, 1, 1.63, 1.4};
            snprintf(nm, sizeof nm, "Resize-%d %s tf_crop_and_resize roi+scales", op ? 19 : 11,
                     m ? "cubic" : "linear");
            resize_fd(nm, &c, 4, s4, roi, 8, sc, 4);
        }
    /* Resize-18/19 antialias with the axes attribute (scales of length 2) */
    struct {
        int opset;
        drs_interp_mode mode;
        int64_t ax[2];
        double sc[2];
    } aa[] = {
        {18, DRS_MODE_LINEAR, {2, 3}, {0.61, 0.55}},
        {18, DRS_MODE_CUBIC, {-1, 2}, {0.73, 0.45}},
        {19, DRS_MODE_LINEAR, {3, 2}, {1.33, 0.62}},
    };
    for (size_t k = 0; k < sizeof aa / sizeof aa[0]; k++) {
        memset(&c, 0, sizeof c);
        c.a = drs_resize_attrs_default(aa[k].opset);
        c.a.mode = aa[k].mode;
        c.a.antialias = 1;
        c.a.n_axes = 2;
        c.a.axes[0] = aa[k].ax[0];
        c.a.axes[1] = aa[k].ax[1];
        snprintf(nm, sizeof nm, "Resize-%d %s antialias axes={%lld,%lld} scales", aa[k].opset,
                 drs_interp_mode_str(aa[k].mode), (long long)aa[k].ax[0], (long long)aa[k].ax[1]);
        resize_fd(nm, &c, 4, s9, NULL, 0, aa[k].sc, 2);
    }
    /* Resize-18 sizes mode with keep_aspect_ratio_policy (data gradient) */
    memset(&c, 0, sizeof c);
    c.a = drs_resize_attrs_default(18);
    c.a.mode = DRS_MODE_CUBIC;
    c.a.keep_aspect_ratio_policy = DRS_ASPECT_NOT_LARGER;
    c.a.n_axes = 2, c.a.axes[0] = 2, c.a.axes[1] = 3;
    c.sizes[0] = 7, c.sizes[1] = 7, c.n_sizes = 2;
    resize_fd("Resize-18 cubic sizes not_larger", &c, 4, s4, NULL, 0, NULL, 0);
}

/* ---- TorchInterpolate */
static drs_status build_torch(void *ctx, drs_var **lv, drs_var **out)
{
    return drs_ag_torch_interpolate(out, lv[0], ctx);
}

static void test_torch_fd(void)
{
    struct {
        drs_torch_mode mode;
        int rank;
        int64_t shape[5];
        int ns;
        int64_t size[3];
        int nf;
        double sf[3];
        int ac, aa;
    } cs[] = {
        {DRS_TORCH_BILINEAR, 4, {1, 2, 5, 6}, 0, {0}, 2, {1.7, 1.3}, 0, 0},
        {DRS_TORCH_BILINEAR, 4, {1, 2, 5, 6}, 2, {8, 4}, 0, {0}, 1, 0},
        {DRS_TORCH_BILINEAR, 4, {1, 1, 9, 8}, 2, {4, 3}, 0, {0}, 0, 1},
        {DRS_TORCH_BICUBIC, 4, {1, 2, 5, 6}, 2, {7, 9}, 0, {0}, 0, 0},
        {DRS_TORCH_BICUBIC, 4, {1, 1, 9, 8}, 2, {4, 5}, 0, {0}, 0, 1},
        {DRS_TORCH_TRILINEAR, 5, {1, 1, 3, 4, 5}, 3, {5, 3, 6}, 0, {0}, 1, 0},
        {DRS_TORCH_LINEAR, 3, {2, 2, 7}, 0, {0}, 1, {0.6}, 0, 0},
        {DRS_TORCH_AREA, 4, {1, 2, 6, 7}, 2, {4, 3}, 0, {0}, -1, 0},
        {DRS_TORCH_NEAREST_EXACT, 4, {1, 2, 5, 6}, 2, {7, 4}, 0, {0}, -1, 0},
    };
    for (size_t k = 0; k < sizeof cs / sizeof cs[0]; k++) {
        drs_torch_interpolate_attrs a = drs_torch_interpolate_attrs_default();
        a.mode = cs[k].mode;
        a.n_size = cs[k].ns;
        for (int i = 0; i < cs[k].ns; i++)
            a.size[i] = cs[k].size[i];
        a.n_scale_factor = cs[k].nf;
        for (int i = 0; i < cs[k].nf; i++)
            a.scale_factor[i] = cs[k].sf[i];
        a.align_corners = cs[k].ac;
        a.antialias = cs[k].aa;
        drs_tape *t;
        OKR(drs_tape_new(&t));
        drs_var *lv[1] = {rand_leaf(t, cs[k].rank, cs[k].shape, -1, 1, 1)};
        char nm[96];
        snprintf(nm, sizeof nm, "TorchInterpolate mode %d rank %d ac=%d aa=%d", (int)cs[k].mode,
                 cs[k].rank, cs[k].ac, cs[k].aa);
        fd_check(nm, t, lv, 1, build_torch, &a);
        drs_tape_free(t);
    }
}

/* ---- GridSample */
/* Pixel coordinate of normalised g on an axis of length L. */
static double unnorm(double g, int64_t L, int ac)
{
    return ac ? (g + 1) / 2 * (double)(L - 1) : ((g + 1) * (double)L - 1) / 2;
}

/* A random grid whose pixel coordinates stay 0.02 away from integers and
 * half-integers (tap switches, rounding, border clip and reflection points). */
static void fill_grid_off_kinks(double *g, int64_t npts, int S, const int64_t *spatial, int ac,
                                double lim)
{
    for (int64_t p = 0; p < npts; p++)
        for (int k = 0; k < S; k++) {
            const int64_t L = spatial[S - 1 - k]; /* x is the last spatial axis */
            double v, fr;
            do {
                v = srand2(-lim, lim);
                double x = unnorm(v, L, ac) * 2; /* half-integers become integers */
                fr = fabs(x - floor(x + 0.5));
            } while (fr < 0.04);
            g[p * S + k] = v;
        }
}

static drs_status build_grid(void *ctx, drs_var **lv, drs_var **out)
{
    return drs_ag_grid_sample(out, lv[0], lv[1], ctx);
}

typedef struct {
    drs_grid_sample_attrs a;
    int S;
    int64_t size[3];
} affine_case;

static drs_status build_affine(void *ctx, drs_var **lv, drs_var **out)
{
    affine_case *c = ctx;
    drs_var *g;
    drs_status s = drs_ag_affine_grid(&g, lv[1], c->S, c->size, c->a.align_corners);
    if (s)
        return s;
    return drs_ag_grid_sample(out, lv[0], g, &c->a);
}

static void test_grid_sample_fd(void)
{
    const char *pad[3] = {"zeros", "border", "reflection"};
    const char *mode[3] = {"bilinear", "nearest", "bicubic"};
    for (int dim = 4; dim <= 5; dim++)
        for (int m = 0; m < 3; m++)
            for (int p = 0; p < 3; p++)
                for (int ac = 0; ac < 2; ac++) {
                    if (dim == 5 && ac == 1 && p != 2)
                        continue; /* keep the 5-D sweep short: both ac for reflection */
                    const int version = dim == 5 ? (m == 2 ? 22 : 20) : (ac ? 9 : 16);
                    drs_grid_sample_attrs a = drs_grid_sample_attrs_default(version);
                    a.mode = (drs_grid_mode)m;
                    a.padding_mode = (drs_grid_padding)p;
                    a.align_corners = ac;
                    drs_tape *t;
                    OKR(drs_tape_new(&t));
                    const int S = dim - 2;
                    const int64_t d4[4] = {1, 2, 5, 6}, g4[4] = {1, 3, 4, 2};
                    const int64_t d5[5] = {1, 2, 3, 4, 5}, g5[5] = {1, 2, 2, 3, 3};
                    drs_var *lv[2];
                    lv[0] = rand_leaf(t, dim, dim == 4 ? d4 : d5, -1, 1, 1);
                    lv[1] = leaf(t, dim, dim == 4 ? g4 : g5, NULL, 1);
                    fill_grid_off_kinks(f64(lv[1]), numel(lv[1]) / S, S,
                                        (dim == 4 ? d4 : d5) + 2, ac, 1.15);
                    char nm[96];
                    snprintf(nm, sizeof nm, "GridSample-%d %dD %s %s ac=%d", version, S,
                             mode[m], pad[p], ac);
                    fd_check(nm, t, lv, 2, build_grid, &a);
                    drs_tape_free(t);
                }
    /* theta -> affine_grid -> GridSample: the theta gradient, 2-D and 3-D */
    for (int S = 2; S <= 3; S++)
        for (int ac = 0; ac < 2; ac++) {
            affine_case c;
            c.a = drs_grid_sample_attrs_default(S == 2 ? 16 : 20);
            c.a.mode = ac ? DRS_GRID_BICUBIC : DRS_GRID_BILINEAR;
            c.a.padding_mode = ac ? DRS_GRID_PAD_BORDER : DRS_GRID_PAD_ZEROS;
            c.a.align_corners = ac;
            c.S = S;
            const int64_t d4[4] = {1, 2, 6, 7}, d5[5] = {1, 1, 4, 5, 6};
            const int64_t th2[3] = {1, 2, 3}, th3[3] = {1, 3, 4};
            /* rotation + scale + shift, searched (Python, once) so that every
             * sample stays >= 0.01 pixel from integers and half-integers for
             * both align_corners (checked below) */
            const double t2[6] = {0.85, -0.167, -0.042, 0.151, 0.863, -0.003};
            const double t3[12] = {0.907, -0.192, -0.072, -0.052, 0.195, 0.926,
                                   -0.021, -0.065, 0.097, 0.001, 0.962, -0.085};
            c.size[0] = S == 2 ? 5 : 3, c.size[1] = S == 2 ? 4 : 4, c.size[2] = 3;
            drs_tape *t;
            OKR(drs_tape_new(&t));
            drs_var *lv[2];
            lv[0] = rand_leaf(t, S + 2, S == 2 ? d4 : d5, -1, 1, 1);
            lv[1] = leaf(t, 3, S == 2 ? th2 : th3, S == 2 ? t2 : t3, 1);
            /* the kink check on the grid this theta makes */
            drs_var *g;
            OKR(drs_ag_affine_grid(&g, lv[1], S, c.size, ac));
            const int64_t *sp = (S == 2 ? d4 : d5) + 2;
            double mind = 1;
            for (int64_t q = 0; q < numel(g); q++) {
                double x = unnorm(f64(g)[q], sp[S - 1 - (int)(q % S)], ac);
                mind = fmin(mind, fabs(x - floor(x + 0.5)));
            }
            CHECK(mind > 1e-3, "affine FD case S=%d ac=%d: a sample is %g from a kink", S, ac,
                  mind);
            char nm[96];
            snprintf(nm, sizeof nm, "affine_grid %dD ac=%d -> GridSample %s %s", S, ac,
                     ac ? "bicubic" : "bilinear", ac ? "border" : "zeros");
            fd_check(nm, t, lv, 2, build_affine, &c);
            drs_tape_free(t);
        }
}

/* ---- the tape's own ops through finite differences */
static drs_status build_chain(void *ctx, drs_var **lv, drs_var **out)
{
    (void)ctx;
    drs_var *ab, *r, *s, *d, *m, *e;
    drs_status st;
    if ((st = drs_ag_matmul(&ab, lv[0], lv[1])) || (st = drs_ag_relu(&r, ab)) ||
        (st = drs_ag_scale(&s, r, -1.5)) || (st = drs_ag_mul(&m, s, lv[2])) ||
        (st = drs_ag_sub(&d, m, lv[2])) || (st = drs_ag_add(&e, d, ab)))
        return st;
    drs_var *l1, *l2, *l3;
    if ((st = drs_ag_mse_loss(&l1, e, lv[2])) || (st = drs_ag_mean(&l2, e)) ||
        (st = drs_ag_add(&l3, l1, l2)))
        return st;
    *out = l3;
    return DRS_OK;
}

static void test_basic_fd(void)
{
    drs_tape *t;
    OKR(drs_tape_new(&t));
    const int64_t sa[2] = {3, 4}, sb[2] = {4, 5}, sc[2] = {3, 5};
    drs_var *lv[3];
    lv[0] = rand_leaf(t, 2, sa, -1, 1, 1);
    lv[1] = rand_leaf(t, 2, sb, -1, 1, 1);
    lv[2] = rand_leaf(t, 2, sc, -1, 1, 1);
    /* keep relu's inputs off 0 */
    drs_var *ab;
    OKR(drs_ag_matmul(&ab, lv[0], lv[1]));
    double mn = 1;
    for (int i = 0; i < 15; i++)
        mn = fmin(mn, fabs(f64(ab)[i]));
    CHECK(mn > 1e-4, "chain FD: a relu input is %g from 0", mn);
    fd_check("matmul relu scale mul sub add mse mean", t, lv, 3, build_chain, NULL);
    drs_tape_free(t);
}

/* ====================================================== tape behaviour */
static void test_accumulate_and_modes(void)
{
    drs_tape *t;
    OKR(drs_tape_new(&t));
    const int64_t sh[1] = {4};
    const double xv[4] = {0.5, -1, 2, 3};
    drs_var *x = leaf(t, 1, sh, xv, 1), *a, *b, *sa, *sb, *L;
    /* L = sum(x*x) + sum(3x): x feeds three ops; dL/dx = 2x + 3 */
    OKR(drs_ag_mul(&a, x, x));
    OKR(drs_ag_scale(&b, x, 3));
    OKR(drs_ag_sum(&sa, a));
    OKR(drs_ag_sum(&sb, b));
    OKR(drs_ag_add(&L, sa, sb));
    OKR(drs_tape_backward(L));
    int ok = 1;
    for (int i = 0; i < 4; i++)
        ok &= g64(x)[i] == 2 * xv[i] + 3;
    CHECK(ok, "accumulation: dL/dx = 2x + 3");
    /* backward again: leaf grads accumulate, intermediate grads do not */
    OKR(drs_tape_backward(L));
    ok = 1;
    for (int i = 0; i < 4; i++)
        ok &= g64(x)[i] == 2 * (2 * xv[i] + 3);
    CHECK(ok, "second backward accumulates into the leaf (2x)");
    CHECK(g64(a)[0] == 1 && g64(L)[0] == 1, "intermediate grads are fresh per backward");
    /* zero_grad */
    OKR(drs_tape_zero_grad(t));
    ok = 1;
    for (int i = 0; i < 4; i++)
        ok &= g64(x)[i] == 0;
    CHECK(ok, "zero_grad zeroes the leaf");
    /* backward from an intermediate var only reaches its inputs */
    OKR(drs_tape_backward(sb));
    ok = 1;
    for (int i = 0; i < 4; i++)
        ok &= g64(x)[i] == 3;
    CHECK(ok, "backward(sum(3x)) gives 3");

    /* vector-Jacobian: backward_grad(a = x*x, dy) gives 2 x dy */
    OKR(drs_tape_zero_grad(t));
    const double dyv[4] = {1, 2, -1, 0.5};
    drs_tensor dy = {DRS_F64, 1, {4}, (void *)dyv};
    OKR(drs_tape_backward_grad(a, &dy));
    ok = 1;
    for (int i = 0; i < 4; i++)
        ok &= g64(x)[i] == 2 * xv[i] * dyv[i];
    CHECK(ok, "backward_grad gives the vector-Jacobian product");

    /* no-grad mode: values computed, nothing recorded */
    CHECK(drs_tape_set_grad_enabled(t, 0) == 1, "grad mode was on");
    CHECK(drs_tape_grad_enabled(t) == 0, "grad mode is off");
    drs_var *n1, *n2;
    OKR(drs_ag_mul(&n1, x, x));
    OKR(drs_ag_sum(&n2, n1));
    CHECK(drs_var_item(n2) == 0.25 + 1 + 4 + 9, "no-grad values are computed");
    CHECK(!drs_var_requires_grad(n1) && !drs_var_requires_grad(n2) && drs_var_is_leaf(n2),
          "no-grad outputs are unrecorded constants");
    CHECK(drs_var_grad(n2).data == NULL, "no-grad outputs have no gradient buffer");
    CHECK(drs_tape_backward(n2) == DRS_ERR_INVALID_ARGUMENT &&
              strstr(drs_last_error(), "requires no grad"),
          "backward of a no-grad var is refused: %s", drs_last_error());
    drs_tape_set_grad_enabled(t, 1);
    /* constants only: nothing requires grad */
    drs_var *c1 = leaf(t, 1, sh, xv, 0), *c2;
    OKR(drs_ag_relu(&c2, c1));
    CHECK(!drs_var_requires_grad(c2), "an op on constants requires no grad");

    /* rewind keeps memory flat over many steps */
    drs_tape_pos p = drs_tape_tell(t);
    size_t bytes0 = 0;
    int64_t vars0 = drs_tape_num_vars(t);
    for (int step = 0; step < 50; step++) {
        drs_var *y, *l;
        OKR(drs_ag_mul(&y, x, x));
        OKR(drs_ag_sum(&l, y));
        OKR(drs_tape_backward(l));
        OKR(drs_tape_rewind(t, p));
        if (step == 0)
            bytes0 = drs_tape_bytes(t);
        CHECK(drs_tape_bytes(t) == bytes0 && drs_tape_num_vars(t) == vars0,
              "rewind step %d: %zu bytes, %lld vars", step, drs_tape_bytes(t),
              (long long)drs_tape_num_vars(t));
        if (g_fail)
            break;
    }
    /* a large var opens its own block; rewinding frees it */
    const int64_t big[1] = {1 << 19};
    drs_var *bv;
    OKR(drs_var_new(&bv, t, DRS_F64, 1, big, NULL, 1));
    CHECK(drs_tape_bytes(t) >= bytes0 + 2 * (size_t)(8 << 19), "big var allocated");
    OKR(drs_tape_rewind(t, p));
    CHECK(drs_tape_bytes(t) == bytes0, "big var freed by rewind");
    drs_tape_free(t);
    drs_tape_free(NULL);
}

/* f32 tape vs f64 tape on the same chain */
static void test_f32(void)
{
    drs_tape *t;
    OKR(drs_tape_new(&t));
    const int64_t sh[4] = {1, 1, 6, 5};
    double xd[30];
    float xf[30];
    for (int i = 0; i < 30; i++)
        xf[i] = (float)(xd[i] = srand2(-1, 1));
    drs_resize_attrs ra = drs_resize_attrs_default(19);
    ra.mode = DRS_MODE_CUBIC;
    const double sc[4] = {1, 1, 1.5, 1.3};
    drs_resize_inputs in = {NULL, 0, sc, 4, NULL, 0};
    drs_var *X[2], *Y, *R, *L;
    double loss[2];
    for (int k = 0; k < 2; k++) {
        OKR(drs_var_new(&X[k], t, k ? DRS_F32 : DRS_F64, 4, sh, k ? (void *)xf : (void *)xd, 1));
        OKR(drs_ag_resize(&Y, X[k], NULL, NULL, &in, &ra));
        OKR(drs_ag_relu(&R, Y));
        OKR(drs_ag_mean(&L, R));
        OKR(drs_tape_backward(L));
        loss[k] = drs_var_item(L);
    }
    double e = 0;
    const float *gf = drs_var_grad(X[1]).data;
    for (int i = 0; i < 30; i++)
        e = fmax(e, fabs((double)gf[i] - g64(X[0])[i]));
    CHECK(fabs(loss[0] - loss[1]) < 1e-6 && e < 1e-6, "f32 vs f64: loss %g, grad %g",
          fabs(loss[0] - loss[1]), e);
    drs_tape_free(t);
}

/* bitwise identical gradients for 1 and 3 threads */
static void grads_run(double *out, int threads, int with_grid)
{
    drs_set_num_threads(threads);
    drs_tape *t;
    OKR(drs_tape_new(&t));
    uint64_t keep = g_rng;
    g_rng = 12345;
    const int64_t sx[4] = {1, 3, 40, 36}, sth[3] = {1, 2, 3}, sw[2] = {3, 8}, ss[1] = {2};
    drs_var *x = rand_leaf(t, 4, sx, -1, 1, 1), *W = rand_leaf(t, 2, sw, -1, 1, 1);
    const double th0[6] = {0.9, -0.1, 0.05, 0.12, 1.05, -0.03}, sc0[2] = {1.37, 0.81};
    drs_var *th = leaf(t, 3, sth, th0, 1), *sc = leaf(t, 1, ss, sc0, 1);
    g_rng = keep;
    drs_interpolate_attrs ia = drs_interpolate_attrs_default(4);
    ia.mode = DRS_MODE_CUBIC;
    ia.shape_calculation_mode = DRS_SHAPE_SCALES;
    const int64_t ax[2] = {2, 3};
    drs_interpolate_inputs in = {NULL, 0, NULL, 0, ax, 2};
    drs_var *y, *g, *z, *flat, *mm, *L;
    OKR(drs_ag_interpolate(&y, x, sc, &in, &ia));
    if (with_grid) {
        const int64_t hw[2] = {30, 33};
        drs_grid_sample_attrs ga = drs_grid_sample_attrs_default(16);
        OKR(drs_ag_affine_grid(&g, th, 2, hw, 0));
        OKR(drs_ag_grid_sample(&z, y, g, &ga));
    } else {
        z = y;
    }
    /* z's values as a constant [rows, 3] matrix times W: matmul's W gradient */
    const int64_t sf[2] = {numel(z) / 3, 3};
    OKR(drs_var_new(&flat, t, DRS_F64, 2, sf, drs_var_value(z).data, 0));
    OKR(drs_ag_matmul(&mm, flat, W));
    drs_var *l1, *l2, *l3;
    OKR(drs_ag_mean(&l1, mm));
    OKR(drs_ag_mse_loss(&l2, z, z));
    OKR(drs_ag_sum(&l3, z));
    drs_var *s1, *s2;
    OKR(drs_ag_add(&s1, l1, l2));
    OKR(drs_ag_add(&s2, s1, l3));
    L = s2;
    OKR(drs_tape_backward(L));
    int64_t k = 0;
    memcpy(out + k, g64(x), sizeof(double) * (size_t)numel(x)), k += numel(x);
    memcpy(out + k, g64(W), sizeof(double) * 24), k += 24;
    memcpy(out + k, g64(th), sizeof(double) * 6), k += 6;
    memcpy(out + k, g64(sc), sizeof(double) * 2), k += 2;
    out[k] = drs_var_item(L);
    drs_tape_free(t);
}

static void test_threads(int with_grid)
{
    const size_t n = 3 * 40 * 36 + 24 + 6 + 2 + 1;
    double *a = calloc(n, sizeof(double)), *b = calloc(n, sizeof(double));
    grads_run(a, 1, with_grid);
    grads_run(b, 3, with_grid);
    CHECK(memcmp(a, b, n * sizeof(double)) == 0, "1 vs 3 threads: gradients differ (grid=%d)",
          with_grid);
    drs_set_num_threads(2);
    free(a);
    free(b);
}

/* ============================================================= errors */
#define EXPECT_FAIL(call, want, substr)                                                      \
    do {                                                                                     \
        int64_t nv_ = drs_tape_num_vars(t);                                                  \
        size_t nb_ = drs_tape_bytes(t);                                                      \
        drs_var *sent_ = (drs_var *)&sentinel;                                               \
        out = sent_;                                                                         \
        drs_status st_ = (call);                                                             \
        CHECK(st_ == (want) && strstr(drs_last_error(), substr) && out == sent_ &&           \
                  drs_tape_num_vars(t) == nv_ && drs_tape_bytes(t) == nb_,                   \
              "%s: got %s \"%s\", want %s containing \"%s\"", #call, drs_status_str(st_),    \
              drs_last_error(), drs_status_str(want), substr);                               \
    } while (0)

static void test_errors(void)
{
    drs_tape *t, *t2;
    OKR(drs_tape_new(&t));
    OKR(drs_tape_new(&t2));
    int sentinel = 0;
    drs_var *out;
    const int64_t s23[2] = {2, 3}, s24[2] = {2, 4}, s3[1] = {3};
    drs_var *a = rand_leaf(t, 2, s23, -1, 1, 1), *b = rand_leaf(t, 2, s24, -1, 1, 1);
    drs_var *other = rand_leaf(t2, 2, s23, -1, 1, 1), *af;
    OKR(drs_var_new(&af, t, DRS_F32, 2, s23, NULL, 1));

    /* elementwise */
    EXPECT_FAIL(drs_ag_add(&out, a, b), DRS_ERR_SHAPE, "drs_ag_add: b shape[1] must be 3 (a's), got 4");
    EXPECT_FAIL(drs_ag_sub(&out, a, af), DRS_ERR_INVALID_ARGUMENT,
                "drs_ag_sub: b dtype must be f64 (a's), got f32");
    EXPECT_FAIL(drs_ag_mul(&out, a, other), DRS_ERR_INVALID_ARGUMENT, "another tape");
    EXPECT_FAIL(drs_ag_add(&out, NULL, a), DRS_ERR_INVALID_ARGUMENT, "drs_ag_add: a is NULL");
    EXPECT_FAIL(drs_ag_add(NULL, a, a), DRS_ERR_INVALID_ARGUMENT, "out is NULL");
    EXPECT_FAIL(drs_ag_scale(&out, a, NAN), DRS_ERR_INVALID_ARGUMENT, "c must be finite");
    EXPECT_FAIL(drs_ag_mse_loss(&out, a, b), DRS_ERR_SHAPE, "b shape[1] must be 3");
    const int64_t z[1] = {0};
    drs_var *e = leaf(t, 1, z, NULL, 1);
    EXPECT_FAIL(drs_ag_mean(&out, e), DRS_ERR_SHAPE, "must not be empty");
    /* matmul */
    EXPECT_FAIL(drs_ag_matmul(&out, a, a), DRS_ERR_SHAPE,
                "drs_ag_matmul: b shape[0] must be 3 (a's shape[1]), got 2");
    drs_var *v3 = rand_leaf(t, 1, s3, -1, 1, 1);
    EXPECT_FAIL(drs_ag_matmul(&out, v3, a), DRS_ERR_SHAPE, "a rank must be 2, got 1");
    /* affine_grid */
    const int64_t th24[3] = {1, 2, 4}, hw[2] = {4, 4}, neg[2] = {4, -1};
    drs_var *thb = rand_leaf(t, 3, th24, -1, 1, 1);
    EXPECT_FAIL(drs_ag_affine_grid(&out, thb, 2, hw, 0), DRS_ERR_SHAPE,
                "theta shape[2] must be 3 (n_spatial 2), got 4");
    EXPECT_FAIL(drs_ag_affine_grid(&out, thb, 4, hw, 0), DRS_ERR_INVALID_ARGUMENT,
                "n_spatial must be 2 or 3, got 4");
    const int64_t th23[3] = {1, 2, 3};
    drs_var *th = rand_leaf(t, 3, th23, -1, 1, 1);
    EXPECT_FAIL(drs_ag_affine_grid(&out, th, 2, hw, 2), DRS_ERR_INVALID_ARGUMENT,
                "align_corners must be 0 or 1, got 2");
    EXPECT_FAIL(drs_ag_affine_grid(&out, th, 2, neg, 0), DRS_ERR_SHAPE, "size[1] must be >= 0, got -1");
    /* var creation */
    const int64_t huge[2] = {(int64_t)1 << 40, (int64_t)1 << 40};
    EXPECT_FAIL(drs_var_new(&out, t, DRS_F64, 2, huge, NULL, 0), DRS_ERR_OVERFLOW, "overflow");
    EXPECT_FAIL(drs_var_new(&out, t, DRS_U8, 2, s23, NULL, 0), DRS_ERR_UNSUPPORTED,
                "dtype must be f32 or f64, got u8");
    EXPECT_FAIL(drs_var_new(&out, t, DRS_F64, 0, s23, NULL, 0), DRS_ERR_SHAPE, "rank must be in [1, 8], got 0");
    EXPECT_FAIL(drs_var_new(&out, t, DRS_F64, 2, s23, NULL, 2), DRS_ERR_INVALID_ARGUMENT,
                "requires_grad must be 0 or 1, got 2");
    const int64_t negs[2] = {2, -3};
    EXPECT_FAIL(drs_var_new(&out, t, DRS_F64, 2, negs, NULL, 0), DRS_ERR_SHAPE, "shape[1] must be >= 0, got -3");

    /* Interpolate: library errors keep their message behind the op name */
    const int64_t s4[4] = {1, 1, 4, 5}, s2[1] = {2};
    drs_var *x = rand_leaf(t, 4, s4, -1, 1, 1);
    const double bad[2] = {1.5, -2}, good[2] = {1.5, 1.2};
    drs_var *scb = leaf(t, 1, s2, bad, 1), *scg = leaf(t, 1, s2, good, 1);
    drs_interpolate_attrs ia = drs_interpolate_attrs_default(4);
    ia.mode = DRS_MODE_LINEAR;
    ia.shape_calculation_mode = DRS_SHAPE_SCALES;
    const int64_t ax[2] = {2, 3};
    drs_interpolate_inputs in = {NULL, 0, NULL, 0, ax, 2};
    EXPECT_FAIL(drs_ag_interpolate(&out, x, scb, &in, &ia), DRS_ERR_INVALID_ARGUMENT,
                "drs_ag_interpolate: Interpolate-4: scales[1]");
    drs_interpolate_inputs in_c = {NULL, 0, good, 2, ax, 2};
    EXPECT_FAIL(drs_ag_interpolate(&out, x, scg, &in_c, &ia), DRS_ERR_INVALID_ARGUMENT,
                "in->scales must be NULL when a scales var is given");
    drs_var *scf;
    OKR(drs_var_new(&scf, t, DRS_F32, 1, s2, NULL, 1));
    EXPECT_FAIL(drs_ag_interpolate(&out, x, scf, &in, &ia), DRS_ERR_INVALID_ARGUMENT,
                "scales var dtype must be f64, got f32");
    drs_interpolate_inputs in_bad = {NULL, 0, NULL, 0, ax, 9};
    EXPECT_FAIL(drs_ag_interpolate(&out, x, scg, &in_bad, &ia), DRS_ERR_SHAPE,
                "axes has 9 entries, must be in [0, 8]");
    drs_interpolate_attrs i1 = drs_interpolate_attrs_default(1);
    EXPECT_FAIL(drs_ag_interpolate(&out, x, scg, &in, &i1), DRS_ERR_INVALID_ARGUMENT,
                "Interpolate-1 has no scales input");
    ia.antialias = 1;
    ia.mode = DRS_MODE_NEAREST;
    EXPECT_FAIL(drs_ag_interpolate(&out, x, scg, &in, &ia), DRS_ERR_INVALID_ARGUMENT,
                "antialias=1 is not valid with mode nearest");
    /* Resize */
    drs_resize_attrs ra = drs_resize_attrs_default(18);
    ra.mode = DRS_MODE_NEAREST;
    ra.antialias = 1;
    const double sc4[4] = {1, 1, 2, 2};
    drs_resize_inputs rin = {NULL, 0, sc4, 4, NULL, 0};
    EXPECT_FAIL(drs_ag_resize(&out, x, NULL, NULL, &rin, &ra), DRS_ERR_INVALID_ARGUMENT,
                "drs_ag_resize: Resize-18");
    ra = drs_resize_attrs_default(12);
    EXPECT_FAIL(drs_ag_resize(&out, x, NULL, NULL, &rin, &ra), DRS_ERR_INVALID_ARGUMENT,
                "drs_ag_resize:");
    ra = drs_resize_attrs_default(19);
    EXPECT_FAIL(drs_ag_resize(&out, x, NULL, scg, &rin, &ra), DRS_ERR_INVALID_ARGUMENT,
                "in->scales must be NULL");
    drs_resize_inputs rin0 = {NULL, 0, NULL, 0, NULL, 0};
    EXPECT_FAIL(drs_ag_resize(&out, x, NULL, scg, &rin0, &ra), DRS_ERR_SHAPE, "drs_ag_resize: Resize-19");
    /* TorchInterpolate: bicubic needs 4-D */
    drs_torch_interpolate_attrs ta = drs_torch_interpolate_attrs_default();
    ta.mode = DRS_TORCH_BICUBIC;
    ta.n_size = 1;
    ta.size[0] = 4;
    const int64_t s3d[3] = {1, 1, 5};
    drs_var *x3 = rand_leaf(t, 3, s3d, -1, 1, 1);
    EXPECT_FAIL(drs_ag_torch_interpolate(&out, x3, &ta), DRS_ERR_SHAPE, "drs_ag_torch_interpolate:");
    /* GridSample: batch mismatch, wrong last dim */
    const int64_t gb[4] = {2, 3, 3, 2}, gl[4] = {1, 3, 3, 3};
    drs_var *grid_b = rand_leaf(t, 4, gb, -1, 1, 1), *grid_l = rand_leaf(t, 4, gl, -1, 1, 1);
    drs_grid_sample_attrs ga = drs_grid_sample_attrs_default(16);
    EXPECT_FAIL(drs_ag_grid_sample(&out, x, grid_b, &ga), DRS_ERR_SHAPE, "drs_ag_grid_sample:");
    EXPECT_FAIL(drs_ag_grid_sample(&out, x, grid_l, &ga), DRS_ERR_SHAPE, "drs_ag_grid_sample:");
    EXPECT_FAIL(drs_ag_grid_sample(&out, x, grid_l, NULL), DRS_ERR_INVALID_ARGUMENT, "attrs is NULL");
    /* backward */
    drs_var *xx;
    OKR(drs_ag_mul(&xx, a, a));
    CHECK(drs_tape_backward(xx) == DRS_ERR_SHAPE && strstr(drs_last_error(), "exactly 1 element, got 6"),
          "backward of a non-scalar: %s", drs_last_error());
    const double dyv[6] = {0};
    drs_tensor dy = {DRS_F64, 2, {3, 2}, (void *)dyv};
    CHECK(drs_tape_backward_grad(xx, &dy) == DRS_ERR_SHAPE &&
              strstr(drs_last_error(), "dy shape[0] must be 2, got 3"),
          "backward_grad with a wrong dy: %s", drs_last_error());
    CHECK(drs_tape_backward(NULL) == DRS_ERR_INVALID_ARGUMENT, "backward(NULL)");
    /* rewind to another tape's position */
    CHECK(drs_tape_rewind(t, drs_tape_tell(t2)) == DRS_ERR_INVALID_ARGUMENT,
          "rewind to a foreign position: %s", drs_last_error());

    /* the tape is still usable after all that */
    drs_var *y, *L;
    drs_interpolate_attrs ok4 = drs_interpolate_attrs_default(4);
    ok4.mode = DRS_MODE_LINEAR;
    ok4.shape_calculation_mode = DRS_SHAPE_SCALES;
    OKR(drs_ag_interpolate(&y, x, scg, &in, &ok4));
    OKR(drs_ag_mean(&L, y));
    OKR(drs_tape_zero_grad(t));
    OKR(drs_tape_backward(L));
    CHECK(g64(scg)[0] != 0 && g64(x)[0] != 0, "the tape works after the failures");
    drs_tape_free(t);
    drs_tape_free(t2);
}


/* ------------------------------------------- learning scales from s = 1 */
/* One learning run: Adam on mse(op(x; s), target) from s = (1, 1, lo2, lo3)
 * (N and C unresized, at s = 1, the low end of their size interval; H and W
 * at the low end of the interval of the target's size), projecting with
 * drs_ag_project_scales after every step.  family 0: drs_ag_interpolate,
 * 1: drs_ag_resize, 2: InterpolateBackprop-4 called directly (projected with
 * drs_interpolate_scale_range).  Returns 1 when no call failed, the shape
 * never changed and the loss fell below half its start. */
static int learn_case(int family, const drs_interpolate_attrs *ia, const drs_resize_attrs *ra,
                      const char *name)
{
    const int64_t xs[4] = {1, 2, 8, 8}, s4[1] = {4};
    double img[128];
    for (int i = 0; i < 128; i++)
        img[i] = sin(0.37 * i) + 0.5 * cos(0.11 * i * i);
    const double s_true[4] = {1.0, 1.0, 1.3, 1.45};
    drs_tape *t = NULL;
    int ok = 0;
    if (drs_tape_new(&t) != DRS_OK)
        return 0;
    drs_var *x, *st, *target, *sv, *y, *loss;
    drs_status e;
#define LTRY(call)                                                                           \
    do {                                                                                     \
        if ((e = (call)) != DRS_OK) {                                                        \
            printf("FAIL learn %s: %s: %s\n", name, #call, drs_last_error());                \
            goto out;                                                                        \
        }                                                                                    \
    } while (0)
    LTRY(drs_var_new(&x, t, DRS_F64, 4, xs, img, 0));
    LTRY(drs_var_new(&st, t, DRS_F64, 1, s4, s_true, 0));
    if (family == 1)
        LTRY(drs_ag_resize(&target, x, NULL, st, NULL, ra));
    else
        LTRY(drs_ag_interpolate(&target, x, st, NULL, ia));
    const drs_tensor tv = drs_var_value(target);
    double lo[4], hi[4], s0[4];
    {
        const drs_tensor xv = drs_var_value(x);
        if (family == 1) {
            drs_resize_inputs rin = {NULL, 0, s_true, 4, NULL, 0};
            LTRY(drs_resize_scale_range(ra, &xv, &rin, lo, hi, NULL, NULL));
        } else {
            drs_interpolate_inputs iin = {NULL, 0, s_true, 4, NULL, 0};
            LTRY(drs_interpolate_scale_range(ia, &xv, &iin, lo, hi));
        }
    }
    for (int i = 0; i < 4; i++)
        s0[i] = i < 2 ? 1.0 : lo[i];
    /* ONNX's floor rule: s = 1 is the low end of N/C's interval (only larger
     * values keep the size); OpenVINO's s + 1e-6 puts it just inside, except
     * linear_onnx, which takes no other scale than 1 on N and C */
    if (!(family == 1 ? lo[1] == 1.0 : lo[1] <= 1.0 && 1.0 < hi[1])) {
        printf("FAIL learn %s: s = 1 against N/C's interval [%.17g, %.17g)\n", name, lo[1],
               hi[1]);
        goto out;
    }
    LTRY(drs_var_new(&sv, t, DRS_F64, 1, s4, s0, 1));
    double *s = drs_var_value(sv).data;
    const drs_tape_pos start = drs_tape_tell(t);
    double m[4] = {0}, v[4] = {0}, first = 0, last = 0;
    const int steps = 80;
    for (int step = 0; step <= steps; step++) {
        if (family == 1)
            LTRY(drs_ag_resize(&y, x, NULL, sv, NULL, ra));
        else
            LTRY(drs_ag_interpolate(&y, x, sv, NULL, ia));
        LTRY(drs_ag_mse_loss(&loss, y, target)); /* fails if the shape changed */
        last = drs_var_item(loss);
        if (step == 0)
            first = last;
        if (step == steps)
            break;
        double g[4];
        if (family == 2) { /* the seed op, called directly, must agree with the tape */
            const drs_tensor yv = drs_var_value(y), xv = drs_var_value(x);
            const int64_t n = yv.shape[0] * yv.shape[1] * yv.shape[2] * yv.shape[3];
            double *dy = malloc(sizeof(double) * (size_t)n);
            for (int64_t k = 0; k < n; k++)
                dy[k] = 2.0 * (((double *)yv.data)[k] - ((double *)tv.data)[k]) / (double)n;
            drs_tensor dyt = yv;
            dyt.data = dy;
            drs_interpolate_inputs bin = {NULL, 0, s, 4, NULL, 0};
            e = drs_interpolate_backprop(NULL, g, &xv, &dyt, &bin, ia, DRS_GRAD_OVERWRITE);
            free(dy);
            LTRY(e);
        } else {
            LTRY(drs_tape_zero_grad(t));
            LTRY(drs_tape_backward(loss));
            memcpy(g, drs_var_grad(sv).data, sizeof g);
        }
        for (int i = 0; i < 4; i++) {
            m[i] = 0.9 * m[i] + 0.1 * g[i];
            v[i] = 0.999 * v[i] + 0.001 * g[i] * g[i];
            const double mh = m[i] / (1 - pow(0.9, step + 1)), vh = v[i] / (1 - pow(0.999, step + 1));
            s[i] -= 4e-3 * mh / (sqrt(vh) + 1e-15);
        }
        if (family == 2) {
            for (int i = 0; i < 4; i++)
                s[i] = s[i] < lo[i] ? lo[i] : s[i] >= hi[i] ? nextafter(hi[i], 0.0) : s[i];
        } else {
            LTRY(drs_ag_project_scales(y));
        }
        LTRY(drs_tape_rewind(t, start));
    }
    ok = last < 0.5 * first;
    if (!ok)
        printf("FAIL learn %s: loss %.3e -> %.3e, s = (%.6f, %.6f, %.6f, %.6f)\n", name, first,
               last, s[0], s[1], s[2], s[3]);
out:
#undef LTRY
    drs_tape_free(t);
    return ok;
}

static void test_learn_from_one(void)
{
    static const drs_interp_mode ov[] = {DRS_MODE_LINEAR, DRS_MODE_LINEAR_ONNX, DRS_MODE_CUBIC};
    char name[128];
    for (int fam = 0; fam <= 2; fam += 2)
        for (int ver = 4; ver <= 11; ver += 7)
            for (int m = 0; m < 3; m++)
                for (int aa = 0; aa < 2; aa++) {
                    if ((aa && ov[m] != DRS_MODE_LINEAR) || (fam == 2 && ver != 4))
                        continue;
                    drs_interpolate_attrs a = drs_interpolate_attrs_default(ver);
                    a.mode = ov[m];
                    a.antialias = aa;
                    a.shape_calculation_mode = DRS_SHAPE_SCALES;
                    snprintf(name, sizeof name, "%s-%d %s aa=%d",
                             fam == 2 ? "InterpolateBackprop" : "Interpolate", ver,
                             drs_interp_mode_str(ov[m]), aa);
                    CHECK(learn_case(fam, &a, NULL, name), "learning from s = 1: %s", name);
                }
    static const int opsets[] = {10, 11, 13, 18, 19};
    for (int k = 0; k < 5; k++)
        for (int m = 0; m < 2; m++)
            for (int aa = 0; aa < 2; aa++) {
                if ((opsets[k] == 10 && m) || (aa && opsets[k] < 18))
                    continue;
                drs_resize_attrs a = drs_resize_attrs_default(opsets[k]);
                a.mode = m ? DRS_MODE_CUBIC : DRS_MODE_LINEAR;
                a.antialias = aa;
                snprintf(name, sizeof name, "Resize-%d %s aa=%d", opsets[k],
                         drs_interp_mode_str(a.mode), aa);
                CHECK(learn_case(1, NULL, &a, name), "learning from s = 1: %s", name);
            }
}

/* drs_ag_project_scales: clamps into the interval of y's shape, leaves values
 * inside alone, refuses what it cannot project, writes nothing on error. */
static void test_project_scales(void)
{
    drs_tape *t = NULL;
    OKR(drs_tape_new(&t));
    const int64_t xs[4] = {1, 1, 5, 7}, s4[1] = {4};
    drs_var *x, *sv, *y, *y2;
    OKR(drs_var_new(&x, t, DRS_F64, 4, xs, NULL, 0));
    const double s0[4] = {1.0, 1.0, 1.7, 0.6};
    OKR(drs_var_new(&sv, t, DRS_F64, 1, s4, s0, 1));
    drs_resize_attrs a = drs_resize_attrs_default(19);
    a.mode = DRS_MODE_LINEAR;
    OKR(drs_ag_resize(&y, x, NULL, sv, NULL, &a));
    double *s = drs_var_value(sv).data;
    s[0] = 0.5;   /* below [1, 2) */
    s[1] = 1.25;  /* inside */
    s[2] = 9.0;   /* above [1.6, 1.8) */
    s[3] = 0.62;  /* inside [4/7, 5/7) */
    OKR(drs_ag_project_scales(y));
    double lo[4], hi[4];
    const drs_tensor xv = drs_var_value(x);
    const drs_resize_inputs rin = {NULL, 0, s0, 4, NULL, 0};
    OKR(drs_resize_scale_range(&a, &xv, &rin, lo, hi, NULL, NULL));
    CHECK(s[0] == 1.0 && s[1] == 1.25 && s[2] == nextafter(hi[2], 0.0) && s[3] == 0.62 &&
              hi[2] > 1.79 && hi[2] <= 1.8,
          "projected (%.17g, %.17g, %.17g, %.17g), hi[2] %.17g", s[0], s[1], s[2], s[3], hi[2]);
    OKR(drs_ag_resize(&y2, x, NULL, sv, NULL, &a));
    const drs_tensor a1 = drs_var_value(y), a2 = drs_var_value(y2);
    CHECK(memcmp(a1.shape, a2.shape, sizeof a1.shape) == 0, "the shape changed after projection");
    s[2] = NAN;
    const double keep0 = s[0];
    s[0] = 7.0;
    CHECK(drs_ag_project_scales(y) == DRS_ERR_INVALID_ARGUMENT && s[0] == 7.0 &&
              strstr(drs_last_error(), "scales[2] is NaN"),
          "NaN: %s", drs_last_error());
    s[0] = keep0;
    CHECK(drs_ag_project_scales(x) == DRS_ERR_INVALID_ARGUMENT &&
              strstr(drs_last_error(), "drs_ag_project_scales"),
          "a leaf: %s", drs_last_error());
    CHECK(drs_ag_project_scales(NULL) == DRS_ERR_INVALID_ARGUMENT, "NULL");
    drs_tape_free(t);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--quick"))
            g_quick = 1;
    drs_set_num_threads(2);
    struct {
        const char *name;
        void (*fn)(void);
    } groups[] = {
        {"elementwise", test_elementwise},
        {"matmul", test_matmul},
        {"affine_grid", test_affine_grid},
        {"tape FD", test_basic_fd},
        {"Interpolate FD", test_interpolate_fd},
        {"Resize FD", test_resize_fd},
        {"TorchInterpolate FD", test_torch_fd},
        {"GridSample FD", test_grid_sample_fd},
        {"accumulate/no-grad/rewind", test_accumulate_and_modes},
        {"f32", test_f32},
        {"errors", test_errors},
        {"learning scales from s = 1", test_learn_from_one},
        {"project_scales", test_project_scales},
    };
    for (size_t k = 0; k < sizeof groups / sizeof groups[0]; k++) {
        int f0 = g_fail;
        groups[k].fn();
        printf("%-28s %s\n", groups[k].name, g_fail == f0 ? "ok" : "FAILED");
    }
    test_threads(0);
    test_threads(1);
    printf("threads 1 vs 3               %s\n", g_fail ? "(see above)" : "ok");
    printf("test_autograd: %d checks passed, %d failed; %d finite-difference cases, %d "
           "elements%s\n",
           g_checks - g_fail, g_fail, g_fd_cases, g_fd_checks, g_quick ? " (quick)" : "");
    return g_fail ? 1 : 0;
}
