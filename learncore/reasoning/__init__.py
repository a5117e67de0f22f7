"""Reasoning traces in a rewrite grammar, end to end on a CPU (issue 35).

- :mod:`learncore.reasoning.train`: a small causal transformer with a KV-cache sampler, pretraining on
  the environment's corpora, and post-training by REINFORCE, GRPO and rejection fine-tuning (needs torch).

Importing :mod:`learncore.reasoning` does not import torch: the names load lazily.
"""
from importlib import import_module

_LAZY = {
    "make_model": "train", "pretrain": "train", "sample": "train", "train_rl": "train",
    "grpo_advantages": "train", "RLResult": "train",
}

__all__ = list(_LAZY)


def __getattr__(name):
    if name in _LAZY:
        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
