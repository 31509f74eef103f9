/* SPDX-License-Identifier: MIT */
/* demo.c — the main demo: resizes a small image through a few modes of the
 * library and prints the results.  The gradients are shown by the training
 * examples `register` and `learn_scale` next to it.
 *
 * Build: cmake --build build --target drs_demo;  run: build/examples/drs_demo
 * (exit 0 unless a call fails). */
#include <dresample.h>
#include <stdio.h>

static void print2d(const char *title, const float *v, int64_t h, int64_t w)
{
    printf("%s (%lldx%lld)\n", title, (long long)h, (long long)w);
    for (int64_t i = 0; i < h; i++) {
        for (int64_t j = 0; j < w; j++)
            printf(" %7.4f", v[i * w + j]);
        printf("\n");
    }
}

int main(void)
{
    float img[4 * 4];
    for (int i = 0; i < 16; i++)
        img[i] = (float)((i * 7) % 5);
    drs_tensor x = {DRS_F32, 4, {1, 1, 4, 4}, img};
    print2d("input", img, 4, 4);

    /* ONNX Resize-19, cubic, half_pixel, scales 1.5 */
    float out[6 * 6];
    drs_tensor y = {DRS_F32, 4, {1, 1, 6, 6}, out};
    const double scales[4] = {1, 1, 1.5, 1.5};
    drs_resize_attrs ra = drs_resize_attrs_default(19);
    ra.mode = DRS_MODE_CUBIC;
    drs_resize_inputs rin = {NULL, 0, scales, 4, NULL, 0};
    if (drs_resize_forward(&y, &x, &rin, &ra) != DRS_OK) {
        fprintf(stderr, "demo: %s\n", drs_last_error());
        return 1;
    }
    print2d("Resize-19 cubic x1.5", out, 6, 6);

    /* PyTorch preset: bilinear, antialias, size 2x2 */
    float small[2 * 2];
    drs_tensor z = {DRS_F32, 4, {1, 1, 2, 2}, small};
    drs_torch_interpolate_attrs ta = drs_torch_interpolate_attrs_default();
    ta.mode = DRS_TORCH_BILINEAR;
    ta.antialias = 1;
    ta.n_size = 2;
    ta.size[0] = 2;
    ta.size[1] = 2;
    if (drs_torch_interpolate_forward(&z, &x, &ta) != DRS_OK) {
        fprintf(stderr, "demo: %s\n", drs_last_error());
        return 1;
    }
    print2d("F.interpolate(bilinear, antialias=True, size=2)", small, 2, 2);

    /* A rejected call: the message names the argument and the value. */
    const double bad[4] = {1, 1, -2, 1};
    drs_resize_inputs bin = {NULL, 0, bad, 4, NULL, 0};
    drs_status s = drs_resize_forward(&y, &x, &bin, &ra);
    printf("bad scales -> %s: %s\n", drs_status_str(s), drs_last_error());
    return 0;
}
