"""conformal_set and conformal_density_scores: the intervals against a brute-force evaluation of the
interpolated density on a fine grid, bimodal densities (two intervals that merge as the modes
approach; a set that shrinks as they separate), infinite and empty sets, bad input."""
import numpy as np
import pytest

from statcore import ConformalSet, conformal_density_scores, conformal_quantile, conformal_set


def _mixture(grid, sep, sd=0.5):
    phi = lambda m: np.exp(-0.5 * ((grid - m) / sd) ** 2) / (sd * np.sqrt(2 * np.pi))
    return 0.5 * phi(-sep / 2) + 0.5 * phi(sep / 2)


def _brute_intervals(f, grid, level, fine=200_001):
    """The superlevel set of the interpolated density on a fine grid: maximal runs of points."""
    x = np.linspace(grid[0], grid[-1], fine)
    inside = np.interp(x, grid, f) >= level
    edges = np.flatnonzero(np.diff(np.r_[False, inside, False].astype(int)))
    return x, np.column_stack([x[edges[::2]], x[edges[1::2] - 1]])


@pytest.mark.parametrize("sep, level", [(4.0, 0.1), (1.0, 0.1), (3.0, 0.25), (2.2, 0.05), (6.0, 0.01)])
def test_intervals_match_a_brute_force_grid(sep, level):
    grid = np.linspace(-6, 6, 97)            # a coarse grid: the interpolation matters
    f = _mixture(grid, sep)
    res = conformal_set(f, grid, threshold=-level)
    x, brute = _brute_intervals(f, grid, level)
    got = res.intervals[0]
    assert got.shape == brute.shape
    step = x[1] - x[0]
    assert np.all(np.abs(got - brute) <= step)
    # the exact ends: the interpolant equals the level there (inside the grid)
    ends = got.ravel()
    inner = (ends > grid[0]) & (ends < grid[-1])
    np.testing.assert_allclose(np.interp(ends[inner], grid, f), level, rtol=0, atol=1e-12)
    assert res.length[0] == pytest.approx(np.sum(brute[:, 1] - brute[:, 0]), abs=2 * got.shape[0] * step)


def test_bimodal_gives_two_intervals_that_merge_as_modes_approach():
    grid = np.linspace(-8, 8, 1601)
    level = 0.12
    counts = [conformal_set(_mixture(grid, sep), grid, threshold=-level).n_intervals[0]
              for sep in (4.0, 3.0, 2.0, 1.0, 0.5)]
    assert counts[0] == 2 and counts[1] == 2
    assert counts[-1] == 1 and counts[-2] == 1
    assert counts == sorted(counts, reverse=True)


def test_set_shrinks_as_modes_separate_with_fixed_widths():
    """Two components of fixed width 0.5: past the split, separating the modes at a fixed density
    level drops the shoulder between them, so the set shrinks towards the two single-component
    intervals; the hull of the set (what one interval must cover) keeps growing."""
    grid = np.linspace(-12, 12, 4801)
    level = 0.15
    seps = (1.75, 2.0, 2.25, 2.5, 3.0, 8.0)
    sets = [conformal_set(_mixture(grid, sep), grid, threshold=-level) for sep in seps]
    lengths = [r.length[0] for r in sets]
    assert sets[0].n_intervals[0] == 1 and all(r.n_intervals[0] == 2 for r in sets[1:])
    assert all(a > b for a, b in zip(lengths[:-1], lengths[1:-1]))
    one = 2 * 0.5 * np.sqrt(2 * np.log(0.5 / (level * 0.5 * np.sqrt(2 * np.pi))))   # one component alone
    assert lengths[-1] == pytest.approx(2 * one, abs=1e-3)
    hulls = [r.pred_high.max() - r.pred_low.min() for r in sets]
    assert all(a < b for a, b in zip(hulls, hulls[1:]))


def test_calibrated_hpd_set_excludes_the_gap():
    """At a fixed coverage of 0.9 (the level with 90% of the mass above it), far-apart modes give two
    intervals whose total length is that of the two components' own 90% sets, not the span."""
    grid = np.linspace(-12, 12, 24001)
    for sep, n_int in ((0.0, 1), (1.0, 1), (4.0, 2), (6.0, 2)):
        f = _mixture(grid, sep)
        fs = np.sort(f)[::-1]
        level = fs[np.searchsorted(np.cumsum(fs) * (grid[1] - grid[0]), 0.9)]
        res = conformal_set(f, grid, threshold=-level)
        assert res.n_intervals[0] == n_int
    assert res.length[0] == pytest.approx(2 * 1.6448536 * 0.5 * 2, abs=2e-3)   # two 90% normal intervals
    assert res.pred_high.max() - res.pred_low.min() > 6.0


def test_rows_and_per_row_thresholds():
    grid = np.linspace(-6, 6, 241)
    dens = np.vstack([_mixture(grid, s) for s in (0.0, 2.0, 4.0)])
    q = np.array([-0.1, -0.2, -0.05])
    res = conformal_set(dens, grid, threshold=q)
    for i in range(3):
        one = conformal_set(dens[i], grid, threshold=q[i])
        np.testing.assert_array_equal(res.intervals[i], one.intervals[0])
        assert res.length[i] == one.length[0]
    np.testing.assert_array_equal(res.n_intervals, [len(iv) for iv in res.intervals])
    frame = res.to_frame()
    assert list(frame.columns) == ["row", "interval", "pred_low", "pred_high", "length"]
    assert len(frame) == res.n_intervals.sum()
    np.testing.assert_allclose(frame.groupby("row")["length"].sum().to_numpy(), res.length)


def test_infinite_empty_and_edge_sets():
    grid = np.linspace(0.0, 1.0, 11)
    flat = np.ones(11)
    res = conformal_set(np.vstack([flat, flat, flat]), grid, threshold=[0.0, np.inf, -2.0])
    assert res.intervals[0].tolist() == [[-np.inf, np.inf]] and res.length[0] == np.inf
    assert res.intervals[1].tolist() == [[-np.inf, np.inf]]
    assert res.n_intervals[2] == 0 and res.length[2] == 0          # level 2 above the density: empty
    at_edge = conformal_set(flat, grid, threshold=-0.5)
    assert at_edge.intervals[0].tolist() == [[0.0, 1.0]]          # 0 outside the grid: ends at its ends
    assert at_edge.contains(0.5).tolist() == [True] and at_edge.contains(1.5).tolist() == [False]


def test_density_scores_and_coverage_contract():
    """y lies in the set with threshold q exactly when its score is <= q (the conformal contract)."""
    rng = np.random.default_rng(3)
    grid = np.linspace(-6, 6, 121)
    n = 400
    seps = rng.uniform(0, 5, n)
    dens = np.vstack([_mixture(grid, s) for s in seps])
    y = rng.uniform(-7, 7, n)
    scores = conformal_density_scores(dens, grid, y)
    inside_grid = (y >= grid[0]) & (y <= grid[-1])
    np.testing.assert_allclose(scores[inside_grid],
                               [-np.interp(v, grid, d) for v, d in zip(y[inside_grid], dens[inside_grid])],
                               rtol=0, atol=1e-15)
    assert np.all(scores[~inside_grid] == 0)
    q = conformal_quantile(scores[:200], alpha=0.2)
    res = conformal_set(dens[200:], grid, threshold=q)
    s_test = scores[200:]
    away = np.abs(s_test - q) > 1e-12          # not exactly on the level
    np.testing.assert_array_equal(res.contains(y[200:])[away], (s_test <= q)[away])


def test_bad_input():
    grid = np.linspace(0, 1, 5)
    f = np.array([0.0, 1.0, 2.0, 1.0, 0.0])
    with pytest.raises(ValueError, match="grid must be strictly increasing"):
        conformal_set(f, grid[::-1], threshold=-0.5)
    with pytest.raises(ValueError, match="density must be non-negative"):
        conformal_set(-f, grid, threshold=-0.5)
    with pytest.raises(ValueError, match="one value per grid point"):
        conformal_set(f[:4], grid, threshold=-0.5)
    with pytest.raises(ValueError, match="threshold must be one number or one per density row"):
        conformal_set(np.vstack([f, f]), grid, threshold=[-0.5, -0.5, -0.5])
    with pytest.raises(ValueError, match="threshold contains NaN"):
        conformal_set(f, grid, threshold=np.nan)
    with pytest.raises(ValueError, match="density contains NaN"):
        conformal_set(np.r_[np.nan, f[1:]], grid, threshold=-0.5)
    with pytest.raises(ValueError, match="y must have one value per density row"):
        conformal_density_scores(np.vstack([f, f]), grid, [0.5])
    assert isinstance(conformal_set(f, grid, threshold=-0.5), ConformalSet)
