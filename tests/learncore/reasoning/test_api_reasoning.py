"""learncore.reasoning's public API: bad-input specs and result examples (docs/conventions.md).

The rewrite environment is numpy only; words and traces are strings (swept with the generic kinds:
an empty array, the string "abc", None), the monoid an object. Other modules of the package (train,
hints, analysis) register their names below as they land."""
import sys

import numpy as np
import pytest

import apicheck
import learncore.reasoning as lr
from learncore.reasoning import (Monoid, RewriteTokenizer, StepAudit, TraceAudit, audit_step, audit_trace,
                                 format_trace, full_chain_tokens, make_corpus, make_problems, parse_trace,
                                 primitive_chain, primitive_step, reward, trace_tokens)

Z5 = Monoid.cyclic(5)
TOK = RewriteTokenizer(Z5)

S = apicheck.Spec
BAD_INPUT_SPECS = {
    "Monoid": S(Monoid, dict(table=[[0, 1], [1, 0]]), data=("table",), paired=True),
    "primitive_step": S(primitive_step, dict(word="1234", i=1, monoid=Z5), data=("word", "i", "monoid"),
                        paired=False),
    "primitive_chain": S(primitive_chain, dict(word="1234", monoid=Z5), data=("word", "monoid"), paired=False),
    "format_trace": S(format_trace, dict(words=["1234", "334", "14", "0"]), data=("words",), paired=False),
    # "abc" is a trace without steps or answer (a truncated sample): parsed, not refused
    "parse_trace": S(parse_trace, dict(text="1234|14|0=0"), data=("text",), paired=False,
                     ok={("text", "string")}),
    # a malformed trace gets reward 0.0: "abc" is one
    "reward": S(reward, dict(text="1234|14|0=0", monoid=Z5), data=("text", "monoid"), paired=False,
                ok={("text", "string")}),
    "audit_step": S(audit_step, dict(u="1234", v="14", monoid=Z5), data=("u", "v", "monoid"), paired=False),
    "audit_trace": S(audit_trace, dict(text="1234|14|0=0", monoid=Z5), data=("text", "monoid"), paired=False),
    "make_problems": S(make_problems, dict(monoid=Z5, n=3, lengths=[2, 3], seed=0), data=("monoid", "n"),
                       paired=False),
    "make_corpus": S(make_corpus, dict(monoid=Z5, n=3, lengths=[2, 3], seed=0), data=("monoid", "n"),
                     paired=False),
    "trace_tokens": S(trace_tokens, dict(text="1234|14|0=0"), data=("text",), paired=False),
    # only the length of the word counts: "abc" is a word of length 3
    "full_chain_tokens": S(full_chain_tokens, dict(word="1234"), data=("word",), paired=False,
                           ok={("word", "string")}),
    "RewriteTokenizer": S(RewriteTokenizer, dict(monoid=Z5), data=("monoid",), paired=False),
    # an empty id sequence decodes to ""
    "RewriteTokenizer.decode": S(TOK.decode, dict(ids=np.array([1, 4, 5, 8, 6, 2])), data=("ids",), paired=False,
                                 ok={("ids", "empty")}),
    "RewriteTokenizer.encode": S(TOK.encode, dict(text="12|3=3"), data=("text",), paired=False),
}

EXEMPT: dict = {}

RESULT_EXAMPLES = {
    "StepAudit": lambda: audit_step("1234", "32", Z5),
    "TraceAudit": lambda: audit_trace("1234|334|22|4=4", Z5),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUT_SPECS))
def test_bad_input_sweep(name):
    assert apicheck.sweep_bad_inputs(BAD_INPUT_SPECS[name]) == []


@pytest.mark.parametrize("name", sorted(RESULT_EXAMPLES))
def test_result_protocol(name):
    apicheck.check_result_protocol(RESULT_EXAMPLES[name]())


def test_result_protocol_edge_cases():
    apicheck.check_result_protocol(audit_step("1234", "22", Z5))        # invalid
    apicheck.check_result_protocol(audit_trace("1234=0", Z5))           # no steps
    apicheck.check_result_protocol(audit_trace("1234|3", Z5))           # truncated


def test_every_public_callable_is_registered():
    names = [n for n in lr.__all__ if getattr(lr, n).__module__ == "learncore.reasoning.rewrite"]
    funcs = [n for n in names if callable(getattr(lr, n)) and not isinstance(getattr(lr, n), type)]
    assert sorted(set(funcs) - set(BAD_INPUT_SPECS) - set(EXEMPT)) == []
    classes = [n for n in names if isinstance(getattr(lr, n), type)]
    assert sorted(set(classes) - set(RESULT_EXAMPLES) - {"Monoid", "RewriteTokenizer"}) == []
    assert StepAudit and TraceAudit


def test_import_does_not_import_torch():
    import os
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]))
    code = ("import sys, learncore.reasoning as r; r.audit_step('12', '3', r.Monoid.cyclic(5)); "
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root, env=env)
    assert out.stdout.strip() == "False"


def test_lazy_names():
    assert set(lr._LAZY) == set(lr.__all__)
    with pytest.raises(AttributeError):
        lr.no_such_name  # noqa: B018
