"""A seeded multimodal trajectory task: an agent choosing one of several routes (:func:`simulate_routes`)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from statcore import Result
from statcore.utils import check_positive_int, check_positive_real, check_seed

__all__ = ["simulate_routes", "RouteSample"]


@dataclass(frozen=True, repr=False)
class RouteSample(Result):
    """Simulated agents of :func:`simulate_routes`; it unpacks as ``X, y, route = res``.

    Attributes
    ----------
    X : ndarray (n, 2)
        The covariates: heading and speed.
    y : ndarray (n, T)
        The trajectories (lateral position at each step).
    route : ndarray (n,)
        The route taken, 0 .. n_routes - 1.
    n_routes : int
        The number of routes.

    Examples
    --------
    >>> from learncore.hprobz import simulate_routes
    >>> res = simulate_routes(6, T=3, seed=0)
    >>> res.y.shape, res.n_routes
    ((6, 3), 3)
    """

    X: np.ndarray
    y: np.ndarray
    route: np.ndarray
    n_routes: int

    def __iter__(self):
        return iter((self.X, self.y, self.route))

    def _repr_parts(self):
        return [("n", int(self.y.shape[0])), ("T", int(self.y.shape[1])), ("n_routes", self.n_routes)]

    def summary(self) -> str:
        counts = np.bincount(self.route, minlength=self.n_routes)
        taken = ", ".join(f"route {k}: {int(c)}" for k, c in enumerate(counts))
        return (f"\n\tSimulated route choices ({self.y.shape[0]} agents, {self.y.shape[1]} steps, "
                f"{self.n_routes} routes)\n\n{taken}\n")

    def to_frame(self):
        """One row per agent: ``heading``, ``speed``, ``route`` and the trajectory ``y_1`` .. ``y_T``."""
        import pandas as pd

        cols = {"heading": self.X[:, 0], "speed": self.X[:, 1], "route": self.route}
        cols.update({f"y_{t + 1}": self.y[:, t] for t in range(self.y.shape[1])})
        return pd.DataFrame(cols)



def simulate_routes(n, *, T=12, n_routes=3, drift=0.4, noise=0.05, seed=None):
    """Simulate n agents, each taking one of ``n_routes`` routes with a bounded drift and noise.

    Each agent has a heading theta ~ U[-1, 1] and a speed v ~ U[0.5, 1.5] (the covariates X). It
    chooses route k with probability softmax(3 theta c_k) (c_k equally spaced in [-1, 1]: it tends to
    take the route it is heading for) and its lateral position at step t (tau = (t + 1) / T) is

        y_t = v (0.4 theta tau + 1.5 c_k tau^1.5) + drift v (0.3 + tau) u + noise eps_t,

    with one bounded bias u ~ U[-1, 1] per agent (an initial offset that grows along the way) and
    eps_t ~ N(0, 1). Given X this is an HProbZ with n_routes modes and m = 1 generator: the task on
    which the vignette compares HProbZ with the mixture-density head. Early steps barely separate the
    routes but reveal u, so observing step 1 shrinks the predictive of the later steps.

    Parameters
    ----------
    n : int
        Agents (rows).
    T : int
        Steps per trajectory.
    n_routes : int
        Routes (modes), at least 2.
    drift : float
        Scale of the bounded drift (positive).
    noise : float
        Noise standard deviation (positive).
    seed : None, int, numpy Generator or SeedSequence
        statcore's seed convention.

    Returns
    -------
    RouteSample
        ``X`` the covariates (n, 2) [heading, speed], ``y`` the trajectories (n, T) and ``route`` the
        route taken (n,) (integers 0..n_routes-1); it unpacks as ``X, y, route``.

    References
    ----------
    A synthetic route-choice design written for learncore.hprobz, in the spirit of the multimodal
    trajectory benchmarks of HProbZ (NeurIPS 2026) and mixture density networks (Bishop, 1994).

    Examples
    --------
    >>> from learncore.hprobz import simulate_routes
    >>> X, y, route = simulate_routes(5, T=4, seed=0)
    >>> X.shape, y.shape, route.tolist()
    ((5, 2), (5, 4), [2, 0, 0, 0, 2])
    """
    n = check_positive_int(n, "n")
    T = check_positive_int(T, "T")
    n_routes = check_positive_int(n_routes, "n_routes", minimum=2)
    drift = check_positive_real(drift, "drift")
    noise = check_positive_real(noise, "noise")
    rng = check_seed(seed)
    theta = rng.uniform(-1.0, 1.0, n)
    v = rng.uniform(0.5, 1.5, n)
    c = np.linspace(-1.0, 1.0, n_routes)
    logits = 3.0 * theta[:, None] * c[None, :]
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    route = (rng.uniform(size=(n, 1)) > np.cumsum(p, 1)).sum(1)
    route = np.minimum(route, n_routes - 1).astype(np.int64)
    u = rng.uniform(-1.0, 1.0, n)
    tau = (np.arange(T) + 1.0) / T
    mean = v[:, None] * (0.4 * theta[:, None] * tau + 1.5 * c[route][:, None] * tau ** 1.5)
    y = mean + drift * v[:, None] * (0.3 + tau) * u[:, None] + noise * rng.standard_normal((n, T))
    return RouteSample(np.column_stack([theta, v]), y, route, n_routes)
