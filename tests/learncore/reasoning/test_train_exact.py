"""Exact checks of learncore.reasoning.train (issue 35, section 2): GRPO's advantages, the policy-gradient
losses against closed forms (a three-armed bandit, enumerated), the key/value cache against the full pass,
the sequence log-probabilities against a prefix-by-prefix brute force."""
import numpy as np
import pytest

from helpers import require_torch

torch = require_torch()
torch.set_num_threads(1)

from learncore.reasoning import grpo_advantages, make_model  # noqa: E402
from learncore.reasoning.rewrite import Monoid, RewriteTokenizer  # noqa: E402
from learncore.reasoning.train import KVCache, _grpo_loss, _pg_loss, _token_logprobs  # noqa: E402

M = Monoid.cyclic(5)
TOK = RewriteTokenizer(M)


@pytest.fixture(scope="module")
def model():
    return make_model(TOK, d_model=32, n_layers=2, n_heads=4, max_len=24, seed=3).eval()


# ---- GRPO's advantages ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("binary", [True, False])
def test_grpo_advantages_standardise_each_group(binary):
    rng = np.random.default_rng(0)
    r = rng.integers(0, 2, size=40).astype(float) if binary else rng.normal(size=40) * 7 + 3
    r[:8] = [0, 1, 0, 0, 0, 0, 0, 0]
    a = grpo_advantages(r, 8).reshape(5, 8)
    g = r.reshape(5, 8)
    for adv, rew in zip(a, g):
        if np.ptp(rew) == 0:
            assert np.all(adv == 0)
        else:
            assert abs(adv.mean()) < 1e-12
            assert abs(adv.var() - 1) < 1e-12
            # an affine increasing map of the rewards: the order is kept, the centred values are proportional
            c = rew - rew.mean()
            np.testing.assert_allclose(adv, c / np.sqrt((c ** 2).mean()), rtol=1e-12, atol=1e-15)
    # one success among eight: +sqrt(7) for it, -1/sqrt(7) for the others
    np.testing.assert_allclose(a[0], [-1 / np.sqrt(7), np.sqrt(7)] + [-1 / np.sqrt(7)] * 6, rtol=1e-12)


def test_grpo_advantages_constant_groups_are_zero_and_scale_free():
    r = np.array([0.1] * 3 + [1.0, 1.0, 1.0] + [0.3, 0.7, 0.2])
    a = grpo_advantages(r, 3)
    assert np.all(a[:6] == 0)
    np.testing.assert_allclose(grpo_advantages(r * 1e-300, 3), a, rtol=1e-12)
    np.testing.assert_allclose(grpo_advantages(r * 1e300, 3), a, rtol=1e-12)


def test_constant_reward_gives_zero_gradient(model):
    seqs = [TOK.encode("123|", bos=True) + TOK.encode(t, bos=False, eos=True) for t in ("14|0=0", "03|3=3",
                                                                                          "1=1", "2|22")]
    starts = [5] * 4
    for rew in (np.ones(4), np.zeros(4), np.full(4, 0.37)):
        adv = torch.as_tensor(grpo_advantages(rew, 4), dtype=torch.float32)
        for clip in (None, 0.2):
            model.zero_grad()
            logp, mask = _token_logprobs(model, seqs, starts)
            _grpo_loss(logp, logp.detach(), None, mask, adv, clip=clip, kl=0.0).backward()
            assert all(p.grad is None or torch.count_nonzero(p.grad) == 0 for p in model.parameters())


# ---- the three-armed bandit: the REINFORCE estimator's expectation is the gradient of the expected reward ----

def _bandit(theta, rewards):
    """Analytic gradient of sum_a softmax(theta)_a r_a: pi * (r - pi . r)."""
    pi = np.exp(theta - theta.max())
    pi /= pi.sum()
    return pi, pi * (rewards - pi @ rewards)


@pytest.mark.parametrize("baseline", ["none", "mean", "other"])
def test_reinforce_on_a_three_armed_bandit_equals_the_analytic_gradient(baseline):
    rng = np.random.default_rng(1)
    for _ in range(5):
        theta0 = rng.normal(size=3)
        rewards = rng.normal(size=3)
        pi, grad = _bandit(theta0, rewards)
        theta = torch.tensor(theta0, dtype=torch.float64, requires_grad=True)
        logp = torch.log_softmax(theta, 0)          # every action, enumerated
        probs = logp.exp().detach()                 # weighted by its probability
        b = {"none": 0.0, "mean": float(pi @ rewards), "other": 2.5}[baseline]
        adv = torch.tensor(rewards - b, dtype=torch.float64)
        _pg_loss(logp, adv, probs).backward()
        np.testing.assert_allclose(-theta.grad.numpy(), grad, rtol=1e-10, atol=0)


def test_reinforce_unweighted_loss_is_the_sample_mean_estimator():
    # N samples drawn in the exact proportions of pi (N pi_a copies of arm a): the unweighted estimator equals
    # the gradient of the expected reward exactly
    pi = np.array([0.25, 0.5, 0.25])
    theta = torch.tensor(np.log(pi), dtype=torch.float64, requires_grad=True)
    rewards = np.array([1.0, 0.0, 0.3])
    arms = np.array([0, 1, 1, 2])
    _pg_loss(torch.log_softmax(theta, 0)[arms], torch.tensor(rewards[arms] - rewards[arms].mean())).backward()
    np.testing.assert_allclose(-theta.grad.numpy(), _bandit(np.log(pi), rewards)[1], rtol=1e-10)


def test_grpo_surrogate_at_ratio_one_is_the_policy_gradient():
    # one-token sequences on the bandit: the GRPO loss (token mean = the token) has the gradient of
    # -(1/N) sum_i A_i log pi(a_i) at the sampling policy, and its KL term (reference = policy) has none
    theta = torch.tensor([0.3, -1.2, 0.5], dtype=torch.float64, requires_grad=True)
    arms = torch.tensor([0, 2, 1, 0, 2, 2])
    adv = torch.tensor(grpo_advantages([1, 0, 1, 0, 0, 1], 3))
    logp = torch.log_softmax(theta, 0)[arms][:, None]
    mask = torch.ones_like(logp, dtype=torch.bool)
    _grpo_loss(logp, logp.detach(), logp.detach(), mask, adv, clip=0.2, kl=0.5).backward()
    g1 = theta.grad.clone()
    theta.grad = None
    _pg_loss(torch.log_softmax(theta, 0)[arms], adv).backward()
    np.testing.assert_allclose(g1.numpy(), theta.grad.numpy(), rtol=1e-12)


def test_grpo_clipping_zeroes_the_gradient_outside_the_trust_region():
    logp = torch.zeros(4, 1, dtype=torch.float64, requires_grad=True)
    old = torch.log(torch.tensor([[1 / 1.5], [1 / 0.5], [1 / 1.5], [1 / 0.5]], dtype=torch.float64))  # ratios
    adv = torch.tensor([1.0, 1.0, -1.0, -1.0], dtype=torch.float64)
    mask = torch.ones(4, 1, dtype=torch.bool)
    _grpo_loss(logp, old, None, mask, adv, clip=0.2, kl=0.0).backward()
    g = logp.grad[:, 0].numpy()
    # ratio 1.5 with A > 0 and ratio 0.5 with A < 0: clipped (no gradient); the other two: -A ratio / N
    np.testing.assert_allclose(g, [0.0, -0.5 / 4, 1.5 / 4, 0.0], rtol=1e-12)


def test_kl_penalty_is_the_k3_estimator():
    logp = torch.log(torch.tensor([[0.2, 0.5]], dtype=torch.float64))
    ref = torch.log(torch.tensor([[0.4, 0.5]], dtype=torch.float64))
    mask = torch.ones(1, 2, dtype=torch.bool)
    loss = _grpo_loss(logp, logp, ref, mask, torch.zeros(1, dtype=torch.float64), clip=None, kl=2.0)
    k3 = np.array([2.0 - np.log(2.0) - 1, 0.0])
    np.testing.assert_allclose(float(loss), 2.0 * k3.mean(), rtol=1e-12)


# ---- the model: cache, log-probabilities --------------------------------------------------------------------

def test_kv_cache_matches_the_full_pass(model):
    ids = torch.tensor([TOK.encode("1234|334|14", bos=True), TOK.encode("4321|031|41", bos=True)])
    full = model(ids)
    np.testing.assert_allclose(model.run(ids).detach().numpy(), full.detach().numpy(), rtol=0, atol=1e-5)
    with torch.no_grad():
        cache = KVCache(model, 2, "cpu")
        parts = [model.run(ids[:, :5], cache)]
        for j in range(5, 9):
            parts.append(model.run(ids[:, j:j + 1], cache))
        parts.append(model.run(ids[:, 9:], cache))   # a block of several new tokens after the cache
    np.testing.assert_allclose(torch.cat(parts, 1).numpy(), full.detach().numpy(), rtol=0, atol=1e-5)
    assert cache.length == ids.shape[1] and cache.k[0].shape == (2, 4, model.max_len, 8)
    with torch.no_grad(), pytest.raises(ValueError, match="max_len"):
        model.run(ids[:, :1].repeat(1, model.max_len - ids.shape[1] + 1), cache)


def test_sequence_logprobs_against_prefix_by_prefix(model):
    seqs = [TOK.encode("12|3=3", bos=True, eos=True), TOK.encode("4|4=4", bos=True, eos=True),
            TOK.encode("1234|", bos=True)]
    starts = [4, 2, 1]
    with torch.no_grad():
        logp, mask = _token_logprobs(model, seqs, starts)
        for i, (s, st) in enumerate(zip(seqs, starts)):
            want = 0.0
            for j in range(st, len(s)):
                lg = model.policy_logits(model(torch.tensor([s[:j]]))[0, -1])
                want += float(torch.log_softmax(lg.double(), 0)[s[j]])
            got = float((logp[i] * mask[i]).sum())
            assert int(mask[i].sum()) == len(s) - st
            np.testing.assert_allclose(got, want, rtol=1e-5)
    # pad and bos are outside the policy
    assert torch.all(torch.softmax(model.policy_logits(model(torch.tensor([seqs[0]]))), -1)[..., :2] == 0)
