"""numba kernels: pure loops over contiguous float64 arrays, compiled on first use.

``lazy_njit`` defers both ``import numba`` and compilation to the first call, so ``import statcore``
stays quick, and falls back to an uncached compile when no numba cache folder is writable (numba
refuses ``cache=True`` then), so a read-only install still works.
"""
from __future__ import annotations

import threading
from typing import Any, Callable

__all__ = ["lazy_njit"]


class _LazyKernel:
    def __init__(self, py_func: Callable, options: dict[str, Any]):
        self.py_func = py_func
        self.options = options
        self._compiled = None
        self._lock = threading.Lock()
        self.__doc__ = py_func.__doc__
        self.__name__ = py_func.__name__

    def _compile(self):
        with self._lock:
            if self._compiled is None:
                import numba

                try:
                    self._compiled = numba.njit(cache=True, **self.options)(self.py_func)
                except Exception:  # numba: "cannot cache function ...: no locator available"
                    self._compiled = numba.njit(cache=False, **self.options)(self.py_func)
        return self._compiled

    def __call__(self, *args):
        fn = self._compiled or self._compile()
        return fn(*args)


def lazy_njit(func: Callable | None = None, **options):
    """``numba.njit(cache=True, **options)``, applied on the first call instead of at import.

    ``import`` stays quick (numba itself is imported on the first call), and a read-only install
    still works: when numba refuses ``cache=True`` (no writable cache folder) the kernel is compiled
    without caching. The wrapper is called from Python; a kernel called from inside another njit
    function must be a real dispatcher (or ``numba.extending.register_jitable``).

    Parameters
    ----------
    func : callable, optional
        The kernel (when used as ``@lazy_njit``); omitted when used as ``@lazy_njit(parallel=True)``.
    **options
        Passed to ``numba.njit`` (``parallel``, ``fastmath``, ...).

    Returns
    -------
    callable
        The lazily compiled kernel, or a decorator when ``func`` is None.

    References
    ----------
    numba's ``njit`` and its ``cache`` option (on-disk caching, ``NUMBA_CACHE_DIR``).

    Examples
    --------
    >>> @lazy_njit
    ... def add(a, b):
    ...     return a + b
    >>> add(1.0, 2.0)
    3.0
    """
    if func is None:
        return lambda f: _LazyKernel(f, options)
    return _LazyKernel(func, options)
