/* placeholder being written (GridSample backward). */
#include "core.h"
drs_status drs_grid_sample_backward(drs_tensor *data_delta, drs_tensor *grid_delta,
                                    const drs_tensor *output_delta, const drs_tensor *data,
                                    const drs_tensor *grid, const drs_grid_sample_attrs *attrs,
                                    drs_grad_mode mode)
{
    (void)data_delta; (void)grid_delta; (void)output_delta; (void)data; (void)grid; (void)attrs; (void)mode;
    return drs__fail(DRS_ERR_UNSUPPORTED, "GridSample: not yet");
}
