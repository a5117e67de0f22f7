"""independence_penalty: one definition, two implementations. In float64 every term equals statcore's
hsic / dcor / dcor_u of the same pair to 1e-10; the total correlation equals its closed form; the
gradients pass torch.autograd.gradcheck."""
import numpy as np
import pytest

from helpers import require_torch

torch = require_torch()
torch.set_num_threads(1)

import statcore  # noqa: E402
from learncore.operators import independence_penalty  # noqa: E402


def _latent(B=40, p=4, seed=0):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(B, p))
    z[:, 1] = z[:, 0] ** 2 + 0.3 * z[:, 1]          # dependent, uncorrelated with z0
    z[:, 2] = 0.5 * z[:, 0] + rng.standard_t(3, size=B)
    return z


def _pairs(p):
    return [(i, j) for i in range(p) for j in range(i + 1, p)]


def _nhsic(x, y, **kw):
    return statcore.hsic(x, y, **kw) / np.sqrt(statcore.hsic(x, x, **kw) * statcore.hsic(y, y, **kw))


@pytest.mark.parametrize("estimator", ["biased", "unbiased"])
def test_hsic_penalty_equals_statcore(estimator):
    z = _latent()
    ref = sum(_nhsic(z[:, i], z[:, j], estimator=estimator) for i, j in _pairs(4))
    got = float(independence_penalty(torch.tensor(z), measure="hsic", estimator=estimator))
    assert abs(got - ref) < 1e-10


def test_hsic_penalty_fixed_bandwidth_and_ties_equal_statcore():
    z = _latent(B=31)                                 # odd number of pairs: numpy's median is the middle one
    ref = sum(_nhsic(z[:, i], z[:, j], bandwidth=0.7) for i, j in _pairs(4))
    assert abs(float(independence_penalty(torch.tensor(z), bandwidth=0.7)) - ref) < 1e-10
    # a coordinate with more than half of its pairs tied: the median of the positive distances (statcore's rule)
    z = _latent(B=30)
    z[:, 3] = np.where(np.arange(30) < 25, 0.0, np.arange(30) - 24.0)
    ref = sum(_nhsic(z[:, i], z[:, j]) for i, j in _pairs(4))
    assert abs(float(independence_penalty(torch.tensor(z))) - ref) < 1e-10


@pytest.mark.parametrize("index", [1.0, 0.5])
def test_dcor_penalty_equals_statcore(index):
    z = _latent()
    ref = sum(statcore.dcor(z[:, i], z[:, j], index=index) ** 2 for i, j in _pairs(4))
    got = float(independence_penalty(torch.tensor(z), measure="dcor", index=index))
    assert abs(got - ref) < 1e-10
    ref_u = sum(statcore.dcor_u(z[:, i], z[:, j], index=index) for i, j in _pairs(4))
    got_u = float(independence_penalty(torch.tensor(z), measure="dcor", index=index, estimator="unbiased"))
    assert abs(got_u - ref_u) < 1e-10


def test_total_correlation_closed_form_and_reduction():
    z = _latent()
    ref = -0.5 * np.linalg.slogdet(np.corrcoef(z, rowvar=False))[1]
    assert abs(float(independence_penalty(torch.tensor(z), measure="tc")) - ref) < 1e-10
    r = np.corrcoef(z[:, 0], z[:, 2])[0, 1]           # two variables: -1/2 log(1 - r^2)
    assert abs(float(independence_penalty(torch.tensor(z[:, [0, 2]]), measure="tc")) + 0.5 * np.log(1 - r * r)) < 1e-12
    t = torch.tensor(z)
    for kind in ("hsic", "dcor"):
        assert torch.allclose(independence_penalty(t, measure=kind, reduction="mean"),
                              independence_penalty(t, measure=kind) / 6, rtol=1e-14, atol=0)


def test_invariant_to_coordinate_scale_and_zero_for_constant_coordinate():
    z = torch.tensor(_latent())
    scaled = z * torch.tensor([3.0, 0.01, 1.0, 50.0], dtype=torch.float64) + 7.0
    for kind in ("hsic", "dcor", "tc"):
        assert abs(float(independence_penalty(scaled, measure=kind))
                   - float(independence_penalty(z, measure=kind))) < 1e-10
    dead = z.clone()
    dead[:, 3] = 0.25                                  # a dead unit counts as independent of the others
    dead.requires_grad_(True)
    val = independence_penalty(dead, measure="hsic")
    assert abs(float(val.detach()) - float(independence_penalty(z[:, :3], measure="hsic"))) < 1e-12
    val.backward()
    assert torch.isfinite(dead.grad).all()
    with pytest.raises(ValueError, match="constant coordinate"):
        independence_penalty(dead.detach(), measure="tc")


@pytest.mark.parametrize("args", [dict(measure="hsic", detach_bandwidth=False),
                                  dict(measure="hsic", bandwidth=[0.5, 1.0, 2.0]),
                                  dict(measure="hsic", estimator="unbiased", detach_bandwidth=False),
                                  dict(measure="dcor"),
                                  dict(measure="dcor", index=0.5), dict(measure="dcor", estimator="unbiased"),
                                  dict(measure="tc")])
def test_gradcheck(args):
    z = torch.tensor(_latent(B=10, p=3, seed=1), requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: independence_penalty(t, **args), (z,), eps=1e-6, atol=1e-6)


@pytest.mark.parametrize("estimator", ["biased", "unbiased"])
def test_detached_median_is_the_gradient_at_a_fixed_bandwidth(estimator):
    # detach_bandwidth=True: the gradient is that of the penalty with each coordinate's scale frozen at
    # its median value (gradchecked above as a fixed per-coordinate bandwidth)
    zn = _latent(B=12, p=3, seed=2)
    scales = [np.sqrt(np.median([(a - b) ** 2 for i, a in enumerate(zn[:, k]) for b in zn[i + 1:, k]]) / 2)
              for k in range(3)]
    grads = []
    for kw in (dict(), dict(bandwidth=scales)):
        z = torch.tensor(zn, requires_grad=True)
        independence_penalty(z, estimator=estimator, **kw).backward()
        grads.append(z.grad)
    assert torch.allclose(grads[0], grads[1], rtol=1e-12, atol=1e-14)
    z = torch.tensor(zn, requires_grad=True)
    independence_penalty(z, estimator=estimator, detach_bandwidth=False).backward()
    assert not torch.allclose(z.grad, grads[0], rtol=1e-6, atol=0)


def test_dependent_pairs_cost_more_than_independent_ones():
    rng = np.random.default_rng(5)
    a = rng.normal(size=(100, 1))
    dep = torch.tensor(np.hstack([a, np.sin(3 * a) + 0.1 * rng.normal(size=(100, 1))]))
    ind = torch.tensor(rng.normal(size=(100, 2)))
    for kind in ("hsic", "dcor"):
        assert float(independence_penalty(dep, measure=kind)) > 5 * float(independence_penalty(ind, measure=kind))


_GEN = torch.Generator().manual_seed(0)   # the bad-argument cases draw their z from one seeded stream


@pytest.mark.parametrize("kwargs, err, match", [
    (dict(z=np.zeros((5, 2))), TypeError, "z must be a torch tensor"),
    (dict(z=torch.zeros(5)), ValueError, r"shape \(B, p\)"),
    (dict(z=torch.tensor([[0.0, float("nan")], [1.0, 2.0]])), ValueError, "non-finite"),
    (dict(z=torch.randn(3, 2, generator=_GEN), estimator="unbiased"), ValueError, "at least 4"),
    (dict(z=torch.randn(3, 5, generator=_GEN), measure="tc"), ValueError, "at least 6"),
    (dict(z=torch.randn(8, 1, generator=_GEN)), ValueError, "at least two"),
    (dict(z=torch.randn(8, 2, generator=_GEN), measure="mi"), ValueError, "measure"),
    (dict(z=torch.randn(8, 2, generator=_GEN), bandwidth="silverman"), ValueError, "bandwidth"),
    (dict(z=torch.randn(8, 2, generator=_GEN), bandwidth=[1.0, 2.0, 3.0]), ValueError, "bandwidth"),
    (dict(z=torch.randn(8, 2, generator=_GEN), bandwidth=[1.0, -2.0]), ValueError, r"bandwidth\[1\]"),
    (dict(z=torch.randn(8, 2, generator=_GEN), measure="dcor", index=2.0), ValueError, "index"),
    (dict(z=torch.randn(8, 2, generator=_GEN), detach_bandwidth=1), TypeError, "detach_bandwidth"),
])
def test_bad_arguments_are_named(kwargs, err, match):
    with pytest.raises(err, match=match):
        independence_penalty(**kwargs)
