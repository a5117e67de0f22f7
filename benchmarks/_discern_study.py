"""The simulation harness of the information-discernment protocol (statcore.discernment), shared by
benchmarks/size_discern.py and vignettes/protocol_discern.py; on the public API only.

An agent sees, for each of ``n_questions`` questions, ``n_sources`` claims. The truth of a question is
theta ~ N(0, 1); the agent's prior mean is m = theta + s0 N(0, 1) (prior s.d. s0); a source's claim is
c = theta + s N(0, 1), its error s.d. s drawn uniformly on [0.5 s0, 3 s0] for each trial, its popularity
uniform on [0, 1], independent of s. The Bayesian agent's posterior is m + w (c - m), w = s0^2 / (s0^2 +
s^2) exactly; the popularity-biased agent's weight is w + gamma * popularity, plus response noise
noise * (u_question + e_trial) (u, e standard normal) when ``noise > 0``. With ``pop_corr`` = c > 0
popularity is (1 - c) U + c (3 - s / s0) / 2.5: tied to reliability (the caveat of the popularity test). Reliability is 1 / s,
improvement |m - theta| - |c - theta| (how much closer to the truth the claim is than the prior).
"""
from __future__ import annotations

import numpy as np
import statcore as sc


def simulate(rng: np.random.Generator, n_questions: int, *, n_sources: int = 4, gamma: float = 0.0,
             noise: float = 0.0, s0: float = 1.0, pop_corr: float = 0.0) -> dict:
    """One data set of the design above: woa, reliability, improvement, popularity, cluster and the
    Bayesian weight (the truth of the source-discernment check)."""
    n = n_questions * n_sources
    q = np.repeat(np.arange(n_questions), n_sources)
    theta = rng.normal(size=n_questions)[q]
    prior = theta + s0 * rng.normal(size=n_questions)[q]
    s = s0 * rng.uniform(0.5, 3.0, n)
    claim = theta + s * rng.normal(size=n)
    pop = rng.uniform(size=n)
    if pop_corr:   # popularity tied to reliability: a mix of the source's reliability rank and noise
        pop = (1 - pop_corr) * pop + pop_corr * (3.0 - s / s0) / 2.5
    w_bayes = s0 ** 2 / (s0 ** 2 + s ** 2)
    w = w_bayes + gamma * pop
    if noise > 0:
        w = w + noise * (rng.normal(size=n_questions)[q] + rng.normal(size=n))
    post = prior + w * (claim - prior)
    woa = sc.weight_of_advice(prior, post, claim)
    gain = np.abs(prior - theta) - np.abs(claim - theta)
    return dict(woa=woa, reliability=1.0 / s, improvement=gain, popularity=pop, cluster=q, w_bayes=w_bayes)


def analyse(data: dict, *, B: int = 19, seed=0, alpha: float = 0.05, reliability_df: int = 1) -> sc.Discernment:
    """statcore.discernment on one simulated data set."""
    return sc.discernment(data["woa"], data["reliability"], data["improvement"], data["popularity"],
                          cluster=data["cluster"], B=B, seed=seed, alpha=alpha, reliability_df=reliability_df)
