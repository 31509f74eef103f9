#!/usr/bin/env python3
"""onnx_resize.py — ONNX backend node tests for Resize, run through the CLI.

Usage: onnx_resize.py PATH/TO/dresample

Runs every directory named test_resize_* under the installed onnx wheel's
backend/test/data/node: the node's attributes, input names and opset come from
model.onnx; the inputs (test_data_set_*/input_*.pb) become .npy files mapped
positionally onto our ports X, roi, scales, sizes ('' = absent); the result is
compared with output_*.pb using the ONNX backend runner's tolerance
(np.testing.assert_allclose rtol=1e-3, atol=1e-7; exact for integer outputs).
One line per case, then "onnx resize conformance: P/T passed".  Exit 1 on a
failure not listed in KNOWN_EXCEPTIONS, 77 (skip) when onnx is not importable.
"""
import glob
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import onnx
    from onnx import numpy_helper
    from onnx_common import attr_value, op_version, read_pb
except ImportError as e:  # the reference package is optional: ctest reports a skip
    print(f"SKIP: onnx conformance needs numpy and onnx ({e})")
    sys.exit(77)

# Cases whose expected output truly conflicts with docs/semantics.md: {name: reason}.
KNOWN_EXCEPTIONS = {}

PORTS = ["X", "roi", "scales", "sizes"]     # Resize-11+ inputs, in ONNX order
RESIZE_VERSIONS = [10, 11, 13, 18, 19]      # the op versions the CLI knows
RTOL, ATOL = 1e-3, 1e-7                     # onnx.backend.test.loader defaults


def run_case(cli, case_dir, tmp):
    """Returns (ok, detail) for one node test directory."""
    model = onnx.load(os.path.join(case_dir, "model.onnx"))
    nodes = model.graph.node
    if len(nodes) != 1 or nodes[0].op_type != "Resize":
        return False, "model is not a single Resize node"
    node = nodes[0]
    op = f"Resize-{op_version(model, RESIZE_VERSIONS, 'Resize')}"
    ports = PORTS if op != "Resize-10" else ["X", "scales"]
    if len(node.input) > len(ports):
        return False, f"{len(node.input)} inputs, {op} has {len(ports)}"
    attrs = []
    for a in node.attribute:
        attrs += ["--attr", f"{a.name}={attr_value(a)}"]
    graph_inputs = [i.name for i in model.graph.input]
    initializers = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}

    sets = sorted(glob.glob(os.path.join(case_dir, "test_data_set_*")))
    if not sets:
        return False, "no test_data_set_*"
    worst = 0.0
    for ds in sets:
        values = dict(initializers)
        for k, p in enumerate(sorted(glob.glob(os.path.join(ds, "input_*.pb")),
                                     key=lambda s: int(s.rsplit("_", 1)[1][:-3]))):
            name, arr = read_pb(p)
            values[name or graph_inputs[k]] = arr
        args = [cli, "run", op] + attrs
        for port, name in zip(ports, node.input):
            if name == "":
                continue
            if name not in values:
                return False, f"no data for input '{name}'"
            f = os.path.join(tmp, f"{port}.npy")
            np.save(f, values[name])
            args += ["--in", f"{port}={f}"]
        out = os.path.join(tmp, "Y.npy")
        if os.path.exists(out):
            os.unlink(out)
        args += ["--out", f"Y={out}"]
        r = subprocess.run(args, capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            return False, f"exit {r.returncode}: {r.stderr.strip()}  [{' '.join(attrs)}]"
        _, expect = read_pb(os.path.join(ds, "output_0.pb"))
        got = np.load(out)
        if got.shape != expect.shape or got.dtype != expect.dtype:
            return False, (f"got {got.dtype}{list(got.shape)}, expected "
                           f"{expect.dtype}{list(expect.shape)}  [{' '.join(attrs)}]")
        err = np.abs(got.astype(np.float64) - expect.astype(np.float64))
        worst = max(worst, float(err.max()) if err.size else 0.0)
        if np.issubdtype(expect.dtype, np.integer):
            good = np.array_equal(got, expect)
        else:
            good = np.allclose(got, expect, rtol=RTOL, atol=ATOL)
        if not good:
            i = np.unravel_index(np.argmax(err), err.shape)
            return False, (f"max error {worst:.3g} at {list(i)}: got {got[i]!r}, expected "
                           f"{expect[i]!r}  [{' '.join(attrs)}]\n  got:\n{got}\n  expected:\n{expect}")
    return True, f"max error {worst:.3g}"


def main():
    if len(sys.argv) != 2:
        print("usage: onnx_resize.py PATH/TO/dresample", file=sys.stderr)
        return 2
    cli = os.path.abspath(sys.argv[1])
    node_dir = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "node")
    cases = sorted(d for d in glob.glob(os.path.join(node_dir, "test_resize_*")) if os.path.isdir(d))
    if not cases:
        print(f"FAIL: no test_resize_* cases under {node_dir}")
        return 1
    passed, unexpected = 0, []
    with tempfile.TemporaryDirectory(prefix="dresample_onnx_") as tmp:
        for d in cases:
            name = os.path.basename(d)
            try:
                ok, detail = run_case(cli, d, tmp)
            except Exception as e:  # a broken case is a failure, not a crash of the suite
                ok, detail = False, f"{type(e).__name__}: {e}"
            if ok:
                passed += 1
                note = "  (listed in KNOWN_EXCEPTIONS: remove it)" if name in KNOWN_EXCEPTIONS else ""
                print(f"PASS {name}: {detail}{note}")
            elif name in KNOWN_EXCEPTIONS:
                print(f"XFAIL {name}: {KNOWN_EXCEPTIONS[name]}: {detail}")
            else:
                unexpected.append(name)
                print(f"FAIL {name}: {detail}")
    print(f"onnx resize conformance: {passed}/{len(cases)} passed (onnx {onnx.__version__})")
    if unexpected:
        print("unexpected failures: " + ", ".join(unexpected))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
