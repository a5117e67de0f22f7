import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT.parent / "shared" / "golden"
# CI clones main beside a copy of shared/; a checkout elsewhere may keep its own copy in tests/golden
if not GOLDEN.exists():
    GOLDEN = ROOT / "tests" / "golden"




def golden_path(*parts: str) -> Path:
    path = GOLDEN.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"golden file {path} is not available")
    return path


def load_golden_json(*parts: str):
    return json.loads(golden_path(*parts).read_text())


HAVE_R = shutil.which("Rscript") is not None


def r_has_package(pkg: str) -> bool:
    if not HAVE_R:
        return False
    res = subprocess.run(["Rscript", "-e", f"quit(status = !requireNamespace('{pkg}', quietly=TRUE))"],
                         capture_output=True)
    return res.returncode == 0


def run_r(code: str, timeout: int = 300) -> str:
    """Run R code (through a script file: ``Rscript -e`` truncates long code) and return stdout."""
    import tempfile

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


# CI sets STATCORE_REQUIRE_R=1: there a missing R fails the live tests instead of skipping them
REQUIRE_R = os.environ.get("STATCORE_REQUIRE_R", "") not in ("", "0")
requires_r = pytest.mark.skipif(not HAVE_R and not REQUIRE_R, reason="Rscript is not installed")


def require_torch():
    """torch, or skip the calling module; CI sets LEARNCORE_REQUIRE_TORCH=1 so a missing torch fails."""
    if os.environ.get("LEARNCORE_REQUIRE_TORCH"):
        import torch  # noqa: F401  (an ImportError here fails the run, as it should in CI)

        return torch
    return pytest.importorskip("torch")
