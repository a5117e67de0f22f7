"""statcore.aggregate against its oracles: exact fractions, scipy's pmean/hmean/gmean, the mean
inequalities, the resampling engine's own bootstrap, brute-force Monte Carlo of Dirichlet weights,
the closed-form crossing weights, the empirical FAR quantile rule and statcore.proportion_ci."""
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats

import statcore as sc
from statcore import (composite_score, power_mean, profile_rank_stability, rate_at_far, weight_robustness)

S = [0.9, 0.8, 0.7, 0.6, 0.5]
W = [0.3, 0.2, 0.2, 0.15, 0.15]


# ----------------------------------------------------------------------------------------------
# power_mean
# ----------------------------------------------------------------------------------------------

def test_issue_oracle_harmonic_mean_is_105_over_149():
    fs = [Fraction(str(v)) for v in S]
    fw = [Fraction(str(v)) for v in W]
    exact = sum(fw) / sum(w / s for w, s in zip(fw, fs))
    assert exact == Fraction(105, 149)                 # 420 / 596: 1/3 + 1/4 + 2/7 + 1/4 + 3/10 = 596/420
    assert power_mean(S, weights=W) == pytest.approx(float(exact), rel=4e-16)


def test_harmonic_le_geometric_le_arithmetic():
    rng = np.random.default_rng(1)
    x = rng.uniform(0.01, 3.0, size=(200, 6))
    w = rng.uniform(0.0, 1.0, size=(200, 6)) + 1e-3
    H, G, A = (power_mean(x, weights=w, p=p) for p in (-1, 0, 1))
    assert np.all(H <= G * (1 + 1e-14)) and np.all(G <= A * (1 + 1e-14))
    lo, hi = power_mean(x, weights=w, p=-np.inf), power_mean(x, weights=w, p=np.inf)
    assert np.all(lo <= H) and np.all(A <= hi)
    np.testing.assert_array_equal(lo, x.min(axis=1))
    np.testing.assert_array_equal(hi, x.max(axis=1))


@pytest.mark.parametrize("p", [-np.inf, -3.0, -1, 0, 0.5, 1, 2.5, np.inf])
def test_equal_scores_give_that_score_and_weights_scale_free(p):
    assert power_mean([0.37] * 4, weights=[1, 2, 3, 4], p=p) == pytest.approx(0.37, rel=1e-15)
    x = [0.2, 0.9, 0.4]
    assert power_mean(x, weights=[1, 2, 3], p=p) == pytest.approx(power_mean(x, weights=[1e-5, 2e-5, 3e-5], p=p),
                                                                   rel=1e-14)


@pytest.mark.parametrize("p", [-2.5, -1, -0.3, 0.7, 1, 3])
def test_matches_scipy_pmean_with_weights_along_the_last_axis(p):
    rng = np.random.default_rng(2)
    x = rng.uniform(0.05, 2.0, size=(3, 4, 5))
    w = rng.uniform(0.1, 1.0, size=5)
    np.testing.assert_allclose(power_mean(x, weights=w, p=p), stats.pmean(x, p, weights=np.broadcast_to(w, x.shape),
                                                                          axis=-1), rtol=1e-13)
    np.testing.assert_allclose(power_mean(x, weights=w, p=0), stats.gmean(x, weights=np.broadcast_to(w, x.shape),
                                                                          axis=-1), rtol=1e-13)
    np.testing.assert_allclose(power_mean(x, weights=w), stats.hmean(x, weights=np.broadcast_to(w, x.shape),
                                                                     axis=-1), rtol=1e-13)


def test_zero_rule():
    assert power_mean([0.9, 0.0, 0.8], weights=[1, 1, 1]) == 0.0
    assert power_mean([0.9, 0.0, 0.8], weights=[1, 1, 1], p=0) == 0.0
    assert power_mean([0.9, 0.0, 0.8], weights=[1, 0, 1]) == pytest.approx(stats.hmean([0.9, 0.8]), rel=1e-15)
    assert power_mean([0.9, 0.0, 0.8], p=1) == pytest.approx(1.7 / 3, rel=1e-15)
    assert power_mean([0.0, 0.0]) == 0.0 and power_mean([0.0, 0.0], p=2) == 0.0


def test_extreme_scales():
    assert power_mean([1e-300, 2e-300]) == pytest.approx(4e-300 / 3, rel=1e-14)
    assert power_mean([1e300, 1.0], p=2) == pytest.approx(1e300 / np.sqrt(2), rel=1e-14)


def test_nan_policy_and_dataframe():
    x = np.array([[0.5, np.nan, 0.9], [0.4, 0.6, 0.8]])
    with pytest.raises(ValueError, match="scores holds 1 NaN"):
        power_mean(x)
    om = power_mean(x, nan_policy="omit")
    assert om[0] == pytest.approx(stats.hmean([0.5, 0.9]), rel=1e-15)
    assert om[1] == pytest.approx(stats.hmean([0.4, 0.6, 0.8]), rel=1e-15)
    pr = power_mean(x, nan_policy="propagate")
    assert np.isnan(pr[0]) and pr[1] == om[1]
    with pytest.raises(ValueError, match="all of its scores are NaN"):
        power_mean([np.nan, np.nan], nan_policy="omit")
    df = pd.DataFrame(x[1:], index=["r"], columns=list("abc"))
    out = power_mean(df)
    assert isinstance(out, pd.Series) and list(out.index) == ["r"]


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"weights": [1, -1, 1]}, ValueError, "weights must be non-negative"),
    ({"weights": [0, 0, 0]}, ValueError, "weights sum to 0"),
    ({"weights": [1, 1]}, ValueError, "weights"),
    ({"p": "one"}, TypeError, "p must be a number"),
    ({"p": float("nan")}, ValueError, "p must be"),
])
def test_bad_weights_and_exponent(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        power_mean([0.2, 0.4, 0.6], **kwargs)


def test_negative_scores_refused():
    with pytest.raises(ValueError, match="scores must hold non-negative"):
        power_mean([0.2, -0.4])


# ----------------------------------------------------------------------------------------------
# composite_score
# ----------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def items():
    rng = np.random.default_rng(36)
    return pd.DataFrame({"privacy": rng.uniform(0.5, 1.0, 40), "utility": rng.uniform(0.3, 0.9, 40),
                         "quality": rng.beta(5, 2, 40)})


def test_composite_estimate_is_the_power_mean_of_the_averages(items):
    res = composite_score(items, profile={"a": [1, 2, 1], "b": {"privacy": 1, "quality": 1}}, B=50, seed=0)
    means = items.mean().to_numpy()
    assert res.composites.loc["a", "estimate"] == pytest.approx(power_mean(means, weights=[1, 2, 1]), rel=1e-14)
    assert res.composites.loc["b", "estimate"] == pytest.approx(power_mean(means, weights=[1, 0, 1]), rel=1e-14)
    np.testing.assert_allclose(res.components["estimate"], means, rtol=1e-14)
    np.testing.assert_allclose(res.weights.loc["b"].to_numpy(), [0.5, 0.0, 0.5])


def test_composite_intervals_are_the_engines_bootstrap(items):
    # one resample of items gives every quantity: the same streams as statcore.bootstrap(paired=True)
    B, seed = 400, 7
    res = composite_score(items, profile="balanced", B=B, seed=seed)
    cols = tuple(items[c].to_numpy() for c in items.columns)
    ref = sc.bootstrap(cols, lambda *c: power_mean([np.mean(v) for v in c]), B=B, paired=True, seed=seed,
                       vectorized=False)
    row = res.composites.loc["balanced"]
    assert row["conf_low"] == pytest.approx(ref.confidence_interval.low, rel=1e-12)
    assert row["conf_high"] == pytest.approx(ref.confidence_interval.high, rel=1e-12)
    assert row["std_error"] == pytest.approx(ref.standard_error, rel=1e-12)
    one = sc.bootstrap((cols[1],), np.mean, B=B, seed=seed, vectorized=False)
    single = composite_score(items[["utility"]], B=B, seed=seed).components.loc["utility"]
    assert single["conf_low"] == pytest.approx(one.confidence_interval.low, rel=1e-12)
    assert single["conf_high"] == pytest.approx(one.confidence_interval.high, rel=1e-12)


def test_composite_zero_rule_and_nan_policy(items):
    zero = items.assign(utility=0.0)
    res = composite_score(zero, profile="balanced", B=20, seed=0)
    assert res.composites.loc["balanced", "estimate"] == 0.0
    assert res.composites.loc["balanced", "conf_high"] == 0.0
    holed = items.copy()
    holed.iloc[3, 1] = np.nan
    with pytest.raises(ValueError, match="components contains NaN"):
        composite_score(holed, B=20)
    om = composite_score(holed, B=20, seed=0, nan_policy="omit")
    assert om.n == len(items) - 1
    np.testing.assert_allclose(om.components["estimate"], items.drop(index=3).mean().to_numpy(), rtol=1e-14)


def test_composite_profiles_errors(items):
    with pytest.raises(ValueError, match="not both"):
        composite_score(items, profile="balanced", weights=[1, 1, 1])
    with pytest.raises(ValueError, match="not a built-in profile"):
        composite_score(items, profile="hifd")
    with pytest.raises(ValueError, match="three components"):
        composite_score(items[["privacy", "utility"]], profile="balanced")
    with pytest.raises(ValueError, match=r"profile\['x'\] must be non-negative"):
        composite_score(items, profile={"x": [1, -1, 1]})
    with pytest.raises(ValueError, match="weights sum to 0"):
        composite_score(items, weights=[0, 0, 0])
    with pytest.raises(ValueError, match="not among"):
        composite_score(items, profile={"x": {"privacy": 1, "speed": 1}})


# ----------------------------------------------------------------------------------------------
# weight_robustness and profile_rank_stability
# ----------------------------------------------------------------------------------------------

TABLE = pd.DataFrame({"privacy": [0.9, 0.7, 0.5, 0.75], "utility": [0.4, 0.7, 0.9, 0.5],
                      "quality": [0.6, 0.65, 0.7, 0.9]}, index=["blur", "pixelate", "noise", "mask"])


def test_rank_probabilities_against_brute_force_monte_carlo():
    B = 6000
    res = weight_robustness(TABLE, B=B, seed=11)
    rng = np.random.default_rng(99)            # a different seed and an independent implementation
    X = TABLE.to_numpy()
    Wd = rng.dirichlet(np.ones(3), size=B)
    h = stats.hmean(np.broadcast_to(X, (B, 4, 3)), weights=np.broadcast_to(Wd[:, None, :], (B, 4, 3)), axis=-1)
    wins = np.bincount(np.argmax(h, axis=1), minlength=4)
    ranks = stats.rankdata(-h, axis=1).sum(axis=0)
    p_bf = wins / B
    se = np.sqrt(res.table["p_first_std_error"].to_numpy() ** 2 + p_bf * (1 - p_bf) / B)
    assert np.all(np.abs(res.table["p_first"].to_numpy() - p_bf) <= 3 * se + 1e-12), (res.table, p_bf)
    rse = res.table["mean_rank_std_error"].to_numpy() * np.sqrt(2)
    assert np.all(np.abs(res.table["mean_rank"].to_numpy() - ranks / B) <= 3 * rse)
    assert res.table["p_first"].sum() == pytest.approx(1.0, abs=1e-12)


def test_two_components_probability_is_the_crossing_interval():
    # Dirichlet(1, 1): the weight of the first component is uniform, so P(A first) is the length of
    # the interval of weights where A wins, cut at the exact crossing weight
    t = pd.DataFrame({"x": [0.9, 0.6], "y": [0.5, 0.8]}, index=["A", "B"])
    res = weight_robustness(t, B=20000, seed=3)
    w = res.crossings["weight"].iloc[0]
    assert abs(res.table.loc["A", "p_first"] - (1 - w)) <= 3 * res.table.loc["A", "p_first_std_error"]
    # A wins when the first weight exceeds w (about 0.57); concentration 50 piles the weights near
    # (1/2, 1/2), where B wins: the first weight is Beta(50, 50)
    w50 = weight_robustness(t, concentration=50.0, B=4000, seed=3).table.loc["A", "p_first"]
    assert w50 < res.table.loc["A", "p_first"]
    ref = stats.beta(50, 50).sf(w)
    assert abs(w50 - ref) <= 3 * np.sqrt(ref * (1 - ref) / 4000)


@pytest.mark.parametrize("p", [-1, 1, 0, 0.5, 2.0, -3.0])
def test_crossing_weights_are_exact(p):
    t = pd.DataFrame({"x": [0.9, 0.7, 0.5], "y": [0.4, 0.7, 0.9]}, index=["A", "B", "C"])
    res = weight_robustness(t, p=p, B=10, seed=0)
    assert len(res.crossings) == 3
    for r in res.crossings.itertuples():
        a, b = t.loc[r.method1].to_numpy(), t.loc[r.method2].to_numpy()
        wv = [r.weight, 1 - r.weight]
        ma, mb = power_mean(a, weights=wv, p=p), power_mean(b, weights=wv, p=p)
        assert ma == pytest.approx(mb, rel=1e-13) and r.score == pytest.approx(ma, rel=1e-13)
        root = optimize.brentq(lambda w: power_mean(a, weights=[w, 1 - w], p=p)
                               - power_mean(b, weights=[w, 1 - w], p=p), 1e-12, 1 - 1e-12, xtol=1e-15, rtol=1e-15)
        assert r.weight == pytest.approx(root, abs=1e-12)
        if p == 1:          # w a1 + (1 - w) a2 = w b1 + (1 - w) b2
            assert r.weight == pytest.approx((b[1] - a[1]) / ((a[0] - b[0]) - (a[1] - b[1])), rel=1e-14)
        if p == -1:         # w / a1 + (1 - w) / a2 = w / b1 + (1 - w) / b2 (linear in w)
            exact = (Fraction(str(b[1])) ** -1 - Fraction(str(a[1])) ** -1) / (
                (Fraction(str(a[0])) ** -1 - Fraction(str(b[0])) ** -1)
                - (Fraction(str(a[1])) ** -1 - Fraction(str(b[1])) ** -1))
            assert r.weight == pytest.approx(float(exact), rel=1e-14)


def test_no_crossing_at_min_max_and_with_three_components():
    t = pd.DataFrame({"x": [0.9, 0.6], "y": [0.5, 0.8]})
    assert weight_robustness(t, p=np.inf, B=10, seed=0).crossings.empty
    assert weight_robustness(TABLE, B=10, seed=0).crossings.empty


def test_weight_robustness_errors():
    with pytest.raises(ValueError, match="concentration"):
        weight_robustness(TABLE, concentration=0.0)
    with pytest.raises(ValueError, match="at least two methods"):
        weight_robustness(TABLE.iloc[:1])
    with pytest.raises(ValueError, match="at least two components"):
        weight_robustness(TABLE[["privacy"]])
    with pytest.raises(ValueError, match="table contains NaN"):
        weight_robustness(TABLE.where(TABLE > 0.5))


def test_profile_rank_stability():
    prof = {"privacy_heavy": [4, 1, 1], "even": [1, 1, 1], "utility_heavy": [1, 4, 1], "quality_heavy": [1, 1, 4]}
    res = profile_rank_stability(TABLE, prof)
    X = TABLE.to_numpy()
    for name, w in prof.items():
        h = stats.hmean(X, weights=np.broadcast_to(np.asarray(w, float), X.shape), axis=1)
        np.testing.assert_allclose(res.scores[name].to_numpy(), h, rtol=1e-14)
        assert res.winners[name] == TABLE.index[np.argmax(h)]
    for a in prof:
        for b in prof:
            assert res.kendall_tau.loc[a, b] == pytest.approx(stats.kendalltau(res.scores[a], res.scores[b]).statistic)
    counts = res.winners.value_counts()
    assert res.share_same_winner == counts.max() / 4 and res.winner == counts.idxmax()
    with pytest.raises(ValueError, match="at least two profiles"):
        profile_rank_stability(TABLE, {"one": [1, 1, 1]})


# ----------------------------------------------------------------------------------------------
# rate_at_far
# ----------------------------------------------------------------------------------------------

def test_far_threshold_rule_small_case():
    imp = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
    res = rate_at_far(imp, [0.8, 0.85, 0.95, 0.2], far=0.2)
    # two impostors may be accepted: t just above 0.8 accepts 0.9 and 1.0
    assert res.threshold == np.nextafter(0.8, 1) and res.far_achieved == 0.2
    assert res.below == 2 and res.estimate == 0.5       # 0.8 (= the third largest impostor) and 0.2 are below t


def test_far_threshold_is_the_smallest_float_with_far_at_most_target():
    rng = np.random.default_rng(5)
    for n, far in [(1000, 0.01), (137, 0.05), (50, 0.01), (300, 0.29)]:
        imp = np.round(rng.normal(size=n), 2)           # ties
        res = rate_at_far(imp, rng.normal(size=20), far=far)
        t = res.threshold
        assert np.mean(imp >= t) <= far
        assert np.mean(imp >= np.nextafter(t, -np.inf)) > far
        assert res.far_achieved == np.mean(imp >= t)


def test_far_interval_is_clopper_pearson():
    rng = np.random.default_rng(6)
    res = rate_at_far(rng.normal(size=500), rng.normal(1.0, 1.0, 80), far=0.02, conf_level=0.9)
    ref = sc.proportion_ci(res.below, 80, method="clopper-pearson", conf_level=0.9)
    assert (res.conf_low, res.conf_high) == (ref.conf_low, ref.conf_high)


@pytest.mark.parametrize("far", [0.0, 1.0, -0.1, 2.0])
def test_far_outside_unit_interval_refused(far):
    with pytest.raises(ValueError, match="far"):
        rate_at_far([0.1, 0.2], [0.3], far=far)
