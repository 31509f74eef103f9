/* SPDX-License-Identifier: MIT */
/* fuzz_npy.c — the strict .npy reader on arbitrary bytes (as a seekable
 * in-memory stream, like a file), and the writer on what it accepted: every
 * array read is written back (npy_save, and npy_stage + npy_commit /
 * npy_discard) into a private temporary directory and read again with
 * npy_load; the header and data must survive the round trip bit for bit.
 * The writer's refusals (unknown dtype, bad rank, NULL data, a directory
 * that does not exist) are exercised on the same array. */
#define _POSIX_C_SOURCE 200809L /* fmemopen, mkdtemp */
#include "npy.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];
static char path[96], missing[96];

static void remove_dir(void) { rmdir(dir); }

/* the private directory, made on the first call and removed at exit */
static int ensure_dir(void)
{
    if (dir[0])
        return 1;
    strcpy(dir, "/tmp/fuzz_npy.XXXXXX");
    if (!mkdtemp(dir)) {
        dir[0] = '\0';
        return 0;
    }
    snprintf(path, sizeof path, "%s/a.npy", dir);
    snprintf(missing, sizeof missing, "%s/no/such/dir/a.npy", dir);
    atexit(remove_dir);
    return 1;
}

static int same_array(const drs_tensor *a, const drs_tensor *b)
{
    int64_t n;
    if (a->dtype != b->dtype || a->rank != b->rank || drs_tensor_numel(a, &n) != DRS_OK)
        return 0;
    for (int i = 0; i < a->rank; i++)
        if (a->shape[i] != b->shape[i])
            return 0;
    const size_t bytes = (size_t)n * drs_dtype_size(a->dtype);
    return bytes == 0 || memcmp(a->data, b->data, bytes) == 0;
}

/* t (read from the fuzzer's bytes) written and read back */
static void round_trip(const drs_tensor *t)
{
    if (!ensure_dir())
        return;
    char err[256];
    npy_array b;
    if (npy_save(path, t, err, sizeof err) != DRS_OK)
        __builtin_trap(); /* an array the reader accepted must be writable */
    if (npy_load(path, 0, &b, err, sizeof err) != DRS_OK || !same_array(t, &b.t))
        __builtin_trap();
    npy_free(&b);
    /* staged: discarded leaves the committed file alone; committed replaces it */
    char *tmp = NULL;
    if (npy_stage(path, t, &tmp, err, sizeof err) != DRS_OK || !tmp)
        __builtin_trap();
    npy_discard(tmp);
    if (npy_stage(path, t, &tmp, err, sizeof err) != DRS_OK ||
        npy_commit(tmp, path, err, sizeof err) != DRS_OK)
        __builtin_trap();
    npy_discard(NULL);
    free(tmp);
    if (npy_load(path, NPY_ALLOW_SCALAR, &b, err, sizeof err) != DRS_OK || !same_array(t, &b.t))
        __builtin_trap();
    npy_free(&b);
    /* refusals: nothing written */
    drs_tensor bad = *t;
    bad.dtype = (drs_dtype)99;
    if (npy_save(path, &bad, err, sizeof err) == DRS_OK)
        __builtin_trap();
    bad = *t;
    bad.rank = 0;
    if (npy_save(path, &bad, err, sizeof err) == DRS_OK)
        __builtin_trap();
    bad = *t;
    bad.data = NULL;
    int64_t n;
    if (drs_tensor_numel(t, &n) == DRS_OK && n > 0 && npy_save(path, &bad, err, sizeof err) == DRS_OK)
        __builtin_trap();
    if (npy_save(missing, t, err, sizeof err) == DRS_OK ||
        npy_stage(missing, t, &tmp, err, sizeof err) == DRS_OK || tmp)
        __builtin_trap();
    unlink(path);
    if (npy_load(path, 0, &b, err, sizeof err) == DRS_OK) /* gone: cannot open */
        __builtin_trap();
}

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
            if (flags == 1)
                round_trip(&a.t);
            npy_free(&a);
        }
    }
    fclose(f);
    return 0;
}
