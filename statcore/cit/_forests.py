"""Random forests as fixed linear smoothers: honest ("rf") and out-of-bag ("rf_oob") kernel weights.

A fitted forest defines kernel weights ``W`` (n, n) between observations; with the partition fixed,
the residuals ``(I - W)^passes L(u)`` are linear in the response ``u``, so one forest grown for all
columns of X serves every random projection of X, as the linear smoothers of
:mod:`statcore.cit._smoothers` do.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._result import Result
from ._smoothers import _BASES, SpectralSmoother

__all__ = ["ForestSmoother"]


@dataclass(frozen=True, eq=False, repr=False)
class ForestSmoother(Result):
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
    >>> z = rng.normal(size=(60, 2))
    >>> v = np.column_stack([np.sin(2 * z[:, 0]), z[:, 0] * z[:, 1]]) + 0.3 * rng.normal(size=(60, 2))
    >>> from statcore.cit import fit_residualizer
    >>> fit = fit_residualizer(v, z, regression="rf", seed=1)
    >>> sm = fit.smoother
    >>> type(sm).__name__, sm.passes, sm.weights.shape
    ('ForestSmoother', 2, (60, 60))
    >>> w = rng.normal(size=2)
    >>> bool(np.allclose(sm.residuals(v @ w), fit.residuals @ w))  # one forest serves every projection
    True
    """

    weights: Any
    linear: SpectralSmoother | None
    passes: int
    method: str

    # ---- the result protocol -------------------------------------------------------------------
    def _repr_parts(self):
        return [("method", self.method), ("n", self.weights.shape[0]), ("passes", self.passes),
                ("linear", None if self.linear is None else self.linear.method)]

    def summary(self) -> str:
        """A short description: the forest variant, n, the smooth stage and the number of passes."""
        stage = "none" if self.linear is None else f"{self.linear.method} (effective df = {self.linear.df:.4g})"
        return (f"Random-forest smoother ({self.method}): n = {self.weights.shape[0]}, smooth stage: {stage}, "
                f"weights applied {self.passes} time(s)\n")

    def to_frame(self):
        """One row: ``method``, ``n``, ``linear`` (the smooth stage or None), ``passes``, ``nnz``
        (the number of non-zero kernel weights)."""
        import pandas as pd

        return pd.DataFrame([{"method": self.method, "n": self.weights.shape[0],
                              "linear": None if self.linear is None else self.linear.method,
                              "passes": self.passes, "nnz": int(self.weights.nnz)}])

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
#: "rf_oob" (experimental: the plain out-of-bag forest, kept for comparison):
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
    return smoother.residuals(v), smoother, variant
