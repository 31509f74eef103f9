/* SPDX-License-Identifier: MIT */
/* dresample_gradcheck.h — finite-difference gradient checks (in the spirit of
 * torch.autograd.gradcheck), built on the public API of dresample.h only.
 *
 * Two layers:
 *
 *  1. drs_gradcheck(): a generic checker.  A function under test is a pair of
 *     callbacks over float64 buffers: forward(inputs) -> output, and
 *     backward(output_delta) -> input gradients (the vector-Jacobian product).
 *     It compares the backward against float64 central differences of the
 *     forward, either entry by entry over the full Jacobian or, in fast mode,
 *     as v^T J u for seeded random unit vectors u and v; checks that gradients
 *     declared exactly zero are zero bit for bit; that backward run twice gives
 *     the same bits (reentrancy) and leaves its arguments alone; and that
 *     backward is linear in output_delta.  The report names the worst entry.
 *
 *  2. drs_gc_op_*(): adapters that wrap one dresample op (Interpolate-1/4/11,
 *     InterpolateBackprop-4, Resize-10..19, TorchInterpolate, GridSample) as a
 *     function under test, with kink-aware sampling of the differentiable
 *     parameters: scales, roi and grid points are drawn at random and a draw is
 *     rejected when a sampling coordinate, anywhere in the finite-difference
 *     interval (widened by a margin), comes within a margin of a point where
 *     the op is not differentiable (a floor/tap switch, a rounding switch, a
 *     clip/border/extrapolation edge, an antialias support edge, s = 1 where
 *     min(s, 1) switches) or where the output size would change.  The
 *     rejections are counted per reason (drs_gc_avoid).
 *
 * Threads: the checker itself is serial; several checks may run concurrently
 * on different threads (no global state besides dresample's thread-local
 * error message).  Errors: every call returns a drs_status; a *failed check*
 * is not an error (the call returns DRS_OK and the report says why).
 */
#ifndef DRESAMPLE_GRADCHECK_H
#define DRESAMPLE_GRADCHECK_H

#include <dresample.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================================ checker */
#define DRS_GC_MAX_INPUTS 4

/* What is checked for the gradient of one input element. */
typedef enum drs_gc_kind {
    DRS_GC_CHECK = 0, /* compare analytic with central differences */
    DRS_GC_ZERO = 1,  /* defined as exactly 0: the analytic value must be 0.0 bit for bit
                         (no differences are taken: the op may be a step function there) */
    DRS_GC_SKIP = 2,  /* not compared (e.g. no gradient) */
    DRS_GC_KINK = 3   /* the point may sit on a kink (or next to a size step): compared,
                         per output element, with the one-sided differences
                         (-3f(x) + 4f(x+eps) - f(x+2eps)) / 2eps and its mirror on the left;
                         a side whose forward fails (the output size changes there) is not
                         used; the analytic value must match a usable side */
} drs_gc_kind;

typedef struct drs_gc_input {
    const char *name;            /* for reports: "data", "scales", "roi", "grid", ... */
    double *value;               /* n values (the point); perturbed in place while
                                    checking and restored bit for bit afterwards */
    int64_t n;
    drs_gc_kind kind;            /* for every element, unless elem_kind is given */
    const unsigned char *elem_kind; /* optional: a drs_gc_kind per element */
    int no_grad;                 /* 1: backward is never asked for this gradient */
} drs_gc_input;

/* A function under test.  The callbacks return 0 on success; any other value
 * makes the check fail with DRS_GC_F_CALLBACK (e.g. a forward that refuses a
 * perturbed point because its output shape would change). */
typedef struct drs_gc_fn {
    int n_inputs;                        /* 1 .. DRS_GC_MAX_INPUTS */
    drs_gc_input in[DRS_GC_MAX_INPUTS];
    int64_t n_out;                       /* output element count */
    /* y[n_out] = f(x[0], ..., x[n_inputs-1]) with x[i] = in[i].value. */
    int (*forward)(void *ctx, double *const *x, double *y);
    /* grad[i][0 .. in[i].n) = (dy/dx[i])^T dy, overwritten; grad[i] is NULL
     * when that gradient is not wanted.  Must not modify x or dy. */
    int (*backward)(void *ctx, double *const *x, const double *dy, double *const *grad);
    void *ctx;
    /* Optional: the reason of the last failed callback in words (e.g. the
     * library's drs_last_error()), copied into the report's message. */
    const char *(*error)(void *ctx);
} drs_gc_fn;

typedef struct drs_gc_options {
    double eps;          /* central-difference step, absolute (default 1e-6) */
    double atol;         /* default 1e-5 */
    double rtol;         /* default 1e-3: pass iff |analytic - numeric| <= atol + rtol*|numeric| */
    int fast_mode;       /* 0: every Jacobian entry; 1: v^T J u per input (default 0) */
    int n_probes;        /* fast mode: (u, v) pairs per input (default 2) */
    uint64_t seed;       /* u, v and the output_delta of the extra checks (default 1) */
    int check_reentrant; /* backward twice: same bits, arguments untouched (default 1) */
    int check_linearity; /* B(a dy1 + dy2) = a B(dy1) + B(dy2) within atol/rtol (default 1) */
} drs_gc_options;

DRS_API drs_gc_options drs_gc_options_default(void);

/* Failure bits of a report. */
#define DRS_GC_F_MISMATCH 1u   /* analytic and numeric differ beyond tolerance */
#define DRS_GC_F_ZERO 2u       /* a gradient declared exactly zero is not 0.0 */
#define DRS_GC_F_REENTRANT 4u  /* two backward calls gave different bits */
#define DRS_GC_F_LINEARITY 8u  /* backward is not linear in output_delta */
#define DRS_GC_F_CALLBACK 16u  /* a callback returned non-zero */
#define DRS_GC_F_MUTATES 32u   /* backward modified x or output_delta */
#define DRS_GC_F_NONFINITE 64u /* a NaN or inf in an analytic or numeric value */

/* One compared entry.  Full mode: in[input].value[index] against output
 * element out_index.  Fast mode: index is the probe number and out_index -1
 * (the entry is v^T J u). */
typedef struct drs_gc_entry {
    int input;           /* -1: none compared */
    int64_t index;
    int64_t out_index;
    double analytic, numeric;
    double abs_err, rel_err; /* rel_err = abs_err / max(|numeric|, tiny) */
} drs_gc_entry;

typedef struct drs_gc_report {
    int passed;              /* 1 iff failures == 0 */
    unsigned failures;       /* DRS_GC_F_* */
    double max_abs_err;      /* over all compared entries */
    double max_rel_err;      /* over entries with |numeric| > atol */
    double max_err_ratio;    /* largest abs_err / (atol + rtol*|numeric|): <= 1 passes */
    drs_gc_entry worst;      /* largest abs_err / (atol + rtol*|numeric|) */
    double max_abs_numeric;  /* largest |numeric| compared (0: the check was vacuous) */
    int64_t n_compared;      /* Jacobian entries (full) or probes (fast) compared */
    int64_t n_zero_checked;  /* gradient elements checked to be exactly 0 */
    int64_t n_skipped;       /* input elements with DRS_GC_SKIP */
    int64_t n_forward, n_backward; /* callback calls made */
    double linearity_err;    /* max |B(a dy1+dy2) - a B(dy1) - B(dy2)| / tolerance (<= 1 passes) */
    char message[256];       /* first failure in words ("" when passed) */
    /* DRS_GC_KINK elements: */
    int64_t n_kink;          /* elements compared with one-sided differences */
    int64_t n_kink_one_side; /* ... of which only one side kept the forward defined */
    int64_t n_kink_right, n_kink_left; /* compared entries matched to the right / left side */
    /* A failing callback: the input element being perturbed (-1: none, e.g. at
     * the unperturbed point) and the callback's own message (fn.error). */
    int fail_input;
    int64_t fail_index;
    char error[256];
    /* Per input (indexed like fn.in): entries compared, the worst one
     * (input -1 when none) and its abs_err / (atol + rtol*|numeric|). */
    int64_t input_compared[DRS_GC_MAX_INPUTS];
    drs_gc_entry input_worst[DRS_GC_MAX_INPUTS];
    double input_err_ratio[DRS_GC_MAX_INPUTS];
} drs_gc_report;

/* Runs the checks.  DRS_OK when a verdict was reached (pass or fail: see
 * rep->passed); DRS_ERR_INVALID_ARGUMENT for a malformed fn or options, or a
 * full Jacobian of more than 2^27 entries (use fast mode); DRS_ERR_NOMEM.
 * Full mode: 2 forward calls per checked element and one backward call per
 * output element.  Fast mode: per probe one backward call and 2 forward calls
 * per input; u and v are unit vectors, so v^T J u is on the scale of one
 * Jacobian entry and the same atol/rtol apply.  Then 2 backward calls for
 * reentrancy and 3 for linearity. */
DRS_API drs_status drs_gradcheck(const drs_gc_fn *f, const drs_gc_options *opt, drs_gc_report *rep);

/* ===================================================== kink-aware sampling */
typedef enum drs_gc_avoid_reason {
    DRS_GC_AVOID_SIZE_STEP = 0,  /* the output length would change within the margin */
    DRS_GC_AVOID_TAP_SWITCH,     /* a coordinate near an integer: floor()/tap choice switches */
    DRS_GC_AVOID_ROUNDING,       /* nearest: a coordinate near a rounding switch (k + 1/2) */
    DRS_GC_AVOID_CLIP,           /* near a clip/border/reflection/extrapolation edge */
    DRS_GC_AVOID_SUPPORT_EDGE,   /* antialias kernel: c - j near +-1/a (or +-2/a for cubic) */
    DRS_GC_AVOID_SCALE_ONE,      /* scale near 1: min(s, 1) / OpenVINO identity short-cut */
    DRS_GC_AVOID_COUNT
} drs_gc_avoid_reason;

typedef struct drs_gc_avoid {
    int64_t candidates;          /* draws made */
    int64_t accepted;
    int64_t rejected[DRS_GC_AVOID_COUNT];
    int64_t fixed_on_kink;       /* values fixed by the case (not drawn) that sit on or near a
                                    kink or a size step: their gradient is marked DRS_GC_KINK
                                    (checked with one-sided differences) */
    int64_t unchecked;           /* parameter values left DRS_GC_SKIP (none today) */
} drs_gc_avoid;

DRS_API const char *drs_gc_avoid_reason_str(drs_gc_avoid_reason r);
DRS_API void drs_gc_avoid_add(drs_gc_avoid *sum, const drs_gc_avoid *a);

/* ================================================================ op cases */
typedef enum drs_gc_family {
    DRS_GC_INTERPOLATE = 0,      /* drs_interpolate_* (versions 1, 4, 11) */
    DRS_GC_INTERPOLATE_BACKPROP, /* forward Interpolate-4, backward drs_interpolate_backprop */
    DRS_GC_RESIZE,
    DRS_GC_TORCH,
    DRS_GC_GRID_SAMPLE
} drs_gc_family;

/* One op with its attributes and shapes.  The differentiable parameters are
 * filled in by drs_gc_op_sample(): scales (scales mode) and roi
 * (tf_crop_and_resize) with the kink-aware sampler, grid points likewise,
 * data uniformly in [-1, 1].  Entries of `scales` at indices with
 * scale_fixed[i] = 1 keep the given value (e.g. 1 on N and C). */
typedef struct drs_gc_op {
    drs_gc_family family;
    drs_interpolate_attrs interp;        /* INTERPOLATE, INTERPOLATE_BACKPROP */
    drs_resize_attrs resize;             /* RESIZE */
    drs_torch_interpolate_attrs torch;   /* TORCH */
    drs_grid_sample_attrs grid;          /* GRID_SAMPLE */
    int rank;
    int64_t shape[DRS_MAX_RANK];         /* data shape */
    int grid_rank;                       /* GRID_SAMPLE: grid [N, out spatial..., S] */
    int64_t grid_shape[DRS_MAX_RANK];
    /* 1-D inputs of Interpolate/Resize (counts 0 = absent) */
    int n_axes;   int64_t axes[DRS_MAX_RANK];   /* Interpolate 'axes' input */
    int n_sizes;  int64_t sizes[DRS_MAX_RANK];
    int n_scales; double scales[DRS_MAX_RANK];
    unsigned char scale_fixed[DRS_MAX_RANK];
    int n_roi;    double roi[2 * DRS_MAX_RANK];
    double scale_lo, scale_hi;           /* sampling range of scales (default 0.45, 1.9) */
    int roi_fixed;                       /* 1: keep the given roi (not drawn); on or near a
                                            kink its gradient is DRS_GC_KINK */
} drs_gc_op;

/* A zeroed case of the family with the version's default attributes. */
DRS_API drs_gc_op drs_gc_op_init(drs_gc_family family, int version);

/* Asks the library whether the combination is valid (its infer_shape call,
 * with the case's placeholder scales/roi): DRS_OK, or the library's status
 * (DRS_ERR_INVALID_ARGUMENT for an invalid combination) with
 * drs_last_error() naming it.  Cheap: no data is touched. */
DRS_API drs_status drs_gc_op_validate(const drs_gc_op *op);

/* "Resize-19 linear half_pixel aa=1 ..." */
DRS_API void drs_gc_op_describe(const drs_gc_op *op, char *buf, size_t size);

/* A prepared check: the drs_gc_fn and the buffers it owns.  fn.ctx points at
 * the case itself: do not move a prepared case. */
typedef struct drs_gc_case {
    drs_gc_op op;            /* with the sampled parameters */
    drs_gc_fn fn;
    int out_rank;
    int64_t out_shape[DRS_MAX_RANK];
    double *buf;             /* every buffer, one allocation */
    unsigned char *kinds;    /* per-element kinds of the parameter inputs */
    int grad_data, grad_scales, grad_roi, grad_grid; /* per gradient: -1 absent, else the
                                    drs_gc_kind of its elements (mixed: CHECK if any is) */
    int idx_scales, idx_roi, idx_grid; /* index in fn.in, -1 when absent */
    char error[256];         /* the library's message when a callback failed */
} drs_gc_case;

/* Validates the op through the library (infer_shape; DRS_ERR_INVALID_ARGUMENT
 * for an invalid combination, with drs_last_error() naming it), samples the
 * parameters (seeded; `avoid` accumulates the rejections and may be NULL),
 * decides which gradients exist and which are exactly zero (docs/semantics.md), and
 * builds the function under test.  The data (uniform in [-1, 1]) and the grid
 * come from streams of their own: the same seed gives the same data and grid
 * whatever was drawn for the parameters, so a case rerun with its drawn
 * scales/roi fixed (scale_fixed, roi_fixed) is the same case.  Free with
 * drs_gc_case_free(). */
DRS_API drs_status drs_gc_case_prepare(drs_gc_case *c, const drs_gc_op *op, uint64_t seed,
                               drs_gc_avoid *avoid);
DRS_API void drs_gc_case_free(drs_gc_case *c);

#ifdef __cplusplus
}
#endif
#endif /* DRESAMPLE_GRADCHECK_H */
