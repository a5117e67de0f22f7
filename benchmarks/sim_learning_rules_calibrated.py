"""Model recovery with raw AIC and with the parametric-bootstrap-calibrated rule (issue 23, section 4).

    python benchmarks/sim_learning_rules_calibrated.py            # the study quoted in benchmarks/README.md
    python benchmarks/sim_learning_rules_calibrated.py --quick    # smoke run

Synthetic animals from the model-recovery design of tests/learncore/learning_rules/test_model_recovery.py
(rule "rpe", IBL schedule, hidden width 3; naive starts; per-animal draws of eta and beta), more of them
1L (the false-selection rate is the figure in question): N_1L 1L animals, N_DEEP 2L and N_DEEP 2NL
animals, T trials each. Every animal is fitted with 1L/2L/2NL (fit_many, RESTARTS restarts,
MAX_ITER iterations), then calibrate_selection(simpler="1L", B, alpha) refits all three to B
animals simulated from each animal's fitted 1L model. Prints the generating x selected confusion
matrices of both rules, the false-selection rate on 1L animals with its Monte Carlo s.e., the power on
the deep animals and the wall time.
"""
from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "learncore" / "learning_rules"))
from learncore.learning_rules import calibrate_selection, fit_many, simulate  # noqa: E402
from statcore import ConvergenceWarning  # noqa: E402

HIDDEN = 3
DESIGN = {"1L": dict(eta=(0.03, 0.08), w1=None),      # test_model_recovery.py's design
          "2L": dict(eta=(0.02, 0.05), w1=2.0),
          "2NL": dict(eta=(0.2, 0.5), w1=2.5)}


def _params(arch, rng):
    d = DESIGN[arch]
    eta = float(np.exp(rng.uniform(*np.log(d["eta"]))))
    beta = float(rng.uniform(6.0, 10.0))
    if arch == "1L":
        return dict(W=rng.normal(scale=0.1, size=(2, 3)), eta=eta, beta=beta)
    return dict(W1=rng.normal(scale=d["w1"], size=(HIDDEN, 3)), W2=rng.normal(scale=0.1, size=(2, HIDDEN)),
                eta=eta, beta=beta)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    if args.quick:
        n1, nd, T, B, R, MI = 3, 1, 500, 4, 1, 100
    else:
        n1, nd, T, B, R, MI = 12, 3, 1000, 9, 2, 200
    alpha = 0.1
    animals, truth = {}, {}
    for a, (arch, n) in enumerate((("1L", n1), ("2L", nd), ("2NL", nd))):
        for i in range(n):
            rng = np.random.default_rng([2023, a, i])
            key = f"{arch}_{i}"
            animals[key] = simulate(arch, _params(arch, rng), T, seed=rng).drop(columns=["p_right"])
            truth[key] = arch
    warnings.simplefilter("ignore", ConvergenceWarning)
    t0 = time.perf_counter()
    cmp = fit_many(animals, hidden=HIDDEN, restarts=R, max_iter=MI, seed=7, n_jobs=2, B=0)
    t1 = time.perf_counter()
    res = calibrate_selection(cmp, simpler="1L", B=B, alpha=alpha, restarts=R, max_iter=MI, seed=8, n_jobs=2)
    t2 = time.perf_counter()
    res.per_group.to_csv("sim_learning_rules_calibrated.csv")
    raw, cal = res.confusion(truth)
    print(f"{n1} 1L + {nd} 2L + {nd} 2NL animals, {T} trials, hidden {HIDDEN}, {R} restarts, max_iter {MI}; "
          f"B = {B}, alpha = {alpha}")
    print(f"fits {t1 - t0:.0f} s, calibration {t2 - t1:.0f} s (n_jobs = 2)\n")
    print(raw.to_string(), "\n")
    print(cal.to_string(), "\n")
    for name, m in (("raw AIC", raw), ("calibrated", cal)):
        fs = n1 - m.loc["1L", "1L"]
        rate = fs / n1
        se = np.sqrt(alpha * (1 - alpha) / n1)
        deep = m.loc[["2L", "2NL"]]
        print(f"{name}: false selection on 1L animals {fs}/{n1} = {rate:.3f} (bound alpha + 3 s.e. = "
              f"{alpha + 3 * se:.3f}); deep animals kept deep {int(deep[['2L', '2NL']].to_numpy().sum())}/{2 * nd}")
    print()
    print(res.per_group.round(2).to_string())
    print(res.headline())


if __name__ == "__main__":
    main()
