# SPDX-License-Identifier: MIT
"""The Python examples of README.md ("Python") and of docs/python.md ("NumPy
API") run as printed, and what their comments claim holds: the drop-in serves
the model's interpolate call, the learnable scale factor converges to 1.51,
compare() reports small differences, the NumPy example's shapes.  A user copies
these first; a change that breaks one fails here."""
import contextlib
import io
import re

import pytest

from conftest import REPO

np = pytest.importorskip("numpy", reason="numpy is not installed")
pytest.importorskip("dresample", reason="the dresample package is not installed")


def _blocks(path, section):
    """The ```python blocks of one '## ' section of a Markdown file, in order."""
    text = (REPO / path).read_text()
    start = text.index("\n## " + section + "\n")
    end = text.find("\n## ", start + 1)
    part = text[start:end if end >= 0 else len(text)]
    return re.findall(r"^```python\n(.*?)^```", part, re.S | re.M)


def _run(code, ns):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "<example>", "exec"), ns)
    return out.getvalue()


def test_readme_python_examples():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    blocks = _blocks("README.md", "Python")
    assert len(blocks) == 3, "README.md's Python section: drop-in, scale factor, compare()"
    torch.manual_seed(0)
    ns = {"__name__": "__readme__"}
    out = _run(blocks[0], ns)                     # the drop-in under patch()
    stats = ns["p"].stats.to_dict()
    assert stats["dresample"]["interpolate"] >= 1 and not any(stats["fallback"].values()), out
    _run(blocks[1], ns)                           # the learnable scale factor
    s = ns["s"]
    assert torch.allclose(s.detach(), torch.tensor([1.51, 1.51], dtype=torch.float64),
                          atol=5e-4), s
    assert ns["target"].shape[-2:] == (48, 48)
    out = _run(blocks[2], ns)                     # compare() on the model
    assert "grad 0.weight" in out and "interpolate" in out, out
    d = ns["report"].to_dict()
    assert d and ns["report"].max_abs() < 1e-3, out


def test_python_md_numpy_example():
    blocks = _blocks("docs/python.md", "NumPy API")
    ns = {"__name__": "__docs__"}
    _run(blocks[0], ns)
    x, y, g, z, w = (ns[k] for k in "xygzw")
    assert y.shape == (1, 3, 64, 64) and y.dtype == np.float32
    assert g["X_delta"].shape == x.shape and g["scales_delta"].shape == (4,)
    assert g["scales_delta"].dtype == np.float64
    assert z.shape == (1, 3, 64, 64) and w.shape == (1, 3, 8, 8)
