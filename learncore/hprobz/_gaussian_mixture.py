"""The Gaussian-mixture baseline of HProbZ: y = mu_b + sigma_b * eps, a diagonal Gaussian per mode (same
interface as HProbZ).
"""
from __future__ import annotations

import torch
from torch.distributions import constraints

from . import _special as S
from ._checks import as_param
from ._mixture import _TrajectoryMixture, _broadcast_batch

__all__ = ["GaussianMixture"]


# ==============================================================================================
# the Gaussian mixture baseline
# ==============================================================================================

class GaussianMixture(_TrajectoryMixture):
    """A mixture of diagonal Gaussians over T steps: y = mu_b + sigma_b * eps (the mixture-density
    baseline of HProbZ, with the same interface).

    Parameters
    ----------
    logits : tensor, shape (..., n_modes)
        Mode log-probabilities (unnormalised).
    mu : tensor, shape (..., n_modes, T)
        Mean of each mode.
    sigma : tensor, shape (..., n_modes, T)
        Standard deviations, positive.
    validate_args : bool, optional
        torch's argument validation (default: torch's global setting): the parameters against
        :attr:`arg_constraints`, and the values of ``log_prob`` against the shapes and the support.

    References
    ----------
    Bishop, C. M. (1994). Mixture density networks. Technical report NCRG/94/004, Aston University.

    Examples
    --------
    >>> import torch
    >>> from learncore.hprobz import GaussianMixture
    >>> d = GaussianMixture(torch.zeros(2), torch.tensor([[-2.0], [2.0]]), torch.ones(2, 1))
    >>> round(float(d.log_prob(torch.tensor([2.0]))), 4)
    -1.6118
    >>> d.mode_risk(0.0)[:, 0]
    tensor([0.0228, 0.9772])
    """

    _params = ("logits", "mu", "sigma")
    arg_constraints = {"logits": constraints.independent(constraints.real, 1),
                       "mu": constraints.independent(constraints.real, 2),
                       "sigma": constraints.independent(constraints.positive, 2)}

    def __init__(self, logits, mu, sigma, *, validate_args: bool | None = None):
        mu = as_param(mu, "mu", min_dim=2)
        dt = mu.dtype
        logits = as_param(logits, "logits", dtype=dt)
        sigma = as_param(sigma, "sigma", dtype=dt, min_dim=2)
        K, T = mu.shape[-2], mu.shape[-1]
        if logits.shape[-1] != K:
            raise ValueError(f"logits must have n_modes = {K} entries in its last dimension (mu is {tuple(mu.shape)}), "
                             f"got shape {tuple(logits.shape)}")
        if sigma.shape[-1] != T or sigma.shape[-2] not in (1, K):
            raise ValueError(f"sigma must have shape (..., n_modes, T) = (..., {K}, {T}), got {tuple(sigma.shape)}")
        if bool((sigma <= 0).any()):
            raise ValueError("sigma must be positive (standard deviations)")
        sigma = sigma.expand(*sigma.shape[:-2], K, T)
        p, batch = _broadcast_batch(dict(logits=logits, mu=mu, sigma=sigma), dict(logits=1, mu=2, sigma=2))
        self.logits, self.mu, self.sigma = p["logits"], p["mu"], p["sigma"]
        self._batch = batch
        self.T = int(T)
        super().__init__(batch, torch.Size([self.T]), validate_args=validate_args)

    def component_log_prob(self, y) -> torch.Tensor:
        """Per-mode log densities, shape ``(..., n_modes)``.

        Parameters
        ----------
        y : tensor, shape (..., T)
            Outcomes.

        Returns
        -------
        torch.Tensor
        """
        y = self._as_y(y)
        z = (y.unsqueeze(-2) - self.mu) / self.sigma
        return -0.5 * (z * z).sum(-1) - torch.log(self.sigma).sum(-1) - 0.5 * self.T * S.LOG_2PI

    def component_mean(self) -> torch.Tensor:
        """Per-mode means, shape ``(*batch, n_modes, T)``."""
        return self.mu

    def component_covariance(self) -> torch.Tensor:
        """Per-mode (diagonal) covariances, shape ``(*batch, n_modes, T, T)``."""
        return torch.diag_embed(self.sigma * self.sigma)

    def component_variance(self) -> torch.Tensor:
        """Per-mode variances, shape ``(*batch, n_modes, T)``."""
        return self.sigma * self.sigma

    def _sample_components(self, modes, shape, gen):
        eps = torch.randn(*shape, self.T, generator=gen, dtype=self.dtype)
        return self._gather_mode(self.mu, modes, shape, 1) + self._gather_mode(self.sigma, modes, shape, 1) * eps

    def _select_steps(self, idx):
        return self._replace(mu=self.mu.index_select(-1, idx), sigma=self.sigma.index_select(-1, idx))

    def _condition_components(self, obs, rest, values):
        ll = self._select_steps(obs).component_log_prob(values)
        logits = torch.log_softmax(torch.log_softmax(self.logits, dim=-1) + ll, dim=-1)
        return GaussianMixture(logits, self.mu.index_select(-1, rest), self.sigma.index_select(-1, rest),
                               validate_args=self._validate_args)

    def _component_exceedance(self, thr):
        return torch.special.ndtr((self.mu - thr) / self.sigma)

    def _per_step(self):
        return GaussianMixture(self.logits.unsqueeze(-2), self.mu.transpose(-1, -2).unsqueeze(-1),
                               self.sigma.transpose(-1, -2).unsqueeze(-1), validate_args=self._validate_args)

    def _support(self, width):
        return (self.mu - width * self.sigma).amin(-2), (self.mu + width * self.sigma).amax(-2)

    def _affine(self, loc, scale):
        return self._replace(mu=loc + scale * self.mu, sigma=scale * self.sigma)
