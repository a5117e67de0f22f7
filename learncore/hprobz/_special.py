"""Log-space special functions of the Gaussian-uniform convolution (PyTorch, differentiable).

Every function here is a pure function of tensors (broadcasting, any float dtype, autograd through
all branches): no validation, no user errors. The stable branches are chosen elementwise with the
"double where" pattern (each branch is evaluated on safe inputs where it is not used), so gradients
stay finite on both sides of every switch.

- :func:`log_ndtr_diff`: log(Phi(hi) - Phi(lo)) for lo <= hi, by reflection onto the left half line,
  ``log_ndtr`` and ``expm1`` (a stable log-diff-exp), and a Taylor expansion around the midpoint when
  the interval is so narrow that the difference of the two ``log_ndtr`` would cancel.
- :func:`log_box_gauss`: log of int_{-1}^{1} exp(-r^2 (u - m0 / r)^2 / 2) du, the one-dimensional
  Gaussian-uniform convolution in the parameters (r, m0) = (sqrt(precision), sqrt(precision) * centre)
  that stay bounded in both limits (r -> 0: the integral tends to 2, the uniform; r -> inf: to
  sqrt(2 pi) / r, the Gaussian); a Taylor expansion in r replaces the difference of normal CDFs when
  r (1 + |m0|) is small, so r = 0 is exact.
- :func:`tn_moments`: mean and variance of u ~ N(m0 / r, 1 / r^2) truncated to [-1, 1] (the uniform at
  r = 0), with a series in (h, lambda) = (r m0, r^2) near the uniform.
- :func:`tn_std_quantile`, :func:`tn_u_quantile`: quantiles of a standard normal truncated to [a, b]
  and of the truncated generator u above (inverse CDF in log space, with tail and narrow-interval
  forms).
- :func:`genz_log_box_prob`: log P(N(mean, L L^T) in [-1, 1]^m), Genz's (1992) separation of variables
  on a fixed scrambled Sobol point set (deterministic, hence a smooth function of the parameters).
- :func:`uniform_exceedance`: E Phi(z + delta u), u ~ U[-1, 1], in closed form (the divided
  difference of Psi(x) = x Phi(x) + phi(x), the antiderivative of Phi), with a Taylor form for small
  delta.
"""
from __future__ import annotations

import math

import torch
from torch.special import log_ndtr, ndtr, ndtri

LOG_2PI = math.log(2.0 * math.pi)
LOG_SQRT_2PI = 0.5 * LOG_2PI
LOG2 = math.log(2.0)


SQRT1_2 = math.sqrt(0.5)


def fast_ndtr(x: torch.Tensor) -> torch.Tensor:
    """Phi(x) = erfc(-x / sqrt 2) / 2 (torch's erfc is faster than its ndtr; same precision)."""
    return 0.5 * torch.special.erfc(-SQRT1_2 * x)


def linear_floor(dtype: torch.dtype) -> float:
    """Below this argument Phi underflows (float64: Phi(-35) ~ 1e-268; float32: Phi(-12) ~ 2e-33), so
    the log-space forms take over."""
    return -35.0 if dtype == torch.float64 else -12.0


def small_threshold(dtype: torch.dtype) -> float:
    """Where the series replace the closed forms: r (1 + |m0|) below this (float64: 1e-3, where the
    series error is below 1e-15 and the closed form's cancellation below 1e-12; float32: 5e-2)."""
    return 1e-3 if dtype == torch.float64 else 5e-2


def _log_phi(x: torch.Tensor) -> torch.Tensor:
    return -0.5 * x * x - LOG_SQRT_2PI


def _taylor_log_interval(w: torch.Tensor, mid: torch.Tensor) -> torch.Tensor:
    """log(Phi(mid + w/2) - Phi(mid - w/2)) for a narrow interval:
    log w + log phi(mid) + log(1 + w^2 (mid^2 - 1) / 24 + w^4 (mid^4 - 6 mid^2 + 3) / 1920)."""
    m2 = mid * mid
    return (torch.log(w) + _log_phi(mid)
            + torch.log1p(w * w * (m2 - 1.0) / 24.0 + w ** 4 * (m2 * m2 - 6.0 * m2 + 3.0) / 1920.0))


def _direct_log_interval(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """log(Phi(b) - Phi(a)) for a <= b, a + b <= 0: in linear space above the underflow floor (the
    reflection keeps the cancellation below eps Phi(b) / (Phi(b) - Phi(a))), else
    log Phi(b) + log(1 - exp(log Phi(a) - log Phi(b)))."""
    deep = b < linear_floor(b.dtype)
    if not bool(deep.any()):
        return torch.log(fast_ndtr(b) - fast_ndtr(a))
    b_lin = torch.where(deep, torch.zeros_like(b), b)
    a_lin = torch.where(deep, -torch.ones_like(a), a)
    direct = torch.log(fast_ndtr(b_lin) - fast_ndtr(a_lin))
    bd, ad = b[deep], a[deep]                      # the log-space form on the deep elements only
    lb = log_ndtr(bd)
    return direct.masked_scatter(deep, lb + torch.log(-torch.expm1(log_ndtr(ad) - lb)))


def log_ndtr_diff(lo: torch.Tensor, hi: torch.Tensor) -> torch.Tensor:
    """log(Phi(hi) - Phi(lo)) for lo <= hi (elementwise), stable in both tails and for narrow intervals."""
    lo, hi = torch.broadcast_tensors(lo, hi)
    flip = (lo + hi) > 0
    a = torch.where(flip, -hi, lo)          # reflected: a <= b and a + b <= 0 (the left half line)
    b = torch.where(flip, -lo, hi)
    w = b - a
    mid = 0.5 * (a + b)
    small = w * (1.0 + mid.abs()) < small_threshold(lo.dtype)
    n_small = int(small.sum())
    if n_small == 0:
        return _direct_log_interval(a, b)
    if n_small == small.numel():
        return _taylor_log_interval(w, mid)
    taylor = _taylor_log_interval(torch.where(small, w, torch.ones_like(w)),
                                  torch.where(small, mid, torch.zeros_like(mid)))
    direct = _direct_log_interval(torch.where(small, b - 1.0, a), b)
    return torch.where(small, taylor, direct)


def _taylor_log_box(r: torch.Tensor, m0: torch.Tensor) -> torch.Tensor:
    w = 2.0 * r
    m2 = m0 * m0
    return LOG2 - 0.5 * m2 + torch.log1p(w * w * (m2 - 1.0) / 24.0 + w ** 4 * (m2 * m2 - 6.0 * m2 + 3.0) / 1920.0)


def log_box_gauss(r: torch.Tensor, m0: torch.Tensor) -> torch.Tensor:
    """log int_{-1}^{1} exp(-(r u - m0)^2 / 2) du for r >= 0 (= log 2 - m0^2 / 2 + ... as r -> 0)."""
    r, m0 = torch.broadcast_tensors(r, m0)
    small = 2.0 * r * (1.0 + m0.abs()) < small_threshold(r.dtype)
    n_small = int(small.sum())
    if n_small == small.numel():
        return _taylor_log_box(r, m0)
    rs = torch.where(small, torch.ones_like(r), r) if n_small else r
    ms = torch.where(small, torch.zeros_like(m0), m0) if n_small else m0
    direct = LOG_SQRT_2PI - torch.log(rs) + log_ndtr_diff(-rs - ms, rs - ms)
    if n_small == 0:
        return direct
    taylor = _taylor_log_box(torch.where(small, r, torch.zeros_like(r)), torch.where(small, m0, torch.zeros_like(m0)))
    return torch.where(small, taylor, direct)


def safe_sqrt(x: torch.Tensor) -> torch.Tensor:
    """sqrt(x) for x >= 0 with a zero (not infinite) gradient at x = 0."""
    pos = x > 0
    return torch.where(pos, torch.sqrt(torch.where(pos, x, torch.ones_like(x))), torch.zeros_like(x))


def safe_div(num: torch.Tensor, den: torch.Tensor) -> torch.Tensor:
    """num / den where den != 0, else 0 (and a zero gradient there)."""
    nz = den != 0
    return torch.where(nz, num / torch.where(nz, den, torch.ones_like(den)), torch.zeros_like(num))


def natural_to_rm(prec: torch.Tensor, shift: torch.Tensor):
    """(precision lambda, linear term h) of exp(-lambda u^2 / 2 + h u) -> (r, m0) = (sqrt(lambda), h / r)."""
    r = safe_sqrt(prec)
    return r, safe_div(shift, r)


def tn_moments(r: torch.Tensor, m0: torch.Tensor):
    """Mean and variance of u with density proportional to exp(-(r u - m0)^2 / 2) on [-1, 1].

    Near the uniform (r (1 + |m0|) < 0.05 in float64) the moments are the series in h = r m0 and
    lam = r^2 of the tilted uniform exp(h u - lam u^2 / 2) (through order 7 for the mean, 8 for the
    variance: truncation error below 1e-15); elsewhere the truncated-normal formulas, whose
    cancellation (variance ~ r^2 / 3 from O(1) terms) is below 1e-10 there.
    """
    r, m0 = torch.broadcast_tensors(r, m0)
    small = r * (1.0 + m0.abs()) < (0.05 if r.dtype == torch.float64 else 0.2)
    rt = torch.where(small, r, torch.zeros_like(r))
    h = rt * torch.where(small, m0, torch.zeros_like(m0))
    lam = rt * rt
    h2 = h * h
    mean_s = h * (1.0 / 3.0 - h2 / 45.0 - 2.0 * lam / 45.0 + 2.0 * h2 * h2 / 945.0 + 8.0 * h2 * lam / 945.0
                  + 2.0 * lam * lam / 945.0 - h2 ** 3 / 4725.0 - 2.0 * h2 * h2 * lam / 1575.0
                  - 2.0 * h2 * lam * lam / 1575.0 + 2.0 * lam ** 3 / 14175.0)
    var_s = (1.0 / 3.0 - 2.0 * lam / 45.0 - h2 / 15.0 + 2.0 * lam * lam / 945.0 + 8.0 * h2 * lam / 315.0
             + 2.0 * h2 * h2 / 189.0 + 2.0 * lam ** 3 / 14175.0 - 2.0 * h2 * lam * lam / 525.0
             - 2.0 * h2 * h2 * lam / 315.0 - h2 ** 3 / 675.0 - 2.0 * lam ** 4 / 93555.0
             + 4.0 * h2 * lam ** 3 / 22275.0 + 10.0 * h2 * h2 * lam * lam / 6237.0 + 16.0 * h2 ** 3 * lam / 13365.0
             + 2.0 * h2 ** 4 / 10395.0)
    # otherwise: the standardised truncated normal x = r u - m0 on [a, b], reflected onto a + b <= 0
    rs = torch.where(small, torch.ones_like(r), r)
    ms = torch.where(small, torch.zeros_like(m0), m0)
    a, b = -rs - ms, rs - ms
    flip = (a + b) > 0
    a2 = torch.where(flip, -b, a)
    b2 = torch.where(flip, -a, b)
    # phi(b) / Phi(b) to full relative precision (erfcx on the left), and the share of Phi(a)
    neg = b2 < 0
    mills = math.sqrt(math.pi / 2.0) * torch.special.erfcx(torch.where(neg, -b2, torch.ones_like(b2)) / math.sqrt(2.0))
    bp = torch.where(neg, torch.zeros_like(b2), b2)
    lam_b = torch.where(neg, 1.0 / mills, torch.exp(_log_phi(bp)) / ndtr(bp))
    one_minus_rho = -torch.expm1(log_ndtr(a2) - log_ndtr(b2))
    pb = lam_b / one_minus_rho                                   # phi(b) / (Phi(b) - Phi(a))
    pa = pb * torch.exp(-0.5 * (a2 - b2) * (a2 + b2))            # phi(a) / (Phi(b) - Phi(a))
    ex = pa - pb
    vx = torch.clamp(1.0 + a2 * pa - b2 * pb - ex * ex, min=0.0)
    ex = torch.where(flip, -ex, ex)
    mean_d = (ex + ms) / rs
    var_d = vx / (rs * rs)
    return torch.where(small, mean_s, mean_d), torch.where(small, var_s, var_d)


def tn_std_quantile(a: torch.Tensor, b: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    """The t-quantile of a standard normal truncated to [a, b] (a < b; t in [0, 1]).

    Reflected so that a + b <= 0; p = Phi(a) (1 - t) + Phi(b) t is inverted by ``ndtri`` (from
    whichever of p, 1 - p is smaller). A narrow interval is read linearly; an interval beyond the
    underflow of Phi starts from phi's exponential tail and takes two Newton steps on the log CDF."""
    a, b, t = torch.broadcast_tensors(a, b, t)
    flip = (a + b) > 0
    a2 = torch.where(flip, -b, a)
    b2 = torch.where(flip, -a, b)
    t2 = torch.where(flip, 1.0 - t, t)
    t2 = t2.clamp(torch.finfo(a.dtype).tiny, 1.0 - torch.finfo(a.dtype).eps)
    w = b2 - a2
    narrow = w * (1.0 + a2.abs()) < 1e-5
    tail = (b2 < linear_floor(a.dtype)) & ~narrow
    special = narrow | tail
    any_special = bool(special.any())
    a_s = torch.where(special, -torch.ones_like(a2), a2) if any_special else a2
    b_s = torch.where(special, torch.zeros_like(b2), b2) if any_special else b2
    p = fast_ndtr(a_s) * (1.0 - t2) + fast_ndtr(b_s) * t2
    q = fast_ndtr(-a_s) * (1.0 - t2) + fast_ndtr(-b_s) * t2
    lower_half = p < 0.5
    x = torch.where(lower_half, ndtri(torch.where(lower_half, p, torch.full_like(p, 0.25))),
                    -ndtri(torch.where(lower_half, torch.full_like(q, 0.25), q)))
    x = torch.minimum(torch.maximum(x, a_s), b_s)
    if any_special:
        if bool(tail.any()):
            bt = torch.where(tail, b2, -torch.ones_like(b2))
            wt = torch.where(tail, w, torch.ones_like(w))
            x_tail = bt + torch.log(t2 + (1.0 - t2) * torch.exp(bt * wt)) / (-bt)
            # two Newton steps on log(Phi(x) - Phi(a)) - log(Phi(b) - Phi(a)) = log t (exact CDF)
            at = bt - wt
            logz = log_ndtr_diff(at, bt)
            logt = torch.log(t2)
            for _ in range(2):
                xt = torch.minimum(torch.maximum(x_tail, at + 1e-12 * wt), bt)
                ld = log_ndtr_diff(at, xt)
                x_tail = xt - (ld - logz - logt) / torch.exp(_log_phi(xt) - ld)
            x_tail = torch.minimum(torch.maximum(x_tail, at), bt)
            x = torch.where(tail, x_tail, x)
        x = torch.where(narrow, a2 + t2 * w, x)
    return torch.where(flip, -x, x)


def tn_u_quantile(r: torch.Tensor, m0: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    """The t-quantile of u with density proportional to exp(-(r u - m0)^2 / 2) on [-1, 1].

    Near the uniform (r (1 + |m0|) small) the density is exp(h u) up to O(r^2) (h = r m0), whose
    quantile is closed form; elsewhere x = r u - m0 is a truncated standard normal."""
    r, m0, t = torch.broadcast_tensors(r, m0, t)
    small = r * (1.0 + m0.abs()) < small_threshold(r.dtype)
    h = torch.where(small, r * m0, torch.zeros_like(r))
    hs = torch.where(h.abs() > 1e-12, h, torch.ones_like(h))
    u_tilt = torch.where(h.abs() > 1e-12, -1.0 + torch.log1p(t * torch.expm1(2.0 * hs)) / hs, 2.0 * t - 1.0)
    rs = torch.where(small, torch.ones_like(r), r)
    ms = torch.where(small, torch.zeros_like(m0), m0)
    x = tn_std_quantile(-rs - ms, rs - ms, t)
    u = ((x + ms) / rs).clamp(-1.0, 1.0)
    return torch.where(small, u_tilt, u)


_SOBOL: dict = {}


def sobol_points(dim: int, n: int, dtype: torch.dtype) -> torch.Tensor:
    """n scrambled Sobol points in (0, 1)^dim, fixed (seed 0): the same points at every call."""
    key = (dim, n, dtype)
    if key not in _SOBOL:
        eng = torch.quasirandom.SobolEngine(dimension=dim, scramble=True, seed=0)
        pts = eng.draw(n, dtype=torch.float64).clamp(1e-12, 1.0 - 1e-12)
        _SOBOL[key] = pts.to(dtype)
    return _SOBOL[key]


def genz_log_box_prob(mean: torch.Tensor, cov: torch.Tensor, n_points: int) -> torch.Tensor:
    """log P(N(mean, cov) in [-1, 1]^m) for a positive definite ``cov``.

    Genz's separation of variables: with cov = L L^T, the constraint on coordinate i bounds w_i given
    w_1..w_{i-1}; the probability is the average over points t in (0, 1)^(m-1) of
    prod_i (Phi(b_i) - Phi(a_i)), with w_i the t_i-quantile of the normal truncated to [a_i, b_i].
    The variables are ordered by increasing marginal box probability (the most constrained first,
    Genz & Bretz's heuristic, static), and the average runs over ``n_points`` fixed scrambled Sobol
    points. ``mean`` (..., m), ``cov`` (..., m, m).
    """
    m = mean.shape[-1]
    sd = torch.sqrt(torch.diagonal(cov, dim1=-2, dim2=-1))
    if m == 1:
        return log_ndtr_diff((-1.0 - mean[..., 0]) / sd[..., 0], (1.0 - mean[..., 0]) / sd[..., 0])
    with torch.no_grad():
        marg = log_ndtr_diff((-1.0 - mean) / sd, (1.0 - mean) / sd)
        order = torch.argsort(marg, dim=-1)
    mean = torch.gather(mean, -1, order)
    cov = torch.gather(torch.gather(cov, -1, order.unsqueeze(-2).expand_as(cov)), -2,
                       order.unsqueeze(-1).expand_as(cov))
    L = torch.linalg.cholesky(cov)
    pts = sobol_points(m - 1, n_points, mean.dtype)              # (N, m - 1)
    batch = mean.shape[:-1]
    mean_f = mean.reshape(-1, m)
    L_f = L.reshape(-1, m, m)
    chunk = max(1, (1 << 20) // n_points)                        # bounded memory: ~1e6 (row, point) pairs at a time
    if mean_f.shape[0] > chunk:
        parts = [_genz_rows(mean_f[i:i + chunk], L_f[i:i + chunk], pts, n_points)
                 for i in range(0, mean_f.shape[0], chunk)]
        return torch.cat(parts).reshape(batch)
    return _genz_rows(mean_f, L_f, pts, n_points).reshape(batch)


def _genz_rows(mean, L, pts, n_points):
    m = mean.shape[-1]
    diag = torch.diagonal(L, dim1=-2, dim2=-1)
    mean_n = mean.unsqueeze(-2)                                  # (B, 1, m)
    total = None
    ws = []
    for i in range(m):
        shift = mean_n[..., i]
        for j, wj in enumerate(ws):
            shift = shift + L[..., i, j].unsqueeze(-1) * wj
        lo = (-1.0 - shift) / diag[..., i].unsqueeze(-1)    # (B, 1) for i = 0, else (B, N)
        hi = (1.0 - shift) / diag[..., i].unsqueeze(-1)
        le = log_ndtr_diff(lo, hi)
        total = le if total is None else total + le
        if i < m - 1:
            ws.append(tn_std_quantile(lo, hi, pts[:, i]))
    return torch.logsumexp(total, dim=-1) - math.log(n_points)


def _psi(x: torch.Tensor) -> torch.Tensor:
    """Psi(x) = x Phi(x) + phi(x) = E (x - Z)_+ (Z standard normal), stable for x < 0 via erfcx."""
    neg = x < 0
    xn = torch.where(neg, -x, torch.zeros_like(x))        # |x| on the negative side
    mills = math.sqrt(math.pi / 2.0) * torch.special.erfcx(xn / math.sqrt(2.0))   # Phi(-y) / phi(y)
    left = torch.exp(_log_phi(xn)) * (1.0 - xn * mills)
    xp = torch.where(neg, torch.zeros_like(x), x)
    right = xp * ndtr(xp) + torch.exp(_log_phi(xp))
    return torch.where(neg, left, right)


def uniform_exceedance(z: torch.Tensor, delta: torch.Tensor) -> torch.Tensor:
    """E Phi(z + delta u), u ~ Uniform[-1, 1]: (Psi(z + d) - Psi(z - d)) / (2 d), d = |delta|."""
    z, delta = torch.broadcast_tensors(z, delta)
    d = delta.abs()
    small = d * (1.0 + z.abs()) < small_threshold(z.dtype)
    ds = torch.where(small, torch.ones_like(d), d)
    direct = (_psi(z + ds) - _psi(z - ds)) / (2.0 * ds)
    dt = torch.where(small, d, torch.zeros_like(d))
    phi = torch.exp(_log_phi(z))
    taylor = ndtr(z) - dt * dt / 6.0 * z * phi + dt ** 4 / 120.0 * (3.0 * z - z ** 3) * phi
    return torch.where(small, taylor, direct).clamp(0.0, 1.0)
