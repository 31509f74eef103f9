/* grid_sample.c — placeholder being written (GridSample forward). */
#include "core.h"
drs_grid_sample_attrs drs_grid_sample_attrs_default(int version)
{
    drs_grid_sample_attrs a = {version, DRS_GRID_BILINEAR, DRS_GRID_PAD_ZEROS, 0};
    return a;
}
int drs_grid_mode_from_str(const char *s) { (void)s; return -1; }
int drs_grid_padding_from_str(const char *s) { (void)s; return -1; }
const char *drs_grid_mode_str(drs_grid_mode m, int version) { (void)m; (void)version; return "?"; }
const char *drs_grid_padding_str(drs_grid_padding p) { (void)p; return "?"; }
drs_status drs_grid_sample_infer_shape(const drs_grid_sample_attrs *attrs, const drs_tensor *data,
                                       const drs_tensor *grid, int *out_rank,
                                       int64_t out_shape[DRS_MAX_RANK])
{
    (void)attrs; (void)data; (void)grid; (void)out_rank; (void)out_shape;
    return drs__fail(DRS_ERR_UNSUPPORTED, "GridSample: not yet");
}
drs_status drs_grid_sample_forward(drs_tensor *output, const drs_tensor *data,
                                   const drs_tensor *grid, const drs_grid_sample_attrs *attrs)
{
    (void)output; (void)data; (void)grid; (void)attrs;
    return drs__fail(DRS_ERR_UNSUPPORTED, "GridSample: not yet");
}
