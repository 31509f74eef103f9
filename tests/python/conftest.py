# SPDX-License-Identifier: MIT
# Shared pytest fixtures of the Python package's tests (tests/python): the
# path of the `dresample` command-line tool (from DRESAMPLE_CLI, set by ctest,
# else build/dresample of this checkout) and a helper that runs one op through
# it on .npy files, so the Python API can be compared with the CLI bit for bit.
import os
import pathlib
import subprocess
import tempfile

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def _find_cli():
    p = os.environ.get("DRESAMPLE_CLI")
    if p:
        return p if os.access(p, os.X_OK) else None
    for cand in (REPO / "build" / "dresample", REPO / "build" / "tools" / "dresample"):
        if cand.is_file() and os.access(cand, os.X_OK):
            return str(cand)
    return None


def _attr_str(v):
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, (list, tuple)):
        return ",".join(_attr_str(x) for x in v)
    if isinstance(v, float):
        return repr(v)
    return str(v)


class Cli:
    """Runs `dresample run OP` on arrays; returns the outputs as arrays."""

    def __init__(self, path):
        self.path = path

    def run(self, op, inputs, outputs, attrs=None, backward=False, threads=None):
        import numpy as np
        with tempfile.TemporaryDirectory(prefix="dresample_py_") as d:
            cmd = [self.path, "run", op]
            for k, v in (attrs or {}).items():
                cmd += ["--attr", "%s=%s" % (k, _attr_str(v))]
            for k, v in inputs.items():
                f = os.path.join(d, "in_%s.npy" % k)
                np.save(f, v)
                cmd += ["--in", "%s=%s" % (k, f)]
            for k in outputs:
                cmd += ["--out", "%s=%s" % (k, os.path.join(d, "out_%s.npy" % k))]
            if backward:
                cmd.append("--backward")
            if threads is not None:
                cmd += ["--threads", str(threads)]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                return CliError(r.returncode, r.stderr.strip())
            return {k: np.load(os.path.join(d, "out_%s.npy" % k)) for k in outputs}


class CliError:
    """A failed CLI run: exit code and the library's message."""

    PREFIX = "dresample: error: "

    def __init__(self, code, stderr):
        self.code = code
        self.stderr = stderr
        self.message = stderr[len(self.PREFIX):] if stderr.startswith(self.PREFIX) else stderr

    def __repr__(self):
        return "CliError(%d, %r)" % (self.code, self.stderr)


@pytest.fixture(scope="session")
def cli():
    p = _find_cli()
    if p is None:
        pytest.skip("the dresample CLI was not found (set DRESAMPLE_CLI or build build/dresample)")
    return Cli(p)
