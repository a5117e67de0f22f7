"""statcore: statistics with R's answers and printouts, pandas in and out, compiled speed.

The public namespace is flat and uses R's names (``p_adjust``, ``qvalue``, ...). Implementations
live in topic packages; compiled kernels are loaded on first use, so ``import statcore`` stays quick.
Every result follows one protocol (``statcore.Result``; hypothesis tests return ``statcore.HTest``),
every input goes through one door, and argument names follow one table: ``docs/conventions.md``.
Helpers for extension code (seeds, ``n_jobs``, lazy numba, thread limits, input checks) are public in
``statcore.utils``.
"""
from . import utils
from ._result import HTest, Result
from ._resampling import BootstrapResult, DegenerateBootstrapWarning, bootstrap, permutation_test
from ._warnings import ConvergenceWarning, StatcoreWarning
from .multitest import (BFDRSelection, CombinedPValues, IHWResult, Pi0Estimate, Pi0Warning, QValueResult, bfdr_select,
                        combine_pvalues, ihw, lfdr, p_adjust, p_adjust_methods, pi0est, qvalue)
# e-values, the knockoff threshold and the adaptive step-ups (issue 31, sections 2 and 3)
from .multitest import (FDR_ADAPTIVE_METHODS, AdaptiveFDR, EBHResult, e_bh, e_to_p, fdr_adaptive, knockoff_e_values,
                        knockoff_threshold, merge_e, p_to_e)
from .modelsel import (GroupComparison, ICTable, LogLik, ModelComparison, NobsWarning, aic, aicc, bic,
                       compare_by_group, compare_models, loglik, lrtest)
from .cit import (GCMWarning, PartialCorrelationTests, SkeletonResult, gcm_test, parcor_pvalues, pc_skeleton,
                  random_directions, residualize, rpcit)
from .cit._causallearn import register_causallearn_tests
from .coupling import (IdentifiedSetInterval, JointBounds, MakarovBounds, OverlapWarning, coupling_functions,
                       coupling_mean, identified_set_interval, imbens_manski_interval, ite_variance_bounds, joint_bounds,
                       makarov_bounds, stoye_interval)
from .ebayes import (AshResult, C2GResult, LocfdrResult, LocfdrWarning, NPMLEResult, PredictiveRecursionResult, ash,
                     c2g, locfdr, npmle, predictive_recursion)
from .indep import *  # noqa: F401,F403  (statcore.indep.__all__ is public at the top level)
from .indep import __all__ as _indep_all
from .conformal import *  # noqa: F401,F403  (statcore.conformal.__all__ is public at the top level)
from .conformal import __all__ as _conformal_all
from .twosample import *  # noqa: F401,F403  (statcore.twosample.__all__ is public at the top level)
from .twosample import __all__ as _twosample_all
from ._roc import *  # noqa: F401,F403  (statcore._roc.__all__ is public at the top level)
from ._roc import __all__ as _roc_all
from .uncertainty import *  # noqa: F401,F403  (statcore.uncertainty.__all__ is public at the top level)
from .uncertainty import __all__ as _uncertainty_all
from .effects import *  # noqa: F401,F403  (statcore.effects.__all__ is public at the top level)
from .effects import __all__ as _effects_all
from .clustered import *  # noqa: F401,F403  (statcore.clustered.__all__ is public at the top level)
from .clustered import __all__ as _clustered_all
from .meta import *  # noqa: F401,F403  (statcore.meta.__all__ is public at the top level)
from .meta import __all__ as _meta_all
from .spectral import *  # noqa: F401,F403  (statcore.spectral.__all__ is public at the top level)
from .spectral import __all__ as _spectral_all
from .knockoffs import *  # noqa: F401,F403  (statcore.knockoffs.__all__ is public at the top level)
from .knockoffs import __all__ as _knockoffs_all
from .retrieval import *  # noqa: F401,F403  (statcore.retrieval.__all__ is public at the top level)
from .retrieval import __all__ as _retrieval_all
from .aggregate import *  # noqa: F401,F403  (statcore.aggregate.__all__ is public at the top level)
from .aggregate import __all__ as _aggregate_all
from .boolean import *  # noqa: F401,F403  (statcore.boolean.__all__ is public at the top level)
from .boolean import __all__ as _boolean_all
from .protocols import Discernment, discernment, weight_of_advice  # information discernment (issue 33, section 2)

__version__ = "0.1.0"

__all__ = [
    "HTest", "Result", "StatcoreWarning", "ConvergenceWarning",
    "permutation_test", "bootstrap", "BootstrapResult", "DegenerateBootstrapWarning",
    "p_adjust", "p_adjust_methods", "pi0est", "Pi0Estimate", "qvalue", "QValueResult", "lfdr", "bfdr_select",
    "BFDRSelection", "Pi0Warning", "combine_pvalues", "CombinedPValues", "ihw", "IHWResult",
    # e-values, the knockoff threshold and the adaptive step-ups (issue 31, sections 2 and 3)
    "e_bh", "EBHResult", "p_to_e", "e_to_p", "merge_e", "knockoff_e_values", "knockoff_threshold",
    "fdr_adaptive", "AdaptiveFDR", "FDR_ADAPTIVE_METHODS",
    "LogLik", "loglik", "aic", "bic", "aicc", "ICTable", "compare_models", "ModelComparison", "lrtest",
    "compare_by_group", "GroupComparison", "NobsWarning",
    "gcm_test", "GCMWarning", "rpcit", "random_directions", "parcor_pvalues", "residualize",
    "pc_skeleton", "SkeletonResult", "register_causallearn_tests", "PartialCorrelationTests",
    "coupling_mean", "coupling_functions", "joint_bounds", "JointBounds", "ite_variance_bounds",
    "makarov_bounds", "MakarovBounds", "imbens_manski_interval", "stoye_interval", "identified_set_interval",
    "IdentifiedSetInterval", "OverlapWarning",
    "npmle", "NPMLEResult", "predictive_recursion", "PredictiveRecursionResult", "ash", "AshResult",
    "c2g", "C2GResult", "locfdr", "LocfdrResult", "LocfdrWarning",
    *_indep_all,
    *_conformal_all,
    *_twosample_all,
    *_roc_all,
    *_uncertainty_all,
    *_effects_all,
    *_clustered_all,
    *_meta_all,
    *_spectral_all,
    *_knockoffs_all,
    *_retrieval_all,
    *_aggregate_all,
    *_boolean_all,
    "weight_of_advice", "discernment", "Discernment",  # information discernment (issue 33, section 2)
]
