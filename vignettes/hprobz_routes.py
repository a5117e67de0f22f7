# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---

# %% [markdown]
# # Which route, and how far off it? HProbZ against a mixture density network
#
# An agent with heading theta and speed v picks one of three routes (left, straight, right) and
# drifts off it by a bounded amount that grows along the way, with a little noise on top
# (`learncore.hprobz.simulate_routes`, 12 steps). The outcome is multimodal (one mode per route)
# and strongly coupled over time (one drift for the whole trajectory).
#
# Two output heads on the same small encoder, fitted by maximum likelihood with the same number of
# parameters (within 0.2%):
#
# - **HProbZ**: y = mu_b(x) + G_b(x) u + s(x) eps, a mode b per route, one bounded generator
#   u ~ U[-1, 1] shared by the 12 steps, Gaussian noise (closed-form density);
# - **mixture density network** (MDN): a mixture of diagonal Gaussians, the usual multimodal head.
#
# We compare held-out NLL, per-step 90% conformal sets (size and coverage; both are calibrated on
# held-out data through `statcore.conformal`, so both cover), and what observing the first step does
# to the sets of steps 2-12. Figures go to `figures/`.

# %%
from pathlib import Path
import time

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import torch

from learncore.hprobz import fit, simulate_routes

torch.set_num_threads(1)
FIG = Path("figures")
FIG.mkdir(exist_ok=True)
T, ALPHA = 12, 0.1

X_tr, y_tr, r_tr = simulate_routes(2000, T=T, seed=1)
X_cal, y_cal, r_cal = simulate_routes(2000, T=T, seed=2)
X_te, y_te, r_te = simulate_routes(2000, T=T, seed=3)
print("route shares (train):", np.bincount(r_tr) / r_tr.size)

# %% [markdown]
# ## Fit both heads
#
# Encoder: one tanh layer on (theta, v). HProbZ has 3 + 36 + 36 + 12 = 87 outputs (logits, centres,
# one generator per mode, noise per step); the MDN 3 + 36 + 36 = 75 (logits, means, standard
# deviations), so it gets a slightly wider encoder: 24 units for HProbZ give 2,247 parameters, 28 for
# the MDN 2,259.

# %%
t0 = time.perf_counter()
hz = fit(X_tr, y_tr, head="hprobz", n_modes=3, m=1, hidden=(24,), max_iter=300, restarts=2, seed=0, warn=False)
t_hz = time.perf_counter() - t0
t0 = time.perf_counter()
mdn = fit(X_tr, y_tr, head="mixture", n_modes=3, hidden=(28,), max_iter=300, restarts=2, seed=0, warn=False)
t_mdn = time.perf_counter() - t0
nll = pd.DataFrame({"head": ["HProbZ", "mixture"], "df": [hz.df, mdn.df],
                    "train NLL/row": [-hz.loglik / hz.nobs, -mdn.loglik / mdn.nobs],
                    "held-out NLL/row": [hz.nll(X_te, y_te), mdn.nll(X_te, y_te)],
                    "fit seconds": [t_hz, t_mdn]})
print(nll.round(3).to_string(index=False))

# %% [markdown]
# ## 90% conformal sets per step
#
# Scores are minus the per-step predictive densities at the calibration outcomes; each step's set is
# the highest-density set {y : p_t(y) >= -q_t}, a union of intervals. Coverage is guaranteed in
# [0.9, 0.9 + 1/2001) on average over calibration draws for both heads, whatever their fit: the
# difference is the size. With one calibration set and 2,000 test agents the empirical coverage of a
# step fluctuates around that band with a standard deviation of about 0.009.

# %%
heads = {"HProbZ": hz, "mixture": mdn}
rows, sets = [], {}
for name, res in heads.items():
    cal = res.predict(X_cal)
    te = res.predict(X_te)
    s = te.conformal_sets(cal.conformity_scores(y_cal), alpha=ALPHA, n_grid=601)
    sets[name] = s
    cov = s.contains(y_te)
    for k in range(T):
        rows.append({"head": name, "step": k + 1, "coverage": cov[:, k].mean(), "mean size": s.length[:, k].mean(),
                     "mean intervals": s.n_intervals[:, k].mean()})
table = pd.DataFrame(rows)
wide = table.pivot(index="step", columns="head", values=["coverage", "mean size", "mean intervals"])
print(wide.round(3).to_string())
print("\nover all steps:")
print(table.groupby("head")[["coverage", "mean size", "mean intervals"]].mean().round(3).to_string())

# %% [markdown]
# ## Observing step 1
#
# Both predictives are conditioned on each agent's first position in closed form (HProbZ: the route
# weights and the truncated-normal posterior of the shared drift u; the MDN: only the route weights,
# since its steps are independent given the route). The calibration predictives are conditioned the
# same way on their own first step, so the new sets of steps 2-12 are again exactly calibrated.

# %%
rows_c = []
sets_c = {}
for name, res in heads.items():
    cal = res.predict(X_cal).condition([0], y_cal[:, :1])
    te = res.predict(X_te).condition([0], y_te[:, :1])
    s = te.conformal_sets(cal.conformity_scores(y_cal[:, 1:]), alpha=ALPHA, n_grid=601)
    sets_c[name] = s
    cov = s.contains(y_te[:, 1:])
    before = sets[name].length[:, 1:].mean()
    rows_c.append({"head": name, "coverage (steps 2-12)": cov.mean(), "size before": before,
                   "size after": s.length.mean(), "ratio": s.length.mean() / before})
cond = pd.DataFrame(rows_c)
print(cond.round(3).to_string(index=False))

# %% [markdown]
# ## Figures

# %%
fig, axes = plt.subplots(1, 3, figsize=(13, 3.8), sharey=True)
steps = np.arange(1, T + 1)
for ax, i in zip(axes, (0, 1, 2)):
    for name, color, off in (("HProbZ", "C0", -0.12), ("mixture", "C1", 0.12)):
        for k in range(T):
            for a, b in sets[name].intervals(i, k):
                ax.plot([k + 1 + off] * 2, [a, b], color=color, lw=3, alpha=0.8, solid_capstyle="butt",
                        label=name if (k == 0 and a == sets[name].intervals(i, 0)[0, 0]) else None)
    ax.plot(steps, y_te[i], "k.-", lw=1, label="outcome")
    ax.set_title(f"agent {i}: heading {X_te[i, 0]:+.2f}, speed {X_te[i, 1]:.2f}", fontsize=9)
    ax.set_xlabel("step")
axes[0].set_ylabel("lateral position")
axes[0].legend(fontsize=8, loc="upper left")
fig.suptitle("90% conformal sets per step (unions of intervals): HProbZ (blue) and MDN (orange)", y=1.02)
fig.savefig(FIG / "hprobz_sets.png", dpi=120, bbox_inches="tight")

fig, ax = plt.subplots(figsize=(6.5, 3.8))
for name, color in (("HProbZ", "C0"), ("mixture", "C1")):
    ax.plot(steps, sets[name].length.mean(0), "o-", color=color, label=f"{name}")
    ax.plot(steps[1:], sets_c[name].length.mean(0), "s--", color=color, label=f"{name}, step 1 observed")
ax.set_xlabel("step")
ax.set_ylabel("mean set size (90%)")
ax.legend(fontsize=8)
ax.set_title("Set size per step, before and after observing step 1", fontsize=10)
fig.savefig(FIG / "hprobz_set_size.png", dpi=120, bbox_inches="tight")

i = int(np.argmax(np.abs(X_te[:, 0]) < 0.2))     # an agent heading straight: three plausible routes
grid = torch.linspace(-3.5, 3.5, 701, dtype=torch.float64)
fig, ax = plt.subplots(1, 2, figsize=(11, 3.5), sharey=True)
for j, (label, dists) in enumerate((("before", {n: r.predict(X_te[i:i + 1]) for n, r in heads.items()}),
                                    ("after step 1", {n: r.predict(X_te[i:i + 1]).condition([0], y_te[i:i + 1, :1])
                                                      for n, r in heads.items()}))):
    k = T - 1 - (1 if j else 0)          # the last step
    for name, color in (("HProbZ", "C0"), ("mixture", "C1")):
        d = dists[name].marginal([k])
        ax[j].plot(grid, torch.exp(d.log_prob(grid[:, None, None]))[:, 0], color=color, label=name)
    ax[j].axvline(y_te[i, -1], color="k", ls=":", label="outcome")
    ax[j].set_title(f"step 12 predictive density, {label}", fontsize=10)
    ax[j].set_xlabel("lateral position")
ax[0].legend(fontsize=8)
fig.savefig(FIG / "hprobz_density.png", dpi=120, bbox_inches="tight")
plt.close("all")
