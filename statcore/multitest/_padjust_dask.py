"""``p_adjust`` on a ``dask.array``: exact adjusted p-values without gathering the data on one worker.

Bonferroni is elementwise once the number of non-NaN values is counted. The scans (Holm's step-down,
Hochberg's, BH's and BY's step-up) need every value's global rank; they run as a distributed sort by
regular sampling (parallel sorting by regular sampling, Shi & Schaeffer 1992):

1. every chunk drops its NaN and sorts its values (ties kept in position order), and draws a regular
   sample of its sorted values;
2. the samples (a few per bucket and chunk) give bucket splitters, keys ``(value, chunk, position)``
   so that massive ties (many p = 1) still split evenly;
3. every chunk cuts its sorted values at the splitters; bucket ``b`` receives its slice of every chunk
   and sorts it (a bucket holds about ``n / n_buckets`` values); the global rank of a value is the
   bucket's offset (a sum of counts) plus its rank within the bucket;
4. each bucket reports the extreme of its terms (min for step-up, max for step-down); a prefix or
   suffix over these few numbers gives the running extreme entering each bucket, and the bucket's
   scan starts from it;
5. the adjusted values travel back to their chunk and position.

The terms are computed with the same floating-point operations in the same order as the in-memory
kernels (``_ext/_padjust.pyx``), and min/max are exact, so the result equals ``p_adjust`` on the
gathered vector bit for bit. Ties need no care: tied p-values get the same adjusted value whatever
their order, in memory and here.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .._checks import check_p_adjust_n, show_value

# which methods run on dask, and how: (kind, direction)
DASK_METHODS = {"bonferroni": "elementwise", "holm": "down", "hochberg": "up", "BH": "up", "BY": "up",
                "fdr": "up", "none": "elementwise"}

_POS_BITS = 40  # positions within a chunk below 2**40, chunk numbers above


def is_dask_array(p: Any) -> bool:
    """True for a ``dask.array.Array`` (checked without importing dask)."""
    return type(p).__module__.split(".")[0] == "dask" and hasattr(p, "chunks") and hasattr(p, "dask")


# ----------------------------------------------------------------------------------------------
# per-chunk and per-bucket tasks (plain numpy; they run on the workers)
# ----------------------------------------------------------------------------------------------

def _checked(block: np.ndarray) -> np.ndarray:
    x = np.asarray(block, dtype=np.float64).ravel()
    if x.size:
        lo, hi = np.fmin.reduce(x), np.fmax.reduce(x)
        if np.isinf(lo) or np.isinf(hi):
            raise ValueError("p contains infinite values; p-values must lie in [0, 1]")
        if lo < 0 or hi > 1:
            raise ValueError(f"p must lie in [0, 1]; found {show_value(lo if lo < 0 else hi)}")
    return x


def _count(block: np.ndarray) -> np.ndarray:
    x = _checked(block)
    return np.array([np.count_nonzero(~np.isnan(x))], dtype=np.int64)


def _sort_chunk(block: np.ndarray, n_samples: int) -> tuple:
    """Non-NaN values sorted (stable), their positions in the flattened chunk, and a regular sample."""
    from ._padjust import _argsort  # the in-memory path's stable key sort (values in [0, 1])

    x = _checked(block)
    pos = np.flatnonzero(~np.isnan(x))
    vals = np.ascontiguousarray(x[pos])
    order = _argsort(vals)
    vals = vals[order]
    pos = pos[order]
    m = vals.size
    if m:
        at = np.unique(np.linspace(0, m - 1, min(m, n_samples)).round().astype(np.int64))
        sample = (vals[at], pos[at], np.full(at.size, m / at.size))
    else:
        sample = (np.empty(0), np.empty(0, np.int64), np.empty(0))
    return vals, pos, sample


def _splitters(samples: list, n_buckets: int) -> tuple:
    """Bucket splitters as keys (value, chunk, position), at weighted quantiles of the samples."""
    v = np.concatenate([s[0] for s in samples])
    if v.size == 0 or n_buckets <= 1:
        return np.empty(0), np.empty(0, np.int64)
    g = np.concatenate([(np.int64(i) << _POS_BITS) + s[1] for i, s in enumerate(samples)])
    w = np.concatenate([s[2] for s in samples])
    order = np.lexsort((g, v))
    cw = np.cumsum(w[order])
    targets = cw[-1] * np.arange(1, n_buckets) / n_buckets
    at = np.unique(np.minimum(np.searchsorted(cw, targets), v.size - 1))
    return v[order][at], g[order][at]


def _cut(vals: np.ndarray, pos: np.ndarray, chunk: int, sv: np.ndarray, sg: np.ndarray) -> np.ndarray:
    """Positions in a sorted chunk where keys (value, chunk, position) reach each splitter."""
    cuts = np.empty(sv.size + 2, dtype=np.int64)
    cuts[0], cuts[-1] = 0, vals.size
    for k, (v, g) in enumerate(zip(sv, sg)):
        lo = np.searchsorted(vals, v, "left")
        c = int(g >> _POS_BITS)
        if chunk < c:
            cuts[k + 1] = np.searchsorted(vals, v, "right")
        elif chunk > c:
            cuts[k + 1] = lo
        else:
            hi = np.searchsorted(vals, v, "right")
            cuts[k + 1] = lo + np.searchsorted(pos[lo:hi], g & ((1 << _POS_BITS) - 1), "left")
    return np.maximum.accumulate(cuts)


def _split_chunk(sorted_chunk: tuple, chunk: int, splitters: tuple, n_buckets: int) -> tuple:
    vals, pos, _ = sorted_chunk
    cuts = _cut(vals, pos, chunk, *splitters)
    cuts = np.concatenate([cuts[:-1], np.full(n_buckets + 1 - (cuts.size - 1), vals.size)])
    counts = np.diff(cuts)
    pieces = tuple((vals[a:b], pos[a:b]) for a, b in zip(cuts[:-1], cuts[1:]))
    return (counts,) + pieces


def _gather_bucket(*pieces) -> tuple:
    """One bucket's values from every chunk, sorted; remembers where each came from."""
    vals = np.concatenate([pc[0] for pc in pieces]) if pieces else np.empty(0)
    sizes = np.array([pc[0].size for pc in pieces], dtype=np.int64)
    order = np.argsort(vals, kind="stable")  # timsort: merges the chunks' sorted runs
    return vals[order], order, sizes, [pc[1] for pc in pieces]


def _terms(svals: np.ndarray, offset: int, n: float, fn: float, method: str) -> np.ndarray:
    # the in-memory kernels' arithmetic: step_up: fn / (k + 1) * p; holm, hochberg: (n - k) * p
    k = np.arange(offset, offset + svals.size, dtype=np.float64)
    if method in ("BH", "BY", "fdr"):
        return fn / (k + 1.0) * svals
    return (n - k) * svals


def _bucket_extreme(bucket: tuple, offset: int, n: float, fn: float, method: str) -> float:
    t = _terms(bucket[0], offset, n, fn, method)
    if DASK_METHODS[method] == "up":
        return float(t.min()) if t.size else np.inf
    return float(t.max()) if t.size else 0.0


def _bucket_adjust(bucket: tuple, offset: int, n: float, fn: float, method: str, start: float,
                   trivial: bool) -> tuple:
    """The bucket's adjusted values, scanned from the running extreme ``start``, sent per chunk."""
    svals, order, sizes, poss = bucket
    if trivial:
        adj_sorted = svals.copy()
    else:
        t = _terms(svals, offset, n, fn, method)
        if DASK_METHODS[method] == "up":
            run = np.minimum.accumulate(t[::-1])[::-1]
            np.minimum(run, start, out=run)
        else:
            run = np.maximum.accumulate(t)
            np.maximum(run, start, out=run)
        adj_sorted = np.minimum(run, 1.0)
    adj = np.empty_like(adj_sorted)
    adj[order] = adj_sorted
    ends = np.cumsum(sizes)
    return tuple((poss[i], adj[e - s:e]) for i, (s, e) in enumerate(zip(sizes, ends)))


def _assemble(shape: tuple, *pieces) -> np.ndarray:
    out = np.full(int(np.prod(shape, dtype=np.int64)), np.nan)
    for pos, adj in pieces:
        out[pos] = adj
    return out.reshape(shape)


def _elementwise(block: np.ndarray, total: np.ndarray, n: int | None, method: str) -> np.ndarray:
    x = np.asarray(block, dtype=np.float64)
    m = int(total.sum())
    nn = m if n is None else check_p_adjust_n(n, m)
    if nn <= 1 or method == "none":  # R returns p unchanged
        return x.copy()
    return np.minimum(1.0, nn * x)


def _totals(counts: list, n: int | None, method: str) -> tuple:
    m = int(sum(int(c.sum()) for c in counts))
    nn = m if n is None else check_p_adjust_n(n, m)
    if method == "BY":
        from .. import _padjust

        fn = _padjust.harmonic_sum(int(nn)) * float(nn)
    else:
        fn = 1.0 * float(nn)
    return float(nn), fn, nn <= 1


def _starts(extremes: list, direction: str) -> list:
    e = np.asarray(extremes, dtype=np.float64)
    if direction == "up":  # the min over the buckets above
        tail = np.minimum.accumulate(np.append(e, np.inf)[::-1])[::-1]
        return tail[1:].tolist()
    head = np.maximum.accumulate(np.insert(e, 0, 0.0))
    return head[:-1].tolist()


# ----------------------------------------------------------------------------------------------
# the graph
# ----------------------------------------------------------------------------------------------

def p_adjust_dask(p, method: str, n: int | None, n_buckets: int | None = None):
    """Adjusted p-values of the dask array ``p``, a dask array of the same shape and chunks."""
    import dask
    import dask.array as da

    if p.ndim == 0:
        return p_adjust_dask(p.reshape(1), method, n, n_buckets).reshape(())
    if p.dtype != np.float64:
        p = p.astype(np.float64)
    kind = DASK_METHODS[method]
    blocks = p.to_delayed().ravel()
    if kind == "elementwise":
        total = da.stack([da.from_delayed(dask.delayed(_count)(b), shape=(1,), dtype=np.int64)
                          for b in blocks]).sum()
        return p.map_blocks(_elementwise, total, n, method, dtype=np.float64, meta=np.empty((0,) * p.ndim))
    k = len(blocks)
    n_buckets = max(1, k) if n_buckets is None else int(n_buckets)
    delayed = dask.delayed
    sorted_chunks = [delayed(_sort_chunk, pure=True)(b, 8 * n_buckets) for b in blocks]
    samples = [delayed(lambda s: s[2], pure=True)(s) for s in sorted_chunks]
    splitters = delayed(_splitters, pure=True)(samples, n_buckets)
    splits = [delayed(_split_chunk, nout=n_buckets + 1, pure=True)(s, i, splitters, n_buckets)
              for i, s in enumerate(sorted_chunks)]
    counts = [sp[0] for sp in splits]
    totals = delayed(_totals, nout=3, pure=True)(counts, n, method)
    nn, fn, trivial = totals
    offsets = delayed(lambda cs: np.concatenate([[0], np.cumsum(np.sum(cs, axis=0))[:-1]]).tolist(),
                      nout=n_buckets, pure=True)(counts)
    buckets = [delayed(_gather_bucket, pure=True)(*[sp[b + 1] for sp in splits]) for b in range(n_buckets)]
    extremes = [delayed(_bucket_extreme, pure=True)(bk, offsets[b], nn, fn, method)
                for b, bk in enumerate(buckets)]
    starts = delayed(_starts, nout=n_buckets, pure=True)(extremes, kind)
    back = [delayed(_bucket_adjust, nout=k, pure=True)(bk, offsets[b], nn, fn, method, starts[b], trivial)
            for b, bk in enumerate(buckets)]
    # the output blocks, in the input's block layout
    shapes = [tuple(int(c[i]) for c, i in zip(p.chunks, idx)) for idx in np.ndindex(*p.numblocks)]
    out_blocks = [da.from_delayed(delayed(_assemble, pure=True)(shape, *[bk[i] for bk in back]),
                                  shape=shape, dtype=np.float64, meta=np.empty((0,) * p.ndim))
                  for i, shape in enumerate(shapes)]
    grid = np.empty(p.numblocks, dtype=object)
    for i, idx in enumerate(np.ndindex(*p.numblocks)):
        grid[idx] = out_blocks[i]
    return da.block(grid.tolist())
