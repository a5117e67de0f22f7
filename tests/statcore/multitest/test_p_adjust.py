"""p_adjust against R's golden values, a plain O(n^2) Hommel, statsmodels, live R and properties."""
import csv

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import statcore as sc
from statcore.testing import pvalues
from helpers import golden_path, load_golden_json, r_vector, requires_r, run_r

R_METHODS = ["holm", "hochberg", "hommel", "bonferroni", "BH", "BY", "fdr", "none"]


def hommel_reference(p, n=None):
    """R's p.adjust(method = "hommel") transcribed loop for loop: the O(n^2) reference."""
    p = np.asarray(p, float)
    lp = p.size
    n = lp if n is None else n
    if n <= 1:
        return p.copy()
    if n == 2:
        return sc.p_adjust(p, method="hochberg", n=n)
    if n > lp:
        p = np.r_[p, np.ones(n - lp)]
    i = np.arange(1, n + 1)
    o = np.argsort(p, kind="stable")
    p = p[o]
    ro = np.argsort(o, kind="stable")
    q = np.full(n, np.min(n * p / i))
    pa = q.copy()
    for m in range(n - 1, 1, -1):
        i1 = np.arange(0, n - m + 1)
        i2 = np.arange(n - m + 1, n)
        q1 = np.min(m * p[i2] / np.arange(2, m + 1))
        q[i1] = np.minimum(m * p[i1], q1)
        q[i2] = q[n - m]
        pa = np.maximum(pa, q)
    return np.maximum(pa, p)[ro[:lp]]


# ------------------------------------------------------------------ golden values from R 4.2.2

def test_golden_doc_example_all_methods():
    with open(golden_path("fdr", "padjust_doc_example.csv")) as fh:
        rows = list(csv.DictReader(fh))
    p = np.array([float(r["p"]) for r in rows])
    for meth in R_METHODS:
        want = np.array([float(r[meth]) for r in rows])
        got = sc.p_adjust(p, method=meth)
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12, err_msg=meth)


@pytest.mark.parametrize("case", ["ties_na", "ties_na_n20", "unsorted"])
def test_golden_small_cases(case):
    gold = load_golden_json("fdr", "padjust_small.json")[case]
    p = np.array([np.nan if v is None else v for v in gold["p"]], float)
    for meth, want in gold["adjusted"].items():
        want = np.array([np.nan if v is None else v for v in want], float)
        got = sc.p_adjust(p, method=meth, n=gold["n"])
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12, err_msg=f"{case} {meth}")
        assert np.array_equal(np.isnan(got), np.isnan(want))


# ------------------------------------------------------------------ Hommel: fast == plain

@pytest.mark.parametrize("seed", range(30))
def test_hommel_equals_plain_reference(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 400))
    kind = seed % 3
    if kind == 0:
        p = rng.uniform(size=m)
    elif kind == 1:  # signal plus nulls, with ties from rounding
        p = np.round(np.r_[rng.uniform(0, 0.01, m // 3), rng.uniform(size=m - m // 3)], 3)
    else:
        p = rng.beta(0.3, 2, size=m)
    np.testing.assert_allclose(sc.p_adjust(p, method="hommel"), hommel_reference(p), rtol=1e-14, atol=0)


@pytest.mark.parametrize("extra", [1, 5, 50])
def test_hommel_with_larger_n_equals_reference(extra):
    rng = np.random.default_rng(extra)
    p = rng.uniform(0, 0.2, size=40)
    n = p.size + extra
    np.testing.assert_allclose(sc.p_adjust(p, method="hommel", n=n), hommel_reference(p, n), rtol=1e-14)


@settings(max_examples=200, deadline=None)
@given(arrays(np.float64, st.integers(1, 60),
              elements=st.sampled_from([0.0, 1e-6, 0.001, 0.01, 0.02, 0.04, 0.05, 0.1, 0.3, 0.5, 0.9, 1.0])
              | st.floats(0, 1)))
def test_hommel_property_equals_reference(p):
    np.testing.assert_allclose(sc.p_adjust(p, method="hommel"), hommel_reference(p), rtol=1e-13, atol=0)


def test_hommel_large_is_valid():
    rng = np.random.default_rng(1)
    p = np.r_[rng.uniform(0, 1e-4, 1000), rng.uniform(size=200_000)]
    adj = sc.p_adjust(p, method="hommel")
    assert np.all(adj >= p) and np.all(adj <= sc.p_adjust(p, method="hochberg") + 1e-15)


# ------------------------------------------------------------------ statsmodels parity

@pytest.mark.parametrize("ours,theirs", [("bonferroni", "bonferroni"), ("holm", "holm"),
                                         ("hochberg", "simes-hochberg"), ("hommel", "hommel"),
                                         ("BH", "fdr_bh"), ("BY", "fdr_by"), ("sidak", "sidak"),
                                         ("holm-sidak", "holm-sidak")])
def test_matches_statsmodels(ours, theirs):
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(7)
    p = np.r_[rng.uniform(0, 0.01, 30), rng.uniform(size=170)]
    want = multipletests(p, method=theirs)[1]
    np.testing.assert_allclose(sc.p_adjust(p, method=ours), want, rtol=1e-12, atol=1e-15)
    # statsmodels' names are aliases
    np.testing.assert_allclose(sc.p_adjust(p, method={"simes-hochberg": "sh"}.get(theirs, theirs)), want,
                               rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.1, 0.25])
@pytest.mark.parametrize("seed", range(4))
def test_bky_matches_statsmodels_twostage(alpha, seed):
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(seed)
    p = np.r_[rng.uniform(0, 0.002 * (seed + 1), 25 * seed), rng.uniform(size=200)]
    rej, want, *_ = multipletests(p, alpha=alpha, method="fdr_tsbky")
    got = sc.p_adjust(p, method="BKY", alpha=alpha)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(got <= alpha, rej)


def test_bky_all_or_nothing_rejected():
    assert np.allclose(sc.p_adjust([0.5, 0.6, 0.9], method="BKY", alpha=0.05),
                       np.minimum(1, sc.p_adjust([0.5, 0.6, 0.9], method="BH") * 1.05))
    tiny = np.array([1e-6, 2e-6, 3e-6])
    np.testing.assert_allclose(sc.p_adjust(tiny, method="BKY"), sc.p_adjust(tiny, method="BH") * 1.05)


# ------------------------------------------------------------------ live R

@requires_r
def test_live_r_random_inputs_with_ties_and_nan():
    rng = np.random.default_rng(2026)
    cases = []
    for k in range(12):
        m = int(rng.integers(2, 300))
        p = rng.uniform(size=m) ** (1 + k % 4)
        p = np.round(p, int(rng.integers(2, 6)))  # ties
        p[rng.uniform(size=m) < 0.1] = np.nan
        n = None if k % 3 else int(np.sum(~np.isnan(p)) + rng.integers(0, 40))
        cases.append((p, n))
    code = ["options(digits = 17)"]
    for idx, (p, n) in enumerate(cases):
        narg = "" if n is None else f", n = {n}"
        code.append(f"p <- {r_vector(p)}")
        code.append(f"for (m in p.adjust.methods) cat('{idx}', m, sprintf('%.17g', p.adjust(p, m{narg})), '\\n')")
    out = run_r("\n".join(code))
    seen = 0
    for line in out.strip().splitlines():
        idx, meth, *vals = line.split()
        p, n = cases[int(idx)]
        want = np.array([np.nan if v == "NA" else float(v) for v in vals])
        got = sc.p_adjust(p, method=meth, n=n)
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-14, err_msg=f"case {idx} {meth}")
        assert np.array_equal(np.isnan(got), np.isnan(want))
        seen += 1
    assert seen == len(cases) * len(R_METHODS)


# ------------------------------------------------------------------ semantics

def test_nan_omitted_and_counted_out():
    p = np.array([0.01, np.nan, 0.02, 0.03])
    got = sc.p_adjust(p, method="bonferroni")
    np.testing.assert_allclose(got, [0.03, np.nan, 0.06, 0.09])
    got20 = sc.p_adjust(p, method="bonferroni", n=20)
    np.testing.assert_allclose(got20, [0.2, np.nan, 0.4, 0.6])


def test_series_in_series_out_and_input_untouched():
    s = pd.Series([0.04, 0.01, np.nan, 0.2], index=list("abcd"), name="pv")
    before = s.copy()
    out = sc.p_adjust(s, method="BH")
    assert isinstance(out, pd.Series)
    assert list(out.index) == list("abcd") and out.name == "pv"
    pd.testing.assert_series_equal(s, before)
    arr = np.array([0.04, 0.01, 0.2])
    copy = arr.copy()
    sc.p_adjust(arr, method="hommel")
    np.testing.assert_array_equal(arr, copy)


def test_axis_semantics():
    rng = np.random.default_rng(3)
    P = rng.uniform(size=(4, 6, 5))
    out0 = sc.p_adjust(P, method="holm", axis=1)
    for i in range(4):
        for k in range(5):
            np.testing.assert_array_equal(out0[i, :, k], sc.p_adjust(P[i, :, k], method="holm"))
    outall = sc.p_adjust(P, method="BH")
    np.testing.assert_array_equal(outall.ravel(), sc.p_adjust(P.ravel(), method="BH"))
    df = pd.DataFrame(P[0], columns=list("vwxyz"))
    dfo = sc.p_adjust(df, method="BH", axis=0)
    assert isinstance(dfo, pd.DataFrame) and list(dfo.columns) == list("vwxyz")
    np.testing.assert_array_equal(dfo["v"].to_numpy(), sc.p_adjust(P[0][:, 0], method="BH"))


def test_empty_and_single():
    for m in sc.p_adjust_methods:
        assert sc.p_adjust([], method=m).shape == (0,)
        np.testing.assert_array_equal(sc.p_adjust([0.3], method=m), [0.3])  # R: n <= 1 returns p
    assert sc.p_adjust(0.2, method="bonferroni", n=3) == pytest.approx(0.6)


def test_methods_listed():
    assert sc.p_adjust_methods[:8] == tuple(R_METHODS)
    assert {"sidak", "holm-sidak", "BKY"} <= set(sc.p_adjust_methods)


# ------------------------------------------------------------------ bad input

@pytest.mark.parametrize("bad,exc,match", [
    ([0.1, 1.2], ValueError, r"p must lie in \[0, 1\]"),
    ([-0.1, 0.2], ValueError, r"p must lie in \[0, 1\]"),
    ([0.1, np.inf], ValueError, "p contains infinite"),
    (["a", "b"], TypeError, "p must be numeric, got text"),
    (["0.1", "0.2"], TypeError, "p must be numeric, got text"),  # numbers written as text too
    ("0.1", TypeError, "p must be numeric"),
    ([True, False], TypeError, "p must be numeric"),
])
def test_bad_p(bad, exc, match):
    with pytest.raises(exc, match=match):
        sc.p_adjust(bad, method="BH")


def test_bad_method_and_n():
    with pytest.raises(ValueError, match="unknown method 'bh2'"):
        sc.p_adjust([0.1], method="bh2")
    with pytest.raises(ValueError, match="n must be at least the number of non-NaN"):
        sc.p_adjust([0.1, 0.2, np.nan, 0.3], method="holm", n=2)
    with pytest.raises(TypeError, match="n must be an integer"):
        sc.p_adjust([0.1, 0.2], method="holm", n=2.5)
    with pytest.raises(ValueError, match="alpha must lie in"):
        sc.p_adjust([0.1, 0.2], method="BKY", alpha=1.5)
    with pytest.raises(ValueError, match="axis 3 is out of range"):
        sc.p_adjust(np.zeros((2, 2)), method="holm", axis=3)


# ------------------------------------------------------------------ properties

# uniform p-values mixed with the ties 0, 0.01, 0.05 and 1 (statcore.testing's strategy)
pvals = pvalues(min_size=1, max_size=80, ties=(0.0, 0.01, 0.05, 1.0))


@settings(max_examples=150, deadline=None)
@given(pvals)
def test_monotone_bounded_and_ordered(p):
    order = np.argsort(p, kind="stable")
    adj = {m: sc.p_adjust(p, method=m) for m in sc.p_adjust_methods}
    for m, a in adj.items():
        # BKY, ABH and TSBH are adaptive: multiplying by the estimated null fraction may take them below p
        assert (m in ("BKY", "ABH", "TSBH") or np.all(a >= p - 1e-15)) and np.all(a <= 1.0), m
        assert np.all(np.diff(a[order]) >= -1e-15), m  # monotone in the order of p
    tol = 1e-12
    assert np.all(adj["hommel"] <= adj["hochberg"] + tol)
    assert np.all(adj["hochberg"] <= adj["holm"] + tol)
    assert np.all(adj["holm"] <= adj["bonferroni"] + tol)
    assert np.all(adj["BH"] <= adj["BY"] + tol)
    assert np.all(adj["holm-sidak"] <= adj["holm"] + tol)
    assert np.all(adj["sidak"] <= adj["bonferroni"] + tol)
    # the adaptive step-ups scale BH by h0/m <= 1
    assert np.all(adj["ABH"] <= adj["BH"] + tol) and np.all(adj["TSBH"] <= adj["BH"] + tol)


@settings(max_examples=100, deadline=None)
@given(pvals, st.randoms(use_true_random=False))
def test_permutation_equivariant(p, rnd):
    perm = np.array(rnd.sample(range(p.size), p.size))
    for m in sc.p_adjust_methods:
        np.testing.assert_array_equal(sc.p_adjust(p[perm], method=m), sc.p_adjust(p, method=m)[perm], err_msg=m)


@settings(max_examples=50, deadline=None)
@given(pvals)
def test_series_index_preserved(p):
    s = pd.Series(p, index=[f"g{i}" for i in range(p.size)])
    out = sc.p_adjust(s, method="BY")
    assert isinstance(out, pd.Series) and out.index.equals(s.index)
    np.testing.assert_array_equal(out.to_numpy(), sc.p_adjust(p, method="BY"))


# ------------------------------------------------------------------ the fast unit-interval argsort

@pytest.mark.parametrize("gen", ["uniform", "rounded", "near_ties", "tiny", "zeros_ones", "powers"])
@pytest.mark.parametrize("n", [63, 64, 1000, 100_000])
def test_unit_argsort_is_exact_and_stable(gen, n):
    from statcore.multitest import _argsort

    rng = np.random.default_rng(n)
    p = {"uniform": lambda: rng.uniform(size=n),
         "rounded": lambda: np.round(rng.uniform(size=n), 2),
         # distinct values sharing their leading bits: exercises the run re-sort (insertion and qsort)
         "near_ties": lambda: 0.5 + rng.uniform(size=n) * 1e-12,
         "tiny": lambda: rng.uniform(size=n) ** 40,
         "zeros_ones": lambda: rng.integers(0, 2, n).astype(float),
         "powers": lambda: 2.0 ** -rng.integers(0, 1074, n).astype(float)}[gen]()
    np.testing.assert_array_equal(_argsort(p), np.argsort(p, kind="stable"))
