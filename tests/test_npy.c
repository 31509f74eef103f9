/* SPDX-License-Identifier: MIT */
/* test_npy.c — the strict .npy reader/writer (tools/npy.c).
 *
 * Round-trips every dtype (and ranks 1, 8 and empty shapes), then feeds the
 * reader hand-built files for every rejection class and checks the message.
 * Files are built byte by byte here, so the test needs no numpy.
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, rmdir */

#include "npy.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int failures;
static char dir[256];

#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            failures++;                                                                    \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                           \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fputc('\n', stderr);                                                           \
        }                                                                                  \
    } while (0)

static const char *tmp_path(const char *name)
{
    static char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return p;
}

static void write_bytes(const char *path, const void *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(b, 1, n, f) != n) {
        perror(path);
        exit(2);
    }
    fclose(f);
}

/* Writes a .npy of the given version with header text hdr (padded with spaces
 * and '\n' to a 64-byte preamble like numpy does) and ndata data bytes. */
static void write_npy(const char *path, int major, const char *hdr, const void *data,
                      size_t ndata)
{
    unsigned char buf[4096];
    size_t pre = major == 1 ? 10 : 12;
    size_t hl = strlen(hdr);
    size_t total = pre + hl + 1;
    size_t padded = (total + 63) / 64 * 64;
    size_t hlen = padded - pre;
    if (padded + ndata > sizeof buf)
        exit(2);
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (unsigned char)major;
    buf[7] = 0;
    buf[8] = (unsigned char)(hlen & 0xff);
    buf[9] = (unsigned char)(hlen >> 8);
    if (major > 1)
        buf[10] = buf[11] = 0;
    memcpy(buf + pre, hdr, hl);
    memset(buf + pre + hl, ' ', hlen - hl - 1);
    buf[padded - 1] = '\n';
    if (ndata)
        memcpy(buf + padded, data, ndata);
    write_bytes(path, buf, padded + ndata);
}

/* Expects npy_load to fail with a message containing want. */
static void expect_reject(const char *what, const char *path, int flags, const char *want)
{
    npy_array a;
    char err[256];
    drs_status s = npy_load(path, flags, &a, err, sizeof err);
    CHECK(s != DRS_OK, "%s: accepted", what);
    CHECK(a.owned == NULL && a.t.data == NULL, "%s: owns memory after failure", what);
    CHECK(strstr(err, want) != NULL, "%s: message '%s' lacks '%s'", what, err, want);
    CHECK(strchr(err, '\n') == NULL, "%s: message has a newline", what);
}

static void reject_header(const char *what, const char *hdr, size_t ndata, const char *want)
{
    static const unsigned char zeros[64];
    const char *p = tmp_path("bad.npy");
    write_npy(p, 1, hdr, zeros, ndata);
    expect_reject(what, p, 0, want);
}

static void test_roundtrip(void)
{
    static const drs_dtype types[] = {DRS_F32, DRS_F64, DRS_U8, DRS_I8, DRS_I32, DRS_I64};
    static const size_t sizes[] = {4, 8, 1, 1, 4, 8};
    unsigned char src[6 * 8];
    for (size_t i = 0; i < sizeof src; i++)
        src[i] = (unsigned char)(i * 37 + 11);
    for (int k = 0; k < 6; k++) {
        drs_tensor t = {types[k], 2, {2, 3}, src};
        const char *p = tmp_path("rt.npy");
        char err[256];
        CHECK(npy_save(p, &t, err, sizeof err) == DRS_OK, "save dtype %d: %s", k, err);
        npy_array a;
        CHECK(npy_load(p, 0, &a, err, sizeof err) == DRS_OK, "load dtype %d: %s", k, err);
        CHECK(a.t.dtype == types[k] && a.t.rank == 2 && a.t.shape[0] == 2 &&
                  a.t.shape[1] == 3,
              "dtype %d: header mismatch", k);
        CHECK(a.t.data && memcmp(a.t.data, src, 6 * sizes[k]) == 0, "dtype %d: data differs", k);
        npy_free(&a);

        /* numpy's layout: preamble a multiple of 64, header ends with '\n'. */
        FILE *f = fopen(p, "rb");
        unsigned char pre[10] = {0};
        CHECK(f && fread(pre, 1, 10, f) == 10, "reread");
        size_t hlen = pre[8] | (size_t)pre[9] << 8;
        CHECK(pre[6] == 1 && pre[7] == 0 && (10 + hlen) % 64 == 0, "dtype %d: not v1.0/64", k);
        char hdr[256] = {0};
        CHECK(f && hlen > 0 && hlen < sizeof hdr && fread(hdr, 1, hlen, f) == hlen &&
                  hdr[hlen - 1] == '\n',
              "dtype %d: header end", k);
        if (f)
            fclose(f);
    }

    /* Rank 1 (the 1-tuple needs its comma), rank 8, and an empty array. */
    int64_t v8[1] = {42};
    struct {
        drs_tensor t;
        const char *hdr;
    } cases[] = {
        {{DRS_I64, 1, {1}, v8}, "'shape': (1,)"},
        {{DRS_U8, 8, {1, 1, 1, 1, 1, 1, 1, 1}, src}, "'shape': (1, 1, 1, 1, 1, 1, 1, 1)"},
        {{DRS_F32, 2, {0, 5}, NULL}, "'shape': (0, 5)"},
    };
    for (int c = 0; c < 3; c++) {
        const char *p = tmp_path("rt2.npy");
        char err[256];
        CHECK(npy_save(p, &cases[c].t, err, sizeof err) == DRS_OK, "case %d: %s", c, err);
        FILE *f = fopen(p, "rb");
        char buf[256] = {0};
        CHECK(f && fread(buf, 1, sizeof buf - 1, f) > 10, "reread %d", c);
        if (f)
            fclose(f);
        CHECK(strstr(buf + 10, cases[c].hdr) != NULL, "case %d: header '%s'", c, buf + 10);
        npy_array a;
        CHECK(npy_load(p, 0, &a, err, sizeof err) == DRS_OK, "load case %d: %s", c, err);
        CHECK(a.t.rank == cases[c].t.rank &&
                  memcmp(a.t.shape, cases[c].t.shape, sizeof(int64_t) * (size_t)a.t.rank) == 0,
              "case %d: shape", c);
        npy_free(&a);
    }
}

static void test_versions_and_scalars(void)
{
    float one = 1.5f;
    for (int major = 1; major <= 3; major++) {
        const char *p = tmp_path("v.npy");
        write_npy(p, major, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", &one,
                  4);
        npy_array a;
        char err[256];
        CHECK(npy_load(p, 0, &a, err, sizeof err) == DRS_OK, "version %d.0: %s", major, err);
        CHECK(a.t.data && *(float *)a.t.data == 1.5f, "version %d.0 data", major);
        npy_free(&a);
    }
    /* Key order, quotes and spacing are free, as in Python. */
    const char *p = tmp_path("order.npy");
    write_npy(p, 1, "{\"shape\":(1,),\"fortran_order\":False,\"descr\":\"<f4\"}", &one, 4);
    npy_array a;
    char err[256];
    CHECK(npy_load(p, 0, &a, err, sizeof err) == DRS_OK, "key order: %s", err);
    npy_free(&a);

    /* shape (): scalar only where allowed, then rank 1 with one element. */
    p = tmp_path("scalar.npy");
    write_npy(p, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", &one, 4);
    expect_reject("scalar without flag", p, 0, "rank-0");
    CHECK(npy_load(p, NPY_ALLOW_SCALAR, &a, err, sizeof err) == DRS_OK, "scalar: %s", err);
    CHECK(a.t.rank == 1 && a.t.shape[0] == 1 && *(float *)a.t.data == 1.5f, "scalar shape");
    npy_free(&a);
}

static void test_rejections(void)
{
    const char *p = tmp_path("raw.npy");
    write_bytes(p, "", 0);
    expect_reject("empty file", p, 0, "bad magic");
    write_bytes(p, "\x93NUMPZ\x01\x00\x10\x00", 10);
    expect_reject("bad magic", p, 0, "bad magic");
    write_bytes(p, "PK\x03\x04\x14\x00\x00\x00\x00\x00", 10);
    expect_reject("zip (npz) file", p, 0, "bad magic");
    write_bytes(p, "\x93NUMPY\x04\x00\x10\x00", 10);
    expect_reject("version 4.0", p, 0, "version 4.0");
    write_bytes(p, "\x93NUMPY\x01\x00\x76", 9);
    expect_reject("cut in header length", p, 0, "truncated header");
    write_bytes(p, "\x93NUMPY\x01\x00\x76\x00{'descr': '<f4',", 25);
    expect_reject("truncated header", p, 0, "truncated header");
    expect_reject("missing file", tmp_path("does-not-exist.npy"), 0, "cannot open");

    reject_header("not a dict", "[('descr', '<f4')]", 0, "not a dict");
    reject_header("dict junk", "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} x", 4,
                  "junk");
    reject_header("missing shape", "{'descr': '<f4', 'fortran_order': False, }", 4,
                  "lacks key 'shape'");
    reject_header("missing descr", "{'fortran_order': False, 'shape': (1,), }", 4,
                  "lacks key 'descr'");
    reject_header("missing fortran_order", "{'descr': '<f4', 'shape': (1,), }", 4,
                  "lacks key 'fortran_order'");
    reject_header("duplicate key",
                  "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}", 4,
                  "duplicate key 'descr'");
    reject_header("unknown key",
                  "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}", 4,
                  "unknown key 'x'");
    reject_header("unknown dtype", "{'descr': '<c8', 'fortran_order': False, 'shape': (1,)}",
                  8, "unsupported dtype '<c8'");
    reject_header("bool dtype", "{'descr': '|b1', 'fortran_order': False, 'shape': (1,)}", 1,
                  "unsupported dtype '|b1'");
    reject_header("float16", "{'descr': '<f2', 'fortran_order': False, 'shape': (1,)}", 2,
                  "unsupported dtype");
    reject_header("structured",
                  "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,)}", 4,
                  "structured");
    reject_header("big-endian", "{'descr': '>f4', 'fortran_order': False, 'shape': (1,)}", 4,
                  "big-endian");
    reject_header("big-endian i8", "{'descr': '>i8', 'fortran_order': False, 'shape': (1,)}",
                  8, "big-endian");
    reject_header("fortran order", "{'descr': '<f4', 'fortran_order': True, 'shape': (1,)}", 4,
                  "fortran_order True");
    reject_header("fortran junk", "{'descr': '<f4', 'fortran_order': 0, 'shape': (1,)}", 4,
                  "not True/False");
    reject_header("negative dim", "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}",
                  0, "negative");
    reject_header("float dim", "{'descr': '<f4', 'fortran_order': False, 'shape': (2.0,)}", 8,
                  "not an integer");
    reject_header("string dim", "{'descr': '<f4', 'fortran_order': False, 'shape': ('a',)}",
                  4, "not an integer");
    reject_header("shape not a tuple", "{'descr': '<f4', 'fortran_order': False, 'shape': 1}",
                  4, "not a tuple");
    reject_header("shape (1) is an int",
                  "{'descr': '<f4', 'fortran_order': False, 'shape': (1)}", 4, "not a tuple");
    reject_header("shape as list", "{'descr': '<f4', 'fortran_order': False, 'shape': [1]}", 4,
                  "not a tuple");
    reject_header("rank 9",
                  "{'descr': '|u1', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1)}", 1,
                  "rank exceeds 8");
    reject_header("dim beyond int64",
                  "{'descr': '|u1', 'fortran_order': False, 'shape': (9223372036854775808,)}",
                  0, "overflows");
    reject_header("element count overflow",
                  "{'descr': '|u1', 'fortran_order': False, 'shape': (4294967296, 4294967296)}",
                  0, "non-zero extents overflows");
    reject_header("byte size overflow",
                  "{'descr': '<f8', 'fortran_order': False, 'shape': (2305843009213693952,)}",
                  0, "item size");
    /* the non-zero extents must fit even when another extent is 0 (numpy:
     * "array is too big") */
    reject_header("empty but huge extents",
                  "{'descr': '<f4', 'fortran_order': False, "
                  "'shape': (0, 1, 536870912, 1250999896764)}",
                  0, "non-zero extents overflows");
    reject_header("empty but huge bytes",
                  "{'descr': '<f8', 'fortran_order': False, 'shape': (2305843009213693952, 0)}",
                  0, "item size");
    reject_header("truncated data", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}",
                  7, "truncated data");
    reject_header("huge claimed data",
                  "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000,)}", 8,
                  "truncated data");
    reject_header("trailing bytes", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}",
                  9, "trailing bytes");
}

static int count_entries(const char *d)
{
    DIR *dp = opendir(d);
    int n = 0;
    struct dirent *e;
    while (dp && (e = readdir(dp)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    if (dp)
        closedir(dp);
    return n;
}

static void test_save_failures(void)
{
    /* Saving over a directory fails at rename: no temp file may be left. */
    char sub[512];
    snprintf(sub, sizeof sub, "%s/savedir", dir);
    mkdir(sub, 0700);
    char target[600];
    snprintf(target, sizeof target, "%s/out.npy", sub);
    mkdir(target, 0700);
    float x = 1;
    drs_tensor t = {DRS_F32, 1, {1}, &x};
    char err[256];
    CHECK(npy_save(target, &t, err, sizeof err) != DRS_OK, "save over a directory succeeded");
    CHECK(count_entries(sub) == 1, "temp file left behind after a failed save");
    rmdir(target);
    rmdir(sub);

    snprintf(target, sizeof target, "%s/no/such/dir/out.npy", dir);
    CHECK(npy_save(target, &t, err, sizeof err) != DRS_OK, "save into a missing dir");
    CHECK(strstr(err, "cannot create") != NULL, "message: %s", err);

    drs_tensor bad = {DRS_F32, 9, {1}, &x};
    CHECK(npy_save(tmp_path("x.npy"), &bad, err, sizeof err) != DRS_OK, "rank 9 saved");
    drs_tensor neg = {DRS_F32, 1, {-1}, &x};
    CHECK(npy_save(tmp_path("x.npy"), &neg, err, sizeof err) != DRS_OK, "negative dim saved");
    CHECK(access(tmp_path("x.npy"), F_OK) != 0, "failed save created the file");

    /* an empty shape whose non-zero extents overflow is refused too */
    drs_tensor huge = {DRS_F32, 4, {0, 1, 536870912, 1250999896764LL}, NULL};
    CHECK(npy_save(tmp_path("x.npy"), &huge, err, sizeof err) == DRS_ERR_OVERFLOW,
          "empty tensor with huge extents saved");
    CHECK(strstr(err, "non-zero extents") != NULL, "message: %s", err);
    drs_tensor hugeb = {DRS_F64, 2, {0, 2305843009213693952LL}, NULL};
    CHECK(npy_save(tmp_path("x.npy"), &hugeb, err, sizeof err) == DRS_ERR_OVERFLOW,
          "empty tensor with huge byte size saved");
    drs_tensor okempty = {DRS_F64, 2, {0, 1152921504606846975LL}, NULL};
    CHECK(npy_save(tmp_path("x.npy"), &okempty, err, sizeof err) == DRS_OK,
          "empty tensor with extents that fit refused: %s", err);
    unlink(tmp_path("x.npy"));
    CHECK(access(tmp_path("x.npy"), F_OK) != 0, "failed save created the file");

    /* staged writes: nothing at the target until the commit; a discard
     * leaves nothing behind */
    char stage_dir[512];
    snprintf(stage_dir, sizeof stage_dir, "%s/stage", dir);
    mkdir(stage_dir, 0700);
    char pa[600], pb[600];
    snprintf(pa, sizeof pa, "%s/a.npy", stage_dir);
    snprintf(pb, sizeof pb, "%s/b.npy", stage_dir);
    char *ta = NULL, *tb = NULL;
    CHECK(npy_stage(pa, &t, &ta, err, sizeof err) == DRS_OK && ta, "stage a: %s", err);
    CHECK(npy_stage(pb, &t, &tb, err, sizeof err) == DRS_OK && tb, "stage b: %s", err);
    CHECK(access(pa, F_OK) != 0 && access(pb, F_OK) != 0, "staged file visible before commit");
    CHECK(count_entries(stage_dir) == 2, "two temporaries expected, got %d",
          count_entries(stage_dir));
    CHECK(npy_commit(ta, pa, err, sizeof err) == DRS_OK, "commit a: %s", err);
    free(ta);
    npy_discard(tb);
    npy_discard(NULL);
    CHECK(access(pa, F_OK) == 0 && access(pb, F_OK) != 0, "commit/discard");
    CHECK(count_entries(stage_dir) == 1, "discard left a temporary");
    char *tc = (char *)1;
    CHECK(npy_stage(tmp_path("no/such/dir/c.npy"), &t, &tc, err, sizeof err) != DRS_OK &&
              tc == NULL,
          "stage into a missing dir");
    unlink(pa);
    rmdir(stage_dir);
}

int main(void)
{
    const char *base = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/test_npy.XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 2;
    }
    test_roundtrip();
    test_versions_and_scalars();
    test_rejections();
    test_save_failures();

    /* Clean up the files this test made. */
    static const char *const names[] = {"bad.npy", "rt.npy", "rt2.npy", "v.npy",
                                        "order.npy", "scalar.npy", "raw.npy"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        unlink(tmp_path(names[i]));
    rmdir(dir);
    if (failures) {
        fprintf(stderr, "test_npy: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_npy: all passed\n");
    return 0;
}
