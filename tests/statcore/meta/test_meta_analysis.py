"""meta_analysis against live metafor 3.8.1 (``rma`` and ``predict``, every estimator, with and without
Knapp-Hartung), against statsmodels' ``combine_effects``, and prop_effects_above's delta method."""
import math
import warnings

import numpy as np
import pytest

from helpers import r_vector, requires_r, run_r
from statcore import meta_analysis, prop_effects_above

METHODS = ("REML", "ML", "DL", "PM", "HE", "SJ", "EB", "FE")
FIELDS = ("estimate", "std_error", "p_value", "conf_low", "conf_high", "tau2", "tau2_std_error", "i2", "h2",
          "q", "q_p_value", "pred_low", "pred_high", "tau2_conf_low", "tau2_conf_high")


def _datasets():
    rng = np.random.default_rng(20260)
    out = []
    for k, tau in ((15, 0.4), (8, 0.15), (6, 0.0), (40, 1.0)):
        v = rng.uniform(0.01, 0.3, k)
        y = 0.3 + tau * rng.normal(size=k) + np.sqrt(v) * rng.normal(size=k)
        out.append((y, v))
    return out


DATA = _datasets()


@pytest.fixture(scope="module")
def metafor_values():
    lines = ["suppressMessages(library(metafor))", "out <- c()"]
    for i, (y, v) in enumerate(DATA):
        lines.append(f"y <- {r_vector(y)}; v <- {r_vector(v)}")
        for m in METHODS:
            for kn in ("FALSE", "TRUE"):
                lines.append(
                    f"f <- suppressWarnings(rma(y, v, method = '{m}', test = ifelse({kn}, 'knha', 'z'))); "
                    "pr <- predict(f); "
                    f"cat('{i} {m} {kn}', sprintf('%.17g', c(f$beta, f$se, f$pval, f$ci.lb, f$ci.ub, f$tau2, "
                    f"ifelse(is.na(f$se.tau2), NaN, f$se.tau2), f$I2, f$H2, f$QE, f$QEp, "
                    "if (is.null(pr$pi.lb)) pr$ci.lb else pr$pi.lb, if (is.null(pr$pi.ub)) pr$ci.ub else pr$pi.ub, "
                    f"if ('{m}' == 'FE') c(NaN, NaN) else suppressWarnings(confint(f))$random[1, 2:3])), '\\n')")
    y, v = DATA[0]
    lines.append(f"y <- {r_vector(y)}; v <- {r_vector(v)}")
    lines.append("cat('PRINT\\n'); print(rma(y, v)); cat('PRINT\\n')")
    lines.append("print(rma(y, v, method = 'PM', test = 'knha')); cat('PRINT\\n')")
    text = run_r("\n".join(lines))
    values = {}
    body, *prints = text.split("PRINT\n")
    for line in body.strip().splitlines():
        i, m, kn, *nums = line.split()
        values[(int(i), m, kn == "TRUE")] = np.array([float(x) for x in nums])
    return values, prints[:2]


def _ours(fit):
    return np.array([fit.estimate, fit.std_error, fit.p_value, fit.conf_low, fit.conf_high, fit.tau2,
                     fit.tau2_std_error, fit.i2, fit.h2, fit.q_test.statistic, fit.q_test.p_value,
                     fit.pred_low, fit.pred_high, fit.tau2_conf_low, fit.tau2_conf_high])


@requires_r("metafor")
@pytest.mark.parametrize("method", METHODS)
def test_rma_every_method_matches_metafor(metafor_values, method):
    values, _ = metafor_values
    for i, (y, v) in enumerate(DATA):
        for hksj in (False, True):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fit = meta_analysis(y, v, method=method, hksj=hksj)
            ref = values[(i, method, hksj)]
            got = _ours(fit)
            assert got.size == ref.size == len(FIELDS)
            for name, a, b in zip(FIELDS, got, ref):
                if name in ("tau2_std_error", "tau2_conf_low", "tau2_conf_high") and method == "FE":
                    assert math.isnan(a) and math.isnan(b)
                    continue
                assert a == pytest.approx(b, rel=1e-8, abs=1e-10), (i, method, hksj, name, a, b)


@requires_r("metafor")
def test_summary_is_print_rma(metafor_values):
    _, prints = metafor_values
    y, v = DATA[0]
    assert meta_analysis(y, v).summary().strip("\n") == prints[0].strip("\n")
    assert meta_analysis(y, v, method="PM", hksj=True).summary().strip("\n") == prints[1].strip("\n")


def test_dl_equals_statsmodels_and_pm_differs():
    from statsmodels.stats.meta_analysis import combine_effects

    y, v = DATA[0]
    ours = meta_analysis(y, v, method="DL")
    sm = combine_effects(y, v, method_re="dl")
    assert ours.tau2 == pytest.approx(sm.tau2, rel=1e-12)
    assert ours.estimate == pytest.approx(sm.mean_effect_re, rel=1e-12)
    assert ours.std_error == pytest.approx(sm.sd_eff_w_re, rel=1e-12)
    # Paule-Mandel: metafor (and so statcore) stops R's uniroot at tol = eps^0.25 (tested against metafor
    # above); statsmodels iterates its own fixed-point rule and stops elsewhere. Both are within the
    # search tolerance of the exact root of Q(tau2) = k - 1, and they differ from each other.
    from scipy.optimize import brentq

    pm = meta_analysis(y, v, method="PM")
    sm_pm = combine_effects(y, v, method_re="pm")

    def q_minus(t):
        w = 1 / (v + t)
        mu = np.sum(w * y) / np.sum(w)
        return np.sum(w * (y - mu) ** 2) - (len(y) - 1)

    exact = brentq(q_minus, 0, 100, xtol=1e-15)
    assert abs(pm.tau2 - exact) <= np.finfo(float).eps ** 0.25
    assert abs(sm_pm.tau2 - pm.tau2) > 1e-8 * pm.tau2


def test_prop_effects_above_delta_method_by_finite_differences():
    y, v = DATA[0]
    fit = meta_analysis(y, v)
    res = prop_effects_above(fit, 0.5)
    from scipy import stats

    def share(mu, t2):
        return stats.norm.sf((0.5 - mu) / math.sqrt(t2))

    h = 1e-6
    g_mu = (share(fit.estimate + h, fit.tau2) - share(fit.estimate - h, fit.tau2)) / (2 * h)
    g_t2 = (share(fit.estimate, fit.tau2 + h) - share(fit.estimate, fit.tau2 - h)) / (2 * h)
    se = math.sqrt(g_mu ** 2 * fit.std_error ** 2 + g_t2 ** 2 * fit.tau2_std_error ** 2)
    assert res.estimate == pytest.approx(share(fit.estimate, fit.tau2), rel=1e-12)
    assert res.std_error == pytest.approx(se, rel=1e-6)
    assert res.conf_low == pytest.approx(max(0, res.estimate - stats.norm.isf(0.025) * se), rel=1e-6)
    with pytest.raises(ValueError, match="fit"):
        prop_effects_above(meta_analysis(y, v, method="FE"), 0.5)


def test_omit_drops_studies_and_bad_variances():
    y, v = DATA[1]
    yn = np.r_[y, np.nan]
    vn = np.r_[v, 0.1]
    assert meta_analysis(yn, vn, nan_policy="omit") == meta_analysis(y, v)
    with pytest.raises(ValueError, match="v must be positive"):
        meta_analysis(y, np.r_[v[:-1], 0.0])
    with pytest.raises(ValueError, match="v has"):
        meta_analysis(y, v[:-1])


def test_prop_effects_above_bca_bootstrap():
    y, v = DATA[3]                                   # k = 40, tau = 1
    fit = meta_analysis(y, v)
    a = prop_effects_above(fit, 0.5, method="bca", B=300, seed=7)
    b = prop_effects_above(fit, 0.5, method="bca", B=300, seed=7)
    d = prop_effects_above(fit, 0.5)
    assert a == b and a.method == "bca"
    assert a.estimate == d.estimate
    assert a.conf_low <= a.estimate <= a.conf_high
    # with 40 studies and a share away from 0 and 1 the two standard errors agree to within a third
    assert abs(a.std_error - d.std_error) < d.std_error / 3
