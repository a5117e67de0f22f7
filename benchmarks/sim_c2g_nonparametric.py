"""C2G's nonparametric model in the paper's confounded, non-additive design (Tosh, Zhang & Tansey
2025, Section 5; statcore/ebayes/_c2g_designs.py): power, realised FDR and pi*(x) against the truth
for the y-bandwidth and bootstrap-band options of ``c2g`` (issue 23, section 1).

Design: P = 10, n = 1000, tau = 3 by default (``nonadditive_setting(n, tau, seed)``, data set
seeds 1..n_rep, fit seed = data set seed). Variants (``control="bayes"``):

* shared / simultaneous: one y-bandwidth (the larger of the two groups'), simultaneous band for
  pi* (the behaviour before the ``bandwidth`` and ``band`` options);
* per_group / simultaneous: the default;
* per_group / pointwise: the paper's pointwise quantiles for pi*.

Per variant and level (0.05 / 0.1 / 0.2): mean realised FDR with its Monte Carlo s.e. and the
bound alpha + 3 s.e., mean power; per variant: mean pi* over the treated against the true ERPF (mean
pi(x) over the treated), the number of data sets where it exceeded the truth, and the mean share of
treated units with pi*(x) > pi(x).

``--reference DIR`` adds the authors' code (tansey-lab/causal2groups, KernelNonparametricCausal2G
run separately on the same data sets) from files DIR/ref_tau{tau}_seed{seed}.npz holding the
per-unit arrays ``lfdr`` (its null posterior) and ``pistar``; selection by ``bfdr_select``, the
rule both use.

Run: python benchmarks/sim_c2g_nonparametric.py [n_rep=6] [tau=3] [--reference DIR]
[--variants a,b (none: the reference only)] [--first SEED=1] [--out rows.csv (written after each
data set)]
"""
from __future__ import annotations

import os
import sys
import time
import warnings

import numpy as np
import pandas as pd

from statcore.ebayes import c2g
from statcore.ebayes._c2g_designs import nonadditive_setting
from statcore.multitest import bfdr_select

LEVELS = (0.05, 0.1, 0.2)
VARIANTS = {"shared/simultaneous": dict(bandwidth="shared", band="simultaneous"),
            "per_group/simultaneous": dict(bandwidth="per_group", band="simultaneous"),
            "per_group/pointwise": dict(bandwidth="per_group", band="pointwise")}


def _rows(name, seed, sel_at, h, pistar_t, pi_t):
    out = []
    for a in LEVELS:
        sel = sel_at(a)
        n_sel = int(sel.sum())
        out.append(dict(method=name, seed=seed, alpha=a, fdp=float(np.mean(~h[sel])) if n_sel else 0.0,
                        power=float(h[sel].sum() / max(h.sum(), 1)), erpf_hat=float(pistar_t.mean()),
                        erpf_true=float(pi_t.mean()), share_above=float(np.mean(pistar_t > pi_t))))
    return out


def simulate(n_rep=6, tau=3, n=1000, reference=None, variants=tuple(VARIANTS), first=1, out=None):
    rows = []
    for seed in range(first, first + n_rep):
        X, y, t, h, _, pi = nonadditive_setting(n, tau, seed, return_pi=True)
        for name in variants:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = c2g(y, t, X, model="nonparametric", alpha=0.1, seed=seed, **VARIANTS[name])
            q = np.asarray(res.q_values)
            rows += _rows(name, seed, lambda a: q <= a, h, np.asarray(res.pi)[t], pi[t])
        path = None if reference is None else os.path.join(reference, f"ref_tau{tau}_seed{seed}.npz")
        if path is not None and os.path.exists(path):
            ref = np.load(path)
            tidx = np.flatnonzero(t)

            def sel_at(a, lf=ref["lfdr"]):
                sel = np.zeros(n, bool)
                sel[tidx[np.asarray(bfdr_select(lf[t], alpha=a).selected)]] = True
                return sel
            rows += _rows("authors' code", seed, sel_at, h, ref["pistar"][t], pi[t])
        if out is not None:
            pd.DataFrame(rows).to_csv(out, index=False)
        print(f"data set {seed} done", file=sys.stderr, flush=True)
    return pd.DataFrame(rows)


def table(df):
    g = df.groupby(["method", "alpha"], sort=False)
    out = g.agg(fdr=("fdp", "mean"), fdr_se=("fdp", lambda v: v.std(ddof=1) / np.sqrt(len(v))),
                power=("power", "mean"), reps=("fdp", "size"))
    out["bound"] = out.index.get_level_values("alpha") + 3 * out.fdr_se
    out["held"] = out.fdr <= out.bound
    pis = df[df.alpha == LEVELS[0]].groupby("method", sort=False).agg(
        erpf_hat=("erpf_hat", "mean"), erpf_true=("erpf_true", "mean"),
        sets_above=("erpf_hat", lambda v: int((v.values > df.loc[v.index, "erpf_true"].values).sum())),
        share_units_above=("share_above", "mean"))
    return out.round(3), pis.round(3)


if __name__ == "__main__":
    args = sys.argv[1:]
    reference = None
    variants = tuple(VARIANTS)
    if "--reference" in args:
        i = args.index("--reference")
        reference = args[i + 1]
        del args[i:i + 2]
    if "--variants" in args:
        i = args.index("--variants")
        variants = tuple(v for v in args[i + 1].split(",") if v in VARIANTS)
        del args[i:i + 2]
    first, out = 1, None
    if "--first" in args:
        i = args.index("--first")
        first = int(args[i + 1])
        del args[i:i + 2]
    if "--out" in args:
        i = args.index("--out")
        out = args[i + 1]
        del args[i:i + 2]
    n_rep = int(args[0]) if args else 6
    tau = float(args[1]) if len(args) > 1 else 3
    tau = int(tau) if tau == int(tau) else tau
    t0 = time.perf_counter()
    df = simulate(n_rep, tau, reference=reference, variants=variants, first=first, out=out)
    fdr, pis = table(df)
    pd.set_option("display.width", 160)
    print(fdr.to_string())
    print()
    print(pis.to_string())
    print(f"\n{n_rep} data sets, n = 1000, tau = {tau}; {time.perf_counter() - t0:.0f} s")
