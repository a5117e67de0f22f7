"""conformal_interval and conformal_cqr from their definitions (a sorted list and the rank, one group
at a time), Series in and out, nan_policy, the result's helpers, bad input."""
import math

import numpy as np
import pandas as pd
import pytest

from statcore import ConformalIntervals, conformal_cqr, conformal_interval


def _kth(scores, alpha):
    s = sorted(scores)
    return s[math.ceil((len(s) + 1) * (1 - alpha) - 1e-9) - 1]


def _data(n=120, m=40, seed=0):
    rng = np.random.default_rng(seed)
    xc, xt = rng.uniform(0.5, 2, n), rng.uniform(0.5, 2, m)
    return xc + xc * rng.normal(size=n), xc, xt, xc, xt, rng


def test_absolute_and_normalized_by_definition():
    y, pc, pt, sc, st, _ = _data()
    q = _kth(np.abs(y - pc).tolist(), 0.1)
    res = conformal_interval(y, pc, pt, alpha=0.1)
    np.testing.assert_array_equal(res.pred_low, pt - q)
    np.testing.assert_array_equal(res.pred_high, pt + q)
    assert res.group_rank[0] == math.ceil(121 * 0.9) and res.n_cal == 120
    qn = _kth((np.abs(y - pc) / sc).tolist(), 0.2)
    res = conformal_interval(y, pc, pt, alpha=0.2, score="normalized", scale_cal=sc, scale_test=st)
    np.testing.assert_allclose(res.pred_low, pt - qn * st, rtol=0, atol=0)
    np.testing.assert_allclose(res.pred_high, pt + qn * st, rtol=0, atol=0)
    assert np.all(res.q == qn)


def test_cqr_by_definition_and_empty_intervals():
    y, pc, pt, *_ = _data(seed=1)
    lo, hi = pc - 3.0, pc + 3.0          # a band that overcovers: q < 0 narrows it
    q = _kth(np.maximum(lo - y, y - hi).tolist(), 0.1)
    res = conformal_cqr(y, lo, hi, pt - 3.0, pt + 3.0, alpha=0.1)
    assert q < 0
    np.testing.assert_array_equal(res.pred_low, pt - 3.0 - q)
    np.testing.assert_array_equal(res.pred_high, pt + 3.0 + q)
    narrow = conformal_cqr(y, lo, hi, pt - 0.1, pt + 0.1, alpha=0.1)   # narrower than -2q: empty
    assert np.all(narrow.pred_low > narrow.pred_high) and np.all(narrow.length == 0)
    assert not narrow.covers(pt).any()
    assert "empty intervals" in narrow.summary()


def test_mondrian_by_definition():
    y, pc, pt, sc, st, rng = _data(n=200, m=60, seed=2)
    gc = rng.choice(["lo", "mid", "hi"], 200)
    gt = rng.choice(["lo", "mid", "hi"], 60)
    res = conformal_interval(y, pc, pt, alpha=0.2, groups_cal=gc, groups_test=gt)
    assert res.groups == ("hi", "lo", "mid")
    for g in res.groups:
        q = _kth(np.abs(y - pc)[gc == g].tolist(), 0.2)
        np.testing.assert_array_equal(res.pred_high[gt == g], pt[gt == g] + q)
        assert res.group_q[res.groups.index(g)] == q
        assert res.group_n[res.groups.index(g)] == np.sum(gc == g)
    tab = res.coverage_table(y=pt + 0.01)
    assert list(tab["group"]) == ["hi", "lo", "mid"] and tab["coverage"].eq(1.0).all()
    assert tab["n_test"].sum() == 60
    assert list(res.to_frame()["group"]) == list(gt)
    # CQR per group
    cq = conformal_cqr(y, pc - 1, pc + 1, pt - 1, pt + 1, alpha=0.2, groups_cal=gc, groups_test=gt)
    for g in cq.groups:
        q = _kth(np.maximum(pc - 1 - y, y - pc - 1)[gc == g].tolist(), 0.2)
        np.testing.assert_array_equal(cq.pred_low[gt == g], pt[gt == g] - 1 - q)


def test_series_index_and_result_helpers():
    y, pc, pt, *_ = _data(seed=3)
    idx = [f"t{i}" for i in range(pt.size)]
    res = conformal_interval(pd.Series(y), pd.Series(pc), pd.Series(pt, index=idx), alpha=0.1)
    assert list(res.to_frame().index) == idx
    assert isinstance(res, ConformalIntervals)
    hit = res.covers(pt)
    assert hit.all() and res.coverage(pt) == 1.0
    assert res.coverage(pt + 1e6) == 0.0
    assert repr(res).startswith("ConformalIntervals(score='absolute', alpha=0.1, n_cal=120, n_test=40")
    assert "rank 109 of 120 scores" in res.summary()


def test_nan_policy_omit_drops_calibration_points():
    y, pc, pt, sc, st, _ = _data(seed=4)
    y2, sc2 = y.copy(), sc.copy()
    y2[3], sc2[10] = np.nan, np.nan
    keep = np.ones(y.size, bool)
    keep[[3, 10]] = False
    with pytest.raises(ValueError, match="y_cal contains 1 NaN"):
        conformal_interval(y2, pc, pt, alpha=0.1)
    res = conformal_interval(y2, pc, pt, alpha=0.1, score="normalized", scale_cal=sc2, scale_test=st,
                             nan_policy="omit")
    ref = conformal_interval(y[keep], pc[keep], pt, alpha=0.1, score="normalized", scale_cal=sc[keep], scale_test=st)
    np.testing.assert_array_equal(res.pred_high, ref.pred_high)
    assert res.n_cal == keep.sum()
    g = np.arange(y.size) % 2
    res = conformal_cqr(y2, pc - 1, pc + 1, pt - 1, pt + 1, alpha=0.2, nan_policy="omit", groups_cal=g,
                        groups_test=np.arange(pt.size) % 2)
    ref = conformal_cqr(y[keep], pc[keep] - 1, pc[keep] + 1, pt - 1, pt + 1, alpha=0.2, groups_cal=g[keep],
                        groups_test=np.arange(pt.size) % 2)
    np.testing.assert_array_equal(res.pred_high, ref.pred_high)
    with pytest.raises(ValueError, match="nan_policy"):
        conformal_interval(y2, pc, pt, alpha=0.1, nan_policy="propagate")
    with pytest.raises(ValueError, match="pred_test contains NaN"):
        conformal_interval(y, pc, np.r_[np.nan, pt[1:]], alpha=0.1, nan_policy="omit")


def test_bad_input():
    y, pc, pt, sc, st, _ = _data(seed=5)
    for alpha in (0.0, 1.0, -0.5, 2.0):
        with pytest.raises(ValueError, match="alpha must lie in"):
            conformal_interval(y, pc, pt, alpha=alpha)
    with pytest.raises(ValueError, match=r"= 19 calibration scores"):
        conformal_interval(y[:10], pc[:10], pt, alpha=0.05)
    with pytest.raises(ValueError, match=r"in group 1.*n = 3.*= 9 calibration"):
        conformal_interval(y[:13], pc[:13], pt[:2], alpha=0.1, groups_cal=np.r_[np.zeros(10), np.ones(3)],
                           groups_test=[0, 1])
    with pytest.raises(ValueError, match="inputs must have the same number.*y_cal has 120, pred_cal has 119"):
        conformal_interval(y, pc[:-1], pt, alpha=0.1)
    with pytest.raises(ValueError, match="y_cal contains 1 NaN"):
        conformal_interval(np.r_[np.nan, y[1:]], pc, pt, alpha=0.1)
    with pytest.raises(ValueError, match="scale_cal must be positive"):
        conformal_interval(y, pc, pt, alpha=0.1, score="normalized", scale_cal=-sc, scale_test=st)
    with pytest.raises(ValueError, match="scale_test must be positive"):
        conformal_interval(y, pc, pt, alpha=0.1, score="normalized", scale_cal=sc, scale_test=np.r_[0.0, st[1:]])
    with pytest.raises(ValueError, match="score='normalized' needs scale_test"):
        conformal_interval(y, pc, pt, alpha=0.1, score="normalized", scale_cal=sc)
    with pytest.raises(ValueError, match="scale_cal is used only by score='normalized'"):
        conformal_interval(y, pc, pt, alpha=0.1, scale_cal=sc)
    with pytest.raises(ValueError, match="unknown score 'cqr'"):
        conformal_interval(y, pc, pt, alpha=0.1, score="cqr")
    with pytest.raises(ValueError, match="groups_test holds the group 'z', which has no calibration data"):
        conformal_interval(y, pc, pt[:2], alpha=0.2, groups_cal=np.where(np.arange(120) < 60, "a", "b"),
                           groups_test=["a", "z"])
    with pytest.raises(ValueError, match="groups_cal is given but groups_test is not"):
        conformal_interval(y, pc, pt, alpha=0.2, groups_cal=np.zeros(120))
    with pytest.raises(ValueError, match="groups_cal must have one label per observation"):
        conformal_interval(y, pc, pt, alpha=0.2, groups_cal=np.zeros(100), groups_test=np.zeros(pt.size))
    with pytest.raises(ValueError, match="groups_cal contains 1 non-finite label"):
        conformal_interval(y, pc, pt, alpha=0.2, groups_cal=np.r_[np.nan, np.zeros(119)], groups_test=np.zeros(pt.size))
    with pytest.raises(ValueError, match="groups_cal contains a missing label"):
        conformal_interval(y, pc, pt, alpha=0.2, groups_cal=np.array([None] + ["a"] * 119, dtype=object),
                           groups_test=["a"] * pt.size)
    with pytest.raises(ValueError, match="lo_test and hi_test|lo_test has 40, hi_test has 39"):
        conformal_cqr(y, pc - 1, pc + 1, pt - 1, pt[:-1] + 1, alpha=0.1)
    with pytest.raises(ValueError, match="y must have one value per test point"):
        conformal_interval(y, pc, pt, alpha=0.1).covers(y)
