# SPDX-License-Identifier: MIT
"""Executes the teaching notebooks and publishes them as Markdown.

Every docs/notebooks/NN_*.ipynb is run top to bottom with nbclient (a fresh
Python kernel, working directory docs/notebooks/), and a rendered copy is
written to docs/notebooks/rendered/NN_name.md: the Markdown cells as they are,
code cells as fenced Python, text outputs as fenced text and figures as PNG
files in rendered/NN_name_files/, linked from the page, so that GitHub shows
the results.  rendered/manifest.json lists every file written with its
SHA-256; tests/test_docs_images.py checks the published images against it.
A cell that raises makes the script fail (exit 1), naming the notebook and cell.

    venv/bin/python tools/render_notebooks.py                  # run all, publish
    venv/bin/python tools/render_notebooks.py --execute-only   # run all, write nothing
    venv/bin/python tools/render_notebooks.py 02_scales_gradient   # one notebook

Exit status 77 (the test suite's "skipped") when nbclient, nbformat,
ipykernel, matplotlib or dresample cannot be imported.
"""
import argparse
import base64
import glob
import hashlib
import json
import os
import re
import shutil
import sys
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
NB_DIR = os.path.join(ROOT, "docs", "notebooks")
SKIP = 77


def fence(text, lang=""):
    n = 3
    while "`" * n in text:
        n += 1
    return f"{'`' * n}{lang}\n{text.rstrip()}\n{'`' * n}\n"


def relink(md):
    """Links relative to docs/notebooks/ seen from docs/notebooks/rendered/."""
    return re.sub(r"\]\((?!https?:|#|/)([^)]+)\)", r"](../\1)", md)


def to_markdown(nb, stem, files_dir):
    """The executed notebook as Markdown, and {file name: PNG bytes}."""
    out, images = [], {}
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            out.append(relink(cell.source).rstrip() + "\n")
            continue
        if cell.cell_type != "code" or not cell.source.strip():
            continue
        out.append(fence(cell.source, "python"))
        for o in cell.get("outputs", []):
            if o.output_type == "stream":
                out.append(fence(o.text))
            elif o.output_type in ("execute_result", "display_data"):
                data = o.get("data", {})
                if "image/png" in data:
                    name = f"{stem}_{len(images) + 1:02d}.png"
                    images[name] = base64.b64decode(data["image/png"])
                    out.append(f"![output {len(images)}]({files_dir}/{name})\n")
                elif "text/markdown" in data:
                    out.append(data["text/markdown"].rstrip() + "\n")
                elif "text/plain" in data:
                    out.append(fence(data["text/plain"]))
    head = (f"<!-- Rendered from {stem}.ipynb by tools/render_notebooks.py; do not edit. -->\n\n"
            f"[Notebook: `{stem}.ipynb`](../{stem}.ipynb) · executed output\n\n")
    return head + "\n".join(out), images


def notebooks(names):
    paths = sorted(glob.glob(os.path.join(NB_DIR, "[0-9][0-9]_*.ipynb")))
    if names:
        paths = [p for p in paths if any(os.path.basename(p).startswith(n) for n in names)]
        if not paths:
            raise SystemExit(f"render_notebooks: no notebook matches {names}")
    return paths


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="notebook name prefixes (default: all)")
    ap.add_argument("--execute-only", action="store_true", help="run, but write nothing")
    ap.add_argument("--out", default=os.path.join(NB_DIR, "rendered"),
                    help="where the Markdown copies go (default: docs/notebooks/rendered)")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per cell (default 300)")
    ap.add_argument("--expect", metavar="MANIFEST",
                    help="after publishing, fail unless the files written are exactly those "
                         "MANIFEST lists (e.g. the committed docs/notebooks/rendered/manifest.json)")
    args = ap.parse_args(argv)
    try:
        import nbformat
        from nbclient import NotebookClient
        from nbclient.exceptions import CellExecutionError
        import ipykernel  # noqa: F401  (the kernel nbclient starts)
        import matplotlib  # noqa: F401
        import dresample  # noqa: F401
        import torch  # noqa: F401
    except ImportError as e:
        print(f"render_notebooks: skipped, {e}")
        return SKIP
    paths = notebooks(args.names)
    # The kernel is this interpreter (the venv that has dresample), whatever
    # kernelspecs are installed elsewhere; matplotlib draws off-screen.
    os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    # IPython names a cell's code object after hash(source): a fixed hash seed
    # keeps the file names in tracebacks and compare() reports the same per run.
    os.environ["PYTHONHASHSEED"] = "0"
    from jupyter_client.kernelspec import NATIVE_KERNEL_NAME
    results, manifest = [], {}
    for path in paths:
        stem = os.path.basename(path)[:-6]
        nb = nbformat.read(path, as_version=4)
        client = NotebookClient(nb, timeout=args.timeout, kernel_name=NATIVE_KERNEL_NAME,
                                resources={"metadata": {"path": NB_DIR}},
                                kernel_manager_class=_kernel_manager())
        t0 = time.perf_counter()
        try:
            client.execute()
        except CellExecutionError as e:
            plain = re.sub(r"\x1b\[[0-9;]*m", "", str(e))  # the traceback without colours
            print(f"render_notebooks: {stem}: a cell failed:\n{plain}")
            return 1
        dt = time.perf_counter() - t0
        results.append((stem, dt))
        print(f"render_notebooks: {stem}: {len(nb.cells)} cells executed in {dt:.1f} s", flush=True)
        if args.execute_only:
            continue
        files_dir = f"{stem}_files"
        md, images = to_markdown(nb, stem, files_dir)
        os.makedirs(args.out, exist_ok=True)
        img_dir = os.path.join(args.out, files_dir)
        shutil.rmtree(img_dir, ignore_errors=True)
        os.makedirs(img_dir)
        for name, data in images.items():
            with open(os.path.join(img_dir, name), "wb") as f:
                f.write(data)
            manifest[f"{files_dir}/{name}"] = hashlib.sha256(data).hexdigest()
        with open(os.path.join(args.out, f"{stem}.md"), "w", encoding="utf-8") as f:
            f.write(md)
        manifest[f"{stem}.md"] = hashlib.sha256(md.encode()).hexdigest()
    total = sum(dt for _, dt in results)
    print(f"render_notebooks: {len(results)} notebooks executed in {total:.1f} s")
    if not args.execute_only:
        import matplotlib
        mpath = os.path.join(args.out, "manifest.json")
        files = {}
        if args.names and os.path.exists(mpath):  # keep the entries of the others
            with open(mpath) as f:
                files = {k: v for k, v in json.load(f)["files"].items()
                         if not any(k.startswith(stem + ".") or k.startswith(stem + "_files/")
                                    for stem, _ in results)}
        files.update(manifest)
        with open(mpath, "w") as f:
            json.dump({"generator": "tools/render_notebooks.py",
                       "matplotlib": matplotlib.__version__, "files": files}, f, indent=1,
                      sort_keys=True)
            f.write("\n")
    if args.expect and not args.execute_only:
        with open(args.expect) as f:
            want = set(json.load(f)["files"])
        got = set(manifest)
        if got != want:
            print(f"render_notebooks: the published files differ from {args.expect}: "
                  f"new {sorted(got - want)}, missing {sorted(want - got)}; re-run "
                  f"tools/render_notebooks.py and commit docs/notebooks/rendered/")
            return 1
        print(f"render_notebooks: the {len(got)} files written are those {args.expect} lists")
    return 0


def _kernel_manager():
    """A KernelManager whose kernel is `sys.executable -m ipykernel_launcher`."""
    from jupyter_client.manager import KernelManager

    class _Here(KernelManager):
        def format_kernel_cmd(self, extra_arguments=None):
            return [sys.executable, "-m", "ipykernel_launcher", "-f", self.connection_file]

    return _Here


if __name__ == "__main__":
    sys.exit(main())
