"""Newton's predictive recursion for the mixing distribution of a Gaussian location mixture."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._checks import check_seed, pow2_scale, predictive_recursion_inputs
from .._checks.public import public_function
from .._result import Result
from .._r.rformat import format_number, format_table
from ._mixture import make_grid, mixture_loglik, mixture_pdf

__all__ = ["predictive_recursion", "PredictiveRecursionResult"]


@dataclass(frozen=True, eq=False, repr=False)
class PredictiveRecursionResult(Result):
    """The predictive-recursion estimate of a mixing distribution on a grid.

    Attributes
    ----------
    grid : ndarray
        The atoms.
    weights : ndarray
        Mixing weights on ``grid`` (sum 1), averaged over the ``sweeps`` random orders.
    kernel_sd : float
        Standard deviation of the Gaussian kernel.
    loglik : float
        Log-likelihood of the data under the fitted mixture, sum_i log pdf(x_i).
    predictive_loglik : float
        Mean over the orders of Newton's predictive log-likelihood sum_k log m_{k-1}(x_(k)).
    sweeps, decay, nobs
        Number of random orders, the exponent of the weights (k + 1)^(-decay), number of observations.
    weights_by_order : ndarray
        (sweeps, len(grid)): the estimate of each order before averaging.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore.ebayes import predictive_recursion
    >>> x = np.random.default_rng(0).normal(size=50)
    >>> fit = predictive_recursion(x, kernel_sd=1.0, grid=11, sweeps=2, seed=0)
    >>> fit
    PredictiveRecursionResult(nobs=50, grid=11, kernel_sd=1, sweeps=2, loglik=-68.24)
    >>> fit.to_frame().shape
    (11, 2)
    """

    grid: np.ndarray
    weights: np.ndarray
    kernel_sd: float
    loglik: float
    predictive_loglik: float
    sweeps: int
    decay: float
    nobs: int
    weights_by_order: np.ndarray

    def _repr_parts(self):
        return [("nobs", self.nobs), ("grid", int(self.grid.size)), ("kernel_sd", self.kernel_sd),
                ("sweeps", self.sweeps), ("loglik", self.loglik)]

    def pdf(self, y: Any) -> Any:
        """The estimated mixture density sum_j w_j N(y; grid_j, kernel_sd^2) at ``y``."""
        return mixture_pdf(y, self.grid, self.weights, self.kernel_sd)

    def mean(self) -> float:
        """Mean of the mixing distribution."""
        return float(self.weights @ self.grid)

    def summary(self) -> str:
        mean = self.mean()
        sd = float(np.sqrt(max(self.weights @ (self.grid - mean) ** 2, 0.0)))
        stats = format_table(["mixing distribution"],
                             {"mean": [mean], "sd": [sd],
                              "min atom": [float(self.grid[0])], "max atom": [float(self.grid[-1])]})
        return ("\n\tPredictive recursion (Newton 2002), Gaussian kernel\n\n"
                f"observations: {self.nobs}, grid: {self.grid.size} atoms, kernel sd: "
                f"{format_number(self.kernel_sd)}\n"
                f"random orders: {self.sweeps}, weights (k + 1)^-{format_number(self.decay)}\n"
                f"log-likelihood: {format_number(self.loglik)}\n\n" + stats + "\n")

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame({"atom": self.grid, "weight": self.weights})

    def _plot(self, ax=None, data=None):
        """The estimated mixture and mixing densities (over a histogram of ``data`` when given);
        returns the Axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            fig, ax = plt.subplots(figsize=(6, 4), layout="constrained")
        if data is not None:
            ax.hist(np.asarray(data, dtype=float), bins=50, density=True, color="0.85", label="data")
        pad = 3 * self.kernel_sd
        ys = np.linspace(self.grid[0] - pad, self.grid[-1] + pad, 400)
        ax.plot(ys, self.pdf(ys), "k-", label="mixture density")
        step = float(np.median(np.diff(self.grid))) if self.grid.size > 1 else 1.0
        ax.plot(self.grid, self.weights / step, color="C0", lw=1, label="mixing density")
        ax.set_xlabel("x")
        ax.set_ylabel("density")
        ax.set_title("Predictive recursion estimate", fontsize=10)
        ax.legend(frameon=False)
        return ax


@public_function(data=("x",), nan_policy=("raise", "omit"))
def predictive_recursion(x: Any, *, kernel_sd: float, grid: Any, sweeps: int = 10, seed: Any = None,
                         decay: float = 0.67, nan_policy: str = "raise") -> PredictiveRecursionResult:
    """Newton's predictive recursion estimate of a mixing distribution, averaged over random orders.

    The data are modelled as x_i ~ sum_j w_j N(grid_j, kernel_sd^2). Starting from uniform weights
    on the grid, each observation in turn updates them,

        w_j <- (1 - gamma_k) w_j + gamma_k w_j N(x_(k); grid_j, kernel_sd^2) / m_{k-1}(x_(k)),

    with m_{k-1}(y) = sum_j w_j N(y; grid_j, kernel_sd^2) the current predictive density and
    gamma_k = (k + 1)^(-decay) (decay in (1/2, 1]; Tokdar, Martin & Ghosh 2009 show consistency).
    The estimate depends on the order of the data; it is averaged over ``sweeps`` random orders
    (Newton 2002), as Tosh, Zhang & Tansey (2025) do for the noise density of causal two-groups.

    Parameters
    ----------
    x : array_like
        Observations (a vector).
    kernel_sd : float
        Standard deviation of the Gaussian kernel.
    grid : int or array_like
        Number of equally spaced atoms over the range of ``x``, or the atoms themselves.
    sweeps : int
        Number of random orders averaged. Order s is the s-th ``rng.permutation(n)`` drawn from
        the generator built from ``seed``.
    seed : None, int or numpy.random.Generator
        Randomness of the orders.
    decay : float
        Exponent of the weights gamma_k = (k + 1)^(-decay), in (0.5, 1].
    nan_policy : {"raise", "omit"}
        Missing values in ``x``: "raise" (the default) refuses them, "omit" drops them (``nobs``
        counts the observations kept). "propagate" is not offered.

    Returns
    -------
    PredictiveRecursionResult
        ``grid``, ``weights``, ``pdf(y)``, ``loglik`` and the per-order estimates.

    References
    ----------
    Newton, M. A. (2002). On a nonparametric recursive estimator of the mixing distribution.
    Sankhya A 64, 306-322.
    Tokdar, S. T., Martin, R. & Ghosh, J. K. (2009). Consistency of a recursive estimate of mixing
    distributions. Ann. Statist. 37, 2502-2522.
    Tosh, C., Zhang, M. & Tansey, W. (2025). Treatment response as a latent variable.
    arXiv:2502.08776.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore.ebayes import predictive_recursion
    >>> rng = np.random.default_rng(1)
    >>> x = np.r_[rng.normal(-2, 1, 300), rng.normal(2, 1, 300)]
    >>> fit = predictive_recursion(x, kernel_sd=1.0, grid=np.linspace(-5, 5, 101), seed=1)
    >>> round(float(fit.weights.sum()), 6), round(float(fit.weights[fit.grid < 0].sum()), 1)
    (1.0, 0.5)
    """
    from ._kernels import predictive_recursion_sweeps

    xv, sd, sweeps, decay, _ = predictive_recursion_inputs(x, kernel_sd, sweeps, decay, nan_policy)
    atoms = np.ascontiguousarray(make_grid(grid, xv, sd))
    rng = check_seed(seed)
    n = xv.size
    orders = np.empty((sweeps, n), dtype=np.int64)
    for s in range(sweeps):
        orders[s] = rng.permutation(n)
    w_by = np.empty((sweeps, atoms.size))
    pll = np.empty(sweeps)
    # the recursion in units of (a power of two near) kernel_sd: sd ** 2 of 1e-300 underflowed to a
    # division by zero, of 1e300 overflowed; a power of two rescales exactly
    unit = float(pow2_scale(np.array([sd]), axis=None))
    predictive_recursion_sweeps(np.ascontiguousarray(xv / unit), orders, np.ascontiguousarray(atoms / unit),
                                sd / unit, decay, w_by, pll)
    pll -= n * math.log(unit)  # densities in x's units
    weights = w_by.mean(axis=0)
    weights /= weights.sum()
    ll = mixture_loglik(xv / unit, atoms / unit, weights, sd / unit) - n * math.log(unit)
    return PredictiveRecursionResult(grid=atoms, weights=weights, kernel_sd=sd, loglik=ll,
                                     predictive_loglik=float(pll.mean()), sweeps=sweeps, decay=decay,
                                     nobs=n, weights_by_order=w_by)
