"""learncore.hprobz densities: the special functions against mpmath/scipy closed forms, the density
against quadrature (integrates to 1 in 1-D and 2-D) and against Monte Carlo histograms of ``sample``,
gradcheck in float64, the Gaussian (g -> 0) and uniform (s -> 0) limits, Genz's route against
deterministic quadrature, moments and per-mode risk."""
import math

import numpy as np
import pytest
from scipy import integrate, stats

from helpers import require_torch

torch = require_torch()
torch.set_num_threads(1)   # small tensors: a thread pool only adds contention

mpmath = pytest.importorskip("mpmath")

from learncore.hprobz import GaussianMixture, HProbZ  # noqa: E402
from learncore.hprobz import _special as S  # noqa: E402

D = torch.float64
mp = mpmath.mp


def t(x):
    return torch.as_tensor(x, dtype=D)


def two_mode_1d(**kw):
    """Two modes, T = 1, m = 1 (closed form)."""
    return HProbZ(t([0.3, -0.2]), t([[-1.0], [2.0]]), t([[[0.8]], [[1.5]]]), t([[0.3], [0.5]]), **kw)


def two_mode_2d_m1():
    return HProbZ(t([0.3, -0.2]), t([[-1.0, 0.0], [2.0, 1.0]]), t([[[0.8], [0.3]], [[1.5], [-1.0]]]),
                  t([[0.3, 0.4], [0.5, 0.2]]))


def two_mode_2d_m2(G, **kw):
    return HProbZ(t([0.3, -0.2]), t([[-1.0, 0.0], [2.0, 1.0]]), t(G), t([[0.3, 0.4], [0.5, 0.2]]), **kw)


G_CORR = [[[0.8, 0.3], [0.3, -0.5]], [[1.0, 0.2], [-1.0, 0.6]]]     # correlated: Genz's route
G_DIAG = [[[0.8, 0.0], [0.0, -0.5]], [[1.0, 0.0], [0.0, 0.6]]]     # orthogonal in the noise metric: exact


# ---- the special functions against arbitrary-precision closed forms ----------------------------

def _ref_log_box(r, m0):
    mp.dps = 50
    r, m0 = mp.mpf(r), mp.mpf(m0)
    if r == 0:
        return float(mp.log(2) - m0 ** 2 / 2)
    return float(mp.log(mp.sqrt(2 * mp.pi) / r * (mp.ncdf(r - m0) - mp.ncdf(-r - m0))))


@pytest.mark.parametrize("dtype_tol", [(torch.float64, 1e-11)])
def test_log_box_gauss_matches_mpmath_across_regimes(dtype_tol):
    dtype, tol = dtype_tol
    worst = 0.0
    for r in [0.0, 1e-9, 1e-6, 1e-4, 4.9e-4, 5.1e-4, 1e-3, 0.01, 0.3, 1.0, 3.0, 30.0, 1e3, 1e6]:
        for m0 in [0.0, 0.3, -2.0, 5.0, -40.0, 100 * r + 3, -0.99 * r, 1.5 * r, 3 * r + 2]:
            got = float(S.log_box_gauss(torch.tensor(r, dtype=dtype), torch.tensor(m0, dtype=dtype)))
            ref = _ref_log_box(r, m0)
            worst = max(worst, abs(got - ref) / max(1.0, abs(ref)))
    assert worst < tol


def test_log_ndtr_diff_matches_mpmath_in_tails_and_narrow_intervals():
    mp.dps = 50
    cases = [(-1, 1), (-40, -39), (39, 40), (-1e-7, 1e-7), (5, 5 + 1e-9), (-3, 10), (-50, 50), (2, 2.0001),
             (-30, -29.99999), (-300, -100), (36, 36.5)]
    for lo, hi in cases:
        got = float(S.log_ndtr_diff(t(float(lo)), t(float(hi))))
        ref = float(mp.log(mp.ncdf(mp.mpf(hi)) - mp.ncdf(mp.mpf(lo))))
        assert abs(got - ref) <= 1e-12 * max(1.0, abs(ref)), (lo, hi, got, ref)


def test_truncated_generator_moments_match_closed_form():
    mp.dps = 50
    for r in [0.0, 1e-6, 1e-3, 0.04, 0.06, 0.5, 2.0, 20.0, 300.0]:
        for m0 in [0.0, 0.5, -1.5, 3 * r + 1, -0.5 * r, 2 * r + 0.1, 3.05 * r + 1]:
            mean, var = (float(v) for v in S.tn_moments(t(r), t(m0)))
            if r == 0:
                ref_m, ref_v = 0.0, 1.0 / 3.0
            else:
                rr, mm = mp.mpf(r), mp.mpf(m0)
                c, sd = mm / rr, 1 / rr
                a, b = (-1 - c) / sd, (1 - c) / sd
                z = mp.ncdf(b) - mp.ncdf(a)
                ex = (mp.npdf(a) - mp.npdf(b)) / z
                ref_m = float(c + sd * ex)
                ref_v = float(sd ** 2 * (1 + (a * mp.npdf(a) - b * mp.npdf(b)) / z - ex ** 2))
            assert abs(mean - ref_m) < 1e-10, (r, m0)
            assert abs(var - ref_v) < 1e-7 * ref_v + 1e-15, (r, m0)


def test_truncated_normal_quantiles_match_scipy():
    q = torch.linspace(0.01, 0.99, 9, dtype=D)
    for a, b in [(-1.0, 1.0), (3.0, 5.0), (-50.0, -49.0), (40.0, 41.0), (-2.0, 30.0), (1.0, 1.000001), (-300.0, -100.0)]:
        got = S.tn_std_quantile(t(a), t(b), q).numpy()
        np.testing.assert_allclose(got, stats.truncnorm.ppf(q.numpy(), a, b), atol=1e-9)
    for r, m0 in [(0.0, 0.0), (0.3, 0.1), (5.0, 2.0), (100.0, 150.0)]:
        got = S.tn_u_quantile(t(r), t(m0), q).numpy()
        ref = 2 * q.numpy() - 1 if r == 0 else stats.truncnorm.ppf(q.numpy(), (-1 - m0 / r) * r, (1 - m0 / r) * r,
                                                                    loc=m0 / r, scale=1 / r)
        np.testing.assert_allclose(got, ref, atol=1e-9)


def test_uniform_exceedance_matches_quadrature():
    for z in [-30.0, -3.0, 0.0, 2.0]:
        for d in [0.0, 1e-6, 1e-3, 0.5, 3.0, 100.0]:
            got = float(S.uniform_exceedance(t(z), t(d)))
            ref = stats.norm.cdf(z) if d == 0 else integrate.quad(lambda u: stats.norm.cdf(z + d * u), -1, 1,
                                                                  epsabs=1e-300, epsrel=1e-12, limit=200)[0] / 2
            assert abs(got - ref) <= 1e-12 + 1e-8 * ref, (z, d, got, ref)


# ---- the density integrates to one ----------------------------------------------------------------

@pytest.mark.parametrize("kind", ["uniform", "conditioned", "m2_genz"])
def test_density_integrates_to_one_1d(kind):
    if kind == "uniform":
        d = two_mode_1d()
    elif kind == "conditioned":          # a truncated-normal generator (as after condition)
        d = HProbZ(t([0.3, -0.2]), t([[-1.0], [2.0]]), t([[[0.8]], [[1.5]]]), t([[0.3], [0.5]]),
                   u_prec=t([[4.0], [30.0]]), u_shift=t([[3.0], [-20.0]]))
    else:                                # two generators on one step: P = v v^T is singular, Genz's route
        d = HProbZ(t([0.3, -0.2]), t([[-1.0], [2.0]]), t([[[0.8, 0.5]], [[1.5, -0.4]]]), t([[0.3], [0.5]]),
                   n_points=128)
    grid = np.linspace(-8, 10, 2001 if kind == "m2_genz" else 20001)
    dens = torch.exp(d.log_prob(t(grid)[:, None])).numpy()
    assert abs(np.trapezoid(dens, grid) - 1) < 2e-6
    if kind == "uniform":
        f = lambda y: float(torch.exp(d.log_prob(t([y]))))       # noqa: E731
        val = integrate.quad(f, -12, 14, points=[-1.8, -0.2, 0.5, 3.5], limit=400, epsabs=1e-13)[0]
        assert abs(val - 1) < 1e-9


@pytest.mark.parametrize("kind", ["m1", "m2_exact", "m2_genz"])
def test_density_integrates_to_one_2d(kind):
    d = {"m1": two_mode_2d_m1(), "m2_exact": two_mode_2d_m2(G_DIAG, method="exact"),
         "m2_genz": two_mode_2d_m2(G_CORR, n_points=128)}[kind]
    g = np.linspace(-6.5, 6.5, 261 if kind != "m2_genz" else 121)
    Y = t(np.stack(np.meshgrid(g, g, indexing="ij"), -1))
    p = torch.exp(d.log_prob(Y)).numpy()
    total = np.trapezoid(np.trapezoid(p, g), g)
    assert abs(total - 1) < (1e-6 if kind != "m2_genz" else 2e-4)     # Genz (128 points): 6e-5 measured


# ---- Monte Carlo histograms of sample() ----------------------------------------------------------

@pytest.mark.parametrize("kind", ["m1", "conditioned", "m2_genz"])
def test_density_matches_monte_carlo_histogram(kind):
    if kind == "m1":
        d = two_mode_1d()
    elif kind == "conditioned":
        d = HProbZ(t([0.3, -0.2]), t([[-1.0], [2.0]]), t([[[0.8]], [[1.5]]]), t([[0.3], [0.5]]),
                   u_prec=t([[4.0], [30.0]]), u_shift=t([[3.0], [-20.0]]))
    else:
        d = HProbZ(t([0.3, -0.2]), t([[-1.0], [2.0]]), t([[[0.8, 0.5]], [[1.5, -0.4]]]), t([[0.3], [0.5]]))
    n = 200_000
    y = d.sample((n,), seed=7)[:, 0].numpy()
    edges = np.linspace(-4.5, 6.0, 43)
    counts = np.histogram(y, edges)[0]
    fine = np.linspace(edges[0], edges[-1], 42 * 200 + 1)
    dens = torch.exp(d.log_prob(t(fine)[:, None])).numpy()
    cum = np.concatenate([[0.0], integrate.cumulative_trapezoid(dens, fine)])
    probs = np.diff(cum[::200])
    expected = n * probs
    keep = expected > 20
    chi2 = float(((counts[keep] - expected[keep]) ** 2 / expected[keep]).sum())
    p_value = stats.chi2.sf(chi2, keep.sum() - 1)
    assert p_value > 1e-3, (chi2, keep.sum())
    assert abs(counts.sum() / n - probs.sum()) < 5 * math.sqrt(probs.sum() * (1 - probs.sum()) / n) + 1e-4


def test_two_dimensional_histogram_of_coupled_steps():
    """T = 2 with m = 1: the shared generator couples the steps; cell counts against the density."""
    d = two_mode_2d_m1()
    n = 200_000
    y = d.sample((n,), seed=3).numpy()
    e = np.linspace(-4, 5, 13)
    counts = np.histogram2d(y[:, 0], y[:, 1], [e, e])[0]
    f = np.linspace(-4, 5, 12 * 30 + 1)
    Y = t(np.stack(np.meshgrid(f, f, indexing="ij"), -1))
    p = torch.exp(d.log_prob(Y)).numpy()
    cell = np.zeros((12, 12))
    for i in range(12):
        for j in range(12):
            block = p[i * 30:(i + 1) * 30 + 1, j * 30:(j + 1) * 30 + 1]
            cell[i, j] = np.trapezoid(np.trapezoid(block, f[j * 30:(j + 1) * 30 + 1]), f[i * 30:(i + 1) * 30 + 1])
    exp_ = n * cell
    keep = exp_ > 20
    chi2 = float(((counts[keep] - exp_[keep]) ** 2 / exp_[keep]).sum())
    assert stats.chi2.sf(chi2, keep.sum() - 1) > 1e-3


# ---- gradients ----------------------------------------------------------------------------------------

def _gradcheck(make, y):
    def fn(*params):
        return make(*params).log_prob(y)
    return fn


@pytest.mark.parametrize("case", ["m1", "m1_small_g", "m1_conditioned", "m2_exact", "m2_genz"])
def test_gradcheck_float64(case):
    g = torch.Generator().manual_seed(0)
    K, T = 2, 3
    logits = torch.randn(K, dtype=D, generator=g)
    mu = torch.randn(K, T, dtype=D, generator=g)
    s = 0.3 + torch.rand(K, T, dtype=D, generator=g)
    m = 2 if case.startswith("m2") else 1
    G = torch.randn(K, T, m, dtype=D, generator=g)
    if case == "m1_small_g":
        G = G * 1e-4                    # the Taylor branch of the box integral
    if case == "m2_exact":              # generator 1 moves step 0, generator 2 steps 1-2: always orthogonal
        G = torch.randn(K, 2, dtype=D, generator=g)
    prec = torch.rand(K, m, dtype=D, generator=g) * 3 if case == "m1_conditioned" else torch.zeros(K, m, dtype=D)
    shift = torch.randn(K, m, dtype=D, generator=g) if case == "m1_conditioned" else torch.zeros(K, m, dtype=D)
    y = torch.randn(4, T, dtype=D, generator=g)
    method = "genz" if case == "m2_genz" else ("exact" if case == "m2_exact" else "auto")
    params = [p.clone().requires_grad_(True) for p in (logits, mu, G, s, prec, shift)]

    def build(G_):
        if case != "m2_exact":
            return G_
        z = torch.zeros(K, 1, dtype=D)
        return torch.stack([torch.cat([G_[:, :1], z, z], 1), torch.cat([z, G_[:, 1:], -0.5 * G_[:, 1:]], 1)], -1)

    def fn(lo, mu_, G_, s_, pr, sh):
        return HProbZ(lo, mu_, build(G_), s_, u_prec=pr.abs() if case == "m1_conditioned" else pr, u_shift=sh,
                      method=method, n_points=64).log_prob(y)

    if case != "m1_conditioned":
        params[4].requires_grad_(False)
        params[5].requires_grad_(False)
    assert torch.autograd.gradcheck(fn, params, eps=1e-6, atol=1e-5, rtol=1e-4)
    yy = y.clone().requires_grad_(True)
    assert torch.autograd.gradcheck(lambda v: HProbZ(logits, mu, build(G), s, u_prec=prec, u_shift=shift, method=method,
                                                     n_points=64).log_prob(v), (yy,), eps=1e-6, atol=1e-5, rtol=1e-4)


def test_one_step_shortcut_equals_the_general_route_and_its_gradients_check():
    """T = 1, m = 1, uniform u: the direct box integral equals the completed square (which a
    differentiated zero u_prec forces), from g = 0 through g << s to g >> s, tails included."""
    g = torch.Generator().manual_seed(4)
    G = torch.randn(4, 1, 1, dtype=D, generator=g) * t([1.0, 1e-7, 1e4, 0.0]).reshape(4, 1, 1)
    mu, s = torch.randn(4, 1, dtype=D, generator=g), 0.2 + torch.rand(4, 1, dtype=D, generator=g)
    lo = t([0.1, 0.2, 0.3, 0.0])
    y = torch.linspace(-30, 30, 41, dtype=D)[:, None]
    fast = HProbZ(lo, mu, G, s).component_log_prob(y)
    general = HProbZ(lo, mu, G, s, u_prec=torch.zeros(4, 1, dtype=D, requires_grad=True)).component_log_prob(y)
    finite = torch.isfinite(fast)
    assert torch.equal(finite, torch.isfinite(general))
    torch.testing.assert_close(fast[finite], general.detach()[finite], atol=1e-9, rtol=1e-13)
    params = [p.clone().requires_grad_(True) for p in (lo[:3], mu[:3], t([[[0.7]], [[0.4]], [[-2.0]]]), s[:3])]
    assert torch.autograd.gradcheck(lambda a, b, c, d: HProbZ(a, b, c, d).log_prob(y[15:25]), params,
                                    eps=1e-6, atol=1e-5, rtol=1e-4)


# ---- the two limits, in log space, at g/s = 1e-6 and 1e6 -----------------------------------------------

@pytest.mark.parametrize("ratio", [1e-6, 1e-9, 0.0])
def test_gaussian_limit_small_generators(ratio):
    mu = t([[0.0, 1.0, -1.0], [2.0, 0.5, 0.0]])
    s = t([[0.5, 0.7, 0.9], [0.4, 0.6, 0.8]])
    G = (ratio * t([[[1.0], [-2.0], [0.5]], [[1.5], [1.0], [-1.0]]]) * s.unsqueeze(-1)).requires_grad_(True)
    d = HProbZ(t([0.2, -0.3]), mu, G, s)
    gm = GaussianMixture(t([0.2, -0.3]), mu, s)
    y = t([[0.1, 0.9, -0.8], [5.0, -3.0, 2.0], [30.0, 0.0, 0.0]])
    lp = d.log_prob(y)
    assert torch.isfinite(lp).all()
    torch.testing.assert_close(lp, gm.log_prob(y), atol=1e-9, rtol=0)
    lp.sum().backward()
    assert torch.isfinite(G.grad).all()


@pytest.mark.parametrize("ratio", [1e6, 1e3])
def test_uniform_limit_small_noise(ratio):
    """s -> 0: T = 1 gives the uniform on [mu - |g|, mu + |g|]; T = 2 with m = 1 the uniform on the
    segment, density 1 / (2 |g| sqrt(2 pi) s_perp) on it."""
    g = 1.3
    s = g / ratio
    G = t([[[g]]]).requires_grad_(True)
    ss = t([[s]]).requires_grad_(True)
    d = HProbZ(t([0.0]), t([[0.5]]), G, ss)
    inside = t([[0.5], [1.0], [-0.7], [1.79]])
    lp = d.log_prob(inside)
    torch.testing.assert_close(lp, torch.full((4,), -math.log(2 * g), dtype=D), atol=1e-9, rtol=0)
    outside = t([[1.9], [3.0], [-50.0]])
    lo = d.log_prob(outside)
    assert torch.isfinite(lo).all() and (lo < -1e3).all()
    (lp.sum() + lo.sum()).backward()
    assert torch.isfinite(G.grad).all() and torch.isfinite(ss.grad).all()
    # T = 2: on the segment y = mu + g u (isotropic noise s)
    gv = t([1.0, 2.0])
    d2 = HProbZ(t([0.0]), t([[0.0, 0.0]]), gv.reshape(1, 2, 1), t([[s, s]]))
    on = t([[0.3, 0.6], [-0.5, -1.0]])
    expect = -math.log(2 * float(gv.norm())) - 0.5 * math.log(2 * math.pi) - math.log(s)
    torch.testing.assert_close(d2.log_prob(on), torch.full((2,), expect, dtype=D), atol=1e-8, rtol=0)
    assert torch.isfinite(d2.log_prob(t([[0.3, -0.6]]))).all()


def test_float32_agrees_with_float64_and_stays_finite_at_the_limits():
    d64 = two_mode_2d_m1()
    d32 = HProbZ(*(getattr(d64, k).float() for k in ("logits", "mu", "G", "s")))
    y = torch.randn(1000, 2, dtype=D, generator=torch.Generator().manual_seed(1)) * 2
    torch.testing.assert_close(d32.log_prob(y.float()).double(), d64.log_prob(y), atol=2e-5, rtol=2e-6)
    gen = torch.Generator().manual_seed(3)
    for ratio in (1e-6, 1e6):
        d = HProbZ(torch.zeros(1), torch.zeros(1, 2), torch.full((1, 2, 1), ratio * 0.1), torch.full((1, 2), 0.1))
        assert torch.isfinite(d.log_prob(torch.randn(50, 2, generator=gen))).all()


# ---- Genz's route against deterministic quadrature; the exact route's scope ------------------------

def test_genz_route_matches_quadrature_and_exact_refuses_correlated_generators():
    d = two_mode_2d_m2(G_CORR)
    for y0 in ([0.5, 0.3], [-1.0, 0.2], [2.5, 1.5]):
        got = d.component_log_prob(t(y0)).numpy()
        for b in range(2):
            mu, Gb, s = (v[b].numpy() for v in (d.mu, d.G, d.s))

            def f(u1, u2):
                r = (np.asarray(y0) - mu - Gb @ np.array([u1, u2])) / s
                return np.exp(-0.5 * r @ r) / (2 * np.pi * np.prod(s)) / 4

            ref = math.log(integrate.dblquad(f, -1, 1, -1, 1, epsabs=1e-300, epsrel=1e-11)[0])
            assert abs(got[b] - ref) < 2e-3, (y0, b, got[b], ref)
    with pytest.raises(ValueError, match="method='exact' needs generators orthogonal in the noise metric"):
        two_mode_2d_m2(G_CORR, method="exact").log_prob(t([0.0, 0.0]))
    de = two_mode_2d_m2(G_DIAG)
    dg = two_mode_2d_m2(G_DIAG, method="genz")
    y = torch.randn(50, 2, dtype=D, generator=torch.Generator().manual_seed(2))
    torch.testing.assert_close(dg.log_prob(y), de.log_prob(y), atol=1e-9, rtol=0)


# ---- moments and risk ----------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["m1", "m2", "conditioned"])
def test_mean_variance_covariance_match_monte_carlo(kind):
    if kind == "m1":
        d = two_mode_2d_m1()
    elif kind == "m2":
        d = two_mode_2d_m2(G_CORR)
    else:
        d = HProbZ(t([0.3, -0.2]), t([[-1.0, 0.0], [2.0, 1.0]]), t([[[0.8], [0.3]], [[1.5], [-1.0]]]),
                   t([[0.3, 0.4], [0.5, 0.2]]), u_prec=t([[4.0], [30.0]]), u_shift=t([[3.0], [-20.0]]))
    n = 400_000
    y = d.sample((n,), seed=11)
    se_mean = torch.sqrt(y.var(0) / n)
    assert ((d.mean() - y.mean(0)).abs() < 4 * se_mean).all()
    c = torch.cov(y.T)
    fourth = ((y - y.mean(0)) ** 2).var(0)
    assert ((d.variance() - y.var(0)).abs() < 4 * torch.sqrt(fourth / n)).all()
    assert abs(float(d.covariance()[0, 1] - c[0, 1])) < 4 * float(torch.sqrt(
        ((y[:, 0] - y[:, 0].mean()) * (y[:, 1] - y[:, 1].mean())).var() / n))
    torch.testing.assert_close(torch.diagonal(d.covariance()), d.variance())


def test_mode_risk_matches_quadrature_and_monte_carlo():
    d = two_mode_2d_m1()
    thr = t([0.5, -0.2])
    risk = d.mode_risk(thr).numpy()
    for b in range(2):
        for k in range(2):
            mu, g, s = float(d.mu[b, k]), float(d.G[b, k, 0]), float(d.s[b, k])
            ref = integrate.quad(lambda u: stats.norm.sf((float(thr[k]) - mu - g * u) / s), -1, 1)[0] / 2
            assert abs(risk[b, k] - ref) < 1e-12
    # conditioned (truncated normal generator): 1-D Gauss-Legendre; m = 2: closed form in the largest
    # generator, Gauss-Legendre in the other
    dc = HProbZ(d.logits, d.mu, d.G, d.s, u_prec=t([[4.0], [30.0]]), u_shift=t([[3.0], [-20.0]]))
    d2 = two_mode_2d_m2(G_CORR)
    for dist in (dc, d2):
        n = 1_000_000
        y, modes = dist.sample_joint((n,), seed=5)
        risk = dist.mode_risk(thr)
        for b in range(2):
            yb = y[modes == b]
            freq = (yb > thr).double().mean(0)
            se = torch.sqrt(freq * (1 - freq) / yb.shape[0]) + 1e-12
            assert ((risk[b] - freq).abs() < 4 * se + 1e-5).all(), (risk[b], freq)
    gm = GaussianMixture(t([0.0, 0.0]), t([[-2.0], [2.0]]), t([[1.0], [0.5]]))
    torch.testing.assert_close(gm.mode_risk(0.0)[:, 0], t([stats.norm.sf(2.0), stats.norm.sf(-4.0)]))


def test_parameters_are_checked():
    with pytest.raises(ValueError, match="s must be positive"):
        HProbZ(t([0.0]), t([[0.0]]), t([[[1.0]]]), t([[0.0]]))
    with pytest.raises(ValueError, match="mu has 1 non-finite"):
        HProbZ(t([0.0]), t([[float("nan")]]), t([[[1.0]]]), t([[1.0]]))
    with pytest.raises(ValueError, match="G has 1 non-finite"):
        HProbZ(t([0.0]), t([[0.0]]), t([[[float("inf")]]]), t([[1.0]]))
    with pytest.raises(ValueError, match="logits must have n_modes = 2"):
        HProbZ(t([0.0]), t([[0.0], [1.0]]), t([[[1.0]], [[1.0]]]), t([[1.0], [1.0]]))
    with pytest.raises(ValueError, match="method"):
        HProbZ(t([0.0]), t([[0.0]]), t([[[1.0]]]), t([[1.0]]), method="mc")
    with pytest.raises(ValueError, match="u_prec must be non-negative"):
        HProbZ(t([0.0]), t([[0.0]]), t([[[1.0]]]), t([[1.0]]), u_prec=t([[-1.0]]))
    d = two_mode_1d()
    with pytest.raises(ValueError, match="y must have T = 1"):
        d.log_prob(t([[0.0, 1.0]]))
    with pytest.raises(ValueError, match="y has 1 non-finite"):
        d.log_prob(t([[float("nan")]]))
    with pytest.raises(TypeError, match="threshold"):
        d.mode_risk("high")
