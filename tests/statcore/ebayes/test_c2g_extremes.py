"""c2g at extreme magnitudes (issue 29): inside the accepted spread the fit is scale-equivariant (same
lfdr and selections for y * s); outside it (nobody selected silently at 1e-200, an IndexError at 1e160,
one value of 1e300) the call is a ValueError naming y."""
import numpy as np
import pytest

from statcore import c2g

RNG = np.random.default_rng(1)
N = 300
T = RNG.random(N) < 0.5
X = RNG.normal(size=(N, 2))
Y = RNG.normal(3.0 * (T & (RNG.random(N) < 0.3)) + X[:, 0], 1.0)


@pytest.mark.parametrize("s", [1e-90, 1e90, 7.0])
def test_selections_do_not_change_with_the_scale_of_y(s):
    ref, res = c2g(Y, T, X, seed=1), c2g(Y * s, T, X, seed=1)
    assert np.array_equal(res.responders, ref.responders)
    assert np.allclose(np.asarray(res.lfdr), np.asarray(ref.lfdr), rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("y", [Y * 1e-200, Y * 1e160, np.r_[1e300, Y[1:]]])
def test_extreme_outcomes_are_refused_naming_y(y):
    with pytest.raises(ValueError, match=r"^y: the outcomes' spread .* rescale y"):
        c2g(y, T, X, seed=1)
