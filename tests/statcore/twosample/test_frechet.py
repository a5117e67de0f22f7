"""Frechet distance: closed forms, invariances, POT's Bures-Wasserstein distance, pytorch-fid's
formula on well-conditioned input, an mpmath reference on rank-deficient input (n < d), the bootstrap
interval's coverage and FID infinity."""
import warnings

import numpy as np
import pytest

import _peers
from statcore import fid_infinity, frechet_distance, frechet_distance_stats
from statcore.testing import assert_coverage


def _gauss(rng, n, d, shift=0.0, scale=1.0):
    return rng.normal(size=(n, d)) * scale + shift


# ----------------------------------------------------------------------------------------------
# closed forms
# ----------------------------------------------------------------------------------------------

def test_one_dimensional_closed_form():
    res = frechet_distance_stats([0.3], [[1.44]], [-0.2], [[0.25]])
    assert res.distance == pytest.approx((0.3 + 0.2) ** 2 + (1.2 - 0.5) ** 2, rel=1e-14)
    x = np.random.default_rng(1).normal(size=50)
    y = np.random.default_rng(2).normal(2.0, 3.0, size=70)
    want = (x.mean() - y.mean()) ** 2 + (x.std(ddof=1) - y.std(ddof=1)) ** 2
    for method in ("cholesky", "eigh", "nuclear"):
        assert frechet_distance(x, y, method=method).distance == pytest.approx(want, rel=1e-12)


def test_diagonal_covariances():
    a, b = np.array([1.0, 4.0, 0.5, 2.0]), np.array([2.0, 1.0, 0.5, 9.0])
    mu1, mu2 = np.array([0.0, 1.0, 2.0, 3.0]), np.array([1.0, 1.0, 0.0, 3.0])
    res = frechet_distance_stats(mu1, np.diag(a), mu2, np.diag(b))
    want_trace = float(np.sum((np.sqrt(a) - np.sqrt(b)) ** 2))
    assert res.mean_term == pytest.approx(5.0, rel=1e-15)
    assert res.trace_term == pytest.approx(want_trace, rel=1e-13)
    assert res.distance == pytest.approx(5.0 + want_trace, rel=1e-13)


def test_singular_covariances_have_no_ridge():
    # rank-1 covariances along orthogonal axes: tr sqrt = 0, FD = tr S1 + tr S2 exactly
    res = frechet_distance_stats(np.zeros(3), np.diag([4.0, 0, 0]), np.zeros(3), np.diag([0, 9.0, 0]))
    assert res.distance == pytest.approx(13.0, rel=1e-14)


@pytest.mark.parametrize("n, d", [(200, 5), (15, 40)])
def test_distance_to_itself_is_zero(n, d):
    x = _gauss(np.random.default_rng(3), n, d)
    for method in ("cholesky", "eigh", "nuclear"):
        res = frechet_distance(x, x, method=method)
        assert abs(res.distance) < 1e-12 * d * max(1.0, float(np.var(x)))


def test_orthogonal_and_shift_invariance():
    rng = np.random.default_rng(4)
    x, y = _gauss(rng, 120, 6), _gauss(rng, 90, 6, shift=0.4, scale=1.5)
    q, _ = np.linalg.qr(rng.normal(size=(6, 6)))
    c = rng.normal(size=6) * 10
    base = frechet_distance(x, y).distance
    assert frechet_distance(x @ q + c, y @ q + c).distance == pytest.approx(base, rel=1e-11)
    assert frechet_distance(y, x).distance == pytest.approx(base, rel=1e-11)


def test_equals_pot_bures_wasserstein_squared():
    ot = pytest.importorskip("ot")
    rng = np.random.default_rng(5)
    x, y = _gauss(rng, 300, 8), _gauss(rng, 250, 8, shift=0.3, scale=0.7)
    y = y @ rng.normal(size=(8, 8)) / 3
    w = ot.gaussian.bures_wasserstein_distance(x.mean(0), y.mean(0), np.cov(x, rowvar=False), np.cov(y, rowvar=False))
    res = frechet_distance(x, y)
    assert res.distance == pytest.approx(float(w) ** 2, rel=1e-10)
    assert frechet_distance_stats(x.mean(0), np.cov(x, rowvar=False), y.mean(0),
                                  np.cov(y, rowvar=False)).distance == pytest.approx(float(w) ** 2, rel=1e-10)


# ----------------------------------------------------------------------------------------------
# pytorch-fid parity and the rank-deficient case
# ----------------------------------------------------------------------------------------------

def test_pytorch_fid_parity_well_conditioned():
    calc = _peers.pytorch_fid_frechet()
    rng = np.random.default_rng(6)
    for n1, n2, d in [(2000, 1500, 16), (600, 800, 64)]:
        x = _gauss(rng, n1, d) @ (np.eye(d) + 0.2 * rng.normal(size=(d, d)))  # well conditioned
        y = _gauss(rng, n2, d, shift=0.1, scale=1.2)
        peer = calc(x.mean(0), np.cov(x, rowvar=False), y.mean(0), np.cov(y, rowvar=False))
        for method in ("auto", "cholesky", "eigh", "nuclear"):
            assert frechet_distance(x, y, method=method).distance == pytest.approx(peer, rel=1e-8)


def _mpmath_fd(x, y, dps=40):
    """FD by its definition in mpmath at ``dps`` digits: exact means and covariances of the float data,
    S1^1/2 from mpmath's symmetric eigendecomposition, tr (S1^1/2 S2 S1^1/2)^1/2 from the eigenvalues.
    At 40 digits the zero eigenvalues of the singular covariances are ~1e-40 and add ~1e-20."""
    mp = pytest.importorskip("mpmath")
    with mp.workdps(dps):
        def meancov(z):
            n, d = z.shape
            zm = mp.matrix(z.tolist())
            mu = [mp.fsum(zm[i, j] for i in range(n)) / n for j in range(d)]
            c = mp.matrix(n, d)
            for i in range(n):
                for j in range(d):
                    c[i, j] = zm[i, j] - mu[j]
            return mu, (c.T * c) / (n - 1)

        m1, s1 = meancov(x)
        m2, s2 = meancov(y)
        e, q = mp.eigsy(s1)
        h = q * mp.diag([mp.sqrt(max(v, 0)) for v in e]) * q.T
        m = h * s2 * h
        ev = mp.eigsy((m + m.T) / 2, eigvals_only=True)
        d = x.shape[1]
        value = (mp.fsum((a - b) ** 2 for a, b in zip(m1, m2)) + mp.fsum(s1[i, i] + s2[i, i] for i in range(d))
                 - 2 * mp.fsum(mp.sqrt(max(v, 0)) for v in ev))
        return float(value)


def test_rank_deficient_against_mpmath():
    """n < d: the covariances are singular. pytorch-fid's sqrtm of S1 S2 is off by about 2e-8 relative
    (measured -2.4e-8: 10^8 times the rounding error); the nuclear-norm route, which ``method="auto"``
    takes here, matches the 40-digit reference to 2e-16, the eigh route (rounding-noise eigenvalues
    set to 0) to 1.3e-14, and so does the pivoted Cholesky route (rank at LAPACK's tolerance). Without
    the rank tolerance the eigh route was off by -6.7e-9."""
    rng = np.random.default_rng(0)
    x, y = _gauss(rng, 8, 24), _gauss(rng, 8, 24, shift=0.1)
    ref = _mpmath_fd(x, y)
    calc = _peers.pytorch_fid_frechet()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy's "matrix is singular" from sqrtm
        peer = calc(x.mean(0), np.cov(x, rowvar=False), y.mean(0), np.cov(y, rowvar=False))
    ours = frechet_distance(x, y)
    assert ours.method == "nuclear"
    assert abs(ours.distance - ref) / ref < 1e-14
    assert abs(frechet_distance(x, y, method="eigh").distance - ref) / ref < 1e-13
    assert abs(frechet_distance(x, y, method="cholesky").distance - ref) / ref < 1e-13
    assert abs(peer - ref) / ref > 1e-9  # where pytorch-fid is off (measured: -2.4e-8)


# ----------------------------------------------------------------------------------------------
# bootstrap and FID infinity
# ----------------------------------------------------------------------------------------------

def test_bootstrap_is_seeded_and_reported():
    rng = np.random.default_rng(7)
    x, y = _gauss(rng, 80, 3), _gauss(rng, 60, 3, shift=0.5)
    a = frechet_distance(x, y, B=50, seed=3)
    b = frechet_distance(x, y, B=50, seed=3)
    assert a.conf_int == b.conf_int and np.array_equal(a.replicates, b.replicates)
    assert a.conf_int[0] < a.distance < a.conf_int[1]
    p = frechet_distance(x, y, B=50, seed=3, ci="percentile")
    q = np.quantile(p.replicates, [0.025, 0.975])
    assert p.conf_int == pytest.approx(tuple(q), rel=1e-14)
    assert a.conf_int == pytest.approx((2 * a.distance - q[1], 2 * a.distance - q[0]), rel=1e-14)
    # the replicates are the FDs of the resampled rows (the same draws, recomputed one by one)
    g = np.random.default_rng(3)
    draws = [(g.integers(0, 80, 80), g.integers(0, 60, 60)) for _ in range(50)]
    want = [frechet_distance(x[i], y[j]).distance for i, j in draws]
    assert np.allclose(a.replicates, want, rtol=1e-12, atol=1e-13)
    big = frechet_distance(np.hstack([x] * 6), np.hstack([y] * 6), B=5, seed=3)  # d = 18: the looped path
    want = [frechet_distance(np.hstack([x[i]] * 6), np.hstack([y[j]] * 6)).distance for i, j in draws[:5]]
    assert np.allclose(big.replicates, want, rtol=1e-12, atol=1e-12)


@pytest.mark.slow
def test_bootstrap_interval_covers():
    """Basic bootstrap interval, d = 2, n = 300 per sample: true FD = 2 * 0.5^2 + 2 (1 - sqrt(2))^2.
    200 data sets x B = 99; coverage must be >= 0.95 - 3 MC s.e. (measured: 0.93 at n = 150 over 400
    data sets, percentile interval 0.92)."""
    truth = 2 * 0.25 + 2 * (1 - np.sqrt(2.0)) ** 2

    def covers(xy, rng):
        lo, hi = frechet_distance(*xy, B=99, seed=rng).conf_int
        return lo <= truth <= hi

    # data and bootstrap in order from one Generator; bound 0.95 - 3 nominal binomial s.e.
    assert_coverage(covers, lambda rng: (rng.normal(size=(300, 2)), rng.normal(0.5, np.sqrt(2.0), size=(300, 2))),
                    conf_level=0.95, reps=200, seed=2026, std_error="nominal")


def test_fid_infinity_line_and_extrapolation():
    rng = np.random.default_rng(8)
    d = 8
    x, y = _gauss(rng, 3000, d, shift=0.3), _gauss(rng, 3000, d)
    truth = d * 0.09
    res = fid_infinity(x, y, ns=[250, 500, 1000, 2000], reps=3, seed=1)
    frame = res.to_frame()
    slope, intercept = np.polyfit(1.0 / frame["n"], frame["fd"], 1)
    assert res.estimate == pytest.approx(intercept, rel=1e-10)
    assert res.slope == pytest.approx(slope, rel=1e-10)
    assert res.slope > 0  # FD's plug-in bias shrinks like 1/n
    assert abs(res.estimate - truth) < abs(frame["fd"][frame["n"] == 250].mean() - truth)
    assert res.conf_int[0] < res.estimate < res.conf_int[1]
    from scipy import stats
    fit = stats.linregress(1.0 / frame["n"], frame["fd"])
    assert res.std_error == pytest.approx(fit.intercept_stderr, rel=1e-8)
    q = stats.t.ppf(0.975, len(frame) - 2)
    assert res.conf_int == pytest.approx((fit.intercept - q * fit.intercept_stderr,
                                          fit.intercept + q * fit.intercept_stderr), rel=1e-8)
