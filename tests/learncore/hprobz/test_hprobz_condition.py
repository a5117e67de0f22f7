"""learncore.hprobz condition(): the closed-form predictive of the remaining steps against Monte Carlo
conditioning (rejection on the observed step), the chain rule of densities, closure under repeated
conditioning, and the cases that are refused."""
import math

import numpy as np
import pytest

from helpers import require_torch

torch = require_torch()
torch.set_num_threads(1)   # small tensors: a thread pool only adds contention

from learncore.hprobz import GaussianMixture, HProbZ  # noqa: E402

D = torch.float64


def t(x):
    return torch.as_tensor(x, dtype=D)


def three_mode():
    """K = 3 modes, T = 3 steps, m = 1: modes overlap at step 0, the generator couples the steps."""
    return HProbZ(t([0.2, -0.1, 0.0]), t([[-1.0, -2.0, -3.0], [0.0, 0.5, 1.0], [1.0, 2.0, 3.0]]),
                  t([[[0.5], [1.0], [1.5]], [[0.8], [-0.4], [0.3]], [[0.3], [0.9], [1.2]]]),
                  t([[0.3, 0.3, 0.4], [0.2, 0.3, 0.3], [0.4, 0.3, 0.2]]))


def _rejection_sample(d, v, n, seed):
    """Exact rejection sampling of (mode, u) given y_0 = v: draw (b, u) from the prior and accept with
    probability exp(-(v - mu_b0 - g_b0 u)^2 / (2 s_b0^2)) s_min / s_b0, which is proportional to the
    likelihood of y_0 = v; then draw the remaining steps given (b, u)."""
    y, modes, u = d.sample_generators((n,), seed=seed)
    mu0 = d.mu[modes, 0]
    g0 = d.G[modes, 0, 0]
    s0 = d.s[modes, 0]
    lik = torch.exp(-0.5 * ((v - mu0 - g0 * u[:, 0]) / s0) ** 2) * (d.s[:, 0].min() / s0)
    keep = torch.rand(n, dtype=D, generator=torch.Generator().manual_seed(seed)) < lik
    return y[keep][:, 1:], modes[keep]


@pytest.mark.slow
def test_condition_matches_rejection_sampling():
    """Mode weights, mean and variance of steps 1-2 given y_0 = v: closed form against exact rejection
    sampling on the observed step (the later steps of a prior draw are independent of the acceptance
    given (b, u), so they are draws from the conditional)."""
    d = three_mode()
    for v in (0.3, -1.2):
        post = d.condition([0], t([v]))
        y, modes = _rejection_sample(d, v, 2_000_000, seed=100)
        n = y.shape[0]
        assert n > 100_000
        freq = torch.bincount(modes, minlength=3).double() / n
        se_w = torch.sqrt(freq * (1 - freq) / n) + 1e-5
        assert ((post.mode_probs - freq).abs() < 4 * se_w).all(), (post.mode_probs, freq)
        assert ((post.mean() - y.mean(0)).abs() < 4 * torch.sqrt(y.var(0) / n)).all(), (post.mean(), y.mean(0))
        se_v = torch.sqrt(((y - y.mean(0)) ** 2).var(0) / n)
        assert ((post.variance() - y.var(0)).abs() < 4 * se_v).all(), (post.variance(), y.var(0))
        # per mode: the truncated-normal posterior of the shared generator moves every later step
        for b in range(3):
            yb = y[modes == b]
            if yb.shape[0] > 2000:
                se = torch.sqrt(yb.var(0) / yb.shape[0])
                assert ((post.component_mean()[b] - yb.mean(0)).abs() < 4 * se).all()
                se_vb = torch.sqrt(((yb - yb.mean(0)) ** 2).var(0) / yb.shape[0])
                assert ((post.component_variance()[b] - yb.var(0)).abs() < 4 * se_vb).all()


def test_chain_rule_of_densities():
    """log p(y) = log p(y_obs) + log p(y_rest | y_obs), for HProbZ (m = 1, and diagonal m = 2) and the
    mixture, for any observed subset."""
    g = torch.Generator().manual_seed(0)
    d = three_mode()
    y = torch.randn(20, 3, dtype=D, generator=g) * 2
    for obs in ([0], [1], [2], [0, 2]):
        rest = [k for k in range(3) if k not in obs]
        joint = d.log_prob(y)
        split = d.marginal(obs).log_prob(y[:, obs]) + d.condition(obs, y[:, obs]).log_prob(y[:, rest])
        torch.testing.assert_close(split, joint, atol=1e-10, rtol=0)
    Gd = torch.zeros(2, 4, 2, dtype=D)
    Gd[:, :2, 0] = t([[0.7, 0.4], [0.5, -0.6]])
    Gd[:, 2:, 1] = t([[1.0, 0.8], [-0.3, 0.9]])
    d2 = HProbZ(t([0.1, -0.1]), torch.randn(2, 4, dtype=D, generator=g), Gd, t([[0.3] * 4, [0.4] * 4]))
    y2 = torch.randn(10, 4, dtype=D, generator=g)
    for obs in ([0], [1, 3], [0, 1, 2]):
        rest = [k for k in range(4) if k not in obs]
        split = d2.marginal(obs).log_prob(y2[:, obs]) + d2.condition(obs, y2[:, obs]).log_prob(y2[:, rest])
        torch.testing.assert_close(split, d2.log_prob(y2), atol=1e-10, rtol=0)
    gm = GaussianMixture(t([0.0, 0.5]), torch.randn(2, 3, dtype=D, generator=g), t([[0.5, 1.0, 0.7], [1.2, 0.4, 0.9]]))
    split = gm.marginal([1]).log_prob(y[:, [1]]) + gm.condition([1], y[:, [1]]).log_prob(y[:, [0, 2]])
    torch.testing.assert_close(split, gm.log_prob(y), atol=1e-12, rtol=0)


def test_conditioning_twice_equals_conditioning_once():
    d = three_mode()
    once = d.condition([0, 1], t([0.4, 1.1]))
    twice = d.condition([0], t([0.4])).condition([0], t([1.1]))
    for a, b in ((once.mode_probs, twice.mode_probs), (once.u_prec, twice.u_prec), (once.u_shift, twice.u_shift),
                 (once.mean(), twice.mean()), (once.variance(), twice.variance())):
        torch.testing.assert_close(a, b, atol=1e-12, rtol=1e-12)


def test_observing_a_step_shrinks_the_predictive_of_the_others():
    """One observed step pins the shared generator: the later steps' per-mode variance drops from
    g^2/3 + s^2 towards s^2."""
    d = HProbZ(t([0.0]), t([[0.0, 0.0, 0.0]]), t([[[1.0], [2.0], [3.0]]]), t([[0.05, 0.1, 0.1]]))
    post = d.condition([0], t([0.5]))
    var_before = d.variance()[1:]
    var_after = post.variance()
    assert (var_after < 0.05 * var_before).all()
    torch.testing.assert_close(post.mean(), t([1.0, 1.5]), atol=1e-6, rtol=0)


def test_condition_broadcasts_and_refuses_what_it_cannot_hold():
    d = three_mode()
    post = d.condition([2], t([[0.0], [1.0], [3.0]]))
    assert post.batch_shape == torch.Size([3]) and post.T == 2
    torch.testing.assert_close(post[1].mode_probs, d.condition([2], t([1.0])).mode_probs)
    with pytest.raises(ValueError, match="nothing is left to predict"):
        d.condition([0, 1, 2], t([0.0, 0.0, 0.0]))
    with pytest.raises(ValueError, match="values must have one value per observed step"):
        d.condition([0], t([0.0, 1.0]))
    with pytest.raises(ValueError, match="observed_steps: step 5 is out of range"):
        d.condition([5], t([0.0]))
    with pytest.raises(ValueError, match="observed_steps repeats a step"):
        d.condition([0, 0], t([0.0, 0.0]))
    with pytest.raises(ValueError, match="values has 1 non-finite"):
        d.condition([0], t([math.nan]))
    corr = HProbZ(t([0.0]), t([[0.0, 0.0, 0.0]]), t([[[1.0, 0.5], [0.2, 1.0], [0.3, 0.3]]]), t([[0.3, 0.3, 0.3]]))
    with pytest.raises(ValueError, match="correlated truncated normal"):
        corr.condition([0, 1], t([0.1, 0.2]))
    # one observed step whose generators are orthogonal (only one moves it) is fine
    diag = HProbZ(t([0.0]), t([[0.0, 0.0, 0.0]]), t([[[1.0, 0.0], [0.0, 1.0], [0.3, 0.3]]]), t([[0.3, 0.3, 0.3]]))
    assert diag.condition([0], t([0.4])).T == 2
    assert np.isfinite(diag.condition([0, 1], t([0.4, -0.2])).mean().numpy()).all()
