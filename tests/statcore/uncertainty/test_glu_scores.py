"""statcore.uncertainty against closed forms and brute force: the matrix Renyi entropy (rank 1 -> 0,
orthogonal equal-norm rows -> log T, scale invariance, the alpha -> 1 limit, the smaller Gram matrix
equal to the larger one), the evidential terms (uniform top-k -> log2 k bits, zero evidence -> EU = 1
and AU = log k, the Dirichlet expected entropy against Monte Carlo) and GLU's composition."""
import math

import numpy as np
import pytest
from scipy.stats import ortho_group

from statcore import evidential_token_uncertainty, glu_score, renyi_matrix_entropy

ORDERS = (0.5, 1, 2, 3.5, math.inf)


def _renyi_brute(H, alpha):
    """From the eigenvalues of the T x T Gram matrix H H^T, whatever the shape."""
    lam = np.clip(np.linalg.eigvalsh(H @ H.T), 0, None)
    lam = lam / lam.sum()
    lam = lam[lam > 1e-12]
    if alpha == 1:
        return -np.sum(lam * np.log(lam))
    if math.isinf(alpha):
        return -np.log(lam.max())
    return np.log(np.sum(lam ** alpha)) / (1 - alpha)


@pytest.mark.parametrize("alpha", ORDERS)
@pytest.mark.parametrize("T, d", [(5, 12), (12, 5)])
def test_rank_one_gives_zero(alpha, T, d):
    rng = np.random.default_rng(1)
    H = np.outer(rng.normal(size=T), rng.normal(size=d))
    assert renyi_matrix_entropy(H, order=alpha) == pytest.approx(0.0, abs=1e-10)


@pytest.mark.parametrize("alpha", ORDERS)
@pytest.mark.parametrize("T, d", [(6, 10), (7, 7)])
def test_orthogonal_equal_norm_rows_give_log_T(alpha, T, d):
    Q = ortho_group.rvs(d, random_state=3)
    H = 2.5 * Q[:T]
    assert renyi_matrix_entropy(H, order=alpha) == pytest.approx(math.log(T), rel=1e-12)


@pytest.mark.parametrize("alpha", ORDERS)
def test_scale_invariance(alpha):
    H = np.random.default_rng(2).normal(size=(9, 4))
    ref = renyi_matrix_entropy(H, order=alpha)
    for c in (1e-8, 0.3, 1e5):
        assert renyi_matrix_entropy(c * H, order=alpha) == pytest.approx(ref, rel=1e-10)


def test_alpha_to_one_limit_is_von_neumann():
    H = np.random.default_rng(4).normal(size=(8, 5))
    s = np.linalg.svd(H, compute_uv=False) ** 2
    lam = s / s.sum()
    von_neumann = -np.sum(lam * np.log(lam))
    assert renyi_matrix_entropy(H, order=1) == pytest.approx(von_neumann, rel=1e-12)
    for eps in (1e-3, 1e-5):
        # S_alpha = H1 - (alpha - 1)/2 * Var(-log lam) + O((alpha - 1)^2)
        for a in (1 - eps, 1 + eps):
            assert renyi_matrix_entropy(H, order=a) == pytest.approx(von_neumann, abs=5 * eps)
    # no loss of precision right next to 1
    for a in (1 - 1e-9, 1 + 1e-9):
        assert renyi_matrix_entropy(H, order=a) == pytest.approx(von_neumann, abs=1e-8)
    # and Renyi entropies decrease in the order
    vals = [renyi_matrix_entropy(H, order=a) for a in (0.5, 1, 2, 5, math.inf)]
    assert all(np.diff(vals) < 0)


@pytest.mark.parametrize("alpha", ORDERS)
@pytest.mark.parametrize("T, d", [(4, 30), (30, 4), (10, 10)])
def test_smaller_gram_matrix_gives_the_larger_ones_answer(alpha, T, d):
    H = np.random.default_rng(T * d).normal(size=(T, d))
    assert renyi_matrix_entropy(H, order=alpha) == pytest.approx(_renyi_brute(H, alpha), rel=1e-10)
    # and the same from H^T H computed by hand
    lam = np.clip(np.linalg.eigvalsh(H.T @ H), 0, None)
    lam = lam[lam / lam.sum() > 1e-12] / lam.sum()
    if alpha == 2:
        assert renyi_matrix_entropy(H, order=2) == pytest.approx(-np.log(np.sum(lam ** 2)), rel=1e-10)


def test_zero_matrix_and_row_order():
    assert renyi_matrix_entropy(np.zeros((3, 4))) == 0.0
    H = np.random.default_rng(5).normal(size=(7, 3))
    assert renyi_matrix_entropy(H[::-1]) == pytest.approx(renyi_matrix_entropy(H), rel=1e-12)


@pytest.mark.parametrize("k", [2, 5, 10])
def test_uniform_top_k_gives_log2_k_bits(k):
    V = 30
    rng = np.random.default_rng(k)
    z = rng.normal(-5, 1, size=(4, V))
    tops = np.array([3.0, 0.0, -2.0, 40.0])  # the k largest logits are equal in each row
    for i, top in enumerate(tops):
        z[i, rng.choice(V, size=k, replace=False)] = top
    tab = evidential_token_uncertainty(z, k=k).to_frame()
    np.testing.assert_allclose(tab["entropy"], math.log2(k), rtol=1e-13)
    # with equal evidence e on each of the k: EU = k / (k (e + 1)) = 1 / (e + 1)
    np.testing.assert_allclose(tab["epistemic"], 1 / (np.maximum(tops, 0) + 1), rtol=1e-13)
    np.testing.assert_allclose(tab["weighted_entropy"], tab["entropy"] * tab["epistemic"], rtol=1e-15)


def test_zero_evidence_gives_eu_one_and_au_log_k():
    z = -np.abs(np.random.default_rng(6).normal(size=(5, 12))) - 0.1
    z[0, :] = 0.0  # relu(0) = 0: no evidence either
    tab = evidential_token_uncertainty(z, k=7).to_frame()
    np.testing.assert_array_equal(tab["epistemic"], 1.0)
    np.testing.assert_allclose(tab["aleatoric"], math.log(7), rtol=1e-15)


def test_aleatoric_is_the_dirichlet_expected_entropy():
    """AU = E[H(p)] for p ~ Dirichlet(relu(top-k logits)), checked against 40 000 seeded draws (within
    4 Monte Carlo standard errors)."""
    z = np.array([[4.0, 2.5, 1.0, 0.7, 0.2, -1.0, -3.0]])
    k = 5
    au = evidential_token_uncertainty(z, k=k).aleatoric[0]
    rng = np.random.default_rng(7)
    p = rng.dirichlet(np.sort(z[0])[::-1][:k], size=40_000)
    h = -np.sum(p * np.log(p), axis=1)
    assert abs(h.mean() - au) < 4 * h.std() / math.sqrt(h.size)


def test_top_k_entropy_against_brute_force():
    rng = np.random.default_rng(8)
    z = rng.normal(size=(6, 25)) * 3
    k = 4
    tab = evidential_token_uncertainty(z, k=k).to_frame()
    for t in range(6):
        top = np.sort(z[t])[::-1][:k]
        p = np.exp(top - top.max())
        p /= p.sum()
        assert tab["entropy"][t] == pytest.approx(-np.sum(p * np.log2(p)), rel=1e-12)
        assert tab["epistemic"][t] == pytest.approx(k / np.sum(np.maximum(top, 0) + 1), rel=1e-14)


@pytest.mark.parametrize("T, k", [(12, 5), (3, 10), (1, 4)])
def test_glu_is_the_fusion_of_its_terms(T, k):
    rng = np.random.default_rng(T)
    Hs = rng.normal(size=(4, T, 16))
    Z = rng.normal(size=(T, 40)) * 2
    res = glu_score(Hs, Z, k=k, order=2)
    S = np.array([_renyi_brute(h, 2) for h in Hs])
    s_tilde = np.mean(S) / (1 + math.log(T))
    u = evidential_token_uncertainty(Z, k=k).weighted_entropy
    local = -np.mean(np.sort(u)[::-1][:min(k, T)])
    assert res.global_term == pytest.approx(s_tilde, rel=1e-12)
    assert res.local_term == pytest.approx(local, rel=1e-12)
    assert res.glu == pytest.approx((1 + s_tilde) * local, rel=1e-12)
    assert res.glu <= 0 and res.local_term <= 0 and res.global_term >= 0
    if T == 1:
        assert res.global_term == 0 and res.glu == res.local_term
    # token order does not matter (a permutation of the rows of every layer and of the logits)
    perm = rng.permutation(T)
    assert glu_score(Hs[:, perm], Z[perm], k=k).glu == pytest.approx(res.glu, rel=1e-12)


def test_glu_more_spread_and_flatter_logits_score_lower():
    """Collinear hidden states and peaked logits (confident) score higher than orthogonal states and
    flat logits (uncertain)."""
    T, d = 6, 16
    confident = glu_score(np.tile(np.ones((1, T, 1)) * np.arange(1, d + 1), (2, 1, 1)),
                          np.tile([[20.0] + [0.0] * 9], (T, 1)), k=10)
    Q = ortho_group.rvs(d, random_state=0)[:T]
    uncertain = glu_score(np.stack([Q, Q]), np.zeros((T, 10)) + 0.5, k=10)
    assert confident.global_term == pytest.approx(0, abs=1e-12)
    assert uncertain.global_term == pytest.approx(math.log(T) / (1 + math.log(T)))
    assert confident.glu > uncertain.glu
