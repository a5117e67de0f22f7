"""Seeded Monte Carlo: realised FDR of BH, qvalue and bfdr_select at most alpha + 3 MC standard errors.

Each test draws `REPS` data sets of `M` one-sided z-tests (20% non-null, mean 2.5 on the z scale)
and averages the false discovery proportion. The bound is the nominal level plus three Monte Carlo
standard errors of that average, never a tuned threshold.
"""
import numpy as np
import pytest
from scipy.special import ndtr

import statcore as sc
from statcore.testing import assert_error_rate

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


def fdr_check(rule, kind, seed, reps=REPS, alpha=ALPHA):
    """assert_error_rate on ``reps`` data sets drawn in order from one Generator: ``rule(z)`` is the
    boolean selection, its false discovery proportion the replicate's error (bound alpha + 3 observed
    s.e. of the mean FDP)."""
    return assert_error_rate(lambda zh, rng: fdp(rule(zh[0]), zh[1]), lambda rng: z_scores(rng, kind),
                             alpha=alpha, reps=reps, seed=seed)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["independent", "block", "equicorrelated"])
def test_bh_controls_fdr(kind):
    res = fdr_check(lambda z: sc.p_adjust(ndtr(-z), method="BH") <= ALPHA, kind, seed=100)
    # BH controls at pi0 * alpha = 0.08 here; under independence it should be close to that
    if kind == "independent":
        assert abs(res.rates["value"] - 0.8 * ALPHA) < 4 * res.std_errors["value"], res


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["independent"])
def test_qvalue_controls_fdr(kind):
    """Storey's q-values control FDR under independence (not under positive dependence: the
    figures are in benchmarks/README.md, "multitest")."""
    fdr_check(lambda z: np.asarray(sc.qvalue(ndtr(-z), fdr_level=ALPHA, lfdr_out=False).significant), kind, seed=200)


@pytest.mark.slow
def test_bfdr_select_with_oracle_lfdr_controls_fdr():
    def oracle_rule(z):
        f0 = np.exp(-0.5 * z * z)
        f1 = np.exp(-0.5 * (z - 2.5) ** 2)
        lf = 0.8 * f0 / (0.8 * f0 + 0.2 * f1)
        return np.asarray(sc.bfdr_select(lf, alpha=ALPHA).selected)

    fdr_check(oracle_rule, "independent", seed=300)


@pytest.mark.slow
def test_bky_controls_fdr_independent():
    fdr_check(lambda z: sc.p_adjust(ndtr(-z), method="BKY", alpha=ALPHA) <= ALPHA, "independent", seed=400)


@pytest.mark.slow
def test_qvalue_strong_dependence_is_less_conservative_than_bh():
    """A documented property, not a guarantee: under strong block dependence the adaptive q-value
    rule is anti-conservative relative to BH, which stays valid (PRDS)."""
    q_fdp = []

    def bh_and_qvalue(zh, rng):
        p, h = ndtr(-zh[0]), zh[1]
        q_fdp.append(fdp(np.asarray(sc.qvalue(p, fdr_level=ALPHA, lfdr_out=False).significant), h))
        return fdp(sc.p_adjust(p, method="BH") <= ALPHA, h)   # only BH is checked against the bound

    bh = assert_error_rate(bh_and_qvalue, lambda rng: z_scores(rng, "block"), alpha=ALPHA, reps=REPS // 3, seed=200)
    assert np.mean(q_fdp) > bh.rates["value"]
