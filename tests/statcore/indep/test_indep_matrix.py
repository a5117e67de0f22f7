"""independence_matrix: every pair tested, p-values adjusted together, seeds per pair, groups."""
import numpy as np
import pandas as pd
import pytest
from scipy import stats

import statcore
from statcore import HTest, independence_matrix


def _pearson(x, y):
    r, p = stats.pearsonr(x[:, 0], y[:, 0])
    return HTest(statistic=float(r), statistic_name="r", p_value=float(p), estimate={"cor": float(r)},
                 method="Pearson", data_name="x and y")


def _frame(n=120, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=n)
    return pd.DataFrame({"a": a, "b": a + rng.normal(size=n), "c": rng.normal(size=n),
                         "d": np.cos(3 * a) + 0.3 * rng.normal(size=n), "e": rng.standard_t(2, size=n)})


def test_callable_pairs_and_bh_equal_direct_calls():
    df = _frame()
    res = independence_matrix(df, test=_pearson, p_adjust="BH")
    fr = res.to_frame()
    assert list(fr.columns) == ["var1", "var2", "statistic", "estimate", "p_value", "p_adjusted", "significant"]
    assert len(fr) == 10 and res.pairs == list(zip(fr["var1"], fr["var2"]))
    direct = np.array([stats.pearsonr(df[a], df[b])[1] for a, b in res.pairs])
    np.testing.assert_allclose(fr["p_value"], direct, rtol=1e-14)
    # BH by hand (R's p.adjust "BH": cumulative minimum from the largest p-value down)
    m = direct.size
    o = np.argsort(direct)[::-1]
    bh = np.empty(m)
    bh[o] = np.minimum.accumulate(np.minimum(1, direct[o] * m / np.arange(m, 0, -1)))
    np.testing.assert_allclose(fr["p_adjusted"], bh, rtol=1e-14)
    np.testing.assert_array_equal(fr["significant"], bh <= 0.05)
    # symmetric matrices, NaN diagonal, labelled frames
    P = res.matrix("p_adjusted")
    assert list(P.index) == list("abcde") and np.all(np.isnan(np.diag(P)))
    np.testing.assert_array_equal(P.to_numpy(), P.to_numpy().T)
    assert not res.significant.diagonal().any()
    assert res.matrix("estimate").loc["a", "b"] == pytest.approx(np.corrcoef(df["a"], df["b"])[0, 1], rel=1e-12)


def test_bare_pvalue_callable_and_no_adjustment():
    df = _frame()
    res = independence_matrix(df, test=lambda x, y: stats.spearmanr(x[:, 0], y[:, 0])[1], p_adjust="none")
    np.testing.assert_array_equal(res.p_values[np.triu_indices(5, 1)], res.p_adjusted[np.triu_indices(5, 1)])
    assert all(t is None for t in res.tests) and np.all(np.isnan(res.estimate))
    with pytest.raises(ValueError, match="no estimate"):
        res.plot(value="estimate")


def test_holm_and_aliases():
    df = _frame()
    r1 = independence_matrix(df, test=_pearson, p_adjust="holm")
    r2 = independence_matrix(df, test=_pearson, p_adjust="fdr")  # R's other name of BH
    r3 = independence_matrix(df, test=_pearson, p_adjust="fdr_bh")  # statsmodels' name
    iu = np.triu_indices(5, 1)
    np.testing.assert_allclose(r1.p_adjusted[iu], statcore.p_adjust(r1.p_values[iu], method="holm"))
    np.testing.assert_array_equal(r2.p_adjusted, r3.p_adjusted)
    assert r3.p_adjust == "BH"
    with pytest.raises(ValueError, match="p_adjust"):
        independence_matrix(df, test=_pearson, p_adjust="bh-ish")


def test_groups_are_multivariate_variables():
    df = _frame()
    seen = []

    def record(x, y):
        seen.append((x.shape[1], y.shape[1]))
        return 0.5

    res = independence_matrix(df, test=record, groups={"ab": ["a", "b"], "c": "c", "de": ["d", "e"]})
    assert res.names == ("ab", "c", "de") and sorted(seen) == [(1, 2), (2, 1), (2, 2)]
    assert res.groups == {"ab": ("a", "b"), "c": ("c",), "de": ("d", "e")}
    with pytest.raises(ValueError, match="share column"):
        independence_matrix(df, test=record, groups={"x": ["a", "b"], "y": ["b"]})


def test_nan_policy_omit_drops_rows_for_every_pair():
    df = _frame()
    df.loc[[3, 7], "c"] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        independence_matrix(df, test=_pearson)
    res = independence_matrix(df, test=_pearson, nan_policy="omit")
    assert res.n == 118
    clean = df.dropna()
    np.testing.assert_allclose(res.p_values[0, 1], stats.pearsonr(clean["a"], clean["b"])[1], rtol=1e-14)


def test_bad_pvalue_and_return_type_from_a_callable():
    df = _frame()
    with pytest.raises(ValueError, match="not in \\[0, 1\\]"):
        independence_matrix(df, test=lambda x, y: 1.5)
    with pytest.raises(TypeError, match="HTest or a p-value"):
        independence_matrix(df, test=lambda x, y: "p")


def test_summary_and_plot():
    import matplotlib

    matplotlib.use("Agg")
    res = independence_matrix(_frame(), test=_pearson)
    text = res.summary()
    assert "Pairwise tests of independence" in text and "p-values adjusted by BH over 10 pairs" in text
    assert text.count("*") == int(res.significant[np.triu_indices(5, 1)].sum())
    ax = res.plot()
    assert ax.get_title().startswith("_pearson")
    ax2 = res.plot(value="p_adjusted", annotate=False)
    assert len(ax2.texts) == 2 * int(res.significant[np.triu_indices(5, 1)].sum())


def test_constant_column_is_named_and_alpha_one_is_allowed():
    """One constant column failed the whole call blaming "y" (the pair's second argument); alpha=1.0 was
    refused although documented as (0, 1]."""
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"a": rng.normal(size=30), "b": rng.normal(size=30), "c": 2.0})
    with pytest.raises(ValueError, match=r"^data: the variable 'c' is constant"):
        independence_matrix(frame, B=19, seed=1)
    with pytest.raises(ValueError, match=r"^data: the variables 'V1', 'V3' are constant"):
        independence_matrix(np.column_stack([np.ones(30), frame.a, np.zeros(30)]), B=19, seed=1)
    # a group with one constant column among varying ones is a valid multivariate variable
    res = independence_matrix(frame, groups={"ac": ["a", "c"], "b": ["b"]}, B=19, seed=1)
    assert res.p_values.shape == (2, 2)
    res = independence_matrix(frame[["a", "b"]], B=19, seed=1, alpha=1.0)
    assert res.alpha == 1.0 and res.significant[0, 1]  # every adjusted p-value is <= 1


def test_n_jobs_changes_nothing():
    """The pairs' seed streams (statcore.utils.spawn_seeds keyed by the pair) do not depend on n_jobs."""
    df = _frame(60, seed=4)
    runs = [independence_matrix(df, test="dcor", B=49, seed=3, n_jobs=j) for j in (1, 2)]
    np.testing.assert_array_equal(runs[0].p_values, runs[1].p_values)
    np.testing.assert_array_equal(runs[0].statistic, runs[1].statistic)
    again = independence_matrix(df, test="dcor", B=49, seed=3)
    np.testing.assert_array_equal(again.p_values, runs[0].p_values)
