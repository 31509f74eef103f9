# SPDX-License-Identifier: MIT
"""onnx_cases.py — the ONNX backend node tests of one op, from any onnx release.

Wheels such as onnx 1.16 ship the generated tests under
onnx/backend/test/data/node/<name>/ (model.onnx + test_data_set_*/*.pb); Debian's
python3-onnx (1.12) and the newest releases on PyPI ship none.  Every release
ships the generators, onnx/backend/test/case/node/<op>.py: classes whose
static export_* functions build a node, its inputs and expected outputs and
hand them to `expect(node, inputs, outputs, name, **kwargs)`.  `cases()` reads
the data directory when it holds the op's tests and otherwise calls every
export function with `expect` replaced by a collector, so the suites run with
every onnx release.  An export function that cannot run here (e.g. one that
imports torch) is reported, not fatal.

Each case is a dict: name, node (NodeProto), opset (the default-domain opset
its model imports), inputs {graph input name: array}, output (array),
source ("data" or "generated").  Imports onnx: import it inside the scripts'
optional-package guard.
"""
import glob
import importlib
import inspect
import os

import numpy as np
import onnx
from onnx import numpy_helper

from onnx_common import read_pb


def data_dir():
    return os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "node")


def _default_opset(kwargs, node):
    for o in kwargs.get("opset_imports") or []:
        if o.domain in ("", "ai.onnx"):
            return o.version
    return onnx.defs.get_schema(node.op_type, domain=node.domain).since_version


def generated(module, prefix):
    """(cases, problems) from onnx.backend.test.case.node.<module>; only the
    cases whose name starts with `prefix` and whose node is a single op."""
    mod = importlib.import_module(f"onnx.backend.test.case.node.{module}")
    from onnx.backend.test.case.base import Base
    got, problems = [], []

    def collect(node, inputs, outputs, name, **kwargs):
        got.append(dict(name=name, node=node, opset=_default_opset(kwargs, node),
                        inputs=[numpy_helper.to_array(a) if isinstance(a, onnx.TensorProto) else a
                                for a in inputs],
                        outputs=[numpy_helper.to_array(a) if isinstance(a, onnx.TensorProto) else a
                                 for a in outputs],
                        source="generated"))

    saved = mod.expect
    mod.expect = collect
    try:
        for cls in vars(mod).values():
            if not (inspect.isclass(cls) and issubclass(cls, Base) and cls is not Base
                    and cls.__module__ == mod.__name__):
                continue
            for attr in sorted(vars(cls)):
                if attr.startswith("export"):
                    try:
                        getattr(cls, attr)()
                    except Exception as e:  # e.g. a generator that needs torch
                        problems.append(f"{module}.{cls.__name__}.{attr}: {type(e).__name__}: {e}")
    finally:
        mod.expect = saved
    cases = []
    for c in got:
        if not c["name"].startswith(prefix):
            continue
        present = [n for n in c["node"].input if n != ""]
        c["inputs"] = dict(zip(present, c.pop("inputs")))
        c["output"] = c.pop("outputs")[0]
        cases.append(c)
    return cases, problems


def from_data(prefix, op_type):
    """Cases from the data directory (one per test_data_set_*)."""
    cases = []
    for d in sorted(glob.glob(os.path.join(data_dir(), prefix + "*"))):
        if not os.path.isdir(d):
            continue
        model = onnx.load(os.path.join(d, "model.onnx"))
        nodes = model.graph.node
        if len(nodes) != 1 or nodes[0].op_type != op_type:
            continue  # e.g. the function-expanded variants
        node = nodes[0]
        opset = [o.version for o in model.opset_import if o.domain in ("", "ai.onnx")][0]
        graph_inputs = [i.name for i in model.graph.input]
        init = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
        sets = sorted(glob.glob(os.path.join(d, "test_data_set_*")))
        for k, ds in enumerate(sets):
            values = dict(init)
            files = sorted(glob.glob(os.path.join(ds, "input_*.pb")),
                           key=lambda s: int(s.rsplit("_", 1)[1][:-3]))
            for j, p in enumerate(files):
                name, arr = read_pb(p)
                values[name or graph_inputs[j]] = arr
            _, out = read_pb(os.path.join(ds, "output_0.pb"))
            name = os.path.basename(d) + (f"[{k}]" if len(sets) > 1 else "")
            cases.append(dict(name=name, node=node, opset=opset, inputs=values, output=out,
                              source="data"))
    return cases


def cases(module, prefix, op_type):
    """(cases, where, problems): the data directory's cases when it has any,
    otherwise the generated ones."""
    c = from_data(prefix, op_type)
    if c:
        return c, f"data directory {data_dir()}", []
    c, problems = generated(module, prefix)
    c = [x for x in c if x["node"].op_type == op_type]
    return c, f"generators onnx.backend.test.case.node.{module} (no data directory)", problems


def per_opset(cs):
    """'opset 13: 20, opset 19: 7' — how many cases import each opset."""
    n = {}
    for c in cs:
        n[c["opset"]] = n.get(c["opset"], 0) + 1
    return ", ".join(f"opset {k}: {v}" for k, v in sorted(n.items()))


def is_integer(a):
    return np.issubdtype(np.asarray(a).dtype, np.integer)
