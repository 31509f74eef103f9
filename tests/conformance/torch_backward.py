#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""PyTorch autograd conformance of the data gradient.

For every mode of the TorchInterpolate preset -- nearest, nearest-exact, linear,
bilinear, bicubic, trilinear, area, antialiased bilinear/bicubic -- on 1-D, 2-D
and 3-D spatial inputs, up- and down-sampling, with `size` and with
`scale_factor` (recompute_scale_factor None/True), align_corners where allowed:
the input gradient of torch.nn.functional.interpolate (autograd, float64 reference
computed in float32 like ours) must match `dresample run TorchInterpolate
--backward` within 1e-5 relative to the gradient's max (f32).

usage: torch_backward.py PATH/TO/dresample       exit 0 pass, 1 fail, 77 skip
"""
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import torch
    import torch.nn.functional as F
except Exception as e:  # pragma: no cover - depends on the machine
    print(f"SKIP: torch backward conformance needs numpy and torch ({e})")
    sys.exit(77)


def cases():
    shapes = {3: [(2, 3, 11), (1, 2, 1)], 4: [(2, 3, 9, 7), (1, 1, 16, 13)], 5: [(1, 2, 5, 6, 4)]}
    out = []
    for rank, mode_list in ((3, ["nearest", "nearest-exact", "linear", "area"]),
                            (4, ["nearest", "nearest-exact", "bilinear", "bicubic", "area"]),
                            (5, ["nearest", "nearest-exact", "trilinear", "area"])):
        nsp = rank - 2
        for shp in shapes[rank]:
            for mode in mode_list:
                interp = mode in ("linear", "bilinear", "bicubic", "trilinear")
                aligns = [None, False, True] if interp else [None]
                aas = [False, True] if mode in ("bilinear", "bicubic") else [False]
                sizes = [tuple(max(1, int(round(s * f))) for s, f in zip(shp[2:], (1.7, 0.6, 2.0)))]
                sizes.append(tuple(max(1, s // 2) for s in shp[2:]))
                for align in aligns:
                    for aa in aas:
                        for size in sizes:
                            out.append(dict(shape=shp, mode=mode, size=size[:nsp], align=align, aa=aa))
                        for sf, rec in ((1.6, None), (0.55, None), (0.55, True), (2.0, None)):
                            if min(int(s * sf) for s in shp[2:]) == 0:
                                continue  # torch rejects empty outputs
                            out.append(dict(shape=shp, mode=mode, sf=sf, rec=rec, align=align, aa=aa))
    return out


def run(cli, c, d, idx):
    rs = np.random.RandomState(idx)
    x = rs.uniform(-1, 1, c["shape"]).astype(np.float32)
    kw = dict(mode=c["mode"])
    if c.get("align") is not None:
        kw["align_corners"] = c["align"]
    if c["aa"]:
        kw["antialias"] = True
    if "size" in c:
        kw["size"] = c["size"]
    else:
        kw["scale_factor"] = c["sf"]
        if c.get("rec") is not None:
            kw["recompute_scale_factor"] = c["rec"]
    xt = torch.tensor(x, requires_grad=True)
    y = F.interpolate(xt, **kw)
    dy = rs.uniform(-1, 1, tuple(y.shape)).astype(np.float32)
    y.backward(torch.tensor(dy))
    want = xt.grad.numpy()
    xp, dyp, dxp = (os.path.join(d, f"{idx}_{n}.npy") for n in ("x", "dy", "dx"))
    np.save(xp, x)
    np.save(dyp, dy)
    args = [cli, "run", "TorchInterpolate", "--backward", "--attr", f"mode={c['mode']}",
            "--in", f"input={xp}", "--in", f"output_delta={dyp}", "--out", f"input_delta={dxp}"]
    if "size" in c:
        args += ["--attr", "size=" + ",".join(str(s) for s in c["size"])]
    else:
        args += ["--attr", f"scale_factor={c['sf']!r}"]
        if c.get("rec") is not None:
            args += ["--attr", f"recompute_scale_factor={int(c['rec'])}"]
    if c.get("align") is not None:
        args += ["--attr", f"align_corners={int(c['align'])}"]
    if c["aa"]:
        args += ["--attr", "antialias=1"]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr.strip()
    got = np.load(dxp)
    scale = max(1.0, float(np.abs(want).max()))
    return float(np.abs(got - want).max()) / scale, None


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    cli = sys.argv[1]
    torch.set_num_threads(1)
    passed = total = 0
    with tempfile.TemporaryDirectory() as d:
        for i, c in enumerate(cases()):
            total += 1
            err, msg = run(cli, c, d, i)
            if err is not None and err <= 1e-5:
                passed += 1
            else:
                print(f"FAIL {c}: {msg if msg else f'max rel error {err:.3g}'}")
    print(f"torch backward conformance: {passed}/{total} passed (torch {torch.__version__})")
    return 0 if passed == total else 1


if __name__ == "__main__":
    sys.exit(main())
