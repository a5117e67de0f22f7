"""learncore.learning_rules: updates against autograd, the compiled gradient against autograd through
the unrolled updates, gradcheck, the nesting theorem, recovery, statcore registration, bad input."""
import numpy as np
import pandas as pd
import pytest

from helpers import require_torch

torch = require_torch()
torch.set_num_threads(1)   # per-trial ops on tiny tensors: a thread pool only adds contention

import statcore  # noqa: E402
from learncore.learning_rules import (ARCHS, RULES, LearningRuleFit, fit, fit_many, n_params,  # noqa: E402
                                      replay_p_right, simulate)
from learncore.learning_rules import _kernels as K  # noqa: E402
from learncore.learning_rules import _torchnets as TN  # noqa: E402
from learncore.learning_rules._lbfgs import batched_lbfgs  # noqa: E402
from learncore.learning_rules._model import ARCH_CODE, RULE_CODE, pack, unpack  # noqa: E402

CASES = [(a, r) for a in ARCHS for r in RULES]


def _task(T, seed):
    rng = np.random.default_rng(seed)
    c = rng.choice([0, 0.0625, 0.125, 0.25, 1.0], T)
    side = rng.integers(0, 2, T)
    x = np.column_stack([np.where(side == 0, c, 0), np.where(side == 1, c, 0), np.ones(T)])
    choice = rng.integers(0, 2, T)
    reward = (choice == side).astype(float)
    return np.ascontiguousarray(x), choice.astype(np.int64), reward, side.astype(np.int64)


def _theta(arch, R, rng, hidden=3, eta=0.2, beta=3.0):
    th = rng.normal(scale=0.7, size=(R, n_params(arch, hidden)))
    th[:, -2] = np.log(eta)
    th[:, -1] = np.log(beta)
    return th


@pytest.mark.parametrize("arch,rule", CASES)
def test_explicit_update_equals_autograd(arch, rule):
    rng = np.random.default_rng(1)
    th = torch.tensor(_theta(arch, 5, rng), dtype=torch.float64)
    W1, W2, eta, beta = TN.split(th, arch, 3)
    for trial in range(6):
        x = torch.tensor([rng.choice([0, 0.25, 1.0]), rng.choice([0, 0.0625, 1.0]), 1.0], dtype=torch.float64)
        a, rs = int(rng.integers(2)), int(rng.integers(2))
        r = float(a == rs)
        e1, e2 = TN.explicit_update(arch, rule, W1, W2, beta, x, a, r, rs, 0.5)
        g1, g2 = TN.autograd_update(arch, rule, W1, W2, beta, x, a, r, rs, 0.5)
        torch.testing.assert_close(e1, g1, rtol=1e-12, atol=1e-12)
        if arch != "1L":
            torch.testing.assert_close(e2, g2, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("arch,rule", CASES)
def test_compiled_gradient_equals_autograd_through_unrolled_updates(arch, rule):
    rng = np.random.default_rng(2)
    x, choice, reward, side = _task(60, 3)
    th = _theta(arch, 4, rng, eta=0.05 if rule == "reinforce" else 0.2)
    R, P = th.shape
    nll, grad, pr = np.empty(R), np.empty((R, P)), np.empty((R, 60))
    K.replay(th, x, choice, reward, side, ARCH_CODE[arch], RULE_CODE[rule], 3, 0.5, True, nll, grad, pr)
    assert np.isfinite(nll).all()
    t = torch.tensor(th, requires_grad=True)
    ref, ref_p = TN.unrolled_nll(t, arch, rule, 3, torch.tensor(x), choice, reward, side, 0.5, return_p=True)
    (g,) = torch.autograd.grad(ref.sum(), t)
    np.testing.assert_allclose(nll, ref.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(pr, ref_p.numpy(), rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(grad, g.numpy(), rtol=1e-9, atol=1e-9 * np.abs(g.numpy()).max())


@pytest.mark.parametrize("arch,rule", CASES)
def test_gradcheck_unrolled_likelihood(arch, rule):
    rng = np.random.default_rng(4)
    x, choice, reward, side = _task(8, 5)
    t = torch.tensor(_theta(arch, 2, rng), requires_grad=True)
    xt = torch.tensor(x)
    assert torch.autograd.gradcheck(
        lambda th: TN.unrolled_nll(th, arch, rule, 3, xt, choice, reward, side, 0.5), (t,),
        eps=1e-6, atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("arch,rule", CASES)
def test_simulator_and_replay_agree(arch, rule):
    rng = np.random.default_rng(6)
    params = unpack(arch, 3, _theta(arch, 1, rng, eta=0.05)[0])
    tr = simulate(arch, params, 400, rule=rule, seed=7)
    assert set(tr.columns) >= {"session", "trial", "contrast_left", "contrast_right", "signed_contrast",
                               "stim_side", "choice", "reward", "p_right"}
    assert set(tr["choice"]) <= {"left", "right"}
    np.testing.assert_array_equal(tr["reward"], (tr["choice"] == tr["stim_side"]).astype(int))
    p, ll = replay_p_right(tr, arch, params, rule=rule)
    np.testing.assert_allclose(p, tr["p_right"], rtol=0, atol=1e-13)
    ch = (tr["choice"] == "right").to_numpy()
    np.testing.assert_allclose(ll, np.sum(np.log(np.where(ch, p, 1 - p))), rtol=1e-12)


def test_simulate_is_seeded_and_contrast_schedule_is_ibl_like():
    params = dict(W=np.zeros((2, 3)), eta=0.1, beta=5.0)
    a = simulate("1L", params, 1000, seed=3)
    b = simulate("1L", params, 1000, seed=3)
    pd.testing.assert_frame_equal(a, b)
    assert set(np.round(np.abs(a["signed_contrast"]), 4)) == {0.0, 0.0625, 0.125, 0.25, 1.0}
    assert a["session"].nunique() == 2
    # zero contrast: p(right) is 1/2 under zero weights; both sides are rewarded sometimes
    zero = a[a["signed_contrast"] == 0]
    assert set(zero["stim_side"]) == {"left", "right"}


def test_nesting_theorem_2l_tracks_1l():
    """2L with W1 = alpha I, W2 = V / alpha, eta / alpha^2 follows 1L gradient descent with W = V:
    the largest difference in p(right) over 2,000 trials falls as alpha grows, below 1e-6 at 100."""
    rng = np.random.default_rng(8)
    V = rng.normal(scale=0.3, size=(2, 3))
    one = dict(W=V, eta=0.2, beta=4.0)
    tr = simulate("1L", one, 2000, seed=9)
    p1, _ = replay_p_right(tr, "1L", one)
    diffs = []
    for alpha in (1.0, 3.0, 10.0, 30.0, 100.0):
        two = dict(W1=alpha * np.eye(3), W2=V / alpha, eta=0.2 / alpha**2, beta=4.0)
        p2, _ = replay_p_right(tr, "2L", two)
        diffs.append(np.abs(p1 - p2).max())
    assert all(a > b for a, b in zip(diffs, diffs[1:])), diffs
    assert diffs[0] > 1e-2          # at alpha = 1 the two dynamics differ visibly
    assert diffs[-1] < 1e-6, diffs


def test_batched_lbfgs_solves_each_row_independently():
    # rows: shifted Rosenbrock functions with different minima, one far harder than the others
    centres = torch.tensor([[1.0, 1.0], [2.0, 4.0], [-1.0, 1.0], [0.5, 0.25]], dtype=torch.float64)
    scale = torch.tensor([100.0, 10.0, 1.0, 100.0], dtype=torch.float64)

    def fun(x, rows):
        a = centres[rows, 0]
        s = scale[rows]
        f = (a - x[:, 0]) ** 2 + s * (x[:, 1] - x[:, 0] ** 2) ** 2
        g0 = -2 * (a - x[:, 0]) - 4 * s * x[:, 0] * (x[:, 1] - x[:, 0] ** 2)
        g1 = 2 * s * (x[:, 1] - x[:, 0] ** 2)
        return f, torch.stack([g0, g1], 1)

    res = batched_lbfgs(fun, torch.full((4, 2), -1.2, dtype=torch.float64), max_iter=2000, gtol=1e-6)
    assert res.converged.all()
    torch.testing.assert_close(res.x, centres, atol=1e-5, rtol=0)
    # rows converge at their own pace
    assert len(set(res.n_iter.tolist())) > 1


def test_fit_recovers_the_generating_trajectory_and_beats_the_truth_in_likelihood():
    rng = np.random.default_rng(10)
    params = dict(W=rng.normal(scale=0.1, size=(2, 3)), eta=0.05, beta=8.0)
    tr = simulate("1L", params, 2000, seed=11)
    f = fit(tr, arch="1L", restarts=4, seed=0)
    assert isinstance(f, LearningRuleFit)
    assert f.converged
    _, ll_true = replay_p_right(tr, "1L", params)
    assert f.loglik >= ll_true - 1e-6
    # all restarts reach the same optimum on this well-posed problem
    assert f.restarts["loglik"].max() - f.restarts["loglik"].min() < 1e-3
    assert np.mean(np.abs(f.p_right - tr["p_right"])) < 0.02
    assert f.df == 8 and f.nobs == 2000


@pytest.mark.slow
@pytest.mark.parametrize("arch", ["1L", "2NL"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_parameter_recovery_eta_beta_within_20_percent(arch, seed):
    rng = np.random.default_rng(100 + seed)
    if arch == "1L":
        params = dict(W=rng.normal(scale=0.1, size=(2, 3)), eta=0.05, beta=8.0)
    else:
        params = dict(W1=rng.normal(size=(3, 3)), W2=rng.normal(scale=0.1, size=(2, 3)), eta=0.3, beta=8.0)
    tr = simulate(arch, params, 3000, seed=seed)
    f = fit(tr, arch=arch, restarts=8, seed=seed)
    assert abs(f.params["eta"] / params["eta"] - 1) < 0.2
    assert abs(f.params["beta"] / params["beta"] - 1) < 0.2
    # weights are identified only up to symmetries: compare the predicted trajectories
    assert np.mean(np.abs(f.p_right - tr["p_right"])) < 0.03


def test_registered_with_statcore_loglik_aic_and_compare_models():
    rng = np.random.default_rng(12)
    tr = simulate("1L", dict(W=rng.normal(scale=0.1, size=(2, 3)), eta=0.05, beta=8.0), 800, seed=13)
    f1 = fit(tr, arch="1L", restarts=2, seed=0)
    f2 = fit(tr, arch="2NL", hidden=2, restarts=2, seed=0, max_iter=100)
    ll = statcore.loglik(f1)
    assert (ll.value, ll.df, ll.nobs) == (f1.loglik, 8, 800)
    assert statcore.loglik(f2).df == n_params("2NL", 2) == 2 * 3 + 2 * 2 + 2
    assert float(statcore.aic(f1)) == pytest.approx(-2 * f1.loglik + 16)
    cmp = statcore.compare_models({"one": f1, "two": f2})
    assert set(cmp.to_frame().index) == {"one", "two"}
    assert "AIC" in str(cmp)


def test_fit_many_returns_statcore_group_comparison_independent_of_n_jobs():
    animals = {}
    for k in range(3):
        rng = np.random.default_rng(20 + k)
        animals[f"m{k}"] = simulate("1L", dict(W=rng.normal(scale=0.1, size=(2, 3)), eta=0.05, beta=8.0),
                                    300, seed=k).drop(columns=["p_right"])
    kw = dict(archs=("1L", "2NL"), hidden=2, restarts=2, seed=5, B=50, max_iter=60)
    res = fit_many(animals, **kw)
    fits = res.fits
    assert isinstance(res, statcore.GroupComparison)
    assert res.n_groups == 3 and set(res.models) == {"1L", "2NL"}
    assert "best in" in res.headline()
    res2 = fit_many(animals, n_jobs=2, **kw)
    pd.testing.assert_frame_equal(res.per_group, res2.per_group)
    # a long table with an animal column gives the same answer
    long = pd.concat([tr.assign(subject=k) for k, tr in animals.items()], ignore_index=True)
    res3 = fit_many(long, **kw)
    pd.testing.assert_frame_equal(res.per_group, res3.per_group)
    assert fits["m0"]["1L"].nobs == 300


def test_autograd_backend_reaches_the_same_optimum():
    rng = np.random.default_rng(30)
    tr = simulate("1L", dict(W=rng.normal(scale=0.1, size=(2, 3)), eta=0.05, beta=8.0), 150, seed=31)
    a = fit(tr, arch="1L", restarts=2, seed=1)
    b = fit(tr, arch="1L", restarts=2, seed=1, backend="autograd", max_iter=200)
    assert b.loglik == pytest.approx(a.loglik, abs=1e-5)


# ---- bad input -------------------------------------------------------------------------------

def _good(T=100):
    return simulate("1L", dict(W=np.zeros((2, 3)), eta=0.1, beta=5.0), T, seed=0)


def test_bad_trials_tables():
    tr = _good()
    with pytest.raises(ValueError, match="lacks column.*reward"):
        fit(tr.drop(columns=["reward"]), arch="1L")
    bad = tr.copy()
    bad.loc[3, "choice"] = "up"
    with pytest.raises(ValueError, match="choice.*'left' or 'right'.*row 3"):
        fit(bad, arch="1L")
    bad = tr.copy()
    bad["choice"] = np.where(tr["choice"] == "right", -1, 1)
    with pytest.raises(ValueError, match="from_ibl"):
        fit(bad, arch="1L")
    bad = tr.copy()
    bad.loc[5, "contrast_left"] = np.nan
    with pytest.raises(ValueError, match="contrast_left.*NaN.*row 5"):
        fit(bad, arch="1L")
    with pytest.raises(ValueError, match="12 trials, too few.*17 free parameters"):
        fit(tr.iloc[:12], arch="2NL", hidden=3)
    with pytest.raises(TypeError, match="DataFrame"):
        fit(tr.to_numpy(), arch="1L")
    bad = tr.copy()
    bad.loc[7, "reward"] = 2
    with pytest.raises(ValueError, match="reward.*0 or 1.*row 7"):
        fit(bad, arch="1L")


def test_bad_arguments():
    tr = _good()
    with pytest.raises(ValueError, match="arch must be one of"):
        fit(tr, arch="3L")
    with pytest.raises(ValueError, match="rule must be one of"):
        fit(tr, rule="hebb")
    with pytest.raises(ValueError, match="hidden must be a positive integer"):
        fit(tr, arch="2NL", hidden=0)
    with pytest.raises(ValueError, match="restarts must be >= 1"):
        fit(tr, arch="1L", restarts=0)
    with pytest.raises(ValueError, match="backend"):
        fit(tr, arch="1L", backend="jax")
    with pytest.raises(ValueError, match=r"params\['W'\] must have shape \(2, 3\)"):
        simulate("1L", dict(W=np.zeros((3, 3)), eta=0.1, beta=1.0), 10)
    with pytest.raises(ValueError, match="eta.*positive"):
        simulate("1L", dict(W=np.zeros((2, 3)), eta=-0.1, beta=1.0), 10)
    with pytest.raises(ValueError, match="lacks W1"):
        pack("2NL", 3, dict(eta=0.1, beta=1.0, W2=np.zeros((2, 3))))
    with pytest.raises(ValueError, match="contrasts has NaN"):
        simulate("1L", dict(W=np.zeros((2, 3)), eta=0.1, beta=1.0), [0.25, np.nan])
    with pytest.raises(TypeError, match="animals must be a mapping"):
        fit_many([tr])


@pytest.mark.parametrize("arch", ["1L", "2L"])
def test_reinforce_scale_symmetry_documented_in_model(arch):
    """Under REINFORCE a linear net's (weights, eta, beta) have a scale symmetry (see _model)."""
    rng = np.random.default_rng(40)
    c = 3.0
    if arch == "1L":
        W = rng.normal(scale=0.3, size=(2, 3))
        p, q = dict(W=W, eta=0.1, beta=4.0), dict(W=c * W, eta=c * c * 0.1, beta=4.0 / c)
    else:
        W1, W2 = rng.normal(scale=0.5, size=(3, 3)), rng.normal(scale=0.3, size=(2, 3))
        p = dict(W1=W1, W2=W2, eta=0.1, beta=4.0)
        q = dict(W1=np.sqrt(c) * W1, W2=np.sqrt(c) * W2, eta=c * 0.1, beta=4.0 / c)
    tr = simulate(arch, p, 1000, rule="reinforce", seed=41)
    pp, lp = replay_p_right(tr, arch, p, rule="reinforce")
    pq, lq = replay_p_right(tr, arch, q, rule="reinforce")
    np.testing.assert_allclose(pp, pq, atol=1e-11)
    # ... which the rpe rule does not have
    pr, _ = replay_p_right(tr, arch, p, rule="rpe")
    qr, _ = replay_p_right(tr, arch, q, rule="rpe")
    assert np.abs(pr - qr).max() > 1e-2


def test_fit_result_prints_plots_and_accepts_starting_points():
    rng = np.random.default_rng(50)
    truth = dict(W=rng.normal(scale=0.1, size=(2, 3)), eta=0.05, beta=8.0)
    tr = simulate("1L", truth, 1000, seed=51)
    f = fit(tr, arch="1L", restarts=3, seed=0, init=truth)
    text = str(f)
    assert "Learning rule fit: 1L, rule rpe" in text and "1000 trials" in text and "df=8" in text
    assert len(f.restarts) == 3
    # the given starting point is restart 0; its optimum is at least as good as the truth
    _, ll_true = replay_p_right(tr, "1L", truth)
    assert f.restarts.loc[0, "loglik"] >= ll_true - 1e-8
    axes = f.plot()
    assert len(axes) == 3 and len(axes[0].figure.axes) >= 3
    with pytest.raises(TypeError, match="axes"):   # `ax` is the one name (docs/conventions.md)
        f.plot(axes=axes)
    data_m, model_m = f.metrics()
    assert len(data_m.to_frame()) == len(model_m.to_frame()) == tr["session"].nunique()
    frame = f.to_frame()
    np.testing.assert_allclose(frame["p_right_model"], f.p_right)
    with pytest.raises(ValueError, match="init has 2 starting points but restarts = 1"):
        fit(tr, arch="1L", restarts=1, init=[truth, truth])


def test_plugin_rule_reproduces_the_builtin_rpe_rule():
    from learncore.learning_rules import LearningRule

    def rpe_signal(y, p, a, r, rs, beta):
        g = torch.zeros_like(y)
        g[:, a] = r - y[:, a]
        return g

    plug = LearningRule("my-rpe", rpe_signal)
    rng = np.random.default_rng(60)
    params = dict(W1=rng.normal(size=(2, 3)), W2=rng.normal(scale=0.1, size=(2, 2)), eta=0.3, beta=6.0)
    a = simulate("2NL", params, 300, seed=61)
    b = simulate("2NL", params, 300, seed=61, rule=plug)
    pd.testing.assert_series_equal(a["choice"], b["choice"])
    np.testing.assert_allclose(a["p_right"], b["p_right"], atol=1e-12)
    pa, la = replay_p_right(a, "2NL", params)
    pb, lb = replay_p_right(a, "2NL", params, rule=plug)
    np.testing.assert_allclose(pa, pb, atol=1e-12)
    assert la == pytest.approx(lb, abs=1e-9)
    one = dict(W=np.zeros((2, 3)), eta=0.05, beta=8.0)
    tr = simulate("1L", one, 120, seed=62)
    fa = fit(tr, arch="1L", restarts=2, seed=3)
    fb = fit(tr, arch="1L", restarts=2, seed=3, rule=plug, max_iter=200)
    assert fb.rule == "my-rpe" and fb.backend == "autograd"
    assert fb.loglik == pytest.approx(fa.loglik, abs=1e-5)
    with pytest.raises(ValueError, match="plug-in rule 'my-rpe' runs on backend='autograd'"):
        fit(tr, arch="1L", rule=plug, backend="numba")
    bad = LearningRule("bad", lambda y, p, a, r, rs, beta: y[:, 0])
    with pytest.raises(ValueError, match="signal must return a tensor of shape"):
        simulate("1L", one, 10, rule=bad)
    with pytest.raises(TypeError, match="signal must be callable"):
        LearningRule("x", 3)


def test_batched_lbfgs_does_not_call_a_stalled_row_converged():
    # f = x^2 + 1e12 y^2 - a row where steps are tiny relative to the gradient: ftol stops it
    def fun(x, rows):
        f = x[:, 0] ** 2 + 1e12 * x[:, 1] ** 2
        return f, torch.stack([2 * x[:, 0], 2e12 * x[:, 1]], 1)

    res = batched_lbfgs(fun, torch.tensor([[1.0, 1.0], [1.0, 0.0]], dtype=torch.float64), max_iter=3,
                        gtol=1e-12, ftol=0.5)
    assert not res.converged[0]
    from learncore.learning_rules._lbfgs import STATUS
    assert STATUS[int(res.status[0])] in ("stalled", "max_iter", "line search failed")


def test_reinforce_fit_with_wild_starting_points_reports_honestly():
    """Review finding: REINFORCE starts with finite but absurd likelihoods stalled and were called converged."""
    rng = np.random.default_rng(5)
    p = dict(W1=rng.normal(size=(3, 3)), W2=rng.normal(scale=0.1, size=(2, 3)), eta=0.05, beta=3.0)
    tr = simulate("2L", p, 2000, rule="reinforce", seed=1)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f = fit(tr, arch="2L", rule="reinforce", seed=0)
    tab = f.restarts
    chance = 2000 * np.log(2)
    # every restart ends better than chance, or is not called converged
    assert ((tab["loglik"] > -chance) | ~tab["converged"]).all(), tab
    assert f.loglik > -chance
    _, ll_true = replay_p_right(tr, "2L", p, rule="reinforce")
    assert f.loglik >= ll_true - 5.0


def test_review_validation_gaps():
    tr = _good()
    pct = tr.assign(contrast_left=tr["contrast_left"] * 100, contrast_right=tr["contrast_right"] * 100)
    with pytest.raises(ValueError, match=r"contrast_left.*\[0, 1\].*divide by 100"):
        fit(pct, arch="1L")
    both = tr.assign(contrast_left=0.5, contrast_right=0.5)
    with pytest.raises(ValueError, match="both sides"):
        fit(both, arch="1L")
    one = dict(W=np.zeros((2, 3)), eta=0.1, beta=5.0)
    with pytest.raises(ValueError, match="session_length must be >= 1"):
        simulate("1L", one, [0.25, -0.25], session_length=0)
    with pytest.raises(TypeError, match="baseline must be a number"):
        simulate("1L", one, 10, baseline="x")
    with pytest.raises(ValueError, match="baseline must be finite"):
        replay_p_right(tr, "1L", one, rule="reinforce", baseline=np.nan)
    with pytest.raises(ValueError, match="need 'W1'"):
        replay_p_right(tr, "2L", one)
    with pytest.raises(TypeError, match="params must be a mapping"):
        replay_p_right(tr, "1L", "junk")
    sched = pd.DataFrame({"contrast_left": [0.25, 0.0], "contrast_right": [0.0, 0.5],
                          "stim_side": ["right", "right"]})
    with pytest.raises(ValueError, match="stim_side.*contradicts.*row 0"):
        simulate("1L", one, sched)
    with pytest.raises(ValueError, match="gtol must be positive"):
        fit(tr, arch="1L", gtol=-1.0)
    a = simulate("1L", one, 150, seed=1).drop(columns=["p_right"])
    df = pd.concat([a.assign(subject="A"), a.assign(subject=np.nan)], ignore_index=True)
    with pytest.raises(ValueError, match=r"animals\['subject'\] has missing labels.*row 150"):
        fit_many(df, archs=("1L",))
    n = torch.get_num_threads()
    fit_many({"A": a}, archs=("1L",), restarts=1, B=0)
    assert torch.get_num_threads() == n
