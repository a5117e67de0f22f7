"""modelsel's API: the bad-input sweep of every public function, the result protocol of every result
class."""
import warnings

import numpy as np
import pytest
from scipy import stats

import statcore as sc
from statcore import LogLik
from apicheck import Spec, check_result_protocol, sweep_bad_inputs

SMALL, LARGE = LogLik(-45.2, 3, 40), LogLik(-43.1, 4, 40)
SAMPLE = np.array([0.3, -1.2, 0.8, 1.9, -0.4, 0.1, 2.2, -0.7])


def _group_fits(G=4):
    return {f"g{i}": {"1L": LogLik(-500.0 - i, 5, 1000), "2NL": LogLik(-490.0 - 3 * i, 11, 1000)}
            for i in range(G)}


def loglik_scipy_triple(data):
    """loglik of a (distribution, params, data) triple: the sweep reaches the data inside it."""
    return sc.loglik((stats.norm, (0.0, 1.0), data))


_GM = None


def loglik_gaussian_mixture(X):
    """loglik of a (GaussianMixture, X) pair: the sweep reaches X inside it."""
    global _GM
    if _GM is None:
        from sklearn.mixture import GaussianMixture

        rng = np.random.default_rng(0)
        _GM = GaussianMixture(2, random_state=0).fit(np.r_[rng.normal(-2, 1, (40, 2)), rng.normal(2, 1, (40, 2))])
    return sc.loglik((_GM, X))


#: fitted models are not arrays: the harness can turn a LogLik into a 0-d array (through float())
#: but not a dict of dicts, so compare_by_group's mapping is swept with the kinds it can build
MAPPING_KINDS = ("empty", "string", "none")

BAD_INPUT_SPECS = {
    "loglik": Spec(sc.loglik, {"model": SMALL}, data=("model",), paired=False),
    "aic": Spec(sc.aic, {"m1": SMALL, "m2": LARGE, "k": 2.0}, data=("m1", "m2"), paired=False),
    "bic": Spec(sc.bic, {"m1": SMALL, "m2": LARGE}, data=("m1", "m2"), paired=False),
    "aicc": Spec(sc.aicc, {"m1": SMALL, "m2": LARGE}, data=("m1", "m2"), paired=False),
    "compare_models": Spec(sc.compare_models, {"models": [SMALL, LARGE], "criterion": "AIC"},
                           data=("models",), paired=False),
    "lrtest": Spec(sc.lrtest, {"m0": SMALL, "m1": LARGE}, data=("m0", "m1"), paired=False),
    "compare_by_group": Spec(sc.compare_by_group, {"fits": _group_fits(), "B": 20, "seed": 1},
                             data=("fits",), paired=False, kinds=MAPPING_KINDS),
    # the data inside the adapters' tuples (data of a scipy triple is flattened, as documented)
    "loglik_scipy_triple": Spec(loglik_scipy_triple, {"data": SAMPLE}, data=("data",), paired=False,
                                ok={("data", "wrong_ndim")}),
    "loglik_gaussian_mixture": Spec(loglik_gaussian_mixture, {"X": np.column_stack([SAMPLE, SAMPLE[::-1]])},
                                    data=("X",), paired=False),
}

RESULT_EXAMPLES = {
    "LogLik": lambda: LogLik(-45.2, 3, 40),
    "ICTable": lambda: sc.aic(small=SMALL, large=LARGE),
    "ModelComparison": lambda: sc.compare_models({"small": SMALL, "large": LARGE}),
    "GroupComparison": lambda: sc.compare_by_group(_group_fits(), B=20, seed=1),
}

EXEMPT = {}


@pytest.mark.parametrize("name", sorted(BAD_INPUT_SPECS))
def test_bad_inputs(name):
    assert sweep_bad_inputs(BAD_INPUT_SPECS[name]) == []


@pytest.mark.parametrize("name", sorted(RESULT_EXAMPLES))
def test_result_protocol(name):
    check_result_protocol(RESULT_EXAMPLES[name]())


def test_loglik_repr_and_print_like_r():
    ll = LogLik(-935.7783712345, 8, 2000)
    assert repr(ll) == "LogLik(value=-935.7783712345, df=8, nobs=2000)"
    assert str(ll) == ll.summary() == "'log Lik.' -935.7784 (df=8)"
    assert list(ll.to_frame().columns) == ["loglik", "df", "nobs"]


def test_to_frame_columns_snake_case_per_criterion():
    for crit, c in (("AIC", "aic"), ("BIC", "bic"), ("AICc", "aicc")):
        frame = sc.compare_models({"small": SMALL, "large": LARGE}, criterion=crit).to_frame()
        assert list(frame.columns) == ["df", "loglik", c, f"delta_{c}", "weight", "evidence_ratio", "cum_weight"]
        assert list(sc.compare_by_group(_group_fits(), criterion=crit, B=0).to_frame().columns) == [
            "wins", "share", f"sum_{c}", f"sum_delta_{c}", f"diff_sum_{c}"]


def test_results_are_frozen():
    res = sc.compare_models({"small": SMALL, "large": LARGE})
    with pytest.raises(Exception):
        res.criterion = "BIC"
    with pytest.raises(ValueError):
        res.weight[0] = 0.0


def test_group_comparison_keeps_the_fits_by_reference():
    fits = _group_fits()
    res = sc.compare_by_group(fits, B=0)
    assert res.fits["g1"]["2NL"] is fits["g1"]["2NL"]
    assert list(res.fits) == list(fits)
    with pytest.raises(TypeError):
        res.fits["g9"] = {}
    assert "fits" not in repr(res)


def test_errors_name_the_model_they_came_from():
    with pytest.raises(TypeError, match=r"^quadratic: loglik\(\) does not know"):
        sc.aic(linear=SMALL, quadratic="not a fit")
    with pytest.raises(TypeError, match=r"^models\['b'\]"):
        sc.compare_models({"a": SMALL, "b": object()})
    with pytest.raises(TypeError, match=r"^m1: "):
        sc.lrtest(SMALL, None)
    with pytest.raises(TypeError, match=r"^fits\['g0'\]\['2NL'\]: "):
        sc.compare_by_group({"g0": {"1L": SMALL, "2NL": 3}}, B=0)


def test_loglik_constructor_and_df_checks_name_the_argument():
    with pytest.raises(TypeError, match="value must be a real number"):
        LogLik("a", 2, 10)
    with pytest.raises(ValueError, match="df must be a non-negative number"):
        LogLik(-1.0, -2, 10)
    with pytest.raises(ValueError, match="nobs must be a positive number"):
        LogLik(-1.0, 2, 0)
    with pytest.raises(ValueError, match="df must be a non-negative number"):
        sc.loglik(SMALL, df=-1)
    with pytest.raises(ValueError, match="k must be a finite non-negative penalty"):
        sc.aic(SMALL, k=-1.0)
    assert LogLik(-1.0, 2.0, 10.0).df == 2 and isinstance(LogLik(-1.0, 2.0, 10.0).nobs, int)
