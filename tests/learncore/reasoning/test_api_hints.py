"""learncore.reasoning.hints' public API: bad-input specs and result examples (docs/conventions.md).
Problems, prefixes and texts are strings (swept with the generic kinds); token counts and
correctness vectors are numbers."""
import numpy as np
import pytest

import apicheck
from learncore.reasoning import hints
from learncore.reasoning.hints import (HintDataset, PrefixSearch, TokenReduction, build_hint_dataset,
                                       cumulative_prefixes, format_sft, hint_states, minimal_prefix,
                                       split_trace, token_reduction)

PREFIXES = ["", "w0", "w0|w1", "w0|w1|w2"]


def _solve(problem, prefix):
    return len(prefix) >= 5


SEARCHES = [minimal_prefix(lambda p, pre, t=t: len(pre) >= t, "w0", PREFIXES) for t in (0, 5, 99)]
BASE = np.array([120.0, 80.0, 200.0, 150.0, 90.0, 110.0])
NEW = np.array([60.0, 70.0, 90.0, 100.0, 40.0, 80.0])
CB = np.array([True, True, False, True, False, True])
CN = np.array([True, False, True, True, True, True])

S = apicheck.Spec
BAD_INPUT_SPECS = {
    "split_trace": S(split_trace, dict(text="a|b|c", keywords=["|"]), data=("text", "keywords"), paired=False,
                     ok={("text", "string"), ("keywords", "string")}),
    "cumulative_prefixes": S(cumulative_prefixes, dict(parts=["a", "|b"]), data=("parts",), paired=False,
                             ok={("parts", "string")}),
    "minimal_prefix": S(minimal_prefix, dict(solve=_solve, problem="w0", prefixes=PREFIXES),
                        data=("solve", "problem", "prefixes"), paired=False,
                        ok={("problem", "string")}),
    "hint_states": S(hint_states, dict(searches=SEARCHES, think_correct=[True, False, False]),
                     data=("searches", "think_correct"), paired=True, ok={("think_correct", "none")}),
    "format_sft": S(format_sft, dict(problem="w0", state="sparse-hint", answer="x", hint="w0|w1"),
                    data=("problem", "state", "answer", "hint"), paired=False,
                    ok={("problem", "string"), ("answer", "string"), ("hint", "string")}),
    "build_hint_dataset": S(build_hint_dataset, dict(problems=["w0"] * 3, searches=SEARCHES,
                                                     think_traces=["w0|w1|w2=x"] * 3, think_answers=["x"] * 3,
                                                     instruct_answers=["y"] * 3),
                            data=("problems", "searches", "think_traces", "think_answers", "instruct_answers"),
                            paired=True),
    "token_reduction": S(token_reduction, dict(len_base=BASE, len_new=NEW, correct_base=CB, correct_new=CN),
                         data=("len_base", "len_new", "correct_base", "correct_new"), paired=True),
}

RESULT_EXAMPLES = {
    "PrefixSearch": lambda: minimal_prefix(_solve, "w0", PREFIXES, search="bisect", verify=True),
    "HintDataset": lambda: build_hint_dataset(["w0"] * 3, SEARCHES, think_traces=["w0|w1|w2=x"] * 3,
                                              think_answers=["x"] * 3, instruct_answers=["y"] * 3),
    "TokenReduction": lambda: token_reduction(BASE, NEW, correct_base=CB, correct_new=CN),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUT_SPECS))
def test_bad_input_sweep(name):
    assert apicheck.sweep_bad_inputs(BAD_INPUT_SPECS[name]) == []


@pytest.mark.parametrize("name", sorted(RESULT_EXAMPLES))
def test_result_protocol(name):
    apicheck.check_result_protocol(RESULT_EXAMPLES[name]())


def test_every_public_callable_is_registered():
    public = [n for n in hints.__all__ if callable(getattr(hints, n))]
    funcs = [n for n in public if not isinstance(getattr(hints, n), type)]
    assert sorted(set(funcs) - set(BAD_INPUT_SPECS)) == []
    classes = [n for n in public if isinstance(getattr(hints, n), type)]
    assert sorted(set(classes) - set(RESULT_EXAMPLES)) == []
    assert PrefixSearch and HintDataset and TokenReduction


def test_package_exports_the_module_names():
    import learncore.reasoning as r
    names = {n for n in hints.__all__ if callable(getattr(hints, n))}
    assert names <= set(r.__all__)
    assert all(getattr(r, n) is getattr(hints, n) for n in names)
