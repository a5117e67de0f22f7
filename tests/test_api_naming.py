"""Every public signature against docs/conventions.md's naming table, mechanically.

The table (``| name | meaning | never |``) is parsed from the document itself, so a change to the
rule book changes what is enforced. For every public callable of statcore (``statcore.__all__``,
``statcore.testing``, ``statcore.utils``) and learncore (each subpackage's ``__all__``), and for the
public methods and constructors of their public classes, this checks:

- no argument carries a name the table's "never" column forbids (a name the table also defines,
  such as ``d`` or ``r``, is not forbidden; R mirrors are listed in ``R_MIRRORS``);
- every argument after the data is keyword-only: the data of a callable are its positional
  parameters, and a callable with more than one of them declares them in ``DATA`` below;
- ``seed`` defaults to None; replicate counts are ``B``; no builtin names as arguments;
- ``alpha`` is an error rate (a default in (0, 0.5]) and ``conf_level`` a coverage (in [0.5, 1));
- one argument order within a package: two parameters that are positional in several callables of
  one package come in the same order in all of them.
"""
from __future__ import annotations

import builtins
import importlib
import inspect
import re
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: The data parameters of every public callable with more than one positional parameter
#: (``Class`` for a constructor, ``Class.method`` for a method). A callable with at most one
#: positional parameter needs no entry. Everything after these must be keyword-only.
DATA = {
    # statcore: data vectors, matrices and fits
    "lrtest": ("m0", "m1"),
    "ihw": ("p", "covariate"),                            # IHW's p-values and their covariate
    "gcm_test": ("x", "y", "z"),
    "knockoff_filter": ("X", "y"),  # R knockoff's knockoff.filter(X, y, ...)
    "rpcit": ("x", "y", "z"),
    "random_directions": ("d", "k"),                      # the shape of the matrix drawn
    "parcor_pvalues": ("rx", "ry", "wx", "wy"),
    "residualize": ("v", "z"),
    "coupling_mean": ("y1", "y0"),
    "joint_bounds": ("y", "treat"),
    "ite_variance_bounds": ("y", "treat"),
    "makarov_bounds": ("y", "treat"),
    "imbens_manski_interval": ("lower", "upper", "se_lower", "se_upper"),
    "stoye_interval": ("lower", "upper", "se_lower", "se_upper"),
    "identified_set_interval": ("lower", "upper", "se_lower", "se_upper"),
    "c2g": ("y", "treat", "X"),
    "ash": ("betahat", "sebetahat"),
    "dcov": ("x", "y"), "dcor": ("x", "y"), "dcov_u": ("x", "y"), "dcor_u": ("x", "y"),
    "pdcov": ("x", "y", "z"), "pdcor": ("x", "y", "z"),
    "dcor_test": ("x", "y"), "dcov_test": ("x", "y"), "pdcor_test": ("x", "y", "z"),
    "hsic": ("x", "y"), "hsic_test": ("x", "y"),
    "conformal_set": ("density", "grid"),
    "conformal_density_scores": ("density", "grid", "y"),
    "conformal_interval": ("y_cal", "pred_cal", "pred_test"),
    "conformal_cqr": ("y_cal", "lo_cal", "hi_cal", "lo_test", "hi_test"),
    "conformal_classes": ("probs_cal", "y_cal", "probs_test"),
    "frechet_distance": ("x", "y"),
    "frechet_distance_stats": ("mu1", "sigma1", "mu2", "sigma2"),
    "fid_infinity": ("x", "y"), "kid": ("x", "y"), "mmd_test": ("x", "y"), "energy_test": ("x", "y"),
    "prdc": ("x", "y"),
    "roc": ("y", "score"), "auprc": ("y", "score"),
    "roc_test": ("roc1", "roc2"),
    "prediction_rejection_ratio": ("loss", "uncertainty"), "risk_coverage": ("loss", "uncertainty"),
    "calibration_error": ("y", "prob"),
    # statcore.effects: paired or two samples, counts, a coefficient vector with its covariance and positions
    "ratio_ci": ("a", "b"), "bland_altman": ("a", "b"), "ccc": ("a", "b"),
    "coef_ratio_ci": ("params", "cov", "i", "j"),
    "proportion_ci": ("x", "n"), "paired_prop_ci": ("x", "y"), "mcnemar_test": ("x", "y"), "tost": ("x", "y"),
    "pass_at_k": ("n", "c", "k"), "pass_at_k_ci": ("n", "c", "k"),   # Chen et al. (2021)'s pass_at_k(n, c, k)
    "within_tolerance": ("error", "tau"),
    "glu_score": ("hidden_states", "logits"),
    "linear_cka": ("X", "Y"), "linear_cka_ci": ("X", "Y"),   # two representation matrices of the same inputs
    # statcore.retrieval: a query-gallery distance matrix with the ids of its rows and columns; two evaluations
    "cmc_map": ("dist", "query_ids", "gallery_ids"), "compare_retrieval": ("a", "b"),
    "expert_domain_table": ("experts", "domains"),
    "combine_pvalues": ("p", "method"),                  # scipy.stats.combine_pvalues(pvalues, method)
    "permutation_test": ("data", "statistic"), "bootstrap": ("data", "statistic"),   # scipy.stats' signatures
    "cluster_vcov": ("fit", "cluster"),                  # clubSandwich::vcovCR(obj, cluster)
    "dependent_correlation_test": ("r12", "r13", "r23", "n"),   # psych::r.test's correlations and n
    "meta_analysis": ("y", "v"),                         # metafor::rma(yi, vi)
    # statcore.aggregate and statcore.boolean (issue 36)
    "profile_rank_stability": ("table", "profiles"),     # a methods x components table and the weight profiles
    "rate_at_far": ("impostor_scores", "pair_scores"),   # the scores that set the threshold, the scores counted
    "boolean_measures": ("f", "x"),                      # a Boolean function and the input (n keyword-only)
    "prop_effects_above": ("fit", "q"),                  # MetaUtility::prop_stronger(q, ...) on a fit
    "SkeletonResult.is_adjacent": ("a", "b"), "SkeletonResult.sepset": ("a", "b"),   # two nodes
    # statcore.testing: the test (or coverage check) and the sampler are the data
    "assert_size": ("test", "null_sampler"), "assert_coverage": ("covers", "sampler"),
    "assert_error_rate": ("error", "sampler"),
    # statcore.utils: validators take the value and the argument name it came from
    "check_seed": ("seed", "name"), "check_n_jobs": ("n_jobs", "name"), "check_progress": ("progress", "name"),
    "check_nan_policy": ("nan_policy", "allowed"),
    "check_positive_int": ("x", "name"), "check_finite_real": ("x", "name"),
    "check_positive_real": ("x", "name"), "check_probability": ("x", "name"),
    "check_choice": ("x", "name", "choices", "aliases"),
    "check_nonneg_real": ("x", "name"), "as_float_array": ("x", "name"),
    "perm_pvalue": ("observed", "null"),                 # the observed statistic and its null replicates
    "spawn_seeds": ("seed", "n"),                        # the seed and how many streams it gives
    "progress_bar": ("progress", "total"), "parallel_map": ("func", "tasks"),
    # learncore.learning_rules
    "behaviour_metrics": ("trials", "p_right"), "plot_behaviour": ("trials", "p_right"),
    "n_params": ("arch", "hidden"),
    "replay_p_right": ("trials", "arch", "params"),
    "simulate": ("arch", "params", "contrasts"),
    # learncore.bayes
    "layerwise_curvature": ("model", "loss", "x", "y"),
    "BayesianLearningRule.predict": ("model", "x"), "IVON.predict": ("model", "x"),
    # learncore.deepgp: the bandwidth r and the dimension d, in that order
    "distance_chain": ("r", "d"), "lyapunov_exponent": ("r", "d"), "limit_distribution": ("r", "d"),
    "threshold_scan": ("ds", "rs"),
    # learncore.features
    "extract": ("images", "extractor"),
    # learncore.hprobz: the mixture's parameters; a head's layer sizes (torch.nn.Linear's convention)
    "HProbZ": ("logits", "mu", "G", "s"), "GaussianMixture": ("logits", "mu", "sigma"),
    "HProbZHead": ("in_features", "T", "n_modes", "m"), "MixtureHead": ("in_features", "T", "n_modes"),
    "hprobz.fit": ("X", "y"), "HProbZFit.nll": ("X", "y"),
    "HProbZ.condition": ("observed_steps", "values"), "GaussianMixture.condition": ("observed_steps", "values"),
    "HProbZ.affine": ("loc", "scale"), "GaussianMixture.affine": ("loc", "scale"),   # torch's AffineTransform
    "HProbZ.expand": ("batch_shape", "_instance"), "GaussianMixture.expand": ("batch_shape", "_instance"),  # torch.distributions.Distribution.expand
    "TrajectorySets.intervals": ("element", "step"),
    # learncore.llm_uncertainty
    "score_generations": ("model", "inputs"), "greedy_generate": ("model", "prompt"),
    "evaluate_scores": ("table", "correct"),
    # learncore.operators: a model and a dataset; a network's input size and output grid
    "evaluate": ("model", "ds"), "latent_signature": ("model", "ds"),
    "DeepONet": ("n_sensors", "grid"), "PODDeepONet": ("n_sensors", "grid", "basis"),
    "PCANet": ("n_sensors", "grid", "in_basis", "in_mean", "out_basis", "out_mean"),
    "FNO": ("n_sensors", "grid", "grid_shape", "sensor_idx"),
    "DeepONet.from_dataset": ("ds",), "PODDeepONet.from_dataset": ("ds",), "PCANet.from_dataset": ("ds",),
    "FNO.from_dataset": ("ds",),
    # learncore.slim: the network and its width(s); the curve's scorer; the fine-tuning batches
    "slim_width": ("model", "s"), "slim_cost": ("model", "s"),
    "slimming_curve": ("model", "widths", "evaluate"), "slimmable_finetune": ("model", "widths", "data"),
    # learncore.moe: a router's token dimension and expert count (torch.nn.Linear's order); a loss's data
    "HypersphericalRouter": ("d", "n_experts"), "LinearRouter": ("d", "n_experts"),
    "MoEAdapter": ("in_features", "out_features"),
    "TokenPurification.scores": ("tokens", "probs"),
    "load_balance_loss": ("probs", "indices"), "batch_hard_triplet_loss": ("embeddings", "labels"),
    # learncore.reasoning analyses: the samples' correctness and the k values; the traces and their monoid
    "pass_at_k_curve": ("samples_correct", "ks"), "step_mix": ("traces", "monoid"),
    "procedure_repertoire": ("traces", "monoid"),
    # learncore.reasoning (rewrite): a word or trace and its monoid; a monoid's two symbols; the problems' count
    "primitive_step": ("word", "i", "monoid"), "primitive_chain": ("word", "monoid"),
    "format_trace": ("words", "answer"), "reward": ("text", "monoid"), "audit_trace": ("text", "monoid"),
    "audit_step": ("u", "v", "monoid"), "make_problems": ("monoid", "n"), "make_corpus": ("monoid", "n"),
    "Monoid.mul": ("x", "y"), "Monoid.check_word": ("word", "name"),
    # learncore.reasoning.train: the model, its tokenizer, the texts/prompts/problems (and the environment)
    "pretrain": ("model", "tokenizer", "texts"), "sample": ("model", "tokenizer", "prompts"),
    "train_rl": ("model", "tokenizer", "problems", "monoid"), "grpo_advantages": ("rewards", "group_size"),
    # learncore.reasoning.hints: a trace and its split points; a solver, its problem and the prefixes; the
    # problems and their searches; paired token counts
    "split_trace": ("text", "keywords"), "minimal_prefix": ("solve", "problem", "prefixes"),
    "build_hint_dataset": ("problems", "searches"), "token_reduction": ("len_base", "len_new"),
    "format_sft": ("problem", "state"),
    # statcore.protocols (breadth): per-topic shifts and their standard errors; fine-tuned and few-shot shifts
    "shift_breadth": ("shifts", "se"), "amplification": ("ft", "fs"),
    # learncore.protocols (stance): the language model and its probes; the paired stances
    "stance_scores": ("model", "probes"), "stance_shifts": ("base", "tuned", "few_shot"),
    # statcore.protocols (information discernment): the trial vectors
    "weight_of_advice": ("prior", "posterior", "claim"),
    "discernment": ("woa", "reliability", "improvement", "popularity"),
    # learncore.protocols (belief elicitation): the model, its prompts and the trials
    "belief_trials": ("model", "questions", "sources"),
    # learncore.stereo: the rectified pair; an estimate and its truth
    "block_match": ("left", "right"), "semi_global_match": ("left", "right"), "opencv_sgbm": ("left", "right"),
    "inlier_ratio": ("depth", "depth_gt"), "depth_accuracy": ("disparity", "disparity_gt"),
    "landmark_error": ("points", "points_gt"), "ipd_error": ("pupils", "pupils_gt"),
}

#: (callable, argument) pairs that mirror an R (or scipy) function's argument name, as the table's
#: first rule allows.
R_MIRRORS = {
    ("qvalue", "fdr_level"), ("qvalue", "lambda_"), ("pi0est", "lambda_"), ("qvalue", "eps"), ("lfdr", "eps"),
    # mutoss's adaptiveSTS/indepBR/twostageBR ``lambda`` (a threshold or constant, not a penalty weight)
    ("fdr_adaptive", "lambda_"),
}

#: Names the "never" column forbids for one concept that a callable uses, documented, for another
#: (the reason is the value).
OTHER_CONCEPT = {
    ("c2g", "model"): "the C2G model of the outcome (additive or nonparametric), not a regression",
    ("loglik", "model"): "the fitted model whose log-likelihood is taken (the data)",
    ("layerwise_curvature", "model"): "the network (the data)",
    ("BayesianLearningRule.predict", "model"): "the network (the data)",
    ("IVON.predict", "model"): "the network (the data)",
    ("score_generations", "model"): "the language model (the data)",
    ("greedy_generate", "model"): "the language model (the data)",
    ("evaluate", "model"): "the operator network (the data)",
    ("latent_signature", "model"): "the operator network (the data)",
    ("NOIR", "model"): "the operator network trained",
    ("slim_width", "model"): "the pretrained network slimmed (the data)",
    ("slim_cost", "model"): "the pretrained network counted (the data)",
    ("slimming_curve", "model"): "the pretrained network slimmed (the data)",
    ("slimmable_finetune", "model"): "the pretrained network fine-tuned (the data)",
    ("pretrain", "model"): "the language model pretrained (the data)",
    ("sample", "model"): "the language model sampled (the data)",
    ("train_rl", "model"): "the language model post-trained (the data)",
    ("stance_scores", "model"): "the language model whose stance is elicited (the data)",
    ("belief_trials", "model"): "the language model whose beliefs are elicited (the data)",
    ("parcor_pvalues", "q"): "the dimension of the projections, Shah & Peters' q",
    ("prop_effects_above", "q"): "the effect-size threshold, MetaUtility::prop_stronger's q (Mathur & VanderWeele)",
    ("corrupt", "level"): "the strength of a sensor corruption, not a confidence level",
    ("latent_signature", "level"): "the strength of the sensor corruption, not a confidence level",
}

BUILTIN_NAMES = {n for n in dir(builtins) if not n.startswith("_") and n[0].islower()}
REPLICATE_NAMES = {"n_boot", "n_perm", "nboot", "nperm", "n_bootstrap", "n_permutations", "R"}

PACKAGES = ["statcore", "statcore.testing", "statcore.utils", "learncore.learning_rules", "learncore.bayes",
            "learncore.deepgp", "learncore.features", "learncore.hprobz", "learncore.llm_uncertainty",
            "learncore.operators", "learncore.slim", "learncore.moe",
            "learncore.reasoning", "learncore.protocols"]
PACKAGES += ["learncore.stereo"]


def _table():
    """The rows of the naming table of docs/conventions.md: (names, meaning, never)."""
    text = (ROOT / "docs" / "conventions.md").read_text()
    start = text.index("| name | meaning | never |")
    rows = []
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        rows.append(cells)
    return rows


def _ticked(cell):
    return re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", cell)


def _forbidden():
    """Argument names the never column forbids, with the row that forbids them. An entry qualified
    by a context ("`alpha` for an interval", "`verbose` for a bar") bans the name in that context only
    and is checked by hand; "(outside ...)" lists its exceptions. A name the table defines is never
    forbidden outright (it has a sanctioned meaning)."""
    rows = _table()
    defined = {n for names, _, _ in rows for n in _ticked(names)}
    out = {}
    for names, _, never in rows:
        for item in re.split(r",\s*(?![^()]*\))", never):
            item = item.strip()
            m = re.fullmatch(r"`([A-Za-z_][A-Za-z0-9_]*)`(\s*\(outside [^)]*\))?", item)
            if m and m.group(1) not in defined:
                out[m.group(1)] = names
    return out


MISSING = []      # subpackages that could not be imported here (an optional dependency absent)


def _load(modname):
    try:
        return importlib.import_module(modname)
    except ImportError:  # pragma: no cover (a learncore subpackage whose optional dependency is absent)
        MISSING.append(modname)
        return None


def _public_callables():
    """(qualified name, registry key, package, signature) of every public callable."""
    out, seen = [], set()
    for modname in PACKAGES:
        mod = _load(modname)
        if mod is None:
            continue
        pkg = modname.split(".")[0] if modname.startswith("statcore") else modname
        for name in mod.__all__:
            obj = getattr(mod, name)
            key = name if modname != "learncore.hprobz" or name != "fit" else "hprobz.fit"
            if inspect.isclass(obj):
                if issubclass(obj, BaseException) or id(obj) in seen:
                    continue
                seen.add(id(obj))
                if "__dataclass_fields__" not in vars(obj) and "__init__" in _own_dict(obj):
                    out.append((f"{modname}.{name}", key, pkg, inspect.signature(obj)))
                for attr, member in _own_dict(obj).items():
                    if attr.startswith("_") or attr == "forward":
                        continue
                    func = member.__func__ if isinstance(member, (classmethod, staticmethod)) else member
                    if not inspect.isfunction(func):
                        continue
                    sig = inspect.signature(getattr(obj, attr))
                    if not isinstance(member, (classmethod, staticmethod)):
                        sig = sig.replace(parameters=list(sig.parameters.values())[1:])
                    out.append((f"{modname}.{name}.{attr}", f"{name}.{attr}", pkg, sig))
            elif callable(obj):
                if id(obj) in seen:
                    continue
                seen.add(id(obj))
                out.append((f"{modname}.{name}", key, pkg, inspect.signature(obj)))
    return out


def _own_dict(cls):
    """Members defined by the class or its bases in statcore/learncore (not torch's, not object's)."""
    members = {}
    for klass in reversed(cls.__mro__):
        if klass.__module__.split(".")[0] in ("statcore", "learncore"):
            members.update(vars(klass))
    return members


CALLABLES = _public_callables()
IDS = [c[0] for c in CALLABLES]


def _positional(sig):
    return [p for p in sig.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


def test_the_table_is_parsed():
    rows = _table()
    names = {n for row in rows for n in _ticked(row[0])}
    assert {"alpha", "conf_level", "B", "seed", "n_jobs", "nan_policy"} <= names
    forbidden = _forbidden()
    assert {"n_boot", "rng", "random_state", "workers", "fdr_level"} <= set(forbidden)
    assert "d" not in forbidden and "r" not in forbidden      # defined in the table with a meaning


@pytest.mark.parametrize("qualname,key,pkg,sig", CALLABLES, ids=IDS)
def test_no_forbidden_name(qualname, key, pkg, sig):
    forbidden = _forbidden()
    bad = [p for p in sig.parameters if p in forbidden and (key, p) not in R_MIRRORS
           and (key, p) not in OTHER_CONCEPT]
    assert not bad, f"{qualname}: {bad} forbidden by the naming table (rows {[forbidden[b] for b in bad]})"


@pytest.mark.parametrize("qualname,key,pkg,sig", CALLABLES, ids=IDS)
def test_keyword_only_after_the_data(qualname, key, pkg, sig):
    pos = [p.name for p in _positional(sig)]
    if len(pos) <= 1 and key not in DATA:
        return
    assert key in DATA, f"{qualname}: positional parameters {pos}; declare its data in DATA or make the rest keyword-only"
    assert tuple(pos) == DATA[key], (f"{qualname}: positional parameters {pos}, data {DATA[key]}: everything "
                                     "after the data must be keyword-only")


@pytest.mark.parametrize("qualname,key,pkg,sig", CALLABLES, ids=IDS)
def test_seed_replicates_builtins(qualname, key, pkg, sig):
    params = sig.parameters
    if "seed" in params and key not in ("check_seed", "spawn_seeds"):  # their data is the seed
        assert params["seed"].default is None, f"{qualname}: seed defaults to {params['seed'].default!r}, not None"
    bad = sorted(set(params) & REPLICATE_NAMES)
    assert not bad, f"{qualname}: replicate counts are B, not {bad}"
    bad = sorted(set(params) & BUILTIN_NAMES)
    assert not bad, f"{qualname}: builtin names as arguments: {bad}"


@pytest.mark.parametrize("qualname,key,pkg,sig", CALLABLES, ids=IDS)
def test_alpha_is_an_error_rate_and_conf_level_a_coverage(qualname, key, pkg, sig):
    for name, low, high in (("alpha", 0.0, 0.5), ("conf_level", 0.5, 1.0)):
        p = sig.parameters.get(name)
        if p is None or p.default is p.empty or p.default is None:
            continue
        assert isinstance(p.default, float) and low < p.default <= high and not (name == "conf_level"
                                                                                  and p.default == 1.0), \
            f"{qualname}: {name}={p.default!r} is not an error rate/coverage; the table gives it one meaning"


#: functions that keep the argument order of the R function they mirror against the package's order
ORDER_R_MIRRORS = {
    "statcore.knockoff_filter": "R knockoff's knockoff.filter(X, y): X before y (c2g has y, treat, X)",
}


def test_one_argument_order_within_a_package():
    order = defaultdict(dict)                         # package -> (a, b) -> callables with a before b
    for qualname, _, pkg, sig in CALLABLES:
        if qualname in ORDER_R_MIRRORS:
            continue
        pos = [p.name for p in _positional(sig)]
        for i, a in enumerate(pos):
            for b in pos[i + 1:]:
                order[pkg].setdefault((a, b), []).append(qualname)
    clashes = [(pkg, a, b, pairs[(a, b)], pairs[(b, a)]) for pkg, pairs in order.items()
               for (a, b) in pairs if a < b and (b, a) in pairs]
    assert not clashes, f"one argument order per package: {clashes}"


def test_the_registries_name_existing_callables():
    keys = {c[1] for c in CALLABLES}
    names = {c[1]: set(c[3].parameters) for c in CALLABLES}
    stale = [k for k in DATA if k not in keys]
    assert not stale or MISSING, f"DATA names no public callable: {stale}"
    forbidden = _forbidden()
    for key, arg in set(R_MIRRORS) | set(OTHER_CONCEPT):
        if key not in names and MISSING:
            continue
        assert key in names and arg in names[key], f"{key} has no argument {arg!r}: drop it from the exceptions"
        assert arg in forbidden, f"{arg!r} is not forbidden by the table: drop ({key!r}, {arg!r}) from the exceptions"
