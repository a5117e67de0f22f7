"""Bootstrap replicates of ROC areas without re-sorting: a replicate resamples observations, and
its curve is a function of the resampled counts per distinct score of the original sort (the group
of an observation does not change when it is drawn again). Replicates are computed in blocks, one
``bincount`` per block."""
from __future__ import annotations

import numpy as np

from ._curve import _curve_from_counts, _mcclish, _partial_area

__all__ = ["boot_areas", "sensitivity_band"]


def _draw(rng, case_idx, ctrl_idx, n_total, stratified, k):
    """Row indices (k x n_total) of k bootstrap samples."""
    if stratified:
        a = case_idx[rng.integers(0, case_idx.size, size=(k, case_idx.size))]
        b = ctrl_idx[rng.integers(0, ctrl_idx.size, size=(k, ctrl_idx.size))]
        return np.concatenate([a, b], axis=1)
    return rng.integers(0, n_total, size=(k, n_total))


def _counts(group, is_case, rows, n_groups):
    """Per-replicate counts of cases and controls per group, as (k, G) float matrices."""
    k = rows.shape[0]
    g = group[rows] + (np.arange(k) * n_groups)[:, None]
    case = is_case[rows]
    total = np.bincount(g.ravel(), minlength=k * n_groups).reshape(k, n_groups)
    c = np.bincount(g.ravel(), weights=case.ravel(), minlength=k * n_groups).reshape(k, n_groups)
    return c, total - c


def _areas_from_counts(c, d, bounds, focus, correct):
    """The full or partial area of each row's curve (the McClish correction is applied without
    pROC's NaN below the diagonal, so that the bootstrap is not biased against low areas: pROC's
    ``allow.invalid.partial.auc.correct``)."""
    if bounds is not None and correct:
        return _mcclish(c, d, bounds, focus)[0]
    with np.errstate(invalid="ignore", divide="ignore"):
        se, sp = _curve_from_counts(c, d)
        if bounds is None:
            return np.sum((sp[:, 1:] - sp[:, :-1]) * (se[:, 1:] + se[:, :-1]) / 2, axis=1)
        return _partial_area(se, sp, bounds, focus)


class _Draw:
    def __init__(self, case_idx, ctrl_idx, n_total, stratified):
        self.case_idx, self.ctrl_idx, self.n_total, self.stratified = case_idx, ctrl_idx, n_total, stratified

    def __call__(self, rng, k):
        return _draw(rng, self.case_idx, self.ctrl_idx, self.n_total, self.stratified, k)


class _Areas:
    def __init__(self, rocs, is_case):
        self.curves = [(np.asarray(r.group), np.asarray(r.group_cases).size, r.partial_auc, r.partial_auc_focus,
                        r.partial_auc_correct) for r in rocs]
        self.is_case = is_case

    def __call__(self, rows):
        out = np.empty((rows.shape[0], len(self.curves)))
        for j, (group, n_groups, bounds, focus, correct) in enumerate(self.curves):
            c, d = _counts(group, self.is_case, rows, n_groups)
            out[:, j] = _areas_from_counts(c, d, bounds, focus, correct)
        return out


def boot_areas(rocs, rng, B, *, stratified=True, paired=True, n_jobs=1, progress=False):
    """B bootstrap replicates of the area (as each curve specifies it) of one curve or of curves on
    the same observations (``paired``: the same rows are drawn for all); returns a (B, k) array.
    A replicate without a case or a control (possible when not ``stratified``) is NaN. The rows are
    drawn in order from ``rng`` in the resampling engine's chunks (``statcore._resampling.run_stream``)
    and the chunks computed on ``n_jobs`` workers; the answer does not depend on ``n_jobs``."""
    from .._resampling import run_stream

    r0 = rocs[0]
    is_case = np.asarray(r0.is_case)
    case_idx = np.flatnonzero(is_case)
    ctrl_idx = np.flatnonzero(~is_case)
    n_total = is_case.size
    widest = max([n_total] + [np.asarray(r.group_cases).size for r in rocs])
    parts = run_stream(_Draw(case_idx, ctrl_idx, n_total, stratified), _Areas(rocs, is_case), B, rng=rng,
                       bytes_per_resample=8.0 * widest, n_jobs=n_jobs, progress=progress, desc="bootstrap")
    return np.concatenate(parts, axis=0) if parts else np.empty((0, len(rocs)))


class _SensitivityAt:
    """Each replicate's sensitivity at the specificities of a grid (the upper end of the curve where it
    is vertical): (size, grid)."""

    def __init__(self, r, sp_grid):
        self.is_case = np.asarray(r.is_case)
        self.group = np.asarray(r.group)
        self.n_groups = np.asarray(r.group_cases).size
        self.sp_grid = sp_grid

    def __call__(self, rows):
        c, d = _counts(self.group, self.is_case, rows, self.n_groups)
        se, sp = _curve_from_counts(c, d)
        sp_grid = self.sp_grid
        out = np.empty((rows.shape[0], sp_grid.size))
        for i in range(rows.shape[0]):
            # sp ascends (with repeats on vertical steps); the right-most index at each grid value
            # gives the highest sensitivity there
            j = np.searchsorted(sp[i], sp_grid, side="left")
            j = np.clip(j, 0, sp.shape[1] - 1)
            x0 = sp[i][np.maximum(j - 1, 0)]
            x1 = sp[i][j]
            y0 = se[i][np.maximum(j - 1, 0)]
            y1 = se[i][j]
            w = np.where(x1 > x0, (sp_grid - x0) / np.where(x1 > x0, x1 - x0, 1.0), 1.0)
            out[i] = np.where(j == 0, se[i][0], y0 + w * (y1 - y0))
        return out


def sensitivity_band(r, *, conf_level=0.95, B=200, seed=0, grid=101, n_jobs=1, progress=None):
    """A stratified-bootstrap band of the sensitivity at each specificity of a grid (pROC's
    ``ci.se``): the percentile interval of the replicates' sensitivity at each grid point (the upper
    end of the curve where it is vertical). The rows are drawn in order from the seed's Generator in
    the resampling engine's chunks (``statcore._resampling.run_stream``) and the chunks computed on
    ``n_jobs`` workers; the band does not depend on ``n_jobs``."""
    from .._checks import check_n_jobs, check_positive_int, check_probability, check_progress, check_seed
    from .._resampling import run_stream

    conf_level = check_probability(conf_level, "conf_level", open_left=True, open_right=True)
    B = check_positive_int(B, "B", minimum=2)
    rng = check_seed(seed)
    n_jobs, progress = check_n_jobs(n_jobs), check_progress(progress)
    is_case = np.asarray(r.is_case)
    case_idx = np.flatnonzero(is_case)
    ctrl_idx = np.flatnonzero(~is_case)
    G = np.asarray(r.group_cases).size
    sp_grid = np.linspace(0, 1, grid)
    parts = run_stream(_Draw(case_idx, ctrl_idx, is_case.size, True), _SensitivityAt(r, sp_grid), B, rng=rng,
                       bytes_per_resample=8.0 * max(G, is_case.size), n_jobs=n_jobs, progress=progress,
                       desc="bootstrap", unit="replicate")
    se_at = np.concatenate(parts, axis=0)
    alpha = 1 - conf_level
    lo, hi = np.quantile(se_at, [alpha / 2, 1 - alpha / 2], axis=0)
    return sp_grid, lo, hi
