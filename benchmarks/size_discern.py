"""Monte Carlo study of the information-discernment protocol (statcore.discernment): size of the
popularity axiom's test for a Bayesian agent, its power against a popularity-biased agent, the coverage
of the CR2 interval of beta_popularity, the pass rates of the source and truth axioms, and the caveat
(popularity correlated with reliability while the agent is non-linear in reliability).

Design: benchmarks/_discern_study.py (4 sources per question). Each cell runs REPS seeded replicates
(replicate r of a cell seeded by (cell, r)); B = 99 cluster-bootstrap resamples per analysis.
Run: ``PYTHONPATH=. python benchmarks/size_discern.py [reps] [designs]`` (1000 by default; designs a comma
list of the keys 1-5, all by default; about 10 minutes on one loaded core).
"""
from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _discern_study import analyse, simulate  # noqa: E402

REPS = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
SIZES = (10, 20, 40, 80)


def cell(key: int, n_questions: int, reliability_df: int = 1, **design) -> dict:
    pop_reject, source_pass, truth_pass, covers = [], [], [], []
    gamma = design.get("gamma", 0.0)
    for r in range(REPS):
        rng = np.random.default_rng([key, n_questions, r])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = analyse(simulate(rng, n_questions, **design), B=99, seed=r, reliability_df=reliability_df)
        ok = res.passes
        pop_reject.append(not ok["popularity"])
        source_pass.append(ok["source"])
        truth_pass.append(ok["truth"])
        row = res.coefficients.loc["popularity"]
        covers.append(row["conf_low"] <= gamma <= row["conf_high"])
    out = {k: float(np.mean(v)) for k, v in (("popularity_rejects", pop_reject), ("source_passes", source_pass),
                                              ("truth_passes", truth_pass), ("gamma_covered", covers))}
    return out


def main() -> None:
    se = lambda p: np.sqrt(p * (1 - p) / REPS)  # noqa: E731
    print(f"reps per cell: {REPS}; Monte Carlo s.e. at 5%: {se(0.05):.4f}, at 95%: {se(0.95):.4f}")
    designs = [("Bayes agent (popularity independent)", 1, dict()),
               ("biased agent gamma=0.1, noise 0.1", 2, dict(gamma=0.1, noise=0.1)),
               ("Bayes agent, popularity tied to reliability (c=0.5)", 3, dict(pop_corr=0.5)),
               ("Bayes agent, popularity tied (c=0.5), cubic spline reliability_df=4", 4,
                dict(pop_corr=0.5, reliability_df=4)),
               ("biased agent gamma=0.1, noise 0.1, popularity tied (c=0.5), reliability_df=4", 5,
                dict(gamma=0.1, noise=0.1, pop_corr=0.5, reliability_df=4))]
    only = {int(k) for k in sys.argv[2].split(",")} if len(sys.argv) > 2 else None
    for label, key, design in designs:
        if only is not None and key not in only:
            continue
        print(f"\n{label}")
        print(f"{'questions':>9} {'pop. rejects':>12} {'source passes':>13} {'truth passes':>12} {'gamma covered':>13} {'s':>5}")
        for nq in SIZES:
            t = time.perf_counter()
            r = cell(key, nq, **design)
            print(f"{nq:>9} {r['popularity_rejects']:>12.3f} {r['source_passes']:>13.3f} {r['truth_passes']:>12.3f} "
                  f"{r['gamma_covered']:>13.3f} {time.perf_counter() - t:>5.0f}")


if __name__ == "__main__":
    main()
