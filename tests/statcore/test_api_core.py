"""The core of the one API: HTest under the result protocol, the freezing rules, statcore.utils,
nan_policy and the input door's rule on text."""
import dataclasses
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

import statcore as sc
from apicheck import check_result_protocol
from statcore._checks import apply_nan_policy, check_nan_policy
from statcore._result import FrozenDict, Result, freeze, snake_case
from statcore.utils import check_seed, effective_n_jobs, lazy_njit, thread_limit


def _htest():
    return sc.HTest(statistic=2.5, statistic_name="t", parameter={"df": 9.0}, p_value=0.0339,
                    method="One Sample t-test", data_name="x", null_value={"mean": 0.0},
                    conf_int=(0.1, 2.0), conf_level=0.95, estimate={"mean of x": 1.05},
                    extras={"draws": np.arange(3.0)})


RESULT_EXAMPLES = {"HTest": _htest}
EXEMPT = {}
BAD_INPUT_SPECS = {}


@pytest.mark.parametrize("name", sorted(RESULT_EXAMPLES))
def test_result_protocol(name):
    check_result_protocol(RESULT_EXAMPLES[name]())


def test_htest_is_frozen_deeply():
    h = _htest()
    with pytest.raises(dataclasses.FrozenInstanceError):
        h.p_value = 0.5
    with pytest.raises(TypeError):
        h.parameter["df"] = 3.0
    with pytest.raises(ValueError):
        h.extras["draws"][0] = 1.0
    # a result pickles (joblib workers send them back) and stays frozen
    back = pickle.loads(pickle.dumps(h))
    assert back == h and isinstance(back.parameter, FrozenDict)


def test_freeze_does_not_touch_the_callers_array():
    a = np.arange(3.0)
    frozen = freeze({"a": a, "l": [a]})
    assert a.flags.writeable and not frozen["a"].flags.writeable and isinstance(frozen["l"], tuple)


def test_snake_case():
    assert snake_case("mean of x") == "mean_of_x"
    assert snake_case("Pr(>Chisq)") == "pr_chisq"
    assert snake_case("evidence.ratio") == "evidence_ratio"
    assert snake_case("deltaAIC") == "delta_aic"


def test_mutable_dataclass_subclass_is_refused():
    @dataclasses.dataclass
    class Mutable(Result):
        x: int = 1

    with pytest.raises(dataclasses.FrozenInstanceError):
        Mutable()


def test_warning_hierarchy():
    assert issubclass(sc.ConvergenceWarning, sc.StatcoreWarning)
    assert issubclass(sc.StatcoreWarning, UserWarning)


# ----------------------------------------------------------------------------------------------
# statcore.utils
# ----------------------------------------------------------------------------------------------

def test_check_seed():
    g = np.random.default_rng(3)
    assert check_seed(g) is g
    assert check_seed(5).random() == check_seed(5).random()
    with pytest.raises(ValueError, match="seed"):
        check_seed(-1)                                    # numpy refuses negative seeds too
    with pytest.raises(TypeError, match="seed"):
        check_seed(np.random.RandomState(1))
    with pytest.raises(TypeError, match="seed"):
        check_seed(1.5)


def test_n_jobs():
    assert effective_n_jobs(3) == 3
    assert effective_n_jobs(-1) >= 1
    with pytest.raises(ValueError, match="n_jobs"):
        effective_n_jobs(0)
    with pytest.raises(TypeError, match="n_jobs"):
        effective_n_jobs(1.5)


def test_thread_limit_restores():
    import numba

    from threadpoolctl import threadpool_info

    before_numba = numba.get_num_threads()
    before_blas = [p["num_threads"] for p in threadpool_info()]
    with thread_limit(1):
        assert numba.get_num_threads() == 1
        assert all(p["num_threads"] == 1 for p in threadpool_info())
    assert numba.get_num_threads() == before_numba
    assert [p["num_threads"] for p in threadpool_info()] == before_blas
    with pytest.raises(ValueError, match="n"):
        with thread_limit(0):
            pass


def test_lazy_njit_compiles_on_first_call():
    @lazy_njit
    def add(a, b):
        return a + b

    assert add._compiled is None
    assert add(2.0, 3.0) == 5.0 and add._compiled is not None


# ----------------------------------------------------------------------------------------------
# nan_policy and text at the input door
# ----------------------------------------------------------------------------------------------

def test_nan_policy():
    x = np.array([1.0, np.nan, 3.0, 4.0])
    y = np.array([[1.0, 2.0], [3.0, 4.0], [np.nan, 1.0], [0.0, 0.0]])
    with pytest.raises(ValueError, match=r"x contains 1 NaN value; .*nan_policy='omit'"):
        apply_nan_policy("raise", x=x, y=y)
    res = apply_nan_policy("omit", x=x, y=y)
    xs, ys = res
    np.testing.assert_array_equal(res.keep, [True, False, False, True])
    np.testing.assert_array_equal(xs, [1.0, 4.0]) and ys.shape == (2, 2)
    assert apply_nan_policy("propagate", x=x, y=y).propagate
    clean = apply_nan_policy("raise", x=np.ones(3), y=None)
    assert clean.keep is None and not clean.propagate
    with pytest.raises(ValueError, match="every observation"):
        apply_nan_policy("omit", x=np.array([np.nan]))
    with pytest.raises(ValueError, match="nan_policy"):
        check_nan_policy("drop")
    with pytest.raises(ValueError, match="nan_policy"):
        check_nan_policy("propagate", allowed=("raise", "omit"))


@pytest.mark.parametrize("text", [
    ["1.5", "2", "3"], np.array(["1.5", "2", "3"]), np.array([b"1.5", b"2", b"3"]),
    np.array(["1.5", 2.0, 3.0], dtype=object), pd.Series(["1.5", "2", "3"]),
    pd.Series(["1.5", "2", "3"], dtype="string"), pd.DataFrame({"a": ["1", "2"], "b": [1.0, 2.0]}), "1.5",
])
def test_text_is_refused_at_the_door_even_when_it_reads_as_numbers(text):
    """One rule (statcore._checks.refuse_text): text where numbers are expected is a TypeError naming the
    argument, numbers written as text ("1.5") included, as R's cor and wilcox.test refuse a character
    vector ("'x' must be numeric") and pROC's roc a character predictor; never converted."""
    from statcore._checks import as_float_array, as_treatment, refuse_text

    with pytest.raises(TypeError, match="scores must be numeric"):
        as_float_array(text, "scores")
    with pytest.raises(TypeError, match="scores must be numeric"):
        refuse_text(text, "scores")
    # the same rule behind a public function, whatever its own conversions: dcor (public_function's NaN
    # scan does not read "nan" as a missing value), roc's scores
    with pytest.raises(TypeError, match="x must be numeric"):
        sc.dcor(text if np.ndim(text) == 1 else ["1", "nan", "3"], [1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="score must be numeric"):
        sc.roc([0, 1, 0], ["0.1", "0.9", "0.2"])
    # a function whose NaN rule the decorator applies: "nan" as text is text, not a missing value
    with pytest.raises(TypeError, match="prob must be numeric"):
        sc.calibration_error([1.0, 0.0, 1.0, 0.0], ["0.2", "nan", "0.5", "0.1"])
    with pytest.raises(TypeError, match="treat must be numeric"):
        as_treatment(np.array(["1", "0", "1"]), 3)


def test_numbers_in_an_object_array_still_pass_the_door():
    from statcore._checks import as_float_array

    np.testing.assert_array_equal(as_float_array(np.array([1.5, 2, 3], dtype=object), "x"), [1.5, 2.0, 3.0])
    np.testing.assert_array_equal(as_float_array(pd.Series([1.5, 2, 3], dtype=object), "x"), [1.5, 2.0, 3.0])
    assert sc.dcor(pd.Series([1.0, 2.0, 3.0, 5.0], dtype=object), [1.0, 2.0, 3.0, 4.0]) > 0.9
    with pytest.raises(ValueError, match="x contains 1 NaN"):   # a real NaN is a NaN
        sc.dcor(np.array([1.0, np.nan, 3.0], dtype=object), [1.0, 2.0, 3.0])


def test_public_surface_has_utils_and_result():
    assert sc.Result is Result
    assert sc.utils.check_seed is check_seed
    assert isinstance(sc.HTest(statistic=1.0, p_value=0.5).to_frame(), pd.DataFrame)


