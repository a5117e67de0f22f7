"""statcore.boolean_measures against hand-computed oracles and brute force from the definitions
(every collection of disjoint sensitive blocks, every certificate by checking all inputs, the LP
over all sensitive blocks rather than the minimal ones), and s <= bs <= fbs = FC <= C on random
truth tables."""
import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from statcore import boolean_measures


def maj(k):
    return lambda b: int(sum(b) > k // 2)


def _table(f, n):
    return [f(b) for b in itertools.product((0, 1), repeat=n)]


# (s, bs, fbs, FC, C), checked by hand:
# MAJ3 at 000: no bit flips the value, the minimal sensitive blocks are the three pairs, any two of
#   which meet (bs = 1); weight 1/2 on each pair packs 3/2, 1/2 on each bit covers every pair (3/2);
#   a certificate needs two zeros (C = 2).
# MAJ3 at 001: flipping bit 1 or 2 gives MAJ = 1, flipping bit 3 gives 000 (still 0): s = 2; {1}, {2}
#   are disjoint (bs = fbs = FC = 2); the two zeros certify (C = 2). The issue's oracle is right.
# OR4 at 0000: every bit is sensitive: all five are 4.
# MAJ5 at 00000: the minimal blocks are the ten triples, any two meet (bs = 1); each bit lies in six
#   triples: 1/6 on each packs 10/6 = 5/3, 1/3 on each bit covers (5/3); three zeros certify (C = 3).
ORACLES = [
    (maj(3), (0, 0, 0), (0, 1, Fraction(3, 2), Fraction(3, 2), 2)),
    (maj(3), (0, 0, 1), (2, 2, 2, 2, 2)),
    (lambda b: int(any(b)), (0, 0, 0, 0), (4, 4, 4, 4, 4)),
    (maj(5), (0, 0, 0, 0, 0), (0, 1, Fraction(5, 3), Fraction(5, 3), 3)),
]


@pytest.mark.parametrize("f, x, expected", ORACLES, ids=["MAJ3@000", "MAJ3@001", "OR4@0000", "MAJ5@00000"])
def test_issue_oracles(f, x, expected):
    for given_f in (f, _table(f, len(x))):
        res = boolean_measures(given_f, x)
        got = (res.sensitivity, res.block_sensitivity, res.fractional_block_sensitivity, res.fractional_certificate,
               res.certificate_complexity)
        assert got[0] == expected[0] and got[1] == expected[1] and got[4] == expected[4]
        assert got[2] == pytest.approx(float(expected[2]), abs=1e-9)
        assert got[3] == pytest.approx(float(expected[3]), abs=1e-9)


def _brute(T, x):
    """All five measures from the definitions, by enumeration (n <= 4)."""
    n = len(x)
    idx = {b: i for i, b in enumerate(itertools.product((0, 1), repeat=n))}
    fx = T[idx[x]]
    flip = lambda y, B: tuple(v ^ (i in B) for i, v in enumerate(y))  # noqa: E731
    blocks = [frozenset(B) for k in range(1, n + 1) for B in itertools.combinations(range(n), k)
              if T[idx[flip(x, B)]] != fx]
    s = sum(len(B) == 1 for B in blocks)
    bs = 0
    for k in range(1, len(blocks) + 1):
        if any(all(not (a & b) for a, b in itertools.combinations(c, 2)) for c in itertools.combinations(blocks, k)):
            bs = k
        else:
            break
    C = next(k for k in range(n + 1) for S in itertools.combinations(range(n), k)
             if all(T[idx[y]] == fx for y in idx if all(y[i] == x[i] for i in S)))
    if blocks:
        A = np.array([[i in B for B in blocks] for i in range(n)], dtype=float)
        fbs = -linprog(-np.ones(len(blocks)), A_ub=A, b_ub=np.ones(n), bounds=(0, None), method="highs").fun
    else:
        fbs = 0.0
    return s, bs, fbs, C


def test_against_brute_force_on_all_functions_of_three_bits_and_random_four_bit_ones():
    rng = np.random.default_rng(4)
    # every function of three bits at 000 covers every (function, input) pair: g(y) = f(y xor x)
    cases = [(list(t), (0, 0, 0)) for t in itertools.product((0, 1), repeat=8)]
    cases += [(list(rng.integers(0, 2, 16)), tuple(rng.integers(0, 2, 4))) for _ in range(40)]
    for T, x in cases:
        res = boolean_measures(T, x)
        s, bs, fbs, C = _brute(T, x)
        assert (res.sensitivity, res.block_sensitivity, res.certificate_complexity) == (s, bs, C), (T, x)
        assert res.fractional_block_sensitivity == pytest.approx(fbs, abs=1e-9)


def test_witnesses_are_valid():
    res = boolean_measures(maj(5), (0, 1, 0, 1, 0))
    f = maj(5)
    x = res.x
    for B in res.packing:
        assert f(tuple(v ^ (i in B) for i, v in enumerate(x))) != f(x)
    assert len({i for B in res.packing for i in B}) == sum(len(B) for B in res.packing)
    assert len(res.packing) == res.block_sensitivity
    assert len(res.certificate) == res.certificate_complexity
    for y in itertools.product((0, 1), repeat=5):
        if all(y[i] == x[i] for i in res.certificate):
            assert f(y) == f(x)
    assert res.block_weights.sum() == pytest.approx(res.fractional_block_sensitivity, abs=1e-9)
    assert res.bit_weights.sum() == pytest.approx(res.fractional_certificate, abs=1e-9)


def test_constant_function_and_twelve_bits():
    res = boolean_measures(lambda b: 1, (0, 1, 1))
    assert res.to_frame()["value"].tolist() == [0.0] * 5
    big = boolean_measures(lambda b: int(sum(b) >= 7), (0,) * 12)
    assert (big.block_sensitivity, big.certificate_complexity) == (1, 6)
    assert big.fractional_block_sensitivity == pytest.approx(12 / 7, abs=1e-9)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.integers(1, 6).flatmap(lambda n: st.tuples(st.lists(st.integers(0, 1), min_size=2 ** n, max_size=2 ** n),
                                                       st.lists(st.integers(0, 1), min_size=n, max_size=n))))
def test_s_le_bs_le_fbs_eq_fc_le_c(case):
    T, x = case
    r = boolean_measures(T, x)
    tol = 1e-9
    assert r.sensitivity <= r.block_sensitivity <= r.fractional_block_sensitivity + tol
    assert r.fractional_block_sensitivity == pytest.approx(r.fractional_certificate, abs=tol)
    assert r.fractional_certificate <= r.certificate_complexity + tol


@pytest.mark.parametrize("f, x, kwargs, exc, match", [
    ([0, 1, 1], (0, 1), {}, ValueError, "f: a truth table of a function of n = 2 bits has length"),
    ([0, 1, 1, 2], (0, 1), {}, ValueError, "f: a truth table must hold 0/1"),
    (lambda b: 0, (0,) * 13, {}, ValueError, "n <= 12"),
    (lambda b: 0, (0, 2), {}, ValueError, "x must hold bits"),
    (lambda b: 0, (0, 1), {"n": 3}, ValueError, "n = 3 but x has 2 bits"),
    (lambda b: 0.5, (0, 1), {}, ValueError, "f must return 0/1"),
    (lambda b: "yes", (0, 1), {}, TypeError, "f must return 0/1"),
    ("0110", (0, 1), {}, TypeError, "f must be a callable"),
    (lambda b: 0, "01", {}, TypeError, "x must be a sequence of bits"),
])
def test_bad_input(f, x, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        boolean_measures(f, x, **kwargs)
