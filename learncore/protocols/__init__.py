"""Measurement protocols on language models, built on statcore's statistics (issue 33).

- :func:`belief_trials`, :class:`BeliefTrials`: numeric priors and posteriors of a causal LM before and
  after a source's claim (the expected value over the numeric answer tokens), for the information
  discernment protocol (:func:`statcore.weight_of_advice`, :func:`statcore.discernment`).

Needs PyTorch (``import learncore`` alone does not import it).
"""
from .belief import BeliefTrials, belief_trials

__all__ = ["belief_trials", "BeliefTrials"]
