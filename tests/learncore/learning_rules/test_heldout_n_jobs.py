"""heldout_loglik's n_jobs (the (fold, arch) fits through statcore.utils.parallel_map) never changes
the answer."""
import numpy as np
import pytest

pytest.importorskip("torch")

from learncore.learning_rules import heldout_loglik, simulate  # noqa: E402


def test_heldout_n_jobs_two_equals_one():
    mouse = simulate("1L", {"W": np.zeros((2, 3)), "eta": 0.05, "beta": 8.0}, 600, session_length=100, seed=1)
    runs = [heldout_loglik(mouse, archs=("1L", "2L"), folds=2, restarts=1, max_iter=30, seed=0, n_jobs=j)
            for j in (1, 2)]
    np.testing.assert_array_equal(runs[0].table["loglik"], runs[1].table["loglik"])
    np.testing.assert_array_equal(runs[0].table["train_loglik"], runs[1].table["train_loglik"])
    with pytest.raises(TypeError, match="n_jobs"):
        heldout_loglik(mouse, archs=("1L",), folds=2, n_jobs="all")


def test_calibrate_selection_n_jobs_two_equals_one():
    """calibrate_selection's (animal, replicate) streams come from statcore.utils.spawn_seeds: the
    bootstrap refits and the p-values do not depend on n_jobs."""
    import warnings

    from learncore.learning_rules import calibrate_selection, fit_many
    from statcore import ConvergenceWarning

    mice = {f"m{i}": simulate("1L", {"W": np.zeros((2, 3)), "eta": 0.05, "beta": 8.0}, 150, seed=i)
            .drop(columns=["p_right"]) for i in range(2)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        cmp = fit_many(mice, archs=("1L", "2L"), hidden=1, restarts=1, max_iter=20, B=0, seed=0)
        runs = [calibrate_selection(cmp, B=3, alpha=0.5, restarts=1, max_iter=20, seed=5, n_jobs=j) for j in (1, 2)]
    pd_a, pd_b = runs[0].to_frame(), runs[1].to_frame()
    assert pd_a.equals(pd_b)
