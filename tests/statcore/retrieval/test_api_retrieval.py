"""The API checks of statcore.retrieval: the bad-input sweep of every public function and the result
protocol of its result classes (see tests/apicheck.py)."""
import numpy as np
import pytest

from apicheck import Spec, check_result_protocol, sweep_bad_inputs
from statcore.retrieval import cmc_map, compare_retrieval, expert_domain_table, expert_usage

_rng = np.random.default_rng(36)
GID = np.repeat(np.arange(6), 4)
GCAM = np.tile(np.arange(4), 6)
QID = np.arange(6)
QCAM = np.zeros(6, dtype=np.int64)
DIST = _rng.random((6, 24)) + 0.5 * (QID[:, None] != GID[None, :])
DIST2 = DIST + 0.4 * _rng.random((6, 24))
EXPERTS = _rng.integers(0, 3, 150)
DOMAINS = np.where(_rng.random(150) < 0.5, EXPERTS, _rng.integers(0, 3, 150))
PROBS = _rng.dirichlet(np.ones(4), size=20)

#: labels stay labels (text, numbers written as text, -1, 10**9): documented to succeed
_LABEL_OK = {"text", "numeric_text", "negative_id", "huge_id"}


def _ok(*args):
    return {(a, k) for a in args for k in _LABEL_OK}


def _res(dist):
    return cmc_map(dist, QID, GID, query_cams=QCAM, gallery_cams=GCAM, max_rank=5, B=0)


BAD_INPUT_SPECS = {
    "cmc_map": Spec(cmc_map, {"dist": DIST, "query_ids": QID, "gallery_ids": GID, "query_cams": QCAM,
                              "gallery_cams": GCAM, "max_rank": 5, "B": 20, "seed": 1},
                    data=("dist", "query_ids", "gallery_ids"), ok=_ok("query_ids", "gallery_ids")),
    "cmc_map[cams]": Spec(cmc_map, {"dist": DIST, "query_ids": QID, "gallery_ids": GID, "query_cams": QCAM,
                                    "gallery_cams": GCAM, "max_rank": 5, "B": 0},
                          data=("query_cams", "gallery_cams"), ok=_ok("query_cams", "gallery_cams")),
    "compare_retrieval": Spec(compare_retrieval, {"a": _res(DIST), "b": _res(DIST2)}, data=("a", "b")),
    "expert_usage": Spec(expert_usage, {"assignments": EXPERTS, "n_experts": 3}, data=("assignments",),
                         paired=False),
    "expert_usage[probabilities]": Spec(expert_usage, {"assignments": PROBS}, data=("assignments",),
                                        paired=False),
    "expert_domain_table": Spec(expert_domain_table, {"experts": EXPERTS, "domains": DOMAINS},
                                data=("experts", "domains"), ok=_ok("experts", "domains")),
}

RESULT_EXAMPLES = {
    "CMCMap": lambda: cmc_map(DIST, QID, GID, query_cams=QCAM, gallery_cams=GCAM, max_rank=5, B=50, seed=1),
    "RetrievalComparison": lambda: compare_retrieval(_res(DIST), _res(DIST2)),
    "ExpertUsage": lambda: expert_usage(EXPERTS, n_experts=4),
    "ExpertDomainTable": lambda: expert_domain_table(EXPERTS, DOMAINS),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUT_SPECS))
def test_bad_input_sweep(name):
    assert sweep_bad_inputs(BAD_INPUT_SPECS[name]) == []


@pytest.mark.parametrize("name", sorted(RESULT_EXAMPLES))
def test_result_protocol(name):
    check_result_protocol(RESULT_EXAMPLES[name]())


@pytest.mark.parametrize("arg, value, exc", [("max_rank", 0, ValueError), ("max_rank", 2.5, TypeError),
                                             ("B", -1, ValueError), ("conf_level", 1.5, ValueError),
                                             ("exclude", "junk", ValueError), ("ties", "random", ValueError)])
def test_option_errors_name_the_argument(arg, value, exc):
    with pytest.raises(exc, match=arg):
        cmc_map(DIST, QID, GID, **{arg: value})


@pytest.mark.parametrize("arg, value, exc", [("correct", 1.5, TypeError), ("average_method", "sum", ValueError)])
def test_table_option_errors_name_the_argument(arg, value, exc):
    with pytest.raises(exc, match=arg):
        expert_domain_table(EXPERTS, DOMAINS, **{arg: value})
