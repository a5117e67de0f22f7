"""The nonparametric causal two-groups model: bootstrapped nearest-neighbour conditional densities.

f0(y | x) from the controls and f_t(y | x) from the treated by kernel-weighted nearest-neighbour
density estimates (Gaussian x-kernel over the k nearest neighbours, Gaussian y-kernel; k and both
bandwidths by leave-one-out likelihood, per group). The response probability is not identified;
its lower bound pi*(x) = 1 - min_y f_t(y | x) / f0(y | x) is, and it is estimated conservatively
from a bootstrap band (simultaneous, or pointwise as the paper: the upper quantile of f_t over the
lower quantile of f0), both groups smoothed in y with the larger of their two bandwidths. The
posterior null probability bound (1 - pi*(x)) f0(y | x) / f_t(y | x) takes the upper quantile of f0
and the lower quantile of f_t at the unit's own outcome, each leaving the unit itself out, each
group at its own y-bandwidth ("per_group") or both at the larger ("shared") (Tosh, Zhang & Tansey
2025, Section 4).

A bootstrap resample changes only the multinomial counts of the training points: neighbour lists
and x-weights are computed once and reused by every resample.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from statcore.ebayes._c2g_kernels import binned_boot_sums, knn_boot_density, knn_boot_mean, loo_boot_density

_K_CANDIDATES = (10, 25, 50, 100, 200)
_HX_FACTORS = (0.5, 1.0, 2.0)
_HY_FACTORS = (0.05, 0.1, 0.2, 0.35, 0.5)
_N_GRID = 75
_CHUNK = 256
_DENSITY_FLOOR = 0.05     # the min over y runs where the treated density is >= 5% of its maximum


@dataclass
class CondKDE:
    Z: np.ndarray | None
    y: np.ndarray
    k: int
    hx: float
    hy: float
    counts: np.ndarray        # (B, n) bootstrap counts
    tree: object = None
    hy_grid: float | None = None   # y-bandwidth of the pi* curves (None: hy)

    def neighbours(self, Zq: np.ndarray, self_idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The k nearest training points of each query (the query itself excluded) and x-weights."""
        kq = min(self.k + 1, len(self.y))
        d, idx = self.tree.query(Zq, k=kq)
        d = np.asarray(d, dtype=float).reshape(len(Zq), kq)
        idx = np.asarray(idx, dtype=np.int64).reshape(len(Zq), kq)
        d = np.where(idx == self_idx[:, None], np.inf, d)
        order = np.argsort(d, axis=1, kind="stable")[:, : self.k]
        d = np.take_along_axis(d, order, 1)
        idx = np.ascontiguousarray(np.take_along_axis(idx, order, 1))
        w = np.exp(-0.5 * (d / self.hx) ** 2)
        return idx, np.ascontiguousarray(w)


def fit_cond_kde(Z: np.ndarray | None, y: np.ndarray, n_boot: int, rng: np.random.Generator) -> CondKDE:
    """Tune k, hx, hy by leave-one-out log-likelihood; draw the bootstrap counts."""
    n = len(y)
    sd = float(y.std())
    if sd <= 1e-10 * float(np.max(np.abs(y))):
        # constant outcomes up to rounding (sd 1e-17 of 0.1): a spread of rounding size would give
        # the group a spike of a density, and per-group bandwidths would read it as a response
        sd = 0.0
    sd = sd or 1.0
    ones = np.ones((1, n))
    empty = np.empty(0)
    best = (-np.inf, None)
    if Z is None:
        self_idx = np.arange(n, dtype=np.int64)
        for hy in sd * np.array(_HY_FACTORS):
            out = np.empty((n, 1))
            loo_boot_density(y, ones, hy, y, self_idx, out)
            ll = float(np.log(np.maximum(out, 1e-300)).sum())
            if ll > best[0]:
                best = (ll, (0, np.inf, hy))
        tree = None
    else:
        from scipy.spatial import cKDTree

        tree = cKDTree(Z)
        kmax = min(n - 1, max(_K_CANDIDATES))
        probe = CondKDE(Z, y, kmax, 1.0, 1.0, ones, tree)
        idx, _ = probe.neighbours(Z, np.arange(n, dtype=np.int64))
        d = np.sqrt(((Z[:, None, :] - Z[idx]) ** 2).sum(-1))
        for k in sorted({min(kmax, c) for c in _K_CANDIDATES}):
            dk = float(np.median(d[:, k - 1])) or 1.0
            sub = np.ascontiguousarray(idx[:, :k])
            for hx in dk * np.array(_HX_FACTORS):
                w = np.ascontiguousarray(np.exp(-0.5 * (d[:, :k] / hx) ** 2))
                for hy in sd * np.array(_HY_FACTORS):
                    out_g = np.empty((n, 1, 0))
                    out = np.empty((n, 1))
                    knn_boot_density(sub, w, y, ones, hy, empty, y, out_g, out)
                    ll = float(np.log(np.maximum(np.nan_to_num(out, nan=0.0), 1e-300)).sum())
                    if ll > best[0]:
                        best = (ll, (k, hx, hy))
    k, hx, hy = best[1]
    counts = rng.multinomial(n, np.full(n, 1.0 / n), size=n_boot).astype(np.float64)
    return CondKDE(Z, y, int(k), float(hx), float(hy), counts, tree)


def _pi_star(f0g: np.ndarray, f1g: np.ndarray, q: float, band: str = "simultaneous",
             conf_level: float = 0.95) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Conservative pi*(x) from bootstrap bands of the densities, and a confidence interval for pi*(x).

    band="pointwise" (the paper's recipe): at each grid point y the upper (1 - q) bootstrap
    quantile of f_t over the lower q quantile of f0; pi* = 1 - the minimum of that ratio over y.
    The interval takes the same quantiles at level (1 - conf_level) / 2.
    band="simultaneous":

    f0g, f1g: (m, B, G) bootstrap densities on the grid. With L_b(y) = log f_t,b(y) - log f0_b(y),
    its bootstrap median L(y) and bootstrap sd s(y), the upper band L(y) + c s(y) holds for all y
    at once with bootstrap probability 1 - q when c is the (1 - q) quantile of
    max_y (L(y) - L_b(y)) / s(y) (a studentised sup-band); pi* = 1 - min_y exp(L(y) + c s(y)).
    A pointwise quantile would not do: the minimum over y of many noisy ratios is biased low.
    The interval takes the same construction at level (1 - conf_level) / 2 on both sides (the
    lower band uses max_y (L_b(y) - L(y)) / s(y)): the minimum over y of a curve inside a
    simultaneous band lies between the minima of the band's edges.
    The minimum runs over the grid points where the median f_t is at least 5% of its maximum and
    every resample has both densities positive.
    """
    a = (1.0 - conf_level) / 2.0
    if band == "pointwise":
        return _pi_star_pointwise(f0g, f1g, q, a)
    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        # resamples that leave a query without neighbours give NaN densities: those points drop out
        warnings.simplefilter("ignore", RuntimeWarning)
        L_b = np.log(f1g) - np.log(f0g)                                   # (m, B, G)
        ok = np.all(np.isfinite(L_b), axis=1)
        f1_med = np.median(f1g, axis=1)
        ok &= f1_med >= _DENSITY_FLOOR * np.nanmax(f1_med, axis=1, keepdims=True)
        L_b = np.where(ok[:, None, :], L_b, 0.0)
        L = np.median(L_b, axis=1)
        sd = np.std(L_b, axis=1)
        sd_div = np.where(sd > 0, sd, np.inf)
        dev = (L[:, None, :] - L_b) / sd_div[:, None, :]
        t_up = np.where(ok[:, None, :], dev, -np.inf).max(axis=2)       # (m, B)
        t_dn = np.where(ok[:, None, :], -dev, -np.inf).max(axis=2)
        any_ok = ok.any(axis=1)

        def bound(c):
            edge = np.where(ok, L + c[:, None] * sd, np.inf)
            return np.where(any_ok, np.clip(1.0 - np.exp(edge.min(axis=1)), 0.0, 1.0), 0.0)

        pistar = bound(np.quantile(t_up, 1.0 - q, axis=1))
        lo = bound(np.quantile(t_up, 1.0 - a, axis=1))
        hi = bound(-np.quantile(t_dn, 1.0 - a, axis=1))
    return pistar, lo, np.maximum(hi, pistar)


def _pi_star_pointwise(f0g, f1g, q, a):
    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ok = np.all(np.isfinite(f0g) & np.isfinite(f1g) & (f0g > 0) & (f1g > 0), axis=1)
        f1_med = np.median(f1g, axis=1)
        ok &= f1_med >= _DENSITY_FLOOR * np.nanmax(f1_med, axis=1, keepdims=True)
        any_ok = ok.any(axis=1)
        f0q = np.quantile(f0g, [q, 1.0 - q, a, 1.0 - a], axis=1)        # (4, m, G)
        f1q = np.quantile(f1g, [q, 1.0 - q, a, 1.0 - a], axis=1)

        def bound(num, den):
            ratio = np.where(ok, num / den, np.inf)
            return np.where(any_ok, np.clip(1.0 - ratio.min(axis=1), 0.0, 1.0), 0.0)

        pistar = bound(f1q[1], f0q[0])
        lo = bound(f1q[3], f0q[2])
        hi = bound(f1q[2], f0q[3])
    return pistar, np.minimum(lo, pistar), np.maximum(hi, pistar)


def _lfdr_bound(pistar: np.ndarray, f0y: np.ndarray, f1y: np.ndarray, q: float) -> np.ndarray:
    """(1 - pi*) times the upper f0 quantile over the lower f_t quantile at each unit's outcome."""
    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)     # all-NaN rows: no neighbour survived
        f0_hi = np.nanquantile(f0y, 1.0 - q, axis=1)
        f1_lo = np.nanquantile(f1y, q, axis=1)
        val = (1.0 - pistar) * f0_hi / f1_lo
    return np.clip(np.nan_to_num(val, nan=1.0, posinf=1.0), 0.0, 1.0)


@dataclass
class NonparametricFit:
    kde0: CondKDE
    kde1: CondKDE
    grid: np.ndarray
    quantile: float
    band: str
    pi_star: np.ndarray        # (n,)
    pi_star_lo: np.ndarray     # (n,) 95% interval of pi*(x) from the simultaneous bands
    pi_star_hi: np.ndarray
    lfdr: np.ndarray           # (n,)
    mu0: np.ndarray            # (n,) kernel-regression means, full data
    mu_t: np.ndarray
    mu0_boot: np.ndarray       # (n, B)
    mu_t_boot: np.ndarray

    def query(self, Zq: np.ndarray, n_jobs: int = 1) -> dict:
        """pi*, bootstrap pi* and the two conditional means at new covariate points."""
        m = len(Zq)
        none = np.full(m, -1, dtype=np.int64)
        return _query_all(self.kde0, self.kde1, Zq, np.zeros(m), none, none, self.grid, self.quantile,
                          self.band, n_jobs)


def _means(kde: CondKDE, idx, w):
    out_b = np.empty((idx.shape[0], kde.counts.shape[0]))
    knn_boot_mean(idx, w, kde.y, kde.counts, out_b)
    out = np.empty((idx.shape[0], 1))
    knn_boot_mean(idx, w, kde.y, np.ones((1, len(kde.y))), out)
    return out[:, 0], out_b


def _query_chunk(kde0, kde1, Zq, yq, self0, self1, grid, q, band):
    res = {}
    curves = []
    for tag, kde, s in (("0", kde0, self0), ("t", kde1, self1)):
        idx, w = kde.neighbours(Zq, s)
        fg = np.empty((len(Zq), kde.counts.shape[0], len(grid)))
        fy = np.empty((len(Zq), kde.counts.shape[0]))
        hg = kde.hy if kde.hy_grid is None else kde.hy_grid
        knn_boot_density(idx, w, kde.y, kde.counts, hg, grid, yq, fg, fy)
        if hg != kde.hy:
            # the units' own outcomes at the group's own bandwidth
            knn_boot_density(idx, w, kde.y, kde.counts, kde.hy, np.empty(0), yq,
                             np.empty((len(Zq), kde.counts.shape[0], 0)), fy)
        curves.append((fg, fy))
        res["mu" + tag], res["mu" + tag + "_boot"] = _means(kde, idx, w)
    (f0g, f0y), (f1g, f1y) = curves
    res["pi_star"], res["pi_star_lo"], res["pi_star_hi"] = _pi_star(f0g, f1g, q, band)
    res["lfdr"] = _lfdr_bound(res["pi_star"], f0y, f1y, q)
    return res


def _query_all(kde0, kde1, Zq, yq, self0, self1, grid, q, band, n_jobs, progress=False):
    from .._progress import parallel_map

    starts = range(0, len(Zq), _CHUNK)
    args = [(kde0, kde1, Zq[s:s + _CHUNK], yq[s:s + _CHUNK], self0[s:s + _CHUNK], self1[s:s + _CHUNK],
             grid, q, band) for s in starts]
    # the kernels release the GIL: threads share the neighbour lists and counts without copies; a
    # backend set by joblib.parallel_config (e.g. dask) takes over, as prefer is only a hint
    parts = parallel_map(_query_chunk, args, n_jobs=n_jobs, progress=progress, desc="c2g bootstrap densities",
                         unit="point", weights=[len(a[2]) for a in args], prefer="threads")
    return {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}


def _binned_curves(kde, h, y, grid):
    """Bootstrap kernel sums at bandwidth h (bins h / 20 wide) on the grid and at the outcomes."""
    # (near-)constant outcomes choose bandwidths of rounding size: the bins stay resolvable
    delta = max(h / 20.0, 16.0 * float(np.spacing(max(abs(float(y.min())), abs(float(y.max())), 1.0))))
    lo = float(y.min()) - delta
    n_fine = min(int(np.ceil((float(y.max()) + delta - lo) / delta)) + 2, 200_000)
    delta = (float(y.max()) + delta - lo) / (n_fine - 2)
    S = np.empty((kde.counts.shape[0], n_fine))
    binned_boot_sums(kde.y, kde.counts, h, lo, delta, S)
    return _interp_rows(S, lo, delta, grid), _interp_rows(S, lo, delta, y)


def _covariate_free(kde0, kde1, y, self0, self1, grid, q, band):
    """X = None: one pair of bootstrap densities, from binned kernel sums on a fine grid."""
    n = len(y)
    res = {}
    curves = []
    for tag, kde, s in (("0", kde0, self0), ("t", kde1, self1)):
        hg = kde.hy if kde.hy_grid is None else kde.hy_grid
        hy = kde.hy
        Sg, Sy = _binned_curves(kde, hg, y, grid)
        if hg != hy:
            # the units' own outcomes at the group's own bandwidth
            Sy = _binned_curves(kde, hy, y, grid[:0])[1]
        total = kde.counts.sum(axis=1)
        fg = Sg / total[:, None]
        c_self = np.where(s >= 0, kde.counts[:, np.maximum(s, 0)], 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            fy = (Sy - c_self / (np.sqrt(2 * np.pi) * hy)) / (total[:, None] - c_self)
        curves.append((fg[None], np.maximum(fy, 0.0).T))
        res["mu" + tag] = np.full(n, kde.y.mean())
        res["mu" + tag + "_boot"] = np.repeat((kde.counts @ kde.y / total)[None, :], n, 0)
    (f0g, f0y), (f1g, f1y) = curves
    for key, val in zip(("pi_star", "pi_star_lo", "pi_star_hi"), _pi_star(f0g, f1g, q, band)):
        res[key] = np.repeat(val, n)
    res["lfdr"] = _lfdr_bound(res["pi_star"], f0y, f1y, q)
    return res


def _interp_rows(S, lo, delta, pts):
    u = (np.asarray(pts) - lo) / delta
    g = np.clip(np.floor(u).astype(np.int64), 0, S.shape[1] - 2)
    f = np.clip(u - g, 0.0, 1.0)
    return S[:, g] * (1.0 - f) + S[:, g + 1] * f


def fit_nonparametric(Z: np.ndarray | None, y: np.ndarray, treat: np.ndarray, n_boot: int,
                      quantile: float, rng: np.random.Generator, n_jobs: int = 1,
                      progress: bool | None = False, bandwidth: str = "per_group",
                      band: str = "simultaneous") -> NonparametricFit:
    ctrl = np.flatnonzero(~treat)
    trt = np.flatnonzero(treat)
    n = len(y)
    kde0 = fit_cond_kde(None if Z is None else Z[ctrl], np.ascontiguousarray(y[ctrl]), n_boot, rng)
    kde1 = fit_cond_kde(None if Z is None else Z[trt], np.ascontiguousarray(y[trt]), n_boot, rng)
    # pi*: one y-bandwidth for both groups. Smoothing f0 and f_t with the same kernel keeps the
    # mixture structure f_t = (1 - pi) f0 + pi f1, so the smoothed ratio f_t / f0 stays >= 1 - pi.
    # The posterior null probabilities: each group's own ("per_group") or the same ("shared").
    if bandwidth == "shared":
        kde0.hy = kde1.hy = max(kde0.hy, kde1.hy)
    elif bandwidth == "per_group":
        kde0.hy_grid = kde1.hy_grid = max(kde0.hy, kde1.hy)
    grid = np.linspace(y.min(), y.max(), _N_GRID)
    self0 = np.full(n, -1, dtype=np.int64)
    self0[ctrl] = np.arange(len(ctrl))
    self1 = np.full(n, -1, dtype=np.int64)
    self1[trt] = np.arange(len(trt))
    if Z is None:
        res = _covariate_free(kde0, kde1, y, self0, self1, grid, quantile, band)
    else:
        res = _query_all(kde0, kde1, Z, y, self0, self1, grid, quantile, band, n_jobs, progress)
    return NonparametricFit(kde0, kde1, grid, quantile, band, res["pi_star"], res["pi_star_lo"], res["pi_star_hi"],
                            res["lfdr"],
                            res["mu0"], res["mut"], res["mu0_boot"], res["mut_boot"])
