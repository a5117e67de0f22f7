"""Model comparison: the ``loglik`` generic, AIC / BIC / AICc, comparison tables, likelihood-ratio tests.

R's ``logLik()`` is an S3 generic and ``AIC()``, ``BIC()`` and ``lmtest::lrtest()`` are written once
on top of it. statcore does the same with :func:`functools.singledispatch`: :func:`loglik` knows
statsmodels results, scikit-learn Gaussian mixtures, scipy distribution fits and statcore's own fits;
users register their own types with ``@statcore.loglik.register(MyFit)``. The registrations for
statsmodels, scikit-learn and scipy are made on first use, so ``import statcore`` stays quick.

Parameter counts follow R. A Gaussian linear model counts the residual standard deviation, so a
regression with ``p`` coefficients has ``df = p + 1`` (R's ``logLik.lm``), and GLMs of the gaussian,
Gamma and inverse-Gaussian families count their dispersion (R's ``logLik.glm``). statsmodels'
``OLSResults.aic`` counts only the ``p`` coefficients, so its AIC is smaller than R's by 2; statcore
gives R's number, and ``loglik(model, df=...)`` overrides the count.
"""
from __future__ import annotations

import math
import numbers
import warnings
from dataclasses import dataclass, field, replace
from functools import singledispatch
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from ._checks import check_choice, check_n_jobs, check_positive_int, check_probability, check_seed
from ._result import HTest, StatcoreWarning, TableResult
from ._r.rformat import R_DIGITS, format_number, format_table

__all__ = ["LogLik", "loglik", "aic", "bic", "aicc", "ICTable", "compare_models", "ModelComparison",
           "lrtest", "compare_by_group", "GroupComparison", "NobsWarning"]


class NobsWarning(StatcoreWarning):
    """Models compared by an information criterion were not fitted to the same observations."""


@dataclass(frozen=True)
class LogLik:
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
    >>> print(ll)
    'log Lik.' -45.2 (df=3)
    >>> round(ll.aic(), 4), round(ll.bic(), 4)
    (96.4, 101.4666)
    """

    value: float
    df: float
    nobs: int | None = None

    def __post_init__(self):
        if isinstance(self.value, bool) or not isinstance(self.value, numbers.Real):
            raise TypeError(f"LogLik value must be a real number, got {self.value!r}")
        if isinstance(self.df, bool) or not isinstance(self.df, numbers.Real) or not self.df >= 0:
            raise ValueError(f"LogLik df must be a non-negative number of parameters, got {self.df!r}")
        if self.nobs is not None:
            if isinstance(self.nobs, bool) or not isinstance(self.nobs, numbers.Real) or not self.nobs > 0:
                raise ValueError(f"LogLik nobs must be a positive number of observations, got {self.nobs!r}")
        object.__setattr__(self, "value", float(self.value))
        df = float(self.df)
        object.__setattr__(self, "df", int(df) if df.is_integer() else df)
        if self.nobs is not None:
            n = float(self.nobs)
            object.__setattr__(self, "nobs", int(n) if n.is_integer() else n)

    def __float__(self) -> float:
        return self.value

    def aic(self, k: float = 2.0) -> float:
        """``-2 logLik + k df`` (R's ``AIC``)."""
        return -2.0 * self.value + k * self.df

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

    def __str__(self) -> str:
        # R's print.logLik: format(c(x), digits = getOption("digits")) and format(df)
        return f"'log Lik.' {format_number(self.value, R_DIGITS)} (df={format_number(self.df)})"


# ---------------------------------------------------------------------------------------------
# The generic


def _loglik_default(model: Any) -> LogLik:
    for prefix, register in _LAZY_REGISTRATIONS.items():
        if type(model).__module__.split(".")[0] == prefix and prefix not in _REGISTERED:
            _REGISTERED.add(prefix)
            register()
            return _generic(model)
    if type(model).__module__.split(".")[0] == "sklearn":
        raise TypeError(
            f"loglik of a scikit-learn {type(model).__name__} needs the training data: "
            "pass loglik((model, X))")
    raise TypeError(
        f"loglik() does not know how to compute the log-likelihood of a {type(model).__name__}; "
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

    Parameters
    ----------
    model : object
        The fitted model.
    df : float, optional
        Override the number of estimated parameters (for example to count like statsmodels does).

    Returns
    -------
    LogLik

    Notes
    -----
    Parameter counts follow R: Gaussian linear models count sigma (``df = p + 1``, ``logLik.lm``);
    GLMs count the dispersion of the gaussian, Gamma and inverse-Gaussian families and use R's
    maximum-likelihood dispersion ``deviance / n`` in the log-likelihood (``logLik.glm``), where
    statsmodels' ``GLMResults.llf`` uses the Pearson estimate for Gamma and inverse-Gaussian.
    Weights follow R too: a weighted linear model leaves rows of zero weight out (statsmodels'
    ``llf`` is ``-inf`` there); a binomial GLM of proportions with the numbers of trials as
    ``var_weights`` (R's ``weights =``) uses the binomial likelihood of the counts; frequency weights
    count in ``nobs``.
    scipy's ``FitResult`` does not record which parameters were held fixed: statcore counts every
    shape parameter, ``loc`` unless it is exactly 0 and ``scale`` unless it is exactly 1 (scipy's
    values for fixed ``loc``/``scale``); pass ``df=`` when a shape was held fixed.

    References
    ----------
    R Core Team, ``?logLik``, ``?AIC``. Akaike (1974), IEEE Trans. Automatic Control 19(6).

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
        if isinstance(df, bool) or not isinstance(df, numbers.Real) or not df >= 0:
            raise ValueError(f"df must be a non-negative number of parameters, got {df!r}")
        ll = replace(ll, df=df)
    return ll


loglik.register = _generic.register      # type: ignore[attr-defined]
loglik.dispatch = _generic.dispatch      # type: ignore[attr-defined]
loglik.registry = _generic.registry      # type: ignore[attr-defined]


@_generic.register(LogLik)
def _(model: LogLik) -> LogLik:
    return model


@_generic.register(tuple)
def _(model: tuple) -> LogLik:
    if len(model) == 2 and type(model[0]).__module__.startswith("sklearn"):
        return _sklearn_mixture_loglik(*model)
    if len(model) == 3 and type(model[0]).__module__.startswith("scipy.stats"):
        return _scipy_triple_loglik(*model)
    raise TypeError("a tuple passed to loglik must be (GaussianMixture, X) or "
                    "(scipy distribution, params, data); got a tuple of "
                    f"{', '.join(type(m).__name__ for m in model)}")


# --- scikit-learn ------------------------------------------------------------------------------

def _gmm_nparams(model) -> int:
    k, d = model.means_.shape
    cov = {"full": k * d * (d + 1) // 2, "diag": k * d, "tied": d * (d + 1) // 2, "spherical": k}
    return k * d + cov[model.covariance_type] + k - 1


def _sklearn_mixture_loglik(model, X) -> LogLik:
    from sklearn.mixture import GaussianMixture

    if not isinstance(model, GaussianMixture):
        raise TypeError(f"loglik((model, X)) supports scikit-learn GaussianMixture, got {type(model).__name__}; "
                        "a BayesianGaussianMixture is not a maximum-likelihood fit")
    if not hasattr(model, "means_"):
        raise ValueError("the GaussianMixture is not fitted; call model.fit(X) first")
    X = np.asarray(X, dtype=float)
    if X.ndim == 1:
        X = X[:, None]
    if X.ndim != 2 or X.shape[1] != model.means_.shape[1]:
        raise ValueError(f"X must have shape (n, {model.means_.shape[1]}) like the training data, got {X.shape}")
    return LogLik(float(model.score_samples(X).sum()), _gmm_nparams(model), X.shape[0])


# --- scipy ---------------------------------------------------------------------------------------

def _scipy_logdensity(dist) -> Callable:
    return dist.logpmf if hasattr(dist, "logpmf") else dist.logpdf


def _scipy_triple_loglik(dist, params, data) -> LogLik:
    if not hasattr(dist, "logpdf") and not hasattr(dist, "logpmf"):
        raise TypeError(f"the first element of a (distribution, params, data) triple must be a scipy "
                        f"distribution such as scipy.stats.norm, got {type(dist).__name__}")
    if isinstance(params, Mapping):
        args, kwargs = (), dict(params)
    else:
        args, kwargs = tuple(params), {}
    data = np.asarray(data, dtype=float).ravel()
    if data.size == 0:
        raise ValueError("data of a (distribution, params, data) triple must not be empty")
    value = float(np.sum(_scipy_logdensity(dist)(data, *args, **kwargs)))
    return LogLik(value, len(args) + len(kwargs), data.size)


def _register_scipy() -> None:
    from scipy.stats._fit import FitResult

    @_generic.register(FitResult)
    def _(model) -> LogLik:
        params = model.params._asdict()
        df = 0
        for name, v in params.items():
            if name == "loc" and v == 0:
                continue
            if name == "scale" and v == 1:
                continue
            df += 1
        data = np.asarray(model._data)
        return LogLik(-float(model.nllf()), df, data.size)


# --- statsmodels ---------------------------------------------------------------------------------

def _glm_loglik(res) -> LogLik:
    """R's ``logLik.glm``: dispersion families at the ML dispersion ``deviance / n``."""
    from statsmodels.genmod import families

    model = res.model
    fam = model.family
    y = np.asarray(model.endog, dtype=float)
    mu = np.asarray(res.fittedvalues, dtype=float)
    varw = np.asarray(model.var_weights, dtype=float)
    freqw = np.asarray(model.freq_weights, dtype=float)
    rank = int(round(res.df_model)) + int(res.k_constant)
    # R's nobs.glm: rows with non-zero prior weight, each counted as often as its frequency weight
    n = float(freqw[varw * freqw != 0].sum())
    nobs = int(n) if n.is_integer() else n
    dispersion_family = isinstance(fam, (families.Gaussian, families.Gamma, families.InverseGaussian))
    if isinstance(fam, families.Tweedie):
        raise TypeError("a Tweedie GLM has no closed-form likelihood (R's logLik gives NA); "
                        "pass loglik(model, df=...) on a LogLik you compute yourself")
    if isinstance(fam, families.Gaussian):
        scale = res.deviance / freqw.sum()
    elif dispersion_family:
        # R's Gamma()$aic and inverse.gaussian()$aic multiply each observation's density (at the
        # dispersion deviance / sum(weights)) by its prior weight, as if the weights were frequencies
        scale = res.deviance / (varw * freqw).sum()
        freqw, varw = varw * freqw, np.ones_like(varw)
    else:
        scale = 1.0
    if isinstance(fam, families.Binomial) and np.any(varw != 1):
        # proportions with the numbers of trials as prior weights: R's binomial()$aic, the binomial
        # log-density of round(m y) successes in round(m) trials (statsmodels' llf weights Bernoulli terms)
        from scipy.stats import binom

        value = float(np.sum(freqw * binom.logpmf(np.round(varw * y), np.round(varw), mu)))
    else:
        value = float(fam.loglike(y, mu, var_weights=varw, freq_weights=freqw, scale=scale))
    return LogLik(value, rank + (1 if dispersion_family else 0), nobs)


def _wls_loglik(res, df: int) -> LogLik:
    """R's ``logLik.lm`` with weights: rows of zero weight are left out (statsmodels' llf adds
    log(0) = -inf for them), N counts the rest."""
    w = np.broadcast_to(np.asarray(res.model.weights, dtype=float), np.shape(res.resid))
    keep = w != 0
    r, w = np.asarray(res.resid, dtype=float)[keep], w[keep]
    N = r.size
    value = 0.5 * (np.sum(np.log(w)) - N * (math.log(2 * math.pi) + 1 - math.log(N) + math.log(np.sum(w * r * r))))
    return LogLik(float(value), df, N)


def _nobs(res) -> int | float:
    n = float(res.nobs)
    return int(n) if n.is_integer() else n


def _register_statsmodels() -> None:
    from statsmodels.base.model import LikelihoodModelResults
    from statsmodels.base.wrapper import ResultsWrapper
    from statsmodels.genmod.generalized_linear_model import GLMResults
    from statsmodels.regression.linear_model import OLS, WLS, RegressionResults

    @_generic.register(ResultsWrapper)
    def _(model) -> LogLik:
        return _generic(model._results)

    @_generic.register(RegressionResults)
    def _(model) -> LogLik:
        # R's logLik.lm: the coefficients and sigma
        rank = int(round(model.df_model)) + int(model.k_constant)
        if isinstance(model.model, WLS) and not isinstance(model.model, OLS):
            return _wls_loglik(model, rank + 1)
        return LogLik(float(model.llf), rank + 1, _nobs(model))

    _generic.register(GLMResults, _glm_loglik)

    @_generic.register(LikelihoodModelResults)
    def _(model) -> LogLik:
        if not hasattr(model, "llf"):
            raise TypeError(f"{type(model).__name__} has no log-likelihood (llf)")
        return LogLik(float(model.llf), int(np.size(model.params)), _nobs(model))


_LAZY_REGISTRATIONS: dict[str, Callable[[], None]] = {"statsmodels": _register_statsmodels,
                                                       "scipy": _register_scipy}
_REGISTERED: set[str] = set()


# ---------------------------------------------------------------------------------------------
# Criteria


_CRITERIA = {"AIC": "aic", "BIC": "bic", "AICc": "aicc"}


def _named_logliks(models: Sequence[Any], named: Mapping[str, Any]) -> tuple[list[str], list[LogLik]]:
    names = [f"model{i + 1}" for i in range(len(models))] + list(named)
    fits = list(models) + list(named.values())
    if not fits:
        raise ValueError("at least one model is needed")
    if len(set(names)) != len(names):
        raise ValueError(f"model names must be unique, got {names}")
    return names, [loglik(m) for m in fits]


def _criterion_values(lls: Sequence[LogLik], criterion: str, k: float = 2.0) -> np.ndarray:
    if criterion == "AIC":
        return np.array([ll.aic(k) for ll in lls])
    if criterion == "BIC":
        return np.array([ll.bic() for ll in lls])
    return np.array([ll.aicc() for ll in lls])


def _check_finite(names: Sequence[str], lls: Sequence[LogLik]) -> None:
    for name, ll in zip(names, lls):
        if not math.isfinite(ll.value):
            raise ValueError(f"the log-likelihood of {name} is not finite ({ll.value}); "
                             "check the fit before comparing models")


def _nobs_differ(lls: Sequence[LogLik]) -> bool:
    ns = {ll.nobs for ll in lls}
    return len(ns) > 1


@dataclass(frozen=True, eq=False)
class ICTable(TableResult):
    """The table of ``AIC(m1, m2, ...)``: one row per model, columns ``df`` and the criterion."""

    names: tuple[str, ...]
    df: tuple[float, ...]
    values: tuple[float, ...]
    criterion: str

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame({"df": list(self.df), self.criterion: list(self.values)}, index=list(self.names))

    def summary(self) -> str:
        return format_table(self.names, {"df": list(self.df), self.criterion: list(self.values)}) + "\n"

    def __getitem__(self, name: str) -> float:
        return self.values[self.names.index(name)]

    def __len__(self) -> int:
        return len(self.names)


def _criterion_table(models, named, criterion: str, k: float = 2.0):
    names, lls = _named_logliks(models, named)
    vals = _criterion_values(lls, criterion, k)
    if len(lls) == 1:
        return float(vals[0])
    if _nobs_differ(lls):
        warnings.warn("models are not all fitted to the same number of observations", NobsWarning,
                      stacklevel=3)
    return ICTable(tuple(names), tuple(ll.df for ll in lls), tuple(float(v) for v in vals), criterion)


def aic(*models: Any, k: float = 2.0, **named: Any):
    """Akaike's information criterion, ``-2 logLik + k df``, R's ``AIC()``.

    One model gives a float; several give an :class:`ICTable` with columns ``df`` and ``AIC``, rows
    named by keyword (``aic(linear=m1, quadratic=m2)``) or ``model1``, ``model2``, ... by position.
    Like R, models fitted to different numbers of observations are compared with a warning
    (:func:`compare_models` refuses them).

    Examples
    --------
    >>> import numpy as np, statsmodels.api as sm
    >>> x = np.arange(10.0); y = np.array([1.2, 1.9, 3.2, 3.8, 5.3, 5.9, 7.1, 8.2, 8.8, 10.1])
    >>> m1 = sm.OLS(y, sm.add_constant(x)).fit()
    >>> m2 = sm.OLS(y, np.column_stack([np.ones(10), x, x ** 2])).fit()
    >>> round(aic(m1), 6)                    # R: AIC(lm(y ~ x))
    -0.642462
    >>> print(aic(linear=m1, quadratic=m2))  # R: AIC(linear, quadratic)
              df        AIC
    linear     3 -0.6424623
    quadratic  4  1.3348853
    <BLANKLINE>
    """
    if isinstance(k, bool) or not isinstance(k, numbers.Real) or not (math.isfinite(k) and k >= 0):
        raise ValueError(f"k must be a finite non-negative penalty per parameter, got {k!r}")
    return _criterion_table(models, named, "AIC", float(k))


def bic(*models: Any, **named: Any):
    """Schwarz's Bayesian criterion, ``-2 logLik + log(nobs) df``, R's ``BIC()``.

    Same shapes as :func:`aic`: one model gives a float, several a table.

    Examples
    --------
    >>> from statcore import LogLik
    >>> round(bic(LogLik(-45.2, 3, 40)), 4)
    101.4666
    """
    return _criterion_table(models, named, "BIC")


def aicc(*models: Any, **named: Any):
    """Small-sample corrected AIC, ``AIC + 2 df (df + 1) / (nobs - df - 1)`` (Hurvich & Tsai 1989).

    Same shapes as :func:`aic`; R users know it as ``MuMIn::AICc``.

    Examples
    --------
    >>> from statcore import LogLik
    >>> round(aicc(LogLik(-45.2, 3, 40)), 4)
    97.0667
    """
    return _criterion_table(models, named, "AICc")


# ---------------------------------------------------------------------------------------------
# compare_models


def _as_named_models(models: Any, name: str = "models") -> tuple[list[str], list[Any]]:
    if isinstance(models, Mapping):
        names = [str(k) for k in models]
        fits = list(models.values())
    elif isinstance(models, (list, tuple)):
        names = [f"model{i + 1}" for i in range(len(models))]
        fits = list(models)
    else:
        raise TypeError(f"{name} must be a dict (name -> fit) or a list of fits, got {type(models).__name__}")
    if not fits:
        raise ValueError(f"{name} is empty: at least one model is needed")
    if len(set(names)) != len(names):
        raise ValueError(f"model names in {name} must be unique")
    return names, fits


def _akaike_weights(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    delta = values - values.min()
    rel = np.exp(-0.5 * delta)
    return delta, rel / rel.sum()


@dataclass(frozen=True, eq=False)
class ModelComparison(TableResult):
    """Models ranked by an information criterion, best first, with Akaike weights.

    Attributes
    ----------
    names : tuple of str, best first
    df, loglik, values, delta, weight, evidence_ratio, cum_weight : numpy arrays in the same order
    criterion : "AIC", "BIC" or "AICc"
    nobs : number of observations shared by the models
    """

    names: tuple[str, ...]
    df: np.ndarray
    loglik: np.ndarray
    values: np.ndarray
    delta: np.ndarray
    weight: np.ndarray
    evidence_ratio: np.ndarray
    cum_weight: np.ndarray
    criterion: str
    nobs: Any

    @property
    def best(self) -> str:
        return self.names[0]

    def _columns(self) -> dict[str, list]:
        c = self.criterion
        return {"df": list(self.df), "logLik": list(self.loglik), c: list(self.values),
                f"delta{c}": list(self.delta), "weight": list(self.weight),
                "evidence.ratio": list(self.evidence_ratio), "cum.weight": list(self.cum_weight)}

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame(self._columns(), index=pd.Index(list(self.names), name="model"))

    def summary(self) -> str:
        head = f"Model comparison by {self.criterion}"
        if self.nobs is not None:
            head += f" (n = {self.nobs})"
        cols = self._columns()
        df = cols.pop("df")
        body = format_table(self.names, {"df": [int(d) if float(d).is_integer() else d for d in df],
                                          **{k: [float(v) for v in vs] for k, vs in cols.items()}})
        return f"{head}\n\n{body}\n\nBest model: {self.best} (weight {format_number(self.weight[0], 4)})\n"

    def _plot(self, ax=None, **kwargs):
        import matplotlib.pyplot as plt

        if ax is None:
            fig, ax = plt.subplots(figsize=(5, 0.4 * len(self.names) + 1.2))
        else:
            fig = ax.figure
        y = np.arange(len(self.names))[::-1]
        ax.barh(y, self.weight, color=kwargs.pop("color", "#4477aa"), **kwargs)
        ax.set_yticks(y, list(self.names))
        ax.set_xlim(0, 1)
        ax.set_xlabel(f"{self.criterion} weight")
        ax.set_title(f"Model comparison by {self.criterion}")
        fig.tight_layout()
        return fig


def compare_models(models: Any, criterion: str = "AIC") -> ModelComparison:
    """Rank models by AIC, BIC or AICc, best first, with Akaike weights and evidence ratios.

    Parameters
    ----------
    models : dict of name -> fit, or list of fits (named ``model1``, ``model2``, ...)
        Anything :func:`loglik` accepts.
    criterion : {"AIC", "BIC", "AICc"}

    Returns
    -------
    ModelComparison
        Columns df, logLik, the criterion, its difference to the best (delta), the Akaike weight
        ``exp(-delta/2) / sum exp(-delta/2)``, the evidence ratio to the best (``exp(delta/2)``) and
        the cumulative weight. Ties keep the input order.

    Raises
    ------
    ValueError
        When the models were fitted to different numbers of observations (an information criterion
        compares likelihoods of the same data), or a log-likelihood is not finite.

    References
    ----------
    Burnham & Anderson (2002), Model Selection and Multimodel Inference, 2nd ed., Sec. 2.9.

    Examples
    --------
    >>> from statcore import LogLik
    >>> res = compare_models({"1L": LogLik(-520.3, 5, 2000), "2L": LogLik(-512.9, 11, 2000),
    ...                       "2NL": LogLik(-498.4, 11, 2000)})
    >>> res.best, res.weight.round(4).tolist()
    ('2NL', [1.0, 0.0, 0.0])
    """
    crit = check_choice(criterion, "criterion", tuple(_CRITERIA),
                        aliases={"aic": "AIC", "bic": "BIC", "aicc": "AICc"})
    names, fits = _as_named_models(models)
    lls = [loglik(m) for m in fits]
    _check_finite(names, lls)
    if _nobs_differ(lls):
        detail = ", ".join(f"{n}: {ll.nobs}" for n, ll in zip(names, lls))
        raise ValueError(f"models were not all fitted to the same number of observations ({detail}); "
                         "information criteria compare only fits to the same data")
    values = _criterion_values(lls, crit)
    order = np.argsort(values, kind="stable")
    delta, weight = _akaike_weights(values[order])
    with np.errstate(over="ignore"):   # an evidence ratio beyond 1e308 is infinite, as in R
        evidence = np.exp(0.5 * delta)
    return ModelComparison(
        names=tuple(names[i] for i in order),
        df=np.array([lls[i].df for i in order], dtype=float),
        loglik=np.array([lls[i].value for i in order]),
        values=values[order], delta=delta, weight=weight,
        evidence_ratio=evidence, cum_weight=np.cumsum(weight),
        criterion=crit, nobs=lls[0].nobs)


# ---------------------------------------------------------------------------------------------
# lrtest


def lrtest(m0: Any, m1: Any, *, names: tuple[str, str] | None = None) -> HTest:
    """Likelihood-ratio test of a model against a larger model nesting it (``lmtest::lrtest``).

    The statistic ``2 (logLik(m1) - logLik(m0))`` is compared with a chi-square distribution on
    ``df(m1) - df(m0)`` degrees of freedom. statcore cannot see whether ``m0`` is nested in ``m1``:
    that is the caller's claim; a negative statistic (the larger model fits worse) warns.

    Parameters
    ----------
    m0, m1 : fits accepted by :func:`loglik`; ``m1`` must have more parameters.
    names : (str, str), optional
        Labels for the ``data:`` line and the table; default ``("m0", "m1")``.

    Returns
    -------
    HTest
        statistic "Chisq", parameter ``df``, the p-value, and in ``extras["table"]`` lmtest's table
        (``#Df``, ``LogLik``, ``Df``, ``Chisq``, ``Pr(>Chisq)``) as a pandas DataFrame.

    Examples
    --------
    >>> from statcore import LogLik
    >>> res = lrtest(LogLik(-45.2, 3, 40), LogLik(-43.1, 4, 40))
    >>> round(res.statistic, 4), res.parameter["df"], round(res.p_value, 6)
    (4.2, 1, 0.040424)
    """
    if names is None:
        names = ("m0", "m1")
    elif (not isinstance(names, (tuple, list)) or len(names) != 2
          or not all(isinstance(n, str) for n in names)):
        raise TypeError(f"names must be a pair of strings, got {names!r}")
    ll0, ll1 = loglik(m0), loglik(m1)
    _check_finite(names, (ll0, ll1))
    if ll0.nobs != ll1.nobs:
        raise ValueError(f"m0 and m1 were fitted to different numbers of observations "
                         f"({ll0.nobs} and {ll1.nobs}); a likelihood-ratio test needs the same data")
    ddf = ll1.df - ll0.df
    if not ddf > 0:
        raise ValueError(f"m1 must have more parameters than m0 (df {ll1.df} vs {ll0.df}); "
                         "pass the smaller, nested model as m0")
    from scipy.stats import chi2

    stat = 2.0 * (ll1.value - ll0.value)
    if stat < 0:
        warnings.warn(f"the larger model m1 has the lower log-likelihood (statistic {stat:.4g} < 0): "
                      "the models are not nested or a fit did not converge", StatcoreWarning, stacklevel=2)
    p = float(chi2.sf(stat, ddf))
    import pandas as pd

    table = pd.DataFrame({"#Df": [ll0.df, ll1.df], "LogLik": [ll0.value, ll1.value],
                          "Df": [np.nan, ddf], "Chisq": [np.nan, stat], "Pr(>Chisq)": [np.nan, p]},
                         index=list(names))
    return HTest(statistic=stat, statistic_name="Chisq", parameter={"df": ddf}, p_value=p,
                 method="Likelihood ratio test", data_name=f"{names[0]} and {names[1]}",
                 alternative=None, extras={"table": table, "loglik": (ll0, ll1)})


# ---------------------------------------------------------------------------------------------
# compare_by_group


def _group_logliks(group: Any, models: Mapping[str, Any], names: Sequence[str]) -> list[LogLik]:
    lls = [loglik(models[n]) for n in names]
    for n, ll in zip(names, lls):
        if not math.isfinite(ll.value):
            raise ValueError(f"group {group!r}: the log-likelihood of {n} is not finite ({ll.value})")
    if _nobs_differ(lls):
        raise ValueError(f"group {group!r}: models were not all fitted to the same number of observations "
                         f"({', '.join(f'{n}: {ll.nobs}' for n, ll in zip(names, lls))})")
    return lls


def _bootstrap_wins(best: np.ndarray, n_models: int, B: int, rng: np.random.Generator,
                    chunk: int = 64) -> np.ndarray:
    """Win counts of each model in ``B`` resamples of the groups (rows: replicates)."""
    G = best.size
    out = np.empty((B, n_models), dtype=np.int64)
    for start in range(0, B, chunk):
        b = min(chunk, B - start)
        idx = rng.integers(0, G, size=(b, G))
        keys = best[idx] + n_models * np.arange(b)[:, None]
        out[start:start + b] = np.bincount(keys.ravel(), minlength=b * n_models).reshape(b, n_models)
    return out


@dataclass(frozen=True, eq=False)
class GroupComparison(TableResult):
    """Per-group model comparison (one fit per group and model, e.g. per animal) and its totals.

    Attributes
    ----------
    per_group : pandas.DataFrame
        One row per group: the best model, the criterion of every model and its delta to the best.
    table : pandas.DataFrame
        One row per model, most wins first: wins, share of groups, bootstrap interval of the wins,
        bootstrap probability of having the most wins, summed criterion, summed delta to each group's
        best, and the difference of the summed criterion to the smallest sum.
    boot_wins : numpy.ndarray or None
        Win counts in each bootstrap replicate (``B`` x models), columns in ``models`` order.
    models : tuple of str
    criterion : str
    B : int
    conf_level : float
    fits : mapping or None
        The mapping group -> (model name -> fit) that was compared (read-only, the fits themselves
        held by reference), so callers reach the fitted models through ``res.fits[group][model]``.
    """

    per_group: Any
    table: Any
    boot_wins: np.ndarray | None
    models: tuple[str, ...]
    criterion: str
    B: int
    conf_level: float
    fits: Any = field(default=None, repr=False, compare=False)

    @property
    def n_groups(self) -> int:
        return len(self.per_group)

    @property
    def wins(self) -> dict[str, int]:
        return {m: int(self.table.loc[m, "wins"]) for m in self.models}

    def to_frame(self):
        return self.table.copy()

    def headline(self) -> str:
        """``"2NL best in 84 of 88 groups (95% bootstrap interval 79 to 87)"``."""
        top = self.table.index[0]
        row = self.table.loc[top]
        text = f"{top} best in {int(row['wins'])} of {self.n_groups} groups"
        if self.B > 0:
            text += (f" ({format_number(100 * self.conf_level)}% bootstrap interval "
                     f"{int(row['wins.lower'])} to {int(row['wins.upper'])}, B = {self.B})")
        return text

    def summary(self) -> str:
        c = self.criterion
        t = self.table
        cols: dict[str, list] = {"wins": [int(v) for v in t["wins"]], "share": list(t["share"])}
        if self.B > 0:
            cols["lower"] = [int(v) for v in t["wins.lower"]]
            cols["upper"] = [int(v) for v in t["wins.upper"]]
            cols["P(most)"] = list(t["p.most.wins"])
        cols[f"sum.{c}"] = list(t[f"sum.{c}"])
        cols[f"sum.delta{c}"] = list(t[f"sum.delta{c}"])
        head = f"Per-group comparison by {c}: {self.n_groups} groups, {len(self.models)} models"
        body = format_table(list(t.index), cols)
        note = ""
        if self.B > 0:
            note = (f"\nlower, upper: {format_number(100 * self.conf_level)}% bootstrap interval of the wins "
                    f"(groups resampled, B = {self.B})")
        return f"{head}\n\n{body}\n{note}\n{self.headline()}\n"

    def _plot(self, ax=None, **kwargs):
        import matplotlib.pyplot as plt

        if ax is None:
            fig, ax = plt.subplots(figsize=(1.2 * len(self.models) + 2, 3.5))
        else:
            fig = ax.figure
        t = self.table
        x = np.arange(len(t))
        ax.bar(x, t["wins"], color=kwargs.pop("color", "#4477aa"), **kwargs)
        if self.B > 0:
            ax.errorbar(x, t["wins"], yerr=[t["wins"] - t["wins.lower"], t["wins.upper"] - t["wins"]],
                        fmt="none", ecolor="black", capsize=4)
        ax.set_xticks(x, list(t.index))
        ax.set_ylabel(f"groups where best by {self.criterion}")
        ax.set_ylim(0, self.n_groups)
        ax.set_title(self.headline(), fontsize=9)
        fig.tight_layout()
        return fig


def compare_by_group(fits: Mapping[Any, Mapping[str, Any]], criterion: str = "AIC", *, B: int = 1000,
                     conf_level: float = 0.95, seed: Any = None, n_jobs: int = 1) -> GroupComparison:
    """Compare the same set of models within each group (animal, subject, site) and count wins.

    Parameters
    ----------
    fits : mapping group -> mapping model name -> fit
        Every group must hold the same model names; anything :func:`loglik` accepts as fits.
    criterion : {"AIC", "BIC", "AICc"}
    B : int
        Bootstrap replicates over groups for the uncertainty of the win counts (0 skips it).
    conf_level : float
        Level of the percentile intervals of the win counts.
    seed : None, int or numpy.random.Generator
    n_jobs : int
        Computes the groups' log-likelihoods in parallel through joblib (worth it when ``loglik`` is
        costly, e.g. when it evaluates a model on data).

    Returns
    -------
    GroupComparison
        Per group the best model (ties go to the first model named) and the deltas; overall the wins
        of each model ("2NL best in 84 of 88 groups"), summed criteria and deltas, and the bootstrap
        interval of the wins.

    Examples
    --------
    >>> from statcore import LogLik
    >>> fits = {f"mouse{g}": {"1L": LogLik(-500.0 - g, 5, 1000), "2NL": LogLik(-490.0 - 2 * g, 11, 1000)}
    ...         for g in range(6)}
    >>> res = compare_by_group(fits, B=200, seed=1)
    >>> res.wins
    {'1L': 2, '2NL': 4}
    >>> res.headline()
    '2NL best in 4 of 6 groups (95% bootstrap interval 2 to 6, B = 200)'
    """
    crit = check_choice(criterion, "criterion", tuple(_CRITERIA),
                        aliases={"aic": "AIC", "bic": "BIC", "aicc": "AICc"})
    if not isinstance(fits, Mapping):
        raise TypeError(f"fits must be a mapping group -> (mapping model name -> fit), got {type(fits).__name__}")
    if not fits:
        raise ValueError("fits is empty: at least one group is needed")
    B = check_positive_int(B, "B", minimum=0)
    level = check_probability(conf_level, "conf_level", open_right=True)
    rng = check_seed(seed)
    n_jobs = check_n_jobs(n_jobs)
    groups = list(fits)
    first = fits[groups[0]]
    if not isinstance(first, Mapping) or not first:
        raise TypeError(f"fits[{groups[0]!r}] must be a non-empty mapping model name -> fit")
    names = [str(n) for n in first]
    if len(set(names)) != len(names):
        raise ValueError(f"model names of group {groups[0]!r} collide once written as text: {list(first)}")
    for g in groups:
        models = fits[g]
        if not isinstance(models, Mapping) or sorted(map(str, models)) != sorted(names):
            raise ValueError(f"group {g!r} does not hold the same models as group {groups[0]!r} "
                             f"({sorted(map(str, models)) if isinstance(models, Mapping) else models!r} vs {sorted(names)})")
    keyed = [{str(k): v for k, v in fits[g].items()} for g in groups]
    if n_jobs == 1:
        lls = [_group_logliks(g, m, names) for g, m in zip(groups, keyed)]
    else:
        from joblib import Parallel, delayed

        lls = Parallel(n_jobs=n_jobs)(delayed(_group_logliks)(g, m, names) for g, m in zip(groups, keyed))
    M = len(names)
    C = np.empty((len(groups), M))
    for i, row in enumerate(lls):
        C[i] = _criterion_values(row, crit)
    best = np.argmin(C, axis=1)
    delta = C - C[np.arange(len(groups)), best][:, None]
    wins = np.bincount(best, minlength=M)
    totals = C.sum(axis=0)

    import pandas as pd

    per_group = pd.DataFrame({"best": [names[b] for b in best]}, index=pd.Index(groups, name="group"))
    for j, n in enumerate(names):
        per_group[f"{crit}.{n}"] = C[:, j]
    for j, n in enumerate(names):
        per_group[f"delta.{n}"] = delta[:, j]

    table = pd.DataFrame({"wins": wins, "share": wins / len(groups)}, index=pd.Index(names, name="model"))
    boot = None
    if B > 0:
        boot = _bootstrap_wins(best, M, B, rng)
        a = (1 - level) / 2
        table["wins.lower"] = np.quantile(boot, a, axis=0, method="inverted_cdf")
        table["wins.upper"] = np.quantile(boot, 1 - a, axis=0, method="inverted_cdf")
        is_max = boot == boot.max(axis=1, keepdims=True)
        table["p.most.wins"] = (is_max / is_max.sum(axis=1, keepdims=True)).mean(axis=0)
    table[f"sum.{crit}"] = totals
    table[f"sum.delta{crit}"] = delta.sum(axis=0)
    table[f"diff.sum.{crit}"] = totals - totals.min()
    order = np.lexsort((totals, -wins))  # most wins first, then smaller summed criterion
    table = table.iloc[order]
    return GroupComparison(per_group=per_group, table=table, boot_wins=boot, models=tuple(names),
                           criterion=crit, B=B, conf_level=level, fits=fits)
