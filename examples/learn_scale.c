/* SPDX-License-Identifier: MIT */
/* learn_scale.c — recover an unknown resize factor from the resized image,
 * through the gradient with respect to the scales (scales_delta), which no
 * other library provides.
 *
 * The op: OpenVINO Interpolate-4, cubic, half_pixel coordinates, scales mode,
 * axes {2, 3}: output o samples input (o + 0.5) / s - 0.5, so the scale
 * enters every coordinate.  A 16x16 image (a sum of Gaussians) resized by an
 * unknown s_true = (1.355, 1.585) gives a 21x25 target.  The output size
 * alone pins s only to a bracket of width 1/16: floor(16 s) = 21 means
 * s in [1.3125, 1.375) (exactly: the library's drs_interpolate_scale_range
 * under OpenVINO's float32 size rule).  We start at the bracket's low end and
 * descend on mean((Interpolate(x; s) - target)^2), holding the output size
 * fixed: after every step drs_ag_project_scales() puts s back into the
 * bracket, and at its low end the gradient is the right derivative.
 * The gradient comes from the tape's Interpolate with scales as a variable;
 * at step 0 it is cross-checked against InterpolateBackprop-4
 * (drs_interpolate_backprop), the gradient op, called directly.
 *
 * Exits 0 only if every |s - s_true| < TOL.
 * Build (needs BLIS): cmake --build build --target drs_learn_scale
 * Usage: build/examples/drs_learn_scale [steps]   (default 300)
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <dresample.h>
#include <dresample_autograd.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define L 16
#define TOL 1e-4 /* the stated tolerance on each scale */

#define TRY(call)                                                                            \
    do {                                                                                     \
        drs_status st_ = (call);                                                             \
        if (st_ != DRS_OK) {                                                                 \
            fprintf(stderr, "learn_scale: %s: %s\n", #call, drs_last_error());               \
            return 2;                                                                        \
        }                                                                                    \
    } while (0)

static void make_image(double *img)
{
    static const double blob[][4] = {/* cx, cy, sigma, amplitude */
                                     {5, 6, 2.5, 1.0},
                                     {11, 4, 2.0, -0.7},
                                     {9, 11, 3.0, 0.8},
                                     {3, 12, 1.8, 0.5}};
    for (int y = 0; y < L; y++)
        for (int x = 0; x < L; x++) {
            double v = 0;
            for (size_t b = 0; b < sizeof blob / sizeof blob[0]; b++) {
                double dx = x - blob[b][0], dy = y - blob[b][1];
                v += blob[b][3] * exp(-(dx * dx + dy * dy) / (2 * blob[b][2] * blob[b][2]));
            }
            img[y * L + x] = v;
        }
}

int main(int argc, char **argv)
{
    const int steps = argc > 1 ? atoi(argv[1]) : 300;
    const double s_true[2] = {1.355, 1.585};
    static double img[L * L];
    make_image(img);

    drs_interpolate_attrs at = drs_interpolate_attrs_default(4);
    at.mode = DRS_MODE_CUBIC;
    at.shape_calculation_mode = DRS_SHAPE_SCALES;
    at.coordinate_transformation_mode = DRS_COORD_HALF_PIXEL;
    const int64_t axes[2] = {2, 3};
    const drs_interpolate_inputs in = {NULL, 0, NULL, 0, axes, 2}; /* scales: the var */

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    drs_tape *tape;
    TRY(drs_tape_new(&tape));
    const int64_t sh_img[4] = {1, 1, L, L}, sh_s[1] = {2};
    drs_var *x, *s, *target, *st, *y, *loss;
    TRY(drs_var_new(&x, tape, DRS_F64, 4, sh_img, img, 0));
    /* the target: x resized by the unknown s_true */
    TRY(drs_var_new(&st, tape, DRS_F64, 1, sh_s, s_true, 0));
    TRY(drs_ag_interpolate(&target, x, st, &in, &at));
    const drs_tensor tv = drs_var_value(target);
    const int64_t O[2] = {tv.shape[2], tv.shape[3]};
    /* the bracket the output size allows, from the library (OpenVINO's rule
     * O = int64(float(L) (float(s) + 1e-6f)), exactly); start at its low end.
     * Any scale gives it: 1.0 below, not the unknown s_true. */
    double lo[2], hi[2], s0[2];
    {
        drs_interpolate_inputs rin = in;
        const double guess[2] = {(double)O[0] / L, (double)O[1] / L};
        rin.scales = guess;
        rin.n_scales = 2;
        const drs_tensor xv = drs_var_value(x);
        TRY(drs_interpolate_scale_range(&at, &xv, &rin, lo, hi));
        for (int i = 0; i < 2; i++)
            s0[i] = lo[i];
    }
    TRY(drs_var_new(&s, tape, DRS_F64, 1, sh_s, s0, 1));
    double *sv = drs_var_value(s).data;
    const drs_tape_pos start = drs_tape_tell(tape);
    printf("learn_scale: Interpolate-4 cubic half_pixel, 16x16 -> %lldx%lld; the size puts s in "
           "[%.4f, %.4f) x [%.4f, %.4f); start at (%.4f, %.4f)\n",
           (long long)O[0], (long long)O[1], lo[0], hi[0], lo[1], hi[1], s0[0], s0[1]);

    /* Adam, projected onto the bracket by the tape */
    const double lr0 = 2e-3, b1 = 0.9, b2 = 0.999;
    double m[2] = {0}, v[2] = {0}, first_loss = 0, last_loss = 0;
    for (int step = 0; step <= steps; step++) {
        TRY(drs_ag_interpolate(&y, x, s, &in, &at));
        const drs_tensor yv = drs_var_value(y);
        if (yv.shape[2] != O[0] || yv.shape[3] != O[1]) {
            fprintf(stderr, "learn_scale: output size left the bracket\n");
            return 2;
        }
        TRY(drs_ag_mse_loss(&loss, y, target));
        last_loss = drs_var_item(loss);
        if (step == 0)
            first_loss = last_loss;
        if (step % 25 == 0 || step == steps)
            printf("  step %4d  loss %.3e  s = (%.6f, %.6f)\n", step, last_loss, sv[0], sv[1]);
        if (step == steps)
            break;
        TRY(drs_tape_zero_grad(tape));
        TRY(drs_tape_backward(loss));
        const double *g = drs_var_grad(s).data;
        if (step == 0) {
            /* The same gradient from the gradient op InterpolateBackprop-4, with
             * output_delta = d mse / d y = 2 (y - target) / n. */
            const int64_t n = O[0] * O[1];
            double *dy = malloc(sizeof(double) * (size_t)n), sd[2];
            const double *yd = yv.data, *td = tv.data;
            for (int64_t i = 0; i < n; i++)
                dy[i] = 2.0 * (yd[i] - td[i]) / (double)n;
            drs_tensor dyt = yv;
            dyt.data = dy;
            drs_tensor xt = drs_var_value(x);
            drs_interpolate_inputs bin = in;
            bin.scales = sv;
            bin.n_scales = 2;
            drs_status bst = drs_interpolate_backprop(NULL, sd, &xt, &dyt, &bin, &at,
                                                      DRS_GRAD_OVERWRITE);
            free(dy);
            TRY(bst);
            const double d = fmax(fabs(sd[0] - g[0]), fabs(sd[1] - g[1]));
            printf("  scales_delta at step 0: tape (%.9g, %.9g), InterpolateBackprop-4 "
                   "(%.9g, %.9g), max diff %.1e\n",
                   g[0], g[1], sd[0], sd[1], d);
            if (!(d <= 1e-12 * fmax(1.0, fabs(g[0]) + fabs(g[1])))) {
                fprintf(stderr, "learn_scale: the tape and InterpolateBackprop-4 disagree\n");
                return 1;
            }
        }
        const double lr = lr0 * pow(0.02, (double)step / steps);
        for (int i = 0; i < 2; i++) {
            m[i] = b1 * m[i] + (1 - b1) * g[i];
            v[i] = b2 * v[i] + (1 - b2) * g[i] * g[i];
            const double mh = m[i] / (1 - pow(b1, step + 1)), vh = v[i] / (1 - pow(b2, step + 1));
            sv[i] -= lr * mh / (sqrt(vh) + 1e-15);
        }
        TRY(drs_ag_project_scales(y)); /* back into the bracket y's size allows */
        TRY(drs_tape_rewind(tape, start));
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    const double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    const double err = fmax(fabs(sv[0] - s_true[0]), fabs(sv[1] - s_true[1]));
    printf("learn_scale: loss %.3e -> %.3e in %d steps, %.2f s\n", first_loss, last_loss, steps,
           secs);
    printf("  s      = (%.6f, %.6f)\n  s_true = (%.6f, %.6f)\n", sv[0], sv[1], s_true[0],
           s_true[1]);
    const int ok = err < TOL;
    printf("learn_scale: max |s - s_true| = %.2e (tolerance %.0e): %s\n", err, TOL,
           ok ? "PASS" : "FAIL");
    drs_tape_free(tape);
    return ok ? 0 : 1;
}
