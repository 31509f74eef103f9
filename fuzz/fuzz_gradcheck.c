/* SPDX-License-Identifier: MIT */
/* fuzz_gradcheck.c — the gradcheck module driven by bytes: an op case
 * (family, version, raw attribute enums, rank, small shapes, axes, sizes,
 * fixed scales and roi, grid shape) is decoded into a drs_gc_op, validated by
 * the library, prepared with the kink-aware sampler and checked in full or
 * fast mode with decoded options (eps, tolerances, probes, reentrancy and
 * linearity checks).  Every status and every verdict is accepted: a crash,
 * UB or leak is the finding (the gradcheck library, and the whole backward of
 * every op under the perturbed points it asks for).  Shapes stay tiny, only
 * small Jacobians are checked in full and cases whose outputs grow past
 * GC_MAX_WORK (input x output elements) are not checked, so one input runs
 * in milliseconds. */
#include "dresample.h"
#include "dresample_gradcheck.h"
#include "fuzz_common.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* the largest (input elements x output elements) whose gradient is checked */
#define GC_MAX_WORK ((int64_t)1 << 24)

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size)
{
    fz f = {bytes, size};
    const drs_gc_family fam = (drs_gc_family)(fz_u8(&f) % 5);
    static const int iv[3] = {1, 4, 11}, rv[5] = {10, 11, 13, 18, 19}, gv[4] = {9, 16, 20, 22};
    int version;
    switch (fam) {
    case DRS_GC_INTERPOLATE: version = iv[fz_u8(&f) % 3]; break;
    case DRS_GC_INTERPOLATE_BACKPROP: version = 4; break;
    case DRS_GC_RESIZE: version = rv[fz_u8(&f) % 5]; break;
    case DRS_GC_GRID_SAMPLE: version = gv[fz_u8(&f) % 4]; break;
    default: version = 0; break;
    }
    drs_gc_op op = drs_gc_op_init(fam, version);
    op.rank = 1 + fz_u8(&f) % 5;
    for (int i = 0; i < op.rank; i++)
        op.shape[i] = 1 + fz_u8(&f) % 4;
    /* attributes: raw enum values, invalid ones included (validate refuses them) */
    op.interp.mode = (drs_interp_mode)(fz_u8(&f) % 8);
    op.interp.shape_calculation_mode = (drs_shape_calc)(fz_u8(&f) % 2);
    op.interp.coordinate_transformation_mode = (drs_coord_mode)(fz_u8(&f) % 6);
    op.interp.nearest_mode = (drs_nearest_mode)(fz_u8(&f) % 5);
    op.interp.antialias = fz_u8(&f) & 1;
    op.interp.align_corners = fz_u8(&f) & 1;
    op.interp.n_pads_begin = op.interp.n_pads_end = fz_u8(&f) & 1 ? op.rank : 0;
    for (int i = 0; i < op.rank; i++) {
        op.interp.pads_begin[i] = fz_u8(&f) % 3;
        op.interp.pads_end[i] = fz_u8(&f) % 3;
    }
    if (fz_u8(&f) > 200)
        op.interp.cube_coeff = -0.5;
    op.resize.mode = (drs_interp_mode)(fz_u8(&f) % 4);
    op.resize.coordinate_transformation_mode = (drs_coord_mode)(fz_u8(&f) % 7);
    op.resize.nearest_mode = (drs_nearest_mode)(fz_u8(&f) % 4);
    op.resize.exclude_outside = fz_u8(&f) & 1;
    op.resize.antialias = fz_u8(&f) & 1;
    op.resize.extrapolation_value = (double)(int8_t)fz_u8(&f) / 8.0;
    op.resize.keep_aspect_ratio_policy = (drs_aspect_policy)(fz_u8(&f) % 3);
    op.torch.mode = (drs_torch_mode)(fz_u8(&f) % 7);
    op.torch.align_corners = (int)(fz_u8(&f) % 3) - 1;
    op.torch.antialias = fz_u8(&f) & 1;
    op.grid.mode = (drs_grid_mode)(fz_u8(&f) % 3);
    op.grid.padding_mode = (drs_grid_padding)(fz_u8(&f) % 3);
    op.grid.align_corners = fz_u8(&f) & 1;
    /* 1-D inputs */
    const int nsp = op.rank > 2 ? op.rank - 2 : 1;
    const uint8_t which = fz_u8(&f);
    if (which & 1) { /* an axes input on the trailing axes */
        op.n_axes = 1 + fz_u8(&f) % (op.rank < 3 ? op.rank : 3);
        for (int i = 0; i < op.n_axes; i++)
            op.axes[i] = op.rank - op.n_axes + i;
    }
    const int nparam = op.n_axes ? op.n_axes : op.rank;
    if (which & 2) {
        op.n_sizes = nparam;
        for (int i = 0; i < nparam; i++)
            op.sizes[i] = 1 + fz_u8(&f) % 6;
    }
    if (which & 4) {
        op.n_scales = nparam;
        for (int i = 0; i < nparam; i++) {
            op.scales[i] = 0.25 + (double)(fz_u8(&f) % 64) / 16.0;
            op.scale_fixed[i] = fz_u8(&f) > 160; /* kinks and size steps included */
        }
    }
    if (which & 8) {
        op.n_roi = 2 * op.rank;
        for (int i = 0; i < op.n_roi; i++)
            op.roi[i] = (double)(fz_u8(&f) % 17) / 16.0;
        op.roi_fixed = fz_u8(&f) & 1;
    }
    if (fam == DRS_GC_TORCH) {
        if (which & 16) {
            op.torch.n_size = nsp;
            for (int i = 0; i < nsp; i++)
                op.torch.size[i] = 1 + fz_u8(&f) % 6;
        } else {
            op.torch.n_scale_factor = nsp;
            for (int i = 0; i < nsp; i++)
                op.torch.scale_factor[i] = 0.5 + (double)(fz_u8(&f) % 16) / 8.0;
        }
    }
    if (fam == DRS_GC_GRID_SAMPLE) {
        op.grid_rank = op.rank;
        op.grid_shape[0] = op.shape[0];
        for (int i = 1; i < op.rank - 1; i++)
            op.grid_shape[i] = 1 + fz_u8(&f) % 3;
        op.grid_shape[op.rank - 1] = op.rank - 2;
    }
    if (drs_gc_op_validate(&op) != DRS_OK)
        return 0;

    drs_gc_case c;
    drs_gc_avoid avoid;
    memset(&avoid, 0, sizeof avoid);
    if (drs_gc_case_prepare(&c, &op, fz_u64(&f), &avoid) != DRS_OK)
        return 0;
    drs_gc_options o = drs_gc_options_default();
    o.fast_mode = fz_u8(&f) & 1;
    o.n_probes = 1 + fz_u8(&f) % 3;
    o.check_reentrant = fz_u8(&f) & 1;
    o.check_linearity = fz_u8(&f) & 1;
    if (fz_u8(&f) > 240)
        o.eps = 1e-3;
    drs_gc_report rep;
    /* large full Jacobians are refused by the library (and slow): fast mode
     * then, and whenever the full Jacobian has more than 2048 entries (its
     * cost: a few forwards per input element, a backward per output
     * element); small cases keep the full check */
    int64_t nin = 0;
    for (int i = 0; i < c.fn.n_inputs; i++)
        nin += c.fn.in[i].n;
    if (nin * c.fn.n_out > GC_MAX_WORK) {
        /* pads and large scales on 5 axes reach millions of outputs from a
         * tiny input: even fast mode (2 forwards per input element and
         * probe) then takes 10-40 s under ASan and stalls the campaign; the
         * forward and backward of large shapes are fuzz_ops' and
         * fuzz_kernels' inputs */
        drs_gc_case_free(&c);
        return 0;
    }
    if (c.fn.n_out > 256 || nin * c.fn.n_out > 2048) {
        o.fast_mode = 1;
        if (nin * c.fn.n_out > 16384)
            o.n_probes = 1; /* each probe is 2 forwards per input */
    }
    drs_gradcheck(&c.fn, &o, &rep);
    char desc[256];
    drs_gc_op_describe(&c.op, desc, sizeof desc);
    drs_gc_case_free(&c);
    return 0;
}
