"""The API checks of statcore.knockoffs: the bad-input sweep of every public function and the result
protocol of every result class (see tests/apicheck.py)."""
import numpy as np
import pytest

from apicheck import Spec, check_result_protocol, sweep_bad_inputs
from statcore.knockoffs import knockoff_filter, knockoff_s, knockoffs_fixed_x, knockoffs_gaussian

SIGMA = 0.5 ** np.abs(np.subtract.outer(np.arange(4), np.arange(4)))
X = np.random.default_rng(0).standard_normal((24, 4)) @ np.linalg.cholesky(SIGMA).T
Y = X @ np.array([2.0, 0.0, -2.0, 0.0]) + np.random.default_rng(1).standard_normal(24)
MU = np.zeros(4)

BAD_INPUT_SPECS = {
    "knockoff_s": Spec(knockoff_s, {"Sigma": SIGMA, "method": "equi"}, data=("Sigma",), paired=False),
    "knockoffs_fixed_x": Spec(knockoffs_fixed_x, {"X": X, "method": "equi", "seed": 1}, data=("X",), paired=False),
    "knockoffs_gaussian": Spec(knockoffs_gaussian, {"X": X, "mu": MU, "Sigma": SIGMA, "method": "equi", "seed": 1},
                               data=("X", "mu", "Sigma"), paired=False),
    "knockoff_filter": Spec(knockoff_filter, {"X": X, "y": Y, "knockoffs": "fixed", "statistic": "ols_coefdiff",
                                              "method": "equi", "fdr": 0.2, "seed": 1}, data=("X", "y")),
}

RESULT_EXAMPLES = {
    "KnockoffS": lambda: knockoff_s(SIGMA, method="sdp"),
    "KnockoffVariables": lambda: knockoffs_gaussian(X, mu=MU, Sigma=SIGMA, method="equi", seed=1),
    "KnockoffResult": lambda: knockoff_filter(X, Y, knockoffs="fixed", statistic="ols_coefdiff", method="equi",
                                              fdr=0.5, offset=0, seed=1, keep_knockoffs=True),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUT_SPECS))
def test_bad_input_sweep(name):
    assert sweep_bad_inputs(BAD_INPUT_SPECS[name]) == []


@pytest.mark.parametrize("name", sorted(RESULT_EXAMPLES))
def test_result_protocol(name):
    check_result_protocol(RESULT_EXAMPLES[name]())


def test_derandomized_result_protocol():
    check_result_protocol(knockoff_filter(X, Y, knockoffs="gaussian", mu=MU, Sigma=SIGMA, method="equi",
                                          statistic="marginal", fdr=0.5, derandomize=3, seed=2))
