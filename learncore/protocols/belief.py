"""Numeric beliefs of a causal language model before and after a source's claim (our operationalisation of
the elicitation step of Learn2Discern's information-discernment protocol).

A belief is read from one forward pass: the next-token distribution after the prompt, restricted to the
tokens of the candidate numeric answers and renormalised; the belief is its expected value (and its
standard deviation the belief's spread). The prior is read after the question alone, the posterior after
the source's claim followed by the question. The trials then go to :func:`statcore.weight_of_advice` and
:func:`statcore.discernment`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
import pandas as pd
import torch
from statcore import Result, weight_of_advice
from statcore.utils import check_positive_int

__all__ = ["belief_trials", "BeliefTrials"]


@dataclass(frozen=True, repr=False)
class BeliefTrials(Result):
    """Priors and posteriors elicited from a causal LM, one row per (question, source) trial
    (:func:`belief_trials`).

    Attributes
    ----------
    trials : pandas.DataFrame
        The columns of ``sources`` (``question``, ``claim`` and any others, e.g. reliability and popularity)
        and ``prior``, ``posterior`` (expected values over the numeric answers), ``prior_std_dev``,
        ``posterior_std_dev`` (the spread of the restricted distribution) and ``prior_mass``,
        ``posterior_mass`` (the next-token probability on the numeric answers before renormalising).
    values : tuple of float
        The candidate numeric answers.
    answer_tokens : tuple of int
        Their token ids.
    template, advice : str
        The prior's and the posterior's prompt templates.

    Examples
    --------
    >>> import torch
    >>> from learncore.llm_uncertainty import ArithTransformer, CharTokenizer
    >>> from learncore.protocols import belief_trials
    >>> torch.manual_seed(0) and None
    >>> model = ArithTransformer(d_model=16, n_layer=1, n_head=2)      # untrained: beliefs near the middle
    >>> res = belief_trials(model, ["3+4="], {"question": [0, 0], "claim": [7, 2]}, tokenizer=CharTokenizer(),
    ...                     advice="{claim}={question}")
    >>> res.trials.shape[0], bool(res.trials["prior"].between(0, 9).all())
    (2, True)
    """

    trials: Any
    values: tuple
    answer_tokens: tuple
    template: str = "{question}"
    advice: str = "{claim} {question}"

    def _repr_parts(self):
        t = self.trials
        return [("n_trials", len(t)), ("n_questions", int(t["question"].nunique())),
                ("mean_prior_mass", float(t["prior_mass"].mean()))]

    def summary(self) -> str:
        t = self.trials
        head = (f"Beliefs elicited over {len(self.values)} numeric answers: {len(t)} trials, "
                f"{t['question'].nunique()} questions")
        cols = ["question", "claim", "prior", "posterior", "prior_mass", "posterior_mass"]
        return head + "\n" + t[cols].to_string(max_rows=20)

    def to_frame(self) -> pd.DataFrame:
        return self.trials

    def woa(self, *, clip: bool = False) -> pd.Series:
        """The weight of advice of every trial (:func:`statcore.weight_of_advice`; a trial whose claim
        equals its prior is refused there)."""
        t = self.trials
        return weight_of_advice(t["prior"], t["posterior"], t["claim"].astype(float), clip=clip).rename("woa")


# ----------------------------------------------------------------------------------------------
# input checks (errors name the argument)
# ----------------------------------------------------------------------------------------------

def _check_model(model: Any) -> None:
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"model must be a torch.nn.Module causal language model (a Hugging Face model or "
                        f"learncore's ArithTransformer), got {type(model).__name__}")


def _tokenizer(model: Any, tokenizer: Any) -> Any:
    tok = getattr(model, "tokenizer", None) if tokenizer is None else tokenizer
    if tok is None:
        raise TypeError("tokenizer is required (the model carries none): pass an object with encode(text)")
    if not callable(getattr(tok, "encode", None)):
        raise TypeError(f"tokenizer must have an encode(text) method (a Hugging Face tokenizer), got "
                        f"{type(tok).__name__}")
    return tok


def _encode(tok: Any, text: str, name: str) -> list[int]:
    try:
        try:
            ids = tok.encode(text, add_special_tokens=False)
        except TypeError:
            ids = tok.encode(text)
    except (ValueError, KeyError) as exc:
        raise ValueError(f"{name}: the tokenizer cannot encode {text!r} ({exc})") from None
    return [int(i) for i in ids]


def _questions(questions: Any) -> tuple[list[str], list]:
    if isinstance(questions, (str, bytes)) or questions is None or not hasattr(questions, "__len__"):
        raise TypeError(f"questions must be a sequence of prompts (text), got {type(questions).__name__}")
    labels = list(questions.index) if isinstance(questions, pd.Series) else list(range(len(questions)))
    texts = list(questions.to_numpy() if isinstance(questions, pd.Series) else questions)
    if not texts:
        raise ValueError("questions is empty; pass at least one prompt")
    for i, t in enumerate(texts):
        if not isinstance(t, str) or not t:
            raise TypeError(f"questions must hold non-empty text prompts; position {i} holds {t!r}")
    return texts, labels


def _sources(sources: Any, labels: list) -> pd.DataFrame:
    if isinstance(sources, pd.DataFrame):
        frame = sources.reset_index(drop=True).copy()
    elif isinstance(sources, Mapping):
        try:
            frame = pd.DataFrame({k: list(v) if not np.isscalar(v) else v for k, v in sources.items()})
        except (ValueError, TypeError) as exc:
            raise ValueError(f"sources must be a table of trials (columns of one length): {exc}") from None
    else:
        raise TypeError(f"sources must be a pandas DataFrame or a mapping of columns (question, claim, ...), got "
                        f"{type(sources).__name__}")
    for col in ("question", "claim"):
        if col not in frame.columns:
            raise ValueError(f"sources must have a '{col}' column (one row per trial)")
    if len(frame) == 0:
        raise ValueError("sources is empty; pass at least one trial")
    pos = {lab: i for i, lab in enumerate(labels)}
    qs = frame["question"].tolist()
    bad = [v for v in qs if isinstance(v, (bool, np.bool_)) or v not in pos]
    if bad:
        raise ValueError(f"sources' question column holds {bad[0]!r}, not a label of questions "
                         f"(positions 0..{len(labels) - 1}, or the index of a Series of questions)")
    claims = frame["claim"].to_numpy()
    if claims.dtype.kind not in "iuf" or any(isinstance(c, (bool, np.bool_)) for c in claims):
        raise TypeError("sources' claim column must hold numbers (the value each source claims)")
    if not np.all(np.isfinite(claims.astype(float))):
        raise ValueError("sources' claim column holds a NaN or infinite claim")
    frame["_q"] = [pos[v] for v in qs]
    return frame


def _values(values: Any) -> np.ndarray:
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
        raise TypeError(f"values must be a sequence of numbers (the candidate answers), got {type(values).__name__}")
    arr = np.asarray(values)
    if arr.ndim != 1 or arr.size < 2:
        raise ValueError(f"values must hold at least 2 candidate answers, got shape {arr.shape}")
    if arr.dtype.kind not in "iuf":
        raise TypeError("values must hold numbers (the candidate answers)")
    arr = arr.astype(float)
    if not np.all(np.isfinite(arr)):
        raise ValueError("values must be finite numbers")
    if np.unique(arr).size != arr.size:
        raise ValueError("values holds a repeated answer; pass distinct candidate answers")
    return arr


def _format(template: Any, name: str, **fields: Any) -> str:
    if not isinstance(template, str):
        raise TypeError(f"{name} must be a format string, got {type(template).__name__}")
    try:
        return template.format(**fields)
    except (KeyError, IndexError, ValueError) as exc:
        raise ValueError(f"{name}: cannot fill {template!r} ({type(exc).__name__}: {exc}); its fields must be "
                         f"among {sorted(fields)}") from None


def _number(v: Any) -> Any:
    """A whole number as an int (so that 7.0 is written "7"), any other as it is."""
    f = float(v)
    return int(f) if f.is_integer() else f


# ----------------------------------------------------------------------------------------------
# the elicitation
# ----------------------------------------------------------------------------------------------

@torch.no_grad()
def _beliefs(model: torch.nn.Module, prompts: list[list[int]], answer_ids: np.ndarray, values: np.ndarray,
             batch_size: int) -> np.ndarray:
    """(expected value, sd, mass) of the numeric answers after every prompt; prompts of one length are
    run together (no padding, so no attention mask or position shift is needed)."""
    out = np.empty((len(prompts), 3))
    device = next((p.device for p in model.parameters()), torch.device("cpu"))
    by_len: dict[int, list[int]] = {}
    for i, p in enumerate(prompts):
        by_len.setdefault(len(p), []).append(i)
    idx_t = torch.as_tensor(answer_ids, device=device)
    v = torch.as_tensor(values, dtype=torch.float64)
    for _, members in sorted(by_len.items()):
        for s in range(0, len(members), batch_size):
            part = members[s:s + batch_size]
            ids = torch.tensor([prompts[i] for i in part], dtype=torch.long, device=device)
            logits = model(ids).logits[:, -1, :].to(torch.float64).cpu()
            if not torch.all(torch.isfinite(logits)):
                raise ValueError("model returned non-finite logits")
            logp = torch.log_softmax(logits, dim=-1)
            sub = logp[:, idx_t.cpu()]
            mass = torch.exp(torch.logsumexp(sub, dim=-1))
            p = torch.softmax(sub, dim=-1)
            mean = p @ v
            sd = torch.sqrt(torch.clamp(p @ (v * v) - mean * mean, min=0.0))
            out[part] = torch.stack([mean, sd, mass], dim=1).numpy()
    return out


def belief_trials(model, questions, sources, *, tokenizer=None, values=tuple(range(10)), answer_format="{}",
                  template="{question}", advice="{claim} {question}", batch_size=64):
    """Numeric priors and posteriors of a causal LM, before and after each source's claim.

    For every question the prior is read after ``template`` (the question alone); for every trial (a row
    of ``sources``) the posterior is read after ``advice`` (the claim, then the question). A belief is the
    expected value of the next-token distribution restricted to the tokens of the candidate answers
    ``values`` (each written by ``answer_format``, which must be one token) and renormalised: our
    operationalisation of numeric belief elicitation, read from the logits, never sampled.

    Parameters
    ----------
    model : torch.nn.Module
        A causal LM with the Hugging Face interface (``model(input_ids).logits``), e.g. a
        ``transformers.GPT2LMHeadModel`` or learncore's :class:`~learncore.llm_uncertainty.ArithTransformer`.
    questions : sequence of str or pandas.Series
        The prompts, each ending where the numeric answer begins ("3+4=", "Q: ... A:").
    sources : pandas.DataFrame or mapping of columns
        One row per trial: ``question`` (a position in ``questions``, or a label of its index when it is a
        Series), ``claim`` (the number the source claims), and any other columns (the source's name,
        reliability, popularity), kept in the result and available to ``advice`` as fields.
    tokenizer : object, optional
        With ``encode(text)`` (a Hugging Face tokenizer, or learncore's ``CharTokenizer``); default
        ``model.tokenizer``.
    values : sequence of numbers
        The candidate numeric answers (default 0 .. 9).
    answer_format : str
        How a value is written as an answer token: "{}" (a whole number is written without ".0"); " {}" for
        GPT-2's space-prefixed tokens; or with the named field ``{value}``.
    template : str
        The prior's prompt, with the field ``{question}``.
    advice : str
        The posterior's prompt, with ``{claim}``, ``{question}`` and any column of ``sources`` as fields.
    batch_size : int
        Prompts of one length run together, at most this many at a time.

    Returns
    -------
    BeliefTrials
        ``trials`` (the sources' columns with ``prior``, ``posterior``, their spreads and masses); its
        ``woa()`` gives the weights of advice.

    References
    ----------
    Learn2Discern's information-discernment protocol (as described in this project's issue 33; the paper
    could not be consulted here): beliefs before and after a source's claim, from the model's own
    probabilities. Yaniv, I. (2004). Receiving other people's advice. OBHDP 93, 1-13.

    Examples
    --------
    >>> from learncore.llm_uncertainty import load_arith_model
    >>> from learncore.protocols import belief_trials
    >>> model = load_arith_model()
    >>> res = belief_trials(model, ["3+4=", "2+2="], {"question": [0, 1], "claim": [9, 1]}, advice="0+{claim}={claim}")
    >>> res.trials["prior"].round(1).tolist()
    [7.0, 4.0]
    """
    _check_model(model)
    tok = _tokenizer(model, tokenizer)
    texts, labels = _questions(questions)
    frame = _sources(sources, labels)
    vals = _values(values)
    batch_size = check_positive_int(batch_size, "batch_size")
    answer_ids = []
    for v in vals:
        text = _format(answer_format, "answer_format", value=_number(v)) if "{value" in str(answer_format) \
            else _format(str(answer_format).replace("{}", "{value}"), "answer_format", value=_number(v))
        ids = _encode(tok, text, "values")
        if len(ids) != 1:
            raise ValueError(f"values: the answer {text!r} is {len(ids)} tokens; each candidate answer must be "
                             "one token (choose values or answer_format accordingly)")
        answer_ids.append(ids[0])
    if len(set(answer_ids)) != len(answer_ids):
        raise ValueError("values: two candidate answers share one token")
    vocab = getattr(getattr(model, "config", None), "vocab_size", None)
    if vocab is None and isinstance(getattr(model, "config", None), dict):
        vocab = model.config.get("vocab_size")
    if vocab is not None and max(answer_ids) >= int(vocab):
        raise ValueError(f"values: answer token {max(answer_ids)} is outside the model's vocabulary of {vocab}")
    prior_prompts = [_encode(tok, _format(template, "template", question=q), "questions") for q in texts]
    records = frame.drop(columns="_q").to_dict("records")
    post_prompts = []
    for r, qi in zip(records, frame["_q"]):
        fields = {str(k): v for k, v in r.items()}
        fields["question"] = texts[qi]
        fields["claim"] = _number(r["claim"])
        post_prompts.append(_encode(tok, _format(advice, "advice", **fields), "advice"))
    for name, group in (("questions", prior_prompts), ("advice", post_prompts)):
        if any(len(p) == 0 for p in group):
            raise ValueError(f"{name}: a prompt encodes to no tokens")
    was_training = model.training
    model.eval()
    try:
        pri = _beliefs(model, prior_prompts, np.asarray(answer_ids), vals, batch_size)
        post = _beliefs(model, post_prompts, np.asarray(answer_ids), vals, batch_size)
    finally:
        model.train(was_training)
    trials = frame.drop(columns="_q")
    q = frame["_q"].to_numpy()
    trials["prior"], trials["posterior"] = pri[q, 0], post[:, 0]
    trials["prior_std_dev"], trials["posterior_std_dev"] = pri[q, 1], post[:, 1]
    trials["prior_mass"], trials["posterior_mass"] = pri[q, 2], post[:, 2]
    return BeliefTrials(trials, tuple(float(v) for v in vals), tuple(int(i) for i in answer_ids), template, advice)
