"""Evaluation of trained operators: relative L2 errors under sensor corruptions (:func:`evaluate`) and
the statistical signature of the latent layer (:func:`latent_signature`, :class:`LatentSignature`).

Corrupted readings are drawn from a stream derived from ``seed``, the corruption's name and the level
(not their position in the request), so the same seed gives every model the same corrupted readings:
the comparisons between models are paired down to the sample.
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np
import pandas as pd
import torch
from statcore import Result, independence_matrix, participation_ratio
from statcore.utils import check_probability, check_progress, spawn_seeds

from .._torch import module_dtype
from ._model_checks import check_choice, check_dataset, check_positive_int, check_seed, check_split

__all__ = ["evaluate", "latent_signature", "LatentSignature", "OperatorErrors"]


@dataclass(frozen=True, repr=False)
class OperatorErrors(Result):
    """Relative L2 errors of an operator on clean and corrupted sensor readings (:func:`evaluate`).

    Attributes
    ----------
    table : pandas.DataFrame
        One row per sample, corruption and level: ``sample`` (the dataset's sample index),
        ``corruption`` ("none" for the clean readings), ``level``, ``rel_l2``; clean rows first, then
        by corruption and level in the order asked (``to_frame()`` returns it).
    split : str
        The split evaluated.

    Examples
    --------
    >>> import pandas as pd
    >>> res = OperatorErrors(pd.DataFrame({"sample": [0, 1], "corruption": "none", "level": 0.0,
    ...                                    "rel_l2": [0.1, 0.3]}), "test")
    >>> res.mean_errors()["rel_l2"].tolist()
    [0.2]
    """

    table: pd.DataFrame
    split: str

    def _repr_parts(self):
        return [("split", self.split), ("n_samples", int(self.table["sample"].nunique())),
                ("n_conditions", int(len(self.mean_errors()))),
                ("clean_rel_l2", float(self.table.loc[self.table["corruption"] == "none", "rel_l2"].mean())
                 if (self.table["corruption"] == "none").any() else float("nan"))]

    def mean_errors(self) -> pd.DataFrame:
        """The mean relative L2 error per corruption and level (in the order evaluated)."""
        return self.table.groupby(["corruption", "level"], sort=False)["rel_l2"].mean().reset_index()

    def summary(self) -> str:
        means = self.mean_errors()
        return (f"\n\tRelative L2 errors under sensor corruptions ({self.split} split, "
                f"{self.table['sample'].nunique()} samples)\n\n"
                + means.to_string(index=False, float_format=lambda v: f"{v:.4g}") + "\n")

    def to_frame(self) -> pd.DataFrame:
        """The table: ``sample``, ``corruption``, ``level``, ``rel_l2``."""
        return self.table


def _corruption_table(corruptions) -> dict:
    """name -> callable(sensors, level, *, sensor_coords, seed) for the names of
    ``learncore.operators.corruptions`` and for callables given in a mapping."""
    if corruptions is None:
        from .corruptions import CORRUPTIONS

        corruptions = CORRUPTIONS
    if isinstance(corruptions, str):
        corruptions = (corruptions,)
    if isinstance(corruptions, Mapping):
        out = {}
        for name, fn in corruptions.items():
            if not isinstance(name, str) or not callable(fn):
                raise TypeError("corruptions as a mapping must map names (str) to callables "
                                "f(sensors, level, *, sensor_coords, seed)")
            out[name] = fn
        return out
    if not isinstance(corruptions, (list, tuple)):
        raise TypeError(f"corruptions must be a sequence of corruption names or a mapping of name -> callable, got "
                        f"{type(corruptions).__name__}")
    from .corruptions import CORRUPTIONS, corrupt

    out = {}
    for name in corruptions:
        name = check_choice(name, "corruptions", CORRUPTIONS)
        out[name] = (lambda kind: (lambda x, level, **kw: corrupt(x, kind=kind, level=level, **kw)))(name)
    return out


def _levels(levels) -> np.ndarray:
    arr = np.atleast_1d(np.asarray(levels if levels is not None else [], dtype=object))
    out = []
    for v in arr.tolist():
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) or not np.isfinite(v) \
                or v < 0:
            raise ValueError(f"levels must be non-negative finite numbers (strengths relative to the field's "
                             f"standard deviation), got {v!r}")
        out.append(float(v))
    if not out:
        raise ValueError("levels is empty; pass at least one strength")
    return np.asarray(out)


def _cell_rng(root: np.random.SeedSequence, kind: str, level: float) -> np.random.Generator:
    """The stream of one (corruption, level) cell: keyed by the cell, not by its position, so adding a
    level or a corruption changes no other cell's draws (statcore's ``spawn_seeds`` rule)."""
    key = (zlib.crc32(kind.encode()), zlib.crc32(repr(float(level)).encode()))
    return np.random.default_rng(spawn_seeds(root, 1, key=key)[0])


def _model_io(model) -> tuple[Callable, torch.dtype]:
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"model must be a torch.nn.Module operator (DeepONet, FNO, NOIR, ...), got "
                        f"{type(model).__name__}")
    if not (hasattr(model, "forward_latent") or hasattr(model, "latent")):
        raise TypeError(f"model ({type(model).__name__}) must have a latent(sensors) method")
    dt = module_dtype(model)

    def run(x: np.ndarray, batch: int) -> tuple[np.ndarray, np.ndarray]:
        was = model.training
        model.eval()
        preds, lats = [], []
        try:  # the model's mode comes back even when the forward pass raises
            with torch.no_grad():
                for a in range(0, x.shape[0], batch):
                    xb = torch.as_tensor(x[a:a + batch], dtype=dt)
                    if hasattr(model, "forward_latent"):
                        p, z = model.forward_latent(xb)
                    else:
                        p, z = model(xb), model.latent(xb)
                    preds.append(p.double().numpy())
                    lats.append(z.double().numpy())
        finally:
            model.train(was)
        return np.concatenate(preds), np.concatenate(lats)

    return run, dt


def _rel_l2(pred: np.ndarray, target: np.ndarray) -> np.ndarray:
    return np.linalg.norm(pred - target, axis=1) / np.linalg.norm(target, axis=1)


def _split_data(ds, split) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    check_dataset(ds)
    idx = check_split(split, ds)
    sidx = np.asarray(ds.sensor_idx, dtype=np.int64)
    x = np.asarray(ds.inputs, dtype=np.float64)[idx][:, sidx]
    y = np.asarray(ds.targets, dtype=np.float64)[idx]
    coords = np.asarray(ds.grid, dtype=np.float64)[sidx]
    return idx, x, y, coords


def evaluate(model, ds, *, corruptions=None, levels=(0.05, 0.1, 0.2), seed=None, split: str = "test",
             clean: bool = True, batch_size: int = 256) -> OperatorErrors:
    """Relative L2 errors of an operator on clean and corrupted sensor readings, one row per sample,
    corruption and level.

    For every corruption and level the readings of the split are corrupted (``corrupt(sensors, kind=...,
    level=..., sensor_coords=..., seed=...)`` of :mod:`learncore.operators.corruptions`), the model
    predicts the output field, and the per-sample relative L2 error ||G(u~) - v||_2 / ||v||_2 over the
    grid is recorded.

    Parameters
    ----------
    model : torch.nn.Module
        A trained operator (:class:`DeepONet`, :class:`FNO`, ..., or a :class:`NOIR`); evaluated in
        eval mode without gradients (its mode is restored afterwards).
    ds : OperatorDataset
        The data.
    corruptions : sequence of str, or mapping of str to callable, optional
        Names of ``learncore.operators.CORRUPTIONS`` (default: all five), or a mapping name ->
        ``f(sensors, level, *, sensor_coords, seed)`` returning the corrupted copy (own corruptions).
    levels : sequence of float
        Strengths, relative to the per-sample field standard deviation (as ``corrupt`` defines them).
    seed : None, int or numpy.random.Generator
        The corruption noise. Each (corruption, level) cell draws from its own stream derived from the
        seed, the corruption's name and the level, so every model evaluated with the same seed sees
        the same corrupted readings, whatever else is asked.
    split : {"test", "train", "all"}
        Which samples.
    clean : bool
        Also evaluate the uncorrupted readings (rows with corruption "none" and level 0).
    batch_size : int
        Samples per forward pass (memory only; the result does not depend on it).

    Returns
    -------
    OperatorErrors
        Its ``to_frame()`` (the ``table``) has the columns ``sample`` (the dataset's sample index),
        ``corruption``, ``level``, ``rel_l2``; clean rows first, then by corruption and level in the
        order asked. ``mean_errors()`` averages over the samples.

    References
    ----------
    Li, Z. et al. (2021). Fourier neural operator for parametric partial differential equations. ICLR
    2021 (the relative L2 error of operator learning).

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> from learncore.operators import DeepONet, evaluate
    >>> x = np.linspace(0, 1, 16)
    >>> a = np.random.default_rng(0).normal(size=(40, 2))
    >>> u = a[:, :1] * np.sin(np.pi * x) + a[:, 1:] * np.sin(2 * np.pi * x)
    >>> ds = SimpleNamespace(dim=1, grid_shape=(16,), grid=x[:, None], inputs=u, targets=0.5 * u + 1,
    ...                      sensor_idx=np.arange(0, 16, 3), train_idx=np.arange(30), test_idx=np.arange(30, 40))
    >>> net = DeepONet.from_dataset(ds, p=4, branch_hidden=(8,), trunk_hidden=(8,))
    >>> noise = {"gauss": lambda s, level, *, sensor_coords, seed: s + level * seed.normal(size=s.shape)}
    >>> res = evaluate(net, ds, corruptions=noise, levels=(0.1, 0.5), seed=1)
    >>> res.to_frame().groupby(["corruption", "level"]).size().to_dict()
    {('gauss', 0.1): 10, ('gauss', 0.5): 10, ('none', 0.0): 10}
    """
    run, _ = _model_io(model)
    table = _corruption_table(corruptions)
    levels = _levels(levels)
    batch_size = check_positive_int(batch_size, "batch_size")
    if not isinstance(clean, (bool, np.bool_)):
        raise TypeError(f"clean must be True or False, got {clean!r}")
    rng = check_seed(seed)
    root = spawn_seeds(rng, 1)[0]
    idx, x, y, coords = _split_data(ds, split)
    zero = np.linalg.norm(y, axis=1) == 0
    if zero.any():
        raise ValueError(f"{int(zero.sum())} target(s) of the {split} split are 0 everywhere: their relative L2 "
                         "error is undefined")
    frames = []
    if clean:
        pred, _ = run(x, batch_size)
        frames.append(pd.DataFrame({"sample": idx, "corruption": "none", "level": 0.0, "rel_l2": _rel_l2(pred, y)}))
    for kind, fn in table.items():
        for level in levels:
            xc = np.asarray(fn(x.copy(), float(level), sensor_coords=coords, seed=_cell_rng(root, kind, level)),
                            dtype=np.float64)
            if xc.shape != x.shape or not np.all(np.isfinite(xc)):
                raise ValueError(f"corruption {kind!r} at level {level:g} returned readings of shape {xc.shape} "
                                 f"(expected {x.shape}) or non-finite values")
            pred, _ = run(xc, batch_size)
            frames.append(pd.DataFrame({"sample": idx, "corruption": kind, "level": float(level),
                                        "rel_l2": _rel_l2(pred, y)}))
    if not frames:
        raise ValueError("nothing to evaluate: no corruption given and clean=False")
    return OperatorErrors(pd.concat(frames, ignore_index=True), split)


# ----------------------------------------------------------------------------------------------
# latent signature
# ----------------------------------------------------------------------------------------------

def _total_correlation(z: np.ndarray) -> float:
    """-1/2 log det of the correlation matrix of the columns of z (inf when it is singular)."""
    r = np.corrcoef(z, rowvar=False)
    sign, logdet = np.linalg.slogdet(r)
    return float(-0.5 * logdet) if sign > 0 else float("inf")


def _latent_participation_ratio(z: np.ndarray, on: str) -> float:
    """``statcore.participation_ratio`` of the latent covariance (or, on="correlation", of the
    standardised non-constant coordinates); NaN when no coordinate varies."""
    if on == "correlation":
        sd = z.std(axis=0)
        keep = sd > 0
        z = (z[:, keep] - z[:, keep].mean(axis=0)) / sd[keep]
    if z.shape[1] == 0 or not np.any(np.ptp(z, axis=0) > 0):
        return float("nan")
    return participation_ratio(z)


@dataclass(frozen=True, eq=False, repr=False)
class LatentSignature(Result):
    """The statistical signature of an operator's latent layer, clean and under each corruption
    (what :func:`latent_signature` returns).

    Attributes
    ----------
    condition : tuple of str
        "clean", then the corruptions.
    level : numpy.ndarray
        The corruption strength of each condition (0 for clean).
    n_pairs, n_dependent : numpy.ndarray of int
        Tested pairs of (non-constant) latent coordinates and those found dependent after the
        multiplicity adjustment.
    share_dependent : numpy.ndarray
        n_dependent / n_pairs.
    mean_estimate : numpy.ndarray
        The mean pairwise dependence estimate (dCor or HSIC) over the pairs.
    total_correlation : numpy.ndarray
        -1/2 log det R of the latent correlation matrix (Gaussian total correlation; inf when R is
        singular).
    participation_ratio : numpy.ndarray
        (sum lambda)^2 / sum lambda^2 of the latent covariance (or correlation) eigenvalues: the
        effective number of dimensions the latent vectors use, between 1 and p.
    n_constant : numpy.ndarray of int
        Latent coordinates constant over the samples (dead units), left out of the tests and of the
        total correlation.
    matrices : tuple of IndependenceMatrix
        The pairwise tests of each condition.
    model : str
        The model's class name.
    test, p_adjust : str
        The pairwise test and the multiplicity adjustment.
    alpha : float
        The level of ``significant``.
    n, p : int
        Samples and latent coordinates.

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> from learncore.operators import DeepONet, latent_signature
    >>> x = np.linspace(0, 1, 16)
    >>> a = np.random.default_rng(0).normal(size=(80, 2))
    >>> u = a[:, :1] * np.sin(np.pi * x) + a[:, 1:] * np.sin(2 * np.pi * x)
    >>> ds = SimpleNamespace(dim=1, grid_shape=(16,), grid=x[:, None], inputs=u, targets=0.5 * u + 1,
    ...                      sensor_idx=np.arange(0, 16, 3), train_idx=np.arange(40), test_idx=np.arange(40, 80))
    >>> net = DeepONet.from_dataset(ds, p=4, branch_hidden=(8,), trunk_hidden=(8,))
    >>> sig = latent_signature(net, ds, corruptions={}, B=99, seed=0)
    >>> sig.to_frame()[["condition", "n_pairs"]]
      condition  n_pairs
    0     clean        6
    """

    condition: tuple
    level: np.ndarray
    n_pairs: np.ndarray
    n_dependent: np.ndarray
    share_dependent: np.ndarray
    mean_estimate: np.ndarray
    total_correlation: np.ndarray
    participation_ratio: np.ndarray
    n_constant: np.ndarray
    matrices: tuple
    model: str
    test: str
    p_adjust: str
    alpha: float
    n: int
    p: int

    def to_frame(self) -> pd.DataFrame:
        """One row per condition: ``condition``, ``level``, ``n_pairs``, ``n_dependent``,
        ``share_dependent``, ``mean_estimate``, ``total_correlation``, ``participation_ratio``,
        ``n_constant``."""
        return pd.DataFrame({"condition": list(self.condition), "level": np.asarray(self.level),
                             "n_pairs": np.asarray(self.n_pairs), "n_dependent": np.asarray(self.n_dependent),
                             "share_dependent": np.asarray(self.share_dependent),
                             "mean_estimate": np.asarray(self.mean_estimate),
                             "total_correlation": np.asarray(self.total_correlation),
                             "participation_ratio": np.asarray(self.participation_ratio),
                             "n_constant": np.asarray(self.n_constant)})

    def summary(self) -> str:
        """The signature table."""
        lines = ["", "\tLatent signature: pairwise independence of the latent coordinates", "",
                 f"model: {self.model}; {self.p} latent coordinates, n = {self.n} samples",
                 f"test: {self.test}, p-values adjusted by {self.p_adjust} over the pairs, alpha = {self.alpha:g}", ""]
        return "\n".join(lines) + self.to_frame().to_string(index=False, float_format=lambda v: f"{v:.4g}") + "\n"

    def _repr_parts(self):
        return [("model", self.model), ("p", self.p), ("n", self.n),
                ("share_dependent_clean", float(self.share_dependent[0])), ("conditions", len(self.condition))]

    def _plot(self, ax=None, value: str = "share_dependent"):
        """A bar per condition of ``value`` (a column of :meth:`to_frame`)."""
        import matplotlib.pyplot as plt

        value = check_choice(value, "value", ("share_dependent", "mean_estimate", "total_correlation",
                                              "participation_ratio"))
        if ax is None:
            _, ax = plt.subplots(figsize=(1.2 + 0.8 * len(self.condition), 3.2), layout="constrained")
        vals = self.to_frame()[value].to_numpy()
        ax.bar(range(len(self.condition)), vals, color="tab:blue")
        ax.set_xticks(range(len(self.condition)), list(self.condition), rotation=30, ha="right")
        ax.set_ylabel(value.replace("_", " "))
        ax.set_title(f"{self.model}: latent signature", fontsize=10)
        return ax


def latent_signature(model, ds, *, corruptions=None, level: float = 0.1, test: str = "dcor", p_adjust: str = "BH",
                     alpha: float = 0.05, B: int = 199, seed=None, split: str = "test",
                     participation: str = "covariance", batch_size: int = 256, n_jobs: int = 1,
                     progress=None, **test_args) -> LatentSignature:
    """How dependent the latent coordinates of an operator are, on clean readings and under each
    corruption: pairwise tests with multiplicity control, total correlation, participation ratio.

    For each condition the latent vectors z (n x p) of the split's samples are computed and

    - every pair of non-constant coordinates is tested for independence by
      :func:`statcore.independence_matrix` (``test``, adjusted by ``p_adjust``); the share of pairs
      found dependent at ``alpha`` is the signature's first number;
    - the Gaussian total correlation -1/2 log det R of the correlation matrix R of z;
    - the participation ratio (sum lambda)^2 / sum lambda^2 of the eigenvalues of z's covariance
      (or correlation) matrix.

    Parameters
    ----------
    model : torch.nn.Module
        A trained operator (or :class:`NOIR`).
    ds : OperatorDataset
        The data.
    corruptions : sequence of str, or mapping of str to callable, optional
        As in :func:`evaluate` (default: all five of ``CORRUPTIONS``; an empty sequence or mapping for
        the clean condition only).
    level : float
        The strength of every corruption.
    test : {"dcor", "hsic"}
        The pairwise test of :func:`statcore.independence_matrix` (dcor: a permutation test of distance
        correlation with ``B`` replicates; hsic: the gamma approximation unless
        ``method="permutation"`` is passed).
    p_adjust : str
        The adjustment over the pairs (statcore.p_adjust's methods; "BH" controls the FDR).
    alpha : float
        The level at which a pair counts as dependent.
    B : int
        Permutation replicates.
    seed : None, int or numpy.random.Generator
        The corruption noise (the same stream as :func:`evaluate`'s for the same seed, name and
        level) and the permutations.
    split : {"test", "train", "all"}
        Which samples.
    participation : {"covariance", "correlation"}
        The matrix whose eigenvalues give the participation ratio (covariance: the dimensions the
        latent variance spreads over; correlation: the same after scaling every coordinate to unit
        variance).
    batch_size : int
        Samples per forward pass.
    n_jobs : int
        joblib workers over the pairs (``independence_matrix``'s).
    progress : bool or None
        A progress bar over the pairs of each condition (``independence_matrix``'s; None: only on a
        terminal).
    **test_args
        More arguments of the test (e.g. ``method="t"`` for dcor, ``index=0.5``).

    Returns
    -------
    LatentSignature
        One row per condition in ``to_frame()``; the matrices in ``matrices``.

    References
    ----------
    Szekely, G. J., Rizzo, M. L. & Bakirov, N. K. (2007). Measuring and testing dependence by
    correlation of distances. Annals of Statistics 35, 2769-2794.

    Benjamini, Y. & Hochberg, Y. (1995). Controlling the false discovery rate. JRSS-B 57, 289-300.

    Gao, P., Trautmann, E., Yu, B., Santhanam, G., Ryu, S., Shenoy, K. & Ganguli, S. (2017). A theory
    of multineuronal dimensionality, dynamics and measurement. bioRxiv 214262 (participation ratio).

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> from learncore.operators import FNO, latent_signature
    >>> x = np.linspace(0, 1, 16, endpoint=False)
    >>> a = np.random.default_rng(0).normal(size=(60, 2))
    >>> u = a[:, :1] * np.sin(2 * np.pi * x) + a[:, 1:] * np.cos(2 * np.pi * x)
    >>> ds = SimpleNamespace(dim=1, grid_shape=(16,), grid=x[:, None], inputs=u, targets=u ** 2 + 1,
    ...                      sensor_idx=np.arange(0, 16, 2), train_idx=np.arange(30), test_idx=np.arange(30, 60))
    >>> net = FNO.from_dataset(ds, width=4, modes=4, n_layers=1, projection_hidden=8)
    >>> noise = {"gauss": lambda s, level, *, sensor_coords, seed: s + level * seed.normal(size=s.shape)}
    >>> sig = latent_signature(net, ds, corruptions=noise, level=0.5, test="dcor", method="t")
    >>> sig.condition, sig.p
    (('clean', 'gauss'), 4)
    """
    run, _ = _model_io(model)
    if isinstance(corruptions, (list, tuple)) and len(corruptions) == 0:
        table = {}
    else:
        table = _corruption_table(corruptions)
    level = float(_levels([level])[0])
    test = check_choice(test, "test", ("dcor", "hsic"))
    participation = check_choice(participation, "participation", ("covariance", "correlation"))
    alpha = check_probability(alpha, "alpha", open_right=True)
    B = check_positive_int(B, "B")
    batch_size = check_positive_int(batch_size, "batch_size")
    progress = check_progress(progress)
    rng = check_seed(seed)
    root = spawn_seeds(rng, 1)[0]
    idx, x, y, coords = _split_data(ds, split)
    if idx.size < 4:
        raise ValueError(f"the {split} split has {idx.size} samples; the pairwise tests need at least 4")
    conditions = [("clean", 0.0, x)]
    for kind, fn in table.items():
        xc = np.asarray(fn(x.copy(), level, sensor_coords=coords, seed=_cell_rng(root, kind, level)),
                        dtype=np.float64)
        if xc.shape != x.shape or not np.all(np.isfinite(xc)):
            raise ValueError(f"corruption {kind!r} returned readings of shape {xc.shape} (expected {x.shape}) "
                             "or non-finite values")
        conditions.append((kind, level, xc))
    rows = {k: [] for k in ("n_pairs", "n_dependent", "share", "mean_est", "tc", "pr", "n_const")}
    mats = []
    p = None
    for ci, (name, lev, xc) in enumerate(conditions):
        _, z = run(xc, batch_size)
        p = z.shape[1]
        keep = z.std(axis=0) > 1e-12 * max(float(np.abs(z).max()), 1e-300)
        zk = z[:, keep]
        rows["n_const"].append(int(p - keep.sum()))
        rows["pr"].append(_latent_participation_ratio(z, participation))
        if zk.shape[1] < 2:
            rows["n_pairs"].append(0)
            rows["n_dependent"].append(0)
            rows["share"].append(float("nan"))
            rows["mean_est"].append(float("nan"))
            rows["tc"].append(float("nan"))
            mats.append(None)
            continue
        frame = pd.DataFrame(zk, columns=[f"z{j + 1}" for j in np.flatnonzero(keep)])
        res = independence_matrix(frame, test=test, p_adjust=p_adjust, alpha=alpha, B=B,
                                  seed=_cell_rng(root, "signature:" + name, lev), n_jobs=n_jobs, progress=progress,
                                  **test_args)
        iu = np.triu_indices(zk.shape[1], 1)
        n_pairs = iu[0].size
        n_dep = int(res.significant[iu].sum())
        rows["n_pairs"].append(n_pairs)
        rows["n_dependent"].append(n_dep)
        rows["share"].append(n_dep / n_pairs)
        rows["mean_est"].append(float(np.nanmean(res.estimate[iu])) if np.any(np.isfinite(res.estimate[iu]))
                                else float("nan"))
        rows["tc"].append(_total_correlation(zk))
        mats.append(res)
    return LatentSignature(condition=tuple(c[0] for c in conditions), level=np.array([c[1] for c in conditions]),
                           n_pairs=np.array(rows["n_pairs"]), n_dependent=np.array(rows["n_dependent"]),
                           share_dependent=np.array(rows["share"]), mean_estimate=np.array(rows["mean_est"]),
                           total_correlation=np.array(rows["tc"]), participation_ratio=np.array(rows["pr"]),
                           n_constant=np.array(rows["n_const"]), matrices=tuple(mats),
                           model=type(getattr(model, "model", model)).__name__, test=test,
                           p_adjust=mats[0].p_adjust if mats and mats[0] is not None else str(p_adjust),
                           alpha=alpha, n=int(idx.size), p=int(p))
