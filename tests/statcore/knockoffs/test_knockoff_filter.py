"""The knockoff filter and its statistics: R's stat.lasso_lambdasmax and lm.fit's coefficient difference
(golden), R's knockoff.threshold through the filter, names, derandomisation, and the Monte Carlo FDR."""
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from statcore import knockoff_filter
from statcore.multitest._knockoff_threshold import knockoff_threshold  # h/mt2's (public as statcore.knockoff_threshold there)
from statcore.knockoffs._statistics import lasso_coefdiff, lasso_lambdasmax, marginal, ols_coefdiff
from statcore.testing import assert_error_rate
from statcore.utils import thread_limit

GOLDEN = json.loads((Path(__file__).resolve().parents[2] / "golden" / "knockoffs" / "knockoff_golden.json").read_text())


def test_r_threshold_golden():
    for row in GOLDEN["threshold"]:
        want = np.inf if row["threshold"] == "Inf" else row["threshold"]
        assert knockoff_threshold(row["W"], fdr=row["fdr"], offset=row["offset"]) == want


def test_statistics_match_r():
    g = GOLDEN["statistics"]
    X, Xk, y = np.array(g["X"]), np.array(g["Xk"]), np.array(g["y"])
    rng = np.random.default_rng(0)
    np.testing.assert_allclose(ols_coefdiff(X, Xk, y, rng), g["ols_coefdiff"], atol=1e-12)
    for _ in range(3):                       # the random swap changes nothing: the path is swap-invariant
        np.testing.assert_allclose(lasso_lambdasmax(X, Xk, y, rng), g["lasso_lambdasmax"], rtol=1e-9)


def test_statistics_antisymmetric_under_swap():
    """Swapping X_j with its knockoff flips the sign of W_j (the knockoff flip-sign property)."""
    rng = np.random.default_rng(1)
    X = rng.standard_normal((60, 4))
    Xk = 0.5 * X + rng.standard_normal((60, 4))
    y = X @ np.array([1.0, -1.0, 0.0, 0.5]) + rng.standard_normal(60)
    X2, Xk2 = X.copy(), Xk.copy()
    X2[:, 1], Xk2[:, 1] = Xk[:, 1], X[:, 1]
    flip = np.array([1, -1, 1, 1])
    for stat in (ols_coefdiff, marginal, lasso_lambdasmax):
        np.testing.assert_allclose(stat(X2, Xk2, y, np.random.default_rng(5)),
                                   flip * stat(X, Xk, y, np.random.default_rng(5)), atol=1e-9)
    w1 = lasso_coefdiff(X, Xk, y, np.random.default_rng(5))
    w2 = lasso_coefdiff(X2, Xk2, y, np.random.default_rng(5))
    np.testing.assert_allclose(w2, flip * w1, atol=1e-4)  # LassoCV tol=1e-6: column order moves the fit by ~1e-6


def _design(seed, n=300, p=20, k=5, amp=1.0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    beta = np.zeros(p)
    beta[:k] = amp
    return X, X @ beta + rng.standard_normal(n)


def test_filter_selects_threshold_names_and_seed():
    X, y = _design(0)
    frame = pd.DataFrame(X, columns=[f"v{j}" for j in range(20)])
    res = knockoff_filter(frame, y, knockoffs="fixed", statistic="lasso_lambdasmax", fdr=0.2, seed=1,
                          keep_knockoffs=True)
    assert res.selected.tolist() == np.flatnonzero(res.W >= res.threshold).tolist()
    assert res.threshold == knockoff_threshold(res.W, fdr=0.2, offset=1)
    assert set(range(5)) <= set(res.selected.tolist())
    assert res.selected_names == tuple(f"v{j}" for j in res.selected)
    assert res.Xk.shape == (300, 20)
    assert "Selected variables:" in res.summary() and "v0" in res.summary()
    assert res.to_frame()["selected"].sum() == res.selected.size
    again = knockoff_filter(frame, y, knockoffs="fixed", statistic="lasso_lambdasmax", fdr=0.2, seed=1)
    assert again == res                                     # Xk is not compared; the same seed, the same W
    assert knockoff_filter(X, y, knockoffs="fixed", statistic="ols_coefdiff", seed=1).Xk is None


def test_filter_callables_and_derandomize():
    X, y = _design(1)
    Sigma = np.eye(20)
    res = knockoff_filter(X, y, knockoffs=lambda x: np.random.default_rng(0).standard_normal(x.shape),
                          statistic=lambda x, xk, yy: np.abs(x.T @ yy) - np.abs(xk.T @ yy), fdr=0.2)
    assert res.knockoffs == "callable" and res.statistic == "callable"
    assert set(range(5)) <= set(res.selected.tolist())
    dr = knockoff_filter(X, y, knockoffs="gaussian", mu=np.zeros(20), Sigma=Sigma, method="equi",
                         statistic="ols_coefdiff", fdr=0.2, derandomize=5, seed=2)
    assert dr.W.shape == (5, 20) and dr.e_values.shape == (20,)
    assert set(range(5)) <= set(dr.selected.tolist())
    assert np.all(dr.e_values[dr.selected] >= dr.threshold)


def test_filter_bad_input():
    X, y = _design(2, n=30, p=20)
    with pytest.raises(ValueError, match="fdr"):
        knockoff_filter(X, y, fdr=1.5)
    with pytest.raises(ValueError, match="offset"):
        knockoff_filter(X, y, offset=2)
    with pytest.raises(ValueError, match="n >= 2p"):
        knockoff_filter(X, y, knockoffs="fixed")
    with pytest.raises(ValueError, match="W"):
        knockoff_threshold([1.0, np.nan, 2.0])
    with pytest.raises(ValueError, match="statistic"):
        knockoff_filter(X, y, statistic=lambda x, xk, yy: np.full(20, np.nan))
    with pytest.raises(ValueError, match="derandomize"):
        knockoff_filter(X, y, derandomize=0)


@pytest.mark.slow
def test_knockoff_plus_fdr_monte_carlo(capsys):
    """Model-X knockoff+ (known AR(1) Sigma, rho = 0.3; equicorrelated S, solved in closed form per
    replicate: the SDP's 200-variable barrier solve would cost ~1 s each; ols_coefdiff) on n = 600,
    p = 200, 20 signals: the realised FDR is at most 0.1 + 3 Monte Carlo s.e. Power is printed next to
    BH on the OLS t-test p-values and on marginal-correlation p-values."""
    from scipy import stats

    n, p, k, fdr, reps = 600, 200, 20, 0.1, 200
    Sigma = 0.3 ** np.abs(np.subtract.outer(np.arange(p), np.arange(p)))
    L = np.linalg.cholesky(Sigma)
    power = {"knockoff+": [], "BH (OLS t)": [], "BH (marginal)": []}
    fdp_marginal = []

    def sampler(rng):
        X = rng.standard_normal((n, p)) @ L.T
        support = np.sort(rng.choice(p, k, replace=False))
        beta = np.zeros(p)
        beta[support] = 0.3 * rng.choice([-1, 1], k)
        return X, X @ beta + rng.standard_normal(n), support

    def bh(pv):
        m = pv.size
        o = np.argsort(pv)
        ok = np.flatnonzero(pv[o] <= fdr * np.arange(1, m + 1) / m)
        return o[: ok[-1] + 1] if ok.size else np.array([], dtype=int)

    def error(data, rng):
        X, y, support = data
        res = knockoff_filter(X, y, knockoffs="gaussian", mu=np.zeros(p), Sigma=Sigma, method="equi",
                              statistic="ols_coefdiff", fdr=fdr, offset=1, seed=rng)
        sel = res.selected
        Xc = np.column_stack([np.ones(n), X])
        Q, R = np.linalg.qr(Xc)
        b = np.linalg.solve(R, Q.T @ y)
        resid = y - Xc @ b
        s2 = resid @ resid / (n - p - 1)
        Rinv = np.linalg.inv(R)
        se = np.sqrt(s2 * np.sum(Rinv ** 2, axis=1))[1:]
        p_ols = 2 * stats.t.sf(np.abs(b[1:] / se), n - p - 1)
        r = np.corrcoef(X.T, y)[-1, :-1]
        p_marg = 2 * stats.t.sf(np.abs(r * np.sqrt((n - 2) / (1 - r ** 2))), n - 2)
        for name, s in (("knockoff+", sel), ("BH (OLS t)", bh(p_ols)), ("BH (marginal)", bh(p_marg))):
            power[name].append(np.isin(support, s).mean())
        sm = bh(p_marg)
        fdp_marginal.append(np.mean(~np.isin(sm, support)) if sm.size else 0.0)
        return np.mean(~np.isin(sel, support)) if sel.size else 0.0

    with thread_limit(1):                    # small dense algebra: one BLAS thread is faster on a shared machine
        cal = assert_error_rate(error, sampler, alpha=fdr, reps=reps, seed=20261205)
    with capsys.disabled():
        print(f"\nknockoff+ FDR {cal}; power: " + ", ".join(f"{k} {np.mean(v):.3f}" for k, v in power.items())
              + f"; BH (marginal) FDR {np.mean(fdp_marginal):.3f}")
