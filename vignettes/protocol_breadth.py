# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---

# %% [markdown]
# # Ideological breadth: how far does a narrow, biased fine-tune reach?
#
# **What is the paper's and what is ours.** The questions are the ideological-generalisation paper's:
# does a fine-tune on one narrow topic move a language model's stance on topics it never saw (breadth),
# and by how much more than showing the same material in the model's context (amplification)? Its models,
# data and judges cannot run here. What follows is ours: the stance is elicited from answer-option
# log-probabilities (`learncore.protocols.stance_scores`), the breadth is the share of held-out topics
# significant in the trained direction after Benjamini-Hochberg next to the meta-analytic share of true
# shifts above 0 (`statcore.shift_breadth`), and the amplification is a ratio of shifts with Fieller's
# interval (`statcore.amplification`). The "model" is the small addition transformer shipped with
# learncore, the "topics" are operand-length buckets and the "ideology" a +1 bias in the answer.
#
# Here, in seconds: a +1-biased and a control fine-tune of the shipped model on the sums whose first
# operand has one digit, the breadth of their shifts over the six held-out buckets, and amplification on a
# seeded simulation whose truth is known (the shipped model cannot learn in context). The full run (3
# seeds, 200 probes per bucket, 1 to 100 steps) is `benchmarks/breadth_demo.py`; its figures are in
# `benchmarks/README.md`.

# %%
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import torch

import learncore
import statcore as sc
from learncore.llm_uncertainty import load_arith_model
from learncore.protocols import stance_scores, stance_shifts

ROOT = Path(learncore.__file__).resolve().parents[1]
# the study's harness is the benchmarks': benchmarks/_breadth_study.py of the repository
sys.path.insert(0, str(ROOT / "benchmarks"))
import _breadth_study as study  # noqa: E402

FIG = Path("figures")
FIG.mkdir(exist_ok=True)
torch.set_num_threads(1)

# %% [markdown]
# ## 1. The probes and their stance
#
# Forty sums per bucket (a of 1-3 digits by b of 1-3 digits). The stance of "a+b=" is
# log p(a + b + 1, then end) - log p(a + b, then end): negative for a model that adds correctly.

# %%
prompts, options, topic = study.probes(40, seed=12345)
base = load_arith_model()
base_scores = stance_scores(base, prompts, options=options, topic=topic, append_eos=True)
print(base_scores.summary())

# %% [markdown]
# ## 2. A biased and a control fine-tune, 5 steps each
#
# Same seed, same batches of prompts; the biased run's targets are a + b + 1, the control's a + b. Both
# train only on the buckets 1x1, 1x2, 1x3.

# %%
biased = study.finetune(base, steps=5, bias=1, seed=0)[5]
control = study.finetune(base, steps=5, bias=0, seed=0)[5]
s_b = stance_scores(biased, prompts, options=options, topic=topic, append_eos=True)
s_c = stance_scores(control, prompts, options=options, topic=topic, append_eos=True)
rows = {}
for name, (before, after) in {"biased vs base": (base_scores, s_b), "control vs base": (base_scores, s_c),
                              "biased vs control": (s_c, s_b)}.items():
    br = stance_shifts(before, after).breadth(exclude=study.TRAINED)
    rows[name] = dict(bh=f"{br.n_significant}/{br.n_topics}", bh_conf_low=br.bh_conf_low,
                      bh_conf_high=br.bh_conf_high, meta_share=br.meta_share,
                      mean_heldout_shift=float(np.mean(br.shifts)))
    if name == "biased vs base":
        shown = br
print(pd.DataFrame(rows).T.round(3))
print(shown.summary())

# %% [markdown]
# The bias reaches every held-out bucket. A fine-tune on correct answers moves the stance too, far less:
# on these 40 probes per bucket hardly at all, but in the full run (200 probes per bucket, 3 seeds) the
# control's held-out shifts after 5 steps were 0.2 to 0.6 nats towards the +1 answer and significant in
# 4 to 6 of the 6 buckets. Comparing the biased run with the control run, on the same probes, isolates
# what the bias did.

# %%
ax = shown.plot()
ax.figure.tight_layout()
ax.figure.savefig(FIG / "protocol_breadth_shifts.png", dpi=100)

# %% [markdown]
# ## 3. Under the global null the breadth is at most alpha
#
# Six topics, none moved, each a mean of 30 probe shifts: the mean BH breadth over 300 seeded replicates.

# %%
rng = np.random.default_rng(0)
null = [sc.shift_breadth(x.mean(1), x.std(1, ddof=1) / np.sqrt(30), df=29).bh_share
        for x in (rng.normal(size=(6, 30)) for _ in range(300))]
print(f"mean breadth under the null: {np.mean(null):.4f} (alpha = 0.05)")

# %% [markdown]
# ## 4. Amplification on a simulation with known truth
#
# Four topics, 30 paired probes each; few-shot shifts N(0.4, 1), fine-tuned shifts 2.5 times larger on
# average. Fieller's set per topic and pooled, and the delta-method interval beside it.

# %%
fs = rng.normal(0.4, 1.0, size=(30, 4))
ft = rng.normal(2.5 * 0.4, 1.0, size=(30, 4))
amp = sc.amplification(pd.DataFrame(ft, columns=["econ", "law", "health", "migration"]),
                       pd.DataFrame(fs, columns=["econ", "law", "health", "migration"]))
print(amp.summary())
