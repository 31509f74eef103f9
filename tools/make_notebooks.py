# SPDX-License-Identifier: MIT
"""Builds the teaching notebooks docs/notebooks/*.ipynb from their sources.

Each notebook's source is a plain Python file, docs/notebooks/src/NN_name.py,
split into cells by marker lines: `# %% [markdown]` starts a Markdown cell
(its lines are written as `# ` comments) and `# %%` a code cell (the
"percent" format that Jupytext, VS Code and Spyder read).  This script turns
each source into a Jupyter notebook with nbformat, outputs empty, so that git
holds only sources and stripped notebooks; tools/render_notebooks.py executes
them and publishes the results.

    venv/bin/python tools/make_notebooks.py           # rewrites docs/notebooks/*.ipynb
    venv/bin/python tools/make_notebooks.py --check   # exit 1 if any is out of date
"""
import argparse
import glob
import os
import sys

import nbformat

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
NB_DIR = os.path.join(ROOT, "docs", "notebooks")


def parse_cells(text):
    """[(kind, source)] from a percent-format source, kind "markdown" or "code"."""
    cells, kind, lines = [], None, []

    def flush():
        if kind is None:
            return
        while lines and not lines[-1].strip():
            lines.pop()
        while lines and not lines[0].strip():
            lines.pop(0)
        if kind == "markdown":
            body = [ln[2:] if ln.startswith("# ") else ln.lstrip("#") for ln in lines]
        else:
            body = lines
        cells.append((kind, "\n".join(body)))

    for ln in text.splitlines():
        if ln.startswith("# %% [markdown]"):
            flush()
            kind, lines = "markdown", []
        elif ln.startswith("# %%"):
            flush()
            kind, lines = "code", []
        elif kind is not None:
            lines.append(ln)
    flush()
    return cells


def build(src_path):
    with open(src_path, encoding="utf-8") as f:
        cells = parse_cells(f.read())
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    for i, (kind, source) in enumerate(cells):
        cell = (nbformat.v4.new_markdown_cell(source) if kind == "markdown"
                else nbformat.v4.new_code_cell(source))
        cell["id"] = f"cell-{i:02d}"  # stable ids: no diff noise between runs
        nb.cells.append(cell)
    nbformat.validate(nb)
    return nbformat.writes(nb) + ""


def targets():
    srcs = sorted(glob.glob(os.path.join(NB_DIR, "src", "[0-9][0-9]_*.py")))
    return [(s, os.path.join(NB_DIR, os.path.basename(s)[:-3] + ".ipynb")) for s in srcs]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true",
                    help="do not write; exit 1 when a notebook differs from its source")
    args = ap.parse_args(argv)
    stale = 0
    for src, dst in targets():
        text = build(src)
        old = open(dst, encoding="utf-8").read() if os.path.exists(dst) else None
        if old == text:
            continue
        if args.check:
            print(f"make_notebooks: {os.path.relpath(dst, ROOT)} is out of date with "
                  f"{os.path.relpath(src, ROOT)}")
            stale += 1
        else:
            with open(dst, "w", encoding="utf-8") as f:
                f.write(text)
            print(f"make_notebooks: wrote {os.path.relpath(dst, ROOT)}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
