# SPDX-License-Identifier: MIT
"""python_ratios.py — do the dresample.torch wrappers keep the C bench's speed?

Usage: venv/bin/python bench/python_ratios.py PATH/TO/bench [--threads 1] [--runs R]
                        [--warmup K] [--workload W1,W8,...] [--smoke] [--tolerance 0.10]
                        [--rounds K] [--best] [--interleave] [--cpu-time]

For each workload W1..W12 of bench/bench.c it runs the C benchmark once
(--json) and then, in this process, times on the same shapes, inputs and
attributes: PyTorch's ATen kernels (exactly as bench/compare_torch.py does,
the reference of the C bench's ratios) and the dresample.torch wrapper that a
user would call (dresample.torch.interpolate / resize / openvino_interpolate /
grid_sample; forward under no_grad, backward as torch.autograd.grad of the
recorded graph, so the wrapper's argument handling, the tensor <-> NumPy
views, the output allocation and the autograd node are all in the time).
Each contender is timed in a block of consecutive calls, as the C bench times
its kernels: every contender then finds its own inputs and outputs in the
caches as the C bench does (on a machine whose L3 holds a workload, calls
interleaved with PyTorch's, which move as many bytes, would find them evicted
and be timed against a warm C bench; --interleave times call by call anyway).
Per workload this is done in --rounds rounds (default 3), each one run of the
C bench followed by the in-process blocks (their order rotating from round to
round), and every time is the median over the rounds, so that a change of the
machine's speed during the run hits the C bench and the wrapper alike.
With --cpu-time (needs --threads 1) every side times the calling thread's
CPU time instead of wall time (the C bench with its own --cpu-time): on a
shared or virtual machine this leaves out the time the thread waits while
another process, or the hypervisor, has its core.

It prints per workload the C ratio (C time / PyTorch time), the wrapper ratio
(wrapper time / PyTorch time) and their quotient; the target is a quotient
within 1 +- tolerance (default 10 %) for forward and backward.  Exit status 1
when a wrapper result differs from the C bench's (sum and sum of |.| within
1e-4 relative), else 0 (missed targets are reported, not failed: timings on a
shared machine are noisy).  Library and PyTorch use the same thread count.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_torch as ct  # noqa: E402  (re-exec with its glibc malloc settings below)

if __name__ == "__main__":
    ct.reexec_with_malloc_env()

import argparse  # noqa: E402
import math  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

import torch  # noqa: E402

import dresample  # noqa: E402
import dresample.torch as dt  # noqa: E402

GRID_MODES = ("bilinear", "nearest", "bicubic")
GRID_PADS = ("zeros", "border", "reflection")


class CoreCase:
    """The same computation through dresample._core alone (the extension over
    the C API, outputs preallocated as in the C bench): the kernel time in this
    process, to compare the wrapper with under the same machine load."""

    def __init__(self, rec):
        core = dresample._core
        kind = rec["kind"]
        ins, outs = rec["in_shape"], rec["out_shape"]
        x = ct.fill(math.prod(ins), 0).reshape(ins)
        dy = ct.fill(math.prod(outs), 1000003).reshape(outs)
        y = ct.aligned_empty(outs)
        dx = ct.aligned_empty(ins)
        alloc = lambda shape, dtype: y  # noqa: E731
        if kind == "grid":
            g = ct.affine_grid(rec["theta"], rec["grid_shape"])
            dg = ct.aligned_empty(g.shape)
            a = (9, GRID_MODES[rec["grid_mode"]], GRID_PADS[rec["grid_padding"]], False)
            self.fwd = lambda: core.grid_sample(alloc, y.dtype, x, g, *a)
            self.bwd = lambda: core.grid_sample_backward(dx, dg, dy, x, g, *a)
        elif kind == "nhwc":
            sc = [outs[1] / ins[1], outs[2] / ins[2]]
            a = dresample._resize_args("resize", None, sc, None, 19,
                                       {"mode": "linear", "axes": [1, 2]})
            self.fwd = lambda: core.resize(alloc, y.dtype, x, *a)
            self.bwd = lambda: core.resize_backward(dx, None, None, dy, x, *a)
        elif kind == "backprop":
            sc = [outs[2] / ins[2], outs[3] / ins[3]]
            a = dresample._interp_args("interpolate", None, sc, [2, 3], 4, {
                "mode": "linear_onnx", "shape_calculation_mode": "scales",
                "coordinate_transformation_mode": "half_pixel"})
            self.fwd = lambda: core.interpolate(alloc, y.dtype, x, *a)
            self.bwd = lambda: core.interpolate_backprop(dx, None, dy, x, *a)
        else:
            mode, aa = rec["tmode"], bool(rec["antialias"])
            ac = False if mode in ("bilinear", "bicubic", "trilinear", "linear") else None
            a = (list(outs[2:]), None, mode, ac, aa, None)
            self.fwd = lambda: core.torch_interpolate(alloc, y.dtype, x, *a)
            self.bwd = lambda: core.torch_interpolate_backward(dx, dy, x, *a)


class WrapperCase:
    """The dresample.torch call of one bench record: fwd() and bwd() closures."""

    def __init__(self, rec):
        kind = rec["kind"]
        ins, outs = rec["in_shape"], rec["out_shape"]
        x = torch.from_numpy(ct.fill(math.prod(ins), 0).reshape(ins))
        self.dy = torch.from_numpy(ct.fill(math.prod(outs), 1000003).reshape(outs))
        xg = x.clone().requires_grad_()
        if kind == "grid":
            g = torch.from_numpy(ct.affine_grid(rec["theta"], rec["grid_shape"]))
            gg = g.clone().requires_grad_()
            m, p = GRID_MODES[rec["grid_mode"]], GRID_PADS[rec["grid_padding"]]
            call = lambda a, b: dt.grid_sample(a, b, mode=m, padding_mode=p,  # noqa: E731
                                               align_corners=False)
            self.fwd = lambda: call(x, g)
            self.y = call(xg, gg)
            self.wrt = (xg, gg)
        elif kind == "nhwc":  # Resize-19 linear half_pixel on axes {1, 2} of [N, H, W, C]
            sc = [outs[1] / ins[1], outs[2] / ins[2]]
            call = lambda a: dt.resize(a, scales=sc, axes=[1, 2], mode="linear")  # noqa: E731
            self.fwd = lambda: call(x)
            self.y = call(xg)
            self.wrt = (xg,)
        elif kind == "backprop":  # Interpolate-4 linear_onnx, scales {2, 2} on axes {2, 3}
            sc = [outs[2] / ins[2], outs[3] / ins[3]]
            call = lambda a: dt.openvino_interpolate(  # noqa: E731
                a, scales=sc, axes=[2, 3], mode="linear_onnx",
                shape_calculation_mode="scales", coordinate_transformation_mode="half_pixel")
            self.fwd = lambda: call(x)
            self.y = call(xg)
            self.wrt = (xg,)
        else:
            mode, aa = rec["tmode"], bool(rec["antialias"])
            ac = False if mode in ("bilinear", "bicubic", "trilinear", "linear") else None
            osz = list(outs[2:])
            call = lambda a: dt.interpolate(a, size=osz, mode=mode, align_corners=ac,  # noqa
                                            antialias=aa)
            self.fwd = lambda: call(x)
            self.y = call(xg)
            self.wrt = (xg,)
        fwd = self.fwd

        def f():
            with torch.no_grad():
                return fwd()
        self.fwd = f
        self.bwd = lambda: torch.autograd.grad(self.y, self.wrt, self.dy, retain_graph=True)


def timed(fns, warmup, runs, threads, rotate=0):
    """{name: median ms} of runs calls of each fn (with --best, the fastest
    call instead of the median): each fn in a block of warmup + runs
    consecutive calls, the blocks' order rotated by `rotate`; with
    --interleave, call by call."""
    torch.set_num_threads(threads)
    dresample.set_num_threads(threads)
    names = list(fns)
    names = names[rotate % len(names):] + names[:rotate % len(names)]
    ts = {k: [] for k in fns}

    clock = time.thread_time if CPU_TIME[0] else time.perf_counter

    def call(k):
        t0 = clock()
        fns[k]()
        ts[k].append((clock() - t0) * 1e3)
    if INTERLEAVE[0]:
        for k in names:
            for _ in range(warmup):
                fns[k]()
        for _ in range(runs):
            for k in names:
                call(k)
    else:
        for k in names:
            for _ in range(warmup):
                fns[k]()
            for _ in range(runs):
                call(k)
    pick = min if BEST[0] else statistics.median
    return {k: pick(v) for k, v in ts.items()}


BEST = [False]
INTERLEAVE = [False]
CPU_TIME = [False]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("bench", help="path to the bench binary (build/bench/drs_bench)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--workload", help="comma-separated workloads (W8 = W8a-d)")
    ap.add_argument("--smoke", action="store_true", help="tiny shapes (plumbing only)")
    ap.add_argument("--tolerance", type=float, default=0.10)
    ap.add_argument("--no-malloc-env", action="store_true")
    ap.add_argument("--best", action="store_true", help="fastest call instead of the median")
    ap.add_argument("--interleave", action="store_true",
                    help="time the contenders call by call instead of in blocks")
    ap.add_argument("--cpu-time", action="store_true",
                    help="time the calling thread's CPU time (C bench and this process; "
                         "needs --threads 1)")
    ap.add_argument("--rounds", type=int, default=3,
                    help="per workload, this many rounds of (C bench run, in-process timing); "
                         "each time is the median over the rounds (default 3)")
    args = ap.parse_args()
    BEST[0] = args.best
    INTERLEAVE[0] = args.interleave
    CPU_TIME[0] = args.cpu_time
    if args.cpu_time and args.threads != 1:
        ap.error("--cpu-time needs --threads 1 (it times the calling thread)")
    bench = os.path.abspath(args.bench)
    names = ct.list_workloads(bench, args.workload, args.smoke)
    common = ["--runs", str(args.runs), "--warmup", str(args.warmup), "--threads",
              str(args.threads)] + (["--smoke"] if args.smoke else []) + (
                  ["--cpu-time"] if args.cpu_time else [])
    print(f"dresample {dresample.__version__} torch wrappers vs the C bench, PyTorch "
          f"{torch.__version__}, threads {args.threads}, runs {args.runs} "
          f"({'fastest' if args.best else 'median'}, "
          f"{'interleaved' if args.interleave else 'in blocks'}"
          f"{', thread CPU time' if args.cpu_time else ''}), "
          f"load average {os.getloadavg()[0]:.2f}", flush=True)
    hdr = (f"{'name':<4} | {'C fwd':>8} {'C spr':>5} {'wrap':>8} {'torch':>8} {'C r':>5} "
           f"{'wr r':>5} {'q':>5} {'core':>8} {'qi':>5} | {'C bwd':>8} {'C spr':>5} {'wrap':>8} "
           f"{'torch':>8} {'C r':>5} {'wr r':>5} {'q':>5} {'core':>8} {'qi':>5} | check")
    print(hdr)
    print("-" * len(hdr))
    bad, missed, qs, missed_i, qis, noisy = [], [], [], [], [], []
    for name in names:
        rec = ct.run_bench(bench, ["--workload", name, "--no-copy"] + common)[0]
        tc = ct.TorchCase(rec)
        wc = WrapperCase(rec)
        cc = CoreCase(rec)
        ok = ct.agrees(wc.fwd(), rec["fwd"])
        g = wc.bwd()
        ok = ok and ct.agrees(g[0], rec["bwd"]) and (len(g) == 1 or
                                                     ct.agrees(g[1], rec["bwd_grid"]))
        if not ok:
            bad.append(name)
        torch_bwd_ok = tc.bwd is not None
        if torch_bwd_ok:
            try:
                tc.bwd()
            except (RuntimeError, NotImplementedError):
                torch_bwd_ok = False
        bwd_fns = ({"torch": tc.bwd, "wrap": wc.bwd, "core": cc.bwd} if torch_bwd_ok else
                   {"wrap": wc.bwd, "core": cc.bwd})
        key = "_min_ms" if args.best else "_ms"  # the C bench's statistic matching ours
        # Rounds of (the C bench in its own process, then this process's calls),
        # so that a change of the machine's speed during the run hits both sides.
        rounds = []
        for r in range(max(args.rounds, 1)):
            if r > 0:
                rec = ct.run_bench(bench, ["--workload", name, "--no-copy"] + common)[0]
            f = timed({"torch": tc.fwd, "wrap": wc.fwd, "core": cc.fwd}, args.warmup,
                      args.runs, args.threads, r)
            b = timed(bwd_fns, args.warmup, args.runs, args.threads, r)
            rounds.append((rec["fwd" + key], rec["bwd" + key], f, b))

        def med(i, k=None):
            return statistics.median(x[i] if k is None else x[i][k] for x in rounds)
        f = {k: med(2, k) for k in rounds[0][2]}
        b = {k: med(3, k) for k in rounds[0][3]}
        cells = []
        for i, what, c_ms, t in ((0, "fwd", med(0), f), (1, "bwd", med(1), b)):
            # the C bench's own spread over the rounds' processes (max / min)
            cs = [x[i] for x in rounds]
            spr = max(cs) / min(cs) if min(cs) > 0 else float("nan")
            if "torch" not in t:
                cells.append(f"{c_ms:8.2f} {spr:5.2f} {t['wrap']:8.2f} {'n/a':>8} {'':>5} {'':>5} "
                             f"{t['wrap'] / c_ms:5.2f} {t['core']:8.2f} {t['wrap'] / t['core']:5.2f}")
                q = t["wrap"] / c_ms
            else:
                cr, wr = c_ms / t["torch"], t["wrap"] / t["torch"]
                q = wr / cr
                cells.append(f"{c_ms:8.2f} {spr:5.2f} {t['wrap']:8.2f} {t['torch']:8.2f} {cr:5.2f} "
                             f"{wr:5.2f} {q:5.2f} {t['core']:8.2f} {t['wrap'] / t['core']:5.2f}")
            if len(cs) > 1 and spr > 1.0 + args.tolerance:
                noisy.append(f"{name} {what} {spr:.2f}")
            qi = t["wrap"] / t["core"]
            qs.append(q)
            qis.append(qi)
            if abs(q - 1.0) > args.tolerance:
                missed.append(f"{name} {what} {q:.2f}")
            if abs(qi - 1.0) > args.tolerance:
                missed_i.append(f"{name} {what} {qi:.2f}")
        print(f"{name:<4} | {cells[0]} | {cells[1]} | {'ok' if ok else 'DIFF'}", flush=True)
        del tc, wc
    geo = math.exp(sum(map(math.log, qs)) / len(qs))
    geoi = math.exp(sum(map(math.log, qis)) / len(qis))
    print(f"\nms; C r = C bench / PyTorch, wr r = wrapper / PyTorch, q = wr r / C r; core = the "
          f"same kernels through dresample._core in this process (preallocated outputs, timed "
          f"like the wrapper and PyTorch), qi = wrapper / core; target |q - 1| <= "
          f"{args.tolerance:.2f}")
    print(f"geomean q {geo:.3f}; outside the target: {', '.join(missed) if missed else 'none'}")
    print(f"geomean qi {geoi:.3f}; outside the target: "
          f"{', '.join(missed_i) if missed_i else 'none'}")
    print(f"C spr = the C bench's slowest / fastest time over the {args.rounds} rounds' processes; "
          f"rows where the C bench alone varies by more than the tolerance: "
          f"{', '.join(noisy) if noisy else 'none'}")
    if bad:
        print(f"CHECK FAILED: wrapper results differ from the C bench on {', '.join(bad)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
