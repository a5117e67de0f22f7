"""Measurement protocols on language models: stance elicitation from answer-option log-probabilities and
the paired base / fine-tuned / few-shot design (:func:`stance_scores`, :func:`stance_shifts`).

Needs PyTorch (``import learncore`` alone does not import it)."""
from .stance import StanceScores, StanceShifts, stance_scores, stance_shifts

__all__ = ["stance_scores", "StanceScores", "stance_shifts", "StanceShifts"]
