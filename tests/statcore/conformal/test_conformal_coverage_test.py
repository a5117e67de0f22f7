"""coverage_test against R's binom.test (live R): statistic, parameter, p-value, estimate and
Clopper-Pearson interval to 1e-12, and the printout character for character; closed forms for the
one-sided p-values; bad input."""

import numpy as np
import pytest
from scipy.stats import binom

from helpers import requires_r, run_r
from statcore import coverage_test

#: (x, n, alpha, alternative, conf_level): interior, boundary (x = 0, x = n), x = n p exactly,
#: tiny p-values, and the two-sided rule on both sides of the mean
CASES = [(18, 20, 0.1, "two.sided", 0.95), (95, 100, 0.1, "two.sided", 0.95), (80, 100, 0.1, "two.sided", 0.9),
         (90, 100, 0.1, "two.sided", 0.95), (3, 50, 0.1, "less", 0.8), (50, 50, 0.1, "greater", 0.95),
         (0, 12, 0.5, "two.sided", 0.95), (12, 12, 0.5, "two.sided", 0.99), (941, 1000, 0.05, "two.sided", 0.95),
         (957, 1000, 0.05, "less", 0.95), (957, 1000, 0.05, "greater", 0.95), (7, 10, 0.3, "two.sided", 0.5),
         (1, 3, 0.5, "two.sided", 0.95), (180, 200, 0.2, "two.sided", 0.95), (4999, 5000, 0.001, "two.sided", 0.95)]


def _covered(x, n):
    return np.r_[np.ones(x, bool), np.zeros(n - x, bool)]


@requires_r()
def test_equals_r_binom_test():
    calls = ", ".join(f'binom.test({x}, {n}, p = {1 - a!r}, alternative = "{alt}", conf.level = {cl!r})'
                      for x, n, a, alt, cl in CASES)
    code = f"""
    tests <- list({calls})
    f <- function(v) sprintf("%.17g", v)
    for (t in tests) {{
      cat(paste(f(c(t$statistic, t$parameter, t$p.value, t$estimate, t$conf.int)), collapse = " "), "\\n")
      cat(paste(capture.output(print(t)), collapse = "\\\\n"), "\\n")
    }}
    """
    out = run_r(code).splitlines()
    assert len(out) == 2 * len(CASES)
    for i, (x, n, a, alt, cl) in enumerate(CASES):
        stat, param, p, est, lo, hi = map(float, out[2 * i].split())
        res = coverage_test(_covered(x, n), alpha=a, alternative=alt, conf_level=cl)
        assert res.statistic == stat and res.parameter["number of trials"] == param
        assert res.p_value == pytest.approx(p, rel=1e-12, abs=1e-300), (x, n, a, alt)
        assert res.estimate["probability of success"] == pytest.approx(est, rel=1e-15)
        np.testing.assert_allclose(res.conf_int, (lo, hi), rtol=1e-12, atol=1e-15)
        r_text = out[2 * i + 1].rstrip(" ").replace("\\n", "\n")
        ours = res.summary().rstrip("\n")
        assert ours == r_text.rstrip("\n"), f"{ours!r}\n!=\n{r_text!r}"


def test_one_sided_closed_forms_and_estimate():
    res = coverage_test(_covered(85, 100), alpha=0.1, alternative="less")
    assert res.p_value == pytest.approx(binom.cdf(85, 100, 0.9), rel=1e-14)
    res = coverage_test(_covered(95, 100), alpha=0.1, alternative="greater")
    assert res.p_value == pytest.approx(binom.sf(94, 100, 0.9), rel=1e-14)
    assert res.estimate == {"probability of success": 0.95}
    assert res.null_value == {"probability of success": 0.9}
    assert coverage_test(_covered(90, 100), alpha=0.1).p_value == 1.0
    stat, p = coverage_test([1, 1, 0, 1], alpha=0.5)
    assert stat == 3.0 and 0 < p <= 1


def test_bad_input():
    with pytest.raises(ValueError, match="covered must hold booleans or 0/1"):
        coverage_test([1, 0, 2], alpha=0.1)
    with pytest.raises(ValueError, match="covered contains NaN"):
        coverage_test([1.0, np.nan], alpha=0.1)
    with pytest.raises(ValueError, match="alpha must lie in"):
        coverage_test([True, False], alpha=1.0)
    with pytest.raises(ValueError, match="unknown alternative"):
        coverage_test([True, False], alpha=0.1, alternative="two-sided")
    with pytest.raises(ValueError, match="conf_level must lie in"):
        coverage_test([True, False], alpha=0.1, conf_level=1.0)
    with pytest.raises(ValueError, match="covered is empty"):
        coverage_test([], alpha=0.1)
