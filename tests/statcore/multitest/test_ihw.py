"""Independent hypothesis weighting (statcore.ihw) against Bioconductor IHW 1.26.0, closed forms and
brute force, and a Monte Carlo FDR check."""
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import statcore as sc
from helpers import requires_r, run_r
from statcore.multitest._ihw import _Problem
from statcore.multitest._ihw_kernels import (grenander_pieces, knapsack_thresholds, lp_thresholds,
                                             thresholds_to_weights)
from statcore.testing import assert_error_rate

ALPHA = 0.1


def simulate(seed, m=20000, informative=True):
    """One-sided z-tests whose share of signals grows with the covariate (flat if not informative)."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(size=m)
    share = 0.05 + 0.25 * x if informative else np.full(m, 0.15)
    signal = rng.uniform(size=m) < share
    p = stats.norm.sf(rng.normal(np.where(signal, 2.5, 0.0)))
    return p, x, signal, rng


# ----------------------------------------------------------------------------------------------
# live R: the same folds and one lambda give R's answer; automatic lambda R's rejections
# ----------------------------------------------------------------------------------------------

CASES = [  # (name, data seed, nbins, lambda, adjustment_type, null_proportion, nominal)
    ("bh_inf", 1, 10, np.inf, "BH", False, False),
    ("bh_tv", 2, 10, 1.5, "BH", False, False),
    ("bonferroni_tv", 3, 8, 2.0, "bonferroni", False, False),
    ("bh_pi0", 4, 10, 2.5, "BH", True, False),
    ("nominal", 5, None, 1.0, "BH", False, True),
]


def case_data(seed, nominal):
    p, x, _, rng = simulate(seed, m=12000)
    folds = rng.integers(1, 4, size=p.size)
    if nominal:  # six labelled strata with different shares of signals
        lab = rng.choice(list("abcdef"), size=p.size)
        share = pd.Series(dict(a=0.02, b=0.3, c=0.1, d=0.05, e=0.2, f=0.0))[lab].to_numpy()
        p = stats.norm.sf(rng.normal(np.where(rng.uniform(size=p.size) < share, 2.5, 0.0)))
        x = lab
    return p, x, folds


@requires_r("IHW")
def test_same_folds_one_lambda_is_r(tmp_path):
    code = ["suppressMessages(library(IHW))"]
    for name, seed, nbins, lam, adj, pi0, nominal in CASES:
        p, x, folds = case_data(seed, nominal)
        pd.DataFrame({"p": p, "x": x, "f": folds}).to_csv(tmp_path / f"{name}.csv", index=False)
        cov = "as.factor(d$x)" if nominal else "d$x"
        nb = "" if nbins is None else f", nbins = {nbins}"
        ct = ', covariate_type = "nominal"' if nominal else ""
        code.append(f'd <- read.csv("{tmp_path / name}.csv"); '
                    f'r <- suppressMessages(ihw(d$p, {cov}, alpha = {ALPHA}{nb}, folds = d$f, '
                    f'lambdas = {"Inf" if np.isinf(lam) else lam}, adjustment_type = "{adj}", '
                    f'null_proportion = {"TRUE" if pi0 else "FALSE"}{ct})); '
                    f'write.csv(data.frame(w = weights(r), adj = adj_pvalues(r)), "{tmp_path / name}_r.csv", '
                    'row.names = FALSE)')
    run_r("\n".join(code))
    for name, seed, nbins, lam, adj, pi0, nominal in CASES:
        p, x, folds = case_data(seed, nominal)
        r = pd.read_csv(tmp_path / f"{name}_r.csv")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", sc.StatcoreWarning)
            res = sc.ihw(p, x, alpha=ALPHA, nbins="auto" if nbins is None else nbins, folds=folds, lambdas=lam,
                         adjustment_type=adj, null_proportion=pi0,
                         covariate_type="nominal" if nominal else "ordinal")
        np.testing.assert_allclose(res.weights, r.w.to_numpy(), rtol=0, atol=1e-6, err_msg=name)
        np.testing.assert_array_equal(res.rejected, r.adj.to_numpy() <= ALPHA, err_msg=name)
        np.testing.assert_allclose(res.adj_p_values, r.adj.to_numpy(), rtol=1e-9, atol=1e-12, err_msg=name)
        assert res.n_rejections > 0, name


@requires_r("IHW")
def test_automatic_lambda_rejections_near_r(tmp_path):
    """Nested cross-validation over R's lambda grid on R's outer folds: the inner folds are random in
    both, so the numbers of rejections agree within 1%."""
    seeds = (0, 1)
    code = ["suppressMessages(library(IHW))"]
    data = {}
    for s in seeds:
        p, x, _, rng = simulate(s)
        folds = rng.integers(1, 6, size=p.size)
        data[s] = (p, x, folds)
        pd.DataFrame({"p": p, "x": x, "f": folds}).to_csv(tmp_path / f"a{s}.csv", index=False)
        code.append(f'd <- read.csv("{tmp_path}/a{s}.csv"); '
                    f'cat(rejections(ihw(d$p, d$x, alpha = {ALPHA}, folds = d$f)), "\\n")')
    r_rjs = [int(v) for v in run_r("\n".join(code)).split()]
    for s, r in zip(seeds, r_rjs):
        p, x, folds = data[s]
        res = sc.ihw(p, x, alpha=ALPHA, folds=folds, seed=s)
        assert res.nbins == 13 and res.lambda_.size == 5
        assert abs(res.n_rejections - r) <= 0.01 * r, (s, res.n_rejections, r)


# ----------------------------------------------------------------------------------------------
# closed forms and brute force
# ----------------------------------------------------------------------------------------------

def test_one_bin_is_bh():
    p, x, _, _ = simulate(3, m=3000)
    res = sc.ihw(p, x, alpha=ALPHA, seed=1)           # nbins="auto": floor(3000 / 1500) = 2
    assert res.nbins == 2
    one = sc.ihw(p, x, alpha=ALPHA, nbins=1)
    bh = sc.p_adjust(p, method="BH")
    np.testing.assert_array_equal(one.adj_p_values, bh)
    np.testing.assert_array_equal(one.weights, np.ones(p.size))
    np.testing.assert_array_equal(one.rejected, bh <= ALPHA)
    assert one.nfolds == 1 and one.weight_table.shape == (1, 1) and one.lambda_.tolist() == [0.0]
    small = sc.ihw(p[:1000], x[:1000], alpha=ALPHA)      # auto: max(1, floor(1000 / 1500)) = 1 bin
    assert small.nbins == 1
    np.testing.assert_array_equal(small.adj_p_values, sc.p_adjust(p[:1000], method="BH"))
    # lambda = 0 keeps every weight at one: BH again, with several strata
    zero = sc.ihw(p, x, alpha=ALPHA, nbins=3, lambdas=0.0, seed=2)
    np.testing.assert_array_equal(zero.adj_p_values, bh)


def test_weights_average_one_in_each_fold_and_match_the_table():
    p, x, _, rng = simulate(5, m=12000)
    res = sc.ihw(p, x, alpha=ALPHA, nbins=6, lambdas=[1.0, np.inf], seed=rng)
    fr = res.to_frame()
    for fold, sub in fr.groupby("fold"):
        assert sub.weight.mean() == pytest.approx(1.0, rel=1e-12)
        np.testing.assert_allclose(sub.weight, res.weight_table.loc[sub.group.to_numpy(), fold].to_numpy())
    assert set(res.lambda_) <= {1.0, np.inf}
    np.testing.assert_allclose(fr.weighted_p_value, np.minimum(p / fr.weight, 1.0))
    np.testing.assert_allclose(fr.p_adjusted, sc.p_adjust(fr.weighted_p_value.to_numpy(), method="BH"))
    # an informative covariate: the weights grow with it, and IHW finds more than BH
    assert res.weight_table.iloc[-1].mean() > res.weight_table.iloc[0].mean()
    assert res.n_rejections > np.sum(sc.p_adjust(p, method="BH") <= ALPHA)


def test_bonferroni_spends_the_budget():
    p, x, _, _ = simulate(6, m=9000)
    res = sc.ihw(p, x, alpha=ALPHA, nbins=5, lambdas=np.inf, adjustment_type="bonferroni", seed=3)
    w = np.asarray(res.weights)
    # weights averaging one in each fold: the weighted Bonferroni bound alpha * sum(w) / m is alpha
    assert w.sum() == pytest.approx(p.size, rel=1e-12)
    np.testing.assert_allclose(res.adj_p_values, np.minimum(1.0, p.size * np.minimum(p / w, 1.0)))
    np.testing.assert_array_equal(res.rejected, p * p.size <= ALPHA * w * (1 + 1e-12))
    # each fold's LP spends its budget exactly: sum over strata of m_g t_g = alpha
    prob = _Problem(p, np.asarray(res.groups) - 1, 5, ALPHA, "total variation", "bonferroni")
    hold = np.zeros(p.size, dtype=bool)
    hold[np.flatnonzero(np.asarray(res.folds)[prob.order] == 1)] = True
    m_hold = prob.counts(hold).astype(float)
    t = knapsack_thresholds(prob.pieces(np.flatnonzero(~hold)), m_hold, ALPHA, "bonferroni")
    assert np.sum(m_hold * t) == pytest.approx(ALPHA, rel=1e-12)
    np.testing.assert_allclose(thresholds_to_weights(t, m_hold), res.weight_table[1].to_numpy(), rtol=1e-12)


def brute_lcm(p, grid):
    """The least concave majorant of the ECDF through (0, 0) and (1, 1), by brute force: at each grid
    point the highest chord between two ECDF points around it."""
    u = np.unique(p)
    pts = [(v, np.mean(p <= v)) for v in u]
    if u[0] > 0:
        pts = [(0.0, 0.0)] + pts
    if u[-1] < 1:
        pts = pts + [(1.0, 1.0)]
    best = np.full(grid.size, -np.inf)
    for a, fa in pts:
        for b, fb in pts:
            inside = (grid >= a) & (grid <= b)
            if a == b:
                best[inside] = np.maximum(best[inside], fa)
            elif a < b:
                best[inside] = np.maximum(best[inside], fa + (fb - fa) * (grid[inside] - a) / (b - a))
    return best


@pytest.mark.parametrize("seed", range(4))
def test_grenander_is_the_least_concave_majorant(seed):
    rng = np.random.default_rng(seed)
    blocks = [np.round(rng.beta(0.4, 1.5, size=25), 2), rng.uniform(size=12), np.array([0.0, 0.0, 0.3, 1.0]),
              np.array([]), np.array([1.0, 1.0])]
    p = np.concatenate([np.sort(b) for b in blocks])
    starts = np.r_[0, np.cumsum([b.size for b in blocks])]
    grp, x, y, s = grenander_pieces(p, starts)
    grid = np.linspace(0, 1, 401)
    for g, b in enumerate(blocks):
        kx, ky, ks = x[grp == g], y[grp == g], s[grp == g]
        assert kx[0] == 0.0 and np.all(np.diff(ks) < 0)   # concave: strictly decreasing slopes
        fit = np.min(ky[:, None] + ks[:, None] * (grid[None, :] - kx[:, None]), axis=0)
        want = grid if b.size == 0 else brute_lcm(b, grid)
        np.testing.assert_allclose(fit, want, atol=1e-12)


def test_knapsack_and_windowed_lp_are_the_full_lp():
    """The exact shortcuts: without a penalty the LP is a fractional knapsack; a windowed LP checked
    to lie inside its window is the full LP's optimum."""
    p, x, _, rng = simulate(8, m=20000)
    g = np.minimum((x * 12).astype(int), 11)
    prob = _Problem(p, g, 12, ALPHA, "total variation", "BH")
    train = np.flatnonzero(rng.uniform(size=p.size) < 0.8)
    pc = prob.pieces(train)
    m_hold = np.bincount(g, minlength=12) * 0.2
    full_inf = lp_thresholds(pc, m_hold, ALPHA, 1e9, "total variation", "BH")   # a bound that never binds
    np.testing.assert_allclose(knapsack_thresholds(pc, m_hold, ALPHA, "BH"), full_inf, rtol=1e-9)
    for lam in (0.5, 2.0, 6.0):
        full = lp_thresholds(pc, m_hold, ALPHA, lam, "total variation", "BH")
        np.testing.assert_allclose(prob.thresholds(pc, m_hold, lam), full, rtol=1e-9)
        # a deliberately wrong window is widened until the optimum lies inside it
        bad = (np.full(12, 0.2), np.full(12, 0.5))
        np.testing.assert_allclose(lp_thresholds(pc, m_hold, ALPHA, lam, "total variation", "BH", window=bad),
                                   full, rtol=1e-9)
        tv = np.sum(np.abs(np.diff(thresholds_to_weights(full, m_hold))))
        assert tv <= lam * (1 + 1e-9)


# ----------------------------------------------------------------------------------------------
# inputs, missing values, containers, the result
# ----------------------------------------------------------------------------------------------

def test_bad_input_is_refused_naming_the_argument():
    p, x, _, _ = simulate(9, m=3000)
    with pytest.raises(ValueError, match="p must lie in"):
        sc.ihw(np.r_[p[:-1], 1.5], x)
    with pytest.raises(ValueError, match="covariate has 2999 values"):
        sc.ihw(p, x[:-1])
    with pytest.raises(ValueError, match="covariate is constant"):
        sc.ihw(p, np.ones(p.size), nbins=3)
    with pytest.raises(ValueError, match="nbins=4000 exceeds"):
        sc.ihw(p, x, nbins=4000)
    with pytest.raises(ValueError, match="lambdas must be non-negative"):
        sc.ihw(p, x, nbins=2, lambdas=[1.0, -1.0])
    with pytest.raises(ValueError, match="folds has 10 labels"):
        sc.ihw(p, x, nbins=2, folds=np.arange(10))
    with pytest.raises(ValueError, match="folds must hold integer"):
        sc.ihw(p, x, nbins=2, folds=np.full(p.size, 1.5))
    with pytest.raises(ValueError, match="covariate_type='nominal' needs labels"):
        sc.ihw(p, x, covariate_type="nominal")
    with pytest.raises(ValueError, match="adjustment_type"):
        sc.ihw(p, x, adjustment_type="holm")
    with pytest.raises(ValueError, match="nbins=3 but the categorical covariate has 2 levels"):
        sc.ihw(p, np.where(x < 0.5, "lo", "hi"), nbins=3)
    with pytest.raises(TypeError, match="covariate mixes text labels and numbers"):
        sc.ihw(p[:3], np.array(["a", 1.0, "b"], dtype=object))
    # strata of fewer than 1000 hypotheses: R's recommendation as a warning
    with pytest.warns(sc.StatcoreWarning, match="more than 1000 p-values per stratum"):
        sc.ihw(p, x, nbins=4, lambdas=np.inf, seed=1)


def test_missing_values_follow_nan_policy():
    p, x, _, rng = simulate(10, m=6000)
    folds = rng.integers(1, 4, size=p.size)
    p_nan, x_nan = p.copy(), x.copy()
    p_nan[[3, 50]] = np.nan
    x_nan[7] = np.nan
    with pytest.raises(ValueError, match="p and covariate contain 3 missing values"):
        sc.ihw(p_nan, x_nan, nbins=3)
    res = sc.ihw(p_nan, x_nan, nbins=3, folds=folds, lambdas=1.0, nan_policy="omit")
    keep = ~(np.isnan(p_nan) | np.isnan(x_nan))
    ref = sc.ihw(p[keep], x[keep], nbins=3, folds=folds[keep], lambdas=1.0)
    np.testing.assert_array_equal(np.isnan(res.weights), ~keep)
    np.testing.assert_array_equal(res.weights[keep], ref.weights)
    np.testing.assert_array_equal(res.adj_p_values[keep], ref.adj_p_values)
    assert not res.rejected[~keep].any() and res.n_rejections == ref.n_rejections


def test_series_in_series_out_and_the_result_protocol():
    p, x, _, _ = simulate(11, m=4500)
    idx = pd.Index([f"g{i}" for i in range(p.size)])
    res = sc.ihw(pd.Series(p, index=idx), pd.Series(x, index=idx), nbins=3, seed=4)
    assert isinstance(res.adj_p_values, pd.Series) and res.adj_p_values.index.equals(idx)
    fr = res.to_frame()
    assert fr.columns.tolist() == ["p_value", "covariate", "group", "fold", "weight", "weighted_p_value",
                                   "p_adjusted", "rejected"]
    assert fr.index.equals(idx)
    assert res.summary() == ("ihwResult object with 4500 hypothesis tests \nNominal FDR control level: 0.1 \n"
                             "Split into 3 bins, based on an ordinal covariate\n")
    assert repr(res).startswith("IHWResult(alpha=0.1, n_rejections=")
    # the same seed, the same answer; the table's columns are the folds 1..5, rows the strata 1..3
    assert sc.ihw(p, x, nbins=3, seed=4) == sc.ihw(p, x, nbins=3, seed=4)
    assert res.weight_table.columns.tolist() == [1, 2, 3, 4, 5] and res.weight_table.index.tolist() == [1, 2, 3]
    bonf = sc.ihw(p, x, nbins=1, adjustment_type="bonferroni")
    assert "Nominal FWER control level" in bonf.summary()


def test_categorical_covariate_gives_its_levels_as_strata():
    rng = np.random.default_rng(12)
    lab = pd.Categorical(rng.choice(["low", "mid", "high"], size=6000), categories=["low", "mid", "high"],
                         ordered=True)
    share = pd.Series(dict(low=0.02, mid=0.1, high=0.3))[np.asarray(lab)].to_numpy()
    p = stats.norm.sf(rng.normal(np.where(rng.uniform(size=6000) < share, 2.5, 0.0)))
    res = sc.ihw(p, lab, seed=1)
    assert res.nbins == 3 and res.weight_table.index.tolist() == ["low", "mid", "high"]
    assert (res.weight_table.loc["high"] > res.weight_table.loc["low"]).all()
    nominal = sc.ihw(p, np.asarray(lab, dtype=str), covariate_type="nominal", lambdas=1.0, seed=1)
    assert nominal.weight_table.index.tolist() == ["high", "low", "mid"]   # text labels sorted
    # R's uniform-deviation bound: sum over strata of |w_g - 1| <= lambda (binding here)
    dev = np.abs(nominal.weight_table - 1).sum(axis=0)
    assert (dev <= 1.0 + 1e-9).all() and dev.max() > 0.99


def test_plot_draws_one_line_per_fold():
    import matplotlib
    matplotlib.use("Agg")
    p, x, _, _ = simulate(13, m=4500)
    res = sc.ihw(p, x, nbins=3, lambdas=np.inf, seed=1)
    ax = res.plot()
    assert len(ax.get_lines()) == res.nfolds + 1
    import matplotlib.pyplot as plt
    plt.close("all")


# ----------------------------------------------------------------------------------------------
# Monte Carlo: FDR control with an uninformative covariate
# ----------------------------------------------------------------------------------------------

@pytest.mark.slow
def test_ihw_controls_fdr_with_an_uninformative_covariate():
    m = 4000

    def sampler(rng):
        x = rng.uniform(size=m)
        signal = rng.uniform(size=m) < 0.1
        return stats.norm.sf(rng.normal(np.where(signal, 2.5, 0.0))), x, signal

    def fdp(data, rng):
        p, x, signal = data
        rej = np.asarray(sc.ihw(p, x, alpha=ALPHA, nbins=4, seed=rng).rejected)
        return np.sum(rej & ~signal) / max(int(rej.sum()), 1)

    assert_error_rate(fdp, sampler, alpha=ALPHA, reps=120, seed=2024)
