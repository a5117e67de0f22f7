"""Size of the HSIC tests under independence (seeded Monte Carlo, 600 data sets per cell, the first
600 of the former 1000): the rejection rate at alpha = 0.05 must lie within 0.05 +- 3 Monte Carlo
standard errors (0.0089), except in the cells where the gamma approximation is documented as loose:
there the documented rate is what is asserted (within 3 standard errors of it).

Sized to detect a gamma approximation as loose as dHSIC's at n = 30 (a size of 0.10 where 0.05 is
promised): with 600 data sets the band is [0.023, 0.077], and a true size of 0.10 lies above it with
probability 0.97 (one of 0.01 below it with probability 0.997); the precise rates are
benchmarks/size_indep_hsic.py's.

Designs and seeds are those of ``benchmarks/size_indep_hsic.py`` (which prints the full table, every
test at n = 30, 200 and 1000 for the three designs): x two-dimensional, y and the third dHSIC variable
one-dimensional, independent; "gaussian", Student "t2", and "discrete" (x uniform on {0, 1, 2}^2, y
Poisson(1): many ties, Gaussian kernel with the median heuristic). Permutation tests use B = 99
(n <= 200): (B + 1) alpha is an integer, so their level is exactly alpha. The approximate test uses
random Fourier features (100) with the gamma null.

The cells at n = 1000 are a subset (the exact gamma test on the Gaussian and discrete designs, RFF
on t2; the script's table has all of them) to keep the file under its budget of 150 s on 2 cores
(two worker processes, one thread each; 20 to 40 ms of CPU per data set at n = 1000, 1 to 6 ms at
n = 200; about 80 s in all on an idle machine).
"""
import numpy as np
import pytest

from statcore import dhsic_test, hsic_test
from statcore.testing import assert_error_rate, assert_size

pytestmark = pytest.mark.slow

ALPHA = 0.05
REPS = 600
_DESIGN_CODE = {"gaussian": 1, "t2": 2, "discrete": 3}


def simulate(design, n, rep):
    """As benchmarks/size_indep_hsic.py: x (n, 2), y (n,), z (n,), independent, seeded by (design, n, rep)."""
    rng = np.random.default_rng([_DESIGN_CODE[design], n, rep])
    if design == "gaussian":
        return rng.normal(size=(n, 2)), rng.normal(size=n), rng.normal(size=n)
    if design == "t2":
        return rng.standard_t(2, size=(n, 2)), rng.standard_t(2, size=n), rng.standard_t(2, size=n)
    return (rng.integers(0, 3, size=(n, 2)).astype(float), rng.poisson(1.0, size=n).astype(float),
            rng.poisson(1.0, size=n).astype(float))


def _p(test, x, y, z, rep):
    if test == "gamma":
        return hsic_test(x, y).p_value
    if test == "perm":
        return hsic_test(x, y, method="permutation", B=99, seed=rep).p_value
    if test == "dhsic":
        return dhsic_test(x, y, z).p_value
    if test == "dhsic_perm":
        return dhsic_test(x, y, z, method="permutation", B=99, seed=rep).p_value
    if test == "rff":
        return hsic_test(x, y, approx="rff", seed=rep).p_value
    raise ValueError(test)


#: the gamma approximation of dHSIC with d = 3 at n = 30 rejects about twice as often as it should
#: (measured 0.109, 0.091, 0.100 for the three designs); dhsic_test's docstring says so
DOCUMENTED = {("dhsic", 30): 0.10}

CELLS = ([(t, d, n) for t in ("gamma", "perm", "dhsic", "rff") for d in ("gaussian", "t2", "discrete")
          for n in (30, 200)]
         + [("dhsic_perm", d, 30) for d in ("gaussian", "t2", "discrete")]
         + [("gamma", "gaussian", 1000), ("gamma", "discrete", 1000), ("rff", "t2", 1000)])


@pytest.mark.parametrize("test,design,n", CELLS)
def test_size(test, design, n):
    """Replicate rep: data seeded (design, n, rep), the test's own randomness seeded rep; two workers."""
    def sampler(rep):
        return simulate(design, n, rep)

    def p_value(xyz, rep):
        return _p(test, *xyz, rep)

    target = DOCUMENTED.get((test, n))
    if target is None:    # within alpha -+ 3 nominal binomial s.e.
        assert_size(p_value, sampler, alpha=ALPHA, seeds=range(REPS), exact=True, n_jobs=2)
    else:                 # a rejection at alpha is an error whose documented rate is target (-+ 3 s.e. at target)
        assert_error_rate(lambda xyz, rep: p_value(xyz, rep) <= ALPHA, sampler, alpha=target, seeds=range(REPS),
                          exact=True, std_error="nominal", n_jobs=2)
