"""Hint Tuning's splitting, prefixes, prefix search and states against brute force and fake solvers
with known thresholds (learncore.reasoning.hints)."""
import itertools
import math

import numpy as np
import pytest

from learncore.reasoning import (build_hint_dataset, cumulative_prefixes, format_sft, hint_states,
                                 minimal_prefix, split_trace)
from learncore.reasoning.hints import OPENERS, REFLECTION_KEYWORDS


def _threshold_solver(t):
    """Solves from the t-th cumulative prefix on (t = 0: alone); counts its calls."""
    calls = []

    def solve(problem, prefix):
        calls.append(prefix)
        return prefix.count("|") + (prefix != "") >= t if t > 0 else True
    return solve, calls


def _vector_solver(vec, prefixes):
    index = {p: i for i, p in enumerate(prefixes)}
    return lambda problem, prefix: bool(vec[index[prefix]])


PREFIXES = cumulative_prefixes(split_trace("w0|w1|w2|w3|w4|w5|w6|w7|w8=x", "|"))   # 10 prefixes


# -- split_trace and cumulative_prefixes -------------------------------------------------------------

def test_split_is_at_every_keyword_and_joins_back():
    rng = np.random.default_rng(0)
    for _ in range(300):
        text = "".join(rng.choice(list("ab|= "), size=rng.integers(1, 15)))
        if not text.strip():
            continue
        parts = split_trace(text, "|")
        assert "".join(parts) == text
        # brute force: a part starts at 0 or at a "|", and every "|" not in leading whitespace starts one
        starts = np.cumsum([0] + [len(p) for p in parts[:-1]])
        lead = len(text) - len(text.lstrip())
        expected = [0] + [i for i, c in enumerate(text) if c == "|" and i > lead]
        assert list(starts) == sorted(set(expected)), (text, parts)
        assert all(p.strip() for p in parts)


def test_split_keywords_case_insensitive_like_the_released_code():
    text = "So x = 3. Wait, check: 3*2 = 6. hold on, 6 is right. ACTUALLY fine."
    parts = split_trace(text, REFLECTION_KEYWORDS)
    assert parts == ["So x = 3. ", "Wait, check: 3*2 = 6. ", "hold on, 6 is right. ", "ACTUALLY fine."]
    assert split_trace(text, REFLECTION_KEYWORDS, ignore_case=False) == [
        "So x = 3. Wait, check: 3*2 = 6. ", "hold on, 6 is right. ACTUALLY fine."]
    # leading whitespace stays with the first part; a keyword at the start makes no empty part
    assert split_trace("  Wait, yes.", ["wait"]) == ["  Wait, yes."]
    assert split_trace("wait", "wait") == ["wait"]


def test_cumulative_prefixes():
    parts = [f"p{i};" for i in range(50)]
    pre = cumulative_prefixes(parts)
    assert len(pre) == 41 and pre[0] == "" and pre[-1] == "".join(parts[:40])
    assert all(b.startswith(a) and len(b) > len(a) for a, b in zip(pre, pre[1:]))
    assert len(cumulative_prefixes(parts, max_parts=None)) == 51
    assert cumulative_prefixes(["x"], max_parts=3) == ["", "x"]


# -- minimal_prefix: fake solvers with known thresholds ------------------------------------------------

@pytest.mark.parametrize("t", range(len(PREFIXES) + 1))
def test_linear_equals_bisection_on_thresholds(t):
    solve, calls = _threshold_solver(t)
    lin = minimal_prefix(solve, "w0", PREFIXES)
    n_lin = len(calls)
    calls.clear()
    bis = minimal_prefix(solve, "w0", PREFIXES, search="bisect")
    truth = t if t < len(PREFIXES) else None
    assert lin.k == bis.k == truth
    assert lin.solved == bis.solved == (truth is not None)
    assert n_lin == lin.n_calls == (t + 1 if truth is not None else len(PREFIXES))
    assert bis.n_calls == len(calls) <= 2 + math.ceil(math.log2(len(PREFIXES)))
    assert lin.monotone and bis.monotone
    ver = minimal_prefix(solve, "w0", PREFIXES, search="bisect", verify=True)
    assert ver.verified and ver.monotone and ver.first_k == ver.k == truth
    assert sorted(ver.checked_k.tolist()) == list(range(len(PREFIXES)))


def test_bisection_brute_force_over_all_success_patterns():
    """Every success pattern over 6 prefixes: linear finds the first success; bisection a success
    right after a failure (or the empty prefix), or none when the longest fails; verify flags exactly
    the non-monotone patterns."""
    pre = PREFIXES[:6]
    for vec in itertools.product([False, True], repeat=6):
        solve = _vector_solver(vec, pre)
        first = next((i for i, v in enumerate(vec) if v), None)
        monotone = all(not (vec[i] and not vec[j]) for i in range(6) for j in range(i + 1, 6))
        lin = minimal_prefix(solve, "w0", pre, verify=True)
        bis = minimal_prefix(solve, "w0", pre, search="bisect", verify=True)
        assert lin.k == lin.first_k == bis.first_k == first
        assert lin.monotone == bis.monotone == monotone
        if vec[0]:
            assert bis.k == 0
        elif not vec[-1]:
            assert bis.k is None
        else:
            assert vec[bis.k] and not vec[bis.k - 1]
        if monotone:
            assert bis.k == first
        # without verify the searches see no violation: their checks are failures then successes
        assert minimal_prefix(solve, "w0", pre, search="bisect").monotone
        assert minimal_prefix(solve, "w0", pre).monotone


def test_non_monotone_flag_fires_on_a_constructed_case():
    # solves with 2 or 3 parts and from 6 on; fails with 4 and 5
    vec = [False, False, True, True, False, False, True, True, True, True]
    solve = _vector_solver(vec, PREFIXES)
    lin = minimal_prefix(solve, "w0", PREFIXES)
    bis = minimal_prefix(solve, "w0", PREFIXES, search="bisect", verify=True)
    assert lin.k == 2 and bis.k == 6 and bis.first_k == 2
    assert not bis.monotone and "NOT monotone" in bis.summary()
    # the dataset counts it
    ds = build_hint_dataset(["w0"], [bis], think_traces=["t"], think_answers=["x"], instruct_answers=["y"])
    assert ds.n_nonmonotone == 1 and ds.states.tolist() == ["sparse-hint"] and ds.k.tolist() == [6]


def test_completion_is_kept_and_bad_returns_refused():
    res = minimal_prefix(lambda p, pre: (len(pre) > 2, "done"), "w0", PREFIXES)
    assert res.k == 2 and res.completion == "done" and res.prefix == PREFIXES[2]
    with pytest.raises(TypeError, match="solve"):
        minimal_prefix(lambda p, pre: float("nan"), "w0", PREFIXES)
    with pytest.raises(TypeError, match="solve"):
        minimal_prefix(lambda p, pre: (True, 3), "w0", PREFIXES)
    with pytest.raises(ValueError, match="search"):
        minimal_prefix(lambda p, pre: True, "w0", PREFIXES, search="binary")


# -- states and fine-tuning texts ----------------------------------------------------------------------

def test_the_two_state_rules():
    searches = [minimal_prefix(_threshold_solver(t)[0], "w0", PREFIXES) for t in (0, 0, 3, 3, 99, 99)]
    think = [True, False, True, False, True, False]
    assert hint_states(searches).tolist() == ["no-hint", "no-hint", "sparse-hint", "sparse-hint", "full-hint",
                                              "full-hint"]
    assert hint_states(searches, think_correct=think, state_rule="released").tolist() == [
        "no-hint", "sparse-hint", "no-hint", "sparse-hint", "no-hint", "full-hint"]
    with pytest.raises(ValueError, match="think_correct"):
        hint_states(searches, state_rule="released")


def test_format_sft_openers():
    outs = {s: format_sft("q", s, answer="A", hint="" if s == "no-hint" else "H")["output"]
            for s in ("no-hint", "sparse-hint", "full-hint")}
    assert outs["no-hint"] == f"<think>\n{OPENERS['no-hint']}\n</think>\n\nA"
    assert outs["sparse-hint"] == f"<think>\n{OPENERS['sparse-hint']} H\n</think>\n\nA"
    assert outs["full-hint"] == f"<think>\n{OPENERS['full-hint']} H\n</think>\n\nA"
    assert len(set(o.split("\n")[1][:10] for o in outs.values())) == 3
    with pytest.raises(ValueError, match="hint"):
        format_sft("q", "no-hint", answer="A", hint="H")
    with pytest.raises(ValueError, match="openers"):
        format_sft("q", "no-hint", answer="A", openers={"none": ""})


def test_build_hint_dataset_examples():
    traces = ["w0|a|b|c=x", "w0|d|e=y", "w0|f=z"]
    problems = ["p1", "p2", "p3"]
    thresholds = {"p1": 0, "p2": 2, "p3": 9}

    def solve(problem, prefix):
        parts = prefix.count("|") + (prefix != "")
        return parts >= thresholds[problem], "C"
    searches = [minimal_prefix(solve, p, cumulative_prefixes(split_trace(t, "|"))) for p, t in zip(problems, traces)]
    ds = build_hint_dataset(problems, searches, think_traces=traces, think_answers=["x", "y", "z"],
                            instruct_answers=["I1", "I2", "I3"])
    assert ds.states.tolist() == ["no-hint", "sparse-hint", "full-hint"]
    assert ds.counts == {"no-hint": 1, "sparse-hint": 1, "full-hint": 1}
    assert ds.output[0].endswith("I1") and ds.output[1].endswith("\n\nC") and "w0|d" in ds.output[1]
    assert "w0|f=z" in ds.output[2] and ds.output[2].endswith("z")
    assert ds.hint_chars.tolist() == [0, len("w0|d"), len(traces[2])]
    assert [r["instruction"] for r in ds.records()] == problems
    with pytest.raises(ValueError, match="searches"):
        build_hint_dataset(problems[::-1], searches, think_traces=traces, think_answers=["x", "y", "z"],
                           instruct_answers=["I1", "I2", "I3"])
