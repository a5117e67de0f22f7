"""Non-randomised APS at a tie (found by MAPIE's own tests, whose calibration and test points coincide):
a test point whose probabilities equal a calibration point's has a cumulative probability exactly equal
to q, and whether the next label is kept must not depend on floating-point rounding. Checked against
exact rational arithmetic, MAPIE (include_last_label=True) and crepes (the plain sets, include_last=False)."""
from fractions import Fraction

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin

from statcore import conformal_classes, conformal_quantile
from statcore.conformal._classification import class_scores, class_sets

K = 4
ALPHAS = (0.1, 0.2, 0.3, 0.45, 0.6)


def _tied_rows(m=8, seed=11):
    """m distinct probability rows with two decimals (as a tree's leaves give): no probability tied
    within a row, and no partial sum (before the last label) of one row equal in decimals to another
    row's, so every tie is between identical rows. At least half the rows have a partial sum that
    ``c - p`` does not reproduce in floating point (the rounding the old rule depended on)."""
    rng = np.random.default_rng(seed)
    rows, sums = [], set()
    while len(rows) < m:
        cents = rng.multinomial(100 - K, np.ones(K) / K) + 1
        if len(set(cents.tolist())) < K:
            continue
        part = set(np.cumsum(np.sort(cents)[::-1])[:-1].tolist())
        if part & sums:
            continue
        rows.append(cents / 100.0)
        sums |= part
    rows = np.array(rows)
    srt = -np.sort(-rows, axis=1)
    cs = np.cumsum(srt, axis=1)
    affected = ((cs - srt)[:, 1:] != cs[:, :-1]).any(axis=1)
    assert affected.sum() >= m // 2
    return rows


def _tied_data(reps=5):
    """Calibration: every row, repeated, with labels ranked first to (K-1)-th (so that every partial
    sum but the total is a calibration score); test: every row."""
    rows = _tied_rows()
    rank_of = np.argsort(np.argsort(-rows, axis=1, kind="stable"), axis=1)  # rank of each column
    pc, yc = [], []
    for _ in range(reps):
        for row, ranks in zip(rows, rank_of):
            for r in range(K - 1):
                pc.append(row)
                yc.append(int(np.flatnonzero(ranks == r)[0]))
    return np.array(pc), np.array(yc), rows


def _exact_sets(pc, yc, pt, alpha, include_last):
    """The sets in exact rational arithmetic on the given floats."""
    def prefix(row):
        order = np.argsort(-row, kind="stable")
        out, acc = {}, Fraction(0)
        for j in order:
            out[j] = (acc, acc + Fraction(row[j]))  # (before j, through j)
            acc += Fraction(row[j])
        return out

    scores = sorted(prefix(row)[y][1] for row, y in zip(pc, yc))
    n = len(scores)
    k = -(-(n + 1) * (1 - Fraction(str(alpha))) // 1)  # ceil((n + 1)(1 - alpha)) in decimals
    q = scores[int(k) - 1]
    sets = np.zeros(pt.shape, dtype=bool)
    for i, row in enumerate(pt):
        pre = prefix(row)
        for j in range(K):
            before, through = pre[j]
            sets[i, j] = before < q if include_last else through <= q
    return sets


@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("include_last", [True, False])
def test_aps_at_a_tie_equals_exact_arithmetic(alpha, include_last):
    pc, yc, pt = _tied_data()
    res = conformal_classes(pc, yc, pt, alpha=alpha, score="aps", include_last=include_last)
    np.testing.assert_array_equal(res.sets, _exact_sets(pc, yc, pt, alpha, include_last))


def _rounding_pairs(n_pairs=12, seed=3):
    """(row, j): two-decimal rows (no tied probabilities) whose partial sum through rank j is not
    reproduced by ``c - p`` at rank j + 1: there ``c - p`` falls below the partial sum, so the old rule
    ``c - p < q`` kept label j + 1 when q was exactly that partial sum."""
    rng = np.random.default_rng(seed)
    pairs = []
    while len(pairs) < n_pairs:
        cents = rng.multinomial(100 - K, np.ones(K) / K) + 1
        if len(set(cents.tolist())) < K:
            continue
        row = cents / 100.0
        srt = -np.sort(-row)
        cs = np.cumsum(srt)
        for j in range(K - 1):
            if cs[j + 1] - srt[j + 1] < cs[j]:
                pairs.append((row, j))
    return pairs


def _tie_at(row, j, n=60):
    """Calibration: n copies of ``row`` whose label is ranked j and one copy with each other label
    (so that q, the partial sum through rank j, is a score of n points and every class occurs); test:
    the row itself and its labels in another column order."""
    order = np.argsort(-row, kind="stable")
    pc = np.tile(row, (n + K - 1, 1))
    yc = np.r_[np.full(n, order[j]), order[np.arange(K) != j]]
    perm = np.roll(np.arange(K), 1)
    pt = np.vstack([row, row[perm]])
    return pc, yc, pt


@pytest.mark.parametrize("alpha", (0.1, 0.3))
def test_aps_include_last_at_an_exact_tie_keeps_down_to_the_label_reaching_q(alpha):
    """The labels ranked 0..j are kept (the one ranked j reaches q exactly), the next one is not: the
    exact answer, which the former rule ``c - p < q`` got wrong on every one of these rows."""
    for row, j in _rounding_pairs():
        pc, yc, pt = _tie_at(row, j)
        res = conformal_classes(pc, yc, pt, alpha=alpha, score="aps", include_last=True)
        assert res.q[0] == np.cumsum(-np.sort(-row))[j]
        np.testing.assert_array_equal(res.sets, _exact_sets(pc, yc, pt, alpha, True))
        assert res.size.tolist() == [j + 1, j + 1]
        plain = conformal_classes(pc, yc, pt, alpha=alpha, score="aps", include_last=False)
        np.testing.assert_array_equal(plain.sets, _exact_sets(pc, yc, pt, alpha, False))
        assert plain.size.tolist() == [j + 1, j + 1]


class ProbaClassifier(ClassifierMixin, BaseEstimator):
    """A fitted classifier whose class probabilities are X itself (precomputed predictions)."""

    def fit(self, X, y=None):
        self.n_features_in_ = np.asarray(X).shape[1]
        self.classes_ = np.arange(self.n_features_in_)
        return self

    def predict_proba(self, X):
        return np.asarray(X)

    def predict(self, X):
        return np.argmax(np.asarray(X), axis=1)


def _mapie_sets(pc, yc, pt, alpha):
    """MAPIE's include_last_label=True sets, its (randomised) calibration scores replaced by
    statcore's plain APS scores, so that both take the same q."""
    from mapie.classification import SplitConformalClassifier

    mp = SplitConformalClassifier(ProbaClassifier().fit(pc), confidence_level=1 - alpha, conformity_score="aps",
                                  prefit=True, random_state=0)
    mp.conformalize(pc, yc)
    shape = mp._mapie_classifier.conformity_scores_.shape
    mp._mapie_classifier.conformity_scores_ = class_scores(pc, yc, "aps", None).reshape(shape)
    _, sets = mp.predict_set(pt, conformity_score_params={"include_last_label": True})
    q = float(mp._mapie_classifier.conformity_score_function_.quantiles_[0])
    return sets[:, :, 0], q


@pytest.mark.parametrize("alpha", (0.1, 0.3))
def test_aps_include_last_at_a_tie_equals_mapie(alpha):
    """MAPIE keeps the labels down to the first whose cumulative probability reaches q (within its
    1e-8): at an exact tie its sets are statcore's."""
    pytest.importorskip("mapie")
    for row, j in _rounding_pairs():
        pc, yc, pt = _tie_at(row, j)
        res = conformal_classes(pc, yc, pt, alpha=alpha, score="aps", include_last=True)
        sets, q = _mapie_sets(pc, yc, pt, alpha)
        assert q == res.q[0]
        np.testing.assert_array_equal(res.sets, sets)


@pytest.mark.parametrize("alpha", ALPHAS)
def test_aps_include_last_on_tied_rows_equals_mapie(alpha):
    pytest.importorskip("mapie")
    pc, yc, pt = _tied_data()
    res = conformal_classes(pc, yc, pt, alpha=alpha, score="aps", include_last=True)
    sets, q = _mapie_sets(pc, yc, pt, alpha)
    assert q == res.q[0]
    np.testing.assert_array_equal(res.sets, sets)


@pytest.mark.parametrize("alpha", ALPHAS)
def test_aps_plain_sets_at_a_tie_equal_crepes(alpha):
    """include_last=False: the sets {y : c_y <= q} are crepes' unsmoothed sets of the score c_y."""
    pytest.importorskip("crepes")
    from crepes import ConformalClassifier

    pc, yc, pt = _tied_data()
    res = conformal_classes(pc, yc, pt, alpha=alpha, score="aps", include_last=False)
    cal = class_scores(pc, yc, "aps", None)
    rows = np.arange(pt.shape[0])
    test_scores = np.column_stack([class_scores(pt, np.full(pt.shape[0], j), "aps", None) for j in range(K)])
    assert test_scores.shape == (rows.size, K)
    crepes_sets = ConformalClassifier().fit(cal).predict_set(test_scores, confidence=1 - alpha, smoothing=False)
    np.testing.assert_array_equal(res.sets, crepes_sets == 1)


def test_class_sets_shifted_partial_sums_on_one_row():
    """One row, q equal to its first two probabilities' sum: the third label is not kept."""
    p = np.array([[0.27, 0.46, 0.15, 0.12]])
    q = np.cumsum(np.sort(p[0])[::-1])[1]  # 0.46 + 0.27, as the calibration score of that label
    got = class_sets(p, np.array([q]), "aps", None, True)
    np.testing.assert_array_equal(got, [[True, True, False, False]])


def test_equal_probabilities_ranked_by_column_unlike_mapie():
    """Labels of equal probability are ranked by column order (as in the scores); MAPIE keeps every
    label whose probability equals the last kept one's (the documented difference)."""
    pytest.importorskip("mapie")
    row = np.array([0.5, 0.25, 0.25, 0.0])
    pc = np.tile(row, (63, 1))
    yc = np.r_[np.full(60, 1), [0, 2, 3]]
    pt = np.array([row, [0.25, 0.5, 0.25, 0.0]])
    res = conformal_classes(pc, yc, pt, alpha=0.1, score="aps", include_last=True)
    assert res.q[0] == 0.75
    np.testing.assert_array_equal(res.sets, [[True, True, False, False], [True, True, False, False]])
    sets, q = _mapie_sets(pc, yc, pt, 0.1)
    assert q == 0.75
    np.testing.assert_array_equal(sets, [[True, True, True, False], [True, True, True, False]])
