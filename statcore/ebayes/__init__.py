"""Empirical Bayes: the NPMLE of a mixing distribution, predictive recursion, causal two-groups,
adaptive shrinkage, Efron's local fdr with an empirical null."""
from ._ash import AshResult, ash
from ._npmle import NPMLEResult, npmle
from ._pr import PredictiveRecursionResult, predictive_recursion

__all__ = ["npmle", "NPMLEResult", "predictive_recursion", "PredictiveRecursionResult", "ash", "AshResult"]
from ._c2g import C2GResult, c2g  # noqa: E402  (causal two-groups; the function shadows its module name)

__all__ += ["c2g", "C2GResult"]
from ._locfdr import LocfdrResult, LocfdrWarning, locfdr  # noqa: E402

__all__ += ["locfdr", "LocfdrResult", "LocfdrWarning"]
