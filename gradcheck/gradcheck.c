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

static int call_forward(gc_state *g, double *y)
{
    g->r->n_forward++;
    const int rc = g->f->forward(g->f->ctx, g->x, y);
    if (rc)
        fail(g, DRS_GC_F_CALLBACK, "forward returned %d", rc);
    return rc;
}

static int call_backward(gc_state *g, const double *dy, double *const *grad)
{
    g->r->n_backward++;
    const int rc = g->f->backward(g->f->ctx, g->x, dy, grad);
    if (rc)
        fail(g, DRS_GC_F_CALLBACK, "backward returned %d", rc);
    return rc;
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
static drs_status full_mode(gc_state *g, int64_t n_checked)
{
    const drs_gc_fn *f = g->f;
    const double eps = g->o->eps;
    const int64_t m = f->n_out;
    if (n_checked > 0 && m > GC_FULL_MAX_ENTRIES / n_checked)
        return DRS_ERR_INVALID_ARGUMENT;
    double *num = malloc(sizeof(double) * (size_t)(n_checked * m + 2 * m + 1));
    if (!num)
        return DRS_ERR_NOMEM;
    double *yp = num + n_checked * m, *ym = yp + m;
    /* numeric columns, in input order */
    int64_t col = 0;
    for (int i = 0; i < f->n_inputs && !g->r->failures; i++) {
        const drs_gc_input *in = &f->in[i];
        for (int64_t j = 0; j < in->n; j++) {
            if (kind_of(in, j) != DRS_GC_CHECK || in->no_grad)
                continue;
            const double v = g->x[i][j];
            g->x[i][j] = v + eps;
            int rc = call_forward(g, yp);
            g->x[i][j] = v - eps;
            rc |= rc ? 0 : call_forward(g, ym);
            g->x[i][j] = v;
            if (rc)
                goto out;
            double *c = num + col * m;
            for (int64_t o = 0; o < m; o++)
                c[o] = (yp[o] - ym[o]) / (2.0 * eps);
            col++;
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
        for (int i = 0; i < f->n_inputs; i++) {
            const drs_gc_input *in = &f->in[i];
            if (!g->grad[i])
                continue;
            for (int64_t j = 0; j < in->n; j++)
                if (kind_of(in, j) == DRS_GC_CHECK)
                    compare(g, i, j, o, g->grad[i][j], num[(col++) * m + o]);
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
    double *v = malloc(sizeof(double) * (size_t)(3 * m + 2 * nmax + 2));
    if (!v)
        return DRS_ERR_NOMEM;
    double *yp = v + m, *ym = yp + m, *u = ym + m, *x0 = u + nmax;
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
            if (k == 0)
                continue;
            nu = nu > 0.0 ? 1.0 / sqrt(nu) : 0.0;
            long double an = 0.0L;
            for (int64_t j = 0; j < in->n; j++) {
                u[j] *= nu;
                an += (long double)g->grad[i][j] * u[j];
            }
            memcpy(x0, g->x[i], sizeof(double) * (size_t)in->n);
            for (int64_t j = 0; j < in->n; j++)
                g->x[i][j] = x0[j] + eps * u[j];
            int rc = call_forward(g, yp);
            for (int64_t j = 0; j < in->n; j++)
                g->x[i][j] = x0[j] - eps * u[j];
            rc |= rc ? 0 : call_forward(g, ym);
            memcpy(g->x[i], x0, sizeof(double) * (size_t)in->n);
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
    gc_state g = {f, &o, rep, {0}, {0}};
    int64_t n_checked = 0, gtot = 0;
    for (int i = 0; i < f->n_inputs; i++) {
        const drs_gc_input *in = &f->in[i];
        if (in->n < 0 || (in->n > 0 && !in->value) || !in->name)
            return DRS_ERR_INVALID_ARGUMENT;
        g.x[i] = in->value;
        int want = 0;
        for (int64_t j = 0; j < in->n; j++) {
            const drs_gc_kind k = kind_of(in, j);
            if (k != DRS_GC_CHECK && k != DRS_GC_ZERO && k != DRS_GC_SKIP)
                return DRS_ERR_INVALID_ARGUMENT;
            if (in->no_grad || k == DRS_GC_SKIP) {
                rep->n_skipped++;
                continue;
            }
            want = 1;
            n_checked += k == DRS_GC_CHECK;
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
    drs_status s = o.fast_mode ? fast_mode(&g) : full_mode(&g, n_checked);
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
