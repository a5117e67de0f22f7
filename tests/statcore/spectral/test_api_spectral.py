"""The API checks of statcore.spectral: the bad-input sweep of every public function and the result
protocol of its result class (see tests/apicheck.py)."""
import numpy as np
import pytest

from apicheck import Spec, check_result_protocol, sweep_bad_inputs
from statcore.spectral import (effective_rank, effective_rank_ci, explained_variance, feature_correlation,
                               feature_correlation_ci, linear_cka, linear_cka_ci, participation_ratio,
                               participation_ratio_ci, twonn_dimension, twonn_dimension_ci)

_rng = np.random.default_rng(34)
X = _rng.normal(size=(40, 5)) @ _rng.normal(size=(5, 5))
Y = X[:, :3] + _rng.normal(size=(40, 3))
SPECTRUM = np.array([3.0, 2.0, 0.5, 0.1])
CI = {"B": 19, "seed": 1}

BAD_INPUT_SPECS = {
    "explained_variance": Spec(explained_variance, {"X": X}, data=("X",), paired=False),
    "participation_ratio": Spec(participation_ratio, {"X": X}, data=("X",), paired=False),
    # a one-dimensional X is a spectrum of eigenvalues
    "participation_ratio[spectrum]": Spec(participation_ratio, {"X": SPECTRUM}, data=("X",), paired=False),
    "participation_ratio_ci": Spec(participation_ratio_ci, {"X": X, **CI}, data=("X",), paired=False),
    "effective_rank": Spec(effective_rank, {"X": X}, data=("X",), paired=False),
    "effective_rank_ci": Spec(effective_rank_ci, {"X": X, **CI}, data=("X",), paired=False),
    "feature_correlation": Spec(feature_correlation, {"X": X}, data=("X",), paired=False),
    "feature_correlation_ci": Spec(feature_correlation_ci, {"X": X, **CI}, data=("X",), paired=False),
    "linear_cka": Spec(linear_cka, {"X": X, "Y": Y}, data=("X", "Y")),
    "linear_cka[debiased]": Spec(linear_cka, {"X": X, "Y": Y, "debiased": True}, data=("X", "Y")),
    "linear_cka_ci": Spec(linear_cka_ci, {"X": X, "Y": Y, **CI}, data=("X", "Y")),
    "twonn_dimension": Spec(twonn_dimension, {"X": X}, data=("X",), paired=False),
    "twonn_dimension_ci": Spec(twonn_dimension_ci, {"X": X, **CI}, data=("X",), paired=False),
    "linear_cka[omit]": Spec(linear_cka, {"X": X, "Y": Y, "nan_policy": "omit"}, data=("X", "Y"),
                             ok={("X", "nan"), ("Y", "nan")}),
}

RESULT_EXAMPLES = {
    "ExplainedVariance": lambda: explained_variance(X),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUT_SPECS))
def test_bad_input_sweep(name):
    assert sweep_bad_inputs(BAD_INPUT_SPECS[name]) == []


@pytest.mark.parametrize("name", sorted(RESULT_EXAMPLES))
def test_result_protocol(name):
    check_result_protocol(RESULT_EXAMPLES[name]())


@pytest.mark.parametrize("arg, value, exc", [("center", "yes", TypeError), ("discard", -0.1, ValueError),
                                             ("method", "ols", ValueError), ("B", 0, ValueError),
                                             ("conf_level", 1.5, ValueError), ("ci", "bca2", ValueError),
                                             ("debiased", 1.5, TypeError)])
def test_option_errors_name_the_argument(arg, value, exc):
    func = {"center": participation_ratio, "discard": twonn_dimension, "method": twonn_dimension,
            "B": effective_rank_ci, "conf_level": effective_rank_ci, "ci": twonn_dimension_ci,
            "debiased": linear_cka}[arg]
    args = (X, Y) if func is linear_cka else (X,)
    with pytest.raises(exc, match=arg):
        func(*args, **{arg: value})
