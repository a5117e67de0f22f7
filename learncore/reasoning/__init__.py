"""Reasoning traces on a CPU: a rewrite-grammar environment, RL and rejection fine-tuning of small
transformers, and Hint Tuning's data construction (issue 35).

- :mod:`learncore.reasoning.hints`: Hint Tuning (Fan et al. 2026): :func:`split_trace`,
  :func:`cumulative_prefixes`, :func:`minimal_prefix` (:class:`PrefixSearch`), :func:`hint_states`,
  :func:`format_sft`, :func:`build_hint_dataset` (:class:`HintDataset`) and :func:`token_reduction`
  (:class:`TokenReduction`: a paired Fieller interval and McNemar's test).

Importing this package imports no torch: each name is loaded from its module on first use.
"""
from importlib import import_module

#: public name -> the module of this package that defines it
_LAZY = {
    # hints.py (Hint Tuning)
    "split_trace": "hints", "cumulative_prefixes": "hints", "minimal_prefix": "hints", "PrefixSearch": "hints",
    "hint_states": "hints", "format_sft": "hints", "build_hint_dataset": "hints", "HintDataset": "hints",
    "token_reduction": "hints", "TokenReduction": "hints",
}

__all__ = list(_LAZY)


def __getattr__(name):
    if name in _LAZY:
        value = getattr(import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
