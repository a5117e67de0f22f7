"""AIC model comparison against R: logLik/AIC/BIC/lrtest to 1e-8 (golden files and live R), statsmodels,
scikit-learn and scipy adapters."""
import math
import warnings

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from scipy import stats
from statsmodels.genmod import families
from statsmodels.genmod.families import links

import statcore as sc
from statcore import LogLik
from helpers import golden_path, load_golden_json, requires_r, run_r

DATA = golden_path("modelsel")
D = pd.read_csv(golden_path("modelsel", "modelsel_data.csv"), comment="#")
GOLDEN = load_golden_json("modelsel", "modelsel_golden.json")


# derived columns, as in tests/golden/modelsel/modelsel_golden.R
W0 = D["w"].to_numpy().copy()
W0[:4] = 0.0
TR = (D["yc"] + 1).to_numpy().astype(float)
S = np.floor(TR * D["x1"].to_numpy() / 2.1)
FW = 1 + (np.arange(1, len(D) + 1) % 3)


def X(*cols):
    return sm.add_constant(D[list(cols)].to_numpy()) if cols else np.ones((len(D), 1))


def fit_models():
    """The statsmodels twins of the R models in data/modelsel_golden.R."""
    glm = lambda y, fam, *cols, **kw: sm.GLM(D[y].to_numpy(), X(*cols), family=fam, **kw).fit()
    w = D["w"].to_numpy()
    return {
        "lm1": sm.OLS(D["y"].to_numpy(), X("x1")).fit(),
        "lm2": sm.OLS(D["y"].to_numpy(), X("x1", "x2")).fit(),
        "lm_w": sm.WLS(D["y"].to_numpy(), X("x1", "x2"), weights=w).fit(),
        "lm0": sm.OLS(D["y"].to_numpy(), X()).fit(),
        "glm_gauss": glm("y", families.Gaussian(), "x1", "x2"),
        "glm_binom1": glm("yb", families.Binomial(), "x1"),
        "glm_binom2": glm("yb", families.Binomial(), "x1", "x2"),
        "glm_probit": glm("yb", families.Binomial(link=links.Probit()), "x1", "x2"),
        "glm_pois": glm("yc", families.Poisson(), "x1", "x2"),
        "glm_pois_w": glm("yc", families.Poisson(), "x1", "x2", var_weights=w),
        "glm_gamma": glm("yg", families.Gamma(link=links.Log()), "x1", "x2"),
        "glm_gamma_inv": glm("yg", families.Gamma(), "x1", "x2"),
        "glm_gamma_w": glm("yg", families.Gamma(link=links.Log()), "x1", "x2", var_weights=w),
        "glm_invgauss": glm("yg", families.InverseGaussian(link=links.Log()), "x1", "x2"),
        # R's logLik.lm drops zero-weight rows (statsmodels' llf is -inf there)
        "lm_w0": sm.WLS(D["y"].to_numpy(), X("x1", "x2"), weights=W0).fit(),
        # proportions with trial counts as prior weights (R: weights = trials) and the two-column form
        "glm_binom_prop": sm.GLM(S / TR, X("x1", "x2"), family=families.Binomial(), var_weights=TR).fit(),
        "glm_binom_cbind": sm.GLM(np.column_stack([S, TR - S]), X("x1", "x2"), family=families.Binomial()).fit(),
        # frequency weights: the same fit as R's lm on the expanded rows (nobs = sum of frequencies)
        "lm_expanded": glm("y", families.Gaussian(), "x1", "x2", freq_weights=FW),
    }


with warnings.catch_warnings():
    warnings.simplefilter("ignore")   # statsmodels' DomainWarning for R's default Gamma inverse link
    MODELS = fit_models()


@pytest.mark.parametrize("name", list(MODELS))
def test_loglik_aic_bic_equal_r_golden(name):
    g, m = GOLDEN[name], MODELS[name]
    ll = sc.loglik(m)
    assert ll.df == g["df"] and ll.nobs == g["nobs"]
    assert ll.value == pytest.approx(g["logLik"], abs=1e-8, rel=1e-10)
    assert float(sc.aic(m)) == pytest.approx(g["AIC"], abs=1e-8, rel=1e-10)
    assert float(sc.bic(m)) == pytest.approx(g["BIC"], abs=1e-8, rel=1e-10)


@pytest.mark.parametrize("r_name, model", [
    ("glm_binom2", sm.Logit), ("glm_probit", sm.Probit), ("glm_pois", sm.Poisson)])
def test_discrete_models_equal_r_glm(r_name, model):
    y = D["yb" if model is not sm.Poisson else "yc"].to_numpy()
    fit = model(y, X("x1", "x2")).fit(disp=0, tol=1e-12, maxiter=200)
    g = GOLDEN[r_name]
    assert sc.loglik(fit).df == g["df"]
    assert float(sc.aic(fit)) == pytest.approx(g["AIC"], abs=1e-8)
    assert float(sc.bic(fit)) == pytest.approx(g["BIC"], abs=1e-8)


@pytest.mark.parametrize("key, pair", [("lrtest_lm", ("lm1", "lm2")), ("lrtest_binom", ("glm_binom1", "glm_binom2"))])
def test_lrtest_equals_r_lmtest(key, pair):
    g = GOLDEN[key]
    res = sc.lrtest(MODELS[pair[0]], MODELS[pair[1]])
    assert isinstance(res, sc.HTest)
    assert res.statistic == pytest.approx(g["Chisq"], abs=1e-8)
    assert res.parameter["df"] == g["Df"]
    assert res.p_value == pytest.approx(g["p"], rel=1e-8)
    tab = res.extras["table"]
    assert list(tab.columns) == ["#Df", "LogLik", "Df", "Chisq", "Pr(>Chisq)"]


def test_aic_table_equals_r():
    g = GOLDEN["aic_table"]
    tab = sc.aic(lm0=MODELS["lm0"], lm1=MODELS["lm1"], lm2=MODELS["lm2"])
    assert tab.names == ("lm0", "lm1", "lm2")
    assert list(tab.df) == g["df"]
    np.testing.assert_allclose(tab.values, g["AIC"], atol=1e-8, rtol=0)
    frame = tab.to_frame()
    assert list(frame.columns) == ["df", "aic"] and list(frame.index) == ["lm0", "lm1", "lm2"]
    # positional models are named model1, model2, ...
    assert sc.bic(MODELS["lm1"], MODELS["lm2"]).names == ("model1", "model2")


R_PRELUDE = f"""
source_lines <- readLines("{DATA / 'modelsel_golden.R'}")
d <- read.csv("{DATA / 'modelsel_data.csv'}", comment.char = "#")
eval(parse(text = paste(source_lines[grep("^d[$]w0 <-", source_lines):(grep("^LRTESTS <-", source_lines) - 1)], collapse = "\\n")))
"""


@requires_r
def test_live_r_values_and_printouts():
    out = run_r(R_PRELUDE + """
for (nm in names(MODELS)) cat(nm, sprintf("%.17g", logLik(MODELS[[nm]])), sprintf("%.17g", BIC(MODELS[[nm]])), "\\n")
cat("----\\n")
lm0 <- MODELS$lm0; lm1 <- MODELS$lm1; lm2 <- MODELS$lm2
print(AIC(lm0, lm1, lm2))
cat("----\\n")
print(BIC(lm0, lm1, lm2))
cat("----\\n")
print(logLik(lm2))
print(logLik(MODELS$glm_gamma))
""")
    values, aic_print, bic_print, ll_print = out.split("----\n")
    for line in values.strip().splitlines():
        name, ll, b = line.split()
        assert sc.loglik(MODELS[name]).value == pytest.approx(float(ll), abs=1e-8), name
        assert float(sc.bic(MODELS[name])) == pytest.approx(float(b), abs=1e-8), name
    trio = dict(lm0=MODELS["lm0"], lm1=MODELS["lm1"], lm2=MODELS["lm2"])
    assert str(sc.aic(**trio)) == aic_print
    assert str(sc.bic(**trio)) == bic_print
    assert f"{sc.loglik(MODELS['lm2'])}\n{sc.loglik(MODELS['glm_gamma'])}\n" == ll_print


def test_ols_sigma_convention_differs_from_statsmodels_by_one_parameter():
    m = MODELS["lm2"]
    ll = sc.loglik(m)
    assert ll.value == pytest.approx(m.llf, abs=1e-12)
    assert ll.df == m.df_model + 1 + 1          # coefficients (with intercept) + sigma
    assert float(sc.aic(m)) == pytest.approx(m.aic + 2, abs=1e-10)
    assert float(sc.bic(m)) == pytest.approx(m.bic + math.log(m.nobs), abs=1e-10)
    assert float(sc.aic(sc.loglik(m, df=m.df_model + 1))) == pytest.approx(m.aic, abs=1e-10)


@pytest.mark.parametrize("name", ["glm_binom2", "glm_pois", "glm_probit", "glm_gauss"])
def test_statsmodels_llf_agrees_where_conventions_agree(name):
    m = MODELS[name]
    assert sc.loglik(m).value == pytest.approx(m.llf, abs=1e-9)
    if name != "glm_gauss":   # statsmodels does not count the gaussian dispersion
        assert float(sc.aic(m)) == pytest.approx(m.aic, abs=1e-9)


def test_gamma_glm_uses_r_ml_dispersion_not_statsmodels_pearson():
    m = MODELS["glm_gamma"]
    assert abs(m.llf - sc.loglik(m).value) > 1e-3   # statsmodels uses the Pearson scale
    assert sc.loglik(m).value == pytest.approx(GOLDEN["glm_gamma"]["logLik"], abs=1e-8)


def test_gaussian_mixture_loglik():
    from sklearn.mixture import GaussianMixture

    rng = np.random.default_rng(3)
    x = np.r_[rng.normal(-2, 1, (150, 2)), rng.normal(2, 0.5, (100, 2))]
    for cov, k_cov in [("full", 2 * 3), ("diag", 2 * 2), ("tied", 3), ("spherical", 2)]:
        gm = GaussianMixture(2, covariance_type=cov, random_state=0).fit(x)
        ll = sc.loglik((gm, x))
        assert ll.df == 2 * 2 + k_cov + 1 == gm._n_parameters()
        assert ll.value == pytest.approx(gm.score(x) * len(x), rel=1e-12)
        assert ll.nobs == 250
        assert float(sc.bic((gm, x))) == pytest.approx(gm.bic(x), rel=1e-10)
        assert float(sc.aic((gm, x))) == pytest.approx(gm.aic(x), rel=1e-10)
    with pytest.raises(TypeError, match=r"loglik\(\(model, X\)\)"):
        sc.loglik(gm)


def test_scipy_fit_and_triples():
    rng = np.random.default_rng(4)
    x = rng.gamma(2.0, 1.5, 200)
    a, loc, scale = stats.gamma.fit(x, floc=0)
    ll = sc.loglik((stats.gamma, (a, loc, scale), x))
    assert ll.value == pytest.approx(np.sum(stats.gamma.logpdf(x, a, loc, scale)), rel=1e-14)
    assert ll.df == 3 and ll.nobs == 200
    assert sc.loglik((stats.gamma, (a, loc, scale), x), df=2).df == 2
    assert sc.loglik((stats.norm, {"loc": 1.0, "scale": 2.0}, x)).df == 2
    k = rng.poisson(3.0, 100)
    assert sc.loglik((stats.poisson, (k.mean(),), k)).value == pytest.approx(
        np.sum(stats.poisson.logpmf(k, k.mean())), rel=1e-14)
    res = stats.fit(stats.norm, x[:50], bounds={"loc": (-10, 10), "scale": (0.1, 10)})
    llf = sc.loglik(res)
    assert llf.df == 2 and llf.nobs == 50
    assert llf.value == pytest.approx(np.sum(stats.norm.logpdf(x[:50], *res.params)), rel=1e-12)
    res1 = stats.fit(stats.norm, x[:50], bounds={"loc": (-10, 10)})   # scale held at 1
    assert sc.loglik(res1).df == 1


def test_user_registration_and_unregistered_type():
    class MyFit:
        def __init__(self, ll):
            self.ll = ll

    with pytest.raises(TypeError, match=r"register it with @statcore.loglik.register\(MyFit\)"):
        sc.loglik(MyFit(-3.0))

    @sc.loglik.register(MyFit)
    def _(m):
        return LogLik(m.ll, 2, 10)

    assert float(sc.aic(MyFit(-3.0))) == 10.0

    class BadFit:
        pass

    sc.loglik.register(BadFit, lambda m: -1.0)
    with pytest.raises(TypeError, match="not statcore.LogLik"):
        sc.loglik(BadFit())


def test_loglik_print_and_criteria():
    ll = LogLik(-45.2, 3, 40)
    assert str(ll) == "'log Lik.' -45.2 (df=3)"
    assert ll.aic() == pytest.approx(96.4)
    assert ll.bic() == pytest.approx(90.4 + 3 * math.log(40))
    assert ll.aicc() == pytest.approx(96.4 + 2 * 3 * 4 / 36)
    assert float(sc.aic(ll, k=math.log(40))) == pytest.approx(ll.bic())
    with pytest.raises(ValueError, match="AICc is undefined"):
        LogLik(-1.0, 5, 6).aicc()
    with pytest.raises(ValueError, match="nobs=None"):
        LogLik(-1.0, 1).bic()


def test_compare_models_table():
    models = {"lm0": MODELS["lm0"], "lm1": MODELS["lm1"], "lm2": MODELS["lm2"]}
    res = sc.compare_models(models)
    assert res.names == ("lm2", "lm1", "lm0")
    aics = np.array([GOLDEN[n]["AIC"] for n in res.names])
    np.testing.assert_allclose(res.values, aics, atol=1e-8)
    np.testing.assert_allclose(res.delta, aics - aics.min(), atol=1e-8)
    w = np.exp(-(aics - aics.min()) / 2)
    np.testing.assert_allclose(res.weight, w / w.sum(), rtol=1e-10)
    np.testing.assert_allclose(res.evidence_ratio, res.weight[0] / res.weight, rtol=1e-10)
    assert res.cum_weight[-1] == pytest.approx(1.0)
    frame = res.to_frame()
    assert list(frame.columns) == ["df", "loglik", "aic", "delta_aic", "weight", "evidence_ratio", "cum_weight"]
    text = str(res)
    assert text.startswith("Model comparison by AIC (n = 60)\n") and "Best model: lm2" in text
    assert sc.compare_models(list(models.values()), criterion="BIC").names == ("model3", "model2", "model1")
    ax = res.plot()
    assert ax.get_xlabel() == "AIC weight"


def test_lrtest_bad_input():
    with pytest.raises(ValueError, match="m1 must have more parameters"):
        sc.lrtest(MODELS["lm2"], MODELS["lm1"])
    with pytest.raises(ValueError, match="different numbers of observations"):
        sc.lrtest(LogLik(-10.0, 2, 50), LogLik(-9.0, 3, 51))
    with pytest.warns(sc.StatcoreWarning, match="not nested"):
        res = sc.lrtest(LogLik(-10.0, 2, 50), LogLik(-11.0, 3, 50))
    assert res.p_value == 1.0


def test_lrtest_prints_like_htest():
    text = str(sc.lrtest(MODELS["lm1"], MODELS["lm2"], names=("lm1", "lm2")))
    assert text == ("\n\tLikelihood ratio test\n\ndata:  lm1 and lm2\n"
                    "Chisq = 13.588, df = 1, p-value = 0.0002276\n\n")


def test_more_statsmodels_results():
    y = D["yc"].to_numpy()
    Xc = X("x1", "x2")
    nb = sm.NegativeBinomial(y, Xc).fit(disp=0, maxiter=200)
    ll = sc.loglik(nb)
    assert ll.df == 4 and ll.value == pytest.approx(nb.llf) and float(sc.aic(nb)) == pytest.approx(nb.aic)
    nbglm = sm.GLM(y, Xc, family=families.NegativeBinomial(alpha=0.5)).fit()
    assert sc.loglik(nbglm).df == 3          # alpha fixed: only the coefficients are estimated
    assert sc.loglik(nbglm).value == pytest.approx(nbglm.llf, abs=1e-9)
    gls = sm.GLS(D["y"].to_numpy(), Xc).fit()
    assert sc.loglik(gls).df == 4 and sc.loglik(gls).value == pytest.approx(GOLDEN["lm2"]["logLik"], abs=1e-8)

    from statsmodels.base.model import GenericLikelihoodModel

    class Exponential(GenericLikelihoodModel):
        def loglike(self, params):
            rate = np.exp(params[0])
            return np.sum(np.log(rate) - rate * self.endog)

    yg = D["yg"].to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # no standard errors needed here
        gen = Exponential(yg, np.ones((len(yg), 1))).fit(start_params=[0.0], disp=0)
    assert sc.loglik(gen).df == 1
    assert sc.loglik(gen).value == pytest.approx(len(yg) * (np.log(1 / yg.mean()) - 1), abs=1e-6)
    with pytest.raises(TypeError, match="Tweedie"):
        sc.loglik(sm.GLM(yg, Xc, family=families.Tweedie(var_power=1.5)).fit())
