"""Knockoff statistics W_j: antisymmetric functions of (X_j, Xk_j) given y (R knockoff's ``stat.*``).

Each takes ``(X, Xk, y, rng)`` and returns W (p,). The lasso statistics swap a random half of the
columns with their knockoffs before fitting and swap the signs back afterwards, as R does (so that the
order of the columns cannot favour the originals).
"""
from __future__ import annotations

import numpy as np

STATISTICS = ("lasso_coefdiff", "lasso_lambdasmax", "ols_coefdiff", "marginal")

_NLAMBDA = 500


def _scale(A: np.ndarray) -> np.ndarray:
    """R's ``scale``: centred columns divided by their standard deviation (n - 1)."""
    c = A - A.mean(axis=0)
    sd = np.sqrt(np.sum(c ** 2, axis=0) / (A.shape[0] - 1))
    return c / np.where(sd > 0, sd, 1.0)


def _lambda_grid(Xs: np.ndarray, y: np.ndarray) -> np.ndarray:
    """R knockoff's grid: 500 values from lambda_max = max|X'y| / n down towards lambda_max / 2000,
    ``lambda_max * (1/2000)^(k/500)``, k = 0..499 (glmnet's penalty scale: (1/2n) RSS + lambda |b|_1)."""
    n = Xs.shape[0]
    lmax = float(np.max(np.abs(Xs.T @ y))) / n
    k = np.arange(_NLAMBDA) / _NLAMBDA
    return lmax * (1 / 2000.0) ** k


def _swapped(X: np.ndarray, Xk: np.ndarray, rng: np.random.Generator):
    swap = rng.integers(0, 2, X.shape[1]).astype(bool)
    A = np.where(swap, Xk, X)
    B = np.where(swap, X, Xk)
    return np.hstack([A, B]), np.where(swap, -1.0, 1.0)


def lasso_lambdasmax(X, Xk, y, rng):
    """R's ``stat.lasso_lambdasmax``: Z_j = n lambda at which column j first enters the lasso path on R's
    grid (0 if never), W_j = max(Z_j, Zk_j) sign(Z_j - Zk_j). The path is scikit-learn's ``lasso_path``
    (coordinate descent, tolerance 1e-7) on the standardised columns and centred y: glmnet's problem
    with ``intercept = TRUE, standardize = FALSE`` on R's scaled data; entries can differ from glmnet's
    only where a variable enters within the solvers' tolerances of a grid point."""
    from sklearn.linear_model import lasso_path

    A, sign = _swapped(X, Xk, rng)
    Xs = _scale(A)
    yc = y - y.mean()
    lam = _lambda_grid(Xs, yc)
    _, coefs, _ = lasso_path(Xs, yc, alphas=lam, tol=1e-7, max_iter=100000)
    nz = np.abs(coefs) > 0
    first = np.argmax(nz, axis=1)
    Z = np.where(nz.any(axis=1), lam[first] * Xs.shape[0], 0.0)
    p = X.shape[1]
    W = np.maximum(Z[:p], Z[p:]) * np.sign(Z[:p] - Z[p:])
    return W * sign


def lasso_coefdiff(X, Xk, y, rng):
    """R's ``stat.lasso_coefdiff`` (``stat.glmnet_coefdiff``): W_j = |b_j| - |bk_j| at the
    cross-validated lambda (``lambda.min``, 10 random folds) of the lasso of y on the standardised
    [X, Xk] with an intercept, on R's 500-value grid; scikit-learn's ``LassoCV`` (mean squared error, as
    ``cv.glmnet``'s default) in place of glmnet. The folds come from ``rng``, so they differ from R's."""
    from sklearn.linear_model import LassoCV
    from sklearn.model_selection import KFold

    A, sign = _swapped(X, Xk, rng)
    Xs = _scale(A)
    yc = y - y.mean()
    lam = _lambda_grid(Xs, yc)
    folds = KFold(n_splits=min(10, X.shape[0]), shuffle=True, random_state=int(rng.integers(2 ** 31 - 1)))
    fit = LassoCV(alphas=lam, cv=folds, fit_intercept=True, tol=1e-6, max_iter=100000).fit(Xs, y)
    b = fit.coef_
    p = X.shape[1]
    return (np.abs(b[:p]) - np.abs(b[p:])) * sign


def ols_coefdiff(X, Xk, y, rng):
    """W_j = |b_j| - |bk_j| of the least-squares fit of y on [X, Xk] without an intercept (Barber &
    Candes 2015's OLS statistic; R knockoff 0.3.6 has no ``stat.ols_coefdiff``: it is ``lm.fit``'s
    coefficients). Needs n >= 2p."""
    n, p = X.shape
    if n < 2 * p:
        raise ValueError(f"statistic='ols_coefdiff' needs n >= 2p (n = {n}, p = {p}): use a lasso statistic")
    A = np.hstack([X, Xk])
    from scipy import linalg

    b = linalg.lstsq(A, y, lapack_driver="gelsy", check_finite=False)[0]
    return np.abs(b[:p]) - np.abs(b[p:])


def marginal(X, Xk, y, rng):
    """W_j = |cor(X_j, y)| - |cor(Xk_j, y)|: the marginal correlation difference."""
    A = np.hstack([X, Xk])
    Ac = A - A.mean(axis=0)
    yc = y - y.mean()
    norms = np.sqrt(np.sum(Ac ** 2, axis=0)) * np.sqrt(np.sum(yc ** 2))
    r = np.abs(Ac.T @ yc) / np.where(norms > 0, norms, np.inf)
    p = X.shape[1]
    return r[:p] - r[p:]


FUNCTIONS = {"lasso_coefdiff": lasso_coefdiff, "lasso_lambdasmax": lasso_lambdasmax,
             "ols_coefdiff": ols_coefdiff, "marginal": marginal}
