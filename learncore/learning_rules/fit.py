"""Maximum-likelihood fits of learning rules to one animal's choices, and cohort comparison by AIC."""
from __future__ import annotations

import numbers
import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd
from statcore import StatcoreWarning

from ._model import (ARCH_CODE, RULE_CODE, LearningRule, check_arch, check_hidden, check_rule, n_params,
                     pack, rule_name, unpack, weight_shapes)
from ._trials import TrialData, check_trials
from ._lbfgs import STATUS
from .simulate import _rng


class ConvergenceWarning(StatcoreWarning):
    """A fit's best restart did not meet the gradient tolerance, or its starting point was changed."""

BACKENDS = ("numba", "autograd")


@dataclass(eq=False)
class LearningRuleFit:
    """A learning rule fitted to one animal by maximum likelihood.

    Attributes
    ----------
    arch, rule : str
    hidden : int
        Hidden width (0 for 1L).
    params : dict
        ``eta``, ``beta`` and the initial weights (``W``; or ``W1``, ``W2``) of the best restart.
    loglik : float
        Maximised log-likelihood of the choices.
    df : int
        Free parameters (initial weights, eta, beta).
    nobs : int
        Trials.
    p_right : numpy.ndarray
        The fitted model's probability of "right" on each trial (before that trial's update),
        replayed through the animal's own choices and rewards.
    restarts : pandas.DataFrame
        Per restart: log-likelihood, iterations, convergence, eta, beta.
    converged : bool
        Whether the best restart met the convergence tolerance.
    """

    arch: str
    rule: str
    hidden: int
    params: dict
    loglik: float
    df: int
    nobs: int
    p_right: np.ndarray
    restarts: pd.DataFrame
    converged: bool
    baseline: float
    backend: str
    elapsed: float
    trials: pd.DataFrame = field(repr=False)

    @property
    def aic(self) -> float:
        return -2.0 * self.loglik + 2.0 * self.df

    @property
    def theta(self) -> np.ndarray:
        """The flat parameter vector (weights, log eta, log beta)."""
        return pack(self.arch, self.hidden, self.params)

    def summary(self) -> str:
        name = self.arch if self.arch == "1L" else f"{self.arch} (hidden = {self.hidden})"
        lls = np.sort(self.restarts["loglik"].to_numpy())[::-1]
        near = int(np.sum(lls >= lls[0] - 0.01))
        lines = [
            f"Learning rule fit: {name}, rule {self.rule}",
            f"{self.nobs} trials; 'log Lik.' {self.loglik:.6g} (df={self.df}); AIC {self.aic:.6g}",
            f"eta = {self.params['eta']:.6g}, beta = {self.params['beta']:.6g}",
            f"restarts: {len(self.restarts)} ({near} within 0.01 of the best); "
            f"{'converged' if self.converged else 'NOT converged'}; {self.elapsed:.2f} s ({self.backend})",
        ]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        return (f"<LearningRuleFit {self.arch} {self.rule}: loglik {self.loglik:.4f}, df {self.df}, "
                f"nobs {self.nobs}>")

    def to_frame(self) -> pd.DataFrame:
        """The fitted trajectory: the trials table with the model's ``p_right``."""
        out = self.trials.copy()
        out["p_right_model"] = self.p_right
        return out

    def metrics(self, by="session"):
        """Behavioural metrics of the data and of the fitted model (see ``behaviour_metrics``)."""
        from .behaviour import behaviour_metrics

        return behaviour_metrics(self.trials, by=by), behaviour_metrics(self.trials, self.p_right, by=by)

    def plot(self, axes=None, **kwargs):
        """Bias, sensitivity and accuracy over training: the data against the fitted model."""
        from .behaviour import plot_behaviour

        return plot_behaviour(self.trials, self.p_right, axes=axes, **kwargs)


def _register_loglik() -> None:
    import statcore

    @statcore.loglik.register(LearningRuleFit)
    def _(fit: LearningRuleFit):
        return statcore.LogLik(fit.loglik, df=fit.df, nobs=fit.nobs)


_register_loglik()


def _init_thetas(arch: str, hidden: int, R: int, rng: np.random.Generator) -> np.ndarray:
    """Starting points: small random weights, eta log-uniform on [0.005, 0.3], beta on [1, 15]."""
    P = n_params(arch, hidden)
    th = np.empty((R, P))
    i = 0
    for k, (a, b) in weight_shapes(arch, hidden).items():
        scale = 1.0 if k == "W1" else 0.3
        th[:, i:i + a * b] = rng.normal(scale=scale, size=(R, a * b))
        i += a * b
    th[:, i] = rng.uniform(np.log(0.005), np.log(0.3), size=R)
    th[:, i + 1] = rng.uniform(np.log(1.0), np.log(15.0), size=R)
    return th


def _objective_numba(data: TrialData, arch: str, rule: str, hidden: int, baseline: float):
    import torch

    from . import _kernels as K

    a_code, r_code = ARCH_CODE[arch], RULE_CODE[rule]
    rewarded = data.rewarded_side
    H = max(hidden, 1)

    def fun(theta: "torch.Tensor", rows=None):
        th = np.ascontiguousarray(theta.detach().numpy(), dtype=np.float64)
        k = th.shape[0]
        nll = np.empty(k)
        grad = np.empty_like(th)
        pr = np.empty((k, data.n_trials))
        K.replay(th, data.x, data.choice, data.reward, rewarded, a_code, r_code, H, baseline, True,
                 nll, grad, pr)
        return torch.from_numpy(nll), torch.from_numpy(grad)

    return fun


def _objective_autograd(data: TrialData, arch: str, rule: str, hidden: int, baseline: float):
    import torch

    from ._torchnets import unrolled_nll

    from ._torchnets import one_thread

    x = torch.from_numpy(data.x)
    rewarded = data.rewarded_side

    def fun(theta, rows=None):
        th = theta.detach().clone().requires_grad_(True)
        with one_thread():
            nll = unrolled_nll(th, arch, rule, hidden, x, data.choice, data.reward, rewarded, baseline)
            bad = ~torch.isfinite(nll)
            (g,) = torch.autograd.grad(nll[~bad].sum(), th) if (~bad).any() else (torch.zeros_like(th),)
        nll = nll.detach().clone()
        nll[bad] = float("inf")
        return nll, g

    return fun


def replay_p_right(trials, arch: str, params: Mapping, *, rule: str = "rpe", baseline: float = 0.5):
    """A model's p(right) and log-likelihood on a trials table, replayed through its choices/rewards.

    Returns ``(p_right, loglik)``.
    """
    from .simulate import _check_baseline, _hidden_of

    arch = check_arch(arch)
    rule = check_rule(rule)
    hidden = _hidden_of(arch, params)
    theta = pack(arch, hidden, params)[None, :]
    baseline = _check_baseline(baseline)
    data = check_trials(trials)
    if isinstance(rule, LearningRule):
        import torch

        from ._torchnets import one_thread, unrolled_nll

        with torch.no_grad(), one_thread():
            nll, p = unrolled_nll(torch.from_numpy(theta), arch, rule, hidden, torch.from_numpy(data.x),
                                  data.choice, data.reward, data.rewarded_side, float(baseline), return_p=True)
        return p[0].numpy(), -float(nll[0])
    from . import _kernels as K

    nll = np.empty(1)
    grad = np.empty_like(theta)
    pr = np.empty((1, data.n_trials))
    K.replay(theta, data.x, data.choice, data.reward, data.rewarded_side, ARCH_CODE[arch], RULE_CODE[rule],
             max(hidden, 1), float(baseline), False, nll, grad, pr)
    return pr[0], -float(nll[0])


def fit(trials, arch: str = "2NL", rule: str = "rpe", hidden: int = 3, restarts: int = 8, seed=None, *,
        baseline: float = 0.5, init: Mapping | Sequence[Mapping] | None = None, max_iter: int = 500,
        gtol: float = 1e-5, backend: str | None = None, warn: bool = True) -> LearningRuleFit:
    """Fit a learning rule to one animal's choices by maximum likelihood.

    The network's weights are replayed through the animal's own choices and rewards (teacher
    forcing): on trial t the model gives p(a_t | x_t) = softmax(beta y(x_t; W_t)), then W_{t+1} =
    W_t + eta U_rule(W_t). The log-likelihood sum_t log p(a_t | x_t) is maximised over the initial
    weights, eta and beta (optimised on the log scale) by L-BFGS, with all restarts in one (R, P)
    tensor: every restart has its own curvature history and line search (``_lbfgs.batched_lbfgs``).

    Parameters
    ----------
    trials : pandas.DataFrame
        The trials table (see ``learncore.learning_rules._trials``; IBL files via ``read_ibl_trials``).
    arch : {"1L", "2L", "2NL"}
    rule : {"rpe", "reinforce", "supervised"} or LearningRule
        A built-in rule, or a plug-in :class:`LearningRule` (fitted on the PyTorch backend).
    hidden : int
        Hidden width for 2L and 2NL (ignored for 1L).
    restarts : int
        Random starting points, optimised together; the best log-likelihood wins.
    seed : None, int or numpy.random.Generator
        Draws the starting points.
    baseline : float
        REINFORCE baseline b.
    init : mapping or sequence of mappings, optional
        Starting points (like ``params``) used for the first restarts instead of random ones.
    max_iter, gtol : int, float
        L-BFGS iterations per restart, and the gradient tolerance (relative to max(1, |nll|)).
    warn : bool
        Warn (:class:`ConvergenceWarning`) when the best restart did not meet the gradient tolerance.
    backend : {"numba", "autograd"}, optional
        "numba" (the default for the built-in rules): compiled replay with the exact gradient from a hand-written reverse pass
        through the unrolled updates. "autograd": the same likelihood as a PyTorch graph through the
        unrolled updates, differentiated by autograd (slow: thousands of tiny ops per evaluation; the
        reference the compiled gradient is tested against; the default for a plug-in rule).

    Returns
    -------
    LearningRuleFit
        Registered with ``statcore.loglik``, so ``statcore.aic``, ``compare_models`` and
        ``compare_by_group`` take it.
    """
    import torch

    from ._lbfgs import batched_lbfgs

    arch = check_arch(arch)
    rule = check_rule(rule)
    hidden = check_hidden(hidden, arch)
    if isinstance(restarts, bool) or not isinstance(restarts, numbers.Integral) or restarts < 1:
        raise ValueError(f"restarts must be a positive integer; got {restarts!r}")
    if isinstance(max_iter, bool) or not isinstance(max_iter, numbers.Integral) or max_iter < 1:
        raise ValueError(f"max_iter must be a positive integer; got {max_iter!r}")
    try:
        gtol = float(gtol)
    except (TypeError, ValueError):
        raise TypeError(f"gtol must be a positive number; got {gtol!r}") from None
    if not (np.isfinite(gtol) and gtol > 0):
        raise ValueError(f"gtol must be a positive finite number; got {gtol!r}")
    if backend is None:
        backend = "autograd" if isinstance(rule, LearningRule) else "numba"
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}; got {backend!r}")
    if backend == "numba" and isinstance(rule, LearningRule):
        raise ValueError(f"backend='numba' has kernels for the built-in rules only; the plug-in rule "
                         f"{rule.name!r} runs on backend='autograd'")
    from .simulate import _check_baseline

    baseline = _check_baseline(baseline)
    P = n_params(arch, hidden)
    data = check_trials(trials, n_params=P)
    rng = _rng(seed)
    start = time.perf_counter()
    th0 = _init_thetas(arch, hidden, int(restarts), rng)
    if init is not None:
        inits = [init] if isinstance(init, Mapping) else list(init)
        if len(inits) > restarts:
            raise ValueError(f"init has {len(inits)} starting points but restarts = {restarts}")
        for i, p in enumerate(inits):
            th0[i] = pack(arch, hidden, p, name=f"init[{i}]")
    make = _objective_numba if backend == "numba" else _objective_autograd
    raw = make(data, arch, rule, hidden, baseline)

    def fun(theta, rows=None):
        v, g = raw(theta, rows)
        bad = ~torch.isfinite(g).all(dim=1)      # a finite value with a non-finite gradient: outside too
        if bad.any():
            v = v.clone()
            v[bad] = float("inf")
            g = torch.where(bad.unsqueeze(1), torch.zeros_like(g), g)
        return v, g

    # A starting point where the network diverges, or fits far worse than chance (its updates blow
    # the values up): shrink its learning rate until it does not.
    x0 = torch.from_numpy(th0)
    f0, _ = fun(x0)
    worse = 2.0 * data.n_trials * np.log(2.0)
    shrunk = np.zeros(restarts, dtype=bool)
    for _ in range(30):
        bad = ~torch.isfinite(f0) | (f0 > worse)
        if not bad.any():
            break
        x0[bad, -2] -= np.log(4.0)
        shrunk |= bad.numpy()
        f0, _ = fun(x0)
    if not torch.isfinite(f0).any():
        raise ValueError("every starting point makes the network diverge, even with eta shrunk 4^30-fold; "
                         "check the scale of the contrasts (0 to 1) or pass init= with a smaller eta")
    if init is not None and shrunk[:len(inits)].any():
        warnings.warn(f"init: the starting point(s) {np.flatnonzero(shrunk[:len(inits)]).tolist()} made the "
                      f"network diverge or fit far worse than chance; their eta was divided by powers of 4",
                      ConvergenceWarning, stacklevel=2)
    res = batched_lbfgs(fun, x0, max_iter=int(max_iter), gtol=float(gtol))
    f = res.f.numpy()
    best = int(np.nanargmin(np.where(np.isfinite(f), f, np.inf)))
    theta = res.x[best].numpy().copy()
    params = unpack(arch, hidden, theta)
    p_right, ll = replay_p_right(trials, arch, params, rule=rule, baseline=baseline)
    xs = res.x.numpy()
    table = pd.DataFrame({
        "restart": np.arange(restarts),
        "loglik": -f,
        "iterations": res.n_iter.numpy(),
        "converged": res.converged.numpy(),
        "status": [STATUS[i] for i in res.status.tolist()],
        "eta": np.exp(xs[:, -2]),
        "beta": np.exp(xs[:, -1]),
    })
    if warn and not res.converged[best]:
        lls = np.sort(-f[np.isfinite(f)])[::-1]
        g_best = float(res.grad[best].abs().max())
        warnings.warn(
            f"{arch} fit: the best restart stopped ({STATUS[int(res.status[best])]}, {int(res.n_iter[best])} "
            f"iterations) with max |gradient| {g_best:.3g} above the tolerance; its log-likelihood "
            f"{lls[0]:.6g} may still rise a little ({int(np.sum(lls >= lls[0] - 0.1))} of {restarts} restarts "
            f"end within 0.1 of it). Flat ridges to infinite weights are common in these models "
            f"(saturating units, the 2L -> 1L limit); raise max_iter to check", ConvergenceWarning, stacklevel=2)
    return LearningRuleFit(arch=arch, rule=rule_name(rule), hidden=hidden, params=params, loglik=ll, df=P,
                           nobs=data.n_trials, p_right=p_right, restarts=table,
                           converged=bool(res.converged[best]), baseline=baseline, backend=backend,
                           elapsed=time.perf_counter() - start, trials=trials)


def _fit_one(key, arch, trials, kwargs, seed_seq):
    from ._torchnets import one_thread

    with one_thread():
        return key, arch, fit(trials, arch=arch, seed=np.random.default_rng(seed_seq), warn=False, **kwargs)


def fit_many(animals, archs: Sequence[str] = ("1L", "2L", "2NL"), *, rule: str = "rpe", hidden: int = 3,
             restarts: int = 8, seed=None, n_jobs: int = 1, criterion: str = "AIC", B: int = 1000,
             animal_col: str = "subject", return_fits: bool = False, **fit_kwargs):
    """Fit every architecture to every animal and compare them by AIC per animal.

    Parameters
    ----------
    animals : mapping animal -> trials DataFrame, or one DataFrame with an ``animal_col`` column
    archs : sequence of {"1L", "2L", "2NL"}
    rule, hidden, restarts, **fit_kwargs : passed to :func:`fit`
    seed : None, int or numpy.random.Generator
        One seed for the cohort: each (animal, architecture) gets its own stream spawned from it, so
        results do not depend on ``n_jobs``.
    n_jobs : int
        Parallel fits through joblib (-1: all cores).
    criterion, B : passed to :func:`statcore.compare_by_group` (B bootstrap replicates over animals).
    return_fits : bool
        Also return the fits, as {animal: {arch: LearningRuleFit}}.

    Returns
    -------
    statcore.GroupComparison
        "2NL best in k of n" (``headline()``), per-animal winners and deltas; and the fits if
        ``return_fits``.
    """
    import statcore

    if isinstance(animals, pd.DataFrame):
        if animal_col not in animals.columns:
            raise ValueError(f"animals is a DataFrame without the column animal_col={animal_col!r}; pass "
                             f"animal_col= or a mapping animal -> trials")
        if animals[animal_col].isna().any():
            raise ValueError(f"animals[{animal_col!r}] has missing labels (first at row "
                             f"{int(np.flatnonzero(animals[animal_col].isna().to_numpy())[0])}); every trial "
                             f"must belong to an animal")
        groups = {k: g.drop(columns=[animal_col]).reset_index(drop=True)
                  for k, g in animals.groupby(animal_col, sort=False)}
    elif isinstance(animals, Mapping):
        groups = dict(animals)
    else:
        raise TypeError(f"animals must be a mapping animal -> trials DataFrame or a DataFrame; got "
                        f"{type(animals).__name__}")
    if not groups:
        raise ValueError("animals is empty")
    if isinstance(archs, str):
        archs = (archs,)
    archs = tuple(check_arch(a) for a in archs)
    if len(set(archs)) != len(archs):
        raise ValueError(f"archs has duplicates: {archs}")
    rule = check_rule(rule)
    for k, tr in groups.items():
        check_trials(tr, n_params=max(n_params(a, check_hidden(hidden, a)) for a in archs),
                     name=f"animals[{k!r}]")
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0:
        raise ValueError(f"n_jobs must be a non-zero integer (-1 for all cores); got {n_jobs!r}")
    root = _rng(seed)
    seeds = np.random.SeedSequence(int(root.integers(2**63))).spawn(len(groups) * len(archs))
    kwargs = dict(rule=rule, hidden=hidden, restarts=restarts, **fit_kwargs)
    jobs = [(key, arch, tr, kwargs, seeds[i * len(archs) + j])
            for i, (key, tr) in enumerate(groups.items()) for j, arch in enumerate(archs)]
    if n_jobs == 1:
        out = [_fit_one(*job) for job in jobs]
    else:
        from joblib import Parallel, delayed

        out = Parallel(n_jobs=int(n_jobs))(delayed(_fit_one)(*job) for job in jobs)
    fits: dict[Any, dict[str, LearningRuleFit]] = {key: {} for key in groups}
    for key, arch, f in out:
        fits[key][arch] = f
    unconverged = [(k, a) for k, d in fits.items() for a, f in d.items() if not f.converged]
    if unconverged:
        by_arch = {a: sum(1 for _, b in unconverged if b == a) for a in archs}
        warnings.warn(f"{len(unconverged)} of {len(jobs)} fits stopped before the gradient tolerance "
                      f"({', '.join(f'{a}: {n}' for a, n in by_arch.items() if n)}); see each fit's restarts "
                      f"table and raise max_iter to check their log-likelihoods", ConvergenceWarning, stacklevel=2)
    comparison = statcore.compare_by_group(fits, criterion=criterion, B=B, seed=root)
    return (comparison, fits) if return_fits else comparison
