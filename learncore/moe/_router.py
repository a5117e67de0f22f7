"""Routers of a mixture of experts: the hyperspherical (cosine) router of HypMoE-ReID and the usual
linear-softmax router it is compared with.

Both return a :class:`Routing`: the full softmax over experts (``probs``, what the load-balance loss
and router-confidence purification read), the top-k experts of each token (``indices``) with their
weights renormalised to sum to 1 (``weights``), and the same weights scattered back over the experts
(``gates``, zero outside the top k), so that a layer's output is ``sum_e gates[..., e] * expert_e(x)``.
"""
from __future__ import annotations

import math
from typing import Any, NamedTuple

import torch
from torch import nn
from torch.nn import functional as F

from .._torch import torch_generator
from ._checks import as_float_tensor, check_positive_int, check_positive_real

__all__ = ["Routing", "HypersphericalRouter", "LinearRouter"]


class Routing(NamedTuple):
    """What a router returns for tokens of shape (..., d), with E experts and top-k gating.

    Fields: ``logits`` (..., E), ``probs`` (..., E) their softmax, ``weights`` (..., k) the top-k
    probabilities renormalised to sum to 1, ``indices`` (..., k) the chosen experts (most probable
    first), ``gates`` (..., E) the weights scattered over the experts (zero outside the top k).

    Examples
    --------
    >>> import torch
    >>> from learncore.moe import HypersphericalRouter
    >>> r = HypersphericalRouter(4, 3, tau=0.5, top_k=2, seed=0)(torch.ones(1, 4))
    >>> r._fields
    ('logits', 'probs', 'weights', 'indices', 'gates')
    >>> float(r.weights.detach().sum())
    1.0
    """

    logits: torch.Tensor
    probs: torch.Tensor
    weights: torch.Tensor
    indices: torch.Tensor
    gates: torch.Tensor


def _top_k(logits: torch.Tensor, k: int) -> Routing:
    probs = torch.softmax(logits, dim=-1)
    top, idx = torch.topk(probs, k, dim=-1)
    weights = top / top.sum(dim=-1, keepdim=True)  # = softmax over the k chosen logits
    gates = torch.zeros_like(probs).scatter(-1, idx, weights)
    return Routing(logits, probs, weights, idx, gates)


def _check_router_args(d: Any, n_experts: Any, top_k: Any) -> tuple[int, int, int]:
    d = check_positive_int(d, "d")
    n_experts = check_positive_int(n_experts, "n_experts")
    top_k = check_positive_int(top_k, "top_k")
    if top_k > n_experts:
        raise ValueError(f"top_k must be at most n_experts = {n_experts}, got {top_k}")
    return d, n_experts, top_k


class HypersphericalRouter(nn.Module):
    """The hyperspherical router: cosine similarity between tokens and expert prototypes on the unit sphere.

    Each token x and each expert prototype p_e are L2-normalised; the logit of expert e is their
    cosine divided by a temperature, ``cos(x, p_e) / tau``, so the routing depends on a token's
    direction only (scaling a token by any c > 0 leaves it unchanged) and each logit is bounded by
    1/tau, which keeps one large-norm token or prototype from capturing the router (the collapse the
    hyperspherical geometry is meant to prevent). The top ``top_k`` experts of each token get the
    softmax probabilities renormalised over them (Shazeer et al.'s top-k gating).

    Parameters
    ----------
    d : int
        The token dimension.
    n_experts : int
        The number of experts E (prototypes).
    tau : float, default 0.1
        The temperature: logits lie in [-1/tau, 1/tau].
    top_k : int, default 1
        Experts per token (at most ``n_experts``).
    seed : None, int or numpy.random.Generator, optional
        The prototypes' initialisation (independent standard normal entries, then used through their
        direction only).

    Attributes
    ----------
    prototypes : torch.nn.Parameter
        The (E, d) expert prototypes (unnormalised; the router normalises them).

    References
    ----------
    HypMoE-ReID (hyperspherical mixture of experts for re-identification; its exact losses are not
    published: the choices here are named in each docstring). Shazeer et al. (2017). Outrageously
    large neural networks: the sparsely-gated mixture-of-experts layer. ICLR (top-k gating).
    Chi et al. (2022). On the representation collapse of sparse mixture of experts. NeurIPS (routing
    by cosine similarity on a hypersphere, with a temperature).

    Examples
    --------
    >>> import torch
    >>> from learncore.moe import HypersphericalRouter
    >>> router = HypersphericalRouter(8, 4, tau=0.1, top_k=2, seed=0)
    >>> x = torch.randn(5, 8, generator=torch.Generator().manual_seed(1))
    >>> r = router(x)
    >>> r.indices.shape, r.gates.shape
    (torch.Size([5, 2]), torch.Size([5, 4]))
    >>> bool(torch.allclose(router(3.0 * x).gates, r.gates))   # invariant to the tokens' norms
    True
    """

    def __init__(self, d: int, n_experts: int, *, tau: float = 0.1, top_k: int = 1, seed: Any = None):
        super().__init__()
        self.d, self.n_experts, self.top_k = _check_router_args(d, n_experts, top_k)
        self.tau = check_positive_real(tau, "tau")
        g = torch_generator(seed)
        self.prototypes = nn.Parameter(torch.randn(self.n_experts, self.d, generator=g))

    def logits(self, tokens: torch.Tensor) -> torch.Tensor:
        """The cosine logits ``cos(x, p_e) / tau``, shape (..., E), of tokens (..., d).

        Parameters
        ----------
        tokens : torch.Tensor
            Floating tokens, last dimension d.

        Returns
        -------
        torch.Tensor
            The logits.
        """
        tokens = as_float_tensor(tokens, "tokens", last=self.d)
        x = F.normalize(tokens, dim=-1)
        p = F.normalize(self.prototypes, dim=-1).to(x.dtype)
        return x @ p.T / self.tau

    def forward(self, tokens: torch.Tensor) -> Routing:
        """Route tokens (..., d): see the class docstring; returns a :class:`Routing`."""
        return _top_k(self.logits(tokens), self.top_k)

    def extra_repr(self) -> str:
        return f"d={self.d}, n_experts={self.n_experts}, tau={self.tau}, top_k={self.top_k}"


class LinearRouter(nn.Module):
    """The usual softmax router: linear logits ``W x + b`` over the experts, top-k gating.

    The baseline of the hyperspherical router (Shazeer et al. 2017; Fedus et al. 2022's Switch
    Transformer with ``top_k=1``): its logits grow with the token's norm and the rows of W, so one
    expert can capture most tokens.

    Parameters
    ----------
    d : int
        The token dimension.
    n_experts : int
        The number of experts.
    top_k : int, default 1
        Experts per token.
    seed : None, int or numpy.random.Generator, optional
        The initialisation of W (torch.nn.Linear's uniform(-1/sqrt(d), 1/sqrt(d)), drawn from ``seed``)
        and b (zero).

    References
    ----------
    Shazeer et al. (2017). ICLR. Fedus, Zoph & Shazeer (2022). Switch Transformers. JMLR 23(120).

    Examples
    --------
    >>> import torch
    >>> from learncore.moe import LinearRouter
    >>> r = LinearRouter(8, 4, top_k=1, seed=0)(torch.ones(3, 8))
    >>> r.weights
    tensor([[1.],
            [1.],
            [1.]], grad_fn=<DivBackward0>)
    """

    def __init__(self, d: int, n_experts: int, *, top_k: int = 1, seed: Any = None):
        super().__init__()
        self.d, self.n_experts, self.top_k = _check_router_args(d, n_experts, top_k)
        g = torch_generator(seed)
        bound = 1.0 / math.sqrt(self.d)
        self.weight = nn.Parameter((torch.rand(self.n_experts, self.d, generator=g) * 2 - 1) * bound)
        self.bias = nn.Parameter(torch.zeros(self.n_experts))

    def logits(self, tokens: torch.Tensor) -> torch.Tensor:
        """The linear logits ``W x + b``, shape (..., E), of tokens (..., d).

        Parameters
        ----------
        tokens : torch.Tensor
            Floating tokens, last dimension d.

        Returns
        -------
        torch.Tensor
            The logits.
        """
        tokens = as_float_tensor(tokens, "tokens", last=self.d)
        return F.linear(tokens, self.weight.to(tokens.dtype), self.bias.to(tokens.dtype))

    def forward(self, tokens: torch.Tensor) -> Routing:
        """Route tokens (..., d); returns a :class:`Routing`."""
        return _top_k(self.logits(tokens), self.top_k)

    def extra_repr(self) -> str:
        return f"d={self.d}, n_experts={self.n_experts}, top_k={self.top_k}"
