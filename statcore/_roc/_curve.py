"""The empirical ROC curve (pROC's ``roc``), its full and partial area (pROC's ``auc``), and the
counts per distinct score that DeLong's placements and the bootstrap are computed from.

Everything is computed from one sort of the oriented scores (``s = score`` for direction "<",
``s = -score`` for ">", so that higher ``s`` means "case"): the distinct values of ``s`` and, per
distinct value, the number of cases and controls. The curve, the area (Mann-Whitney with ties
counted one half), the DeLong placements (Sun & Xu 2014) and the bootstrap replicates are sums over
those counts, so the work is one O(n log n) sort plus O(n) passes.
"""
from __future__ import annotations

import sys
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._checks import check_flag
from .._checks.roc import as_roc_data, check_direction, check_partial_auc, check_roc_object
from .._checks.public import public_function
from .._result import Result
from .._warnings import StatcoreWarning

__all__ = ["ROCCurve", "ROCWarning", "roc", "auc"]


class ROCWarning(StatcoreWarning):
    """A ROC computation whose answer can mislead: an AUC of 1 (zero DeLong variance), a McClish
    correction of a partial area below the diagonal, curves of different direction compared."""


# ----------------------------------------------------------------------------------------------
# counts per distinct score
# ----------------------------------------------------------------------------------------------

#: from this many observations on, the passes after the sort run as numba kernels
#: (statcore._roc._kernels); below, numpy is as quick and no compilation is paid
KERNEL_MIN_N = 20_000


def _use_kernel(n: int, kernel: bool | None) -> bool:
    return n >= KERNEL_MIN_N if kernel is None else bool(kernel)


def _groups(s: np.ndarray, is_case: np.ndarray, *, kernel: bool | None = None):
    """Distinct values of ``s`` (ascending), the group of each observation, and per group the number
    of cases ``c`` and of controls ``d`` (int64). The one O(n log n) step: numpy's argsort (a numba
    radix sort was slower at n = 10^6: benchmarks/README.md)."""
    order = np.argsort(s)
    if _use_kernel(s.size, kernel):
        from ._kernels import sorted_groups

        return sorted_groups(order, np.ascontiguousarray(s, dtype=np.float64), np.ascontiguousarray(is_case))
    ss = s[order]
    new = np.empty(ss.size, dtype=bool)
    new[0] = True
    np.not_equal(ss[1:], ss[:-1], out=new[1:])
    gid_sorted = np.cumsum(new, dtype=np.int64) - 1
    n_groups = int(gid_sorted[-1]) + 1
    gid = np.empty(s.size, dtype=np.int64)
    gid[order] = gid_sorted
    size = np.bincount(gid_sorted, minlength=n_groups)
    c = np.bincount(gid_sorted, weights=is_case[order], minlength=n_groups).astype(np.int64)
    return ss[new], gid, c, size - c


def _auc_from_counts(c: np.ndarray, d: np.ndarray) -> float:
    """P(s_case > s_control) + P(=)/2 from the per-group counts (one dimension or rows of a matrix)."""
    c = np.asarray(c, dtype=np.float64)
    d = np.asarray(d, dtype=np.float64)
    below = np.cumsum(d, axis=-1) - d  # controls strictly below each group
    m = c.sum(axis=-1)
    n = d.sum(axis=-1)
    return (c * (below + 0.5 * d)).sum(axis=-1) / (m * n)


def _curve_from_counts(c: np.ndarray, d: np.ndarray):
    """Sensitivities and specificities at the G + 1 thresholds (-inf, midpoints, +inf) of the oriented
    scores: a case is called at s >= t. Works on rows of a matrix too."""
    c = np.asarray(c, dtype=np.float64)
    d = np.asarray(d, dtype=np.float64)
    m = c.sum(axis=-1, keepdims=True)
    n = d.sum(axis=-1, keepdims=True)
    zero = np.zeros(c.shape[:-1] + (1,))
    cc = np.concatenate([zero, np.cumsum(c, axis=-1)], axis=-1)
    cd = np.concatenate([zero, np.cumsum(d, axis=-1)], axis=-1)
    return (m - cc) / m, cd / n


def _segment_area(x: np.ndarray, y: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """Area under the polyline (x ascending, non-decreasing) between x = lo and x = hi, the ends
    found by linear interpolation along the segments (vertical segments have no width); along the
    last axis, so rows of a matrix are curves too (the bootstrap's replicates)."""
    x0, x1, y0, y1 = x[..., :-1], x[..., 1:], y[..., :-1], y[..., 1:]
    width = x1 - x0
    a = np.clip(x0, lo, hi)
    b = np.clip(x1, lo, hi)
    use = (b > a) & (width > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        slope = np.where(use, (y1 - y0) / np.where(use, width, 1.0), 0.0)
        ya = y0 + slope * (a - x0)
        yb = y0 + slope * (b - x0)
        return np.sum(np.where(use, (b - a) * (ya + yb) / 2, 0.0), axis=-1)


def _focus_axes(se: np.ndarray, sp: np.ndarray, other: np.ndarray, focus: str):
    """The interval's axis (ascending) and ``other`` along it: specificity, or sensitivity reversed."""
    if focus == "specificity":  # sp ascends along the arrays
        return sp, other
    return se[..., ::-1], other[..., ::-1]


def _partial_area(se: np.ndarray, sp: np.ndarray, bounds, focus: str) -> np.ndarray:
    """The uncorrected partial area of pROC's ``auc(partial.auc=bounds, partial.auc.focus=focus)``:
    the integral of sensitivity over the specificity interval (or of specificity over the
    sensitivity interval) along the empirical curve (rows of a matrix: one area per row)."""
    lo, hi = min(bounds), max(bounds)
    x, y = _focus_axes(se, sp, sp if focus != "specificity" else se, focus)
    return _segment_area(x, y, lo, hi)


def _mcclish_bounds(bounds) -> tuple[float, float]:
    """The area of the diagonal (non-discriminant) and of the perfect curve over the interval."""
    lo, hi = min(bounds), max(bounds)
    return (hi - lo) - (hi * hi - lo * lo) / 2, hi - lo


def _mcclish(c: np.ndarray, d: np.ndarray, bounds, focus: str) -> tuple[np.ndarray, np.ndarray]:
    """McClish's corrected partial area(s) ``(1 + (pauc - min) / (max - min)) / 2`` and the excess
    ``pauc - min`` over the diagonal, from the per-group counts of one curve or of rows (bootstrap
    replicates): the one implementation of the correction.

    The excess is integrated directly, as the area under ``se + sp - 1 = cd / n - cc / m`` (cumulated
    controls and cases), computed as ``(cd m - cc n) / (m n)`` from integers: exactly 0 at a point on
    the diagonal, so a partial curve lying on the diagonal has excess exactly 0 (corrected area 0.5),
    and a negative excess (below the diagonal) is never an artefact of rounding.
    """
    c = np.asarray(c, dtype=np.float64)
    d = np.asarray(d, dtype=np.float64)
    m = c.sum(axis=-1, keepdims=True)
    n = d.sum(axis=-1, keepdims=True)
    zero = np.zeros(c.shape[:-1] + (1,))
    cc = np.concatenate([zero, np.cumsum(c, axis=-1)], axis=-1)
    cd = np.concatenate([zero, np.cumsum(d, axis=-1)], axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):  # a replicate without a case or a control: NaN
        se, sp = (m - cc) / m, cd / n  # _curve_from_counts
        gap = (cd * m - cc * n) / (m * n)
    x, g = _focus_axes(se, sp, gap, focus)
    excess = _segment_area(x, g, min(bounds), max(bounds))
    lo_area, hi_area = _mcclish_bounds(bounds)
    return (1 + excess / (hi_area - lo_area)) / 2, excess


def _area(se, sp, bounds, focus, correct, counts=None, *, warn: bool = True) -> float:
    """The full area, or the partial area over ``bounds`` (McClish-corrected from the per-group
    ``counts`` (c, d) when ``correct``: NaN with a warning below the diagonal, as pROC)."""
    if bounds is None:
        return float(np.sum((sp[1:] - sp[:-1]) * (se[1:] + se[:-1]) / 2))
    if not correct:
        return float(_partial_area(se, sp, bounds, focus))
    value, excess = _mcclish(counts[0], counts[1], bounds, focus)
    if excess < 0:
        if warn:
            lo_area, _ = _mcclish_bounds(bounds)
            p = float(_partial_area(se, sp, bounds, focus))
            warnings.warn("the McClish correction is not defined for a partial area below the diagonal "
                          f"({p:.4g} < {lo_area:.4g}, the diagonal's area over the interval); "
                          "the corrected partial AUC is NaN, as in pROC", ROCWarning, stacklevel=4)
        return float("nan")
    return float(value)


# ----------------------------------------------------------------------------------------------
# the result
# ----------------------------------------------------------------------------------------------

def _fmt4(x: float) -> str:
    """R's ``format(x, digits = 4)`` of one number (pROC prints its areas so)."""
    from .._r.rformat import format_number

    return format_number(float(x), 4)


def _r_label(v) -> str:
    """A class label as R's ``as.character`` prints it (TRUE/FALSE, 15 significant digits)."""
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v)).upper()
    if isinstance(v, (float, np.floating)):
        return f"{float(v):.15g}"
    return str(v)


def _spec_text(bounds, focus, correct) -> str:
    if bounds is None:
        return "Area under the curve"
    hi, lo = max(bounds), min(bounds)
    return (f"{'Corrected p' if correct else 'P'}artial area under the curve ({focus} "
            f"{_fmt4(hi)}-{_fmt4(lo)})")


@dataclass(frozen=True, repr=False)
class ROCCurve(Result):
    """An empirical ROC curve and its area, as pROC's ``roc`` object.

    Attributes
    ----------
    auc : float
        The area as specified: the full area, or the partial area (McClish-corrected when
        ``partial_auc_correct``) over ``partial_auc``.
    direction : str
        "<" (controls < cases: higher scores call a case) or ">".
    levels : tuple
        ``(control, case)`` labels.
    n_controls, n_cases : int
    thresholds, sensitivities, specificities : numpy.ndarray
        The curve, in pROC's order: sensitivity from 1 down to 0, specificity from 0 up to 1
        (thresholds ascending for "<", descending for ">"; a case is called at ``score >= t`` for
        "<" and at ``score <= t`` for ">").
    controls, cases : numpy.ndarray
        The scores of the controls and of the cases, in input order.
    partial_auc, partial_auc_focus, partial_auc_correct
        The area's specification (``partial_auc`` None: the full area).
    full_auc : float
        The full area under the curve, whatever the specification.
    kept : numpy.ndarray or None
        With ``nan_policy="omit"``, the input rows used (None: all).
    is_case, group, group_cases, group_controls : numpy.ndarray
        Per observation used, whether it is a case and the index of its distinct score; per distinct
        score (ascending in the direction of the curve), the numbers of cases and controls. DeLong's
        placements, the bootstrap and ``roc_test`` are computed from these.

    Examples
    --------
    >>> import statcore
    >>> r = statcore.roc([0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.2, 0.7])
    >>> r.auc
    0.8888888888888888
    >>> r.to_frame().shape
    (7, 3)
    """

    auc: float
    direction: str
    levels: tuple
    n_controls: int
    n_cases: int
    thresholds: np.ndarray = field(repr=False)
    sensitivities: np.ndarray = field(repr=False)
    specificities: np.ndarray = field(repr=False)
    controls: np.ndarray = field(repr=False)
    cases: np.ndarray = field(repr=False)
    partial_auc: tuple | None = None
    partial_auc_focus: str = "specificity"
    partial_auc_correct: bool = False
    full_auc: float = float("nan")
    data_name: str = "score"
    response_name: str = "y"
    kept: np.ndarray | None = field(default=None, repr=False)
    # per-observation group index and per-group counts of the oriented scores (DeLong, bootstrap)
    is_case: np.ndarray = field(default=None, repr=False)
    group: np.ndarray = field(default=None, repr=False)
    group_cases: np.ndarray = field(default=None, repr=False)
    group_controls: np.ndarray = field(default=None, repr=False)

    def _repr_parts(self):
        return [("auc", self.auc), ("direction", self.direction), ("n_controls", self.n_controls),
                ("n_cases", self.n_cases)]

    @property
    def curve(self):
        """The curve as a DataFrame (``threshold``, ``sensitivity``, ``specificity``), as ``to_frame()``."""
        return self.to_frame()

    def summary(self) -> str:
        lv0, lv1 = (_r_label(v) for v in self.levels)
        lines = ["", f"Data: {self.data_name} in {self.n_controls} controls ({self.response_name} {lv0}) "
                     f"{self.direction} {self.n_cases} cases ({self.response_name} {lv1}).",
                 f"{_spec_text(self.partial_auc, self.partial_auc_focus, self.partial_auc_correct)}: "
                 f"{_fmt4(self.auc)}", ""]
        return "\n".join(lines)

    def _html_title(self) -> str:
        return f"ROC curve: AUC {_fmt4(self.auc)}"

    def to_frame(self):
        """One row per point of the curve: ``threshold``, ``sensitivity``, ``specificity``."""
        import pandas as pd

        return pd.DataFrame({"threshold": np.array(self.thresholds), "sensitivity": np.array(self.sensitivities),
                             "specificity": np.array(self.specificities)})

    def _plot(self, ax=None, *, band: bool = True, conf_level: float = 0.95, B: int = 200, seed: Any = 0,
              **kwargs):
        """The curve (specificity decreasing to the right, as pROC draws it), the diagonal and, with
        ``band``, a stratified-bootstrap band of the sensitivity at each specificity (pROC's
        ``ci.se``). Each curve drawn on the same Axes takes the next colour of the cycle (or
        ``color``), its band the same colour; the legend has one entry per curve (its line over its
        band) and the diagonal is drawn once."""
        import matplotlib.pyplot as plt

        from ._bootstrap import sensitivity_band

        if ax is None:
            _, ax = plt.subplots(figsize=(4.5, 4.5))
        default = f"AUC = {self.auc:.3f}" if self.data_name == "score" else f"{self.data_name}: AUC = {self.auc:.3f}"
        (line,) = ax.plot(self.specificities, self.sensitivities, label=kwargs.pop("label", default), **kwargs)
        line.set_gid("statcore-roc-curve")
        if band:
            sp_grid, lo, hi = sensitivity_band(self, conf_level=conf_level, B=B, seed=seed)
            line._statcore_band = ax.fill_between(sp_grid, lo, hi, color=line.get_color(), alpha=0.2, lw=0,
                                                  zorder=line.get_zorder() - 0.5)
            line._statcore_band_text = f"shaded: {100 * conf_level:g}% band (bootstrap, B = {B})"
        if not any(a.get_gid() == "statcore-roc-diagonal" for a in ax.lines):
            ax.plot([1, 0], [0, 1], color="0.6", lw=0.8, ls="--", gid="statcore-roc-diagonal")
        ax.set_xlim(1, 0)
        ax.set_ylim(0, 1)
        ax.set_aspect("equal")
        ax.set_xlabel("Specificity")
        ax.set_ylabel("Sensitivity")
        curves = [a for a in ax.lines if a.get_gid() == "statcore-roc-curve"]
        handles = [(a._statcore_band, a) if hasattr(a, "_statcore_band") else a for a in curves]
        titles = sorted({a._statcore_band_text for a in curves if hasattr(a, "_statcore_band_text")})
        ax.legend(handles, [a.get_label() for a in curves], frameon=False, loc="lower right", fontsize=8,
                  title="\n".join(titles) or None, title_fontsize=8)
        return ax


# ----------------------------------------------------------------------------------------------
# roc() and auc()
# ----------------------------------------------------------------------------------------------

def _auto_direction(score: np.ndarray, is_case: np.ndarray) -> str:
    """pROC's "auto": "<" when the median score of the controls is at most that of the cases."""
    return "<" if np.median(score[~is_case]) <= np.median(score[is_case]) else ">"


def _name_of(x: Any, default: str) -> str:
    name = getattr(x, "name", None)
    return str(name) if isinstance(name, str) and name else default


@public_function(data=("y", "score"), nan_policy=("raise", "omit"))
def roc(y, score, *, direction="auto", levels=None, partial_auc=None, partial_auc_focus="specificity",
        partial_auc_correct=False, nan_policy="raise", quiet=False):
    """The empirical ROC curve of a score against binary labels, with its area, as pROC's ``roc``.

    Parameters
    ----------
    y : array_like
        Class labels, one per observation: two distinct values (0/1, booleans, strings...).
    score : array_like
        The predictor (a score or probability), one finite number per observation. Text, even
        numeric text such as "0.4", is refused (a TypeError), as pROC refuses a character predictor.
    direction : {"auto", "<", ">"}
        "<": controls have lower scores (a case is called at ``score >= t``); ">": controls have
        higher scores. "auto" (pROC's default) takes "<" when the median score of the controls is
        at most the median of the cases, else ">". Set it explicitly when resampling, or the AUC is
        biased upwards (it is then at least 0.5 by construction).
    levels : tuple, optional
        ``(control, case)`` labels. Default: the two distinct labels of ``y`` in sorted order, as R's
        ``levels(as.factor(y))`` (0 before 1, False before True, "a" before "b"), said on stderr as
        pROC says it ("Setting levels: control = right, case = wrong") unless ``quiet``. Unlike
        pROC, labels outside ``levels`` are refused rather than dropped.
    partial_auc : tuple of two floats, optional
        Bounds in [0, 1] of a partial area (pROC's ``partial.auc``); None: the full area.
    partial_auc_focus : {"specificity", "sensitivity"}
        Whether ``partial_auc`` bounds specificity (the area under the curve over that interval of
        specificity) or sensitivity (the area to the right of the curve over that interval of
        sensitivity). pROC's abbreviations "sp", "se" are accepted.
    partial_auc_correct : bool
        McClish's (1989) standardisation ``(1 + (pauc - min) / (max - min)) / 2``, with min the
        area of the diagonal and max that of a perfect test over the interval: 0.5 for a useless
        score, 1 for a perfect one. Undefined below the diagonal (NaN with a ``ROCWarning``, as pROC);
        exactly 0.5 for a partial curve on the diagonal (the excess over the diagonal is computed
        from the integer counts, so rounding never puts it below).
    nan_policy : {"raise", "omit"}
        Missing scores or labels: refuse ("raise"), or drop those observations ("omit", pROC's
        ``na.rm=TRUE``); ``kept`` of the result marks the observations used.
    quiet : bool
        Do not write the levels chosen when ``levels`` is not given (pROC's ``quiet=TRUE``).

    Returns
    -------
    ROCCurve
        The curve (``thresholds``, ``sensitivities``, ``specificities``, ``to_frame()``), ``auc``
        (as specified) and ``full_auc``, ``direction``, ``levels``, the group scores, ``plot()``
        (curve, diagonal and a bootstrap band of sensitivity).

    See Also
    --------
    auc_ci : DeLong or bootstrap interval of the AUC.
    roc_test : DeLong, bootstrap or Venkatraman comparison of two curves.

    Notes
    -----
    Thresholds are pROC's: -inf, the midpoints of consecutive distinct scores, +inf (so they are not
    data values). The full area equals the Mann-Whitney probability ``P(case > control) + P(tie)/2``,
    which is also scikit-learn's ``roc_auc_score`` when direction is "<". The curve and area come from
    one sort, O(n log n).

    References
    ----------
    Robin, X. et al. (2011). pROC: an open-source package for R and S+ to analyze and compare ROC
    curves. BMC Bioinformatics 12, 77 (R package pROC, functions ``roc`` and ``auc``).

    McClish, D. K. (1989). Analyzing a portion of the ROC curve. Medical Decision Making 9, 190-195.

    Examples
    --------
    >>> import numpy as np
    >>> import statcore
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 50)
    >>> score = rng.normal(size=100) + y
    >>> r = statcore.roc(y, score)
    >>> round(r.auc, 4), r.direction
    (0.7408, '<')
    >>> print(r)
    <BLANKLINE>
    Data: score in 50 controls (y 0) < 50 cases (y 1).
    Area under the curve: 0.7408
    <BLANKLINE>
    >>> round(statcore.roc(y, score, partial_auc=(1, 0.8), partial_auc_correct=True).auc, 4)
    0.6433
    """
    s, is_case, lv, kept = as_roc_data(y, score, levels, nan_policy)
    direction = check_direction(direction)
    bounds, focus, correct = check_partial_auc(partial_auc, partial_auc_focus, partial_auc_correct)
    quiet = check_flag(quiet, "quiet")
    if levels is None and not quiet:
        # pROC's message(): on stderr, so that it never mixes with printed results
        print(f"Setting levels: control = {_r_label(lv[0])}, case = {_r_label(lv[1])}", file=sys.stderr)
    if direction == "auto":
        direction = _auto_direction(s, is_case)
    return _build(s, is_case, lv, direction, bounds, focus, correct, kept=kept,
                  data_name=_name_of(score, "score"), response_name=_name_of(y, "y"))


def _build(s, is_case, lv, direction, bounds, focus, correct, *, kept=None, data_name="score",
           response_name="y") -> ROCCurve:
    oriented = s if direction == "<" else -s
    uniq, gid, c, d = _groups(oriented, is_case)
    se, sp = _curve_from_counts(c, d)
    mid = (uniq[1:] + uniq[:-1]) / 2
    thr = np.concatenate([[-np.inf], mid, [np.inf]])
    if direction == ">":
        thr = -thr
    full = _area(se, sp, None, focus, correct)
    value = full if bounds is None else _area(se, sp, bounds, focus, correct, (c, d))
    return ROCCurve(auc=value, direction=direction, levels=lv, n_controls=int((~is_case).sum()),
                    n_cases=int(is_case.sum()), thresholds=thr, sensitivities=se, specificities=sp,
                    controls=s[~is_case], cases=s[is_case], partial_auc=bounds, partial_auc_focus=focus,
                    partial_auc_correct=correct, full_auc=full, data_name=data_name,
                    response_name=response_name, kept=kept, is_case=is_case, group=gid, group_cases=c,
                    group_controls=d)


def auc(roc, *, partial_auc=None, partial_auc_focus="specificity", partial_auc_correct=False):
    """The full or partial area under a ROC curve, as pROC's ``auc(roc, partial.auc=...)``.

    Parameters
    ----------
    roc : ROCCurve
        A curve from :func:`statcore.roc`.
    partial_auc : tuple of two floats, optional
        Bounds in [0, 1] of the partial area; None: the full area.
    partial_auc_focus : {"specificity", "sensitivity"}
        Which axis ``partial_auc`` bounds (pROC's "sp", "se" accepted).
    partial_auc_correct : bool
        McClish's standardisation (0.5 for a useless score, 1 for a perfect one; NaN with a
        ``ROCWarning`` below the diagonal, as pROC).

    Returns
    -------
    float
        The area.

    References
    ----------
    Robin, X. et al. (2011). pROC. BMC Bioinformatics 12, 77 (function ``auc``).
    McClish, D. K. (1989). Analyzing a portion of the ROC curve. Medical Decision Making 9, 190-195.

    Examples
    --------
    >>> import statcore
    >>> r = statcore.roc([0, 0, 0, 1, 1, 1], [1, 2, 4, 3, 5, 6])
    >>> statcore.auc(r), statcore.auc(r, partial_auc=(1, 0.5))
    (0.8888888888888888, 0.38888888888888884)
    """
    check_roc_object(roc, "roc", ROCCurve)
    bounds, focus, correct = check_partial_auc(partial_auc, partial_auc_focus, partial_auc_correct)
    return _area(np.asarray(roc.sensitivities), np.asarray(roc.specificities), bounds, focus, correct,
                 (np.asarray(roc.group_cases), np.asarray(roc.group_controls)))
