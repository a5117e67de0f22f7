"""Calibrated model selection (calibrate_selection), held-out log-likelihood by session
(heldout_loglik) and two-stimulus inputs (input_left/input_right, from_psytrack): issue 23, section 4."""
import warnings

import numpy as np
import pandas as pd
import pytest

from helpers import require_torch

require_torch()

from learncore.learning_rules import (calibrate_selection, check_trials, fit, fit_many, from_psytrack,  # noqa: E402
                                      heldout_loglik, replay_p_right, session_folds, simulate)
from learncore.learning_rules.calibrate import _replicate, _replicate_fits, simulate_like  # noqa: E402
from statcore import ConvergenceWarning  # noqa: E402
from statcore.testing import assert_error_rate  # noqa: E402
from statcore.utils import spawn_seeds  # noqa: E402

ONE = {"W": np.zeros((2, 3)), "eta": 0.05, "beta": 8.0}


def _one_l(i, T):
    rng = np.random.default_rng([23, 4, i])
    p = dict(W=rng.normal(scale=0.1, size=(2, 3)), eta=float(np.exp(rng.uniform(np.log(0.03), np.log(0.08)))),
             beta=float(rng.uniform(6.0, 10.0)))
    return simulate("1L", p, T, seed=rng).drop(columns=["p_right"])


@pytest.mark.slow
def test_calibrated_false_selection_rate_on_1l_animals():
    """N synthetic 1L animals: the calibrated rule picks 2NL in at most alpha + 3 MC s.e. of them."""
    N, T, B, alpha = 16, 200, 9, 0.1
    animals = {f"a{i}": _one_l(i, T) for i in range(N)}
    kw = dict(restarts=1, max_iter=60)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        cmp = fit_many(animals, archs=("1L", "2NL"), hidden=2, seed=0, B=0, **kw)
    res = calibrate_selection(cmp, B=B, alpha=alpha, seed=1, **kw)
    raw, cal = res.confusion({k: "1L" for k in animals})
    print(f"\nfalse selection of 2NL on {N} 1L animals: raw AIC {1 - raw.loc['1L', '1L'] / N:.3f}, calibrated "
          f"{1 - cal.loc['1L', '1L'] / N:.3f}; {res.headline()}")
    # every animal is 1L: each one the calibrated rule does not call 1L is a false selection; their rate
    # at most alpha + 3 nominal binomial s.e. (the animals, fits and bootstrap seeded as above)
    assert_error_rate(lambda best, rng: best != "1L", lambda rng: res.per_group["calibrated_best"].to_numpy(),
                      alpha=alpha, vectorized=True, std_error="nominal")
    assert res.per_group["n_failed"].sum() == 0
    # the decision is the documented p-value rule, and the threshold its quantile
    pg = res.per_group
    p = (1 + (res.boot >= pg["statistic"].to_numpy()[:, None]).sum(axis=1)) / (B + 1)
    np.testing.assert_allclose(pg["p_value"], p)
    assert ((pg["calibrated_best"] == "2NL") == (p <= alpha)).all()


def test_simulate_like_runs_the_fitted_model_on_the_animals_own_inputs():
    tr = simulate("1L", ONE, 300, session_length=100, seed=3).drop(columns=["p_right"])
    f = fit(tr, arch="1L", restarts=1, max_iter=50, seed=0, warn=False)
    sims = [simulate_like(f, np.random.default_rng(s)) for s in range(40)]
    for s in sims[:3]:
        np.testing.assert_array_equal(s["contrast_left"], tr["contrast_left"])
        np.testing.assert_array_equal(s["session"], check_trials(tr).session)
        # rewarded exactly when the choice is the task's rewarded side
        side = check_trials(tr).rewarded_side
        np.testing.assert_array_equal(s["reward"], ((s["choice"] == "right").to_numpy() == (side == 1)).astype(int))
    # the first trial's choice probability is the fitted model's (before any learning)
    first = np.mean([s["choice"].iloc[0] == "right" for s in sims])
    assert abs(first - f.p_right[0]) < 4 * np.sqrt(0.25 / 40)
    # each simulated animal replays to its own likelihood; same seed, same animal
    a, b = simulate_like(f, np.random.default_rng(7)), simulate_like(f, np.random.default_rng(7))
    pd.testing.assert_frame_equal(a, b)


def test_refit_from_truth_never_ends_below_the_truth():
    # a short, one-restart refit (max_iter 15) can stop below the simulating parameters' likelihood;
    # started at the truth it cannot (L-BFGS only descends), and the richer refits are unchanged
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        f0 = fit(_one_l(0, 250), arch="1L", restarts=2, max_iter=80, seed=0, warn=False)
    kw = dict(restarts=1, max_iter=15, gtol=1e-5)
    hid = {"1L": 1, "2NL": 2}
    below = 0
    for b in range(6):
        seq = np.random.SeedSequence([9, b])
        tr, plain = _replicate_fits(f0, hid, kw, seq)
        tr2, truth = _replicate_fits(f0, hid, kw, seq, from_truth=True)
        pd.testing.assert_frame_equal(tr, tr2)
        ll_truth = replay_p_right(tr, "1L", f0.params).loglik
        assert truth["1L"].loglik >= ll_truth - 1e-8
        below += plain["1L"].loglik < ll_truth - 1e-6
        assert truth["2NL"].loglik == plain["2NL"].loglik
        assert _replicate(f0, hid, "1L", ("2NL",), kw, seq, True) == pytest.approx(
            truth["1L"].aic - truth["2NL"].aic, rel=1e-12)
    assert below >= 1      # the plain refit did stop below the truth here: the option matters


def test_calibrate_selection_checks_and_result():
    mice = {f"m{k}": simulate("1L", ONE, 120, seed=k).drop(columns=["p_right"]) for k in range(2)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        cmp = fit_many(mice, archs=("1L", "2L"), hidden=1, restarts=1, max_iter=20, B=0, seed=0)
    res = calibrate_selection(cmp, B=3, alpha=0.5, restarts=1, max_iter=20, seed=5)
    assert res.boot.shape == (2, 3) and res.richer == ("2L",)
    assert res.table["raw_wins"].sum() == 2 and res.table["calibrated_wins"].sum() == 2
    pg = res.per_group
    np.testing.assert_allclose(pg["statistic"], pg["aic_1l"] - pg["aic_2l"])
    with pytest.raises(ValueError, match="simpler"):
        calibrate_selection(cmp, simpler="2NL", B=2)
    with pytest.raises(ValueError, match="one architecture"):
        calibrate_selection({k: {"1L": v["1L"]} for k, v in cmp.fits.items()}, B=2)
    with pytest.raises(ValueError, match="same"):
        calibrate_selection({"m0": cmp.fits["m0"], "m1": {"1L": cmp.fits["m1"]["1L"]}}, B=2)
    with pytest.raises(TypeError, match="LearningRuleFit"):
        calibrate_selection({"m0": {"1L": 1.0, "2L": 2.0}}, B=2)
    with pytest.raises(ValueError, match="alpha"):
        calibrate_selection(cmp, B=2, alpha=1.0)
    with pytest.raises(TypeError, match="refit_from_truth"):
        calibrate_selection(cmp, B=2, refit_from_truth="yes")
    res2 = calibrate_selection(cmp, B=3, alpha=0.5, restarts=1, max_iter=20, seed=5, refit_from_truth=True)
    assert res2.boot.shape == (2, 3) and np.isfinite(res2.boot).all()
    with pytest.raises(ValueError, match="truth lacks"):
        res.confusion({"m0": "1L"})


def test_heldout_loglik_is_the_replayed_prediction_of_the_earlier_fit():
    tr = simulate("1L", ONE, 600, session_length=100, seed=1).drop(columns=["p_right"])
    np.testing.assert_array_equal(session_folds(tr, folds=2), np.repeat([-1, -1, 0, 0, 1, 1], 100))
    res = heldout_loglik(tr, archs=("1L", "2L"), hidden=1, folds=2, restarts=1, max_iter=40, seed=0)
    assert list(res.table["n_train"]) == [200, 200, 400, 400]
    # fold 1 of 1L by hand: the fit to the first 400 trials (same seed stream), replayed to trial 600
    seeds = spawn_seeds(np.random.default_rng(0), 4)   # statcore's one stream rule, as heldout_loglik
    f = fit(tr.iloc[:400], arch="1L", restarts=1, max_iter=40, seed=np.random.default_rng(seeds[2]), warn=False)
    p, _ = replay_p_right(tr, "1L", f.params)
    y = (tr["choice"] == "right").to_numpy()[400:]
    ll = np.sum(np.log(np.where(y, p[400:], 1 - p[400:])))
    row = res.table[(res.table["fold"] == 1) & (res.table["arch"] == "1L")].iloc[0]
    assert row["loglik"] == pytest.approx(ll, rel=1e-12)
    assert np.isnan(res.p_right["1L"][:200]).all() and np.isfinite(res.p_right["1L"][200:]).all()
    assert res.totals["loglik"].iloc[0] == res.totals["loglik"].max()
    with pytest.raises(ValueError, match="session"):
        heldout_loglik(tr.drop(columns=["session"]), archs=("1L",), folds=2)
    with pytest.raises(ValueError, match="folds"):
        heldout_loglik(tr, archs=("1L",), folds=6)


PSY = {"y": np.array([2, 1, 1, 2]), "answer": np.array([2, 2, 1, 2]), "correct": np.array([1, 0, 1, 1]),
       "dayLength": np.array([3, 1]),
       "inputs": {"s1": np.array([[0.5, 0], [0.3, 0.5], [-1.0, 0.3], [1.0, -1.0]]),
                  "s2": np.array([[-0.5, 0], [0.1, -0.5], [0.2, 0.1], [0.0, 0.2]])}}


def test_from_psytrack_and_two_stimulus_inputs():
    tr = from_psytrack(PSY)
    assert tr["choice"].tolist() == ["right", "left", "left", "right"]
    assert tr["reward"].tolist() == [1, 0, 1, 1] and tr["session"].tolist() == [0, 0, 0, 1]
    np.testing.assert_array_equal(tr["input_right"], PSY["inputs"]["s1"][:, 0])
    data = check_trials(tr)
    np.testing.assert_array_equal(data.x[:, :2], np.column_stack([PSY["inputs"]["s2"][:, 0], PSY["inputs"]["s1"][:, 0]]))
    np.testing.assert_array_equal(data.rewarded_side, [1, 1, 0, 1])
    bad = dict(PSY, correct=np.array([1, 1, 1, 1]))
    with pytest.raises(ValueError, match="correct"):
        from_psytrack(bad)
    with pytest.raises(ValueError, match="inputs"):
        from_psytrack(PSY, inputs=("s1", "s3"))
    with pytest.raises(ValueError, match="y"):
        from_psytrack(dict(PSY, y=np.array([0, 1, 1, 2])))
    with pytest.raises(ValueError, match="both"):
        check_trials(tr.assign(contrast_left=0.0))
    with pytest.raises(ValueError, match="input_left"):
        check_trials(tr.assign(input_left=np.nan))
    # a 1L learner on two real-valued stimuli: fit and replay use the generic inputs
    rng = np.random.default_rng(0)
    s1, s2 = rng.normal(size=400), rng.normal(size=400)
    sched = pd.DataFrame({"input_left": s2, "input_right": s1, "stim_side": np.where(s1 > s2, "right", "left"),
                          "session": np.arange(400) // 100})
    f0 = fit(tr.iloc[:0].pipe(lambda _: _sim_generic(sched)), arch="1L", restarts=1, max_iter=80, seed=0, warn=False)
    assert f0.nobs == 400 and np.isfinite(f0.loglik)


def _sim_generic(sched):
    """A 1L animal on generic inputs, through simulate_like of a fit with the generating parameters."""
    from learncore.learning_rules.results import LearningRuleFit

    tr = sched.assign(choice=np.where(sched["stim_side"] == "right", "right", "left"), reward=1)
    dummy = LearningRuleFit(arch="1L", rule="rpe", hidden=0, params=ONE, loglik=0.0, df=8, nobs=len(tr),
                            p_right=np.full(len(tr), 0.5), restarts=pd.DataFrame(), converged=True, baseline=0.5,
                            backend="numba", elapsed=0.0, trials=tr.drop(columns=["stim_side"]))
    return simulate_like(dummy, np.random.default_rng(1))


def test_psytrack_sample_rat():
    pytest.importorskip("psytrack")
    from learncore.learning_rules import psytrack_sample_rat

    rat = psytrack_sample_rat()
    assert len(rat) == 20000 and rat["session"].nunique() == 80 and rat.attrs["name"] == "W053"
    assert rat["reward"].mean() == pytest.approx(0.6445)
    data = check_trials(rat)
    # the rewarded side is "right" exactly when s1 (input_right) > s2 (input_left)
    np.testing.assert_array_equal(data.rewarded_side, (rat["input_right"] > rat["input_left"]).astype(int))


# ---- ridges: a reported status instead of a generic convergence warning -------------------------

def test_ridge_status_classification():
    from learncore.learning_rules._fit import ridge_status

    def prof(ll, moved):
        return pd.DataFrame({"iteration": [0, 50, 100], "loglik": ll, "weight_norm": [1.0] * 3,
                             "log_eta": [0.0] * 3, "log_beta": [0.0] * 3, "moved": moved})

    assert ridge_status(prof([-10.0, -9.8, -9.7], [0, 0.1, 0.3]), 0.5) == "ridge"
    assert ridge_status(prof([-10.0, -9.6, -9.4], [0, 0.1, 0.3]), 0.5) == "max_iter"
    assert ridge_status(prof([-10.0, -10.0, -10.0], [0, 0, 1e-9]), 0.5) == "stalled"


def test_a_2l_fit_on_a_1l_animal_stalls_on_a_ridge_without_a_warning():
    """The 2L fit to a 1L animal drifts along beta -> infinity, eta -> 0 (measured: +0.37 over 100 more
    iterations, log beta 4.44 -> 4.53, log eta -6.02 -> -6.18): status "ridge", no ConvergenceWarning,
    the profile reported."""
    rng = np.random.default_rng(0)
    p = dict(W=rng.normal(scale=0.1, size=(2, 3)), eta=0.05, beta=8.0)
    tr = simulate("1L", p, 600, seed=1).drop(columns=["p_right"])
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        f = fit(tr, arch="2L", hidden=2, restarts=2, max_iter=100, seed=0)
    assert not f.converged and f.status == "ridge"
    prof = f.ridge_profile
    assert prof["iteration"].iloc[-1] == 50 and prof["loglik"].is_monotonic_increasing
    assert 0 <= f.ridge_gain < 0.5 and prof["moved"].iloc[-1] > 1e-3
    assert prof["loglik"].iloc[0] == pytest.approx(f.loglik, abs=1e-8)   # the fit is where it stopped
    assert "stalled on a ridge" in f.summary()
    # still climbing at a tiny cap: the generic warning stays
    with pytest.warns(ConvergenceWarning, match="best restart stopped"):
        g = fit(tr, arch="2NL", hidden=2, restarts=1, max_iter=5, seed=0)
    assert g.status == "max_iter" and g.ridge_gain >= 0.5
    assert fit(tr, arch="1L", restarts=1, seed=0).status == "converged"
