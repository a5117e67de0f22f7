"""Deep GP priors: compositions f = F_L o ... o F_1 of vector-valued RBF Gaussian processes.

Each layer F_l : R^d -> R^d has d independent zero-mean GP coordinates with kernel
k(x, x') = sigma^2 exp(-|x - x'|^2 / (2 r^2)). As depth grows the prior either collapses onto constant
functions or converges to a non-degenerate, non-Gaussian limit, and the bandwidth decides which
(Kozdoba & Mannor 2026):

- :func:`sample_deep_gp`: exact joint samples at a finite set of inputs, layer by layer.
- :func:`distance_chain`: the distance between two inputs' images, an exact one-dimensional Markov
  chain D_{l+1}^2 = 2 sigma^2 (1 - exp(-D_l^2 / (2 r^2))) chi^2_d.
- :func:`lyapunov_exponent`: its growth rate at 0, (1/2) [log(2 sigma^2 / r^2) + psi(d / 2)] (closed
  form, with a Monte Carlo check).
- :func:`bandwidth_threshold`: r_c(d) = sigma sqrt(2) exp(psi(d/2) / 2) = Theta(sqrt(d)), where the
  exponent changes sign; :func:`threshold_scan` classifies (d, r) cells from simulated chains.
- :func:`limit_distribution`: samples of the limit below r_c with kurtosis, normality and
  independence tests (statcore's dHSIC and distance correlation) and a mode count
  (:func:`count_modes`).

Needs PyTorch (``import learncore`` alone does not import it).
"""
from .chain import (BandwidthThreshold, DistanceChain, LyapunovExponent, ThresholdScan, bandwidth_threshold,
                    distance_chain, lyapunov_exponent, threshold_scan)
from .limit import LimitDistribution, ModeCount, count_modes, limit_distribution
from .sampler import DeepGPSample, sample_deep_gp

__all__ = ["sample_deep_gp", "distance_chain", "lyapunov_exponent", "bandwidth_threshold", "threshold_scan",
           "limit_distribution", "count_modes", "DeepGPSample", "DistanceChain", "LyapunovExponent",
           "BandwidthThreshold", "ThresholdScan", "LimitDistribution", "ModeCount"]
