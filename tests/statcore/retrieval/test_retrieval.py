"""statcore.retrieval: cmc_map against the torchreid evaluation (reimplemented here from its documented
algorithm as a slow loop) and scikit-learn's average precision; compare_retrieval and the routing
diagnostics against R (live) and scikit-learn."""
import numpy as np
import pytest
from sklearn.metrics import average_precision_score, normalized_mutual_info_score

import statcore as sc
from helpers import r_vector, requires_r, run_r


def reference_eval(dist, q_pids, g_pids, q_camids=None, g_camids=None, *, max_rank=50, exclude=True,
                   ties="stable"):
    """torchreid's eval_market1501, written from its description: for each query sort the gallery by
    distance, remove the entries with the query's id and camera, skip a query without a true match,
    CMC row = cumsum of the matches capped at 1, AP = mean over true matches of precision at their
    positions, INP = (number of matches) / (position of the last one). Ties: "stable" a stable sort
    (torchreid's quicksort leaves them unordered); "optimistic"/"pessimistic" true matches first/last."""
    all_cmc, all_ap, all_inp, per_q = [], [], [], []
    for q in range(dist.shape[0]):
        match = g_pids == q_pids[q]
        if ties == "stable":
            order = np.argsort(dist[q], kind="stable")
        else:
            second = ~match if ties == "optimistic" else match
            order = np.lexsort((np.arange(dist.shape[1]), second, dist[q]))
        remove = np.zeros(dist.shape[1], bool)
        if exclude and q_camids is not None:
            remove = match & (g_camids == q_camids[q])
        keep = ~remove[order]
        raw = match[order][keep].astype(int)
        if not raw.any():
            per_q.append(np.nan)
            continue
        cmc = raw.cumsum()
        cmc[cmc > 1] = 1
        all_cmc.append(cmc[:max_rank])
        num_rel = raw.sum()
        tmp = raw.cumsum()
        last = np.max(np.where(raw == 1))
        all_inp.append(tmp[last] / (last + 1.0))
        tmp = np.asarray([x / (i + 1.0) for i, x in enumerate(tmp)]) * raw
        all_ap.append(tmp.sum() / num_rel)
        per_q.append(all_ap[-1])
    return (np.asarray(all_cmc, float).sum(0) / len(all_ap), float(np.mean(all_ap)), float(np.mean(all_inp)),
            np.asarray(per_q))


def market_toy(rng, nq=40, ng=300, n_ids=30, n_cams=4, dtype=np.float64):
    gid = rng.integers(0, n_ids, ng)
    gcam = rng.integers(0, n_cams, ng)
    qid = rng.integers(0, n_ids + 4, nq)          # a few ids absent from the gallery: skipped
    qcam = rng.integers(0, n_cams, nq)
    dist = rng.random((nq, ng)) + 0.3 * (qid[:, None] != gid[None, :])
    return dist.astype(dtype), qid, gid, qcam, gcam


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_oracle_torchreid_market_protocol(seed):
    dist, qid, gid, qcam, gcam = market_toy(np.random.default_rng(seed))
    res = sc.cmc_map(dist, qid, gid, query_cams=qcam, gallery_cams=gcam, max_rank=20, B=0)
    cmc, m_ap, m_inp, per_q = reference_eval(dist, qid, gid, qcam, gcam, max_rank=20)
    np.testing.assert_allclose(res.cmc, cmc, rtol=0, atol=1e-12)
    assert res.mean_ap == pytest.approx(m_ap, abs=1e-12) and res.mean_inp == pytest.approx(m_inp, abs=1e-12)
    np.testing.assert_allclose(res.ap, per_q, rtol=0, atol=1e-12)   # NaN where skipped, in both
    assert res.n_skipped == int(np.isnan(per_q).sum()) > 0
    assert np.all(res.first_hit[~res.valid] == 0)


def test_oracle_torchreid_without_exclusion_and_many_matches():
    rng = np.random.default_rng(7)
    gid = rng.integers(0, 3, 500)                  # ~170 true matches per query: the stable-sort branch
    qid = rng.integers(0, 3, 25)
    dist = rng.random((25, 500)) + 0.2 * (qid[:, None] != gid[None, :])
    res = sc.cmc_map(dist, qid, gid, max_rank=500, exclude="none", B=0)
    cmc, m_ap, m_inp, per_q = reference_eval(dist, qid, gid, max_rank=500, exclude=False)
    np.testing.assert_allclose(res.cmc, cmc, rtol=0, atol=1e-12)
    np.testing.assert_allclose(res.ap, per_q, rtol=0, atol=1e-12)
    assert res.mean_inp == pytest.approx(m_inp, abs=1e-12)
    # cameras given but exclude="none": nothing is removed
    cams = rng.integers(0, 2, 500)
    same = sc.cmc_map(dist, qid, gid, query_cams=np.zeros(25, int), gallery_cams=cams, exclude="none", B=0)
    assert same.mean_ap == res.mean_ap


def test_oracle_sklearn_average_precision_after_exclusion():
    dist, qid, gid, qcam, gcam = market_toy(np.random.default_rng(11))
    res = sc.cmc_map(dist, qid, gid, query_cams=qcam, gallery_cams=gcam, B=0)
    aps = []
    for q in range(dist.shape[0]):
        keep = ~((gid == qid[q]) & (gcam == qcam[q]))
        y = gid[keep] == qid[q]
        if y.any():
            aps.append(average_precision_score(y, -dist[q, keep]))
    assert res.mean_ap == pytest.approx(np.mean(aps), abs=1e-12)
    np.testing.assert_allclose(res.ap[res.valid], aps, rtol=0, atol=1e-12)


@pytest.mark.parametrize("ties", ["stable", "optimistic", "pessimistic"])
def test_tie_rules_against_brute_force(ties):
    rng = np.random.default_rng(5)
    dist, qid, gid, qcam, gcam = market_toy(rng, nq=30, ng=200)
    dist = np.round(dist * 6) / 6                  # few distinct values: ties everywhere
    res = sc.cmc_map(dist, qid, gid, query_cams=qcam, gallery_cams=gcam, max_rank=30, ties=ties, B=0)
    cmc, m_ap, m_inp, per_q = reference_eval(dist, qid, gid, qcam, gcam, max_rank=30, ties=ties)
    np.testing.assert_allclose(res.cmc, cmc, rtol=0, atol=1e-12)
    np.testing.assert_allclose(res.ap, per_q, rtol=0, atol=1e-12)
    assert res.mean_inp == pytest.approx(m_inp, abs=1e-12)


def test_tie_rules_order_and_constant_rows():
    ids = np.array([0, 1, 0, 1])
    dist = np.zeros((1, 4))                        # everything tied
    ap = {t: sc.cmc_map(dist, [0], ids, ties=t, B=0).mean_ap for t in ("optimistic", "stable", "pessimistic")}
    assert ap["optimistic"] == 1.0 and ap["stable"] == pytest.approx((1 + 2 / 3) / 2)
    assert ap["pessimistic"] == pytest.approx((1 / 3 + 2 / 4) / 2)


def test_float32_is_read_as_float64_of_the_same_values():
    dist, qid, gid, qcam, gcam = market_toy(np.random.default_rng(3), dtype=np.float32)
    a = sc.cmc_map(dist, qid, gid, query_cams=qcam, gallery_cams=gcam, B=0)
    b = sc.cmc_map(dist.astype(np.float64), qid, gid, query_cams=qcam, gallery_cams=gcam, B=0)
    assert a == b


def test_text_labels_and_closed_form():
    # query 0: matches at ranks 2 and 4 -> AP (1/2 + 2/4) / 2, INP 2/4; query 1: ranks 1 and 3 -> AP (1 + 2/3) / 2
    dist = np.array([[0.1, 0.2, 0.3, 0.4, 0.5], [0.5, 0.1, 0.4, 0.3, 0.2]])
    gallery = np.array(["x", "a", "y", "a", "b"])
    res = sc.cmc_map(dist, np.array(["a", "a"]), gallery, max_rank=5, B=0)
    assert res.first_hit.tolist() == [2, 1]
    assert res.ap.tolist() == [0.5, pytest.approx((1 + 2 / 3) / 2, rel=1e-15)]
    assert res.cmc.tolist() == [0.5, 1.0, 1.0, 1.0, 1.0]
    assert res.mean_inp == pytest.approx((0.5 + 2 / 3) / 2, rel=1e-15)
    assert res.rank1_hit.tolist() == [False, True]


def test_bootstrap_intervals_reproducible_and_cover_the_estimate():
    dist, qid, gid, qcam, gcam = market_toy(np.random.default_rng(9), nq=80)
    kw = dict(query_cams=qcam, gallery_cams=gcam, max_rank=10, B=300)
    a = sc.cmc_map(dist, qid, gid, seed=4, **kw)
    assert a == sc.cmc_map(dist, qid, gid, seed=4, **kw)
    assert a != sc.cmc_map(dist, qid, gid, seed=5, **kw)
    assert a.mean_ap_conf[0] < a.mean_ap < a.mean_ap_conf[1]
    assert np.all(np.asarray(a.cmc_conf)[:, 0] <= a.cmc) and np.all(a.cmc <= np.asarray(a.cmc_conf)[:, 1])
    # the percentile interval of the mean AP is the engine's bootstrap of the mean over the queries
    ref = sc.bootstrap((a.ap[a.valid],), np.mean, B=300, seed=4, vectorized=True)
    wide = ref.confidence_interval.high - ref.confidence_interval.low
    assert a.mean_ap_conf[1] - a.mean_ap_conf[0] == pytest.approx(wide, rel=0.3)
    none = sc.cmc_map(dist, qid, gid, query_cams=qcam, gallery_cams=gcam, max_rank=10, B=0)
    assert np.isnan(none.mean_ap_conf[0]) and none.mean_ap == a.mean_ap
    assert sc.cmc_map(dist, qid, gid, max_rank=10 ** 6, B=0).max_rank == dist.shape[1]


@pytest.mark.parametrize("kwargs, match", [
    ({"dist": np.array([[0.1, np.nan]])}, "dist"),
    ({"query_ids": [0, 1]}, "query_ids"),
    ({"gallery_ids": [0]}, "gallery_ids"),
    ({"max_rank": 0}, "max_rank"),
    ({"query_cams": [0]}, "gallery_cams"),
    ({"exclude": "junk"}, "exclude"),
    ({"ties": "random"}, "ties"),
    ({"query_ids": [5]}, "query_ids"),               # no true match anywhere
])
def test_bad_input_names_the_argument(kwargs, match):
    good = {"dist": np.array([[0.1, 0.2]]), "query_ids": [0], "gallery_ids": [0, 1]}
    with pytest.raises(ValueError, match=match):
        sc.cmc_map(**{**good, **kwargs})


def test_compare_retrieval_mcnemar_and_wilcoxon_pieces():
    rng = np.random.default_rng(12)
    dist, qid, gid, qcam, gcam = market_toy(rng, nq=80)
    kw = dict(query_cams=qcam, gallery_cams=gcam, max_rank=10, B=0)
    a = sc.cmc_map(dist, qid, gid, **kw)
    b = sc.cmc_map(dist + 0.3 * rng.random(dist.shape), qid, gid, **kw)
    res = sc.compare_retrieval(a, b)
    hit_a, hit_b = a.rank1_hit[a.valid], b.rank1_hit[b.valid]
    ref = sc.mcnemar_test(hit_a.astype(int), hit_b.astype(int))
    assert res.mcnemar.statistic == ref.statistic and res.mcnemar.p_value == ref.p_value
    assert res.n == a.n_valid and res.mean_ap_diff == pytest.approx(a.mean_ap - b.mean_ap, abs=1e-15)
    same = sc.compare_retrieval(a, a)
    assert same.wilcoxon is None and same.mcnemar is None and "not run" in same.summary()
    with pytest.raises(TypeError, match="b"):
        sc.compare_retrieval(a, 3)


@requires_r
def test_live_r_wilcoxon_paired():
    rng = np.random.default_rng(2026)
    cases = [(rng.random(30), rng.random(30)),                        # exact (n < 50, no ties)
             (np.round(rng.random(120), 1), np.round(rng.random(120), 1))]   # ties and zeros: normal approx
    code = "".join(f"r <- suppressWarnings(wilcox.test({r_vector(x)}, {r_vector(y)}, paired = TRUE)); "
                   "cat(sprintf('%.17g %.17g\\n', r$statistic, r$p.value))\n" for x, y in cases)
    out = run_r(code).strip().splitlines()
    from statcore.retrieval._compare import _wilcoxon_paired

    for (x, y), line in zip(cases, out):
        V, p = map(float, line.split())
        t = _wilcoxon_paired(x, y)
        assert t.statistic == pytest.approx(V, rel=1e-12) and t.p_value == pytest.approx(p, rel=1e-10)


def test_expert_usage_closed_forms():
    u = sc.expert_usage([0, 1, 2, 3], n_experts=4)
    assert u.entropy == pytest.approx(np.log(4), rel=1e-15) and u.perplexity == pytest.approx(4.0)
    assert u.gini == 0.0
    one = sc.expert_usage([2, 2, 2], n_experts=4)
    assert one.entropy == 0.0 and one.perplexity == 1.0 and one.gini == pytest.approx(3 / 4)
    p = np.random.default_rng(1).dirichlet(np.ones(6), size=50)
    res = sc.expert_usage(p)
    share = p.sum(0) / p.sum()
    np.testing.assert_allclose(res.usage, share, rtol=1e-14)
    gini = np.abs(share[:, None] - share[None, :]).sum() / (2 * 6)
    assert res.gini == pytest.approx(gini, rel=1e-12)
    assert res.entropy == pytest.approx(-np.sum(share * np.log(share)), rel=1e-14)
    for bad, match in (([0, 5], "n_experts"), ([0, -1], "assignments"), ([0.5, 1], "assignments")):
        with pytest.raises(ValueError, match=match):
            sc.expert_usage(bad, n_experts=3)


@requires_r
def test_live_r_chisq_test():
    rng = np.random.default_rng(36)
    e3 = rng.integers(0, 4, 400)
    d3 = np.where(rng.random(400) < 0.3, e3 % 3, rng.integers(0, 3, 400))
    e2 = rng.integers(0, 2, 80)
    d2 = np.where(rng.random(80) < 0.3, e2, rng.integers(0, 2, 80))
    code = "".join(f"r <- chisq.test(table({r_vector(e)}, {r_vector(d)})); "
                   "cat(sprintf('%.17g %.17g %.17g\\n', r$statistic, r$parameter, r$p.value))\n"
                   for e, d in ((e3, d3), (e2, d2)))
    out = run_r(code).strip().splitlines()
    for (e, d), line in zip(((e3, d3), (e2, d2)), out):
        stat, df, p = map(float, line.split())
        res = sc.expert_domain_table(e, d)
        assert res.test.statistic == pytest.approx(stat, rel=1e-10)
        assert res.test.parameter["df"] == df and res.test.p_value == pytest.approx(p, rel=1e-10)


@pytest.mark.parametrize("average_method", ["arithmetic", "geometric", "min", "max"])
def test_nmi_against_sklearn(average_method):
    rng = np.random.default_rng(4)
    e = rng.integers(0, 5, 300)
    d = np.where(rng.random(300) < 0.5, e % 3, rng.integers(0, 3, 300)).astype(str)
    res = sc.expert_domain_table(e, d, average_method=average_method)
    ref = normalized_mutual_info_score(d, e, average_method=average_method)
    assert res.nmi == pytest.approx(ref, abs=1e-12)
    assert res.table.to_numpy().sum() == 300 and list(res.table.columns) == ["0", "1", "2"]


def test_scale_free_down_to_subnormal_spreads():
    dist, qid, gid, qcam, gcam = market_toy(np.random.default_rng(21))
    ref = sc.cmc_map(dist, qid, gid, query_cams=qcam, gallery_cams=gcam, B=0)
    tiny = sc.cmc_map(dist * 1e-300, qid, gid, query_cams=qcam, gallery_cams=gcam, B=0)
    np.testing.assert_allclose(tiny.ap, ref.ap, rtol=0, atol=1e-15)
    # true distances 5e-324 apart (the grid's scale overflows): the exact search takes over
    sub = np.array([[0.0, 5e-324, 1e-323, 1.0]])
    res = sc.cmc_map(sub, [1], [1, 0, 1, 0], B=0)
    assert res.first_hit.tolist() == [1] and res.ap[0] == pytest.approx((1 + 2 / 3) / 2, rel=1e-15)
