/* SPDX-License-Identifier: MIT */
/* fuzz_common.h — a byte reader for the libFuzzer harnesses: every read
 * succeeds (zeros once the input is exhausted), so any input is a valid
 * program for the harness and the fuzzer explores values, not framing. */
#ifndef DRS_FUZZ_COMMON_H
#define DRS_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Tensors of zero elements get a NULL data pointer, as the API allows: the
 * library must never form a pointer from it (not even base + 0). */
static inline void *fz_alloc(size_t bytes) { return bytes ? malloc(bytes) : NULL; }

typedef struct fz {
    const uint8_t *p;
    size_t n;
} fz;

static inline uint8_t fz_u8(fz *f)
{
    if (!f->n)
        return 0;
    f->n--;
    return *f->p++;
}

/* n bytes into dst, as n calls of fz_u8 would (zeros past the end), at memcpy
 * speed: filling a tensor byte by byte was a large part of an execution. */
static inline void fz_bytes(fz *f, void *dst, size_t n)
{
    const size_t take = n < f->n ? n : f->n;
    if (take) {
        memcpy(dst, f->p, take);
        f->p += take;
        f->n -= take;
    }
    if (n > take)
        memset((unsigned char *)dst + take, 0, n - take);
}

static inline uint64_t fz_u64(fz *f)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)fz_u8(f) << (8 * i);
    return v;
}

static inline double fz_f64(fz *f)
{
    const uint64_t b = fz_u64(f);
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

static inline float fz_f32(fz *f)
{
    uint32_t b = 0;
    for (int i = 0; i < 4; i++)
        b |= (uint32_t)fz_u8(f) << (8 * i);
    float v;
    memcpy(&v, &b, sizeof v);
    return v;
}

/* A dimension: mostly small, sometimes 0, sometimes any 64-bit value. */
static inline int64_t fz_dim(fz *f)
{
    const uint8_t k = fz_u8(f);
    if (k < 200)
        return k % 7;
    if (k < 250)
        return (int64_t)(k - 200);
    return (int64_t)fz_u64(f);
}

/* A scale-like double: mostly tame, sometimes raw bits (NaN, inf, 1e308, -0). */
static inline double fz_scale(fz *f)
{
    const uint8_t k = fz_u8(f);
    if (k < 220)
        return 0.25 + (double)k / 64.0;
    return fz_f64(f);
}

#endif
