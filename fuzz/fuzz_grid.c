/* SPDX-License-Identifier: MIT */
/* fuzz_grid.c — GridSample with arbitrary float bit patterns in the grid
 * (NaN payloads, +-inf, subnormals, 3e38, 1e308) for every version, mode,
 * padding and align_corners, 1-3 spatial axes, forward and backward.  Checks
 * beyond "no crash, no UB": outputs of a finite image are finite, and the
 * grid gradient of a non-finite coordinate is 0. */
#include "dresample.h"
#include "fuzz_common.h"

#include <math.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size)
{
    fz f = {bytes, size};
    const int S = 1 + fz_u8(&f) % 3;
    const int versions[4] = {9, 16, 20, 22};
    drs_grid_sample_attrs a = drs_grid_sample_attrs_default(S == 2 ? versions[fz_u8(&f) % 4] : 20);
    a.mode = (drs_grid_mode)(fz_u8(&f) % 3);
    a.padding_mode = (drs_grid_padding)(fz_u8(&f) % 3);
    a.align_corners = fz_u8(&f) & 1;
    const int f64 = fz_u8(&f) & 1;
    const int64_t N = 1 + fz_u8(&f) % 2, C = 1 + fz_u8(&f) % 2;
    int64_t L[3], Lo[3];
    for (int k = 0; k < S; k++) {
        L[k] = 1 + fz_u8(&f) % 5;
        Lo[k] = 1 + fz_u8(&f) % 3;
    }
    drs_tensor X = {DRS_F64, S + 2, {N, C}, NULL}, G = {f64 ? DRS_F64 : DRS_F32, S + 2, {N}, NULL};
    int64_t nx = N * C, np = N;
    for (int k = 0; k < S; k++) {
        X.shape[2 + k] = L[k];
        G.shape[1 + k] = Lo[k];
        nx *= L[k];
        np *= Lo[k];
    }
    G.shape[S + 1] = S;
    const int64_t ng = np * S, ny = np * C;
    double *x = fz_alloc((size_t)nx * sizeof(double)), *y = fz_alloc((size_t)ny * sizeof(double));
    double *dy = fz_alloc((size_t)ny * sizeof(double)), *dx = fz_alloc((size_t)nx * sizeof(double));
    void *g = fz_alloc((size_t)ng * 8), *dg = fz_alloc((size_t)ng * 8);
    for (int64_t i = 0; i < nx; i++)
        x[i] = (double)(int8_t)fz_u8(&f);
    for (int64_t i = 0; i < ny; i++)
        dy[i] = 1.0;
    for (int64_t i = 0; i < ng; i++) {
        if (f64)
            ((double *)g)[i] = fz_f64(&f);
        else
            ((float *)g)[i] = fz_f32(&f);
    }
    X.data = x;
    G.data = g;
    drs_tensor Y = {DRS_F64, S + 2, {N, C}, y};
    for (int k = 0; k < S; k++)
        Y.shape[2 + k] = Lo[k];
    drs_tensor DY = Y, DX = X, DG = G;
    DY.data = dy;
    DX.data = dx;
    DG.data = dg;
    if (drs_grid_sample_forward(&Y, &X, &G, &a) != DRS_OK)
        __builtin_trap(); /* every call here is valid */
    for (int64_t i = 0; i < ny; i++)
        if (!isfinite(y[i]))
            __builtin_trap();
    if (drs_grid_sample_backward(&DX, &DG, &DY, &X, &G, &a, DRS_GRAD_OVERWRITE) != DRS_OK)
        __builtin_trap();
    for (int64_t i = 0; i < ng; i++) {
        const double gv = f64 ? ((double *)g)[i] : (double)((float *)g)[i];
        const double d = f64 ? ((double *)dg)[i] : (double)((float *)dg)[i];
        if (!isfinite(gv) && d != 0.0)
            __builtin_trap();
        if (isnan(d))
            __builtin_trap();
    }
    for (int64_t i = 0; i < nx; i++)
        if (!isfinite(dx[i]))
            __builtin_trap();
    free(x), free(y), free(dy), free(dx), free(g), free(dg);
    return 0;
}
