"""Timings of statcore.cmc_map against the torchreid-style numpy evaluation, on Market-1501's size.

The peer is the documented algorithm of torchreid's ``eval_market1501`` (metrics/rank.py), written
here from its description with numpy only (torchreid itself is not a dependency): for each query,
an ``np.argsort`` of its whole row of distances (numpy's default quicksort, as torchreid), boolean
masks of the true matches and of the removed same-id-same-camera entries, the cumulative sums that
give the CMC row, AP and INP (the division by the positions vectorised, which makes the peer faster
than torchreid's Python list comprehension). ``statcore.cmc_map`` scans each row once for the ranks
of the true matches only (``statcore/retrieval/_kernels.py``).

Data: 3,368 queries x 15,913 gallery entries (Market-1501's test split), 751 identities, 6 cameras,
about 21 gallery images per identity (about 17.6 true matches per query after the exclusion),
uniform random distances, float32 and float64. Medians of ``--runs`` runs (after a warm-up);
statcore with B = 0 (the metrics alone, what the peer computes) and with its default B = 1000
bootstrap intervals. A ratio > 1: statcore is faster.

    python benchmarks/bench_retrieval.py [--runs 3] [--nq 3368] [--ng 15913]
"""
import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _timing import median_time  # noqa: E402

import statcore as sc  # noqa: E402


def market_like(rng, nq, ng, n_ids=751, n_cams=6, dtype=np.float32):
    gid = rng.integers(0, n_ids, ng)
    gcam = rng.integers(0, n_cams, ng)
    qid = rng.integers(0, n_ids, nq)
    qcam = rng.integers(0, n_cams, nq)
    dist = rng.random((nq, ng), dtype=np.float64).astype(dtype)
    return dist, qid, gid, qcam, gcam


def torchreid_style(dist, qid, gid, qcam, gcam, max_rank=50):
    """CMC, mAP and mINP as torchreid's eval_market1501 computes them (per-query full argsort)."""
    all_cmc, all_ap, all_inp = [], [], []
    for q in range(dist.shape[0]):
        order = np.argsort(dist[q])
        matches = gid[order] == qid[q]
        keep = ~(matches & (gcam[order] == qcam[q]))
        raw = matches[keep].astype(np.int64)
        if not raw.any():
            continue
        cum = raw.cumsum()
        cmc = np.minimum(cum, 1)
        all_cmc.append(cmc[:max_rank])
        last = np.flatnonzero(raw)[-1]
        all_inp.append(cum[last] / (last + 1.0))
        all_ap.append(np.sum(cum / np.arange(1.0, raw.size + 1) * raw) / raw.sum())
    return np.mean(all_cmc, axis=0), float(np.mean(all_ap)), float(np.mean(all_inp))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--nq", type=int, default=3368)
    ap.add_argument("--ng", type=int, default=15913)
    args = ap.parse_args()
    rng = np.random.default_rng(1501)
    print(f"cmc_map: {args.nq} queries x {args.ng} gallery, medians of {args.runs} runs")
    for dtype in (np.float32, np.float64):
        dist, qid, gid, qcam, gcam = market_like(rng, args.nq, args.ng, dtype=dtype)
        kw = dict(query_cams=qcam, gallery_cams=gcam, max_rank=50)
        t_peer, (cmc, m_ap, m_inp) = median_time(lambda: torchreid_style(dist, qid, gid, qcam, gcam), args.runs,
                                                  with_output=True)
        t0, res = median_time(lambda: sc.cmc_map(dist, qid, gid, B=0, **kw), args.runs, with_output=True)
        t_b = median_time(lambda: sc.cmc_map(dist, qid, gid, B=1000, seed=0, **kw), args.runs)
        diff = max(np.abs(res.cmc - cmc).max(), abs(res.mean_ap - m_ap), abs(res.mean_inp - m_inp))
        print(f"  {np.dtype(dtype).name}: torchreid-style {t_peer:.2f} s | statcore B=0 {t0:.3f} s "
              f"(ratio {t_peer / t0:.1f}x) | statcore B=1000 {t_b:.3f} s (ratio {t_peer / t_b:.1f}x) | "
              f"max |difference| {diff:.1e}; mAP {res.mean_ap:.5f}, {res.n_skipped} queries skipped, "
              f"{np.mean(res.n_matches[res.valid]):.1f} true matches per query")
        del dist


if __name__ == "__main__":
    main()
