"""Composite scores: weighted power means (the harmonic mean of HiFD-style benchmarks), composite
scores of per-item components with bootstrap intervals, their robustness to the weights (random
Dirichlet weights, exact crossing weights, named profiles) and the share of pairs de-identified at a
false-accept rate.

numpy/scipy only; the face-recognition features of a de-identification benchmark come from the user
(``learncore.features`` hands arrays, ``benchmarks/deid_demo.py`` shows one pipeline).
"""
from ._composite import CompositeScore, composite_score
from ._far import RateAtFAR, rate_at_far
from ._power import power_mean
from ._robustness import ProfileRankStability, WeightRobustness, profile_rank_stability, weight_robustness

__all__ = ["power_mean", "composite_score", "CompositeScore", "weight_robustness", "WeightRobustness",
           "profile_rank_stability", "ProfileRankStability", "rate_at_far", "RateAtFAR"]
