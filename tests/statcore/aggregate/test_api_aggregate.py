"""The API checks of statcore.aggregate and statcore.boolean: the bad-input sweep of every public
function and the result protocol of every result class (see tests/apicheck.py)."""
import numpy as np
import pandas as pd
import pytest

from apicheck import Spec, check_result_protocol, sweep_bad_inputs
from statcore import (boolean_measures, composite_score, power_mean, profile_rank_stability, rate_at_far,
                      weight_robustness)

_rng = np.random.default_rng(36)
SCORES = _rng.uniform(0.2, 1.0, size=(12, 3))
WEIGHTS = np.array([0.5, 0.3, 0.2])
TABLE = np.array([[0.9, 0.4, 0.6], [0.7, 0.7, 0.65], [0.5, 0.9, 0.7]])
PROFILES = {"a": [2.0, 1.0, 1.0], "b": [1.0, 2.0, 1.0]}
IMPOSTOR = _rng.normal(0.0, 0.1, 200)
PAIRS = _rng.normal(0.3, 0.1, 30)
MAJ3 = np.array([0, 0, 0, 1, 0, 1, 1, 1])
X_BITS = np.array([0, 0, 1])

# power_mean takes scores of any shape (the mean along the last axis): the sweep's (n, 3, 1, 1) array
# is 36 means of one score each, which succeeds where no weights of another length are given
BAD_INPUT_SPECS = {
    "power_mean": Spec(power_mean, {"scores": SCORES, "weights": WEIGHTS}, data=("scores",), paired=False),
    # weights are data too: a NaN or text weight is refused naming "weights"
    "power_mean[weights]": Spec(power_mean, {"scores": SCORES, "weights": WEIGHTS}, data=("weights",), paired=False,
                                ok={("weights", "none")}),   # None: equal weights (the default)
    "power_mean[omit]": Spec(power_mean, {"scores": SCORES, "nan_policy": "omit"}, data=("scores",), paired=False,
                             ok={("scores", "nan"), ("scores", "wrong_ndim")}),
    "power_mean[propagate]": Spec(power_mean, {"scores": SCORES, "nan_policy": "propagate"}, data=("scores",),
                                  paired=False, ok={("scores", "nan"), ("scores", "wrong_ndim")},
                                  nan_result_ok={("scores", "nan")}),
    "composite_score": Spec(composite_score, {"components": SCORES, "B": 19, "seed": 1}, data=("components",),
                            paired=False),
    "composite_score[weights]": Spec(composite_score, {"components": SCORES, "weights": WEIGHTS, "B": 19, "seed": 1},
                                     data=("weights",), paired=False, ok={("weights", "none")}),
    "composite_score[omit]": Spec(composite_score, {"components": SCORES, "B": 19, "seed": 1, "nan_policy": "omit"},
                                  data=("components",), paired=False, ok={("components", "nan")}),
    "weight_robustness": Spec(weight_robustness, {"table": TABLE, "B": 50, "seed": 1}, data=("table",), paired=False),
    "profile_rank_stability": Spec(profile_rank_stability, {"table": TABLE, "profiles": PROFILES},
                                   data=("table", "profiles"), paired=False),
    "rate_at_far": Spec(rate_at_far, {"impostor_scores": IMPOSTOR, "pair_scores": PAIRS},
                        data=("impostor_scores", "pair_scores"), paired=False),
    "rate_at_far[omit]": Spec(rate_at_far, {"impostor_scores": IMPOSTOR, "pair_scores": PAIRS, "nan_policy": "omit"},
                              data=("impostor_scores", "pair_scores"), paired=False,
                              ok={("impostor_scores", "nan"), ("pair_scores", "nan")}),
    "boolean_measures": Spec(boolean_measures, {"f": MAJ3, "x": X_BITS}, data=("f", "x"), paired=False),
    "boolean_measures[callable]": Spec(boolean_measures, {"f": lambda b: int(sum(b) >= 2), "x": X_BITS},
                                       data=("f",), paired=False),
}

RESULT_EXAMPLES = {
    "CompositeScore": lambda: composite_score(pd.DataFrame(SCORES, columns=["privacy", "utility", "quality"]),
                                              profile=["balanced", "privacy_first"], B=49, seed=1),
    "WeightRobustness": lambda: weight_robustness(TABLE[:, :2], B=100, seed=1),
    "ProfileRankStability": lambda: profile_rank_stability(TABLE, PROFILES),
    "RateAtFAR": lambda: rate_at_far(IMPOSTOR, PAIRS),
    "BooleanMeasures": lambda: boolean_measures(MAJ3, X_BITS),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUT_SPECS))
def test_bad_input_sweep(name):
    assert sweep_bad_inputs(BAD_INPUT_SPECS[name]) == []


@pytest.mark.parametrize("name", sorted(RESULT_EXAMPLES))
def test_result_protocol(name):
    check_result_protocol(RESULT_EXAMPLES[name]())


@pytest.mark.parametrize("func, kwargs, exc, arg", [
    (power_mean, {"scores": [0.5, 0.6], "p": "x"}, TypeError, "p"),
    (composite_score, {"components": SCORES, "B": 0}, ValueError, "B"),
    (composite_score, {"components": SCORES, "conf_level": 1.5}, ValueError, "conf_level"),
    (composite_score, {"components": SCORES, "profile": 3}, TypeError, "profile"),
    (weight_robustness, {"table": TABLE, "concentration": -1.0}, ValueError, "concentration"),
    (weight_robustness, {"table": TABLE, "seed": -1}, ValueError, "seed"),
    (rate_at_far, {"impostor_scores": IMPOSTOR, "pair_scores": PAIRS, "far": 0.0}, ValueError, "far"),
    (profile_rank_stability, {"table": TABLE, "profiles": 5}, TypeError, "profiles"),
])
def test_option_errors_name_the_argument(func, kwargs, exc, arg):
    with pytest.raises(exc, match=arg):
        func(**kwargs)
