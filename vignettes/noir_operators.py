# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---

# %% [markdown]
# # Neural operators on corrupted sensors: does an independence penalty help? (NOIR)
#
# A neural operator maps an input field, read at m sensors, to an output field on a grid. NOIR
# (Neural Operator Independence Regularization) trains it with an extra term,
# lam * (mean normalised HSIC between the coordinates of its latent layer), so that the latent
# features become statistically independent; the claim is that such operators degrade less when the
# sensors are corrupted, at little cost in clean accuracy.
#
# This vignette
#
# 1. generates the three PDE datasets of `learncore.operators` (Burgers, Darcy flow on 32 x 32,
#    advection) and shows the five sensor corruptions;
# 2. runs the study of `benchmarks/bench_noir.py`: {DeepONet, FNO} x {lam = 0, lam > 0} x seeds,
#    clean and under five corruptions at three strengths, paired comparisons across seeds, the
#    latent signature of every model. In CI it runs the **quick** design (tiny models, a few
#    epochs: a smoke run whose numbers mean little); `LEARNCORE_VIGNETTE_FULL=1` runs the full design;
# 3. shows the tables recorded from the study run with `benchmarks/bench_noir.py` (committed under
#    `benchmarks/results/noir/`), which is what the conclusions rest on.
#
# Figures go to `figures/`.

# %%
import os
import sys
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import torch

import learncore
from learncore.operators import CORRUPTIONS, advection_1d, burgers_1d, corrupt, darcy_2d

# the study's harness is the benchmark's: benchmarks/_noir_study.py of the repository
sys.path.insert(0, str(Path(learncore.__file__).resolve().parents[1] / "benchmarks"))
import _noir_study as study  # noqa: E402

torch.set_num_threads(1)
FIG = Path("figures")
FIG.mkdir(exist_ok=True)
FULL = os.environ.get("LEARNCORE_VIGNETTE_FULL") == "1"
t_start = time.perf_counter()

# %% [markdown]
# ## 1. The data and the corruptions
#
# Each generator is seeded and states its grid, sensors and split.

# %%
bur = burgers_1d(40, seed=0)
dar = darcy_2d(8, seed=0)
adv = advection_1d(40, seed=0)
for ds in (bur, dar, adv):
    print(ds.describe(), end="\n\n")

# %%
fig, ax = plt.subplots(1, 4, figsize=(15, 3.2))
x = bur.grid[:, 0]
for i in range(3):
    ax[0].plot(x, bur.inputs[i], color=f"C{i}", ls="--", lw=1)
    ax[0].plot(x, bur.targets[i], color=f"C{i}", lw=1.5)
ax[0].plot(bur.sensor_coords[:, 0], bur.sensors[0], "k.", ms=4, label="sensors (sample 0)")
ax[0].set_title("Burgers: u0 (dashed) -> u(., 1)")
ax[0].legend(fontsize=7)
ax[1].imshow(dar.inputs[0].reshape(32, 32).T, origin="lower", extent=(0, 1, 0, 1), cmap="gray")
sc = dar.sensor_coords
ax[1].plot(sc[:, 0], sc[:, 1], "r.", ms=3)
ax[1].set_title("Darcy: permeability a (3 / 12) and sensors")
im = ax[2].imshow(dar.targets[0].reshape(32, 32).T, origin="lower", extent=(0, 1, 0, 1))
fig.colorbar(im, ax=ax[2], fraction=0.046)
ax[2].set_title("Darcy: pressure u")
clean = adv.sensors[:1].astype(float)
xs = adv.sensor_coords[:, 0]
ax[3].plot(xs, clean[0], "k-", lw=2, label="clean")
for j, kind in enumerate(CORRUPTIONS):
    ax[3].plot(xs, corrupt(clean, kind, 0.2, sensor_coords=xs, seed=1)[0], lw=1, label=kind)
ax[3].set_title("the five corruptions at strength 0.2")
ax[3].legend(fontsize=7)
fig.tight_layout()
fig.savefig(FIG / "noir_data.png", dpi=110)

# %% [markdown]
# ## 2. The study, run here
#
# The quick design in CI (two seeds, four epochs, tiny models); the full design with
# `LEARNCORE_VIGNETTE_FULL=1`. The table shows the mean test relative L2 at lam = 0 / lam > 0 for
# each PDE, model and condition; a star marks a cell whose BH-adjusted paired t-test across seeds is
# below 0.05.

# %%
design = study.FULL if FULL else study.QUICK
res = study.run_study(design, n_jobs=1)
comp = res.comparisons()
pd.set_option("display.width", 200, "display.max_columns", 20)
print(f"design: {design.n_samples} samples, {design.epochs} epochs, seeds {design.seeds}, lam {design.lam}")
print(f"study time: {res.seconds:.0f} s")
study.error_table(comp).iloc[:, :6]

# %% [markdown]
# The same comparison of each model's *degradation* (its error under a corruption minus its own
# clean error), so that a model that is worse when clean but degrades less shows up:

# %%
study.error_table(res.degradation_comparisons()).iloc[:, :5]

# %%
for pde in design.pdes:
    ax = study.plot_error_vs_strength(res.errors, pde)
    ax[0].figure.tight_layout()
    ax[0].figure.savefig(FIG / f"noir_error_vs_strength_{pde}.png", dpi=100)
    plt.close(ax[0].figure)
ax = study.plot_signatures(res.signatures)
ax.figure.tight_layout()
ax.figure.savefig(FIG / "noir_signature_share_dependent.png", dpi=100)

# %% [markdown]
# ## 3. The recorded study
#
# `benchmarks/bench_noir.py` writes its raw tables as csv; the run committed with the repository
# (its command and timings are in `benchmarks/README.md`) is read back here.

# %%
recorded = Path(learncore.__file__).resolve().parents[1] / "benchmarks" / "results" / "noir"
if (recorded / "comparisons.csv").exists():
    rcomp = pd.read_csv(recorded / "comparisons.csv")
    rsig = pd.read_csv(recorded / "signatures.csv")
    rerr = pd.read_csv(recorded / "errors.csv")
    print(f"recorded study: {rerr.seed.nunique()} seeds, {len(rcomp)} cells; "
          f"{int(rcomp.significant.sum())} significant after BH; lam > 0 lower in {int((rcomp.difference < 0).sum())}")
    display_cols = ["pde", "model", "corruption", "level", "rel_l2_lam0", "rel_l2_noir", "rel_change", "p_adjusted"]
    print(rcomp[rcomp.corruption.isin(["none", "student_t", "drift"])][display_cols]
          .to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    rdeg = pd.read_csv(recorded / "degradation_comparisons.csv")
    print(f"\ndegradation (corrupted minus the model's own clean error): {int(rdeg.significant.sum())} of "
          f"{len(rdeg)} cells significant after BH; lam > 0 degrades less in {int((rdeg.difference < 0).sum())}")
    print(rdeg[rdeg.significant][display_cols[:-2] + ["p_adjusted"]].to_string(index=False,
                                                                           float_format=lambda v: f"{v:.4g}"))
    for pde in rerr.pde.unique():
        ax = study.plot_error_vs_strength(rerr, pde)
        ax[0].figure.tight_layout()
        ax[0].figure.savefig(FIG / f"noir_recorded_error_vs_strength_{pde}.png", dpi=100)
        plt.close(ax[0].figure)
    ax = study.plot_signatures(rsig)
    ax.figure.tight_layout()
    ax.figure.savefig(FIG / "noir_recorded_signature.png", dpi=100)
else:
    print("no recorded study next to this installation (run benchmarks/bench_noir.py --out benchmarks/results/noir)")

# %%
print(f"vignette time: {time.perf_counter() - t_start:.0f} s")
