"""Hint Tuning's data construction (Fan et al. 2026), as functions of a solver and a trace.

The instruct model is the difficulty probe: a thinking model's trace is split into parts at reflection
keywords, the cumulative prefixes of those parts are handed to the instruct model as the opening of its
answer, and the shortest prefix with which it reaches the right answer decides the problem's state:
No-Hint (no prefix needed: a direct answer), Sparse-Hint (the minimal prefix, then the instruct model's
completion), Full-Hint (no prefix works: the thinking model's whole trace). The fine-tuning texts carry
one opener per state, so the tuned model learns to choose its reasoning depth.

Everything here is numpy and the standard library: a solver is any callable ``solve(problem, prefix)``
returning whether the answer reached from that prefix is right (a language model, a toy model, a fake
with a known threshold). :func:`token_reduction` reports the paper's headline quantity with a paired
Fieller interval (:func:`statcore.ratio_ci`) and the accuracy change by McNemar's test
(:func:`statcore.mcnemar_test`).

What is the paper's and the released code's, and what is ours:

- the split at keywords (matched case-insensitively), the cumulative prefixes with the empty prefix
  first, the cap of 40 parts, the linear scan that stops at the first prefix that solves, the three
  openers: the paper's README and released code (github.com/redai-infra/hint-tuning, Apache-2.0),
  re-implemented, not copied;
- the two rules for the No-Hint state (``state_rule``): the README's ("the instruct model solves the
  problem with the empty prefix") and the released ``merge.py``'s ("the thinking model solved it", the
  prefix search running only on the problems the thinking model got wrong, where an empty prefix that
  solves makes a Sparse-Hint example with no hint): both offered, the README's the default;
- ours: the bisection over prefixes (valid only when solving is monotone in the prefix length), the
  ``verify`` scan that records non-monotone problems, the paired interval and test of
  :func:`token_reduction`.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd
from statcore import HTest, RatioCI, Result, mcnemar_test, ratio_ci
from statcore.utils import check_choice, check_positive_int, check_probability

__all__ = ["split_trace", "cumulative_prefixes", "minimal_prefix", "PrefixSearch", "hint_states", "format_sft",
           "build_hint_dataset", "HintDataset", "token_reduction", "TokenReduction", "STATES", "OPENERS",
           "REFLECTION_KEYWORDS"]

#: the three states, in order of reasoning depth
STATES = ("no-hint", "sparse-hint", "full-hint")

#: the openers of the thinking part, one per state (the README's phrases; the released merge.py draws
#: the No-Hint opener at random among five short ones, here the first of them is always used)
OPENERS = {
    "no-hint": "Let me think.",
    "sparse-hint": "I may need some deep thinking.",
    "full-hint": ("This is a complex or challenging question, and it is difficult to provide a direct answer. "
                  "I need to deep think about it."),
}

#: the reflection keywords of the released configuration, at which a natural-language trace is split
REFLECTION_KEYWORDS = ("wait", "actually", "let me reconsider", "on second thought", "hold on", "let me rethink")

#: the released format: the thinking part between think tags, then the answer
DELIMITERS = ("<think>\n", "\n</think>\n\n")


# --------------------------------------------------------------------------------------------------------
# input checks (the argument named in every message)

def _check_text(x: Any, name: str, *, allow_empty: bool = False) -> str:
    if not isinstance(x, str):
        raise TypeError(f"{name} must be a string, got {type(x).__name__}")
    if not allow_empty and not x:
        raise ValueError(f"{name} is empty: give a non-empty string")
    return x


def _check_strings(x: Any, name: str, *, allow_empty_items: bool = True) -> list[str]:
    if isinstance(x, (str, bytes)) or x is None or isinstance(x, dict):
        raise TypeError(f"{name} must be a sequence of strings, got {type(x).__name__}")
    try:
        items = list(x)
    except TypeError:
        raise TypeError(f"{name} must be a sequence of strings, got {type(x).__name__}") from None
    if not items:
        raise ValueError(f"{name} is empty: give at least one string")
    for i, v in enumerate(items):
        if not isinstance(v, str):
            raise TypeError(f"{name} must hold strings only; {name}[{i}] is {type(v).__name__}")
        if not allow_empty_items and not v:
            raise ValueError(f"{name}[{i}] is an empty string")
    return items


def _check_keywords(keywords: Any) -> list[str]:
    if isinstance(keywords, str):
        keywords = [keywords]
    return _check_strings(keywords, "keywords", allow_empty_items=False)


def _check_callable(f: Any, name: str) -> Callable:
    if not callable(f):
        raise TypeError(f"{name} must be callable, got {type(f).__name__}")
    return f


def _check_bools(x: Any, name: str, n: int | None = None) -> np.ndarray:
    """A flat vector of booleans (True/False or 0/1); text, NaN and other numbers are refused."""
    if isinstance(x, (str, bytes)) or x is None or isinstance(x, dict):
        raise TypeError(f"{name} must be a vector of booleans (or 0/1), got {type(x).__name__}")
    arr = np.asarray(x.to_numpy() if isinstance(x, pd.Series) else x)
    if arr.dtype.kind in "USO":
        if arr.dtype.kind == "O" and all(isinstance(v, (bool, np.bool_, int, np.integer)) for v in arr.ravel()):
            arr = arr.astype(np.int64)
        else:
            raise TypeError(f"{name} must hold booleans (or 0/1), not text or objects")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty")
    if arr.dtype.kind == "b":
        out = arr.astype(bool)
    elif arr.dtype.kind in "iuf":
        if not np.all(np.isin(arr, (0, 1))):
            raise ValueError(f"{name} must hold booleans or 0/1; it holds other values (NaN, inf or a number "
                             f"other than 0 and 1)")
        out = arr.astype(bool)
    else:
        raise TypeError(f"{name} must hold booleans (or 0/1), got dtype {arr.dtype}")
    if n is not None and out.size != n:
        raise ValueError(f"{name} has {out.size} entries, the other inputs {n}: one per problem")
    return out


def _check_lengths(x: Any, name: str) -> np.ndarray:
    """Token counts: a flat vector of finite non-negative numbers."""
    if isinstance(x, (str, bytes)) or x is None or isinstance(x, dict):
        raise TypeError(f"{name} must be a vector of token counts, got {type(x).__name__}")
    arr = np.asarray(x.to_numpy() if isinstance(x, pd.Series) else x)
    if arr.dtype.kind == "O":
        if not all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
                   for v in arr.ravel()):
            raise TypeError(f"{name} must hold numbers (token counts), not text or objects")
        arr = arr.astype(float)
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must hold numbers (token counts), got dtype {arr.dtype}")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size < 2:
        raise ValueError(f"{name} needs at least two problems for an interval, got {arr.size}")
    arr = arr.astype(float)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} holds {int(np.sum(~np.isfinite(arr)))} NaN or infinite value(s): token "
                         f"counts are finite")
    if np.any(arr < 0):
        raise ValueError(f"{name} holds a negative token count")
    return arr


# --------------------------------------------------------------------------------------------------------
# splitting and prefixes

def split_trace(text: str, keywords, *, ignore_case: bool = True) -> list[str]:
    """Split a thinking trace into parts at reflection keywords.

    Each keyword occurrence starts a new part (the keyword stays at the head of its part), so the
    parts joined give the text back. As in the released code, a piece that is only whitespace is not
    a part of its own: here it is kept at the head of the part that follows it (the released code drops
    it), so that the cumulative prefixes are exact prefixes of the trace.

    Parameters
    ----------
    text : str
        The trace (non-empty).
    keywords : str or sequence of str
        The split points: literal strings (not patterns), e.g. :data:`REFLECTION_KEYWORDS` for a
        natural-language trace, or ``"|"`` for the rewrite environment's ``w0|w1|...=x`` traces.
    ignore_case : bool, default True
        Match the keywords case-insensitively (the released code does).

    Returns
    -------
    list of str
        The parts, in order; ``"".join(parts) == text``.

    References
    ----------
    Fan, S. et al. (2026). Hint Tuning: less data makes better reasoners. arXiv:2605.08665 (the split
    at reflection keywords: the released ``construction/pipeline.py``).

    Examples
    --------
    >>> from learncore.reasoning import split_trace
    >>> split_trace("2+2 is 5. Wait, no: 4. Actually 4.", ["wait", "actually"])
    ['2+2 is 5. ', 'Wait, no: 4. ', 'Actually 4.']
    >>> split_trace("ab|c|d=x", "|")
    ['ab', '|c', '|d=x']
    """
    text = _check_text(text, "text")
    kws = _check_keywords(keywords)
    if not isinstance(ignore_case, (bool, np.bool_)):
        raise TypeError(f"ignore_case must be True or False, got {ignore_case!r}")
    # the longest keyword first, so that one starting where another does is matched whole
    pattern = re.compile("|".join(re.escape(k) for k in sorted(set(kws), key=len, reverse=True)),
                         re.IGNORECASE if ignore_case else 0)
    cuts = sorted({m.start() for m in pattern.finditer(text)} - {0})
    bounds = [0] + cuts + [len(text)]
    pieces = [text[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
    parts: list[str] = []
    carry = ""
    for piece in pieces:
        if not (carry + piece).strip():
            carry += piece
            continue
        parts.append(carry + piece)
        carry = ""
    if carry:  # trailing whitespace (only when a keyword is itself whitespace)
        if parts:
            parts[-1] += carry
        else:
            parts.append(carry)
    return parts


def cumulative_prefixes(parts, *, max_parts: int | None = 40) -> list[str]:
    """The cumulative prefixes of a split trace: the empty prefix, the first part, the first two, ...

    Parameters
    ----------
    parts : sequence of str
        The parts (:func:`split_trace`), at least one.
    max_parts : int or None, default 40
        Keep the first ``max_parts`` parts only (the released code's cap of 40); None keeps them all.

    Returns
    -------
    list of str
        ``min(len(parts), max_parts) + 1`` prefixes; prefix ``k`` is the first ``k`` parts joined, and
        prefix 0 is the empty string (the instruct model alone).

    References
    ----------
    Fan, S. et al. (2026). Hint Tuning: less data makes better reasoners. arXiv:2605.08665.

    Examples
    --------
    >>> from learncore.reasoning import cumulative_prefixes
    >>> cumulative_prefixes(["ab", "|c", "|d=x"])
    ['', 'ab', 'ab|c', 'ab|c|d=x']
    >>> cumulative_prefixes(["ab", "|c", "|d=x"], max_parts=1)
    ['', 'ab']
    """
    items = _check_strings(parts, "parts", allow_empty_items=False)
    if max_parts is not None:
        max_parts = check_positive_int(max_parts, "max_parts")
        items = items[:max_parts]
    out = [""]
    for p in items:
        out.append(out[-1] + p)
    return out


# --------------------------------------------------------------------------------------------------------
# the minimal prefix

@dataclass(frozen=True, repr=False)
class PrefixSearch(Result):
    """The shortest prefix with which the solver reaches the right answer (:func:`minimal_prefix`).

    Attributes
    ----------
    problem : str
        The problem handed to the solver.
    solved : bool
        Some checked prefix solved the problem.
    k : int or None
        The minimal prefix's index found by the search (0: the empty prefix, the solver alone); None
        when no prefix solved.
    prefix : str or None
        That prefix.
    completion : str or None
        What the solver generated after that prefix, when ``solve`` returns a ``(solved, completion)``
        pair (the Sparse-Hint example's answer).
    search : str
        "linear" or "bisect".
    n_prefixes : int
        The number of candidate prefixes.
    n_calls : int
        Calls of ``solve``.
    checked_k, checked_solved : numpy.ndarray
        The prefix indices checked, in order, and whether each solved.
    verified : bool
        Every prefix was checked (``verify=True``), so ``monotone`` is exact.
    monotone : bool
        No checked prefix solves while a longer checked one fails. A search that stops early sees only
        part of the prefixes: only a ``verified`` search can prove monotonicity, and bisection's answer
        is the minimal prefix only when solving is monotone.
    first_k : int or None
        The first prefix that solves among those checked (the linear scan's answer; with
        ``verified``, the true minimal prefix, which bisection can miss on a non-monotone problem).

    Examples
    --------
    >>> from learncore.reasoning import minimal_prefix
    >>> res = minimal_prefix(lambda problem, prefix: len(prefix) >= 2, "p", ["", "a", "ab", "abc"])
    >>> res
    PrefixSearch(k=2, solved=True, search='linear', n_calls=3, monotone=True)
    >>> res.to_frame()["solved"].tolist()
    [False, False, True]
    """

    problem: str
    solved: bool
    k: int | None
    prefix: str | None
    completion: str | None
    search: str
    n_prefixes: int
    n_calls: int
    checked_k: np.ndarray
    checked_solved: np.ndarray
    verified: bool
    monotone: bool
    first_k: int | None

    def _repr_parts(self):
        return [("k", self.k), ("solved", self.solved), ("search", self.search), ("n_calls", self.n_calls),
                ("monotone", self.monotone)]

    def summary(self) -> str:
        head = f"Minimal prefix search ({self.search}) over {self.n_prefixes} prefixes, {self.n_calls} solver calls"
        if self.solved:
            found = f"minimal prefix k = {self.k} ({len(self.prefix)} characters)"
        else:
            found = "no prefix solved the problem"
        mono = ("monotone over all prefixes" if self.monotone else "NOT monotone: a shorter prefix solves "
                "while a longer one fails") if self.verified else (
            "monotone among the checked prefixes" if self.monotone else
            "NOT monotone among the checked prefixes")
        order = ", ".join(f"{k}:{'T' if s else 'F'}" for k, s in zip(self.checked_k, self.checked_solved))
        return "\n".join([head, found, mono, f"checked (k:solved): {order}"])

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"k": np.asarray(self.checked_k, dtype=int),
                             "solved": np.asarray(self.checked_solved, dtype=bool)})


def _call(solve: Callable, problem: str, prefix: str) -> tuple[bool, str | None]:
    out = solve(problem, prefix)
    completion = None
    if isinstance(out, tuple):
        if len(out) != 2 or not isinstance(out[1], str):
            raise TypeError("solve must return a bool or a (bool, str) pair (solved, completion), got a tuple "
                            f"{out!r:.80}")
        out, completion = out
    if not isinstance(out, (bool, np.bool_)):
        raise TypeError(f"solve must return a bool (or a (bool, str) pair), got {type(out).__name__} {out!r:.40}")
    return bool(out), completion


def minimal_prefix(solve: Callable, problem: str, prefixes, *, search: str = "linear",
                   verify: bool = False) -> PrefixSearch:
    """The shortest prefix with which a solver reaches the right answer: Hint Tuning's probe.

    ``solve(problem, prefix)`` runs the instruct model on the problem with ``prefix`` as the opening of
    its answer and says whether the answer it reaches is right (it may also return the pair
    ``(solved, completion)``, the completion then kept for the Sparse-Hint example).

    - ``search="linear"`` checks prefix 0, 1, 2, ... and stops at the first that solves (the released
      code's rule; at most ``len(prefixes)`` calls).
    - ``search="bisect"`` checks the empty prefix, then the longest, then bisects between the last
      failing and the first solving index (about ``2 + log2(len(prefixes))`` calls). It returns the
      minimal prefix only when solving is monotone (a prefix that solves stays solving when extended);
      on a non-monotone problem it returns *a* prefix that solves right after one that fails, and it
      reports "no prefix" when the longest fails, whatever the shorter ones do.

    Neither search can see a violation of monotonicity among the prefixes it checks (bisection only
    checks where the answer changes, the linear scan stops at the first success), so ``verify=True``
    checks every prefix the search left out: ``monotone`` is then exact (False when a shorter prefix
    solves while a longer one fails) and ``first_k`` the true minimal prefix, while ``k`` remains the
    search's own answer, so a run on a sample of problems measures how often bisection would be wrong.

    Parameters
    ----------
    solve : callable
        ``solve(problem, prefix) -> bool`` or ``-> (bool, str)``.
    problem : str
        The problem, handed to ``solve`` as it is.
    prefixes : sequence of str
        The candidate prefixes, shortest first (:func:`cumulative_prefixes`: prefix 0 is empty, the
        instruct model alone).
    search : {"linear", "bisect"}, default "linear"
        The search.
    verify : bool, default False
        Also check every prefix the search skipped, to record non-monotone problems.

    Returns
    -------
    PrefixSearch
        ``k``, ``prefix``, ``completion``, ``solved``, the checked prefixes, ``monotone``, ``first_k``.

    References
    ----------
    Fan, S. et al. (2026). Hint Tuning: less data makes better reasoners. arXiv:2605.08665 (the
    minimal prefix k; the released code scans linearly).

    Examples
    --------
    >>> from learncore.reasoning import minimal_prefix
    >>> solve = lambda problem, prefix: len(prefix) >= 3      # a fake solver with a known threshold
    >>> prefixes = ["", "a", "ab", "abc", "abcd", "abcde"]
    >>> res = minimal_prefix(solve, "p", prefixes)
    >>> res.k, res.prefix, res.n_calls
    (3, 'abc', 4)
    >>> minimal_prefix(solve, "p", prefixes, search="bisect").k
    3
    >>> odd = lambda problem, prefix: len(prefix) == 1        # solves with one part only
    >>> res = minimal_prefix(odd, "p", prefixes, search="bisect", verify=True)
    >>> res.k, res.first_k, res.monotone
    (None, 1, False)
    """
    solve = _check_callable(solve, "solve")
    problem = _check_text(problem, "problem", allow_empty=True)
    pref = _check_strings(prefixes, "prefixes")
    search = check_choice(search, "search", ("linear", "bisect"))
    if not isinstance(verify, (bool, np.bool_)):
        raise TypeError(f"verify must be True or False, got {verify!r}")
    n = len(pref)
    results: dict[int, tuple[bool, str | None]] = {}
    order: list[int] = []

    def check(k: int) -> bool:
        if k not in results:
            results[k] = _call(solve, problem, pref[k])
            order.append(k)
        return results[k][0]

    k_found: int | None = None
    if search == "linear":
        for k in range(n):
            if check(k):
                k_found = k
                break
    else:
        if check(0):
            k_found = 0
        elif n > 1 and check(n - 1):
            lo, hi = 1, n - 1          # prefix lo - 1 fails, prefix hi solves
            while lo < hi:
                mid = (lo + hi) // 2
                if check(mid):
                    hi = mid
                else:
                    lo = mid + 1
            k_found = hi
    if verify:
        for k in range(n):
            check(k)
    ks = np.asarray(order, dtype=np.int64)
    ok = np.asarray([results[k][0] for k in order], dtype=bool)
    by_k = sorted(results)
    solved_sorted = [results[k][0] for k in by_k]
    # a violation: a checked prefix solves while a longer checked prefix fails
    monotone = True
    seen_success = False
    for s in solved_sorted:
        if s:
            seen_success = True
        elif seen_success:
            monotone = False
            break
    first = next((k for k, s in zip(by_k, solved_sorted) if s), None)
    return PrefixSearch(problem=problem, solved=k_found is not None, k=k_found,
                        prefix=None if k_found is None else pref[k_found],
                        completion=None if k_found is None else results[k_found][1],
                        search=search, n_prefixes=n, n_calls=len(order), checked_k=ks, checked_solved=ok,
                        verified=bool(verify) or len(results) == n, monotone=monotone, first_k=first)


# --------------------------------------------------------------------------------------------------------
# the three states and the fine-tuning texts

def _check_searches(searches: Any) -> list[PrefixSearch]:
    if isinstance(searches, PrefixSearch):
        searches = [searches]
    if isinstance(searches, (str, bytes)) or searches is None or isinstance(searches, dict):
        raise TypeError(f"searches must be a sequence of PrefixSearch results, got {type(searches).__name__}")
    try:
        items = list(searches)
    except TypeError:
        raise TypeError(f"searches must be a sequence of PrefixSearch results, got {type(searches).__name__}") from None
    if not items:
        raise ValueError("searches is empty: give one PrefixSearch per problem")
    for i, s in enumerate(items):
        if not isinstance(s, PrefixSearch):
            raise TypeError(f"searches[{i}] is {type(s).__name__}, not a PrefixSearch (from minimal_prefix)")
    return items


def hint_states(searches, *, think_correct=None, state_rule: str = "readme") -> np.ndarray:
    """The Hint Tuning state of each problem: "no-hint", "sparse-hint" or "full-hint".

    The paper's README and its released code assign No-Hint differently; both are offered.

    - ``state_rule="readme"`` (default; the README's Step 3): the instruct model solves the problem
      with the empty prefix (k = 0) -> No-Hint; a longer prefix is needed (k > 0) -> Sparse-Hint; no
      prefix solves -> Full-Hint. ``think_correct`` is not used.
    - ``state_rule="released"`` (the released ``merge.py``): the thinking model solved the problem
      (``think_correct``) -> No-Hint, whatever the instruct model does; otherwise the prefix search
      decides: any prefix that solves, the empty one included -> Sparse-Hint (with an empty hint when
      k = 0), none -> Full-Hint.

    Parameters
    ----------
    searches : sequence of PrefixSearch
        One :func:`minimal_prefix` result per problem, whose prefix 0 is the empty prefix.
    think_correct : array_like of bool, optional
        Whether the thinking model's own answer to each problem is right (needed by "released").
    state_rule : {"readme", "released"}, default "readme"
        Which rule assigns No-Hint.

    Returns
    -------
    numpy.ndarray of str
        One state per problem.

    References
    ----------
    Fan, S. et al. (2026). Hint Tuning: less data makes better reasoners. arXiv:2605.08665; the README
    and ``construction/merge.py`` of github.com/redai-infra/hint-tuning.

    Examples
    --------
    >>> from learncore.reasoning import hint_states, minimal_prefix
    >>> prefixes = ["", "a", "ab", "abc"]
    >>> searches = [minimal_prefix(lambda p, pre: len(pre) >= t, "p", prefixes) for t in (0, 2, 9)]
    >>> hint_states(searches).tolist()
    ['no-hint', 'sparse-hint', 'full-hint']
    >>> hint_states(searches, think_correct=[False, True, False], state_rule="released").tolist()
    ['sparse-hint', 'no-hint', 'full-hint']
    """
    items = _check_searches(searches)
    state_rule = check_choice(state_rule, "state_rule", ("readme", "released"))
    if state_rule == "released":
        if think_correct is None:
            raise ValueError("think_correct is needed with state_rule='released' (the thinking model's "
                             "correctness assigns No-Hint there)")
        think = _check_bools(think_correct, "think_correct", len(items))
    elif think_correct is not None:
        think = _check_bools(think_correct, "think_correct", len(items))  # checked, not used
    out = []
    for i, s in enumerate(items):
        if state_rule == "released" and think[i]:
            out.append("no-hint")
        elif not s.solved:
            out.append("full-hint")
        elif s.k == 0 and state_rule == "readme":
            out.append("no-hint")
        else:
            out.append("sparse-hint")
    return np.asarray(out, dtype=object).astype(str)


def _check_openers(openers: Any) -> dict[str, str]:
    if openers is None:
        return dict(OPENERS)
    if not isinstance(openers, dict):
        raise TypeError(f"openers must be a dict from state to text, got {type(openers).__name__}")
    bad = sorted(set(openers) - set(STATES))
    if bad:
        raise ValueError(f"openers has keys {bad} that are not states {list(STATES)}")
    out = dict(OPENERS)
    for k, v in openers.items():
        out[k] = _check_text(v, f"openers[{k!r}]", allow_empty=True)
    return out


def _check_delimiters(delimiters: Any) -> tuple[str, str]:
    if not isinstance(delimiters, tuple) or len(delimiters) != 2 or not all(isinstance(d, str) for d in delimiters):
        raise TypeError(f"delimiters must be a pair of strings (before, after the thinking part), "
                        f"got {delimiters!r:.60}")
    return delimiters


def format_sft(problem: str, state: str, *, answer: str, hint: str = "", openers=None,
               delimiters: tuple[str, str] = DELIMITERS) -> dict[str, str]:
    """One fine-tuning example in the released Alpaca format, opened by its state's phrase.

    The output is ``before + thinking + after + answer`` with ``(before, after) = delimiters`` and the
    thinking part the state's opener followed by the hint (a space between them when both are
    non-empty): nothing for No-Hint, the minimal prefix for Sparse-Hint, the thinking model's whole
    trace for Full-Hint.

    Parameters
    ----------
    problem : str
        The problem (the instruction).
    state : {"no-hint", "sparse-hint", "full-hint"}
        The problem's state (:func:`hint_states`).
    answer : str
        What follows the thinking part: the instruct model's answer (No-Hint), its completion from the
        minimal prefix (Sparse-Hint), the thinking model's answer (Full-Hint).
    hint : str, default ""
        The minimal prefix (Sparse-Hint) or the whole trace (Full-Hint); must be empty for No-Hint.
    openers : dict, optional
        Replacements of :data:`OPENERS` by state (e.g. empty strings, or one reserved token each, for
        a small model's vocabulary).
    delimiters : (str, str), default ("<think>\\n", "\\n</think>\\n\\n")
        What encloses the thinking part (two empty strings for none).

    Returns
    -------
    dict
        ``{"instruction": problem, "input": "", "output": text}``.

    References
    ----------
    Fan, S. et al. (2026). Hint Tuning: less data makes better reasoners. arXiv:2605.08665 (the three
    openers: the README and ``construction/merge.py``).

    Examples
    --------
    >>> from learncore.reasoning import format_sft
    >>> format_sft("2+2?", "sparse-hint", answer="4", hint="Two and two.")["output"]
    '<think>\\nI may need some deep thinking. Two and two.\\n</think>\\n\\n4'
    >>> format_sft("abc", "no-hint", answer="abc=x", openers={"no-hint": ""}, delimiters=("", ""))["output"]
    'abc=x'
    """
    problem = _check_text(problem, "problem", allow_empty=True)
    state = check_choice(state, "state", STATES)
    answer = _check_text(answer, "answer", allow_empty=True)
    hint = _check_text(hint, "hint", allow_empty=True)
    if state == "no-hint" and hint:
        raise ValueError("hint must be empty for a no-hint example (the instruct model answered alone)")
    ops = _check_openers(openers)
    before, after = _check_delimiters(delimiters)
    opener = ops[state]
    thinking = opener + (" " if opener and hint else "") + hint
    return {"instruction": problem, "input": "", "output": before + thinking + after + answer}


@dataclass(frozen=True, repr=False)
class HintDataset(Result):
    """The Hint Tuning fine-tuning set (:func:`build_hint_dataset`).

    Attributes
    ----------
    instruction, output : tuple of str
        The examples (Alpaca format, ``input`` empty): :meth:`records` gives them as dicts.
    states : numpy.ndarray of str
        Each problem's state.
    k : numpy.ndarray of int
        Each problem's minimal prefix index (-1: none solved).
    hint_chars : numpy.ndarray of int
        The length in characters of each example's hint (0 for No-Hint).
    counts : dict
        Problems per state.
    state_rule : str
        "readme" or "released".
    n_nonmonotone : int
        Problems whose prefix search saw a shorter prefix solve while a longer one failed.

    Examples
    --------
    >>> from learncore.reasoning import build_hint_dataset, minimal_prefix
    >>> searches = [minimal_prefix(lambda p, pre, t=t: len(pre) >= t, "p", ["", "a", "ab"]) for t in (0, 2)]
    >>> ds = build_hint_dataset(["p", "p"], searches, think_traces=["ab"] * 2, think_answers=["x"] * 2,
    ...                         instruct_answers=["x", "y"])
    >>> ds.counts
    {'no-hint': 1, 'sparse-hint': 1, 'full-hint': 0}
    >>> ds.to_frame()[["state", "k"]].values.tolist()
    [['no-hint', 0], ['sparse-hint', 2]]
    """

    instruction: tuple
    output: tuple
    states: np.ndarray
    k: np.ndarray
    hint_chars: np.ndarray
    counts: dict
    state_rule: str
    n_nonmonotone: int

    def _repr_parts(self):
        return [("n", len(self.instruction))] + [(s.replace("-", "_"), self.counts[s]) for s in STATES] + [
            ("state_rule", self.state_rule)]

    def records(self) -> list[dict[str, str]]:
        """The examples as Alpaca records (``instruction``, ``input``, ``output``)."""
        return [{"instruction": i, "input": "", "output": o} for i, o in zip(self.instruction, self.output)]

    def summary(self) -> str:
        n = len(self.instruction)
        lines = [f"Hint Tuning data set: {n} problems (state rule: {self.state_rule})"]
        for s in STATES:
            lines.append(f"  {s:<12} {self.counts[s]:6d}  ({100 * self.counts[s] / n:5.1f}%)")
        sparse = self.states == "sparse-hint"
        if sparse.any():
            lines.append(f"  mean minimal prefix k (sparse-hint): {float(np.mean(self.k[sparse])):.2f}")
        lines.append(f"  non-monotone prefix searches: {self.n_nonmonotone}")
        return "\n".join(lines)

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"instruction": list(self.instruction), "input": "", "output": list(self.output),
                             "state": np.asarray(self.states, dtype=str), "k": np.asarray(self.k, dtype=int),
                             "hint_chars": np.asarray(self.hint_chars, dtype=int)})

    def _plot(self, ax=None, **kwargs):
        import matplotlib.pyplot as plt

        ax = ax if ax is not None else plt.subplots(figsize=(4, 3))[1]
        ax.bar(list(STATES), [self.counts[s] for s in STATES], color=["#4c72b0", "#dd8452", "#c44e52"])
        ax.set_ylabel("problems")
        ax.set_title(f"Hint Tuning states ({self.state_rule})")
        return ax


def _check_answers(x: Any, name: str, n: int) -> list[str]:
    if isinstance(x, (str, bytes)) or x is None or isinstance(x, dict):
        raise TypeError(f"{name} must be a sequence of strings, one per problem, got {type(x).__name__}")
    try:
        items = list(x)
    except TypeError:
        raise TypeError(f"{name} must be a sequence of strings, one per problem, got {type(x).__name__}") from None
    if len(items) != n:
        raise ValueError(f"{name} has {len(items)} entries, problems {n}: one per problem")
    for i, v in enumerate(items):
        if not isinstance(v, str):
            raise TypeError(f"{name} must hold strings; {name}[{i}] is {type(v).__name__}")
    return items


def build_hint_dataset(problems, searches, *, think_traces, think_answers, instruct_answers, think_correct=None,
                       state_rule: str = "readme", openers=None,
                       delimiters: tuple[str, str] = DELIMITERS) -> HintDataset:
    """The Hint Tuning fine-tuning set: each problem's state and its example.

    No-Hint examples answer with the instruct model's own answer (under ``state_rule="released"`` a
    problem is No-Hint because the thinking model solved it, and the instruct model's answer is used all
    the same, right or wrong, as the released ``merge.py`` does), Sparse-Hint ones think the minimal
    prefix and answer with the instruct model's completion from it (``PrefixSearch.completion``; when
    ``solve`` returned a bool only the completion is unknown and the thinking model's answer stands in),
    Full-Hint ones think the thinking model's whole trace and give its answer (:func:`format_sft`).

    Parameters
    ----------
    problems : sequence of str
        The problems.
    searches : sequence of PrefixSearch
        The prefix search of each problem (:func:`minimal_prefix`).
    think_traces, think_answers, instruct_answers : sequence of str
        The thinking model's trace and answer, and the instruct model's answer without a prefix.
    think_correct : array_like of bool, optional
        The thinking model's correctness (needed by ``state_rule="released"``).
    state_rule : {"readme", "released"}, default "readme"
        The rule that assigns No-Hint (:func:`hint_states`).
    openers : dict, optional
        Replacements of the state openers (:func:`format_sft`).
    delimiters : (str, str), default ("<think>\\n", "\\n</think>\\n\\n")
        What encloses the thinking part.

    Returns
    -------
    HintDataset
        The examples, states, minimal prefixes and the count of non-monotone searches.

    References
    ----------
    Fan, S. et al. (2026). Hint Tuning: less data makes better reasoners. arXiv:2605.08665.

    Examples
    --------
    >>> from learncore.reasoning import build_hint_dataset, cumulative_prefixes, minimal_prefix, split_trace
    >>> traces = ["ab|c|d", "abc|ad|e", "abcd|bd|c|b"]
    >>> problems = ["ab", "abc", "abcd"]
    >>> solve = lambda problem, prefix: prefix.count("|") >= len(problem) - 2   # a fake instruct model
    >>> searches = [minimal_prefix(solve, p, cumulative_prefixes(split_trace(t, "|")))
    ...             for p, t in zip(problems, traces)]
    >>> ds = build_hint_dataset(problems, searches, think_traces=traces,
    ...                         think_answers=["d", "e", "b"], instruct_answers=["d", "x", "x"],
    ...                         openers={s: "" for s in ("no-hint", "sparse-hint", "full-hint")},
    ...                         delimiters=("", "="))
    >>> ds.states.tolist()
    ['no-hint', 'sparse-hint', 'sparse-hint']
    >>> ds.output
    ('=d', 'abc|ad=e', 'abcd|bd|c=b')
    """
    probs = _check_strings(problems, "problems")
    items = _check_searches(searches)
    n = len(probs)
    if len(items) != n:
        raise ValueError(f"searches has {len(items)} entries, problems {n}: one search per problem")
    traces = _check_answers(think_traces, "think_traces", n)
    t_ans = _check_answers(think_answers, "think_answers", n)
    i_ans = _check_answers(instruct_answers, "instruct_answers", n)
    for i, (p, s) in enumerate(zip(probs, items)):
        if s.problem != p:
            raise ValueError(f"searches[{i}] is the search of problem {s.problem!r:.40}, not of problems[{i}] "
                             f"= {p!r:.40}")
    states = hint_states(items, think_correct=think_correct, state_rule=state_rule)
    ops = _check_openers(openers)
    delims = _check_delimiters(delimiters)
    outputs, hints = [], []
    for i, (p, s, st) in enumerate(zip(probs, items, states)):
        if st == "no-hint":
            hint, answer = "", i_ans[i]
        elif st == "sparse-hint":
            hint = s.prefix
            answer = s.completion if s.completion is not None else t_ans[i]
        else:
            hint, answer = traces[i], t_ans[i]
        outputs.append(format_sft(p, st, answer=answer, hint=hint, openers=ops, delimiters=delims)["output"])
        hints.append(len(hint))
    counts = {s: int(np.sum(states == s)) for s in STATES}
    ks = np.asarray([-1 if s.k is None else s.k for s in items], dtype=np.int64)
    return HintDataset(instruction=tuple(probs), output=tuple(outputs), states=states, k=ks,
                       hint_chars=np.asarray(hints, dtype=np.int64), counts=counts, state_rule=state_rule,
                       n_nonmonotone=int(sum(not s.monotone for s in items)))


# --------------------------------------------------------------------------------------------------------
# token reduction

@dataclass(frozen=True, repr=False)
class TokenReduction(Result):
    """Token reduction 1 - sum(new) / sum(base) with a paired Fieller interval, and the accuracy change
    (:func:`token_reduction`).

    Attributes
    ----------
    estimate : float
        1 - sum(len_new) / sum(len_base).
    conf_low, conf_high : float
        The interval's ends: 1 minus the Fieller set's ends of the ratio of means (``kind`` as in
        :class:`statcore.RatioCI`: "exclusive" means the two rays (-inf, conf_low] U [conf_high, inf)).
    kind : str
        "bounded", "exclusive" or "unbounded".
    conf_level : float
    ratio : statcore.RatioCI
        The interval of mean(new) / mean(base) it comes from.
    n : int
        Problems.
    sum_base, sum_new : float
        Total tokens of each model.
    accuracy_base, accuracy_new : float
        Accuracies (NaN when no correctness was given).
    accuracy_test : HTest or None
        McNemar's test of equal paired accuracy (None without correctness vectors, or with no
        discordant pair: then the accuracies are equal on every problem).

    Examples
    --------
    >>> from learncore.reasoning import token_reduction
    >>> res = token_reduction([100, 90, 120, 80], [50, 60, 40, 70])
    >>> round(res.estimate, 4), res.kind
    (0.4359, 'bounded')
    """

    estimate: float
    conf_low: float
    conf_high: float
    kind: str
    conf_level: float
    ratio: RatioCI
    n: int
    sum_base: float
    sum_new: float
    accuracy_base: float
    accuracy_new: float
    accuracy_test: HTest | None

    def _repr_parts(self):
        return [("estimate", self.estimate), ("conf_low", self.conf_low), ("conf_high", self.conf_high),
                ("n", self.n)]

    def summary(self) -> str:
        pct = int(round(100 * self.conf_level))
        lines = [f"Token reduction 1 - sum(new)/sum(base) over {self.n} paired problems",
                 f"  tokens: base {self.sum_base:g}, new {self.sum_new:g}",
                 f"  reduction {self.estimate:.4f}; {pct}% paired Fieller set: {self._set_text()}"]
        if np.isfinite(self.accuracy_base):
            lines.append(f"  accuracy: base {self.accuracy_base:.4f}, new {self.accuracy_new:.4f}, "
                         f"change {self.accuracy_new - self.accuracy_base:+.4f}")
            if self.accuracy_test is None:
                lines.append("  no discordant pair: McNemar's test is undefined (the two agree on every problem)")
            else:
                lines.append("")
                lines.append(self.accuracy_test.summary())
        return "\n".join(lines)

    def _set_text(self) -> str:
        if self.kind == "bounded":
            return f"[{self.conf_low:.4f}, {self.conf_high:.4f}]"
        if self.kind == "exclusive":
            return (f"(-inf, {self.conf_low:.4f}] U [{self.conf_high:.4f}, inf) (two rays: the base length's "
                    f"mean is not clearly above 0)")
        return "the whole line (the base length's mean is not clearly above 0)"

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"estimate": [self.estimate], "conf_low": [self.conf_low],
                             "conf_high": [self.conf_high], "kind": [self.kind], "conf_level": [self.conf_level],
                             "n": [self.n], "sum_base": [self.sum_base], "sum_new": [self.sum_new],
                             "accuracy_base": [self.accuracy_base], "accuracy_new": [self.accuracy_new],
                             "statistic": [np.nan if self.accuracy_test is None else self.accuracy_test.statistic],
                             "p_value": [np.nan if self.accuracy_test is None else self.accuracy_test.p_value]})


def _pow2(x: np.ndarray) -> int:
    """The exponent e with x * 2**-e of order one (exact scaling; 0 for an all-zero vector)."""
    m = float(np.max(x))
    return 0 if m == 0 else int(np.frexp(m)[1])


def token_reduction(len_base, len_new, *, correct_base=None, correct_new=None, conf_level: float = 0.95,
                    exact: bool = False) -> TokenReduction:
    """Hint Tuning's token reduction, 1 - sum(new) / sum(base), with a paired Fieller interval, and
    McNemar's test of the accuracy change.

    The ratio sum(new) / sum(base) is the ratio of the two means over the same problems; its Fieller set
    is :func:`statcore.ratio_ci` (paired: the t test of new - rho * base), and the reduction's set is 1
    minus it. With correctness vectors, the accuracy change is tested by McNemar's test of the paired
    2x2 table (:func:`statcore.mcnemar_test`: rows the base model right/wrong, columns the new one).

    Parameters
    ----------
    len_base, len_new : array_like
        Tokens generated per problem by the base (thinking) model and the new (tuned) model, paired.
    correct_base, correct_new : array_like of bool, optional
        Whether each model's answer to each problem is right (both or neither).
    conf_level : float, default 0.95
        The interval's coverage.
    exact : bool, default False
        McNemar's exact (binomial) test instead of the chi-squared test with continuity correction.

    Returns
    -------
    TokenReduction
        ``estimate``, ``conf_low``, ``conf_high``, ``kind``, the ratio's :class:`statcore.RatioCI`, the
        accuracies and McNemar's ``HTest``.

    References
    ----------
    Fan, S. et al. (2026). Hint Tuning: less data makes better reasoners. arXiv:2605.08665 (token
    reduction). Fieller, E. C. (1954). Some problems in interval estimation. *JRSS B* 16, 175-185.
    McNemar, Q. (1947). *Psychometrika* 12, 153-157.

    Examples
    --------
    >>> from learncore.reasoning import token_reduction
    >>> base = [120, 80, 200, 150, 90, 110]
    >>> new = [60, 70, 90, 100, 40, 80]
    >>> res = token_reduction(base, new)
    >>> round(res.estimate, 4), res.kind
    (0.4133, 'bounded')
    >>> round(res.conf_low, 4), round(res.conf_high, 4)
    (0.1896, 0.5547)
    """
    base = _check_lengths(len_base, "len_base")
    new = _check_lengths(len_new, "len_new")
    if base.size != new.size:
        raise ValueError(f"len_base and len_new are paired: they have {base.size} and {new.size} entries")
    if not np.any(base > 0):
        raise ValueError("len_base is all zero: the reduction 1 - sum(new)/sum(base) is undefined")
    conf_level = check_probability(conf_level, "conf_level", open_left=True, open_right=True)
    if not isinstance(exact, (bool, np.bool_)):
        raise TypeError(f"exact must be True or False, got {exact!r}")
    if (correct_base is None) != (correct_new is None):
        raise ValueError("give both correct_base and correct_new, or neither")
    # exact power-of-two scaling keeps huge or tiny counts away from overflow; the ratio scales back exactly
    eb, en = _pow2(base), _pow2(new)
    b, nw = np.ldexp(base, -eb), np.ldexp(new, -en)
    scaled = ratio_ci(nw, b, paired=True, method="fieller", conf_level=conf_level)
    f = 2.0 ** (en - eb)
    # back to the counts' scale: estimate, ends and standard error scale by f, g and df do not
    ratio = dataclasses.replace(scaled, estimate=scaled.estimate * f, conf_low=scaled.conf_low * f,
                                conf_high=scaled.conf_high * f, std_error=scaled.std_error * f)
    est = 1.0 - float(np.sum(nw) / np.sum(b)) * f
    r_low, r_high = ratio.conf_low, ratio.conf_high
    conf_low, conf_high = 1.0 - r_high, 1.0 - r_low
    acc_b = acc_n = float("nan")
    test = None
    if correct_base is not None:
        cb = _check_bools(correct_base, "correct_base", base.size)
        cn = _check_bools(correct_new, "correct_new", base.size)
        acc_b, acc_n = float(cb.mean()), float(cn.mean())
        table = np.array([[np.sum(cb & cn), np.sum(cb & ~cn)], [np.sum(~cb & cn), np.sum(~cb & ~cn)]])
        if table[0, 1] + table[1, 0] > 0:
            test = mcnemar_test(table, exact=bool(exact))
    return TokenReduction(estimate=est, conf_low=float(conf_low), conf_high=float(conf_high), kind=scaled.kind,
                          conf_level=conf_level, ratio=ratio, n=int(base.size), sum_base=float(np.sum(base)),
                          sum_new=float(np.sum(new)), accuracy_base=acc_b, accuracy_new=acc_n, accuracy_test=test)
