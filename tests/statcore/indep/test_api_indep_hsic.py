"""The HSIC family's API: the bad-input sweep of every public function (no new result class: the tests
return HTest), keyword-only arguments and the HTest protocol of their results."""
import inspect

import numpy as np
import pandas as pd
import pytest

import apicheck
from statcore import HTest, dhsic, dhsic_test, hsic, hsic_test

_RNG = np.random.default_rng(23)
X = _RNG.normal(size=(30, 2))
Y = pd.Series(np.cos(X[:, 0]) + _RNG.normal(size=30), name="y")
Z = _RNG.integers(0, 3, size=30).astype(float)
XY = ("x", "y")
V3 = ("variables[0]", "variables[1]", "variables[2]")


def dhsic3(**kwargs):
    """dhsic(*variables) with its three data arguments by the names its errors give them."""
    data = [kwargs.pop(v) for v in V3]
    return dhsic(*data, **kwargs)


def dhsic_test3(**kwargs):
    """dhsic_test(*variables) with its three data arguments by the names its errors give them."""
    data = [kwargs.pop(v) for v in V3]
    return dhsic_test(*data, **kwargs)


_V = {"variables[0]": X, "variables[1]": Y, "variables[2]": Z}

BAD_INPUT_SPECS = {
    "hsic": apicheck.Spec(hsic, {"x": X, "y": Y}, data=XY),
    "hsic[unbiased]": apicheck.Spec(hsic, {"x": X, "y": Y, "estimator": "unbiased", "kernel": "laplace"}, data=XY),
    "hsic_test": apicheck.Spec(hsic_test, {"x": X, "y": Y}, data=XY),
    "hsic_test[permutation]": apicheck.Spec(hsic_test, {"x": X, "y": Y, "method": "permutation", "B": 19, "seed": 0},
                                            data=XY),
    "hsic_test[rff]": apicheck.Spec(hsic_test, {"x": X, "y": Y, "approx": "rff", "n_features": 10, "seed": 0},
                                    data=XY),
    "hsic_test[nystrom]": apicheck.Spec(hsic_test, {"x": X, "y": Y, "approx": "nystrom", "n_features": 10,
                                                    "method": "spectral", "seed": 0}, data=XY),
    "dhsic": apicheck.Spec(dhsic3, {**_V, "kernel": ["gaussian", "laplace", "discrete"]}, data=V3),
    "dhsic_test": apicheck.Spec(dhsic_test3, dict(_V), data=V3),
    "dhsic_test[bootstrap]": apicheck.Spec(dhsic_test3, {**_V, "method": "bootstrap", "B": 19, "seed": 0}, data=V3),
}

#: HTest's protocol example is registered with the core API tests; these are the HTests of this module
HTEST_EXAMPLES = {
    "hsic_test": lambda: hsic_test(X, Y),
    "hsic_test[permutation]": lambda: hsic_test(X, Y, method="permutation", B=19, seed=1),
    "hsic_test[rff]": lambda: hsic_test(X, Y, approx="rff", n_features=10, seed=1),
    "hsic_test[nystrom]": lambda: hsic_test(X, Y, approx="nystrom", n_features=10, method="spectral", seed=1),
    "dhsic_test": lambda: dhsic_test(X, Y, Z),
    "dhsic_test[permutation]": lambda: dhsic_test(X, Y, Z, method="permutation", B=19, seed=1),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUT_SPECS))
def test_bad_inputs(name):
    assert apicheck.sweep_bad_inputs(BAD_INPUT_SPECS[name]) == []


@pytest.mark.parametrize("name", sorted(HTEST_EXAMPLES))
def test_htest_protocol(name):
    res = HTEST_EXAMPLES[name]()
    assert isinstance(res, HTest)
    apicheck.check_result_protocol(res)
    stat, p = res
    assert stat == res.statistic and p == res.pvalue
    assert 0 <= res.p_value <= 1 and res.statistic >= 0
    for key in ("replicates", "eigen_x", "eigen_y"):
        if key in res.extras:
            assert not res.extras[key].flags.writeable


@pytest.mark.parametrize("func", [hsic, hsic_test, dhsic, dhsic_test])
def test_keyword_only_after_the_data(func):
    params = inspect.signature(func).parameters.values()
    data = [p for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)]
    rest = [p for p in params if p not in data]
    assert all(p.kind is p.KEYWORD_ONLY for p in rest)
    assert [p.name for p in data] in (["x", "y"], ["variables"])


def test_inputs_are_not_modified():
    x, y = X.copy(), Y.copy()
    x[2, 0] = np.nan
    xs = x.copy()
    hsic_test(x, y, nan_policy="omit", method="permutation", B=9, seed=0)
    dhsic_test(x, y, Z, nan_policy="omit")
    np.testing.assert_array_equal(x, xs)
    pd.testing.assert_series_equal(y, Y)
