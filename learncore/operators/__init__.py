"""learncore.operators: neural operators on sensor readings and the NOIR independence regulariser (issue 16).

- :mod:`~learncore.operators.data`: seeded datasets generated here (no downloads):
  :func:`burgers_1d`, :func:`darcy_2d`, :func:`advection_1d`, :func:`diffusion_1d`, each an
  :class:`OperatorDataset` that states its resolution, sensor layout and split (``describe()``).
- :mod:`~learncore.operators.corruptions`: :func:`corrupt` with the five additive sensor corruptions
  :data:`CORRUPTIONS` ("gaussian", "student_t", "impulse", "bias", "drift"), each scaled by a level
  relative to the per-sample field standard deviation.

The data and the corruptions need numpy and scipy only.
"""
from .corruptions import CORRUPTIONS, corrupt
from .data import OperatorDataset, advection_1d, burgers_1d, darcy_2d, diffusion_1d

__all__ = ["OperatorDataset", "burgers_1d", "darcy_2d", "advection_1d", "diffusion_1d", "CORRUPTIONS", "corrupt"]
