"""A real rat: 1L/2L/2NL learning rules on psytrack's sample rat W053 (issue 23, section 4).

    python benchmarks/bench_learning_rules_rat.py            # the study quoted in benchmarks/README.md
    python benchmarks/bench_learning_rules_rat.py --quick    # smoke run (first 3,000 trials, tiny B)
    python benchmarks/bench_learning_rules_rat.py --skip-heldout --fits-cache /tmp/rat.pkl --time-one
    python benchmarks/bench_learning_rules_rat.py --skip-heldout --fits-cache /tmp/rat.pkl --B 19
    python benchmarks/bench_learning_rules_rat.py --skip-heldout --fits-cache /tmp/rat.pkl --B 99 --stream /tmp/T.tsv
    python benchmarks/bench_learning_rules_rat.py --skip-heldout --fits-cache /tmp/rat.pkl --read-stream /tmp/T.tsv

The rat (Akrami et al. 2018; shipped by psytrack, MIT): 20,000 trials over 80 days of an auditory
two-alternative task, inputs [s2, s1, 1] (learncore.learning_rules.psytrack_sample_rat). It prints:

1. fits of 1L, 2L, 2NL (hidden 3, rule "rpe"; RESTARTS restarts, MAX_ITER iterations): log-likelihood,
   AIC, convergence status and wall time;
2. held-out log-likelihood, forward-chained by session (heldout_loglik, FOLDS folds: blocks of 16 days),
   next to psytrack's own dynamic GLM (weights bias, s1, s2 following Gaussian random walks; hyperOpt
   over sigma per weight, as in psytrack's example) fitted to the same training blocks; its prediction
   for a held-out block is the last training trial's MAP weights (the random walk's predictive mean);
3. the raw AIC choice and the parametric-bootstrap-calibrated choice (calibrate_selection, simpler
   1L, B replicates refitted with the same settings), with its p-value.
"""
from __future__ import annotations

import argparse
import os
import pickle
import time
import warnings

import numpy as np
import pandas as pd

from learncore.learning_rules import calibrate_selection, fit, heldout_loglik, psytrack_sample_rat, session_folds
from statcore import ConvergenceWarning


def psytrack_heldout(rat, folds):
    """psytrack's dynamic GLM on the same forward-chained folds: held-out log-likelihood per fold."""
    from psytrack.hyperOpt import hyperOpt

    fold = session_folds(rat, folds=folds)
    y = np.where(rat["choice"].to_numpy() == "right", 2, 1)
    s1 = rat["input_right"].to_numpy()
    s2 = rat["input_left"].to_numpy()
    days = rat.groupby("session", sort=False).size().to_numpy()
    weights = {"bias": 1, "s1": 1, "s2": 1}
    rows = []
    for k in range(folds):
        tr = np.flatnonzero(fold < k)
        te = np.flatnonzero(fold == k)
        ntr_days = rat["session"].iloc[tr].nunique()
        dat = {"y": y[tr].astype(float), "inputs": {"s1": s1[tr, None], "s2": s2[tr, None]},
               "dayLength": days[:ntr_days]}
        hyper = {"sigInit": 2**4.0, "sigma": [2**-4.0] * 3, "sigDay": None}
        t = time.perf_counter()
        hyp, evd, wMode, _ = hyperOpt(dat, hyper, weights, ["sigma"], hess_calc=None)
        el = time.perf_counter() - t
        w = wMode[:, -1]                        # sorted keys: bias, s1, s2
        gw = w[0] + w[1] * s1[te] + w[2] * s2[te]
        yt = (y[te] == 2).astype(float)
        ll = float(np.sum(yt * gw - np.logaddexp(0, gw)))
        rows.append(dict(fold=k, arch="psytrack", n_train=len(tr), n_test=len(te), loglik=ll,
                         loglik_per_trial=ll / len(te), seconds=el))
    return pd.DataFrame(rows)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--B", type=int, default=19)
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--skip-calibration", action="store_true")
    ap.add_argument("--skip-fits", action="store_true", help="held-out comparison (and calibration) only")
    ap.add_argument("--folds", type=int, default=4)
    ap.add_argument("--restarts", type=int, default=4)
    ap.add_argument("--max-iter", type=int, default=300)
    ap.add_argument("--skip-heldout", action="store_true", help="fits and calibration only")
    ap.add_argument("--fits-cache", default=None, help="pickle of the three fits: read if it exists, else written")
    ap.add_argument("--stream", default=None,
                    help="calibration replicate by replicate, each statistic appended to this file as it ends "
                         "(the first k equal calibrate_selection(B=k, seed=2)'s); stop it at any time and read "
                         "the decision with --read-stream")
    ap.add_argument("--refit-from-truth", action="store_true",
                    help="calibrate_selection(refit_from_truth=True): each 1L refit also starts at the simulating "
                         "parameters")
    ap.add_argument("--read-stream", default=None, help="the calibrated decision from a --stream file")
    ap.add_argument("--time-one", action="store_true",
                    help="time one bootstrap replicate (simulate from 1L, refit all three) and stop")
    args = ap.parse_args()
    rat = psytrack_sample_rat()
    if args.quick:
        rat = rat[rat["session"] < 12].reset_index(drop=True)
        R, MI, FOLDS, B = 1, 100, 2, 2
    else:
        R, MI, FOLDS, B = args.restarts, args.max_iter, args.folds, args.B
    warnings.simplefilter("ignore", ConvergenceWarning)
    print(f"rat {rat.attrs.get('name', '')}: {len(rat)} trials, {rat['session'].nunique()} days; "
          f"{R} restarts, max_iter {MI}\n", flush=True)

    fits = {}
    if args.fits_cache and os.path.exists(args.fits_cache):
        with open(args.fits_cache, "rb") as fh:
            fits = pickle.load(fh)
        print("fits read from", args.fits_cache)
    for arch in (() if args.skip_fits or fits else ("1L", "2L", "2NL")):
        t = time.perf_counter()
        f = fit(rat, arch=arch, hidden=3, restarts=R, max_iter=MI, seed=0, warn=False)
        fits[arch] = f
        st = f.restarts.loc[f.restarts["loglik"].idxmax(), "status"]
        print(f"{arch}: loglik {f.loglik:.2f}, AIC {f.aic:.2f}, df {f.df}, {st}, {time.perf_counter() - t:.0f} s",
              flush=True)
    if fits:
        if args.fits_cache and not os.path.exists(args.fits_cache):
            with open(args.fits_cache, "wb") as fh:
                pickle.dump(fits, fh)
        aics = {a: f.aic for a, f in fits.items()}
        print(f"raw AIC picks {min(aics, key=aics.get)}\n", flush=True)
    if args.stream and fits:
        return stream(fits, args.stream, R, MI, B, from_truth=args.refit_from_truth)
    if args.read_stream and fits:
        return read_stream(fits, args.read_stream, args.alpha)
    if args.time_one and fits:
        from learncore.learning_rules.calibrate import _replicate

        t = time.perf_counter()
        T_b = _replicate(fits["1L"], {a: f.hidden for a, f in fits.items()}, "1L", ("2L", "2NL"),
                         dict(restarts=R, max_iter=MI, gtol=1e-5), np.random.SeedSequence(123))
        print(f"one replicate: T_b = {T_b:.2f}, {time.perf_counter() - t:.0f} s (one thread)", flush=True)
        return

    if args.skip_heldout:
        return calibrate(fits, args, R, MI, B)
    t = time.perf_counter()
    ho = heldout_loglik(rat, folds=FOLDS, hidden=3, restarts=R, max_iter=MI, seed=1)
    t_ho = time.perf_counter() - t
    pt = psytrack_heldout(rat, FOLDS)
    table = pd.concat([ho.table[["fold", "arch", "n_train", "n_test", "loglik", "loglik_per_trial"]],
                       pt[["fold", "arch", "n_train", "n_test", "loglik", "loglik_per_trial"]]])
    print(f"held-out log-likelihood, {FOLDS} forward-chained folds (learncore {t_ho:.0f} s, psytrack "
          f"{pt['seconds'].sum():.0f} s):")
    print(table.pivot(index="fold", columns="arch", values="loglik").round(2).to_string())
    tot = table.groupby("arch")[["loglik", "n_test"]].sum()
    tot["per_trial"] = tot["loglik"] / tot["n_test"]
    print(tot.sort_values("loglik", ascending=False).round(4).to_string(), "\n", flush=True)

    if args.skip_calibration or not fits:
        return
    calibrate(fits, args, R, MI, B)


def _seeds(B, seed=2):
    """The replicates' seed sequences of calibrate_selection({"W053": fits}, B=B, seed=seed)."""
    from statcore.utils import check_seed, spawn_seeds

    return spawn_seeds(spawn_seeds(check_seed(seed), 1)[0], B)


def stream(fits, path, R, MI, B, n_jobs=2, from_truth=False):
    from joblib import Parallel, delayed

    from learncore.learning_rules.calibrate import _replicate

    hid = {a: f.hidden for a, f in fits.items()}
    kw = dict(restarts=R, max_iter=MI, gtol=1e-5)
    t0 = time.perf_counter()
    gen = Parallel(n_jobs=n_jobs, return_as="generator")(
        delayed(_replicate)(fits["1L"], hid, "1L", ("2L", "2NL"), kw, s, from_truth) for s in _seeds(B))
    for b, T_b in enumerate(gen):
        with open(path, "a") as fh:
            fh.write(f"{b}\t{T_b!r}\t{time.perf_counter() - t0:.1f}\n")


def read_stream(fits, path, alpha):
    from learncore.learning_rules.calibrate import _stat

    tab = pd.read_csv(path, sep="\t", header=None, names=["b", "T_b", "seconds"])
    tab = tab.sort_values("b")
    k = int((tab["b"].to_numpy() == np.arange(len(tab))).cumprod().sum())    # the first k, in order
    boot = tab["T_b"].to_numpy()[:k]
    T, best = _stat(fits, "1L", ("2L", "2NL"))
    p = (1 + np.sum(boot >= T)) / (k + 1)
    print(f"calibration from {path}: B = {k} replicates in {tab['seconds'].iloc[k - 1]:.0f} s; T = AIC(1L) - "
          f"min AIC(2L, 2NL) = {T:.2f} ({best}); bootstrap T_b: min {boot.min():.2f}, median "
          f"{np.median(boot):.2f}, max {boot.max():.2f}, {int(np.sum(~np.isfinite(boot)))} failed; p-value "
          f"{p:.4f}; calibrated choice at alpha = {alpha:g}: {best if p <= alpha else '1L'}")


def calibrate(fits, args, R, MI, B):
    t = time.perf_counter()
    res = calibrate_selection({"W053": fits}, simpler="1L", B=B, alpha=args.alpha, restarts=R, max_iter=MI, seed=2,
                              refit_from_truth=args.refit_from_truth,
                              n_jobs=2)
    print(f"calibration: B = {B}, alpha = {args.alpha}, {time.perf_counter() - t:.0f} s")
    print(res.per_group.round(3).T.to_string())
    print("bootstrap statistics:", np.round(np.sort(res.boot[0]), 2).tolist())


if __name__ == "__main__":
    main()
