"""Conditional independence testing: GCM, RP-CIT (random projections) and their building blocks.

``residualize`` regresses many outputs on a conditioning set at once; ``gcm_test`` is the
generalised covariance measure of Shah & Peters (2020); ``rpcit`` tests high-dimensional X and Y
through k random one-dimensional projections, aggregated with ``combine_pvalues``.
"""
from ..multitest.combine import _LEGACY_METHODS as COMBINE_METHODS, combine_pvalues
from .gcm import GCMWarning, gcm_test
from .regress import (REGRESSIONS, RegressionFit, SpectralSmoother, fit_residualizer, fit_residualizers,
                      residualize)
from .rpcit import parcor_pvalues, random_directions, rpcit

__all__ = ["gcm_test", "GCMWarning", "rpcit", "random_directions", "combine_pvalues", "COMBINE_METHODS",
           "parcor_pvalues", "residualize", "fit_residualizer", "fit_residualizers", "RegressionFit",
           "SpectralSmoother", "REGRESSIONS"]

# skeleton learning (PC-stable with grouped nodes); the causal-learn adapter stays in
# statcore.cit.causallearn so that causal-learn is imported only on request
from .skeleton import SkeletonResult, pc_skeleton

__all__ += ["pc_skeleton", "SkeletonResult"]
