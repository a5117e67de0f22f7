"""The result of :func:`learncore.learning_rules.fit`: one learning rule fitted to one animal."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np
import pandas as pd

from statcore import Result

from ._model import pack

__all__ = ["LearningRuleFit", "Replay"]


@dataclass(frozen=True, eq=False, repr=False)
class LearningRuleFit(Result):
    """A learning rule fitted to one animal by maximum likelihood (what :func:`fit` returns).

    A frozen result: ``repr`` shows the key numbers, ``summary()`` (and ``str``) the fit in a few
    lines, ``to_frame()`` the fitted trajectory (the trials table with the model's ``p_right_model``),
    ``plot()`` bias, sensitivity and accuracy over training, data against model. Registered with
    ``statcore.loglik``, so ``statcore.aic``, ``compare_models`` and ``compare_by_group`` take it.

    Attributes
    ----------
    arch, rule : str
        Architecture ("1L", "2L", "2NL") and learning rule (a built-in name or a plug-in's name).
    hidden : int
        Hidden width (0 for 1L).
    params : mapping
        ``eta``, ``beta`` and the initial weights (``W``; or ``W1``, ``W2``) of the best restart
        (read-only).
    loglik : float
        Maximised log-likelihood of the choices.
    df : int
        Free parameters (initial weights, eta, beta).
    nobs : int
        Trials.
    p_right : numpy.ndarray
        The fitted model's probability of "right" on each trial (before that trial's update),
        replayed through the animal's own choices and rewards (read-only).
    restarts : pandas.DataFrame
        Per restart: ``restart``, ``loglik``, ``iterations``, ``converged``, ``status``, ``eta``, ``beta``.
    converged : bool
        Whether the best restart met the gradient tolerance.
    baseline : float
        The REINFORCE baseline used.
    backend : str
        "numba" or "autograd".
    elapsed : float
        Seconds the fit took.
    trials : pandas.DataFrame
        A copy of the trials table the model was fitted to.
    status : str
        "converged"; "ridge" (stalled on a likelihood ridge: the best restart, continued, rose by less
        than ``ridge_tol`` while its parameters kept drifting; the log-likelihood is within
        ``ridge_gain`` of its value at the end of the profile, so comparisons built on it stand); "max_iter"
        (still climbing: raise max_iter); "stalled" (stopped at a point it cannot improve, not moving).
    ridge_profile : pandas.DataFrame or None
        Where the best restart stopped unconverged: its continuation, one row per chunk of iterations
        (``iteration``, ``loglik``, ``weight_norm``, ``log_eta``, ``log_beta``, ``moved``: the largest change
        of any parameter, on the optimiser's scale, since the stop); None when converged.

    Examples
    --------
    >>> import numpy as np
    >>> from learncore.learning_rules import fit, simulate
    >>> mouse = simulate("1L", {"W": np.zeros((2, 3)), "eta": 0.05, "beta": 8.0}, 300, seed=1)
    >>> res = fit(mouse, arch="1L", restarts=2, seed=0)
    >>> res.df, res.nobs
    (8, 300)
    >>> print(res.summary().splitlines()[0])
    Learning rule fit: 1L, rule rpe
    """

    arch: str
    rule: str
    hidden: int
    params: Mapping[str, Any]
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
    status: str = "converged"
    ridge_profile: Any = field(default=None, repr=False)

    def __post_init__(self):
        # tables are copied so that nobody else holds (and edits) them
        object.__setattr__(self, "restarts", self.restarts.copy())
        object.__setattr__(self, "trials", self.trials.copy())
        if self.ridge_profile is not None:
            object.__setattr__(self, "ridge_profile", self.ridge_profile.copy())
        object.__setattr__(self, "p_right", np.array(self.p_right, dtype=np.float64, copy=True))
        object.__setattr__(self, "params", {k: (np.array(v, dtype=np.float64, copy=True) if isinstance(v, np.ndarray)
                                                else v) for k, v in self.params.items()})
        super().__post_init__()

    @property
    def aic(self) -> float:
        """Akaike's information criterion, -2 loglik + 2 df."""
        return -2.0 * self.loglik + 2.0 * self.df

    @property
    def ridge_gain(self) -> float:
        """The log-likelihood rise along the ridge profile (0 when converged): how much the reported
        log-likelihood may understate the supremum the optimiser was approaching."""
        if self.ridge_profile is None:
            return 0.0
        return float(self.ridge_profile["loglik"].iloc[-1] - self.ridge_profile["loglik"].iloc[0])

    @property
    def theta(self) -> np.ndarray:
        """The flat parameter vector (weights, log eta, log beta)."""
        return pack(self.arch, self.hidden, self.params)

    def _repr_parts(self):
        return [("arch", self.arch), ("rule", self.rule), ("hidden", self.hidden), ("loglik", self.loglik),
                ("df", self.df), ("nobs", self.nobs), ("converged", self.converged), ("status", self.status)]

    def summary(self) -> str:
        """The fit in four lines: model, likelihood and AIC, eta and beta, restarts and convergence."""
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
        if self.status == "ridge":
            p = self.ridge_profile
            lines.append(f"stalled on a ridge: log-likelihood +{self.ridge_gain:.3g} over {int(p['iteration'].iloc[-1])} "
                         f"more iterations while |weights| went {p['weight_norm'].iloc[0]:.3g} -> "
                         f"{p['weight_norm'].iloc[-1]:.3g}, log eta {p['log_eta'].iloc[0]:.3g} -> "
                         f"{p['log_eta'].iloc[-1]:.3g}, log beta {p['log_beta'].iloc[0]:.3g} -> "
                         f"{p['log_beta'].iloc[-1]:.3g}")
        elif self.status != "converged":
            lines.append(f"status: {self.status}" + (f" (log-likelihood +{self.ridge_gain:.3g} when continued)"
                                                     if self.ridge_profile is not None else ""))
        return "\n".join(lines)

    def _html_title(self) -> str:
        return self.summary().splitlines()[0]

    def to_frame(self) -> pd.DataFrame:
        """The fitted trajectory: the trials table with the model's ``p_right_model`` (a new frame)."""
        out = self.trials.copy()
        out["p_right_model"] = np.array(self.p_right)
        return out

    def metrics(self, *, by="session"):
        """Behavioural metrics of the data and of the fitted model (see :func:`behaviour_metrics`).

        Returns
        -------
        tuple of BehaviourMetrics
            ``(data, model)``.
        """
        from .behaviour import behaviour_metrics

        return (behaviour_metrics(self.trials, by=by),
                behaviour_metrics(self.trials, np.array(self.p_right), by=by))

    def _plot(self, ax=None, **kwargs):
        """Bias, sensitivity and accuracy over training: the data against the fitted model; returns
        the three Axes."""
        from .behaviour import plot_behaviour

        return plot_behaviour(self.trials, np.array(self.p_right), ax=ax, **kwargs)


def _register_loglik() -> None:
    import statcore

    @statcore.loglik.register(LearningRuleFit)
    def _(fit: LearningRuleFit):
        return statcore.LogLik(fit.loglik, df=fit.df, nobs=fit.nobs)


_register_loglik()


@dataclass(frozen=True, repr=False)
class Replay(Result):
    """A model replayed through a trials table (:func:`replay_p_right`): its p(right) on each trial and
    the log-likelihood of the choices. It unpacks as ``p_right, loglik = res``.

    Attributes
    ----------
    p_right : ndarray (n_trials,)
        The model's probability of "right" on each trial, before that trial's update.
    loglik : float
        The log-likelihood of the choices.
    arch, rule : str
        The architecture and the learning rule (a plug-in rule by its class name).

    Examples
    --------
    >>> import numpy as np
    >>> from learncore.learning_rules import replay_p_right, simulate
    >>> params = {"W": np.zeros((2, 3)), "eta": 0.1, "beta": 5.0}
    >>> res = replay_p_right(simulate("1L", params, 50, seed=0), "1L", params)
    >>> res.p_right.shape, res.loglik < 0
    ((50,), True)
    """

    p_right: np.ndarray
    loglik: float
    arch: str
    rule: str

    def __iter__(self):
        return iter((self.p_right, self.loglik))

    def _repr_parts(self):
        return [("arch", self.arch), ("rule", self.rule), ("n_trials", int(self.p_right.size)),
                ("loglik", self.loglik)]

    def summary(self) -> str:
        n = int(self.p_right.size)
        return (f"\n\tReplay of the {self.arch} model ({self.rule} rule) through {n} trials\n\n"
                f"log-likelihood of the choices: {self.loglik:.6g} ({self.loglik / max(n, 1):.4g} per trial)\n"
                f"p(right): mean {float(np.mean(self.p_right)):.4g}, range [{float(np.min(self.p_right)):.4g}, "
                f"{float(np.max(self.p_right)):.4g}]\n")

    def to_frame(self):
        """One row per trial: ``trial`` (0, 1, ...) and ``p_right``."""
        return pd.DataFrame({"trial": np.arange(self.p_right.size), "p_right": self.p_right})
