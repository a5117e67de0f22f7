"""The distance covariance family's API: the bad-input sweep of every public function (no new result
class: the tests return HTest), keyword-only arguments and the HTest protocol of their results."""
import inspect

import numpy as np
import pandas as pd
import pytest

import apicheck
from statcore import HTest, dcor, dcor_test, dcor_u, dcov, dcov_test, dcov_u, pdcor, pdcor_test, pdcov

_RNG = np.random.default_rng(17)
X = _RNG.normal(size=(30, 2))
Y = pd.Series(X[:, 0] ** 2 + _RNG.normal(size=30), name="y")
Z = _RNG.normal(size=30)
XY = ("x", "y")
XYZ = ("x", "y", "z")

BAD_INPUT_SPECS = {
    "dcov": apicheck.Spec(dcov, {"x": X, "y": Y}, data=XY),
    "dcor": apicheck.Spec(dcor, {"x": X, "y": Y, "index": 0.5}, data=XY),
    "dcor[fast]": apicheck.Spec(dcor, {"x": X[:, 0], "y": Y}, data=XY),
    "dcov_u": apicheck.Spec(dcov_u, {"x": X, "y": Y}, data=XY),
    "dcor_u": apicheck.Spec(dcor_u, {"x": X, "y": Y}, data=XY),
    "pdcov": apicheck.Spec(pdcov, {"x": X, "y": Y, "z": Z}, data=XYZ),
    "pdcor": apicheck.Spec(pdcor, {"x": X, "y": Y, "z": Z}, data=XYZ),
    "dcor_test": apicheck.Spec(dcor_test, {"x": X, "y": Y, "B": 19, "seed": 0}, data=XY),
    "dcor_test[t]": apicheck.Spec(dcor_test, {"x": X, "y": Y, "method": "t"}, data=XY),
    "dcor_test[fast]": apicheck.Spec(dcor_test, {"x": X[:, 0], "y": Y, "B": 19, "seed": 0}, data=XY),
    "dcov_test": apicheck.Spec(dcov_test, {"x": X, "y": Y, "B": 19, "seed": 0}, data=XY),
    "pdcor_test": apicheck.Spec(pdcor_test, {"x": X, "y": Y, "z": Z, "B": 19, "seed": 0}, data=XYZ),
}

#: HTest's protocol example is registered with the core API tests; these are the HTests of this module
HTEST_EXAMPLES = {
    "dcor_test": lambda: dcor_test(X, Y, B=19, seed=1),
    "dcor_test[t]": lambda: dcor_test(X, Y, method="t"),
    "dcov_test": lambda: dcov_test(X, Y, B=19, seed=1),
    "pdcor_test": lambda: pdcor_test(X, Y, Z, B=19, seed=1),
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
    if "replicates" in res.extras:
        assert not res.extras["replicates"].flags.writeable


@pytest.mark.parametrize("func", [dcov, dcor, dcov_u, dcor_u, pdcov, pdcor, dcor_test, dcov_test, pdcor_test])
def test_keyword_only_after_the_data(func):
    params = list(inspect.signature(func).parameters.values())
    data = [p.name for p in params if p.kind is p.POSITIONAL_OR_KEYWORD]
    assert data in (["x", "y"], ["x", "y", "z"])
    assert all(p.kind is p.KEYWORD_ONLY for p in params[len(data):])
    with pytest.raises(TypeError):
        func(X, Y, Z, 1.0) if len(data) == 3 else func(X, Y, 1.0)


@pytest.mark.parametrize("kwargs, arg", [
    ({"index": 2.0}, "index"), ({"index": "a"}, "index"), ({"B": 0}, "B"), ({"seed": -1}, "seed"),
    ({"n_jobs": 0}, "n_jobs"), ({"nan_policy": "propagate"}, "nan_policy"), ({"method": "exact"}, "method"),
])
def test_bad_arguments_name_themselves(kwargs, arg):
    with pytest.raises((ValueError, TypeError), match=arg):
        dcor_test(X, Y, **kwargs)
