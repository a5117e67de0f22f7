"""The matrix Renyi entropy at every order against an mpmath reference (50 digits): the log1p form
near sum lambda^alpha = 1 (orders near 1), the log-sum-exp form elsewhere, so that large orders keep
their precision (np.eye(64) at order 10 was 4.0819 for log 64 = 4.1589, and inf at orders 20 and 100)
and the order -> infinity limit meets the min-entropy -log lambda_max."""
import math

import mpmath
import numpy as np
import pytest

from statcore import renyi_matrix_entropy
from statcore.uncertainty._glu import _gram_eigs, _renyi_from_gram_eigs

ORDERS = (0.01, 0.3, 0.5, 0.9, 0.999, 1 - 1e-9, 1.0, 1 + 1e-9, 1.001, 1.5, 2.0, 3.0, 5.0, 10.0, 20.0, 50.0,
          100.0, 1e3, 1e6, 1e300, math.inf)


def _renyi_mp(eigs, alpha, dps=50):
    """The entropy of float eigenvalues in 50-digit arithmetic, with the same normalisation and the
    same cut of normalised eigenvalues at or below 1e-12."""
    with mpmath.workdps(dps):
        lam = [mpmath.mpf(float(v)) for v in np.clip(eigs, 0, None)]
        total = mpmath.fsum(lam)
        lam = [v / total for v in lam]
        lam = [v for v in lam if v > mpmath.mpf("1e-12")]
        if math.isinf(alpha):
            return float(-mpmath.log(max(lam)))
        a = mpmath.mpf(alpha)
        if a == 1:
            return float(-mpmath.fsum(v * mpmath.log(v) for v in lam))
        return float(mpmath.log(mpmath.fsum(v ** a for v in lam)) / (1 - a))


@pytest.mark.parametrize("alpha", [2, 5, 10, 20, 50, 100, 1e3, 1e300, math.inf])
def test_orthogonal_rows_give_log_t_at_every_order(alpha):
    """The issue's example: 64 orthogonal rows of equal norm, entropy log 64 at every order."""
    assert renyi_matrix_entropy(np.eye(64), order=alpha) == pytest.approx(math.log(64), rel=1e-14)


@pytest.mark.parametrize("alpha", ORDERS)
def test_known_spectra_against_mpmath(alpha):
    """Diagonal H: the Gram eigenvalues are the squared diagonal, exactly; spectra from flat to steep."""
    rng = np.random.default_rng(5)
    spectra = [np.full(10, 3.0), 0.5 ** np.arange(30), 0.9 ** np.arange(64), rng.exponential(size=40),
               np.r_[1.0, np.full(63, 1e-3)], np.r_[np.full(5, 1.0), np.full(20, 1e-9)]]
    for w in spectra:
        H = np.diag(np.sqrt(w))
        got = renyi_matrix_entropy(H, order=alpha)
        want = _renyi_mp(w, alpha)
        assert got == pytest.approx(want, rel=1e-13, abs=1e-15), (w[:3], alpha, got, want)


@pytest.mark.parametrize("alpha", ORDERS)
def test_random_hidden_states_against_mpmath(alpha):
    """The formula on the eigenvalues numpy computes (the eigen-solver's own error aside)."""
    rng = np.random.default_rng(6)
    for T, d in [(6, 40), (40, 6), (25, 25), (128, 16)]:
        H = rng.normal(size=(T, d)) * rng.exponential(size=d)
        eigs = _gram_eigs(H)
        got = _renyi_from_gram_eigs(eigs, float(alpha))
        assert got == renyi_matrix_entropy(H, order=alpha)
        assert got == pytest.approx(_renyi_mp(eigs, alpha), rel=1e-13, abs=1e-15)


def test_large_orders_approach_the_min_entropy():
    """S_alpha decreases to -log lambda_max, as alpha / (alpha - 1) times it at most (Renyi)."""
    H = np.diag(np.sqrt(np.r_[4.0, 2.0, 1.0, 1.0, 0.5]))
    lam_max = 4.0 / 8.5
    min_entropy = -math.log(lam_max)
    assert renyi_matrix_entropy(H, order=math.inf) == pytest.approx(min_entropy, rel=1e-15)
    previous = math.inf
    for alpha in (2.0, 10.0, 100.0, 1e4, 1e8, 1e16, 1e300):
        s = renyi_matrix_entropy(H, order=alpha)
        assert min_entropy <= s <= alpha / (alpha - 1) * min_entropy * (1 + 1e-15)
        assert s <= previous
        previous = s
    assert renyi_matrix_entropy(H, order=1e300) == pytest.approx(min_entropy, rel=1e-15)
