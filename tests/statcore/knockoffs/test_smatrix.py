"""knockoff_s: the oracles fixed before the code (the AR(1) SDP optimum, equi's closed form), R knockoff
0.3.6's create.solve_equi / create.solve_sdp (golden values) and MVR / maxent against brute force."""
import json
from pathlib import Path

import numpy as np
import pytest
from scipy import optimize

from statcore import knockoff_s

GOLDEN = json.loads((Path(__file__).resolve().parents[2] / "golden" / "knockoffs" / "knockoff_golden.json").read_text())


def ar1(p, rho):
    return rho ** np.abs(np.subtract.outer(np.arange(p), np.arange(p)))


def lam_min(A):
    return np.linalg.eigvalsh(A)[0]


def test_ar1_sdp_optimum_is_one_two_thirds_one():
    """The claim: for AR(1) rho = 0.5, p = 10, the SDP optimum is s = (1, 2/3 x 8, 1), sum 22/3. It holds:
    the claimed s is feasible (2 Sigma - diag(s) has lambda_min 0 up to rounding), a dual point built from
    the null vector of 2 Sigma - diag(s) attains the same objective (weak duality: optimal), and the
    barrier solver lands on it."""
    G = ar1(10, 0.5)
    claim = np.r_[1.0, np.full(8, 2 / 3), 1.0]
    M = 2 * G - np.diag(claim)
    lam, V = np.linalg.eigh(M)
    assert lam[0] > -1e-12 and abs(lam[0]) < 1e-12 and lam[1] > 1e-3
    # dual of max 1's s.t. diag(s) <= 2G, s <= 1: min 2 tr(G Z) + sum(u), Z >= 0, u >= 0, diag(Z) + u >= 1.
    z = V[:, 0]
    c = 1 / z[1] ** 2
    Z = c * np.outer(z, z)
    assert np.allclose(np.diag(Z)[1:9], 1, atol=1e-9)           # interior coordinates: Z_jj = 1 exactly
    u = np.maximum(0, 1 - np.diag(Z))
    dual = 2 * np.trace(G @ Z) + u.sum()
    assert dual == pytest.approx(22 / 3, abs=1e-9)              # = the primal value at the claim
    res = knockoff_s(G, method="sdp")
    assert res.converged and res.certificate >= -1e-8
    np.testing.assert_allclose(res.s, claim, atol=2e-7)         # R's 1 - 1e-7 margin included
    assert res.s.sum() == pytest.approx(22 / 3, abs=2e-6)


def test_equi_closed_form_and_margin():
    for Sigma in (ar1(10, 0.5), ar1(6, 0.9), np.eye(4), 0.3 + 0.7 * np.eye(5)):
        res = knockoff_s(Sigma, method="equi")
        base = min(1.0, 2 * lam_min(Sigma))
        # R's create.solve_equi: times (1 - eps), eps the first power of ten from 1e-8 with lambda_min > 1e-8
        eps = 1e-8
        while lam_min(2 * Sigma - np.diag(np.full(len(Sigma), base * (1 - eps)))) <= 1e-8:
            eps *= 10
        np.testing.assert_allclose(res.s, base * (1 - eps), rtol=0, atol=1e-15)
        assert res.certificate > 0


@pytest.mark.parametrize("name", sorted(GOLDEN["smatrix"]))
def test_r_create_solve_equi_and_sdp(name):
    g = GOLDEN["smatrix"][name]
    Sigma = np.array(g["Sigma"])
    np.testing.assert_allclose(knockoff_s(Sigma, method="equi").s, g["equi"], rtol=1e-12, atol=1e-13)
    res = knockoff_s(Sigma, method="sdp")
    d = np.diag(Sigma)
    # Rdsdp stops at gaptol 1e-6: s agrees to its accuracy, and our sum(s) is at least R's
    np.testing.assert_allclose(res.s / d, np.array(g["sdp"]) / d, atol=2e-5)
    assert res.s.sum() / 1 >= np.sum(g["sdp"]) - 1e-6 * d.sum()
    assert res.certificate >= -1e-8


def _brute(G, method):
    p = len(G)

    def f(logs):
        s = np.exp(logs)
        M = 2 * G - np.diag(s)
        lam = np.linalg.eigvalsh(M)
        if lam[0] <= 0:
            return 1e10
        if method == "mvr":
            return np.sum(1 / s) + np.sum(1 / lam)
        return -(np.sum(np.log(s)) + np.sum(np.log(lam)))

    best = None
    for start in (0.2, 0.5):
        r = optimize.minimize(f, np.full(p, np.log(start * min(1, 2 * lam_min(G)))), method="Nelder-Mead",
                              options=dict(xatol=1e-10, fatol=1e-13, maxiter=40000, maxfev=40000))
        best = r if best is None or r.fun < best.fun else best
    return np.exp(best.x), best.fun


@pytest.mark.parametrize("method", ["mvr", "maxent"])
def test_mvr_maxent_match_brute_force(method):
    G = ar1(4, 0.6) * 0.9 + 0.1 * np.eye(4) + 0.05 * np.outer([1, -1, 1, 0], [1, -1, 1, 0])
    G = G / np.sqrt(np.outer(np.diag(G), np.diag(G)))
    res = knockoff_s(G, method=method)
    s_bf, f_bf = _brute(G, method)
    assert res.converged and res.certificate > 0
    assert res.objective <= f_bf + 1e-7                         # at least as good as brute force
    np.testing.assert_allclose(res.s, s_bf, atol=1e-4)


def test_scale_equivariance():
    """Every method works on the correlation matrix and scales s by the variances (R's cov2cor)."""
    Sigma = ar1(5, 0.4)
    d = np.array([1.0, 4.0, 0.25, 9.0, 2.0])
    Sd = Sigma * np.sqrt(np.outer(d, d))
    for method in ("equi", "sdp", "mvr", "maxent"):
        np.testing.assert_allclose(knockoff_s(Sd, method=method).s, knockoff_s(Sigma, method=method).s * d,
                                   rtol=1e-9)


def test_bad_sigma():
    with pytest.raises(ValueError, match="Sigma must be positive definite"):
        knockoff_s(np.array([[1.0, 1.0], [1.0, 1.0]]))
    with pytest.raises(ValueError, match="Sigma must be symmetric"):
        knockoff_s(np.array([[1.0, 0.5], [0.1, 1.0]]))
    with pytest.raises(ValueError, match="Sigma must be a square"):
        knockoff_s(np.ones((2, 3)))
    with pytest.raises(ValueError, match="method"):
        knockoff_s(np.eye(3), method="asdp")


def test_sdp_ill_conditioned_newton_steps_stay_quiet():
    """Two nearly collinear columns (sample correlation about 0.995) push s_j towards 0, where the barrier's
    Hessian is ill-conditioned: scipy's LinAlgWarning came out of every Newton step (305 warnings for one
    call at p = 30). The steps are guarded by the line search and the answer by its certificate, so the
    solver keeps quiet, converges, and returns a feasible s with R's margin."""
    import warnings

    from scipy.linalg import LinAlgWarning

    rng = np.random.default_rng(0)
    Z = rng.standard_normal((120, 30))
    Z[:, 1] = Z[:, 0] + 0.1 * Z[:, 1]
    S = np.cov(Z, rowvar=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = knockoff_s(S, method="sdp")
    assert not [w for w in caught if issubclass(w.category, LinAlgWarning)]
    assert res.converged
    assert lam_min(2 * S - np.diag(res.s)) > 0
    assert res.s[0] < 0.05 and res.s[1] < 0.05  # the collinear pair can hardly differ from its knockoffs
