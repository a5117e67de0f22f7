"""Seeded Monte Carlo: size of GCM and RP-CIT under the null, power growing with k.

Thresholds: alpha + 3 Monte Carlo standard errors (and alpha - 3 SE for the rules meant to be
calibrated rather than conservative: scalar GCM and the max multiplier bootstrap). The issue asks the
conservative RP-CIT rules top-r and Hommel (1983) to be at most alpha itself: asserted exactly, on the
seeded replicates.
"""
import numpy as np
import pytest

from statcore.cit import gcm_test, residualize, rpcit
from statcore.multitest import combine_pvalues as _combine_pvalues
from statcore.testing import assert_size


def combine_pvalues(p, method):
    """RP-CIT's aggregate ``method`` of the k projection p-values ``p`` (1-D), as ``rpcit(aggregate=method)``."""
    return _combine_pvalues(p, method=method).p_value

ALPHA = 0.05


@pytest.fixture(autouse=True, scope="module")
def one_blas_thread():
    # thousands of small matrix problems: threaded BLAS only adds contention (10x on a busy 2-core box)
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        yield


def linear_null(rng, n, dx, dy, dz):
    # heteroscedastic, heavy-tailed noise: X independent of Y given Z, linear conditional means
    z = rng.normal(size=(n, dz))
    scale = 1.0 + 0.5 * np.abs(z[:, :1])
    x = z @ rng.normal(size=(dz, dx)) + scale * rng.standard_t(5, size=(n, dx))
    y = z @ rng.normal(size=(dz, dy)) + rng.normal(size=(n, dy))
    return x, y, z


@pytest.mark.slow
def test_size_scalar_gcm_ols():
    assert_size(lambda xyz, rng: gcm_test(*xyz), lambda rng: linear_null(rng, 200, 1, 1, 3),
                alpha=ALPHA, reps=2000, seed=101, exact=True)


@pytest.mark.slow
def test_size_scalar_gcm_kernel_ridge_nonlinear():
    def nonlinear_null(rng):
        z = rng.uniform(-2, 2, size=150)
        x = np.sin(1.5 * z) + 0.5 * rng.normal(size=150)
        y = z ** 2 / 2 + 0.5 * rng.normal(size=150)
        return x, y, z

    # sized to catch a regression whose bias inflates the size to 0.10 (twice the level): with 550
    # data sets the bound is 0.05 + 3 x 0.0093 = 0.078, exceeded by a true 0.10 with probability 0.97
    assert_size(lambda xyz, rng: gcm_test(*xyz, regression="krr"), nonlinear_null, alpha=ALPHA, reps=550, seed=102)


@pytest.mark.slow
def test_size_max_gcm_with_unequal_residual_scales():
    """The max statistic standardised like its draws holds its level when residual scales differ.

    Contrast: the unstandardised maximum compared with standardised draws (the published
    implementations' choice) rejects far too often at these scales.
    """
    # sized to catch a size of twice the level, or a fifth of it (the rule is meant to be calibrated):
    # with 550 data sets the band is [0.022, 0.078], missed by a true 0.10 with probability 0.03 and
    # by 0.01 with probability 0.004
    reps, n, B = 550, 200, 299
    scales_x, scales_y = np.array([1.0, 20.0, 0.05]), np.array([10.0, 1.0])
    draws_only = []

    def ours(xyz, rng):
        x, y, z = xyz
        p = gcm_test(x * scales_x, y * scales_y, z, kind="max", B=B, seed=rng).p_value
        # the same residual products, unstandardised maximum against standardised draws
        rx, ry = residualize(x * scales_x, z), residualize(y * scales_y, z)
        prod = (rx[:, :, None] * ry[:, None, :]).reshape(n, -1)
        stat = np.abs(np.sqrt(n) * prod.mean(0)).max()
        std = (prod - prod.mean(0)) / prod.std(0)
        boot = np.abs(rng.standard_normal((B, n)) @ std / np.sqrt(n)).max(axis=1)
        draws_only.append((1 + np.sum(boot >= stat)) / (B + 1))
        return p

    # data, the test and the contrast's draws in order from one Generator (seed 103)
    res = assert_size(ours, lambda rng: linear_null(rng, n, 3, 2, 2), alpha=ALPHA, reps=reps, seed=103, exact=True)
    assert np.mean(np.asarray(draws_only) <= ALPHA) > res.upper["value"]


@pytest.mark.slow
def test_size_rpcit_all_rules():
    reps, k = 1000, 50
    rules = ["bonferroni", "cauchy", "topr", "hommel_global", "simes"]

    def every_rule(xyz, rng):
        # one maxboot run gives the k projected p-values the other rules combine
        res = rpcit(*xyz, k=k, aggregate="maxboot", seed=rng)
        pv = res.extras["p_values"]
        return {**{m: combine_pvalues(pv, m) for m in rules}, "maxboot": res.p_value}

    # every rule at most alpha + 3 s.e.
    cal = assert_size(every_rule, lambda rng: linear_null(rng, 200, 10, 10, 3), alpha=ALPHA, reps=reps, seed=104)
    rates = cal.rates
    # issue 4: "topr and hommel at most alpha", no Monte Carlo allowance
    assert rates["topr"] <= ALPHA, rates
    assert rates["hommel_global"] <= ALPHA, rates
    # maxboot is meant to be calibrated: also at least alpha - 3 (nominal binomial) s.e.
    assert rates["maxboot"] >= ALPHA - 3 * cal.std_errors["maxboot"], rates


@pytest.mark.slow
def test_size_rpcit_parcor():
    assert_size(lambda xyz, rng: rpcit(*xyz, k=30, base="parcor", seed=rng), lambda rng: linear_null(rng, 150, 8, 6, 2),
                alpha=ALPHA, reps=1000, seed=105)


def planted_low_rank(rng, n=200, dx=20, dy=20, dz=3, gamma=1.0):
    """Y depends on X given Z only through one direction of each: a rank-one cross-covariance."""
    z = rng.normal(size=(n, dz))
    ex = rng.normal(size=(n, dx))
    x = z @ rng.normal(size=(dz, dx)) + ex
    y = z @ rng.normal(size=(dz, dy)) + rng.normal(size=(n, dy))
    y[:, 0] += gamma * ex[:, 0]
    return x, y, z


@pytest.mark.slow
def test_power_grows_with_k():
    rng = np.random.default_rng(106)
    reps = 300
    power = {}
    for k in [1, 10, 100]:
        rej = np.zeros(2)
        for _ in range(reps):
            res = rpcit(*planted_low_rank(rng), k=k, aggregate="maxboot", B=199, seed=rng)
            rej += [combine_pvalues(res.extras["p_values"], "bonferroni") <= ALPHA, res.p_value <= ALPHA]
        power[k] = rej / reps
    for rule in range(2):
        for a, b in [(1, 10), (10, 100)]:
            pa, pb = power[a][rule], power[b][rule]
            # each step up in k raises power by more than 2 standard errors of the difference
            sd = np.sqrt((pa * (1 - pa) + pb * (1 - pb)) / reps)
            assert pb - pa > 2 * sd, power


def bounded_nonlinear_null(rng, n, dx, dy, dz):
    # the benchmark's design (benchmarks/bench_cit.py, simulate): bounded nonlinear effects of z
    z = rng.normal(size=(n, dz))
    feats = np.column_stack([np.sin(z), np.tanh(z[:, :1] * z[:, 1:2])])
    x = feats @ rng.normal(size=(feats.shape[1], dx)) / 2 + rng.normal(size=(n, dx))
    y = feats @ rng.normal(size=(feats.shape[1], dy)) / 2 + rng.normal(size=(n, dy))
    return x, y, z


@pytest.mark.slow
def test_size_rpcit_random_forest_nonlinear():
    """rpcit with regression="rf" holds the level for bonferroni, cauchy and maxboot.

    Smaller than the benchmark (n = 2000, dims 20/20/5, k = 100, in the report) to fit CI's budget.
    The plain out-of-bag forest ("rf_oob") rejected far too often here: its bias on the smooth means
    leaves the residuals of x and y correlated through z.

    Sized to detect that failure: the out-of-bag forest rejected 24-33% (benchmarks/README.md, "cit").
    With 50 data sets the bound is 0.05 + 3 s.e. = 0.142 and a true rate of 0.25 exceeds it with
    probability 0.95 per rule (a rate of 0.15 with about one half); the precise rates (1000 data sets,
    5.3 / 5.3 / 5.0%) are benchmarks/bench_cit.py's.
    """
    reps, k = 50, 50

    def three_rules(xyz, rng):
        res = rpcit(*xyz, k=k, aggregate="maxboot", B=199, regression="rf", seed=rng)
        pv = res.extras["p_values"]
        return {"bonferroni": combine_pvalues(pv, "bonferroni"), "cauchy": combine_pvalues(pv, "cauchy"),
                "maxboot": res.p_value}

    # the draws of the former hand-written loop (seed 107): data, then the test, from one Generator
    assert_size(three_rules, lambda rng: bounded_nonlinear_null(rng, 500, 10, 10, 5), alpha=ALPHA, reps=reps,
                seed=107)
