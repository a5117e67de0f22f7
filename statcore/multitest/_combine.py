"""One global p-value from k p-values of the same null hypothesis: a superset of
``scipy.stats.combine_pvalues``.

scipy's methods (Fisher, Pearson, Tippett, Stouffer, Mudholkar-George) assume independent
p-values and give scipy's numbers; Bonferroni, Ruger's top-r and Hommel's (1983) global test are
valid under any dependence, the Cauchy combination approximately so at small levels, Simes' test for
independent or positively dependent (PRDS) p-values. One small function per rule, keyed by name.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from scipy import special

from .._checks import (apply_nan_policy, as_pvalues, check_axis, check_choice, check_combine_weights,
                       check_flag, check_nan_policy, check_rank)
from .._r.rformat import R_DIGITS, format_numbers, format_table
from .._result import HTest, Result

__all__ = ["combine_pvalues", "CombinedPValues", "COMBINE_METHODS"]

Rule = Callable[[np.ndarray, "int | None", "np.ndarray | None"], "tuple[np.ndarray, np.ndarray]"]


# ----------------------------------------------------------------------------------------------
# the rules: p is (m, k), one family per row; each returns (statistic, p-value), both (m,)
# ----------------------------------------------------------------------------------------------

def _fisher(p, r, w):
    k = p.shape[-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        stat = -2 * np.sum(np.log(p), axis=-1)
    return stat, special.chdtrc(2 * k, stat)


def _pearson(p, r, w):
    k = p.shape[-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        stat = 2 * np.sum(np.log1p(-p), axis=-1)
    return stat, special.chdtr(2 * k, -stat)


def _tippett(p, r, w):
    k = p.shape[-1]
    stat = np.min(p, axis=-1)
    return stat, special.betainc(1.0, float(k), stat)


def _stouffer(p, r, w):
    if w is None:
        w = np.ones_like(p)
    z = -special.ndtri(p)
    with np.errstate(invalid="ignore"):
        stat = np.sum(w * z, axis=-1) / np.linalg.norm(w, axis=-1)
    return stat, special.ndtr(-stat)


def _mudholkar_george(p, r, w):
    k = p.shape[-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        stat = -np.sum(np.log(p), axis=-1) + np.sum(np.log1p(-p), axis=-1)
    nu = 5 * k + 4
    scale = np.sqrt(3 / k) / np.pi * np.sqrt(nu / (nu - 2))
    return stat, special.stdtr(nu, -(stat * scale))


def _bonferroni(p, r, w):
    # Bonferroni-max: min(1, k min p)
    stat = p.min(axis=-1)
    return stat, np.minimum(1.0, p.shape[-1] * stat)


def _topr(p, r, w):
    # Ruger (1978): the r-th smallest p-value times k / r is a valid p-value under any dependence
    k = p.shape[-1]
    pr = np.partition(p, r - 1, axis=-1)[..., r - 1]
    return pr, np.minimum(1.0, (k / r) * pr)


def _simes_statistic(p):
    k = p.shape[-1]
    return (k * np.sort(p, axis=-1) / np.arange(1, k + 1)).min(axis=-1)


def _simes(p, r, w):
    # Simes (1986): min_i k p_(i) / i, the smallest Hommel-adjusted p-value; valid under PRDS
    stat = _simes_statistic(p)
    return stat, np.minimum(1.0, stat)


def _hommel_global(p, r, w):
    # Hommel (1983): Simes' p-value times sum_{i<=k} 1/i is valid under any dependence
    k = p.shape[-1]
    stat = _simes_statistic(p)
    harmonic = float(np.sum(1.0 / np.arange(1, k + 1)))
    return stat, np.minimum(1.0, harmonic * np.minimum(1.0, stat))


def _cauchy(p, r, w):
    # Liu & Xie (2020): T = mean tan((1/2 - p) pi) is approximately standard Cauchy under the null
    # whatever the dependence. tan((1/2 - p) pi) = 1 / tan(p pi) keeps precision for tiny p.
    with np.errstate(divide="ignore", over="ignore"):
        t = np.where(p < 1e-15, 1.0 / (np.pi * p), np.tan((0.5 - p) * np.pi))
        t = t.mean(axis=-1)
    # upper tail of the standard Cauchy, written without cancellation for large t
    with np.errstate(divide="ignore"):
        out = np.where(t > 1.0, np.arctan(1.0 / t) / np.pi, 0.5 - np.arctan(t) / np.pi)
    return t, np.clip(out, 0.0, 1.0)


_RULES: dict[str, Rule] = {
    "fisher": _fisher,
    "pearson": _pearson,
    "tippett": _tippett,
    "stouffer": _stouffer,
    "mudholkar_george": _mudholkar_george,
    "bonferroni": _bonferroni,
    "simes": _simes,
    "topr": _topr,
    "hommel_global": _hommel_global,
    "cauchy": _cauchy,
}

#: Names accepted by ``combine_pvalues`` (scipy's five first).
COMBINE_METHODS: tuple[str, ...] = tuple(_RULES)

_LABELS = {
    "fisher": "Fisher's combination of p-values",
    "pearson": "Pearson's combination of p-values",
    "tippett": "Tippett's combination of p-values (minimum p)",
    "stouffer": "Stouffer's Z combination of p-values",
    "mudholkar_george": "Mudholkar-George logit combination of p-values",
    "bonferroni": "Bonferroni combination of p-values",
    "simes": "Simes' global test",
    "topr": "Ruger's top-r combination of p-values",
    "hommel_global": "Hommel's (1983) global test",
    "cauchy": "Cauchy combination of p-values",
}


# ----------------------------------------------------------------------------------------------
# the result
# ----------------------------------------------------------------------------------------------

@dataclass(frozen=True, repr=False)
class CombinedPValues(HTest):
    """A combined p-value (or one per family): a vectorised ``HTest``, like scipy's ``SignificanceResult``.

    Attributes
    ----------
    statistic : float or ndarray
        The combination's statistic (see :func:`combine_pvalues`); an array for batched input.
    p_value : float or ndarray
        The combined p-value; ``pvalue`` is scipy's spelling.
    rule : str
        The rule used (``"fisher"``, ``"topr"``, ...); ``method`` is its description, as in R's htest.
    k : int or ndarray
        The number of p-values combined (per family with ``nan_policy="omit"``).
    r : int or None
        The rank of the top-r rule.

    The result unpacks and indexes like scipy's: ``stat, p = res``, ``res[1]`` is the p-value.

    Examples
    --------
    >>> from statcore.multitest import combine_pvalues
    >>> res = combine_pvalues([0.01, 0.2, 0.3], method="fisher")
    >>> res
    CombinedPValues(rule='fisher', statistic=14.84, p_value=0.02156, k=3)
    >>> stat, p = res
    >>> res[1] == p
    True
    >>> print(res.summary().strip())
    Fisher's combination of p-values
    <BLANKLINE>
    data:  3 p-values
    statistic = 14.837, p-value = 0.02156
    """

    k: Any = None
    r: int | None = None
    rule: str = ""

    # scipy's result is a (statistic, pvalue) tuple: it indexes and has a length, as well as unpacking
    def __getitem__(self, index):
        return (self.statistic, self.p_value)[index]

    def __len__(self) -> int:
        return 2

    def _repr_parts(self):
        parts = [("rule", self.rule), ("statistic", self.statistic), ("p_value", self.p_value), ("k", self.k)]
        if self.r is not None:
            parts.append(("r", self.r))
        return parts

    def __repr__(self) -> str:
        return Result.__repr__(self)

    def summary(self, digits: int = R_DIGITS) -> str:
        """R's ``print.htest`` (the one HTest printer) for one family; its heading and a table of the
        families for batched input."""
        if np.ndim(self.p_value) == 0:
            return super().summary(digits)
        frame = self.to_frame()
        shown = frame.head(10)
        body = format_table([str(i) for i in shown.index],
                            {"statistic": list(shown["statistic"]), "p_value": list(shown["p_value"])}, digits)
        more = f"\n... {len(frame) - 10} more families" if len(frame) > 10 else ""
        return f"\n\t{self.method}\n\ndata:  {self.data_name}\n\n{body}{more}\n"

    def to_frame(self):
        """One row per family: ``statistic``, ``p_value``, ``k``, ``rule`` (and ``r`` for top-r), ``method``."""
        import pandas as pd

        stat = np.atleast_1d(np.asarray(self.statistic, dtype=float)).ravel()
        cols = {"statistic": stat, "p_value": np.atleast_1d(np.asarray(self.p_value, dtype=float)).ravel(),
                "k": np.broadcast_to(np.asarray(self.k), np.shape(self.p_value)).ravel()
                if np.ndim(self.p_value) else [int(self.k)],
                "rule": [self.rule] * stat.size}
        if self.r is not None:
            cols["r"] = [self.r] * stat.size
        cols["method"] = [self.method] * stat.size
        return pd.DataFrame(cols)


def _combined(stat: Any, pval: Any, rule: str, k: Any, r: int | None) -> CombinedPValues:
    """The result, its R-htest fields filled in: the rule's description and what was combined."""
    rank = "" if r is None else f", r = {r}"
    if np.ndim(pval) == 0:
        data = f"{int(k)} p-values{rank}"
    else:
        ks = np.asarray(k)
        count = str(int(ks)) if ks.ndim == 0 else f"{int(ks.min())} to {int(ks.max())}"
        data = f"{int(np.size(pval))} families of {count} p-values{rank}"
    return CombinedPValues(statistic=stat, p_value=pval, method=_LABELS.get(rule, rule), data_name=data,
                           alternative=None, k=k, r=r, rule=rule)


# ----------------------------------------------------------------------------------------------
# the function
# ----------------------------------------------------------------------------------------------

def _combine(arr: np.ndarray, method: str, r: Any, weights: Any, axis: int | None, nan_policy: str,
             masked: np.ndarray | None = None):
    """(statistic, p_value, k, r) for validated p-values ``arr`` (NaN allowed) and a known method.

    ``masked`` marks the p-values of a masked array: omitted whatever ``nan_policy`` (scipy's rule), as
    are the pairs of masked weights; NaN p-values and weights follow ``nan_policy``."""
    if arr.ndim == 0:
        raise ValueError("p must be an array of p-values (one family along axis), got a single number")
    if axis is None:
        arr, axis = arr.ravel(), 0
        masked = None if masked is None else masked.ravel()
    axis = check_axis(axis, arr.ndim, allow_none=False)
    w, wmask = check_combine_weights(weights, arr, axis, method, nan_policy)
    if wmask is not None:
        masked = wmask if masked is None else masked | wmask
    moved = np.moveaxis(arr, axis, -1)
    k = moved.shape[-1]
    if k == 0:
        raise ValueError("p is empty; at least one p-value is needed")
    batch = moved.shape[:-1]
    flat = moved.reshape(-1, k)
    wf = None if w is None else np.moveaxis(w, axis, -1).reshape(-1, k)
    mf = None if masked is None else np.moveaxis(masked, axis, -1).reshape(-1, k)
    r = check_rank(r, k, method, "method")
    rule = _RULES[method]
    nan = np.isnan(flat)
    if mf is not None:
        nan &= ~mf
    if nan_policy == "raise" and nan.any():
        apply_nan_policy("raise", p=flat[nan])
    if wf is not None:  # a NaN weight (its NaN was refused by "raise") goes with its p-value
        nan |= np.isnan(wf) if mf is None else np.isnan(wf) & ~mf
    drop = mf if nan_policy != "omit" else (nan if mf is None else nan | mf)
    bad = nan.any(axis=-1) if nan_policy == "propagate" else np.zeros(flat.shape[0], dtype=bool)
    if drop is None or not drop.any():
        fill_w = None if wf is None else np.where(nan, 1.0, wf)
        stat, pval = rule(np.where(nan, 0.5, flat), r, fill_w)
        stat, pval = np.where(bad, np.nan, stat), np.where(bad, np.nan, pval)
        ks: Any = k
    else:  # family by family, without the dropped pairs
        stat, pval = np.full(flat.shape[0], np.nan), np.full(flat.shape[0], np.nan)
        ks = np.empty(flat.shape[0], dtype=np.int64)
        for i in range(flat.shape[0]):
            keep = ~drop[i]
            ki = ks[i] = int(keep.sum())
            if bad[i]:
                continue
            if ki == 0:
                raise ValueError("p has a family with no non-NaN (unmasked) p-value; nothing is left to "
                                 "combine after nan_policy='omit' and the mask")
            if method == "topr" and r > ki:
                raise ValueError(f"r = {r} exceeds the {ki} non-NaN (unmasked) p-values of a family after "
                                 "nan_policy='omit' and the mask")
            wi = None if wf is None else wf[i, keep][None, :]
            if wi is not None and not np.any(wi != 0):
                raise ValueError("weights must not be all zero: a family has only zero weights left after "
                                 "nan_policy='omit' and the mask")
            s, q = rule(flat[i, keep][None, :], r, wi)
            stat[i], pval[i] = s[0], q[0]
        if len(set(ks.tolist())) == 1:
            ks = int(ks[0])
        else:
            ks = ks.reshape(batch)
    stat = np.asarray(stat, dtype=np.float64).reshape(batch)
    pval = np.asarray(pval, dtype=np.float64).reshape(batch)
    if not batch:
        return float(stat), float(pval), int(ks), r
    return stat, pval, ks, r


def combine_pvalues(p: Any, method: str = "fisher", *, weights: Any = None, axis: int | None = 0,
                    r: int | None = None, nan_policy: str = "propagate", keepdims: bool = False) -> CombinedPValues:
    """Combine k p-values of the same null hypothesis into one: scipy's methods and more.

    A superset of :func:`scipy.stats.combine_pvalues`: its five methods give its numbers, and
    Bonferroni, Simes, Ruger's top-r, Hommel's global test and the Cauchy combination are added
    for dependent p-values.

    Parameters
    ----------
    p : array_like
        p-values in [0, 1]; the families are combined along ``axis`` (batched input gives one
        combined p-value per family). The masked elements of a numpy masked array are omitted
        whatever ``nan_policy`` (scipy's rule; ``k`` counts the unmasked values).
    method : str
        scipy's rules, for independent p-values: ``"fisher"`` (-2 sum log p, chi-squared on 2k df),
        ``"pearson"``, ``"tippett"`` (min p, Beta(1, k)), ``"stouffer"`` (sum w_i z_i / ||w||, with
        ``weights``), ``"mudholkar_george"``. Rules valid under any dependence:
        ``"bonferroni"`` (min(1, k min p)), ``"topr"`` (Ruger's min(1, (k / r) p_(r))) and
        ``"hommel_global"`` (Hommel's 1983 global test, min(1, C_k min_i k p_(i) / i) with
        C_k = sum_{i<=k} 1/i; not ``p_adjust(method="hommel")``); ``"simes"`` (min_i k p_(i) / i,
        valid for independent or PRDS p-values); ``"cauchy"`` (the standard Cauchy upper tail of
        mean tan((1/2 - p) pi), approximately valid at small levels under dependence). The
        default is scipy's, ``"fisher"``.
    weights : array_like, optional, keyword-only
        Stouffer's weights: one per p-value along ``axis``, or ``p``'s shape. An error with other
        methods. A NaN weight follows ``nan_policy`` with its p-value ("omit" drops the pair, as
        scipy does); a masked weight's pair is omitted.
    axis : int or None, keyword-only
        The axis along which the p-values of a family lie (None: all values form one family).
        The default is scipy's, 0: for a 2-D ``p`` each column is a family (pass ``axis=1`` to
        combine each row).
    r : int, optional, keyword-only
        The rank used by ``"topr"``, 1 <= r <= k; default ``ceil(k / 10)``. An error with other
        methods.
    nan_policy : {"propagate", "omit", "raise"}, keyword-only
        scipy's default "propagate" gives a NaN result for a family with a NaN (in ``p`` or
        ``weights``); "omit" combines the non-NaN p-values (k counts them); "raise" refuses NaN.
    keepdims : bool, keyword-only
        scipy's ``keepdims``: keep the combined axis (all axes with ``axis=None``) with length one, so
        that ``statistic``, ``p_value`` (and ``k`` when it varies) broadcast against ``p``.

    Returns
    -------
    CombinedPValues
        ``statistic`` and ``p_value`` (floats for one family, arrays for batched input), ``method``,
        ``k``; a vectorised ``HTest`` (``rule`` the method's name, ``method`` its description) that
        unpacks and indexes as ``(statistic, p_value)`` and has scipy's ``pvalue``. The statistic is
        scipy's for its methods, min p (bonferroni), p_(r) (topr), min_i k p_(i) / i (simes,
        hommel_global) and the mean tangent T (cauchy).

    Notes
    -----
    Bonferroni, top-r and Hommel's global test are valid for any dependence among the p-values.
    Simes' p-value is valid for independent and positively dependent (PRDS) p-values (Simes 1986;
    Sarkar 1998) but not in general: under arbitrary dependence P(Simes <= alpha) can reach
    C_k alpha (Hommel 1983), which the factor C_k (2.45 for k = 6, 4.50 for k = 50) removes, at the
    price of power. Random projections of the same data are not known to be PRDS, so RP-CIT's
    valid-by-construction choices are "bonferroni", "topr", "hommel_global" and "maxboot". The
    Cauchy combination is exact in the tail for independent p-values and approximately valid at small
    levels under arbitrary dependence.

    References
    ----------
    scipy.stats.combine_pvalues. Fisher (1932); Stouffer et al. (1949); Mudholkar & George (1979).
    Ruger (1978), Metrika 25. Hommel (1983), Tests of the overall hypothesis for arbitrary dependence
    structures, Biometrical Journal 25(5). Simes (1986), Biometrika 73(3). Sarkar (1998), Annals of
    Statistics 26(2). Liu & Xie (2020), Cauchy combination test, JASA 115(529).

    Examples
    --------
    >>> from statcore.multitest import combine_pvalues
    >>> p = [0.001, 0.02, 0.3, 0.5, 0.9]
    >>> combine_pvalues(p, method="bonferroni").p_value
    0.005
    >>> round(combine_pvalues(p, method="topr", r=2).p_value, 4)
    0.05
    >>> round(combine_pvalues(p, method="hommel_global").p_value, 4)  # 0.005 * (1 + 1/2 + ... + 1/5)
    0.0114
    >>> stat, pval = combine_pvalues(p)  # scipy's default: Fisher
    >>> round(stat, 3), round(pval, 5)
    (25.645, 0.00425)
    >>> import numpy as np
    >>> combine_pvalues(np.array([[0.01, 0.5], [0.02, 0.6], [0.03, 0.7]])).p_value.shape  # axis=0: per column
    (2,)
    """
    method = check_choice(method, "method", COMBINE_METHODS)
    nan_policy = check_nan_policy(nan_policy)
    masked = np.ma.getmaskarray(p) if isinstance(p, np.ma.MaskedArray) else None
    arr = as_pvalues(p, "p")
    keepdims = check_flag(keepdims, "keepdims")
    stat, pval, k, r = _combine(arr, method, r, weights, axis, nan_policy,
                                None if masked is None or not masked.any() else masked)
    if keepdims:
        shape = _kept_shape(arr.shape, axis)
        stat, pval = np.reshape(stat, shape), np.reshape(pval, shape)
        k = np.reshape(k, shape) if np.ndim(k) else k
    return _combined(stat, pval, method, k, r)


def _kept_shape(shape: tuple, axis: Any) -> tuple:
    """The shape of a reduction of ``shape`` along ``axis`` (None: all axes) with scipy's keepdims."""
    if axis is None:
        return (1,) * len(shape)
    axis = check_axis(axis, len(shape), allow_none=False)
    return tuple(1 if i == axis else n for i, n in enumerate(shape))
