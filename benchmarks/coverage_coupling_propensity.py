"""Coverage of joint_bounds' intervals when the propensity is fitted (logistic regression on X).

Confounded design of tests/statcore/coupling/test_coupling_covariates.py: x ~ N(0, 1),
P(treat = 1 | x) = expit(gamma x), Y0 = x + N(0, 1), Y1 = 2 x + 1 + N(0, 1), so Y1 ~ N(1, 5),
Y0 ~ N(0, 2) and E(Y1 - Y0)^2 lies in [1 + (sqrt 5 - sqrt 2)^2, 1 + (sqrt 5 + sqrt 2)^2]; the
comonotone value is the lower end. gamma sets the overlap: the larger, the heavier the
inverse-propensity weights (mean smallest Kish fraction of an arm at n = 2400: 0.85 at gamma = 0.75,
0.73 at 1, 0.47 at 1.5). Every replicate refits the propensity on the resampled units.

Prints, per setting, the coverage of the lower end, the upper end (interval for the identified set,
Imbens-Manski, conf_level 0.95), the comonotone point and the whole set, their Monte Carlo SE, the
bias and standard deviation of the two end estimates and the mean bootstrap standard errors.

    python benchmarks/coverage_coupling_propensity.py [--reps 1000] [--n 2400] [--B 199] [--gamma 1.5]
        [--bootstrap n-out-of-n] [--progress 50]
"""
import argparse
import time
import warnings

import numpy as np
from scipy.special import expit

from statcore.coupling import joint_bounds


def confounded(rng, n, gamma):
    x = rng.normal(size=n)
    t = (rng.uniform(size=n) < expit(gamma * x)).astype(float)
    y0 = x + rng.normal(size=n)
    y1 = 2 * x + 1 + rng.normal(size=n)
    return x, t, np.where(t == 1, y1, y0)


def coverage(reps, n, B, gamma, bootstrap, seed=77, progress=0):
    s1, s0 = np.sqrt(5), np.sqrt(2)
    lo, hi = 1 + (s1 - s0) ** 2, 1 + (s1 + s0) ** 2
    rng = np.random.default_rng(seed)
    hits = np.zeros(4)
    est = np.empty((reps, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for r in range(reps):
            x, t, y = confounded(rng, n, gamma)
            res = joint_bounds(y, t, "sq_diff", X=x, assumption="comonotone", B=B, seed=rng, bootstrap=bootstrap)
            a, b = res.set_conf_int
            pa, pb = res.point_conf_int
            hits += [a <= lo <= b, a <= hi <= b, pa <= lo <= pb, a <= lo and hi <= b]
            est[r] = res.lower, res.upper, res.std_error["lower"], res.std_error["upper"]
            if progress and (r + 1) % progress == 0 and r + 1 < reps:
                print(f"  ... {r + 1} data sets: coverage {np.round(hits / (r + 1), 3)}", flush=True)
    return hits / reps, est, lo, hi


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--n", type=int, default=2400)
    ap.add_argument("--B", type=int, default=199)
    ap.add_argument("--gamma", type=float, nargs="+", default=[1.5])
    ap.add_argument("--bootstrap", default="n-out-of-n")
    ap.add_argument("--progress", type=int, default=0, help="print the running coverage every so many data sets")
    a = ap.parse_args()
    for gamma in a.gamma:
        t0 = time.perf_counter()
        cov, est, lo, hi = coverage(a.reps, a.n, a.B, gamma, a.bootstrap, progress=a.progress)
        se = np.sqrt(cov * (1 - cov) / a.reps)
        floor = 0.95 - 3 * np.sqrt(0.95 * 0.05 / a.reps)
        print(f"gamma = {gamma}, n = {a.n}, B = {a.B}, bootstrap = {a.bootstrap}, {a.reps} data sets, "
              f"{time.perf_counter() - t0:.0f} s (0.95 - 3 SE = {floor:.3f})")
        for name, c, s in zip(["lower end", "upper end", "comonotone point", "whole set"], cov, se):
            print(f"  {name:<17} {c:.3f}  (MC SE {s:.3f})")
        print(f"  bias of the ends {est[:, 0].mean() - lo:+.3f} {est[:, 1].mean() - hi:+.3f}; sd {est[:, 0].std():.3f} "
              f"{est[:, 1].std():.3f}; mean bootstrap SE {est[:, 2].mean():.3f} {est[:, 3].mean():.3f}")


if __name__ == "__main__":
    main()
