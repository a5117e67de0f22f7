"""Monte Carlo coverage over 1000 seeded calibration/test splits: for every score (absolute,
normalised, CQR, LAC, APS randomised and plain, highest-density sets) the mean coverage equals
k/(n + 1), k = ceil((n + 1)(1 - alpha)), within 3 Monte Carlo standard errors, so it lies in the exact
band [1 - alpha, 1 - alpha + 1/(n + 1)); Mondrian calibration reaches it within every group (where
the pooled quantile does not); APS that keeps the last label covers at least 1 - alpha.

The data are heteroscedastic and the models misspecified, so nothing but exchangeability holds."""
import functools

import numpy as np
import pytest

from statcore import (conformal_classes, conformal_cqr, conformal_density_scores, conformal_interval,
                      conformal_quantile, conformal_set, coverage_band)
from statcore._checks import conformal_rank
from statcore.testing import assert_coverage

R = 1000          # random calibration/test splits
N_CAL, N_TEST = 50, 50
ALPHA = 0.1

pytestmark = pytest.mark.slow


def _exact(n, alpha=ALPHA):
    return conformal_rank(n, alpha) / (n + 1)


def _assert_band(res, n, alpha=ALPHA):
    """The coverages of an exact ``assert_coverage`` run also lie in the band (within 3 s.e.)."""
    lo, hi = coverage_band(n, alpha=alpha)
    for name, mean in res.rates.items():
        se = res.std_errors[name]
        assert lo - 3 * se <= mean <= hi + 3 * se, f"{name}: mean {mean:.5f} outside [{lo}, {hi}) (se {se:.5f})"


def _regression_data(rng, n):
    x = rng.uniform(0, 2, n)
    y = np.sin(3 * x) + (0.2 + x) * rng.standard_t(5, n)
    pred = np.sin(3 * x) + 0.15 * x                           # a biased model
    return x, y, pred


def test_regression_scores_cover_exactly():
    def split(rng):
        return _regression_data(rng, N_CAL), _regression_data(rng, N_TEST)

    def covers(data, rng):
        (xc, yc, pc), (xt, yt, pt) = data
        return {"absolute": conformal_interval(yc, pc, pt, alpha=ALPHA).coverage(yt),
                "normalized": conformal_interval(yc, pc, pt, alpha=ALPHA, score="normalized", scale_cal=0.1 + xc,
                                                 scale_test=0.1 + xt).coverage(yt),
                "cqr": conformal_cqr(yc, pc - 1.2 * xc, pc + 0.9 * xc, pt - 1.2 * xt, pt + 0.9 * xt,
                                     alpha=ALPHA).coverage(yt)}

    # mean coverage = k/(n + 1) within 3 s.e., and inside the band
    res = assert_coverage(covers, split, conf_level=_exact(N_CAL), reps=R, seed=20240601, exact=True)
    _assert_band(res, N_CAL)


def _class_data(rng, n, K=5):
    logits = rng.normal(size=(n, K)) * 1.5
    p_model = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    p_true = np.exp(0.6 * logits) / np.exp(0.6 * logits).sum(axis=1, keepdims=True)   # the model is overconfident
    y = (rng.random(n)[:, None] > np.cumsum(p_true, axis=1)).sum(axis=1)
    return p_model, np.minimum(y, K - 1)


def test_classification_scores_cover_exactly():
    rng = np.random.default_rng(7)

    @functools.cache
    def split(r):    # drawn in order (r = 0, 1, ...) from one Generator, seed 7; the randomised APS seeded r
        pc, yc = _class_data(rng, N_CAL)
        pt, yt = _class_data(rng, N_TEST)
        return {"lac": conformal_classes(pc, yc, pt, alpha=ALPHA).coverage(yt),
                "aps randomized": conformal_classes(pc, yc, pt, alpha=ALPHA, score="aps", randomized=True,
                                                    seed=r).coverage(yt),
                "aps plain": conformal_classes(pc, yc, pt, alpha=ALPHA, score="aps", include_last=False).coverage(yt),
                "aps include_last": conformal_classes(pc, yc, pt, alpha=ALPHA, score="aps").coverage(yt)}

    def coverage_of(*names):
        return lambda cov, r: {k: cov[k] for k in names}

    # mean coverage = k/(n + 1) within 3 s.e., and inside the band
    res = assert_coverage(coverage_of("lac", "aps randomized", "aps plain"), split, conf_level=_exact(N_CAL),
                          seeds=range(R), exact=True)
    _assert_band(res, N_CAL)
    # keeping the last label is conservative: at least 1 - alpha (the same splits)
    assert_coverage(coverage_of("aps include_last"), split, conf_level=1 - ALPHA, seeds=range(R))


def test_mondrian_covers_within_every_group():
    """Three groups of different noise and fixed sizes: per group, the mean coverage is
    k_g/(n_g + 1); the pooled quantile undercovers the noisiest group."""
    rng = np.random.default_rng(11)
    sizes_cal, sizes_test, noise = (20, 40, 30), (20, 20, 20), (0.3, 1.0, 3.0)
    gc = np.repeat([0, 1, 2], sizes_cal)
    gt = np.repeat(["a", "b", "c"], sizes_test)

    @functools.cache
    def split(r):    # drawn in order (r = 0, 1, ...) from one Generator, seed 11
        yc = rng.normal(size=gc.size) * np.repeat(noise, sizes_cal)
        yt = rng.normal(size=gt.size) * np.repeat(noise, sizes_test)
        res = conformal_interval(yc, np.zeros(gc.size), np.zeros(gt.size), alpha=ALPHA,
                                 groups_cal=np.array(["a", "b", "c"])[gc], groups_test=gt)
        hit = res.covers(yt)
        pooled = conformal_interval(yc, np.zeros(gc.size), np.zeros(gt.size), alpha=ALPHA)
        return {**{f"group {g}": hit[gt == lab].mean() for g, lab in enumerate("abc")},
                "pooled c": pooled.covers(yt)[gt == "c"].mean()}

    for g in range(3):   # each group at its own exact level k_g/(n_g + 1), within 3 s.e., and in its band
        res = assert_coverage(lambda cov, r: {f"group {g}": cov[f"group {g}"]}, split, conf_level=_exact(sizes_cal[g]),
                              seeds=range(R), exact=True)
        _assert_band(res, sizes_cal[g])
    assert np.mean([split(r)["pooled c"] for r in range(R)]) < 1 - ALPHA - 0.1


def _mixture_density(grid, centers, sd):
    d = np.exp(-0.5 * ((grid[None, :] - centers[:, :1]) / sd) ** 2) \
        + np.exp(-0.5 * ((grid[None, :] - centers[:, 1:]) / sd) ** 2)
    return d / (2 * sd * np.sqrt(2 * np.pi))


def test_highest_density_sets_cover_exactly():
    """Predictive densities on a grid (a wrong bimodal model for a bimodal truth): scores -f(y),
    conformal_quantile, conformal_set; the sets hold the outcomes at the exact rate."""
    grid = np.linspace(-12, 12, 241)

    def draw(rng):
        sep = rng.uniform(0, 4, N_CAL + N_TEST)
        centers = np.column_stack([-sep / 2, sep / 2])
        y = centers[np.arange(sep.size), rng.integers(0, 2, sep.size)] + 0.7 * rng.normal(size=sep.size)
        return centers, y

    def covers(data, rng):
        centers, y = data
        dens = _mixture_density(grid, centers * 0.8, 0.5)        # model: modes too close, too narrow
        scores = conformal_density_scores(dens[:N_CAL], grid, y[:N_CAL])
        q = conformal_quantile(scores, alpha=ALPHA)
        return {"density sets": conformal_set(dens[N_CAL:], grid, threshold=q).contains(y[N_CAL:]).mean()}

    res = assert_coverage(covers, draw, conf_level=_exact(N_CAL), reps=R, seed=5, exact=True)
    _assert_band(res, N_CAL)
