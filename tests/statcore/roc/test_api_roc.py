"""statcore._roc's API: the bad-input sweep of every public function, the result protocol of every
result class, keyword-only arguments, and the errors that name their argument."""
import inspect

import numpy as np
import pandas as pd
import pytest

import apicheck
from statcore import (AUCInterval, CalibrationResult, HTest, RiskCoverageResult, ROCCurve, ROCTest, auc, auc_ci,
                      auprc, calibration_error, prediction_rejection_ratio, risk_coverage, roc, roc_test)

_RNG = np.random.default_rng(17)
Y = np.repeat([0.0, 1.0], 20)
S = pd.Series(np.round(_RNG.normal(size=40) + Y, 1), name="marker")
S2 = np.round(_RNG.normal(size=40) + 0.5 * Y, 1)
R1 = roc(Y, S)
R2 = roc(Y, S2)
P = np.clip(_RNG.uniform(size=40), 0, 1)
LOSS = _RNG.integers(0, 2, 40).astype(float)

BAD_INPUT_SPECS = {
    # text labels in y are pROC's factor response: two levels, read as (control, case) like R ("0", "1" too)
    "roc": apicheck.Spec(roc, {"y": Y, "score": S}, data=("y", "score"), ok={("y", "text"), ("y", "numeric_text")}),
    "roc[partial]": apicheck.Spec(roc, {"y": Y, "score": S, "partial_auc": (1, 0.8)}, data=("y", "score"),
                                  ok={("y", "text"), ("y", "numeric_text")}),
    "auc": apicheck.Spec(auc, {"roc": R1}, data=("roc",)),
    "auc_ci": apicheck.Spec(auc_ci, {"roc": R1}, data=("roc",)),
    "auc_ci[bootstrap]": apicheck.Spec(auc_ci, {"roc": R1, "method": "bootstrap", "B": 20, "seed": 0},
                                       data=("roc",)),
    "roc_test": apicheck.Spec(roc_test, {"roc1": R1, "roc2": R2}, data=("roc1", "roc2")),
    "roc_test[venkatraman]": apicheck.Spec(roc_test, {"roc1": R1, "roc2": R2, "paired": False,
                                                      "method": "venkatraman", "B": 20, "seed": 0},
                                           data=("roc1", "roc2")),
    "roc_test[bootstrap]": apicheck.Spec(roc_test, {"roc1": R1, "roc2": R2, "method": "bootstrap", "B": 20,
                                                    "seed": 0}, data=("roc1", "roc2")),
    "auprc": apicheck.Spec(auprc, {"y": Y, "score": S}, data=("y", "score"), ok={("y", "text"), ("y", "numeric_text")}),  # labels
    "prediction_rejection_ratio": apicheck.Spec(prediction_rejection_ratio, {"loss": LOSS, "uncertainty": P},
                                                data=("loss", "uncertainty")),
    "risk_coverage": apicheck.Spec(risk_coverage, {"loss": LOSS, "uncertainty": P}, data=("loss", "uncertainty")),
    "calibration_error": apicheck.Spec(calibration_error, {"y": LOSS, "prob": P, "n_bins": 5}, data=("y", "prob")),
}

RESULT_EXAMPLES = {
    "ROCCurve": lambda: roc(Y, S),
    "AUCInterval": lambda: auc_ci(R1, method="bootstrap", B=50, seed=1),
    "ROCTest": lambda: roc_test(R1, R2),
    "CalibrationResult": lambda: calibration_error(LOSS, P, n_bins=5),
    "RiskCoverageResult": lambda: risk_coverage(LOSS, P),
}

HTEST_EXAMPLES = {
    "delong": lambda: roc_test(R1, R2),
    "delong[unpaired]": lambda: roc_test(R1, R2, paired=False),
    "bootstrap": lambda: roc_test(R1, R2, method="bootstrap", B=50, seed=1),
    "venkatraman": lambda: roc_test(R1, R2, method="venkatraman", B=50, seed=1),
    "venkatraman[unpaired]": lambda: roc_test(R1, roc(Y[5:], S2[5:]), paired=False, method="venkatraman", B=50,
                                              seed=1),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUT_SPECS))
def test_bad_inputs(name):
    assert apicheck.sweep_bad_inputs(BAD_INPUT_SPECS[name]) == []


@pytest.mark.parametrize("name", sorted(RESULT_EXAMPLES))
def test_result_protocol(name):
    apicheck.check_result_protocol(RESULT_EXAMPLES[name]())


def test_delong_interval_protocol():
    apicheck.check_result_protocol(auc_ci(R1))


@pytest.mark.parametrize("name", sorted(HTEST_EXAMPLES))
def test_htest_protocol(name):
    res = HTEST_EXAMPLES[name]()
    assert isinstance(res, HTest)
    apicheck.check_result_protocol(res)
    stat, p = res
    assert stat == res.statistic and p == res.pvalue and 0 <= p <= 1


@pytest.mark.parametrize("func, n_data", [(roc, 2), (auc, 1), (auc_ci, 1), (roc_test, 2), (auprc, 2),
                                          (prediction_rejection_ratio, 2), (risk_coverage, 2),
                                          (calibration_error, 2)])
def test_keyword_only_after_the_data(func, n_data):
    params = list(inspect.signature(func).parameters.values())
    assert all(p.kind is p.POSITIONAL_OR_KEYWORD for p in params[:n_data])
    assert all(p.kind is p.KEYWORD_ONLY for p in params[n_data:])


@pytest.mark.parametrize("call, arg", [
    (lambda: roc([0, 1, 2, 1], [1, 2, 3, 4]), "y"),                    # labels not binary
    (lambda: roc([1, 1, 1], [1, 2, 3]), "y"),                          # one class only
    (lambda: roc([0, 1, 0, 1], [1, np.nan, 3, 4]), "score"),           # NaN score
    (lambda: roc([0, 1, 0, 1], [1, 2, 3, 4], direction="up"), "direction"),
    (lambda: roc([0, 1, 0, 1], [1, 2, 3, 4], levels=(0, 2)), "levels"),
    (lambda: roc([0, 1, 2, 1], [1, 2, 3, 4], levels=(0, 1)), "y"),     # labels outside levels
    (lambda: roc([0, 1, 0, 1], [1, 2, 3, 4], nan_policy="propagate"), "nan_policy"),
    (lambda: roc([0, 1, 0, 1], [1, 2, 3, 4], partial_auc=(1, 2)), "partial_auc"),
    (lambda: roc([0, 1, 0, 1], [1, 2, 3, 4], partial_auc=(1, 1)), "partial_auc"),
    (lambda: roc([0, 1, 0, 1], [1, 2, 3, 4], partial_auc_focus="fpr"), "partial_auc_focus"),
    (lambda: auc_ci(R1, method="wald"), "method"),
    (lambda: auc_ci(R1, conf_level=95), "conf_level"),
    (lambda: auc_ci(R1, method="bootstrap", B=1), "B"),
    (lambda: auc_ci(R1, method="bootstrap", seed=-1), "seed"),
    (lambda: auc_ci(roc([0, 1, 1], [1, 2, 3])), "2 cases and 2 controls"),
    (lambda: roc_test(R1, R2, alternative="two-sided"), "alternative"),
    (lambda: roc_test(R1, R2, paired="yes"), "paired"),
    (lambda: roc_test(R1, "roc"), "roc2"),
    (lambda: calibration_error([0, 1], [0.2, 1.2]), "prob"),
    (lambda: calibration_error([0, 2], [0.2, 0.3]), "y"),
    (lambda: calibration_error([0, 1], [0.2, 0.3], strategy="kmeans"), "strategy"),
    (lambda: risk_coverage([-1, 0], [0.2, 0.3]), "loss"),
])
def test_errors_name_their_argument(call, arg):
    with pytest.raises((ValueError, TypeError), match=arg):
        call()


def test_inputs_not_modified_and_results_immutable():
    y = Y.copy()
    s = S.copy()
    r = roc(y, s)
    assert np.array_equal(y, Y) and s.equals(S)
    with pytest.raises(Exception):
        r.auc = 0.5
    assert not r.sensitivities.flags.writeable
    assert isinstance(r, ROCCurve) and isinstance(auc_ci(r), AUCInterval) and isinstance(roc_test(r, R2), ROCTest)
    assert isinstance(calibration_error(LOSS, P), CalibrationResult)
    assert isinstance(risk_coverage(LOSS, P), RiskCoverageResult)
