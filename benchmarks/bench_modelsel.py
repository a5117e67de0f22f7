"""Time statcore's per-group model comparison (issue: AIC model comparison) in one run.

    python benchmarks/bench_modelsel.py          # 10^4 groups x 3 models, B = 1000
    python benchmarks/bench_modelsel.py --quick

Prints median wall times of several runs for
- statcore.compare_by_group without bootstrap (the table) and with a 1,000-replicate bootstrap,
- the same win counts by hand with pandas (long table, groupby + idxmin) as a peer,
- a hand-written bootstrap that resamples the groups with pandas (timed on fewer replicates and
  scaled linearly to B, as stated in the output),
- the per-call overhead of statcore.aic on a statsmodels OLS fit against statsmodels' own .aic.
"""
from __future__ import annotations

import argparse

import numpy as np
import pandas as pd
import statsmodels.api as sm

import statcore as sc
from statcore import LogLik
from _timing import median_time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    G = 1000 if args.quick else 10_000
    B = 1000
    reps = 3 if args.quick else 5
    rng = np.random.default_rng(0)
    base = -rng.uniform(400, 600, G)
    gain = rng.normal(4, 5, G)
    names = ["1L", "2L", "2NL"]
    dfs = [5, 8, 8]
    lls = np.column_stack([base, base + gain / 2, base + gain + 3])
    fits = {f"animal{i}": {n: LogLik(lls[i, j], dfs[j], 2000) for j, n in enumerate(names)} for i in range(G)}

    t_table = median_time(lambda: sc.compare_by_group(fits, B=0), reps)
    t_boot = median_time(lambda: sc.compare_by_group(fits, B=B, seed=1), reps)

    long = pd.DataFrame({"group": np.repeat(list(fits), 3), "model": names * G,
                         "AIC": (-2 * lls + 2 * np.array(dfs)).ravel()})

    def pandas_wins():
        best = long.loc[long.groupby("group", sort=False)["AIC"].idxmin(), "model"]
        return best.value_counts()

    t_pandas = median_time(pandas_wins, reps)
    best = long.loc[long.groupby("group", sort=False)["AIC"].idxmin(), ["group", "model"]].set_index("group")["model"]
    b_small = 20

    def pandas_boot():
        r = np.random.default_rng(1)
        out = []
        for _ in range(b_small):
            out.append(best.sample(G, replace=True, random_state=r).value_counts())
        return out

    t_pboot = median_time(pandas_boot, max(1, reps - 2)) * B / b_small

    x = np.arange(200.0)
    y = 1 + 0.1 * x + np.sin(x)
    ols = sm.OLS(y, sm.add_constant(x)).fit()
    n_calls = 2000
    t_sc_aic = median_time(lambda: [float(sc.aic(ols)) for _ in range(n_calls)], reps) / n_calls
    t_sm_aic = median_time(lambda: [ols.aic for _ in range(n_calls)], reps) / n_calls

    print(f"compare_by_group: {G} groups x 3 models (medians of {reps} runs)")
    print(f"{'task':<44}{'statcore':>12}{'peer':>12}{'peer/statcore':>15}")
    print(f"{'table, no bootstrap (pandas groupby idxmin)':<44}{t_table:>11.3f}s{t_pandas:>11.3f}s{t_pandas / t_table:>15.2f}")
    print(f"{f'with bootstrap B={B} (pandas resample loop*)':<44}{t_boot:>11.3f}s{t_pboot:>11.2f}s{t_pboot / t_boot:>15.1f}")
    print(f"{'aic() of one OLS fit (statsmodels .aic)':<44}{t_sc_aic * 1e6:>10.1f}us{t_sm_aic * 1e6:>10.2f}us{t_sm_aic / t_sc_aic:>15.3f}")
    print(f"* pandas bootstrap timed on {b_small} replicates and scaled to {B}")
    print()
    print(sc.compare_by_group(fits, B=B, seed=1))


if __name__ == "__main__":
    main()
