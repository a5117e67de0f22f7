"""The one resampling engine: permutations, bootstraps and Monte Carlo replicates.

Every resampling loop of statcore and learncore is built from the pieces here:

- :func:`perm_pvalue`: the one permutation p-value rule, (1 + #{T_b >= T}) / (B + 1) for random
  resamples and #{T_b >= T} / B when all B distinct permutations were enumerated, with the one tie
  tolerance :data:`TIE_RTOL` = 1e-9: a replicate within ``1e-9 * |T|`` of the observed T counts as a
  tie (at least as extreme). Statistics equal in exact arithmetic but summed in another order (the
  n^2 kernel terms of dCov, HSIC, MMD or energy under a permutation) differ by up to ~n^2 machine
  epsilons, which scipy's 100 epsilons (2.2e-14) do not cover beyond n ~ 10; 1e-9 covers n in the
  tens of thousands and is far below any difference a p-value of B <= 10^8 replicates can resolve.
  scipy's ``permutation_test`` uses the same rule with 100 epsilons: the two agree unless two distinct
  null values lie within 1e-9 relative of each other at T.
- :func:`block_seeds`: the seed streams. Replicate b belongs to stream block ``b // STREAM_BLOCK``;
  block k draws from its own ``SeedSequence`` (the k-th child of the seed). Which process computes a
  block, and how blocks are grouped into chunks, therefore cannot change a draw: the results depend on
  ``seed`` and ``B`` only, never on ``n_jobs`` or on the memory budget.
- :func:`chunk_sizes`: the one chunking rule. A chunk is a run of whole stream blocks whose resamples
  fit the memory budget (:data:`MEMORY_BUDGET` bytes unless given); it is also the unit of parallel
  work and of the progress bar. Inside a chunk the statistic is evaluated on at most
  ``budget // bytes_per_resample`` resamples at a time.
- :func:`run_resamples`: ``draw(rng, size)`` (the indices of ``size`` resamples, from the block's
  generator) and ``compute(indices)`` (their statistics) over all chunks, through
  :func:`statcore.utils.parallel_map` (joblib, any backend, Dask included) with ``progress``.
- :func:`run_enumeration`: the same for an exact enumeration (no draws).
- :func:`permutation_test` and :func:`bootstrap`: the public face, supersets of
  ``scipy.stats.permutation_test`` and ``scipy.stats.bootstrap``.

Thread control is :func:`statcore.utils.thread_limit` everywhere.
"""
from __future__ import annotations

import inspect
import itertools
import math
import numbers
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from ._checks import check_choice, check_n_jobs, check_progress
from ._result import HTest, Result
from ._warnings import StatcoreWarning

from ._seeds import root_seed, spawn_seeds  # noqa: F401  (the engine's seed streams)
from ._pvalue import TIE_RTOL, check_alternative, exceed_count, perm_pvalue, pvalue_from_count  # noqa: F401

__all__ = ["permutation_test", "bootstrap", "BootstrapResult", "DegenerateBootstrapWarning"]

#: resamples drawn from one seed stream (the unit that makes results independent of n_jobs and chunks)
STREAM_BLOCK = 1024
#: bytes of resampled data (or resample indices) one chunk may hold (32 MiB, 2^22 int64 indices) unless a
#: caller passes its own budget
MEMORY_BUDGET = 1 << 25



class DegenerateBootstrapWarning(StatcoreWarning):
    """The bootstrap distribution is degenerate (e.g. constant), so an interval cannot be formed."""


# ----------------------------------------------------------------------------------------------
# the building blocks
# ----------------------------------------------------------------------------------------------

def block_seeds(seed: Any, n_blocks: int) -> list[np.random.SeedSequence]:
    """One ``SeedSequence`` per stream block, the children (spawn keys 0, 1, ...) of the seed's.

    ``seed`` is ``None``, a non-negative int, a ``SeedSequence`` (not advanced) or a ``Generator``
    (advanced by one draw of 128 bits of entropy, so reusing it gives new streams).
    """
    return spawn_seeds(seed, n_blocks)


def chunk_sizes(B: int, bytes_per_resample: float, budget: float | None = None) -> list[int]:
    """How many resamples each chunk holds: whole stream blocks (the last one short) whose data fit
    ``budget`` bytes (at least one block per chunk). Never depends on ``n_jobs``."""
    B = int(B)
    if B <= 0:
        return []
    budget = MEMORY_BUDGET if budget is None else float(budget)
    per = max(float(bytes_per_resample), 1.0)
    blocks_per_chunk = max(1, int(budget // (per * STREAM_BLOCK)))
    step = blocks_per_chunk * STREAM_BLOCK
    sizes = [step] * (B // step)
    if B % step:
        sizes.append(B % step)
    return sizes


def _rows(bytes_per_resample: float, budget: float | None) -> int:
    budget = MEMORY_BUDGET if budget is None else float(budget)
    return max(1, int(budget // max(float(bytes_per_resample), 1.0)))


def _run_chunk(draw: Callable, compute: Callable, seeds: Sequence, sizes: Sequence[int], rows: int) -> np.ndarray:
    """The statistics of one chunk: each block's draws from its own stream, evaluated ``rows`` at a time."""
    out = []
    for s, m in zip(seeds, sizes):  # block by block: the draws are never copied into one chunk array
        idx = draw(np.random.default_rng(s), int(m))
        out.extend(np.asarray(compute(idx[i:i + rows])) for i in range(0, idx.shape[0], rows))
    return out[0] if len(out) == 1 else np.concatenate(out, axis=0)


def run_resamples(draw: Callable, compute: Callable, B: int, *, seed: Any, bytes_per_resample: float,
                  budget: float | None = None, n_jobs: int = 1, progress: bool | None = None,
                  desc: str = "resamples", unit: str = "resample") -> np.ndarray:
    """The B statistics ``compute(draw(rng_k, size))`` over the stream blocks, chunked and in parallel.

    ``draw(rng, size)`` returns an array whose first axis has ``size`` resamples (indices, signs,
    ...); ``compute(part)`` returns one statistic (or one row) per resample of ``part``. Both must be
    picklable when ``n_jobs != 1`` under a process backend. The result depends on ``seed`` and ``B``
    only: not on ``n_jobs``, ``budget`` or the joblib backend.
    """
    B = int(B)
    seeds = block_seeds(seed, -(-B // STREAM_BLOCK))
    block_sizes = [min(STREAM_BLOCK, B - k * STREAM_BLOCK) for k in range(len(seeds))]
    tasks, weights, k = [], [], 0
    rows = _rows(bytes_per_resample, budget)
    for size in chunk_sizes(B, bytes_per_resample, budget):
        nb = -(-size // STREAM_BLOCK)
        tasks.append((draw, compute, seeds[k:k + nb], block_sizes[k:k + nb], rows))
        weights.append(size)
        k += nb
    parts = _map(tasks, weights, n_jobs, progress, desc, unit)
    return np.concatenate(parts, axis=0) if parts else np.empty(0)


def run_stream(draw: Callable, compute: Callable, B: int, *, rng: np.random.Generator, bytes_per_resample: float,
               budget: float | None = None, n_jobs: int = 1, progress: bool | None = None,
               desc: str = "resamples", unit: str = "resample") -> list:
    """The loops whose resamples come in order from one Generator (the layout of the tests that predate
    the engine, kept so that their seeds give the same answers): chunks of ``budget //
    bytes_per_resample`` resamples, at most :data:`STREAM_BLOCK`, are drawn here, in order, by
    ``draw(rng, size)``, and computed by ``compute(draws)`` through
    :func:`statcore.utils.parallel_map`, ``n_jobs`` chunks at a time. The draws are those of the
    serial loop over the same chunks, so the result does not depend on ``n_jobs``. Returns the list
    of ``compute`` results, one per chunk, in order.
    """
    from ._progress import parallel_map, progress_bar
    from .utils import effective_n_jobs

    B = int(B)
    step = min(STREAM_BLOCK, _rows(bytes_per_resample, budget))
    sizes = [step] * (B // step) + ([B % step] if B % step else [])
    wave = effective_n_jobs(n_jobs)
    out: list = []
    with progress_bar(progress, B, desc=desc, unit=unit) as bar:
        for w in range(0, len(sizes), wave):
            part = sizes[w:w + wave]
            draws = [draw(rng, m) for m in part]
            out.extend(parallel_map(compute, [(d,) for d in draws], n_jobs=n_jobs if len(part) > 1 else 1,
                                    progress=False))
            bar.update(sum(part))
    return out


class PermutationDraw:
    """``size`` random permutations of 0..n-1 as rows, from ``rng`` in order (``rng.permuted``: the
    same permutations whatever the chunk sizes)."""

    def __init__(self, n: int):
        self.n = int(n)

    def __call__(self, rng: np.random.Generator, size: int) -> np.ndarray:
        return rng.permuted(np.broadcast_to(np.arange(self.n, dtype=np.int64), (size, self.n)), axis=1)


def run_enumeration(items: Iterable, n_items: int, compute: Callable, *, bytes_per_resample: float,
                    budget: float | None = None, n_jobs: int = 1, progress: bool | None = None,
                    desc: str = "permutations", unit: str = "permutation") -> np.ndarray:
    """``compute`` over every item of an exhaustive enumeration (stacked in chunks of the budget)."""
    step = _rows(bytes_per_resample, budget)
    it = iter(items)
    tasks, weights = [], []
    done = 0
    while done < n_items:
        block = np.asarray(list(itertools.islice(it, step)))
        if block.shape[0] == 0:
            break
        tasks.append((compute, block))
        weights.append(block.shape[0])
        done += block.shape[0]
    parts = _map_plain(tasks, weights, n_jobs, progress, desc, unit)
    return np.concatenate(parts, axis=0) if parts else np.empty(0)


def _map(tasks, weights, n_jobs, progress, desc, unit):
    from ._progress import parallel_map

    return parallel_map(_run_chunk, tasks, n_jobs=n_jobs, progress=progress, desc=desc, unit=unit,
                        weights=weights)


def _call(compute, block):
    return np.asarray(compute(block))


def _map_plain(tasks, weights, n_jobs, progress, desc, unit):
    from ._progress import parallel_map

    return parallel_map(_call, tasks, n_jobs=n_jobs, progress=progress, desc=desc, unit=unit, weights=weights)


# ----------------------------------------------------------------------------------------------
# input checks of the public face
# ----------------------------------------------------------------------------------------------

def _read_samples(data: Any, *, min_samples: int = 1, min_n: int = 2) -> list[np.ndarray]:
    from ._checks import as_float_array

    if data is None or isinstance(data, (str, bytes)) or not hasattr(data, "__len__"):
        raise TypeError(f"data must be a sequence of samples (1-d arrays), got {type(data).__name__}")
    if isinstance(data, np.ndarray) and data.ndim == 1:
        raise TypeError("data must be a sequence of samples: pass (x,) for one sample, not x itself")
    if len(data) < min_samples:
        raise ValueError(f"data must hold at least {min_samples} sample(s), got {len(data)}")
    samples = []
    for i, s in enumerate(data):
        arr = as_float_array(s, f"data[{i}]")
        if arr.ndim != 1:
            raise ValueError(f"data[{i}] must be one-dimensional (one value per observation), "
                             f"got shape {arr.shape}")
        if arr.size < min_n:
            raise ValueError(f"data[{i}] must hold at least {min_n} observations, got {arr.size}")
        samples.append(arr)
    return samples


def _check_B(B: Any) -> float | int:
    if isinstance(B, float) and math.isinf(B) and B > 0:
        return math.inf
    if isinstance(B, bool) or not isinstance(B, numbers.Integral):
        if isinstance(B, numbers.Real) and float(B).is_integer() and not isinstance(B, bool):
            B = int(B)
        else:
            raise TypeError(f"B must be a positive integer (or numpy.inf for every permutation), got {B!r}")
    if B < 1:
        raise ValueError(f"B must be a positive integer, got {B}")
    return int(B)


def _wants_axis(statistic: Callable) -> bool:
    try:
        return "axis" in inspect.signature(statistic).parameters
    except (TypeError, ValueError):
        return False


class _Statistic:
    """``statistic`` applied to a batch of resamples, each sample an (m, n_j) array; one value per row."""

    def __init__(self, statistic: Callable, vectorized: bool):
        self.statistic = statistic
        self.vectorized = vectorized

    def __call__(self, *samples: np.ndarray) -> np.ndarray:
        if self.vectorized:
            out = np.asarray(self.statistic(*samples, axis=-1), dtype=np.float64)
            return np.broadcast_to(out, (samples[0].shape[0],)).copy() if out.ndim == 0 else out.reshape(-1)
        m = samples[0].shape[0]
        return np.array([float(self.statistic(*(s[i] for s in samples))) for i in range(m)])

    def observed(self, samples: Sequence[np.ndarray]) -> float:
        if self.vectorized:
            val = np.asarray(self.statistic(*samples, axis=-1), dtype=np.float64)
        else:
            val = np.asarray(self.statistic(*samples), dtype=np.float64)
        if val.size != 1:
            raise ValueError(f"statistic must return one number per resample, got shape {val.shape}")
        val = float(val.reshape(()))
        return val


def _check_statistic(statistic: Any, vectorized: Any) -> _Statistic:
    if not callable(statistic):
        raise TypeError(f"statistic must be callable, got {statistic!r}")
    if vectorized not in (True, False, None):
        raise TypeError(f"vectorized must be True, False or None, got {vectorized!r}")
    if vectorized is None:
        vectorized = _wants_axis(statistic)
    return _Statistic(statistic, bool(vectorized))


# ----------------------------------------------------------------------------------------------
# the permutation test
# ----------------------------------------------------------------------------------------------

class _IndependentDraw:
    def __init__(self, n: int):
        self.n = n

    def __call__(self, rng: np.random.Generator, size: int) -> np.ndarray:
        return rng.permuted(np.tile(np.arange(self.n), (size, 1)), axis=-1)


class _IndependentCompute:
    def __init__(self, stat: _Statistic, pooled: np.ndarray, cuts: Sequence[int]):
        self.stat, self.pooled, self.cuts = stat, pooled, list(cuts)

    def __call__(self, idx: np.ndarray) -> np.ndarray:
        z = self.pooled[idx]
        return self.stat(*(z[:, a:b] for a, b in zip(self.cuts[:-1], self.cuts[1:])))


class _PairingsDraw:
    """One independent permutation of 0..n-1 per sample (scipy's layout: (size, k, n))."""

    def __init__(self, k: int, n: int):
        self.k, self.n = k, n

    def __call__(self, rng: np.random.Generator, size: int) -> np.ndarray:
        return rng.permuted(np.tile(np.arange(self.n), (size, self.k, 1)), axis=-1)


class _PairingsCompute:
    def __init__(self, stat: _Statistic, samples: Sequence[np.ndarray]):
        self.stat, self.samples = stat, list(samples)

    def __call__(self, idx: np.ndarray) -> np.ndarray:
        return self.stat(*(s[idx[:, j, :]] for j, s in enumerate(self.samples)))


class _SamplesCompute:
    """Permutations of the samples within each observation: idx (m, n, k) says which sample's value
    observation i of sample j takes (one sample: k = 2 with -x, i.e. sign flips)."""

    def __init__(self, stat: _Statistic, stacked: np.ndarray, n_samples: int):
        self.stat, self.stacked, self.n_samples = stat, stacked, n_samples  # stacked: (k, n)

    def __call__(self, idx: np.ndarray) -> np.ndarray:
        cols = np.arange(self.stacked.shape[1])[None, :]
        return self.stat(*(self.stacked[idx[:, :, j], cols] for j in range(self.n_samples)))


def _partitions(sizes: Sequence[int]):
    """Every split of 0..N-1 into groups of the given sizes, concatenated (scipy's enumeration)."""
    total = int(sum(sizes))

    def rec(rest: tuple, ns: Sequence[int]):
        if len(ns) == 1:
            yield list(rest)
            return
        for c in itertools.combinations(rest, ns[0]):
            chosen = set(c)
            for tail in rec(tuple(i for i in rest if i not in chosen), ns[1:]):
                yield list(c) + tail

    return rec(tuple(range(total)), list(sizes))


def _factorial_power(n: int, k: int, B: float) -> float | int:
    """(n!)^k, or infinity when it is plainly beyond B (never computing a huge integer)."""
    if k * math.lgamma(n + 1) > math.log(min(B, 1e300)) + 1.0:
        return math.inf
    return math.factorial(n) ** k


def permutation_test(data: Any, statistic: Callable, *, permutation_type: str = "independent",
                     B: int | float = 9999, alternative: str = "two.sided", seed: Any = None, n_jobs: int = 1,
                     progress: bool | None = None, vectorized: bool | None = None) -> HTest:
    """A permutation test of any statistic: ``scipy.stats.permutation_test`` with ``n_jobs``, progress
    and seed streams that make the answer independent of ``n_jobs`` and of chunking.

    The three permutation types are scipy's. ``"independent"``: the pooled observations are
    re-split into samples of the original sizes (two-sample and k-sample tests). ``"pairings"``: each
    sample's observations are permuted separately, breaking the pairing (correlation tests).
    ``"samples"``: within each observation the values are exchanged between samples (paired tests);
    with one sample, the signs are flipped. When ``B`` reaches the number of distinct permutations,
    all are enumerated and the p-value is exact, #{T_b >= T} / B; otherwise it is
    (1 + #{T_b >= T}) / (B + 1) over B random permutations. A T_b within ``1e-9 * abs(T)`` of T counts as a
    tie (scipy: 100 machine epsilons; see ``statcore._resampling.TIE_RTOL``). The two-sided p-value is twice the smaller one-sided one,
    at most 1.

    Parameters
    ----------
    data : sequence of array_like
        The samples, each one-dimensional (``(x,)`` for one sample).
    statistic : callable
        ``statistic(*samples)`` returning a number; with ``vectorized`` it takes ``axis`` and returns
        one value per row of 2-d samples.
    permutation_type : {"independent", "pairings", "samples"}
        What is permuted (see above).
    B : int or numpy.inf
        Random permutations (scipy's ``n_resamples``); ``numpy.inf`` enumerates them all.
    alternative : {"two.sided", "less", "greater"}
        R's spelling; scipy's "two-sided" is accepted too.
    seed : None, int, numpy.random.Generator or numpy.random.SeedSequence
        The seed of the permutation streams.
    n_jobs : int
        Parallel workers (joblib; ``joblib.parallel_config(backend="dask")`` sends the chunks to Dask).
        The result does not depend on it.
    progress : bool or None
        A progress bar over the permutations (None: only on a terminal).
    vectorized : bool or None
        Whether ``statistic`` takes ``axis``; None: when its signature has an ``axis`` parameter.

    Returns
    -------
    HTest
        ``statistic``, ``p_value`` and ``extras`` with ``null_distribution`` (the B permuted
        statistics), ``B`` (the number used) and ``exact``.

    References
    ----------
    Phipson, B. and Smyth, G. K. (2010). Permutation p-values should never be zero. *Statistical
    Applications in Genetics and Molecular Biology* 9(1). ``scipy.stats.permutation_test``.

    Examples
    --------
    >>> import numpy as np
    >>> import statcore as sc
    >>> def diff(x, y, axis=-1):
    ...     return np.mean(x, axis=axis) - np.mean(y, axis=axis)
    >>> res = sc.permutation_test(([1.0, 2.0, 3.0, 4.0], [3.0, 5.0, 6.0, 7.0]), diff, B=np.inf,
    ...                           alternative="less")
    >>> round(res.p_value, 4), res.extras["exact"]
    (0.0429, True)
    """
    samples = _read_samples(data, min_samples=1)
    ptype = check_choice(permutation_type, "permutation_type", ("independent", "pairings", "samples"))
    stat = _check_statistic(statistic, vectorized)
    B = _check_B(B)
    alt = check_alternative(alternative)
    n_jobs = check_n_jobs(n_jobs)
    progress = check_progress(progress)
    if ptype == "independent" and len(samples) < 2:
        raise ValueError("data must hold at least two samples for permutation_type='independent'")
    if ptype != "independent" and len({s.size for s in samples}) > 1:
        raise ValueError(f"data: permutation_type={ptype!r} needs samples of equal length, got "
                         f"{[s.size for s in samples]}")
    seed_root = root_seed(seed)
    observed = stat.observed(samples)
    k = len(samples)
    if ptype == "independent":
        sizes = [s.size for s in samples]
        cuts = np.concatenate([[0], np.cumsum(sizes)]).tolist()
        pooled = np.concatenate(samples)
        N = int(pooled.size)
        n_max = math.prod(math.comb(cuts[j + 1], sizes[j]) for j in range(k))
        compute = _IndependentCompute(stat, pooled, cuts)
        bytes_per = 16.0 * N
        enum, draw = (lambda: _partitions(sizes)), _IndependentDraw(N)
    elif ptype == "pairings":
        n = samples[0].size
        n_max = _factorial_power(n, k, B)
        compute = _PairingsCompute(stat, samples)
        bytes_per = 16.0 * n * k
        enum = lambda: (np.array(p) for p in itertools.product(*(itertools.permutations(range(n))  # noqa: E731
                                                                  for _ in range(k))))
        draw = _PairingsDraw(k, n)
    else:
        n = samples[0].size
        stacked = np.stack(samples if k > 1 else [samples[0], -samples[0]])
        kk = stacked.shape[0]
        n_max = _factorial_power(kk, n, B)
        compute = _SamplesCompute(stat, stacked, k)
        bytes_per = 16.0 * n * kk
        enum = lambda: (np.array(p) for p in itertools.product(*(itertools.permutations(range(kk))  # noqa: E731
                                                                  for _ in range(n))))
        draw = _PairingsDraw(n, kk)
    exact = B >= n_max
    if exact:
        null = run_enumeration(enum(), n_max, compute, bytes_per_resample=bytes_per, n_jobs=n_jobs,
                               progress=progress, desc="permutations", unit="permutation")
    else:
        null = run_resamples(draw, compute, int(B), seed=seed_root, bytes_per_resample=bytes_per, n_jobs=n_jobs,
                             progress=progress, desc="permutations", unit="permutation")
    null = np.asarray(null, dtype=np.float64).reshape(-1)
    p = perm_pvalue(observed, null, alternative=alt, exact=exact)
    n_used = int(null.size)
    method = (f"Permutation test ({ptype}, "
              + ("all " + str(n_used) + " permutations)" if exact else f"{n_used} random permutations)"))
    return HTest(statistic=observed, p_value=p, method=method,
                 data_name=f"{k} sample{'s' if k > 1 else ''}", alternative=alt,
                 extras={"null_distribution": null, "B": n_used, "exact": bool(exact)})


# ----------------------------------------------------------------------------------------------
# the bootstrap
# ----------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False, repr=False)
class BootstrapResult(Result):
    """A bootstrap confidence interval (:func:`bootstrap`), named as scipy's ``BootstrapResult``.

    Attributes
    ----------
    estimate : float
        The statistic on the data.
    confidence_interval : tuple (low, high)
        The interval, with ``.low`` and ``.high``.
    bootstrap_distribution : numpy.ndarray
        The B bootstrap statistics.
    standard_error : float
        Their standard deviation (ddof = 1).
    method : str
    conf_level : float
    alternative : str
    B : int

    Examples
    --------
    >>> import numpy as np
    >>> import statcore as sc
    >>> res = sc.bootstrap((np.arange(20.0),), np.mean, B=999, seed=0, method="bca")
    >>> res.to_frame().columns[:4].tolist()
    ['estimate', 'std_error', 'conf_low', 'conf_high']
    """

    estimate: float
    confidence_interval: Any
    bootstrap_distribution: np.ndarray
    standard_error: float
    method: str
    conf_level: float
    alternative: str
    B: int

    def _repr_parts(self):
        return [("estimate", self.estimate), ("conf_low", self.confidence_interval.low),
                ("conf_high", self.confidence_interval.high), ("method", self.method), ("B", self.B)]

    def summary(self) -> str:
        from ._r.rformat import format_numbers

        est, lo, hi = format_numbers([self.estimate, self.confidence_interval.low, self.confidence_interval.high], 7)
        se = format_numbers([self.standard_error], 7)[0]
        level = f"{100 * self.conf_level:g}"
        return (f"\n\tBootstrap confidence interval ({self.method}, {self.B} resamples)\n\n"
                f"estimate: {est.strip()}   std. error: {se.strip()}\n"
                f"{level} percent confidence interval ({self.alternative}):\n {lo.strip()} {hi.strip()}\n")

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame({"estimate": [self.estimate], "std_error": [self.standard_error],
                             "conf_low": [self.confidence_interval.low], "conf_high": [self.confidence_interval.high],
                             "conf_level": [self.conf_level], "method": [self.method], "alternative": [self.alternative],
                             "b": [self.B]})

    def _plot(self, ax=None):
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots()
        ax.hist(self.bootstrap_distribution, bins=50, color="0.7")
        for v in (self.confidence_interval.low, self.confidence_interval.high):
            if np.isfinite(v):
                ax.axvline(v, color="C3")
        ax.axvline(self.estimate, color="k")
        ax.set_xlabel("bootstrap statistic")
        ax.set_ylabel("count")
        return ax


class ConfidenceInterval(tuple):
    """``(low, high)`` with scipy's attribute names."""

    def __new__(cls, low: float, high: float):
        return super().__new__(cls, (float(low), float(high)))

    @property
    def low(self) -> float:
        return self[0]

    @property
    def high(self) -> float:
        return self[1]

    def __reduce__(self):
        return ConfidenceInterval, (self[0], self[1])

    def __repr__(self) -> str:
        return f"ConfidenceInterval(low={self[0]!r}, high={self[1]!r})"


class _BootDraw:
    """Bootstrap indices: per sample ``rng.integers(0, n_j, (size, n_j))``, in order (scipy's draws)."""

    def __init__(self, sizes: Sequence[int]):
        self.sizes = list(sizes)

    def __call__(self, rng: np.random.Generator, size: int) -> np.ndarray:
        if len(self.sizes) == 1:
            return rng.integers(0, self.sizes[0], (size, self.sizes[0]))
        return np.concatenate([rng.integers(0, n, (size, n)) for n in self.sizes], axis=1)


class _BootCompute:
    def __init__(self, stat: _Statistic, samples: Sequence[np.ndarray], paired: bool):
        self.stat, self.samples, self.paired = stat, list(samples), paired
        self.cuts = np.concatenate([[0], np.cumsum([s.size for s in samples])]).tolist()

    def __call__(self, idx: np.ndarray) -> np.ndarray:
        if self.paired:
            return self.stat(*(s[idx] for s in self.samples))
        return self.stat(*(s[idx[:, a:b]] for s, a, b in zip(self.samples, self.cuts[:-1], self.cuts[1:])))


def _bca_levels(stat: _Statistic, samples: list, paired: bool, theta_hat: float, boot: np.ndarray,
                alpha: float) -> tuple[float, float]:
    """Efron's BCa levels (Efron & Tibshirani 1993, 14.3 and 15.4), as scipy computes them."""
    from scipy.special import ndtr, ndtri

    z0 = ndtri((np.count_nonzero(boot < theta_hat) + np.count_nonzero(boot <= theta_hat)) / (2.0 * boot.size))
    groups = [list(range(len(samples)))] if paired else [[j] for j in range(len(samples))]
    nums = dens = 0.0
    for group in groups:
        n = samples[group[0]].size
        keep = ~np.eye(n, dtype=bool)
        jack_idx = np.broadcast_to(np.arange(n), (n, n))[keep].reshape(n, n - 1)
        args = []
        for j, s in enumerate(samples):
            args.append(s[jack_idx] if j in group else np.broadcast_to(s, (n, s.size)))
        theta_i = stat(*args)
        u = (n - 1) * (theta_i.mean() - theta_i)
        nums += np.sum(u ** 3) / n ** 3
        dens += np.sum(u ** 2) / n ** 2
    a_hat = nums / (6.0 * dens ** 1.5)
    z_a = float(ndtri(alpha))
    n1, n2 = z0 + z_a, z0 - z_a
    return float(ndtr(z0 + n1 / (1 - a_hat * n1))), float(ndtr(z0 + n2 / (1 - a_hat * n2)))


def bootstrap(data: Any, statistic: Callable, *, B: int = 9999, method: str = "percentile", conf_level: float = 0.95,
              alternative: str = "two.sided", paired: bool = False, vectorized: bool | None = None, seed: Any = None,
              n_jobs: int = 1, progress: bool | None = None) -> BootstrapResult:
    """A bootstrap confidence interval of any statistic: ``scipy.stats.bootstrap`` with ``n_jobs``,
    progress and seed streams that make the answer independent of ``n_jobs`` and of chunking.

    Each sample is resampled with replacement, separately (or, with ``paired``, the observations of
    all samples together). The intervals are scipy's: ``"percentile"`` the alpha and 1 - alpha
    quantiles of the B statistics (linear interpolation), ``"basic"`` 2 T - those quantiles (reversed),
    ``"bca"`` Efron's bias-corrected and accelerated levels (jackknife acceleration).

    Parameters
    ----------
    data : sequence of array_like
        The samples, each one-dimensional (``(x,)`` for one sample).
    statistic : callable
        ``statistic(*samples)`` returning a number; with ``vectorized`` it takes ``axis``.
    B : int
        Bootstrap resamples (scipy's ``n_resamples``).
    method : {"percentile", "basic", "bca"}
        The interval (scipy's names, case-insensitive).
    conf_level : float
        The interval's coverage (scipy's ``confidence_level``).
    alternative : {"two.sided", "less", "greater"}
        A two-sided interval, or one bounded above ("less") or below ("greater").
    paired : bool
        Resample the observations of all samples together (equal lengths).
    vectorized : bool or None
        Whether ``statistic`` takes ``axis``; None: when its signature has an ``axis`` parameter.
    seed : None, int, numpy.random.Generator or numpy.random.SeedSequence
        The seed of the resampling streams.
    n_jobs : int
        Parallel workers (joblib); the result does not depend on it.
    progress : bool or None
        A progress bar over the resamples (None: only on a terminal).

    Returns
    -------
    BootstrapResult
        ``confidence_interval`` (``low``, ``high``), ``bootstrap_distribution``, ``standard_error``
        and the ``estimate``; ``to_frame()`` has ``estimate``, ``std_error``, ``conf_low``, ``conf_high``.

    Warns
    -----
    DegenerateBootstrapWarning
        When the interval cannot be formed (a constant bootstrap distribution under BCa).

    References
    ----------
    Efron, B. and Tibshirani, R. J. (1993). *An Introduction to the Bootstrap*, chapters 13-14.
    ``scipy.stats.bootstrap``.

    Examples
    --------
    >>> import numpy as np
    >>> import statcore as sc
    >>> x = np.random.default_rng(0).normal(size=50)
    >>> res = sc.bootstrap((x,), np.mean, B=999, seed=1)
    >>> bool(res.confidence_interval.low < np.mean(x) < res.confidence_interval.high)
    True
    """
    samples = _read_samples(data, min_samples=1)
    stat = _check_statistic(statistic, vectorized)
    B = _check_B(B)
    if B == math.inf:
        raise ValueError("B must be a finite number of bootstrap resamples")
    method = check_choice(str(method).lower() if isinstance(method, str) else method, "method",
                          ("percentile", "basic", "bca"))
    from ._checks import check_probability

    conf_level = check_probability(conf_level, "conf_level", open_left=True, open_right=True)
    alt = check_alternative(alternative)
    if not isinstance(paired, (bool, np.bool_)):
        raise TypeError(f"paired must be True or False, got {paired!r}")
    if paired and len({s.size for s in samples}) > 1:
        raise ValueError(f"data: paired=True needs samples of equal length, got {[s.size for s in samples]}")
    n_jobs = check_n_jobs(n_jobs)
    progress = check_progress(progress)
    seed_root = root_seed(seed)
    theta_hat = stat.observed(samples)
    sizes = [samples[0].size] if paired else [s.size for s in samples]
    boot = run_resamples(_BootDraw(sizes), _BootCompute(stat, samples, bool(paired)), int(B), seed=seed_root,
                         bytes_per_resample=16.0 * sum(s.size for s in samples), n_jobs=n_jobs, progress=progress,
                         desc="bootstrap", unit="resample")
    boot = np.asarray(boot, dtype=np.float64).reshape(-1)
    alpha = (1 - conf_level) / 2 if alt == "two.sided" else 1 - conf_level
    if method == "bca":
        with np.errstate(divide="ignore", invalid="ignore"):
            levels = _bca_levels(stat, samples, bool(paired), theta_hat, boot, alpha)
    else:
        levels = (alpha, 1 - alpha)
    if np.all(np.isfinite(levels)):
        lo, hi = np.quantile(boot, levels)
    else:
        lo = hi = np.nan
        warnings.warn(DegenerateBootstrapWarning(
            "the BCa interval cannot be formed: the bootstrap distribution is degenerate (constant, or the "
            "statistic is a minimum or maximum); use method='percentile' or more varied data"), stacklevel=2)
    if method == "basic":
        lo, hi = 2 * theta_hat - hi, 2 * theta_hat - lo
    if alt == "less":
        lo = -np.inf
    elif alt == "greater":
        hi = np.inf
    se = float(np.std(boot, ddof=1)) if boot.size > 1 else float("nan")
    return BootstrapResult(estimate=theta_hat, confidence_interval=ConfidenceInterval(lo, hi),
                           bootstrap_distribution=boot, standard_error=se, method=method, conf_level=conf_level,
                           alternative=alt, B=int(B))
