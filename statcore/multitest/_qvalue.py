"""Storey's q-values, the proportion of true nulls and local FDRs, as Bioconductor qvalue 2.30.

``pi0est``, ``lfdr`` and ``qvalue`` follow ``qvalue::pi0est``, ``qvalue::lfdr`` and
``qvalue::qvalue`` (Storey & Tibshirani 2003) with R's argument names in snake_case. NaN p-values
are omitted and stay NaN, as R's qvalue does with ``NA`` (R's NA rule, hence no ``nan_policy``);
so are the masked elements of a numpy masked array.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._checks import (InputWrapper, as_pvalues, check_choice, check_flag, check_lambda_grid,
                       check_nonneg_real, check_probability)
from .._r.rformat import R_DIGITS, format_number, format_numbers, format_table
from .._result import Result, StatcoreWarning
from ._padjust import _argsort

__all__ = ["pi0est", "Pi0Estimate", "lfdr", "qvalue", "QValueResult", "Pi0Warning"]

_DEFAULT_LAMBDA = np.arange(0.05, 0.96, 0.05)
_CUTS = (1e-4, 0.001, 0.01, 0.025, 0.05, 0.1, 1.0)


class Pi0Warning(StatcoreWarning):
    """pi0 could not be estimated as R would (R stops with an error); a fallback was used."""


# ----------------------------------------------------------------------------------------------
# pi0
# ----------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False, repr=False)
class Pi0Estimate(Result):
    """The estimated proportion of true null hypotheses, as qvalue's ``pi0est`` list.

    Attributes
    ----------
    pi0 : float
        The estimate, capped at 1.
    pi0_lambda : ndarray or None
        pi0(lambda) = #{p >= lambda} / (m (1 - lambda)) on the grid (R's ``pi0.lambda``).
    lambda_ : ndarray or None
        The grid of lambda (R's ``lambda``).
    pi0_smooth : ndarray or None
        The smoothing spline through pi0(lambda) (``pi0_method="smoother"`` only).
    method : str
        "smoother", "bootstrap", "lambda" (one lambda), "fallback" (where R stops) or "given".

    Examples
    --------
    >>> import numpy as np, statcore as sc
    >>> p = np.r_[np.linspace(0.0005, 0.01, 200), np.linspace(0.0005, 0.9995, 800)]
    >>> est = sc.pi0est(p, lambda_=0.5)
    >>> est
    Pi0Estimate(pi0=0.8, method='lambda', n_lambda=1)
    >>> est.to_frame()
       lambda  pi0_lambda
    0     0.5         0.8
    """

    pi0: float
    pi0_lambda: np.ndarray | None = None
    lambda_: np.ndarray | None = None
    pi0_smooth: np.ndarray | None = None
    method: str = "smoother"

    def _repr_parts(self):
        n = 0 if self.lambda_ is None else int(np.size(self.lambda_))
        return [("pi0", self.pi0), ("method", self.method), ("n_lambda", n)]

    def summary(self, digits: int = R_DIGITS) -> str:
        """A short block: pi0, how it was estimated and the lambda grid."""
        lines = ["", "\tProportion of true null hypotheses (qvalue::pi0est)", "",
                 f"pi0:    {format_number(self.pi0, digits)}", f"method: {self.method}"]
        if self.lambda_ is not None:
            lam = [v.strip() for v in format_numbers(self.lambda_, digits)]
            shown = ", ".join(lam) if len(lam) <= 6 else ", ".join(lam[:2] + ["..."] + lam[-1:])
            lines.append(f"lambda: {shown} ({len(lam)} value{'s' if len(lam) > 1 else ''})")
        return "\n".join(lines) + "\n"

    def to_frame(self):
        """One row per lambda: ``lambda``, ``pi0_lambda`` and ``pi0_smooth`` (when smoothed); one row
        with ``pi0`` and ``method`` when there is no grid."""
        import pandas as pd

        if self.lambda_ is None:
            return pd.DataFrame({"pi0": [self.pi0], "method": [self.method]})
        cols = {"lambda": np.asarray(self.lambda_, dtype=float),
                "pi0_lambda": np.asarray(self.pi0_lambda, dtype=float)}
        if self.pi0_smooth is not None:
            cols["pi0_smooth"] = np.asarray(self.pi0_smooth, dtype=float)
        return pd.DataFrame(cols)

    def _plot(self, ax=None):
        """pi0(lambda) against lambda, the smoother and the estimate (panel 1 of ``plot.qvalue``)."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(5, 4), layout="constrained")
        _draw_pi0(ax, self.pi0, self.lambda_, self.pi0_lambda, self.pi0_smooth)
        return ax


def _draw_pi0(ax, pi0, lam, pi0_lambda, pi0_smooth):
    if lam is not None and pi0_lambda is not None:
        ax.plot(lam, pi0_lambda, "ko", ms=4, label=r"$\hat\pi_0(\lambda)$ at each $\lambda$")
        if pi0_smooth is not None:
            ax.plot(lam, pi0_smooth, "r-", label="smoothing spline")
    ax.axhline(pi0, color="r", ls="--", lw=0.8, label=rf"estimate $\hat\pi_0 = {pi0:.3f}$")
    lo, hi = ax.get_ylim()
    if hi - lo < 0.05:                  # a flat pi0(lambda): a readable range, not 1e-13 offset ticks
        ax.set_ylim((lo + hi) / 2 - 0.05, (lo + hi) / 2 + 0.05)
    ax.ticklabel_format(axis="y", useOffset=False)
    ax.set_xlabel(r"$\lambda$")
    ax.set_ylabel(r"$\hat\pi_0(\lambda)$ (share of true nulls)")
    ax.set_title(rf"$\hat\pi_0 = {pi0:.3f}$", fontsize=10)
    ax.legend(fontsize="small")


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
                      "qvalue does (R stops here); using pi0 = 1", Pi0Warning, stacklevel=4)
        return Pi0Estimate(1.0, pi0_lambda, lam, None, "fallback")
    elif pi0_method == "smoother":
        from .._r.smoothspline import smooth_spline

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
                      Pi0Warning, stacklevel=4)
        pi0, method = 1.0, "fallback"
    return Pi0Estimate(pi0, pi0_lambda, lam, smooth, method)


def _pi0_options(lambda_, pi0_method, smooth_df, smooth_log_pi0):
    lam = check_lambda_grid(lambda_)
    pi0_method = check_choice(pi0_method, "pi0_method", ("smoother", "bootstrap"))
    smooth_df = check_nonneg_real(smooth_df, "smooth_df", positive=True)
    return lam, pi0_method, smooth_df, check_flag(smooth_log_pi0, "smooth_log_pi0")


def _refuse_frame(p: Any, fun: str) -> None:
    """A DataFrame holds several columns, not one family of p-values: say how to pass what is meant."""
    if hasattr(p, "columns") and getattr(p, "ndim", 1) == 2:
        raise TypeError(
            f"p is a DataFrame with {p.shape[1]} columns; {fun} treats its input as one family of "
            f"p-values. Pass one column (p[name]), p.apply(lambda col: sc.{fun}(col)...) for one family "
            f"per column, or p.stack() to pool every column as one family (as R's {fun} pools a matrix)")


def _non_nan(p: Any) -> np.ndarray:
    arr = as_pvalues(p, "p").ravel()
    arr = arr[~np.isnan(arr)]
    if arr.size == 0:
        raise ValueError("p contains no non-NaN p-values")
    return arr


def pi0est(p: Any, *, lambda_: Any = _DEFAULT_LAMBDA, pi0_method: str = "smoother",
           smooth_df: float = 3, smooth_log_pi0: bool = False) -> Pi0Estimate:
    """Proportion of true null hypotheses, as qvalue's ``pi0est`` (Storey & Tibshirani 2003).

    pi0(lambda) = #{p >= lambda} / (m (1 - lambda)) on a grid of lambda; ``"smoother"`` takes a
    cubic smoothing spline with ``smooth_df`` degrees of freedom through pi0(lambda) (R's
    ``smooth.spline``, reproduced exactly) evaluated at max(lambda); ``"bootstrap"`` the
    closed-form MSE rule of Storey, Taylor & Siegmund (2004); a single lambda gives pi0(lambda).
    Capped at 1. Where R stops with an error (no p-value >= max(lambda); an estimate <= 0) a
    ``Pi0Warning`` is issued and pi0 = 1 is returned (the conservative choice, equal to BH).

    Parameters
    ----------
    p : array_like
        p-values in [0, 1], one family (an array of any shape is pooled, as R pools a matrix; a
        DataFrame is refused: pass ``df.stack()`` or one column); NaN values are omitted (R's NA rule).
    lambda_ : float or array_like, keyword-only
        One value, or a grid of at least 4 values, in [0, 1) (R's ``lambda``).
    pi0_method : {"smoother", "bootstrap"}, keyword-only
        R's ``pi0.method``.
    smooth_df : float, keyword-only
        Degrees of freedom of the smoothing spline (R's ``smooth.df``).
    smooth_log_pi0 : bool, keyword-only
        Smooth log pi0(lambda) instead of pi0(lambda) (R's ``smooth.log.pi0``).

    Returns
    -------
    Pi0Estimate
        ``pi0``, ``pi0_lambda``, ``lambda_``, ``pi0_smooth`` and ``method``.

    References
    ----------
    Bioconductor ``qvalue::pi0est`` 2.30. Storey & Tibshirani (2003), PNAS 100:9440. Storey,
    Taylor & Siegmund (2004), JRSS-B 66:187.

    Examples
    --------
    >>> import numpy as np, statcore as sc
    >>> p = np.r_[np.linspace(0.0005, 0.01, 200), np.linspace(0.0005, 0.9995, 800)]
    >>> round(sc.pi0est(p).pi0, 3)
    0.8
    """
    lam, pi0_method, smooth_df, smooth_log_pi0 = _pi0_options(lambda_, pi0_method, smooth_df, smooth_log_pi0)
    _refuse_frame(p, "pi0est")
    arr = _non_nan(p)
    return _pi0_from_clean(np.sort(arr), lam, pi0_method, smooth_df, smooth_log_pi0)


# ----------------------------------------------------------------------------------------------
# local FDR
# ----------------------------------------------------------------------------------------------

def _lfdr_clean(p: np.ndarray, pi0: float, trunc: bool, monotone: bool, transf: str, adj: float,
                eps: float) -> np.ndarray:
    from scipy.special import ndtri

    from .._r.density import density
    from .._r.smoothspline import smooth_spline

    if p.size < 2:
        warnings.warn("local FDR needs at least 2 p-values for its density estimate (R stops "
                      "here); returning lfdr = 1", Pi0Warning, stacklevel=4)
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


def _lfdr_options(trunc, monotone, transf, adj, eps):
    return (check_flag(trunc, "trunc"), check_flag(monotone, "monotone"),
            check_choice(transf, "transf", ("probit", "logit")),
            check_nonneg_real(adj, "adj", positive=True), check_nonneg_real(eps, "eps"))


def lfdr(p: Any, *, pi0: float | None = None, trunc: bool = True, monotone: bool = True,
         transf: str = "probit", adj: float = 1.5, eps: float = 1e-8, **pi0est_args) -> Any:
    """Local false discovery rates, as qvalue's ``lfdr`` (Efron et al. 2001; Storey 2011).

    The p-values are mapped to z = qnorm(p) (``transf="probit"``) or to logits, their density is
    estimated by R's ``density(adjust = adj)`` smoothed by ``smooth.spline`` (GCV), and
    lfdr = pi0 * f0(z) / f(z), truncated at 1 and made monotone in p.

    Parameters
    ----------
    p : array_like or pandas Series
        p-values in [0, 1], one family (an array of any shape is pooled and keeps its shape; a
        DataFrame is refused: pass ``df.stack()`` or one column); NaN values are omitted and stay NaN
        (R's NA rule).
    pi0 : float, optional, keyword-only
        The proportion of true nulls in (0, 1]; default ``pi0est(p, **pi0est_args).pi0``.
    trunc : bool, keyword-only
        Truncate the local FDRs at 1.
    monotone : bool, keyword-only
        Make the local FDRs non-decreasing in p.
    transf : {"probit", "logit"}, keyword-only
        The transformation of the p-values before the density estimate.
    adj : float, keyword-only
        The bandwidth multiplier of R's ``density(adjust = adj)``.
    eps : float, keyword-only
        p-values are clipped to [eps, 1 - eps] before the transformation.
    **pi0est_args
        Passed to :func:`pi0est` when ``pi0`` is not given (``lambda_``, ``pi0_method``, ...).

    Returns
    -------
    ndarray or pandas Series
        The local FDRs, in the container and shape of ``p``.

    References
    ----------
    Bioconductor ``qvalue::lfdr`` 2.30. Efron, Tibshirani, Storey & Tusher (2001), JASA 96:1151.

    Examples
    --------
    >>> import numpy as np, statcore as sc
    >>> p = np.r_[np.linspace(0.0005, 0.01, 200), np.linspace(0.0005, 0.9995, 800)]
    >>> bool(np.all(np.diff(sc.lfdr(p)[np.argsort(p)]) >= 0))
    True
    """
    trunc, monotone, transf, adj, eps = _lfdr_options(trunc, monotone, transf, adj, eps)
    _refuse_frame(p, "lfdr")
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
    vals = _lfdr_clean(pv, float(pi0), trunc, monotone, transf, adj, eps)
    out = np.full(flat.shape, np.nan)
    out[keep] = vals
    return wrapper.wrap(out.reshape(arr.shape))


# ----------------------------------------------------------------------------------------------
# q-values
# ----------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False, repr=False)
class QValueResult(Result):
    """Storey's q-values, as R's ``qvalue`` object.

    Attributes
    ----------
    p_values, q_values, lfdr : ndarray or pandas Series
        Per-test p-values, q-values and local FDRs (``lfdr`` None with ``lfdr_out=False``), in the
        container of the input.
    pi0 : float
    pi0_lambda, lambda_, pi0_smooth : ndarray or None
        As in :class:`Pi0Estimate` (None when ``pi0`` was given).
    fdr_level : float or None
    significant : ndarray, pandas Series or None
        ``q_values <= fdr_level`` (False where p is NaN); None without ``fdr_level``.
    call : str
        The call shown by ``summary()``.

    ``summary()`` prints R's ``summary.qvalue``; ``plot()`` draws R's four panels (``plot.qvalue``)
    and returns the 2 x 2 array of Axes.

    Examples
    --------
    >>> import numpy as np, statcore as sc
    >>> p = np.r_[np.linspace(0.0005, 0.01, 200), np.linspace(0.0005, 0.9995, 800)]
    >>> res = sc.qvalue(p, fdr_level=0.05)
    >>> res
    QValueResult(pi0=0.8, m=1000, fdr_level=0.05, n_significant=211)
    >>> list(res.to_frame().columns)
    ['p_value', 'q_value', 'lfdr', 'significant']
    """

    p_values: Any
    q_values: Any
    lfdr: Any
    pi0: float
    pi0_lambda: np.ndarray | None
    lambda_: np.ndarray | None
    pi0_smooth: np.ndarray | None
    fdr_level: float | None
    significant: Any
    call: str

    def _repr_parts(self):
        p = np.asarray(self.p_values, dtype=float)
        parts = [("pi0", self.pi0), ("m", int(np.count_nonzero(~np.isnan(p))))]
        if self.fdr_level is not None:
            parts += [("fdr_level", self.fdr_level),
                      ("n_significant", int(np.count_nonzero(np.asarray(self.significant))))]
        return parts

    def counts(self, cuts=_CUTS):
        """R's "Cumulative number of significant calls" as a DataFrame (rows p-value, q-value, local FDR)."""
        import pandas as pd

        p = np.asarray(self.p_values, dtype=float).ravel()
        keep = ~np.isnan(p)
        rows = {"p-value": p[keep], "q-value": np.asarray(self.q_values, dtype=float).ravel()[keep]}
        if self.lfdr is not None:
            rows["local FDR"] = np.asarray(self.lfdr, dtype=float).ravel()[keep]
        cols = ["<" + _r_as_character(c) for c in cuts]
        data = {name: [int(np.count_nonzero(v < c)) for c in cuts] for name, v in rows.items()}
        return pd.DataFrame.from_dict(data, orient="index", columns=cols)

    def summary(self, *, cuts=_CUTS, digits: int = R_DIGITS) -> str:
        """The text of R's ``summary.qvalue``: the call, pi0 and the cumulative significant calls."""
        tab = self.counts(cuts)
        body = format_table(list(tab.index), {c: [int(v) for v in tab[c]] for c in tab.columns})
        return ("\nCall:\n" + self.call + "\n\n"
                + "pi0:\t" + format_number(self.pi0, digits) + "\t\n\n"
                + "Cumulative number of significant calls:\n\n" + body + "\n\n")

    def _html_title(self) -> str:
        return f"q-values (pi0 = {format_number(self.pi0)})"

    def to_frame(self):
        """One row per test: ``p_value``, ``q_value``, ``lfdr`` (if computed), ``significant`` (if
        ``fdr_level`` was given); the index of a Series input."""
        import pandas as pd

        idx = self.p_values.index if hasattr(self.p_values, "index") else None
        cols = {"p_value": np.asarray(self.p_values, dtype=float).ravel(),
                "q_value": np.asarray(self.q_values, dtype=float).ravel()}
        if self.lfdr is not None:
            cols["lfdr"] = np.asarray(self.lfdr, dtype=float).ravel()
        if self.significant is not None:
            cols["significant"] = np.asarray(self.significant, dtype=bool).ravel()
        return pd.DataFrame(cols, index=idx)

    def _plot(self, ax=None, *, q_range=(0.0, 0.1)):
        """The four panels of R's ``plot.qvalue`` (R's ``rng`` is ``q_range``): pi0(lambda), q vs p,
        significant calls, expected false positives; returns the 2 x 2 array of Axes."""
        import matplotlib.pyplot as plt

        p = np.asarray(self.p_values, dtype=float).ravel()
        q = np.asarray(self.q_values, dtype=float).ravel()
        keep = ~np.isnan(p)
        o = np.argsort(p[keep], kind="stable")
        p_ord, q_ord = p[keep][o], q[keep][o]
        lo, hi = q_range
        if q_ord.min() > hi:
            lo, hi = q_ord.min(), float(np.quantile(q_ord, 0.1))
        sel = (q_ord >= lo) & (q_ord <= hi)
        start = 1 + int(np.count_nonzero(q_ord < lo))
        sig = np.arange(start, int(np.count_nonzero(q_ord <= hi)) + 1)
        if ax is None:
            fig, axes = plt.subplots(2, 2, figsize=(9, 7))
        else:
            axes = np.asarray(ax, dtype=object)
            if axes.size != 4:
                raise ValueError(f"ax must hold 4 Axes (the four panels of plot.qvalue), got {axes.size}")
            axes = axes.reshape(2, 2)
            fig = axes[0, 0].figure
        a1, a2, a3, a4 = axes.ravel()
        _draw_pi0(a1, self.pi0, self.lambda_, self.pi0_lambda, self.pi0_smooth)
        qs = q_ord[sel]
        a2.plot(p_ord[sel], qs, "k-")
        a2.set_xlabel("p-value")
        a2.set_ylabel("q-value")
        a2.set_title(f"q-values with q in [{lo:g}, {hi:g}]", fontsize=10)
        n_line = min(qs.size, sig.size)
        a3.plot(qs[:n_line], sig[:n_line], "k-")
        a3.set_xlabel("q-value cut-off")
        a3.set_ylabel("significant tests")
        a3.set_title("significant tests by q-value cut-off", fontsize=10)
        a4.plot(sig[:n_line], qs[:n_line] * sig[:n_line], "k-")
        a4.set_xlabel("significant tests")
        a4.set_ylabel("expected false positives")
        a4.set_title("expected false positives", fontsize=10)
        fig.suptitle(f"q-values of {keep.sum():,} tests (R's plot.qvalue)")
        fig.tight_layout()
        return axes


def _expand(values: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Values of the non-NaN positions back in place, NaN elsewhere."""
    out = np.full(keep.shape, np.nan)
    out[keep] = values
    return out


def _r_as_character(x: float) -> str:
    """R's as.character() of a cut point: 15 significant digits, R's choice of notation."""
    return format_number(x, 15)


def qvalue(p: Any, *, fdr_level: float | None = None, pfdr: bool = False, lfdr_out: bool = True,
           pi0: float | None = None, lambda_: Any = _DEFAULT_LAMBDA, pi0_method: str = "smoother",
           smooth_df: float = 3, smooth_log_pi0: bool = False, trunc: bool = True,
           monotone: bool = True, transf: str = "probit", adj: float = 1.5,
           eps: float = 1e-8) -> QValueResult:
    """Storey's q-values, local FDR and pi0, as Bioconductor ``qvalue::qvalue`` 2.30.

    q_(i) = pi0 * min(1, min_{j >= i} p_(j) m / j) (with ``pfdr=True`` the positive-FDR version
    divides by 1 - (1 - p)^m; at p = 0, where R returns NaN from 0/0, statcore uses the limit
    1 / rank). ``pi0`` is estimated by :func:`pi0est` unless given; local FDR by :func:`lfdr`.

    Parameters
    ----------
    p : array_like or pandas Series
        p-values in [0, 1]; NaN values are omitted and stay NaN (R's NA rule). An array of any shape
        is one family and keeps its shape (R's qvalue pools a matrix likewise). A DataFrame is refused
        (``TypeError``): pass ``df.stack()`` for one family, or
        ``df.apply(lambda col: sc.qvalue(col).q_values)`` for one family per column.
    fdr_level : float, optional, keyword-only
        The FDR level in (0, 1] that sets ``significant`` (R's ``fdr.level``).
    pfdr : bool, keyword-only
        q-values for the positive FDR (R's ``pfdr``).
    lfdr_out : bool, keyword-only
        Compute the local FDRs (R's ``lfdr.out``).
    pi0 : float, optional, keyword-only
        A given proportion of true nulls in (0, 1]; estimated by :func:`pi0est` when None.
    lambda_, pi0_method, smooth_df, smooth_log_pi0 : keyword-only
        Passed to :func:`pi0est`.
    trunc, monotone, transf, adj, eps : keyword-only
        Passed to :func:`lfdr`.

    Returns
    -------
    QValueResult
        ``summary()`` prints R's table of cumulative significant calls; ``plot()`` R's four panels.

    References
    ----------
    Bioconductor ``qvalue::qvalue`` 2.30. Storey & Tibshirani (2003), PNAS 100:9440. Storey (2002),
    JRSS-B 64:479.

    Examples
    --------
    >>> import numpy as np, statcore as sc
    >>> p = np.r_[np.linspace(0.0005, 0.01, 200), np.linspace(0.0005, 0.9995, 800)]
    >>> res = sc.qvalue(p, fdr_level=0.05)
    >>> int(res.significant.sum()), round(res.pi0, 6)
    (211, 0.8)
    """
    _refuse_frame(p, "qvalue")
    wrapper = InputWrapper.of(p)
    arr = as_pvalues(p, "p")
    if fdr_level is not None:
        fdr_level = check_probability(fdr_level, "fdr_level")
    pfdr, lfdr_out = check_flag(pfdr, "pfdr"), check_flag(lfdr_out, "lfdr_out")
    if pi0 is None:
        lam, pi0_method, smooth_df, smooth_log_pi0 = _pi0_options(lambda_, pi0_method, smooth_df,
                                                                  smooth_log_pi0)
    else:
        pi0 = check_probability(pi0, "pi0")
    if lfdr_out:
        trunc, monotone, transf, adj, eps = _lfdr_options(trunc, monotone, transf, adj, eps)
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
        est = _pi0_from_clean(p_sorted, lam, pi0_method, smooth_df, smooth_log_pi0)
    else:
        est = Pi0Estimate(pi0, None, None, None, "given")
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
        lf = _lfdr_clean(pv, est.pi0, trunc, monotone, transf, adj, eps)
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
        p_values=wrapper.wrap(arr), q_values=wrapper.wrap(q_full.reshape(arr.shape)),
        lfdr=None if lf_full is None else wrapper.wrap(lf_full.reshape(arr.shape)),
        pi0=est.pi0, pi0_lambda=est.pi0_lambda, lambda_=est.lambda_, pi0_smooth=est.pi0_smooth,
        fdr_level=fdr_level, significant=sig, call="qvalue(" + ", ".join(call_args) + ")",
    )
