# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---

# %% [markdown]
# # Information discernment: does an agent follow reliable sources or popular ones?
#
# **What is the paper's.** Learn2Discern asks whether a language model updates its beliefs more for
# reliable sources than for popular ones, and names three properties of a discerning agent: it follows
# reliable sources more (source discernment), follows claims that bring it closer to the truth more
# (truth discernment), and does not rely on a source's popularity beyond its reliability. Its models,
# data and prompts cannot run here, and we could not find the paper itself with the search tools we had:
# what follows works from the description in the project's issue 33.
#
# **What is ours.** The operationalisation: the weight of advice (posterior - prior) / (claim - prior)
# of each trial (`statcore.weight_of_advice`); three Spearman correlations with cluster-bootstrap
# intervals over questions, an OLS of the weight on reliability, popularity and improvement with CR2
# errors clustered by question, the reliance ratio beta_popularity / beta_reliability with Fieller's
# set, and the three axioms as one-sided tests (`statcore.discernment`); numeric beliefs read from a
# causal LM as the expected value over its numeric answer tokens (`learncore.protocols.belief_trials`).
# The simulations (a Bayesian agent and a popularity-biased one) are ours, with known truth; the
# language model is the shipped addition transformer, which was never trained to take advice: we
# measure what it does, whatever that is. A few seconds of CPU; figures go to `figures/`.

# %%
import sys
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import torch

import learncore
import statcore as sc
from learncore.llm_uncertainty import load_arith_model
from learncore.protocols import belief_trials

ROOT = Path(learncore.__file__).resolve().parents[1]
# the study's harness is the benchmarks': benchmarks/_discern_study.py of the repository
sys.path.insert(0, str(ROOT / "benchmarks"))
import _discern_study as study  # noqa: E402

FIG = Path("figures")
FIG.mkdir(exist_ok=True)
torch.set_num_threads(1)
t_start = time.perf_counter()

# %% [markdown]
# ## 1. A Bayesian agent and a popularity-biased one
#
# Forty questions, four sources each. The truth of a question is N(0, 1), the agent's prior mean is off
# by N(0, 1) (prior s.d. s0 = 1), a source's claim is off by N(0, s^2) with s uniform on [0.5, 3], and its
# popularity is uniform, independent of s. The Bayesian agent's weight of advice is s0^2 / (s0^2 + s^2)
# exactly; the biased agent adds 0.3 x popularity (and some response noise).

# %%
rng = np.random.default_rng(7)
bayes = study.simulate(rng, 40)
biased = study.simulate(rng, 40, gamma=0.3, noise=0.05)
print("largest |woa - Bayes weight|:", float(np.max(np.abs(bayes["woa"] - bayes["w_bayes"]))))
res_bayes = study.analyse(bayes, B=999, seed=1)
res_biased = study.analyse(biased, B=999, seed=1)
print(res_bayes.summary())

# %%
print(res_biased.to_frame().round(3))
print("passes:", res_biased.passes)
print(res_biased.coefficients.loc["popularity"].round(4).to_dict())
print("reliance ratio:", round(res_biased.reliance.estimate, 3),
      (round(res_biased.reliance.conf_low, 3), round(res_biased.reliance.conf_high, 3)))

# %%
fig, axes = plt.subplots(1, 2, figsize=(9, 3), sharex=True)
res_bayes.plot(ax=axes[0])
axes[0].set_title("Bayesian agent")
res_biased.plot(ax=axes[1])
axes[1].set_title("popularity-biased agent (gamma = 0.3)")
fig.tight_layout()
fig.savefig(FIG / "protocol_discern_agents.png", dpi=110)

# %% [markdown]
# ## 2. The popularity test: size and power
#
# A small version of `benchmarks/size_discern.py` (its 1000-run figures are in `benchmarks/README.md`):
# how often the popularity test rejects for the Bayesian agent (its size) and for an agent with
# gamma = 0.1 (its power), by the number of questions, 100 seeded runs per cell (Monte Carlo s.e. up to
# 0.05; B = 9 resamples, enough for the regression's test, which does not use them).

# %%
sizes = (10, 40, 160)
rates = {"Bayes": [], "gamma = 0.1": []}
for nq in sizes:
    for label, design in (("Bayes", {}), ("gamma = 0.1", dict(gamma=0.1, noise=0.1))):
        rej = [not study.analyse(study.simulate(np.random.default_rng([nq, r, len(design)]), nq, **design),
                                 B=9, seed=r).passes["popularity"] for r in range(100)]
        rates[label].append(float(np.mean(rej)))
for label, r in rates.items():
    print(f"{label:>12}:", " ".join(f"{v:.3f}" for v in r))

fig, ax = plt.subplots(figsize=(4.5, 3))
for label, r in rates.items():
    ax.plot(sizes, r, "o-", label=label)
ax.axhline(0.05, color="grey", lw=0.8, ls="--")
ax.set_xscale("log", base=2)
ax.set_xlabel("questions (4 sources each)")
ax.set_ylabel("popularity axiom rejected")
ax.legend()
fig.tight_layout()
fig.savefig(FIG / "protocol_discern_power.png", dpi=110)

# %% [markdown]
# Here popularity is independent of reliability. When it tracks reliability, the default regression
# (linear in reliability) reads the Bayesian weight's curvature in 1 / s as reliance on popularity and fails
# the Bayesian agent; `reliability_df=4` (a cubic spline of reliability) holds the level again:

# %%
tied = study.simulate(np.random.default_rng(11), 80, pop_corr=0.5)
print({k: study.analyse(tied, B=99, seed=0, reliability_df=k).passes["popularity"] for k in (1, 4)})

# %% [markdown]
# ## 3. Our own model: the shipped addition transformer
#
# The questions are single-digit sums ("3+4="); the numeric answers are the digit tokens 0 .. 9, and a
# belief is the expected value of the next-token distribution over them. A source claims truth + an
# error of s.d. s (rounded to a digit); its reliability is 1 / s, its popularity a random number. The
# claim enters the context as a sum the model can read, "0+c=c", before the question. The model never
# saw two sums in one sequence, so this measures how its answer is displaced by a preceding sum, not a
# learned trust in sources: the protocol runs, and the numbers say what they say.

# %%
model = load_arith_model()
rng = np.random.default_rng(3)
n_q, n_s = 30, 4
a, b = rng.integers(0, 5, n_q), rng.integers(0, 5, n_q)
questions = [f"{x}+{y}=" for x, y in zip(a, b)]
qi = np.repeat(np.arange(n_q), n_s)
s = rng.uniform(0.5, 3.0, n_q * n_s)
truth = (a + b)[qi]
claim = np.clip(np.round(truth + s * rng.normal(size=qi.size)), 0, 9).astype(int)
sources = {"question": qi, "claim": claim, "reliability": 1 / s, "popularity": rng.uniform(size=qi.size)}
bt = belief_trials(model, questions, sources, advice="0+{claim}={claim}{question}")
t = bt.trials
print("mean |prior - truth|:", round(float(np.mean(np.abs(t["prior"] - truth))), 3),
      " mean prior mass on digits:", round(float(t["prior_mass"].mean()), 3))
keep = np.abs(t["claim"] - t["prior"]) > 0.5        # a claim equal to the prior carries no advice
woa = bt.woa()[keep]
gain = (np.abs(t["prior"] - truth) - np.abs(t["claim"] - truth))[keep]
res_model = sc.discernment(woa, t["reliability"][keep], gain, t["popularity"][keep], cluster=qi[keep],
                           B=999, seed=0)
print(res_model.summary())

# %%
fig, ax = plt.subplots(figsize=(4.5, 3))
ax.scatter(t["reliability"][keep], woa, s=12)
ax.set_xlabel("source reliability 1 / s")
ax.set_ylabel("weight of advice")
ax.set_title("shipped addition transformer")
fig.tight_layout()
fig.savefig(FIG / "protocol_discern_arith.png", dpi=110)
print(f"ran in {time.perf_counter() - t_start:.1f} s")
