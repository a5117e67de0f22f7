"""The tests of independence built on distance covariance (Szekely, Rizzo & Bakirov 2007) and partial
distance correlation (Szekely & Rizzo 2014): R energy's dcor.test, dcov.test, dcorT.test and
pdcor.test. The statistics themselves are in ``_dcov``.

The permutation tests draw the permutations up front from ``seed`` (so the answer does not depend
  on ``n_jobs``) and run them in parallel by one of four paths:

  * "fast": univariate samples with index 1 use the O(n log n) path for every permutation;
  * "recompute" (dcor/dcov tests, index 1, the smaller of p and q at most ``RECOMPUTE_MAX_DIM``):
    the centred matrix A of the wider sample is built once, and for each permutation pi
    sum_ij A_ij |w_{s_i} - w_{s_j}| (w the narrower sample, s = pi or its inverse) recomputes the
    narrower sample's distances from its permuted data in cache, four pairs per vector instruction
    (compiled C, ``_ext/_dcovperm.h``). Since A's rows and columns sum to zero the permuted side
    needs no centring; the sums agree with the centred-matrix path to about 1e-13 relatively;
  * "matrix": both centred n x n matrices are built once and sum_ij A[pi_i, pi_j] B[i, j] is
    gathered for each permutation;
  * "blocked": when the matrices would need more than ``MATRIX_BYTES``, each permutation is a
    blocked pass that recomputes both sides.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._checks import (check_choice, check_index, check_n_jobs, check_positive_int, check_progress, check_seed,
                       check_u_statistic_n, refuse_constant_sample)
from .._resampling import PermutationDraw, perm_pvalue, run_stream
from .._checks.public import public_function
from .._result import HTest

__all__ = ["dcor_test", "dcov_test", "pdcor_test"]

#: the memory the permutation tests may spend on their n x n centred matrices (2 matrices for dcor
#: and dcov, 3 for pdcor); above it every permutation is a blocked pass (O(n) memory, slower)
MATRIX_BYTES = 2 * 1024 ** 3
#: the "recompute" permutation path (see the module docstring) when the narrower sample has at most
#: this many columns: its cost grows with the columns, the gather path's does not (measured crossover
#: near 24 columns at n = 2000; benchmarks/bench_indep_dcor.py)
RECOMPUTE_MAX_DIM = 16

from ._dcov import (_centring, _from_sums, _gram, _is_fast, _kernels, _projection, _read, _stack, _threads,
                    _unit_factor, _workers)


# ----------------------------------------------------------------------------------------------
# permutation machinery
# ----------------------------------------------------------------------------------------------

class _Permuter:
    """sum_ij L[pi_i, pi_j] R[i, j] for the observed pairing (pi = identity) and for B random
    permutations, by one of four paths (see the module docstring); ``self.path`` names it."""

    def __init__(self, arrays: list[np.ndarray], index: float, kind: str, workers: int = 1):
        # kind: "dcov" (L = A, R = B, double centred) or "pdcor" (L = Px, R = Py, U-centred)
        self.k = _kernels()
        self.workers = workers
        self.kind = kind
        self.n = n = arrays[0].shape[0]
        unbiased = kind == "pdcor"
        nmat = len(arrays)
        if kind == "dcov" and _is_fast(arrays, index):
            self.path = "fast"
            xv, yv = arrays[0][:, 0], arrays[1][:, 0]
            self.ox = np.argsort(xv)
            (self.xs, self.a, self.yc, self.b, self.run_lo, self.run_hi,
             one) = self.k.fast_perm_setup(xv, yv, self.ox, np.argsort(yv))
            self.one = one  # [A, B, Q_xx, Q_yy, S_xx, S_yy]
            _, self.gxx, self.gyy = _from_sums(np.array([0.0, 0.0, *one]), n, False)
        elif (kind == "dcov" and index == 1.0 and min(a.shape[1] for a in arrays) <= RECOMPUTE_MAX_DIM
              and 8.0 * n * n <= MATRIX_BYTES):
            self.path = "recompute"
            x, y = arrays
            # recompute the narrower side; A is the centred matrix of the wider one. The values are
            # those of the matrix path for the same permutations: sum_ij A[p_i, p_j] B_ij with x's
            # side permuted, = sum_ij A_ij B[s_i, s_j] with s the inverse of p when y's side is kept
            self.recompute_x = x.shape[1] < y.shape[1]
            wide, narrow = (y, x) if self.recompute_x else (x, y)
            self.narrow = np.ascontiguousarray(narrow, dtype=np.float64)
            data, starts = _stack([wide, narrow])
            self.left = self.k.centred_matrix(data, 0, int(starts[1]), 1.0, False)
            other = self.k.centred_matrix(data, int(starts[1]), int(starts[2]), 1.0, False)
            g_wide, g_narrow = float(np.vdot(self.left, self.left)), float(np.vdot(other, other))
            del other
            self.gxx, self.gyy = (g_narrow, g_wide) if self.recompute_x else (g_wide, g_narrow)
        elif nmat * 8.0 * n * n <= MATRIX_BYTES:
            self.path = "matrix"
            data, starts = _stack(arrays)
            mats = [self.k.centred_matrix(data, int(starts[s]), int(starts[s + 1]), float(index), unbiased)
                    for s in range(nmat)]
            ident = np.arange(n, dtype=np.int64)[None, :]
            if kind == "dcov":
                self.left, self.right = mats
                self.gxx = self._inner(self.left, self.left, ident)[0]
                self.gyy = self._inner(self.right, self.right, ident)[0]
            else:
                a, b, c = mats
                g = np.empty((3, 3))
                for s, u in ((0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2)):
                    g[s, u] = g[u, s] = self._inner(mats[s], mats[u], ident)[0]
                self.proj = _projection(g)
                _, pxx, pyy, cx, cy = self.proj
                _sub_scaled(a, c, cx)
                _sub_scaled(b, c, cy)
                del c, mats
                self.left, self.right = a, b
                self.gxx, self.gyy = pxx, pyy
        else:
            self.path = "blocked"
            self.data, self.starts = _stack(arrays)
            self.index = float(index)
            sums = np.empty((nmat, n))
            self.k.row_sums(self.data, self.starts, self.index, sums)
            self.means, self.grand = _centring(n, unbiased, sums)
            self.with_diag = not unbiased
            g = self.k.centred_gram(self.data, self.starts, self.index, self.means, self.grand, self.with_diag)
            if kind == "dcov":
                self.cl, self.cr = np.array([1.0, 0.0]), np.array([0.0, 1.0])
                self.gxx, self.gyy = g[0, 0], g[1, 1]
            else:
                self.proj = _projection(g)
                _, pxx, pyy, cx, cy = self.proj
                self.cl, self.cr = np.array([1.0, 0.0, -cx]), np.array([0.0, 1.0, -cy])
                self.gxx, self.gyy = pxx, pyy

    def _inner(self, left, right, perms):
        out = np.empty(perms.shape[0])
        self.k.perm_inner(left, right, np.ascontiguousarray(perms), out)
        return out

    def cross(self, perms: np.ndarray) -> np.ndarray:
        """The cross inner product for each row of ``perms`` (centred sums over i, j)."""
        perms = np.ascontiguousarray(perms, dtype=np.int64)
        if self.path == "fast":
            out = np.empty((perms.shape[0], 2))
            self.k.fast_perm_sums(self.xs, self.a, self.ox, self.yc, self.b, self.run_lo, self.run_hi, perms, out)
            a, b = self.one[0], self.one[1]
            n = self.n
            return out[:, 0] - (2.0 / n) * out[:, 1] + a * b / (n * n)
        if self.path == "matrix":
            return self._inner(self.left, self.right, perms)
        if self.path == "recompute":
            return self._recompute(perms)

        def one(p):
            return self.k.blocked_perm_inner(self.data, self.starts, self.index, self.means, self.grand,
                                             self.with_diag, self.cl, self.cr, p)

        if self.workers == 1 or perms.shape[0] == 1:
            return np.array([one(p) for p in perms])
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(self.workers) as pool:  # the kernel releases the GIL
            return np.array(list(pool.map(one, perms)))

    def _recompute(self, perms: np.ndarray) -> np.ndarray:
        from .. import _dcovperm

        if not self.recompute_x:
            perms = np.ascontiguousarray(np.argsort(perms, axis=1), dtype=np.int64)
        n, q = self.narrow.shape
        # permutations sharing one pass over A: their permuted data (q x n each) stay in L2
        group = int(min(4, max(1, (512 * 1024) // (8 * q * n))))
        out = np.empty(perms.shape[0])

        def one(lo, hi):
            _dcovperm.perm_dist_inner(self.left, self.narrow, perms[lo:hi], out[lo:hi], group)

        nchunk = min(self.workers, perms.shape[0])
        if nchunk <= 1:
            one(0, perms.shape[0])
            return out
        from concurrent.futures import ThreadPoolExecutor

        bounds = np.linspace(0, perms.shape[0], nchunk + 1).astype(int)
        with ThreadPoolExecutor(nchunk) as pool:  # the kernel releases the GIL
            list(pool.map(one, bounds[:-1], bounds[1:]))
        return out

    def run(self, B: int, rng: np.random.Generator, progress: bool | None = False) -> tuple[float, np.ndarray]:
        """The observed cross product and those of B permutations drawn in order from ``rng``; the
        engine (``statcore._resampling.run_stream``) owns the loop, the chunks and the progress bar."""
        observed = float(self.cross(np.arange(self.n, dtype=np.int64)[None, :])[0])
        parts = run_stream(PermutationDraw(self.n), self.cross, B, rng=rng, bytes_per_resample=8.0 * max(self.n, 1),
                           progress=progress, desc="permutations", unit="perm")
        return observed, np.concatenate(parts)


def _sub_scaled(a: np.ndarray, c: np.ndarray, coef: float) -> None:
    """a -= coef * c in place, a block of rows at a time (no n x n temporary)."""
    if coef != 0.0:
        step = max(1, (1 << 20) // max(a.shape[1], 1))
        for i in range(0, a.shape[0], step):
            a[i:i + step] -= coef * c[i:i + step]


def _perm_pvalue(stat: float, reps: np.ndarray) -> float:
    """The engine's permutation p-value: (1 + #{T_b >= T}) / (B + 1), ties within TIE_RTOL."""
    return perm_pvalue(stat, reps, alternative="greater")


def _index_text(index: float) -> str:
    return f"{index:.15g}"


# ----------------------------------------------------------------------------------------------
# the tests
# ----------------------------------------------------------------------------------------------

def _test_data(nan_policy, min_n, **arrays):
    data = _read(nan_policy, min_n, **arrays)
    for name in ("x", "y"):
        refuse_constant_sample(data[name], name)
    return data


def _small(n: int, B: int, n_jobs: int) -> int:
    """One thread for small problems: waking a thread pool costs more than B permutations of a few
    dozen observations."""
    return 1 if B * n < 50_000 else n_jobs


def _dcov_perm(data: dict, index: float, B: int, rng, n_jobs: int, progress=False):
    x, y = data["x"], data["y"]
    n = x.shape[0]
    n_jobs = _small(n, B, n_jobs)
    with _threads(n_jobs):
        perm = _Permuter([x, y], index, "dcov", _workers(n_jobs))
        obs, reps = perm.run(B, rng, progress)
    v2 = max(obs, 0.0) / n ** 2
    vx, vy = float(perm.gxx) / n ** 2, float(perm.gyy) / n ** 2
    return v2, vx, vy, np.maximum(reps, 0.0) / n ** 2, perm.path


@public_function(data=("x", "y"), nan_policy=("raise", "omit"), formula=dict(lhs="y", rhs="x", cond=None))
def dcor_test(x: Any, y: Any = None, *, method: str = "permutation", B: int = 999, index: float = 1.0,
              seed: Any = None, n_jobs: int = 1, nan_policy: str = "raise", progress: bool | None = None,
              data: Any = None) -> HTest:
    """Distance correlation test of independence: R energy's ``dcor.test`` (permutation) or
    ``dcorT.test`` (the t-test in high dimension).

    ``method="permutation"``: the statistic is dCor_n(x, y) (:func:`dcor`); its null distribution
    comes from B random re-pairings of the rows of y with those of x, and the p-value is R's
    (1 + #{dCor_b >= dCor_n}) / (B + 1). The estimates are dCov, dCor, dVar(X) and dVar(Y), and the
    result prints exactly as R's ``dcor.test`` (p-values differ, as R's draws are its own).

    ``method="t"``: the distance correlation t-test of Szekely & Rizzo (2013):
    T = sqrt(M - 1) R* / sqrt(1 - R*^2) with R* the bias-corrected dCor (:func:`dcor_u`) and
    M = n (n - 3) / 2, against Student's t with M - 1 degrees of freedom (upper tail). It is exact as
    the dimension grows and approximate otherwise (see ``Notes``). No permutations: ``B``, ``seed``
    and ``n_jobs`` are not used.

    Parameters
    ----------
    x, y : array_like (n,) or (n, p), numpy or pandas
        The samples, one row per observation (n >= 2; n >= 4 for ``method="t"``). A wholly constant
        sample is refused (its dCor is 0 by definition and R's p-value is NA).
    method : {"permutation", "t"}
        The calibration, as above.
    B : int
        The number of permutations (R's ``R``), at least 1.
    index : float
        The exponent of the distances, in (0, 2) (R's ``dcorT.test`` has index 1 only).
    seed : None, int or numpy.random.Generator
        The randomness of the permutations; the same seed gives the same p-value, for any ``n_jobs``.
    n_jobs : int
        Threads for the permutations (1: one; -1: all cores). The permutations are drawn before they
        are spread over threads, so the answer does not depend on it.
    nan_policy : {"raise", "omit"}
        What to do with NaN: refuse it, or drop the observations (rows) with a NaN in x or y.
    progress : bool, optional
        A progress bar (tqdm) over the permutations, advancing per batch of permutations (a batch
        holds about 2^22 / n of them). Default (None): only when standard error is a terminal.
    data : pandas.DataFrame, optional
        With a formula in place of ``x``: the table holding its columns.
        ``dcor_test("y ~ x", data=df)`` tests
        y against x (``dcor_test(x, y)``).
        Categorical columns expand to R's treatment-contrast dummies; missing values follow
        ``nan_policy``; the result equals the array call on the formula's columns (docs/conventions.md,
        "Formulas").

    Returns
    -------
    HTest
        ``statistic`` (dCor; for "t" the T statistic with ``parameter`` df), ``p_value``,
        ``estimate`` (R's), ``extras`` with ``replicates`` (the B permutation statistics, read-only),
        ``n``, ``index`` and ``path`` ("fast": O(n log n) per permutation for univariate samples with
        index 1; "recompute": index 1 and the narrower sample has at most ``RECOMPUTE_MAX_DIM``
        columns: one centred matrix kept, the other side's distances recomputed per permutation;
        "matrix": the two centred n x n matrices kept; "blocked": neither, for n beyond
        ``MATRIX_BYTES``; see the module docstring).

    Notes
    -----
    The p-value of the t-test is the upper tail of Student's t (R computes 1 - pt(T, df), which is
    0 below about 1e-16; the two agree to about 1e-16 in absolute terms, so printed p-values below
    about 1e-10 can differ from R's in their last digits, R's being the rounded ones). The t approximation is derived for dimension
    p, q -> infinity and holds the level there (size 0.044-0.061 at p = q = 30, n = 30 and 200,
    Gaussian, t2 and discrete data, 1000 replicates); in low dimension it is loose, anti-conservative:
    about 0.065-0.07 for univariate samples at every n (the null of the U-statistic is then a
    weighted chi-square mixture, not a t) and about 0.06 at p = q = 5 (``benchmarks/size_indep_dcor.py``).
    Use the permutation test there. Peers: hyppo's ``Dcorr().test`` uses the
    bias-corrected statistic (:func:`dcor_u`) and, by default for n > 20, a chi-square approximation
    instead of permutations (``auto=True``); its permutation p-value is (1 + #{T_b >= T}) / (1 + B)
    too.

    References
    ----------
    Szekely, G. J., Rizzo, M. L. & Bakirov, N. K. (2007). Measuring and testing dependence by
    correlation of distances. Annals of Statistics 35(6), 2769-2794.
    Szekely, G. J. & Rizzo, M. L. (2013). The distance correlation t-test of independence in high
    dimension. Journal of Multivariate Analysis 117, 193-213.
    R package energy, functions ``dcor.test`` and ``dcorT.test``.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import dcor_test
    >>> rng = np.random.default_rng(1)
    >>> x = rng.normal(size=(50, 2))
    >>> y = x[:, 0] ** 2 + rng.normal(scale=0.5, size=50)
    >>> res = dcor_test(x, y, B=199, seed=2)
    >>> round(res.statistic, 4), res.p_value
    (0.5062, 0.005)
    >>> t = dcor_test(x, y, method="t")
    >>> print(t.summary().splitlines()[4])
    T = 3.9324, df = 1174, p-value = 4.451e-05
    >>> round(t.estimate["Bias corrected dcor"], 6)
    0.114021
    """
    method = check_choice(method, "method", ("permutation", "t"))
    B = check_positive_int(B, "B")
    index = check_index(index)
    n_jobs = check_n_jobs(n_jobs)
    progress = check_progress(progress)
    rng = check_seed(seed)
    if method == "t":
        return _dcor_t_test(x, y, index, nan_policy)
    data = _test_data(nan_policy, 2, x=x, y=y)
    n = data["x"].shape[0]
    v2, vx, vy, reps, path = _dcov_perm(data, index, B, rng, n_jobs, progress)
    den = math.sqrt(vx * vy)
    stat = min(1.0, math.sqrt(v2 / den))
    rep_stats = np.minimum(1.0, np.sqrt(reps / den))
    fx, fy = _unit_factor(data, index / 2, "x"), _unit_factor(data, index / 2, "y")  # dCov, dVar in data units
    estimate = {"dCov": math.sqrt(v2) * fx * fy, "dCor": stat, "dVar(X)": math.sqrt(vx) * fx * fx,
                "dVar(Y)": math.sqrt(vy) * fy * fy}
    return HTest(statistic=stat, statistic_name="dCor", p_value=_perm_pvalue(stat, rep_stats),
                 estimate=estimate, alternative=None, method="dCor independence test (permutation test)",
                 data_name=f"index {_index_text(index)}, replicates {B}",
                 extras={"replicates": rep_stats, "n": n, "index": index, "path": path})


def _dcor_t_test(x, y, index, nan_policy) -> HTest:
    from scipy import stats

    data = _test_data(nan_policy, 1, x=x, y=y)
    n = check_u_statistic_n(data["x"].shape[0], "x and y")
    g = _gram([data["x"], data["y"]], index, unbiased=True)
    vv = g[0, 0] * g[1, 1]
    # the unbiased distance variances can be zero or slightly negative (a near-constant variable): R
    # energy's bcdcor is 0 there, never a math error
    r = float(max(-1.0, min(1.0, g[0, 1] / math.sqrt(vv)))) if vv > 0 else 0.0
    m = n * (n - 3) / 2.0
    df = m - 1.0
    if abs(r) < 1.0:
        t = math.sqrt(df) * r / math.sqrt(1.0 - r * r)
    else:
        t = math.copysign(math.inf, r)
    p = float(stats.t.sf(t, df))
    return HTest(statistic=t, statistic_name="T", parameter={"df": df}, p_value=p,
                 estimate={"Bias corrected dcor": r}, alternative=None,
                 method="dcor t-test of independence for high dimension", data_name="x and y",
                 extras={"n": n, "index": index})


@public_function(data=("x", "y"), nan_policy=("raise", "omit"), formula=dict(lhs="y", rhs="x", cond=None))
def dcov_test(x: Any, y: Any = None, *, B: int = 999, index: float = 1.0, seed: Any = None, n_jobs: int = 1,
              nan_policy: str = "raise", progress: bool | None = None, data: Any = None) -> HTest:
    """Distance covariance permutation test of independence, as R energy's ``dcov.test``.

    The statistic is n V^2_n(x, y) = n dCov_n(x, y)^2 (:func:`dcov`); its null distribution comes
    from B random re-pairings of the rows of y with those of x, and the p-value is R's
    (1 + #{T_b >= T}) / (B + 1). The test is equivalent to the dCor permutation test
    (:func:`dcor_test`): for fixed samples dCor is a monotone function of dCov.

    Parameters
    ----------
    x, y : array_like (n,) or (n, p), numpy or pandas
        The samples, one row per observation (n >= 2). A wholly constant sample is refused.
    B : int
        The number of permutations (R's ``R``), at least 1.
    index : float
        The exponent of the distances, in (0, 2).
    seed : None, int or numpy.random.Generator
        The randomness of the permutations; the same seed gives the same p-value, for any ``n_jobs``.
    n_jobs : int
        Threads for the permutations (1: one; -1: all cores); the answer does not depend on it.
    nan_policy : {"raise", "omit"}
        What to do with NaN: refuse it, or drop the observations (rows) with a NaN in x or y.
    progress : bool, optional
        A progress bar (tqdm) over the permutations, advancing per batch of permutations (a batch
        holds about 2^22 / n of them). Default (None): only when standard error is a terminal.
    data : pandas.DataFrame, optional
        With a formula in place of ``x``: the table holding its columns.
        ``dcov_test("y ~ x", data=df)`` is
        ``dcov_test(x, y)``.
        Categorical columns expand to R's treatment-contrast dummies; missing values follow
        ``nan_policy``; the result equals the array call on the formula's columns (docs/conventions.md,
        "Formulas").

    Returns
    -------
    HTest
        ``statistic`` (nV^2), ``p_value``, ``estimate`` {"dCov"}, ``extras`` with ``replicates`` (the
        B permutation statistics), ``estimates`` (dCov, dCor, dVar(X), dVar(Y), R's ``estimates``),
        ``n``, ``index`` and ``path`` (as in :func:`dcor_test`).

    References
    ----------
    Szekely, G. J., Rizzo, M. L. & Bakirov, N. K. (2007). Measuring and testing dependence by
    correlation of distances. Annals of Statistics 35(6), 2769-2794.
    R package energy, function ``dcov.test``.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import dcov_test
    >>> rng = np.random.default_rng(1)
    >>> x = rng.normal(size=40)
    >>> res = dcov_test(x, np.abs(x) + rng.normal(scale=0.3, size=40), B=99, seed=3)
    >>> res.statistic_name, round(res.statistic, 4), res.p_value
    ('nV^2', 2.7753, 0.01)
    """
    B = check_positive_int(B, "B")
    index = check_index(index)
    n_jobs = check_n_jobs(n_jobs)
    progress = check_progress(progress)
    rng = check_seed(seed)
    data = _test_data(nan_policy, 2, x=x, y=y)
    n = data["x"].shape[0]
    v2, vx, vy, reps, path = _dcov_perm(data, index, B, rng, n_jobs, progress)
    dc = min(1.0, math.sqrt(v2 / math.sqrt(vx * vy)))
    p_value = _perm_pvalue(n * v2, n * reps)
    fx, fy = _unit_factor(data, index / 2, "x"), _unit_factor(data, index / 2, "y")  # back in data units
    stat = n * v2 * (fx * fx * fy * fy)
    rep_stats = n * reps * (fx * fx * fy * fy)
    estimates = {"dCov": math.sqrt(v2) * fx * fy, "dCor": dc, "dVar(X)": math.sqrt(vx) * fx * fx,
                 "dVar(Y)": math.sqrt(vy) * fy * fy}
    return HTest(statistic=stat, statistic_name="nV^2", p_value=p_value,
                 estimate={"dCov": estimates["dCov"]}, alternative=None,
                 method="dCov independence test (permutation test)",
                 data_name=f"index {_index_text(index)}, replicates {B}",
                 extras={"replicates": rep_stats, "estimates": estimates, "n": n, "index": index, "path": path})


@public_function(data=("x", "y", "z"), nan_policy=("raise", "omit"),
                 formula=dict(lhs="y", rhs="x", cond="z", cond_rule="required"))
def pdcor_test(x: Any, y: Any = None, z: Any = None, *, B: int = 999, index: float = 1.0, seed: Any = None,
               n_jobs: int = 1, nan_policy: str = "raise", progress: bool | None = None, data: Any = None) -> HTest:
    """Partial distance correlation permutation test of x independent of y given z (in the sense of
    pdCor = 0), as R energy's ``pdcor.test``.

    The statistic is pdCor(x, y; z) (:func:`pdcor`). Following Szekely & Rizzo (2014, Sec. 4.3), the
    permutations act on the projection Px of x's U-centred distance matrix (rows and columns
    together) while Py stays, and the p-value is R's (1 + #{pdCor_b >= pdCor}) / (B + 1).

    Parameters
    ----------
    x, y, z : array_like (n,) or (n, p), numpy or pandas
        The samples, one row per observation; n >= 4. A wholly constant x or y is refused, and so is
        an x or y explained by z (a zero projection: pdCor is undefined and R's p-value is NA).
    B : int
        The number of permutations (R's ``R``), at least 1.
    index : float
        The exponent of the distances, in (0, 2) (R's ``pdcor.test`` has index 1 only).
    seed : None, int or numpy.random.Generator
        The randomness of the permutations; the same seed gives the same p-value, for any ``n_jobs``.
    n_jobs : int
        Threads for the permutations (1: one; -1: all cores); the answer does not depend on it.
    nan_policy : {"raise", "omit"}
        What to do with NaN: refuse it, or drop the observations (rows) with a NaN in x, y or z.
    progress : bool, optional
        A progress bar (tqdm) over the permutations, advancing per batch of permutations (a batch
        holds about 2^22 / n of them). Default (None): only when standard error is a terminal.
    data : pandas.DataFrame, optional
        With a formula in place of ``x``: the table holding its columns.
        ``pdcor_test("y ~ x | z", data=df)`` is
        ``pdcor_test(x, y, z)``.
        Categorical columns expand to R's treatment-contrast dummies; missing values follow
        ``nan_policy``; the result equals the array call on the formula's columns (docs/conventions.md,
        "Formulas").

    Returns
    -------
    HTest
        ``statistic`` (pdcor), ``p_value``, ``estimate`` {"pdcor"}, ``extras`` with ``replicates``,
        ``n``, ``index`` and ``path`` ("matrix" or "blocked", as in :func:`dcor_test`).

    Notes
    -----
    pdCor = 0 is not conditional independence in general (Szekely & Rizzo 2014, Sec. 4.4); the test
    checks the partial distance correlation, as R's does.

    References
    ----------
    Szekely, G. J. & Rizzo, M. L. (2014). Partial distance correlation with methods for
    dissimilarities. Annals of Statistics 42(6), 2382-2412.
    R package energy, function ``pdcor.test``.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import pdcor_test
    >>> rng = np.random.default_rng(4)
    >>> z = rng.normal(size=60)
    >>> x, y = z + rng.normal(size=60), z + rng.normal(size=60)
    >>> res = pdcor_test(x, y, z, B=199, seed=5)
    >>> round(res.statistic, 4), res.p_value
    (0.0458, 0.035)
    """
    B = check_positive_int(B, "B")
    index = check_index(index)
    n_jobs = check_n_jobs(n_jobs)
    progress = check_progress(progress)
    rng = check_seed(seed)
    data = _test_data(nan_policy, 1, x=x, y=y, z=z)
    n = check_u_statistic_n(data["x"].shape[0], "x, y and z")
    n_jobs = _small(n, B, n_jobs)
    with _threads(n_jobs):
        perm = _Permuter([data["x"], data["y"], data["z"]], index, "pdcor", _workers(n_jobs))
        _, pxx, pyy, _, _ = perm.proj
        for name, val in (("x", pxx), ("y", pyy)):
            if val == 0.0:
                raise ValueError(f"{name} is explained by z (its U-centred distance matrix is a multiple of z's): "
                                 "its projection is zero and pdcor is undefined (R's pdcor.test gives p-value NA)")
        obs, reps = perm.run(B, rng, progress)
    den = math.sqrt(perm.gxx * perm.gyy)
    stat = float(max(-1.0, min(1.0, obs / den)))
    rep_stats = np.clip(reps / den, -1.0, 1.0)
    return HTest(statistic=stat, statistic_name="pdcor", p_value=_perm_pvalue(stat, rep_stats),
                 estimate={"pdcor": stat}, alternative=None, method="pdcor test", data_name=f"replicates {B}",
                 extras={"replicates": rep_stats, "n": n, "index": index, "path": perm.path})
