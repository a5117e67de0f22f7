"""C2G additive model with covariates under the global null: realised FDR (= the probability of
selecting anyone, since every selection is false) at small n.

Design: P = 3 covariates X ~ N(0, I), mu0(x) = x (0.5, 0, -0.5), unit-variance Gaussian noise,
treatment T ~ Bernoulli(1/2), nobody responds. For each n in {50, 100, 200}, ``n_rep`` seeded data
sets (data seed 100 + replicate, fit seed = replicate); alpha = 0.1 and 0.05 (one fit each: the
q-values give both levels).

Run: python benchmarks/size_c2g_global_null.py [n_rep=500] [n ...] [--first REP=0] (replicates
REP..REP + n_rep - 1: a run can be extended by more data sets, or split across processes)
Prints, per n and level, the rejection rate (any selection) with its Monte Carlo s.e. and the
bound alpha + 3 s.e. (s.e. at the level: sqrt(alpha (1 - alpha) / n_rep)); also the EM's
convergence rate and the mean number of iterations.
"""
from __future__ import annotations

import sys
import time

import numpy as np

from statcore.ebayes import c2g


def data(n, seed, P=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, P))
    t = rng.random(n) < 0.5
    y = rng.normal(X @ np.linspace(0.5, -0.5, P), 1.0)
    return X, y, t


def run(n, n_rep, levels=(0.05, 0.1), first=0):
    anysel = {a: [] for a in levels}
    conv, iters = [], []
    for rep in range(first, first + n_rep):
        X, y, t = data(n, 100 + rep)
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = c2g(y, t, X, alpha=max(levels), seed=rep)
        q = np.asarray(res.q_values)
        for a in levels:
            anysel[a].append(bool(np.any(q <= a)))
        conv.append(res.converged)
        iters.append(res.n_iter)
        if len(conv) % 25 == 0:
            print(f"  n = {n}: replicates {first}..{rep}, any selection at alpha = "
                  + ", ".join(f"{a}: {int(np.sum(anysel[a]))}" for a in levels), file=sys.stderr, flush=True)
    return {a: np.mean(v) for a, v in anysel.items()}, float(np.mean(conv)), float(np.mean(iters))


if __name__ == "__main__":
    args = sys.argv[1:]
    first = 0
    if "--first" in args:
        i = args.index("--first")
        first = int(args[i + 1])
        del args[i:i + 2]
    n_rep = int(args[0]) if args else 500
    ns = [int(v) for v in args[1:]] or [50, 100, 200]
    for n in ns:
        t0 = time.perf_counter()
        rates, conv, iters = run(n, n_rep, first=first)
        for a, r in rates.items():
            se = np.sqrt(a * (1 - a) / n_rep)
            print(f"n = {n:4d}  alpha = {a:.2f}  any selection {r:.3f} (MC s.e. {np.sqrt(r * (1 - r) / n_rep):.3f}), "
                  f"bound {a + 3 * se:.3f}  {'ok' if r <= a + 3 * se else 'EXCEEDED'}")
        print(f"           EM converged {conv:.3f}, mean iterations {iters:.1f}; {n_rep} replicates, "
              f"{time.perf_counter() - t0:.0f} s", flush=True)
