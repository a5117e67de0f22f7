"""Time learncore's learning-rule fits (issue 7, section 4) in one run.

    python benchmarks/bench_learning_rules.py             # one 5,000-trial animal, 1L/2L/2NL, 8 restarts
    python benchmarks/bench_learning_rules.py --cohort    # ... and 88 animals x 3 architectures on 2 cores
    python benchmarks/bench_learning_rules.py --quick     # smoke run (fewer runs; cohort of 12 animals)

Per architecture, on one synthetic 5,000-trial animal (a 2NL learner, rule "rpe", IBL schedule):

- learncore: ``fit(trials, arch, restarts=8)`` (backend "numba": compiled replay with a hand-written
  adjoint gradient, the 8 restarts batched in one L-BFGS); median wall time of several runs.
- autograd: ``fit(..., backend="autograd")``, the same batched L-BFGS on a PyTorch graph through the
  unrolled updates. A full fit takes far too long, so a short fit (``max_iter`` = 2) is MEASURED,
  giving the time per objective+gradient call of the batch, and the full fit is EXTRAPOLATED to the
  number of batched calls the learncore fit needed (counted by wrapping its objective).
- naive: a per-trial Python loop in PyTorch (``_torchnets.unrolled_nll``) with ONE restart at a time
  (R = 1) and ``torch.optim.LBFGS`` (strong Wolfe), restarts in a Python loop. A fixed number of its
  L-BFGS iterations is MEASURED (time per objective+gradient evaluation); the full 8-restart fit is
  EXTRAPOLATED to the number of per-restart evaluations the learncore fit needed.

``--cohort``: ``fit_many`` over 88 synthetic 5,000-trial animals of mixed architectures (30 2NL, 29 2L,
29 1L) x 3 architectures, 8 restarts, n_jobs=2: total wall time (measured once), the statcore headline
and the generating x AIC-selected table. BLAS and torch run single-threaded throughout.
"""
from __future__ import annotations

import argparse
import importlib
import time

import numpy as np
import pandas as pd
import torch
from threadpoolctl import threadpool_limits

from learncore.learning_rules import ARCHS, check_trials, fit, fit_many, simulate
from learncore.learning_rules._torchnets import unrolled_nll
from _timing import median_time

# the module (the package's name ``fit`` is the function)
fitmod = importlib.import_module("learncore.learning_rules._fit")

#: generating parameters of the synthetic animals (the same design as
#: tests/learncore/learning_rules/test_model_recovery.py):
#: eta log-uniform, beta uniform, initial W1 ~ N(0, w1^2), output weights ~ N(0, 0.1^2) (a naive start)
DESIGN = {"1L": dict(eta=(0.03, 0.08), beta=(6.0, 10.0), w1=None),
          "2L": dict(eta=(0.02, 0.05), beta=(6.0, 10.0), w1=2.0),
          "2NL": dict(eta=(0.2, 0.5), beta=(6.0, 10.0), w1=2.5)}
HIDDEN = 3
T = 5000
RESTARTS = 8


def synthetic_animal(arch: str, n_trials: int, rng: np.random.Generator) -> pd.DataFrame:
    d = DESIGN[arch]
    eta = float(np.exp(rng.uniform(*np.log(d["eta"]))))
    beta = float(rng.uniform(*d["beta"]))
    if arch == "1L":
        params = dict(W=rng.normal(scale=0.1, size=(2, 3)), eta=eta, beta=beta)
    else:
        params = dict(W1=rng.normal(scale=d["w1"], size=(HIDDEN, 3)),
                      W2=rng.normal(scale=0.1, size=(2, HIDDEN)), eta=eta, beta=beta)
    return simulate(arch, params, n_trials, seed=rng).drop(columns=["p_right"])


class CountCalls:
    """Wraps one of fit.py's objective factories: counts batched calls and rows (restart evaluations)."""

    def __init__(self, factory):
        self.factory = factory
        self.calls = 0
        self.rows = 0

    def __call__(self, *args, **kwargs):
        fun = self.factory(*args, **kwargs)

        def counted(theta, rows=None):
            self.calls += 1
            self.rows += int(theta.shape[0])
            return fun(theta, rows)

        return counted


def count_evaluations(trials, arch, backend="numba", **kw):
    """Run ``fit`` once with its objective wrapped; return (fit, batched calls, row evaluations)."""
    name = "_objective_numba" if backend == "numba" else "_objective_autograd"
    original = getattr(fitmod, name)
    counter = CountCalls(original)
    setattr(fitmod, name, counter)
    try:
        res = fit(trials, arch=arch, backend=backend, **kw)
    finally:
        setattr(fitmod, name, original)
    return res, counter.calls, counter.rows


def naive_fit(trials, arch, restarts, max_iter, seed=0):
    """Per-trial Python loop, one restart at a time, one ``torch.optim.LBFGS.step`` of ``max_iter``
    iterations per restart; returns (seconds, evaluations, L-BFGS iterations)."""
    data = check_trials(trials)
    x = torch.from_numpy(data.x)
    hidden = 0 if arch == "1L" else HIDDEN
    th0 = fitmod._init_thetas(arch, hidden, restarts, np.random.default_rng(seed))
    n_eval = 0
    n_iter = 0
    t0 = time.perf_counter()
    for r in range(restarts):
        theta = torch.tensor(th0[r:r + 1], dtype=torch.float64, requires_grad=True)
        opt = torch.optim.LBFGS([theta], lr=1.0, max_iter=max_iter, max_eval=25 * max_iter, history_size=10,
                                line_search_fn="strong_wolfe", tolerance_grad=1e-5, tolerance_change=1e-10)

        def closure():
            nonlocal n_eval
            n_eval += 1
            opt.zero_grad()
            nll = unrolled_nll(theta, arch, "rpe", hidden, x, data.choice, data.reward, data.rewarded_side, 0.5)[0]
            nll.backward()
            return nll

        opt.step(closure)
        n_iter += int(opt.state[theta]["n_iter"])
    return time.perf_counter() - t0, n_eval, n_iter


def bench_one_animal(reps: int, naive_iter: int):
    rng = np.random.default_rng(2025)
    trials = synthetic_animal("2NL", T, rng)
    rows = []
    for arch in ARCHS:
        kw = dict(restarts=RESTARTS, seed=0, warn=False)   # convergence is printed below
        t_fast, f = median_time(lambda: fit(trials, arch=arch, **kw), reps, with_output=True)
        _, calls, row_evals = count_evaluations(trials, arch, **kw)
        # autograd backend: a short fit measured, the full fit extrapolated to the same number of calls
        t0 = time.perf_counter()
        _, ag_calls, _ = count_evaluations(trials, arch, backend="autograd", max_iter=2, **kw)
        t_ag_short = time.perf_counter() - t0
        t_ag_call = t_ag_short / ag_calls
        t_ag = t_ag_call * calls
        # naive: one restart, naive_iter L-BFGS iterations measured, extrapolated per evaluation
        t_nv_short, nv_evals, nv_iter = naive_fit(trials, arch, restarts=1, max_iter=naive_iter)
        t_nv_eval = t_nv_short / nv_evals
        t_nv = t_nv_eval * row_evals
        it = f.restarts["iterations"].to_numpy()
        rows.append(dict(arch=arch, fast=t_fast, calls=calls, row_evals=row_evals, it_med=float(np.median(it)),
                         it_max=int(it.max()), converged=int(f.restarts["converged"].sum()), loglik=f.loglik,
                         ag_short=t_ag_short, ag_calls=ag_calls, ag_call=t_ag_call, ag=t_ag,
                         nv_short=t_nv_short, nv_evals=nv_evals, nv_iter=nv_iter, nv_eval=t_nv_eval, nv=t_nv))
        print(f"  {arch}: learncore {t_fast:.2f} s, {calls} batched calls / {row_evals} restart evaluations; "
              f"autograd {ag_calls} calls in {t_ag_short:.1f} s; naive {nv_evals} evaluations in {t_nv_short:.1f} s",
              flush=True)
    return rows


def print_one_animal(rows, reps):
    print()
    print(f"One synthetic animal (2NL learner), {T} trials, rule rpe, hidden {HIDDEN}, {RESTARTS} restarts; "
          f"learncore = median of {reps} runs")
    print(f"{'architecture':<14}{'learncore':>11}{'autograd*':>12}{'naive*':>12}{'autograd/lc':>13}{'naive/lc':>11}")
    for r in rows:
        print(f"{r['arch']:<14}{r['fast']:>10.2f}s{r['ag']:>11.0f}s{r['nv']:>11.0f}s"
              f"{r['ag'] / r['fast']:>13.0f}{r['nv'] / r['fast']:>11.0f}")
    print("* extrapolated, not run to the end:")
    for r in rows:
        print(f"  {r['arch']}: autograd measured {r['ag_calls']} batched calls (R = {RESTARTS}) in "
              f"{r['ag_short']:.1f} s = {r['ag_call']:.2f} s/call, x {r['calls']} calls of the learncore fit; "
              f"naive measured {r['nv_evals']} evaluations (R = 1, {r['nv_iter']} L-BFGS iteration(s)) in "
              f"{r['nv_short']:.1f} s = {r['nv_eval']:.2f} s/evaluation, x {r['row_evals']} restart evaluations")
    print("learncore fits: L-BFGS iterations per restart (median / max), restarts converged, log-likelihood")
    for r in rows:
        print(f"  {r['arch']}: {r['it_med']:.0f} / {r['it_max']}, {r['converged']} of {RESTARTS}, {r['loglik']:.2f}")
    slowest = max(r["fast"] for r in rows)
    print(f"target: one animal-architecture fit under 20 s -> slowest {slowest:.2f} s "
          f"({'met' if slowest < 20 else 'NOT met'})")


def bench_cohort(n_animals: int):
    counts = {"2NL": n_animals - 2 * (n_animals // 3), "2L": n_animals // 3, "1L": n_animals // 3}
    rng = np.random.default_rng(7)
    animals, truth = {}, {}
    for arch, n in counts.items():
        for i in range(n):
            key = f"{arch}_{i:02d}"
            animals[key] = synthetic_animal(arch, T, rng)
            truth[key] = arch
    t0 = time.perf_counter()
    cmp = fit_many(animals, restarts=RESTARTS, hidden=HIDDEN, seed=1, n_jobs=2)
    fits = cmp.fits
    wall = time.perf_counter() - t0
    table = pd.DataFrame(0, index=pd.Index(list(ARCHS), name="generating"),
                         columns=pd.Index(list(ARCHS), name="AIC-selected"))
    for key, fs in fits.items():
        table.loc[truth[key], min(fs, key=lambda a: fs[a].aic)] += 1
    per_fit = pd.DataFrame([(a, f.elapsed, f.converged) for fs in fits.values() for a, f in fs.items()],
                           columns=["arch", "s", "converged"])
    print()
    print(f"Cohort: {n_animals} synthetic animals ({', '.join(f'{n} {a}' for a, n in counts.items())}), "
          f"{T} trials each, x {len(ARCHS)} architectures, {RESTARTS} restarts, n_jobs=2 (measured once)")
    print(f"total wall time: {wall:.0f} s = {wall / 60:.1f} min (target: under 30 min -> "
          f"{'met' if wall < 1800 else 'NOT met'})")
    print("per-fit time (s) inside the workers: " + ", ".join(
        f"{a} median {g['s'].median():.2f} max {g['s'].max():.2f}" for a, g in per_fit.groupby("arch", sort=False)))
    print("best restart met the gradient tolerance: " + ", ".join(
        f"{a} {int(g['converged'].sum())} of {len(g)}" for a, g in per_fit.groupby("arch", sort=False)))
    print(f"statcore: {cmp.headline()}")
    print(table.to_string())
    print()
    print(cmp)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer runs; with --cohort, 12 animals")
    ap.add_argument("--cohort", action="store_true", help="also fit 88 animals x 3 architectures on 2 cores")
    args = ap.parse_args()
    reps = 2 if args.quick else 3
    naive_iter = 2 if args.quick else 3
    torch.set_num_threads(1)
    with threadpool_limits(1):
        rows = bench_one_animal(reps, naive_iter)
        print_one_animal(rows, reps)
        if args.cohort:
            bench_cohort(12 if args.quick else 88)


if __name__ == "__main__":
    main()
