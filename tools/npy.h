/* SPDX-License-Identifier: MIT */
/* npy.h — strict NumPy .npy reader/writer for the dresample CLI and tests.
 *
 * Reads format versions 1.0, 2.0 and 3.0; writes 1.0.  Little-endian, C order
 * only, dtypes <f4 <f8 |u1 |i1 <i4 <i8 (the library's drs_dtype set).  Every
 * malformed file is rejected with a one-line message naming the problem; no
 * guessing, no silent truncation.  Data bytes are copied verbatim, so the
 * host must be little-endian (checked at run time).
 */
#ifndef DRS_NPY_H
#define DRS_NPY_H

#include "dresample.h"

#include <stddef.h>
#include <stdio.h>

/* A loaded array: t views `owned` (malloc'd, freed by npy_free). */
typedef struct npy_array {
    drs_tensor t;
    void *owned;
} npy_array;

/* npy_load flags. */
#define NPY_ALLOW_SCALAR 1 /* accept shape () and return it as rank 1, shape {1} */

/* Loads path into *out (zeroed first).  On error returns a non-OK status,
 * writes a one-line message into err (no trailing newline), and *out owns
 * nothing.  DRS_ERR_IO: unreadable or malformed file; DRS_ERR_OVERFLOW: the
 * shape's element count or byte size overflows 64 bits (the product
 * of the non-zero extents counts, so an empty shape can overflow too); DRS_ERR_NOMEM. */
drs_status npy_load(const char *path, int flags, npy_array *out, char *err, size_t errlen);

/* The same from an open stream (read to its end; a seekable stream is checked
 * against the header's size before any data allocation).  Used by the fuzzer. */
drs_status npy_load_stream(FILE *f, int flags, npy_array *out, char *err, size_t errlen);

void npy_free(npy_array *a);

/* Writes t as a version-1.0 .npy file.  The bytes go to a temporary file in
 * the same directory which is renamed over path only once complete, so a
 * failure never leaves a partial (or any new) file at path. */
drs_status npy_save(const char *path, const drs_tensor *t, char *err, size_t errlen);

/* npy_save in two steps, for several files that must appear together or not
 * at all.  npy_stage writes t completely to a new temporary file in path's
 * directory (mkstemp there, so the later rename cannot cross file systems)
 * and returns its malloc'd name in *tmp (NULL on error, when nothing is left
 * behind).  npy_commit renames *tmp over path; npy_discard removes the
 * temporary and frees the name (NULL is a no-op).  A caller stages every
 * file, commits only when all staged, and discards the rest on any error. */
drs_status npy_stage(const char *path, const drs_tensor *t, char **tmp, char *err,
                     size_t errlen);
drs_status npy_commit(const char *tmp, const char *path, char *err, size_t errlen);
void npy_discard(char *tmp);

#endif
