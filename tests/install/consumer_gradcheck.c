/* SPDX-License-Identifier: MIT */
/* A consumer of the gradcheck library (and through it the core), built by
 * tests/install/test_install.sh every way consumer.c is: checks Resize-19
 * linear's gradients by finite differences in fast mode. */
#include <dresample_gradcheck.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    drs_gc_op op = drs_gc_op_init(DRS_GC_RESIZE, 19);
    op.resize.mode = DRS_MODE_LINEAR;
    op.rank = 4;
    const int64_t shp[4] = {1, 1, 4, 5};
    memcpy(op.shape, shp, sizeof shp);
    op.n_scales = 4;
    op.scales[0] = op.scales[1] = 1;
    op.scale_fixed[0] = op.scale_fixed[1] = 1;
    op.scales[2] = 1.5;
    op.scales[3] = 0.8;
    drs_gc_case c;
    if (drs_gc_case_prepare(&c, &op, 7, NULL)) {
        printf("consumer_gradcheck: prepare: %s\n", drs_last_error());
        return 1;
    }
    drs_gc_options o = drs_gc_options_default();
    o.fast_mode = 1;
    drs_gc_report r;
    const drs_status s = drs_gradcheck(&c.fn, &o, &r);
    drs_gc_case_free(&c);
    if (s || !r.passed || r.n_compared == 0) {
        printf("consumer_gradcheck: status %d passed %d: %s\n", (int)s, r.passed, r.message);
        return 1;
    }
    printf("consumer_gradcheck: ok (%lld probes)\n", (long long)r.n_compared);
    return 0;
}
