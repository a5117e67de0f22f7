"""Comparison of two ROC curves, as pROC's ``roc.test``: DeLong's test (paired and unpaired), the
bootstrap test of the AUC difference, and Venkatraman & Begg's permutation test of equal curves."""
from __future__ import annotations

import dataclasses
import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr, ndtri, stdtr

from .._checks import (check_choice, check_flag, check_positive_int, check_probability, check_seed)
from .._checks.roc import check_roc_object
from .._r.rformat import R_DIGITS, format_number
from .._result import HTest
from ._bootstrap import boot_areas
from ._curve import ROCCurve, ROCWarning, _fmt4
from ._delong import delong_cov, placements

__all__ = ["ROCTest", "roc_test"]

_ALTERNATIVES = ("two.sided", "less", "greater")


@dataclass(frozen=True, eq=False, repr=False)
class ROCTest(HTest):
    """The result of :func:`statcore.roc_test`: an ``HTest`` that prints as pROC's ``roc.test``
    (whose bootstrap and permutation parameters R prints one by one, not in a common width).

    Examples
    --------
    >>> import statcore
    >>> y = [0, 0, 0, 0, 1, 1, 1, 1]
    >>> r1 = statcore.roc(y, [1, 2, 3, 5, 4, 6, 7, 8])
    >>> r2 = statcore.roc(y, [2, 1, 5, 4, 3, 8, 6, 7])
    >>> res = statcore.roc_test(r1, r2)
    >>> round(res.statistic, 4), round(res.p_value, 4)
    (0.7071, 0.4795)
    """

    def __repr__(self) -> str:
        return "ROCTest" + HTest.__repr__(self)[len("HTest"):]

    def summary(self, digits: int = R_DIGITS) -> str:
        if len(self.parameter) <= 1:
            return HTest.summary(self, digits)
        # R formats a list of parameters element by element: "boot.n = 2000, boot.stratified = 1"
        bare = HTest.summary(dataclasses.replace(self, parameter={}), digits)
        d2 = max(1, digits - 2)
        params = ", ".join(f"{k} = {format_number(v, d2)}" for k, v in self.parameter.items())
        head = f"{self.statistic_name} = {format_number(self.statistic, d2)}"
        return bare.replace(head + ", ", head + ", " + params + ", ", 1)


def _p_from_z(z: float, alternative: str) -> float:
    if alternative == "two.sided":
        return float(2 * ndtr(-abs(z)))
    if alternative == "less":
        return float(ndtr(z))
    return float(ndtr(-z))


def _same_observations(r1: ROCCurve, r2: ROCCurve) -> bool:
    return (np.asarray(r1.is_case).shape == np.asarray(r2.is_case).shape
            and bool(np.array_equal(r1.is_case, r2.is_case)))


def roc_test(roc1, roc2, *, paired=True, method="delong", alternative="two.sided", conf_level=0.95, B=2000,
             seed=None, stratified=True):
    """Compare two ROC curves, as pROC's ``roc.test``.

    Parameters
    ----------
    roc1, roc2 : ROCCurve
        Curves from :func:`statcore.roc`. Paired curves are built on the same observations (the same
        labels in the same order, two scores).
    paired : bool
        Whether the curves share their observations (correlated AUCs). pROC detects it from the
        responses; statcore takes it as said and refuses ``paired=True`` for curves on different
        labels.
    method : {"delong", "bootstrap", "venkatraman"}
        "delong": DeLong's test of equal AUCs (paired: ``Z = (A1 - A2) / sd``, with the DeLong
        covariance; unpaired: ``D = (A1 - A2) / sqrt(V1 + V2)`` against Student's t with
        Welch-Satterthwaite degrees of freedom, as pROC). Full AUCs only.
        "bootstrap": ``D = (A1 - A2) / s``, s the standard deviation of ``B`` bootstrap differences
        (paired: the same observations drawn for both curves; unpaired: each curve resampled on
        its own, s^2 the sum of the two bootstrap variances), referred to the normal distribution;
        full or partial AUCs, as the curves specify them.
        "venkatraman": Venkatraman & Begg's (1996) permutation test that the two curves are equal at
        every operating point (paired curves only), with ``B`` permutations.
    alternative : {"two.sided", "less", "greater"}
        "less": the AUC of ``roc1`` is smaller than that of ``roc2``. Venkatraman's test is two-sided.
    conf_level : float
        Coverage of the interval of the AUC difference (paired DeLong only, as pROC).
    B : int
        Bootstrap replicates or permutations (pROC's ``boot.n``).
    seed : None, int or numpy.random.Generator
        Randomness of the bootstrap or the permutations.
    stratified : bool
        Bootstrap cases and controls separately (pROC's ``boot.stratified``).

    Returns
    -------
    ROCTest
        An ``HTest``: ``statistic`` (Z, D or E), ``p_value``, ``estimate`` (``"AUC of roc1"``,
        ``"AUC of roc2"``), ``conf_int`` (paired DeLong), ``parameter`` (df, or ``boot.n`` and
        ``boot.stratified``), printing as pROC prints ``roc.test``.

    Notes
    -----
    pROC switches to the bootstrap for partial AUCs and for curves of different direction; statcore
    refuses DeLong for partial AUCs (as pROC refuses an explicit ``method="delong"``) and, for curves
    of different direction, runs the test asked for with a ``ROCWarning``, as pROC does when the
    method is given. DeLong's covariance is computed in O(n log n) (Sun & Xu 2014).

    References
    ----------
    DeLong, E. R., DeLong, D. M. & Clarke-Pearson, D. L. (1988). Comparing the areas under two or
    more correlated receiver operating characteristic curves: a nonparametric approach. Biometrics
    44, 837-845.

    Sun, X. & Xu, W. (2014). Fast implementation of DeLong's algorithm for comparing the areas under
    correlated receiver operating characteristic curves. IEEE Signal Processing Letters 21, 1389-1393.

    Venkatraman, E. S. & Begg, C. B. (1996). A distribution-free procedure for comparing receiver
    operating characteristic curves from a paired experiment. Biometrika 83, 835-848.

    Robin, X. et al. (2011). pROC. BMC Bioinformatics 12, 77 (function ``roc.test``).

    Examples
    --------
    >>> import numpy as np
    >>> import statcore
    >>> rng = np.random.default_rng(1)
    >>> y = np.repeat([0, 1], 60)
    >>> roc1 = statcore.roc(y, rng.normal(size=120) + 1.2 * y)
    >>> roc2 = statcore.roc(y, rng.normal(size=120) + 0.4 * y)
    >>> print(statcore.roc_test(roc1, roc2))  # doctest: +NORMALIZE_WHITESPACE
    DeLong's test for two correlated ROC curves
    data:  roc1 and roc2
    Z = 3.9602, p-value = 7.487e-05
    alternative hypothesis: true difference in AUC is not equal to 0
    95 percent confidence interval:
     0.1236069 0.3658375
    sample estimates:
    AUC of roc1 AUC of roc2
      0.8427778   0.5980556
    """
    check_roc_object(roc1, "roc1", ROCCurve)
    check_roc_object(roc2, "roc2", ROCCurve)
    paired = check_flag(paired, "paired")
    method = check_choice(method, "method", ("delong", "bootstrap", "venkatraman"))
    alternative = check_choice(alternative, "alternative", _ALTERNATIVES)
    conf_level = check_probability(conf_level, "conf_level", open_left=True, open_right=True)
    if paired and not _same_observations(roc1, roc2):
        raise ValueError("paired=True needs two curves on the same observations (the same labels in the same "
                         f"order): roc1 has {roc1.n_controls} controls and {roc1.n_cases} cases, roc2 "
                         f"{roc2.n_controls} and {roc2.n_cases}, or their labels differ; pass paired=False")
    if roc1.direction != roc2.direction and method != "bootstrap":
        name = "DeLong" if method == "delong" else "Venkatraman"
        warnings.warn(f"{name}'s test should not be applied to ROC curves with different directions "
                      f"(roc1 '{roc1.direction}', roc2 '{roc2.direction}'); the test is run as asked, as pROC "
                      "runs it", ROCWarning, stacklevel=2)
    if roc1.auc == 1 and roc2.auc == 1:
        warnings.warn("both ROC curves have an AUC of 1: their variances and covariance are 0 and the "
                      "p-value is 1, which is misleading (pROC warns likewise)", ROCWarning, stacklevel=2)
    estimate = {"AUC of roc1": roc1.auc, "AUC of roc2": roc2.auc}
    null = {"difference in AUC": 0.0}
    if method == "delong":
        for name, r in (("roc1", roc1), ("roc2", roc2)):
            if r.partial_auc is not None:
                raise ValueError(f"method='delong' compares full AUCs only (as in pROC); {name} has a partial "
                                 "AUC: use method='bootstrap'")
            if r.n_cases < 2 or r.n_controls < 2:
                raise ValueError(f"method='delong' needs at least 2 cases and 2 controls in {name}")
        return _delong(roc1, roc2, paired, alternative, conf_level, estimate, null)
    B = check_positive_int(B, "B", minimum=2)
    stratified = check_flag(stratified, "stratified")
    rng = check_seed(seed)
    if method == "bootstrap":
        return _bootstrap(roc1, roc2, paired, alternative, B, stratified, rng, estimate, null)
    if not paired:
        raise ValueError("method='venkatraman' is implemented for paired curves only (Venkatraman & Begg "
                         "1996); use paired=True on curves built on the same observations, or "
                         "method='delong' / 'bootstrap' for unpaired curves")
    if alternative != "two.sided":
        raise ValueError("method='venkatraman' tests equality of the whole curves and is two-sided only; "
                         "pass alternative='two.sided'")
    return _venkatraman_paired(roc1, roc2, B, rng)


def _delong(roc1, roc2, paired, alternative, conf_level, estimate, null):
    d = roc1.auc - roc2.auc
    if paired:
        S = delong_cov(roc1, roc2)
        var = S[0, 0] + S[1, 1] - 2 * S[0, 1]
        sig = math.sqrt(max(var, 0.0))
        z = 0.0 if (d == 0 and sig == 0) else (d / sig if sig > 0 else math.copysign(math.inf, d))
        q = ndtri(1 - (1 - conf_level) / 2)
        return ROCTest(statistic=z, statistic_name="Z", p_value=_p_from_z(z, alternative),
                       method="DeLong's test for two correlated ROC curves", data_name="roc1 and roc2",
                       estimate=estimate, null_value=null, alternative=alternative,
                       conf_int=(d - q * sig, d + q * sig), conf_level=conf_level,
                       extras={"std_error": sig, "covariance": S})
    v1 = float(delong_cov(roc1)[0, 0])
    v2 = float(delong_cov(roc2)[0, 0])
    sd = math.sqrt(v1 + v2)
    stat = 0.0 if (d == 0 and sd == 0) else (d / sd if sd > 0 else math.copysign(math.inf, d))
    n1 = roc1.n_cases + roc1.n_controls
    n2 = roc2.n_cases + roc2.n_controls
    df = (v1 + v2) ** 2 / (v1 ** 2 / (n1 - 1) + v2 ** 2 / (n2 - 1)) if (v1 + v2) > 0 else float("nan")
    if alternative == "two.sided":
        p = 2 * stdtr(df, -abs(stat))
    elif alternative == "less":
        p = stdtr(df, stat)
    else:
        p = stdtr(df, -stat)
    return ROCTest(statistic=stat, statistic_name="D", parameter={"df": df}, p_value=float(p),
                   method="DeLong's test for two ROC curves", data_name="roc1 and roc2", estimate=estimate,
                   null_value=null, alternative=alternative, extras={"variances": (v1, v2)})


def _bootstrap(roc1, roc2, paired, alternative, B, stratified, rng, estimate, null):
    d = roc1.auc - roc2.auc
    if paired:
        reps = boot_areas([roc1, roc2], rng, B, stratified=stratified)
        diff = reps[:, 0] - reps[:, 1]
        ok = np.isfinite(diff)
        s = float(np.std(diff[ok], ddof=1))
    else:
        reps = np.column_stack([boot_areas([roc1], rng, B, stratified=stratified)[:, 0],
                                boot_areas([roc2], rng, B, stratified=stratified)[:, 0]])
        ok = np.isfinite(reps).all(axis=1)
        s = math.sqrt(float(np.var(reps[np.isfinite(reps[:, 0]), 0], ddof=1)
                            + np.var(reps[np.isfinite(reps[:, 1]), 1], ddof=1)))
    if not ok.all():
        warnings.warn(f"{int((~ok).sum())} bootstrap replicates without a case or a control were left out "
                      "(use stratified=True)", ROCWarning, stacklevel=3)
    stat = 0.0 if (d == 0 and s == 0) else (d / s if s > 0 else math.copysign(math.inf, d))
    kind = "correlated" if paired else ""
    return ROCTest(statistic=stat, statistic_name="D",
                   parameter={"boot.n": float(B), "boot.stratified": float(stratified)},
                   p_value=_p_from_z(stat, alternative),
                   method=f"Bootstrap test for two {kind + ' ' if kind else ''}ROC curves",
                   data_name="roc1 and roc2", estimate=estimate, null_value=null, alternative=alternative,
                   extras={"replicates": reps, "std_error": s})


def _ranks_first(x: np.ndarray) -> np.ndarray:
    """1-based ranks, ties broken by order of appearance (R's ``rank(ties.method="first")``)."""
    r = np.empty(x.size, dtype=np.int64)
    r[np.argsort(x, kind="stable")] = np.arange(1, x.size + 1)
    return r


def _venkatraman_E(r1: np.ndarray, r2: np.ndarray, case: np.ndarray) -> float:
    """Venkatraman & Begg's E = sum over rank cut-offs k of |errors of test 1 - errors of test 2|,
    an error a case ranked at or below k or a control ranked above k."""
    n = r1.size
    sign = np.where(case, 1, -1)
    # the change at cut-off k of sum_i sign_i [R1_i <= k] - [R2_i <= k]
    step = np.bincount(r1 - 1, weights=sign, minlength=n) - np.bincount(r2 - 1, weights=sign, minlength=n)
    e = np.cumsum(step)[:-1]
    return float(np.abs(e).sum())


def _scores(r: ROCCurve) -> np.ndarray:
    """The scores of all observations in input order."""
    case = np.asarray(r.is_case)
    s = np.empty(case.size)
    s[case] = r.cases
    s[~case] = r.controls
    return s


def _venkatraman_paired(roc1, roc2, B, rng):
    # the ranks of the scores as given, whatever the curves' direction (pROC's test ignores it too)
    case = np.asarray(roc1.is_case)
    r1 = _ranks_first(_scores(roc1))
    r2 = _ranks_first(_scores(roc2))
    E = _venkatraman_E(r1, r2, case)
    count = 0
    for _ in range(B):
        swap = rng.random(case.size) < 0.5
        a = np.where(swap, r2, r1)
        b = np.where(swap, r1, r2)
        # ranks of the exchanged ratings, ties broken at random as in the paper
        u = rng.random(case.size)
        a = _ranks_first(a + u * 0.5)
        b = _ranks_first(b + rng.random(case.size) * 0.5)
        count += _venkatraman_E(a, b, case) >= E
    p = count / B
    return ROCTest(statistic=E, statistic_name="E", parameter={"boot.n": float(B)}, p_value=float(p),
                   method="Venkatraman's test for two paired ROC curves", data_name="roc1 and roc2",
                   null_value={"difference in at least one ROC operating point": 0.0},
                   alternative="two.sided", extras={})
