/* SPDX-License-Identifier: MIT */
/* A consumer of the core library, built by tests/install/test_install.sh
 * against the installed tree (find_package shared and static, pkg-config) and
 * from a host project that adds dresample with add_subdirectory(). */
#include <dresample.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    if (drs_version() != DRS_VERSION_NUMBER || strcmp(drs_version_string(), DRS_VERSION_STRING)) {
        printf("consumer: header %s, library %s\n", DRS_VERSION_STRING, drs_version_string());
        return 1;
    }
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
