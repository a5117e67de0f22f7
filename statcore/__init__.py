"""statcore: statistics with R's answers and printouts, pandas in and out, compiled speed.

The public namespace is flat and uses R's names (``p_adjust``, ``qvalue``, ...). Implementations
live in topic modules; compiled kernels are loaded on first use, so ``import statcore`` stays quick.
"""
from . import utils
from ._result import HTest, Result, TableResult
from ._warnings import ConvergenceWarning, StatcoreWarning
from .multitest import (BFDRSelection, Pi0Warning, QValueResult, bfdr_select, lfdr, p_adjust,
                        p_adjust_methods, pi0est, qvalue)
from .modelsel import (GroupComparison, ICTable, LogLik, ModelComparison, NobsWarning, aic, aicc, bic,
                       compare_by_group, compare_models, loglik, lrtest)
from .cit import (GCMWarning, SkeletonResult, combine_pvalues, gcm_test, parcor_pvalues, pc_skeleton,
                  random_directions, residualize, rpcit)
from .cit.causallearn import register_causallearn_tests
from .coupling import (JointBounds, MakarovBounds, OverlapWarning, coupling_functions,
                       coupling_mean, imbens_manski_interval, ite_variance_bounds, joint_bounds,
                       makarov_bounds, stoye_interval)
from .ebayes import (C2GResult, NPMLEConvergenceWarning, NPMLEResult, PredictiveRecursionResult, c2g, npmle,
                     predictive_recursion)

__version__ = "0.1.0"

__all__ = [
    "HTest", "Result", "StatcoreWarning", "ConvergenceWarning",
    "p_adjust", "p_adjust_methods", "pi0est", "qvalue", "QValueResult", "lfdr", "bfdr_select",
    "BFDRSelection", "Pi0Warning",
    "LogLik", "loglik", "aic", "bic", "aicc", "ICTable", "compare_models", "ModelComparison", "lrtest",
    "compare_by_group", "GroupComparison", "NobsWarning",
    "gcm_test", "GCMWarning", "rpcit", "random_directions", "combine_pvalues", "parcor_pvalues", "residualize",
    "pc_skeleton", "SkeletonResult", "register_causallearn_tests",
    "coupling_mean", "coupling_functions", "joint_bounds", "JointBounds", "ite_variance_bounds",
    "makarov_bounds", "MakarovBounds", "imbens_manski_interval", "stoye_interval", "OverlapWarning",
    "npmle", "NPMLEResult", "NPMLEConvergenceWarning", "predictive_recursion", "PredictiveRecursionResult",
    "c2g", "C2GResult",
]
