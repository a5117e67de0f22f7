"""Proportions: McNemar's test (R's mcnemar.test, statsmodels), the exact version, intervals for one
proportion (R's binom.test / prop.test, statsmodels' proportion_confint), paired differences (Newcombe
1998, Agresti & Min 2005) and pass@k."""
import math

import numpy as np
import pytest

import statcore as sc
from helpers import r_vector, requires_r, run_r

TABLE = [[794, 86], [150, 570]]   # rows (794, 150) and (86, 570) as columns: discordant 86 and 150

RNG = np.random.default_rng(20261205)
N_R = RNG.integers(1, 60, 12)
X_R = np.array([RNG.integers(0, n + 1) for n in N_R])
X_R[0], X_R[1] = 0, N_R[1]                 # the edges x = 0 and x = n
PAIR_X = RNG.integers(0, 2, 40)
PAIR_Y = np.where(RNG.random(40) < 0.7, PAIR_X, 1 - PAIR_X)


def test_mcnemar_table_oracle_r_and_statsmodels():
    res = sc.mcnemar_test(TABLE)
    assert res.statistic == pytest.approx(16.81779661016949, rel=1e-14)
    assert res.p_value == pytest.approx(4.114562281345944e-05, rel=1e-12)
    assert res.parameter == {"df": 1.0}
    from statsmodels.stats.contingency_tables import mcnemar

    sm = mcnemar(np.array(TABLE), exact=False, correction=True)
    assert res.statistic == pytest.approx(sm.statistic, rel=1e-14) and res.p_value == pytest.approx(sm.pvalue, rel=1e-12)
    plain = sc.mcnemar_test(TABLE, correct=False)
    assert plain.statistic == pytest.approx(64 ** 2 / 236, rel=1e-14)
    assert plain.method == "McNemar's Chi-squared test"
    # the transposed table (rows (794, 150), (86, 570)) is the same test
    assert sc.mcnemar_test(np.array(TABLE).T).statistic == res.statistic


def test_mcnemar_exact_is_the_binomial_test_on_the_discordant_pairs():
    from scipy import stats
    from statsmodels.stats.contingency_tables import mcnemar

    res = sc.mcnemar_test(TABLE, exact=True)
    assert res.p_value == pytest.approx(stats.binomtest(86, 236, 0.5).pvalue, rel=1e-13)
    assert res.p_value == pytest.approx(mcnemar(np.array(TABLE), exact=True).pvalue, rel=1e-12)
    lo, hi = res.conf_int
    assert stats.binom.sf(85, 236, lo) == pytest.approx(0.025, rel=1e-9)
    assert stats.binom.cdf(86, 236, hi) == pytest.approx(0.025, rel=1e-9)
    assert res.estimate["proportion of n12 among discordant pairs"] == pytest.approx(86 / 236)


def test_mcnemar_vectors_and_bad_input():
    tab = np.zeros((2, 2), int)
    np.add.at(tab, (PAIR_X, PAIR_Y), 1)
    assert sc.mcnemar_test(PAIR_X, PAIR_Y) == sc.mcnemar_test(tab).__class__(
        **{**sc.mcnemar_test(tab).__dict__, "data_name": "x and y"})
    labels = np.where(PAIR_X == 1, "yes", "no"), np.where(PAIR_Y == 1, "yes", "no")
    assert sc.mcnemar_test(*labels).statistic == sc.mcnemar_test(tab).statistic
    with pytest.raises(ValueError, match="x and y"):
        sc.mcnemar_test(PAIR_X, PAIR_Y[:-1])
    with pytest.raises(ValueError, match="2x2"):
        sc.mcnemar_test([[1, 2, 3], [4, 5, 6]])
    with pytest.raises(ValueError, match="x"):
        sc.mcnemar_test([0, 1, 2, 1], [0, 1, 1, 1])
    with pytest.raises(ValueError, match="discordant"):
        sc.mcnemar_test([[5, 0], [0, 7]])


@pytest.mark.parametrize("method,sm", [("wilson", "wilson"), ("clopper-pearson", "beta"),
                                       ("agresti-coull", "agresti_coull"), ("jeffreys", "jeffreys")])
def test_proportion_ci_equals_statsmodels(method, sm):
    from statsmodels.stats.proportion import proportion_confint

    for conf in (0.9, 0.95, 0.99):
        res = sc.proportion_ci(X_R, N_R, method=method, conf_level=conf)
        lo, hi = proportion_confint(X_R, N_R, alpha=1 - conf, method=sm)
        np.testing.assert_allclose(res.conf_low, lo, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(res.conf_high, hi, rtol=1e-12, atol=1e-14)
    one = sc.proportion_ci(int(X_R[3]), int(N_R[3]), method=method)
    assert isinstance(one.conf_low, float) and one.conf_low == pytest.approx(sc.proportion_ci(X_R, N_R, method=method).conf_low[3])


def test_proportion_ci_bad_counts():
    with pytest.raises(ValueError, match="x must not exceed n"):
        sc.proportion_ci(11, 10)
    with pytest.raises(ValueError, match="x"):
        sc.proportion_ci(2.5, 10)
    with pytest.raises(ValueError, match="n"):
        sc.proportion_ci(0, 0)


def _newcombe_by_hand(a, b, c, d, conf=0.95):
    from statsmodels.stats.proportion import proportion_confint

    n = a + b + c + d
    p1, p2 = (a + b) / n, (a + c) / n
    l1, u1 = proportion_confint(a + b, n, alpha=1 - conf, method="wilson")
    l2, u2 = proportion_confint(a + c, n, alpha=1 - conf, method="wilson")
    A = a * d - b * c
    num = A - n / 2 if A > n / 2 else (0 if A >= 0 else A)
    psi = num / math.sqrt((a + b) * (c + d) * (a + c) * (b + d))
    low = p1 - p2 - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2 - 2 * psi * (p1 - l1) * (u2 - p2))
    high = p1 - p2 + math.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2 - 2 * psi * (p2 - l2) * (u1 - p1))
    return low, high


@pytest.mark.parametrize("cells", [(12, 9, 2, 21), (59, 6, 16, 80), (1, 1, 7, 12), (794, 150, 86, 570),
                                   (30, 2, 1, 40)])
def test_paired_prop_ci_newcombe_and_agresti_min(cells):
    a, b, c, d = cells
    res = sc.paired_prop_ci([[a, b], [c, d]], conf_level=0.9)
    n = sum(cells)
    assert res.estimate == pytest.approx((b - c) / n)
    assert (res.conf_low, res.conf_high) == pytest.approx(_newcombe_by_hand(a, b, c, d, 0.9), rel=1e-12)


def test_paired_prop_ci_agresti_min_and_vectors():
    # Agresti & Min: the Wald interval with 1/2 added to each cell, by hand
    am = sc.paired_prop_ci([[12, 9], [2, 21]], method="agresti-min")
    z = 1.959963984540054
    diff, sd = 7 / 46, math.sqrt(9 + 2 + 1 - 7 ** 2 / 46) / 46
    assert (am.conf_low, am.conf_high) == pytest.approx((diff - z * sd, diff + z * sd), rel=1e-12)
    # vectors: p1 - p2 is the share of successes in x minus that in y
    v = sc.paired_prop_ci(PAIR_X, PAIR_Y)
    assert v.estimate == pytest.approx(PAIR_X.mean() - PAIR_Y.mean(), rel=1e-12)
    assert v.conf_low < v.estimate < v.conf_high


def test_pass_at_k_oracle_and_stability():
    assert sc.pass_at_k(10, 3, 1) == pytest.approx(0.3, abs=1e-15)
    assert sc.pass_at_k(10, 3, 2) == pytest.approx(8 / 15, abs=1e-15)
    assert sc.pass_at_k(10, 3, 5) == pytest.approx(11 / 12, abs=1e-15)
    # vectorised, against exact binomial coefficients, including n - c < k (1) and c = 0 (0)
    n = np.array([10, 10, 200, 200, 7, 5])
    c = np.array([3, 0, 17, 190, 6, 5])
    k = np.array([5, 3, 10, 50, 2, 1])
    exact = [1 - math.comb(nn - cc, kk) / math.comb(nn, kk) for nn, cc, kk in zip(n, c, k)]
    np.testing.assert_allclose(sc.pass_at_k(n, c, k), exact, rtol=1e-13, atol=1e-15)
    # no overflow where the binomial coefficients are astronomically large
    big = sc.pass_at_k(5000, 3, 1000)
    assert big == pytest.approx(1 - math.comb(4997, 1000) / math.comb(5000, 1000), rel=1e-12)
    with pytest.raises(ValueError, match="c must not exceed n"):
        sc.pass_at_k(10, 11, 1)
    with pytest.raises(ValueError, match="k must not exceed n"):
        sc.pass_at_k(10, 3, 11)


def test_pass_at_k_ci_bootstrap_over_problems():
    n = np.full(30, 20)
    c = np.random.default_rng(2).integers(0, 21, 30)
    res = sc.pass_at_k_ci(n, c, 5, B=1999, seed=4)
    vals = sc.pass_at_k(n, c, 5)
    assert res.estimate == pytest.approx(vals.mean())
    ref = sc.bootstrap((vals,), np.mean, B=1999, seed=4)
    assert (res.conf_low, res.conf_high) == tuple(ref.confidence_interval)
    assert res == sc.pass_at_k_ci(n, c, 5, B=1999, seed=4)


R_CODE = """
tab <- matrix(c(794, 86, 150, 570), nrow = 2)
print(mcnemar.test(tab))
cat("@@\\n")
print(mcnemar.test(tab, correct = FALSE))
cat("@@\\n")
px <- factor(%(px)s, levels = c(0, 1)); py <- factor(%(py)s, levels = c(0, 1))
r <- mcnemar.test(px, py)
cat(sprintf("%%.17g", c(r$statistic, r$p.value)), "\\n")
cat("@@\\n")
xs <- %(xs)s; ns <- %(ns)s
for (i in seq_along(xs)) {
  b <- binom.test(xs[i], ns[i], conf.level = 0.9)$conf.int
  p <- prop.test(xs[i], ns[i], correct = FALSE, conf.level = 0.9)$conf.int
  cat(sprintf("%%.17g", c(b, p)), "\\n")
}
cat("@@\\n")
b <- binom.test(86, 236)
cat(sprintf("%%.17g", c(b$p.value, b$conf.int)), "\\n")
"""


@pytest.fixture(scope="module")
def r_out():
    code = R_CODE % dict(px=r_vector(PAIR_X), py=r_vector(PAIR_Y), xs=r_vector(X_R), ns=r_vector(N_R))
    return run_r(code).split("@@\n")


@requires_r
def test_live_r_mcnemar_printout_and_numbers(r_out):
    assert sc.mcnemar_test(np.array([[794, 150], [86, 570]]), ).summary().replace("data:  x", "data:  tab") == r_out[0]
    assert sc.mcnemar_test([[794, 150], [86, 570]], correct=False).summary().replace("data:  x", "data:  tab") \
        == r_out[1]
    stat, p = map(float, r_out[2].split())
    res = sc.mcnemar_test(PAIR_X, PAIR_Y)
    assert res.statistic == pytest.approx(stat, rel=1e-14) and res.p_value == pytest.approx(p, rel=1e-12)
    pe, lo, hi = map(float, r_out[4].split())
    ex = sc.mcnemar_test(TABLE, exact=True)
    assert ex.p_value == pytest.approx(pe, rel=1e-12)
    assert ex.conf_int == pytest.approx((lo, hi), rel=1e-12)


@requires_r
def test_live_r_binom_and_prop_test_intervals(r_out):
    rows = np.array([list(map(float, line.split())) for line in r_out[3].strip().splitlines()])
    cp = sc.proportion_ci(X_R, N_R, method="clopper-pearson", conf_level=0.9)
    wi = sc.proportion_ci(X_R, N_R, method="wilson", conf_level=0.9)
    np.testing.assert_allclose(cp.conf_low, rows[:, 0], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(cp.conf_high, rows[:, 1], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(wi.conf_low, rows[:, 2], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(wi.conf_high, rows[:, 3], rtol=1e-12, atol=1e-15)
