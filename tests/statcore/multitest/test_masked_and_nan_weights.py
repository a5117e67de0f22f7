"""Regressions found by scipy's own combine_pvalues tests and R's p.adjust NA rule: masked p-values
(omitted, as scipy omits masked elements; R's NA for p_adjust and qvalue) and NaN Stouffer weights
(dropped with their p-value under nan_policy="omit", as scipy does)."""
import subprocess

import numpy as np
import pytest
from scipy import stats

from statcore.multitest import combine_pvalues, lfdr, p_adjust, pi0est, qvalue
from statcore._checks import as_pvalues

from helpers import requires_r

SCIPY_METHODS = ["fisher", "pearson", "tippett", "stouffer", "mudholkar_george"]
ADDED_METHODS = ["bonferroni", "topr", "simes", "hommel_global", "cauchy"]


def _masked(seed=0, shape=(12,), frac=0.3):
    rng = np.random.default_rng(seed)
    data = rng.uniform(size=shape) ** 2
    mask = rng.uniform(size=shape) < frac
    data = data.copy()
    data[mask] = 7.5  # garbage under the mask: never validated, never used
    return np.ma.masked_array(data, mask=mask)


# ------------------------------------------------------------------ masked p-values: combine_pvalues

@pytest.mark.parametrize("method", SCIPY_METHODS)
@pytest.mark.parametrize("nan_policy", ["propagate", "omit", "raise"])
def test_masked_values_are_omitted_as_scipy_does(method, nan_policy):
    pm = _masked(1)
    before = pm.data.copy()
    got = combine_pvalues(pm, method=method, nan_policy=nan_policy)
    want = stats.combine_pvalues(pm, method=method, nan_policy=nan_policy)
    np.testing.assert_allclose(got.statistic, want.statistic, rtol=1e-12)
    np.testing.assert_allclose(got.p_value, want.pvalue, rtol=1e-12)
    assert got.k == int((~pm.mask).sum())
    np.testing.assert_array_equal(pm.data, before)  # the input is not modified


@pytest.mark.parametrize("method", SCIPY_METHODS)
@pytest.mark.parametrize("axis", [0, 1])
def test_masked_batched_matches_scipy(method, axis):
    pm = _masked(2, shape=(6, 9), frac=0.25)
    got = combine_pvalues(pm, method=method, axis=axis)
    want = stats.combine_pvalues(pm, method=method, axis=axis)
    np.testing.assert_allclose(got.statistic, want.statistic, rtol=1e-12)
    np.testing.assert_allclose(got.p_value, want.pvalue, rtol=1e-12)
    np.testing.assert_array_equal(got.k, (~pm.mask).sum(axis=axis))


def test_masked_values_are_omitted_even_beside_nan():
    # an unmasked NaN still follows nan_policy; the masked value is omitted whatever the policy
    data = np.array([0.01, np.nan, 0.3, 0.9, 0.2])
    pm = np.ma.masked_array(data, mask=[False, False, False, True, False])
    for policy in ("propagate", "omit"):
        got = combine_pvalues(pm, method="fisher", nan_policy=policy)
        want = stats.combine_pvalues(pm, method="fisher", nan_policy=policy)
        np.testing.assert_allclose(got.p_value, want.pvalue, rtol=1e-12, equal_nan=True)
    assert combine_pvalues(pm, method="fisher", nan_policy="omit").k == 3
    with pytest.raises(ValueError, match="p contains 1 NaN value"):
        combine_pvalues(pm, method="fisher", nan_policy="raise")


@pytest.mark.parametrize("method", ADDED_METHODS)
def test_masked_values_are_omitted_by_the_added_rules(method):
    pm = _masked(3, shape=(4, 10), frac=0.3)
    got = combine_pvalues(pm, method=method, axis=1, r=None if method != "topr" else 2)
    for i in range(4):
        kept = pm.data[i][~pm.mask[i]]
        one = combine_pvalues(kept, method=method, r=None if method != "topr" else 2)
        assert got.p_value[i] == one.p_value
        assert got.statistic[i] == one.statistic


def test_fully_masked_family_is_refused():
    pm = np.ma.masked_array([[0.1, 0.2], [0.3, 0.4]], mask=[[True, True], [False, False]])
    with pytest.raises(ValueError, match="p has a family with no non-NaN"):
        combine_pvalues(pm, method="fisher", axis=1)


def test_masked_input_where_nan_is_refused():
    pm = np.ma.masked_array([0.1, 0.2, 0.3], mask=[False, True, False])
    with pytest.raises(ValueError, match="p has 1 masked value"):
        as_pvalues(pm, "p", allow_nan=False)


def test_unmasked_masked_array_is_an_array():
    data = np.array([0.01, 0.2, 0.3])
    pm = np.ma.masked_array(data, mask=False)
    assert combine_pvalues(pm, method="fisher").p_value == combine_pvalues(data, method="fisher").p_value
    np.testing.assert_array_equal(p_adjust(pm, method="BH"), p_adjust(data, method="BH"))


# ------------------------------------------------------------------ masked p-values: R's NA rule

@pytest.mark.parametrize("method", ["holm", "hochberg", "hommel", "bonferroni", "BH", "BY", "none"])
def test_p_adjust_treats_masked_values_as_r_na(method):
    pm = _masked(4, shape=(15,), frac=0.3)
    with_nan = np.where(pm.mask, np.nan, pm.data)
    got = p_adjust(pm, method=method)
    assert type(got) is np.ndarray
    np.testing.assert_array_equal(got, p_adjust(with_nan, method=method))
    assert np.isnan(got[pm.mask]).all() and not np.isnan(got[~pm.mask]).any()
    # n counts the unmasked values only: the Bonferroni factor is their number
    if method == "bonferroni":
        kept = pm.data[~pm.mask]
        np.testing.assert_allclose(got[~pm.mask], np.minimum(1, kept.size * kept), rtol=1e-15)


def test_p_adjust_masked_along_an_axis():
    pm = _masked(5, shape=(3, 8), frac=0.3)
    with_nan = np.where(pm.mask, np.nan, pm.data)
    np.testing.assert_array_equal(p_adjust(pm, method="holm", axis=1), p_adjust(with_nan, method="holm", axis=1))


@requires_r()
def test_p_adjust_masked_matches_r_with_na():
    pm = _masked(6, shape=(20,), frac=0.3)
    values = ",".join("NA" if m else repr(float(v)) for v, m in zip(pm.data, pm.mask))
    for method in ("holm", "hommel", "BH", "BY"):
        code = f'cat(sprintf("%.17g", p.adjust(c({values}), method = "{method}")), sep = "\\n")'
        out = subprocess.run(["Rscript", "--vanilla", "-e", code], capture_output=True, text=True, check=True)
        want = np.array([np.nan if s == "NA" else float(s) for s in out.stdout.split()])
        np.testing.assert_allclose(p_adjust(pm, method=method), want, rtol=1e-14, equal_nan=True, err_msg=method)


def test_qvalue_pi0est_lfdr_treat_masked_values_as_na():
    rng = np.random.default_rng(7)
    data = np.concatenate([rng.uniform(size=300), rng.beta(0.2, 4, size=100)])
    mask = rng.uniform(size=data.size) < 0.1
    pm = np.ma.masked_array(np.where(mask, 3.0, data), mask=mask)
    with_nan = np.where(mask, np.nan, data)
    np.testing.assert_array_equal(qvalue(pm).q_values, qvalue(with_nan).q_values)
    assert pi0est(pm).pi0 == pi0est(with_nan).pi0
    np.testing.assert_array_equal(lfdr(pm), lfdr(with_nan))


# ------------------------------------------------------------------ NaN Stouffer weights (scipy drops the pair)

def test_nan_weight_drops_its_pair_under_omit():
    p = np.array([0.01, 0.2, 0.5, 0.03, 0.4])
    w = np.array([1.0, 2.0, np.nan, 1.0, 0.5])
    got = combine_pvalues(p, method="stouffer", weights=w, nan_policy="omit")
    want = stats.combine_pvalues(p, method="stouffer", weights=w, nan_policy="omit")
    np.testing.assert_allclose(got.statistic, want.statistic, rtol=1e-12)
    np.testing.assert_allclose(got.p_value, want.pvalue, rtol=1e-12)
    assert got.k == 4
    # a NaN p-value and a NaN weight in different pairs: both pairs dropped
    p2 = p.copy()
    p2[0] = np.nan
    got = combine_pvalues(p2, method="stouffer", weights=w, nan_policy="omit")
    want = stats.combine_pvalues(p2, method="stouffer", weights=w, nan_policy="omit")
    np.testing.assert_allclose(got.p_value, want.pvalue, rtol=1e-12)
    assert got.k == 3


def test_nan_weight_propagates_and_raises():
    p = np.array([0.01, 0.2, 0.5, 0.03])
    w = np.array([1.0, 2.0, np.nan, 1.0])
    got = combine_pvalues(p, method="stouffer", weights=w, nan_policy="propagate")
    want = stats.combine_pvalues(p, method="stouffer", weights=w, nan_policy="propagate")
    assert np.isnan(got.p_value) and np.isnan(got.statistic) and np.isnan(want.pvalue)
    with pytest.raises(ValueError, match="weights contains 1 NaN value"):
        combine_pvalues(p, method="stouffer", weights=w, nan_policy="raise")


@pytest.mark.parametrize("nan_policy", ["propagate", "omit"])
def test_nan_weights_batched_match_scipy(nan_policy):
    rng = np.random.default_rng(9)
    p = rng.uniform(size=(6, 5))
    w = rng.uniform(0.5, 2, size=(6, 5))
    w[1, 2] = w[4, 0] = np.nan
    p[3, 3] = np.nan
    got = combine_pvalues(p, method="stouffer", weights=w, axis=0, nan_policy=nan_policy)
    want = stats.combine_pvalues(p, method="stouffer", weights=w, axis=0, nan_policy=nan_policy)
    np.testing.assert_allclose(got.statistic, want.statistic, rtol=1e-12, equal_nan=True)
    np.testing.assert_allclose(got.p_value, want.pvalue, rtol=1e-12, equal_nan=True)
    # a vector of weights along the axis, one NaN: the same pair is dropped in every family
    wv = rng.uniform(0.5, 2, size=6)
    wv[2] = np.nan
    got = combine_pvalues(p, method="stouffer", weights=wv, axis=0, nan_policy=nan_policy)
    want = stats.combine_pvalues(p, method="stouffer", weights=np.broadcast_to(wv[:, None], p.shape), axis=0,
                                 nan_policy=nan_policy)
    np.testing.assert_allclose(got.p_value, want.pvalue, rtol=1e-12, equal_nan=True)


def test_masked_weights_drop_their_pair_as_scipy_does():
    p = np.array([0.01, 0.2, 0.5, 0.03, 0.4])
    wm = np.ma.masked_array([1.0, 2.0, -5.0, 1.0, 0.5], mask=[False, False, True, False, False])
    got = combine_pvalues(p, method="stouffer", weights=wm)
    want = stats.combine_pvalues(p, method="stouffer", weights=wm)
    np.testing.assert_allclose(got.p_value, want.pvalue, rtol=1e-12)
    assert got.k == 4


def test_weights_left_all_zero_after_omission_are_refused():
    p = np.array([0.01, 0.2, 0.5])
    w = np.array([0.0, np.nan, 0.0])
    with pytest.raises(ValueError, match="weights must not be all zero"):
        combine_pvalues(p, method="stouffer", weights=w, nan_policy="omit")
    with pytest.raises(ValueError, match="weights must not be all zero"):
        combine_pvalues(p, method="stouffer", weights=[0.0, 0.0, 0.0])
