"""The vignettes as notebooks: execute them headless and turn the executed notebooks into gallery pages.

``vignettes/*.py`` are jupytext percent-format scripts. This module

- executes each one as a notebook (jupytext -> nbformat -> nbclient, one kernel per vignette, in its
  own folder so that its ``figures/`` land there), records which figures every cell saved and stores
  the executed notebook with a hash of the vignette's source;
- converts an executed notebook into a sphinx-gallery example: the markdown cells become reST text,
  each code cell is followed by what it printed and the figures it saved. The gallery is therefore
  rendered from exactly one execution of the current source (the one ``tests/test_docs.py`` runs in CI,
  or ``python docs/notebooks.py run`` locally), never by running the vignettes a second time.

Command line::

    python docs/notebooks.py run [--out DIR] [--timeout SECONDS] [STEM ...]   # execute (stale or missing ones)
    python docs/notebooks.py ipynb                                            # vignettes/*.ipynb for Jupyter
"""
from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VIGNETTES = ROOT / "vignettes"
DEFAULT_RUNS = ROOT / "docs" / "_build" / "notebooks"
#: wall-clock limit of one vignette's execution (seconds); CI fails a vignette that takes longer
TIME_LIMIT = 600


def vignette_paths():
    return sorted(VIGNETTES.glob("*.py"))


def source_hash(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def executed_path(stem: str, runs: Path) -> Path:
    return Path(runs) / stem / f"{stem}.ipynb"


def is_current(path: Path, runs: Path) -> bool:
    """An executed notebook exists for this vignette and was made from its current source."""
    import nbformat

    out = executed_path(path.stem, runs)
    if not out.exists():
        return False
    nb = nbformat.read(out, as_version=4)
    return nb.metadata.get("statcore", {}).get("source_hash") == source_hash(path)


def execute(path: Path, runs: Path = DEFAULT_RUNS, *, time_limit: float = TIME_LIMIT) -> Path:
    """Execute one vignette as a notebook in ``runs/<stem>/``; return the executed notebook's path.

    Raises ``nbclient.exceptions.CellExecutionError`` (with the traceback) on an error in any cell and
    ``TimeoutError`` when the whole run exceeds ``time_limit`` seconds.
    """
    import jupytext
    import nbformat
    from nbclient import NotebookClient

    path = Path(path)
    run_dir = Path(runs) / path.stem
    if run_dir.exists():
        shutil.rmtree(run_dir)
    (run_dir / "figures").mkdir(parents=True)
    nb = jupytext.read(path)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    start = time.perf_counter()
    seen: dict[str, float] = {}

    def before(cell, cell_index, **kwargs):
        if time.perf_counter() - start > time_limit:
            raise TimeoutError(f"{path.name}: over the time limit of {time_limit:.0f} s before cell {cell_index}")

    def after(cell, cell_index, **kwargs):
        saved = []
        for png in sorted((run_dir / "figures").glob("*.png")):
            mtime = png.stat().st_mtime
            if seen.get(png.name) != mtime:
                seen[png.name] = mtime
                saved.append(png.name)
        cell.metadata["statcore_figures"] = saved

    env_backend = os.environ.get("MPLBACKEND")
    os.environ["MPLBACKEND"] = "Agg"
    try:
        client = NotebookClient(nb, timeout=int(time_limit), kernel_name="python3",
                                resources={"metadata": {"path": str(run_dir)}},
                                on_cell_execute=before, on_cell_executed=after)
        client.execute()
    finally:
        if env_backend is None:
            os.environ.pop("MPLBACKEND", None)
        else:
            os.environ["MPLBACKEND"] = env_backend
    elapsed = time.perf_counter() - start
    if elapsed > time_limit:
        raise TimeoutError(f"{path.name}: {elapsed:.0f} s, over the time limit of {time_limit:.0f} s")
    nb.metadata["statcore"] = {"source_hash": source_hash(path), "seconds": round(elapsed, 1)}
    out = executed_path(path.stem, runs)
    nbformat.write(nb, out)
    return out


# --- executed notebook -> sphinx-gallery example ------------------------------------------------

def _inline_md_to_rst(text: str) -> str:
    """The inline markdown the vignettes use, in reST: code, links, bold/italic pass through."""
    parts = re.split(r"(`[^`]+`)", text)
    out = []
    for i, part in enumerate(parts):
        if i % 2:                                   # inline code
            code = part[1:-1]
            nxt = parts[i + 1] if i + 1 < len(parts) else ""
            prev = out[-1] if out else ""
            lead = "\\ " if prev and re.search(r"[\w)]$", prev) else ""
            tail = "\\ " if nxt and re.match(r"[\w(]", nxt) else ""
            out.append(f"{lead}``{code}``{tail}")
        else:
            part = re.sub(r"\[([^\]]+)\]\(([^)]+)\)", r"`\1 <\2>`__", part)
            out.append(part)
    return "".join(out)


def markdown_to_rst(md: str, *, title_level: int | None = None) -> str:
    """A markdown cell of a vignette as reST (headings, paragraphs, lists, inline code, links)."""
    underline = {1: "=", 2: "-", 3: "^", 4: '"'}
    lines = []
    for line in md.splitlines():
        m = re.match(r"^(#{1,4})\s+(.*)$", line)
        if m:
            level = len(m.group(1))
            heading = _inline_md_to_rst(m.group(2).strip())
            if lines and lines[-1].strip():
                lines.append("")
            lines += [heading, underline[level] * max(len(heading), 3), ""]
            continue
        lines.append(_inline_md_to_rst(line))
    # reST needs a blank line before a list that follows a paragraph
    fixed = []
    for i, line in enumerate(lines):
        if re.match(r"^\s*([-*]|\d+\.)\s", line) and fixed and fixed[-1].strip() \
                and not re.match(r"^\s*([-*]|\d+\.)\s|^\s+\S", fixed[-1]):
            fixed.append("")
        fixed.append(line)
    return "\n".join(fixed).strip("\n")


def _comment(rst: str) -> str:
    return "\n".join(("# " + line).rstrip() for line in rst.splitlines())


def _cell_output_text(cell) -> str:
    texts = []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream" and out.get("name") == "stdout":
            texts.append(out.get("text", ""))
        elif out.get("output_type") in ("execute_result", "display_data"):
            texts.append(out.get("data", {}).get("text/plain", "") + "\n")
    return re.sub(r"\x1b\[[0-9;]*m", "", "".join(texts)).rstrip()


def gallery_example(nb, stem: str, figure_url: str) -> str:
    """A sphinx-gallery ``.py`` example from an executed notebook.

    ``figure_url`` is the folder (relative to the Sphinx source dir, starting with ``/``) holding the
    figures of this vignette. The first markdown cell becomes the example's docstring (its title and
    introduction); the first figure saved is the thumbnail.
    """
    cells = [c for c in nb.cells if c.cell_type in ("markdown", "code")]
    if not cells or cells[0].cell_type != "markdown":
        raise ValueError(f"{stem}: a vignette starts with a markdown cell holding its title")
    intro = markdown_to_rst(cells[0].source).replace('"""', '\\"\\"\\"')
    blocks = [f'"""\n{intro}\n"""']
    figures = [f for c in cells for f in c.metadata.get("statcore_figures", [])]
    # the thumbnail setting rides in the first code block (sphinx-gallery removes the comment line)
    thumb = f"\n# sphinx_gallery_thumbnail_path = '{figure_url.lstrip('/')}/{figures[0]}'" if figures else ""
    for cell in cells[1:]:
        if cell.cell_type == "markdown":
            blocks.append("# %%\n" + _comment(markdown_to_rst(cell.source)))
            continue
        blocks.append("# %%\n" + cell.source.rstrip() + thumb)
        thumb = ""
        shown = []
        output = _cell_output_text(cell)
        if output:
            body = "\n".join("    " + line if line.strip() else "" for line in output.splitlines())
            shown.append(".. rst-class:: sphx-glr-script-out\n\n.. code-block:: none\n\n" + body)
        for fig in cell.metadata.get("statcore_figures", []):
            shown.append(f".. image:: {figure_url}/{fig}\n   :alt: {fig}\n   :class: sphx-glr-single-img")
        if shown:
            blocks.append("# %%\n" + _comment("\n\n".join(shown)))
    return "\n\n".join(blocks) + "\n"


def write_gallery_sources(runs: Path, src_dir: Path, fig_dir: Path, figure_url: str) -> list[str]:
    """Write the sphinx-gallery sources of every vignette from its executed notebook.

    Raises ``RuntimeError`` naming the vignettes with no current execution (none, or made from an
    older source), so that a stale gallery cannot be published.
    """
    import nbformat

    paths = vignette_paths()
    stale = [p.name for p in paths if not is_current(p, runs)]
    if stale:
        raise RuntimeError(f"no current executed notebook in {runs} for: {', '.join(stale)}; run "
                           f"`python docs/notebooks.py run --out {runs}` (or bash docs/build.sh)")
    for d in (src_dir, fig_dir):
        if d.exists():
            shutil.rmtree(d)
        d.mkdir(parents=True)
    (src_dir / "GALLERY_HEADER.rst").write_text(
        "Gallery\n=======\n\nThe vignettes of ``vignettes/``, executed once as notebooks: their text, code, "
        "printed output and figures. Each page offers the script and the notebook for download.\n")
    stems = []
    for path in paths:
        nb = nbformat.read(executed_path(path.stem, runs), as_version=4)
        (fig_dir / path.stem).mkdir()
        for png in (Path(runs) / path.stem / "figures").glob("*.png"):
            shutil.copy2(png, fig_dir / path.stem / png.name)
        (src_dir / path.name).write_text(gallery_example(nb, path.stem, f"{figure_url}/{path.stem}"))
        stems.append(path.stem)
    return stems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    run = sub.add_parser("run", help="execute the vignettes as notebooks (only stale or missing ones)")
    run.add_argument("stems", nargs="*", help="vignette names (default: all)")
    run.add_argument("--out", type=Path, default=DEFAULT_RUNS)
    run.add_argument("--timeout", type=float, default=TIME_LIMIT)
    run.add_argument("--force", action="store_true", help="re-execute current ones too")
    sub.add_parser("ipynb", help="write vignettes/<name>.ipynb next to each script (jupytext)")
    args = parser.parse_args(argv)
    if args.cmd == "ipynb":
        import jupytext

        for path in vignette_paths():
            jupytext.write(jupytext.read(path), path.with_suffix(".ipynb"))
            print(f"wrote {path.with_suffix('.ipynb').relative_to(ROOT)}")
        return 0
    paths = [p for p in vignette_paths() if not args.stems or p.stem in args.stems]
    for path in paths:
        if not args.force and is_current(path, args.out):
            print(f"{path.stem}: current")
            continue
        t0 = time.perf_counter()
        execute(path, args.out, time_limit=args.timeout)
        print(f"{path.stem}: executed in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
