"""The p-values of the permutation tests before and after the one tie rule of the resampling engine
(statcore._resampling.TIE_RTOL = 1e-9 relative), for the same seeds.

Run once per checkout and compare: ``python benchmarks/tie_rule_change.py ROOT OUT.json`` imports
statcore from ROOT; ``python benchmarks/tie_rule_change.py --compare OLD.json NEW.json`` prints, per
test and data kind, how many p-values changed and by how much (in units of 1 / (B + 1)).
"""
import json
import sys


def run(root, out):
    sys.path.insert(0, root)
    import numpy as np

    import statcore as sc

    assert sc.__file__.startswith(root), sc.__file__
    res = {}
    B = 199
    for kind in ("continuous", "ties"):
        for s in range(20):
            rng = np.random.default_rng(1000 + s)
            if kind == "continuous":
                x, y, z = rng.normal(size=(3, 40))
                y = y + 0.3 * x
            else:
                x, y, z = rng.integers(0, 3, size=(3, 40)).astype(float)
            calls = {
                "dcor_test": lambda: sc.dcor_test(x, y, B=B, seed=s),
                "dcov_test": lambda: sc.dcov_test(x, y, B=B, seed=s),
                "pdcor_test": lambda: sc.pdcor_test(x, y, z, B=B, seed=s),
                "hsic_test": lambda: sc.hsic_test(x, y, method="permutation", B=B, seed=s),
                "mmd_test": lambda: sc.mmd_test(x[:, None], y[:, None] + (0.0 if kind == "ties" else 0.3), B=B,
                                                seed=s),
                "energy_test": lambda: sc.energy_test(x[:, None], y[:, None], B=B, seed=s),
                "gcm_test(max)": lambda: sc.gcm_test(np.c_[x, y], np.c_[y, z], z + x, B=B, seed=s),
            }
            for name, call in calls.items():
                res.setdefault(name, {}).setdefault(kind, []).append(float(call().p_value))
    with open(out, "w") as fh:
        json.dump(res, fh)


def compare(old_path, new_path, B=199):
    old, new = json.load(open(old_path)), json.load(open(new_path))
    print(f"{'test':15s} {'data':11s} changed  max |delta p| (x 1/(B+1), B = {B})")
    for name in old:
        for kind in old[name]:
            a, b = old[name][kind], new[name][kind]
            d = [abs(u - v) for u, v in zip(a, b)]
            changed = sum(x > 0 for x in d)
            print(f"{name:15s} {kind:11s} {changed:2d}/{len(d)}    {max(d) * (B + 1):.1f}")


if __name__ == "__main__":
    if sys.argv[1] == "--compare":
        compare(sys.argv[2], sys.argv[3])
    else:
        run(sys.argv[1], sys.argv[2])
