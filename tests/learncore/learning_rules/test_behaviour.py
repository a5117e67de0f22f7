"""Behavioural metrics: per-session psychometric fits against statsmodels, the model's expected
accuracy, separation, the plot, and bad input."""
import warnings

import matplotlib
import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.tools.sm_exceptions import PerfectSeparationWarning

from helpers import r_vector, requires_r, run_r
from learncore.learning_rules.behaviour import (BehaviourMetrics, BehaviourWarning, behaviour_metrics,
                                                plot_behaviour)

matplotlib.use("Agg")
LEVELS = np.array([0.0, 0.0625, 0.125, 0.25, 1.0])


def learner(n=5000, n_sessions=10, seed=0):
    """A synthetic animal whose bias shrinks and sensitivity grows over sessions; returns trials, p(right)."""
    rng = np.random.default_rng(seed)
    c = rng.choice(LEVELS, n) * rng.choice([-1, 1], n)
    sess = np.repeat(np.arange(n_sessions), -(-n // n_sessions))[:n]
    b0 = np.linspace(-1.0, 0.2, n_sessions)[sess]
    b1 = np.linspace(0.5, 6.0, n_sessions)[sess]
    p = 1 / (1 + np.exp(-(b0 + b1 * c)))
    right = rng.random(n) < p
    stim_right = np.where(c == 0, rng.random(n) < 0.5, c > 0)
    trials = pd.DataFrame({"contrast_left": np.maximum(-c, 0), "contrast_right": np.maximum(c, 0),
                           "choice": np.where(right, "right", "left"),
                           "reward": (right == stim_right).astype(int), "session": [f"day{s}" for s in sess]})
    return trials, p


def glm_fit(y, c):
    with warnings.catch_warnings():
        # statsmodels flags fitted probabilities near 0/1 at sensitivity ~6 and c = 1; not a separation
        warnings.simplefilter("ignore", PerfectSeparationWarning)
        return sm.GLM(y, sm.add_constant(c), family=sm.families.Binomial()).fit(tol=1e-12).params


def signed(trials):
    return (trials["contrast_right"] - trials["contrast_left"]).to_numpy()


def test_data_metrics_equal_statsmodels_per_session():
    trials, _ = learner()
    m = behaviour_metrics(trials)
    assert isinstance(m, BehaviourMetrics) and m.source == "data"
    t = m.table
    assert list(t.columns) == ["session", "n_trials", "accuracy", "bias", "sensitivity", "status"]
    assert t["session"].tolist() == [f"day{s}" for s in range(10)]
    c, y = signed(trials), (trials["choice"] == "right").to_numpy(float)
    for k, s in enumerate(t["session"]):
        rows = (trials["session"] == s).to_numpy()
        b = glm_fit(y[rows], c[rows])
        np.testing.assert_allclose(t.loc[k, ["bias", "sensitivity"]].to_numpy(float), b, rtol=1e-6, atol=1e-6)
        assert t.loc[k, "n_trials"] == rows.sum()
        assert t.loc[k, "accuracy"] == pytest.approx(trials["reward"][rows].mean(), abs=1e-15)
    assert (t["status"] == "ok").all()
    # the synthetic animal learns: sensitivity grows from ~0.5 to ~6
    assert t["sensitivity"].iloc[-1] > 3 * t["sensitivity"].iloc[0]


def test_model_metrics_equal_fractional_statsmodels():
    trials, p = learner(seed=1)
    m = behaviour_metrics(trials, p)
    assert m.source == "model"
    c = signed(trials)
    for k, s in enumerate(m.table["session"]):
        rows = (trials["session"] == s).to_numpy()
        np.testing.assert_allclose(m.table.loc[k, ["bias", "sensitivity"]].to_numpy(float),
                                   glm_fit(p[rows], c[rows]), rtol=1e-6, atol=1e-6)
    # the fit to the generating probabilities recovers the generating curve of each session exactly
    np.testing.assert_allclose(m.table["bias"], np.linspace(-1.0, 0.2, 10), atol=1e-8)
    np.testing.assert_allclose(m.table["sensitivity"], np.linspace(0.5, 6.0, 10), atol=1e-8)


def test_model_with_choices_as_probabilities_reproduces_data():
    trials, _ = learner(n=2000, n_sessions=4, seed=2)
    data = behaviour_metrics(trials)
    as_model = behaviour_metrics(trials, (trials["choice"] == "right").astype(float))
    cols = ["n_trials", "accuracy", "bias", "sensitivity"]
    np.testing.assert_allclose(as_model.table[cols].to_numpy(float), data.table[cols].to_numpy(float),
                               rtol=1e-12, atol=1e-12)


def test_expected_accuracy_by_hand():
    # rewarded side: the chosen side when rewarded, the other side when not
    trials = pd.DataFrame({"contrast_left": [0.0, 0.5, 0.0, 0.25, 0.0, 1.0],
                           "contrast_right": [1.0, 0.0, 0.25, 0.0, 0.0, 0.0],
                           "choice": ["right", "left", "right", "left", "left", "right"],
                           "reward": [1, 1, 0, 0, 1, 0],
                           "session": ["a", "a", "a", "b", "b", "b"]})
    p = np.array([0.9, 0.2, 0.6, 0.3, 0.45, 0.7])
    # rewarded sides: right, left, left | right, left, left
    want_a = (0.9 + (1 - 0.2) + (1 - 0.6)) / 3
    want_b = (0.3 + (1 - 0.45) + (1 - 0.7)) / 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BehaviourWarning)
        m = behaviour_metrics(trials, p)
    np.testing.assert_allclose(m.table["accuracy"], [want_a, want_b], rtol=1e-15)
    assert m.table["n_trials"].tolist() == [3, 3]
    with pytest.warns(BehaviourWarning, match="2 of 2"):  # three trials per session separate
        data = behaviour_metrics(trials)
    np.testing.assert_allclose(data.table["accuracy"], [2 / 3, 1 / 3])


def test_p_right_as_column_name_and_series():
    trials, p = learner(n=600, n_sessions=2, seed=3)
    a = behaviour_metrics(trials.assign(p_model=p), "p_model")
    b = behaviour_metrics(trials, pd.Series(p, index=trials.index))
    pd.testing.assert_frame_equal(a.table, b.table)
    # paired by position only under the same index: another index is refused, never silently paired
    # (public_function's rule for paired pandas inputs, docs/conventions.md section 3)
    with pytest.raises(ValueError, match="trials and p_right are pandas objects with different indexes"):
        behaviour_metrics(trials, pd.Series(p, index=trials.index + 100))


def test_blocks_of_trials():
    trials, _ = learner(n=1050, n_sessions=3, seed=4)
    m = behaviour_metrics(trials, by=250)
    t = m.table
    assert t["block"].tolist() == [1, 2, 3, 4, 5]
    assert t["first_trial"].tolist() == [0, 250, 500, 750, 1000]
    assert t["n_trials"].tolist() == [250, 250, 250, 250, 50]
    c, y = signed(trials), (trials["choice"] == "right").to_numpy(float)
    for k in range(5):
        rows = slice(250 * k, 250 * (k + 1))
        if t.loc[k, "status"] == "ok":
            np.testing.assert_allclose(t.loc[k, ["bias", "sensitivity"]].to_numpy(float),
                                       glm_fit(y[rows], c[rows]), rtol=1e-6, atol=1e-6)
    assert (t["status"].iloc[:4] == "ok").all()
    assert "blocks of 250 trials" in str(m)


def test_separated_sessions_reported_not_fitted():
    trials, _ = learner(n=1200, n_sessions=4, seed=5)
    c = signed(trials)
    perfect = (trials["session"] == "day1").to_numpy()
    # a perfect session: every choice on the side of the signed contrast, zero contrast all "left"
    trials.loc[perfect, "choice"] = np.where(c[perfect] > 0, "right", "left")
    allright = (trials["session"] == "day3").to_numpy()
    trials.loc[allright, "choice"] = "right"
    with pytest.warns(BehaviourWarning, match=r"2 of 4 sessions have no finite psychometric fit"):
        m = behaviour_metrics(trials)
    t = m.table.set_index("session")
    assert t.loc["day1", "status"] == "separated" and t.loc["day3", "status"] == "separated"
    assert np.isnan(t.loc[["day1", "day3"], ["bias", "sensitivity"]].to_numpy(float)).all()
    # the other sessions are untouched and still equal statsmodels
    y = (trials["choice"] == "right").to_numpy(float)
    for s in ("day0", "day2"):
        rows = (trials["session"] == s).to_numpy()
        np.testing.assert_allclose(t.loc[s, ["bias", "sensitivity"]].to_numpy(float), glm_fit(y[rows], c[rows]),
                                   rtol=1e-6, atol=1e-6)
    assert "separated" in str(m)
    # a miss at the smallest contrast still leaves a threshold (quasi-complete separation) ...
    trials.loc[np.flatnonzero(perfect & (c == 0.0625))[0], "choice"] = "left"
    with pytest.warns(BehaviourWarning, match="2 of 4"):
        assert behaviour_metrics(trials).table.loc[1, "status"] == "separated"
    # ... one overlapping trial restores a finite (large) estimate, equal to statsmodels
    first_pos = np.flatnonzero(perfect & (c == 0.25))[0]
    trials.loc[first_pos, "choice"] = "left"
    with pytest.warns(BehaviourWarning, match="1 of 4"):
        m2 = behaviour_metrics(trials)
    row = m2.table.set_index("session").loc["day1"]
    assert row["status"] == "ok"
    y = (trials["choice"] == "right").to_numpy(float)
    np.testing.assert_allclose(row[["bias", "sensitivity"]].to_numpy(float),
                               glm_fit(y[perfect], c[perfect]), rtol=1e-6, atol=1e-6)


def test_constant_contrast_session():
    trials = pd.DataFrame({"contrast_left": [0.0] * 6 + [0.25] * 4, "contrast_right": [0.0] * 10,
                           "choice": ["right", "left", "left", "right", "left", "left",
                                      "left", "right", "left", "left"],
                           "reward": [1, 0, 1, 1, 0, 1, 1, 0, 1, 1], "session": [1] * 6 + [2] * 4})
    t = behaviour_metrics(trials).table
    assert t["status"].tolist() == ["constant contrast", "constant contrast"]
    # only zero contrast: the bias is the log-odds of "right"; the sensitivity is not identified
    assert t.loc[0, "bias"] == pytest.approx(np.log(2 / 4))
    assert np.isnan(t.loc[0, "sensitivity"]) and np.isnan(t.loc[1, ["bias", "sensitivity"]].to_numpy(float)).all()


def _separable_brute_force(c, y):
    """Is there a nonzero (a, b) with a + b c >= 0 wherever y > 0 and <= 0 wherever y < 1?"""
    if np.ptp(c) == 0:
        return None
    right, left = c[y > 0], c[y < 1]
    if right.size == 0 or left.size == 0:
        return True
    cand = np.unique(c)
    cuts = np.concatenate([cand, (cand[1:] + cand[:-1]) / 2])
    for t in cuts:
        for sgn in (1, -1):
            if np.all(sgn * (right - t) >= 0) and np.all(sgn * (left - t) <= 0):
                return True
    return False


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([-1.0, -0.25, 0.0, 0.125, 1.0]),
                          st.sampled_from([0.0, 1.0, 0.0, 1.0, 0.3])), min_size=2, max_size=9))
def test_separation_detection_and_score_equations(rows):
    c = np.array([r[0] for r in rows])
    y = np.array([r[1] for r in rows])
    trials = pd.DataFrame({"contrast_left": np.maximum(-c, 0), "contrast_right": np.maximum(c, 0),
                           "choice": "left", "reward": 0})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BehaviourWarning)
        t = behaviour_metrics(trials, y).table
    status, b0, b1 = t.loc[0, "status"], t.loc[0, "bias"], t.loc[0, "sensitivity"]
    sep = _separable_brute_force(c, y)
    if sep is None:
        assert status == "constant contrast"
    elif sep:
        assert status == "separated" and np.isnan(b0) and np.isnan(b1)
    else:
        assert status == "ok"
        r = y - 1 / (1 + np.exp(-(b0 + b1 * c)))
        np.testing.assert_allclose([r.sum(), (r * c).sum()], 0.0, atol=1e-9)


def test_summary_and_frame():
    trials, p = learner(n=800, n_sessions=2, seed=6)
    m = behaviour_metrics(trials, p)
    text = str(m)
    assert text.startswith("Behavioural metrics of the model: 2 sessions, 800 trials")
    assert "day0" in text and "sensitivity" in text
    f = m.to_frame()
    f.loc[0, "bias"] = 99.0
    assert m.table.loc[0, "bias"] != 99.0
    html = m._repr_html_()
    assert "<table" in html and "<pre>" not in html


def test_plot_returns_three_axes():
    import matplotlib.pyplot as plt
    from matplotlib.axes import Axes

    trials, p = learner(n=1000, n_sessions=5, seed=7)
    axes = plot_behaviour(trials, p, label_data="mouse", label_model="2NL")
    assert isinstance(axes, np.ndarray) and len(axes) == 3 and all(isinstance(a, Axes) for a in axes)
    fig = axes[0].figure
    assert len(fig.axes) == 3
    bias_ax, sens_ax, acc_ax = fig.axes
    # data as points, model as a line, both with all five sessions
    styles = [(ln.get_linestyle(), ln.get_marker()) for ln in bias_ax.get_lines() if len(ln.get_xdata()) == 5]
    assert ("None", "o") in styles and any(ls == "-" for ls, _ in styles)
    labels = [t.get_text() for t in acc_ax.get_legend().get_texts()]
    assert labels == ["mouse", "2NL"]
    model = behaviour_metrics(trials, p)
    model_line = [ln for ln in sens_ax.get_lines() if ln.get_linestyle() == "-" and len(ln.get_xdata()) == 5][0]
    np.testing.assert_allclose(model_line.get_ydata(), model.table["sensitivity"])
    plt.close(fig)
    # data alone, on axes the caller gives
    fig2, axes = plt.subplots(3, 1)
    drawn = plot_behaviour(trials, ax=axes)
    assert list(drawn) == list(axes) and drawn[0].figure is fig2
    assert len(fig2.axes) == 3
    plt.close(fig2)
    axes3 = behaviour_metrics(trials).plot()
    fig3 = axes3[0].figure
    assert len(axes3) == 3 and len(fig3.axes) == 3
    with pytest.raises(ValueError, match="three matplotlib Axes"):
        behaviour_metrics(trials).plot(ax=fig3.axes[:2])
    plt.close(fig3)


def test_bad_input():
    trials, p = learner(n=300, n_sessions=2, seed=8)
    with pytest.raises(ValueError, match=r"one probability per trial \(300\)"):
        behaviour_metrics(trials, p[:-1])
    with pytest.raises(ValueError, match="one probability per trial"):
        behaviour_metrics(trials, np.column_stack([p, p]))
    q = p.copy()
    q[7] = 1.2
    with pytest.raises(ValueError, match=r"\[0, 1\].*trial 7"):
        behaviour_metrics(trials, q)
    q[7] = -0.1
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        behaviour_metrics(trials, q)
    q[7] = np.nan
    with pytest.raises(ValueError, match="NaN.*trial 7"):
        behaviour_metrics(trials, q)
    with pytest.raises(TypeError, match="p_right must be numeric"):
        behaviour_metrics(trials, ["a"] * 300)
    with pytest.raises(TypeError, match="DataFrame"):
        behaviour_metrics(trials, pd.DataFrame({"p": p}))
    with pytest.raises(ValueError, match="not a column"):
        behaviour_metrics(trials, "p_model")
    with pytest.raises(ValueError, match="by must be"):
        behaviour_metrics(trials, by="day")
    with pytest.raises(ValueError, match="by must be"):
        behaviour_metrics(trials, by=0)
    with pytest.raises(TypeError, match="by must be"):
        behaviour_metrics(trials, by=2.5)
    with pytest.raises(TypeError, match="by must be"):
        behaviour_metrics(trials, by=True)
    with pytest.raises(ValueError, match="lacks column"):
        behaviour_metrics(trials.drop(columns="reward"))
    with pytest.raises(TypeError, match="DataFrame"):
        behaviour_metrics(trials.to_numpy())


def test_with_simulated_animal():
    """The simulator's p_right column plugs in; the expected accuracy tracks the realised rewards."""
    from learncore.learning_rules import simulate

    sim = simulate("1L", {"W": np.zeros((2, 3)), "eta": 0.3, "beta": 4.0}, 3000, seed=0)
    model = behaviour_metrics(sim, "p_right")
    data = behaviour_metrics(sim)
    assert model.table["session"].tolist() == data.table["session"].tolist() == list(range(6))
    # reward_t ~ Bernoulli(q_t) with q_t the model's p(rewarded side) before trial t: the difference of
    # the totals is a martingale with variance sum q (1 - q); allow 4 standard deviations
    p = sim["p_right"].to_numpy()
    q = np.where(sim["stim_side"] == "right", p, 1 - p)
    sd = np.sqrt(np.sum(q * (1 - q)))
    n = model.table["n_trials"].to_numpy()
    assert abs(np.sum(n * (data.table["accuracy"] - model.table["accuracy"]))) < 4 * sd
    np.testing.assert_allclose(np.sum(n * model.table["accuracy"]), q.sum(), rtol=1e-12)
    axes = plot_behaviour(sim, "p_right")
    assert len(axes) == 3


@requires_r
def test_live_r_glm_per_session():
    """R's glm(binomial) on the choices and quasibinomial (same estimates, fractional y) on p_right."""
    trials, p = learner(n=1500, n_sessions=3, seed=9)
    c, y = signed(trials), (trials["choice"] == "right").to_numpy(float)
    lines = []
    for s in ("day0", "day1", "day2"):
        rows = (trials["session"] == s).to_numpy()
        lines.append(f"cc <- {r_vector(c[rows])}; yy <- {r_vector(y[rows])}; pp <- {r_vector(p[rows])}\n"
                     "ctl <- glm.control(epsilon = 1e-14, maxit = 100)\n"
                     "cat(sprintf('%.17g', coef(glm(yy ~ cc, family = binomial, control = ctl))),\n"
                     "    sprintf('%.17g', coef(glm(pp ~ cc, family = quasibinomial, control = ctl))), '\\n')")
    out = run_r("\n".join(lines)).strip().splitlines()
    assert len(out) == 3
    data = behaviour_metrics(trials).table
    model = behaviour_metrics(trials, p).table
    for k, line in enumerate(out):
        v = np.array(line.split(), dtype=float)
        np.testing.assert_allclose(data.loc[k, ["bias", "sensitivity"]].to_numpy(float), v[:2], rtol=1e-8, atol=1e-8)
        np.testing.assert_allclose(model.loc[k, ["bias", "sensitivity"]].to_numpy(float), v[2:], rtol=1e-8,
                                   atol=1e-8)
