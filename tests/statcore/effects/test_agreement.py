"""Agreement and tolerance: Lin's CCC (with its Bland-Altman limits) and the six ICCs against live R
(epiR::epi.ccc, psych::ICC), the Bland-Altman limits with their approximate and exact (tolerance-factor)
intervals, TOST against statsmodels, and the share within a tolerance (binomial and block bootstrap)."""
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import statcore as sc
from helpers import r_vector, requires_r, run_r

RNG = np.random.default_rng(20261205)
CCC_DATA = []
for n in (12, 30, 75):
    t = RNG.normal(10, 2, n)
    CCC_DATA.append((t + RNG.normal(0, 0.7, n), 0.3 + 1.05 * t + RNG.normal(0, 0.9, n)))
ICC_DATA = []
for n, k in ((8, 3), (20, 4), (45, 2)):
    subj = RNG.normal(0, 1.5, (n, 1))
    rater = RNG.normal(0, 0.5, (1, k))
    ICC_DATA.append(subj + rater + RNG.normal(0, 1, (n, k)))
SF = np.array([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]], float)


def _r_matrix(m):
    return f"matrix({r_vector(m.ravel(order='F'))}, nrow = {m.shape[0]})"


@pytest.fixture(scope="module")
def r_out():
    lines = ["suppressMessages({library(epiR); library(psych)})", "f <- function(v) cat(sprintf('%.17g', v), '\\n')"]
    for a, b in CCC_DATA:
        for ci, conf in (("z-transform", 0.95), ("asymptotic", 0.9)):
            lines.append(f"r <- epi.ccc({r_vector(a)}, {r_vector(b)}, ci = '{ci}', conf.level = {conf}); "
                         "f(c(unlist(r$rho.c), r$s.shift, r$l.shift, r$C.b, unlist(r$sblalt)))")
    for m in (*ICC_DATA, SF):
        for alpha in (0.05, 0.1):
            lines.append(f"r <- ICC({_r_matrix(m)}, lmer = FALSE, alpha = {alpha})$results; "
                         "f(as.matrix(r[, 2:8]))")
    return [np.array(list(map(float, line.split()))) for line in run_r("\n".join(lines)).strip().splitlines()]


@requires_r("epiR")
def test_live_r_ccc_equals_epi_ccc(r_out):
    i = 0
    for a, b in CCC_DATA:
        for ci, conf in (("z-transform", 0.95), ("asymptotic", 0.9)):
            res = sc.ccc(a, b, ci=ci, conf_level=conf)
            ours = [res.estimate, res.conf_low, res.conf_high, res.scale_shift, res.location_shift,
                    res.bias_correction]
            np.testing.assert_allclose(ours, r_out[i][:6], rtol=1e-10, atol=1e-12)
            # epi.ccc's Bland-Altman summary: bias, sd of the differences and the limits at conf.level
            ba = sc.bland_altman(a, b, agreement=conf)
            np.testing.assert_allclose([ba.bias, ba.std_dev, ba.lower_loa, ba.upper_loa], r_out[i][6:],
                                       rtol=1e-10, atol=1e-12)
            i += 1


@requires_r("psych")
def test_live_r_all_six_iccs_equal_psych(r_out):
    i = len(CCC_DATA) * 2
    for m in (*ICC_DATA, SF):
        for alpha in (0.05, 0.1):
            res = sc.icc(m, conf_level=1 - alpha)
            ours = res.table[["estimate", "statistic", "df1", "df2", "p_value", "conf_low", "conf_high"]]
            theirs = r_out[i].reshape(7, 6).T   # R's column-major matrix: 6 rows x 7 columns
            np.testing.assert_allclose(ours.to_numpy(), theirs, rtol=1e-10, atol=1e-13)
            for j, kind in enumerate(res.table["kind"]):
                one = sc.icc(m, kind=kind, conf_level=1 - alpha)
                assert one.estimate == pytest.approx(theirs[j, 0], rel=1e-10)
                assert one.test.p_value == pytest.approx(theirs[j, 4], rel=1e-10, abs=1e-300)
            i += 1


def test_icc_shrout_fleiss_table_and_missing_cell():
    # Shrout & Fleiss (1979), Table 2: ICC(1,1) .17, ICC(2,1) .29, ICC(3,1) .71, (1,4) .44, (2,4) .62, (3,4) .91
    res = sc.icc(SF)
    assert np.round(res.table["estimate"].to_numpy(), 2).tolist() == [0.17, 0.29, 0.71, 0.44, 0.62, 0.91]
    frame = pd.DataFrame(SF, columns=list("ABCD"))
    assert sc.icc(frame, kind="ICC3k") == sc.icc(SF, kind="ICC3k")
    bad = SF.copy()
    bad[2, 1] = np.nan
    with pytest.raises(ValueError, match="ratings"):
        sc.icc(bad)
    omitted = sc.icc(bad, nan_policy="omit")
    assert omitted.n_subjects == 5 and omitted == sc.icc(np.delete(SF, 2, axis=0))
    # scale invariance of the coefficients; mean squares scale with the square
    scaled = sc.icc(SF * 1e-200)
    np.testing.assert_allclose(scaled.table["estimate"], res.table["estimate"], rtol=1e-12)
    assert scaled.mean_squares["msb"] == pytest.approx(res.mean_squares["msb"] * 1e-400, rel=1e-12)


def test_bland_altman_closed_forms_and_exact_tolerance_factor():
    a, b = CCC_DATA[1]
    res = sc.bland_altman(a, b)
    d = a - b
    n = d.size
    z = stats.norm.ppf(0.975)
    t = stats.t.ppf(0.975, n - 1)
    assert res.bias == pytest.approx(d.mean(), rel=1e-12)
    assert res.lower_loa == pytest.approx(d.mean() - z * d.std(ddof=1), rel=1e-12)
    se = d.std(ddof=1) * math.sqrt(1 / n + z * z / (2 * (n - 1)))
    assert res.upper_loa_conf == pytest.approx((res.upper_loa - t * se, res.upper_loa + t * se), rel=1e-12)
    # the exact upper end of the upper limit's one-sided 95% interval is bias + k s with k the one-sided
    # normal tolerance factor (n = 10, 95% content, 95% confidence: k = 2.911, standard tables)
    x = np.linspace(-1, 1, 10)
    ten = sc.bland_altman(x, np.zeros(10), agreement=0.90, conf_level=0.90)
    k = (ten.upper_loa_exact[1] - ten.bias) / ten.std_dev
    assert round(k, 3) == 2.911
    # proportional bias: the slope test is the regression's
    reg = stats.linregress((a + b) / 2, d)
    assert res.slope == pytest.approx(reg.slope, rel=1e-10)
    assert res.proportional_bias.p_value == pytest.approx(reg.pvalue, rel=1e-8)
    # exact intervals are wider than the approximate ones for small n, and both contain the limit
    lo_e, hi_e = res.lower_loa_exact
    assert lo_e < res.lower_loa < hi_e
    assert res.to_frame().loc["upper_loa", "exact_conf_high"] == res.upper_loa_exact[1]


@pytest.mark.slow
def test_bland_altman_exact_interval_coverage():
    """The exact interval of the upper limit of agreement covers mu + z sigma at exactly 95%."""
    from statcore.testing import assert_coverage

    z = stats.norm.ppf(0.975)
    truth = 1.0 + z * 2.0

    def sampler(rng):
        return rng.normal(1.0, 2.0, 15), np.zeros(15)

    def covers(data, rng):
        lo, hi = sc.bland_altman(*data).upper_loa_exact
        return lo <= truth <= hi

    assert_coverage(covers, sampler, conf_level=0.95, reps=600, seed=7, exact=True, std_error="nominal")


def test_tost_equals_statsmodels():
    from statsmodels.stats.weightstats import ttost_ind, ttost_paired

    rng = np.random.default_rng(3)
    x, y = rng.normal(0.1, 1, 30), rng.normal(0.0, 1.3, 25)
    for var_equal, usevar in ((True, "pooled"), (False, "unequal")):
        p, lower, upper = ttost_ind(x, y, -0.6, 0.6, usevar=usevar)
        res = sc.tost(x, y, margin=0.6, var_equal=var_equal)
        assert res.p_value == pytest.approx(p, rel=1e-10)
        assert (res.extras["t_lower"], res.extras["p_lower"]) == pytest.approx(lower[:2], rel=1e-10)
        assert (res.extras["t_upper"], res.extras["p_upper"]) == pytest.approx(upper[:2], rel=1e-10)
        assert res.parameter["df"] == pytest.approx(lower[2], rel=1e-10)
    xp, yp = x[:25], x[:25] + rng.normal(0.05, 0.3, 25)
    p, lower, upper = ttost_paired(xp, yp, -0.3, 0.25)
    res = sc.tost(xp, yp, margin=(-0.3, 0.25), paired=True)
    assert res.p_value == pytest.approx(p, rel=1e-10)
    assert res.extras["t_upper"] == pytest.approx(upper[0], rel=1e-10)
    # the 1 - 2 alpha interval inside the margin <=> both one-sided tests reject at alpha
    inside = -0.3 < res.conf_int[0] and res.conf_int[1] < 0.25
    assert inside == (res.p_value < 0.05)
    with pytest.raises(ValueError, match="margin"):
        sc.tost(x, y, margin=(0.5, -0.5))


def test_within_tolerance_binomial_and_block_bootstrap():
    err = np.array([0.1, -0.3, 0.05, 0.6, -0.02, 0.15, 0.25, -0.19])
    res = sc.within_tolerance(err, 0.2)
    assert (res.count, res.n) == (5, 8)
    ref = sc.proportion_ci(5, 8)
    assert (res.conf_low, res.conf_high) == (ref.conf_low, ref.conf_high)
    # a smooth (spatially dependent) error image: the block bootstrap interval is much wider than Wilson's
    rng = np.random.default_rng(0)
    from scipy.ndimage import uniform_filter

    img = uniform_filter(rng.normal(size=(64, 64)), size=9, mode="wrap") * 9
    iid = sc.within_tolerance(img, 1.0)
    blk = sc.within_tolerance(img, 1.0, block=(16, 16), B=999, seed=3)
    assert blk.estimate == iid.estimate
    assert blk.conf_high - blk.conf_low > 2 * (iid.conf_high - iid.conf_low)
    assert blk == sc.within_tolerance(img, 1.0, block=(16, 16), B=999, seed=3)
    # the window shares: a 1 x 1 block is the plain (i.i.d.) bootstrap of the pixels
    one = sc.within_tolerance(img, 1.0, block=(1, 1), B=999, seed=3)
    assert one.conf_high - one.conf_low == pytest.approx(iid.conf_high - iid.conf_low, rel=0.25)
    with pytest.raises(ValueError, match="block"):
        sc.within_tolerance(img, 1.0, block=(65, 2))
    with pytest.raises(ValueError, match="block"):
        sc.within_tolerance(err, 1.0, block=(2, 2))
    nan_img = img.copy()
    nan_img[0, 0] = np.nan
    with pytest.raises(ValueError, match="error"):
        sc.within_tolerance(nan_img, 1.0, block=(8, 8), nan_policy="omit")
    assert sc.within_tolerance(nan_img, 1.0, nan_policy="omit").n == 64 * 64 - 1


def test_circular_windows_centre_the_block_bootstrap_on_the_estimate():
    from statcore.effects._tolerance import _window_shares

    ind = (np.random.default_rng(4).random((37, 23)) < 0.3).astype(float)
    for h, w in ((1, 1), (4, 5), (37, 23)):
        shares = _window_shares(ind, h, w)
        assert shares.size == ind.size
        assert shares.mean() == pytest.approx(ind.mean(), abs=1e-14)
    # one window by brute force: rows 35, 36, 0 and columns 21, 22, 0, 1 of the wrapped image
    brute = ind[np.ix_([35, 36, 0], [21, 22, 0, 1])].mean()
    assert _window_shares(ind, 3, 4).reshape(37, 23)[35, 21] == pytest.approx(brute, abs=1e-14)


@pytest.mark.slow
def test_block_bootstrap_repairs_most_of_the_binomial_undercoverage():
    """On a dependent error field (N(0, 1) margins, correlation length 3 px) the Wilson interval, which
    takes the pixels as independent, fails the coverage check; the block bootstrap (64 blocks of 12 x 12)
    covers far better (measured about 0.92-0.94 at 95%: block bootstraps under-cover a little)."""
    from scipy.ndimage import uniform_filter
    from statcore.testing import assert_coverage

    truth = stats.norm.cdf(1) - stats.norm.cdf(-1)

    def sampler(seed):
        rng = np.random.default_rng(seed)
        return uniform_filter(rng.normal(size=(96, 96)), size=3, mode="wrap") * 3

    def covers(img, seed):
        b = sc.within_tolerance(img, 1.0, block=(12, 12), B=499, seed=seed)
        w = sc.within_tolerance(img, 1.0)
        return {"block": float(b.conf_low <= truth <= b.conf_high), "wilson": float(w.conf_low <= truth <= w.conf_high)}

    seeds = range(300)
    with pytest.raises(AssertionError, match="wilson"):
        assert_coverage(covers, sampler, conf_level=0.95, seeds=seeds, std_error="nominal")
    rates = {k: np.mean([covers(sampler(s), s)[k] for s in seeds]) for k in ("block", "wilson")}
    assert rates["wilson"] < 0.95 - 3 * np.sqrt(0.95 * 0.05 / 300)
    assert rates["block"] > rates["wilson"] + 0.12
