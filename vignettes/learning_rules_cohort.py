# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---

# %% [markdown]
# # How do mice learn? Fitting deep-network learning rules to single animals
#
# Mice in the IBL decision task see a grating on the left or the right (contrasts 0 to 100%) and
# turn a wheel to report its side; correct choices are rewarded. Liebana et al. (Cell, 2025) model
# each mouse as a small network whose weights learn from the mouse's own choices and rewards, fit
# every animal by maximum likelihood, and compare a one-layer linear network (1L), a two-layer
# linear one (2L) and a two-layer network with a sigmoid hidden layer (2NL) by AIC.
#
# Here the mice are simulated, so we know which network produced each of them: 12 synthetic mice,
# four of each architecture, 3,000 trials each in sessions of 300. We fit all three architectures to
# every mouse with `learncore.learning_rules.fit_many`, read statcore's per-animal AIC comparison,
# check it against the truth, and compare the behaviour of the data with that of the fitted models
# over training. Figures go to `figures/`.

# %%
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import statcore
from learncore.learning_rules import behaviour_metrics, fit_many, plot_behaviour, simulate

FIG = Path("figures")
FIG.mkdir(exist_ok=True)


def generating_params(arch, rng):
    """Naive mice: small output weights, so choices start near chance and improve with training.
    (The design of tests/learncore/learning_rules/test_model_recovery.py: a wide first layer makes 2L's product of
    matrices and 2NL's saturating units behave unlike one layer.)"""
    beta = float(rng.uniform(6.0, 10.0))
    if arch == "1L":
        return dict(W=rng.normal(scale=0.1, size=(2, 3)), eta=float(np.exp(rng.uniform(np.log(0.03), np.log(0.08)))),
                    beta=beta)
    w1, lo, hi = (2.0, 0.02, 0.05) if arch == "2L" else (2.5, 0.2, 0.5)
    return dict(W1=rng.normal(scale=w1, size=(3, 3)), W2=rng.normal(scale=0.1, size=(2, 3)),
                eta=float(np.exp(rng.uniform(np.log(lo), np.log(hi)))), beta=beta)


rng = np.random.default_rng(2025)
truth, mice, true_params = {}, {}, {}
for arch in ("1L", "2L", "2NL"):
    for i in range(4):
        name = f"{arch}-mouse{i + 1}"
        p = generating_params(arch, rng)
        sim = simulate(arch, p, 3000, session_length=300, seed=rng)
        truth[name], true_params[name] = arch, p
        mice[name] = sim.drop(columns=["p_right"])      # what an experimenter would record

first = mice["2NL-mouse1"]
print(first.head())
print("accuracy per session of 2NL-mouse1:", first.groupby("session")["reward"].mean().round(2).tolist())

# %% [markdown]
# ## Fit every architecture to every mouse
#
# Each fit replays the network through the mouse's own choices and rewards and maximises the
# likelihood of its choices over the initial weights, the learning rate eta and the inverse
# temperature beta; four random restarts are optimised together as one batch. `fit_many` returns
# statcore's `compare_by_group` result (AIC per mouse, wins, a bootstrap over mice). A warning
# counts the fits whose best restart stopped before the gradient tolerance: 2NL likelihoods keep
# rising slowly towards saturated (infinite) weights, and 2L ones along the ridge to the 1L limit
# (W1 = alpha I, eta / alpha^2), so their eta is not identified there.

# %%
comparison = fit_many(mice, archs=("1L", "2L", "2NL"), hidden=3, restarts=4, seed=1, n_jobs=2, B=1000)
fits = comparison.fits                                  # {mouse: {architecture: LearningRuleFit}}
print(comparison)

# %% [markdown]
# ## Did AIC pick the generating network?

# %%
picked = comparison.per_group["best"]
confusion = pd.crosstab(pd.Series(truth, name="generating"), pd.Series(picked, name="AIC picks"))
print(confusion)
print(f"\nrecovered: {sum(truth[m] == picked[m] for m in mice)} of {len(mice)} mice")

recovery = pd.DataFrame({
    "arch": [truth[m] for m in mice],
    "eta (true)": [true_params[m]["eta"] for m in mice],
    "eta (fit)": [fits[m][truth[m]].params["eta"] for m in mice],
    "beta (true)": [true_params[m]["beta"] for m in mice],
    "beta (fit)": [fits[m][truth[m]].params["beta"] for m in mice],
}, index=list(mice)).round(3)
print(recovery)

# %% [markdown]
# ## Behaviour over training: data against the fitted models
#
# Per session: bias and stimulus sensitivity from a logistic psychometric fit, and accuracy. For a
# model they are computed from its p(right) on each trial (replayed through the mouse's choices).

# %%
axes = plot_behaviour(first, fits["2NL-mouse1"]["2NL"].p_right, label_model="2NL fit")
fig = axes[0].figure
one = behaviour_metrics(first, fits["2NL-mouse1"]["1L"].p_right)
for ax, col in zip(axes, ("bias", "sensitivity", "accuracy")):
    ax.plot(np.arange(1, one.n_groups + 1), one.to_frame()[col], ls="--", color="grey", label="1L fit")
axes[-1].legend()
fig.suptitle("2NL-mouse1: data and fitted models", y=1.04)
fig.savefig(FIG / "learning_rules_behaviour.png", dpi=120, bbox_inches="tight")

data_metrics = behaviour_metrics(first)
model_metrics = behaviour_metrics(first, fits["2NL-mouse1"]["2NL"].p_right)
print(pd.concat({"data": data_metrics.to_frame().set_index("session")[["accuracy", "sensitivity"]],
                 "2NL fit": model_metrics.to_frame().set_index("session")[["accuracy", "sensitivity"]]},
                axis=1).round(3))

# %%
delta = comparison.per_group.filter(like="delta")
fig2, ax = plt.subplots(figsize=(7, 3.5))
order = list(mice)
for j, col in enumerate(delta.columns):
    ax.bar(np.arange(len(order)) + (j - 1) * 0.27, delta.loc[order, col], width=0.27, label=col)
ax.set_xticks(np.arange(len(order)), order, rotation=60, ha="right", fontsize=8)
ax.set_ylabel("AIC - best AIC")
ax.legend()
ax.set_title("Per-mouse AIC differences (0 = chosen architecture)")
fig2.savefig(FIG / "learning_rules_aic.png", dpi=120, bbox_inches="tight")
plt.close("all")
