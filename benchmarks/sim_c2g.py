"""The simulations of Tosh, Zhang & Tansey (2025, Section 5) for statcore's C2G: FDR and power.

Two settings, P = 10 covariates X ~ N(0, I / P), unit-variance Gaussian noise:

* additive: randomised treatment T ~ Bernoulli(1/2), mu0(x) = x beta,
  mu1(x) = mu0(x) + tau |x| . |gamma| (absolute values taken elementwise, as the authors'
  simulator, causal2groups/simulated_data.py), responders h = T * Bernoulli(logistic(x theta));
* non-additive, confounded: T ~ Bernoulli(logistic(x gamma)), responders as above,
  y = (c logistic(x gamma) + tau' h (1 + |x' B x|) U)^2 + N(0, 1) with U ~ U(0, 2),
  tau' = sqrt(1 + tau) / 2, c = |N(0, 4)|, B a sparse matrix of t_3 entries (10% non-zero).

Methods: C2G additive and nonparametric (Bayes and empirical control) against Benjamini-Hochberg on
the conditional-null p-values 1 - Phi(y - mu0(x)) computed from the TRUE null mean (an oracle
baseline: BH gets the null model for free, C2G learns it from the controls).

Run: python benchmarks/sim_c2g.py [n_rep] [n]  (prints a table: mean realised FDR with its Monte
Carlo standard error, and mean power, per setting, tau, method and target level).
"""
from __future__ import annotations

import sys
import time

import pandas as pd

from statcore.ebayes._c2g_designs import one_replicate, table


def simulate(n_rep=20, n=1000, taus=(1, 3, 5), settings=("additive", "nonadditive")):
    rows = []
    for setting in settings:
        methods = ("additive", "nonparametric") if setting == "additive" else ("nonparametric", "additive")
        for tau in taus:
            for rep in range(n_rep):
                rows += one_replicate(setting, n, tau, 10_000 * tau + rep, methods)
    return pd.DataFrame(rows)


if __name__ == "__main__":
    n_rep = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    t0 = time.perf_counter()
    df = simulate(n_rep, n)
    pd.set_option("display.width", 140, "display.max_rows", 500)
    print(table(df).to_string())
    print(f"\n{n_rep} replicates per cell, n = {n}; {time.perf_counter() - t0:.0f} s")
