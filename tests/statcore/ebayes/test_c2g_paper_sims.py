"""The paper's simulations (Tosh, Zhang & Tansey 2025, Section 5), CI-sized: FDR and power of C2G
against Benjamini-Hochberg on oracle conditional-null p-values.

The designs live in statcore/ebayes/_c2g_designs.py (shared with benchmarks/sim_c2g.py, whose
bigger run, 20 replicates per cell, is recorded in benchmarks/README.md). Here
10 replicates per cell of 1000 units; the table is printed (``pytest -s``) and FDR control asserted
at alpha + 3 Monte Carlo standard errors.

Two settings, P = 10 covariates X ~ N(0, I / P), unit-variance Gaussian noise:

* additive: randomised treatment T ~ Bernoulli(1/2), mu0(x) = x beta,
  mu1(x) = mu0(x) + tau |x| . |gamma| (absolute values taken elementwise, as the authors'
  simulator, causal2groups/simulated_data.py), responders h = T * Bernoulli(logistic(x theta));
* non-additive, confounded: T ~ Bernoulli(logistic(x gamma)), responders as above,
  y = (c logistic(x gamma) + tau' h (1 + |x' B x|) U)^2 + N(0, 1) with U ~ U(0, 2),
  tau' = sqrt(1 + tau) / 2, c = |N(0, 4)|, B a sparse matrix of t_3 entries (10% non-zero).
"""
import numpy as np
import pandas as pd
import pytest

from statcore.ebayes._c2g_designs import LEVELS, one_replicate, table

N_REP = 10


def _run(setting, methods):
    rows = []
    for tau in (1, 3, 5):
        for rep in range(N_REP):
            rows += one_replicate(setting, 1000, tau, 20_000 * tau + rep, methods)
    return pd.DataFrame(rows)


def _check(df, method):
    sub = df[df.method == method]
    for (tau, alpha), g in sub.groupby(["tau", "alpha"]):
        se = g.fdp.std(ddof=1) / np.sqrt(len(g))
        assert g.fdp.mean() <= alpha + 3 * se, (method, tau, alpha, g.fdp.mean(), se)


@pytest.mark.slow
def test_additive_setting_fdr_table():
    df = _run("additive", ("additive",))
    print("\n" + table(df).to_string())
    _check(df, "BH (oracle null)")
    _check(df, "C2G additive")
    _check(df, "C2G additive-EC")


@pytest.mark.slow
def test_nonadditive_confounded_setting_fdr_table():
    df = _run("nonadditive", ("nonparametric",))
    print("\n" + table(df).to_string())
    _check(df, "BH (oracle null)")
    _check(df, "C2G nonparametric")
    _check(df, "C2G nonparametric-EC")
    # the nonparametric model finds responders although treatment is confounded
    power = df[(df.method == "C2G nonparametric") & (df.alpha == LEVELS[-1])].power.mean()
    assert power > 0.2
