"""statcore.roc beyond pROC: AUC and AUPRC equal scikit-learn's, the calibration table equals
scikit-learn's calibration_curve, PRR and AURC equal brute force (averaging over every order of
tied scores), the DeLong placements equal the O(n^2) definition, and the curve's conventions
(direction, levels, pandas, missing values)."""
import itertools

import numpy as np
import pandas as pd
import pytest
from sklearn.calibration import calibration_curve
from sklearn.metrics import average_precision_score, roc_auc_score

import statcore
from statcore._roc._delong import placements


def _data(seed, n=200, digits=1):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(float)
    return y, np.round(rng.normal(size=n) + y, digits)


@pytest.mark.parametrize("seed, digits", [(0, 1), (1, 0), (2, 3)])
def test_auc_and_auprc_equal_sklearn(seed, digits):
    y, s = _data(seed, digits=digits)
    r = statcore.roc(y, s, direction="<")
    assert abs(r.auc - roc_auc_score(y, s)) < 1e-12
    assert abs(statcore.auprc(y, s) - average_precision_score(y, s)) < 1e-12
    # booleans and a Series; levels reversed make the other class the positive one
    assert abs(statcore.auprc(y == 1, pd.Series(s)) - average_precision_score(y, s)) < 1e-12
    assert abs(statcore.auprc(y, -s, levels=(1.0, 0.0)) - average_precision_score(1 - y, -s)) < 1e-12


def test_placements_equal_the_quadratic_definition():
    y, s = _data(3, n=80, digits=0)
    r = statcore.roc(y, s, direction="<")
    cases, controls = s[y == 1], s[y == 0]
    psi = (cases[:, None] > controls[None, :]) + 0.5 * (cases[:, None] == controls[None, :])
    v10, v01 = placements(r)
    np.testing.assert_allclose(v10, psi.mean(axis=1), atol=1e-14)
    np.testing.assert_allclose(v01, psi.mean(axis=0), atol=1e-14)
    var = np.var(psi.mean(axis=1), ddof=1) / cases.size + np.var(psi.mean(axis=0), ddof=1) / controls.size
    assert abs(statcore.auc_ci(r).std_error ** 2 - var) < 1e-15


def test_direction_levels_and_containers():
    y, s = _data(4)
    r = statcore.roc(y, s)
    assert r.direction == "<"
    flipped = statcore.roc(y, -s)
    assert flipped.direction == ">" and abs(flipped.auc - r.auc) < 1e-14
    np.testing.assert_allclose(flipped.sensitivities, r.sensitivities)
    # forcing the wrong direction gives 1 - AUC
    assert abs(statcore.roc(y, s, direction=">").auc - (1 - r.auc)) < 1e-14
    lab = np.where(y == 1, "case", "control")
    r2 = statcore.roc(pd.Series(lab, name="status"), pd.Series(s, name="marker"), levels=("control", "case"))
    assert r2.levels == ("control", "case") and abs(r2.auc - r.auc) < 1e-14
    assert "marker in" in r2.summary() and "(status control)" in r2.summary()
    # sorted labels: "case" < "control", so without levels the classes swap and the direction flips
    r3 = statcore.roc(lab, s)
    assert r3.levels == ("case", "control") and r3.direction == ">" and abs(r3.auc - r.auc) < 1e-14


def test_nan_policy_omit_equals_dropping():
    y, s = _data(5)
    s2 = s.copy()
    s2[[3, 17]] = np.nan
    yy = y.astype(object)
    yy[40] = None
    with pytest.raises(ValueError, match="score contains 2 NaN"):
        statcore.roc(y, s2)
    r = statcore.roc(yy, s2, nan_policy="omit")
    keep = np.ones(y.size, bool)
    keep[[3, 17, 40]] = False
    assert r.kept.sum() == keep.sum() and np.array_equal(r.kept, keep)
    assert abs(r.auc - statcore.roc(y[keep], s[keep]).auc) < 1e-14


def test_curve_plot_and_frame():
    y, s = _data(6, n=60)
    r = statcore.roc(y, s)
    f = r.to_frame()
    assert list(f.columns) == ["threshold", "sensitivity", "specificity"]
    assert f.sensitivity.iloc[0] == 1 and f.specificity.iloc[-1] == 1
    assert np.all(np.diff(f.sensitivity) <= 0) and np.all(np.diff(f.specificity) >= 0)
    import matplotlib.pyplot as plt

    ax = r.plot(B=50, seed=1)
    band = [c for c in ax.collections]
    assert band, "the bootstrap band is drawn"
    plt.close("all")


def test_bootstrap_interval_brackets_and_reproduces():
    y, s = _data(7, n=150)
    r = statcore.roc(y, s)
    a = statcore.auc_ci(r, method="bootstrap", B=500, seed=3)
    b = statcore.auc_ci(r, method="bootstrap", B=500, seed=3)
    assert a.conf_int == b.conf_int and a.conf_int[0] < r.auc < a.conf_int[1]
    d = statcore.auc_ci(r)
    # the bootstrap standard deviation estimates DeLong's standard error (relative s.e. about 1/sqrt(2B))
    assert abs(a.std_error / d.std_error - 1) < 0.15
    # the bootstrap replicates are the AUCs of resampled data, recomputed here by sorting
    rng = np.random.default_rng(11)
    reps = statcore.roc_test(r, r, method="bootstrap", B=3, seed=rng).extras["replicates"][:, 0]
    rng = np.random.default_rng(11)
    ci, co = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    rows = np.concatenate([ci[rng.integers(0, ci.size, (3, ci.size))], co[rng.integers(0, co.size, (3, co.size))]],
                          axis=1)
    want = [roc_auc_score(y[k], s[k]) for k in rows]
    np.testing.assert_allclose(reps, want, atol=1e-12)


def test_partial_auc_bootstrap_uses_the_specification():
    y, s = _data(8, n=150)
    r = statcore.roc(y, s, partial_auc=(1, 0.9), partial_auc_correct=True)
    res = statcore.auc_ci(r, method="bootstrap", B=300, seed=0)
    assert res.estimate == r.auc and res.conf_int[0] < r.auc < res.conf_int[1]
    assert "Corrected partial area" in res.summary()
    with pytest.raises(ValueError, match="full AUC only"):
        statcore.auc_ci(r)
    with pytest.raises(ValueError, match="full AUCs only"):
        statcore.roc_test(r, statcore.roc(y, s))


def test_roc_test_refusals_and_warnings():
    y, s = _data(9, n=100)
    r = statcore.roc(y, s)
    other = statcore.roc(y[:-1], s[:-1])
    with pytest.raises(ValueError, match="paired=False"):
        statcore.roc_test(r, other)
    with pytest.raises(ValueError, match="two-sided"):
        statcore.roc_test(r, other, paired=False, method="venkatraman", alternative="greater")
    with pytest.raises(ValueError, match="two-sided"):
        statcore.roc_test(r, r, method="venkatraman", alternative="less")
    with pytest.warns(statcore.ROCWarning, match="different directions"):
        statcore.roc_test(r, statcore.roc(y, s, direction=">"))
    same = statcore.roc_test(r, r)
    assert same.statistic == 0 and same.p_value == 1
    perfect = statcore.roc(y, y + 0.0)
    with pytest.warns(statcore.ROCWarning, match="interval is a point"):
        assert statcore.auc_ci(perfect).conf_int == (1.0, 1.0)


def _expected_over_tie_orders(loss, key, fn):
    """fn(loss in acceptance order) averaged over every order of the tied keys (brute force)."""
    blocks = [np.flatnonzero(key == v) for v in np.unique(key)]
    vals = []
    for perms in itertools.product(*[list(itertools.permutations(b)) for b in blocks]):
        vals.append(fn(loss[np.concatenate(perms)]))
    return float(np.mean(vals))


def test_risk_coverage_and_prr_equal_brute_force_with_ties():
    rng = np.random.default_rng(10)
    loss = rng.integers(0, 2, 9).astype(float)
    u = rng.integers(0, 4, 9).astype(float)  # heavy ties

    def aurc(ordered):
        return np.mean(np.cumsum(ordered) / np.arange(1, ordered.size + 1))

    def area(ordered):  # rejection curve: kept loss / n against fraction rejected, accepting in order
        n = ordered.size
        kept = np.r_[0, np.cumsum(ordered)] / n
        return np.sum((kept[1:] + kept[:-1]) / 2) / n

    res = statcore.risk_coverage(loss, u)
    assert abs(res.aurc - _expected_over_tie_orders(loss, u, aurc)) < 1e-12
    assert abs(res.optimal_aurc - aurc(np.sort(loss))) < 1e-12
    a_score = _expected_over_tie_orders(loss, u, area)
    a_orc = area(np.sort(loss))
    a_rnd = loss.mean() / 2
    want = (a_rnd - a_score) / (a_rnd - a_orc)
    assert abs(statcore.prediction_rejection_ratio(loss, u) - want) < 1e-12
    # a random score has PRR about 0, the oracle 1, the reversed oracle -1 (binary loss)
    assert statcore.prediction_rejection_ratio(loss, loss) == 1.0
    big = rng.integers(0, 2, 4000).astype(float)
    assert abs(statcore.prediction_rejection_ratio(big, rng.random(4000))) < 0.1
    assert abs(statcore.prediction_rejection_ratio(big, -big) + 1) < 1e-12
    with pytest.raises(ValueError, match="undefined"):
        statcore.prediction_rejection_ratio(np.ones(5), np.arange(5.0))


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_calibration_table_equals_sklearn(strategy):
    rng = np.random.default_rng(12)
    p = np.round(rng.beta(2, 2, size=500), 2)  # values on bin edges too
    y = (rng.random(500) < p ** 1.3).astype(int)
    res = statcore.calibration_error(y, p, n_bins=10, strategy=strategy)
    true, pred = calibration_curve(y, p, n_bins=10, strategy=strategy)
    ok = np.asarray(res.counts) > 0
    np.testing.assert_allclose(np.asarray(res.observed)[ok], true, atol=1e-12)
    np.testing.assert_allclose(np.asarray(res.predicted)[ok], pred, atol=1e-12)
    gaps = np.abs(true - pred)
    assert abs(res.ece - np.sum(np.asarray(res.counts)[ok] / 500 * gaps)) < 1e-12
    assert res.mce == gaps.max()
    import matplotlib.pyplot as plt

    res.plot()
    plt.close("all")


def test_numba_kernels_equal_the_numpy_path():
    """From statcore._roc._curve.KERNEL_MIN_N observations on, the passes after the sort are numba
    kernels; they give the numpy path's groups exactly and its DeLong (co)variances to rounding."""
    from statcore._roc._curve import KERNEL_MIN_N, _groups
    from statcore._roc._delong import delong_cov, delong_var

    rng = np.random.default_rng(13)
    n = KERNEL_MIN_N + 17
    y = rng.random(n) < 0.35
    s1 = np.round(rng.normal(size=n) + y, 2)
    s2 = rng.normal(size=n) + 0.5 * y
    for s in (s1, s2):
        a, b = _groups(s, y, kernel=False), _groups(s, y, kernel=True)
        assert all(np.array_equal(u, v) for u, v in zip(a, b))
    r1, r2 = statcore.roc(y.astype(float), s1), statcore.roc(y.astype(float), s2)
    assert abs(delong_var(r1, kernel=True) - delong_var(r1, kernel=False)) < 1e-18
    np.testing.assert_allclose(delong_cov(r1, r2, kernel=True), delong_cov(r1, r2, kernel=False), rtol=1e-12,
                               atol=1e-18)
    assert abs(r1.auc - roc_auc_score(y, s1)) < 1e-12


def test_paired_test_refuses_curves_with_different_rows_omitted():
    y, s = _data(14, n=60)
    a, b = s.copy(), s.copy()
    a[3], b[5] = np.nan, np.nan
    y[[3, 4, 5]] = 1.0  # the same labels either way: only the rows kept differ
    r1, r2 = statcore.roc(y, a, nan_policy="omit"), statcore.roc(y, b, nan_policy="omit")
    assert np.array_equal(r1.is_case, r2.is_case)
    with pytest.raises(ValueError, match="same observations"):
        statcore.roc_test(r1, r2)
    statcore.roc_test(r1, r2, paired=False)


def test_venkatraman_unpaired_seeded_and_invariant():
    """Venkatraman's unpaired test: the same seed gives the same answer; E depends on the scores
    through their ranks only (a monotone transform leaves it unchanged); a curve against itself
    gives E = 0 and p = 1."""
    y1, s1 = _data(11, n=80)
    y2, s2 = _data(12, n=60)
    r1, r2 = statcore.roc(y1, s1), statcore.roc(y2, s2)
    a = statcore.roc_test(r1, r2, paired=False, method="venkatraman", B=200, seed=3)
    b = statcore.roc_test(r1, r2, paired=False, method="venkatraman", B=200, seed=np.random.default_rng(3))
    assert (a.statistic, a.p_value) == (b.statistic, b.p_value)
    assert a.method == "Venkatraman's test for two unpaired ROC curves" and a.parameter == {"boot.n": 200.0}
    c = statcore.roc_test(statcore.roc(y1, np.exp(s1)), r2, paired=False, method="venkatraman", B=20, seed=0)
    assert c.statistic == a.statistic
    same = statcore.roc_test(r1, r1, paired=False, method="venkatraman", B=50, seed=0)
    assert same.statistic == 0 and same.p_value == 1
    part = statcore.roc(y1, s1, partial_auc=(1, 0.8))
    with pytest.raises(ValueError, match="partial AUC"):
        statcore.roc_test(part, r2, paired=False, method="venkatraman")


def test_two_curves_on_one_axes_differ_in_colour_band_and_legend():
    """Each curve takes its own colour (its band the same), one legend entry per curve, one diagonal;
    ``color=`` colours the band too."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_rgba

    y, s = _data(6, n=60)
    ax = statcore.roc(y, s, quiet=True).plot(B=30, seed=1)
    statcore.roc(y, s + np.random.default_rng(0).normal(size=s.size), quiet=True).plot(ax=ax, B=30, seed=1)
    curves = [a for a in ax.lines if a.get_gid() == "statcore-roc-curve"]
    assert len(curves) == 2 and to_rgba(curves[0].get_color()) != to_rgba(curves[1].get_color())
    bands = ax.collections
    assert len(bands) == 2
    for line, band in zip(curves, bands):
        assert np.allclose(band.get_facecolor()[0][:3], to_rgba(line.get_color())[:3])
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert len(labels) == 2 and len(set(labels)) == 2 and all(t.startswith("AUC = ") for t in labels)
    assert "95% band" in ax.get_legend().get_title().get_text()
    assert sum(a.get_gid() == "statcore-roc-diagonal" for a in ax.lines) == 1
    ax2 = statcore.roc(y, s, quiet=True).plot(B=30, seed=1, color="red")
    assert np.allclose(ax2.collections[0].get_facecolor()[0][:3], to_rgba("red")[:3])
    plt.close("all")
