"""A small causal transformer over characters, and the addition task it is trained on.

:class:`ArithTransformer` is a pre-LN GPT-style decoder (learned token and position embeddings,
``n_layer`` blocks of causal multi-head self-attention and a GELU MLP, a final layer norm, an
output projection tied to nothing). Its ``forward`` follows the Hugging Face causal-LM interface
that :func:`learncore.llm_uncertainty.score_generations` relies on: ``model(input_ids,
output_hidden_states=True)`` returns an object with ``.logits`` of shape (batch, length, vocab) and
``.hidden_states``, a tuple of ``n_layer + 1`` tensors of shape (batch, length, d_model) laid out
as GPT-2's: the embedding output, the outputs of blocks 1 .. n_layer - 1, and the output of the
last block after the final layer norm.

:func:`load_arith_model` returns the copy shipped with the package (trained by
``python -m learncore.llm_uncertainty.train_arith``), and :func:`addition_prompts` draws the seeded
prompts and true answers of its task ("317+45=" -> "362").
"""
from __future__ import annotations

import math
import operator
from dataclasses import dataclass
from importlib import resources
from typing import Sequence

import numpy as np
import torch
from statcore.utils import check_positive_int, check_seed
from torch import nn
from torch.nn import functional as F

__all__ = ["ArithTransformer", "CharTokenizer", "load_arith_model", "addition_prompts"]

#: the shipped state dict (package data)
WEIGHTS_FILE = "arith_transformer.pt"


class CharTokenizer:
    """Character-level tokenizer with an end-of-sequence token, with the slice of the Hugging Face
    tokenizer interface that :func:`score_generations` uses (``encode``, ``decode``,
    ``eos_token_id``).

    Parameters
    ----------
    chars : str
        The alphabet; token ``i`` is ``chars[i]`` and the end-of-sequence token is ``len(chars)``.

    Examples
    --------
    >>> from learncore.llm_uncertainty import CharTokenizer
    >>> tok = CharTokenizer()
    >>> tok.encode("12+3="), tok.eos_token_id
    ([1, 2, 10, 3, 11], 12)
    >>> tok.decode([4, 2, 12])
    '42'
    """

    def __init__(self, chars: str = "0123456789+="):
        if len(set(chars)) != len(chars) or not chars:
            raise ValueError("chars must be a non-empty string of distinct characters")
        self.chars = chars
        self._index = {c: i for i, c in enumerate(chars)}
        self.eos_token_id = len(chars)
        self.vocab_size = len(chars) + 1

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text`` (no end-of-sequence token is appended)."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a string, got {type(text).__name__}")
        bad = [c for c in text if c not in self._index]
        if bad:
            raise ValueError(f"text contains characters outside the alphabet {self.chars!r}: {bad[0]!r}")
        return [self._index[c] for c in text]

    def decode(self, ids: Sequence[int], *, skip_special_tokens: bool = True) -> str:
        """The text of ``ids``; the end-of-sequence token is dropped, or written as "<eos>"."""
        out = []
        for pos, i in enumerate(ids):
            try:
                if isinstance(i, (bool, np.bool_)):
                    raise TypeError
                i = operator.index(i)  # ints, numpy and torch integer scalars; not floats
            except TypeError:
                raise TypeError(f"ids must be integer token ids; position {pos} holds {i!r}") from None
            if not 0 <= i <= self.eos_token_id:  # a negative id would index from the end of the alphabet
                raise ValueError(f"ids holds the token id {i} at position {pos}, outside this tokenizer's "
                                 f"vocabulary 0..{self.eos_token_id} ({self.vocab_size} tokens)")
            if i == self.eos_token_id:
                if not skip_special_tokens:
                    out.append("<eos>")
            else:
                out.append(self.chars[i])
        return "".join(out)

    def __repr__(self) -> str:
        return f"CharTokenizer(chars={self.chars!r})"


@dataclass
class CausalLMOutput:
    """What :meth:`ArithTransformer.forward` returns (the fields of Hugging Face's
    ``CausalLMOutputWithPast`` that are used here)."""

    logits: torch.Tensor
    hidden_states: tuple | None = None
    past_key_values: None = None


class _Block(nn.Module):
    def __init__(self, d_model: int, n_head: int):
        super().__init__()
        self.n_head = n_head
        # per-head query/key/value width and the attention logits' scale (None: 1/sqrt(d_head));
        # learncore.slim.slim_width narrows d_head and sets the scale it documents
        self.d_head = d_model // n_head
        self.attn_scale: float | None = None
        self.ln1 = nn.LayerNorm(d_model)
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        self.ln2 = nn.LayerNorm(d_model)
        self.fc = nn.Linear(d_model, 4 * d_model)
        self.out = nn.Linear(4 * d_model, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, L, _ = x.shape
        width = self.n_head * self.d_head
        q, k, v = self.qkv(self.ln1(x)).split(width, dim=-1)
        shape = (B, L, self.n_head, self.d_head)
        q, k, v = (t.view(shape).transpose(1, 2) for t in (q, k, v))
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=self.attn_scale)
        x = x + self.proj(a.transpose(1, 2).reshape(B, L, width))
        return x + self.out(F.gelu(self.fc(self.ln2(x))))


class ArithTransformer(nn.Module):
    """A pre-LN causal transformer with learned positions (GPT-2's layout, a few hundred thousand
    parameters at the defaults).

    Parameters
    ----------
    vocab_size : int
        Number of tokens.
    d_model : int
        Width of the residual stream.
    n_layer : int
        Number of transformer blocks.
    n_head : int
        Attention heads per block (must divide ``d_model``).
    max_len : int
        Longest sequence (the number of learned positions).
    tokenizer : CharTokenizer, optional
        Kept as ``model.tokenizer`` so that :func:`score_generations` can take text prompts.

    Examples
    --------
    >>> import torch
    >>> from learncore.llm_uncertainty import ArithTransformer
    >>> model = ArithTransformer(vocab_size=13, d_model=32, n_layer=2, n_head=2, max_len=16)
    >>> out = model(torch.tensor([[1, 2, 10, 3, 11]]), output_hidden_states=True)
    >>> tuple(out.logits.shape), len(out.hidden_states)
    ((1, 5, 13), 3)
    """

    def __init__(self, *, vocab_size: int = 13, d_model: int = 64, n_layer: int = 4, n_head: int = 4,
                 max_len: int = 16, tokenizer: CharTokenizer | None = None):
        super().__init__()
        vocab_size = check_positive_int(vocab_size, "vocab_size")
        d_model = check_positive_int(d_model, "d_model")
        n_layer = check_positive_int(n_layer, "n_layer")
        n_head = check_positive_int(n_head, "n_head")
        max_len = check_positive_int(max_len, "max_len")
        if d_model % n_head:
            raise ValueError(f"n_head={n_head} must divide d_model={d_model}")
        self.config = {"vocab_size": vocab_size, "d_model": d_model, "n_layer": n_layer, "n_head": n_head,
                       "max_len": max_len}
        self.tokenizer = tokenizer
        self.tok = nn.Embedding(vocab_size, d_model)
        self.pos = nn.Embedding(max_len, d_model)
        self.blocks = nn.ModuleList(_Block(d_model, n_head) for _ in range(n_layer))
        self.ln_f = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size, bias=False)
        self.apply(self._init)
        for b in self.blocks:  # GPT-2's scaled init of the residual projections
            for lin in (b.proj, b.out):
                nn.init.normal_(lin.weight, std=0.02 / math.sqrt(2 * n_layer))

    @staticmethod
    def _init(m: nn.Module) -> None:
        if isinstance(m, (nn.Linear, nn.Embedding)):
            nn.init.normal_(m.weight, std=0.02)
        if isinstance(m, nn.Linear) and m.bias is not None:
            nn.init.zeros_(m.bias)

    def forward(self, input_ids: torch.Tensor, output_hidden_states: bool = False, **kwargs) -> CausalLMOutput:
        """Logits (and, with ``output_hidden_states=True``, the per-layer hidden states) of a batch
        of token sequences; extra Hugging Face keywords (``use_cache``, ``return_dict``) are ignored."""
        if not isinstance(input_ids, torch.Tensor) or input_ids.dtype not in (torch.int64, torch.int32, torch.int16,
                                                                               torch.int8, torch.uint8):
            raise TypeError(f"input_ids must be a tensor of integer token ids, got "
                            f"{getattr(input_ids, 'dtype', type(input_ids).__name__)}")
        L = input_ids.shape[-1]
        if L > self.config["max_len"]:
            raise ValueError(f"sequence of length {L} is longer than max_len={self.config['max_len']}")
        vocab = self.config["vocab_size"]
        if input_ids.numel() and (int(input_ids.min()) < 0 or int(input_ids.max()) >= vocab):
            bad = input_ids[(input_ids < 0) | (input_ids >= vocab)][0]
            raise ValueError(f"input_ids holds the token id {int(bad)}, outside the vocabulary 0..{vocab - 1}")
        x = self.tok(input_ids) + self.pos(torch.arange(L, device=input_ids.device))
        hidden = [x]
        for b in self.blocks:
            x = b(x)
            hidden.append(x)
        x = self.ln_f(x)
        hidden[-1] = x
        return CausalLMOutput(logits=self.head(x), hidden_states=tuple(hidden) if output_hidden_states else None)

    def n_params(self) -> int:
        """Number of trainable parameters."""
        return int(sum(p.numel() for p in self.parameters() if p.requires_grad))


def load_arith_model() -> ArithTransformer:
    """The addition transformer shipped with learncore, in eval mode.

    Trained by ``python -m learncore.llm_uncertainty.train_arith`` (seeded; a few minutes on one
    CPU thread) on sums of two numbers of 1 to 3 digits each; greedy decoding gets a sizeable share
    of held-out sums wrong, which is what an uncertainty score has to detect.

    Returns
    -------
    ArithTransformer
        The model, with its :class:`CharTokenizer` as ``model.tokenizer``.

    References
    ----------
    Radford, A. et al. (2019). Language models are unsupervised multitask learners (GPT-2: the
    pre-LN layout and the hidden-state convention followed here).

    Examples
    --------
    >>> from learncore.llm_uncertainty import load_arith_model
    >>> model = load_arith_model()
    >>> model.tokenizer.decode(model.tokenizer.encode("12+7="))
    '12+7='
    """
    ref = resources.files("learncore.llm_uncertainty").joinpath("data", WEIGHTS_FILE)
    with resources.as_file(ref) as path:
        blob = torch.load(path, map_location="cpu", weights_only=True)
    tok = CharTokenizer(blob["chars"])
    model = ArithTransformer(**blob["config"], tokenizer=tok)
    model.load_state_dict(blob["state_dict"])
    return model.eval()


def addition_prompts(n: int, *, max_digits: int = 3, seed=None) -> tuple[list[str], list[str]]:
    """Seeded addition prompts ("317+45=") and their true answers ("362").

    Each operand first draws its number of digits uniformly from 1 .. ``max_digits``, then its value
    uniformly among the numbers with that many digits (0 .. 9 for one digit).

    Parameters
    ----------
    n : int
        Number of prompts.
    max_digits : int, default 3
        Largest number of digits of an operand (the shipped model saw 1 to 3).
    seed : None, int or numpy.random.Generator
        Randomness.

    Returns
    -------
    prompts, answers : list of str
        The prompts and the correct sums.

    References
    ----------
    Nogueira, R., Jiang, Z. and Lin, J. (2021). Investigating the limitations of transformers with
    simple arithmetic tasks. arXiv 2102.13019 (multi-digit addition as a checkable task).

    Examples
    --------
    >>> from learncore.llm_uncertainty import addition_prompts
    >>> prompts, answers = addition_prompts(2, seed=1)
    >>> [eval(p[:-1]) == int(a) for p, a in zip(prompts, answers)]
    [True, True]
    """
    n = check_positive_int(n, "n")
    max_digits = check_positive_int(max_digits, "max_digits")
    rng = check_seed(seed)
    a, b = (_draw_operands(rng, n, max_digits) for _ in range(2))
    return [f"{x}+{y}=" for x, y in zip(a, b)], [str(x + y) for x, y in zip(a, b)]


def _draw_operands(rng: np.random.Generator, n: int, max_digits: int) -> np.ndarray:
    digits = rng.integers(1, max_digits + 1, size=n)
    low = np.where(digits == 1, 0, 10 ** (digits - 1))
    return rng.integers(low, 10 ** digits)
