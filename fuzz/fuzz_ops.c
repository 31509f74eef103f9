/* SPDX-License-Identifier: MIT */
/* fuzz_ops.c — the op runner: bytes decoded into an op (every Interpolate and
 * Resize version, TorchInterpolate, InterpolateBackprop-4, GridSample
 * 9/16/20/22), its attributes (raw enum integers included), shapes, dtype,
 * scales/sizes/roi/axes (raw double bits included) and data, run through the
 * public API: shape inference, forward, and backward with a random subset of
 * gradients, overwrite or accumulate.  Tensors are allocated from the shape
 * the harness passes, so a call that accepted a wrong shape and wrote by its
 * own plan would be caught by ASan.  Sizes are capped so one input runs in
 * microseconds; shape inference alone also sees the huge values. */
#include "dresample.h"
#include "fuzz_common.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CAP ((int64_t)1 << 14) /* elements of any tensor we allocate */

static int64_t numel_capped(int rank, const int64_t *shape)
{
    int64_t n = 1;
    for (int i = 0; i < rank; i++) {
        if (shape[i] < 0 || shape[i] > CAP)
            return -1;
        n *= shape[i];
        if (n > CAP)
            return -1;
    }
    return n;
}

static void *alloc_tensor(drs_tensor *t, drs_dtype dt, int rank, const int64_t *shape, fz *f)
{
    t->dtype = dt;
    t->rank = rank;
    memset(t->shape, 0, sizeof t->shape);
    for (int i = 0; i < rank && i < DRS_MAX_RANK; i++)
        t->shape[i] = shape[i];
    const int64_t n = numel_capped(rank < 0 || rank > DRS_MAX_RANK ? 0 : rank, shape);
    const size_t es = drs_dtype_size(dt) ? drs_dtype_size(dt) : 1;
    /* n < 0: a shape too large to allocate, passed with one element's room (the
     * library must refuse it); n == 0: NULL, as the API allows */
    const size_t bytes = (size_t)(n != 0 ? (n > 0 ? n : 1) : 0) * es;
    unsigned char *b = fz_alloc(bytes);
    if (b)
        fz_bytes(f, b, bytes);
    t->data = b;
    return b;
}

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size)
{
    fz f = {bytes, size};
    drs_set_num_threads(1 + fz_u8(&f) % 3);
    const int family = fz_u8(&f) % 5; /* interpolate, resize, torch, backprop, grid */
    const drs_dtype dt = (drs_dtype)(fz_u8(&f) % 7); /* 6 = invalid */
    int rank = 1 + fz_u8(&f) % 6;
    if (fz_u8(&f) == 255)
        rank = (int)(int8_t)fz_u8(&f); /* any rank, negative included */
    int64_t xs[DRS_MAX_RANK] = {0};
    for (int i = 0; i < DRS_MAX_RANK; i++)
        xs[i] = fz_dim(&f);
    const int R = rank >= 1 && rank <= DRS_MAX_RANK ? rank : 1;
    drs_tensor X;
    void *xb = alloc_tensor(&X, dt, R, xs, &f);
    X.rank = rank;
    if (numel_capped(R, xs) < 0)
        X.data = xb; /* huge shape: infer_shape only (never read) */

    /* the 1-D inputs hold up to 2x the rank limit, and their counts reach past it
     * (a library that trusted a count would read or write out of bounds) */
    enum { MAXN = 2 * DRS_MAX_RANK };
    double scales[MAXN], roi[2 * MAXN];
    int64_t sizes[MAXN], axes[MAXN];
    for (int i = 0; i < MAXN; i++) {
        scales[i] = fz_scale(&f);
        sizes[i] = fz_dim(&f);
        axes[i] = (int64_t)(int8_t)fz_u8(&f) % 10;
        roi[i] = fz_u8(&f) < 240 ? (double)fz_u8(&f) / 255.0 : fz_f64(&f);
        roi[MAXN + i] = fz_u8(&f) < 240 ? (double)fz_u8(&f) / 255.0 : fz_f64(&f);
    }
    const int n_scales = fz_u8(&f) % (MAXN + 1), n_sizes = fz_u8(&f) % (MAXN + 1);
    const int n_axes = fz_u8(&f) % (MAXN + 1), n_roi = fz_u8(&f) % (2 * MAXN + 1);
    const uint8_t absent = fz_u8(&f);

    int orank = 0;
    int64_t os[DRS_MAX_RANK] = {0};
    drs_status s = DRS_ERR_INVALID_ARGUMENT;
    drs_interpolate_attrs ia;
    drs_interpolate_inputs ii;
    drs_resize_attrs ra;
    drs_resize_inputs ri;
    drs_torch_interpolate_attrs ta;
    drs_grid_sample_attrs ga;
    drs_tensor G;
    void *gb = NULL;
    switch (family) {
    case 0:
    case 3: {
        const int v[3] = {1, 4, 11};
        ia = drs_interpolate_attrs_default(family == 3 ? 4 : v[fz_u8(&f) % 3]);
        ia.mode = (drs_interp_mode)(fz_u8(&f) % 9 - 1);
        ia.shape_calculation_mode = (drs_shape_calc)(fz_u8(&f) % 3);
        ia.coordinate_transformation_mode = (drs_coord_mode)(fz_u8(&f) % 8);
        ia.nearest_mode = (drs_nearest_mode)(fz_u8(&f) % 6);
        ia.antialias = fz_u8(&f) % 3;
        ia.align_corners = fz_u8(&f) % 3;
        ia.n_pads_begin = fz_u8(&f) % 10;
        ia.n_pads_end = fz_u8(&f) % 10;
        for (int i = 0; i < DRS_MAX_RANK; i++) {
            ia.pads_begin[i] = (int64_t)(int8_t)fz_u8(&f) % 4;
            ia.pads_end[i] = (int64_t)(int8_t)fz_u8(&f) % 4;
        }
        ia.cube_coeff = fz_u8(&f) < 250 ? -0.75 : fz_f64(&f);
        ii = (drs_interpolate_inputs){absent & 1 ? NULL : sizes, n_sizes,
                                      absent & 2 ? NULL : scales, n_scales,
                                      absent & 4 ? NULL : axes, n_axes};
        s = drs_interpolate_infer_shape(&ia, &X, &ii, &orank, os);
        break;
    }
    case 1: {
        const int v[5] = {10, 11, 13, 18, 19};
        ra = drs_resize_attrs_default(v[fz_u8(&f) % 5]);
        ra.mode = (drs_interp_mode)(fz_u8(&f) % 6 - 1);
        ra.coordinate_transformation_mode = (drs_coord_mode)(fz_u8(&f) % 9 - 1);
        ra.nearest_mode = (drs_nearest_mode)(fz_u8(&f) % 6);
        ra.cubic_coeff_a = fz_u8(&f) < 250 ? -0.75 : fz_f64(&f);
        ra.exclude_outside = fz_u8(&f) % 3;
        ra.extrapolation_value = fz_u8(&f) < 250 ? 0.0 : fz_f64(&f);
        ra.antialias = fz_u8(&f) % 3;
        ra.keep_aspect_ratio_policy = (drs_aspect_policy)(fz_u8(&f) % 4);
        ra.n_axes = fz_u8(&f) % 10;
        for (int i = 0; i < DRS_MAX_RANK; i++)
            ra.axes[i] = axes[i];
        ri = (drs_resize_inputs){absent & 1 ? NULL : roi, n_roi, absent & 2 ? NULL : scales,
                                 n_scales, absent & 4 ? NULL : sizes, n_sizes};
        s = drs_resize_infer_shape(&ra, &X, &ri, &orank, os);
        break;
    }
    case 2:
        ta = drs_torch_interpolate_attrs_default();
        ta.mode = (drs_torch_mode)(fz_u8(&f) % 8);
        ta.n_size = fz_u8(&f) % 5;
        ta.n_scale_factor = fz_u8(&f) % 5;
        for (int i = 0; i < 3; i++) {
            ta.size[i] = sizes[i];
            ta.scale_factor[i] = scales[i];
        }
        ta.align_corners = fz_u8(&f) % 4 - 1;
        ta.antialias = fz_u8(&f) % 3;
        ta.recompute_scale_factor = fz_u8(&f) % 4 - 1;
        s = drs_torch_interpolate_infer_shape(&ta, &X, &orank, os);
        break;
    default: {
        const int v[5] = {9, 16, 20, 22, 7};
        ga = drs_grid_sample_attrs_default(v[fz_u8(&f) % 5]);
        ga.mode = (drs_grid_mode)(fz_u8(&f) % 4);
        ga.padding_mode = (drs_grid_padding)(fz_u8(&f) % 4);
        ga.align_corners = fz_u8(&f) % 3;
        int64_t gs[DRS_MAX_RANK];
        gs[0] = fz_u8(&f) < 250 ? xs[0] : fz_dim(&f);
        for (int i = 1; i < DRS_MAX_RANK; i++)
            gs[i] = fz_dim(&f);
        if (R >= 1 && fz_u8(&f) < 240)
            gs[R - 1] = R - 2;
        gb = alloc_tensor(&G, fz_u8(&f) & 1 ? DRS_F64 : DRS_F32, R, gs, &f);
        s = drs_grid_sample_infer_shape(&ga, &X, &G, &orank, os);
        break;
    }
    }

    if (s == DRS_OK) { /* the size-preserving intervals of the same call (no bytes read) */
        double lo[2 * MAXN], hi[2 * MAXN], rlo[4 * MAXN], rhi[4 * MAXN];
        if (family == 0 || family == 3)
            drs_interpolate_scale_range(&ia, &X, &ii, lo, hi);
        else if (family == 1)
            drs_resize_scale_range(&ra, &X, &ri, lo, hi, rlo, rhi);
        else if (family == 2)
            drs_torch_interpolate_scale_range(&ta, &X, lo, hi);
    }

    if (s == DRS_OK && numel_capped(R, xs) >= 0 && numel_capped(orank, os) >= 0 &&
        (family != 4 || numel_capped(G.rank, G.shape) >= 0)) {
        /* sometimes pass a wrong output shape: it must be rejected, never written past */
        if (fz_u8(&f) > 240 && orank > 0)
            os[fz_u8(&f) % orank] += 1;
        drs_tensor Y, DY, DX, DG;
        void *yb = alloc_tensor(&Y, fz_u8(&f) > 250 ? DRS_F64 : dt, orank, os, &f);
        void *dyb = alloc_tensor(&DY, dt, orank, os, &f);
        void *dxb = alloc_tensor(&DX, dt, R, xs, &f);
        void *dgb = family == 4 ? alloc_tensor(&DG, G.dtype, G.rank, G.shape, &f) : NULL;
        double dparam[2][2 * MAXN];
        const uint8_t want = fz_u8(&f);
        const drs_grad_mode gm = (drs_grad_mode)(fz_u8(&f) % 3);
        double *ds = want & 2 ? dparam[0] : NULL, *dr = want & 4 ? dparam[1] : NULL;
        drs_tensor *dx = want & 1 ? &DX : NULL;
        switch (family) {
        case 0:
            drs_interpolate_forward(&Y, &X, &ii, &ia);
            drs_interpolate_backward(dx, ds, &DY, &X, &ii, &ia, gm);
            break;
        case 1:
            drs_resize_forward(&Y, &X, &ri, &ra);
            drs_resize_backward(dx, ds, dr, &DY, &X, &ri, &ra, gm);
            break;
        case 2:
            drs_torch_interpolate_forward(&Y, &X, &ta);
            drs_torch_interpolate_backward(dx, &DY, &X, &ta, gm);
            break;
        case 3:
            drs_interpolate_backprop(dx, ds, &X, &DY, &ii, &ia, gm);
            break;
        default:
            drs_grid_sample_forward(&Y, &X, &G, &ga);
            drs_grid_sample_backward(dx, want & 8 ? &DG : NULL, &DY, &X, &G, &ga, gm);
            break;
        }
        free(yb);
        free(dyb);
        free(dxb);
        free(dgb);
    }
    free(xb);
    free(gb);
    return 0;
}
