"""c2g at extreme magnitudes (issue 29, and the bad-input sweep): the fit runs on y divided by a power of
two near its spread and every output is read back in y's units, so c2g is scale-equivariant at any
magnitude float64 holds. Oracle: the fit on y * c equals the fit on y, with the outputs that carry y's
units multiplied by c (means, CARE, the noise density's scale) and the log-likelihoods shifted by
-n_treated log c; exactly (bit for bit) for c a power of two, up to rounding otherwise."""
import math

import numpy as np
import pytest

from statcore import c2g

RNG = np.random.default_rng(1)
N = 300
T = RNG.random(N) < 0.5
X = RNG.normal(size=(N, 2))
Y = RNG.normal(3.0 * (T & (RNG.random(N) < 0.3)) + X[:, 0], 1.0)


def _assert_scaled(res, ref, c, rtol):
    """Every field of ``res`` (the fit on y * c) against ``ref`` (the fit on y)."""
    n1 = int(np.sum(T))
    assert np.array_equal(res.responders, ref.responders)
    assert np.array_equal(np.asarray(res.selected), np.asarray(ref.selected))
    for name in ("lfdr", "q_values", "pi", "lfdr_model"):   # probabilities: no units
        np.testing.assert_allclose(np.asarray(getattr(res, name)), np.asarray(getattr(ref, name)), rtol=rtol,
                                   atol=1e-12, err_msg=name)
    assert res.erpf == pytest.approx(ref.erpf, rel=rtol, abs=1e-12)
    fr, f0 = res.to_frame(), ref.to_frame()
    np.testing.assert_allclose(fr["y"], f0["y"] * c, rtol=1e-15)
    for col in ("mu0", "mu1"):
        if col in f0:
            np.testing.assert_allclose(fr[col] / c, f0[col], rtol=rtol, atol=rtol * np.abs(f0[col]).max(),
                                       err_msg=col)
    if ref.model == "additive":
        np.testing.assert_allclose(res.care(X[:5]) / c, ref.care(X[:5]), rtol=rtol,
                                   atol=rtol * np.abs(ref.care(X[:5])).max())
        # the log-likelihood of y * c is that of y less n_treated log c (the density of y * c is f(. / c) / c)
        # (rounding: relative to the larger of the two, the shift included)
        shift = n1 * math.log(c)
        tol = rtol * (n1 + abs(shift))
        assert res.loglik + shift == pytest.approx(ref.loglik, rel=rtol, abs=tol)
        np.testing.assert_allclose(np.asarray(res.loglik_trace) + shift, np.asarray(ref.loglik_trace), rtol=rtol,
                                   atol=tol)
        assert res.response_test.statistic == pytest.approx(ref.response_test.statistic, rel=rtol, abs=1e-12)
        assert res.response_p_value == pytest.approx(ref.response_p_value, rel=rtol, abs=1e-12)
        assert res.noise.sd / c == pytest.approx(ref.noise.sd, rel=rtol)
        assert res.noise.method == ref.noise.method
        r = np.linspace(-3.0, 3.0, 7)
        np.testing.assert_allclose(res.noise.logpdf(r * c) + math.log(c), ref.noise.logpdf(r), rtol=rtol,
                                   atol=rtol * (1 + abs(math.log(c))))
        assert res.n_iter == ref.n_iter and res.converged == ref.converged
    else:
        cr, c0 = res.care(X[:5]), ref.care(X[:5])
        for col in ("lower", "upper", "lower_ci_low", "lower_ci_high", "upper_ci_low", "upper_ci_high"):
            v0 = np.asarray(c0[col], dtype=float)
            scale = np.abs(v0[np.isfinite(v0)]).max(initial=0.0)
            np.testing.assert_allclose(np.asarray(cr[col], dtype=float) / c, v0, rtol=rtol, atol=rtol * scale,
                                       err_msg=col)
        np.testing.assert_allclose(cr["pi_star"], c0["pi_star"], rtol=rtol, atol=1e-12)
        assert res.erpf_ci == pytest.approx(ref.erpf_ci, rel=rtol, abs=1e-12)
    assert res.summary().splitlines()[-1] == ref.summary().splitlines()[-1]  # the lfdr quantiles


@pytest.mark.parametrize("model", ["additive", "nonparametric"])
@pytest.mark.parametrize("c", [2.0 ** 300, 2.0 ** -300, 2.0 ** 1000, 2.0 ** -1000])
def test_a_power_of_two_scale_gives_the_same_fit_bit_for_bit(model, c):
    ref, res = c2g(Y, T, X, model=model, B=20, seed=1), c2g(Y * c, T, X, model=model, B=20, seed=1)
    _assert_scaled(res, ref, c, rtol=1e-14)


@pytest.mark.parametrize("model", ["additive", "nonparametric"])
@pytest.mark.parametrize("c", [1e-200, 1e160, 7.0])
def test_any_scale_gives_the_same_fit_up_to_rounding(model, c):
    ref, res = c2g(Y, T, X, model=model, B=20, seed=1), c2g(Y * c, T, X, model=model, B=20, seed=1)
    _assert_scaled(res, ref, c, rtol=1e-10)


@pytest.mark.parametrize("model", ["additive", "nonparametric"])
def test_one_outcome_of_1e300_is_fitted_without_nan(model):
    y = np.r_[1e300, Y[1:]]
    res = c2g(y, T, X, model=model, B=20, seed=1)
    for name in ("lfdr", "q_values", "pi"):
        v = np.asarray(getattr(res, name))
        assert np.all(np.isfinite(v)) and np.all((v >= 0) & (v <= 1)), name
    assert np.all(np.isfinite(res.to_frame().drop(columns="y").to_numpy(dtype=float)))
    if model == "additive":
        assert np.isfinite(res.loglik) and np.isfinite(res.noise.sd) and res.noise.sd > 0


def test_a_spread_beyond_float64_is_refused_naming_y():
    y = Y.copy()
    y[:200], y[200] = 1e308, -1e308   # the median is 1e308: the largest |y - median| overflows float64
    with pytest.raises(ValueError, match=r"^y: "):
        c2g(y, T, X, seed=1)
