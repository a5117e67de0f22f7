"""A signed scalar stance per probe from a causal language model's log-probabilities of two answer
options, and the paired design base vs fine-tuned vs few-shot on the same probes.

The stance of a probe is log p(option A | probe) - log p(option B | probe), each option's
log-probability summed over its tokens (the option's token ids follow the probe's). It works with any
Hugging Face causal LM (``model(input_ids).logits``) and with learncore's own models
(:class:`learncore.llm_uncertainty.ArithTransformer`, tokenised by its ``CharTokenizer``). An
operationalisation written here (ours) of the stance elicitation of the ideological-generalisation
paper; the statistics are statcore's (:func:`statcore.shift_breadth`, :func:`statcore.amplification`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import statcore
import torch
from statcore import Result
from statcore.utils import check_positive_int

from ..llm_uncertainty._checks import as_prompt_ids, check_causal_lm, resolve_eos, resolve_tokenizer

__all__ = ["stance_scores", "StanceScores", "stance_shifts", "StanceShifts"]


@dataclass(frozen=True, repr=False)
class StanceScores(Result):
    """Per-probe stances of one model (:func:`stance_scores`).

    Attributes
    ----------
    stance : numpy.ndarray
        log p(option A) - log p(option B) per probe.
    logp_a, logp_b : numpy.ndarray
        The two options' summed log-probabilities.
    topic : tuple
        Each probe's topic label (0 when none was given).
    n_tokens_a, n_tokens_b : numpy.ndarray
        The options' lengths in tokens.

    Examples
    --------
    >>> from learncore.llm_uncertainty import load_arith_model
    >>> from learncore.protocols import stance_scores
    >>> res = stance_scores(load_arith_model(), ["2+3="], options=[("5", "6")], append_eos=True)
    >>> bool(res.stance[0] > 0)
    True
    """

    stance: np.ndarray
    logp_a: np.ndarray
    logp_b: np.ndarray
    topic: tuple
    n_tokens_a: np.ndarray
    n_tokens_b: np.ndarray

    def _repr_parts(self):
        return [("n", int(self.stance.size)), ("mean_stance", float(np.mean(self.stance)))]

    def summary(self) -> str:
        frame = self.to_frame().groupby("topic", sort=False)["stance"].agg(["size", "mean", "std"])
        return ("\nStance scores: log p(option A) - log p(option B) per probe\n\n"
                f"probes: {self.stance.size}; mean stance {np.mean(self.stance):.4g}\n\n{frame.to_string()}\n")

    def to_frame(self):
        return pd.DataFrame({"topic": list(self.topic), "logp_a": self.logp_a, "logp_b": self.logp_b,
                             "stance": self.stance, "n_tokens_a": self.n_tokens_a, "n_tokens_b": self.n_tokens_b})


def _options(options: Any, n: int) -> list:
    """One (A, B) pair per probe: a single pair is shared by all probes."""
    if isinstance(options, (str, bytes)) or options is None or not hasattr(options, "__len__"):
        raise TypeError("options must be a pair (option A, option B) or one pair per probe, got "
                        f"{type(options).__name__}")
    opts = list(options)
    if len(opts) == 2 and all(isinstance(o, str) or (hasattr(o, "__len__") and not _is_pair(o)) for o in opts) \
            and not all(_is_pair(o) for o in opts):
        opts = [tuple(opts)] * n
    if len(opts) == 1 and n > 1:
        opts = opts * n
    if len(opts) != n:
        raise ValueError(f"options must be one pair shared by every probe or one pair per probe: {n} probes, "
                         f"{len(opts)} pairs")
    out = []
    for i, pair in enumerate(opts):
        if not _is_pair(pair):
            raise TypeError(f"options[{i}] must be a pair (option A, option B), got {pair!r}")
        out.append(tuple(pair))
    return out


def _is_pair(o: Any) -> bool:
    return isinstance(o, (tuple, list)) and len(o) == 2 and all(
        isinstance(v, str) or (hasattr(v, "__len__") and not isinstance(v, (bytes, dict))) for v in o)


def _option_ids(option: Any, tokenizer: Any, eos: int | None, append_eos: bool, name: str) -> list[int]:
    ids = as_prompt_ids(option, tokenizer, name)
    if append_eos:
        if eos is None:
            raise ValueError("append_eos=True needs an end-of-sequence token (the tokenizer's or the model's)")
        ids = ids + [eos]
    return ids


@torch.no_grad()
def _sequence_logprobs(model, prompts: list, conts: list, batch_size: int) -> np.ndarray:
    """Sum of log p(cont tokens | prompt and the cont tokens before) for each (prompt, cont), batched with
    right padding (causal models: the padding never reaches an earlier position)."""
    out = np.empty(len(prompts))
    order = np.argsort([len(p) + len(c) for p, c in zip(prompts, conts)], kind="stable")
    for start in range(0, len(order), batch_size):
        idx = order[start:start + batch_size]
        seqs = [prompts[i] + conts[i] for i in idx]
        L = max(len(s) for s in seqs)
        ids = torch.zeros((len(idx), L), dtype=torch.long)
        for r, s in enumerate(seqs):
            ids[r, :len(s)] = torch.tensor(s, dtype=torch.long)
        logits = model(ids).logits
        logp = torch.log_softmax(logits.double(), dim=-1)
        for r, i in enumerate(idx):
            P, C = len(prompts[i]), len(conts[i])
            pos = torch.arange(P - 1, P + C - 1)
            tok = torch.tensor(conts[i], dtype=torch.long)
            out[i] = float(logp[r, pos, tok].sum())
    return out


def stance_scores(model, probes, *, options, topic=None, tokenizer=None, append_eos=False, batch_size=64):
    """The signed stance of a causal language model on each probe: log p(option A) - log p(option B).

    Each option is a continuation of the probe; its log-probability is the sum of the model's
    next-token log-probabilities over the option's tokens (the probe and the option are tokenised
    separately and concatenated, so the option's tokens are the same under every model compared).
    With ``append_eos`` the end-of-sequence token closes each option (the answer is complete: "12"
    and "123" are then different answers, not a prefix of one another). The stance is positive when
    the model prefers option A.

    Parameters
    ----------
    model : torch.nn.Module
        A causal LM with the Hugging Face interface (``model(input_ids).logits``), e.g. a
        ``transformers.GPT2LMHeadModel``, or :class:`learncore.llm_uncertainty.ArithTransformer`.
    probes : sequence of str or of token-id sequences
        The prompts (text needs a tokenizer).
    options : pair or sequence of pairs
        (option A, option B) shared by every probe, or one pair per probe (text or token ids).
    topic : sequence, optional
        Each probe's topic label (kept for :func:`stance_shifts`).
    tokenizer : object, optional
        With ``encode(text)`` (a Hugging Face tokenizer or :class:`CharTokenizer`); default
        ``model.tokenizer`` if present.
    append_eos : bool
        Close each option with the end-of-sequence token.
    batch_size : int
        Sequences per forward pass.

    Returns
    -------
    StanceScores
        ``stance``, ``logp_a``, ``logp_b`` per probe, ``topic``.

    References
    ----------
    Brown, T. et al. (2020). Language models are few-shot learners (scoring answer options by their
    summed log-likelihood). Radford, A. et al. (2019). Language models are unsupervised multitask
    learners.

    Examples
    --------
    >>> import torch
    >>> from transformers import GPT2Config, GPT2LMHeadModel
    >>> from learncore.protocols import stance_scores
    >>> torch.manual_seed(0) and None
    >>> gpt = GPT2LMHeadModel(GPT2Config(vocab_size=50, n_positions=32, n_embd=16, n_layer=1, n_head=2,
    ...                                       bos_token_id=0, eos_token_id=49)).eval()
    >>> res = stance_scores(gpt, [[1, 2, 3], [4, 5]], options=([7], [8, 9]))
    >>> res.stance.shape, bool(abs(res.stance[0] - (res.logp_a[0] - res.logp_b[0])) < 1e-12)
    ((2,), True)
    """
    check_causal_lm(model)
    tokenizer = resolve_tokenizer(model, tokenizer)
    if isinstance(probes, (str, bytes)) or probes is None or not hasattr(probes, "__len__"):
        raise TypeError(f"probes must be a sequence of prompts, got {type(probes).__name__}")
    probes = list(probes.tolist() if isinstance(probes, pd.Series) else probes)
    if not probes:
        raise ValueError("probes is empty; pass at least one prompt")
    n = len(probes)
    if not isinstance(append_eos, (bool, np.bool_)):
        raise TypeError(f"append_eos must be True or False, got {append_eos!r}")
    batch_size = check_positive_int(batch_size, "batch_size")
    pairs = _options(options, n)
    if topic is None:
        topics = (0,) * n
    else:
        if isinstance(topic, (str, bytes)) or not hasattr(topic, "__len__"):
            raise TypeError(f"topic must be one label per probe, got {type(topic).__name__}")
        topics = tuple(topic.tolist() if hasattr(topic, "tolist") else topic)
        if len(topics) != n:
            raise ValueError(f"topic must hold one label per probe: {n} probes, {len(topics)} labels")
    eos = resolve_eos(model, tokenizer, None) if append_eos else None
    p_ids = [as_prompt_ids(p, tokenizer, f"probes[{i}]") for i, p in enumerate(probes)]
    a_ids = [_option_ids(a, tokenizer, eos, append_eos, f"options[{i}][0]") for i, (a, _) in enumerate(pairs)]
    b_ids = [_option_ids(b, tokenizer, eos, append_eos, f"options[{i}][1]") for i, (_, b) in enumerate(pairs)]
    limit = _max_len(model)
    if limit is not None:
        longest = max(len(p) + max(len(a), len(b)) for p, a, b in zip(p_ids, a_ids, b_ids))
        if longest > limit:
            raise ValueError(f"probes: a probe with its option is {longest} tokens, longer than the model's "
                             f"{limit} positions")
    vocab = _vocab(model)
    if vocab is not None:
        for nm, seqs in (("probes", p_ids), ("options", a_ids + b_ids)):
            top = max(max(s) for s in seqs)
            if top >= vocab:
                raise ValueError(f"{nm} holds the token id {top}, outside the model's vocabulary 0..{vocab - 1}")
    was_training = model.training
    model.eval()
    try:
        la = _sequence_logprobs(model, p_ids, a_ids, batch_size)
        lb = _sequence_logprobs(model, p_ids, b_ids, batch_size)
    finally:
        model.train(was_training)
    return StanceScores(stance=la - lb, logp_a=la, logp_b=lb, topic=topics,
                        n_tokens_a=np.array([len(a) for a in a_ids]), n_tokens_b=np.array([len(b) for b in b_ids]))


def _max_len(model) -> int | None:
    cfg = getattr(model, "config", None)
    if isinstance(cfg, dict):
        return cfg.get("max_len")
    return getattr(cfg, "n_positions", None) or getattr(cfg, "max_position_embeddings", None)


def _vocab(model) -> int | None:
    cfg = getattr(model, "config", None)
    return cfg.get("vocab_size") if isinstance(cfg, dict) else getattr(cfg, "vocab_size", None)


@dataclass(frozen=True, repr=False)
class StanceShifts(Result):
    """Per-topic stance shifts of a fine-tuned (and a few-shot) model over the base model on the same
    probes (:func:`stance_shifts`).

    Attributes
    ----------
    topics : tuple
    n : numpy.ndarray
        Probes per topic.
    ft_shift, ft_std_error : numpy.ndarray
        Per topic, the mean fine-tuned-minus-base stance shift and its standard error (sd / sqrt(n)).
    fs_shift, fs_std_error : numpy.ndarray
        The same for few-shot minus base (NaN without a few-shot condition).
    ft_probe_shift, fs_probe_shift : numpy.ndarray
        The per-probe shifts.
    topic : tuple
        Each probe's topic.

    Examples
    --------
    >>> from learncore.protocols import stance_shifts
    >>> res = stance_shifts([0.0, 0.1, 0.0, 0.2], [1.0, 1.3, 0.1, 0.2], topic=["a", "a", "b", "b"])
    >>> [round(float(v), 3) for v in res.ft_shift]
    [1.1, 0.05]
    """

    topics: tuple
    n: np.ndarray
    ft_shift: np.ndarray
    ft_std_error: np.ndarray
    fs_shift: np.ndarray
    fs_std_error: np.ndarray
    ft_probe_shift: np.ndarray
    fs_probe_shift: np.ndarray
    topic: tuple

    def _repr_parts(self):
        return [("topics", len(self.topics)), ("probes", int(self.ft_probe_shift.size))]

    def summary(self) -> str:
        return ("\nStance shifts over the base model (mean per topic, standard error sd / sqrt(n))\n\n"
                f"{self.to_frame().to_string(index=False)}\n")

    def to_frame(self):
        return pd.DataFrame({"topic": list(self.topics), "n": self.n, "ft_shift": self.ft_shift,
                             "ft_std_error": self.ft_std_error, "fs_shift": self.fs_shift,
                             "fs_std_error": self.fs_std_error})

    def breadth(self, *, exclude=(), **kwargs):
        """:func:`statcore.shift_breadth` of the fine-tuned shifts over the topics not in ``exclude`` (the
        trained topic), with each topic's t degrees of freedom n - 1."""
        keep = [i for i, t in enumerate(self.topics) if t not in tuple(exclude)]
        shifts = pd.Series(self.ft_shift[keep], index=[self.topics[i] for i in keep])
        kwargs.setdefault("df", self.n[keep] - 1)
        return statcore.shift_breadth(shifts, self.ft_std_error[keep], **kwargs)

    def amplification(self, *, exclude=(), **kwargs):
        """:func:`statcore.amplification` of the per-probe fine-tuned over few-shot shifts, per topic."""
        if np.all(np.isnan(self.fs_probe_shift)):
            raise ValueError("these shifts have no few-shot condition; pass few_shot to stance_shifts")
        topic = np.array(self.topic, dtype=object)
        ft = {t: self.ft_probe_shift[topic == t] for t in self.topics if t not in tuple(exclude)}
        fs = {t: self.fs_probe_shift[topic == t] for t in self.topics if t not in tuple(exclude)}
        return statcore.amplification(ft, fs, **kwargs)


def _stances(x: Any, name: str) -> tuple[np.ndarray, tuple | None]:
    if isinstance(x, StanceScores):
        return np.asarray(x.stance, float), x.topic
    from statcore.utils import as_float_array

    arr = as_float_array(x, name)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one stance per probe (1-D), got shape {arr.shape}")
    return arr, None


def stance_shifts(base, tuned, few_shot=None, *, topic=None):
    """The paired design: the stance shifts of a fine-tuned (and a few-shot prompted) model over the base
    model on the same probes, per probe and as per-topic means with standard errors.

    Parameters
    ----------
    base, tuned : StanceScores or array_like
        The base and the fine-tuned model's stances on the same probes, in the same order.
    few_shot : StanceScores or array_like, optional
        The base model's stances with demonstrations in its context, on the same probes.
    topic : sequence, optional
        Each probe's topic (default: the ``topic`` of ``base`` when it is a :class:`StanceScores`).

    Returns
    -------
    StanceShifts
        Per topic ``ft_shift``, ``ft_std_error``, ``fs_shift``, ``fs_std_error``, and the per-probe
        shifts; ``breadth()`` and ``amplification()`` hand them to :func:`statcore.shift_breadth` and
        :func:`statcore.amplification`.

    References
    ----------
    The paired design of stance measurement before and after an intervention, on the same probes
    (ours, after the ideological-generalisation protocol).

    Examples
    --------
    >>> from learncore.protocols import stance_shifts
    >>> res = stance_shifts([0.0, 0.2, 0.1], [0.5, 0.9, 0.4], [0.1, 0.4, 0.2])
    >>> round(float(res.ft_shift[0]), 4), round(float(res.fs_shift[0]), 4)
    (0.5, 0.1333)
    """
    b, tb = _stances(base, "base")
    t, _ = _stances(tuned, "tuned")
    if t.size != b.size:
        raise ValueError(f"base and tuned must score the same probes: {b.size} and {t.size} stances")
    if few_shot is not None:
        f, _ = _stances(few_shot, "few_shot")
        if f.size != b.size:
            raise ValueError(f"base and few_shot must score the same probes: {b.size} and {f.size} stances")
    else:
        f = np.full(b.size, np.nan)
    if topic is None:
        labels = tb if tb is not None else (0,) * b.size
    else:
        if isinstance(topic, (str, bytes)) or not hasattr(topic, "__len__"):
            raise TypeError(f"topic must be one label per probe, got {type(topic).__name__}")
        labels = tuple(topic.tolist() if hasattr(topic, "tolist") else topic)
    if len(labels) != b.size:
        raise ValueError(f"topic must hold one label per probe: {b.size} probes, {len(labels)} labels")
    topics = tuple(dict.fromkeys(labels))
    lab = np.array(labels, dtype=object)
    dft, dfs = t - b, f - b
    n, m1, s1, m2, s2 = [], [], [], [], []
    for tp in topics:
        mask = lab == tp
        k = int(mask.sum())
        if k < 2:
            raise ValueError(f"topic {tp!r} has {k} probe; a standard error needs at least 2 per topic")
        n.append(k)
        m1.append(dft[mask].mean())
        s1.append(dft[mask].std(ddof=1) / np.sqrt(k))
        m2.append(dfs[mask].mean())
        s2.append(dfs[mask].std(ddof=1) / np.sqrt(k))
    return StanceShifts(topics=topics, n=np.array(n), ft_shift=np.array(m1), ft_std_error=np.array(s1),
                        fs_shift=np.array(m2), fs_std_error=np.array(s2), ft_probe_shift=dft, fs_probe_shift=dfs,
                        topic=tuple(labels))
