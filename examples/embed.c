/* SPDX-License-Identifier: MIT */
/* embed.c — dresample inside a host framework, without the tape.
 *
 * The "framework" below has its own tensor type, allocates its own buffers
 * and knows layers only through forward/backward function pointers.  Two
 * layers wrap the library's paired kernels:
 *
 *   ResizeLayer      ONNX Resize-19, cubic, half_pixel, learnable scales
 *                    drs_resize_forward / drs_resize_backward (X_delta, scales_delta)
 *   GridSampleLayer  GridSample-16, bilinear, learnable grid
 *                    drs_grid_sample_forward / drs_grid_sample_backward (data, grid)
 *
 * Network: x [1,2,6,7] -> Resize (scales 1,1,1.7,1.45) -> [1,2,10,10]
 *          -> GridSample (grid [1,5,6,2]) -> y [1,2,5,6];
 * loss = 0.5 |y - target|^2.  Activation gradients are written (OVERWRITE),
 * parameter gradients accumulated (ACCUMULATE) as a framework does.
 * The three kinds of gradient (input, scales, grid) are each checked at one
 * element against float64 central finite differences; exit 0 if all match.
 *
 * Build: cmake --build build --target drs_embed;
 * run: build/examples/drs_embed
 */
#include <dresample.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------- the host framework */
typedef struct host_tensor {
    int rank;
    int64_t shape[8];
    double *data; /* malloc'd by the host */
} host_tensor;

static int64_t host_numel(const host_tensor *t) /* -1 on a negative size or overflow */
{
    int64_t n = 1;
    for (int i = 0; i < t->rank; i++) {
        if (t->shape[i] < 0 || (t->shape[i] > 0 && n > INT64_MAX / t->shape[i]))
            return -1;
        n *= t->shape[i];
    }
    return n;
}

static int host_alloc(host_tensor *t, int rank, const int64_t *shape)
{
    t->rank = rank;
    memset(t->shape, 0, sizeof t->shape);
    memcpy(t->shape, shape, sizeof(int64_t) * (size_t)rank);
    const int64_t n = host_numel(t);
    t->data = n >= 0 ? calloc((size_t)(n ? n : 1), sizeof(double)) : NULL;
    return t->data != NULL;
}

/* The library's view of a host tensor: no copy. */
static drs_tensor view(const host_tensor *t)
{
    drs_tensor v = {DRS_F64, t->rank, {0}, t->data};
    memcpy(v.shape, t->shape, sizeof v.shape);
    return v;
}

typedef struct layer layer;
struct layer {
    const char *name;
    /* y is allocated by the layer on the first call (shape from the library) */
    int (*forward)(layer *self, const host_tensor *x, host_tensor *y);
    /* dx overwritten; parameter gradients accumulated */
    int (*backward)(layer *self, const host_tensor *x, const host_tensor *dy, host_tensor *dx);
};

static int fail(const char *layer_name, const char *what)
{
    fprintf(stderr, "embed: %s %s: %s\n", layer_name, what, drs_last_error());
    return 0;
}

/* ---- ResizeLayer */
typedef struct {
    layer base;
    drs_resize_attrs attrs;
    double scales[4], dscales[4]; /* parameter and its gradient */
} resize_layer;

static int resize_fwd(layer *self, const host_tensor *x, host_tensor *y)
{
    resize_layer *r = (resize_layer *)self;
    const drs_resize_inputs in = {NULL, 0, r->scales, 4, NULL, 0};
    drs_tensor xv = view(x);
    int rank;
    int64_t shape[DRS_MAX_RANK];
    if (drs_resize_infer_shape(&r->attrs, &xv, &in, &rank, shape))
        return fail(self->name, "infer_shape");
    if (!y->data && !host_alloc(y, rank, shape))
        return 0;
    drs_tensor yv = view(y);
    return drs_resize_forward(&yv, &xv, &in, &r->attrs) == DRS_OK || fail(self->name, "forward");
}

static int resize_bwd(layer *self, const host_tensor *x, const host_tensor *dy, host_tensor *dx)
{
    resize_layer *r = (resize_layer *)self;
    const drs_resize_inputs in = {NULL, 0, r->scales, 4, NULL, 0};
    drs_tensor xv = view(x), dyv = view(dy), dxv = view(dx);
    /* X_delta overwritten, scales_delta accumulated: two calls, one per mode */
    if (drs_resize_backward(&dxv, NULL, NULL, &dyv, &xv, &in, &r->attrs, DRS_GRAD_OVERWRITE) ||
        drs_resize_backward(NULL, r->dscales, NULL, &dyv, &xv, &in, &r->attrs,
                            DRS_GRAD_ACCUMULATE))
        return fail(self->name, "backward");
    return 1;
}

/* ---- GridSampleLayer */
typedef struct {
    layer base;
    drs_grid_sample_attrs attrs;
    host_tensor grid, dgrid; /* parameter and its gradient */
} grid_layer;

static int grid_fwd(layer *self, const host_tensor *x, host_tensor *y)
{
    grid_layer *g = (grid_layer *)self;
    drs_tensor xv = view(x), gv = view(&g->grid);
    int rank;
    int64_t shape[DRS_MAX_RANK];
    if (drs_grid_sample_infer_shape(&g->attrs, &xv, &gv, &rank, shape))
        return fail(self->name, "infer_shape");
    if (!y->data && !host_alloc(y, rank, shape))
        return 0;
    drs_tensor yv = view(y);
    return drs_grid_sample_forward(&yv, &xv, &gv, &g->attrs) == DRS_OK ||
           fail(self->name, "forward");
}

static int grid_bwd(layer *self, const host_tensor *x, const host_tensor *dy, host_tensor *dx)
{
    grid_layer *g = (grid_layer *)self;
    drs_tensor xv = view(x), gv = view(&g->grid), dyv = view(dy), dxv = view(dx);
    drs_tensor dgv = view(&g->dgrid);
    /* data_delta overwritten, grid_delta accumulated */
    if (drs_grid_sample_backward(&dxv, NULL, &dyv, &xv, &gv, &g->attrs, DRS_GRAD_OVERWRITE) ||
        drs_grid_sample_backward(NULL, &dgv, &dyv, &xv, &gv, &g->attrs, DRS_GRAD_ACCUMULATE))
        return fail(self->name, "backward");
    return 1;
}

/* ----------------------------------------------------------- the model */
typedef struct {
    resize_layer rs;
    grid_layer gs;
    host_tensor x, z, y, target, dx, dz, dy;
} model;

static double forward_loss(model *m)
{
    if (!m->rs.base.forward(&m->rs.base, &m->x, &m->z) ||
        !m->gs.base.forward(&m->gs.base, &m->z, &m->y))
        exit(2);
    double l = 0;
    for (int64_t i = 0; i < host_numel(&m->y); i++) {
        double d = m->y.data[i] - m->target.data[i];
        l += 0.5 * d * d;
    }
    return l;
}

static void backward(model *m)
{
    for (int64_t i = 0; i < host_numel(&m->y); i++) /* d loss / dy */
        m->dy.data[i] = m->y.data[i] - m->target.data[i];
    if (!m->gs.base.backward(&m->gs.base, &m->z, &m->dy, &m->dz) ||
        !m->rs.base.backward(&m->rs.base, &m->x, &m->dz, &m->dx))
        exit(2);
}

static double urand(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (double)((*s >> 8) & 0xffffff) / 16777216.0;
}

static int check(const char *name, double analytic, double *param, model *m)
{
    const double eps = 1e-6, p0 = *param;
    *param = p0 + eps;
    const double lp = forward_loss(m);
    *param = p0 - eps;
    const double lm = forward_loss(m);
    *param = p0;
    const double fd = (lp - lm) / (2 * eps);
    const int ok = fabs(fd - analytic) <= 1e-7 + 1e-6 * fabs(fd);
    printf("  d loss / d %-10s  backward %+.10f  finite difference %+.10f  %s\n", name, analytic,
           fd, ok ? "ok" : "MISMATCH");
    return ok;
}

int main(void)
{
    unsigned seed = 7;
    model m;
    memset(&m, 0, sizeof m);
    m.rs.base = (layer){"ResizeLayer", resize_fwd, resize_bwd};
    m.rs.attrs = drs_resize_attrs_default(19);
    m.rs.attrs.mode = DRS_MODE_CUBIC;
    m.rs.attrs.coordinate_transformation_mode = DRS_COORD_HALF_PIXEL;
    const double sc[4] = {1, 1, 1.7, 1.45};
    memcpy(m.rs.scales, sc, sizeof sc);
    m.gs.base = (layer){"GridSampleLayer", grid_fwd, grid_bwd};
    m.gs.attrs = drs_grid_sample_attrs_default(16);

    const int64_t sx[4] = {1, 2, 6, 7}, sg[4] = {1, 5, 6, 2}, sy[4] = {1, 2, 5, 6};
    if (!host_alloc(&m.x, 4, sx) || !host_alloc(&m.dx, 4, sx) || !host_alloc(&m.gs.grid, 4, sg) ||
        !host_alloc(&m.gs.dgrid, 4, sg) || !host_alloc(&m.target, 4, sy) ||
        !host_alloc(&m.dy, 4, sy))
        return 2;
    for (int64_t i = 0; i < host_numel(&m.x); i++)
        m.x.data[i] = urand(&seed) * 2 - 1;
    for (int64_t i = 0; i < host_numel(&m.target); i++)
        m.target.data[i] = urand(&seed) * 2 - 1;
    /* grid points kept 0.05 pixel away from the bilinear kinks (integers) of
     * the 10x10 resized image (align_corners = 0: x = ((g + 1) 10 - 1) / 2) */
    for (int64_t i = 0; i < host_numel(&m.gs.grid); i++) {
        double g, px;
        do {
            g = urand(&seed) * 1.8 - 0.9;
            px = ((g + 1) * 10 - 1) / 2;
        } while (fabs(px - floor(px + 0.5)) < 0.05);
        m.gs.grid.data[i] = g;
    }

    const double loss = forward_loss(&m); /* allocates z and y */
    if (!host_alloc(&m.dz, m.z.rank, m.z.shape))
        return 2;
    backward(&m);
    printf("embed: x [1,2,6,7] -> Resize-19 cubic (scales 1,1,1.7,1.45) -> [1,2,%lld,%lld] -> "
           "GridSample-16 bilinear -> [1,2,5,6]; loss %.6f\n",
           (long long)m.z.shape[2], (long long)m.z.shape[3], loss);
    int ok = 1;
    ok &= check("x[17]", m.dx.data[17], &m.x.data[17], &m);
    ok &= check("scales[2]", m.rs.dscales[2], &m.rs.scales[2], &m);
    ok &= check("scales[3]", m.rs.dscales[3], &m.rs.scales[3], &m);
    ok &= check("grid[13]", m.gs.dgrid.data[13], &m.gs.grid.data[13], &m);
    printf("embed: %s\n", ok ? "PASS" : "FAIL");
    host_tensor *all[] = {&m.x, &m.z, &m.y, &m.target, &m.dx, &m.dz, &m.dy, &m.gs.grid, &m.gs.dgrid};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        free(all[i]->data);
    return ok ? 0 : 1;
}
