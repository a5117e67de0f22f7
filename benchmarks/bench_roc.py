"""Timings of statcore.roc against R pROC and scikit-learn, in one run on the same data: medians of
several runs, ratios printed (a ratio > 1: statcore is faster).

1. The AUC with its DeLong interval at n = 10^6 (30% cases, binormal scores without ties):
   ``auc_ci(roc(y, x))`` against pROC's ``ci.auc(roc(y, x), method = "delong")`` (R timed inside R
   with system.time, data read from a binary file outside the timing) and scikit-learn's
   ``roc_auc_score(y, x)`` (the AUC alone: it has no interval). The answers are compared too.
2. The paired DeLong test at n = 10^6: ``roc_test(roc1, roc2)`` on two built curves (target: under a
   second) against pROC's ``roc.test(roc1, roc2)``; and the whole pipeline (two curves and the test).

Elapsed (wall) times are the headline; CPU times (user + system) are printed beside them, since
the machine may be shared.

    python benchmarks/bench_roc.py [--runs 5] [--n 1000000]
"""
import argparse
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def timed(fn, runs):
    """Median wall and CPU seconds of ``runs`` calls (after one untimed warm-up), and the last output."""
    out = fn()
    wall, cpu = [], []
    for _ in range(runs):
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return float(np.median(wall)), float(np.median(cpu)), out


def r_timings(y, x1, x2, runs):
    """pROC's timings (median elapsed and CPU of each step) and values."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "data.bin"
        np.concatenate([y, x1, x2]).astype("<f8").tofile(path)
        n = y.size
        script = textwrap.dedent(f"""
            suppressPackageStartupMessages(library(pROC))
            v <- readBin("{path}", "double", n = {3 * n}, size = 8, endian = "little")
            y <- v[1:{n}]; x1 <- v[{n} + 1:{n}]; x2 <- v[{2 * n} + 1:{n}]
            tm <- function(f) {{ f(); st <- sapply(1:{runs}, function(i) {{ s <- system.time(f());
                c(s[["elapsed"]], s[["user.self"]] + s[["sys.self"]]) }}); apply(st, 1, median) }}
            a <- tm(function() ci.auc(roc(y, x1, quiet = TRUE, direction = "<"), method = "delong"))
            r1 <- roc(y, x1, quiet = TRUE, direction = "<"); r2 <- roc(y, x2, quiet = TRUE, direction = "<")
            b <- tm(function() roc.test(r1, r2))
            c <- tm(function() roc.test(roc(y, x1, quiet = TRUE, direction = "<"),
                                        roc(y, x2, quiet = TRUE, direction = "<")))
            ci <- ci.auc(r1, method = "delong"); tt <- roc.test(r1, r2)
            cat("TIME", a, b, c, "\\n")
            cat("VALUE", sprintf("%.17g", c(as.numeric(ci), tt$statistic, tt$p.value)), "\\n")
        """)
        script_path = Path(tmp) / "bench.R"
        script_path.write_text(script)
        out = subprocess.run(["Rscript", "--vanilla", str(script_path)], capture_output=True, text=True,
                             timeout=7200)
    if out.returncode != 0:
        raise RuntimeError(out.stderr)
    line = {ln.split()[0]: [float(v) for v in ln.split()[1:]] for ln in out.stdout.splitlines() if ln.strip()}
    t = line["TIME"]
    return {"ci": t[0:2], "test": t[2:4], "pipeline": t[4:6]}, line["VALUE"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--n", type=int, default=10 ** 6)
    args = ap.parse_args()

    import statcore
    from sklearn.metrics import roc_auc_score

    n = args.n
    rng = np.random.default_rng(2026)
    y = (rng.random(n) < 0.3).astype(float)
    x1 = rng.normal(size=n) + 1.0 * y
    x2 = rng.normal(size=n) + 0.8 * y

    t_sc = timed(lambda: statcore.auc_ci(statcore.roc(y, x1, direction="<")), args.runs)
    t_sk = timed(lambda: roc_auc_score(y, x1), args.runs)
    r1, r2 = statcore.roc(y, x1, direction="<"), statcore.roc(y, x2, direction="<")
    t_test = timed(lambda: statcore.roc_test(r1, r2), args.runs)
    t_pipe = timed(lambda: statcore.roc_test(statcore.roc(y, x1, direction="<"),
                                             statcore.roc(y, x2, direction="<")), args.runs)
    r_t, r_v = r_timings(y, x1, x2, args.runs)

    ci = t_sc[2]
    test = t_test[2]
    print(f"n = {n}, {int(y.sum())} cases; medians of {args.runs} runs (wall s / CPU s)")
    print(f"values: statcore AUC {ci.estimate:.15f} CI ({ci.conf_int[0]:.15f}, {ci.conf_int[1]:.15f})")
    print(f"        pROC     AUC {r_v[1]:.15f} CI ({r_v[0]:.15f}, {r_v[2]:.15f})")
    print(f"        sklearn  AUC {t_sk[2]:.15f}")
    print(f"        max |difference| statcore - pROC: "
          f"{max(abs(ci.estimate - r_v[1]), abs(ci.conf_int[0] - r_v[0]), abs(ci.conf_int[1] - r_v[2])):.2e}; "
          f"roc_test Z {test.statistic:.12f} vs {r_v[3]:.12f}, p {test.p_value:.6g} vs {r_v[4]:.6g}")
    rows = [("AUC + DeLong CI", t_sc, r_t["ci"], t_sk),
            ("paired roc_test (curves built)", t_test, r_t["test"], None),
            ("two curves + paired roc_test", t_pipe, r_t["pipeline"], None)]
    print(f"{'task':<32} {'statcore':>16} {'pROC':>16} {'ratio pROC':>11} {'sklearn AUC':>16} {'ratio skl':>10}")
    for name, ours, theirs, sk in rows:
        s = f"{name:<32} {ours[0]:>7.3f} / {ours[1]:>6.3f} {theirs[0]:>7.3f} / {theirs[1]:>6.3f} " \
            f"{theirs[0] / ours[0]:>10.1f}x"
        if sk is not None:
            s += f" {sk[0]:>7.3f} / {sk[1]:>6.3f} {sk[0] / ours[0]:>9.1f}x"
        print(s)
    print(f"(CPU ratios: AUC + CI {r_t['ci'][1] / t_sc[1]:.1f}x vs pROC, {t_sk[1] / t_sc[1]:.1f}x vs sklearn; "
          f"paired test {r_t['test'][1] / t_test[1]:.1f}x)")
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
