/* SPDX-License-Identifier: MIT */
/* fuzz_tape.c — the tape: random op sequences (failing ones included) over a
 * pool of vars, with backward, zero_grad, no-grad toggles and rewinds
 * interleaved, and drs_ag_project_scales after each backward; every status
 * is accepted, a crash, UB, leak or a failed call that changed the tape (var
 * count or arena bytes) is a finding.  At start-up every refusal of the tape
 * API (NULL arguments, foreign tapes and positions, wrong dtypes, ranks,
 * shapes and scales vars) is called once and must fail without changing the
 * tape. */
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

int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Every refusal of the tape API, once at start-up (deterministic, no bytes):
 * each call must fail and leave both tapes as they were. */
#define REFUSED(call)                                                                          \
    do {                                                                                       \
        const int64_t nv_ = drs_tape_num_vars(t1);                                             \
        const size_t nb_ = drs_tape_bytes(t1);                                                 \
        if ((call) == DRS_OK || drs_tape_num_vars(t1) != nv_ || drs_tape_bytes(t1) != nb_)    \
            __builtin_trap();                                                                  \
    } while (0)

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    drs_tape *t1 = NULL, *t2 = NULL;
    if (drs_tape_new(NULL) == DRS_OK || drs_tape_new(&t1) != DRS_OK || drs_tape_new(&t2) != DRS_OK)
        __builtin_trap();
    const int64_t sh[2] = {2, 3}, one[1] = {1};
    drs_var *a = NULL, *b = NULL, *v = NULL, *sc = NULL, *sf = NULL, *y = NULL;
    if (drs_var_new(&a, t1, DRS_F64, 2, sh, NULL, 1) != DRS_OK ||
        drs_var_new(&b, t2, DRS_F64, 2, sh, NULL, 1) != DRS_OK ||
        drs_var_new(&sc, t1, DRS_F64, 1, one, NULL, 1) != DRS_OK ||
        drs_var_new(&sf, t1, DRS_F32, 1, one, NULL, 1) != DRS_OK)
        __builtin_trap();
    /* leaves */
    REFUSED(drs_var_new(NULL, t1, DRS_F64, 2, sh, NULL, 1));
    REFUSED(drs_var_new(&v, NULL, DRS_F64, 2, sh, NULL, 1));
    REFUSED(drs_var_new(&v, t1, DRS_F64, 2, NULL, NULL, 1));
    REFUSED(drs_var_new(&v, t1, DRS_F64, 2, sh, NULL, 2));
    REFUSED(drs_var_new(&v, t1, DRS_U8, 2, sh, NULL, 1));
    REFUSED(drs_var_new(&v, t1, DRS_F64, 0, sh, NULL, 1));
    REFUSED(drs_var_new(&v, t1, DRS_F64, DRS_MAX_RANK + 1, sh, NULL, 1));
    double buf[6] = {1, 2, 3, 4, 5, 6};
    drs_tensor tt = {DRS_F64, 2, {2, 3}, buf};
    REFUSED(drs_var_from_tensor(&v, t1, NULL, 0));
    tt.dtype = (drs_dtype)42;
    REFUSED(drs_var_from_tensor(&v, t1, &tt, 0));
    tt.dtype = DRS_F64, tt.rank = 0;
    REFUSED(drs_var_from_tensor(&v, t1, &tt, 0));
    tt.rank = 2, tt.shape[0] = -1;
    REFUSED(drs_var_from_tensor(&v, t1, &tt, 0));
    tt.shape[0] = INT64_MAX, tt.shape[1] = 3;
    REFUSED(drs_var_from_tensor(&v, t1, &tt, 0));
    tt.shape[0] = INT64_MAX / 4, tt.shape[1] = 1; /* the byte size overflows */
    REFUSED(drs_var_from_tensor(&v, t1, &tt, 0));
    tt.shape[0] = 2, tt.shape[1] = 3, tt.data = NULL;
    REFUSED(drs_var_from_tensor(&v, t1, &tt, 0));
    tt.data = buf;
    if (drs_var_from_tensor(&v, t1, &tt, 0) != DRS_OK || drs_var_item(v) != 1.0 ||
        drs_var_requires_grad(v) || !drs_var_is_leaf(v) || drs_var_grad(v).data ||
        drs_var_item(NULL) == drs_var_item(NULL) || drs_var_value(NULL).data ||
        drs_var_grad(NULL).data || drs_var_requires_grad(NULL) || drs_var_is_leaf(NULL))
        __builtin_trap();
    /* ops across tapes, NULL outputs and attributes, wrong scales vars */
    REFUSED(drs_ag_add(&v, a, b));
    drs_interpolate_attrs ia = drs_interpolate_attrs_default(4);
    ia.shape_calculation_mode = DRS_SHAPE_SCALES;
    const int64_t ax[1] = {1};
    const double s2[1] = {2.0};
    drs_interpolate_inputs ii = {NULL, 0, NULL, 0, ax, 1};
    REFUSED(drs_ag_interpolate(NULL, a, sc, &ii, &ia));
    REFUSED(drs_ag_interpolate(&v, a, sc, &ii, NULL));
    REFUSED(drs_ag_interpolate(&v, a, sf, &ii, &ia));
    ii.scales = s2, ii.n_scales = 1;
    REFUSED(drs_ag_interpolate(&v, a, sc, &ii, &ia));
    ii.scales = NULL, ii.n_scales = 0;
    drs_interpolate_attrs i1 = drs_interpolate_attrs_default(1);
    REFUSED(drs_ag_interpolate(&v, a, sc, &ii, &i1));
    drs_resize_attrs ra = drs_resize_attrs_default(19);
    drs_resize_inputs ri = {NULL, 0, s2, 1, NULL, 0};
    REFUSED(drs_ag_resize(NULL, a, NULL, sc, NULL, &ra));
    REFUSED(drs_ag_resize(&v, a, NULL, sc, NULL, NULL));
    REFUSED(drs_ag_resize(&v, a, NULL, sc, &ri, &ra));
    REFUSED(drs_ag_resize(&v, a, sc, NULL, NULL, &ra));
    drs_torch_interpolate_attrs ta = drs_torch_interpolate_attrs_default();
    REFUSED(drs_ag_torch_interpolate(NULL, a, &ta));
    REFUSED(drs_ag_torch_interpolate(&v, a, NULL));
    drs_grid_sample_attrs ga = drs_grid_sample_attrs_default(20);
    REFUSED(drs_ag_grid_sample(NULL, a, a, &ga));
    REFUSED(drs_ag_grid_sample(&v, a, a, NULL));
    REFUSED(drs_ag_project_scales(NULL));
    REFUSED(drs_ag_project_scales(a));
    /* backward and tape controls */
    REFUSED(drs_tape_backward(NULL));
    REFUSED(drs_tape_backward_grad(a, NULL));
    REFUSED(drs_tape_zero_grad(NULL));
    if (drs_ag_sum(&y, a) != DRS_OK)
        __builtin_trap();
    double g6[6] = {0};
    drs_tensor dy = {DRS_F32, 1, {1}, g6};
    REFUSED(drs_tape_backward_grad(y, &dy));
    dy.dtype = DRS_F64, dy.rank = 2;
    REFUSED(drs_tape_backward_grad(y, &dy));
    dy.rank = 1, dy.shape[0] = 2;
    REFUSED(drs_tape_backward_grad(y, &dy));
    const drs_tape_pos far = drs_tape_tell(t2);
    drs_var *w = NULL;
    if (drs_var_new(&w, t2, DRS_F64, 2, sh, NULL, 1) != DRS_OK)
        __builtin_trap();
    REFUSED(drs_tape_rewind(NULL, far));
    REFUSED(drs_tape_rewind(t1, far)); /* another tape's position */
    const drs_tape_pos late = drs_tape_tell(t2);
    if (drs_tape_rewind(t2, far) != DRS_OK)
        __builtin_trap();
    if (drs_tape_rewind(t2, late) == DRS_OK) /* rewound past */
        __builtin_trap();
    drs_tape_free(t1);
    drs_tape_free(t2);
    drs_tape_free(NULL);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size)
{
    fz f = {bytes, size};
    /* One tape for the process, rewound after every input to a position just
     * past an anchor var, so its first arena block stays allocated: a fresh
     * tape per input mapped and zeroed a new 1 MiB block each time (page
     * faults and memset were a third of an execution).  Every input starts
     * from the same state: that position, grad mode on. */
    static drs_tape *tape;
    static drs_tape_pos base;
    if (!tape) {
        drs_var *anchor = NULL;
        const int64_t one = 1;
        if (drs_tape_new(&tape) != DRS_OK)
            return 0;
        if (drs_var_new(&anchor, tape, DRS_F64, 1, &one, NULL, 0) != DRS_OK)
            __builtin_trap();
        base = drs_tape_tell(tape);
    }
    drs_tape_set_grad_enabled(tape, 1);
    drs_var *pool[POOL] = {0};
    int npool = 0;
    drs_tape_pos start = base;
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
    if (drs_tape_rewind(tape, base) != DRS_OK)
        __builtin_trap();
    return 0;
}
