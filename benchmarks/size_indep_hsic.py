"""Size of the HSIC tests under independence: the full table (the slow test
tests/statcore/indep/test_indep_hsic_size.py asserts a subset of its cells).

    python benchmarks/size_indep_hsic.py                     # 2000 data sets per cell, 2 processes
    python benchmarks/size_indep_hsic.py --reps 1000 --n 30 200 --tests gamma perm
    python benchmarks/size_indep_hsic.py --reps 2000 --start 1000 --tests gamma --designs t2 --n 1000

Designs (x two-dimensional, y and the third dHSIC variable one-dimensional, all independent):
"gaussian" N(0, 1) coordinates, "t2" Student t with 2 degrees of freedom, "discrete" x uniform on
{0, 1, 2}^2 and y Poisson(1) (many ties; Gaussian kernel with the median heuristic, as a user would
run it). Tests: hsic_test gamma ("gamma") and permutation ("perm", B = 99 for n <= 200, 19 for
n = 1000: with (B + 1) alpha an integer the permutation test's level is exactly alpha), dhsic_test
with d = 3, gamma ("dhsic") and permutation ("dhsic_perm", B as above), and the approximate test with
random Fourier features (100 features), gamma ("rff") and spectral ("rff_spectral") nulls, and Nystrom
features (n_features = min(100, n / 2)) with the gamma null ("nystrom").

Printed: the rejection rate at alpha = 0.05 and its Monte Carlo standard error per cell, flagged
"*" where it is outside 0.05 +- 3 se. Each data set is seeded by (design, n, replicate), so a cell's
rate does not depend on the other cells or on the number of processes.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from joblib import Parallel, delayed

from statcore import dhsic_test, hsic_test

ALPHA = 0.05
DESIGNS = ("gaussian", "t2", "discrete")
TESTS = ("gamma", "perm", "dhsic", "dhsic_perm", "rff", "rff_spectral", "nystrom")
_DESIGN_CODE = {"gaussian": 1, "t2": 2, "discrete": 3}


def simulate(design: str, n: int, rep: int):
    """x (n, 2), y (n,), z (n,): independent, seeded by (design, n, rep)."""
    rng = np.random.default_rng([_DESIGN_CODE[design], n, rep])
    if design == "gaussian":
        return rng.normal(size=(n, 2)), rng.normal(size=n), rng.normal(size=n)
    if design == "t2":
        return rng.standard_t(2, size=(n, 2)), rng.standard_t(2, size=n), rng.standard_t(2, size=n)
    return (rng.integers(0, 3, size=(n, 2)).astype(float), rng.poisson(1.0, size=n).astype(float),
            rng.poisson(1.0, size=n).astype(float))


def perm_B(n: int) -> int:
    return 99 if n <= 200 else 19


def p_value(test: str, x, y, z, rep: int) -> float:
    n = x.shape[0]
    if test == "gamma":
        return hsic_test(x, y).p_value
    if test == "perm":
        return hsic_test(x, y, method="permutation", B=perm_B(n), seed=rep).p_value
    if test == "dhsic":
        return dhsic_test(x, y, z).p_value
    if test == "dhsic_perm":
        return dhsic_test(x, y, z, method="permutation", B=perm_B(n), seed=rep).p_value
    if test == "rff":
        return hsic_test(x, y, approx="rff", seed=rep).p_value
    if test == "rff_spectral":
        return hsic_test(x, y, approx="rff", method="spectral", seed=rep).p_value
    if test == "nystrom":
        return hsic_test(x, y, approx="nystrom", n_features=min(100, n // 2), seed=rep).p_value
    raise ValueError(test)


def _chunk(test, design, n, start, reps):
    from statcore.utils import thread_limit

    with thread_limit(1):
        rej = 0
        for rep in range(start, start + reps):
            x, y, z = simulate(design, n, rep)
            rej += p_value(test, x, y, z, rep) <= ALPHA
    return rej


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--n", type=int, nargs="+", default=[30, 200, 1000])
    ap.add_argument("--tests", nargs="+", default=list(TESTS), choices=TESTS)
    ap.add_argument("--designs", nargs="+", default=list(DESIGNS), choices=DESIGNS)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--start", type=int, default=0, help="first data set (replicates start .. start + reps - 1)")
    args = ap.parse_args(argv)
    se = np.sqrt(ALPHA * (1 - ALPHA) / args.reps)
    print(f"rejection rate at alpha = {ALPHA}, {args.reps} data sets per cell (Monte Carlo se {se:.4f}; "
          f"'*' outside 0.05 +- 3 se = [{ALPHA - 3 * se:.3f}, {ALPHA + 3 * se:.3f}])")
    header = f"{'test':<14}{'design':<10}" + "".join(f"{'n = ' + str(n):>12}" for n in args.n)
    print(header)
    for test in args.tests:
        for design in args.designs:
            cells = []
            t0 = time.perf_counter()
            for n in args.n:
                size = -(-args.reps // args.jobs)
                parts = Parallel(n_jobs=args.jobs)(
                    delayed(_chunk)(test, design, n, args.start + s, min(size, args.reps - s))
                    for s in range(0, args.reps, size))
                rate = sum(parts) / args.reps
                flag = "*" if abs(rate - ALPHA) > 3 * se else " "
                cells.append(f"{rate:>11.4f}{flag}")
            print(f"{test:<14}{design:<10}" + "".join(cells) + f"   ({time.perf_counter() - t0:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
