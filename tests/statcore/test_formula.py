"""R-style formulas (statcore._checks.formula): every formula call equals the array call on the
formula's columns, categorical columns expand as R's model.matrix (live R), missing values follow
nan_policy, data_name reads like R's, and a bad formula is a clear error naming what is wrong."""
import dataclasses
import re

import numpy as np
import pandas as pd
import pytest

import statcore as sc
from helpers import requires_r, run_r
from statcore._checks.formula import model_frame

pytest.importorskip("formulaic")

RNG = np.random.default_rng(2026)
N = 60
DF = pd.DataFrame({
    "z1": RNG.normal(size=N),
    "z2": RNG.normal(size=N),
    "stage": pd.Categorical(RNG.choice(["I", "II", "III"], N), categories=["I", "II", "III"]),
    "site": RNG.choice(["north", "south"], N),
    "treat": RNG.random(N) < 0.5,
})
DF["x"] = DF.z1 + RNG.normal(size=N)
DF["x2"] = RNG.normal(size=N)
DF["y"] = DF.z1 - DF.z2 + 0.5 * (DF.stage == "III") + RNG.normal(size=N)
DF["y2"] = DF.z2 + RNG.normal(size=N)
DF["age"] = RNG.normal(50.0, 10.0, size=N)
DF["out"] = RNG.normal(size=N) + 2.0 * DF.treat * (RNG.random(N) < 0.4)

# the array form of the conditioning set "z1 + z2 + stage": R's treatment contrasts, reference level I
ZMAT = np.column_stack([DF.z1, DF.z2, DF.stage == "II", DF.stage == "III"]).astype(float)


def _same(a, b, skip=("data_name",)) -> bool:
    """Exact equality of two results, field by field (arrays bit for bit)."""
    if dataclasses.is_dataclass(a):
        names = [f.name for f in dataclasses.fields(a) if f.name not in skip and not f.name.startswith("_")]
        return type(a) is type(b) and all(_same(getattr(a, k), getattr(b, k), ()) for k in names)
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k], ()) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(u, v, ()) for u, v in zip(a, b))
    if isinstance(a, (pd.Series, pd.DataFrame)):
        return a.equals(b)
    if isinstance(a, np.ndarray):
        return (isinstance(b, np.ndarray) and a.shape == b.shape
                and np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))
    if callable(a):
        return True  # the functions of a coupling (f): same name, checked through the values
    if isinstance(a, float) and isinstance(b, float) and np.isnan(a):
        return np.isnan(b)
    return a == b


@pytest.mark.parametrize("kind", ["scalar", "quadratic"])
def test_gcm_test_formula_equals_array_call(kind):
    res = sc.gcm_test("y ~ x | z1 + z2 + stage", data=DF, kind=kind)
    ref = sc.gcm_test(DF.x.to_numpy(), DF.y.to_numpy(), ZMAT, kind=kind)
    assert _same(res, ref)
    assert res.data_name == "y and x given z1 + z2 + stage"
    assert "data:  y and x given z1 + z2 + stage" in res.summary()


def test_gcm_test_formula_without_conditioning_set():
    res = sc.gcm_test("y ~ x", data=DF)
    assert _same(res, sc.gcm_test(DF.x.to_numpy(), DF.y.to_numpy()))
    assert res.data_name == "y and x"


def test_rpcit_formula_with_several_columns_on_each_side():
    res = sc.rpcit("y + y2 ~ x + x2 | z1", data=DF, k=8, seed=3)
    x, y = np.column_stack([DF.x, DF.x2]), np.column_stack([DF.y, DF.y2])
    ref = sc.rpcit(x, y, DF.z1.to_numpy(), k=8, seed=3)
    assert _same(res, ref)
    assert res.data_name == "y + y2 and x + x2 given z1"


def test_independence_tests_formula_equals_array_call():
    x, y = DF.x.to_numpy(), DF.y.to_numpy()
    for func, kw in ((sc.dcor_test, {"B": 49, "seed": 1}), (sc.dcor_test, {"method": "t"}),
                     (sc.dcov_test, {"B": 49, "seed": 1}), (sc.hsic_test, {}),
                     (sc.hsic_test, {"method": "permutation", "B": 49, "seed": 1})):
        res, ref = func("y ~ x", data=DF, **kw), func(x, y, **kw)
        assert _same(res, ref), (func.__name__, kw)
        assert res.data_name.startswith("y and x"), res.data_name
        assert res.data_name.endswith(ref.data_name.replace("x and y", "").lstrip(", ")), res.data_name
    res = sc.pdcor_test("y ~ x | z1 + z2", data=DF, B=49, seed=1)
    assert _same(res, sc.pdcor_test(x, y, DF[["z1", "z2"]].to_numpy(), B=49, seed=1))
    assert res.data_name == "y and x given z1 + z2, replicates 49"


def test_c2g_formula_keeps_names_and_index():
    df = DF.set_index(pd.Index([f"u{i}" for i in range(N)]))
    res = sc.c2g("out ~ treat | age + stage", data=df, seed=1)
    X = pd.DataFrame({"age": df.age, "stageII": (df.stage == "II").astype(int),
                      "stageIII": (df.stage == "III").astype(int)})
    ref = sc.c2g(df.out, df.treat, X, seed=1)
    assert _same(res, ref, skip=())
    assert list(res.lfdr.index[:2]) == ["u0", "u1"]


def test_joint_bounds_formula_equals_array_call():
    res = sc.joint_bounds("out ~ treat", data=DF, f="sq_diff", B=29, seed=4)
    ref = sc.joint_bounds(DF.out, DF.treat, f="sq_diff", B=29, seed=4)
    assert _same(res, ref, skip=())
    assert res.data_name == "out by treat"
    res = sc.ite_variance_bounds("out ~ treat | age", data=DF, B=0)
    assert _same(res, sc.ite_variance_bounds(DF.out, DF.treat, X=DF[["age"]], B=0), skip=())


def test_two_level_string_treatment_is_coded_as_r_codes_it():
    df = DF.assign(arm=np.where(DF.treat, "treated", "control"))
    res = sc.joint_bounds("out ~ arm", data=df, f="product", B=0)
    ref = sc.joint_bounds(df.out, df.treat, f="product", B=0)
    assert (res.lower, res.upper) == (ref.lower, ref.upper)


def test_missing_values_raise_naming_the_column_and_the_count():
    df = DF.copy()
    df.loc[[3, 7], "z2"] = np.nan
    df["stage"] = df.stage.astype(object)
    df.loc[5, "stage"] = None
    with pytest.raises(ValueError, match=r"'stage' \(1\), 'z2' \(2\).*nan_policy='omit'"):
        sc.gcm_test("y ~ x | z1 + z2 + stage", data=df)


def test_missing_values_omitted_as_the_array_call_omits_them():
    df = DF.copy()
    df.loc[[3, 7], "z2"] = np.nan
    df.loc[11, "y"] = np.nan
    res = sc.gcm_test("y ~ x | z1 + z2 + stage", data=df, nan_policy="omit")
    z = ZMAT.copy()
    z[[3, 7], 1] = np.nan
    ref = sc.gcm_test(df.x.to_numpy(), df.y.to_numpy(), z, nan_policy="omit")
    assert _same(res, ref)
    assert res.extras["n"] == N - 3
    assert res.data_name == "y and x given z1 + z2 + stage (3 observations deleted due to missingness)"
    # a missing level of a categorical drops its row too
    df.loc[20, "site"] = None
    res = sc.c2g("out ~ treat | site", data=df, nan_policy="omit", seed=1)
    assert res.kept.sum() == N - 1 and not res.kept[20]
    # nothing is modified
    assert pd.isna(df.loc[20, "site"]) and np.isnan(df.loc[3, "z2"]) and df.site.notna().sum() == N - 1


@pytest.mark.parametrize("call, match", [
    (lambda: sc.gcm_test("y ~ x + | z1", data=DF), r"formula 'y ~ x \+ \| z1' is malformed"),
    (lambda: sc.gcm_test("y ~ x | nope", data=DF), r"unknown column 'nope'"),
    (lambda: sc.gcm_test("y ~ x | z1 | z2", data=DF), r"2 '\|' parts"),
    (lambda: sc.gcm_test("~ x", data=DF), r"nothing on the left"),
    (lambda: sc.gcm_test("y x", data=DF), r"has no '~'"),
    (lambda: sc.gcm_test("y ~ 1", data=DF), r"no variable on the right"),
    (lambda: sc.dcor_test("y ~ x | z1", data=DF), r"plain independence.*pdcor_test"),
    (lambda: sc.pdcor_test("y ~ x", data=DF), r"needs a conditioning set"),
    (lambda: sc.c2g("out ~ treat + age", data=DF), r"one treat.*2 columns \(treat, age\)"),
    (lambda: sc.gcm_test("y ~ x", data=DF, nan_policy="propagate"), r"nan_policy"),
])
def test_bad_formulas_are_clear_value_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_formula_argument_errors_name_the_argument():
    with pytest.raises(TypeError, match=r"x is the string 'y ~ x'.*needs data="):
        sc.gcm_test("y ~ x")
    with pytest.raises(TypeError, match=r"data= goes with a formula"):
        sc.gcm_test(DF.x, DF.y, data=DF)
    with pytest.raises(TypeError, match=r"z comes from the formula"):
        sc.gcm_test("y ~ x", z=DF.z1, data=DF)
    with pytest.raises(TypeError, match=r"data must be a pandas DataFrame"):
        sc.gcm_test("y ~ x", data=np.ones((3, 2)))
    # a mapping of columns is a table too
    res = sc.gcm_test("y ~ x", data={"x": DF.x.to_numpy(), "y": DF.y.to_numpy()})
    assert _same(res, sc.gcm_test(DF.x.to_numpy(), DF.y.to_numpy()))


@requires_r
def test_categorical_expansion_matches_r_model_matrix(tmp_path):
    rng = np.random.default_rng(5)
    n = 25
    df = pd.DataFrame({"z1": rng.normal(size=n).round(6),
                       "g": pd.Categorical(rng.choice(["a", "b", "c"], n), categories=["c", "a", "b"]),
                       "h": rng.choice(["u", "v"], n), "x": 1.0, "y": 2.0})
    mf = model_frame("y ~ x | z1 + g + h + z1:g", df)
    path = tmp_path / "d.csv"
    df.to_csv(path, index=False)
    out = run_r(f"""
        d <- read.csv("{path}")
        d$g <- factor(d$g, levels = c("c", "a", "b"))
        m <- model.matrix(~ z1 + g + h + z1:g, d)[, -1]
        cat(colnames(m), sep = "\\n"); cat("--\\n")
        write.table(m, sep = ",", row.names = FALSE, col.names = FALSE)
    """)
    names, values = out.split("--\n")
    assert mf.cond.columns.tolist() == names.split()
    r = np.array([[float(v) for v in line.split(",")] for line in values.strip().splitlines()])
    np.testing.assert_array_equal(mf.cond.to_numpy(dtype=float), r)


_TEXT_RESPONSE_CALLS = [
    ("gcm_test", "{y} ~ x | z1", {}),
    ("rpcit", "{y} ~ x | z1", {"seed": 1}),
    ("dcor_test", "{y} ~ x", {"B": 19, "seed": 1}),
    ("dcov_test", "{y} ~ x", {"B": 19, "seed": 1}),
    ("pdcor_test", "{y} ~ x | z1", {"B": 19, "seed": 1}),
    ("hsic_test", "{y} ~ x", {"B": 19, "seed": 1}),
    ("c2g", "{y} ~ treat | age", {"seed": 1}),
    ("joint_bounds", "{y} ~ treat", {"f": "product"}),
    ("ite_variance_bounds", "{y} ~ treat", {}),
]


@pytest.mark.parametrize("func, formula, kw", _TEXT_RESPONSE_CALLS)
@pytest.mark.parametrize("response", ["ytext", "yone", "C(y)", "ycat"])
def test_text_response_is_refused_naming_the_column(func, formula, kw, response):
    """R's model.response keeps text as text and the fit fails; the door must not dummy-code the response
    (a text y used to give p = 1.0 over 40 indicator columns, a one-level text y a constant)."""
    df = DF.assign(ytext=DF.y.round(1).astype(str), yone="a", ycat=pd.Categorical(DF.site))
    column = response.removeprefix("C(").removesuffix(")")
    with pytest.raises(TypeError, match=rf"response '{re.escape(response)}' holds text or categories"):
        getattr(sc, func)(formula.format(y=response), data=df, **kw)
    # a logical response is numeric, as in R
    getattr(sc, func)(formula.format(y="treat") if func not in ("c2g", "joint_bounds", "ite_variance_bounds")
                      else formula.format(y="y"), data=df, **kw)
    assert column in df.columns
