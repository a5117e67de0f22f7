"""learncore.bayes.IVON and BayesianLearningRule against closed forms.

1. The conjugate oracle: Bayesian linear regression with a known noise variance and the Gaussian prior
   that weight_decay and ess define. Its posterior is Gaussian, so the best mean-field Gaussian is known
   in closed form (the posterior mean, and variances 1 / diag(posterior precision)), and IVON's fixed
   point is it, for every curvature estimate whose expectation is the Hessian; "gradsq" converges to a
   different, stated fixed point.
2. The estimators on their own: Price's is unbiased for the diagonal Hessian, Hutchinson's too, and
   the squared gradient is the empirical Fisher, which differs from the Hessian.
3. The mechanics: sampled_params restores the mean, predict averages, seeds reproduce, bad input is
   refused naming the argument, the "backprop" interface.

Budget: about 30 s of CPU, most of it the oracle (marked slow).
"""
import copy
import math

import numpy as np
import pytest

from helpers import require_torch

torch = require_torch()

from scipy.optimize import fsolve  # noqa: E402
from statcore.utils import thread_limit  # noqa: E402
from torch import nn  # noqa: E402

from learncore.bayes import (IVON, BackpropCurvature, BayesianLearningRule, CurvatureEstimator,  # noqa: E402
                             CurvatureSample, GradSquareCurvature, HutchinsonCurvature, PriceCurvature,
                             layerwise_curvature)

DT = torch.float64


@pytest.fixture(autouse=True)
def _one_thread():
    """Tiny tensors: one torch thread is many times faster than a pool on a loaded machine."""
    with thread_limit(1):
        yield


# ---- the conjugate problem -------------------------------------------------------------------------

def _conjugate_problem():
    """y = X theta + e, e ~ N(0, 1/2): the loss MSELoss (mean of squared residuals) is then the mean
    negative log-likelihood per example (up to a constant), so with ess = N the likelihood is
    exp(-N lbar) and the prior N(0, I / (N delta)) is IVON's with weight_decay = delta. Correlated
    columns make the Hessian non-diagonal (mean field is then an approximation, and Hutchinson noisy)."""
    gen = torch.Generator().manual_seed(1)
    n, d, delta = 40, 3, 0.05
    chol = torch.tensor([[1.0, 0, 0], [0.6, 0.8, 0], [0.3, 0.4, 0.866]], dtype=DT)
    x = torch.randn(n, d, generator=gen, dtype=DT) @ chol.T
    y = (x @ torch.tensor([1.0, -0.5, 0.25], dtype=DT) + math.sqrt(0.5) * torch.randn(n, generator=gen, dtype=DT))
    y = y.unsqueeze(1)
    A = 2 * x.T @ x / n                                        # Hessian of lbar = mean (y - x theta)^2
    prec = n * (A + delta * torch.eye(d, dtype=DT))            # posterior precision
    mean = torch.linalg.solve(prec, 2 * x.T @ y).squeeze(1)    # posterior mean
    return dict(x=x, y=y, n=n, d=d, delta=delta, A=A, mean=mean, var=1 / torch.diagonal(prec))


P = _conjugate_problem()
LOSS = nn.MSELoss()
#: IVON's settings for the oracle: beta2 = 0.998 gives a curvature memory of 500 steps; the burn-in of
#: 3000 steps shrinks the initial error of h by beta2^3000 = e^-6; the averages are over the steps after
LR, BETA2, H0, T_STEPS, BURN = 0.05, 0.998, 1.0, 8000, 3000


def _linear_model():
    model = nn.Sequential(nn.Linear(P["d"], 1, bias=False)).to(DT)
    with torch.no_grad():
        model[0].weight.zero_()
    return model


def exact_diag_hessian(model, loss_fn, x, y):
    """The exact diagonal Hessian of loss_fn(model(x), y) by autograd (one Hessian row per parameter
    entry): the curvature function the "backprop" interface is tested with."""
    params = list(model.parameters())
    with torch.enable_grad():
        grads = torch.autograd.grad(loss_fn(model(x), y), params, create_graph=True)
        out = []
        for p, g in zip(params, grads):
            flat = g.reshape(-1)
            diag = torch.stack([torch.autograd.grad(flat[i], p, retain_graph=True)[0].reshape(-1)[i]
                                for i in range(flat.numel())])
            out.append(diag.reshape(p.shape).detach())
    return out


class Recording(CurvatureEstimator):
    """Wraps an estimator and keeps its estimates (to measure their Monte Carlo spread)."""

    def __init__(self, inner):
        self.inner, self.name, self.values = inner, inner.name, []

    def estimate(self, sample):
        hhat = self.inner.estimate(sample)
        self.values.append(hhat[0].detach().reshape(-1).clone())
        return hhat


def run_oracle(estimator, *, seed=0, steps=T_STEPS, cls=IVON, **kwargs):
    model = _linear_model()
    rec = Recording(estimator)
    opts = dict(lr=LR, ess=P["n"], weight_decay=P["delta"], hess_init=H0, hessian=rec, seed=seed)
    if cls is IVON:
        opts["beta2"] = BETA2
    opts.update(kwargs)
    opt = cls(model.parameters(), **opts)
    batch = (model, LOSS, P["x"], P["y"])
    w = model[0].weight
    ms, hs = [], []
    for _ in range(steps):
        with opt.sampled_params(train=True, batch=batch):
            opt.zero_grad()
            LOSS(model(P["x"]), P["y"]).backward()
        opt.step()
        ms.append(w.detach().reshape(-1).clone())
        hs.append(opt.state[w]["hess"].reshape(-1).clone())
    return torch.stack(ms), torch.stack(hs), torch.stack(rec.values)


def gradsq_fixed_point(mean_jitter):
    """The fixed point of IVON with hhat = ess * ghat^2 on the full batch (ghat = A theta - b, theta ~ q):
    E[hhat_k] = N [ (A m - b)_k^2 + (A Cov(m) A)_kk + sum_j A_kj^2 sigma_j^2 ], where at the mean's fixed
    point A m - b = -delta m, sigma_j^2 = 1 / (N (h_j + delta)), and Cov(m) is the jitter of the iterate m
    around its fixed point (measured; it vanishes as lr -> 0). Solved for h."""
    A, n, delta, m = P["A"].numpy(), P["n"], P["delta"], P["mean"].numpy()
    const = n * delta ** 2 * m ** 2 + n * np.diag(A @ mean_jitter @ A)
    return fsolve(lambda h: h - const - (A ** 2 / (h + delta)[None, :]).sum(1), np.diag(A))


#: (estimator, steps): the costlier estimates run shorter (an exact one needs no long average of h)
ORACLE_CASES = {
    "price": (lambda: PriceCurvature(), 8000),
    "gradsq": (lambda: GradSquareCurvature(), 8000),
    "hutchinson": (lambda: HutchinsonCurvature(), 6000),
    "backprop": (lambda: BackpropCurvature(), 5000),  # layerwise_curvature(kind="diag_hessian")
}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(ORACLE_CASES))
def test_conjugate_oracle(case):
    """IVON's time-averaged iterates reach the mean-field optimum (for gradsq: its own fixed point).

    Tolerance, stated before running: for the mean, 4 standard errors of the average of the iterates
    after the burn-in of 3000 steps (K = 5000 steps for price and gradsq, 3000 for hutchinson, 2000 for
    backprop; batch means of 10 batches of K / 10 steps, far longer than the mean's
    correlation time of about 1 / (lr (h0 + delta) / (h + delta)) = 60 steps). For the curvature h
    (which gives the variances sigma^2 = 1 / (N (h + delta)), so a relative error e of h + delta is one
    of the variances): its target plus the bias of the Riemannian correction (h's stationary mean
    exceeds E[hhat] by (1 - beta2) / 2 * E[(h - hhat)^2] / (h + delta) to first order, measured), within
    4 Monte Carlo standard errors sd(hhat) / sqrt(K) (the estimates are independent across steps
    given the mean; the average of h is that of hhat up to O(1 / (K (1 - beta2))) edge terms), plus
    the remaining initial error |h0 - h*| beta2^3000 (a bound, as h approaches h* from below; the whole
    tolerance for "backprop", whose estimate is exact and h a deterministic sequence). Nothing here was
    adjusted after a run.
    """
    make, steps = ORACLE_CASES[case]
    ms, hs, hhat = run_oracle(make(), steps=steps)
    win = slice(BURN, None)
    K = steps - BURN
    m_avg = ms[win].mean(0)
    m_se = ms[win].reshape(10, -1, P["d"]).mean(1).std(0) / math.sqrt(10)
    sd_post = P["var"].sqrt()
    assert torch.all(m_se < 0.05 * sd_post)  # the check is sharp: the mean is pinned to 5% of a posterior sd
    assert torch.all((m_avg - P["mean"]).abs() <= 4 * m_se), (m_avg, P["mean"], m_se)

    h_avg = hs[win].mean(0)
    hprev = hs[BURN - 1:-1]
    riemann = 0.5 * (1 - BETA2) * ((hprev - hhat[win]) ** 2).mean(0) / (h_avg + P["delta"])
    if case == "gradsq":
        jitter = np.cov(ms[win].numpy().T)
        target = torch.as_tensor(gradsq_fixed_point(jitter), dtype=DT)
        # the fixed point is not the mean-field optimum: the test tells them apart
        assert torch.all((target - torch.diagonal(P["A"])).abs() / torch.diagonal(P["A"]) > 0.15)
    else:
        target = torch.diagonal(P["A"])
        assert bool(torch.all(H0 < target))  # h approaches from below: |h_t - h*| <= beta2^t |h0 - h*|
    tol = 4 * hhat[win].std(0) / math.sqrt(K) + (target - H0).abs() * BETA2 ** BURN
    err = h_avg - (target + riemann)
    assert torch.all(err.abs() <= tol), (case, h_avg, target, riemann, tol)
    var = 1 / (P["n"] * (h_avg + P["delta"]))
    rel = ((var - P["var"]) / P["var"]).abs()
    print(f"{case}: mean error / posterior sd {((m_avg - P['mean']) / sd_post).abs().max():.4f}, variance "
          f"relative error to the mean-field optimum {rel.max():.4f}, h relative error to its target "
          f"{(err / h_avg).abs().max():.4f} (tolerance {(tol / h_avg).max():.4f})")


@pytest.mark.slow
def test_blr_base_step_reaches_the_oracle():
    """BayesianLearningRule's natural-gradient step (rho = lr) with the exact curvature: h is then a
    deterministic sequence h_t = h* - (1 - rho)^t (h* - h0) and the mean's average the posterior mean."""
    ms, hs, _ = run_oracle(BackpropCurvature(curvature_fn=exact_diag_hessian), cls=BayesianLearningRule,
                           steps=1500, lr=0.05)
    target = torch.diagonal(P["A"])
    torch.testing.assert_close(hs[-1], target - (1 - 0.05) ** 1500 * (target - H0), rtol=1e-12, atol=1e-12)
    m_avg = ms[500:].mean(0)
    m_se = ms[500:].reshape(10, -1, P["d"]).mean(1).std(0) / math.sqrt(10)
    assert torch.all((m_avg - P["mean"]).abs() <= 4 * m_se)
    assert torch.all(m_se < 0.05 * P["var"].sqrt())


def test_blr_base_refuses_a_negative_precision():
    x = torch.tensor([[1.0, 0.0], [0.0, 1.0]], dtype=DT)
    model = nn.Sequential(nn.Linear(2, 1, bias=False)).to(DT)
    opt = BayesianLearningRule(model.parameters(), lr=1.0, ess=2, hess_init=1.0,
                               hessian=BackpropCurvature(curvature_fn=lambda *a: [-torch.ones(1, 2, dtype=DT)]))
    with opt.sampled_params(train=True, batch=(model, LOSS, x, x[:, :1])):
        LOSS(model(x), x[:, :1]).backward()
    with pytest.raises(RuntimeError, match="positive cone"):
        opt.step()
    with pytest.raises(ValueError, match="lr must lie in"):
        BayesianLearningRule(model.parameters(), lr=1.5, ess=2)


# ---- the estimators on their own ----------------------------------------------------------------

def _quadratic_sample(A, m, sigma, M, seed):
    """M independent copies of theta ~ N(m, diag(sigma^2)) as one (M, d) parameter, with the gradient of
    0.5 theta^T A theta at each."""
    gen = torch.Generator().manual_seed(seed)
    eps = torch.randn(M, len(m), generator=gen, dtype=DT)
    theta = m + sigma * eps
    grad = theta @ A  # A symmetric
    return CurvatureSample(params=(theta,), grads=(grad,), noise=(eps,), sigma=(sigma.expand(M, -1),),
                           ess=(1.0,), batch=None, generator=gen), theta


A_QUAD = torch.tensor([[2.0, 0.8, -0.5], [0.8, 1.0, 0.3], [-0.5, 0.3, -0.7]], dtype=DT)  # indefinite


@pytest.mark.slow
def test_price_estimator_is_unbiased_for_the_diagonal_hessian():
    """E[g(theta) (theta - m) / sigma^2] = diag(A) on the quadratic 0.5 theta^T A theta (even an indefinite
    one), away from the minimum: the Monte Carlo mean of 200000 draws is within 4 standard errors."""
    m = torch.tensor([0.5, -1.0, 2.0], dtype=DT)
    sigma = torch.tensor([0.3, 0.1, 1.0], dtype=DT)
    sample, _ = _quadratic_sample(A_QUAD, m, sigma, 200_000, seed=3)
    hhat = PriceCurvature().estimate(sample)[0]
    se = hhat.std(0) / math.sqrt(hhat.shape[0])
    assert torch.all((hhat.mean(0) - torch.diagonal(A_QUAD)).abs() <= 4 * se), (hhat.mean(0), se)
    assert torch.all(se < 0.05)


def test_hutchinson_estimator_is_unbiased_for_the_diagonal_hessian():
    """z * (H z) with Rademacher z: mean over 20000 probes within 4 standard errors of diag(A); the
    estimator differentiates through the gradient's graph."""
    M = 20_000
    theta = torch.zeros(M, 3, dtype=DT, requires_grad=True)
    loss = 0.5 * torch.einsum("md,de,me->", theta, A_QUAD, theta)
    (grad,) = torch.autograd.grad(loss, theta, create_graph=True)
    gen = torch.Generator().manual_seed(4)
    sample = CurvatureSample(params=(theta,), grads=(grad,), noise=(torch.zeros_like(theta),),
                             sigma=(torch.ones_like(theta),), ess=(1.0,), batch=None, generator=gen)
    hhat = HutchinsonCurvature().estimate(sample)[0]
    se = hhat.std(0) / math.sqrt(M)
    assert torch.all((hhat.mean(0) - torch.diagonal(A_QUAD)).abs() <= 4 * se)


@pytest.mark.slow
def test_gradsq_is_the_empirical_fisher_not_the_hessian():
    """Linear regression fitted with an assumed noise variance 1 (loss 0.5 mean r^2) to data whose
    residual variance is 4: at the least-squares fit (data gradient exactly 0), ess * ghat^2 of batches
    of ess examples drawn with replacement has expectation the empirical Fisher F = mean_i x_i^2 r_i^2,
    about 4 times the Hessian diag(X^T X) / n; the Monte Carlo mean of 40000 batches is within 4 standard
    errors of F and far from the Hessian."""
    gen = torch.Generator().manual_seed(5)
    n, B = 200, 16
    x = torch.randn(n, 2, generator=gen, dtype=DT)
    y = x @ torch.tensor([1.0, 2.0], dtype=DT) + 2.0 * torch.randn(n, generator=gen, dtype=DT)
    theta = torch.linalg.lstsq(x, y.unsqueeze(1)).solution.squeeze(1)
    per_example = -(y - x @ theta).unsqueeze(1) * x          # gradients of 0.5 r_i^2
    assert per_example.mean(0).abs().max() < 1e-12
    fisher = (per_example ** 2).mean(0)
    hessian = (x ** 2).mean(0)
    R = 40_000
    idx = torch.randint(0, n, (R, B), generator=gen)
    ghat = per_example[idx].mean(1)                            # (R, 2) batch-mean gradients
    sample = CurvatureSample(params=(ghat,), grads=(ghat,), noise=(torch.zeros_like(ghat),),
                             sigma=(torch.ones_like(ghat),), ess=(float(B),), batch=None, generator=gen)
    hhat = GradSquareCurvature().estimate(sample)[0]
    se = hhat.std(0) / math.sqrt(R)
    assert torch.all((hhat.mean(0) - fisher).abs() <= 4 * se), (hhat.mean(0), fisher, se)
    assert torch.all((hhat.mean(0) - hessian).abs() > 20 * se)
    ratio = fisher / hessian
    assert torch.all((ratio > 2.5) & (ratio < 6))  # the residual variance over the assumed one (4)


# ---- mechanics ------------------------------------------------------------------------------------

def _mlp(seed=0):
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(2, 5), nn.Tanh(), nn.Linear(5, 3)).to(DT)


def test_sampled_params_draws_the_posterior_and_restores_the_mean():
    model = _mlp()
    opt = IVON(model.parameters(), lr=0.1, ess=50, hess_init=0.5, weight_decay=0.1, seed=7)
    mean = [p.detach().clone() for p in model.parameters()]
    sigma = opt.posterior_std()
    torch.testing.assert_close(sigma[0], torch.full_like(mean[0], 1 / math.sqrt(50 * 0.6)))
    gen = torch.Generator().manual_seed(7)
    flat = torch.randn(sum(p.numel() for p in mean), generator=gen, dtype=DT)
    with opt.sampled_params(train=True):
        drawn = [p.detach().clone() for p in model.parameters()]
        model(torch.ones(4, 2, dtype=DT)).sum().backward()
    eps = torch.cat([((d - m) / s).reshape(-1) for d, m, s in zip(drawn, mean, sigma)])
    torch.testing.assert_close(eps, flat, rtol=0, atol=1e-12)  # one randn over all parameters, in order
    for p, m in zip(model.parameters(), mean):
        assert torch.equal(p.detach(), m)
    # restored also when the body raises; nothing is recorded then, and contexts do not nest
    with pytest.raises(KeyError):
        with opt.sampled_params(train=True):
            raise KeyError("boom")
    for p, m in zip(model.parameters(), mean):
        assert torch.equal(p.detach(), m)
    with opt.sampled_params():
        with pytest.raises(RuntimeError, match="do not nest"):
            with opt.sampled_params():
                pass
    assert opt._count == 1
    opt.step()
    with pytest.raises(RuntimeError, match="at least one training sample"):
        opt.step()


def test_a_step_averages_the_samples_and_entering_clears_gradients():
    """Two samples without zero_grad between them give the same step as with it (entering a training
    sample clears the gradients), and the step uses the mean of the samples' gradients."""
    x = torch.randn(8, 2, dtype=DT, generator=torch.Generator().manual_seed(0))
    results = []
    for zero in (True, False):
        model = _mlp()
        opt = IVON(model.parameters(), lr=0.1, ess=8, beta2=0.9, seed=1)
        for _ in range(3):
            for _ in range(2):
                with opt.sampled_params(train=True):
                    if zero:
                        opt.zero_grad()
                    model(x).pow(2).mean().backward()
            opt.step()
        results.append([p.detach().clone() for p in model.parameters()])
    for a, b in zip(*results):
        assert torch.equal(a, b)


def test_predict_averages_the_posterior_samples():
    model = _mlp()
    x = torch.randn(6, 2, dtype=DT, generator=torch.Generator().manual_seed(12))
    opt = IVON(model.parameters(), lr=0.1, ess=20, hess_init=0.5, seed=3)
    prob = opt.predict(model, x, samples=5)
    twin = IVON(model.parameters(), lr=0.1, ess=20, hess_init=0.5, seed=3)
    by_hand = []
    for _ in range(5):
        with twin.sampled_params():
            by_hand.append(torch.softmax(model(x), dim=-1))
    torch.testing.assert_close(prob, torch.stack(by_hand).mean(0), rtol=0, atol=1e-14)
    torch.testing.assert_close(prob.sum(1), torch.ones(6, dtype=DT))
    out = IVON(model.parameters(), lr=0.1, ess=20, hess_init=0.5, seed=3).predict(model, x, samples=5,
                                                                                  output="identity")
    torch.testing.assert_close(torch.softmax(out, -1).shape, prob.shape)
    # a huge ess concentrates the posterior at the mean: the average is the prediction at the mean
    sharp = IVON(model.parameters(), lr=0.1, ess=1e12, seed=0)
    torch.testing.assert_close(sharp.predict(model, x, samples=3, output="sigmoid"), torch.sigmoid(model(x)),
                               rtol=1e-5, atol=1e-5)
    assert isinstance(opt.predict(model, x.numpy(), samples=2), torch.Tensor)  # arrays are converted


def test_same_seed_same_iterates():
    x = torch.randn(10, 2, dtype=DT, generator=torch.Generator().manual_seed(0))

    def train(seed):
        model = _mlp()
        opt = IVON(model.parameters(), lr=0.1, ess=10, mc_samples=2, seed=seed)
        def closure():
            opt.zero_grad()
            loss = model(x).pow(2).mean()
            loss.backward()
            return loss

        for _ in range(5):
            opt.step(closure)
        return torch.cat([p.detach().reshape(-1) for p in model.parameters()])

    a, b = train(11), train(11)
    assert torch.equal(a, b)
    assert not torch.equal(a, train(12))
    assert torch.equal(a, train(torch.Generator().manual_seed(11)))
    assert torch.equal(train(np.random.default_rng(3)), train(np.random.default_rng(3)))
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        IVON(_mlp().parameters(), lr=0.1, ess=1, seed=-1)
    with pytest.raises(TypeError, match="seed"):
        IVON(_mlp().parameters(), lr=0.1, ess=1, seed="x")


def test_a_resumed_run_continues_the_same_iterates():
    x = torch.randn(10, 2, dtype=DT, generator=torch.Generator().manual_seed(0))

    def steps(model, opt, k):
        for _ in range(k):
            with opt.sampled_params(train=True):
                model(x).pow(2).mean().backward()
            opt.step()

    model = _mlp()
    opt = IVON(model.parameters(), lr=0.1, ess=10, beta2=0.99, seed=4)
    steps(model, opt, 3)
    saved = copy.deepcopy((model.state_dict(), opt.state_dict()))  # (state_dict returns references)
    steps(model, opt, 3)
    twin = _mlp(seed=99)
    twin.load_state_dict(saved[0])
    opt2 = IVON(twin.parameters(), lr=0.1, ess=10, beta2=0.99, seed=0)
    opt2.load_state_dict(saved[1])
    steps(twin, opt2, 3)
    for a, b in zip(model.parameters(), twin.parameters()):
        assert torch.equal(a, b)


@pytest.mark.parametrize("kwargs, name", [
    (dict(lr=0.0), "lr"), (dict(lr=-1.0), "lr"), (dict(ess=0), "ess"), (dict(ess=-5.0), "ess"),
    (dict(beta1=1.0), "beta1"), (dict(beta1=-0.1), "beta1"), (dict(beta2=1.0), "beta2"), (dict(beta2=1.5), "beta2"),
    (dict(hessian="fisher"), "hessian"), (dict(mc_samples=0), "mc_samples"), (dict(hess_init=0.0), "hess_init"),
    (dict(weight_decay=-1e-4), "weight_decay"), (dict(clip_radius=0.0), "clip_radius"),
    (dict(lr=float("nan")), "lr"),
])
def test_bad_hyperparameters_raise_naming_the_argument(kwargs, name):
    good = dict(lr=0.1, ess=10.0)
    good.update(kwargs)
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        IVON(_mlp().parameters(), **good)


def test_bad_types_and_groups():
    with pytest.raises(TypeError, match="hessian"):
        IVON(_mlp().parameters(), lr=0.1, ess=1, hessian=PriceCurvature)
    with pytest.raises(TypeError, match="mc_samples"):
        IVON(_mlp().parameters(), lr=0.1, ess=1, mc_samples=1.5)
    with pytest.raises(ValueError, match="params is empty"):
        IVON([], lr=0.1, ess=1)
    with pytest.raises(TypeError, match="params"):
        IVON(None, lr=0.1, ess=1)
    with pytest.raises(TypeError, match="debias"):
        IVON(_mlp().parameters(), lr=0.1, ess=1, debias=1)
    model = _mlp()
    with pytest.raises(ValueError, match="beta2"):  # a group's override is checked as the constructor's
        IVON([{"params": model[0].parameters(), "beta2": 1.0}, {"params": model[2].parameters()}], lr=0.1, ess=1)
    opt = IVON([{"params": model[0].parameters(), "ess": 5.0}, {"params": model[2].parameters()}], lr=0.1, ess=1)
    assert opt.param_groups[0]["ess"] == 5.0 and opt.param_groups[1]["ess"] == 1.0
    assert IVON(model.parameters(), lr=0.1, ess=1, clip_radius=math.inf).param_groups[0]["clip_radius"] is None
    with pytest.raises(ValueError, match="samples"):
        opt.predict(model, torch.ones(2, 2, dtype=DT), samples=0)
    with pytest.raises(ValueError, match="output"):
        opt.predict(model, torch.ones(2, 2, dtype=DT), output="probs")
    with pytest.raises(ValueError, match="x"):
        opt.predict(model, torch.ones(2, 7, dtype=DT))
    assert "hessian='price'" in repr(opt)


def test_clip_radius_bounds_each_coordinate_of_the_step():
    model = _mlp()
    before = [p.detach().clone() for p in model.parameters()]
    opt = IVON(model.parameters(), lr=0.5, ess=10, clip_radius=1e-3, hess_init=1.0, weight_decay=0.0, seed=0)
    with opt.sampled_params(train=True):
        (1e3 * model(torch.ones(3, 2, dtype=DT)).sum()).backward()
    opt.step()
    step = torch.cat([(p.detach() - b).reshape(-1).abs() for p, b in zip(model.parameters(), before)])
    assert step.max() == pytest.approx(0.5 * 1e-3, rel=1e-12)  # lr * (h0 + delta) * clip_radius


# ---- the "backprop" and "hutchinson" interfaces -------------------------------------------------

def _regression_batch():
    gen = torch.Generator().manual_seed(2)
    x = torch.randn(12, 2, generator=gen, dtype=DT)
    return x, torch.randn(12, 3, generator=gen, dtype=DT)


def test_backprop_interface_ivon_loop_and_closure_agree():
    """hessian="backprop" in the ivon-opt loop (batch given to sampled_params) and in the closure form
    (step(closure, batch=...)) give the same iterates; the default estimator is layerwise_curvature's
    diagonal Hessian, and an exact autograd diagonal gives the same steps."""
    x, y = _regression_batch()

    def train(form, hessian):
        model = _mlp()
        batch = (model, LOSS, x, y)
        opt = IVON(model.parameters(), lr=0.1, ess=12, beta2=0.99, mc_samples=2, hessian=hessian, seed=5)
        for _ in range(4):
            if form == "loop":
                for _ in range(2):
                    with opt.sampled_params(train=True, batch=batch):
                        LOSS(model(x), y).backward()
                opt.step()
            else:
                def closure():
                    opt.zero_grad()
                    loss = LOSS(model(x), y)
                    loss.backward()
                    return loss
                loss = opt.step(closure, batch=batch)
                assert loss.ndim == 0
        return torch.cat([p.detach().reshape(-1) for p in model.parameters()]), opt

    a, opt = train("loop", "backprop")
    b, _ = train("closure", "backprop")
    c, _ = train("loop", BackpropCurvature(curvature_fn=exact_diag_hessian))
    assert isinstance(opt.curvature, BackpropCurvature) and opt.curvature.kind == "diag_hessian"
    torch.testing.assert_close(a, b, rtol=0, atol=0)
    torch.testing.assert_close(a, c, rtol=0, atol=1e-12)
    d, _ = train("loop", BackpropCurvature(kind="diag_ggn"))
    assert not torch.allclose(a, d)  # the Gauss-Newton diagonal is another curvature (tanh layer)


def test_backprop_without_a_batch_says_how_to_give_it():
    model = _mlp()
    opt = IVON(model.parameters(), lr=0.1, ess=1, hessian="backprop", seed=0)
    with pytest.raises(RuntimeError, match=r"sampled_params\(train=True, batch="):
        with opt.sampled_params(train=True):
            model(torch.ones(1, 2, dtype=DT)).sum().backward()
    with pytest.raises(TypeError, match="batch"):
        with opt.sampled_params(train=True, batch=(model, LOSS)):
            pass
    bad = IVON(model.parameters(), lr=0.1, ess=1, seed=0,
               hessian=BackpropCurvature(curvature_fn=lambda *a: [torch.ones(2)]))
    x, y = _regression_batch()
    with pytest.raises(ValueError, match="curvature_fn returned 1 tensors for the 4 parameters"):
        with bad.sampled_params(train=True, batch=(model, LOSS, x, y)):
            LOSS(model(x), y).backward()
    with pytest.raises(TypeError, match="curvature_fn"):
        BackpropCurvature(curvature_fn=3)


def test_hutchinson_graph_and_batch_paths_agree():
    """Hessian-vector products from backward(create_graph=True) or from the batch: same probes (the same
    seed), same iterates; without either, a clear error."""
    x, y = _regression_batch()

    def train(path):
        model = _mlp()
        opt = IVON(model.parameters(), lr=0.1, ess=12, beta2=0.99, hessian="hutchinson", seed=9)
        for _ in range(3):
            batch = (model, LOSS, x, y) if path == "batch" else None
            with opt.sampled_params(train=True, batch=batch):
                LOSS(model(x), y).backward(create_graph=(path == "graph"))
            opt.step()
        assert all(not p.grad.requires_grad for p in model.parameters())  # the graph is not kept
        return torch.cat([p.detach().reshape(-1) for p in model.parameters()])

    with pytest.warns(UserWarning, match="reference cycle"):
        g = train("graph")
    torch.testing.assert_close(g, train("batch"), rtol=0, atol=1e-13)
    model = _mlp()
    opt = IVON(model.parameters(), lr=0.1, ess=12, hessian="hutchinson", seed=0)
    with pytest.raises(RuntimeError, match="create_graph=True"):
        with opt.sampled_params(train=True):
            LOSS(model(x), y).backward()


def test_layerwise_curvature_is_the_default_backprop_function():
    x, y = _regression_batch()
    model = _mlp()
    got = layerwise_curvature(model, LOSS, x, y, kind="diag_hessian")
    exact = exact_diag_hessian(model, LOSS, x, y)
    for (name, c), e in zip(got.items(), exact):
        torch.testing.assert_close(c, e, rtol=1e-10, atol=1e-12)
