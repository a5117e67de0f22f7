"""joint_bounds at extreme magnitudes (issue 29): where f(y1, y0) overflows float64 the error names y
(it named the internal "lower"), and the bootstrap standard errors of bounds of 1e200 are finite (the
squares of the replicates overflowed to "se_lower must be finite")."""
import numpy as np
import pytest

from statcore import ite_variance_bounds, joint_bounds

RNG = np.random.default_rng(3)
Y = RNG.normal(size=80)
T = RNG.integers(0, 2, 80)


@pytest.mark.parametrize("call", [lambda y: joint_bounds(y, T, f="product", B=20, seed=1),
                                  lambda y: ite_variance_bounds(y, T, B=20, seed=1)])
def test_overflowing_f_names_y(call):
    with pytest.raises(ValueError, match=r"^y: f\(y1, y0\) is not finite"):
        call(Y * 1e300)


@pytest.mark.parametrize("f, scale, degree", [("abs_diff", 1e300, 1), ("product", 1e100, 2), ("sq_diff", 1e-100, 2)])
def test_bounds_and_standard_errors_scale_with_y(f, scale, degree):
    ref = joint_bounds(Y, T, f=f, B=50, seed=1)
    res = joint_bounds(Y * scale, T, f=f, B=50, seed=1)
    factor = scale ** degree
    assert res.lower / factor == pytest.approx(ref.lower, rel=1e-9)
    assert res.upper / factor == pytest.approx(ref.upper, rel=1e-9)
    for k in ("lower", "upper"):
        assert res.std_error[k] / factor == pytest.approx(ref.std_error[k], rel=1e-9)
