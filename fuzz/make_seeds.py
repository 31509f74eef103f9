#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the seed corpora of the fuzzers (fuzz/corpus/<name>/): valid and
malformed .npy files, and byte programs for the op and grid harnesses that
decode into valid calls of every op family.  Deterministic; rerun to
regenerate.  numpy is used for the valid .npy seeds."""
import os
import random
import struct

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(1234)


def put(name, idx, data):
    d = os.path.join(here, "corpus", name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"seed_{idx:03d}"), "wb") as f:
        f.write(data)


# --- npy: every dtype, ranks 0-3, v1/v2 headers, and malformed variants
import io
i = 0
for dt in ("<f4", "<f8", "|u1", "|i1", "<i4", "<i8"):
    for shape in ((), (3,), (2, 3), (1, 2, 2)):
        b = io.BytesIO()
        np.save(b, np.arange(int(np.prod(shape)) if shape else 1).astype(dt).reshape(shape))
        raw = b.getvalue()
        put("npy", i, raw); i += 1
put("npy", i, raw[:-3]); i += 1                        # truncated data
put("npy", i, raw + b"\0"); i += 1                    # trailing byte
put("npy", i, raw.replace(b"False", b"True ")); i += 1  # fortran order
put("npy", i, raw.replace(b"(1, 2, 2)", b"(2065374891, 1145309325)"[:9])); i += 1
hdr = b"{'descr': '<f4', 'fortran_order': False, 'shape': (2065374891, 1145309325), }"
hdr += b" " * (-(len(hdr) + 11) % 64) + b"\n"
put("npy", i, b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr); i += 1
hdr2 = b"{'descr': '>f8', 'fortran_order': False, 'shape': (-1,), }\n"
put("npy", i, b"\x93NUMPY\x02\x00" + struct.pack("<I", len(hdr2)) + hdr2); i += 1

# --- ops: random byte programs (the harness decodes any bytes); a few with the
# first bytes steering to each family and dtype
for k in range(40):
    fam = k % 5
    prog = bytes([rng.randrange(3), fam, rng.choice([0, 1, 2, 4]), rng.randrange(6)])
    prog += bytes(rng.randrange(256) for _ in range(rng.randrange(64, 400)))
    put("ops", k, prog)

# --- grid: valid calls with special float patterns in the grid
specials = [float("nan"), float("inf"), -float("inf"), 3e38, -2.5e38, 1e-45, 0.999, -1.0, 1.0, 0.5]
for k in range(24):
    head = bytes([k % 3, k % 4, (k // 4) % 3, (k // 12) % 3, k & 1, 0, 0] + [4, 3, 4, 3, 4, 3])
    vals = b"".join(struct.pack("<i", 0) for _ in range(0))
    data = bytes(rng.randrange(256) for _ in range(64))
    g = b"".join(struct.pack("<d" if (k & 1) else "<f", rng.choice(specials)) for _ in range(64))
    put("grid", k, head + data + g)
# --- kernels: header bytes (target, threads, allocation failure, wrong
# argument) steering to Resize, Interpolate and GridSample with no failure and
# no wrong argument, then random bytes; and the three streamed-gather variants
for k in range(30):
    target = k % 3
    prog = bytes([target, k & 1, 255, 255])
    prog += bytes(rng.randrange(256) for _ in range(rng.randrange(32, 600)))
    put("kernels", k, prog)
for v in range(3):
    put("kernels", 30 + v, bytes([255, 0, 255, 255, v, v]) + bytes(64))
# the fused last two passes by chunks of columns (channels-last rows past
# 16 KiB): Resize-19 linear on axes 1, 2 of [1, 2, W, 2] (x0.5, x2), f32
# with W = 2049 and f64 with W = 1031, forward and both gradients
for k, (wbyte, dt, n) in enumerate(((222, 0, 2 * 2049 * 2), (221, 1, 2 * 1031 * 2))):
    prog = bytes([0, 0, 255, 255, 2, 0, 1, wbyte, 1, dt, 3])
    prog += bytes([1, 0, 0, 8, 0, 0]) + bytes([0, 16, 0, 16]) + bytes([1])
    prog += bytes(rng.randrange(256) for _ in range(n))          # X
    prog += bytes([4, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0])              # Resize-19 attrs
    prog += bytes(rng.randrange(256) for _ in range(n * 2)) + bytes([3])  # dY, want dx + ds
    put("kernels", 33 + k, prog)
print("seeds written under", os.path.join(here, "corpus"))
