"""statcore.coupling through the one API: the bad-input sweep of every public function, the result
protocol of JointBounds and MakarovBounds, nan_policy and the one ConvergenceWarning."""
import dataclasses
import warnings

import numpy as np
import pandas as pd
import pytest
from apicheck import Spec, check_result_protocol, sweep_bad_inputs

import statcore.coupling as coupling
from statcore._warnings import ConvergenceWarning, StatcoreWarning
from statcore.coupling import (JointBounds, MakarovBounds, OverlapWarning, coupling_mean, identified_set_interval,
                               imbens_manski_interval, ite_variance_bounds, joint_bounds, makarov_bounds,
                               stoye_interval)

_rng = np.random.default_rng(20)
N = 24
Y = _rng.normal(size=N).round(2)
T = np.array([0, 1] * (N // 2))
XCOV = _rng.normal(size=(N, 2))
E = np.clip(0.5 + 0.1 * _rng.normal(size=N), 0.1, 0.9)
S = np.array([0, 0, 1, 1] * (N // 4))
W = _rng.uniform(0.5, 2.0, size=N)
Y1 = _rng.normal(size=9)
Y0 = _rng.normal(size=7)
DELTA = np.array([-1.0, 0.0, 1.0])

BAD_INPUT_SPECS = {
    "coupling_mean": Spec(coupling_mean, dict(y1=Y1, y0=Y0, f="product"), data=("y1", "y0"), paired=False),
    "joint_bounds": Spec(joint_bounds, dict(y=Y, treat=T, f="sq_diff", X=XCOV, B=0), data=("y", "treat", "X"),
                         ok={("X", "none")}),
    "ite_variance_bounds": Spec(ite_variance_bounds, dict(y=Y, treat=T, X=XCOV, B=0), data=("y", "treat", "X"),
                                ok={("X", "none")}),
    "makarov_bounds": Spec(makarov_bounds, dict(y=Y, treat=T, delta=DELTA), data=("y", "treat", "delta"),
                           ok={("delta", "short")}),
    "imbens_manski_interval": Spec(imbens_manski_interval,
                                   dict(lower=0.0, upper=1.0, se_lower=0.1, se_upper=0.2, conf_level=0.9),
                                   data=("lower", "upper", "se_lower", "se_upper"), paired=False,
                                   bounds=(("lower", "upper"),)),
    "stoye_interval": Spec(stoye_interval,
                           dict(lower=0.0, upper=1.0, se_lower=0.1, se_upper=0.2, rho=0.3, conf_level=0.9, n=100),
                           data=("lower", "upper", "se_lower", "se_upper"), paired=False,
                           bounds=(("lower", "upper"),)),
    "identified_set_interval": Spec(identified_set_interval,
                                    dict(lower=0.0, upper=1.0, se_lower=0.1, se_upper=0.2, rho=0.3, conf_level=0.9),
                                    data=("lower", "upper", "se_lower", "se_upper"), paired=False,
                                    bounds=(("lower", "upper"),)),
}

#: the optional data arguments, swept too; strata are labels (any hashable: "2" as text is a label too, so
#: numbers written as text are not refused there)
EXTRA_SPECS = {
    "coupling_mean[weights]": Spec(coupling_mean, dict(y1=Y1, y0=Y0, f="product", weights1=_rng.uniform(1, 2, 9),
                                                       weights0=_rng.uniform(1, 2, 7)),
                                   data=("weights1", "weights0"), ok={("weights1", "none"), ("weights0", "none")}),
    "joint_bounds[propensity, strata]": Spec(joint_bounds, dict(y=Y, treat=T, f="product", propensity=E, strata=S,
                                                                B=0), data=("propensity", "strata"),
                                             ok={("propensity", "none"), ("strata", "none"), ("strata", "numeric_text")}),
    "ite_variance_bounds[strata]": Spec(ite_variance_bounds, dict(y=Y, treat=T, strata=S, B=0), data=("strata",),
                                        ok={("strata", "none"), ("strata", "numeric_text")}),
    "makarov_bounds[weights, strata]": Spec(makarov_bounds, dict(y=Y, treat=T, delta=DELTA, weights=W, strata=S),
                                            data=("weights", "strata"), ok={("weights", "none"), ("strata", "none"), ("strata", "numeric_text")}),
}

RESULT_EXAMPLES = {
    "IdentifiedSetInterval": lambda: stoye_interval(0.0, 1.0, 0.1, 0.2, rho=0.3, conf_level=0.9, n=100),
    "JointBounds": lambda: joint_bounds(Y, T, f="abs_diff", assumption="comonotone", B=9, seed=1),
    "MakarovBounds": lambda: makarov_bounds(Y, T, delta=DELTA),
}

EXEMPT = {}


@pytest.mark.parametrize("name", sorted(BAD_INPUT_SPECS) + sorted(EXTRA_SPECS))
def test_bad_input_sweep(name):
    spec = BAD_INPUT_SPECS.get(name) or EXTRA_SPECS[name]
    assert sweep_bad_inputs(spec) == []


@pytest.mark.parametrize("name", sorted(RESULT_EXAMPLES))
def test_result_protocol(name):
    check_result_protocol(RESULT_EXAMPLES[name]())


def test_more_result_shapes_follow_the_protocol():
    # strata (given-X rows), no bootstrap, ite_variance_bounds (built by dataclasses.replace)
    check_result_protocol(joint_bounds(Y, T, f="product", strata=S, assumption="comonotone given X", B=0))
    check_result_protocol(ite_variance_bounds(Y, T, B=5, seed=2))
    check_result_protocol(makarov_bounds(Y, T, delta=0.5))
    df = joint_bounds(Y, T, f="product", strata=S, B=0).to_frame()
    assert list(df.index) == ["lower", "upper", "comonotone", "countercomonotone", "comonotone_given_x",
                              "countercomonotone_given_x"]
    assert list(df.columns) == ["estimate", "std_error"]


def test_results_are_frozen():
    r = RESULT_EXAMPLES["JointBounds"]()
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.lower = 0.0
    assert isinstance(r.notes, tuple)
    with pytest.raises(ValueError):
        r.boot["lower"][0] = 1.0
    with pytest.raises(TypeError):
        r.std_error["lower"] = 1.0
    m = RESULT_EXAMPLES["MakarovBounds"]()
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.upper = None
    with pytest.raises(ValueError):
        m.lower[0] = 1.0


def test_repr_is_compact():
    assert repr(joint_bounds(Y, T, f="sq_diff", B=0)).startswith("JointBounds(lower=")
    assert repr(makarov_bounds(Y, T, delta=DELTA)) == "MakarovBounds(n_delta=3, n1=12, n0=12, n_strata=1)"


# ----------------------------------------------------------------------------------------------
# nan_policy
# ----------------------------------------------------------------------------------------------

def test_nan_policy_omit_drops_the_units():
    y, t = Y.copy(), T.astype(float)
    y[3] = np.nan
    t[6] = np.nan
    keep = ~(np.isnan(y) | np.isnan(t))
    before = (y.copy(), t.copy())
    r = joint_bounds(y, t, f="sq_diff", B=0, nan_policy="omit")
    ref = joint_bounds(Y[keep], T[keep], f="sq_diff", B=0)
    assert (r.lower, r.upper) == (ref.lower, ref.upper)
    assert r.n1 + r.n0 == keep.sum() and "2 unit(s) with a missing value dropped" in r.summary()
    np.testing.assert_array_equal(y, before[0])
    np.testing.assert_array_equal(t, before[1])
    v = ite_variance_bounds(y, t, B=0, nan_policy="omit")
    assert v.lower == ite_variance_bounds(Y[keep], T[keep], B=0).lower
    m = makarov_bounds(y, t, delta=DELTA, nan_policy="omit")
    np.testing.assert_array_equal(m.lower, makarov_bounds(Y[keep], T[keep], delta=DELTA).lower)
    x = XCOV.copy()
    x[0, 1] = np.nan
    r = joint_bounds(Y, T, f="product", X=x, B=0, nan_policy="omit")
    assert r.n1 + r.n0 == N - 1
    with pytest.raises(ValueError, match="X contains 1 NaN"):
        joint_bounds(Y, T, f="product", X=x, B=0)


def test_nan_policy_omit_drops_missing_strata():
    s = S.astype(float)
    s[5] = np.nan
    keep = ~np.isnan(s)
    r = joint_bounds(Y, T, f="product", strata=s, B=0, nan_policy="omit")
    ref = joint_bounds(Y[keep], T[keep], f="product", strata=S[keep], B=0)
    assert (r.lower, r.upper) == (ref.lower, ref.upper)
    with pytest.raises(ValueError, match="strata has 1 missing value"):
        joint_bounds(Y, T, f="product", strata=s, B=0)


def test_nan_policy_of_coupling_mean():
    y1 = Y1.copy()
    y1[2] = np.nan
    assert np.isnan(coupling_mean(y1, Y0, f="product", nan_policy="propagate"))
    assert coupling_mean(y1, Y0, f="product", nan_policy="omit") == coupling_mean(np.delete(Y1, 2), Y0, f="product")
    w0 = np.ones(7)
    w0[1] = np.nan
    assert coupling_mean(Y1, Y0, f="product", weights0=w0, nan_policy="omit") == pytest.approx(
        coupling_mean(Y1, np.delete(Y0, 1), f="product"), rel=1e-14)
    with pytest.raises(ValueError, match="y1 contains 1 NaN"):
        coupling_mean(y1, Y0, f="product")


@pytest.mark.parametrize("func, args, kw", [(joint_bounds, (Y, T), {"f": "product", "B": 0}),
                                            (ite_variance_bounds, (Y, T), {"B": 0}),
                                            (makarov_bounds, (Y, T), {"delta": DELTA})])
def test_propagate_is_refused_where_it_makes_no_sense(func, args, kw):
    with pytest.raises(ValueError, match="nan_policy"):
        func(*args, nan_policy="propagate", **kw)


def test_series_in_series_out_for_makarov():
    d = pd.Series(DELTA, index=["a", "b", "c"])
    r = makarov_bounds(pd.Series(Y), T, delta=d)
    assert list(r.lower.index) == ["a", "b", "c"]


# ----------------------------------------------------------------------------------------------
# scalar checks, JointBounds.std_error, one ConvergenceWarning
# ----------------------------------------------------------------------------------------------

def test_interval_helpers_refuse_bad_scalars():
    with pytest.raises(ValueError, match="se_lower must be non-negative"):
        imbens_manski_interval(0.0, 1.0, -0.1, 0.2)
    with pytest.raises(ValueError, match="rho must be a correlation"):
        stoye_interval(0.0, 1.0, 0.1, 0.2, rho=1.5, n=10)
    with pytest.raises(ValueError, match="conf_level"):
        imbens_manski_interval(0.0, 1.0, 0.1, 0.2, conf_level=1.0)


def test_joint_bounds_has_std_error_only():
    r = RESULT_EXAMPLES["JointBounds"]()
    assert not hasattr(r, "se") and set(r.std_error) >= {"lower", "upper"}


def test_one_convergence_warning():
    from statcore.coupling import ConvergenceWarning as old_name
    from statcore.coupling._design import ConvergenceWarning as older_name

    assert old_name is ConvergenceWarning and older_name is ConvergenceWarning
    assert "ConvergenceWarning" not in coupling.__all__
    assert issubclass(OverlapWarning, StatcoreWarning)
    x = np.r_[np.linspace(-3, -1, 12), np.linspace(1, 3, 12)]
    t = np.r_[np.zeros(12), np.ones(12)]
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        joint_bounds(x + t, t, f="product", X=x, B=0)
    assert any(issubclass(w.category, ConvergenceWarning) for w in rec)


def test_result_classes_exported():
    assert JointBounds.__module__.startswith("statcore.coupling")
    assert MakarovBounds.__module__.startswith("statcore.coupling")
