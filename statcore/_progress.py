"""Progress bars and the one parallel map of statcore and learncore.

Every long loop (fits, bootstraps, permutations, skeleton levels, feature extraction) takes
``progress=True | False | None``: ``None`` shows a bar only when stderr is a terminal (so never in
tests, CI logs or notebooks' captured output unless asked), ``True`` always (tqdm required), ``False``
never. tqdm is imported only when a bar is drawn.

:func:`parallel_map` runs a function over argument tuples serially (``n_jobs=1``) or through joblib,
whose backend the caller may switch (``joblib.parallel_config(backend="dask")`` sends the tasks to a
Dask cluster); results come back in submission order whatever the backend, and the bar counts
finished tasks as they finish.
"""
from __future__ import annotations

import sys
from typing import Callable, Iterable, Sequence

from ._checks import check_n_jobs, check_progress

__all__ = ["check_progress", "progress_bar", "parallel_map"]


class _NoBar:
    """What :func:`progress_bar` returns when no bar is drawn: the same methods, doing nothing."""

    n = 0

    def update(self, k: int = 1) -> None:
        self.n += k

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __bool__(self) -> bool:
        return False


def progress_bar(progress: bool | None, total: int, *, desc: str | None = None, unit: str = "it"):
    """A tqdm progress bar, or an object with the same ``update``/``close`` that draws nothing.

    Parameters
    ----------
    progress : bool or None
        ``True`` draws a bar (tqdm must be installed: ``pip install statcore[progress]``), ``False``
        never, ``None`` only when standard error is a terminal and tqdm is installed.
    total : int
        The number of steps.
    desc : str, optional
        The bar's label.
    unit : str
        What one step is ("fit", "edge", "permutation", ...).

    Returns
    -------
    tqdm.tqdm or a silent stand-in
        Use it as a context manager, or call ``close()``; it is falsy when nothing is drawn.

    References
    ----------
    tqdm (https://tqdm.github.io); the ``progress`` argument of the naming table (docs/conventions.md).

    Examples
    --------
    >>> with progress_bar(False, 10, desc="demo") as bar:
    ...     for _ in range(10):
    ...         bar.update()
    >>> bool(bar), bar.n
    (False, 10)
    """
    progress = check_progress(progress)
    if isinstance(total, bool) or not isinstance(total, int) and type(total).__module__ != "numpy":
        raise TypeError(f"total must be an integer number of steps, got {total!r}")
    if int(total) < 0:
        raise ValueError(f"total must be >= 0, got {total}")
    if progress is None:
        progress = bool(getattr(sys.stderr, "isatty", lambda: False)())
        if progress:
            try:
                import tqdm  # noqa: F401
            except ImportError:
                return _NoBar()
    if not progress:
        return _NoBar()
    try:
        from tqdm.auto import tqdm
    except ImportError:
        raise ImportError("progress=True needs tqdm (pip install tqdm, or statcore[progress])") from None
    return tqdm(total=int(total), desc=desc, unit=unit, leave=False)


def _indexed(func: Callable, i: int, args: tuple) -> tuple:
    return i, func(*args)


def parallel_map(func: Callable, tasks: Iterable[Sequence], *, n_jobs: int = 1, progress: bool | None = None,
                 desc: str | None = None, unit: str = "task", weights: Sequence[int] | None = None,
                 prefer: str | None = None) -> list:
    """``[func(*args) for args in tasks]``, serially or through joblib, with a progress bar.

    Parameters
    ----------
    func : callable
        Picklable (a module-level function) when ``n_jobs != 1`` and the backend uses processes.
    tasks : iterable of tuples
        The arguments of each call.
    n_jobs : int
        1 runs in this process; otherwise joblib's ``Parallel(n_jobs=n_jobs)`` under the active
        backend (``joblib.parallel_config(backend="dask")`` runs the tasks on a Dask cluster).
    progress : bool or None
        As in :func:`progress_bar`; the bar counts finished tasks (joblib's
        ``return_as="generator_unordered"``), weighted by ``weights``.
    desc : str, optional
        The bar's label.
    unit : str
        What one step of the bar is.
    weights : sequence of int, optional
        Steps each task adds to the bar (e.g. the number of edges in a batch); 1 each by default.
    prefer : {None, "threads", "processes"}
        joblib's soft hint for the default backend; a backend set by ``parallel_config`` wins.

    Returns
    -------
    list
        The results in the order of ``tasks``, whatever order they finished in.

    References
    ----------
    joblib's ``Parallel`` (``return_as``, ``prefer``) and ``parallel_config``.

    Examples
    --------
    >>> parallel_map(pow, [(2, 3), (3, 2)], n_jobs=1, progress=False)
    [8, 9]
    """
    if not callable(func):
        raise TypeError(f"func must be callable, got {func!r}")
    n_jobs = check_n_jobs(n_jobs)
    tasks = [tuple(t) for t in tasks]
    if weights is None:
        weights = [1] * len(tasks)
    elif len(weights) != len(tasks):
        raise ValueError(f"weights must give one number per task ({len(tasks)}), got {len(weights)}")
    if prefer not in (None, "threads", "processes"):
        raise ValueError(f"prefer must be None, 'threads' or 'processes', got {prefer!r}")
    with progress_bar(progress, int(sum(weights)), desc=desc, unit=unit) as bar:
        if n_jobs == 1 or len(tasks) < 2:
            out = []
            for args, w in zip(tasks, weights):
                out.append(func(*args))
                bar.update(w)
            return out
        from joblib import Parallel, delayed

        results: list = [None] * len(tasks)
        gen = Parallel(n_jobs=n_jobs, return_as="generator_unordered", prefer=prefer)(
            delayed(_indexed)(func, i, args) for i, args in enumerate(tasks))
        for i, res in gen:
            results[i] = res
            bar.update(weights[i])
        return results
