"""Shared test helpers: golden files, the live-R runner and its one skip rule, torch, the
bad-input sweep and the result-protocol check."""
import functools
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
#: golden reference values live inside the repository (tests/golden/, with the R scripts that made them)
GOLDEN = ROOT / "tests" / "golden"


def golden_path(*parts: str) -> Path:
    path = GOLDEN.joinpath(*parts)
    if not path.exists():  # a missing golden file is a broken checkout, not a reason to skip
        raise FileNotFoundError(f"golden file {path} is missing from the repository")
    return path


def load_golden_json(*parts: str):
    return json.loads(golden_path(*parts).read_text())


# ----------------------------------------------------------------------------------------------
# live R
# ----------------------------------------------------------------------------------------------

#: CI sets STATCORE_REQUIRE_R=1: there a missing or broken R (or R package) fails the live tests
REQUIRE_R = os.environ.get("STATCORE_REQUIRE_R", "") not in ("", "0")


@functools.lru_cache(maxsize=None)
def r_works(*packages: str) -> tuple[bool, str]:
    """(True, "") when Rscript runs R code and loads every package; else (False, why)."""
    if shutil.which("Rscript") is None:
        return False, "Rscript is not installed"
    pkgs = ", ".join(f"'{p}'" for p in packages)
    code = (f"ok <- sapply(c({pkgs}), requireNamespace, quietly = TRUE); "
            "if (!all(ok)) {cat('missing:', names(ok)[!ok]); quit(status = 3)}; cat(1 + 1)"
            if packages else "cat(1 + 1)")
    try:
        res = subprocess.run(["Rscript", "--vanilla", "-e", code], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, f"Rscript does not run: {exc}"
    if res.returncode != 0 or not res.stdout.strip().endswith("2"):
        return False, f"R does not run{' with ' + pkgs if packages else ''}: {(res.stdout + res.stderr).strip()[-300:]}"
    return True, ""


def requires_r(*packages):
    """Mark a test that compares with a live R session (and the named R packages).

    Use bare (``@requires_r``) or with packages (``@requires_r("qvalue", "mixsqp")``). The check runs R
    for real, so a half-installed R skips instead of failing; with ``STATCORE_REQUIRE_R=1`` (CI) a
    missing R fails the test instead.
    """
    if len(packages) == 1 and callable(packages[0]):
        return requires_r()(packages[0])
    packages = tuple(packages)

    def deco(test):
        @functools.wraps(test)
        def wrapper(*args, **kwargs):
            ok, why = r_works(*packages)
            if not ok:
                if REQUIRE_R:
                    pytest.fail(f"STATCORE_REQUIRE_R=1 but {why}")
                pytest.skip(why)
            return test(*args, **kwargs)

        return pytest.mark.r(wrapper)

    return deco


def requires_r_source(*packages):
    """Mark a live comparison with an R package that Debian does not ship (ashr, locfdr, knockoff).

    Such packages are built from their public source into a scratch library (``R_LIBS``; the recipe
    is in tests/golden/README.md) and their golden values stand in for them everywhere else, so
    these tests skip without the package even under ``STATCORE_REQUIRE_R=1``; R itself must still run
    there.
    """
    packages = tuple(packages)

    def deco(test):
        @functools.wraps(test)
        def wrapper(*args, **kwargs):
            ok, why = r_works()
            if not ok:
                if REQUIRE_R:
                    pytest.fail(f"STATCORE_REQUIRE_R=1 but {why}")
                pytest.skip(why)
            ok, why = r_works(*packages)
            if not ok:
                pytest.skip(f"{', '.join(packages)} not built here (not in Debian; the golden values stand in)")
            return test(*args, **kwargs)

        return pytest.mark.r(wrapper)

    return deco


def run_r(code: str, timeout: int = 300) -> str:
    """Run R code (through a script file: ``Rscript -e`` truncates long code) and return stdout."""
    with tempfile.NamedTemporaryFile("w", suffix=".R", delete=False) as fh:
        fh.write(code)
        path = fh.name
    try:
        res = subprocess.run(["Rscript", "--vanilla", path], capture_output=True, text=True,
                             timeout=timeout)
    finally:
        os.unlink(path)
    if res.returncode != 0:
        raise RuntimeError(f"R failed:\n{res.stderr}")
    return res.stdout


def r_vector(x) -> str:
    """An R literal for a float vector (NaN as NA), with all 17 digits."""
    return "c(" + ", ".join("NA" if np.isnan(v) else repr(float(v)) for v in np.asarray(x, float)) + ")"


def require_torch():
    """torch, or skip the calling module; CI sets LEARNCORE_REQUIRE_TORCH=1 so a missing torch fails."""
    if os.environ.get("LEARNCORE_REQUIRE_TORCH"):
        import torch  # noqa: F401  (an ImportError here fails the run, as it should in CI)

        return torch
    return pytest.importorskip("torch")
