"""learncore.deepgp against closed forms and its own exact chain (issue 20, section 2).

Oracles: a single input's image is N(0, sigma^2 I) at every depth; the one-layer law of the distance
is 2 sigma^2 (1 - exp(-D^2 / (2 r^2))) chi^2_d; the multi-point sampler's distances follow the
two-point chain at depths 1..5; the closed-form Lyapunov exponent equals the Monte Carlo slope; the
classification of cells at 0.8 and 1.25 r_c; the limit's dependence and heavy tails below r_c and the
collapse above it. Monte Carlo tests are seeded and sized so that a wrong law fails them.
"""
import math

import numpy as np
import pytest
from scipy import stats

from helpers import require_torch

torch = require_torch()
torch.set_num_threads(1)

from learncore.deepgp import (bandwidth_threshold, count_modes, distance_chain, limit_distribution,  # noqa: E402
                              lyapunov_exponent, sample_deep_gp, threshold_scan)

DS = (1, 2, 5, 10, 50)


@pytest.mark.slow
@pytest.mark.parametrize("d, depth, sigma", [(1, 6, 1.0), (3, 4, 1.7)])
def test_single_input_image_is_normal_at_any_depth(d, depth, sigma):
    # the marginal of one input among three (and of a lone input) is N(0, sigma^2 I_d) exactly
    X = np.array([[0.0] * d, [0.3] * d, [1.0] * d])
    res = sample_deep_gp(X, depth=depth, r=0.6, sigma=sigma, n_samples=1500, seed=11)
    lone = sample_deep_gp(X[:1], depth=depth, r=0.6, sigma=sigma, n_samples=1500, seed=12)
    for z in (res.images[:, 0, :], res.images[:, 2, :], lone.images[:, 0, :]):
        for j in range(d):
            assert stats.kstest(z[:, j] / sigma, "norm").pvalue > 0.001
    # and not merely normal by construction of the test: the scale is checked as well
    assert abs(res.images[:, 0, :].std() / sigma - 1) < 0.06


@pytest.mark.slow
def test_one_layer_transition_is_the_closed_form():
    d, r, sigma, D0 = 3, 0.9, 1.3, 0.7
    scale = 2 * sigma ** 2 * (-math.expm1(-D0 ** 2 / (2 * r ** 2)))
    X = np.array([[0.0, 0.0, 0.0], [D0, 0.0, 0.0]])
    res = sample_deep_gp(X, depth=1, r=r, sigma=sigma, n_samples=3000, seed=3)
    d1 = res.pairwise_distances()[:, 0, 1]
    assert stats.kstest(d1 ** 2 / scale, stats.chi2(d).cdf).pvalue > 0.001
    ch = distance_chain(r, d, depth=1, n_chains=3000, sigma=sigma, start=D0, seed=4)
    assert stats.kstest(ch.distances[1] ** 2 / scale, stats.chi2(d).cdf).pvalue > 0.001
    # the wrong law (the linearised multiplier sigma^2 / r^2 D^2) is rejected at this size
    lin = sigma ** 2 / r ** 2 * D0 ** 2
    assert stats.kstest(d1 ** 2 / lin, stats.chi2(d).cdf).pvalue < 1e-6


@pytest.mark.slow
def test_sampler_distances_follow_the_chain_at_depths_1_to_5():
    d, r = 2, 0.8
    X = np.array([[0.0, 0.0], [0.5, 0.0], [0.5, 1.2]])
    res = sample_deep_gp(X, depth=5, r=r, n_samples=2000, keep_layers=True, seed=5)
    starts = {(0, 1): 0.5, (0, 2): math.hypot(0.5, 1.2), (1, 2): 1.2}
    for (i, j), D0 in starts.items():
        ch = distance_chain(r, d, depth=5, n_chains=4000, start=D0, seed=6 + i + j)
        for layer in range(1, 6):
            dist = res.pairwise_distances(layer)[:, i, j]
            p = stats.ks_2samp(dist, ch.distances[layer]).pvalue
            assert p > 0.001 / 3, (i, j, layer, p)


@pytest.mark.slow
@pytest.mark.parametrize("d", DS)
def test_lyapunov_exponent_equals_monte_carlo_slope(d):
    rc = bandwidth_threshold(d).estimate
    for ratio in (0.7, 1.3):
        ex = lyapunov_exponent(ratio * rc, d)
        mc = lyapunov_exponent(ratio * rc, d, method="monte_carlo", n_chains=2000, depth=50, seed=d)
        assert abs(mc.estimate - ex.estimate) < 3 * mc.std_error, (d, ratio, mc.estimate, ex.estimate)
        assert mc.std_error < 0.01          # sized so that the check has power
    # the closed form: (1/2) [log(2 / r^2) + digamma(d / 2)] with sigma = 1
    from scipy.special import digamma

    assert ex.estimate == pytest.approx(0.5 * (math.log(2 / (1.3 * rc) ** 2) + digamma(d / 2)), rel=1e-12)


@pytest.mark.parametrize("d", DS)
def test_sign_changes_at_the_threshold(d):
    rc = bandwidth_threshold(d).estimate
    assert abs(lyapunov_exponent(rc, d).estimate) < 1e-12
    assert lyapunov_exponent(0.99 * rc, d).estimate > 0 > lyapunov_exponent(1.01 * rc, d).estimate
    # Theta(sqrt(d)): r_c / sqrt(d) = sqrt(2 / d) exp(psi(d/2) / 2) increases to 1
    assert 0.5 < rc / math.sqrt(d) < 1


@pytest.mark.slow
@pytest.mark.parametrize("d", DS)
def test_monte_carlo_threshold_covers_the_closed_form(d):
    mc = bandwidth_threshold(d, method="monte_carlo", n_chains=2000, depth=50, seed=100 + d)
    ex = bandwidth_threshold(d).estimate
    assert mc.conf_low < ex < mc.conf_high
    assert mc.conf_high / mc.conf_low < 1.05
    # the Monte Carlo exponent has the right sign on either side of r_c
    assert lyapunov_exponent(0.95 * ex, d, method="monte_carlo", n_chains=1000, seed=1).conf_low > 0
    assert lyapunov_exponent(1.05 * ex, d, method="monte_carlo", n_chains=1000, seed=2).conf_high < 0


@pytest.mark.slow
def test_threshold_scan_classifies_cells_at_0_8_and_1_25_r_c():
    scan = threshold_scan(DS, [0.8, 1.25], relative=True, depth=200, n_chains=200, seed=0)
    assert scan.degenerate.tolist() == [False, True] * len(DS)
    f = scan.to_frame()
    below, above = f[f.r_ratio < 1], f[f.r_ratio > 1]
    assert (below.median_log_distance > -8).all()          # a stationary law of order one
    # above r_c log D falls at the exponent's rate: drift within 4 s.e. of lambda < 0
    assert (np.abs(above.drift - above.exponent) < 4 * above.drift_std_error + 0.02).all()


@pytest.mark.slow
def test_below_threshold_the_limit_is_uncorrelated_dependent_and_heavy_tailed():
    d = 2
    rc = bandwidth_threshold(d).estimate
    res = limit_distribution(0.8 * rc, d, depth=100, n_samples=2000, B=99, seed=7)
    assert abs(res.corr[0, 1]) < 3 / math.sqrt(2000) and res.corr_p > 0.001
    assert res.dhsic.p_value < 0.01 and res.dcor.p_value < 0.05
    assert (res.excess_kurtosis > 0.5).all() and (res.kurtosis_p_value < 0.01).all() and (res.normality_p_value < 0.01).all()
    # each coordinate of a centred Gaussian scale mixture is unimodal
    assert res.stable_modes.tolist() == [1, 1]
    # a check that the tests have no bias: the same statistics on N(0, I) do not reject
    g = np.random.default_rng(0).standard_normal((2000, 2))
    import statcore

    assert statcore.dhsic_test(g[:, 0], g[:, 1]).p_value > 0.01
    assert stats.kurtosistest(g[:, 0]).pvalue > 0.01


@pytest.mark.slow
def test_above_threshold_distances_collapse_to_the_numerical_floor():
    d = 2
    rc = bandwidth_threshold(d).estimate
    X = np.random.default_rng(1).normal(size=(5, d))
    iu = np.triu_indices(5, 1)
    # lambda = -log(1.25) per layer: after 300 layers log D is about -67 (s.d. about 11) in the exact
    # prior, far below float64's resolution of sigma = 1, so every distance is at the rounding floor
    above = sample_deep_gp(X, depth=300, r=1.25 * rc, n_samples=20, seed=8).pairwise_distances()[:, iu[0], iu[1]]
    below = sample_deep_gp(X, depth=300, r=0.8 * rc, n_samples=20, seed=8).pairwise_distances()[:, iu[0], iu[1]]
    assert above.max() < 1e-12
    assert np.median(below) > 0.05
    ch = distance_chain(1.25 * rc, d, depth=300, n_chains=200, seed=9)
    assert np.median(ch.log_distance[-1]) < math.log(1e-12)   # the exact chain goes further still


@pytest.mark.slow
def test_one_draw_turns_multimodal_near_the_threshold_in_d_2():
    # the centred images of 200 inputs under one draw (25 layers), three draws per bandwidth: one
    # mode in every draw far below r_c, several in most draws near it (benchmarks/README.md, 300
    # inputs and 30 layers: 1111 at 0.3 r_c, 3223 at 0.9 r_c)
    torch.set_num_threads(1)
    rc = bandwidth_threshold(2).estimate

    def modes(ratio, s):
        return int(limit_distribution(ratio * rc, 2, depth=25, n_samples=200, kind="centred", B=99, max_coords=1,
                                      seed=s).stable_modes[0])

    assert [modes(0.3, s) for s in range(3)] == [1, 1, 1]
    assert sum(modes(0.9, s) >= 2 for s in range(3)) >= 2


def test_count_modes_finds_two_separated_modes_and_one_normal_mode():
    rng = np.random.default_rng(3)
    x2 = np.concatenate([rng.normal(-2.5, 1, 600), rng.normal(2.5, 1, 600)])
    res = count_modes(x2, B=99, seed=0)
    assert int((res.at_least >= 0.9).sum()) == res.stable_modes == 2 and res.n_modes == res.locations.size
    assert np.allclose(np.sort(res.locations), [-2.5, 2.5], atol=0.4)
    res = count_modes(rng.normal(size=1200), B=99, seed=0)
    assert int((res.at_least >= 0.9).sum()) == res.stable_modes == 1
    assert res.to_frame()["at_least"].tolist() == res.at_least.tolist() and res.to_frame()["stable"].iloc[0]
    const = count_modes(np.full(30, 2.0), B=9, seed=0)
    assert const.locations.tolist() == [2.0] and const.stable_modes == 1 and const.bandwidth == 0.0


def test_seed_reproducibility():
    a = sample_deep_gp(np.eye(3), depth=3, r=0.7, n_samples=2, seed=42).images
    b = sample_deep_gp(np.eye(3), depth=3, r=0.7, n_samples=2, seed=42).images
    assert np.array_equal(a, b)
    c1 = distance_chain(0.5, 2, depth=10, n_chains=5, seed=np.random.default_rng(1)).log_distance
    c2 = distance_chain(0.5, 2, depth=10, n_chains=5, seed=np.random.default_rng(1)).log_distance
    assert np.array_equal(c1, c2)


def test_cholesky_method_reports_its_jitter():
    X = np.linspace(0, 1, 6)[:, None]
    res = sample_deep_gp(X, depth=2, r=0.5, method="cholesky", n_samples=3, seed=0)
    assert res.method == "cholesky" and 0 < res.jitter < 1e-3
    assert "jitter" in res.summary()


@pytest.mark.parametrize("call, arg", [
    (lambda: sample_deep_gp(np.zeros((2, 1)), depth=2, r=0.0), "r"),
    (lambda: sample_deep_gp(np.zeros((2, 1)), depth=2, r=-1.0), "r"),
    (lambda: sample_deep_gp(np.zeros((2, 1)), depth=0, r=1.0), "depth"),
    (lambda: sample_deep_gp(np.array([[0.0], [np.nan]]), depth=2, r=1.0), "X"),
    (lambda: sample_deep_gp(np.array([[0.0], [np.inf]]), depth=2, r=1.0), "X"),
    (lambda: distance_chain(0.0, 2, depth=3), "r"),
    (lambda: distance_chain(1.0, 0, depth=3), "d"),
    (lambda: distance_chain(1.0, 2, depth=0), "depth"),
    (lambda: lyapunov_exponent(-1.0, 2), "r"),
    (lambda: lyapunov_exponent(1.0, 0), "d"),
    (lambda: bandwidth_threshold(0), "d"),
    (lambda: bandwidth_threshold(1.5), "d"),
    (lambda: threshold_scan([1, 0], [1.0], depth=5), "ds"),
    (lambda: threshold_scan([1], [1.0, -2.0], depth=5), "rs"),
    (lambda: threshold_scan([1], [1.0], depth=0), "depth"),
    (lambda: limit_distribution(0.0, 2, depth=3, n_samples=30), "r"),
    (lambda: limit_distribution(1.0, 0, depth=3, n_samples=30), "d"),
    (lambda: limit_distribution(1.0, 2, depth=0, n_samples=30), "depth"),
    (lambda: count_modes(np.array([1.0, np.nan] * 20)), "x"),
])
def test_bad_input_names_the_argument(call, arg):
    with pytest.raises((ValueError, TypeError), match=rf"\b{arg}\b"):
        call()


@pytest.mark.parametrize("n_half", [600, 50])
@pytest.mark.parametrize("outlier", [1e6, 1e300, -1e300])
def test_count_modes_ignores_one_far_outlier(outlier, n_half):
    """A far outlier neither inflates the bandwidth nor stretches the grid: the bimodal bulk keeps its
    two modes at -2.5 and 2.5 (the outlier lies outside the counting range, so it is no mode), and the
    bandwidth is the one of the bulk alone, at any n (the 0.5% trim drops at least one point a side)."""
    rng = np.random.default_rng(3)
    bulk = np.concatenate([rng.normal(-2.5, 1, n_half), rng.normal(2.5, 1, n_half)])
    res = count_modes(np.r_[bulk, outlier], B=99, seed=0)
    assert res.n_modes == 2 and res.stable_modes == 2
    assert np.allclose(np.sort(res.locations), [-2.5, 2.5], atol=0.6)
    # the bandwidth is the normal reference of the bulk's own spread (trimmed alike), n counting the outlier
    alone = count_modes(bulk, B=9, seed=0)
    assert res.bandwidth == pytest.approx(alone.bandwidth, rel=0.05)
