"""R's ``uniroot`` (``R_zeroin2``, Brent's 1973 root finder as R's ``zeroin.c`` runs it), step for step,
so that functions of R that stop a root search early (metafor's Paule-Mandel estimator, with
``tol = .Machine$double.eps^0.25``) give R's numbers and not a more precise root.

Written from Brent's algorithm (Algorithms for Minimization without Derivatives, 1973, ch. 4) in the
order of operations R documents for ``uniroot`` (bisection, secant and inverse quadratic steps, the
accuracy ``2 * DBL_EPSILON * |b| + tol / 2``).
"""
from __future__ import annotations

from typing import Callable

EPS = 2.220446049250313e-16


def uniroot(f: Callable[[float], float], lower: float, upper: float, *, tol: float = EPS ** 0.25,
            max_iter: int = 1000) -> tuple[float, int, bool]:
    """The root R's ``uniroot(f, c(lower, upper), tol = tol, maxiter = max_iter)$root`` returns.

    Returns ``(root, iterations, converged)``. ``f(lower)`` and ``f(upper)`` must have opposite signs
    (the caller checks, as R does before calling ``zeroin2``).
    """
    a, b = float(lower), float(upper)
    fa, fb = f(a), f(b)
    c, fc = a, fa
    if fa == 0.0:
        return a, 0, True
    if fb == 0.0:
        return b, 0, True
    maxit = max_iter + 1
    it = 0
    while maxit > 0:
        maxit -= 1
        it += 1
        prev_step = b - a
        if abs(fc) < abs(fb):
            a, b, c = b, c, b
            fa, fb, fc = fb, fc, fb
        tol_act = 2 * EPS * abs(b) + tol / 2
        new_step = (c - b) / 2
        if abs(new_step) <= tol_act or fb == 0.0:
            return b, it - 1, True
        if abs(prev_step) >= tol_act and abs(fa) > abs(fb):
            cb = c - b
            if a == c:
                t1 = fb / fa
                p = cb * t1
                q = 1.0 - t1
            else:
                q = fa / fc
                t1 = fb / fc
                t2 = fb / fa
                p = t2 * (cb * q * (q - t1) - (b - a) * (t1 - 1.0))
                q = (q - 1.0) * (t1 - 1.0) * (t2 - 1.0)
            if p > 0:
                q = -q
            else:
                p = -p
            if p < (0.75 * cb * q - abs(tol_act * q) / 2) and p < abs(prev_step * q / 2):
                new_step = p / q
        if abs(new_step) < tol_act:
            new_step = tol_act if new_step > 0 else -tol_act
        a, fa = b, fb
        b += new_step
        fb = f(b)
        if (fb > 0 and fc > 0) or (fb < 0 and fc < 0):
            c, fc = a, fa
    return b, it, False
