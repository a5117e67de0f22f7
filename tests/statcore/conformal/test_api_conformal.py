"""statcore.conformal's API: the bad-input sweep of every public function and the result protocol of
every result class (see tests/apicheck.py)."""
import numpy as np
import pytest

import apicheck
from statcore.conformal import (ConformalClassSets, ConformalIntervals, ConformalSet, conformal_classes,
                                conformal_cqr, conformal_density_scores, conformal_interval, conformal_quantile,
                                conformal_set, coverage_band, coverage_test)

_rng = np.random.default_rng(0)
SCORES = _rng.exponential(size=40)
GRID = np.linspace(-4.0, 4.0, 81)
DENS = np.vstack([np.exp(-0.5 * (GRID - m) ** 2) / np.sqrt(2 * np.pi) for m in _rng.normal(size=30)])
Y_DENS = _rng.normal(size=30)
COVERED = _rng.random(60) < 0.9
Y_CAL, PRED_CAL, PRED_TEST = _rng.normal(size=40), _rng.normal(size=40) * 0.1, _rng.normal(size=7)
SCALE_CAL, SCALE_TEST = _rng.uniform(0.5, 2, 40), _rng.uniform(0.5, 2, 7)
G_CAL, G_TEST = np.r_[np.zeros(20, int), np.ones(20, int)], np.array([0, 1, 1, 0, 0, 1, 0])
PROBS_CAL, PROBS_TEST = _rng.dirichlet(np.ones(4), size=40), _rng.dirichlet(np.ones(4), size=7)
LABELS_CAL = _rng.integers(0, 4, 40)
_REG = {"y_cal": Y_CAL, "pred_cal": PRED_CAL, "pred_test": PRED_TEST, "alpha": 0.1}
_NORM = dict(_REG, score="normalized", scale_cal=SCALE_CAL, scale_test=SCALE_TEST)
_CQR = {"y_cal": Y_CAL, "lo_cal": PRED_CAL - 1, "hi_cal": PRED_CAL + 1, "lo_test": PRED_TEST - 1,
        "hi_test": PRED_TEST + 1, "alpha": 0.2}
_CLS = {"probs_cal": PROBS_CAL, "y_cal": LABELS_CAL, "probs_test": PROBS_TEST, "alpha": 0.2}
_GROUPS = {"groups_cal": G_CAL, "groups_test": G_TEST}

BAD_INPUT_SPECS = {
    "conformal_quantile": apicheck.Spec(conformal_quantile, {"scores": SCORES, "alpha": 0.1}, data=("scores",),
                                        paired=False),
    "coverage_band": apicheck.Spec(coverage_band, {"n": 40, "alpha": 0.1}, data=("n",), paired=False),
    "coverage_test": apicheck.Spec(coverage_test, {"covered": COVERED, "alpha": 0.1}, data=("covered",),
                                   paired=False),
    "conformal_set": apicheck.Spec(conformal_set, {"density": DENS, "grid": GRID, "threshold": -0.05},
                                   data=("density", "grid", "threshold"), paired=False),
    "conformal_set[rows]": apicheck.Spec(conformal_set, {"density": DENS, "grid": GRID,
                                                         "threshold": np.full(30, -0.05)},
                                         data=("density", "threshold"), ok={("threshold", "inf")}),  # the whole line
    "conformal_density_scores": apicheck.Spec(conformal_density_scores, {"density": DENS, "grid": GRID, "y": Y_DENS},
                                              data=("density", "y")),
    "conformal_interval": apicheck.Spec(conformal_interval, _REG, data=("y_cal", "pred_cal")),
    "conformal_interval[test]": apicheck.Spec(conformal_interval, _REG, data=("pred_test",), paired=False),
    "conformal_interval[normalized]": apicheck.Spec(conformal_interval, _NORM, data=("y_cal", "pred_cal", "scale_cal")),
    "conformal_interval[normalized test]": apicheck.Spec(conformal_interval, _NORM, data=("pred_test", "scale_test")),
    "conformal_interval[groups]": apicheck.Spec(conformal_interval, dict(_REG, alpha=0.2, **_GROUPS),
                                                data=("y_cal", "groups_cal")),
    "conformal_interval[groups test]": apicheck.Spec(conformal_interval, dict(_REG, alpha=0.2, **_GROUPS),
                                                     data=("pred_test", "groups_test")),
    "conformal_cqr": apicheck.Spec(conformal_cqr, _CQR, data=("y_cal", "lo_cal", "hi_cal")),
    "conformal_cqr[test]": apicheck.Spec(conformal_cqr, _CQR, data=("lo_test", "hi_test")),
    "conformal_classes": apicheck.Spec(conformal_classes, _CLS, data=("probs_cal", "y_cal")),
    "conformal_classes[test]": apicheck.Spec(conformal_classes, _CLS, data=("probs_test",), paired=False),
    "conformal_classes[aps groups]": apicheck.Spec(conformal_classes, dict(_CLS, score="aps", randomized=True, seed=0,
                                                                           **_GROUPS),
                                                   data=("probs_cal", "y_cal", "groups_cal")),
}

EXEMPT: dict = {}

RESULT_EXAMPLES = {
    "ConformalSet": lambda: conformal_set(DENS, GRID, threshold=conformal_quantile(
        conformal_density_scores(DENS, GRID, Y_DENS), alpha=0.2)),
    "ConformalIntervals": lambda: conformal_interval(**_NORM),
    "ConformalIntervals[cqr groups]": lambda: conformal_cqr(**dict(_CQR, **_GROUPS)),
    "ConformalClassSets": lambda: conformal_classes(**_CLS),
    "ConformalClassSets[aps groups]": lambda: conformal_classes(**dict(_CLS, score="aps", randomized=True, seed=1,
                                                                       **_GROUPS)),
    "CoverageBand": lambda: coverage_band(57, alpha=0.1),
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
    assert not res.pred_low.flags.writeable


def test_interval_and_class_results():
    res = RESULT_EXAMPLES["ConformalIntervals[cqr groups]"]()
    assert isinstance(res, ConformalIntervals) and res.score == "cqr" and res.groups == (0, 1)
    assert list(res.to_frame().columns) == ["pred_low", "pred_high", "length", "q", "group"]
    sets = RESULT_EXAMPLES["ConformalClassSets"]()
    assert isinstance(sets, ConformalClassSets) and sets.sets.shape == (7, 4) and not sets.sets.flags.writeable
    assert list(sets.matrix().columns) == [0, 1, 2, 3]
