"""learncore.hprobz fit(): identifiability (recovery of a known HProbZ's generators up to permutation
and sign), held-out NLL against the mixture-density head with the same number of parameters on
HProbZ- and mixture-generated data, heads, non-finite network outputs, warnings and registration."""
import itertools
import math
import warnings

import numpy as np
import pytest

from helpers import require_torch

torch = require_torch()
torch.set_num_threads(1)   # small tensors: a thread pool only adds contention

import statcore  # noqa: E402
from learncore.hprobz import GaussianMixture, HProbZ, HProbZHead, MixtureHead, fit  # noqa: E402

D = torch.float64


def t(x):
    return torch.as_tensor(x, dtype=D)


def _quiet_fit(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", statcore.ConvergenceWarning)
        return fit(*args, **kwargs)


def _best_match(est, true, n_modes, m):
    """Smallest max-abs error of the generators over mode permutations, column permutations and signs."""
    best = math.inf
    for perm in itertools.permutations(range(n_modes)):
        err = 0.0
        for b, pb in enumerate(perm):
            e_b = math.inf
            for cols in itertools.permutations(range(m)):
                for signs in itertools.product((1.0, -1.0), repeat=m):
                    cand = est[pb][:, list(cols)] * torch.tensor(signs, dtype=D)
                    e_b = min(e_b, float((cand - true[b]).abs().max()))
            err = max(err, e_b)
        best = min(best, err)
    return best


@pytest.mark.slow
def test_fit_recovers_known_generators_up_to_permutation_and_sign():
    truth = HProbZ(t([0.4, -0.4]), t([[-2.0, -1.0, 0.0], [1.0, 2.0, 3.0]]),
                   t([[[1.0], [0.5], [-0.8]], [[-0.6], [1.2], [0.9]]]), t([[0.2, 0.2, 0.2]]))
    y = truth.sample((3000,), seed=0).numpy()
    res = _quiet_fit(None, y, n_modes=2, m=1, hidden=(), restarts=2, max_iter=200, seed=1)
    d = res.predict()
    order = [0, 1] if abs(float(d.mu[0, 0] + 2)) < abs(float(d.mu[1, 0] + 2)) else [1, 0]
    assert float((d.mu[order] - truth.mu).abs().max()) < 0.05
    assert float((d.mode_probs[order] - truth.mode_probs).abs().max()) < 0.04
    assert float((d.s - truth.s).abs().max()) < 0.02
    assert _best_match(d.G, truth.G, 2, 1) < 0.06
    # two generators of one mode: identified up to their order and signs (non-Gaussian u), Genz's route
    G2 = t([[[1.0, 0.0], [0.6, 0.8], [-0.5, 1.0], [0.2, -0.7]]])
    truth2 = HProbZ(t([0.0]), t([[0.0, 1.0, -1.0, 0.5]]), G2, t([[0.1, 0.1, 0.1, 0.1]]))
    y2 = truth2.sample((2000,), seed=0).numpy()
    res2 = _quiet_fit(None, y2, n_modes=1, m=2, hidden=(), restarts=2, max_iter=150, seed=1, n_points=32)
    d2 = res2.predict()
    assert _best_match(d2.G, truth2.G, 1, 2) < 0.06
    assert float((d2.s - truth2.s).abs().max()) < 0.02


def _routes_hprobz(x):
    n = x.shape[0]
    mu = torch.stack([torch.stack([-1 - x, -1.5 - x, -2 - x, -2.5 - x], -1),
                      torch.stack([1 + 0.5 * x, 1.5 + 0.5 * x, 2 + x, 2.5 + x], -1)], -2)
    G = torch.stack([t([0.3, 0.6, 0.9, 1.2]).expand(n, 4), t([0.5, -0.2, -0.8, -1.2]).expand(n, 4)], -2)
    return HProbZ(torch.stack([x, -x], -1), mu, G.unsqueeze(-1), torch.full((n, 1, 4), 0.1, dtype=D))


def _routes_mixture(x):
    n = x.shape[0]
    mu = torch.stack([torch.stack([-1 - x, -1.5 - x, -2 - x, -2.5 - x], -1),
                      torch.stack([1 + 0.5 * x, 1.5 + 0.5 * x, 2 + x, 2.5 + x], -1)], -2)
    sig = t([[0.2, 0.3, 0.4, 0.5], [0.4, 0.3, 0.2, 0.3]]).expand(n, 2, 4)
    return GaussianMixture(torch.stack([x, -x], -1), mu, sig)


def _data(make, n, seed):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, n)
    return x[:, None], make(t(x)).sample(seed=rng).numpy()


@pytest.mark.slow
def test_heldout_nll_against_the_mixture_head_with_the_same_number_of_parameters(capsys):
    """Encoder widths chosen so both heads have exactly 118 parameters (HProbZ: 4 tanh units, 22
    outputs; mixture: 5 units, 18 outputs), or 138 with per-mode HProbZ noise (mixture: 6 units)."""
    kw = dict(n_modes=2, max_iter=200, restarts=2, seed=0)
    X, y = _data(_routes_hprobz, 1000, 1)
    Xt, yt = _data(_routes_hprobz, 2000, 2)
    hz = _quiet_fit(X, y, head="hprobz", m=1, hidden=(4,), **kw)
    mdn = _quiet_fit(X, y, head="mixture", hidden=(5,), **kw)
    assert hz.df == mdn.df == 118
    nll_hz, nll_mdn = hz.nll(Xt, yt), mdn.nll(Xt, yt)
    assert nll_hz < nll_mdn - 0.5                     # the shared generator: one nat and more per row
    X, y = _data(_routes_mixture, 1000, 3)
    Xt, yt = _data(_routes_mixture, 2000, 4)
    hz_pm = _quiet_fit(X, y, head="hprobz", m=1, hidden=(4,), noise="per_mode", **kw)
    mdn6 = _quiet_fit(X, y, head="mixture", hidden=(6,), **kw)
    assert hz_pm.df == mdn6.df == 138
    m_hz, m_mdn = hz_pm.nll(Xt, yt), mdn6.nll(Xt, yt)
    assert abs(m_hz - m_mdn) < 0.05                   # the mixture is HProbZ's g -> 0 limit
    with capsys.disabled():
        print(f"\nheld-out NLL per row, HProbZ data: HProbZ {nll_hz:.4f} vs mixture {nll_mdn:.4f} (df 118); "
              f"mixture data: HProbZ(per-mode noise) {m_hz:.4f} vs mixture {m_mdn:.4f} (df 138)")


def test_nll_and_predict_are_in_the_units_of_y():
    X, y = _data(_routes_hprobz, 300, 5)
    y = 10.0 * y + 3.0
    res = _quiet_fit(X, y, n_modes=2, hidden=(3,), max_iter=30, seed=0)
    std = res.predict(X, standardized=True)
    ys = torch.as_tensor((y - res.y_center) / res.y_scale, dtype=D)
    by_hand = float(-std.log_prob(ys).mean()) + float(np.log(res.y_scale).sum())
    assert abs(res.nll(X, y) - by_hand) < 1e-10
    assert abs(res.nll(X, y) * res.nobs + res.loglik) < 1e-6 * res.nobs
    assert abs(float(statcore.aic(res)) - (2 * res.df - 2 * res.loglik)) < 1e-9
    d = res.predict(X[:3])
    assert d.batch_shape == torch.Size([3]) and not d.mu.requires_grad and not d.logits.requires_grad


def test_non_finite_network_outputs_raise_instead_of_nan_losses():
    head = HProbZHead(4, T=3, n_modes=2, m=1)
    with torch.no_grad():
        head.out.linear.weight[0, 0] = float("nan")
    with pytest.raises(ValueError, match="non-finite output.*diverged"):
        head(torch.ones(5, 4))
    mh = MixtureHead(4, T=3, n_modes=2)
    with pytest.raises(ValueError, match="non-finite output"):
        mh(torch.full((2, 4), float("inf")))
    with pytest.raises(ValueError, match="in_features = 4"):
        mh(torch.ones(2, 3))
    with pytest.raises(ValueError, match="s has 1 non-finite"):
        HProbZ(t([0.0]), t([[0.0]]), t([[[1.0]]]), t([[float("inf")]]))
    with pytest.raises(ValueError, match="y has 1 non-finite"):
        fit(None, np.array([[0.0, 1.0], [np.nan, 2.0], [1.0, 1.0]]), max_iter=2)


def test_heads_choices_and_shapes():
    g = HProbZHead(6, T=5, n_modes=3, m=2, generators="shared", noise="per_mode")
    d = g(torch.randn(4, 6, generator=torch.Generator().manual_seed(0)))
    assert tuple(d.G.shape) == (4, 3, 5, 2) and torch.equal(d.G[:, 0], d.G[:, 2])
    assert (d.s >= 1e-3).all() and tuple(d.s.shape) == (4, 3, 5)
    c = HProbZHead(0, T=2, n_modes=2, m=1)
    assert c(torch.zeros(0)).batch_shape == torch.Size([])
    with pytest.raises(ValueError, match="generators"):
        HProbZHead(6, T=5, n_modes=3, m=2, generators="tied")
    with pytest.raises(ValueError, match="m must be >= 1"):
        HProbZHead(6, T=5, n_modes=3, m=0)


def test_fit_warns_when_it_stops_early_and_checks_its_arguments():
    X, y = _data(_routes_hprobz, 200, 6)
    with pytest.warns(statcore.ConvergenceWarning, match="raise max_iter"):
        fit(X, y, n_modes=2, hidden=(), max_iter=2, seed=0)
    res = _quiet_fit(X, y, head="mixture", n_modes=2, hidden=(4,), activation="relu", method="adam", max_iter=20,
                     seed=0, batch_size=50)
    assert res.m == 0 and res.n_iter == 20 and np.isfinite(res.loglik)
    a = _quiet_fit(X, y, n_modes=2, hidden=(3,), max_iter=20, seed=np.random.SeedSequence(3))
    b = _quiet_fit(X, y, n_modes=2, hidden=(3,), max_iter=20, seed=np.random.default_rng(np.random.SeedSequence(3)))
    assert a.loglik == b.loglik
    with pytest.raises(ValueError, match="head"):
        fit(X, y, head="mdn")
    with pytest.raises(ValueError, match="X and y must have the same number of rows"):
        fit(X[:-1], y)
    with pytest.raises(ValueError, match="seed"):
        fit(X, y, seed=-1)
