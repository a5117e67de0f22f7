"""Model recovery (issue 7, section 3): with enough trials, AIC picks the generating architecture in
most of a seeded set of synthetic animals. Prints the generating x AIC-selected confusion matrix
(``pytest -s``).

Design (frozen after exploring; the measurements behind it are in benchmarks/README.md,
"learncore.learning_rules"): rule "rpe", IBL schedule, hidden width 3; per architecture N_PER_ARCH
animals, each with its own draw of the generating parameters:

- eta log-uniform, beta uniform on [6, 10];
- a naive start: output weights (W for 1L, W2 for 2L/2NL) ~ N(0, 0.1^2), so the first trials are near
  chance; the first layer of 2L/2NL ~ N(0, w1^2);
- 1L eta in [0.03, 0.08]; 2L eta in [0.02, 0.05], w1 = 2 (a product of matrices whose slow start
  and later acceleration a single layer cannot follow); 2NL eta in [0.2, 0.5], w1 = 2.5 (hidden
  units that saturate, so the psychometric curve is not a logistic in contrast).
"""
import numpy as np
import pandas as pd
import pytest

from helpers import require_torch

require_torch()

from learncore.learning_rules import ARCHS, fit_many, simulate  # noqa: E402

N_TRIALS = 4000
# What the guard must detect: an architecture that AIC cannot recover (a wrong parameter count, a fit
# that fails), i.e. recovered at chance (1/3) or worse. With 4 animals per architecture a strict
# majority (3 of 4) passes by chance with probability 0.11 per row (6 animals: 0.10, at 1.5x the
# cost), and an architecture recovered 9 times in 10 fails with probability 0.05. The bigger study
# (its confusion matrix) is benchmarks/size_learning_rules_recovery.py.
N_PER_ARCH = 4
RESTARTS = 4
HIDDEN = 3
DESIGN = {"1L": dict(eta=(0.03, 0.08), w1=None),
          "2L": dict(eta=(0.02, 0.05), w1=2.0),
          "2NL": dict(eta=(0.2, 0.5), w1=2.5)}


def _params(arch, rng):
    d = DESIGN[arch]
    eta = float(np.exp(rng.uniform(*np.log(d["eta"]))))
    beta = float(rng.uniform(6.0, 10.0))
    if arch == "1L":
        return dict(W=rng.normal(scale=0.1, size=(2, 3)), eta=eta, beta=beta)
    return dict(W1=rng.normal(scale=d["w1"], size=(HIDDEN, 3)), W2=rng.normal(scale=0.1, size=(2, HIDDEN)),
                eta=eta, beta=beta)


def _expected_accuracy(tr):
    p = tr["p_right"].to_numpy()
    return np.where(tr["stim_side"].to_numpy() == "right", p, 1.0 - p)


def recovery(n_per_arch):
    """The synthetic animals' start and end accuracies, the fits' comparison, the generating x
    AIC-selected confusion matrix and AIC(1L) - AIC(generating) per animal, printed (also run by
    benchmarks/size_learning_rules_recovery.py, with more animals)."""
    animals, truth, start, end = {}, {}, [], []
    for a, arch in enumerate(ARCHS):
        for i in range(n_per_arch):
            rng = np.random.default_rng([2025, a, i])
            tr = simulate(arch, _params(arch, rng), N_TRIALS, seed=rng)
            acc = _expected_accuracy(tr)
            start.append(acc[:200].mean())
            end.append(acc[-1000:].mean())
            key = f"{arch}_{i}"
            animals[key] = tr.drop(columns=["p_right"])
            truth[key] = arch
    cmp = fit_many(animals, restarts=RESTARTS, hidden=HIDDEN, seed=7, n_jobs=2, B=0)
    fits = cmp.fits
    confusion = pd.DataFrame(0, index=pd.Index(ARCHS, name="generating"),
                             columns=pd.Index(ARCHS, name="AIC-selected"))
    gap_1l = {arch: [] for arch in ARCHS}
    for key, fs in fits.items():
        aic = {arch: f.aic for arch, f in fs.items()}
        confusion.loc[truth[key], min(aic, key=aic.get)] += 1
        gap_1l[truth[key]].append(aic["1L"] - aic[truth[key]])
    print(f"\nmodel recovery: {n_per_arch} animals per architecture, {N_TRIALS} trials, {RESTARTS} restarts")
    print(confusion.to_string())
    print("median AIC(1L) - AIC(generating): " + ", ".join(
        f"{arch} {np.median(g):.1f}" for arch, g in gap_1l.items() if arch != "1L"))
    print(cmp.headline())
    return start, end, cmp, confusion, gap_1l


@pytest.mark.slow
def test_aic_recovers_the_generating_architecture():
    start, end, cmp, confusion, gap_1l = recovery(N_PER_ARCH)
    # the synthetic animals look like mice: a naive start, and most of them learn
    assert np.median(start) < 0.65 and np.median(end) > 0.75

    # the deep animals are not 1L-like: a single layer fits them clearly worse
    assert np.median(gap_1l["2L"]) > 10 and np.median(gap_1l["2NL"]) > 10
    # "most": the generating architecture wins a strict majority of every row
    for arch in ARCHS:
        assert confusion.loc[arch, arch] > N_PER_ARCH / 2, confusion
