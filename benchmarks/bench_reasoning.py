"""The reasoning-traces study of issue 35: RL (GRPO, REINFORCE) against rejection fine-tuning in a
rewrite grammar, the pretraining-corpus ablation, and Hint Tuning on top (harness:
``benchmarks/_reasoning_study.py``, which describes the design).

Run ``python benchmarks/bench_reasoning.py --quick`` (minutes on one thread; results in
``benchmarks/results/reasoning/quick/``) or ``--full`` (tens of minutes; ``.../full/``). Whether RL forms
contractions here is an outcome, reported in ``benchmarks/README.md``, not a promise.
"""
import argparse
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import torch  # noqa: E402

from _reasoning_study import CONFIGS, run_study  # noqa: E402

torch.set_num_threads(1)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    g = p.add_mutually_exclusive_group()
    g.add_argument("--quick", action="store_true", help="the quick configuration (default)")
    g.add_argument("--full", action="store_true", help="the full configuration")
    p.add_argument("--out", default=None, help="output directory (default benchmarks/results/reasoning/<config>)")
    p.add_argument("--seed", type=int, default=None)
    args = p.parse_args(argv)
    name = "full" if args.full else "quick"
    cfg = dict(CONFIGS[name])
    if args.seed is not None:
        cfg["seed"] = args.seed
    out = Path(args.out) if args.out else HERE / "results" / "reasoning" / name
    t = time.perf_counter()
    res = run_study(cfg, out, log=lambda s: print(s, flush=True))
    print(f"\n{name}: {time.perf_counter() - t:.0f} s in all; results in {os.path.relpath(out)}")
    print(res["hint"]["summary"])


if __name__ == "__main__":
    main()
