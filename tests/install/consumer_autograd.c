/* SPDX-License-Identifier: MIT */
/* A consumer of the autograd library (and through it the core), built by
 * tests/install/test_install.sh every way consumer.c is: d/dx sum(2 x) = 2
 * through the tape, then a matmul (BLIS) and a core call with an error. */
#include <dresample_autograd.h>
#include <stdio.h>

int main(void)
{
    drs_tape *t;
    drs_var *x, *y, *s, *a, *m;
    const double xv[3] = {1, 2, 3}, av[4] = {1, 2, 3, 4};
    if (drs_tape_new(&t) || drs_var_new(&x, t, DRS_F64, 1, (int64_t[]){3}, xv, 1) ||
        drs_ag_scale(&y, x, 2.0) || drs_ag_sum(&s, y) || drs_tape_backward(s) ||
        drs_var_new(&a, t, DRS_F64, 2, (int64_t[]){2, 2}, av, 0) || drs_ag_matmul(&m, a, a)) {
        printf("consumer_autograd: %s\n", drs_last_error());
        return 1;
    }
    const double *g = drs_var_grad(x).data, *mv = drs_var_value(m).data;
    /* [[1,2],[3,4]]^2 = [[7,10],[15,22]] */
    if (g[0] != 2 || g[1] != 2 || g[2] != 2 || drs_var_item(s) != 12 || mv[0] != 7 ||
        mv[3] != 22) {
        printf("consumer_autograd: wrong gradient or value\n");
        return 1;
    }
    drs_tape_free(t);
    /* an error of the tape reads through the core's drs_last_error() */
    if (drs_ag_sum(NULL, x) == DRS_OK || drs_last_error()[0] == '\0') {
        printf("consumer_autograd: no error message\n");
        return 1;
    }
    printf("consumer_autograd: ok (%s)\n", drs_last_error());
    return 0;
}
