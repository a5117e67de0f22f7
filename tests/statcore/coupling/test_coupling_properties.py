"""Invariants of the couplings and bounds (hypothesis)."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from statcore.coupling import coupling_mean, joint_bounds, makarov_bounds
from statcore.testing import treatment_outcome

values = st.lists(st.integers(-5, 5).map(float) | st.floats(-10, 10, allow_nan=False, width=32).map(float),
                  min_size=1, max_size=25)


@settings(max_examples=60, deadline=None)
@given(values, values, st.randoms(use_true_random=False))
def test_order_free_and_rearrangement_inequality(y1, y0, rnd):
    a, b = np.array(y1), np.array(y0)
    co = coupling_mean(a, b, f="product")
    ct = coupling_mean(a, b, f="product", coupling="countercomonotone")
    pa, pb = a.copy(), b.copy()
    rnd.shuffle(pa)
    rnd.shuffle(pb)
    scale = 1 + np.abs(a).max() * np.abs(b).max()
    assert abs(coupling_mean(pa, pb, f="product") - co) <= 1e-12 * scale
    # supermodular f: comonotone >= any pairing >= countercomonotone (equal sizes: pairings are couplings)
    assert ct <= co + 1e-12 * scale
    if a.size == b.size:
        assert ct - 1e-12 * scale <= float(np.mean(a * b)) <= co + 1e-12 * scale
    # swapping the arms and the roles of f's arguments gives the same couplings
    assert abs(coupling_mean(b, a, f="product") - co) <= 1e-12 * scale


@settings(max_examples=40, deadline=None)
@given(treatment_outcome(min_per_arm=1, max_per_arm=25), st.floats(-5, 5, allow_nan=False))
def test_bounds_ordered_and_shift_equivariant(data, c):
    y, t = data  # the arms' outcomes drawn as ``values`` above, treated first
    r = joint_bounds(y, t, f="abs_diff", B=0)
    assert r.lower <= r.upper + 1e-12
    # |Y1 - Y0| is unchanged when both arms shift by c
    r2 = joint_bounds(y + c, t, f="abs_diff", B=0)
    assert abs(r2.lower - r.lower) <= 1e-9 * (1 + abs(r.lower) + abs(c))
    assert abs(r2.upper - r.upper) <= 1e-9 * (1 + abs(r.upper) + abs(c))


@settings(max_examples=40, deadline=None)
@given(treatment_outcome(min_per_arm=1, max_per_arm=25))
def test_makarov_band_is_ordered_and_monotone(data):
    d = np.linspace(-25, 25, 101)
    r = makarov_bounds(*data, delta=d)
    assert np.all(r.lower <= r.upper + 1e-12)
    assert np.all(np.diff(r.lower) >= -1e-12) and np.all(np.diff(r.upper) >= -1e-12)
    assert r.lower[0] == 0.0 and r.upper[-1] == 1.0
