"""Parity with MAPIE 1.x and crepes on the same predictions (the peers are fed precomputed
predictions through column-picking prefit estimators): intervals (absolute, normalised, Mondrian,
CQR) and class sets (LAC; APS given MAPIE's own uniforms and quantile), and the quantile rank rules."""
import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin

from statcore import conformal_classes, conformal_cqr, conformal_interval, conformal_quantile
from statcore.conformal._classification import class_scores, class_sets

mapie = pytest.importorskip("mapie")
crepes = pytest.importorskip("crepes")

TOL = 1e-12


class ColumnRegressor(RegressorMixin, BaseEstimator):
    """A fitted regressor whose prediction is column j of X: precomputed predictions for MAPIE."""

    def __init__(self, j=0):
        self.j = j

    def fit(self, X, y=None):
        self.n_features_in_ = np.asarray(X).shape[1]
        self.fitted_ = True
        return self

    def predict(self, X):
        return np.asarray(X)[:, self.j]


class ProbaClassifier(ClassifierMixin, BaseEstimator):
    """A fitted classifier whose class probabilities are X itself."""

    def fit(self, X, y=None):
        self.n_features_in_ = np.asarray(X).shape[1]
        self.classes_ = np.arange(self.n_features_in_)
        return self

    def predict_proba(self, X):
        return np.asarray(X)

    def predict(self, X):
        return np.argmax(np.asarray(X), axis=1)


def _regression(n=400, m=250, seed=0):
    rng = np.random.default_rng(seed)
    x_cal, x_test = rng.uniform(0.2, 2, n), rng.uniform(0.2, 2, m)
    pred_cal, pred_test = np.sin(3 * x_cal), np.sin(3 * x_test)
    y_cal = pred_cal + x_cal * rng.normal(size=n)
    return y_cal, pred_cal, pred_test, x_cal, x_test, rng


ALPHAS = (0.1, 0.05, 0.2, 0.33)


@pytest.mark.parametrize("alpha", ALPHAS)
def test_absolute_equals_mapie_and_crepes(alpha):
    from crepes import ConformalRegressor
    from mapie.regression import SplitConformalRegressor

    y, pc, pt, *_ = _regression()
    res = conformal_interval(y, pc, pt, alpha=alpha)
    est = ColumnRegressor(0).fit(pc[:, None])
    mp = SplitConformalRegressor(est, confidence_level=1 - alpha, conformity_score="absolute", prefit=True)
    _, iv = mp.conformalize(pc[:, None], y).predict_interval(pt[:, None])
    np.testing.assert_allclose(res.pred_low, iv[:, 0, 0], rtol=0, atol=TOL)
    np.testing.assert_allclose(res.pred_high, iv[:, 1, 0], rtol=0, atol=TOL)
    cr = ConformalRegressor().fit(y - pc)
    ci = cr.predict_int(pt, confidence=1 - alpha)
    np.testing.assert_allclose(res.pred_low, ci[:, 0], rtol=0, atol=TOL)
    np.testing.assert_allclose(res.pred_high, ci[:, 1], rtol=0, atol=TOL)


@pytest.mark.parametrize("alpha", ALPHAS)
def test_normalized_equals_mapie_and_crepes(alpha):
    from crepes import ConformalRegressor
    from mapie.conformity_scores import ResidualNormalisedScore
    from mapie.regression import SplitConformalRegressor

    y, pc, pt, xc, xt, _ = _regression(seed=1)
    res = conformal_interval(y, pc, pt, alpha=alpha, score="normalized", scale_cal=xc, scale_test=xt)
    cr = ConformalRegressor().fit(y - pc, sigmas=xc)
    ci = cr.predict_int(pt, sigmas=xt, confidence=1 - alpha)
    np.testing.assert_allclose(res.pred_low, ci[:, 0], rtol=0, atol=TOL)
    np.testing.assert_allclose(res.pred_high, ci[:, 1], rtol=0, atol=TOL)
    # MAPIE: a prefit residual model returning sigma (column 1)
    Xc, Xt = np.column_stack([pc, xc]), np.column_stack([pt, xt])
    score = ResidualNormalisedScore(residual_estimator=ColumnRegressor(1).fit(Xc), prefit=True)
    mp = SplitConformalRegressor(ColumnRegressor(0).fit(Xc), confidence_level=1 - alpha, conformity_score=score,
                                 prefit=True)
    _, iv = mp.conformalize(Xc, y).predict_interval(Xt)
    np.testing.assert_allclose(res.pred_low, iv[:, 0, 0], rtol=0, atol=TOL)
    np.testing.assert_allclose(res.pred_high, iv[:, 1, 0], rtol=0, atol=TOL)


@pytest.mark.parametrize("normalized", [False, True])
def test_mondrian_equals_crepes_bins(normalized):
    from crepes import ConformalRegressor

    y, pc, pt, xc, xt, rng = _regression(n=600, seed=2)
    gc, gt = np.digitize(xc, [0.8, 1.4]), np.digitize(xt, [0.8, 1.4])
    kw = dict(score="normalized", scale_cal=xc, scale_test=xt) if normalized else {}
    res = conformal_interval(y, pc, pt, alpha=0.1, groups_cal=gc, groups_test=gt, **kw)
    cr = ConformalRegressor().fit(y - pc, sigmas=xc if normalized else None, bins=gc)
    ci = cr.predict_int(pt, sigmas=xt if normalized else None, bins=gt, confidence=0.9)
    np.testing.assert_allclose(res.pred_low, ci[:, 0], rtol=0, atol=TOL)
    np.testing.assert_allclose(res.pred_high, ci[:, 1], rtol=0, atol=TOL)
    assert len(res.groups) == 3


@pytest.mark.parametrize("alpha", (0.1, 0.2, 0.05))
def test_cqr_equals_mapie_symmetric_correction(alpha):
    """MAPIE's ConformalizedQuantileRegressor with symmetric_correction=True is Romano et al.'s CQR
    (one quantile of max(lo - y, y - hi)); its default (False) is the asymmetric variant that
    calibrates each end at alpha/2, which statcore does not offer."""
    from mapie.regression import ConformalizedQuantileRegressor

    y, pc, pt, xc, xt, _ = _regression(seed=3)
    lo_c, hi_c, lo_t, hi_t = pc - 0.8 * xc, pc + 1.1 * xc, pt - 0.8 * xt, pt + 1.1 * xt
    res = conformal_cqr(y, lo_c, hi_c, lo_t, hi_t, alpha=alpha)
    Xc, Xt = np.column_stack([lo_c, hi_c, pc]), np.column_stack([lo_t, hi_t, pt])
    ests = [ColumnRegressor(j).fit(Xc) for j in range(3)]
    mp = ConformalizedQuantileRegressor(ests, confidence_level=1 - alpha, prefit=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, iv = mp.conformalize(Xc, y).predict_interval(Xt, symmetric_correction=True)
    np.testing.assert_allclose(res.pred_low, iv[:, 0, 0], rtol=0, atol=TOL)
    np.testing.assert_allclose(res.pred_high, iv[:, 1, 0], rtol=0, atol=TOL)


def _classification(n=500, m=300, K=6, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.full(K, 0.7), size=n + m)
    y = (rng.random(n + m)[:, None] > np.cumsum(p, axis=1)).sum(axis=1)
    return p[:n], y[:n], p[n:], y[n:]


@pytest.mark.parametrize("alpha", ALPHAS)
def test_lac_equals_mapie_and_crepes(alpha):
    from crepes import ConformalClassifier
    from mapie.classification import SplitConformalClassifier

    pc, yc, pt, _ = _classification()
    res = conformal_classes(pc, yc, pt, alpha=alpha, score="lac")
    mp = SplitConformalClassifier(ProbaClassifier().fit(pc), confidence_level=1 - alpha, conformity_score="lac",
                                  prefit=True)
    _, sets = mp.conformalize(pc, yc).predict_set(pt)
    np.testing.assert_array_equal(res.sets, sets[:, :, 0])
    # crepes: unsmoothed p-values of the score 1 - p give the same sets
    cc = ConformalClassifier().fit(1 - pc[np.arange(pc.shape[0]), yc])
    np.testing.assert_array_equal(res.sets, cc.predict_set(1 - pt, confidence=1 - alpha, smoothing=False) == 1)


@pytest.mark.parametrize("alpha", (0.1, 0.2))
def test_aps_randomized_equals_mapie_given_its_uniforms(alpha):
    """MAPIE draws u ~ U(0, 1) from RandomState(random_state) for the calibration scores c_y - u p_y
    and again, from a fresh RandomState(random_state), for the test sets; fed the same uniforms,
    statcore's randomised APS gives the same scores, quantile and sets."""
    from mapie.classification import SplitConformalClassifier

    pc, yc, pt, _ = _classification(seed=4)
    mp = SplitConformalClassifier(ProbaClassifier().fit(pc), confidence_level=1 - alpha, conformity_score="aps",
                                  prefit=True, random_state=7)
    mp.conformalize(pc, yc)
    _, sets = mp.predict_set(pt, conformity_score_params={"include_last_label": "randomized"})
    u_cal = np.random.RandomState(7).uniform(size=pc.shape[0])
    u_test = np.random.RandomState(7).uniform(size=pt.shape[0])
    scores = class_scores(pc, yc, "aps", u_cal)
    np.testing.assert_allclose(scores, mp._mapie_classifier.conformity_scores_.ravel(), rtol=0, atol=TOL)
    q = conformal_quantile(scores, alpha=alpha)
    assert q == pytest.approx(float(mp._mapie_classifier.conformity_score_function_.quantiles_[0]), abs=TOL)
    ours = class_sets(pt, np.full(pt.shape[0], q), "aps", u_test, None)
    np.testing.assert_array_equal(ours, sets[:, :, 0])


@pytest.mark.parametrize("alpha", (0.1, 0.2))
def test_aps_include_last_equals_mapie_given_its_quantile(alpha):
    from mapie.classification import SplitConformalClassifier

    pc, yc, pt, _ = _classification(seed=5)
    mp = SplitConformalClassifier(ProbaClassifier().fit(pc), confidence_level=1 - alpha, conformity_score="aps",
                                  prefit=True, random_state=3)
    mp.conformalize(pc, yc)
    _, sets = mp.predict_set(pt, conformity_score_params={"include_last_label": True})
    q = float(mp._mapie_classifier.conformity_score_function_.quantiles_[0])
    ours = class_sets(pt, np.full(pt.shape[0], q), "aps", None, True)
    np.testing.assert_array_equal(ours, sets[:, :, 0])
    # and through the public function, with the plain (non-randomised) calibration score
    res = conformal_classes(pc, yc, pt, alpha=alpha, score="aps")
    assert res.include_last is True
    c = np.cumsum(-np.sort(-pc, axis=1), axis=1)
    rank = (pc > pc[np.arange(pc.shape[0]), yc][:, None]).sum(axis=1)
    assert res.q[0] == conformal_quantile(c[np.arange(pc.shape[0]), rank], alpha=alpha)


def test_quantile_rank_rules_of_the_peers():
    """Where (n + 1) alpha is an integer, the peers' float arithmetic can move the rank by one:
    MAPIE takes the 4th smallest of 9 scores at alpha = 0.7 (10 * (1 - 0.7) = 3.0000000000000004),
    crepes the 91st of 99 at confidence 0.9 (1 - 0.9 = 0.09999999999999998) and no score at all (an
    infinite interval) with 9 scores at 0.9, which MAPIE's estimators refuse (they ask for
    n >= max(1/alpha, 1/(1 - alpha)) = 10); statcore takes the decimal rank (3rd, 90th, 9th).
    Elsewhere all three agree."""
    from fractions import Fraction

    from crepes import ConformalRegressor
    from mapie.regression import SplitConformalRegressor
    from mapie.utils import _compute_regression_quantile

    def crepes_q(s, alpha):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ConformalRegressor().fit(s).predict_int(np.zeros(1), confidence=1 - alpha)[0, 1]

    def mapie_q(s, alpha):
        X = np.zeros((s.size, 1))
        mp = SplitConformalRegressor(ColumnRegressor(0).fit(X), confidence_level=1 - alpha, prefit=True)
        return mp.conformalize(X, s).predict_interval(np.zeros((1, 1)))[1][0, 1, 0]

    s9, s99 = np.arange(1.0, 10.0), np.arange(1.0, 100.0)
    assert (conformal_quantile(s9, alpha=0.7), mapie_q(s9, 0.7), crepes_q(s9, 0.7)) == (3.0, 4.0, 3.0)
    assert (conformal_quantile(s99, alpha=0.1), mapie_q(s99, 0.1), crepes_q(s99, 0.1)) == (90.0, 90.0, 91.0)
    assert (conformal_quantile(s9, alpha=0.1), crepes_q(s9, 0.1)) == (9.0, np.inf)
    # MAPIE's estimators refuse n < max(1/alpha, 1/(1 - alpha)) = 10 here (its quantile alone gives 9)
    with pytest.raises(ValueError, match="too low"):
        mapie_q(s9, 0.1)
    assert _compute_regression_quantile(s9, np.array([1 - 0.1]))[0, 0] == 9.0
    rng = np.random.default_rng(9)
    checked = 0
    for n in (20, 37, 99, 250, 1000):
        s = rng.exponential(size=n)
        for alpha in (0.1, 0.05, 0.2, 0.33, 0.5):
            if ((n + 1) * Fraction(repr(alpha))).denominator == 1:
                continue
            ours = conformal_quantile(s, alpha=alpha)
            assert _compute_regression_quantile(s, np.array([1 - alpha]))[0, 0] == ours
            assert crepes_q(s, alpha) == ours
            checked += 1
    assert checked >= 19


def test_too_small_calibration_versus_peers():
    """n = 5 at alpha = 0.1: MAPIE raises (or returns inf with unbounded), crepes warns and returns
    infinite intervals; statcore raises naming the minimum n = 9, or returns inf with allow_infinite."""
    from crepes import ConformalRegressor
    from mapie.utils import _compute_regression_quantile

    s = np.arange(1.0, 6.0)
    with pytest.raises(ValueError, match="too low"):
        _compute_regression_quantile(s, np.array([0.9]))
    assert _compute_regression_quantile(s, np.array([0.9]), unbounded=True)[0, 0] == np.inf
    with pytest.warns(UserWarning):
        assert ConformalRegressor().fit(s).predict_int(np.zeros(1), confidence=0.9)[0, 1] == np.inf
    with pytest.raises(ValueError, match="= 9 calibration scores"):
        conformal_interval(s, np.zeros(5), np.zeros(2), alpha=0.1)
    res = conformal_interval(s, np.zeros(5), np.zeros(2), alpha=0.1, allow_infinite=True)
    assert np.all(res.pred_high == np.inf) and np.all(res.pred_low == -np.inf)
