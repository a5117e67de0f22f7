"""The GCM at small n: a warning below the smallest n at which its size held, and the size there.

benchmarks/size_cit_small_n.py measured the scalar GCM's size per regression and n (1000 data sets
per n) on a heteroscedastic t_5 null and a nonlinear one; ``GCM_MIN_N`` records from which n on the
level held. Below it the normal reference is too light-tailed (OLS, heavy-tailed null: 0.146 at
n = 8, 0.121 at n = 10, 0.073 at n = 20).
"""
import warnings

import numpy as np
import pytest

from statcore.cit import GCMWarning, gcm_test, rpcit
from statcore.cit._gcm_core import GCM_MIN_N, KRR_RPCIT_MIN_N
from statcore.testing import assert_size

ALPHA = 0.05


@pytest.fixture(autouse=True, scope="module")
def one_blas_thread():
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        yield


def heavy_tailed_null(rng, n):
    z = rng.normal(size=n)
    x = z + (1 + 0.5 * np.abs(z)) * rng.standard_t(5, size=n)
    y = -z + rng.normal(size=n)
    return x, y, z


@pytest.mark.parametrize("reg", ["ols", "ridge", "krr"])
def test_warns_below_the_minimum_n_only(reg):
    m = GCM_MIN_N[reg]
    rng = np.random.default_rng(1)
    x, y, z = heavy_tailed_null(rng, m)
    with pytest.warns(GCMWarning, match=f"below {m}, the smallest n"):
        gcm_test(x[:m - 1], y[:m - 1], z[:m - 1], regression=reg, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", GCMWarning)
        gcm_test(x, y, z, regression=reg, seed=1)


def test_rpcit_warns_too():
    rng = np.random.default_rng(2)
    z = rng.normal(size=(12, 1))
    x, y = z + rng.normal(size=(12, 3)), rng.normal(size=(12, 3))
    with pytest.warns(GCMWarning, match="the smallest n"):
        rpcit(x, y, z, k=5, seed=1)


def test_rpcit_kernel_ridge_limit_warns():
    rng = np.random.default_rng(3)
    n = 200
    z = rng.normal(size=(n, 2))
    x, y = np.sin(z) @ rng.normal(size=(2, 4)) + rng.normal(size=(n, 4)), rng.normal(size=(n, 4))
    with pytest.warns(GCMWarning, match=f"regression='krr' at n = {n} < {KRR_RPCIT_MIN_N}"):
        rpcit(x, y, z, k=10, regression="krr", seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", GCMWarning)
        rpcit(x, y, z, k=10, regression="krr", aggregate="topr", seed=1)   # conservative: held


@pytest.mark.slow
def test_size_at_and_below_the_minimum_n_ols():
    def size_check(n):                     # 1000 data sets in order from one Generator, seed 1000 + n
        return assert_size(lambda xyz, rng: gcm_test(*xyz), lambda rng: heavy_tailed_null(rng, n), alpha=ALPHA,
                           reps=1000, seed=1000 + n)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GCMWarning)
        size_check(GCM_MIN_N["ols"])
        with pytest.raises(AssertionError, match="exceeds the bound"):   # what the warning is about
            size_check(8)
