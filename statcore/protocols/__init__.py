"""Measurement protocols built on statcore's statistics: ideological breadth and amplification of a
narrow fine-tune (:func:`shift_breadth`, :func:`amplification`)."""
from ._breadth import Amplification, ShiftBreadth, amplification, shift_breadth

__all__ = ["shift_breadth", "ShiftBreadth", "amplification", "Amplification"]
