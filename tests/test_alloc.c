/* SPDX-License-Identifier: MIT */
/* test_alloc.c — the library's allocation helpers (internal, linked from the
 * static library): every block from drs__malloc, drs__calloc and
 * drs__scratch_get starts on a 64-byte cache line, whatever the heap's state
 * (the test interleaves small mallocs, so that plain malloc's 16-byte
 * alignment would land off a line), holds its n bytes (written end to end:
 * AddressSanitizer sees an overrun), is zero where asked, and frees cleanly
 * whether the scratch cache keeps it or not.  A block off a line made
 * GridSample's backward 20 % slower (its 64-byte plane entries straddled two
 * lines), in some processes and not others. */
#include "check.h"
#include "core.h"

#include <dresample.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int on_line(const void *p) { return ((uintptr_t)p & 63u) == 0; }

static int all_zero(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

int main(void)
{
    /* sizes around the line and malloc's thresholds; scratch blocks of 4 MiB
     * and more are the ones the cache keeps */
    const size_t sizes[] = {0,    1,     15,     16,         17,         63,
                            64,   65,    1000,   4096,       131072 + 24,
                            1 << 20, (4u << 20) + 40, (6u << 20) + 8};
    const int ns = (int)(sizeof sizes / sizeof sizes[0]);
    void *pad[64];
    for (int round = 0; round < 16; round++) {
        for (int k = 0; k < round % 4; k++) /* perturb the heap */
            pad[k] = malloc((size_t)(16 * (k + 1) + round));
        for (int i = 0; i < ns; i++) {
            const size_t n = sizes[i];
            unsigned char *a = drs__malloc(n);
            unsigned char *b = drs__calloc(n, 1);
            unsigned char *c = drs__calloc(n / 8 + 1, 8);
            unsigned char *s = drs__scratch_get(n, 0);
            unsigned char *z = drs__scratch_get(n, 1);
            CHECK(a && b && c && s && z, "round %d size %zu: allocation failed", round, n);
            if (!(a && b && c && s && z)) {
                free(a);
                free(b);
                free(c);
                drs__scratch_put(s);
                drs__scratch_put(z);
                continue;
            }
            CHECK(on_line(a) && on_line(b) && on_line(c) && on_line(s) && on_line(z),
                  "round %d size %zu: off a 64-byte line: malloc %p calloc %p %p scratch %p %p",
                  round, n, (void *)a, (void *)b, (void *)c, (void *)s, (void *)z);
            CHECK(all_zero(b, n) && all_zero(c, (n / 8 + 1) * 8) && all_zero(z, n),
                  "round %d size %zu: a cleared block is not zero", round, n);
            memset(a, 0x5A, n);
            memset(s, 0xA5, n);
            memset(z, 0xA5, n / 2); /* given back with its first half dirty */
            free(a);
            free(b);
            free(c);
            drs__scratch_put(s);
            drs__scratch_put_zero(z, 0);
        }
        for (int k = 0; k < round % 4; k++)
            free(pad[k]);
    }
    /* a kept block comes back on its line, and cleared when asked */
    const size_t big = (size_t)5 << 20;
    unsigned char *k1 = drs__scratch_get(big, 0);
    CHECK(k1 && on_line(k1), "kept block %p", (void *)k1);
    if (k1)
        memset(k1, 0x33, big);
    drs__scratch_put(k1);
    CHECK(drs_scratch_held() >= big, "the cache kept %zu bytes, want >= %zu", drs_scratch_held(),
          big);
    unsigned char *k2 = drs__scratch_get(big, 1);
    CHECK(k2 && on_line(k2) && all_zero(k2, big), "reused block %p (want on a line, zero)",
          (void *)k2);
    drs__scratch_put(k2);
    drs_scratch_release();
    CHECK(drs_scratch_held() == 0, "%zu bytes kept after a release", drs_scratch_held());
    printf("test_alloc: %d checks, %d failed\n", g_checks, g_fail);
    return g_fail ? 1 : 0;
}
