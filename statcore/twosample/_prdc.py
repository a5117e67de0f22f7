"""Precision and recall of Kynkaanniemi et al. (2019) and density and coverage of Naeem et al. (2020):
k-nearest-neighbour balls around real and generated feature vectors, distances computed in chunks."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._checks import as_feature_samples, check_positive_int
from .._checks.public import public_function
from .._result import Result
from ._common import blas_threads

__all__ = ["PRDCResult", "prdc"]

_CHUNK = 2048


def _sq_block(a, sa, b, sb):
    d2 = sa[:, None] + sb[None, :] - 2.0 * (a @ b.T)
    np.maximum(d2, 0.0, out=d2)
    return d2


def _knn_radii2(z: np.ndarray, k: int, chunk: int) -> np.ndarray:
    """Squared distance of every row to its k-th nearest other row, in row chunks."""
    from ._kernels import kth_smallest_rows
    sq = np.einsum("ij,ij->i", z, z)
    out = np.empty(z.shape[0])
    for lo in range(0, z.shape[0], chunk):
        hi = min(lo + chunk, z.shape[0])
        d2 = _sq_block(z[lo:hi], sq[lo:hi], z, sq)
        out[lo:hi] = kth_smallest_rows(d2, k, lo)
    return out


def _balls(ref: np.ndarray, radii2: np.ndarray, query: np.ndarray, chunk: int):
    """(number of ref balls holding each query point, squared distance of each ref point to its nearest query)."""
    from ._kernels import ball_counts
    sr = np.einsum("ij,ij->i", ref, ref)
    sq = np.einsum("ij,ij->i", query, query)
    counts = np.zeros(query.shape[0])
    nearest = np.full(ref.shape[0], np.inf)
    for lo in range(0, ref.shape[0], chunk):
        hi = min(lo + chunk, ref.shape[0])
        for qlo in range(0, query.shape[0], chunk):
            qhi = min(qlo + chunk, query.shape[0])
            d2 = _sq_block(ref[lo:hi], sr[lo:hi], query[qlo:qhi], sq[qlo:qhi])
            part = np.zeros(qhi - qlo)
            near = nearest[lo:hi].copy()
            ball_counts(d2, radii2[lo:hi], part, near)
            counts[qlo:qhi] += part
            nearest[lo:hi] = near
    return counts, nearest


@dataclass(frozen=True, repr=False)
class PRDCResult(Result):
    """Precision, recall, density and coverage of a generated sample against a real one.

    Attributes
    ----------
    precision : float
        Share of generated points inside the real k-NN manifold (Kynkaanniemi et al. 2019).
    recall : float
        Share of real points inside the generated k-NN manifold.
    density : float
        Mean number of real balls holding a generated point, divided by k (Naeem et al. 2020).
    coverage : float
        Share of real balls holding at least one generated point.
    k, n_real, n_fake : int

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import prdc
    >>> rng = np.random.default_rng(0)
    >>> res = prdc(rng.normal(size=(200, 2)), rng.normal(size=(150, 2)), k=5)
    >>> res.to_frame().columns.tolist()[:4]
    ['precision', 'recall', 'density', 'coverage']
    """

    precision: float
    recall: float
    density: float
    coverage: float
    k: int
    n_real: int
    n_fake: int

    def summary(self) -> str:
        return ("\n\tk-NN manifold precision/recall (Kynkaanniemi et al. 2019) and density/coverage "
                f"(Naeem et al. 2020)\n\ndata:  {self.n_real} real, {self.n_fake} generated, k = {self.k}\n"
                f"precision = {self.precision:.4f}, recall = {self.recall:.4f}\n"
                f"density = {self.density:.4f}, coverage = {self.coverage:.4f}\n")

    def to_frame(self):
        import pandas as pd
        return pd.DataFrame([{"precision": self.precision, "recall": self.recall, "density": self.density,
                              "coverage": self.coverage, "k": self.k, "n_real": self.n_real,
                              "n_fake": self.n_fake}])


@public_function(data=("x", "y"), nan_policy=("raise", "omit"), samples="independent")
def prdc(x, y, *, k=5, chunk_size=2048):
    """Precision, recall, density and coverage of generated features ``y`` against real features ``x``.

    Around every real point a ball reaches its k-th nearest real neighbour (itself excluded); likewise
    around every generated point. Precision is the share of generated points strictly inside some real
    ball, recall the share of real points strictly inside some generated ball (Kynkaanniemi et al.
    2019); density is (1 / (k m)) sum_j #{real balls holding generated point j} and coverage the share
    of real balls holding at least one generated point (Naeem et al. 2020). Same definitions (strict
    inequalities, Euclidean distances) as the reference implementation of Naeem et al. (the ``prdc``
    package). Distances are computed in blocks of ``chunk_size`` rows (memory O(chunk_size^2)) and
    reduced by compiled kernels.

    Parameters
    ----------
    x : array_like, shape (n, d)
        Real features.
    y : array_like, shape (m, d)
        Generated features.
    k : int
        The neighbour that sets a ball's radius: Kynkaanniemi et al. use 3, Naeem et al. 5.
    chunk_size : int
        Rows per distance block.
    nan_policy : {"raise", "omit"}
        A NaN in ``x`` or ``y``: "raise" refuses it (naming the argument and the count), "omit" drops
        the rows holding one, in each sample separately.

    Returns
    -------
    PRDCResult

    References
    ----------
    Kynkaanniemi, T., Karras, T., Laine, S., Lehtinen, J. & Aila, T. (2019). Improved precision and recall
    metric for assessing generative models. NeurIPS.
    Naeem, M. F., Oh, S. J., Uh, Y., Choi, Y. & Yoo, J. (2020). Reliable fidelity and diversity metrics
    for generative models. ICML.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import prdc
    >>> rng = np.random.default_rng(0)
    >>> real, fake = rng.normal(size=(500, 2)), rng.normal(size=(500, 2)) * 0.5
    >>> res = prdc(real, fake, k=5)
    >>> bool(res.precision > 0.95 and res.recall < 0.9)
    True
    """
    x, y = as_feature_samples(x, y)
    k = check_positive_int(k, "k")
    chunk = check_positive_int(chunk_size, "chunk_size")
    n, m = x.shape[0], y.shape[0]
    if k >= min(n, m):
        raise ValueError(f"k={k} must be smaller than both sample sizes (x has {n} rows, y has {m}): a ball "
                         "reaches the k-th nearest other point")
    with blas_threads(x.shape[1]):
        r_real = _knn_radii2(x, k, chunk)
        r_fake = _knn_radii2(y, k, chunk)
        counts_fake, nearest_real = _balls(x, r_real, y, chunk)
        counts_real, _ = _balls(y, r_fake, x, chunk)
    return PRDCResult(precision=float(np.mean(counts_fake > 0)), recall=float(np.mean(counts_real > 0)),
                      density=float(counts_fake.sum() / (k * m)), coverage=float(np.mean(nearest_real < r_real)),
                      k=k, n_real=n, n_fake=m)
