"""cluster_vcov and coef_test against live clubSandwich 0.5.8 and sandwich 3.0.2 (OLS, WLS, a
logistic GLM and a weighted Gaussian GLM; unbalanced clusters, a cluster-level covariate),
statsmodels' cluster covariance, and
dependent_correlation_test against psych 2.2.9's r.test, with a Monte Carlo check of Zou's interval."""
import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
import statsmodels.formula.api as smf

from helpers import r_vector, requires_r, run_r
from statcore import cluster_vcov, coef_test, dependent_correlation_test


def _data(seed=11, n=90, J=12):
    rng = np.random.default_rng(seed)
    g = np.sort(rng.integers(0, J, n))            # unbalanced clusters
    g[:2] = 0
    x1 = rng.normal(size=n) + rng.normal(size=J)[g]
    x2 = rng.normal(size=J)[g]                    # constant within cluster
    w = rng.uniform(0.3, 3, n)
    y = 1 + 0.5 * x1 - 0.3 * x2 + rng.normal(size=J)[g] + rng.normal(size=n)
    yb = (rng.random(n) < 1 / (1 + np.exp(-(0.2 + 0.8 * x1 + rng.normal(size=J)[g])))).astype(float)
    return pd.DataFrame({"y": y, "x1": x1, "x2": x2, "g": g, "w": w, "yb": yb})


D = _data()
CORR = [(103, 0.4, 0.2, 0.5), (50, -0.3, 0.35, 0.1), (30, 0.7, 0.65, 0.8), (1000, 0.1, 0.12, -0.4)]


@pytest.fixture(scope="module")
def r_values():
    code = ["suppressMessages({library(clubSandwich); library(sandwich); library(psych)})",
            f"d <- data.frame(y = {r_vector(D.y)}, x1 = {r_vector(D.x1)}, x2 = {r_vector(D.x2)}, "
            f"g = {r_vector(D.g)}, w = {r_vector(D.w)}, yb = {r_vector(D.yb)})",
            "tight <- glm.control(epsilon = 1e-14, maxit = 200)",
            "fits <- list(ols = lm(y ~ x1 + x2, d), wls = lm(y ~ x1 + x2, d, weights = w),",
            "             logit = glm(yb ~ x1 + x2, binomial, d, control = tight),",
            "             gaussw = glm(y ~ x1 + x2, gaussian, d, weights = w))",
            "for (nm in names(fits)) { f <- fits[[nm]]",
            "  for (k in c('CR2', 'CR3')) { ct <- coef_test(f, vcov = k, cluster = d$g, test = 'Satterthwaite')",
            "    cat(nm, k, sprintf('%.17g', c(ct$SE, ct$df_Satt, ct$p_Satt)), '\\n') }",
            "  V <- vcovCL(f, cluster = d$g, type = 'HC1'); cat(nm, 'HC1', sprintf('%.17g', c(V)), '\\n') }",
            "cat('PRINT\\n')",
            "print(coef_test(fits$ols, vcov = 'CR2', cluster = d$g, test = 'Satterthwaite')); cat('PRINT\\n')"]
    for n, r12, r13, r23 in CORR:
        code.append(f"rt <- r.test(n = {n}, r12 = {r12}, r13 = {r13}, r23 = {r23}); "
                    f"cat('corr {n}', sprintf('%.17g', c(rt$t, rt$p)), '\\n')")
    text = run_r("\n".join(code))
    body, printed, rest = text.split("PRINT\n")
    vals = {}
    for line in (body + rest).strip().splitlines():
        a, b, *nums = line.split()
        vals[(a, b)] = np.array([float(x) for x in nums])
    return vals, printed


def _fits():
    X = sm.add_constant(D[["x1", "x2"]].to_numpy())
    y, w = D.y.to_numpy(), D.w.to_numpy()
    return {"ols": sm.OLS(y, X).fit(), "wls": sm.WLS(y, X, weights=w).fit(),
            "logit": sm.GLM(D.yb.to_numpy(), X, family=sm.families.Binomial()).fit(tol=1e-14, maxiter=200),
            "gaussw": sm.GLM(y, X, family=sm.families.Gaussian(), var_weights=w).fit()}


#: R's glm and statsmodels' IRLS stop at different points: with tight tolerances on both sides the
#: logistic coefficients agree to about 1e-9, which bounds the agreement of everything computed from them
RTOL = {"ols": 1e-10, "wls": 1e-10, "gaussw": 1e-10, "logit": 1e-7}


@requires_r("clubSandwich", "sandwich")
@pytest.mark.parametrize("model", ["ols", "wls", "logit", "gaussw"])
def test_cr2_cr3_satterthwaite_match_clubsandwich(r_values, model):
    vals, _ = r_values
    fit = _fits()[model]
    for kind in ("CR2", "CR3"):
        res = coef_test(fit, vcov=kind, cluster=D.g.to_numpy(), df="satterthwaite")
        ref = vals[(model, kind)].reshape(3, 3)
        np.testing.assert_allclose(res.table["std_error"], ref[0], rtol=RTOL[model])
        np.testing.assert_allclose(res.table["df"], ref[1], rtol=RTOL[model])
        np.testing.assert_allclose(res.table["p_value"], ref[2], rtol=RTOL[model])


@requires_r("clubSandwich", "sandwich")
@pytest.mark.parametrize("model", ["ols", "wls", "logit", "gaussw"])
def test_cr1_is_vcovcl_hc1_and_statsmodels_cluster(r_values, model):
    vals, _ = r_values
    fit = _fits()[model]
    V = cluster_vcov(fit, D.g.to_numpy(), kind="CR1").values
    np.testing.assert_allclose(V.ravel(order="F"), vals[(model, "HC1")], rtol=RTOL[model])
    if model != "gaussw":   # statsmodels does not support cluster covariances with var_weights
        sm_cl = fit.model.fit(cov_type="cluster", cov_kwds={"groups": D.g.to_numpy()},
                              **({"tol": 1e-14, "maxiter": 200} if model == "logit" else {}))
        np.testing.assert_allclose(V, sm_cl.cov_params(), rtol=1e-10)


@requires_r("clubSandwich")
def test_summary_is_clubsandwich_print(r_values):
    _, printed = r_values
    res = coef_test(_fits()["ols"], vcov="CR2", cluster=D.g.to_numpy())
    ours = [ln.split() for ln in res.summary().splitlines()[1:]]
    theirs = [ln.split() for ln in printed.strip("\n").splitlines()[1:]]
    # the coefficient names differ (statsmodels' const, x1, x2 against R's (Intercept), x1, x2)
    assert [r[1:] for r in ours] == [r[1:] for r in theirs]


def test_formula_fit_equals_array_fit_and_glm_cr1():
    f = smf.ols("y ~ x1 + x2", D).fit()
    a = coef_test(f, vcov="CR2", cluster=D.g)
    b = coef_test(_fits()["ols"], vcov="CR2", cluster=D.g.to_numpy())
    np.testing.assert_allclose(a.table.to_numpy(), b.table.to_numpy(), rtol=1e-12)
    assert list(a.table.index) == ["Intercept", "x1", "x2"]
    # a formula fit that dropped a row: a longer Series is taken at the fit's row labels
    D2 = D.copy()
    D2.loc[5, "x1"] = np.nan
    f2 = smf.ols("y ~ x1 + x2", D2).fit()
    c = coef_test(f2, vcov="CR2", cluster=D2.g)
    d = coef_test(smf.ols("y ~ x1 + x2", D2.drop(index=5)).fit(), vcov="CR2", cluster=D2.g.drop(index=5))
    np.testing.assert_allclose(c.table.to_numpy(), d.table.to_numpy(), rtol=1e-12)
    # a GLM formula fit equals its array fit
    g1 = coef_test(smf.glm("yb ~ x1 + x2", D, family=sm.families.Binomial()).fit(), vcov="CR2", cluster=D.g)
    X = sm.add_constant(D[["x1", "x2"]].to_numpy())
    g2 = coef_test(sm.GLM(D.yb.to_numpy(), X, family=sm.families.Binomial()).fit(), vcov="CR2", cluster=D.g.to_numpy())
    np.testing.assert_allclose(g1.table.to_numpy(), g2.table.to_numpy(), rtol=1e-12)


def test_user_vcov_and_reference_dfs():
    fit = _fits()["ols"]
    cv = cluster_vcov(fit, D.g.to_numpy(), kind="CR2")
    a = coef_test(fit, vcov=cv)
    b = coef_test(fit, vcov="CR2", cluster=D.g.to_numpy())
    assert a == b
    r = coef_test(fit, vcov=cv.values, df="residual")
    assert np.all(r.table["df"] == len(D) - 3)
    z = coef_test(fit, vcov=cv, df="normal")
    assert np.all(np.isinf(z.table["df"]))
    with pytest.raises(ValueError, match="satterthwaite"):
        coef_test(fit, vcov=cv.values)
    with pytest.raises(ValueError, match="cluster"):
        coef_test(fit, vcov="CR2")
    with pytest.raises(ValueError, match="cluster"):
        cluster_vcov(fit, np.zeros(len(D)))


@requires_r("psych")
def test_steiger_t_matches_psych_r_test(r_values):
    vals, _ = r_values
    for n, r12, r13, r23 in CORR:
        res = dependent_correlation_test(r12, r13, r23, n)
        t, p = vals[("corr", str(n))]
        assert res.statistic == pytest.approx(t, rel=1e-12)
        assert res.p_value == pytest.approx(p, rel=1e-10)
        assert res.parameter["df"] == n - 3


def test_zou_interval_reduces_and_inverts():
    res = dependent_correlation_test(0.4, 0.2, 0.5, 103, method="zou")
    lo, hi = res.conf_int
    assert lo < 0.2 < hi
    # the p-value is the level at which the interval's lower end reaches 0
    at = dependent_correlation_test(0.4, 0.2, 0.5, 103, method="zou", conf_level=1 - res.p_value)
    assert at.conf_int[0] == pytest.approx(0.0, abs=1e-9)
    with pytest.raises(ValueError, match="r12"):
        dependent_correlation_test(1.2, 0.2, 0.5, 103)
    with pytest.raises(ValueError, match="n"):
        dependent_correlation_test(0.4, 0.2, 0.5, 3)
    with pytest.raises(ValueError, match="r23"):
        dependent_correlation_test(0.9, -0.9, 0.9, 50)


@pytest.mark.slow
def test_zou_interval_coverage():
    from statcore.testing import assert_coverage

    R = np.array([[1.0, 0.5, 0.3], [0.5, 1.0, 0.4], [0.3, 0.4, 1.0]])
    L = np.linalg.cholesky(R)
    n = 40

    def sampler(rng):
        return rng.normal(size=(n, 3)) @ L.T

    def covers(x, rng):
        c = np.corrcoef(x, rowvar=False)
        lo, hi = dependent_correlation_test(c[0, 1], c[0, 2], c[1, 2], n, method="zou").conf_int
        return lo <= 0.2 <= hi

    assert_coverage(covers, sampler, conf_level=0.95, reps=1500, seed=3)
