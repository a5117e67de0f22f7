"""Effect sizes, paired proportions, pass@k, agreement and tolerance.

Ratios of means and of coefficients (Fieller, delta method, bootstrap), intervals for proportions and
paired proportions, McNemar's test, the unbiased pass@k with its bootstrap over problems,
Bland-Altman limits of agreement, Lin's concordance correlation, the six intraclass correlations,
two one-sided t tests of equivalence and the share of errors within a tolerance.
"""
from ._ratio import RatioCI, coef_ratio_ci, ratio_ci
from ._proportions import PairedPropCI, ProportionCI, mcnemar_test, paired_prop_ci, proportion_ci
from ._passk import PassAtK, pass_at_k, pass_at_k_ci
from ._agreement import CCC, ICC, BlandAltman, bland_altman, ccc, icc
from ._tolerance import WithinTolerance, tost, within_tolerance

__all__ = ["ratio_ci", "coef_ratio_ci", "RatioCI",
           "proportion_ci", "ProportionCI", "paired_prop_ci", "PairedPropCI", "mcnemar_test",
           "pass_at_k", "pass_at_k_ci", "PassAtK",
           "bland_altman", "BlandAltman", "ccc", "CCC", "icc", "ICC",
           "tost", "within_tolerance", "WithinTolerance"]
