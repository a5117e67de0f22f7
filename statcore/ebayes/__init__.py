"""Empirical Bayes: the NPMLE of a mixing distribution, predictive recursion, causal two-groups."""
from .npmle import NPMLEConvergenceWarning, NPMLEResult, npmle
from .pr import PredictiveRecursionResult, predictive_recursion

__all__ = ["npmle", "NPMLEResult", "NPMLEConvergenceWarning", "predictive_recursion",
           "PredictiveRecursionResult"]
