"""Empirical Bayes: the NPMLE of a mixing distribution, predictive recursion, causal two-groups."""
from .pr import PredictiveRecursionResult, predictive_recursion

__all__ = ["predictive_recursion", "PredictiveRecursionResult"]
