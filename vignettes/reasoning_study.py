# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---

# %% [markdown]
# # Reasoning traces in a rewrite grammar: RL against rejection fine-tuning, and Hint Tuning
#
# Two papers of the seed study how post-training changes a model's reasoning traces: RL with a binary
# final-answer reward is reported to form valid compressed procedures (macro and parallel
# contractions) in a rewrite-grammar environment, while rejection fine-tuning (RFT) plateaus with
# invalid shortcuts; and Hint Tuning (Fan et al. 2026) shortens a reasoning model's traces by
# fine-tuning it on No-Hint / Sparse-Hint / Full-Hint data built from what its instruct sibling can
# solve. The papers' claims are theirs; what is here is ours: `learncore.reasoning`'s environment
# (words over a finite monoid, traces `w0|w1|...|wn=x`, an audit of every step by a dynamic programme
# over segmentations), tiny transformers trained on a CPU, and the analyses of this page
# (`pass_at_k_curve`, `step_mix`, `procedure_repertoire`), on a miniature study whose results are
# read from `benchmarks/results/reasoning/quick/` (made by `python benchmarks/bench_reasoning.py
# --quick`, about ten minutes on one thread). Whether contractions form in this toy is an outcome,
# reported as measured. A few seconds of CPU; figures go to `figures/`.

# %%
import json
import sys
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

import learncore
from learncore.reasoning import Monoid, audit_step, pass_at_k_curve, procedure_repertoire, step_mix

ROOT = Path(learncore.__file__).resolve().parents[1]
# the study's harness is the benchmarks': benchmarks/_reasoning_study.py of the repository
sys.path.insert(0, str(ROOT / "benchmarks"))
import _reasoning_study as study  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "reasoning" / "quick"
FIG = Path("figures")
FIG.mkdir(exist_ok=True)
t_start = time.perf_counter()

# %% [markdown]
# ## 1. What the audit sees
#
# A step `u -> v` is valid when `u` splits into `len(v)` contiguous segments whose products are `v`'s
# symbols. In Z_5 from `1234`: `334` is one primitive step (atomic), `14` contracts `123` into `1`
# (sequential), `32` rewrites two pairs at once (parallel), `22` follows from no segmentation
# (invalid: a shortcut that skips two steps and gets the word wrong).

# %%
z5 = Monoid.cyclic(5)
for v in ("334", "14", "32", "0", "22"):
    a = audit_step("1234", v, z5)
    print(f"1234 -> {v:4s} {a.label:10s} valid={a.valid!s:5s} compressed={a.compressed} segments={a.segments}")

# %% [markdown]
# The analyses take sampled traces per checkpoint. Here three hand-made checkpoints: primitive
# chains, then a valid parallel step and a valid macro, then an invalid shortcut. `step_mix` gives
# the label mix and the rates; `procedure_repertoire` names each composed procedure by its segments'
# symbols and results (`12>3,34>2` is the parallel step) and counts its reuse.

# %%
ckpts = {0: ["1234|334|14|0=0", "2222|422|12|3=3"],
         50: ["1234|32|0=0", "1231|11|2=2", "2222|422|12|3=3"],
         100: ["1234|32|0=0", "1234|22|4=4", "1231|11|2=2"]}
mix = step_mix(ckpts, z5)
print(mix)
rep = procedure_repertoire(ckpts, z5, top=2)
print(rep)

# %% [markdown]
# pass@k is estimated without bias from n samples per problem (`statcore.pass_at_k`), averaged per
# group of problems (here per word length) with a bootstrap interval over problems. With a
# six-symbol answer alphabet, guessing alone gives 1 - (5/6)^k: at k = 16, 0.95. Large-k pass@k says
# little here; pass@1 and pass@2 carry the comparison.

# %%
rng = np.random.default_rng(0)
correct = rng.random((40, 16)) < np.repeat([0.8, 0.3], 20)[:, None]
curve = pass_at_k_curve(correct, [1, 2, 4, 8, 16], groups=np.repeat([5, 8], 20), B=199, seed=1)
print(curve)

# %% [markdown]
# ## 2. The quick study
#
# S3 (six symbols, non-commutative). Pretraining on words of lengths 3-6 on each corpus of the
# ablation (full leftmost chains, isolated single steps, chains in random order); post-training from
# the same pretrained model by GRPO, REINFORCE and RFT with the same samples per step and a token
# budget of 21 generated tokens (the full chain of a length-6 word: a length-7 word needs 28, a
# length-8 word 36, so they fit only if steps are contracted or the answer is given early); RL
# problems of lengths 4-7, evaluation on fresh words of lengths 4-8.

# %%
res = study.load_results(RESULTS)
cfg = res["config"]
print(f"token budget {cfg['budget']}; RL steps {cfg['rl_steps']} x {cfg['batch_size']} problems x "
      f"{cfg['group_size']} samples; evaluation {cfg['eval_problems']} words per length x {cfg['eval_samples']} "
      f"samples; {res['timings']['total']:.0f} s in all")
rows = []
for kind, pre in res["pretrain"].items():
    rows.append((f"{kind}/pretrained", pre["passk"], pre["step_mix"][0], pre["mean_tokens"]))
for name, run in res["runs"].items():
    rows.append((name, run["passk"], run["final_step_mix"][0], run["mean_tokens"]))
print(f"{'model':>18} " + " ".join(f"{'p@1 L' + str(L):>8}" for L in cfg["eval_lengths"])
      + f" {'valid':>6} {'contr':>6} {'inv.sc':>6} {'early':>6} {'tokens':>6}")
for name, passk, m, tokens in rows:
    p1 = {r["group"]: r["estimate"] for r in passk if r["k"] == 1}
    print(f"{name:>18} " + " ".join(f"{p1[L]:8.2f}" for L in cfg["eval_lengths"])
          + f" {m['valid_rate']:6.3f} {m['contraction_rate']:6.3f} {m['invalid_shortcut_rate']:6.3f}"
          f" {m['early_answer_rate']:6.3f} {tokens:6.1f}")

# %%
ax = study.plot_passk(res)
ax[0].figure.savefig(FIG / "reasoning_passk.png", dpi=80)
plt.close("all")
ax = study.plot_label_mix(res)
ax[0].figure.savefig(FIG / "reasoning_label_mix.png", dpi=80)
plt.close("all")

# %% [markdown]
# The repertoire of composed procedures of each run (the checkpoints' samples), and the stability
# of its most used ones across checkpoints (Jaccard of the top sets of consecutive checkpoints;
# NaN where neither checkpoint used a composed procedure).

# %%
for name, run in res["runs"].items():
    top = ", ".join(f"{r['procedure']} x{r['count']}" for r in run["repertoire"][:4]) or "none"
    jac = ", ".join("nan" if j is None else f"{j:.2f}" for j in run["repertoire_jaccard"])
    print(f"{name:>15}: {run['n_procedures']} procedures; most used {top}; Jaccard {jac}")

# %% [markdown]
# ## 3. Hint Tuning on top
#
# The GRPO chain model is the "thinking" model; its pretrained base fine-tuned on direct answers
# `w=x` is the "instruct" model. Each trace is split at its step separators, the instruct model
# answers from the last word of each cumulative prefix, the shortest prefix that solves sets the
# state, and the thinking model is fine-tuned on `w0|=x` (No-Hint), `w0|w1|..|wk=x` (Sparse-Hint) and
# its own full traces (Full-Hint). Token reduction on fresh problems with its paired Fieller interval,
# and the accuracy change with McNemar's test:

# %%
hint = res["hint"]
print("states:", hint["states"], "; non-monotone searches:", hint["n_nonmonotone"])
print("instruct model's direct accuracy by length:",
      {k: round(v, 2) for k, v in hint["instruct_accuracy"].items()})
print(hint["summary"])
print("the tuned model answers at once ('w0|=x') on", f"{hint['direct_share']:.0%}", "of the problems")

# %%
print(f"vignette ran in {time.perf_counter() - t_start:.1f} s")
