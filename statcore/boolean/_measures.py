"""Sensitivity, block sensitivity, fractional block sensitivity, fractional certificate complexity
and certificate complexity of a Boolean function at one input, exactly.

Inputs are indexed by the integer whose binary digits are the bits, the first bit most significant
(``itertools.product((0, 1), repeat=n)`` order); a block B of bits is the integer mask with the bits of B
set. B is sensitive at x when f(x xor B) != f(x). Every measure needs only the minimal sensitive
blocks (no sensitive proper subset): a maximum packing of disjoint sensitive blocks can use minimal
ones, the fractional packing LP likewise, and a set S of bits is a certificate of x (every y agreeing
with x on S has f(y) = f(x)) exactly when S meets every sensitive block, hence every minimal one.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._checks.public import public_function
from .._result import Result

__all__ = ["boolean_measures", "BooleanMeasures", "MAX_BITS"]

#: the largest number of bits enumerated (2**12 inputs, at most C(12, 6) = 924 minimal blocks)
MAX_BITS = 12


def _popcount(a: np.ndarray) -> np.ndarray:
    a = a.astype(np.int64)
    c = np.zeros(a.shape, dtype=np.int64)
    while np.any(a):
        c += a & 1
        a = a >> 1
    return c


def _as_bits(x, n) -> tuple[int, ...]:
    if isinstance(x, (str, bytes)):
        raise TypeError(f"x must be a sequence of bits (0 or 1), got {type(x).__name__} {x!r}")
    try:
        arr = np.asarray(x)
    except Exception:  # pragma: no cover (a ragged object)
        raise TypeError(f"x must be a sequence of bits (0 or 1), got {type(x).__name__}") from None
    if arr.dtype.kind not in "biuf" or arr.dtype.kind == "c":
        raise TypeError(f"x must be a sequence of bits (0 or 1), got an array of dtype {arr.dtype}")
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"x must be a non-empty one-dimensional sequence of bits, got shape {arr.shape}")
    if not np.all((arr == 0) | (arr == 1)):
        bad = arr[~((arr == 0) | (arr == 1))][0]
        raise ValueError(f"x must hold bits 0 or 1, found {bad!r}")
    bits = tuple(int(b) for b in arr)
    if n is not None:
        if isinstance(n, (bool, np.bool_)) or not isinstance(n, numbers.Integral):
            raise TypeError(f"n must be an integer (the number of bits), got {type(n).__name__}")
        if int(n) != len(bits):
            raise ValueError(f"n = {n} but x has {len(bits)} bits")
    if len(bits) > MAX_BITS:
        raise ValueError(f"x has {len(bits)} bits: boolean_measures enumerates all 2**n inputs and supports "
                         f"n <= {MAX_BITS}")
    return bits


def _truth_table(f, n: int) -> np.ndarray:
    """The 2**n values of f (0 or 1) in index order, from a callable or a table."""
    N = 1 << n
    if callable(f):
        grid = ((np.arange(N)[:, None] >> np.arange(n - 1, -1, -1)[None, :]) & 1)
        vals = []
        for row in grid:
            v = f(tuple(int(b) for b in row))
            if isinstance(v, (str, bytes)) or v is None:
                raise TypeError(f"f must return 0/1 or a boolean, returned {v!r} at input {tuple(row)}")
            try:
                fv = float(v)
            except (TypeError, ValueError):
                raise TypeError(f"f must return 0/1 or a boolean, returned {type(v).__name__} at input "
                                f"{tuple(row)}") from None
            if fv not in (0.0, 1.0):
                raise ValueError(f"f must return 0/1 or a boolean, returned {v!r} at input {tuple(row)}")
            vals.append(fv)
        return np.asarray(vals, dtype=np.int8)
    if isinstance(f, (str, bytes)) or f is None:
        raise TypeError(f"f must be a callable on a tuple of n bits or a truth table of length 2**n, got "
                        f"{type(f).__name__}")
    arr = np.asarray(f)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"f: a truth table must hold 0/1 or booleans, got dtype {arr.dtype}")
    if arr.ndim != 1:
        raise ValueError(f"f: a truth table must be one-dimensional (length 2**n), got shape {arr.shape}")
    if arr.size != N:
        raise ValueError(f"f: a truth table of a function of n = {n} bits has length 2**{n} = {N}, got {arr.size}")
    if not np.all((arr == 0) | (arr == 1)):
        bad = arr[~((arr == 0) | (arr == 1))][0]
        raise ValueError(f"f: a truth table must hold 0/1 or booleans, found {bad!r}")
    return arr.astype(np.int8)


def _minimal_blocks(sensitive: np.ndarray) -> np.ndarray:
    """The minimal elements (under inclusion) of a set of masks, by increasing size."""
    if sensitive.size == 0:
        return sensitive
    sizes = _popcount(sensitive)
    mins = np.empty(0, dtype=np.int64)
    for k in np.unique(sizes):
        cand = sensitive[sizes == k]
        if mins.size:
            covered = ((cand[:, None] & mins[None, :]) == mins[None, :]).any(axis=1)
            cand = cand[~covered]
        mins = np.concatenate([mins, cand])
    return mins


def _max_packing(blocks: np.ndarray, n: int) -> tuple[int, list[int]]:
    """The largest number of pairwise disjoint blocks, by dynamic programming over the sets of free
    bits: best(S) = max(best(S - {i}), 1 + best(S - B) over blocks B with i in B within S), i the
    lowest bit of S (either no block uses it, or exactly one does). Exact."""
    N = 1 << n
    best = np.zeros(N, dtype=np.int64)
    choice = np.full(N, -1, dtype=np.int64)
    by_bit = [blocks[(blocks >> i) & 1 == 1] for i in range(n)]
    for S in range(1, N):
        i = (S & -S).bit_length() - 1
        rest = S & ~(1 << i)
        b, c = best[rest], -1
        cand = by_bit[i]
        if cand.size:
            cand = cand[(cand & ~S) == 0]
            if cand.size:
                vals = best[S & ~cand] + 1
                j = int(vals.argmax())
                if vals[j] > b:
                    b, c = int(vals[j]), int(cand[j])
        best[S], choice[S] = b, c
    packing, S = [], N - 1
    while S:
        if choice[S] >= 0:
            packing.append(int(choice[S]))
            S &= ~int(choice[S])
        else:
            S &= ~(S & -S)
    return int(best[N - 1]), packing


def _min_hitting_set(blocks: np.ndarray, n: int) -> int:
    """The smallest set of bits meeting every block (a minimum certificate), by increasing size."""
    if blocks.size == 0:
        return 0
    masks = np.arange(1 << n, dtype=np.int64)
    sizes = _popcount(masks)
    for k in range(1, n + 1):
        cand = masks[sizes == k]
        hits = ((cand[:, None] & blocks[None, :]) != 0).all(axis=1)
        if hits.any():
            return int(cand[hits.argmax()])
    raise AssertionError("the full set of bits meets every non-empty block")  # pragma: no cover


def _lp(blocks: np.ndarray, n: int) -> tuple[float, np.ndarray, float, np.ndarray]:
    """The fractional packing LP (max sum w_B, sum_{B ∋ i} w_B <= 1) and its dual, the fractional
    covering LP (min sum v_i, sum_{i in B} v_i >= 1), both solved by HiGHS."""
    from scipy.optimize import linprog

    A = ((blocks[None, :] >> np.arange(n - 1, -1, -1)[:, None]) & 1).astype(float)  # bits x blocks
    m = blocks.size
    pack = linprog(-np.ones(m), A_ub=A, b_ub=np.ones(n), bounds=(0, None), method="highs")
    cover = linprog(np.ones(n), A_ub=-A.T, b_ub=-np.ones(m), bounds=(0, None), method="highs")
    if pack.status != 0 or cover.status != 0:  # pragma: no cover (both LPs are feasible and bounded)
        raise RuntimeError(f"HiGHS failed: {pack.message}; {cover.message}")
    return float(-pack.fun), np.asarray(pack.x), float(cover.fun), np.asarray(cover.x)


def _bits_of(mask: int, n: int) -> tuple[int, ...]:
    return tuple(i for i in range(n) if (mask >> (n - 1 - i)) & 1)


@dataclass(frozen=True, eq=False, repr=False)
class BooleanMeasures(Result):
    """Query measures of a Boolean function at an input (:func:`boolean_measures`).

    Attributes
    ----------
    sensitivity : int
        s(f, x): the bits whose flip changes f.
    block_sensitivity : int
        bs(f, x): the most pairwise disjoint sensitive blocks.
    fractional_block_sensitivity : float
        fbs(f, x): the fractional packing LP's value.
    fractional_certificate : float
        FC(f, x): the fractional certificate complexity, the dual LP's value (equal to fbs).
    certificate_complexity : int
        C(f, x): the fewest bits whose values at x fix f.
    n : int
    x : tuple of int
    value : int
        f(x).
    minimal_blocks : tuple of tuple of int
        The minimal sensitive blocks (bit positions, 0-based).
    block_weights : numpy.ndarray
        An optimal fractional packing, one weight per minimal block.
    bit_weights : numpy.ndarray
        An optimal fractional certificate, one weight per bit.
    packing : tuple of tuple of int
        A maximum set of disjoint sensitive blocks.
    certificate : tuple of int
        A minimum certificate (bit positions).

    Examples
    --------
    >>> from statcore import boolean_measures
    >>> res = boolean_measures(lambda b: int(sum(b) >= 2), (0, 0, 0))
    >>> res.minimal_blocks
    ((1, 2), (0, 2), (0, 1))
    """

    sensitivity: int
    block_sensitivity: int
    fractional_block_sensitivity: float
    fractional_certificate: float
    certificate_complexity: int
    n: int
    x: tuple
    value: int
    minimal_blocks: tuple
    block_weights: np.ndarray
    bit_weights: np.ndarray
    packing: tuple
    certificate: tuple

    def _repr_parts(self):
        return [("s", self.sensitivity), ("bs", self.block_sensitivity), ("fbs", self.fractional_block_sensitivity),
                ("FC", self.fractional_certificate), ("C", self.certificate_complexity), ("n", self.n)]

    def summary(self) -> str:
        x = "".join(map(str, self.x))
        lines = [f"Query measures of f at x = {x} (n = {self.n}, f(x) = {self.value})", ""]
        lines += [f"  {k:<34}{v}" for k, v in (
            ("sensitivity s", self.sensitivity), ("block sensitivity bs", self.block_sensitivity),
            ("fractional block sensitivity fbs", f"{self.fractional_block_sensitivity:.6g}"),
            ("fractional certificate FC", f"{self.fractional_certificate:.6g}"),
            ("certificate complexity C", self.certificate_complexity))]
        lines += ["", f"minimal sensitive blocks: {len(self.minimal_blocks)}; a minimum certificate: bits "
                      f"{list(self.certificate)}"]
        return "\n".join(lines) + "\n"

    def to_frame(self) -> pd.DataFrame:
        """One row per measure: ``measure`` (s, bs, fbs, FC, C) and ``value``."""
        return pd.DataFrame({"measure": ["s", "bs", "fbs", "FC", "C"],
                             "value": [float(self.sensitivity), float(self.block_sensitivity),
                                       self.fractional_block_sensitivity, self.fractional_certificate,
                                       float(self.certificate_complexity)]})


@public_function(data=("f", "x"), nan_policy=None)
def boolean_measures(f, x, *, n=None):
    """Sensitivity, block sensitivity, fractional block sensitivity, fractional certificate complexity
    and certificate complexity of a Boolean function at an input, exactly.

    A block B of bits is sensitive at x when flipping the bits of B changes f. s(f, x) counts the
    sensitive single bits; bs(f, x) is the most pairwise disjoint sensitive blocks (an exact maximum
    packing of the minimal sensitive blocks, by dynamic programming over sets of bits); fbs(f, x) the
    value of the LP max sum_B w_B subject to sum_{B containing i} w_B <= 1 for every bit i, w >= 0;
    FC(f, x) that of its dual, min sum_i v_i subject to sum_{i in B} v_i >= 1 for every sensitive B,
    v >= 0 (equal to fbs by LP duality; both solved by HiGHS); and C(f, x) the fewest bits whose
    values at x fix f (the smallest set of bits meeting every sensitive block, by enumeration). Always
    s <= bs <= fbs = FC <= C.

    Why here: these are not statistics but a small exact-LP utility that the AI-debate analyses need
    (how many bits a judge must query to check a claim: fbs bounds it, Aaronson-style); statcore holds
    it because it is numpy/scipy only and learncore uses statcore's public API alone.

    Parameters
    ----------
    f : callable or array_like
        The function: a callable taking a tuple of n bits (0/1) and returning 0/1 or a boolean, or a
        truth table of length 2**n whose entry ``int("".join(map(str, bits)), 2)`` is f(bits) (the first
        bit most significant: ``itertools.product((0, 1), repeat=n)`` order).
    x : sequence of int
        The input, n bits (0 or 1); n <= 12.
    n : int, optional
        The number of bits, checked against ``len(x)`` (issue 36 writes ``boolean_measures(f, n, x)``;
        n is keyword-only here because x already fixes it and statcore's data order puts ``x`` before
        ``n``).

    Returns
    -------
    BooleanMeasures
        ``sensitivity``, ``block_sensitivity``, ``fractional_block_sensitivity``,
        ``fractional_certificate``, ``certificate_complexity`` and the witnesses (minimal blocks, an
        optimal packing and covering, a maximum disjoint packing, a minimum certificate).

    Raises
    ------
    ValueError
        When x has more than 12 bits, holds a value other than 0 or 1, when a truth table's length is
        not 2**n or f returns something other than 0/1.

    References
    ----------
    Nisan, N. (1991). CREW PRAMs and decision trees. *SIAM J Comput* 20, 999-1007 (block sensitivity).
    Tal, A. (2013). Properties and applications of Boolean function composition. ITCS (fractional
    block sensitivity and certificate complexity). Buhrman, H. and de Wolf, R. (2002). Complexity
    measures and decision tree complexity: a survey. *Theor Comput Sci* 288, 21-43.

    Examples
    --------
    >>> from statcore import boolean_measures
    >>> maj3 = lambda b: int(sum(b) >= 2)
    >>> boolean_measures(maj3, (0, 0, 0)).to_frame()["value"].round(6).tolist()
    [0.0, 1.0, 1.5, 1.5, 2.0]
    >>> res = boolean_measures([0] + [1] * 15, (0, 0, 0, 0))      # OR of four bits, as a truth table
    >>> res.sensitivity, res.block_sensitivity, res.certificate_complexity
    (4, 4, 4)
    """
    bits = _as_bits(x, n)
    n = len(bits)
    T = _truth_table(f, n)
    ix = int("".join(map(str, bits)), 2)
    masks = np.arange(1, 1 << n, dtype=np.int64)
    sensitive = masks[T[ix ^ masks] != T[ix]]
    blocks = _minimal_blocks(sensitive)
    s = int(np.sum(_popcount(blocks) == 1))
    if blocks.size == 0:
        bs, packing, fbs, w, fc, v, cert = 0, [], 0.0, np.empty(0), 0.0, np.zeros(n), 0
    else:
        bs, packing = _max_packing(blocks, n)
        fbs, w, fc, v = _lp(blocks, n)
        cert = _min_hitting_set(blocks, n)
    return BooleanMeasures(sensitivity=s, block_sensitivity=bs, fractional_block_sensitivity=fbs,
                           fractional_certificate=fc, certificate_complexity=int(_popcount(np.array([cert]))[0]),
                           n=n, x=bits, value=int(T[ix]), minimal_blocks=tuple(_bits_of(int(b), n) for b in blocks),
                           block_weights=w, bit_weights=v, packing=tuple(_bits_of(b, n) for b in packing),
                           certificate=_bits_of(cert, n))
