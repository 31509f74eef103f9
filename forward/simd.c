/* SPDX-License-Identifier: MIT */
/* simd.c — which SIMD variant of the hot row kernels runs.
 *
 * On x86-64 with GCC the row kernels are compiled three times (baseline
 * x86-64, AVX2, AVX-512: see DRS_SIMD_FN in core.h).  The variant is chosen
 * once, on the first kernel call: the best one the CPU supports, or the one
 * the environment variable DRS_SIMD names (baseline, avx2, avx512), lowered
 * to the best supported one when the CPU lacks it; any other value is
 * ignored.  Contraction is off (-ffp-contract=off) and no variant
 * reassociates, so every variant gives the same bits.
 */
#include "core.h"

#include <stdlib.h>
#include <string.h>

_Atomic int drs__simd_level_cache = -1;

#if DRS_SIMD_MULTI
static int cpu_best(void)
{
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx2"))
        return DRS_SIMD_AVX512;
    if (__builtin_cpu_supports("avx2"))
        return DRS_SIMD_AVX2;
    return DRS_SIMD_BASELINE;
}
#else
static int cpu_best(void) { return DRS_SIMD_BASELINE; }
#endif

int drs__simd_init(void)
{
    int level = cpu_best();
    const char *env = getenv("DRS_SIMD");
    if (env) {
        int want = -1;
        if (!strcmp(env, "baseline"))
            want = DRS_SIMD_BASELINE;
        else if (!strcmp(env, "avx2"))
            want = DRS_SIMD_AVX2;
        else if (!strcmp(env, "avx512"))
            want = DRS_SIMD_AVX512;
        if (want >= 0 && want < level)
            level = want;
    }
    /* every thread computes the same value: a race only stores it twice */
    atomic_store_explicit(&drs__simd_level_cache, level, memory_order_relaxed);
    return level;
}

const char *drs_simd_variant(void)
{
    switch (drs__simd_level()) {
    case DRS_SIMD_AVX512: return "avx512";
    case DRS_SIMD_AVX2: return "avx2";
    default: return "baseline";
    }
}
