"""``loglik`` methods for other libraries' fits: scikit-learn Gaussian mixtures, scipy distribution
fits and triples, statsmodels results (linear models, GLMs, discrete and generic likelihood models).

The scipy and statsmodels methods are registered the first time :func:`statcore.loglik` meets one
of their objects (``_LAZY_REGISTRATIONS``), so ``import statcore`` does not import them.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Mapping

import numpy as np

from .._checks import as_feature_matrix, as_sample
from ._likelihood import LogLik, _generic

__all__: list[str] = []


@_generic.register(tuple)
def _(model: tuple) -> LogLik:
    if len(model) == 2 and type(model[0]).__module__.startswith("sklearn"):
        return _sklearn_mixture_loglik(*model)
    if len(model) == 3 and type(model[0]).__module__.startswith("scipy.stats"):
        return _scipy_triple_loglik(*model)
    raise TypeError("a tuple passed to loglik as model must be (GaussianMixture, X) or "
                    "(scipy distribution, params, data); got a tuple of "
                    f"{', '.join(type(m).__name__ for m in model) or 'nothing'}")


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
        raise ValueError("the GaussianMixture model is not fitted; call model.fit(X) first")
    X = as_feature_matrix(X, model.means_.shape[1], "X")
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
    data = as_sample(data, "data")
    with np.errstate(all="ignore"):
        dens = np.asarray(_scipy_logdensity(dist)(data, *args, **kwargs), dtype=float)
    if np.isnan(dens).any():  # scipy's answer to invalid parameters (a scale <= 0, a shape out of range)
        name = getattr(dist, "name", type(dist).__name__)
        raise ValueError(f"params {params!r} are not valid parameters of scipy.stats.{name} (its log-density is NaN: "
                         "a scale must be > 0 and shapes within their range)")
    return LogLik(float(np.sum(dens)), len(args) + len(kwargs), data.size)


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
        raise TypeError("a Tweedie GLM model has no closed-form likelihood (R's logLik gives NA); "
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
