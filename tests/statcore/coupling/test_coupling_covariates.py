"""joint_bounds with covariates: Hajek IPW marginals (given or logistic-fitted propensity), clipping, strata."""
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

from statcore.coupling import OverlapWarning, coupling_mean, joint_bounds, makarov_bounds


def confounded(rng, n):
    x = rng.normal(size=n)
    t = (rng.uniform(size=n) < expit(1.5 * x)).astype(float)
    y0 = x + rng.normal(size=n)
    y1 = 2 * x + 1 + rng.normal(size=n)
    return x, t, np.where(t == 1, y1, y0)


def test_given_propensity_is_hajek_weighting():
    rng = np.random.default_rng(1)
    x, t, y = confounded(rng, 300)
    e = np.clip(expit(1.5 * x), 0.02, 0.98)  # inside the default clip: plain Hajek weights
    r = joint_bounds(y, t, f="product", propensity=e, B=0)
    w1, w0 = 1 / e[t == 1], 1 / (1 - e[t == 0])
    assert r.comonotone == pytest.approx(coupling_mean(y[t == 1], y[t == 0], f="product", weights1=w1, weights0=w0),
                                         rel=1e-12)
    assert r.countercomonotone == pytest.approx(
        coupling_mean(y[t == 1], y[t == 0], f="product", coupling="countercomonotone", weights1=w1, weights0=w0),
        rel=1e-12)
    assert "propensity given" in r.summary()
    kish1 = w1.sum() ** 2 / (w1 ** 2).sum()
    assert f"effective n1 = {kish1:.1f}" in r.summary()


def test_fitted_propensity_matches_statsmodels_logit():
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(2)
    x, t, y = confounded(rng, 400)
    X = np.column_stack([x, rng.normal(size=400)])
    fit = sm.Logit(t, sm.add_constant(X)).fit(disp=0, tol=1e-12)
    e = fit.predict(sm.add_constant(X))
    a = joint_bounds(y, t, f="sq_diff", X=X, B=0, marginals="ipw")
    b = joint_bounds(y, t, f="sq_diff", propensity=e, B=0)
    assert a.lower == pytest.approx(b.lower, rel=1e-8)
    assert a.upper == pytest.approx(b.upper, rel=1e-8)
    assert "fitted by logistic regression" in a.summary()


@pytest.mark.filterwarnings("ignore::statcore.coupling.OverlapWarning")
def test_ipw_recovers_population_marginals_under_confounding():
    # Y1 ~ N(1, 5), Y0 ~ N(0, 2) in the population: E[Y1 Y0] in [-sqrt(10), sqrt(10)]
    rng = np.random.default_rng(3)
    x, t, y = confounded(rng, 40_000)
    r = joint_bounds(y, t, f="product", X=x, B=0, marginals="ipw")
    naive = joint_bounds(y, t, f="product", B=0)
    s = np.sqrt(10)
    # standard errors here are about 0.04; the naive marginals are off by more than 1
    assert r.upper == pytest.approx(s, abs=0.2)
    assert r.lower == pytest.approx(-s, abs=0.2)
    assert abs(naive.upper - s) > 1.0


def test_clipping_warns_and_clips():
    rng = np.random.default_rng(4)
    x, t, y = confounded(rng, 200)
    e = expit(1.5 * x)
    e[:3] = [0.001, 0.002, 0.9995]
    with pytest.warns(OverlapWarning, match="3 propensity scores"):
        r = joint_bounds(y, t, f="product", propensity=e, B=0, clip=0.01)
    ec = np.clip(e, 0.01, 0.99)
    w1, w0 = 1 / ec[t == 1], 1 / (1 - ec[t == 0])
    assert r.comonotone == pytest.approx(coupling_mean(y[t == 1], y[t == 0], f="product", weights1=w1, weights0=w0),
                                         rel=1e-12)
    assert "clipped to [0.01, 0.99]" in r.summary()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        joint_bounds(y, t, f="product", propensity=np.clip(e, 0.05, 0.95), B=0, clip=0.01)
    with pytest.raises(ValueError, match="clip must be below 0.5"):
        joint_bounds(y, t, f="product", propensity=ec, B=0, clip=0.5)


def test_assumption_given_x_differs_and_is_printed():
    rng = np.random.default_rng(5)
    n = 2000
    s = rng.integers(0, 3, n)
    t = (rng.uniform(size=n) < 0.5).astype(float)
    y = np.where(t == 1, 3 * s + rng.normal(size=n), -2 * s + rng.normal(size=n))
    given = joint_bounds(y, t, f="product", strata=s, assumption="comonotone given X", B=0)
    uncond = joint_bounds(y, t, f="product", strata=s, assumption="comonotone", B=0)
    assert "assumption: comonotone given X" in given.summary()
    assert "assumption: comonotone\n" in uncond.summary()
    assert given.estimate != pytest.approx(uncond.estimate, abs=0.5)
    # within strata Y1 rises and Y0 falls with s: the unconditional comonotone law contradicts the
    # conditional marginals and lies above the tightened upper bound; the result says so
    assert uncond.estimate > given.upper
    assert any("outside the covariate-tightened bounds" in note for note in uncond.notes)
    assert given.lower <= given.estimate <= given.upper
    assert given.strata_table.shape == (3, 5)


def test_strata_with_bootstrap_keeps_cells():
    rng = np.random.default_rng(6)
    n = 300
    s = rng.integers(0, 2, n)
    t = np.r_[np.ones(150), np.zeros(150)]
    y = rng.normal(size=n) + s
    r = joint_bounds(y, t, f="sq_diff", strata=s, assumption="comonotone given X", B=49, seed=1)
    assert r.set_conf_int[0] <= r.lower and r.upper <= r.set_conf_int[1]
    assert r.point_conf_int[0] <= r.estimate <= r.point_conf_int[1]
    assert "stratum-by-arm" in r.summary() or "strata" in r.summary()


def test_separation_warns_about_convergence_and_overlap():
    from statcore.coupling import ConvergenceWarning

    x = np.r_[np.linspace(-3, -1, 20), np.linspace(1, 3, 20)]
    t = np.r_[np.zeros(20), np.ones(20)]  # x separates the arms perfectly
    y = x + np.r_[np.zeros(20), np.ones(20)]
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        with pytest.warns(OverlapWarning):
            joint_bounds(y, t, f="product", X=x, B=0)


@pytest.mark.parametrize("strata", [
    [1.0, 1.0, 2.0, 2.0, np.nan, np.nan, 1.0, 2.0],
    ["a", "a", "b", "b", None, None, "a", "b"],
    pd.Series(["a", "a", "b", "b", pd.NA, "b", "a", "b"], dtype="string"),
    pd.Series(pd.Categorical(["a", "a", "b", "b", None, "b", "a", "b"])),
    pd.array([1, 1, 2, 2, None, 2, 1, 2], dtype="Int64"),
], ids=["float-nan", "object-none", "string-na", "categorical", "Int64"])
def test_missing_strata_values_are_refused(strata):
    # they formed a stratum of their own (NaN: one per value) and changed the bounds silently
    y, t = np.arange(8.0), np.array([0, 1] * 4)
    with pytest.raises(ValueError, match=r"strata has \d missing value\(s\).*first at position 4"):
        joint_bounds(y, t, f="product", strata=strata, B=0)
    with pytest.raises(ValueError, match=r"strata has \d missing value\(s\)"):
        makarov_bounds(y, t, delta=[0.0, 1.0], strata=strata)
