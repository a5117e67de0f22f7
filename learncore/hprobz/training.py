"""Maximum-likelihood fits of an HProbZ or mixture-density head on a small encoder (:func:`fit`),
and the result :class:`HProbZFit`."""
from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import pandas as pd
import torch
from statcore import ConvergenceWarning, Result
from statcore.utils import check_choice, check_positive_int, check_positive_real, check_seed, thread_limit
from torch import nn

from .._torch import torch_generator, torch_seeded
from ._checks import as_data_matrix
from .heads import HProbZHead, MixtureHead

__all__ = ["fit", "HProbZFit"]

HEADS = ("hprobz", "mixture")
METHODS = ("lbfgs", "adam")


class _Net(nn.Module):
    """Encoder (an MLP of tanh or ReLU units; none for hidden = ()) followed by the output head."""

    def __init__(self, d: int, hidden: tuple, head: nn.Module, activation: str = "tanh"):
        super().__init__()
        layers, width = [], d
        for h in hidden:
            layers += [nn.Linear(width, h), nn.Tanh() if activation == "tanh" else nn.ReLU()]
            width = h
        self.encoder = nn.Sequential(*layers)
        self.head = head

    def forward(self, x: torch.Tensor):
        return self.head(self.encoder(x))


def _check_hidden(hidden: Any) -> tuple:
    if isinstance(hidden, (int, np.integer)) and not isinstance(hidden, bool):
        hidden = (hidden,)
    if isinstance(hidden, (str, bytes)) or not isinstance(hidden, (Sequence, np.ndarray)):
        raise TypeError(f"hidden must be a sequence of layer widths, got {type(hidden).__name__}")
    return tuple(check_positive_int(h, "hidden") for h in hidden)


def n_params(module: nn.Module) -> int:
    """Trainable parameters of a module."""
    return int(sum(p.numel() for p in module.parameters() if p.requires_grad))


def _build(head: str, d: int, T: int, n_modes: int, m: int, hidden: tuple, opts: dict) -> _Net:
    hidden = hidden if d > 0 else ()
    width = hidden[-1] if hidden else d
    if head == "hprobz":
        out = HProbZHead(width, T, n_modes, m, generators=opts["generators"], noise=opts["noise"],
                         s_floor=opts["s_floor"], method=opts["log_prob_method"], n_points=opts["n_points"])
    else:
        out = MixtureHead(width, T, n_modes, sigma_floor=opts["s_floor"])
    return _Net(d, hidden, out, opts["activation"])


@dataclass(frozen=True, eq=False, repr=False)
class HProbZFit(Result):
    """An HProbZ (or mixture-density) head fitted by maximum likelihood (what :func:`fit` returns).

    Registered with ``statcore.loglik``, so ``statcore.aic``, ``bic`` and ``compare_models`` take it.

    Attributes
    ----------
    head : str
        "hprobz" or "mixture".
    n_modes, m : int
        Modes and bounded generators (m = 0 for the mixture).
    hidden : tuple of int
        Encoder widths.
    loglik : float
        Training log-likelihood in the units of ``y``.
    df : int
        Trainable parameters (encoder and head).
    nobs : int
        Training rows.
    converged : bool
        Whether the best restart met the tolerance before ``max_iter``.
    n_iter : int
        Iterations of the best restart.
    restarts_loglik : numpy.ndarray
        Final training log-likelihood of every restart.
    history : numpy.ndarray
        Mean training NLL (standardised units) per iteration of the best restart.
    module : torch.nn.Module
        The fitted network (encoder and head), in standardised units; use :meth:`predict`.
    x_center, x_scale, y_center, y_scale : numpy.ndarray or None
        The standardisation of X and y.
    options : mapping
        The remaining choices (generators, noise, s_floor, log_prob_method, method, ...).
    elapsed : float
        Seconds the fit took.

    Examples
    --------
    >>> import numpy as np
    >>> from learncore.hprobz import fit, simulate_routes
    >>> X, y, _ = simulate_routes(300, T=4, seed=0)
    >>> res = fit(X, y, n_modes=3, hidden=(8,), max_iter=50, seed=0, warn=False)
    >>> res.head, res.df, res.nobs
    ('hprobz', 303, 300)
    >>> res.predict(X[:2]).batch_shape
    torch.Size([2])
    """

    head: str
    n_modes: int
    m: int
    hidden: tuple
    loglik: float
    df: int
    nobs: int
    converged: bool
    n_iter: int
    restarts_loglik: np.ndarray
    history: np.ndarray
    module: Any
    x_center: Any
    x_scale: Any
    y_center: np.ndarray
    y_scale: np.ndarray
    options: dict
    elapsed: float

    def _features(self, X) -> torch.Tensor:
        dt = next(self.module.parameters()).dtype
        if self.x_center is None:
            if X is None:
                return torch.zeros(0, dtype=dt)
            n = as_data_matrix(X, "X").shape[0]
            return torch.zeros(n, 0, dtype=dt)
        Xa = as_data_matrix(X, "X")
        if Xa.shape[1] != self.x_center.size:
            raise ValueError(f"X must have {self.x_center.size} columns (as in the fit), got {Xa.shape[1]}")
        return torch.tensor((Xa - self.x_center) / self.x_scale, dtype=dt)

    def predict(self, X=None, *, standardized: bool = False):
        """The predictive distribution of y for each row of X (in the units of y).

        Parameters
        ----------
        X : array_like, shape (n, d), optional
            Covariates (None for a model fitted without them: one distribution, or pass any n-row
            matrix to get n copies).
        standardized : bool
            Return the distribution in the standardised units the network works in.

        Returns
        -------
        HProbZ or GaussianMixture
            Batch shape (n,) (or () for X = None without covariates).
        """
        h = self._features(X)
        with torch.no_grad():
            dist = self.module(h)
            if not standardized:
                dist = dist.affine(torch.tensor(np.array(self.y_center), dtype=dist.dtype),
                                   torch.tensor(np.array(self.y_scale), dtype=dist.dtype))
            return dist.detach()

    def nll(self, X, y) -> float:
        """Mean negative log-likelihood per row of held-out data (units of y).

        Parameters
        ----------
        X : array_like, shape (n, d), or None
            Covariates (None for a model without them).
        y : array_like, shape (n, T)
            Outcomes.

        Returns
        -------
        float
        """
        ya = as_data_matrix(y, "y")
        if ya.shape[1] != self.y_center.size:
            raise ValueError(f"y must have T = {self.y_center.size} columns, got {ya.shape[1]}")
        if X is None and self.x_center is None:
            dist = self.predict(None)
        else:
            Xa = as_data_matrix(X, "X")
            if Xa.shape[0] != ya.shape[0]:
                raise ValueError(f"X and y must have the same number of rows: X has {Xa.shape[0]}, y has {ya.shape[0]}")
            dist = self.predict(Xa)
        with torch.no_grad():
            lp = dist.log_prob(torch.as_tensor(ya, dtype=dist.dtype))
        return float(-lp.mean())

    def summary(self) -> str:
        """The fit in a few lines."""
        kind = (f"HProbZ head: {self.n_modes} modes, m = {self.m} bounded generator(s) "
                f"({self.options.get('generators')} generators, {self.options.get('noise')} noise)"
                if self.head == "hprobz" else f"Gaussian mixture head: {self.n_modes} modes (diagonal)")
        lines = ["", "\tMaximum-likelihood fit of a trajectory head", "", kind,
                 "encoder: " + (f"MLP {'x'.join(map(str, self.hidden))} ({self.options.get('activation', 'tanh')})"
                                if self.hidden else "none (linear head)"),
                 f"log-likelihood: {self.loglik:.6g} (df = {self.df}, nobs = {self.nobs}); "
                 f"NLL per row {-self.loglik / self.nobs:.5g}",
                 f"AIC: {2 * self.df - 2 * self.loglik:.6g}",
                 f"optimiser: {self.options.get('method')}, {self.n_iter} iterations, "
                 f"{'converged' if self.converged else 'NOT converged'}; restarts: {self.restarts_loglik.size}", ""]
        return "\n".join(lines) + "\n"

    def to_frame(self) -> pd.DataFrame:
        """One row: ``head``, ``n_modes``, ``m``, ``df``, ``nobs``, ``loglik``, ``aic``, ``bic``,
        ``converged``, ``n_iter``."""
        return pd.DataFrame({"head": [self.head], "n_modes": [self.n_modes], "m": [self.m], "df": [self.df],
                             "nobs": [self.nobs], "loglik": [self.loglik], "aic": [2 * self.df - 2 * self.loglik],
                             "bic": [math.log(self.nobs) * self.df - 2 * self.loglik],
                             "converged": [self.converged], "n_iter": [self.n_iter]})

    def _repr_parts(self):
        return [("head", self.head), ("n_modes", self.n_modes), ("m", self.m), ("loglik", self.loglik),
                ("df", self.df), ("nobs", self.nobs), ("converged", self.converged)]

    def _plot(self, ax=None):
        """The training NLL per iteration."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(5, 3.2), layout="constrained")
        ax.plot(np.arange(1, self.history.size + 1), self.history)
        ax.set_xlabel("iteration")
        ax.set_ylabel("mean NLL (standardised)")
        ax.set_title(f"{self.head} fit", fontsize=10)
        return ax


def _register_loglik() -> None:
    import statcore

    @statcore.loglik.register(HProbZFit)
    def _(res: HProbZFit):
        return statcore.LogLik(res.loglik, df=res.df, nobs=res.nobs)


_register_loglik()


def fit(X, y, *, head="hprobz", n_modes=3, m=1, hidden=(32, 32), activation="tanh", generators="per_mode",
        noise="shared", s_floor=1e-3, method="lbfgs", max_iter=500, lr=None, batch_size=None, tol=1e-6, restarts=1,
        log_prob_method="auto", n_points=256, dtype="float64", seed=None, warn=True):
    """Fit an HProbZ head (or the Gaussian-mixture baseline) on an MLP encoder by maximum likelihood.

    X and y are standardised (columns to mean 0 and standard deviation 1; the fitted distributions
    are mapped back exactly, since both families are closed under per-step affine maps), the network
    maps X to the distribution's parameters, and the mean negative log-likelihood of y is minimised
    over the weights, from ``restarts`` starts (the best training likelihood wins). Each start puts the
    mode centres at random training rows (k-means++-like spread without the clustering) and small
    random generators.

    Identifiability: a fitted HProbZ is identified up to a permutation of the modes, a permutation of
    each mode's generator columns and their signs (u and -u have the same law); see the tests for
    recovery on data from a known HProbZ.

    Parameters
    ----------
    X : array_like, shape (n, d), or None
        Covariates; None fits one unconditional distribution.
    y : array_like, shape (n, T)
        Outcomes (trajectories).
    head : {"hprobz", "mixture"}
        The output head.
    n_modes : int
        Modes (mixture components).
    m : int
        Bounded generators of HProbZ (ignored by the mixture).
    hidden : sequence of int
        Encoder widths; () for a linear head on X (ignored when X is None: the parameters are then
        learned constants).
    activation : {"tanh", "relu"}
        The encoder's units (tanh by default: smooth, which suits L-BFGS).
    generators : {"per_mode", "shared"}
        HProbZ generator matrices per mode or one shared (see :class:`HProbZHead`).
    noise : {"shared", "per_mode"}
        HProbZ noise scales shared by the modes or per mode.
    s_floor : float
        Floor of the noise scales (standardised units).
    method : {"lbfgs", "adam"}
        The optimiser: full-batch L-BFGS with a strong-Wolfe line search (deterministic; the default), or Adam on
        minibatches.
    max_iter : int
        L-BFGS iterations, or Adam epochs.
    lr : float, optional
        Learning rate (default 1 for L-BFGS, 1e-2 for Adam).
    batch_size : int, optional
        Adam's minibatch size (default: all rows).
    tol : float
        L-BFGS gradient tolerance (max absolute gradient); for Adam, the mean relative change per epoch
        of the epoch loss, over the last 10% of the epochs, that counts as converged.
    restarts : int
        Random starts.
    log_prob_method : {"auto", "exact", "genz"}
        HProbZ's log-density route (see :class:`HProbZ`).
    n_points : int
        Quasi-Monte Carlo points of the "genz" route.
    dtype : {"float64", "float32"}
        The network's floating type.
    seed : None, int, numpy Generator or SeedSequence
        statcore's seed convention (initialisation and minibatches).
    warn : bool
        Warn (``statcore.ConvergenceWarning``) when the best restart did not converge.

    Returns
    -------
    HProbZFit
        The fitted network, ``predict(X)`` (the predictive distributions), ``nll(X, y)``, the training
        log-likelihood and parameter count.

    References
    ----------
    HProbZ (Hybrid Probabilistic Zonotopes), NeurIPS 2026, implemented from the method's description.
    Bishop, C. M. (1994). Mixture density networks. Liu, D. C. & Nocedal, J. (1989). On the limited
    memory BFGS method for large scale optimization. *Math. Program.* 45, 503-528.

    Examples
    --------
    >>> from learncore.hprobz import fit, simulate_routes
    >>> X, y, _ = simulate_routes(400, T=6, seed=1)
    >>> res = fit(X, y, n_modes=3, hidden=(16,), max_iter=100, seed=0, warn=False)
    >>> Xt, yt, _ = simulate_routes(200, T=6, seed=2)
    >>> bool(res.nll(Xt, yt) < 5.0)
    True
    """
    t0 = time.perf_counter()
    ya = as_data_matrix(y, "y")
    n, T = ya.shape
    Xa = as_data_matrix(X, "X", allow_none=True)
    if Xa is not None and Xa.shape[0] != n:
        raise ValueError(f"X and y must have the same number of rows: X has {Xa.shape[0]}, y has {n}")
    head = check_choice(head, "head", HEADS)
    n_modes = check_positive_int(n_modes, "n_modes")
    m = check_positive_int(m, "m") if head == "hprobz" else 0
    hidden = _check_hidden(hidden)
    activation = check_choice(activation, "activation", ("tanh", "relu"))
    if X is None:
        hidden = ()
    generators = check_choice(generators, "generators", ("per_mode", "shared"))
    noise = check_choice(noise, "noise", ("shared", "per_mode"))
    s_floor = check_positive_real(s_floor, "s_floor")
    method = check_choice(method, "method", METHODS)
    max_iter = check_positive_int(max_iter, "max_iter")
    lr = (1.0 if method == "lbfgs" else 1e-2) if lr is None else check_positive_real(lr, "lr")
    batch_size = n if batch_size is None else min(check_positive_int(batch_size, "batch_size"), n)
    tol = check_positive_real(tol, "tol")
    restarts = check_positive_int(restarts, "restarts")
    log_prob_method = check_choice(log_prob_method, "log_prob_method", ("auto", "exact", "genz"))
    n_points = check_positive_int(n_points, "n_points")
    dtype = check_choice(dtype, "dtype", ("float64", "float32"))
    tdt = torch.float64 if dtype == "float64" else torch.float32
    if not isinstance(warn, (bool, np.bool_)):
        raise TypeError(f"warn must be True or False, got {type(warn).__name__}")
    rng = check_seed(seed)
    if n < 2:
        raise ValueError(f"y must have at least 2 rows to standardise, got {n}")

    y_center = ya.mean(0)
    y_scale = ya.std(0)
    y_scale[y_scale == 0] = 1.0
    Y = torch.as_tensor((ya - y_center) / y_scale, dtype=tdt)
    if Xa is not None:
        x_center = Xa.mean(0)
        x_scale = Xa.std(0)
        x_scale[x_scale == 0] = 1.0
        H = torch.as_tensor((Xa - x_center) / x_scale, dtype=tdt)
    else:
        x_center = x_scale = None
        H = torch.zeros(n, 0, dtype=tdt)
    d = H.shape[1]
    opts = dict(activation=activation, generators=generators, noise=noise, s_floor=s_floor,
                log_prob_method=log_prob_method,
                n_points=n_points, method=method, lr=lr, batch_size=batch_size, tol=tol, max_iter=max_iter,
                dtype=dtype)
    log_jac = float(np.log(y_scale).sum())

    best = None
    finals = []
    with thread_limit(1):
        for r in range(restarts):
            gen = torch_generator(rng)
            with torch_seeded(rng):
                net = _build(head, d, T, n_modes, m, hidden, opts).to(tdt)
            rows = torch.as_tensor(rng.choice(n, size=n_modes, replace=n < n_modes), dtype=torch.long)
            net.head.init_from_data(Y[rows], generator=gen)
            params = [p for p in net.parameters() if p.requires_grad]
            history: list[float] = []

            def objective(idx=None):
                dist = net(H if idx is None else H[idx])
                return -dist.log_prob(Y if idx is None else Y[idx]).mean()

            if method == "lbfgs":
                opt = torch.optim.LBFGS(params, lr=lr, max_iter=max_iter, max_eval=int(max_iter * 1.25) + 1,
                                        tolerance_grad=tol, tolerance_change=1e-12, history_size=20,
                                        line_search_fn="strong_wolfe")

                def closure():
                    opt.zero_grad()
                    loss = objective()
                    loss.backward()
                    history.append(float(loss.detach()))
                    return loss

                opt.step(closure)
                n_iter = int(opt.state[opt._params[0]].get("n_iter", 0))
                with torch.no_grad():
                    final = float(objective())
                grads = torch.autograd.grad(objective(), params)
                gmax = max(float(g.abs().max()) for g in grads)
                converged = gmax <= tol or n_iter < max_iter
            else:
                opt = torch.optim.Adam(params, lr=lr)
                for epoch in range(max_iter):
                    perm = torch.as_tensor(rng.permutation(n), dtype=torch.long)
                    tot = 0.0
                    for i in range(0, n, batch_size):
                        idx = perm[i:i + batch_size]
                        opt.zero_grad()
                        loss = objective(idx)
                        loss.backward()
                        opt.step()
                        tot += float(loss.detach()) * idx.numel()
                    history.append(tot / n)
                n_iter = max_iter
                with torch.no_grad():
                    final = float(objective())
                k = max(2, max_iter // 10)
                tail = np.asarray(history[-k:])
                converged = bool(abs(tail[0] - tail[-1]) <= tol * max(1.0, abs(tail[-1])) * k)
            if not math.isfinite(final):
                raise ValueError(f"fit: restart {r + 1} ended with a non-finite training loss ({final}); "
                                 "lower lr or check the data")
            loglik = -final * n - n * log_jac
            finals.append(loglik)
            if best is None or loglik > best[0]:
                best = (loglik, net, converged, n_iter, np.asarray(history))
    loglik, net, converged, n_iter, history = best
    net.eval()
    if warn and not converged:
        warnings.warn(f"fit: the best of {restarts} restart(s) stopped before the tolerance tol = {tol:g} after "
                      f"{n_iter} iterations; raise max_iter", ConvergenceWarning, stacklevel=2)
    return HProbZFit(head=head, n_modes=n_modes, m=m, hidden=hidden, loglik=float(loglik), df=n_params(net),
                     nobs=n, converged=bool(converged), n_iter=n_iter, restarts_loglik=np.asarray(finals),
                     history=history, module=net, x_center=x_center, x_scale=x_scale, y_center=y_center,
                     y_scale=y_scale, options=opts, elapsed=time.perf_counter() - t0)
