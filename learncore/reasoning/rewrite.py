"""The rewrite environment: words over a finite monoid, primitive steps, traces and their audit.

A word is a string of the monoid's symbols. The primitive step rewrites one adjacent pair ``xy`` into
its product ``x*y``; every step shortens the word by one symbol, so the system terminates, and by
associativity every reduction order ends in the same single symbol, the product of the word (the
system is confluent: the answer is unique). A trace is ``w0|w1|...|wn=x``; its reward is 1 when ``x``
is the product of ``w0``.

A compound step ``u -> v`` is valid when ``u`` splits into ``len(v)`` contiguous non-empty segments
whose products are ``v``'s symbols: exactly the words that ``len(u) - len(v)`` primitive steps reach
(each symbol of the result is the product of the block of ``u`` merged into it, in any order, by
associativity). :func:`audit_step` decides this by a dynamic programme over segmentations and labels
the step by the shape of its segmentation (atomic, sequential, parallel, mixed; no-op, invalid).

numpy only: importing this module does not import torch.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import pandas as pd

from statcore import Result
from statcore.utils import check_choice, check_positive_int, check_seed, public_function

__all__ = ["Monoid", "primitive_step", "primitive_chain", "format_trace", "parse_trace", "reward",
           "audit_step", "audit_trace", "StepAudit", "TraceAudit", "RewriteTokenizer", "make_problems",
           "make_corpus", "trace_tokens", "full_chain_tokens"]

_REF = ("Baader, F. and Nipkow, T. (1998). *Term Rewriting and All That*. Cambridge University Press "
        "(termination, confluence, Newman's lemma).")

#: the two separators of a trace: "|" between words, "=" before the answer
STEP_SEP, ANSWER_SEP = "|", "="
_RESERVED = (STEP_SEP, ANSWER_SEP)

#: the labels of a compound step, in the order of the documentation
LABELS = ("no-op", "atomic", "sequential", "parallel", "mixed", "invalid")


# ----------------------------------------------------------------------------------------------
# the monoid
# ----------------------------------------------------------------------------------------------

def _as_table(table: Any) -> np.ndarray:
    try:
        arr = np.asarray(table)
    except Exception as exc:  # ragged nested lists and the like
        raise TypeError(f"table must be an (m, m) integer array-like, got {type(table).__name__}: {exc}") from None
    if arr.dtype == object or arr.dtype.kind in "USb" or arr.dtype.kind not in "iuf":
        raise TypeError(f"table must be an (m, m) integer array-like, got dtype {arr.dtype}")
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or arr.shape[0] == 0:
        raise ValueError(f"table must be a non-empty square (m, m) array, got shape {arr.shape}")
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
            raise ValueError("table must hold integer indices (a NaN, an infinity or a fraction found)")
        arr = arr.astype(np.int64)
    m = arr.shape[0]
    if arr.min() < 0 or arr.max() >= m:
        raise ValueError(f"table entries must be indices in 0..{m - 1}, got values in {arr.min()}..{arr.max()}")
    arr = np.array(arr, dtype=np.int64, copy=True)
    # associativity: (i*j)*k == i*(j*k) for all i, j, k
    left = arr[arr, :]                      # left[i, j, k] = table[table[i, j], k]
    right = arr[:, arr]                     # right[i, j, k] = table[i, table[j, k]]
    bad = np.argwhere(left != right)
    if bad.size:
        i, j, k = (int(t) for t in bad[0])
        raise ValueError(f"table is not associative: ({i}*{j})*{k} = {left[i, j, k]} but {i}*({j}*{k}) = "
                         f"{right[i, j, k]}; the product of a word (the answer) would depend on the order of "
                         "the steps")
    arr.setflags(write=False)
    return arr


class Monoid:
    """A finite monoid (or semigroup) given by its multiplication table, with one symbol per element.

    Parameters
    ----------
    table : (m, m) array-like of int
        ``table[i, j]`` is the index of ``s_i * s_j``. It must be associative (checked on all m**3
        triples): otherwise the product of a word, the answer of the environment, would depend on
        the order of the steps. An identity element is not needed by anything here and not required.
    symbols : str, optional
        m distinct single characters naming the elements (not ``"|"`` or ``"="``, the separators of a
        trace, nor whitespace). Default ``"0123456789"[:m]`` for m <= 10.

    Attributes
    ----------
    symbols : str
        The symbols, element i is ``symbols[i]``.
    size : int
        m, the number of elements.
    table : numpy.ndarray
        The table (read-only int64 array).

    References
    ----------
    Baader, F. and Nipkow, T. (1998). *Term Rewriting and All That*. Cambridge University Press.

    Examples
    --------
    >>> z5 = Monoid.cyclic(5)
    >>> z5.product("1234")
    '0'
    >>> s3 = Monoid.s3()
    >>> s3.mul("b", "c"), s3.mul("c", "b")
    ('e', 'd')
    >>> Monoid([[0, 1], [0, 0]])
    Traceback (most recent call last):
    ...
    ValueError: table is not associative: (1*0)*1 = 1 but 1*(0*1) = 0; the product of a word (the answer) would depend on the order of the steps
    """

    def __init__(self, table, *, symbols=None):
        arr = _as_table(table)
        m = arr.shape[0]
        if symbols is None:
            if m > 10:
                raise ValueError(f"a table of {m} elements needs symbols: pass symbols, a string of {m} "
                                 "distinct characters")
            symbols = "0123456789"[:m]
        if not isinstance(symbols, str):
            raise TypeError(f"symbols must be a string of {m} distinct characters, got {type(symbols).__name__}")
        if len(symbols) != m or len(set(symbols)) != m:
            raise ValueError(f"symbols must be {m} distinct characters (one per row of table), got {symbols!r}")
        bad = [c for c in symbols if c in _RESERVED or c.isspace()]
        if bad:
            raise ValueError(f"symbols may not contain the trace separators '|', '=' or whitespace, got {bad[0]!r}")
        self._table = arr
        self._symbols = symbols
        self._index = {c: i for i, c in enumerate(symbols)}
        self._keys = frozenset(symbols)
        self._rows = arr.tolist()     # python lists: the fast path of the dynamic programme

    # -- constructors ------------------------------------------------------------------------
    @classmethod
    def s3(cls) -> "Monoid":
        """The symmetric group S3 on six symbols ``"abcdef"``, ``"a"`` the identity (non-commutative).

        Returns
        -------
        Monoid
            Elements are the permutations of (0, 1, 2) in lexicographic order (a = identity,
            b = (0)(1 2), c = (0 1), d = (0 1 2), e = (0 2 1), f = (0 2)); ``x*y`` is the composition
            "first y, then x".

        Examples
        --------
        >>> Monoid.s3().product("bb")
        'a'
        """
        import itertools

        perms = list(itertools.permutations(range(3)))
        index = {p: i for i, p in enumerate(perms)}
        table = [[index[tuple(p[q[t]] for t in range(3))] for q in perms] for p in perms]
        return cls(table, symbols="abcdef")

    @classmethod
    def cyclic(cls, m) -> "Monoid":
        """The cyclic group Z_m under addition modulo m, symbols ``"0"`` .. ``str(m - 1)``.

        Parameters
        ----------
        m : int
            The order, 2 to 10.

        Returns
        -------
        Monoid

        Examples
        --------
        >>> Monoid.cyclic(5).mul("3", "4")
        '2'
        """
        m = check_positive_int(m, "m", minimum=2)
        if m > 10:
            raise ValueError(f"m must be at most 10 (one digit per symbol), got {m}")
        r = np.arange(m)
        return cls((r[:, None] + r[None, :]) % m)

    # -- attributes --------------------------------------------------------------------------
    @property
    def symbols(self) -> str:
        return self._symbols

    @property
    def size(self) -> int:
        return len(self._symbols)

    @property
    def table(self) -> np.ndarray:
        return self._table

    def __repr__(self) -> str:
        return f"Monoid(size={self.size}, symbols={self._symbols!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Monoid):
            return NotImplemented
        return self._symbols == other._symbols and bool(np.array_equal(self._table, other._table))

    def __hash__(self) -> int:
        return hash((self._symbols, self._table.tobytes()))

    # -- arithmetic --------------------------------------------------------------------------
    def check_word(self, word, name="word") -> str:
        """Check that ``word`` is a non-empty string of this monoid's symbols; returns it.

        Parameters
        ----------
        word : str
            The word.
        name : str
            The argument's name, for the error message.

        Returns
        -------
        str
            ``word`` itself.

        Examples
        --------
        >>> Monoid.cyclic(3).check_word("0121")
        '0121'
        """
        if not isinstance(word, str):
            raise TypeError(f"{name} must be a string of the symbols {self._symbols!r}, got {type(word).__name__}")
        if not word:
            raise ValueError(f"{name} is empty: a word has at least one symbol")
        for c in word:
            if c not in self._index:
                raise ValueError(f"{name} holds the symbol {c!r}, which is not in the table's symbols {self._symbols!r}")
        return word

    def mul(self, x, y) -> str:
        """The product ``x*y`` of two symbols.

        Parameters
        ----------
        x, y : str
            Single symbols.

        Returns
        -------
        str
            One symbol.

        Examples
        --------
        >>> Monoid.cyclic(5).mul("4", "4")
        '3'
        """
        for name, s in (("x", x), ("y", y)):
            self.check_word(s, name)
            if len(s) != 1:
                raise ValueError(f"{name} must be one symbol, got {s!r}")
        return self._symbols[self._rows[self._index[x]][self._index[y]]]

    def product(self, word) -> str:
        """The product of a word (the normal form of every reduction; the answer).

        Parameters
        ----------
        word : str
            A non-empty word.

        Returns
        -------
        str
            One symbol.

        Examples
        --------
        >>> Monoid.s3().product("bcd")
        'a'
        """
        self.check_word(word)
        return self._symbols[self._fold(self._ids(word))]

    # -- internals ---------------------------------------------------------------------------
    def _ids(self, word: str) -> list[int]:
        return [self._index[c] for c in word]

    def _fold(self, ids: Sequence[int]) -> int:
        rows = self._rows
        acc = ids[0]
        for t in ids[1:]:
            acc = rows[acc][t]
        return acc

    def _is_word(self, word: Any) -> bool:
        return isinstance(word, str) and bool(word) and self._keys.issuperset(word)


def _check_monoid(monoid: Any, name: str = "monoid") -> Monoid:
    if not isinstance(monoid, Monoid):
        raise TypeError(f"{name} must be a Monoid (Monoid.s3(), Monoid.cyclic(m) or Monoid(table)), "
                        f"got {type(monoid).__name__}")
    return monoid


def _check_index(i: Any, name: str, n: int) -> int:
    if isinstance(i, bool) or not isinstance(i, numbers.Integral):
        raise TypeError(f"{name} must be an integer position, got {i!r}")
    if not 0 <= int(i) < n:
        raise ValueError(f"{name} must be a position in 0..{n - 1} (the first of the adjacent pair), got {i}")
    return int(i)


# ----------------------------------------------------------------------------------------------
# primitive steps and traces
# ----------------------------------------------------------------------------------------------

@public_function(data=("word", "i", "monoid"), nan_policy=None)
def primitive_step(word, i, monoid):
    """Rewrite the adjacent pair at positions ``i, i + 1`` of ``word`` into its product.

    Parameters
    ----------
    word : str
        A word of at least two symbols.
    i : int
        The position of the pair's first symbol, 0 to ``len(word) - 2``.
    monoid : Monoid
        The monoid.

    Returns
    -------
    str
        The word one symbol shorter.

    References
    ----------
    {ref}

    Examples
    --------
    >>> primitive_step("1234", 1, Monoid.cyclic(5))
    '104'
    """
    monoid = _check_monoid(monoid)
    monoid.check_word(word)
    if len(word) < 2:
        raise ValueError(f"word must have at least two symbols to take a step, got {word!r}")
    i = _check_index(i, "i", len(word) - 1)
    return word[:i] + monoid.mul(word[i], word[i + 1]) + word[i + 2:]


@public_function(data=("word", "monoid"), nan_policy=None)
def primitive_chain(word, monoid, *, order="left", seed=None):
    """The full chain of primitive steps from ``word`` down to one symbol.

    Parameters
    ----------
    word : str
        The starting word w0.
    monoid : Monoid
        The monoid.
    order : {"left", "random"}
        "left": always the leftmost pair; "random": a uniformly random adjacent pair at each step.
    seed : None, int or numpy.random.Generator
        Randomness of ``order="random"``.

    Returns
    -------
    list of str
        ``[w0, w1, ..., wn]``, each word one primitive step from the previous, ``len(wn) == 1``;
        ``wn`` is the product of ``w0`` whatever the order (confluence).

    References
    ----------
    {ref}

    Examples
    --------
    >>> primitive_chain("1234", Monoid.cyclic(5))
    ['1234', '334', '14', '0']
    """
    monoid = _check_monoid(monoid)
    monoid.check_word(word)
    order = check_choice(order, "order", ("left", "random"))
    rng = check_seed(seed)
    ids = monoid._ids(word)
    rows, sym = monoid._rows, monoid._symbols
    out = [word]
    while len(ids) > 1:
        i = 0 if order == "left" else int(rng.integers(len(ids) - 1))
        ids[i:i + 2] = [rows[ids[i]][ids[i + 1]]]
        out.append("".join(sym[t] for t in ids))
    return out


def _check_piece(s: Any, name: str) -> str:
    if not isinstance(s, str):
        raise TypeError(f"{name} must be strings, got {type(s).__name__}")
    if not s:
        raise ValueError(f"{name} holds an empty word")
    if STEP_SEP in s or ANSWER_SEP in s:
        raise ValueError(f"{name} may not contain the separators '|' or '=', got {s!r}")
    return s


def format_trace(words, answer=None):
    """The text of a trace: ``w0|w1|...|wn=x``.

    Parameters
    ----------
    words : sequence of str
        The words ``[w0, w1, ..., wn]`` (``[w0]`` alone: a direct answer ``"w0=x"``).
    answer : str, optional
        The answer x, one symbol; default the last word, which must then be one symbol.

    Returns
    -------
    str
        The trace. The prompt of a chain ("thinking") model is ``w0 + "|"``, of a direct-answer
        ("instruct") model ``w0 + "="``.

    References
    ----------
    {ref}

    Examples
    --------
    >>> format_trace(["1234", "334", "14", "0"])
    '1234|334|14|0=0'
    >>> format_trace(["1234"], answer="0")
    '1234=0'
    """
    if isinstance(words, (str, bytes)) or not isinstance(words, Sequence):
        raise TypeError(f"words must be a list of words (strings), got {type(words).__name__}")
    if len(words) == 0:
        raise ValueError("words is empty: a trace has at least its problem w0")
    words = [_check_piece(w, "words") for w in words]
    if answer is None:
        if len(words[-1]) != 1:
            raise ValueError(f"the last of words, {words[-1]!r}, is not one symbol: pass answer")
        answer = words[-1]
    _check_piece(answer, "answer")
    if len(answer) != 1:
        raise ValueError(f"answer must be one symbol, got {answer!r}")
    return STEP_SEP.join(words) + ANSWER_SEP + answer


def _check_text(text: Any, name: str = "text") -> str:
    if not isinstance(text, str):
        raise TypeError(f"{name} must be a trace string, got {type(text).__name__}")
    if not text:
        raise ValueError(f"{name} is empty: a trace has at least its problem w0")
    return text


def _split(text: str) -> tuple[str, list[str], str | None]:
    body, eq, answer = text.partition(ANSWER_SEP)
    parts = body.split(STEP_SEP)
    return parts[0], parts[1:], (answer if eq else None)


def parse_trace(text):
    """Split a trace into its problem, its steps and its answer (the inverse of :func:`format_trace`).

    Parameters
    ----------
    text : str
        A trace ``w0|w1|...|wn=x``, possibly malformed or truncated (a model's sample).

    Returns
    -------
    tuple
        ``(w0, steps, answer)``: ``steps`` the list ``[w1, ..., wn]`` (empty strings where a model
        wrote ``"||"``), ``answer`` the text after the first ``"="`` (None when there is no ``"="``:
        a truncated trace). Nothing is checked against a monoid here.

    References
    ----------
    {ref}

    Examples
    --------
    >>> parse_trace("1234|334|14|0=0")
    ('1234', ['334', '14', '0'], '0')
    >>> parse_trace("1234|33")
    ('1234', ['33'], None)
    """
    return _split(_check_text(text))


@public_function(data=("text", "monoid"), nan_policy=None)
def reward(text, monoid):
    """The binary final-answer reward: 1.0 iff the answer after ``"="`` is the product of ``w0``.

    Parameters
    ----------
    text : str
        A trace (a model's sample: malformed, truncated or holding foreign symbols gets 0.0, never
        an exception).
    monoid : Monoid
        The monoid.

    Returns
    -------
    float
        1.0 or 0.0. Only the answer counts, not the validity of the steps (see :func:`audit_trace`).

    References
    ----------
    {ref}

    Examples
    --------
    >>> z5 = Monoid.cyclic(5)
    >>> reward("1234|14=0", z5), reward("1234|22=4", z5), reward("1234|33", z5)
    (1.0, 0.0, 0.0)
    """
    monoid = _check_monoid(monoid)
    if not isinstance(text, str):
        raise TypeError(f"text must be a trace string, got {type(text).__name__}")
    return _reward(text, monoid)


def _reward(text: str, monoid: Monoid) -> float:
    w0, _, answer = _split(text)
    if answer is None or len(answer) != 1 or not monoid._is_word(w0) or answer not in monoid._index:
        return 0.0
    return 1.0 if monoid._symbols[monoid._fold(monoid._ids(w0))] == answer else 0.0


# ----------------------------------------------------------------------------------------------
# the audit
# ----------------------------------------------------------------------------------------------

def _label_of(lengths: Sequence[int]) -> str:
    nontrivial = [n for n in lengths if n >= 2]
    if not nontrivial:
        return "no-op"
    if len(nontrivial) == 1:
        return "atomic" if nontrivial[0] == 2 else "sequential"
    return "parallel" if max(nontrivial) == 2 else "mixed"


# The summary state of a (partial) segmentation: (non-trivial segments, capped at 2; any segment of
# length >= 3). Five are possible; a set of them is a bit mask. _TRANS[t][mask] is the set after
# one more segment of class t (0: length 1, 1: length 2, 2: length >= 3).
_STATES = ((0, False), (1, False), (1, True), (2, False), (2, True))
_STATE_LABELS = ("no-op", "atomic", "sequential", "parallel", "mixed")


def _transitions() -> tuple:
    out = []
    for t in range(3):
        row = []
        for mask in range(1 << len(_STATES)):
            new = 0
            for k, (c, g) in enumerate(_STATES):
                if mask >> k & 1:
                    state = (c, g) if t == 0 else (min(c + 1, 2), g or t == 2)
                    new |= 1 << _STATES.index(state)
            row.append(new)
        out.append(tuple(row))
    return tuple(out)


_TRANS = _transitions()


def _audit(u: str, v: str, monoid: Monoid) -> tuple[bool, tuple[str, ...], tuple[int, ...]]:
    """The dynamic programme. Returns (valid, feasible labels, canonical segment lengths).

    With D = len(u) - len(v), segment j of a segmentation starts at position j + d of u for some
    excess d in 0..D, and has length L <= D - d + 1 (the excess grows by L - 1). ``prod[i][L - 1]``
    is the product of ``u[i:i+L]`` (all substrings that can be segments, O(n (D + 1))). Backward
    over j, for each d: the bit mask of summary states of the segmentations of the rest of u into
    ``v[j:]``, and the best of them by (fewest non-trivial segments, then the lexicographically
    largest tuple of lengths: leftmost-longest), which has optimal substructure because for a fixed
    first segment the order compares the rest by the same key; a pointer (the first segment's
    length) rebuilds it. O(len(v) (D + 1)^2) table look-ups in all."""
    n, m = len(u), len(v)
    if m > n or not monoid._is_word(v) or not monoid._is_word(u):
        return False, (), ()
    rows = monoid._rows
    a = monoid._ids(u)
    b = monoid._ids(v)
    D = n - m
    if monoid._fold(a) != monoid._fold(b):     # necessary: the products agree (associativity)
        return False, (), ()
    prod = []
    for i in range(n):
        acc = a[i]
        row = [acc]
        for t in range(i + 1, min(n, i + D + 1)):
            acc = rows[acc][a[t]]
            row.append(acc)
        prod.append(row)                    # prod[i][L - 1] = product of u[i:i+L]
    _, trans2, trans3 = _TRANS
    nxt_mask = [0] * (D + 1)
    nxt_best = [0] * (D + 1)
    nxt_mask[D] = 1                         # the empty rest: no segment yet, state (0, False)
    choice = []
    for j in range(m - 1, -1, -1):
        target = b[j]
        row_mask = [0] * (D + 1)
        row_best = [0] * (D + 1)
        row_choice = [0] * (D + 1)
        for d in range(D + 1):
            pr = prod[j + d]
            mask, key_best, pick = 0, -1, 0
            for L in range(D - d + 1, 0, -1):           # longest first: on ties the longer stays
                if pr[L - 1] != target:
                    continue
                d2 = d + L - 1
                nm = nxt_mask[d2]
                if not nm:
                    continue
                if L == 1:
                    mask |= nm
                    key = nxt_best[d2]
                else:
                    mask |= (trans2 if L == 2 else trans3)[nm]
                    key = nxt_best[d2] + 1
                if key_best < 0 or key < key_best:
                    key_best, pick = key, L
            row_mask[d], row_best[d], row_choice[d] = mask, key_best, pick
        nxt_mask, nxt_best = row_mask, row_best
        choice.append(row_choice)
    if not nxt_mask[0]:
        return False, (), ()
    choice.reverse()
    segments, d = [], 0
    for j in range(m):
        L = choice[j][d]
        segments.append(L)
        d += L - 1
    labels = tuple(sorted(lab for k, lab in enumerate(_STATE_LABELS) if nxt_mask[0] >> k & 1))
    return True, labels, tuple(segments)


@dataclass(frozen=True, repr=False)
class StepAudit(Result):
    """The audit of one compound step ``u -> v`` (returned by :func:`audit_step`).

    Attributes
    ----------
    u, v : str
        The two words.
    valid : bool
        Whether ``u`` splits into ``len(v)`` contiguous segments whose products are ``v``'s symbols
        (equivalently: ``len(u) - len(v)`` primitive steps reach ``v``).
    compressed : int
        ``len(u) - len(v)``, the primitive steps the step compresses (0 for an invalid step).
    labels : tuple of str
        Every label some valid segmentation has, sorted alphabetically (``("invalid",)`` for an
        invalid step).
    label : str
        The canonical label: that of the canonical segmentation.
    segments : tuple of int
        The segment lengths of the canonical segmentation: fewest non-trivial segments, ties broken
        by the leftmost-longest (the lexicographically largest tuple of lengths); ``()`` if invalid.

    Examples
    --------
    >>> audit_step("1234", "32", Monoid.cyclic(5))
    StepAudit(u='1234', v='32', valid=True, compressed=2, label='parallel')
    """

    u: str
    v: str
    valid: bool
    compressed: int
    labels: tuple
    label: str
    segments: tuple

    def _repr_parts(self):
        return [("u", self.u), ("v", self.v), ("valid", self.valid), ("compressed", self.compressed),
                ("label", self.label)]

    def summary(self) -> str:
        if not self.valid:
            return f"step {self.u} -> {self.v}: invalid (no segmentation of u into the symbols of v)"
        seg = "+".join(map(str, self.segments))
        other = [lab for lab in self.labels if lab != self.label]
        more = f"; also feasible: {', '.join(other)}" if other else ""
        return (f"step {self.u} -> {self.v}: {self.label}, compresses {self.compressed} primitive "
                f"step{'s' if self.compressed != 1 else ''} (segments {seg}){more}")

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"u": [self.u], "v": [self.v], "valid": [self.valid], "compressed": [self.compressed],
                             "label": [self.label], "labels": [",".join(self.labels)],
                             "segments": ["+".join(map(str, self.segments))]})


def _step_audit(u: str, v: str, monoid: Monoid) -> StepAudit:
    valid, labels, segments = _audit(u, v, monoid)
    if not valid:
        return StepAudit(u, v, False, 0, ("invalid",), "invalid", ())
    return StepAudit(u, v, True, len(u) - len(v), labels, _label_of(segments), tuple(segments))


@public_function(data=("u", "v", "monoid"), nan_policy=None)
def audit_step(u, v, monoid):
    """Audit a compound step ``u -> v``: valid or not, how many primitive steps it compresses, its label.

    Parameters
    ----------
    u, v : str
        The word before and after the step (symbols of ``monoid``).
    monoid : Monoid
        The monoid.

    Returns
    -------
    StepAudit
        ``valid``, ``compressed`` (``len(u) - len(v)``), ``labels`` (all feasible, sorted), ``label``
        (canonical) and ``segments`` (the canonical segmentation's lengths). Labels of a
        segmentation, by its non-trivial segments (length >= 2): none "no-op" (``v == u``); one of
        length 2 "atomic"; one of length >= 3 "sequential"; two or more, all of length 2,
        "parallel"; two or more, one of length >= 3, "mixed"; no segmentation "invalid".

    Notes
    -----
    A dynamic programme over (symbol of v, position in u) on the products of the substrings of
    ``u`` that can be segments: O(len(v) (len(u) - len(v) + 1)^2) table look-ups, so a primitive step
    costs O(len(u)) and a contraction of a word to half its length O(len(u)^3).

    References
    ----------
    {ref}

    Examples
    --------
    >>> z5 = Monoid.cyclic(5)
    >>> [audit_step("1234", v, z5).label for v in ("334", "14", "32", "0", "22")]
    ['atomic', 'sequential', 'parallel', 'sequential', 'invalid']
    >>> audit_step("1234", "14", z5).segments
    (3, 1)
    """
    monoid = _check_monoid(monoid)
    monoid.check_word(u, "u")
    monoid.check_word(v, "v")
    return _step_audit(u, v, monoid)


@dataclass(frozen=True, repr=False)
class TraceAudit(Result):
    """The audit of a whole trace (returned by :func:`audit_trace`).

    Attributes
    ----------
    steps : tuple of StepAudit
        One audit per step ``w0 -> w1``, ``w1 -> w2``, ... (a word holding foreign symbols or an
        empty word is an invalid step).
    n_steps : int
        The number of steps.
    valid_steps : int
        How many are valid.
    all_valid : bool
        Every step valid (true for a trace without steps).
    correct : bool
        The reward is 1.
    contractions : int
        Valid steps compressing two or more primitive steps.
    answer : str or None
        The text after ``"="`` (None for a truncated trace).
    problem : str
        The problem w0.

    Examples
    --------
    >>> audit_trace("1234|32|0=0", Monoid.cyclic(5))
    TraceAudit(problem='1234', n_steps=2, valid_steps=2, all_valid=True, correct=True, contractions=1)
    """

    steps: tuple
    n_steps: int
    valid_steps: int
    all_valid: bool
    correct: bool
    contractions: int
    answer: Any
    problem: str

    def _repr_parts(self):
        return [("problem", self.problem), ("n_steps", self.n_steps), ("valid_steps", self.valid_steps),
                ("all_valid", self.all_valid), ("correct", self.correct), ("contractions", self.contractions)]

    def summary(self) -> str:
        ans = "(truncated: no answer)" if self.answer is None else repr(self.answer)
        lines = [f"trace of {self.problem}: {self.n_steps} step{'s' if self.n_steps != 1 else ''}, "
                 f"{self.valid_steps} valid, {self.contractions} contraction{'s' if self.contractions != 1 else ''}; "
                 f"answer {ans}, {'correct' if self.correct else 'wrong'}"]
        for k, s in enumerate(self.steps, 1):
            seg = "+".join(map(str, s.segments)) if s.valid else "-"
            lines.append(f"  {k:>3}  {s.u} -> {s.v}  {s.label}  compressed {s.compressed}  segments {seg}")
        return "\n".join(lines)

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"step": list(range(1, self.n_steps + 1)),
                             "u": [s.u for s in self.steps], "v": [s.v for s in self.steps],
                             "valid": [s.valid for s in self.steps],
                             "compressed": [s.compressed for s in self.steps],
                             "label": [s.label for s in self.steps]},
                            columns=["step", "u", "v", "valid", "compressed", "label"])


@public_function(data=("text", "monoid"), nan_policy=None)
def audit_trace(text, monoid):
    """Audit every step of a trace, and its answer.

    Parameters
    ----------
    text : str
        A trace ``w0|w1|...|wn=x`` (a model's sample: malformed steps are audited as invalid).
        Its problem ``w0`` must be a word of ``monoid``.
    monoid : Monoid
        The monoid.

    Returns
    -------
    TraceAudit
        The step audits and their counts (valid steps, contractions), and whether the answer is
        correct. The jump from the last word to the answer is not a step.

    References
    ----------
    {ref}

    Examples
    --------
    >>> print(audit_trace("1234|334|22|4=4", Monoid.cyclic(5)))
    trace of 1234: 3 steps, 2 valid, 0 contractions; answer '4', wrong
        1  1234 -> 334  atomic  compressed 1  segments 2+1+1
        2  334 -> 22  invalid  compressed 0  segments -
        3  22 -> 4  atomic  compressed 1  segments 2
    """
    monoid = _check_monoid(monoid)
    text = _check_text(text)
    w0, words, answer = _split(text)
    if not w0:
        raise ValueError(f"text has no problem w0 before its first separator: {text[:40]!r}")
    monoid.check_word(w0, "text")
    steps = []
    prev = w0
    for w in words:
        steps.append(_step_audit(prev, w, monoid))
        prev = w
    steps = tuple(steps)
    valid = sum(s.valid for s in steps)
    return TraceAudit(steps=steps, n_steps=len(steps), valid_steps=valid, all_valid=valid == len(steps),
                      correct=_reward(text, monoid) == 1.0,
                      contractions=sum(s.valid and s.compressed >= 2 for s in steps), answer=answer, problem=w0)


# ----------------------------------------------------------------------------------------------
# tokens, problems, corpora
# ----------------------------------------------------------------------------------------------

class RewriteTokenizer:
    """Character tokens of the environment: ``["<pad>", "<bos>", "<eos>"] + symbols + ["|", "="]``.

    Parameters
    ----------
    monoid : Monoid
        The monoid whose symbols are the vocabulary.

    Attributes
    ----------
    vocab : list of str
        The tokens; a token's id is its position.
    pad_id, bos_id, eos_id : int
        0, 1, 2.
    vocab_size : int
        ``monoid.size + 5``.

    References
    ----------
    {ref}

    Examples
    --------
    >>> tok = RewriteTokenizer(Monoid.cyclic(5))
    >>> tok.encode("12|3=3", eos=True)
    [1, 4, 5, 8, 6, 9, 6, 2]
    >>> tok.decode([1, 4, 5, 8, 6, 9, 6, 2, 0, 0])
    '12|3=3'
    """

    def __init__(self, monoid):
        self.monoid = _check_monoid(monoid)
        self.vocab = ["<pad>", "<bos>", "<eos>"] + list(monoid.symbols) + [STEP_SEP, ANSWER_SEP]
        self._ids = {t: i for i, t in enumerate(self.vocab)}
        self.pad_id, self.bos_id, self.eos_id = 0, 1, 2
        self.vocab_size = len(self.vocab)

    def __repr__(self) -> str:
        return f"RewriteTokenizer(vocab_size={self.vocab_size}, symbols={self.monoid.symbols!r})"

    def id(self, ch) -> int:
        """The id of one token (a character of a trace, or ``"<pad>"``, ``"<bos>"``, ``"<eos>"``).

        Parameters
        ----------
        ch : str
            The token.

        Returns
        -------
        int

        Examples
        --------
        >>> RewriteTokenizer(Monoid.s3()).id("=")
        10
        """
        if not isinstance(ch, str) or ch not in self._ids:
            raise ValueError(f"ch {ch!r} is not a token of the vocabulary {self.vocab}")
        return self._ids[ch]

    def encode(self, text, *, bos=True, eos=False) -> list[int]:
        """The ids of a text, one per character.

        Parameters
        ----------
        text : str
            A trace or a prompt (characters of the vocabulary; may be empty).
        bos, eos : bool
            Prepend ``<bos>``, append ``<eos>``.

        Returns
        -------
        list of int

        Examples
        --------
        >>> RewriteTokenizer(Monoid.cyclic(3)).encode("01|1", bos=False)
        [3, 4, 6, 4]
        """
        if not isinstance(text, str):
            raise TypeError(f"text must be a string, got {type(text).__name__}")
        ids = self._ids
        try:
            out = [ids[c] for c in text]
        except KeyError as exc:
            raise ValueError(f"text holds {exc.args[0]!r}, which is not in the vocabulary {self.vocab}") from None
        if bos:
            out.insert(0, self.bos_id)
        if eos:
            out.append(self.eos_id)
        return out

    def decode(self, ids) -> str:
        """The text of a sequence of ids: stops at the first ``<eos>``, drops ``<pad>`` and ``<bos>``.

        Parameters
        ----------
        ids : sequence of int
            Token ids (a list, a 1-d numpy array or CPU tensor).

        Returns
        -------
        str

        Examples
        --------
        >>> RewriteTokenizer(Monoid.cyclic(3)).decode([1, 3, 4, 6, 4, 2, 5])
        '01|1'
        """
        if isinstance(ids, (str, bytes)) or ids is None:
            raise TypeError(f"ids must be a sequence of token ids, got {type(ids).__name__}")
        if hasattr(ids, "detach"):
            ids = ids.detach().cpu().numpy()
        arr = np.asarray(ids)
        if arr.dtype == object or arr.dtype.kind not in "iu":
            if not (arr.size == 0 and arr.dtype.kind == "f"):
                raise TypeError(f"ids must be integers, got dtype {arr.dtype}")
        if arr.ndim != 1:
            raise ValueError(f"ids must be one sequence (1-d), got shape {arr.shape}")
        if arr.size and (arr.min() < 0 or arr.max() >= self.vocab_size):
            raise ValueError(f"ids must be token ids in 0..{self.vocab_size - 1}, got {arr.min()}..{arr.max()}")
        vocab, out = self.vocab, []
        for t in arr.tolist():
            if t == self.eos_id:
                break
            if t not in (self.pad_id, self.bos_id):
                out.append(vocab[t])
        return "".join(out)


def _check_lengths(lengths: Any, minimum: int = 1) -> np.ndarray:
    if isinstance(lengths, (str, bytes)) or lengths is None:
        raise TypeError(f"lengths must be an iterable of word lengths (ints), got {type(lengths).__name__}")
    if isinstance(lengths, numbers.Integral) and not isinstance(lengths, bool):
        raise TypeError("lengths must be an iterable of word lengths: write [n] or range(a, b), not an int")
    try:
        vals = list(lengths)
    except TypeError:
        raise TypeError(f"lengths must be an iterable of word lengths (ints), got {type(lengths).__name__}") from None
    if not vals:
        raise ValueError("lengths is empty")
    for x in vals:
        if isinstance(x, bool) or not isinstance(x, numbers.Integral):
            raise TypeError(f"lengths must hold integers, got {x!r}")
        if x < minimum:
            raise ValueError(f"lengths must be >= {minimum}, got {x}")
    return np.asarray(vals, dtype=np.int64)


def _words(monoid: Monoid, n: int, lengths: np.ndarray, rng: np.random.Generator) -> list[str]:
    sizes = rng.choice(lengths, size=n)
    sym = monoid._symbols
    return ["".join(sym[t] for t in rng.integers(monoid.size, size=int(k))) for k in sizes]


@public_function(data=("monoid", "n"), nan_policy=None)
def make_problems(monoid, n, *, lengths, seed=None):
    """Random problems: ``n`` words, lengths drawn uniformly from ``lengths``, symbols uniformly.

    Parameters
    ----------
    monoid : Monoid
        The monoid.
    n : int
        The number of words.
    lengths : iterable of int
        The word lengths to draw from (each >= 1; repeat a length to weight it).
    seed : None, int or numpy.random.Generator
        Randomness.

    Returns
    -------
    list of str

    References
    ----------
    {ref}

    Examples
    --------
    >>> [len(w) for w in make_problems(Monoid.s3(), 5, lengths=[3], seed=0)]
    [3, 3, 3, 3, 3]
    """
    monoid = _check_monoid(monoid)
    n = check_positive_int(n, "n")
    lengths = _check_lengths(lengths)
    rng = check_seed(seed)
    return _words(monoid, n, lengths, rng)


@public_function(data=("monoid", "n"), nan_policy=None)
def make_corpus(monoid, n, *, kind="full", lengths, seed=None):
    """Pretraining texts for the three corpora of the ablation.

    Parameters
    ----------
    monoid : Monoid
        The monoid.
    n : int
        The number of texts.
    kind : {"full", "steps", "random"}
        "full": the leftmost primitive chain of a random word, ``w0|w1|...|wn=x``; "steps": an
        isolated single primitive step ``u|v`` (the leftmost pair of a random word, as the steps of
        "full" are; no answer); "random": the primitive chain in a uniformly random reduction order.
    lengths : iterable of int
        The word lengths, drawn uniformly (>= 2 for "steps").
    seed : None, int or numpy.random.Generator
        Randomness.

    Returns
    -------
    list of str

    References
    ----------
    {ref}

    Examples
    --------
    >>> make_corpus(Monoid.cyclic(5), 2, kind="full", lengths=[3], seed=1)
    ['223|43|2=2', '400|40|4=4']
    >>> make_corpus(Monoid.cyclic(5), 2, kind="steps", lengths=[3], seed=1)
    ['223|43', '400|40']
    """
    monoid = _check_monoid(monoid)
    n = check_positive_int(n, "n")
    kind = check_choice(kind, "kind", ("full", "steps", "random"))
    lengths = _check_lengths(lengths, minimum=2 if kind == "steps" else 1)
    rng = check_seed(seed)
    words = _words(monoid, n, lengths, rng)
    if kind == "steps":
        return [w + STEP_SEP + monoid._symbols[monoid._rows[monoid._index[w[0]]][monoid._index[w[1]]]] + w[2:]
                for w in words]
    order = "left" if kind == "full" else "random"
    return [format_trace(primitive_chain(w, monoid, order=order, seed=rng)) for w in words]


def trace_tokens(text):
    """The tokens a model generates for a trace: everything after the prompt ``w0|`` (or ``w0=``).

    Parameters
    ----------
    text : str
        A trace; its prompt is the problem w0 with the first separator after it.

    Returns
    -------
    int
        ``len(text) - len(w0) - 1``: the steps with their separators and the final ``"=x"`` (the
        ``<eos>`` is not counted).

    References
    ----------
    {ref}

    Examples
    --------
    >>> trace_tokens("1234|334|14|0=0"), trace_tokens("1234|32=0"), trace_tokens("1234=0")
    (10, 4, 1)
    """
    text = _check_text(text)
    k = min((p for p in (text.find(STEP_SEP), text.find(ANSWER_SEP)) if p >= 0), default=-1)
    if k <= 0:
        raise ValueError(f"text is not a trace: it needs a problem w0 followed by '|' or '=', got {text[:40]!r}")
    return len(text) - k - 1


def full_chain_tokens(word):
    """The tokens of the full primitive chain of ``word``: ``trace_tokens`` of its trace.

    Parameters
    ----------
    word : str
        The problem (any symbols; only its length counts).

    Returns
    -------
    int
        ``n (n - 1) / 2 + n`` for a word of length n: the words of lengths n-1, ..., 1 each with its
        separator, and the answer (the same for every reduction order). A held-out word "fits a
        budget only if contracted" when this exceeds the budget.

    References
    ----------
    {ref}

    Examples
    --------
    >>> full_chain_tokens("1234")
    10
    """
    word = _check_piece(word, "word") if isinstance(word, str) else _check_text(word, "word")
    n = len(word)
    return n * (n - 1) // 2 + n


for _f in (primitive_step, primitive_chain, format_trace, parse_trace, reward, audit_step, audit_trace,
           make_problems, make_corpus, trace_tokens, full_chain_tokens, RewriteTokenizer):
    _f.__doc__ = _f.__doc__.replace("{ref}", _REF)
del _f
