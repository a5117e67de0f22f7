"""Coverage of joint_bounds' intervals when the propensity is fitted (logistic regression on X).

Confounded design of tests/statcore/coupling/test_coupling_covariates.py: x ~ N(0, 1),
P(treat = 1 | x) = expit(gamma x), Y0 = x + N(0, 1), Y1 = 2 x + 1 + N(0, 1), so Y1 ~ N(1, 5),
Y0 ~ N(0, 2) and E(Y1 - Y0)^2 lies in [1 + (sqrt 5 - sqrt 2)^2, 1 + (sqrt 5 + sqrt 2)^2]; the
comonotone value is the lower end. gamma sets the overlap: the larger, the heavier the
inverse-propensity weights (mean smallest Kish fraction of an arm at n = 2400: 0.85 at gamma = 0.75,
0.73 at 1, 0.47 at 1.5). Every replicate refits the propensity (and, for doubly robust marginals,
the outcome regressions) on the resampled units.

Each data set is analysed with every ``--marginals`` choice (paired: the same data sets, the same B),
conf_level 0.95, Imbens-Manski; the ci="whole-set" interval is computed from the same replicates.
Prints per choice the coverage of the lower end, the upper end, the comonotone point and the whole
identified set (by the Imbens-Manski interval, which promises each point, and by ci="whole-set",
which promises the set), their Monte Carlo SE, the bias and standard deviation
of the two end estimates and the mean bootstrap standard errors. Data set r is drawn from
``numpy.random.default_rng([seed, r])``, so a study can be split over processes with --start/--stop
and --out, and the per-data-set rows put together with --summarize.

    python benchmarks/coverage_coupling_propensity.py [--reps 1000] [--n 2400] [--B 49] [--gamma 1.5]
        [--marginals ipw doubly-robust] [--progress 50]
    python benchmarks/coverage_coupling_propensity.py --start 0 --stop 500 --out a.tsv   # one part
    python benchmarks/coverage_coupling_propensity.py --summarize a.tsv b.tsv            # the table
"""
import argparse
import time
import warnings

import numpy as np
import pandas as pd
from scipy.special import expit

from statcore.coupling import identified_set_interval, joint_bounds


def confounded(rng, n, gamma):
    x = rng.normal(size=n)
    t = (rng.uniform(size=n) < expit(gamma * x)).astype(float)
    y0 = x + rng.normal(size=n)
    y1 = 2 * x + 1 + rng.normal(size=n)
    return x, t, np.where(t == 1, y1, y0)


def truth():
    s1, s0 = np.sqrt(5), np.sqrt(2)
    return 1 + (s1 - s0) ** 2, 1 + (s1 + s0) ** 2


def one(r, n, B, gamma, marginals, seed):
    lo, hi = truth()
    rng = np.random.default_rng([seed, r])
    x, t, y = confounded(rng, n, gamma)
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for mg in marginals:
            t0 = time.perf_counter()
            res = joint_bounds(y, t, f="sq_diff", X=x, assumption="comonotone", B=B, seed=rng, marginals=mg)
            a, b = res.set_conf_int
            pa, pb = res.point_conf_int
            # ci="whole-set" from the same replicates: identified_set_interval at joint_bounds' centres
            # (doubly robust: the bootstrap bias-corrected ends) with the replicates' correlation
            bl, bu = res.boot["lower"], res.boot["upper"]
            c_lo, c_hi = res.lower, res.upper
            if mg == "doubly-robust":
                c_lo, c_hi = 2 * c_lo - bl.mean(), 2 * c_hi - bu.mean()
                if c_lo > c_hi:
                    c_lo = c_hi = 0.5 * (c_lo + c_hi)
            wa, wb = identified_set_interval(c_lo, c_hi, res.std_error["lower"], res.std_error["upper"],
                                             rho=float(np.corrcoef(bl, bu)[0, 1]), conf_level=0.95)
            rows.append(dict(r=r, gamma=gamma, n=n, B=B, marginals=mg, cover_lower=a <= lo <= b,
                             cover_upper=a <= hi <= b,
                             cover_point=pa <= lo <= pb, cover_set=a <= lo and hi <= b,
                             cover_whole_lower=wa <= lo, cover_whole_upper=hi <= wb,
                             cover_whole_set=wa <= lo and hi <= wb, lower=res.lower,
                             upper=res.upper, se_lower=res.std_error["lower"], se_upper=res.std_error["upper"],
                             seconds=time.perf_counter() - t0))
    return rows


def summarize(df):
    lo, hi = truth()
    for (gamma, n, B, mg), g in df.groupby(["gamma", "n", "B", "marginals"], sort=False):
        reps = len(g)
        floor = 0.95 - 3 * np.sqrt(0.95 * 0.05 / reps)
        print(f"gamma = {gamma}, n = {n}, B = {B}, marginals = {mg}: {reps} data sets, {g['seconds'].sum():.0f} s "
              f"(0.95 - 3 SE = {floor:.3f})")
        for name in ("lower", "upper", "point", "set", "whole_lower", "whole_upper", "whole_set"):
            if f"cover_{name}" not in g or g[f"cover_{name}"].isna().all():
                continue
            c = g[f"cover_{name}"].mean()
            label = {"set": "set (Imbens-Manski)", "whole_lower": "lower end, ci='whole-set'",
                     "whole_upper": "upper end, ci='whole-set'", "whole_set": "set, ci='whole-set'"}.get(name, name)
            print(f"  {label:<26} coverage {c:.3f}  (MC SE {np.sqrt(c * (1 - c) / reps):.3f})")
        print(f"  bias of the ends {g['lower'].mean() - lo:+.3f} {g['upper'].mean() - hi:+.3f}; sd "
              f"{g['lower'].std():.3f} {g['upper'].std():.3f}; mean bootstrap SE {g['se_lower'].mean():.3f} "
              f"{g['se_upper'].mean():.3f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--stop", type=int, default=None)
    ap.add_argument("--n", type=int, default=2400)
    ap.add_argument("--B", type=int, default=49)
    ap.add_argument("--gamma", type=float, default=1.5)
    ap.add_argument("--seed", type=int, default=77)
    ap.add_argument("--marginals", nargs="+", default=["ipw", "doubly-robust"])
    ap.add_argument("--out", default=None, help="append one row per data set and choice to this TSV")
    ap.add_argument("--summarize", nargs="+", default=None, help="TSVs written by --out: print the table")
    ap.add_argument("--progress", type=int, default=0, help="print the running coverage every so many data sets")
    a = ap.parse_args()
    if a.summarize:
        return summarize(pd.concat([pd.read_csv(f, sep="\t") for f in a.summarize]))
    stop = a.reps if a.stop is None else a.stop
    rows = []
    for r in range(a.start, stop):
        new = one(r, a.n, a.B, a.gamma, a.marginals, a.seed)
        rows += new
        if a.out:
            pd.DataFrame(new).to_csv(a.out, sep="\t", mode="a", index=False,
                                     header=not (r > a.start or _exists(a.out)))
        if a.progress and (r + 1 - a.start) % a.progress == 0:
            summarize(pd.DataFrame(rows))
    summarize(pd.DataFrame(rows))


def _exists(path):
    import os

    return os.path.exists(path) and os.path.getsize(path) > 0


if __name__ == "__main__":
    main()
