"""Query measures of Boolean functions at an input: sensitivity, block sensitivity, fractional block
sensitivity, fractional certificate complexity and certificate complexity, computed exactly
(enumeration and HiGHS linear programs) for functions of up to 12 bits.

Not statistics: a small exact utility that the AI-debate analyses need (how many queries a judge must
make to verify a claim), kept in statcore because it is numpy/scipy only and learncore may use
statcore's public API alone.
"""
from ._measures import BooleanMeasures, boolean_measures

__all__ = ["boolean_measures", "BooleanMeasures"]
