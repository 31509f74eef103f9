#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Python package as a user gets it from a source distribution: builds the
# sdist (python -m build --sdist), installs it into a fresh venv that sees no
# system packages (so NumPy comes from PyPI, whatever its current major
# version, and nothing of this checkout's build trees is reused), and runs
# there the NumPy API's tests, the documentation examples and the random-call
# test (the comparisons with the CLI are skipped: no CLI is built here).  Run by .ci/run; needs
# python3-venv, python3-dev, a C compiler, CMake >= 3.25 and PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-/usr/bin/python3}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$PY" -m venv "$tmp/tools"
"$tmp/tools/bin/pip" install -q --disable-pip-version-check build
"$tmp/tools/bin/python" -m build --sdist -o "$tmp/dist" . | tail -1
sdist="$(ls "$tmp"/dist/dresample-*.tar.gz)"
echo "ci_sdist: $(basename "$sdist"), $(tar tzf "$sdist" | wc -l) files," \
     "$(du -k "$sdist" | cut -f1) KiB"
"$PY" -m venv "$tmp/user"
"$tmp/user/bin/pip" install -q --disable-pip-version-check "$sdist" pytest
"$tmp/user/bin/python" -c "import dresample, numpy
print('ci_sdist: dresample', dresample.__version__, 'numpy', numpy.__version__,
      dresample.simd_variant())"
cd tests/python
DRESAMPLE_CLI=/nonexistent "$tmp/user/bin/python" -m pytest -q -p no:cacheprovider \
  test_numpy.py test_docs.py test_api_fuzz.py
