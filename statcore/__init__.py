"""statcore: statistics with R's answers and printouts, pandas in and out, compiled speed.

The public namespace is flat and uses R's names (``p_adjust``, ``qvalue``, ...). Implementations
live in topic modules; compiled kernels are loaded on first use, so ``import statcore`` stays quick.
"""
from ._result import HTest, StatcoreWarning, TableResult
from .multitest import (BFDRSelection, Pi0Warning, QValueResult, bfdr_select, lfdr, p_adjust,
                        p_adjust_methods, pi0est, qvalue)
from .modelsel import (GroupComparison, ICTable, LogLik, ModelComparison, NobsWarning, aic, aicc, bic,
                       compare_by_group, compare_models, loglik, lrtest)

__version__ = "0.1.0"

__all__ = [
    "HTest", "TableResult", "StatcoreWarning",
    "p_adjust", "p_adjust_methods", "pi0est", "qvalue", "QValueResult", "lfdr", "bfdr_select",
    "BFDRSelection", "Pi0Warning",
    "LogLik", "loglik", "aic", "bic", "aicc", "ICTable", "compare_models", "ModelComparison", "lrtest",
    "compare_by_group", "GroupComparison", "NobsWarning",
]
