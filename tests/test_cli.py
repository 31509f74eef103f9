#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_cli.py — the `dresample` command line (its contract: docs/semantics.md).

Usage: test_cli.py PATH/TO/dresample

Round trips with hand-checkable values for every op family, then every error
class: each must exit non-zero (2 for usage errors, 1 otherwise), print
exactly one stderr line starting "dresample: error:", print nothing on stdout,
and leave no output file (nor a temporary one) behind.  numpy + stdlib only.
"""
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:  # a bare Python: the suite reports skipped (ctest SKIP_RETURN_CODE)
    print("SKIP: numpy is not installed")
    sys.exit(77)

CLI = None
TMP = None
failures = []


def path(name):
    return os.path.join(TMP, name)


def save(name, arr):
    p = path(name)
    np.save(p, arr)
    return p


def run(args):
    r = subprocess.run([CLI] + args, capture_output=True, text=True, timeout=60)
    return r.returncode, r.stdout, r.stderr


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL", what)


def ok(name, args, out, expect, dtype=None):
    """Runs args, expects success and output file `out` equal to expect."""
    if os.path.exists(out):
        os.unlink(out)
    rc, so, se = run(args)
    if rc != 0:
        check(False, f"{name}: exit {rc}: {se.strip()}")
        return None
    y = np.load(out)
    expect = np.asarray(expect)
    check(y.shape == expect.shape, f"{name}: shape {y.shape} != {expect.shape}")
    if dtype is not None:
        check(y.dtype == np.dtype(dtype), f"{name}: dtype {y.dtype} != {dtype}")
    if y.shape == expect.shape:
        check(np.allclose(y, expect, rtol=1e-6, atol=1e-6), f"{name}: got\n{y}\nexpected\n{expect}")
    print("ok  ", name)
    return y


def bad(name, args, out, want, rc_want=1):
    """Runs args, expects failure with one error line containing `want`."""
    before = set(os.listdir(TMP))
    rc, so, se = run(args)
    lines = se.splitlines()
    check(rc == rc_want, f"{name}: exit {rc}, expected {rc_want} ({se.strip()})")
    check(len(lines) == 1 and lines[0].startswith("dresample: error: "),
          f"{name}: stderr must be one 'dresample: error:' line, got {se!r}")
    check(want in se, f"{name}: message {se.strip()!r} lacks {want!r}")
    check(so == "", f"{name}: stdout not empty: {so!r}")
    check(out is None or not os.path.exists(out), f"{name}: output file {out} exists")
    check(set(os.listdir(TMP)) == before, f"{name}: files appeared: {set(os.listdir(TMP)) - before}")
    print("ok  ", name, "->", se.strip())


def npy_bytes(descr, shape, data, fortran=False, magic=b"\x93NUMPY"):
    hdr = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, shape)
    hdr = hdr.encode() + b" " * ((64 - (10 + len(hdr) + 1) % 64) % 64) + b"\n"
    return magic + b"\x01\x00" + len(hdr).to_bytes(2, "little") + hdr + data


def raw(name, b):
    p = path(name)
    with open(p, "wb") as f:
        f.write(b)
    return p


def round_trips():
    x4 = save("x4.npy", np.array([[[[1, 2], [3, 4]]]], np.float32))
    y = path("y.npy")
    up2 = [[1, 1, 2, 2], [1, 1, 2, 2], [3, 3, 4, 4], [3, 3, 4, 4]]

    # Resize-10: asymmetric + simple nearest; 2x up repeats each pixel.
    s = save("s4.npy", np.array([1, 1, 2, 2], np.float32))
    ok("Resize-10 nearest 2x", ["run", "Resize-10", "--attr", "mode=nearest", "--in", f"X={x4}",
                                "--in", f"scales={s}", "--out", f"Y={y}"], y, [[up2]], np.float32)
    x2 = save("x2.npy", np.array([[1, 2], [3, 4]], np.float64))
    s2 = save("s2.npy", np.array([2, 2], np.float64))
    ok("Resize-10 nearest 2x f64 rank 2", ["run", "Resize-10", "--in", f"X={x2}", "--in", f"scales={s2}",
                                           "--out", f"Y={y}"], y, up2, np.float64)
    xu8 = save("xu8.npy", np.array([[1, 2], [3, 250]], np.uint8))
    ok("Resize-10 nearest u8", ["run", "Resize-10", "--in", f"X={xu8}", "--in", f"scales={s2}",
                                "--out", f"Y={y}"], y,
       [[1, 1, 2, 2], [1, 1, 2, 2], [3, 3, 250, 250], [3, 3, 250, 250]], np.uint8)
    # A rank-0 array is accepted as a 1-element 1-D parameter.
    x1 = save("x1.npy", np.array([1, 2], np.float32))
    s0 = save("s0.npy", np.array(2.0, np.float32))
    ok("Resize-10 scalar scales", ["run", "Resize-10", "--in", f"X={x1}", "--in", f"scales={s0}",
                                   "--out", f"Y={y}"], y, [1, 1, 2, 2])

    # Half-pixel linear 2x up of [[1,2],[3,4]] with clamped edges: along a row
    # c = (o+.5)/2-.5 = -.25,.25,.75,1.25 -> 1, 1.25, 1.75, 2; rows add 2x that.
    row = np.array([0, 0.25, 0.75, 1])
    lin2 = 1 + row[None, :] + 2 * row[:, None]
    sz = save("sz.npy", np.array([4, 4], np.int32))
    ax = save("ax.npy", np.array([2, 3], np.int64))
    sc = save("sc.npy", np.array([2, 2], np.float32))
    ok("Interpolate-4 linear_onnx sizes", ["run", "Interpolate-4", "--attr", "mode=linear_onnx",
                                           "--attr", "shape_calculation_mode=sizes", "--in", f"data={x4}",
                                           "--in", f"sizes={sz}", "--in", f"axes={ax}", "--out", f"output={y}"],
       y, [[lin2]], np.float32)
    ok("Interpolate-4 linear_onnx scales", ["run", "Interpolate-4", "--attr", "mode=linear_onnx",
                                            "--attr", "shape_calculation_mode=scales",
                                            "--attr", "coordinate_transformation_mode=half_pixel",
                                            "--in", f"data={x4}", "--in", f"scales={sc}", "--in", f"axes={ax}",
                                            "--out", f"output={y}"], y, [[lin2]])
    ok("Interpolate-11 nearest sizes", ["run", "Interpolate-11", "--attr", "mode=nearest",
                                        "--attr", "shape_calculation_mode=sizes", "--in", f"image={x4}",
                                        "--in", f"scales_or_sizes={sz}", "--in", f"axes={ax}",
                                        "--out", f"output={y}"], y, [[up2]])
    ok("Resize-13 linear scales, empty roi", ["run", "Resize-13", "--attr", "mode=linear",
                                              "--in", f"X={x4}", "--in", f"roi={save('roi0.npy', np.zeros(0, np.float32))}",
                                              "--in", f"scales={s}", "--out", f"Y={y}"], y, [[lin2]])
    ok("Resize-19 linear sizes with axes", ["run", "Resize-19", "--attr", "mode=linear", "--attr", "axes=2,3",
                                            "--in", f"X={x4}", "--in", f"sizes={sz}", "--out", f"Y={y}"],
       y, [[lin2]])
    ok("Resize-18 negative axes", ["run", "Resize-18", "--attr", "mode=linear", "--attr", "axes=-2,-1",
                                   "--in", f"X={x4}", "--in", f"sizes={sz}", "--out", f"Y={y}"], y, [[lin2]])

    # align_corners 2x2 -> 3x3: corners kept, midpoints averaged.
    ac = [[1, 1.5, 2], [2, 2.5, 3], [3, 3.5, 4]]
    ok("TorchInterpolate bilinear align_corners", ["run", "TorchInterpolate", "--attr", "mode=bilinear",
                                                   "--attr", "align_corners=1", "--attr", "size=3,3",
                                                   "--in", f"input={x4}", "--out", f"output={y}"], y, [[ac]])
    ok("TorchInterpolate nearest scale_factor", ["run", "TorchInterpolate", "--attr", "scale_factor=2.0",
                                                 "--in", f"input={x4}", "--out", f"output={y}"], y, [[up2]])
    ts = save("ts.npy", np.array([3, 3], np.uint8))
    ok("Interpolate-1 linear align_corners", ["run", "Interpolate-1", "--attr", "mode=linear", "--attr", "axes=2,3",
                                              "--attr", "align_corners=true", "--in", f"data={x4}",
                                              "--in", f"target_spatial_shape={ts}", "--out", f"output={y}"],
       y, [[ac]])

    # --threads: same bits, and an existing output is replaced.
    big = save("big.npy", np.arange(2 * 3 * 17 * 19, dtype=np.float32).reshape(2, 3, 17, 19))
    sb = save("sb.npy", np.array([1, 1, 1.7, 0.6], np.float32))
    args = ["run", "Resize-19", "--attr", "mode=cubic", "--in", f"X={big}", "--in", f"scales={sb}"]
    rc1, _, e1 = run(args + ["--threads", "1", "--out", f"Y={path('t1.npy')}"])
    rc4, _, e4 = run(args + ["--threads", "4", "--out", f"Y={path('t4.npy')}"])
    check(rc1 == 0 and rc4 == 0, f"threads runs failed: {e1} {e4}")
    if rc1 == 0 and rc4 == 0:
        check(open(path("t1.npy"), "rb").read() == open(path("t4.npy"), "rb").read(), "threads 1 vs 4 differ")
        print("ok   --threads 1 vs 4 identical")

    # Help and version go to stdout with status 0.
    rc, so, se = run(["--help"])
    check(rc == 0 and "Resize-19" in so and "TorchInterpolate" in so and se == "", "--help")
    rc, so, se = run(["--version"])
    check(rc == 0 and so.startswith("dresample ") and se == "", "--version")


def errors():
    x4 = path("x4.npy")
    s = path("s4.npy")
    sz = path("sz.npy")
    y = path("yerr.npy")
    r10 = ["run", "Resize-10", "--in", f"X={x4}", "--in", f"scales={s}"]
    out = ["--out", f"Y={y}"]

    # Malformed files.
    f32 = np.array([1, 1, 2, 2], np.float32).tobytes()
    cases = {
        "bad magic": (raw("m1.npy", npy_bytes("<f4", "(4,)", f32, magic=b"\x93NUMPZ")), "bad magic"),
        "truncated data": (raw("m2.npy", npy_bytes("<f4", "(4,)", f32[:-1])), "truncated data"),
        "trailing bytes": (raw("m3.npy", npy_bytes("<f4", "(4,)", f32 + b"\0")), "trailing bytes"),
        "big-endian": (raw("m4.npy", npy_bytes(">f4", "(4,)", f32)), "big-endian"),
        "fortran order": (raw("m5.npy", npy_bytes("<f4", "(4,)", f32, fortran=True)), "fortran_order"),
        "bool dtype": (raw("m6.npy", npy_bytes("|b1", "(4,)", b"\1\1\1\1")), "unsupported dtype"),
        "text file": (raw("m7.npy", b"1,1,2,2\n"), "bad magic"),
        "missing file": (path("nope.npy"), "cannot open"),
    }
    for name, (p, want) in cases.items():
        bad(f"npy {name}", ["run", "Resize-10", "--in", f"X={x4}", "--in", f"scales={p}"] + out, y, want)
    bad("npy fortran data port", ["run", "Resize-10", "--in", f"X={raw('m8.npy', npy_bytes('<f4', '(2, 2)', f32, fortran=True))}",
                                  "--in", f"scales={path('s2.npy')}"] + out, y, "fortran_order")
    bad("scalar data", ["run", "Resize-10", "--in", f"X={path('s0.npy')}", "--in", f"scales={path('s0.npy')}"] + out,
        y, "rank-0")

    # Command-line shape (usage errors, exit 2).
    bad("no command", [], None, "missing command", 2)
    bad("unknown command", ["frobnicate"], None, "unknown command", 2)
    bad("unknown op", ["run", "Resize-12"] + out, y, "unknown op 'Resize-12'", 2)
    bad("missing op", ["run"], None, "missing OP", 2)
    bad("missing port", ["run", "Resize-10", "--in", f"X={x4}"] + out, y, "missing required input scales", 2)
    bad("missing output", r10, None, "missing output", 2)
    bad("unknown port", r10 + ["--in", f"sizes={sz}"] + out, y, "no input port 'sizes'", 2)
    bad("unknown output port", r10 + ["--out", f"output={y}"], y, "no output port 'output'", 2)
    bad("unknown attribute", r10 + ["--attr", "antialias=1"] + out, y, "no attribute 'antialias'", 2)
    bad("duplicate attribute", r10 + ["--attr", "mode=nearest", "--attr", "mode=linear"] + out, y, "given twice", 2)
    bad("duplicate port", r10 + ["--in", f"X={x4}"] + out, y, "given twice", 2)
    bad("attr without =", r10 + ["--attr", "mode"] + out, y, "NAME=VALUE", 2)
    bad("option without argument", r10 + out + ["--attr"], y, "needs an argument", 2)
    bad("unknown option", r10 + out + ["--verbose", "1"], y, "unknown option", 2)
    bad("threads 0", r10 + out + ["--threads", "0"], y, "--threads", 2)
    bad("threads junk", r10 + out + ["--threads", "2x"], y, "--threads", 2)
    bad("backward without a gradient output", r10 + out + ["--backward"], y, "no output 'Y'", 2)
    bad("missing required attribute", ["run", "Interpolate-4", "--attr", "mode=nearest", "--in", f"data={x4}",
                                       "--in", f"sizes={sz}", "--out", f"output={y}"], y,
        "missing required attribute shape_calculation_mode", 2)
    bad("port required by mode", ["run", "Interpolate-4", "--attr", "mode=nearest", "--attr",
                                  "shape_calculation_mode=scales", "--in", f"data={x4}", "--in", f"sizes={sz}",
                                  "--out", f"output={y}"], y, "missing required input scales", 2)

    # Values (exit 1).
    bad("bad enum value", r10 + ["--attr", "mode=bilinear"] + out, y, "unknown value 'bilinear'")
    bad("bad enum case", ["run", "Resize-13", "--attr", "mode=Linear", "--in", f"X={x4}", "--in", f"scales={s}"] + out,
        y, "unknown value 'Linear'")
    r19 = ["run", "Resize-19", "--in", f"X={x4}", "--in", f"sizes={sz}"] + out
    bad("bad number", r19 + ["--attr", "cubic_coeff_a=-0.5x"], y, "not a number")
    bad("empty number", r19 + ["--attr", "extrapolation_value="], y, "not a number")
    bad("bad integer list", r19 + ["--attr", "axes=2,3.0"], y, "not an integer")
    bad("empty list element", r19 + ["--attr", "axes=2,,3"], y, "empty list element")
    bad("trailing comma", r19 + ["--attr", "axes=2,3,"], y, "empty list element")
    bad("spaces in list", r19 + ["--attr", "axes=2, 3"], y, "not an integer")
    bad("bad boolean", r19 + ["--attr", "exclude_outside=yes"], y, "not a boolean")
    bad("too many list values", ["run", "TorchInterpolate", "--attr", "size=2,2,2,2", "--in", f"input={x4}",
                                 "--out", f"output={y}"], y, "at most 3")
    bad("invalid combination", ["run", "Resize-18", "--attr", "mode=nearest", "--attr", "antialias=1",
                                "--in", f"X={x4}", "--in", f"scales={s}"] + out, y, "antialias")
    s4i = save("s4i.npy", np.array([1, 1, 4, 4], np.int64))
    bad("scales and sizes both", ["run", "Resize-13", "--in", f"X={x4}", "--in", f"scales={s}",
                                  "--in", f"sizes={s4i}"] + out, y, "Resize-13")
    bad("scales length", r10[:-1] + [f"scales={path('s2.npy')}"] + out, y, "Resize-10")
    bad("negative scale", r10[:-1] + [f"scales={save('sneg.npy', np.array([1, 1, -2, 2], np.float32))}"] + out,
        y, "Resize-10")
    bad("float sizes", ["run", "Resize-13", "--in", f"X={x4}", "--in", f"sizes={save('szf.npy', np.array([1, 1, 4, 4], np.float32))}"] + out,
        y, "must be an integer array")
    bad("integer scales", r10[:-1] + [f"scales={s4i}"] + out, y, "must be a float array")
    bad("2-D sizes", ["run", "Resize-13", "--in", f"X={x4}", "--in", f"sizes={save('sz2.npy', np.ones((2, 2), np.int64))}"] + out,
        y, "must be 1-D")
    bad("scales_or_sizes dtype vs mode", ["run", "Interpolate-11", "--attr", "mode=nearest",
                                          "--attr", "shape_calculation_mode=scales", "--in", f"image={x4}",
                                          "--in", f"scales_or_sizes={sz}", "--in", f"axes={path('ax.npy')}",
                                          "--out", f"output={y}"], y, "must be a float array")
    bad("output dir missing", r10 + ["--out", f"Y={path('no/such/dir/y.npy')}"], None, "cannot create")

    # A failing run leaves an existing output file untouched.
    keep = save("keep.npy", np.array([7], np.float32))
    before = open(keep, "rb").read()
    rc, _, _ = run(r10 + ["--attr", "mode=bogus", "--out", f"Y={keep}"])
    check(rc == 1 and open(keep, "rb").read() == before, "failed run changed an existing output file")


def backward():
    """--backward and InterpolateBackprop-4: hand-checkable gradients and their errors."""
    # Resize-10 linear x2 on [1, 3]: y = [1, 2, 3, 3] (c = 0, .5, 1, 1.5 clamped), so
    # dx = [dy0 + .5 dy1, .5 dy1 + dy2 + dy3]; with dy = [1, 2, 4, 8]: [2, 13]
    x = save("bx.npy", np.array([1, 3], np.float64))
    sc = save("bsc.npy", np.array([2.0], np.float32))
    dy = save("bdy.npy", np.array([1, 2, 4, 8], np.float64))
    dx = path("bdx.npy")
    base = ["run", "Resize-10", "--attr", "mode=linear", "--in", f"X={x}", "--in", f"scales={sc}",
            "--backward", "--in", f"output_delta={dy}"]
    ok("Resize-10 --backward X_delta", base + ["--out", f"X_delta={dx}"], dx, [2.0, 13.0], "float64")
    # scales_delta: c = o/s, y_o = x0 + c (x1 - x0) for c < 1: dy/ds = -(o/s^2) * 2.  s = 2 is
    # the low end of the scales keeping 4 outputs (floor(2 s) = 4 for s in [2, 2.5)), so the
    # derivative is the one for s > 2 (the kink rule): there o = 2 has c = 2/s < 1 too, o = 3
    # is clamped: -0.25 * 2 * dy1 - 0.5 * 2 * dy2 = -1 - 4 = -5
    ds = path("bds.npy")
    ok("Resize-10 --backward scales_delta", base + ["--out", f"scales_delta={ds}"], ds, [-5.0], "float32")
    # InterpolateBackprop-4 (seed port names), nearest: scatter [1, 2, 4, 8] onto [0, 0, 1, 1]
    d = save("bd.npy", np.array([[1, 3]], np.float32))
    dy2 = save("bdy2.npy", np.array([[1, 2, 4, 8]], np.float32))
    sz = save("bsz.npy", np.array([1, 4], np.int64))
    sc2 = save("bsc2.npy", np.array([1, 2], np.float32))
    idx = path("bidx.npy")
    bp = ["run", "InterpolateBackprop-4", "--attr", "mode=nearest", "--attr", "shape_calculation_mode=scales",
          "--attr", "coordinate_transformation_mode=asymmetric", "--attr", "nearest_mode=floor",
          "--in", f"data={d}", "--in", f"output_delta={dy2}", "--in", f"sizes={sz}", "--in", f"scales={sc2}"]
    ok("InterpolateBackprop-4 input_delta", bp + ["--out", f"input_delta={idx}"], idx, [[3.0, 12.0]], "float32")
    ok("InterpolateBackprop-4 scales_delta (nearest: 0)", bp + ["--out", f"scales_delta={ds}"], ds, [0.0, 0.0])
    bad("backprop scales_delta in sizes mode", [a if a != "shape_calculation_mode=scales" else "shape_calculation_mode=sizes"
                                                  for a in bp] + ["--out", f"scales_delta={ds}"], None, "scales mode")
    bad("backprop --backward", bp + ["--backward", "--out", f"input_delta={idx}"], None, "already a gradient op", 2)
    bad("backward missing output_delta", base[:-2] + ["--out", f"X_delta={dx}"], None, "missing required input output_delta", 2)
    bad("backward unknown gradient", base + ["--out", f"sizes_delta={dx}"], None, "no output 'sizes_delta'", 2)
    wrong = save("bdyw.npy", np.array([1, 2, 4], np.float64))
    bad("backward output_delta shape", base[:-1] + [f"output_delta={wrong}", "--out", f"X_delta={dx}"], None,
        "output_delta shape[0] must be 4")
    xi = save("bxi.npy", np.array([1, 3], np.int32))
    bad("backward integer data", ["run", "Resize-10", "--attr", "mode=linear", "--in", f"X={xi}", "--in", f"scales={sc}",
                                  "--backward", "--in", f"output_delta={dy}", "--out", f"X_delta={dx}"], None, "f32 or f64")
    bad("backward roi_delta without roi", ["run", "Resize-13", "--attr", "mode=linear", "--in", f"X={x}",
                                           "--in", f"scales={sc}", "--backward", "--in", f"output_delta={dy}",
                                           "--out", f"roi_delta={dx}"], None, "roi")


def grid_sample():
    """GridSample through the CLI: hand values, gradients, per-version mode names."""
    x = save("gx.npy", np.array([[[[1, 2, 4, 8]]]], np.float64))
    g = save("gg.npy", np.array([[[[-1 / 3, 0.0], [1.0, 0.0]]]], np.float64))  # u = 1, 3 (align 1)
    y = path("gy.npy")
    ok("GridSample-9 bilinear align_corners", ["run", "GridSample-9", "--attr", "align_corners=1",
                                               "--in", f"data={x}", "--in", f"grid={g}", "--out", f"output={y}"],
       y, [[[[2.0, 8.0]]]])
    ok("GridSample-20 linear", ["run", "GridSample-20", "--attr", "mode=linear", "--attr", "align_corners=1",
                                "--in", f"X={x}", "--in", f"grid={g}", "--out", f"Y={y}"], y, [[[[2.0, 8.0]]]])
    g2 = save("gg2.npy", np.array([[[[1.5, 0.0]]]], np.float64))  # align 0, u = 4.5: round first -> 4 -> 3
    ok("GridSample-16 nearest reflection tie", ["run", "GridSample-16", "--attr", "mode=nearest",
                                                 "--attr", "padding_mode=reflection", "--in", f"X={x}",
                                                 "--in", f"grid={g2}", "--out", f"Y={y}"], y, [[[[8.0]]]])
    dy = save("gdy.npy", np.array([[[[1.0, 1.0]]]], np.float64))
    dx, dg = path("gdx.npy"), path("gdg.npy")
    base = ["run", "GridSample-9", "--attr", "align_corners=1", "--in", f"data={x}", "--in", f"grid={g}",
            "--backward", "--in", f"output_delta={dy}"]
    # u = 1 (kink: right derivative, slope x2 - x1 = 2, du/dg = 1.5) and u = 3 = L-1 (zeros: slope -x3... taps (3) only)
    ok("GridSample-9 backward data_delta", base + ["--out", f"data_delta={dx}"], dx, [[[[0.0, 1.0, 0.0, 1.0]]]])
    ok("GridSample-9 backward grid_delta", base + ["--out", f"grid_delta={dg}"], dg, [[[[3.0, 0.0], [-12.0, 0.0]]]])
    gout = path("gbad.npy")
    bad("GridSample-16 mode linear", ["run", "GridSample-16", "--attr", "mode=linear", "--in", f"X={x}",
                                      "--in", f"grid={g}", "--out", f"Y={gout}"], gout, "use bilinear, bicubic or nearest")
    bad("GridSample-20 mode bicubic", ["run", "GridSample-20", "--attr", "mode=bicubic", "--in", f"X={x}",
                                       "--in", f"grid={g}", "--out", f"Y={gout}"], gout, "use linear, cubic or nearest")
    bad("GridSample bad padding", ["run", "GridSample-9", "--attr", "padding_mode=mirror", "--in", f"data={x}",
                                   "--in", f"grid={g}", "--out", f"output={gout}"], gout, "unknown value 'mirror'")
    gi = save("ggi.npy", np.zeros((1, 1, 2, 2), np.int32))
    bad("GridSample integer grid", ["run", "GridSample-9", "--in", f"data={x}", "--in", f"grid={gi}",
                                    "--out", f"output={gout}"], gout, "grid dtype must be f32 or f64")
    g3 = save("gg3.npy", np.zeros((2, 1, 2, 2), np.float64))
    bad("GridSample N mismatch", ["run", "GridSample-9", "--in", f"data={x}", "--in", f"grid={g3}",
                                  "--out", f"output={gout}"], gout, "grid shape[0] (N) must be 1")
    bad("GridSample backward unknown output", base + ["--out", f"roi_delta={gout}"], gout,
        "outputs: data_delta, grid_delta", 2)


# The ops, ports and attributes the command line must document, written down
# here from the operator documents (OpenVINO Interpolate-1/4/11 and
# GridSample-9, ONNX Resize-10..19 and GridSample-16/20/22, PyTorch
# F.interpolate, and InterpolateBackprop-4 as docs/semantics.md defines it),
# not read back from the help text.
CT_OV = ["half_pixel", "pytorch_half_pixel", "asymmetric", "tf_half_pixel_for_nn", "align_corners"]
NM_OV = ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "simple"]
NM_ONNX = ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"]
BOOL = ["0", "1"]
INTERP4_ATTRS = {"mode": ["nearest", "linear", "linear_onnx", "cubic"],
                 "shape_calculation_mode": ["sizes", "scales"],
                 "coordinate_transformation_mode": CT_OV, "nearest_mode": NM_OV,
                 "antialias": BOOL, "pads_begin": [], "pads_end": [], "cube_coeff": []}


def resize_attrs(opset):
    ct = ["half_pixel", "pytorch_half_pixel", "asymmetric", "align_corners", "tf_crop_and_resize"]
    if opset == 11:
        ct.append("tf_half_pixel_for_nn")
    if opset >= 19:
        ct.append("half_pixel_symmetric")
    a = {"mode": ["nearest", "linear", "cubic"], "coordinate_transformation_mode": ct,
         "nearest_mode": NM_ONNX, "cubic_coeff_a": [], "exclude_outside": BOOL,
         "extrapolation_value": []}
    if opset >= 18:
        a.update({"antialias": BOOL, "axes": [],
                  "keep_aspect_ratio_policy": ["stretch", "not_larger", "not_smaller"]})
    return a


GS_ATTRS = {"align_corners": BOOL, "padding_mode": ["zeros", "border", "reflection"]}
# op: (inputs, forward output, gradient outputs, {attribute: values})
HELP_OPS = {
    "Interpolate-1": (["data", "target_spatial_shape"], "output", ["data_delta"],
                      {"axes": [], "mode": ["nearest", "linear", "cubic", "area"],
                       "align_corners": BOOL, "antialias": BOOL, "pads_begin": [], "pads_end": []}),
    "Interpolate-4": (["data", "sizes", "scales", "axes"], "output", ["data_delta", "scales_delta"],
                      INTERP4_ATTRS),
    "Interpolate-11": (["image", "scales_or_sizes", "axes"], "output",
                       ["image_delta", "scales_or_sizes_delta"],
                       dict(INTERP4_ATTRS, mode=INTERP4_ATTRS["mode"] + ["bilinear_pillow", "bicubic_pillow"])),
    "Resize-10": (["X", "scales"], "Y", ["X_delta", "scales_delta"], {"mode": ["nearest", "linear"]}),
    "TorchInterpolate": (["input"], "output", ["input_delta"],
                         {"size": [], "scale_factor": [], "align_corners": BOOL, "antialias": BOOL,
                          "recompute_scale_factor": BOOL,
                          "mode": ["nearest", "nearest-exact", "linear", "bilinear", "bicubic",
                                   "trilinear", "area"]}),
    "InterpolateBackprop-4": (["data", "output_delta", "sizes", "scales", "axes"], None,
                              ["input_delta", "scales_delta"], INTERP4_ATTRS),
    "GridSample-9": (["data", "grid"], "output", ["data_delta", "grid_delta"],
                     dict(GS_ATTRS, mode=["bilinear", "nearest", "bicubic"])),
    "GridSample-16": (["X", "grid"], "Y", ["X_delta", "grid_delta"],
                      dict(GS_ATTRS, mode=["bilinear", "nearest", "bicubic"])),
}
for _o in (11, 13, 18, 19):
    HELP_OPS[f"Resize-{_o}"] = (["X", "roi", "scales", "sizes"], "Y", ["X_delta", "roi_delta", "scales_delta"],
                                resize_attrs(_o))
for _v in (20, 22):
    HELP_OPS[f"GridSample-{_v}"] = (["X", "grid"], "Y", ["X_delta", "grid_delta"],
                                    dict(GS_ATTRS, mode=["linear", "nearest", "cubic"]))


def words(text):
    return set(text.replace(",", " ").replace("|", " ").replace("*", " ").replace("(", " ")
               .replace(")", " ").replace(";", " ").replace("=", " ").split())


def help_text():
    """--help: both subcommands, every op with every port (forward and backward) and
    every attribute with every value."""
    rc, so, se = run(["--help"])
    check(rc == 0 and se == "", f"--help: exit {rc}, stderr {se!r}")
    lines = so.splitlines()
    for cmd in ("run", "gradcheck"):
        check(any(l.startswith(f"  {cmd} ") for l in lines), f"--help lacks the {cmd} subcommand line")
    rc, so2, se = run(["gradcheck", "--help"])
    check(rc == 0 and "--op" in so2, f"gradcheck --help: exit {rc}")
    # one section per op: "  OP" then indented lines
    sections, cur = {}, None
    for l in lines:
        if l.startswith("  ") and not l.startswith("   ") and l.strip() in HELP_OPS:
            cur = l.strip()
            sections[cur] = []
        elif cur and l.startswith("    "):
            sections[cur].append(l.strip())
        else:
            cur = None
    for op, (ins, out, grads, attrs) in HELP_OPS.items():
        sec = sections.get(op)
        if sec is None:
            check(False, f"--help lacks op {op}")
            continue
        field = {}
        last = None
        for l in sec:
            head, _, rest = l.partition(":")
            if head in ("in", "out", "backward", "attr") and _:
                last = head
                field.setdefault(head, []).append(rest)
            elif last == "attr":
                field["attr"].append(l)
        for port in ins:
            check(port in words(" ".join(field.get("in", []))), f"--help {op}: input {port} missing")
        grad_text = " ".join(field.get("backward" if out else "out", []))
        if out:
            check(out in words(" ".join(field.get("out", []))), f"--help {op}: output {out} missing")
            check("output_delta" in words(grad_text), f"--help {op}: backward input output_delta missing")
        for g in grads:
            check(g in words(grad_text), f"--help {op}: gradient output {g} missing")
        attr_lines = {}
        for l in field.get("attr", []):
            name, _, vals = l.strip().partition("=")
            attr_lines[name.strip().rstrip("*")] = vals
        for a, vals in attrs.items():
            if a not in attr_lines:
                check(False, f"--help {op}: attribute {a} missing")
                continue
            check(attr_lines[a].strip() != "", f"--help {op}: attribute {a} has no values")
            for v in vals:
                check(v in words(attr_lines[a]), f"--help {op}: attribute {a} lacks value {v}")
        extra = set(attr_lines) - set(attrs)
        check(not extra, f"--help {op}: attributes not in the op documents: {extra}")
    print("ok   --help:", len(sections), "ops,", sum(len(v[3]) for v in HELP_OPS.values()), "attributes checked")


def all_or_nothing():
    """Several outputs appear together or not at all: a second output that cannot be
    written (missing directory, under a regular file, read-only directory) or an op
    that fails leaves no output file and no temporary behind."""
    x = save("ax.npy", np.array([[[[1, 2, 4, 8]]]], np.float64))
    g = save("ag.npy", np.array([[[[-1 / 3, 0.0], [1.0, 0.0]]]], np.float64))
    dy = save("ady.npy", np.array([[[[1.0, 1.0]]]], np.float64))
    base = ["run", "GridSample-9", "--attr", "align_corners=1", "--in", f"data={x}", "--in", f"grid={g}",
            "--backward", "--in", f"output_delta={dy}"]
    okp = path("a_ok.npy")
    # both writable: both appear
    dg = path("a_dg.npy")
    rc, so, se = run(base + ["--out", f"data_delta={okp}", "--out", f"grid_delta={dg}"])
    check(rc == 0 and os.path.exists(okp) and os.path.exists(dg), f"two outputs: exit {rc} {se.strip()}")
    os.unlink(okp)
    os.unlink(dg)
    # the second output in a missing directory
    bad("second output in a missing directory",
        base + ["--out", f"data_delta={okp}", "--out", f"grid_delta={path('no/such/dir/dg.npy')}"],
        okp, "grid_delta")
    # ... and the first one there (order does not matter)
    bad("first output in a missing directory",
        base + ["--out", f"grid_delta={path('no/such/dir/dg.npy')}", "--out", f"data_delta={okp}"],
        okp, "grid_delta")
    # under a regular file: cannot be created, even as root
    reg = save("a_regular.npy", np.zeros(1))
    bad("second output under a regular file",
        base + ["--out", f"data_delta={okp}", "--out", f"grid_delta={reg}/dg.npy"], okp, "grid_delta")
    # a read-only directory (permissions do not bind root: skipped there)
    ro = path("a_ro")
    os.mkdir(ro)
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        print("skip read-only directory (running as root: permissions do not bind)")
    else:
        os.chmod(ro, 0o555)
        try:
            bad("second output in a read-only directory",
                base + ["--out", f"data_delta={okp}", "--out", f"grid_delta={ro}/dg.npy"], okp, "grid_delta")
            check(os.listdir(ro) == [], f"read-only dir: files appeared {os.listdir(ro)}")
        finally:
            os.chmod(ro, 0o755)
    # the outputs in two directories, one of them failing after the other staged
    sub = path("a_sub")
    os.mkdir(sub)
    bad("outputs in two directories, one missing",
        base + ["--out", f"data_delta={sub}/dx.npy", "--out", f"grid_delta={path('missing')}/dg.npy"],
        f"{sub}/dx.npy", "grid_delta")
    check(os.listdir(sub) == [], f"two directories: files appeared in {sub}: {os.listdir(sub)}")
    # the last rename fails (the target is a directory): the outputs already renamed
    # are removed again
    isdir = path("a_isdir")
    os.mkdir(isdir)
    bad("last rename fails (target is a directory)",
        base + ["--out", f"data_delta={okp}", "--out", f"grid_delta={isdir}"], okp, "grid_delta")
    check(os.path.isdir(isdir) and os.listdir(isdir) == [], "rename over a directory changed it")
    # an op that fails: nothing written (and an existing file keeps its bytes)
    wrong = save("a_dyw.npy", np.zeros((1, 1, 1, 3)))
    bad("op fails with two outputs requested",
        base[:-1] + [f"output_delta={wrong}", "--out", f"data_delta={okp}", "--out", f"grid_delta={dg}"],
        okp, "output_delta shape")
    check(not os.path.exists(dg), "op fails: grid_delta written")
    with open(okp, "wb") as f:
        f.write(b"old")
    before = set(os.listdir(TMP))
    rc, so, se = run(base + ["--out", f"data_delta={okp}", "--out", f"grid_delta={path('no/dir')}/dg.npy"])
    with open(okp, "rb") as f:
        check(rc == 1 and f.read() == b"old", "an existing output file was changed by a failed run")
    check(set(os.listdir(TMP)) == before, "failed run over an existing file left files")
    # the first output replaces an existing file, then the last rename fails: the old
    # file comes back, byte for byte, and no backup or temporary is left
    rc, so, se = run(base + ["--out", f"data_delta={okp}", "--out", f"grid_delta={isdir}"])
    with open(okp, "rb") as f:
        check(rc == 1 and f.read() == b"old", "a rolled-back commit did not restore the replaced file")
    check(set(os.listdir(TMP)) == before, "rolled-back commit left files")
    # two outputs naming one file: refused before anything is written
    rc, so, se = run(base + ["--out", f"data_delta={dg}", "--out", f"grid_delta={dg}"])
    check(rc == 2 and "same file" in se and not os.path.exists(dg), f"duplicate output paths: {rc} {se}")
    # success over an existing file leaves no backup behind
    rc, so, se = run(base + ["--out", f"data_delta={okp}", "--out", f"grid_delta={dg}"])
    check(rc == 0 and set(os.listdir(TMP)) == before | {"a_dg.npy"}, f"backup left after success: {rc} {se}")
    os.unlink(dg)
    with open(okp, "wb") as f:
        f.write(b"old")
    os.unlink(okp)
    # forward: the op fails (negative size) -> no output
    s = save("a_sz.npy", np.array([1, 1, 1, -4], np.int64))
    y = path("a_y.npy")
    bad("forward op fails", ["run", "Resize-19", "--in", f"X={x}", "--in", f"sizes={s}", "--out", f"Y={y}"],
        y, "sizes")


def parse_ranges(so):
    """{"scales[1]": (value, lo, hi), ...} from scale-range's output."""
    out = {}
    for line in so.splitlines()[1:]:
        name, rest = line.split(" = ", 1)
        v, iv = rest.split(": ", 1)
        lo, hi = iv.strip("[)").split(", ")
        out[name] = (float(v), float(lo), float(hi))
    return out


def check_ends(what, size_of, v, lo, hi):
    """[lo, hi) against an independent size rule at the exact neighbours of its ends."""
    O = size_of(v)
    check(lo <= v < hi, f"{what}: {v} not in [{lo}, {hi})")
    check(size_of(lo) == O and size_of(np.nextafter(lo, -np.inf)) != O,
          f"{what}: lo {lo!r} is not the first value giving {O}")
    check(size_of(np.nextafter(hi, -np.inf)) == O and size_of(hi) != O,
          f"{what}: hi {hi!r} is not the first value past {O}")


def scale_range_cli():
    x = save("sr_x.npy", np.zeros((1, 3, 4, 5)))
    sc = save("sr_sc.npy", np.array([1, 1, 1.9, 2.1]))
    rc, so, se = run(["scale-range", "Resize-19", "--attr", "mode=linear", "--in", f"X={x}",
                      "--in", f"scales={sc}"])
    check(rc == 0 and so.startswith("Resize-19 output shape 1x3x7x10"), f"scale-range Resize: {rc} {so} {se}")
    r = parse_ranges(so) if rc == 0 else {}
    L = [1, 3, 4, 5]
    for i in range(4):  # ONNX: floor(L * s) in float64
        v, lo, hi = r.get(f"scales[{i}]", (1.0, 0.0, 0.0))
        check_ends(f"Resize-19 scales[{i}]", lambda t, i=i: np.floor(L[i] * np.float64(t)), v, lo, hi)
    check(r.get("scales[1]", (0, 0, 0))[1] == 1.0, "Resize-19: s = 1 must be the low end on L = 3")
    print("ok   scale-range Resize-19 (float64 floor rule)")
    # OpenVINO: int64(float(L_padded) * (float(s) + 1e-6f)) in float32, with pads
    sc2 = save("sr_sc2.npy", np.array([1.3, 0.8]))
    ax = save("sr_ax.npy", np.array([2, 3], dtype=np.int64))
    rc, so, se = run(["scale-range", "Interpolate-4", "--attr", "mode=linear",
                      "--attr", "shape_calculation_mode=scales", "--attr", "pads_begin=0,0,1,0",
                      "--in", f"data={x}", "--in", f"scales={sc2}", "--in", f"axes={ax}"])
    check(rc == 0, f"scale-range Interpolate-4: {rc} {se}")
    r = parse_ranges(so) if rc == 0 else {}
    f32 = np.float32
    for i, Lp in ((0, 5), (1, 5)):
        v, lo, hi = r.get(f"scales[{i}]", (1.0, 0.0, 0.0))
        check_ends(f"Interpolate-4 scales[{i}]",
                   lambda t, Lp=Lp: int(f32(Lp) * (f32(t) + f32(1e-6))), v, lo, hi)
    print("ok   scale-range Interpolate-4 (float32 s + 1e-6 rule, pads)")
    rc, so, se = run(["scale-range", "TorchInterpolate", "--attr", "mode=bilinear",
                      "--attr", "scale_factor=1.5,0.7", "--in", f"input={x}"])
    r = parse_ranges(so) if rc == 0 else {}
    for i, Ls in ((0, 4), (1, 5)):
        v, lo, hi = r.get(f"scale_factor[{i}]", (1.0, 0.0, 0.0))
        check_ends(f"TorchInterpolate scale_factor[{i}]", lambda t, Ls=Ls: np.floor(Ls * t), v, lo, hi)
    print("ok   scale-range TorchInterpolate")
    bad("scale-range GridSample", ["scale-range", "GridSample-9", "--in", f"data={x}"], None,
        "has no scales", 2)
    bad("scale-range --out", ["scale-range", "Resize-19", "--in", f"X={x}", "--out", "Y=y.npy"],
        None, "unknown option '--out'", 2)
    neg = save("sr_neg.npy", np.array([1, -1, 1.9, 2.1]))
    bad("scale-range invalid call", ["scale-range", "Resize-19", "--in", f"X={x}",
                                     "--in", f"scales={neg}"], None, "scales[1]", 1)


def gradcheck_cli():
    base = ["gradcheck", "Resize-19", "--attr", "mode=linear", "--in", "scales=1,1,1.9,2.1",
            "--shape", "1,3,4,5"]
    rc, so, se = run(base)
    check(rc == 0 and "\nPASS" in so and "one-sided" in so and "worst scales[" in so,
          f"gradcheck one case: {rc} {so} {se}")
    print("ok   gradcheck Resize-19 one case")
    rc, so, se = run(["gradcheck", "Resize-19", "--attr", "mode=linear", "--in",
                      "scales=1,-1,1.9,2.1", "--shape", "1,3,4,5"])
    check(rc == 1 and "FAIL" in so and "scales[1]" in so, f"gradcheck rejected call: {rc} {so} {se}")
    rc, so, se = run(["gradcheck", "Resize-19", "--attr", "modee=linear", "--shape", "1,3,4,5"])
    check(rc == 2 and "modee" in se, f"gradcheck unknown attribute: {rc} {se}")
    # sizes that are not integers (NaN, 1e300, 2.7) are usage errors, never converted
    for bad_sizes in ("1e300,nan", "2.7,3"):
        rc, so, se = run(["gradcheck", "Interpolate-11", "--attr", "shape_calculation_mode=sizes",
                          "--in", f"scales_or_sizes={bad_sizes}", "--in", "axes=2,3", "--shape", "1,1,4,4"])
        check(rc == 2 and "not an integer" in se, f"gradcheck sizes {bad_sizes}: {rc} {so} {se}")
    f = os.path.join(TMP, "gc_sizes.npy")
    np.save(f, np.array([np.inf, 3.0]))
    rc, so, se = run(["gradcheck", "Interpolate-4", "--attr", "shape_calculation_mode=sizes",
                      "--in", f"sizes={f}", "--in", "axes=2,3", "--shape", "1,1,4,4"])
    check(rc in (1, 2) and "not an integer" in se, f"gradcheck sizes from .npy inf: {rc} {so} {se}")
    # the sweep's --json: every case, and each reproduce line reruns its case
    js = path("gc.json")
    rc, so, se = run(["gradcheck", "--quick", "--op", "Resize-10", "--json", js])
    check(rc == 0 and os.path.exists(js), f"gradcheck --json: {rc} {se}")
    if rc == 0:
        import json
        with open(js) as f:
            cases = json.load(f)["cases"]
        ran = [c for c in cases if c["state"] in ("pass", "fail")]
        check(len(cases) == 256 and len(ran) == 8 and all(c["state"] == "pass" for c in ran),
              f"gradcheck --json: {len(cases)} cases, {len(ran)} run")
        for c in ran[:2]:
            args = c["reproduce"].split()[1:]
            rc2, so2, se2 = run(args)
            check(rc2 == 0 and "\nPASS" in so2, f"reproduce {c['reproduce']}: {rc2} {so2} {se2}")
        print("ok   gradcheck --json and reproduce lines")


def main():
    global CLI, TMP
    if len(sys.argv) != 2:
        print("usage: test_cli.py PATH/TO/dresample", file=sys.stderr)
        return 2
    CLI = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="dresample_cli_") as d:
        TMP = d
        round_trips()
        errors()
        backward()
        grid_sample()
        help_text()
        all_or_nothing()
        scale_range_cli()
        gradcheck_cli()
    if failures:
        print(f"test_cli: {len(failures)} failure(s)")
        return 1
    print("test_cli: all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
