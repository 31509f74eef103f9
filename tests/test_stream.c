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

int main(void)
{
    unsigned char *got = malloc(N), *want = malloc(N), *src = malloc(N);
    if (!got || !want || !src)
        return 1;
    for (int i = 0; i < N; i++)
        src[i] = (unsigned char)next();
    for (int seq = 0; seq < 3000; seq++)
        one_sequence(got, want, src, seq);
    printf("test_stream: %d checks, %d failed (SIMD variant %s)\n", g_checks, g_fail,
           drs_simd_variant());
    free(got);
    free(want);
    free(src);
    return g_fail ? 1 : 0;
}
