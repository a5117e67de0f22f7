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
    """``numba.njit(cache=True, **options)``, applied on the first call instead of at import."""
    if func is None:
        return lambda f: _LazyKernel(f, options)
    return _LazyKernel(func, options)
