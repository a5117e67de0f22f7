"""Per-group model comparison (one fit per group and model, e.g. per animal): wins, summed criteria
and a bootstrap over groups (:func:`compare_by_group`, :class:`GroupComparison`)."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from .._progress import parallel_map
from .._checks import (check_group_fits, check_n_jobs, check_positive_int, check_probability, check_progress,
                       check_seed)
from .._r.rformat import format_number, format_table
from .._result import Result
from ._criteria import _CRITERIA, _check_criterion, _criterion_values, _nobs_differ
from ._likelihood import LogLik, _loglik_of

__all__ = ["compare_by_group", "GroupComparison"]


def _group_logliks(group: Any, models: Mapping[str, Any], names: Sequence[str]) -> list[LogLik]:
    lls = [_loglik_of(models[n], "fits[{!r}][{!r}]", group, n) for n in names]
    for n, ll in zip(names, lls):
        if not math.isfinite(ll.value):
            raise ValueError(f"fits: group {group!r}: the log-likelihood of {n} is not finite ({ll.value})")
    if _nobs_differ(lls):
        raise ValueError(f"fits: group {group!r}: models were not all fitted to the same number of observations "
                         f"({', '.join(f'{n}: {ll.nobs}' for n, ll in zip(names, lls))})")
    return lls


class _GroupDraw:
    """``size`` resamples of the G groups, (size, G) group indices, in order from ``rng``."""

    def __init__(self, G: int):
        self.G = G

    def __call__(self, rng: np.random.Generator, size: int) -> np.ndarray:
        return rng.integers(0, self.G, size=(size, self.G))


class _WinCounts:
    """Win counts of each model in each resample of the groups: (size, n_models)."""

    def __init__(self, best: np.ndarray, n_models: int):
        self.best, self.n_models = best, n_models

    def __call__(self, idx: np.ndarray) -> np.ndarray:
        b = idx.shape[0]
        keys = self.best[idx] + self.n_models * np.arange(b)[:, None]
        return np.bincount(keys.ravel(), minlength=b * self.n_models).reshape(b, self.n_models)


def _bootstrap_wins(best: np.ndarray, n_models: int, B: int, rng: np.random.Generator,
                    progress: bool | None = False, n_jobs: int = 1) -> np.ndarray:
    """Win counts of each model in ``B`` resamples of the groups (rows: replicates): the resamples are
    drawn in order from ``rng`` in the resampling engine's chunks (``statcore._resampling.run_stream``)
    and counted on ``n_jobs`` workers; the answer does not depend on ``n_jobs``."""
    from .._resampling import run_stream

    parts = run_stream(_GroupDraw(best.size), _WinCounts(best, n_models), B, rng=rng,
                       bytes_per_resample=8.0 * best.size, n_jobs=n_jobs, progress=progress, desc="bootstrap",
                       unit="replicate")
    return np.concatenate(parts, axis=0).astype(np.int64, copy=False)


@dataclass(frozen=True, eq=False, repr=False)
class GroupComparison(Result):
    """Per-group model comparison (one fit per group and model, e.g. per animal) and its totals.

    Attributes
    ----------
    per_group : pandas.DataFrame
        One row per group: the best model (``best``), the criterion of every model (``AIC.<model>``)
        and its delta to the group's best (``delta.<model>``).
    table : pandas.DataFrame
        One row per model, most wins first: ``wins``, ``share`` of groups, bootstrap interval of the
        wins (``wins_lower``, ``wins_upper``), bootstrap probability of having the most wins
        (``p_most_wins``), summed criterion (``sum_aic``), summed delta to each group's best
        (``sum_delta_aic``) and the difference of the summed criterion to the smallest sum
        (``diff_sum_aic``); ``bic``/``aicc`` in place of ``aic`` for those criteria.
    boot_wins : numpy.ndarray or None
        Win counts in each bootstrap replicate (``B`` x models), columns in ``models`` order.
    models : tuple of str
        The model names.
    criterion : str
        "AIC", "BIC" or "AICc".
    B : int
        Bootstrap replicates (0: none).
    conf_level : float
        Level of the bootstrap intervals of the wins.
    fits : mapping or None
        The mapping group -> (model name -> fit) that was compared (read-only, the fits themselves
        held by reference, not copied), so ``res.fits[group][model]`` reaches a fitted model.

    Examples
    --------
    >>> from statcore import LogLik, compare_by_group
    >>> fits = {g: {"1L": LogLik(-500.0, 5, 1000), "2NL": LogLik(-490.0 - 4 * i, 11, 1000)}
    ...         for i, g in enumerate(["m1", "m2", "m3"])}
    >>> res = compare_by_group(fits, B=0)
    >>> res
    GroupComparison(criterion='AIC', n_groups=3, best='1L', wins=2, B=0)
    >>> res.to_frame()[["wins", "share"]].round(3)  # doctest: +NORMALIZE_WHITESPACE
           wins  share
    model
    1L        2  0.667
    2NL       1  0.333
    >>> res.fits["m1"]["2NL"]
    LogLik(value=-490.0, df=11, nobs=1000)
    """

    per_group: Any
    table: Any
    boot_wins: np.ndarray | None
    models: tuple[str, ...]
    criterion: str
    B: int
    conf_level: float
    fits: Any = field(default=None, repr=False)

    @property
    def n_groups(self) -> int:
        """The number of groups."""
        return len(self.per_group)

    @property
    def wins(self) -> dict[str, int]:
        """Groups won by each model (``models`` order)."""
        return {m: int(self.table.loc[m, "wins"]) for m in self.models}

    def _repr_parts(self):
        top = self.table.index[0]
        return [("criterion", self.criterion), ("n_groups", self.n_groups), ("best", top),
                ("wins", int(self.table.loc[top, "wins"])), ("B", self.B)]

    def _col(self, what: str) -> str:
        return what.format(c=_CRITERIA[self.criterion])

    def to_frame(self):
        """The per-model table (a copy of ``table``), snake_case columns."""
        return self.table.copy()

    def headline(self) -> str:
        """``"2NL best in 84 of 88 groups (95% bootstrap interval 79 to 87, B = 1000)"``."""
        top = self.table.index[0]
        row = self.table.loc[top]
        text = f"{top} best in {int(row['wins'])} of {self.n_groups} groups"
        if self.B > 0:
            text += (f" ({format_number(100 * self.conf_level)}% bootstrap interval "
                     f"{int(row['wins_lower'])} to {int(row['wins_upper'])}, B = {self.B})")
        return text

    def summary(self) -> str:
        """The per-model table with R-style headers (``sum.AIC``, ``sum.deltaAIC``) and the headline."""
        c = self.criterion
        t = self.table
        cols: dict[str, list] = {"wins": [int(v) for v in t["wins"]], "share": list(t["share"])}
        if self.B > 0:
            cols["lower"] = [int(v) for v in t["wins_lower"]]
            cols["upper"] = [int(v) for v in t["wins_upper"]]
            cols["P(most)"] = list(t["p_most_wins"])
        cols[f"sum.{c}"] = list(t[self._col("sum_{c}")])
        cols[f"sum.delta{c}"] = list(t[self._col("sum_delta_{c}")])
        head = f"Per-group comparison by {c}: {self.n_groups} groups, {len(self.models)} models"
        body = format_table(list(t.index), cols)
        note = ""
        if self.B > 0:
            note = (f"\nlower, upper: {format_number(100 * self.conf_level)}% bootstrap interval of the wins "
                    f"(groups resampled, B = {self.B})")
        return f"{head}\n\n{body}\n{note}\n{self.headline()}\n"

    def _plot(self, ax=None, **kwargs):
        import matplotlib.pyplot as plt

        if ax is None:
            fig, ax = plt.subplots(figsize=(1.2 * len(self.models) + 2, 3.5))
        else:
            fig = ax.figure
        t = self.table
        x = np.arange(len(t))
        ax.bar(x, t["wins"], color=kwargs.pop("color", "#4477aa"), **kwargs)
        if self.B > 0:
            ax.errorbar(x, t["wins"], yerr=[t["wins"] - t["wins_lower"], t["wins_upper"] - t["wins"]],
                        fmt="none", ecolor="black", capsize=4,
                        label=f"{self.conf_level:.0%} bootstrap interval (B = {self.B})")
            ax.legend(fontsize="small")
        ax.set_xticks(x, list(t.index))
        ax.set_ylabel(f"groups where best by {self.criterion}")
        ax.set_ylim(0, self.n_groups)
        import textwrap

        ax.set_title("\n".join(textwrap.wrap(self.headline(), 48)), fontsize=9)
        fig.tight_layout()
        return ax


def compare_by_group(fits: Mapping[Any, Mapping[str, Any]], *, criterion: str = "AIC", B: int = 1000,
                     conf_level: float = 0.95, seed: Any = None, n_jobs: int = 1,
                     progress: bool | None = None) -> GroupComparison:
    """Compare the same set of models within each group (animal, subject, site) and count wins.

    It takes fitted models, not data vectors, so it has no ``nan_policy``; a log-likelihood that is
    not finite is refused, naming its group and model.

    Parameters
    ----------
    fits : mapping
        group -> (mapping model name -> fit). Every group must hold the same model names; anything
        :func:`statcore.loglik` accepts as fits. The result keeps it as ``fits``.
    criterion : {"AIC", "BIC", "AICc"}
        The information criterion.
    B : int
        Bootstrap replicates over groups for the uncertainty of the win counts (0 skips it).
    conf_level : float
        Level of the percentile intervals of the win counts.
    seed : None, int or numpy.random.Generator
        Randomness of the bootstrap.
    n_jobs : int
        Computes the groups' log-likelihoods, and then the bootstrap replicates, in parallel through
        joblib (worth it when ``loglik`` is costly, e.g. when it evaluates a model on data); the
        answer does not depend on it.
    progress : bool, optional
        A progress bar (tqdm) over the groups' log-likelihoods and then the B bootstrap
        replicates. Default (None): only when standard error is a terminal.

    Returns
    -------
    GroupComparison
        Per group the best model (ties go to the first model named) and the deltas; overall the wins
        of each model ("2NL best in 84 of 88 groups"), summed criteria and deltas, and the bootstrap
        interval of the wins.

    References
    ----------
    Burnham, K. P. and Anderson, D. R. (2002). Model Selection and Multimodel Inference, 2nd ed.,
    Springer. Efron, B. and Tibshirani, R. J. (1993). An Introduction to the Bootstrap, Chapman &
    Hall (percentile intervals).

    Examples
    --------
    >>> from statcore import LogLik
    >>> fits = {f"mouse{g}": {"1L": LogLik(-500.0 - g, 5, 1000), "2NL": LogLik(-490.0 - 2 * g, 11, 1000)}
    ...         for g in range(6)}
    >>> res = compare_by_group(fits, B=200, seed=1)
    >>> res.wins
    {'1L': 2, '2NL': 4}
    >>> res.headline()
    '2NL best in 4 of 6 groups (95% bootstrap interval 2 to 6, B = 200)'
    """
    crit = _check_criterion(criterion)
    groups, names, keyed = check_group_fits(fits, "fits")
    B = check_positive_int(B, "B", minimum=0)
    level = check_probability(conf_level, "conf_level", open_right=True)
    rng = check_seed(seed)
    n_jobs = check_n_jobs(n_jobs)
    progress = check_progress(progress)
    lls = parallel_map(_group_logliks, [(g, m, names) for g, m in zip(groups, keyed)], n_jobs=n_jobs,
                       progress=progress, desc="log-likelihoods", unit="group")
    M = len(names)
    C = np.empty((len(groups), M))
    for i, row in enumerate(lls):
        C[i] = _criterion_values(row, crit)
    best = np.argmin(C, axis=1)
    delta = C - C[np.arange(len(groups)), best][:, None]
    wins = np.bincount(best, minlength=M)
    totals = C.sum(axis=0)

    import pandas as pd

    per_group = pd.DataFrame({"best": [names[b] for b in best]}, index=pd.Index(groups, name="group"))
    for j, n in enumerate(names):
        per_group[f"{crit}.{n}"] = C[:, j]
    for j, n in enumerate(names):
        per_group[f"delta.{n}"] = delta[:, j]

    c = _CRITERIA[crit]
    table = pd.DataFrame({"wins": wins, "share": wins / len(groups)}, index=pd.Index(names, name="model"))
    boot = None
    if B > 0:
        boot = _bootstrap_wins(best, M, B, rng, progress, n_jobs)
        a = (1 - level) / 2
        table["wins_lower"] = np.quantile(boot, a, axis=0, method="inverted_cdf")
        table["wins_upper"] = np.quantile(boot, 1 - a, axis=0, method="inverted_cdf")
        is_max = boot == boot.max(axis=1, keepdims=True)
        table["p_most_wins"] = (is_max / is_max.sum(axis=1, keepdims=True)).mean(axis=0)
    table[f"sum_{c}"] = totals
    table[f"sum_delta_{c}"] = delta.sum(axis=0)
    table[f"diff_sum_{c}"] = totals - totals.min()
    order = np.lexsort((totals, -wins))  # most wins first, then smaller summed criterion
    table = table.iloc[order]
    return GroupComparison(per_group=per_group, table=table, boot_wins=boot, models=tuple(names),
                           criterion=crit, B=B, conf_level=level, fits=fits)
