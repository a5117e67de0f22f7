"""smooth.spline with GCV (R's default, used by qvalue's lfdr) against live R; numba predict path."""
import numpy as np
import pytest

from statcore._r.smoothspline import smooth_spline
from helpers import r_vector, requires_r, run_r


@requires_r
@pytest.mark.r
def test_gcv_and_df_fits_equal_live_r():
    rng = np.random.default_rng(0)
    cases = []
    for k, n in enumerate([19, 30, 60, 120, 512, 25, 300, 1000]):
        x = np.sort(rng.uniform(0, 10, n))
        y = np.sin(x) + rng.normal(0, 0.3, n)
        cases.append((x, y, [3, None, 5, None, None, 3, None, None][k]))
    xq = np.linspace(-1, 11, 57)  # inside and outside the range (R extrapolates linearly)
    code = []
    for i, (x, y, df) in enumerate(cases):
        dfa = "" if df is None else f", df = {df}"
        code.append(f"s <- smooth.spline({r_vector(x)}, {r_vector(y)}{dfa}); "
                    f"cat('{i}', sprintf('%.17g', c(s$df, s$lambda, s$spar, predict(s, {r_vector(x)})$y, "
                    f"predict(s, {r_vector(xq)})$y)), '\\n')")
    out = run_r("\n".join(code))
    seen = 0
    for line in out.strip().splitlines():
        i, *v = line.split()
        v = np.array(v, float)
        x, y, df = cases[int(i)]
        fit = smooth_spline(x, y, df=df)
        assert fit.df == pytest.approx(v[0], rel=1e-12)
        assert fit.lambda_ == pytest.approx(v[1], rel=1e-12)
        assert fit.spar == pytest.approx(v[2], abs=1e-12)
        np.testing.assert_allclose(fit.predict(x), v[3:3 + x.size], rtol=0, atol=1e-12)
        np.testing.assert_allclose(fit.predict(xq), v[3 + x.size:], rtol=0, atol=1e-12)
        seen += 1
    assert seen == len(cases)


def test_predict_kernel_equals_python_bvalue():
    from statcore._r.smoothspline import _spline_value

    rng = np.random.default_rng(1)
    x = np.sort(rng.uniform(size=200))
    fit = smooth_spline(x, np.cos(6 * x) + rng.normal(0, 0.1, 200), df=None)
    xs = np.r_[0.0, rng.uniform(size=500), 1.0]
    got = fit.predict(fit.xmin + xs * fit.xrange)
    want = [_spline_value(list(fit.knots), list(fit.coef), fit.nk, (fit.xmin + s * fit.xrange - fit.xmin) / fit.xrange)
            for s in xs]
    np.testing.assert_array_equal(got, want)
