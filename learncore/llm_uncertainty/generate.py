"""Greedy generation that records, in the same pass, what the single-pass uncertainty scores need:
the last-position hidden state of every layer and the top-k logits at each step, plus the
full-vocabulary entropy and the log-probability of each chosen token (:func:`greedy_generate`); and
the table of GLU and its baselines over many prompts (:func:`score_generations`)."""
from __future__ import annotations

import inspect
import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import pandas as pd
import torch
from statcore import Result, glu_score
from statcore.utils import check_positive_int, progress_bar

from ._checks import as_prompt_ids, check_causal_lm, check_renyi_order, resolve_eos, resolve_tokenizer

__all__ = ["greedy_generate", "score_generations", "GenerationTrace", "GenerationScores", "SCORE_COLUMNS"]

#: the score columns of :func:`score_generations` and their orientation: +1 when a higher value
#: means more confident (more likely correct), -1 when a higher value means more uncertain
SCORE_COLUMNS = {"glu": 1, "global_term": -1, "local_term": 1, "mean_entropy": -1, "max_prob": 1,
                 "loglik": 1, "perplexity": -1}


@dataclass(frozen=True, repr=False)
class GenerationScores(Result):
    """GLU and the baselines for one greedy answer per prompt (:func:`score_generations`).

    Attributes
    ----------
    table : pandas.DataFrame
        One row per prompt (the index of a Series of prompts): ``prompt``, ``response``,
        ``n_tokens`` and the score columns (``to_frame()`` returns it; :func:`evaluate_scores` takes
        the result or the table).
    k : int
        The top-k logits kept per token.
    alpha : float
        The Renyi order of GLU's global term.

    Examples
    --------
    >>> import pandas as pd
    >>> res = GenerationScores(pd.DataFrame({"prompt": ["1+1="], "response": ["2"], "n_tokens": [1],
    ...                                      "glu": [0.5]}), k=10, alpha=2.0)
    >>> res.to_frame()["glu"].tolist()
    [0.5]
    """

    table: pd.DataFrame
    k: int
    alpha: float

    def _repr_parts(self):
        return [("n_prompts", int(self.table.shape[0])), ("k", self.k), ("alpha", self.alpha)]

    def summary(self) -> str:
        cols = [c for c in SCORE_COLUMNS if c in self.table.columns]
        means = self.table[cols].mean().to_frame("mean").T if cols else pd.DataFrame()
        return (f"\n\tUncertainty scores of {self.table.shape[0]} greedy answers (GLU with k = {self.k}, "
                f"Renyi order {self.alpha:g})\n\nmean tokens per answer: {self.table['n_tokens'].mean():.4g}\n"
                + means.to_string(float_format=lambda v: f"{v:.4g}") + "\n")

    def to_frame(self) -> pd.DataFrame:
        """The table: one row per prompt."""
        return self.table


@dataclass(frozen=True, repr=False)
class GenerationTrace(Result):
    """One greedy generation with what was recorded at each of its T steps (:func:`greedy_generate`).

    Attributes
    ----------
    prompt_ids, token_ids : numpy.ndarray
        The prompt's token ids and the T generated ones (an end-of-sequence token, when generated,
        is the last).
    text : str or None
        The decoded answer (special tokens dropped), when a tokenizer was given.
    hidden_states : numpy.ndarray, shape (L, T, d)
        Per layer (every entry of the model's ``hidden_states``: the embedding output first), the
        hidden state at the last input position of each step: the position that produced token t.
    top_logits : numpy.ndarray, shape (T, k)
        The k largest logits of each step, in decreasing order.
    token_logprob : numpy.ndarray, shape (T,)
        log p(chosen token) under the full softmax (greedy: the log of the largest probability).
    token_entropy : numpy.ndarray, shape (T,)
        Entropy of the full next-token distribution, in nats.

    Examples
    --------
    >>> from learncore.llm_uncertainty import greedy_generate, load_arith_model
    >>> trace = greedy_generate(load_arith_model(), "12+7=", max_new_tokens=5)
    >>> trace.hidden_states.shape[0], trace.top_logits.shape[1]
    (5, 10)
    """

    text: Any
    n_tokens: int
    prompt_ids: np.ndarray
    token_ids: np.ndarray
    hidden_states: np.ndarray
    top_logits: np.ndarray
    token_logprob: np.ndarray
    token_entropy: np.ndarray

    def summary(self) -> str:
        return "\n".join([
            "", "\tGreedy generation trace", "",
            f"answer: {self.text!r}" if self.text is not None else f"tokens: {self.token_ids.tolist()}",
            f"{self.n_tokens} tokens, {self.hidden_states.shape[0]} hidden-state layers of width "
            f"{self.hidden_states.shape[2]}, top {self.top_logits.shape[1]} logits per step",
            f"mean log-probability {self.token_logprob.mean():.4f}, mean entropy {self.token_entropy.mean():.4f} nats",
            "",
        ])

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"token_id": self.token_ids, "logprob": self.token_logprob,
                             "entropy": self.token_entropy, "top_logit": self.top_logits[:, 0]})


def _model_device(model) -> torch.device:
    try:
        return next(model.parameters()).device
    except (StopIteration, AttributeError, TypeError):
        return torch.device("cpu")


def _cache_argument(model) -> str | None:
    """The keyword under which the model's forward takes its KV cache: ``cache`` (transformers >= 5),
    ``past_key_values`` (earlier versions), or None (no cache)."""
    try:
        params = inspect.signature(model.forward).parameters
    except (TypeError, ValueError):
        return None
    for name in ("cache", "past_key_values"):
        if name in params:
            return name
    return None


def _returned_cache(out):
    for name in ("cache", "past_key_values"):
        c = getattr(out, name, None)
        if c is not None:
            return c
    return None


@torch.no_grad()
def _trace(model, prompt_ids: list[int], max_new_tokens: int, k: int, eos_id: int | None):
    device = _model_device(model)
    ids = torch.tensor([prompt_ids], dtype=torch.long, device=device)
    cache_arg = _cache_argument(model)
    past = None
    hidden, tops, logp_chosen, ent, tokens = [], [], [], [], []
    for _ in range(max_new_tokens):
        # with a KV cache (Hugging Face models) only the new token is fed; models without one
        # (learncore's ArithTransformer) see the whole sequence again: the same last position
        if past is None:
            out = model(input_ids=ids, output_hidden_states=True, **({"use_cache": True} if cache_arg else {}))
        else:
            out = model(input_ids=ids[:, -1:], use_cache=True, output_hidden_states=True, **{cache_arg: past})
        past = _returned_cache(out) if cache_arg else None
        if getattr(out, "hidden_states", None) is None:
            raise TypeError("model returned no hidden_states with output_hidden_states=True; it needs the Hugging "
                            "Face causal-LM interface")
        logits = out.logits[0, -1].double()
        if k > logits.numel():
            raise ValueError(f"k={k} is larger than the model's vocabulary ({logits.numel()} logits); pass a smaller k")
        hidden.append(torch.stack([h[0, -1] for h in out.hidden_states]).double().cpu())
        logp = torch.log_softmax(logits, dim=-1)
        nxt = int(torch.argmax(logits))
        tops.append(torch.topk(logits, k).values.cpu())
        logp_chosen.append(float(logp[nxt]))
        ent.append(float(-(logp.exp() * logp).nan_to_num().sum()))  # 0 log 0 = 0
        tokens.append(nxt)
        ids = torch.cat([ids, torch.tensor([[nxt]], device=device)], dim=1)
        if eos_id is not None and nxt == eos_id:
            break
    return (np.array(tokens, dtype=np.int64), torch.stack(hidden, dim=1).numpy(), torch.stack(tops).numpy(),
            np.array(logp_chosen), np.array(ent))


class _EvalMode:
    """Run a module in eval mode (no dropout) and give it back in the mode it came in."""

    def __init__(self, model):
        self.model, self.was_training = model, bool(getattr(model, "training", False))

    def __enter__(self):
        if self.was_training:
            self.model.eval()

    def __exit__(self, *exc):
        if self.was_training:
            self.model.train()


def greedy_generate(model, prompt, *, tokenizer=None, max_new_tokens, k=10, eos_token_id=None):
    """Generate greedily from one prompt, recording per-layer hidden states and top-k logits.

    At each step the model gets the sequence so far (only the new token when it returns a KV
    cache), the next token is the argmax of the last position's logits, and the step records the
    last-position hidden state of every layer in ``output_hidden_states``, the k largest logits, the
    log-probability of the chosen token and the entropy of the full next-token distribution.
    Generation stops after the end-of-sequence token (which is kept, as Hugging Face's
    ``generate`` keeps it) or after ``max_new_tokens`` tokens. This is the single pass of the GLU
    paper's code (``model.generate(output_hidden_states=True, output_logits=True)`` with
    ``hidden_states[t][layer][0, -1]``), written as a loop so that any module with the causal-LM
    call ``model(input_ids=..., use_cache=True, output_hidden_states=True)``
    works, Hugging Face's and learncore's :class:`ArithTransformer` alike; a model whose forward
    takes a KV cache (``cache`` in transformers >= 5, ``past_key_values`` before) is fed one new
    token per step, any other the whole sequence (the hidden states at the last position are the same).

    Parameters
    ----------
    model : torch.nn.Module
        A causal language model with the Hugging Face interface (``.logits``, ``.hidden_states``
        and optionally a KV cache on its output). It is run in eval mode under
        ``torch.no_grad`` and given back in the mode it had.
    prompt : str or sequence of int
        The prompt text (needs a tokenizer) or its token ids.
    tokenizer : object, optional
        With ``encode(text)``, ``decode(ids, skip_special_tokens=True)`` and ``eos_token_id`` (a
        Hugging Face tokenizer or :class:`CharTokenizer`); default ``model.tokenizer`` if present.
    max_new_tokens : int
        Largest number of generated tokens.
    k : int, default 10
        Number of top logits kept per step.
    eos_token_id : int, optional
        The end-of-sequence token; default the tokenizer's, else ``model.config.eos_token_id``.

    Returns
    -------
    GenerationTrace
        The generated ids and text and the per-step records.

    See Also
    --------
    score_generations : GLU and its baselines over many prompts.

    References
    ----------
    Medina et al. (2026). Integrating local and global entropy for uncertainty quantification in
    LLMs (GLU). NeurIPS; code github.com/qcri/GLU (``generate_response.py``).

    Examples
    --------
    >>> from learncore.llm_uncertainty import greedy_generate, load_arith_model
    >>> trace = greedy_generate(load_arith_model(), "12+7=", max_new_tokens=5)
    >>> trace.text
    '19'
    """
    check_causal_lm(model)
    tokenizer = resolve_tokenizer(model, tokenizer)
    max_new_tokens = check_positive_int(max_new_tokens, "max_new_tokens")
    k = check_positive_int(k, "k", minimum=2)
    eos = resolve_eos(model, tokenizer, eos_token_id)
    ids = as_prompt_ids(prompt, tokenizer, "prompt")
    with _EvalMode(model):
        tokens, hidden, tops, logp, ent = _trace(model, ids, max_new_tokens, k, eos)
    text = tokenizer.decode(tokens.tolist(), skip_special_tokens=True) if tokenizer is not None else None
    return GenerationTrace(text=text, n_tokens=int(tokens.size), prompt_ids=np.array(ids, dtype=np.int64),
                           token_ids=tokens, hidden_states=hidden, top_logits=tops, token_logprob=logp,
                           token_entropy=ent)


def _row(trace: GenerationTrace, k: int, alpha: float) -> dict:
    g = glu_score(trace.hidden_states, trace.top_logits, k=k, order=alpha)
    loglik = float(trace.token_logprob.mean())
    return {"response": trace.text, "n_tokens": trace.n_tokens, "glu": g.glu, "global_term": g.global_term,
            "local_term": g.local_term, "mean_entropy": float(trace.token_entropy.mean()),
            "max_prob": float(np.exp(trace.token_logprob).mean()), "loglik": loglik,
            "perplexity": math.exp(-loglik)}


def score_generations(model, inputs, *, tokenizer=None, max_new_tokens, k=10, order=2, eos_token_id=None,
                      progress=None):
    """GLU and the usual single-pass baselines for one greedy answer per prompt.

    Each prompt is answered by :func:`greedy_generate` (one pass: hidden states and top-k logits
    recorded while generating), and scored by :func:`statcore.glu_score` on the recorded hidden
    states of every layer and the top-k logits (all that GLU's local term reads), and by baselines
    from the full next-token distributions.

    The columns (T generated tokens, p_t the next-token softmax; the sign in brackets):

    - ``glu``: :math:`(1 + \\tilde S)\\, U_{local}` (:func:`statcore.glu_score`) (+1)
    - ``global_term``: :math:`\\tilde S`, the normalised matrix Renyi entropy alone (-1)
    - ``local_term``: :math:`U_{local}`, the evidential token term alone (+1)
    - ``mean_entropy``: :math:`T^{-1} \\sum_t H(p_t)`, full vocabulary, nats (-1)
    - ``max_prob``: :math:`T^{-1} \\sum_t \\max_v p_t(v)` (greedy: chosen tokens) (+1)
    - ``loglik``: :math:`T^{-1} \\sum_t \\log p_t(y_t)`, length-normalised (+1)
    - ``perplexity``: :math:`\\exp(-\\text{loglik})` (-1)

    The sign (``SCORE_COLUMNS``) is +1 where a higher value means more confident; ``perplexity``
    is a monotone function of ``loglik`` and has the same AUROC.

    Parameters
    ----------
    model : torch.nn.Module
        A causal LM with the Hugging Face interface, or :class:`ArithTransformer`.
    inputs : sequence of str, sequence of sequences of int, or pandas.Series
        The prompts (text needs a tokenizer). A Series keeps its index in the table.
    tokenizer : object, optional
        As in :func:`greedy_generate`; default ``model.tokenizer`` if present.
    max_new_tokens : int
        Largest number of generated tokens per answer.
    k : int, default 10
        Top logits per token and most uncertain tokens averaged (GLU's k).
    order : float, default 2
        Order of the matrix Renyi entropy.
    eos_token_id : int, optional
        The end-of-sequence token (default: the tokenizer's, else ``model.config.eos_token_id``).
    progress : bool, optional
        Show a progress bar over prompts (default: off, and off when not on a terminal).

    Returns
    -------
    GenerationScores
        Its ``to_frame()`` (the ``table``) has one row per prompt: ``prompt``, ``response`` (None
        without a tokenizer), ``n_tokens`` and the score columns above.

    See Also
    --------
    evaluate_scores : AUROCs with DeLong intervals and paired tests against correctness.

    References
    ----------
    Medina et al. (2026). Integrating local and global entropy for uncertainty quantification in
    LLMs (GLU). NeurIPS; arXiv 2606.09875; code github.com/qcri/GLU.
    Malinin, A. and Gales, M. (2021). Uncertainty estimation in autoregressive structured
    prediction. ICLR (entropy and length-normalised likelihood baselines).

    Examples
    --------
    >>> from learncore.llm_uncertainty import addition_prompts, load_arith_model, score_generations
    >>> prompts, answers = addition_prompts(3, seed=0)
    >>> table = score_generations(load_arith_model(), prompts, max_new_tokens=5).to_frame()
    >>> list(table.columns)[:4]
    ['prompt', 'response', 'n_tokens', 'glu']
    """
    check_causal_lm(model)
    tokenizer = resolve_tokenizer(model, tokenizer)
    max_new_tokens = check_positive_int(max_new_tokens, "max_new_tokens")
    k = check_positive_int(k, "k", minimum=2)
    alpha = check_renyi_order(order, "order")
    eos = resolve_eos(model, tokenizer, eos_token_id)
    index = inputs.index if isinstance(inputs, pd.Series) else None
    seq = isinstance(inputs, (pd.Series, Sequence, np.ndarray)) and not isinstance(inputs, (str, bytes))
    prompts = list(inputs) if seq else None
    if not prompts:
        raise (TypeError if prompts is None else ValueError)(
            "inputs must be a non-empty sequence of prompts (strings or token-id sequences)")
    ids = [as_prompt_ids(p, tokenizer, f"inputs[{i}]") for i, p in enumerate(prompts)]
    rows = []
    with _EvalMode(model), progress_bar(progress, len(ids), desc="generating", unit="prompt") as bar:
        for i, p in enumerate(ids):
            tokens, hidden, tops, logp, ent = _trace(model, p, max_new_tokens, k, eos)
            text = tokenizer.decode(tokens.tolist(), skip_special_tokens=True) if tokenizer is not None else None
            trace = GenerationTrace(text=text, n_tokens=int(tokens.size), prompt_ids=np.array(p), token_ids=tokens,
                                    hidden_states=hidden, top_logits=tops, token_logprob=logp, token_entropy=ent)
            rows.append({"prompt": prompts[i] if isinstance(prompts[i], str) else list(map(int, prompts[i])),
                         **_row(trace, k, alpha)})
            bar.update(1)
    return GenerationScores(pd.DataFrame(rows, index=index), k=k, alpha=float(alpha))
