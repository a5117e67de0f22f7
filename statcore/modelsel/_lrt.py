"""The likelihood-ratio test of nested models, ``lmtest::lrtest``."""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .._checks import check_name_pair
from .._result import HTest, StatcoreWarning
from ._criteria import _check_finite
from ._likelihood import _loglik_of

__all__ = ["lrtest"]


def lrtest(m0: Any, m1: Any, *, names: tuple[str, str] | None = None) -> HTest:
    """Likelihood-ratio test of a model against a larger model nesting it (``lmtest::lrtest``).

    The statistic ``2 (logLik(m1) - logLik(m0))`` is compared with a chi-square distribution on
    ``df(m1) - df(m0)`` degrees of freedom. statcore cannot see whether ``m0`` is nested in ``m1``:
    that is the caller's claim; a negative statistic (the larger model fits worse) warns
    (:class:`statcore.StatcoreWarning`). It takes fitted models, not data vectors, so it has no
    ``nan_policy``.

    Parameters
    ----------
    m0 : object
        The smaller (nested) model: a fit accepted by :func:`statcore.loglik`.
    m1 : object
        The larger model, with more parameters, fitted to the same observations.
    names : (str, str), optional
        Labels for the ``data:`` line and the table; default ``("m0", "m1")``.

    Returns
    -------
    HTest
        statistic "Chisq", parameter ``df``, the p-value, and in ``extras["table"]`` lmtest's table
        (``#Df``, ``LogLik``, ``Df``, ``Chisq``, ``Pr(>Chisq)``) as a pandas DataFrame.

    References
    ----------
    Zeileis, A. and Hothorn, T. (2002). Diagnostic checking in regression relationships. R News
    2(3), 7-10 (``lmtest::lrtest``). Wilks, S. S. (1938). Annals of Mathematical Statistics 9(1), 60-62.

    Examples
    --------
    >>> from statcore import LogLik
    >>> res = lrtest(LogLik(-45.2, 3, 40), LogLik(-43.1, 4, 40))
    >>> round(res.statistic, 4), res.parameter["df"], round(res.p_value, 6)
    (4.2, 1, 0.040424)
    """
    names = check_name_pair(names, "names")
    ll0, ll1 = _loglik_of(m0, "m0"), _loglik_of(m1, "m1")
    _check_finite(("m0", "m1"), (ll0, ll1))
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
