"""combine_pvalues: scipy parity (defaults included), closed forms, Simes identity, Hommel under dependence,
properties, size and bad input."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import statcore as sc
from statcore.multitest import CombinedPValues, p_adjust
from statcore.multitest import combine_pvalues as _combine_pvalues
from statcore.testing import assert_size


def combine_pvalues(p, method, **kwargs):
    """The combined p-value alone (one family per row of 2-D input: axis=-1 given explicitly)."""
    if np.ndim(p) == 2:
        kwargs.setdefault("axis", -1)
    return _combine_pvalues(p, method=method, **kwargs).p_value

P = np.array([0.04, 0.001, 0.7, 0.2, 0.03, 0.5])


def test_closed_forms():
    k = P.size
    assert combine_pvalues(P, "bonferroni") == pytest.approx(k * 0.001)
    assert combine_pvalues(P, "topr", r=2) == pytest.approx(k / 2 * 0.03)
    assert combine_pvalues(P, "topr", r=3) == pytest.approx(k / 3 * 0.04)
    # Simes: min_i k p_(i) / i = 6 * 0.001 / 1; Hommel (1983): times 1 + 1/2 + ... + 1/6 = 2.45
    ps = np.sort(P)
    assert combine_pvalues(P, "simes") == pytest.approx(np.min(k * ps / np.arange(1, k + 1)), rel=1e-14)
    assert combine_pvalues(P, "simes") == pytest.approx(0.006, rel=1e-14)
    assert combine_pvalues(P, "simes") == pytest.approx(p_adjust(P, method="hommel").min(), rel=1e-12)
    assert combine_pvalues(P, "hommel_global") == pytest.approx(0.006 * 2.45, rel=1e-14)
    # k = 2: Simes = min(2 * 0.3 / 1, 2 * 0.4 / 2) = 0.4; Hommel = 1.5 * 0.4
    assert combine_pvalues([0.3, 0.4], "hommel_global") == pytest.approx(0.6, rel=1e-14)
    assert combine_pvalues([0.9, 0.8], "hommel_global") == 1.0  # capped
    t = np.mean(np.tan((0.5 - P) * np.pi))
    assert combine_pvalues(P, "cauchy") == pytest.approx(stats.cauchy.sf(t), rel=1e-12)
    assert combine_pvalues([0.2, 0.9], "bonferroni") == 0.4
    assert combine_pvalues([0.6, 0.9], "bonferroni") == 1.0


def test_default_r_and_two_dimensional_rows():
    rng = np.random.default_rng(0)
    p = rng.uniform(size=(7, 25))
    for method in ["bonferroni", "topr", "hommel_global", "simes", "cauchy"]:
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
@given(pvals, st.sampled_from(["bonferroni", "topr", "hommel_global", "simes", "cauchy"]), st.integers(0, 10**6))
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
    assert combine_pvalues(p, "hommel_global") == pytest.approx(min(1.0, c_k * combine_pvalues(p, "simes")), rel=1e-12)
    assert combine_pvalues(p, "topr", r=1) == combine_pvalues(p, "bonferroni")


def test_size_under_independence():
    # 20,000 families of k = 50 independent uniforms: every rule at most alpha + 3 MC SE
    def rules(*methods):
        return lambda p, rng: {m: combine_pvalues(p, m, axis=-1) for m in methods}

    def families(rng):                    # one vectorised draw (seed 2024): one p-value per family and rule
        return rng.uniform(size=(20000, 50))

    assert_size(rules("bonferroni", "topr", "hommel_global", "simes", "cauchy"), families, alpha=0.05, seed=2024,
                vectorized=True)
    # Simes is exact for independent p-values, Cauchy nearly so: also at least alpha - 3 s.e. (same draws)
    assert_size(rules("simes", "cauchy"), families, alpha=0.05, seed=2024, vectorized=True, exact=True)


def test_bad_input():
    with pytest.raises(ValueError, match="r must be at most k = 6"):
        combine_pvalues(P, "topr", r=7)
    with pytest.raises(ValueError, match="r must be >= 1"):
        combine_pvalues(P, "topr", r=0)
    with pytest.raises(ValueError, match="r = 2 is used only by method='topr', got method='hommel_global'"):
        combine_pvalues(P, "hommel_global", r=2)
    with pytest.raises(ValueError, match="p contains 1 NaN value"):
        combine_pvalues([0.1, np.nan], "cauchy", nan_policy="raise")
    with pytest.raises(ValueError, match=r"p must lie in \[0, 1\]"):
        combine_pvalues([0.1, 1.2], "fisher")
    with pytest.raises(ValueError, match="empty"):
        combine_pvalues([], "fisher")
    with pytest.raises(ValueError, match="unknown method"):
        combine_pvalues(P, "fisherr")
    with pytest.raises(ValueError, match="axis 3 is out of range"):
        combine_pvalues(np.full((2, 2, 2), 0.5), "fisher", axis=3)
    with pytest.raises(ValueError, match="weights are used only by method='stouffer'"):
        combine_pvalues(P, "fisher", weights=np.ones(6))
    with pytest.raises(ValueError, match="weights must have"):
        combine_pvalues(P, "stouffer", weights=np.ones(5))
    with pytest.raises(ValueError, match="unknown nan_policy"):
        combine_pvalues(P, "fisher", nan_policy="drop")
    with pytest.raises(ValueError, match="single number"):
        combine_pvalues(0.3, "fisher")


# ------------------------------------------------------------------ scipy parity (a superset of scipy's)

SCIPY_METHODS = ["fisher", "pearson", "tippett", "stouffer", "mudholkar_george"]


@pytest.mark.parametrize("method", SCIPY_METHODS)
def test_scipy_parity_one_family(method):
    rng = np.random.default_rng(5)
    for k in (1, 2, 7, 50):
        p = rng.uniform(size=k) ** 2
        got, want = _combine_pvalues(p, method=method), stats.combine_pvalues(p, method=method)
        assert isinstance(got.statistic, float) and isinstance(got.p_value, float)
        np.testing.assert_allclose(got.statistic, want.statistic, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(got.p_value, want.pvalue, rtol=1e-12, atol=1e-12)
        assert got.pvalue == got.p_value and tuple(got) == (got.statistic, got.p_value)


@pytest.mark.parametrize("method", SCIPY_METHODS)
@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_scipy_parity_batched(method, axis):
    rng = np.random.default_rng(6)
    p = rng.uniform(size=(6, 9))
    got, want = _combine_pvalues(p, method=method, axis=axis), stats.combine_pvalues(p, method=method, axis=axis)
    np.testing.assert_allclose(got.statistic, want.statistic, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got.p_value, want.pvalue, rtol=1e-12, atol=1e-12)
    p3 = rng.uniform(size=(3, 4, 5))
    got = _combine_pvalues(p3, method=method, axis=1)
    want = stats.combine_pvalues(p3, method=method, axis=1)
    assert got.p_value.shape == (3, 5)
    np.testing.assert_allclose(got.p_value, want.pvalue, rtol=1e-12, atol=1e-12)


def test_scipy_parity_stouffer_weights_and_edges():
    rng = np.random.default_rng(8)
    p, w = rng.uniform(size=(5, 8)), rng.uniform(0.5, 2, size=8)
    got = _combine_pvalues(p, method="stouffer", weights=w, axis=1)
    want = stats.combine_pvalues(p, method="stouffer", weights=w, axis=1)
    np.testing.assert_allclose(got.statistic, want.statistic, rtol=1e-12)
    np.testing.assert_allclose(got.p_value, want.pvalue, rtol=1e-12)
    wf = rng.uniform(0.5, 2, size=p.shape)
    np.testing.assert_allclose(_combine_pvalues(p, method="stouffer", weights=wf, axis=0).p_value,
                               stats.combine_pvalues(p, method="stouffer", weights=wf, axis=0).pvalue, rtol=1e-12)
    edge = np.array([0.0, 1e-300, 0.5, 1.0])
    for method in SCIPY_METHODS:
        with np.errstate(all="ignore"):
            want = stats.combine_pvalues(edge, method=method)
        got = _combine_pvalues(edge, method=method)
        np.testing.assert_allclose(got.p_value, want.pvalue, rtol=1e-12, atol=1e-12, err_msg=method)


@pytest.mark.parametrize("method", SCIPY_METHODS)
def test_scipy_parity_nan_policy(method):
    p = np.array([[0.1, np.nan, 0.3, 0.02], [0.5, 0.6, 0.01, 0.2]])
    for policy in ("propagate", "omit"):
        got = _combine_pvalues(p, method=method, axis=1, nan_policy=policy)
        want = stats.combine_pvalues(p, method=method, axis=1, nan_policy=policy)
        np.testing.assert_allclose(got.p_value, want.pvalue, rtol=1e-12, equal_nan=True)
    assert np.isnan(_combine_pvalues(p[0], method=method).p_value)
    omit = _combine_pvalues(p[0], method=method, nan_policy="omit")
    assert omit.k == 3 and omit.p_value == _combine_pvalues(p[0, [0, 2, 3]], method=method).p_value


def test_nan_policy_for_the_added_rules():
    p = np.array([0.1, np.nan, 0.3, 0.02])
    for method in ["bonferroni", "topr", "hommel_global", "simes", "cauchy"]:
        assert np.isnan(_combine_pvalues(p, method=method).p_value)
        assert (_combine_pvalues(p, method=method, nan_policy="omit").p_value
                == _combine_pvalues(p[~np.isnan(p)], method=method).p_value)
    with pytest.raises(ValueError, match="no non-NaN"):
        _combine_pvalues(np.array([[np.nan, np.nan], [0.1, 0.2]]), method="fisher", axis=1, nan_policy="omit")


# ------------------------------------------------------------------ the result and the defaults

def test_result_protocol_and_statistics():
    res = _combine_pvalues(P, method="topr", r=2)
    assert isinstance(res, CombinedPValues) and res.r == 2 and res.k == 6
    assert res.statistic == 0.03  # p_(2)
    assert repr(res).startswith("CombinedPValues(rule='topr'")
    assert isinstance(res, sc.HTest) and res.method == "Ruger's top-r combination of p-values"
    assert "Ruger's top-r" in res.summary() and "data:  6 p-values, r = 2" in res.summary()
    frame = res.to_frame()
    assert list(frame.columns) == ["statistic", "p_value", "k", "rule", "r", "method"]
    batched = _combine_pvalues(np.tile(P, (3, 1)), method="simes", axis=1)
    assert batched.to_frame().shape[0] == 3 and "3 families of 6 p-values" in batched.summary()
    assert not batched.p_value.flags.writeable
    with pytest.raises(AttributeError):
        res.p_value = 0.5


def test_defaults_are_scipys():
    """No method and no axis: scipy's Fisher along axis 0, the same numbers as scipy.stats.combine_pvalues."""
    import inspect

    ours, theirs = inspect.signature(_combine_pvalues).parameters, inspect.signature(stats.combine_pvalues).parameters
    for name in ("method", "weights", "axis", "nan_policy", "keepdims"):
        assert ours[name].default == theirs[name].default, name
    res = _combine_pvalues(P)
    assert res.rule == "fisher"
    assert res.p_value == pytest.approx(stats.combine_pvalues(P).pvalue, rel=1e-12)
    p = np.random.default_rng(1).uniform(size=(4, 10))
    got, want = _combine_pvalues(p), stats.combine_pvalues(p)
    assert got.p_value.shape == (10,) and got.k == 4          # one family per column, as scipy
    np.testing.assert_allclose(got.p_value, want.pvalue, rtol=1e-12)
    np.testing.assert_allclose(got.statistic, want.statistic, rtol=1e-12)
    np.testing.assert_array_equal(got.p_value, _combine_pvalues(p, method="fisher", axis=0).p_value)


def test_hommel_is_not_a_combination_method():
    """Hommel's global test is "hommel_global"; "hommel" (p_adjust's adjustment) is an unknown method here."""
    with pytest.raises(ValueError, match="unknown method 'hommel'"):
        _combine_pvalues(P, method="hommel")
    with pytest.raises(ValueError, match="unknown method 'hommel'"):
        sc.combine_pvalues(P, "hommel")


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
    assert np.mean(combine_pvalues(p, "hommel_global") <= alpha) == pytest.approx(5 / 6 * alpha, abs=2e-6)


# ------------------------------------------------------------------ scipy's result: indexing and keepdims

@pytest.mark.parametrize("method", ["fisher", "pearson", "tippett", "stouffer", "mudholkar_george"])
@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_keepdims_and_indexing_match_scipy(method, axis):
    p = np.random.default_rng(5).uniform(0.001, 1.0, size=(4, 6))
    for keepdims in (False, True):
        ours = _combine_pvalues(p, method=method, axis=axis, keepdims=keepdims)
        ref = stats.combine_pvalues(p, method=method, axis=axis, keepdims=keepdims)
        assert np.shape(ours.statistic) == np.shape(ref.statistic) and np.shape(ours[1]) == np.shape(ref[1])
        np.testing.assert_allclose(ours[0], ref[0], rtol=1e-12)
        np.testing.assert_allclose(ours[1], ref[1], rtol=1e-12)
        assert len(ours) == len(ref) == 2 and ours[-1] is ours.p_value
        stat, pval = ours
        assert stat is ours[0] and pval is ours[1]
        if keepdims:  # broadcasts against p, as scipy's
            assert (p / ours.p_value).shape == p.shape
    one = _combine_pvalues(p[0], method=method, keepdims=True)
    assert np.shape(one.p_value) == np.shape(stats.combine_pvalues(p[0], method=method, keepdims=True).pvalue) == (1,)
    with pytest.raises(IndexError):
        _combine_pvalues(p[0], method=method)[2]


def test_keepdims_is_a_flag():
    with pytest.raises(TypeError, match="keepdims"):
        _combine_pvalues(P, method="fisher", keepdims="yes")


def test_k_keeps_dims_under_omit():
    p = np.random.default_rng(6).uniform(size=(3, 5))
    p[0, 1] = np.nan
    res = _combine_pvalues(p, method="fisher", axis=1, nan_policy="omit", keepdims=True)
    ref = stats.combine_pvalues(p, method="fisher", axis=1, nan_policy="omit", keepdims=True)
    np.testing.assert_allclose(res.p_value, ref.pvalue, rtol=1e-12)
    assert res.k.shape == (3, 1) and res.k.ravel().tolist() == [4, 5, 5]
