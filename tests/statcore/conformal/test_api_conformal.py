"""statcore.conformal's API: the bad-input sweep of every public function and the result protocol of
every result class (see tests/apicheck.py)."""
import numpy as np
import pytest

import apicheck
from statcore.conformal import (ConformalSet, conformal_density_scores, conformal_quantile, conformal_set,
                                coverage_band, coverage_test)

_rng = np.random.default_rng(0)
SCORES = _rng.exponential(size=40)
GRID = np.linspace(-4.0, 4.0, 81)
DENS = np.vstack([np.exp(-0.5 * (GRID - m) ** 2) / np.sqrt(2 * np.pi) for m in _rng.normal(size=30)])
Y_DENS = _rng.normal(size=30)
COVERED = _rng.random(60) < 0.9

BAD_INPUT_SPECS = {
    "conformal_quantile": apicheck.Spec(conformal_quantile, {"scores": SCORES, "alpha": 0.1}, data=("scores",),
                                        paired=False),
    "coverage_band": apicheck.Spec(coverage_band, {"n": 40, "alpha": 0.1}, data=("n",), paired=False),
    "coverage_test": apicheck.Spec(coverage_test, {"covered": COVERED, "alpha": 0.1}, data=("covered",),
                                   paired=False),
    "conformal_set": apicheck.Spec(conformal_set, {"density": DENS, "grid": GRID, "q": -0.05},
                                   data=("density", "grid", "q"), paired=False),
    "conformal_set[rows]": apicheck.Spec(conformal_set, {"density": DENS, "grid": GRID, "q": np.full(30, -0.05)},
                                         data=("density", "q"), ok={("q", "inf")}),  # q = inf: the whole line
    "conformal_density_scores": apicheck.Spec(conformal_density_scores, {"density": DENS, "grid": GRID, "y": Y_DENS},
                                              data=("density", "y")),
}

EXEMPT: dict = {}

RESULT_EXAMPLES = {
    "ConformalSet": lambda: conformal_set(DENS, GRID, conformal_quantile(
        conformal_density_scores(DENS, GRID, Y_DENS), alpha=0.2)),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUT_SPECS))
def test_bad_inputs(name):
    assert apicheck.sweep_bad_inputs(BAD_INPUT_SPECS[name]) == []


@pytest.mark.parametrize("name", sorted(RESULT_EXAMPLES))
def test_result_protocol(name):
    apicheck.check_result_protocol(RESULT_EXAMPLES[name]())


def test_conformal_set_is_compact_and_frozen():
    res = RESULT_EXAMPLES["ConformalSet"]()
    assert isinstance(res, ConformalSet)
    assert repr(res).startswith("ConformalSet(sets=30, intervals=30")
    with pytest.raises(AttributeError):
        res.level = 0
    assert not res.lower.flags.writeable
