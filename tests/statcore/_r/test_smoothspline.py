"""Tests for statcore._r.smoothspline: R's ``smooth.spline(x, y, df = ...)`` reproduced exactly.

Golden values (tests/golden/r/smooth_spline.json) were produced with R (see ``R_VERSION``) by the R script quoted in the comment
block, and printed with 17 significant digits.  The implementation mirrors the floating-point
operation order of R's compiled code (with R's reference BLAS), so the expected agreement is
essentially bit-for-bit; the tolerances used here (1e-12 absolute on fitted values, well inside the
1e-9 requirement) leave room only for platform libm differences.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from helpers import golden_path, load_golden_json, r_vector, requires_r, run_r
from statcore._r.smoothspline import SmoothSplineFit, nknots_smspl, smooth_spline

QVALUE_GOLDEN = golden_path("fdr", "qvalue_deterministic.json")
TOL_FIT = 1e-12      # absolute, on values of order 1
TOL_REL = 1e-12      # relative, on df / lambda / spar

# Golden values: tests/golden/r/smooth_spline.json, made by tests/golden/r/smooth_spline.R
_G = load_golden_json("r", "smooth_spline.json")
R_VERSION = _G["r_version"]
GOLDEN = _G["cases"]


def _r_lambda_grid():
    """R's seq(0.05, 0.95, 0.05): from + (0:n) * by, clipped at 'to'."""
    return np.minimum(0.05 + np.arange(19) * 0.05, 0.95)


def _r_pi0(p, lam):
    """qvalue's raw pi0(lambda) = mean(p >= lambda) / (1 - lambda), with R's long-double mean."""
    n = np.longdouble(len(p))
    return np.array([float(np.longdouble(int(np.sum(p >= l))) / n) / (1.0 - l) for l in lam])


def _p_det(name):
    if name == "det1":
        i = np.arange(1, 201)
        j = np.arange(1, 801)
        return np.concatenate([(i - 0.5) / 200 * 0.01, (j - 0.5) / 800])
    return np.concatenate([(np.arange(1, 301) / 301) ** 4, (np.arange(1, 701) * 0.6180339887498949) % 1])


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden(name):
    g = GOLDEN[name]
    fit = smooth_spline(g["x"], g["y"], df=g["df_target"], w=g.get("w"))
    assert isinstance(fit, SmoothSplineFit)
    np.testing.assert_allclose(fit.fitted, g["fitted"], rtol=0, atol=TOL_FIT)
    assert fit.df == pytest.approx(g["df"], rel=TOL_REL, abs=0)
    assert fit.lambda_ == pytest.approx(g["lambda_"], rel=TOL_REL, abs=0)
    assert fit.spar == pytest.approx(g["spar"], rel=TOL_REL, abs=0)
    assert fit.iterations == g["iterations"]
    np.testing.assert_array_equal(fit.x, np.unique(g["x"]))
    # predict() at the unique x reproduces the fitted values (as R's predict(s, x)$y does)
    np.testing.assert_allclose(fit.predict(fit.x), fit.fitted, rtol=0, atol=1e-15)
    if "xnew" in g:   # includes points outside the range (linear extrapolation)
        np.testing.assert_allclose(fit.predict(g["xnew"]), g["pred"], rtol=0, atol=TOL_FIT)


@pytest.mark.parametrize("name", ["qvalue_det1", "qvalue_det2"])
def test_qvalue_inputs_reconstructed(name):
    """The qvalue inputs rebuilt in Python (lambda grid, pi0) equal R's, and so does the fit."""
    g = GOLDEN[name]
    lam = _r_lambda_grid()
    np.testing.assert_array_equal(lam, g["x"])
    pi0 = _r_pi0(_p_det(name[-4:]), lam)
    np.testing.assert_array_equal(pi0, g["y"])
    fit = smooth_spline(lam, pi0, df=3)
    np.testing.assert_allclose(fit.predict(lam), g["fitted"], rtol=0, atol=TOL_FIT)


@pytest.mark.parametrize("key", ["det1", "det2"])
def test_qvalue_golden_file(key):
    """Cross-check with qvalue's own golden output: pi0 = min(smoothed pi0 at lambda = 0.95, 1)."""
    rec = json.loads(QVALUE_GOLDEN.read_text())[key]
    lam = _r_lambda_grid()
    pi0 = _r_pi0(_p_det(key), lam)
    # the file stores 15 significant digits of R's raw pi0(lambda)
    np.testing.assert_allclose(pi0, rec["pi0_lambda"], rtol=1e-14, atol=0)
    for y in (pi0, np.asarray(rec["pi0_lambda"], dtype=float)):
        fit = smooth_spline(lam, y, df=3)
        smoothed = fit.predict(lam)
        assert abs(min(smoothed[-1], 1.0) - rec["pi0_smoother"]) <= 1e-9


def test_knot_rule():
    # .nknots.smspl(n): all n for n < 50, then the piecewise log-linear rule.  Expected values from
    # R 4.2.2: sapply(c(4,19,49,50,80,199,200,500,800,1000,3199,3200,5000), stats:::.nknots.smspl)
    # (note trunc(2^log2(50)) == 49 and trunc(2^log2(100)) == 99 in floating point)
    assert [nknots_smspl(n) for n in (4, 19, 49)] == [4, 19, 49]
    assert [nknots_smspl(n) for n in (50, 80, 199, 200, 500, 800, 1000, 3199, 3200, 5000)] == \
        [49, 57, 99, 99, 118, 140, 144, 199, 200, 204]
    fit = smooth_spline(GOLDEN["n80_knot_rule"]["x"], GOLDEN["n80_knot_rule"]["y"], df=3)
    assert len(fit.coef) == nknots_smspl(80) + 2 == 59
    assert len(fit.knots) == len(fit.coef) + 4


def test_invariances_and_errors():
    g = GOLDEN["sine_n30"]
    x = np.asarray(g["x"])
    y = np.asarray(g["y"])
    perm = np.random.default_rng(0).permutation(len(x))
    fit = smooth_spline(x[perm], y[perm], df=3)          # unsorted input gives the same fit
    np.testing.assert_array_equal(fit.fitted, smooth_spline(x, y, df=3).fitted)
    np.testing.assert_allclose(fit.fitted, g["fitted"], rtol=0, atol=TOL_FIT)
    assert np.ndim(fit.predict(1.0)) == 0
    with pytest.raises(ValueError):
        smooth_spline([1, 2, 3], [1, 2, 3])
    with pytest.raises(ValueError):
        smooth_spline(x, y, df=1.0)
    with pytest.raises(ValueError):
        smooth_spline(x, y, df=31)
    with pytest.raises(ValueError):
        smooth_spline(x, y, w=-np.ones(len(x)))


# ---------------------------------------------------------------------------------------------
# live comparison with R (skipped when Rscript is not installed)

_LIVE_R = r"""
con <- file("stdin"); lines <- readLines(con); close(con)
num <- function(s) if (s == "NA") NULL else as.numeric(strsplit(s, " ", fixed = TRUE)[[1]])
f17 <- function(v) paste(sprintf("%.17g", v), collapse = " ")
i <- 1
while (i <= length(lines)) {
  x <- num(lines[i]); y <- num(lines[i + 1]); w <- num(lines[i + 2]); df <- num(lines[i + 3])
  xn <- num(lines[i + 4]); i <- i + 5
  s <- if (is.null(w)) smooth.spline(x, y, df = df) else smooth.spline(x, y, w = w, df = df)
  cat(f17(s$y), "\n", f17(c(s$df, s$lambda, s$spar)), "\n", f17(predict(s, xn)$y), "\n", sep = "")
}
"""


def _live_cases():
    rng = np.random.default_rng(20240501)
    cases = []
    lam = _r_lambda_grid()
    for k in range(24):
        kind = k % 6
        if kind == 0:       # qvalue-like: pi0 curve on the lambda grid
            n0 = int(rng.integers(50, 2000))
            p = np.concatenate([rng.uniform(size=n0), rng.beta(0.3, 4, size=int(rng.integers(0, 800)))])
            x, y, w, df = lam, _r_pi0(p, lam), None, 3.0
        elif kind == 1:     # arbitrary values in [0, 1.5] on the grid
            x, y, w, df = lam, rng.uniform(0, 1.5, size=19), None, 3.0
        elif kind == 2:     # small sets of distinct x
            n = int(rng.integers(4, 15))
            x = np.sort(rng.choice(np.arange(1, 100) / 100, size=n, replace=False))
            y, w, df = rng.uniform(0, 1.5, size=n), None, float(rng.choice([2.0, 3.0, min(3.5, n)]))
        elif kind == 3:     # more than 49 unique x: reduced knot set
            n = int(rng.integers(50, 400))
            x = rng.uniform(-3, 3, size=n)
            y, w, df = np.sin(x) + rng.normal(0, 0.3, size=n), None, float(rng.choice([3.0, 5.0, 8.5]))
        elif kind == 4:     # weights and tied x
            n = int(rng.integers(10, 60))
            x = np.round(rng.uniform(0, 4, size=n), 1)
            y, w, df = np.exp(-x) + rng.normal(0, 0.1, size=n), rng.uniform(0.2, 3, size=n), 4.0
            if len(np.unique(x)) < 5:
                continue
        else:               # unsorted noisy sine, df = 5
            n = int(rng.integers(20, 49))
            x = rng.uniform(0, 2 * np.pi, size=n)
            y, w, df = np.sin(x) + rng.normal(0, 0.3, size=n), None, 5.0
        lo, hi = float(np.min(x)), float(np.max(x))
        xn = np.concatenate([[lo - 0.3 * (hi - lo), hi + 0.2 * (hi - lo)], rng.uniform(lo, hi, size=4)])
        cases.append((np.asarray(x, float), np.asarray(y, float), w, df, xn))
    return cases


@requires_r
def test_live_r_random_inputs():
    cases = _live_cases()
    f17 = lambda v: " ".join("%.17g" % t for t in np.atleast_1d(v))
    stdin = "".join(f"{f17(x)}\n{f17(y)}\n{'NA' if w is None else f17(w)}\n{f17(df)}\n{f17(xn)}\n"
                    for x, y, w, df, xn in cases)
    res = subprocess.run(["Rscript", "--vanilla", "-e", _LIVE_R], input=stdin, capture_output=True,
                         text=True, timeout=300, env={**os.environ, "LC_ALL": "C"})
    assert res.returncode == 0, res.stderr
    out = res.stdout.strip("\n").split("\n")
    assert len(out) == 3 * len(cases)
    worst = 0.0
    for c, (x, y, w, df, xn) in enumerate(cases):
        r_fit, r_scal, r_pred = (np.array(out[3 * c + j].split(), float) for j in range(3))
        fit = smooth_spline(x, y, df=df, w=w)
        np.testing.assert_allclose(fit.fitted, r_fit, rtol=0, atol=TOL_FIT, err_msg=f"case {c}")
        np.testing.assert_allclose(fit.predict(xn), r_pred, rtol=0, atol=TOL_FIT, err_msg=f"case {c}")
        np.testing.assert_allclose([fit.df, fit.lambda_, fit.spar], r_scal, rtol=TOL_REL, atol=0,
                                   err_msg=f"case {c}")
        worst = max(worst, float(np.max(np.abs(fit.fitted - r_fit))))
    assert worst <= TOL_FIT


# ---------------------------------------------------------------------------------------------
# the compiled band solve (statcore._r._smspline_kernels) against the scalar Python reference
# ---------------------------------------------------------------------------------------------

def test_compiled_kernels_bit_identical_to_the_python_reference():
    import dataclasses

    rng = np.random.default_rng(20261203)
    n_fits = 0
    for trial in range(24):
        n = int(rng.choice([5, 8, 19, 30, 49, 50, 80, 200, 512]))
        x = rng.uniform(0, 3, n)
        if trial % 3 == 0:
            x = np.round(x, 1)              # ties: merged unique x with summed weights
        y = np.sin(2 * x) + rng.normal(scale=0.3, size=n)
        w = rng.uniform(0.1, 2, n) if trial % 4 == 1 else None
        nux = np.unique(x).size
        if nux < 4:
            continue
        for df in (None, 3.0, min(5.5, nux - 0.5)):   # GCV and the df = mode
            a = smooth_spline(x, y, df=df, w=w)
            b = smooth_spline(x, y, df=df, w=w, _compiled=False)
            for f in dataclasses.fields(a):
                np.testing.assert_array_equal(np.asarray(getattr(a, f.name)), np.asarray(getattr(b, f.name)),
                                              err_msg=f"{f.name}, n = {n}, df = {df}")
            xn = np.linspace(-0.5, 3.5, 41)
            np.testing.assert_array_equal(a.predict(xn), b.predict(xn))
            n_fits += 1
    assert n_fits >= 60


def test_long_double_sums_are_sequential():
    from statcore._r.smoothspline import _r_mean, _r_sum

    rng = np.random.default_rng(3)
    for n in (1, 7, 5000, 70_000):     # across the chunks of the cumulative sums
        v = rng.standard_cauchy(n) * 10.0 ** rng.integers(-8, 8, n)
        s = np.longdouble(0)
        for a in v:
            s += np.longdouble(a)
        assert _r_sum(v) == float(s)
        m = s / np.longdouble(n)
        t = np.longdouble(0)
        for a in v:
            t += np.longdouble(a) - m
        assert _r_mean(v) == float(m + t / np.longdouble(n))
    assert _r_sum([]) == 0.0
