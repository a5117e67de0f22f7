"""Calibrated model selection: the AIC difference between a simpler architecture and the richer ones,
referred to its parametric-bootstrap distribution under the fitted simpler model
(:func:`calibrate_selection`, :class:`CalibratedSelection`).

Why: the architectures are not nested (their learning dynamics differ), so the likelihood-ratio
chi-square does not apply, and AIC's penalty of one unit per parameter is not what the flexibility
of a deep network buys: on synthetic 1L animals, AIC picked 2NL for 7 of 29 (the 2NL fit gains 8-17
log-likelihood units over the truth). The parametric bootstrap (Efron & Tibshirani 1993, ch. 6;
Williams 1970; McLachlan 1987 for the number of components of a mixture, the same non-standard
problem) simulates new animals from the simpler model fitted to each animal, on that animal's own
stimuli and rewarded sides, refits every model to each of them with the same procedure, and takes
the (1 - alpha) quantile of the refitted AIC differences as the threshold the observed one must
exceed. It calibrates the whole procedure as run (restarts, iteration cap, local optima), not an
idealised maximum likelihood.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
import pandas as pd

from statcore.utils import (check_n_jobs, check_probability, check_progress, check_seed, parallel_map, perm_pvalue,
                            spawn_seeds, thread_limit)

from ._checks import check_positive_int, check_positive_real
from ._model import ARCH_CODE, RULE_CODE, RULES, check_arch
from ._trials import check_trials, input_columns
from .results import LearningRuleFit, Result

__all__ = ["calibrate_selection", "CalibratedSelection"]


def simulate_like(fit: LearningRuleFit, rng: np.random.Generator) -> pd.DataFrame:
    """A new animal from a fitted model, on the fitted animal's own stimuli, sessions and rewarded
    sides (the rewarded side of a trial is a property of the task, not of the choice)."""
    from . import _kernels as K

    tr = fit.trials
    data = check_trials(tr)
    choice = np.empty(data.n_trials, dtype=np.int64)
    reward = np.empty(data.n_trials, dtype=np.float64)
    pr = np.empty(data.n_trials, dtype=np.float64)
    K.simulate_kernel(fit.theta, data.x, data.rewarded_side, rng.random(data.n_trials), ARCH_CODE[fit.arch],
                      RULE_CODE[fit.rule], max(fit.hidden, 1), float(fit.baseline), choice, reward, pr)
    cols = input_columns(tr)
    out = pd.DataFrame({cols[0]: data.x[:, 0], cols[1]: data.x[:, 1],
                        "choice": np.where(choice == 1, "right", "left"), "reward": reward.astype(np.int64),
                        "session": data.session})
    return out


def _stat(fits: Mapping[str, LearningRuleFit], simpler: str, richer: tuple) -> tuple[float, str]:
    """AIC(simpler) - min AIC(richer): > 0 where raw AIC prefers a richer model; and that model."""
    aics = {a: fits[a].aic for a in richer}
    best = min(richer, key=lambda a: aics[a])
    return fits[simpler].aic - aics[best], best


def _replicate_fits(fit0: LearningRuleFit, hiddens: dict, kw: dict, seed_seq, from_truth: bool = False):
    """One simulated animal from ``fit0`` and every architecture refitted to it: (trials, fits).
    ``from_truth``: the refit of fit0's architecture starts its first restart at fit0's parameters
    (the random starts are drawn all the same, so the other refits do not change)."""
    from ._fit import fit

    rng = np.random.default_rng(seed_seq)
    tr = simulate_like(fit0, rng)
    fits = {a: fit(tr, arch=a, rule=fit0.rule, hidden=max(h, 1), seed=rng, warn=False, baseline=fit0.baseline,
                   backend="numba", ridge_iter=0, init=[fit0.params] if from_truth and a == fit0.arch else None,
                   **kw) for a, h in hiddens.items()}
    return tr, fits


def _replicate(fit0: LearningRuleFit, hiddens: dict, simpler: str, richer: tuple, kw: dict, seed_seq,
               from_truth: bool = False) -> float:
    with thread_limit(1):
        try:
            _, fits = _replicate_fits(fit0, hiddens, kw, seed_seq, from_truth)
        except (ValueError, FloatingPointError):
            return np.inf      # a failed replicate counts against the richer model (conservative)
    return _stat(fits, simpler, richer)[0]


@dataclass(frozen=True, eq=False, repr=False)
class CalibratedSelection(Result):
    """Per-animal model selection by raw AIC and by the parametric-bootstrap-calibrated AIC difference.

    Attributes
    ----------
    per_group : pandas.DataFrame
        One row per animal: ``aic_<arch>`` (``aic_1l``, ``aic_2l``, ``aic_2nl``) of every architecture, ``raw_best`` (smallest AIC),
        ``statistic`` (AIC of the simpler model minus the smallest AIC of the richer ones: raw AIC
        prefers a richer model when it is > 0), ``threshold`` (the bootstrap (1 - alpha) quantile of
        the statistic under the fitted simpler model), ``p_value`` ((1 + #{T_b >= T}) / (B + 1)),
        ``calibrated_best`` (the simpler model unless ``p_value <= alpha``, then the richer model with
        the smallest AIC) and ``n_failed`` (replicates whose simulation or refit failed, counted as
        exceeding T).
    table : pandas.DataFrame
        One row per architecture: ``raw_wins``, ``calibrated_wins``.
    boot : numpy.ndarray
        The bootstrap statistics (animals x B), rows in ``per_group`` order.
    simpler : str
        The null architecture.
    richer : tuple of str
        The alternatives.
    alpha : float
        The level of each animal's test (the false-selection rate on animals of the simpler kind).
    B : int
        Bootstrap replicates per animal.
    fits : mapping
        The fits compared ({animal: {arch: LearningRuleFit}}), by reference.

    Examples
    --------
    >>> import numpy as np
    >>> from learncore.learning_rules import simulate, fit_many
    >>> one = {"W": np.zeros((2, 3)), "eta": 0.05, "beta": 8.0}
    >>> mice = {f"m{k}": simulate("1L", one, 150, seed=k) for k in range(2)}
    >>> cmp = fit_many(mice, archs=("1L", "2NL"), hidden=1, restarts=1, max_iter=30, B=0, seed=0)
    >>> res = calibrate_selection(cmp, B=4, alpha=0.2, restarts=1, max_iter=30, seed=1)
    >>> res.table.columns.tolist()
    ['raw_wins', 'calibrated_wins']
    """

    per_group: Any
    table: Any
    boot: np.ndarray
    simpler: str
    richer: tuple
    alpha: float
    B: int
    fits: Any = None

    @property
    def n_groups(self) -> int:
        """The number of animals."""
        return len(self.per_group)

    def _repr_parts(self):
        return [("simpler", self.simpler), ("n_groups", self.n_groups), ("alpha", self.alpha), ("B", self.B),
                ("raw_simpler_wins", int(self.table.loc[self.simpler, "raw_wins"])),
                ("calibrated_simpler_wins", int(self.table.loc[self.simpler, "calibrated_wins"]))]

    def headline(self) -> str:
        """``"raw AIC: 2NL best in 7 of 29; calibrated (alpha = 0.05, B = 99): 2NL best in 1 of 29"``."""
        t = self.table
        top_raw = t["raw_wins"].idxmax()
        top_cal = t["calibrated_wins"].idxmax()
        n = self.n_groups
        return (f"raw AIC: {top_raw} best in {int(t.loc[top_raw, 'raw_wins'])} of {n}; calibrated "
                f"(alpha = {self.alpha:g}, B = {self.B}): {top_cal} best in {int(t.loc[top_cal, 'calibrated_wins'])} "
                f"of {n}")

    def summary(self) -> str:
        """The win counts by both rules and the headline."""
        head = (f"Model selection calibrated by parametric bootstrap: {self.n_groups} animals, null "
                f"{self.simpler} against {', '.join(self.richer)}; alpha = {self.alpha:g}, B = {self.B}")
        return f"{head}\n\n{self.table.to_string()}\n\n{self.headline()}\n"

    def to_frame(self) -> pd.DataFrame:
        """The per-animal table (a copy)."""
        return self.per_group.copy()

    def confusion(self, truth: Mapping) -> tuple[pd.DataFrame, pd.DataFrame]:
        """Model-recovery confusion matrices (generating x selected) for raw AIC and the calibrated rule.

        Parameters
        ----------
        truth : mapping
            Animal -> generating architecture (for synthetic animals).

        Returns
        -------
        tuple of pandas.DataFrame
            ``(raw, calibrated)``: counts, rows the generating architecture, columns the selected one.
        """
        if not isinstance(truth, Mapping):
            raise TypeError(f"truth must be a mapping animal -> architecture; got {type(truth).__name__}")
        missing = [g for g in self.per_group.index if g not in truth]
        if missing:
            raise ValueError(f"truth lacks animal(s) {missing[:5]}")
        archs = (self.simpler, *self.richer)
        out = []
        for col, label in (("raw_best", "AIC-selected"), ("calibrated_best", "calibrated-selected")):
            m = pd.DataFrame(0, index=pd.Index(archs, name="generating"), columns=pd.Index(archs, name=label))
            for g, sel in self.per_group[col].items():
                m.loc[check_arch(truth[g]), sel] += 1
            out.append(m)
        return out[0], out[1]

    def _plot(self, ax=None, **kwargs):
        import matplotlib.pyplot as plt

        if ax is None:
            fig, ax = plt.subplots(figsize=(max(4.0, 0.35 * self.n_groups + 2), 3.5))
        else:
            fig = ax.figure
        x = np.arange(self.n_groups)
        finite = np.where(np.isfinite(self.boot), self.boot, np.nan)
        ax.boxplot([r[np.isfinite(r)] for r in finite], positions=x, widths=0.6, showfliers=False)
        pg = self.per_group
        sel = pg["calibrated_best"].to_numpy() != self.simpler
        ax.scatter(x[sel], pg["statistic"].to_numpy()[sel], color="#cc3311", zorder=3, label="richer model chosen")
        ax.scatter(x[~sel], pg["statistic"].to_numpy()[~sel], color="#4477aa", zorder=3,
                   label=f"{self.simpler} kept")
        ax.axhline(0, color="grey", lw=0.8, ls="--")
        ax.set_xticks(x, [str(g) for g in pg.index], rotation=90, fontsize=7)
        ax.set_ylabel(f"AIC({self.simpler}) - min AIC(richer)")
        ax.set_title("observed (dots) against the parametric bootstrap (boxes)", fontsize=9)
        ax.legend(fontsize=7)
        fig.tight_layout()
        return ax


def calibrate_selection(fits, *, simpler: str = "1L", B: int = 99, alpha: float = 0.05, restarts: int = 8,
                        max_iter: int = 500, gtol: float = 1e-5, refit_from_truth: bool = False, seed=None,
                        n_jobs: int = 1, progress=None) -> CalibratedSelection:
    """Per animal, decide between a simpler architecture and richer ones with the AIC difference
    calibrated by a parametric bootstrap under the fitted simpler model.

    For each animal: T = AIC(simpler) - min over the richer architectures of their AIC (raw AIC picks a
    richer model when T > 0). ``B`` animals are simulated from the simpler model fitted to this
    animal (its fitted initial weights, eta and beta, on the animal's own stimuli, sessions and
    rewarded sides), every architecture is refitted to each with the same settings, and T_b is
    recomputed. The richer model (the one with the smallest AIC) is chosen when the p-value
    (1 + #{T_b >= T}) / (B + 1) is at most ``alpha``; otherwise the simpler one. On animals whose
    choices come from the simpler model the false selection rate is then about ``alpha`` (exactly so
    at the true parameters; the plug-in is the parametric bootstrap's approximation), where raw AIC's
    rate is whatever the richer models' flexibility buys.

    Parameters
    ----------
    fits : statcore.GroupComparison or mapping
        The result of :func:`fit_many` (its ``fits``), or a mapping animal -> {arch: LearningRuleFit};
        every animal must have the ``simpler`` architecture and at least one other. Built-in rules
        only (the simulation is compiled).
    simpler : {"1L", "2L", "2NL"}
        The null architecture; every other architecture in ``fits`` is an alternative.
    B : int
        Bootstrap animals per animal (99 or more for a decision at 0.05; each costs one fit per
        architecture).
    alpha : float
        The level of each animal's test.
    restarts, max_iter, gtol : int, int, float
        The refits' settings: pass those the original fits used (the bootstrap calibrates the
        procedure as run). Each architecture is refitted with the hidden width, rule and baseline of
        its original fit.
    refit_from_truth : bool
        False (the default): every refit starts from random points, as the original fits did, so the
        bootstrap calibrates the procedure as run, local optima included. True: the refit of the
        simpler model also starts (its first restart) at the parameters that generated the simulated
        animal, so that refit is never below the truth's log-likelihood and T_b is the statistic of
        (nearly) maximum-likelihood fits. Choose True when the original simpler fit was checked
        at its optimum (more restarts, a longer run): a simpler refit stuck below the truth inflates
        T_b and makes the test conservative. On rat W053 (``benchmarks/bench_learning_rules_rat.py``)
        the four largest of 61 bootstrap statistics (249-402) came from 1L refits stuck 126-206
        log-likelihood units below the optimum (the rat's own 1L fit is at its optimum: 12 restarts
        and 4x the iterations gained nothing); refitted from the truth they were -9.6 to 1.9.
    seed : None, int or numpy.random.Generator
        One seed; every (animal, replicate) gets its own stream spawned from it, so the answer does not
        depend on ``n_jobs``.
    n_jobs : int
        Parallel replicates through joblib (-1: all cores; ``statcore.utils.parallel_map``).
    progress : bool or None
        A progress bar over the bootstrap replicates (None: only on a terminal).

    Returns
    -------
    CalibratedSelection
        Per animal the raw and calibrated choices, the statistic, threshold and p-value; the win
        counts of both rules (``table``, ``headline()``); ``confusion(truth)`` for synthetic animals.

    References
    ----------
    Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap, ch. 6 and 16. Chapman &
    Hall. McLachlan, G. J. (1987). On bootstrapping the likelihood ratio test statistic for the number
    of components in a normal mixture. Applied Statistics 36:318. Liebana et al. (2025). Dopamine
    encodes deep network teaching signals for individual learning trajectories. Cell 188:3789.

    Examples
    --------
    >>> import numpy as np
    >>> from learncore.learning_rules import simulate, fit_many
    >>> one = {"W": np.zeros((2, 3)), "eta": 0.05, "beta": 8.0}
    >>> mice = {f"m{k}": simulate("1L", one, 150, seed=k) for k in range(2)}
    >>> cmp = fit_many(mice, archs=("1L", "2NL"), hidden=1, restarts=1, max_iter=30, B=0, seed=0)
    >>> res = calibrate_selection(cmp, B=4, alpha=0.2, restarts=1, max_iter=30, seed=1)
    >>> res.per_group.columns.tolist()[:3]
    ['aic_1l', 'aic_2nl', 'raw_best']
    """
    groups = getattr(fits, "fits", fits)
    if not isinstance(groups, Mapping) or not groups:
        raise TypeError("fits must be fit_many()'s result or a non-empty mapping animal -> {arch: LearningRuleFit}"
                        if not isinstance(groups, Mapping) else "fits is empty")
    simpler = check_arch(simpler)
    B = check_positive_int(B, "B")
    alpha = check_probability(alpha, "alpha", open_left=True, open_right=True)
    kw = dict(restarts=check_positive_int(restarts, "restarts"), max_iter=check_positive_int(max_iter, "max_iter"), gtol=check_positive_real(gtol, "gtol"))
    n_jobs = check_n_jobs(n_jobs)
    progress = check_progress(progress)
    archs = None
    for g, fs in groups.items():
        if not isinstance(fs, Mapping):
            raise TypeError(f"fits[{g!r}] must be a mapping arch -> LearningRuleFit")
        for a, f in fs.items():
            if not isinstance(f, LearningRuleFit):
                raise TypeError(f"fits[{g!r}][{a!r}] must be a LearningRuleFit; got {type(f).__name__}")
            if f.arch != a:
                raise ValueError(f"fits[{g!r}][{a!r}] is a fit of arch {f.arch!r}")
            if f.rule not in RULES:
                raise ValueError(f"fits[{g!r}][{a!r}] has the plug-in rule {f.rule!r}; calibrate_selection "
                                 f"simulates with the compiled built-in rules only")
        keys = tuple(a for a in ("1L", "2L", "2NL") if a in fs)
        if archs is None:
            archs = keys
        elif keys != archs:
            raise ValueError(f"fits[{g!r}] holds {keys}, another animal {archs}; every animal needs the same "
                             f"architectures")
        if len({f.rule for f in fs.values()}) > 1:
            raise ValueError(f"fits[{g!r}] mixes learning rules")
    if simpler not in archs:
        raise ValueError(f"simpler={simpler!r} is not among the fitted architectures {archs}")
    richer = tuple(a for a in archs if a != simpler)
    if not richer:
        raise ValueError("fits hold one architecture; calibration needs the simpler one and at least one other")
    names = list(groups)
    root = check_seed(seed)
    ss = spawn_seeds(root, len(names))
    if not isinstance(refit_from_truth, (bool, np.bool_)):
        raise TypeError(f"refit_from_truth must be True or False; got {refit_from_truth!r}")
    jobs = [(groups[g][simpler], {a: groups[g][a].hidden for a in archs}, simpler, richer, kw, s,
             bool(refit_from_truth)) for g, seq in zip(names, ss) for s in spawn_seeds(seq, B)]
    stats = parallel_map(_replicate, jobs, n_jobs=n_jobs, progress=progress, desc="bootstrap refits",
                         unit="replicate")
    boot = np.array(stats, dtype=np.float64).reshape(len(names), B)
    rows = []
    for i, g in enumerate(names):
        fs = groups[g]
        T, best_rich = _stat(fs, simpler, richer)
        aics = {a: fs[a].aic for a in archs}
        p = perm_pvalue(T, boot[i], alternative="greater")
        thr = float(np.quantile(boot[i], 1 - alpha, method="inverted_cdf"))
        row = {f"aic_{a.lower()}": aics[a] for a in archs}
        row.update(raw_best=min(archs, key=lambda a: aics[a]), statistic=T, threshold=thr, p_value=p,
                   calibrated_best=best_rich if p <= alpha else simpler, n_failed=int(np.sum(~np.isfinite(boot[i]))))
        rows.append(row)
    per_group = pd.DataFrame(rows, index=pd.Index(names, name="animal"))
    table = pd.DataFrame({"raw_wins": [int((per_group["raw_best"] == a).sum()) for a in archs],
                          "calibrated_wins": [int((per_group["calibrated_best"] == a).sum()) for a in archs]},
                         index=pd.Index(archs, name="model"))
    return CalibratedSelection(per_group=per_group, table=table, boot=boot, simpler=simpler, richer=richer,
                               alpha=alpha, B=B, fits=groups)
