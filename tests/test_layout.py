"""The layout rules a newcomer relies on (CONTRIBUTING.md): no module is shadowed by the function of
the same name that its package re-exports, and numba kernels sit beside the code that calls them."""
import importlib
import re
import pkgutil
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _walk(root: str):
    pkg = importlib.import_module(root)
    for info in pkgutil.walk_packages(pkg.__path__, root + "."):
        yield info.name


@pytest.mark.parametrize("root", ["statcore", "learncore"])
def test_no_module_shadowed_by_a_function(root):
    if root == "learncore":
        pytest.importorskip("torch")
    shadowed = []
    for name in _walk(root):
        parent, _, leaf = name.rpartition(".")
        obj = getattr(importlib.import_module(parent), leaf, None)
        if obj is not None and not isinstance(obj, types.ModuleType):
            shadowed.append(f"{name} (shadowed by {type(obj).__name__} {parent}.{leaf})")
    assert not shadowed, "modules whose name a re-exported object takes: " + ", ".join(shadowed)


def test_one_kernel_convention():
    # kernels live beside their topic's code; there is no central kernels folder any more
    assert not (ROOT / "statcore" / "_kernels").exists()
    jitted = [p for p in (ROOT / "statcore").rglob("*.py") if "@lazy_njit" in p.read_text(encoding="utf-8")]
    misplaced = [str(p.relative_to(ROOT)) for p in jitted
                 if not p.name.endswith("_kernels.py") and p.name != "_jit.py"]  # _jit: the mechanism itself
    assert not misplaced, f"numba kernels outside a *_kernels.py module: {misplaced}"


def test_vignettes_and_guides_use_the_public_api():
    # a worked analysis reads like a user's script: statcore's and learncore's public names only
    private = re.compile(r"\b(?:statcore|learncore)(?:\.\w+)*\._\w+")
    found = []
    for path in [*(ROOT / "vignettes").glob("*.py"), *(ROOT / "docs" / "guide").glob("*.md")]:
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if ("import" in line or ">>>" in line) and private.search(line):
                found.append(f"{path.relative_to(ROOT)}:{lineno}: {line.strip()}")
    assert not found, "private modules in worked analyses: " + "; ".join(found)
