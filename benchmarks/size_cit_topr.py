"""Size and power of RP-CIT's top-r rules: Ruger's "topr" against the multiplier-bootstrap "topr_boot".

Linear null of tests/statcore/cit/test_cit_size.py (n = 200, dims 10/10/3, heteroscedastic t(5)
noise, OLS) and the planted rank-one alternative of its power test (n = 200, dims 20/20/3, Y's first
column plus gamma times X's first noise column). k = 50 projections, r = ceil(k / 10) = 5 by default,
B = 499, alpha = 0.05. Every rule sees the same data and the same directions (one seed per data set).
Prints each rate with its Monte Carlo standard error and, for the size, whether it lies within
alpha +- 3 SE.

    python benchmarks/size_cit_topr.py [--reps 1000] [--reps-power 500] [--r 5]
"""
import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits

from statcore.cit import rpcit
from statcore.multitest import combine_pvalues

ALPHA = 0.05


def linear_null(rng, n=200, dx=10, dy=10, dz=3):
    z = rng.normal(size=(n, dz))
    scale = 1.0 + 0.5 * np.abs(z[:, :1])
    x = z @ rng.normal(size=(dz, dx)) + scale * rng.standard_t(5, size=(n, dx))
    y = z @ rng.normal(size=(dz, dy)) + rng.normal(size=(n, dy))
    return x, y, z


def planted_low_rank(rng, gamma, n=200, dx=20, dy=20, dz=3):
    z = rng.normal(size=(n, dz))
    ex = rng.normal(size=(n, dx))
    x = z @ rng.normal(size=(dz, dx)) + ex
    y = z @ rng.normal(size=(dz, dy)) + rng.normal(size=(n, dy))
    y[:, 0] += gamma * ex[:, 0]
    return x, y, z


def rates(draw, reps, k, r, seed):
    """Rejection rates of bonferroni, maxboot, topr (Ruger) and topr_boot on ``reps`` data sets."""
    rng = np.random.default_rng(seed)
    rej = np.zeros(4)
    for _ in range(reps):
        x, y, z = draw(rng)
        s = int(rng.integers(2 ** 31))
        mb = rpcit(x, y, z, k=k, aggregate="maxboot", seed=s)
        tb = rpcit(x, y, z, k=k, aggregate="topr_boot", r=r, seed=s)
        pv = mb.extras["p_values"]
        rej += [combine_pvalues(pv, method="bonferroni").p_value <= ALPHA, mb.p_value <= ALPHA,
                combine_pvalues(pv, method="topr", r=r).p_value <= ALPHA, tb.p_value <= ALPHA]
    return rej / reps


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--reps-power", type=int, default=500)
    ap.add_argument("--k", type=int, default=50)
    ap.add_argument("--r", type=int, default=None, help="rank (default ceil(k / 10))")
    a = ap.parse_args()
    k = a.k
    r = a.r if a.r is not None else -(-k // 10)
    names = ["bonferroni", "maxboot", "topr (Ruger)", "topr_boot"]
    with threadpool_limits(1):
        t0 = time.perf_counter()
        size = rates(linear_null, a.reps, k, r, 104)
        se = np.sqrt(ALPHA * (1 - ALPHA) / a.reps)
        print(f"Size, linear null (ols, n = 200, dims 10/10/3), k = {k}, r = {r}, {a.reps} data sets, "
              f"alpha = {ALPHA}, MC SE {se:.4f}, {time.perf_counter() - t0:.0f} s")
        for m, v in zip(names, size):
            ok = "within" if abs(v - ALPHA) <= 3 * se else ("below" if v < ALPHA else "ABOVE")
            print(f"  {m:<14} {v:.4f}  ({ok} alpha +- 3 SE)")
        for gamma in (0.5, 1.0):
            t0 = time.perf_counter()
            pw = rates(lambda rng: planted_low_rank(rng, gamma), a.reps_power, k, r, 106)
            print(f"Power, planted rank-one alternative (ols, n = 200, dims 20/20/3, gamma = {gamma}), k = {k}, "
                  f"r = {r}, {a.reps_power} data sets, {time.perf_counter() - t0:.0f} s")
            for m, v in zip(names, pw):
                print(f"  {m:<14} {v:.4f}  (MC SE {np.sqrt(v * (1 - v) / a.reps_power):.4f})")


if __name__ == "__main__":
    main()
