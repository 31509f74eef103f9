#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_spdx.py: every source file of the repository (C, headers, CMake,
Python, shell, pkg-config/CMake templates, TOML) names its licence with an
`SPDX-License-Identifier: MIT` line in its first five lines, and LICENSE is
the MIT licence.  Files come from `git ls-files` when the tree is a git
checkout, else from a walk of the tree (build and venv directories skipped).

Usage: test_spdx.py SOURCE_DIR
"""
import os
import subprocess
import sys

SOURCE_EXT = (".c", ".h", ".py", ".sh", ".cmake", ".in", ".toml")


def files(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True,
                             check=True).stdout.split("\n")
        return [f for f in out if f]
    except (OSError, subprocess.CalledProcessError):
        found = []
        for d, dirs, names in os.walk(root):
            dirs[:] = [x for x in dirs if not (x.startswith("build") or x.startswith("venv")
                                               or x.startswith("."))]
            found += [os.path.relpath(os.path.join(d, n), root) for n in names]
        return found


def is_source(f):
    base = os.path.basename(f)
    if f.startswith("fuzz/corpus/"):
        return False
    return f.endswith(SOURCE_EXT) or base == "CMakeLists.txt" or f == ".ci/run"


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    missing, n = [], 0
    for f in files(root):
        if not is_source(f):
            continue
        n += 1
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            head = "".join(fh.readline() for _ in range(5))
        if "SPDX-License-Identifier: MIT" not in head:
            missing.append(f)
    with open(os.path.join(root, "LICENSE"), encoding="utf-8") as fh:
        lic = fh.read()
    ok_lic = lic.startswith("MIT License") and "WITHOUT WARRANTY OF ANY KIND" in lic
    for f in missing:
        print("FAIL no SPDX line:", f)
    if not ok_lic:
        print("FAIL LICENSE is not the MIT licence text")
    print(f"test_spdx: {n} source files, {len(missing)} without an SPDX line")
    return 1 if missing or not ok_lic or n < 50 else 0


if __name__ == "__main__":
    sys.exit(main())
