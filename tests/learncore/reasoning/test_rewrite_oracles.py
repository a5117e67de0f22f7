"""Oracles of the rewrite environment (issue 35, section 1).

- Brute force: a search over every sequence of primitive steps from u (|u| <= 8), tracking which
  blocks of u each symbol was merged from, gives the words reachable in exactly |u| - |v| steps and,
  for each, every block structure (segmentation) that reaches it. ``audit_step`` must agree on
  validity (reachable iff valid), on the set of feasible labels, and its canonical segmentation must
  be the brute-force optimum (fewest non-trivial segments, then leftmost-longest).
  Why "reachable" and "valid" coincide: every primitive step shortens the word by one, so v is
  reached, if at all, in exactly |u| - |v| steps, each symbol of the result being the product of the
  contiguous block of u merged into it (any bracketing: associativity); conversely, reducing each
  segment of a valid segmentation reaches v. The search computes the words by primitive steps, not
  by block products, so it checks this argument instead of assuming it.
- Hand cases in Z_5 from u = "1234".
- Confluence: every reduction order ends in the product, itself checked against an independent
  computation (the sum mod m; the composition of permutations for S3).
"""
import itertools

import numpy as np
import pytest

from learncore.reasoning import Monoid, audit_step, primitive_chain, primitive_step

Z3, Z5, S3 = Monoid.cyclic(3), Monoid.cyclic(5), Monoid.s3()
# the full transformation monoid of a two-point set: i identity, x and y the constants 0 and 1, z the
# swap; not a group, not commutative (a left-zero-like part: x*anything = x)
_T2 = [(0, 1), (0, 0), (1, 1), (1, 0)]
T2 = Monoid([[_T2.index(tuple(f[g[t]] for t in range(2))) for g in _T2] for f in _T2], symbols="ixyz")
MONOIDS = {"Z3": Z3, "Z5": Z5, "S3": S3, "T2": T2}


def _label(lengths):
    """The label of a segmentation by the definitions of the issue (written independently of the DP)."""
    big = [n for n in lengths if n >= 2]
    if len(big) == 0:
        return "no-op"
    if len(big) == 1:
        return "atomic" if big[0] == 2 else "sequential"
    if all(n == 2 for n in big):
        return "parallel"
    return "mixed"


def _search(u, monoid):
    """Breadth-first search over primitive steps: for each number of steps k, the map from every
    reachable word to the set of block structures (tuples of block lengths) that reach it."""
    level = {(u, (1,) * len(u))}
    out = [level]
    for _ in range(len(u) - 1):
        nxt = set()
        for word, blocks in level:
            for i in range(len(word) - 1):
                merged = blocks[:i] + (blocks[i] + blocks[i + 1],) + blocks[i + 2:]
                nxt.add((primitive_step(word, i, monoid), merged))
        level = nxt
        out.append(level)
    result = []
    for states in out:
        by_word = {}
        for word, blocks in states:
            by_word.setdefault(word, set()).add(blocks)
        result.append(by_word)
    return result


def _candidates(monoid, m, reachable, rng):
    """Every word of length m when there are few; else the reachable ones, every one-symbol change of
    them, a random sample, and random words with the right product (the hard negatives)."""
    syms = monoid.symbols
    if monoid.size ** m <= 800:
        return {"".join(t) for t in itertools.product(syms, repeat=m)}
    out = set(reachable)
    for w in reachable:
        for pos in range(m):
            for c in syms:
                out.add(w[:pos] + c + w[pos + 1:])
    for _ in range(100):
        out.add("".join(rng.choice(list(syms), size=m)))
    # hard negatives for the DP: random words with the product of u (which the cheap product check
    # cannot reject), completed by every last symbol that gives that product
    target = monoid.product(next(iter(reachable))) if reachable else None
    for _ in range(100 if target is not None else 0):
        head = "".join(rng.choice(list(syms), size=m - 1))
        out.update(head + c for c in syms if monoid.product(head + c) == target)
    return out


def _problems():
    rng = np.random.default_rng(20261205)
    cases = []
    for name, monoid in MONOIDS.items():
        for n in range(1, 9):
            reps = 2 if n <= 6 else 1
            for _ in range(reps):
                cases.append((name, "".join(rng.choice(list(monoid.symbols), size=n))))
    return cases


@pytest.mark.parametrize("name,u", _problems())
def test_audit_matches_brute_force_search(name, u):
    monoid = MONOIDS[name]
    rng = np.random.default_rng(len(u))
    levels = _search(u, monoid)
    n = len(u)
    for k, by_word in enumerate(levels):
        m = n - k
        for v in _candidates(monoid, m, by_word, rng):
            res = audit_step(u, v, monoid)
            if v not in by_word:
                assert not res.valid and res.label == "invalid" and res.labels == ("invalid",), (u, v)
                assert res.compressed == 0 and res.segments == ()
                continue
            structures = by_word[v]
            assert res.valid, (u, v)
            assert res.compressed == k
            assert res.labels == tuple(sorted({_label(b) for b in structures})), (u, v, structures)
            best = min(structures, key=lambda b: (sum(x >= 2 for x in b), tuple(-x for x in b)))
            assert res.segments == best, (u, v, res.segments, best)
            assert res.label == _label(best)
            # the canonical segmentation really produces v
            cuts = np.cumsum((0,) + res.segments)
            assert "".join(monoid.product(u[a:b]) for a, b in zip(cuts[:-1], cuts[1:])) == v
        # words longer than u, or of the right length but never reached, are invalid
    assert not audit_step(u, u + u[-1], monoid).valid


def test_hand_cases_z5():
    expect = {"334": "atomic", "14": "sequential", "32": "parallel", "0": "sequential", "22": "invalid",
              "1234": "no-op"}
    for v, label in expect.items():
        res = audit_step("1234", v, Z5)
        assert res.label == label, (v, res)
        assert res.valid == (label != "invalid")
    assert audit_step("1234", "334", Z5).segments == (2, 1, 1)
    assert audit_step("1234", "32", Z5).segments == (2, 2)
    assert audit_step("1234", "0", Z5).segments == (4,)
    # "14": 1|234 and 123|4 are both sequential; the canonical one is leftmost-longest
    assert audit_step("1234", "14", Z5).segments == (3, 1)
    assert audit_step("1234", "14", Z5).compressed == 2
    assert audit_step("1234", "22", Z5).compressed == 0


def test_mixed_and_several_labels():
    # Z5, "11111" -> "23": segmentations 2+3 and 3+2, one non-trivial segment of 3 -> mixed only
    res = audit_step("11111", "23", Z5)
    assert res.labels == ("mixed",) and res.segments == (2, 3)
    # "0000" -> "00": 2+2 (parallel), 3+1 and 1+3 (sequential): fewest non-trivial wins
    res = audit_step("0000", "00", Z5)
    assert res.labels == ("parallel", "sequential")          # sorted
    assert res.label == "sequential" and res.segments == (3, 1)


def test_products_against_independent_computation():
    rng = np.random.default_rng(1)
    perms = [np.array(p) for p in itertools.permutations(range(3))]
    for _ in range(200):
        n = int(rng.integers(1, 12))
        w = "".join(rng.choice(list("01234"), size=n))
        assert Z5.product(w) == str(sum(map(int, w)) % 5)
        w = "".join(rng.choice(list("abcdef"), size=n))
        # compose the permutations: product(w) maps t to p_{w0}(p_{w1}(...p_{wn}(t)))
        acc = np.arange(3)
        for c in reversed(w):
            acc = perms["abcdef".index(c)][acc]
        assert S3.product(w) == "abcdef"[[tuple(p) for p in perms].index(tuple(acc))]
    assert S3.mul("b", "c") != S3.mul("c", "b")       # non-commutative
    assert S3.product("a" * 5) == "a" and S3.mul("a", "e") == "e" == S3.mul("e", "a")


@pytest.mark.parametrize("name", sorted(MONOIDS))
def test_confluence(name):
    monoid = MONOIDS[name]
    rng = np.random.default_rng(7)
    for _ in range(30):
        w = "".join(rng.choice(list(monoid.symbols), size=int(rng.integers(1, 16))))
        target = monoid.product(w)
        for s in range(5):
            chain = primitive_chain(w, monoid, order="random", seed=s)
            assert chain[-1] == target and len(chain) == len(w)
            for a, b in zip(chain[:-1], chain[1:]):
                r = audit_step(a, b, monoid)
                assert r.valid and r.compressed == 1 and r.label == "atomic"
        left = primitive_chain(w, monoid)
        assert left[-1] == target
        assert all(b == primitive_step(a, 0, monoid) for a, b in zip(left[:-1], left[1:]))
    # exhaustively for short words: every primitive-step sequence ends in the product
    for w in ["".join(rng.choice(list(monoid.symbols), size=7)) for _ in range(3)]:
        assert set(_search(w, monoid)[-1]) == {monoid.product(w)}


def test_random_order_is_seeded_and_varies():
    w = "1234012340"
    assert primitive_chain(w, Z5, order="random", seed=3) == primitive_chain(w, Z5, order="random", seed=3)
    chains = {tuple(primitive_chain(w, Z5, order="random", seed=s)) for s in range(20)}
    assert len(chains) > 10


def test_refusals():
    with pytest.raises(ValueError, match="table"):
        Monoid([[0, 1, 2], [1, 2, 0], [2, 2, 2]])            # not associative
    with pytest.raises(ValueError, match="table"):
        Monoid((np.arange(3)[:, None] - np.arange(3)[None, :]) % 3)   # subtraction mod 3
    with pytest.raises(ValueError, match="table"):
        Monoid([[0, 1], [1, 2]])                              # an entry out of range
    with pytest.raises(ValueError, match="table"):
        Monoid([[0, 1, 0], [1, 0, 1]])                         # not square
    with pytest.raises(TypeError, match="table"):
        Monoid([["a", "b"], ["b", "a"]])
    with pytest.raises(ValueError, match="symbols"):
        Monoid(np.zeros((11, 11), dtype=int))                  # more than ten elements need symbols
    assert Monoid(np.zeros((11, 11), dtype=int), symbols="ABCDEFGHIJK").size == 11
    with pytest.raises(ValueError, match="symbols"):
        Monoid([[0, 1], [1, 0]], symbols="a|")
    with pytest.raises(ValueError, match="symbols"):
        Monoid([[0, 1], [1, 0]], symbols="aa")
    with pytest.raises(ValueError, match="m"):
        Monoid.cyclic(11)
    for bad in ("12a4", "", "12|4"):
        with pytest.raises(ValueError, match="u"):
            audit_step(bad, "1", Z5)
        with pytest.raises(ValueError, match="v"):
            audit_step("1234", bad, Z5)
        with pytest.raises(ValueError, match="word"):
            Z5.product(bad)
        with pytest.raises(ValueError, match="word"):
            primitive_chain(bad, Z5)
    with pytest.raises(ValueError, match="word"):
        primitive_step("1", 0, Z5)
    with pytest.raises(ValueError, match="i"):
        primitive_step("123", 2, Z5)
    with pytest.raises(TypeError, match="monoid"):
        audit_step("12", "3", np.eye(2, dtype=int))
    with pytest.raises(ValueError, match="order"):
        primitive_chain("123", Z5, order="right")
    with pytest.raises(ValueError, match="x"):
        Z5.mul("12", "3")
