"""Every public function and class has a numpydoc docstring: Parameters that match the signature,
Returns, References and an Examples section (which the doctest run executes)."""
import inspect

import pytest

numpydoc_validate = pytest.importorskip("numpydoc.validate")

import statcore  # noqa: E402

#: numpydoc checks enforced on functions: a docstring, every parameter documented and no unknown
#: one, a Returns section, an Examples section
FUNCTION_CHECKS = {"GL08", "PR01", "PR02", "RT01", "EX01"}
#: on classes: a docstring and an Examples section
CLASS_CHECKS = {"GL08", "EX01"}


def _public():
    out = {f"statcore.{n}": getattr(statcore, n) for n in statcore.__all__}
    try:
        import learncore.stereo as stereo  # numpy and numba only (no torch)
    except ImportError:  # pragma: no cover (learncore.stereo needs numba)
        stereo = None
    if stereo is not None:
        out.update({f"learncore.stereo.{n}": getattr(stereo, n) for n in stereo.__all__})
    import statcore.utils as utils

    out.update({f"statcore.utils.{n}": getattr(utils, n) for n in utils.__all__})
    import statcore.testing as testing

    out.update({f"statcore.testing.{n}": getattr(testing, n) for n in testing.__all__})
    try:
        import learncore.learning_rules as lr
    except ImportError:  # pragma: no cover
        return out
    out.update({f"learncore.learning_rules.{n}": getattr(lr, n) for n in lr.__all__})
    try:
        import learncore.bayes as bayes
    except ImportError:  # pragma: no cover (learncore.bayes needs torch)
        return out
    out.update({f"learncore.bayes.{n}": getattr(bayes, n) for n in bayes.__all__})
    try:
        import learncore.hprobz as hprobz
    except ImportError:  # pragma: no cover (learncore.hprobz needs torch)
        return out
    out.update({f"learncore.hprobz.{n}": getattr(hprobz, n) for n in hprobz.__all__})
    try:
        import learncore.features as features
    except ImportError:  # pragma: no cover (learncore.features needs torch)
        return out
    out.update({f"learncore.features.{n}": getattr(features, n) for n in features.__all__})
    try:
        import learncore.llm_uncertainty as llm_uncertainty
    except ImportError:  # pragma: no cover (learncore.llm_uncertainty needs torch)
        return out
    out.update({f"learncore.llm_uncertainty.{n}": getattr(llm_uncertainty, n) for n in llm_uncertainty.__all__})
    try:
        import learncore.deepgp as deepgp
    except ImportError:  # pragma: no cover (learncore.deepgp needs torch)
        return out
    out.update({f"learncore.deepgp.{n}": getattr(deepgp, n) for n in deepgp.__all__})
    try:
        import learncore.operators as operators
    except ImportError:  # pragma: no cover (learncore.operators' models need torch)
        return out
    out.update({f"learncore.operators.{n}": getattr(operators, n) for n in operators.__all__})
    import learncore.slim as slim

    out.update({f"learncore.slim.{n}": getattr(slim, n) for n in slim.__all__})
    try:
        import learncore.moe as moe
    except ImportError:  # pragma: no cover (learncore.moe needs torch)
        return out
    out.update({f"learncore.moe.{n}": getattr(moe, n) for n in moe.__all__})
    try:
        import learncore.reasoning as reasoning  # lazy names: the environment is numpy only

        out.update({f"learncore.reasoning.{n}": getattr(reasoning, n) for n in reasoning.__all__})
    except ImportError:  # pragma: no cover (learncore.reasoning's training modules need torch)
        pass
    try:
        import learncore.protocols as protocols
    except ImportError:  # pragma: no cover (learncore.protocols needs torch)
        return out
    out.update({f"learncore.protocols.{n}": getattr(protocols, n) for n in protocols.__all__})
    return out


PUBLIC = {q: o for q, o in _public().items() if inspect.isfunction(o) or inspect.isclass(o)
          or hasattr(o, "__wrapped__")}
WARNINGS = {q for q, o in PUBLIC.items() if inspect.isclass(o) and issubclass(o, Warning)}


def _qualname(q, obj):
    mod = getattr(obj, "__module__", None)
    return f"{mod}.{obj.__qualname__}" if mod else q


@pytest.mark.parametrize("name", sorted(set(PUBLIC) - WARNINGS))
def test_numpydoc(name):
    obj = PUBLIC[name]
    report = numpydoc_validate.validate(_qualname(name, obj))
    checks = CLASS_CHECKS if inspect.isclass(obj) else FUNCTION_CHECKS
    errors = [f"{code}: {msg}" for code, msg in report["errors"] if code in checks]
    assert not errors, f"{name}:\n" + "\n".join(errors)
    if not inspect.isclass(obj):
        doc = inspect.getdoc(obj) or ""
        assert "References\n----------" in doc, f"{name}: no References section"


_SUBSTITUTION = __import__("re").compile(r"(?<![`|\w])\|[^|`\s][^|`\n]*?\|(?![`|\w])")


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_no_accidental_rest_substitution(name):
    """``|T|`` outside a code span is a reST substitution reference, which the site build (-W) refuses:
    write ``abs(T)`` or a code span."""
    import re

    obj = PUBLIC[name]
    docs = [inspect.getdoc(obj) or ""]
    if inspect.isclass(obj):
        docs += [inspect.getdoc(v) or "" for k, v in vars(obj).items() if not k.startswith("_") and callable(v)]
    for doc in docs:
        text = re.sub(r"``.*?``", "", doc, flags=re.S)
        text = re.sub(r":math:`.*?`", "", text)
        text = re.sub(r"\.\. math::.*?(\n\n|$)", "", text, flags=re.S)
        found = _SUBSTITUTION.findall(text)
        assert not found, f"{name}: {found} would be read as reST substitutions"
