# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---

# %% [markdown]
# # Post-hoc slimming: how much of a pretrained network's width does a task need?
#
# Hackel et al. ask, of remote-sensing foundation models, how much of a pretrained encoder's width a
# task needs: they cut every feed-forward hidden layer to its first floor(s d_h) units and every
# attention head to its first floor(s d_k) query, key and value dimensions, keep the residual width,
# retrain nothing, and follow the task score as the width multiplier s falls. `learncore.slim` does
# this for three networks it knows (`slim_width`), counts parameters and FLOPs analytically
# (`slim_cost`), scores a network at several widths together with the spectra of its features
# (`slimming_curve`: participation ratio, effective rank, TwoNN dimension and linear CKA with the
# full features, from `statcore.spectral`), and trains the "learned slimmable" arm against which the
# post-hoc curve is compared (`slimmable_finetune`, the sandwich rule of Yu & Huang 2019).
#
# Here: the shipped addition transformer at a few widths (held-out greedy accuracy), a short
# sandwich-rule fine-tuning against post-hoc slimming, and the recorded results of the two larger
# pretrained networks (ImageNet MobileNetV2 on scikit-image photographs, the MiniLM sentence
# encoder on generated sentences) read from `benchmarks/results/slim/` (made by
# `benchmarks/slim_mobilenet.py` and `benchmarks/slim_minilm.py`; the longer fine-tuning run by
# `benchmarks/slim_arith.py`). About half a minute of CPU; figures go to `figures/`.

# %%
import sys
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd
import torch

import learncore
from learncore.llm_uncertainty import load_arith_model
from learncore.slim import slim_cost, slim_width, slimmable_finetune, slimming_curve

ROOT = Path(learncore.__file__).resolve().parents[1]
# the study's harness is the benchmarks': benchmarks/_slim_study.py of the repository
sys.path.insert(0, str(ROOT / "benchmarks"))
import _slim_study as study  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "slim"
FIG = Path("figures")
FIG.mkdir(exist_ok=True)
torch.set_num_threads(1)
t_start = time.perf_counter()

# %% [markdown]
# ## 1. The width rule, exactly
#
# The shipped model has a residual width of 64, four heads of 16 dimensions and feed-forward layers
# of 256 units in each of its four blocks. At s = 0.5 every head keeps 8 dimensions and every
# feed-forward layer 128 units; the parameter count is the analytic one, and s = 1 is the same
# network, bit for bit.

# %%
model = load_arith_model()
half = slim_width(model, 0.5)
print(half.blocks[0])
print(slim_cost(model, 0.5), sum(p.numel() for p in half.parameters()))
x = torch.tensor([model.tokenizer.encode("317+45=")])
print("s = 1 bit-identical:", torch.equal(slim_width(model, 1.0)(x).logits, model(x).logits))

# %% [markdown]
# ## 2. The slimming curve of the addition model
#
# Greedy accuracy on 300 held-out sums, and the features at the "=" position (the final layer's
# normalised hidden state, where the answer starts), at each width. Two choices of the attention
# scale after a head is narrowed: keep the pretrained 1/sqrt(d_k), or rescale to 1/sqrt(d_k').

# %%
evaluate = study.arith_evaluator(300)
widths = [1.0, 0.9375, 0.875, 0.75, 0.5]
curves = {scale: slimming_curve(model, widths, evaluate, attention_scale=scale) for scale in ("keep", "rescale")}
print(curves["keep"].summary())
print(curves["rescale"].to_frame()[["width", "score", "relative_score", "cka"]].round(3).to_string(index=False))

# %%
fig, ax = plt.subplots(1, 2, figsize=(8.4, 3.2), layout="constrained")
curves["keep"].plot(ax=ax[0])
ax[0].plot(curves["rescale"].width, curves["rescale"].relative_score, "o:", label="relative score (rescaled)")
ax[0].legend(fontsize=7)
f = curves["keep"].to_frame()
for col in ("participation_ratio", "effective_rank", "twonn_dimension"):
    ax[1].plot(f["width"], f[col] / f[col].iloc[0], "o-", label=col.replace("_", " "))
ax[1].set_xlabel("width s")
ax[1].set_ylabel("relative to the full model")
ax[1].set_title("spectra of the features at '='", fontsize=10)
ax[1].legend(fontsize=7)
fig.savefig(FIG / "slim_arith_curve.png", dpi=110)

# %% [markdown]
# The small model is not redundant: the whole of its width is used. Removing one of sixteen
# dimensions per head and sixteen of 256 feed-forward units per block (s = 0.9375) already costs
# about an eighth of the accuracy, and s = 0.875 about a third; at half width almost no sum is right.
# The CKA of the features with the full features falls with the score, but stays high (above 0.9 at
# s = 0.875) while a third of the accuracy is gone: the representation moves a little, and the
# greedy decoding of a five-token answer is fragile to a little. The participation ratio and
# effective rank of the features hardly move: they do not see the damage.

# %% [markdown]
# ## 3. The learned arm: sandwich-rule fine-tuning
#
# `slimmable_finetune` trains the largest and the smallest width and a random one in between at
# every step, on slices of one set of weights. A short run (60 steps of 32 fresh sums) is enough to
# lift the half-width network far above its post-hoc accuracy; the longer run of
# `benchmarks/slim_arith.py` is read below.

# %%
fit = slimmable_finetune(model, [1.0, 0.5], study.arith_data(32), loss=study.arith_loss, steps=60, lr=1e-3,
                         n_random=1, seed=0)
print(fit.summary())
short = pd.DataFrame({"width": [1.0, 0.75, 0.5],
                      "post_hoc": [evaluate(slim_width(model, s))[0] for s in (1.0, 0.75, 0.5)],
                      "sandwich_60_steps": [evaluate(slim_width(fit.model, s))[0] for s in (1.0, 0.75, 0.5)]})
print(short.to_string(index=False))

# %%
long_run = RESULTS / "arith_finetune.csv"
if long_run.exists():
    ft = pd.read_csv(long_run)
    print(ft.round(3).to_string(index=False))
    fig, ax = plt.subplots(figsize=(4.4, 3.2), layout="constrained")
    for col, style in (("post_hoc", "o-"), ("sandwich", "s-"), ("full_width_finetune", "^--")):
        ax.plot(ft["width"], ft[col], style, label=col.replace("_", " "))
    ax.set_xlabel("width s")
    ax.set_ylabel("held-out greedy accuracy")
    ax.set_title("ArithTransformer: learned vs post-hoc", fontsize=10)
    ax.legend(fontsize=8)
    fig.savefig(FIG / "slim_arith_finetune.png", dpi=110)

# %% [markdown]
# ## 4. Two larger pretrained networks (recorded)
#
# MobileNetV2 with torchvision's ImageNet weights, its expansions slimmed: top-1 agreement with the
# full network on 240 random crops of the scikit-image photographs, with the pretrained batch-norm
# statistics (`benchmarks/slim_mobilenet.py` also re-estimates them on other crops at each width). MiniLM (all-MiniLM-L6-v2):
# the cosine of each sentence embedding with the full one on 240 generated sentences, and the
# nearest-neighbour agreement.

# %%
mob = pd.read_csv(RESULTS / "mobilenet_curve.csv")
if "batchnorm" not in mob:  # the recorded run with the pretrained batch-norm statistics only
    mob.insert(0, "batchnorm", "pretrained")
mini = pd.read_csv(RESULTS / "minilm_curve.csv")
print(mob[["batchnorm", "width", "flops", "relative_score", "cka", "participation_ratio"]].round(3).to_string(index=False))
print(mini[["attention_scale", "width", "flops", "relative_score", "nn_agreement", "cka",
            "participation_ratio"]].round(3).to_string(index=False))

# %%
fig, ax = plt.subplots(1, 2, figsize=(8.4, 3.2), layout="constrained")
arith = curves["keep"].to_frame()
ax[0].plot(arith["flops"] / arith["flops"].iloc[0], arith["relative_score"], "o-", label="ArithTransformer (accuracy)")
for bn, style in (("pretrained", "s-"), ("recalibrated", "s:")):
    part = mob[mob["batchnorm"] == bn]
    if part.empty:
        continue
    ax[0].plot(part["flops"] / part["flops"].iloc[0], part["relative_score"], style, label=f"MobileNetV2, BN {bn}")
part = mini[mini["attention_scale"] == "keep"]
ax[0].plot(part["flops"] / part["flops"].iloc[0], part["relative_score"], "^-", label="MiniLM (cosine)")
ax[0].set_xlabel("FLOPs / full")
ax[0].set_ylabel("relative score")
ax[0].legend(fontsize=7)
ax[1].plot(arith["relative_score"], arith["cka"], "o", label="ArithTransformer")
ax[1].plot(mob.loc[mob["batchnorm"] == "pretrained", "relative_score"],
           mob.loc[mob["batchnorm"] == "pretrained", "cka"], "s", label="MobileNetV2")
ax[1].plot(part["relative_score"], part["cka"], "^", label="MiniLM")
ax[1].set_xlabel("relative score")
ax[1].set_ylabel("CKA with the full features")
ax[1].legend(fontsize=7)
fig.savefig(FIG / "slim_three_networks.png", dpi=110)

# %% [markdown]
# ## 5. What the spectra predict
#
# Within one network every diagnostic that falls with the width correlates with the score across
# widths (a rank correlation over a monotone curve says little). The useful question is whether a
# diagnostic of the *full* network tells in advance how slimmable it is, and whether its value at a
# width tells how much score is left. The recorded numbers say no on both counts: see the guide page
# `docs/guide/slim.md` and `benchmarks/README.md` for the table; in short, MobileNetV2's pooled
# features have the lowest participation ratio per dimension of the three (the most "redundant"
# looking spectrum) and it is the least slimmable, and a CKA of 0.5 (MobileNetV2 at s = 0.9) or of
# 0.9 (the addition model at s = 0.875) can go with anything from no agreement to two thirds of the
# accuracy.

# %%
print(f"whole vignette: {time.perf_counter() - t_start:.0f} s")
