"""conformal_classes from its definitions, one test point and one label at a time (LAC, APS plain,
with the last label, randomised with the same uniforms), labels, groups, nan_policy, bad input."""
import math

import numpy as np
import pandas as pd
import pytest

from statcore import ConformalClassSets, conformal_classes


def _kth(scores, alpha):
    s = sorted(scores)
    return s[math.ceil((len(s) + 1) * (1 - alpha) - 1e-9) - 1]


def _data(n=150, m=40, K=5, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.full(K, 0.6), size=n + m)
    y = np.array([rng.choice(K, p=row) for row in p])
    return p[:n], y[:n], p[n:], y[n:], rng


def _cum(row, j):
    """Total probability of the labels ranked at or before j (by decreasing probability, ties by column)."""
    order = sorted(range(len(row)), key=lambda l: (-row[l], l))
    return sum(row[l] for l in order[:order.index(j) + 1])


def test_lac_by_definition():
    pc, yc, pt, _, _ = _data()
    q = _kth([1 - pc[i, yc[i]] for i in range(len(yc))], 0.1)
    res = conformal_classes(pc, yc, pt, alpha=0.1)
    expect = np.array([[1 - pt[i, j] <= q for j in range(pt.shape[1])] for i in range(pt.shape[0])])
    np.testing.assert_array_equal(res.sets, expect)
    assert res.q[0] == q and res.size.tolist() == expect.sum(axis=1).tolist()


@pytest.mark.parametrize("include_last", [True, False])
def test_aps_plain_by_definition(include_last):
    pc, yc, pt, _, _ = _data(seed=1)
    q = _kth([_cum(pc[i], yc[i]) for i in range(len(yc))], 0.2)
    res = conformal_classes(pc, yc, pt, alpha=0.2, score="aps", include_last=include_last)
    assert res.q[0] == pytest.approx(q, abs=1e-15)
    for i in range(pt.shape[0]):
        for j in range(pt.shape[1]):
            c = _cum(pt[i], j)
            inside = (c - pt[i, j] < q) if include_last else (c <= q)
            if abs(c - q) > 1e-12 and abs(c - pt[i, j] - q) > 1e-12:
                assert res.sets[i, j] == inside
    if include_last:
        assert res.size.min() >= 1      # never empty


def test_aps_randomized_by_definition():
    pc, yc, pt, _, _ = _data(seed=2)
    rng = np.random.default_rng(42)
    v_cal, v_test = rng.random(len(yc)), rng.random(pt.shape[0])    # the documented order of the draws
    q = _kth([_cum(pc[i], yc[i]) - v_cal[i] * pc[i, yc[i]] for i in range(len(yc))], 0.1)
    res = conformal_classes(pc, yc, pt, alpha=0.1, score="aps", randomized=True, seed=42)
    assert res.q[0] == pytest.approx(q, abs=1e-15)
    expect = np.array([[_cum(pt[i], j) - v_test[i] * pt[i, j] <= q for j in range(pt.shape[1])]
                       for i in range(pt.shape[0])])
    np.testing.assert_array_equal(res.sets, expect)
    again = conformal_classes(pc, yc, pt, alpha=0.1, score="aps", randomized=True, seed=42)
    np.testing.assert_array_equal(again.sets, res.sets)
    # the sets are nested in the ordering: a label is in only if every more probable label is
    for i in range(pt.shape[0]):
        order = np.argsort(-pt[i], kind="stable")
        inside = res.sets[i, order]
        assert not np.any(inside[1:] & ~inside[:-1])


def test_labels_groups_and_frame():
    pc, yc, pt, yt, rng = _data(n=300, seed=3)
    names = np.array(["ant", "bee", "cat", "dog", "eel"])
    gc, gt = rng.integers(0, 2, 300), rng.integers(0, 2, pt.shape[0])
    res = conformal_classes(pd.DataFrame(pc), names[yc], pd.DataFrame(pt, index=[f"r{i}" for i in range(40)]),
                            alpha=0.2, classes=names, groups_cal=gc, groups_test=gt)
    ref = conformal_classes(pc, yc, pt, alpha=0.2, groups_cal=gc, groups_test=gt)
    np.testing.assert_array_equal(res.sets, ref.sets)
    for g in (0, 1):
        q = _kth([1 - pc[i, yc[i]] for i in np.flatnonzero(gc == g)], 0.2)
        assert np.all(res.q[gt == g] == q)
    frame = res.to_frame()
    assert list(frame.columns) == ["prediction_set", "size", "q", "group"] and frame.index[0] == "r0"
    assert frame["prediction_set"].iloc[0] == tuple(names[res.sets[0]])
    assert list(res.matrix().columns) == list(names)
    np.testing.assert_array_equal(res.covers(names[yt]), ref.covers(yt))
    assert res.coverage(names[yt]) == ref.coverage(yt)
    assert isinstance(res, ConformalClassSets)
    assert "Mondrian calibration in 2 groups" in res.summary()


def test_nan_policy_omit():
    pc, yc, pt, _, _ = _data(seed=4)
    p2 = pc.copy()
    p2[5, 1] = np.nan
    with pytest.raises(ValueError, match="probs_cal contains 1 NaN"):
        conformal_classes(p2, yc, pt, alpha=0.1)
    res = conformal_classes(p2, yc, pt, alpha=0.1, nan_policy="omit")
    keep = np.arange(len(yc)) != 5
    np.testing.assert_array_equal(res.sets, conformal_classes(pc[keep], yc[keep], pt, alpha=0.1).sets)


def test_bad_input():
    pc, yc, pt, _, _ = _data(seed=5)
    with pytest.raises(ValueError, match="alpha must lie in"):
        conformal_classes(pc, yc, pt, alpha=1.0)
    with pytest.raises(ValueError, match=r"= 19 calibration scores"):
        conformal_classes(pc[:10], yc[:10], pt, alpha=0.05)
    with pytest.raises(ValueError, match="y_cal must have one label per row of probs_cal"):
        conformal_classes(pc, yc[:-1], pt, alpha=0.1)
    with pytest.raises(ValueError, match="probs_test has 4 columns"):
        conformal_classes(pc, yc, pt[:, :4], alpha=0.1)
    with pytest.raises(ValueError, match="probs_cal: every row must sum to 1"):
        conformal_classes(pc * 0.9, yc, pt, alpha=0.1)
    with pytest.raises(ValueError, match=r"probs_test must hold probabilities in \[0, 1\]"):
        conformal_classes(pc, yc, pt - 0.5, alpha=0.1)
    with pytest.raises(ValueError, match="y_cal holds the label 7, which is not a class"):
        conformal_classes(pc, np.r_[7, yc[1:]], pt, alpha=0.1)
    with pytest.raises(ValueError, match="y_cal holds the label 'x', which is not one of the classes"):
        conformal_classes(pc, np.r_[["x"], np.array(list("abcde"))[yc[1:]]], pt, alpha=0.1, classes=list("abcde"))
    with pytest.raises(ValueError, match="classes must name each of the 5 columns"):
        conformal_classes(pc, yc, pt, alpha=0.1, classes=[0, 1, 2])
    with pytest.raises(ValueError, match="randomized=True applies to score='aps' only"):
        conformal_classes(pc, yc, pt, alpha=0.1, randomized=True)
    with pytest.raises(ValueError, match="include_last applies to non-randomised APS only"):
        conformal_classes(pc, yc, pt, alpha=0.1, include_last=False)
    with pytest.raises(ValueError, match="groups_test holds the group 3"):
        conformal_classes(pc, yc, pt[:2], alpha=0.2, groups_cal=np.arange(150) % 3, groups_test=[0, 3])
    with pytest.raises(ValueError, match="y_cal contains 1 NaN or infinite"):
        conformal_classes(pc, np.r_[np.nan, yc[1:]], pt, alpha=0.1)
    with pytest.raises(TypeError, match="seed"):
        conformal_classes(pc, yc, pt, alpha=0.1, score="aps", randomized=True, seed="x")
