"""C2G's nonparametric model against the authors' code (issue 23, section 1), on the paper's
confounded non-additive design (P = 10, n = 1000, tau = 3; ``nonadditive_setting(1000, 3, seed)``,
data sets 1-12).

The reference is tests/golden/c2g/authors_nonparametric_tau3.npz: the per-unit null posterior
(``lfdr``) and pi* (``pistar``) of the authors' KernelNonadditiveCausal2G
(tansey-lab/causal2groups) on the same data sets, run outside the repository (2-18 minutes per
data set; benchmarks/sim_c2g_nonparametric.py --reference reads the same arrays as .npz per seed).
Both sides select by the same rule, ``bfdr_select`` on the treated units' null posteriors.

Targets of the issue: mean power at least 0.9x the authors' at alpha = 0.05, 0.1 and 0.2, the
realised FDR at most alpha + 3 Monte Carlo s.e., and pi* not above the truth (the mean of pi* over
the treated, the ERPF bound, at most the true ERPF, in every data set). Measured when written:
power 0.612 / 0.657 / 0.711 against 0.632 / 0.689 / 0.751 (0.97x / 0.95x / 0.95x), FDR 0.033 /
0.061 / 0.106 (authors' 0.042 / 0.082 / 0.170); ERPF bound 0.277 against the true 0.502, above it
in 0 of 12 data sets (the authors' pi* was above it in 5).
"""
import functools
from pathlib import Path
import warnings

import numpy as np
import pytest

from statcore.ebayes import c2g
from statcore.ebayes._c2g_designs import nonadditive_setting
from statcore.multitest import bfdr_select
from statcore.testing import assert_error_rate

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "c2g" / "authors_nonparametric_tau3.npz"
LEVELS = (0.05, 0.1, 0.2)
# The guard runs data sets 1-6 of the 12 (benchmarks/README.md has the table of all 12). What it must
# catch: the shared y-bandwidth's loss of power (0.64x the authors' at alpha = 0.1 on these 6; every
# one of the 6 below 0.9x) and a pi* above the true ERPF as often as the authors' (5 of 12 data sets:
# none of 6 with probability 0.6^6 = 0.05). The default measured 0.96x / 0.95x / 0.95x on these 6.
N_SETS = 6


def _power_fdp(sel, h):
    return h[sel].sum() / max(h.sum(), 1), (np.mean(~h[sel]) if sel.any() else 0.0)


@pytest.mark.slow
def test_nonparametric_power_against_the_authors_code():
    ref = np.load(GOLDEN)
    seeds = [int(seed) for seed in ref["seeds"][:N_SETS]]

    @functools.cache
    def ours_and_theirs(seed):
        """Data set ``seed``: (power, FDP) of ours and of the authors' lfdr at each level."""
        k = seeds.index(seed)
        X, y, t, h, _, pi = nonadditive_setting(1000, 3, seed, return_pi=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = c2g(y, t, X, model="nonparametric", alpha=0.1, seed=seed)
        q = np.asarray(res.q_values)
        tidx = np.flatnonzero(t)
        ours, theirs = {}, {}
        for a in LEVELS:
            ours[a] = _power_fdp(q <= a, h)
            sel = np.zeros(len(y), bool)
            sel[tidx[np.asarray(bfdr_select(ref["lfdr"][k][t], alpha=a).selected)]] = True
            theirs[a] = _power_fdp(sel, h)
        # pi* is a lower bound: its mean over the treated never exceeds the true ERPF
        assert np.mean(np.asarray(res.pi)[t]) <= np.mean(pi[t]), seed
        return ours, theirs

    for a in LEVELS:
        # the realised FDR at most alpha + 3 observed Monte Carlo s.e. over the data sets
        fdr = assert_error_rate(lambda fits, seed: fits[0][a][1], ours_and_theirs, alpha=a, seeds=seeds)
        pw = np.mean([ours_and_theirs(seed)[0][a][0] for seed in seeds])
        pw_ref = np.mean([ours_and_theirs(seed)[1][a][0] for seed in seeds])
        print(f"alpha {a}: power {pw:.3f} vs the authors' {pw_ref:.3f} ({pw / pw_ref:.2f}x), "
              f"FDR {fdr.rates['value']:.3f}")
        assert pw >= 0.9 * pw_ref, (a, pw, pw_ref)
