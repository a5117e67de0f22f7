"""The one resampling engine (statcore._resampling) against scipy.stats.permutation_test and
scipy.stats.bootstrap, and its independence of n_jobs and of the memory budget."""
import math

import numpy as np
import pytest
from scipy import stats

import statcore as sc
from statcore import _resampling as rs


def _diff(x, y, axis=-1):
    return np.mean(x, axis=axis) - np.mean(y, axis=axis)


def _diff_scalar(x, y):
    return float(np.mean(x) - np.mean(y))


def _corr(x, y, axis=-1):
    xc = x - np.mean(x, axis=axis, keepdims=True)
    yc = y - np.mean(y, axis=axis, keepdims=True)
    return np.sum(xc * yc, axis=axis) / np.sqrt(np.sum(xc ** 2, axis=axis) * np.sum(yc ** 2, axis=axis))


def _mean(x, axis=-1):
    return np.mean(x, axis=axis)


def _var_ratio(x, y, axis=-1):
    return np.var(x, axis=axis, ddof=1) / np.var(y, axis=axis, ddof=1)


ALTS = [("two-sided", "two.sided"), ("less", "less"), ("greater", "greater")]
SCIPY_ALT = {"two.sided": "two-sided", "less": "less", "greater": "greater"}


def _data(seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=6), rng.normal(0.8, 1.0, size=5), rng.normal(size=6)


# ----------------------------------------------------------------------------------------------
# exact enumeration: equal to scipy exactly (p-value and the sorted null distribution)
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("scipy_alt,alt", ALTS)
@pytest.mark.parametrize("vectorized", [True, False])
def test_exact_independent_matches_scipy(scipy_alt, alt, vectorized):
    x, y, _ = _data(1)
    stat = _diff if vectorized else _diff_scalar
    ref = stats.permutation_test((x, y), stat, vectorized=vectorized, n_resamples=np.inf, alternative=scipy_alt)
    res = sc.permutation_test((x, y), stat, B=np.inf, alternative=alt, vectorized=vectorized)
    assert res.extras["exact"] and res.extras["B"] == math.comb(11, 6)
    assert res.statistic == pytest.approx(ref.statistic, abs=1e-15)
    assert res.p_value == pytest.approx(ref.pvalue, abs=1e-12)
    np.testing.assert_allclose(np.sort(res.extras["null_distribution"]), np.sort(ref.null_distribution),
                               rtol=0, atol=1e-12)


def test_exact_three_samples_matches_scipy():
    rng = np.random.default_rng(5)
    a, b, c = rng.normal(size=3), rng.normal(size=3), rng.normal(1, 1, size=2)

    def f(a, b, c, axis=-1):
        return stats.f_oneway(a, b, c, axis=axis).statistic

    ref = stats.permutation_test((a, b, c), f, n_resamples=np.inf, alternative="greater")
    res = sc.permutation_test((a, b, c), f, B=10 ** 6, alternative="greater")
    assert res.extras["exact"] and res.p_value == pytest.approx(ref.pvalue, abs=1e-12)


@pytest.mark.parametrize("scipy_alt,alt", ALTS)
def test_exact_pairings_matches_scipy(scipy_alt, alt):
    x, _, z = _data(2)
    ref = stats.permutation_test((x, z), _corr, permutation_type="pairings", n_resamples=np.inf,
                                 alternative=scipy_alt)
    res = sc.permutation_test((x, z), _corr, permutation_type="pairings", B=10 ** 7, alternative=alt)
    assert res.extras["exact"] and res.extras["B"] == math.factorial(6) ** 2
    assert res.p_value == pytest.approx(ref.pvalue, abs=1e-12)


@pytest.mark.parametrize("scipy_alt,alt", ALTS)
@pytest.mark.parametrize("two", [False, True])
def test_exact_samples_matches_scipy(scipy_alt, alt, two):
    x, _, z = _data(3)
    data, stat = ((x, z), _diff) if two else ((x - 0.3,), _mean)
    ref = stats.permutation_test(data, stat, permutation_type="samples", n_resamples=np.inf, alternative=scipy_alt)
    res = sc.permutation_test(data, stat, permutation_type="samples", B=np.inf, alternative=alt)
    assert res.extras["exact"] and res.extras["B"] == 2 ** 6
    assert res.p_value == pytest.approx(ref.pvalue, abs=1e-12)
    np.testing.assert_allclose(np.sort(res.extras["null_distribution"]), np.sort(ref.null_distribution),
                               rtol=0, atol=1e-12)


# ----------------------------------------------------------------------------------------------
# random permutations: the draws aligned with scipy's (one stream block) agree to 1e-12
# ----------------------------------------------------------------------------------------------

def _scipy_rng(seed):
    return np.random.default_rng(rs.block_seeds(seed, 1)[0])


@pytest.mark.parametrize("scipy_alt,alt", ALTS)
@pytest.mark.parametrize("vectorized", [True, False])
def test_random_independent_aligned_with_scipy(scipy_alt, alt, vectorized):
    rng = np.random.default_rng(7)
    x, y = rng.normal(size=15), rng.normal(0.5, 1, size=12)
    stat = _diff if vectorized else _diff_scalar
    B = 999
    ref = stats.permutation_test((x, y), stat, vectorized=vectorized, n_resamples=B, alternative=scipy_alt,
                                 rng=_scipy_rng(11))
    res = sc.permutation_test((x, y), stat, B=B, alternative=alt, seed=11, vectorized=vectorized)
    np.testing.assert_allclose(res.extras["null_distribution"], ref.null_distribution, rtol=0, atol=1e-12)
    assert res.p_value == pytest.approx(ref.pvalue, abs=1e-12)


@pytest.mark.parametrize("ptype", ["pairings", "samples"])
@pytest.mark.parametrize("scipy_alt,alt", ALTS)
def test_random_pairings_samples_aligned_with_scipy(ptype, scipy_alt, alt):
    rng = np.random.default_rng(8)
    x = rng.normal(size=20)
    y = 0.3 * x + rng.normal(size=20)
    stat = _corr if ptype == "pairings" else _diff
    ref = stats.permutation_test((x, y), stat, permutation_type=ptype, n_resamples=1000, alternative=scipy_alt,
                                 rng=_scipy_rng(3))
    res = sc.permutation_test((x, y), stat, permutation_type=ptype, B=1000, alternative=alt, seed=3)
    np.testing.assert_allclose(res.extras["null_distribution"], ref.null_distribution, rtol=0, atol=1e-12)
    assert res.p_value == pytest.approx(ref.pvalue, abs=1e-12)


def test_random_one_sample_sign_flip_aligned_with_scipy():
    x = np.random.default_rng(9).normal(0.4, 1, size=25)
    ref = stats.permutation_test((x,), _mean, permutation_type="samples", n_resamples=500, rng=_scipy_rng(4))
    res = sc.permutation_test((x,), _mean, permutation_type="samples", B=500, seed=4)
    assert res.p_value == pytest.approx(ref.pvalue, abs=1e-12)


def test_many_blocks_agree_with_scipy_within_monte_carlo_error():
    rng = np.random.default_rng(10)
    x, y = rng.normal(size=30), rng.normal(0.45, 1, size=30)
    B = 20000
    ref = stats.permutation_test((x, y), _diff, n_resamples=B, alternative="greater", rng=1)
    res = sc.permutation_test((x, y), _diff, B=B, alternative="greater", seed=1)
    p = 0.5 * (res.p_value + ref.pvalue)
    se = math.sqrt(2 * p * (1 - p) / B)
    assert abs(res.p_value - ref.pvalue) < 4 * se


# ----------------------------------------------------------------------------------------------
# bootstrap
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("method", ["percentile", "basic", "bca"])
@pytest.mark.parametrize("scipy_alt,alt", ALTS)
def test_bootstrap_one_sample_aligned_with_scipy(method, scipy_alt, alt):
    x = np.random.default_rng(12).exponential(size=30)
    ref = stats.bootstrap((x,), np.mean, n_resamples=1000, method=method, confidence_level=0.9,
                          alternative=scipy_alt, rng=_scipy_rng(5))
    res = sc.bootstrap((x,), np.mean, B=1000, method=method, conf_level=0.9, alternative=alt, seed=5)
    np.testing.assert_allclose(res.bootstrap_distribution, ref.bootstrap_distribution, rtol=0, atol=1e-12)
    np.testing.assert_allclose(res.confidence_interval, tuple(ref.confidence_interval), rtol=0, atol=1e-12)
    assert res.standard_error == pytest.approx(ref.standard_error, abs=1e-12)


@pytest.mark.parametrize("method", ["percentile", "basic", "bca"])
def test_bootstrap_two_sample_aligned_with_scipy(method):
    rng = np.random.default_rng(13)
    x, y = rng.normal(size=20), rng.gamma(2.0, size=14)
    ref = stats.bootstrap((x, y), _var_ratio, n_resamples=800, method=method, rng=_scipy_rng(6))
    res = sc.bootstrap((x, y), _var_ratio, B=800, method=method, seed=6)
    np.testing.assert_allclose(res.confidence_interval, tuple(ref.confidence_interval), rtol=0, atol=1e-12)


@pytest.mark.parametrize("method", ["percentile", "basic", "bca"])
@pytest.mark.parametrize("vectorized", [True, False])
def test_bootstrap_paired_aligned_with_scipy(method, vectorized):
    rng = np.random.default_rng(14)
    x = rng.normal(size=25)
    y = 0.6 * x + rng.normal(size=25)
    stat = _corr if vectorized else (lambda a, b: float(np.corrcoef(a, b)[0, 1]))
    ref = stats.bootstrap((x, y), stat, paired=True, vectorized=vectorized, n_resamples=600, method=method,
                          rng=_scipy_rng(7))
    res = sc.bootstrap((x, y), stat, paired=True, vectorized=vectorized, B=600, method=method, seed=7)
    np.testing.assert_allclose(res.confidence_interval, tuple(ref.confidence_interval), rtol=0, atol=1e-12)


def test_bootstrap_many_blocks_within_monte_carlo_error():
    x = np.random.default_rng(15).normal(size=40)
    ref = stats.bootstrap((x,), np.mean, n_resamples=20000, rng=2)
    res = sc.bootstrap((x,), np.mean, B=20000, seed=2)
    # quantiles of 20000 draws: their Monte Carlo s.d. is well under 5 % of the standard error
    se = ref.standard_error
    assert abs(res.confidence_interval.low - ref.confidence_interval.low) < 0.1 * se
    assert abs(res.confidence_interval.high - ref.confidence_interval.high) < 0.1 * se
    assert res.standard_error == pytest.approx(se, rel=0.03)


def test_bootstrap_bca_degenerate_warns():
    with pytest.warns(rs.DegenerateBootstrapWarning):
        sc.bootstrap((np.array([1.0, 1.0, 1.0, 2.0]),), np.min, B=200, method="bca", seed=0)


def test_bootstrap_result_protocol():
    from apicheck import check_result_protocol

    res = sc.bootstrap((np.arange(10.0),), np.mean, B=199, seed=0)
    check_result_protocol(res)
    frame = res.to_frame()
    assert list(frame.columns[:4]) == ["estimate", "std_error", "conf_low", "conf_high"]
    assert "BootstrapResult(estimate=4.5" in repr(res)


# ----------------------------------------------------------------------------------------------
# independence of n_jobs and of the memory budget
# ----------------------------------------------------------------------------------------------

def test_permutation_independent_of_n_jobs_and_budget(monkeypatch):
    rng = np.random.default_rng(16)
    x, y = rng.normal(size=40), rng.normal(size=35)
    B = 3 * rs.STREAM_BLOCK + 17
    base = sc.permutation_test((x, y), _diff, B=B, seed=21)
    par = sc.permutation_test((x, y), _diff, B=B, seed=21, n_jobs=2)
    monkeypatch.setattr(rs, "MEMORY_BUDGET", 5000)  # a few resamples at a time, one block per chunk
    small = sc.permutation_test((x, y), _diff, B=B, seed=21, n_jobs=2)
    assert len(rs.chunk_sizes(B, 16 * 75)) == 4
    for other in (par, small):
        np.testing.assert_array_equal(other.extras["null_distribution"], base.extras["null_distribution"])
        assert other.p_value == base.p_value


def test_bootstrap_independent_of_n_jobs_and_budget(monkeypatch):
    x = np.random.default_rng(17).normal(size=30)
    B = 2 * rs.STREAM_BLOCK + 5
    base = sc.bootstrap((x,), np.mean, B=B, method="bca", seed=22)
    par = sc.bootstrap((x,), np.mean, B=B, method="bca", seed=22, n_jobs=2)
    monkeypatch.setattr(rs, "MEMORY_BUDGET", 1000)
    small = sc.bootstrap((x,), np.mean, B=B, method="bca", seed=22)
    for other in (par, small):
        np.testing.assert_array_equal(other.bootstrap_distribution, base.bootstrap_distribution)
        assert other.confidence_interval == base.confidence_interval


def test_seeds():
    a = rs.block_seeds(3, 3)
    b = rs.block_seeds(np.random.SeedSequence(3), 3)
    assert [s.generate_state(2).tolist() for s in a] == [s.generate_state(2).tolist() for s in b]
    assert len({tuple(s.generate_state(2)) for s in a}) == 3
    g = np.random.default_rng(0)
    assert rs.block_seeds(g, 1)[0].entropy != rs.block_seeds(g, 1)[0].entropy  # a Generator advances
    with pytest.raises(ValueError, match="seed"):
        rs.block_seeds(-1, 1)
    with pytest.raises(TypeError, match="seed"):
        rs.block_seeds("a", 1)


def test_chunk_sizes():
    assert rs.chunk_sizes(0, 8) == []
    assert sum(rs.chunk_sizes(10_000, 8)) == 10_000
    assert rs.chunk_sizes(2500, 1e9, budget=1) == [1024, 1024, 452]  # at least one block per chunk
    assert rs.chunk_sizes(5000, 8, budget=8 * 2048) == [2048, 2048, 904]


# ----------------------------------------------------------------------------------------------
# the p-value rule
# ----------------------------------------------------------------------------------------------

def test_perm_pvalue_rule_and_tie_tolerance():
    null = np.array([0.1, 0.5, 0.5 * (1 - 1e-11), 0.9])
    # 0.5 * (1 - 1e-11) is a tie of 0.5 (within 1e-9 relative): it counts
    assert rs.perm_pvalue(0.5, null, alternative="greater") == (1 + 3) / 5
    assert rs.perm_pvalue(0.5, null, alternative="less") == (1 + 3) / 5
    assert rs.perm_pvalue(0.5, null, alternative="two.sided") == 1.0
    assert rs.perm_pvalue(0.5, null, alternative="greater", exact=True) == 3 / 4
    assert rs.perm_pvalue(0.5, np.array([0.5 * (1 - 1e-8)]), alternative="greater") == 1 / 2
    assert rs.TIE_RTOL == 1e-9
    assert rs.perm_pvalue(2.0, null) == 1 / 5


# ----------------------------------------------------------------------------------------------
# bad input
# ----------------------------------------------------------------------------------------------

def test_bad_arguments():
    x, y = np.arange(5.0), np.arange(5.0) + 1
    with pytest.raises(ValueError, match="permutation_type"):
        sc.permutation_test((x, y), _diff, permutation_type="both")
    with pytest.raises(ValueError, match="two samples"):
        sc.permutation_test((x,), _mean)
    with pytest.raises(ValueError, match="B"):
        sc.permutation_test((x, y), _diff, B=0)
    with pytest.raises(TypeError, match="B"):
        sc.permutation_test((x, y), _diff, B=2.5)
    with pytest.raises(TypeError, match="statistic"):
        sc.permutation_test((x, y), "mean")
    with pytest.raises(ValueError, match="alternative"):
        sc.permutation_test((x, y), _diff, alternative="up")
    with pytest.raises(ValueError, match="data"):
        sc.permutation_test((x, y[:4]), _corr, permutation_type="pairings")
    with pytest.raises(TypeError, match="data"):
        sc.permutation_test(x, _mean)
    with pytest.raises(ValueError, match="method"):
        sc.bootstrap((x,), np.mean, method="studentized")
    with pytest.raises(ValueError, match="conf_level"):
        sc.bootstrap((x,), np.mean, conf_level=1.0)
    with pytest.raises(ValueError, match="data"):
        sc.bootstrap((x, y[:4]), _diff, paired=True)
    with pytest.raises(TypeError, match="n_jobs"):
        sc.bootstrap((x,), np.mean, n_jobs=1.5)


# ----------------------------------------------------------------------------------------------
# the one thread-control mechanism
# ----------------------------------------------------------------------------------------------

def test_thread_limit_pools():
    import numba
    from threadpoolctl import threadpool_info

    from statcore.utils import thread_limit

    before_numba = numba.get_num_threads()
    before_blas = [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]
    with thread_limit(1, pools="blas"):
        assert numba.get_num_threads() == before_numba
        assert all(p["num_threads"] == 1 for p in threadpool_info() if p["user_api"] == "blas")
    with thread_limit(1, pools="numba"):
        assert numba.get_num_threads() == 1
        assert [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"] == before_blas
    assert numba.get_num_threads() == before_numba
    with pytest.raises(ValueError, match="pools"):
        with thread_limit(1, pools="gpu"):
            pass


def test_run_stream_independent_of_n_jobs():
    def draw(rng, size):
        return rng.integers(0, 10, size=(size, 5))

    a = rs.run_stream(draw, _row_sums, 3000, rng=np.random.default_rng(1), bytes_per_resample=40, budget=400)
    b = rs.run_stream(draw, _row_sums, 3000, rng=np.random.default_rng(1), bytes_per_resample=40, budget=400,
                      n_jobs=2)
    serial = draw(np.random.default_rng(1), 3000).sum(axis=1)  # integers draws do not depend on chunking
    assert len(a) == 300
    np.testing.assert_array_equal(np.concatenate(a), np.concatenate(b))
    np.testing.assert_array_equal(np.concatenate(a), serial)


def _row_sums(block):
    return block.sum(axis=1)


def test_spawn_seeds_is_the_engines_rule_and_refuses_bad_seeds():
    """statcore.utils.spawn_seeds: the children of the seed by spawn key (the engine's block streams),
    keyed streams below the key, the SeedSequence never advanced, bad seeds and counts refused."""
    from statcore.utils import spawn_seeds

    a = spawn_seeds(3, 4)
    assert [s.spawn_key for s in a] == [(0,), (1,), (2,), (3,)]
    # the engine's stream blocks are these streams, and numpy's own spawn gives the same children
    assert [s.generate_state(4).tolist() for s in a] == [s.generate_state(4).tolist() for s in rs.block_seeds(3, 4)]
    assert [s.generate_state(4).tolist() for s in a] == \
        [s.generate_state(4).tolist() for s in np.random.SeedSequence(3).spawn(4)]
    root = np.random.SeedSequence(11)
    k1 = spawn_seeds(root, 2, key=(5, 7))
    k2 = spawn_seeds(root, 2, key=(5, 7))
    assert [s.spawn_key for s in k1] == [(5, 7, 0), (5, 7, 1)]
    assert [s.generate_state(2).tolist() for s in k1] == [s.generate_state(2).tolist() for s in k2]
    assert root.n_children_spawned == 0
    assert k1[0].generate_state(2).tolist() != spawn_seeds(root, 1, key=(7, 5))[0].generate_state(2).tolist()
    assert spawn_seeds(0, 0) == []
    g = np.random.default_rng(0)
    assert spawn_seeds(g, 1)[0].entropy != spawn_seeds(g, 1)[0].entropy  # a Generator advances
    for bad, err in ((-1, ValueError), (True, TypeError), ("a", TypeError), (1.5, TypeError),
                     (np.random.RandomState(0), TypeError)):
        with pytest.raises(err, match="seed"):
            spawn_seeds(bad, 2)
    with pytest.raises(ValueError, match=r"\bn\b"):
        spawn_seeds(0, -1)
    with pytest.raises(TypeError, match=r"\bn\b"):
        spawn_seeds(0, 2.5)
    with pytest.raises(ValueError, match="key"):
        spawn_seeds(0, 1, key=(-1,))
    with pytest.raises(TypeError, match="key"):
        spawn_seeds(0, 1, key="ab")
