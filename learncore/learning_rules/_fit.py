"""Maximum-likelihood fits of learning rules to one animal's choices (:func:`fit`), and a model's
p(right) replayed through an animal's choices (:func:`replay_p_right`)."""
from __future__ import annotations

import contextlib
import time
import warnings
from typing import Mapping, Sequence

import numpy as np
import pandas as pd
from statcore import ConvergenceWarning
from statcore.utils import check_seed, thread_limit

from ._checks import check_baseline, check_choice, check_positive_real, check_positive_int
from ._lbfgs import STATUS
from ._model import (ARCH_CODE, RULE_CODE, LearningRule, check_arch, check_hidden, check_rule, n_params,
                     pack, rule_name, unpack, weight_shapes)
from ._trials import TrialData, check_trials
from .results import LearningRuleFit, Replay

__all__ = ["fit", "replay_p_right"]


BACKENDS = ("numba", "autograd")


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
    """The PyTorch objective; :func:`fit` calls it inside ``thread_limit(1)`` (tiny per-trial ops)."""
    import torch

    from ._torchnets import unrolled_nll

    x = torch.from_numpy(data.x)
    rewarded = data.rewarded_side

    def fun(theta, rows=None):
        th = theta.detach().clone().requires_grad_(True)
        nll = unrolled_nll(th, arch, rule, hidden, x, data.choice, data.reward, rewarded, baseline)
        bad = ~torch.isfinite(nll)
        (g,) = torch.autograd.grad(nll[~bad].sum(), th) if (~bad).any() else (torch.zeros_like(th),)
        nll = nll.detach().clone()
        nll[bad] = float("inf")
        return nll, g

    return fun


def replay_p_right(trials, arch: str, params: Mapping, *, rule: str = "rpe", baseline: float = 0.5):
    """A model's p(right) and log-likelihood on a trials table, replayed through its choices and rewards.

    Parameters
    ----------
    trials : pandas.DataFrame
        The trials table (``contrast_left``, ``contrast_right``, ``choice``, ``reward``; see
        :func:`check_trials`). NaN is refused in every column.
    arch : {"1L", "2L", "2NL"}
        The architecture.
    params : mapping
        ``eta``, ``beta`` and the initial weights (``W``; or ``W1``, ``W2``), e.g. a fit's ``params``.
    rule : {"rpe", "reinforce", "supervised"} or LearningRule
        The learning rule (a plug-in :class:`LearningRule` is replayed in PyTorch).
    baseline : float
        The REINFORCE baseline b.

    Returns
    -------
    Replay
        ``p_right``, the model's probability of "right" on each trial (before that trial's update),
        and ``loglik``, the log-likelihood of the choices; it unpacks as ``p_right, loglik``.

    References
    ----------
    Liebana et al. (2025). Dopamine encodes deep network teaching signals for individual learning
    trajectories. Cell 188:3789.

    Examples
    --------
    >>> import numpy as np
    >>> from learncore.learning_rules import simulate
    >>> params = {"W": np.zeros((2, 3)), "eta": 0.1, "beta": 5.0}
    >>> mouse = simulate("1L", params, 200, seed=0)
    >>> p, ll = replay_p_right(mouse, "1L", params)
    >>> bool(np.allclose(p, mouse["p_right"]))
    True
    """
    from ._model import hidden_of

    arch = check_arch(arch)
    rule = check_rule(rule)
    hidden = hidden_of(arch, params)
    theta = pack(arch, hidden, params)[None, :]
    baseline = check_baseline(baseline)
    data = check_trials(trials)
    if isinstance(rule, LearningRule):
        import torch

        from ._torchnets import unrolled_nll

        with torch.no_grad(), thread_limit(1):
            nll, p = unrolled_nll(torch.from_numpy(theta), arch, rule, hidden, torch.from_numpy(data.x),
                                  data.choice, data.reward, data.rewarded_side, float(baseline), return_p=True)
        return Replay(p[0].numpy(), -float(nll[0]), arch, type(rule).__name__)
    from . import _kernels as K

    nll = np.empty(1)
    grad = np.empty_like(theta)
    pr = np.empty((1, data.n_trials))
    K.replay(theta, data.x, data.choice, data.reward, data.rewarded_side, ARCH_CODE[arch], RULE_CODE[rule],
             max(hidden, 1), float(baseline), False, nll, grad, pr)
    return Replay(pr[0], -float(nll[0]), arch, rule)


def fit(trials, *, arch: str = "2NL", rule: str = "rpe", hidden: int = 3, restarts: int = 8, seed=None,
        baseline: float = 0.5, init: Mapping | Sequence[Mapping] | None = None, max_iter: int = 500,
        gtol: float = 1e-5, backend: str | None = None, warn: bool = True, ridge_iter: int = 50,
        ridge_tol: float = 0.5) -> LearningRuleFit:
    """Fit a learning rule to one animal's choices by maximum likelihood.

    The network's weights are replayed through the animal's own choices and rewards (teacher
    forcing): on trial t the model gives p(a_t | x_t) = softmax(beta y(x_t; W_t)), then W_{t+1} =
    W_t + eta U_rule(W_t). The log-likelihood sum_t log p(a_t | x_t) is maximised over the initial
    weights, eta and beta (optimised on the log scale) by L-BFGS, with all restarts in one (R, P)
    tensor: every restart has its own curvature history and line search.

    Parameters
    ----------
    trials : pandas.DataFrame
        The trials table (``contrast_left``, ``contrast_right``, ``choice``, ``reward``, optional
        ``session``; see :func:`check_trials`; IBL files via :func:`read_ibl_trials`). Missing values
        are refused (every trial needs its contrasts, choice and reward).
    arch : {"1L", "2L", "2NL"}
        The architecture.
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
    max_iter : int
        L-BFGS iterations per restart.
    gtol : float
        The gradient tolerance (relative to max(1, ``|nll|``)).
    backend : {"numba", "autograd"}, optional
        "numba" (the default for the built-in rules): compiled replay with the exact gradient from a
        hand-written reverse pass through the unrolled updates. "autograd": the same likelihood as a
        PyTorch graph through the unrolled updates, differentiated by autograd (much slower; the
        reference the compiled gradient is tested against; the default for a plug-in rule).
    warn : bool
        Warn (``statcore.ConvergenceWarning``) when the best restart did not meet the gradient tolerance
        and is not on a ridge (below).
    ridge_iter : int
        When the best restart stops before the gradient tolerance, it is continued alone for this many
        more iterations (four chunks) and the log-likelihood and parameters are recorded along the way
        (``ridge_profile``); this costs at most ``ridge_iter`` iterations of one restart, a few percent
        of a default fit. 0 skips the check (the status is then the optimiser's: "max_iter", "stalled"
        or "line search failed").
    ridge_tol : float
        The log-likelihood rise (over the ``ridge_iter`` iterations) below which a best restart whose
        parameters keep moving is "stalled on a ridge": the likelihood is nearly flat along a direction
        to infinite parameters (beta up with eta down, saturating 2NL units, the 2L -> 1L limit), so the
        maximum is not attained, but the log-likelihood (and any gain computed from it) is within
        ``ridge_gain`` of its value at the end of the profile. Such a fit reports ``status = "ridge"``
        without a ConvergenceWarning; one still rising by more than ``ridge_tol`` is
        ``"max_iter"`` (warned: raise max_iter).

    Returns
    -------
    LearningRuleFit
        Registered with ``statcore.loglik``, so ``statcore.aic``, ``compare_models`` and
        ``compare_by_group`` take it.

    References
    ----------
    Liebana et al. (2025). Dopamine encodes deep network teaching signals for individual learning
    trajectories. Cell 188:3789. Nocedal, J. & Wright, S. J. (2006). Numerical Optimization, 2nd ed.,
    ch. 7 (L-BFGS).

    Examples
    --------
    >>> import numpy as np
    >>> from learncore.learning_rules import simulate
    >>> mouse = simulate("1L", {"W": np.zeros((2, 3)), "eta": 0.05, "beta": 8.0}, 300, seed=1)
    >>> res = fit(mouse, arch="1L", restarts=2, seed=0)
    >>> res.arch, res.df, res.nobs
    ('1L', 8, 300)
    """
    arch = check_arch(arch)
    rule = check_rule(rule)
    hidden = check_hidden(hidden, arch)
    restarts = check_positive_int(restarts, "restarts")
    max_iter = check_positive_int(max_iter, "max_iter")
    ridge_iter = check_positive_int(ridge_iter, "ridge_iter", minimum=0)
    ridge_tol = check_positive_real(ridge_tol, "ridge_tol")
    gtol = check_positive_real(gtol, "gtol")
    if not isinstance(warn, (bool, np.bool_)):
        raise TypeError(f"warn must be True or False; got {warn!r}")
    if backend is None:
        backend = "autograd" if isinstance(rule, LearningRule) else "numba"
    backend = check_choice(backend, "backend", BACKENDS)
    if backend == "numba" and isinstance(rule, LearningRule):
        raise ValueError(f"backend='numba' has kernels for the built-in rules only; the plug-in rule "
                         f"{rule.name!r} runs on backend='autograd'")
    baseline = check_baseline(baseline)
    P = n_params(arch, hidden)
    data = check_trials(trials, n_params=P)
    rng = check_seed(seed)
    start = time.perf_counter()
    with thread_limit(1) if backend == "autograd" else contextlib.nullcontext():
        return _fit(trials, data, arch, rule, hidden, restarts, rng, init, max_iter, gtol, backend, warn,
                    baseline, P, start, ridge_iter, ridge_tol)


def ridge_status(profile: pd.DataFrame, ridge_tol: float) -> str:
    """Classify a stopped fit from its continuation profile (row 0 = where the fit stopped).

    "max_iter": the log-likelihood rose by ``ridge_tol`` or more (still climbing); "ridge": it rose by
    less while the parameters kept moving (some parameter, on the optimiser's scale, moved by more than
    1e-3: a drift along a nearly flat direction, typically beta up and eta down, or weights growing);
    "stalled": neither rose nor moved (a flat point the optimiser cannot improve, e.g. at round-off)."""
    gain = float(profile["loglik"].iloc[-1] - profile["loglik"].iloc[0])
    if gain >= ridge_tol:
        return "max_iter"
    return "ridge" if float(profile["moved"].iloc[-1]) > 1e-3 else "stalled"


def _fit(trials, data, arch, rule, hidden, restarts, rng, init, max_iter, gtol, backend, warn, baseline, P,
         start, ridge_iter=0, ridge_tol=0.5):
    import torch

    from ._lbfgs import batched_lbfgs

    th0 = _init_thetas(arch, hidden, restarts, rng)
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
                      ConvergenceWarning, stacklevel=4)
    res = batched_lbfgs(fun, x0, max_iter=max_iter, gtol=gtol)
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
    nw = P - 2
    status = "converged"
    profile = None
    if not res.converged[best] and ridge_iter > 0:
        xb = res.x[best:best + 1].clone()
        x_stop = xb[0].clone()
        rows = [(0, float(-res.f[best]), float(xb[0, :nw].norm()), float(xb[0, -2]), float(xb[0, -1]), 0.0)]
        chunk = max(1, ridge_iter // 4)
        done = 0
        while done < ridge_iter:
            r2 = batched_lbfgs(fun, xb, max_iter=min(chunk, ridge_iter - done), gtol=gtol)
            done += min(chunk, ridge_iter - done)
            if torch.isfinite(r2.f[0]) and float(r2.f[0]) <= -rows[-1][1]:
                xb = r2.x.clone()
            rows.append((done, -float(fun(xb)[0][0]), float(xb[0, :nw].norm()), float(xb[0, -2]), float(xb[0, -1]),
                         float((xb[0] - x_stop).abs().max())))
            if bool(r2.converged[0]):
                break
        profile = pd.DataFrame(rows, columns=["iteration", "loglik", "weight_norm", "log_eta", "log_beta", "moved"])
        status = ridge_status(profile, ridge_tol)
    elif not res.converged[best]:
        status = STATUS[int(res.status[best])]
    if warn and not res.converged[best] and status != "ridge":
        lls = np.sort(-f[np.isfinite(f)])[::-1]
        g_best = float(res.grad[best].abs().max())
        warnings.warn(
            f"{arch} fit: the best restart stopped ({STATUS[int(res.status[best])]}, {int(res.n_iter[best])} "
            f"iterations) with max |gradient| {g_best:.3g} above the tolerance; its log-likelihood "
            f"{lls[0]:.6g} may still rise a little ({int(np.sum(lls >= lls[0] - 0.1))} of {restarts} restarts "
            f"end within 0.1 of it). Flat ridges to infinite weights are common in these models "
            f"(saturating units, the 2L -> 1L limit); raise max_iter to check", ConvergenceWarning, stacklevel=4)
    return LearningRuleFit(arch=arch, rule=rule_name(rule), hidden=hidden, params=params, loglik=ll, df=P,
                           nobs=data.n_trials, p_right=p_right, restarts=table,
                           converged=bool(res.converged[best]), baseline=baseline, backend=backend,
                           elapsed=time.perf_counter() - start, trials=trials, status=status,
                           ridge_profile=profile)

