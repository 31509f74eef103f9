/* SPDX-License-Identifier: MIT */
/* test_gradcheck.c — the gradcheck module checked against itself:
 *  - correct gradients pass (hand-written functions and real dresample ops,
 *    full and fast mode), and the perturbed inputs are restored bit for bit;
 *  - deliberately wrong backwards are caught in both modes: off by a factor,
 *    a transposed index, a missing term; also on a real op (Resize-19 scales
 *    gradient scaled by 1.01, data gradient with two entries swapped);
 *  - a backward with hidden state fails the reentrancy check, one that
 *    clips its output_delta fails (only) the linearity check, one that writes
 *    into output_delta is caught, a gradient declared zero that is not;
 *  - the report's worst element is the planted one;
 *  - the kink-aware sampler: finite differences straddling a kink really do
 *    fail (so avoiding them matters), sampled grid points keep their margin,
 *    invalid combinations come back as DRS_ERR_INVALID_ARGUMENT, and the
 *    exact-zero rules of docs/semantics.md are applied (nearest, identity short-cut).
 * Prints one line per failed expectation and a summary; exit 1 on failure. */
#include <dresample.h>
#include <dresample_gradcheck.h>

#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>


/* ------------------------------------------------ a hand-written function
 * y[o] = sum_j A[o][j] x0[j] + x0[o % 3] * x1[o % 2] + sin(x1[(o + 1) % 2])
 * with A non-symmetric (5 x 5), x0 in R^5, x1 in R^2: linear and nonlinear
 * parts, two inputs. */
#define NO 5
#define N0 5
#define N1 2

typedef enum {
    BUG_NONE = 0,
    BUG_FACTOR,     /* the x0 gradient scaled by 1.1 */
    BUG_TRANSPOSE,  /* A instead of A^T */
    BUG_MISSING,    /* the x0[o%3]*x1[o%2] term dropped from the x1 gradient */
    BUG_HIDDEN,     /* a call counter leaks into the result */
    BUG_CLIP,       /* output_delta clipped to [-1, 1]: nonlinear only for large dy */
    BUG_MUTATE,     /* writes into output_delta */
    BUG_PARTIAL,    /* leaves x0[4]'s gradient unwritten (the buffer's old value stays) */
    BUG_PLANTED,    /* one entry (x1[1], output 2) off by 0.5 */
    BUG_FWD_FAIL    /* forward fails */
} bug;

typedef struct hand {
    double A[NO][N0];
    bug b;
    int calls;
} hand;

static int hand_forward(void *ctx, double *const *x, double *y)
{
    hand *h = ctx;
    if (h->b == BUG_FWD_FAIL)
        return 7;
    for (int o = 0; o < NO; o++) {
        double s = 0.0;
        for (int j = 0; j < N0; j++)
            s += h->A[o][j] * x[0][j];
        y[o] = s + x[0][o % 3] * x[1][o % 2] + sin(x[1][(o + 1) % 2]);
    }
    return 0;
}

static int hand_backward(void *ctx, double *const *x, const double *dy_in, double *const *g)
{
    hand *h = ctx;
    h->calls++;
    double dy[NO];
    for (int o = 0; o < NO; o++) {
        dy[o] = dy_in[o];
        if (h->b == BUG_CLIP)
            dy[o] = dy[o] > 1.0 ? 1.0 : dy[o] < -1.0 ? -1.0 : dy[o];
    }
    if (h->b == BUG_MUTATE)
        ((double *)dy_in)[0] = nextafter(dy_in[0], INFINITY); /* one ulp: still a write */
    if (g[0]) {
        double g0[N0];
        for (int j = 0; j < N0; j++) {
            double s = 0.0;
            for (int o = 0; o < NO; o++)
                s += (h->b == BUG_TRANSPOSE ? h->A[j][o] : h->A[o][j]) * dy[o];
            g0[j] = s;
        }
        for (int o = 0; o < NO; o++)
            g0[o % 3] += x[1][o % 2] * dy[o];
        if (h->b == BUG_FACTOR)
            for (int j = 0; j < N0; j++)
                g0[j] *= 1.1;
        if (h->b == BUG_HIDDEN)
            g0[1] += 1e-3 * h->calls;
        memcpy(g[0], g0, sizeof(double) * (h->b == BUG_PARTIAL ? N0 - 1 : N0));
    }
    if (g[1]) {
        g[1][0] = g[1][1] = 0.0;
        for (int o = 0; o < NO; o++) {
            if (h->b != BUG_MISSING)
                g[1][o % 2] += x[0][o % 3] * dy[o];
            g[1][(o + 1) % 2] += cos(x[1][(o + 1) % 2]) * dy[o];
            if (h->b == BUG_PLANTED && o == 2)
                g[1][1] += 0.5 * dy[o];
        }
    }
    return 0;
}

static double xv0[N0] = {0.3, -0.7, 1.1, 0.25, -0.4};
static double xv1[N1] = {0.9, -1.3};

static drs_gc_fn hand_fn(hand *h, bug b)
{
    memset(h, 0, sizeof *h);
    for (int o = 0; o < NO; o++)
        for (int j = 0; j < N0; j++)
            h->A[o][j] = 0.1 * (double)((o * 7 + j * 3) % 11) - 0.45 + (o == j ? 1.0 : 0.0) +
                         (j > o ? 0.3 * (double)(j - o) : 0.0); /* non-symmetric */
    h->b = b;
    drs_gc_fn f;
    memset(&f, 0, sizeof f);
    f.n_inputs = 2;
    f.in[0] = (drs_gc_input){"x0", xv0, N0, DRS_GC_CHECK, NULL, 0};
    f.in[1] = (drs_gc_input){"x1", xv1, N1, DRS_GC_CHECK, NULL, 0};
    f.n_out = NO;
    f.forward = hand_forward;
    f.backward = hand_backward;
    f.ctx = h;
    return f;
}

static drs_gc_report run(const drs_gc_fn *f, int fast)
{
    drs_gc_options o = drs_gc_options_default();
    o.fast_mode = fast;
    drs_gc_report r;
    const drs_status s = drs_gradcheck(f, &o, &r);
    CHECK(s == DRS_OK, "drs_gradcheck returned %s", drs_status_str(s));
    return r;
}

static void test_hand(void)
{
    hand h;
    double save0[N0], save1[N1];
    memcpy(save0, xv0, sizeof save0);
    memcpy(save1, xv1, sizeof save1);
    for (int fast = 0; fast < 2; fast++) {
        drs_gc_fn f = hand_fn(&h, BUG_NONE);
        drs_gc_report r = run(&f, fast);
        CHECK(r.passed && r.failures == 0, "correct gradient (fast=%d): %s", fast, r.message);
        CHECK(r.n_compared == (fast ? 2 * 2 : NO * (N0 + N1)), "fast=%d compared %lld", fast,
               (long long)r.n_compared);
        CHECK(r.max_abs_numeric > 0.1, "fast=%d: non-vacuous (max |numeric| %g)", fast,
               r.max_abs_numeric);
        CHECK(r.max_err_ratio < 1e-2, "fast=%d: err/tol %g", fast, r.max_err_ratio);
        CHECK(!memcmp(save0, xv0, sizeof save0) && !memcmp(save1, xv1, sizeof save1),
               "inputs restored bit for bit (fast=%d)", fast);
        static const struct {
            bug b;
            unsigned want;
            const char *name;
        } wrong[] = {{BUG_FACTOR, DRS_GC_F_MISMATCH, "off by a factor"},
                     {BUG_TRANSPOSE, DRS_GC_F_MISMATCH, "transposed index"},
                     {BUG_MISSING, DRS_GC_F_MISMATCH, "missing term"}};
        for (size_t k = 0; k < sizeof wrong / sizeof wrong[0]; k++) {
            f = hand_fn(&h, wrong[k].b);
            r = run(&f, fast);
            CHECK(!r.passed && (r.failures & wrong[k].want), "%s not caught (fast=%d)",
                   wrong[k].name, fast);
            CHECK(!(r.failures & (DRS_GC_F_REENTRANT | DRS_GC_F_LINEARITY)),
                   "%s: a linear, reentrant backward flagged otherwise (fast=%d, %#x)",
                   wrong[k].name, fast, r.failures);
        }
        /* hidden state: every other check may pass, reentrancy must not */
        f = hand_fn(&h, BUG_HIDDEN);
        r = run(&f, fast);
        CHECK(r.failures & DRS_GC_F_REENTRANT, "hidden state not caught (fast=%d): %#x", fast,
               r.failures);
        /* clipping dy: e_o rows and unit v have |dy| <= 1, only linearity sees it */
        f = hand_fn(&h, BUG_CLIP);
        r = run(&f, fast);
        CHECK(r.failures == DRS_GC_F_LINEARITY && r.linearity_err > 1.0,
               "clipped output_delta: failures %#x (want linearity only), %s", r.failures,
               r.message);
        /* an element left unwritten: the two reentrancy calls start from
         * different buffer contents */
        f = hand_fn(&h, BUG_PARTIAL);
        r = run(&f, fast);
        CHECK(r.failures & DRS_GC_F_REENTRANT, "unwritten gradient element not caught (fast=%d)",
               fast);
        f = hand_fn(&h, BUG_MUTATE);
        r = run(&f, fast);
        CHECK(r.failures & DRS_GC_F_MUTATES, "output_delta write not caught (fast=%d)", fast);
        f = hand_fn(&h, BUG_FWD_FAIL);
        r = run(&f, fast);
        CHECK(!r.passed && (r.failures & DRS_GC_F_CALLBACK) && strstr(r.message, "returned 7"),
               "failing forward: %#x '%s'", r.failures, r.message);
    }
    /* the worst element is the planted one: x1[1], output 2, numeric = the
     * true derivative cos(x1[1]) (o = 2: (o + 1) % 2 = 1), analytic + 0.5 */
    drs_gc_fn f = hand_fn(&h, BUG_PLANTED);
    drs_gc_report r = run(&f, 0);
    CHECK(!r.passed && r.worst.input == 1 && r.worst.index == 1 && r.worst.out_index == 2,
           "worst element (%d, %lld, %lld), want (1, 1, 2)", r.worst.input,
           (long long)r.worst.index, (long long)r.worst.out_index);
    CHECK(fabs(r.worst.numeric - cos(xv1[1])) < 1e-8 &&
               fabs(r.worst.analytic - (cos(xv1[1]) + 0.5)) < 1e-12,
           "worst analytic %.12g numeric %.12g, want %.12g / %.12g", r.worst.analytic,
           r.worst.numeric, cos(xv1[1]) + 0.5, cos(xv1[1]));
    CHECK(fabs(r.max_abs_err - 0.5) < 1e-8, "max_abs_err %g, want 0.5", r.max_abs_err);
    CHECK(strstr(r.message, "x1[1]") != NULL, "message names the element: '%s'", r.message);
    /* fast mode sees it too, reported as (input 1, a probe) */
    r = run(&f, 1);
    CHECK(!r.passed && r.worst.input == 1 && r.worst.out_index == -1,
           "planted error in fast mode: passed %d worst input %d", r.passed, r.worst.input);

    /* declared kinds: a skipped input is not compared; a wrong "zero" is caught */
    f = hand_fn(&h, BUG_MISSING);
    f.in[1].kind = DRS_GC_SKIP;
    r = run(&f, 0);
    CHECK(r.passed && r.n_skipped == N1, "skipped input still compared: %s", r.message);
    f = hand_fn(&h, BUG_NONE);
    f.in[1].kind = DRS_GC_ZERO;
    r = run(&f, 0);
    CHECK(!r.passed && (r.failures & DRS_GC_F_ZERO), "non-zero gradient declared zero passed");
    /* bad arguments */
    drs_gc_options o = drs_gc_options_default();
    o.eps = 0.0;
    CHECK(drs_gradcheck(&f, &o, &r) == DRS_ERR_INVALID_ARGUMENT, "eps = 0 accepted");
    CHECK(drs_gradcheck(NULL, NULL, &r) == DRS_ERR_INVALID_ARGUMENT, "NULL fn accepted");
    f.n_inputs = 0;
    CHECK(drs_gradcheck(&f, NULL, &r) == DRS_ERR_INVALID_ARGUMENT, "no inputs accepted");
}

/* A step function y = floor(3 x) declared exactly zero: passes without
 * differences (which would be huge across the step). */
static int step_forward(void *ctx, double *const *x, double *y)
{
    (void)ctx;
    y[0] = floor(3.0 * x[0][0]) + x[1][0];
    return 0;
}
static int step_backward(void *ctx, double *const *x, const double *dy, double *const *g)
{
    (void)ctx;
    (void)x;
    if (g[0])
        g[0][0] = 0.0;
    if (g[1])
        g[1][0] = dy[0];
    return 0;
}

static void test_step(void)
{
    double a = 1.0 / 3.0, b = 0.5; /* a sits on the step */
    drs_gc_fn f;
    memset(&f, 0, sizeof f);
    f.n_inputs = 2;
    f.in[0] = (drs_gc_input){"a", &a, 1, DRS_GC_ZERO, NULL, 0};
    f.in[1] = (drs_gc_input){"b", &b, 1, DRS_GC_CHECK, NULL, 0};
    f.n_out = 1;
    f.forward = step_forward;
    f.backward = step_backward;
    for (int fast = 0; fast < 2; fast++) {
        drs_gc_report r = run(&f, fast);
        CHECK(r.passed && r.n_zero_checked > 0, "step declared zero (fast=%d): %s", fast,
               r.message);
    }
    f.in[0].kind = DRS_GC_CHECK; /* differences across the step: must fail */
    drs_gc_report r = run(&f, 0);
    CHECK(!r.passed, "differences across a step passed");
}

/* ----------------------------------------------------- real dresample ops */
typedef struct tamper {
    drs_gc_case *c;
    int what; /* 0 none, 1 scales x1.01, 2 data gradient entries 0 and 1 swapped */
} tamper;

static int tamper_forward(void *ctx, double *const *x, double *y)
{
    tamper *t = ctx;
    return t->c->fn.forward(t->c, x, y);
}

static int tamper_backward(void *ctx, double *const *x, const double *dy, double *const *g)
{
    tamper *t = ctx;
    const int rc = t->c->fn.backward(t->c, x, dy, g);
    if (t->what == 1 && g[t->c->idx_scales])
        for (int64_t i = 0; i < t->c->fn.in[t->c->idx_scales].n; i++)
            g[t->c->idx_scales][i] *= 1.01;
    if (t->what == 2 && g[0]) {
        const double v = g[0][0];
        g[0][0] = g[0][1];
        g[0][1] = v;
    }
    return rc;
}

static drs_gc_op resize19(drs_interp_mode m, drs_coord_mode cm)
{
    drs_gc_op op = drs_gc_op_init(DRS_GC_RESIZE, 19);
    op.resize.mode = m;
    op.resize.coordinate_transformation_mode = cm;
    op.rank = 4;
    const int64_t shp[4] = {1, 2, 5, 6};
    memcpy(op.shape, shp, sizeof shp);
    op.resize.n_axes = 2;
    op.resize.axes[0] = 2;
    op.resize.axes[1] = 3;
    op.n_scales = 2;
    op.scales[0] = 1.37;
    op.scales[1] = 0.77;
    return op;
}

static void test_ops(void)
{
    /* a correct op passes in both modes; tampered backwards are caught */
    drs_gc_op op = resize19(DRS_MODE_CUBIC, DRS_COORD_HALF_PIXEL);
    drs_gc_case c;
    drs_gc_avoid av;
    memset(&av, 0, sizeof av);
    drs_status s = drs_gc_case_prepare(&c, &op, 42, &av);
    CHECK(s == DRS_OK, "prepare Resize-19 cubic: %s", drs_last_error());
    if (s)
        return;
    CHECK(c.grad_data == DRS_GC_CHECK && c.grad_scales == DRS_GC_CHECK && c.grad_roi == -1,
           "Resize-19 cubic gradients: data %d scales %d roi %d", c.grad_data, c.grad_scales,
           c.grad_roi);
    CHECK(av.candidates >= 2 && av.accepted == 2, "draws %lld accepted %lld",
           (long long)av.candidates, (long long)av.accepted);
    for (int what = 0; what < 3; what++)
        for (int fast = 0; fast < 2; fast++) {
            tamper t = {&c, what};
            drs_gc_fn f = c.fn;
            f.ctx = &t;
            f.forward = tamper_forward;
            f.backward = tamper_backward;
            drs_gc_report r = run(&f, fast);
            if (what == 0)
                CHECK(r.passed && r.max_abs_numeric > 0.0, "Resize-19 cubic (fast=%d): %s",
                       fast, r.message);
            else
                CHECK(!r.passed && (r.failures & DRS_GC_F_MISMATCH),
                       "Resize-19 tampered backward %d not caught (fast=%d)", what, fast);
            if (what == 1 && !fast)
                CHECK(r.worst.input == c.idx_scales, "scales tamper: worst input %d",
                       r.worst.input);
        }
    drs_gc_case_free(&c);

    /* finite differences straddling a kink fail: linear asymmetric with
     * s = 4/3 on L = 5 (O = 6) samples c(4) = 3, an integer, where only the
     * right derivative is defined.  The sampler exists to keep away from it. */
    op = resize19(DRS_MODE_LINEAR, DRS_COORD_ASYMMETRIC);
    s = drs_gc_case_prepare(&c, &op, 7, NULL);
    CHECK(s == DRS_OK, "prepare Resize-19 linear: %s", drs_last_error());
    if (!s) {
        drs_gc_report r = run(&c.fn, 0);
        CHECK(r.passed, "Resize-19 linear, sampled scales: %s", r.message);
        double *sc = c.fn.in[c.idx_scales].value;
        sc[0] = 4.0 / 3.0;
        c.op.scales[0] = sc[0];
        drs_tensor X = {DRS_F64, 4, {1, 2, 5, 6}, sc};
        drs_resize_inputs in = {NULL, 0, sc, 2, NULL, 0};
        s = drs_resize_infer_shape(&c.op.resize, &X, &in, &c.out_rank, c.out_shape);
        CHECK(s == DRS_OK && c.out_shape[2] == 6, "s = 4/3: %s", drs_last_error());
        c.fn.n_out = c.out_shape[0] * c.out_shape[1] * c.out_shape[2] * c.out_shape[3];
        r = run(&c.fn, 0);
        CHECK(!r.passed && (r.failures & DRS_GC_F_MISMATCH) && r.worst.input == c.idx_scales,
               "differences across a tap switch passed (failures %#x: %s)", r.failures,
               r.message);
        drs_gc_case_free(&c);
    }

    /* exact zeros (docs/semantics.md): nearest, and OpenVINO's identity short-cut
     * (Interpolate-4, L = 7, s in [1, 8/7) gives O = 7) */
    op = resize19(DRS_MODE_NEAREST, DRS_COORD_HALF_PIXEL);
    s = drs_gc_case_prepare(&c, &op, 3, NULL);
    CHECK(s == DRS_OK && c.grad_scales == DRS_GC_ZERO, "nearest scales gradient kind %d",
           c.grad_scales);
    if (!s) {
        drs_gc_report r = run(&c.fn, 0);
        CHECK(r.passed && r.n_zero_checked > 0, "nearest zero scales: %s", r.message);
        drs_gc_case_free(&c);
    }
    op = drs_gc_op_init(DRS_GC_INTERPOLATE, 4);
    op.interp.mode = DRS_MODE_CUBIC;
    op.interp.shape_calculation_mode = DRS_SHAPE_SCALES;
    op.rank = 4;
    const int64_t shp[4] = {1, 2, 6, 7};
    memcpy(op.shape, shp, sizeof shp);
    op.n_axes = 2;
    op.axes[0] = 2;
    op.axes[1] = 3;
    op.n_scales = 2;
    op.scales[0] = 1.6;
    op.scales[1] = 1.1;
    op.scale_fixed[1] = 1; /* keep 1.1: O = 7 = L */
    s = drs_gc_case_prepare(&c, &op, 5, NULL);
    CHECK(s == DRS_OK, "prepare Interpolate-4 short-cut: %s", drs_last_error());
    if (!s) {
        CHECK(c.fn.in[c.idx_scales].elem_kind[0] == DRS_GC_CHECK &&
                   c.fn.in[c.idx_scales].elem_kind[1] == DRS_GC_ZERO,
               "short-cut kinds %d %d", c.fn.in[c.idx_scales].elem_kind[0],
               c.fn.in[c.idx_scales].elem_kind[1]);
        drs_gc_report r = run(&c.fn, 0);
        CHECK(r.passed && r.n_zero_checked > 0, "short-cut: %s", r.message);
        drs_gc_case_free(&c);
    }

    /* an invalid combination is reported as such, by the library */
    op = resize19(DRS_MODE_NEAREST, DRS_COORD_HALF_PIXEL);
    op.resize.antialias = 1;
    CHECK(drs_gc_case_prepare(&c, &op, 1, NULL) == DRS_ERR_INVALID_ARGUMENT &&
               strstr(drs_last_error(), "antialias"),
           "antialias with nearest not invalid: '%s'", drs_last_error());

    /* grid sampling: every drawn coordinate keeps its margin from integers
     * (and k + 1/2 for nearest); the gradients check in both modes */
    for (int m = 0; m < 3; m++) {
        op = drs_gc_op_init(DRS_GC_GRID_SAMPLE, 20);
        op.grid.mode = (drs_grid_mode)m;
        op.grid.padding_mode = DRS_GRID_PAD_REFLECTION;
        op.rank = 4;
        const int64_t ds[4] = {1, 2, 4, 5}, gs[4] = {1, 3, 4, 2};
        memcpy(op.shape, ds, sizeof ds);
        op.grid_rank = 4;
        memcpy(op.grid_shape, gs, sizeof gs);
        memset(&av, 0, sizeof av);
        s = drs_gc_case_prepare(&c, &op, 11 + (uint64_t)m, &av);
        CHECK(s == DRS_OK, "prepare GridSample-20 mode %d: %s", m, drs_last_error());
        if (s)
            continue;
        const double *g = c.fn.in[c.idx_grid].value;
        double dmin = 1.0;
        for (int64_t i = 0; i < c.fn.in[c.idx_grid].n; i++) {
            const int64_t L = ds[3 - i % 2];
            const double u = ((g[i] + 1.0) * (double)L - 1.0) / 2.0; /* align_corners = 0 */
            const double off = m == DRS_GRID_NEAREST ? 0.5 : 0.0;
            const double d = fabs(u - off - floor(u - off + 0.5));
            dmin = d < dmin ? d : dmin;
        }
        CHECK(dmin > 4e-3, "grid mode %d: a coordinate %.3g from a kink", m, dmin);
        CHECK(c.grad_grid == (m == DRS_GRID_NEAREST ? DRS_GC_ZERO : DRS_GC_CHECK),
               "grid gradient kind %d for mode %d", c.grad_grid, m);
        for (int fast = 0; fast < 2; fast++) {
            drs_gc_report r = run(&c.fn, fast);
            CHECK(r.passed, "GridSample-20 mode %d fast %d: %s (%s)", m, fast, r.message,
                   c.error);
        }
        drs_gc_case_free(&c);
    }
}

/* ------------------------------------------------------ kinks (DRS_GC_KINK) */
/* y = |x0 - 0.25| + 2 x0 (a corner at x0 = 0.25) and y1 = x0 * x1; the forward
 * refuses x0 < lo_ok (like an op whose output size would change there).  The
 * backward returns the slope `side` (+1 right, -1 left, 0 the mean) at the
 * corner. */
typedef struct kinkfn {
    double lo_ok;
    int side;
} kinkfn;

static int kink_forward(void *ctx, double *const *x, double *y)
{
    const kinkfn *k = ctx;
    if (x[0][0] < k->lo_ok)
        return 7;
    y[0] = fabs(x[0][0] - 0.25) + 2.0 * x[0][0];
    y[1] = x[0][0] * x[1][0];
    return 0;
}

static int kink_backward(void *ctx, double *const *x, const double *dy, double *const *g)
{
    const kinkfn *k = ctx;
    const double d = x[0][0] - 0.25;
    const double slope = d > 0 ? 1.0 : d < 0 ? -1.0 : (k->side > 0 ? 1.0 : k->side < 0 ? -1.0 : 0.0);
    if (g[0])
        g[0][0] = (slope + 2.0) * dy[0] + x[1][0] * dy[1];
    if (g[1])
        g[1][0] = x[0][0] * dy[1];
    return 0;
}

static const char *kink_error(void *ctx)
{
    (void)ctx;
    return "the output size would change";
}

static void test_kink(void)
{
    double a = 0.25, b = 0.7;
    kinkfn k = {-1.0, +1};
    drs_gc_fn f;
    memset(&f, 0, sizeof f);
    f.n_inputs = 2;
    f.in[0] = (drs_gc_input){"a", &a, 1, DRS_GC_KINK, NULL, 0};
    f.in[1] = (drs_gc_input){"b", &b, 1, DRS_GC_CHECK, NULL, 0};
    f.n_out = 2;
    f.forward = kink_forward;
    f.backward = kink_backward;
    f.error = kink_error;
    f.ctx = &k;
    for (int fast = 0; fast < 2; fast++) {
        for (int side = -1; side <= 1; side += 2) { /* either one-sided derivative passes */
            k.side = side;
            drs_gc_report r = run(&f, fast);
            CHECK(r.passed && r.n_kink == 1 && r.n_kink_one_side == 0 &&
                      (side > 0 ? r.n_kink_right : r.n_kink_left) > 0,
                  "kink side %d (fast=%d): %s (right %lld left %lld)", side, fast, r.message,
                  (long long)r.n_kink_right, (long long)r.n_kink_left);
        }
        k.side = 0; /* the mean of the two sides is neither */
        drs_gc_report r = run(&f, fast);
        CHECK(!r.passed && (r.failures & DRS_GC_F_MISMATCH), "kink mean passed (fast=%d)", fast);
        /* only the right side is defined: the left derivative must fail */
        k.lo_ok = 0.25;
        k.side = -1;
        r = run(&f, fast);
        CHECK(!r.passed && r.n_kink_one_side == 1, "left slope with only the right side (fast=%d)",
              fast);
        k.side = +1;
        r = run(&f, fast);
        CHECK(r.passed && r.n_kink_one_side == 1, "right slope, right side only (fast=%d): %s",
              fast, r.message);
        /* the same point checked by central differences fails (the forward refuses
         * a - eps): the report names the element and carries the callback's reason */
        f.in[0].kind = DRS_GC_CHECK;
        r = run(&f, fast);
        CHECK(!r.passed && (r.failures & DRS_GC_F_CALLBACK) && r.fail_input == 0 &&
                  r.fail_index == (fast ? -1 : 0) &&
                  !strcmp(r.error, "the output size would change") &&
                  strstr(r.message, "the output size would change") &&
                  strstr(r.message, fast ? "a moved along" : "a[0] = "),
              "callback failure report (fast=%d): '%s' input %d index %lld error '%s'", fast,
              r.message, r.fail_input, (long long)r.fail_index, r.error);
        f.in[0].kind = DRS_GC_KINK;
        k.lo_ok = -1.0;
    }
}

/* A dresample op whose fixed scale sits at the low end of its size interval
 * (s = 1 on an unresized axis, Resize-19 linear) is checked one-sided and
 * passes; a perturbed-size failure reports the library's message. */
static void test_op_kinks(void)
{
    drs_gc_op op = drs_gc_op_init(DRS_GC_RESIZE, 19);
    op.resize.mode = DRS_MODE_LINEAR;
    op.rank = 4;
    const int64_t sh[4] = {1, 3, 4, 5};
    memcpy(op.shape, sh, sizeof sh);
    const double sc[4] = {1.0, 1.0, 1.9, 2.1};
    op.n_scales = 4;
    memcpy(op.scales, sc, sizeof sc);
    for (int i = 0; i < 4; i++)
        op.scale_fixed[i] = 1;
    drs_gc_case c;
    drs_gc_avoid av;
    memset(&av, 0, sizeof av);
    CHECK(drs_gc_case_prepare(&c, &op, 3, &av) == DRS_OK, "prepare: %s", drs_last_error());
    const unsigned char *k = c.fn.in[c.idx_scales].elem_kind;
    CHECK(k[1] == DRS_GC_KINK && av.unchecked == 0, "scales[1] = 1 on L = 3: kind %d", k[1]);
    drs_gc_report r = run(&c.fn, 0);
    CHECK(r.passed && r.n_kink >= 1 && r.n_kink_one_side >= 1 && r.n_kink_right > 0,
          "Resize-19 s = 1 one-sided: %s", r.message);
    /* the kinds marked as ordinary differences fail there, with the library's reason */
    unsigned char *km = (unsigned char *)(uintptr_t)k;
    km[1] = DRS_GC_CHECK;
    r = run(&c.fn, 0);
    CHECK(!r.passed && r.fail_input == c.idx_scales && r.fail_index == 1 &&
              strstr(r.message, "scales[1] = ") && strstr(r.error, "output shape changed"),
          "size step report: '%s' / '%s'", r.message, r.error);
    drs_gc_case_free(&c);
}


int main(void)
{
    drs_set_num_threads(2);
    test_hand();
    test_step();
    test_ops();
    test_kink();
    test_op_kinks();
    printf("test_gradcheck: %d expectations, %d failed\n", g_checks, g_fail);
    return g_fail ? 1 : 0;
}
