"""Multiple testing: FWER and FDR adjustments, Storey's q-values, local FDR, Bayesian FDR selection
and the combination of p-values.

``p_adjust`` follows R's ``stats::p.adjust`` exactly; ``qvalue``/``pi0est``/``lfdr`` follow
Bioconductor's qvalue 2.30 (Storey & Tibshirani 2003); ``bfdr_select`` is the running-mean rule of
Sun & Cai (2007); ``combine_pvalues`` is a superset of ``scipy.stats.combine_pvalues``.

Modules: ``padjust`` (p_adjust), ``qvalue`` (pi0est, lfdr, qvalue), ``bfdr`` (bfdr_select),
``combine`` (combine_pvalues), ``ihw`` (ihw: independent hypothesis weighting as
Bioconductor IHW 1.26.0).

e-values (issue 31): ``_evalues`` (e_bh, p_to_e, e_to_p, merge_e, knockoff_e_values; also the namespace
``statcore.evalues``), ``_knockoff_threshold`` (knockoff_threshold, R knockoff's); the adaptive step-ups
of mutoss and multtest: ``_adaptive`` (fdr_adaptive) and ``p_adjust(method="ABH" | "TSBH" | "BlaRoq")``.
"""
from ._bfdr import BFDRSelection, bfdr_select
from ._ihw import IHWResult, ihw
from ._combine import COMBINE_METHODS, CombinedPValues, combine_pvalues
from ._padjust import _argsort, p_adjust, p_adjust_methods
from ._qvalue import Pi0Estimate, Pi0Warning, QValueResult, lfdr, pi0est, qvalue
# e-values, the knockoff threshold and the adaptive step-ups (issue 31, sections 2 and 3)
from ._evalues import EBHResult, e_bh, e_to_p, knockoff_e_values, merge_e, p_to_e
from ._knockoff_threshold import knockoff_threshold
from ._adaptive import FDR_ADAPTIVE_METHODS, AdaptiveFDR, fdr_adaptive

__all__ = ["p_adjust", "p_adjust_methods", "pi0est", "Pi0Estimate", "qvalue", "QValueResult", "lfdr",
           "bfdr_select", "BFDRSelection", "combine_pvalues", "CombinedPValues", "COMBINE_METHODS",
           "Pi0Warning", "ihw", "IHWResult"]
# e-values, the knockoff threshold and the adaptive step-ups (issue 31, sections 2 and 3)
__all__ += ["e_bh", "EBHResult", "p_to_e", "e_to_p", "merge_e", "knockoff_e_values", "knockoff_threshold",
            "fdr_adaptive", "AdaptiveFDR", "FDR_ADAPTIVE_METHODS"]
