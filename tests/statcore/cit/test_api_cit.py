"""statcore.cit's API: the bad-input sweep of every public function, the result protocol of every
result class, Hommel's global test by its one name, nan_policy."""
import warnings

import numpy as np
import pandas as pd
import pytest

import apicheck
from statcore.cit import (GCMWarning, RegressionFit, SkeletonResult, SpectralSmoother, fit_residualizer,
                          fit_residualizers, gcm_test, parcor_pvalues, pc_skeleton, random_directions,
                          residualize, rpcit)
from statcore.cit._causallearn import register_causallearn_tests
from statcore.cit._forests import ForestSmoother
from statcore._warnings import StatcoreWarning


def _data(n=40, seed=0):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, 2))
    x = z @ [1.0, 0.5] + rng.normal(size=n)
    y = z @ [0.3, -1.0] + rng.normal(size=n)
    return x, y, z


X, Y, Z = _data()
X2 = np.column_stack([X, np.sin(Z[:, 0]) + np.random.default_rng(3).normal(size=40)])
Y2 = np.column_stack([Y, np.cos(Z[:, 1]) + np.random.default_rng(4).normal(size=40)])
RX, RY = residualize(X2, Z), residualize(Y2, Z)
FRAME = pd.DataFrame({"A": X, "B": Y, "C": Z[:, 0]})

#: z may be None (plain independence), and x, y may be None when their residuals are given
_Z_NONE = {("z", "none")}

BAD_INPUT_SPECS = {
    "gcm_test": apicheck.Spec(gcm_test, {"x": X, "y": Y, "z": Z}, data=("x", "y", "z"), ok=_Z_NONE),
    "gcm_test[resid]": apicheck.Spec(gcm_test, {"x": None, "y": None, "resid_x": RX, "resid_y": RY, "seed": 0,
                                                "B": 19},
                                     data=("resid_x", "resid_y")),
    "rpcit": apicheck.Spec(rpcit, {"x": X2, "y": Y2, "z": Z, "k": 5, "seed": 0}, data=("x", "y", "z"), ok=_Z_NONE),
    "rpcit[resid]": apicheck.Spec(rpcit, {"x": None, "y": None, "resid_x": RX, "resid_y": RY, "k": 5, "seed": 0},
                                  data=("resid_x", "resid_y")),
    "residualize": apicheck.Spec(residualize, {"v": X2, "z": Z}, data=("v", "z"), ok=_Z_NONE),
    "fit_residualizer": apicheck.Spec(fit_residualizer, {"v": X2, "z": Z}, data=("v", "z"), ok=_Z_NONE),
    "fit_residualizers": apicheck.Spec(fit_residualizers, {"vs": [X2, Y2], "z": Z}, data=("vs", "z"), ok=_Z_NONE),
    "parcor_pvalues": apicheck.Spec(parcor_pvalues, {"rx": RX, "ry": RY, "wx": np.eye(2), "wy": np.eye(2), "q": 2},
                                    data=("rx", "ry", "wx", "wy")),
    "random_directions": apicheck.Spec(random_directions, {"d": 3, "k": 4, "seed": 0}, data=("d", "k"),
                                       paired=False),
    "pc_skeleton": apicheck.Spec(pc_skeleton, {"data": FRAME, "test": "gcm"}, data=("data",), paired=False),
}

EXEMPT = {"register_causallearn_tests": "takes no data: it registers statcore's tests with causal-learn"}


def _skeleton():
    return pc_skeleton(FRAME, test="gcm")


RESULT_EXAMPLES = {
    "SkeletonResult": _skeleton,
    "RegressionFit": lambda: fit_residualizer(X2, Z, regression="ridge"),
    "SpectralSmoother": lambda: fit_residualizer(X2, Z, regression="krr").smoother,
    "ForestSmoother": lambda: fit_residualizer(X2, Z, regression="rf", seed=0).smoother,
    "PartialCorrelationTests": lambda: parcor_pvalues(RX, RY, np.eye(2), np.eye(2), q=2),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUT_SPECS))
def test_bad_inputs(name):
    assert apicheck.sweep_bad_inputs(BAD_INPUT_SPECS[name]) == []


@pytest.mark.parametrize("name", sorted(RESULT_EXAMPLES))
def test_result_protocol(name):
    apicheck.check_result_protocol(RESULT_EXAMPLES[name]())


def test_results_are_frozen_and_compact():
    res = _skeleton()
    with pytest.raises(AttributeError):
        res.alpha = 0.5
    assert isinstance(res, SkeletonResult) and res.nodes == ("A", "B", "C")
    fit = fit_residualizer(X2, Z)
    assert isinstance(fit, RegressionFit) and not fit.residuals.flags.writeable
    assert isinstance(fit.smoother, SpectralSmoother)
    assert repr(fit) == "RegressionFit(regression='ols', n=40, d=2, df=3)"
    assert isinstance(RESULT_EXAMPLES["ForestSmoother"](), ForestSmoother)
    # residualize hands back a writeable array of its own
    r = residualize(X2, Z)
    r[0, 0] = 1.0


def test_gcm_warning_is_a_statcore_warning():
    assert issubclass(GCMWarning, StatcoreWarning)


# ----------------------------------------------------------------------------------------------
# Hommel's global test is "hommel_global" ("hommel" is p_adjust's adjustment, not an aggregate)
# ----------------------------------------------------------------------------------------------

def test_rpcit_hommel():
    res = rpcit(X2, Y2, Z, k=6, aggregate="hommel_global", seed=2)
    assert "Hommel (1983)" in res.method
    with pytest.raises(ValueError, match="unknown aggregate 'hommel'"):
        rpcit(X2, Y2, Z, k=6, aggregate="hommel", seed=2)


# ----------------------------------------------------------------------------------------------
# nan_policy
# ----------------------------------------------------------------------------------------------

def _with_nans():
    x, y, z = X.copy(), Y.copy(), Z.copy()
    x[3], y[7], z[11, 1] = np.nan, np.nan, np.nan
    keep = np.ones(40, bool)
    keep[[3, 7, 11]] = False
    return x, y, z, keep


def test_nan_policy_omit_drops_the_rows_with_a_nan():
    x, y, z, keep = _with_nans()
    for func, kw in ((gcm_test, {}), (rpcit, {"k": 4, "seed": 1})):
        with pytest.raises(ValueError, match="x contains 1 NaN"):
            func(x, y, z, **kw)
        omitted = func(x, y, z, nan_policy="omit", **kw)
        assert omitted == func(x[keep], y[keep], z[keep], **kw)
        assert omitted.extras["n"] == 37
        with pytest.raises(ValueError, match="nan_policy"):
            func(x, y, z, nan_policy="propagate", **kw)
    r = residualize(pd.Series(x, index=[f"i{k}" for k in range(40)]), z, nan_policy="omit")
    assert list(r.index) == [f"i{k}" for k in np.flatnonzero(np.isfinite(x) & np.isfinite(z).all(axis=1))]
    np.testing.assert_allclose(r.to_numpy(), residualize(x[np.isfinite(x) & np.isfinite(z).all(axis=1)],
                                                         z[np.isfinite(x) & np.isfinite(z).all(axis=1)])[:, 0])
    frame = FRAME.copy()
    frame.iloc[5, 1] = np.nan
    res = pc_skeleton(frame, test="gcm", nan_policy="omit")
    pd.testing.assert_frame_equal(res.tests, pc_skeleton(frame.dropna(), test="gcm").tests)
    with pytest.raises(ValueError, match="data contains 1 NaN"):
        pc_skeleton(frame, test="gcm")


def test_inputs_with_nans_are_not_modified():
    x, y, z, _ = _with_nans()
    xs = pd.Series(x)
    before = xs.copy(), y.copy(), z.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gcm_test(xs, y, z, nan_policy="omit")
    pd.testing.assert_series_equal(xs, before[0])
    np.testing.assert_array_equal(y, before[1])
    np.testing.assert_array_equal(z, before[2])


def test_parcor_pvalues_is_a_vectorised_htest_matching_scipy():
    """With q = 0 and centred data the partial correlation is Pearson's r of the projections, and
    its t test is scipy.stats.pearsonr's (t on n - 2 df)."""
    from scipy import stats

    from statcore import HTest, PartialCorrelationTests

    rng = np.random.default_rng(8)
    x, y = rng.normal(size=(60, 3)), rng.normal(size=(60, 2))
    y[:, 0] += 0.5 * x[:, 0]
    rx, ry = x - x.mean(0), y - y.mean(0)
    wx, wy = rng.normal(size=(3, 4)), rng.normal(size=(2, 4))
    res = parcor_pvalues(rx, ry, wx, wy, q=0)
    assert isinstance(res, PartialCorrelationTests) and isinstance(res, HTest) and res.df == 58
    for j in range(4):
        ref = stats.pearsonr(rx @ wx[:, j], ry @ wy[:, j])
        assert res.rho[j] == pytest.approx(ref.statistic, rel=1e-12)
        assert res.p_value[j] == pytest.approx(ref.pvalue, rel=1e-9)
        assert res.statistic[j] == pytest.approx(ref.statistic * np.sqrt(58 / (1 - ref.statistic ** 2)), rel=1e-12)
    stat, p = res
    assert stat is res.statistic and p is res.p_value
    fisher = parcor_pvalues(rx, ry, wx, wy, q=0, method="fisher")
    assert fisher.statistic == pytest.approx(np.arctanh(res.rho) * np.sqrt(57), rel=1e-12) and fisher.df is None
