"""Fixed-X and model-X Gaussian knockoffs: the exact identities, the joint covariance, R's deterministic
pieces (create.fixed's normalisation, s, mean part and C'C; corpcor's cov.shrink)."""
import json
from pathlib import Path

import numpy as np
import pytest

from statcore import knockoffs_fixed_x, knockoffs_gaussian
from statcore.knockoffs._samplers import _cov_shrink, gaussian_draw, second_order

GOLDEN = json.loads((Path(__file__).resolve().parents[2] / "golden" / "knockoffs" / "knockoff_golden.json").read_text())


def ar1(p, rho):
    return rho ** np.abs(np.subtract.outer(np.arange(p), np.arange(p)))


@pytest.mark.parametrize("method", ["sdp", "equi", "mvr", "maxent"])
def test_fixed_x_identities_whatever_the_random_part(method):
    X = np.random.default_rng(0).standard_normal((40, 7)) @ np.linalg.cholesky(ar1(7, 0.5)).T * 3 + 1
    for seed in (1, 2, 3):
        kv = knockoffs_fixed_x(X, method=method, seed=seed)
        np.testing.assert_allclose(np.sum(kv.X ** 2, axis=0), 1, atol=1e-12)       # R's normc, not centred
        np.testing.assert_allclose(kv.X, X / np.linalg.norm(X, axis=0), atol=1e-14)
        G = kv.X.T @ kv.X
        s = np.asarray(kv.smatrix.s)
        np.testing.assert_allclose(kv.Xk.T @ kv.Xk, G, rtol=0, atol=1e-12)
        np.testing.assert_allclose(kv.X.T @ kv.Xk, G - np.diag(s), rtol=0, atol=1e-12)
    assert not np.allclose(knockoffs_fixed_x(X, method=method, seed=1).Xk, knockoffs_fixed_x(X, method=method, seed=2).Xk)


@pytest.mark.parametrize("method", ["equi", "sdp"])
def test_fixed_x_r_deterministic_parts(method):
    f = GOLDEN["fixed"]
    g = f[method]
    kv = knockoffs_fixed_x(np.array(f["X"]), method=method, seed=0)
    np.testing.assert_allclose(kv.X, f["X_normalised"], atol=1e-14)
    s = np.asarray(kv.smatrix.s)
    if method == "equi":                     # create.fixed's closed form: exact
        np.testing.assert_allclose(s, g["s"], rtol=1e-13)
        tol = 1e-12
    else:                                    # DSDP's accuracy (gaptol 1e-6)
        np.testing.assert_allclose(s, g["s"], atol=1e-4)
        assert s.sum() >= np.sum(g["s"]) - 1e-6
        tol = 5e-4
    Ginv = np.linalg.inv(kv.X.T @ kv.X)
    np.testing.assert_allclose(kv.X - kv.X @ Ginv @ np.diag(s), g["mean_part"], atol=tol)
    np.testing.assert_allclose(2 * np.diag(s) - np.diag(s) @ Ginv @ np.diag(s), g["CtC"], atol=tol)
    # R's own knockoffs satisfy the same identities with its s
    XkXk, XXk = np.array(g["XkXk"]), np.array(g["XXk"])
    np.testing.assert_allclose(XkXk - XXk, np.diag(g["s"]), atol=1e-12)


def test_fixed_x_refuses_n_below_2p():
    with pytest.raises(ValueError, match=r"n >= 2p"):
        knockoffs_fixed_x(np.random.default_rng(0).standard_normal((15, 8)))
    X = np.random.default_rng(0).standard_normal((20, 3))
    X[:, 2] = X[:, 0] + X[:, 1]
    with pytest.raises(ValueError, match="rank deficient"):
        knockoffs_fixed_x(X)


def test_gaussian_conditional_formulas_exact():
    """Xk = X - (X - mu) Sigma^-1 D + Z C with C'C the Schur complement of the joint covariance."""
    p, n = 6, 50
    Sigma = ar1(p, 0.6) * np.outer(np.arange(1, p + 1), np.arange(1, p + 1)) ** 0.5
    mu = np.linspace(-1, 1, p)
    X = np.random.default_rng(1).multivariate_normal(mu, Sigma, size=n)
    s = np.asarray(knockoffs_gaussian(X, mu=mu, Sigma=Sigma, method="sdp", seed=0).smatrix.s)
    D = np.diag(s)
    J12 = Sigma - D
    mean = mu + (X - mu) @ np.linalg.solve(Sigma, J12)                  # E[Xk | X], the generic formula
    schur = Sigma - J12 @ np.linalg.solve(Sigma, J12)
    Xk = gaussian_draw(X, mu, Sigma, s, np.random.default_rng(9))
    Z = np.random.default_rng(9).standard_normal((n, p))
    C, *_ = np.linalg.lstsq(Z, Xk - mean, rcond=None)
    np.testing.assert_allclose(Z @ C, Xk - mean, atol=1e-10)
    np.testing.assert_allclose(C.T @ C, schur, atol=1e-10)


def test_gaussian_joint_covariance_monte_carlo():
    """The sample covariance of (X, Xk) over 20,000 rows is [[Sigma, Sigma - D], [Sigma - D, Sigma]]
    within 4.5 Monte Carlo standard errors (sqrt((S_ij^2 + S_ii S_jj) / n) per entry)."""
    p, n = 5, 20000
    Sigma = ar1(p, 0.5) * 2.0
    X = np.random.default_rng(2).multivariate_normal(np.zeros(p), Sigma, size=n)
    kv = knockoffs_gaussian(X, mu=np.zeros(p), Sigma=Sigma, method="sdp", seed=3)
    D = np.diag(kv.smatrix.s)
    J = np.block([[Sigma, Sigma - D], [Sigma - D, Sigma]])
    S = np.cov(np.hstack([X, kv.Xk]), rowvar=False)
    se = np.sqrt((J ** 2 + np.outer(np.diag(J), np.diag(J))) / n)
    assert np.max(np.abs(S - J) / se) < 4.5


def test_second_order_and_cov_shrink_match_corpcor():
    g = GOLDEN["cov_shrink"]
    X = np.array(g["X"])
    np.testing.assert_allclose(_cov_shrink(X), g["cov_shrink"], rtol=1e-12, atol=1e-13)
    mu, Sigma = second_order(X)                       # n = 15 > p = 10: the sample covariance is PD
    np.testing.assert_allclose(Sigma, np.cov(X, rowvar=False))
    mu, Sigma = second_order(X[:8])                   # n = 8 <= p: singular, shrunk
    np.testing.assert_allclose(Sigma, _cov_shrink(X[:8]))
    kv = knockoffs_gaussian(X[:8], method="equi", seed=1)
    np.testing.assert_allclose(kv.Sigma, _cov_shrink(X[:8]))


def test_gaussian_bad_input():
    X = np.random.default_rng(0).standard_normal((30, 3))
    with pytest.raises(ValueError, match="both mu and Sigma"):
        knockoffs_gaussian(X, mu=np.zeros(3))
    with pytest.raises(ValueError, match="Sigma must be positive definite"):
        knockoffs_gaussian(X, mu=np.zeros(3), Sigma=np.ones((3, 3)))
    with pytest.raises(ValueError, match="Sigma must be 3 x 3"):
        knockoffs_gaussian(X, mu=np.zeros(3), Sigma=np.eye(4))
