"""HSIC for large n: random Fourier features and Nystrom features, the statistic
n * ||C_xy||_F^2 of the centred feature cross-covariance, and its null distribution calibrated from
the features themselves (Zhang, Filippi, Gretton & Sejdinovic 2018).

With feature maps phi (n, Dx) and psi (n, Dy), centred column-wise, the kernel matrices are
approximated by K ~ phi phi^T and L ~ psi psi^T, and

    T = n ||C_xy||_F^2,   C_xy = phi^T psi / n,

equals n * HSIC_b computed from the approximate Gram matrices (tr(HK'H HL'H) / n), so T converges
to the exact ``n * hsic(x, y)`` as the number of features grows. Cost O(n (Dx + Dy)^2): linear in n.

Under independence T converges in law to sum_ij lambda_i eta_j z_ij^2 (z_ij standard normal), with
lambda, eta the eigenvalues of the feature covariances C_xx = phi^T phi / (n - 1) and
C_yy = psi^T psi / (n - 1). ``method="spectral"`` evaluates that law's tail exactly (Imhof 1961);
``method="gamma"`` is Gretton et al.'s (2008) gamma null of the exact test applied to the approximate
Gram matrices phi phi^T and psi psi^T (mean tr(C_xx) tr(C_yy), its variance with the finite-sample
factor 2 (n - 4)(n - 5) / (n)_4 and off-diagonal second moments), computed from the features in
O(n D^2); ``method="permutation"`` permutes the rows of psi.
"""
from __future__ import annotations

import math

import numpy as np

from ._hsic_approx_kernels import _KIND, _centre_columns, _cos_sin, _cross_gram, _pick

__all__ = ["rff_features", "nystrom_features", "gram_side", "crossprod", "rowprod", "feature_null", "weighted_chisq_sf",
           "chernoff_bound", "feature_statistic", "feature_perm_stats", "feature_gamma_moments"]


# ----------------------------------------------------------------------------------------------
# products over row blocks
# ----------------------------------------------------------------------------------------------

#: rows per block of the O(n D^2) products
BLOCK_ROWS = 1 << 16


def _map_row_blocks(fn, n: int) -> list:
    """``fn(lo, hi)`` for consecutive row blocks of ``BLOCK_ROWS``, in order. With several blocks they
    run on a pool of Python threads (one per core) each calling a single-threaded BLAS: multi-threaded
    OpenBLAS stalled up to 10 times on a busy 2-core machine (its threads wait for each other),
    independent single-threaded calls do not. The blocks are fixed by n and their results are added
    in order by the caller, so the answer does not depend on the number of threads."""
    import os
    from concurrent.futures import ThreadPoolExecutor

    blocks = [(a, min(n, a + BLOCK_ROWS)) for a in range(0, n, BLOCK_ROWS)]
    if len(blocks) == 1:
        return [fn(*blocks[0])]
    from ..utils import thread_limit

    with thread_limit(1, pools="blas"), ThreadPoolExecutor(min(len(blocks), os.cpu_count() or 1)) as pool:
        return list(pool.map(lambda ab: fn(*ab), blocks))


def _sum_in_order(parts: list):
    total = parts[0].copy()
    for part in parts[1:]:
        total += part
    return total


def crossprod(a: np.ndarray, b: np.ndarray | None = None) -> np.ndarray:
    """a^T b (a^T a when ``b`` is None), summed over row blocks."""
    if b is None:
        return _sum_in_order(_map_row_blocks(lambda lo, hi: a[lo:hi].T @ a[lo:hi], a.shape[0]))
    return _sum_in_order(_map_row_blocks(lambda lo, hi: a[lo:hi].T @ b[lo:hi], a.shape[0]))


def rowprod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b for a tall a, block by block."""
    out = np.empty((a.shape[0], b.shape[1]))

    def one(lo, hi):
        out[lo:hi] = a[lo:hi] @ b
        return None

    _map_row_blocks(one, a.shape[0])
    return out


def rff_features(x: np.ndarray, kernel: str, sigma: float, n_features: int, rng: np.random.Generator) -> np.ndarray:
    """Centred random Fourier features (n, n_features) of a Gaussian or Laplace kernel (Rahimi & Recht
    2007): ``n_features / 2`` frequencies w, each giving cos(w.x) and sin(w.x) scaled by
    sqrt(2 / n_features), so that phi(x).phi(x') = mean_k cos(w_k.(x - x')) estimates k(x, x').
    Gaussian exp(-|d|^2 / (2 sigma^2)): w ~ N(0, I / sigma^2). Laplace exp(-|d| / sigma): w is
    multivariate Cauchy, w = z / (sigma |g|) with z ~ N(0, I), g ~ N(0, 1)."""
    p = x.shape[1]
    m = n_features // 2
    w = rng.standard_normal((p, m))
    if kernel == "gaussian":
        w /= sigma
    else:
        w /= sigma * np.abs(rng.standard_normal(m))
    out = np.empty((x.shape[0], 2 * m))
    _pick(_cos_sin, out.size)(x, np.ascontiguousarray(w), out)
    _pick(_centre_columns, out.size)(out)
    return out


def nystrom_features(x: np.ndarray, kernel: str, sigma: float, n_features: int, rng: np.random.Generator
                     ) -> np.ndarray:
    """Centred Nystrom features (Williams & Seeger 2001): ``n_features`` landmark rows drawn without
    replacement, phi = K_nm U diag(s)^(-1/2) with K_mm = U diag(s) U^T, so phi phi^T =
    K_nm K_mm^+ K_mn. Eigenvalues below 1e-12 times the largest are dropped (rank-deficient K_mm,
    e.g. tied landmarks)."""
    n = x.shape[0]
    idx = np.sort(rng.choice(n, size=n_features, replace=False))
    z = np.ascontiguousarray(x[idx])
    kind = _KIND[kernel]
    s = 1.0 if sigma is None else float(sigma)
    kmm = np.empty((n_features, n_features))
    _pick(_cross_gram, kmm.size)(z, z, s, kind, kmm)
    vals, vecs = np.linalg.eigh((kmm + kmm.T) / 2)
    keep = vals > vals[-1] * 1e-12
    proj = np.ascontiguousarray(vecs[:, keep] / np.sqrt(vals[keep]))
    knm = np.empty((n, n_features))
    _pick(_cross_gram, knm.size)(x, z, s, kind, knm)
    out = rowprod(knm, proj)
    _pick(_centre_columns, out.size)(out)
    return out


# ----------------------------------------------------------------------------------------------
# the statistic and its null
# ----------------------------------------------------------------------------------------------

def gram_side(f: np.ndarray) -> np.ndarray:
    """f^T f (D x D) or f f^T (n x n), whichever is smaller: both have the same non-zero eigenvalues,
    trace and Frobenius norm."""
    return crossprod(f) if f.shape[1] <= f.shape[0] else f @ f.T


def feature_statistic(fx: np.ndarray, fy: np.ndarray, gx: np.ndarray | None = None,
                      gy: np.ndarray | None = None) -> float:
    """T = n ||C_xy||_F^2 = ||fx^T fy||_F^2 / n for centred features; through the n x n Gram
    matrices, tr(fx fx^T fy fy^T) / n, when both ``gram_side`` results ``gx``, ``gy`` are those."""
    n = fx.shape[0]
    if fx.shape[1] > n and fy.shape[1] > n:  # gram_side gives the n x n matrices
        gx = gram_side(fx) if gx is None else gx
        gy = gram_side(fy) if gy is None else gy
        return float(np.sum(gx * gy) / n)
    c = crossprod(fx, fy)
    return float(np.sum(c * c) / n)


def feature_null(gx: np.ndarray, gy: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Eigenvalues (descending, non-negative) of the feature covariances C_xx and C_yy (divisor
    n - 1), from the ``gram_side`` matrices."""
    lx = np.linalg.eigvalsh(gx / (n - 1))[::-1]
    ly = np.linalg.eigvalsh(gy / (n - 1))[::-1]
    return np.clip(lx, 0.0, None), np.clip(ly, 0.0, None)


def feature_gamma_moments(fx: np.ndarray, fy: np.ndarray, gx: np.ndarray | None = None,
                          gy: np.ndarray | None = None) -> tuple[float, float]:
    """Mean and variance of T = n * HSIC_b under independence by Gretton et al.'s (2008) gamma null
    applied to the approximate Gram matrices K = fx fx^T, L = fy fy^T (already centred), computed
    in O(n D^2) from the features (``gx``, ``gy``: their ``gram_side`` matrices, if at hand):

        E(T) = tr(K) tr(L) / (n - 1)^2,
        Var(T) = n^2 * 2 (n - 4)(n - 5) / (n)_4 * m_K m_L,
        m_K = sum_{i != j} K_ij^2 / (n (n - 1)) = (||fx^T fx||_F^2 - sum_i |fx_i|^4) / (n (n - 1)).

    tr(K) / (n - 1) is Gretton's 1 - mu_x (unbiased for E k(x, x) - E k(x, x')); Gretton's variance
    uses sum_{i != j} (K_ij L_ij)^2 / (n (n - 1)), whose expectation under independence is
    E(K_ij^2) E(L_ij^2), estimated here by m_K m_L (the product form needs no n x n matrix)."""
    n = fx.shape[0]

    def parts(f, g):
        g = gram_side(f) if g is None else g
        row2 = np.einsum("ij,ij->i", f, f)  # one pass, no BLAS
        return float(np.trace(g)), float((np.sum(g * g) - row2 @ row2) / (n * (n - 1.0)))

    (tx, mx), (ty, my) = parts(fx, gx), parts(fy, gy)
    mean = tx * ty / (n - 1.0) ** 2
    var = n * n * 2.0 * (n - 4) * (n - 5) / (n * (n - 1.0) * (n - 2) * (n - 3)) * mx * my
    return mean, var


def feature_perm_stats(fx: np.ndarray, fy: np.ndarray, B: int, rng: np.random.Generator,
                       progress: bool | None = False) -> np.ndarray:
    """T for B permutations of the rows of fy."""
    from .._progress import progress_bar

    n = fx.shape[0]
    out = np.empty(B)
    with progress_bar(progress, B, desc="permutations", unit="perm") as bar:
        for b in range(B):
            c = crossprod(fx, fy[rng.permutation(n)])
            out[b] = np.sum(c * c) / n
            bar.update()
    return out


def chernoff_bound(q: float, w: np.ndarray) -> float:
    """The Chernoff bound min_t exp(-t q) prod_k (1 - 2 t w_k)^(-1/2), 0 < t < 1 / (2 max w), on
    P(sum_k w_k z_k^2 > q)."""
    from scipy.optimize import minimize_scalar

    tmax = 0.5 / float(w.max())

    def logb(t):
        return -t * q - 0.5 * float(np.log1p(-2.0 * t * w).sum())

    res = minimize_scalar(logb, bounds=(0.0, tmax * (1 - 1e-12)), method="bounded",
                          options={"xatol": tmax * 1e-10})
    return float(min(1.0, math.exp(min(0.0, res.fun))))


def weighted_chisq_sf(q: float, w: np.ndarray, *, rel_cut: float = 1e-9) -> float:
    """P(sum_k w_k z_k^2 > q) for positive weights w and independent standard normal z_k, by Imhof's
    (1961) inversion of the characteristic function:

        P(Q > q) = 1/2 + (1/pi) int_0^inf sin(theta(u)) / (u rho(u)) du,
        theta(u) = sum_k arctan(w_k u) / 2 - q u / 2,  rho(u) = prod_k (1 + w_k^2 u^2)^(1/4),

    integrated with 32-point Gauss-Legendre rules on consecutive intervals of length 2 pi / q (a
    half-period of the oscillation; each cut into up to 64 pieces no longer than 4 / max w) until
    the envelope 1 / (u rho(u)) times that length is below 1e-13 (at most 2000 batches), the last
    two partial sums averaged (the pieces alternate in sign: Euler's averaging). The smallest
    weights, together at most ``rel_cut`` of the total, are replaced by their mean. Absolute
    accuracy about 1e-11 (checked against chi-square laws in the tests; up to 1e-7 for p-values
    within 1e-6 of 1). Where the Chernoff
    bound (``chernoff_bound``) is below 1e-12, that upper bound is returned instead (a conservative
    p-value far in the tail)."""
    w = np.asarray(w, dtype=np.float64)
    w = w[w > 0]
    if w.size == 0:
        return 0.0 if q >= 0 else 1.0
    # the smallest weights, together under rel_cut of the total, are replaced by their mean (their
    # sum's standard deviation is below rel_cut times the total as well)
    w = np.sort(w)[::-1]
    tail = np.cumsum(w[::-1])[::-1]
    keep = tail > rel_cut * tail[0]
    q = q - float(w[~keep].sum())
    w = w[keep]
    if q <= 0:
        return 1.0
    bound = chernoff_bound(q, w)
    if bound < 1e-12:  # far in the tail: Imhof's absolute accuracy is not enough there
        return bound
    h = 2.0 * math.pi / q
    # each half-period is cut into pieces no longer than 4 / max(w) (the scale on which the integrand
    # varies near 0): a composite 32-point rule
    sub = int(min(64, max(1, math.ceil(h * w[0] / 4.0))))
    g_nodes, g_weights = np.polynomial.legendre.leggauss(32)
    nodes = ((np.arange(sub)[:, None] * 2.0 + 1.0 + g_nodes[None, :]) / sub - 1.0).ravel()
    weights = np.tile(g_weights / sub, sub)
    total = 0.0
    start = 0.0
    batch = max(2, 64 // sub)  # intervals per vectorised evaluation

    def integrand(u):
        wu = np.multiply.outer(u, w)
        theta = 0.5 * np.arctan(wu).sum(axis=1) - 0.5 * q * u
        logrho = 0.25 * np.log1p(wu * wu).sum(axis=1)
        return np.sin(theta) / u * np.exp(-logrho)

    averaged = 0.0
    for _ in range(2000):
        lo = start + h * np.arange(batch)
        u = (lo[:, None] + h * (nodes[None, :] + 1.0) / 2.0).ravel()
        pieces = (integrand(u).reshape(batch, -1) * weights).sum(axis=1) * h / 2.0
        total += float(pieces.sum())
        # the pieces alternate in sign (half-periods of sin(q u / 2)): the mean of the last two partial
        # sums (Euler's averaging) removes most of the truncation error of a slowly decaying envelope
        averaged = total - 0.5 * float(pieces[-1])
        start += h * batch
        env = math.exp(-0.25 * float(np.log1p((w * start) ** 2).sum())) / start
        if env * h < 1e-13:
            break
    total = averaged
    p = 0.5 + total / math.pi
    return float(min(1.0, max(0.0, p)))
