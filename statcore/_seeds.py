"""The resampling engine's seed streams: :func:`root_seed` (any accepted seed to one ``SeedSequence``) and
:func:`spawn_seeds` (n children by spawn key). Public as :func:`statcore.utils.spawn_seeds`;
``statcore._resampling`` draws every stream block from it."""
from __future__ import annotations

from typing import Any, Iterable, Sequence

import numpy as np

from ._checks import check_positive_int, check_seed

__all__ = ["spawn_seeds", "root_seed"]


def spawn_seeds(seed: Any, n: int, *, key: Sequence[int] = ()) -> list[np.random.SeedSequence]:
    """``n`` independent seed streams from one seed: the engine's rule for every task of a loop.

    Stream k is the ``SeedSequence`` with the seed's entropy and the spawn key ``key + (k,)`` below
    the seed's own (numpy's ``SeedSequence.spawn`` children, built by their key, so that the same seed
    always gives the same streams and the seed is never advanced when it is a ``SeedSequence``). The
    resampling engine's stream blocks are ``spawn_seeds(seed, n_blocks)``. Giving every task of a
    parallel loop its own stream makes the answer independent of ``n_jobs`` and of the order in which
    the tasks run; ``key`` names a task by integers instead of by its position (a pair of variables
    ``(i, j)``, a conditioning set), so that a task's stream does not depend on which other tasks exist.

    Parameters
    ----------
    seed : None, int, numpy.random.SeedSequence or numpy.random.Generator
        The one seed of the loop (validated as :func:`statcore.utils.check_seed` does: negative ints,
        booleans and legacy ``RandomState`` are refused). A ``Generator`` is advanced by one draw of
        128 bits, so reusing it gives new streams; a ``SeedSequence`` is used as it is (so that
        ``spawn_seeds(root, 1, key=...)`` gives the same stream whenever it is called).
    n : int
        How many streams (>= 0).
    key : sequence of int
        Non-negative integers naming the task (default: none).

    Returns
    -------
    list of numpy.random.SeedSequence
        ``n`` streams; pass one to ``numpy.random.default_rng`` (or as the ``seed`` of any statcore
        or learncore function).

    References
    ----------
    numpy's ``SeedSequence`` (spawn keys: its ``spawn`` method); O'Neill, M. E. (2015). PCG: a family of
    simple fast space-efficient statistically good algorithms for random number generation. HMC-CS-2014-0905.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore.utils import spawn_seeds
    >>> a, b = spawn_seeds(7, 2)
    >>> a.spawn_key, b.spawn_key
    ((0,), (1,))
    >>> draws = [np.random.default_rng(s).integers(100) for s in spawn_seeds(7, 2)]
    >>> draws == [np.random.default_rng(s).integers(100) for s in (a, b)]
    True
    >>> root = spawn_seeds(7, 1)[0]
    >>> spawn_seeds(root, 1, key=(3, 4))[0].spawn_key
    (0, 3, 4, 0)
    """
    base = root_seed(seed)
    n = check_positive_int(n, "n", minimum=0)
    if isinstance(key, (str, bytes)) or not isinstance(key, Iterable):
        raise TypeError(f"key must be a sequence of non-negative integers, got {type(key).__name__}")
    prefix = tuple(base.spawn_key) + tuple(check_positive_int(v, "key", minimum=0) for v in key)
    return [np.random.SeedSequence(base.entropy, spawn_key=prefix + (k,), pool_size=base.pool_size)
            for k in range(n)]



def root_seed(seed: Any, name: str = "seed") -> np.random.SeedSequence:
    """The ``SeedSequence`` behind ``seed`` (validated as :func:`statcore.utils.check_seed` does)."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, np.random.Generator):
        return np.random.SeedSequence([int(v) for v in seed.integers(0, 2 ** 32, size=4, dtype=np.uint64)])
    check_seed(seed, name)  # the one validator: refuses negatives, bools, RandomState, other types
    return np.random.SeedSequence(None if seed is None else int(seed))
