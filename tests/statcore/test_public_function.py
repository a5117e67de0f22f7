"""statcore.utils.public_function: the one decorator of public functions that take data."""
import inspect

import numpy as np
import pandas as pd
import pytest

import statcore
from statcore.utils import check_aligned_indexes, public_function


@public_function(data=("x", "y"), nan_policy=("raise", "omit"), samples="paired")
def _paired(x, y, *, scale=1.0):
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    return scale * float(np.sum(x * y)), x.size


@public_function(data=("x", "y"), nan_policy=("raise", "omit"), samples="independent")
def _two_sample(x, y):
    return np.asarray(x, dtype=float).shape[0], np.asarray(y, dtype=float).shape[0]


@public_function(data=("x",), nan_policy=("raise", "omit"))
def _series(x):
    return x * 2 if isinstance(x, pd.Series) else np.asarray(x) * 2


def test_nan_policy_is_added_keyword_only_with_the_first_policy_as_default():
    p = inspect.signature(_paired).parameters["nan_policy"]
    assert p.kind is p.KEYWORD_ONLY and p.default == "raise"
    assert _paired.__name__ == "_paired" and _paired.__public_function__["data"] == ("x", "y")


def test_raise_names_the_argument_and_the_count():
    with pytest.raises(ValueError, match=r'y contains NaN \(2 values\); pass nan_policy="omit"'):
        _paired([1.0, 2.0, 3.0], [np.nan, 1.0, np.nan])
    with pytest.raises(ValueError, match="unknown nan_policy .propagate.; choose one of .raise., .omit."):
        _paired([1.0], [1.0], nan_policy="propagate")


def test_omit_paired_equals_the_call_on_the_complete_rows():
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=20), rng.normal(size=20)
    xn, yn = x.copy(), y.copy()
    xn[[2, 7]] = np.nan
    yn[[7, 11]] = np.nan
    keep = ~(np.isnan(xn) | np.isnan(yn))
    assert _paired(xn, yn, nan_policy="omit", scale=2.0) == _paired(x[keep], y[keep], scale=2.0)
    assert np.isnan(xn[2]) and np.isnan(yn[11])          # inputs never modified
    with pytest.raises(ValueError, match="nothing is left"):
        _paired([np.nan], [1.0], nan_policy="omit")


def test_omit_independent_cleans_each_sample_on_its_own():
    x = np.ones((6, 2))
    x[1, 0] = np.nan
    y = np.ones((4, 2))
    y[[0, 3], 1] = np.nan
    assert _two_sample(x, y, nan_policy="omit") == (5, 2)


def test_pandas_rows_keep_their_index_and_misaligned_indexes_are_refused():
    s = pd.Series([1.0, np.nan, 3.0], index=["a", "b", "c"])
    out = _series(s, nan_policy="omit")
    assert list(out.index) == ["a", "c"] and out.tolist() == [2.0, 6.0]
    x = pd.Series([1.0, 2.0, 3.0], index=[0, 1, 2])
    with pytest.raises(ValueError, match="x and y are pandas objects with different indexes"):
        _paired(x, pd.Series([1.0, 2.0, 3.0], index=[2, 1, 0]))
    assert _paired(x, pd.Series([1.0, 2.0, 3.0], index=[0, 1, 2]))[0] == 14.0
    assert _paired(x, np.array([1.0, 2.0, 3.0]))[0] == 14.0     # one pandas input: nothing to align
    check_aligned_indexes(x=x, y=None, z=[1, 2, 3])


def test_the_signature_rule_is_enforced_when_the_function_is_defined():
    with pytest.raises(TypeError, match="keyword-only"):
        @public_function(data=("x",), nan_policy=None)
        def f(x, k):
            return x
    with pytest.raises(TypeError, match="list the policies"):
        @public_function(data=("x",), nan_policy=None)
        def g(x, *, nan_policy="raise"):
            return x


def test_a_function_with_its_own_nan_policy_gets_the_value_checked():
    seen = []

    @public_function(data=("x",), nan_policy=("raise", "omit"))
    def h(x, *, nan_policy="raise"):
        seen.append(nan_policy)
        return x

    h([1.0, np.nan], nan_policy="omit")
    assert seen == ["omit"]
    with pytest.raises(ValueError, match="nan_policy"):
        h([1.0], nan_policy="propagate")


def test_a_complete_argument_outside_rows_is_refused_whatever_the_policy():
    @public_function(data=("density", "grid"), nan_policy=("raise", "omit"), rows=("density",))
    def k(density, grid):
        return np.asarray(density).shape

    assert k([[1.0, np.nan], [1.0, 2.0]], [0.0, 1.0], nan_policy="omit") == (1, 2)
    with pytest.raises(ValueError, match="grid must be complete"):
        k([[1.0, 2.0]], [0.0, np.nan], nan_policy="omit")


def test_public_in_utils():
    assert "public_function" in statcore.utils.__all__ and "check_aligned_indexes" in statcore.utils.__all__


# ---------------------------------------------------------------------------------------------
# nan_policy through the decorator on the functions that lacked it: "omit" equals the call on the
# complete rows; "raise" names the argument; policies a function does not allow are refused
# ---------------------------------------------------------------------------------------------

_R = np.random.default_rng(29)
_X, _Y = _R.normal(size=(40, 3)), _R.normal(0.3, 1.0, size=(35, 3))
_YB, _P = (_R.uniform(size=60) < 0.4).astype(float), _R.uniform(0.05, 0.95, size=60)
_H = _R.normal(size=(8, 5))
_HS, _LOGITS = _R.normal(size=(2, 8, 5)), _R.normal(size=(8, 12))
_S = _R.normal(size=50)
_COV = (_R.uniform(size=80) < 0.9).astype(float)
_GRID = np.linspace(-4, 4, 81)
_DENS = np.exp(-0.5 * (_GRID[None, :] - _R.normal(size=(30, 1))) ** 2) / np.sqrt(2 * np.pi)
_YD = _R.normal(size=30)


def _nan_at(a, rows, col=0):
    a = np.array(a, dtype=float)
    for r in rows:
        if a.ndim == 1:
            a[r] = np.nan
        elif a.ndim == 2:
            a[r, col] = np.nan
        else:
            a[0, r, col] = np.nan        # a stack of per-layer matrices: rows on axis -2
    return a


OMIT_CASES = {
    "frechet_distance": (statcore.frechet_distance, {"x": _X, "y": _Y}, {}, {"x": [3], "y": [0, 7]}, "independent"),
    "fid_infinity": (statcore.fid_infinity, {"x": _X, "y": _Y}, {"ns": [15, 20, 25], "seed": 1},
                     {"x": [3], "y": [0]}, "independent"),
    "kid": (statcore.kid, {"x": _X, "y": _Y}, {"subsets": 5, "subset_size": 10, "seed": 1}, {"y": [4]}, "independent"),
    "mmd_test": (statcore.mmd_test, {"x": _X, "y": _Y}, {"B": 19, "seed": 1}, {"x": [5, 6]}, "independent"),
    "energy_test": (statcore.energy_test, {"x": _X, "y": _Y}, {"B": 19, "seed": 1}, {"x": [1], "y": [2]}, "independent"),
    "prdc": (statcore.prdc, {"x": _X, "y": _Y}, {"k": 3}, {"x": [0], "y": [9]}, "independent"),
    "calibration_error": (statcore.calibration_error, {"y": _YB, "prob": _P}, {"n_bins": 5},
                          {"y": [2], "prob": [2, 10]}, "paired"),
    "renyi_matrix_entropy": (statcore.renyi_matrix_entropy, {"H": _H}, {}, {"H": [3]}, "paired"),
    "glu_score": (statcore.glu_score, {"hidden_states": _HS, "logits": _LOGITS}, {"k": 3},
                  {"hidden_states": [2], "logits": [5]}, "tokens"),
    "conformal_quantile": (statcore.conformal_quantile, {"scores": _S}, {"alpha": 0.1}, {"scores": [4, 8]}, "paired"),
    "coverage_test": (statcore.coverage_test, {"covered": _COV}, {"alpha": 0.1}, {"covered": [0]}, "paired"),
    "conformal_density_scores": (statcore.conformal_density_scores, {"density": _DENS, "grid": _GRID, "y": _YD}, {},
                                 {"density": [1], "y": [4]}, "paired"),
}


def _same(a, b):
    if isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(a, b)
    elif isinstance(a, (float, np.floating, np.ndarray)):
        np.testing.assert_array_equal(a, b)
    else:
        assert repr(a) == repr(b) and a.summary() == b.summary()


@pytest.mark.parametrize("name", sorted(OMIT_CASES))
def test_omit_equals_the_call_on_the_complete_rows(name):
    func, data, kw, nans, how = OMIT_CASES[name]
    dirty = {k: _nan_at(v, nans.get(k, [])) if k in nans else v for k, v in data.items()}
    first = next(k for k in nans)
    with pytest.raises(ValueError, match=rf"{first} contains NaN \(\d+ value"):
        func(**dirty, **kw)
    if how == "independent":
        clean = {k: np.delete(v, nans.get(k, []), axis=0) if k in nans else v for k, v in data.items()}
    else:
        drop = sorted({r for rows in nans.values() for r in rows})
        axis_of = {"hidden_states": 1}
        clean = {k: (np.delete(v, drop, axis=axis_of.get(k, 0)) if k in ("hidden_states", "logits", "H", "density",
                                                                              "y", "prob", "scores", "covered")
                     else v) for k, v in data.items()}
    _same(func(**dirty, **kw, nan_policy="omit"), func(**clean, **kw))


@pytest.mark.parametrize("func, data, kw, bad", [
    (statcore.rank_stability, {"scores": np.array([[1.0, 2.0], [np.nan, 1.0], [3.0, 3.0]])}, {}, "scores"),
    (statcore.evidential_token_uncertainty, {"logits": _nan_at(_LOGITS, [2])}, {"k": 3}, "logits"),
    (statcore.conformal_set, {"density": _nan_at(_DENS, [0]), "grid": _GRID}, {"threshold": -0.05}, "density"),
])
def test_raise_only_functions_name_the_argument_and_refuse_omit(func, data, kw, bad):
    with pytest.raises(ValueError, match=rf"{bad} contains NaN \(1 value\)"):
        func(**data, **kw)
    with pytest.raises(ValueError, match="nan_policy"):
        func(**data, **kw, nan_policy="omit")


# ---------------------------------------------------------------------------------------------
# the decorator is on every public data function, and the index rule holds through it
# ---------------------------------------------------------------------------------------------

#: functions that take nan_policy without the decorator, and why
UNDECORATED = {
    "combine_pvalues": "scipy.stats.combine_pvalues' signature (method positional after the data)",
    "dhsic": "*variables: any number of data arguments", "dhsic_test": "*variables: any number of data arguments",
}


def test_every_public_function_with_nan_policy_goes_through_the_decorator():
    missing = [n for n in statcore.__all__ if inspect.isfunction(getattr(statcore, n))
               and "nan_policy" in inspect.signature(getattr(statcore, n)).parameters
               and not hasattr(getattr(statcore, n), "__public_function__") and n not in UNDECORATED]
    assert not missing, f"public functions taking nan_policy without public_function: {missing}"
    for name in UNDECORATED:
        assert not hasattr(getattr(statcore, name), "__public_function__"), f"{name} is decorated: drop it here"


_A = pd.Series(_R.normal(size=30), index=[f"u{i}" for i in range(30)])
_B = pd.Series(_R.normal(size=30), index=[f"u{i}" for i in range(30)])
_LAB = pd.Series((_R.uniform(size=30) < 0.5).astype(float), index=_A.index)


@pytest.mark.parametrize("call, names", [
    (lambda a, b: statcore.dcor(a, b), "x and y"),
    (lambda a, b: statcore.hsic_test(a, b, B=9, method="permutation", seed=1), "x and y"),
    (lambda a, b: statcore.gcm_test(a, b, _A.to_numpy()), "x and y"),
    (lambda a, b: statcore.calibration_error((b > 0).astype(float), 1 / (1 + np.exp(-a))), "y and prob"),
    (lambda a, b: statcore.risk_coverage(a ** 2, b), "loss and uncertainty"),
    (lambda a, b: statcore.joint_bounds(a, (b > 0).astype(float), f="product", B=0), "y and treat"),
])
def test_paired_pandas_inputs_with_different_indexes_are_refused(call, names):
    call(_A, _B)                                            # the same index: fine
    with pytest.raises(ValueError, match=f"{names} are pandas objects with different indexes"):
        call(_A, _B.iloc[::-1])
    call(_A.to_numpy(), _B.iloc[::-1])                      # one pandas input: pairs by position
