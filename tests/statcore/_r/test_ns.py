"""Tests for statcore._r.ns: R's ``splines::ns`` natural cubic spline basis, against a live R to 1e-12."""
import numpy as np
import pytest

from helpers import r_vector, requires_r, run_r
from statcore._r.ns import ns, r_quantile7, r_seq_length

TOL = 1e-12

# (df, intercept, x kind, Boundary.knots or None)
_CASES = [(7, False, "normal", None), (3, True, "normal", None), (5, False, "ties", None),
          (1, False, "normal", None), (2, False, "grid", None), (4, False, "normal", "inside"),
          (6, True, "grid", "inside")]


def _x(kind, rng):
    if kind == "normal":
        return rng.normal(size=83)
    if kind == "ties":
        return np.round(rng.normal(size=60), 1)
    return (np.arange(119) + 0.5) / 119 * 9.3 - 4.1       # bin midpoints, as locfdr uses


@requires_r("splines")
def test_ns_matches_r():
    rng = np.random.default_rng(20)
    code = ["library(splines)"]
    ours = []
    for i, (df, icpt, kind, bk) in enumerate(_CASES):
        x = _x(kind, rng)
        bk_arg = ""
        bks = None
        if bk == "inside":   # boundary knots inside the range: linear continuation outside
            bks = np.quantile(x, [0.1, 0.85])
            bk_arg = f", Boundary.knots = {r_vector(bks)}"
        basis, knots, used_bk = ns(x, df=df, intercept=icpt, boundary_knots=bks)
        ours.append((basis, knots))
        code.append(f"b <- ns({r_vector(x)}, df = {df}, intercept = {str(icpt).upper()}{bk_arg})\n"
                    f"cat('case{i}', sprintf('%.17g', dim(b)), sprintf('%.17g', b), '\\n')\n"
                    f"cat('knots{i}', sprintf('%.17g', attr(b, 'knots')), '\\n')")
    out = run_r("\n".join(code)).splitlines()
    for i, (basis, knots) in enumerate(ours):
        vals = np.array(out[2 * i].split()[1:], float)
        nrow, ncol = int(vals[0]), int(vals[1])
        r_basis = vals[2:].reshape(ncol, nrow).T
        assert basis.shape == (nrow, ncol), _CASES[i]
        np.testing.assert_allclose(basis, r_basis, rtol=0, atol=TOL, err_msg=str(_CASES[i]))
        r_knots = np.array(out[2 * i + 1].split()[1:], float)
        np.testing.assert_allclose(knots, r_knots, rtol=0, atol=TOL)


def test_ns_is_natural_and_spans_linear():
    """The basis spans the linear functions with the intercept, and its second derivative vanishes at the
    boundary knots (checked by finite differences on a fine grid)."""
    x = np.linspace(-2.0, 3.0, 2001)
    basis, _, _ = ns(x, df=6)
    design = np.column_stack([np.ones_like(x), basis])
    coef, *_ = np.linalg.lstsq(design, 1.5 - 0.7 * x, rcond=None)
    np.testing.assert_allclose(design @ coef, 1.5 - 0.7 * x, atol=1e-10)
    h = x[1] - x[0]
    second = (basis[2] - 2 * basis[1] + basis[0]) / h ** 2, (basis[-1] - 2 * basis[-2] + basis[-3]) / h ** 2
    interior = np.abs(np.diff(basis[1000:1003], 2, axis=0)).max() / h ** 2
    assert np.abs(second).max() < 0.02 and interior > 0.05


def test_r_helpers():
    np.testing.assert_array_equal(r_seq_length(0.0, 1.0, 5), [0, 0.25, 0.5, 0.75, 1])
    v = np.array([3.0, 1.0, 2.0, 10.0])
    np.testing.assert_allclose(r_quantile7(v, [0, 0.25, 0.5, 1]), [1.0, 1.75, 2.5, 10.0], rtol=0, atol=1e-15)
