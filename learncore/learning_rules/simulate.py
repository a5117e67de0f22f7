"""Synthetic animals: IBL-style contrast schedules and learning networks that choose on them."""
from __future__ import annotations

import numbers
from typing import Mapping

import numpy as np
import pandas as pd

from ._model import ARCH_CODE, RULE_CODE, LearningRule, check_arch, check_rule, pack

#: the unsigned contrasts of the IBL task (Int. Brain Lab., eLife 2021); 0 is shown on a random side
IBL_CONTRASTS = (0.0, 0.0625, 0.125, 0.25, 1.0)


def _rng(seed, name="seed") -> np.random.Generator:
    if seed is None or isinstance(seed, (numbers.Integral, np.random.SeedSequence)) and not isinstance(seed, bool):
        return np.random.default_rng(seed)
    if isinstance(seed, np.random.Generator):
        return seed
    raise TypeError(f"{name} must be None, an int or a numpy.random.Generator; got {type(seed).__name__}")


def contrast_schedule(n_trials: int, *, contrasts=IBL_CONTRASTS, session_length: int = 500,
                      seed=None) -> pd.DataFrame:
    """An IBL-style schedule: per trial a side (left/right with probability 1/2) and a contrast drawn
    uniformly from ``contrasts``; sessions of ``session_length`` trials.

    Returns a frame with ``session``, ``contrast_left``, ``contrast_right``, ``signed_contrast``
    (right minus left) and ``stim_side`` ("left"/"right", the rewarded side, needed for zero contrast).
    """
    if isinstance(n_trials, bool) or not isinstance(n_trials, numbers.Integral) or n_trials < 1:
        raise ValueError(f"n_trials must be a positive integer; got {n_trials!r}")
    if isinstance(session_length, bool) or not isinstance(session_length, numbers.Integral) or session_length < 1:
        raise ValueError(f"session_length must be a positive integer; got {session_length!r}")
    levels = np.asarray(contrasts, dtype=np.float64)
    if levels.ndim != 1 or levels.size == 0 or not np.isfinite(levels).all() or (levels < 0).any():
        raise ValueError("contrasts must be a non-empty sequence of finite contrasts >= 0")
    rng = _rng(seed)
    side = rng.integers(0, 2, size=n_trials)
    c = levels[rng.integers(0, levels.size, size=n_trials)]
    return pd.DataFrame({
        "session": np.arange(n_trials) // session_length,
        "contrast_left": np.where(side == 0, c, 0.0),
        "contrast_right": np.where(side == 1, c, 0.0),
        "signed_contrast": np.where(side == 1, c, -c),
        "stim_side": np.where(side == 1, "right", "left"),
    })


def _check_baseline(baseline) -> float:
    if isinstance(baseline, bool) or not isinstance(baseline, numbers.Real):
        raise TypeError(f"baseline must be a number (the REINFORCE baseline); got {baseline!r}")
    if not np.isfinite(baseline):
        raise ValueError(f"baseline must be finite; got {baseline!r}")
    return float(baseline)


def _hidden_of(arch: str, params: Mapping) -> int:
    if not isinstance(params, Mapping):
        raise TypeError(f"params must be a mapping with 'eta', 'beta' and the initial weights; got "
                        f"{type(params).__name__}")
    if arch == "1L":
        return 0
    if "W1" not in params:
        raise ValueError(f"params for arch {arch!r} need 'W1' (hidden x 3), 'W2' (2 x hidden), 'eta', 'beta'")
    w1 = np.asarray(params["W1"])
    if w1.ndim != 2 or w1.shape[1] != 3:
        raise ValueError(f"params['W1'] must have shape (hidden, 3); got {w1.shape}")
    return int(w1.shape[0])


def simulate(arch: str, params: Mapping, contrasts, *, rule: str = "rpe", baseline: float = 0.5,
             session_length: int = 500, seed=None) -> pd.DataFrame:
    """Simulate an animal whose choices come from a learning network.

    Parameters
    ----------
    arch : {"1L", "2L", "2NL"}
    params : mapping
        ``eta`` (learning rate), ``beta`` (inverse temperature) and the initial weights: ``W`` (2 x 3)
        for 1L, ``W1`` (hidden x 3) and ``W2`` (2 x hidden) for 2L/2NL. A fit's ``params`` works.
    contrasts : int, array of signed contrasts, or DataFrame
        An int draws :func:`contrast_schedule` with that many trials. An array gives the signed
        contrast (right minus left) of each trial; zero-contrast trials get a random side. A frame
        with ``contrast_left``/``contrast_right`` (and optionally ``stim_side``, ``session``) is used
        as it stands.
    rule : {"rpe", "reinforce", "supervised"} or LearningRule
        A plug-in :class:`LearningRule` runs in PyTorch (slower), the built-ins compiled.
    baseline : float
        The REINFORCE baseline b.
    session_length : int
        Trials per session when the schedule has no ``session`` column.
    seed : None, int or numpy.random.Generator

    Returns
    -------
    pandas.DataFrame
        The trials table (``session``, ``trial``, ``contrast_left``, ``contrast_right``,
        ``signed_contrast``, ``stim_side``, ``choice`` "left"/"right", ``reward`` 0/1) plus the
        model's ``p_right`` on each trial, before that trial's update.
    """
    arch = check_arch(arch)
    rule = check_rule(rule)
    hidden = _hidden_of(arch, params)
    theta = pack(arch, hidden, params)
    baseline = _check_baseline(baseline)
    if isinstance(session_length, bool) or not isinstance(session_length, numbers.Integral) or session_length < 1:
        raise ValueError(f"session_length must be a positive integer; got {session_length!r}")
    rng = _rng(seed)
    if isinstance(contrasts, numbers.Integral) and not isinstance(contrasts, bool):
        sched = contrast_schedule(int(contrasts), session_length=session_length, seed=rng)
    elif isinstance(contrasts, pd.DataFrame):
        missing = [c for c in ("contrast_left", "contrast_right") if c not in contrasts.columns]
        if missing:
            raise ValueError(f"contrasts (a DataFrame) lacks column(s) {', '.join(missing)}")
        sched = contrasts.reset_index(drop=True).copy()
        cl = sched["contrast_left"].to_numpy(dtype=np.float64)
        cr = sched["contrast_right"].to_numpy(dtype=np.float64)
        if not (np.isfinite(cl).all() and np.isfinite(cr).all()) or (cl < 0).any() or (cr < 0).any():
            raise ValueError("contrasts' contrast_left and contrast_right must be finite and >= 0")
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
    else:
        sc = np.asarray(contrasts, dtype=np.float64)
        if sc.ndim != 1 or sc.size == 0:
            raise ValueError("contrasts must be an int, a 1-d array of signed contrasts or a DataFrame")
        if not np.isfinite(sc).all():
            raise ValueError(f"contrasts has NaN or infinite values, first at position "
                             f"{int(np.flatnonzero(~np.isfinite(sc))[0])}")
        side = np.where(sc > 0, 1, 0)
        zero = sc == 0
        side[zero] = rng.integers(0, 2, zero.sum())
        sched = pd.DataFrame({"session": np.arange(sc.size) // session_length,
                              "contrast_left": np.where(sc < 0, -sc, 0.0),
                              "contrast_right": np.where(sc > 0, sc, 0.0),
                              "signed_contrast": sc,
                              "stim_side": np.where(side == 1, "right", "left")})
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
    x = np.ascontiguousarray(np.column_stack([sched["contrast_left"].to_numpy(np.float64),
                                              sched["contrast_right"].to_numpy(np.float64), np.ones(T)]))
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
        raise FloatingPointError("the simulated network diverged (non-finite values); lower eta")
    out = sched[["session", "contrast_left", "contrast_right", "signed_contrast", "stim_side"]].copy()
    out.insert(1, "trial", np.arange(T))
    out["choice"] = np.where(choice == 1, "right", "left")
    out["reward"] = reward.astype(np.int64)
    out["p_right"] = pr
    return out
