"""The API checks of statcore.multitest: the bad-input sweep of every public function and the result
protocol of every result class (see tests/apicheck.py)."""
import numpy as np
import pytest

from apicheck import Spec, check_result_protocol, sweep_bad_inputs
from statcore.multitest import (bfdr_select, combine_pvalues, ihw, lfdr, p_adjust, pi0est, qvalue)
from statcore.multitest import (e_bh, e_to_p, fdr_adaptive, knockoff_e_values, knockoff_threshold, merge_e,
                                p_to_e)

P = np.r_[np.linspace(0.0005, 0.01, 40), np.linspace(0.0025, 0.9975, 160)]
P6 = np.array([0.04, 0.001, 0.7, 0.2, 0.03, 0.5])
LFDR = np.array([0.01, 0.5, 0.02, 0.2, 0.9])
# IHW: an ordinal covariate (200 p-values: one stratum, BH) and a two-stratum instance
COV = np.linspace(0.0, 1.0, P.size)
P2K = np.random.default_rng(3).uniform(size=2400) ** 1.5
COV2K = np.random.default_rng(4).uniform(size=2400)
E5 = np.array([100.0, 1.0, 40.0, 0.5, 25.0])
W8 = np.array([6.0, 5.0, -1.0, 4.0, 3.0, 2.5, 2.0, -0.5])

# NaN p-values follow R's NA rule in p_adjust, qvalue, pi0est and lfdr (omitted, kept as NaN), and
# every shape is accepted (the values are adjusted together); combine_pvalues follows scipy's
# nan_policy="propagate" default and combines batched input along an axis.
R_NA = {("p", "nan"), ("p", "wrong_ndim")}

BAD_INPUT_SPECS = {
    "p_adjust": Spec(p_adjust, {"p": P6, "method": "BH"}, data=("p",), paired=False,
                     ok=R_NA | {("p", "empty")}, nan_result_ok={("p", "nan")}),
    "qvalue": Spec(qvalue, {"p": P, "fdr_level": 0.1}, data=("p",), paired=False, ok=R_NA),
    "pi0est": Spec(pi0est, {"p": P}, data=("p",), paired=False, ok=R_NA),
    "lfdr": Spec(lfdr, {"p": P}, data=("p",), paired=False, ok=R_NA, nan_result_ok={("p", "nan")}),
    "bfdr_select": Spec(bfdr_select, {"lfdr": LFDR, "alpha": 0.1}, data=("lfdr",), paired=False,
                        ok={("lfdr", "wrong_ndim")}),
    "combine_pvalues": Spec(combine_pvalues, {"p": P6, "method": "fisher"}, data=("p",), paired=False,
                            ok={("p", "nan"), ("p", "wrong_ndim")}, nan_result_ok={("p", "nan")}),
    # Stouffer's weights pair with p: one per p-value; a NaN weight follows nan_policy with its p-value
    # (scipy's default "propagate": a NaN result)
    "combine_pvalues[weights]": Spec(combine_pvalues, {"p": P6, "method": "stouffer", "weights": np.arange(1.0, 7.0)},
                                     data=("weights",), ok={("weights", "none"), ("weights", "nan")},
                                     nan_result_ok={("weights", "nan")}),
    "bfdr_select[omit]": Spec(bfdr_select, {"lfdr": LFDR, "alpha": 0.1, "nan_policy": "omit"}, data=("lfdr",),
                              paired=False, ok={("lfdr", "wrong_ndim"), ("lfdr", "nan")}),
    # a text covariate holds labels, its strata ("0.25" too: text is never read as a number); with
    # nbins=2 the many labels of numeric_text are refused (nbins must equal the number of levels)
    "ihw": Spec(ihw, {"p": P, "covariate": COV, "alpha": 0.1, "seed": 1}, data=("p", "covariate"),
                ok={("covariate", "text"), ("covariate", "numeric_text")}),
    "ihw[two strata]": Spec(ihw, {"p": P2K, "covariate": COV2K, "nbins": 2, "lambdas": 1.0, "seed": 1},
                            data=("p", "covariate"), ok={("covariate", "text")}),
    # e-values and adaptive step-ups (issue 31): e-values may be inf (the e-value of p = 0); the
    # elementwise calibrators and merge_e take any shape; e_bh, the knockoff functions and
    # fdr_adaptive take one family (one-dimensional)
    "e_bh": Spec(e_bh, {"e": E5, "alpha": 0.1}, data=("e",), paired=False, ok={("e", "inf")}),
    "p_to_e": Spec(p_to_e, {"p": P6}, data=("p",), paired=False, ok={("p", "wrong_ndim"), ("p", "empty")}),
    "e_to_p": Spec(e_to_p, {"e": E5}, data=("e",), paired=False, ok={("e", "wrong_ndim"), ("e", "inf")}),
    "merge_e": Spec(merge_e, {"e": E5}, data=("e",), paired=False, ok={("e", "wrong_ndim"), ("e", "inf")}),
    "knockoff_threshold": Spec(knockoff_threshold, {"W": W8, "fdr": 0.2}, data=("W",), paired=False),
    "knockoff_e_values": Spec(knockoff_e_values, {"W": W8, "fdr": 0.2}, data=("W",), paired=False),
    "fdr_adaptive": Spec(fdr_adaptive, {"p": P, "method": "STS", "alpha": 0.1}, data=("p",), paired=False),
    "fdr_adaptive[twostageBR]": Spec(fdr_adaptive, {"p": P, "method": "twostageBR", "alpha": 0.1}, data=("p",),
                                     paired=False),
}

RESULT_EXAMPLES = {
    "QValueResult": lambda: qvalue(P, fdr_level=0.1),
    "Pi0Estimate": lambda: pi0est(P),
    "BFDRSelection": lambda: bfdr_select(LFDR, alpha=0.1),
    "CombinedPValues": lambda: combine_pvalues(P6, method="fisher"),
    "IHWResult": lambda: ihw(P2K, COV2K, nbins=2, lambdas=[1.0, np.inf], seed=1),
    "EBHResult": lambda: e_bh(E5, alpha=0.1),
    "AdaptiveFDR": lambda: fdr_adaptive(P, method="STS", alpha=0.1),
}

EXEMPT = {}


@pytest.mark.parametrize("name", sorted(BAD_INPUT_SPECS))
def test_bad_input_sweep(name):
    assert sweep_bad_inputs(BAD_INPUT_SPECS[name]) == []


@pytest.mark.parametrize("name", sorted(RESULT_EXAMPLES))
def test_result_protocol(name):
    check_result_protocol(RESULT_EXAMPLES[name]())


def test_batched_combined_result_protocol():
    check_result_protocol(combine_pvalues(np.tile(P6, (3, 1)), method="simes", axis=1))
    check_result_protocol(qvalue(P, lfdr_out=False))
    check_result_protocol(pi0est(P, lambda_=0.5))
    check_result_protocol(e_bh(np.ones(4), alpha=0.1))          # no rejection: threshold inf
    check_result_protocol(fdr_adaptive(P, method="twostageBR", alpha=0.1))  # no adjusted p-values
