# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---

# %% [markdown]
# # The rewrite environment: which shortcuts are valid?
#
# The paper's: an environment of words over a finite monoid in which a model reasons by rewriting,
# one adjacent pair `xy -> x*y` at a time (the primitive step), rewarded only for its final answer,
# and the vocabulary for what post-training does to the traces: compound steps that skip primitive
# ones are *contractions*, labelled atomic, sequential, parallel or mixed by the shape of the blocks
# they merge, or *invalid* shortcuts that no sequence of primitive steps produces.
#
# Ours (`learncore.reasoning`): the monoid tables (S3 by default, Z_m, any associative table),
# `audit_step`, a dynamic programme over segmentations that decides validity and lists every
# feasible label with a canonical one, checked against a brute-force search over primitive-step
# sequences; and the census below. A final-answer reward cannot see the steps: a compound step may
# keep the word's product (so the trace can still end in the right answer) and be invalid all the
# same. How often? For seeded random words of eight symbols and random targets of each shorter
# length *with the right product*, the share that is a valid compound step, in three monoids; and
# the label mix of the valid ones. A few seconds of CPU; the figure goes to `figures/`.

# %%
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from learncore.reasoning import Monoid, audit_step

FIG = Path("figures")
FIG.mkdir(exist_ok=True)
MONOIDS = {"Z3": Monoid.cyclic(3), "Z5": Monoid.cyclic(5), "S3": Monoid.s3()}
N, WORDS, TARGETS = 8, 20, 60


def right_product_targets(u, m, monoid, rng, k):
    """k random words of length m whose product is that of u (the last symbol completes the product)."""
    target, syms, out = monoid.product(u), list(monoid.symbols), []
    while len(out) < k:
        head = "".join(rng.choice(syms, size=m - 1))
        lasts = [c for c in syms if monoid.product(head + c) == target]
        if lasts:
            out.append(head + lasts[int(rng.integers(len(lasts)))])
    return out


rng = np.random.default_rng(35)
rows = []
for name, monoid in MONOIDS.items():
    for _ in range(WORDS):
        u = "".join(rng.choice(list(monoid.symbols), size=N))
        for m in range(1, N):
            for v in right_product_targets(u, m, monoid, rng, TARGETS):
                res = audit_step(u, v, monoid)
                rows.append(dict(monoid=name, m=m, compressed=N - m, valid=res.valid, label=res.label,
                                 n_labels=len(res.labels) if res.valid else 0))
census = pd.DataFrame(rows)
share = census.pivot_table(index="compressed", columns="monoid", values="valid", aggfunc="mean")
share.round(3)

# %% [markdown]
# A target of the right product is rarely a valid step unless it compresses a lot: a word of eight
# symbols has at most seven successors one primitive step away among the many words of length 7
# with its product, so a random right-product target of that length is almost never one of them;
# compressing to one symbol (seven steps) is always valid, since the single segment is the whole
# word. In between, the smaller the group, the more targets are valid by accident (Z3 above Z5 and
# S3, seeded run). A reward on the answer alone therefore cannot tell a valid contraction from an
# invalid shortcut; `audit_trace` can.

# %%
fig, ax = plt.subplots(figsize=(5.5, 3.5))
for name in MONOIDS:
    ax.plot(share.index, share[name], marker="o", label=name)
ax.set_xlabel("primitive steps compressed (8 - len(v))")
ax.set_ylabel("valid among right-product targets")
ax.set_ylim(0, 1.02)
ax.legend()
fig.tight_layout()
fig.savefig(FIG / "reasoning_rewrite_validity.png", dpi=110)

# %% [markdown]
# The canonical labels of the valid steps, by compression (S3), and how often a valid step has more
# than one feasible label (several segmentations of different shapes reach the same word).

# %%
valid = census[census.valid & (census.monoid == "S3")]
mix = pd.crosstab(valid.compressed, valid.label, normalize="index").round(3)
mix["several_labels"] = valid.groupby("compressed")["n_labels"].apply(lambda s: float((s > 1).mean())).round(3)
mix
