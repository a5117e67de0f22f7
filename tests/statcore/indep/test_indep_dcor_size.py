"""Size of the distance covariance tests under independence (seeded Monte Carlo, 600 replicates a
cell): the rejection rate at alpha = 0.05 must lie within 0.05 +- 3 Monte Carlo standard errors.

Sized to detect a size of twice the level or a fifth of it: with 600 replicates the band is
[0.023, 0.077]; a true size of 0.10 lies above it with probability 0.97 and one of 0.01 below it with
probability 0.997 (the t-test's 0.065-0.07 in low dimension would need about 3000: that study
is benchmarks/size_indep_dcor.py's).

Designs: Gaussian, Student t with 2 degrees of freedom (infinite variance) and discrete with ties
(four values), x, y (and z) drawn independently; n in {30, 200, 1000}.

- dcor_test, permutations: univariate samples (the O(n log n) path), B = 99, n = 30, 200, 1000.
  With B + 1 = 100 a permutation p-value is <= 0.05 exactly when the observed dCor is among the 5
  largest of the 100 values, so the size is 0.05 by exchangeability: the cells check the machinery.
- pdcor_test: univariate x, y, z, B = 99, n = 30 and 200.
- dcor_test(method="t"): the t-test of Szekely & Rizzo (2013) is derived for high dimension, so the
  cells use p = q = 30 (where the paper promises the t null), n = 30 and 200.

Left to ``benchmarks/size_indep_dcor.py`` (which prints the full table, these cells included):
pdcor_test at n = 1000 (B = 19: every permutation is an O(n^2) pass over two n x n matrices, about
0.05-0.1 s a replicate) and the t-test at n = 1000 in dimension 30 (an O(n^2 p) statistic), which do
not fit this file's budget; and the t-test in low dimension, where it is loose: its size is about
0.065-0.07 for univariate samples at every n (the null of the U-statistic is then a weighted
chi-square mixture, not a t) and about 0.06 at p = q = 5 (see dcor_test's docstring).

Budget: about 60 s of CPU on an idle core (all cells run single-threaded).
"""
import numpy as np
import pytest

from statcore import dcor_test, pdcor_test
from statcore.testing import assert_size

ALPHA = 0.05
REPS = 600
DESIGNS = ("gaussian", "t2", "discrete")
TESTS = ("permutation", "t", "pdcor")
SEED = 20240615


def draw(design: str, n: int, d: int, k: int, rng: np.random.Generator) -> list[np.ndarray]:
    """k independent samples of n observations in d dimensions (a vector when d = 1)."""
    shape = (k, n) if d == 1 else (k, n, d)
    if design == "gaussian":
        out = rng.normal(size=shape)
    elif design == "t2":
        out = rng.standard_t(2, size=shape)
    elif design == "discrete":
        out = rng.integers(0, 4, size=shape).astype(float)
    else:
        raise ValueError(design)
    return list(out)


def settings(test: str, n: int, d: int | None = None) -> dict:
    """The B and dimension of a cell (see the module docstring)."""
    if test == "permutation":
        return {"B": 99, "d": d or 1}
    if test == "pdcor":
        return {"B": 99 if n <= 200 else 19, "d": d or 1}
    return {"B": 0, "d": d or 30}


def cell(test: str, design: str, n: int, d: int | None = None, seed: int = SEED, n_jobs: int = 1):
    """A cell's test, null sampler and Generator (for ``statcore.testing.assert_size``)."""
    cfg = settings(test, n, d)
    rng = np.random.default_rng([seed, TESTS.index(test), DESIGNS.index(design), n, cfg["d"]])
    k = 3 if test == "pdcor" else 2

    def null_sampler(rng):
        data = draw(design, n, cfg["d"], k, rng)
        while np.all(data[0] == data[0][0]) or np.all(data[1] == data[1][0]):  # a constant sample is refused
            data = draw(design, n, cfg["d"], k, rng)
        return data

    def p_value(data, rng):
        if test == "pdcor":
            return pdcor_test(*data, B=cfg["B"], seed=rng, n_jobs=n_jobs).p_value
        if test == "t":
            return dcor_test(*data, method="t").p_value
        return dcor_test(*data, B=cfg["B"], seed=rng, n_jobs=n_jobs).p_value

    return p_value, null_sampler, rng


def rejection_rate(test: str, design: str, n: int, reps: int = REPS, d: int | None = None,
                   seed: int = SEED, n_jobs: int = 1) -> float:
    """The share of ``reps`` seeded data sets under independence that the test rejects at ALPHA."""
    p_value, null_sampler, rng = cell(test, design, n, d, seed, n_jobs)
    return sum(p_value(null_sampler(rng), rng) <= ALPHA for _ in range(reps)) / reps


def band(reps: int = REPS) -> float:
    return 3.0 * np.sqrt(ALPHA * (1 - ALPHA) / reps)


CELLS = [(test, design, n) for test in TESTS for design in DESIGNS for n in (30, 200, 1000)
         if test == "permutation" or n < 1000]


@pytest.mark.slow
@pytest.mark.parametrize("test, design, n", CELLS)
def test_size_under_independence(test, design, n):
    # the rate within ALPHA +- 3 Monte Carlo standard errors (band())
    p_value, null_sampler, rng = cell(test, design, n)
    assert_size(p_value, null_sampler, alpha=ALPHA, reps=REPS, seed=rng, exact=True)
