"""statcore.indep.dcor: R energy parity (golden values and a live R session), the peers (dcor, hyppo),
brute force (the O(n log n) and blocked paths against the double-centred definition), properties,
the permutation machinery and bad input."""
import importlib
import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import statcore
from helpers import load_golden_json, r_vector, requires_r, run_r
from statcore import dcor, dcor_test, dcor_u, dcov, dcov_test, dcov_u, pdcor, pdcor_test, pdcov
from statcore._warnings import StatcoreWarning

#: the module (statcore.indep.dcor is the function dcor once the package is imported)
dmod = importlib.import_module("statcore.indep._dcov")   # the statistics
tmod = importlib.import_module("statcore.indep._dcor")   # the tests and their permutation paths

REL, ABS = 1e-10, 1e-13


def close(a, b, rel=REL, abs_=ABS):
    return abs(a - b) <= rel * abs(b) + abs_


def assert_close(a, b, what="", rel=REL, abs_=ABS):
    assert close(float(a), float(b), rel, abs_), f"{what}: {a!r} != {b!r} (rel diff {abs(a - b) / max(abs(b), 1e-300):.2e})"


def without_pvalue(text: str) -> str:
    return "\n".join(re.sub(r", p-value [=<] .*$", "", line) for line in text.splitlines())


# ----------------------------------------------------------------------------------------------
# brute force: the definitions with numpy (the oracle)
# ----------------------------------------------------------------------------------------------

def _dist(v, index=1.0):
    v = np.asarray(v, float).reshape(len(v), -1)
    d = np.sqrt(((v[:, None, :] - v[None, :, :]) ** 2).sum(-1))
    return d ** index


def _double_centre(d):
    return d - d.mean(0)[None, :] - d.mean(1)[:, None] + d.mean()


def _u_centre(d):
    n = d.shape[0]
    u = d - d.sum(0)[None, :] / (n - 2) - d.sum(1)[:, None] / (n - 2) + d.sum() / ((n - 1) * (n - 2))
    np.fill_diagonal(u, 0.0)
    return u


def brute_v(x, y, index=1.0):
    a, b = _double_centre(_dist(x, index)), _double_centre(_dist(y, index))
    n = a.shape[0]
    return (a * b).sum() / n ** 2, (a * a).sum() / n ** 2, (b * b).sum() / n ** 2


def brute_u(x, y, index=1.0):
    a, b = _u_centre(_dist(x, index)), _u_centre(_dist(y, index))
    return (a * b).sum(), (a * a).sum(), (b * b).sum()


def brute_pdcor(x, y, z, index=1.0):
    a, b, c = (_u_centre(_dist(v, index)) for v in (x, y, z))
    px = a - (a * c).sum() / (c * c).sum() * c
    py = b - (b * c).sum() / (c * c).sum() * c
    n = a.shape[0]
    return (px * py).sum() / np.sqrt((px * px).sum() * (py * py).sum()), (px * py).sum() / (n * (n - 3))


def _ties(rng, n):
    x = rng.integers(0, 5, size=n).astype(float)
    y = np.round(x / 2 + rng.normal(size=n))
    return x, y


# ----------------------------------------------------------------------------------------------
# golden values from R energy (tests/golden/indep/dcor_golden.R)
# ----------------------------------------------------------------------------------------------

GOLDEN = load_golden_json("indep", "dcor_golden.json")


@pytest.mark.parametrize("name", sorted(GOLDEN["sets"]))
def test_golden_r_energy(name):
    g = GOLDEN["sets"][name]
    x, y, z = (np.array(g[k], float) for k in ("x", "y", "z"))
    for key, res in g["by_index"].items():
        idx = float(res["index"])
        assert_close(dcov(x, y, index=idx), res["dcov"], f"dcov index {idx}")
        assert_close(dcor(x, y, index=idx), res["dcor"], f"dcor index {idx}")
        t = dcor_test(x, y, index=idx, B=19, seed=1)
        assert_close(t.statistic, res["dcor_test_statistic"], "dcor.test statistic")
        for k, v in res["dcor_test_estimates"].items():
            assert_close(t.estimate[k], v, f"dcor.test {k} index {idx}")
        assert without_pvalue(t.summary()).strip("\n") == res["dcor_test_print"].strip("\n")
        t2 = dcov_test(x, y, index=idx, B=19, seed=1)
        assert_close(t2.statistic, res["dcov_test_statistic"], "dcov.test statistic")
        assert_close(t2.estimate["dCov"], res["dcov_test_estimate"], "dcov.test estimate")
    assert_close(dcor_u(x, y), g["bcdcor"], "bcdcor")
    assert_close(dcov_u(x, y), g["dcovU"], "dcovU")
    assert_close(pdcor(x, y, z), g["pdcor"], "pdcor")
    assert_close(pdcov(x, y, z), g["pdcov"], "pdcov")
    tt = dcor_test(x, y, method="t")
    assert_close(tt.statistic, g["dcorT"]["statistic"], "dcorT.test T")
    assert_close(tt.parameter["df"], g["dcorT"]["df"], "dcorT.test df")
    assert_close(tt.p_value, g["dcorT"]["p_value"], "dcorT.test p-value")
    assert_close(tt.estimate["Bias corrected dcor"], g["dcorT"]["estimate"], "dcorT.test estimate")
    assert tt.summary().strip("\n") == g["dcorT"]["print"].strip("\n")
    assert_close(pdcor_test(x, y, z, B=19, seed=1).statistic, g["pdcor_test_statistic"], "pdcor.test statistic")


def _r_matrix(m):
    m = np.asarray(m, float).reshape(len(m), -1)
    return f"matrix({r_vector(m.ravel(order='F'))}, nrow = {m.shape[0]})"


@requires_r("energy")
def test_live_r_energy():
    # seeded (an unseeded draw once gave a strong dependence whose printed t-test p-value R rounds
    # differently, see below); the seed is advanced by hand when probing more data sets
    rng = np.random.default_rng(20261203)
    n = 35
    cases = {
        "mv": (rng.normal(size=(n, 3)), None, rng.normal(size=(n, 2))),
        "ties": (rng.integers(0, 4, size=(n, 1)).astype(float), None, rng.integers(0, 3, size=(n, 1)).astype(float)),
        "uni": (rng.standard_t(3, size=(n, 1)), None, rng.normal(size=(n, 1))),
    }
    code = ["suppressPackageStartupMessages(library(energy))", "f <- function(v) sprintf('%.17g', v)"]
    data = {}
    for name, (x, _, z) in cases.items():
        y = np.column_stack([np.abs(x[:, 0]) + rng.normal(size=n), rng.normal(size=n)])
        if name == "ties":
            y = np.round(y)
        data[name] = (x, y, z)
        code.append(f"x <- {_r_matrix(x)}; y <- {_r_matrix(y)}; z <- {_r_matrix(z)}")
        for idx in (1, 0.5, 1.5):
            code.append(f"t1 <- dcor.test(x, y, index = {idx}, R = 9); t2 <- dcov.test(x, y, index = {idx}, R = 9)")
            code.append(f"cat('{name}', {idx}, f(dcov(x, y, index = {idx})), f(dcor(x, y, index = {idx})), "
                        "f(t1$statistic), f(t1$estimates), f(t2$statistic), '\\n')")
            code.append("p1 <- capture.output(print(t1)); cat('PRINT', sub(', p-value [=<] .*$', '', p1), sep = '\\n')"
                        "; cat('END\\n')")
        code.append(f"tt <- dcorT.test(x, y); cat('{name}', 'U', f(bcdcor(x, y)), f(dcovU(x, y)), f(pdcor(x, y, z)), "
                    "f(pdcov(x, y, z)), f(tt$statistic), f(tt$parameter), f(tt$p.value), "
                    "f(pdcor.test(x, y, z, R = 9)$statistic), '\\n')")
        code.append("cat('PRINT', capture.output(print(tt)), sep = '\\n'); cat('END\\n')")
    out = run_r("\n".join(code))
    lines = out.splitlines()
    prints, k = [], 0
    values = []
    while k < len(lines):
        if lines[k] == "PRINT":
            end = lines.index("END", k)
            prints.append("\n".join(lines[k + 1:end]))
            k = end + 1
        else:
            values.append(lines[k].split())
            k += 1
    pi = 0
    for row in values:
        name = row[0]
        x, y, z = data[name]
        if row[1] != "U":
            idx = float(row[1])
            v = [float(s) for s in row[2:]]
            assert_close(dcov(x, y, index=idx), v[0], f"{name} dcov {idx}")
            assert_close(dcor(x, y, index=idx), v[1], f"{name} dcor {idx}")
            t1 = dcor_test(x, y, index=idx, B=9, seed=0)
            assert_close(t1.statistic, v[2], f"{name} dcor.test")
            for e, val in zip(("dCov", "dCor", "dVar(X)", "dVar(Y)"), v[3:7]):
                assert_close(t1.estimate[e], val, f"{name} {e}")
            assert_close(dcov_test(x, y, index=idx, B=9, seed=0).statistic, v[7], f"{name} dcov.test")
            assert without_pvalue(t1.summary()).strip("\n") == prints[pi].strip("\n")
        else:
            v = [float(s) for s in row[2:]]
            assert_close(dcor_u(x, y), v[0], f"{name} bcdcor")
            assert_close(dcov_u(x, y), v[1], f"{name} dcovU")
            assert_close(pdcor(x, y, z), v[2], f"{name} pdcor")
            assert_close(pdcov(x, y, z), v[3], f"{name} pdcov")
            tt = dcor_test(x, y, method="t")
            assert_close(tt.statistic, v[4], f"{name} T")
            assert_close(tt.parameter["df"], v[5], f"{name} df")
            assert_close(tt.p_value, v[6], f"{name} p", abs_=1e-15)
            assert_close(pdcor_test(x, y, z, B=9, seed=0).statistic, v[7], f"{name} pdcor.test")
            if v[6] < 1e-10:
                # R's 1 - pt(T, df) keeps only the absolute accuracy 1e-16, so the 4 printed digits of
                # a p-value this small are R's rounding error; statcore prints the exact upper tail
                assert without_pvalue(tt.summary()).strip("\n") == without_pvalue(prints[pi]).strip("\n")
            else:
                assert tt.summary().strip("\n") == prints[pi].strip("\n")
        pi += 1
    assert pi == len(prints) == 12


# ----------------------------------------------------------------------------------------------
# peers: the dcor package and hyppo
# ----------------------------------------------------------------------------------------------

def test_peer_dcor_package():
    """The dcor package's definitions coincide with energy's; its pure-numpy mode (``NO_COMPILE``)
    is compared here, so that the test does not pay the package's numba compilation."""
    dcor_pkg = pytest.importorskip("dcor")
    plain = {"compile_mode": dcor_pkg.CompileMode.NO_COMPILE}
    rng = np.random.default_rng(11)
    n = 60
    x = rng.normal(size=(n, 2))
    y = np.column_stack([x[:, 0] ** 2 + rng.normal(size=n), rng.normal(size=n)])
    z = rng.normal(size=(n, 1))
    xt, yt = _ties(rng, n)
    for a, b in ((x, y), (xt, yt), (x[:, 0], y[:, 0])):
        for idx in (1.0, 0.5, 1.5):
            kw = dict(exponent=idx, **plain)
            assert_close(dcor(a, b, index=idx), dcor_pkg.distance_correlation(a, b, **kw), "dcor")
            assert_close(dcov(a, b, index=idx), dcor_pkg.distance_covariance(a, b, **kw), "dcov")
            assert_close(dcor_u(a, b, index=idx), dcor_pkg.u_distance_correlation_sqr(a, b, **kw), "dcor_u")
            assert_close(dcov_u(a, b, index=idx), dcor_pkg.u_distance_covariance_sqr(a, b, **kw), "dcov_u")
    assert_close(pdcor(x, y, z), dcor_pkg.partial_distance_correlation(x, y, z), "pdcor")
    assert_close(pdcov(x, y, z), dcor_pkg.partial_distance_covariance(x, y, z), "pdcov")
    # the univariate O(n log n) path against the dcor package's own O(n log n) method, with ties
    for xl, yl in ((rng.normal(size=20000), rng.normal(size=20000)), _ties(rng, 20000)):
        yl = xl + yl
        for ours, theirs in ((dcor, dcor_pkg.distance_correlation), (dcor_u, dcor_pkg.u_distance_correlation_sqr)):
            assert_close(ours(xl, yl), theirs(xl, yl, method="mergesort", **plain), "mergesort", rel=1e-9)


def test_peer_hyppo_dcorr(monkeypatch):
    """hyppo's Dcorr statistic. Its numba kernels take about a minute to compile on a cold cache, so
    they run here as the Python functions they were compiled from (hyppo's own code, uncompiled)."""
    pytest.importorskip("hyppo")
    from hyppo.independence import Dcorr
    import hyppo.independence.dcorr as hd

    for name in ("_dcorr", "_dcov", "_center_distmat", "_fast_1d_dcov", "_cpu_cumsum"):
        monkeypatch.setattr(hd, name, getattr(hd, name).py_func)
    rng = np.random.default_rng(12)
    x = rng.normal(size=(50, 3))
    y = x[:, :2] ** 2 + rng.normal(size=(50, 2))
    xt, yt = _ties(rng, 40)
    for a, b in ((x, y), (xt[:, None], yt[:, None])):
        # hyppo's default statistic is the bias-corrected squared dCor; bias=True gives dCor itself
        assert_close(Dcorr().statistic(a, b), dcor_u(a, b), "hyppo Dcorr")
        assert_close(Dcorr(bias=True).statistic(a, b), dcor(a, b), "hyppo Dcorr(bias=True)")


# ----------------------------------------------------------------------------------------------
# brute force: the fast and blocked paths against the definitions
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [4, 5, 17, 64, 301])
def test_fast_path_equals_definition(n):
    rng = np.random.default_rng(n)
    for x, y in (_ties(rng, n), (rng.normal(size=n), rng.standard_t(2, size=n)),
                 (np.round(rng.normal(size=n), 1), rng.normal(size=n))):
        g = dmod._gram([x[:, None], y[:, None]], 1.0, unbiased=False)
        v = brute_v(x, y)
        n2 = n * n
        for got, want in zip((g[0, 1] / n2, g[0, 0] / n2, g[1, 1] / n2), v):
            assert_close(got, want, "V fast", rel=1e-12, abs_=1e-13)
        gu = dmod._gram([x[:, None], y[:, None]], 1.0, unbiased=True)
        for got, want in zip((gu[0, 1], gu[0, 0], gu[1, 1]), brute_u(x, y)):
            assert_close(got, want, "U fast", rel=1e-12, abs_=1e-11 * n)


def test_blocked_statistics_equal_definition():
    rng = np.random.default_rng(3)
    n = 57
    x = rng.normal(size=(n, 3))
    y = np.column_stack([rng.integers(0, 3, size=n), rng.normal(size=n)]).astype(float)
    z = rng.normal(size=n)
    for idx in (1.0, 0.5, 1.5):
        v = brute_v(x, y, idx)
        assert_close(dcov(x, y, index=idx), np.sqrt(v[0]), "dcov", rel=1e-12)
        assert_close(dcor(x, y, index=idx), np.sqrt(v[0] / np.sqrt(v[1] * v[2])), "dcor", rel=1e-12)
        u = brute_u(x, y, idx)
        assert_close(dcor_u(x, y, index=idx), u[0] / np.sqrt(u[1] * u[2]), "dcor_u", rel=1e-12)
        assert_close(dcov_u(x, y, index=idx), u[0] / (n * (n - 3)), "dcov_u", rel=1e-12)
        pc, pv = brute_pdcor(x, y, z, idx)
        assert_close(pdcor(x, y, z, index=idx), pc, "pdcor", rel=1e-12)
        assert_close(pdcov(x, y, z, index=idx), pv, "pdcov", rel=1e-12)


def test_fast_path_is_automatic_and_equals_blocked(monkeypatch):
    rng = np.random.default_rng(5)
    x, y = _ties(rng, 200)
    fast = (dcor(x, y), dcov(x, y), dcor_u(x, y), dcov_u(x, y), pdcor(x, y, y[::-1].copy()))
    assert dcor_test(x, y, B=9, seed=1).extras["path"] == "fast"
    monkeypatch.setattr(dmod, "_is_fast", lambda arrays, index: False)
    monkeypatch.setattr(tmod, "_is_fast", lambda arrays, index: False)
    slow = (dcor(x, y), dcov(x, y), dcor_u(x, y), dcov_u(x, y), pdcor(x, y, y[::-1].copy()))
    for a, b in zip(fast, slow):
        assert_close(a, b, "fast vs blocked", rel=1e-12)


@pytest.mark.parametrize("kind", ["dcor", "dcov", "pdcor"])
def test_permutation_paths_agree(monkeypatch, kind):
    """The replicates of the recompute path (dcor/dcov, index 1, narrow samples), the matrix path,
    the blocked path and (univariate) the fast path are the same numbers for the same seed."""
    rng = np.random.default_rng(8)
    n = 48
    x, y = _ties(rng, n)
    z = rng.normal(size=n)
    xm = np.column_stack([x, rng.normal(size=n)])

    def run():
        if kind == "dcor":
            return dcor_test(x, y, B=30, seed=4), dcor_test(xm, y, B=30, seed=4)
        if kind == "dcov":
            return dcov_test(x, y, B=30, seed=4), dcov_test(xm, y, B=30, seed=4)
        return pdcor_test(x, y, z, B=30, seed=4), pdcor_test(xm, y, z, B=30, seed=4)

    base = run()
    monkeypatch.setattr(dmod, "_is_fast", lambda arrays, index: False)
    monkeypatch.setattr(tmod, "_is_fast", lambda arrays, index: False)
    recompute = run()
    monkeypatch.setattr(tmod, "RECOMPUTE_MAX_DIM", 0)
    matrix = run()
    monkeypatch.setattr(tmod, "MATRIX_BYTES", 0)
    blocked = run()
    for b, r, m, k in zip(base, recompute, matrix, blocked):
        assert r.extras["path"] == ("recompute" if kind != "pdcor" else "matrix")
        assert m.extras["path"] == "matrix" and k.extras["path"] == "blocked"
        for other in (r, m, k):
            np.testing.assert_allclose(other.extras["replicates"], b.extras["replicates"], rtol=1e-12, atol=1e-14)
            assert_close(other.statistic, b.statistic, "statistic", rel=1e-12)
    assert base[0].extras["path"] == ("fast" if kind != "pdcor" else "matrix")
    assert base[1].extras["path"] == ("recompute" if kind != "pdcor" else "matrix")


# ----------------------------------------------------------------------------------------------
# properties
# ----------------------------------------------------------------------------------------------

_samples = st.integers(min_value=5, max_value=40).flatmap(
    lambda n: st.tuples(st.just(n), st.integers(0, 2 ** 32 - 1), st.integers(1, 3), st.booleans()))


def _draw(n, seed, p, ties):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, p))
    y = np.column_stack([np.abs(x[:, 0]) + rng.normal(size=n), rng.normal(size=n)])
    if ties:
        x, y = np.round(x), np.round(y)
    return x, y


def _nonconstant(*arrays):
    return all(not np.all(a == a[0]) for a in arrays)


@settings(max_examples=50, deadline=None)
@given(_samples, st.floats(-5, 5), st.floats(0.1, 10), st.floats(0.6, 1.4))
def test_dcor_invariances(sample, shift, scale, index):
    n, seed, p, ties = sample
    x, y = _draw(n, seed, p, ties)
    if not _nonconstant(x, y):
        return
    q, _ = np.linalg.qr(np.random.default_rng(seed).normal(size=(p, p)))
    for idx in (1.0, index):
        r = dcor(x, y, index=idx)
        assert -1e-15 <= r <= 1.0
        assert_close(dcor(x + shift, y, index=idx), r, "shift", rel=1e-9, abs_=1e-10)
        assert_close(dcor(x @ q, y, index=idx), r, "orthogonal", rel=1e-9, abs_=1e-10)
        assert_close(dcor(scale * x, y, index=idx), r, "scale", rel=1e-9, abs_=1e-10)
        assert_close(dcor(y, x, index=idx), r, "symmetry", rel=1e-12, abs_=1e-14)
        assert -1.0 <= dcor_u(x, y, index=idx) <= 1.0


@settings(max_examples=50, deadline=None)
@given(_samples, st.floats(-5, 5), st.floats(0.1, 10).flatmap(lambda b: st.sampled_from([b, -b])))
def test_dcor_one_for_affine_maps(sample, a, b):
    n, seed, p, ties = sample
    x, _ = _draw(n, seed, p, ties)
    if not _nonconstant(x):
        return
    assert_close(dcor(x, a + b * x), 1.0, "affine", rel=1e-10)
    if _nonconstant(x[:, 0]):
        assert_close(dcor(x[:, 0], a + b * x[:, 0]), 1.0, "affine univariate", rel=1e-10)


# ----------------------------------------------------------------------------------------------
# the tests: R's p-value, seeds, threads, printouts
# ----------------------------------------------------------------------------------------------

def test_permutation_pvalue_is_r_formula_and_seeded():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(40, 2))
    y = x[:, 0] + rng.normal(scale=2, size=40)
    for res in (dcor_test(x, y, B=99, seed=7), dcov_test(x, y, B=99, seed=7),
                pdcor_test(x, y, rng.normal(size=40), B=99, seed=7)):
        reps = res.extras["replicates"]
        assert reps.shape == (99,) and not reps.flags.writeable
        assert res.p_value == (1 + np.sum(reps >= res.statistic)) / 100
    a = dcor_test(x, y, B=99, seed=7, n_jobs=1)
    b = dcor_test(x, y, B=99, seed=7, n_jobs=2)
    assert a == b
    assert dcor_test(x, y, B=99, seed=8).extras["replicates"].tolist() != a.extras["replicates"].tolist()
    # dcov.test and dcor.test are the same test: the same permutations give the same p-value
    assert dcov_test(x, y, B=99, seed=7).p_value == a.p_value
    gen = np.random.default_rng(3)
    assert dcor_test(x, y, B=19, seed=gen) != dcor_test(x, y, B=19, seed=gen)  # the stream advances


def test_fast_path_pvalue_matches_threads_and_chunks(monkeypatch):
    rng = np.random.default_rng(9)
    x = rng.normal(size=500)
    y = x ** 2 + rng.normal(size=500)
    a = dcor_test(x, y, B=199, seed=1, n_jobs=1)
    b = dcor_test(x, y, B=199, seed=1, n_jobs=-1)
    assert a == b and a.extras["path"] == "fast" and a.p_value == 0.005


def test_dcov_test_estimates_and_t_test_edges():
    rng = np.random.default_rng(4)
    x = rng.normal(size=30)
    y = rng.normal(size=30)
    d = dcov_test(x, y, B=9, seed=0)
    assert set(d.extras["estimates"]) == {"dCov", "dCor", "dVar(X)", "dVar(Y)"}
    assert_close(d.statistic, 30 * dcov(x, y) ** 2, "nV^2")
    t = dcor_test(x, y, method="t")
    assert t.statistic_name == "T" and t.alternative is None
    assert_close(t.estimate["Bias corrected dcor"], dcor_u(x, y), "R*")
    t1 = dcor_test(x, 2 * x + 1, method="t")
    assert t1.statistic > 1e6 and t1.p_value == 0.0  # R* = 1 up to rounding


def test_nan_policy_omit():
    rng = np.random.default_rng(6)
    x, y, z = rng.normal(size=30), rng.normal(size=(30, 2)), rng.normal(size=30)
    xn, yn = x.copy(), y.copy()
    xn[3] = np.nan
    yn[10, 1] = np.nan
    keep = np.ones(30, bool)
    keep[[3, 10]] = False
    for f in (dcov, dcor, dcov_u, dcor_u):
        with pytest.raises(ValueError, match="x contains 1 NaN"):
            f(xn, yn)
        assert f(xn, yn, nan_policy="omit") == f(x[keep], y[keep])
        with pytest.raises(ValueError, match="nan_policy"):
            f(xn, yn, nan_policy="propagate")
    for f in (pdcor, pdcov):
        assert f(xn, yn, z, nan_policy="omit") == f(x[keep], y[keep], z[keep])
    assert dcor_test(xn, yn, B=19, seed=1, nan_policy="omit") == dcor_test(x[keep], y[keep], B=19, seed=1)
    assert pdcor_test(xn, yn, z, B=19, seed=1, nan_policy="omit").extras["n"] == 28


def test_pandas_inputs():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(10)
    df = pd.DataFrame(rng.normal(size=(25, 3)), columns=list("abc"), index=[f"r{i}" for i in range(25)])
    assert dcor(df[["a", "b"]], df["c"]) == dcor(df[["a", "b"]].to_numpy(), df["c"].to_numpy())
    assert dcor_test(df["a"], df["c"], B=19, seed=2) == dcor_test(df["a"].to_numpy(), df["c"].to_numpy(), B=19,
                                                                  seed=2)


# ----------------------------------------------------------------------------------------------
# constant samples and bad input
# ----------------------------------------------------------------------------------------------

def test_constant_samples():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(20, 2))
    const = np.full(20, 3.0)
    for f in (dcov, dcor, dcov_u, dcor_u):
        with pytest.warns(StatcoreWarning, match="y is constant"):
            assert f(x, const) == 0.0
    for f in (pdcor, pdcov):
        with pytest.warns(StatcoreWarning, match="x is constant"):
            assert f(const, x, x[:, 0]) == 0.0
    # a constant z projects nothing: pdcor is then the bias-corrected dCor (as R energy)
    y = x[:, 0] ** 2 + rng.normal(size=20)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_close(pdcor(x, y, const), dcor_u(x, y), "constant z")
        assert_close(pdcov(x, y, const), dcov_u(x, y), "constant z pdcov")
        # a constant column inside a multivariate sample is fine
        xc = np.column_stack([x, const])
        assert_close(dcor(xc, y), dcor(x, y), "constant column")
    for call in (lambda: dcor_test(x, const), lambda: dcov_test(const, x), lambda: dcor_test(x, const, method="t"),
                 lambda: pdcor_test(const, x, y)):
        with pytest.raises(ValueError, match=r"(x|y) is constant"):
            call()
    # x explained by z: pdcor 0 as in R, and the test refuses
    assert pdcor(y, x, y) == 0.0
    with pytest.raises(ValueError, match="x is explained by z"):
        pdcor_test(y, x, y)


def test_bad_input_messages():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=10), rng.normal(size=10)
    with pytest.raises(ValueError, match="same number of observations"):
        dcor(x, y[:9])
    for f in (dcov_u, dcor_u):
        with pytest.raises(ValueError, match="n = 3"):
            f(x[:3], y[:3])
    with pytest.raises(ValueError, match="n = 3"):
        pdcor(x[:3], y[:3], x[:3])
    with pytest.raises(ValueError, match="n = 3"):
        dcor_test(x[:3], y[:3], method="t")
    for bad in (0.0, 2.0, -1.0, 2.5):
        with pytest.raises(ValueError, match="index must lie in"):
            dcor(x, y, index=bad)
    with pytest.raises(ValueError, match="B must be"):
        dcor_test(x, y, B=0)
    with pytest.raises(TypeError, match="B must be an integer"):
        dcov_test(x, y, B=9.5)
    with pytest.raises(TypeError, match="x must be numeric, got text"):
        dcor(np.array(["a"] * 10, dtype=object), y)
    with pytest.raises(ValueError, match="unknown method"):
        dcor_test(x, y, method="asymptotic")
    with pytest.raises(ValueError, match="n_jobs"):
        dcor_test(x, y, n_jobs=0)


def test_public_names():
    for name in ("dcov", "dcor", "dcov_u", "dcor_u", "pdcov", "pdcor", "dcor_test", "dcov_test", "pdcor_test"):
        assert name in statcore.__all__ and getattr(statcore, name) is getattr(dmod if "test" not in name else tmod, name)


@pytest.mark.parametrize("shape", [(37, 3, 2), (61, 2, 17)])
def test_recompute_path_equals_matrix_path_and_threads(monkeypatch, shape):
    """The compiled recompute path (both orientations: x or y the narrower sample; n not a multiple
    of the vector width) gives the matrix path's replicates, whatever n_jobs."""
    n, p, q = shape
    rng = np.random.default_rng(11)
    x = rng.normal(size=(n, p))
    y = np.round(rng.normal(size=(n, q)) + 0.5 * x[:, :1], 1)  # ties
    for a, b in ((x, y), (y, x)):
        r1 = dcor_test(a, b, B=40, seed=2)
        r2 = dcor_test(a, b, B=40, seed=2, n_jobs=2)
        assert r1.extras["path"] == r2.extras["path"] == "recompute"
        np.testing.assert_array_equal(r1.extras["replicates"], r2.extras["replicates"])
        with monkeypatch.context() as m:
            m.setattr(tmod, "RECOMPUTE_MAX_DIM", 0)
            rm = dcor_test(a, b, B=40, seed=2)
        assert rm.extras["path"] == "matrix"
        np.testing.assert_allclose(r1.extras["replicates"], rm.extras["replicates"], rtol=1e-12, atol=1e-14)
        assert_close(r1.statistic, rm.statistic, "statistic", rel=1e-12)
        assert r1.p_value == rm.p_value
