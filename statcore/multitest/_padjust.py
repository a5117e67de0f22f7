"""FWER and FDR adjustment of p-values: ``p_adjust``, R's ``stats::p.adjust`` and a few additions.

``p_adjust`` follows R's ``p.adjust`` exactly (NaN omitted, ``n`` = number of non-NaN values by
default, the same arithmetic in the same order). The sorting kernels are compiled
(``statcore._padjust``, built from ``_ext/_padjust.pyx``).
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from .. import _padjust
from ._padjust_dask import DASK_METHODS, is_dask_array, p_adjust_dask
from .._checks import (InputWrapper, as_pvalues, check_choice, check_axis, check_p_adjust_n,
                       check_positive_int, check_probability)

__all__ = ["p_adjust", "p_adjust_methods"]


# ----------------------------------------------------------------------------------------------
# p_adjust: one small function per method, keyed by name (R's p.adjust.methods first)
# ----------------------------------------------------------------------------------------------

def _argsort(p: np.ndarray) -> np.ndarray:
    """Stable ascending order of p-values in [0, 1], several times faster than np.argsort.

    Sorts one uint64 key per value (value bits above, index bits below) with numpy's integer sort,
    then re-sorts the rare runs whose kept value bits coincide (see _ext/_padjust.pyx).
    """
    n = p.size
    bits = max(1, int(n - 1).bit_length())
    if n < 64 or bits > 40:
        return np.argsort(p, kind="stable")
    keys = np.empty(n, dtype=np.uint64)
    _padjust.unit_keys(p, bits, keys)
    keys.sort()
    order = np.empty(n, dtype=np.intp)
    _padjust.keys_to_order(p, keys, bits, order)
    return order


def _bonferroni(p, n, alpha):
    return np.minimum(1.0, n * p)


def _sidak(p, n, alpha):
    # 1 - (1 - p)^n without cancellation for small p; p = 1 gives log1p(-1) = -inf and 1, as it should
    with np.errstate(divide="ignore"):
        return -np.expm1(n * np.log1p(-p))


def _scan(kernel):
    def adjust(p, n, alpha):
        out = np.empty_like(p)
        kernel(p, _argsort(p), float(n), out)
        return out
    return adjust


def _step_up_factor(factor_of_n: Callable[[float], float]):
    def adjust(p, n, alpha):
        out = np.empty_like(p)
        _padjust.step_up(p, _argsort(p), float(n), factor_of_n(n), out)
        return out
    return adjust


def _by_factor(n: float) -> float:
    # R: q <- sum(1/(1L:n)); R's sum() accumulates in long double, so does the kernel
    return _padjust.harmonic_sum(int(n))


def _hommel(p, n, alpha):
    lp = p.size
    order = _argsort(p)
    ps = p[order]
    if n > lp:  # R pads the untested hypotheses with p = 1
        ps = np.concatenate([ps, np.ones(int(n) - lp)])
    adj = np.empty_like(ps)
    _padjust.hommel_sorted(ps, adj)
    out = np.empty_like(p)
    out[order] = adj[:lp]
    return out


def _bky(p, n, alpha):
    # Benjamini, Krieger & Yekutieli (2006), Definition 6, as adjusted p-values the way statsmodels'
    # fdrcorrection_twostage(method="bky") reports them: BH at alpha/(1+alpha) gives r1 rejections,
    # then the BH values are rescaled by the estimated null fraction (n - r1)/n and by (1 + alpha).
    bh = _step_up_factor(lambda n: 1.0)(p, n, alpha)
    alpha_prime = alpha / (1.0 + alpha)
    r1 = int(np.count_nonzero(bh <= alpha_prime))
    if r1 == 0 or r1 == n:
        out = bh * (1.0 + alpha)
    else:
        out = bh * ((n - r1) * 1.0 / n)
        out *= 1.0 + alpha
    np.minimum(out, 1.0, out=out)
    return out


# ---- adaptive step-ups with adjusted p-values (issue 31, section 3) ---------------------------
# multtest's mt.rawp2adjp "ABH" and "TSBH" and mutoss's BlaRoq, each computed as its reference
# computes it; their rejection sets and pi0 are reported by fdr_adaptive (statcore/multitest/_adaptive.py).

def _bh_with_order(p: np.ndarray, n: float) -> tuple[np.ndarray, np.ndarray]:
    """(ascending order, BH-adjusted p-values) from one sort: R's p.adjust(p, "BH") bit for bit."""
    order = _argsort(p)
    bh = np.empty_like(p)
    _padjust.step_up(p, order, float(n), 1.0, bh)
    return order, bh


def _abh_h0(ps: np.ndarray, m: int, grab_after: bool) -> float:
    """The number of true nulls of Benjamini & Hochberg (2000) from sorted p-values.

    h0.m[k] = (m + 1 - k) / (1 - p_(k)); j = the first k at which h0.m increases. multtest's
    ``mt.rawp2adjp`` takes h0.m[j - 1] (``grab_after=False``; where h0.m never increases it returns
    NA, here the conservative m), mutoss's ``ABH_pi0_est`` h0.m[j] (falling back to h0.m[2]); both
    return ceiling(min(h0.m[grab], m)).
    """
    k = np.arange(1, m + 1, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        h0m = ((m + 1) - k) / (1.0 - ps)
        rises = np.flatnonzero(np.diff(h0m) > 0)
    if grab_after:
        grab = rises[0] + 1 if rises.size else 1
        if grab >= m:                          # m = 1: R indexes past the end (NA): no estimate
            return float(m)
    else:
        if not rises.size:
            return float(m)
        grab = rises[0]
    return float(math.ceil(min(h0m[grab], m)))


def _abh(p, n, alpha):
    # multtest::mt.rawp2adjp(proc = "ABH"): tmp * h0.ABH / mgood, tmp the BH-adjusted p-values
    order, bh = _bh_with_order(p, n)
    h0 = _abh_h0(p[order], p.size, grab_after=False)
    return bh * h0 / n


def _tsbh_h0(bh: np.ndarray, alpha: float) -> int:
    # multtest: h0.TSBH = mgood - sum(tmp < alpha / (1 + alpha)) (strictly below)
    return int(bh.size - np.count_nonzero(bh < alpha / (1 + alpha)))


def _tsbh(p, n, alpha):
    # multtest::mt.rawp2adjp(proc = "TSBH", alpha): tmp * h0.TSBH / mgood
    _, bh = _bh_with_order(p, n)
    return bh * _tsbh_h0(bh, alpha) / n


def _blaroq_precritical(k: int) -> np.ndarray:
    # mutoss::BlaRoq's default prior pii_i = exp(-i / (0.15 k)), normalised; cumsum(i pii_i / k)
    # (R's sum and cumsum accumulate in long double)
    i = np.arange(1, k + 1, dtype=np.float64)
    pii = np.exp(-i / (0.15 * k))
    pii = pii / float(np.sum(pii.astype(np.longdouble)))
    return np.cumsum((i * pii / k).astype(np.longdouble)).astype(np.float64)


def _blaroq(p, n, alpha):
    # mutoss::BlaRoq: pmin(1, cummin(p[o] / precriticalValues[k:1]))[ro], o the decreasing order
    order = _argsort(p)
    ratio = p[order] / _blaroq_precritical(p.size)
    adj = np.minimum.accumulate(ratio[::-1])[::-1]
    np.minimum(adj, 1.0, out=adj)
    out = np.empty_like(p)
    out[order] = adj
    return out


_METHODS: dict[str, Callable[[np.ndarray, float, float], np.ndarray]] = {
    "holm": _scan(_padjust.holm),
    "hochberg": _scan(_padjust.hochberg),
    "hommel": _hommel,
    "bonferroni": _bonferroni,
    "BH": _step_up_factor(lambda n: 1.0),
    "BY": _step_up_factor(_by_factor),
    "fdr": _step_up_factor(lambda n: 1.0),
    "none": lambda p, n, alpha: p.copy(),
    "sidak": _sidak,
    "holm-sidak": _scan(_padjust.holm_sidak),
    "BKY": _bky,
    # adaptive step-ups (issue 31, section 3)
    "ABH": _abh,
    "TSBH": _tsbh,
    "BlaRoq": _blaroq,
}

#: methods whose definition has no room for untested hypotheses: ``n`` must be the number of p-values
_N_IS_M = ("ABH", "TSBH", "BlaRoq")

#: The methods ``p_adjust`` knows: R's ``p.adjust.methods`` first, then statcore's additions.
p_adjust_methods: tuple[str, ...] = tuple(_METHODS)

# statsmodels' ``multipletests`` names, so code moving over keeps working
_ALIASES = {
    "b": "bonferroni", "bonf": "bonferroni",
    "s": "sidak",
    "h": "holm",
    "hs": "holm-sidak",
    "sh": "hochberg", "simes-hochberg": "hochberg",
    "ho": "hommel",
    "fdr_bh": "BH", "fdr_i": "BH", "fdr_p": "BH", "fdri": "BH", "fdrp": "BH", "bh": "BH",
    "fdr_by": "BY", "fdr_n": "BY", "fdr_c": "BY", "fdrn": "BY", "fdrcorr": "BY", "by": "BY",
    "fdr_tsbky": "BKY", "fdr_2sbky": "BKY", "fdr_twostage": "BKY", "bky": "BKY",
}


def _adjust_vector(p: np.ndarray, method: str, n: int | None, alpha: float) -> np.ndarray:
    nan = np.isnan(p)
    has_nan = bool(nan.any())
    pv = p[~nan] if has_nan else p
    lp = pv.size
    nn = lp if n is None else check_p_adjust_n(n, lp)
    if method in _N_IS_M and nn != lp:
        raise ValueError(f"n must equal the number of non-NaN p-values ({lp}) for method={method!r}, got {nn}: "
                         "its reference has no untested hypotheses")
    if nn <= 1:  # R returns p unchanged
        return p.copy()
    if method == "hommel" and nn == 2:  # as R: Hommel equals Hochberg for two tests
        method = "hochberg"
    adj = _METHODS[method](np.ascontiguousarray(pv), nn, alpha)
    if not has_nan:
        return adj
    out = np.full_like(p, np.nan)
    out[~nan] = adj
    return out


def p_adjust(p: Any, *, method: str = "holm", n: int | None = None, axis: int | None = None,
             alpha: float = 0.05) -> Any:
    """Adjust p-values for multiple comparisons, as R's ``p.adjust``.

    Parameters
    ----------
    p : array_like, pandas Series/DataFrame or dask array
        p-values in [0, 1]. NaN (R's ``NA``) is omitted from the adjustment and kept as NaN, as
        ``p.adjust`` does (R's NA rule, hence no ``nan_policy``); so are the masked elements of a
        numpy masked array (NaN in the returned ndarray, not counted in ``n``). A ``dask.array`` (any shape and
        chunks, ``axis=None``) gives a lazy dask array of the same chunks, equal bit for bit to the
        in-memory result, for ``"bonferroni"``, ``"holm"``, ``"hochberg"``, ``"BH"``, ``"BY"`` and
        ``"none"``: the ranks come from a distributed sort (per-chunk sorts, buckets cut at sampled
        splitters, running extremes passed between buckets), so no task holds more than about two
        chunks' worth of values and nothing gathers the whole vector; values outside [0, 1] raise
        when the result is computed.
    method : str, keyword-only
        One of ``statcore.p_adjust_methods``: R's ``"holm"``, ``"hochberg"``, ``"hommel"``,
        ``"bonferroni"``, ``"BH"`` (alias ``"fdr"``), ``"BY"``, ``"none"``, and ``"sidak"``,
        ``"holm-sidak"``, ``"BKY"`` (two-stage step-up of Benjamini, Krieger & Yekutieli 2006, as
        statsmodels' ``fdrcorrection_twostage``); the adaptive step-ups ``"ABH"`` (Benjamini &
        Hochberg 2000) and ``"TSBH"`` (the two-stage BKY 2006 procedure) as Bioconductor multtest's
        ``mt.rawp2adjp`` adjusts them, and ``"BlaRoq"`` (the step-up of Blanchard & Roquain 2008 for
        arbitrary dependence with mutoss's default prior) as mutoss's ``BlaRoq``; their pi0 and
        rejections: :func:`statcore.fdr_adaptive`. TSBH rejects where BH-adjusted p times h0/m is
        ``<= alpha`` with h0 = m - #{BH-adjusted < alpha/(1 + alpha)}; BKY compares with
        alpha/(1 + alpha) in both stages, so TSBH rejects at least as many.
        statsmodels' names (``"fdr_bh"``, ``"hs"``, ``"fdr_tsbky"``, ...) are accepted as aliases.
    n : int, optional
        Number of comparisons; defaults to the number of non-NaN values (per slice when ``axis`` is
        given). It may be larger (untested hypotheses count, as in R), not smaller.
    axis : int, optional
        Adjust along this axis separately for every other index; ``None`` adjusts all values
        together, whatever the shape.
    alpha : float
        Only for ``"BKY"`` and ``"TSBH"``, whose adjusted values depend on the target level (as in
        statsmodels and multtest); reject where the adjusted value is ``<= alpha``.

    Returns
    -------
    ndarray, float, pandas Series or DataFrame
        Adjusted p-values of the same shape and container as ``p`` (the same pandas index/columns).

    Notes
    -----
    On a dask cluster, ``p_adjust(da.from_zarr(...), method="BH")`` adjusts more p-values than
    one machine's memory holds; see ``docs/scaleout.md``.

    Hommel's method runs in O(n log n) (Meijer, Krebs & Goeman 2019) instead of R's O(n^2).
    The arithmetic of every R method is done in R's order, so results agree with R to the last
    bits, not just to rounding.

    References
    ----------
    R Core Team, ``stats::p.adjust``. Holm (1979); Hochberg (1988); Hommel (1988);
    Benjamini & Hochberg (1995); Benjamini & Yekutieli (2001); Benjamini, Krieger & Yekutieli (2006);
    Meijer, Krebs & Goeman (2019), Biometrical Journal 61:73. Benjamini & Hochberg (2000), JEBS 25:60;
    Bioconductor multtest 2.54 ``mt.rawp2adjp`` (ABH, TSBH); Blanchard & Roquain (2008), EJS 2:963,
    CRAN mutoss 0.1-12 ``BlaRoq``. Shi & Schaeffer (1992), Parallel sorting
    by regular sampling, J. Parallel Distrib. Comput. 14:361 (the dask path's distributed sort).

    Examples
    --------
    >>> import statcore as sc
    >>> sc.p_adjust([0.01, 0.02, 0.03, 0.04, 0.05], method="BH")
    array([0.05, 0.05, 0.05, 0.05, 0.05])
    >>> sc.p_adjust([0.01, float("nan"), 0.04], method="holm")
    array([0.02,  nan, 0.04])
    """
    method = check_choice(method, "method", p_adjust_methods, _ALIASES)
    if n is not None:
        n = check_positive_int(n, "n", minimum=0)
    if method in ("BKY", "TSBH"):
        alpha = check_probability(alpha, "alpha", open_right=True)
    if is_dask_array(p):
        if method not in DASK_METHODS:
            raise ValueError(f"method={method!r} is not available for a dask array; use one of "
                             f"{sorted(set(DASK_METHODS) - {'fdr'})} or compute p first")
        if axis is not None:
            raise ValueError("axis must be None for a dask array (all values are adjusted together)")
        return p_adjust_dask(p, method, n)
    wrapper = InputWrapper.of(p)
    arr = as_pvalues(p, "p")
    axis = check_axis(axis, arr.ndim)
    if arr.ndim == 0:
        out = _adjust_vector(arr.reshape(1), method, n, alpha).reshape(())
    elif axis is None or arr.ndim == 1:
        out = _adjust_vector(arr.ravel(), method, n, alpha).reshape(arr.shape)
    else:
        moved = np.moveaxis(arr, axis, -1)
        flat = moved.reshape(-1, moved.shape[-1])
        res = np.empty_like(flat)
        for i in range(flat.shape[0]):
            res[i] = _adjust_vector(np.ascontiguousarray(flat[i]), method, n, alpha)
        out = np.moveaxis(res.reshape(moved.shape), -1, axis)
    return wrapper.wrap(out)


