"""Variational learning of deep networks by the Bayesian learning rule (Khan & Rue, JMLR 2023).

- :class:`IVON`: the improved variational online Newton optimizer (Shen et al., ICML 2024), a drop-in
  torch optimizer with ivon-opt's training loop, learning a diagonal Gaussian posterior over the
  parameters; its curvature estimate is a choice: the paper's reparameterisation (Price) estimate,
  the squared gradient, Hutchinson's, or the layerwise diagonal by Hessian backpropagation.
- :class:`BayesianLearningRule`: the base class, the natural-gradient (variational online Newton) step
  of a diagonal Gaussian, with ``sampled_params`` and Bayesian model averaging (``predict``).
- :func:`layerwise_curvature`: the diagonal Hessian or Gauss-Newton matrix of a feedforward network by
  Hessian backpropagation (``hessian="backprop"``).
- :class:`CurvatureEstimator` and the built-in estimators (:class:`PriceCurvature`,
  :class:`GradSquareCurvature`, :class:`HutchinsonCurvature`, :class:`BackpropCurvature`): a new
  curvature estimate is one small class.

PyTorch is needed (``pip install torch==2.13.0``); ``import learncore`` alone does not import it.
"""
from ._blr import BayesianLearningRule
from ._estimators import (BackpropCurvature, CurvatureEstimator, CurvatureSample, GradSquareCurvature,
                          HutchinsonCurvature, PriceCurvature)
from .curvature import layerwise_curvature
from .ivon import IVON

__all__ = ["IVON", "BayesianLearningRule", "CurvatureEstimator", "CurvatureSample", "PriceCurvature",
           "GradSquareCurvature", "HutchinsonCurvature", "BackpropCurvature", "layerwise_curvature"]
