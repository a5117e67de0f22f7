"""Residuals of several outputs on a conditioning set, regressed all at once.

Every conditional-independence test in :mod:`statcore.cit` starts from the residuals of X on Z and
of Y on Z. Here one regression serves all columns of its response (multi-output): OLS, ridge and
kernel ridge compute one spectral decomposition of Z for X and Y together and tune one penalty per
response, a random forest is grown once with all outputs. OLS, ridge and kernel ridge with fixed
tuning are linear smoothers: the residual of ``v @ w`` equals the residual of ``v`` times ``w``,
which is what lets RP-CIT test many random projections for the price of one regression
(:class:`SpectralSmoother`).

Cautions measured while building this (benchmarks/bench_cit.py, n = 2000, dims 20/20/5, nonlinear
bounded effects of Z; RP-CIT with k = 100, size at alpha = 0.05):

- A plain random forest is too biased for the GCM, whose level needs sqrt(n) times the product of
  the two regression errors to be small. The out-of-bag forest ("rf_oob") rejected 25% (Bonferroni),
  33.5% (Cauchy) and 24% (max bootstrap) of 200 null data sets.
- Growing the forest on the residuals of a linear ridge fit and applying its out-of-bag weights twice
  (twicing) cut that to 9.5%, 11% and 11%. Splitting the RP-CIT statistic into its parts with the
  known means showed two causes of the rest: the product of the two regressions' biases (about 0.1
  of the mean squared statistic) and the correlation between neighbouring residual products that
  two local smoothers create (about 6% of the variance), which the GCM's variance ignores.
- A kernel ridge regression (GCV-tuned, as "krr") first removes the smooth part of the means; the
  forest grown on its residuals, its out-of-bag weights applied twice, and the GCM statistic divided
  by the smoother's variance factor (``variance="smoother"`` in :func:`statcore.cit.gcm_test`):
  7.5%, 9.5%, 8.25% of 400 data sets (Bonferroni, Cauchy, max bootstrap). Linear ridge first with
  the factor: 8%, 9% of 100.
- What the factor could not see there: the out-of-bag forest's partition is chosen on the same
  noise its leaves then average, which added a few per cent to the variance of the noise part
  beyond a fixed smoother's (measured with the known noise, 16 data sets: 1.06 against kernel
  ridge's 0.97). "rf" (:class:`ForestSmoother`) therefore uses honest weights: each tree's
  partition from its bootstrap rows, its leaf means from its out-of-bag rows, so the weight on an
  observation comes only from trees that never saw it (``_honest_forest_weights``). Kernel ridge
  first, honest weights twice, the variance factor: 5.3%, 5.3%, 5.0% of 1000 data sets (MC standard
  error 0.7%; five streams of 200 between 2.5% and 8%), and 5.1% for the GCM of a single
  projection; on the 400 data sets of the out-of-bag runs above 6.0%, 6.25%, 5.5% against their
  7.5%, 9.5%, 8.25%. Honest weights applied once: 4.5%, 5%, 4%
  of the first 200 (twice: 4.5%, 4.5%, 3.5%). Kernel ridge alone with the factor: 4.5%, 5%, 4.5%
  of 200.
- Tried on the same design and not better (10-60 replicates): local-linear correction with the
  out-of-bag weights (Friedberg, Tibshirani, Athey & Wager 2020), once (15-25%) or twice; leaves of
  10, 20, 50 (more bias) or 2, 3 (more noise); 300 trees; a third twicing pass (worse at n = 500).
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._checks import InputWrapper, as_float_array, as_matrix, check_choice, check_same_n, check_seed

__all__ = ["residualize", "fit_residualizer", "fit_residualizers", "RegressionFit", "SpectralSmoother",
           "ForestSmoother", "REGRESSIONS"]

#: Regression names accepted by ``residualize`` (besides a scikit-learn regressor instance).
REGRESSIONS = ("ols", "ridge", "krr", "rf", "rf_oob")

#: Residual degrees of freedom every linear smoother must leave (n minus the trace of its hat matrix,
#: intercept included). With one, all residual vectors lie on the same line: the residuals of x and
#: of y are proportional, their products are a multiple of e^2 for a vector e fixed by z, and the GCM
#: p-value depends on z alone (n = 5, p = 3: every x, y gave p = 0.002191). Two is the least that
#: lets the data decide; OLS therefore needs n >= p + 3, and the GCV search of ridge and kernel ridge
#: is confined to penalties with effective degrees of freedom at most n - 2.
MIN_RESIDUAL_DF = 2

#: Smallest n per named regression besides "ols" (which needs p + 3). "ridge", "krr": the intercept,
#: at least one effective degree of freedom for z and the MIN_RESIDUAL_DF residual ones. "rf": leaves
#: (and "rf_oob") hold at least 5 observations, so a tree splits only if its bootstrap sample holds 10 distinct
#: observations; a bootstrap sample holds about 0.632 n of them, at n = 20 at least 10 in 99.3% of
#: draws (16: 75%). Below that most trees are a single leaf, the out-of-bag fit is a constant and the
#: test would ignore z.
MIN_N = {"ridge": 2 + MIN_RESIDUAL_DF, "krr": 2 + MIN_RESIDUAL_DF, "rf": 20, "rf_oob": 20}


# ----------------------------------------------------------------------------------------------
# linear smoothers: residual(u) = u_c - U diag(f) U' u_c with u_c the column-centred u
# ----------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class SpectralSmoother:
    """A linear smoother with an unpenalised intercept, in spectral form.

    The fitted values of a response ``u`` are ``mean(u) + U diag(shrink) U' (u - mean(u))`` with
    ``U`` (n, m) orthonormal and orthogonal to the constant vector: OLS (``shrink`` = 1 on the
    column space of the centred Z), ridge (``s^2 / (s^2 + lambda)`` on the singular vectors) and
    kernel ridge (``l / (l + mu)`` on the eigenvectors of the centred kernel matrix).
    ``residuals(u)`` is linear in ``u``: ``residuals(u @ w) == residuals(u) @ w``.
    """

    basis: np.ndarray
    shrink: np.ndarray
    method: str
    penalty: float = 0.0

    @property
    def df(self) -> float:
        """Effective degrees of freedom, the trace of the hat matrix (intercept included)."""
        return 1.0 + float(self.shrink.sum())

    def residuals(self, u: np.ndarray) -> np.ndarray:
        """Residuals of the columns of ``u`` (n, d) under this smoother (a new array)."""
        u = np.asarray(u, dtype=np.float64)
        r = u - u.mean(axis=0)
        if self.basis.shape[1]:
            coef = self.basis.T @ r
            coef *= self.shrink[:, None] if r.ndim == 2 else self.shrink
            r -= self.basis @ coef
        return r

    def matrix(self, n: int | None = None) -> np.ndarray:
        """The (n, n) residual map ``I - 11'/n - U diag(shrink) U'`` as a dense, symmetric array."""
        n = self.basis.shape[0] if n is None else n
        a = np.full((n, n), -1.0 / n)
        a[np.diag_indices(n)] += 1.0
        if self.basis.shape[1]:
            a -= (self.basis * self.shrink) @ self.basis.T
        return a


def _centred_svd(z: np.ndarray, scale: bool) -> tuple[np.ndarray, np.ndarray]:
    zc = z - z.mean(axis=0)
    if scale:
        zc /= zc.std(axis=0)
    u, s, _ = np.linalg.svd(zc, full_matrices=False)
    keep = s > s[0] * max(zc.shape) * np.finfo(float).eps if s.size else np.zeros(0, bool)
    return u[:, keep], s[keep]


def _gcv_penalty(eig: np.ndarray, coef2: np.ndarray, rss0: float, n: int, lo: float, hi: float) -> float:
    """The penalty minimising GCV(pen) = n RSS(pen) / (n - df(pen))^2 over [lo, hi] (log scale).

    ``eig`` are the squared singular values (or kernel eigenvalues), ``coef2`` the summed squared
    coordinates of the (column-normalised) centred responses on the matching eigenvectors and
    ``rss0`` their total sum of squares, so RSS(pen) = rss0 - sum (2 f - f^2) coef2, f = eig/(eig+pen).
    """
    from scipy.optimize import minimize_scalar

    def gcv(logpen: float) -> float:
        f = eig / (eig + np.exp(logpen))
        rss = rss0 - float(((2.0 - f) * f) @ coef2)
        dof = 1.0 + f.sum()
        # keep at least MIN_RESIDUAL_DF residual degrees of freedom, as OLS must (see _ols_basis):
        # unconstrained, GCV can pick a near-interpolating fit whose residuals vanish
        return n * max(rss, 0.0) / (n - dof) ** 2 if dof <= n - MIN_RESIDUAL_DF else np.inf

    grid = np.linspace(np.log(lo), np.log(hi), 61)
    vals = np.array([gcv(g) for g in grid])
    i = int(np.argmin(vals))
    # refine between the finite neighbours (penalties below the df cap have GCV = inf)
    lo_i = i - 1 if i > 0 and np.isfinite(vals[i - 1]) else i
    hi_i = i + 1 if i + 1 < grid.size and np.isfinite(vals[i + 1]) else i
    a, b = grid[lo_i], grid[hi_i]
    if b > a:
        res = minimize_scalar(gcv, bounds=(a, b), method="bounded", options={"xatol": 1e-4})
        if res.fun <= vals[i]:
            return float(np.exp(res.x))
    return float(np.exp(grid[i]))


def _column_weights(v: np.ndarray) -> np.ndarray:
    # GCV shared by all outputs: each column counts equally, whatever its scale
    ss = ((v - v.mean(axis=0)) ** 2).sum(axis=0)
    return 1.0 / np.where(ss > 0, ss, 1.0)


@dataclass(frozen=True, eq=False)
class _SpectralBasis:
    """What a linear smoother needs from z alone: orthonormal vectors and their eigenvalues.

    Computed once per z and shared by every response regressed on it (x and y alike); only the
    penalty is tuned per response.
    """

    vectors: np.ndarray
    eig: np.ndarray
    method: str

    def smoother(self, v: np.ndarray) -> SpectralSmoother:
        if self.method == "ols":
            return SpectralSmoother(self.vectors, np.ones(self.eig.size), "ols")
        w = _column_weights(v)
        vc = v - v.mean(axis=0)
        coef2 = (self.vectors.T @ vc) ** 2 @ w
        rss0 = float(((vc ** 2).sum(axis=0)) @ w)
        top = self.eig[0]
        hi = top * (1e3 if self.method == "ridge" else 10.0)
        pen = _gcv_penalty(self.eig, coef2, rss0, v.shape[0], top * 1e-8, hi)
        return SpectralSmoother(self.vectors, self.eig / (self.eig + pen), self.method, pen)


def _ols_basis(z):
    n, p = z.shape
    if n < p + 1 + MIN_RESIDUAL_DF:
        raise ValueError(f"regression='ols' on z with {p} column(s) needs at least {p + 1 + MIN_RESIDUAL_DF} "
                         f"observations (n - p - 1 >= {MIN_RESIDUAL_DF} residual degrees of freedom), got "
                         f"n = {n}; use regression='ridge' or fewer conditioning columns")
    u, s = _centred_svd(z, scale=False)
    return _SpectralBasis(u, s ** 2, "ols")


def _ridge_basis(z):
    u, s = _centred_svd(z, scale=True)
    return _SpectralBasis(u, s ** 2, "ridge")


def _gaussian_kernel(z: np.ndarray) -> np.ndarray:
    zs = (z - z.mean(axis=0)) / z.std(axis=0)
    sq = (zs ** 2).sum(axis=1)
    d2 = sq[:, None] + sq[None, :] - 2.0 * (zs @ zs.T)
    np.maximum(d2, 0.0, out=d2)
    # median heuristic on (at most 1000 evenly spaced) points
    n = z.shape[0]
    idx = np.linspace(0, n - 1, min(n, 1000)).astype(np.intp)
    sub = d2[np.ix_(idx, idx)][np.triu_indices(idx.size, 1)]
    med = float(np.median(sub[sub > 0])) if np.any(sub > 0) else 1.0
    d2 *= -1.0 / med
    return np.exp(d2, out=d2)


def _krr_basis(z):
    n = z.shape[0]
    k = _gaussian_kernel(z)
    k -= k.mean(axis=0)
    k -= k.mean(axis=1)[:, None]
    lam, q = np.linalg.eigh(k)
    keep = lam > lam[-1] * n * np.finfo(float).eps
    lam, q = lam[keep][::-1], q[:, keep][:, ::-1]
    return _SpectralBasis(np.ascontiguousarray(q), np.ascontiguousarray(lam), "krr")


_BASES = {"ols": _ols_basis, "ridge": _ridge_basis, "krr": _krr_basis}


@dataclass(frozen=True, eq=False)
class ForestSmoother:
    """A fitted random forest as a linear smoother: residuals ``(I - W)^passes L(u)``.

    ``W`` (n, n, sparse) holds the forest's kernel weights, rows summing to one, ``W[i, i] = 0``:
    for "rf" the honest weights (each tree's partition from its bootstrap rows, its leaf means from
    its out-of-bag rows, so ``W[i, j]`` comes from trees that never saw j; ``_honest_forest_weights``),
    for "rf_oob" the out-of-bag weights (``W[i, j]`` the average, over the trees for which i is out
    of bag, of j's share of the leaf that holds i, so ``W @ v`` is exactly the forest's out-of-bag
    prediction of ``v``; Breiman 2001, Lin & Jeon 2006, Athey, Tibshirani & Wager 2019). ``L`` is
    the residual map of the smooth stage (kernel ridge on z, a :class:`SpectralSmoother`) the forest
    was grown after, or the identity. With the partition fixed, every step is linear in the
    response: ``residuals(u @ w) == residuals(u) @ w``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(200, 2))
    >>> v = np.column_stack([np.sin(2 * z[:, 0]), z[:, 0] * z[:, 1], z[:, 1]])
    >>> v += 0.3 * rng.normal(size=(200, 3))
    >>> fit = fit_residualizer(v, z, "rf", seed=1)
    >>> sm = fit.smoother
    >>> type(sm).__name__, sm.passes, sm.weights.shape
    ('ForestSmoother', 2, (200, 200))
    >>> w = rng.normal(size=3)
    >>> bool(np.allclose(sm.residuals(v @ w), fit.residuals @ w))  # one forest serves every projection
    True
    """

    weights: Any
    linear: SpectralSmoother | None
    passes: int
    method: str

    def residuals(self, u: np.ndarray) -> np.ndarray:
        """Residuals of the columns of ``u`` (n,) or (n, d) under this smoother (a new array)."""
        r = np.asarray(u, dtype=np.float64)
        r = self.linear.residuals(r) if self.linear is not None else r.copy()
        for _ in range(self.passes):
            r -= self.weights @ r
        return r

    def matrix(self, n: int | None = None) -> np.ndarray:
        """The (n, n) residual map ``(I - W)^passes L`` as a dense array (one dense product per pass and for ``L``).

        ``W`` is made dense: at n = 2000 a BLAS product with it is faster than scipy's sparse one.
        """
        n = self.weights.shape[0]
        a = self.linear.matrix(n) if self.linear is not None else np.eye(n)
        w = self.weights.toarray()
        for _ in range(self.passes):
            a -= w @ a
        return a


def _leaf_product(member: tuple, share: tuple, n: int, n_leaves: int):
    """``M S'`` (n, n) CSR from the (rows, cols, values) lists of two sparse (n, n_leaves) matrices:
    M marks the leaf (of every tree, columns offset tree by tree) each row is predicted from, S the
    weight each row has in its leaf's mean."""
    import scipy.sparse as sparse

    m, s = (sparse.csr_matrix((np.concatenate(v), (np.concatenate(r), np.concatenate(c))), shape=(n, n_leaves))
            for r, c, v in (member, share))
    return (m @ s.T).tocsr()


def _forest_weights(forest, z: np.ndarray):
    """The out-of-bag kernel weights of a fitted scikit-learn forest, an (n, n) CSR matrix.

    One sparse product over all trees' leaves: M (n, leaves) marks the leaf each out-of-bag row
    falls in, C (n, leaves) each in-bag row's bootstrap count over its leaf's total. The rare row
    that is in-bag for every tree gets the in-bag weights of all trees (its in-bag fit).
    """
    import scipy.sparse as sparse

    n = z.shape[0]
    leaves = forest.apply(z)
    m_rows, m_cols, c_rows, c_cols, c_vals = [], [], [], [], []
    n_oob = np.zeros(n)
    offsets = []
    offset = 0
    for t, sample in enumerate(forest.estimators_samples_):
        cnt = np.bincount(sample, minlength=n).astype(np.float64)
        leaf = leaves[:, t]
        total = np.bincount(leaf, weights=cnt)
        inbag = np.flatnonzero(cnt)
        oob = np.flatnonzero(cnt == 0)
        n_oob[oob] += 1
        m_rows.append(oob)
        m_cols.append(leaf[oob] + offset)
        c_rows.append(inbag)
        c_cols.append(leaf[inbag] + offset)
        c_vals.append(cnt[inbag] / total[leaf[inbag]])
        offsets.append(offset)
        offset += total.size
    never = np.flatnonzero(n_oob == 0)
    if never.size:
        for t in range(leaves.shape[1]):
            m_rows.append(never)
            m_cols.append(leaves[never, t] + offsets[t])
        n_oob[never] = leaves.shape[1]
    m_vals = [np.ones(r.size) for r in m_rows]
    w = sparse.diags(1.0 / n_oob) @ _leaf_product((m_rows, m_cols, m_vals), (c_rows, c_cols, c_vals), n, offset)
    return w.tocsr()


def _honest_forest_weights(forest, z: np.ndarray):
    """The honest kernel weights of a fitted scikit-learn forest, an (n, n) CSR matrix.

    Each tree's partition comes from its bootstrap (in-bag) rows, its leaf values from its
    out-of-bag rows: ``W[i, j]`` is the average, over the trees whose leaf holding i also holds an
    out-of-bag row other than i, of ``1 / m`` for every such row j (m of them). So ``W[i, j]`` is
    built only from trees that never saw j, and does not depend on j's noise: the forest's
    partition is chosen on other rows than the ones it averages (the honesty of Wager & Athey
    2018, with the bootstrap's own split). Rows sum to one and ``W[i, i] = 0``. A row no tree
    gives a value (possible only with very few trees or rows) gets the mean of the other rows.

    One sparse product over all trees' leaves, as in ``_forest_weights``: M (n, leaves) marks the
    leaf each row falls in, scaled by ``m / (m - 1)`` where the row is itself out of bag, S (n,
    leaves) each out-of-bag row's ``1 / m``; ``M S'`` with its diagonal removed is the sum above.
    """
    import scipy.sparse as sparse

    n = z.shape[0]
    leaves = forest.apply(z)
    m_rows, m_cols, m_vals, s_rows, s_cols, s_vals = [], [], [], [], [], []
    n_valid = np.zeros(n)
    offset = 0
    for t, sample in enumerate(forest.estimators_samples_):
        oob = np.bincount(sample, minlength=n) == 0
        leaf = leaves[:, t]
        m = np.bincount(leaf, weights=oob.astype(np.float64), minlength=leaf.max() + 1)
        mi = m[leaf]
        others = mi - oob  # out-of-bag rows in i's leaf other than i
        rows = np.flatnonzero(others > 0)
        n_valid[rows] += 1
        m_rows.append(rows)
        m_cols.append(leaf[rows] + offset)
        m_vals.append(np.where(oob, mi / np.maximum(others, 1), 1.0)[rows])
        j = np.flatnonzero(oob)
        s_rows.append(j)
        s_cols.append(leaf[j] + offset)
        s_vals.append(1.0 / m[leaf[j]])
        offset += m.size
    w = _leaf_product((m_rows, m_cols, m_vals), (s_rows, s_cols, s_vals), n, offset)
    w = w - sparse.diags(w.diagonal())
    none = np.flatnonzero(n_valid == 0)
    if none.size:  # the mean of the other rows
        fill = sparse.csr_matrix((np.ones(none.size * n), (np.repeat(none, n), np.tile(np.arange(n), none.size))),
                                 shape=(n, n))
        fill = fill - sparse.csr_matrix((np.ones(none.size), (none, none)), shape=(n, n))
        w = w + fill / (n - 1)
        n_valid[none] = 1.0
    w = (sparse.diags(1.0 / n_valid) @ w).tocsr()
    w.eliminate_zeros()
    return w


#: The random forests behind "rf" (kernel ridge first, then the forest's honest weights twice) and
#: "rf_oob" (the plain out-of-bag forest, statcore's "rf" before the calibration study):
#: (smooth stage, passes, weights).
_FOREST_VARIANTS = {"rf": ("krr", 2, "honest"), "rf_oob": (None, 1, "oob")}
_WEIGHTS = {"honest": _honest_forest_weights, "oob": _forest_weights}


def _random_forest(v, z, rng, n_jobs, variant="rf", basis=None):
    """A multi-output random forest (100 trees, leaves of at least 5) as a fixed linear smoother.

    The forest is grown once for all columns of ``v`` (standardised, so each output counts equally
    in the splits). "rf" grows it on the residuals of a GCV-tuned kernel ridge regression on z (the
    regression-enhanced forest of Zhang, Nettleton & Zhu 2019, with a kernel smoother in place of
    their penalised linear model; ``basis``, the kernel's eigendecomposition, is shared by x and y)
    and applies its honest weights twice ("twicing", Tukey 1977; L2 boosting of a fixed smoother,
    Buhlmann & Yu 2003): the kernel ridge takes the smooth part of the means, the forest what is
    left (interactions, steps); "rf_oob" is the plain out-of-bag forest.
    """
    from sklearn.ensemble import RandomForestRegressor

    stage, passes, weights = _FOREST_VARIANTS[variant]
    if stage is not None and basis is None:
        basis = _BASES[stage](z)
    linear = basis.smoother(v) if stage is not None else None
    target = linear.residuals(v) if linear is not None else v
    mu, sd = target.mean(axis=0), target.std(axis=0)
    # a column the linear stage fits exactly leaves zeros: nothing for the splits, no zero division
    sd = np.where(sd > 1e-12 * np.maximum(np.abs(v).max(axis=0), 1e-300), sd, np.inf)
    ts = (target - mu) / sd
    forest = RandomForestRegressor(n_estimators=100, min_samples_leaf=5, max_features=1.0,
                                   n_jobs=n_jobs, random_state=int(rng.integers(2 ** 31 - 1)))
    forest.fit(z, ts[:, 0] if ts.shape[1] == 1 else ts)
    smoother = ForestSmoother(_WEIGHTS[weights](forest, z), linear, passes, variant)
    return RegressionFit(smoother.residuals(v), smoother, variant)


def _sklearn_residuals(v, z, estimator):
    from sklearn.base import clone

    est = clone(estimator)
    try:
        est.fit(z, v[:, 0] if v.shape[1] == 1 else v)
        pred = np.asarray(est.predict(z), dtype=np.float64).reshape(v.shape)
    except ValueError:
        if v.shape[1] == 1:
            raise
        # a single-output regressor: one fit per column
        pred = np.column_stack([np.asarray(clone(estimator).fit(z, v[:, j]).predict(z), dtype=np.float64)
                                for j in range(v.shape[1])])
    return v - pred


@dataclass(frozen=True, eq=False)
class RegressionFit:
    """The residuals of ``v`` on ``z`` and, for linear smoothers, the smoother that made them.

    Attributes
    ----------
    residuals : ndarray (n, d)
    smoother : SpectralSmoother, ForestSmoother or None
        Set for "ols", "ridge", "krr" (and z absent) and for the forests "rf", "rf_oob" (the fitted
        partition and its out-of-bag weights): apply it to any other response on the same ``z`` with
        the same tuning, ``smoother.residuals(u)``. None for a scikit-learn regressor instance.
    regression : str
        The regression's name (the class name for a scikit-learn instance).
    """

    residuals: np.ndarray
    smoother: SpectralSmoother | ForestSmoother | None
    regression: str


def _resolve_regression(regression: Any) -> str | Any:
    if isinstance(regression, str):
        return check_choice(regression, "regression", REGRESSIONS)
    if hasattr(regression, "fit") and hasattr(regression, "predict"):
        return regression
    raise TypeError(f"regression must be one of {', '.join(map(repr, REGRESSIONS))} or a scikit-learn "
                    f"regressor (an object with fit and predict), got {type(regression).__name__}")


def regression_name(regression: Any) -> str:
    return regression if isinstance(regression, str) else type(regression).__name__


def fit_residualizers(vs: list, z: Any, regression: Any = "ols", seed: Any = None, n_jobs: int = 1,
                      names: tuple[str, ...] | None = None) -> list[RegressionFit]:
    """Regress several responses on the same ``z``; linear smoothers share one decomposition of z.

    Each response (an (n, d) array) is regressed once for all its columns and gets its own
    penalty (ridge, kernel ridge); the SVD or kernel eigendecomposition of ``z`` is computed once.

    Parameters
    ----------
    vs : list of array_like (n,) or (n, d)
        The responses.
    z, regression, seed, n_jobs
        As in :func:`residualize` (minimum sample sizes included).
    names : tuple of str, optional
        Labels of the responses in error messages (default "v").

    Returns
    -------
    list of RegressionFit
        One per response, in order.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(80, 2))
    >>> x = np.sin(z) + 0.3 * rng.normal(size=(80, 2))
    >>> y = z[:, :1] ** 2 + 0.3 * rng.normal(size=(80, 1))
    >>> fx, fy = fit_residualizers([x, y], z, "krr", names=("x", "y"))
    >>> fx.residuals.shape, fy.residuals.shape
    ((80, 2), (80, 1))
    >>> fx.smoother.basis is fy.smoother.basis  # one kernel eigendecomposition for both
    True

    References
    ----------
    Golub, Heath & Wahba (1979), Generalized cross-validation as a method for choosing a good ridge
    parameter, Technometrics 21(2). Hastie, Tibshirani & Friedman (2009), The Elements of
    Statistical Learning, 2nd ed., Springer, Sections 5.4.1 (linear smoothers) and 7.10.
    """
    names = names or ("v",) * len(vs)
    arrays = [as_matrix(v, nm) for v, nm in zip(vs, names)]
    z = as_matrix(z, "z", allow_none=True)
    if z is not None and z.shape[1] == 0:
        z = None
    check_same_n(z=z, **{f"{nm}" if names.count(nm) == 1 else f"{nm}[{i}]": v
                         for i, (nm, v) in enumerate(zip(names, arrays))})
    reg = _resolve_regression(regression)
    rng = check_seed(seed)
    name = regression_name(reg)
    n = arrays[0].shape[0]
    if n < 3:
        raise ValueError(f"at least 3 observations are needed, got n = {n}")
    if isinstance(reg, str) and reg in MIN_N and z is not None and n < MIN_N[reg]:
        raise ValueError(f"regression={reg!r} needs at least {MIN_N[reg]} observations, got n = {n}"
                         + ("; its trees (leaves of at least 5, grown on bootstrap samples) cannot split "
                            "below that and would ignore z" if reg in _FOREST_VARIANTS else
                            f" (the intercept, z and {MIN_RESIDUAL_DF} residual degrees of freedom)"))
    if z is None:
        empty = SpectralSmoother(np.zeros((n, 0)), np.zeros(0), "mean")
        return [RegressionFit(empty.residuals(v), empty, name) for v in arrays]
    if isinstance(reg, str) and reg in _BASES:
        basis = _BASES[reg](z)
        fits = []
        for v in arrays:
            sm = basis.smoother(v)
            fits.append(RegressionFit(sm.residuals(v), sm, name))
        return fits
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral):
        raise TypeError(f"n_jobs must be an integer, got {n_jobs!r}")
    if reg in _FOREST_VARIANTS:
        # the linear stage's decomposition of z is shared by all responses, as for the linear smoothers
        stage = _FOREST_VARIANTS[reg][0]
        basis = _BASES[stage](z) if stage is not None else None
        return [_random_forest(v, z, rng, int(n_jobs), reg, basis) for v in arrays]
    return [RegressionFit(_sklearn_residuals(v, z, reg), None, name) for v in arrays]


def fit_residualizer(v: Any, z: Any, regression: Any = "ols", seed: Any = None, n_jobs: int = 1) -> RegressionFit:
    """Regress all columns of ``v`` on ``z`` at once; see :func:`residualize`.

    Parameters
    ----------
    v, z, regression, seed, n_jobs
        As in :func:`residualize`.

    Returns
    -------
    RegressionFit
        The residuals (an (n, d) ndarray whatever the input) and, for "ols", "ridge", "krr",
        "rf" and "rf_oob", the fitted smoother, which gives the residuals of any other response on
        the same ``z`` with the same tuning (for the forests: the same partition and weights).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(60, 3))
    >>> v = z @ rng.normal(size=(3, 4)) + rng.normal(size=(60, 4))
    >>> fit = fit_residualizer(v, z, "ridge")
    >>> w = rng.normal(size=4)
    >>> bool(np.allclose(fit.smoother.residuals(v @ w), fit.residuals @ w))  # linear in v
    True
    >>> fit.regression, round(fit.smoother.df, 2) <= 4
    ('ridge', True)

    References
    ----------
    Golub, Heath & Wahba (1979), Technometrics 21(2). Breiman (2001), Random forests, Machine
    Learning 45. Zhang, Nettleton & Zhu (2019), Regression-enhanced random forests, arXiv:1904.10416.
    Buhlmann & Yu (2003), Boosting with the L2 loss, JASA 98(462). Wager & Athey (2018),
    Estimation and inference of heterogeneous treatment effects using random forests, JASA 113(523).
    """
    return fit_residualizers([v], z, regression, seed, n_jobs)[0]


def residualize(v: Any, z: Any, regression: Any = "ols", seed: Any = None, n_jobs: int = 1) -> Any:
    """Residuals of every column of ``v`` regressed on ``z``, one multi-output fit.

    Parameters
    ----------
    v : array_like (n,) or (n, d)
        Responses; all columns are regressed at once.
    z : array_like (n, p), or None
        Conditioning variables. None or zero columns: the residuals are the centred ``v``.
    regression : str or scikit-learn regressor
        ``"ols"`` (least squares with intercept), ``"ridge"`` (z standardised, one penalty shared by
        all outputs, chosen by generalised cross-validation with every output weighted equally),
        ``"krr"`` (Gaussian-kernel ridge, bandwidth by the median heuristic, penalty by GCV; one
        eigendecomposition of the centred kernel matrix serves all outputs and penalties), ``"rf"``
        (a random forest made a fixed linear smoother: kernel ridge on z as for ``"krr"``, then a
        100-tree multi-output forest, leaves of at least 5, grown on the kernel ridge residuals,
        and its honest kernel weights ``W`` (partition from each tree's bootstrap rows, leaf means
        from its out-of-bag rows) applied twice, residuals
        ``(I - W)^2 (v - kernel ridge fit)``; it costs the kernel eigendecomposition, O(n^3), on
        top of the forest; see the module notes), ``"rf_oob"`` (the plain forest on ``v``, out-of-bag residuals
        ``(I - W) v``: statcore's "rf" until the calibration study, kept for comparison), or any
        scikit-learn regressor instance (cloned, fitted multi-output, in-sample residuals).
        Every named regression leaves at least two residual degrees of freedom (with one, the
        residuals of any two responses are proportional); smallest n: ``"ols"`` p + 3, ``"ridge"``
        and ``"krr"`` 4 (their GCV penalty keeps the effective degrees of freedom at most n - 2),
        ``"rf"``, ``"rf_oob"`` 20 (below that most trees cannot split). See ``MIN_RESIDUAL_DF`` and
        ``MIN_N``.
    seed : None, int or numpy.random.Generator
        For ``"rf"`` and ``"rf_oob"`` only.
    n_jobs : int
        Threads of the random forest.

    Returns
    -------
    ndarray (n, d), pandas.Series or pandas.DataFrame
        Residuals; a new array, ``v`` is not modified. A Series ``v`` gives a Series, a DataFrame a
        DataFrame, with ``v``'s index and name or columns; any other input an (n, d) ndarray.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(100, 2))
    >>> v = np.column_stack([z @ [1.0, -2.0], z[:, 0] ** 2]) + rng.normal(size=(100, 2))
    >>> r = residualize(v, z, "ols")
    >>> r.shape, bool(np.allclose(r.T @ z, 0)), bool(np.allclose(r.mean(axis=0), 0))
    ((100, 2), True, True)
    >>> import pandas as pd
    >>> s = pd.Series(v[:, 0], index=[f"id{i}" for i in range(100)], name="v0")
    >>> rs = residualize(s, z)
    >>> type(rs).__name__, rs.name, rs.index[0], bool(np.allclose(rs.to_numpy(), r[:, 0]))
    ('Series', 'v0', 'id0', True)

    References
    ----------
    Golub, Heath & Wahba (1979), Generalized cross-validation as a method for choosing a good ridge
    parameter, Technometrics 21(2). Breiman (2001), Random forests, Machine Learning 45.
    """
    wrapper = InputWrapper.of(v)
    res = fit_residualizer(v, z, regression, seed, n_jobs).residuals
    if wrapper.kind == "series":
        return wrapper.wrap(res[:, 0])
    return wrapper.wrap(res) if wrapper.kind == "frame" else res
