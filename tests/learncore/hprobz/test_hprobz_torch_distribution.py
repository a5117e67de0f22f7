"""HProbZ and GaussianMixture as ``torch.distributions.Distribution`` subclasses: the interface torch's
own wrappers rely on (batch_shape, event_shape, support, arg_constraints, validate_args, expand),
checked through torch's ``Independent`` and against the distribution's own densities."""
import pytest

from helpers import require_torch

torch = require_torch()
torch.set_num_threads(1)

from torch.distributions import Distribution, Independent, constraints  # noqa: E402

from learncore.hprobz import GaussianMixture, HProbZ  # noqa: E402

D = torch.float64


def t(x):
    return torch.as_tensor(x, dtype=D)


def batch_hprobz(**kw):
    """Batch (3,), two modes, T = 2, m = 1."""
    gen = torch.Generator().manual_seed(0)
    mu = torch.randn(3, 2, 2, generator=gen, dtype=D)
    G = torch.randn(3, 2, 2, 1, generator=gen, dtype=D)
    s = 0.2 + torch.rand(3, 2, 2, generator=gen, dtype=D)
    return HProbZ(torch.randn(3, 2, generator=gen, dtype=D), mu, G, s, **kw)


def batch_mixture(**kw):
    gen = torch.Generator().manual_seed(1)
    return GaussianMixture(torch.randn(3, 2, generator=gen, dtype=D), torch.randn(3, 2, 2, generator=gen, dtype=D),
                           0.5 + torch.rand(3, 2, 2, generator=gen, dtype=D), **kw)


DISTS = {"HProbZ": batch_hprobz, "GaussianMixture": batch_mixture}


@pytest.mark.parametrize("make", DISTS.values(), ids=DISTS.keys())
def test_is_a_torch_distribution_with_its_shapes(make):
    d = make()
    assert isinstance(d, Distribution)
    assert d.batch_shape == torch.Size([3]) and d.event_shape == torch.Size([2])
    assert d.support is constraints.real_vector or d.support == constraints.real_vector
    assert not d.has_rsample
    with pytest.raises(NotImplementedError):
        d.rsample()
    y = d.sample((4,), seed=0)
    assert y.shape == torch.Size([4, 3, 2])
    assert bool(d.support.check(y).all())


@pytest.mark.parametrize("make", DISTS.values(), ids=DISTS.keys())
def test_arg_constraints_hold_and_name_every_parameter(make):
    d = make()
    assert set(d.arg_constraints) == set(d._params)
    for name, c in d.arg_constraints.items():
        v = getattr(d, name)
        assert c.check(v).shape == d.batch_shape, name
        assert bool(c.check(v).all()), name


@pytest.mark.parametrize("make", DISTS.values(), ids=DISTS.keys())
def test_independent_reinterprets_the_batch(make):
    """torch's Independent reads batch_shape, event_shape, support and log_prob: its density of the
    3 elements as one event is the sum of the elements' log densities."""
    d = make()
    y = d.sample((5,), seed=1)
    ind = Independent(d, 1)
    assert ind.batch_shape == torch.Size([]) and ind.event_shape == torch.Size([3, 2])
    torch.testing.assert_close(ind.log_prob(y), d.log_prob(y).sum(-1), rtol=0, atol=0)


@pytest.mark.parametrize("make", DISTS.values(), ids=DISTS.keys())
def test_expand_broadcasts_the_batch(make):
    d = make()
    e = d.expand((4, 3))
    assert type(e) is type(d) and e.batch_shape == torch.Size([4, 3]) and e.event_shape == d.event_shape
    y = d.sample((4,), seed=2)
    torch.testing.assert_close(e.log_prob(y), d.log_prob(y), rtol=0, atol=0)
    torch.testing.assert_close(e.mean(), d.mean().expand(4, 3, 2), rtol=0, atol=0)
    with pytest.raises(ValueError, match="batch_shape"):
        d.expand((4,))


def test_validate_args_checks_the_values_of_log_prob():
    d = batch_hprobz(validate_args=True)
    with pytest.raises(ValueError, match="broadcastable"):
        d.log_prob(torch.zeros(2, 2, dtype=D))      # 2 rows against a batch of 3
    with pytest.raises(ValueError, match="y has 6 non-finite"):   # the support (real vectors): refused first by y's check
        d.log_prob(torch.full((3, 2), float("nan"), dtype=D))
    off = batch_hprobz(validate_args=False)
    assert off.log_prob(torch.zeros(3, 2, dtype=D)).shape == torch.Size([3])


def test_validate_args_is_kept_by_derived_distributions():
    for flag in (True, False):
        d = batch_hprobz(validate_args=flag)
        derived = [d[0], d.detach(), d.marginal([1]), d.condition([0], torch.zeros(3, 1, dtype=D)),
                   d.affine(t([1.0, 2.0]), t([2.0, 3.0])), d.expand((2, 3))]
        assert all(x._validate_args is flag for x in derived)
        m = batch_mixture(validate_args=flag)
        assert all(x._validate_args is flag for x in (m[1:], m.condition([1], torch.zeros(3, 1, dtype=D))))


def test_torch_validation_catches_what_the_parameters_checks_leave():
    """Construction refuses a negative precision with statcore's message first; torch's check of the
    arg_constraints runs after (so a parameter changed by a subclass is still checked)."""
    with pytest.raises(ValueError, match="u_prec must be non-negative"):
        batch_hprobz(u_prec=-torch.ones(3, 2, 1, dtype=D))
    c = HProbZ.arg_constraints["u_prec"]
    assert not bool(c.check(-torch.ones(3, 2, 1, dtype=D)).any())


def test_mean_variance_stddev_stay_methods():
    d = batch_mixture()
    torch.testing.assert_close(d.stddev(), d.variance().sqrt(), rtol=0, atol=0)
    assert d.mean().shape == torch.Size([3, 2])
