"""Scale-out on Dask (issue 22, section 5).

One ``distributed.LocalCluster`` (2 worker processes, 1 thread each) for the module:

- every ``n_jobs`` path runs unchanged under ``joblib.parallel_config(backend="dask")`` and returns
  what ``n_jobs=1`` returns under the same seed (fit_many, compare_by_group, pc_skeleton, c2g's
  bootstrap, a permutation test through independence_matrix);
- ``p_adjust`` on a ``dask.array`` equals the in-memory ``p_adjust`` bit for bit (10^6 p-values in
  uneven chunks, with NaN and ties), computed on the cluster.
"""
import warnings

import numpy as np
import pandas as pd
import pytest

import statcore as sc

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")
joblib = pytest.importorskip("joblib")


@pytest.fixture(scope="module")
def client():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # distributed's notes about ports and memory limits
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                           dashboard_address=":0")  # any free port: CI may run others
    cl = distributed.Client(cluster)
    try:
        yield cl
    finally:
        cl.close()
        cluster.close()


def on_dask(func, *args, **kwargs):
    with joblib.parallel_config(backend="dask"):
        return func(*args, **kwargs)


# ----------------------------------------------------------------------------------------------
# joblib's dask backend: the same answers as n_jobs=1
# ----------------------------------------------------------------------------------------------

def chain_data(n=300, seed=1):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(n)
    b = a + rng.standard_normal(n)
    c = b + rng.standard_normal(n)
    return pd.DataFrame({"A": a, "B": b, "C": c, "D": rng.standard_normal(n)})


def test_pc_skeleton_on_dask(client):
    df = chain_data()
    one = sc.cit.pc_skeleton(df, test="gcm", seed=3)
    two = on_dask(sc.cit.pc_skeleton, df, test="gcm", seed=3, n_jobs=2)
    pd.testing.assert_frame_equal(one.tests, two.tests)
    assert one.edges() == two.edges() == [("A", "B"), ("B", "C")]


def test_permutation_test_on_dask(client):
    df = chain_data(n=60, seed=2)
    one = sc.independence_matrix(df, test="dcor", B=99, seed=2)
    two = on_dask(sc.independence_matrix, df, test="dcor", B=99, seed=2, n_jobs=2)
    pd.testing.assert_frame_equal(one.to_frame(), two.to_frame())
    # the permutation p-values are really random draws: another seed moves them
    three = sc.independence_matrix(df, test="dcor", B=99, seed=5)
    assert not one.to_frame()["p_value"].equals(three.to_frame()["p_value"])


def _mean_diff(x, y, axis=-1):
    return np.mean(x, axis=axis) - np.mean(y, axis=axis)


def test_resampling_engine_on_dask(client, monkeypatch):
    from statcore import _resampling

    rng = np.random.default_rng(6)
    x, y = rng.normal(size=40), rng.normal(0.3, 1.0, size=35)
    B = 2 * 1024 + 11  # three stream blocks
    one = sc.permutation_test((x, y), _mean_diff, B=B, seed=7)
    boot1 = sc.bootstrap((x,), np.mean, B=B, method="bca", seed=8)
    monkeypatch.setattr(_resampling, "MEMORY_BUDGET", 1)  # one block per chunk: three tasks on the cluster
    two = on_dask(sc.permutation_test, (x, y), _mean_diff, B=B, seed=7, n_jobs=2)
    np.testing.assert_array_equal(one.extras["null_distribution"], two.extras["null_distribution"])
    boot2 = on_dask(sc.bootstrap, (x,), np.mean, B=B, method="bca", seed=8, n_jobs=2)
    assert boot1.confidence_interval == boot2.confidence_interval


def test_c2g_bootstrap_on_dask(client):
    rng = np.random.default_rng(4)
    n = 300
    X = rng.standard_normal((n, 2))
    treat = rng.uniform(size=n) < 0.5
    y = X[:, 0] + 3.0 * treat * (rng.uniform(size=n) < 0.3) + rng.standard_normal(n)
    one = sc.c2g(y, treat, X, model="nonparametric", B=20, seed=4)
    two = on_dask(sc.c2g, y, treat, X, model="nonparametric", B=20, seed=4, n_jobs=2)
    pd.testing.assert_frame_equal(one.to_frame(), two.to_frame())


def test_compare_by_group_on_dask(client):
    fits = {f"g{g}": {"1L": sc.LogLik(-500.0 - g, 5, 1000), "2NL": sc.LogLik(-490.0 - 2 * g, 11, 1000)}
            for g in range(6)}
    one = sc.compare_by_group(fits, B=200, seed=1)
    two = on_dask(sc.compare_by_group, fits, B=200, seed=1, n_jobs=2)
    pd.testing.assert_frame_equal(one.table, two.table)
    pd.testing.assert_frame_equal(one.per_group, two.per_group)
    np.testing.assert_array_equal(one.boot_wins, two.boot_wins)


def test_fit_many_on_dask(client):
    pytest.importorskip("torch")
    from learncore.learning_rules import fit_many, simulate

    w = {"W": np.zeros((2, 3)), "eta": 0.05, "beta": 8.0}
    mice = {f"m{k}": simulate("1L", w, 100, seed=k) for k in range(2)}
    kw = dict(archs=("1L",), restarts=1, max_iter=20, B=50, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sc.ConvergenceWarning)  # 20 iterations: a test of plumbing
        one = fit_many(mice, **kw)
        two = on_dask(fit_many, mice, n_jobs=2, **kw)
    pd.testing.assert_frame_equal(one.per_group, two.per_group)
    pd.testing.assert_frame_equal(one.table, two.table)
    for animal in mice:
        assert one.fits[animal]["1L"].loglik == two.fits[animal]["1L"].loglik


def test_progress_counts_dask_tasks(client, capsys):
    out = on_dask(sc.utils.parallel_map, divmod, [(k, 3) for k in range(7)], n_jobs=2, progress=True,
                  desc="demo")
    assert out == [divmod(k, 3) for k in range(7)]
    err = capsys.readouterr().err
    assert "demo" in err and "/7 [" in err  # tqdm throttles redraws: the last state may not be drawn


# ----------------------------------------------------------------------------------------------
# p_adjust on a dask array
# ----------------------------------------------------------------------------------------------

DASK_METHODS = ["bonferroni", "holm", "hochberg", "BH", "BY"]


def million(seed=0):
    """10^6 p-values: skewed, rounded to 5 digits (many ties), 5000 exact 1s, 1000 NaN."""
    rng = np.random.default_rng(seed)
    n = 10 ** 6
    p = np.round(rng.uniform(size=n) ** 3, 5)
    p[rng.choice(n, 5000, replace=False)] = 1.0
    p[rng.choice(n, 1000, replace=False)] = np.nan
    p[:300] = 0.5
    return p


def test_p_adjust_dask_equals_memory_on_the_cluster(client):
    p = million()
    chunks = (1, 250_000, 3, 400_000, 349_996)  # uneven, a one-value chunk among them
    x = da.from_array(p, chunks=(chunks,))
    lazy = [sc.p_adjust(x, method=m) for m in DASK_METHODS]
    assert all(isinstance(r, da.Array) and r.chunks == x.chunks for r in lazy)
    got = client.compute(lazy, sync=True)
    for m, r in zip(DASK_METHODS, got):
        ref = sc.p_adjust(p, method=m)
        assert np.array_equal(r, ref, equal_nan=True), m  # bit for bit, NaN where p is NaN


@pytest.mark.parametrize("method", DASK_METHODS + ["fdr", "none"])
def test_p_adjust_dask_small_cases(method):
    rng = np.random.default_rng(3)
    p = np.round(rng.uniform(size=(40, 7)) ** 2, 2)
    p[rng.uniform(size=p.shape) < 0.1] = np.nan
    p[:, 3] = np.nan                                         # an all-NaN block column
    x = da.from_array(p, chunks=((5, 20, 15), (3, 1, 3)))    # 2-d: all values adjusted together
    got = sc.p_adjust(x, method=method).compute(scheduler="sync")
    assert np.array_equal(got, sc.p_adjust(p, method=method), equal_nan=True)
    # more comparisons than p-values (R's n), and float32 input
    got = sc.p_adjust(x.astype(np.float32), method=method, n=500).compute(scheduler="sync")
    assert np.array_equal(got, sc.p_adjust(p.astype(np.float32), method=method, n=500), equal_nan=True)


@pytest.mark.parametrize("p", [[0.2], [np.nan, 0.3, np.nan], [np.nan, np.nan], [0.01, 0.01, 0.01, 1.0]])
def test_p_adjust_dask_edge_vectors(p):
    p = np.asarray(p, dtype=float)
    for method in DASK_METHODS:
        x = da.from_array(p, chunks=1)
        got = sc.p_adjust(x, method=method).compute(scheduler="sync")
        assert np.array_equal(got, sc.p_adjust(p, method=method), equal_nan=True)


def test_p_adjust_dask_massive_ties():
    """Half the p-values equal to 1 and most of the rest tied: the buckets still split (keys are
    value, chunk, position) and the result is exact."""
    rng = np.random.default_rng(9)
    p = np.where(rng.uniform(size=20_000) < 0.5, 1.0, rng.choice([0.001, 0.02, 0.3], size=20_000))
    x = da.from_array(p, chunks=3_000)
    for method in DASK_METHODS:
        got = sc.p_adjust(x, method=method).compute(scheduler="sync")
        assert np.array_equal(got, sc.p_adjust(p, method=method)), method


def test_p_adjust_dask_bad_input():
    x = da.from_array(np.array([0.1, 0.5, 1.5, 0.2]), chunks=2)
    with pytest.raises(ValueError, match=r"p must lie in \[0, 1\]"):
        sc.p_adjust(x, method="BH").compute(scheduler="sync")
    with pytest.raises(ValueError, match="infinite"):
        sc.p_adjust(da.from_array(np.array([0.1, np.inf])), method="holm").compute(scheduler="sync")
    ok = da.from_array(np.array([0.1, 0.5]), chunks=1)
    with pytest.raises(ValueError, match="method='hommel' is not available for a dask array"):
        sc.p_adjust(ok, method="hommel")
    with pytest.raises(ValueError, match="axis"):
        sc.p_adjust(ok, method="BH", axis=0)
    with pytest.raises(ValueError, match="n must be at least"):
        sc.p_adjust(ok, method="BH", n=1).compute(scheduler="sync")
