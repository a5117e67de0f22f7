"""n_jobs never changes an answer: every resampling loop given n_jobs by issue 29 (through the
resampling engine or statcore.utils.parallel_map) gives bit-identical results for n_jobs = 1 and 2,
with sizes that make several chunks; and a bad n_jobs or progress is refused, naming the argument."""
import numpy as np
import pytest

import statcore as sc

RNG = np.random.default_rng(29)
X, Y = RNG.normal(size=(2, 120, 3))
Y = Y + 0.15
CASE = RNG.integers(0, 2, 250)
R1 = sc.roc(CASE, RNG.normal(size=250) + CASE)
R2 = sc.roc(CASE, RNG.normal(size=250) + 0.5 * CASE)
TABLE = np.array([[1.0, 2.0], [2.0, 1.5], [3.0, 3.5]])


def _score(model, protocol, idx):
    return float(np.mean(idx) / 25.0 + int(model[-1]) + 0.5 * int(protocol[-1]))


CALLS = {
    "hsic_test": lambda **kw: sc.hsic_test(X[:, 0], Y[:, 0] + X[:, 1], method="permutation", B=1500, seed=1, **kw),
    "dhsic_test": lambda **kw: sc.dhsic_test(X[:, 0], Y[:, 0], X[:, 1], method="bootstrap", B=1500, seed=1, **kw),
    "mmd_test": lambda **kw: sc.mmd_test(X, Y, B=1500, seed=1, **kw),
    "energy_test": lambda **kw: sc.energy_test(X, Y, B=1500, seed=1, **kw),
    "auc_ci": lambda **kw: sc.auc_ci(R1, method="bootstrap", B=2500, seed=1, **kw),
    "roc_test": lambda **kw: sc.roc_test(R1, R2, method="bootstrap", B=2500, seed=1, **kw),
    "frechet_distance": lambda **kw: sc.frechet_distance(X, Y, B=2200, seed=1, **kw),
    "fid_infinity": lambda **kw: sc.fid_infinity(X, Y, ns=[40, 60, 80], reps=3, seed=1, **kw),
    "kid": lambda **kw: sc.kid(X, Y, subsets=40, subset_size=50, seed=1, **kw),
    "rank_stability": lambda **kw: sc.rank_stability(TABLE, score=_score, n_samples=40, B=70, seed=1, **kw),
}


def _numbers(res):
    out = []
    for name in ("p_value", "statistic", "estimate", "distance", "sd", "conf_int", "values", "replicates"):
        v = getattr(res, name, None)
        if v is not None and not isinstance(v, dict):
            out.append(np.asarray(v, dtype=float))
    for key in ("replicates",):
        if hasattr(res, "extras") and key in res.extras:
            out.append(np.asarray(res.extras[key], dtype=float))
    if getattr(res, "swap", None) is not None:
        out.append(res.swap["p_swap"].to_numpy())
    return out


@pytest.mark.parametrize("name", sorted(CALLS))
def test_n_jobs_two_equals_one(name):
    a, b = CALLS[name](n_jobs=1), CALLS[name](n_jobs=2)
    na, nb = _numbers(a), _numbers(b)
    assert na and len(na) == len(nb)
    for u, v in zip(na, nb):
        np.testing.assert_array_equal(u, v)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_bad_n_jobs_and_progress(name):
    with pytest.raises(TypeError, match="n_jobs"):
        CALLS[name](n_jobs=1.5)
    with pytest.raises(ValueError, match="n_jobs"):
        CALLS[name](n_jobs=0)
    with pytest.raises(TypeError, match="progress"):
        CALLS[name](progress="yes")

