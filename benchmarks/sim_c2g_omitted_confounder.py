"""C2G nonparametric on the vignette's confounded design (vignettes/c2g_immunotherapy.py): realised
FDR with and without the confounder ECOG among the covariates.

Treatment depends on PD-L1 and ECOG, the null outcome on ECOG, NLR and age, response on TMB,
PD-L1 and NLR. The nonparametric model assumes that the controls' outcome density at x is the
treated non-responders' one; without ECOG in x that fails (the treated are fitter), and the bound
reads the shift as response.

Run: python benchmarks/sim_c2g_omitted_confounder.py [n_rep=20]
Prints mean realised FDP (Monte Carlo s.e.), power and mean pi* against the true ERPF per
covariate set, alpha = 0.1, n = 1600, B = 100.
"""
from __future__ import annotations

import sys
import time

import numpy as np
import pandas as pd
from scipy.special import expit

from statcore.ebayes import c2g

SETS = {"TMB, PDL1, NLR (ECOG omitted)": ["TMB", "PDL1", "NLR"],
        "TMB, PDL1, NLR, ECOG": ["TMB", "PDL1", "NLR", "ECOG"]}


def vignette_data(seed, n=1600):
    rng = np.random.default_rng(seed)
    bio = pd.DataFrame({k: rng.normal(size=n) for k in ["TMB", "PDL1", "NLR", "ECOG", "age", "LDH"]})
    treated = rng.random(n) < expit(0.9 * bio.PDL1 - 0.7 * bio.ECOG)
    pi = expit(-0.6 + 1.4 * bio.TMB + 0.9 * bio.PDL1 - 0.8 * bio.NLR).to_numpy()
    responder = treated & (rng.random(n) < pi)
    mu0 = (-0.8 * bio.ECOG - 0.5 * bio.NLR + 0.3 * bio.age).to_numpy()
    y = mu0 + (2.5 + 0.6 * bio.TMB.to_numpy()) * responder + rng.normal(0, 1, n)
    return bio, y, treated.to_numpy(), responder, pi


def main(n_rep):
    rows = []
    t0 = time.perf_counter()
    for rep in range(n_rep):
        bio, y, t, h, pi = vignette_data(2025 + rep)
        for name, cols in SETS.items():
            res = c2g(y, t, bio[cols].to_numpy(), model="nonparametric", alpha=0.1, seed=rep)
            sel = np.asarray(res.selected)
            rows.append(dict(covariates=name, fdp=float(np.mean(~h[sel])) if sel.any() else 0.0,
                             power=float(h[sel].sum() / h.sum()), erpf_lower=res.erpf, erpf=float(pi[t].mean())))
        print(f"replicate {rep + 1}/{n_rep} done, {time.perf_counter() - t0:.0f} s", flush=True)
    df = pd.DataFrame(rows)
    out = df.groupby("covariates").agg(fdr=("fdp", "mean"), fdr_se=("fdp", lambda v: v.std(ddof=1) / np.sqrt(len(v))),
                                       power=("power", "mean"), mean_pistar=("erpf_lower", "mean"),
                                       true_erpf=("erpf", "mean"), reps=("fdp", "size"))
    print(out.round(3).to_string())


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
