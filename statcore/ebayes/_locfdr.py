"""Efron's local false discovery rate with an empirical null (R locfdr 1.1-8 ``locfdr()``)."""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._checks import as_float_array, check_flag, check_positive_int
from .._checks.public import public_function
from .._r.ns import ns, r_quantile7
from .._r.rformat import format_named_vector, format_table
from .._result import Result
from .._warnings import StatcoreWarning
from ._locfdr_fit import (histogram, interp_bins, lm_coef, mle_lfdr_cov, null_influence, poisson_glm,
                          truncated_normal_mle)

__all__ = ["locfdr", "LocfdrResult", "LocfdrWarning"]

_Q75 = 0.6744897501960817          # qnorm(0.75)
_NULL_ROWS = ("theo", "mlest", "cmest")
_MAT_COLUMNS = ("x", "fdr", "fdr_left", "fdr_right", "f", "f0", "f0_theo", "fdr_theo", "counts",
                "log_fdr_std_error", "p1f1")
_EFDR_NAMES = ("Efdr", "Eleft", "Eright", "Efdrtheo", "Eleft0", "Eright0")


class LocfdrWarning(StatcoreWarning):
    """A diagnosis of ``locfdr`` worded as R locfdr words it (a misfit of f, a failed or discrepant
    estimate of the null)."""


def _r_num(v: float) -> str:
    """R's ``as.character`` of a double (15 significant digits)."""
    return f"{v:.15g}"


@dataclass(frozen=True, eq=False, repr=False)
class LocfdrResult(Result):
    """Local false discovery rates with the null estimates of R locfdr.

    Attributes
    ----------
    fdr : ndarray
        The local fdr of each z-value under the null in force (R's ``fdr``).
    z : ndarray
        The z-values (after ``nan_policy``).
    delta, sigma, p0 : float
        The null in force: N(0, 1) with its p0 (``nulltype=0``), the MLE (1), central matching (2), or
        the split-normal central matching (3; ``sigma`` is the left half's, ``fp0`` holds the right's).
    nulltype : int
        0 theoretical, 1 MLE, 2 central matching, 3 split normal.
    fp0 : pandas.DataFrame
        R's ``fp0``: rows "theo", "mlest", "cmest"; columns ``delta``, ``sigma``, ``p0`` and their
        standard errors ``delta_std_error``, ``sigma_std_error``, ``p0_std_error`` (with ``nulltype=3``
        also ``sigma_right``, ``sigma_right_std_error``: R's ``sigleft``/``sigright``). NaN is R's NA.
    efdr : pandas.Series
        R's ``Efdr``: Efdr, Eleft, Eright for the null in force, Efdrtheo, Eleft0, Eright0 for N(0, 1).
    mat : pandas.DataFrame
        R's ``mat`` at the bin midpoints, snake_case: x, fdr, fdr_left, fdr_right, f, f0, f0_theo,
        fdr_theo, counts, log_fdr_std_error, p1f1 (R's x, fdr, Fdrleft, Fdrright, f, f0, f0theo,
        fdrtheo, counts, lfdrse, p1f1; with ``nulltype=0`` the Fdr and lfdrse columns are R's
        theoretical-null ones, Fdrltheo, Fdrrtheo, lfdrsetheo).
    cdf1 : pandas.DataFrame
        R's ``cdf1``: the f1 cdf (``cdf``) of the estimated fdr at ``fdr_level`` 0.01, ..., 0.99.
    z_2 : tuple of float
        R's ``z.2``: where fdr crosses 0.2 on the left and right (NaN where it does not).
    breaks : ndarray
        The histogram breaks.
    call : str
        The call, written as R's ``match.call`` would print it.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import locfdr
    >>> rng = np.random.default_rng(1)
    >>> res = locfdr(np.r_[rng.normal(0, 1, 1800), rng.normal(3, 1, 200)], nulltype=0)
    >>> res.nulltype, res.delta, res.sigma
    (0, 0.0, 1.0)
    >>> res.to_frame().columns.tolist()
    ['z', 'fdr']
    """

    fdr: np.ndarray
    z: np.ndarray
    delta: float
    sigma: float
    p0: float
    nulltype: int
    fp0: Any
    efdr: Any
    mat: Any
    cdf1: Any
    z_2: tuple
    breaks: np.ndarray
    call: str

    def _repr_parts(self):
        return [("n", int(self.z.size)), ("nulltype", self.nulltype), ("delta", self.delta),
                ("sigma", self.sigma), ("p0", self.p0), ("Efdr", float(self.efdr.iloc[0]))]

    def summary(self) -> str:
        """R's printout of ``w$fp0`` and ``w$Efdr`` (``locfdr`` itself prints nothing), under the call."""
        fp0 = self.fp0
        r_cols = ["delta", "sigleft", "p0", "sigright"] if "sigma_right" in fp0 else ["delta", "sigma", "p0"]
        cols = ["delta", "sigma", "p0", "sigma_right"][:len(r_cols)]
        rows, names = [], []
        for est, r_est, r_sd in zip(_NULL_ROWS, ("thest", "mlest", "cmest"), ("theSD", "mleSD", "cmeSD")):
            rows.append([float(fp0.loc[est, c]) for c in cols])
            rows.append([float(fp0.loc[est, c + "_std_error"]) for c in cols])
            names += [r_est, r_sd]
        table = format_table(names, {rc: [r[i] for r in rows] for i, rc in enumerate(r_cols)})
        table = table.replace("NaN", " NA")
        efdr = format_named_vector(list(self.efdr.index), list(self.efdr.values))
        return (f"\nCall:\n{self.call}\n\n$fp0\n{table}\n\n$Efdr\n{efdr}\n\n"
                f"nulltype {self.nulltype}: delta {self.delta:.4g}, sigma {self.sigma:.4g}, p0 {self.p0:.4g}; "
                f"{int(np.sum(self.fdr <= 0.2))} of {self.z.size} z-values with fdr <= 0.2\n")

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame({"z": self.z, "fdr": self.fdr})

    def _plot(self, ax=None):
        """R's ``plot = 1``: the histogram of z, the fitted f (green), p0 f0 (dashed blue), the
        non-null counts (purple bars) and the triangles where fdr crosses 0.2; returns the Axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(7, 4.5), layout="constrained")
        m = self.mat
        counts = m["counts"].to_numpy()
        ax.stairs(counts, self.breaks, fill=False, color="0.3")
        fd = m["fdr_theo"].to_numpy() if self.nulltype == 0 else m["fdr"].to_numpy()
        ax.vlines(m["x"], 0, np.maximum(counts * (1 - fd), 0), colors="m", lw=2)
        ax.plot(m["x"], m["f"], color="g", lw=3, label="f")
        p0f0 = (self.p0 * m["f0_theo"] if self.nulltype == 0 else self.p0 * m["f0"])
        ax.plot(m["x"], p0f0, "b--", lw=2, label="p0 f0")
        for zc in self.z_2:
            if np.isfinite(zc):
                ax.plot([zc], [0], marker="^", color="red", markerfacecolor="yellow", ms=9, ls="none")
        ax.set_xlabel(f"delta: {self.delta:.3f}  sigma: {self.sigma:.3f}  p0: {self.p0:.3f}")
        ax.set_ylabel("Frequency")
        ax.legend(frameon=False)
        return ax


def _check_pct0(pct0: Any) -> tuple[float, float]:
    arr = np.atleast_1d(as_float_array(pct0, "pct0"))
    if arr.ndim != 1 or arr.size not in (1, 2):
        raise ValueError(f"pct0 must be one proportion or a pair (low, high), got {pct0!r}")
    if arr.size == 1:
        if not 0 < arr[0] < 0.5:
            raise ValueError(f"pct0 must be in (0, 0.5) (the central range [pct0, 1 - pct0]), got {arr[0]!r}")
        return float(arr[0]), float(1 - arr[0])
    if not 0 <= arr[0] < arr[1] <= 1:
        raise ValueError(f"pct0 as a pair must satisfy 0 <= pct0[0] < pct0[1] <= 1, got {tuple(arr)!r}")
    return float(arr[0]), float(arr[1])


def _call_text(bre, df, pct0, nulltype, mlests) -> str:
    parts = ["z"]
    if not (np.ndim(bre) == 0 and bre == 120):
        parts.append(f"bre = {bre!r}" if np.ndim(bre) == 0 else "bre = <breaks>")
    if df != 7:
        parts.append(f"df = {df}")
    if not (np.ndim(pct0) == 0 and pct0 == 0.25):
        parts.append(f"pct0 = {pct0!r}")
    if nulltype != 1:
        parts.append(f"nulltype = {nulltype}")
    if mlests is not None:
        parts.append(f"mlests = c({', '.join(_r_num(float(v)) for v in mlests)})")
    return "locfdr(" + ", ".join(parts) + ")"


def _raise_fdr_near(fdr, x, center):
    """Set fdr to 1 between the outermost bins with fdr == 1 on either side of ``center``."""
    lo_set = x[(x <= center) & (fdr == 1)]
    hi_set = x[(x >= center) & (fdr == 1)]
    lo = lo_set.min() if lo_set.size else center
    hi = hi_set.max() if hi_set.size else center
    fdr[(x >= lo) & (x <= hi)] = 1.0


def _efdr(fdr, fall, sel=slice(None)):
    fd, fa = fdr[sel], fall[sel]
    den = float(np.sum((1 - fd) * fa))
    val = float(np.sum((1 - fd) * fd * fa)) / den if den != 0 else math.nan
    return 1.0 if math.isnan(val) else val


def _crossing(fd_part, x_part) -> float:
    """R's ``approx(fd, x, 0.2, ties = mean)$y``: x where fd crosses 0.2 (NaN outside fd's range)."""
    u, inv = np.unique(fd_part, return_inverse=True)
    xm = np.bincount(inv, weights=x_part) / np.bincount(inv)
    if u.size == 0 or not (u[0] <= 0.2 <= u[-1]):
        return math.nan
    if u.size == 1:
        return float(xm[0])
    return float(np.interp(0.2, u, xm))


@public_function(data=("z",), nan_policy=("raise", "omit"))
def locfdr(z: Any, *, bre: Any = 120, df: int = 7, pct0: Any = 0.25, nulltype: int = 1, plot: bool = False,
           mlests: Any = None) -> LocfdrResult:
    """Efron's local false discovery rate, with a theoretical or an empirical null (R locfdr 1.1-8).

    The z-values are modelled as a two-groups mixture f(z) = p0 f0(z) + (1 - p0) f1(z) and the local
    fdr is fdr(z) = p0 f0(z) / f(z) (Efron 2004, 2007). f is a Poisson regression of the histogram
    counts on a natural cubic spline with ``df`` degrees of freedom; f0 is N(0, 1) (``nulltype=0``),
    the normal fitted by maximum likelihood to the z-values of a central interval (1, the default),
    the normal matched to the curvature of log f on the central ``pct0`` range (2, central matching),
    or that fit with separate left and right widths (3, split normal). The answers are those of R
    locfdr 1.1-8 ``locfdr()`` (tested to 1e-8 at every ``nulltype``), with its warnings in its words.

    Parameters
    ----------
    z : array_like
        The z-values, one per case (hundreds or more: the method estimates densities).
    bre : int or array_like
        The number of histogram breaks (120), or breaks as in R: then only their range and number
        count (equally spaced breaks between ``min(bre)`` and ``max(bre)``; z-values outside are
        moved to the nearest end, as R does). At least ``df + 4`` breaks.
    df : int
        Degrees of freedom of the natural spline fitted to the counts (R's ``df``, at least 2).
    pct0 : float or (float, float)
        The central part of the z distribution used by central matching and for the theoretical
        null's p0: the quantiles [pct0, 1 - pct0], or [pct0[0], pct0[1]] for a pair.
    nulltype : {0, 1, 2, 3}
        The null in force: 0 theoretical N(0, 1), 1 MLE, 2 central matching, 3 split normal.
    plot : bool
        R's ``plot = 1`` when True: the histogram with f and p0 f0 on a new figure (``res.plot()``
        draws it later on any Axes). False (R's ``plot = 0``) draws nothing.
    mlests : (float, float), optional
        Starting values (delta, sigma) of the MLE; the fitting interval is then delta +- b sigma
        (R's ``mlests``).
    nan_policy : {"raise", "omit"}
        Missing z-values: "raise" (the default) refuses them, "omit" drops them.

    Returns
    -------
    LocfdrResult
        ``fdr`` per z-value, ``delta``, ``sigma``, ``p0`` of the null in force, R's ``fp0`` table
        with standard errors, ``efdr``, ``mat``, ``cdf1``, ``z_2`` and ``call``.

    Warns
    -----
    LocfdrWarning
        R's warnings, in its words: "f(z) misfit = ... Rerun with increased df", "CM estimation
        failed, middle of histogram non-normal", "Discrepancy between central matching and maximum
        likelihood estimates", "ML Estimation failed", and for more than 500,000 z-values the wider
        ML interval.

    Raises
    ------
    ValueError
        Where R stops: central matching failed with ``nulltype`` 2 or 3, or maximum likelihood failed
        with ``nulltype=1`` (R's messages).

    Notes
    -----
    Differences from R locfdr 1.1-8 ``locfdr()``, on purpose:

    - R's ``pct`` (trimmed fitting range), ``type = 1`` (polynomial f), ``mult``, ``sw`` and ``main``
      are not offered: ``pct = 0`` and ``type = 0`` (R's defaults) always.
    - ``plot`` is True/False: R's plots 2 to 4 (fdr and Fdr curves, the f1 cdf) are not drawn; their
      numbers are ``mat`` and ``cdf1``.
    - With ``nulltype=0`` and a failed maximum likelihood fit R stops on an internal error; here the
      Efdr of the MLE null is NaN (then 1, R's rule for NA) and the theoretical-null answer stands.
    - The ``fp0`` rows are named theo/mlest/cmest with the standard errors as columns (R's
      thest/theSD/mlest/mleSD/cmest/cmeSD rows; ``summary()`` prints R's layout).

    The Poisson fit runs R's ``glm`` iterations (start at the counts + 0.1, stop at a relative
    change of the deviance below 1e-8), and the spline basis is R's ``splines::ns``
    (``statcore._r.ns``), so that the fit is R's to rounding.

    References
    ----------
    Efron, B. (2004). Large-scale simultaneous hypothesis testing: the choice of a null hypothesis.
    J. Amer. Statist. Assoc. 99, 96-104.
    Efron, B. (2007). Size, power and false discovery rates. Ann. Statist. 35, 1351-1377.
    Efron, B. (2007). Correlation and large-scale simultaneous significance testing. J. Amer.
    Statist. Assoc. 102, 93-103.
    Efron, B., Turnbull, B. B. & Narasimhan, B. (2015). locfdr: Computes local false discovery
    rates. R package version 1.1-8 (``locfdr()``).

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import locfdr
    >>> rng = np.random.default_rng(1)
    >>> z = np.r_[rng.normal(0, 1, 1800), rng.normal(3, 1, 200)]
    >>> res = locfdr(z)
    >>> round(res.delta, 2), round(res.sigma, 2), round(res.p0, 2)
    (-0.01, 1.04, 0.92)
    >>> int((res.fdr <= 0.2).sum())
    135
    >>> res.fp0.loc["cmest", ["delta", "sigma"]].round(3).tolist()
    [-0.018, 0.95]
    """
    zs = as_float_array(z, "z", ndim=1)
    n = zs.size
    if n < 10:
        raise ValueError(f"z has {n} values; locfdr needs at least 10 (R's documentation advises more than 200)")
    df = check_positive_int(df, "df", minimum=2)
    if np.ndim(bre) == 0:
        nbre = check_positive_int(bre, "bre", minimum=2)
        zmin, zmax = float(zs.min()), float(zs.max())
    else:
        bvec = as_float_array(bre, "bre", ndim=1)
        nbre = bvec.size
        zmin, zmax = float(bvec.min()), float(bvec.max())
    if nbre < df + 4:
        raise ValueError(f"bre must give at least df + 4 = {df + 4} breaks (the spline fit and its misfit "
                         f"statistic need more bins than degrees of freedom), got {nbre}")
    if not zmax > zmin:
        raise ValueError("z has no spread (all values equal, or breaks with one value); locfdr needs a histogram")
    big = max(abs(zmin), abs(zmax), float(np.abs(zs).max()))
    if big > 1e150 or zmax - zmin < 1e-150:
        raise ValueError(f"z spans [{zmin:.3g}, {zmax:.3g}]: locfdr compares z-values with N(0, 1) and needs "
                         "their squares and the squared bin widths to be finite and nonzero (rescale z)")
    pct_lo, pct_hi = _check_pct0(pct0)
    if isinstance(nulltype, bool) or nulltype not in (0, 1, 2, 3):
        raise ValueError(f"nulltype must be 0, 1, 2 or 3, got {nulltype!r}")
    nulltype = int(nulltype)
    plot = check_flag(plot, "plot")
    if mlests is not None:
        ml0 = as_float_array(mlests, "mlests", ndim=1)
        if ml0.size != 2 or not ml0[1] > 0:
            raise ValueError(f"mlests must be (delta, sigma) with sigma > 0, got {mlests!r}")
    call = _call_text(bre, df, pct0, nulltype, mlests)
    from ..utils import thread_limit

    with thread_limit(1, pools="blas"):      # K x K algebra: a thread pool only costs on a loaded machine
        res = _locfdr_fit(zs, n, nbre, zmin, zmax, df, pct_lo, pct_hi, nulltype,
                          None if mlests is None else ml0, call)
    if plot:
        res.plot()
    return res


def _locfdr_fit(zs, n, nbre, zmin, zmax, df, pct_lo, pct_hi, nulltype, ml0, call) -> LocfdrResult:
    def warn(msg):
        warnings.warn(msg, LocfdrWarning, stacklevel=5)

    # ---- f: Poisson regression of the counts on a natural spline --------------------------------------
    breaks, x, y, zbin = histogram(zs, zmin, zmax, nbre)
    K = x.size
    X = np.column_stack([np.ones(K), ns(x, df=df)[0]])
    f = poisson_glm(X, y)
    if not np.all(np.isfinite(f)) or np.any(f <= 0):
        raise ValueError("the Poisson spline fit of the histogram of z failed (z is numerically degenerate)")
    logf = np.log(f)
    misfit = float(np.sum((((y - f) / np.sqrt(f + 1)) ** 2)[1:K - 1]) / (K - 2 - df))
    if misfit > 1.5:
        warn(f"f(z) misfit = {_r_num(round(misfit, 1))}.  Rerun with increased df")

    # ---- fp0 table, R's NA as NaN --------------------------------------------------------------------
    ncol = 4 if nulltype == 3 else 3        # delta, sigma(left), p0, sigma right
    est = {r: np.full(ncol, np.nan) for r in _NULL_ROWS}
    sde = {r: np.full(ncol, np.nan) for r in _NULL_ROWS}
    est["theo"][:2] = (0.0, 1.0)
    sde["theo"][:2] = 0.0

    # ---- central matching: a quadratic (split quadratic) fitted to log f on the central bins ------------
    xmax = float(x[int(np.argmax(logf))])
    lo0, hi0, q1, med, q3 = r_quantile7(zs, [pct_lo, pct_hi, 0.25, 0.5, 0.75])
    i0 = np.flatnonzero((x > lo0) & (x < hi0))
    dx0 = x[i0] - xmax
    split = nulltype == 3
    A0 = np.column_stack([dx0 ** 2, np.maximum(dx0, 0) ** 2]) if split else np.column_stack([dx0, dx0 ** 2])
    co = lm_coef(A0, logf[i0]) if i0.size else np.full(3, np.nan)
    dxa = x - xmax
    X0 = (np.column_stack([np.ones(K), dxa ** 2, np.maximum(dxa, 0) ** 2]) if split
          else np.column_stack([np.ones(K), dxa, dxa ** 2]))
    if split:
        cm_failed = bool(np.isnan(co[1]) or np.isnan(co[2]) or co[1] >= 0 or co[1] + co[2] >= 0)
    else:
        cm_failed = bool(np.isnan(co[2]) or co[2] >= 0)
    p0 = f0 = None
    sigs = None
    if cm_failed:
        if nulltype == 3:
            raise ValueError("CM estimation failed.  Rerun with nulltype = 1 or 2.")
        if nulltype == 2:
            raise ValueError("CM estimation failed.  Rerun with nulltype = 1.")
        warn("CM estimation failed, middle of histogram non-normal")
    else:
        if split:
            sigs = 1.0 / np.sqrt(-2.0 * np.array([co[1], co[1] + co[2]]))
            est["cmest"][[0, 1, 3]] = (xmax, sigs[0], sigs[1])
        else:
            est["cmest"][:2] = (-co[1] / (2 * co[2]) + xmax, 1.0 / math.sqrt(-2 * co[2]))
        f0 = np.exp(X0 @ co)
        p0 = float(f0.sum() / f.sum())
        f0 = f0 / p0
        est["cmest"][2] = p0

    # ---- maximum likelihood: a truncated normal fitted to the z-values of a central interval ---------
    b = 4.3 * math.exp(-0.26 * math.log10(n))
    if ml0 is None:
        sc = (q3 - q1) / (2 * _Q75)
        first = truncated_normal_mle(zs, med, b * sc)
        start = None if first is None else (first.delta, first.sigma)
        if n > 500000:
            if start is not None:
                warn("length(zz) > 500,000: For ML estimation, a wider interval than optimal was used.  "
                     f"To use the optimal interval, rerun with mlests = c({_r_num(start[0])}, "
                     f"{_r_num(b * start[1])}).\n")
            wide = truncated_normal_mle(zs, med, sc)
            start = None if wide is None else (wide.delta, wide.sigma)
    else:
        start = (float(ml0[0]), float(ml0[1]))
    mle = None
    if start is not None:
        bb = 1.0 if n > 500000 else b
        mle = truncated_normal_mle(zs, start[0], bb * start[1], start[0], start[1])
    if mle is not None:
        est["mlest"][:3] = (mle.delta, mle.sigma, mle.p0)
        sde["mlest"][:3] = mle.sd
        if nulltype > 1 and not cm_failed:
            if (abs(est["cmest"][0] - mle.delta) > 0.05
                    or abs(math.log(est["cmest"][1] / mle.sigma)) > 0.05):
                warn("Discrepancy between central matching and maximum likelihood estimates.\n"
                     "Consider rerunning with nulltype = 1")
    else:
        if nulltype == 1:
            if cm_failed:
                raise ValueError("CM and ML Estimation failed, middle of histogram non-normal")
            raise ValueError("ML estimation failed.  Rerun with nulltype=2")
        warn("ML Estimation failed")

    # ---- fdr curves at the midpoints -----------------------------------------------------------------
    if nulltype < 2:
        if mle is not None:
            xmax = mle.delta
            f0 = np.exp(-0.5 * ((x - mle.delta) / mle.sigma) ** 2)
            f0 = f.sum() * f0 / f0.sum()
            p0 = mle.p0
        else:
            xmax = math.nan
            f0 = np.full(K, np.nan)
            p0 = math.nan
    with np.errstate(invalid="ignore"):
        fdr_bins = np.minimum(p0 * f0 / f, 1.0)
    f00 = np.exp(-x ** 2 / 2)
    f00 = f00 * f.sum() / f00.sum()
    p0theo = float(f[i0].sum() / f00[i0].sum()) if i0.size else math.nan
    est["theo"][2] = p0theo
    fdr0 = np.minimum(p0theo * f00 / f, 1.0)
    f0p = p0theo * f00 if nulltype == 0 else p0 * f0
    fdr_left = np.cumsum(f0p) / np.cumsum(f)
    fdr_right = (np.cumsum(f0p[::-1]) / np.cumsum(f[::-1]))[::-1]
    if np.isfinite(xmax):
        _raise_fdr_near(fdr_bins, x, xmax)
        _raise_fdr_near(fdr0, x, xmax)
    if nulltype == 1:
        core = (x >= mle.delta - mle.sigma) & (x <= mle.delta + mle.sigma)
        fdr_bins[core] = 1.0
        fdr0[core] = 1.0
    fall = f                       # R's f + (all counts - trimmed counts): pct = 0 trims nothing
    up = x >= xmax
    down = x <= xmax
    efdr = [_efdr(fdr_bins, fall), _efdr(fdr_bins, fall, down), _efdr(fdr_bins, fall, up),
            _efdr(fdr0, fall), _efdr(fdr0, fall, down), _efdr(fdr0, fall, up)]
    fd = fdr0 if nulltype == 0 else fdr_bins
    f1 = (1 - fd) * fall

    # ---- accuracy: delta-method standard errors ------------------------------------------------------
    cm_ests = est["cmest"]
    sd_cm, cov_cm = null_influence(X, X0, i0, f, cm_ests, n)
    sd_th, cov_th = null_influence(X, np.ones((K, 1)), i0, f, est["theo"], n)
    if nulltype == 0:
        cov = cov_th
    elif nulltype == 1:
        cov = mle_lfdr_cov(mle, n, x, X, f)
    else:
        cov = cov_cm
    with np.errstate(invalid="ignore"):
        lfdrse = np.sqrt(np.diag(cov))
    sde["cmest"][:3] = sd_cm[[1, 2, 0]]
    if nulltype == 3:
        sde["cmest"][3] = sde["cmest"][1]
    sde["theo"][2] = sd_th[0]

    # ---- the f1 cdf of fdr, the 0.2 crossings ---------------------------------------------------------
    levels = np.minimum(0.01 + np.arange(99) * 0.01, 0.99)
    cdf1 = np.array([f1[fd <= lv].sum() for lv in levels])
    with np.errstate(invalid="ignore", divide="ignore"):
        cdf1 = cdf1 / cdf1[-1]
    m = K - 1 - int(np.argmax(fd[::-1]))          # the last bin holding the largest fdr
    z2 = [math.nan, math.nan]
    if fd[-1] < 0.2:
        z2[1] = _crossing(fd[m:], x[m:])
    if fd[0] < 0.2:
        z2[0] = _crossing(fd[:m + 1], x[:m + 1])

    fdr_units = interp_bins(zs, x, fd, zbin)

    import pandas as pd

    cols = ["delta", "sigma", "p0", "sigma_right"][:ncol]
    table = {c: [est[r][i] for r in _NULL_ROWS] for i, c in enumerate(cols)}
    table.update({c + "_std_error": [sde[r][i] for r in _NULL_ROWS] for i, c in enumerate(cols)})
    order = [c for c in ("delta", "sigma", "p0", "delta_std_error", "sigma_std_error", "p0_std_error",
                         "sigma_right", "sigma_right_std_error") if c in table]
    fp0 = pd.DataFrame(table, index=pd.Index(_NULL_ROWS, name="null"))[order]
    mat = pd.DataFrame(np.column_stack([x, fdr_bins, fdr_left, fdr_right, f, f0, f00, fdr0, y, lfdrse, f1]),
                       columns=list(_MAT_COLUMNS))
    row = {0: "theo", 1: "mlest"}.get(nulltype, "cmest")
    return LocfdrResult(fdr=fdr_units, z=zs.copy(), delta=float(est[row][0]), sigma=float(est[row][1]),
                       p0=float(est[row][2]), nulltype=nulltype, fp0=fp0,
                       efdr=pd.Series(efdr, index=list(_EFDR_NAMES), name="Efdr"),
                       mat=mat, cdf1=pd.DataFrame({"fdr_level": levels, "cdf": cdf1}),
                       z_2=tuple(z2), breaks=breaks, call=call)
