"""The NOIR study in one place, for ``benchmarks/bench_noir.py`` and ``vignettes/noir_operators.py``
(an experiment harness on learncore's and statcore's public API, not part of either): three PDEs x {DeepONet, FNO} x {lam = 0, lam > 0} x seeds, evaluated on clean
readings and under the five sensor corruptions at three strengths; paired comparisons across seeds;
the latent signature of each model; time per epoch.

Design (every number is in :class:`Design`; :data:`FULL` and :data:`QUICK` are the two presets):

- Data: ``burgers_1d``, ``darcy_2d`` and ``advection_1d`` with their default physics, one dataset per
  PDE (data seed 0) shared by every model and seed; the seeds vary the model's initialisation and the
  batch order only, so lam = 0 and lam > 0 at the same seed start from the same weights and see the
  same batches, and the comparison across seeds is paired.
- Models: ``DeepONet.from_dataset`` and ``FNO.from_dataset`` with the widths of the design; the
  penalty is the normalised HSIC averaged over the latent pairs (``reduction="mean"``, so lam means
  the same for both architectures: a mean dependence in [0, 1]).
- Training: ``NOIR.fit`` (Adam, cosine schedule, relative L2) for ``epochs`` epochs; time per epoch is
  the process CPU time of ``fit`` divided by the epochs (torch on one thread), so other jobs on a
  shared machine do not count; the wall time is kept too.
- Evaluation: ``evaluate`` on the test split, clean and under each corruption at each level, with the
  corruption seed fixed (the same corrupted readings for every model): the mean relative L2 per
  (PDE, model, lam, seed, corruption, level).
- Comparisons: per (PDE, model, corruption, level) cell, the paired difference mean(lam > 0) -
  mean(lam = 0) over the seeds: paired t-test (``scipy.stats.ttest_rel``, two-sided; statcore has no
  paired t-test) and, for reference, the exact Wilcoxon signed-rank test (whose smallest two-sided
  p-value with 5 seeds is 0.0625); the t-test p-values are BH-adjusted over all cells
  (``statcore.p_adjust``).
- Robustness proper: the same comparison of each model's degradation (error under a corruption
  minus its own clean error, per seed; :func:`degradation`), so a model that is worse clean but
  degrades less shows up.
- Latent signature: ``latent_signature`` of each model at seed 0 (distance-correlation t-tests of all
  latent pairs, BH, alpha 0.05; total correlation; participation ratio), clean and under each
  corruption at the middle level.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd
from scipy import stats
from statcore import p_adjust

from learncore.operators import CORRUPTIONS, advection_1d, burgers_1d, darcy_2d

PDES = ("burgers", "darcy", "advection")
MODELS = ("DeepONet", "FNO")
_GENERATORS = {"burgers": burgers_1d, "darcy": darcy_2d, "advection": advection_1d}


@dataclass(frozen=True)
class Design:
    """Every setting of the study."""

    n_samples: int = 500
    epochs: int = 60
    batch_size: int = 32
    lr_deeponet: float = 1e-2
    lr_fno: float = 3e-3
    lam: float = 0.3
    penalty: str = "hsic"
    seeds: tuple = (0, 1, 2, 3, 4)
    levels: tuple = (0.05, 0.1, 0.2)
    pdes: tuple = PDES
    models: tuple = MODELS
    deeponet: dict = field(default_factory=lambda: dict(p=32, branch_hidden=(64, 64), trunk_hidden=(64, 64)))
    fno_1d: dict = field(default_factory=lambda: dict(width=16, n_layers=3, projection_hidden=32))
    fno_2d: dict = field(default_factory=lambda: dict(width=12, modes=(6, 6), n_layers=2, projection_hidden=32))
    signature_B: int = 199
    corruption_seed: int = 12345


FULL = Design()
QUICK = Design(n_samples=120, epochs=4, seeds=(0, 1), lam=0.3,
               deeponet=dict(p=12, branch_hidden=(32,), trunk_hidden=(32,)),
               fno_1d=dict(width=8, n_layers=2, projection_hidden=16, modes=8),
               fno_2d=dict(width=6, modes=(4, 4), n_layers=1, projection_hidden=16))


def make_data(pde: str, design: Design):
    """The dataset of one PDE (data seed 0)."""
    return _GENERATORS[pde](design.n_samples, seed=0)


def _build(model: str, ds, design: Design, seed: int):
    from learncore.operators import FNO, DeepONet

    if model == "DeepONet":
        return DeepONet.from_dataset(ds, seed=seed, **design.deeponet)
    return FNO.from_dataset(ds, seed=seed, **(design.fno_1d if ds.dim == 1 else design.fno_2d))


def run_one(pde: str, model: str, lam: float, seed: int, ds, design: Design, signature: bool) -> dict:
    """Train one model, evaluate it, and (``signature``) take its latent signature."""
    import torch

    from learncore.operators import NOIR, evaluate, latent_signature

    torch.set_num_threads(1)
    net = NOIR(_build(model, ds, design, seed), measure=design.penalty, lam=lam,
               measure_args=dict(reduction="mean"))
    c0, w0 = time.process_time(), time.perf_counter()
    lr = design.lr_deeponet if model == "DeepONet" else design.lr_fno
    hist = net.fit(ds, epochs=design.epochs, batch_size=design.batch_size, lr=lr, seed=seed,
                   track_test=False, track_penalty=True, progress=False)
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    ev = evaluate(net, ds, levels=design.levels, seed=design.corruption_seed).to_frame()
    errors = (ev.groupby(["corruption", "level"], sort=False).rel_l2.mean().reset_index()
              .assign(pde=pde, model=model, lam=lam, seed=seed))
    timing = dict(pde=pde, model=model, lam=lam, seed=seed, epochs=design.epochs, cpu_per_epoch=cpu / design.epochs,
                  wall_per_epoch=wall / design.epochs, final_loss=float(hist.loss[-1]),
                  final_penalty=float(hist.penalty[-1]))
    sig = None
    if signature:
        s = latent_signature(net, ds, level=design.levels[len(design.levels) // 2], test="dcor", method="t",
                             seed=design.corruption_seed)
        sig = s.to_frame().assign(pde=pde, model=model, lam=lam, seed=seed)
    return dict(errors=errors, timing=timing, signature=sig)


@dataclass
class StudyResult:
    """The study's raw tables (errors per seed, timings, latent signatures) and its total time."""

    design: Design
    errors: pd.DataFrame
    timing: pd.DataFrame
    signatures: pd.DataFrame
    seconds: float
    data_seconds: dict

    def comparisons(self) -> pd.DataFrame:
        return compare(self.errors)

    def degradation_comparisons(self) -> pd.DataFrame:
        return compare(degradation(self.errors))


def run_study(design: Design = FULL, *, n_jobs: int = 1, progress: bool = False) -> StudyResult:
    """Every (PDE, model, lam, seed) of the design; ``n_jobs`` worker processes (joblib)."""
    from statcore.utils import parallel_map

    t0 = time.perf_counter()
    data, data_seconds = {}, {}
    for pde in design.pdes:
        t = time.perf_counter()
        data[pde] = make_data(pde, design)
        data_seconds[pde] = time.perf_counter() - t
    tasks = [(pde, model, lam, seed, data[pde], design, seed == design.seeds[0])
             for pde in design.pdes for model in design.models for lam in (0.0, design.lam) for seed in design.seeds]
    out = parallel_map(run_one, tasks, n_jobs=n_jobs, progress=progress, desc="NOIR study", unit="fit",
                       prefer="processes")
    errors = pd.concat([o["errors"] for o in out], ignore_index=True)
    timing = pd.DataFrame([o["timing"] for o in out])
    sigs = [o["signature"] for o in out if o["signature"] is not None]
    signatures = pd.concat(sigs, ignore_index=True) if sigs else pd.DataFrame()
    return StudyResult(design, errors, timing, signatures, time.perf_counter() - t0, data_seconds)


def degradation(errors: pd.DataFrame) -> pd.DataFrame:
    """The errors minus the same model's (PDE, model, lam, seed) clean error, corrupted rows only: how
    much a corruption costs each trained model, whatever its clean accuracy."""
    keys = ["pde", "model", "lam", "seed"]
    clean = errors[errors.corruption == "none"].set_index(keys).rel_l2
    out = errors[errors.corruption != "none"].copy()
    out["rel_l2"] = out.rel_l2.to_numpy() - clean.reindex(pd.MultiIndex.from_frame(out[keys])).to_numpy()
    return out.reset_index(drop=True)


def compare(errors: pd.DataFrame) -> pd.DataFrame:
    """One row per (PDE, model, corruption, level): mean relative L2 at lam = 0 and lam > 0 over the
    seeds, their paired difference, the paired t-test and Wilcoxon p-values, and the BH-adjusted
    t-test p-value over all cells. Pass ``degradation(errors)`` to compare the increase over each
    model's clean error instead."""
    lam_pos = sorted(set(errors.lam) - {0.0})
    if len(lam_pos) != 1:
        raise ValueError(f"expected one lam > 0, got {lam_pos}")
    wide = errors.pivot_table(index=["pde", "model", "corruption", "level", "seed"], columns="lam",
                              values="rel_l2").reset_index()
    rows = []
    for key, g in wide.groupby(["pde", "model", "corruption", "level"], sort=False):
        a, b = g[0.0].to_numpy(), g[lam_pos[0]].to_numpy()
        d = b - a
        p_t = float(stats.ttest_rel(b, a).pvalue) if len(d) > 1 and np.ptp(d) > 0 else np.nan
        p_w = float(stats.wilcoxon(b, a, method="exact").pvalue) if len(d) > 1 and np.any(d != 0) else np.nan
        rows.append(dict(zip(("pde", "model", "corruption", "level"), key), n_seeds=len(d), rel_l2_lam0=a.mean(),
                         rel_l2_noir=b.mean(), difference=d.mean(), rel_change=d.mean() / a.mean(), p_value=p_t,
                         p_wilcoxon=p_w))
    out = pd.DataFrame(rows)
    out["p_adjusted"] = p_adjust(out.p_value.to_numpy(), method="BH")
    out["significant"] = out.p_adjusted < 0.05
    order = {c: i for i, c in enumerate(("none",) + CORRUPTIONS)}
    return (out.assign(_o=out.corruption.map(order)).sort_values(["pde", "model", "_o", "level"])
            .drop(columns="_o").reset_index(drop=True))


def error_table(comp: pd.DataFrame) -> pd.DataFrame:
    """The study's table: mean relative L2 (lam = 0 / lam > 0) per PDE and model (rows) and condition
    (columns), a star where the BH-adjusted paired t-test is below 0.05."""
    cond = np.where(comp.corruption == "none", "clean", comp.corruption + "@" + comp.level.map("{:g}".format))
    cell = [f"{a:.4f}/{b:.4f}{'*' if s else ''}" for a, b, s in zip(comp.rel_l2_lam0, comp.rel_l2_noir,
                                                                        comp.significant)]
    t = comp.assign(condition=cond, cell=cell)
    return t.pivot_table(index=["pde", "model"], columns="condition", values="cell", aggfunc="first",
                         sort=False)


def plot_error_vs_strength(errors: pd.DataFrame, pde: str, *, ax=None):
    """Mean relative L2 (over seeds; bars: the seeds' range) against strength, one panel per
    corruption, one line per model and lam."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(1, len(CORRUPTIONS), figsize=(3.2 * len(CORRUPTIONS), 3), sharey=True)
    e = errors[errors.pde == pde]
    clean = e[e.corruption == "none"]
    for a, kind in zip(np.atleast_1d(ax), CORRUPTIONS):
        sub = e[e.corruption == kind]
        for (model, lam), g in sub.groupby(["model", "lam"]):
            c0 = clean[(clean.model == model) & (clean.lam == lam)].rel_l2
            per = g.groupby("level").rel_l2
            lv = np.r_[0.0, per.mean().index.to_numpy()]
            mean = np.r_[c0.mean(), per.mean().to_numpy()]
            lo = np.r_[c0.min(), per.min().to_numpy()]
            hi = np.r_[c0.max(), per.max().to_numpy()]
            ls = "-" if lam > 0 else "--"
            col = "C0" if model == "DeepONet" else "C1"
            a.plot(lv, mean, ls, color=col, marker="o", ms=3, label=f"{model}, lam={lam:g}")
            a.fill_between(lv, lo, hi, color=col, alpha=0.12 if lam > 0 else 0.06)
        a.set_title(f"{pde}: {kind}")
        a.set_xlabel("strength (x field sd)")
    np.atleast_1d(ax)[0].set_ylabel("test relative L2")
    np.atleast_1d(ax)[0].legend(fontsize=7)
    return ax


def plot_signatures(signatures: pd.DataFrame, *, value: str = "share_dependent", ax=None):
    """The latent signature (``value`` of ``latent_signature``'s table) of each PDE x model x lam, clean
    and under each corruption."""
    import matplotlib.pyplot as plt

    s = signatures.copy()
    s["label"] = s.pde + "\n" + s.model
    labels = list(dict.fromkeys(s.label))
    conds = list(dict.fromkeys(s.condition))
    if ax is None:
        _, ax = plt.subplots(figsize=(max(6, 1.3 * len(labels)), 3.4))
    width = 0.8 / (2 * len(conds))
    for k, lam in enumerate(sorted(s.lam.unique())):
        for j, c in enumerate(conds):
            sub = s[(s.lam == lam) & (s.condition == c)].set_index("label").reindex(labels)
            x = np.arange(len(labels)) - 0.4 + width * (k * len(conds) + j + 0.5)
            ax.bar(x, sub[value], width, color=f"C{j}", alpha=0.45 if lam == 0 else 0.95,
                   hatch="//" if lam == 0 else None, label=f"{c}" if k == 1 else None)
    ax.set_xticks(np.arange(len(labels)), labels, fontsize=8)
    ax.set_ylabel(value.replace("_", " "))
    ax.set_title(f"latent {value.replace('_', ' ')}: hatched lam = 0, solid lam > 0")
    ax.legend(fontsize=7, ncol=3)
    return ax


def quick_design(**changes) -> Design:
    """QUICK with some settings changed."""
    return replace(QUICK, **changes)
