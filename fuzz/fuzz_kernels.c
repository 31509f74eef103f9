/* SPDX-License-Identifier: MIT */
/* fuzz_kernels.c — the size-dependent kernel paths and the error paths of
 * valid-looking calls.  Bytes are decoded into mostly valid Resize,
 * Interpolate (pads on every axis) and GridSample calls whose shapes mix
 * small extents with wide ones (up to 4100: the long-row, chunked and
 * channels-last paths of the passes and their backward), integer dtypes
 * (rounded passes), GridSample with 13+ channels (the per-channel-group
 * scatter of the data gradient), and, for one leading byte value, a nearest
 * upsampling to a 32 MiB output (the streamed gather; each of its three
 * variants runs once per process, as it takes some 30 ms).  Each call runs
 * forward and backward, optionally with
 *  - an allocation failure injected at the k-th allocation of the library
 *    (drs_debug_fail_allocation): the call must return DRS_ERR_NOMEM or
 *    succeed, and write nothing when it fails;
 *  - one wrong argument (output_delta of another dtype or rank, a gradient
 *    of the wrong shape, a gradient overlapping output_delta, NULL attrs):
 *    the call must refuse it and write nothing.
 * A crash, UB, leak, a refused valid call or a write on error is a finding.
 * Tensors are capped at 16 K elements, so one input runs in about a
 * millisecond. */
#include "dresample.h"
#include "fuzz_common.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CAP ((int64_t)1 << 14) /* elements of any tensor we allocate */
#define FILL 0xA5              /* the bytes of an output before a call */

static int64_t numel_capped(int rank, const int64_t *shape, int64_t cap)
{
    int64_t n = 1;
    for (int i = 0; i < rank; i++) {
        if (shape[i] < 0 || shape[i] > cap)
            return -1;
        n *= shape[i];
        if (n > cap)
            return -1;
    }
    return n;
}

/* an extent: mostly 1..6, sometimes wide (long rows, channels-last) */
static int64_t wdim(fz *f)
{
    static const int64_t wide[8] = {13, 17, 33, 64, 255, 1031, 2049, 4100};
    const uint8_t b = fz_u8(f);
    return b < 216 ? 1 + b % 6 : wide[b % 8];
}

static double scale_of(fz *f)
{
    static const double s[16] = {0.25, 0.5, 0.6, 0.75, 1.0, 1.0, 1.25, 1.5,
                                 2.0,  2.0, 2.5, 3.0,  4.0, 0.3, 0.9, 1.1};
    return s[fz_u8(f) % 16];
}

/* a tensor of the given shape filled from the input (small values) */
static void *make(drs_tensor *t, drs_dtype dt, int rank, const int64_t *shape, fz *f)
{
    t->dtype = dt;
    t->rank = rank;
    memset(t->shape, 0, sizeof t->shape);
    for (int i = 0; i < rank; i++)
        t->shape[i] = shape[i];
    const int64_t n = numel_capped(rank, shape, CAP);
    const size_t es = drs_dtype_size(dt);
    unsigned char *b = fz_alloc((size_t)n * es);
    for (int64_t i = 0; i < n; i++) {
        const int8_t v = (int8_t)fz_u8(f);
        switch (dt) {
        case DRS_F32: ((float *)(void *)b)[i] = (float)v / 16.0f; break;
        case DRS_F64: ((double *)(void *)b)[i] = (double)v / 16.0; break;
        case DRS_U8: b[i] = (unsigned char)v; break;
        case DRS_I8: ((int8_t *)(void *)b)[i] = v; break;
        case DRS_I32: ((int32_t *)(void *)b)[i] = v * 1000; break;
        default: ((int64_t *)(void *)b)[i] = (int64_t)v * ((int64_t)1 << 40); break;
        }
    }
    t->data = b;
    return b;
}

/* an output tensor, every byte FILL */
static void *make_out(drs_tensor *t, drs_dtype dt, int rank, const int64_t *shape)
{
    t->dtype = dt;
    t->rank = rank;
    memset(t->shape, 0, sizeof t->shape);
    for (int i = 0; i < rank; i++)
        t->shape[i] = shape[i];
    int64_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= shape[i];
    const size_t bytes = (size_t)n * drs_dtype_size(dt);
    void *b = fz_alloc(bytes);
    if (bytes)
        memset(b, FILL, bytes);
    t->data = b;
    return b;
}

/* a finding: what went wrong and the library's last message, then a trap */
static void finding(const char *what)
{
    fprintf(stderr, "fuzz_kernels: %s (last error: %s)\n", what, drs_last_error());
    __builtin_trap();
}

static int untouched(const void *p, size_t bytes)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < bytes; i++)
        if (b[i] != FILL)
            return 0;
    return 1;
}

static size_t nbytes(const drs_tensor *t)
{
    int64_t n = 0;
    drs_tensor_numel(t, &n);
    return (size_t)n * drs_dtype_size(t->dtype);
}

/* A call's status with the injected failure (fail >= 0) or the wrong argument
 * (bad): a refusal must leave outs untouched (FILL: sizes[i] bytes at
 * outs[i]->data, the size it was allocated with) and carry the right code. */
static void check(drs_status s, int fail, int bad, drs_tensor *const *outs, const size_t *sizes,
                  int nouts)
{
    if (s == DRS_OK) {
        if (bad)
            finding("a wrong argument accepted");
        return;
    }
    if (!bad && fail < 0)
        finding("a valid call refused");
    if (!bad && s != DRS_ERR_NOMEM)
        finding("an injected allocation failure reported as another status");
    for (int i = 0; i < nouts; i++)
        if (outs[i] && outs[i]->data && !untouched(outs[i]->data, sizes[i]))
            finding("an output written on error");
}

/* The wrong argument of a backward call, from the byte w (0: none): returns
 * 1 when one was planted in *dy or *dx (or attrs is to be NULL: *null_attrs),
 * 2 when dx was made to overlap dy (then dx's bytes are dy's: not checked). */
static int plant(uint8_t w, drs_tensor *dy, drs_tensor *dx, int *null_attrs)
{
    *null_attrs = 0;
    switch (w) {
    case 1: dy->dtype = dy->dtype == DRS_F32 ? DRS_F64 : DRS_F32; return 1;
    case 2: dy->rank = dy->rank > 1 ? dy->rank - 1 : 2; return 1;
    case 3:
        if (!dx)
            return 0;
        dx->shape[0] += 1;
        return 1;
    case 4:
        if (!dx || !dx->data || !dy->data || dx->dtype != dy->dtype || nbytes(dx) != nbytes(dy))
            return 0;
        dx->data = dy->data; /* overlaps output_delta */
        return 2;
    case 5: *null_attrs = 1; return 1;
    default: return 0;
    }
}

/* The spellings of a call's enums and status (no bytes read): every name the
 * library gives must read back as the same value. */
static void spellings(drs_status s, int mode, int coord, int nearest)
{
    if (!drs_status_str(s)[0])
        finding("an empty status string");
    if (mode >= 0 && drs_interp_mode_from_str(drs_interp_mode_str((drs_interp_mode)mode)) != mode)
        finding("interp mode spelling does not read back");
    if (coord >= 0 && drs_coord_mode_from_str(drs_coord_mode_str((drs_coord_mode)coord)) != coord)
        finding("coordinate mode spelling does not read back");
    if (nearest >= 0 &&
        drs_nearest_mode_from_str(drs_nearest_mode_str((drs_nearest_mode)nearest)) != nearest)
        finding("nearest mode spelling does not read back");
}

/* ---- Resize and Interpolate ---- */
static void resample(fz *f, int interp, int fail_fwd, int fail_bwd, uint8_t wrong)
{
    const int rank = 2 + fz_u8(f) % 3;
    int64_t xs[DRS_MAX_RANK] = {0};
    for (int i = 0; i < rank; i++)
        xs[i] = wdim(f);
    const drs_dtype dt = (drs_dtype)(fz_u8(f) % 6);
    /* axes: all, the last two, the last one, or the two before the last */
    const int axsel = fz_u8(f) % 4;
    int64_t axes[DRS_MAX_RANK];
    int nax = 0;
    if (axsel == 1 || (axsel == 3 && rank < 3)) {
        axes[0] = rank - 2, axes[1] = rank - 1, nax = 2;
    } else if (axsel == 2) {
        axes[0] = rank - 1, nax = 1;
    } else if (axsel == 3) {
        axes[0] = rank - 3, axes[1] = rank - 2, nax = 2;
    }
    if (interp && !nax && fz_u8(f) & 1) /* Interpolate-1 needs axes: sometimes all of them */
        for (int i = 0; i < rank; i++)
            axes[i] = i, nax = rank;
    const int np = nax ? nax : rank;
    double scales[DRS_MAX_RANK], roi[2 * DRS_MAX_RANK];
    int64_t sizes[DRS_MAX_RANK];
    for (int i = 0; i < np; i++) {
        scales[i] = scale_of(f);
        const int64_t L = xs[nax ? axes[i] : i];
        sizes[i] = fz_u8(f) < 200 ? (int64_t)((double)L * scales[i]) + (fz_u8(f) & 1) : wdim(f);
        if (sizes[i] < 1)
            sizes[i] = 1;
    }
    for (int i = 0; i < 2 * np; i++)
        roi[i] = (double)(fz_u8(f) % 17) / 16.0;
    const int use_scales = fz_u8(f) & 1;

    drs_resize_attrs ra;
    drs_resize_inputs ri;
    drs_interpolate_attrs ia;
    drs_interpolate_inputs ii;
    drs_tensor X;
    int orank = 0;
    int64_t os[DRS_MAX_RANK];
    drs_status s;
    if (numel_capped(rank, xs, CAP) < 0)
        return;
    void *xb = make(&X, dt, rank, xs, f);
    if (!interp) {
        static const int v[5] = {10, 11, 13, 18, 19};
        ra = drs_resize_attrs_default(v[fz_u8(f) % 5]);
        ra.mode = (drs_interp_mode)(fz_u8(f) % 4); /* nearest, linear, linear_onnx, cubic */
        if (ra.mode == DRS_MODE_LINEAR_ONNX)
            ra.mode = DRS_MODE_LINEAR;
        ra.coordinate_transformation_mode = (drs_coord_mode)(fz_u8(f) % 7);
        ra.nearest_mode = (drs_nearest_mode)(fz_u8(f) % 4);
        ra.cubic_coeff_a = fz_u8(f) & 1 ? -0.5 : -0.75;
        ra.exclude_outside = fz_u8(f) & 1;
        ra.extrapolation_value = (double)(int8_t)fz_u8(f) / 16.0;
        if (ra.opset >= 18) {
            ra.antialias = fz_u8(f) & 1;
            ra.keep_aspect_ratio_policy = (drs_aspect_policy)(fz_u8(f) % 3);
            ra.n_axes = nax;
            for (int i = 0; i < nax; i++)
                ra.axes[i] = axes[i] - (fz_u8(f) & 1 ? rank : 0); /* negative axes too */
        }
        const int n1d = ra.opset >= 18 ? np : rank;
        double sc[DRS_MAX_RANK], rr[2 * DRS_MAX_RANK];
        int64_t sz[DRS_MAX_RANK];
        for (int i = 0; i < rank; i++) { /* without axes: scale 1 on the others */
            const int k = ra.opset >= 18 || !nax ? i : -1;
            sc[i] = 1.0, sz[i] = xs[i], rr[i] = 0.0, rr[rank + i] = 1.0;
            for (int j = 0; j < nax && k < 0; j++)
                if (axes[j] == i)
                    sc[i] = scales[j], sz[i] = sizes[j], rr[i] = roi[j], rr[rank + i] = roi[np + j];
            if (k >= 0 && k < np)
                sc[i] = scales[k], sz[i] = sizes[k], rr[i] = roi[k], rr[n1d + i] = roi[np + k];
        }
        if (n1d == np && nax) /* axes attribute: the roi halves are np apart */
            for (int i = 0; i < np; i++)
                rr[i] = roi[i], rr[np + i] = roi[np + i];
        ri = (drs_resize_inputs){ra.coordinate_transformation_mode == DRS_COORD_TF_CROP_AND_RESIZE
                                     ? rr
                                     : NULL,
                                 ra.coordinate_transformation_mode == DRS_COORD_TF_CROP_AND_RESIZE
                                     ? 2 * n1d
                                     : 0,
                                 use_scales ? sc : NULL, use_scales ? n1d : 0,
                                 use_scales ? NULL : sz, use_scales ? 0 : n1d};
        s = drs_resize_infer_shape(&ra, &X, &ri, &orank, os);
        if (s == DRS_OK) {
            memcpy(scales, sc, sizeof sc);
            memcpy(roi, rr, sizeof rr);
            memcpy(sizes, sz, sizeof sz);
            ri.scales = ri.scales ? scales : NULL;
            ri.sizes = ri.sizes ? sizes : NULL;
            ri.roi = ri.roi ? roi : NULL;
        }
    } else {
        static const int v[3] = {1, 4, 11};
        ia = drs_interpolate_attrs_default(v[fz_u8(f) % 3]);
        ia.mode = (drs_interp_mode)(fz_u8(f) % 7);
        ia.shape_calculation_mode = use_scales && ia.version != 1 ? DRS_SHAPE_SCALES : DRS_SHAPE_SIZES;
        ia.coordinate_transformation_mode = (drs_coord_mode)(fz_u8(f) % 5);
        ia.nearest_mode = (drs_nearest_mode)(fz_u8(f) % 5);
        ia.antialias = fz_u8(f) & 1;
        ia.align_corners = fz_u8(f) & 1;
        ia.cube_coeff = fz_u8(f) & 1 ? -0.5 : -0.75;
        const uint8_t pads = fz_u8(f);
        ia.n_pads_begin = ia.n_pads_end = pads & 1 ? rank : 0;
        for (int i = 0; i < rank; i++) {
            ia.pads_begin[i] = fz_u8(f) % 3;
            ia.pads_end[i] = fz_u8(f) % 3;
        }
        ii = (drs_interpolate_inputs){sizes, np, scales, np, nax ? axes : NULL, nax};
        s = drs_interpolate_infer_shape(&ia, &X, &ii, &orank, os);
    }
    if (s != DRS_OK || numel_capped(orank, os, CAP) < 0) {
        free(xb);
        return;
    }

    /* forward */
    drs_tensor Y;
    void *yb = make_out(&Y, dt, orank, os);
    drs_tensor *outs[1] = {&Y};
    size_t osz[1] = {nbytes(&Y)};
    drs_debug_fail_allocation(fail_fwd);
    s = interp ? drs_interpolate_forward(&Y, &X, &ii, &ia) : drs_resize_forward(&Y, &X, &ri, &ra);
    drs_debug_fail_allocation(-1);
    check(s, fail_fwd, 0, outs, osz, 1);
    if (interp)
        spellings(s, (int)ia.mode, (int)ia.coordinate_transformation_mode, (int)ia.nearest_mode);
    else
        spellings(s, (int)ra.mode, (int)ra.coordinate_transformation_mode, (int)ra.nearest_mode);

    /* backward (float types; every requested gradient) */
    if (dt == DRS_F32 || dt == DRS_F64) {
        drs_tensor DY, DX;
        void *dyb = make(&DY, dt, orank, os, f);
        void *dxb = make_out(&DX, dt, rank, xs);
        const uint8_t want = fz_u8(f);
        const drs_grad_mode gm = (drs_grad_mode)(want >> 7);
        double ds[DRS_MAX_RANK], dr[2 * DRS_MAX_RANK];
        int null_attrs;
        osz[0] = nbytes(&DX);
        const int bad = plant(wrong, &DY, want & 1 ? &DX : NULL, &null_attrs);
        outs[0] = want & 1 ? &DX : NULL;
        drs_debug_fail_allocation(bad ? -1 : fail_bwd);
        if (interp) {
            const drs_interpolate_attrs *a = null_attrs ? NULL : &ia;
            if (want & 4 && ia.version == 4)
                s = drs_interpolate_backprop(want & 1 ? &DX : NULL,
                                             want & 2 && ia.shape_calculation_mode == DRS_SHAPE_SCALES
                                                 ? ds
                                                 : NULL,
                                             &X, &DY, &ii, a, gm);
            else
                s = drs_interpolate_backward(want & 1 ? &DX : NULL, want & 2 ? ds : NULL, &DY, &X,
                                             &ii, a, gm);
        } else {
            s = drs_resize_backward(want & 1 ? &DX : NULL, want & 2 && ri.scales ? ds : NULL,
                                    want & 4 && ri.roi ? dr : NULL, &DY, &X, &ri,
                                    null_attrs ? NULL : &ra, gm);
        }
        drs_debug_fail_allocation(-1);
        /* accumulate mode adds to FILL bytes; only overwrite is checked for writes */
        check(s, bad ? -1 : fail_bwd, bad, outs, osz, gm == DRS_GRAD_OVERWRITE && bad != 2);
        free(dyb);
        free(dxb);
    }
    free(yb);
    free(xb);
}

/* ---- GridSample (many channels: the scatter scheme) ---- */
static void grid(fz *f, int fail_fwd, int fail_bwd, uint8_t wrong)
{
    static const int v[4] = {9, 16, 20, 22};
    drs_grid_sample_attrs a = drs_grid_sample_attrs_default(v[fz_u8(f) % 4]);
    a.mode = (drs_grid_mode)(fz_u8(f) % 3);
    a.padding_mode = (drs_grid_padding)(fz_u8(f) % 3);
    a.align_corners = fz_u8(f) & 1;
    const int S = a.version >= 20 ? 1 + fz_u8(f) % 3 : 2;
    const drs_dtype dt = fz_u8(f) & 1 ? DRS_F64 : DRS_F32;
    const drs_dtype gt = fz_u8(f) & 1 ? DRS_F64 : DRS_F32;
    int64_t xs[DRS_MAX_RANK], gs[DRS_MAX_RANK], ys[DRS_MAX_RANK];
    xs[0] = gs[0] = ys[0] = 1 + fz_u8(f) % 2;
    const uint8_t c = fz_u8(f);
    xs[1] = ys[1] = c < 128 ? 1 + c % 4 : 13 + c % 8;
    for (int k = 0; k < S; k++) {
        xs[2 + k] = fz_u8(f) < 230 ? 1 + fz_u8(f) % 6 : 1 + fz_u8(f) % 64;
        gs[1 + k] = ys[2 + k] = 1 + fz_u8(f) % 5;
    }
    gs[S + 1] = S;
    if (numel_capped(S + 2, xs, CAP) < 0 || numel_capped(S + 2, ys, CAP) < 0)
        return;
    drs_tensor X, G, Y, DY, DX, DG;
    void *xb = make(&X, dt, S + 2, xs, f);
    /* grid: coordinates in [-1.2, 1.2], sometimes a special value */
    void *gb = make(&G, gt, S + 2, gs, f);
    int64_t ng = 0;
    drs_tensor_numel(&G, &ng);
    for (int64_t i = 0; i < ng; i++) {
        const uint8_t b = fz_u8(f);
        double g = (double)(int8_t)b / 106.0;
        if (b == 0x7f)
            g = 1e300;
        if (gt == DRS_F64)
            ((double *)gb)[i] = g;
        else
            ((float *)gb)[i] = (float)g;
    }
    void *yb = make_out(&Y, dt, S + 2, ys);
    drs_tensor *outs[2] = {&Y, NULL};
    size_t sizes[2] = {nbytes(&Y), 0};
    drs_debug_fail_allocation(fail_fwd);
    drs_status s = drs_grid_sample_forward(&Y, &X, &G, &a);
    drs_debug_fail_allocation(-1);
    check(s, fail_fwd, 0, outs, sizes, 1);
    spellings(s, -1, -1, -1);
    if (drs_grid_mode_from_str(drs_grid_mode_str(a.mode, a.version)) != (int)a.mode ||
        drs_grid_padding_from_str(drs_grid_padding_str(a.padding_mode)) != (int)a.padding_mode)
        finding("GridSample mode or padding spelling does not read back");

    void *dyb = make(&DY, dt, S + 2, ys, f);
    void *dxb = make_out(&DX, dt, S + 2, xs);
    void *dgb = make_out(&DG, gt, S + 2, gs);
    const uint8_t want = fz_u8(f);
    const drs_grad_mode gm = (drs_grad_mode)(want >> 7);
    int null_attrs;
    sizes[0] = nbytes(&DX);
    sizes[1] = nbytes(&DG);
    const int bad = plant(wrong, &DY, want & 1 ? &DX : NULL, &null_attrs);
    outs[0] = want & 1 ? &DX : NULL;
    outs[1] = want & 2 ? &DG : NULL;
    drs_debug_fail_allocation(bad ? -1 : fail_bwd);
    s = drs_grid_sample_backward(outs[0], outs[1], &DY, &X, &G, null_attrs ? NULL : &a, gm);
    drs_debug_fail_allocation(-1);
    check(s, bad ? -1 : fail_bwd, bad, outs, sizes, gm == DRS_GRAD_OVERWRITE && bad != 2 ? 2 : 0);
    free(xb), free(gb), free(yb), free(dyb), free(dxb), free(dgb);
}

/* ---- a nearest upsampling to a 32 MiB output: the streamed gather ---- */
static void stream(fz *f)
{
    static void *yb; /* allocated once: 32 MiB, kept for the process */
    static int done[3];
    const size_t bytes = (size_t)32 << 20;
    const uint8_t k = fz_u8(f) % 3;
    if (done[k]) /* each variant once per process: its paths do not depend on the bytes */
        return;
    done[k] = 1;
    if (!yb && !(yb = malloc(bytes)))
        return;
    /* f32: 8 Mi elements; rows of 4096 (row buffers), of 131072 (none), or an
     * untouched last axis (rows copied) */
    int64_t xs[4] = {1, 2, 2, 2}, ys[4] = {1, 2, 1024, 4096};
    if (k == 1)
        ys[2] = 32, ys[3] = 131072;
    if (k == 2)
        xs[3] = ys[3] = 4096, xs[2] = 2, ys[2] = 1024;
    drs_tensor X, Y = {DRS_F32, 4, {ys[0], ys[1], ys[2], ys[3]}, yb};
    void *xb = make(&X, DRS_F32, 4, xs, f);
    drs_resize_attrs ra = drs_resize_attrs_default(19);
    ra.nearest_mode = (drs_nearest_mode)(fz_u8(f) % 4);
    const drs_resize_inputs ri = {NULL, 0, NULL, 0, ys, 4};
    if (drs_resize_forward(&Y, &X, &ri, &ra) != DRS_OK)
        __builtin_trap();
    /* every output element is one of the input's */
    const float *y = yb, *x = xb;
    for (int64_t i = 0; i < 8; i++) {
        const int64_t o = (int64_t)(fz_u64(f) % ((uint64_t)bytes / 4));
        int hit = 0;
        for (int64_t j = 0; j < xs[0] * xs[1] * xs[2] * xs[3] && !hit; j++)
            hit = y[o] == x[j] || (y[o] != y[o] && x[j] != x[j]);
        if (!hit)
            __builtin_trap();
    }
    free(xb);
}

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size)
{
    fz f = {bytes, size};
    const uint8_t target = fz_u8(&f);
    drs_set_num_threads(1 + (fz_u8(&f) & 1));
    /* an allocation failure: at the k-th allocation of the forward or backward */
    const uint8_t af = fz_u8(&f);
    const int fail_fwd = af < 24 ? af % 8 : -1, fail_bwd = af >= 24 && af < 48 ? af % 8 : -1;
    const uint8_t w = fz_u8(&f);
    const uint8_t wrong = w < 40 ? 1 + w % 5 : 0;
    if (target == 255)
        stream(&f);
    else if (target % 3 == 2)
        grid(&f, fail_fwd, fail_bwd, wrong);
    else
        resample(&f, target % 3, fail_fwd, fail_bwd, wrong);
    return 0;
}
