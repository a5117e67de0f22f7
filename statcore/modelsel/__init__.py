"""Model comparison: the ``loglik`` generic, AIC / BIC / AICc, comparison tables, likelihood-ratio
tests and per-group comparisons.

R's ``logLik()`` is an S3 generic and ``AIC()``, ``BIC()`` and ``lmtest::lrtest()`` are written once
on top of it; statcore does the same with :func:`functools.singledispatch`:

- :mod:`~statcore.modelsel._likelihood`: :func:`loglik` (the generic) and :class:`LogLik`;
- :mod:`~statcore.modelsel._adapters`: its methods for statsmodels, scikit-learn mixtures and scipy
  fits (registered on first use, so ``import statcore`` stays quick);
- :mod:`~statcore.modelsel._criteria`: :func:`aic`, :func:`bic`, :func:`aicc`, :class:`ICTable`,
  :func:`compare_models`, :class:`ModelComparison`;
- :mod:`~statcore.modelsel._lrt`: :func:`lrtest`;
- :mod:`~statcore.modelsel._groups`: :func:`compare_by_group`, :class:`GroupComparison`.

Parameter counts follow R (``logLik.lm`` counts sigma, ``logLik.glm`` the dispersion), so AIC and
BIC equal R's; ``loglik(model, df=...)`` overrides the count.
"""
from . import _adapters  # noqa: F401  (registers the tuple method)
from ._criteria import ICTable, ModelComparison, NobsWarning, aic, aicc, bic, compare_models
from ._groups import GroupComparison, compare_by_group
from ._likelihood import LogLik, loglik
from ._lrt import lrtest

__all__ = ["LogLik", "loglik", "aic", "bic", "aicc", "ICTable", "compare_models", "ModelComparison",
           "lrtest", "compare_by_group", "GroupComparison", "NobsWarning"]
