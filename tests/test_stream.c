/* SPDX-License-Identifier: MIT */
/* test_stream.c — the library's streaming-store writer (an internal helper,
 * linked from the static library): random sequences of puts, contiguous runs
 * and jumps, at every alignment of the destination and lengths around the
 * 64-byte line, under each SIMD variant the CPU has (DRS_SIMD), must leave
 * exactly the bytes of plain memcpy calls and nothing outside them.  Also two
 * row kernels of the backward pass against their arithmetic written in C. */
#define _DEFAULT_SOURCE /* mmap's MAP_ANONYMOUS */
#include "check.h"
#include "core.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static uint64_t rng = 0x9E3779B97F4A7C15u;
static uint32_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

enum { N = 1 << 16 };

static void one_sequence(unsigned char *got, unsigned char *want, const unsigned char *src,
                         int seq)
{
    memset(got, 0xAB, N);
    memset(want, 0xAB, N);
    drs_stream w;
    drs__stream_begin(&w);
    size_t pos = next() % 200; /* any alignment */
    const int nput = 1 + (int)(next() % 40);
    for (int i = 0; i < nput; i++) {
        size_t n;
        switch (next() % 4) {
        case 0: n = next() % 8; break;       /* tiny (0 included) */
        case 1: n = 60 + next() % 10; break; /* around a line */
        case 2: n = next() % 300; break;
        default: n = 64 * (next() % 6); break;
        }
        if (next() % 5 == 0) /* a jump: not a continuation */
            pos += 1 + next() % 100;
        if (pos + n > N)
            break;
        const size_t s = next() % (N - n);
        drs__stream_put(&w, got + pos, src + s, n);
        memcpy(want + pos, src + s, n);
        pos += n;
    }
    drs__stream_end(&w);
    size_t bad = N;
    for (size_t i = 0; i < N; i++)
        if (got[i] != want[i]) {
            bad = i;
            break;
        }
    CHECK(bad == N, "sequence %d: byte %zu differs from memcpy's", seq, bad);
}

/* The 2-D data gradient's rows streamed from the registers
 * (drs__tsweep_stream_f32): 0 + w[0] s[0][i] (+ w[1] s[1][i] ...) for 1 to 8
 * terms, the bits of the same sums in C; a destination off a 64-byte line, a
 * length not a multiple of 16 or a count outside 1..8 is refused with
 * nothing written; the baseline variant refuses everything. */
static void tsweep_rows(void)
{
    enum { L = 1040 };
    float *src = malloc(8 * L * sizeof(float));
    float *d = aligned_alloc(64, (L + 32) * sizeof(float));
    if (!src || !d) {
        CHECK(0, "tsweep: out of memory");
        free(src);
        free(d);
        return;
    }
    for (int i = 0; i < 8 * L; i++)
        src[i] = (float)((int)(next() % 2001) - 1000) / 37.0f;
    const float w[9] = {0.25f, 0.75f, -0.6f,        1.0f / 3.0f, -0.09375f,
                        1.5f,  0.1f,  -2.0f / 7.0f, 3.0f};
    const float *s[9] = {src + 3 * L, src + L,     src,         src + 2 * L, src + 7 * L,
                         src + 5 * L, src + 4 * L, src + 6 * L, src}; /* any order in memory */
    const int64_t lens[4] = {16, 48, 1024, 1040};
    const int simd = drs__simd_level() != DRS_SIMD_BASELINE;
    for (int ne = 0; ne <= 9; ne++)
        for (int li = 0; li < 4; li++) {
            const int64_t inner = lens[li];
            for (int64_t i = 0; i < L + 32; i++)
                d[i] = -7.0f;
            const int r = drs__tsweep_stream_f32(d, s, w, ne, inner);
            const int want = simd && ne >= 1 && ne <= 8;
            CHECK(r == want, "tsweep ne %d inner %lld: returned %d", ne, (long long)inner, r);
            int bad = -1;
            for (int64_t i = 0; i < L + 32 && bad < 0; i++) {
                float e = -7.0f;
                if (r && i < inner) {
                    e = 0.0f;
                    for (int k = 0; k < ne; k++)
                        e += w[k] * s[k][i];
                }
                if (memcmp(&e, &d[i], sizeof e))
                    bad = (int)i;
            }
            CHECK(bad < 0, "tsweep ne %d inner %lld: element %d differs", ne, (long long)inner,
                  bad);
        }
    /* refused: off a line, or a length not a multiple of 16 */
    d[0] = d[1] = -7.0f;
    CHECK(!drs__tsweep_stream_f32(d + 1, s, w, 2, 16) && d[1] == -7.0f,
          "tsweep: a destination off a 64-byte line was written");
    CHECK(!drs__tsweep_stream_f32(d, s, w, 2, 20) && d[0] == -7.0f,
          "tsweep: a length of 20 was written");
    free(src);
    free(d);
}

/* The scales gradient's difference-form row sums (drs__diff_sums_f32) against
 * their arithmetic written out in C: lane k of vector v (16 inputs from j = 16 v)
 * adds T[j] (x1[j] - x0[j]) to A and, for j in [J0, J1), (cE[j] g[2j + a] + cO[j]
 * g[2j + a + 1]) (w0 (x0[j] - x0[j - 1]) + w1 (x1[j] - x1[j - 1])) to B, float
 * accumulators by the vector's parity, flushed into double lanes every 8
 * vectors; the lanes then combined in a fixed order.  Both of the AVX-512
 * forms (dy read from 2j where a = -1, the rows whole vectors and g long
 * enough; the general one, with masked loads, otherwise) and the AVX2 one must
 * give these bits, with g exactly glen floats long, an inaccessible page right
 * after it (a read past it faults); the baseline variant refuses every row. */
static void ref_diff_sums(const float *T, const float *x0, const float *x1, float w0, float w1,
                          int64_t Lw, const float *g, int64_t a, const float *cE,
                          const float *cO, int64_t J0, int64_t J1, double out[2])
{
    double la[16] = {0}, lb[16] = {0};
    for (int64_t v0 = 0; v0 < Lw; v0 += 128) {
        float ac[2][16] = {{0}}, bc[2][16] = {{0}};
        for (int64_t v = v0; v < v0 + 128 && v < Lw; v += 16)
            for (int k = 0; k < 16; k++) {
                const int64_t j = v + k;
                float ta = 0.0f, tb = 0.0f;
                if (j < Lw)
                    ta = T[j] * (x1[j] - x0[j]);
                if (j >= J0 && j < J1) {
                    const float h = cE[j] * g[2 * j + a] + cO[j] * g[2 * j + a + 1];
                    float p = w0 * (x0[j] - x0[j - 1]);
                    p += w1 * (x1[j] - x1[j - 1]);
                    tb = h * p;
                }
                ac[(v / 16) & 1][k] += ta;
                bc[(v / 16) & 1][k] += tb;
            }
        for (int k = 0; k < 16; k++) {
            la[k] = (v0 == 0 ? 0.0 : la[k]) + (double)ac[0][k];
            lb[k] = (v0 == 0 ? 0.0 : lb[k]) + (double)bc[0][k];
            la[k] += (double)ac[1][k];
            lb[k] += (double)bc[1][k];
        }
    }
    for (int u = 0; u < 2; u++) {
        double *l = u ? lb : la;
        for (int k = 0; k < 8; k++)
            l[k] += l[k + 8];
        for (int k = 0; k < 4; k++)
            l[k] += l[k + 4];
        l[0] += l[2];
        l[1] += l[3];
        out[u] = l[0] + l[1];
    }
}

static float rnd_val(void)
{
    return (float)((int)(next() % 20001) - 10000) / 4099.0f;
}

/* n floats ending where an inaccessible page starts: a read past them faults */
static float *guarded_floats(int64_t n, void **map, size_t *len)
{
    const size_t pg = (size_t)sysconf(_SC_PAGESIZE), bytes = (size_t)n * sizeof(float);
    *len = (bytes + pg - 1) / pg * pg + pg;
    unsigned char *m = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                            -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    if (mprotect(m + *len - pg, pg, PROT_NONE)) {
        munmap(m, *len);
        return NULL;
    }
    *map = m;
    return (float *)(m + *len - pg - bytes);
}

/* a row's operands for the two kernels below: T (or its expected value), x0, x1, cE and
 * cO of Lw floats with random values, g of glen floats ending at an inaccessible page
 * (filled by the caller); 0 when out of memory (nothing left allocated) */
typedef struct diff_row {
    float *T, *Tw, *x0, *x1, *cE, *cO, *g;
    void *gmap;
    size_t gmlen;
} diff_row;

static void diff_row_free(diff_row *r)
{
    free(r->T), free(r->Tw), free(r->x0), free(r->x1), free(r->cE), free(r->cO);
    if (r->g)
        munmap(r->gmap, r->gmlen);
}

static int diff_row_new(diff_row *r, int64_t Lw, int64_t glen)
{
    memset(r, 0, sizeof *r);
    float **f[6] = {&r->T, &r->Tw, &r->x0, &r->x1, &r->cE, &r->cO};
    int ok = 1;
    for (int k = 0; k < 6; k++)
        ok &= (*f[k] = malloc((size_t)Lw * sizeof(float))) != NULL;
    r->g = guarded_floats(glen, &r->gmap, &r->gmlen);
    if (!ok || !r->g) {
        diff_row_free(r);
        return 0;
    }
    /* (the library sets cE, cO to 0 outside the pairs; the kernels must not depend on
     * it) */
    for (int64_t j = 0; j < Lw; j++) {
        r->T[j] = rnd_val();
        r->x0[j] = rnd_val();
        r->x1[j] = rnd_val();
        r->cE[j] = rnd_val();
        r->cO[j] = rnd_val();
    }
    return 1;
}

static void diff_sums_rows(void)
{
    const int64_t lens[6] = {16, 32, 128, 144, 400, 1024};
    const int simd = drs__simd_level() != DRS_SIMD_BASELINE;
    int fast = 0;
    for (int li = 0; li < 6; li++)
        for (int ai = 0; ai < 2; ai++)
            for (int ji = 0; ji < 4; ji++)
                for (int gi = 0; gi < 2; gi++) {
                    const int64_t Lw = lens[li], a = ai ? 0 : -1;
                    const int64_t J0s[4] = {1, 2, 16, 5}, J0 = J0s[ji] < Lw ? J0s[ji] : 1;
                    const int64_t J1s[4] = {Lw, Lw - 1, Lw - 15, Lw - 17};
                    int64_t J1 = J1s[ji] > J0 ? J1s[ji] : Lw;
                    if (a == 0 && J1 == Lw)
                        J1 = Lw - 1; /* (a = 0: the last pair's second output is 2 Lw - 1) */
                    /* g: 2 Lw floats (the fast form may read them all) or only up to
                     * the pairs' last output (it may not) */
                    const int64_t glen = gi ? 2 * (J1 - 1) + a + 2 : 2 * Lw;
                    diff_row row;
                    if (!diff_row_new(&row, Lw, glen)) {
                        CHECK(0, "diff sums: out of memory");
                        return;
                    }
                    const float *T = row.T, *x0 = row.x0, *x1 = row.x1, *cE = row.cE;
                    const float *cO = row.cO;
                    float *g = row.g;
                    /* outside the pairs' outputs [2 J0 + a, 2 J1 + a): infinities,
                     * which reach a sum unless every such lane is masked off */
                    for (int64_t i = 0; i < glen; i++)
                        g[i] = i >= 2 * J0 + a && i < 2 * J1 + a ? rnd_val() : 1.0f / 0.0f;
                    const float w0 = 0.75f, w1 = 0.25f;
                    double got[2] = {-7.0, -7.0}, want[2];
                    const int r = drs__diff_sums_f32(T, x0, x1, x0, x1, w0, w1, 2, Lw, g, glen,
                                                     a, cE, cO, J0, J1, got);
                    ref_diff_sums(T, x0, x1, w0, w1, Lw, g, a, cE, cO, J0, J1, want);
                    CHECK(r == simd, "diff sums Lw %lld a %lld: returned %d", (long long)Lw,
                          (long long)a, r);
                    if (r)
                        CHECK(!memcmp(got, want, sizeof want),
                              "diff sums Lw %lld a %lld J0 %lld J1 %lld glen %lld: %.17g %.17g, "
                              "expected %.17g %.17g",
                              (long long)Lw, (long long)a, (long long)J0, (long long)J1,
                              (long long)glen, got[0], got[1], want[0], want[1]);
                    else
                        CHECK(got[0] == -7.0 && got[1] == -7.0, "diff sums: written on refusal");
                    fast += a == -1 && glen >= 2 * Lw && J1 >= Lw - 15;
                    diff_row_free(&row);
                }
    CHECK(fast >= 12, "diff sums: only %d rows of the fast form's shape", fast);
}

/* drs__trow_diff_f32: the transposed row T of a half_pixel 2x row (T[0] = t0, T[Lw -
 * 1] = tl, the interior ((0 + c0 g[2j - 1]) + c1 g[2j]) + c2 g[2j + 1]) + c3 g[2j + 2])
 * stored, and the row sums of that T (ref_diff_sums), bit for bit, with g ending at an
 * inaccessible page; only where drs__trow_diff_ok says it runs (AVX-512) */
static void trow_diff_rows(void)
{
    const int64_t lens[5] = {32, 48, 128, 144, 1024};
    int ran = 0;
    for (int li = 0; li < 5; li++)
        for (int ji = 0; ji < 3; ji++) {
            const int64_t Lw = lens[li], J0 = ji == 2 ? 16 : 1 + ji;
            const int64_t J1 = ji == 1 ? Lw - 15 : Lw, glen = 2 * Lw;
            if (!drs__trow_diff_ok(Lw, glen, -1, J0, J1)) {
                CHECK(drs__simd_level() != DRS_SIMD_AVX512,
                      "trow diff Lw %lld: refused under AVX-512", (long long)Lw);
                continue;
            }
            CHECK(!drs__trow_diff_ok(Lw, glen - 1, -1, J0, J1) &&
                      !drs__trow_diff_ok(Lw, glen, 0, J0, J1),
                  "trow diff Lw %lld: taken for a short row or a = 0", (long long)Lw);
            diff_row row;
            if (!diff_row_new(&row, Lw, glen)) {
                CHECK(0, "trow diff: out of memory");
                return;
            }
            float *T = row.T, *Tw = row.Tw, *g = row.g;
            const float *x0 = row.x0, *x1 = row.x1, *cE = row.cE, *cO = row.cO;
            for (int64_t j = 0; j < Lw; j++)
                T[j] = -7.0f;
            for (int64_t i = 0; i < glen; i++)
                g[i] = rnd_val();
            const float c[4] = {0.25f, 0.75f, 0.75f, 0.25f}, t0 = rnd_val(), tl = rnd_val();
            Tw[0] = t0;
            Tw[Lw - 1] = tl;
            for (int64_t j = 1; j < Lw - 1; j++) {
                float acc = 0.0f;
                for (int k = 0; k < 4; k++)
                    acc += c[k] * g[2 * j - 1 + k];
                Tw[j] = acc;
            }
            double got[2] = {-7.0, -7.0}, want[2];
            drs__trow_diff_f32(T, g, Lw, c, t0, tl, x0, x1, 0.75f, 0.25f, cE, cO, J0, J1, got);
            ref_diff_sums(Tw, x0, x1, 0.75f, 0.25f, Lw, g, -1, cE, cO, J0, J1, want);
            CHECK(!memcmp(T, Tw, (size_t)Lw * sizeof(float)), "trow diff Lw %lld: T differs",
                  (long long)Lw);
            CHECK(!memcmp(got, want, sizeof want),
                  "trow diff Lw %lld J0 %lld J1 %lld: %.17g %.17g, expected %.17g %.17g",
                  (long long)Lw, (long long)J0, (long long)J1, got[0], got[1], want[0], want[1]);
            ran++;
            diff_row_free(&row);
        }
    CHECK(ran == 15 || drs__simd_level() != DRS_SIMD_AVX512, "trow diff: %d rows ran", ran);
}

int main(void)
{
    unsigned char *got = malloc(N), *want = malloc(N), *src = malloc(N);
    if (!got || !want || !src)
        return 1;
    for (int i = 0; i < N; i++)
        src[i] = (unsigned char)next();
    for (int seq = 0; seq < 3000; seq++)
        one_sequence(got, want, src, seq);
    tsweep_rows();
    diff_sums_rows();
    trow_diff_rows();
    printf("test_stream: %d checks, %d failed (SIMD variant %s)\n", g_checks, g_fail,
           drs_simd_variant());
    free(got);
    free(want);
    free(src);
    return g_fail ? 1 : 0;
}
