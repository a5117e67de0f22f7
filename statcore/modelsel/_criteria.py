"""Information criteria: R's ``AIC()``/``BIC()`` (and AICc) and their tables (:class:`ICTable`), and
the ranked comparison with Akaike weights (:func:`compare_models`, :class:`ModelComparison`)."""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from .._checks import as_named_models, check_choice, check_ic_penalty
from .._r.rformat import format_number, format_table
from .._result import Result, StatcoreWarning
from ._likelihood import LogLik, _loglik_of

__all__ = ["aic", "bic", "aicc", "ICTable", "compare_models", "ModelComparison", "NobsWarning"]


class NobsWarning(StatcoreWarning):
    """Models compared by an information criterion were not fitted to the same observations."""


#: criterion as printed (R) -> its snake_case column name
_CRITERIA = {"AIC": "aic", "BIC": "bic", "AICc": "aicc"}
_CRITERION_ALIASES = {"aic": "AIC", "bic": "BIC", "aicc": "AICc"}


def _check_criterion(criterion: Any) -> str:
    return check_choice(criterion, "criterion", tuple(_CRITERIA), aliases=_CRITERION_ALIASES)


def _named_logliks(models: Sequence[Any], named: Mapping[str, Any]) -> tuple[list[str], list[LogLik]]:
    names = [f"model{i + 1}" for i in range(len(models))] + list(named)
    labels = [f"model{i + 1} (positional model {i + 1})" for i in range(len(models))] + list(named)
    fits = list(models) + list(named.values())
    if not fits:
        raise ValueError("at least one model is needed")
    if len(set(names)) != len(names):
        raise ValueError(f"model names must be unique, got {names}")
    return names, [_loglik_of(m, label) for m, label in zip(fits, labels)]


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
    return len({ll.nobs for ll in lls}) > 1


# ---------------------------------------------------------------------------------------------
# AIC(m1, m2, ...)


@dataclass(frozen=True, eq=False, repr=False)
class ICTable(Result):
    """The table of ``AIC(m1, m2, ...)``: one row per model, columns ``df`` and the criterion.

    ``aic``, ``bic`` and ``aicc`` always return one (one row for one model): ``float(tab)`` is the
    number of a one-model table (R's ``AIC(m)``), ``tab["name"]`` the value of a named row.

    Attributes
    ----------
    names : tuple of str
        The models, in the order given.
    df : tuple of float
        Their numbers of parameters.
    values : tuple of float
        Their criterion values.
    criterion : str
        "AIC", "BIC" or "AICc".

    Examples
    --------
    >>> from statcore import LogLik, aic
    >>> tab = aic(small=LogLik(-45.2, 3, 40), large=LogLik(-43.1, 4, 40))
    >>> tab
    ICTable(criterion='AIC', n_models=2, best='large')
    >>> print(tab)
          df  AIC
    small  3 96.4
    large  4 94.2
    <BLANKLINE>
    >>> tab["large"]
    94.2
    >>> float(aic(LogLik(-45.2, 3, 40)))
    96.4
    """

    names: tuple[str, ...]
    df: tuple[float, ...]
    values: tuple[float, ...]
    criterion: str

    def _repr_parts(self):
        return [("criterion", self.criterion), ("n_models", len(self.names)),
                ("best", self.names[int(np.argmin(self.values))])]

    def to_frame(self):
        """One row per model (index: the names), columns ``df`` and ``aic``/``bic``/``aicc``."""
        import pandas as pd

        return pd.DataFrame({"df": list(self.df), _CRITERIA[self.criterion]: list(self.values)},
                            index=pd.Index(list(self.names), name="model"))

    def summary(self) -> str:
        """The table as R prints ``AIC(m1, m2)``."""
        return format_table(self.names, {"df": list(self.df), self.criterion: list(self.values)}) + "\n"

    def __getitem__(self, name: str) -> float:
        return self.values[self.names.index(name)]

    def __float__(self) -> float:
        """The criterion of a one-model table (R's ``AIC(m)``); a table of several has no one number."""
        if len(self.values) != 1:
            raise TypeError(f"a table of {len(self.values)} models has no single {self.criterion}; index it by "
                            f"name (tab[{self.names[0]!r}]) or use tab.values")
        return float(self.values[0])

    def __len__(self) -> int:
        return len(self.names)


def _criterion_table(models, named, criterion: str, k: float = 2.0):
    names, lls = _named_logliks(models, named)
    vals = _criterion_values(lls, criterion, k)
    if _nobs_differ(lls):
        warnings.warn("models are not all fitted to the same number of observations", NobsWarning,
                      stacklevel=3)
    return ICTable(tuple(names), tuple(ll.df for ll in lls), tuple(float(v) for v in vals), criterion)


_SHAPES = """
    One return type: an :class:`ICTable` for one model as for several, one row per model. R's
    ``AIC(m)`` gives a number and ``AIC(m1, m2)`` a data frame; a Python caller looping over model
    sets should not have to branch on the count, so here ``float(aic(m))`` is R's number (and
    statsmodels' ``m.aic`` for an OLS or GLM fit, which is AIC as well), and the table prints as R's
    ``AIC(m1, m2)``. Rows are named by keyword (``aic(linear=m1, quadratic=m2)``) or ``model1``,
    ``model2``, ... by position. Models fitted to different numbers of observations are compared with
    a :class:`NobsWarning`, as R warns (:func:`compare_models` refuses them). The functions take
    fitted models, not data vectors, so they have no ``nan_policy``.
"""


def aic(*models: Any, k: float = 2.0, **named: Any):
    """Akaike's information criterion, ``-2 logLik + k df``, R's ``AIC()``.
    {shapes}
    Parameters
    ----------
    *models : fitted models
        Anything :func:`statcore.loglik` accepts, named ``model1``, ``model2``, ... in the table.
    k : float, default 2
        The penalty per parameter (``k = log(n)`` gives BIC), as R's ``AIC(..., k = 2)``.
    **named : fitted models
        Models passed by keyword; the keyword names the row.

    Returns
    -------
    ICTable
        One row per model (columns ``df`` and ``AIC``); ``float()`` of a one-model table is its AIC.

    References
    ----------
    R Core Team, ``?AIC`` (``stats::AIC``).
    Akaike, H. (1974). A new look at the statistical model identification. IEEE Transactions on
    Automatic Control 19(6), 716-723.

    Examples
    --------
    >>> import numpy as np, statsmodels.api as sm
    >>> x = np.arange(10.0); y = np.array([1.2, 1.9, 3.2, 3.8, 5.3, 5.9, 7.1, 8.2, 8.8, 10.1])
    >>> m1 = sm.OLS(y, sm.add_constant(x)).fit()
    >>> m2 = sm.OLS(y, np.column_stack([np.ones(10), x, x ** 2])).fit()
    >>> round(float(aic(m1)), 6)             # R: AIC(lm(y ~ x))
    -0.642462
    >>> print(aic(linear=m1, quadratic=m2))  # R: AIC(linear, quadratic)
              df        AIC
    linear     3 -0.6424623
    quadratic  4  1.3348853
    <BLANKLINE>
    """
    return _criterion_table(models, named, "AIC", check_ic_penalty(k, "k"))


def bic(*models: Any, **named: Any):
    """Schwarz's Bayesian criterion, ``-2 logLik + log(nobs) df``, R's ``BIC()``.
    {shapes}
    Parameters
    ----------
    *models : fitted models
        Anything :func:`statcore.loglik` accepts with a known ``nobs``.
    **named : fitted models
        Models passed by keyword; the keyword names the row.

    Returns
    -------
    ICTable
        One row per model (columns ``df`` and ``BIC``); ``float()`` of a one-model table is its BIC.

    References
    ----------
    R Core Team, ``?BIC`` (``stats::BIC``).
    Schwarz, G. (1978). Estimating the dimension of a model. Annals of Statistics 6(2), 461-464.

    Examples
    --------
    >>> from statcore import LogLik
    >>> round(float(bic(LogLik(-45.2, 3, 40))), 4)
    101.4666
    """
    return _criterion_table(models, named, "BIC")


def aicc(*models: Any, **named: Any):
    """Small-sample corrected AIC, ``AIC + 2 df (df + 1) / (nobs - df - 1)``; R users know it as
    ``MuMIn::AICc``.
    {shapes}
    Parameters
    ----------
    *models : fitted models
        Anything :func:`statcore.loglik` accepts with a known ``nobs``.
    **named : fitted models
        Models passed by keyword; the keyword names the row.

    Returns
    -------
    ICTable
        One row per model (columns ``df`` and ``AICc``); ``float()`` of a one-model table is its AICc.

    References
    ----------
    Hurvich, C. M. and Tsai, C.-L. (1989). Regression and time series model selection in small
    samples. Biometrika 76(2), 297-307. R: ``MuMIn::AICc``.

    Examples
    --------
    >>> from statcore import LogLik
    >>> round(float(aicc(LogLik(-45.2, 3, 40))), 4)
    97.0667
    """
    return _criterion_table(models, named, "AICc")


for _f in (aic, bic, aicc):
    _f.__doc__ = _f.__doc__.replace("{shapes}", _SHAPES)
del _f


# ---------------------------------------------------------------------------------------------
# compare_models


def _akaike_weights(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    delta = values - values.min()
    rel = np.exp(-0.5 * delta)
    return delta, rel / rel.sum()


@dataclass(frozen=True, eq=False, repr=False)
class ModelComparison(Result):
    """Models ranked by an information criterion, best first, with Akaike weights.

    Attributes
    ----------
    names : tuple of str
        The models, best first.
    df, loglik, values, delta, weight, evidence_ratio, cum_weight : numpy.ndarray
        In the same order: parameters, log-likelihood, criterion, its difference to the best, the
        Akaike weight, the evidence ratio to the best and the cumulative weight.
    criterion : str
        "AIC", "BIC" or "AICc".
    nobs : int or None
        The number of observations shared by the models.

    Examples
    --------
    >>> from statcore import LogLik, compare_models
    >>> res = compare_models({"small": LogLik(-45.2, 3, 40), "large": LogLik(-43.1, 4, 40)})
    >>> res
    ModelComparison(criterion='AIC', best='large', weight=0.7503, n_models=2, nobs=40)
    >>> res.to_frame().round(4)  # doctest: +NORMALIZE_WHITESPACE
           df  loglik   aic  delta_aic  weight  evidence_ratio  cum_weight
    model
    large   4   -43.1  94.2        0.0  0.7503          1.0000      0.7503
    small   3   -45.2  96.4        2.2  0.2497          3.0042      1.0000
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
        """The name of the best model (the smallest criterion)."""
        return self.names[0]

    def _repr_parts(self):
        return [("criterion", self.criterion), ("best", self.best), ("weight", float(self.weight[0])),
                ("n_models", len(self.names)), ("nobs", self.nobs)]

    def _columns(self) -> dict[str, list]:
        # R's names, as the printed table shows them
        c = self.criterion
        return {"df": list(self.df), "logLik": list(self.loglik), c: list(self.values),
                f"delta{c}": list(self.delta), "weight": list(self.weight),
                "evidence.ratio": list(self.evidence_ratio), "cum.weight": list(self.cum_weight)}

    def to_frame(self):
        """One row per model, best first (index ``model``): ``df``, ``loglik``, ``aic`` (or ``bic``,
        ``aicc``), ``delta_aic``, ``weight``, ``evidence_ratio``, ``cum_weight``."""
        import pandas as pd

        c = _CRITERIA[self.criterion]
        df = [int(d) if float(d).is_integer() else float(d) for d in self.df]
        return pd.DataFrame({"df": df, "loglik": self.loglik, c: self.values, f"delta_{c}": self.delta,
                             "weight": self.weight, "evidence_ratio": self.evidence_ratio,
                             "cum_weight": self.cum_weight},
                            index=pd.Index(list(self.names), name="model"))

    def summary(self) -> str:
        """The ranked table in R's layout (``deltaAIC``, ``evidence.ratio``, ``cum.weight``)."""
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
        return ax


def compare_models(models: Any, *, criterion: str = "AIC") -> ModelComparison:
    """Rank models by AIC, BIC or AICc, best first, with Akaike weights and evidence ratios.

    It takes fitted models, not data vectors, so it has no ``nan_policy``; a log-likelihood that is
    not finite is refused.

    Parameters
    ----------
    models : dict or list
        A dict name -> fit, or a list of fits (named ``model1``, ``model2``, ...); anything
        :func:`statcore.loglik` accepts.
    criterion : {"AIC", "BIC", "AICc"}
        The information criterion.

    Returns
    -------
    ModelComparison
        Best first: df, log-likelihood, the criterion, its difference to the best (delta), the
        Akaike weight ``exp(-delta/2) / sum exp(-delta/2)``, the evidence ratio to the best
        (``exp(delta/2)``) and the cumulative weight. Ties keep the input order. ``summary()`` prints
        R's names (``deltaAIC``, ``evidence.ratio``, ``cum.weight``); ``to_frame()`` has snake_case
        columns (``df``, ``loglik``, ``aic``, ``delta_aic``, ``weight``, ``evidence_ratio``,
        ``cum_weight``).

    Raises
    ------
    ValueError
        When the models were fitted to different numbers of observations (an information criterion
        compares likelihoods of the same data), or a log-likelihood is not finite.

    References
    ----------
    Burnham, K. P. and Anderson, D. R. (2002). Model Selection and Multimodel Inference, 2nd ed.,
    Springer, Sec. 2.9.

    Examples
    --------
    >>> from statcore import LogLik
    >>> res = compare_models({"1L": LogLik(-520.3, 5, 2000), "2L": LogLik(-512.9, 11, 2000),
    ...                       "2NL": LogLik(-498.4, 11, 2000)})
    >>> res.best, res.weight.round(4).tolist()
    ('2NL', [1.0, 0.0, 0.0])
    """
    crit = _check_criterion(criterion)
    names, fits = as_named_models(models, "models")
    lls = [_loglik_of(m, "models[{!r}]", n) for n, m in zip(names, fits)]
    _check_finite([f"models[{n!r}]" for n in names], lls)
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
