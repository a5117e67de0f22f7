"""learncore.hprobz conformal sets: seeded coverage over many calibration splits within the exact band
[1 - alpha, 1 - alpha + 1/(n + 1)) (+- 3 Monte Carlo standard errors), for a misspecified model;
multimodal sets are unions of intervals whose size stays bounded as the modes separate; bad input."""
import numpy as np
import pytest

from helpers import require_torch

torch = require_torch()
torch.set_num_threads(1)   # small tensors: a thread pool only adds contention

from statcore import coverage_band  # noqa: E402
from learncore.hprobz import GaussianMixture, HProbZ, TrajectorySets  # noqa: E402
from statcore.testing import assert_coverage  # noqa: E402

D = torch.float64


def t(x):
    return torch.as_tensor(x, dtype=D)


def truth(x):
    """The data: a two-route HProbZ whose routes and drift depend on x (T = 2)."""
    n = x.shape[0]
    mu = torch.stack([torch.stack([-1 - x, -2 - 2 * x], -1), torch.stack([1 + 0.5 * x, 2.5 + x], -1)], -2)
    G = torch.stack([torch.stack([0.4 + 0.2 * x, 0.8 + 0.4 * x], -1),
                     torch.stack([0.3 + 0.0 * x, -0.6 + 0.0 * x], -1)], -2).unsqueeze(-1)
    return HProbZ(torch.stack([x, -x], -1), mu, G, torch.full((n, 2, 2), 0.25, dtype=D))


def model(x):
    """A misspecified predictive: routes too close, no x in the drift, noise too small, a
    Gaussian-mixture-like shape."""
    n = x.shape[0]
    mu = torch.stack([torch.stack([-0.7 - x, -1.5 - 2 * x], -1), torch.stack([0.8 + 0.5 * x, 2.0 + x], -1)], -2)
    return HProbZ(torch.zeros(n, 2, dtype=D), mu, torch.full((n, 2, 2, 1), 0.3, dtype=D),
                  torch.full((n, 2, 2), 0.15, dtype=D))


@pytest.mark.slow
def test_coverage_over_splits_is_in_the_exact_band():
    # Sized to catch a coverage two points off the band (0.88 or 0.93: a wrong conformal rank by two,
    # a set missing a route's tail): a split's coverage of 10 points has s.d. 0.099 (calibration
    # Beta(90, 10) plus the binomial of the test points), so with 600 splits the bound band -+ 3 s.e.
    # (0.0121) leaves 0.88 outside with probability 0.97; the former 1000 caught 0.89 only half the time
    alpha, n_cal, n_test, splits = 0.1, 99, 10, 600
    disagree = []

    def draw(rng):
        x = t(rng.uniform(-1, 1, n_cal + n_test))
        return x, truth(x).sample(seed=rng)

    def covers(xy, rng):
        x, y = xy
        pred = model(x)
        scores = pred.conformity_scores(y)
        sets = pred[n_cal:].conformal_sets(scores[:n_cal], alpha=alpha, n_grid=601)
        inside = sets.contains(y[n_cal:].numpy())
        exact = scores[n_cal:] <= sets.q            # membership read from the exact densities
        disagree.append(int((inside != exact).sum()))
        return {f"step {k}": float(inside[:, k].mean()) for k in range(2)}

    # within the band [lo, hi) -+ 3 observed s.e.: the lower end by assert_coverage (one Generator, in
    # order), the upper end on its result
    lo, hi = coverage_band(n_cal, alpha=alpha)
    res = assert_coverage(covers, draw, conf_level=lo, reps=splits, seed=2026)
    for k, mean in res.rates.items():
        assert mean <= hi + 3 * res.std_errors[k], (k, mean, res.std_errors[k], (lo, hi))
    disagree = sum(disagree)
    assert disagree <= 0.001 * splits * n_test * 2          # interval ends read from a 601-point grid


def test_multimodal_sets_are_unions_of_intervals_that_stay_small_as_modes_separate():
    lengths, hulls = [], []
    for sep in (0.0, 2.0, 4.0, 10.0, 20.0):
        d = HProbZ(torch.zeros(2, dtype=D), t([[-sep / 2], [sep / 2]]), torch.full((2, 1, 1), 0.5, dtype=D),
                   torch.full((2, 1), 0.2, dtype=D))
        y = d.sample((999,), seed=0)
        sets = d.conformal_sets(d.conformity_scores(y), alpha=0.1)
        iv = sets.intervals(0, 0)
        assert iv.shape[0] == (1 if sep == 0 else 2)
        if sep > 0:
            assert not sets.contains(np.zeros((1, 1)))[0, 0]         # the gap between the routes is left out
            assert iv[0, 1] < 0 < iv[1, 0]
        lengths.append(float(sets.length[0, 0]))
        hulls.append(float(iv[-1, 1] - iv[0, 0]))
    # once separated, the set is two copies of one route's 90% set: its size no longer grows, while any
    # single interval covering both routes grows with the separation
    assert max(lengths[1:]) - min(lengths[1:]) < 0.02
    assert lengths[-1] < 0.15 * hulls[-1]
    assert lengths[-1] < 2.2 * lengths[0]


def test_sets_of_the_mixture_baseline_and_the_result_object():
    gm = GaussianMixture(torch.zeros(3, 2, dtype=D), t([[[-3.0, 0.0], [3.0, 1.0]]] * 3),
                         torch.ones(3, 2, 2, dtype=D))
    y = gm.sample((50,), seed=1).reshape(150, 2)
    cal = gm[0].conformity_scores(y)
    sets = gm.conformal_sets(cal, alpha=0.2, steps=[1])
    assert isinstance(sets, TrajectorySets)
    assert sets.length.shape == (3, 1) and sets.steps == (1,)
    frame = sets.to_frame()
    assert list(frame.columns) == ["element", "step", "interval", "pred_low", "pred_high", "length"]
    assert set(frame["step"]) == {1}
    assert sets.contains(np.zeros((3, 2))).shape == (3, 1)
    assert "alpha = 0.2" in sets.summary()


@pytest.mark.parametrize("alpha", [0.0, 1.0, -0.1, 1.5])
def test_alpha_outside_the_unit_interval_is_refused(alpha):
    d = model(t([0.0]))
    cal = np.full((50, 2), -0.1)
    with pytest.raises(ValueError, match="alpha"):
        d.conformal_sets(cal, alpha=alpha)


def test_bad_calibration_is_refused_with_the_minimum_size():
    d = model(t([0.0]))
    with pytest.raises(ValueError, match=r"n = 5.*needs n >= ceil\(1/alpha\) - 1 = 9"):
        d.conformal_sets(np.full((5, 2), -0.1), alpha=0.1)
    with pytest.raises(ValueError, match=r"ceil\(1/alpha\) - 1 = 19"):
        d.conformal_sets(np.full((18, 2), -0.1), alpha=0.05)
    d.conformal_sets(np.full((19, 2), -0.1), alpha=0.05)           # the minimum is enough
    with pytest.raises(ValueError, match="one score per step"):
        d.conformal_sets(np.full((50, 3), -0.1), alpha=0.1)
    with pytest.raises(ValueError, match="non-finite"):
        d.conformal_sets(np.full((50, 2), np.nan), alpha=0.1)
    with pytest.raises(TypeError, match="alpha"):
        d.conformal_sets(np.full((50, 2), -0.1), alpha="0.1")
