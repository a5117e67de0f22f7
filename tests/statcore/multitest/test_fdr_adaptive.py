"""Adaptive step-ups: live parity with mutoss 0.1-12 (adaptiveSTS, adaptiveBH, indepBR, twostageBR,
BlaRoq) and multtest 2.54 (mt.rawp2adjp "ABH", "TSBH"), each on the function that names it; the
conventions that differ (mutoss's STS without the p <= lambda restriction, multtest's and mutoss's
ABH index, TSBH against BKY/statsmodels); FDR under independence (seeded Monte Carlo, slow)."""
import numpy as np
import pandas as pd
import pytest
from scipy.special import ndtr

import statcore as sc
from helpers import r_vector, requires_r, run_r
from statcore.testing import assert_error_rate


def _cases():
    """p-value vectors with ties, zeros, ones, many and few signals, small and large m."""
    rng = np.random.default_rng(3103)
    out = []
    for m, share, power in [(5, 0.4, 3), (12, 0.0, 1), (40, 0.3, 2), (150, 0.2, 1.5), (400, 0.1, 3), (600, 0.6, 2)]:
        k = int(share * m)
        p = np.r_[rng.uniform(0, 0.01, k) ** power, rng.uniform(size=m - k)]
        rng.shuffle(p)
        out.append(p)
    tied = np.round(out[3], 2)
    tied[:3] = 0.0
    tied[3] = 1.0
    out.append(tied)
    return out


CASES = _cases()
ALPHAS = (0.05, 0.1, 0.2)


def _r_lines(code):
    return [np.array([np.nan if v == "NA" else float(v) for v in line.split()]) for line in run_r(code).strip().splitlines()]


@requires_r("mutoss")
def test_mutoss_parity():
    code = ["suppressMessages(library(mutoss))", 'out <- function(x) cat(sprintf("%.17g", as.numeric(x)), "\\n")']
    for p in CASES:
        code.append(f"p <- {r_vector(p)}")
        for a in ALPHAS:
            code += [f"s <- adaptiveSTS(p, {a}, lambda = 0.5, silent = TRUE); out(s$adjPValues); out(s$rejected); out(s$pi0)",
                     f"s <- adaptiveSTS(p, {a}, lambda = 0.8, silent = TRUE); out(s$adjPValues); out(s$rejected); out(s$pi0)",
                     f"b <- adaptiveBH(p, {a}, silent = TRUE); out(b$adjPValues); out(b$rejected); out(b$pi0)",
                     f"out(indepBR(p, {a}, silent = TRUE)$rejected)",
                     f"out(indepBR(p, {a}, lambda = 2, silent = TRUE)$rejected)",
                     f"out(twostageBR(p, {a}, silent = TRUE)$rejected)",
                     f"out(twostageBR(p, {a}, lambda = 0.5, silent = TRUE)$rejected)",
                     f"r <- BlaRoq(p, {a}, silent = TRUE); out(r$adjPValues); out(r$rejected)"]
    lines = iter(_r_lines("\n".join(code)))

    def same(ours, name):
        ref = next(lines)
        np.testing.assert_allclose(np.asarray(ours, float), ref, rtol=1e-12, atol=0, err_msg=name)

    for p in CASES:
        for a in ALPHAS:
            for lam in (0.5, 0.8):
                res = sc.fdr_adaptive(p, method="STS", alpha=a, lambda_=lam)
                same(res.p_adjusted, "adaptiveSTS adjPValues")
                ref = next(lines)
                # statcore rejects only p <= lambda (STS 2004, Theorem 3); mutoss does not restrict
                np.testing.assert_array_equal(res.rejected, (ref == 1) & (p <= lam))
                same([res.pi0], "adaptiveSTS pi0")
            if p.size > 1:
                res = sc.fdr_adaptive(p, method="adaptiveBH", alpha=a)
                same(res.p_adjusted, "adaptiveBH adjPValues")
                same(res.rejected, "adaptiveBH rejected")
                same([res.pi0], "adaptiveBH pi0")
            same(sc.fdr_adaptive(p, method="indepBR", alpha=a).rejected, "indepBR")
            same(sc.fdr_adaptive(p, method="indepBR", alpha=a, lambda_=2).rejected, "indepBR lambda 2")
            same(sc.fdr_adaptive(p, method="twostageBR", alpha=a).rejected, "twostageBR")
            same(sc.fdr_adaptive(p, method="twostageBR", alpha=a, lambda_=0.5).rejected, "twostageBR lambda 0.5")
            res = sc.fdr_adaptive(p, method="BlaRoq", alpha=a)
            same(res.p_adjusted, "BlaRoq adjPValues")
            np.testing.assert_array_equal(sc.p_adjust(p, method="BlaRoq"), res.p_adjusted)
            same(res.rejected, "BlaRoq rejected")


@requires_r("multtest")
def test_multtest_parity_and_golub():
    code = ["suppressMessages(library(multtest))", 'out <- function(x) cat(sprintf("%.17g", as.numeric(x)), "\\n")']
    for p in CASES:
        code.append(f"p <- {r_vector(p)}")
        for a in ALPHAS:
            code += [f"r <- mt.rawp2adjp(p, proc = c('ABH', 'TSBH'), alpha = {a}); a <- r$adjp[order(r$index), ]",
                     "out(a[, 'ABH']); out(a[, 3]); out(r$h0.ABH); out(r$h0.TSBH)"]
    # multtest's vignette data: Golub et al. (1999) leukaemia, Welch t statistics, normal p-values
    code += ["data(golub); rawp <- 2 * (1 - pnorm(abs(mt.teststat(golub, golub.cl))))", "out(rawp)",
             "r <- mt.rawp2adjp(rawp, proc = c('ABH', 'TSBH'), alpha = 0.05); a <- r$adjp[order(r$index), ]",
             "out(a[, 'ABH']); out(a[, 3])"]
    lines = iter(_r_lines("\n".join(code)))
    for p in CASES:
        for a in ALPHAS:
            abh, tsbh, h0_abh, h0_tsbh = (next(lines) for _ in range(4))
            if p.size > 1 and not np.isnan(abh).any():   # multtest returns NA where h0.m never rises
                np.testing.assert_allclose(sc.p_adjust(p, method="ABH"), abh, rtol=1e-12, atol=0)
                res = sc.fdr_adaptive(p, method="ABH", alpha=a)
                np.testing.assert_allclose(res.p_adjusted, abh, rtol=1e-12, atol=0)
                np.testing.assert_array_equal(res.rejected, abh <= a)
                assert res.pi0 * p.size == pytest.approx(h0_abh[0], rel=1e-12)
            np.testing.assert_allclose(sc.p_adjust(p, method="TSBH", alpha=a), tsbh, rtol=1e-12, atol=0)
            res = sc.fdr_adaptive(p, method="TSBH", alpha=a)
            np.testing.assert_allclose(res.p_adjusted, tsbh, rtol=1e-12, atol=0)
            np.testing.assert_array_equal(res.rejected, tsbh <= a)
            assert res.pi0 * p.size == pytest.approx(h0_tsbh[0], rel=1e-12)
    rawp, abh, tsbh = next(lines), next(lines), next(lines)
    np.testing.assert_allclose(sc.p_adjust(rawp, method="ABH"), abh, rtol=1e-12, atol=0)
    np.testing.assert_allclose(sc.p_adjust(rawp, method="TSBH", alpha=0.05), tsbh, rtol=1e-12, atol=0)
    # the two two-stage conventions on the same data: multtest's TSBH (second stage at alpha) rejects
    # 948 of the 3051 genes, BKY (alpha / (1 + alpha) in both stages, statsmodels') 943
    n_tsbh = int(np.sum(tsbh <= 0.05))
    n_bky = int(np.sum(sc.p_adjust(rawp, method="BKY", alpha=0.05) <= 0.05))
    assert (n_tsbh, n_bky) == (948, 943)


@requires_r("mutoss")
def test_printout_in_mutoss_layout():
    p = np.array([0.0012, 0.3, 0.004, 0.9, 0.00025, 0.04, 0.51, 0.0007, 0.02, 0.66, 0.011, 0.0031])
    out = run_r("suppressMessages(library(mutoss))\n"
                f"invisible(adaptiveSTS({r_vector(p)}, 0.1, silent = FALSE))\n"
                f"invisible(twostageBR({r_vector(p)}, 0.1, silent = FALSE))")
    ours = (sc.fdr_adaptive(p, method="STS", alpha=0.1).summary().split("pi0:")[0]
            + sc.fdr_adaptive(p, method="twostageBR", alpha=0.1).summary().split("pi0:")[0])
    assert ours.strip() == out.strip()


def test_sts_restriction_to_p_below_lambda():
    # 29 strong signals and one p = 0.55 > lambda: pi0 = (1 + 1) / (0.5 * 30) = 0.133, the adjusted
    # value of 0.55 is 0.55 * 0.133 = 0.073 <= 0.1: mutoss's adaptiveSTS rejects it, STS (2004) does not
    p = np.r_[np.full(29, 1e-4), 0.55]
    res = sc.fdr_adaptive(p, method="STS", alpha=0.1)
    assert res.pi0 == pytest.approx(2 / 15)
    assert res.p_adjusted[-1] == pytest.approx(0.55 * 2 / 15) and res.p_adjusted[-1] <= 0.1
    assert res.n_rejections == 29 and not res.rejected[-1]


def test_tsbh_against_bky_and_statsmodels():
    # TSBH (multtest) and BKY (statsmodels' fdrcorrection_twostage) share the first stage up to the
    # strict/weak comparison with alpha/(1 + alpha); BKY multiplies the second stage by (1 + alpha)
    rng = np.random.default_rng(7)
    p = np.r_[rng.uniform(0, 0.003, 60), rng.uniform(size=240)]
    a = 0.05
    bky = sc.p_adjust(p, method="BKY", alpha=a)
    tsbh = sc.p_adjust(p, method="TSBH", alpha=a)
    np.testing.assert_allclose(bky, np.minimum(tsbh * (1 + a), 1.0), rtol=1e-14)
    assert np.sum(tsbh <= a) >= np.sum(bky <= a)
    sm = pytest.importorskip("statsmodels.stats.multitest")
    rej, adj, _, _ = sm.fdrcorrection_twostage(p, alpha=a, method="bky")
    np.testing.assert_allclose(bky, adj, rtol=1e-14)
    np.testing.assert_array_equal(rej, bky <= a)


def test_result_pandas_and_edge_cases():
    p = pd.Series([0.001, 0.2, 0.04, 0.7], index=list("wxyz"))
    for method in sc.FDR_ADAPTIVE_METHODS:
        res = sc.fdr_adaptive(p, method=method, alpha=0.1)
        assert isinstance(res.rejected, pd.Series) and list(res.rejected.index) == list("wxyz")
        assert list(res.to_frame().index) == list("wxyz")
    # one p-value: no rise of h0.m (multtest NA, mutoss indexes past the end): h0 = m, i.e. BH
    one = sc.fdr_adaptive([0.03], method="ABH", alpha=0.05)
    assert one.pi0 == 1.0 and one.rejected.tolist() == [True]
    assert sc.fdr_adaptive([0.03], method="adaptiveBH", alpha=0.05).pi0 == 1.0
    with pytest.raises(ValueError, match="lambda_"):
        sc.fdr_adaptive([0.1, 0.2], method="STS", lambda_=1.0)
    with pytest.raises(ValueError, match="lambda_"):
        sc.fdr_adaptive([0.1, 0.2], method="twostageBR", alpha=0.1, lambda_=10)
    with pytest.raises(ValueError, match="lambda_"):
        sc.fdr_adaptive([0.1, 0.2], method="ABH", lambda_=0.5)
    with pytest.raises(ValueError, match="alpha"):
        sc.fdr_adaptive([0.1, 0.2], alpha=1.0)
    with pytest.raises(ValueError, match=r"p must lie in \[0, 1\]"):
        sc.fdr_adaptive([0.1, 1.2])
    with pytest.raises(ValueError, match="n must equal"):
        sc.p_adjust([0.1, 0.2], method="ABH", n=5)


# ---- FDR under independence ------------------------------------------------------------------------

M, REPS, ALPHA = 200, 1500, 0.1


@pytest.mark.slow
@pytest.mark.parametrize("share", [0.0, 0.3])
def test_adaptive_fdr_under_independence(share):
    def sampler(rng):
        nonnull = rng.uniform(size=(REPS, M)) < share
        return ndtr(-(rng.standard_normal((REPS, M)) + 2.5 * nonnull)), nonnull

    def error(data, rng):
        p, nonnull = data
        out = {m: np.empty(REPS) for m in sc.FDR_ADAPTIVE_METHODS}
        for i in range(REPS):
            for m in sc.FDR_ADAPTIVE_METHODS:
                sel = np.asarray(sc.fdr_adaptive(p[i], method=m, alpha=ALPHA).rejected)
                out[m][i] = (sel & ~nonnull[i]).sum() / max(sel.sum(), 1)
        return out

    res = assert_error_rate(error, sampler, alpha=ALPHA, seed=3131 + int(10 * share), vectorized=True)
    assert set(res.rates) == set(sc.FDR_ADAPTIVE_METHODS)
