"""Seeded Monte Carlo: realised FDR of BH, qvalue and bfdr_select at most alpha + 3 MC standard errors.

Each test draws `REPS` data sets of `M` one-sided z-tests (20% non-null, mean 2.5 on the z scale)
and averages the false discovery proportion. The bound is the nominal level plus three Monte Carlo
standard errors of that average, never a tuned threshold.
"""
import numpy as np
import pytest
from scipy.special import ndtr

import statcore as sc

M = 1000
REPS = 1500
ALPHA = 0.1


def z_scores(rng, kind):
    nonnull = rng.uniform(size=M) < 0.2
    if kind == "independent":
        e = rng.standard_normal(M)
    elif kind == "block":  # blocks of 20 with within-block correlation 0.6
        blocks = rng.standard_normal(M // 20).repeat(20)
        e = np.sqrt(0.6) * blocks + np.sqrt(0.4) * rng.standard_normal(M)
    elif kind == "weak_block":  # blocks of 5 with within-block correlation 0.5 (200 blocks)
        blocks = rng.standard_normal(M // 5).repeat(5)
        e = np.sqrt(0.5) * blocks + np.sqrt(0.5) * rng.standard_normal(M)
    elif kind == "equicorrelated":  # one common factor, correlation 0.5
        e = np.sqrt(0.5) * rng.standard_normal() + np.sqrt(0.5) * rng.standard_normal(M)
    else:
        raise ValueError(kind)
    return e + 2.5 * nonnull, nonnull


def fdp(selected, nonnull):
    r = selected.sum()
    return (selected & ~nonnull).sum() / max(r, 1)


def check(fdps, alpha=ALPHA):
    fdps = np.asarray(fdps)
    mean, se = fdps.mean(), fdps.std(ddof=1) / np.sqrt(fdps.size)
    assert mean <= alpha + 3 * se, f"realised FDR {mean:.4f} > {alpha} + 3 * {se:.4f}"
    return mean


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["independent", "block", "equicorrelated"])
def test_bh_controls_fdr(kind):
    rng = np.random.default_rng(100)
    out = []
    for _ in range(REPS):
        z, h = z_scores(rng, kind)
        p = ndtr(-z)
        out.append(fdp(sc.p_adjust(p, method="BH") <= ALPHA, h))
    mean = check(out)
    # BH controls at pi0 * alpha = 0.08 here; under independence it should be close to that
    if kind == "independent":
        assert abs(mean - 0.8 * ALPHA) < 4 * np.std(out, ddof=1) / np.sqrt(REPS)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["independent"])
def test_qvalue_controls_fdr(kind):
    """Storey's q-values control FDR under independence (not under positive dependence: the
    figures are in benchmarks/README.md, "multitest")."""
    rng = np.random.default_rng(200)
    out = []
    for _ in range(REPS):
        z, h = z_scores(rng, kind)
        p = ndtr(-z)
        res = sc.qvalue(p, fdr_level=ALPHA, lfdr_out=False)
        out.append(fdp(np.asarray(res.significant), h))
    check(out)


@pytest.mark.slow
def test_bfdr_select_with_oracle_lfdr_controls_fdr():
    rng = np.random.default_rng(300)
    out = []
    for _ in range(REPS):
        z, h = z_scores(rng, "independent")
        f0 = np.exp(-0.5 * z * z)
        f1 = np.exp(-0.5 * (z - 2.5) ** 2)
        lf = 0.8 * f0 / (0.8 * f0 + 0.2 * f1)
        out.append(fdp(np.asarray(sc.bfdr_select(lf, alpha=ALPHA).selected), h))
    check(out)


@pytest.mark.slow
def test_bky_controls_fdr_independent():
    rng = np.random.default_rng(400)
    out = []
    for _ in range(REPS):
        z, h = z_scores(rng, "independent")
        out.append(fdp(sc.p_adjust(ndtr(-z), method="BKY", alpha=ALPHA) <= ALPHA, h))
    check(out)


@pytest.mark.slow
def test_qvalue_strong_dependence_is_less_conservative_than_bh():
    """A documented property, not a guarantee: under strong block dependence the adaptive q-value
    rule is anti-conservative relative to BH, which stays valid (PRDS)."""
    rng = np.random.default_rng(200)
    q_fdp, bh_fdp = [], []
    for _ in range(REPS // 3):
        z, h = z_scores(rng, "block")
        p = ndtr(-z)
        q_fdp.append(fdp(np.asarray(sc.qvalue(p, fdr_level=ALPHA, lfdr_out=False).significant), h))
        bh_fdp.append(fdp(sc.p_adjust(p, method="BH") <= ALPHA, h))
    check(bh_fdp)
    assert np.mean(q_fdp) > np.mean(bh_fdp)
