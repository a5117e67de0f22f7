"""C2G numba kernels against plain numpy transcriptions of their formulas."""
import numpy as np
from scipy.stats import norm

from statcore.ebayes._c2g_kernels import binned_boot_sums, knn_boot_density, knn_boot_mean, loo_boot_density
from statcore.ebayes._c2g_nonparametric import CondKDE, _pi_star


def _setup(seed=0, n=60, nq=7, k=9, B=5):
    rng = np.random.default_rng(seed)
    y = rng.normal(size=n)
    idx = np.stack([rng.choice(n, k, replace=False) for _ in range(nq)]).astype(np.int64)
    w = rng.random((nq, k))
    w[0, -2:] = 0.0
    counts = rng.multinomial(n, np.full(n, 1 / n), size=B).astype(float)
    return y, idx, w, counts


def test_knn_boot_density_matches_formula():
    y, idx, w, counts = _setup()
    grid = np.linspace(-3, 3, 11)
    yq = np.linspace(-1, 1, idx.shape[0])
    hy = 0.4
    out_g = np.empty((idx.shape[0], counts.shape[0], grid.size))
    out_y = np.empty((idx.shape[0], counts.shape[0]))
    knn_boot_density(idx, w, y, counts, hy, grid, yq, out_g, out_y)
    for q in range(idx.shape[0]):
        for b in range(counts.shape[0]):
            cw = counts[b, idx[q]] * w[q]
            ref = (cw[:, None] * norm.pdf(grid[None, :], y[idx[q]][:, None], hy)).sum(0) / cw.sum()
            np.testing.assert_allclose(out_g[q, b], ref, rtol=1e-12)
            np.testing.assert_allclose(out_y[q, b], (cw * norm.pdf(yq[q], y[idx[q]], hy)).sum() / cw.sum(),
                                       rtol=1e-12)
    means = np.empty((idx.shape[0], counts.shape[0]))
    knn_boot_mean(idx, w, y, counts, means)
    cw = counts[:, idx].transpose(1, 0, 2) * w[:, None, :]
    np.testing.assert_allclose(means, (cw * y[idx][:, None, :]).sum(-1) / cw.sum(-1), rtol=1e-12)


def test_knn_boot_density_empty_resample_is_nan():
    y, idx, w, counts = _setup()
    counts[0, idx[1]] = 0.0
    out_g = np.empty((idx.shape[0], counts.shape[0], 3))
    out_y = np.empty((idx.shape[0], counts.shape[0]))
    knn_boot_density(idx, w, y, counts, 0.5, np.zeros(3), np.zeros(idx.shape[0]), out_g, out_y)
    assert np.isnan(out_y[1, 0]) and np.isnan(out_g[1, 0]).all()
    assert np.isfinite(out_y[0]).all()


def test_loo_and_binned_covariate_free_densities():
    y, _, _, counts = _setup(n=300, B=4)
    hy = 0.3
    pts = np.r_[y[:5], 0.123]
    self_idx = np.array([0, 1, 2, 3, 4, -1], dtype=np.int64)
    out = np.empty((pts.size, counts.shape[0]))
    loo_boot_density(y, counts, hy, pts, self_idx, out)
    for p in range(pts.size):
        keep = np.arange(y.size) != self_idx[p]
        c = counts[:, keep]
        ref = (c * norm.pdf(pts[p], y[keep], hy)).sum(1) / c.sum(1)
        np.testing.assert_allclose(out[p], ref, rtol=1e-12)
    # binned sums: second-order accurate in the bin width
    delta = hy / 20
    lo = y.min() - delta
    n_fine = int(np.ceil((y.max() + delta - lo) / delta)) + 2
    S = np.empty((counts.shape[0], n_fine))
    binned_boot_sums(y, counts, hy, lo, delta, S)
    u = lo + np.arange(n_fine) * delta
    exact = counts @ norm.pdf(u[None, :], y[:, None], hy)
    assert np.max(np.abs(S - exact)) / exact.max() < 2e-3


def test_neighbours_exclude_self():
    from scipy.spatial import cKDTree

    rng = np.random.default_rng(1)
    Z = rng.normal(size=(50, 2))
    kde = CondKDE(Z, rng.normal(size=50), 5, 1.0, 0.3, np.ones((1, 50)), cKDTree(Z))
    idx, w = kde.neighbours(Z[:10], np.arange(10, dtype=np.int64))
    assert idx.shape == (10, 5)
    assert not np.any(idx == np.arange(10)[:, None])
    d = np.sqrt(((Z[:10, None, :] - Z[None]) ** 2).sum(-1))
    d[np.arange(10), np.arange(10)] = np.inf
    np.testing.assert_array_equal(np.sort(idx, 1), np.sort(np.argsort(d, 1)[:, :5], 1))


def test_pi_star_exact_on_noise_free_curves():
    """Identical resamples: no band, pi* = 1 - min over the supported grid of f_t / f0."""
    grid = np.linspace(-4, 7, 200)
    f0 = norm.pdf(grid)
    ft = 0.7 * norm.pdf(grid) + 0.3 * norm.pdf(grid, 3)
    f0g = np.repeat(f0[None, None, :], 20, axis=1)
    f1g = np.repeat(ft[None, None, :], 20, axis=1)
    pistar, lo, hi = _pi_star(f0g, f1g, 0.2)
    mask = ft >= 0.05 * ft.max()
    expected = 1 - np.min(ft[mask] / f0[mask])
    assert 0.2999 < expected < 0.3
    np.testing.assert_allclose(pistar, expected, rtol=1e-12)
    np.testing.assert_allclose(lo, expected, rtol=1e-12)
    np.testing.assert_allclose(hi, expected, rtol=1e-12)


def test_pi_star_pointwise_is_the_quantile_ratio_formula():
    """band="pointwise": 1 - min over the supported grid of the upper f_t quantile over the lower f0
    quantile (numpy transcription); the interval takes the (1 - conf_level) / 2 quantiles."""
    rng = np.random.default_rng(5)
    grid = np.linspace(-4, 7, 60)
    f0 = norm.pdf(grid)
    ft = 0.7 * norm.pdf(grid) + 0.3 * norm.pdf(grid, 3)
    f0g = f0[None, None, :] * rng.lognormal(0, 0.1, (3, 40, grid.size))
    f1g = ft[None, None, :] * rng.lognormal(0, 0.1, (3, 40, grid.size))
    q = 0.2
    pistar, lo, hi = _pi_star(f0g, f1g, q, "pointwise")
    for m in range(3):
        mask = np.median(f1g[m], 0) >= 0.05 * np.median(f1g[m], 0).max()
        ratio = np.quantile(f1g[m], 1 - q, 0) / np.quantile(f0g[m], q, 0)
        np.testing.assert_allclose(pistar[m], 1 - ratio[mask].min(), rtol=1e-12)
        r_lo = np.quantile(f1g[m], 0.975, 0) / np.quantile(f0g[m], 0.025, 0)
        r_hi = np.quantile(f1g[m], 0.025, 0) / np.quantile(f0g[m], 0.975, 0)
        np.testing.assert_allclose(lo[m], min(1 - r_lo[mask].min(), pistar[m]), rtol=1e-12)
        np.testing.assert_allclose(hi[m], max(1 - r_hi[mask].min(), pistar[m]), rtol=1e-12)
    # noise-free curves: both bands give the exact minimum
    f0n = np.repeat(f0[None, None, :], 20, axis=1)
    f1n = np.repeat(ft[None, None, :], 20, axis=1)
    mask = ft >= 0.05 * ft.max()
    for band in ("pointwise", "simultaneous"):
        np.testing.assert_allclose(_pi_star(f0n, f1n, 0.2, band)[0], 1 - np.min(ft[mask] / f0[mask]), rtol=1e-12)
