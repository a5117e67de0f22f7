"""Model recovery by AIC for learncore.learning_rules: the generating x AIC-selected confusion matrix.

The design of tests/learncore/learning_rules/test_model_recovery.py (rule "rpe", IBL schedule, hidden
width 3, naive starts, per-animal draws of eta and beta; 4,000 trials, 4 restarts), with more animals
per architecture than the test's guard (4). Prints the confusion matrix, the median
AIC(1L) - AIC(generating) of the deep animals, the cohort's headline and the wall time. The default,
6 animals per architecture, is the run that test made before it was resized.

    python benchmarks/size_learning_rules_recovery.py [--per-arch 6]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import learncore.learning_rules  # noqa: E402,F401  (first: tests/learncore on the path must not shadow it)

TESTS = Path(__file__).resolve().parents[1] / "tests"
sys.path += [str(TESTS), str(TESTS / "learncore" / "learning_rules")]   # helpers.py, the design
from test_model_recovery import recovery  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-arch", type=int, default=6, help="synthetic animals per architecture")
    a = ap.parse_args()
    t0 = time.perf_counter()
    _, _, _, confusion, _ = recovery(a.per_arch)
    rate = sum(confusion.loc[k, k] for k in confusion.index) / confusion.to_numpy().sum()
    print(f"\nrecovered {rate:.3f} of the animals; {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
