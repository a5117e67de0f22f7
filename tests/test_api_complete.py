"""Every public function is covered by the bad-input sweep and every result class by the protocol
check (each package's tests/**/test_api_*.py registers what it covers; see tests/apicheck.py)."""
import importlib.util
import inspect
from pathlib import Path

import pytest

import statcore
from statcore._result import Result

HERE = Path(__file__).resolve().parent


def _registries():
    specs, examples, exempt = {}, {}, {}
    for path in sorted(HERE.rglob("test_api_*.py")):
        if path.name == Path(__file__).name:
            continue
        mod_spec = importlib.util.spec_from_file_location(f"_api_registry_{path.stem}", path)
        mod = importlib.util.module_from_spec(mod_spec)
        try:
            mod_spec.loader.exec_module(mod)
        except pytest.skip.Exception:  # learncore's registry without torch: its functions are not counted
            continue
        specs.update(getattr(mod, "BAD_INPUT_SPECS", {}))
        examples.update(getattr(mod, "RESULT_EXAMPLES", {}))
        exempt.update(getattr(mod, "EXEMPT", {}))
    return specs, examples, exempt


def _public():
    names = {f"statcore.{n}": getattr(statcore, n) for n in statcore.__all__}
    import statcore.testing as testing

    names.update({f"statcore.testing.{n}": getattr(testing, n) for n in testing.__all__})
    try:
        import learncore.learning_rules as lr
    except ImportError:  # pragma: no cover
        lr = None
    if lr is not None:
        names.update({f"learncore.learning_rules.{n}": getattr(lr, n) for n in lr.__all__})
    try:
        import learncore.bayes as bayes
    except ImportError:  # pragma: no cover
        bayes = None
    if bayes is not None:
        names.update({f"learncore.bayes.{n}": getattr(bayes, n) for n in bayes.__all__})
    try:
        import learncore.hprobz as hprobz
    except ImportError:  # pragma: no cover (learncore.hprobz needs torch)
        hprobz = None
    if hprobz is not None:
        names.update({f"learncore.hprobz.{n}": getattr(hprobz, n) for n in hprobz.__all__})
    try:
        import learncore.features as features
    except ImportError:  # pragma: no cover (learncore.features needs torch)
        features = None
    if features is not None:
        names.update({f"learncore.features.{n}": getattr(features, n) for n in features.__all__})
    try:
        import learncore.llm_uncertainty as llm_uncertainty
    except ImportError:  # pragma: no cover (learncore.llm_uncertainty needs torch)
        llm_uncertainty = None
    if llm_uncertainty is not None:
        names.update({f"learncore.llm_uncertainty.{n}": getattr(llm_uncertainty, n) for n in llm_uncertainty.__all__})
    try:
        import learncore.deepgp as deepgp
    except ImportError:  # pragma: no cover (learncore.deepgp needs torch)
        deepgp = None
    if deepgp is not None:
        names.update({f"learncore.deepgp.{n}": getattr(deepgp, n) for n in deepgp.__all__})
    try:
        import learncore.slim as slim
    except ImportError:  # pragma: no cover (learncore.slim needs torch)
        slim = None
    if slim is not None:
        names.update({f"learncore.slim.{n}": getattr(slim, n) for n in slim.__all__})
    try:
        import learncore.moe as moe
    except ImportError:  # pragma: no cover (learncore.moe needs torch)
        moe = None
    if moe is not None:
        names.update({f"learncore.moe.{n}": getattr(moe, n) for n in moe.__all__})
    try:
        import learncore.reasoning as reasoning  # lazy names: the environment is numpy only

        names.update({f"learncore.reasoning.{n}": getattr(reasoning, n) for n in reasoning.__all__})
    except ImportError:  # pragma: no cover (learncore.reasoning's training modules need torch)
        pass
    try:
        import learncore.protocols as protocols
    except ImportError:  # pragma: no cover (learncore.protocols needs torch)
        protocols = None
    if protocols is not None:
        names.update({f"learncore.protocols.{n}": getattr(protocols, n) for n in protocols.__all__})
    try:
        import learncore.stereo as stereo  # numpy and numba only
    except ImportError:  # pragma: no cover (learncore.stereo needs numba)
        stereo = None
    if stereo is not None:
        names.update({f"learncore.stereo.{n}": getattr(stereo, n) for n in stereo.__all__})
    try:
        import learncore.operators as operators
    except ImportError:  # pragma: no cover (learncore.operators' models need torch)
        return names
    names.update({f"learncore.operators.{n}": getattr(operators, n) for n in operators.__all__})
    return names


def _all_result_classes():
    seen, stack = set(), [Result]
    while stack:
        cls = stack.pop()
        for sub in cls.__subclasses__():
            if sub not in seen:
                seen.add(sub)
                stack.append(sub)
    return {c.__name__: c for c in seen if not c.__name__.startswith("_")
            and c.__module__.split(".")[0] in ("statcore", "learncore")}


def test_every_public_function_is_swept():
    specs, _, exempt = _registries()
    funcs = [q for q, o in _public().items() if inspect.isfunction(o) or (callable(o) and not inspect.isclass(o))]
    missing = [q for q in funcs if q.rsplit(".", 1)[1] not in specs and q.rsplit(".", 1)[1] not in exempt]
    assert not missing, f"public functions without a bad-input spec: {missing}"


def test_every_result_class_is_checked():
    _, examples, _ = _registries()
    import learncore.learning_rules  # noqa: F401  (registers learncore's result classes)

    missing = sorted(set(_all_result_classes()) - set(examples))
    assert not missing, f"result classes without a protocol example: {missing}"
