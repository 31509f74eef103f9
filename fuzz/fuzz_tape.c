/* SPDX-License-Identifier: MIT */
/* fuzz_tape.c — the tape: random op sequences (failing ones included) over a
 * pool of vars, with backward, zero_grad, no-grad toggles and rewinds
 * interleaved, and drs_ag_project_scales after each backward; every status
 * is accepted, a crash, UB, leak or a failed call that changed the tape (var
 * count or arena bytes) is a finding. */
#include "dresample.h"
#include "dresample_autograd.h"
#include "fuzz_common.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define POOL 16

static int64_t small_dim(fz *f) { return 1 + fz_u8(f) % 5; }

/* The harness keeps every var small (a chain of 2x upsamplings or a matmul of
 * two long vectors would otherwise grow past the fuzzer's memory limit: that
 * is the caller's choice, not a library fault). */
static int small_var(const drs_var *v)
{
    if (!v)
        return 1;
    const drs_tensor t = drs_var_value(v);
    int64_t n;
    return drs_tensor_numel(&t, &n) == DRS_OK && n <= 4096;
}

/* ... and keeps a scales var within 4 in magnitude: a small var whose
 * values are 1e6 would ask for an output of gigabytes, past the fuzzer's
 * malloc limit (again the caller's choice; NaN and other bad values still
 * reach the library, which rejects them). */
static int small_scales(const drs_var *v)
{
    if (!v)
        return 1;
    const drs_tensor t = drs_var_value(v);
    int64_t n;
    if (drs_tensor_numel(&t, &n) != DRS_OK || !t.data)
        return 1;
    for (int64_t i = 0; i < n; i++) {
        const double x = t.dtype == DRS_F32 ? (double)((const float *)t.data)[i]
                                            : ((const double *)t.data)[i];
        if (x > 4.0 || x < -4.0)
            return 0;
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size)
{
    fz f = {bytes, size};
    drs_tape *tape = NULL;
    if (drs_tape_new(&tape) != DRS_OK)
        return 0;
    drs_var *pool[POOL] = {0};
    int npool = 0;
    drs_tape_pos start = drs_tape_tell(tape);
    for (int step = 0; step < 48 && f.n > 0; step++) {
        const uint8_t op = fz_u8(&f) % 16;
        drs_var *a = npool ? pool[fz_u8(&f) % npool] : NULL;
        drs_var *b = npool ? pool[fz_u8(&f) % npool] : NULL;
        drs_var *out = NULL;
        if (!small_var(a) || !small_var(b))
            continue;
        const int64_t nv = drs_tape_num_vars(tape);
        const size_t nb = drs_tape_bytes(tape);
        drs_status s = DRS_OK;
        switch (op) {
        case 0: { /* a new leaf (rank 1..5, f32/f64, sometimes a bad rank) */
            int rank = 1 + fz_u8(&f) % 5;
            if (fz_u8(&f) > 250)
                rank = (int)(int8_t)fz_u8(&f);
            int64_t shape[DRS_MAX_RANK];
            for (int i = 0; i < DRS_MAX_RANK; i++)
                shape[i] = small_dim(&f);
            if (fz_u8(&f) > 250) /* a size whose byte count overflows: rejected, no malloc */
                shape[0] = INT64_MAX / (1 + fz_u8(&f) % 2);
            if (fz_u8(&f) > 250)
                shape[0] = -(int64_t)fz_u8(&f);
            s = drs_var_new(&out, tape, fz_u8(&f) & 1 ? DRS_F64 : DRS_F32, rank, shape, NULL,
                            fz_u8(&f) & 1);
            if (s == DRS_OK) { /* fill with small values */
                drs_tensor v = drs_var_value(out);
                int64_t n;
                drs_tensor_numel(&v, &n);
                for (int64_t i = 0; i < n; i++) {
                    const double x = (double)(int8_t)fz_u8(&f) / 32.0;
                    if (v.dtype == DRS_F64)
                        ((double *)v.data)[i] = x;
                    else
                        ((float *)v.data)[i] = (float)x;
                }
            }
            break;
        }
        case 1: s = drs_ag_add(&out, a, b); break;
        case 2: s = drs_ag_sub(&out, a, b); break;
        case 3: s = drs_ag_mul(&out, a, b); break;
        case 4: s = drs_ag_scale(&out, a, fz_u8(&f) > 250 ? fz_f64(&f) : 0.5); break;
        case 5: s = drs_ag_relu(&out, a); break;
        case 6: s = fz_u8(&f) & 1 ? drs_ag_sum(&out, a) : drs_ag_mean(&out, a); break;
        case 7: s = drs_ag_mse_loss(&out, a, b); break;
        case 8: {
            const drs_tensor ta = a ? drs_var_value(a) : (drs_tensor){DRS_F64, 1, {0}, NULL};
            const drs_tensor tb = b ? drs_var_value(b) : (drs_tensor){DRS_F64, 1, {0}, NULL};
            int64_t na = 0, nb2 = 0;
            drs_tensor_numel(&ta, &na);
            drs_tensor_numel(&tb, &nb2);
            if (na * nb2 > ((int64_t)1 << 18)) /* an outer product of long vectors */
                continue;
            s = drs_ag_matmul(&out, a, b);
            break;
        }
        case 9: {
            const int ns = 2 + fz_u8(&f) % 2;
            int64_t sz[3] = {small_dim(&f), small_dim(&f), small_dim(&f)};
            s = drs_ag_affine_grid(&out, a, ns, sz, fz_u8(&f) % 3);
            break;
        }
        case 10: {
            drs_grid_sample_attrs ga = drs_grid_sample_attrs_default(fz_u8(&f) & 1 ? 20 : 9);
            ga.mode = (drs_grid_mode)(fz_u8(&f) % 4);
            ga.padding_mode = (drs_grid_padding)(fz_u8(&f) % 3);
            s = drs_ag_grid_sample(&out, a, b, &ga);
            break;
        }
        case 11: {
            drs_resize_attrs ra = drs_resize_attrs_default(19);
            ra.mode = (drs_interp_mode)(fz_u8(&f) % 4);
            ra.coordinate_transformation_mode = (drs_coord_mode)(fz_u8(&f) % 7);
            ra.antialias = fz_u8(&f) & 1;
            drs_var *sc = fz_u8(&f) & 1 ? b : NULL;
            if (!small_scales(sc))
                continue;
            s = drs_ag_resize(&out, a, NULL, sc, NULL, &ra);
            break;
        }
        case 12: {
            drs_interpolate_attrs ia = drs_interpolate_attrs_default(4);
            ia.mode = (drs_interp_mode)(fz_u8(&f) % 4);
            ia.shape_calculation_mode = DRS_SHAPE_SCALES;
            if (!small_scales(b))
                continue;
            s = drs_ag_interpolate(&out, a, b, NULL, &ia);
            break;
        }
        case 13: {
            drs_torch_interpolate_attrs ta = drs_torch_interpolate_attrs_default();
            ta.mode = (drs_torch_mode)(fz_u8(&f) % 7);
            ta.n_scale_factor = 1;
            ta.scale_factor[0] = 0.5 + (double)(fz_u8(&f) % 8) / 4.0;
            s = drs_ag_torch_interpolate(&out, a, &ta);
            break;
        }
        case 14: /* backward from a var (one element: loss; else with its value as dy) */
            if (a) {
                if (fz_u8(&f) & 1) {
                    drs_tape_backward(a);
                } else {
                    drs_tensor dy = drs_var_value(a);
                    drs_tape_backward_grad(a, &dy);
                }
                /* then the projection of a learned scales var (no bytes read:
                 * refused unless a was recorded by resize/interpolate with a
                 * scales var); it must not change the tape */
                const int64_t nv2 = drs_tape_num_vars(tape);
                const size_t nb2 = drs_tape_bytes(tape);
                if (drs_ag_project_scales(a) != DRS_OK &&
                    (drs_tape_num_vars(tape) != nv2 || drs_tape_bytes(tape) != nb2))
                    __builtin_trap();
            }
            continue;
        default: /* tape controls */
            switch (fz_u8(&f) % 4) {
            case 0: drs_tape_zero_grad(tape); break;
            case 1: drs_tape_set_grad_enabled(tape, !drs_tape_grad_enabled(tape)); break;
            case 2: drs_tape_rewind(tape, start); npool = 0; break;
            default: start = drs_tape_tell(tape); npool = 0; break;
            }
            continue;
        }
        if (s != DRS_OK) {
            /* a failed op records nothing */
            if (drs_tape_num_vars(tape) != nv || drs_tape_bytes(tape) != nb)
                __builtin_trap();
            continue;
        }
        if (out && npool < POOL)
            pool[npool++] = out;
        else if (out)
            pool[fz_u8(&f) % POOL] = out;
    }
    drs_tape_free(tape);
    return 0;
}
