"""PC-stable skeleton learning where a node may be a group of columns.

The skeleton phase of the PC algorithm in its order-independent "stable" form (Colombo & Maathuis
2014, Alg. 4.1): at level ``l`` every node keeps the neighbour set it had when the level began, an
edge ``a - b`` is removed as soon as ``a`` and ``b`` test independent given some ``l``-subset of
``adj(a) \\ {b}`` or of ``adj(b) \\ {a}``, and the algorithm stops when no node has ``l`` other
neighbours left. A node may be a group of columns (a module of genes, the pixels of an image), so
each test is a test of ``X_A`` independent of ``X_B`` given ``X_S`` with multivariate blocks: GCM's
max statistic or RP-CIT's random projections handle that directly.

Residuals of a node on a conditioning set are computed once and shared by all tests that need
them (at level ``l`` a node's residuals on a set ``S`` serve every neighbour it is tested against),
which is where most of the time of a regression-based CI test goes.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Any, Callable, Mapping

import numpy as np

from .._checks import (show_value, apply_nan_policy, as_column_groups, as_float_array, column_labels, check_choice, check_n_jobs, check_nan_policy,
                       check_positive_int, check_progress, check_probability, check_seed)
from .._checks.public import public_function
from .._progress import parallel_map, progress_bar
from .._resampling import root_seed, spawn_seeds
from ._skeleton_result import SkeletonResult

__all__ = ["pc_skeleton", "SkeletonResult"]

_TESTS = ("rpcit", "gcm", "parcor")
_ONE = np.ones((1, 1))


# ----------------------------------------------------------------------------------------------
# input
# ----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Design:
    """Validated data: values, the node names and, per node, its column indices into ``values``."""

    values: np.ndarray
    labels: list            # column labels of ``values`` (as the user named them)
    names: list             # node names
    cols: list              # one int64 array of column indices per node
    grouped: bool


def _validate(data, alpha, test, groups, max_cond, n_jobs, nan_policy) -> tuple[_Design, float, Any, int | None, int]:
    if data is None:
        raise TypeError("data must be a 2-d array or a pandas DataFrame, got None")
    nan_policy = check_nan_policy(nan_policy, ("raise", "omit"))
    is_frame = hasattr(data, "columns")
    values = as_float_array(data, "data", ndim=2, allow_nan=True)
    labels = column_labels(data)
    n, p = values.shape
    if groups is None:
        names, cols = list(labels), [np.array([j], dtype=np.int64) for j in range(p)]
        if len(set(names)) != len(names):
            raise ValueError("data has duplicated column labels; rename them or pass groups")
        if p < 2:
            raise ValueError(f"data must have at least two columns (nodes), got {p}")
    else:
        names, cols = as_column_groups(groups, labels, is_frame)
    used = np.concatenate(cols)
    if values.size:
        # only the columns of the nodes count; "omit" drops the rows with a NaN in any of them
        kept = apply_nan_policy(nan_policy, data=values[:, used]).keep
        if kept is not None:
            values = values[kept]
            n = values.shape[0]
    if n < 4:
        raise ValueError(f"data must have at least 4 rows, got {n}")
    sd = values[:, used].std(axis=0)
    if np.any(sd == 0):
        bad = labels[int(used[np.flatnonzero(sd == 0)[0]])]
        raise ValueError(f"data column {show_value(bad)} is constant; drop it before learning the skeleton")
    alpha = check_probability(alpha, "alpha", open_right=True)
    if callable(test):
        pass
    else:
        test = check_choice(test, "test", _TESTS)
    if max_cond is not None:
        max_cond = check_positive_int(max_cond, "max_cond", minimum=0)
    n_jobs = check_n_jobs(n_jobs)
    design = _Design(values, labels, names, cols, groups is not None)
    return design, alpha, test, max_cond, int(n_jobs)


# arguments pc_skeleton sets itself when it calls a built-in test (its own bar counts the edges: none per test)
_SET_BY_SKELETON = ("x", "y", "z", "resid_x", "resid_y", "seed", "progress")


def _validate_test_args(test, test_args: dict) -> None:
    """Refuse arguments the chosen test does not take, before a long run rather than in its middle."""
    if callable(test):
        return
    import inspect

    from ._gcm import gcm_test
    from ._rpcit import rpcit

    target = gcm_test if test == "gcm" else rpcit
    accepted = set(inspect.signature(target).parameters) - set(_SET_BY_SKELETON)
    if test == "parcor":
        accepted.discard("base")
    if "variance" in test_args:
        raise TypeError("pc_skeleton's built-in tests use residuals cached per (node, conditioning set) and "
                        "the standard GCM variance; 'variance' cannot be set (call gcm_test or rpcit on the "
                        "nodes for the smoother-corrected variance)")
    for key in test_args:
        if key in _SET_BY_SKELETON:
            raise TypeError(f"{key!r} is set by pc_skeleton for every test; do not pass it")
        if key not in accepted:
            raise TypeError(f"test={test!r} takes no argument {key!r}; it takes {', '.join(sorted(accepted))}")
    if "parcor" in test_args:
        check_choice(test_args["parcor"], "parcor", ("t", "fisher"))


# ----------------------------------------------------------------------------------------------
# one conditional independence test, with residuals cached per (node, conditioning set)
# ----------------------------------------------------------------------------------------------

class _Tester:
    """Runs the test of node ``i`` against node ``j`` given nodes ``S``; picklable for joblib.

    Seeds are derived from the root ``SeedSequence`` and the nodes involved (``spawn_seeds(root, 1,
    key=...)``, the resampling engine's rule), so a test's random draws (projection
    directions, bootstrap multipliers, forests) do not depend on the order or the process it runs in.
    """

    def __init__(self, design: _Design, test, test_args: dict, root: np.random.SeedSequence):
        self.design = design
        self.test = test
        self.root = root
        self.args = dict(test_args)
        # the built-in tests get residuals from the cache: the regression is pc_skeleton's business
        self.regression = None if callable(test) else self.args.pop("regression", "ols")

    def _seed(self, *key: int) -> np.random.Generator:
        return np.random.default_rng(spawn_seeds(self.root, 1, key=key)[0])

    def _block(self, nodes) -> np.ndarray | None:
        if not nodes:
            return None
        idx = np.concatenate([self.design.cols[k] for k in nodes])
        return self.design.values[:, idx]

    def residuals(self, i: int, S: tuple, cache: dict) -> np.ndarray:
        key = (i, S)
        res = cache.get(key)
        if res is None:
            from ._regress import fit_residualizer

            v = self.design.values[:, self.design.cols[i]]
            if self.regression == "ols":
                # the OLS smoother depends on the conditioning set only: one per S serves every node
                smoother = cache.get(("ols", S))
                if smoother is None:
                    smoother = cache[("ols", S)] = fit_residualizer(v, self._block(S), regression="ols").smoother
                res = smoother.residuals(v)
            else:
                # only a forest or a scikit-learn estimator draws; seeding costs more than an OLS fit
                seed = None if self.regression in ("ridge", "krr") else self._seed(0, i, *S)
                res = fit_residualizer(v, self._block(S), regression=self.regression, seed=seed).residuals
            cache[key] = res
        return res

    def pvalue(self, i: int, j: int, S: tuple, cache: dict) -> float:
        out = self._run(i, j, S, cache)
        p = getattr(out, "p_value", out)
        try:
            p = float(p)
        except (TypeError, ValueError):
            raise TypeError(f"test must return a p-value or an HTest, got {type(out).__name__}") from None
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"test returned p-value {show_value(p)} for {show_value(self.design.names[i])} vs "
                             f"{show_value(self.design.names[j])}; p-values must lie in [0, 1]")
        return p

    def _run(self, i: int, j: int, S: tuple, cache: dict):
        if callable(self.test):
            return self.test(self._frame(i), self._frame(j), self._frame_of(S), **self.args)
        from ._gcm import gcm_test
        from ._rpcit import _parcor, rpcit

        base = self.args.get("base", "gcm") if self.test == "rpcit" else self.test
        if callable(base):  # rpcit with a user's base test works on the raw data
            x, y = (self.design.values[:, self.design.cols[k]] for k in (i, j))
            return rpcit(x, y, self._block(S), seed=self._seed(1, i, j, *S), regression=self.regression,
                         progress=False, **self.args)
        rx, ry = self.residuals(i, S, cache), self.residuals(j, S, cache)
        scalar = rx.shape[1] == 1 and ry.shape[1] == 1
        # the scalar GCM draws nothing; a seed per test is cheap but not free
        seed = None if scalar and self.test == "gcm" and self.args.get("kind") in (None, "scalar") \
            else self._seed(1, i, j, *S)
        if scalar and self.test != "gcm":
            # every projection of a scalar is the scalar itself (up to sign): rpcit would pay k times
            # for one test and Bonferroni would multiply its p-value by k, so run the base test once
            if base == "parcor":
                q = sum(len(self.design.cols[k]) for k in S)
                return _parcor(rx, ry, _ONE, _ONE, q, self.args.get("parcor", "t"))[1][0]
            return gcm_test(None, None, None, resid_x=rx, resid_y=ry, progress=False)
        if self.test == "gcm":
            return gcm_test(None, None, None, resid_x=rx, resid_y=ry, seed=seed, progress=False, **self.args)
        if self.test == "parcor":
            # z only tells rpcit how many degrees of freedom the conditioning set took
            return rpcit(None, None, self._block(S), resid_x=rx, resid_y=ry, base="parcor", seed=seed,
                         progress=False, **self.args)
        return rpcit(None, None, None, resid_x=rx, resid_y=ry, seed=seed, progress=False, **self.args)

    def _frame(self, i: int):
        import pandas as pd

        idx = self.design.cols[i]
        return pd.DataFrame(self.design.values[:, idx], columns=[self.design.labels[k] for k in idx])

    def _frame_of(self, S: tuple):
        if not S:
            return None
        import pandas as pd

        idx = np.concatenate([self.design.cols[k] for k in S])
        return pd.DataFrame(self.design.values[:, idx], columns=[self.design.labels[k] for k in idx])


def _candidate_sets(adj_i: tuple, adj_j: tuple, level: int):
    """The l-subsets of adj(i) \\ {j}, then those of adj(j) \\ {i} not already listed (sorted tuples)."""
    seen = set()
    for pool in (adj_i, adj_j):
        for S in combinations(pool, level):
            if S not in seen:
                seen.add(S)
                yield S


def _test_edges(tester: _Tester, jobs: list, level: int, alpha: float, bar=None) -> list:
    """Test a batch of edges at one level; one residual cache shared by the batch.

    ``jobs`` holds ``(i, j, adj_i_without_j, adj_j_without_i)``. Returns, per edge, the tests run
    as ``(S, p)`` in order; the last one separates ``i`` and ``j`` when its p-value is >= alpha.
    """
    cache: dict = {}
    out = []
    for i, j, adj_i, adj_j in jobs:
        done = []
        for S in _candidate_sets(adj_i, adj_j, level):
            p = tester.pvalue(i, j, S, cache)
            done.append((S, p))
            if p >= alpha:
                break
        out.append(done)
        if bar is not None:
            bar.update()
    return out


def _run_level(tester, jobs, level, alpha, n_jobs, progress):
    desc = f"order {level}"
    if n_jobs == 1 or len(jobs) < 2:
        with progress_bar(progress, len(jobs), desc=desc, unit="edge") as bar:
            return _test_edges(tester, jobs, level, alpha, bar)
    from joblib import effective_n_jobs

    workers = effective_n_jobs(n_jobs)
    # contiguous batches of edges sorted by first node, so a batch reuses that node's residuals
    n_batches = min(len(jobs), 4 * workers)
    cuts = np.linspace(0, len(jobs), n_batches + 1).astype(int)
    bounds = [(a, b) for a, b in zip(cuts[:-1], cuts[1:]) if b > a]
    parts = parallel_map(_test_edges, [(tester, jobs[a:b], level, alpha) for a, b in bounds], n_jobs=n_jobs,
                         progress=progress, desc=desc, unit="edge", weights=[b - a for a, b in bounds])
    return [r for part in parts for r in part]


# ----------------------------------------------------------------------------------------------
# the algorithm
# ----------------------------------------------------------------------------------------------

@public_function(data=("data",), nan_policy=("raise", "omit"))
def pc_skeleton(data, *, alpha: float = 0.01, test: str | Callable = "rpcit", groups: Mapping | None = None,
                max_cond: int | None = None, n_jobs: int = 1, seed=None, progress: bool | None = None,
                nan_policy: str = "raise", **test_args) -> SkeletonResult:
    """Learn the skeleton of a causal graph by the PC-stable algorithm, nodes possibly groups of columns.

    Starting from the complete graph, an edge ``a - b`` is removed when a conditional independence
    test of ``a`` and ``b`` given a set ``S`` of current neighbours of ``a`` (or of ``b``) has
    p-value ``>= alpha``; ``S`` is tried with 0, 1, 2, ... nodes (the level), neighbour sets are
    frozen at the start of each level (the "stable" variant, whose output does not depend on the
    order of the nodes), and the search stops when no node has enough neighbours left or the level
    exceeds ``max_cond``.

    Parameters
    ----------
    data : pandas DataFrame or 2-d array, shape (n, p)
        Observations in rows. Column labels (or ``V1, ..., Vp`` for an array) name the nodes unless
        ``groups`` is given. No infinite values and no constant column among those used; NaN as
        ``nan_policy`` says.
    alpha : float in (0, 1)
        Significance level of every test.
    test : {"rpcit", "gcm", "parcor"} or callable
        ``"gcm"``: :func:`statcore.cit.gcm_test` (the scalar statistic for two one-column nodes, the
        max or quadratic form, per ``kind``, for groups). ``"rpcit"``: :func:`statcore.cit.rpcit`
        (random projections of grouped nodes; for two one-column nodes its base test runs once, as
        all projections of a scalar coincide). ``"parcor"``: partial correlation with a t p-value
        (``parcor="fisher"``: Fisher's z, as pcalg's ``gaussCItest`` and causal-learn's
        ``fisherz``), RP-CIT with the partial-correlation base for groups. The built-in tests use
        residuals of each node on ``S`` computed once per (node, S), and therefore Shah & Peters'
        standard variance: the smoother correction that ``gcm_test`` and ``rpcit`` apply to
        "krr" and "rf" by default would need two dense (n, n) maps per test (``variance`` is
        refused here). A callable is called as
        ``test(x, y, z, **test_args)`` with pandas DataFrames holding the columns of the two nodes
        and of ``S`` (``z`` is None when ``S`` is empty) and returns a p-value or an
        :class:`~statcore.HTest`.
    groups : mapping, optional
        Node name -> list of columns (labels of a DataFrame, integer positions of an array). Only
        the listed columns are used; nodes must not share columns.
    max_cond : int, optional
        Largest conditioning set size (in nodes) tried; None for no limit.
    n_jobs : int
        Number of joblib workers for the tests within a level (-1: all cores). Results do not
        depend on it; switch backends, e.g. to Dask, with ``joblib.parallel_config``.
    seed : None, int or numpy.random.Generator
        Source of the random draws (projection directions, bootstrap multipliers, forests). Each
        test draws from a stream derived from this seed and the nodes it involves.
    progress : bool, optional
        Show a progress bar per level (tqdm), counting tested edges as they finish (also in
        parallel). Default: when standard error is a terminal and tqdm is installed.
    nan_policy : {"raise", "omit"}
        "raise" (default): a NaN in a column of a node is an error. "omit": the rows with a NaN in
        any node's column are dropped before any test (listwise deletion, so every test sees the
        same observations). "propagate" is not offered: a regression cannot use a row with a NaN.
    **test_args
        Passed on to the test, e.g. ``regression="krr"``, ``k=100``, ``kind="max"``, ``B=999``.

    Returns
    -------
    SkeletonResult
        ``adjacency`` (0/1 DataFrame), ``sepsets`` (separating set of every removed edge),
        ``p_max`` (largest p-value seen for every pair), ``tests`` (every test run), ``plot()``.

    Examples
    --------
    A chain ``A -> B -> C``: ``A`` and ``C`` are separated by ``B``.

    >>> import numpy as np, pandas as pd
    >>> from statcore.cit import pc_skeleton
    >>> rng = np.random.default_rng(1)
    >>> a = rng.standard_normal(500); b = a + rng.standard_normal(500); c = b + rng.standard_normal(500)
    >>> res = pc_skeleton(pd.DataFrame({"A": a, "B": b, "C": c}), alpha=0.01, test="gcm")
    >>> res.edges()
    [('A', 'B'), ('B', 'C')]
    >>> res.sepset("A", "C")
    ('B',)

    References
    ----------
    Spirtes, Glymour & Scheines (2000), *Causation, Prediction, and Search*, 2nd ed., Sec. 5.4.2.
    Colombo & Maathuis (2014), Order-independent constraint-based causal structure learning, JMLR
    15, Alg. 4.1. Kalisch, Maechler, Colombo, Maathuis & Buehlmann (2012), R package pcalg
    (``skeleton(method = "stable")``).
    """
    design, alpha, test, max_cond, n_jobs = _validate(data, alpha, test, groups, max_cond, n_jobs, nan_policy)
    progress = check_progress(progress)
    _validate_test_args(test, test_args)
    tester = _Tester(design, test, test_args, root_seed(check_seed(seed)))
    m = len(design.names)
    adj = ~np.eye(m, dtype=bool)
    p_max = np.full((m, m), np.nan)
    sepsets: dict = {}
    records = []
    level = 0
    max_order = -1
    while max_cond is None or level <= max_cond:
        nbrs = [tuple(np.flatnonzero(adj[i])) for i in range(m)]
        jobs = []
        for i in range(m):
            for j in nbrs[i]:
                if j <= i:
                    continue
                ai = tuple(k for k in nbrs[i] if k != j)
                aj = tuple(k for k in nbrs[j] if k != i)
                if len(ai) >= level or len(aj) >= level:
                    jobs.append((i, j, ai, aj))
        if not jobs:
            break
        max_order = level
        results = _run_level(tester, jobs, level, alpha, n_jobs, progress)
        for (i, j, _, _), done in zip(jobs, results):
            for S, p in done:
                records.append((i, j, S, level, p))
                if not p <= p_max[i, j]:  # also replaces NaN
                    p_max[i, j] = p_max[j, i] = p
            if done and done[-1][1] >= alpha:
                adj[i, j] = adj[j, i] = False
                sepsets[(i, j)] = done[-1][0]
        level += 1
    return SkeletonResult._build(design, adj, p_max, sepsets, records, alpha, test, test_args, max_cond,
                                 max_order)


