"""Multiple testing: FWER and FDR adjustments, Storey's q-values, local FDR, Bayesian FDR selection.

``p_adjust`` follows R's ``stats::p.adjust`` exactly (NaN omitted, ``n`` = number of non-NaN values
by default, the same arithmetic in the same order); ``qvalue``/``pi0est``/``lfdr`` follow
Bioconductor's qvalue 2.30 (Storey & Tibshirani 2003); ``bfdr_select`` is the running-mean rule of
Sun & Cai (2007).
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from . import _padjust
from ._checks import (InputWrapper, as_float_array, as_pvalues, check_choice, check_positive_int,
                      check_probability)
from ._result import StatcoreWarning, TableResult
from ._r.rformat import R_DIGITS, format_number, format_table

__all__ = ["p_adjust", "p_adjust_methods", "pi0est", "qvalue", "QValueResult", "lfdr",
           "bfdr_select", "BFDRSelection", "Pi0Warning"]


class Pi0Warning(StatcoreWarning):
    """pi0 could not be estimated as R would (R stops with an error); a fallback was used."""


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
}

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
    if n is None:
        nn = lp
    elif n < lp:
        raise ValueError(f"n must be at least the number of non-NaN p-values ({lp}), got {n}")
    else:
        nn = n
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


def p_adjust(p: Any, method: str = "holm", n: int | None = None, axis: int | None = None,
             alpha: float = 0.05) -> Any:
    """Adjust p-values for multiple comparisons, as R's ``p.adjust``.

    Parameters
    ----------
    p : array_like or pandas Series/DataFrame
        p-values in [0, 1]; NaN (R's ``NA``) is omitted from the adjustment and kept as NaN.
    method : str
        One of ``statcore.p_adjust_methods``: R's ``"holm"``, ``"hochberg"``, ``"hommel"``,
        ``"bonferroni"``, ``"BH"`` (alias ``"fdr"``), ``"BY"``, ``"none"``, and ``"sidak"``,
        ``"holm-sidak"``, ``"BKY"`` (two-stage step-up of Benjamini, Krieger & Yekutieli 2006).
        statsmodels' names (``"fdr_bh"``, ``"hs"``, ``"fdr_tsbky"``, ...) are accepted as aliases.
    n : int, optional
        Number of comparisons; defaults to the number of non-NaN values (per slice when ``axis`` is
        given). It may be larger (untested hypotheses count, as in R), not smaller.
    axis : int, optional
        Adjust along this axis separately for every other index; ``None`` adjusts all values
        together, whatever the shape.
    alpha : float
        Only for ``"BKY"``, whose adjusted values depend on the target level (as in statsmodels);
        reject where the adjusted value is ``<= alpha``.

    Returns
    -------
    Adjusted p-values of the same shape (and the same pandas index/columns).

    Notes
    -----
    Hommel's method runs in O(n log n) (Meijer, Krebs & Goeman 2019) instead of R's O(n^2).
    The arithmetic of every R method is done in R's order, so results agree with R to the last
    bits, not just to rounding.

    References
    ----------
    R Core Team, ``stats::p.adjust``. Holm (1979); Hochberg (1988); Hommel (1988);
    Benjamini & Hochberg (1995); Benjamini & Yekutieli (2001); Benjamini, Krieger & Yekutieli (2006);
    Meijer, Krebs & Goeman (2019), Biometrical Journal 61:73.

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
    if method == "BKY":
        alpha = check_probability(alpha, "alpha", open_right=True)
    wrapper = InputWrapper.of(p)
    arr = as_pvalues(p, "p")
    if arr.ndim == 0:
        out = _adjust_vector(arr.reshape(1), method, n, alpha).reshape(())
    elif axis is None or arr.ndim == 1:
        if axis is not None and axis not in (0, -1):
            raise ValueError(f"axis {axis} is out of range for a 1-dimensional p")
        out = _adjust_vector(arr.ravel(), method, n, alpha).reshape(arr.shape)
    else:
        if not -arr.ndim <= axis < arr.ndim:
            raise ValueError(f"axis {axis} is out of range for p with {arr.ndim} dimensions")
        moved = np.moveaxis(arr, axis, -1)
        flat = moved.reshape(-1, moved.shape[-1])
        res = np.empty_like(flat)
        for i in range(flat.shape[0]):
            res[i] = _adjust_vector(np.ascontiguousarray(flat[i]), method, n, alpha)
        out = np.moveaxis(res.reshape(moved.shape), -1, axis)
    return wrapper.wrap(out)


# ----------------------------------------------------------------------------------------------
# pi0, q-values, local FDR (Bioconductor qvalue 2.30)
# ----------------------------------------------------------------------------------------------

_DEFAULT_LAMBDA = np.arange(0.05, 0.96, 0.05)


@dataclass(frozen=True)
class Pi0Estimate:
    """The result of ``pi0est``: ``pi0``, the raw ``pi0_lambda`` per ``lambda_``, the smoothed curve."""

    pi0: float
    pi0_lambda: np.ndarray
    lambda_: np.ndarray
    pi0_smooth: np.ndarray | None
    method: str


def _lambda_grid(lambda_: Any) -> np.ndarray:
    lam = as_float_array(lambda_, "lambda_").ravel()
    lam = np.sort(lam)
    if lam.size == 0:
        raise ValueError("lambda_ must contain at least one value")
    if 1 < lam.size < 4:
        raise ValueError(f"lambda_ must be a single value or at least 4 values, got {lam.size}")
    if lam[0] < 0 or lam[-1] >= 1:
        raise ValueError("lambda_ must lie within [0, 1)")
    return lam


def _pi0_from_clean(p_sorted: np.ndarray, lam: np.ndarray, pi0_method: str, smooth_df: float,
                    smooth_log_pi0: bool) -> Pi0Estimate:
    m = p_sorted.size
    # number of p >= lambda_i (R: cumsum of tabulate(findInterval(p, lambda)) from the top)
    counts = m - np.searchsorted(p_sorted, lam, side="left")
    pi0_lambda = counts / (m * (1.0 - lam))
    smooth = None
    if lam.size == 1:
        pi0 = min(float(pi0_lambda[0]), 1.0)
        method = "lambda"
    elif counts[-1] == 0:
        # R: tabulate() is then shorter than lambda and smooth.spline stops on the NA it makes
        warnings.warn(f"no p-value is >= max(lambda_) = {lam[-1]:g}; pi0 cannot be estimated as "
                      "qvalue does (R stops here); using pi0 = 1", Pi0Warning, stacklevel=3)
        return Pi0Estimate(1.0, pi0_lambda, lam, None, "fallback")
    elif pi0_method == "smoother":
        from ._r.smoothspline import smooth_spline

        y = np.log(pi0_lambda) if smooth_log_pi0 else pi0_lambda
        fit = smooth_spline(lam, y, df=smooth_df)
        smooth = fit.predict(lam)
        if smooth_log_pi0:
            smooth = np.exp(smooth)
        pi0 = min(float(smooth[-1]), 1.0)
        method = "smoother"
    else:
        minpi0 = float(np.quantile(pi0_lambda, 0.1))
        W = counts.astype(np.float64)
        mse = (W / (m ** 2 * (1.0 - lam) ** 2)) * (1.0 - W / m) + (pi0_lambda - minpi0) ** 2
        pi0 = min(float(np.min(pi0_lambda[mse == mse.min()])), 1.0)
        method = "bootstrap"
    if not pi0 > 0:
        warnings.warn(f"the estimated pi0 is {pi0:g} <= 0 (R stops here); using pi0 = 1",
                      Pi0Warning, stacklevel=3)
        pi0, method = 1.0, "fallback"
    return Pi0Estimate(pi0, pi0_lambda, lam, smooth, method)


def pi0est(p: Any, lambda_: Any = _DEFAULT_LAMBDA, pi0_method: str = "smoother",
           smooth_df: float = 3, smooth_log_pi0: bool = False) -> Pi0Estimate:
    """Proportion of true null hypotheses, as qvalue's ``pi0est`` (Storey & Tibshirani 2003).

    pi0(lambda) = #{p >= lambda} / (m (1 - lambda)) on a grid of lambda; ``"smoother"`` takes a
    cubic smoothing spline with ``smooth_df`` degrees of freedom through pi0(lambda) (R's
    ``smooth.spline``, reproduced exactly) evaluated at max(lambda); ``"bootstrap"`` the
    closed-form MSE rule of Storey, Taylor & Siegmund (2004); a single lambda gives pi0(lambda).
    Capped at 1. NaN p-values are omitted.

    Where R stops with an error (no p-value >= max(lambda); an estimate <= 0) a ``Pi0Warning`` is
    issued and pi0 = 1 is returned (the conservative choice, equal to BH).

    Examples
    --------
    >>> import numpy as np, statcore as sc
    >>> p = np.r_[np.linspace(0.0005, 0.01, 200), np.linspace(0.0005, 0.9995, 800)]
    >>> round(sc.pi0est(p).pi0, 3)
    0.8
    """
    lam = _lambda_grid(lambda_)
    pi0_method = check_choice(pi0_method, "pi0_method", ("smoother", "bootstrap"))
    arr = as_pvalues(p, "p").ravel()
    arr = arr[~np.isnan(arr)]
    if arr.size == 0:
        raise ValueError("p contains no non-NaN p-values")
    return _pi0_from_clean(np.sort(arr), lam, pi0_method, float(smooth_df), bool(smooth_log_pi0))


def _lfdr_clean(p: np.ndarray, pi0: float, trunc: bool, monotone: bool, transf: str, adj: float,
                eps: float) -> np.ndarray:
    from scipy.special import ndtri

    from ._r.density import density
    from ._r.smoothspline import smooth_spline

    if p.size < 2:
        warnings.warn("local FDR needs at least 2 p-values for its density estimate (R stops "
                      "here); returning lfdr = 1", Pi0Warning, stacklevel=3)
        return np.ones_like(p)
    # in-place arithmetic throughout: a few arrays of n doubles at the peak, not a dozen
    if transf == "probit":
        x = np.maximum(p, eps)
        np.minimum(x, 1.0 - eps, out=x)
        ndtri(x, out=x)
        gx, gy = density(x, adjust=adj)
        y = smooth_spline(gx, gy, df=None).predict(x)
        out = x * x                       # R: pi0 * dnorm(x) / y
        out *= -0.5
        np.exp(out, out=out)
        out *= 1.0 / math.sqrt(2.0 * math.pi)
        out *= pi0
        out /= y
    else:
        x = np.log((p + eps) / (1.0 - p + eps))
        gx, gy = density(x, adjust=adj)
        y = smooth_spline(gx, gy, df=None).predict(x)
        ex = np.exp(x)
        out = (pi0 * (ex / (1.0 + ex) ** 2)) / y
    del y
    if trunc:
        np.minimum(out, 1.0, out=out)
    if monotone:
        o = _argsort(p)
        mono = out[o]
        np.maximum.accumulate(mono, out=mono)
        out[o] = mono
    return out


def lfdr(p: Any, pi0: float | None = None, trunc: bool = True, monotone: bool = True,
         transf: str = "probit", adj: float = 1.5, eps: float = 1e-8, **pi0est_args) -> Any:
    """Local false discovery rates, as qvalue's ``lfdr`` (Efron et al. 2001; Storey 2011).

    The p-values are mapped to z = qnorm(p) (``transf="probit"``) or to logits, their density is
    estimated by R's ``density(adjust = adj)`` smoothed by ``smooth.spline`` (GCV), and
    lfdr = pi0 * f0(z) / f(z), truncated at 1 and made monotone in p. ``pi0`` defaults to
    ``pi0est(p, **pi0est_args).pi0``. NaN p-values stay NaN. A Series in gives a Series out.

    Examples
    --------
    >>> import numpy as np, statcore as sc
    >>> p = np.r_[np.linspace(0.0005, 0.01, 200), np.linspace(0.0005, 0.9995, 800)]
    >>> bool(np.all(np.diff(sc.lfdr(p)[np.argsort(p)]) >= 0))
    True
    """
    transf = check_choice(transf, "transf", ("probit", "logit"))
    wrapper = InputWrapper.of(p)
    arr = as_pvalues(p, "p")
    flat = arr.ravel()
    keep = ~np.isnan(flat)
    pv = flat[keep]
    if pv.size == 0:
        raise ValueError("p contains no non-NaN p-values")
    if pi0 is None:
        pi0 = pi0est(pv, **pi0est_args).pi0
    else:
        pi0 = check_probability(pi0, "pi0")
    vals = _lfdr_clean(pv, float(pi0), trunc, monotone, transf, float(adj), float(eps))
    out = np.full(flat.shape, np.nan)
    out[keep] = vals
    return wrapper.wrap(out.reshape(arr.shape))


@dataclass(frozen=True, eq=False)
class QValueResult(TableResult):
    """Storey's q-values, as R's ``qvalue`` object.

    Attributes: ``pvalues``, ``qvalues``, ``lfdr`` (same container as the input), ``pi0``,
    ``pi0_lambda``, ``lambda_``, ``pi0_smooth``, ``fdr_level``, ``significant`` (``qvalues <=
    fdr_level``, False where p is NaN; None without ``fdr_level``), ``call`` (for the printout).
    """

    pvalues: Any
    qvalues: Any
    lfdr: Any
    pi0: float
    pi0_lambda: np.ndarray | None
    lambda_: np.ndarray | None
    pi0_smooth: np.ndarray | None
    fdr_level: float | None
    significant: Any
    call: str

    def counts(self, cuts=(1e-4, 0.001, 0.01, 0.025, 0.05, 0.1, 1.0)):
        """R's "Cumulative number of significant calls" as a DataFrame (rows p-value, q-value, local FDR)."""
        import pandas as pd

        p = np.asarray(self.pvalues, dtype=float).ravel()
        keep = ~np.isnan(p)
        rows = {"p-value": p[keep], "q-value": np.asarray(self.qvalues, dtype=float).ravel()[keep]}
        if self.lfdr is not None:
            rows["local FDR"] = np.asarray(self.lfdr, dtype=float).ravel()[keep]
        cols = ["<" + _r_as_character(c) for c in cuts]
        data = {name: [int(np.count_nonzero(v < c)) for c in cuts] for name, v in rows.items()}
        return pd.DataFrame.from_dict(data, orient="index", columns=cols)

    def summary(self, cuts=(1e-4, 0.001, 0.01, 0.025, 0.05, 0.1, 1.0), digits: int = R_DIGITS) -> str:
        tab = self.counts(cuts)
        body = format_table(list(tab.index), {c: [int(v) for v in tab[c]] for c in tab.columns})
        return ("\nCall:\n" + self.call + "\n\n"
                + "pi0:\t" + format_number(self.pi0, digits) + "\t\n\n"
                + "Cumulative number of significant calls:\n\n" + body + "\n\n")

    def __str__(self) -> str:
        return self.summary()

    def to_frame(self):
        import pandas as pd

        idx = self.pvalues.index if hasattr(self.pvalues, "index") else None
        cols = {"pvalue": np.asarray(self.pvalues, dtype=float).ravel(),
                "qvalue": np.asarray(self.qvalues, dtype=float).ravel()}
        if self.lfdr is not None:
            cols["lfdr"] = np.asarray(self.lfdr, dtype=float).ravel()
        if self.significant is not None:
            cols["significant"] = np.asarray(self.significant, dtype=bool).ravel()
        return pd.DataFrame(cols, index=idx)

    def _plot(self, ax=None, rng=(0.0, 0.1)):
        """The four panels of R's ``plot.qvalue``: pi0(lambda), q vs p, significant calls, expected FPs."""
        import matplotlib.pyplot as plt

        p = np.asarray(self.pvalues, dtype=float).ravel()
        q = np.asarray(self.qvalues, dtype=float).ravel()
        keep = ~np.isnan(p)
        o = np.argsort(p[keep], kind="stable")
        p_ord, q_ord = p[keep][o], q[keep][o]
        lo, hi = rng
        if q_ord.min() > hi:
            lo, hi = q_ord.min(), float(np.quantile(q_ord, 0.1))
        sel = (q_ord >= lo) & (q_ord <= hi)
        start = 1 + int(np.count_nonzero(q_ord < lo))
        sig = np.arange(start, int(np.count_nonzero(q_ord <= hi)) + 1)
        if ax is None:
            fig, axes = plt.subplots(2, 2, figsize=(9, 7))
        else:
            axes = np.asarray(ax)
            fig = axes.ravel()[0].figure
        a1, a2, a3, a4 = axes.ravel()
        if self.lambda_ is not None and self.pi0_lambda is not None:
            a1.plot(self.lambda_, self.pi0_lambda, "ko", ms=4)
            if self.pi0_smooth is not None:
                a1.plot(self.lambda_, self.pi0_smooth, "r-")
        a1.axhline(self.pi0, color="r", ls="--", lw=0.8)
        a1.set_xlabel(r"$\lambda$")
        a1.set_ylabel(r"$\hat\pi_0(\lambda)$")
        a1.set_title(rf"$\hat\pi_0 = {self.pi0:.3f}$", fontsize=10)
        qs = q_ord[sel]
        a2.plot(p_ord[sel], qs, "k-")
        a2.set_xlabel("p-value")
        a2.set_ylabel("q-value")
        n_line = min(qs.size, sig.size)
        a3.plot(qs[:n_line], sig[:n_line], "k-")
        a3.set_xlabel("q-value cut-off")
        a3.set_ylabel("significant tests")
        a4.plot(sig[:n_line], qs[:n_line] * sig[:n_line], "k-")
        a4.set_xlabel("significant tests")
        a4.set_ylabel("expected false positives")
        fig.tight_layout()
        return fig


def _expand(values: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Values of the non-NaN positions back in place, NaN elsewhere."""
    out = np.full(keep.shape, np.nan)
    out[keep] = values
    return out


def _r_as_character(x: float) -> str:
    """R's as.character() of a cut point: 15 significant digits, R's choice of notation."""
    s = format_number(x, 15)
    return s


def qvalue(p: Any, fdr_level: float | None = None, pfdr: bool = False, lfdr_out: bool = True,
           pi0: float | None = None, lambda_: Any = _DEFAULT_LAMBDA, pi0_method: str = "smoother",
           smooth_df: float = 3, smooth_log_pi0: bool = False, trunc: bool = True,
           monotone: bool = True, transf: str = "probit", adj: float = 1.5,
           eps: float = 1e-8) -> QValueResult:
    """Storey's q-values, local FDR and pi0, as Bioconductor ``qvalue::qvalue`` 2.30.

    q_(i) = pi0 * min(1, min_{j >= i} p_(j) m / j) (with ``pfdr=True`` the positive-FDR version
    divides by 1 - (1 - p)^m; at p = 0, where R returns NaN from 0/0, statcore uses the limit
    1 / rank). ``pi0`` is estimated by :func:`pi0est` unless given; local FDR by
    :func:`lfdr`. NaN p-values are omitted and stay NaN.

    Returns
    -------
    QValueResult
        ``summary()`` prints R's table of cumulative significant calls; ``plot()`` R's four panels.

    References
    ----------
    Storey & Tibshirani (2003), PNAS 100:9440. Storey (2002), JRSS-B 64:479.

    Examples
    --------
    >>> import numpy as np, statcore as sc
    >>> p = np.r_[np.linspace(0.0005, 0.01, 200), np.linspace(0.0005, 0.9995, 800)]
    >>> res = sc.qvalue(p, fdr_level=0.05)
    >>> int(res.significant.sum()), round(res.pi0, 6)
    (211, 0.8)
    """
    wrapper = InputWrapper.of(p)
    arr = as_pvalues(p, "p")
    if fdr_level is not None:
        fdr_level = check_probability(fdr_level, "fdr_level")
    flat = arr.ravel()
    keep = ~np.isnan(flat)
    pv = flat if keep.all() else flat[keep]
    pv = np.ascontiguousarray(pv)
    m = pv.size
    if m == 0:
        raise ValueError("p contains no non-NaN p-values")
    order = _argsort(pv)
    p_sorted = pv[order]
    if pi0 is None:
        lam = _lambda_grid(lambda_)
        pi0_method = check_choice(pi0_method, "pi0_method", ("smoother", "bootstrap"))
        est = _pi0_from_clean(p_sorted, lam, pi0_method, float(smooth_df), bool(smooth_log_pi0))
    else:
        if not (isinstance(pi0, (int, float, np.floating)) and 0 < pi0 <= 1):
            raise ValueError(f"pi0 must lie in (0, 1], got {pi0!r}")
        est = Pi0Estimate(float(pi0), None, None, None, "given")
    # R: i <- m:1; o <- order(p, decreasing = TRUE); pi0 * pmin(1, cummin(p[o] * m / i))
    q = p_sorted[::-1] * m
    if pfdr:
        i = np.arange(m, 0, -1, dtype=np.float64)
        den = i * (1.0 - (1.0 - p_sorted[::-1]) ** m)
        zero = den == 0
        if zero.any():
            # p = 0 (or 1 - (1-p)^m underflowing): R divides 0 by 0 and its NaN then runs through
            # cummin; statcore uses the limit p m / (i m p) = 1 / i instead
            den[zero] = 1.0
            q[zero] = 1.0 / i[zero]
        q /= den
        del i, den
    else:
        q /= np.arange(m, 0, -1, dtype=np.float64)
    np.minimum.accumulate(q, out=q)
    np.minimum(q, 1.0, out=q)
    q *= est.pi0
    qv = np.empty(m)
    qv[order[::-1]] = q
    del q, p_sorted
    q_full = qv if pv.size == flat.size else _expand(qv, keep)
    lf_full = None
    if lfdr_out:
        transf = check_choice(transf, "transf", ("probit", "logit"))
        lf = _lfdr_clean(pv, est.pi0, trunc, monotone, transf, float(adj), float(eps))
        lf_full = lf if pv.size == flat.size else _expand(lf, keep)
    sig = None
    if fdr_level is not None:
        sig = np.zeros(flat.shape, dtype=bool)
        sig[keep] = qv <= fdr_level
        sig = wrapper.wrap(sig.reshape(arr.shape))
    call_args = ["p = p"]
    if fdr_level is not None:
        call_args.append(f"fdr_level = {format_number(fdr_level)}")
    if pi0_method != "smoother" and pi0 is None:
        call_args.append(f'pi0_method = "{pi0_method}"')
    if pfdr:
        call_args.append("pfdr = TRUE")
    return QValueResult(
        pvalues=p, qvalues=wrapper.wrap(q_full.reshape(arr.shape)),
        lfdr=None if lf_full is None else wrapper.wrap(lf_full.reshape(arr.shape)),
        pi0=est.pi0, pi0_lambda=est.pi0_lambda, lambda_=est.lambda_, pi0_smooth=est.pi0_smooth,
        fdr_level=fdr_level, significant=sig, call="qvalue(" + ", ".join(call_args) + ")",
    )


# ----------------------------------------------------------------------------------------------
# Bayesian FDR selection from local FDRs (Sun & Cai 2007)
# ----------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class BFDRSelection(TableResult):
    """Selection by the running mean of sorted local FDRs.

    ``selected`` (bool, input's container), ``qvalues`` (the running mean at each unit's rank, the
    smallest target level at which it would be selected), ``n_selected``, ``alpha``, ``threshold``
    (largest selected lfdr, NaN if none), ``expected_fdr`` (mean lfdr of the selection).
    """

    selected: Any
    qvalues: Any
    lfdr: Any
    alpha: float
    n_selected: int
    threshold: float
    expected_fdr: float

    def summary(self) -> str:
        n = int(np.size(np.asarray(self.lfdr)))
        thr = "none" if self.n_selected == 0 else format_number(self.threshold)
        efdr = "0" if self.n_selected == 0 else format_number(self.expected_fdr)
        return ("\n\tBayesian FDR selection (Sun & Cai 2007)\n\n"
                f"target level: {format_number(self.alpha)}\n"
                f"selected: {self.n_selected} of {n}\n"
                f"lfdr threshold: {thr}\n"
                f"expected FDR of the selection: {efdr}\n")

    def to_frame(self):
        import pandas as pd

        idx = self.lfdr.index if hasattr(self.lfdr, "index") else None
        return pd.DataFrame({"lfdr": np.asarray(self.lfdr, dtype=float).ravel(),
                             "qvalue": np.asarray(self.qvalues, dtype=float).ravel(),
                             "selected": np.asarray(self.selected, dtype=bool).ravel()}, index=idx)

    def _plot(self, ax=None):
        import matplotlib.pyplot as plt

        q = np.sort(np.asarray(self.qvalues, dtype=float).ravel())
        if ax is None:
            fig, ax = plt.subplots(figsize=(5, 4))
        ax.plot(np.arange(1, q.size + 1), q, "k-")
        ax.axhline(self.alpha, color="r", ls="--", lw=0.8)
        ax.axvline(self.n_selected, color="grey", ls=":", lw=0.8)
        ax.set_xlabel("number selected")
        ax.set_ylabel("running mean of local FDR")
        return ax.figure


def bfdr_select(lfdr: Any, alpha: float = 0.1) -> BFDRSelection:
    """Select the units with the smallest local FDRs while their mean stays at or below ``alpha``.

    Sort the local FDRs, take the running mean q_(k) = (1/k) sum_{j <= k} lfdr_(j), and select the
    longest prefix with q_(k) <= alpha (Sun & Cai 2007, the adaptive oracle rule; Muller et al.
    2004). The expected proportion of false selections given the data is then at most alpha.
    Tied local FDRs are selected together or not at all: each gets the running mean at the end of
    its tie group.

    Examples
    --------
    >>> import statcore as sc
    >>> sel = sc.bfdr_select([0.01, 0.5, 0.02, 0.2, 0.9], alpha=0.1)
    >>> sel.selected
    array([ True, False,  True,  True, False])
    """
    alpha = check_probability(alpha, "alpha")
    wrapper = InputWrapper.of(lfdr)
    arr = as_float_array(lfdr, "lfdr")
    flat = arr.ravel()
    if flat.size and (flat.min() < 0 or flat.max() > 1):
        raise ValueError("lfdr must lie in [0, 1]")
    o = np.argsort(flat, kind="stable")
    s = flat[o]
    running = np.cumsum(s) / np.arange(1, s.size + 1)
    if s.size:
        # value at the end of each tie group
        last_of_group = np.r_[s[1:] != s[:-1], True]
        idx = np.flatnonzero(last_of_group)
        group_end = np.repeat(idx, np.diff(np.r_[-1, idx]))
        running = running[group_end]
    q = np.empty_like(flat)
    q[o] = running
    sel = q <= alpha
    k = int(np.count_nonzero(sel))
    thr = float(s[k - 1]) if k else float("nan")
    efdr = float(running[k - 1]) if k else 0.0
    return BFDRSelection(selected=wrapper.wrap(sel.reshape(arr.shape)),
                         qvalues=wrapper.wrap(q.reshape(arr.shape)), lfdr=lfdr, alpha=alpha,
                         n_selected=k, threshold=thr, expected_fdr=efdr)
