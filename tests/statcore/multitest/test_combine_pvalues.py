"""combine_pvalues: closed forms, Simes identity, Hommel under dependence, properties, size and bad input."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from statcore.cit import combine_pvalues
from statcore.multitest import p_adjust

P = np.array([0.04, 0.001, 0.7, 0.2, 0.03, 0.5])


def test_closed_forms():
    k = P.size
    assert combine_pvalues(P) == pytest.approx(k * 0.001)
    assert combine_pvalues(P, "topr", r=2) == pytest.approx(k / 2 * 0.03)
    assert combine_pvalues(P, "topr", r=3) == pytest.approx(k / 3 * 0.04)
    # Simes: min_i k p_(i) / i = 6 * 0.001 / 1; Hommel (1983): times 1 + 1/2 + ... + 1/6 = 2.45
    ps = np.sort(P)
    assert combine_pvalues(P, "simes") == pytest.approx(np.min(k * ps / np.arange(1, k + 1)), rel=1e-14)
    assert combine_pvalues(P, "simes") == pytest.approx(0.006, rel=1e-14)
    assert combine_pvalues(P, "simes") == pytest.approx(p_adjust(P, "hommel").min(), rel=1e-12)
    assert combine_pvalues(P, "hommel") == pytest.approx(0.006 * 2.45, rel=1e-14)
    # k = 2: Simes = min(2 * 0.3 / 1, 2 * 0.4 / 2) = 0.4; Hommel = 1.5 * 0.4
    assert combine_pvalues([0.3, 0.4], "hommel") == pytest.approx(0.6, rel=1e-14)
    assert combine_pvalues([0.9, 0.8], "hommel") == 1.0  # capped
    t = np.mean(np.tan((0.5 - P) * np.pi))
    assert combine_pvalues(P, "cauchy") == pytest.approx(stats.cauchy.sf(t), rel=1e-12)
    assert combine_pvalues([0.2, 0.9], "bonferroni") == 0.4
    assert combine_pvalues([0.6, 0.9]) == 1.0


def test_default_r_and_two_dimensional_rows():
    rng = np.random.default_rng(0)
    p = rng.uniform(size=(7, 25))
    for method in ["bonferroni", "topr", "hommel", "simes", "cauchy"]:
        rows = combine_pvalues(p, method)
        assert rows.shape == (7,)
        np.testing.assert_allclose(rows, [combine_pvalues(row, method) for row in p], rtol=1e-14)
    # default r = ceil(k / 10) = 3 for k = 25
    np.testing.assert_allclose(combine_pvalues(p, "topr"), combine_pvalues(p, "topr", r=3))


def test_cauchy_tiny_and_unit_pvalues():
    # tan((1/2 - p) pi) ~ 1 / (p pi) for tiny p; one tiny p among k dominates: combined ~ k p
    assert combine_pvalues([1e-300, 0.5, 0.5, 0.5], "cauchy") == pytest.approx(4e-300, rel=1e-6)
    assert combine_pvalues([1.0, 1.0], "cauchy") == 1.0
    assert combine_pvalues([1e-20], "cauchy") == pytest.approx(1e-20, rel=1e-10)


pvals = st.lists(st.floats(0.0, 1.0, allow_nan=False), min_size=1, max_size=30)


@settings(max_examples=150, deadline=None)
@given(pvals, st.sampled_from(["bonferroni", "topr", "hommel", "simes", "cauchy"]), st.integers(0, 10**6))
def test_properties(p, method, seed):
    p = np.array(p)
    out = combine_pvalues(p, method)
    assert 0.0 <= out <= 1.0
    perm = np.random.default_rng(seed).permutation(p.size)
    assert combine_pvalues(p[perm], method) == pytest.approx(out, rel=1e-12, abs=1e-300)
    # raising one p-value never lowers the combined p-value
    q = p.copy()
    i = seed % p.size
    q[i] = min(1.0, q[i] + 0.1)
    assert combine_pvalues(q, method) >= out * (1 - 1e-12)
    assert combine_pvalues(p, "simes") <= combine_pvalues(p, "bonferroni") * (1 + 1e-12)
    c_k = np.sum(1.0 / np.arange(1, p.size + 1))
    assert combine_pvalues(p, "hommel") == pytest.approx(min(1.0, c_k * combine_pvalues(p, "simes")), rel=1e-12)
    assert combine_pvalues(p, "topr", r=1) == combine_pvalues(p, "bonferroni")


def test_size_under_independence():
    # 20,000 families of k = 50 independent uniforms: every rule at most alpha + 3 MC SE
    rng = np.random.default_rng(2024)
    p = rng.uniform(size=(20000, 50))
    alpha = 0.05
    bound = alpha + 3 * np.sqrt(alpha * (1 - alpha) / p.shape[0])
    for method in ["bonferroni", "topr", "hommel", "simes", "cauchy"]:
        rate = np.mean(combine_pvalues(p, method) <= alpha)
        assert rate <= bound, (method, rate)
    # Simes is exact for independent p-values, Cauchy nearly so
    for method in ["simes", "cauchy"]:
        assert np.mean(combine_pvalues(p, method) <= alpha) >= alpha - 3 * np.sqrt(alpha * (1 - alpha) / 20000)


def test_bad_input():
    with pytest.raises(ValueError, match="r must be at most k = 6"):
        combine_pvalues(P, "topr", r=7)
    with pytest.raises(ValueError, match="r must be >= 1"):
        combine_pvalues(P, "topr", r=0)
    with pytest.raises(ValueError, match="r = 2 is used only by method='topr', got method='hommel'"):
        combine_pvalues(P, "hommel", r=2)
    with pytest.raises(ValueError, match="p contains NaN"):
        combine_pvalues([0.1, np.nan], "cauchy")
    with pytest.raises(ValueError, match=r"p must lie in \[0, 1\]"):
        combine_pvalues([0.1, 1.2])
    with pytest.raises(ValueError, match="empty"):
        combine_pvalues([])
    with pytest.raises(ValueError, match="unknown method"):
        combine_pvalues(P, "fisher")
    with pytest.raises(ValueError, match="1-D"):
        combine_pvalues(np.full((2, 2, 2), 0.5))


def negatively_dependent_pair(alpha, m=1_000_000):
    """Two exactly uniform p-values (u on a midpoint grid) built so that Simes rejects with probability
    1.5 alpha = C_2 alpha, Hommel's (1983) upper bound, attained:
    u < a/2: (u, u + a); a/2 <= u < a: (u + a/2, u - a/2); a <= u < 1.5a: both u - a/2; else both u.
    Each coordinate is a measure-preserving rearrangement of u, so both margins are uniform."""
    u = (np.arange(m) + 0.5) / m
    a = alpha
    p1 = np.select([u < a / 2, u < a, u < 1.5 * a], [u, u + a / 2, u - a / 2], u)
    p2 = np.select([u < a / 2, u < a, u < 1.5 * a], [u + a, u - a / 2, u - a / 2], u)
    return np.column_stack([p1, p2])


@pytest.mark.parametrize("alpha", [0.05, 0.2])
def test_hommel_valid_where_simes_is_not(alpha):
    p = negatively_dependent_pair(alpha)
    for j in range(2):  # uniform margins
        np.testing.assert_allclose(np.sort(p[:, j]), (np.arange(p.shape[0]) + 0.5) / p.shape[0], atol=1e-12)
    # closed forms: Simes rejects on all of [0, 1.5 a); Hommel (= 1.5 Simes) on a/3 + a/3 + a/6 = 5a/6
    assert np.mean(combine_pvalues(p, "simes") <= alpha) == pytest.approx(1.5 * alpha, abs=2e-6)
    assert np.mean(combine_pvalues(p, "hommel") <= alpha) == pytest.approx(5 / 6 * alpha, abs=2e-6)
