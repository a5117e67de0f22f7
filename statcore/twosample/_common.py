"""Helpers shared by the twosample modules."""
from __future__ import annotations

import contextlib

#: below this feature dimension the linear algebra runs on one BLAS thread: on a busy machine a
#: multi-threaded OpenBLAS stalled up to 300x on 64 x 64 problems (measured: a 600 x 64 QR took 4 s
#: on two threads under load, 15 ms on one), and small problems gain nothing from threads
SMALL_D = 512


def blas_threads(d: int):
    """A context with single-threaded BLAS when ``d < SMALL_D`` (else a no-op), through the one
    thread-control mechanism (``statcore.utils.thread_limit``)."""
    if d >= SMALL_D:
        return contextlib.nullcontext()
    from ..utils import thread_limit

    return thread_limit(1, pools="blas")
