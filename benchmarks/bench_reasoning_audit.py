"""The speed of the rewrite environment's audit (learncore.reasoning.rewrite, issue 35 section 1).

``audit_step`` is a dynamic programme over segmentations: O(len(u)^2 (len(u) - len(v) + 1)) table
look-ups. This times it per step, in microseconds, on seeded S3 words of several lengths, for three
kinds of step: a primitive step (compresses 1), a contraction to half the length (a random valid
segmentation), and an invalid step of the same length as the contraction whose product is that of
u (a step with another product is refused in O(len(u)) before the programme runs); then ``audit_trace`` on a
full primitive chain, per step. Run: ``python benchmarks/bench_reasoning_audit.py [--quick]``.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from learncore.reasoning import Monoid, audit_step, audit_trace, format_trace, primitive_chain  # noqa: E402


def _contract(u: str, m: int, monoid: Monoid, rng: np.random.Generator) -> str:
    cuts = np.sort(rng.choice(np.arange(1, len(u)), size=m - 1, replace=False))
    bounds = [0, *cuts.tolist(), len(u)]
    return "".join(monoid.product(u[a:b]) for a, b in zip(bounds[:-1], bounds[1:]))


def main(quick: bool = False) -> None:
    monoid = Monoid.s3()
    rng = np.random.default_rng(0)
    n_words = 50 if quick else 200
    print(f"audit_step, microseconds per step (median over {n_words} seeded S3 words; one pass each)")
    print(f"{'len(u)':>6} {'primitive':>10} {'contract to n/2':>16} {'invalid n/2, same product':>26} {'audit_trace/step':>17}")
    for n in (4, 8, 16, 24, 32):
        words = ["".join(rng.choice(list(monoid.symbols), size=n)) for _ in range(n_words)]
        prim, half, bad, trace = [], [], [], []
        for u in words:
            v1 = u[:1] + monoid.mul(u[1], u[2]) + u[3:]
            vh = _contract(u, n // 2, monoid, rng)
            target = monoid.product(u)
            while True:             # invalid, with the product of u: the cheap check passes, the DP runs
                vb = "".join(rng.choice(list(monoid.symbols), size=n // 2))
                if monoid.product(vb) == target and not audit_step(u, vb, monoid).valid:
                    break
            text = format_trace(primitive_chain(u, monoid))
            for v, acc in ((v1, prim), (vh, half), (vb, bad)):
                t0 = time.perf_counter()
                audit_step(u, v, monoid)
                acc.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            audit_trace(text, monoid)
            trace.append((time.perf_counter() - t0) / (n - 1))
        med = [1e6 * float(np.median(a)) for a in (prim, half, bad, trace)]
        print(f"{n:>6} {med[0]:>10.1f} {med[1]:>16.1f} {med[2]:>26.1f} {med[3]:>17.1f}")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
