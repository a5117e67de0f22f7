"""Traces, rewards, the trace audit, the tokenizer, problems and corpora of the rewrite environment."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from learncore.reasoning import (Monoid, RewriteTokenizer, audit_step, audit_trace, format_trace,
                                 full_chain_tokens, make_corpus, make_problems, parse_trace, primitive_chain,
                                 primitive_step, reward, trace_tokens)

Z5, S3 = Monoid.cyclic(5), Monoid.s3()
s3_words = st.text(alphabet="abcdef", min_size=1, max_size=14)
z5_words = st.text(alphabet="01234", min_size=1, max_size=14)


@settings(max_examples=60, deadline=None)
@given(word=s3_words, seed=st.integers(0, 2**32 - 1), order=st.sampled_from(["left", "random"]))
def test_format_parse_round_trip_and_chain_properties(word, seed, order):
    chain = primitive_chain(word, S3, order=order, seed=seed)
    text = format_trace(chain)
    w0, steps, answer = parse_trace(text)
    assert (w0, steps, answer) == (word, chain[1:], chain[-1])
    assert reward(text, S3) == 1.0
    assert trace_tokens(text) == full_chain_tokens(word) == len(text) - len(word) - 1
    aud = audit_trace(text, S3)
    assert aud.n_steps == len(word) - 1 == aud.valid_steps and aud.all_valid and aud.correct
    assert aud.contractions == 0 and all(s.label == "atomic" for s in aud.steps)
    # a wrong answer: reward 0 whatever the steps
    wrong = next(c for c in S3.symbols if c != chain[-1])
    assert reward(format_trace(chain, answer=wrong), S3) == 0.0


@settings(max_examples=60, deadline=None)
@given(text=st.text(alphabet="01234|=abc \n", max_size=30))
def test_reward_never_raises_on_garbage(text):
    r = reward(text, Z5)
    assert r in (0.0, 1.0)
    w0, steps, answer = _split_by_hand(text)
    expect = (w0 != "" and set(w0) <= set("01234") and answer is not None
              and answer == str(sum(map(int, w0)) % 5))
    assert r == float(expect)
    if text and w0 and set(w0) <= set("01234"):
        aud = audit_trace(text, Z5)
        assert aud.n_steps == len(steps) and aud.correct == expect
        assert aud.valid_steps == sum(s.valid for s in aud.steps)


def _split_by_hand(text):
    if "=" in text:
        body, answer = text[:text.index("=")], text[text.index("=") + 1:]
    else:
        body, answer = text, None
    parts = body.split("|")
    return parts[0], parts[1:], answer


def test_trace_audit_counts():
    aud = audit_trace("1234|32|0=0", Z5)
    assert [s.label for s in aud.steps] == ["parallel", "atomic"]
    assert aud.contractions == 1 and aud.correct and aud.all_valid and aud.answer == "0"
    aud = audit_trace("1234|334|22|4=4", Z5)
    assert [s.label for s in aud.steps] == ["atomic", "invalid", "atomic"]
    assert aud.valid_steps == 2 and not aud.all_valid and not aud.correct
    aud = audit_trace("1234|0=0", Z5)
    assert aud.contractions == 1 and aud.steps[0].label == "sequential" and aud.steps[0].compressed == 3
    aud = audit_trace("1234|3x4||1234", Z5)                  # foreign symbol, empty word, a no-op, truncated
    assert [s.label for s in aud.steps] == ["invalid", "invalid", "invalid"]
    assert aud.answer is None and not aud.correct
    aud = audit_trace("1234|3x4|14|0=0", Z5)                # a step from a malformed word is invalid
    assert [s.label for s in aud.steps] == ["invalid", "invalid", "atomic"] and aud.correct
    aud = audit_trace("1234|1234|334=0", Z5)
    assert [s.label for s in aud.steps] == ["no-op", "atomic"] and aud.contractions == 0
    assert audit_trace("1234=0", Z5).n_steps == 0 and audit_trace("1234=0", Z5).all_valid
    assert "parallel" in str(audit_trace("1234|32|0=0", Z5))
    assert list(audit_trace("1234|32|0=0", Z5).to_frame()["label"]) == ["parallel", "atomic"]


def test_empty_and_malformed_traces_refused():
    for f in (parse_trace, trace_tokens):
        with pytest.raises(ValueError, match="text"):
            f("")
    with pytest.raises(ValueError, match="text"):
        audit_trace("", Z5)
    with pytest.raises(ValueError, match="text"):
        audit_trace("|12=3", Z5)
    with pytest.raises(ValueError, match="text"):
        audit_trace("1x2|3=3", Z5)
    with pytest.raises(ValueError, match="words"):
        format_trace([])
    with pytest.raises(ValueError, match="words"):
        format_trace(["12", ""])
    with pytest.raises(ValueError, match="answer"):
        format_trace(["12", "34"])
    with pytest.raises(ValueError, match="answer"):
        format_trace(["12"], answer="34")
    with pytest.raises(ValueError, match="text"):
        trace_tokens("1234")
    assert reward("", Z5) == 0.0 and reward("=", Z5) == 0.0 and reward("12=3=3", Z5) == 0.0
    assert reward("12=3", Z5) == 1.0


@settings(max_examples=80, deadline=None)
@given(text=st.text(alphabet="abcdef|=", max_size=40), bos=st.booleans(), eos=st.booleans(),
       pad=st.integers(0, 5))
def test_tokenizer_round_trip(text, bos, eos, pad):
    tok = RewriteTokenizer(S3)
    ids = tok.encode(text, bos=bos, eos=eos)
    assert len(ids) == len(text) + bos + eos
    assert all(0 <= t < tok.vocab_size for t in ids)
    assert tok.decode(ids + [tok.pad_id] * pad) == text
    assert tok.decode(np.array(ids + [tok.eos_id] + tok.encode("abc"), dtype=np.int64)) == text


def test_tokenizer_vocabulary():
    tok = RewriteTokenizer(S3)
    assert tok.vocab == ["<pad>", "<bos>", "<eos>", "a", "b", "c", "d", "e", "f", "|", "="]
    assert (tok.pad_id, tok.bos_id, tok.eos_id, tok.vocab_size) == (0, 1, 2, 11)
    assert [tok.id(c) for c in ("<eos>", "a", "|", "=")] == [2, 3, 9, 10]
    with pytest.raises(ValueError, match="text"):
        tok.encode("ab1")
    with pytest.raises(ValueError, match="ids"):
        tok.decode([1, 11])
    with pytest.raises(ValueError, match="ch"):
        tok.id("g")


def test_make_problems():
    probs = make_problems(S3, 3000, lengths=[2, 5, 5], seed=4)
    assert probs == make_problems(S3, 3000, lengths=[2, 5, 5], seed=4)
    assert probs != make_problems(S3, 3000, lengths=[2, 5, 5], seed=5)
    lengths = np.array([len(w) for w in probs])
    assert set(lengths) == {2, 5}
    # lengths drawn uniformly from the list (5 listed twice: weight 2/3), symbols uniformly
    assert stats.binomtest(int((lengths == 5).sum()), len(probs), 2 / 3).pvalue > 1e-3
    counts = np.array([sum(w.count(c) for w in probs) for c in S3.symbols])
    assert stats.chisquare(counts).pvalue > 1e-3
    with pytest.raises(ValueError, match="lengths"):
        make_problems(S3, 3, lengths=[0, 2])
    with pytest.raises(ValueError, match="lengths"):
        make_problems(S3, 3, lengths=[])
    with pytest.raises(TypeError, match="lengths"):
        make_problems(S3, 3, lengths=4)


def test_make_corpus_kinds():
    full = make_corpus(Z5, 200, kind="full", lengths=[3, 6], seed=0)
    steps = make_corpus(Z5, 200, kind="steps", lengths=[3, 6], seed=0)
    rand = make_corpus(Z5, 200, kind="random", lengths=[3, 6], seed=0)
    for text in full:
        w0, _, _ = parse_trace(text)
        assert text == format_trace(primitive_chain(w0, Z5))
    for text in steps:
        u, (v,), answer = parse_trace(text)
        assert answer is None and v == primitive_step(u, 0, Z5)
    leftmost = 0
    for text in rand:
        w0, words, _ = parse_trace(text)
        assert reward(text, Z5) == 1.0 and audit_trace(text, Z5).all_valid
        assert all(audit_step(a, b, Z5).compressed == 1 for a, b in zip([w0] + words[:-1], words))
        leftmost += text == format_trace(primitive_chain(w0, Z5))
    assert leftmost < 150                       # random orders are not all the leftmost one
    with pytest.raises(ValueError, match="lengths"):
        make_corpus(Z5, 2, kind="steps", lengths=[1, 3])
    with pytest.raises(ValueError, match="kind"):
        make_corpus(Z5, 2, kind="chains", lengths=[3])
    assert make_corpus(Z5, 2, kind="full", lengths=[1], seed=0)[0][1:2] == "="    # "x=x"


def test_token_budget():
    # contraction is what makes a long word fit: the full chain of n symbols costs n(n-1)/2 + n
    assert [full_chain_tokens("a" * n) for n in (1, 2, 3, 8)] == [1, 3, 6, 36]
    assert trace_tokens("12341234|0=0") == 3 < full_chain_tokens("12341234")
