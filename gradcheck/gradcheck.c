/* SPDX-License-Identifier: MIT */
/* gradcheck.c — the generic checker: a backward (vector-Jacobian product)
 * against float64 central differences of the forward.
 *
 * Full mode: column j of the numeric Jacobian is (f(x + eps e_j) - f(x - eps e_j)) / 2eps
 * for every checked input element j (stored, n_checked x n_out), row o of the
 * analytic Jacobian is backward(e_o); every entry is compared.  Fast mode:
 * per input and probe, v^T J u with seeded random unit vectors u (over the
 * checked elements of that input) and v (over the outputs), numerically as
 * v . (f(x + eps u) - f(x - eps u)) / 2eps, analytically as backward(v) . u.
 * Elements declared exactly zero are compared bit for bit, never by
 * differences (the op may be a step function of them).  Serial; no global
 * state, so independent checks can run on several threads. */
#include <dresample_gradcheck.h>

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The numeric Jacobian of full mode is refused above this many entries. */
#define GC_FULL_MAX_ENTRIES ((int64_t)1 << 27)

drs_gc_options drs_gc_options_default(void)
{
    drs_gc_options o;
    o.eps = 1e-6;
    o.atol = 1e-5;
    o.rtol = 1e-3;
    o.fast_mode = 0;
    o.n_probes = 2;
    o.seed = 1;
    o.check_reentrant = 1;
    o.check_linearity = 1;
    return o;
}

/* ------------------------------------------------------------ random */
static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* uniform in [-1, 1) */
static double urand(uint64_t *s)
{
    return (double)(splitmix(s) >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

/* ------------------------------------------------------------ helpers */
typedef struct gc_state {
    const drs_gc_fn *f;
    const drs_gc_options *o;
    drs_gc_report *r;
    double *x[DRS_GC_MAX_INPUTS];
    double *grad[DRS_GC_MAX_INPUTS]; /* NULL when not requested */
    int cur_input;                   /* the input being perturbed (-1: none) */
    int64_t cur_index;               /* its element (-1: a direction, fast mode) */
} gc_state;

static drs_gc_kind kind_of(const drs_gc_input *in, int64_t j)
{
    return in->elem_kind ? (drs_gc_kind)in->elem_kind[j] : in->kind;
}

static void fail(gc_state *g, unsigned bit, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void fail(gc_state *g, unsigned bit, const char *fmt, ...)
{
    if (g->r->failures == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(g->r->message, sizeof g->r->message, fmt, ap);
        va_end(ap);
    }
    g->r->failures |= bit;
}

/* A callback failed: the message names the perturbed element and carries the
 * callback's own reason (fn.error), which the report also keeps. */
static void callback_failed(gc_state *g, const char *what, int rc)
{
    drs_gc_report *r = g->r;
    const char *why = g->f->error ? g->f->error(g->f->ctx) : NULL;
    if (!why)
        why = "";
    if (!(r->failures & DRS_GC_F_CALLBACK)) {
        r->fail_input = g->cur_input;
        r->fail_index = g->cur_index;
        snprintf(r->error, sizeof r->error, "%s", why);
    }
    const char *sep = *why ? ": " : "";
    if (g->cur_input >= 0 && g->cur_index >= 0)
        fail(g, DRS_GC_F_CALLBACK, "%s returned %d at %s[%lld] = %.17g%s%s", what, rc,
             g->f->in[g->cur_input].name, (long long)g->cur_index,
             g->x[g->cur_input][g->cur_index], sep, why);
    else if (g->cur_input >= 0)
        fail(g, DRS_GC_F_CALLBACK, "%s returned %d with %s moved along a probe direction%s%s",
             what, rc, g->f->in[g->cur_input].name, sep, why);
    else
        fail(g, DRS_GC_F_CALLBACK, "%s returned %d at the unperturbed point%s%s", what, rc, sep,
             why);
}

static int call_forward(gc_state *g, double *y)
{
    g->r->n_forward++;
    const int rc = g->f->forward(g->f->ctx, g->x, y);
    if (rc)
        callback_failed(g, "forward", rc);
    return rc;
}

static int call_backward(gc_state *g, const double *dy, double *const *grad)
{
    g->r->n_backward++;
    const int cur = g->cur_input;
    g->cur_input = -1;
    const int rc = g->f->backward(g->f->ctx, g->x, dy, grad);
    if (rc)
        callback_failed(g, "backward", rc);
    g->cur_input = cur;
    return rc;
}

/* One-sided second-order differences of kink element j of input i:
 * right[o] = (-3 y0 + 4 f(x + eps) - f(x + 2 eps)) / 2eps, left[o] its mirror,
 * NaN where that side's forward fails (e.g. the output size changes there).
 * t1, t2: scratch of n_out.  Returns the usable sides (1 right, 2 left); 0
 * fails the check (DRS_GC_F_CALLBACK with the forward's reason). */
static int kink_columns(gc_state *g, int i, int64_t j, const double *y0, double *right,
                        double *left, double *t1, double *t2)
{
    const double eps = g->o->eps, v = g->x[i][j];
    const int64_t m = g->f->n_out;
    int usable = 0, mask = 0;
    for (int side = 0; side < 2; side++) {
        const double sg = side == 0 ? 1.0 : -1.0;
        double *col = side == 0 ? right : left;
        g->x[i][j] = v + sg * eps;
        g->r->n_forward++;
        int rc = g->f->forward(g->f->ctx, g->x, t1);
        if (!rc) {
            g->x[i][j] = v + 2.0 * sg * eps;
            g->r->n_forward++;
            rc = g->f->forward(g->f->ctx, g->x, t2);
        }
        if (!rc)
            for (int64_t o = 0; o < m; o++)
                col[o] = sg * (-3.0 * y0[o] + 4.0 * t1[o] - t2[o]) / (2.0 * eps);
        else
            for (int64_t o = 0; o < m; o++)
                col[o] = NAN;
        usable += !rc;
        mask |= rc ? 0 : (1 << side);
        if (rc && side == 1 && usable == 0) {
            g->cur_input = i;
            g->cur_index = j;
            callback_failed(g, "forward (both sides of a kink value)", rc);
        }
    }
    g->x[i][j] = v;
    g->r->n_kink++;
    g->r->n_kink_one_side += usable == 1;
    return mask;
}

/* Compares a kink entry with the one-sided difference it matches best (a
 * usable side); counts the side when the two sides differ (a real kink). */
static int compare(gc_state *g, int input, int64_t index, int64_t out_index, double analytic,
                   double numeric);
static void compare_kink(gc_state *g, int input, int64_t index, int64_t out_index,
                         double analytic, double right, double left)
{
    const int ur = !isnan(right), ul = !isnan(left);
    if (!ur && !ul)
        return;
    const int use_right = ur && (!ul || fabs(analytic - right) <= fabs(analytic - left));
    const double tol = g->o->atol + g->o->rtol * fabs(use_right ? right : left);
    if (!(ur && ul) || fabs(right - left) > tol) {
        if (use_right)
            g->r->n_kink_right++;
        else
            g->r->n_kink_left++;
    }
    compare(g, input, index, out_index, analytic, use_right ? right : left);
}

/* Records one compared entry; returns 1 when it is within tolerance. */
static int compare(gc_state *g, int input, int64_t index, int64_t out_index, double analytic,
                   double numeric)
{
    drs_gc_report *r = g->r;
    const double tol = g->o->atol + g->o->rtol * fabs(numeric);
    const double err = fabs(analytic - numeric);
    r->n_compared++;
    if (!isfinite(analytic) || !isfinite(numeric)) {
        fail(g, DRS_GC_F_NONFINITE | DRS_GC_F_MISMATCH,
             "%s[%lld] (output %lld): non-finite value: analytic %.17g, numeric %.17g",
             g->f->in[input].name, (long long)index, (long long)out_index, analytic, numeric);
        r->worst = (drs_gc_entry){input, index, out_index, analytic, numeric, INFINITY, INFINITY};
        r->input_compared[input]++;
        r->input_worst[input] = r->worst;
        r->input_err_ratio[input] = INFINITY;
        r->max_abs_err = INFINITY;
        r->max_rel_err = INFINITY;
        r->max_err_ratio = INFINITY;
        return 0;
    }
    if (fabs(numeric) > r->max_abs_numeric)
        r->max_abs_numeric = fabs(numeric);
    const double rel = err / (fabs(numeric) > DBL_MIN ? fabs(numeric) : DBL_MIN);
    if (err > r->max_abs_err)
        r->max_abs_err = err;
    if (fabs(numeric) > g->o->atol && rel > r->max_rel_err)
        r->max_rel_err = rel;
    const double ratio = err / tol;
    r->input_compared[input]++;
    if (r->input_worst[input].input < 0 || ratio > r->input_err_ratio[input]) {
        r->input_err_ratio[input] = ratio;
        r->input_worst[input] = (drs_gc_entry){input, index, out_index, analytic, numeric, err, rel};
    }
    if (r->worst.input < 0 || ratio > r->max_err_ratio) {
        r->max_err_ratio = ratio;
        r->worst = (drs_gc_entry){input, index, out_index, analytic, numeric, err, rel};
    }
    if (!(err <= tol)) {
        if (out_index >= 0)
            fail(g, DRS_GC_F_MISMATCH,
                 "d output[%lld] / d %s[%lld]: analytic %.12g, numeric %.12g (|err| %.3g > tol %.3g)",
                 (long long)out_index, g->f->in[input].name, (long long)index, analytic, numeric,
                 err, tol);
        else
            fail(g, DRS_GC_F_MISMATCH,
                 "v^T J u for %s (probe %lld): analytic %.12g, numeric %.12g (|err| %.3g > tol %.3g)",
                 g->f->in[input].name, (long long)index, analytic, numeric, err, tol);
        return 0;
    }
    return 1;
}

/* Elements declared exactly zero must be 0.0 (either sign) in grad. */
static void check_zeros(gc_state *g, int i, double *const *grad, int64_t out_index)
{
    const drs_gc_input *in = &g->f->in[i];
    if (!grad[i])
        return;
    for (int64_t j = 0; j < in->n; j++) {
        if (kind_of(in, j) != DRS_GC_ZERO)
            continue;
        g->r->n_zero_checked++;
        if (grad[i][j] != 0.0) {
            if (out_index >= 0)
                fail(g, DRS_GC_F_ZERO,
                     "d output[%lld] / d %s[%lld] = %.12g, declared exactly 0",
                     (long long)out_index, in->name, (long long)j, grad[i][j]);
            else
                fail(g, DRS_GC_F_ZERO, "%s gradient [%lld] = %.12g, declared exactly 0",
                     in->name, (long long)j, grad[i][j]);
        }
    }
}

/* -------------------------------------------------------------- modes */
static drs_status full_mode(gc_state *g, int64_t n_checked, int64_t n_kink)
{
    const drs_gc_fn *f = g->f;
    const double eps = g->o->eps;
    const int64_t m = f->n_out;
    const int64_t ncol = n_checked + 2 * n_kink;
    if (ncol > 0 && m > GC_FULL_MAX_ENTRIES / ncol)
        return DRS_ERR_INVALID_ARGUMENT;
    double *num = malloc(sizeof(double) * (size_t)(ncol * m + 3 * m + 1));
    if (!num)
        return DRS_ERR_NOMEM;
    double *yp = num + ncol * m, *ym = yp + m, *y0 = ym + m;
    double *kcol = num + n_checked * m; /* right, left columns of each kink element */
    /* numeric columns, in input order */
    int64_t col = 0;
    for (int i = 0; i < f->n_inputs && !g->r->failures; i++) {
        const drs_gc_input *in = &f->in[i];
        for (int64_t j = 0; j < in->n; j++) {
            if (kind_of(in, j) != DRS_GC_CHECK || in->no_grad)
                continue;
            const double v = g->x[i][j];
            g->cur_input = i;
            g->cur_index = j;
            g->x[i][j] = v + eps;
            int rc = call_forward(g, yp);
            g->x[i][j] = v - eps;
            rc |= rc ? 0 : call_forward(g, ym);
            g->x[i][j] = v;
            g->cur_input = -1;
            if (rc)
                goto out;
            double *c = num + col * m;
            for (int64_t o = 0; o < m; o++)
                c[o] = (yp[o] - ym[o]) / (2.0 * eps);
            col++;
        }
    }
    if (n_kink > 0 && !g->r->failures) {
        if (call_forward(g, y0))
            goto out;
        int64_t kc = 0;
        for (int i = 0; i < f->n_inputs; i++) {
            const drs_gc_input *in = &f->in[i];
            for (int64_t j = 0; j < in->n && !in->no_grad; j++) {
                if (kind_of(in, j) != DRS_GC_KINK)
                    continue;
                if (!kink_columns(g, i, j, y0, kcol + (2 * kc) * m, kcol + (2 * kc + 1) * m, yp,
                                  ym))
                    goto out;
                kc++;
            }
        }
    }
    /* analytic rows: backward(e_o) */
    double *dy = yp;
    memset(dy, 0, sizeof(double) * (size_t)m);
    for (int64_t o = 0; o < m && !(g->r->failures & DRS_GC_F_CALLBACK); o++) {
        dy[o] = 1.0;
        const int rc = call_backward(g, dy, g->grad);
        dy[o] = 0.0;
        if (rc)
            break;
        col = 0;
        int64_t kc = 0;
        for (int i = 0; i < f->n_inputs; i++) {
            const drs_gc_input *in = &f->in[i];
            if (!g->grad[i])
                continue;
            for (int64_t j = 0; j < in->n; j++) {
                if (kind_of(in, j) == DRS_GC_CHECK)
                    compare(g, i, j, o, g->grad[i][j], num[(col++) * m + o]);
                else if (kind_of(in, j) == DRS_GC_KINK) {
                    compare_kink(g, i, j, o, g->grad[i][j], kcol[(2 * kc) * m + o],
                                 kcol[(2 * kc + 1) * m + o]);
                    kc++;
                }
            }
            check_zeros(g, i, g->grad, o);
        }
    }
out:
    free(num);
    return DRS_OK;
}

static drs_status fast_mode(gc_state *g)
{
    const drs_gc_fn *f = g->f;
    const double eps = g->o->eps;
    const int64_t m = f->n_out;
    int64_t nmax = 0;
    for (int i = 0; i < f->n_inputs; i++)
        nmax = f->in[i].n > nmax ? f->in[i].n : nmax;
    double *v = malloc(sizeof(double) * (size_t)(6 * m + 2 * nmax + 2));
    if (!v)
        return DRS_ERR_NOMEM;
    double *yp = v + m, *ym = yp + m, *u = ym + m, *x0 = u + nmax;
    double *y0 = x0 + nmax, *kr = y0 + m, *kl = kr + m;
    int have_y0 = 0;
    uint64_t seed = g->o->seed ^ 0x5DEECE66Dull;
    for (int p = 0; p < g->o->n_probes && !(g->r->failures & DRS_GC_F_CALLBACK); p++) {
        double nv = 0.0;
        for (int64_t o = 0; o < m; o++) {
            v[o] = urand(&seed);
            nv += v[o] * v[o];
        }
        nv = nv > 0.0 ? 1.0 / sqrt(nv) : 0.0;
        for (int64_t o = 0; o < m; o++)
            v[o] *= nv;
        if (call_backward(g, v, g->grad))
            break;
        for (int i = 0; i < f->n_inputs; i++) {
            const drs_gc_input *in = &f->in[i];
            if (!g->grad[i])
                continue;
            check_zeros(g, i, g->grad, -1);
            double nu = 0.0;
            int64_t k = 0;
            for (int64_t j = 0; j < in->n; j++) {
                u[j] = kind_of(in, j) == DRS_GC_CHECK ? urand(&seed) : 0.0;
                nu += u[j] * u[j];
                k += kind_of(in, j) == DRS_GC_CHECK;
            }
            /* kink elements: v . (one-sided columns), each on its own */
            for (int64_t j = 0; j < in->n && !in->no_grad; j++) {
                if (kind_of(in, j) != DRS_GC_KINK)
                    continue;
                if (!have_y0 && call_forward(g, y0))
                    goto out;
                have_y0 = 1;
                const int64_t nk = g->r->n_kink, n1 = g->r->n_kink_one_side;
                const int sides = kink_columns(g, i, j, y0, kr, kl, yp, ym);
                if (!sides)
                    goto out;
                if (p > 0) { /* count each element once */
                    g->r->n_kink = nk;
                    g->r->n_kink_one_side = n1;
                }
                long double nr = 0.0L, nl = 0.0L;
                for (int64_t o = 0; o < m; o++) {
                    nr += (long double)v[o] * kr[o];
                    nl += (long double)v[o] * kl[o];
                }
                compare_kink(g, i, j, -1, g->grad[i][j], (sides & 1) ? (double)nr : NAN,
                             (sides & 2) ? (double)nl : NAN);
            }
            if (k == 0)
                continue;
            nu = nu > 0.0 ? 1.0 / sqrt(nu) : 0.0;
            long double an = 0.0L;
            for (int64_t j = 0; j < in->n; j++) {
                u[j] *= nu;
                an += (long double)g->grad[i][j] * u[j];
            }
            memcpy(x0, g->x[i], sizeof(double) * (size_t)in->n);
            g->cur_input = i;
            g->cur_index = -1;
            for (int64_t j = 0; j < in->n; j++)
                g->x[i][j] = x0[j] + eps * u[j];
            int rc = call_forward(g, yp);
            for (int64_t j = 0; j < in->n; j++)
                g->x[i][j] = x0[j] - eps * u[j];
            rc |= rc ? 0 : call_forward(g, ym);
            memcpy(g->x[i], x0, sizeof(double) * (size_t)in->n);
            g->cur_input = -1;
            if (rc)
                goto out;
            long double nm = 0.0L;
            for (int64_t o = 0; o < m; o++)
                nm += (long double)v[o] * ((yp[o] - ym[o]) / (2.0 * eps));
            compare(g, i, p, -1, (double)an, (double)nm);
        }
    }
out:
    free(v);
    return DRS_OK;
}

/* Backward twice with the same output_delta into buffers pre-filled with
 * different values: the same bits, and x and dy untouched. */
static drs_status reentrancy(gc_state *g, uint64_t *seed)
{
    const drs_gc_fn *f = g->f;
    const int64_t m = f->n_out;
    int64_t ntot = 0, xtot = 0;
    for (int i = 0; i < f->n_inputs; i++) {
        xtot += f->in[i].n;
        if (g->grad[i])
            ntot += f->in[i].n;
    }
    double *dy = malloc(sizeof(double) * (size_t)(2 * m + 2 * ntot + xtot + 1));
    if (!dy)
        return DRS_ERR_NOMEM;
    double *dy0 = dy + m, *b1 = dy0 + m, *b2 = b1 + ntot, *x0 = b2 + ntot;
    for (int64_t o = 0; o < m; o++)
        dy[o] = urand(seed);
    memcpy(dy0, dy, sizeof(double) * (size_t)m);
    double *g1[DRS_GC_MAX_INPUTS] = {0}, *g2[DRS_GC_MAX_INPUTS] = {0};
    int64_t off = 0, xo = 0;
    for (int i = 0; i < f->n_inputs; i++) {
        memcpy(x0 + xo, g->x[i], sizeof(double) * (size_t)f->in[i].n);
        xo += f->in[i].n;
        if (!g->grad[i])
            continue;
        g1[i] = b1 + off;
        g2[i] = b2 + off;
        for (int64_t j = 0; j < f->in[i].n; j++) {
            g1[i][j] = 0.0;
            g2[i][j] = NAN;
        }
        off += f->in[i].n;
    }
    if (!call_backward(g, dy, g1) && !call_backward(g, dy, g2)) {
        if (memcmp(b1, b2, sizeof(double) * (size_t)ntot) != 0) {
            int64_t k = 0;
            while (k < ntot && memcmp(b1 + k, b2 + k, sizeof(double)) == 0)
                k++;
            fail(g, DRS_GC_F_REENTRANT,
                 "backward is not reentrant: two calls with the same output_delta differ "
                 "(gradient element %lld: %.17g vs %.17g)",
                 (long long)k, b1[k], b2[k]);
        }
        xo = 0;
        int mut = memcmp(dy, dy0, sizeof(double) * (size_t)m) != 0;
        for (int i = 0; i < f->n_inputs; i++) {
            mut |= memcmp(x0 + xo, g->x[i], sizeof(double) * (size_t)f->in[i].n) != 0;
            xo += f->in[i].n;
        }
        if (mut)
            fail(g, DRS_GC_F_MUTATES, "backward modified its inputs or output_delta");
    }
    free(dy);
    return DRS_OK;
}

/* B(a dy1 + dy2) against a B(dy1) + B(dy2). */
static drs_status linearity(gc_state *g, uint64_t *seed)
{
    const drs_gc_fn *f = g->f;
    const int64_t m = f->n_out;
    int64_t ntot = 0;
    for (int i = 0; i < f->n_inputs; i++)
        if (g->grad[i])
            ntot += f->in[i].n;
    double *d1 = malloc(sizeof(double) * (size_t)(3 * m + 3 * ntot + 1));
    if (!d1)
        return DRS_ERR_NOMEM;
    double *d2 = d1 + m, *d3 = d2 + m, *b1 = d3 + m, *b2 = b1 + ntot, *b3 = b2 + ntot;
    const double a = 1.5 + 0.5 * urand(seed); /* in [1, 2) */
    for (int64_t o = 0; o < m; o++) {
        d1[o] = urand(seed);
        d2[o] = urand(seed);
        d3[o] = a * d1[o] + d2[o];
    }
    double *g1[DRS_GC_MAX_INPUTS] = {0}, *g2[DRS_GC_MAX_INPUTS] = {0}, *g3[DRS_GC_MAX_INPUTS] = {0};
    int64_t off = 0;
    for (int i = 0; i < f->n_inputs; i++) {
        if (!g->grad[i])
            continue;
        g1[i] = b1 + off;
        g2[i] = b2 + off;
        g3[i] = b3 + off;
        off += f->in[i].n;
    }
    if (!call_backward(g, d1, g1) && !call_backward(g, d2, g2) && !call_backward(g, d3, g3)) {
        off = 0;
        double worst = 0.0;
        int wi = -1;
        int64_t wj = 0;
        for (int i = 0; i < f->n_inputs; i++) {
            if (!g->grad[i])
                continue;
            for (int64_t j = 0; j < f->in[i].n; j++, off++) {
                const double want = a * b1[off] + b2[off];
                const double tol = g->o->atol + g->o->rtol * (fabs(a * b1[off]) + fabs(b2[off]));
                const double e = fabs(b3[off] - want) / tol;
                if (!(e <= worst)) {
                    worst = isnan(e) ? INFINITY : e;
                    wi = i;
                    wj = j;
                }
            }
        }
        g->r->linearity_err = worst;
        if (worst > 1.0)
            fail(g, DRS_GC_F_LINEARITY,
                 "backward is not linear in output_delta: %s[%lld]: B(a dy1 + dy2) = %.12g, "
                 "a B(dy1) + B(dy2) = %.12g",
                 f->in[wi].name, (long long)wj, g3[wi][wj], a * g1[wi][wj] + g2[wi][wj]);
    }
    free(d1);
    return DRS_OK;
}

/* ---------------------------------------------------------------- API */
drs_status drs_gradcheck(const drs_gc_fn *f, const drs_gc_options *opt, drs_gc_report *rep)
{
    if (!f || !rep || !f->forward || !f->backward || f->n_inputs < 1 ||
        f->n_inputs > DRS_GC_MAX_INPUTS || f->n_out < 0)
        return DRS_ERR_INVALID_ARGUMENT;
    drs_gc_options o = opt ? *opt : drs_gc_options_default();
    if (!(o.eps > 0.0) || !isfinite(o.eps) || !(o.atol >= 0.0) || !(o.rtol >= 0.0) ||
        (o.fast_mode && o.n_probes < 1))
        return DRS_ERR_INVALID_ARGUMENT;
    memset(rep, 0, sizeof *rep);
    rep->worst.input = -1;
    rep->worst.out_index = -1;
    rep->fail_input = -1;
    rep->fail_index = -1;
    for (int i = 0; i < DRS_GC_MAX_INPUTS; i++)
        rep->input_worst[i].input = -1;
    gc_state g = {f, &o, rep, {0}, {0}, -1, -1};
    int64_t n_checked = 0, n_kink = 0, gtot = 0;
    for (int i = 0; i < f->n_inputs; i++) {
        const drs_gc_input *in = &f->in[i];
        if (in->n < 0 || (in->n > 0 && !in->value) || !in->name)
            return DRS_ERR_INVALID_ARGUMENT;
        g.x[i] = in->value;
        int want = 0;
        for (int64_t j = 0; j < in->n; j++) {
            const drs_gc_kind k = kind_of(in, j);
            if (k != DRS_GC_CHECK && k != DRS_GC_ZERO && k != DRS_GC_SKIP && k != DRS_GC_KINK)
                return DRS_ERR_INVALID_ARGUMENT;
            if (in->no_grad || k == DRS_GC_SKIP) {
                rep->n_skipped++;
                continue;
            }
            want = 1;
            n_checked += k == DRS_GC_CHECK;
            n_kink += k == DRS_GC_KINK;
        }
        if (want)
            gtot += in->n;
    }
    double *gbuf = malloc(sizeof(double) * (size_t)(gtot + 1));
    if (!gbuf)
        return DRS_ERR_NOMEM;
    int64_t off = 0;
    for (int i = 0; i < f->n_inputs; i++) {
        const drs_gc_input *in = &f->in[i];
        int want = 0;
        for (int64_t j = 0; j < in->n && !in->no_grad; j++)
            want |= kind_of(in, j) != DRS_GC_SKIP;
        if (want) {
            g.grad[i] = gbuf + off;
            off += in->n;
        }
    }
    drs_status s = o.fast_mode ? fast_mode(&g) : full_mode(&g, n_checked, n_kink);
    uint64_t seed = o.seed * 0x2545F4914F6CDD1Dull + 7;
    if (!s && o.check_reentrant && !(rep->failures & DRS_GC_F_CALLBACK))
        s = reentrancy(&g, &seed);
    if (!s && o.check_linearity && !(rep->failures & DRS_GC_F_CALLBACK))
        s = linearity(&g, &seed);
    free(gbuf);
    if (s)
        return s;
    rep->passed = rep->failures == 0;
    return DRS_OK;
}
