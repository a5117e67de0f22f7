"""belief_trials against brute force: the expected value over the numeric answer tokens read by hand from
the logits of a hand-made LM (known logits), of a randomly initialised tiny GPT-2 built from a config (no
download) and of the shipped ArithTransformer; batching does not change a belief."""
import numpy as np
import pandas as pd
import pytest

from helpers import require_torch

torch = require_torch()

from learncore.llm_uncertainty import CharTokenizer, load_arith_model  # noqa: E402
from learncore.protocols import belief_trials  # noqa: E402

TOK = CharTokenizer()
DIGITS = np.arange(10.0)


class BayesLM(torch.nn.Module):
    """A causal "LM" over CharTokenizer's alphabet whose last-position logits over the digits are those
    of a discretised normal: for a prompt "a+b=" mean a + b - 1 (a biased prior), s.d. 1; for
    "c=a+b=" (a claim c first) the Bayesian mean m + w (c - m) with w = 1 / (1 + s^2), s = 1 (so w = 1/2);
    the other tokens get logit 0 (so the digits' mass is below 1)."""

    def __init__(self):
        super().__init__()
        self.dummy = torch.nn.Parameter(torch.zeros(1))

    @staticmethod
    def mean(ids):
        text = TOK.decode(ids)
        if text.count("=") == 2:
            c, q = text.split("=", 1)
            m = sum(int(t) for t in q.rstrip("=").split("+")) - 1
            return m + 0.5 * (int(c) - m)
        return sum(int(t) for t in text.rstrip("=").split("+")) - 1.0

    def forward(self, input_ids, **kwargs):
        B, L = input_ids.shape
        logits = torch.zeros(B, L, 13, dtype=torch.float64)
        for b in range(B):
            mu = self.mean(input_ids[b].tolist())
            logits[b, -1, :10] = torch.as_tensor(-(DIGITS - mu) ** 2 / 2 + 3.0)
        return type("Out", (), {"logits": logits})()


def brute(logits_digits, logits_all):
    p = np.exp(logits_digits - logits_digits.max())
    p /= p.sum()
    mean = float(p @ DIGITS)
    mass = float(np.exp(logits_digits).sum() / np.exp(logits_all).sum())
    return mean, float(np.sqrt(p @ (DIGITS - mean) ** 2)), mass


def test_known_logits_expected_value_and_woa():
    questions = ["3+4=", "2+2=", "1+5="]
    sources = pd.DataFrame({"question": [0, 0, 1, 2], "claim": [9, 2, 8, 3], "reliability": [1.0, 2, 3, 4]})
    res = belief_trials(BayesLM(), questions, sources, tokenizer=TOK, advice="{claim}={question}")
    t = res.trials
    assert list(t["reliability"]) == [1.0, 2, 3, 4]                      # the sources' columns are kept
    for i, row in t.iterrows():
        q = questions[int(row["question"])]
        for col, text in (("prior", q), ("posterior", f"{int(row['claim'])}={q}")):
            mu = BayesLM.mean(TOK.encode(text))
            lg = -(DIGITS - mu) ** 2 / 2 + 3.0
            mean, sd, mass = brute(lg, np.r_[lg, np.zeros(3)])
            assert t.loc[i, col] == pytest.approx(mean, abs=1e-12)
            assert t.loc[i, f"{col}_std_dev"] == pytest.approx(sd, abs=1e-12)
            assert t.loc[i, f"{col}_mass"] == pytest.approx(mass, abs=1e-12)
    # the discretised normal's mean is its centre up to truncation: the weight of advice is ~1/2 where the
    # beliefs stay away from 0 and 9 (question 2+2=, claim 8: prior 3, posterior 5.5)
    assert res.woa().iloc[2] == pytest.approx(0.5, abs=1e-3)


def _tiny_gpt2(seed=0):
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(seed)
    cfg = transformers.GPT2Config(vocab_size=TOK.vocab_size, n_positions=32, n_embd=16, n_layer=2, n_head=2,
                                      bos_token_id=TOK.eos_token_id, eos_token_id=TOK.eos_token_id)
    return transformers.GPT2LMHeadModel(cfg).eval()


def test_tiny_gpt2_matches_manual_forward_and_batching():
    model = _tiny_gpt2()
    questions = ["3+4=", "12+5=", "7+1="]
    sources = {"question": [0, 1, 2, 2, 0], "claim": [1, 5, 8, 3, 7]}
    a = belief_trials(model, questions, sources, tokenizer=TOK, advice="{claim}+0={question}")
    b = belief_trials(model, questions, sources, tokenizer=TOK, advice="{claim}+0={question}", batch_size=1)
    pd.testing.assert_frame_equal(a.trials, b.trials, rtol=1e-9, atol=1e-12)
    with torch.no_grad():
        for i, row in a.trials.iterrows():
            text = f"{int(row['claim'])}+0={questions[int(row['question'])]}"
            lg = model(torch.tensor([TOK.encode(text)])).logits[0, -1].double().numpy()
            mean, sd, mass = brute(lg[:10], lg)
            assert row["posterior"] == pytest.approx(mean, abs=1e-9)
            assert row["posterior_mass"] == pytest.approx(mass, abs=1e-9)
    assert a.trials["prior"].between(0, 9).all()


def test_shipped_arith_model_prior_near_truth():
    """Our own model: the prior over the answer digit of single-digit sums sits on the true sum."""
    model = load_arith_model()
    rng = np.random.default_rng(0)
    a = rng.integers(0, 5, 12)
    b = rng.integers(0, 5, 12)
    qs = [f"{x}+{y}=" for x, y in zip(a, b)]
    res = belief_trials(model, qs, {"question": list(range(12)), "claim": (a + b + 3) % 10},
                        advice="0+{claim}={claim}{question}")
    t = res.trials
    assert np.mean(np.abs(t["prior"] - (a + b))) < 0.3
    assert t["prior_mass"].min() > 0.9
    assert np.all(np.isfinite(t["posterior"]))


def test_series_questions_by_label_and_errors():
    model = BayesLM()
    qs = pd.Series(["3+4=", "2+2="], index=["q7", "q9"])
    res = belief_trials(model, qs, {"question": ["q9"], "claim": [8]}, tokenizer=TOK, advice="{claim}={question}")
    assert res.trials["prior"].iloc[0] == pytest.approx(3.0, abs=1e-3)
    with pytest.raises(ValueError, match="values"):
        belief_trials(model, qs, {"question": ["q9"], "claim": [8]}, tokenizer=TOK, values=[10, 11])
    with pytest.raises(ValueError, match="sources"):
        belief_trials(model, qs, {"question": ["q3"], "claim": [8]}, tokenizer=TOK)
    with pytest.raises(ValueError, match="advice"):
        belief_trials(model, qs, {"question": ["q9"], "claim": [8]}, tokenizer=TOK, advice="{claim} says {question}")
    with pytest.raises(TypeError, match="tokenizer"):
        belief_trials(model, qs, {"question": ["q9"], "claim": [8]})
