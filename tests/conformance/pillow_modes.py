#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""pillow_modes.py — Interpolate-11 bilinear_pillow / bicubic_pillow against Pillow.

Usage: pillow_modes.py PATH/TO/dresample [--list] [--verbose] [--filter SUBSTR]

Each case resizes an image [H, W] -> [Ho, Wo] with

    dresample run Interpolate-11 --attr mode=bilinear_pillow|bicubic_pillow
        --attr shape_calculation_mode=sizes --attr cube_coeff=-0.5
        --in image=x.npy --in scales_or_sizes=sizes.npy (int64) --in axes=axes.npy (int64)
        --out output=y.npy

and compares every H x W slice of the output with Pillow's
Image.resize((Wo, Ho), BILINEAR / BICUBIC) (Pillow 9.4, reducing_gap None, full
box) of the same slice.  Pillow resizes horizontally (W) first, then
vertically (H); the library's pillow modes run axes[1] first, so the uint8
re-quantisation between the passes happens at the same place.

Images: float32 "F" images (values uniform in [0, 1], a few with range
[-50, 200]) and uint8 "L" images (uniform noise, and a 0/255 checkerboard that
makes bicubic overshoot and clip).  Layouts of the tensor:
  [H, W] axes=0,1;  [1, H, W] axes=1,2;  [2, 1, H, W] axes=2,3 (two images);
  [H, W, 2] axes=0,1 (channels last: two images interleaved);
  [W, H] (the transposed image) axes=1,0 with sizes [Ho, Wo]: axes[1] = 0 is
  then the horizontal axis, so it is still resized first.
Shapes: up, down, integer and non-integer ratios, H-only and W-only changes
(Pillow skips the unchanged pass), 1-pixel outputs and inputs, identity,
large ratios, and a few random sizes (fixed seed).

Criteria: float32 max |error| <= 1e-5 * max(1, value range of the input)
(Pillow accumulates in double and stores float32); uint8 within +-1 (Pillow
uses 22-bit fixed-point weights, the library double weights), and
the number of pixels that differ at all is reported.  One line per failing
case, then "pillow conformance: P/T passed".  Exit 1 on any failure, 77
(skip) when numpy or PIL cannot be imported.
"""
import os
import subprocess
import sys
import tempfile
import zlib
from concurrent.futures import ThreadPoolExecutor

try:
    import numpy as np
    import PIL
    from PIL import Image
except ImportError as e:  # the reference package is optional: ctest reports a skip
    print(f"SKIP: pillow conformance needs numpy and PIL ({e})")
    sys.exit(77)

_R = getattr(Image, "Resampling", Image)  # Pillow >= 9.1 spells it Image.Resampling
FILTERS = {"bilinear_pillow": _R.BILINEAR, "bicubic_pillow": _R.BICUBIC}
LAYOUTS = ("hw", "1hw", "21hw", "hw2", "wh")

SHAPES = [  # (H, W, Ho, Wo)
    (5, 6, 10, 12), (4, 4, 16, 16),                      # up, integer ratio
    (16, 12, 5, 4), (20, 18, 10, 9), (32, 32, 8, 8),      # down
    (7, 9, 10, 13), (13, 11, 6, 8), (10, 10, 7, 13),      # non-integer, mixed
    (8, 9, 13, 9), (12, 7, 5, 7),                          # H only
    (8, 9, 8, 4), (6, 5, 6, 11),                           # W only
    (9, 7, 1, 1), (9, 7, 1, 5), (9, 7, 4, 1),             # 1-pixel outputs
    (1, 1, 3, 4), (1, 6, 4, 6), (6, 1, 6, 3), (1, 1, 1, 1),  # 1-pixel inputs
    (6, 7, 6, 7),                                          # identity
    (40, 30, 7, 5), (3, 4, 29, 31), (64, 3, 5, 17),        # large ratios
]


def random_shapes(n=8, seed=20240611):
    rng = np.random.default_rng(seed)
    return [tuple(int(v) for v in rng.integers(1, 25, size=2)) +
            tuple(int(v) for v in rng.integers(1, 33, size=2)) for _ in range(n)]


class Case:
    def __init__(self, mode, shape, dtype, layout, data="uniform"):
        self.mode, self.dtype, self.layout, self.data = mode, dtype, layout, data
        self.H, self.W, self.Ho, self.Wo = shape

    def name(self):
        return (f"{self.mode} {self.dtype} {self.layout} {self.data} "
                f"{self.H}x{self.W}->{self.Ho}x{self.Wo}")

    def images(self):
        """The n 2-D images [H, W] that make up the tensor."""
        n = {"21hw": 2, "hw2": 2}.get(self.layout, 1)
        rng = np.random.default_rng(zlib.crc32(self.name().encode()))
        shape = (n, self.H, self.W)
        if self.dtype == "uint8":
            if self.data == "checker":
                i, j = np.indices((self.H, self.W))
                return np.broadcast_to(((i + j) % 2 * 255).astype(np.uint8), shape).copy()
            return rng.integers(0, 256, size=shape, dtype=np.uint8)
        if self.data == "wide":
            return rng.uniform(-50.0, 200.0, size=shape).astype(np.float32)
        return rng.uniform(0.0, 1.0, size=shape).astype(np.float32)

    def tensor(self, imgs):
        """(tensor, sizes, axes) for the layout."""
        L = self.layout
        if L == "hw":
            return imgs[0], [self.Ho, self.Wo], [0, 1]
        if L == "1hw":
            return imgs[0][None], [self.Ho, self.Wo], [1, 2]
        if L == "21hw":
            return imgs[:, None], [self.Ho, self.Wo], [2, 3]
        if L == "hw2":
            return np.ascontiguousarray(np.moveaxis(imgs, 0, -1)), [self.Ho, self.Wo], [0, 1]
        if L == "wh":
            return np.ascontiguousarray(imgs[0].T), [self.Ho, self.Wo], [1, 0]
        raise ValueError(L)

    def untensor(self, y):
        """The n output images [Ho, Wo] from the output tensor."""
        L = self.layout
        if L == "hw":
            return y[None]
        if L == "1hw":
            return y
        if L == "21hw":
            return y[:, 0]
        if L == "hw2":
            return np.moveaxis(y, -1, 0)
        if L == "wh":
            return y.T[None]
        raise ValueError(L)

    def out_shape(self, n):
        L = self.layout
        return {"hw": (self.Ho, self.Wo), "1hw": (1, self.Ho, self.Wo),
                "21hw": (2, 1, self.Ho, self.Wo), "hw2": (self.Ho, self.Wo, 2),
                "wh": (self.Wo, self.Ho)}[L]

    def reference(self, imgs):
        pil_mode = "L" if self.dtype == "uint8" else "F"
        out = []
        for im in imgs:
            p = Image.fromarray(np.ascontiguousarray(im), mode=pil_mode)
            r = p.resize((self.Wo, self.Ho), FILTERS[self.mode], reducing_gap=None)
            out.append(np.asarray(r))
        return np.stack(out)


def build_cases():
    cases = []
    shapes = SHAPES + random_shapes()
    for k, shape in enumerate(shapes):
        layouts = ["hw"]
        if k % 2 == 0:
            layouts += ["1hw", "21hw"]
        if k % 3 == 0:
            layouts += ["hw2", "wh"]
        if k % 2 == 1 and k % 3 != 0:
            layouts += ["wh"]
        for mode in FILTERS:
            for dtype in ("float32", "uint8"):
                for layout in layouts:
                    cases.append(Case(mode, shape, dtype, layout))
    for shape in [(7, 9, 10, 13), (16, 12, 5, 4), (5, 6, 10, 12), (12, 7, 5, 7)]:
        for mode in FILTERS:
            cases.append(Case(mode, shape, "float32", "hw", data="wide"))
            cases.append(Case(mode, shape, "uint8", "hw", data="checker"))
            cases.append(Case(mode, shape, "uint8", "21hw", data="checker"))
    return cases


def run_case(cli, case, tmp, idx):
    """(ok, detail, n_differing_pixels, n_pixels) for one case."""
    imgs = case.images()
    x, sizes, axes = case.tensor(imgs)
    files = {}
    for port, arr in (("image", x), ("scales_or_sizes", np.array(sizes, dtype=np.int64)),
                      ("axes", np.array(axes, dtype=np.int64))):
        files[port] = os.path.join(tmp, f"{port}{idx}.npy")
        np.save(files[port], arr)
    yout = os.path.join(tmp, f"y{idx}.npy")
    args = [cli, "run", "Interpolate-11", "--attr", f"mode={case.mode}",
            "--attr", "shape_calculation_mode=sizes", "--attr", "cube_coeff=-0.5"]
    for port, f in files.items():
        args += ["--in", f"{port}={f}"]
    args += ["--out", f"output={yout}", "--threads", str(1 + idx % 2)]
    r = subprocess.run(args, capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        return False, f"exit {r.returncode}: {r.stderr.strip()}", 0, 0
    y = np.load(yout)
    want_shape = case.out_shape(len(imgs))
    if y.shape != want_shape or y.dtype != x.dtype:
        return False, f"got {y.dtype}{list(y.shape)}, expected {x.dtype}{list(want_shape)}", 0, 0
    got = case.untensor(y)
    expect = case.reference(imgs)
    err = np.abs(got.astype(np.float64) - expect.astype(np.float64))
    worst = float(err.max()) if err.size else 0.0
    ndiff = int(np.count_nonzero(err))
    if case.dtype == "uint8":
        tol = 1.0
    else:
        rng = float(imgs.max() - imgs.min()) if imgs.size else 0.0
        tol = 1e-5 * max(1.0, rng)
    if worst <= tol:
        extra = f", {ndiff}/{err.size} pixels differ by 1" if case.dtype == "uint8" and ndiff else ""
        return True, f"max error {worst:.3g}{extra}", ndiff, err.size
    i = np.unravel_index(np.argmax(err), err.shape)
    return False, (f"max error {worst:.3g} (tolerance {tol:.3g}), {ndiff}/{err.size} pixels "
                   f"differ; worst at image {int(i[0])} (y={int(i[1])}, x={int(i[2])}): "
                   f"got {got[i]!r}, Pillow {expect[i]!r}"), ndiff, err.size


def main():
    argv = sys.argv[1:]
    listing = "--list" in argv
    verbose = "--verbose" in argv or "-v" in argv
    filt = None
    if "--filter" in argv:
        filt = argv[argv.index("--filter") + 1]
        argv.remove(filt)
    pos = [a for a in argv if not a.startswith("-")]
    cases = build_cases()
    if filt:
        cases = [c for c in cases if filt in c.name()]
    if listing:
        for c in cases:
            print(c.name())
        print(f"{len(cases)} cases")
        return 0
    if len(pos) != 1:
        print("usage: pillow_modes.py PATH/TO/dresample [--list] [--verbose] [--filter SUBSTR]",
              file=sys.stderr)
        return 2
    cli = os.path.abspath(pos[0])
    if not os.access(cli, os.X_OK):
        print(f"FAIL: {cli} is not an executable")
        return 1

    def one(arg):
        idx, case = arg
        try:
            return run_case(cli, case, tmp, idx)
        except Exception as e:  # a broken case is a failure, not a crash of the suite
            return False, f"{type(e).__name__}: {e}", 0, 0

    with tempfile.TemporaryDirectory(prefix="dresample_pillow_") as tmp:
        workers = max(1, min(4, os.cpu_count() or 1))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(one, enumerate(cases)))
    passed = 0
    u8_diff = u8_total = u8_cases_diff = 0
    for case, (ok, detail, ndiff, total) in zip(cases, results):
        passed += ok
        if case.dtype == "uint8":
            u8_diff += ndiff
            u8_total += total
            u8_cases_diff += ndiff > 0
        if not ok:
            print(f"FAIL {case.name()}: {detail}")
        elif verbose:
            print(f"PASS {case.name()}: {detail}")
    n_u8 = sum(c.dtype == "uint8" for c in cases)
    print(f"uint8: {u8_diff}/{u8_total} pixels differ from Pillow "
          f"(in {u8_cases_diff}/{n_u8} uint8 cases)")
    print(f"pillow conformance: {passed}/{len(cases)} passed (Pillow {PIL.__version__})")
    return 0 if passed == len(cases) else 1


if __name__ == "__main__":
    sys.exit(main())
