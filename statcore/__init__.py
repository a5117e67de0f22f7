"""statcore: statistics with R's answers and printouts, pandas in and out, compiled speed.

The public namespace is flat and uses R's names (``p_adjust``, ``qvalue``, ...). Implementations
live in topic modules; compiled kernels are loaded on first use, so ``import statcore`` stays quick.
"""
from ._result import HTest, StatcoreWarning, TableResult
from .multitest import (BFDRSelection, Pi0Warning, QValueResult, bfdr_select, lfdr, p_adjust,
                        p_adjust_methods, pi0est, qvalue)

__version__ = "0.1.0"

__all__ = [
    "HTest", "TableResult", "StatcoreWarning",
    "p_adjust", "p_adjust_methods", "pi0est", "qvalue", "QValueResult", "lfdr", "bfdr_select",
    "BFDRSelection", "Pi0Warning",
]
