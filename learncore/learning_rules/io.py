"""Loaders for trial tables in the International Brain Laboratory (IBL) trials format.

The IBL publishes each session's behaviour as an ALF ``_ibl_trials`` object, one value per trial:
``contrastLeft`` and ``contrastRight`` (the stimulus contrast, a fraction in [0, 1], on the side where
the stimulus was shown and NaN on the other side), ``choice`` (-1, +1, or 0 for a no-go trial) and
``feedbackType`` (+1 rewarded, -1 not). :func:`from_ibl` turns such a table into learncore's trials
table (see ``learncore/learning_rules/_trials.py``); :func:`read_ibl_trials` reads one from CSV or parquet.

Sign of ``choice``: -1 reports a stimulus on the right, +1 a stimulus on the left. Verified in the IBL's
own code (int-brain-lab/ibllib):

- ``ibllib/io/extractors/training_trials.py``, class ``Choice``: the choice is the sign of the stimulus
  position on error trials and its negative on correct trials (``choice[t] = -np.sign(position[t])``
  if correct), and class ``ContrastLR`` stores the contrast in ``contrastRight`` when ``position > 0``.
  So a correct response to a stimulus on the right is coded -1.
- ``brainbox/behavior/training.py``: ``compute_performance`` takes ``rightward = trials.choice == -1``
  as the rightward choices, and ``compute_psychometric`` notes "choice == -1 means contrast on right
  hand side".

(The extractor's docstring calls -1 "a CCW turn (towards the left)": that is the direction of the
wheel, which moves a stimulus on the right towards the centre; the side reported is the right.)
"""
from __future__ import annotations

import os
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from statcore import StatcoreWarning

from ._checks import check_choice
from ._trials import check_trials

__all__ = ["from_ibl", "read_ibl_trials", "IBLFormatWarning", "from_psytrack", "psytrack_sample_rat"]

# canonical key -> accepted spellings (ALF camelCase first, then snake_case)
_IBL_COLUMNS = {
    "contrast_left": ("contrastLeft", "contrast_left"),
    "contrast_right": ("contrastRight", "contrast_right"),
    "choice": ("choice",),
    "feedback_type": ("feedbackType", "feedback_type"),
}
_SESSION_COLUMNS = ("session", "session_id", "eid", "session_start_time")
_CHOICE_RIGHT, _CHOICE_LEFT, _CHOICE_NOGO = -1, 1, 0


class IBLFormatWarning(StatcoreWarning):
    """A trial table in the IBL format was read with trials left out or an odd convention."""


def _find_column(df: pd.DataFrame, key: str) -> str:
    names = _IBL_COLUMNS[key]
    present = [n for n in names if n in df.columns]
    if not present:
        raise ValueError(f"df lacks a column for {key}: expected one of {', '.join(map(repr, names))} "
                         f"(IBL ALF trials format); columns present: {', '.join(map(str, df.columns))}")
    if len(present) > 1:
        raise ValueError(f"df has both {present[0]!r} and {present[1]!r}; keep one spelling of {key}")
    return present[0]


def _numeric(df: pd.DataFrame, col: str) -> np.ndarray:
    s = df[col]
    if pd.api.types.is_bool_dtype(s.dtype) or not pd.api.types.is_numeric_dtype(s.dtype):
        raise TypeError(f"df[{col!r}] must be numeric, got dtype {s.dtype}")
    return s.to_numpy(dtype=np.float64, na_value=np.nan)


def _first_row(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def _session_column(df: pd.DataFrame, session) -> str | None:
    if session is None:
        for name in _SESSION_COLUMNS:
            if name in df.columns:
                return name
        return None
    if not isinstance(session, str):
        raise TypeError(f"session must be None or the name of the session column, got {type(session).__name__}")
    if session not in df.columns:
        raise ValueError(f"session={session!r} is not a column of df; columns present: "
                         f"{', '.join(map(str, df.columns))}")
    return session


def from_ibl(df, *, session=None, nogo="raise"):
    """Convert a table in the IBL trials format into learncore's trials table.

    Parameters
    ----------
    df : pandas.DataFrame
        One row per trial, in the order the animal did them, with the ALF ``_ibl_trials`` columns
        ``contrastLeft``, ``contrastRight``, ``choice`` and ``feedbackType`` (snake_case spellings
        ``contrast_left``, ``contrast_right``, ``feedback_type`` are accepted). Contrasts are fractions in
        [0, 1] on the stimulus side and NaN on the other side (a zero-contrast trial has 0 on one side and
        NaN on the other). ``choice`` is -1 (the animal reported a stimulus on the right), +1 (on the left)
        or 0 (no-go). ``feedbackType`` is +1 (rewarded) or -1 (not). Other columns are ignored.
    session : str or None
        Name of the column holding the session id. None looks for ``session``, ``session_id``, ``eid``
        and ``session_start_time`` in that order; without any of them all trials form one session.
        Sessions must be contiguous blocks of rows.
    nogo : {"raise", "drop"}
        What to do with no-go trials (``choice == 0``): "raise" (default) refuses the table, "drop"
        leaves them out with an :class:`IBLFormatWarning` and lists their row positions in
        ``result.attrs["nogo_dropped"]``.

    Returns
    -------
    pandas.DataFrame
        Columns ``contrast_left``, ``contrast_right`` (0 on the side without a stimulus),
        ``choice`` ("left"/"right"), ``reward`` (1/0) and, when ``df`` has sessions, ``session``; the
        index of ``df`` is kept (without dropped rows). Validated with ``check_trials``.

    Notes
    -----
    The sign of ``choice`` follows the IBL's code: in ibllib's ``Choice`` extractor
    (``ibllib/io/extractors/training_trials.py``) a correct response to a stimulus on the right
    (``contrastRight`` not NaN) is coded -1, and brainbox counts ``choice == -1`` as rightward
    (``brainbox/behavior/training.py``, "choice == -1 means contrast on right hand side").
    A trial whose feedback disagrees with its choice and stimulus side (rewarded although the choice
    was away from the stimulus, or the reverse) is kept with an :class:`IBLFormatWarning`: in the IBL
    task the rewarded side is the stimulus side, so many such trials suggest a flipped ``choice`` sign.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> ibl = pd.DataFrame({"contrastLeft": [0.25, np.nan, 0.0], "contrastRight": [np.nan, 1.0, np.nan],
    ...                     "choice": [1, -1, -1], "feedbackType": [1, 1, -1]})
    >>> from_ibl(ibl)
       contrast_left  contrast_right choice  reward
    0           0.25             0.0   left       1
    1           0.00             1.0  right       1
    2           0.00             0.0  right       0

    References
    ----------
    The International Brain Laboratory et al. (2021). Standardized and reproducible measurement of
    decision-making in mice. eLife 10:e63711. ALF trials object and extractors: int-brain-lab/ibllib.
    """
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df must be a pandas DataFrame in the IBL trials format, got {type(df).__name__}")
    nogo = check_choice(nogo, "nogo", ("raise", "drop"))
    if len(df) == 0:
        raise ValueError("df has no trials")
    cols = {key: _find_column(df, key) for key in _IBL_COLUMNS}
    session_col = _session_column(df, session)

    cl = _numeric(df, cols["contrast_left"])
    cr = _numeric(df, cols["contrast_right"])
    choice = _numeric(df, cols["choice"])
    feedback = _numeric(df, cols["feedback_type"])

    for c, v in ((cols["contrast_left"], cl), (cols["contrast_right"], cr)):
        bad = np.isinf(v) | (v < 0) | (v > 1)
        if bad.any():
            i = _first_row(bad)
            raise ValueError(f"df[{c!r}] must be a contrast in [0, 1] (NaN on the side without a stimulus); "
                             f"row {i} holds {v[i]:g}" + (" (percent? divide by 100)" if v[i] > 1 else ""))
    both = ~np.isnan(cl) & ~np.isnan(cr)
    if both.any():
        i = _first_row(both)
        raise ValueError(f"row {i} of df has a contrast on both sides ({cols['contrast_left']}={cl[i]:g}, "
                         f"{cols['contrast_right']}={cr[i]:g}); the IBL format marks the side without a "
                         f"stimulus with NaN ({int(both.sum())} such row(s))")
    neither = np.isnan(cl) & np.isnan(cr)
    if neither.any():
        i = _first_row(neither)
        raise ValueError(f"row {i} of df has NaN contrast on both sides; every trial needs a stimulus side "
                         f"(a zero-contrast trial has 0 on its side) ({int(neither.sum())} such row(s))")

    bad = ~np.isin(choice, (_CHOICE_RIGHT, _CHOICE_LEFT, _CHOICE_NOGO))
    if bad.any():
        i = _first_row(bad)
        raise ValueError(f"df[{cols['choice']!r}] must be -1 (right), +1 (left) or 0 (no-go) in the IBL "
                         f"format; row {i} holds {choice[i]:g}")
    bad = ~np.isin(feedback, (-1, 1))
    if bad.any():
        i = _first_row(bad)
        raise ValueError(f"df[{cols['feedback_type']!r}] must be +1 (rewarded) or -1 (not); row {i} holds "
                         f"{feedback[i]:g}")

    is_nogo = choice == _CHOICE_NOGO
    n_nogo = int(is_nogo.sum())
    dropped = np.flatnonzero(is_nogo)
    if n_nogo and nogo == "raise":
        raise ValueError(f"df has {n_nogo} no-go trial(s) (choice 0), first at row {int(dropped[0])}; the "
                         f"learning-rule models need a left or right choice on every trial: pass "
                         f"nogo='drop' to leave them out")
    keep = ~is_nogo
    if not keep.any():
        raise ValueError(f"every one of the {len(df)} trials of df is a no-go trial; nothing is left to use")

    stim_right = ~np.isnan(cr)
    chose_right = choice == _CHOICE_RIGHT
    rewarded = feedback == 1
    odd = keep & ((chose_right == stim_right) != rewarded)
    if odd.any():
        warnings.warn(f"{int(odd.sum())} of {int(keep.sum())} trials have feedback that disagrees with the "
                      f"choice and the stimulus side (first at row {_first_row(odd)}); in the IBL task the "
                      f"stimulus side is rewarded. They are kept as recorded; if most trials disagree, the "
                      f"choice sign is probably flipped (IBL: -1 = right)", IBLFormatWarning, stacklevel=2)
    if n_nogo:
        warnings.warn(f"dropped {n_nogo} no-go trial(s) (choice 0) of {len(df)}; their row positions are in "
                      f"result.attrs['nogo_dropped']", IBLFormatWarning, stacklevel=2)

    out = pd.DataFrame({
        "contrast_left": np.nan_to_num(cl[keep], nan=0.0),
        "contrast_right": np.nan_to_num(cr[keep], nan=0.0),
        "choice": np.where(chose_right[keep], "right", "left").astype(object),
        "reward": rewarded[keep].astype(np.int64),
    }, index=df.index[keep])
    if session_col is not None:
        s = df[session_col]
        if s.isna().any():
            raise ValueError(f"df[{session_col!r}] (the session column) has missing values, first at row "
                             f"{_first_row(s.isna().to_numpy())}")
        codes, labels = pd.factorize(s, sort=False)
        if np.count_nonzero(np.diff(codes)) + 1 != len(labels):
            raise ValueError(f"df[{session_col!r}] (the session column) must label contiguous blocks of trials "
                             f"in time order; a session reappears after another one (sort df by session start "
                             f"and trial, or pass session= another column)")
        out["session"] = s.to_numpy()[keep]
    out.attrs["nogo_dropped"] = dropped.tolist()
    check_trials(out, name="from_ibl(df) result")
    return out


_READERS = {".csv": "csv", ".csv.gz": "csv", ".parquet": "parquet", ".pq": "parquet"}


def read_ibl_trials(path, *, session=None, nogo="raise"):
    """Read a trials table in the IBL format from CSV or parquet and convert it with :func:`from_ibl`.

    Parameters
    ----------
    path : str or os.PathLike
        A ``.csv``, ``.csv.gz``, ``.parquet`` or ``.pq`` file (the extension decides the reader). Parquet
        needs pyarrow (``pip install pyarrow``).
    session : str or None
        The session column, as in :func:`from_ibl`.
    nogo : {"raise", "drop"}
        No-go trials, as in :func:`from_ibl`.

    Returns
    -------
    pandas.DataFrame
        The trials table of :func:`from_ibl`.

    Examples
    --------
    >>> import tempfile, os, numpy as np, pandas as pd
    >>> ibl = pd.DataFrame({"contrastLeft": [1.0, np.nan], "contrastRight": [np.nan, 0.5],
    ...                     "choice": [1, 1], "feedbackType": [1, -1]})
    >>> with tempfile.TemporaryDirectory() as d:
    ...     ibl.to_csv(os.path.join(d, "trials.csv"), index=False)
    ...     read_ibl_trials(os.path.join(d, "trials.csv"))
       contrast_left  contrast_right choice  reward
    0            1.0             0.0   left       1
    1            0.0             0.5   left       0

    References
    ----------
    The International Brain Laboratory et al. (2021). Standardized and reproducible measurement of
    decision-making in mice. eLife 10:e63711 (the ALF ``_ibl_trials`` object).
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a file path (str or os.PathLike), got {type(path).__name__}")
    name = Path(path).name.lower()
    kind = next((r for ext, r in _READERS.items() if name.endswith(ext)), None)
    if kind is None:
        raise ValueError(f"path {str(path)!r} has an unknown extension; read_ibl_trials reads .csv, .csv.gz, "
                         f".parquet and .pq files (for other formats load a DataFrame and call from_ibl)")
    if kind == "csv":
        df = pd.read_csv(path)
    else:
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise ImportError(f"reading parquet file {str(path)!r} needs pyarrow: pip install pyarrow") from None
        df = pd.read_parquet(path, engine="pyarrow")
    return from_ibl(df, session=session, nogo=nogo)


def _psytrack_vector(dat, key: str, n: int | None = None) -> np.ndarray:
    if key not in dat:
        raise ValueError(f"dat lacks {key!r} (psytrack's data dict has 'y', 'inputs' and 'answer' or 'correct')")
    v = np.asarray(dat[key])
    if v.dtype.kind not in "iuf":
        raise TypeError(f"dat[{key!r}] must be numeric, got dtype {v.dtype}")
    v = v.astype(np.float64)
    if v.ndim != 1 or (n is not None and v.size != n):
        raise ValueError(f"dat[{key!r}] must be a vector of one value per trial"
                         + (f" ({n})" if n is not None else "") + f"; got shape {v.shape}")
    return v


def from_psytrack(dat, *, inputs=("s2", "s1")):
    """Convert a data dict in psytrack's format into learncore's trials table (two stimuli and a bias).

    psytrack (Roy et al. 2021) stores one animal as a dict: ``y`` the choices (1 or 2), ``answer`` the
    correct choice (1 or 2) and/or ``correct`` (1/0), ``dayLength`` the trials of each day (session),
    and ``inputs`` a dict of (trials x history) arrays whose first column is the current trial. Choice 2
    is "right" here (psytrack's convention for ``y``). The two stimuli named by ``inputs`` become
    ``input_left`` and ``input_right``, so the network's input is [input_left, input_right, 1].

    Parameters
    ----------
    dat : mapping
        psytrack's data dict (e.g. ``numpy.load("sampleRatData.npz", allow_pickle=True)["D"].item()``,
        or :func:`psytrack_sample_rat`'s source).
    inputs : tuple of two str
        The keys of ``dat["inputs"]`` used as (``input_left``, ``input_right``); their first column is
        taken. The default suits the rat data (Akrami et al. 2018): choice 2 is correct when s1 > s2,
        so s1 is the evidence for "right".

    Returns
    -------
    pandas.DataFrame
        ``session`` (day 0, 1, ...), ``input_left``, ``input_right``, ``choice`` ("left"/"right"),
        ``reward`` (1/0), ``stim_side`` (the correct side), validated with ``check_trials``.

    References
    ----------
    Roy, N. A., Bak, J. H., Akrami, A., Brody, C. D. & Pillow, J. W. (2021). Extracting the dynamics of
    behavior in sensory decision-making experiments. Neuron 109:597. Akrami, A., Kopec, C. D.,
    Diamond, M. E. & Brody, C. D. (2018). Posterior parietal cortex represents sensory history and
    mediates its effects on behaviour. Nature 554:368.

    Examples
    --------
    >>> import numpy as np
    >>> dat = {"y": np.array([2, 1, 1]), "answer": np.array([2, 2, 1]), "dayLength": np.array([2, 1]),
    ...        "inputs": {"s1": np.array([[0.5], [0.3], [-1.0]]), "s2": np.array([[-0.5], [0.1], [0.2]])}}
    >>> from_psytrack(dat)
       session  input_left  input_right choice  reward stim_side
    0        0        -0.5          0.5  right       1     right
    1        0         0.1          0.3   left       0     right
    2        1         0.2         -1.0   left       1      left
    """
    from collections.abc import Mapping

    if not isinstance(dat, Mapping):
        raise TypeError(f"dat must be psytrack's data dict (a mapping with 'y', 'inputs', 'answer'); got "
                        f"{type(dat).__name__}")
    if (isinstance(inputs, str) or not isinstance(inputs, (tuple, list)) or len(inputs) != 2
            or not all(isinstance(k, str) for k in inputs)):
        raise TypeError(f"inputs must be a pair of keys of dat['inputs'] (left, right); got {inputs!r}")
    y = _psytrack_vector(dat, "y")
    T = y.size
    if T == 0:
        raise ValueError("dat['y'] has no trials")
    if not np.isin(y, (1, 2)).all():
        i = _first_row(~np.isin(y, (1, 2)))
        raise ValueError(f"dat['y'] must be 1 or 2 (psytrack's choices); trial {i} holds {y[i]:g}")
    if "answer" in dat:
        answer = _psytrack_vector(dat, "answer", T)
        if not np.isin(answer, (1, 2)).all():
            i = _first_row(~np.isin(answer, (1, 2)))
            raise ValueError(f"dat['answer'] must be 1 or 2 (the correct choice); trial {i} holds {answer[i]:g}")
        correct = (y == answer).astype(np.int64)
        if "correct" in dat:
            c = _psytrack_vector(dat, "correct", T)
            if (c != correct).any():
                i = _first_row(c != correct)
                raise ValueError(f"dat['correct'] disagrees with y == answer at trial {i}")
    elif "correct" in dat:
        c = _psytrack_vector(dat, "correct", T)
        if not np.isin(c, (0, 1)).all():
            raise ValueError("dat['correct'] must be 0 or 1")
        correct = c.astype(np.int64)
        answer = np.where(correct == 1, y, 3 - y)
    else:
        raise ValueError("dat needs 'answer' (the correct choice, 1 or 2) or 'correct' (1/0) for the rewards")
    ins = dat.get("inputs")
    if not isinstance(ins, Mapping):
        raise ValueError("dat lacks 'inputs' (a dict of stimulus arrays)")
    cols = []
    for k in inputs:
        if k not in ins:
            raise ValueError(f"inputs names {k!r}, which is not in dat['inputs'] (keys: {', '.join(map(str, ins))})")
        v = np.asarray(ins[k], dtype=np.float64)
        v = v[:, 0] if v.ndim == 2 else v
        if v.shape != (T,):
            raise ValueError(f"dat['inputs'][{k!r}] must have one row per trial ({T}); got shape {np.shape(ins[k])}")
        if not np.isfinite(v).all():
            raise ValueError(f"dat['inputs'][{k!r}] has NaN or infinite values, first at trial "
                             f"{_first_row(~np.isfinite(v))}")
        cols.append(v)
    if "dayLength" in dat:
        days = np.asarray(dat["dayLength"])
        if days.ndim != 1 or days.dtype.kind not in "iuf" or (days < 0).any() or days.sum() != T:
            raise ValueError(f"dat['dayLength'] must be non-negative trial counts summing to the trials ({T})")
        session = np.repeat(np.arange(days.size), days.astype(np.int64))
    else:
        session = np.zeros(T, dtype=np.int64)
    out = pd.DataFrame({"session": session, "input_left": cols[0], "input_right": cols[1],
                        "choice": np.where(y == 2, "right", "left").astype(object), "reward": correct,
                        "stim_side": np.where(answer == 2, "right", "left").astype(object)})
    check_trials(out, name="from_psytrack(dat) result")
    return out


def psytrack_sample_rat():
    """The rat of psytrack's example (W053, 20,000 trials over 80 days) as a trials table.

    An auditory parametric working-memory task (Akrami et al. 2018): two tones of amplitudes s1 and s2
    (z-scored log-amplitudes) and the rat reports which was louder; choice 2 ("right" here) is correct
    when s1 > s2. Needs psytrack (``pip install psytrack``, MIT), which ships the file
    ``psytrack/examples/sampleRatData.npz``; converted by :func:`from_psytrack`.

    Returns
    -------
    pandas.DataFrame
        The trials table (``session`` = day, ``input_left`` = s2, ``input_right`` = s1, ``choice``,
        ``reward``, ``stim_side``); ``attrs["name"]`` is the rat's name.

    References
    ----------
    Roy, N. A., Bak, J. H., Akrami, A., Brody, C. D. & Pillow, J. W. (2021). Extracting the dynamics of
    behavior in sensory decision-making experiments. Neuron 109:597.

    Examples
    --------
    >>> rat = psytrack_sample_rat()
    >>> len(rat), rat["session"].nunique(), rat.attrs["name"]
    (20000, 80, 'W053')
    """
    try:
        import psytrack
    except ImportError:
        raise ImportError("the sample rat ships with psytrack: pip install psytrack") from None
    path = Path(psytrack.__file__).parent / "examples" / "sampleRatData.npz"
    if not path.exists():
        raise FileNotFoundError(f"psytrack is installed but {path} is missing")
    with np.load(path, allow_pickle=True) as z:
        dat = z["D"].item()
    out = from_psytrack(dat)
    out.attrs["name"] = str(dat.get("name", ""))
    return out
