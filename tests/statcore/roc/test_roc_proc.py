"""statcore.roc against R pROC: golden values (tests/golden/roc/roc_golden.R) and a live R session.

AUC, the curve, DeLong's variance and interval, roc.test (DeLong paired and unpaired, one-sided,
Venkatraman's E) and the partial AUC (specificity and sensitivity focus, McClish-corrected) agree
to 1e-10 on data with ties; the printouts of roc.test equal R's (the random p-values of the
bootstrap and permutation tests masked). Venkatraman's unpaired E equals pROC's to the last bit
(golden values from tests/golden/roc/venkatraman_unpaired_golden.R and a live run), its
permutation p-value within Monte Carlo error of R's."""
import re
import warnings

import numpy as np
import pytest

import statcore
from helpers import load_golden_json, r_vector, requires_r, run_r

TOL = 1e-10
GOLDEN = load_golden_json("roc", "roc_golden.json")
SETS = sorted(GOLDEN["sets"])


def _close(a, b, tol=TOL):
    a = np.asarray(a, dtype=float)
    b = np.asarray([np.nan if v is None or v == "NA" else v for v in np.atleast_1d(b)], dtype=float).reshape(a.shape)
    np.testing.assert_allclose(a, b, rtol=0, atol=tol)


def _curves(d):
    y = np.asarray(d["y"], float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", statcore.ROCWarning)
        return [statcore.roc(y, np.asarray(d[k], float)) for k in ("x1", "x2", "x3")]


def _mask_random(text):
    """The printout with the random parts of a bootstrap or permutation test masked."""
    text = re.sub(r"p-value [=<] [0-9.e-]+", "p-value = P", text)
    return re.sub(r"\bD = -?[0-9.e-]+", "D = X", text)


def _print_equal(ours, r_text):
    """R's print (capture.output) and ours, line by line (R's trailing blank lines aside)."""
    assert ours.rstrip("\n").split("\n") == r_text.rstrip("\n").split("\n")


@pytest.mark.parametrize("name", SETS)
def test_golden_auc_curve_delong(name):
    d, a = GOLDEN["sets"][name], GOLDEN["answers"][name]
    r1, r2, r3 = _curves(d)
    assert [r.direction for r in (r1, r2, r3)] == a["direction"]
    _close([r1.auc, r2.auc, r3.auc], a["auc"])
    for r, k in ((r1, "1"), (r3, "3")):
        np.testing.assert_array_equal(np.isinf(r.thresholds), np.isinf(np.asarray(a["thresholds" + k], float)))
        fin = np.isfinite(r.thresholds)
        _close(np.asarray(r.thresholds)[fin], np.asarray(a["thresholds" + k], float)[fin])
        assert np.array_equal(np.sign(r.thresholds[~fin]), np.sign(np.asarray(a["thresholds" + k], float)[~fin]))
        _close(r.sensitivities, a["sensitivities" + k])
        _close(r.specificities, a["specificities" + k])
    var = [statcore.auc_ci(r).std_error ** 2 for r in (r1, r2, r3)]
    _close(var, a["var_delong"])
    ci = statcore.auc_ci(r1)
    _close([ci.conf_int[0], ci.estimate, ci.conf_int[1]], a["ci_delong95"])
    ci = statcore.auc_ci(r3, conf_level=0.9)
    _close([ci.conf_int[0], ci.estimate, ci.conf_int[1]], a["ci_delong90"])


@pytest.mark.parametrize("name", SETS)
def test_golden_partial_auc(name):
    d, a = GOLDEN["sets"][name], GOLDEN["answers"][name]
    r1, r2, r3 = _curves(d)
    specs = {"sp_1_08": (r1, (1, 0.8), (1, 0.8), "sp"), "sp_09_06": (r2, (0.9, 0.6), (0.6, 0.9), "specificity"),
             "se_1_08": (r1, (1, 0.8), (1, 0.8), "se"), "se_095_07": (r3, (0.95, 0.7), (0.95, 0.7), "sensitivity")}
    for key, (r, b_raw, b_corr, focus) in specs.items():
        want_raw, want_corr = a["pauc"][key]
        _close(statcore.auc(r, partial_auc=b_raw, partial_auc_focus=focus), want_raw)
        if want_corr in (None, "NA"):  # pROC (jsonlite writes NA as "NA"): the correction is undefined below the diagonal (NA, a warning)
            with pytest.warns(statcore.ROCWarning, match="below the diagonal"):
                got = statcore.auc(r, partial_auc=b_corr, partial_auc_focus=focus, partial_auc_correct=True)
            assert np.isnan(got)
        else:
            _close(statcore.auc(r, partial_auc=b_corr, partial_auc_focus=focus, partial_auc_correct=True), want_corr)
    # the specification given to roc() is the curve's auc, as pROC's roc(..., partial.auc=)
    r = statcore.roc(np.asarray(d["y"], float), np.asarray(d["x1"], float), partial_auc=(1, 0.8),
                     partial_auc_focus="se")
    _close(r.auc, a["pauc"]["se_1_08"][0])
    _close(r.full_auc, a["auc"][0])


@pytest.mark.parametrize("name", SETS)
def test_golden_roc_test(name):
    d, a = GOLDEN["sets"][name], GOLDEN["answers"][name]
    roc1, roc2, _ = _curves(d)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", statcore.ROCWarning)
        t = statcore.roc_test(roc1, roc2)
        _close([t.statistic, t.p_value], [a["test_paired"]["statistic"], a["test_paired"]["p_value"]])
        _close(t.conf_int, a["test_paired"]["conf_int"])
        _print_equal(t.summary(), a["test_paired"]["print"])
        t = statcore.roc_test(roc1, roc2, paired=False)
        _close([t.statistic, t.parameter["df"], t.p_value],
               [a["test_unpaired"]["statistic"], a["test_unpaired"]["df"], a["test_unpaired"]["p_value"]])
        _print_equal(t.summary(), a["test_unpaired"]["print"])
        t = statcore.roc_test(roc1, roc2, alternative="less", conf_level=0.9)
        _close([t.statistic, t.p_value], [a["test_less"]["statistic"], a["test_less"]["p_value"]])
        _close(t.conf_int, a["test_less"]["conf_int"])
        t = statcore.roc_test(roc1, roc2, alternative="greater")
        _close([t.statistic, t.p_value], [a["test_greater"]["statistic"], a["test_greater"]["p_value"]])
        v = statcore.roc_test(roc1, roc2, method="venkatraman", B=2000, seed=1)
        assert v.statistic == a["venkatraman"]["statistic"]
        _print_equal(_mask_random(v.summary()), _mask_random(a["venkatraman"]["print"]))
        b = statcore.roc_test(roc1, roc2, method="bootstrap", B=2000, seed=1)
        _print_equal(_mask_random(b.summary()), _mask_random(a["bootstrap"]["print"]))
    # random tests (B = 2000 in both): R's and our p-values are two Monte Carlo estimates of the same
    # permutation p-value, within 4 standard errors of their difference; the bootstrap D's differ by
    # the noise of two bootstrap standard deviations (relative s.e. about 1 / sqrt(2 B) each)
    p_r = a["venkatraman"]["p_value"]
    assert abs(v.p_value - p_r) <= 4 * np.sqrt(2 * max(p_r * (1 - p_r), 1 / 2000) / 2000)
    d_r = a["bootstrap"]["statistic"]
    assert abs(b.statistic - d_r) <= 4 * np.sqrt(2 / (2 * 2000)) * abs(d_r) + 1e-12


def test_golden_string_labels_and_levels():
    g = GOLDEN["labels"]
    r = statcore.roc(np.array(g["y"]), np.asarray(g["x"], float), levels=tuple(g["levels"]))
    assert r.levels == ("sick", "healthy") and r.direction == g["direction"]
    _close(r.auc, g["auc"])
    assert r.n_controls == 9 and r.n_cases == 6
    assert r.summary().strip().splitlines()[-1] == g["print"].strip().splitlines()[-1]


def _r_num(out, key):
    for line in out.splitlines():
        if line.startswith(key + " "):
            return np.array([float(v) if v != "NA" else np.nan for v in line.split()[1:]])
    raise KeyError(key)


@requires_r("pROC")
def test_live_r_proc():
    rng = np.random.default_rng(20261203)
    cases = []
    for n0, n1, digits in ((60, 45, 1), (150, 90, 0), (12, 20, 2)):
        y = rng.permutation(np.repeat([0.0, 1.0], [n0, n1]))
        x1 = np.round(rng.normal(size=n0 + n1) + 0.9 * y, digits)
        x2 = np.round(rng.normal(size=n0 + n1) + 0.6 * y, digits)
        cases.append((y, x1, x2))
    code = ["suppressPackageStartupMessages(library(pROC))", "f <- function(v) sprintf('%.17g', v)"]
    for i, (y, x1, x2) in enumerate(cases):
        code += [f"y <- {r_vector(y)}; x1 <- {r_vector(x1)}; x2 <- {r_vector(x2)}",
                 "roc1 <- roc(y, x1, quiet = TRUE); roc2 <- roc(y, x2, quiet = TRUE)",
                 "tp <- roc.test(roc1, roc2); tu <- suppressWarnings(roc.test(roc1, roc2, paired = FALSE))",
                 "pa <- function(r, b, fo, co) as.numeric(suppressWarnings(auc(r, partial.auc = b, "
                 "partial.auc.focus = fo, partial.auc.correct = co)))",
                 f"cat('auc{i}', f(c(as.numeric(roc1$auc), as.numeric(roc2$auc))), '\\n')",
                 f"cat('var{i}', f(c(var(roc1), var(roc2))), '\\n')",
                 f"cat('ci{i}', f(as.numeric(ci.auc(roc1))), '\\n')",
                 f"cat('tp{i}', f(c(tp$statistic, tp$p.value, tp$conf.int)), '\\n')",
                 f"cat('tu{i}', f(c(tu$statistic, tu$parameter, tu$p.value)), '\\n')",
                 f"cat('pauc{i}', f(c(pa(roc1, c(1, .8), 'sp', FALSE), pa(roc1, c(1, .8), 'sp', TRUE), "
                 "pa(roc2, c(.9, .7), 'se', FALSE), pa(roc2, c(.9, .7), 'se', TRUE))), '\\n')",
                 f"cat('dir{i}', ifelse(c(roc1$direction, roc2$direction) == '<', 1, 0), '\\n')",
                 f"cat('PRINT{i}', capture.output(print(tp)), sep = '\\n'); cat('END\\n')"]
    out = run_r("\n".join(code))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", statcore.ROCWarning)
        for i, (y, x1, x2) in enumerate(cases):
            roc1, roc2 = statcore.roc(y, x1), statcore.roc(y, x2)
            assert [roc1.direction == "<", roc2.direction == "<"] == list(_r_num(out, f"dir{i}") == 1)
            _close([roc1.auc, roc2.auc], _r_num(out, f"auc{i}"))
            _close([statcore.auc_ci(r).std_error ** 2 for r in (roc1, roc2)], _r_num(out, f"var{i}"))
            ci = statcore.auc_ci(roc1)
            _close([ci.conf_int[0], ci.estimate, ci.conf_int[1]], _r_num(out, f"ci{i}"))
            tp = statcore.roc_test(roc1, roc2)
            _close([tp.statistic, tp.p_value, *tp.conf_int], _r_num(out, f"tp{i}"))
            tu = statcore.roc_test(roc1, roc2, paired=False)
            _close([tu.statistic, tu.parameter["df"], tu.p_value], _r_num(out, f"tu{i}"))
            pauc = [statcore.auc(roc1, partial_auc=(1, .8)), statcore.auc(roc1, partial_auc=(1, .8), partial_auc_correct=True),
                    statcore.auc(roc2, partial_auc=(.9, .7), partial_auc_focus="se"),
                    statcore.auc(roc2, partial_auc=(.9, .7), partial_auc_focus="se", partial_auc_correct=True)]
            _close(pauc, _r_num(out, f"pauc{i}"))
            lines = out.splitlines()
            start = lines.index(f"PRINT{i}")
            _print_equal(tp.summary(), "\n".join(lines[start + 1:lines.index("END", start)]))


@requires_r("pROC")
def test_live_r_partial_auc_bootstrap_print():
    """roc.test of partial areas (bootstrap): pROC's estimate names ("Corrected pAUC (1-0.8
    specificity) of roc1"), their values and the layout, the random D and p-value masked."""
    rng = np.random.default_rng(5)
    y = np.tile([0.0, 1.0], 30)
    x1, x2 = np.round(rng.normal(size=60) + y, 2), np.round(rng.normal(size=60) + y / 2, 2)
    code = ("suppressPackageStartupMessages(library(pROC))\n"
            f"y <- {r_vector(y)}; x1 <- {r_vector(x1)}; x2 <- {r_vector(x2)}\n"
            "roc1 <- roc(y, x1, partial.auc = c(1, .8), partial.auc.correct = TRUE, quiet = TRUE, direction = '<')\n"
            "roc2 <- roc(y, x2, partial.auc = c(.9, .6), partial.auc.focus = 'se', quiet = TRUE, direction = '<')\n"
            "print(suppressWarnings(roc.test(roc1, roc2, boot.n = 50, progress = 'none')))\n")
    out = run_r(code)
    r1 = statcore.roc(y, x1, partial_auc=(1, 0.8), partial_auc_correct=True, direction="<")
    r2 = statcore.roc(y, x2, partial_auc=(0.9, 0.6), partial_auc_focus="se", direction="<")
    with pytest.warns(statcore.ROCWarning, match="Different AUC specifications"):
        res = statcore.roc_test(r1, r2, method="bootstrap", B=50, seed=1)
    _print_equal(_mask_random(res.summary()), _mask_random(out))


# ------------------------------------------------------------------------------------------------
# Venkatraman's unpaired test (golden values: tests/golden/roc/venkatraman_unpaired_golden.R)
# ------------------------------------------------------------------------------------------------
VENK = load_golden_json("roc", "venkatraman_unpaired_golden.json")


def _venk_unpaired(d, B, seed):
    roc1 = statcore.roc(np.asarray(d["y1"], float), np.asarray(d["x1"], float))
    roc2 = statcore.roc(np.asarray(d["y2"], float), np.asarray(d["x2"], float))
    return statcore.roc_test(roc1, roc2, paired=False, method="venkatraman", B=B, seed=seed)


@pytest.mark.parametrize("name", sorted(VENK["sets"]))
def test_golden_venkatraman_unpaired_statistic_and_print(name):
    """E equals pROC's to the last bit (R's 17 digits), on equal and unequal samples, heavy ties,
    and pROC's mixing proportion above 1; the printout equals R's, the random p-value masked."""
    d, a = VENK["sets"][name], VENK["answers"][name]
    res = _venk_unpaired(d, 20, 1)
    assert res.statistic == float(a["statistic"])
    _print_equal(_mask_random(res.summary()).replace("boot.n = 20,", "boot.n = 2000,"), _mask_random(a["print"]))


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(VENK["sets"]))
def test_golden_venkatraman_unpaired_p_value(name):
    """B = 2000 on both sides: R's and our p-values are two Monte Carlo estimates of the same
    permutation p-value, within 4 standard errors of their difference."""
    a = VENK["answers"][name]
    p = _venk_unpaired(VENK["sets"][name], 2000, 7).p_value
    p_r = a["p_value"]
    assert abs(p - p_r) <= 4 * np.sqrt(2 * max(p_r * (1 - p_r), 1 / 2000) / 2000)


@requires_r("pROC")
def test_live_r_venkatraman_unpaired():
    """E against a live pROC on fresh samples of unequal sizes, with ties, and curves of opposite
    direction (both tests rank the scores as given)."""
    rng = np.random.default_rng(20261204)
    sets = []
    specs = ((40, 30, 55, 25, 0.7, 1), (20, 12, 9, 14, -0.8, 0), (50, 50, 50, 50, 0.3, 2))
    for n0, n1, m0, m1, shift, digits in specs:
        y1 = rng.permutation(np.repeat([0.0, 1.0], [n0, n1]))
        y2 = rng.permutation(np.repeat([0.0, 1.0], [m0, m1]))
        sets.append((y1, np.round(rng.normal(size=y1.size) + y1, digits),
                     y2, np.round(rng.normal(size=y2.size) + shift * y2, digits)))
    code = ["suppressPackageStartupMessages(library(pROC))"]
    for i, (y1, x1, y2, x2) in enumerate(sets):
        code += [f"roc1 <- roc({r_vector(y1)}, {r_vector(x1)}, quiet = TRUE)",
                 f"roc2 <- roc({r_vector(y2)}, {r_vector(x2)}, quiet = TRUE)",
                 "t <- suppressWarnings(roc.test(roc1, roc2, method = 'venkatraman', paired = FALSE, boot.n = 2, "
                 "progress = 'none'))",
                 f"cat('E{i}', sprintf('%.17g', t$statistic), '\\n')"]
    out = run_r("\n".join(code))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", statcore.ROCWarning)
        for i, (y1, x1, y2, x2) in enumerate(sets):
            res = statcore.roc_test(statcore.roc(y1, x1), statcore.roc(y2, x2), paired=False,
                                    method="venkatraman", B=10, seed=0)
            assert res.statistic == _r_num(out, f"E{i}")[0]


# ------------------------------------------------------------------------------------------------
# what pROC says and prints about its inputs: the levels message, the data line of roc.test
# ------------------------------------------------------------------------------------------------

def test_levels_message_and_quiet(capsys):
    """Levels not given: the chosen (control, case) are said on stderr, as pROC's message; quiet=True
    or explicit levels silence it."""
    y = np.array(["wrong", "right", "right", "wrong", "right", "wrong"])
    s = [0.9, 0.1, 0.4, 0.7, 0.3, 0.2]
    r = statcore.roc(y, s)
    assert r.levels == ("right", "wrong")
    captured = capsys.readouterr()
    assert captured.err == "Setting levels: control = right, case = wrong\n" and captured.out == ""
    statcore.roc(y, s, quiet=True)
    statcore.roc(y, s, levels=("right", "wrong"))
    assert capsys.readouterr().err == ""
    statcore.roc(np.array([True, False, True, False]), [1, 2, 3, 4])
    assert capsys.readouterr().err == "Setting levels: control = FALSE, case = TRUE\n"
    with pytest.raises(TypeError, match="quiet"):
        statcore.roc(y, s, quiet="yes")


def test_roc_test_data_name_from_series_names():
    """Series names give pROC's data line of roc.test(y, x1, x2): "x1 and x2 by y (0, 1)"; unnamed
    or equal names keep "roc1 and roc2" (what R prints for roc.test(roc1, roc2))."""
    import pandas as pd

    rng = np.random.default_rng(2)
    y = pd.Series(np.repeat([0, 1], 20), name="wrong")
    glu = pd.Series(rng.normal(size=40) + y, name="glu")
    ent = pd.Series(rng.normal(size=40) + 0.5 * y, name="entropy")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", statcore.ROCWarning)
        r1, r2 = statcore.roc(y, glu, quiet=True), statcore.roc(y, ent, quiet=True)
        for kw in ({}, {"paired": False}, {"method": "bootstrap", "B": 20, "seed": 1},
                   {"method": "venkatraman", "B": 20, "seed": 1}):
            t = statcore.roc_test(r1, r2, **kw)
            assert t.data_name == "glu and entropy by wrong (0, 1)", kw
            assert "data:  glu and entropy by wrong (0, 1)\n" in t.summary()
        a1, a2 = statcore.roc(y.to_numpy(), glu.to_numpy(), quiet=True), statcore.roc(y.to_numpy(), ent, quiet=True)
        assert statcore.roc_test(a1, a2).data_name == "roc1 and roc2"        # one unnamed: no names
        assert statcore.roc_test(r1, r1).data_name == "roc1 and roc2"          # equal names: no names
        b = statcore.roc(pd.Series(rng.integers(0, 2, 30), name="other"), ent[:30], quiet=True)
        assert statcore.roc_test(r1, b, paired=False).data_name == "glu and entropy"   # two responses


@requires_r("pROC")
def test_live_r_levels_message_and_data_name():
    rng = np.random.default_rng(11)
    y = rng.permutation(np.repeat([0.0, 1.0], [25, 20]))
    x1, x2 = np.round(rng.normal(size=45) + y, 2), np.round(rng.normal(size=45) + 0.3 * y, 2)
    lab = np.where(y == 1, "wrong", "right")
    code = ("suppressPackageStartupMessages(library(pROC))\n"
            f"y <- {r_vector(y)}; x1 <- {r_vector(x1)}; x2 <- {r_vector(x2)}\n"
            f"lab <- c({', '.join(repr(str(v)) for v in lab)})\n"
            "m <- character(0); withCallingHandlers(roc(lab, x1, direction = '<'), message = function(e) "
            "{m <<- c(m, conditionMessage(e)); invokeRestart('muffleMessage')})\n"
            "cat('MSG', m, sep = '')\n"
            "t <- roc.test(y, x1, x2, quiet = TRUE); cat('DATA', t$data.name, '\\n', sep = '')\n")
    out = run_r(code)
    msg = out.split("MSG", 1)[1].split("DATA", 1)[0]
    import contextlib
    import io
    import pandas as pd

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        statcore.roc(lab, x1, direction="<")
    assert err.getvalue() == msg
    data = out.split("DATA", 1)[1].splitlines()[0]
    r1 = statcore.roc(pd.Series(y, name="y"), pd.Series(x1, name="x1"), quiet=True)
    r2 = statcore.roc(pd.Series(y, name="y"), pd.Series(x2, name="x2"), quiet=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", statcore.ROCWarning)      # x2 may take the other direction
        assert statcore.roc_test(r1, r2).data_name == data
