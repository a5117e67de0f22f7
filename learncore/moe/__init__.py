"""A hyperspherical mixture of experts for re-identification (after HypMoE-ReID).

- :class:`HypersphericalRouter`: cosine logits between L2-normalised tokens and expert prototypes,
  divided by a temperature, with top-k gating (invariant to the tokens' norms);
  :class:`LinearRouter`: the usual linear-softmax router it is compared with; both return a
  :class:`Routing`.
- :func:`routing_diversity_loss`: the prototypes' Riesz s-energy (minimised exactly by the regular
  simplex, largest cosine -1/(K - 1)) or their mean squared cosine (minimised by orthogonality);
  :func:`load_balance_loss`: the Switch Transformer's E sum_e f_e P_e;
  :func:`batch_hard_triplet_loss`: the metric-learning loss of the study.
- :class:`TokenPurification`: keep the tokens with the highest router confidence or class-token
  attention (:class:`PurifiedTokens`).
- :class:`MoEAdapter`: projection, router, experts, purification and pooling over a frozen
  backbone's spatial tokens (:func:`mobilenet_tokens`: learncore's MobileNetV2 with ImageNet
  weights), returning L2-normalised embeddings (:class:`MoEOutput`).

The paper's exact losses are not published: each choice is named in its docstring and is a
parameter. Evaluate retrieval with ``statcore.cmc_map`` and ``statcore.compare_retrieval`` and the
routing with ``statcore.expert_usage`` and ``statcore.expert_domain_table``. Needs PyTorch
(``import learncore`` alone does not import it).
"""
from ._adapter import MoEAdapter, MoEOutput, mobilenet_tokens
from ._losses import batch_hard_triplet_loss, load_balance_loss, routing_diversity_loss
from ._purify import PurifiedTokens, TokenPurification
from ._router import HypersphericalRouter, LinearRouter, Routing

__all__ = ["HypersphericalRouter", "LinearRouter", "Routing", "routing_diversity_loss", "load_balance_loss",
           "batch_hard_triplet_loss", "TokenPurification", "PurifiedTokens", "MoEAdapter", "MoEOutput",
           "mobilenet_tokens"]
