/* SPDX-License-Identifier: MIT */
/* npy.c — strict .npy reader (format 1.0/2.0/3.0) and writer (1.0).
 *
 * File layout: "\x93NUMPY", major, minor, header length (u16 LE for 1.x, u32 LE
 * for 2.x/3.x), an ASCII Python dict literal
 *   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
 * padded with spaces and '\n', then the raw C-order data.  The reader parses
 * that literal with a tiny recursive-descent parser accepting exactly the
 * subset numpy writes (any key order, optional trailing commas, any
 * whitespace) and nothing else.  Single-threaded; no global state.
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen, fchmod, umask, unlink */

#include "npy.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* numpy itself refuses headers above 10000 bytes by default; anything near
 * this bound is hostile, and bounding it bounds the allocation below. */
#define NPY_MAX_HEADER (1 << 20)

static const char npy_magic[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};

static const struct {
    const char *descr;
    drs_dtype dtype;
    size_t size;
} npy_types[] = {
    {"<f4", DRS_F32, 4}, {"<f8", DRS_F64, 8}, {"|u1", DRS_U8, 1},
    {"|i1", DRS_I8, 1},  {"<i4", DRS_I32, 4}, {"<i8", DRS_I64, 8},
};
#define NPY_NTYPES ((int)(sizeof npy_types / sizeof npy_types[0]))

static drs_status npy_fail(char *err, size_t errlen, drs_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static drs_status npy_fail(char *err, size_t errlen, drs_status s, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return s;
}

static int host_is_little_endian(void)
{
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

static int type_index(drs_dtype t)
{
    for (int i = 0; i < NPY_NTYPES; i++)
        if (npy_types[i].dtype == t)
            return i;
    return -1;
}

/* ------------------------------------------------------------ header parse */
typedef struct hparser {
    const char *p, *end;
    char *err;
    size_t errlen;
} hparser;

static void skip_ws(hparser *h)
{
    while (h->p < h->end &&
           (*h->p == ' ' || *h->p == '\t' || *h->p == '\n' || *h->p == '\r' ||
            *h->p == '\f' || *h->p == '\v'))
        h->p++;
}

static int accept_char(hparser *h, char c)
{
    skip_ws(h);
    if (h->p < h->end && *h->p == c) {
        h->p++;
        return 1;
    }
    return 0;
}

/* A quoted Python string without escapes; writes it NUL-terminated to buf. */
static int parse_str(hparser *h, char *buf, size_t buflen)
{
    skip_ws(h);
    if (h->p >= h->end || (*h->p != '\'' && *h->p != '"'))
        return 0;
    char q = *h->p++;
    size_t n = 0;
    while (h->p < h->end && *h->p != q) {
        if (*h->p == '\\' || *h->p == '\n' || n + 1 >= buflen)
            return 0;
        buf[n++] = *h->p++;
    }
    if (h->p >= h->end)
        return 0;
    h->p++;
    buf[n] = '\0';
    return 1;
}

static int accept_word(hparser *h, const char *w)
{
    size_t n = strlen(w);
    skip_ws(h);
    if ((size_t)(h->end - h->p) < n || memcmp(h->p, w, n) != 0)
        return 0;
    const char *after = h->p + n;
    /* "Falsey" is not False. */
    if (after < h->end && (after[0] == '_' || (after[0] >= 'a' && after[0] <= 'z') ||
                           (after[0] >= 'A' && after[0] <= 'Z') ||
                           (after[0] >= '0' && after[0] <= '9')))
        return 0;
    h->p = after;
    return 1;
}

/* shape: a Python tuple of non-negative ints: (), (3,), (2, 3), (2, 3,). */
static drs_status parse_shape(hparser *h, int *rank, int64_t *shape)
{
    if (!accept_char(h, '('))
        return npy_fail(h->err, h->errlen, DRS_ERR_IO, "'shape' is not a tuple");
    int n = 0;
    for (;;) {
        if (accept_char(h, ')')) /* () or a trailing comma */
            break;
        skip_ws(h);
        int neg = 0;
        if (h->p < h->end && *h->p == '-') {
            neg = 1;
            h->p++;
        }
        if (h->p >= h->end || *h->p < '0' || *h->p > '9')
            return npy_fail(h->err, h->errlen, DRS_ERR_IO,
                            "'shape' entry %d is not an integer", n);
        if (*h->p == '0' && h->p + 1 < h->end && h->p[1] >= '0' && h->p[1] <= '9')
            return npy_fail(h->err, h->errlen, DRS_ERR_IO,
                            "'shape' entry %d has a leading zero", n);
        int64_t v = 0;
        while (h->p < h->end && *h->p >= '0' && *h->p <= '9') {
            int d = *h->p++ - '0';
            if (v > (INT64_MAX - d) / 10)
                return npy_fail(h->err, h->errlen, DRS_ERR_OVERFLOW,
                                "'shape' entry %d overflows 64 bits", n);
            v = v * 10 + d;
        }
        if (h->p < h->end && (*h->p == '.' || *h->p == 'e' || *h->p == 'E' || *h->p == 'j' ||
                              *h->p == '_' || *h->p == 'x' || *h->p == 'L'))
            return npy_fail(h->err, h->errlen, DRS_ERR_IO,
                            "'shape' entry %d is not an integer", n);
        if (neg)
            return npy_fail(h->err, h->errlen, DRS_ERR_IO,
                            "'shape' entry %d is negative (-%lld)", n, (long long)v);
        if (n == DRS_MAX_RANK)
            return npy_fail(h->err, h->errlen, DRS_ERR_IO, "rank exceeds %d", DRS_MAX_RANK);
        shape[n++] = v;
        if (accept_char(h, ','))
            continue;
        if (n == 1) /* (3) is an int in Python, not a tuple */
            return npy_fail(h->err, h->errlen, DRS_ERR_IO,
                            "'shape' is not a tuple (a 1-tuple needs a trailing comma)");
        if (accept_char(h, ')'))
            break;
        return npy_fail(h->err, h->errlen, DRS_ERR_IO, "'shape' tuple is malformed");
    }
    *rank = n;
    return DRS_OK;
}

typedef struct npy_header {
    int type; /* index into npy_types */
    int rank;
    int64_t shape[DRS_MAX_RANK];
} npy_header;

static drs_status parse_header(const char *txt, size_t len, npy_header *hd, char *err,
                               size_t errlen)
{
    hparser h = {txt, txt + len, err, errlen};
    int have_descr = 0, have_fortran = 0, have_shape = 0;
    drs_status s;
    if (!accept_char(&h, '{'))
        return npy_fail(err, errlen, DRS_ERR_IO, "header is not a dict literal");
    for (;;) {
        if (accept_char(&h, '}'))
            break;
        char key[32], val[32];
        if (!parse_str(&h, key, sizeof key))
            return npy_fail(err, errlen, DRS_ERR_IO, "header dict has a malformed key");
        if (!accept_char(&h, ':'))
            return npy_fail(err, errlen, DRS_ERR_IO, "header dict: missing ':' after '%s'",
                            key);
        if (strcmp(key, "descr") == 0) {
            if (have_descr++)
                return npy_fail(err, errlen, DRS_ERR_IO, "header has duplicate key 'descr'");
            if (!parse_str(&h, val, sizeof val))
                return npy_fail(err, errlen, DRS_ERR_IO,
                                "'descr' is not a simple dtype string (structured dtypes "
                                "are not supported)");
            hd->type = -1;
            for (int i = 0; i < NPY_NTYPES; i++)
                if (strcmp(val, npy_types[i].descr) == 0)
                    hd->type = i;
            if (hd->type < 0) {
                if (val[0] == '>' && strlen(val) > 2 && strcmp(val + 2, "1") != 0)
                    return npy_fail(err, errlen, DRS_ERR_IO,
                                    "big-endian dtype '%s' is not supported (use '<')", val);
                return npy_fail(err, errlen, DRS_ERR_IO,
                                "unsupported dtype '%s' (need <f4, <f8, |u1, |i1, <i4 or <i8)",
                                val);
            }
        } else if (strcmp(key, "fortran_order") == 0) {
            if (have_fortran++)
                return npy_fail(err, errlen, DRS_ERR_IO,
                                "header has duplicate key 'fortran_order'");
            if (accept_word(&h, "True"))
                return npy_fail(err, errlen, DRS_ERR_IO,
                                "fortran_order True is not supported (need C order)");
            if (!accept_word(&h, "False"))
                return npy_fail(err, errlen, DRS_ERR_IO, "'fortran_order' is not True/False");
        } else if (strcmp(key, "shape") == 0) {
            if (have_shape++)
                return npy_fail(err, errlen, DRS_ERR_IO, "header has duplicate key 'shape'");
            if ((s = parse_shape(&h, &hd->rank, hd->shape)) != DRS_OK)
                return s;
        } else {
            return npy_fail(err, errlen, DRS_ERR_IO, "header has unknown key '%s'", key);
        }
        if (accept_char(&h, ','))
            continue;
        if (accept_char(&h, '}'))
            break;
        return npy_fail(err, errlen, DRS_ERR_IO, "header dict is malformed after '%s'", key);
    }
    skip_ws(&h);
    if (h.p != h.end)
        return npy_fail(err, errlen, DRS_ERR_IO, "header has junk after the dict");
    if (!have_descr || !have_fortran || !have_shape)
        return npy_fail(err, errlen, DRS_ERR_IO, "header lacks key '%s'",
                        !have_descr ? "descr" : !have_fortran ? "fortran_order" : "shape");
    return DRS_OK;
}

/* Checked element count and byte size of a shape.  The product of the
 * non-zero extents times the item size must fit in 64 bits even when some
 * extent is 0 (numpy refuses such a shape: "array is too big"). */
static drs_status shape_bytes(int rank, const int64_t *shape, size_t itemsize, int64_t *numel,
                              int64_t *nbytes, char *err, size_t errlen)
{
    int64_t nz = 1, nzb;
    int empty = 0;
    for (int i = 0; i < rank; i++) {
        if (shape[i] < 0)
            return npy_fail(err, errlen, DRS_ERR_IO, "shape[%d] is negative", i);
        if (shape[i] == 0)
            empty = 1;
        else if (__builtin_mul_overflow(nz, shape[i], &nz))
            return npy_fail(err, errlen, DRS_ERR_OVERFLOW,
                            "shape is too large: the product of its non-zero extents "
                            "overflows 64 bits");
    }
    if (__builtin_mul_overflow(nz, (int64_t)itemsize, &nzb))
        return npy_fail(err, errlen, DRS_ERR_OVERFLOW,
                        "shape is too large: the product of its non-zero extents times the "
                        "item size (%zu bytes) overflows 64 bits", itemsize);
    *numel = empty ? 0 : nz;
    *nbytes = empty ? 0 : nzb;
    if ((uint64_t)*nbytes > SIZE_MAX)
        return npy_fail(err, errlen, DRS_ERR_OVERFLOW, "byte size of the data overflows");
    return DRS_OK;
}

/* ------------------------------------------------------------------- load */
static drs_status load_stream(FILE *f, int flags, npy_array *out, char *err, size_t errlen)
{
    unsigned char pre[12];
    if (fread(pre, 1, 8, f) != 8 || memcmp(pre, npy_magic, 6) != 0)
        return npy_fail(err, errlen, DRS_ERR_IO, "bad magic (not a .npy file)");
    int major = pre[6], minor = pre[7];
    if ((major != 1 && major != 2 && major != 3) || minor != 0)
        return npy_fail(err, errlen, DRS_ERR_IO, "unsupported .npy format version %d.%d",
                        major, minor);
    size_t lenbytes = major == 1 ? 2 : 4;
    if (fread(pre + 8, 1, lenbytes, f) != lenbytes)
        return npy_fail(err, errlen, DRS_ERR_IO, "truncated header");
    uint32_t hlen = (uint32_t)pre[8] | (uint32_t)pre[9] << 8;
    if (major > 1)
        hlen |= (uint32_t)pre[10] << 16 | (uint32_t)pre[11] << 24;
    if (hlen > NPY_MAX_HEADER)
        return npy_fail(err, errlen, DRS_ERR_IO, "header length %lu is implausibly large",
                        (unsigned long)hlen);
    char *txt = malloc(hlen ? hlen : 1);
    if (!txt)
        return npy_fail(err, errlen, DRS_ERR_NOMEM, "out of memory reading the header");
    if (fread(txt, 1, hlen, f) != hlen) {
        free(txt);
        return npy_fail(err, errlen, DRS_ERR_IO, "truncated header");
    }
    npy_header hd;
    drs_status s = parse_header(txt, hlen, &hd, err, errlen);
    free(txt);
    if (s != DRS_OK)
        return s;

    int64_t numel = 0, nbytes = 0;
    if ((s = shape_bytes(hd.rank, hd.shape, npy_types[hd.type].size, &numel, &nbytes, err,
                         errlen)) != DRS_OK)
        return s;
    if (hd.rank == 0) {
        if (!(flags & NPY_ALLOW_SCALAR))
            return npy_fail(err, errlen, DRS_ERR_IO, "rank-0 (scalar) array not allowed here");
        hd.rank = 1;
        hd.shape[0] = 1;
    }

    /* Compare against the file size first when the stream is seekable, so a
     * header claiming terabytes gives "truncated" rather than an allocation. */
    long here = ftell(f);
    if (here >= 0 && fseek(f, 0, SEEK_END) == 0) {
        long total = ftell(f);
        if (total < 0 || fseek(f, here, SEEK_SET) != 0)
            return npy_fail(err, errlen, DRS_ERR_IO, "cannot seek in the file");
        int64_t avail = (int64_t)total - (int64_t)here;
        if (avail < nbytes)
            return npy_fail(err, errlen, DRS_ERR_IO,
                            "truncated data: shape needs %lld bytes, file has %lld",
                            (long long)nbytes, (long long)avail);
        if (avail > nbytes)
            return npy_fail(err, errlen, DRS_ERR_IO,
                            "%lld trailing bytes after the data the shape describes",
                            (long long)(avail - nbytes));
    }
    void *data = malloc(nbytes ? (size_t)nbytes : 1);
    if (!data)
        return npy_fail(err, errlen, DRS_ERR_NOMEM, "out of memory (%lld bytes)",
                        (long long)nbytes);
    size_t got = fread(data, 1, (size_t)nbytes, f);
    if (got != (size_t)nbytes) {
        free(data);
        return npy_fail(err, errlen, DRS_ERR_IO,
                        "truncated data: shape needs %lld bytes, file has %llu",
                        (long long)nbytes, (unsigned long long)got);
    }
    if (fgetc(f) != EOF) {
        free(data);
        return npy_fail(err, errlen, DRS_ERR_IO, "trailing bytes after the data");
    }
    if (ferror(f)) {
        free(data);
        return npy_fail(err, errlen, DRS_ERR_IO, "read error");
    }
    out->t.dtype = npy_types[hd.type].dtype;
    out->t.rank = hd.rank;
    memcpy(out->t.shape, hd.shape, sizeof hd.shape);
    out->t.data = data;
    out->owned = data;
    (void)numel;
    return DRS_OK;
}

drs_status npy_load_stream(FILE *f, int flags, npy_array *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (err && errlen)
        err[0] = '\0';
    if (!host_is_little_endian())
        return npy_fail(err, errlen, DRS_ERR_UNSUPPORTED, "big-endian hosts are not supported");
    drs_status s = load_stream(f, flags, out, err, errlen);
    if (s != DRS_OK)
        memset(out, 0, sizeof *out);
    return s;
}

drs_status npy_load(const char *path, int flags, npy_array *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (err && errlen)
        err[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (!f)
        return npy_fail(err, errlen, DRS_ERR_IO, "cannot open: %s", strerror(errno));
    drs_status s = npy_load_stream(f, flags, out, err, errlen);
    fclose(f);
    return s;
}

void npy_free(npy_array *a)
{
    if (!a)
        return;
    free(a->owned);
    memset(a, 0, sizeof *a);
}

/* ------------------------------------------------------------------- save */
drs_status npy_stage(const char *path, const drs_tensor *t, char **tmp_out, char *err,
                     size_t errlen)
{
    *tmp_out = NULL;
    if (err && errlen)
        err[0] = '\0';
    if (!host_is_little_endian())
        return npy_fail(err, errlen, DRS_ERR_UNSUPPORTED, "big-endian hosts are not supported");
    int ti = t ? type_index(t->dtype) : -1;
    if (ti < 0)
        return npy_fail(err, errlen, DRS_ERR_INVALID_ARGUMENT, "unknown dtype");
    if (t->rank < 1 || t->rank > DRS_MAX_RANK)
        return npy_fail(err, errlen, DRS_ERR_INVALID_ARGUMENT, "rank %d out of range", t->rank);
    int64_t numel = 0, nbytes = 0;
    drs_status s = shape_bytes(t->rank, t->shape, npy_types[ti].size, &numel, &nbytes, err,
                               errlen);
    if (s != DRS_OK)
        return s;
    if (nbytes > 0 && !t->data)
        return npy_fail(err, errlen, DRS_ERR_INVALID_ARGUMENT, "data is NULL");

    /* Header: dict, then spaces, then '\n', total preamble a multiple of 64
     * (numpy's alignment, so the data can be memory-mapped aligned). */
    char hdr[512];
    int n = snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': False, 'shape': (",
                     npy_types[ti].descr);
    for (int i = 0; i < t->rank; i++)
        n += snprintf(hdr + n, sizeof hdr - (size_t)n, "%s%lld", i ? ", " : "",
                      (long long)t->shape[i]);
    n += snprintf(hdr + n, sizeof hdr - (size_t)n, "%s), }", t->rank == 1 ? "," : "");
    int total = 10 + n + 1;
    int pad = (64 - total % 64) % 64;
    memset(hdr + n, ' ', (size_t)pad);
    n += pad;
    hdr[n++] = '\n';
    unsigned char pre[10];
    memcpy(pre, npy_magic, 6);
    pre[6] = 1;
    pre[7] = 0;
    pre[8] = (unsigned char)(n & 0xff);
    pre[9] = (unsigned char)(n >> 8);

    size_t plen = strlen(path);
    char *tmp = malloc(plen + 16);
    if (!tmp)
        return npy_fail(err, errlen, DRS_ERR_NOMEM, "out of memory");
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, ".tmp.XXXXXX", 12);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        s = npy_fail(err, errlen, DRS_ERR_IO, "cannot create %s: %s", path, strerror(errno));
        free(tmp);
        return s;
    }
    /* mkstemp makes the file 0600; give it the permissions a plain fopen would. */
    mode_t mask = umask(0);
    umask(mask);
    FILE *f = fchmod(fd, 0666 & ~mask) == 0 ? fdopen(fd, "wb") : NULL;
    int ok = f != NULL;
    if (!f)
        close(fd);
    ok = ok && fwrite(pre, 1, sizeof pre, f) == sizeof pre;
    ok = ok && fwrite(hdr, 1, (size_t)n, f) == (size_t)n;
    ok = ok && (nbytes == 0 || fwrite(t->data, 1, (size_t)nbytes, f) == (size_t)nbytes);
    ok = ok && fflush(f) == 0;
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok) {
        int saved = errno;
        unlink(tmp);
        free(tmp);
        return npy_fail(err, errlen, DRS_ERR_IO, "cannot write %s: %s", path, strerror(saved));
    }
    *tmp_out = tmp;
    return DRS_OK;
}

drs_status npy_commit(const char *tmp, const char *path, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (rename(tmp, path) != 0)
        return npy_fail(err, errlen, DRS_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    return DRS_OK;
}

void npy_discard(char *tmp)
{
    if (tmp) {
        unlink(tmp);
        free(tmp);
    }
}

drs_status npy_save(const char *path, const drs_tensor *t, char *err, size_t errlen)
{
    char *tmp = NULL;
    drs_status s = npy_stage(path, t, &tmp, err, errlen);
    if (s != DRS_OK)
        return s;
    s = npy_commit(tmp, path, err, errlen);
    if (s != DRS_OK)
        unlink(tmp);
    free(tmp);
    return s;
}
