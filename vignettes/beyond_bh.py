# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---

# %% [markdown]
# # Beyond BH: knockoffs on the diabetes data, derandomised knockoffs, adaptive step-ups
#
# Benjamini-Hochberg needs one valid p-value per hypothesis. This vignette tries the tools that go
# further (see the guide page *Beyond BH*):
#
# 1. **Knockoffs on a real design.** scikit-learn's diabetes data (shipped with scikit-learn, no
#    download): 442 patients, 10 baseline covariates, a disease-progression score. We add 90 simulated
#    covariates that are null by construction and ask the knockoff filter which of the 100 it selects,
#    with model-X Gaussian knockoffs (mean and covariance estimated) and fixed-X knockoffs
#    (n = 442 >= 2p = 200), at FDR 0.1 and 0.2.
# 2. **Stability across seeds.** One knockoff draw is random. Ten seeds, selection frequency of each
#    covariate, for the ordinary filter (`derandomize=1`) and derandomised knockoffs (`derandomize=10`,
#    Ren & Barber 2024).
# 3. **Adaptive step-ups against BH and q-values** on seeded simulations with known truth (pi0 = 0.5,
#    0.8, 0.95): realised FDR and power of each procedure.
#
# Figures go to `figures/`. The script runs in well under a minute on one core.

# %%
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy import stats
from sklearn.datasets import load_diabetes
from sklearn.linear_model import lars_path

import statcore as sc

FIG = Path("figures")
FIG.mkdir(exist_ok=True)
t_start = time.perf_counter()

diabetes = load_diabetes(as_frame=True)
real = diabetes.data
real = (real - real.mean()) / real.std()            # standardised (scikit-learn ships them scaled)
y = diabetes.target.to_numpy()
n = len(y)
print(f"{n} patients, real covariates: {list(real.columns)}")
print("largest |correlation| among the real covariates:",
      round(float(np.abs(np.corrcoef(real.T) - np.eye(10)).max()), 2), "(s1 and s2)")

# %% [markdown]
# ## 1. Ten real covariates and 90 nulls
#
# The 90 added covariates are **independent standard Gaussians**, drawn once from a fixed seed and
# independent of everything else: they are null in the strongest sense (independent of y and of the
# real covariates). Which of the ten real covariates matter is not known; the full least-squares
# fit and its t-tests (valid here: n = 442 rows for 101 coefficients) serve as a yardstick, with BH
# at the same level.
#
# The knockoff statistic is R's `stat.lasso_lambdasmax` (`statistic="lasso_lambdasmax"`): the
# lambda at which each variable or its knockoff enters the lasso path, signed by which comes first.
# The threshold at 0.1 is computed from the same statistics with `knockoff_threshold`.
#
# The S-matrix is MVR (minimum variance-based reconstructability, Spector & Janson 2022) rather than
# R's default SDP: s1 and s2 correlate at 0.9 and the smallest eigenvalue of the estimated
# correlation matrix is 0.009, the case where the SDP makes knockoffs that are nearly their variables'
# copies for some columns (on the ten real covariates alone it sets s = 0 for s1, s2 and s3: their
# knockoffs equal them, and they can never be selected) while MVR spreads the distance; it is also
# faster to solve (0.02 s against 0.22 s on this covariance, measured while writing this vignette).

# %%
rng = np.random.default_rng(20240531)
nulls = pd.DataFrame(rng.standard_normal((n, 90)), columns=[f"null{k:02d}" for k in range(90)])
X = pd.concat([real, nulls], axis=1)
is_real = np.r_[np.ones(10, bool), np.zeros(90, bool)]

# the yardstick: OLS t-tests of the full model, BH
A = np.column_stack([np.ones(n), X.to_numpy()])
beta, *_ = np.linalg.lstsq(A, y, rcond=None)
resid = y - A @ beta
df = n - A.shape[1]
se = np.sqrt(resid @ resid / df * np.diag(np.linalg.inv(A.T @ A)))
p_ols = 2 * stats.t.sf(np.abs(beta / se), df)[1:]


def describe(selected):
    sel = np.asarray(selected, dtype=bool)
    names = list(X.columns[sel & is_real])
    return f"{len(names)} real {names}, {int((sel & ~is_real).sum())} of the 90 nulls"


rows = []
for fdr in (0.1, 0.2):
    rows.append(("BH on OLS t-tests", fdr, describe(sc.p_adjust(p_ols, method="BH") <= fdr)))
t0 = time.perf_counter()
fits = {
    "model-X Gaussian (Sigma estimated), MVR": sc.knockoff_filter(
        X, y, knockoffs="gaussian", statistic="lasso_lambdasmax", method="mvr", fdr=0.2, seed=1),
    "fixed-X, MVR": sc.knockoff_filter(
        X, y, knockoffs="fixed", statistic="lasso_lambdasmax", method="mvr", fdr=0.2, seed=1),
}
t_knock = time.perf_counter() - t0
for label, res in fits.items():
    for fdr in (0.1, 0.2):
        for offset, kind in ((1, "knockoff+"), (0, "knockoff")):
            T = sc.knockoff_threshold(res.W, fdr=fdr, offset=offset)
            rows.append((f"{label}, {kind}", fdr, describe(res.W >= T)))
table = pd.DataFrame(rows, columns=["procedure", "fdr", "selected"])
print(table.to_string(index=False))
print(f"(two knockoff filters in {t_knock:.1f} s)")

# %%
W = pd.Series(fits["model-X Gaussian (Sigma estimated), MVR"].W, index=X.columns)
print("largest |W| (model-X):")
print(W.reindex(W.abs().sort_values(ascending=False).index).head(8).round(1).to_string())

# %% [markdown]
# What this run shows (the seeds are fixed, so these are the numbers printed above). BH on the
# t-tests selects sex, bmi, bp and s5 at both levels, and also two of the 90 nulls. The model-X
# knockoff statistics are largest in absolute value for bmi, s5, bp and s3, then the nulls; but s5's
# W is negative (its knockoff entered the lasso path first: s5 is correlated with s1, s2 and s4 and
# its knockoff stays close to it). Knockoff+ selects a set of size k only when
# (1 + #{W_j <= -T}) / k <= fdr, so at FDR 0.1 it needs at least ten selections and at 0.2 at least
# five; with s5 counted against it, the model-X filter selects nothing at either level. The fixed-X
# filter selects bmi, bp, s3, s5 and one null at 0.2, nothing at 0.1. Knockoff (offset 0, which
# controls a modified FDR) has no "+1" and selects more readily.
# This is the known price of knockoffs when signals are few; their advantage is needing no
# p-values (a lasso, or any model, makes W) and a finite-sample guarantee for the conditional
# hypotheses, not power on a small linear problem where the t-tests are valid.
#
# ## 2. Stability: ten seeds, one draw against ten
#
# To keep the loop fast the statistic here is the same lasso entry point computed exactly by LARS
# (scikit-learn's `lars_path`), passed as a callable `f(X, Xk, y)`; the built-in
# `"lasso_lambdasmax"` evaluates R's 500-value lambda grid and took about 2 s per call on this design.
# Each seed gives one selection at FDR 0.2 with `derandomize=1` (one draw) and with `derandomize=10`
# (ten draws, knockoff e-values averaged, e-BH). The mean and covariance are estimated once (the
# sample mean and covariance, what `knockoff_filter` estimates when they are not given) and passed in.

# %%
def lasso_entry(Xm, Xk, yv):
    """W_j = max(Z_j, Zk_j) sign(Z_j - Zk_j), Z the lambda at which a column enters the lasso path."""
    B = np.hstack([Xm, Xk])
    B = (B - B.mean(0)) / B.std(0)
    alphas, _, coefs = lars_path(B, yv - yv.mean(), method="lasso")
    active = coefs != 0
    Z = np.where(active.any(axis=1), alphas[np.argmax(active, axis=1)], 0.0)
    p = Xm.shape[1]
    return np.maximum(Z[:p], Z[p:]) * np.sign(Z[:p] - Z[p:])


seeds = range(10)
freq = {}
t0 = time.perf_counter()
mu_hat, Sigma_hat = X.mean().to_numpy(), np.cov(X.to_numpy(), rowvar=False)
for M in (1, 10):
    chosen = np.zeros((len(seeds), X.shape[1]), bool)
    for i, seed in enumerate(seeds):
        res = sc.knockoff_filter(X, y, knockoffs="gaussian", mu=mu_hat, Sigma=Sigma_hat, statistic=lasso_entry,
                                 method="mvr", fdr=0.2, derandomize=M, seed=seed)
        chosen[i, res.selected] = True
    freq[M] = pd.Series(chosen.mean(axis=0), index=X.columns)
    sizes = chosen.sum(axis=1)
    print(f"derandomize={M:2d}: selection sizes over the seeds {sizes.tolist()}; "
          f"distinct selections {len({tuple(r) for r in chosen})}; "
          f"nulls ever selected {int(chosen[:, ~is_real].any(axis=0).sum())}")
print(f"(stability loop {time.perf_counter() - t0:.1f} s)")
stab = pd.DataFrame({"one draw": freq[1], "10 draws (e-BH)": freq[10]})
print(stab[(stab > 0).any(axis=1)].round(1).to_string())

# %%
shown = stab[(stab > 0).any(axis=1) | is_real]
fig, ax = plt.subplots(figsize=(8, 3.6))
pos = np.arange(len(shown))
ax.bar(pos - 0.2, shown["one draw"], width=0.4, label="derandomize = 1")
ax.bar(pos + 0.2, shown["10 draws (e-BH)"], width=0.4, label="derandomize = 10")
ax.set_xticks(pos, shown.index, rotation=60, ha="right", fontsize=8)
ax.set_ylabel("selected in (of 10 seeds)")
ax.set_ylim(0, 1.05)
ax.set_title("Knockoffs at FDR 0.2 on diabetes + 90 nulls: selection frequency over 10 seeds")
ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig(FIG / "beyond_bh_stability.png", dpi=110)
plt.close(fig)

# %% [markdown]
# The stability run above: with one knockoff draw per seed, nine of the ten seeds select nothing and
# one selects fifteen covariates, five real ones (sex, bmi, bp, s3, s5) and ten of the nulls, a
# false discovery proportion of 2/3 from the same data and the same procedure. Knockoff+ controls the
# FDR *on average over draws*; any one draw can be bad. Derandomised knockoffs (ten draws, e-BH at
# 0.2) give the same selection for every seed, here the empty one: averaging the e-values of draws
# that mostly select nothing leaves every e-value far below the e-BH bar of m / (alpha k) = 500 / k.
# Stability is bought with power when the evidence is this thin.

# %% [markdown]
# ## 3. Adaptive step-ups, BH and q-values with known truth
#
# m = 2,000 one-sided z-tests per replicate, independent; the non-null means are drawn uniformly on
# [1.5, 3.5]; pi0 = 0.5, 0.8 and 0.95; 200 seeded replicates each; target FDR 0.1. Each procedure's
# realised FDR is the mean false discovery proportion over the replicates (with its standard error)
# and its power the mean share of non-nulls rejected.

# %%
ALPHA, M_TESTS, REPS = 0.1, 2000, 200


def rejections(p):
    out = {"BH": sc.p_adjust(p, method="BH") <= ALPHA,
           "BY": sc.p_adjust(p, method="BY") <= ALPHA,
           "q-value": sc.qvalue(p).q_values <= ALPHA}
    for method in ("STS", "adaptiveBH", "TSBH", "twostageBR", "BlaRoq"):
        out[method] = np.asarray(sc.fdr_adaptive(p, method=method, alpha=ALPHA).rejected)
    return out


t0 = time.perf_counter()
records = []
for pi0 in (0.5, 0.8, 0.95):
    for rep, stream in enumerate(sc.utils.spawn_seeds(int(pi0 * 1000), REPS)):
        g = np.random.default_rng(stream)
        alt = g.random(M_TESTS) >= pi0
        z = g.standard_normal(M_TESTS) + alt * g.uniform(1.5, 3.5, M_TESTS)
        for proc, rej in rejections(stats.norm.sf(z)).items():
            k = int(rej.sum())
            records.append((pi0, proc, (rej & ~alt).sum() / max(k, 1), (rej & alt).sum() / max(alt.sum(), 1)))
sim = pd.DataFrame(records, columns=["pi0", "procedure", "fdp", "tpp"])
summary = sim.groupby(["pi0", "procedure"], sort=False).agg(
    FDR=("fdp", "mean"), FDR_se=("fdp", lambda v: v.std(ddof=1) / np.sqrt(len(v))), power=("tpp", "mean"))
print(summary.round(4).to_string())
print(f"(simulation {time.perf_counter() - t0:.1f} s)")

# %%
fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
for proc, grp in summary.reset_index().groupby("procedure", sort=False):
    axes[0].plot(grp["pi0"], grp["FDR"], marker="o", label=proc)
    axes[1].plot(grp["pi0"], grp["power"] / summary.xs("BH", level="procedure")["power"].to_numpy(),
                 marker="o", label=proc)
axes[0].axhline(ALPHA, color="k", lw=0.8, ls="--")
axes[0].set(xlabel="pi0", ylabel="realised FDR", title="FDR (target 0.1)")
axes[1].set(xlabel="pi0", ylabel="power / power of BH", title="power relative to BH")
axes[1].legend(fontsize=7, ncol=2)
fig.tight_layout()
fig.savefig(FIG / "beyond_bh_adaptive.png", dpi=110)
plt.close(fig)

# %% [markdown]
# The simulation table: BH's FDR is pi0 times the target, so at pi0 = 0.5 it spends only half of the
# 0.1 budget. Storey-Taylor-Siegmund and q-values estimate pi0 and spend nearly all of it (power 0.84
# against BH's 0.73 at pi0 = 0.5); adaptive BH and the two two-stage procedures sit in between. At
# pi0 = 0.95 there is little to gain: every adaptive procedure is within 0.01 of BH, and Blanchard &
# Roquain's two-stage procedure has slightly less power than BH. The q-value rule's FDR (0.1015 to
# 0.1019, standard errors 0.001 to 0.003) is at the target within its Monte Carlo error: Storey's
# q-values control the FDR asymptotically, STS (with its p <= lambda restriction) in finite samples.
# BY and Blanchard & Roquain's step-up for arbitrary dependence keep the FDR far below the target
# and pay for validity under any dependence with much less power.

# %%
print(f"total run time {time.perf_counter() - t_start:.1f} s")
