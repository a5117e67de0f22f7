"""HTest prints exactly as R's print.htest; R number formatting; equality, repr, frames."""
import numpy as np
import pandas as pd
import pytest

import statcore as sc
from statcore._r.rformat import format_numbers, format_pval, format_table
from helpers import requires_r, run_r

# R 4.2.2: set.seed(1); x <- rnorm(20); y <- rnorm(25, 1); print(t.test(x, y))
WELCH_R = """
\tWelch Two Sample t-test

data:  x and y
t = -3.1065, df = 38.43, p-value = 0.00355
alternative hypothesis: true difference in means is not equal to 0
95 percent confidence interval:
 -1.3379424 -0.2824143
sample estimates:
mean of x mean of y 
0.1905239 1.0007022 

"""


def welch():
    return sc.HTest(
        statistic=-3.1065054530081136, statistic_name="t", parameter={"df": 38.430166048357876},
        p_value=0.0035501447577580004, conf_int=(-1.3379424147564898, -0.28241428458066154),
        conf_level=0.95, estimate={"mean of x": 0.19052386526519776, "mean of y": 1.0007022148417734},
        null_value={"difference in means": 0.0}, alternative="two.sided",
        method="Welch Two Sample t-test", data_name="x and y")


def test_welch_print_golden():
    assert welch().summary() == WELCH_R
    assert str(welch()) == WELCH_R


def test_r_number_formats():
    assert format_numbers([-1.3379424147564898, -0.28241428458066154]) == ["-1.3379424", "-0.2824143"]
    assert format_numbers([1.905239e-09, 1.000702e-08]) == ["1.905239e-09", "1.000702e-08"]
    assert format_numbers([0.3, 0.5]) == ["0.3", "0.5"]
    assert format_numbers([-np.inf, 0.4616589]) == ["     -Inf", "0.4616589"]
    assert format_numbers([123456.0]) == ["123456"]
    assert format_numbers([1e-10], 5) == ["1e-10"]
    assert format_numbers([0.0001234], 7) == ["0.0001234"]
    assert format_pval(1e-20) == "< 2.22e-16"
    assert format_pval(1e-20, 4) == "< 2.2e-16"
    assert format_pval(0.00355014, 4) == "0.00355"


def test_table_layout():
    txt = format_table(["p-value", "local FDR"], {"<0.01": [3, 12], "<1": [100, 100]})
    assert txt == "          <0.01  <1\np-value       3 100\nlocal FDR    12 100"


def test_equality_repr_unpack_frame():
    a, b = welch(), welch()
    assert a == b and not (a != b)
    assert a != sc.HTest(statistic=1.0, p_value=0.5)
    assert "Welch" in repr(a) and "p_value=0.00355" in repr(a)
    stat, p = a
    assert stat == a.statistic and p == a.pvalue == a.p_value
    df = a.to_frame()
    # broom::tidy.htest's layout in snake_case
    assert list(df.columns) == ["estimate1", "estimate2", "statistic", "p_value", "parameter", "conf_low",
                                "conf_high", "method", "alternative"]
    assert df.loc[0, "statistic"] == a.statistic and df.loc[0, "estimate2"] == a.estimate["mean of y"]
    assert df.loc[0, "conf_low"] == a.conf_int[0] and df.loc[0, "parameter"] == a.parameter["df"]
    html = a._repr_html_()
    assert "<table" in html and "<pre>" not in html and "Welch Two Sample t-test" in html
    assert a.summary() == str(a)
    assert hash(a) == hash(b) and len({a, b}) == 1  # hashable, consistently with ==


def test_extras_compare_arrays():
    a = sc.HTest(statistic=1.0, p_value=0.1, extras={"p": np.array([0.1, 0.2])})
    b = sc.HTest(statistic=1.0, p_value=0.1, extras={"p": np.array([0.1, 0.2])})
    c = sc.HTest(statistic=1.0, p_value=0.1, extras={"p": np.array([0.1, 0.3])})
    assert a == b and a != c


R_HTESTS = r"""
set.seed(1); x <- rnorm(20); y <- rnorm(25, 1)
tests <- list(t.test(x, y), t.test(x, mu = 0.2, alternative = "less", conf.level = 0.9),
  chisq.test(matrix(c(12, 5, 7, 9), 2)), var.test(x, y), cor.test(x, x[20:1] + rnorm(20)),
  binom.test(7, 20, p = 0.3), wilcox.test(x, y), prop.test(c(15, 25), c(50, 50)),
  t.test(x * 1e-8, y * 1e-8), fisher.test(matrix(c(3, 1, 1, 3), 2)),
  t.test(x, y + 100, var.equal = TRUE), cor.test(x, x + rnorm(20, sd = 1e-9)),
  poisson.test(137, 24.19893), mantelhaen.test(UCBAdmissions), kruskal.test(list(x, y)))
num <- function(v) paste(sprintf("%.17g", v), collapse = "\t")
nm <- function(v) paste(names(v), collapse = "\t")
for (h in tests) {
  cat("BEGIN\n")
  cat("method\t", h$method, "\n", sep = "")
  cat("data\t", h$data.name, "\n", sep = "")
  if (!is.null(h$statistic)) cat("statistic\t", names(h$statistic), "\t", num(h$statistic), "\n", sep = "")
  if (!is.null(h$parameter)) { cat("parnames\t", nm(h$parameter), "\n", sep = ""); cat("parvals\t", num(h$parameter), "\n", sep = "") }
  if (!is.null(h$p.value)) cat("pvalue\t", num(h$p.value), "\n", sep = "")
  if (!is.null(h$alternative)) cat("alternative\t", h$alternative, "\n", sep = "")
  if (!is.null(h$null.value)) { cat("nullnames\t", nm(h$null.value), "\n", sep = ""); cat("nullvals\t", num(h$null.value), "\n", sep = "") }
  if (!is.null(h$conf.int)) cat("ci\t", num(h$conf.int), "\t", num(attr(h$conf.int, "conf.level")), "\n", sep = "")
  if (!is.null(h$estimate)) { cat("estnames\t", nm(h$estimate), "\n", sep = ""); cat("estvals\t", num(h$estimate), "\n", sep = "") }
  cat("PRINT\n"); print(h); cat("END\n")
}
"""


def _parse_r_htests(out: str):
    blocks = out.split("BEGIN\n")[1:]
    for blk in blocks:
        head, printed = blk.split("PRINT\n")
        printed = printed.rsplit("END\n", 1)[0]
        f = {}
        for line in head.strip("\n").split("\n"):
            key, *vals = line.split("\t")
            f[key] = vals
        kw = dict(method=f["method"][0], data_name=f["data"][0], alternative=f.get("alternative", [None])[0])
        if "statistic" in f:
            kw["statistic_name"], kw["statistic"] = f["statistic"][0], float(f["statistic"][1])
        if "parnames" in f:
            kw["parameter"] = dict(zip(f["parnames"], map(float, f["parvals"])))
        if "pvalue" in f:
            kw["p_value"] = float(f["pvalue"][0])
        if "nullnames" in f:
            kw["null_value"] = dict(zip(f["nullnames"], map(float, f["nullvals"])))
        if "ci" in f:
            kw["conf_int"] = (float(f["ci"][0]), float(f["ci"][1]))
            kw["conf_level"] = float(f["ci"][2])
        if "estnames" in f:
            kw["estimate"] = dict(zip(f["estnames"], map(float, f["estvals"])))
        yield sc.HTest(**kw), printed


@requires_r
@pytest.mark.r
def test_print_matches_live_r_for_many_tests():
    out = run_r(R_HTESTS)
    n = 0
    for h, printed in _parse_r_htests(out):
        assert h.summary() == printed, f"{h.method}\n--- ours\n{h.summary()}\n--- R\n{printed}"
        n += 1
    assert n == 15


# -- the one equality, the hash, frozen pandas fields (docs/conventions.md, section 2) --------------

import warnings  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402

from statcore._result import Result  # noqa: E402


@dataclass(frozen=True, repr=False)  # eq=True by default: Result's __eq__ must survive it
class _Probe(Result):
    estimate: float
    values: np.ndarray
    table: pd.DataFrame
    named: dict = field(default_factory=dict)
    fit: object = None

    def summary(self):
        return f"probe {self.estimate} {self.table['a'].sum()} {list(self.table.columns)}"

    def to_frame(self):
        return self.table


def _probe(estimate=1.0, values=(1.0, np.nan), table=None, named=None, fit=None):
    table = pd.DataFrame({"a": [1.0, 2.0], "b": ["x", "y"]}) if table is None else table
    return _Probe(estimate, np.array(values), table, {"w": np.array([0.5, np.nan])} if named is None else named, fit)


def test_equality_is_by_value_and_never_raises():
    a, b = _probe(), _probe()
    assert a == b and not (a != b) and a is not b  # arrays with NaN, a table, a dict of arrays
    assert a != _probe(estimate=2.0)
    assert a != _probe(values=(1.0, 2.0))
    assert a != _probe(values=(1.0, np.nan, 3.0))  # another shape
    assert a != _probe(table=pd.DataFrame({"a": [1.0, 2.5], "b": ["x", "y"]}))
    assert a != _probe(named={"w": np.array([0.5, 0.6])}) and a != _probe(named={"v": np.array([0.5, np.nan])})
    assert _probe(estimate=np.nan) == _probe(estimate=np.nan)
    assert a != "probe" and a != sc.HTest(statistic=1.0)  # another type: unequal, no error
    model = object()  # a fitted model compares by identity
    assert _probe(fit=model) == _probe(fit=model) and _probe(fit=model) != _probe(fit=object())


def test_hash_is_consistent_with_equality():
    a, b = _probe(), _probe()
    assert hash(a) == hash(b) and len({a, b}) == 1
    assert hash(_probe(estimate=np.nan)) == hash(_probe(estimate=np.nan))
    assert hash(a) != hash(_probe(estimate=2.0))
    h1 = sc.HTest(statistic=1.0, p_value=float("nan"), extras={"x": np.arange(3)})
    h2 = sc.HTest(statistic=1.0, p_value=float("nan"), extras={"x": np.arange(3)})
    assert h1 == h2 and hash(h1) == hash(h2)


def test_a_subclass_cannot_bring_its_own_equality():
    with pytest.raises(TypeError, match="__eq__"):
        class _Own(Result):
            def __eq__(self, other):
                return True
    with pytest.raises(TypeError, match="__hash__"):
        class _OwnHash(Result):
            def __hash__(self):
                return 0


def test_pandas_fields_cannot_be_edited_in_place():
    table = pd.DataFrame({"a": [1.0, 2.0], "b": ["x", "y"]})
    res = _probe(table=table)
    before = res.summary()
    with warnings.catch_warnings():  # pandas warns of the chained assignment; it must not reach the result
        warnings.simplefilter("ignore")
        res.table.iloc[0, 0] = 99.0  # the reviewer's edit
    held = res.table  # an edit through a name held on to reaches that copy only
    held.iloc[0, 0] = 99.0
    held["c"] = 1
    held.index.name = "edited"
    held.columns.name = "edited"
    assert res.summary() == before and list(res.table.columns) == ["a", "b"]
    assert res.table.index.name is None and res.table.columns.name is None
    table.iloc[1, 0] = -5.0  # nor does an edit of the caller's frame
    assert res.table.iloc[1, 0] == 2.0 and res.summary() == before
    assert res == _probe() and res.table.equals(_probe().table)


# -- the API check's result-protocol additions catch what they are for ------------------------------

def _bad_result(frame=None, text="probe", held=None, extra=None):
    @dataclass(frozen=True, repr=False)
    class _Bad(Result):
        estimate: float
        held: object = None
        extra: object = None

        def summary(self):
            return text

        def to_frame(self):
            return pd.DataFrame({"estimate": [self.estimate]}) if frame is None else frame

    return _Bad(1.0, held, extra)


def test_result_check_catches_the_breaches():
    from apicheck import check_result_protocol

    check_result_protocol(_bad_result(), plot=False)  # the well-behaved one passes
    for col in ("from", "sd", "kurtosis_p", "pvalue", "drift_se"):
        with pytest.raises(AssertionError, match="naming table"):
            check_result_protocol(_bad_result(frame=pd.DataFrame({col: [1.0]})), plot=False)
    with pytest.raises(AssertionError, match="p-value of its own"):
        check_result_protocol(_bad_result(text="W = 0.75, p-value = 0.2231"), plot=False)
    test = sc.HTest(statistic=1.0, p_value=0.25, method="A test", data_name="x")
    check_result_protocol(_bad_result(text="header\n" + test.summary(), held=test), plot=False)
    with pytest.raises(AssertionError, match="inside a container"):
        check_result_protocol(_bad_result(extra={"table": pd.DataFrame({"a": [1.0]})}), plot=False)


@dataclass(frozen=True, repr=False)
class _Interval(Result):
    """A prediction-interval result done right: its ends hold the names of its columns."""

    pred_low: np.ndarray
    pred_high: np.ndarray

    def summary(self):
        return "probe"

    def to_frame(self):
        return pd.DataFrame({"pred_low": self.pred_low, "pred_high": self.pred_high})


@dataclass(frozen=True, repr=False)
class _BoundNamedInterval(Result):
    """The breach: a prediction interval whose ends are the attributes lower/upper (a bound's names)."""

    lower: np.ndarray
    upper: np.ndarray

    def summary(self):
        return "probe"

    def to_frame(self):
        return pd.DataFrame({"pred_low": self.lower, "pred_high": self.upper})


@dataclass(frozen=True, repr=False)
class _AliasedInterval(_Interval):
    """The other breach: the ends under both names."""

    lower: np.ndarray = None
    upper: np.ndarray = None


def test_result_check_wants_prediction_interval_ends_named_by_the_table():
    from apicheck import check_result_protocol

    lo, hi = np.zeros(2), np.ones(2)
    check_result_protocol(_Interval(lo, hi), plot=False)
    with pytest.raises(AssertionError, match=r"fields \['pred_low', 'pred_high'\] are absent: the naming table"):
        check_result_protocol(_BoundNamedInterval(lo, hi), plot=False)
    with pytest.raises(AssertionError, match=r"naming table, yet fields \['lower', 'upper'\] remain"):
        check_result_protocol(_AliasedInterval(lo, hi, lo, hi), plot=False)
