#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_hostile_cli.py — the resize CVE inputs (TensorFlow, PyTorch, Pillow) through the `dresample`
command line: every hostile input gives exit status 1 (or 2 for usage), one
`dresample: error:` line naming the argument, and no output file; the valid
but extreme ones (empty batch with large sizes, roi 1e40, NaN/inf/3e38 grids)
give a defined result.  numpy + stdlib only.

Usage: test_hostile_cli.py PATH/TO/dresample
"""
import os
import struct
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:  # a bare Python: the suite reports skipped (ctest SKIP_RETURN_CODE)
    print("SKIP: numpy is not installed")
    sys.exit(77)

failures = []
passed = 0


def check(cond, what):
    global passed
    if cond:
        passed += 1
    else:
        failures.append(what)
        print("FAIL", what)


def run(cli, args):
    r = subprocess.run([cli] + args, capture_output=True, text=True, timeout=120)
    return r.returncode, r.stdout, r.stderr


def bad(cli, tmp, name, args, out, needle, rc_want=1):
    if os.path.exists(out):
        os.unlink(out)
    rc, so, se = run(cli, args)
    lines = se.strip().splitlines()
    check(rc == rc_want, f"{name}: exit {rc}, want {rc_want} ({se.strip()})")
    check(len(lines) == 1 and lines[0].startswith("dresample: error:"), f"{name}: stderr {se!r}")
    check(needle in se, f"{name}: message {se.strip()!r} lacks {needle!r}")
    check(not os.path.exists(out), f"{name}: output file written on error")
    check(not [f for f in os.listdir(tmp) if f.startswith(os.path.basename(out))], f"{name}: temp file left")
    print("ok  ", name, "->", se.strip())


def good(cli, name, args, out):
    rc, so, se = run(cli, args)
    check(rc == 0, f"{name}: exit {rc}: {se.strip()}")
    if rc == 0:
        y = np.load(out)
        check(np.all(np.isfinite(y)), f"{name}: non-finite output")
        print("ok  ", name, "->", y.shape)
        return y
    return None


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    cli = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="dresample_hostile_") as tmp:
        p = lambda n: os.path.join(tmp, n)

        def save(n, a):
            np.save(p(n), a)
            return p(n)

        x4 = save("x4.npy", np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4))
        y = p("y.npy")
        # CVE-2021-41199: sizes [2065374891, 1145309325]
        s = save("s1.npy", np.array([1, 1, 2065374891, 1145309325], np.int64))
        bad(cli, tmp, "CVE-2021-41199 huge sizes", ["run", "Resize-19", "--attr", "mode=linear", "--in", f"X={x4}",
                                                    "--in", f"sizes={s}", "--out", f"Y={y}"], y, "overflow")
        # CVE-2022-41907: [1879048192, 1879048192] with grads [1,8,16,3]
        x8 = save("x8.npy", np.zeros((1, 8, 16, 3), np.float32))
        s = save("s2.npy", np.array([1, 8, 1879048192, 1879048192], np.int64))
        bad(cli, tmp, "CVE-2022-41907 nearest sizes", ["run", "Resize-13", "--in", f"X={x8}", "--in", f"sizes={s}",
                                                      "--out", f"Y={y}"], y, "overflow")
        dy = save("dy.npy", np.zeros((1, 8, 16, 3), np.float32))
        dx = p("dx.npy")
        bad(cli, tmp, "CVE-2022-41907 backward", ["run", "Resize-13", "--in", f"X={x8}", "--in", f"sizes={s}",
                                                 "--backward", "--in", f"output_delta={dy}", "--out", f"X_delta={dx}"],
            dx, "overflow")
        # tf#57897 antialias huge size
        bad(cli, tmp, "tf#57897 antialias size", ["run", "TorchInterpolate", "--attr", "mode=bilinear", "--attr", "antialias=1",
                                                 "--attr", "size=1801181592,1846789676", "--in", f"input={x4}",
                                                 "--out", f"output={y}"], y, "overflow")
        # CVE-2016-4009 negative size; tf#61576 negative huge size with an empty batch
        s = save("s3.npy", np.array([-3, 4], np.int64))
        ax = save("ax.npy", np.array([2, 3], np.int64))
        bad(cli, tmp, "CVE-2016-4009 negative size", ["run", "Interpolate-11", "--attr", "mode=bicubic_pillow",
                                                     "--attr", "shape_calculation_mode=sizes", "--in", f"image={x4}",
                                                     "--in", f"scales_or_sizes={s}", "--in", f"axes={ax}",
                                                     "--out", f"output={y}"], y, "-3")
        x0 = save("x0.npy", np.zeros((0, 1, 3, 2), np.float32))
        s = save("s4.npy", np.array([-45932682421089, 3], np.int64))
        bad(cli, tmp, "tf#61576 negative huge size, empty batch",
            ["run", "Interpolate-1", "--attr", "mode=area", "--attr", "axes=2,3", "--in", f"data={x0}",
             "--in", f"target_spatial_shape={s}", "--out", f"output={y}"], y, "-45932682421089")
        # tf#61547: empty batch + 536870912 x 1250999896764: the output holds
        # nothing, but its non-zero extents overflow 64 bits (numpy refuses
        # to load such a file): rejected, naming the shape, nothing written
        s = save("s5.npy", np.array([0, 1, 536870912, 1250999896764], np.int64))
        bad(cli, tmp, "tf#61547 empty batch, huge sizes",
            ["run", "Resize-19", "--attr", "mode=cubic", "--in", f"X={x0}", "--in", f"sizes={s}",
             "--out", f"Y={y}"], y, "[0, 1, 536870912, 1250999896764] is too large")
        # one step inside the bound: an empty output numpy can load
        s = save("s6.npy", np.array([0, 1, 1 << 30, (1 << 31) - 1], np.int64))
        y2 = good(cli, "empty batch, extents inside the bound",
                  ["run", "Resize-19", "--attr", "mode=cubic", "--in", f"X={x0}", "--in",
                   f"sizes={s}", "--out", f"Y={y}"], y)
        check(y2 is not None and y2.shape == (0, 1, 1 << 30, (1 << 31) - 1),
              f"empty output shape {None if y2 is None else y2.shape}")
        # pytorch#88951 / #107552: scale_factor -1e20, 1e20, 1250999896765
        for sf, needle in (("-1e20", "scale_factor"), ("1e20", "overflow"), ("1250999896765", "overflow")):
            bad(cli, tmp, f"scale_factor {sf}", ["run", "TorchInterpolate", "--attr", "mode=nearest",
                                                 "--attr", f"scale_factor={sf}", "--in", f"input={x4}",
                                                 "--out", f"output={y}"], y, needle)
        # CVE-2020-15266 / tf#94122: roi 1e40 (defined: extrapolation) and NaN/inf (rejected)
        sc = save("sc.npy", np.array([1, 1, 2, 2], np.float64))
        roi = save("roi.npy", np.array([0, 0, 1e40, 0, 1, 1, 1e40, 1], np.float64))
        yr = good(cli, "roi 1e40", ["run", "Resize-19", "--attr", "mode=linear", "--attr",
                                    "coordinate_transformation_mode=tf_crop_and_resize", "--attr",
                                    "extrapolation_value=-7", "--in", f"X={x4}", "--in", f"roi={roi}",
                                    "--in", f"scales={sc}", "--out", f"Y={y}"], y)
        check(yr is not None and yr[0, 0, 1:, :].min() == -7.0, "roi 1e40 extrapolates")
        for v in ("nan", "inf"):
            roi = save(f"roi_{v}.npy", np.array([0, 0, float(v), 0, 1, 1, 1, 1], np.float64))
            bad(cli, tmp, f"roi {v}", ["run", "Resize-19", "--attr", "mode=linear", "--attr",
                                       "coordinate_transformation_mode=tf_crop_and_resize", "--in", f"X={x4}",
                                       "--in", f"roi={roi}", "--in", f"scales={sc}", "--out", f"Y={y}"], y, "roi[2]")
        # pytorch#19826/#24823/#42616/#51911: NaN/inf/2.5e38/3e38 grids, every mode x padding
        g = save("g.npy", np.array([[[[np.nan, 0], [np.inf, 2.5e38]], [[-3e38, -np.inf], [3e38, np.nan]]]], np.float32))
        for mode in ("bilinear", "bicubic", "nearest"):
            for pad in ("zeros", "border", "reflection"):
                good(cli, f"hostile grid {mode}/{pad}", ["run", "GridSample-9", "--attr", f"mode={mode}",
                                                          "--attr", f"padding_mode={pad}", "--in", f"data={x4}",
                                                          "--in", f"grid={g}", "--out", f"output={y}"], y)
        # a .npy header claiming 2065374891 x 1145309325 floats with no data
        hdr = b"{'descr': '<f4', 'fortran_order': False, 'shape': (2065374891, 1145309325), }"
        hdr += b" " * (-(len(hdr) + 11) % 64) + b"\n"
        with open(p("huge.npy"), "wb") as f:
            f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr)
        bad(cli, tmp, "npy claiming 2^61 bytes", ["run", "Resize-19", "--in", f"X={p('huge.npy')}",
                                                  "--in", f"scales={sc}", "--out", f"Y={y}"], y, "overflows")
        # an empty array whose non-zero extents overflow: numpy itself refuses it
        hdr = b"{'descr': '<f4', 'fortran_order': False, 'shape': (0, 1, 536870912, 1250999896764), }"
        hdr += b" " * (-(len(hdr) + 11) % 64) + b"\n"
        with open(p("empty_huge.npy"), "wb") as f:
            f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr)
        bad(cli, tmp, "npy input: empty but huge extents", ["run", "Resize-19", "--in", f"X={p('empty_huge.npy')}",
                                                            "--in", f"scales={sc}", "--out", f"Y={y}"], y,
            "input X")
        # wrong ranks: 2-D scales, grid of rank 3, output_delta of the wrong rank
        sc2 = save("sc2.npy", np.ones((2, 2), np.float64))
        bad(cli, tmp, "2-D scales", ["run", "Resize-19", "--in", f"X={x4}", "--in", f"scales={sc2}",
                                     "--out", f"Y={y}"], y, "must be 1-D")
        g3 = save("g3.npy", np.zeros((1, 2, 2), np.float32))
        bad(cli, tmp, "grid rank 3", ["run", "GridSample-9", "--in", f"data={x4}", "--in", f"grid={g3}",
                                      "--out", f"output={y}"], y, "grid rank")
        dy3 = save("dy3.npy", np.zeros((1, 8, 8), np.float32))
        bad(cli, tmp, "output_delta rank", ["run", "Resize-19", "--in", f"X={x4}", "--in", f"scales={sc}",
                                            "--backward", "--in", f"output_delta={dy3}", "--out", f"X_delta={dx}"],
            dx, "output_delta rank")
    print(f"test_hostile_cli: {passed} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
