"""learncore's input door: the scalar validators every public function of learning_rules calls.

Seeds and ``n_jobs`` go through ``statcore.utils`` (``check_seed``, ``check_n_jobs``); the trials table
through :func:`._trials.check_trials`; architectures, rules and parameters through ``_model``. Errors
name the argument, say what was wrong and what to do; nothing here modifies its input.
"""
from __future__ import annotations

import numbers
from typing import Any, Iterable

import numpy as np
import pandas as pd
from statcore.utils import (as_float_array, check_choice, check_finite_real, check_nan_policy, check_positive_int,
                            check_positive_real)

# the generic scalar checks are statcore's (statcore.utils); these are learncore's own
__all__ = ["check_positive_int", "check_positive_real", "check_finite_real", "check_choice",
           "check_p_right", "check_by", "check_baseline"]


def check_baseline(baseline: Any) -> float:
    """The REINFORCE baseline b: a finite number."""
    return check_finite_real(baseline, "baseline")


def check_by(by: Any) -> "str | int":
    """``by`` of the behavioural metrics: "session" or a positive number of trials per block."""
    if isinstance(by, str):
        if by != "session":
            raise ValueError(f"by must be 'session' or a positive number of trials per block, got {by!r}")
        return by
    if isinstance(by, (bool, np.bool_)) or not isinstance(by, numbers.Integral):
        raise TypeError(f"by must be 'session' or a positive int (trials per block), got {type(by).__name__}")
    if by < 1:
        raise ValueError(f"by must be a positive number of trials per block, got {by}")
    return int(by)


def check_p_right(p_right: Any, trials: pd.DataFrame, n_trials: int, *, nan_policy: str = "raise"
                  ) -> tuple[np.ndarray, np.ndarray | None]:
    """A model's p(right) per trial: an array or Series of length ``n_trials`` in [0, 1], or the name of
    a column of ``trials``. Returns the probabilities (float64, a copy) and the trials kept (None: all).

    ``nan_policy``: "raise" refuses NaN (naming the first trial), "omit" keeps the trials without one.
    Infinite values and values outside [0, 1] are always refused.
    """
    nan_policy = check_nan_policy(nan_policy, ("raise", "omit"))
    if isinstance(p_right, str):
        if p_right not in trials.columns:
            raise ValueError(f"p_right={p_right!r} is not a column of trials")
        p_right = trials[p_right]
    if isinstance(p_right, pd.DataFrame):
        raise TypeError("p_right must be one probability per trial (array or Series), got a DataFrame")
    values = p_right.to_numpy() if isinstance(p_right, pd.Series) else p_right
    # statcore's one input door: numbers only (text, even "0.4", and booleans are refused, naming p_right)
    p = as_float_array(values, "p_right", allow_nan=True, allow_inf=True, copy=True)
    if p.ndim != 1 or p.shape[0] != n_trials:
        raise ValueError(f"p_right must hold one probability per trial ({n_trials}), got shape {p.shape}")
    inf = np.isinf(p)
    if inf.any():
        raise ValueError(f"p_right has {int(inf.sum())} infinite value(s), first at trial {int(np.flatnonzero(inf)[0])}")
    nan = np.isnan(p)
    keep = None
    if nan.any():
        if nan_policy == "raise":
            raise ValueError(f"p_right has {int(nan.sum())} NaN value(s), first at trial {int(np.flatnonzero(nan)[0])}; "
                             f"pass nan_policy='omit' to leave those trials out")
        keep = ~nan
        if not keep.any():
            raise ValueError("p_right is NaN on every trial; nothing is left after nan_policy='omit'")
    bad = (p < 0) | (p > 1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"p_right must lie in [0, 1] (the model's probability of 'right'); trial {i} holds "
                         f"{float(p[i])!r}")
    return p, keep
