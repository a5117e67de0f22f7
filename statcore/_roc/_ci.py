"""Confidence intervals of an AUC: DeLong's (pROC's ``ci.auc(method="delong")``) and the stratified
percentile bootstrap (pROC's ``ci.auc(method="bootstrap")``)."""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.special import ndtri

from .._checks import (check_choice, check_flag, check_n_jobs, check_positive_int, check_probability, check_progress,
                       check_seed)
from .._checks.roc import check_roc_object
from .._result import Result
from ._bootstrap import boot_areas
from ._curve import ROCCurve, ROCWarning, _fmt4, _spec_text
from ._delong import delong_var

__all__ = ["AUCInterval", "auc_ci"]


@dataclass(frozen=True, repr=False)
class AUCInterval(Result):
    """A confidence interval of an AUC (pROC's ``ci.auc``).

    Attributes
    ----------
    estimate : float
        The AUC of the curve (as the curve specifies it: full or partial).
    conf_int : tuple
        ``(lower, upper)``, clipped to [0, 1] for DeLong's normal interval (as pROC).
    conf_level : float
    method : str
        "delong" or "bootstrap".
    std_error : float
        DeLong's standard error, or the standard deviation of the bootstrap replicates.
    B : int
        Bootstrap replicates (0 for DeLong).
    replicates : numpy.ndarray or None
        The bootstrap AUCs.

    Examples
    --------
    >>> import statcore
    >>> r = statcore.roc([0, 0, 0, 1, 1, 1, 0, 1], [1, 2, 4, 3, 5, 6, 2.5, 2])
    >>> ci = statcore.auc_ci(r)
    >>> round(ci.estimate, 4), [round(float(v), 4) for v in ci.conf_int]
    (0.7812, [0.4241, 1.0])
    """

    estimate: float
    conf_int: tuple
    conf_level: float
    method: str
    std_error: float
    B: int = 0
    stratified: bool = True
    spec: str = "Area under the curve"
    replicates: Any = field(default=None, repr=False)

    def _repr_parts(self):
        return [("estimate", self.estimate), ("conf_int", tuple(self.conf_int)), ("method", self.method)]

    def summary(self) -> str:
        lo, hi = self.conf_int
        how = ("DeLong" if self.method == "delong" else
               f"{self.B} {'stratified' if self.stratified else 'non-stratified'} bootstrap replicates")
        return (f"\n{self.spec}: {_fmt4(self.estimate)}\n"
                f"{100 * self.conf_level:g}% CI: {_fmt4(lo)}-{_fmt4(hi)} ({how})\n")

    def _html_title(self) -> str:
        return f"AUC {_fmt4(self.estimate)} with a {100 * self.conf_level:g}% interval ({self.method})"

    def to_frame(self):
        """One row: ``estimate``, ``std_error``, ``conf_low``, ``conf_high``, ``conf_level``, ``method``."""
        import pandas as pd

        return pd.DataFrame([{"estimate": self.estimate, "std_error": self.std_error,
                              "conf_low": self.conf_int[0], "conf_high": self.conf_int[1],
                              "conf_level": self.conf_level, "method": self.method}])

    def _plot(self, ax=None, **kwargs):
        """The bootstrap distribution with the interval (bootstrap), or the normal approximation
        (DeLong)."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(5, 3.5))
        if self.replicates is not None:
            ax.hist(self.replicates, bins=kwargs.pop("bins", 30), color="0.7", **kwargs)
            ax.set_ylabel("bootstrap replicates")
        else:
            se = self.std_error if self.std_error > 0 else 1e-3
            grid = np.linspace(max(0, self.estimate - 4 * se), min(1, self.estimate + 4 * se), 200)
            dens = np.exp(-0.5 * ((grid - self.estimate) / se) ** 2) / (se * np.sqrt(2 * np.pi))
            ax.plot(grid, dens, color="0.4", **kwargs)
            ax.set_ylabel("density (normal approximation)")
        ax.axvline(self.estimate, color="C3", label="AUC")
        ax.axvspan(*self.conf_int, color="C0", alpha=0.15, label=f"{100 * self.conf_level:g}% interval")
        ax.set_xlabel("AUC")
        ax.legend(frameon=False)
        return ax


def _delong_se(r: ROCCurve, what: str) -> float:
    if r.partial_auc is not None:
        raise ValueError(f"{what}: DeLong's variance is defined for the full AUC only (as in pROC); "
                         "use method='bootstrap' for a partial AUC")
    if r.n_cases < 2 or r.n_controls < 2:
        raise ValueError(f"{what}: DeLong's variance needs at least 2 cases and 2 controls, got "
                         f"{r.n_cases} cases and {r.n_controls} controls")
    return math.sqrt(max(delong_var(r), 0.0))


def auc_ci(roc, *, method="delong", conf_level=0.95, B=2000, seed=None, stratified=True, n_jobs=1,
           progress=None):
    """A DeLong or bootstrap confidence interval of the AUC of a ROC curve, as pROC's ``ci.auc``.

    Parameters
    ----------
    roc : ROCCurve
        A curve from :func:`statcore.roc` (its ``auc`` specification, full or partial, is used).
    method : {"delong", "bootstrap"}
        "delong": ``auc +/- z * se`` with DeLong's standard error (full AUC only), clipped to [0, 1]
        as pROC clips it. "bootstrap": the percentile interval of ``B`` bootstrap AUCs (R's default
        quantile, type 7), the direction kept fixed.
    conf_level : float
        Coverage of the interval.
    B : int
        Bootstrap replicates (pROC's ``boot.n``), used by "bootstrap".
    seed : None, int or numpy.random.Generator
        Randomness of the bootstrap.
    stratified : bool
        Resample cases and controls separately, keeping their numbers (pROC's ``boot.stratified``,
        default True); otherwise resample all observations, dropping replicates without a case or a
        control.
    n_jobs : int
        Workers for the bootstrap (joblib's convention); the interval does not depend on it.
    progress : bool or None
        A progress bar over the bootstrap replicates (None: only on a terminal).

    Returns
    -------
    AUCInterval
        ``estimate`` (the curve's AUC), ``conf_int``, ``std_error``, ``method``, and the bootstrap
        ``replicates``.

    Notes
    -----
    DeLong's variance is computed from the placements of Sun & Xu (2014) in O(n log n), ties
    counted one half as pROC counts them. An AUC of 1 (or 0) has DeLong variance 0 and the interval
    collapses to a point: a ``ROCWarning`` says so, as pROC warns. pROC's bootstrap interval reports
    the median of the replicates as its centre; ``estimate`` here is always the curve's AUC.

    References
    ----------
    DeLong, E. R., DeLong, D. M. & Clarke-Pearson, D. L. (1988). Comparing the areas under two or
    more correlated receiver operating characteristic curves: a nonparametric approach. Biometrics
    44, 837-845.

    Sun, X. & Xu, W. (2014). Fast implementation of DeLong's algorithm for comparing the areas under
    correlated receiver operating characteristic curves. IEEE Signal Processing Letters 21, 1389-1393.

    Robin, X. et al. (2011). pROC. BMC Bioinformatics 12, 77 (function ``ci.auc``).

    Examples
    --------
    >>> import numpy as np
    >>> import statcore
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 50)
    >>> r = statcore.roc(y, rng.normal(size=100) + y)
    >>> print(statcore.auc_ci(r))
    <BLANKLINE>
    Area under the curve: 0.7408
    95% CI: 0.645-0.8366 (DeLong)
    <BLANKLINE>
    >>> print(statcore.auc_ci(r, method="bootstrap", B=500, seed=1))
    <BLANKLINE>
    Area under the curve: 0.7408
    95% CI: 0.6347-0.8384 (500 stratified bootstrap replicates)
    <BLANKLINE>
    """
    check_roc_object(roc, "roc", ROCCurve)
    method = check_choice(method, "method", ("delong", "bootstrap"))
    conf_level = check_probability(conf_level, "conf_level", open_left=True, open_right=True)
    stratified = check_flag(stratified, "stratified")
    spec = _spec_text(roc.partial_auc, roc.partial_auc_focus, roc.partial_auc_correct)
    alpha = 1 - conf_level
    if method == "delong":
        se = _delong_se(roc, "auc_ci")
        if se == 0:
            warnings.warn(f"auc_ci: the AUC is {roc.auc:g}, so DeLong's variance is 0 and the interval is "
                          "a point; it understates the uncertainty (pROC warns likewise)", ROCWarning,
                          stacklevel=2)
        z = ndtri(1 - alpha / 2)
        lo, hi = roc.auc - z * se, roc.auc + z * se
        return AUCInterval(estimate=roc.auc, conf_int=(max(0.0, lo), min(1.0, hi)), conf_level=conf_level,
                           method="delong", std_error=se, spec=spec)
    B = check_positive_int(B, "B", minimum=2)
    rng = check_seed(seed)
    n_jobs, progress = check_n_jobs(n_jobs), check_progress(progress)
    reps = boot_areas([roc], rng, B, stratified=stratified, n_jobs=n_jobs, progress=progress)[:, 0]
    ok = reps[np.isfinite(reps)]
    if ok.size < reps.size:
        warnings.warn(f"auc_ci: {reps.size - ok.size} of {B} bootstrap replicates had no case or no control "
                      "and were left out (use stratified=True)", ROCWarning, stacklevel=2)
    lo, hi = np.quantile(ok, [alpha / 2, 1 - alpha / 2])
    return AUCInterval(estimate=roc.auc, conf_int=(float(lo), float(hi)), conf_level=conf_level,
                       method="bootstrap", std_error=float(np.std(ok, ddof=1)), B=B, stratified=stratified,
                       spec=spec, replicates=reps)
