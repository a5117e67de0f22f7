"""Time statcore.conformal against MAPIE and crepes in one run, on the same precomputed predictions.

    python benchmarks/bench_conformal.py            # n_cal = n_test = 1e5; 10 classes
    python benchmarks/bench_conformal.py --quick    # 1e4, for a smoke run

Prints median wall times (several runs after a warm-up) and the ratio peer / statcore. MAPIE is fed
the predictions through prefit estimators that return a column of X (its documented prefit route),
so its time includes its own validation of the estimator and data; crepes takes residuals (or
nonconformity scores) directly; its class sets compare every test score with every calibration score
(its p-values), so they are timed on 1e4 points. Each timing covers calibration and prediction
together. The last column says whether both gave the same intervals or sets (the share of equal
cells when not: MAPIE's APS randomises its calibration scores; crepes' rank is one higher in the
Mondrian groups where (n_g + 1) alpha is an integer).
"""
from __future__ import annotations

import argparse
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin

from statcore import conformal_classes, conformal_cqr, conformal_interval
from _timing import median_time


class ColumnRegressor(RegressorMixin, BaseEstimator):
    def __init__(self, j=0):
        self.j = j

    def fit(self, X, y=None):
        self.n_features_in_ = np.asarray(X).shape[1]
        self.fitted_ = True
        return self

    def predict(self, X):
        return np.asarray(X)[:, self.j]


class ProbaClassifier(ClassifierMixin, BaseEstimator):
    def fit(self, X, y=None):
        self.n_features_in_ = np.asarray(X).shape[1]
        self.classes_ = np.arange(self.n_features_in_)
        return self

    def predict_proba(self, X):
        return np.asarray(X)

    def predict(self, X):
        return np.argmax(np.asarray(X), axis=1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    n = 10 ** 4 if args.quick else 10 ** 5
    reps = 3 if args.quick else 7
    K, alpha = 10, 0.1
    rng = np.random.default_rng(1)
    from crepes import ConformalClassifier, ConformalRegressor
    from mapie.classification import SplitConformalClassifier
    from mapie.conformity_scores import ResidualNormalisedScore
    from mapie.regression import ConformalizedQuantileRegressor, SplitConformalRegressor

    xc, xt = rng.uniform(0.5, 2, n), rng.uniform(0.5, 2, n)
    pc, pt = np.sin(3 * xc), np.sin(3 * xt)
    yc = pc + xc * rng.normal(size=n)
    gc, gt = np.digitize(xc, [0.8, 1.1, 1.4, 1.7]), np.digitize(xt, [0.8, 1.1, 1.4, 1.7])
    logits = rng.normal(size=(2 * n, K)) * 1.5
    probs = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    labels = (rng.random(2 * n)[:, None] > np.cumsum(probs, axis=1)).sum(axis=1).clip(0, K - 1)
    prc, prt, lc = probs[:n], probs[n:], labels[:n]

    def mapie_abs():
        est = ColumnRegressor(0).fit(pc[:, None])
        mp = SplitConformalRegressor(est, confidence_level=1 - alpha, prefit=True)
        return mp.conformalize(pc[:, None], yc).predict_interval(pt[:, None])[1][:, :, 0]

    def mapie_norm():
        Xc, Xt = np.column_stack([pc, xc]), np.column_stack([pt, xt])
        score = ResidualNormalisedScore(residual_estimator=ColumnRegressor(1).fit(Xc), prefit=True)
        mp = SplitConformalRegressor(ColumnRegressor(0).fit(Xc), confidence_level=1 - alpha, conformity_score=score,
                                     prefit=True)
        return mp.conformalize(Xc, yc).predict_interval(Xt)[1][:, :, 0]

    def mapie_cqr():
        Xc = np.column_stack([pc - xc, pc + xc, pc])
        Xt = np.column_stack([pt - xt, pt + xt, pt])
        mp = ConformalizedQuantileRegressor([ColumnRegressor(j).fit(Xc) for j in range(3)],
                                            confidence_level=1 - alpha, prefit=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return mp.conformalize(Xc, yc).predict_interval(Xt, symmetric_correction=True)[1][:, :, 0]

    def mapie_classes(score):
        mp = SplitConformalClassifier(ProbaClassifier().fit(prc), confidence_level=1 - alpha,
                                      conformity_score=score, prefit=True, random_state=0)
        return mp.conformalize(prc, lc).predict_set(prt)[1][:, :, 0]

    def crepes_int(sigmas=None, bins=None):
        cr = ConformalRegressor().fit(yc - pc, sigmas=None if sigmas is None else sigmas[0],
                                      bins=None if bins is None else bins[0])
        return cr.predict_int(pt, sigmas=None if sigmas is None else sigmas[1],
                              bins=None if bins is None else bins[1], confidence=1 - alpha)

    m = min(n, 10 ** 4)   # crepes' class sets compare every test score with every calibration score

    def crepes_lac():
        cc = ConformalClassifier().fit(1 - prc[np.arange(m), lc[:m]])
        return cc.predict_set(1 - prt[:m], confidence=1 - alpha, smoothing=False) == 1

    def both(res):
        return np.column_stack([res.pred_low, res.pred_high])

    cases = [
        ("intervals, absolute",
         lambda: both(conformal_interval(yc, pc, pt, alpha=alpha)), {"MAPIE": mapie_abs, "crepes": crepes_int}),
        ("intervals, normalised",
         lambda: both(conformal_interval(yc, pc, pt, alpha=alpha, score="normalized", scale_cal=xc, scale_test=xt)),
         {"MAPIE": mapie_norm, "crepes": lambda: crepes_int(sigmas=(xc, xt))}),
        ("intervals, Mondrian (5 groups)",
         lambda: both(conformal_interval(yc, pc, pt, alpha=alpha, groups_cal=gc, groups_test=gt)),
         {"crepes": lambda: crepes_int(bins=(gc, gt))}),
        ("intervals, CQR",
         lambda: both(conformal_cqr(yc, pc - xc, pc + xc, pt - xt, pt + xt, alpha=alpha)), {"MAPIE": mapie_cqr}),
        (f"class sets, LAC ({K} classes)",
         lambda: conformal_classes(prc, lc, prt, alpha=alpha).sets, {"MAPIE": lambda: mapie_classes("lac")}),
        (f"class sets, LAC, n = {m}",
         lambda: conformal_classes(prc[:m], lc[:m], prt[:m], alpha=alpha).sets, {"crepes": crepes_lac}),
        (f"class sets, APS ({K} classes)",
         lambda: conformal_classes(prc, lc, prt, alpha=alpha, score="aps").sets,
         {"MAPIE": lambda: mapie_classes("aps")}),
    ]
    print(f"n_cal = n_test = {n}, alpha = {alpha}; median of {reps} runs (seconds); ratio = peer / statcore")
    print(f"{'task':34s} {'statcore':>9s} {'peer':>8s} {'peer s':>9s} {'ratio':>7s}  same answer")
    for task, ours, peers in cases:
        t_ours, out = median_time(ours, reps, with_output=True)
        for name, fn in peers.items():
            t_peer, ref = median_time(fn, reps, with_output=True)
            # not "yes": APS (MAPIE randomises its calibration scores: another q) and crepes' Mondrian
            # groups where (n_g + 1) alpha is an integer (its float rank is one higher there)
            equal = (out == ref) if out.dtype == bool else np.isclose(out, ref, rtol=0, atol=1e-12)
            same = "yes" if equal.all() else f"{equal.mean():.4f} of cells"
            print(f"{task:34s} {t_ours:9.4f} {name:>8s} {t_peer:9.4f} {t_peer / t_ours:7.1f}  {same}")


if __name__ == "__main__":
    main()
