"""Conditional independence testing: GCM, RP-CIT (random projections) and their building blocks.

``residualize`` regresses many outputs on a conditioning set at once; ``gcm_test`` is the
generalised covariance measure of Shah & Peters (2020); ``rpcit`` tests high-dimensional X and Y
through k random one-dimensional projections, aggregated with ``combine_pvalues``.
"""
from .regress import REGRESSIONS, RegressionFit, SpectralSmoother, fit_residualizer, residualize

__all__ = ["residualize", "fit_residualizer", "RegressionFit", "SpectralSmoother", "REGRESSIONS"]
