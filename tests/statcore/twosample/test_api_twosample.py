"""statcore.twosample's API: the bad-input sweep of every public function, the result protocol of
every result class, keyword-only arguments and the errors of the brief (different feature dimensions,
n < 2, NaN features, a subset size larger than n)."""
import inspect

import numpy as np
import pandas as pd
import pytest

import apicheck
from statcore import (HTest, energy_test, fid_infinity, frechet_distance, frechet_distance_stats, kid, mmd_test,
                      prdc, rank_stability)

_RNG = np.random.default_rng(21)
X = _RNG.normal(size=(40, 3))
Y = pd.DataFrame(_RNG.normal(0.5, size=(30, 3)), columns=["f1", "f2", "f3"])
BIG_X = _RNG.normal(size=(200, 3))
MU, SIGMA = np.zeros(3), np.eye(3)
TABLE = pd.DataFrame({"p1": [1.0, 2.0, 3.0], "p2": [2.0, 1.0, 3.0]}, index=["a", "b", "c"])
XY = ("x", "y")

BAD_INPUT_SPECS = {
    "frechet_distance": apicheck.Spec(frechet_distance, {"x": X, "y": Y}, data=XY, paired=False),
    "frechet_distance[boot]": apicheck.Spec(frechet_distance, {"x": X, "y": Y, "B": 5, "seed": 0}, data=XY,
                                            paired=False),
    "frechet_distance_stats": apicheck.Spec(frechet_distance_stats, {"mu1": MU, "sigma1": SIGMA, "mu2": MU + 1,
                                                                     "sigma2": 2 * SIGMA},
                                            data=("mu1", "sigma1", "mu2", "sigma2"), paired=False),
    "fid_infinity": apicheck.Spec(fid_infinity, {"x": BIG_X, "y": Y, "ns": [50, 100, 150], "seed": 0}, data=XY,
                                  paired=False),
    "kid": apicheck.Spec(kid, {"x": X, "y": Y, "subsets": 3, "subset_size": 20, "seed": 0}, data=XY, paired=False),
    "mmd_test": apicheck.Spec(mmd_test, {"x": X, "y": Y, "B": 19, "seed": 0}, data=XY, paired=False),
    "energy_test": apicheck.Spec(energy_test, {"x": X, "y": Y, "B": 19, "seed": 0}, data=XY, paired=False),
    "prdc": apicheck.Spec(prdc, {"x": X, "y": Y, "k": 3}, data=XY, paired=False),
    "rank_stability": apicheck.Spec(rank_stability, {"scores": TABLE}, data=("scores",), paired=False),
}


def _score(model, protocol, idx):
    return float(TABLE.loc[model, protocol] + np.mean(idx) / 100)


RESULT_EXAMPLES = {
    "FrechetResult": lambda: frechet_distance(X, Y, B=20, seed=1),
    "FIDInfinityResult": lambda: fid_infinity(BIG_X, Y, ns=[50, 100, 150, 200], seed=1),
    "KIDResult": lambda: kid(X, Y, subsets=4, subset_size=20, seed=1),
    "PRDCResult": lambda: prdc(X, Y, k=3),
    "RankStabilityResult": lambda: rank_stability(TABLE, score=_score, n_samples=10, B=20, seed=1),
}

HTEST_EXAMPLES = {
    "mmd_test": lambda: mmd_test(X, Y, B=19, seed=1),
    "mmd_test[polynomial]": lambda: mmd_test(X, Y, kernel="polynomial", B=19, seed=1),
    "energy_test": lambda: energy_test(X, Y, B=19, seed=1),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUT_SPECS))
def test_bad_inputs(name):
    assert apicheck.sweep_bad_inputs(BAD_INPUT_SPECS[name]) == []


@pytest.mark.parametrize("name", sorted(RESULT_EXAMPLES))
def test_result_protocol(name):
    res = RESULT_EXAMPLES[name]()
    assert type(res).__name__ == name
    apicheck.check_result_protocol(res)


@pytest.mark.parametrize("name", sorted(HTEST_EXAMPLES))
def test_htest_protocol(name):
    res = HTEST_EXAMPLES[name]()
    assert isinstance(res, HTest)
    apicheck.check_result_protocol(res)
    assert not res.extras["replicates"].flags.writeable


@pytest.mark.parametrize("func", [frechet_distance, fid_infinity, kid, mmd_test, energy_test, prdc])
def test_keyword_only_after_the_data(func):
    params = list(inspect.signature(func).parameters.values())
    assert [p.name for p in params if p.kind is p.POSITIONAL_OR_KEYWORD] == ["x", "y"]
    assert all(p.kind is p.KEYWORD_ONLY for p in params[2:])


@pytest.mark.parametrize("func, kwargs", [
    (frechet_distance, {}), (kid, {"subset_size": 10}), (mmd_test, {"B": 9}), (energy_test, {"B": 9}),
    (prdc, {"k": 3}), (fid_infinity, {"ns": [10, 20, 30]}),
])
def test_brief_errors(func, kwargs):
    with pytest.raises(ValueError, match="same number of features"):
        func(X, X[:, :2], **kwargs)
    with pytest.raises(ValueError, match="NaN"):
        bad = X.copy()
        bad[3, 1] = np.nan
        func(bad, Y, **kwargs)
    if func is not energy_test:  # R's eqdist.etest accepts a sample of one observation
        with pytest.raises(ValueError, match="y"):
            func(X, Y.iloc[:1], **kwargs)


def test_subset_size_larger_than_n():
    with pytest.raises(ValueError, match="subset_size=31 is larger than the smaller sample"):
        kid(X, Y, subset_size=31)


@pytest.mark.parametrize("kwargs, arg", [
    ({"B": -1}, "B"), ({"method": "sqrtm"}, "method"), ({"ci": "bca"}, "ci"),
    ({"B": 5, "conf_level": 1.5}, "conf_level"), ({"B": 5, "seed": -1}, "seed"),
])
def test_frechet_arguments_name_themselves(kwargs, arg):
    with pytest.raises((ValueError, TypeError), match=arg):
        frechet_distance(X, Y, **kwargs)


def test_other_arguments_name_themselves():
    with pytest.raises(ValueError, match="kernel"):
        mmd_test(X, Y, kernel="rbf")
    with pytest.raises(ValueError, match="bandwidth"):
        mmd_test(X, Y, bandwidth=-1.0)
    with pytest.raises(ValueError, match="k=30"):
        prdc(X, Y, k=30)
    with pytest.raises(ValueError, match="ns"):
        fid_infinity(BIG_X, Y, ns=[50, 50])
    with pytest.raises(ValueError, match="ns"):
        fid_infinity(BIG_X, Y, ns=[50, 500])
    with pytest.raises(ValueError, match="three fitted points"):
        fid_infinity(BIG_X, Y, ns=[50, 100])
    with pytest.raises(ValueError, match="sigma1"):
        frechet_distance_stats(MU, np.ones((3, 2)), MU, SIGMA)
    with pytest.raises(ValueError, match="sigma2 must be symmetric"):
        frechet_distance_stats(MU, SIGMA, MU, np.triu(np.ones((3, 3))))
    with pytest.raises(ValueError, match="mu2"):
        frechet_distance_stats(MU, SIGMA, np.zeros(2), np.eye(2))
    with pytest.raises(ValueError, match="n_samples"):
        rank_stability(TABLE, score=_score)
    with pytest.raises(TypeError, match="score"):
        rank_stability(TABLE, score=3, n_samples=5)
    with pytest.raises(ValueError, match="scores"):
        rank_stability(TABLE[["p1"]])


def test_inputs_are_not_modified_and_frames_accepted():
    x = pd.DataFrame(X)
    before = x.copy()
    a = frechet_distance(x, Y)
    assert x.equals(before)
    assert a.distance == pytest.approx(frechet_distance(X, Y.to_numpy()).distance, rel=1e-14)
