"""RP-CIT and GCM against the peers, timed in one run; size and power tables.

    python benchmarks/bench_cit.py                  # timings (issue 4, section 5), 3 runs each
    python benchmarks/bench_cit.py --quick          # 1 run each, naive route on 5 projections
    python benchmarks/bench_cit.py --size           # type I error (OLS, RF, KRR) and power tables
    python benchmarks/bench_cit.py --size --nonlinear-only --n-nonlinear 2000 --reps-rf 100
    python benchmarks/bench_cit.py --size --nonlinear-only --n-nonlinear 2000 --regressions rf,rf_oob
    python benchmarks/bench_cit.py --design-size --start 1 --reps-rf 200 --regressions rf
        # size on the issue's design, one stream of data sets per --start (1 to 5: the 1000 quoted in
        # statcore.cit._regress; kernel ridge: --start 0 --regressions krr), k = 100

Setting (issue 4): n = 2000, dim X = dim Y = 20, dim Z = 5, k = 100, random-forest regression
(100 trees, leaves of at least 5; statcore: one multi-output forest per variable; "rf" grows it on
the residuals of a kernel ridge regression and applies its honest weights twice (partition from each
tree's bootstrap rows, leaf means from its out-of-bag rows), and the GCM
variance is corrected for the smoother (variance="auto"); "rf_oob" is the plain out-of-bag forest,
see statcore.cit._regress). X and Y depend on Z nonlinearly and are conditionally independent.

Timed (medians over runs; BLAS limited to one thread for every contender, as the machine is shared):

- statcore ``rpcit(k=100, regression="rf")``: X and Y regressed on Z once (multi-output), the 100
  projections are two matrix products; with Bonferroni and with the max multiplier bootstrap;
- statcore ``gcm_test`` on a single projected pair with the same regressor (the issue's yardstick:
  rpcit(k = 100) should take at most 3 times as long);
- the naive route, one GCM with freshly fitted forests per projection (statcore's callable base,
  what a peer's univariate test would do); timed on ``--naive`` projections and scaled to k;
- pgmpy's ``GCM`` with a random forest on one projected pair (scaled to k for its naive route);
- causal-learn's ``fisherz`` (one projected pair; k pairs) against statcore's ``base="parcor"``;
- causal-learn's ``KCI`` on the full (X, Y, Z), on the first 500 rows only (at n = 2000 it asks for
  a 28.6 GiB array), next to rpcit on the same 500 rows; hyppo's ``FCIT`` on the full (X, Y, Z)
  (hyppo's ``KCI`` has no conditioning argument, so it does not apply).
"""
from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from threadpoolctl import threadpool_limits

from statcore.cit import gcm_test, random_directions, rpcit
from statcore.multitest import combine_pvalues as _combine_pvalues


def combine_pvalues(p, method="bonferroni"):
    """RP-CIT's aggregate ``method`` of the projection p-values (as ``rpcit(aggregate=method)``)."""
    return _combine_pvalues(np.asarray(p), method=method).p_value

N, DX, DY, DZ, K = 2000, 20, 20, 5, 100
KCI_N = 500


def simulate(n=N, dx=DX, dy=DY, dz=DZ, seed=0, gamma=0.0):
    """Nonlinear, bounded conditional means (sin z, tanh(z1 z2)); gamma plants Y's dependence on X's noise.

    Bounded: trends that keep growing in the Gaussian tails (z^2, tanh z) leave a random forest's
    flat end leaves biased in the same places for X and Y, and the GCM then rejects (see the
    module's notes in statcore.cit._regress).
    """
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, dz))
    feats = np.column_stack([np.sin(z), np.tanh(z[:, :1] * z[:, 1:2])])
    ex = rng.normal(size=(n, dx))
    x = feats @ rng.normal(size=(feats.shape[1], dx)) / 2 + ex
    y = feats @ rng.normal(size=(feats.shape[1], dy)) / 2 + rng.normal(size=(n, dy))
    y[:, 0] += gamma * ex[:, 0]
    return x, y, z


def rf():
    from sklearn.ensemble import RandomForestRegressor

    return RandomForestRegressor(n_estimators=100, min_samples_leaf=5, max_features=1.0, random_state=0)


def timings(reps: int, naive_k: int) -> None:
    """Round-robin: each repetition runs every contender once, so load drifts hit all alike."""
    x, y, z = simulate()
    rng = np.random.default_rng(1)
    wx1, wy1 = random_directions(DX, 1, seed=rng)[:, 0], random_directions(DY, 1, seed=rng)[:, 0]
    xp, yp = x @ wx1, y @ wy1
    zcols = [f"z{i}" for i in range(DZ)]
    cases: dict[str, tuple] = {}  # name -> (function, runs, scale)

    cases["statcore gcm_test, one projection, rf"] = (
        lambda: gcm_test(xp, yp, z, regression="rf", seed=0).p_value, reps, 1)
    cases[f"statcore rpcit k={K} rf bonferroni (shared fits)"] = (
        lambda: rpcit(x, y, z, k=K, regression="rf", seed=0).p_value, reps, 1)
    cases[f"statcore rpcit k={K} rf maxboot (shared fits)"] = (
        lambda: rpcit(x, y, z, k=K, regression="rf", aggregate="maxboot", seed=0).p_value, reps, 1)
    cases[f"statcore rpcit k={K} rf bonferroni, variance='standard'"] = (
        lambda: rpcit(x, y, z, k=K, regression="rf", seed=0, variance="standard").p_value, reps, 1)
    cases["statcore gcm_test max, 20 x 20, rf"] = (
        lambda: gcm_test(x, y, z, regression="rf", seed=0).p_value, reps, 1)
    # naive: fresh forests for every projection, through the callable base
    cases[f"naive rpcit (refit per projection), {naive_k} projections scaled to k={K}"] = (
        lambda: rpcit(x, y, z, k=naive_k, seed=0,
                      base=lambda a, b, c: gcm_test(a, b, c, regression="rf", seed=0).p_value).p_value,
        1, K / naive_k)
    try:
        import pandas as pd

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from pgmpy.ci_tests import GCM
        frame = pd.DataFrame(np.column_stack([xp, yp, z]), columns=["x", "y"] + zcols)

        def pgmpy_one():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                test = GCM(frame, estimator=rf(), use_cache=False)
                test("x", "y", zcols)
            return test.p_value_
        cases["pgmpy GCM, one projection, rf (in-sample)"] = (pgmpy_one, reps, 1)
    except ImportError:
        pass
    parcor = rpcit(x, y, z, k=K, base="parcor", parcor="fisher", seed=0)
    cases[f"statcore rpcit k={K} parcor (fisher z)"] = (
        lambda: rpcit(x, y, z, k=K, base="parcor", parcor="fisher", seed=0).p_value, reps, 1)
    try:
        from causallearn.utils.cit import CIT

        wx, wy = parcor.extras["directions_x"], parcor.extras["directions_y"]

        def cl_fisherz(ret_all=False):
            ps = np.array([CIT(np.column_stack([x @ wx[:, j], y @ wy[:, j], z]), "fisherz")(0, 1, list(range(2, 2 + DZ)))
                           for j in range(K)])
            return ps if ret_all else combine_pvalues(ps)
        agree = float(np.max(np.abs(cl_fisherz(True) - parcor.extras["p_values"])))
        print(f"max |statcore parcor(fisher) - causal-learn fisherz| over the {K} projections: {agree:.2e}")
        cases[f"causal-learn fisherz, k={K} projected pairs"] = (cl_fisherz, reps, 1)
        # KCI at n = 2000 allocates a (2000, 1918225) array (28.6 GiB): run it on the first 500 rows
        sub = np.column_stack([x, y, z])[:KCI_N]
        cases[f"causal-learn KCI, full X, Y, Z, n={KCI_N} only"] = (
            lambda: CIT(sub, "kci")(list(range(DX)), list(range(DX, DX + DY)), list(range(DX + DY, DX + DY + DZ))),
            1, 1)
        cases[f"statcore rpcit k={K} rf, n={KCI_N} (beside KCI)"] = (
            lambda: rpcit(x[:KCI_N], y[:KCI_N], z[:KCI_N], k=K, regression="rf", seed=0).p_value, reps, 1)
    except ImportError:
        pass
    try:
        from hyppo.conditional import FCIT

        cases["hyppo FCIT, full X, Y, Z"] = (lambda: FCIT().test(x, y, z)[1], 1, 1)
    except ImportError:
        pass

    times = {name: [] for name in cases}
    pvals = {}
    for rep in range(reps):
        for name, (fn, runs, scale) in cases.items():
            if rep < runs:
                t0 = time.perf_counter()
                pvals[name] = fn()
                times[name].append((time.perf_counter() - t0) * scale)
    med = {name: float(np.median(ts)) for name, ts in times.items()}

    width = max(map(len, cases))
    print(f"\nn = {N}, dim X = {DX}, dim Y = {DY}, dim Z = {DZ}, k = {K}; median of {reps} round-robin "
          f"run(s) (single runs marked *), BLAS on 1 thread")
    print(f"{'method':<{width}}  {'seconds':>9}  {'p-value':>9}")
    for name in cases:
        star = "*" if len(times[name]) == 1 and reps > 1 else " "
        print(f"{name:<{width}} {star}{med[name]:9.3f}  {pvals[name]:9.4f}")
    single = med["statcore gcm_test, one projection, rf"]
    rp = med[f"statcore rpcit k={K} rf bonferroni (shared fits)"]
    print("\nratios")
    print(f"rpcit(k={K}, bonferroni) / single-projection GCM: {rp / single:6.2f}   (target <= 3)")
    print(f"rpcit(k={K}, maxboot)    / single-projection GCM: "
          f"{med[f'statcore rpcit k={K} rf maxboot (shared fits)'] / single:6.2f}")
    std = med[f"statcore rpcit k={K} rf bonferroni, variance='standard'"]
    print(f"rpcit(k={K}) smoother-corrected / standard variance:  {rp / std:6.2f}")
    naive = [n for n in cases if n.startswith("naive")][0]
    print(f"naive route (refit per projection) / rpcit(k={K}):  {med[naive] / rp:6.1f}x")
    pg = "pgmpy GCM, one projection, rf (in-sample)"
    if pg in med:
        print(f"pgmpy GCM one projection / statcore one projection: {med[pg] / single:6.2f}")
        print(f"pgmpy naive route (k={K} x one projection) / rpcit(k={K}): {K * med[pg] / rp:6.1f}x")
    fz = f"causal-learn fisherz, k={K} projected pairs"
    if fz in med:
        print(f"causal-learn fisherz (k={K}) / statcore parcor rpcit: "
              f"{med[fz] / med[f'statcore rpcit k={K} parcor (fisher z)']:6.1f}x")


def size_power(reps_ols: int, reps_rf: int, n_nonlinear: int = 500, nonlinear_only: bool = False,
               regressions: tuple[str, ...] = ("rf", "krr")) -> None:
    alpha = 0.05
    rules = ["bonferroni", "cauchy", "maxboot", "topr", "hommel_global"]

    def table(title, draw, reps, k, regression, scalar=True):
        rej = dict.fromkeys(rules, 0)
        rej["gcm scalar"] = 0
        rng = np.random.default_rng(2024)
        t0 = time.perf_counter()
        for _ in range(reps):
            x, y, z = draw(rng)
            res = rpcit(x, y, z, k=k, aggregate="maxboot", regression=regression, seed=rng)
            rej["maxboot"] += res.p_value <= alpha
            for m in ["bonferroni", "cauchy", "topr", "hommel_global"]:
                rej[m] += combine_pvalues(res.extras["p_values"], m) <= alpha
            if scalar:
                rej["gcm scalar"] += gcm_test(x[:, 0], y[:, 0], z, regression=regression, seed=rng).p_value <= alpha
        se = np.sqrt(alpha * (1 - alpha) / reps)
        print(f"\n{title}: {reps} replicates, k = {k}, alpha = {alpha} (MC SE {se:.4f}), "
              f"{time.perf_counter() - t0:.0f} s")
        for m, v in rej.items():
            if m == "gcm scalar" and not scalar:
                continue
            print(f"  {m:<12} {v / reps:.4f}")

    def null_ols(rng):
        n, dz = 200, 3
        z = rng.normal(size=(n, dz))
        x = z @ rng.normal(size=(dz, 10)) + (1 + 0.5 * np.abs(z[:, :1])) * rng.standard_t(5, size=(n, 10))
        y = z @ rng.normal(size=(dz, 10)) + rng.normal(size=(n, 10))
        return x, y, z

    if not nonlinear_only:
        table("Size, linear null, ols, n = 200, dims 10/10/3", null_ols, reps_ols, 50, "ols")
    nn = n_nonlinear
    for reg in regressions:
        table(f"Size, nonlinear null (bounded effects), {reg}, n = {nn}, dims 20/20/5",
              lambda rng: simulate(nn, seed=int(rng.integers(2**31))), reps_rf, K, reg)
    if nonlinear_only:
        return
    print(f"\nPower on a planted rank-one alternative (ols, n = 200, dims 20/20/3, gamma = 1), "
          f"{reps_ols // 4} replicates")
    print(f"  {'k':>4} {'bonferroni':>11} {'maxboot':>8} {'cauchy':>7} {'topr':>7}")
    for k in [1, 5, 10, 20, 50, 100]:
        rng = np.random.default_rng(7)
        rej = np.zeros(4)
        for _ in range(reps_ols // 4):
            z = rng.normal(size=(200, 3))
            ex = rng.normal(size=(200, 20))
            x = z @ rng.normal(size=(3, 20)) + ex
            y = z @ rng.normal(size=(3, 20)) + rng.normal(size=(200, 20))
            y[:, 0] += ex[:, 0]
            res = rpcit(x, y, z, k=k, aggregate="maxboot", B=199, seed=rng)
            pv = res.extras["p_values"]
            rej += [combine_pvalues(pv) <= alpha, res.p_value <= alpha, combine_pvalues(pv, "cauchy") <= alpha,
                    combine_pvalues(pv, "topr") <= alpha]
        r = rej / (reps_ols // 4)
        print(f"  {k:>4} {r[0]:>11.3f} {r[1]:>8.3f} {r[2]:>7.3f} {r[3]:>7.3f}")


def design_size(reps: int, start: int, regression: str = "rf") -> None:
    """Size of rpcit on the issue's design itself (n = 2000, dims 20/20/5, k = 100), one stream.

    Data sets from ``default_rng(2024 + start)``, directions and bootstrap from ``rep + 10**6 * start``;
    the running rejection rates of Bonferroni, Cauchy, the max bootstrap and the first projection's
    GCM alone, every 25 replicates. Different starts give independent streams: run them side by side.
    """
    master = np.random.default_rng(2024 + start)
    rej = np.zeros(4)
    t0 = time.perf_counter()
    for rep in range(reps):
        x, y, z = simulate(seed=int(master.integers(2 ** 31)))
        res = rpcit(x, y, z, k=K, aggregate="maxboot", regression=regression, seed=rep + 10 ** 6 * start)
        pv = res.extras["p_values"]
        rej += [combine_pvalues(pv, "bonferroni") <= 0.05, combine_pvalues(pv, "cauchy") <= 0.05,
                res.p_value <= 0.05, pv[0] <= 0.05]
        if (rep + 1) % 25 == 0 or rep + 1 == reps:
            print(f"{regression} start {start}: {rep + 1} data sets, {time.perf_counter() - t0:.0f} s; rejection "
                  f"rates bonferroni {rej[0] / (rep + 1):.3f}, cauchy {rej[1] / (rep + 1):.3f}, "
                  f"maxboot {rej[2] / (rep + 1):.3f}, first projection {rej[3] / (rep + 1):.3f}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--naive", type=int, default=10, help="projections timed on the naive route")
    ap.add_argument("--size", action="store_true", help="size and power tables instead of timings")
    ap.add_argument("--reps-ols", type=int, default=4000)
    ap.add_argument("--reps-rf", type=int, default=200, help="replicates of the nonlinear (rf, krr) size tables")
    ap.add_argument("--n-nonlinear", type=int, default=500, help="n of the nonlinear size tables")
    ap.add_argument("--nonlinear-only", action="store_true", help="only the nonlinear size tables")
    ap.add_argument("--design-size", action="store_true", help="size on the issue's design (n = 2000)")
    ap.add_argument("--start", type=int, default=1, help="stream of data sets for --design-size")
    ap.add_argument("--regressions", default="rf,krr",
                    help="comma-separated regressions of the nonlinear size tables (e.g. rf,rf_oob,krr)")
    a = ap.parse_args()
    with threadpool_limits(1):
        if a.design_size:
            for reg in a.regressions.split(","):
                design_size(a.reps_rf, a.start, reg)
        elif a.size:
            size_power(a.reps_ols if not a.quick else 400, a.reps_rf if not a.quick else 20, a.n_nonlinear,
                       a.nonlinear_only, tuple(a.regressions.split(",")))
        else:
            timings(1 if a.quick else a.reps, 5 if a.quick else a.naive)


if __name__ == "__main__":
    main()
