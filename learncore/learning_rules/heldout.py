"""Held-out predictive log-likelihood by session, forward-chained (:func:`heldout_loglik`,
:class:`HeldOutLoglik`): a second criterion next to AIC, with no parameter-count penalty to trust.

A learning animal is a time series: its weights on a session depend on every earlier trial, so a
session cannot be left out of the replay the way a row is left out of a regression. The folds are
therefore forward-chained (rolling origin; Hyndman & Athanasopoulos 2021, sec. 5.10; Bergmeir &
Benitez 2012): the sessions are cut into ``folds + 1`` contiguous blocks; for fold k the model is
fitted to blocks 0..k-1 and scored on block k, its weights replayed through the animal's own choices
and rewards up to each held-out trial (the same teacher forcing as the fit). The score is the sum of
log p(choice) over the held-out trials of every fold.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import pandas as pd

from ._checks import check_positive_int
from ._model import check_arch, check_hidden, check_rule, n_params
from ._trials import check_trials
from .results import Result

__all__ = ["heldout_loglik", "HeldOutLoglik", "session_folds"]


def session_folds(trials, *, folds: int = 4) -> np.ndarray:
    """The fold of each trial under forward chaining by session: -1 for the first block (training
    only), k = 0..folds-1 for the block scored in fold k.

    Parameters
    ----------
    trials : pandas.DataFrame
        A trials table with a ``session`` column.
    folds : int
        Held-out blocks; the sessions are cut into ``folds + 1`` contiguous blocks of (nearly) equal
        numbers of sessions.

    Returns
    -------
    numpy.ndarray
        One int per trial.

    References
    ----------
    Bergmeir, C. & Benitez, J. M. (2012). On the use of cross-validation for time series predictor
    evaluation. Information Sciences 191:192.

    Examples
    --------
    >>> import pandas as pd
    >>> tr = pd.DataFrame({"contrast_left": [0.5] * 6, "contrast_right": [0.0] * 6, "choice": ["left"] * 6,
    ...                    "reward": [1] * 6, "session": [0, 0, 1, 1, 2, 2]})
    >>> session_folds(tr, folds=2).tolist()
    [-1, -1, 0, 0, 1, 1]
    """
    data = check_trials(trials)
    folds = check_positive_int(folds, "folds")
    S = len(data.session_labels)
    if S < folds + 1:
        raise ValueError(f"folds={folds} needs at least {folds + 1} sessions (one block to train on first); "
                         f"trials has {S} (add a 'session' column or lower folds)")
    block = np.empty(S, dtype=np.int64)
    for k, idx in enumerate(np.array_split(np.arange(S), folds + 1)):
        block[idx] = k - 1
    return block[data.session]


@dataclass(frozen=True, eq=False, repr=False)
class HeldOutLoglik(Result):
    """Forward-chained held-out log-likelihood of several architectures on one animal.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per (fold, arch): ``fold``, ``arch``, ``first_session``, ``last_session``, ``n_train``,
        ``n_test``, ``loglik`` (held-out), ``loglik_per_trial``, ``train_loglik``.
    totals : pandas.DataFrame
        One row per architecture: held-out ``loglik`` summed over folds, ``n_test``,
        ``loglik_per_trial``, and ``diff`` to the best.
    p_right : dict
        arch -> the held-out p(right) per trial (NaN on the first block), read-only.
    fold : numpy.ndarray
        The fold of each trial (:func:`session_folds`).
    folds : int
        The number of held-out blocks.

    Examples
    --------
    >>> import numpy as np
    >>> from learncore.learning_rules import simulate
    >>> mouse = simulate("1L", {"W": np.zeros((2, 3)), "eta": 0.05, "beta": 8.0}, 600, session_length=100, seed=1)
    >>> res = heldout_loglik(mouse, archs=("1L",), folds=2, restarts=1, max_iter=50, seed=0)
    >>> res.totals.index.tolist(), int(res.totals.loc["1L", "n_test"])
    (['1L'], 400)
    """

    table: Any
    totals: Any
    p_right: Any
    fold: np.ndarray
    folds: int

    @property
    def best(self) -> str:
        """The architecture with the largest held-out log-likelihood."""
        return str(self.totals.index[0])

    def _repr_parts(self):
        return [("folds", self.folds), ("best", self.best),
                ("loglik", float(self.totals["loglik"].iloc[0])), ("n_test", int(self.totals["n_test"].iloc[0]))]

    def summary(self) -> str:
        """Held-out log-likelihood per architecture, best first."""
        head = (f"Held-out log-likelihood, forward-chained by session: {self.folds} folds, "
                f"{int(self.totals['n_test'].iloc[0])} held-out trials")
        return f"{head}\n\n{self.totals.to_string()}\n"

    def to_frame(self) -> pd.DataFrame:
        """The per-fold table (a copy)."""
        return self.table.copy()

    def _plot(self, ax=None, **kwargs):
        import matplotlib.pyplot as plt

        if ax is None:
            fig, ax = plt.subplots(figsize=(5, 3.5))
        else:
            fig = ax.figure
        for arch, g in self.table.groupby("arch", sort=False):
            ax.plot(g["fold"], g["loglik_per_trial"], marker="o", label=arch, **kwargs)
        ax.axhline(-np.log(2), color="grey", ls="--", lw=0.8, label="chance")
        ax.set_xlabel("fold (held-out block of sessions)")
        ax.set_ylabel("held-out log-likelihood per trial (nats)")
        ax.set_xticks(sorted(self.table["fold"].unique()))
        ax.set_title("Held-out predictive log-likelihood (higher is better)", fontsize=10)
        ax.legend(fontsize=8)
        fig.tight_layout()
        return ax


def _fold_fit(tr_train, tr_upto, test, a, rule, hidden, restarts, seed_seq, fit_kwargs):
    """One (fold, architecture) fit and its held-out p(right) on the test rows (a parallel task)."""
    from statcore.utils import thread_limit

    from ._fit import fit, replay_p_right

    with thread_limit(1):
        f = fit(tr_train, arch=a, rule=rule, hidden=hidden, restarts=restarts, seed=np.random.default_rng(seed_seq),
                warn=False, **{"ridge_iter": 0, **fit_kwargs})
        p, _ = replay_p_right(tr_upto, a, f.params, rule=rule, baseline=f.baseline)
    return p[test], f.loglik


def heldout_loglik(trials, *, archs: Sequence[str] = ("1L", "2L", "2NL"), folds: int = 4, rule: str = "rpe",
                   hidden: int = 3, restarts: int = 8, seed=None, n_jobs: int = 1, progress=None,
                   **fit_kwargs) -> HeldOutLoglik:
    """Held-out predictive log-likelihood of each architecture, cross-validated by session (forward
    chaining).

    The sessions are cut into ``folds + 1`` contiguous blocks. For fold k = 0..folds-1 every
    architecture is fitted (:func:`fit`) to the trials of blocks 0..k, and its p(right) on block
    k + 1 is replayed through the animal's own choices and rewards (teacher forcing, as in the fit);
    the held-out score is the sum of log p(choice) over those trials. Folds are forward-chained, not
    left-one-out, because a learning network's weights on a session depend on every earlier trial.

    Parameters
    ----------
    trials : pandas.DataFrame
        The trials table, with a ``session`` column of at least ``folds + 1`` sessions (see
        :func:`check_trials`).
    archs : sequence of {"1L", "2L", "2NL"}
        The architectures scored.
    folds : int
        Held-out blocks of sessions.
    rule : {"rpe", "reinforce", "supervised"}
        Passed to :func:`fit`.
    hidden : int
        Passed to :func:`fit`.
    restarts : int
        Passed to :func:`fit`.
    seed : None, int or numpy.random.Generator
        One seed; each (fold, arch) fit gets its own stream spawned from it.
    n_jobs : int
        Workers over the (fold, arch) fits (joblib's convention); the result does not depend on it.
    progress : bool or None
        A progress bar over the fits (None: only on a terminal).
    **fit_kwargs
        Other arguments of :func:`fit` (``max_iter``, ``gtol``, ``baseline``).

    Returns
    -------
    HeldOutLoglik
        Per fold and architecture the held-out log-likelihood; ``totals`` summed over folds, best
        first; the held-out ``p_right`` per architecture.

    References
    ----------
    Bergmeir, C. & Benitez, J. M. (2012). On the use of cross-validation for time series predictor
    evaluation. Information Sciences 191:192. Hyndman, R. J. & Athanasopoulos, G. (2021).
    Forecasting: Principles and Practice, 3rd ed., sec. 5.10 (time series cross-validation).

    Examples
    --------
    >>> import numpy as np
    >>> from learncore.learning_rules import simulate
    >>> mouse = simulate("1L", {"W": np.zeros((2, 3)), "eta": 0.05, "beta": 8.0}, 600, session_length=100, seed=1)
    >>> res = heldout_loglik(mouse, archs=("1L",), folds=2, restarts=1, max_iter=50, seed=0)
    >>> res.table[["fold", "arch", "n_train", "n_test"]]
       fold arch  n_train  n_test
    0     0   1L      200     200
    1     1   1L      400     200
    """
    from statcore.utils import check_n_jobs, check_progress, check_seed, parallel_map, spawn_seeds

    if isinstance(archs, str):
        archs = (archs,)
    if not isinstance(archs, (list, tuple)) or not archs:
        raise TypeError(f"archs must be a non-empty sequence of architectures; got {archs!r}")
    archs = tuple(check_arch(a) for a in archs)
    if len(set(archs)) != len(archs):
        raise ValueError(f"archs has duplicates: {archs}")
    rule = check_rule(rule)
    for a in archs:
        check_hidden(hidden, a)
    n_jobs, progress = check_n_jobs(n_jobs), check_progress(progress)
    if "session" not in getattr(trials, "columns", ()):
        check_trials(trials)
        raise ValueError("trials needs a 'session' column: the folds are blocks of sessions")
    fold = session_folds(trials, folds=folds)
    data = check_trials(trials)
    root = check_seed(seed)
    seeds = spawn_seeds(root, folds * len(archs))
    sessions = np.asarray(data.session_labels, dtype=object)
    rows = []
    p_out = {a: np.full(data.n_trials, np.nan) for a in archs}
    tasks, meta = [], []
    for k in range(folds):
        train = np.flatnonzero(fold < k)
        test = np.flatnonzero(fold == k)
        end = int(test[-1]) + 1
        tr_train = trials.iloc[train[0]:int(train[-1]) + 1]
        tr_upto = trials.iloc[:end]
        for j, a in enumerate(archs):
            if len(train) <= n_params(a, hidden if a != "1L" else 0):
                raise ValueError(f"fold {k}: {len(train)} training trials are too few for {a}; lower folds")
            tasks.append((tr_train, tr_upto, test, a, rule, hidden, restarts, seeds[k * len(archs) + j], fit_kwargs))
            meta.append((k, a, train, test))
    results = parallel_map(_fold_fit, tasks, n_jobs=n_jobs, progress=progress, desc="held-out fits", unit="fit")
    for (k, a, train, test), (pt, train_ll) in zip(meta, results):
        y = data.choice[test]
        with np.errstate(divide="ignore"):
            ll = float(np.sum(np.log(np.where(y == 1, pt, 1.0 - pt))))
        p_out[a][test] = pt
        sess = sessions[np.unique(data.session[test])]
        rows.append(dict(fold=k, arch=a, first_session=sess[0], last_session=sess[-1], n_train=len(train),
                         n_test=len(test), loglik=ll, loglik_per_trial=ll / len(test), train_loglik=train_ll))
    table = pd.DataFrame(rows)
    tot = table.groupby("arch", sort=False)[["loglik", "n_test"]].sum()
    tot["loglik_per_trial"] = tot["loglik"] / tot["n_test"]
    tot = tot.sort_values("loglik", ascending=False)
    tot["diff"] = tot["loglik"] - tot["loglik"].iloc[0]
    return HeldOutLoglik(table=table, totals=tot, p_right=p_out, fold=fold, folds=folds)
