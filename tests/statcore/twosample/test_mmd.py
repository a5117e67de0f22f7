"""KID against torch-fidelity and torchmetrics on the same subsets; the MMD statistic against
torch-fidelity's estimator; the energy test against R energy (golden values and a live session);
the size of both permutation tests by seeded Monte Carlo."""
import re

import numpy as np
import pytest

import _peers
from helpers import load_golden_json, r_vector, requires_r, run_r
from statcore import energy_test, kid, mmd_test


# ----------------------------------------------------------------------------------------------
# KID
# ----------------------------------------------------------------------------------------------

def _features(seed, n1=300, n2=260, d=32):
    rng = np.random.default_rng(seed)
    return np.abs(rng.normal(size=(n1, d))), np.abs(rng.normal(0.1, 1.1, size=(n2, d)))  # ReLU-like features


def test_kid_equals_torch_fidelity_on_the_same_subsets():
    mmd2, kernel_poly = _peers.torch_fidelity_mmd2()
    x, y = _features(1)
    res = kid(x, y, subsets=5, subset_size=100, seed=3)
    peer = []
    for ix, iy in res.indices:
        f1, f2 = x[ix], y[iy]
        peer.append(mmd2(kernel_poly(f1, f1), kernel_poly(f1, f2), kernel_poly(f2, f2)))
    assert np.allclose(res.values, peer, rtol=1e-10, atol=0)
    assert res.estimate == pytest.approx(np.mean(peer), rel=1e-10)
    assert res.std_dev == pytest.approx(np.std(peer), rel=1e-8)  # torch-fidelity: np.std (ddof 0)


def test_kid_equals_torchmetrics_on_the_same_subsets():
    torch = pytest.importorskip("torch")
    poly_mmd = _peers.torchmetrics_poly_mmd()
    x, y = _features(2)
    res = kid(x, y, subsets=3, subset_size=120, seed=4)
    for (ix, iy), value in zip(res.indices, res.values):
        peer = float(poly_mmd(torch.from_numpy(x[ix]), torch.from_numpy(y[iy])))
        assert value == pytest.approx(peer, rel=1e-10)


def test_kid_uses_all_rows_when_the_subset_is_the_sample():
    x, y = _features(5, n1=80, n2=80, d=6)
    res = kid(x, y, subsets=2, subset_size=80, seed=0)
    assert res.values[0] == pytest.approx(res.values[1], rel=1e-12)  # a permutation of all rows
    assert res.indices.shape == (2, 2, 80)


# ----------------------------------------------------------------------------------------------
# MMD test
# ----------------------------------------------------------------------------------------------

def test_mmd_statistic_equals_torch_fidelity_estimator():
    mmd2, kernel_poly = _peers.torch_fidelity_mmd2()
    rng = np.random.default_rng(6)
    x, y = rng.normal(size=(50, 3)), rng.normal(0.3, size=(50, 3))
    res = mmd_test(x, y, kernel="polynomial", B=19, seed=1)
    assert res.statistic == pytest.approx(mmd2(kernel_poly(x, x), kernel_poly(x, y), kernel_poly(y, y)), rel=1e-12)
    z = np.vstack([x, y])
    d = np.sqrt(((z[:, None, :] - z[None, :, :]) ** 2).sum(-1))
    s = np.median(d[np.triu_indices(100, 1)])
    g = mmd_test(x, y, B=19, seed=1)
    k = np.exp(-d ** 2 / (2 * s * s))
    assert g.extras["bandwidth"] == pytest.approx(s, rel=1e-12)
    assert g.statistic == pytest.approx(mmd2(k[:50, :50], k[:50, 50:], k[50:, 50:]), rel=1e-10)
    lap = mmd_test(x, y, kernel="laplace", bandwidth=2.0, B=19, seed=1)
    k = np.exp(-d / 2.0)
    assert lap.statistic == pytest.approx(mmd2(k[:50, :50], k[:50, 50:], k[50:, 50:]), rel=1e-10)


def test_mmd_permutation_p_value_by_definition():
    rng = np.random.default_rng(7)
    x, y = rng.normal(size=(12, 2)), rng.normal(size=(9, 2))
    res = mmd_test(x, y, B=49, seed=2)
    reps = res.extras["replicates"]
    assert res.p_value == (1 + np.sum(reps >= res.statistic)) / 50
    # one replicate recomputed from its permutation
    perm = np.random.default_rng(2).permutation(21)
    z = np.vstack([x, y])[perm]
    again = mmd_test(z[:12], z[12:], bandwidth=res.extras["bandwidth"], B=1, seed=0)
    assert reps[0] == pytest.approx(again.statistic, rel=1e-10)
    assert mmd_test(x, y, B=49, seed=2) == res


# ----------------------------------------------------------------------------------------------
# energy test: R energy
# ----------------------------------------------------------------------------------------------

GOLDEN = load_golden_json("twosample", "etest_golden.json")


def _without_pvalue(text):
    return re.sub(r", p-value [=<] \S+", "", text).strip("\n")


@pytest.mark.parametrize("name", sorted(GOLDEN["sets"]))
def test_energy_golden_r(name):
    g = GOLDEN["sets"][name]
    x, y = np.array(g["x"], float), np.array(g["y"], float)
    res = energy_test(x, y, B=199, seed=1)
    assert res.statistic == pytest.approx(g["statistic"], rel=1e-10)
    assert _without_pvalue(res.summary()) == _without_pvalue(g["print"])


@requires_r("energy")
def test_energy_live_r():
    rng = np.random.default_rng(9)
    x, y = rng.standard_t(4, size=(23, 2)), rng.normal(0.2, size=(31, 2))
    res = energy_test(x, y, B=99, seed=3)
    code = f"""suppressPackageStartupMessages(library(energy))
x <- matrix({r_vector(x.ravel(order='F'))}, {x.shape[0]})
y <- matrix({r_vector(y.ravel(order='F'))}, {y.shape[0]})
set.seed(1); r <- eqdist.etest(rbind(x, y), sizes = c(nrow(x), nrow(y)), R = 99)
cat(sprintf('%.17g', r$statistic), '\\n')
r$p.value <- {res.p_value!r}
print(r)
"""
    out = run_r(code)
    stat, printed = out.split("\n", 1)
    assert res.statistic == pytest.approx(float(stat), rel=1e-10)
    assert res.summary().strip("\n") == printed.strip("\n")


# ----------------------------------------------------------------------------------------------
# size and power by seeded Monte Carlo
# ----------------------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("test", ["mmd", "energy"])
def test_size_under_the_null(test):
    """600 data sets from one distribution (n1 = 20, n2 = 15, d = 2), B = 99: the rejection rate at
    0.05 lies within 0.05 +- 3 Monte Carlo standard errors (the band [0.023, 0.077], which a size of
    0.10 or 0.01 misses with probability 0.97 or 0.997: the failures it must catch)."""
    from statcore.testing import assert_size

    def sampler(rng):
        return rng.standard_t(5, size=(20, 2)), rng.standard_t(5, size=(15, 2))

    def p_value(xy, rng):
        return mmd_test(*xy, B=99, seed=rng) if test == "mmd" else energy_test(*xy, B=99, seed=rng)

    # the draws of the former hand-written loop: data, then the test, from one Generator
    assert_size(p_value, sampler, alpha=0.05, reps=600, seed=2026 if test == "mmd" else 2027, exact=True)


def test_power_against_a_shift():
    rng = np.random.default_rng(10)
    x, y = rng.normal(size=(40, 3)), rng.normal(0.8, size=(40, 3))
    assert mmd_test(x, y, B=199, seed=1).p_value <= 0.01
    assert energy_test(x, y, B=199, seed=1).p_value <= 0.01


def test_threaded_and_serial_kernels_agree():
    from statcore.twosample._kernels import perm_block_sums, perm_block_sums_serial
    rng = np.random.default_rng(11)
    k = np.ascontiguousarray(rng.random((40, 40)))
    perms = np.stack([rng.permutation(40) for _ in range(17)])
    assert np.array_equal(perm_block_sums(k, perms, 15), perm_block_sums_serial(k, perms, 15))
