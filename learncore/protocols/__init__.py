"""Measurement protocols on language models, built on statcore's statistics (issue 33).

- :func:`stance_scores`, :func:`stance_shifts`: a signed stance per probe from the log-probabilities of
  answer options, and the paired base / fine-tuned / few-shot design (ideological breadth and
  amplification: :func:`statcore.shift_breadth`, :func:`statcore.amplification`).
- :func:`belief_trials`, :class:`BeliefTrials`: numeric priors and posteriors of a causal LM before and
  after a source's claim (the expected value over the numeric answer tokens), for the information
  discernment protocol (:func:`statcore.weight_of_advice`, :func:`statcore.discernment`).

Needs PyTorch (``import learncore`` alone does not import it).
"""
from .belief import BeliefTrials, belief_trials
from .stance import StanceScores, StanceShifts, stance_scores, stance_shifts

__all__ = ["stance_scores", "StanceScores", "stance_shifts", "StanceShifts", "belief_trials", "BeliefTrials"]
