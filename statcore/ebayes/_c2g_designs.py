"""The simulation designs of Tosh, Zhang & Tansey (2025, Section 5) for C2G, shared by the CI-sized
test (tests/statcore/ebayes/test_c2g_paper_sims.py) and the full run (benchmarks/sim_c2g.py).

Two settings, P = 10 covariates X ~ N(0, I / P), unit-variance Gaussian noise:

* additive: randomised treatment T ~ Bernoulli(1/2), mu0(x) = x beta,
  mu1(x) = mu0(x) + tau |x| . |gamma| (absolute values taken elementwise, as the authors'
  simulator, causal2groups/simulated_data.py), responders h = T * Bernoulli(logistic(x theta));
* non-additive, confounded: T ~ Bernoulli(logistic(x gamma)), responders as above,
  y = (c logistic(x gamma) + tau' h (1 + |x' B x|) U)^2 + N(0, 1) with U ~ U(0, 2),
  tau' = sqrt(1 + tau) / 2, c = |N(0, 4)|, B a sparse matrix of t_3 entries (10% non-zero).

``one_replicate`` runs C2G (Bayes and empirical control) and Benjamini-Hochberg on the oracle
conditional-null p-values 1 - Phi(y - mu0(x)) on one data set; ``table`` summarises replicates.
"""
from __future__ import annotations

import numpy as np
from scipy.special import expit
from scipy.stats import norm

from ..multitest import p_adjust
from ._c2g import c2g

__all__ = ["LEVELS", "additive_setting", "nonadditive_setting", "one_replicate", "table"]

LEVELS = (0.05, 0.1, 0.2)
def additive_setting(n, tau, seed, P=10):
    rng = np.random.default_rng(seed)
    beta, gamma, theta = (rng.normal(0, 1 / np.sqrt(P), P) for _ in range(3))
    X = rng.normal(0, 1 / np.sqrt(P), (n, P))
    t = rng.random(n) < 0.5
    h = t & (rng.random(n) < expit(X @ theta))
    mu0 = X @ beta
    y = rng.normal(mu0 + tau * (np.abs(X) @ np.abs(gamma)) * h, 1.0)
    return X, y, t, h, mu0


def nonadditive_setting(n, tau, seed, P=10, return_pi=False):
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
    if return_pi:
        return X, y, t, h, offset0 ** 2, expit(X @ beta)
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


def table(df):
    g = df.groupby(["setting", "tau", "method", "alpha"])
    out = g.agg(fdr=("fdp", "mean"), fdr_se=("fdp", lambda v: v.std(ddof=1) / np.sqrt(len(v))),
                power=("power", "mean"), reps=("fdp", "size"))
    return out.round(3)
