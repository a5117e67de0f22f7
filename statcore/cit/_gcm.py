"""The generalised covariance measure (GCM) test of conditional independence, Shah & Peters (2020).

Residuals of X on Z and of Y on Z; under X independent of Y given Z (and regressions that are good
enough) the mean of their products is asymptotically normal around zero. One pair of columns: the
normalised mean against N(0, 1). Several: the maximum over all pairs of columns, calibrated by a
Gaussian multiplier bootstrap (Shah & Peters, Sec. 3), or a quadratic form against chi-square.

The max statistic and its bootstrap draws are both built from the products standardised column by
column (Shah & Peters' T_jk = sqrt(n) mean / sd), so the p-value does not change when a residual
column is rescaled. Implementations that standardise only the draws compare an unstandardised
maximum with standardised draws and are miscalibrated whenever residual scales differ.
"""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .._checks import check_choice, check_n_jobs, check_positive_int, check_progress, check_seed, pow2_scale
from .._checks.public import public_function
from .._result import HTest
from ._gcm_core import (_ALTERNATIVES, _ESTIMAND, _KINDS, _VARIANCES, AUTO_MAX_N, SMOOTHER_CORRECTED,  # noqa: F401
                        GCMWarning, _special, max_bootstrap_pvalue, normal_pvalue, quadratic_form,
                        residual_pair, row_products, smoother_inflation, standardised_products,
                        variance_inflation, warn_if_small_n)

__all__ = ["gcm_test", "GCMWarning"]


def _data_name(x, y, z, resid_x, resid_y) -> str:
    xs = "resid_x" if resid_x is not None else "x"
    ys = "resid_y" if resid_y is not None else "y"
    if resid_x is not None and resid_y is not None:
        return f"{xs} and {ys}"
    return f"{xs} and {ys}" + (" given z" if z is not None and np.size(z) else "")


@public_function(data=("x", "y", "z"), nan_policy=("raise", "omit"), formula=dict(lhs="y", rhs="x", cond="z"))
def gcm_test(x: Any, y: Any = None, z: Any = None, *, regression: Any = "ols", kind: str | None = None,
             B: int = 499, alternative: str = "two.sided", seed: Any = None, resid_x: Any = None,
             resid_y: Any = None, n_jobs: int = 1, variance: str = "auto", progress: bool | None = None,
             nan_policy: str = "raise", data: Any = None) -> HTest:
    """Generalised covariance measure test of X independent of Y given Z.

    Parameters
    ----------
    x, y : array_like (n,) or (n, d)
        The variables tested; may be None when the matching ``resid_x`` / ``resid_y`` is given.
        ``x`` may instead be a formula ``"y ~ x | z1 + z2"`` with ``data=`` (y, x and z from the
        formula; categorical columns as R's treatment-contrast dummies).
    z : array_like (n, p), optional
        Conditioning variables (None: a test of plain independence, residuals are centred values).
    regression : str or scikit-learn regressor
        How x and y are regressed on z: "ols", "ridge", "krr", "rf" or a regressor instance (see
        :func:`statcore.cit.residualize`). Multi-output regressions fit once for all columns.
    kind : {"scalar", "quadratic", "max"}, optional
        "scalar" (one column each): T = sqrt(n) mean(R) / sd(R) against N(0, 1), R the residual
        products. "max": max over the dx * dy column pairs of ``|T_jk|``, with a Gaussian multiplier
        bootstrap of the same standardised statistics. "quadratic": n Rbar' S^-1 Rbar against
        chi-square with dx * dy degrees of freedom (a pseudo-inverse and its rank when S is
        singular, with a warning). Default: "scalar" for one column each, else "max".
    B : int
        Bootstrap draws for "max".
    alternative : {"two.sided", "greater", "less"}
        Sign of the covariance under the alternative ("quadratic" is two-sided only).
    seed : None, int or numpy.random.Generator
        For the bootstrap and a random-forest regression.
    resid_x, resid_y : array_like, optional
        Precomputed residuals, used as given; they replace the regression of x (of y) on z.
    n_jobs : int
        Threads for a random-forest regression (joblib's convention: -1 all cores).
    variance : {"auto", "standard", "smoother"}
        The variance of each mean residual product. "standard": Shah & Peters' sample variance of the
        products, which treats them as independent. "smoother": that variance times the factor by
        which the regression's smoother correlates neighbouring products
        (:func:`statcore.cit._gcm.smoother_inflation`; each T_jk is divided by its square root, the
        bootstrap and the quadratic form keep the products' correlations). "auto" (default):
        "smoother" for the local smoothers "krr", "rf" and "rf_oob" up to n = 10,000 (above, the
        standard variance with a warning), "standard" otherwise, so OLS and ridge give the published
        GCM. "smoother" needs a named regression on a non-empty z.
    progress : bool or None
        ``kind="max"``: a progress bar (tqdm) over the B multiplier bootstrap draws, advancing per
        chunk of draws (the other kinds draw nothing). Default (None): only when standard error is a
        terminal. The result does not depend on it.
    nan_policy : {"raise", "omit"}
        "raise" (default): a NaN in x, y, z, resid_x or resid_y is an error naming the argument.
        "omit": the observations (rows) with a NaN in any of them are dropped before the
        regressions. "propagate" is not offered: a regression on z cannot use a row with a NaN.
    data : pandas.DataFrame, optional
        With a formula in place of ``x``: the table holding its columns. The result equals
        ``gcm_test(x, y, z)`` on the formula's columns (docs/conventions.md, "Formulas");
        its ``data_name`` reads "y and x given z1 + z2".

    Returns
    -------
    HTest
        ``statistic`` T (scalar), S (max) or X-squared (quadratic); ``estimate`` the mean residual
        product for one pair; ``extras``: ``"statistics"`` the (dx, dy) matrix of T_jk,
        ``"regression"``, ``"n"``, ``"variance"`` ("standard" or "smoother"),
        ``"variance_inflation"`` the (dx, dy) factors when corrected, and ``"B"`` for the bootstrap.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> z = rng.normal(size=500)
    >>> x = z + rng.normal(size=500)
    >>> y = z + rng.normal(size=500)
    >>> res = gcm_test(x, y, z)
    >>> round(res.statistic, 3), round(res.p_value, 3)
    (2.076, 0.038)
    >>> gcm_test(x, y + 0.3 * x, z).p_value < 1e-6
    True
    >>> import pandas as pd
    >>> df = pd.DataFrame({"x": x, "y": y, "z": z})
    >>> gcm_test("y ~ x | z", data=df).data_name
    'y and x given z'

    Notes
    -----
    The level is asymptotic and needs regressions whose errors vanish fast enough (Shah & Peters,
    Thm. 6). At small n the normal reference is too light-tailed: in seeded simulations the scalar
    test held its level from n = ``statcore.cit._gcm_core.GCM_MIN_N[regression]`` on (25 for
    "ols" and "ridge", 20 for "krr"), and a ``GCMWarning`` is issued below it (the measured
    sizes: ``benchmarks/README.md``, section "cit").

    In finite samples a flexible smoother also makes the residuals correlated across
    observations, which Shah & Peters' variance estimate ignores; ``variance="smoother"`` (the
    default for "krr", "rf" and "rf_oob") estimates that factor from the smoother's residual maps,
    treating the fitted smoother as fixed. Linear regression on a few variables is unaffected.
    The measurements behind this are in benchmarks/README.md, section "cit".

    References
    ----------
    Shah & Peters (2020), The hardness of conditional independence testing and the generalised
    covariance measure, Annals of Statistics 48(3), 1514-1538.
    """
    B = check_positive_int(B, "B")
    alternative = check_choice(alternative, "alternative", _ALTERNATIVES)
    variance = check_choice(variance, "variance", _VARIANCES)
    n_jobs = check_n_jobs(n_jobs)
    progress = check_progress(progress)
    if kind is not None:
        kind = check_choice(kind, "kind", _KINDS)
    rng = check_seed(seed)
    rx, ry, reg, smoothers = residual_pair(x, y, z, regression, rng, resid_x, resid_y, n_jobs, nan_policy)
    n, dx, dy = rx.shape[0], rx.shape[1], ry.shape[1]
    warn_if_small_n(n, reg)
    if kind is None:
        kind = "scalar" if dx * dy == 1 else "max"
    if kind == "scalar" and dx * dy > 1:
        raise ValueError(f"kind='scalar' needs one column in x and in y, got {dx} and {dy}; "
                         f"use kind='max' or kind='quadratic'")
    if kind == "quadratic" and alternative != "two.sided":
        raise ValueError("kind='quadratic' is two-sided; use alternative='two.sided' or kind='max'")
    # the statistics are scale-invariant column by column: residuals of any magnitude to order 1 (exact
    # powers of two) before their products, which would overflow at 1e160 and underflow at 1e-160
    sx, sy = pow2_scale(rx), pow2_scale(ry)
    rx, ry = rx / sx, ry / sy
    prod = row_products(rx, ry)
    mean, sd, tstat = standardised_products(prod)
    if np.any(sd == 0):
        raise ValueError("the residual products are constant: x or y is a function of z; no test possible")
    mean = mean * np.outer(sx, sy).ravel()  # the estimate in the data's units (inf beyond float64's range)
    inflation = variance_inflation(variance, smoothers, reg, rx, ry, paired=False)
    extras: dict[str, Any] = {"regression": reg, "n": n,
                              "variance": "standard" if inflation is None else "smoother"}
    if inflation is not None:
        inflation = inflation.ravel()       # the order of row_products: x's column slowest
        tstat = tstat / np.sqrt(inflation)
        extras["variance_inflation"] = inflation.reshape(dx, dy)
    extras["statistics"] = tstat.reshape(dx, dy)
    data_name = _data_name(x, y, z, resid_x, resid_y)
    base = "Generalised covariance measure test"
    tag = "" if inflation is None else "smoother-corrected variance"

    def method(label: str) -> str:
        parts = "; ".join(p for p in (label, tag) if p)
        return f"{base} ({parts})" if parts else base

    if kind == "scalar":
        t = float(tstat[0])
        return HTest(statistic=t, statistic_name="T", p_value=float(normal_pvalue(t, alternative)),
                     estimate={_ESTIMAND: float(mean[0])}, null_value={_ESTIMAND: 0.0},
                     alternative=alternative, method=method(""), data_name=data_name, extras=extras)
    if kind == "max":
        s, p = max_bootstrap_pvalue(prod, tstat, B, rng, alternative, progress=progress)
        extras["B"] = B
        return HTest(statistic=s, statistic_name="S", p_value=p, null_value={_ESTIMAND: 0.0},
                     alternative=alternative, method=method("max statistic, multiplier bootstrap"),
                     data_name=data_name, extras=extras)
    q, rank, singular = quadratic_form(prod, inflation)
    if singular:
        warnings.warn(f"the covariance of the {dx * dy} residual products is singular (rank {rank}); "
                      f"the quadratic form uses its pseudo-inverse and {rank} degrees of freedom",
                      GCMWarning, stacklevel=2)
    return HTest(statistic=q, statistic_name="X-squared", parameter={"df": float(rank)},
                 p_value=float(_special().chdtrc(rank, q)), null_value={_ESTIMAND: 0.0},
                 alternative=alternative, method=method("quadratic form"), data_name=data_name,
                 extras=extras)
