"""Conditional independence testing: GCM, RP-CIT (random projections) and their building blocks.

``residualize`` regresses many outputs on a conditioning set at once (``regress.py`` dispatches to
the linear smoothers of ``smoothers.py`` and the forests of ``forests.py``); ``gcm_test`` is the
generalised covariance measure of Shah & Peters (2020); ``rpcit`` tests high-dimensional X and Y
through k random one-dimensional projections, aggregated with the rules of
``statcore.multitest.combine_pvalues`` (the pieces the two tests share live in ``_gcm_core.py``);
``pc_skeleton`` learns a PC-stable skeleton whose nodes may be groups of columns.
"""
from ._gcm import GCMWarning, gcm_test
from ._regress import (REGRESSIONS, ForestSmoother, RegressionFit, SpectralSmoother, fit_residualizer,
                      fit_residualizers, residualize)
from ._parcor_result import PartialCorrelationTests
from ._rpcit import parcor_pvalues, random_directions, rpcit

__all__ = ["gcm_test", "GCMWarning", "rpcit", "random_directions",
           "parcor_pvalues", "PartialCorrelationTests", "residualize", "fit_residualizer", "fit_residualizers", "RegressionFit",
           "SpectralSmoother", "ForestSmoother", "REGRESSIONS"]

# skeleton learning (PC-stable with grouped nodes); the causal-learn adapter stays in
# statcore.cit._causallearn so that causal-learn is imported only on request
from ._skeleton import SkeletonResult, pc_skeleton

__all__ += ["pc_skeleton", "SkeletonResult"]
