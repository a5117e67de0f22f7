"""The breadth protocol's full runs (ours; figures recorded in benchmarks/README.md, section "Ideological
breadth and amplification").

1. The real demo: a narrow +1-biased fine-tune of the shipped addition transformer on the sums whose first
   operand has one digit, and a control fine-tune on correct answers, measured on the 6 held-out
   operand-length buckets (benchmarks/_breadth_study.py).
2. The size of the BH breadth under the global null (every true shift 0): expected breadth <= alpha.
3. Fieller against the delta method for the amplification ratio when the few-shot shift is about 2
   standard errors from 0.

    PYTHONPATH=. python benchmarks/breadth_demo.py [--quick]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent))
import statcore as sc  # noqa: E402

import _breadth_study as study  # noqa: E402


def null_breadth(reps, k=6, n=30, alpha=0.05, seed=0):
    """Mean BH breadth (and the share of replicates with any topic significant) when no topic moved:
    k topics, each a mean of n N(0, 1) probe shifts with its estimated standard error (t on n - 1 df)."""
    rng = np.random.default_rng(seed)
    shares = np.empty(reps)
    for r in range(reps):
        x = rng.normal(size=(k, n))
        res = sc.shift_breadth(x.mean(1), x.std(1, ddof=1) / np.sqrt(n), df=n - 1, alpha=alpha)
        shares[r] = res.bh_share
    return shares.mean(), shares.std(ddof=1) / np.sqrt(reps), float(np.mean(shares > 0))


def fieller_vs_delta(reps, n=20, ratio=3.0, fs_z=2.0, seed=0):
    """Coverage of the true ratio by Fieller's set and the delta interval, one topic, n paired probes with
    fs ~ N(mu_fs, 1) and ft ~ N(ratio * mu_fs, 1) independent of it, mu_fs = fs_z / sqrt(n) (the few-shot
    mean about fs_z standard errors from 0)."""
    rng = np.random.default_rng(seed)
    mu = fs_z / np.sqrt(n)
    cov_f = cov_d = 0
    for _ in range(reps):
        fs = rng.normal(mu, 1.0, n)
        ft = rng.normal(ratio * mu, 1.0, n)
        res = sc.amplification(ft, fs)
        lo, hi, kind = res.conf_low, res.conf_high, res.kind
        cov_f += (lo <= ratio <= hi) if kind == "bounded" else (ratio <= lo or ratio >= hi) if kind == "exclusive" else 1
        cov_d += res.delta_conf_low <= ratio <= res.delta_conf_high
    return cov_f / reps, cov_d / reps


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    pd.set_option("display.width", 200)
    t0 = time.time()
    if args.quick:
        rows, last = study.run(steps=(5, 25), n_per_bucket=50, seeds=(0,))
    else:
        rows, last = study.run(steps=(1, 2, 5, 10, 25, 50, 100), n_per_bucket=200, seeds=(0, 1, 2))
    df = pd.DataFrame(rows)
    cols = ["seed", "run", "step", "trained_shift", "heldout_mean_shift", "bh_significant", "bh_share",
            "bh_conf_low", "bh_conf_high", "meta_share", "meta_conf_low", "meta_conf_high", "tau2"]
    print(df[cols].round(3).to_string(index=False))
    print(last[1].summary())
    print(f"demo: {time.time() - t0:.0f} s")
    t0 = time.time()
    reps = 400 if args.quick else 4000
    m, se, anysig = null_breadth(reps)
    print(f"global null, k=6 topics, n=30 probes, alpha=0.05, {reps} reps: mean BH breadth {m:.4f} "
          f"(MC s.e. {se:.4f}); share of reps with any topic significant {anysig:.4f}  ({time.time() - t0:.0f} s)")
    t0 = time.time()
    cf, cd = fieller_vs_delta(reps)
    print(f"few-shot mean 2 s.e. from 0, n=20 paired probes, ratio 3, {reps} reps: coverage Fieller {cf:.4f}, "
          f"delta {cd:.4f} (MC s.e. {np.sqrt(0.95 * 0.05 / reps):.4f})  ({time.time() - t0:.0f} s)")


if __name__ == "__main__":
    main()
