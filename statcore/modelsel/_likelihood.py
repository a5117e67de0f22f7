"""The ``loglik`` generic and R's ``logLik`` object (:class:`LogLik`).

R's ``logLik()`` is an S3 generic and ``AIC()``, ``BIC()`` and ``lmtest::lrtest()`` are written once
on top of it. statcore does the same with :func:`functools.singledispatch`: :func:`loglik` dispatches
on the type of the fitted model; the methods for statsmodels, scikit-learn and scipy live in
:mod:`statcore.modelsel._adapters` and are registered on first use, so ``import statcore`` stays quick.
Users register their own types with ``@statcore.loglik.register(MyFit)``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import singledispatch
from typing import Any

from .._checks import check_ic_penalty, check_loglik_value, check_nobs, check_param_count
from .._r.rformat import R_DIGITS, format_number
from .._result import Result

__all__ = ["LogLik", "loglik"]


@dataclass(frozen=True)
class LogLik(Result):
    """A maximised log-likelihood with its number of estimated parameters, R's ``logLik`` object.

    Attributes
    ----------
    value : float
        The log-likelihood.
    df : int or float
        Number of estimated parameters (R's ``attr(, "df")``).
    nobs : int or None
        Number of observations the model was fitted to (R's ``attr(, "nobs")``); needed by BIC and
        AICc and to check that compared models saw the same data.

    Examples
    --------
    >>> ll = LogLik(-45.2, df=3, nobs=40)
    >>> ll
    LogLik(value=-45.2, df=3, nobs=40)
    >>> print(ll)
    'log Lik.' -45.2 (df=3)
    >>> round(ll.aic(), 4), round(ll.bic(), 4)
    (96.4, 101.4666)
    >>> ll.to_frame()
       loglik  df  nobs
    0   -45.2   3    40
    """

    value: float
    df: float
    nobs: int | None = None

    def __post_init__(self):
        super().__post_init__()
        object.__setattr__(self, "value", check_loglik_value(self.value, "value"))
        object.__setattr__(self, "df", check_param_count(self.df, "df"))
        object.__setattr__(self, "nobs", check_nobs(self.nobs, "nobs"))

    def __float__(self) -> float:
        return self.value

    def __repr__(self) -> str:
        # the dataclass form with the full value (the README's doctest pins it)
        return f"LogLik(value={self.value!r}, df={self.df!r}, nobs={self.nobs!r})"

    def aic(self, k: float = 2.0) -> float:
        """``-2 logLik + k df`` (R's ``AIC``)."""
        return -2.0 * self.value + check_ic_penalty(k, "k") * self.df

    def bic(self) -> float:
        """``-2 logLik + log(nobs) df`` (R's ``BIC``)."""
        if self.nobs is None:
            raise ValueError("BIC needs the number of observations; this log-likelihood has nobs=None")
        return -2.0 * self.value + math.log(self.nobs) * self.df

    def aicc(self) -> float:
        """Small-sample AIC, ``AIC + 2 df (df + 1) / (nobs - df - 1)`` (Hurvich & Tsai 1989)."""
        if self.nobs is None:
            raise ValueError("AICc needs the number of observations; this log-likelihood has nobs=None")
        if self.nobs - self.df - 1 <= 0:
            raise ValueError(f"AICc is undefined when nobs - df - 1 <= 0 (nobs={self.nobs}, df={self.df})")
        return self.aic() + 2.0 * self.df * (self.df + 1) / (self.nobs - self.df - 1)

    def summary(self) -> str:
        """R's ``print.logLik``: ``'log Lik.' -45.2 (df=3)``."""
        # format(c(x), digits = getOption("digits")) and format(df)
        return f"'log Lik.' {format_number(self.value, R_DIGITS)} (df={format_number(self.df)})"

    def to_frame(self):
        """One row: ``loglik``, ``df``, ``nobs``."""
        import pandas as pd

        return pd.DataFrame({"loglik": [self.value], "df": [self.df], "nobs": [self.nobs]})


# ---------------------------------------------------------------------------------------------
# The generic


def _loglik_default(model: Any) -> LogLik:
    from ._adapters import _LAZY_REGISTRATIONS, _REGISTERED

    top = type(model).__module__.split(".")[0]
    for prefix, register in _LAZY_REGISTRATIONS.items():
        if top == prefix and prefix not in _REGISTERED:
            _REGISTERED.add(prefix)
            register()
            return _generic(model)
    if top == "sklearn":
        raise TypeError(
            f"loglik of a scikit-learn {type(model).__name__} needs the training data: "
            "pass loglik((model, X))")
    raise TypeError(
        f"loglik() does not know how to compute the log-likelihood of model, a {type(model).__name__}; "
        f"register it with @statcore.loglik.register({type(model).__name__}) on a function that "
        "takes the model and returns statcore.LogLik(value, df, nobs)")


_generic = singledispatch(_loglik_default)


def loglik(model: Any, *, df: float | None = None) -> LogLik:
    """The maximised log-likelihood of a fitted model, R's ``logLik()``.

    A generic function: it dispatches on the type of ``model``. Registered are statsmodels results
    (OLS/WLS/GLS, GLM of every family, discrete models such as Logit, Probit, Poisson and
    NegativeBinomial, and any likelihood model result with ``llf``), ``(GaussianMixture, X)`` pairs
    from scikit-learn, results of :func:`scipy.stats.fit`, ``(distribution, params, data)`` triples of
    a scipy distribution, statcore's own fits and :class:`LogLik` itself. Register a new type with
    ``@statcore.loglik.register(MyFit)`` on a function returning :class:`LogLik`.

    It takes a fitted model, not data vectors, so it has no ``nan_policy``: the data inside a
    ``(GaussianMixture, X)`` pair or a scipy triple must be finite.

    Parameters
    ----------
    model : object
        The fitted model.
    df : float, optional
        Override the number of estimated parameters (for example to count like statsmodels does).

    Returns
    -------
    LogLik
        The log-likelihood, its number of parameters ``df`` and the number of observations.

    Notes
    -----
    Parameter counts follow R: Gaussian linear models count sigma (``df = p + 1``, ``logLik.lm``);
    GLMs count the dispersion of the gaussian, Gamma and inverse-Gaussian families and use R's
    maximum-likelihood dispersion ``deviance / n`` in the log-likelihood (``logLik.glm``), where
    statsmodels' ``GLMResults.llf`` uses the Pearson estimate for Gamma and inverse-Gaussian.
    Weights follow R too: a weighted linear model leaves rows of zero weight out (statsmodels'
    ``llf`` is ``-inf`` there); a binomial GLM of proportions with the numbers of trials as
    ``var_weights`` (R's ``weights =``) uses the binomial likelihood of the counts; frequency weights
    count in ``nobs``. statsmodels' ``OLSResults.aic`` counts only the ``p`` coefficients, so its
    AIC is smaller than R's by 2; statcore gives R's number, and ``df=`` overrides the count.
    scipy's ``FitResult`` does not record which parameters were held fixed: statcore counts every
    shape parameter, ``loc`` unless it is exactly 0 and ``scale`` unless it is exactly 1 (scipy's
    values for fixed ``loc``/``scale``); pass ``df=`` when a shape was held fixed.

    References
    ----------
    R Core Team, ``?logLik`` (``stats::logLik.lm``, ``stats::logLik.glm``).
    Akaike, H. (1974). A new look at the statistical model identification. IEEE Transactions on
    Automatic Control 19(6), 716-723.

    Examples
    --------
    >>> import numpy as np, statsmodels.api as sm
    >>> x = np.arange(10.0); y = np.array([1.2, 1.9, 3.2, 3.8, 5.3, 5.9, 7.1, 8.2, 8.8, 10.1])
    >>> fit = sm.OLS(y, sm.add_constant(x)).fit()
    >>> print(loglik(fit))          # R: logLik(lm(y ~ x))
    'log Lik.' 3.321231 (df=3)
    >>> loglik(fit).df, int(fit.df_model + 1)   # R counts sigma; statsmodels' aic does not
    (3, 2)
    """
    ll = _generic(model)
    if not isinstance(ll, LogLik):
        raise TypeError(f"the loglik method registered for {type(model).__name__} returned "
                        f"{type(ll).__name__}, not statcore.LogLik")
    if df is not None:
        ll = replace(ll, df=check_param_count(df, "df"))
    return ll


loglik.register = _generic.register      # type: ignore[attr-defined]
loglik.dispatch = _generic.dispatch      # type: ignore[attr-defined]
loglik.registry = _generic.registry      # type: ignore[attr-defined]


@_generic.register(LogLik)
def _(model: LogLik) -> LogLik:
    return model


def _loglik_of(model: Any, label: str, *args: Any) -> LogLik:
    """``loglik(model)``, its errors prefixed with ``label.format(*args)`` (the argument or entry it
    came from; formatted only on error)."""
    try:
        return loglik(model)
    except (TypeError, ValueError) as exc:
        try:
            err = type(exc)(f"{label.format(*args) if args else label}: {exc}")
        except Exception:  # an exception class with another constructor: keep it as it is
            raise exc from None
        raise err from exc
