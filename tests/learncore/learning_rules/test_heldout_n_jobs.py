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
