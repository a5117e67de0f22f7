"""Measurement protocols built on statcore's statistics: reusable, clearly labelled operationalisations of
what a paper measures with a protocol rather than a model (issue 33).

- Ideological breadth and amplification of a narrow fine-tune: :func:`shift_breadth`, :func:`amplification`.
- Information discernment (our reading of Learn2Discern): :func:`weight_of_advice`, :func:`discernment`
  (source discernment, truth discernment and popularity reliance, the three axioms as one-sided tests).
"""
from ._breadth import Amplification, ShiftBreadth, amplification, shift_breadth
from ._discern import Discernment, discernment, weight_of_advice

__all__ = ["shift_breadth", "ShiftBreadth", "amplification", "Amplification",
           "weight_of_advice", "discernment", "Discernment"]
