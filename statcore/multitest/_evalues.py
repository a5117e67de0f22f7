"""e-values: the e-BH procedure, calibrators between p- and e-values, merging, knockoff e-values.

``e_bh`` is the e-BH procedure of Wang & Ramdas (2022); ``p_to_e`` the calibrators of Vovk & Wang
(2021); ``e_to_p`` the inverse calibration min(1, 1/e); ``merge_e`` the arithmetic mean (any
dependence) and the product (independent e-values); ``knockoff_e_values`` the e-values of one knockoff
run, as in the derandomised knockoffs of Ren & Barber (2024).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._checks import (InputWrapper, as_evalues, as_knockoff_stats, as_pvalues, check_axis, check_choice,
                       check_error_level, check_knockoff_offset, check_probability, show_value)
from .._r.rformat import format_number
from .._result import Result
from ._knockoff_threshold import _threshold

__all__ = ["e_bh", "EBHResult", "p_to_e", "e_to_p", "merge_e", "knockoff_e_values"]


# ----------------------------------------------------------------------------------------------
# e-BH
# ----------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False, repr=False)
class EBHResult(Result):
    """The e-BH selection (:func:`e_bh`).

    Attributes
    ----------
    rejected : ndarray or pandas Series of bool
        The rejected hypotheses, in the container of the input (a Series keeps its index).
    e_values : ndarray or pandas Series
        The e-values tested.
    n_rejections : int
        k*, the number of rejections.
    threshold : float
        m / (alpha k*): every e-value at or above it is rejected (``inf`` when none is).
    alpha : float
        The target FDR.

    Examples
    --------
    >>> import statcore as sc
    >>> res = sc.e_bh([100, 1, 40, 0.5, 25], alpha=0.1)
    >>> res
    EBHResult(alpha=0.1, n_rejections=3, m=5, threshold=16.67)
    >>> res.to_frame()
       e_value  rejected
    0    100.0      True
    1      1.0     False
    2     40.0      True
    3      0.5     False
    4     25.0      True
    """

    rejected: Any
    e_values: Any
    n_rejections: int
    threshold: float
    alpha: float

    def _repr_parts(self):
        return [("alpha", self.alpha), ("n_rejections", self.n_rejections),
                ("m", int(np.size(np.asarray(self.e_values)))), ("threshold", self.threshold)]

    def summary(self) -> str:
        """A short block: the target level, the number of rejections and the e-value threshold."""
        m = int(np.size(np.asarray(self.e_values)))
        thr = "none (no rejection)" if self.n_rejections == 0 else format_number(self.threshold)
        return ("\n\te-BH procedure (Wang & Ramdas 2022)\n\n"
                f"target FDR: {format_number(self.alpha)}\n"
                f"Number of hyp.: {m}\n"
                f"Number of rej.: {self.n_rejections}\n"
                f"e-value threshold m/(alpha k*): {thr}\n")

    def to_frame(self):
        """One row per hypothesis: ``e_value`` and ``rejected`` (the index of a Series input)."""
        import pandas as pd

        idx = self.e_values.index if hasattr(self.e_values, "index") else None
        return pd.DataFrame({"e_value": np.asarray(self.e_values, dtype=float).ravel(),
                             "rejected": np.asarray(self.rejected, dtype=bool).ravel()}, index=idx)


def _first_rank(e: np.ndarray, m: int, alpha: float) -> np.ndarray:
    """For each e-value, the smallest rank k in 1..m with e >= m / (alpha k) (m + 1 when none).

    The estimate ceil(m / (alpha e)) is corrected against the defining comparison itself, computed
    as ``m / (alpha * k)`` (monotone in k), so the ranks are those of the definition, not of rounding.
    """
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        est = np.ceil(m / (alpha * e))
    np.clip(est, 1, m + 1, out=est, where=~np.isnan(est))
    est[np.isnan(est)] = m + 1          # e = 0 (m / 0 = inf, caught above) or inf/inf never occurs
    k = est.astype(np.int64)
    for _ in range(2):  # at most one step of rounding either way; twice for safety
        lower = k > 1
        down = lower & (e >= m / (alpha * np.maximum(k - 1, 1)))
        k[down] -= 1
        up = (k <= m) & ~(e >= m / (alpha * np.minimum(k, m)))
        k[up] += 1
    return k


def _ebh_count(e: np.ndarray, alpha: float) -> int:
    """k* = max{k : e_(k) >= m / (alpha k)}, in O(m) without sorting.

    With k_j the smallest rank at which e_j passes, e_(k) >= m/(alpha k) iff #{j : k_j <= k} >= k.
    """
    m = e.size
    counts = np.bincount(_first_rank(e, m, alpha), minlength=m + 2)[1:m + 1]
    n_pass = np.cumsum(counts)
    ok = np.flatnonzero(n_pass >= np.arange(1, m + 1))
    return int(ok[-1]) + 1 if ok.size else 0


def e_bh(e: Any, *, alpha: float = 0.1) -> EBHResult:
    """The e-BH procedure: FDR control at ``alpha`` from e-values under arbitrary dependence.

    With e_(1) >= ... >= e_(m) the e-values in decreasing order, reject the k* largest, where
    k* = max{k : e_(k) >= m / (alpha k)} (none when no k qualifies). For any dependence among the
    e-values the FDR is at most alpha m0 / m (Wang & Ramdas 2022, Theorem 2). Tied e-values are
    rejected together: the rejected set is {j : e_j >= m / (alpha k*)}. On e = 1/p it is the
    Benjamini-Hochberg procedure. Runs in O(m) (a histogram of ranks, no sort).

    Parameters
    ----------
    e : array_like or pandas Series
        e-values (non-negative, ``inf`` allowed; one-dimensional). NaN is refused.
    alpha : float, keyword-only
        The target FDR in (0, 1).

    Returns
    -------
    EBHResult
        ``rejected`` (a Series with the index of a Series input), ``n_rejections``, ``threshold``.

    References
    ----------
    Wang, R. & Ramdas, A. (2022). False discovery rate control with e-values. Journal of the Royal
    Statistical Society B 84(3), 822-852 (the base e-BH procedure, Definition 2).

    Examples
    --------
    >>> import statcore as sc
    >>> res = sc.e_bh([100, 1, 40, 0.5, 25], alpha=0.1)
    >>> res.rejected
    array([ True, False,  True, False,  True])
    >>> round(res.threshold, 6)  # m / (alpha k*) = 5 / (0.1 * 3)
    16.666667
    """
    alpha = check_error_level(alpha)
    wrapper = InputWrapper.of(e)
    arr = as_evalues(e, "e", ndim=1)
    m = arr.size
    k = _ebh_count(arr, alpha)
    threshold = m / (alpha * k) if k else math.inf
    rejected = arr >= threshold if k else np.zeros(m, dtype=bool)
    return EBHResult(rejected=wrapper.wrap(rejected), e_values=wrapper.wrap(arr.copy()), n_rejections=k,
                     threshold=float(threshold), alpha=alpha)


# ----------------------------------------------------------------------------------------------
# calibrators
# ----------------------------------------------------------------------------------------------

_SERIES_TERMS = 30


def _integral_calibrator(p: np.ndarray) -> np.ndarray:
    """int_0^1 kappa p^(kappa - 1) d kappa = (1 - p + p log p) / (p (log p)^2), stably at both ends.

    With L = log p: f = (e^(-L) - 1 + L) / L^2 = sum_{n >= 0} (-L)^n / (n + 2)!, summed as a series
    for |L| <= 1 (p in [1/e, 1]: no cancellation near p = 1, f(1) = 1/2); below, ((1 - p + p L) / L^2) / p
    (divided by p last, so that subnormal p give their finite value; p = 0 gives inf).
    """
    out = np.empty_like(p)
    with np.errstate(divide="ignore"):
        L = np.log(p)
    near = L >= -1.0
    x = -L[near]
    acc = np.zeros_like(x)
    for n in range(_SERIES_TERMS, -1, -1):  # Horner: sum x^n / (n + 2)!
        acc = acc * x + 1.0 / math.factorial(n + 2)
    out[near] = acc
    far = ~near
    pf, Lf = p[far], L[far]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        vals = ((1.0 - pf) + pf * Lf) / (Lf * Lf) / pf
    vals[pf == 0] = np.inf
    out[far] = vals
    return out


def p_to_e(p: Any, *, calibrator: str = "kappa", kappa: float = 0.5) -> Any:
    """Calibrate p-values into e-values (Vovk & Wang 2021).

    ``"kappa"``: e = kappa p^(kappa - 1) for kappa in (0, 1) (e = inf at p = 0, kappa at p = 1).
    ``"integral"``: the calibrator integrated over kappa in (0, 1),
    e = (1 - p + p log p) / (p (log p)^2), inf at p = 0 and 1/2 at p = 1 (computed stably at both ends).
    Both are decreasing and integrate to 1 over [0, 1], so a valid p-value gives a valid e-value.

    Parameters
    ----------
    p : array_like or pandas Series/DataFrame
        p-values in [0, 1], any shape; NaN is refused.
    calibrator : {"kappa", "integral"}, keyword-only
        The calibrator.
    kappa : float, keyword-only
        The exponent of ``"kappa"`` in (0, 1) (unused by ``"integral"``).

    Returns
    -------
    ndarray, float or pandas object
        e-values of the same shape and container.

    References
    ----------
    Vovk, V. & Wang, R. (2021). E-values: calibration, combination and applications. Annals of
    Statistics 49(3), 1736-1754 (Section 2: the calibrators kappa p^(kappa - 1) and their integral).

    Examples
    --------
    >>> import statcore as sc
    >>> sc.p_to_e([0.01, 0.25, 1.0], kappa=0.5)
    array([5. , 1. , 0.5])
    >>> sc.p_to_e([1.0], calibrator="integral")
    array([0.5])
    """
    calibrator = check_choice(calibrator, "calibrator", ("kappa", "integral"))
    kappa = check_probability(kappa, "kappa", open_left=True, open_right=True)
    wrapper = InputWrapper.of(p)
    arr = as_pvalues(p, "p", allow_nan=False)
    flat = arr.ravel()
    if calibrator == "kappa":
        with np.errstate(divide="ignore", over="ignore"):
            out = kappa * np.power(flat, kappa - 1.0)
    else:
        out = _integral_calibrator(flat)
    out = out.reshape(arr.shape)
    return wrapper.wrap(out[()] if arr.ndim == 0 else out)


def e_to_p(e: Any) -> Any:
    """The p-value of an e-value: min(1, 1/e) (Markov's inequality; 1 at e = 0, 0 at e = inf).

    Parameters
    ----------
    e : array_like or pandas Series/DataFrame
        e-values (non-negative, ``inf`` allowed), any shape; NaN is refused.

    Returns
    -------
    ndarray, float or pandas object
        p-values of the same shape and container.

    References
    ----------
    Vovk, V. & Wang, R. (2021). E-values: calibration, combination and applications. Annals of
    Statistics 49(3), 1736-1754 (the e-to-p calibrator 1/e, admissible and unique up to truncation).

    Examples
    --------
    >>> import statcore as sc
    >>> sc.e_to_p([0.0, 0.5, 4.0, float("inf")])
    array([1.  , 1.  , 0.25, 0.  ])
    """
    wrapper = InputWrapper.of(e)
    arr = as_evalues(e, "e")
    with np.errstate(divide="ignore"):
        out = np.minimum(1.0, 1.0 / arr)
    return wrapper.wrap(out[()] if arr.ndim == 0 else out)


def merge_e(e: Any, *, method: str = "mean", axis: int | None = -1) -> Any:
    """Merge e-values of one hypothesis into one e-value.

    ``"mean"``: the arithmetic mean, valid under any dependence among the e-values and, among
    symmetric merging functions, the admissible one (Vovk & Wang 2021, Proposition 3.1: every
    symmetric admissible e-merging function is dominated by the mean). ``"product"``: the product,
    valid only for independent e-values (or sequential ones, each valid given the earlier); do not use
    it for dependent e-values.

    Parameters
    ----------
    e : array_like
        e-values (non-negative, ``inf`` allowed); NaN is refused.
    method : {"mean", "product"}, keyword-only
        The merging function.
    axis : int or None, keyword-only
        Merge along this axis (the last by default); None merges all values into one.

    Returns
    -------
    float or ndarray
        The merged e-value(s): a float for one-dimensional input or ``axis=None``.

    References
    ----------
    Vovk, V. & Wang, R. (2021). E-values: calibration, combination and applications. Annals of
    Statistics 49(3), 1736-1754 (Section 3: the arithmetic mean for arbitrary dependence, the product
    for independent e-values).

    Examples
    --------
    >>> import statcore as sc
    >>> sc.merge_e([2.0, 0.5, 8.0])
    3.5
    >>> sc.merge_e([2.0, 0.5, 8.0], method="product")
    8.0
    """
    method = check_choice(method, "method", ("mean", "product"))
    arr = as_evalues(e, "e")
    axis = check_axis(axis, arr.ndim)
    if method == "mean":
        out = np.mean(arr, axis=axis)
    else:
        zero = np.any(arr == 0, axis=axis)
        inf = np.any(np.isinf(arr), axis=axis)
        if np.any(zero & inf):
            raise ValueError("e holds both 0 and inf in one set to merge: their product is undefined "
                             "(one of the e-values is invalid); use method='mean' or drop the offending value")
        out = np.prod(arr, axis=axis)
    return float(out) if np.ndim(out) == 0 else out


# ----------------------------------------------------------------------------------------------
# knockoff e-values
# ----------------------------------------------------------------------------------------------

def knockoff_e_values(W: Any, *, fdr: float = 0.1, offset: int = 1) -> Any:
    """The e-values of one knockoff run (Ren & Barber 2024): e_j = m 1{W_j >= T} / (offset + #{k : W_k <= -T}).

    T is the knockoff(+) threshold at level ``fdr`` (:func:`knockoff_threshold`, R knockoff's
    ``knockoff.threshold``); with ``offset=1`` these are the e-values of Ren & Barber (2024), eq. (6),
    which are valid (sum over nulls of E[e_j] <= m) and with which e-BH at ``alpha = fdr`` selects
    exactly the knockoff+ selection {j : W_j >= T}; averaging them over knockoff draws and running
    e-BH is derandomised knockoffs. When T is infinite every e_j is 0. With ``offset=0`` the
    denominator is max(1, #{k : W_k <= -T}) (the knockoff, not knockoff+, threshold: not valid
    e-values in general; for comparison only).

    Parameters
    ----------
    W : array_like or pandas Series
        Knockoff statistics, one per variable (one-dimensional, finite).
    fdr : float, keyword-only
        The level alpha_kn of the knockoff threshold, in (0, 1).
    offset : {0, 1}, keyword-only
        1 (knockoff+, Ren & Barber's definition) or 0.

    Returns
    -------
    ndarray or pandas Series
        One e-value per variable, in the container of ``W``.

    References
    ----------
    Ren, Z. & Barber, R. F. (2024). Derandomised knockoffs: leveraging e-values for false discovery
    rate control. Journal of the Royal Statistical Society B 86(1), 122-154 (Section 3, eq. (6)).
    R package knockoff, ``knockoff.threshold`` (the threshold T).

    Examples
    --------
    >>> import statcore as sc
    >>> W = [6, 5, 4.5, 4, 3.5, 3, 2.5, 2, -1.5, 1, -0.5]
    >>> sc.knockoff_e_values(W, fdr=0.2)
    array([11., 11., 11., 11., 11., 11., 11., 11.,  0.,  0.,  0.])
    """
    fdr = check_error_level(fdr, "fdr")
    offset = check_knockoff_offset(offset)
    wrapper = InputWrapper.of(W)
    arr = as_knockoff_stats(W)
    m = arr.size
    T = _threshold(arr, fdr, offset)
    if math.isinf(T):
        return wrapper.wrap(np.zeros(m))
    denom = max(1, offset + int(np.count_nonzero(arr <= -T)))
    return wrapper.wrap(np.where(arr >= T, m / denom, 0.0))
