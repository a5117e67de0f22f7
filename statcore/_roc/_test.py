"""Comparison of two ROC curves, as pROC's ``roc.test``: DeLong's test (paired and unpaired), the
bootstrap test of the AUC difference, and Venkatraman's permutation tests of equal curves (paired:
Venkatraman & Begg 1996; unpaired: Venkatraman 2000)."""
from __future__ import annotations

import dataclasses
import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr, ndtri, stdtr

from .._checks import (check_choice, check_flag, check_n_jobs, check_positive_int, check_probability, check_progress,
                       check_seed)
from .._checks.roc import check_roc_object
from .._r.rformat import R_DIGITS, format_number
from .._result import HTest
from ._bootstrap import boot_areas
from ._curve import ROCCurve, ROCWarning, _r_label
from ._delong import delong_cov, delong_var

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


def _estimate_label(r: ROCCurve) -> str:
    """pROC's name of a curve's area: "AUC", "pAUC (1-0.8 specificity)", "Corrected pAUC (...)"."""
    if r.partial_auc is None:
        return "AUC"
    hi, lo = max(r.partial_auc), min(r.partial_auc)
    label = f"pAUC ({hi:.15g}-{lo:.15g} {r.partial_auc_focus})"
    return "Corrected " + label if r.partial_auc_correct else label


def _p_from_z(z: float, alternative: str) -> float:
    if alternative == "two.sided":
        return float(2 * ndtr(-abs(z)))
    if alternative == "less":
        return float(ndtr(z))
    return float(ndtr(-z))


def _same_observations(r1: ROCCurve, r2: ROCCurve) -> bool:
    """The same labels in the same order, and the same rows kept by nan_policy="omit"."""
    if r1.kept is not None or r2.kept is not None:
        k1 = np.ones(np.asarray(r2.kept).size, bool) if r1.kept is None else np.asarray(r1.kept)
        k2 = np.ones(np.asarray(r1.kept).size, bool) if r2.kept is None else np.asarray(r2.kept)
        if k1.shape != k2.shape or not np.array_equal(k1, k2):
            return False
    return (np.asarray(r1.is_case).shape == np.asarray(r2.is_case).shape
            and bool(np.array_equal(r1.is_case, r2.is_case)))


def _data_name(roc1: ROCCurve, roc2: ROCCurve) -> str:
    """pROC's data line as far as Python can tell the names: the scores' names (of the Series given to
    :func:`statcore.roc`) when both curves carry one and they differ, followed, when the curves share
    their response, by pROC's "by y (control, case)" of ``roc.test(y, x1, x2)``; otherwise "roc1 and
    roc2", what pROC prints for ``roc.test(roc1, roc2)``."""
    n1, n2 = roc1.data_name, roc2.data_name
    if "score" in (n1, n2) or n1 == n2:          # "score": a curve built from an unnamed array
        return "roc1 and roc2"
    name = f"{n1} and {n2}"
    if roc1.response_name == roc2.response_name and roc1.levels == roc2.levels and _same_observations(roc1, roc2):
        name += f" by {roc1.response_name} ({_r_label(roc1.levels[0])}, {_r_label(roc1.levels[1])})"
    return name


def roc_test(roc1, roc2, *, paired=True, method="delong", alternative="two.sided", conf_level=0.95, B=2000,
             seed=None, stratified=True, n_jobs=1, progress=None):
    """Compare two ROC curves by DeLong's, the bootstrap or Venkatraman's test, as pROC's ``roc.test``.

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
        "venkatraman": a permutation test, with ``B`` permutations, that the two curves are equal at
        every operating point: for paired curves Venkatraman & Begg's (1996) E, the sum over rank
        cut-offs of the absolute difference of the two tests' error counts; for unpaired curves
        Venkatraman's (2000) E, the area between the two curves of error rate against the mixture
        distribution of cases and controls (see Notes), its permutations exchanging the (jittered)
        ranks of the controls of the two samples among themselves, and those of the cases.
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
    n_jobs : int
        Workers for the bootstrap replicates or Venkatraman's permutations (joblib's convention); the
        result does not depend on it.
    progress : bool or None
        A progress bar over the bootstrap replicates or the permutations (None: only on a terminal).

    Returns
    -------
    ROCTest
        An ``HTest``: ``statistic`` (Z, D or E), ``p_value``, ``estimate`` (``"AUC of roc1"``,
        ``"AUC of roc2"``), ``conf_int`` (paired DeLong), ``parameter`` (df, or ``boot.n`` and
        ``boot.stratified``), printing as pROC prints ``roc.test``. Its ``data_name`` names the
        scores when the curves were built from named pandas Series (``"glu and entropy by wrong (0,
        1)"``, pROC's line for ``roc.test(wrong, glu, entropy)``), else ``"roc1 and roc2"``.

    Notes
    -----
    pROC switches to the bootstrap for partial AUCs and for curves of different direction; statcore
    refuses DeLong for partial AUCs (as pROC refuses an explicit ``method="delong"``) and, for curves
    of different direction, runs the test asked for with a ``ROCWarning``, as pROC does when the
    method is given. DeLong's covariance is computed in O(n log n) (Sun & Xu 2014).

    Venkatraman's unpaired E, as pROC computes it: each curve's scores are ranked (ties by order of
    appearance, whatever the curve's direction); at each rank cut-off k, with F and G the empirical
    distributions of the ranks of its cases and its controls, the curve has the point
    p = mp F(k) + (1 - mp) G(k), e = mp F(k) + (1 - mp) (1 - G(k)); both curves are interpolated
    linearly at the pooled p's and ``|e1 - e2|`` is integrated by the trapezoidal rule where both are
    defined. The mixing proportion ``mp`` is pROC's, (cases of roc1 + cases of roc2) / (2 x size of
    roc1): the pooled proportion of cases when the two samples have the same size, but not otherwise
    (it can reach or exceed 1 when roc2 is much larger than roc1; at exactly 1 every curve is e = p
    and E = 0); statcore keeps it so that E equals pROC's (it is in ``extras["mixing_proportion"]``). The permutations break tied ranks at random by adding
    U(-1/2, 1/2), as the paper and pROC do; the p-value is the fraction of permuted E's at least E.

    References
    ----------
    DeLong, E. R., DeLong, D. M. & Clarke-Pearson, D. L. (1988). Comparing the areas under two or
    more correlated receiver operating characteristic curves: a nonparametric approach. Biometrics
    44, 837-845.

    Sun, X. & Xu, W. (2014). Fast implementation of DeLong's algorithm for comparing the areas under
    correlated receiver operating characteristic curves. IEEE Signal Processing Letters 21, 1389-1393.

    Venkatraman, E. S. & Begg, C. B. (1996). A distribution-free procedure for comparing receiver
    operating characteristic curves from a paired experiment. Biometrika 83, 835-848.

    Venkatraman, E. S. (2000). A permutation test to compare receiver operating characteristic
    curves. Biometrics 56, 1134-1138.

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
    if method == "delong":  # refusals first, warnings after
        for name, r in (("roc1", roc1), ("roc2", roc2)):
            if r.partial_auc is not None:
                raise ValueError(f"method='delong' compares full AUCs only (as in pROC); {name} has a partial "
                                 "AUC: use method='bootstrap'")
            if r.n_cases < 2 or r.n_controls < 2:
                raise ValueError(f"method='delong' needs at least 2 cases and 2 controls in {name}")
    if method == "venkatraman":
        for name, r in (("roc1", roc1), ("roc2", roc2)):
            if r.partial_auc is not None:
                raise ValueError(f"method='venkatraman' compares whole curves (as in pROC, partial AUCs are not "
                                 f"supported); {name} has a partial AUC: use method='bootstrap'")
    if roc1.direction != roc2.direction and method != "bootstrap":
        name = "DeLong" if method == "delong" else "Venkatraman"
        warnings.warn(f"{name}'s test should not be applied to ROC curves with different directions "
                      f"(roc1 '{roc1.direction}', roc2 '{roc2.direction}'); the test is run as asked, as pROC "
                      "runs it", ROCWarning, stacklevel=2)
    if roc1.auc == 1 and roc2.auc == 1:
        warnings.warn("both ROC curves have an AUC of 1: their variances and covariance are 0 and the "
                      "p-value is 1, which is misleading (pROC warns likewise)", ROCWarning, stacklevel=2)
    spec1 = (roc1.partial_auc, roc1.partial_auc_focus, roc1.partial_auc_correct)
    spec2 = (roc2.partial_auc, roc2.partial_auc_focus, roc2.partial_auc_correct)
    if (spec1[0] is None) != (spec2[0] is None) or (spec1[0] is not None and spec1 != spec2):
        warnings.warn("Different AUC specifications in the ROC curves (full or partial, focus, correction); "
                      "the comparison is run as asked, as pROC runs it, but may mislead", ROCWarning, stacklevel=2)
    estimate = {f"{_estimate_label(roc1)} of roc1": roc1.auc, f"{_estimate_label(roc2)} of roc2": roc2.auc}
    null = {"difference in AUC": 0.0}
    if method == "delong":
        res = _delong(roc1, roc2, paired, alternative, conf_level, estimate, null)
        return dataclasses.replace(res, data_name=_data_name(roc1, roc2))
    B = check_positive_int(B, "B", minimum=2)
    stratified = check_flag(stratified, "stratified")
    rng = check_seed(seed)
    n_jobs, progress = check_n_jobs(n_jobs), check_progress(progress)
    if method == "bootstrap":
        res = _bootstrap(roc1, roc2, paired, alternative, B, stratified, rng, estimate, null, n_jobs, progress)
    elif alternative != "two.sided":
        raise ValueError("method='venkatraman' tests equality of the whole curves and is two-sided only; "
                         "pass alternative='two.sided'")
    elif not paired:
        res = _venkatraman_unpaired(roc1, roc2, B, rng, n_jobs, progress)
    else:
        res = _venkatraman_paired(roc1, roc2, B, rng, n_jobs, progress)
    return dataclasses.replace(res, data_name=_data_name(roc1, roc2))


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
    v1 = delong_var(roc1)
    v2 = delong_var(roc2)
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


def _bootstrap(roc1, roc2, paired, alternative, B, stratified, rng, estimate, null, n_jobs=1, progress=None):
    d = roc1.auc - roc2.auc
    if paired:
        reps = boot_areas([roc1, roc2], rng, B, stratified=stratified, n_jobs=n_jobs, progress=progress)
        diff = reps[:, 0] - reps[:, 1]
        ok = np.isfinite(diff)
        s = float(np.std(diff[ok], ddof=1))
    else:
        reps = np.column_stack([boot_areas([roc1], rng, B, stratified=stratified, n_jobs=n_jobs,
                                           progress=progress)[:, 0],
                                boot_areas([roc2], rng, B, stratified=stratified, n_jobs=n_jobs,
                                           progress=progress)[:, 0]])
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


class _PairedVenkDraw:
    """The randomness of ``size`` paired permutations, drawn in the order of the original loop: per
    permutation n uniforms for the exchanges, then n jitters of each test's ranks: (size, 3 n)."""

    def __init__(self, n: int):
        self.n = n

    def __call__(self, rng: np.random.Generator, size: int) -> np.ndarray:
        return rng.random((size, 3 * self.n))


class _PairedVenkE:
    """E of each paired permutation: each observation's two ratings exchanged with probability 1/2,
    then re-ranked with ties broken at random (as in the paper)."""

    def __init__(self, r1: np.ndarray, r2: np.ndarray, case: np.ndarray):
        self.r1, self.r2, self.case = r1, r2, case

    def __call__(self, u: np.ndarray) -> np.ndarray:
        n = self.case.size
        out = np.empty(u.shape[0])
        for i, row in enumerate(u):
            swap = row[:n] < 0.5
            a = _ranks_first(np.where(swap, self.r2, self.r1) + row[n:2 * n] * 0.5)
            b = _ranks_first(np.where(swap, self.r1, self.r2) + row[2 * n:] * 0.5)
            out[i] = _venkatraman_E(a, b, self.case)
        return out


def _venkatraman_pvalue(null: list, E: float) -> float:
    """pROC's p-value of Venkatraman's tests, #{E_b >= E} / B (no +1, as pROC), with the engine's tie
    tolerance (``statcore._resampling.exceed_count``)."""
    from .._resampling import exceed_count

    null = np.concatenate(null) if null else np.empty(0)
    return exceed_count(E, null, alternative="greater") / null.size


def _venkatraman_paired(roc1, roc2, B, rng, n_jobs=1, progress=None):
    from .._resampling import run_stream

    # the ranks of the scores as given, whatever the curves' direction (pROC's test ignores it too)
    case = np.asarray(roc1.is_case)
    r1 = _ranks_first(_scores(roc1))
    r2 = _ranks_first(_scores(roc2))
    E = _venkatraman_E(r1, r2, case)
    null = run_stream(_PairedVenkDraw(case.size), _PairedVenkE(r1, r2, case), B, rng=rng,
                      bytes_per_resample=8.0 * 3 * case.size, n_jobs=n_jobs, progress=progress,
                      desc="permutations", unit="permutation")
    p = _venkatraman_pvalue(null, E)
    return ROCTest(statistic=E, statistic_name="E", parameter={"boot.n": float(B)}, p_value=float(p),
                   method="Venkatraman's test for two paired ROC curves", data_name="roc1 and roc2",
                   null_value={"difference in at least one ROC operating point": 0.0},
                   alternative="two.sided", extras={})


def _regularize(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The knots of a linear interpolation through (x, y), as R's ``approxfun``: sorted by x, the y of
    equal x averaged (``ties = mean``) as R's ``mean`` does it (an extended-precision sum, divided,
    then corrected by the mean residual), so that equal values average to themselves."""
    if np.all(np.diff(x) > 0):
        return x, y
    o = np.argsort(x, kind="stable")
    x, y = x[o], y[o]
    ux, start = np.unique(x, return_index=True)
    if ux.size == x.size:
        return x, y
    count = np.diff(np.append(start, x.size))
    yl = y.astype(np.longdouble)
    m = np.add.reduceat(yl, start) / count
    m = m + np.add.reduceat(yl - np.repeat(m, count), start) / count
    return ux, m.astype(float)


def _interp(v: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Linear interpolation of the knots (x, y) at v, NaN outside [x[0], x[-1]] (R's ``approx`` with
    ``rule = 1``), computed as y_i + (y_j - y_i) * ((v - x_i) / (x_j - x_i))."""
    j = np.clip(np.searchsorted(x, v, side="left"), 1, max(x.size - 1, 1))
    i = j - 1
    out = np.full(v.shape, np.nan)
    if x.size == 1:
        out[v == x[0]] = y[0]
        return out
    inside = (v >= x[0]) & (v <= x[-1])
    xi, xj, yi, yj, vv = x[i], x[j], y[i], y[j], v
    with np.errstate(invalid="ignore", divide="ignore"):
        val = yi + (yj - yi) * ((vv - xi) / (xj - xi))
    val = np.where(vv == xj, yj, np.where(vv == xi, yi, val))
    out[inside] = val[inside]
    return out


def _error_curve(case_by_rank: np.ndarray, mp: float) -> tuple[np.ndarray, np.ndarray]:
    """Venkatraman's (2000) curve of one test: at each rank cut-off k = 1..n, the mixture distribution
    p(k) = mp F(k) + (1 - mp) G(k) and the error rate e(k) = mp F(k) + (1 - mp) (1 - G(k)), F and G
    the empirical distributions of the ranks of the cases and of the controls."""
    n_cases = int(case_by_rank.sum())
    n_controls = case_by_rank.size - n_cases
    F = np.cumsum(case_by_rank) / n_cases
    G = np.cumsum(~case_by_rank) / n_controls
    return mp * F + (1 - mp) * G, mp * F + (1 - mp) * (1 - G)


def _venkatraman_unpaired_E(case_by_rank1: np.ndarray, case_by_rank2: np.ndarray, mp: float) -> float:
    """E = the area between the two error curves over the mixture distribution: both curves linearly
    interpolated at the pooled sorted p's, ``|e1 - e2|`` integrated by the trapezoidal rule over the range
    where both curves are defined."""
    x1, e1 = _regularize(*_error_curve(case_by_rank1, mp))
    x2, e2 = _regularize(*_error_curve(case_by_rank2, mp))
    x = np.sort(np.concatenate([x1, x2]))
    y = np.abs(_interp(x, x1, e1) - _interp(x, x2, e2))
    terms = (y[1:] + y[:-1]) * (x[1:] - x[:-1]) / 2
    return float(np.sum(terms[np.isfinite(terms)], dtype=np.longdouble))


class _UnpairedVenkDraw:
    """The randomness of ``size`` unpaired permutations, drawn in the order of the original loop: per
    permutation the n1 jitters of sample 1, the n2 of sample 2, then a random order of the pooled
    controls and one of the pooled cases (``rng.permutation``). A row holds the n1 + n2 jitters, then
    the two orders as (exact) floats."""

    def __init__(self, n1: int, n2: int, n_controls: int, n_cases: int):
        self.n1, self.n2, self.n_controls, self.n_cases = n1, n2, n_controls, n_cases

    def __call__(self, rng: np.random.Generator, size: int) -> np.ndarray:
        n = self.n1 + self.n2
        out = np.empty((size, 2 * n))
        for i in range(size):
            out[i, :self.n1] = rng.random(self.n1)
            out[i, self.n1:n] = rng.random(self.n2)
            # rng.permutation(x) applies to x the swaps it applies to arange(len(x))
            out[i, n:n + self.n_controls] = rng.permutation(self.n_controls)
            out[i, n + self.n_controls:] = rng.permutation(self.n_cases)
        return out


class _UnpairedVenkE:
    """E of each unpaired permutation: the ranks jittered by U(-1/2, 1/2) (ties broken at random),
    then the controls of both samples exchanged at random among themselves, and the cases likewise."""

    def __init__(self, r1, r2, case1, case2, mp):
        self.r1, self.r2, self.case1, self.case2, self.mp = r1, r2, case1, case2, mp
        self.n1_controls = int((~case1).sum())
        self.n1_cases = int(case1.sum())
        self.n_controls = self.n1_controls + int((~case2).sum())

    def __call__(self, u: np.ndarray) -> np.ndarray:
        r1, r2, case1, case2 = self.r1, self.r2, self.case1, self.case2
        n1, n = r1.size, r1.size + r2.size
        out = np.empty(u.shape[0])
        for i, row in enumerate(u):
            a = r1 + row[:n1] - 0.5
            b = r2 + row[n1:n] - 0.5
            order_controls = row[n:n + self.n_controls].astype(np.int64)
            order_cases = row[n + self.n_controls:].astype(np.int64)
            controls = np.concatenate([a[~case1], b[~case2]])[order_controls]
            cases = np.concatenate([a[case1], b[case2]])[order_cases]
            a[~case1], b[~case2] = controls[:self.n1_controls], controls[self.n1_controls:]
            a[case1], b[case2] = cases[:self.n1_cases], cases[self.n1_cases:]
            out[i] = _venkatraman_unpaired_E(case1[np.argsort(a, kind="stable")],
                                             case2[np.argsort(b, kind="stable")], self.mp)
        return out


def _venkatraman_unpaired(roc1, roc2, B, rng, n_jobs=1, progress=None):
    from .._resampling import run_stream

    case1 = np.asarray(roc1.is_case, dtype=bool)
    case2 = np.asarray(roc2.is_case, dtype=bool)
    for name, r in (("roc1", roc1), ("roc2", roc2)):
        if r.n_cases < 1 or r.n_controls < 1:
            raise ValueError(f"method='venkatraman' needs at least one case and one control in {name}")
    # pROC's mixing proportion: all cases over twice the size of the first sample (the pooled
    # proportion (m1 + m2) / (n1 + n2) when the samples have the same size)
    mp = (roc1.n_cases + roc2.n_cases) / (2 * case1.size)
    # the ranks of the scores as given (ties by order), whatever the curves' direction, as pROC
    r1 = _ranks_first(_scores(roc1)).astype(float)
    r2 = _ranks_first(_scores(roc2)).astype(float)
    E = _venkatraman_unpaired_E(case1[np.argsort(r1)], case2[np.argsort(r2)], mp)
    draw = _UnpairedVenkDraw(case1.size, case2.size, int((~case1).sum() + (~case2).sum()),
                             int(case1.sum() + case2.sum()))
    null = run_stream(draw, _UnpairedVenkE(r1, r2, case1, case2, mp), B, rng=rng,
                      bytes_per_resample=8.0 * 2 * (case1.size + case2.size), n_jobs=n_jobs, progress=progress,
                      desc="permutations", unit="permutation")
    p = _venkatraman_pvalue(null, E)
    return ROCTest(statistic=E, statistic_name="E", parameter={"boot.n": float(B)}, p_value=float(p),
                   method="Venkatraman's test for two unpaired ROC curves", data_name="roc1 and roc2",
                   null_value={"difference in at least one ROC operating point": 0.0},
                   alternative="two.sided", extras={"mixing_proportion": mp})
