# SPDX-License-Identifier: MIT
"""bench_common.py — what the Python benchmark scripts of bench/ share.

The glibc malloc settings they re-execute themselves with (so that fresh
outputs do not cost page faults: bench/README.md, "Page faults"), bench.c's
input data (fill, the affine grid) reproduced in NumPy, running drs_bench and
listing its workloads, and the geometric mean of the ratios.  NumPy is
imported only by the functions that need it.
"""
import json
import math
import os
import subprocess
import sys

MALLOC_ENV = {
    "GLIBC_TUNABLES": "glibc.malloc.hugetlb=1",
    "MALLOC_MMAP_MAX_": "0",
    "MALLOC_MMAP_THRESHOLD_": "4294967296",
    "MALLOC_TRIM_THRESHOLD_": "68719476736",
    # PyTorch >= 2.2: tensors of 2 MiB or more 2 MiB-aligned and advised as huge
    # pages, as bench.c's and the scripts' NumPy buffers are (1.13 ignores it)
    "THP_MEM_ALLOC_ENABLE": "1",
}


def _with_malloc_env(environ):
    """environ with MALLOC_ENV set; GLIBC_TUNABLES keeps the tunables it has
    (ours is appended, colon-separated, as glibc reads the list)."""
    env = dict(environ)
    for k, v in MALLOC_ENV.items():
        old = env.get(k, "")
        if k == "GLIBC_TUNABLES" and old:
            env[k] = old if v in old.split(":") else old + ":" + v
        else:
            env[k] = v
    return env


def reexec_with_malloc_env():
    """Re-executes the running script with MALLOC_ENV set (glibc reads it at
    process start), unless it is set already or --no-malloc-env is given."""
    if "--no-malloc-env" in sys.argv:
        return
    env = _with_malloc_env(os.environ)
    if all(os.environ.get(k) == env[k] for k in MALLOC_ENV):
        return
    os.execve(sys.executable, [sys.executable] + sys.argv, env)


HUGE_MIN = 4 << 20  # bench.c's xalloc: buffers of this many bytes or more get huge pages
HUGE_PAGE = 2 << 20


def aligned_empty(shape, dtype="float32"):
    """An uninitialised array allocated as bench.c's xalloc() allocates: data
    64-byte aligned (NumPy's own are 16-byte aligned: a vector store or load
    that straddles two cache lines would be timed on one side only), and
    buffers of 4 MiB or more in fresh memory, 2 MiB aligned, advised
    MADV_HUGEPAGE before the first touch (so they are backed by huge pages
    whenever bench.c's are, whatever the malloc heap's history: the page size
    of a 50 MB buffer moves a memory-bound row's time by 10-30 %)."""
    import mmap

    import numpy as np
    dt = np.dtype(dtype)
    n = int(np.prod(shape, dtype=np.int64))
    nb = n * dt.itemsize
    if nb >= HUGE_MIN and hasattr(mmap, "MADV_HUGEPAGE"):
        # (private: a shared anonymous map is shmem, which huge pages skip)
        m = mmap.mmap(-1, nb + HUGE_PAGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        raw = np.frombuffer(m, np.uint8)
        off = (-raw.ctypes.data) % HUGE_PAGE
        m.madvise(mmap.MADV_HUGEPAGE, off, (nb + HUGE_PAGE - off) // mmap.PAGESIZE
                  * mmap.PAGESIZE)
        return raw[off:off + nb].view(dt).reshape(shape)
    raw = np.empty(nb + 64, np.uint8)
    off = (-raw.ctypes.data) % 64
    return raw[off:off + nb].view(dt).reshape(shape)


def fill(n, seed):
    """bench.c's fill(): ((i + seed) * 0x9E3779B1 mod 2^24) / 2^24 - 0.5, exact in f32
    (64-byte aligned, as bench.c's)."""
    import numpy as np
    i = np.arange(n, dtype=np.uint64) + np.uint64(seed)
    h = (i * np.uint64(0x9E3779B1)) & np.uint64(0xFFFFFF)
    out = aligned_empty((n,))
    out[...] = (h.astype(np.float32) * np.float32(1.0 / 16777216.0)) - np.float32(0.5)
    return out


def affine_grid(theta, shape):
    """bench.c's grid: theta applied to affine_grid's align_corners=False base grid."""
    import numpy as np
    N, Ho, Wo, _ = shape
    xn = (2.0 * np.arange(Wo, dtype=np.float64) + 1.0) / Wo - 1.0
    yn = (2.0 * np.arange(Ho, dtype=np.float64) + 1.0) / Ho - 1.0
    X, Y = np.meshgrid(xn, yn)  # [Ho, Wo]
    g = np.empty((Ho, Wo, 2), dtype=np.float32)
    g[..., 0] = (theta[0] * X + theta[1] * Y + theta[2]).astype(np.float32)
    g[..., 1] = (theta[3] * X + theta[4] * Y + theta[5]).astype(np.float32)
    out = aligned_empty((N, Ho, Wo, 2))
    out[...] = g
    return out


def run_bench(bench, args):
    """drs_bench --json ARGS: one dict per JSON line."""
    out = subprocess.run([bench, "--json"] + args, check=True, capture_output=True, text=True)
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


def list_workloads(bench, filt, smoke=None):
    """drs_bench's workload names, those filt (e.g. "W1,W8") selects: W8 selects W8a-d."""
    out = subprocess.run([bench, "--list"], check=True, capture_output=True, text=True).stdout
    names = [line.split()[0] for line in out.splitlines() if line.strip()]
    if not filt:
        return names
    keep = []
    for n in names:
        for f in filt.split(","):
            if n == f or (n.startswith(f) and n[len(f):].isalpha() and n[len(f):].islower()):
                keep.append(n)
                break
    return keep


def geomean(xs):
    xs = [x for x in xs if x is not None and x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")
