/* SPDX-License-Identifier: MIT */
/* register.c — image registration by gradient descent through the tape:
 * learn the 2-D affine transform theta (2x3) such that
 *
 *     GridSample(affine_grid(theta), moving) == fixed
 *
 * moving: a smooth synthetic 64x64 image (a sum of Gaussians); fixed: moving
 * warped by a known theta_true (rotation 8 degrees, scale 1.07, a shift),
 * rendered with *bicubic* GridSample while the model samples bilinearly, so
 * the optimum is not an exact copy of the data (the recovered theta is off
 * by ~2e-4; with the same mode on both sides it is exact to ~1e-8).
 * theta starts at the identity; Adam on the mean squared error, the
 * gradient coming back through GridSample's grid gradient and affine_grid's
 * theta gradient.  Exits 0 only if max |theta - theta_true| < TOL.
 *
 * Build (needs BLIS): cmake --build build --target drs_register
 * Usage: build/examples/drs_register [steps]   (default 300)
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <dresample.h>
#include <dresample_autograd.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define H 64
#define W 64
#define TOL 1e-3 /* the stated tolerance on every entry of theta */

#define TRY(call)                                                                            \
    do {                                                                                     \
        drs_status st_ = (call);                                                             \
        if (st_ != DRS_OK) {                                                                 \
            fprintf(stderr, "register: %s: %s\n", #call, drs_last_error());                  \
            return 2;                                                                        \
        }                                                                                    \
    } while (0)

/* A sum of anisotropic Gaussians, away from the border (so zeros padding and
 * the field of view do not matter). */
static void make_image(double *img)
{
    static const double blob[][5] = {
        /* cx, cy, sx, sy, amplitude (pixels) */
        {22, 24, 6, 4, 1.0}, {42, 20, 4, 7, 0.8}, {30, 42, 8, 5, 0.9}, {46, 44, 4, 4, -0.6},
        {18, 40, 3, 5, 0.5}};
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            double v = 0;
            for (size_t b = 0; b < sizeof blob / sizeof blob[0]; b++) {
                double dx = (x - blob[b][0]) / blob[b][2], dy = (y - blob[b][1]) / blob[b][3];
                v += blob[b][4] * exp(-0.5 * (dx * dx + dy * dy));
            }
            img[y * W + x] = v;
        }
}

int main(int argc, char **argv)
{
    const int steps = argc > 1 ? atoi(argv[1]) : 300;
    const double angle = 8.0 * 3.14159265358979323846 / 180.0, scale = 1.07, tx = 0.06, ty = -0.04;
    const double theta_true[6] = {scale * cos(angle), -scale * sin(angle), tx,
                                  scale * sin(angle), scale * cos(angle), ty};
    const double theta0[6] = {1, 0, 0, 0, 1, 0};
    static double img[H * W];
    make_image(img);

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);

    drs_tape *tape;
    TRY(drs_tape_new(&tape));
    const int64_t sh_img[4] = {1, 1, H, W}, sh_theta[3] = {1, 2, 3}, size[2] = {H, W};
    drs_grid_sample_attrs gs = drs_grid_sample_attrs_default(16); /* bilinear, zeros */
    gs.align_corners = 0;

    drs_var *moving, *fixed, *theta, *grid, *warped, *loss;
    TRY(drs_var_new(&moving, tape, DRS_F64, 4, sh_img, img, 0));
    /* the fixed image: moving warped by theta_true, bicubic (no gradient needed) */
    {
        drs_var *tt;
        int was = drs_tape_set_grad_enabled(tape, 0);
        TRY(drs_var_new(&tt, tape, DRS_F64, 3, sh_theta, theta_true, 0));
        TRY(drs_ag_affine_grid(&grid, tt, 2, size, gs.align_corners));
        drs_grid_sample_attrs render = gs;
        render.mode = DRS_GRID_BICUBIC;
        TRY(drs_ag_grid_sample(&fixed, moving, grid, &render));
        drs_tape_set_grad_enabled(tape, was);
    }
    TRY(drs_var_new(&theta, tape, DRS_F64, 3, sh_theta, theta0, 1));
    const drs_tape_pos start = drs_tape_tell(tape); /* per-step vars live after this */

    /* Adam */
    const double lr0 = 0.02, b1 = 0.9, b2 = 0.999, eps = 1e-12;
    double m[6] = {0}, v[6] = {0}, first_loss = 0, last_loss = 0;
    double *th = drs_var_value(theta).data;
    printf("register: 64x64 sum of Gaussians, theta_true = rotation 8 deg, scale 1.07, "
           "shift (0.06, -0.04); Adam, %d steps\n",
           steps);
    for (int step = 0; step <= steps; step++) {
        TRY(drs_ag_affine_grid(&grid, theta, 2, size, gs.align_corners));
        TRY(drs_ag_grid_sample(&warped, moving, grid, &gs));
        TRY(drs_ag_mse_loss(&loss, warped, fixed));
        last_loss = drs_var_item(loss);
        if (step == 0)
            first_loss = last_loss;
        if (step % 25 == 0 || step == steps)
            printf("  step %4d  loss %.3e\n", step, last_loss);
        if (step == steps)
            break;
        TRY(drs_tape_zero_grad(tape));
        TRY(drs_tape_backward(loss));
        const double *g = drs_var_grad(theta).data;
        /* learning rate decays 20x over the run: fast start, fine finish */
        const double lr = lr0 * pow(0.05, (double)step / steps);
        for (int i = 0; i < 6; i++) {
            m[i] = b1 * m[i] + (1 - b1) * g[i];
            v[i] = b2 * v[i] + (1 - b2) * g[i] * g[i];
            const double mh = m[i] / (1 - pow(b1, step + 1)), vh = v[i] / (1 - pow(b2, step + 1));
            th[i] -= lr * mh / (sqrt(vh) + eps);
        }
        TRY(drs_tape_rewind(tape, start)); /* frees this step's grid, warped, loss */
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    const double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);

    double err = 0;
    for (int i = 0; i < 6; i++)
        err = fmax(err, fabs(th[i] - theta_true[i]));
    printf("register: loss %.3e -> %.3e in %d steps, %.2f s (tape: %lld vars, %zu bytes)\n",
           first_loss, last_loss, steps, secs, (long long)drs_tape_num_vars(tape),
           drs_tape_bytes(tape));
    printf("  theta      = [% .5f % .5f % .5f; % .5f % .5f % .5f]\n", th[0], th[1], th[2], th[3],
           th[4], th[5]);
    printf("  theta_true = [% .5f % .5f % .5f; % .5f % .5f % .5f]\n", theta_true[0],
           theta_true[1], theta_true[2], theta_true[3], theta_true[4], theta_true[5]);
    const int ok = err < TOL;
    printf("register: max |theta - theta_true| = %.2e (tolerance %.0e): %s\n", err, TOL,
           ok ? "PASS" : "FAIL");
    drs_tape_free(tape);
    return ok ? 0 : 1;
}
