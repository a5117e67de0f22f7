"""The re-identification-like study's harness (benchmarks/_moe_study.py) in its two-identity,
three-step design: the views, the protocol (queries matched across cameras only), the evaluation
through statcore.retrieval and the routing statistics. Budget: a few seconds."""
import sys
from pathlib import Path

import numpy as np
import pytest

from helpers import require_torch

torch = require_torch()
torch.set_num_threads(1)

import statcore  # noqa: E402

if not hasattr(statcore, "cmc_map"):  # pragma: no cover (statcore.retrieval lands with h/retrieval)
    pytest.skip("statcore.retrieval (cmc_map, compare_retrieval, expert_usage) is not in this tree",
                allow_module_level=True)

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
import _moe_study as study  # noqa: E402


def test_views_follow_the_design():
    d = study.QUICK
    views = study.make_views(d)
    # 2 identities x 4 cameras x (2 train + 1 query + 1 gallery), the shared split
    assert len(views) == 2 * 4 * (d.train_views + d.test_views)
    assert views.groupby(["identity", "camera", "role"]).size().to_dict() == {
        (i, c, r): n for i in range(2) for c in range(4) for r, n in (("gallery", 1), ("query", 1), ("train", 2))}
    imgs = np.stack(views["image"].to_numpy())
    assert imgs.shape[1:] == (96, 96, 3) and imgs.min() >= 0.0 and imgs.max() <= 1.0
    assert len(set(study.identity_windows(12))) == 12                                     # distinct windows
    assert [w[0] for w in study.identity_windows(5)] == list(study.PHOTOS)                # round-robin
    disjoint = study.make_views(study.replace(d, n_identities=4, split="disjoint"))
    train_ids = set(disjoint.loc[disjoint.role == "train", "identity"])
    assert train_ids == {0, 2} and set(disjoint.loc[disjoint.role == "query", "identity"]) == {1, 3}


@pytest.mark.filterwarnings("ignore:Chi-squared approximation")   # 2 identities: expected counts below 5
def test_quick_study_runs_and_reports():
    out = study.run(study.QUICK)
    m = out["metrics"]
    assert list(m["arm"]) == list(study.QUICK.arms)
    assert (m["n_queries"] == 8).all()                         # one query per (identity, camera)
    assert ((m["mean_ap"] >= m["mean_ap_low"]) & (m["mean_ap"] <= m["mean_ap_high"])).all()
    assert m["mean_ap"].between(0, 1).all() and m["rank1"].between(0, 1).all()
    assert m["train_fit_mean_ap"].between(0, 1).all()
    assert set(out["comparisons"]["b"]) == {"frozen", "dense"}
    r = out["routing"]
    assert list(r["arm"]) == ["hyp_div"]
    assert 1.0 <= float(r["usage_perplexity"].iloc[0]) <= study.QUICK.n_experts
    assert -1.0 <= float(r["prototype_max_cos"].iloc[0]) <= 1.0


def test_training_is_seeded():
    d = study.QUICK
    tokens = torch.randn(8, 4, 1280, generator=torch.Generator().manual_seed(0))
    labels = np.repeat([0, 1], 4)
    a, _ = study.train_arm("hyp_div", tokens, labels, d, seed=3)
    b, _ = study.train_arm("hyp_div", tokens, labels, d, seed=3)
    with torch.no_grad():
        assert torch.equal(a(tokens), b(tokens))
