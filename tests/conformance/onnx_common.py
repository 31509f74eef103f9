# SPDX-License-Identifier: MIT
"""onnx_common.py — what the ONNX conformance scripts (onnx_resize.py,
onnx_gridsample.py) share for reading the ONNX backend node tests: the op
version a model's opset resolves to, attributes as the CLI spells them, and
TensorProto files.  Imports onnx: import it inside the scripts' optional-
package guard."""
import onnx
from onnx import helper, numpy_helper


def op_version(model, versions, name):
    """The version of op `name` (one of `versions`, ascending) that a model's
    default-domain opset resolves to."""
    opset = [o.version for o in model.opset_import if o.domain in ("", "ai.onnx")]
    if not opset:
        raise ValueError("model imports no default-domain opset")
    usable = [v for v in versions if v <= opset[0]]
    if not usable:
        raise ValueError(f"opset {opset[0]} predates {name}-{versions[0]}")
    return usable[-1]


def attr_value(a):
    """An ONNX attribute as the CLI spells it (lists comma-separated)."""
    v = helper.get_attribute_value(a)
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, (list, tuple)):
        return ",".join(repr(x) for x in v)
    return repr(v)


def read_pb(path):
    """(name, array) of a TensorProto file."""
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return t.name, numpy_helper.to_array(t)
