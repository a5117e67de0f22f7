"""The width rule applied to each known architecture: which rows and columns a width s keeps, and
the analytic parameter and FLOP counts of the slimmed network.

An adapter turns (model, s) into a :class:`Plan`: for every parameter or buffer that the rule
narrows, the dimensions and indices kept (``index``), and the module attributes that change with
them (``attrs``: a head's width, the attention scale). :func:`apply_plan` builds the slimmed copy
from it; :mod:`._finetune` uses the same indices to train the shared weights of every width.

The rule (Hackel et al.): a feed-forward hidden width d_h becomes floor(s d_h) (the first units:
rows of the first projection, columns of the second); every attention head keeps its first
floor(s d_k) query, key and value dimensions and the matching columns of the output projection;
the residual width is kept. MobileNetV2's "hidden width" is each inverted residual's expansion.
"""
from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from typing import Any, Callable

import torch
from torch import nn

__all__ = ["Plan", "adapter_for", "apply_plan", "kept", "ATTENTION_SCALES"]

ATTENTION_SCALES = ("keep", "rescale")


def kept(d: int, s: float, what: str) -> int:
    """floor(s d) (up to the rounding of the product s d), at least 1: a width that keeps no unit of
    some layer is refused, naming the layer's kind."""
    k = int(math.floor(s * d + 1e-9))
    if k < 1:
        raise ValueError(f"s={s!r} keeps floor(s * {d}) = 0 units of a {what} of width {d}: "
                         f"use s >= {1 / d:.4g} for this model")
    return k


@dataclass
class Plan:
    """What a width keeps: ``index[name]`` = [(dim, LongTensor of kept indices), ...] for each narrowed
    parameter or buffer; ``attrs`` = [(module name, attribute, value)] set on the slimmed copy."""

    index: dict = field(default_factory=dict)
    attrs: list = field(default_factory=list)


def gather(t: torch.Tensor, ops) -> torch.Tensor:
    """``t`` restricted to the kept indices of each (dim, index) (differentiable)."""
    for dim, idx in ops:
        t = t.index_select(dim, idx.to(t.device))
    return t


def _fix_shapes(module: nn.Module) -> None:
    """Make the shape attributes of a narrowed layer agree with its new weights (for repr and reuse)."""
    if isinstance(module, nn.Linear):
        module.out_features, module.in_features = module.weight.shape
    elif isinstance(module, nn.Conv2d):
        depthwise = module.groups == module.in_channels == module.out_channels and module.groups > 1
        module.out_channels = module.weight.shape[0]
        module.in_channels = module.weight.shape[1] * (module.weight.shape[0] if depthwise else module.groups)
        if depthwise:
            module.groups = module.out_channels
    elif isinstance(module, nn.modules.batchnorm._BatchNorm):
        module.num_features = module.weight.shape[0]


def apply_plan(model: nn.Module, plan: Plan) -> nn.Module:
    """A deep copy of ``model`` with the plan's indices kept (new tensors: the original is untouched)."""
    new = copy.deepcopy(model)
    params = dict(model.named_parameters())
    buffers = dict(model.named_buffers())
    touched = {}
    for name, ops in plan.index.items():
        prefix, _, leaf = name.rpartition(".")
        module = new.get_submodule(prefix)
        with torch.no_grad():
            if name in params:
                old = params[name]
                module._parameters[leaf] = nn.Parameter(gather(old.detach(), ops).clone(),
                                                        requires_grad=old.requires_grad)
            else:
                module._buffers[leaf] = gather(buffers[name], ops).clone()
        touched[prefix] = module
    for module in touched.values():
        _fix_shapes(module)
    for prefix, attr, value in plan.attrs:
        setattr(new.get_submodule(prefix), attr, value)
    return new


def _head_index(n_head: int, d_head: int, keep: int, offset: int = 0) -> torch.Tensor:
    """The first ``keep`` of each head's ``d_head`` coordinates, heads laid out one after another."""
    return torch.cat([offset + h * d_head + torch.arange(keep) for h in range(n_head)])


# -- the shipped ArithTransformer -------------------------------------------------------------------
def _arith_plan(model, s: float, attention_scale: str) -> Plan:
    D, H = model.config["d_model"], model.config["n_head"]
    dk = D // H
    dk2 = kept(dk, s, "attention head")
    plan = Plan()
    for i, b in enumerate(model.blocks):
        f = b.fc.out_features
        f2 = kept(f, s, "feed-forward layer")
        p = f"blocks.{i}"
        qkv = torch.cat([_head_index(H, dk, dk2, offset=part * D) for part in range(3)])
        heads = _head_index(H, dk, dk2)
        ffn = torch.arange(f2)
        plan.index.update({f"{p}.qkv.weight": [(0, qkv)], f"{p}.qkv.bias": [(0, qkv)],
                           f"{p}.proj.weight": [(1, heads)],
                           f"{p}.fc.weight": [(0, ffn)], f"{p}.fc.bias": [(0, ffn)],
                           f"{p}.out.weight": [(1, ffn)]})
        scale = None if (attention_scale == "rescale" or dk2 == dk) else 1.0 / math.sqrt(dk)
        plan.attrs += [(p, "d_head", dk2), (p, "attn_scale", scale)]
    return plan


def _arith_cost(model, s: float, seq_len: int | None) -> tuple[int, int]:
    cfg = model.config
    D, H, V, L, n = cfg["d_model"], cfg["n_head"], cfg["vocab_size"], cfg["max_len"], cfg["n_layer"]
    T = L if seq_len is None else seq_len
    a = H * kept(D // H, s, "attention head")
    f = kept(4 * D, s, "feed-forward layer")
    per_layer = 2 * D + (3 * D * a + 3 * a) + (a * D + D) + 2 * D + (D * f + f) + (f * D + D)
    params = V * D + L * D + n * per_layer + 2 * D + D * V
    token = n * 2 * (3 * D * a + a * D + D * f + f * D) + 2 * D * V
    flops = T * token + n * 4 * T * T * a
    return params, flops


# -- Hugging Face BERT-style encoders -------------------------------------------------------------
def _bert_layers(model):
    base = getattr(model, "base_model", model)
    names = {id(m): n for n, m in model.named_modules()}
    return [(names[id(layer)], layer) for layer in base.encoder.layer]


def _bert_plan(model, s: float, attention_scale: str) -> Plan:
    plan = Plan()
    for p, layer in _bert_layers(model):
        att = layer.attention.self
        H, dk = att.num_attention_heads, att.attention_head_size
        dk2 = kept(dk, s, "attention head")
        f = layer.intermediate.dense.out_features
        f2 = kept(f, s, "feed-forward layer")
        heads = _head_index(H, dk, dk2)
        ffn = torch.arange(f2)
        for proj in ("query", "key", "value"):
            plan.index[f"{p}.attention.self.{proj}.weight"] = [(0, heads)]
            plan.index[f"{p}.attention.self.{proj}.bias"] = [(0, heads)]
        plan.index.update({f"{p}.attention.output.dense.weight": [(1, heads)],
                           f"{p}.intermediate.dense.weight": [(0, ffn)], f"{p}.intermediate.dense.bias": [(0, ffn)],
                           f"{p}.output.dense.weight": [(1, ffn)]})
        scale = (dk2 if attention_scale == "rescale" else dk) ** -0.5
        if dk2 == dk:
            scale = att.scaling
        plan.attrs += [(f"{p}.attention.self", "attention_head_size", dk2),
                       (f"{p}.attention.self", "all_head_size", H * dk2),
                       (f"{p}.attention.self", "scaling", scale)]
    return plan


def _bert_cost(model, s: float, seq_len: int | None) -> tuple[int, int]:
    layers = _bert_layers(model)
    T = 128 if seq_len is None else seq_len
    total = sum(p.numel() for p in model.parameters())
    fixed, per_flops = total, 0
    params = 0
    for _, layer in layers:
        att = layer.attention.self
        H, dk = att.num_attention_heads, att.attention_head_size
        D = layer.attention.output.dense.out_features
        f_full = layer.intermediate.dense.out_features

        def count(a, f):
            return 3 * (D * a + a) + (a * D + D) + 2 * D + (D * f + f) + (f * D + D) + 2 * D

        fixed -= count(H * dk, f_full)
        a, f = H * kept(dk, s, "attention head"), kept(f_full, s, "feed-forward layer")
        params += count(a, f)
        per_flops += T * 2 * (3 * D * a + a * D + D * f + f * D) + 4 * T * T * a
    pooler = getattr(getattr(model, "base_model", model), "pooler", None)
    if pooler is not None:
        per_flops += 2 * pooler.dense.in_features * pooler.dense.out_features
    return fixed + params, per_flops


def _is_bert(model) -> bool:
    if not type(model).__module__.startswith("transformers."):
        return False
    base = getattr(model, "base_model", model)
    try:
        layer = base.encoder.layer[0]
        return all(hasattr(layer.attention.self, a) for a in ("query", "key", "value", "attention_head_size",
                                                              "scaling")) \
            and hasattr(layer, "intermediate") and hasattr(layer.output, "dense")
    except (AttributeError, IndexError, TypeError):
        return False


# -- learncore.features.MobileNetV2 ----------------------------------------------------------------
def _expanding_blocks(model):
    """(name, block) of the inverted residuals with an expansion (t > 1: four modules in ``conv``)."""
    return [(f"features.{i}", b) for i, b in enumerate(model.features)
            if hasattr(b, "use_res_connect") and len(b.conv) == 4]


def _mobilenet_plan(model, s: float, attention_scale: str) -> Plan:
    plan = Plan()
    for p, b in _expanding_blocks(model):
        hidden = b.conv[0][0].out_channels
        idx = torch.arange(kept(hidden, s, "inverted residual's expansion"))
        plan.index[f"{p}.conv.0.0.weight"] = [(0, idx)]
        plan.index[f"{p}.conv.1.0.weight"] = [(0, idx)]
        for bn in ("conv.0.1", "conv.1.1"):
            for leaf in ("weight", "bias", "running_mean", "running_var"):
                plan.index[f"{p}.{bn}.{leaf}"] = [(0, idx)]
        plan.index[f"{p}.conv.2.weight"] = [(1, idx)]
    return plan


def _conv_out(size: int, conv: nn.Conv2d, axis: int) -> int:
    return (size + 2 * conv.padding[axis] - conv.kernel_size[axis]) // conv.stride[axis] + 1


def _mobilenet_cost(model, s: float, seq_len: int | None) -> tuple[int, int]:
    """Convolutions and the classifier counted from the layer shapes, each expansion narrowed by the rule;
    FLOPs (2 per multiply-add) for one image of ``model.input_size``."""
    H, W = model.input_size
    params = flops = 0
    for i, block in enumerate(model.features):
        convs = [m for m in block.modules() if isinstance(m, nn.Conv2d)]
        bns = [m for m in block.modules() if isinstance(m, nn.BatchNorm2d)]
        expanding = hasattr(block, "use_res_connect") and len(block.conv) == 4
        hidden = kept(convs[0].out_channels, s, "inverted residual's expansion") if expanding else None
        for j, (conv, bn) in enumerate(zip(convs, bns)):
            cin, cout = conv.in_channels, conv.out_channels
            if expanding:
                cin = hidden if j >= 1 else cin
                cout = hidden if j <= 1 else cout
            groups = cin if conv.groups > 1 else 1
            k = conv.kernel_size[0] * conv.kernel_size[1]
            H, W = _conv_out(H, conv, 0), _conv_out(W, conv, 1)
            params += cout * (cin // groups) * k + 2 * cout
            flops += 2 * cout * (cin // groups) * k * H * W
    lin = model.classifier[1]
    params += lin.in_features * lin.out_features + lin.out_features
    flops += 2 * lin.in_features * lin.out_features
    return params, flops


# -- the registry -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Adapter:
    name: str
    plan: Callable[[Any, float, str], Plan]
    cost: Callable[[Any, float, Any], tuple]
    batchnorm: bool = False


def adapter_for(model: Any, name: str = "model") -> Adapter:
    """The adapter of ``model``'s architecture; a TypeError naming the type when there is none."""
    if isinstance(model, nn.Module):
        from ..llm_uncertainty import ArithTransformer

        if isinstance(model, ArithTransformer):
            return Adapter("ArithTransformer", _arith_plan, _arith_cost)
        from ..features import MobileNetV2

        if isinstance(model, MobileNetV2):
            return Adapter("MobileNetV2", _mobilenet_plan, _mobilenet_cost, batchnorm=True)
        if _is_bert(model):
            return Adapter(type(model).__name__, _bert_plan, _bert_cost)
    raise TypeError(f"{name}: no slimming adapter for {type(model).__module__}.{type(model).__qualname__}; "
                    "known: learncore.llm_uncertainty.ArithTransformer, learncore.features.MobileNetV2 and "
                    "Hugging Face BERT-style encoders (transformers' BertModel and its heads)")
