"""Rat W053's calibration (issue 23, section 4): were the bootstrap's largest statistics real 2NL gains
on 1L data, or 1L refits stuck below their optimum? And is the rat's own 1L fit at its optimum?

For each replicate b given, the simulated rat is re-created from its seed sequence (the same as
``bench_learning_rules_rat.py --stream`` and ``calibrate_selection(B, seed=2)``), refitted as the
stream did (4 restarts, max_iter 300: T_b is reproduced exactly), and its 1L refitted once more
starting at the simulating parameters with 3x the restarts and 4x max_iter. Then each of the rat's
own three fits is refitted from its estimate with 11 more random starts and max_iter 1200.

Run: python benchmarks/check_learning_rules_rat_tail.py FITS.pkl [b,b,...=7,25,48,50,0]
(FITS.pkl: the fits written by ``bench_learning_rules_rat.py --fits-cache FITS.pkl``). About 2 min
per replicate and 40-120 s per own fit on one core.
"""
import pickle
import sys
import time
import warnings

import numpy as np

from bench_learning_rules_rat import _seeds   # the stream's seed sequences (this script's folder)
from learncore.learning_rules.calibrate import _replicate_fits, _stat
from learncore.learning_rules._fit import fit

R, MI = 4, 300


def main():
    warnings.simplefilter("ignore")
    fits0 = pickle.load(open(sys.argv[1], "rb"))
    reps = [int(v) for v in (sys.argv[2] if len(sys.argv) > 2 else "7,25,48,50,0").split(",")]
    f1 = fits0["1L"]
    hid = {a: f.hidden for a, f in fits0.items()}
    ss = _seeds(max(reps) + 1)
    for b in reps:
        t0 = time.perf_counter()
        tr, fits = _replicate_fits(f1, hid, dict(restarts=R, max_iter=MI, gtol=1e-5), ss[b])
        T, best = _stat(fits, "1L", ("2L", "2NL"))
        g = fit(tr, arch="1L", rule=f1.rule, hidden=max(f1.hidden, 1), seed=123, warn=False, baseline=f1.baseline,
                backend="numba", init=[f1.params], restarts=3 * R, max_iter=4 * MI, gtol=1e-6)
        fits2 = dict(fits, **{"1L": g if g.loglik > fits["1L"].loglik else fits["1L"]})
        T2, _ = _stat(fits2, "1L", ("2L", "2NL"))
        print(f"b = {b}: T_b as streamed {T:.2f} ({best}); 1L refit from the truth ({3 * R} restarts, max_iter "
              f"{4 * MI}) gains {g.loglik - fits['1L'].loglik:+.2f}; T_b after {T2:.2f}; "
              f"{time.perf_counter() - t0:.0f} s", flush=True)
    tr = f1.trials
    for a, f0 in fits0.items():
        t0 = time.perf_counter()
        g = fit(tr, arch=a, rule=f0.rule, hidden=f0.hidden, seed=321, warn=False, baseline=f0.baseline,
                init=[f0.params], restarts=12, max_iter=1200, gtol=1e-6)
        print(f"rat {a}: loglik {f0.loglik:.2f}; refitted from its estimate + 11 random starts, max_iter 1200: "
              f"{g.loglik:.2f} (gain {g.loglik - f0.loglik:+.2f}); restarts' log-liks "
              f"{g.restarts['loglik'].round(1).tolist()}; {time.perf_counter() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    main()
