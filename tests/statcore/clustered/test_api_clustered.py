"""The API checks of statcore.clustered: the bad-input sweep of every public function and the result
protocol of every result class (see tests/apicheck.py)."""
import numpy as np
import pytest
import statsmodels.api as sm

from apicheck import Spec, check_result_protocol, sweep_bad_inputs
from statcore import cluster_vcov, coef_test, dependent_correlation_test

_rng = np.random.default_rng(5)
G = np.repeat(np.arange(6), 4)
X = sm.add_constant(_rng.normal(size=24))
FIT = sm.OLS(X @ [1.0, 0.5] + _rng.normal(size=6)[G] + _rng.normal(size=24), X).fit()

# cluster labels are labels: text, numbers written as text and ids -1 or 10**9 are valid labels
LABELS_OK = {("cluster", "text"), ("cluster", "numeric_text"), ("cluster", "negative_id"), ("cluster", "huge_id")}

BAD_INPUT_SPECS = {
    "cluster_vcov": Spec(cluster_vcov, {"fit": FIT, "cluster": G, "kind": "CR2"}, data=("fit", "cluster"),
                         paired=False, ok=LABELS_OK),
    "coef_test": Spec(coef_test, {"fit": FIT, "vcov": "CR2", "cluster": G}, data=("fit", "cluster"),
                      paired=False, ok=LABELS_OK),
    "dependent_correlation_test": Spec(dependent_correlation_test, {"r12": 0.4, "r13": 0.2, "r23": 0.5, "n": 103},
                                       data=("r12", "r13", "r23", "n"), paired=False),
}

RESULT_EXAMPLES = {
    "ClusterVcov": lambda: cluster_vcov(FIT, G, kind="CR2"),
    "CoefTest": lambda: coef_test(FIT, vcov="CR2", cluster=G),
}

EXEMPT = {}


@pytest.mark.parametrize("name", sorted(BAD_INPUT_SPECS))
def test_bad_input_sweep(name):
    assert sweep_bad_inputs(BAD_INPUT_SPECS[name]) == []


@pytest.mark.parametrize("name", sorted(RESULT_EXAMPLES))
def test_result_protocol(name):
    check_result_protocol(RESULT_EXAMPLES[name]())


def test_bad_values_named():
    with pytest.raises(ValueError, match="cluster"):
        cluster_vcov(FIT, np.zeros(24))           # one cluster
    with pytest.raises(ValueError, match="cluster"):
        cluster_vcov(FIT, G[:-1])                 # mismatched length
    with pytest.raises(ValueError, match="kind"):
        cluster_vcov(FIT, G, kind="CR9")
    with pytest.raises(ValueError, match="r13"):
        dependent_correlation_test(0.4, -1.5, 0.5, 103)
    with pytest.raises(ValueError, match="n"):
        dependent_correlation_test(0.4, 0.2, 0.5, 2)
