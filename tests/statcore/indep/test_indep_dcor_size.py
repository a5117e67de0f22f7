"""Size of the distance covariance tests under independence (seeded Monte Carlo, 1000 replicates a
cell): the rejection rate at alpha = 0.05 must lie within 0.05 +- 3 Monte Carlo standard errors.

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

ALPHA = 0.05
REPS = 1000
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


def rejection_rate(test: str, design: str, n: int, reps: int = REPS, d: int | None = None,
                   seed: int = SEED, n_jobs: int = 1) -> float:
    """The share of ``reps`` seeded data sets under independence that the test rejects at ALPHA."""
    cfg = settings(test, n, d)
    rng = np.random.default_rng([seed, TESTS.index(test), DESIGNS.index(design), n, cfg["d"]])
    rejections = 0
    for _ in range(reps):
        if test == "pdcor":
            x, y, z = draw(design, n, cfg["d"], 3, rng)
            while np.all(x == x[0]) or np.all(y == y[0]):  # a constant sample is refused: redraw
                x, y, z = draw(design, n, cfg["d"], 3, rng)
            p = pdcor_test(x, y, z, B=cfg["B"], seed=rng, n_jobs=n_jobs).p_value
        else:
            x, y = draw(design, n, cfg["d"], 2, rng)
            while np.all(x == x[0]) or np.all(y == y[0]):
                x, y = draw(design, n, cfg["d"], 2, rng)
            if test == "t":
                p = dcor_test(x, y, method="t").p_value
            else:
                p = dcor_test(x, y, B=cfg["B"], seed=rng, n_jobs=n_jobs).p_value
        rejections += p <= ALPHA
    return rejections / reps


def band(reps: int = REPS) -> float:
    return 3.0 * np.sqrt(ALPHA * (1 - ALPHA) / reps)


CELLS = [(test, design, n) for test in TESTS for design in DESIGNS for n in (30, 200, 1000)
         if test == "permutation" or n < 1000]


@pytest.mark.slow
@pytest.mark.parametrize("test, design, n", CELLS)
def test_size_under_independence(test, design, n):
    rate = rejection_rate(test, design, n)
    assert abs(rate - ALPHA) <= band(), f"{test} {design} n={n}: size {rate:.4f} outside {ALPHA} +- {band():.4f}"
