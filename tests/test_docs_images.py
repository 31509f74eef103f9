# SPDX-License-Identifier: MIT
"""Checks that every image the documentation shows exists and is current.

Every Markdown file under docs/ (and README.md) is scanned for images,
`![alt](path)` and `<img src="path">`.  Each referenced file must exist, be
a PNG, and be one a script makes:

  docs/img/charts/*        tools/make_doc_plots.py; listed in its manifest
                           charts.json with the file's SHA-256
  docs/notebooks/rendered/ tools/render_notebooks.py; listed in
                           rendered/manifest.json with the file's SHA-256
  docs/img/* (others)      the image gallery, examples/gallery.c: named in
                           examples/gallery.cmake's list of its outputs

and nothing is stale: every manifest entry exists with that hash, every chart
is referenced, every rendered copy belongs to a notebook, every PNG in the
rendered folders is in the manifest, and the .ipynb files match their sources
with outputs stripped.  When matplotlib and dresample import, the charts are
drawn again into a temporary folder: the same files must come out, byte for
byte when this matplotlib is the manifest's version (otherwise the bytes are
not compared and the test says so).  Exit 0 pass, 1 fail, 77 (skipped) when
the regeneration could not run but everything else passed.

    venv/bin/python tests/test_docs_images.py
"""
import glob
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
DOCS = os.path.join(ROOT, "docs")
CHARTS = os.path.join(DOCS, "img", "charts")
RENDERED = os.path.join(DOCS, "notebooks", "rendered")
IMG_RE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|<img[^>]*\bsrc=\"([^\"]+)\"")

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def rel(p):
    return os.path.relpath(p, ROOT)


def references():
    """{absolute image path: [referencing Markdown files]}"""
    mds = sorted(glob.glob(os.path.join(DOCS, "**", "*.md"), recursive=True))
    mds.append(os.path.join(ROOT, "README.md"))
    refs = {}
    for md in mds:
        with open(md, encoding="utf-8") as f:
            text = f.read()
        for m in IMG_RE.finditer(text):
            target = m.group(1) or m.group(2)
            if re.match(r"[a-z]+:", target):  # a URL, not a file of the repository
                continue
            path = os.path.normpath(os.path.join(os.path.dirname(md), target.split("#")[0]))
            refs.setdefault(path, []).append(rel(md))
    return refs


def gallery_outputs():
    with open(os.path.join(ROOT, "examples", "gallery.cmake"), encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"set\(_gallery_files(.*?)\)", text, re.S)
    return set(m.group(1).split()) if m else set()


def load_manifest(path):
    if not os.path.exists(path):
        fail(f"{rel(path)} is missing")
        return {}
    with open(path) as f:
        return json.load(f)


def check_static():
    refs = references()
    charts = load_manifest(os.path.join(CHARTS, "charts.json"))
    rendered = load_manifest(os.path.join(RENDERED, "manifest.json"))
    gallery = gallery_outputs()
    kinds = {"chart": 0, "notebook": 0, "gallery": 0}
    for path, where in sorted(refs.items()):
        who = ", ".join(sorted(set(where)))
        if not os.path.isfile(path):
            fail(f"{rel(path)} (shown by {who}) does not exist")
            continue
        with open(path, "rb") as f:
            if f.read(8) != b"\x89PNG\r\n\x1a\n":
                fail(f"{rel(path)} (shown by {who}) is not a PNG file")
        if os.path.dirname(path) == CHARTS:
            kinds["chart"] += 1
            want = charts.get("files", {}).get(os.path.basename(path))
            if want is None:
                fail(f"{rel(path)} (shown by {who}) is not made by tools/make_doc_plots.py "
                     f"(not in charts.json)")
            elif want != sha256(path):
                fail(f"{rel(path)} differs from the file tools/make_doc_plots.py wrote "
                     f"(charts.json hash): edited by hand or stale")
        elif path.startswith(RENDERED + os.sep):
            kinds["notebook"] += 1
            key = os.path.relpath(path, RENDERED)
            want = rendered.get("files", {}).get(key)
            if want is None:
                fail(f"{rel(path)} (shown by {who}) is not in rendered/manifest.json")
            elif want != sha256(path):
                fail(f"{rel(path)} differs from the file tools/render_notebooks.py wrote")
        elif os.path.dirname(path) == os.path.join(DOCS, "img") and \
                os.path.basename(path) in gallery:
            kinds["gallery"] += 1
        else:
            fail(f"{rel(path)} (shown by {who}) is made by no script (neither a chart, a "
                 f"rendered notebook nor a gallery output)")
    # nothing stale: every manifest entry exists, matches and is used
    for name, h in charts.get("files", {}).items():
        p = os.path.join(CHARTS, name)
        if not os.path.isfile(p):
            fail(f"charts.json lists {name}, which does not exist")
        elif sha256(p) != h:
            fail(f"{rel(p)} does not match charts.json")
        if p not in refs:
            fail(f"{rel(p)} is drawn but no page shows it")
    for name, h in rendered.get("files", {}).items():
        p = os.path.join(RENDERED, name)
        if not os.path.isfile(p):
            fail(f"rendered/manifest.json lists {name}, which does not exist")
        elif sha256(p) != h:
            fail(f"{rel(p)} does not match rendered/manifest.json (edited by hand?)")
        elif p.endswith(".png") and p not in refs:
            fail(f"{rel(p)} is in the manifest but its page does not show it")
    for p in glob.glob(os.path.join(RENDERED, "*_files", "*")):
        if os.path.relpath(p, RENDERED) not in rendered.get("files", {}):
            fail(f"{rel(p)} is left over from an earlier rendering (not in the manifest)")
    for p in glob.glob(os.path.join(CHARTS, "*.png")):
        if os.path.basename(p) not in charts.get("files", {}):
            fail(f"{rel(p)} is left over (not in charts.json)")
    notebooks = sorted(os.path.basename(p)[:-6] for p in
                       glob.glob(os.path.join(DOCS, "notebooks", "[0-9][0-9]_*.ipynb")))
    copies = sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(RENDERED, "*.md")))
    if notebooks != copies:
        fail(f"rendered copies {copies} do not match the notebooks {notebooks}")
    for nbp in glob.glob(os.path.join(DOCS, "notebooks", "*.ipynb")):
        with open(nbp, encoding="utf-8") as f:
            nb = json.load(f)
        if any(c.get("outputs") or c.get("execution_count") for c in nb["cells"]
               if c["cell_type"] == "code"):
            fail(f"{rel(nbp)} has outputs: commit notebooks stripped (tools/make_notebooks.py)")
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "make_notebooks.py"),
                        "--check"], capture_output=True, text=True)
    if r.returncode == 0:
        pass
    elif "No module named" in r.stderr:
        print("note: nbformat missing, notebook sources not compared")
    else:
        fail("notebooks out of date with their sources:\n" + r.stdout + r.stderr)
    print(f"{len(refs)} images referenced from docs: {kinds['chart']} charts, "
          f"{kinds['notebook']} notebook figures, {kinds['gallery']} gallery pictures")
    return charts


def check_regenerated(charts):
    """Draws the charts again; False when the tools for it are missing."""
    try:
        import matplotlib
        import dresample  # noqa: F401
    except ImportError as e:
        print(f"note: charts not regenerated ({e})")
        return False
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "make_doc_plots.py"),
                            "--out", tmp], capture_output=True, text=True)
        if r.returncode != 0:
            fail("tools/make_doc_plots.py failed:\n" + r.stdout + r.stderr)
            return True
        with open(os.path.join(tmp, "charts.json")) as f:
            fresh = json.load(f)["files"]
    old = charts.get("files", {})
    if set(fresh) != set(old):
        fail(f"tools/make_doc_plots.py now draws {sorted(fresh)}, charts.json lists "
             f"{sorted(old)}: re-run it and commit docs/img/charts/")
    elif matplotlib.__version__ != charts.get("matplotlib"):
        print(f"note: matplotlib {matplotlib.__version__} here, {charts.get('matplotlib')} drew "
              f"the committed charts: bytes not compared, names match")
    else:
        stale = [name for name in sorted(fresh) if fresh[name] != old[name]]
        for name in stale:
            fail(f"docs/img/charts/{name} is stale: tools/make_doc_plots.py draws a "
                 f"different image now; re-run it and commit")
        if not stale:
            print(f"{len(fresh)} charts redrawn, identical to the committed files")
    return True


def main():
    charts = check_static()
    ran = check_regenerated(charts)
    if failures:
        print(f"{len(failures)} problem(s)")
        return 1
    return 0 if ran else 77


if __name__ == "__main__":
    sys.exit(main())
