"""HProbZ: hybrid probabilistic zonotope output heads for multimodal trajectories.

A T-step outcome is modelled as y = mu_b(x) + G_b(x) u + s(x) * eps: a mode b among n_modes (the
binary generators of the hybrid zonotope, with probabilities from the network), m bounded generators
u ~ Uniform[-1, 1]^m shared by the T steps, and Gaussian noise eps ~ N(0, I). Sharing u couples the
steps, so observing one step refines every other step's predictive in closed form.

- :class:`HProbZ`: the distribution (a ``torch.distributions.Distribution``): closed-form
  ``log_prob`` (exact for m = 1 and for generators orthogonal in the noise metric; Genz's
  quasi-Monte Carlo otherwise), ``sample``, ``mean``,
  ``variance``, ``covariance``, ``condition`` (closed-form mode weights and truncated-normal posterior
  of u), ``mode_risk`` (per-mode exceedance probabilities), ``conformal_sets`` (per-step
  highest-density split-conformal sets through ``statcore.conformal``).
- :class:`GaussianMixture`: the mixture-density baseline with the same interface.
- :class:`HProbZHead`, :class:`MixtureHead`: torch output heads (features -> distribution).
- :func:`fit`, :class:`HProbZFit`: maximum-likelihood fits on an MLP encoder (registered with
  ``statcore.loglik``).
- :class:`TrajectorySets`: the per-step conformal sets (unions of intervals).
- :func:`simulate_routes`: a seeded multimodal route-choice task.

Needs PyTorch (``import learncore`` alone does not import it).
"""
from ._gaussian_mixture import GaussianMixture
from ._hprobz import HProbZ
from .heads import HProbZHead, MixtureHead
from .routes import RouteSample, simulate_routes
from .sets import TrajectorySets
from .training import HProbZFit, fit

__all__ = ["HProbZ", "GaussianMixture", "HProbZHead", "MixtureHead", "HProbZFit", "TrajectorySets", "fit",
           "simulate_routes", "RouteSample"]
