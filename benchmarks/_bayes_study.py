"""The IVON study in one place, for ``vignettes/bayes_ivon.py`` and ``benchmarks/bench_bayes.py`` (an
experiment harness on learncore's and statcore's public API, not part of either): small MLPs on
scikit-learn's bundled digits (classification) and diabetes (regression) data, trained by IVON with
each curvature estimate, by ivon-opt (the authors' GPL package, run as a peer, never copied), AdamW
and SGD, over seeds; held-out scores, paired comparisons with AdamW, time per epoch.

Design (hyperparameters in :data:`HYPER`, chosen on a validation split of the training data by
``benchmarks/bench_bayes.py --tune``, never on the test data):

- digits: 1,797 8x8 images, pixels / 16, a stratified 2/3 : 1/3 train/test split (``random_state=0``);
  MLP 64-64-10 with a Tanh hidden layer; cross-entropy (mean over the batch).
- diabetes: 442 patients, 10 covariates and a disease-progression score, a 2/3 : 1/3 split
  (``random_state=0``); covariates and target standardised with the training means and sds;
  MLP 10-32-1 with a Tanh hidden layer; MSE on the standardised target, which for IVON is a Gaussian
  likelihood with noise variance 1/2 (in standardised units; a linear fit leaves about 0.5).
- Tanh rather than ReLU: with ReLU the exact diagonal Hessian equals the Gauss-Newton diagonal, so
  ``hessian="backprop"`` would not differ from a GGN estimate.
- Every method at a given seed starts from the same initial weights (``torch.manual_seed(seed)``)
  and sees the same batches, so the comparisons across seeds are paired.
- IVON and ivon-opt draw one posterior sample per step (``mc_samples=1``) and predict by Bayesian
  model averaging over :data:`PRED_SAMPLES` posterior samples; AdamW and SGD predict at their weights.
- Regression predictive: ``N(mean, s2 + v)``, ``mean`` the (averaged) prediction, ``v`` the variance
  of the posterior samples' predictions (0 for AdamW and SGD) and ``s2`` the mean squared residual of
  the (averaged) prediction on the training data, the same plug-in for every method. Scores are in
  the target's original units.
- Time per epoch: the CPU time of one epoch of training (no evaluation; ``time.process_time``), torch
  on one thread, so that other jobs on a shared machine do not count; the median over epochs and
  seeds, divided by AdamW's. The wall-time ratio is kept too (``wall_vs_adamw``).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch
from scipy import stats
from statcore import p_adjust
from statcore.utils import thread_limit
from torch import nn

import _scores as cal
from learncore.bayes import IVON

METHODS = ("IVON price", "IVON gradsq", "IVON hutchinson", "IVON backprop", "ivon-opt", "AdamW", "SGD")
REFERENCE = "AdamW"
PRED_SAMPLES = 32
METRICS = {"classification": ("accuracy", "nll", "ece", "brier"), "regression": ("rmse", "nll", "ece", "crps")}

#: hyperparameters per dataset and method family; IVON's are shared by every curvature estimate and
#: by ivon-opt (the same algorithm), so the curvature estimate is the only difference among them
HYPER = {
    "digits": {"epochs": 25, "batch_size": 64,
               "IVON": dict(lr=0.5, hess_init=3.0, beta1=0.9, beta2=0.999, weight_decay=1e-4),
               "AdamW": dict(lr=1e-2, weight_decay=1e-2),
               "SGD": dict(lr=0.1, momentum=0.9)},
    "diabetes": {"epochs": 60, "batch_size": 32,
                 "IVON": dict(lr=0.05, hess_init=1.0, beta1=0.9, beta2=0.999, weight_decay=1e-4),
                 "AdamW": dict(lr=3e-4, weight_decay=1e-2),
                 "SGD": dict(lr=3e-4, momentum=0.9)},
}


@dataclass(frozen=True)
class Data:
    name: str
    task: str                 # "classification" or "regression"
    x_train: torch.Tensor
    y_train: torch.Tensor
    x_test: torch.Tensor
    y_test: torch.Tensor
    y_scale: float = 1.0      # regression: the training sd of the target (scores in original units)


def load(name: str, *, validation: bool = False) -> Data:
    """The bundled data set ``name`` ("digits" or "diabetes"), split and scaled as the design says.

    ``validation=True``: the training part alone, split again 3/4 : 1/4 (``random_state=1``) into
    training and validation data, returned as train and test (for choosing hyperparameters without
    the test data: ``benchmarks/bench_bayes.py --tune``).
    """
    from sklearn.datasets import load_diabetes, load_digits
    from sklearn.model_selection import train_test_split

    if name not in ("digits", "diabetes"):
        raise ValueError(f"unknown data set {name!r}")
    X, y = (load_digits if name == "digits" else load_diabetes)(return_X_y=True)
    strat = name == "digits"
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=1 / 3, stratify=y if strat else None, random_state=0)
    if validation:
        Xtr, Xte, ytr, yte = train_test_split(Xtr, ytr, test_size=1 / 4, stratify=ytr if strat else None,
                                              random_state=1)
    f = torch.float32
    if name == "digits":
        return Data(name, "classification", torch.tensor(Xtr / 16.0, dtype=f), torch.tensor(ytr),
                    torch.tensor(Xte / 16.0, dtype=f), torch.tensor(yte))
    mx, sx, my, sy = Xtr.mean(0), Xtr.std(0), ytr.mean(), ytr.std()
    return Data(name, "regression", torch.tensor((Xtr - mx) / sx, dtype=f),
                torch.tensor((ytr - my) / sy, dtype=f).unsqueeze(1), torch.tensor((Xte - mx) / sx, dtype=f),
                torch.tensor((yte - my) / sy, dtype=f).unsqueeze(1), y_scale=float(sy))


def make_model(data: Data, seed: int) -> nn.Sequential:
    torch.manual_seed(seed)
    if data.task == "classification":
        return nn.Sequential(nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 10))
    return nn.Sequential(nn.Linear(data.x_train.shape[1], 32), nn.Tanh(), nn.Linear(32, 1))


def sizes(data: Data) -> str:
    model = make_model(data, 0)
    widths = [m.in_features for m in model if isinstance(m, nn.Linear)] + [model[-1].out_features]
    h = HYPER[data.name]
    return (f"{data.name}: n_train={len(data.x_train)}, n_test={len(data.x_test)}, MLP "
            f"{'-'.join(map(str, widths))} (Tanh), {sum(p.numel() for p in model.parameters())} parameters, "
            f"{h['epochs']} epochs of batches of {h['batch_size']}")


def _optimizer(method: str, model: nn.Module, data: Data, seed: int, hyper: dict):
    h = hyper
    ess = len(data.x_train)
    if method.startswith("IVON "):
        return IVON(model.parameters(), ess=ess, hessian=method.split()[1], seed=seed, **h["IVON"])
    if method == "ivon-opt":
        import ivon   # pip install ivon-opt (GPL): run as a peer

        return ivon.IVON(model.parameters(), ess=ess, **h["IVON"])
    if method == "AdamW":
        return torch.optim.AdamW(model.parameters(), **h["AdamW"])
    if method == "SGD":
        return torch.optim.SGD(model.parameters(), **h["SGD"])
    raise ValueError(f"unknown method {method!r}")


def _predict(method: str, opt, model: nn.Module, x: torch.Tensor, task: str):
    """Classification: log predictive probabilities (n, C). Regression: (mean, variance across the
    posterior samples), each (n,)."""
    with torch.no_grad():
        if method in ("AdamW", "SGD"):
            out = model(x)
            return torch.log_softmax(out, 1).numpy().astype(float) if task == "classification" else \
                (out[:, 0].numpy().astype(float), np.zeros(len(x)))
        outs = []
        for _ in range(PRED_SAMPLES):
            with opt.sampled_params():
                outs.append(model(x))
        outs = torch.stack(outs).double()
    if task == "classification":
        return (torch.logsumexp(torch.log_softmax(outs, -1), 0) - math.log(PRED_SAMPLES)).numpy()
    return outs[:, :, 0].mean(0).numpy(), outs[:, :, 0].var(0, unbiased=False).numpy()


def loss_for(data: Data) -> nn.Module:
    return nn.CrossEntropyLoss() if data.task == "classification" else nn.MSELoss()


def train(data: Data, method: str, seed: int, *, epochs: int | None = None, hyper: dict | None = None):
    """Train one model: (model, optimizer, {"wall": seconds of each epoch, "cpu": CPU seconds of each
    epoch}). ``hyper`` replaces ``HYPER[data.name]``."""
    h = HYPER[data.name] if hyper is None else hyper
    epochs = h["epochs"] if epochs is None else epochs
    model = make_model(data, seed)
    loss_fn = loss_for(data)
    opt = _optimizer(method, model, data, seed, h)
    torch.manual_seed(seed)   # ivon-opt's posterior noise comes from torch's global generator
    gen = torch.Generator().manual_seed(seed)
    n, bs = len(data.x_train), h["batch_size"]
    # the batch is given to the estimators that need it (a Hessian-vector product, the layerwise
    # curvature); "price" and "gradsq" run the plain ivon-opt loop
    needs_batch = method in ("IVON hutchinson", "IVON backprop")
    epoch_times, epoch_cpu = [], []
    with thread_limit(1):
        for _ in range(epochs):
            perm = torch.randperm(n, generator=gen)
            t0, c0 = time.perf_counter(), time.process_time()
            for i in range(0, n, bs):
                idx = perm[i:i + bs]
                xb, yb = data.x_train[idx], data.y_train[idx]
                if method in ("AdamW", "SGD"):
                    opt.zero_grad()
                    loss_fn(model(xb), yb).backward()
                elif needs_batch:
                    with opt.sampled_params(train=True, batch=(model, loss_fn, xb, yb)):
                        opt.zero_grad()
                        loss_fn(model(xb), yb).backward()
                else:
                    with opt.sampled_params(train=True):
                        opt.zero_grad()
                        loss_fn(model(xb), yb).backward()
                opt.step()
            epoch_times.append(time.perf_counter() - t0)
            epoch_cpu.append(time.process_time() - c0)
    return model, opt, {"wall": epoch_times, "cpu": epoch_cpu}


def train_and_score(data: Data, method: str, seed: int, *, epochs: int | None = None,
                    hyper: dict | None = None) -> dict:
    """One training run: held-out scores, the median seconds per epoch and, for classification, the
    test predictive probabilities (for reliability diagrams). ``hyper`` replaces ``HYPER[data.name]``."""
    model, opt, epoch_times = train(data, method, seed, epochs=epochs, hyper=hyper)
    with thread_limit(1):
        row = {"dataset": data.name, "task": data.task, "method": method, "seed": seed,
               "sec_per_epoch": float(np.median(epoch_times["cpu"])),
               "wall_sec_per_epoch": float(np.median(epoch_times["wall"]))}
        if not all(bool(torch.isfinite(p).all()) for p in model.parameters()):   # diverged: no scores
            row.update({m: np.nan for m in METRICS[data.task]}, diverged=True)
            if data.task == "classification":
                row["_prob"] = None
            return row
        row["diverged"] = False
        if data.task == "classification":
            logp = _predict(method, opt, model, data.x_test, data.task)
            y = data.y_test.numpy()
            prob = np.exp(logp)
            row.update(accuracy=float((prob.argmax(1) == y).mean()), nll=cal.nll_classification(logp, y),
                       ece=cal.top_label_calibration(prob, y).ece, brier=cal.brier_score(prob, y))
            row["_prob"] = prob
        else:
            mu_tr, _ = _predict(method, opt, model, data.x_train, data.task)
            s2 = float(np.mean((data.y_train[:, 0].numpy() - mu_tr) ** 2))
            mu, v = _predict(method, opt, model, data.x_test, data.task)
            k = data.y_scale
            y, mu, var = data.y_test[:, 0].numpy() * k, mu * k, (s2 + v) * k * k
            row.update(rmse=float(np.sqrt(np.mean((y - mu) ** 2))), nll=cal.gaussian_nll(y, mu, var),
                       ece=cal.regression_calibration_error(y, mu, var), crps=cal.gaussian_crps(y, mu, var))
    return row


#: the sensitivity run: a curvature memory of about 100 steps instead of 1,000. After a digits run
#: (475 steps) ``h`` has decayed to about 0.99^475 = 0.009 of ``hess_init`` (still mostly its share:
#: the expected Hessian diagonal is smaller), so the posterior is about 10 times wider and the
#: preconditioned step about 100 times longer; the step is clipped (IVON's clip_radius: without it
#: every estimate but gradsq collapsed to chance accuracy on digits); everything else as tuned
SHORT_MEMORY = dict(beta2=0.99, clip_radius=0.01)


def run(datasets=("digits", "diabetes"), methods=METHODS, seeds=range(5), *, epochs: int | None = None,
        ivon_update: dict | None = None, progress=None) -> tuple[pd.DataFrame, dict]:
    """Every (data set, method, seed): a table of scores, and the test probabilities of the
    classification runs keyed by (dataset, method, seed). ``ivon_update`` changes IVON's (and
    ivon-opt's) hyperparameters from :data:`HYPER` (e.g. :data:`SHORT_MEMORY`)."""
    rows, probs = [], {}
    for name in datasets:
        data = load(name)
        hyper = {**HYPER[name], "IVON": {**HYPER[name]["IVON"], **(ivon_update or {})}}
        for seed in seeds:
            for method in methods:
                row = train_and_score(data, method, seed, epochs=epochs, hyper=hyper)
                prob = row.pop("_prob", None)
                if prob is not None:
                    probs[(name, method, seed)] = prob
                rows.append(row)
                if progress is not None:
                    progress(row)
    return pd.DataFrame(rows), probs


def summary(results: pd.DataFrame) -> pd.DataFrame:
    """Mean and sd over seeds of every score, per data set and method, with the median CPU time per
    epoch and its ratio to AdamW's (``time_vs_adamw``; ``wall_vs_adamw``: the same with wall time)."""
    out = []
    for (name, method), g in results.groupby(["dataset", "method"], sort=False):
        task = g["task"].iloc[0]
        rec = {"dataset": name, "task": task, "method": method, "seeds": len(g)}
        for m in METRICS[task]:
            rec[f"{m}_mean"], rec[f"{m}_sd"] = float(g[m].mean()), float(g[m].std(ddof=1)) if len(g) > 1 else np.nan
        ref = results[(results["dataset"] == name) & (results["method"] == REFERENCE)]
        rec["ms_per_epoch"] = 1e3 * float(g["sec_per_epoch"].median())
        rec["time_vs_adamw"] = float(g["sec_per_epoch"].median() / ref["sec_per_epoch"].median()) \
            if len(ref) else np.nan
        rec["wall_vs_adamw"] = float(g["wall_sec_per_epoch"].median() / ref["wall_sec_per_epoch"].median()) \
            if len(ref) else np.nan
        out.append(rec)
    return pd.DataFrame(out)


def paired_tests(results: pd.DataFrame, *, reference: str = REFERENCE) -> pd.DataFrame:
    """Every method against ``reference`` on every score, paired across seeds (``scipy.stats.ttest_rel``,
    two-sided); p-values Holm-adjusted (``statcore.p_adjust``) over all comparisons of a data set."""
    out = []
    for name, g in results.groupby("dataset", sort=False):
        task = g["task"].iloc[0]
        ref = g[g["method"] == reference].set_index("seed")
        if len(ref) < 2:
            continue
        rows = []
        for method in g["method"].unique():
            if method == reference:
                continue
            other = g[g["method"] == method].set_index("seed").loc[ref.index]
            for m in METRICS[task]:
                diff = other[m] - ref[m]
                t = stats.ttest_rel(other[m], ref[m])
                rows.append({"dataset": name, "method": method, "metric": m, "mean_diff": float(diff.mean()),
                             "statistic": float(t.statistic), "p_value": float(t.pvalue)})
        p = np.array([r["p_value"] for r in rows])
        adj = p_adjust(p, method="holm")
        for r, a in zip(rows, np.asarray(adj)):
            r["p_holm"] = float(a)
        out.extend(rows)
    return pd.DataFrame(out)


def format_table(summ: pd.DataFrame, tests: pd.DataFrame, *, reference: str = REFERENCE) -> str:
    """The study table as text: mean +- sd over seeds, the Holm-adjusted p-value against ``reference``
    in brackets, and the time per epoch relative to AdamW (when AdamW ran)."""
    lines = []
    for name, g in summ.groupby("dataset", sort=False):
        task = g["task"].iloc[0]
        metrics = METRICS[task]
        head = f"{'method':16s}" + "".join(f"{m:>25s}" for m in metrics) + f"{'cpu ms/ep':>10s}{'x AdamW':>9s}"
        lines += [f"{name} ({task}; mean +- sd over {int(g['seeds'].iloc[0])} seeds, [Holm p vs {reference}])", head]
        for _, r in g.iterrows():
            cells = []
            for m in metrics:
                hit = tests[(tests["dataset"] == name) & (tests["method"] == r["method"]) & (tests["metric"] == m)]
                p = f" [{hit['p_holm'].iloc[0]:.2f}]" if len(hit) else " " * 7
                cells.append(f"{r[f'{m}_mean']:.4f} +- {r[f'{m}_sd']:.4f}{p}".rjust(25))
            lines.append(f"{r['method']:16s}" + "".join(cells) + f"{r['ms_per_epoch']:10.1f}{r['time_vs_adamw']:9.2f}")
        lines.append("")
    return "\n".join(lines)


def plot_reliability(probs: dict, y_test, dataset: str, methods, ax):
    """Reliability diagrams (15 equal-width confidence bins; the seeds' predictions pooled), one
    panel per method on the array of Axes ``ax``; returns ``ax``."""
    y_test = np.asarray(y_test)
    for a, method in zip(np.ravel(ax), methods):
        keys = sorted(k for k in probs if k[0] == dataset and k[1] == method)
        prob = np.concatenate([probs[k] for k in keys])
        y = np.concatenate([y_test] * len(keys))
        res = cal.top_label_calibration(prob, y)
        tab, ece = res.to_frame(), res.ece
        mid = (tab["bin_low"] + tab["bin_high"]) / 2
        keep = tab["n"] > 0
        a.bar(mid[keep], tab["observed"][keep], width=1 / len(tab), edgecolor="k", color="tab:blue", alpha=0.7,
              label="accuracy")
        a.plot(mid[keep], tab["predicted"][keep], "_", color="tab:red", ms=9, mew=2, label="mean confidence")
        a.plot([0, 1], [0, 1], "k--", lw=1, label="perfect calibration")
        a.set_title(f"{method}\nECE {ece:.3f}", fontsize=9)
        a.set_xlim(0, 1)
        a.set_ylim(0, 1)
        a.set_xlabel("confidence")
    np.ravel(ax)[0].set_ylabel("accuracy")
    np.ravel(ax)[0].legend(fontsize=7, loc="upper left")
    return ax
