"""RP-CIT: conditional independence of high-dimensional X and Y given Z through random projections.

Project X and Y onto k random directions, test each projected pair with a univariate CI test and
combine the k dependent p-values (:func:`statcore.multitest.combine_pvalues`, or a joint multiplier
bootstrap of the k GCM statistics). Under X independent of Y given Z every projected pair is
conditionally independent too, so every p-value is valid.

Speed: E(X w | Z) = E(X | Z) w, and for a linear smoother (OLS, ridge, kernel ridge) or a fixed
multi-output forest the residual of X w is the residual of X times w. So X and Y are regressed on Z
once (multi-output) and all k projections cost two matrix products. A callable base test, which
cannot reuse the regression, is run k times on the projected data.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .._checks import (as_cit_data, as_directions, as_float_array, check_choice, check_n_jobs,
                       check_nan_policy, check_positive_int, check_progress, check_rank, check_seed, pow2_scale)
from .._checks.public import public_function
from .._progress import parallel_map
from .._result import HTest
from ._parcor_result import PartialCorrelationTests
from ..multitest import combine_pvalues
from ._gcm_core import (_VARIANCES, _special, max_bootstrap_pvalue, normal_pvalue, residual_pair,
                        standardised_products, variance_inflation, warn_if_krr_rpcit_small_n, warn_if_small_n)

__all__ = ["rpcit", "random_directions", "parcor_pvalues"]

#: rpcit's aggregation rules: the dependence-robust rules of statcore.multitest.combine_pvalues (and
#: Simes') and the multiplier bootstraps of the max and of the r-th largest statistic
_AGGREGATES = ("bonferroni", "topr", "hommel_global", "simes", "cauchy", "maxboot", "topr_boot")
_BASES = ("gcm", "parcor")
_AGG_LABEL = {"bonferroni": "Bonferroni-max", "topr": "top-r (Ruger)", "hommel_global": "Hommel (1983)",
              "simes": "Simes",
              "cauchy": "Cauchy combination", "maxboot": "max multiplier bootstrap",
              "topr_boot": "top-r multiplier bootstrap"}


def _combine(p: np.ndarray, aggregate: str, r: int | None) -> float:
    """The aggregated p-value of the k projection p-values ``p`` (1-D) by one of ``_AGGREGATES`` other
    than the bootstraps: statcore.multitest.combine_pvalues, the public function."""
    return combine_pvalues(p, method=aggregate, r=r, nan_policy="raise").p_value


def random_directions(d: int, k: int, *, seed: Any = None) -> np.ndarray:
    """k directions uniform on the unit sphere of R^d, as the columns of a (d, k) array.

    Parameters
    ----------
    d : int
        Dimension of the space.
    k : int
        Number of directions.
    seed : None, int or numpy.random.Generator
        Source of randomness (a Generator is used as is, so successive calls continue its stream).

    Returns
    -------
    ndarray (d, k)
        Unit-norm columns: standard normal vectors divided by their norms, which are uniform on the
        sphere because the standard normal distribution is rotation invariant (Muller 1959).

    Examples
    --------
    >>> import numpy as np
    >>> w = random_directions(3, 4, seed=0)
    >>> w.shape, bool(np.allclose(np.linalg.norm(w, axis=0), 1.0))
    ((3, 4), True)
    >>> bool(np.array_equal(w, random_directions(3, 4, seed=np.random.default_rng(0))))
    True

    References
    ----------
    Muller (1959), A note on a method for generating points uniformly on n-dimensional spheres,
    Communications of the ACM 2(4).
    """
    d = check_positive_int(d, "d")
    k = check_positive_int(k, "k")
    rng = check_seed(seed)
    w = rng.standard_normal((d, k))
    w /= np.linalg.norm(w, axis=0)
    return w


@public_function(data=("rx", "ry", "wx", "wy"), nan_policy=("raise", "omit"), rows=("rx", "ry"))
def parcor_pvalues(rx: Any, ry: Any, wx: Any, wy: Any, *, q: int, method: str = "t",
                   nan_policy: str = "raise") -> PartialCorrelationTests:
    """Partial correlations of the k projected pairs and their p-values, from sufficient statistics.

    With residual cross-products Cxx = rx'rx, Cyy, Cxy the j-th partial correlation is
    wx_j' Cxy wy_j / sqrt(wx_j' Cxx wx_j wy_j' Cyy wy_j); ``q`` conditioning columns leave
    n - 2 - q degrees of freedom for the t test (as pingouin's ``partial_corr``), or
    sqrt(n - q - 3) atanh(r) against N(0, 1) for Fisher's z (as causal-learn's ``fisherz``).

    Parameters
    ----------
    rx, ry : ndarray (n, dx), (n, dy)
        Residuals of x and y on the q conditioning columns (least squares with intercept for the
        p-values to be exact under Gaussian data), e.g. from ``residualize``.
    wx, wy : ndarray (dx, k), (dy, k)
        The k directions of x and of y (columns), e.g. from :func:`random_directions`.
    q : int
        Number of conditioning columns (it sets the degrees of freedom).
    method : {"t", "fisher"}
        Student t with n - 2 - q degrees of freedom, or Fisher's z.
    nan_policy : {"raise", "omit"}
        "omit" drops the observations (rows) with a NaN in ``rx`` or ``ry``; "propagate" is not
        offered. The directions must be finite.

    Returns
    -------
    PartialCorrelationTests
        The k tests, a vectorised HTest: ``rho`` (k,), the partial correlation of ``x @ wx[:, j]``
        and ``y @ wy[:, j]`` given z; ``statistic`` (t or z) and two-sided ``p_value`` (k,); it
        unpacks as ``statistic, p_value`` like every HTest.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore.cit import residualize
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(100, 2))
    >>> x = z @ [[1.0, 0.5, 0.0], [0.0, 1.0, 1.0]] + rng.normal(size=(100, 3))
    >>> y = z @ [[0.5, 1.0], [1.0, 0.0]] + rng.normal(size=(100, 2))
    >>> rx, ry = residualize(x, z), residualize(y, z)
    >>> wx, wy = random_directions(3, 5, seed=rng), random_directions(2, 5, seed=rng)
    >>> res = parcor_pvalues(rx, ry, wx, wy, q=2)
    >>> rho, p = res.rho, res.p_value
    >>> bool(np.isclose(rho[0], np.corrcoef(rx @ wx[:, 0], ry @ wy[:, 0])[0, 1]))
    True
    >>> p.shape, bool(np.all((0 <= p) & (p <= 1)))
    ((5,), True)

    References
    ----------
    Fisher (1921), On the "probable error" of a coefficient of correlation deduced from a small
    sample, Metron 1. Fisher (1924), The distribution of the partial correlation coefficient,
    Metron 3.
    """
    method = check_choice(method, "method", ("t", "fisher"))
    q = check_positive_int(q, "q", minimum=0)
    data, _ = as_cit_data(nan_policy, required=("rx", "ry"), rx=rx, ry=ry)
    rx, ry = data["rx"], data["ry"]
    wx = as_directions(wx, "wx", rx.shape[1], "rx")
    wy = as_directions(wy, "wy", ry.shape[1], "ry")
    if wx.shape[1] != wy.shape[1]:
        raise ValueError(f"wx and wy must hold the same number k of directions (columns), got {wx.shape[1]} "
                         f"and {wy.shape[1]}")
    rho, p = _parcor(rx, ry, wx, wy, q, method)
    n = rx.shape[0]
    with np.errstate(divide="ignore"):
        if method == "t":
            df = n - 2 - q
            stat, label, kind_df = rho * np.sqrt(df / (1.0 - rho ** 2)), "t-test", float(df)
        else:
            stat, label, kind_df = np.arctanh(rho) * np.sqrt(n - q - 3), "Fisher's z test", None
    return PartialCorrelationTests(statistic=stat, p_value=p, rho=rho, kind=method, df=kind_df, q=q,
                                   statistic_name="t" if method == "t" else "z", alternative="two.sided",
                                   method=f"Partial correlation {label} of {rho.size} projected pairs",
                                   data_name=f"x @ wx and y @ wy given {q} conditioning columns, n = {n}")


def _parcor(rx: np.ndarray, ry: np.ndarray, wx: np.ndarray, wy: np.ndarray, q: int,
            method: str) -> tuple[np.ndarray, np.ndarray]:
    """:func:`parcor_pvalues` on validated arrays."""
    n = rx.shape[0]
    cxy = np.einsum("jk,jk->k", wx, (rx.T @ ry) @ wy)
    cxx = np.einsum("jk,jk->k", wx, (rx.T @ rx) @ wx)
    cyy = np.einsum("jk,jk->k", wy, (ry.T @ ry) @ wy)
    rho = np.clip(cxy / np.sqrt(cxx * cyy), -1.0, 1.0)
    if method == "t":
        df = n - 2 - q
        if df < 1:
            raise ValueError(f"n = {n} is too small for a partial correlation given q = {q} variables")
        with np.errstate(divide="ignore"):
            t = rho * np.sqrt(df / (1.0 - rho ** 2))
        return rho, np.minimum(1.0, 2.0 * _special().stdtr(df, -np.abs(t)))
    m = n - q - 3
    if m < 1:
        raise ValueError(f"n = {n} is too small for Fisher's z given q = {q} variables")
    with np.errstate(divide="ignore"):
        zstat = np.arctanh(rho) * np.sqrt(m)
    return rho, np.minimum(1.0, 2.0 * _special().ndtr(-np.abs(zstat)))


def _callable_pvalue(base: Callable, xp: np.ndarray, yp: np.ndarray, z: np.ndarray | None) -> float:
    out = base(xp, yp, z)
    p = getattr(out, "p_value", out)
    try:
        p = float(p)
    except (TypeError, ValueError):
        raise TypeError(f"base must return a p-value (a number or an HTest), got {type(out).__name__}") from None
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"base returned {p!r}, not a p-value in [0, 1]")
    return p


@public_function(data=("x", "y", "z"), nan_policy=("raise", "omit"), formula=dict(lhs="y", rhs="x", cond="z"))
def rpcit(x: Any, y: Any = None, z: Any = None, *, k: int = 50, base: str | Callable = "gcm",
          aggregate: str = "bonferroni", r: int | None = None, regression: Any = "ols", seed: Any = None,
          n_jobs: int = 1, resid_x: Any = None, resid_y: Any = None, B: int = 499,
          parcor: str = "t", variance: str = "auto", progress: bool | None = None, nan_policy: str = "raise",
          data: Any = None) -> HTest:
    """Random-projection conditional independence test of X independent of Y given Z.

    Parameters
    ----------
    x, y : array_like (n, dx), (n, dy)
        The (high-dimensional) variables tested. May be None when ``resid_x`` and ``resid_y`` are
        given (not with a callable ``base``). ``x`` may instead be a formula
        ``"y1 + y2 ~ x1 + x2 | z"`` with ``data=``.
    z : array_like (n, p), optional
        Conditioning variables.
    k : int
        Number of random projections (pairs of directions, each uniform on its sphere).
    base : "gcm", "parcor" or callable
        Univariate test of each projected pair: "gcm" (scalar GCM, normal p-value), "parcor"
        (partial correlation of the residuals, t or Fisher-z p-value, see ``parcor``), or a
        function ``base(x_proj, y_proj, z)`` returning a p-value or an HTest (run k times, on
        ``n_jobs`` workers through joblib).
    aggregate : str
        "bonferroni", "topr", "hommel_global", "simes", "cauchy" (see
        :func:`statcore.multitest.combine_pvalues`; "simes" assumes positively dependent
        projections, the others do not) or "maxboot": the
        Gaussian multiplier bootstrap of the maximum of the k standardised projected GCM statistics,
        valid under their dependence and less conservative than Bonferroni (``base="gcm"`` only);
        or "topr_boot": the r-th largest of the k ``|T_j|``, calibrated by the r-th largest of the same
        multiplier draws (``base="gcm"`` only). Ruger's "topr" is valid under any dependence but
        very conservative for the strongly dependent projections of RP-CIT (size 0.000 at
        alpha = 0.05 in the linear null of benchmarks/bench_cit.py, k = 50, r = 5); "topr_boot"
        holds the level at about alpha there (measured figures in benchmarks/README.md, "cit").
    r : int, optional
        Rank for "topr" and "topr_boot" (default ceil(k / 10)), at most k. Giving it with another
        aggregate is an error.
    regression : str or scikit-learn regressor
        Regression of x and y on z, each once for all its columns (see ``residualize``). For
        "ols", "ridge", "krr" and "rf" (one fixed multi-output forest) the projected residuals are
        exactly those of the same smoother applied to the projected data; for any other regressor
        ``E(X | Z) w`` estimated once still estimates ``E(X w | Z)``, but need not equal a refit on
        ``X w``.
        With "krr" and n < 2000 the max-type aggregates were oversized on a nonlinear null
        (``benchmarks/README.md``, section "cit"): a ``GCMWarning`` says so ("topr" and
        "hommel_global" held the level there).
    seed : None, int or numpy.random.Generator
        Directions, bootstrap and random forest all draw from it.
    n_jobs : int
        Workers for a callable base; threads for a random forest.
    resid_x, resid_y : array_like, optional
        Precomputed residuals of x and y on z.
    B : int
        Bootstrap draws for "maxboot".
    parcor : {"t", "fisher"}
        p-value of the "parcor" base: Student t with n - 2 - p df, or Fisher's z.
    variance : {"auto", "standard", "smoother"}
        Variance of each projected GCM statistic, as in :func:`statcore.cit.gcm_test` ("auto":
        corrected for the smoother's correlation of neighbouring residual products with "krr",
        "rf" and "rf_oob", one factor per projection; "maxboot" keeps the products' correlations
        across projections). ``base="gcm"`` only ("smoother" with another base is an error).
    progress : bool or None
        A progress bar (tqdm) over the long loops: the k runs of a callable ``base`` (counting
        projections as they finish, also on ``n_jobs`` workers) and the B draws of "maxboot" and
        "topr_boot" (advancing per chunk of draws); the built-in bases test all k projections at
        once. Default (None): only when standard error is a terminal. The result does not depend
        on it.
    nan_policy : {"raise", "omit"}
        "raise" (default): a NaN in x, y, z, resid_x or resid_y is an error naming the argument.
        "omit": the observations with a NaN in any of them are dropped. "propagate" is not
        offered: a regression on z cannot use a row with a NaN.
    data : pandas.DataFrame, optional
        With a formula in place of ``x``: the table holding its columns. The result equals
        ``rpcit(x, y, z)`` on the formula's columns (docs/conventions.md, "Formulas").

    Returns
    -------
    HTest
        The aggregated p-value; ``parameter`` k (and r); ``extras``: ``"p_values"`` (k,) per
        projection, ``"statistics"`` (k,) the GCM statistics or partial correlations,
        ``"directions_x"`` (dx, k), ``"directions_y"`` (dy, k), ``"aggregate"``, ``"base"``,
        ``"regression"``, ``"k_requested"``, ``"variance"`` and, when corrected,
        ``"variance_inflation"`` (k,). When x and y are both one-dimensional every projection
        is the same test up to sign, so the base test runs once (``k`` = 1 in ``parameter``).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> n = 300
    >>> z = rng.normal(size=(n, 2))
    >>> x = z @ rng.normal(size=(2, 10)) + rng.normal(size=(n, 10))
    >>> y = z @ rng.normal(size=(2, 8)) + rng.normal(size=(n, 8))
    >>> res = rpcit(x, y, z, k=20, seed=1)
    >>> res.parameter["k"], res.extras["p_values"].shape, res.p_value > 0.05
    (20.0, (20,), True)
    >>> y += 0.5 * x[:, :8]
    >>> rpcit(x, y, z, k=20, seed=1, aggregate="maxboot").p_value < 0.01
    True

    References
    ----------
    Shah & Peters (2020), The hardness of conditional independence testing and the generalised
    covariance measure, Annals of Statistics 48(3). Ruger (1978), Metrika 25; Liu & Xie (2020),
    JASA 115(529); Chernozhukov, Chetverikov & Kato (2013), Gaussian approximations and multiplier
    bootstrap for maxima of sums of high-dimensional random vectors, Annals of Statistics 41(6).
    """
    k = check_positive_int(k, "k")
    B = check_positive_int(B, "B")
    n_jobs = check_n_jobs(n_jobs)
    progress = check_progress(progress)
    nan_policy = check_nan_policy(nan_policy, ("raise", "omit"))
    aggregate = check_choice(aggregate, "aggregate", _AGGREGATES)
    parcor = check_choice(parcor, "parcor", ("t", "fisher"))
    variance = check_choice(variance, "variance", _VARIANCES)
    if callable(base):
        base_name = getattr(base, "__name__", type(base).__name__)
    else:
        base = base_name = check_choice(base, "base", _BASES)
    if aggregate in ("maxboot", "topr_boot") and base_name != "gcm":
        raise ValueError(f"aggregate={aggregate!r} bootstraps the projected GCM statistics; it needs base='gcm'")
    if variance == "smoother" and base_name != "gcm":
        raise ValueError("variance='smoother' corrects the projected GCM statistics; it needs base='gcm'")
    r = check_rank(r, k, aggregate, "aggregate")
    rng = check_seed(seed)
    k_requested = k
    inflation = None

    if callable(base):
        if resid_x is not None or resid_y is not None:
            raise ValueError("a callable base works on the projected data; pass x and y, not residuals")
        data, _ = as_cit_data(nan_policy, required=("x", "y"), x=x, y=y, z=z)
        xa, ya, za = data["x"], data["y"], data["z"]
        n = xa.shape[0]
        k, r = _effective_k(xa.shape[1], ya.shape[1], k, r)
        wx, wy = random_directions(xa.shape[1], k, seed=rng), random_directions(ya.shape[1], k, seed=rng)
        px, py = xa @ wx, ya @ wy
        pv = parallel_map(_callable_pvalue, [(base, px[:, j], py[:, j], za) for j in range(k)], n_jobs=n_jobs,
                          progress=progress, desc="projections", unit="projection")
        pvals, stat, reg = np.asarray(pv, dtype=np.float64), np.full(k, np.nan), "by base"
    else:
        # the directions come first, so a seed fixes them whatever the regression draws
        dx = _ncols(x if resid_x is None else resid_x, "x" if resid_x is None else "resid_x")
        dy = _ncols(y if resid_y is None else resid_y, "y" if resid_y is None else "resid_y")
        k, r = _effective_k(dx, dy, k, r)
        wx, wy = random_directions(dx, k, seed=rng), random_directions(dy, k, seed=rng)
        rx, ry, reg, smoothers = residual_pair(x, y, z, regression, rng, resid_x, resid_y, n_jobs, nan_policy)
        n = rx.shape[0]
        if base == "gcm":
            warn_if_small_n(n, reg)
            warn_if_krr_rpcit_small_n(n, k, reg, aggregate)
            # a common power of two per variable (exact, scale-free test): products of 1e-160 underflow
            rx, ry = rx / pow2_scale(rx, axis=None), ry / pow2_scale(ry, axis=None)
            px, py = rx @ wx, ry @ wy
            prod = px * py
            _, sd, stat = standardised_products(prod)
            if np.any(sd == 0):
                raise ValueError("a projected residual product is constant; x or y is a function of z")
            # residual maps are linear: the projected residuals are Ax (x wx), so one pair of maps serves all k
            inflation = variance_inflation(variance, smoothers, reg, px, py, paired=True)
            if inflation is not None:
                stat = stat / np.sqrt(inflation)
            pvals = normal_pvalue(stat, "two.sided")
        else:
            shape = np.shape(z) if z is not None else (0, 0)
            q = 1 if len(shape) == 1 else int(shape[1])
            stat, pvals = _parcor(rx, ry, wx, wy, q, parcor)

    parameter = {"k": float(k)}
    statistic, statistic_name = None, "statistic"
    if aggregate == "maxboot":
        statistic, p = max_bootstrap_pvalue(prod, stat, B, rng, progress=progress)
        statistic_name = "S"
    elif aggregate == "topr_boot":
        statistic, p = max_bootstrap_pvalue(prod, stat, B, rng, rank=r, progress=progress)
        statistic_name = "S_r"
        parameter["r"] = float(r)
    else:
        p = _combine(pvals, aggregate, r)
        if aggregate == "topr":
            parameter["r"] = float(r)
    label = "GCM" if base_name == "gcm" else ("partial correlation" if base_name == "parcor" else base_name)
    extras = {"p_values": pvals, "statistics": stat, "directions_x": wx, "directions_y": wy,
              "aggregate": aggregate, "base": base_name, "regression": reg, "n": n, "k_requested": k_requested,
              "variance": "standard" if inflation is None else "smoother"}
    if inflation is not None:
        extras["variance_inflation"] = inflation
    if aggregate in ("maxboot", "topr_boot"):
        extras["B"] = B
    both_resid = resid_x is not None and resid_y is not None
    data_name = ("resid_x and resid_y" if both_resid else
                 "x and y" + (" given z" if z is not None and np.size(z) else ""))
    return HTest(statistic=statistic, statistic_name=statistic_name, parameter=parameter, p_value=float(p),
                 alternative="two.sided", method=f"Random-projection conditional independence test "
                 f"({label} base, {_AGG_LABEL[aggregate]}"
                 f"{'' if inflation is None else ', smoother-corrected variance'})", data_name=data_name, extras=extras)


def _effective_k(dx: int, dy: int, k: int, r: int | None) -> tuple[int, int | None]:
    """One-dimensional x and y have only the directions +1 and -1: every projection is the same test
    up to sign, and aggregating k copies of one p-value would only inflate it (Bonferroni: k p)."""
    if dx == 1 and dy == 1:
        return 1, (None if r is None else 1)
    return k, r



def _ncols(v: Any, name: str) -> int:
    if v is None:
        raise ValueError(f"{name} is required: pass {name}, or its residuals on z as resid_{name}")
    shape = np.shape(v)
    if len(shape) not in (1, 2):
        as_float_array(v, name)  # raises the type error first if not numeric
        raise ValueError(f"{name} must be 1- or 2-dimensional, got shape {shape}")
    return 1 if len(shape) == 1 else int(shape[1])
