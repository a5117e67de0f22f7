"""statcore's one warning hierarchy (a leaf module: everybody may import it).

``StatcoreWarning`` is the base of every warning about a numerically or statistically dubious result;
``ConvergenceWarning`` is the one warning for an iterative fit that stopped short of its tolerance,
for statcore and learncore alike. Topic modules subclass ``StatcoreWarning`` for topic-specific
diagnoses (``Pi0Warning``, ``GCMWarning``, ``OverlapWarning``, ...), never ``UserWarning`` directly.
"""
from __future__ import annotations

__all__ = ["StatcoreWarning", "ConvergenceWarning"]


class StatcoreWarning(UserWarning):
    """Base class of statcore's warnings about numerically or statistically dubious results."""


class ConvergenceWarning(StatcoreWarning):
    """An iterative fit (EM, mix-SQP, L-BFGS, IPW weights, ...) stopped before meeting its tolerance."""
