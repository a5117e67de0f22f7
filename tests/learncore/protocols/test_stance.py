"""stance_scores against a brute-force log-softmax on a tiny randomly initialised GPT-2 (built from a
config, no download) and on the shipped addition transformer; batching and padding leave the answer
unchanged; stance_shifts' means and standard errors by hand and its hand-off to statcore."""
import numpy as np
import pytest

from helpers import require_torch

torch = require_torch()
transformers = pytest.importorskip("transformers")

import statcore as sc  # noqa: E402
from learncore.llm_uncertainty import CharTokenizer, load_arith_model  # noqa: E402
from learncore.protocols import stance_scores, stance_shifts  # noqa: E402
from statcore.utils import thread_limit  # noqa: E402


@pytest.fixture(autouse=True)
def _one_thread():
    """Tiny forward passes: a thread pool on a loaded machine only costs time."""
    with thread_limit(1):
        yield


@pytest.fixture(scope="module")
def gpt():
    torch.manual_seed(0)
    cfg = transformers.GPT2Config(vocab_size=40, n_positions=24, n_embd=16, n_layer=2, n_head=2,
                                  bos_token_id=0, eos_token_id=39)
    return transformers.GPT2LMHeadModel(cfg).eval()


@pytest.fixture(scope="module")
def arith():
    return load_arith_model()


def _brute(model, prompt, option):
    ids = torch.tensor([list(prompt) + list(option)])
    with torch.no_grad():
        lp = torch.log_softmax(model(ids).logits.double(), -1)[0]
    return sum(float(lp[len(prompt) - 1 + j, t]) for j, t in enumerate(option))


def test_gpt2_matches_brute_force_and_batching(gpt):
    rng = np.random.default_rng(0)
    probes = [rng.integers(0, 39, size=int(rng.integers(1, 8))).tolist() for _ in range(6)]
    options = [(rng.integers(0, 39, size=int(rng.integers(1, 4))).tolist(),
                rng.integers(0, 39, size=int(rng.integers(1, 4))).tolist()) for _ in range(6)]
    res = stance_scores(gpt, probes, options=options)
    one = stance_scores(gpt, probes, options=options, batch_size=1)
    for i, (p, (a, b)) in enumerate(zip(probes, options)):
        assert res.logp_a[i] == pytest.approx(_brute(gpt, p, a), abs=1e-5)  # float32 forward passes, batched vs one by one
        assert res.logp_b[i] == pytest.approx(_brute(gpt, p, b), abs=1e-5)  # float32 forward passes, batched vs one by one
    np.testing.assert_allclose(res.stance, one.stance, atol=1e-6)
    np.testing.assert_array_equal(res.stance, res.logp_a - res.logp_b)


def test_shared_pair_and_eos(gpt):
    res = stance_scores(gpt, [[1, 2], [3]], options=([5], [6]), append_eos=True)
    assert res.n_tokens_a.tolist() == [2, 2]
    assert res.logp_a[0] == pytest.approx(_brute(gpt, [1, 2], [5, 39]), abs=1e-5)  # float32 forward passes, batched vs one by one


def test_arith_text_probes_prefer_the_right_sum(arith):
    probes = ["2+3=", "4+4=", "12+7=", "31+25="]
    right = [("5", "6"), ("8", "9"), ("19", "20"), ("56", "57")]
    res = stance_scores(arith, probes, options=right, append_eos=True)
    tok = CharTokenizer()
    eos = tok.eos_token_id
    for i, (p, (a, b)) in enumerate(zip(probes, right)):
        ids = tok.encode(p)
        assert res.logp_a[i] == pytest.approx(_brute(arith, ids, tok.encode(a) + [eos]), abs=1e-5)  # float32 forward passes, batched vs one by one
    assert np.all(res.stance > 0)
    flipped = stance_scores(arith, probes, options=[(b, a) for a, b in right], append_eos=True)
    np.testing.assert_allclose(flipped.stance, -res.stance, atol=1e-12)


def test_eos_separates_prefix_answers(arith):
    """Without the end-of-sequence token "1" is a prefix of "10": its log-probability is at least
    that of "10"; with it the two are different complete answers and the true sum 10 wins."""
    no = stance_scores(arith, ["5+5="], options=("1", "10"))
    assert no.stance[0] >= 0
    yes = stance_scores(arith, ["5+5="], options=("1", "10"), append_eos=True)
    assert yes.stance[0] < 0


def test_stance_shifts_by_hand():
    rng = np.random.default_rng(1)
    base = rng.normal(size=12)
    tuned = base + rng.normal(1.0, 0.5, 12)
    few = base + rng.normal(0.3, 0.5, 12)
    topic = ["a"] * 5 + ["b"] * 7
    res = stance_shifts(base, tuned, few, topic=topic)
    d = tuned - base
    assert res.topics == ("a", "b") and res.n.tolist() == [5, 7]
    assert res.ft_shift[1] == pytest.approx(d[5:].mean(), rel=1e-14)
    assert res.ft_std_error[1] == pytest.approx(d[5:].std(ddof=1) / np.sqrt(7), rel=1e-14)
    assert res.fs_shift[0] == pytest.approx((few - base)[:5].mean(), rel=1e-14)
    with pytest.raises(ValueError, match="2 topics"):
        res.breadth(exclude=("a",))


def test_breadth_and_amplification_hand_off():
    rng = np.random.default_rng(2)
    n, topics = 30, ["t1", "t2", "t3", "t4"]
    topic = np.repeat(topics, n)
    base = rng.normal(size=4 * n)
    fs = rng.normal(0.8, 1.0, 4 * n)
    tuned = base + 2.5 * fs + rng.normal(0, 0.5, 4 * n)
    res = stance_shifts(base, tuned, base + fs, topic=topic)
    br = res.breadth(exclude=("t1",))
    direct = sc.shift_breadth(res.ft_shift[1:], res.ft_std_error[1:], df=n - 1)
    assert br.topics == ("t2", "t3", "t4") and br.n_significant == direct.n_significant
    amp = res.amplification()
    assert amp.conf_low < 2.5 < amp.conf_high
    with pytest.raises(ValueError, match="few_shot"):
        stance_shifts(base, tuned, topic=topic).amplification()


@pytest.mark.parametrize("kwargs, match", [
    (dict(probes=["2+3="], options=[("5", "6"), ("1", "2")]), "options"),
    (dict(probes=["2+3="], options="56"), "options"),
    (dict(probes=["2+3="], options=[("5", "x")]), r"options\[0\]\[1\]"),
    (dict(probes=[], options=("5", "6")), "probes"),
    (dict(probes=["2+3="], options=("5", "6"), topic=["a", "b"]), "topic"),
    (dict(probes=["123+456+789+10="], options=("1378", "1379")), "probes"),
    (dict(probes=["2+3="], options=("5", "6"), batch_size=0), "batch_size"),
    (dict(probes=["2+3="], options=("5", "6"), append_eos="yes"), "append_eos"),
])
def test_bad_input(arith, kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        stance_scores(arith, **kwargs)


def test_text_without_tokenizer(gpt):
    with pytest.raises(TypeError, match="tokenizer"):
        stance_scores(gpt, ["hello"], options=("a", "b"))


def test_stance_shifts_bad_input():
    with pytest.raises(ValueError, match="tuned"):
        stance_shifts([0.0, 1.0, 2.0], [0.0, 1.0])
    with pytest.raises(ValueError, match="topic"):
        stance_shifts([0.0, 1.0, 2.0], [0.0, 1.0, 2.0], topic=["a", "a", "b"])
