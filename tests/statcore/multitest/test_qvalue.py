"""qvalue / pi0est / lfdr against Bioconductor qvalue 2.30 (golden and live), fallbacks, properties."""
import warnings

import numpy as np
import pandas as pd
import pytest

import statcore as sc
from helpers import load_golden_json, r_vector, requires_r, run_r


def golden_inputs():
    p1 = np.r_[(np.arange(1, 201) - 0.5) / 200 * 0.01, (np.arange(1, 801) - 0.5) / 800]
    p2 = np.r_[(np.arange(1, 301) / 301) ** 4, (np.arange(1, 701) * 0.6180339887498949) % 1]
    return {"det1": p1, "det2": p2}


@pytest.mark.parametrize("case", ["det1", "det2"])
def test_golden_pi0_and_qvalues(case):
    gold = load_golden_json("fdr", "qvalue_deterministic.json")[case]
    p = golden_inputs()[case]
    res = sc.qvalue(p)
    assert res.pi0 == pytest.approx(gold["pi0_smoother"], abs=1e-6)
    np.testing.assert_allclose(res.pi0_lambda, gold["pi0_lambda"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(res.q_values, gold["qvalues_smoother"], rtol=0, atol=1e-6)
    np.testing.assert_allclose(res.lfdr, gold["lfdr_smoother"], rtol=0, atol=1e-6)
    boot = sc.qvalue(p, pi0_method="bootstrap")
    assert boot.pi0 == pytest.approx(gold["pi0_bootstrap"], abs=1e-12)
    np.testing.assert_allclose(boot.q_values, gold["qvalues_bootstrap"], rtol=0, atol=1e-12)
    assert sc.pi0est(p, lambda_=0.5).pi0 == pytest.approx(gold["pi0_lambda_0.5"], abs=1e-12)


def test_golden_tight_where_arithmetic_is_the_same():
    """Given R's pi0, our q-values are R's to rounding (the only slack is in pi0 itself)."""
    gold = load_golden_json("fdr", "qvalue_deterministic.json")["det2"]
    p = golden_inputs()["det2"]
    res = sc.qvalue(p, pi0=gold["pi0_smoother"], lfdr_out=False)
    np.testing.assert_allclose(res.q_values, gold["qvalues_smoother"], rtol=1e-14, atol=0)


R_QV = r"""
suppressMessages(library(qvalue))
out <- function(tag, v) cat(tag, sprintf("%.17g", v), "\n")
"""


@requires_r("qvalue")
def test_live_r_random_inputs():
    rng = np.random.default_rng(11)
    cases = []
    for k in range(6):
        m = int(rng.integers(200, 3000))
        n1 = int(m * rng.uniform(0.05, 0.4))
        z = np.r_[rng.normal(rng.uniform(1.5, 3.5), 1, n1), rng.normal(0, 1, m - n1)]
        from scipy.stats import norm
        p = 2 * norm.sf(np.abs(z))
        if k % 2:
            p = np.round(p, 4)  # ties
        p[rng.uniform(size=m) < 0.03] = np.nan
        cases.append(p)
    code = [R_QV]
    for i, p in enumerate(cases):
        code.append(f"p <- {r_vector(p)}")
        code.append(f"a <- qvalue(p); b <- qvalue(p, pi0.method = 'bootstrap'); c <- qvalue(p, pfdr = TRUE, lambda = 0.4)")
        code.append(f"out('{i} pi0', a$pi0); out('{i} q', a$qvalues); out('{i} lfdr', a$lfdr)")
        code.append(f"out('{i} bpi0', b$pi0); out('{i} bq', b$qvalues); out('{i} cq', c$qvalues)")
        code.append(f"out('{i} logit', lfdr(p, pi0 = a$pi0, transf = 'logit'))")
    got = {}
    for line in run_r("\n".join(code)).strip().splitlines():
        i, tag, *vals = line.split()
        got[(int(i), tag)] = np.array([np.nan if v == "NA" else float(v) for v in vals])
    for i, p in enumerate(cases):
        a = sc.qvalue(p)
        assert a.pi0 == pytest.approx(got[(i, "pi0")][0], abs=1e-6)
        np.testing.assert_allclose(a.q_values, got[(i, "q")], atol=1e-6, rtol=0)
        np.testing.assert_allclose(a.lfdr, got[(i, "lfdr")], atol=1e-6, rtol=0)
        b = sc.qvalue(p, pi0_method="bootstrap")
        assert b.pi0 == pytest.approx(got[(i, "bpi0")][0], abs=1e-12)
        np.testing.assert_allclose(b.q_values, got[(i, "bq")], atol=1e-12, rtol=0)
        c = sc.qvalue(p, pfdr=True, lambda_=0.4)
        r_cq = got[(i, "cq")]
        # R's pFDR q-values are NaN from p = 0 on (0/0 then cummin); ours use the limit there
        finite = np.isfinite(r_cq)
        np.testing.assert_allclose(c.q_values[finite], r_cq[finite], atol=1e-12, rtol=0)
        assert np.all(np.isfinite(c.q_values[~np.isnan(p)]))
        np.testing.assert_allclose(sc.lfdr(p, pi0=a.pi0, transf="logit"), got[(i, "logit")], atol=1e-6)


@requires_r("qvalue")
def test_summary_matches_r_print():
    p = golden_inputs()["det1"]
    r_out = run_r(R_QV + f"p <- {r_vector(p)}\nsummary(qvalue(p))\n")
    ours = sc.qvalue(p).summary()
    # the Call line shows the caller's expression; everything after it is R's layout exactly
    assert ours.split("pi0:", 1)[1] == r_out.split("pi0:", 1)[1]


def test_summary_layout_offline():
    txt = sc.qvalue(golden_inputs()["det1"]).summary()
    assert "\nCall:\nqvalue(p = p)\n\npi0:\t0.8\t\n\nCumulative number of significant calls:\n\n" in txt
    assert "          <1e-04 <0.001 <0.01 <0.025 <0.05 <0.1   <1" in txt


def test_nan_series_and_significant():
    p = golden_inputs()["det2"].copy()
    p[[3, 500]] = np.nan
    s = pd.Series(p, index=[f"g{i}" for i in range(p.size)])
    res = sc.qvalue(s, fdr_level=0.1)
    assert isinstance(res.q_values, pd.Series) and res.q_values.index.equals(s.index)
    assert np.isnan(res.q_values.iloc[3]) and np.isnan(res.lfdr.iloc[500])
    assert not res.significant.iloc[3]
    ref = sc.qvalue(p[~np.isnan(p)], fdr_level=0.1)
    np.testing.assert_array_equal(res.q_values.dropna().to_numpy(), ref.q_values)
    np.testing.assert_array_equal(res.significant.to_numpy()[~np.isnan(p)], ref.significant)
    frame = res.to_frame()
    assert list(frame.columns) == ["p_value", "q_value", "lfdr", "significant"]


def test_fallback_when_r_would_stop():
    p = np.linspace(0.001, 0.9, 100)  # nothing >= 0.95: R's smoother stops on NA
    with pytest.warns(sc.Pi0Warning, match="no p-value is >= max"):
        res = sc.qvalue(p)
    assert res.pi0 == 1.0
    np.testing.assert_allclose(res.q_values, sc.p_adjust(p, method="BH"), rtol=1e-15)
    with pytest.warns(sc.Pi0Warning, match="<= 0"):
        assert sc.pi0est(np.full(10, 0.01), lambda_=0.5).pi0 == 1.0
    with pytest.warns(sc.Pi0Warning, match="at least 2"):
        assert sc.lfdr([0.3], pi0=0.5)[0] == 1.0


def test_bad_input():
    with pytest.raises(ValueError, match=r"p must lie in \[0, 1\]"):
        sc.qvalue([0.1, 2.0])
    with pytest.raises(ValueError, match="fdr_level must lie in"):
        sc.qvalue([0.1, 0.2], fdr_level=0)
    with pytest.raises(ValueError, match="lambda_ must be a single value or at least 4"):
        sc.pi0est([0.1, 0.5], lambda_=[0.1, 0.2])
    with pytest.raises(ValueError, match=r"lambda_ must lie within \[0, 1\)"):
        sc.pi0est([0.1, 0.5], lambda_=1.0)
    with pytest.raises(ValueError, match="unknown pi0_method"):
        sc.qvalue([0.1, 0.5], pi0_method="spline")
    with pytest.raises(ValueError, match="pi0 must lie in"):
        sc.qvalue([0.1, 0.5], pi0=1.5)
    with pytest.raises(ValueError, match="no non-NaN"):
        sc.qvalue([np.nan])
    with pytest.raises(TypeError, match="p must be numeric, got text"):
        sc.qvalue(["x"])


def test_input_not_modified_and_plot(tmp_path):
    p = golden_inputs()["det1"]
    keep = p.copy()
    res = sc.qvalue(p)
    np.testing.assert_array_equal(p, keep)
    axes = res.plot()
    assert axes.shape == (2, 2)
    axes[0, 0].figure.savefig(tmp_path / "qvalue.png")


# ---------------------------------------------------------------- Bayesian FDR selection

def test_bfdr_select_small_example():
    lf = np.array([0.01, 0.5, 0.02, 0.2, 0.9])
    sel = sc.bfdr_select(lf, alpha=0.1)
    # running means of 0.01, 0.02, 0.2, 0.5: 0.01, 0.015, 0.0767, 0.1825
    np.testing.assert_array_equal(sel.selected, [True, False, True, True, False])
    np.testing.assert_allclose(sel.q_values, [0.01, 0.1825, 0.015, 0.23 / 3, 1.63 / 5])
    assert sel.n_selected == 3 and sel.threshold == 0.2
    assert sel.expected_fdr == pytest.approx(0.23 / 3)
    assert "selected: 3 of 5" in sel.summary()


def test_bfdr_ties_selected_together_and_brute_force():
    rng = np.random.default_rng(5)
    for _ in range(50):
        lf = np.round(rng.uniform(size=int(rng.integers(1, 40))) ** 2, 2)
        alpha = float(rng.uniform(0.01, 0.5))
        sel = sc.bfdr_select(lf, alpha=alpha)
        # brute force: largest threshold t whose selection {lf <= t} has mean <= alpha
        best = 0
        for t in np.unique(lf):
            chosen = lf <= t
            if lf[chosen].mean() <= alpha:
                best = max(best, chosen.sum())
        assert sel.n_selected == best
        if best:
            assert np.array_equal(sel.selected, lf <= sel.threshold)


def test_bfdr_bad_input_and_series():
    with pytest.raises(ValueError, match="lfdr must lie in"):
        sc.bfdr_select([0.1, 1.5])
    with pytest.raises(ValueError, match="lfdr contains 1 NaN value"):
        sc.bfdr_select([0.1, np.nan])
    with pytest.raises(ValueError, match="alpha must lie in"):
        sc.bfdr_select([0.1], alpha=0)
    s = pd.Series([0.3, 0.01], index=["a", "b"])
    out = sc.bfdr_select(s, alpha=0.05)
    assert isinstance(out.selected, pd.Series) and out.selected.to_dict() == {"a": False, "b": True}


def test_pfdr_at_zero_uses_the_limit():
    p = np.array([0.0, 0.0, 0.01, 0.2, 0.5, 0.9])
    res = sc.qvalue(p, pfdr=True, pi0=1.0, lfdr_out=False)
    assert np.all(np.isfinite(res.q_values))
    m = p.size
    ratio = np.array([1 / 1, 1 / 2] + [p[k] * m / ((k + 1) * (1 - (1 - p[k]) ** m)) for k in range(2, m)])
    want = np.minimum(1, np.minimum.accumulate(ratio[::-1])[::-1])
    np.testing.assert_allclose(res.q_values, want, rtol=1e-15)


# ---------------------------------------------------------------- results

def test_pi0estimate_is_a_result():
    p = golden_inputs()["det1"]
    est = sc.pi0est(p)
    assert repr(est) == "Pi0Estimate(pi0=0.8, method='smoother', n_lambda=19)"
    assert "pi0:    0.8" in est.summary() and "method: smoother" in est.summary()
    frame = est.to_frame()
    assert list(frame.columns) == ["lambda", "pi0_lambda", "pi0_smooth"] and len(frame) == 19
    np.testing.assert_allclose(frame["pi0_lambda"], est.pi0_lambda)
    with pytest.raises(AttributeError):
        est.pi0 = 0.5


def test_qvalue_attribute_names():
    p = golden_inputs()["det1"]
    res = sc.qvalue(p, fdr_level=0.05)
    assert repr(res) == "QValueResult(pi0=0.8, m=1000, fdr_level=0.05, n_significant=211)"
    np.testing.assert_array_equal(res.p_values, p)
    assert not hasattr(res, "qvalues") and not hasattr(res, "pvalues")
    assert not hasattr(sc.bfdr_select([0.3, 0.01], alpha=0.05), "qvalues")


def test_plot_range_argument(tmp_path):
    res = sc.qvalue(golden_inputs()["det1"])
    axes = res.plot(q_range=(0.0, 0.2))
    assert axes.shape == (2, 2)
    ax = sc.pi0est(golden_inputs()["det1"]).plot()
    assert ax.get_xlabel() == r"$\lambda$"
    import matplotlib.pyplot as plt

    plt.close("all")


def test_bfdr_nan_policy():
    lf = np.array([0.01, np.nan, 0.02, 0.2, 0.9])
    with pytest.raises(ValueError, match="nan_policy='omit'"):
        sc.bfdr_select(lf, alpha=0.1)
    sel = sc.bfdr_select(lf, alpha=0.1, nan_policy="omit")
    ref = sc.bfdr_select(lf[~np.isnan(lf)], alpha=0.1)
    np.testing.assert_array_equal(sel.selected, [True, False, True, True, False])
    assert np.isnan(sel.q_values[1])
    np.testing.assert_array_equal(sel.q_values[~np.isnan(lf)], ref.q_values)
    assert (sel.n_selected, sel.threshold, sel.expected_fdr) == (ref.n_selected, ref.threshold, ref.expected_fdr)
    with pytest.raises(ValueError, match="unknown nan_policy 'propagate'"):
        sc.bfdr_select(lf, alpha=0.1, nan_policy="propagate")


@pytest.mark.parametrize("fun", [sc.qvalue, sc.pi0est, sc.lfdr])
def test_dataframe_is_refused_naming_p(fun):
    """A DataFrame is several columns, not one family: refused with the ways to say which is meant."""
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"a": rng.uniform(size=50), "b": rng.uniform(size=50)})
    with pytest.raises(TypeError, match=r"p is a DataFrame with 2 columns.*p\.stack\(\)"):
        fun(df)


def test_matrix_is_one_family_as_in_r():
    """A 2-D array is pooled as one family and keeps its shape, as R's qvalue treats a matrix; the
    stacked DataFrame gives the same numbers with the (row, column) index."""
    rng = np.random.default_rng(4)
    a = rng.uniform(size=(60, 2)) ** 2
    res = sc.qvalue(a)
    flat = sc.qvalue(a.ravel())
    assert res.q_values.shape == (60, 2) and res.pi0 == flat.pi0
    np.testing.assert_array_equal(res.q_values.ravel(), flat.q_values)
    assert res.to_frame().shape[0] == 120
    stacked = sc.qvalue(pd.DataFrame(a, columns=["a", "b"]).stack())
    np.testing.assert_array_equal(stacked.q_values.to_numpy(), flat.q_values)
    assert stacked.to_frame().index[1] == (0, "b")
    per_column = pd.DataFrame(a, columns=["a", "b"]).apply(lambda col: sc.qvalue(col).q_values)
    np.testing.assert_array_equal(per_column["b"].to_numpy(), sc.qvalue(a[:, 1]).q_values)


def test_bfdr_plot_draws_the_running_mean_of_the_data():
    """With many tied local FDRs the plotted running mean is the data's (cumsum / k, no jump at the tie
    group), beside the sorted local FDRs themselves."""
    import matplotlib.pyplot as plt

    lf = np.r_[np.linspace(0.0, 0.5, 40), np.full(60, 0.9)]
    ax = sc.bfdr_select(lf, alpha=0.1).plot()
    lines = {ln.get_label(): ln for ln in ax.lines}
    k, mean = lines["mean local FDR of the k smallest"].get_data()
    np.testing.assert_allclose(mean, np.cumsum(np.sort(lf)) / np.arange(1, 101), rtol=1e-15)
    np.testing.assert_array_equal(lines["local FDR, sorted"].get_data()[1], np.sort(lf))
    assert np.max(np.diff(mean)) < 0.02          # no jump: the tie group's q-value is not drawn as the mean
    plt.close("all")
