"""learncore.slim's slimming curve and slimmable fine-tuning on the shipped ArithTransformer
(held-out sums, a few widths, a few dozen sandwich steps: seconds on one thread)."""
import sys
from pathlib import Path

import numpy as np
import pytest

from helpers import require_torch

torch = require_torch()
torch.set_num_threads(1)

from learncore.llm_uncertainty import load_arith_model  # noqa: E402
from learncore.slim import SlimmableFit, SlimmingCurve, slim_width, slimmable_finetune, slimming_curve  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
import _slim_study as study  # noqa: E402


@pytest.fixture(scope="module")
def arith():
    return load_arith_model()


@pytest.fixture(scope="module")
def evaluate():
    return study.arith_evaluator(100)


@pytest.fixture(scope="module")
def curve(arith, evaluate):
    return slimming_curve(arith, [0.5, 1.0, 0.875], evaluate)


def test_curve_columns_and_reference(curve, arith):
    assert isinstance(curve, SlimmingCurve)
    frame = curve.to_frame()
    assert frame["width"].tolist() == [1.0, 0.875, 0.5]
    assert frame["relative_score"].iloc[0] == 1.0 and frame["cka"].iloc[0] == pytest.approx(1.0)
    assert curve.full_params == arith.n_params() == frame["params"].iloc[0]
    for s, n in zip(frame["width"], frame["params"]):
        assert n == sum(p.numel() for p in slim_width(arith, s).parameters())
    assert np.all(np.diff(frame["flops"]) < 0)
    assert np.all(np.isfinite(frame[["participation_ratio", "effective_rank", "twonn_dimension"]]))
    # the shipped model is not redundant: held-out accuracy falls well below the full model's at s = 0.875
    assert frame["relative_score"].iloc[1] < 0.9
    assert frame["relative_score"].iloc[2] < frame["relative_score"].iloc[1]
    assert frame["cka"].iloc[2] < frame["cka"].iloc[1] < 1.0
    assert "Slimming curve of ArithTransformer" in curve.summary()
    ax = curve.plot(x="params")
    assert len(ax.lines) == 2


def test_curve_without_features(arith):
    x = torch.randint(0, 12, (16, 8), generator=torch.Generator().manual_seed(0))
    ref = arith(x).logits.argmax(-1)
    c = slimming_curve(arith, [1.0, 0.5], lambda net: (net(x).logits.argmax(-1) == ref).double().mean())
    assert c.score[0] == 1.0 and np.isnan(c.cka).all() and np.isnan(c.participation_ratio).all()


@pytest.mark.parametrize("kwargs, err, what", [
    (dict(widths=[]), ValueError, "widths"),
    (dict(widths=[0.5, 0.5]), ValueError, "widths"),
    (dict(widths=[0.5, 1.2]), ValueError, r"widths\[1\]"),
    (dict(widths="0.5"), TypeError, "widths"),
    (dict(evaluate=3), TypeError, "evaluate"),
    (dict(evaluate=lambda net: float("nan")), ValueError, "evaluate"),
    (dict(evaluate=lambda net: "good"), TypeError, "evaluate"),
    (dict(evaluate=lambda net: (1.0, np.ones(3))), ValueError, "features"),
    (dict(seq_len=0), ValueError, "seq_len"),
])
def test_curve_bad_input(arith, kwargs, err, what):
    call = dict(widths=[1.0, 0.5], evaluate=lambda net: 1.0)
    call.update(kwargs)
    with pytest.raises(err, match=what):
        slimming_curve(arith, **call)


@pytest.fixture(scope="module")
def fit(arith):
    return slimmable_finetune(arith, [1.0, 0.5], study.arith_data(16), loss=study.arith_loss, steps=40, lr=1e-3,
                              n_random=1, seed=0)


def test_sandwich_rule_and_learned_arm_beats_post_hoc(fit, arith, evaluate):
    assert isinstance(fit, SlimmableFit)
    frame = fit.to_frame()
    assert len(frame) == 40 * 3
    assert (frame.groupby("step")["role"].apply(tuple) == ("largest", "smallest", "random")).all()
    assert (frame.loc[frame["role"] == "largest", "width"] == 1.0).all()
    assert (frame.loc[frame["role"] == "smallest", "width"] == 0.5).all()
    rand = frame.loc[frame["role"] == "random", "width"]
    assert rand.between(0.5, 1.0).all() and rand.nunique() == 40
    means = fit._window_means()
    assert means.loc["smallest", "last_steps"] < means.loc["smallest", "first_steps"]
    # the learned slimmable arm against post-hoc slimming of the same weights, at half width
    post, learned = evaluate(slim_width(arith, 0.5))[0], evaluate(slim_width(fit.model, 0.5))[0]
    assert learned > post
    assert "sandwich" in fit.summary()
    assert fit.plot().get_ylabel() == "training loss"


def test_finetune_leaves_the_original_and_is_seeded(fit, arith):
    again = load_arith_model()
    assert all(torch.equal(a, b) for a, b in zip(arith.state_dict().values(), again.state_dict().values()))
    refit = slimmable_finetune(arith, [1.0, 0.5], study.arith_data(16), loss=study.arith_loss, steps=3, lr=1e-3,
                               n_random=1, seed=0)
    assert np.array_equal(refit.loss, fit.loss[:9])


def test_one_width_trains_only_its_units(arith):
    # the shared weights outside the kept rows and columns get zero gradients: AdamW leaves them exactly
    fit = slimmable_finetune(arith, [0.5], study.arith_data(8), loss=study.arith_loss, steps=2, n_random=0, seed=1)
    w0, w1 = arith.blocks[1].fc.weight, fit.model.blocks[1].fc.weight
    assert torch.equal(w0[128:], w1[128:]) and not torch.equal(w0[:128], w1[:128])
    q0, q1 = arith.blocks[0].qkv.weight, fit.model.blocks[0].qkv.weight
    assert torch.equal(q0[8:16], q1[8:16]) and not torch.equal(q0[:8], q1[:8])


@pytest.mark.parametrize("kwargs, err, what", [
    (dict(loss=None), TypeError, "loss"),
    (dict(steps=0), ValueError, "steps"),
    (dict(lr=-1.0), ValueError, "lr"),
    (dict(n_random=-1), ValueError, "n_random"),
    (dict(data=3), TypeError, "data"),
    (dict(data=[]), ValueError, "data"),
    (dict(loss=lambda net, b: torch.tensor(float("nan"))), ValueError, "loss"),
    (dict(loss=lambda net, b: 1.0), TypeError, "loss"),
    (dict(widths=[0.0]), ValueError, "widths"),
    (dict(seed=-1), ValueError, "seed"),
])
def test_finetune_bad_input(arith, kwargs, err, what):
    call = dict(widths=[1.0, 0.5], data=study.arith_data(4), loss=study.arith_loss, steps=1)
    call.update(kwargs)
    with pytest.raises(err, match=what):
        slimmable_finetune(arith, **call)


def test_finetune_refuses_batch_norm():
    from learncore.features import MobileNetV2

    with pytest.raises(TypeError, match="batch norm"):
        slimmable_finetune(MobileNetV2(weights=None, seed=0), [1.0, 0.5], [0], loss=lambda n, b: 0, steps=1)
