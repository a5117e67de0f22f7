"""The simulations of Tosh, Zhang & Tansey (2025, Section 5) for statcore's C2G: FDR and power.

Two settings, P = 10 covariates X ~ N(0, I / P), unit-variance Gaussian noise:

* additive: randomised treatment T ~ Bernoulli(1/2), mu0(x) = x beta,
  mu1(x) = mu0(x) + tau |x gamma|, responders h = T * Bernoulli(logistic(x theta));
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

import numpy as np
import pandas as pd
from scipy.special import expit
from scipy.stats import norm

from statcore.ebayes.c2g import c2g
from statcore.multitest import p_adjust

LEVELS = (0.05, 0.1, 0.2)


def additive_setting(n, tau, seed, P=10):
    rng = np.random.default_rng(seed)
    beta, gamma, theta = (rng.normal(0, 1 / np.sqrt(P), P) for _ in range(3))
    X = rng.normal(0, 1 / np.sqrt(P), (n, P))
    t = rng.random(n) < 0.5
    h = t & (rng.random(n) < expit(X @ theta))
    mu0 = X @ beta
    y = rng.normal(mu0 + tau * np.abs(X @ gamma) * h, 1.0)
    return X, y, t, h, mu0


def nonadditive_setting(n, tau, seed, P=10):
    rng = np.random.default_rng(seed)
    beta, gamma = (rng.normal(0, 1 / np.sqrt(P), P) for _ in range(2))
    c = abs(rng.normal(0, 2))
    B = (rng.random((P, P)) <= 0.1) * rng.standard_t(3, (P, P))
    X = rng.normal(0, 1 / np.sqrt(P), (n, P))
    w = expit(X @ gamma)
    t = rng.random(n) < w
    h = t & (rng.random(n) < expit(X @ beta))
    inter = np.abs(np.einsum("ij,jk,ik->i", X, B, X))
    offset0 = c * w
    offset = offset0 + np.sqrt(1 + tau) / 2 * h * (1 + inter) * rng.uniform(0, 2, n)
    y = rng.normal(offset ** 2, 1.0)
    return X, y, t, h, offset0 ** 2


def _fdp_power(sel, h):
    n_sel = int(sel.sum())
    return (float(np.mean(~h[sel])) if n_sel else 0.0), float(h[sel].sum() / max(h.sum(), 1))


def one_replicate(setting, n, tau, seed, methods):
    make = additive_setting if setting == "additive" else nonadditive_setting
    X, y, t, h, mu0 = make(n, tau, seed)
    rows = []
    p = norm.sf(y - mu0)
    for alpha in LEVELS:
        q = p_adjust(p[t], method="BH")
        sel = np.zeros(n, bool)
        sel[np.flatnonzero(t)[q <= alpha]] = True
        rows.append(("BH (oracle null)", alpha, *_fdp_power(sel, h)))
    for model in methods:
        for control in ("bayes", "empirical"):
            res = c2g(y, t, X, model=model, alpha=LEVELS[0], control=control, seed=seed)
            q = np.asarray(res.q_values)
            for alpha in LEVELS:
                rows.append((f"C2G {model}{'-EC' if control == 'empirical' else ''}", alpha,
                             *_fdp_power(q <= alpha, h)))
    return [dict(setting=setting, tau=tau, seed=seed, method=m, alpha=a, fdp=f, power=pw)
            for m, a, f, pw in rows]


def simulate(n_rep=20, n=1000, taus=(1, 3, 5), settings=("additive", "nonadditive")):
    rows = []
    for setting in settings:
        methods = ("additive", "nonparametric") if setting == "additive" else ("nonparametric", "additive")
        for tau in taus:
            for rep in range(n_rep):
                rows += one_replicate(setting, n, tau, 10_000 * tau + rep, methods)
    return pd.DataFrame(rows)


def table(df):
    g = df.groupby(["setting", "tau", "method", "alpha"])
    out = g.agg(fdr=("fdp", "mean"), fdr_se=("fdp", lambda v: v.std(ddof=1) / np.sqrt(len(v))),
                power=("power", "mean"), reps=("fdp", "size"))
    return out.round(3)


if __name__ == "__main__":
    n_rep = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    t0 = time.perf_counter()
    df = simulate(n_rep, n)
    pd.set_option("display.width", 140, "display.max_rows", 500)
    print(table(df).to_string())
    print(f"\n{n_rep} replicates per cell, n = {n}; {time.perf_counter() - t0:.0f} s")
