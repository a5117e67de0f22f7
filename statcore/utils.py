"""Public helpers for extension code, learncore and users writing their own methods.

- :func:`check_seed`: ``None | int | Generator | SeedSequence`` -> one ``numpy.random.Generator``
  (negative seeds refused, as numpy does; legacy ``RandomState`` refused).
- :func:`check_n_jobs`, :func:`effective_n_jobs`: joblib's ``n_jobs`` convention.
- :func:`lazy_njit`: ``numba.njit(cache=True)`` applied on the first call, falling back to an
  uncached compile when no numba cache folder is writable.
- :func:`thread_limit`: a context that limits BLAS, numba (and, when already imported, PyTorch)
  threads, restoring them afterwards.
- :func:`check_nan_policy`, :func:`apply_nan_policy`: scipy's ``nan_policy`` for paired arrays.
- :func:`public_function`: the one decorator of a public function that takes data (the data first and
  everything after them keyword-only, ``nan_policy``, pandas inputs, the formula door);
  :func:`check_aligned_indexes`: paired pandas inputs must share their index.
- :func:`check_positive_int`, :func:`check_finite_real`, :func:`check_positive_real`,
  :func:`check_nonneg_real`, :func:`check_probability`, :func:`check_choice`: scalar arguments, with
  errors naming them; :func:`as_float_array`: an array argument as float64, the same way.
- :func:`progress_bar`, :func:`parallel_map`, :func:`check_progress`: the ``progress`` argument
  (tqdm, lazily) and the one parallel map through joblib (any backend, Dask included), whose bar
  counts finished tasks.
- :func:`perm_pvalue`: the one permutation p-value rule, (1 + #{T_b >= T}) / (B + 1) with the
  one tie tolerance (the resampling engine's; ``statcore.permutation_test`` is its public face).
- :func:`spawn_seeds`: ``n`` independent seed streams from one seed (optionally keyed by integers), the
  resampling engine's rule, for the tasks of a parallel loop: the answer does not depend on ``n_jobs``.

Examples
--------
>>> from statcore.utils import check_seed, effective_n_jobs, thread_limit
>>> int(check_seed(1).integers(10)) == int(check_seed(1).integers(10))
True
>>> effective_n_jobs(1)
1
>>> with thread_limit(1):
...     pass
"""
from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from typing import Any, Iterator

from ._checks import (apply_nan_policy, as_float_array, check_aligned_indexes, check_choice, check_finite_real,
                      check_n_jobs, check_nan_policy, check_nonneg_real, check_positive_int, check_positive_real,
                      check_probability, check_progress, check_seed, public_function)
from ._progress import parallel_map, progress_bar
from ._jit import lazy_njit
from ._pvalue import perm_pvalue
from ._seeds import spawn_seeds

__all__ = ["check_seed", "check_n_jobs", "effective_n_jobs", "lazy_njit", "thread_limit",
           "check_nan_policy", "apply_nan_policy", "check_positive_int", "check_finite_real",
           "check_positive_real", "check_probability", "check_choice",
           "progress_bar", "parallel_map", "check_progress", "check_nonneg_real", "as_float_array", "perm_pvalue",
           "public_function", "check_aligned_indexes", "spawn_seeds"]


def effective_n_jobs(n_jobs: Any = 1) -> int:
    """The number of workers ``n_jobs`` means on this machine (joblib's convention: -1 all cores,
    -2 all but one, ...; never fewer than 1).

    Parameters
    ----------
    n_jobs : int
        A positive number of workers, or a negative number counting back from all cores.

    Returns
    -------
    int

    References
    ----------
    joblib's ``effective_n_jobs``.

    Examples
    --------
    >>> effective_n_jobs(-1) == (os.cpu_count() or 1)
    True
    """
    n_jobs = check_n_jobs(n_jobs)
    if n_jobs > 0:
        return n_jobs
    return max(1, (os.cpu_count() or 1) + 1 + n_jobs)


_POOLS = ("blas", "openmp", "numba", "torch")


@contextmanager
def thread_limit(n: int = 1, *, pools: str | tuple = _POOLS) -> Iterator[None]:
    """Limit BLAS and OpenMP threads (threadpoolctl), numba threads and, if PyTorch is already imported,
    torch's intra-op threads to ``n`` inside the block; all are restored afterwards.

    Tiny per-step operations run faster on one thread than on a thread pool that a loaded machine
    must schedule; workers of a parallel map should not each start a full pool either. This is the
    one thread-control mechanism of statcore and learncore.

    Parameters
    ----------
    n : int
        Threads per pool inside the block (at least 1; numba's at most ``NUMBA_NUM_THREADS``).
    pools : str or tuple of str
        Which pools to set: any of "blas", "openmp" (threadpoolctl's user APIs), "numba", "torch"
        (all four by default).

    Yields
    ------
    None

    References
    ----------
    threadpoolctl's ``ThreadpoolController.limit``; numba's ``set_num_threads``; PyTorch's
    ``set_num_threads``.

    Examples
    --------
    >>> with thread_limit(1):
    ...     pass
    >>> with thread_limit(2, pools="numba"):
    ...     pass
    """
    n = check_positive_int(n, "n")
    pools = (pools,) if isinstance(pools, str) else tuple(pools)
    bad = [p for p in pools if p not in _POOLS]
    if bad:
        raise ValueError(f"pools must name some of {_POOLS}, got {bad}")
    restore = []
    apis = [a for a in ("blas", "openmp") if a in pools]
    if apis:
        controller = _blas_controller()
        if controller is not None:  # threadpoolctl comes with scikit-learn; without it BLAS keeps its threads
            limiter = controller.limit(limits=n, user_api=apis[0] if len(apis) == 1 else None)
            restore.append(limiter.restore_original_limits)
    if "numba" in pools and "numba" in sys.modules:
        import numba

        old_numba = numba.get_num_threads()
        numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))
        restore.append(lambda: numba.set_num_threads(old_numba))
    torch = sys.modules.get("torch") if "torch" in pools else None  # statcore never imports torch itself
    if torch is not None:
        old_torch = torch.get_num_threads()
        torch.set_num_threads(n)
        restore.append(lambda: torch.set_num_threads(old_torch))
    try:
        yield
    finally:
        for undo in reversed(restore):
            undo()


_CONTROLLER: list = [None, -1]


def _blas_controller():
    """One threadpoolctl controller, rebuilt only when modules were imported since (building one scans
    the loaded libraries: ~7 ms a call, more than many of the operations it limits)."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return None
    if _CONTROLLER[0] is None or _CONTROLLER[1] != len(sys.modules):
        _CONTROLLER[0], _CONTROLLER[1] = ThreadpoolController(), len(sys.modules)
    return _CONTROLLER[0]
