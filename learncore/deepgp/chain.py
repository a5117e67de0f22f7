"""The two-point process of a deep GP: the distance chain, its Lyapunov exponent at 0, the bandwidth
threshold r_c(d), and a scan that classifies (d, r) cells as degenerate or not.

For two inputs x, x' at distance D_l after l layers, the next layer's difference F(x) - F(x') has d
independent N(0, 2 sigma^2 (1 - exp(-D_l^2 / (2 r^2)))) coordinates, so

    D_{l+1}^2 = 2 sigma^2 (1 - exp(-D_l^2 / (2 r^2))) * chi^2_d,

a Markov chain with a fresh chi^2_d at every layer. Near 0, 1 - exp(-u) ~ u: D_{l+1}^2 ~ (sigma^2 / r^2)
chi^2_d D_l^2, so log D_l is a random walk with drift

    lambda(r, d) = E log(D_{l+1} / D_l) = (1/2) [log(2 sigma^2 / r^2) + psi(d / 2)]

(E log chi^2_d = psi(d/2) + log 2). Since 1 - exp(-u) <= u, the linear walk bounds log D_l from above
at every distance: lambda < 0 drives every pair of images together (the prior collapses onto constants),
lambda > 0 repels the chain from 0, which then has a stationary law on (0, inf). The threshold
lambda(r_c, d) = 0 is r_c(d) = sigma sqrt(2) exp(psi(d/2) / 2) = sigma sqrt(d) (1 + O(1/d)).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from statcore import Result

from ._checks import as_grid, check_bandwidth, check_choice, check_depth, check_dim, check_positive_int, \
    check_positive_real, check_probability, check_seed

__all__ = ["distance_chain", "lyapunov_exponent", "bandwidth_threshold", "threshold_scan", "DistanceChain",
           "LyapunovExponent", "BandwidthThreshold", "ThresholdScan"]

#: the log distance (relative to sigma) the Monte Carlo slopes start from: far inside the linear regime
_LOG_START_NEAR_ZERO = -1.0e4


def _exact_exponent(r: float, d: int, sigma: float) -> float:
    psi = float(torch.special.digamma(torch.tensor(d / 2.0, dtype=torch.float64)))
    return 0.5 * (math.log(2.0) + 2.0 * (math.log(sigma) - math.log(r)) + psi)  # logs first: r * r of 1e300 overflows


def _exact_threshold(d: int, sigma: float) -> float:
    psi = float(torch.special.digamma(torch.tensor(d / 2.0, dtype=torch.float64)))
    return sigma * math.sqrt(2.0) * math.exp(psi / 2.0)


def _log1mexp_of_log(logx: torch.Tensor) -> torch.Tensor:
    """log(1 - exp(-x)) from log x, accurate for every x > 0 (also where x underflows)."""
    x = torch.exp(logx)
    ratio = torch.where(x > 0, -torch.expm1(-x) / torch.where(x > 0, x, torch.ones_like(x)), torch.ones_like(x))
    # large x (exp(logx) = inf once logx > 709, e.g. r = 1e-300): log1p(-exp(-x)) directly, about -exp(-x)
    return torch.where(x > 40.0, torch.log1p(-torch.exp(-x)), logx + torch.log(ratio))


def _simulate(log_d0: np.ndarray, r: float, d: int, sigma: float, depth: int, rng: np.random.Generator) -> np.ndarray:
    """The exact chain in log space: log D_l for l = 0..depth (rows), one column per chain.
    chi^2_d draws come from the numpy Generator; the transition is computed in float64 torch."""
    n = log_d0.shape[0]
    out = torch.empty(depth + 1, n, dtype=torch.float64)
    u = torch.as_tensor(2.0 * log_d0, dtype=torch.float64)          # log D^2
    out[0] = u / 2
    log2s2, log2r2 = math.log(2.0) + 2.0 * math.log(sigma), math.log(2.0) + 2.0 * math.log(r)  # no overflow
    chi = torch.from_numpy(np.log(rng.chisquare(d, size=(depth, n))))
    for layer in range(depth):
        u = log2s2 + _log1mexp_of_log(u - log2r2) + chi[layer]
        out[layer + 1] = u / 2
    return out.numpy()


# ----------------------------------------------------------------------------------------------
# distance_chain
# ----------------------------------------------------------------------------------------------

@dataclass(frozen=True, repr=False)
class DistanceChain(Result):
    """Simulated paths of the two-point distance chain (see :func:`distance_chain`).

    Attributes
    ----------
    log_distance : ndarray (depth + 1, n_chains)
        log D_l, layer 0 (the inputs' distance ``start``) to ``depth``; exact in log space (no
        floor: distances far below float64's smallest number are represented).
    r, d, sigma, start, depth, n_chains : the chain's parameters.
    exponent : float
        The Lyapunov exponent lambda(r, d) at 0 (closed form), the drift of log D near 0.

    Examples
    --------
    >>> from learncore.deepgp import distance_chain
    >>> ch = distance_chain(0.5, 2, depth=4, n_chains=3, seed=0)
    >>> ch.log_distance.shape
    (5, 3)
    """

    log_distance: np.ndarray
    r: float
    d: int
    sigma: float
    start: float
    depth: int
    n_chains: int
    exponent: float

    @property
    def distances(self) -> np.ndarray:
        """D_l = exp(log D_l) (underflows to 0 below about 1e-308)."""
        return np.exp(self.log_distance)

    def _repr_parts(self):
        return [("r", self.r), ("d", self.d), ("depth", self.depth), ("n_chains", self.n_chains),
                ("exponent", self.exponent), ("median_log_distance", float(np.median(self.log_distance[-1])))]

    def summary(self) -> str:
        q = np.quantile(self.log_distance[-1], [0.1, 0.5, 0.9])
        return "\n".join([
            "", "\tTwo-point distance chain of a deep GP (RBF kernel)", "",
            f"D_(l+1)^2 = 2 sigma^2 (1 - exp(-D_l^2 / (2 r^2))) chi^2_{self.d}, r = {self.r:.4g}, sigma = {self.sigma:.4g}",
            f"{self.n_chains} chains from D_0 = {self.start:.4g}, {self.depth} layers",
            f"Lyapunov exponent at 0: {self.exponent:.4f} per layer "
            f"({'degenerate: distances -> 0' if self.exponent < 0 else 'repelled from 0: a stationary law'})",
            f"log D at layer {self.depth}: 10% {q[0]:.3f}, median {q[1]:.3f}, 90% {q[2]:.3f}", ""])

    def to_frame(self):
        """One row per layer: ``layer``, ``mean_log_distance``, ``median_log_distance``,
        ``q10_log_distance``, ``q90_log_distance``."""
        import pandas as pd

        q = np.quantile(self.log_distance, [0.1, 0.5, 0.9], axis=1)
        return pd.DataFrame({"layer": np.arange(self.depth + 1), "mean_log_distance": self.log_distance.mean(1),
                             "median_log_distance": q[1], "q10_log_distance": q[0], "q90_log_distance": q[2]})

    def _plot(self, ax=None):
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(5, 3.5))
        f = self.to_frame()
        ax.fill_between(f["layer"], f["q10_log_distance"], f["q90_log_distance"], alpha=0.3, label="10%-90%")
        ax.plot(f["layer"], f["median_log_distance"], label="median")
        ax.set_xlabel("layer")
        ax.set_ylabel("log distance")
        ax.set_title(f"distance chain: d = {self.d}, r = {self.r:.3g}")
        ax.legend()
        return ax


def distance_chain(r, d, *, depth, n_chains=1000, sigma=1.0, start=1.0, seed=None) -> DistanceChain:
    """Simulate the distance between two inputs' images through the layers of a deep GP, exactly.

    With D_l the distance between the images of two inputs after l layers (D_0 = ``start``), the
    next layer's difference F(x) - F(x') is N(0, 2 sigma^2 (1 - exp(-D_l^2 / (2 r^2))) I_d), so

        D_{l+1}^2 = 2 sigma^2 (1 - exp(-D_l^2 / (2 r^2))) chi^2_d

    with an independent chi^2_d at each layer: a Markov chain whose law is exactly that of the
    distance in the deep GP prior (:func:`sample_deep_gp` at two inputs). It is simulated in log
    space (log(1 - exp(-u)) evaluated stably), so it has no numerical floor.

    Parameters
    ----------
    r : float
        The kernel bandwidth r > 0.
    d : int
        The dimension of the layers (inputs and outputs in R^d).
    depth : int
        Layers to simulate.
    n_chains : int
        Independent chains (pairs of images under independent draws of the prior).
    sigma : float
        The kernel's output scale.
    start : float
        The distance D_0 > 0 between the two inputs.
    seed : None, int or numpy.random.Generator
        Randomness.

    Returns
    -------
    DistanceChain
        ``log_distance`` (depth + 1, n_chains), the closed-form ``exponent``; ``to_frame()`` gives
        per-layer quantiles and ``plot()`` draws them.

    References
    ----------
    Kozdoba, M. & Mannor, S. (2026). How deep are deep GPs, really? A sharp threshold and a
    non-Gaussian limit for compositional GPs. arXiv:2606.08218 (the two-point process).
    Dunlop, M. M., Girolami, M. A., Stuart, A. M. & Teckentrup, A. L. (2018). How deep are deep
    Gaussian processes? JMLR 19(54).

    Examples
    --------
    >>> from learncore.deepgp import distance_chain
    >>> ch = distance_chain(2.0, 1, depth=200, n_chains=100, seed=0)   # r above r_c(1) = 0.53
    >>> bool((ch.log_distance[-1] < -50).all())                        # the images have merged
    True
    """
    r = check_bandwidth(r)
    d = check_dim(d)
    depth = check_depth(depth)
    n_chains = check_positive_int(n_chains, "n_chains")
    sigma = check_positive_real(sigma, "sigma")
    start = check_positive_real(start, "start")
    rng = check_seed(seed)
    log_d = _simulate(np.full(n_chains, math.log(start)), r, d, sigma, depth, rng)
    return DistanceChain(log_distance=log_d, r=r, d=d, sigma=sigma, start=start, depth=depth, n_chains=n_chains,
                         exponent=_exact_exponent(r, d, sigma))


# ----------------------------------------------------------------------------------------------
# lyapunov_exponent
# ----------------------------------------------------------------------------------------------

@dataclass(frozen=True, repr=False)
class LyapunovExponent(Result):
    """The growth rate at 0 of the log distance between two inputs' images (see :func:`lyapunov_exponent`).

    Attributes
    ----------
    estimate : float
        lambda(r, d), per layer, of log D (half the rate of log D^2).
    std_error, conf_low, conf_high : float or None
        The Monte Carlo standard error and interval (None for the closed form).
    r, d, sigma, method, n_chains, depth, conf_level : how it was computed.

    Examples
    --------
    >>> from learncore.deepgp import lyapunov_exponent
    >>> round(lyapunov_exponent(1.0, 2).estimate, 6)     # (log 2 - Euler's gamma) / 2
    0.057966
    """

    estimate: float
    r: float
    d: int
    sigma: float
    method: str
    std_error: float | None = None
    conf_low: float | None = None
    conf_high: float | None = None
    conf_level: float | None = None
    n_chains: int | None = None
    depth: int | None = None

    def summary(self) -> str:
        head = ["", "\tLyapunov exponent of the deep-GP distance chain at 0", "",
                f"r = {self.r:.4g}, d = {self.d}, sigma = {self.sigma:.4g}"]
        if self.method == "exact":
            head.append("closed form: (1/2) [log(2 sigma^2 / r^2) + digamma(d / 2)]")
            head.append(f"lambda = {self.estimate:.6g} per layer")
        else:
            head.append(f"Monte Carlo: mean slope of log D over {self.depth} layers of {self.n_chains} chains "
                        f"started at D_0 = sigma exp({_LOG_START_NEAR_ZERO:.0f})")
            head.append(f"lambda = {self.estimate:.6g} per layer (s.e. {self.std_error:.3g}); "
                        f"{100 * self.conf_level:g} percent interval [{self.conf_low:.5g}, {self.conf_high:.5g}]")
        head.append("degenerate (lambda < 0)" if self.estimate < 0 else "non-degenerate (lambda > 0)")
        return "\n".join(head) + "\n"

    def to_frame(self):
        """One row: ``r``, ``d``, ``estimate``, ``std_error``, ``conf_low``, ``conf_high``, ``method``."""
        import pandas as pd

        return pd.DataFrame([{"r": self.r, "d": self.d, "estimate": self.estimate, "std_error": self.std_error,
                              "conf_low": self.conf_low, "conf_high": self.conf_high, "method": self.method}])


def _mc_exponent(r: float, d: int, sigma: float, n_chains: int, depth: int, rng) -> tuple[float, float]:
    log0 = _LOG_START_NEAR_ZERO + math.log(sigma)
    path = _simulate(np.full(n_chains, log0), r, d, sigma, depth, rng)
    if path[-1].max() > log0 / 2:
        raise ValueError(f"depth: {depth} layers at r = {r:.4g} carried a chain out of the linear regime near 0; "
                         "use fewer layers")
    slopes = (path[-1] - path[0]) / depth
    return float(slopes.mean()), float(slopes.std(ddof=1) / math.sqrt(n_chains))


def lyapunov_exponent(r, d, *, sigma=1.0, method="exact", n_chains=2000, depth=50, conf_level=0.95,
                      seed=None) -> LyapunovExponent:
    """The growth rate at 0 of the distance between two inputs' images in a deep GP.

    Near 0 the distance chain (:func:`distance_chain`) is D_{l+1} ~ (sigma / r) chi_d D_l, so log D_l
    is a random walk whose drift, the Lyapunov exponent, is

        lambda(r, d) = E log(D_{l+1} / D_l) = (1/2) [log(2 sigma^2 / r^2) + psi(d / 2)]

    with psi the digamma function (E log chi^2_d = psi(d/2) + log 2). lambda < 0: the images of all
    inputs merge (the prior degenerates to constants); lambda > 0: they stay apart.

    Parameters
    ----------
    r : float
        The kernel bandwidth r > 0.
    d : int
        The dimension of the layers.
    sigma : float
        The kernel's output scale.
    method : {"exact", "monte_carlo"}
        "exact": the closed form above. "monte_carlo": the mean slope (log D_L - log D_0) / L of
        ``n_chains`` exact chains started at D_0 = sigma exp(-10^4) (deep inside the linear regime,
        which log-space simulation represents), with its standard error and a normal interval:
        the check of the closed form.
    n_chains, depth : int
        Chains and layers of the Monte Carlo estimate.
    conf_level : float
        Coverage of the Monte Carlo interval.
    seed : None, int or numpy.random.Generator
        Randomness of the Monte Carlo estimate.

    Returns
    -------
    LyapunovExponent
        ``estimate`` (per layer, of log D), and for Monte Carlo ``std_error``, ``conf_low``, ``conf_high``.

    References
    ----------
    Kozdoba, M. & Mannor, S. (2026). How deep are deep GPs, really? A sharp threshold and a
    non-Gaussian limit for compositional GPs. arXiv:2606.08218.

    Examples
    --------
    >>> from learncore.deepgp import lyapunov_exponent
    >>> ex = lyapunov_exponent(1.0, 2)
    >>> mc = lyapunov_exponent(1.0, 2, method="monte_carlo", seed=0)
    >>> bool(abs(mc.estimate - ex.estimate) < 3 * mc.std_error)
    True
    """
    r = check_bandwidth(r)
    d = check_dim(d)
    sigma = check_positive_real(sigma, "sigma")
    method = check_choice(method, "method", ("exact", "monte_carlo"))
    n_chains = check_positive_int(n_chains, "n_chains", minimum=2)
    depth = check_depth(depth)
    conf_level = check_probability(conf_level, "conf_level", open_right=True)
    rng = check_seed(seed)
    if method == "exact":
        return LyapunovExponent(estimate=_exact_exponent(r, d, sigma), r=r, d=d, sigma=sigma, method="exact")
    est, se = _mc_exponent(r, d, sigma, n_chains, depth, rng)
    z = _normal_quantile(0.5 + conf_level / 2)
    return LyapunovExponent(estimate=est, r=r, d=d, sigma=sigma, method="monte_carlo", std_error=se,
                            conf_low=est - z * se, conf_high=est + z * se, conf_level=conf_level, n_chains=n_chains,
                            depth=depth)


def _normal_quantile(p: float) -> float:
    return float(torch.special.ndtri(torch.tensor(p, dtype=torch.float64)))


# ----------------------------------------------------------------------------------------------
# bandwidth_threshold
# ----------------------------------------------------------------------------------------------

@dataclass(frozen=True, repr=False)
class BandwidthThreshold(Result):
    """The bandwidth r_c(d) where the Lyapunov exponent changes sign (see :func:`bandwidth_threshold`).

    Attributes
    ----------
    estimate : float
        r_c(d): degenerate prior for r > r_c, non-degenerate limit for r < r_c.
    d, sigma, method : the threshold's dimension, output scale and how it was found.
    ratio_sqrt_d : float
        r_c(d) / (sigma sqrt(d)), which tends to 1 as d grows.
    std_error, conf_low, conf_high, conf_level : the Monte Carlo interval (None for the closed form).
    n_chains, depth : the Monte Carlo sizes (None for the closed form).

    Examples
    --------
    >>> from learncore.deepgp import bandwidth_threshold
    >>> round(bandwidth_threshold(2).estimate, 6)        # sqrt(2) exp(-gamma / 2)
    1.059679
    """

    estimate: float
    d: int
    sigma: float
    method: str
    ratio_sqrt_d: float
    std_error: float | None = None
    conf_low: float | None = None
    conf_high: float | None = None
    conf_level: float | None = None
    n_chains: int | None = None
    depth: int | None = None

    def summary(self) -> str:
        lines = ["", "\tBandwidth threshold of a deep GP prior (RBF kernel)", "",
                 f"d = {self.d}, sigma = {self.sigma:.4g}"]
        if self.method == "exact":
            lines.append(f"r_c = sigma sqrt(2) exp(digamma(d / 2) / 2) = {self.estimate:.6g}")
        else:
            lines.append(f"r_c = {self.estimate:.6g} from {self.n_chains} chains of {self.depth} layers; "
                         f"{100 * self.conf_level:g} percent interval [{self.conf_low:.5g}, {self.conf_high:.5g}]")
        lines.append(f"r_c / (sigma sqrt(d)) = {self.ratio_sqrt_d:.4f}")
        lines.append("r > r_c: the prior collapses onto constants; r < r_c: a non-degenerate limit")
        return "\n".join(lines) + "\n"

    def to_frame(self):
        """One row: ``d``, ``estimate``, ``conf_low``, ``conf_high``, ``ratio_sqrt_d``, ``method``."""
        import pandas as pd

        return pd.DataFrame([{"d": self.d, "estimate": self.estimate, "std_error": self.std_error,
                              "conf_low": self.conf_low, "conf_high": self.conf_high,
                              "ratio_sqrt_d": self.ratio_sqrt_d, "method": self.method}])


def bandwidth_threshold(d, *, sigma=1.0, method="exact", n_chains=2000, depth=50, conf_level=0.95,
                        seed=None) -> BandwidthThreshold:
    """The critical bandwidth r_c(d) of a deep GP prior with the RBF kernel.

    r_c(d) solves lambda(r_c, d) = 0 for the Lyapunov exponent of the distance chain
    (:func:`lyapunov_exponent`):

        r_c(d) = sigma sqrt(2) exp(psi(d / 2) / 2) = sigma sqrt(d) exp(-1 / (2 d) + O(1/d^2)),

    so r_c(d) = Theta(sqrt(d)) and r_c(d) / (sigma sqrt(d)) increases to 1. Above r_c every pair of
    images merges as depth grows (the prior converges to constant functions); below it the
    distances have a stationary law away from 0.

    Parameters
    ----------
    d : int
        The dimension of the layers.
    sigma : float
        The kernel's output scale (r_c is proportional to it).
    method : {"exact", "monte_carlo"}
        "exact": the closed form. "monte_carlo": from simulated chains: the exponent is estimated at
        r0 = sigma sqrt(d) as in :func:`lyapunov_exponent` (``method="monte_carlo"``), and since
        changing r only shifts the exponent by -log(r / r0) (the multiplier of D near 0 is
        (sigma / r) chi_d), r_c = r0 exp(lambda(r0)), with the interval r0 exp(lambda(r0) +- z s.e.).
    n_chains, depth : int
        Chains and layers of the Monte Carlo estimate.
    conf_level : float
        Coverage of the Monte Carlo interval.
    seed : None, int or numpy.random.Generator
        Randomness of the Monte Carlo estimate.

    Returns
    -------
    BandwidthThreshold
        ``estimate`` = r_c(d), ``ratio_sqrt_d``, and the interval for Monte Carlo.

    References
    ----------
    Kozdoba, M. & Mannor, S. (2026). How deep are deep GPs, really? A sharp threshold and a
    non-Gaussian limit for compositional GPs. arXiv:2606.08218 (r_c(d) = Theta(sqrt(d))).

    Examples
    --------
    >>> from learncore.deepgp import bandwidth_threshold
    >>> [round(bandwidth_threshold(d).estimate, 4) for d in (1, 2, 5, 10, 50, 200)]
    [0.5298, 1.0597, 2.01, 3.0031, 7.0002, 14.1068]
    """
    d = check_dim(d)
    sigma = check_positive_real(sigma, "sigma")
    method = check_choice(method, "method", ("exact", "monte_carlo"))
    n_chains = check_positive_int(n_chains, "n_chains", minimum=2)
    depth = check_depth(depth)
    conf_level = check_probability(conf_level, "conf_level", open_right=True)
    rng = check_seed(seed)
    root = sigma * math.sqrt(d)
    if method == "exact":
        rc = _exact_threshold(d, sigma)
        return BandwidthThreshold(estimate=rc, d=d, sigma=sigma, method="exact", ratio_sqrt_d=rc / root)
    lam, se = _mc_exponent(root, d, sigma, n_chains, depth, rng)
    z = _normal_quantile(0.5 + conf_level / 2)
    rc = root * math.exp(lam)
    return BandwidthThreshold(estimate=rc, d=d, sigma=sigma, method="monte_carlo", ratio_sqrt_d=rc / root,
                              std_error=rc * se, conf_low=root * math.exp(lam - z * se),
                              conf_high=root * math.exp(lam + z * se), conf_level=conf_level, n_chains=n_chains,
                              depth=depth)


# ----------------------------------------------------------------------------------------------
# threshold_scan
# ----------------------------------------------------------------------------------------------

@dataclass(frozen=True, repr=False)
class ThresholdScan(Result):
    """(d, r) cells classified as degenerate or not from simulated distance chains (see :func:`threshold_scan`).

    Attributes
    ----------
    d, r, r_ratio : ndarray
        Each cell's dimension, bandwidth and r / r_c(d).
    median_log_distance : ndarray
        The median over chains of log(D_L / sigma) after ``depth`` layers.
    drift, drift_std_error : ndarray
        The mean slope of log D over the second half of the layers and its standard error
        (about lambda < 0 when degenerate, about 0 at stationarity).
    degenerate : ndarray of bool
        The decision: median log(D_L / sigma) < log(floor).
    exponent : ndarray
        The closed-form Lyapunov exponent of each cell (the decision does not use it).
    depth, n_chains, floor, sigma, start : the rule's settings.

    Examples
    --------
    >>> from learncore.deepgp import threshold_scan
    >>> scan = threshold_scan([1, 2], [0.8, 1.25], relative=True, depth=100, n_chains=50, seed=0)
    >>> scan.degenerate.tolist()
    [False, True, False, True]
    """

    d: np.ndarray
    r: np.ndarray
    r_ratio: np.ndarray
    median_log_distance: np.ndarray
    drift: np.ndarray
    drift_std_error: np.ndarray
    degenerate: np.ndarray
    exponent: np.ndarray
    depth: int
    n_chains: int
    floor: float
    sigma: float
    start: float

    def _repr_parts(self):
        return [("cells", int(self.d.size)), ("degenerate", int(self.degenerate.sum())), ("depth", self.depth),
                ("n_chains", self.n_chains), ("floor", self.floor)]

    def summary(self) -> str:
        f = self.to_frame()
        agree = int((self.degenerate == (self.exponent < 0)).sum())
        return "\n".join(["", "\tDeep GP threshold scan (distance chains)", "",
                          f"{self.n_chains} chains per cell from D_0 = {self.start:.4g}, {self.depth} layers; "
                          f"degenerate when the median D_L / sigma < {self.floor:.1e}",
                          f.to_string(index=False, float_format=lambda v: f"{v:.4g}"), "",
                          f"{agree} of {self.d.size} cells agree with the sign of the closed-form exponent", ""])

    def to_frame(self):
        """One row per cell: ``d``, ``r``, ``r_ratio``, ``median_log_distance``, ``drift``, ``drift_std_error``,
        ``exponent``, ``degenerate``."""
        import pandas as pd

        return pd.DataFrame({"d": self.d, "r": self.r, "r_ratio": self.r_ratio,
                             "median_log_distance": self.median_log_distance, "drift": self.drift,
                             "drift_std_error": self.drift_std_error, "exponent": self.exponent, "degenerate": self.degenerate})

    def _plot(self, ax=None):
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(6, 4))
        f = self.to_frame()
        ds = sorted(set(f["d"]))
        xs = sorted(set(np.round(f["r_ratio"], 6)))
        grid = np.full((len(ds), len(xs)), np.nan)
        for _, row in f.iterrows():
            grid[ds.index(row["d"]), xs.index(round(row["r_ratio"], 6))] = row["median_log_distance"] / math.log(10)
        im = ax.imshow(grid, aspect="auto", origin="lower", cmap="viridis")
        ax.set_xticks(range(len(xs)), [f"{x:.3g}" for x in xs], rotation=90)
        ax.set_yticks(range(len(ds)), [str(int(v)) for v in ds])
        ax.set_xlabel("r / r_c(d)")
        ax.set_ylabel("d")
        ax.set_title(f"median log10 distance after {self.depth} layers")
        ax.figure.colorbar(im, ax=ax)
        return ax


def threshold_scan(ds, rs, *, depth=200, n_chains=200, relative=False, sigma=1.0, start=1.0, floor=1e-8,
                   seed=None) -> ThresholdScan:
    """Classify (d, r) cells of a deep GP prior as degenerate or not from simulated distance chains.

    Decision rule (seeded, stated once): in each cell, ``n_chains`` exact distance chains
    (:func:`distance_chain`) start at D_0 = ``start`` and run ``depth`` layers; the cell is
    **degenerate** when the median over chains of D_L / sigma is below ``floor`` (the two inputs'
    images agree to that relative precision in most draws: the prior is numerically constant), and
    non-degenerate otherwise. The closed-form exponent is reported beside the decision, not used by
    it. As depth grows the rule is consistent on both sides: log D_L drifts to -inf at the rate
    lambda < 0 above r_c(d) and has a stationary law (median of order one) below it; near r_c the
    depth needed grows like log(floor) / lambda, so cells within a few percent of r_c need long
    chains. One Generator from ``seed`` drives the cells in order (d outer, r inner).

    Parameters
    ----------
    ds : int or sequence of int
        Dimensions.
    rs : float or sequence of float
        Bandwidths, or multiples of r_c(d) when ``relative=True``.
    depth : int
        Layers per chain.
    n_chains : int
        Chains per cell.
    relative : bool
        Read ``rs`` as r / r_c(d).
    sigma : float
        The kernel's output scale.
    start : float
        The inputs' distance D_0.
    floor : float
        The relative distance below which a pair of images counts as merged, in (0, 1).
    seed : None, int or numpy.random.Generator
        Randomness.

    Returns
    -------
    ThresholdScan
        One cell per (d, r): ``median_log_distance``, ``drift``, ``degenerate``, ``exponent``;
        ``plot()`` draws the heat map of the median log distance.

    References
    ----------
    Kozdoba, M. & Mannor, S. (2026). How deep are deep GPs, really? A sharp threshold and a
    non-Gaussian limit for compositional GPs. arXiv:2606.08218.

    Examples
    --------
    >>> from learncore.deepgp import threshold_scan
    >>> scan = threshold_scan(5, [1.0, 3.0], depth=100, n_chains=50, seed=1)   # r_c(5) = 2.01
    >>> scan.degenerate.tolist()
    [False, True]
    """
    ds = as_grid(ds, "ds", check_dim)
    rs = as_grid(rs, "rs", check_positive_real)
    depth = check_depth(depth)
    n_chains = check_positive_int(n_chains, "n_chains", minimum=2)
    if not isinstance(relative, (bool, np.bool_)):
        raise TypeError(f"relative must be True or False, got {type(relative).__name__}")
    sigma = check_positive_real(sigma, "sigma")
    start = check_positive_real(start, "start")
    floor = check_probability(floor, "floor", open_left=True, open_right=True)
    rng = check_seed(seed)
    rows = []
    half = depth // 2
    for d in ds:
        rc = _exact_threshold(d, sigma)
        for rv in rs:
            r = rv * rc if relative else rv
            path = _simulate(np.full(n_chains, math.log(start)), r, d, sigma, depth, rng)
            last = path[-1] - math.log(sigma)
            slopes = (path[-1] - path[half]) / max(depth - half, 1)
            med = float(np.median(last))
            rows.append((d, r, r / rc, med, float(slopes.mean()), float(slopes.std(ddof=1) / math.sqrt(n_chains)),
                         med < math.log(floor), _exact_exponent(r, d, sigma)))
    cols = list(zip(*rows))
    return ThresholdScan(d=np.array(cols[0], dtype=np.int64), r=np.array(cols[1]), r_ratio=np.array(cols[2]),
                         median_log_distance=np.array(cols[3]), drift=np.array(cols[4]), drift_std_error=np.array(cols[5]),
                         degenerate=np.array(cols[6], dtype=bool), exponent=np.array(cols[7]), depth=depth,
                         n_chains=n_chains, floor=floor, sigma=sigma, start=start)
