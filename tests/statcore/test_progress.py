"""Progress bars (issue 22, section 4): the one helper (statcore.utils.progress_bar, parallel_map) and
the ``progress`` argument of every long-running function: a bar on stderr when asked, none by
default when stderr is not a terminal (as under pytest), the same answer either way, and a clear
error for anything but True/False/None."""
import numpy as np
import pandas as pd
import pytest

import statcore as sc
from statcore.utils import check_progress, parallel_map, progress_bar

pytest.importorskip("tqdm")

RNG = np.random.default_rng(8)
X = RNG.standard_normal((40, 2))
Y = X[:, 0] ** 2 + RNG.standard_normal(40)
Z = RNG.standard_normal(40)
Y2 = np.column_stack([Y, Y ** 2])  # two columns for the max-type CI tests


def test_progress_bar_off_counts_silently(capsys):
    with progress_bar(False, 5, desc="quiet") as bar:
        for _ in range(5):
            bar.update()
    assert not bar and bar.n == 5
    with progress_bar(None, 5, desc="quiet") as bar:  # pytest's stderr is not a terminal
        bar.update(5)
    assert not bar
    assert "quiet" not in capsys.readouterr().err


def test_progress_bar_on_draws(capsys):
    with progress_bar(True, 3, desc="loud", unit="step") as bar:
        bar.update(3)
    assert bar.n == 3
    err = capsys.readouterr().err
    assert "loud" in err and "step" in err


@pytest.mark.parametrize("bad", [1, "yes", 0.5, [True]])
def test_bad_progress_names_itself(bad):
    with pytest.raises(TypeError, match="progress must be True, False or None"):
        check_progress(bad)
    with pytest.raises(TypeError, match="progress"):
        progress_bar(bad, 3)
    with pytest.raises(TypeError, match="progress"):
        sc.dcor_test(X, Y, B=9, seed=0, progress=bad)


def test_progress_bar_refuses_a_bad_total():
    with pytest.raises(TypeError, match="total"):
        progress_bar(False, 2.5)
    with pytest.raises(ValueError, match="total"):
        progress_bar(False, -1)


def test_parallel_map_keeps_order_and_counts_weights(capsys):
    import joblib

    tasks = [(k, 4) for k in range(9)]
    with joblib.parallel_config(backend="threading"):
        out = parallel_map(divmod, tasks, n_jobs=2, progress=True, desc="pm", weights=[2] * 9)
    assert out == [divmod(k, 4) for k in range(9)]
    assert "/18 [" in capsys.readouterr().err
    assert parallel_map(divmod, tasks, n_jobs=1, progress=False) == out
    with pytest.raises(ValueError, match="weights"):
        parallel_map(divmod, tasks, weights=[1])
    with pytest.raises(TypeError, match="func"):
        parallel_map(3, tasks)
    with pytest.raises(ValueError, match="n_jobs"):
        parallel_map(divmod, tasks, n_jobs=0)


def _corr_base(x, y, z):
    """A callable base test for rpcit: the two-sided p-value of the correlation of the projections."""
    from scipy import stats

    return float(stats.pearsonr(x, y).pvalue)


# every function with a ``progress`` argument: a bar when asked, the same answer as without
CASES = {
    "dcor_test": lambda pr: sc.dcor_test(X, Y, B=99, seed=1, progress=pr).p_value,
    "dcov_test": lambda pr: sc.dcov_test(X, Y, B=99, seed=1, progress=pr).p_value,
    "pdcor_test": lambda pr: sc.pdcor_test(X, Y, Z, B=99, seed=1, progress=pr).p_value,
    "hsic_test": lambda pr: sc.hsic_test(X, Y, method="permutation", B=99, seed=1, progress=pr).p_value,
    "hsic_test[rff]": lambda pr: sc.hsic_test(X, Y, method="permutation", B=49, seed=1, approx="rff",
                                              n_features=10, progress=pr).p_value,
    "dhsic_test": lambda pr: sc.dhsic_test(X, Y, Z, method="bootstrap", B=99, seed=1, progress=pr).p_value,
    "independence_matrix": lambda pr: sc.independence_matrix(
        pd.DataFrame({"a": X[:, 0], "b": Y, "c": Z}), test="dcor", B=49, seed=1, progress=pr).to_frame(),
    "compare_by_group": lambda pr: sc.compare_by_group(
        {g: {"m1": sc.LogLik(-10.0 - g, 2, 50), "m2": sc.LogLik(-9.0 - 2 * g, 3, 50)} for g in range(5)},
        B=100, seed=1, progress=pr).boot_wins,
    "c2g": lambda pr: sc.c2g(Y, X[:, 1] > 0, X[:, :1], model="nonparametric", B=10, seed=1,
                             progress=pr).to_frame(),
    "joint_bounds": lambda pr: sc.joint_bounds(Y, X[:, 1] > 0, f="product", B=50, seed=1, progress=pr).to_frame(),
    "ite_variance_bounds": lambda pr: sc.ite_variance_bounds(Y, X[:, 1] > 0, B=50, seed=1, progress=pr).to_frame(),
    "mmd_test": lambda pr: sc.mmd_test(X[:30], X[30:60] + 0.3, B=99, seed=1, progress=pr).extras["replicates"],
    "energy_test": lambda pr: sc.energy_test(X[:30], X[30:60] + 0.3, B=99, seed=1, progress=pr).extras["replicates"],
    "pc_skeleton": lambda pr: sc.cit.pc_skeleton(pd.DataFrame({"a": X[:, 0], "b": Y, "c": Z}), test="gcm",
                                                 seed=1, progress=pr).tests,
    "gcm_test[max]": lambda pr: sc.gcm_test(X, Y2, Z, kind="max", B=99, seed=1,
                                            progress=pr).p_value,
    "rpcit[maxboot]": lambda pr: sc.rpcit(X, Y2, Z, k=5, aggregate="maxboot", B=99, seed=1,
                                          progress=pr).p_value,
    "rpcit[callable base]": lambda pr: sc.rpcit(X, Y2, Z, k=5, base=_corr_base, seed=1,
                                                progress=pr).extras["p_values"],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_progress_argument(name, capsys):
    quiet = CASES[name](None)
    assert capsys.readouterr().err == ""
    loud = CASES[name](True)
    assert "%|" in capsys.readouterr().err  # a tqdm bar was drawn
    if isinstance(quiet, (pd.DataFrame, pd.Series)):
        pd.testing.assert_frame_equal(quiet, loud)
    else:
        np.testing.assert_array_equal(quiet, loud)


def test_fit_many_progress(capsys):
    pytest.importorskip("torch")
    import warnings

    from learncore.learning_rules import fit_many, simulate

    w = {"W": np.zeros((2, 3)), "eta": 0.05, "beta": 8.0}
    mice = {f"m{k}": simulate("1L", w, 80, seed=k) for k in range(2)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sc.ConvergenceWarning)
        quiet = fit_many(mice, archs=("1L",), restarts=1, max_iter=10, B=20, seed=0)
        assert capsys.readouterr().err == ""
        loud = fit_many(mice, archs=("1L",), restarts=1, max_iter=10, B=20, seed=0, progress=True)
    err = capsys.readouterr().err
    assert "fits" in err and "bootstrap" in err
    pd.testing.assert_frame_equal(quiet.table, loud.table)
    with pytest.raises(TypeError, match="progress"):
        fit_many(mice, archs=("1L",), progress="yes")


@pytest.mark.parametrize("call, count, label", [
    (lambda: sc.gcm_test(X, Y2, Z, kind="max", B=99, seed=1, progress=True),
     "/99 [", "multiplier bootstrap"),
    (lambda: sc.rpcit(X, Y2, Z, k=5, aggregate="topr_boot", r=2, B=99, seed=1, progress=True),
     "/99 [", "multiplier bootstrap"),
    (lambda: sc.rpcit(X, Y2, Z, k=6, base=_corr_base, seed=1, progress=True),
     "/6 [", "projections"),
])
def test_cit_bars_count_the_long_loop(call, count, label, capsys):
    """gcm_test's and rpcit's bars count what their loop runs: the B multiplier draws (the engine's bar,
    run_stream) or the k projections of a callable base (parallel_map's bar)."""
    call()
    err = capsys.readouterr().err
    assert label in err and count in err
    with pytest.raises(TypeError, match="progress must be True, False or None"):
        sc.gcm_test(X, Y, Z, progress="yes")
    with pytest.raises(TypeError, match="progress must be True, False or None"):
        sc.rpcit(X, Y2, Z, k=3, progress=1)
