"""Synthetic animals: IBL-style contrast schedules and learning networks that choose on them."""
from __future__ import annotations

import numbers
from typing import Mapping

import numpy as np
import pandas as pd
from statcore.utils import as_float_array, check_seed

from ._checks import check_baseline, check_positive_int
from ._model import ARCH_CODE, RULE_CODE, LearningRule, check_arch, check_rule, hidden_of, pack

__all__ = ["IBL_CONTRASTS", "contrast_schedule", "simulate"]

#: the unsigned contrasts of the IBL task (Int. Brain Lab., eLife 2021); 0 is shown on a random side
IBL_CONTRASTS = (0.0, 0.0625, 0.125, 0.25, 1.0)


def _as_levels(contrasts) -> np.ndarray:
    if isinstance(contrasts, (str, bytes)) or contrasts is None:
        raise TypeError(f"contrasts must be a non-empty sequence of contrast levels >= 0; got {contrasts!r}")
    try:
        levels = np.array(contrasts, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"contrasts must be a sequence of numbers (contrast levels >= 0); got {contrasts!r}") from None
    if levels.ndim != 1 or levels.size == 0 or not np.isfinite(levels).all() or (levels < 0).any():
        raise ValueError("contrasts must be a non-empty sequence of finite contrasts >= 0")
    _refuse_above_one(levels, "contrasts")
    return levels


def _refuse_above_one(values: np.ndarray, what: str) -> None:
    """Contrasts are fractions in [0, 1] (IBL's 1.0 is 100 %), as check_trials requires of a trials table."""
    big = np.abs(values) > 1
    if big.any():
        raise ValueError(f"{what} must be contrasts in [0, 1] (in absolute value); position {int(np.flatnonzero(big)[0])} "
                         f"holds {float(values[big][0])!r} (percent? divide by 100)")


def contrast_schedule(n_trials: int, *, contrasts=IBL_CONTRASTS, session_length: int = 500,
                      seed=None) -> pd.DataFrame:
    """An IBL-style schedule: per trial a side (left/right with probability 1/2) and a contrast drawn
    uniformly from ``contrasts``; sessions of ``session_length`` trials.

    Parameters
    ----------
    n_trials : int
        Number of trials.
    contrasts : sequence of float
        The unsigned contrast levels, in [0, 1] (1 is 100 %), drawn uniformly; IBL's by default.
    session_length : int
        Trials per session.
    seed : None, int or numpy.random.Generator
        Draws the sides and contrasts.

    Returns
    -------
    pandas.DataFrame
        ``session``, ``contrast_left``, ``contrast_right``, ``signed_contrast`` (right minus left) and
        ``stim_side`` ("left"/"right", the rewarded side, needed for zero contrast).

    References
    ----------
    The International Brain Laboratory et al. (2021). Standardized and reproducible measurement of
    decision-making in mice. eLife 10:e63711.

    Examples
    --------
    >>> sched = contrast_schedule(1000, session_length=400, seed=0)
    >>> sched["session"].nunique(), sorted(set(sched["stim_side"]))
    (3, ['left', 'right'])
    """
    n_trials = check_positive_int(n_trials, "n_trials")
    session_length = check_positive_int(session_length, "session_length")
    levels = _as_levels(contrasts)
    rng = check_seed(seed)
    side = rng.integers(0, 2, size=n_trials)
    c = levels[rng.integers(0, levels.size, size=n_trials)]
    return pd.DataFrame({
        "session": np.arange(n_trials) // session_length,
        "contrast_left": np.where(side == 0, c, 0.0),
        "contrast_right": np.where(side == 1, c, 0.0),
        "signed_contrast": np.where(side == 1, c, -c),
        "stim_side": np.where(side == 1, "right", "left"),
    })


def _schedule(contrasts, session_length: int, rng: np.random.Generator) -> pd.DataFrame:
    """The schedule ``simulate`` runs: from a number of trials, signed contrasts or a frame."""
    if isinstance(contrasts, (numbers.Integral, np.integer)) and not isinstance(contrasts, (bool, np.bool_)):
        return contrast_schedule(int(contrasts), session_length=session_length, seed=rng)
    if isinstance(contrasts, pd.DataFrame):
        missing = [c for c in ("contrast_left", "contrast_right") if c not in contrasts.columns]
        if missing:
            raise ValueError(f"contrasts (a DataFrame) lacks column(s) {', '.join(missing)}")
        if len(contrasts) == 0:
            raise ValueError("contrasts (a DataFrame) has no trials")
        sched = contrasts.reset_index(drop=True).copy()
        cl = as_float_array(sched["contrast_left"], "contrasts['contrast_left']", allow_nan=True, allow_inf=True)
        cr = as_float_array(sched["contrast_right"], "contrasts['contrast_right']", allow_nan=True, allow_inf=True)
        if not (np.isfinite(cl).all() and np.isfinite(cr).all()) or (cl < 0).any() or (cr < 0).any():
            raise ValueError("contrasts' contrast_left and contrast_right must be finite and >= 0")
        _refuse_above_one(cl, "contrasts['contrast_left']")
        _refuse_above_one(cr, "contrasts['contrast_right']")
        if ((cl > 0) & (cr > 0)).any():
            raise ValueError("contrasts has trials with a stimulus on both sides; the task shows one")
        if "stim_side" not in sched.columns:
            zero = (cl == 0) & (cr == 0)
            side = np.where(cr > cl, "right", "left").astype(object)
            side[zero] = np.where(rng.integers(0, 2, zero.sum()) == 1, "right", "left")
            sched["stim_side"] = side
        if "session" not in sched.columns:
            sched["session"] = np.arange(len(sched)) // session_length
        sched["signed_contrast"] = cr - cl
        return sched
    if isinstance(contrasts, (str, bytes)) or contrasts is None or isinstance(contrasts, (bool, np.bool_)):
        raise TypeError(f"contrasts must be an int, a 1-d array of signed contrasts or a DataFrame; got {contrasts!r}")
    sc = as_float_array(contrasts, "contrasts", allow_nan=True, allow_inf=True, copy=True)
    if sc.ndim != 1 or sc.size == 0:
        raise ValueError(f"contrasts must be an int, a non-empty 1-d array of signed contrasts or a DataFrame; "
                         f"got shape {sc.shape}")
    if not np.isfinite(sc).all():
        raise ValueError(f"contrasts has NaN or infinite values, first at position "
                         f"{int(np.flatnonzero(~np.isfinite(sc))[0])}")
    _refuse_above_one(sc, "contrasts")
    side = np.where(sc > 0, 1, 0)
    zero = sc == 0
    side[zero] = rng.integers(0, 2, zero.sum())
    return pd.DataFrame({"session": np.arange(sc.size) // session_length,
                         "contrast_left": np.where(sc < 0, -sc, 0.0),
                         "contrast_right": np.where(sc > 0, sc, 0.0),
                         "signed_contrast": sc,
                         "stim_side": np.where(side == 1, "right", "left")})


def simulate(arch: str, params: Mapping, contrasts, *, rule: str = "rpe", baseline: float = 0.5,
             session_length: int = 500, seed=None) -> pd.DataFrame:
    """Simulate an animal whose choices come from a learning network.

    Parameters
    ----------
    arch : {"1L", "2L", "2NL"}
        The architecture.
    params : mapping
        ``eta`` (learning rate), ``beta`` (inverse temperature) and the initial weights: ``W`` (2 x 3)
        for 1L, ``W1`` (hidden x 3) and ``W2`` (2 x hidden) for 2L/2NL. A fit's ``params`` works.
    contrasts : int, array of signed contrasts, or DataFrame
        An int draws :func:`contrast_schedule` with that many trials. An array gives the signed
        contrast (right minus left) of each trial; zero-contrast trials get a random side. A frame
        with ``contrast_left``/``contrast_right`` (and optionally ``stim_side``, ``session``) is used
        as it stands. Contrasts lie in [0, 1] (in absolute value); NaN is refused.
    rule : {"rpe", "reinforce", "supervised"} or LearningRule
        A plug-in :class:`LearningRule` runs in PyTorch (slower), the built-ins compiled.
    baseline : float
        The REINFORCE baseline b.
    session_length : int
        Trials per session when the schedule has no ``session`` column.
    seed : None, int or numpy.random.Generator
        Draws the schedule (where needed) and the choices.

    Returns
    -------
    pandas.DataFrame
        The trials table (``session``, ``trial``, ``contrast_left``, ``contrast_right``,
        ``signed_contrast``, ``stim_side``, ``choice`` "left"/"right", ``reward`` 0/1) plus the
        model's ``p_right`` on each trial, before that trial's update.

    References
    ----------
    Liebana et al. (2025). Dopamine encodes deep network teaching signals for individual learning
    trajectories. Cell 188:3789.

    Examples
    --------
    >>> import numpy as np
    >>> mouse = simulate("1L", {"W": np.zeros((2, 3)), "eta": 0.1, "beta": 5.0}, 600, seed=3)
    >>> len(mouse), mouse["session"].nunique()
    (600, 2)
    >>> list(mouse.columns[-3:])
    ['choice', 'reward', 'p_right']
    """
    arch = check_arch(arch)
    rule = check_rule(rule)
    hidden = hidden_of(arch, params)
    theta = pack(arch, hidden, params)
    baseline = check_baseline(baseline)
    session_length = check_positive_int(session_length, "session_length")
    rng = check_seed(seed)
    sched = _schedule(contrasts, session_length, rng)
    T = len(sched)
    ss = sched["stim_side"].astype(object).to_numpy()
    if not np.isin(ss, np.array(["left", "right"], dtype=object)).all():
        raise ValueError("contrasts['stim_side'] must be 'left' or 'right'")
    side = (ss == "right").astype(np.int64)
    cl_, cr_ = sched["contrast_left"].to_numpy(np.float64), sched["contrast_right"].to_numpy(np.float64)
    wrong = ((cl_ > 0) & (side == 1)) | ((cr_ > 0) & (side == 0))
    if wrong.any():
        raise ValueError(f"contrasts['stim_side'] contradicts the contrasts at row {int(np.flatnonzero(wrong)[0])} "
                         f"(the stimulus side is where the contrast is)")
    x = np.ascontiguousarray(np.column_stack([cl_, cr_, np.ones(T)]))
    if isinstance(rule, LearningRule):
        from ._torchnets import simulate_torch

        choice, reward, pr = simulate_torch(theta, arch, rule, hidden, x, side, rng.random(T), float(baseline))
    else:
        from . import _kernels as K

        choice = np.empty(T, dtype=np.int64)
        reward = np.empty(T, dtype=np.float64)
        pr = np.empty(T, dtype=np.float64)
        K.simulate_kernel(theta, x, side, rng.random(T), ARCH_CODE[arch], RULE_CODE[rule], max(hidden, 1),
                          float(baseline), choice, reward, pr)
    if not np.isfinite(pr).all():
        raise ValueError("params: the simulated network diverged (non-finite values); lower params['eta']")
    out = sched[["session", "contrast_left", "contrast_right", "signed_contrast", "stim_side"]].copy()
    out.insert(1, "trial", np.arange(T))
    out["choice"] = np.where(choice == 1, "right", "left")
    out["reward"] = reward.astype(np.int64)
    out["p_right"] = pr
    return out
