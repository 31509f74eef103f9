/* A consumer of the installed library: built once through find_package and
 * once through pkg-config by tests/install/test_install.sh. */
#include <dresample.h>
#include <stdio.h>

int main(void)
{
    const float x[2] = {1, 3};
    float y[3];
    drs_tensor X = {DRS_F32, 1, {2}, (void *)x}, Y = {DRS_F32, 1, {3}, y};
    drs_resize_attrs a = drs_resize_attrs_default(19);
    a.mode = DRS_MODE_LINEAR;
    a.coordinate_transformation_mode = DRS_COORD_ALIGN_CORNERS;
    const int64_t size = 3;
    drs_resize_inputs in = {NULL, 0, NULL, 0, &size, 1};
    if (drs_resize_forward(&Y, &X, &in, &a) != DRS_OK || y[1] != 2.0f) {
        printf("consumer: wrong result (%s)\n", drs_last_error());
        return 1;
    }
    printf("consumer: ok\n");
    return 0;
}
