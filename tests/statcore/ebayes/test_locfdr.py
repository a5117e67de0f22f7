"""Tests for statcore.locfdr against R locfdr 1.1-8 ``locfdr()``.

Golden values: tests/golden/ebayes/locfdr_golden.json, made by tests/golden/ebayes/locfdr_golden.R (the
z-values are stored in the file). A live comparison runs R locfdr on fresh data where it is installed
(``requires_r_source("locfdr")``: locfdr is not in Debian, so CI relies on the golden values).
"""
import math
import warnings

import numpy as np
import pytest

from helpers import load_golden_json, r_vector, requires_r_source, run_r
from statcore import LocfdrResult, LocfdrWarning, StatcoreWarning, locfdr

pytestmark = pytest.mark.filterwarnings("ignore::statcore.LocfdrWarning")

G = load_golden_json("ebayes", "locfdr_golden.json")
RUNS = [(name, i) for name, case in sorted(G["cases"].items()) for i in range(len(case["runs"]))]
TOL = 1e-8


def _arr(v):
    return np.array([np.nan if a is None else a for a in np.atleast_1d(v)], float)


def _warnings(run):
    w = run["warnings"]          # auto_unbox writes one warning as a string
    return [w] if isinstance(w, str) else list(w)


def _kwargs(args):
    kw = {k: v for k, v in args.items()}
    if isinstance(kw.get("pct0"), list):
        kw["pct0"] = tuple(kw["pct0"])
    return kw


def _call(z, kw):
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        res = locfdr(z, **kw)
    return res, [str(w.message) for w in rec if issubclass(w.category, LocfdrWarning)]


def _fp0_rows(res):
    """Our fp0 in R's row order (thest, theSD, mlest, mleSD, cmest, cmeSD) and column order."""
    cols = ["delta", "sigma", "p0"] + (["sigma_right"] if "sigma_right" in res.fp0 else [])
    out = []
    for row in ("theo", "mlest", "cmest"):
        out.append([res.fp0.loc[row, c] for c in cols])
        out.append([res.fp0.loc[row, c + "_std_error"] for c in cols])
    return np.array(out, float)


@pytest.mark.parametrize("name,i", RUNS)
def test_golden(name, i):
    case = G["cases"][name]
    run = case["runs"][i]
    z = np.array(case["z"], float)
    kw = _kwargs(run["args"])
    if "error" in run:   # R stops: we raise its message, after its warnings
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            with pytest.raises(ValueError) as exc:
                locfdr(z, **kw)
        assert str(exc.value) == run["error"]
        assert [str(w.message) for w in rec] == _warnings(run)
        return
    res, msgs = _call(z, kw)
    assert msgs == _warnings(run)
    fp0 = np.array([_arr(run["fp0"][str(k)]) for k in range(1, 7)])
    ours = _fp0_rows(res)
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(fp0))
    np.testing.assert_allclose(ours, fp0, rtol=TOL, atol=TOL, equal_nan=True)
    nt = kw.get("nulltype", 1)
    row = {0: 0, 1: 2}.get(nt, 4)
    np.testing.assert_allclose([res.delta, res.sigma, res.p0], fp0[row, :3], rtol=TOL, atol=TOL)
    np.testing.assert_allclose(res.fdr, _arr(run["fdr"]), rtol=0, atol=TOL)
    np.testing.assert_allclose(res.efdr.to_numpy(), _arr(run["Efdr"]), rtol=TOL, atol=TOL)
    np.testing.assert_allclose(res.z_2, _arr(run["z2"]), rtol=TOL, atol=TOL, equal_nan=True)
    np.testing.assert_allclose(res.mat["fdr"], _arr(run["mat_fdr"]), rtol=TOL, atol=TOL)
    np.testing.assert_allclose(res.mat["f"], _arr(run["mat_f"]), rtol=TOL, atol=TOL)
    np.testing.assert_allclose(res.mat["log_fdr_std_error"], _arr(run["mat_lfdrse"]), rtol=1e-7, atol=TOL)
    # summary() prints R's fp0 matrix as print(w$fp0) does
    assert "\n".join(run["fp0_print"]) in res.summary()


_LIVE = """suppressMessages(library(locfdr))
z <- {z}
for (nt in 0:3) {{
  w <- suppressWarnings(locfdr(z, nulltype = nt, plot = 0))
  cat(sprintf('%.17g', c(w$fp0)), '\\n')
  cat(sprintf('%.17g', w$fdr), '\\n')
  cat(sprintf('%.17g', w$Efdr), '\\n')
}}
w <- suppressWarnings(locfdr(z, mlests = c(0.1, 1.1), plot = 0))
cat(sprintf('%.17g', c(w$fp0)), '\\n')
cat(sprintf('%.17g', w$fdr), '\\n')
"""


@requires_r_source("locfdr")
def test_live_r_every_nulltype():
    rng = np.random.default_rng(2024)
    z = np.r_[rng.normal(-0.15, 1.08, 1900), rng.normal(2.8, 1.0, 150), rng.normal(-3.2, 0.7, 70)]
    lines = run_r(_LIVE.format(z=r_vector(z))).splitlines()
    for nt in range(4):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", LocfdrWarning)
            res = locfdr(z, nulltype=nt)
        ncol = 4 if nt == 3 else 3
        fp0 = np.array(lines[3 * nt].replace("NA", "nan").split(), float).reshape(ncol, 6).T
        np.testing.assert_allclose(_fp0_rows(res), fp0, rtol=1e-10, atol=1e-12, equal_nan=True)
        np.testing.assert_allclose(res.fdr, np.array(lines[3 * nt + 1].split(), float), rtol=0, atol=1e-10)
        np.testing.assert_allclose(res.efdr.to_numpy(), np.array(lines[3 * nt + 2].split(), float),
                                   rtol=1e-10, atol=1e-12)
    # mlests: the MLE starts at (0.1, 1.1) on the interval 0.1 +- b 1.1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LocfdrWarning)
        res = locfdr(z, mlests=(0.1, 1.1))
    fp0 = np.array(lines[12].replace("NA", "nan").split(), float).reshape(3, 6).T
    np.testing.assert_allclose(_fp0_rows(res), fp0, rtol=1e-10, atol=1e-12, equal_nan=True)
    np.testing.assert_allclose(res.fdr, np.array(lines[13].split(), float), rtol=0, atol=1e-10)


@pytest.fixture(scope="module")
def mixed():
    rng = np.random.default_rng(7)
    return np.r_[rng.normal(0.2, 1.2, 1800), rng.normal(3.5, 1.0, 200)]


def test_theoretical_null(mixed):
    res = locfdr(mixed, nulltype=0)
    assert (res.delta, res.sigma) == (0.0, 1.0)
    m = res.mat
    # p0 of N(0, 1): the fitted f over the theoretical null, both summed over the central bins
    lo, hi = np.quantile(mixed, [0.25, 0.75])
    central = (m["x"] > lo) & (m["x"] < hi)
    assert res.p0 == pytest.approx(m["f"][central].sum() / m["f0_theo"][central].sum(), rel=1e-12)
    np.testing.assert_allclose(res.fdr, np.interp(mixed, m["x"], m["fdr_theo"]), rtol=0, atol=1e-15)
    assert np.all((res.fdr >= 0) & (res.fdr <= 1))


def test_mle_null_is_shift_and_scale_equivariant(mixed):
    """The MLE null moves with z: delta -> a + b delta, sigma -> b sigma, p0 unchanged (to the Newton
    iteration's stopping tolerance, which is not equivariant)."""
    base = locfdr(mixed).fp0.loc["mlest"]
    moved = locfdr(1.5 + 2.0 * mixed).fp0.loc["mlest"]
    assert moved["delta"] == pytest.approx(1.5 + 2.0 * base["delta"], abs=1e-5)
    assert moved["sigma"] == pytest.approx(2.0 * base["sigma"], rel=1e-5)
    assert moved["p0"] == pytest.approx(base["p0"], rel=1e-5)
    assert moved["delta_std_error"] == pytest.approx(2.0 * base["delta_std_error"], rel=1e-4)


def test_mle_recovers_a_shifted_null():
    rng = np.random.default_rng(3)
    z = np.r_[rng.normal(0.5, 1.5, 9000), rng.normal(6.0, 1.0, 1000)]
    res = locfdr(z)
    assert abs(res.delta - 0.5) < 4 * res.fp0.loc["mlest", "delta_std_error"]
    assert abs(res.sigma - 1.5) < 4 * res.fp0.loc["mlest", "sigma_std_error"]
    assert res.fdr[9000:].mean() < 0.1 < 0.9 < res.fdr[:9000].mean()


def test_warnings_are_statcore_warnings():
    assert issubclass(LocfdrWarning, StatcoreWarning)
    z = np.array(G["cases"]["misfit"]["z"])
    with pytest.warns(LocfdrWarning, match=r"f\(z\) misfit = 6\.1\.  Rerun with increased df"):
        locfdr(z, df=2, nulltype=2)


def test_more_than_500000_values_widens_the_ml_interval():
    z = np.random.default_rng(1).normal(size=500_001)
    with pytest.warns(LocfdrWarning, match=r"length\(zz\) > 500,000: For ML estimation, a wider interval"):
        res = locfdr(z, bre=60)
    assert abs(res.delta) < 0.01 and abs(res.sigma - 1) < 0.01


def test_mlests_and_breaks_vector(mixed):
    res = locfdr(mixed, mlests=(0.2, 1.2))
    assert abs(res.delta - locfdr(mixed).delta) < 2 * res.fp0.loc["mlest", "delta_std_error"]
    assert "mlests = c(0.2, 1.2)" in res.call
    # R's breaks vector: only its range and length count; z outside is moved to the ends
    a = locfdr(mixed, bre=np.linspace(-3, 6, 90))
    b = locfdr(np.clip(mixed, -3, 6), bre=90)
    np.testing.assert_allclose(a.mat["f"], b.mat["f"], rtol=1e-12)


def test_result_protocol_and_plot(mixed):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    res = locfdr(mixed, nulltype=2)
    assert isinstance(res, LocfdrResult)
    assert repr(res).startswith("LocfdrResult(n=2000, nulltype=2")
    frame = res.to_frame()
    assert list(frame.columns) == ["z", "fdr"] and len(frame) == mixed.size
    assert list(res.fp0.index) == ["theo", "mlest", "cmest"]
    ax = res.plot()
    assert len(ax.lines) >= 2
    plt.close("all")
    before = len(plt.get_fignums())
    locfdr(mixed, plot=True)
    assert len(plt.get_fignums()) == before + 1
    plt.close("all")
    locfdr(mixed, plot=False)
    assert len(plt.get_fignums()) == 0


def test_nan_policy(mixed):
    z = mixed.copy()
    z[[3, 10]] = np.nan
    with pytest.raises(ValueError, match="z contains NaN"):
        locfdr(z)
    res = locfdr(z, nan_policy="omit")
    assert res.fdr.size == mixed.size - 2


@pytest.mark.parametrize("kwargs,match", [
    (dict(df=1), "df"), (dict(df=2.5), "df"), (dict(bre=8, df=7), "bre"), (dict(bre=1), "bre"),
    (dict(nulltype=4), "nulltype"), (dict(nulltype=True), "nulltype"), (dict(pct0=0.5), "pct0"),
    (dict(pct0=(0.7, 0.2)), "pct0"), (dict(pct0=(0.1, 0.5, 0.9)), "pct0"), (dict(mlests=(0.0, -1.0)), "mlests"),
])
def test_bad_arguments(mixed, kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        locfdr(mixed, **kwargs)


def test_bad_data():
    with pytest.raises(ValueError, match="at least 10"):
        locfdr(np.arange(5.0))
    with pytest.raises(ValueError, match="spread"):
        locfdr(np.zeros(50))
    with pytest.raises(ValueError, match="z"):
        locfdr(np.r_[np.random.default_rng(0).normal(size=100), np.inf])
    with pytest.raises(TypeError, match="plot"):
        locfdr(np.random.default_rng(0).normal(size=100), plot=1)


@requires_r_source("locfdr")
def test_live_r_values_on_the_breaks():
    """z rounded to 0.1 with breaks on the same grid: R's fuzzed right-closed bins decide every tie."""
    rng = np.random.default_rng(5)
    z = np.clip(np.round(np.r_[rng.normal(0, 1, 2500), rng.normal(2.5, 1, 300)], 1), -3.5, 3.5)
    z[:2] = -3.5, 3.5
    code = (f"suppressMessages(library(locfdr)); z <- {r_vector(z)}\n"
            "for (a in list(list(bre = 71), list(bre = seq(-2, 2, length = 41), df = 5))) {\n"
            "  w <- suppressWarnings(do.call(locfdr, c(list(z, plot = 0), a)))\n"
            "  cat(sprintf('%.17g', w$mat[, 'counts']), '\\n'); cat(sprintf('%.17g', w$fdr), '\\n')}\n")
    out = run_r(code).splitlines()
    for i, kw in enumerate([dict(bre=71), dict(bre=np.linspace(-2, 2, 41), df=5)]):
        res = locfdr(z, **kw)
        np.testing.assert_array_equal(res.mat["counts"], np.array(out[2 * i].split(), float))
        np.testing.assert_allclose(res.fdr, np.array(out[2 * i + 1].split(), float), rtol=0, atol=1e-10)
