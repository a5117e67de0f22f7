"""Helpers shared by the twosample modules."""
from __future__ import annotations

import contextlib
import functools

#: below this feature dimension the linear algebra runs on one BLAS thread: on a busy machine a
#: multi-threaded OpenBLAS stalled up to 300x on 64 x 64 problems (measured: a 600 x 64 QR took 4 s
#: on two threads under load, 15 ms on one), and small problems gain nothing from threads
SMALL_D = 512


def blas_threads(d: int):
    """A context with single-threaded BLAS when ``d < SMALL_D`` (else a no-op)."""
    if d >= SMALL_D:
        return contextlib.nullcontext()
    controller = _controller()
    if controller is None:  # threadpoolctl comes with scikit-learn; without it BLAS keeps its threads
        return contextlib.nullcontext()
    return controller.limit(limits=1, user_api="blas")


@functools.lru_cache(maxsize=1)
def _controller():
    """One threadpoolctl controller (building one scans the loaded libraries: ~7 ms a call)."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return None
    return ThreadpoolController()
