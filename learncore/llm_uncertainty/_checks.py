"""learncore.llm_uncertainty's input door: models, tokenizers, prompts and the score table.

The scalar checks are statcore's (``statcore.utils``); errors name the argument. Nothing here
modifies its input.
"""
from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np
import pandas as pd
import torch
from statcore.utils import as_float_array

__all__ = ["check_causal_lm", "resolve_tokenizer", "resolve_eos", "as_prompt_ids", "check_renyi_order",
           "as_correct", "as_score_table"]


def check_causal_lm(model: Any, name: str = "model") -> None:
    """A torch module that can be called as a causal LM (returns ``.logits``)."""
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"{name} must be a torch.nn.Module causal language model (a Hugging Face model or "
                        f"learncore's ArithTransformer), got {type(model).__name__}")


def resolve_tokenizer(model: Any, tokenizer: Any, name: str = "tokenizer") -> Any:
    """The tokenizer given, else ``model.tokenizer`` if the model carries one, else None."""
    if tokenizer is None:
        return getattr(model, "tokenizer", None)
    if not (callable(getattr(tokenizer, "encode", None)) and callable(getattr(tokenizer, "decode", None))):
        raise TypeError(f"{name} must have encode(text) and decode(ids) methods (a Hugging Face tokenizer), "
                        f"got {type(tokenizer).__name__}")
    return tokenizer


def resolve_eos(model: Any, tokenizer: Any, eos_token_id: Any, name: str = "eos_token_id") -> int | None:
    """The end-of-sequence id: the argument, else the tokenizer's, else ``model.config.eos_token_id``."""
    if eos_token_id is None:
        eos_token_id = getattr(tokenizer, "eos_token_id", None) if tokenizer is not None else None
    if eos_token_id is None:
        cfg = getattr(model, "config", None)
        eos_token_id = cfg.get("eos_token_id") if isinstance(cfg, dict) else getattr(cfg, "eos_token_id", None)
    if eos_token_id is None:
        return None
    if isinstance(eos_token_id, (list, tuple)) and len(eos_token_id) == 1:
        eos_token_id = eos_token_id[0]
    if isinstance(eos_token_id, bool) or not isinstance(eos_token_id, numbers.Integral) or eos_token_id < 0:
        raise TypeError(f"{name} must be a non-negative integer token id, got {eos_token_id!r}")
    return int(eos_token_id)


def as_prompt_ids(prompt: Any, tokenizer: Any, name: str = "prompt") -> list[int]:
    """A prompt as a non-empty list of token ids (text goes through the tokenizer)."""
    if isinstance(prompt, str):
        if tokenizer is None:
            raise TypeError(f"{name} is text but no tokenizer was given (and the model has none); pass "
                            "tokenizer= or token ids")
        try:
            ids = list(tokenizer.encode(prompt))
        except (ValueError, KeyError) as exc:
            raise ValueError(f"{name} could not be tokenized: {exc}") from None
    elif prompt is None or isinstance(prompt, bytes) or not hasattr(prompt, "__len__"):
        raise TypeError(f"{name} must be a string or a sequence of token ids, got {type(prompt).__name__}")
    else:
        arr = np.asarray(prompt.cpu() if isinstance(prompt, torch.Tensor) else prompt)
        if arr.dtype.kind not in "iu" or arr.ndim != 1:
            raise TypeError(f"{name} must be a 1-D sequence of integer token ids, got dtype {arr.dtype}, "
                            f"shape {arr.shape}")
        if arr.size and arr.min() < 0:
            raise ValueError(f"{name} contains a negative token id")
        ids = arr.tolist()
    if not ids:
        raise ValueError(f"{name} is empty (no tokens); a prompt needs at least one token")
    return [int(i) for i in ids]


def check_renyi_order(alpha: Any, name: str = "order") -> float:
    """A positive Renyi order (or math.inf)."""
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real):
        raise TypeError(f"{name} must be a positive number (the Renyi order), got {type(alpha).__name__}")
    if math.isnan(alpha) or alpha <= 0:
        raise ValueError(f"{name} must be a positive Renyi order, got {alpha!r}")
    return float(alpha)


def as_correct(correct: Any, n: int, name: str = "correct") -> np.ndarray:
    """Correctness labels as a 0/1 int vector of length n with both classes present."""
    if correct is None or isinstance(correct, (str, bytes)):
        raise TypeError(f"{name} must be a vector of booleans or 0/1 labels, got {type(correct).__name__}")
    arr = np.asarray(correct.to_numpy() if isinstance(correct, (pd.Series, pd.Index)) else correct)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-dimensional (one label per row of table), got shape {arr.shape}")
    if arr.dtype.kind == "b":
        arr = arr.astype(np.int64)
    elif arr.dtype.kind in "iuf":
        if arr.dtype.kind == "f" and np.isnan(arr).any():
            raise ValueError(f"{name} contains NaN; every answer needs a correctness label")
        if not np.isin(arr, (0, 1)).all():
            raise ValueError(f"{name} must hold 0/1 (or booleans); found {arr[~np.isin(arr, (0, 1))][0].item()!r}")
        arr = arr.astype(np.int64)
    else:
        raise TypeError(f"{name} must be booleans or 0/1 labels, got dtype {arr.dtype}")
    if arr.size != n:
        raise ValueError(f"{name} has {arr.size} labels but table has {n} rows")
    if arr.min() == arr.max():
        raise ValueError(f"{name} has one class only (all {'correct' if arr[0] else 'wrong'}); the AUROC needs "
                         "both correct and wrong answers")
    return arr


def as_score_table(table: Any, scores: Any, known: dict, name: str = "table") -> tuple[pd.DataFrame, dict]:
    """The score columns of the table (finite floats) and each one's orientation (+1: higher is
    more confident)."""
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"{name} must be the result of score_generations or a pandas DataFrame, got "
                        f"{type(table).__name__}")
    if table.shape[0] == 0:
        raise ValueError(f"{name} has no rows")
    if scores is None:
        scores = {c: s for c, s in known.items() if c in table.columns}
        if not scores:
            raise ValueError(f"{name} has none of the score columns {list(known)}; pass scores=")
    elif isinstance(scores, dict):
        scores = dict(scores)
    elif isinstance(scores, (list, tuple)):
        unknown = [c for c in scores if c not in known]
        if unknown:
            raise ValueError(f"scores: the orientation of {unknown} is unknown; pass a dict column -> +1 (higher "
                             "is more confident) or -1")
        scores = {c: known[c] for c in scores}
    else:
        raise TypeError(f"scores must be None, a list of columns or a dict column -> +1/-1, got {type(scores).__name__}")
    for c, s in scores.items():
        if c not in table.columns:
            raise ValueError(f"scores: column {c!r} is not in {name} (columns: {list(table.columns)})")
        if s not in (1, -1):
            raise ValueError(f"scores: the orientation of {c!r} must be +1 or -1, got {s!r}")
    cols = {}
    for c in scores:
        # statcore's one input door: numbers only (text, even "0.4", is refused naming the column)
        v = as_float_array(table[c], f"{name}[{c!r}]", allow_nan=True, allow_inf=True)
        if not np.isfinite(v).all():
            raise ValueError(f"{name}: column {c!r} contains NaN or infinite values")
        cols[c] = v
    return pd.DataFrame(cols, index=table.index), scores
