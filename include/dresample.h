/* SPDX-License-Identifier: MIT */
/* dresample.h — differentiable resampling operators (public API).
 *
 * Ops: OpenVINO Interpolate-1/-4/-11, ONNX Resize-10/11/13/18/19 and a
 * PyTorch F.interpolate preset ("TorchInterpolate"), all lowered onto one
 * separable core (see docs/semantics.md for every deliberate deviation).
 *
 * Conventions (apply to every call):
 *  - Tensors are non-owning views: dtype, rank (1..8), shape, data; contiguous
 *    row-major.  The caller allocates outputs; a *_infer_shape call per op tells
 *    the output shape.  The library allocates only scratch and frees it before
 *    returning.
 *  - Every call returns a drs_status.  On error nothing has been written to
 *    any output buffer, and drs_last_error() returns a thread-local message
 *    naming the argument and value ("Resize-19: scales[1] must be > 0, got -2").
 *  - Threads: OpenMP.  Results are bitwise identical for any thread count.
 *    Use drs_set_num_threads() (or OMP_NUM_THREADS) to choose the count;
 *    the library never changes the host's OpenMP settings.
 *  - Coordinates and weights are computed in double.
 */
#ifndef DRESAMPLE_H
#define DRESAMPLE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DRS_VERSION_MAJOR 0
#define DRS_VERSION_MINOR 1
#define DRS_VERSION_PATCH 0
/* "MAJOR.MINOR.PATCH" of the header; drs_version_string() is the library's. */
#define DRS_VERSION_STRING "0.1.0"
/* MAJOR * 10000 + MINOR * 100 + PATCH of the header; drs_version() is the library's. */
#define DRS_VERSION_NUMBER (DRS_VERSION_MAJOR * 10000 + DRS_VERSION_MINOR * 100 + DRS_VERSION_PATCH)
#define DRS_MAX_RANK 8

/* Marks the public API: the libraries are built with hidden visibility and
 * export exactly the functions so marked.  Define DRS_API yourself to
 * override (e.g. empty, for a static build with your own visibility rules). */
#ifndef DRS_API
#if defined(__GNUC__) || defined(__clang__)
#define DRS_API __attribute__((visibility("default")))
#else
#define DRS_API
#endif
#endif

/* ---------------------------------------------------------------- status */
typedef enum drs_status {
    DRS_OK = 0,
    DRS_ERR_INVALID_ARGUMENT = 1, /* bad attribute value or combination */
    DRS_ERR_SHAPE = 2,            /* rank/shape/length mismatch */
    DRS_ERR_OVERFLOW = 3,         /* a size or byte count overflows 64 bits */
    DRS_ERR_NOMEM = 4,            /* scratch allocation failed */
    DRS_ERR_UNSUPPORTED = 5,      /* valid request we do not implement (e.g. dtype) */
    DRS_ERR_IO = 6                /* file I/O (CLI helpers only) */
} drs_status;

/* A fixed string per status code ("invalid argument", ...). */
DRS_API const char *drs_status_str(drs_status s);
/* The detailed message of the last failing call on this thread ("" if none). */
DRS_API const char *drs_last_error(void);
/* Sets this thread's drs_last_error() message to `message` (truncated to 511
 * bytes; NULL gives "") and returns s.  For libraries layered on dresample (its
 * own tape and gradient checker, a host framework's wrappers) whose errors
 * should read through drs_last_error() like the library's own. */
DRS_API drs_status drs_set_last_error(drs_status s, const char *message);

/* Test hook: the n-th scratch allocation (0-based) made by the library on the
 * calling thread from now on fails, once (-1 disables).  Lets tests prove that
 * every allocation failure returns DRS_ERR_NOMEM with the outputs untouched
 * and nothing leaked. */
DRS_API void drs_debug_fail_allocation(long n);
/* Test hook: the largest single scratch allocation (bytes) the library made
 * on the calling thread since the last reset (reset != 0 resets it). */
DRS_API size_t drs_debug_max_allocation(int reset);

/* The library keeps its large scratch blocks (4 MiB or more: the
 * intermediates of a multi-pass resample, i.e. a 3-D one, one over axes that
 * are not adjacent or on integer data, and its gradients; GridSample's
 * backward scratch: scatter planes, tap and band lists) between calls, up to 4 blocks and DRS_SCRATCH_CACHE_MB MiB
 * in all (environment, read once; default 256, 0 keeps none), so that a
 * training loop does not map and fault in fresh pages on every call.
 * drs_scratch_release() frees the blocks kept now (thread-safe, also while
 * other threads call the library; later calls keep blocks again);
 * drs_scratch_held() is their size in bytes. */
DRS_API void drs_scratch_release(void);
DRS_API size_t drs_scratch_held(void);

/* The version of the library actually linked, as DRS_VERSION_NUMBER and
 * DRS_VERSION_STRING give it for the header compiled against (compare them to
 * catch a header/library mismatch, as zlibVersion() does). */
DRS_API int drs_version(void);
DRS_API const char *drs_version_string(void);

/* The library's own thread count, in [0, 4096]; 0 (the default) means
 * OpenMP's default (omp_get_max_threads() of the calling thread, so
 * OMP_NUM_THREADS).  It is applied with num_threads() on the library's
 * parallel regions only: the host program's OpenMP settings and its own
 * parallel regions are never changed.  Results are bitwise identical for any
 * thread count.  A process-wide setting: set it before calls, not during. */
DRS_API drs_status drs_set_num_threads(int n);
/* The value last set by drs_set_num_threads (0 if never set). */
DRS_API int drs_get_num_threads(void);

/* The SIMD variant of the row kernels in use: "avx512", "avx2" or "baseline".
 * x86-64 builds with GCC carry all three (the same C, compiled for AVX-512
 * F/BW/VL/DQ/CD, for AVX2 and for the x86-64 baseline; other builds carry
 * "baseline" only) and pick the best the CPU supports on the first call.  The
 * environment variable DRS_SIMD=baseline|avx2|avx512, read once at that
 * first call, forces a variant; one the CPU lacks gives the best it has, and
 * any other value is ignored.  Every variant gives the same bits (no fused
 * multiply-add, no reassociation), so the choice changes speed only. */
DRS_API const char *drs_simd_variant(void);

/* ---------------------------------------------------------------- tensor */
typedef enum drs_dtype {
    DRS_F32 = 0,
    DRS_F64 = 1,
    DRS_U8 = 2,
    DRS_I8 = 3,
    DRS_I32 = 4,
    DRS_I64 = 5
} drs_dtype;

typedef struct drs_tensor {
    drs_dtype dtype;
    int rank;                      /* 1..DRS_MAX_RANK */
    int64_t shape[DRS_MAX_RANK];
    void *data;                    /* may be NULL only when the tensor is empty */
} drs_tensor;

DRS_API const char *drs_dtype_name(drs_dtype t);
DRS_API size_t drs_dtype_size(drs_dtype t);
/* Element count with overflow check: DRS_ERR_OVERFLOW when the product of
 * the non-zero extents times the element size overflows 64 bits, also when
 * another extent is 0 (every op applies the same bound to every tensor). */
DRS_API drs_status drs_tensor_numel(const drs_tensor *t, int64_t *numel);

/* ------------------------------------------------------ shared enumerations */
typedef enum drs_interp_mode {
    DRS_MODE_NEAREST = 0,
    DRS_MODE_LINEAR,          /* OpenVINO 'linear' (normalised triangle) / ONNX 'linear' */
    DRS_MODE_LINEAR_ONNX,     /* OpenVINO 'linear_onnx' */
    DRS_MODE_CUBIC,
    DRS_MODE_AREA,            /* Interpolate-1 only: adaptive average pooling */
    DRS_MODE_BILINEAR_PILLOW, /* Interpolate-11 only */
    DRS_MODE_BICUBIC_PILLOW   /* Interpolate-11 only */
} drs_interp_mode;

typedef enum drs_coord_mode {
    DRS_COORD_HALF_PIXEL = 0,
    DRS_COORD_PYTORCH_HALF_PIXEL,
    DRS_COORD_ASYMMETRIC,
    DRS_COORD_TF_HALF_PIXEL_FOR_NN,
    DRS_COORD_ALIGN_CORNERS,
    DRS_COORD_TF_CROP_AND_RESIZE,   /* ONNX Resize only */
    DRS_COORD_HALF_PIXEL_SYMMETRIC  /* ONNX Resize-19 only */
} drs_coord_mode;

typedef enum drs_nearest_mode {
    DRS_NEAREST_ROUND_PREFER_FLOOR = 0,
    DRS_NEAREST_ROUND_PREFER_CEIL,
    DRS_NEAREST_FLOOR,
    DRS_NEAREST_CEIL,
    DRS_NEAREST_SIMPLE /* OpenVINO: ceil when down-sampling the axis, else trunc */
} drs_nearest_mode;

typedef enum drs_shape_calc {
    DRS_SHAPE_SIZES = 0,
    DRS_SHAPE_SCALES
} drs_shape_calc;

typedef enum drs_aspect_policy {
    DRS_ASPECT_STRETCH = 0,
    DRS_ASPECT_NOT_LARGER,
    DRS_ASPECT_NOT_SMALLER
} drs_aspect_policy;

/* String <-> enum (the op documents' spelling).  Return -1 when unknown. */
DRS_API int drs_interp_mode_from_str(const char *s);
DRS_API int drs_coord_mode_from_str(const char *s);
DRS_API int drs_nearest_mode_from_str(const char *s);
DRS_API int drs_shape_calc_from_str(const char *s);
DRS_API int drs_aspect_policy_from_str(const char *s);
DRS_API const char *drs_interp_mode_str(drs_interp_mode m);
DRS_API const char *drs_coord_mode_str(drs_coord_mode m);
DRS_API const char *drs_nearest_mode_str(drs_nearest_mode m);

/* ======================================================================
 * OpenVINO Interpolate-1 / -4 / -11
 * ====================================================================== */
typedef struct drs_interpolate_attrs {
    int version;                          /* 1, 4 or 11 */
    drs_interp_mode mode;                 /* v1: nearest|linear|cubic|area */
    drs_shape_calc shape_calculation_mode;/* v4/v11 (v1 is always sizes) */
    drs_coord_mode coordinate_transformation_mode; /* v4/v11, default half_pixel */
    drs_nearest_mode nearest_mode;        /* v4/v11, default round_prefer_floor */
    int antialias;                        /* default 0 */
    int align_corners;                    /* v1 only, default 1 */
    int n_pads_begin;                     /* count of pads_begin entries (resized to rank) */
    int64_t pads_begin[DRS_MAX_RANK];
    int n_pads_end;
    int64_t pads_end[DRS_MAX_RANK];
    double cube_coeff;                    /* default -0.75 */
} drs_interpolate_attrs;

/* Defaults of the given version (1, 4 or 11); mode nearest, sizes mode. */
DRS_API drs_interpolate_attrs drs_interpolate_attrs_default(int version);

/* The 1-D inputs.  A NULL pointer means "absent".
 *  v1:  sizes = target_spatial_shape (one per axis, axes required: a set).
 *  v4:  sizes and scales (only the one named by shape_calculation_mode is
 *       read; the other may be absent), axes optional (default all axes).
 *  v11: scales_or_sizes goes into sizes or scales per shape_calculation_mode.
 */
typedef struct drs_interpolate_inputs {
    const int64_t *sizes;  int n_sizes;
    const double *scales;  int n_scales;
    const int64_t *axes;   int n_axes;
} drs_interpolate_inputs;

DRS_API drs_status drs_interpolate_infer_shape(const drs_interpolate_attrs *attrs,
                                       const drs_tensor *data,
                                       const drs_interpolate_inputs *in,
                                       int *out_rank, int64_t out_shape[DRS_MAX_RANK]);

/* output: caller-allocated, dtype == data->dtype, shape from infer_shape.
 * Integer data: u8 and i8 in linear, linear_onnx and cubic are computed
 * as OpenVINO's reference implementation computes them, bit for bit: float32
 * weights, all taps of an output point summed at once in float32 (the order of
 * the axes list is part of the result), then round half away from zero
 * (linear) or truncation (linear_onnx, cubic), saturated.  Other integer cases
 * accumulate in double and round once (pillow modes: after each pass). */
DRS_API drs_status drs_interpolate_forward(drs_tensor *output, const drs_tensor *data,
                                   const drs_interpolate_inputs *in,
                                   const drs_interpolate_attrs *attrs);

/* ======================================================================
 * ONNX Resize-10 / 11 / 13 / 18 / 19
 * ====================================================================== */
typedef struct drs_resize_attrs {
    int opset;                            /* 10, 11, 13, 18 or 19 */
    drs_interp_mode mode;                 /* nearest|linear|cubic (default nearest) */
    drs_coord_mode coordinate_transformation_mode; /* default half_pixel (10: asymmetric) */
    drs_nearest_mode nearest_mode;        /* default round_prefer_floor (10: simple) */
    double cubic_coeff_a;                 /* default -0.75 */
    int exclude_outside;                  /* default 0 */
    double extrapolation_value;           /* default 0 */
    int antialias;                        /* 18+, default 0 */
    drs_aspect_policy keep_aspect_ratio_policy; /* 18+, default stretch */
    int n_axes;                           /* 18+: attribute 'axes'; 0 = all axes */
    int64_t axes[DRS_MAX_RANK];           /* negative values allowed (normalised) */
} drs_resize_attrs;

DRS_API drs_resize_attrs drs_resize_attrs_default(int opset);

/* 1-D inputs; NULL or a zero count means "absent" (ONNX empty tensor). */
typedef struct drs_resize_inputs {
    const double *roi;     int n_roi;
    const double *scales;  int n_scales;
    const int64_t *sizes;  int n_sizes;
} drs_resize_inputs;

DRS_API drs_status drs_resize_infer_shape(const drs_resize_attrs *attrs, const drs_tensor *X,
                                  const drs_resize_inputs *in,
                                  int *out_rank, int64_t out_shape[DRS_MAX_RANK]);
DRS_API drs_status drs_resize_forward(drs_tensor *Y, const drs_tensor *X,
                              const drs_resize_inputs *in, const drs_resize_attrs *attrs);

/* ======================================================================
 * PyTorch preset: reproduces torch.nn.functional.interpolate exactly.
 * input is [N, C, spatial...] (rank 3, 4 or 5); size/scale_factor apply to
 * the spatial axes.  Modes: "nearest", "nearest-exact", "linear" (3-D),
 * "bilinear" (4-D), "bicubic" (4-D), "trilinear" (5-D), "area"; antialias
 * for bilinear/bicubic.  Float types for every mode; integer types for the
 * nearest modes only.
 * ====================================================================== */
typedef enum drs_torch_mode {
    DRS_TORCH_NEAREST = 0,
    DRS_TORCH_NEAREST_EXACT,
    DRS_TORCH_LINEAR,
    DRS_TORCH_BILINEAR,
    DRS_TORCH_BICUBIC,
    DRS_TORCH_TRILINEAR,
    DRS_TORCH_AREA
} drs_torch_mode;

typedef struct drs_torch_interpolate_attrs {
    drs_torch_mode mode;
    int n_size;                        /* 0 = not given; else 1 (broadcast) or spatial rank */
    int64_t size[3];
    int n_scale_factor;                /* 0 = not given; else 1 (broadcast) or spatial rank */
    double scale_factor[3];
    int align_corners;                 /* -1 = None (False), 0, 1 */
    int antialias;                     /* 0/1 */
    int recompute_scale_factor;        /* -1 = None, 0, 1 */
} drs_torch_interpolate_attrs;

DRS_API drs_torch_interpolate_attrs drs_torch_interpolate_attrs_default(void);
DRS_API int drs_torch_mode_from_str(const char *s);

DRS_API drs_status drs_torch_interpolate_infer_shape(const drs_torch_interpolate_attrs *attrs,
                                             const drs_tensor *input, int *out_rank,
                                             int64_t out_shape[DRS_MAX_RANK]);
DRS_API drs_status drs_torch_interpolate_forward(drs_tensor *output, const drs_tensor *input,
                                         const drs_torch_interpolate_attrs *attrs);

/* ======================================================================
 * Size-preserving intervals (learning scales without a shape change).
 *
 * For one call and each scale entry θ (the others held), the half-open
 * interval [lo[i], hi[i]) of values of θ over which the op's output shape
 * stays what it is at the given value, under the op's own size rule: ONNX
 * Resize floor(L * s) in float64; OpenVINO Interpolate-4/11
 * int64(float(L_padded) * (float(s) + 1e-6f)) in float32 with the pads;
 * PyTorch floor(L * scale_factor).  The ends are exact to the last bit: lo is
 * the smallest double with the same shape, hi the smallest larger double
 * without it (so nextafter(hi, 0) is the largest value that keeps it; a step
 * of h from θ keeps the shape iff θ + h lies in [lo, hi)).  lo = -inf /
 * hi = +inf where no value on that side changes the shape: an entry that does
 * not enter the shape (sizes mode, Interpolate-1, Resize's roi: roi never
 * changes the output shape) gets (-inf, +inf).  Values the op rejects
 * (s <= 0, overflowing sizes) lie outside the interval.  Returns the call's
 * own validation error when the call itself is invalid; nothing is written on
 * error.  Cost: about 130 shape inferences per entry, no data is read
 * (data pointers may be any non-NULL placeholder).
 * ====================================================================== */
/* Interpolate-1/4/11: one interval per in->scales entry (in->n_scales). */
DRS_API drs_status drs_interpolate_scale_range(const drs_interpolate_attrs *attrs,
                                               const drs_tensor *data,
                                               const drs_interpolate_inputs *in, double *lo,
                                               double *hi);
/* ONNX Resize: one interval per scales entry (scales_lo/hi, in->n_scales) and
 * per roi entry (roi_lo/hi, in->n_roi); either pair may be NULL (not computed). */
DRS_API drs_status drs_resize_scale_range(const drs_resize_attrs *attrs, const drs_tensor *X,
                                          const drs_resize_inputs *in, double *scales_lo,
                                          double *scales_hi, double *roi_lo, double *roi_hi);
/* TorchInterpolate: one interval per attrs->scale_factor entry (n_scale_factor;
 * a broadcast single entry covers every spatial axis at once). */
DRS_API drs_status drs_torch_interpolate_scale_range(const drs_torch_interpolate_attrs *attrs,
                                                     const drs_tensor *input, double *lo,
                                                     double *hi);

/* ======================================================================
 * GridSample: OpenVINO GridSample-9, ONNX GridSample-16/20/22.
 *
 * data   [N, C, spatial...]      spatial rank S = 1, 2 or 3 (rank 3, 4, 5);
 *                                 GridSample-9 and -16 take 4-D only.
 * grid   [N, out spatial..., S]  f32 or f64; the last axis lists the
 *                                 coordinates innermost-first: x (width),
 *                                 then y (height), then z (depth).
 * output [N, C, out spatial...]  dtype of data.
 * Coordinates are normalised to [-1, 1]; align_corners=1 maps -1/+1 to the
 * centres of the corner pixels, 0 to their outer edges (the
 * standard meaning, not the inverted text of OpenVINO's GridSample-9 page).
 * Modes: bilinear (ONNX 20+ "linear"; trilinear for 5-D), nearest (round half
 * to even, then pad the index, as OpenVINO and the ONNX reference do), bicubic
 * (ONNX 20+ "cubic"; Keys a = -0.75 on the raw coordinate; tricubic for 5-D).
 * Padding: zeros, border, reflection.  Non-finite coordinates: with
 * zeros the sample is 0; with border/reflection +-inf clamps to the edge and
 * NaN samples pixel coordinate 0; their grid gradient is 0.
 * Integer data (u8, i8, i32, i64; forward only): accumulated in double, then
 * rounded half to even and saturated.
 * ====================================================================== */
typedef enum drs_grid_mode {
    DRS_GRID_BILINEAR = 0, /* "bilinear" (9, 16) / "linear" (20, 22) */
    DRS_GRID_NEAREST,      /* "nearest" */
    DRS_GRID_BICUBIC       /* "bicubic" (9, 16) / "cubic" (20, 22) */
} drs_grid_mode;

typedef enum drs_grid_padding {
    DRS_GRID_PAD_ZEROS = 0,
    DRS_GRID_PAD_BORDER,
    DRS_GRID_PAD_REFLECTION
} drs_grid_padding;

typedef struct drs_grid_sample_attrs {
    int version;                  /* 9 (OpenVINO), 16, 20 or 22 (ONNX) */
    drs_grid_mode mode;           /* default bilinear */
    drs_grid_padding padding_mode;/* default zeros */
    int align_corners;            /* default 0 */
} drs_grid_sample_attrs;

DRS_API drs_grid_sample_attrs drs_grid_sample_attrs_default(int version);
/* Accepts every spelling of every version ("bilinear", "linear", "bicubic",
 * "cubic", "nearest"); -1 when unknown.  drs_grid_mode_str gives the
 * spelling of the given version. */
DRS_API int drs_grid_mode_from_str(const char *s);
DRS_API int drs_grid_padding_from_str(const char *s);
DRS_API const char *drs_grid_mode_str(drs_grid_mode m, int version);
DRS_API const char *drs_grid_padding_str(drs_grid_padding p);

DRS_API drs_status drs_grid_sample_infer_shape(const drs_grid_sample_attrs *attrs, const drs_tensor *data,
                                       const drs_tensor *grid, int *out_rank,
                                       int64_t out_shape[DRS_MAX_RANK]);
DRS_API drs_status drs_grid_sample_forward(drs_tensor *output, const drs_tensor *data,
                                   const drs_tensor *grid, const drs_grid_sample_attrs *attrs);

/* ======================================================================
 * Backward (gradients).  Floating types only (f32, f64).
 *
 * Every gradient output may be NULL: it is then not computed at all (no work
 * is spent on it).  `mode` chooses between overwriting the caller's gradient
 * buffers and accumulating (+=) into them.  All arguments are validated
 * before anything is written, exactly like the forward calls.
 *
 *  - data gradient (data_delta / image_delta / X_delta / input_delta): the
 *    exact adjoint of the implemented forward, same shape and dtype as the
 *    data; padded cells are dropped, extrapolated outputs contribute nothing.
 *  - scales_delta: d(loss)/d(scales[i]) with the output size held fixed
 *    (docs/semantics.md), one double per scales entry.  Exactly 0 for nearest, area,
 *    the pillow modes, OpenVINO's identity short-cut, integer-width
 *    align_corners, and in sizes mode (the scales do not enter the forward).
 *  - roi_delta (Resize with tf_crop_and_resize): d(loss)/d(roi[i]), one double
 *    per roi entry; 0 for other coordinate modes.
 *  - Kinks (docs/semantics.md, "Kinks"): where the forward is not smooth in a
 *    scale/roi entry (a coordinate on an integer for linear, an antialias
 *    support edge, min(s, 1) at s = 1), the value is a one-sided derivative:
 *    the side of the entry on which the output size stays what it is (the
 *    right derivative when the entry is the low end lo of its
 *    drs_*_scale_range interval, e.g. s = 1 on an unresized axis under ONNX's
 *    floor rule; the left one at its last value); where both sides keep the
 *    size, the side of the forward's tap choice (the right derivative in the
 *    coordinate c; at tf_crop_and_resize's extrapolation edge c = L-1 the left
 *    one, where the forward interpolates).  dc/ds may be negative, so the
 *    right side in s can be the left side in c.
 * output_delta must have exactly the forward output's shape and the data's
 * dtype.  Threads: bitwise identical for any thread count, no atomics; the
 * data gradient is a gather through the transposed table, parallel over input
 * rows even for a single image.
 * ====================================================================== */
typedef enum drs_grad_mode {
    DRS_GRAD_OVERWRITE = 0,
    DRS_GRAD_ACCUMULATE = 1
} drs_grad_mode;

/* Interpolate-1/4/11.  scales_delta: in->n_scales entries (scales mode; in
 * sizes mode it is set to zeros when given). */
DRS_API drs_status drs_interpolate_backward(drs_tensor *data_delta, double *scales_delta,
                                    const drs_tensor *output_delta, const drs_tensor *data,
                                    const drs_interpolate_inputs *in,
                                    const drs_interpolate_attrs *attrs, drs_grad_mode mode);

/* InterpolateBackprop-4 (defined in docs/semantics.md): attrs->version must be 4; outputs
 * input_delta (shape of data) and scales_delta (scales mode only: requesting
 * it in sizes mode is an error, as the op has no such output there). */
DRS_API drs_status drs_interpolate_backprop(drs_tensor *input_delta, double *scales_delta,
                                    const drs_tensor *data, const drs_tensor *output_delta,
                                    const drs_interpolate_inputs *in,
                                    const drs_interpolate_attrs *attrs, drs_grad_mode mode);

/* ONNX Resize.  scales_delta needs the scales input (in->n_scales entries);
 * roi_delta needs the roi input (in->n_roi entries). */
DRS_API drs_status drs_resize_backward(drs_tensor *X_delta, double *scales_delta, double *roi_delta,
                               const drs_tensor *output_delta, const drs_tensor *X,
                               const drs_resize_inputs *in, const drs_resize_attrs *attrs,
                               drs_grad_mode mode);

/* PyTorch preset: the input gradient of F.interpolate. */
DRS_API drs_status drs_torch_interpolate_backward(drs_tensor *input_delta,
                                          const drs_tensor *output_delta,
                                          const drs_tensor *input,
                                          const drs_torch_interpolate_attrs *attrs,
                                          drs_grad_mode mode);

/* GridSample.  data_delta: shape/dtype of data; grid_delta: shape/dtype of
 * grid; either may be NULL (not computed).  PyTorch's gradient rules
 * (docs/semantics.md): border counts as clipped (factor 0 at and beyond the edge),
 * reflection flips the sign per reflection, nearest has a zero grid
 * gradient, bicubic has no padding factor.  data_delta is the exact adjoint
 * of the forward: each pixel sums its entries in ascending (point, tap) order,
 * by a per-channel scatter into double planes or by a gather through the
 * transposed tap list (parallel over pixels even for N = 1); the scheme and
 * the summation order are fixed by the shapes alone. */
DRS_API drs_status drs_grid_sample_backward(drs_tensor *data_delta, drs_tensor *grid_delta,
                                    const drs_tensor *output_delta, const drs_tensor *data,
                                    const drs_tensor *grid, const drs_grid_sample_attrs *attrs,
                                    drs_grad_mode mode);

#ifdef __cplusplus
}
#endif
#endif /* DRESAMPLE_H */
