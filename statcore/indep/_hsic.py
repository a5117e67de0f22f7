"""The Hilbert-Schmidt independence criterion: ``hsic`` and ``hsic_test`` (two variables, exact or by
random Fourier / Nystrom features for large n) and ``dhsic``, ``dhsic_test`` (joint independence of
d variables, Pfister et al. 2018, as R's dHSIC).

Kernels and the median heuristic
--------------------------------
Every kernel has k(x, x) = 1: "gaussian" exp(-|x - x'|^2 / (2 s^2)), "laplace" exp(-|x - x'| / s)
(Euclidean norm) and "discrete" 1{x = x'} (all coordinates equal; for categorical data, as dHSIC's
discrete kernel). ``bandwidth="median"`` sets the kernel to exp(-1) at the median pairwise distance:

- Gaussian: s^2 = median_{i<j} |x_i - x_j|^2 / 2, the rule of R's dHSIC (``median_bandwidth``:
  sqrt(0.5 * median of the squared distances)) and of Gretton et al.'s reference code; the kernel is
  exp(-|x - x'|^2 / median |x_i - x_j|^2).
- Laplace: s = median_{i<j} |x_i - x_j|.

The median is numpy's (the mean of the two middle values for an even number of pairs; dHSIC takes the
upper one) over all n (n - 1) / 2 pairs (dHSIC subsamples 1000 rows at random for n > 1000; the
approximate tests subsample 1000 rows with their ``seed``). Where more than half of the pairs are tied
(discrete data) the median is 0; the median of the positive distances is used then (Gretton et al.'s
code always drops zero distances; dHSIC sets the bandwidth to 0.001).

hyppo's ``Hsic`` and ``dHsic`` use another rule: s = median |x_i - x_j| of the first variable only
(the kernel is exp(-1/2) at its median distance), for every variable; pass ``bandwidth=`` that one
number to match them (their statistics then agree with statcore's to 1e-10, see the tests).
"""
from __future__ import annotations

import math

import numpy as np

from .._checks import (as_indep_data, check_bandwidths, check_choice, check_kernels, check_positive_int,
                       check_seed, is_constant_sample, warn_constant)
from .._checks import check_n_jobs, check_progress, pow2_scale, show_value
from .._resampling import PermutationDraw, perm_pvalue, run_stream
from .._checks.public import public_function
from .._result import HTest


class _LazyModule:
    """A kernel module imported on first use: it imports numba, and ``import statcore`` must not."""

    def __init__(self, name: str):
        self._name = name
        self._mod = None

    def __getattr__(self, attr):
        if self._mod is None:
            import importlib

            self._mod = importlib.import_module(self._name, __package__)
        return getattr(self._mod, attr)


_approx = _LazyModule("._hsic_approx")
_k = _LazyModule("._hsic_kernels")

__all__ = ["hsic", "hsic_test"]

#: subsample size of the median heuristic in the approximate tests (as R dHSIC for n > 1000)
MEDIAN_SUBSAMPLE = 1000
#: replicates T_b count as ">= T" down to this relative distance below T (rounding: with ties in
#: discrete data equal statistics can differ in the last bits)

_CONSTANT_REASON = ("its centred Gram matrix is 0 (every kernel value equals 1) and {what} is 0; with one "
                    "variable constant, the others' joint dependence is what remains")


# ----------------------------------------------------------------------------------------------
# Gram matrices
# ----------------------------------------------------------------------------------------------

def _median_sigma(sq: np.ndarray, kernel: str) -> float:
    """The median heuristic's scale from squared distances ``sq`` (one per pair)."""
    vals = np.sqrt(sq) if kernel == "laplace" else sq
    med = float(np.median(vals))
    if med == 0.0:
        pos = vals[vals > 0]
        med = float(np.median(pos))  # caller guarantees a non-constant sample
    return math.sqrt(med / 2.0) if kernel == "gaussian" else med


def _pairs_sq(x: np.ndarray) -> np.ndarray:
    """Squared distances of all pairs i < j of the rows of x."""
    n = x.shape[0]
    flat = np.empty(n * (n - 1) // 2)
    _k.pick("sq_condensed", x.shape[0])(x, flat)
    return flat


_KIND = {"gaussian": 0, "laplace": 1, "discrete": 2}


def _gram(x: np.ndarray, kernel: str, bandwidth) -> tuple[np.ndarray, float]:
    """The Gram matrix (n, n) of one variable and the scale used (NaN: discrete or constant). Each
    kernel value is computed once (upper triangle, then mirrored)."""
    n = x.shape[0]
    out = np.empty((n, n))
    if is_constant_sample(x):
        out.fill(1.0)
        return out, float("nan")
    if kernel == "discrete":
        _k.pick("gram_upper_direct", x.shape[0])(x, 2, 1.0, out)
        sigma = float("nan")
        _k.pick("mirror_upper", n)(out)
        return out, sigma
    # the kernels depend on distance / scale only: distances on data brought to order 1 by a power of two
    # (exact), so that squared distances of 1e-300 do not underflow to 0 nor those of 1e300 overflow
    unit = float(pow2_scale(x, axis=None, center=np.median(x, axis=0), robust=True))
    xs = np.ascontiguousarray(x / unit)
    if bandwidth == "median":
        flat = _pairs_sq(xs)
        sigma_s = _median_sigma(flat, kernel)
        _k.pick("gram_upper_from_condensed", n)(flat, _KIND[kernel], sigma_s, out)
        sigma = sigma_s * unit
    else:
        sigma = float(bandwidth)
        _k.pick("gram_upper_direct", x.shape[0])(xs, _KIND[kernel], sigma / unit, out)
    _k.pick("mirror_upper", n)(out)
    return out, sigma


def _centring(K: np.ndarray) -> tuple[np.ndarray, float]:
    m = K.mean(axis=1)
    return m, float(m.mean())


def _hsic_b_parts(K: np.ndarray, L: np.ndarray) -> tuple[float, float]:
    """(sum_ij Kc_ij Lc_ij, sum_{i != j} (Kc_ij Lc_ij)^2) with Kc = HKH, Lc = HLH."""
    mk, gk = _centring(K)
    ml, gl = _centring(L)
    rows = np.empty((K.shape[0], 2))
    _k.pick("centred_rows", K.shape[0])(K, L, mk, ml, gk, gl, rows)
    return float(rows[:, 0].sum()), float(rows[:, 1].sum())


def _hsic_unbiased(K: np.ndarray, L: np.ndarray) -> float:
    """Song et al. (2012), eq. (5): with Kt, Lt the Gram matrices with zero diagonal,
    [tr(Kt Lt) + 1'Kt1 1'Lt1 / ((n-1)(n-2)) - 2/(n-2) 1'Kt Lt 1] / (n (n - 3))."""
    n = K.shape[0]
    tr = np.empty(n)
    _k.pick("offdiag_rows", K.shape[0])(K, L, tr)
    rk = K.sum(axis=1) - np.diagonal(K)
    rl = L.sum(axis=1) - np.diagonal(L)
    val = tr.sum() + rk.sum() * rl.sum() / ((n - 1) * (n - 2)) - 2.0 / (n - 2) * float(rk @ rl)
    return float(val / (n * (n - 3)))


# ----------------------------------------------------------------------------------------------
# argument handling shared by the four functions
# ----------------------------------------------------------------------------------------------

def _variables(nan_policy, min_n: int, arrays: dict) -> tuple[list, int]:
    data, _ = as_indep_data(nan_policy, min_n=min_n, **arrays)
    values = list(data.values())
    return values, values[0].shape[0]


def _refuse_constant(values: list, names: list, what: str) -> None:
    for v, name in zip(values, names):
        if is_constant_sample(v):
            raise ValueError(f"{name} is constant (all observations equal): its kernel carries no information and "
                             f"{what} has no null distribution to compare with; remove it before testing")


def _data_name(names: list, B: int | None) -> str:
    base = " and ".join(names) if len(names) <= 2 else ", ".join(names[:-1]) + " and " + names[-1]
    return base if B is None else f"{base}, replicates {B}"


def _p_from_replicates(t: float, reps: np.ndarray) -> float:
    """The engine's (1 + #{T_b >= T}) / (B + 1), ties within TIE_RTOL."""
    return perm_pvalue(t, reps, alternative="greater")


def _kernel_threads(n_jobs):
    """numba's threads for the resampling kernels: ``n_jobs`` in joblib's convention (the one
    thread-control mechanism, ``statcore.utils.thread_limit``)."""
    import numba  # noqa: F401  (loaded first: thread_limit sets numba's pool once numba is loaded)

    from ..utils import effective_n_jobs, thread_limit

    return thread_limit(effective_n_jobs(n_jobs), pools="numba")


# ----------------------------------------------------------------------------------------------
# public: two variables
# ----------------------------------------------------------------------------------------------

@public_function(data=("x", "y"), nan_policy=("raise", "omit"))
def hsic(x, y, *, kernel="gaussian", bandwidth="median", estimator="biased", nan_policy="raise") -> float:
    """The Hilbert-Schmidt independence criterion of two samples, biased or unbiased.

    The biased estimator is the V-statistic HSIC_b = tr(K H L H) / n^2 of Gretton et al. (2005), with
    K, L the Gram matrices of x and y and H = I - 11'/n; it is 0 for independent samples only in the
    limit (its mean under independence is about tr(C_xx) tr(C_yy) / n). The unbiased estimator of
    Song et al. (2012), eq. (5), is

        HSIC_u = [tr(Kt Lt) + (1'Kt1)(1'Lt1) / ((n-1)(n-2)) - 2 / (n-2) 1'Kt Lt 1] / (n (n - 3)),

    with Kt, Lt the Gram matrices with a zero diagonal; it can be negative.

    Parameters
    ----------
    x, y : array_like
        Samples with one row per observation (a vector is one variable; an (n, p) matrix a
        p-dimensional one); the same n.
    kernel : {"gaussian", "laplace", "discrete"} or sequence of two
        The kernel of each variable (one name for both, or one per variable). "discrete" is
        1{x_i = x_j} (every coordinate equal), for categorical data.
    bandwidth : "median", float, or sequence of two
        The kernel scale s of each variable: "median" for the median heuristic (Gaussian
        ``s^2 = median |x_i - x_j|^2 / 2`` as R's dHSIC; Laplace ``s = median |x_i - x_j|``; see the module
        notes), or a positive number. The discrete kernel has none.
    estimator : {"biased", "unbiased"}
        The V-statistic of Gretton et al. (2005) or the U-statistic of Song et al. (2012), which
        needs n >= 4.
    nan_policy : {"raise", "omit"}
        "omit" drops the observations with a NaN in x or y.

    Returns
    -------
    float
        HSIC. A constant sample (all rows equal) has a centred Gram matrix of zeros: HSIC is 0, with a
        ``StatcoreWarning``.

    References
    ----------
    Gretton, A., Bousquet, O., Smola, A. & Scholkopf, B. (2005). Measuring statistical dependence with
    Hilbert-Schmidt norms. ALT 2005, 63-77.

    Song, L., Smola, A., Gretton, A., Bedo, J. & Borgwardt, K. (2012). Feature selection via
    dependence maximization. JMLR 13, 1393-1434.

    R package dHSIC (Pfister & Peters): ``dhsic`` (the biased estimator, with d = 2).

    Notes
    -----
    hyppo's ``Hsic().statistic`` is not HSIC but a kernel correlation: it equals
    ``hsic(x, y) / sqrt(hsic(x, x) hsic(y, y))`` with the unbiased estimator (its default
    ``bias=False``) and the square root of that ratio with the biased one (``bias=True``), when
    statcore is given hyppo's bandwidth, ``bandwidth=np.median(pdist(x))`` for both variables
    (hyppo takes x's median distance as the scale of both kernels).

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import hsic
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=200)
    >>> round(hsic(x, x ** 2 + 0.1 * rng.normal(size=200)), 4)
    0.0477
    >>> round(hsic(x, rng.normal(size=200), estimator="unbiased"), 4)
    -0.0003
    """
    estimator = check_choice(estimator, "estimator", ("biased", "unbiased"))
    kernels = check_kernels(kernel, 2)
    bws = check_bandwidths(bandwidth, kernels)
    (xa, ya), n = _variables(nan_policy, 4 if estimator == "unbiased" else 2, {"x": x, "y": y})
    for v, name in ((xa, "x"), (ya, "y")):
        if is_constant_sample(v):
            warn_constant(name, "HSIC", reason=_CONSTANT_REASON.split(";")[0])
            return 0.0
    K, _ = _gram(xa, kernels[0], bws[0])
    L, _ = _gram(ya, kernels[1], bws[1])
    if estimator == "unbiased":
        return _hsic_unbiased(K, L)
    s, _ = _hsic_b_parts(K, L)
    return s / (n * n)


def _gretton_gamma(K: np.ndarray, L: np.ndarray, sum_kl: float, sum_sq: float) -> dict:
    """The gamma null of n HSIC_b (Gretton et al. 2008, section 3): mean and variance of HSIC_b

        E = (1 + mu_x mu_y - mu_x - mu_y) / n,   mu_x = sum_{i != j} K_ij / (n (n - 1)),
        Var = 2 (n - 4)(n - 5) / (n)_4 * sum_{i != j} (Kc_ij Lc_ij)^2 / (n (n - 1)),

    (Kc = HKH), and the gamma law with shape E^2 / Var and scale n Var / E."""
    n = K.shape[0]
    mu_x = (K.sum() - np.trace(K)) / (n * (n - 1))
    mu_y = (L.sum() - np.trace(L)) / (n * (n - 1))
    mean = (1.0 + mu_x * mu_y - mu_x - mu_y) / n
    var = 2.0 * (n - 4) * (n - 5) / (n * (n - 1.0) * (n - 2) * (n - 3)) * sum_sq / (n * (n - 1.0))
    return {"mean": float(mean), "var": float(var)}


def _gamma_p(stat: float, mean: float, var: float, n: int) -> tuple[float, float, float]:
    """shape, scale and the upper tail of the gamma law with mean n * mean and variance n^2 var."""
    from scipy import stats

    if not (np.isfinite(mean) and np.isfinite(var) and mean > 0 and var > 0):
        raise ValueError(f"the gamma null is degenerate here (mean {show_value(mean)}, variance {show_value(var)} of HSIC under "
                         "independence): use method='permutation'")
    shape = mean * mean / var
    scale = n * var / mean
    return shape, scale, float(stats.gamma.sf(stat, shape, scale=scale))


@public_function(data=("x", "y"), nan_policy=("raise", "omit"), formula=dict(lhs="y", rhs="x", cond=None))
def hsic_test(x, y=None, *, method="gamma", B=999, kernel="gaussian", bandwidth="median", seed=None,
              nan_policy="raise", approx=None, n_features=100, progress=None, n_jobs=1, data=None) -> HTest:
    """Kernel test of independence of two samples based on HSIC (Gretton et al. 2008).

    The statistic is n * HSIC_b (as R dHSIC's ``dhsic.test``), with HSIC_b the biased estimator of
    :func:`hsic`; large values are evidence of dependence. Its null distribution is:

    - ``method="gamma"`` (default): the gamma law matched to the null mean and variance of Gretton et
      al. (2008), E = (1 + mu_x mu_y - mu_x - mu_y) / n with mu_x the mean off-diagonal Gram entry,
      and Var = 2 (n - 4)(n - 5) / (n)_4 * sum_{i != j} (Kc_ij Lc_ij)^2 / (n (n - 1)) with Kc = HKH
      (shape E^2 / Var, scale n Var / E). Fast (the Gram matrices are computed once) but
      approximate: see the warning below.
    - ``method="permutation"``: B random permutations of y's rows, reusing the centred Gram matrix;
      p = (1 + #{T_b >= T}) / (B + 1), exact at every n (a T_b within a relative 1e-9 of T counts
      as a tie, the engine's ``TIE_RTOL``: the ties of discrete data differ in the last bits).

    For large n, ``approx="rff"`` (random Fourier features, Gaussian or Laplace kernel) or
    ``approx="nystrom"`` (Nystrom features from ``n_features`` random landmark rows, any kernel)
    replaces the Gram matrices by ``n_features``-dimensional feature maps (Zhang et al. 2018): the
    statistic is n ||C_xy||_F^2 of the centred feature cross-covariance (n * HSIC_b of the
    approximate Gram matrices), its cost O(n n_features^2); the median heuristic then runs on a
    subsample of 1000 rows drawn with ``seed`` (all rows when n <= 1000). Its null is calibrated
    from the features: ``method="gamma"`` (default) is the gamma null above applied to the
    approximate Gram matrices (mean tr(C_xx) tr(C_yy) with the feature covariances C (divisor
    n - 1); in the variance, sum_{i != j} (Kc_ij Lc_ij)^2 / (n (n - 1)) is replaced by the product of
    the two off-diagonal means of Kc_ij^2 and Lc_ij^2, its expectation under independence, which the
    features give in O(n n_features^2)); ``method="spectral"`` evaluates exactly (Imhof 1961) the
    tail of the limit law sum_ij lambda_i eta_j z_ij^2 of n ||C_xy||_F^2, lambda and eta the
    eigenvalues of C_xx and C_yy; ``method="permutation"`` permutes the rows of y's features.

    Parameters
    ----------
    x, y : array_like
        Samples with one row per observation (vector or (n, p) matrix); the same n.
    method : {"gamma", "permutation"}, or with ``approx`` also "spectral"
        How the null distribution is obtained (see above).
    B : int
        Permutations for ``method="permutation"`` (ignored otherwise).
    kernel : {"gaussian", "laplace", "discrete"} or sequence of two
        Each variable's kernel (see :func:`hsic`). ``approx="rff"`` takes "gaussian" and "laplace".
    bandwidth : "median", float, or sequence of two
        Each variable's kernel scale (see :func:`hsic`).
    seed : None, int or numpy.random.Generator
        Randomness of the permutations, of the random features and of the median subsample.
    nan_policy : {"raise", "omit"}
        "omit" drops the observations with a NaN in x or y.
    approx : {None, "rff", "nystrom"}
        None: the exact O(n^2) test. "rff" or "nystrom": the linear-cost approximation.
    n_features : int
        The dimension of each variable's feature map under ``approx`` (default 100: 50 random
        frequencies with a cosine and a sine each for "rff", which needs an even number; 100
        landmark rows for "nystrom", at most n).
    progress : bool, optional
        ``method="permutation"``: a progress bar (tqdm) over the permutations, advancing per batch
        of permutations. Default (None): only when standard error is a terminal.
    n_jobs : int
        Threads of the compiled resampling kernels (joblib's convention: -1 all cores); the p-value
        does not depend on it.
    data : pandas.DataFrame, optional
        With a formula in place of ``x``: the table holding its columns.
        ``hsic_test("y ~ x", data=df)`` is
        ``hsic_test(x, y)``.
        Categorical columns expand to R's treatment-contrast dummies; missing values follow
        ``nan_policy``; the result equals the array call on the formula's columns (docs/conventions.md,
        "Formulas").

    Returns
    -------
    HTest
        ``statistic`` n * HSIC_b (named "n*HSIC"), ``estimate`` {"HSIC": HSIC_b}, ``p_value``; no
        ``parameter`` (R's dhsic.test reports none). ``extras``: ``n``, ``kernel``, ``bandwidth``
        (the scales used; NaN for the discrete kernel), and for the gamma null ``shape``, ``scale``,
        ``null_mean``, ``null_var`` (of n * HSIC); for permutations ``replicates`` (the B permuted
        statistics); under ``approx`` also ``approx``, ``n_features``.

    Warnings
    --------
    The gamma null is an approximation (two moments of an infinite weighted sum of chi-squares),
    close to the level in the size study (Gaussian, heavy-tailed and discrete designs, n from 30
    to 1000), slightly liberal at worst with heavy tails; the spectral null of the approximate test
    is a large-n law, conservative at small n. ``method="permutation"`` is exact at every n. A
    constant sample is refused (its HSIC is 0 whatever the other sample is). Measured sizes:
    ``benchmarks/README.md``, section "indep".

    References
    ----------
    Gretton, A., Fukumizu, K., Teo, C. H., Song, L., Scholkopf, B. & Smola, A. J. (2008). A kernel
    statistical test of independence. NIPS 20, 585-592.

    Zhang, Q., Filippi, S., Gretton, A. & Sejdinovic, D. (2018). Large-scale kernel methods for
    independence testing. Statistics and Computing 28, 113-130.

    Rahimi, A. & Recht, B. (2007). Random features for large-scale kernel machines. NIPS 20.

    Imhof, J. P. (1961). Computing the distribution of quadratic forms in normal variables.
    Biometrika 48, 419-426.

    R package dHSIC (Pfister & Peters): ``dhsic.test`` (statistic n * HSIC; its gamma method follows
    Pfister et al. 2018, see :func:`dhsic_test`, and differs slightly from Gretton et al.'s for
    d = 2).

    Notes
    -----
    hyppo's ``Hsic().test`` (with ``auto=True`` and n > 20) is a different test: its statistic is a
    kernel correlation (see :func:`hsic`) and its p-value ``chi2.sf(n * stat + 1, 1)``; statcore does
    not offer it.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import hsic_test
    >>> rng = np.random.default_rng(1)
    >>> x = rng.normal(size=300)
    >>> y = np.cos(2 * x) + 0.5 * rng.normal(size=300)
    >>> res = hsic_test(x, y)
    >>> res.p_value < 1e-6
    True
    >>> z = np.random.default_rng(3).normal(size=300)
    >>> print(hsic_test(x, z, method="permutation", B=199, seed=2).summary().strip())
    HSIC test of independence (permutation test)
    <BLANKLINE>
    data:  x and y, replicates 199
    n*HSIC = 0.30848, p-value = 0.46
    sample estimates:
           HSIC 
    0.001028261
    >>> big = rng.normal(size=(20_000, 2))
    >>> hsic_test(big[:, 0], big[:, 1], approx="rff", seed=3).p_value > 0.01
    True
    """
    if approx is not None:
        approx = check_choice(approx, "approx", ("rff", "nystrom"))
    methods = ("gamma", "permutation") if approx is None else ("gamma", "spectral", "permutation")
    if approx is None and method == "spectral":
        raise ValueError("method='spectral' is the null of the approximate test; pass approx='rff' or "
                         "approx='nystrom' with it, or use method='gamma' or 'permutation'")
    method = check_choice(method, "method", methods)
    B = check_positive_int(B, "B")
    n_features = check_positive_int(n_features, "n_features", minimum=2)
    kernels = check_kernels(kernel, 2)
    bws = check_bandwidths(bandwidth, kernels)
    if approx == "rff":
        for i, k in enumerate(kernels):
            if k == "discrete":
                raise ValueError(f"kernel[{i}] = 'discrete' has no random Fourier features; use approx='nystrom' "
                                 "for the discrete kernel")
        if n_features % 2:
            raise ValueError(f"n_features must be even for approx='rff' (a cosine and a sine per random "
                             f"frequency), got {n_features}")
    rng = check_seed(seed)
    progress = check_progress(progress)
    n_jobs = check_n_jobs(n_jobs)
    min_n = 6 if method == "gamma" else 4
    (xa, ya), n = _variables(nan_policy, min_n, {"x": x, "y": y})
    _refuse_constant([xa, ya], ["x", "y"], "an independence test")
    kernel_out = tuple(kernels)
    if approx is not None:
        return _hsic_test_approx(xa, ya, n, method, B, kernels, bws, rng, approx, n_features, progress)

    K, sx = _gram(xa, kernels[0], bws[0])
    L, sy = _gram(ya, kernels[1], bws[1])
    extras = {"n": n, "kernel": kernel_out, "bandwidth": (sx, sy)}
    if method == "gamma":
        sum_kl, sum_sq = _hsic_b_parts(K, L)
        h = sum_kl / (n * n)
        null = _gretton_gamma(K, L, sum_kl, sum_sq)
        shape, scale, p = _gamma_p(n * h, null["mean"], null["var"], n)
        extras.update(shape=shape, scale=scale, null_mean=n * null["mean"], null_var=n * n * null["var"])
        label, data_b = "gamma approximation", None
    else:
        mk, gk = _centring(K)
        K -= mk[:, None]
        K -= mk[None, :]
        K += gk
        del mk
        with _kernel_threads(n_jobs):
            reps = _hsic_perm_replicates(K, L, B, rng, progress)
        h = reps[0] / (n * n)
        reps = n * reps[1:] / (n * n)
        p = _p_from_replicates(n * h, reps)
        extras["replicates"] = reps
        label, data_b = "permutation test", B
    return HTest(statistic=float(n * h), statistic_name="n*HSIC", p_value=float(p),
                 method=f"HSIC test of independence ({label})", data_name=_data_name(["x", "y"], data_b),
                 estimate={"HSIC": float(h)}, alternative=None, extras=extras)


def _hsic_perm_replicates(Kc: np.ndarray, L: np.ndarray, B: int, rng: np.random.Generator,
                          progress: bool | None = False) -> np.ndarray:
    """sum_ij Kc_ij L[pi_i, pi_j] for the identity (first) and B random permutations, drawn in order
    from ``rng``; the engine (``statcore._resampling.run_stream``) owns the loop and the chunks."""
    n = Kc.shape[0]
    ident = np.arange(n, dtype=np.int64)[None, :]
    first = np.empty(1)
    _k.pick("perm_stats", n, 1)(Kc, L, ident, first)
    parts = run_stream(PermutationDraw(n), _PermStats(Kc, L), B, rng=rng, bytes_per_resample=8.0 * n,
                       progress=progress, desc="permutations", unit="perm")
    return np.concatenate([first, *parts])


class _PermStats:
    def __init__(self, Kc, L):
        self.Kc, self.L = Kc, L

    def __call__(self, perms: np.ndarray) -> np.ndarray:
        out = np.empty(perms.shape[0])
        _k.pick("perm_stats", self.Kc.shape[0], perms.shape[0])(self.Kc, self.L, np.ascontiguousarray(perms), out)
        return out


def _hsic_test_approx(xa, ya, n, method, B, kernels, bws, rng, approx, n_features, progress=False) -> HTest:
    if approx == "nystrom" and n_features > n:
        raise ValueError(f"n_features = {n_features} landmark rows for approx='nystrom' but there are only {n} "
                         "observations; pass n_features <= n")
    feats, scales = [], []
    for name, v, k, b in (("x", xa, kernels[0], bws[0]), ("y", ya, kernels[1], bws[1])):
        if k == "discrete":
            sigma = None
        elif b == "median":
            sigma = _approx_median(v, k, rng, name)
        else:
            sigma = float(b)
        scales.append(float("nan") if sigma is None else sigma)
        make = _approx.rff_features if approx == "rff" else _approx.nystrom_features
        if sigma is not None:  # the features depend on v / sigma only: both by a power of two near v's size
            unit = float(pow2_scale(v, axis=None, center=np.median(v, axis=0), robust=True))
            v, sigma = np.ascontiguousarray(v / unit), sigma / unit
        feats.append(make(v, k, sigma, n_features, rng))
    fx, fy = feats
    gx = gy = None
    if method != "permutation":
        gx, gy = _approx.gram_side(fx), _approx.gram_side(fy)
    t = _approx.feature_statistic(fx, fy, gx, gy)
    extras = {"n": n, "kernel": tuple(kernels), "bandwidth": tuple(scales), "approx": approx,
              "n_features": n_features}
    what = "random Fourier features" if approx == "rff" else "Nystrom features"
    data_b = None
    if method == "permutation":
        reps = _approx.feature_perm_stats(fx, fy, B, rng, progress)
        p = _p_from_replicates(t, reps)
        extras["replicates"] = reps
        label, data_b = "permutation test", B
    else:
        if method == "gamma":
            mean, var = _approx.feature_gamma_moments(fx, fy, gx, gy)
            shape, scale, p = _gamma_p(t, mean / n, var / (n * n), n)
            extras.update(shape=shape, scale=scale, null_mean=mean, null_var=var)
            label = "gamma approximation"
        else:
            lx, ly = _approx.feature_null(gx, gy, n)
            p = _approx.weighted_chisq_sf(t, np.multiply.outer(lx, ly).ravel())
            extras.update(eigen_x=lx, eigen_y=ly)
            label = "spectral null"
    return HTest(statistic=float(t), statistic_name="n*HSIC", p_value=float(p),
                 method=f"HSIC test of independence ({what}, {n_features} features; {label})",
                 data_name=_data_name(["x", "y"], data_b), estimate={"HSIC": float(t / n)}, alternative=None,
                 extras=extras)


def _approx_median(v: np.ndarray, kernel: str, rng: np.random.Generator, name: str = "x") -> float:
    """The median heuristic on a subsample of ``MEDIAN_SUBSAMPLE`` rows (all rows when n is smaller), on
    the rows brought to order 1 by a power of two (squared distances of 1e-300 underflow), scaled back."""
    n = v.shape[0]
    sub = v
    if n > MEDIAN_SUBSAMPLE:
        sub = np.ascontiguousarray(v[np.sort(rng.choice(n, MEDIAN_SUBSAMPLE, replace=False))])
    unit = float(pow2_scale(sub, axis=None, center=np.median(sub, axis=0), robust=True))
    sq = _pairs_sq(np.ascontiguousarray(sub / unit))
    if not np.any(sq > 0):  # every subsampled row equal although the sample is not constant
        raise ValueError(f"{name}: the median heuristic's subsample of 1000 rows is constant although the sample is "
                         "not (a variable with almost all values equal); pass a numeric bandwidth, or use approx=None")
    return _median_sigma(sq, kernel) * unit
