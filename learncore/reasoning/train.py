"""Models and post-training for the rewrite environment: a small causal transformer with a KV-cache
sampler, pretraining on the environment's corpora, and REINFORCE, GRPO and rejection fine-tuning (RFT).

- :func:`make_model`: the :class:`learncore.llm_uncertainty.ArithTransformer` architecture (pre-LN GPT-2
  layout, learned positions) sized for the environment's tokenizer, wrapped so that ``model(ids)`` gives
  the logits and :func:`sample` can run it incrementally with a key/value cache.
- :func:`pretrain`: next-token cross-entropy on texts (every token after ``<bos>``, ``<eos>`` included).
- :func:`sample`: ancestral sampling, with the cache or by re-running the prefix (``use_cache=False``); both
  paths draw the same uniforms and pick tokens by inverting the cumulative probabilities, so a seed gives the
  same samples either way.
- :func:`train_rl`, :class:`RLResult`: post-training with the binary final-answer reward of
  :func:`learncore.reasoning.rewrite.reward`, ``method="reinforce"`` (a mean baseline), ``"grpo"``
  (group-normalised advantages, optional ratio clipping and a KL penalty to the starting model) or
  ``"rft"`` (keep the correct samples, take a supervised step on them), with the same number of samples
  per step for every method, and checkpoints of sampled traces on evaluation problems.
- :func:`grpo_advantages`: the group-normalised advantages.

The policy is the model's softmax with ``<pad>`` and ``<bos>`` excluded (they never occur after the
prompt), in sampling, in the log-probabilities of the policy gradient and in pretraining alike.
"""
from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import torch
from statcore import Result
from statcore.utils import (as_float_array, check_choice, check_nonneg_real, check_positive_int, check_positive_real,
                            check_seed, spawn_seeds)
from torch import nn
from torch.nn import functional as F

from learncore.llm_uncertainty import ArithTransformer

from .._torch import torch_generator, torch_seeded
from . import rewrite as _rw

__all__ = ["make_model", "pretrain", "sample", "train_rl", "grpo_advantages", "RLResult"]

#: a logit that takes a token out of the policy (finite, so that 0 * logit stays 0)
_EXCLUDED = -1e9
METHODS = ("reinforce", "grpo", "rft")


# ---------------------------------------------------------------------------------------------------------------
# the model


class ReasoningLM(nn.Module):
    """An :class:`~learncore.llm_uncertainty.ArithTransformer` (``.net``) over a rewrite tokenizer, whose
    ``forward(ids)`` returns the logits, with an incremental forward pass over a key/value cache.

    Made by :func:`make_model`; ``.tokenizer`` is the tokenizer it was made for.
    """

    def __init__(self, tokenizer, *, d_model, n_layers, n_heads, max_len):
        super().__init__()
        self.net = ArithTransformer(vocab_size=int(tokenizer.vocab_size), d_model=d_model, n_layer=n_layers,
                                    n_head=n_heads, max_len=max_len)
        self.tokenizer = tokenizer
        self.max_len = max_len
        self.vocab_size = int(tokenizer.vocab_size)
        excluded = torch.zeros(self.vocab_size, dtype=torch.bool)
        excluded[[int(tokenizer.pad_id), int(tokenizer.bos_id)]] = True
        self.register_buffer("excluded", excluded, persistent=False)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """Logits, shape (batch, length, vocab), of a batch of token ids (the ArithTransformer's pass)."""
        return self.net(ids).logits

    def policy_logits(self, logits: torch.Tensor) -> torch.Tensor:
        """The logits with ``<pad>`` and ``<bos>`` excluded (the policy samples and scores)."""
        return logits.masked_fill(self.excluded, _EXCLUDED)

    def run(self, ids: torch.Tensor, cache: "KVCache | None" = None) -> torch.Tensor:
        """Logits of ``ids``; with a ``cache``, ``ids`` follow the positions it holds, and their keys and
        values are written into it (the incremental pass of the sampler)."""
        net = self.net
        B, L = ids.shape
        start = 0 if cache is None else cache.length
        if start + L > self.max_len:
            raise ValueError(f"ids: {start + L} positions, more than max_len={self.max_len}")
        x = net.tok(ids) + net.pos(torch.arange(start, start + L, device=ids.device))
        for i, b in enumerate(net.blocks):
            width = b.n_head * b.d_head
            q, k, v = b.qkv(b.ln1(x)).split(width, dim=-1)
            shape = (B, L, b.n_head, b.d_head)
            q, k, v = (t.view(shape).transpose(1, 2) for t in (q, k, v))
            if cache is not None:
                cache.k[i][:, :, start:start + L] = k
                cache.v[i][:, :, start:start + L] = v
                if start:
                    k, v = cache.k[i][:, :, :start + L], cache.v[i][:, :, :start + L]
            if start == 0:
                a = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=b.attn_scale)
            elif L == 1:  # the new token sees every cached position (a plain product: faster than SDPA here)
                scale = b.attn_scale if b.attn_scale is not None else 1 / math.sqrt(b.d_head)
                a = torch.softmax((q @ k.transpose(-1, -2)) * scale, dim=-1) @ v
            else:
                allowed = torch.ones(L, start + L, dtype=torch.bool, device=ids.device).tril(start)
                a = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed, scale=b.attn_scale)
            x = x + b.proj(a.transpose(1, 2).reshape(B, L, width))
            x = x + b.out(F.gelu(b.fc(b.ln2(x))))
        if cache is not None:
            cache.length = start + L
        return net.head(net.ln_f(x))


class KVCache:
    """Keys and values of every block of a :class:`ReasoningLM` for a batch: buffers of shape (batch, heads,
    max_len, d_head), of which the first ``length`` positions are filled."""

    def __init__(self, model: ReasoningLM, batch: int, device):
        dt = next(model.parameters()).dtype
        self.k, self.v = [], []
        for b in model.net.blocks:
            shape = (batch, b.n_head, model.max_len, b.d_head)
            self.k.append(torch.empty(shape, dtype=dt, device=device))
            self.v.append(torch.empty(shape, dtype=dt, device=device))
        self.length = 0


def _check_tokenizer(tokenizer: Any, name: str = "tokenizer") -> Any:
    need = ("encode", "decode", "pad_id", "bos_id", "eos_id", "vocab_size")
    if tokenizer is None or isinstance(tokenizer, (str, bytes, np.ndarray)) or \
            not all(hasattr(tokenizer, a) for a in need):
        raise TypeError(f"{name} must be a tokenizer of the rewrite environment (RewriteTokenizer: encode, decode, "
                        f"pad_id, bos_id, eos_id, vocab_size), got {type(tokenizer).__name__}")
    return tokenizer


def _check_model(model: Any, tokenizer: Any = None, name: str = "model") -> ReasoningLM:
    if not isinstance(model, ReasoningLM):
        raise TypeError(f"{name} must be a model made by make_model, got {type(model).__name__}")
    if tokenizer is not None and int(tokenizer.vocab_size) != model.vocab_size:
        raise ValueError(f"tokenizer has {int(tokenizer.vocab_size)} tokens but {name} was made for "
                         f"{model.vocab_size}")
    return model


def _check_texts(texts: Any, name: str) -> list[str]:
    if isinstance(texts, (str, bytes)) or texts is None or not hasattr(texts, "__iter__"):
        raise TypeError(f"{name} must be a sequence of strings, got {type(texts).__name__}")
    out = list(texts.ravel()) if isinstance(texts, np.ndarray) else list(texts)
    if not out:
        raise ValueError(f"{name} is empty")
    for i, t in enumerate(out):
        if not isinstance(t, str):
            raise TypeError(f"{name}[{i}] must be a string, got {type(t).__name__}")
        if not t:
            raise ValueError(f"{name}[{i}] is an empty string")
    return out


def _encode_all(tokenizer, texts, name, *, eos, max_len, room=0):
    out = []
    for i, t in enumerate(texts):
        try:
            ids = list(tokenizer.encode(t, bos=True, eos=eos))
        except (ValueError, TypeError) as exc:
            raise ValueError(f"{name}[{i}] = {t!r} cannot be encoded: {exc}") from None
        if len(ids) + room > max_len:
            raise ValueError(f"{name}[{i}] takes {len(ids)} tokens (with <bos>{', <eos>' if eos else ''}), more "
                             f"than the model's max_len={max_len} allows{' with room to generate' if room else ''}")
        out.append(ids)
    return out


def make_model(tokenizer, *, d_model=64, n_layers=2, n_heads=4, max_len=64, seed=None):
    """A small causal transformer for the rewrite environment: the ArithTransformer architecture.

    Pre-LN GPT-2 layout (learned token and position embeddings, ``n_layers`` blocks of causal multi-head
    self-attention and a GELU MLP of width 4 ``d_model``, a final layer norm and an untied output layer),
    GPT-2's initialisation; the weights live in an :class:`learncore.llm_uncertainty.ArithTransformer`
    (``model.net``). ``model(ids)`` returns the logits; :func:`sample` runs it with a key/value cache.

    Parameters
    ----------
    tokenizer : RewriteTokenizer
        The environment's tokenizer (:class:`learncore.reasoning.rewrite.RewriteTokenizer`): its vocabulary
        sizes the embedding and output layers; kept as ``model.tokenizer``.
    d_model : int, default 64
        Width of the residual stream.
    n_layers : int, default 2
        Transformer blocks.
    n_heads : int, default 4
        Attention heads per block (must divide ``d_model``).
    max_len : int, default 64
        Longest sequence, ``<bos>`` and ``<eos>`` included (the learned positions).
    seed : None, int or numpy.random.Generator
        Seeds the initialisation.

    Returns
    -------
    ReasoningLM
        The model (a ``torch.nn.Module``, in training mode).

    References
    ----------
    Radford, A. et al. (2019). Language models are unsupervised multitask learners (the GPT-2 layout).

    Examples
    --------
    >>> import torch
    >>> from learncore.reasoning import make_model
    >>> from learncore.reasoning.rewrite import Monoid, RewriteTokenizer
    >>> tok = RewriteTokenizer(Monoid.cyclic(5))
    >>> model = make_model(tok, d_model=32, n_layers=2, max_len=32, seed=0)
    >>> model(torch.tensor([tok.encode("1234|")])).shape
    torch.Size([1, 6, 10])
    """
    tokenizer = _check_tokenizer(tokenizer)
    d_model = check_positive_int(d_model, "d_model")
    n_layers = check_positive_int(n_layers, "n_layers")
    n_heads = check_positive_int(n_heads, "n_heads")
    max_len = check_positive_int(max_len, "max_len", minimum=3)
    if d_model % n_heads:
        raise ValueError(f"n_heads={n_heads} must divide d_model={d_model}")
    check_seed(seed)
    with torch_seeded(seed):
        return ReasoningLM(tokenizer, d_model=d_model, n_layers=n_layers, n_heads=n_heads, max_len=max_len)


# ---------------------------------------------------------------------------------------------------------------
# pretraining


def _pad(seqs: list[list[int]], pad_id: int) -> torch.Tensor:
    L = max(len(s) for s in seqs)
    return torch.tensor([s + [pad_id] * (L - len(s)) for s in seqs], dtype=torch.long)


def _token_logprobs(model: ReasoningLM, seqs: list[list[int]], starts: list[int]):
    """Log-probabilities under the policy of tokens ``seqs[i][starts[i]:]``: (N, L - 1) values and a mask
    of the scored positions (target position j + 1 of row i is scored when starts[i] <= j + 1 < len)."""
    pad = int(model.tokenizer.pad_id)
    ids = _pad(seqs, pad)
    logits = model.policy_logits(model(ids[:, :-1]))
    logp = torch.log_softmax(logits, dim=-1).gather(-1, ids[:, 1:, None])[..., 0]
    pos = torch.arange(1, ids.shape[1])
    lens = torch.tensor([len(s) for s in seqs])
    st = torch.tensor(starts)
    mask = (pos[None, :] >= st[:, None]) & (pos[None, :] < lens[:, None])
    return logp, mask


def pretrain(model, tokenizer, texts, *, steps, batch_size=64, lr=3e-3, seed=None):
    """Pretrain by next-token cross-entropy on texts of the environment (one of its corpora).

    Each step draws ``batch_size`` texts uniformly with replacement, encodes them as ``<bos>`` text
    ``<eos>`` and takes one AdamW step (weight decay 0.01, gradient norm clipped at 1) on the mean
    cross-entropy of every token after ``<bos>``; the learning rate warms up linearly over the first 5% of
    the steps and decays by a cosine to a tenth. The model given is left as it is.

    Parameters
    ----------
    model : ReasoningLM
        A model from :func:`make_model`.
    tokenizer : RewriteTokenizer
        The model's tokenizer.
    texts : sequence of str
        Training texts (:func:`learncore.reasoning.rewrite.make_corpus`: full chains, single steps, or chains
        in random order).
    steps : int
        Optimiser steps.
    batch_size : int, default 64
        Texts per step.
    lr : float, default 3e-3
        Peak learning rate.
    seed : None, int or numpy.random.Generator
        Seeds the batches.

    Returns
    -------
    ReasoningLM
        A trained copy of ``model`` (eval mode); ``.pretrain_losses`` holds the loss of every step.

    References
    ----------
    Loshchilov, I. and Hutter, F. (2019). Decoupled weight decay regularization. ICLR (AdamW).

    Examples
    --------
    >>> from learncore.reasoning import make_model, pretrain
    >>> from learncore.reasoning.rewrite import Monoid, RewriteTokenizer, make_corpus
    >>> m = Monoid.cyclic(5)
    >>> tok = RewriteTokenizer(m)
    >>> texts = make_corpus(m, 200, kind="full", lengths=[2, 3, 4], seed=0)
    >>> model = pretrain(make_model(tok, d_model=32, max_len=32, seed=0), tok, texts, steps=20, batch_size=16, seed=0)
    >>> bool(model.pretrain_losses[-1] < model.pretrain_losses[0])
    True
    """
    _check_model(model)
    tokenizer = _check_tokenizer(tokenizer)
    _check_model(model, tokenizer)
    texts = _check_texts(texts, "texts")
    steps = check_positive_int(steps, "steps")
    batch_size = check_positive_int(batch_size, "batch_size")
    lr = check_positive_real(lr, "lr")
    rng = check_seed(seed)
    encoded = _encode_all(tokenizer, texts, "texts", eos=True, max_len=model.max_len)
    net = copy.deepcopy(model).train()
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=0.01)
    warm = max(1, steps // 20)

    def factor(t):
        if t < warm:
            return (t + 1) / warm
        frac = (t - warm) / max(1, steps - warm)
        return 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * frac))

    sched = torch.optim.lr_scheduler.LambdaLR(opt, factor)
    losses = np.empty(steps)
    for t in range(steps):
        idx = rng.integers(0, len(encoded), size=batch_size)
        seqs = [encoded[i] for i in idx]
        logp, mask = _token_logprobs(net, seqs, [1] * len(seqs))
        loss = -(logp * mask).sum() / mask.sum()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
        opt.step()
        sched.step()
        losses[t] = float(loss.detach())
    net.eval()
    net.pretrain_losses = losses
    return net


# ---------------------------------------------------------------------------------------------------------------
# sampling


def _draw(logits: torch.Tensor, temperature: float, gen: torch.Generator) -> torch.Tensor:
    """One token per row: the inverse of the cumulative probabilities at a uniform draw (float64), so the
    choice moves only if a rounding-level change of the logits crosses the draw; argmax at temperature 0."""
    if temperature == 0:
        return logits.argmax(-1)
    probs = torch.softmax(logits.double() / temperature, dim=-1)
    u = torch.rand(logits.shape[0], generator=gen, dtype=torch.float64)
    cdf = probs.cumsum(-1)
    return (cdf < u[:, None] * cdf[:, -1:]).sum(-1).clamp_max(logits.shape[-1] - 1)


@torch.no_grad()
def _generate(model: ReasoningLM, ids: torch.Tensor, steps: int, temperature: float, gen: torch.Generator,
              use_cache: bool) -> torch.Tensor:
    """Continue a rectangular batch of prompts by up to ``steps`` tokens (rows that have ended get <pad>)."""
    eos, pad = int(model.tokenizer.eos_id), int(model.tokenizer.pad_id)
    B = ids.shape[0]
    done = torch.zeros(B, dtype=torch.bool)
    seq = ids
    cache = KVCache(model, B, ids.device) if use_cache else None
    if use_cache and steps:
        last = model.run(ids, cache)[:, -1]
    for t in range(steps):
        if not use_cache:
            last = model.run(seq)[:, -1]
        tok = _draw(model.policy_logits(last), temperature, gen)
        tok = torch.where(done, torch.full_like(tok, pad), tok)
        seq = torch.cat([seq, tok[:, None]], dim=1)
        done |= tok == eos
        if bool(done.all()):
            break
        if use_cache and t < steps - 1:
            last = model.run(tok[:, None], cache)[:, -1]
    return seq


def _sample_ids(model, prompt_ids, *, max_new_tokens, temperature, gen, use_cache):
    """Completions (token ids up to and including <eos>, or truncated) of encoded prompts, grouped by length."""
    eos = int(model.tokenizer.eos_id)
    groups: dict[int, list[int]] = {}
    for i, p in enumerate(prompt_ids):
        groups.setdefault(len(p), []).append(i)
    out: list = [None] * len(prompt_ids)
    was_training = model.training
    model.eval()
    try:
        for L in sorted(groups):
            idx = groups[L]
            n_new = min(max_new_tokens, model.max_len - L)
            seq = _generate(model, torch.tensor([prompt_ids[i] for i in idx], dtype=torch.long), n_new,
                            temperature, gen, use_cache)
            for row, i in enumerate(idx):
                comp = seq[row, L:].tolist()
                if eos in comp:
                    comp = comp[:comp.index(eos) + 1]
                out[i] = comp
    finally:
        model.train(was_training)
    return out


def sample(model, tokenizer, prompts, *, max_new_tokens, temperature=1.0, seed=None, use_cache=True):
    """Sample completions of prompts, with a key/value cache or by re-running the prefix.

    Prompts of one length are continued as one batch. At every step each row's next token is drawn by
    inverting the cumulative probabilities of the policy (``<pad>`` and ``<bos>`` excluded) at one uniform
    draw of the seeded generator; generation stops at ``<eos>``, after ``max_new_tokens`` tokens, or at the
    model's ``max_len``. The cached and the uncached path consume the same draws, so under one seed they
    give the same samples (a logit change at rounding level moves a choice only if it crosses the draw).

    Parameters
    ----------
    model : ReasoningLM
        A model from :func:`make_model`.
    tokenizer : RewriteTokenizer
        The model's tokenizer.
    prompts : sequence of str
        Prompts, e.g. ``w0 + "|"`` for a chain model, ``w0 + "="`` for a direct-answer model.
    max_new_tokens : int
        Most tokens generated per prompt (``<eos>`` included).
    temperature : float, default 1.0
        Softmax temperature; 0 is greedy decoding.
    seed : None, int, numpy.random.Generator or torch.Generator
        The draws.
    use_cache : bool, default True
        Run the model incrementally over a key/value cache (False: re-run the whole prefix at every step).

    Returns
    -------
    list of str
        Prompt and completion, decoded (up to ``<eos>``), one per prompt.

    References
    ----------
    Pope, R. et al. (2023). Efficiently scaling transformer inference. MLSys (the key/value cache).

    Examples
    --------
    >>> from learncore.reasoning import make_model, sample
    >>> from learncore.reasoning.rewrite import Monoid, RewriteTokenizer
    >>> tok = RewriteTokenizer(Monoid.cyclic(5))
    >>> model = make_model(tok, d_model=32, max_len=32, seed=0)
    >>> a = sample(model, tok, ["12|", "123|"], max_new_tokens=8, seed=1)
    >>> a == sample(model, tok, ["12|", "123|"], max_new_tokens=8, seed=1, use_cache=False)
    True
    >>> [t[:3] for t in a]
    ['12|', '123']
    """
    _check_model(model)
    tokenizer = _check_tokenizer(tokenizer)
    _check_model(model, tokenizer)
    prompts = _check_texts(prompts, "prompts")
    max_new_tokens = check_positive_int(max_new_tokens, "max_new_tokens")
    temperature = check_nonneg_real(temperature, "temperature")
    if not isinstance(use_cache, (bool, np.bool_)):
        raise TypeError(f"use_cache must be True or False, got {use_cache!r}")
    gen = torch_generator(seed)
    prompt_ids = _encode_all(tokenizer, prompts, "prompts", eos=False, max_len=model.max_len, room=1)
    comps = _sample_ids(model, prompt_ids, max_new_tokens=max_new_tokens, temperature=temperature, gen=gen,
                        use_cache=bool(use_cache))
    return [tokenizer.decode(p + c) for p, c in zip(prompt_ids, comps)]


# ---------------------------------------------------------------------------------------------------------------
# post-training


def grpo_advantages(rewards, group_size):
    """GRPO's group-normalised advantages: each reward minus its group's mean, over the group's standard
    deviation.

    The rewards come in consecutive groups of ``group_size`` samples of one prompt. Within a group the
    advantages have mean 0 and (population, ``ddof=0``) variance 1; a group whose rewards are all equal gets
    advantages 0 (it carries no signal, and no gradient).

    Parameters
    ----------
    rewards : array_like
        Rewards, 1-D, of a length that is a multiple of ``group_size``.
    group_size : int
        Samples per prompt (at least 2).

    Returns
    -------
    numpy.ndarray
        The advantages, in the order of ``rewards``.

    References
    ----------
    Shao, Z. et al. (2024). DeepSeekMath: pushing the limits of mathematical reasoning in open language
    models. arXiv:2402.03300 (GRPO, equation 3's outcome supervision).

    Examples
    --------
    >>> from learncore.reasoning import grpo_advantages
    >>> grpo_advantages([1, 0, 0, 0, 1, 1, 1, 1], 4).round(4).tolist()
    [1.7321, -0.5774, -0.5774, -0.5774, 0.0, 0.0, 0.0, 0.0]
    """
    r = as_float_array(rewards, "rewards", ndim=1)
    if r.size == 0:
        raise ValueError("rewards is empty")
    group_size = check_positive_int(group_size, "group_size", minimum=2)
    if r.size % group_size:
        raise ValueError(f"rewards has {r.size} values, not a multiple of group_size={group_size}")
    g = r.reshape(-1, group_size)
    out = np.zeros_like(g)
    varies = g.max(axis=1) > g.min(axis=1)
    if varies.any():
        v = g[varies]
        span = np.max(np.abs(v), axis=1, keepdims=True)
        v = v / np.exp2(np.floor(np.log2(span)))  # a power of two: exact, and no overflow when squaring
        c = v - v.mean(axis=1, keepdims=True)
        out[varies] = c / np.sqrt((c ** 2).mean(axis=1, keepdims=True))
    return out.reshape(-1)


def _pg_loss(logp_seq: torch.Tensor, advantages: torch.Tensor, weights: torch.Tensor | None = None) -> torch.Tensor:
    """REINFORCE's surrogate: minus the (weighted) mean of advantage times sequence log-probability; its
    gradient is the policy-gradient estimate (weights: the samples' weights, default 1/N each)."""
    if weights is None:
        return -(advantages.detach() * logp_seq).mean()
    return -(weights.detach() * advantages.detach() * logp_seq).sum()


def _grpo_loss(logp, old_logp, ref_logp, mask, advantages, *, clip, kl):
    """GRPO's objective, negated: per sequence the token mean of min(ratio A, clip(ratio) A) minus kl times
    the k3 estimate of KL(policy || reference), averaged over sequences."""
    ratio = torch.exp(logp - old_logp)
    A = advantages[:, None]
    surr = ratio * A
    if clip is not None:
        surr = torch.minimum(surr, ratio.clamp(1 - clip, 1 + clip) * A)
    per_tok = surr
    if kl:
        d = ref_logp - logp
        per_tok = per_tok - kl * (torch.exp(d) - d - 1)
    m = mask.to(logp.dtype)
    per_seq = (per_tok * m).sum(1) / m.sum(1).clamp_min(1)
    return -per_seq.mean()


@dataclass(frozen=True, eq=False, repr=False)
class RLResult(Result):
    """A post-trained model, its reward curve and the sampled traces of its checkpoints (:func:`train_rl`).

    Attributes
    ----------
    model : ReasoningLM
        The trained model (eval mode).
    method : str
        "reinforce", "grpo" or "rft".
    step : numpy.ndarray
        Steps 1 .. steps.
    reward : numpy.ndarray
        Mean reward of each step's samples (before the step's update).
    loss : numpy.ndarray
        The loss of each step's (first) update.
    n_correct : numpy.ndarray
        Correct samples per step (RFT's kept samples).
    mean_tokens : numpy.ndarray
        Mean generated tokens per sample.
    eval_problems : tuple of str
        The evaluation problems (words).
    checkpoint_steps : numpy.ndarray
        The steps of the checkpoints (0: the starting model).
    checkpoints : tuple
        ``checkpoints[c][j]``: the tuple of texts sampled for ``eval_problems[j]`` at checkpoint ``c``.
    eval_reward : numpy.ndarray
        Mean reward of each checkpoint's samples.
    steps, group_size, batch_size, max_new_tokens : int
        The run's settings: samples per step are ``batch_size * group_size``.
    lr, kl : float
        Adam's learning rate and the KL weight (GRPO).
    clip : float or None
        GRPO's ratio clipping.

    Examples
    --------
    >>> import numpy as np
    >>> from learncore.reasoning import RLResult
    >>> res = RLResult(model=None, method="rft", step=np.array([1, 2]), reward=np.array([0.25, 0.5]),
    ...                loss=np.array([1.0, 0.8]), n_correct=np.array([2, 4]), mean_tokens=np.array([9.0, 8.5]),
    ...                eval_problems=("12",), checkpoint_steps=np.array([0, 2]),
    ...                checkpoints=((("12|3=3",),), (("12|3=3",),)), eval_reward=np.array([1.0, 1.0]),
    ...                steps=2, group_size=4, batch_size=2, max_new_tokens=16, lr=1e-4, kl=0.0, clip=None)
    >>> res.to_frame()
       step  reward  loss  n_correct  mean_tokens
    0     1    0.25   1.0          2          9.0
    1     2    0.50   0.8          4          8.5
    """

    model: Any
    method: str
    step: np.ndarray
    reward: np.ndarray
    loss: np.ndarray
    n_correct: np.ndarray
    mean_tokens: np.ndarray
    eval_problems: tuple
    checkpoint_steps: np.ndarray
    checkpoints: tuple
    eval_reward: np.ndarray
    steps: int
    group_size: int
    batch_size: int
    max_new_tokens: int
    lr: float
    kl: float
    clip: Any = None

    def to_frame(self) -> pd.DataFrame:
        """One row per step: ``step``, ``reward``, ``loss``, ``n_correct``, ``mean_tokens``."""
        return pd.DataFrame({"step": np.asarray(self.step), "reward": np.asarray(self.reward),
                             "loss": np.asarray(self.loss), "n_correct": np.asarray(self.n_correct),
                             "mean_tokens": np.asarray(self.mean_tokens)})

    def traces_frame(self) -> pd.DataFrame:
        """The checkpoints' samples, one row each: ``checkpoint_step``, ``problem``, ``sample``, ``text``.

        Returns
        -------
        pandas.DataFrame
            Long format, in checkpoint, problem and sample order.
        """
        rows = [(int(s), p, k, text) for s, per in zip(self.checkpoint_steps, self.checkpoints)
                for p, texts in zip(self.eval_problems, per) for k, text in enumerate(texts)]
        return pd.DataFrame(rows, columns=["checkpoint_step", "problem", "sample", "text"])

    def _windows(self):
        k = max(1, len(self.reward) // 10)
        return float(np.mean(self.reward[:k])), float(np.mean(self.reward[-k:])), k

    def summary(self) -> str:
        """The settings, the mean reward over the first and last tenth of the steps, the checkpoints'."""
        first, last, k = self._windows()
        extra = ""
        if self.method == "grpo":
            extra = f"; clip = {self.clip if self.clip is not None else 'none'}; kl = {self.kl:g}"
        lines = ["", f"\tPost-training by {self.method.upper() if self.method != 'reinforce' else 'REINFORCE'}",
                 "", f"{self.steps} steps of {self.batch_size} problems x {self.group_size} samples; "
                 f"Adam lr = {self.lr:g}{extra}; at most {self.max_new_tokens} new tokens",
                 f"mean reward, first {k} steps: {first:.4g}; last {k} steps: {last:.4g}"]
        if len(self.checkpoint_steps):
            lines.append(f"checkpoints on {len(self.eval_problems)} evaluation problems (mean reward):")
            lines += [f"  step {int(s):>6d}: {float(r):.4g}" for s, r in zip(self.checkpoint_steps, self.eval_reward)]
        return "\n".join(lines) + "\n"

    def _repr_parts(self):
        first, last, _ = self._windows()
        return [("method", self.method), ("steps", self.steps), ("reward_first", first), ("reward_last", last)]

    def _plot(self, ax=None):
        """The reward of each step (light), its running mean, and the checkpoints' evaluation reward."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(4.5, 3.2), layout="constrained")
        r = np.asarray(self.reward)
        ax.plot(self.step, r, lw=0.6, alpha=0.35, color="C0")
        w = max(1, len(r) // 20)
        run = np.convolve(r, np.ones(w) / w, mode="valid")
        ax.plot(np.asarray(self.step)[w - 1:], run, lw=1.2, color="C0", label="training (running mean)")
        if len(self.checkpoint_steps):
            ax.plot(self.checkpoint_steps, self.eval_reward, "o-", ms=3, color="C1", label="evaluation")
        ax.set_xlabel("step")
        ax.set_ylabel("mean reward")
        ax.set_ylim(-0.02, 1.02)
        ax.set_title(f"{self.method}", fontsize=10)
        ax.legend(fontsize=8)
        return ax


def _check_problems(problems, monoid, name):
    words = _check_texts(problems, name)
    return [monoid.check_word(w, name=f"{name}[{i}]") for i, w in enumerate(words)]


def train_rl(model, tokenizer, problems, monoid, *, method="grpo", steps, group_size=8, batch_size=8, lr=3e-4,
             clip=None, kl=0.0, max_new_tokens, eval_problems=None, eval_every=None, eval_samples=None,
             inner_steps=1, temperature=1.0, seed=None):
    """Post-train a chain model with the final-answer reward: REINFORCE, GRPO or rejection fine-tuning.

    Every step draws ``batch_size`` problems (without replacement when there are enough), samples
    ``group_size`` completions of each prompt ``w0 + "|"`` from the current model (the same
    ``batch_size * group_size`` samples per step for every method), scores them with
    :func:`~learncore.reasoning.rewrite.reward` (1 iff the answer after "=" is the product of ``w0``) and
    takes an Adam step (gradient norm clipped at 1):

    - ``"reinforce"``: the score-function estimator with the batch's mean reward as the baseline, loss
      ``-mean_i (r_i - mean r) log p(y_i)`` (the sequence's log-probability);
    - ``"grpo"``: advantages normalised within each prompt's group (:func:`grpo_advantages`); per sequence
      the token mean of ``min(ratio A, clip(ratio, 1 - clip, 1 + clip) A)`` minus ``kl`` times the k3
      estimate of the KL divergence to the starting (reference) model, averaged over sequences;
      ``inner_steps`` updates per sampled batch (the ratio is 1 at the first, so clipping matters from the
      second);
    - ``"rft"``: keep the correct samples and take a supervised step (mean token cross-entropy of their
      completions); a step without a correct sample makes no update.

    Parameters
    ----------
    model : ReasoningLM
        The starting (pretrained) model; left as it is.
    tokenizer : RewriteTokenizer
        Its tokenizer.
    problems : sequence of str
        Training words.
    monoid : Monoid
        The environment (:class:`learncore.reasoning.rewrite.Monoid`) that defines the reward.
    method : {"grpo", "reinforce", "rft"}, default "grpo"
        The algorithm.
    steps : int
        Sampled batches (steps).
    group_size : int, default 8
        Samples per problem.
    batch_size : int, default 8
        Problems per step.
    lr : float, default 3e-4
        Adam's learning rate.
    clip : float, optional
        GRPO's ratio clipping epsilon (None: no clipping).
    kl : float, default 0.0
        Weight of GRPO's KL penalty to the starting model.
    max_new_tokens : int
        Most tokens generated per sample.
    eval_problems : sequence of str, optional
        Words whose samples are stored at the checkpoints.
    eval_every : int, optional
        Steps between checkpoints (with ``eval_problems``; default: ``steps``). Checkpoints are taken at
        step 0, every ``eval_every`` steps and at the last step.
    eval_samples : int, optional
        Samples per evaluation problem at a checkpoint (default ``group_size``).
    inner_steps : int, default 1
        GRPO's updates per sampled batch (the other methods take one).
    temperature : float, default 1.0
        Sampling temperature (training and checkpoints).
    seed : None, int or numpy.random.Generator
        The problems drawn, the training samples and the checkpoints' samples (separate streams).

    Returns
    -------
    RLResult
        The trained model, the per-step reward curve and the checkpoints' sampled traces.

    References
    ----------
    Williams, R. J. (1992). Simple statistical gradient-following algorithms for connectionist reinforcement
    learning. Machine Learning 8, 229-256 (REINFORCE).
    Shao, Z. et al. (2024). DeepSeekMath. arXiv:2402.03300 (GRPO).
    Yuan, Z. et al. (2023). Scaling relationship on learning mathematical reasoning with large language
    models. arXiv:2308.01825 (rejection sampling fine-tuning).
    Schulman, J. (2020). Approximating KL divergence (the k3 estimator), joschu.net/blog/kl-approx.html.

    Examples
    --------
    >>> from learncore.reasoning import make_model, train_rl
    >>> from learncore.reasoning.rewrite import Monoid, RewriteTokenizer, make_problems
    >>> m = Monoid.cyclic(5)
    >>> tok = RewriteTokenizer(m)
    >>> model = make_model(tok, d_model=32, max_len=32, seed=0)
    >>> res = train_rl(model, tok, make_problems(m, 20, lengths=[2, 3], seed=0), m, method="rft", steps=2,
    ...                group_size=4, batch_size=2, max_new_tokens=10, eval_problems=["12"], seed=0)
    >>> res.to_frame().shape, len(res.checkpoints[0][0])
    ((2, 5), 4)
    """
    _check_model(model)
    tokenizer = _check_tokenizer(tokenizer)
    _check_model(model, tokenizer)
    if not isinstance(monoid, _rw.Monoid):
        raise TypeError(f"monoid must be a Monoid of learncore.reasoning.rewrite, got {type(monoid).__name__}")
    problems = _check_problems(problems, monoid, "problems")
    method = check_choice(method, "method", METHODS)
    steps = check_positive_int(steps, "steps")
    group_size = check_positive_int(group_size, "group_size", minimum=2 if method == "grpo" else 1)
    batch_size = check_positive_int(batch_size, "batch_size")
    lr = check_positive_real(lr, "lr")
    if clip is not None:
        clip = check_positive_real(clip, "clip")
        if clip >= 1:
            raise ValueError(f"clip must be in (0, 1), got {clip}")
        if method != "grpo":
            raise ValueError(f"clip is GRPO's ratio clipping; method={method!r} takes clip=None")
    kl = check_nonneg_real(kl, "kl")
    if kl and method != "grpo":
        raise ValueError(f"kl is GRPO's penalty; method={method!r} takes kl=0")
    max_new_tokens = check_positive_int(max_new_tokens, "max_new_tokens")
    inner_steps = check_positive_int(inner_steps, "inner_steps")
    if inner_steps > 1 and method != "grpo":
        raise ValueError(f"inner_steps > 1 needs GRPO's importance ratio; method={method!r} takes inner_steps=1")
    temperature = check_positive_real(temperature, "temperature")
    if eval_problems is not None:
        eval_problems = _check_problems(eval_problems, monoid, "eval_problems")
        eval_every = steps if eval_every is None else check_positive_int(eval_every, "eval_every")
    elif eval_every is not None:
        raise ValueError("eval_every needs eval_problems")
    eval_samples = group_size if eval_samples is None else check_positive_int(eval_samples, "eval_samples")
    seeds = spawn_seeds(seed, 3)
    rng = check_seed(seeds[0])
    gen = torch_generator(seeds[1])
    eval_gen = torch_generator(seeds[2])
    prompts = [w + "|" for w in problems]
    prompt_ids = _encode_all(tokenizer, prompts, "problems", eos=False, max_len=model.max_len, room=1)
    if eval_problems is not None:
        eval_ids = _encode_all(tokenizer, [w + "|" for w in eval_problems], "eval_problems", eos=False,
                               max_len=model.max_len, room=1)

    policy = copy.deepcopy(model).train()
    reference = None
    if method == "grpo" and kl:
        reference = copy.deepcopy(model).eval()
        for p in reference.parameters():
            p.requires_grad_(False)
    opt = torch.optim.Adam(policy.parameters(), lr=lr)

    ck_steps, ck_texts, ck_reward = [], [], []

    def checkpoint(t):
        ids = [e for e in eval_ids for _ in range(eval_samples)]
        comps = _sample_ids(policy, ids, max_new_tokens=max_new_tokens, temperature=temperature, gen=eval_gen,
                            use_cache=True)
        texts = [tokenizer.decode(p + c) for p, c in zip(ids, comps)]
        ck_steps.append(t)
        ck_texts.append(tuple(tuple(texts[j * eval_samples:(j + 1) * eval_samples])
                              for j in range(len(eval_problems))))
        ck_reward.append(float(np.mean([_rw.reward(s, monoid) for s in texts])))

    if eval_problems is not None:
        checkpoint(0)
    curve = {k: np.zeros(steps) for k in ("reward", "loss", "n_correct", "mean_tokens")}
    n = len(problems)
    for t in range(steps):
        chosen = rng.choice(n, size=batch_size, replace=batch_size > n)
        p_ids = [prompt_ids[i] for i in chosen for _ in range(group_size)]
        comps = _sample_ids(policy, p_ids, max_new_tokens=max_new_tokens, temperature=temperature, gen=gen,
                            use_cache=True)
        texts = [tokenizer.decode(p + c) for p, c in zip(p_ids, comps)]
        r = np.array([_rw.reward(s, monoid) for s in texts])
        curve["reward"][t] = r.mean()
        curve["n_correct"][t] = int((r == 1).sum())
        curve["mean_tokens"][t] = np.mean([len(c) for c in comps])
        seqs = [p + c for p, c in zip(p_ids, comps)]
        starts = [len(p) for p in p_ids]
        losses = []
        if method == "reinforce":
            logp, mask = _token_logprobs(policy, seqs, starts)
            adv = torch.as_tensor(r - r.mean(), dtype=logp.dtype)
            losses.append(_step(opt, policy, _pg_loss((logp * mask).sum(1), adv)))
        elif method == "rft":
            keep = np.flatnonzero(r == 1)
            if keep.size:
                logp, mask = _token_logprobs(policy, [seqs[i] for i in keep], [starts[i] for i in keep])
                losses.append(_step(opt, policy, -(logp * mask).sum() / mask.sum()))
            else:
                losses.append(0.0)
        else:
            adv_np = grpo_advantages(r, group_size)
            with torch.no_grad():
                old, mask = _token_logprobs(policy, seqs, starts)
                ref = _token_logprobs(reference, seqs, starts)[0] if reference is not None else None
            adv = torch.as_tensor(adv_np, dtype=old.dtype)
            for _ in range(inner_steps):
                if not adv_np.any() and reference is None:  # every group constant: a zero gradient
                    losses.append(0.0)
                    continue
                logp, _ = _token_logprobs(policy, seqs, starts)
                losses.append(_step(opt, policy, _grpo_loss(logp, old, ref, mask, adv, clip=clip, kl=kl)))
        curve["loss"][t] = losses[0]
        if eval_problems is not None and ((t + 1) % eval_every == 0 or t + 1 == steps):
            checkpoint(t + 1)

    policy.eval()
    return RLResult(model=policy, method=method, step=np.arange(1, steps + 1), reward=curve["reward"],
                    loss=curve["loss"], n_correct=curve["n_correct"].astype(int), mean_tokens=curve["mean_tokens"],
                    eval_problems=tuple(eval_problems or ()), checkpoint_steps=np.array(ck_steps, dtype=int),
                    checkpoints=tuple(ck_texts), eval_reward=np.array(ck_reward, dtype=float), steps=steps,
                    group_size=group_size, batch_size=batch_size, max_new_tokens=max_new_tokens, lr=lr, kl=kl,
                    clip=clip)


def _step(opt, model, loss) -> float:
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    return float(loss.detach())
