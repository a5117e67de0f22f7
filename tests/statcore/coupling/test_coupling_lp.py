"""joint_bounds equals the exact optimal-transport LP (POT's ot.emd2 and scipy's linprog) to 1e-9."""
import numpy as np
import pytest
from scipy.optimize import linprog

from statcore.coupling import coupling_mean, joint_bounds
from statcore.coupling._functions import _resolve_f

ot = pytest.importorskip("ot")


def random_marginals(rng):
    k1, k0 = rng.integers(2, 8, 2)
    u1 = np.sort(rng.choice(np.arange(-10, 11), k1, replace=False)).astype(float)
    u0 = np.sort(rng.choice(np.arange(-10, 11), k0, replace=False)).astype(float) / 2
    c1, c0 = rng.integers(1, 9, k1), rng.integers(1, 9, k0)
    return u1, c1, u0, c0


def lookup(u1, u0, C):
    def f(a, b):
        return C[np.searchsorted(u1, a), np.searchsorted(u0, b)]
    return f


def random_cost(rng, k1, k0, kind):
    if kind == "general":
        return rng.normal(size=(k1, k0))
    # mixed differences are the entries of R >= 0: a supermodular matrix, plus row and column effects
    R = rng.exponential(size=(k1, k0)) * (rng.uniform(size=(k1, k0)) < 0.7)
    C = np.cumsum(np.cumsum(R, axis=0), axis=1) + rng.normal(size=(k1, 1)) + rng.normal(size=(1, k0))
    return C if kind == "supermodular" else -C


def matrix_class(C):
    D = np.diff(np.diff(C, axis=0), axis=1)
    pos, neg = (D > 1e-12).any(), (D < -1e-12).any()
    return {(True, True): "general", (True, False): "supermodular", (False, True): "submodular",
            (False, False): "modular"}[(bool(pos), bool(neg))]


def lp_oracle(C, a, b):
    k1, k0 = C.shape
    A = np.vstack([np.kron(np.eye(k1), np.ones(k0)), np.kron(np.ones(k1), np.eye(k0))])
    rhs = np.r_[a, b]
    lo = linprog(C.ravel(), A_eq=A, b_eq=rhs, bounds=(0, None), method="highs").fun
    hi = -linprog(-C.ravel(), A_eq=A, b_eq=rhs, bounds=(0, None), method="highs").fun
    return lo, hi


@pytest.mark.parametrize("kind", ["supermodular", "submodular", "general"])
@pytest.mark.parametrize("seed", range(8))
def test_bounds_equal_exact_lp(kind, seed):
    rng = np.random.default_rng(100 * seed + len(kind))
    u1, c1, u0, c0 = random_marginals(rng)
    C = random_cost(rng, u1.size, u0.size, kind)
    y = np.r_[np.repeat(u1, c1), np.repeat(u0, c0)]
    t = np.r_[np.ones(c1.sum()), np.zeros(c0.sum())]
    res = joint_bounds(y, t, f=lookup(u1, u0, C), B=0)
    a, b = c1 / c1.sum(), c0 / c0.sum()
    # integer masses of equal totals for POT's network simplex (no rounding in its feasibility check)
    N = float(c1.sum() * c0.sum())
    ai, bi = (c1 * c0.sum()).astype(float), (c0 * c1.sum()).astype(float)
    # POT's network simplex reports negative costs as infeasible here: shift both to non-negative
    lo_pot = C.min() + ot.emd2(ai, bi, C - C.min()) / N
    hi_pot = C.max() - ot.emd2(ai, bi, C.max() - C) / N
    lo_lp, hi_lp = lp_oracle(C, a, b)
    assert res.lower == pytest.approx(lo_pot, abs=1e-9)
    assert res.upper == pytest.approx(hi_pot, abs=1e-9)
    assert res.lower == pytest.approx(lo_lp, abs=1e-9)
    assert res.upper == pytest.approx(hi_lp, abs=1e-9)
    assert res.f_class == matrix_class(C)
    if res.f_class in ("supermodular", "submodular"):
        # the closed-form couplings themselves hit the LP
        co, ct = (res.upper, res.lower) if kind == "supermodular" else (res.lower, res.upper)
        assert res.comonotone == pytest.approx(co, abs=1e-12)
        assert res.countercomonotone == pytest.approx(ct, abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_forcing_general_gives_the_same_bounds_for_supermodular_f(seed):
    rng = np.random.default_rng(seed)
    u1, c1, u0, c0 = random_marginals(rng)
    C = random_cost(rng, u1.size, u0.size, "supermodular")
    y = np.r_[np.repeat(u1, c1), np.repeat(u0, c0)]
    t = np.r_[np.ones(c1.sum()), np.zeros(c0.sum())]
    auto = joint_bounds(y, t, f=lookup(u1, u0, C), B=0)
    lp = joint_bounds(y, t, f=lookup(u1, u0, C), f_class="general", B=0)
    assert lp.f_class == "general"
    assert (lp.lower, lp.upper) == pytest.approx((auto.lower, auto.upper), abs=1e-9)


def test_named_functions_equal_lp_on_continuous_samples():
    rng = np.random.default_rng(5)
    y1, y0 = rng.normal(1, 2, 40), rng.exponential(size=30)
    y = np.r_[y1, y0]
    t = np.r_[np.ones(40), np.zeros(30)]
    for name in ("product", "sq_diff", "abs_diff", "min", "max", "indicator(1, 0.5)"):
        auto = joint_bounds(y, t, f=name, B=0)
        A, Bm = np.meshgrid(y1, y0, indexing="ij")
        C = _resolve_f(name).fn(A, Bm).astype(float)
        a, b = np.full(40, 1 / 40), np.full(30, 1 / 30)
        assert auto.lower == pytest.approx(C.min() + ot.emd2(a, b, C - C.min()), abs=1e-9)
        assert auto.upper == pytest.approx(C.max() - ot.emd2(a, b, C.max() - C), abs=1e-9)


def test_detection_of_classes():
    y = np.r_[np.arange(5.0), np.arange(4.0) * 1.5]
    t = np.r_[np.ones(5), np.zeros(4)]
    assert joint_bounds(y, t, f=lambda a, b: np.exp(a + b), B=0).f_class == "supermodular"
    assert joint_bounds(y, t, f=lambda a, b: -np.exp(a + b), B=0).f_class == "submodular"
    assert joint_bounds(y, t, f=lambda a, b: a - 3 * b + a ** 2, B=0).f_class == "modular"
    assert joint_bounds(y, t, f=lambda a, b: np.sin(a * b), B=0).f_class == "general"
    # a modular f is identified: both couplings agree
    r = joint_bounds(y, t, f=lambda a, b: a - b, B=0)
    assert r.lower == pytest.approx(r.upper, abs=1e-12)
    assert r.lower == pytest.approx(2.0 - 2.25, abs=1e-12)
    # one support point in an arm: every coupling is the same
    r = joint_bounds(np.r_[np.ones(3), np.arange(4.0)], np.r_[np.ones(3), np.zeros(4)],
                     f=lambda a, b: np.sin(a * b), B=0)
    assert r.f_class == "modular"
    assert r.lower == pytest.approx(np.mean(np.sin(np.arange(4.0))), abs=1e-12)


def test_strata_tightened_bounds_brute_force():
    # two strata: bounds are the share-weighted averages of within-stratum couplings
    rng = np.random.default_rng(9)
    n = 60
    s = rng.integers(0, 2, n)
    t = np.r_[np.ones(30), np.zeros(30)]
    rng.shuffle(t)
    y = rng.normal(size=n) + 2 * s
    r = joint_bounds(y, t, f="product", strata=s, assumption="comonotone given X", B=0)
    want_lo = want_hi = 0.0
    for k in (0, 1):
        m = s == k
        share = m.mean()
        y1, y0 = y[m & (t == 1)], y[m & (t == 0)]
        want_hi += share * coupling_mean(y1, y0, f="product")
        want_lo += share * coupling_mean(y1, y0, f="product", coupling="countercomonotone")
    assert r.upper == pytest.approx(want_hi, abs=1e-12)
    assert r.lower == pytest.approx(want_lo, abs=1e-12)
    assert r.estimate == pytest.approx(want_hi, abs=1e-12)
    # unconditional bounds: the pooled marginals are mixtures with the stratum shares
    u = joint_bounds(y, t, f="product", strata=s, assumption="comonotone", B=0)
    w = np.zeros(n)
    for k in (0, 1):
        for a in (0, 1):
            m = (s == k) & (t == a)
            w[m] = np.mean(s == k) / m.sum()
    want = coupling_mean(y[t == 1], y[t == 0], f="product", weights1=w[t == 1], weights0=w[t == 0])
    assert u.estimate == pytest.approx(want, abs=1e-12)
    assert u.comonotone == pytest.approx(want, abs=1e-12)
    assert r.lower - 1e-12 <= r.upper
    # tightened bounds lie inside the unconditional ones
    assert u.countercomonotone - 1e-12 <= r.lower and r.upper <= u.comonotone + 1e-12
    assert "comonotone given X" in r.summary()
    assert list(r.strata_table.columns) == ["share", "comonotone", "countercomonotone", "lower", "upper"]


def test_large_support_general_f_asks_to_bin():
    rng = np.random.default_rng(1)
    y = rng.normal(size=1200)
    t = np.r_[np.ones(600), np.zeros(600)]
    with pytest.raises(ValueError, match="round or bin the outcome"):
        joint_bounds(y, t, f=lambda a, b: np.sin(a * b), B=0)


def test_subgrid_check_for_huge_supports(monkeypatch):
    import statcore.coupling._functions as fun

    monkeypatch.setattr(fun, "_MAX_CELLS", 100)
    monkeypatch.setattr(fun, "_SUBGRID", 8)
    rng = np.random.default_rng(2)
    y = rng.normal(size=60)
    t = np.r_[np.ones(30), np.zeros(30)]
    r = joint_bounds(y, t, f=lambda a, b: np.exp(a + b), B=0)
    assert r.f_class == "supermodular" and "sub-grid" in r.class_note
    assert "8 x 8 sub-grid" in r.summary()


def test_stated_class_contradicting_a_named_f_is_refused():
    y = np.array([1.0, 2.0, 3.0, 4.0, 2.0, 4.0, 6.0, 8.0])
    t = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    # was silent: lower (countercomonotone) > upper (comonotone) for a submodular f stated supermodular
    with pytest.raises(ValueError, match=r"f_class='supermodular' contradicts f = \(Y1 - Y0\)\^2, which is "
                                         "submodular"):
        joint_bounds(y, t, f="sq_diff", f_class="supermodular", B=0)
    for name in ("product", "sq_diff", "abs_diff", "min", "max", "indicator(3, 3)"):
        known = _resolve_f(name).known_class
        other = "submodular" if known == "supermodular" else "supermodular"
        with pytest.raises(ValueError, match=f"f_class='{other}' contradicts"):
            joint_bounds(y, t, f=name, f_class=other, B=0)
        auto = joint_bounds(y, t, f=name, B=0)
        for stated in (known, "general"):  # consistent statements, and the LP, give the same bounds
            r = joint_bounds(y, t, f=name, f_class=stated, B=0)
            assert (r.lower, r.upper) == pytest.approx((auto.lower, auto.upper), abs=1e-9)
            assert r.lower <= r.upper


def test_stated_class_of_a_callable_is_checked_on_the_support():
    y = np.r_[np.arange(5.0), np.arange(4.0) * 1.5]
    t = np.r_[np.ones(5), np.zeros(4)]
    r = joint_bounds(y, t, f=lambda a, b: np.exp(a + b), f_class="supermodular", B=0)
    assert r.f_class == "supermodular" and "no mixed difference of the other sign on the support" in r.class_note
    with pytest.raises(ValueError, match=r"f_class='submodular' contradicts f: its mixed difference .* is "):
        joint_bounds(y, t, f=lambda a, b: np.exp(a + b), f_class="submodular", B=0)
    with pytest.raises(ValueError, match="f_class='supermodular' contradicts f"):
        joint_bounds(y, t, f=lambda a, b: np.sin(a * b), f_class="supermodular", B=0)
    # a modular f is both
    for stated in ("supermodular", "submodular"):
        r = joint_bounds(y, t, f=lambda a, b: a - b, f_class=stated, B=0)
        assert r.lower == pytest.approx(r.upper, abs=1e-12)


def test_stated_class_wrong_off_the_checked_subgrid_gives_an_error_not_lower_above_upper(monkeypatch):
    import statcore.coupling._functions as fun

    monkeypatch.setattr(fun, "_CHECK_GRID", 2)  # only the corners of the support are checked
    u = np.arange(5.0)
    # (a - b)^2 plus 33 at (0, 0): the corners' mixed difference is 33 - 16 - 16 = 1 > 0, but the
    # comonotone value 33/5 = 6.6 is below the countercomonotone (16 + 4 + 0 + 4 + 16)/5 = 8
    f = lambda a, b: (a - b) ** 2 + 33.0 * ((a == 0) & (b == 0))  # noqa: E731
    y, t = np.r_[u, u], np.r_[np.ones(5), np.zeros(5)]
    assert coupling_mean(u, u, f=f) == pytest.approx(6.6)
    assert coupling_mean(u, u, f=f, coupling="countercomonotone") == pytest.approx(8.0)
    with pytest.raises(ValueError, match=r"lower bound 8 > upper bound 6.6: f is not supermodular .*"
                                         "f_class='supermodular'"):
        joint_bounds(y, t, f=f, f_class="supermodular", B=0)
    r = joint_bounds(y, t, f=f, B=0)  # detected on the whole support: general, the LP
    assert r.f_class == "general" and r.lower <= r.upper
