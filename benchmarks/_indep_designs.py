"""The standard dependence designs of the independence-testing literature (Szekely, Rizzo & Bakirov
2007; Gretton et al. 2008; the simulation suite of Vogelstein et al. 2019, eLife 8:e41690), written
here from their descriptions, univariate, with a noise level chosen so that power at n = 100 is
informative (neither 0.05 nor 1 for every test).

Each design is ``f(n, rng) -> (x, y)`` with x, y of shape (n, 1). "clouds" is the null: four
independent clouds, x and y independent (bimodal marginals), so its "power" is the size.
"""
from __future__ import annotations

import numpy as np


def linear(n, rng, noise=2.0):
    x = rng.uniform(-1, 1, n)
    return x, x + noise * rng.normal(size=n)


def quadratic(n, rng, noise=0.7):
    x = rng.uniform(-1, 1, n)
    return x, x ** 2 + noise * rng.normal(size=n)


def circle(n, rng, noise=0.1):
    theta = rng.uniform(-np.pi, np.pi, n)
    return np.cos(theta) + noise * rng.normal(size=n), np.sin(theta) + noise * rng.normal(size=n)


def w_shape(n, rng, noise=0.6):
    x = rng.uniform(-1, 1, n)
    return x, 4 * ((x ** 2 - 0.5) ** 2 + rng.uniform(0, 1, n) / 500) + noise * rng.normal(size=n)


def sinusoid(n, rng, noise=0.5):
    x = rng.uniform(-1, 1, n)
    return x, np.sin(4 * np.pi * x) + noise * rng.normal(size=n)


def clouds(n, rng, spread=0.1):
    x = rng.choice([-1.0, 1.0], n) + spread * rng.normal(size=n)
    y = rng.choice([-1.0, 1.0], n) + spread * rng.normal(size=n)
    return x, y


DESIGNS = {"linear": linear, "quadratic": quadratic, "circle": circle, "W-shape": w_shape,
           "sinusoid": sinusoid, "4 clouds (null)": clouds}


def draw(name: str, n: int, rng) -> tuple[np.ndarray, np.ndarray]:
    x, y = DESIGNS[name](n, rng)
    return np.asarray(x, float).reshape(n, 1), np.asarray(y, float).reshape(n, 1)
