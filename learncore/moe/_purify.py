"""Token purification: keep the tokens a model is surest about, drop the rest before pooling."""
from __future__ import annotations

import math
from typing import Any, NamedTuple

import torch
from torch import nn

from ._checks import as_float_tensor, check_choice, check_fraction

__all__ = ["TokenPurification", "PurifiedTokens"]

PURIFICATION_SCORES = ("router_confidence", "cls_attention")


class PurifiedTokens(NamedTuple):
    """What :class:`TokenPurification` returns: the kept ``tokens`` (N, k, d), their positions
    ``index`` (N, k) among the T input tokens (in increasing order) and every token's ``scores`` (N, T).

    Examples
    --------
    >>> import torch
    >>> from learncore.moe import TokenPurification
    >>> out = TokenPurification(0.5, score="cls_attention")(torch.randn(2, 4, 3))
    >>> out._fields
    ('tokens', 'index', 'scores')
    """

    tokens: torch.Tensor
    index: torch.Tensor
    scores: torch.Tensor


class TokenPurification(nn.Module):
    """Keep the ``keep_ratio`` fraction of each image's tokens with the highest score.

    Of T tokens, ``k = ceil(keep_ratio * T)`` (at least 1) are kept, in their original order, by

    - ``score="router_confidence"``: the token's largest routing probability ``max_e probs[t, e]``
      (tokens no expert claims, background and occluders in re-identification, are dropped);
    - ``score="cls_attention"``: the attention a class token pays to each token,
      ``softmax_t(<c, x_t> / sqrt(d))``. A CNN has no class token: c is the mean of the image's tokens
      (the global-average-pooled feature), the named choice here; it needs no parameters.

    The HypMoE-ReID paper does not publish its purification rule; both scores are named choices.
    Selection is not differentiable; the kept tokens carry their gradients.

    Parameters
    ----------
    keep_ratio : float
        The fraction of tokens kept, in (0, 1] (1 keeps all).
    score : {"router_confidence", "cls_attention"}, default "router_confidence"
        The score (above).

    References
    ----------
    Rao et al. (2021). DynamicViT: efficient vision transformers with dynamic token sparsification.
    NeurIPS. Liang et al. (2022). EViT: not all patches are what you need. ICLR (keeping the tokens
    the class token attends to most).

    Examples
    --------
    >>> import torch
    >>> from learncore.moe import TokenPurification
    >>> probs = torch.tensor([[[0.9, 0.1], [0.5, 0.5], [0.2, 0.8], [0.6, 0.4]]])
    >>> out = TokenPurification(0.5)(torch.arange(8.0).reshape(1, 4, 2), probs)
    >>> out.index
    tensor([[0, 2]])
    >>> out.tokens
    tensor([[[0., 1.],
             [4., 5.]]])
    """

    def __init__(self, keep_ratio: float, *, score: str = "router_confidence"):
        super().__init__()
        self.keep_ratio = check_fraction(keep_ratio, "keep_ratio")
        self.score = check_choice(score, "score", PURIFICATION_SCORES)

    def scores(self, tokens: torch.Tensor, probs: Any = None) -> torch.Tensor:
        """The (N, T) scores of tokens (N, T, d) (``probs`` (N, T, E) for ``"router_confidence"``).

        Parameters
        ----------
        tokens : torch.Tensor
            The (N, T, d) tokens.
        probs : torch.Tensor, optional
            The (N, T, E) routing probabilities (``Routing.probs``), needed by "router_confidence".

        Returns
        -------
        torch.Tensor
            The scores.
        """
        tokens = as_float_tensor(tokens, "tokens", ndim=(3,), what="(N, T, d)")
        if self.score == "router_confidence":
            if probs is None:
                raise ValueError('probs: score="router_confidence" needs the routing probabilities (Routing.probs)')
            probs = as_float_tensor(probs, "probs", ndim=(3,), what="(N, T, E)")
            if tuple(probs.shape[:2]) != tuple(tokens.shape[:2]):
                raise ValueError(f"probs must have leading shape {tuple(tokens.shape[:2])} (that of tokens), got "
                                 f"{tuple(probs.shape)}")
            return probs.max(dim=-1).values
        cls = tokens.mean(dim=1, keepdim=True)
        return torch.softmax((tokens * cls).sum(-1) / math.sqrt(tokens.shape[-1]), dim=-1)

    def forward(self, tokens: torch.Tensor, probs: Any = None) -> PurifiedTokens:
        """Keep the top tokens; returns :class:`PurifiedTokens` (see the class docstring)."""
        sc = self.scores(tokens, probs)
        n_tok = tokens.shape[1]
        k = max(1, math.ceil(self.keep_ratio * n_tok - 1e-9))
        if k >= n_tok:
            idx = torch.arange(n_tok, device=tokens.device).expand(tokens.shape[0], n_tok)
        else:
            idx = torch.topk(sc.detach(), k, dim=1).indices.sort(dim=1).values
        kept = torch.gather(tokens, 1, idx[..., None].expand(-1, -1, tokens.shape[-1]))
        return PurifiedTokens(kept, idx, sc)

    def extra_repr(self) -> str:
        return f"keep_ratio={self.keep_ratio}, score={self.score!r}"
