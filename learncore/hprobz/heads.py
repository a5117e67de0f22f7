"""Output heads: features -> the parameters of an HProbZ or of a Gaussian mixture (torch Modules)."""
from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from ._checks import check_choice, check_positive_int, check_positive_real
from ._gaussian_mixture import GaussianMixture
from ._hprobz import HProbZ

__all__ = ["HProbZHead", "MixtureHead"]


def _check_features(h: torch.Tensor, in_features: int, who: str) -> None:
    if not isinstance(h, torch.Tensor):
        raise TypeError(f"{who}: features must be a tensor, got {type(h).__name__}")
    if h.dim() < 1 or h.shape[-1] != in_features:
        raise ValueError(f"{who}: features must have in_features = {in_features} values in the last dimension, "
                         f"got shape {tuple(h.shape)}")


def _check_outputs(out: torch.Tensor, who: str, names: str) -> None:
    with torch.no_grad():
        bad = ~torch.isfinite(out)
        if bool(bad.any()):
            raise ValueError(
                f"{who}: the network produced {int(bad.sum())} non-finite output(s) (NaN or inf) among the "
                f"{names}; its weights or its input features are not finite (the optimiser diverged: lower the "
                "learning rate, or check the inputs). Refusing to build a distribution (the loss would be NaN).")


class _LinearOrConstant(nn.Module):
    """A linear map of the features, or (in_features = 0) a learned constant vector."""

    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.in_features = in_features
        if in_features > 0:
            self.linear = nn.Linear(in_features, out_features)
        else:
            self.bias = nn.Parameter(torch.zeros(out_features))

    @property
    def out_bias(self) -> torch.Tensor:
        return self.linear.bias if self.in_features > 0 else self.bias

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        if self.in_features > 0:
            return self.linear(h)
        return self.bias.expand(*h.shape[:-1], self.bias.shape[0])


class HProbZHead(nn.Module):
    """Features -> an :class:`HProbZ` (mode logits, centres, generators, noise scales), one linear layer.

    Choices (each a parameter): ``generators="per_mode"`` gives every mode its own generator matrix
    G_b (T, m) (the default: modes are distinct manoeuvres, each with its own bounded variation);
    ``"shared"`` one G for all modes. ``noise="shared"`` gives one noise scale per step, s (T,),
    shared by the modes (the method's s (T,)); ``"per_mode"`` one per mode and step. Scales are
    softplus(.) + ``s_floor``, so they are positive and bounded away from zero (a degenerate
    likelihood cannot blow up). Non-finite network outputs raise a ValueError instead of giving a NaN
    loss.

    Parameters
    ----------
    in_features : int
        Width of the features (0: no features, the parameters are learned constants).
    T : int
        Steps of the outcome.
    n_modes : int
        Modes (binary generators of the hybrid zonotope).
    m : int
        Bounded (uniform) generators shared by the T steps.
    generators : {"per_mode", "shared"}
        One generator matrix per mode or one for all.
    noise : {"shared", "per_mode"}
        Noise scales shared by the modes (T values) or per mode (n_modes x T).
    s_floor : float
        The floor added to the noise scales.
    method : {"auto", "exact", "genz"}
        The log-density route of the distributions (see :class:`HProbZ`).
    n_points : int
        Quasi-Monte Carlo points of the "genz" route.

    References
    ----------
    HProbZ (Hybrid Probabilistic Zonotopes), NeurIPS 2026, from the method's description; Bishop
    (1994), Mixture density networks (the head-on-an-encoder design).

    Examples
    --------
    >>> import torch
    >>> from learncore.hprobz import HProbZHead
    >>> _ = torch.manual_seed(0)
    >>> head = HProbZHead(8, T=12, n_modes=3, m=1)
    >>> dist = head(torch.randn(5, 8))
    >>> dist.batch_shape, tuple(dist.G.shape), tuple(dist.s.shape)
    (torch.Size([5]), (5, 3, 12, 1), (5, 3, 12))
    >>> dist.log_prob(torch.zeros(5, 12)).shape
    torch.Size([5])
    """

    def __init__(self, in_features: int, T: int, n_modes: int, m: int, *, generators: str = "per_mode",
                 noise: str = "shared", s_floor: float = 1e-3, method: str = "auto", n_points: int = 256):
        super().__init__()
        self.in_features = check_positive_int(in_features, "in_features", minimum=0)
        self.T = check_positive_int(T, "T")
        self.n_modes = check_positive_int(n_modes, "n_modes")
        self.m = check_positive_int(m, "m")
        self.generators = check_choice(generators, "generators", ("per_mode", "shared"))
        self.noise = check_choice(noise, "noise", ("shared", "per_mode"))
        self.s_floor = check_positive_real(s_floor, "s_floor")
        self.method = check_choice(method, "method", ("auto", "exact", "genz"))
        self.n_points = check_positive_int(n_points, "n_points")
        K, T, m = self.n_modes, self.T, self.m
        self._g_modes = K if self.generators == "per_mode" else 1
        self._s_modes = K if self.noise == "per_mode" else 1
        self.sizes = [K, K * T, self._g_modes * T * m, self._s_modes * T]
        self.out = _LinearOrConstant(self.in_features, sum(self.sizes))

    def forward(self, h: torch.Tensor) -> HProbZ:
        """The HProbZ of each row of features.

        Parameters
        ----------
        h : torch.Tensor, shape (..., in_features)
            Features (the encoder's output).

        Returns
        -------
        HProbZ
            Batch shape ``h.shape[:-1]``.
        """
        _check_features(h, self.in_features, "HProbZHead")
        o = self.out(h)
        _check_outputs(o, "HProbZHead", "mode logits, centres, generators and noise scales")
        K, T, m = self.n_modes, self.T, self.m
        logits, mu, G, s = torch.split(o, self.sizes, dim=-1)
        batch = o.shape[:-1]
        mu = mu.reshape(*batch, K, T)
        G = G.reshape(*batch, self._g_modes, T, m)
        s = F.softplus(s.reshape(*batch, self._s_modes, T)) + self.s_floor
        return HProbZ(logits, mu, G, s, method=self.method, n_points=self.n_points)

    def init_from_data(self, y_rows: torch.Tensor, *, g_scale: float = 0.3, s_init: float = 0.5,
                       generator: torch.Generator | None = None) -> None:
        """Start the output biases at data rows (centres), small random generators and noise ``s_init``.

        Parameters
        ----------
        y_rows : torch.Tensor, shape (n_modes, T)
            Outcome rows used as the initial centres (e.g. random training rows, standardised).
        g_scale : float
            Standard deviation of the initial generators.
        s_init : float
            Initial noise scale.
        generator : torch.Generator, optional
            Randomness of the generators.
        """
        with torch.no_grad():
            b = self.out.out_bias
            K, T, m = self.n_modes, self.T, self.m
            i = 0
            b[i:i + K] = 0.0
            i += K
            b[i:i + K * T] = y_rows.reshape(-1).to(b.dtype)
            i += K * T
            n = self._g_modes * T * m
            b[i:i + n] = g_scale * torch.randn(n, generator=generator, dtype=b.dtype)
            i += n
            b[i:] = float(torch.log(torch.expm1(torch.tensor(max(s_init - self.s_floor, 1e-6)))))
            if self.in_features > 0:
                self.out.linear.weight.mul_(0.1)


class MixtureHead(nn.Module):
    """Features -> a :class:`GaussianMixture` (mixture density network output; the HProbZ baseline).

    Standard deviations per mode and step, softplus(.) + ``sigma_floor``; non-finite network outputs
    raise a ValueError.

    Parameters
    ----------
    in_features : int
        Width of the features (0: learned constants).
    T : int
        Steps of the outcome.
    n_modes : int
        Mixture components.
    sigma_floor : float
        The floor added to the standard deviations.

    References
    ----------
    Bishop, C. M. (1994). Mixture density networks. Technical report NCRG/94/004, Aston University.

    Examples
    --------
    >>> import torch
    >>> from learncore.hprobz import MixtureHead
    >>> _ = torch.manual_seed(0)
    >>> head = MixtureHead(8, T=12, n_modes=3)
    >>> head(torch.randn(5, 8)).batch_shape
    torch.Size([5])
    """

    def __init__(self, in_features: int, T: int, n_modes: int, *, sigma_floor: float = 1e-3):
        super().__init__()
        self.in_features = check_positive_int(in_features, "in_features", minimum=0)
        self.T = check_positive_int(T, "T")
        self.n_modes = check_positive_int(n_modes, "n_modes")
        self.sigma_floor = check_positive_real(sigma_floor, "sigma_floor")
        K, T = self.n_modes, self.T
        self.sizes = [K, K * T, K * T]
        self.out = _LinearOrConstant(self.in_features, sum(self.sizes))

    def forward(self, h: torch.Tensor) -> GaussianMixture:
        """The mixture of each row of features.

        Parameters
        ----------
        h : torch.Tensor, shape (..., in_features)
            Features.

        Returns
        -------
        GaussianMixture
        """
        _check_features(h, self.in_features, "MixtureHead")
        o = self.out(h)
        _check_outputs(o, "MixtureHead", "mode logits, means and standard deviations")
        K, T = self.n_modes, self.T
        logits, mu, sig = torch.split(o, self.sizes, dim=-1)
        batch = o.shape[:-1]
        sigma = F.softplus(sig.reshape(*batch, K, T)) + self.sigma_floor
        return GaussianMixture(logits, mu.reshape(*batch, K, T), sigma)

    def init_from_data(self, y_rows: torch.Tensor, *, s_init: float = 0.5, generator=None, **_) -> None:
        """Start the output biases at data rows (means) and standard deviations ``s_init``.

        Parameters
        ----------
        y_rows : torch.Tensor, shape (n_modes, T)
            Outcome rows used as the initial means.
        s_init : float
            Initial standard deviation.
        generator : torch.Generator, optional
            Unused (the same signature as :meth:`HProbZHead.init_from_data`).
        **_
            Ignored.
        """
        with torch.no_grad():
            b = self.out.out_bias
            K, T = self.n_modes, self.T
            b[:K] = 0.0
            b[K:K + K * T] = y_rows.reshape(-1).to(b.dtype)
            b[K + K * T:] = float(torch.log(torch.expm1(torch.tensor(max(s_init - self.sigma_floor, 1e-6)))))
            if self.in_features > 0:
                self.out.linear.weight.mul_(0.1)
