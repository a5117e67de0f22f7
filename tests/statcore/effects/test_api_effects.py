"""The API checks of statcore.effects: the bad-input sweep of every public function and the result
protocol of every result class (see tests/apicheck.py)."""
import numpy as np
import pytest

from apicheck import Spec, check_result_protocol, sweep_bad_inputs
from statcore.effects import (bland_altman, ccc, coef_ratio_ci, icc, mcnemar_test, paired_prop_ci, pass_at_k,
                              pass_at_k_ci, proportion_ci, ratio_ci, tost, within_tolerance)

_R = np.random.default_rng(0)
A = _R.normal(5.0, 1.0, 12)
B = _R.normal(2.5, 0.5, 12) + 0.1 * A
PARAMS = np.array([0.8, 2.5, -1.0])
COV = np.array([[0.04, 0.01, 0.0], [0.01, 0.09, 0.02], [0.0, 0.02, 0.5]])
TAB = np.array([[794, 86], [150, 570]])
PX = np.array([0, 1, 1, 0, 1, 1, 0, 1, 0, 0, 1, 1])
PY = np.array([0, 1, 0, 0, 1, 1, 1, 1, 0, 1, 0, 1])
XS = np.array([0, 3, 7, 10])
NS = np.array([10, 10, 12, 10])
RATINGS = np.array([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]], float)
ERR = _R.normal(0, 1, 30)
IMG = _R.normal(0, 1, (16, 16))

# a count of 10**9 is a valid count (huge_id succeeds); counts are whole numbers: 1e300 (beyond exact counts) and all values times 1e-300 (not whole) are refused,
# which the sweep accepts as errors naming the argument; -1 and 10**9 are refused as counts too
BAD_INPUT_SPECS = {
    "ratio_ci": Spec(ratio_ci, {"a": A, "b": B}, data=("a", "b")),
    "ratio_ci[independent]": Spec(ratio_ci, {"a": A, "b": B[:9], "paired": False}, data=("a", "b"), paired=False),
    "ratio_ci[delta]": Spec(ratio_ci, {"a": A, "b": B, "method": "delta"}, data=("a", "b")),
    "coef_ratio_ci": Spec(coef_ratio_ci, {"params": PARAMS, "cov": COV, "i": 0, "j": 1}, data=("params", "cov"),
                          paired=False),
    "mcnemar_test": Spec(mcnemar_test, {"x": TAB}, data=("x",), paired=False, ok={("x", "huge_id")}),
    "mcnemar_test[vectors]": Spec(mcnemar_test, {"x": PX, "y": PY}, data=("x", "y"),
                                  kinds=("empty", "nan", "inf", "wrong_ndim", "short", "string", "none")),
    "paired_prop_ci": Spec(paired_prop_ci, {"x": TAB}, data=("x",), paired=False, ok={("x", "huge_id")}),
    "proportion_ci": Spec(proportion_ci, {"x": XS, "n": NS}, data=("x", "n"), paired=False,
                          ok={("x", "wrong_ndim"), ("n", "wrong_ndim"), ("n", "huge_id")}),
    "pass_at_k": Spec(pass_at_k, {"n": NS, "c": XS, "k": 2}, data=("n", "c"), paired=False, ok={("n", "huge_id")}),
    "pass_at_k_ci": Spec(pass_at_k_ci, {"n": NS, "c": XS, "k": 2, "B": 199, "seed": 0}, data=("n", "c"),
                         paired=False, ok={("n", "huge_id")}),
    "bland_altman": Spec(bland_altman, {"a": A, "b": B}, data=("a", "b")),
    "ccc": Spec(ccc, {"a": A, "b": B}, data=("a", "b")),
    "icc": Spec(icc, {"ratings": RATINGS}, data=("ratings",), paired=False),
    # y=None is the documented one-sample TOST
    "tost": Spec(tost, {"x": A, "y": B[:10], "margin": 3.0}, data=("x", "y"), paired=False, ok={("y", "none")}),
    "tost[paired]": Spec(tost, {"x": A, "y": B, "margin": 3.0, "paired": True}, data=("x", "y")),
    "within_tolerance": Spec(within_tolerance, {"error": ERR, "tau": 1.0}, data=("error",), paired=False,
                             ok={("error", "wrong_ndim")}),
    "within_tolerance[block]": Spec(within_tolerance, {"error": IMG, "tau": 1.0, "block": (4, 4), "B": 99, "seed": 1},
                                    data=("error",), paired=False),
}

RESULT_EXAMPLES = {
    "RatioCI": lambda: ratio_ci(A, B),
    "ProportionCI": lambda: proportion_ci(XS, NS),
    "PairedPropCI": lambda: paired_prop_ci(TAB),
    "PassAtK": lambda: pass_at_k_ci(NS, XS, 2, B=199, seed=0),
    "BlandAltman": lambda: bland_altman(A, B),
    "CCC": lambda: ccc(A, B),
    "ICC": lambda: icc(RATINGS),
    "WithinTolerance": lambda: within_tolerance(ERR, 1.0),
}

EXEMPT = {}


@pytest.mark.parametrize("name", sorted(BAD_INPUT_SPECS))
def test_bad_input_sweep(name):
    assert sweep_bad_inputs(BAD_INPUT_SPECS[name]) == []


@pytest.mark.parametrize("name", sorted(RESULT_EXAMPLES))
def test_result_protocol(name):
    check_result_protocol(RESULT_EXAMPLES[name]())


def test_other_result_shapes_follow_the_protocol():
    check_result_protocol(ratio_ci(A, B, method="bootstrap", B=199, seed=0))
    check_result_protocol(ratio_ci([1.0, -0.5, 2.0, 0.3], [0.2, -0.4, 0.1, 0.05]))
    check_result_protocol(proportion_ci(3, 10))
    check_result_protocol(within_tolerance(IMG, 1.0, block=(4, 4), B=99, seed=1))
    check_result_protocol(mcnemar_test(TAB, exact=True))
    check_result_protocol(tost(A, B, margin=3.0, paired=True))
