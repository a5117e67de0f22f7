"""The size table of the distance covariance tests (statcore.indep.dcor) under independence.

Runs every cell of tests/statcore/indep/test_indep_dcor_size.py (the same seeded simulation) and
the cells that the test leaves out: pdcor_test (B = 19) and the t-test (dimension 30) at n = 1000,
and the t-test in dimension 1 and 5, where it is loose (it is derived for high dimension). Prints the rejection rate
at alpha = 0.05, its Monte Carlo standard error and whether it lies within 0.05 +- 3 SE.

    python benchmarks/size_indep_dcor.py [--reps 1000] [--only permutation,t,pdcor]
"""
import argparse
import importlib.util
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def _size_module():
    path = ROOT / "tests" / "statcore" / "indep" / "test_indep_dcor_size.py"
    spec = importlib.util.spec_from_file_location("_dcor_size", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--only", default="permutation,t,pdcor")
    args = ap.parse_args(argv)
    m = _size_module()
    only = args.only.split(",")
    cells = [(t, d, n, None, "asserted") for t, d, n in m.CELLS]
    cells += [(t, d, 1000, None, "script only (budget)") for t in ("t", "pdcor") for d in m.DESIGNS]
    cells += [("t", d, n, dim, "script only (loose: low dimension)") for dim in (1, 5) for d in m.DESIGNS
              for n in (30, 200, 1000)]
    se = np.sqrt(m.ALPHA * (1 - m.ALPHA) / args.reps)
    print(f"size at alpha = {m.ALPHA}, {args.reps} replicates a cell, MC standard error {se:.4f}, "
          f"band {m.ALPHA} +- {3 * se:.4f}")
    print(f"{'test':12s} {'design':9s} {'n':>5s} {'dim':>4s} {'B':>4s} {'size':>7s} {'(size-a)/SE':>11s} "
          f"{'in band':>7s} {'time s':>7s}  note")
    for test, design, n, dim, note in cells:
        if test not in only:
            continue
        cfg = m.settings(test, n, dim)
        t0 = time.perf_counter()
        rate = m.rejection_rate(test, design, n, reps=args.reps, d=dim)
        dt = time.perf_counter() - t0
        z = (rate - m.ALPHA) / se
        print(f"{test:12s} {design:9s} {n:5d} {cfg['d']:4d} {cfg['B']:4d} {rate:7.4f} {z:11.2f} "
              f"{'yes' if abs(z) <= 3 else 'NO':>7s} {dt:7.1f}  {note}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
