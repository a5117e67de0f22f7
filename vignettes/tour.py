# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---

# %% [markdown]
# # A tour of statcore: multiple testing the way R does it
#
# A screen of 20,000 one-sided z-tests, 10% of them with a real effect. We adjust the p-values by
# every method R knows (and three more), estimate Storey's q-values and local FDRs as Bioconductor's
# qvalue does, and select discoveries by the Bayesian FDR rule. Figures go to `figures/`.

# %%
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import numpy as np
import pandas as pd
from scipy.special import ndtr

import statcore as sc

FIG = Path("figures")
FIG.mkdir(exist_ok=True)

rng = np.random.default_rng(2026)
m = 20_000
effect = rng.uniform(size=m) < 0.10
z = rng.standard_normal(m) + 3.0 * effect
p = pd.Series(ndtr(-z), index=[f"gene{i:05d}" for i in range(m)], name="p")

# %% [markdown]
# ## p_adjust: R's p.adjust, every method, a Series in and a Series out

# %%
fwer = ["bonferroni", "holm", "hochberg", "hommel", "sidak", "holm-sidak"]   # family-wise error rate
fdr = ["BH", "BY", "BKY", "ABH", "TSBH", "BlaRoq"]                            # false discovery rate
assert set(fwer + fdr + ["none"]) == set(sc.p_adjust_methods) - {"fdr"}       # ("fdr" is BH's alias)
adjusted = pd.DataFrame({meth: sc.p_adjust(p, method=meth) for meth in fwer + fdr + ["none"]})
calls = pd.DataFrame({
    "error rate": ["FWER"] * len(fwer) + ["FDR"] * len(fdr) + ["-"],
    "discoveries": (adjusted <= 0.05).sum(),
    "false": ((adjusted <= 0.05) & ~effect[:, None]).sum(),
})
calls["FDP"] = (calls["false"] / calls["discoveries"].clip(lower=1)).round(3)
print("Calls at level 0.05: FWER methods, then FDR methods, then no adjustment")
print(calls.to_string())
print()
print(adjusted.head(3).round(4).to_string())

# %% [markdown]
# ## qvalue: Storey's q-values, pi0 by R's smoothing spline, local FDR

# %%
qv = sc.qvalue(p, fdr_level=0.05)
print(qv.summary())
top = qv.to_frame().sort_values("p_value").head(5)
# four significant digits in one format, as R prints a column of small numbers (rounding to five
# decimals would print every one of them as 0.0)
print(top.to_string(formatters={c: "{:.3e}".format for c in ("p_value", "q_value", "lfdr")}))
axes = qv.plot()                      # plot() returns the Axes it drew on
axes.flat[0].figure.savefig(FIG / "qvalue.png", dpi=100)
print(f"\npi0 = {qv.pi0:.4f} (truth {1 - effect.mean():.4f}); saved {FIG / 'qvalue.png'}")

# %% [markdown]
# ## Bayesian FDR selection on the local FDRs (Sun & Cai 2007)

# %%
sel = sc.bfdr_select(qv.lfdr, alpha=0.05)
print(sel.summary())
print(f"realised FDP of the selection: {(sel.selected & ~effect).sum() / max(sel.n_selected, 1):.4f}")
ax = sel.plot()
ax.figure.savefig(FIG / "bfdr.png", dpi=100)
print(f"saved {FIG / 'bfdr.png'}")
