"""dHSIC: ``dhsic`` and ``dhsic_test``, the joint independence of d variables (Pfister, Buhlmann,
Scholkopf & Peters 2018), as R's dHSIC; the kernels, the median heuristic and the shared helpers are
``_hsic``'s (its module docstring states the bandwidth rules)."""
from __future__ import annotations

import numpy as np

from .._checks import (check_bandwidths, check_choice, check_kernels, check_n_jobs, check_positive_int, check_progress,
                       check_seed, is_constant_sample, warn_constant)
from .._resampling import run_stream
from .._result import HTest
from ._hsic import (_CONSTANT_REASON, _data_name, _gamma_p, _gram, _k, _kernel_threads, _p_from_replicates,
                    _refuse_constant, _variables)

__all__ = ["dhsic", "dhsic_test"]


# ----------------------------------------------------------------------------------------------
# public: d variables
# ----------------------------------------------------------------------------------------------

def _dhsic_inputs(variables: tuple, kernel, bandwidth, nan_policy, min_n: int, func: str):
    d = len(variables)
    if d < 2:
        raise ValueError(f"{func} needs at least 2 variables (passed as separate arguments: "
                         f"{func}(x1, x2, ...)); got {d}")
    kernels = check_kernels(kernel, d)
    bws = check_bandwidths(bandwidth, kernels)
    names = [f"variables[{i}]" for i in range(d)]
    values, n = _variables(nan_policy, min_n, dict(zip(names, variables)))
    return values, n, kernels, bws, names


def _gram_stack(values, kernels, bws) -> tuple[np.ndarray, tuple]:
    n = values[0].shape[0]
    Ks = np.empty((len(values), n, n))
    scales = []
    for i, (v, k, b) in enumerate(zip(values, kernels, bws)):
        G, s = _gram(v, k, b)
        Ks[i] = G
        scales.append(s)
    return Ks, tuple(scales)


def _dhsic_value(Ks: np.ndarray) -> float:
    """dHSIC = sum_ij prod_k K_k[i, j] / n^2 + prod_k (sum K_k / n^2) - 2/n sum_i prod_k (K_k 1)_i / n
    (Pfister et al. 2018, eq. (3.3))."""
    d, n, _ = Ks.shape
    rows = np.empty((n, d + 1))
    _k.pick("dhsic_rows", n)(Ks, rows)
    term1 = rows[:, 0].sum() / (n * n)
    term2 = float(np.prod(rows[:, 1:].sum(axis=0) / (n * n)))
    term3 = 2.0 / n * float(np.prod(rows[:, 1:] / n, axis=1).sum())
    return float(term1 + term2 - term3)


def dhsic(*variables, kernel="gaussian", bandwidth="median", nan_policy="raise") -> float:
    """The d-variable Hilbert-Schmidt independence criterion dHSIC (Pfister et al. 2018), as R's
    ``dHSIC::dhsic``.

    The squared RKHS distance between the embedding of the joint law and that of the product of the
    marginals, estimated by the V-statistic

        dHSIC = 1/n^2 sum_ij prod_k K_k[i, j] + prod_k (1/n^2 sum_ij K_k[i, j])
                - 2/n sum_i prod_k (1/n sum_j K_k[i, j]),

    with K_k the Gram matrix of the k-th variable. For d = 2 it is :func:`hsic` (biased) exactly.

    Parameters
    ----------
    *variables : array_like
        d >= 2 samples (vectors or (n, p_k) matrices, one row per observation), the same n.
    kernel : {"gaussian", "laplace", "discrete"} or sequence of d
        One kernel for all variables, or one per variable (see :func:`hsic`).
    bandwidth : "median", float, or sequence of d
        The kernel scales (see :func:`hsic`; "median" per variable).
    nan_policy : {"raise", "omit"}
        "omit" drops the observations with a NaN in any variable.

    Returns
    -------
    float
        dHSIC. A constant variable is independent of the others; dHSIC then measures the joint
        dependence of the others (0 for d = 2), with a ``StatcoreWarning``.

    References
    ----------
    Pfister, N., Buhlmann, P., Scholkopf, B. & Peters, J. (2018). Kernel-based tests for joint
    independence. Journal of the Royal Statistical Society B 80, 5-31.

    R package dHSIC: ``dhsic``.

    Notes
    -----
    hyppo's ``dHsic().statistic`` computes the same V-statistic but with the first variable's median
    distance as the Gaussian scale of every variable (pass that number as ``bandwidth`` to match).

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import dhsic
    >>> rng = np.random.default_rng(0)
    >>> a, b = rng.integers(0, 2, size=(2, 400))
    >>> c = (a ^ b) + 0.3 * rng.normal(size=400)   # pairwise independent, jointly dependent
    >>> round(dhsic(a, b, c, kernel=["discrete", "discrete", "gaussian"]), 4)
    0.0692
    """
    values, n, kernels, bws, names = _dhsic_inputs(variables, kernel, bandwidth, nan_policy, 2, "dhsic")
    for v, name in zip(values, names):
        if is_constant_sample(v):
            warn_constant(name, "its factor of dHSIC", reason=_CONSTANT_REASON)
            if len(values) == 2:
                return 0.0
    Ks, _ = _gram_stack(values, kernels, bws)
    return _dhsic_value(Ks)


def _falling(a: int, k: int) -> float:
    out = 1.0
    for j in range(k):
        out *= a - j
    return out


def _dhsic_gamma(Ks: np.ndarray) -> dict:
    """The gamma null of n dHSIC (Pfister et al. 2018, section 4.3, kernels with k(x, x) = 1): with
    a_k = sum K_k / n^2, b_k = sum K_k^2 / n^2 (entrywise squares), c_k = sum_i (K_k 1)_i^2 / n^3,

        E(dHSIC) = [1 - sum_k prod_{l != k} a_l + (d - 1) prod_l a_l] / n,
        Var(dHSIC) = 2 (n - 2d)_(2d-2) / (n)_(2d) * [prod b + (d-1)^2 prod a^2 + 2 (d-1) prod c
                     + sum_r b_r prod_{l != r} a_l^2 - 2 sum_r b_r prod_{l != r} c_l
                     - 2 (d-1) sum_r c_r prod_{l != r} a_l^2 + 2 sum_{r < s} c_r c_s prod_{l != r, s} a_l^2],

    ((m)_k the falling factorial); for d = 2 the bracket is prod_k (b_k - 2 c_k + a_k^2)."""
    d, n, _ = Ks.shape
    a = Ks.sum(axis=(1, 2)) / n**2
    b = np.einsum("kij,kij->k", Ks, Ks) / n**2
    rs = Ks.sum(axis=2)
    c = (rs * rs).sum(axis=1) / n**3

    def prod_except(v, *skip):
        return float(np.prod([v[l] for l in range(d) if l not in skip]))

    a2 = a * a
    mean = (1.0 - sum(prod_except(a, k) for k in range(d)) + (d - 1) * float(np.prod(a))) / n
    bracket = (float(np.prod(b)) + (d - 1) ** 2 * float(np.prod(a2)) + 2 * (d - 1) * float(np.prod(c))
               + sum(b[r] * prod_except(a2, r) for r in range(d))
               - 2 * sum(b[r] * prod_except(c, r) for r in range(d))
               - 2 * (d - 1) * sum(c[r] * prod_except(a2, r) for r in range(d))
               + 2 * sum(c[r] * c[s] * prod_except(a2, r, s) for r in range(d) for s in range(r + 1, d)))
    var = 2.0 * _falling(n - 2 * d, 2 * d - 2) / _falling(n, 2 * d) * bracket
    return {"mean": float(mean), "var": float(var)}


def dhsic_test(*variables, method="gamma", B=999, kernel="gaussian", bandwidth="median", seed=None,
               nan_policy="raise", progress=None, n_jobs=1) -> HTest:
    """Test of joint independence of d >= 2 variables based on dHSIC (Pfister et al. 2018), as R's
    ``dHSIC::dhsic.test``.

    The statistic is n * dHSIC (:func:`dhsic`). Its null distribution is:

    - ``method="gamma"`` (default): the gamma law matched to the null mean and variance of Pfister et
      al. (2018, section 4.3), as dhsic.test's "gamma" (formulas in the Notes). Fast, approximate.
    - ``method="permutation"``: variables 2..d each permuted independently, B times (the first is
      kept, as in dhsic.test); p = (1 + #{T_b >= T}) / (B + 1), exact at every n.
    - ``method="bootstrap"``: variables 2..d each resampled with replacement, B times (the first is
      kept, as in dhsic.test); p as above, valid as n grows.

    Parameters
    ----------
    *variables : array_like
        d >= 2 samples (vectors or (n, p_k) matrices, one row per observation), the same n.
    method : {"gamma", "permutation", "bootstrap"}
        How the null distribution is obtained.
    B : int
        Replicates for "permutation" and "bootstrap" (ignored by "gamma").
    kernel : {"gaussian", "laplace", "discrete"} or sequence of d
        One kernel for all variables, or one per variable (see :func:`hsic`).
    bandwidth : "median", float, or sequence of d
        The kernel scales (see :func:`hsic`).
    seed : None, int or numpy.random.Generator
        Randomness of the permutations and bootstrap draws.
    nan_policy : {"raise", "omit"}
        "omit" drops the observations with a NaN in any variable.
    progress : bool, optional
        ``method="permutation"`` or ``"bootstrap"``: a progress bar (tqdm) over the resamples,
        advancing per batch. Default (None): only when standard error is a terminal.
    n_jobs : int
        Threads of the compiled resampling kernels (joblib's convention: -1 all cores); the p-value
        does not depend on it.

    Returns
    -------
    HTest
        ``statistic`` n * dHSIC (named "n*dHSIC"), ``estimate`` {"dHSIC": dHSIC}, ``p_value``;
        ``extras``: ``n``, ``d``, ``kernel``, ``bandwidth`` (the scales used), and ``shape``,
        ``scale``, ``null_mean``, ``null_var`` (of n * dHSIC) for the gamma null or ``replicates`` for
        the resampling ones.

    Warnings
    --------
    The gamma approximation is loose at small n: with d = 3 it rejects too often at n = 30 and
    n = 200 (measured sizes: ``benchmarks/README.md``, section "indep"); use
    ``method="permutation"`` at small n. For d = 2 it is not Gretton et al.'s gamma null of
    :func:`hsic_test` (the mean and variance are estimated by V-statistics: the mean here is
    ((n - 1) / n)^2 times Gretton's), so the two p-values differ slightly. Constant variables are
    refused.

    References
    ----------
    Pfister, N., Buhlmann, P., Scholkopf, B. & Peters, J. (2018). Kernel-based tests for joint
    independence. Journal of the Royal Statistical Society B 80, 5-31.

    R package dHSIC: ``dhsic.test`` (its "eigenvalue" method is not offered here; R's dHSIC is not
    on Debian and could not be run for a comparison: the formulas of its documentation and paper are
    the reference).

    Notes
    -----
    With a_k = sum K_k / n^2, b_k = sum K_k^2 / n^2 and c_k = sum_i (K_k 1)_i^2 / n^3 for the Gram
    matrices K_k (unit diagonal), E(dHSIC) = [1 - sum_k prod_{l != k} a_l + (d - 1) prod_l a_l] / n and
    Var(dHSIC) = 2 (n - 2d)_(2d-2) / (n)_(2d) * Q(a, b, c), Q the polynomial of Pfister et al.
    (section 4.3); for d = 2, Q = prod_k (b_k - 2 c_k + a_k^2). Shape E^2 / Var, scale n Var / E.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import dhsic_test
    >>> rng = np.random.default_rng(0)
    >>> a, b = rng.integers(0, 2, size=(2, 400))
    >>> c = (a ^ b) + 0.3 * rng.normal(size=400)
    >>> res = dhsic_test(a, b, c, kernel=["discrete", "discrete", "gaussian"])
    >>> res.p_value < 1e-6
    True
    >>> dhsic_test(a, b, kernel="discrete", method="permutation", B=99, seed=1).p_value > 0.05
    True
    """
    method = check_choice(method, "method", ("gamma", "permutation", "bootstrap"))
    B = check_positive_int(B, "B")
    rng = check_seed(seed)
    progress = check_progress(progress)
    n_jobs = check_n_jobs(n_jobs)
    d = len(variables)
    min_n = 4 * d - 2 if method == "gamma" else 2 * d
    values, n, kernels, bws, names = _dhsic_inputs(variables, kernel, bandwidth, nan_policy, min_n, "dhsic_test")
    _refuse_constant(values, names, "a joint independence test")
    Ks, scales = _gram_stack(values, kernels, bws)
    extras = {"n": n, "d": d, "kernel": tuple(kernels), "bandwidth": scales}
    if method == "gamma":
        value = _dhsic_value(Ks)
        null = _dhsic_gamma(Ks)
        shape, scale, p = _gamma_p(n * value, null["mean"], null["var"], n)
        extras.update(shape=shape, scale=scale, null_mean=n * null["mean"], null_var=n * n * null["var"])
        label, data_b = "gamma approximation", None
    else:
        with _kernel_threads(n_jobs):
            reps = _dhsic_resample(Ks, B, rng, bootstrap=(method == "bootstrap"), progress=progress)
        value = float(reps[0])
        reps = n * reps[1:]
        p = _p_from_replicates(n * value, reps)
        extras["replicates"] = reps
        label, data_b = ("permutation test" if method == "permutation" else "bootstrap test"), B
    return HTest(statistic=float(n * value), statistic_name="n*dHSIC", p_value=float(p),
                 method=f"dHSIC test of joint independence ({label})", data_name=_data_name(names, data_b),
                 estimate={"dHSIC": float(value)}, alternative=None, extras=extras)


def _dhsic_resample(Ks: np.ndarray, B: int, rng: np.random.Generator, *, bootstrap: bool,
                    progress: bool | None = False) -> np.ndarray:
    """dHSIC of the data (first) and of B resamples (variables 2..d permuted or bootstrapped), drawn
    in order from ``rng``; the engine (``statcore._resampling.run_stream``) owns the loop."""
    d, n, _ = Ks.shape
    first = np.empty(1)
    ident = np.tile(np.arange(n, dtype=np.int64), (1, d, 1))
    _k.pick("dhsic_replicates", n, d)(Ks, ident, first)
    parts = run_stream(_DHSICDraw(n, d, bootstrap), _DHSICStats(Ks), B, rng=rng, bytes_per_resample=8.0 * n * d,
                       progress=progress, desc="bootstrap" if bootstrap else "permutations", unit="resample")
    return np.concatenate([first, *parts])


class _DHSICDraw:
    def __init__(self, n: int, d: int, bootstrap: bool):
        self.n, self.d, self.bootstrap = n, d, bootstrap

    def __call__(self, rng: np.random.Generator, c: int) -> np.ndarray:
        idx = np.tile(np.arange(self.n, dtype=np.int64), (c, self.d, 1))
        if self.bootstrap:
            idx[:, 1:, :] = rng.integers(0, self.n, size=(c, self.d - 1, self.n))
        else:
            idx[:, 1:, :] = rng.permuted(idx[:, 1:, :], axis=2)
        return idx


class _DHSICStats:
    def __init__(self, Ks):
        self.Ks = Ks

    def __call__(self, idx: np.ndarray) -> np.ndarray:
        out = np.empty(idx.shape[0])
        _k.pick("dhsic_replicates", self.Ks.shape[1], idx.shape[0] * self.Ks.shape[0])(self.Ks, idx, out)
        return out
