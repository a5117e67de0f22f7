"""The trials table: what every learncore.learning_rules function takes and gives.

One row per trial, in the order the animal did them. Columns:

``contrast_left``, ``contrast_right``
    Stimulus contrast on each side, >= 0 and finite; 0 where that side showed nothing (the IBL
    format's NaN for "no stimulus" is converted by :func:`from_ibl`).
``input_left``, ``input_right`` (instead of the contrasts)
    For tasks other than IBL's one-grating task: two finite real stimuli, any sign, both present on
    every trial (e.g. the two z-scored tone amplitudes of the rat task of :func:`from_psytrack`, where
    "right" is correct when ``input_right > input_left``). The network's input is then
    [input_left, input_right, 1]; behavioural metrics use input_right - input_left as the signed
    stimulus.
``choice``
    ``"left"`` or ``"right"`` (strings), or integers 0 (left) and 1 (right).
``reward``
    1 if the choice was rewarded, 0 if not (booleans are taken as 1/0).
``session`` (optional)
    Session label, constant within a session; sessions must be contiguous blocks of rows.
    Without it all trials form one session.

The model's input on trial t is x_t = [c_L, c_R, 1] (or [input_left, input_right, 1]). In this two-alternative task the rewarded side is
the chosen side when reward = 1 and the other side when reward = 0.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

REQUIRED_COLUMNS = ("contrast_left", "contrast_right", "choice", "reward")
INPUT_COLUMNS = ("input_left", "input_right")


def input_columns(trials: pd.DataFrame) -> tuple[str, str]:
    """The two stimulus columns of a trials table: the contrasts, or the generic inputs."""
    if "contrast_left" in trials.columns or "contrast_right" in trials.columns:
        return ("contrast_left", "contrast_right")
    if any(c in trials.columns for c in INPUT_COLUMNS):
        return INPUT_COLUMNS
    return ("contrast_left", "contrast_right")
CHOICES = ("left", "right")


@dataclass(frozen=True)
class TrialData:
    """Validated arrays of a trials table (float64 and int64, C-contiguous)."""

    x: np.ndarray          # (T, 3): c_L, c_R, 1
    choice: np.ndarray     # (T,) int64: 0 left, 1 right
    reward: np.ndarray     # (T,) float64: 0 or 1
    session: np.ndarray    # (T,) int64 codes 0, 1, ... in order of appearance
    session_labels: list   # label of each code

    @property
    def n_trials(self) -> int:
        return int(self.x.shape[0])

    @property
    def rewarded_side(self) -> np.ndarray:
        """1 where the right side was rewarded (chosen and rewarded, or not chosen and unrewarded)."""
        return np.where(self.reward > 0.5, self.choice, 1 - self.choice).astype(np.int64)


def _choice_codes(col: pd.Series, name: str) -> np.ndarray:
    values = col.to_numpy()
    if values.dtype.kind in "OUS":
        ok = np.isin(values.astype(object), np.array(CHOICES, dtype=object))
        if not ok.all():
            bad = values[~ok][0]
            raise ValueError(f"{name}['choice'] must be 'left' or 'right' (or 0/1 with 1 = right); "
                             f"row {int(np.flatnonzero(~ok)[0])} holds {np.asarray(bad).item()!r}. IBL tables code choices as "
                             f"-1/+1/0: read them with learncore.learning_rules.from_ibl")
        return (values.astype(object) == "right").astype(np.int64)
    if values.dtype.kind == "b":
        raise TypeError(f"{name}['choice'] is boolean; use 'left'/'right' or 0/1 with 1 = right")
    if values.dtype.kind in "iuf":
        ok = np.isin(values, (0, 1))
        if not ok.all():
            bad = values[~ok][0]
            raise ValueError(f"{name}['choice'] must be 'left' or 'right' (or 0/1 with 1 = right); "
                             f"row {int(np.flatnonzero(~ok)[0])} holds {np.asarray(bad).item()!r}. IBL tables code choices as "
                             f"-1/+1/0: read them with learncore.learning_rules.from_ibl")
        return values.astype(np.int64)
    raise TypeError(f"{name}['choice'] has dtype {values.dtype}; use 'left'/'right' or 0/1")


def check_trials(trials, *, n_params: int | None = None, name: str = "trials") -> TrialData:
    """Validate a trials table and return its arrays; raise naming the column and row on bad input.

    Missing values are refused in every column (there is no ``nan_policy``: every trial needs its
    contrasts, choice and reward, and dropping trials would change the learning history the models
    replay). IBL's NaN for "no stimulus on this side" is converted by :func:`from_ibl`.

    Parameters
    ----------
    trials : pandas.DataFrame
        ``contrast_left``, ``contrast_right`` (in [0, 1], 0 on the side without a stimulus; or
        ``input_left``, ``input_right``, any finite reals, for other two-stimulus tasks),
        ``choice`` ("left"/"right" or 0/1 with 1 = right), ``reward`` (0/1), optional ``session``
        (contiguous blocks of rows).
    n_params : int, optional
        The number of free parameters about to be fitted; a table with no more trials than that is
        refused (a maximum-likelihood fit and its AIC need more observations than parameters).
    name : str
        How error messages call the table.

    Returns
    -------
    TrialData
        The validated arrays: ``x`` (T, 3) = [c_L, c_R, 1], ``choice`` (0/1), ``reward``, ``session``
        codes and ``session_labels``; ``n_trials`` and ``rewarded_side``.

    References
    ----------
    The International Brain Laboratory et al. (2021). Standardized and reproducible measurement of
    decision-making in mice. eLife 10:e63711 (the task and its trial variables).

    Examples
    --------
    >>> import pandas as pd
    >>> trials = pd.DataFrame({"contrast_left": [0.25, 0.0], "contrast_right": [0.0, 1.0],
    ...                        "choice": ["left", "left"], "reward": [1, 0]})
    >>> data = check_trials(trials)
    >>> data.n_trials, data.rewarded_side.tolist()
    (2, [0, 1])
    """
    if not isinstance(trials, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas DataFrame with columns {', '.join(REQUIRED_COLUMNS)}; "
                        f"got {type(trials).__name__}")
    if (any(c in trials.columns for c in INPUT_COLUMNS)
            and any(c in trials.columns for c in ("contrast_left", "contrast_right"))):
        raise ValueError(f"{name} has both contrast columns and input_left/input_right; keep one pair")
    stim = input_columns(trials)
    generic = stim == INPUT_COLUMNS
    need = (*stim, "choice", "reward")
    missing = [c for c in need if c not in trials.columns]
    if missing:
        raise ValueError(f"{name} lacks column(s) {', '.join(missing)}; it needs {', '.join(REQUIRED_COLUMNS)} "
                         f"(or input_left, input_right in place of the contrasts; optionally 'session')")
    T = len(trials)
    if T == 0:
        raise ValueError(f"{name} has no trials")
    cols = []
    for c in stim:
        v = trials[c].to_numpy()
        if v.dtype.kind not in "iuf":
            raise TypeError(f"{name}[{c!r}] must be numeric, got dtype {v.dtype}")
        v = v.astype(np.float64)
        bad = ~np.isfinite(v)
        if bad.any():
            raise ValueError(f"{name}[{c!r}] has {int(bad.sum())} NaN or infinite value(s), first at row "
                             f"{int(np.flatnonzero(bad)[0])}" + ("" if generic else
                             "; use 0 for 'no stimulus on this side' (from_ibl converts IBL's NaN)"))
        if not generic and (v < 0).any():
            raise ValueError(f"{name}[{c!r}] must be >= 0 (contrast of the stimulus on that side); "
                             f"row {int(np.flatnonzero(v < 0)[0])} holds {v[v < 0][0].item()!r}")
        if not generic and (v > 1).any():
            raise ValueError(f"{name}[{c!r}] must be a contrast in [0, 1]; row {int(np.flatnonzero(v > 1)[0])} "
                             f"holds {float(v[v > 1][0])!r} (percent? divide by 100)")
        cols.append(v)
    both = (cols[0] > 0) & (cols[1] > 0)
    if not generic and both.any():
        raise ValueError(f"{name} has a stimulus on both sides at row {int(np.flatnonzero(both)[0])}; the task "
                         f"shows one grating per trial (0 on the other side)")
    choice = _choice_codes(trials["choice"], name)
    r = trials["reward"].to_numpy()
    if r.dtype.kind == "b":
        r = r.astype(np.float64)
    elif r.dtype.kind in "iuf":
        r = r.astype(np.float64)
    else:
        raise TypeError(f"{name}['reward'] must be 0/1, got dtype {r.dtype}")
    okr = (r == 0) | (r == 1)
    if not okr.all():
        raise ValueError(f"{name}['reward'] must be 0 or 1; row {int(np.flatnonzero(~okr)[0])} holds "
                         f"{np.asarray(r[~okr][0]).item()!r}")
    if "session" in trials.columns:
        s = trials["session"]
        if s.isna().any():
            raise ValueError(f"{name}['session'] has missing values, first at row "
                             f"{int(np.flatnonzero(s.isna().to_numpy())[0])}")
        codes, labels = pd.factorize(s, sort=False)
        change = np.flatnonzero(np.diff(codes) != 0) + 1
        if len(change) + 1 != len(labels):
            raise ValueError(f"{name}['session'] must label contiguous blocks of trials (one block per "
                             f"session, in time order); a session label reappears after another session")
        session = codes.astype(np.int64)
        session_labels = list(labels)
    else:
        session = np.zeros(T, dtype=np.int64)
        session_labels = [0]
    if n_params is not None and T <= n_params:
        raise ValueError(f"{name} has {T} trials, too few for a model with {n_params} free parameters; "
                         f"a maximum-likelihood fit needs more trials than parameters")
    x = np.ascontiguousarray(np.column_stack([cols[0], cols[1], np.ones(T)]))
    return TrialData(x=x, choice=np.ascontiguousarray(choice), reward=np.ascontiguousarray(r),
                     session=session, session_labels=session_labels)
