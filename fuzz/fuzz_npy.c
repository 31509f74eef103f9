/* SPDX-License-Identifier: MIT */
/* fuzz_npy.c — the strict .npy reader on arbitrary bytes (as a seekable
 * in-memory stream, like a file). */
#define _POSIX_C_SOURCE 200809L /* fmemopen */
#include "npy.h"

#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    FILE *f = fmemopen((void *)data, size, "rb");
    if (!f)
        return 0;
    npy_array a;
    char err[256];
    for (int flags = 0; flags < 2; flags++) {
        rewind(f);
        if (npy_load_stream(f, flags, &a, err, sizeof err) == DRS_OK) {
            int64_t n;
            if (drs_tensor_numel(&a.t, &n) != DRS_OK)
                __builtin_trap(); /* the reader returned a tensor the library rejects */
            npy_free(&a);
        }
    }
    fclose(f);
    return 0;
}
