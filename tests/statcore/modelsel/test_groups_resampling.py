"""compare_by_group's bootstrap over groups runs on the resampling engine (run_stream): n_jobs = 2
gives exactly the n_jobs = 1 win counts over several chunks, the replicates are the win counts of the
group resamples drawn in order from the seed's Generator (as before the engine), and progress=True runs."""
import numpy as np
import pytest

import statcore as sc


def _fits(G=9):
    return {f"g{g}": {"m1": sc.LogLik(-10.0 - g, 2, 50), "m2": sc.LogLik(-9.0 - 1.3 * g, 3, 50),
                      "m3": sc.LogLik(-9.5 - 1.1 * g, 3, 50)} for g in range(G)}


def test_bootstrap_same_for_n_jobs():
    a = sc.compare_by_group(_fits(), B=2500, seed=4, n_jobs=1)
    b = sc.compare_by_group(_fits(), B=2500, seed=4, n_jobs=2)
    np.testing.assert_array_equal(a.boot_wins, b.boot_wins)
    assert a.table.equals(b.table)


@pytest.mark.parametrize("B", [30, 2500])
def test_replicates_are_win_counts_of_resampled_groups(B):
    res = sc.compare_by_group(_fits(), B=B, seed=2)
    best = np.array([res.models.index(m) for m in res.per_group["best"]])
    rng = np.random.default_rng(2)
    want = np.stack([np.bincount(best[rng.integers(0, best.size, best.size)], minlength=len(res.models))
                     for _ in range(B)])
    np.testing.assert_array_equal(res.boot_wins, want)


def test_progress_runs_and_bad_n_jobs(capsys):
    pytest.importorskip("tqdm")
    a = sc.compare_by_group(_fits(), B=200, seed=1, progress=True)
    assert "bootstrap" in capsys.readouterr().err
    np.testing.assert_array_equal(a.boot_wins, sc.compare_by_group(_fits(), B=200, seed=1).boot_wins)
    with pytest.raises(ValueError, match="n_jobs"):
        sc.compare_by_group(_fits(), B=20, n_jobs=0)
