"""Reasoning traces end to end on a CPU: a rewrite grammar, tiny transformers, RL against rejection
fine-tuning, and Hint Tuning's data construction (issue 35).

- :mod:`learncore.reasoning.rewrite` (numpy only): words over a finite monoid (default S3; Z_m as an
  option) given by its table, the primitive step ``xy -> x*y``, traces ``w0|w1|...|wn=x`` with the
  binary final-answer :func:`reward`, and :func:`audit_step` / :func:`audit_trace`: whether a compound
  step is valid (a dynamic programme over segmentations), how many primitive steps it compresses and
  its label (atomic, sequential, parallel, mixed, no-op, invalid); the character tokenizer, random
  problems and the three pretraining corpora (full chains, isolated steps, random-order chains).
- :mod:`learncore.reasoning.train`: a small causal transformer with a KV-cache sampler, pretraining on
  the environment's corpora, and post-training by REINFORCE, GRPO and rejection fine-tuning (needs torch).
- :mod:`learncore.reasoning.analysis` (numpy only): :func:`pass_at_k_curve` (pass@k against k per
  held-out length, :func:`statcore.pass_at_k`), :func:`step_mix` (valid-step, contraction and
  invalid-shortcut rates and the label mix per checkpoint) and :func:`procedure_repertoire` (each
  composed procedure as its segments' symbols and results, its reuse, the stability of the most used).
- :mod:`learncore.reasoning.hints`: Hint Tuning (Fan et al. 2026): :func:`split_trace`,
  :func:`cumulative_prefixes`, :func:`minimal_prefix` (:class:`PrefixSearch`), :func:`hint_states`,
  :func:`format_sft`, :func:`build_hint_dataset` (:class:`HintDataset`) and :func:`token_reduction`
  (:class:`TokenReduction`: a paired Fieller interval and McNemar's test).

Names are imported lazily: ``import learncore.reasoning`` does not import torch (the training
modules need it; the rewrite environment does not).
"""
import importlib

#: public name -> the submodule defining it (imported on first access)
_LAZY = {
    # rewrite.py: the environment (numpy only)
    "Monoid": "rewrite", "primitive_step": "rewrite", "primitive_chain": "rewrite",
    "format_trace": "rewrite", "parse_trace": "rewrite", "reward": "rewrite",
    "audit_step": "rewrite", "audit_trace": "rewrite", "StepAudit": "rewrite", "TraceAudit": "rewrite",
    "RewriteTokenizer": "rewrite", "make_problems": "rewrite", "make_corpus": "rewrite",
    "trace_tokens": "rewrite", "full_chain_tokens": "rewrite",
    # analysis.py: pass@k curves, the step mix over checkpoints, the repertoire of composed procedures
    "pass_at_k_curve": "analysis", "PassAtKCurve": "analysis", "step_mix": "analysis", "StepMix": "analysis",
    "procedure_repertoire": "analysis", "Repertoire": "analysis",
    # train.py: models, pretraining, sampling, post-training (needs torch)
    "make_model": "train", "pretrain": "train", "sample": "train", "train_rl": "train",
    "grpo_advantages": "train", "RLResult": "train",
    # hints.py (Hint Tuning)
    "split_trace": "hints", "cumulative_prefixes": "hints", "minimal_prefix": "hints", "PrefixSearch": "hints",
    "hint_states": "hints", "format_sft": "hints", "build_hint_dataset": "hints", "HintDataset": "hints",
    "token_reduction": "hints", "TokenReduction": "hints",
}

__all__ = list(_LAZY)


def __getattr__(name):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
