/* SPDX-License-Identifier: MIT */
/* test_stream.c — the library's streaming-store writer (an internal helper,
 * linked from the static library): random sequences of puts, contiguous runs
 * and jumps, at every alignment of the destination and lengths around the
 * 64-byte line, under each SIMD variant the CPU has (DRS_SIMD), must leave
 * exactly the bytes of plain memcpy calls and nothing outside them. */
#include "check.h"
#include "core.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
    printf("test_stream: %d checks, %d failed (SIMD variant %s)\n", g_checks, g_fail,
           drs_simd_variant());
    free(got);
    free(want);
    free(src);
    return g_fail ? 1 : 0;
}
