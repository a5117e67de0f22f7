"""Kiefer-Wolfowitz NPMLE of the mixing distribution of a Gaussian location mixture, on a grid."""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._checks import (InputWrapper, as_vector, as_float_array, check_choice, check_positive_int,
                       npmle_inputs, positive_scale, pow2_scale)
from .._checks.public import public_function
from .._result import Result
from .._r.rformat import format_number, format_table
from .._warnings import ConvergenceWarning
from . import _solvers
from ._mixture import make_grid, mixture_pdf

__all__ = ["npmle", "NPMLEResult"]

_WARM_START_N = 5000       # above this many observations, solve a binned problem first
_WARM_START_BINS = 2000
_EM_STEPS = 10             # EM steps before the SQP from the uniform start


def _likelihood(x: np.ndarray, sd: np.ndarray, atoms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row-scaled likelihood matrix (Fortran order) and the log of each row's scale."""
    from ._kernels import likelihood_matrix

    n = x.size
    L = np.empty((n, atoms.size), order="F")
    log_scale = np.empty(n)
    sdv = np.ascontiguousarray(np.broadcast_to(sd, (n,)), dtype=np.float64)
    likelihood_matrix(np.ascontiguousarray(x), sdv, np.ascontiguousarray(atoms), _uniform_step(atoms), L,
                      log_scale)
    return L, log_scale


def _uniform_step(atoms: np.ndarray) -> float:
    """The spacing of an equally spaced grid (to 1e-12 relative), else 0."""
    if atoms.size < 3:
        return 0.0
    gaps = np.diff(atoms)
    step = float(gaps.mean())
    return step if np.all(np.abs(gaps - step) <= 1e-12 * max(step, float(np.max(np.abs(atoms))))) else 0.0


def _bin(x: np.ndarray, omega: np.ndarray, nbins: int) -> tuple[np.ndarray, np.ndarray]:
    """Equal-width bins over the range of x: (weighted mean of x in each non-empty bin, bin weight)."""
    lo, hi = float(x.min()), float(x.max())
    if hi <= lo:
        return np.array([lo]), np.array([omega.sum()])
    idx = np.minimum(((x - lo) * (nbins / (hi - lo))).astype(np.int64), nbins - 1)
    mass = np.bincount(idx, weights=omega, minlength=nbins)
    sums = np.bincount(idx, weights=omega * x, minlength=nbins)
    keep = mass > 0
    return sums[keep] / mass[keep], mass[keep]


@dataclass(frozen=True, eq=False, repr=False)
class NPMLEResult(Result):
    """The NPMLE of a mixing distribution on a grid.

    Attributes
    ----------
    atoms, weights : ndarray
        The grid and the fitted mixing weights on it (sum 1; exactly 0 off the support).
    loglik : float
        Log-likelihood of the data, sum_i weights_i log sum_j w_j N(x_i; atoms_j, sigma_i^2).
    kkt : float
        KKT certificate max_j sum_i omega_i L_ij / (L w)_i of the problem solved (binned if
        ``bins`` was given); 1 exactly at the optimum, and loglik* - loglik <= nobs log(kkt).
    converged : bool
        Whether ``kkt <= 1 + tol``.
    iterations : int
    method : str
        "sqp", "ip" or "em". Interior-point and EM weights are positive on (nearly) every atom;
        "sqp" gives exact zeros off the support.
    sigma : float or ndarray
    x : ndarray
        The data (posterior summaries default to them).
    nobs : int
    bins : int or None
    tol : float
        The tolerance of the KKT certificate.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore.ebayes import npmle
    >>> x = np.r_[np.zeros(40), np.full(20, 3.0)] + np.random.default_rng(0).normal(size=60)
    >>> fit = npmle(x, grid=31)
    >>> fit
    NPMLEResult(nobs=60, atoms=31, support=3, loglik=-111, kkt=1, method='sqp')
    >>> fit.to_frame().columns.tolist()
    ['atom', 'weight']
    """

    atoms: np.ndarray
    weights: np.ndarray
    loglik: float
    kkt: float
    converged: bool
    iterations: int
    method: str
    sigma: Any
    x: np.ndarray
    nobs: int
    bins: int | None
    tol: float
    _wrapper: InputWrapper = field(repr=False, default=InputWrapper("ndarray"))

    def _repr_parts(self):
        return [("nobs", self.nobs), ("atoms", int(self.atoms.size)), ("support", int(self.support.sum())),
                ("loglik", self.loglik), ("kkt", self.kkt), ("method", self.method)]

    @property
    def support(self) -> np.ndarray:
        """Boolean mask of the atoms with positive weight."""
        return self.weights > 0

    @property
    def homoscedastic(self) -> bool:
        return np.ndim(self.sigma) == 0

    def _new_data(self, x: Any, sigma: Any) -> tuple[np.ndarray, np.ndarray, InputWrapper]:
        if x is None:
            if sigma is not None:
                raise ValueError("sigma is given without x; pass both, or neither for the fitted data")
            return self.x, np.broadcast_to(np.asarray(self.sigma, float), self.x.shape), self._wrapper
        wrapper = InputWrapper.of(x)
        arr = as_vector(x, "x")
        if sigma is None:
            if not self.homoscedastic:
                raise ValueError("the fit has one sigma per observation: pass sigma for the new x")
            sigma = self.sigma
        sd = positive_scale(sigma, "sigma", arr.size)
        return arr, np.broadcast_to(sd, arr.shape), wrapper

    def _posterior(self, x: Any, sigma: Any) -> tuple[np.ndarray, np.ndarray, InputWrapper]:
        """Posterior probabilities of the support atoms, (n, k), and the support atoms."""
        xv, sd, wrapper = self._new_data(x, sigma)
        s = self.support
        a = self.atoms[s]
        # log w_j + log N(x_i; a_j, sd_i^2) less its row maximum: the dominant term of each row is
        # 1 even where the nearest atom has a vanishing weight (EM and interior-point fits)
        logp = np.log(self.weights[s]) - (xv[:, None] - a) ** 2 * (0.5 / np.asarray(sd, float) ** 2)[:, None]
        logp -= logp.max(axis=1, keepdims=True)
        P = np.exp(logp, out=logp)
        P /= P.sum(axis=1, keepdims=True)
        return P, a, wrapper

    def pdf(self, y: Any, *, sigma: Any = None) -> Any:
        """Fitted marginal density sum_j w_j N(y; atoms_j, sigma^2) at ``y`` (``sigma`` defaults to
        the fit's when that is one number)."""
        if sigma is None:
            if not self.homoscedastic:
                raise ValueError("the fit has one sigma per observation: pass sigma for the new points")
            sigma = self.sigma
        return mixture_pdf(y, self.atoms, self.weights, sigma, sd_name="sigma")

    def posterior_mean(self, x: Any = None, *, sigma: Any = None) -> Any:
        """E[theta | x] under the fitted prior, for the fitted data or new ``x`` (with ``sigma``)."""
        P, a, wrapper = self._posterior(x, sigma)
        return wrapper.wrap(P @ a)

    def lfdr(self, x: Any = None, *, null: float = 0.0, sigma: Any = None) -> Any:
        """Local false discovery rate P(theta = null | x) under the fitted prior.

        ``null`` must be an atom of the grid (an integer ``grid`` puts 0 on the grid when 0 lies in
        the range of the data).
        """
        null = float(as_float_array(null, "null"))
        scale = max(1.0, float(np.max(np.abs(self.atoms))))
        hit = np.flatnonzero(np.abs(self.atoms - null) <= 1e-12 * scale)
        if hit.size == 0:
            raise ValueError(f"null={null!r} is not an atom of the grid; include it in grid")
        P, a, wrapper = self._posterior(x, sigma)
        on_null = np.abs(a - null) <= 1e-12 * scale
        out = P[:, on_null].sum(axis=1) if on_null.any() else np.zeros(P.shape[0])
        return wrapper.wrap(np.minimum(out, 1.0))

    def summary(self, digits: int = 7) -> str:
        s = self.support
        shown = self.weights >= 1e-8
        tab = format_table([str(i + 1) for i in range(int(shown.sum()))],
                           {"atom": list(self.atoms[shown]), "weight": list(self.weights[shown])}, digits)
        hidden = int(s.sum() - shown.sum())
        if hidden:
            tab += f"\n({hidden} atoms with positive weight below 1e-8 not shown)"
        mean = float(self.weights @ self.atoms)
        sd = math.sqrt(max(float(self.weights @ (self.atoms - mean) ** 2), 0.0))
        sig = (format_number(float(self.sigma), digits) if self.homoscedastic
               else "one per observation (range " + format_number(float(np.min(self.sigma)), 4) + " to "
               + format_number(float(np.max(self.sigma)), 4) + ")")
        binned = "" if self.bins is None else f" (binned into {self.bins} bins)"
        return ("\n\tNonparametric MLE of a Gaussian location mixture (Kiefer & Wolfowitz 1956)\n\n"
                f"observations: {self.nobs}{binned}, sigma: {sig}\n"
                f"grid: {self.atoms.size} atoms from {format_number(float(self.atoms[0]), digits)} to "
                f"{format_number(float(self.atoms[-1]), digits)}; support: {int(s.sum())} atoms\n"
                f"solver: {self.method}, {self.iterations} iterations, "
                f"{'converged' if self.converged else 'NOT converged'}\n"
                f"log-likelihood: {format_number(self.loglik, digits)}, KKT certificate: "
                f"1 + {format_number(self.kkt - 1, 3)}\n"
                f"mixing distribution: mean {format_number(mean, digits)}, sd {format_number(sd, digits)}\n\n"
                "Atoms with positive weight:\n" + tab + "\n")

    def to_frame(self):
        """One row per grid atom: atom, weight."""
        import pandas as pd

        return pd.DataFrame({"atom": self.atoms, "weight": self.weights})

    def _plot(self, ax=None, bins: int = 60):
        """Left: histogram of the data with the fitted marginal density (homoscedastic fits);
        right: the fitted mixing distribution. ``ax``: two Axes (a new figure when None); returns
        the array of the two Axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            fig, axes = plt.subplots(1, 2, figsize=(10, 4))
        else:
            axes = np.asarray(ax).ravel()
            fig = axes[0].figure
        a1, a2 = axes[0], axes[1]
        a1.hist(self.x, bins=bins, density=True, color="0.85")
        if self.homoscedastic:
            pad = 3 * float(self.sigma)
            ys = np.linspace(min(self.x.min(), self.atoms[0]) - pad, max(self.x.max(), self.atoms[-1]) + pad,
                             400)
            a1.plot(ys, self.pdf(ys), "k-", lw=1.2)
        a1.set_xlabel("x")
        a1.set_ylabel("density")
        a1.set_title("data and fitted mixture", fontsize=10)
        s = self.support
        a2.vlines(self.atoms[s], 0, self.weights[s], color="C0")
        a2.plot(self.atoms[s], self.weights[s], "o", color="C0", ms=3)
        a2.set_xlim(self.atoms[0], self.atoms[-1])
        a2.set_xlabel(r"$\theta$")
        a2.set_ylabel("weight")
        a2.set_title("NPMLE of the mixing distribution", fontsize=10)
        fig.tight_layout()
        return np.asarray([a1, a2], dtype=object)


def _blas_single_thread():
    """BLAS on one thread while solving: the products are small (Hessians on a working set) or
    memory-bound (L' d), so threads add only synchronisation (benchmarks/README.md, ebayes)."""
    from ..utils import thread_limit

    return thread_limit(1, pools="blas")


def _fit(xs, sds, om, atoms, homo, solve, tol, max_iter, method):
    m = atoms.size
    w0 = np.full(m, 1.0 / m)
    cold = {"em_steps": _EM_STEPS} if method == "sqp" else {}
    if method == "sqp" and xs.size > _WARM_START_N:
        # warm start: the same problem on binned data (or on an evenly strided subsample when sigma
        # varies), then the full data polish the support in a few iterations
        if homo:
            xb, ob = _bin(xs, om, _WARM_START_BINS)
            Lb, _ = _likelihood(xb, sds[:1], atoms)
        else:
            # stride over the observations with positive weight (a stride over all of them can
            # hit only zero weights)
            pos = np.flatnonzero(om > 0)
            sub = pos[::max(1, pos.size // _WARM_START_BINS)]
            xb, ob = xs[sub], om[sub] / om[sub].sum()
            Lb, _ = _likelihood(xb, sds[sub] if sds.size > 1 else sds, atoms)
        w0, _, _, _ = solve(Lb, ob, w0, 1e-6, max_iter, **cold)
        cold = {}
        del Lb
    L, _ = _likelihood(xs, sds, atoms)
    w, kkt, iters, converged = solve(L, om, w0, tol, max_iter, **cold)
    return w, kkt, iters, converged


@public_function(data=("x",), nan_policy=("raise", "omit"))
def npmle(x: Any, *, sigma: Any = 1.0, grid: Any = 300, weights: Any = None, bins: int | None = None,
          method: str = "sqp", tol: float = 1e-8, max_iter: int | None = None,
          nan_policy: str = "raise") -> NPMLEResult:
    """Kiefer-Wolfowitz nonparametric MLE of the mixing distribution of a Gaussian location mixture.

    The model is x_i ~ N(theta_i, sigma_i^2) with theta_i drawn from an unknown G. On a grid of
    atoms a_1..a_m the NPMLE maximises the concave log-likelihood

        l(w) = sum_i weights_i log sum_j w_j N(x_i; a_j, sigma_i^2)   over the simplex,

    (Kiefer & Wolfowitz 1956; Koenker & Mizera 2014). The likelihood matrix is computed in log
    space with each row scaled by its largest entry, so no row underflows. The solution is certified
    by the KKT condition max_j (1/n) sum_i L_ij / (L w)_i <= 1 + tol, which also bounds the
    sub-optimality: l(w*) - l(w) <= n log(kkt).

    Parameters
    ----------
    x : array_like or pandas.Series
        Observations (a vector).
    sigma : float or array_like
        Noise standard deviation: one number, or one per observation (heteroscedastic).
    grid : int or array_like
        Number of equally spaced atoms over the range of ``x`` (shifted by less than half a step
        so that 0 is an atom when it lies in the range; ``lfdr(null=0)`` needs it), or the atoms.
    weights : array_like, optional
        Frequency weights: observation i counts ``weights[i]`` times in the log-likelihood.
        ``nobs`` is then their sum when they are whole numbers, else the number of observations.
    bins : int, optional
        Bin the data into this many equal-width bins (each represented by the weighted mean of
        its observations) and solve the smaller problem: for very large n. One common ``sigma``
        only. ``kkt`` is then the certificate of the binned problem; ``loglik`` is always that of
        the unbinned data.
    method : {"sqp", "ip", "em"}
        "sqp": sequential quadratic programming with active-set subproblems (Kim, Carbonetto &
        Stephens 2020), on a working set of atoms; above 5000 observations it starts from the
        solution of a 2000-bin problem. "ip": primal-dual interior point method on the dual
        (Koenker & Mizera 2014); n m^2 work per iteration, for small or binned problems. "em":
        the EM fixed-point iteration (slow; a baseline).
    tol : float
        Stop when the KKT certificate is at most 1 + tol.
    max_iter : int, optional
        Iteration limit (default 200 for "sqp" and "ip", 100000 for "em"); a warning is issued when it
        is reached before convergence (a ``statcore.ConvergenceWarning``).
    nan_policy : {"raise", "omit"}
        Missing values: "raise" (the default) refuses a NaN in ``x``, a per-observation ``sigma``
        or ``weights``; "omit" drops those observations (``nobs``, ``x`` and the posterior
        summaries then refer to the observations kept). "propagate" is not offered: a fit with a
        NaN observation has no meaning.

    Returns
    -------
    NPMLEResult
        ``atoms``, ``weights``, ``loglik``, ``kkt``, ``pdf(y)``, ``posterior_mean()``,
        ``lfdr(null=0)``, ``plot()``, ``summary()``, ``to_frame()``. Registered with
        ``statcore.loglik``, counting as parameters the weights of the atoms in the support
        (``df`` = number of atoms with positive weight minus 1: the grid is fixed, not estimated,
        so the free parameters are the weights; only "sqp" fits have exact zeros off the support).

    Notes
    -----
    Memory: the likelihood matrix holds n x m doubles (240 MB for n = 10^5, m = 300); use ``bins``
    beyond that.

    References
    ----------
    Kiefer, J. & Wolfowitz, J. (1956). Consistency of the maximum likelihood estimator in the
    presence of infinitely many incidental parameters. Ann. Math. Statist. 27, 887-906.
    Koenker, R. & Mizera, I. (2014). Convex optimization, shape constraints, compound decisions, and
    empirical Bayes rules. JASA 109, 674-685.
    Kim, Y., Carbonetto, P., Stephens, M. & Anitescu, M. (2020). A fast algorithm for maximum
    likelihood estimation of mixture proportions using sequential quadratic programming. J. Comput.
    Graph. Statist. 29, 261-273.
    Jiang, W. & Zhang, C.-H. (2009). General maximum likelihood empirical Bayes estimation of normal
    means. Ann. Statist. 37, 1647-1684.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore.ebayes import npmle
    >>> rng = np.random.default_rng(0)
    >>> theta = rng.choice([0.0, 4.0], size=2000, p=[0.7, 0.3])
    >>> fit = npmle(theta + rng.normal(size=2000), grid=101)
    >>> fit.kkt <= 1 + 1e-8
    True
    >>> round(float(fit.weights[fit.atoms > 2].sum()), 2)   # 30.3% of the theta are 4
    0.31
    >>> fit.lfdr(null=0)[:3].round(3)        # P(theta_i = 0 | x_i) for x = 1.54, -1.05, -0.66
    array([0.911, 1.   , 1.   ])
    """
    method = check_choice(method, "method", ("sqp", "ip", "em"))
    data = npmle_inputs(x, sigma, weights, bins, tol, nan_policy)
    xv, sd, omega, wsum, nobs, bins, tol = data.x, data.sigma, data.omega, data.wsum, data.nobs, data.bins, data.tol
    wrapper = InputWrapper.of(x)
    if wrapper.kind == "series" and data.keep is not None:
        wrapper = InputWrapper("series", wrapper.index[data.keep], wrapper.name)
    if max_iter is None:
        max_iter = {"sqp": 200, "ip": 200, "em": 100000}[method]
    max_iter = check_positive_int(max_iter, "max_iter", minimum=0)
    homo = sd.size == 1 or bool(np.all(sd == sd[0]))
    scale = float(np.median(sd))
    atoms = make_grid(grid, xv, scale, align=0.0)
    # the problem in units of (a power of two near) the noise sd: sd ** 2 of 1e-300 underflowed to a
    # division by zero and squares of 1e300 overflowed; a power of two rescales exactly
    unit = float(pow2_scale(np.array([scale]), axis=None))
    x_in, sd_in = xv, sd
    xv, sd, atoms = xv / unit, sd / unit, atoms / unit
    srt = np.sort(atoms)
    pos = np.clip(np.searchsorted(srt, xv), 1, srt.size - 1) if srt.size > 1 else np.zeros(xv.size, dtype=int)
    gap = np.minimum(np.abs(xv - srt[pos]), np.abs(xv - srt[np.maximum(pos - 1, 0)])) / sd
    if np.any(gap > 1e150):  # its log-density, -gap^2 / 2, is beyond float64 at every atom
        i = int(np.argmax(gap > 1e150))
        raise ValueError(f"sigma is too small for the grid: observation {i} lies {float(gap[i]):.3g} noise sds from "
                         "its nearest atom, so its log-likelihood (-gap^2 / 2) is beyond float64's range at every "
                         "atom; pass a larger sigma or a grid with atoms near the data")
    solve = {"sqp": _solvers.mixsqp, "ip": _solvers.interior_point, "em": _solvers.em}[method]

    # observations of weight 0 change nothing; leaving them out keeps (L w)_i > 0 (one far from
    # the support had (L w)_i = 0: 0/0 in the solvers and 0 log 0 in the log-likelihood)
    pos = omega > 0
    xp, omp, sdp = (xv, omega, sd) if pos.all() else (xv[pos], omega[pos], sd[pos] if sd.size > 1 else sd)
    if bins is not None:
        xs, om = _bin(xp, omp, bins)
        sds = sd[:1]
    else:
        xs, om, sds = xp, omp, sdp
    with _blas_single_thread():
        w, kkt, iters, converged = _fit(xs, sds, om, atoms, homo, solve, tol, max_iter, method)
    if not converged:
        warnings.warn(f"npmle ({method}) stopped after {iters} iterations with KKT certificate {kkt:.8g} "
                      f"> 1 + tol = 1 + {tol:g}; raise max_iter or use method='sqp'",
                      ConvergenceWarning, stacklevel=2)
    # log-likelihood of the unbinned data, on the support only
    s = w > 0
    Ls, log_scale = _likelihood(xp, sdp, atoms[s])
    ll = float(wsum * (omp @ (np.log(Ls @ w[s]) + log_scale))) - wsum * math.log(unit)  # densities in x's units
    sigma_out = float(sd_in[0]) if homo else sd_in.copy()
    return NPMLEResult(atoms=atoms * unit, weights=w, loglik=ll, kkt=kkt, converged=converged, iterations=iters,
                       method=method, sigma=sigma_out, x=x_in.copy(), nobs=nobs, bins=bins, tol=tol,
                       _wrapper=wrapper)


def _register_loglik() -> None:
    from ..modelsel import LogLik, loglik

    @loglik.register(NPMLEResult)
    def _(fit: NPMLEResult) -> LogLik:
        # the grid is fixed in advance, so the free parameters are the weights of the support
        # atoms, less one for the sum-to-one constraint
        return LogLik(fit.loglik, df=int(np.count_nonzero(fit.weights > 0)) - 1, nobs=fit.nobs)


_register_loglik()
