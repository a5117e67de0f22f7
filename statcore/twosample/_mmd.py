"""Kernel and energy two-sample statistics: KID (Binkowski et al. 2018), the MMD permutation test
(Gretton et al. 2012) and the energy test of equal distributions (Szekely & Rizzo 2004; R energy's
``eqdist.etest``)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._checks import (as_feature_samples, check_choice, check_n_jobs, check_positive_int, check_positive_real,
                       check_progress, check_seed, check_subset_size, larger_sample, pow2_scale, unit_scale_samples)
from .._checks.public import public_function
from .._resampling import perm_pvalue, run_stream
from .._result import HTest, Result
from ._common import blas_threads

__all__ = ["KIDResult", "kid", "mmd_test", "energy_test"]

MMD_KERNELS = ("gaussian", "laplace", "polynomial")


def _poly_gram(a: np.ndarray, b: np.ndarray, d: int) -> np.ndarray:
    """The cubic polynomial kernel (a.b / d + 1)^3 of KID."""
    g = a @ b.T
    g /= d
    g += 1.0
    return g * g * g


def _offdiag_sum_poly_self(a: np.ndarray, d: int) -> float:
    """sum over i != j of (a_i.a_j / d + 1)^3, from one triangle: BLAS syrk computes a a^T / d at half
    the cost of a general product."""
    from scipy.linalg.blas import get_blas_funcs
    syrk = get_blas_funcs("syrk", (a,))
    g = syrk(1.0 / d, a.T, trans=1)  # upper triangle of a a^T / d (a.T is Fortran-ordered: no copy)
    iu = np.triu_indices(a.shape[0], 1)
    v = g[iu] + 1.0
    return 2.0 * float((v * v * v).sum())


def _kid_subset(a: np.ndarray, b: np.ndarray, d: int) -> float:
    """The unbiased MMD^2 of KID's cubic kernel on one pair of equal-size subsets."""
    m = a.shape[0]
    kxy = _poly_gram(a, b, d)
    return (_offdiag_sum_poly_self(a, d) + _offdiag_sum_poly_self(b, d)) / (m * (m - 1)) - 2.0 * float(kxy.mean())


def _mmd2_unbiased(kxx: np.ndarray, kyy: np.ndarray, kxy: np.ndarray) -> float:
    """The unbiased MMD^2: off-diagonal means within samples minus twice the cross mean."""
    m, n = kxx.shape[0], kyy.shape[0]
    sxx = (kxx.sum() - np.trace(kxx)) / (m * (m - 1))
    syy = (kyy.sum() - np.trace(kyy)) / (n * (n - 1))
    return float(sxx + syy - 2.0 * kxy.mean())


@dataclass(frozen=True, repr=False)
class KIDResult(Result):
    """Kernel Inception Distance: the unbiased MMD^2 of the cubic polynomial kernel over subsets.

    Attributes
    ----------
    estimate : float
        The mean of the subset estimates (KID).
    std_dev : float
        Their standard deviation with the 1/subsets denominator, as torch-fidelity
        (``kernel_inception_distance_std``) and torchmetrics report it: the spread of one subset's
        estimate, not the standard error of the mean (that is ``std_dev / sqrt(subsets - 1)``).
    values : numpy.ndarray
        The unbiased MMD^2 of every subset.
    indices : numpy.ndarray, shape (subsets, 2, subset_size)
        The rows of x (``[:, 0]``) and of y (``[:, 1]``) in every subset.
    subsets, subset_size : int

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import kid
    >>> rng = np.random.default_rng(0)
    >>> res = kid(rng.normal(size=(100, 4)), rng.normal(size=(100, 4)), subsets=5, subset_size=50, seed=1)
    >>> res.values.shape, res.indices.shape
    ((5,), (5, 2, 50))
    """

    estimate: float
    std_dev: float
    subsets: int
    subset_size: int
    values: Any = field(repr=False)
    indices: Any = field(repr=False, default=None)

    def summary(self) -> str:
        return ("\n\tKernel Inception Distance (unbiased MMD^2, kernel (x.y/d + 1)^3)\n\n"
                f"data:  {self.subsets} subsets of size {self.subset_size}\n"
                f"KID = {self.estimate:.6g}, sd over subsets = {self.std_dev:.4g}\n")

    def to_frame(self):
        import pandas as pd
        return pd.DataFrame([{"estimate": self.estimate, "std_dev": self.std_dev, "subsets": self.subsets,
                              "subset_size": self.subset_size}])

    def _plot(self, ax=None, **kwargs):
        import matplotlib.pyplot as plt
        if ax is None:
            _, ax = plt.subplots(figsize=(5, 3.5))
        ax.hist(self.values, bins=kwargs.pop("bins", 20), color="0.7", **kwargs)
        ax.axvline(self.estimate, color="C3", label="KID")
        ax.set_xlabel("unbiased MMD$^2$ of a subset")
        ax.legend(frameon=False)
        return ax


@public_function(data=("x", "y"), nan_policy=("raise", "omit"), samples="independent")
def kid(x, y, *, subsets=100, subset_size=1000, seed=None, n_jobs=1, progress=None):
    """Kernel Inception Distance: the unbiased MMD^2 with the cubic polynomial kernel, over subsets.

    For each of ``subsets`` rounds, ``subset_size`` rows of x and of y are drawn without replacement
    and the unbiased MMD^2 with k(a, b) = (a.b / d + 1)^3 is computed; KID is the mean, with the
    standard deviation over subsets, as in Binkowski et al. (2018) and torch-fidelity.

    Parameters
    ----------
    x, y : array_like, shape (n1, d) and (n2, d)
        Feature vectors, one row per sample.
    subsets : int
        Number of subsets.
    subset_size : int
        Rows per subset, at most min(n1, n2) (torch-fidelity's default is 1000).
    seed : None, int or numpy.random.Generator
        Randomness of the subsets.
    n_jobs : int
        Workers over the subsets (joblib's convention); the result does not depend on it.
    progress : bool or None
        A progress bar over the subsets (None: only on a terminal).
    nan_policy : {"raise", "omit"}
        A NaN in ``x`` or ``y``: "raise" refuses it (naming the argument and the count), "omit" drops
        the rows holding one, in each sample separately.

    Returns
    -------
    KIDResult
        ``estimate`` (KID), ``std_dev`` (over subsets), the subset ``values`` and their ``indices``.

    References
    ----------
    Binkowski, M., Sutherland, D. J., Arbel, M. & Gretton, A. (2018). Demystifying MMD GANs. ICLR.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import kid
    >>> rng = np.random.default_rng(0)
    >>> x, y = rng.normal(size=(300, 8)), rng.normal(0.5, size=(300, 8))
    >>> res = kid(x, y, subsets=10, subset_size=200, seed=1)
    >>> bool(res.estimate > 0.1)
    True
    """
    x, y = as_feature_samples(x, y)
    subsets = check_positive_int(subsets, "subsets")
    m = check_subset_size(subset_size, x.shape[0], y.shape[0])
    rng = check_seed(seed)
    n_jobs, progress = check_n_jobs(n_jobs), check_progress(progress)
    from .._resampling import run_stream

    # the subsets drawn in order from rng (the same whatever n_jobs), computed on n_jobs workers
    parts = run_stream(_KIDDraw(x.shape[0], y.shape[0], m), _KIDChunk(x, y), subsets, rng=rng,
                       bytes_per_resample=8.0 * m * m, n_jobs=n_jobs, progress=progress, desc="subsets",
                       unit="subset")
    idx = np.concatenate([p[0] for p in parts])
    vals = np.concatenate([p[1] for p in parts])
    if not np.isfinite(vals).all():
        big = larger_sample(x, y)
        raise ValueError(f"{big} holds features as large as {max(np.abs(x).max(), np.abs(y).max()):.3g}: KID's cubic "
                         "kernel (a.b / d + 1)^3 overflows float64 there, so KID has no finite value; KID is made "
                         "for features of order 1 (Inception pool features): rescale both samples alike")
    return KIDResult(estimate=float(vals.mean()), std_dev=float(vals.std()), subsets=subsets, subset_size=m,
                     values=vals, indices=idx)


class _KIDDraw:
    def __init__(self, n1: int, n2: int, m: int):
        self.n1, self.n2, self.m = n1, n2, m

    def __call__(self, rng: np.random.Generator, size: int) -> np.ndarray:
        idx = np.empty((size, 2, self.m), dtype=np.int64)
        for s in range(size):
            idx[s, 0] = rng.choice(self.n1, self.m, replace=False)
            idx[s, 1] = rng.choice(self.n2, self.m, replace=False)
        return idx


class _KIDChunk:
    def __init__(self, x: np.ndarray, y: np.ndarray):
        self.x, self.y = x, y

    def __call__(self, idx: np.ndarray) -> tuple:
        d = self.x.shape[1]
        vals = np.empty(idx.shape[0])
        with blas_threads(d):
            for s in range(idx.shape[0]):
                vals[s] = _kid_subset(self.x[idx[s, 0]], self.y[idx[s, 1]], d)
        return idx, vals


# ----------------------------------------------------------------------------------------------
# permutation tests
# ----------------------------------------------------------------------------------------------

def _sqdist(z: np.ndarray) -> np.ndarray:
    sq = np.einsum("ij,ij->i", z, z)
    d2 = sq[:, None] + sq[None, :] - 2.0 * (z @ z.T)
    np.maximum(d2, 0.0, out=d2)
    np.fill_diagonal(d2, 0.0)
    return d2


def _permutations(rng: np.random.Generator, B: int, n: int) -> np.ndarray:
    perms = np.empty((B, n), dtype=np.int64)
    for b in range(B):
        perms[b] = rng.permutation(n)
    return perms


def _permuted_stats(m: np.ndarray, n1: int, rng: np.random.Generator, B: int, stat, progress,
                    n_jobs: int = 1, linear: tuple | None = None) -> np.ndarray:
    """stat of the block sums of the B permutations, drawn in order from ``rng`` (the same
    permutations whatever the chunking); the engine (``statcore._resampling.run_stream``) owns the
    loop, the chunks and the progress bar, and ``n_jobs`` sets the kernel's numba threads.
    ``linear = (a, coef)`` adds coef * (sum of a over the permuted first sample - over the observed
    one), computed from the membership changes only (``_PermutedStat``)."""
    import numba  # noqa: F401  (loaded first: thread_limit sets numba's pool once numba is loaded)

    from ..utils import effective_n_jobs, thread_limit

    n = m.shape[0]
    with thread_limit(effective_n_jobs(n_jobs), pools="numba"):
        parts = run_stream(_RowPermutations(n), _PermutedStat(m, n1, stat, linear), B, rng=rng,
                           bytes_per_resample=8.0 * max(n, 1), progress=progress, desc="permutations", unit="perm")
    return np.concatenate(parts)


class _RowPermutations:
    """``rng.permutation(n)`` row by row (the draws of the tests before the engine)."""

    def __init__(self, n: int):
        self.n = n

    def __call__(self, rng: np.random.Generator, size: int) -> np.ndarray:
        return _permutations(rng, size, self.n)


class _PermutedStat:
    def __init__(self, m: np.ndarray, n1: int, stat, linear: tuple | None = None):
        self.m, self.n1, self.stat, self.linear = m, n1, stat, linear

    def __call__(self, perms: np.ndarray) -> np.ndarray:
        out = self.stat(_block_sums(self.m, perms, self.n1))
        if self.linear is not None:
            # sum of a over the permuted first sample minus over the observed one, from the {-1, 0, 1}
            # membership changes: a unit that stays in its sample adds an exact 0, so a far outlier's
            # huge a_i enters only the splits that move it
            a, coef = self.linear
            change = np.zeros((perms.shape[0], perms.shape[1]))
            np.put_along_axis(change, perms[:, :self.n1], 1.0, axis=1)
            change[:, :self.n1] -= 1.0
            out = out + coef * (change @ a)
        return out


def _block_sums(m: np.ndarray, perms: np.ndarray, n1: int) -> np.ndarray:
    """The permuted block sums; threads only when the work (B n^2) is large enough to pay for them.
    Both kernels sum every permutation in the same order, so the answer is the same."""
    from ._kernels import perm_block_sums, perm_block_sums_serial
    work = perms.shape[0] * perms.shape[1] ** 2
    return (perm_block_sums if work > 5_000_000 else perm_block_sums_serial)(m, perms, n1)


@public_function(data=("x", "y"), nan_policy=("raise", "omit"), samples="independent")
def mmd_test(x, y, *, kernel="gaussian", bandwidth="median", B=999, seed=None, progress=None, n_jobs=1):
    """Permutation test of equal distributions with the unbiased MMD^2 statistic.

    Parameters
    ----------
    x, y : array_like, shape (n1, d) and (n2, d)
        The two samples, one row per observation.
    kernel : {"gaussian", "laplace", "polynomial"}
        Gaussian ``exp(-|a - b|^2 / (2 s^2))``, Laplace ``exp(-|a - b| / s)``, or KID's cubic polynomial
        (a.b / d + 1)^3 (no bandwidth).
    bandwidth : "median" or float
        The scale s: "median" is the median heuristic, the median of the pairwise Euclidean distances
        of the pooled sample (computed once, before permuting).
    B : int
        Permutations; p = (1 + #{T_b >= T}) / (B + 1).
    seed : None, int or numpy.random.Generator
        Randomness of the permutations.
    progress : bool, optional
        A progress bar (tqdm) over the permutations, advancing per chunk of the resampling engine.
        Default (None): only when standard error is a terminal.
    n_jobs : int
        Threads of the compiled permutation kernel (joblib's convention: -1 all cores); the p-value
        does not depend on it.
    nan_policy : {"raise", "omit"}
        A NaN in ``x`` or ``y``: "raise" refuses it (naming the argument and the count), "omit" drops
        the rows holding one, in each sample separately.

    Returns
    -------
    HTest
        ``statistic`` (MMD^2, unbiased), ``p_value``, ``extras["replicates"]``, ``extras["bandwidth"]``.

    References
    ----------
    Gretton, A., Borgwardt, K. M., Rasch, M. J., Schoelkopf, B. & Smola, A. (2012). A kernel two-sample
    test. Journal of Machine Learning Research 13, 723-773.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import mmd_test
    >>> rng = np.random.default_rng(0)
    >>> res = mmd_test(rng.normal(size=(40, 2)), rng.normal(1.0, size=(30, 2)), B=199, seed=1)
    >>> res.p_value
    0.005
    """
    x, y = as_feature_samples(x, y)
    kernel = check_choice(kernel, "kernel", MMD_KERNELS)
    B = check_positive_int(B, "B")
    rng = check_seed(seed)
    n_jobs = check_n_jobs(n_jobs)
    progress = check_progress(progress)
    n1, n2 = x.shape[0], y.shape[0]
    z = np.vstack([x, y])
    if kernel == "polynomial":
        with blas_threads(z.shape[1]):
            k = _poly_gram(z, z, z.shape[1])
        bw = None
        if not np.isfinite(k).all():
            raise ValueError(f"{larger_sample(x, y)} holds features as large as {np.abs(z).max():.3g}: the cubic "
                             "polynomial kernel overflows float64 there; rescale both samples alike or use "
                             "kernel='gaussian' (scale-free with the median bandwidth)")
    else:
        # squared distances on unit-scale data (no overflow at 1e300, no cancellation far from 0); the
        # kernel depends on distance / bandwidth only, so the bandwidth is scaled alike
        xs, ys, scale = unit_scale_samples(x, y)
        with blas_threads(z.shape[1]):
            d2 = _sqdist(np.vstack([xs, ys]))
        iu = np.triu_indices(z.shape[0], 1)
        if isinstance(bandwidth, str) and not np.median(d2[iu]) > 0 and np.any(d2[iu] > 0):
            # one far outlier set the scale and the other distances underflowed: the scale of the median
            # deviation instead, where the outlier's squared distances overflow (inf - inf) to a kernel of 0
            xs, ys, scale = unit_scale_samples(x, y, robust=True)
            with blas_threads(z.shape[1]), np.errstate(over="ignore", invalid="ignore"):
                d2 = _sqdist(np.vstack([xs, ys]))
            d2[np.isnan(d2)] = np.inf
        if isinstance(bandwidth, str):
            check_choice(bandwidth, "bandwidth", ("median",))
            dist = np.sqrt(d2[iu])
            bws = float(np.median(dist))
            if not bws > 0:
                raise ValueError("bandwidth='median' is 0: more than half of the pooled pairs coincide; "
                                 "pass a positive bandwidth")
            bw = bws * scale
        else:
            bw = check_positive_real(bandwidth, "bandwidth")
            bws = bw / scale
        k = np.exp(-d2 / (2 * bws * bws)) if kernel == "gaussian" else np.exp(-np.sqrt(d2) / bws)
    k = np.ascontiguousarray(k)
    total = k.sum()

    def stat(sums):
        sxx, syy, dxx, dyy = sums[..., 0], sums[..., 1], sums[..., 2], sums[..., 3]
        sxy = (total - sxx - syy) / 2
        return (sxx - dxx) / (n1 * (n1 - 1)) + (syy - dyy) / (n2 * (n2 - 1)) - 2 * sxy / (n1 * n2)

    obs = float(stat(_block_sums(k, np.arange(n1 + n2, dtype=np.int64)[None, :], n1))[0])
    reps = _permuted_stats(k, n1, rng, B, stat, progress, n_jobs)
    p = perm_pvalue(obs, reps, alternative="greater")
    kname = {"gaussian": "Gaussian", "laplace": "Laplace", "polynomial": "cubic polynomial"}[kernel]
    return HTest(statistic=obs, statistic_name="MMD^2", p_value=p,
                 method=f"Kernel two-sample test (unbiased MMD^2, {kname} kernel, permutation)",
                 data_name=f"sample sizes {n1} {n2}, replicates {B}", alternative="greater",
                 extras={"replicates": reps, "bandwidth": bw, "kernel": kernel, "B": B})


#: the ratio of the largest deviation from the median to the median one beyond which energy_test computes
#: E from centred distances (below it the outliers' terms leave the bulk's digits in float64)
_FAR_OUTLIER_RATIO = 2.0 ** 10


def _far_outlier_units(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, float] | None:
    """(w, s): the pooled data about their column medians in units s of the median deviation (a power
    of two, ``pow2_scale``), when the largest deviation exceeds ``_FAR_OUTLIER_RATIO`` median ones (and
    w holds no value near float64's limit); None otherwise, and "beyond" when the outliers lie more
    than 2^1000 median deviations out (no one unit holds both: the bulk's distances vanish beside them)."""
    z = np.vstack([x, y])
    center = np.median(z, axis=0)
    with np.errstate(over="ignore", invalid="ignore"):
        dev = np.abs(z - center)
        med = float(np.median(dev))
        big = float(dev.max())
    if not (med > 0 and np.isfinite(big) and big > _FAR_OUTLIER_RATIO * med):
        return None
    s = float(pow2_scale(z, axis=None, center=center, robust=True))
    with np.errstate(over="ignore"):
        w = (z - center) / s
    if not np.all(np.abs(w) < 2.0 ** 1000):  # the differences of two points must stay finite
        return "beyond"
    return w, s


def _centred_distances(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """C_ij = d_ij - a_i - a_j off the diagonal (0 on it) and a_i = |w_i|, without cancellation.

    With A = max(a_i, a_j), b = min(a_i, a_j) and u the point of norm A divided by A, v the other,
    d - A = (b^2 - 2 A <u, v>) / (d + A), so C = (b (b / A) - 2 <u, v>) / (d / A + 1) - b: every term is
    of the size of the smaller point, and no square of a far point is formed. Since
    E(D) = E(C) + 2 c (sum_x a / n1^2 + sum_y a / n2^2) for any a (the V-statistic's diagonal holds
    -2 a_i), the centred matrix carries the bulk's information whatever the outliers' size."""
    n, d = w.shape
    rowmax = np.abs(w).max(axis=1)
    safe = np.where(rowmax > 0, rowmax, 1.0)
    a = rowmax * np.sqrt(np.einsum("ij,ij->i", w / safe[:, None], w / safe[:, None]))
    C = np.zeros((n, n))
    step = max(1, (1 << 22) // max(n * d, 1))
    for lo in range(0, n, step):
        wi = w[lo:lo + step, None, :]
        ai = a[lo:lo + step, None]
        first = ai >= a[None, :]
        A = np.maximum(ai, a[None, :])
        b = np.minimum(ai, a[None, :])
        Asafe = np.where(A > 0, A, 1.0)
        u = np.where(first[..., None], wi, w[None, :, :]) / Asafe[..., None]
        v = np.where(first[..., None], w[None, :, :], wi)
        diff = wi - w[None, :, :]
        m = np.abs(diff).max(axis=2)
        msafe = np.where(m > 0, m, 1.0)
        dist = m * np.sqrt(np.einsum("ijk,ijk->ij", diff / msafe[..., None], diff / msafe[..., None]))
        block = (b * (b / Asafe) - 2.0 * np.einsum("ijk,ijk->ij", u, v)) / (dist / Asafe + 1.0) - b
        C[lo:lo + step] = np.where(A > 0, block, 0.0)
    np.fill_diagonal(C, 0.0)
    return np.ascontiguousarray(C), a


@public_function(data=("x", "y"), nan_policy=("raise", "omit"), samples="independent")
def energy_test(x, y, *, B=999, seed=None, progress=None, n_jobs=1):
    """Energy test of equal distributions (R energy's ``eqdist.etest`` for two samples).

    The statistic is R energy's two-sample E-statistic
    ``E = n1 n2 / (n1 + n2) * (2 mean|X - Y| - mean|X - X'| - mean|Y - Y'|)``, with the within-sample means
    over all n^2 pairs (V-statistics), Euclidean distances; the p-value is by permutation,
    (1 + #{E_b >= E}) / (B + 1), as ``eqdist.etest(rbind(x, y), sizes = c(n1, n2), R = B)``.

    Parameters
    ----------
    x, y : array_like, shape (n1, d) and (n2, d)
        The two samples, one row per observation.
    B : int
        Permutation replicates (R's ``R``).
    seed : None, int or numpy.random.Generator
        Randomness of the permutations (R draws its own: p-values agree in distribution, not digit for
        digit).
    progress : bool, optional
        A progress bar (tqdm) over the permutations, advancing per chunk of the resampling engine.
        Default (None): only when standard error is a terminal.
    n_jobs : int
        Threads of the compiled permutation kernel (joblib's convention: -1 all cores); the p-value
        does not depend on it.
    nan_policy : {"raise", "omit"}
        A NaN in ``x`` or ``y``: "raise" refuses it (naming the argument and the count), "omit" drops
        the rows holding one, in each sample separately.

    Returns
    -------
    HTest
        Printed as R prints ``eqdist.etest``; ``extras["replicates"]``.

    Notes
    -----
    Far outliers (a deviation from the median over 2^10 median deviations) contribute a term to E that
    is the same for every split leaving them in their sample and can exceed the bulk's by more than
    float64's 16 digits (one value of 1e300: every permuted E then tied with the observed one, p = 1;
    R's ``eqdist.etest`` returns E = NaN). There E is computed from the centred distances
    d_ij - a_i - a_j (a_i the distance of point i from the median, formed without cancellation) plus the
    term linear in the a_i, and the permuted statistics are compared without the term they share, which
    gives the p-value of exact arithmetic. With unequal sample sizes that p-value is large whatever the
    bulk shows: the splits that move an outlier to the smaller sample have the larger E. Outliers more
    than 2^1000 median deviations out cannot share one float64 unit with the bulk: a StatcoreWarning
    says so, and the tied permutations count as at least as extreme.

    References
    ----------
    Szekely, G. J. & Rizzo, M. L. (2004). Testing for equal distributions in high dimension. InterStat 5.
    R package energy, ``eqdist.etest``.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import energy_test
    >>> rng = np.random.default_rng(0)
    >>> res = energy_test(rng.normal(size=(30, 2)), rng.normal(1.0, size=(20, 2)), B=199, seed=1)
    >>> res.p_value
    0.005
    """
    x, y = as_feature_samples(x, y, min_n=1)
    B = check_positive_int(B, "B")
    rng = check_seed(seed)
    n_jobs = check_n_jobs(n_jobs)
    progress = check_progress(progress)
    n1, n2 = x.shape[0], y.shape[0]
    c = n1 * n2 / (n1 + n2)
    centred = _far_outlier_units(x, y)
    if isinstance(centred, str):
        import warnings

        from .._warnings import StatcoreWarning

        warnings.warn("energy_test: the largest deviation from the median exceeds 2^1000 median deviations, "
                      "beyond what float64 holds in one unit: the bulk's distances vanish beside the outliers', "
                      "so the permuted statistics tie with the observed one unless an outlier changes sample; "
                      "the p-value counts those ties as at least as extreme (conservative). Test the bulk and "
                      "the outliers separately", StatcoreWarning, stacklevel=3)
        centred = None
    if centred is None:
        # E is translation invariant and homogeneous of degree 1: computed on unit-scale data (no overflow
        # of the squared distances at 1e300, no cancellation at a location of 1e8), then scaled back
        xs, ys, scale = unit_scale_samples(x, y)
        with blas_threads(x.shape[1]):
            dist = np.ascontiguousarray(np.sqrt(_sqdist(np.vstack([xs, ys]))))
        linear, offset = None, 0.0
    else:
        # far outliers: E from the centred distances d_ij - a_i - a_j (a_i = |w_i|, w the data about the
        # median), whose outlier rows are of the bulk's size, plus the part linear in the a_i (the
        # outliers' common contribution, _centred_distances); permuted statistics are compared with the
        # observed one without that common part (a constant shift of all of them: the same p-value)
        w, scale = centred
        dist, a = _centred_distances(w)
        linear = (a, 2 * c * (1 / n1 ** 2 - 1 / n2 ** 2))
        offset = 2 * c * (float(np.sum(a[:n1])) / n1 ** 2 + float(np.sum(a[n1:])) / n2 ** 2)
    total = dist.sum()

    def stat(sums):
        sxx, syy = sums[..., 0], sums[..., 1]
        sxy = (total - sxx - syy) / 2
        return c * (2 * sxy / (n1 * n2) - sxx / n1 ** 2 - syy / n2 ** 2)

    obs = float(stat(_block_sums(dist, np.arange(n1 + n2, dtype=np.int64)[None, :], n1))[0])
    reps = _permuted_stats(dist, n1, rng, B, stat, progress, n_jobs, linear=linear)
    p = perm_pvalue(obs, reps, alternative="greater")
    obs, reps = (obs + offset) * scale, (reps + offset) * scale
    return HTest(statistic=obs, statistic_name="E-statistic", p_value=p,
                 method=f"{'Univariate' if x.shape[1] == 1 else 'Multivariate'} 2-sample E-test of equal distributions",
                 data_name=f"sample sizes {n1} {n2}, replicates {B}", alternative=None,
                 extras={"replicates": reps, "B": B})
