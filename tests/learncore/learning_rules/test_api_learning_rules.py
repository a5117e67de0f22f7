"""learncore.learning_rules' public API: the bad-input sweep of every public function, the result
protocol of every result class (docs/conventions.md)."""
import warnings

import numpy as np
import pandas as pd
import pytest

from helpers import require_torch

require_torch()

import apicheck  # noqa: E402
import statcore  # noqa: E402
from learncore import learning_rules as lr  # noqa: E402
from learncore.learning_rules import (BehaviourMetrics, LearningRuleFit, behaviour_metrics,  # noqa: E402
                                      calibrate_selection, check_trials, contrast_schedule, fit, fit_many, from_ibl,
                                      from_psytrack, heldout_loglik, plot_behaviour, read_ibl_trials,
                                      replay_p_right, session_folds, simulate)

ONE = {"W": np.zeros((2, 3)), "eta": 0.1, "beta": 5.0}


def _numeric_trials(T=60, seed=0):
    """A trials table with numeric columns only (choice coded 0/1), so every bad-input kind applies."""
    tr = simulate("1L", ONE, T, session_length=30, seed=seed)
    return pd.DataFrame({"contrast_left": tr["contrast_left"], "contrast_right": tr["contrast_right"],
                         "choice": (tr["choice"] == "right").astype(np.int64), "reward": tr["reward"],
                         "session": tr["session"]})


TRIALS = _numeric_trials()
P_RIGHT = simulate("1L", ONE, 60, session_length=30, seed=0)["p_right"].to_numpy()
ANIMALS = pd.concat([_numeric_trials(seed=0).assign(subject=0), _numeric_trials(seed=1).assign(subject=1)],
                    ignore_index=True)
IBL = pd.DataFrame({"contrastLeft": [0.25, np.nan, 0.0, 1.0], "contrastRight": [np.nan, 1.0, np.nan, np.nan],
                    "choice": [1, -1, -1, 1], "feedbackType": [1, 1, -1, 1]})


def _ibl_path(tmp_dir=[]):
    import os
    import tempfile

    if not tmp_dir:
        tmp_dir.append(tempfile.mkdtemp())
    path = os.path.join(tmp_dir[0], "trials.csv")
    IBL.to_csv(path, index=False)
    return path


def _plot_behaviour(**kwargs):
    import matplotlib.pyplot as plt

    try:
        return plot_behaviour(**kwargs)
    finally:
        plt.close("all")


_plot_behaviour.__name__ = "plot_behaviour"

S = apicheck.Spec
BAD_INPUT_SPECS = {
    "fit": S(fit, dict(trials=TRIALS, arch="1L", restarts=1, max_iter=5, seed=0, warn=False), data=("trials",)),
    "fit_many": S(fit_many, dict(animals=ANIMALS, archs=("1L",), restarts=1, max_iter=5, B=0, seed=0),
                  data=("animals",)),
    "replay_p_right": S(replay_p_right, dict(trials=TRIALS, arch="1L", params=ONE), data=("trials",)),
    "simulate": S(simulate, dict(arch="1L", params=ONE, contrasts=np.array([0.25, -1.0, 0.0, 0.0625] * 5), seed=0),
                  data=("contrasts",), paired=False),
    "contrast_schedule": S(contrast_schedule, dict(n_trials=50, seed=0), data=("n_trials",), paired=False),
    "behaviour_metrics": S(behaviour_metrics, dict(trials=TRIALS, p_right=P_RIGHT), data=("trials", "p_right"),
                           ok={("p_right", "none")}),
    "plot_behaviour": S(_plot_behaviour, dict(trials=TRIALS, p_right=P_RIGHT), data=("trials", "p_right"),
                        ok={("p_right", "none")}),
    "check_trials": S(check_trials, dict(trials=TRIALS), data=("trials",), paired=False),
    "from_ibl": S(from_ibl, dict(df=IBL), data=("df",), paired=False),
    # a path: the kinds that make sense for a string (the numeric kinds cannot be built from one)
    "read_ibl_trials": S(read_ibl_trials, dict(path=_ibl_path()), data=("path",), paired=False,
                         kinds=("empty", "string", "none")),
}

PSY = {"y": np.array([2, 1, 1, 2]), "answer": np.array([2, 2, 1, 2]), "dayLength": np.array([3, 1]),
       "inputs": {"s1": np.array([[0.5], [0.3], [-1.0], [1.0]]), "s2": np.array([[-0.5], [0.1], [0.2], [0.0]])}}


def _two_arch_fits():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fit_many(ANIMALS, archs=("1L", "2L"), hidden=1, restarts=1, max_iter=5, B=0, seed=0)


FITS2 = _two_arch_fits().fits
BAD_INPUT_SPECS.update({
    "calibrate_selection": S(calibrate_selection, dict(fits=FITS2, B=2, restarts=1, max_iter=5, seed=0),
                             data=("fits",), paired=False),
    "heldout_loglik": S(heldout_loglik, dict(trials=TRIALS, archs=("1L",), folds=1, restarts=1, max_iter=5, seed=0),
                        data=("trials",), paired=False),
    "session_folds": S(session_folds, dict(trials=TRIALS, folds=1), data=("trials",), paired=False),
    "from_psytrack": S(from_psytrack, dict(dat=PSY), data=("dat",), paired=False),
})

EXEMPT = {"n_params": "counts the parameters of an architecture: no data argument",
          "psytrack_sample_rat": "loads a file shipped with psytrack: no argument"}


def _fit_example():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fit(TRIALS, arch="1L", restarts=2, max_iter=20, seed=0)


RESULT_EXAMPLES = {
    "LearningRuleFit": _fit_example,
    "CalibratedSelection": lambda: calibrate_selection(FITS2, B=2, restarts=1, max_iter=5, seed=0),
    "HeldOutLoglik": lambda: heldout_loglik(TRIALS, archs=("1L",), folds=1, restarts=1, max_iter=5, seed=0),
    "BehaviourMetrics": lambda: behaviour_metrics(TRIALS, P_RIGHT),
    "Replay": lambda: replay_p_right(TRIALS, "1L", {"W": np.zeros((2, 3)), "eta": 0.1, "beta": 5.0}),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUT_SPECS))
def test_bad_input_sweep(name):
    assert apicheck.sweep_bad_inputs(BAD_INPUT_SPECS[name]) == []


@pytest.mark.parametrize("name", sorted(RESULT_EXAMPLES))
def test_result_protocol(name):
    apicheck.check_result_protocol(RESULT_EXAMPLES[name]())


def test_every_public_callable_is_registered():
    funcs = [n for n in lr.__all__ if callable(getattr(lr, n)) and not isinstance(getattr(lr, n), type)]
    assert sorted(set(funcs) - set(BAD_INPUT_SPECS) - set(EXEMPT)) == []


# ---- warnings --------------------------------------------------------------------------------

def test_one_convergence_warning():
    # one class, statcore's, under one name: learning_rules neither defines nor re-exports its own
    assert not hasattr(lr, "ConvergenceWarning") and "ConvergenceWarning" not in lr.__all__
    assert issubclass(lr.BehaviourWarning, statcore.StatcoreWarning)
    assert issubclass(lr.IBLFormatWarning, statcore.StatcoreWarning)
    with pytest.warns(statcore.ConvergenceWarning, match="best restart stopped"):
        fit(TRIALS, arch="1L", restarts=1, max_iter=1, seed=0)


# ---- results are frozen; old spellings -------------------------------------------------------

def test_fit_result_is_frozen_and_keeps_its_inputs():
    tr = TRIALS.copy()
    res = fit(tr, arch="1L", restarts=2, max_iter=30, seed=0, warn=False)
    with pytest.raises(AttributeError):
        res.loglik = 0.0
    with pytest.raises(ValueError):
        res.p_right[0] = 0.5
    with pytest.raises(TypeError):
        res.params["eta"] = 1.0
    with pytest.raises(ValueError):
        res.params["W"][0, 0] = 1.0
    tr.loc[0, "reward"] = 1 - tr.loc[0, "reward"]          # the caller's table is not the fit's
    assert res.trials.loc[0, "reward"] == TRIALS.loc[0, "reward"]
    r = repr(res)
    assert r.startswith("LearningRuleFit(arch='1L', rule='rpe'") and "df=8" in r and "nobs=60" in r
    assert "<table" in res._repr_html_()


def test_behaviour_metrics_nan_policy():
    p = P_RIGHT.copy()
    p[[3, 40]] = np.nan
    with pytest.raises(ValueError, match=r"p_right has 2 NaN.*trial 3.*nan_policy='omit'"):
        behaviour_metrics(TRIALS, p)
    omitted = behaviour_metrics(TRIALS, p, nan_policy="omit")
    keep = ~np.isnan(p)
    by_hand = behaviour_metrics(TRIALS[keep].reset_index(drop=True), p[keep])
    pd.testing.assert_frame_equal(omitted.table, by_hand.table)
    assert omitted.table["n_trials"].tolist() == [29, 29]
    with pytest.raises(ValueError, match="nan_policy"):
        behaviour_metrics(TRIALS, p, nan_policy="propagate")
    with pytest.raises(ValueError, match="nan_policy"):
        behaviour_metrics(TRIALS, nan_policy="drop")
    # a session without any prediction is dropped
    q = P_RIGHT.copy()
    q[:30] = np.nan
    assert behaviour_metrics(TRIALS, q, nan_policy="omit").table["session"].tolist() == [1]
    with pytest.raises(ValueError, match="every trial"):
        behaviour_metrics(TRIALS, np.full(60, np.nan), nan_policy="omit")


def test_data_functions_go_through_public_function():
    """behaviour_metrics and plot_behaviour take nan_policy through statcore.utils.public_function, the one
    decorator, as every public data function does (tests/statcore/test_public_function.py)."""
    import inspect

    takers = [n for n in lr.__all__ if inspect.isfunction(getattr(lr, n))
              and "nan_policy" in inspect.signature(getattr(lr, n)).parameters]
    assert sorted(takers) == ["behaviour_metrics", "plot_behaviour"]
    for name in takers:
        spec = getattr(lr, name).__public_function__
        assert spec["data"] == ("trials", "p_right") and spec["nan_policy"] == ("raise", "omit"), name
    with pytest.raises(TypeError, match="positional"):     # everything after the data is keyword-only
        behaviour_metrics(TRIALS, P_RIGHT, "session")
    # a pandas p_right pairs with the trials by position only under the same index (the decorator's rule)
    series = pd.Series(P_RIGHT, index=TRIALS.index)
    pd.testing.assert_frame_equal(behaviour_metrics(TRIALS, series).table, behaviour_metrics(TRIALS, P_RIGHT).table)
    with pytest.raises(ValueError, match="trials and p_right are pandas objects with different indexes"):
        behaviour_metrics(TRIALS, series.iloc[::-1])
    with pytest.raises(ValueError, match="trials and p_right are pandas objects with different indexes"):
        _plot_behaviour(trials=TRIALS, p_right=series.iloc[::-1])


def test_seeds_follow_statcore():
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        simulate("1L", ONE, 10, seed=-1)
    with pytest.raises(TypeError, match="seed"):
        contrast_schedule(10, seed="x")
    a = simulate("1L", ONE, 50, seed=np.random.SeedSequence(4))
    b = simulate("1L", ONE, 50, seed=np.random.default_rng(np.random.SeedSequence(4)))
    pd.testing.assert_frame_equal(a, b)
    with pytest.raises(ValueError, match="n_jobs"):
        fit_many(ANIMALS, archs=("1L",), n_jobs=0)


# ---- explicit arguments ----------------------------------------------------------------------

def test_read_ibl_trials_arguments_are_explicit(tmp_path):
    path = tmp_path / "t.csv"
    IBL.assign(choice=[1, -1, 0, 1]).to_csv(path, index=False)
    with pytest.raises(ValueError, match="no-go"):
        read_ibl_trials(path)
    with pytest.warns(Warning):
        out = read_ibl_trials(path, nogo="drop")
    assert len(out) == 3
    with pytest.raises(TypeError):
        read_ibl_trials(path, "drop")
    with pytest.raises(ValueError, match="nogo .*choose one of"):
        read_ibl_trials(path, nogo="skip")


def test_replay_is_a_result_that_unpacks():
    params = {"W": np.zeros((2, 3)), "eta": 0.1, "beta": 5.0}
    res = replay_p_right(TRIALS, "1L", params)
    assert isinstance(res, lr.Replay) and res.arch == "1L" and res.rule == "rpe"
    p, ll = res
    assert p is res.p_right and ll == res.loglik
    # the log-likelihood is the sum of the log-probabilities of the choices made (choice 1 = right)
    right = TRIALS["choice"].to_numpy() == 1
    assert ll == pytest.approx(float(np.sum(np.log(np.where(right, p, 1 - p)))), rel=1e-10)
    assert res.to_frame()["p_right"].tolist() == p.tolist()
