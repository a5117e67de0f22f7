"""Checks of the progress-bar argument shared by every long-running function."""
from __future__ import annotations

from typing import Any

__all__ = ["check_progress"]


def check_progress(progress: Any, name: str = "progress") -> bool | None:
    """Check the ``progress`` argument of a long-running function: True, False or None.

    Parameters
    ----------
    progress : bool or None
        ``True`` (always draw a bar), ``False`` (never) or ``None`` (only when standard error is a
        terminal). numpy booleans are accepted.
    name : str
        The argument's name, for the error message.

    Returns
    -------
    bool or None
        ``progress`` as a Python bool, or None.

    Raises
    ------
    TypeError
        For anything else (``1``, ``"yes"``), naming the argument.

    References
    ----------
    The ``progress`` entry of the naming table (docs/conventions.md).

    Examples
    --------
    >>> check_progress(None) is None, check_progress(True)
    (True, True)
    """
    if progress is None:
        return None
    if isinstance(progress, bool) or type(progress).__name__ == "bool_":
        return bool(progress)
    raise TypeError(f"{name} must be True, False or None (None: a bar only on a terminal), got {progress!r}")
