"""Residuals of several outputs on a conditioning set, regressed all at once: the dispatcher.

Every conditional-independence test in :mod:`statcore.cit` starts from the residuals of X on Z and
of Y on Z. One regression serves all columns of its response (multi-output): OLS, ridge and kernel
ridge (:mod:`statcore.cit._smoothers`) compute one spectral decomposition of Z for X and Y together
and tune one penalty per response; a random forest (:mod:`statcore.cit._forests`) is grown once with
all outputs. Every named regression is a fixed linear smoother, so the residual of ``v @ w`` is the
residual of ``v`` times ``w`` (what lets RP-CIT test many projections for the price of one
regression). How the forests came to be what they are is recorded in benchmarks/README.md ("cit").
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._checks import InputWrapper, as_cit_data, check_choice, check_n_jobs, check_seed
from .._checks.public import public_function
from .._result import Result
from ._forests import _FOREST_VARIANTS, ForestSmoother, _forest_weights, _honest_forest_weights  # noqa: F401
from ._smoothers import _BASES, MIN_RESIDUAL_DF, SpectralSmoother

__all__ = ["residualize", "fit_residualizer", "fit_residualizers", "RegressionFit", "SpectralSmoother",
           "ForestSmoother", "REGRESSIONS"]

#: Regression names accepted by ``residualize`` (besides a scikit-learn regressor instance);
#: "rf_oob" is experimental (see :func:`residualize`).
REGRESSIONS = ("ols", "ridge", "krr", "rf", "rf_oob")

#: Smallest n per named regression besides "ols" (which needs p + 3). "ridge", "krr": the intercept,
#: at least one effective degree of freedom for z and the MIN_RESIDUAL_DF residual ones. "rf": leaves
#: (and "rf_oob") hold at least 5 observations, so a tree splits only if its bootstrap sample holds 10 distinct
#: observations; a bootstrap sample holds about 0.632 n of them, at n = 20 at least 10 in 99.3% of
#: draws (16: 75%). Below that most trees are a single leaf, the out-of-bag fit is a constant and the
#: test would ignore z.
MIN_N = {"ridge": 2 + MIN_RESIDUAL_DF, "krr": 2 + MIN_RESIDUAL_DF, "rf": 20, "rf_oob": 20}


def _sklearn_residuals(v, z, estimator):
    from sklearn.base import clone

    est = clone(estimator)
    try:
        est.fit(z, v[:, 0] if v.shape[1] == 1 else v)
        pred = np.asarray(est.predict(z), dtype=np.float64).reshape(v.shape)
    except ValueError:
        if v.shape[1] == 1:
            raise
        # a single-output regressor: one fit per column
        pred = np.column_stack([np.asarray(clone(estimator).fit(z, v[:, j]).predict(z), dtype=np.float64)
                                for j in range(v.shape[1])])
    return v - pred


@dataclass(frozen=True, eq=False, repr=False)
class RegressionFit(Result):
    """The residuals of ``v`` on ``z`` and the smoother that made them (:func:`fit_residualizer`).

    Attributes
    ----------
    residuals : ndarray (n, d)
        Read-only; copy it (``np.array(fit.residuals)``) to change it.
    smoother : SpectralSmoother, ForestSmoother or None
        Set for "ols", "ridge", "krr" (and z absent) and for the forests "rf", "rf_oob" (the fitted
        partition and its kernel weights): apply it to any other response on the same ``z`` with
        the same tuning, ``smoother.residuals(u)``. None for a scikit-learn regressor instance.
    regression : str
        The regression's name (the class name for a scikit-learn instance).

    Examples
    --------
    >>> import numpy as np
    >>> from statcore.cit import fit_residualizer
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(50, 2))
    >>> fit = fit_residualizer(z @ [1.0, 2.0] + rng.normal(size=50), z, regression="ols")
    >>> fit
    RegressionFit(regression='ols', n=50, d=1, df=3)
    >>> fit.to_frame().columns.tolist()
    ['column', 'rss', 'df', 'regression']
    """

    residuals: np.ndarray
    smoother: SpectralSmoother | ForestSmoother | None
    regression: str

    def _df(self) -> float:
        return getattr(self.smoother, "df", float("nan")) if self.smoother is not None else float("nan")

    def _repr_parts(self):
        n, d = self.residuals.shape
        parts = [("regression", self.regression), ("n", n), ("d", d)]
        if isinstance(self.smoother, SpectralSmoother):
            parts.append(("df", self.smoother.df))
        return parts

    def summary(self) -> str:
        """The regression, n, the number of columns and each column's residual sum of squares."""
        n, d = self.residuals.shape
        rss = ", ".join(f"{v:.4g}" for v in (self.residuals ** 2).sum(axis=0)[:10])
        more = ", ..." if d > 10 else ""
        return (f"Residuals of {d} column(s) on z by {self.regression!r} (n = {n})\n"
                f"residual sum of squares: {rss}{more}\n")

    def to_frame(self):
        """One row per column of the response: ``column`` (its position), ``rss`` (residual sum
        of squares), ``df`` (the smoother's effective degrees of freedom, NaN when unknown),
        ``regression``."""
        import pandas as pd

        d = self.residuals.shape[1]
        return pd.DataFrame({"column": np.arange(d), "rss": (self.residuals ** 2).sum(axis=0),
                             "df": np.full(d, self._df()), "regression": [self.regression] * d})


def _resolve_regression(regression: Any) -> str | Any:
    if isinstance(regression, str):
        return check_choice(regression, "regression", REGRESSIONS)
    if hasattr(regression, "fit") and hasattr(regression, "predict"):
        return regression
    raise TypeError(f"regression must be one of {', '.join(map(repr, REGRESSIONS))} or a scikit-learn "
                    f"regressor (an object with fit and predict), got {type(regression).__name__}")


def regression_name(regression: Any) -> str:
    return regression if isinstance(regression, str) else type(regression).__name__


def _residual_fits(arrays: list, z: np.ndarray | None, regression: Any, rng: np.random.Generator,
                   n_jobs: int, names: tuple) -> list[tuple[np.ndarray, Any, str]]:
    """(residuals, smoother or None, regression name) per validated (n, d) response on validated z."""
    reg = _resolve_regression(regression)
    name = regression_name(reg)
    n = arrays[0].shape[0]
    if n < 3:
        raise ValueError(f"at least 3 observations are needed, got n = {n}")
    if isinstance(reg, str) and reg in MIN_N and z is not None and n < MIN_N[reg]:
        raise ValueError(f"regression={reg!r} needs at least {MIN_N[reg]} observations, got n = {n}"
                         + ("; its trees (leaves of at least 5, grown on bootstrap samples) cannot split "
                            "below that and would ignore z" if reg in _FOREST_VARIANTS else
                            f" (the intercept, z and {MIN_RESIDUAL_DF} residual degrees of freedom)"))
    if z is None:
        empty = SpectralSmoother(np.zeros((n, 0)), np.zeros(0), "mean")
        return [(empty.residuals(v), empty, name) for v in arrays]
    if isinstance(reg, str) and reg in _BASES:
        basis = _BASES[reg](z)
        out = []
        for v in arrays:
            sm = basis.smoother(v)
            out.append((sm.residuals(v), sm, name))
        return out
    if reg in _FOREST_VARIANTS:
        from ._forests import _random_forest

        # the linear stage's decomposition of z is shared by all responses, as for the linear smoothers
        stage = _FOREST_VARIANTS[reg][0]
        basis = _BASES[stage](z) if stage is not None else None
        return [_random_forest(v, z, rng, n_jobs, reg, basis) for v in arrays]
    return [(_sklearn_residuals(v, z, reg), None, name) for v in arrays]


def _validated(vs: list, names: tuple, z: Any, nan_policy: str):
    data, keep = as_cit_data(nan_policy, required=names, **dict(zip(names, vs)), z=z)
    za = data.pop("z")
    if za is not None and za.shape[1] == 0:
        za = None
    return [data[nm] for nm in names], za, keep


def fit_residualizers(vs: list, z: Any, *, regression: Any = "ols", seed: Any = None, n_jobs: int = 1,
                      names: tuple[str, ...] | None = None, nan_policy: str = "raise") -> list[RegressionFit]:
    """Regress several responses on the same ``z``; linear smoothers share one decomposition of z.

    Each response (an (n, d) array) is regressed once for all its columns and gets its own
    penalty (ridge, kernel ridge); the SVD or kernel eigendecomposition of ``z`` is computed once.

    Parameters
    ----------
    vs : list of array_like (n,) or (n, d)
        The responses.
    z : array_like (n, p), or None
        Conditioning variables, as in :func:`residualize`.
    regression : str or scikit-learn regressor
        As in :func:`residualize` (minimum sample sizes included).
    seed : None, int or numpy.random.Generator
        For "rf" and "rf_oob" only.
    n_jobs : int
        Threads of the random forest.
    names : tuple of str, optional
        Labels of the responses in error messages (default ``vs[0]``, ``vs[1]``, ...).
    nan_policy : {"raise", "omit"}
        "omit" drops the observations with a NaN in any response or in z; "propagate" is not
        offered (a regression cannot use a row with a NaN).

    Returns
    -------
    list of RegressionFit
        One per response, in order.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(80, 2))
    >>> x = np.sin(z) + 0.3 * rng.normal(size=(80, 2))
    >>> y = z[:, :1] ** 2 + 0.3 * rng.normal(size=(80, 1))
    >>> fx, fy = fit_residualizers([x, y], z, regression="krr", names=("x", "y"))
    >>> fx.residuals.shape, fy.residuals.shape
    ((80, 2), (80, 1))
    >>> fx.smoother.basis is fy.smoother.basis  # one kernel eigendecomposition for both
    True

    References
    ----------
    Golub, Heath & Wahba (1979), Generalized cross-validation as a method for choosing a good ridge
    parameter, Technometrics 21(2). Hastie, Tibshirani & Friedman (2009), The Elements of
    Statistical Learning, 2nd ed., Springer, Sections 5.4.1 (linear smoothers) and 7.10.
    """
    if not isinstance(vs, (list, tuple)):
        raise TypeError(f"vs must be a list of arrays (one per response), got {type(vs).__name__}")
    if not vs:
        raise ValueError("vs is empty; pass at least one response")
    if names is None:
        names = tuple(f"vs[{i}]" for i in range(len(vs)))
    elif len(names) != len(vs) or len(set(names)) != len(names):
        raise ValueError(f"names must hold {len(vs)} distinct labels, one per response in vs; got {names!r}")
    n_jobs = check_n_jobs(n_jobs)
    arrays, za, _ = _validated(list(vs), tuple(names), z, nan_policy)
    rng = check_seed(seed)
    return [RegressionFit(*fit) for fit in _residual_fits(arrays, za, regression, rng, n_jobs, tuple(names))]


def fit_residualizer(v: Any, z: Any, *, regression: Any = "ols", seed: Any = None, n_jobs: int = 1,
                     nan_policy: str = "raise") -> RegressionFit:
    """Regress all columns of ``v`` on ``z`` at once; see :func:`residualize`.

    Parameters
    ----------
    v : array_like (n,) or (n, d)
        Responses; all columns are regressed at once.
    z : array_like (n, p), or None
        Conditioning variables.
    regression : str or scikit-learn regressor
        As in :func:`residualize`.
    seed : None, int or numpy.random.Generator
        For "rf" and "rf_oob" only.
    n_jobs : int
        Threads of the random forest.
    nan_policy : {"raise", "omit"}
        As in :func:`residualize`.

    Returns
    -------
    RegressionFit
        The residuals (a read-only (n, d) ndarray whatever the input) and, for "ols", "ridge",
        "krr", "rf" and "rf_oob", the fitted smoother, which gives the residuals of any other
        response on the same ``z`` with the same tuning (for the forests: the same partition and
        weights).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(60, 3))
    >>> v = z @ rng.normal(size=(3, 4)) + rng.normal(size=(60, 4))
    >>> fit = fit_residualizer(v, z, regression="ridge")
    >>> w = rng.normal(size=4)
    >>> bool(np.allclose(fit.smoother.residuals(v @ w), fit.residuals @ w))  # linear in v
    True
    >>> fit.regression, round(fit.smoother.df, 2) <= 4
    ('ridge', True)

    References
    ----------
    Golub, Heath & Wahba (1979), Technometrics 21(2). Breiman (2001), Random forests, Machine
    Learning 45. Zhang, Nettleton & Zhu (2019), Regression-enhanced random forests, arXiv:1904.10416.
    Buhlmann & Yu (2003), Boosting with the L2 loss, JASA 98(462). Wager & Athey (2018),
    Estimation and inference of heterogeneous treatment effects using random forests, JASA 113(523).
    """
    n_jobs = check_n_jobs(n_jobs)
    arrays, za, _ = _validated([v], ("v",), z, nan_policy)
    return RegressionFit(*_residual_fits(arrays, za, regression, check_seed(seed), n_jobs, ("v",))[0])


@public_function(data=("v", "z"), nan_policy=("raise", "omit"))
def residualize(v: Any, z: Any, *, regression: Any = "ols", seed: Any = None, n_jobs: int = 1,
                nan_policy: str = "raise") -> Any:
    """Residuals of every column of ``v`` regressed on ``z``, one multi-output fit.

    Parameters
    ----------
    v : array_like (n,) or (n, d)
        Responses; all columns are regressed at once.
    z : array_like (n, p), or None
        Conditioning variables. None or zero columns: the residuals are the centred ``v``.
    regression : str or scikit-learn regressor
        ``"ols"`` (least squares with intercept), ``"ridge"`` (z standardised, one penalty shared by
        all outputs, chosen by generalised cross-validation with every output weighted equally),
        ``"krr"`` (Gaussian-kernel ridge, bandwidth by the median heuristic, penalty by GCV; one
        eigendecomposition of the centred kernel matrix serves all outputs and penalties), ``"rf"``
        (a random forest made a fixed linear smoother: kernel ridge on z as for ``"krr"``, then a
        100-tree multi-output forest, leaves of at least 5, grown on the kernel ridge residuals,
        and its honest kernel weights ``W`` (partition from each tree's bootstrap rows, leaf means
        from its out-of-bag rows) applied twice, residuals ``(I - W)^2 (v - kernel ridge fit)``;
        it costs the kernel eigendecomposition, O(n^3), on top of the forest), ``"rf_oob"``
        (EXPERIMENTAL, kept for comparison: the plain forest on ``v``, out-of-bag residuals
        ``(I - W) v``; too biased for a calibrated GCM on nonlinear designs), or any scikit-learn
        regressor instance (cloned, fitted multi-output, in-sample residuals).
        Every named regression leaves at least two residual degrees of freedom (with one, the
        residuals of any two responses are proportional); smallest n: ``"ols"`` p + 3, ``"ridge"``
        and ``"krr"`` 4 (their GCV penalty keeps the effective degrees of freedom at most n - 2),
        ``"rf"``, ``"rf_oob"`` 20 (below that most trees cannot split). See ``MIN_RESIDUAL_DF`` and
        ``MIN_N``.
    seed : None, int or numpy.random.Generator
        For ``"rf"`` and ``"rf_oob"`` only.
    n_jobs : int
        Threads of the random forest.
    nan_policy : {"raise", "omit"}
        "raise" (default): a NaN in ``v`` or ``z`` is an error. "omit": the observations with a NaN
        in ``v`` or ``z`` are dropped (the residuals have fewer rows; a pandas input keeps the index
        of the rows kept). "propagate" is not offered: a regression cannot use a row with a NaN.

    Returns
    -------
    ndarray (n, d), pandas.Series or pandas.DataFrame
        Residuals; a new array, ``v`` is not modified. A Series ``v`` gives a Series, a DataFrame a
        DataFrame, with ``v``'s index and name or columns; any other input an (n, d) ndarray.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(100, 2))
    >>> v = np.column_stack([z @ [1.0, -2.0], z[:, 0] ** 2]) + rng.normal(size=(100, 2))
    >>> r = residualize(v, z, regression="ols")
    >>> r.shape, bool(np.allclose(r.T @ z, 0)), bool(np.allclose(r.mean(axis=0), 0))
    ((100, 2), True, True)
    >>> import pandas as pd
    >>> s = pd.Series(v[:, 0], index=[f"id{i}" for i in range(100)], name="v0")
    >>> rs = residualize(s, z)
    >>> type(rs).__name__, rs.name, rs.index[0], bool(np.allclose(rs.to_numpy(), r[:, 0]))
    ('Series', 'v0', 'id0', True)

    References
    ----------
    Golub, Heath & Wahba (1979), Generalized cross-validation as a method for choosing a good ridge
    parameter, Technometrics 21(2). Breiman (2001), Random forests, Machine Learning 45.
    """
    wrapper = InputWrapper.of(v)
    n_jobs = check_n_jobs(n_jobs)
    arrays, za, keep = _validated([v], ("v",), z, nan_policy)
    res = _residual_fits(arrays, za, regression, check_seed(seed), n_jobs, ("v",))[0][0]
    if keep is not None and wrapper.index is not None:
        wrapper = InputWrapper(wrapper.kind, wrapper.index[keep], wrapper.name)
    if wrapper.kind == "series":
        return wrapper.wrap(res[:, 0])
    return wrapper.wrap(res) if wrapper.kind == "frame" else res
