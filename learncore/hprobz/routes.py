"""A seeded multimodal trajectory task: an agent choosing one of several routes (:func:`simulate_routes`)."""
from __future__ import annotations

import numpy as np
from statcore.utils import check_positive_int, check_positive_real, check_seed

__all__ = ["simulate_routes"]


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
    tuple
        ``(X, y, route)``: covariates (n, 2) [heading, speed], trajectories (n, T) and the route taken
        (n,) (integers 0..n_routes-1).

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
    return np.column_stack([theta, v]), y, route
