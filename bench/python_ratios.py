# SPDX-License-Identifier: MIT
"""python_ratios.py — do the dresample.torch wrappers keep the C bench's speed?

Usage: venv/bin/python bench/python_ratios.py PATH/TO/drs_bench [--threads 1]
                        [--rounds 9] [--max-rounds 41] [--runs 1] [--warmup 1]
                        [--workload W1,W8,...] [--smoke] [--tolerance 0.10]
                        [--best] [--cpu-time] [--core] [--module PATH]
                        [--processes K]

For each workload W1..W12 of bench/bench.c it times, in this process and on
the same shapes, inputs and attributes:
  C      the C bench itself: bench.c built as the module libdrs_bench_module.so
         (CMake target drs_bench_module, next to drs_bench), loaded with
         ctypes; its own setup, buffers and timing loop (drs_bench_time);
  wrap   the dresample.torch call a user would make (interpolate / resize /
         openvino_interpolate / grid_sample; forward under no_grad, backward
         as torch.autograd.grad of the recorded graph, so the argument
         handling, the tensor <-> NumPy views, the output allocation and the
         autograd node are all in the time), on tensors over the C bench's
         own input buffers (the same memory: where a 16-50 MB input lies,
         and in which pages, moves a call by several %);
  torch  PyTorch's ATen kernels, exactly as bench/compare_torch.py calls them
         (the reference of the C bench's ratios);
  core   with --core: the kernels through dresample._core alone.
The contenders alternate in rounds, one block each (--warmup untimed calls,
then --runs timed ones, so that every contender finds its own data in the
caches as a block of the C bench does), the order rotating from round to
round.  q = wrapper / C is the median over the rounds of the round's wrapper
time over its C time (taken seconds apart, so that a change of the machine's
speed cancels); rounds are added, from --rounds up to --max-rounds, while a
95 % interval of that median is wider than the tolerance.  The command line
drs_bench runs once per workload (untimed) for its result digests.
With --cpu-time (needs --threads 1) every side times the calling thread's CPU
time instead of wall time: on a shared or virtual machine this leaves out the
time the thread waits while another process, or the hypervisor, has its core.
Before each workload's timing the objects then alive are frozen (gc.freeze),
so that a cyclic collection triggered inside a timed Python call does not
traverse the modules' objects (timeit turns the collector off for the same
reason; here it stays on for the calls' own objects).
With --processes K the whole measurement runs K times, each in a fresh
process, and each row is judged by the median of its K values of q: where a
process's buffers and the wrappers' outputs lie (their pages, their offsets
from one another) moves a row's q by up to 10-25 % in either direction from
one process to the next, which the rounds of one process cannot average out.

It prints per workload and phase the times (median ms), the C ratio (C /
PyTorch), the wrapper ratio (wrapper / PyTorch), q = wrapper ratio / C ratio
with its interval and the rounds run; the target is q within 1 +- tolerance
(default 10 %).  Exit status 1 when a wrapper result differs from the C
bench's (sum and sum of |.| within 1e-4 relative), else 0 (missed targets are
reported, not failed: timings on a shared machine are noisy).  Library and
PyTorch use the same thread count.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import reexec_with_malloc_env  # noqa: E402

if __name__ == "__main__":
    reexec_with_malloc_env()  # (the same glibc malloc settings as compare_torch.py)

import argparse  # noqa: E402
import ctypes  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

try:
    import numpy as np
    import torch

    import compare_torch as ct
    import dresample
    import dresample.torch as dt
except ImportError as e:  # exercised by the smoke test's skip
    print(f"python_ratios.py: SKIPPED: needs PyTorch and the dresample package ({e})")
    sys.exit(77)

GRID_MODES = ("bilinear", "nearest", "bicubic")
GRID_PADS = ("zeros", "border", "reflection")


class CoreCase:
    """The same computation through dresample._core alone (the extension over
    the C API, outputs preallocated as in the C bench, inputs the C bench's own
    buffers as the wrapper's): the kernel time in this process, to compare the
    wrapper with under the same machine load."""

    def __init__(self, rec, bufs):
        core = dresample._core
        kind = rec["kind"]
        ins, outs = rec["in_shape"], rec["out_shape"]
        x, g, dy = bufs
        y = ct.aligned_empty(outs)
        dx = ct.aligned_empty(ins)
        alloc = lambda shape, dtype: y  # noqa: E731
        if kind == "grid":
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

    def __init__(self, rec, bufs):
        """bufs: the C bench's own input buffers (x, grid or None, dy), which
        the wrapper reads too (BenchModule.inputs)."""
        kind = rec["kind"]
        ins, outs = rec["in_shape"], rec["out_shape"]
        bx, bg, bdy = bufs
        if list(bx.shape) != list(ins) or list(bdy.shape) != list(outs):
            raise SystemExit(f"python_ratios: the bench module's buffers {bx.shape}, "
                             f"{bdy.shape} are not the record's {ins}, {outs}")
        # the very memory of the C bench's inputs (leaf tensors: requires_grad
        # records the graph without a copy; the calls only read them)
        x = torch.from_numpy(bx)
        self.dy = torch.from_numpy(bdy)
        xg = x.requires_grad_()
        if kind == "grid":
            g = torch.from_numpy(bg)
            gg = g.requires_grad_()
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


class BenchModule:
    """The C bench's own setup and timing loop (bench.c built as the module
    libdrs_bench_module.so next to the drs_bench binary), run in this process."""

    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        self.lib.drs_bench_open.restype = ctypes.c_void_p
        self.lib.drs_bench_open.argtypes = [ctypes.c_char_p, ctypes.c_int]
        self.lib.drs_bench_time.restype = ctypes.c_int
        self.lib.drs_bench_time.argtypes = [ctypes.c_void_p] + [ctypes.c_int] * 5 + [
            ctypes.POINTER(ctypes.c_double)]
        self.lib.drs_bench_close.argtypes = [ctypes.c_void_p]
        self.lib.drs_bench_input.restype = ctypes.c_void_p
        self.lib.drs_bench_input.argtypes = [ctypes.c_void_p, ctypes.c_int,
                                             ctypes.POINTER(ctypes.c_int),
                                             ctypes.POINTER(ctypes.c_int64)]

    def open(self, name, smoke):
        h = self.lib.drs_bench_open(name.encode(), int(smoke))
        if not h:
            raise SystemExit(f"python_ratios: the bench module does not know workload {name}")
        return h

    def block(self, h, phase, threads, warmup, runs, cpu_time):
        """warmup untimed calls, then runs timed ones: their times in ms."""
        out = (ctypes.c_double * runs)()
        if self.lib.drs_bench_time(h, phase, threads, warmup, runs, int(cpu_time), out):
            raise SystemExit("python_ratios: drs_bench_time refused its arguments")
        return list(out)

    def inputs(self, h):
        """NumPy views of the prepared workload's input buffers: x, grid (None
        without one), dy (valid until close)."""
        out = []
        for which in (0, 1, 2):
            rank = ctypes.c_int()
            shape = (ctypes.c_int64 * 8)()
            p = self.lib.drs_bench_input(h, which, ctypes.byref(rank), shape)
            if not p:
                out.append(None)
                continue
            dims = tuple(shape[:rank.value])
            n = math.prod(dims)
            buf = (ctypes.c_float * n).from_address(p)
            out.append(np.ctypeslib.as_array(buf).reshape(dims))
        if out[0] is None or out[2] is None:
            raise SystemExit("python_ratios: the bench module gave no input buffers")
        return out

    def close(self, h):
        self.lib.drs_bench_close(h)


def py_block(fn, warmup, runs, clock):
    """warmup untimed calls of fn, then runs timed ones: their times in ms."""
    for _ in range(warmup):
        fn()
    ts = []
    for _ in range(runs):
        t0 = clock()
        fn()
        ts.append((clock() - t0) * 1e3)
    return ts


def alternate(blocks, ts, r0, r1):
    """Rounds r0 .. r1-1 of one block per contender, the contenders' order
    rotated from round to round; each block's times are appended to ts[name]."""
    names = list(blocks)
    for r in range(r0, r1):
        for k in names[r % len(names):] + names[:r % len(names)]:
            ts.setdefault(k, []).extend(blocks[k]())


def median_ci(v, z=1.96):
    """A distribution-free 95 % confidence interval of the median of v (the
    order statistics at ranks (n -+ z sqrt(n)) / 2)."""
    s = sorted(v)
    n = len(s)
    k = max(0, int(math.floor((n - z * math.sqrt(n)) / 2.0)))
    return s[k], s[n - 1 - k]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("bench", help="path to the bench binary (build/bench/drs_bench); the module "
                    "libdrs_bench_module.so is looked for next to it")
    ap.add_argument("--module", help="path to libdrs_bench_module.so (default: next to bench)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=9,
                    help="rounds of alternating blocks per workload and phase at least "
                         "(default 9)")
    ap.add_argument("--max-rounds", type=int, default=41,
                    help="rounds at most: more are run while the 95 %% interval of q is "
                         "wider than the tolerance (default 41)")
    ap.add_argument("--runs", type=int, default=1, help="timed calls per block (default 1)")
    ap.add_argument("--warmup", type=int, default=1, help="untimed calls per block (default 1)")
    ap.add_argument("--workload", help="comma-separated workloads (W8 = W8a-d)")
    ap.add_argument("--smoke", action="store_true", help="tiny shapes (plumbing only)")
    ap.add_argument("--tolerance", type=float, default=0.10)
    ap.add_argument("--no-malloc-env", action="store_true")
    ap.add_argument("--best", action="store_true", help="fastest call instead of the median")
    ap.add_argument("--cpu-time", action="store_true",
                    help="time the calling thread's CPU time on every side (needs --threads 1)")
    ap.add_argument("--core", action="store_true",
                    help="also time the kernels through dresample._core (preallocated outputs)")
    ap.add_argument("--processes", type=int, default=1,
                    help="run the whole measurement in K fresh processes, one after the "
                         "other, and judge each row by the median of their q (default 1)")
    ap.add_argument("--q-json", help=argparse.SUPPRESS)  # (a --processes child's results)
    args = ap.parse_args()
    if args.processes < 1:
        ap.error("--processes must be >= 1")
    if args.processes > 1:
        return over_processes(args)
    if args.cpu_time and args.threads != 1:
        ap.error("--cpu-time needs --threads 1 (it times the calling thread)")
    if min(args.rounds, args.runs) < 1 or args.warmup < 0:
        ap.error("--rounds and --runs must be >= 1, --warmup >= 0")
    if args.max_rounds < args.rounds:
        ap.error(f"--max-rounds ({args.max_rounds}) must be >= --rounds ({args.rounds})")
    bench = os.path.abspath(args.bench)
    module = args.module or os.path.join(os.path.dirname(bench), "libdrs_bench_module.so")
    if not os.path.exists(module):
        ap.error(f"no bench module at {module} (build the target drs_bench_module, or --module)")
    cb = BenchModule(module)
    clock = time.thread_time if args.cpu_time else time.perf_counter
    pick = min if args.best else statistics.median
    T = args.threads
    names = ct.list_workloads(bench, args.workload, args.smoke)
    check_args = ["--runs", "1", "--warmup", "0", "--threads", str(T), "--no-copy"] + (
        ["--smoke"] if args.smoke else [])
    print(f"dresample {dresample.__version__} torch wrappers vs the C bench, PyTorch "
          f"{torch.__version__}, threads {T}, {args.rounds} rounds of blocks of {args.warmup} "
          f"untimed + {args.runs} timed call(s) per contender "
          f"({'fastest' if args.best else 'median'}"
          f"{', thread CPU time' if args.cpu_time else ''}), "
          f"load average {os.getloadavg()[0]:.2f}", flush=True)
    core_h = f" {'core':>8} {'qi':>5}" if args.core else ""
    half = (f"{'C':>8} {'wrap':>8} {'torch':>8} {'C r':>5} {'wr r':>5} {'q':>5} "
            f"{'q 95 %':>10} {'rnd':>3}{core_h}")
    hdr = f"{'name':<4} | {half} | {half} | check"
    print(f"{'':<4} | {'forward':<{len(half)}} | {'backward':<{len(half)}} |")
    print(hdr)
    print("-" * len(hdr))
    torch.set_num_threads(T)
    dresample.set_num_threads(T)
    bad, missed, qs, open_ci = [], [], [], []
    per_row = {}  # "name what" -> q, for --q-json
    for name in names:
        # the bench's command line once: shapes, attributes and result digests
        rec = ct.run_bench(bench, ["--workload", name] + check_args)[0]
        h = cb.open(name, args.smoke)
        tc = ct.TorchCase(rec)
        bufs = cb.inputs(h)
        wc = WrapperCase(rec, bufs)
        cc = CoreCase(rec, bufs) if args.core else None
        ok = ct.agrees(wc.fwd(), rec["fwd"])
        g = wc.bwd()
        ok = ok and ct.agrees(g[0], rec["bwd"]) and (len(g) == 1 or
                                                     ct.agrees(g[1], rec["bwd_grid"]))
        if not ok:
            bad.append(name)
        torch_bwd = tc.bwd
        if torch_bwd is not None:
            try:
                torch_bwd()
            except (RuntimeError, NotImplementedError):
                torch_bwd = None
        # the objects that exist now (modules, cases, inputs) out of the
        # cyclic collector's reach (gc.freeze): a collection that a timed
        # Python call triggers then costs what that call's own objects cost,
        # not a traversal of PyTorch's hundreds of thousands of module objects
        # (1-3 % of a 6 ms call; the C bench's blocks allocate none)
        gc.collect()
        gc.freeze()
        cells = []
        try:
            for ph, what, tfn, wfn, cfn in ((0, "fwd", tc.fwd, wc.fwd, cc and cc.fwd),
                                            (1, "bwd", torch_bwd, wc.bwd, cc and cc.bwd)):
                blocks = {"C": (lambda p=ph: cb.block(h, p, T, args.warmup, args.runs,
                                                      args.cpu_time)),
                          "wrap": (lambda f=wfn: py_block(f, args.warmup, args.runs, clock))}
                if tfn is not None:
                    blocks["torch"] = lambda f=tfn: py_block(f, args.warmup, args.runs, clock)
                if cfn is not None:
                    blocks["core"] = lambda f=cfn: py_block(f, args.warmup, args.runs, clock)
                # q from the rounds' pairs: each round's wrapper call over the
                # C bench's call of the same round (seconds apart), so that a
                # slow change of the machine's speed cancels.  Rounds are added
                # (up to --max-rounds) until the 95 % interval of their median
                # is narrower than the tolerance.
                # PyTorch (whose time q does not need) takes part in the first
                # --rounds rounds only.
                ts, n = {}, 0
                while True:
                    n1 = args.rounds if n == 0 else min(n + 4, args.max_rounds)
                    alternate(blocks, ts, n, n1)
                    blocks.pop("torch", None)
                    n = n1
                    pairs = [w / c for w, c in zip(ts["wrap"], ts["C"])]
                    lo, hi = median_ci(pairs)
                    if hi / lo <= 1.0 + args.tolerance or n >= args.max_rounds:
                        break
                t = {k: pick(v) for k, v in ts.items()}
                # (with --best: the fastest over the fastest)
                q = t["wrap"] / t["C"] if args.best else statistics.median(pairs)
                cr = f"{t['C'] / t['torch']:5.2f}" if "torch" in t else f"{'':>5}"
                wr = f"{t['wrap'] / t['torch']:5.2f}" if "torch" in t else f"{'':>5}"
                tt = f"{t['torch']:8.2f}" if "torch" in t else f"{'n/a':>8}"
                cell = (f"{t['C']:8.2f} {t['wrap']:8.2f} {tt} {cr} {wr} {q:5.2f} "
                        f"{lo:5.2f}-{hi:4.2f} {n:3d}")
                if args.core:
                    cell += f" {t['core']:8.2f} {t['wrap'] / t['core']:5.2f}"
                cells.append(cell)
                qs.append(q)
                per_row[f"{name} {what}"] = q
                if abs(q - 1.0) > args.tolerance:
                    missed.append(f"{name} {what} {q:.2f} ({lo:.2f}-{hi:.2f})")
                elif lo < 1.0 - args.tolerance or hi > 1.0 + args.tolerance:
                    open_ci.append(f"{name} {what} {lo:.2f}-{hi:.2f}")
        finally:
            del tc, wc, cc, bufs  # (views of the module's buffers)
            gc.unfreeze()  # (this workload's objects collectable again)
            cb.close(h)
        print(f"{name:<4} | {cells[0]} | {cells[1]} | {'ok' if ok else 'DIFF'}", flush=True)
    if not qs:
        print("python_ratios: no workload ran")
        return 1
    geo = math.exp(sum(map(math.log, qs)) / len(qs))
    print(f"\nms; C = the C bench's timing loop (bench.c, the module build) in this process, "
          f"C r = C / PyTorch, wr r = wrapper / PyTorch, q = the median over the rounds of "
          f"wrapper / C (a round's two calls; with --best the fastest over the fastest)"
          f"{'; core = the kernels through dresample._core, qi = wrapper / core' if args.core else ''}"
          f"; target |q - 1| <= {args.tolerance:.2f}")
    print(f"q 95 % = a distribution-free 95 % interval of q's median; rnd = the rounds run "
          f"({args.rounds} to {args.max_rounds}: more while that interval is wider than the "
          f"tolerance)")
    print(f"geomean q {geo:.3f}; outside the target: {', '.join(missed) if missed else 'none'}")
    print(f"within the target, but not the whole interval: "
          f"{', '.join(open_ci) if open_ci else 'none'}")
    if args.q_json:
        with open(args.q_json, "w") as f:
            json.dump({"q": per_row, "bad": bad}, f)
    if bad:
        print(f"CHECK FAILED: wrapper results differ from the C bench on {', '.join(bad)}")
        return 1
    return 0


def over_processes(args):
    """--processes K: the measurement K times, each in a fresh process (so each
    draws anew where its buffers and the wrappers' outputs lie, which moves a
    row by up to 10-25 % in either direction from process to process), then
    each row judged by the median of its K values of q."""
    import subprocess
    import tempfile
    runs, bad = [], set()
    with tempfile.TemporaryDirectory() as d:
        for k in range(args.processes):
            out = os.path.join(d, f"q{k}.json")
            print(f"== process {k + 1} of {args.processes}", flush=True)
            # (the appended --processes 1 overrides the given one: argparse keeps the last)
            r = subprocess.run([sys.executable, os.path.abspath(__file__)] + sys.argv[1:] +
                               ["--processes", "1", "--q-json", out])
            if r.returncode == 77:  # (a missing package: skipped)
                return 77
            if r.returncode not in (0, 1) or not os.path.exists(out):
                print(f"python_ratios: process {k + 1} failed (exit {r.returncode})")
                return 1
            with open(out) as f:
                res = json.load(f)
            runs.append(res["q"])
            bad.update(res["bad"])
    rows = list(runs[0])
    print(f"\n== q per process and their median ({args.processes} processes; target "
          f"|median - 1| <= {args.tolerance:.2f})")
    missed, meds = [], []
    for row in rows:
        v = [r[row] for r in runs if row in r]
        m = statistics.median(v)
        meds.append(m)
        flag = "" if abs(m - 1.0) <= args.tolerance else "  outside"
        print(f"{row:<9} " + " ".join(f"{x:5.2f}" for x in v) + f"  median {m:5.2f}{flag}")
        if flag:
            missed.append(f"{row} {m:.2f}")
    geo = math.exp(sum(map(math.log, meds)) / len(meds))
    inside = len(meds) - len(missed)
    print(f"geomean of the medians {geo:.3f}; {inside} of {len(meds)} rows within the target; "
          f"outside: {', '.join(missed) if missed else 'none'}")
    if bad:
        print(f"CHECK FAILED: wrapper results differ from the C bench on {', '.join(sorted(bad))}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
