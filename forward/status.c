/* SPDX-License-Identifier: MIT */
/* status.c — status strings, the thread-local last-error message, enum
 * spellings, dtype helpers and checked 64-bit arithmetic.  No threading rule:
 * the message buffer is thread-local, everything else is read-only. */
#define _DEFAULT_SOURCE /* madvise()'s MADV_HUGEPAGE, with C11 */
#include "core.h"

#include <omp.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

/* AddressSanitizer's manual poisoning, where the build has it */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DRS_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define DRS_ASAN 1
#endif
#if defined(DRS_ASAN)
#include <sanitizer/asan_interface.h>
#define DRS_ASAN_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define DRS_ASAN_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define DRS_ASAN_POISON(p, n) ((void)(p), (void)(n))
#define DRS_ASAN_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

static _Thread_local char drs_err_buf[512];

const char *drs_status_str(drs_status s)
{
    switch (s) {
    case DRS_OK: return "ok";
    case DRS_ERR_INVALID_ARGUMENT: return "invalid argument";
    case DRS_ERR_SHAPE: return "shape mismatch";
    case DRS_ERR_OVERFLOW: return "size overflow";
    case DRS_ERR_NOMEM: return "out of memory";
    case DRS_ERR_UNSUPPORTED: return "unsupported";
    case DRS_ERR_IO: return "i/o error";
    }
    return "unknown status";
}

const char *drs_last_error(void) { return drs_err_buf; }

void drs__clear_error(void) { drs_err_buf[0] = '\0'; }

drs_status drs_set_last_error(drs_status s, const char *message)
{
    snprintf(drs_err_buf, sizeof drs_err_buf, "%s", message ? message : "");
    return s;
}

drs_status drs__fail(drs_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(drs_err_buf, sizeof drs_err_buf, fmt, ap);
    va_end(ap);
    return s;
}

/* The library's own thread count (0: OpenMP's default).  It is applied with a
 * num_threads() clause on each of the library's parallel regions and never
 * through omp_set_num_threads(), so the host's OpenMP state is left alone.
 * Relaxed atomic: a setting read at the start of each region, not a sum.
 * Small regions ask for one thread (num_threads(work > min ? drs__nthreads() : 1))
 * rather than an if() clause: LLVM's libomp carries the num_threads value of
 * an if(false) region over to the thread's next region, the host's own. */
static _Atomic int drs_nthreads_setting = 0;

drs_status drs_set_num_threads(int n)
{
    if (n < 0 || n > 4096)
        return drs__fail(DRS_ERR_INVALID_ARGUMENT,
                         "drs_set_num_threads: n must be in [0, 4096] (0: OpenMP's default), got %d",
                         n);
    atomic_store_explicit(&drs_nthreads_setting, n, memory_order_relaxed);
    return DRS_OK;
}

int drs_get_num_threads(void)
{
    return atomic_load_explicit(&drs_nthreads_setting, memory_order_relaxed);
}

int drs__nthreads(void)
{
    const int n = atomic_load_explicit(&drs_nthreads_setting, memory_order_relaxed);
    return n > 0 ? n : omp_get_max_threads();
}

int drs_version(void)
{
    return DRS_VERSION_MAJOR * 10000 + DRS_VERSION_MINOR * 100 + DRS_VERSION_PATCH;
}

const char *drs_version_string(void) { return DRS_VERSION_STRING; }

/* Allocation-failure injection (tests): the countdown is per thread, as every
 * allocation of a call happens on the calling thread, outside parallel regions. */
static _Thread_local long drs_alloc_countdown = -1;

static _Thread_local size_t drs_alloc_max = 0;

void drs_debug_fail_allocation(long n) { drs_alloc_countdown = n < 0 ? -1 : n; }

size_t drs_debug_max_allocation(int reset)
{
    const size_t m = drs_alloc_max;
    if (reset)
        drs_alloc_max = 0;
    return m;
}

static int drs__alloc_should_fail(void)
{
    if (drs_alloc_countdown < 0)
        return 0;
    if (drs_alloc_countdown == 0) {
        drs_alloc_countdown = -1;
        return 1;
    }
    drs_alloc_countdown--;
    return 0;
}

/* A block of n bytes just allocated: when it is large (4 MiB or more), the
 * whole 2 MiB pages inside it are advised as huge pages (Linux, where
 * transparent huge pages are in "madvise" mode).  Above glibc's mmap
 * threshold (at least 128 KiB, rising up to 32 MiB as blocks are freed)
 * malloc and calloc map a block fresh and leave it untouched, so the
 * library's first writes fault it in 2 MiB at a time instead of 4 KiB: a
 * 96 MiB intermediate cost 24,576 faults per call before (a trilinear
 * backward spent more time in them than in its passes).  A block served from
 * the heap keeps the pages it has; the advice stays on that part of the heap
 * after free (the kernel may later merge its pages into huge ones), as NumPy's
 * own advice on its large arrays does.  Advice only: it changes no data, and
 * its failure changes nothing.  DRS_HUGEPAGES=0 in the environment turns it
 * off. */
static void *drs__advise_large(void *p, size_t n)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    static _Atomic int on = -1; /* DRS_HUGEPAGES=0 (read once) turns the advice off */
    int o = atomic_load_explicit(&on, memory_order_relaxed);
    if (o < 0) {
        const char *e = getenv("DRS_HUGEPAGES");
        o = !(e && !strcmp(e, "0"));
        atomic_store_explicit(&on, o, memory_order_relaxed);
    }
    const uintptr_t huge = (uintptr_t)2 << 20;
    if (o && p && n >= ((size_t)4 << 20)) {
        const uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1),
                        b = ((uintptr_t)p + n) & ~(huge - 1);
        if (b > a)
            (void)madvise((void *)a, (size_t)(b - a), MADV_HUGEPAGE);
    }
#else
    (void)n;
#endif
    return p;
}

/* n bytes (at least 1) on a cache line (POSIX posix_memalign: exactly n
 * bytes, so a sanitizer still sees an overrun past them).  glibc's malloc
 * aligns to 16 bytes, so without this a block's 64-byte vectors straddled two
 * cache lines in three processes out of four, depending on the heap's state:
 * GridSample's backward, whose scatter reads and writes 64 bytes per pixel,
 * ran 20 % slower in them (W8b at one thread: 18 ms on a line, 22 ms 16 bytes
 * off). */
static void *drs__line_alloc(size_t n)
{
    void *p = NULL;
    return posix_memalign(&p, DRS_LINE, n ? n : 1) == 0 ? p : NULL;
}

void *drs__malloc(size_t n)
{
    if (n > drs_alloc_max)
        drs_alloc_max = n;
    return drs__alloc_should_fail() ? NULL : drs__advise_large(drs__line_alloc(n), n);
}

void *drs__calloc(size_t n, size_t size)
{
    if (size && n <= SIZE_MAX / size && n * size > drs_alloc_max)
        drs_alloc_max = n * size;
    if (drs__alloc_should_fail() || (size && n > SIZE_MAX / size))
        return NULL;
    void *p = drs__advise_large(drs__line_alloc(n * size), n * size);
    if (p) /* (after the advice, so that a large block faults in huge pages) */
        memset(p, 0, n * size);
    return p;
}

/* ---- the scratch cache: large scratch blocks kept between calls ----
 * A multi-pass resample (3-D, axes that are not adjacent, integer data, and
 * their gradients) writes its intermediates to one or two blocks of the
 * largest intermediate's size, and GridSample's backward scatters into
 * per-thread planes through lists of taps.  Above glibc's mmap threshold (at
 * most 32 MiB) malloc maps such a block fresh on every call and the first
 * writes fault it in:
 * with glibc's default settings a trilinear 2x backward of 32 MiB
 * intermediates spent about 40 % of its time there.  drs__scratch_put keeps
 * up to DRS_SCRATCH_SLOTS such blocks (4 MiB or more, together at most
 * DRS_SCRATCH_CACHE_MB, default 256 MiB; 0 turns the cache off) for a later
 * drs__scratch_get, which takes the smallest kept block that is large enough.
 * No lock: each slot is an atomic pointer, taken with an exchange, and the
 * atomic drs_scratch_size[] beside it says how large its block is, so that
 * the search reads no block it does not own (a size read while another
 * thread fills or empties the slot can be stale: the block's own size, in
 * the 64-byte header before it (size, bytes known zero, the pointer malloc
 * returned; the block starts on a cache line), is checked once the block is
 * taken, and a block
 * that turns out too small goes back).  The contents of a reused block are
 * whatever the last call left (zero = 1 clears it; a new block then comes
 * from calloc, whose fresh pages are zero without being touched).  A user
 * that leaves its block all zero (GridSample's scatter planes) gives it back
 * with drs__scratch_put_zero, which records in the header how many leading
 * bytes are zero; a later drs__scratch_get(n, 1) then clears only what lies
 * beyond them, so a steady run of such calls clears nothing.  A clear that
 * is needed runs on the library's threads when it is large.
 * drs_scratch_release() frees the kept blocks, as does unloading the
 * library (GCC and Clang).  While the allocation-failure hook is armed the
 * cache is bypassed, so that every allocation of a call can still be made to
 * fail. */
#define DRS_SCRATCH_SLOTS 4
#define DRS_SCRATCH_MIN ((size_t)4 << 20)
#define DRS_SCRATCH_HDR ((size_t)64)
static _Atomic(void *) drs_scratch_slot[DRS_SCRATCH_SLOTS];
static _Atomic size_t drs_scratch_size[DRS_SCRATCH_SLOTS]; /* 0: the slot is empty */
static _Atomic size_t drs_scratch_bytes = 0;               /* bytes kept in the slots */

/* the size of a block this thread owns */
static size_t drs__scratch_cap(const void *p)
{
    size_t c;
    memcpy(&c, (const char *)p - DRS_SCRATCH_HDR, sizeof c);
    return c;
}

/* how many leading bytes of a block this thread owns are known to be zero
 * (the header's second word) */
static size_t drs__scratch_zlen(const void *p)
{
    size_t z;
    memcpy(&z, (const char *)p - DRS_SCRATCH_HDR + sizeof(size_t), sizeof z);
    return z;
}

static void drs__scratch_set_zlen(void *p, size_t z)
{
    memcpy((char *)p - DRS_SCRATCH_HDR + sizeof(size_t), &z, sizeof z);
}

/* the pointer malloc returned for a block (the header's third word) */
static char *drs__scratch_raw(const void *p)
{
    char *raw;
    memcpy(&raw, (const char *)p - DRS_SCRATCH_HDR + 2 * sizeof(size_t), sizeof raw);
    return raw;
}

/* the bytes malloc gave beyond a block's end (its alignment slack) */
static size_t drs__scratch_slack(const void *p)
{
    const size_t n = drs__scratch_cap(p);
    return (size_t)(drs__scratch_raw(p) + n + DRS_SCRATCH_HDR + DRS_LINE - ((const char *)p + n));
}

/* memset(p, 0, n), split over the library's threads when n is large (and
 * this is not already a thread of a parallel region) */
static void drs__clear(void *p, size_t n)
{
    const size_t chunk = (size_t)1 << 20;
    int t = drs__nthreads();
    if (n < 8 * chunk || t < 2 || omp_in_parallel()) {
        memset(p, 0, n);
        return;
    }
    const int64_t nc = (int64_t)((n + chunk - 1) / chunk);
    if (t > nc)
        t = (int)nc;
#pragma omp parallel for schedule(static) num_threads(t)
    for (int64_t i = 0; i < nc; i++) {
        const size_t a = (size_t)i * chunk, b = a + chunk < n ? a + chunk : n;
        memset((char *)p + a, 0, b - a);
    }
}

/* the cache's byte limit: DRS_SCRATCH_CACHE_MB (read once; a value that is
 * not a count of MiB gives the default, 256 MiB) */
static size_t drs__scratch_limit(void)
{
    static _Atomic size_t lim = SIZE_MAX; /* SIZE_MAX: not read yet */
    size_t l = atomic_load_explicit(&lim, memory_order_relaxed);
    if (l == SIZE_MAX) {
        const char *e = getenv("DRS_SCRATCH_CACHE_MB");
        char *end = NULL;
        long long mb = e && *e ? strtoll(e, &end, 10) : 256;
        if (e && *e && (*end != '\0' || mb < 0))
            mb = 256;
        const unsigned long long most = (SIZE_MAX - 1) >> 20;
        l = (unsigned long long)mb > most ? SIZE_MAX - 1 : (size_t)mb << 20;
        atomic_store_explicit(&lim, l, memory_order_relaxed);
    }
    return l;
}

/* slot k's block, now this thread's (NULL when the slot is empty) */
static void *drs__scratch_take(int k)
{
    void *q = atomic_exchange_explicit(&drs_scratch_slot[k], NULL, memory_order_acq_rel);
    if (q) {
        atomic_store_explicit(&drs_scratch_size[k], 0, memory_order_relaxed);
        atomic_fetch_sub_explicit(&drs_scratch_bytes, drs__scratch_cap(q), memory_order_relaxed);
    }
    return q;
}

void *drs__scratch_get(size_t n, int zero)
{
    if (n > drs_alloc_max)
        drs_alloc_max = n;
    const int cache = n >= DRS_SCRATCH_MIN && drs_alloc_countdown < 0 && drs__scratch_limit() > 0;
    for (int tries = 0; cache && tries < DRS_SCRATCH_SLOTS; tries++) {
        /* the smallest kept block of at least n bytes, by the slots' sizes */
        int best = -1;
        size_t bcap = SIZE_MAX;
        for (int k = 0; k < DRS_SCRATCH_SLOTS; k++) {
            const size_t c = atomic_load_explicit(&drs_scratch_size[k], memory_order_relaxed);
            if (c >= n && c < bcap) {
                best = k;
                bcap = c;
            }
        }
        if (best < 0)
            break;
        void *q = drs__scratch_take(best);
        if (!q) { /* emptied meanwhile (its size not cleared yet): look again */
            size_t c = bcap;
            atomic_compare_exchange_strong_explicit(&drs_scratch_size[best], &c, 0,
                                                    memory_order_relaxed, memory_order_relaxed);
            continue;
        }
        if (drs__scratch_cap(q) >= n) {
            const size_t z = drs__scratch_zlen(q);
            if (zero && z < n)
                drs__clear((char *)q + z, n - z);
            drs__scratch_set_zlen(q, 0); /* the caller's now */
            return q;
        }
        drs__scratch_put_zero(q, drs__scratch_zlen(q)); /* too small: back it goes, as it was */
    }
    if (drs__alloc_should_fail() || n > SIZE_MAX - DRS_SCRATCH_HDR - DRS_LINE)
        return NULL;
    /* calloc keeps a fresh mapping's lazy zero pages; the block starts on the
     * first cache line after the header, the raw pointer in the header */
    char *raw = zero ? calloc(1, n + DRS_SCRATCH_HDR + DRS_LINE)
                     : malloc(n + DRS_SCRATCH_HDR + DRS_LINE);
    if (!raw)
        return NULL;
    char *q = raw + DRS_SCRATCH_HDR + (DRS_LINE - (uintptr_t)raw % DRS_LINE) % DRS_LINE;
    memcpy(q - DRS_SCRATCH_HDR, &n, sizeof n);
    drs__scratch_set_zlen(q, 0);
    memcpy(q - DRS_SCRATCH_HDR + 2 * sizeof(size_t), &raw, sizeof raw);
    /* the slack after the block is off limits under AddressSanitizer, so that
     * an overrun past n bytes is still reported */
    DRS_ASAN_POISON(q + n, drs__scratch_slack(q));
    return drs__advise_large(q, n);
}

/* frees a block of the scratch (not kept) */
static void drs__scratch_free(void *p)
{
    DRS_ASAN_UNPOISON((char *)p + drs__scratch_cap(p), drs__scratch_slack(p));
    free(drs__scratch_raw(p));
}

void drs__scratch_put(void *p) { drs__scratch_put_zero(p, 0); }

void drs__scratch_put_zero(void *p, size_t nzero)
{
    if (!p)
        return;
    const size_t c = drs__scratch_cap(p), lim = drs__scratch_limit();
    drs__scratch_set_zlen(p, nzero < c ? nzero : c);
    if (c >= DRS_SCRATCH_MIN && c <= lim) {
        const size_t held = atomic_fetch_add_explicit(&drs_scratch_bytes, c, memory_order_relaxed);
        if (held + c <= lim)
            for (int k = 0; k < DRS_SCRATCH_SLOTS; k++) {
                void *expect = NULL;
                if (atomic_compare_exchange_strong_explicit(&drs_scratch_slot[k], &expect, p,
                                                            memory_order_acq_rel,
                                                            memory_order_relaxed)) {
                    atomic_store_explicit(&drs_scratch_size[k], c, memory_order_relaxed);
                    return;
                }
            }
        atomic_fetch_sub_explicit(&drs_scratch_bytes, c, memory_order_relaxed);
    }
    drs__scratch_free(p);
}

void drs_scratch_release(void)
{
    for (int k = 0; k < DRS_SCRATCH_SLOTS; k++) {
        void *q = drs__scratch_take(k);
        if (q)
            drs__scratch_free(q);
    }
}

size_t drs_scratch_held(void)
{
    return atomic_load_explicit(&drs_scratch_bytes, memory_order_relaxed);
}

#if defined(__GNUC__)
/* the kept blocks go with the library (dlclose, process exit) */
__attribute__((destructor)) static void drs__scratch_fini(void) { drs_scratch_release(); }
#endif

int drs__mul_overflow(int64_t a, int64_t b, int64_t *r)
{
    return __builtin_mul_overflow(a, b, r);
}

int drs__add_overflow(int64_t a, int64_t b, int64_t *r)
{
    return __builtin_add_overflow(a, b, r);
}

const char *drs_dtype_name(drs_dtype t)
{
    switch (t) {
    case DRS_F32: return "f32";
    case DRS_F64: return "f64";
    case DRS_U8: return "u8";
    case DRS_I8: return "i8";
    case DRS_I32: return "i32";
    case DRS_I64: return "i64";
    }
    return "?";
}

size_t drs_dtype_size(drs_dtype t)
{
    switch (t) {
    case DRS_F32: return 4;
    case DRS_F64: return 8;
    case DRS_U8: return 1;
    case DRS_I8: return 1;
    case DRS_I32: return 4;
    case DRS_I64: return 8;
    }
    return 0;
}

drs_status drs_tensor_numel(const drs_tensor *t, int64_t *numel)
{
    return drs__check_tensor("tensor", "tensor", t, numel);
}

drs_status drs__check_extents(const char *op, const char *name, int rank, const int64_t *shape,
                              size_t elsize, int64_t *numel)
{
    /* The product of the non-zero extents must fit too: an empty tensor of
     * shape (0, 2^29, 2^40) has no bytes, but its row-major strides (and
     * numpy's or PyTorch's view of it) overflow 64 bits all the same. */
    int64_t nz = 1, bytes;
    int empty = 0, over = 0;
    for (int i = 0; i < rank; i++) {
        if (shape[i] < 0)
            return drs__fail(DRS_ERR_SHAPE, "%s: %s shape[%d] must be >= 0, got %lld", op, name,
                             i, (long long)shape[i]);
        if (shape[i] == 0)
            empty = 1;
        else if (!over && drs__mul_overflow(nz, shape[i], &nz))
            over = 1;
    }
    if (!over && drs__mul_overflow(nz, (int64_t)elsize, &bytes))
        over = 1;
    if (over) {
        char buf[160];
        int n = 0;
        for (int i = 0; i < rank && n < (int)sizeof buf; i++)
            n += snprintf(buf + n, sizeof buf - (size_t)n, "%s%lld", i ? ", " : "",
                          (long long)shape[i]);
        return drs__fail(DRS_ERR_OVERFLOW,
                         "%s: %s: shape [%s] is too large: the product of its non-zero extents "
                         "times the element size (%zu bytes) overflows 64 bits",
                         op, name, buf, elsize);
    }
    if (numel)
        *numel = empty ? 0 : nz;
    return DRS_OK;
}

drs_status drs__check_tensor(const char *op, const char *name, const drs_tensor *t,
                             int64_t *numel)
{
    if (!t)
        return drs__fail(DRS_ERR_INVALID_ARGUMENT, "%s: %s is NULL", op, name);
    if (drs_dtype_size(t->dtype) == 0)
        return drs__fail(DRS_ERR_INVALID_ARGUMENT, "%s: %s has unknown dtype %d", op, name,
                         (int)t->dtype);
    if (t->rank < 1 || t->rank > DRS_MAX_RANK)
        return drs__fail(DRS_ERR_SHAPE, "%s: %s rank must be in [1, %d], got %d", op, name,
                         DRS_MAX_RANK, t->rank);
    int64_t n;
    drs_status s = drs__check_extents(op, name, t->rank, t->shape, drs_dtype_size(t->dtype), &n);
    if (s != DRS_OK)
        return s;
    if (n > 0 && !t->data)
        return drs__fail(DRS_ERR_INVALID_ARGUMENT, "%s: %s: data pointer is NULL for %lld elements",
                         op, name, (long long)n);
    if (numel)
        *numel = n;
    return DRS_OK;
}

int drs__overlaps(const drs_tensor *a, const drs_tensor *b)
{
    int64_t na = 1, nb = 1;
    for (int i = 0; i < a->rank; i++)
        na *= a->shape[i];
    for (int i = 0; i < b->rank; i++)
        nb *= b->shape[i];
    if (na == 0 || nb == 0)
        return 0;
    const uintptr_t a0 = (uintptr_t)a->data, a1 = a0 + (uintptr_t)na * drs_dtype_size(a->dtype);
    const uintptr_t b0 = (uintptr_t)b->data, b1 = b0 + (uintptr_t)nb * drs_dtype_size(b->dtype);
    return a0 < b1 && b0 < a1;
}

/* ---- enum spellings: the op documents' strings ---- */
static const char *const interp_mode_names[] = {"nearest", "linear", "linear_onnx", "cubic",
                                                "area", "bilinear_pillow", "bicubic_pillow"};
static const char *const coord_mode_names[] = {"half_pixel",    "pytorch_half_pixel",
                                               "asymmetric",    "tf_half_pixel_for_nn",
                                               "align_corners", "tf_crop_and_resize",
                                               "half_pixel_symmetric"};
static const char *const nearest_mode_names[] = {"round_prefer_floor", "round_prefer_ceil",
                                                 "floor", "ceil", "simple"};
static const char *const shape_calc_names[] = {"sizes", "scales"};
static const char *const aspect_names[] = {"stretch", "not_larger", "not_smaller"};
static const char *const torch_mode_names[] = {"nearest", "nearest-exact", "linear",   "bilinear",
                                               "bicubic", "trilinear",     "area"};

static int lookup(const char *s, const char *const *names, int n)
{
    if (!s)
        return -1;
    for (int i = 0; i < n; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

#define NAMES(a) a, (int)(sizeof(a) / sizeof(a[0]))
int drs_interp_mode_from_str(const char *s) { return lookup(s, NAMES(interp_mode_names)); }
int drs_coord_mode_from_str(const char *s) { return lookup(s, NAMES(coord_mode_names)); }
int drs_nearest_mode_from_str(const char *s) { return lookup(s, NAMES(nearest_mode_names)); }
int drs_shape_calc_from_str(const char *s) { return lookup(s, NAMES(shape_calc_names)); }
int drs_aspect_policy_from_str(const char *s) { return lookup(s, NAMES(aspect_names)); }
int drs_torch_mode_from_str(const char *s) { return lookup(s, NAMES(torch_mode_names)); }

static const char *name_of(int v, const char *const *names, int n)
{
    return (v >= 0 && v < n) ? names[v] : "?";
}
const char *drs_interp_mode_str(drs_interp_mode m)
{
    return name_of((int)m, NAMES(interp_mode_names));
}
const char *drs_coord_mode_str(drs_coord_mode m) { return name_of((int)m, NAMES(coord_mode_names)); }
const char *drs_nearest_mode_str(drs_nearest_mode m)
{
    return name_of((int)m, NAMES(nearest_mode_names));
}
