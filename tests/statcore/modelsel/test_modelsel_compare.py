"""Model comparison without R: compare_models' weights (properties), bad input, and the per-group
comparison (win counts, bootstrap over groups, n_jobs independence)."""
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import statcore as sc
from statcore import LogLik


def test_compare_models_bad_input():
    with pytest.raises(ValueError, match="same number of observations"):
        sc.compare_models([LogLik(-10.0, 2, 50), LogLik(-9.0, 3, 51)])
    with pytest.raises(ValueError, match="not finite"):
        sc.compare_models({"a": LogLik(-10.0, 2, 50), "b": LogLik(float("nan"), 3, 50)})
    with pytest.raises(ValueError, match="at least one model"):
        sc.compare_models({})
    with pytest.raises(ValueError, match="at least one model"):
        sc.aic()
    with pytest.raises(ValueError, match="unknown criterion"):
        sc.compare_models([LogLik(-1.0, 1, 5)], criterion="DIC")
    with pytest.raises(TypeError, match="models must be a dict"):
        sc.compare_models(LogLik(-1.0, 1, 5))
    with pytest.warns(sc.NobsWarning, match="same number of observations"):
        sc.aic(LogLik(-10.0, 2, 50), LogLik(-9.0, 3, 51))   # R warns here and still prints


@settings(max_examples=60, deadline=None)
@given(lls=st.lists(st.floats(-1e4, 0, allow_nan=False), min_size=1, max_size=8),
       dfs=st.lists(st.integers(0, 20), min_size=8, max_size=8),
       shift=st.floats(-1e3, 1e3, allow_nan=False))
def test_weights_properties(lls, dfs, shift):
    models = {f"m{i}": LogLik(v, dfs[i], 500) for i, v in enumerate(lls)}
    res = sc.compare_models(models)
    assert res.weight.sum() == pytest.approx(1.0)
    assert np.all(np.diff(res.values) >= 0) and np.all(res.delta >= 0) and res.delta[0] == 0
    assert np.all(np.diff(res.cum_weight) >= -1e-15)
    shifted = sc.compare_models({k: LogLik(m.value + shift, m.df, m.nobs) for k, m in models.items()})
    np.testing.assert_allclose(shifted.weight, res.weight, atol=1e-9)
    assert shifted.names == res.names



# --- compare_by_group ----------------------------------------------------------------------------

def _synthetic_groups(G, seed=0):
    rng = np.random.default_rng(seed)
    base = -rng.uniform(400, 600, G)
    gain = rng.normal(4.0, 5.0, G)
    return {f"g{i}": {"1L": LogLik(base[i], 5, 1000), "2L": LogLik(base[i] + gain[i] / 2, 8, 1000),
                      "2NL": LogLik(base[i] + gain[i] + 3, 8, 1000)} for i in range(G)}


def test_compare_by_group_counts_and_bootstrap():
    fits = _synthetic_groups(88)
    res = sc.compare_by_group(fits, B=500, seed=7)
    # brute force
    aics = {g: {m: ll.aic() for m, ll in ms.items()} for g, ms in fits.items()}
    best = {g: min(a, key=a.get) for g, a in aics.items()}
    for m in ("1L", "2L", "2NL"):
        assert res.wins[m] == sum(b == m for b in best.values())
        assert res.table.loc[m, "sum_aic"] == pytest.approx(sum(a[m] for a in aics.values()))
        assert res.table.loc[m, "sum_delta_aic"] == pytest.approx(
            sum(a[m] - min(a.values()) for a in aics.values()))
    assert list(res.per_group["best"]) == [best[g] for g in fits]
    assert sum(res.wins.values()) == 88
    assert res.boot_wins.shape == (500, 3) and np.all(res.boot_wins.sum(axis=1) == 88)
    t = res.table
    assert np.all(t["wins_lower"] <= t["wins"]) and np.all(t["wins"] <= t["wins_upper"])
    assert t["p_most_wins"].sum() == pytest.approx(1.0)
    assert res.headline().startswith(f"{t.index[0]} best in {res.wins[t.index[0]]} of 88 groups")
    # bootstrap share has the binomial standard error approximately
    j = list(res.models).index(t.index[0])
    share = res.wins[t.index[0]] / 88
    assert res.boot_wins[:, j].std() / 88 == pytest.approx(math.sqrt(share * (1 - share) / 88), rel=0.2)
    # same seed, same answer; n_jobs gives the same table
    again = sc.compare_by_group(fits, B=500, seed=7, n_jobs=2)
    np.testing.assert_array_equal(again.boot_wins, res.boot_wins)
    pd.testing.assert_frame_equal(again.table, res.table)
    assert "P(most)" in str(res) and res.plot() is not None
    assert sc.compare_by_group(fits, B=0).boot_wins is None


def test_compare_by_group_bad_input():
    fits = _synthetic_groups(3)
    fits["g1"] = {"1L": fits["g1"]["1L"], "2L": fits["g1"]["2L"]}
    with pytest.raises(ValueError, match="group 'g1' does not hold the same models"):
        sc.compare_by_group(fits)
    fits = _synthetic_groups(3)
    fits["g2"]["2L"] = LogLik(-1.0, 8, 999)
    with pytest.raises(ValueError, match="group 'g2'.*same number of observations"):
        sc.compare_by_group(fits)
    with pytest.raises(ValueError, match="collide once written as text"):
        sc.compare_by_group({"a": {1: LogLik(-1.0, 1, 10), "1": LogLik(-2.0, 1, 10)}})
    with pytest.raises(ValueError, match="fits is empty"):
        sc.compare_by_group({})
    with pytest.raises(TypeError, match="fits must be a mapping"):
        sc.compare_by_group([1, 2])
    with pytest.raises(ValueError, match="B must be >= 0"):
        sc.compare_by_group(_synthetic_groups(3), B=-1)
    with pytest.raises(ValueError, match="n_jobs must be a positive number of workers"):
        sc.compare_by_group(_synthetic_groups(3), n_jobs=0)
    with pytest.raises(TypeError, match="n_jobs must be a non-zero integer"):
        sc.compare_by_group(_synthetic_groups(3), n_jobs="2")


def test_one_return_type_for_any_number_of_models():
    """aic, bic, aicc return an ICTable for one model as for several; float() of a one-row table is
    the criterion (-2 logLik + k df), of a larger table a TypeError."""
    one = LogLik(-45.2, 3, 40)
    for func, value in ((sc.aic, 2 * 45.2 + 2 * 3), (sc.bic, 2 * 45.2 + np.log(40) * 3),
                        (sc.aicc, 2 * 45.2 + 2 * 3 + 2 * 3 * 4 / (40 - 3 - 1))):
        tab = func(one)
        assert isinstance(tab, sc.ICTable) and tab.names == ("model1",) and len(tab) == 1
        assert float(tab) == pytest.approx(value, rel=1e-14) and tab["model1"] == float(tab)
        two = func(a=one, b=LogLik(-43.1, 4, 40))
        assert isinstance(two, sc.ICTable) and len(two) == 2
        with pytest.raises(TypeError, match="index it by name"):
            float(two)


@pytest.mark.parametrize("params", [{"loc": 0.0, "scale": -1.0}, (0.0, -2.0), (0.0, 0.0)])
def test_loglik_of_a_scipy_triple_refuses_invalid_parameters(params):
    """A negative scale gave a NaN log-likelihood silently (issue 29)."""
    from scipy import stats

    with pytest.raises(ValueError, match=r"^params .* are not valid parameters of scipy\.stats\.norm"):
        sc.loglik((stats.norm, params, np.array([0.1, 0.5, -0.3])))
    with pytest.raises(ValueError, match=r"scipy\.stats\.gamma"):
        sc.loglik((stats.gamma, (-1.0,), np.array([0.1, 0.5])))
