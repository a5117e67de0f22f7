"""A cohort: every architecture fitted to every animal, compared by AIC per animal (:func:`fit_many`)."""
from __future__ import annotations

import warnings
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd
from statcore import ConvergenceWarning
from statcore.utils import check_n_jobs, check_progress, check_seed, parallel_map, spawn_seeds, thread_limit

from ._model import check_arch, check_hidden, check_rule, n_params
from ._trials import check_trials
from ._fit import fit
from .results import LearningRuleFit

__all__ = ["fit_many"]


def _fit_one(key, arch, trials, kwargs, seed_seq):
    with thread_limit(1):
        return key, arch, fit(trials, arch=arch, seed=np.random.default_rng(seed_seq), warn=False, **kwargs)


def _animals(animals, animal_col: str) -> dict:
    if isinstance(animals, pd.DataFrame):
        if not isinstance(animal_col, str) or animal_col not in animals.columns:
            raise ValueError(f"animals is a DataFrame without the column animal_col={animal_col!r}; pass "
                             f"animal_col= or a mapping animal -> trials")
        if animals[animal_col].isna().any():
            raise ValueError(f"animals[{animal_col!r}] has missing labels (first at row "
                             f"{int(np.flatnonzero(animals[animal_col].isna().to_numpy())[0])}); every trial "
                             f"must belong to an animal")
        return {k: g.drop(columns=[animal_col]).reset_index(drop=True)
                for k, g in animals.groupby(animal_col, sort=False)}
    if isinstance(animals, Mapping):
        return dict(animals)
    raise TypeError(f"animals must be a mapping animal -> trials DataFrame or a DataFrame; got "
                    f"{type(animals).__name__}")


def fit_many(animals, *, archs: Sequence[str] = ("1L", "2L", "2NL"), rule: str = "rpe", hidden: int = 3,
             restarts: int = 8, seed=None, n_jobs: int = 1, criterion: str = "AIC", B: int = 1000,
             animal_col: str = "subject", progress: bool | None = None,
             **fit_kwargs):
    """Fit every architecture to every animal and compare them by AIC per animal.

    Parameters
    ----------
    animals : mapping or pandas.DataFrame
        A mapping animal -> trials table (see :func:`check_trials`), or one long table with an
        ``animal_col`` column. Missing values are refused (in the trials and in the animal labels).
    archs : sequence of {"1L", "2L", "2NL"}
        The architectures compared.
    rule : {"rpe", "reinforce", "supervised"} or LearningRule
        Passed to :func:`fit`.
    hidden : int
        Passed to :func:`fit`.
    restarts : int
        Passed to :func:`fit`.
    seed : None, int or numpy.random.Generator
        One seed for the cohort: each (animal, architecture) gets its own stream spawned from it, so
        results do not depend on ``n_jobs``.
    n_jobs : int
        Parallel fits through joblib (-1: all cores).
    criterion : {"AIC", "BIC", "AICc"}
        Passed to :func:`statcore.compare_by_group`.
    B : int
        Bootstrap replicates over animals, passed to :func:`statcore.compare_by_group`.
    animal_col : str
        The animal column of a long table.
    progress : bool, optional
        A progress bar (tqdm) counting finished fits, also with ``n_jobs`` workers or on a Dask
        cluster (``joblib.parallel_config(backend="dask")``), then the bootstrap's. Default (None):
        only when standard error is a terminal.
    **fit_kwargs
        Other arguments of :func:`fit` (``max_iter``, ``gtol``, ``baseline``, ``backend``, ...).
        ``warn=False`` silences the one ConvergenceWarning that sums up the unconverged fits (the
        single fits never warn one by one here).

    Returns
    -------
    statcore.GroupComparison
        "2NL best in k of n" (``headline()``), per-animal winners and deltas, and every fit as
        ``fits`` ({animal: {arch: LearningRuleFit}}).

    References
    ----------
    Liebana et al. (2025). Dopamine encodes deep network teaching signals for individual learning
    trajectories. Cell 188:3789. Burnham, K. P. & Anderson, D. R. (2002). Model Selection and
    Multimodel Inference, 2nd ed. Springer.

    Examples
    --------
    >>> import numpy as np
    >>> from learncore.learning_rules import simulate
    >>> one = {"W": np.zeros((2, 3)), "eta": 0.05, "beta": 8.0}
    >>> mice = {f"m{k}": simulate("1L", one, 300, seed=k) for k in range(2)}
    >>> res = fit_many(mice, archs=("1L",), restarts=1, max_iter=100, B=0, seed=0)
    >>> res.n_groups, sorted(res.fits)
    (2, ['m0', 'm1'])
    """
    import statcore

    groups = _animals(animals, animal_col)
    if not groups:
        raise ValueError("animals is empty")
    if isinstance(archs, str):
        archs = (archs,)
    if not isinstance(archs, (list, tuple)):
        raise TypeError(f"archs must be a sequence of architectures; got {type(archs).__name__}")
    archs = tuple(check_arch(a) for a in archs)
    if not archs:
        raise ValueError("archs is empty")
    if len(set(archs)) != len(archs):
        raise ValueError(f"archs has duplicates: {archs}")
    rule = check_rule(rule)
    hidden_p = max(n_params(a, check_hidden(hidden, a)) for a in archs)
    for k, tr in groups.items():
        check_trials(tr, n_params=hidden_p, name=f"animals[{k!r}]")
    n_jobs = check_n_jobs(n_jobs)
    progress = check_progress(progress)
    root = check_seed(seed)
    seeds = spawn_seeds(root, len(groups) * len(archs))
    warn = fit_kwargs.pop("warn", True)  # fit's warn: here it gates the one summary warning below
    if not isinstance(warn, (bool, np.bool_)):
        raise TypeError(f"warn must be True or False, got {type(warn).__name__}")
    kwargs = dict(rule=rule, hidden=hidden, restarts=restarts, **fit_kwargs)
    jobs = [(key, arch, tr, kwargs, seeds[i * len(archs) + j])
            for i, (key, tr) in enumerate(groups.items()) for j, arch in enumerate(archs)]
    out = parallel_map(_fit_one, jobs, n_jobs=n_jobs, progress=progress, desc="fits", unit="fit")
    fits: dict[Any, dict[str, LearningRuleFit]] = {key: {} for key in groups}
    for key, arch, f in out:
        fits[key][arch] = f
    unconverged = [(k, a) for k, d in fits.items() for a, f in d.items() if not f.converged]
    if unconverged and warn:
        by_arch = {a: sum(1 for _, b in unconverged if b == a) for a in archs}
        warnings.warn(f"{len(unconverged)} of {len(jobs)} fits stopped before the gradient tolerance "
                      f"({', '.join(f'{a}: {n}' for a, n in by_arch.items() if n)}); see each fit's restarts "
                      f"table and raise max_iter to check their log-likelihoods", ConvergenceWarning, stacklevel=3)
    comparison = statcore.compare_by_group(fits, criterion=criterion, B=B, seed=root, n_jobs=n_jobs,
                                           progress=progress)
    return comparison
