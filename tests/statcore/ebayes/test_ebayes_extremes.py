"""npmle and predictive_recursion at extreme magnitudes (issue 29): a noise sd of 1e-300 made sd ** 2
underflow to a ZeroDivisionError and 1e300 overflowed; both now work in units of a power of two near
the sd, so the fit of (s x, s sigma) is the fit of (x, sigma) scaled: atoms times s, the same weights,
the log-likelihood minus n log s."""
import math

import numpy as np
import pytest

from statcore import npmle, predictive_recursion

RNG = np.random.default_rng(7)
X = np.r_[RNG.normal(-2, 1, 60), RNG.normal(2, 1, 60)]


@pytest.mark.parametrize("scale", [1e-300, 1e300, 1e-150, 3.0])
def test_npmle_is_scale_equivariant(scale):
    ref = npmle(X, sigma=1.0, grid=41)
    res = npmle(X * scale, sigma=scale, grid=41)
    assert np.allclose(res.atoms / scale, ref.atoms, rtol=1e-12)
    assert np.allclose(res.weights, ref.weights, atol=1e-9)
    assert res.loglik + X.size * math.log(scale) == pytest.approx(ref.loglik, rel=1e-10)
    assert res.sigma == scale and np.array_equal(res.x, X * scale)


@pytest.mark.parametrize("scale", [1e-300, 1e300, 1e-150, 3.0])
def test_predictive_recursion_is_scale_equivariant(scale):
    ref = predictive_recursion(X, kernel_sd=1.0, grid=41, seed=1)
    res = predictive_recursion(X * scale, kernel_sd=scale, grid=41, seed=1)
    assert np.allclose(res.grid / scale, ref.grid, rtol=1e-12)
    assert np.allclose(res.weights, ref.weights, rtol=1e-9, atol=1e-15)
    assert res.loglik + X.size * math.log(scale) == pytest.approx(ref.loglik, rel=1e-10)
    assert res.predictive_loglik + X.size * math.log(scale) == pytest.approx(ref.predictive_loglik, rel=1e-10)
    assert res.kernel_sd == scale


def test_npmle_refuses_a_sigma_whose_likelihood_leaves_float64():
    """sigma 1e-300 with data of order 1: every atom is 1e298 noise sds away; mixsqp's active set emptied
    into a ValueError about a zero-size array."""
    with pytest.raises(ValueError, match=r"^sigma is too small for the grid: observation 0 lies"):
        npmle(X, sigma=np.full(X.size, 1e-300), grid=20)
    assert np.isfinite(npmle(X, sigma=1e-3, grid=20).loglik)
