"""Sphinx configuration of the statcore / learncore site.

Everything that grows with the code is generated here, at build time:

- the API reference: one page per public namespace, listing its ``__all__`` (``statcore`` grouped by
  topic package; every public statcore module whose names are not re-exported flat, e.g.
  ``statcore.utils``; every ``learncore`` subpackage), one autosummary stub per name;
- the gallery: one sphinx-gallery example per ``vignettes/*.py``, written from that vignette's executed
  notebook (``docs/notebooks.py``), so a new vignette or a new public name appears without editing docs/.
"""
import importlib
import inspect
import os
import pkgutil
import re
import shutil
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(DOCS))

import notebooks  # noqa: E402  (docs/notebooks.py)
import statcore  # noqa: E402

project = "statcore"
author = "the statcore developers"
copyright = "2026, the statcore developers"
release = version = statcore.__version__ if hasattr(statcore, "__version__") else "0.1.0"

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
    "sphinx_copybutton",
    "matplotlib.sphinxext.plot_directive",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "_generated/gallery_src", "Thumbs.db", ".DS_Store", "**/GALLERY_HEADER.rst",
                    "gallery/*.ipynb", "gallery/*.py", "gallery/*.json", "gallery/*.zip"]
templates_path = ["_templates"]
suppress_warnings = ["config.cache"]   # sphinx-gallery's config holds callables; nothing to cache

autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": False}
autodoc_typehints = "none"              # the numpydoc Parameters sections say the types
autodoc_mock_imports = []
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence"]

html_theme = "pydata_sphinx_theme"
html_title = "statcore"
html_context = {"default_mode": "auto"}    # the theme's light/dark default (without it the theme logs an error)
_ON_THIS_PAGE = ["page-toc", "edit-this-page", "sourcelink"]     # the theme's right column
html_theme_options = {"navigation_with_keys": False, "show_toc_level": 2, "header_links_before_dropdown": 3,
                      # a guide page's one heading needs no "on this page" column: the example gets the width
                      "secondary_sidebar_items": {"guide/*": [], "api/**": _ON_THIS_PAGE, "gallery/**": _ON_THIS_PAGE,
                                                  **{p: _ON_THIS_PAGE for p in ("index", "coming_from_r", "conventions",
                                                                                "scaleout", "notebooks")}}}
html_static_path = ["_static", "_generated/static"]
html_css_files = ["statcore.css"]     # tables and code that fit the column, wide figures readable
html_js_files = ["statcore_search_weights.js", "statcore.js"]
html_show_sourcelink = False
# pages without a section of their own to navigate get the whole width (no left sidebar)
html_sidebars = {page: [] for page in ("index", "coming_from_r", "conventions", "scaleout", "notebooks",
                                       "gallery/*")}

# the copy button of a code block copies the code only: no ">>> " / "... " prompts, no printed output
copybutton_prompt_text = r">>> |\.\.\. |\$ "
copybutton_prompt_is_regexp = True
copybutton_only_copy_prompt_lines = True

# the user guide's figures: made at build time from the page's own worked example (see _guide_figures)
plot_include_source = False
plot_html_show_source_link = False
plot_html_show_formats = False
plot_formats = [("png", 100)]

# --- API reference ------------------------------------------------------------------------------

API = DOCS / "api"
GEN = DOCS / "_generated"

TOPIC_TITLES = {
    "core": "Results, warnings and the result protocol",
    "multitest": "Multiple testing",
    "modelsel": "Model comparison",
    "cit": "Conditional independence",
    "coupling": "Joint potential outcomes (coupling bounds)",
    "ebayes": "Empirical Bayes",
    "indep": "Independence",
    "conformal": "Conformal prediction",
}


def _public_modules(package):
    for info in pkgutil.iter_modules(package.__path__):
        if info.name.startswith("_"):
            continue
        try:
            mod = importlib.import_module(f"{package.__name__}.{info.name}")
        except ImportError as exc:  # an optional dependency missing: the build must say so
            raise RuntimeError(f"cannot import {package.__name__}.{info.name} for the API reference: {exc}")
        if getattr(mod, "__all__", None):
            yield info.name, mod


def _title(mod):
    first = (mod.__doc__ or mod.__name__).strip().splitlines()[0].rstrip(".")
    return first


def _autosummary(names, module):
    rows = "\n".join(f"   {n}" for n in names)
    return f".. currentmodule:: {module}\n\n.. autosummary::\n   :toctree: generated\n\n{rows}\n"


def _write(path, text):
    """Write only what changed, so that an incremental build re-reads only the changed pages."""
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def write_api_pages():
    import learncore

    pages = {}
    flat = set(statcore.__all__)
    topics = {}
    extra = []
    for name, mod in _public_modules(statcore):
        if flat & set(mod.__all__):
            for n in mod.__all__:
                if n in flat:
                    topics.setdefault(n, name)
        else:
            extra.append((f"statcore.{name}", mod))
    groups = {}
    for n in statcore.__all__:
        groups.setdefault(topics.get(n, "core"), []).append(n)
    order = ["core"] + sorted(g for g in groups if g != "core")
    text = ["statcore", "========", "", ".. module:: statcore", "",
            "Every public name of ``statcore`` (``statcore.__all__``), by topic package.", ""]
    for g in order:
        title = TOPIC_TITLES.get(g) or _title(importlib.import_module(f"statcore.{g}"))
        heading = f"{title} (``statcore.{g}``)" if g != "core" else title
        text += [heading, "-" * len(heading), "", _autosummary(groups[g], "statcore")]
    pages["statcore"] = "\n".join(text)
    for qual, mod in extra + [(f"learncore.{n}", m) for n, m in _public_modules(learncore)]:
        head = f"``{qual}``: {_title(mod)}"
        pages[qual] = "\n".join([head, "=" * len(head), "", f".. module:: {qual}", "",
                                 f"Every public name of ``{qual}`` (its ``__all__``).", "",
                                 _autosummary(list(mod.__all__), qual)])
    toc = "\n".join(f"   {p}" for p in pages)
    pages["index"] = (
        "API reference\n=============\n\nGenerated from the docstrings (numpydoc) of every public name: "
        "``statcore.__all__`` by topic, the public statcore modules whose names are not re-exported "
        "flat, and every ``learncore`` package.\n\n.. toctree::\n   :maxdepth: 1\n\n" + toc + "\n")
    API.mkdir(exist_ok=True)
    for old in API.glob("*.rst"):          # a namespace that is gone takes its page with it
        if old.stem not in pages:
            old.unlink()
    for name, body in pages.items():
        _write(API / f"{name}.rst", body)
    stubs = {f"statcore.{n}" for n in statcore.__all__}
    stubs |= {f"{q}.{n}" for q, m in extra + [(f"learncore.{n}", m) for n, m in _public_modules(learncore)]
              for n in m.__all__}
    for old in (API / "generated").glob("*.rst"):   # the stub of a name no longer public
        if old.stem not in stubs:
            old.unlink()


write_api_pages()

# --- gallery ------------------------------------------------------------------------------------

RUNS = Path(os.environ.get("STATCORE_NOTEBOOK_RUNS", notebooks.DEFAULT_RUNS))
GALLERY_SRC = GEN / "gallery_src"
FIGURES = GEN / "vignette_figures"
notebooks.write_gallery_sources(RUNS, GALLERY_SRC, FIGURES, "/_generated/vignette_figures")

sphinx_gallery_conf = {
    "examples_dirs": str(GALLERY_SRC),
    "gallery_dirs": str(DOCS / "gallery"),
    "plot_gallery": "False",           # never executed here: outputs and figures come from the notebook run
    "filename_pattern": r"/__never__",
    "download_all_examples": False,
    "remove_config_comments": True,
    "show_signature": False,
    "min_reported_time": 10 ** 9,
}


def _original_downloads(app):
    """The page's downloads are the vignette itself and its jupytext notebook, not the converted source."""
    import jupytext

    for path in notebooks.vignette_paths():
        shutil.copy2(path, DOCS / "gallery" / path.name)
        jupytext.write(jupytext.read(path), DOCS / "gallery" / f"{path.stem}.ipynb")


# --- the user guide's figures ---------------------------------------------------------------------

_PY_BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def _guide_figures(app, docname, source):
    """A guide page's worked example that draws (``.plot(``) shows its figures: after that block, the
    page's examples up to it run once more at build time (matplotlib's plot directive, doctest syntax),
    and every figure they leave open is shown. The doctests of tests/test_docs.py check the same code."""
    if not docname.startswith("guide/") or docname == "guide/index":
        return
    text, out, last, blocks = source[0], [], 0, []
    for m in _PY_BLOCK.finditer(text):
        blocks.append(m.group(1))
        out.append(text[last:m.end()])
        last = m.end()
        if ".plot(" in m.group(1):
            body = "\n".join("   " + line if line.strip() else "" for line in "\n".join(blocks).splitlines())
            out.append(f"\n\n```{{eval-rst}}\n.. plot::\n\n{body}\n```\n")
    out.append(text[last:])
    source[0] = "".join(out)


# --- search: a function's page ranks first for the names in its summary line -----------------------
#
# Sphinx's search scores a word of the text 5, whatever the page. A public object's page gets an index
# entry (scored 100) for each proper name and acronym of its summary line ("DeLong", "Venkatraman",
# "HSIC", "Storey"), and among those pages the one whose docstring names it most ranks first
# (statcore.js adds the count to the score, from statcore_search_weights.js written here): "delong"
# finds roc_test, then auc_ci, before the pages that mention DeLong in passing.

_NAME = re.compile(r"\b([A-Z][A-Za-z0-9-]{2,})(?:'s)?\b")


def _summary_names(obj):
    doc = inspect.getdoc(obj) or ""
    summary = " ".join(doc.strip().split("\n\n")[0].split())
    words = [m.group(1) for m in _NAME.finditer(summary) if m.start() > 0]
    return sorted(dict.fromkeys(w for w in words if not w.isdigit())), doc


def _summary_index_entries(app, what, name, obj, options, lines):
    words, _ = _summary_names(obj)
    if words and name.startswith(("statcore.", "learncore.")):
        lines.extend(["", ".. index::"] + [f"   ! {w}" for w in words] + [""])


def write_search_weights():
    import json

    import learncore

    weights = {}
    spaces = [("statcore", statcore)] + [(f"learncore.{n}", m) for n, m in _public_modules(learncore)]
    spaces += [(f"statcore.{n}", m) for n, m in _public_modules(statcore) if not set(m.__all__) & set(statcore.__all__)]
    for qual, mod in spaces:
        for n in mod.__all__:
            words, doc = _summary_names(getattr(mod, n))
            counts = {w.lower(): min(doc.count(w), 50) for w in words}
            if counts:
                weights[f"api/generated/{qual}.{n}"] = counts
    static = GEN / "static"
    static.mkdir(parents=True, exist_ok=True)
    _write(static / "statcore_search_weights.js",
           "// written by docs/conf.py: per API page, how often its docstring names each name of its summary line\n"
           f"window.STATCORE_SEARCH_WEIGHTS = {json.dumps(weights, sort_keys=True)};\n")


write_search_weights()


def setup(app):
    app.connect("builder-inited", _original_downloads, priority=900)
    app.connect("source-read", _guide_figures)
    app.connect("autodoc-process-docstring", _summary_index_entries, priority=900)
