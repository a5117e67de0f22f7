"""step_mix and procedure_repertoire on traces whose audit is known by construction: primitive chains
(every step atomic and valid), chains with two consecutive leftmost steps merged (a sequential
contraction of three symbols), and corrupted steps (a changed symbol changes the product of the word
in a group, so no segmentation can hold: invalid)."""
from collections import Counter

import numpy as np
import pytest

from learncore.reasoning import Monoid, procedure_repertoire, step_mix
from learncore.reasoning.analysis import LABELS

Z5 = Monoid.cyclic(5)
S3 = Monoid.s3()


def _left_step(word, monoid):
    return monoid.mul(word[0], word[1]) + word[2:]


def _build(monoid, rng, n, p_merge, p_corrupt, lengths=(4, 5, 6, 7)):
    """Traces with their known audit: counts of atomic / sequential / invalid steps, invalid
    shortcuts, the composed procedures used (text -> uses) and the atomic ones."""
    texts, truth = [], Counter()
    seq_procs, atomic_procs = Counter(), Counter()
    syms = monoid.symbols
    for _ in range(n):
        w = "".join(rng.choice(list(syms), size=int(rng.choice(lengths))))
        words = [w]
        while len(w) > 1:
            if len(w) >= 3 and rng.random() < p_merge:
                v = monoid.product(w[:3]) + w[3:]
                kind, proc = "sequential", f"{w[:3]}>{v[0]}"
            else:
                v = _left_step(w, monoid)
                kind, proc = "atomic", f"{w[:2]}>{v[0]}"
            if rng.random() < p_corrupt:
                bad = v[0]
                while bad == v[0]:
                    bad = syms[int(rng.integers(len(syms)))]
                v = bad + v[1:]
                kind = "invalid"
            truth[kind] += 1
            if kind == "invalid" and len(w) - len(v) >= 2:
                truth["invalid_shortcut"] += 1
            if kind == "sequential":
                seq_procs[proc] += 1
            elif kind == "atomic":
                atomic_procs[proc] += 1
            words.append(v)
            w = v
        answer = words[-1]
        truth["correct"] += answer == monoid.product(words[0])
        texts.append(words[0] + "".join("|" + x for x in words[1:]) + "=" + answer)
    return texts, truth, seq_procs, atomic_procs


@pytest.mark.parametrize("monoid", [Z5, S3], ids=["Z5", "S3"])
def test_step_mix_counts_equal_the_construction(monoid):
    rng = np.random.default_rng(11)
    texts, truth, _, _ = _build(monoid, rng, 60, p_merge=0.35, p_corrupt=0.15)
    mix = step_mix(texts, monoid)
    n_steps = truth["atomic"] + truth["sequential"] + truth["invalid"]
    assert mix.n_steps.tolist() == [n_steps] and mix.n_traces.tolist() == [60]
    counts = dict(zip(LABELS, mix.label_counts[0].tolist()))
    assert counts == {"atomic": truth["atomic"], "sequential": truth["sequential"], "parallel": 0, "mixed": 0,
                      "invalid": truth["invalid"], "no-op": 0}
    assert mix.valid_rate[0] == pytest.approx((truth["atomic"] + truth["sequential"]) / n_steps)
    assert mix.contraction_rate[0] == pytest.approx(truth["sequential"] / n_steps)
    assert mix.invalid_shortcut_rate[0] == pytest.approx(truth["invalid_shortcut"] / n_steps)
    shortcuts = truth["sequential"] + truth["invalid_shortcut"]
    assert mix.shortcut_rate[0] == pytest.approx(shortcuts / n_steps)
    assert mix.invalid_shortcut_share[0] == pytest.approx(truth["invalid_shortcut"] / shortcuts)
    assert mix.accuracy[0] == pytest.approx(truth["correct"] / 60)
    assert mix.mean_steps[0] == pytest.approx(n_steps / 60)
    np.testing.assert_allclose(mix.label_share.sum(axis=1), 1.0)


def test_step_mix_hand_cases_from_the_issue():
    # Z5 from u = "1234": "334" atomic, "14" sequential, "32" parallel, "0" sequential, "22" invalid
    texts = ["1234|334=0", "1234|14=0", "1234|32=0", "1234|0=0", "1234|22=4"]
    mix = step_mix({"a": texts[:2], "b": texts[2:]}, Z5)
    assert mix.checkpoints == ("a", "b")
    assert mix.label_counts.tolist() == [[1, 1, 0, 0, 0, 0], [0, 1, 1, 0, 1, 0]]
    assert mix.contraction_rate.tolist() == [0.5, 2 / 3]
    assert mix.invalid_shortcut_rate.tolist() == [0.0, 1 / 3]
    assert mix.invalid_shortcut_share[0] == 0.0 and mix.invalid_shortcut_share[1] == pytest.approx(1 / 3)
    # the answer is given while the last word still has 2+ symbols, except "0=0"
    assert mix.early_answer_rate.tolist() == [1.0, 2 / 3]
    assert mix.accuracy.tolist() == [1.0, 2 / 3]


def test_step_mix_without_shortcuts_and_direct_answers():
    mix = step_mix([["12|3=3", "1234=0"], ["123|33|1=1"]], Z5)
    assert mix.checkpoints == (0, 1)
    assert mix.n_steps.tolist() == [1, 2] and mix.mean_steps.tolist() == [0.5, 2.0]
    assert np.isnan(mix.invalid_shortcut_share).all()          # no shortcut attempted at all
    assert mix.early_answer_rate.tolist() == [0.5, 0.0]
    frame = mix.to_frame()
    assert list(frame["checkpoint"]) == [0, 1] and "share_no_op" in frame


def test_repertoire_counts_equal_the_construction():
    rng = np.random.default_rng(5)
    ck = {}
    seq_total, atomic_total = Counter(), Counter()
    for step in (0, 50, 100):
        texts, _, seq, atomic = _build(S3, rng, 40, p_merge=0.5, p_corrupt=0.1, lengths=(4, 5))
        ck[step] = texts
        seq_total.update(seq)
        atomic_total.update(atomic)
    rep = procedure_repertoire(ck, S3, top=5)
    assert dict(zip(rep.procedure, rep.count.tolist())) == dict(seq_total)
    assert set(rep.label) == {"sequential"} and set(rep.pattern) == {"3"} and set(rep.compressed.tolist()) == {2}
    assert rep.counts.sum(axis=1).tolist() == rep.count.tolist()
    assert rep.n_composed.tolist() == rep.counts.sum(axis=0).tolist()
    assert list(rep.count) == sorted(rep.count, reverse=True)
    full = procedure_repertoire(ck, S3, top=5, composed_only=False)
    assert dict(zip(full.procedure, full.count.tolist())) == dict(seq_total + atomic_total)
    # top sets and their Jaccard similarities, recomputed from the per-checkpoint counts
    for i in range(3):
        per = {p: int(c) for p, c in zip(rep.procedure, rep.counts[:, i]) if c > 0}
        expect = tuple(sorted(per, key=lambda p: (-per[p], p))[:5])
        assert rep.top_sets[i] == expect
    for i in range(2):
        a, b = set(rep.top_sets[i]), set(rep.top_sets[i + 1])
        assert rep.jaccard[i] == pytest.approx(len(a & b) / len(a | b))
    assert rep.jaccard_to_last[-1] == 1.0


def test_repertoire_hand_case_parallel_reuse_and_stability():
    ck = {0: ["1234|32|0=0", "1234|14|0=0"], 1: ["1234|32|0=0", "3434|22|4=4"], 2: ["1111|22|4=4"]}
    rep = procedure_repertoire(ck, Z5, top=2)
    assert rep.procedure == ("12>3,34>2", "11>2,11>2", "123>1", "34>2,34>2")
    assert rep.count.tolist() == [2, 1, 1, 1] and rep.n_traces.tolist() == [2, 1, 1, 1]
    assert rep.label == ("parallel", "parallel", "sequential", "parallel")
    assert rep.pattern == ("2+2", "2+2", "3", "2+2")
    assert rep.counts.tolist() == [[1, 1, 0], [0, 0, 1], [1, 0, 0], [0, 1, 0]]
    assert rep.top_sets == (("123>1", "12>3,34>2"), ("12>3,34>2", "34>2,34>2"), ("11>2,11>2",))
    np.testing.assert_allclose(rep.jaccard, [1 / 3, 0.0])
    np.testing.assert_allclose(rep.jaccard_to_last, [0.0, 0.0, 1.0])
    frame = rep.to_frame()
    assert frame["first_checkpoint"].tolist() == [0, 2, 0, 1]
    assert frame["in_last_top"].tolist() == [False, True, False, False]


def test_repertoire_without_composed_steps():
    rep = procedure_repertoire([["12|3=3"], ["123|33|1=1"]], Z5)
    assert rep.procedure == () and rep.count.size == 0 and rep.counts.shape == (0, 2)
    assert np.isnan(rep.jaccard).all() and "no procedure" in rep.summary()


def test_bad_traces_are_refused_naming_traces():
    with pytest.raises(ValueError, match="traces"):
        step_mix(["12|x=3"], Z5)
    with pytest.raises(ValueError, match="traces"):
        step_mix({0: []}, Z5)
    with pytest.raises(ValueError, match="traces"):
        step_mix([""], Z5)
    with pytest.raises(TypeError, match="traces"):
        step_mix("12|3=3", Z5)
    with pytest.raises(TypeError, match="traces"):
        procedure_repertoire(["12|3=3", ["12|3=3"]], Z5)
    with pytest.raises(TypeError, match="monoid"):
        step_mix(["12|3=3"], np.eye(2))
    with pytest.raises(ValueError, match="top"):
        procedure_repertoire(["12|3=3"], Z5, top=0)


def test_truncated_traces_drop_their_unfinished_last_step():
    # "1234|334|1" was cut inside its third word: 334 -> 1 would read as an invalid shortcut
    mix = step_mix(["1234|334|1", "1234|334|14|0=0"], Z5)
    assert mix.n_steps.tolist() == [4] and mix.label_counts[0].tolist() == [4, 0, 0, 0, 0, 0]
    assert mix.truncated_rate.tolist() == [0.5] and mix.invalid_shortcut_rate.tolist() == [0.0]
    assert mix.accuracy.tolist() == [0.5]
    rep = procedure_repertoire(["1234|14|0", "1234|14|0=0"], Z5)
    assert rep.count.tolist() == [2]


class _FakeRun:
    """The two fields of train_rl's result that the analyses read."""
    checkpoint_steps = np.array([0, 40])
    checkpoints = ((("1234|334|14|0=0", "1234|14|0=0"), ("12|3=3",)), (("1234|0=0",), ("12|3=3", "12|4=4")))


def test_a_training_result_gives_its_checkpoints_by_step():
    mix = step_mix(_FakeRun(), Z5)
    assert mix.checkpoints == (0, 40) and mix.n_traces.tolist() == [3, 3]
    assert mix == step_mix({0: ["1234|334|14|0=0", "1234|14|0=0", "12|3=3"], 40: ["1234|0=0", "12|3=3", "12|4=4"]},
                           Z5)
    rep = procedure_repertoire(_FakeRun(), Z5)
    assert rep.procedure == ("1234>0", "123>1") and rep.counts.tolist() == [[0, 1], [1, 0]]
