"""Size of the scalar GCM test at small n, per regression: where the normal reference starts to hold.

Two null designs (X independent of Y given Z, one Z):
  linear:    z ~ N(0, 1), x = z + (1 + |z| / 2) t_5, y = -z + N(0, 1)   (heteroscedastic, heavy tails)
  nonlinear: z ~ U(-2, 2), x = sin(1.5 z) + N(0, 1/4), y = z^2 / 2 + N(0, 1/4)
"ols", "ridge" and "krr" on both, "rf" on the nonlinear one (it needs n >= 20; n = 20, 30, 50 only). alpha = 0.05. Prints
the rejection rate, its Monte Carlo SE and whether it is above alpha + 3 SE; the smallest n from which
on every larger n of the grid holds the level is what ``statcore.cit._gcm.GCM_MIN_N`` records.

    python benchmarks/size_cit_small_n.py [--reps 1000] [--reps-rf 200] [--only linear:ridge,...]
"""
import argparse
import time
import warnings

import numpy as np
from threadpoolctl import threadpool_limits

from statcore.cit import gcm_test

ALPHA = 0.05
GRID = (5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 75, 100)
GRID_RF = (20, 30, 50)   # "rf" needs n >= 20; one data set costs about a second there


def linear(rng, n):
    z = rng.normal(size=n)
    x = z + (1 + 0.5 * np.abs(z)) * rng.standard_t(5, size=n)
    y = -z + rng.normal(size=n)
    return x, y, z


def nonlinear(rng, n):
    z = rng.uniform(-2, 2, size=n)
    x = np.sin(1.5 * z) + 0.5 * rng.normal(size=n)
    y = z ** 2 / 2 + 0.5 * rng.normal(size=n)
    return x, y, z


def size(draw, n, reg, reps, seed):
    rng = np.random.default_rng(seed)
    rej = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(reps):
            x, y, z = draw(rng, n)
            rej += gcm_test(x, y, z, regression=reg, seed=rng).p_value <= ALPHA
    return rej / reps


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--reps-rf", type=int, default=200)
    ap.add_argument("--only", default="", help="comma-separated design:regression cells, e.g. linear:ridge")
    a = ap.parse_args()
    cells = [("linear", "ols"), ("linear", "ridge"), ("linear", "krr"), ("nonlinear", "ols"),
             ("nonlinear", "ridge"), ("nonlinear", "krr"), ("nonlinear", "rf")]
    if a.only:
        keep = set(a.only.split(","))
        cells = [c for c in cells if f"{c[0]}:{c[1]}" in keep]
    draws = {"linear": linear, "nonlinear": nonlinear}
    with threadpool_limits(1):
        for design, reg in cells:
            reps = a.reps_rf if reg == "rf" else a.reps
            se = np.sqrt(ALPHA * (1 - ALPHA) / reps)
            t0 = time.perf_counter()
            print(f"{design} null, regression = {reg!r}: {reps} data sets per n, alpha = {ALPHA}, "
                  f"bound alpha + 3 SE = {ALPHA + 3 * se:.4f}", flush=True)
            for n in (GRID_RF if reg == "rf" else GRID):
                rate = size(draws[design], n, reg, reps, 1000 + n)
                flag = "ABOVE" if rate > ALPHA + 3 * se else "ok"
                print(f"  n = {n:>3}  {rate:.4f}  (SE {se:.4f})  {flag}", flush=True)
            print(f"  ({time.perf_counter() - t0:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
