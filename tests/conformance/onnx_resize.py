#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""onnx_resize.py — ONNX backend node tests for Resize, run through the CLI.

Usage: onnx_resize.py PATH/TO/dresample

The cases are the installed onnx's test_resize_* node tests (onnx_cases.py:
the backend/test/data/node directory when the wheel ships it, otherwise the
same tests generated from onnx.backend.test.case.node.resize, so that onnx
1.12, 1.16 and the newest release all run).  The node's attributes, input
names and opset come from the case; the inputs map positionally onto our
ports X, roi, scales, sizes ('' = absent); the result is compared with the
expected output using the ONNX backend runner's tolerance
(np.testing.assert_allclose rtol=1e-3, atol=1e-7; exact for integer outputs).

Each case also runs at every other Resize version where it is valid: 11/13
when it uses no attribute of 18+ (antialias, axes, keep_aspect_ratio_policy)
and no half_pixel_symmetric (at 11 an absent roi or scales becomes an empty
tensor, as Resize-11 requires both inputs); 18 when it uses no
half_pixel_symmetric; 10 when it has no roi/sizes, mode linear or nearest,
and its explicit attributes give Resize-10's behaviour (asymmetric; nearest
floor with every scale >= 1).  tf_half_pixel_for_nn only at 11.  The
expected output is the same: Resize's formulas did not change between
versions, only the attributes and inputs offered.

One line per case, then "onnx resize conformance: P/T passed" with the count
per opset.  Exit 1 on a failure not listed in KNOWN_EXCEPTIONS, 77 (skip)
when onnx is not importable.
"""
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import onnx
    from onnx import helper
    from onnx_common import attr_value, op_version
    import onnx_cases
except ImportError as e:  # the reference package is optional: ctest reports a skip
    print(f"SKIP: onnx conformance needs numpy and onnx ({e})")
    sys.exit(77)

# Cases whose expected output truly conflicts with docs/semantics.md: {name: reason}.
KNOWN_EXCEPTIONS = {}

PORTS = ["X", "roi", "scales", "sizes"]     # Resize-11+ inputs, in ONNX order
RESIZE_VERSIONS = [10, 11, 13, 18, 19]      # the op versions the CLI knows
RTOL, ATOL = 1e-3, 1e-7                     # onnx.backend.test.loader defaults
ATTRS_11 = {"mode", "coordinate_transformation_mode", "cubic_coeff_a", "exclude_outside",
            "extrapolation_value", "nearest_mode"}
ATTRS_18 = ATTRS_11 | {"antialias", "axes", "keep_aspect_ratio_policy"}


def variant(case, base, ver):
    """(attrs {name: value}, inputs [name or '']) of `case` as Resize-`ver`,
    or None when the case is not valid there."""
    attrs = {a.name: helper.get_attribute_value(a) for a in case["node"].attribute}
    attrs = {k: v.decode() if isinstance(v, bytes) else v for k, v in attrs.items()}
    names = list(case["node"].input) + [""] * (4 - len(case["node"].input))
    ctm = attrs.get("coordinate_transformation_mode", "half_pixel")
    if ver == base:
        return attrs, list(case["node"].input)
    if ctm == "half_pixel_symmetric" and ver < 19:
        return None
    if ctm == "tf_half_pixel_for_nn" and ver != 11:
        return None
    if ver in (11, 13, 18) and not set(attrs) <= (ATTRS_18 if ver == 18 else ATTRS_11):
        return None
    if ver == 10:
        if names[1] not in ("",) and case["inputs"][names[1]].size or names[3] != "" or names[2] == "":
            return None
        if attrs.get("mode", "nearest") not in ("nearest", "linear") or ctm != "asymmetric":
            return None
        if not set(attrs) <= {"mode", "coordinate_transformation_mode", "nearest_mode"}:
            return None
        if attrs.get("mode", "nearest") == "nearest" and (
                attrs.get("nearest_mode") != "floor" or (case["inputs"][names[2]] < 1).any()):
            return None
        return {"mode": attrs.get("mode", "nearest")}, [names[0], names[2]]
    if ver == 11:
        # roi and scales are required inputs of Resize-11: absent ones become empty tensors
        names = [n if n or k in (0, 3) else f"<empty {PORTS[k]}>" for k, n in enumerate(names)]
        while names and names[-1] == "":
            names.pop()
    return attrs, names


def run(cli, tmp, op, attrs, inputs, values):
    args = [cli, "run", op]
    for k, v in attrs.items():
        v = ",".join(repr(x) for x in v) if isinstance(v, (list, tuple)) else (
            v if isinstance(v, str) else repr(v))
        args += ["--attr", f"{k}={v}"]
    ports = PORTS if op != "Resize-10" else ["X", "scales"]
    for port, name in zip(ports, inputs):
        if name == "":
            continue
        arr = values.get(name)
        if arr is None and name.startswith("<empty"):
            arr = np.zeros(0, dtype=np.float32)
        if arr is None:
            return None, f"no data for input '{name}'"
        f = os.path.join(tmp, f"{port}.npy")
        np.save(f, arr)
        args += ["--in", f"{port}={f}"]
    out = os.path.join(tmp, "Y.npy")
    if os.path.exists(out):
        os.unlink(out)
    args += ["--out", f"Y={out}"]
    r = subprocess.run(args, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        return None, f"exit {r.returncode}: {r.stderr.strip()}"
    return np.load(out), None


def check(got, expect):
    if got.shape != expect.shape or got.dtype != expect.dtype:
        return False, f"got {got.dtype}{list(got.shape)}, expected {expect.dtype}{list(expect.shape)}"
    err = np.abs(got.astype(np.float64) - expect.astype(np.float64))
    worst = float(err.max()) if err.size else 0.0
    if np.issubdtype(expect.dtype, np.integer):
        good = np.array_equal(got, expect)
    else:
        good = np.allclose(got, expect, rtol=RTOL, atol=ATOL)
    if good:
        return True, f"max error {worst:.3g}"
    i = np.unravel_index(np.argmax(err), err.shape)
    return False, (f"max error {worst:.3g} at {list(i)}: got {got[i]!r}, expected "
                   f"{expect[i]!r}\n  got:\n{got}\n  expected:\n{expect}")


def main():
    if len(sys.argv) != 2:
        print("usage: onnx_resize.py PATH/TO/dresample", file=sys.stderr)
        return 2
    cli = os.path.abspath(sys.argv[1])
    cases, where, problems = onnx_cases.cases("resize", "test_resize_", "Resize")
    print(f"onnx {onnx.__version__}: {len(cases)} test_resize_* cases from {where} ({onnx_cases.per_opset(cases)})")
    for p in problems:
        print(f"note: generator not run: {p}")
    if not cases:
        print("FAIL: no test_resize_* cases")
        return 1
    passed, total, unexpected, per_ver = 0, 0, [], {}
    with tempfile.TemporaryDirectory(prefix="dresample_onnx_") as tmp:
        for c in cases:
            base = op_version(onnx.helper.make_model(onnx.helper.make_graph([], "g", [], []),
                              opset_imports=[helper.make_opsetid("", c["opset"])]),
                              RESIZE_VERSIONS, "Resize")
            for ver in RESIZE_VERSIONS:
                v = variant(c, base, ver)
                if v is None:
                    continue
                attrs, inputs = v
                label = c["name"] + ("" if ver == base else f"@Resize-{ver}")
                atxt = " ".join(f"{k}={attr_value(a)}" for k in attrs for a in c["node"].attribute
                                if a.name == k)
                try:
                    got, err = run(cli, tmp, f"Resize-{ver}", attrs, inputs, c["inputs"])
                    ok, detail = (False, err) if err else check(got, c["output"])
                except Exception as e:  # a broken case is a failure, not a crash of the suite
                    ok, detail = False, f"{type(e).__name__}: {e}"
                total += 1
                per_ver.setdefault(ver, [0, 0])[1] += 1
                name = c["name"]
                if ok:
                    passed += 1
                    per_ver[ver][0] += 1
                    note = "  (listed in KNOWN_EXCEPTIONS: remove it)" if label in KNOWN_EXCEPTIONS else ""
                    print(f"PASS {label}: {detail}{note}")
                elif label in KNOWN_EXCEPTIONS:
                    print(f"XFAIL {label}: {KNOWN_EXCEPTIONS[label]}: {detail}")
                else:
                    unexpected.append(label)
                    print(f"FAIL {label}: {detail}  [{atxt}]")
    vers = ", ".join(f"Resize-{v}: {p}/{t}" for v, (p, t) in sorted(per_ver.items()))
    print(f"onnx resize conformance: {passed}/{total} passed ({vers}; onnx {onnx.__version__})")
    if unexpected:
        print("unexpected failures: " + ", ".join(unexpected))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
