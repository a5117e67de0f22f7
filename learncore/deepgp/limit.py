"""Samples of the deep limit of a deep GP prior below the bandwidth threshold, with the statistics
that show it is non-degenerate, non-Gaussian and dependent across coordinates, and its modes."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch
from statcore import HTest, Result

from ._checks import check_bandwidth, check_choice, check_depth, check_dim, check_positive_int, check_positive_real, \
    check_probability, check_seed
from .chain import _exact_threshold, _log1mexp_of_log, _simulate
from .sampler import sample_deep_gp

__all__ = ["limit_distribution", "LimitDistribution", "count_modes"]


def _smooth(counts: np.ndarray, h_bins: float) -> np.ndarray:
    """Binned Gaussian kernel density (up to a constant): each row of bin counts convolved with a
    Gaussian of sd ``h_bins`` bins."""
    half = int(math.ceil(4 * h_bins))
    k = np.exp(-0.5 * (np.arange(-half, half + 1) / h_bins) ** 2)
    rows = torch.as_tensor(np.atleast_2d(counts), dtype=torch.float64).unsqueeze(1)
    out = torch.nn.functional.conv1d(rows, torch.as_tensor(k, dtype=torch.float64).view(1, 1, -1), padding=half)
    return out[:, 0].numpy()


def _peaks(f: np.ndarray, inner: np.ndarray, min_height: float) -> np.ndarray:
    """Local maxima of each row of f among the grid points marked ``inner``, at least ``min_height``
    times the row's highest value."""
    peak = np.zeros_like(f, dtype=bool)
    peak[:, 1:-1] = (f[:, 1:-1] > f[:, :-2]) & (f[:, 1:-1] >= f[:, 2:])
    return peak & inner & (f >= min_height * f.max(1, keepdims=True))


@dataclass(frozen=True, repr=False)
class ModeCount(Result):
    """The modes of a sample's kernel density and how stable their number is (:func:`count_modes`).

    Attributes
    ----------
    locations : ndarray
        Where the modes of the sample's density lie.
    at_least : ndarray
        ``at_least[m - 1]``: the share of bootstrap resamples with at least m modes (m = 1, 2, ...).
    stability : float
        The share a number of modes needs to count as stable.
    bandwidth : float
        The kernel bandwidth h used (0 for a constant sample).
    B : int
        Bootstrap resamples.

    ``n_modes`` is the number of modes of the sample, ``stable_modes`` the largest m with
    ``at_least[m - 1] >= stability``.

    Examples
    --------
    >>> import numpy as np
    >>> from learncore.deepgp import count_modes
    >>> res = count_modes(np.random.default_rng(1).normal(size=400), B=20, seed=0)
    >>> res.n_modes, res.stable_modes
    (1, 1)
    """

    locations: np.ndarray
    at_least: np.ndarray
    stability: float
    bandwidth: float
    B: int

    @property
    def n_modes(self) -> int:
        """The number of modes of the sample's density."""
        return int(self.locations.size)

    @property
    def stable_modes(self) -> int:
        """The largest m that at least a share ``stability`` of the resamples reach."""
        return int((self.at_least >= self.stability).sum())

    def _repr_parts(self):
        return [("n_modes", self.n_modes), ("stable_modes", self.stable_modes), ("stability", self.stability),
                ("B", self.B)]

    def summary(self) -> str:
        locs = ", ".join(f"{v:.4g}" for v in self.locations)
        lines = ["", "\tModes of a Gaussian kernel density estimate", "",
                 f"bandwidth h = {self.bandwidth:.4g}, {self.B} bootstrap resamples",
                 f"modes: {self.n_modes} (at {locs})",
                 f"stable modes (at least {self.stability:g} of the resamples): {self.stable_modes}", "",
                 self.to_frame().to_string(index=False, float_format=lambda v: f"{v:.4g}"), ""]
        return "\n".join(lines)

    def to_frame(self):
        """One row per number of modes m: ``modes`` (m), ``at_least`` (the share of resamples with at
        least m modes), ``stable``."""
        import pandas as pd

        m = np.arange(1, self.at_least.size + 1)
        return pd.DataFrame({"modes": m, "at_least": self.at_least, "stable": self.at_least >= self.stability})


def count_modes(x, *, B=199, stability=0.9, bandwidth="normal_reference", min_height=0.05, grid_size=512,
                seed=None):
    """Modes of a sample's kernel density estimate, with a bootstrap count of how many are stable.

    The density is a Gaussian kernel estimate with bandwidth h (by default the normal reference
    h = 1.06 sd n^(-1/5), which does not undersmooth the shoulders of a spiky heavy-tailed sample
    into spurious bumps, as IQR-based rules do), binned on ``grid_size`` points. The counting range
    drops the k = ceil(0.005 n) most extreme points on each side (at least one: the sample's 0.5% and
    99.5% quantiles for n >= 200), and both the grid and the bandwidth come from the points inside
    it: the grid spans the range plus 3h on each side, modes are counted inside the range, and sd
    (and the IQR of "silverman") is that of the points in the range. So isolated tail points do
    not count, and one far outlier (1e6 or 1e300 beside data of size 1) neither inflates h nor
    stretches the grid until the bulk falls into one bin: it is not a mode, and the bulk's modes
    are found as without it (R's ``bw.nrd`` protects h the same way with min(sd, IQR / 1.34)). Its
    interior local maxima at least ``min_height`` times as high as the highest are the modes (the
    bumps of a heavy tail's few points are not). The
    bootstrap redraws the sample B times (multinomial counts on the same bins, the same bandwidth):
    the number of stable modes is the largest m such that at least a share ``stability`` of the
    resamples have m modes or more.

    Parameters
    ----------
    x : array_like (n,)
        The sample (finite, n >= 20). Points outside the counting range (above) are left out of
        the density and of the bootstrap.
    B : int
        Bootstrap resamples.
    stability : float
        The share of resamples that must show at least m modes for m to count, in (0, 1].
    bandwidth : {"normal_reference", "silverman"} or float
        h: "normal_reference" 1.06 sd n^(-1/5); "silverman" 0.9 min(sd, IQR / 1.34) n^(-1/5)
        (Silverman 1986, eq. 3.31; resolves closer modes, finds spurious ones in heavy tails), sd and
        IQR those of the points in the counting range, n all points; or a positive number.
    min_height : float
        The height, relative to the highest, below which a local maximum is not a mode, in [0, 1).
    grid_size : int
        Bins of the density.
    seed : None, int or numpy.random.Generator
        Randomness of the bootstrap.

    Returns
    -------
    ModeCount
        ``locations`` of the modes of the sample's density, ``at_least[m - 1]`` the share of
        resamples with at least m modes (m = 1, 2, ...), ``n_modes`` and ``stable_modes`` (the
        largest m with ``at_least[m - 1] >= stability``).

    References
    ----------
    Silverman, B. W. (1981). Using kernel density estimates to investigate multimodality. JRSS B
    43(1), 97-99 (modes of a kernel density and the bootstrap); Silverman, B. W. (1986). Density
    Estimation for Statistics and Data Analysis, eq. 3.31 (the bandwidth).

    Examples
    --------
    >>> import numpy as np
    >>> from learncore.deepgp import count_modes
    >>> rng = np.random.default_rng(0)
    >>> x = np.concatenate([rng.normal(-3, 1, 500), rng.normal(3, 1, 500)])
    >>> res = count_modes(x, B=50, seed=0)
    >>> res.stable_modes, np.round(res.locations).tolist()
    (2, [-3.0, 3.0])
    """
    from ._checks import as_inputs

    xt = as_inputs(x, "x")
    if xt.shape[1] != 1:
        raise ValueError(f"x must be one sample (a vector), got shape {tuple(xt.shape)}")
    v = xt[:, 0].numpy()
    n = v.size
    if n < 20:
        raise ValueError(f"x has {n} values; counting modes needs at least 20")
    B = check_positive_int(B, "B")
    stability = check_probability(stability, "stability", open_right=False)
    grid_size = check_positive_int(grid_size, "grid_size", minimum=16)
    min_height = check_probability(min_height, "min_height", open_left=False, open_right=True)
    if isinstance(bandwidth, str):
        bandwidth = check_choice(bandwidth, "bandwidth", ("normal_reference", "silverman"))
    else:
        bandwidth = check_positive_real(bandwidth, "bandwidth")
    rng = check_seed(seed)
    # the counting range: without the k most extreme points a side (k = ceil(0.005 n), at least 1), so
    # that a far outlier sets neither the bandwidth nor the grid
    s = np.sort(v)
    k = max(1, math.ceil(0.005 * n))
    inside = s[k:n - k]
    dev = np.abs(inside - np.median(inside)).max()
    # scaled first: squares of 1e300 overflowed (sd inf)
    sd = float((inside / dev).std() * dev) if dev > 0 else 0.0
    if not sd > 0:                                     # a constant sample (up to the trimmed points): one mode
        return ModeCount(np.array([float(np.median(v))]), np.ones(1), stability, 0.0, B)
    q = np.array([inside[0], *np.quantile(inside, [0.25, 0.75]), inside[-1]])
    if bandwidth == "normal_reference":
        h = 1.06 * sd * n ** (-0.2)
    elif bandwidth == "silverman":
        iqr = float(q[2] - q[1]) / 1.34
        h = 0.9 * (min(sd, iqr) if iqr > 0 else sd) * n ** (-0.2)
    else:
        h = bandwidth
    lo, hi = q[0] - 3 * h, q[3] + 3 * h
    edges = np.linspace(lo, hi, grid_size + 1)
    mids = (edges[:-1] + edges[1:]) / 2
    counts = np.histogram(v, bins=edges)[0]
    inner = ((mids >= q[0]) & (mids <= q[3]))[None, :]
    h_bins = h / (edges[1] - edges[0])
    f = _smooth(counts, h_bins)
    locations = mids[_peaks(f, inner, min_height)[0]]
    boot = rng.multinomial(counts.sum(), counts / counts.sum(), size=B)
    m = _peaks(_smooth(boot, h_bins), inner, min_height).sum(1)
    top = max(int(m.max()), locations.size, 1)
    at_least = np.array([(m >= k).mean() for k in range(1, top + 1)])
    return ModeCount(locations, at_least, stability, float(h), B)


@dataclass(frozen=True, repr=False)
class LimitDistribution(Result):
    """Samples of a deep GP's deep limit and their statistics (see :func:`limit_distribution`).

    Attributes
    ----------
    samples : ndarray (n_samples, d)
        The draws (differences of two inputs' images, or centred images of one function's inputs).
    kind : str
        "difference" or "centred".
    d, r, r_ratio, sigma, depth : the prior (r_ratio = r / r_c(d)).
    coords : ndarray of int
        The coordinates the statistics are computed for (the first ``max_coords``).
    excess_kurtosis, kurtosis_p_value, normality_p_value : ndarray
        Per coordinate: excess kurtosis, the p-value of the Anscombe-Glynn kurtosis test and of
        D'Agostino and Pearson's normality test (both two-sided; H0: normal).
    modes, stable_modes : ndarray of int
        Per coordinate: local maxima of the kernel density, and the number m of modes that at
        least a share ``stability`` of bootstrap resamples reach (:func:`count_modes`).
    corr : ndarray (k, k)
        Pearson correlations between the coordinates in ``coords``.
    corr_test : HTest or None
        The t-test of zero correlation between coordinates 1 and 2, as R's ``cor.test`` (t on n - 2
        df, Fisher-z 95% interval); ``corr_p`` is its p-value. None when d = 1.
    dhsic, dcor : HTest or None
        statcore's dHSIC test of joint independence of the coordinates in ``coords`` (gamma
        approximation) and its distance-correlation test of coordinates 1 and 2 (permutations);
        None when d = 1.
    B, stability : the bootstrap and permutation replicates and the mode-support level.

    Examples
    --------
    >>> from learncore.deepgp import limit_distribution
    >>> res = limit_distribution(0.5, 2, depth=30, n_samples=300, B=19, seed=0)
    >>> res.samples.shape
    (300, 2)
    """

    samples: np.ndarray
    kind: str
    d: int
    r: float
    r_ratio: float
    sigma: float
    depth: int
    coords: np.ndarray
    excess_kurtosis: np.ndarray
    kurtosis_p_value: np.ndarray
    normality_p_value: np.ndarray
    modes: np.ndarray
    stable_modes: np.ndarray
    corr: np.ndarray
    corr_test: HTest | None
    dhsic: HTest | None
    dcor: HTest | None
    B: int
    stability: float

    @property
    def corr_p(self) -> float | None:
        """The p-value of ``corr_test`` (None when d = 1)."""
        return None if self.corr_test is None else self.corr_test.p_value

    def _repr_parts(self):
        return [("kind", self.kind), ("d", self.d), ("r_ratio", self.r_ratio), ("depth", self.depth),
                ("n_samples", self.samples.shape[0]), ("max_stable_modes", int(self.stable_modes.max()))]

    def summary(self) -> str:
        what = ("F_L(x) - F_L(x') over independent draws of the prior" if self.kind == "difference"
                else "F_L(x_i) - mean_i F_L(x_i) over the inputs of one draw")
        lines = ["", "\tDeep GP limit distribution (RBF kernel)", "",
                 f"d = {self.d}, r = {self.r:.4g} = {self.r_ratio:.3g} r_c(d), sigma = {self.sigma:.4g}, "
                 f"{self.depth} layers",
                 f"samples: {self.samples.shape[0]} of {what}", "",
                 self.to_frame().to_string(index=False, float_format=lambda v: f"{v:.4g}"), ""]
        for test in (self.corr_test, self.dhsic, self.dcor):  # the tests, by the one R printer
            if test is not None:
                lines.append(test.summary().rstrip("\n"))
        return "\n".join(lines) + "\n"

    def to_frame(self):
        """One row per coordinate: ``coord``, ``excess_kurtosis``, ``kurtosis_p_value``,
        ``normality_p_value``, ``modes``, ``stable_modes``."""
        import pandas as pd

        return pd.DataFrame({"coord": self.coords + 1, "excess_kurtosis": self.excess_kurtosis,
                             "kurtosis_p_value": self.kurtosis_p_value, "normality_p_value": self.normality_p_value,
                             "modes": self.modes,
                             "stable_modes": self.stable_modes})

    def _plot(self, ax=None, bins: int = 80):
        import matplotlib.pyplot as plt

        k = 1 if self.d == 1 else 2
        if ax is None:
            _, ax = plt.subplots(1, k, figsize=(4.5 * k, 3.6), squeeze=False)
            ax = ax[0]
        axes = np.atleast_1d(ax)
        z = self.samples
        axes[0].hist(z[:, 0], bins=bins, density=True, color="C0")
        axes[0].set_xlabel("z1")
        axes[0].set_ylabel("density")
        axes[0].set_title(f"{self.kind}, r = {self.r_ratio:.3g} r_c, d = {self.d}")
        if k == 2 and axes.size > 1:
            axes[1].scatter(z[:, 0], z[:, 1], s=2, alpha=0.4)
            axes[1].set_xlabel("z1")
            axes[1].set_ylabel("z2")
        return axes if axes.size > 1 else axes[0]


def _cor_test(c: float, n: int, conf_level: float = 0.95) -> HTest:
    """R's ``cor.test(z1, z2)`` (Pearson) from the correlation ``c`` of ``n`` pairs: t on n - 2 df and
    the Fisher-z confidence interval."""
    from scipy import stats

    t = c * math.sqrt((n - 2) / max(1e-300, 1 - c * c))
    half = stats.norm.ppf((1 + conf_level) / 2) / math.sqrt(n - 3)
    z = math.atanh(max(-1 + 1e-16, min(1 - 1e-16, c)))
    return HTest(statistic=t, statistic_name="t", parameter={"df": float(n - 2)},
                 p_value=float(2 * stats.t.sf(abs(t), n - 2)), estimate={"cor": c}, null_value={"correlation": 0.0},
                 alternative="two.sided", method="Pearson's product-moment correlation",
                 data_name="coordinates 1 and 2", conf_int=(math.tanh(z - half), math.tanh(z + half)),
                 conf_level=conf_level)


def _difference_samples(d, r, sigma, depth, start, n, rng) -> np.ndarray:
    """F_L(x) - F_L(x') exactly: D_{L-1} from the chain, then N(0, 2 sigma^2 (1 - exp(-D^2/(2 r^2))) I_d)."""
    if depth > 1:
        log_d = _simulate(np.full(n, math.log(start)), r, d, sigma, depth - 1, rng)[-1]
    else:
        log_d = np.full(n, math.log(start))
    u = torch.from_numpy(2.0 * log_d)
    var = 2.0 * sigma * sigma * torch.exp(_log1mexp_of_log(u - math.log(2.0 * r * r)))
    eps = torch.from_numpy(rng.standard_normal((n, d)))
    return (var.sqrt().unsqueeze(1) * eps).numpy()


def limit_distribution(r, d, *, depth=100, n_samples=2000, kind="difference", sigma=1.0, start=1.0, max_coords=5,
                       B=199, stability=0.9, seed=None) -> LimitDistribution:
    """Samples of a deep GP prior's deep limit, with its non-Gaussianity, dependence and modes.

    Two views of the limit (a single input's image is N(0, sigma^2 I_d) at every depth, so the
    information is in how images of different inputs relate):

    - ``kind="difference"``: Z = F_L(x) - F_L(x') for two inputs at distance ``start``, over
      ``n_samples`` independent draws of the prior, sampled exactly: D_{L-1} from the distance
      chain (:func:`distance_chain`), then Z ~ N(0, 2 sigma^2 (1 - exp(-D_{L-1}^2 / (2 r^2))) I_d).
      Below r_c(d) its law converges to a Gaussian scale mixture whose mixing law is the chain's
      stationary law: coordinates uncorrelated but dependent (a common scale), excess kurtosis > 0.
      (Each coordinate of a centred Gaussian scale mixture is unimodal.)
    - ``kind="centred"``: one draw of the prior at ``n_samples`` inputs x_i ~ N(0, I_d) (exact,
      :func:`sample_deep_gp`), centred: Z_i = F_L(x_i) - mean_i F_L(x_i), the law of one random
      function's output; the statistics are then conditional on that draw. Near r_c the function
      maps the inputs onto a few clusters: this is where the limit turns multimodal. The cost is
      depth eigendecompositions of n_samples x n_samples matrices.

    Statistics on the first ``max_coords`` coordinates: excess kurtosis with the Anscombe-Glynn test
    and D'Agostino-Pearson's normality test (scipy), the correlation of coordinates 1 and 2 with its
    t-test, statcore's :func:`statcore.dhsic_test` of their joint independence (gamma
    approximation) and :func:`statcore.dcor_test` of coordinates 1 and 2 (B permutations), and the
    modes of each coordinate's kernel density and how many of them the bootstrap keeps
    (:func:`count_modes`).

    Parameters
    ----------
    r : float
        The kernel bandwidth (below :func:`bandwidth_threshold` for a non-degenerate limit).
    d : int
        The dimension of the layers.
    depth : int
        Layers L.
    n_samples : int
        Draws (kind "difference") or inputs (kind "centred"), at least 20.
    kind : {"difference", "centred"}
        The view of the limit (above).
    sigma : float
        The kernel's output scale.
    start : float
        The distance between the two inputs (kind "difference").
    max_coords : int
        The statistics use the first ``min(d, max_coords)`` coordinates (dHSIC's Gram matrices
        cost n^2 memory each).
    B : int
        Permutations of the dcor test and bootstrap resamples of the mode count.
    stability : float
        The share of bootstrap resamples that must show at least m modes for m to count
        (:func:`count_modes`).
    seed : None, int or numpy.random.Generator
        Randomness (one Generator for the samples, the permutations and the bootstrap).

    Returns
    -------
    LimitDistribution
        ``samples`` and the per-coordinate table (``to_frame()``), ``corr``, ``dhsic``, ``dcor``;
        ``plot()`` draws a histogram and a pair plot.

    References
    ----------
    Kozdoba, M. & Mannor, S. (2026). How deep are deep GPs, really? A sharp threshold and a
    non-Gaussian limit for compositional GPs. arXiv:2606.08218.
    Pfister, N., Buhlmann, P., Scholkopf, B. & Peters, J. (2018). Kernel-based tests for joint
    independence. JRSS B 80(1) (dHSIC). Szekely, G. J., Rizzo, M. L. & Bakirov, N. K. (2007).
    Measuring and testing dependence by correlation of distances. Ann. Statist. 35(6).
    Anscombe, F. J. & Glynn, W. J. (1983). Distribution of the kurtosis statistic b2 for normal
    samples. Biometrika 70(1). D'Agostino, R. & Pearson, E. S. (1973). Tests for departure from
    normality. Biometrika 60(3).

    Examples
    --------
    >>> from learncore.deepgp import limit_distribution
    >>> res = limit_distribution(0.8, 2, depth=50, n_samples=1000, B=49, seed=0)   # r_c(2) = 1.06
    >>> bool(res.excess_kurtosis.min() > 1)          # heavy tails: a Gaussian scale mixture
    True
    >>> bool(res.dhsic.p_value < 0.01)               # dependent coordinates
    True
    """
    from scipy import stats

    import statcore

    d = check_dim(d)
    r = check_bandwidth(r)
    depth = check_depth(depth)
    n_samples = check_positive_int(n_samples, "n_samples", minimum=20)
    kind = check_choice(kind, "kind", ("difference", "centred"), aliases={"centered": "centred"})
    sigma = check_positive_real(sigma, "sigma")
    start = check_positive_real(start, "start")
    max_coords = check_positive_int(max_coords, "max_coords")
    B = check_positive_int(B, "B")
    stability = check_probability(stability, "stability", open_right=False)
    rng = check_seed(seed)
    if kind == "difference":
        z = _difference_samples(d, r, sigma, depth, start, n_samples, rng)
    else:
        X = rng.standard_normal((n_samples, d))
        z = sample_deep_gp(X, depth=depth, r=r, sigma=sigma, seed=rng).images[0]
        z = z - z.mean(0)
    k = min(d, max_coords)
    coords = np.arange(k)
    zk = z[:, :k]
    kurt = stats.kurtosis(zk, axis=0, fisher=True, bias=False)
    kurt_p = np.array([stats.kurtosistest(zk[:, j]).pvalue for j in range(k)])
    norm_p = np.array([stats.normaltest(zk[:, j]).pvalue for j in range(k)])
    modes, stable = [], []
    for j in range(k):
        mc = count_modes(zk[:, j], B=B, stability=stability, seed=rng)
        modes.append(mc.n_modes)
        stable.append(mc.stable_modes)
    corr = np.atleast_2d(np.corrcoef(zk, rowvar=False)) if k > 1 else np.ones((1, 1))
    corr_test = dh = dc = None
    if k > 1:
        corr_test = _cor_test(float(corr[0, 1]), n_samples)
        dh = statcore.dhsic_test(*[zk[:, j] for j in range(k)], method="gamma")
        dc = statcore.dcor_test(zk[:, 0], zk[:, 1], B=B, seed=rng)
    rc = _exact_threshold(d, sigma)
    return LimitDistribution(samples=z, kind=kind, d=d, r=r, r_ratio=r / rc, sigma=sigma, depth=depth, coords=coords,
                             excess_kurtosis=np.asarray(kurt, dtype=float), kurtosis_p_value=kurt_p,
                             normality_p_value=norm_p,
                             modes=np.array(modes), stable_modes=np.array(stable), corr=corr, corr_test=corr_test,
                             dhsic=dh, dcor=dc, B=B, stability=stability)
