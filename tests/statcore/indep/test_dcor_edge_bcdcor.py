"""dcor_test(method="t") when an unbiased distance variance is not positive: R energy's bcdcor is 0."""
import numpy as np

import statcore as sc


def test_t_test_with_a_nonpositive_unbiased_variance_gives_zero_correlation():
    # x takes two values with 29 ties at one: its unbiased distance variance is zero up to rounding
    # (R: dcovU(x, x) = 5e-34, bcdcor(x, y) = 0); the t test must not raise a math domain error
    x = np.r_[np.zeros(29), 1.0]
    y = np.random.default_rng(1).normal(size=30)
    res = sc.dcor_test(x, y, method="t")
    assert np.isfinite(res.p_value)
    assert 0.0 <= res.p_value <= 1.0
