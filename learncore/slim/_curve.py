"""Post-hoc width slimming (:func:`slim_width`) and the slimming curve of a pretrained network
(:func:`slimming_curve`, :class:`SlimmingCurve`)."""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import torch
from statcore import Result, effective_rank, linear_cka, participation_ratio, twonn_dimension

from ._adapters import adapter_for, apply_plan
from ._checks import (check_attention_scale, check_callable, check_fits, check_positive_int, check_width,
                      check_widths)

__all__ = ["slim_width", "slimming_curve", "SlimmingCurve", "slim_cost"]

_REFERENCE = """Hackel et al. Post-hoc slimmability of remote-sensing foundation models (the width rule:
    floor(s d_h) feed-forward units and floor(s d_k) dimensions of every attention head, the residual
    width kept)."""


def slim_width(model, s, *, attention_scale="keep"):
    """A copy of a pretrained network at width multiplier ``s``, by the post-hoc slimming rule.

    Every feed-forward hidden width d_h becomes floor(s d_h): the first floor(s d_h) units are kept
    (rows and biases of the first projection, columns of the second). Every attention head keeps
    its first floor(s d_k) query, key and value dimensions, with the matching columns of the
    attention output projection. The residual (model) width, the embeddings, the normalisations of
    the residual stream and the output head are kept. Nothing is retrained. For
    :class:`learncore.features.MobileNetV2` the hidden width is each inverted residual's expansion
    (6 x its input channels): the expansion 1x1 convolution and its batch norm, the depthwise 3x3
    convolution and its batch norm, and the input channels of the projection 1x1 convolution (the
    first block, which has no expansion, the stem, the last 1x1 convolution and the classifier
    are kept).

    Parameters
    ----------
    model : torch.nn.Module
        :class:`learncore.llm_uncertainty.ArithTransformer`, :class:`learncore.features.MobileNetV2`
        or a Hugging Face BERT-style encoder (``transformers``' ``BertModel`` and the models built on
        it, e.g. the MiniLM sentence encoder). Another type is a TypeError naming it.
    s : float
        The width multiplier, in (0, 1]; ``s = 1`` returns an exact copy.
    attention_scale : {"keep", "rescale"}, default "keep"
        The attention logits' scale after the head is narrowed from d_k to d_k' = floor(s d_k)
        dimensions. ``"keep"`` keeps the pretrained 1/sqrt(d_k): the logits are the full model's
        with the dropped dimensions' terms removed (so a head whose trailing dimensions are zero is
        unchanged by slicing them away). ``"rescale"`` uses 1/sqrt(d_k'), the scale a network
        trained at width d_k' would have used (larger logits, sharper attention).

    Returns
    -------
    torch.nn.Module
        A new model of the same class with narrower layers (new tensors; ``model`` is untouched),
        in the mode (train or eval) of ``model``.

    Raises
    ------
    TypeError
        When ``model`` has no adapter, or ``s`` is not a real number.
    ValueError
        When ``s`` is outside (0, 1] or so small that a layer keeps no unit.

    References
    ----------
    {ref}
    Yu, J., Yang, L., Xu, N., Yang, J. and Huang, T. (2019). Slimmable neural networks. ICLR.

    Examples
    --------
    >>> import torch
    >>> from learncore.llm_uncertainty import load_arith_model
    >>> from learncore.slim import slim_width
    >>> model = load_arith_model()
    >>> half = slim_width(model, 0.5)
    >>> model.blocks[0].fc.out_features, half.blocks[0].fc.out_features
    (256, 128)
    >>> x = torch.tensor([model.tokenizer.encode("12+7=")])
    >>> torch.equal(slim_width(model, 1.0)(x).logits, model(x).logits)
    True
    """
    s = check_width(s, "s")
    attention_scale = check_attention_scale(attention_scale)
    adapter = adapter_for(model)
    return apply_plan(model, adapter.plan(model, s, attention_scale))


slim_width.__doc__ = slim_width.__doc__.replace("{ref}", _REFERENCE)


def slim_cost(model, s, *, seq_len=None):
    """The analytic parameter count and FLOPs of ``model`` slimmed to width ``s``.

    Parameters are counted from the architecture's formula (every parameter the width rule leaves
    alone, plus the narrowed layers' weights and biases at the kept widths). FLOPs count two per
    multiply-add of the matrix products and convolutions of one input (normalisations,
    activations, softmax and additions are left out): for a transformer one sequence of
    ``seq_len`` tokens, attention scores over all seq_len^2 pairs (a causal mask's zeros included);
    for MobileNetV2 one image of ``model.input_size``.

    Parameters
    ----------
    model : torch.nn.Module
        A model :func:`slim_width` knows.
    s : float
        The width multiplier, in (0, 1].
    seq_len : int, optional
        The sequence length of a transformer's FLOPs (default: the ArithTransformer's ``max_len``,
        128 for a BERT encoder); ignored for MobileNetV2.

    Returns
    -------
    dict
        ``{"params": int, "flops": int}``.

    References
    ----------
    {ref}

    Examples
    --------
    >>> from learncore.llm_uncertainty import load_arith_model
    >>> from learncore.slim import slim_cost, slim_width
    >>> model = load_arith_model()
    >>> cost = slim_cost(model, 0.5)
    >>> cost["params"] == sum(p.numel() for p in slim_width(model, 0.5).parameters())
    True
    >>> cost["params"], slim_cost(model, 1.0)["params"]
    (103552, 202752)
    """
    s = check_width(s, "s")
    if seq_len is not None:
        seq_len = check_positive_int(seq_len, "seq_len")
    adapter = adapter_for(model)
    params, flops = adapter.cost(model, s, seq_len)
    return {"params": int(params), "flops": int(flops)}


slim_cost.__doc__ = slim_cost.__doc__.replace("{ref}", _REFERENCE)

_SPECTRAL = ("participation_ratio", "effective_rank", "twonn_dimension", "cka")


@dataclass(frozen=True, eq=False, repr=False)
class SlimmingCurve(Result):
    """A network's score, size and feature spectrum at each width (what :func:`slimming_curve` returns).

    Attributes
    ----------
    width : numpy.ndarray
        The width multipliers s, from the largest down.
    params, flops : numpy.ndarray of int
        The analytic parameter count and FLOPs at each width (:func:`slim_cost`).
    score : numpy.ndarray
        ``evaluate``'s score at each width.
    relative_score : numpy.ndarray
        score / full_score.
    participation_ratio, effective_rank, twonn_dimension : numpy.ndarray
        Spectral diagnostics of the features at each width (:func:`statcore.participation_ratio`,
        :func:`statcore.effective_rank`, :func:`statcore.twonn_dimension`); NaN when ``evaluate``
        returns no features, or where a diagnostic is undefined on them (features without variance,
        as a collapsed network gives; TwoNN on tied distances).
    cka : numpy.ndarray
        Linear CKA (:func:`statcore.linear_cka`) of the features at each width with the full
        model's features (NaN without features, or when either has no variance).
    full_score : float
        The full model's score (s = 1).
    full_params, full_flops : int
        The full model's counts.
    full_participation_ratio, full_effective_rank, full_twonn_dimension : float
        The full model's feature diagnostics (NaN without features).
    model : str
        The model's class name.
    attention_scale : str
        As passed to :func:`slim_width`.

    Examples
    --------
    >>> import numpy as np
    >>> from learncore.slim import SlimmingCurve
    >>> c = SlimmingCurve(width=np.array([1.0, 0.5]), params=np.array([10, 6]), flops=np.array([20, 12]),
    ...                   score=np.array([0.9, 0.45]), relative_score=np.array([1.0, 0.5]),
    ...                   participation_ratio=np.array([3.0, 2.0]), effective_rank=np.array([4.0, 3.0]),
    ...                   twonn_dimension=np.array([5.0, 4.0]), cka=np.array([1.0, 0.7]), full_score=0.9,
    ...                   full_params=10, full_flops=20, full_participation_ratio=3.0, full_effective_rank=4.0,
    ...                   full_twonn_dimension=5.0, model="Net", attention_scale="keep")
    >>> c.to_frame()[["width", "relative_score", "cka"]]
       width  relative_score  cka
    0    1.0             1.0  1.0
    1    0.5             0.5  0.7
    """

    width: np.ndarray
    params: np.ndarray
    flops: np.ndarray
    score: np.ndarray
    relative_score: np.ndarray
    participation_ratio: np.ndarray
    effective_rank: np.ndarray
    twonn_dimension: np.ndarray
    cka: np.ndarray
    full_score: float
    full_params: int
    full_flops: int
    full_participation_ratio: float
    full_effective_rank: float
    full_twonn_dimension: float
    model: str
    attention_scale: str

    def to_frame(self) -> pd.DataFrame:
        """One row per width: ``width``, ``params``, ``flops``, ``score``, ``relative_score``,
        ``participation_ratio``, ``effective_rank``, ``twonn_dimension``, ``cka``."""
        return pd.DataFrame({"width": np.asarray(self.width), "params": np.asarray(self.params),
                             "flops": np.asarray(self.flops), "score": np.asarray(self.score),
                             "relative_score": np.asarray(self.relative_score),
                             "participation_ratio": np.asarray(self.participation_ratio),
                             "effective_rank": np.asarray(self.effective_rank),
                             "twonn_dimension": np.asarray(self.twonn_dimension), "cka": np.asarray(self.cka)})

    def summary(self) -> str:
        """The curve as a table, under the full model's score and size."""
        lines = ["", f"\tSlimming curve of {self.model} (attention scale: {self.attention_scale})", "",
                 f"full model: score {self.full_score:.4g}, {self.full_params} parameters, "
                 f"{self.full_flops:.4g} FLOPs", ""]
        frame = self.to_frame()
        frame["params"] = frame["params"] / self.full_params
        frame["flops"] = frame["flops"] / self.full_flops
        frame = frame.rename(columns={"params": "params/full", "flops": "flops/full"})
        return "\n".join(lines) + frame.to_string(index=False, float_format=lambda v: f"{v:.4g}") + "\n"

    def _repr_parts(self):
        return [("model", self.model), ("widths", len(self.width)), ("full_score", self.full_score),
                ("min_relative_score", float(np.min(self.relative_score)))]

    def _plot(self, ax=None, x: str = "width"):
        """Relative score and CKA with the full features against ``x`` ("width", "params" or "flops",
        the latter two relative to the full model)."""
        import matplotlib.pyplot as plt
        from statcore.utils import check_choice

        x = check_choice(x, "x", ("width", "params", "flops"))
        if ax is None:
            _, ax = plt.subplots(figsize=(4.2, 3.2), layout="constrained")
        xs = np.asarray(getattr(self, x), float)
        if x != "width":
            xs = xs / float(getattr(self, f"full_{x}"))
        ax.plot(xs, self.relative_score, "o-", label="relative score")
        if np.any(np.isfinite(self.cka)):
            ax.plot(xs, self.cka, "s--", label="CKA with full features")
        ax.set_xlabel("width s" if x == "width" else f"{x} / full")
        ax.set_ylabel("relative to the full model")
        ax.set_title(f"{self.model}: post-hoc slimming", fontsize=10)
        ax.legend(fontsize=8)
        return ax


def _call(evaluate, net) -> tuple[float, np.ndarray | None]:
    with torch.no_grad():
        out = evaluate(net)
    feats = None
    if isinstance(out, tuple):
        if len(out) != 2:
            raise TypeError(f"evaluate must return a score or (score, features), got a tuple of {len(out)}")
        out, feats = out
    if isinstance(out, torch.Tensor):
        out = out.detach().cpu().numpy()
    if isinstance(out, (bool, np.bool_, str)) or np.ndim(out) != 0:
        raise TypeError(f"evaluate must return a real score (or (score, features)), got {out!r}")
    score = float(out)
    if not np.isfinite(score):
        raise ValueError(f"evaluate returned a non-finite score {score!r}")
    if feats is not None:
        if isinstance(feats, torch.Tensor):
            feats = feats.detach().cpu().double().numpy()
        feats = np.asarray(feats, dtype=float)
        if feats.ndim != 2 or feats.shape[0] < 4:
            raise ValueError(f"evaluate's features must be an (n, d) matrix with n >= 4 rows, got shape {feats.shape}")
        if not np.all(np.isfinite(feats)):
            raise ValueError("evaluate returned features holding NaN or inf")
    return score, feats


def _spectra(feats, full) -> tuple[float, float, float, float]:
    if feats is None:
        return (np.nan,) * 4
    def value(f, *args):
        # a representation without variance (a collapsed network) or TwoNN on tied distances: undefined
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # duplicate points: TwoNN drops them and says so
            try:
                return f(*args)
            except ValueError:
                return np.nan

    return (value(participation_ratio, feats), value(effective_rank, feats), value(twonn_dimension, feats),
            value(linear_cka, feats, full) if full is not None else np.nan)


def slimming_curve(model, widths, evaluate, *, attention_scale="keep", seq_len=None):
    """Score, size and feature spectrum of a pretrained network slimmed post hoc to each width.

    For each width s the model is slimmed by :func:`slim_width` (nothing retrained) and
    ``evaluate`` scores it; the full model (s = 1) is always scored as the reference, and the
    relative score is score / full score. Where ``evaluate`` also returns features (one row per
    input, the same inputs at every width), their participation ratio, effective rank and TwoNN
    intrinsic dimension are computed (statcore.spectral), and their linear CKA with the full
    model's features: how much of the representation a width keeps, next to how much of the
    score.

    Parameters
    ----------
    model : torch.nn.Module
        A model :func:`slim_width` knows (ArithTransformer, MobileNetV2, BERT-style encoders).
    widths : sequence of float
        Width multipliers in (0, 1], distinct (reported from the largest down).
    evaluate : callable
        ``evaluate(net)`` -> a score (higher is better), or ``(score, features)`` with features an
        (n, d) array or tensor. Called under ``torch.no_grad()``.
    attention_scale : {"keep", "rescale"}, default "keep"
        Passed to :func:`slim_width`.
    seq_len : int, optional
        The sequence length of a transformer's FLOPs (:func:`slim_cost`).

    Returns
    -------
    SlimmingCurve
        One row per width (``to_frame()``), ``summary()``, ``plot()``.

    Raises
    ------
    TypeError
        When ``model`` has no adapter, ``evaluate`` is not callable or returns no real score.
    ValueError
        When a width is outside (0, 1] or repeated, or ``evaluate`` returns a non-finite score or
        features that are not an (n, d) matrix.

    References
    ----------
    {ref}
    Kornblith, S., Norouzi, M., Lee, H. and Hinton, G. (2019). Similarity of neural network
    representations revisited. ICML (linear CKA).

    Examples
    --------
    >>> import torch
    >>> from learncore.llm_uncertainty import load_arith_model
    >>> from learncore.slim import slimming_curve
    >>> model = load_arith_model()
    >>> x = torch.randint(0, 12, (64, 8), generator=torch.Generator().manual_seed(0))
    >>> def evaluate(net):
    ...     out = net(x, output_hidden_states=True)
    ...     agree = (out.logits.argmax(-1) == model(x).logits.argmax(-1)).double().mean()
    ...     return agree, out.hidden_states[-1][:, -1]
    >>> curve = slimming_curve(model, [1.0, 0.5], evaluate)
    >>> curve.to_frame()[["width", "params", "relative_score"]].round(3)
       width  params  relative_score
    0    1.0  202752           1.000
    1    0.5  103552           0.506
    """
    widths = check_widths(widths)
    evaluate = check_callable(evaluate, "evaluate")
    attention_scale = check_attention_scale(attention_scale)
    adapter = adapter_for(model)
    check_fits(adapter, model, widths)
    if seq_len is not None:
        seq_len = check_positive_int(seq_len, "seq_len")
    full_score, full_feats = _call(evaluate, model)
    full_spec = _spectra(full_feats, full_feats)
    rows = []
    for s in widths:
        if s == 1.0:
            score, spec = full_score, full_spec
        else:
            score, feats = _call(evaluate, slim_width(model, s, attention_scale=attention_scale))
            if (feats is None) != (full_feats is None) or (feats is not None and feats.shape[0] != full_feats.shape[0]):
                raise ValueError("evaluate must return features (with the same rows) at every width or at none")
            spec = _spectra(feats, full_feats)
        params, flops = adapter.cost(model, s, seq_len)
        rows.append((s, params, flops, score, *spec))
    cols = list(zip(*rows))
    full_params, full_flops = adapter.cost(model, 1.0, seq_len)
    score = np.asarray(cols[3], float)
    return SlimmingCurve(width=np.asarray(cols[0], float), params=np.asarray(cols[1], np.int64),
                         flops=np.asarray(cols[2], np.int64), score=score,
                         relative_score=score / full_score if full_score != 0 else np.full_like(score, np.nan),
                         participation_ratio=np.asarray(cols[4], float), effective_rank=np.asarray(cols[5], float),
                         twonn_dimension=np.asarray(cols[6], float), cka=np.asarray(cols[7], float),
                         full_score=full_score, full_params=int(full_params), full_flops=int(full_flops),
                         full_participation_ratio=float(full_spec[0]), full_effective_rank=float(full_spec[1]),
                         full_twonn_dimension=float(full_spec[2]), model=adapter.name,
                         attention_scale=attention_scale)


slimming_curve.__doc__ = slimming_curve.__doc__.replace("{ref}", _REFERENCE)
