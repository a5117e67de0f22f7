"""Venkatraman's tests on the resampling engine: how much the one tie rule (a replicate within 1e-9 |E|
of the observed E counts as at least as extreme) changes pROC's count #{E_b >= E} / B on the same draws.

    python benchmarks/venkatraman_tie_rule.py

20 data sets of 20 cases + 20 controls per sample, scores in {0, 1, 2} (heavy ties) and rounded to 3
digits (nearly continuous), B = 199, seed = data set number; prints the p-values changed, and the
largest and mean change in units of 1/B."""
import importlib
import warnings

import numpy as np

import statcore as sc
from statcore._resampling import TIE_RTOL, run_stream

T = importlib.import_module("statcore._roc._test")


def null_and_E(r1, r2, paired, B, seed):
    rng = np.random.default_rng(seed)
    if paired:
        case = np.asarray(r1.is_case)
        k1, k2 = T._ranks_first(T._scores(r1)), T._ranks_first(T._scores(r2))
        E = T._venkatraman_E(k1, k2, case)
        parts = run_stream(T._PairedVenkDraw(case.size), T._PairedVenkE(k1, k2, case), B, rng=rng,
                           bytes_per_resample=1.0)
        return np.concatenate(parts), E
    c1, c2 = np.asarray(r1.is_case, bool), np.asarray(r2.is_case, bool)
    mp = (r1.n_cases + r2.n_cases) / (2 * c1.size)
    k1, k2 = T._ranks_first(T._scores(r1)).astype(float), T._ranks_first(T._scores(r2)).astype(float)
    E = T._venkatraman_unpaired_E(c1[np.argsort(k1)], c2[np.argsort(k2)], mp)
    draw = T._UnpairedVenkDraw(c1.size, c2.size, int((~c1).sum() + (~c2).sum()), int(c1.sum() + c2.sum()))
    parts = run_stream(draw, T._UnpairedVenkE(k1, k2, c1, c2, mp), B, rng=rng, bytes_per_resample=1.0)
    return np.concatenate(parts), E


def main(B=199, sets=20):
    warnings.simplefilter("ignore")
    for label, tie in (("scores in {0, 1, 2}", lambda v: np.clip(np.round(v), 0, 2)),
                       ("scores to 3 digits", lambda v: np.round(v, 3))):
        rng = np.random.default_rng(29)
        for paired in (True, False):
            diff = []
            for i in range(sets):
                y1 = rng.permutation(np.repeat([0, 1], 20))
                y2 = rng.permutation(np.repeat([0, 1], 20))
                r1 = sc.roc(y1, tie(rng.normal(size=40) + y1), direction="<")
                r2 = (sc.roc(y1, tie(rng.normal(size=40) + 0.5 * y1), direction="<") if paired
                      else sc.roc(y2, tie(rng.normal(size=40) + 0.5 * y2), direction="<"))
                null, E = null_and_E(r1, r2, paired, B, i)
                diff.append(int(np.count_nonzero(null >= E - TIE_RTOL * abs(E)) - np.count_nonzero(null >= E)))
            d = np.array(diff)
            print(f"{label:22s} {'paired' if paired else 'unpaired':9s} changed {int((d != 0).sum())} of {sets}; "
                  f"largest +{d.max()}/{B}; mean +{d.mean():.2f}/{B}; decreases {int((d < 0).sum())}")


if __name__ == "__main__":
    main()
