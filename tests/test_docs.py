"""The README's examples run as doctests, and every vignette runs end to end (in a scratch folder)."""
import doctest
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
VIGNETTES = sorted((ROOT / "vignettes").glob("*.py"))


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


@pytest.mark.slow
@pytest.mark.parametrize("path", VIGNETTES, ids=[p.stem for p in VIGNETTES])
def test_vignette_runs(path, tmp_path):
    env = dict(os.environ, MPLBACKEND="Agg")
    res = subprocess.run([sys.executable, str(path)], cwd=tmp_path, capture_output=True, text=True,
                         env=env, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    assert any((tmp_path / "figures").glob("*.png")), "a vignette saves its figures under figures/"
