"""The reasoning-traces study of issue 35 in one place, for ``benchmarks/bench_reasoning.py`` and
``vignettes/reasoning_rewrite.py`` (an experiment harness on learncore's and statcore's public API, not
part of either).

The design (each stage on the same monoid, S3 by default):

1. Pretraining on short words (lengths 3-6) on each corpus of the ablation: full leftmost primitive
   chains, isolated single steps, chains in random reduction order (``make_corpus(kind=...)``).
2. Post-training of each pretrained model by GRPO, REINFORCE and rejection fine-tuning (RFT) with the same
   sample budget per step (``batch_size * group_size`` samples) and the same token budget
   (``max_new_tokens`` = the full primitive chain of a length-6 word): RL problems of lengths 4-7, so
   that length-7 words fit the budget only if steps are contracted (or the answer is given before the
   word is reduced to one symbol).
3. Evaluation on fresh words of lengths 4-8 (8 is held out of every stage, 7 of pretraining):
   pass@k curves (``pass_at_k_curve``), and the checkpoints' sampled traces audited step by step
   (``step_mix``: valid-step and contraction rates, the label mix, RFT's invalid shortcuts;
   ``procedure_repertoire``: composed procedures, their reuse and stability).
4. Hint Tuning on top: the GRPO chain model of the full corpus is the "thinking" model (prompt
   ``w0|``), a model pretrained on direct answers ``w=x`` the "instruct" model (prompt ``w=``). A trace
   is split at its step separators; the instruct model is handed each cumulative prefix and answers
   from the prefix's last word (the state of the rewrite: what came before it is history);
   ``minimal_prefix`` finds the shortest prefix that solves, ``build_hint_dataset`` assigns the three
   states and writes the fine-tuning texts ``w0=x`` (No-Hint), ``w0|w1|..|wk=x`` (Sparse-Hint),
   ``w0|w1|...|wn=x`` (Full-Hint) with empty openers (the tiny vocabulary has no room for the phrases;
   the first token after ``w0``, "=" or "|", is the choice of depth). The thinking model fine-tuned on
   them is prompted with ``w0`` alone; ``token_reduction`` compares the tokens it writes after ``w0``
   with the thinking model's on fresh problems (paired Fieller interval) and the accuracies (McNemar).
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import torch

from learncore.reasoning import (build_hint_dataset, cumulative_prefixes, make_model, minimal_prefix,
                                 pass_at_k_curve, pretrain, procedure_repertoire, sample, split_trace, step_mix,
                                 token_reduction, train_rl)
from learncore.reasoning.rewrite import (Monoid, RewriteTokenizer, full_chain_tokens, make_corpus, make_problems,
                                         reward)

CORPORA = ("full", "steps", "random")
METHODS = ("grpo", "reinforce", "rft")

CONFIGS = {
    # minutes on one thread: the full corpus gets all three methods, the ablation corpora GRPO only
    "quick": dict(monoid="s3", d_model=64, n_layers=2, n_heads=4, max_len=48,
                  pretrain_lengths=(3, 4, 5, 6), pretrain_texts=6000, pretrain_steps=600, pretrain_lr=3e-3,
                  rl_lengths=(4, 5, 6, 7), rl_problems=2000, rl_steps=150, batch_size=8, group_size=8, rl_lr=1e-4,
                  budget_length=6, eval_lengths=(4, 5, 6, 7, 8), eval_problems=24, eval_samples=16,
                  ks=(1, 2, 4, 8, 16), ckpt_problems=30, ckpt_every=50, ckpt_samples=4,
                  ablation_methods=("grpo",),
                  instruct_lengths=(1, 2, 3, 4, 5, 6, 7, 8), instruct_texts=8000, instruct_steps=600,
                  hint_problems=300, hint_lengths=(3, 4, 5, 6, 7, 8), hint_steps=300, hint_lr=1e-3,
                  hint_eval=200, hint_max_tokens=40, seed=0),
    # tens of minutes: every method on every corpus, longer pretraining and RL
    "full": dict(monoid="s3", d_model=64, n_layers=2, n_heads=4, max_len=48,
                 pretrain_lengths=(3, 4, 5, 6), pretrain_texts=12000, pretrain_steps=2000, pretrain_lr=3e-3,
                 rl_lengths=(4, 5, 6, 7), rl_problems=4000, rl_steps=400, batch_size=8, group_size=8, rl_lr=1e-4,
                 budget_length=6, eval_lengths=(4, 5, 6, 7, 8), eval_problems=64, eval_samples=32,
                 ks=(1, 2, 4, 8, 16, 32), ckpt_problems=60, ckpt_every=100, ckpt_samples=4,
                 ablation_methods=METHODS,
                 instruct_lengths=(1, 2, 3, 4, 5, 6, 7, 8), instruct_texts=16000, instruct_steps=1500,
                 hint_problems=800, hint_lengths=(3, 4, 5, 6, 7, 8), hint_steps=600, hint_lr=1e-3,
                 hint_eval=400, hint_max_tokens=40, seed=0),
}


def get_monoid(name: str) -> Monoid:
    if name == "s3":
        return Monoid.s3()
    if name.startswith("z"):
        return Monoid.cyclic(int(name[1:]))
    raise ValueError(f"monoid must be 's3' or 'z<m>', got {name!r}")


def _model(tok, cfg, seed):
    return make_model(tok, d_model=cfg["d_model"], n_layers=cfg["n_layers"], n_heads=cfg["n_heads"],
                      max_len=cfg["max_len"], seed=seed)


def generated_tokens(text: str, w0: str) -> int:
    """Tokens written after the problem ``w0`` (the separator, the steps, "=" and the answer)."""
    return len(text) - len(w0)


# -- evaluation --------------------------------------------------------------------------------------------

def eval_problems(monoid, cfg):
    """Fresh words, ``eval_problems`` per length, and their length labels."""
    words, lengths = [], []
    for L in cfg["eval_lengths"]:
        ws = make_problems(monoid, cfg["eval_problems"], lengths=[L], seed=cfg["seed"] + 1000 + L)
        words += ws
        lengths += [L] * len(ws)
    return words, lengths


def evaluate(model, tok, monoid, words, lengths, cfg, *, seed):
    """Sample ``eval_samples`` chains per word within the token budget: the pass@k curve per length, the
    mean generated tokens, the traces."""
    n = cfg["eval_samples"]
    prompts = [w + "|" for w in words for _ in range(n)]
    texts = sample(model, tok, prompts, max_new_tokens=cfg["budget"], seed=seed)
    correct = np.array([reward(t, monoid) for t in texts], dtype=int).reshape(len(words), n)
    curve = pass_at_k_curve(correct, list(cfg["ks"]), groups=lengths, B=499, seed=seed)
    tokens = np.array([generated_tokens(t, w) for t, w in zip(texts, np.repeat(words, n))]).reshape(len(words), n)
    return curve, texts, tokens


# -- stages -------------------------------------------------------------------------------------------------

def pretrain_all(monoid, tok, cfg, corpora=CORPORA):
    out = {}
    for j, kind in enumerate(corpora):
        texts = make_corpus(monoid, cfg["pretrain_texts"], kind=kind, lengths=cfg["pretrain_lengths"],
                            seed=cfg["seed"] + 10 + j)
        out[kind] = pretrain(_model(tok, cfg, cfg["seed"]), tok, texts, steps=cfg["pretrain_steps"],
                             lr=cfg["pretrain_lr"], seed=cfg["seed"] + 20 + j)
    return out


def post_train(model, tok, monoid, method, cfg, ckpt_words):
    problems = make_problems(monoid, cfg["rl_problems"], lengths=cfg["rl_lengths"], seed=cfg["seed"] + 30)
    return train_rl(model, tok, problems, monoid, method=method, steps=cfg["rl_steps"],
                    group_size=cfg["group_size"], batch_size=cfg["batch_size"], lr=cfg["rl_lr"],
                    max_new_tokens=cfg["budget"], eval_problems=ckpt_words, eval_every=cfg["ckpt_every"],
                    eval_samples=cfg["ckpt_samples"], seed=cfg["seed"] + 40)


def _instruct_model(base, monoid, tok, cfg):
    """The "instruct" sibling: the pretrained chain model fine-tuned on direct answers ``w=x``."""
    words = make_problems(monoid, cfg["instruct_texts"], lengths=cfg["instruct_lengths"], seed=cfg["seed"] + 50)
    texts = [w + "=" + monoid.product(w) for w in words]
    return pretrain(base, tok, texts, steps=cfg["instruct_steps"], lr=cfg["hint_lr"], seed=cfg["seed"] + 51)


def _greedy(model, tok, prompts, max_new_tokens):
    return sample(model, tok, prompts, max_new_tokens=max_new_tokens, temperature=0.0, seed=0)


def hint_tuning(thinking, base, monoid, tok, cfg):
    """Hint Tuning's data construction on the rewrite environment, the fine-tuning, and its evaluation.

    ``thinking`` is the chain model (prompt ``w0|``); the instruct model is ``base`` (the pretrained chain
    model) fine-tuned on direct answers. Every fine-tuning text starts ``w0|`` (the "|" is the opening of
    the thinking part, so the tuned model is prompted as the thinking model is) and the thinking part is
    empty (No-Hint, ``w0|=x``), the minimal prefix of the thinking model's steps (Sparse-Hint,
    ``w0|w1|..|wk=x``, x the instruct model's answer from wk) or the whole trace (Full-Hint).
    """
    instruct = _instruct_model(base, monoid, tok, cfg)
    words = make_problems(monoid, cfg["hint_problems"], lengths=cfg["hint_lengths"], seed=cfg["seed"] + 60)
    traces = _greedy(thinking, tok, [w + "|" for w in words], cfg["hint_max_tokens"])
    bodies, t_answers = [], []
    for w, t in zip(words, traces):
        body, eq, ans = t[len(w) + 1:].partition("=")
        bodies.append(body)
        t_answers.append(ans if eq else "")
    # the instruct model's direct answer on every word it can be handed: each problem and each word of
    # each trace (one greedy batch; the solver then looks the answers up)
    asked = sorted({w for w in words} | {p for b in bodies for p in b.split("|") if p})
    asked = [a for a in asked if all(c in monoid.symbols for c in a)]
    answers = {a: out[len(a) + 1:] for a, out in zip(asked, _greedy(instruct, tok, [a + "=" for a in asked], 2))}

    def solve(problem, prefix):
        last = prefix.split("|")[-1] if prefix else problem
        ans = answers.get(last, "")
        return ans == monoid.product(problem), ans

    searches = []
    for w, body in zip(words, bodies):
        parts = split_trace(body, "|") if body else []
        # a model's "||" makes an empty part: the prefixes stop before it
        parts = parts[:next((i for i, q in enumerate(parts) if q in ("", "|")), len(parts))]
        prefixes = cumulative_prefixes(parts) if parts else [""]
        searches.append(minimal_prefix(solve, w, prefixes, search="linear", verify=True))
    think_correct = np.array([reward(t, monoid) == 1.0 for t in traces])
    openers = {s: "" for s in ("no-hint", "sparse-hint", "full-hint")}
    ds = build_hint_dataset(words, searches, think_traces=bodies,
                            think_answers=[a if len(a) == 1 else "" for a in t_answers],
                            instruct_answers=[answers.get(w, "") for w in words], think_correct=think_correct,
                            openers=openers, delimiters=("|", "="))
    sft = [w + out for w, out in zip(words, ds.output)]
    # a fine-tuning text must be a trace of the environment (a Full-Hint copy of a truncated trace is not)
    keep = [t for t in sft if all(c in monoid.symbols + "|=" for c in t) and len(t.rpartition("=")[2]) == 1]
    tuned = pretrain(thinking, tok, keep, steps=cfg["hint_steps"], lr=cfg["hint_lr"], seed=cfg["seed"] + 61)
    # evaluation on fresh problems, both models prompted with "w0|"
    ev = make_problems(monoid, cfg["hint_eval"], lengths=cfg["hint_lengths"], seed=cfg["seed"] + 62)
    base_out = _greedy(thinking, tok, [w + "|" for w in ev], cfg["hint_max_tokens"])
    new_out = _greedy(tuned, tok, [w + "|" for w in ev], cfg["hint_max_tokens"])
    len_base = [generated_tokens(t, w) for t, w in zip(base_out, ev)]
    len_new = [generated_tokens(t, w) for t, w in zip(new_out, ev)]
    cb = [reward(t, monoid) == 1.0 for t in base_out]
    cn = [reward(t, monoid) == 1.0 for t in new_out]
    red = token_reduction(len_base, len_new, correct_base=cb, correct_new=cn)
    direct = np.mean([t[len(w) + 1:len(w) + 2] == "=" for t, w in zip(new_out, ev)])
    inst_acc = {int(L): float(np.mean([answers.get(w, "") == monoid.product(w) for w in words if len(w) == L]))
                for L in cfg["hint_lengths"]}
    by_len = {}
    for L in cfg["hint_lengths"]:
        idx = [i for i, w in enumerate(ev) if len(w) == L]
        by_len[int(L)] = dict(tokens_base=float(np.mean([len_base[i] for i in idx])),
                              tokens_new=float(np.mean([len_new[i] for i in idx])),
                              accuracy_base=float(np.mean([cb[i] for i in idx])),
                              accuracy_new=float(np.mean([cn[i] for i in idx])))
    return dict(dataset=ds, reduction=red, direct_share=float(direct), instruct_accuracy=inst_acc,
                examples=dict(base=base_out[:6], tuned=new_out[:6], problems=ev[:6]), by_length=by_len,
                len_base=len_base, len_new=len_new, sft_examples=keep[:9], n_sft=len(keep),
                think_accuracy=float(think_correct.mean()))


# -- the whole study ------------------------------------------------------------------------------------------

def _records(frame):
    return json.loads(frame.to_json(orient="records"))


def run_study(cfg: dict, out_dir=None, *, log=print) -> dict:
    """Run every stage; save ``results.json`` and the figures in ``out_dir``; return the results."""
    torch.set_num_threads(1)
    cfg = dict(cfg)
    monoid = get_monoid(cfg["monoid"])
    tok = RewriteTokenizer(monoid)
    cfg["budget"] = full_chain_tokens("a" * cfg["budget_length"])
    t0 = time.perf_counter()
    timings = {}
    log(f"token budget {cfg['budget']} (the full chain of a length-{cfg['budget_length']} word); full chains of "
        + ", ".join(f"{L}: {full_chain_tokens('a' * L)}" for L in cfg["eval_lengths"]))
    pre = pretrain_all(monoid, tok, cfg)
    timings["pretrain"] = time.perf_counter() - t0
    log(f"pretrained {len(pre)} models in {timings['pretrain']:.0f} s")
    words, lengths = eval_problems(monoid, cfg)
    ckpt_words = make_problems(monoid, cfg["ckpt_problems"], lengths=cfg["eval_lengths"], seed=cfg["seed"] + 70)
    res = dict(config=cfg, monoid=dict(symbols=monoid.symbols, table=np.asarray(monoid.table).tolist()),
               pretrain={}, runs={}, timings=timings)
    curves, mixes, reps, rl = {}, {}, {}, {}
    for kind, model in pre.items():
        curve, texts, tokens = evaluate(model, tok, monoid, words, lengths, cfg, seed=cfg["seed"] + 80)
        curves[(kind, "pretrained")] = curve
        mix0 = step_mix(texts, monoid)
        res["pretrain"][kind] = dict(final_loss=float(np.mean(model.pretrain_losses[-50:])),
                                     passk=_records(curve.to_frame()), mean_tokens=float(tokens.mean()),
                                     step_mix=_records(mix0.to_frame()),
                                     examples=list(texts[::cfg["eval_samples"]][:4]))
        log(f"pretrained on {kind!r}: loss {res['pretrain'][kind]['final_loss']:.3f}; pass@1 by length "
            + ", ".join(f"{g}: {curve.estimate[i, 0]:.2f}" for i, g in enumerate(curve.groups)))
        methods = METHODS if kind == "full" else cfg["ablation_methods"]
        for method in methods:
            t1 = time.perf_counter()
            out = post_train(model, tok, monoid, method, cfg, ckpt_words)
            curve, texts, tokens = evaluate(out.model, tok, monoid, words, lengths, cfg, seed=cfg["seed"] + 81)
            mix = step_mix(out, monoid)
            rep = procedure_repertoire(out, monoid, top=10)
            final_mix = step_mix(texts, monoid)
            key = (kind, method)
            curves[key], mixes[key], reps[key], rl[key] = curve, mix, rep, out
            timings[f"{kind}/{method}"] = time.perf_counter() - t1
            res["runs"][f"{kind}/{method}"] = dict(
                corpus=kind, method=method, reward=out.reward.tolist(), mean_tokens_train=out.mean_tokens.tolist(),
                checkpoint_steps=out.checkpoint_steps.tolist(), eval_reward=out.eval_reward.tolist(),
                passk=_records(curve.to_frame()), mean_tokens=float(tokens.mean()),
                mean_tokens_by_length={int(L): float(tokens[np.array(lengths) == L].mean())
                                       for L in cfg["eval_lengths"]},
                step_mix=_records(mix.to_frame()), final_step_mix=_records(final_mix.to_frame()),
                repertoire=_records(rep.to_frame().head(15)), repertoire_top_sets=[list(s) for s in rep.top_sets],
                repertoire_jaccard=rep.jaccard.tolist(), n_procedures=len(rep.procedure),
                examples=list(texts[::cfg["eval_samples"]][:6]))
            log(f"  {kind}/{method}: {timings[key[0] + '/' + key[1]]:.0f} s; pass@1 by length "
                + ", ".join(f"{g}: {curve.estimate[i, 0]:.2f}" for i, g in enumerate(curve.groups))
                + f"; contraction rate {final_mix.contraction_rate[0]:.3f}, valid {final_mix.valid_rate[0]:.3f}, "
                f"invalid shortcuts {final_mix.invalid_shortcut_rate[0]:.3f}, early answers "
                f"{final_mix.early_answer_rate[0]:.3f}; {len(rep.procedure)} composed procedures")
    t1 = time.perf_counter()
    hint = hint_tuning(rl[("full", "grpo")].model, pre["full"], monoid, tok, cfg)
    timings["hint"] = time.perf_counter() - t1
    red = hint["reduction"]
    mc = red.accuracy_test
    res["hint"] = dict(states=dict(hint["dataset"].counts), n_nonmonotone=hint["dataset"].n_nonmonotone,
                       token_reduction=red.estimate, conf_low=red.conf_low, conf_high=red.conf_high, kind=red.kind,
                       n=red.n, accuracy_base=red.accuracy_base, accuracy_new=red.accuracy_new,
                       mcnemar_p_value=None if mc is None else float(mc.p_value), summary=red.summary(),
                       direct_share=hint["direct_share"], instruct_accuracy=hint["instruct_accuracy"],
                       think_accuracy_construction=hint["think_accuracy"], examples=hint["examples"],
                       sft_examples=hint["sft_examples"], mean_len_base=float(np.mean(hint["len_base"])),
                       mean_len_new=float(np.mean(hint["len_new"])), by_length=hint["by_length"],
                       n_sft=hint["n_sft"])
    log(f"Hint Tuning: states {hint['dataset'].counts}; token reduction {red.estimate:.3f} "
        f"[{red.conf_low:.3f}, {red.conf_high:.3f}]; accuracy {red.accuracy_base:.3f} -> {red.accuracy_new:.3f}, "
        f"McNemar p {res['hint']['mcnemar_p_value']}")
    timings["total"] = time.perf_counter() - t0
    if out_dir is not None:
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        (out / "results.json").write_text(json.dumps(res, indent=1, default=_json_default))
        save_figures(res, out)
    return res


def _json_default(o):
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.floating,)):
        return float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, tuple):
        return list(o)
    return str(o)


def load_results(out_dir) -> dict:
    return json.loads((Path(out_dir) / "results.json").read_text())


# -- figures --------------------------------------------------------------------------------------------------

def _passk_table(records):
    by = {}
    for r in records:
        by.setdefault(r["group"], []).append((r["k"], r["estimate"], r["conf_low"], r["conf_high"]))
    return by


def plot_passk(res, ax=None):
    """pass@k against k at each evaluation length, one line per run of the full corpus."""
    import matplotlib.pyplot as plt

    lengths = res["config"]["eval_lengths"]
    if ax is None:
        _, ax = plt.subplots(1, len(lengths), figsize=(2.3 * len(lengths), 2.6), sharey=True, layout="constrained")
    runs = {"pretrained": res["pretrain"]["full"]["passk"]}
    runs.update({k.split("/")[1]: v["passk"] for k, v in res["runs"].items() if k.startswith("full/")})
    for j, L in enumerate(lengths):
        for name, recs in runs.items():
            rows = _passk_table(recs).get(L, [])
            if rows:
                k, est, lo, hi = map(np.array, zip(*rows))
                ax[j].plot(k, est, marker="o", ms=3, label=name)
                ax[j].fill_between(k, lo, hi, alpha=0.15)
        ks = np.array(res["config"]["ks"], dtype=float)
        chance = 1 - (1 - 1 / len(res["monoid"]["symbols"])) ** ks
        ax[j].plot(ks, chance, color="0.5", lw=0.8, ls=":", label="guessing")
        ax[j].set_xscale("log", base=2)
        ax[j].set_title(f"length {L}" + (" (held out)" if L not in res["config"]["rl_lengths"] else ""), fontsize=9)
        ax[j].set_xlabel("k")
        ax[j].set_ylim(-0.02, 1.02)
    ax[0].set_ylabel("pass@k")
    ax[-1].legend(fontsize=7)
    return ax


def plot_label_mix(res, ax=None):
    """Per run: the label shares of the checkpoints' steps (stacked) and the contraction rate."""
    import matplotlib.pyplot as plt

    names = list(res["runs"])
    if ax is None:
        _, ax = plt.subplots(1, len(names), figsize=(2.4 * len(names), 2.8), sharey=True, layout="constrained")
    ax = np.atleast_1d(ax)
    labels = ("atomic", "sequential", "parallel", "mixed", "invalid", "no_op")
    colors = ("C0", "C2", "C4", "C5", "C3", "C7")
    for j, name in enumerate(names):
        mix = res["runs"][name]["step_mix"]
        x = np.arange(len(mix))
        bottom = np.zeros(len(mix))
        for lab, col in zip(labels, colors):
            share = np.array([r["share_" + lab] for r in mix])
            ax[j].bar(x, share, bottom=bottom, color=col, label=lab)
            bottom += share
        ax[j].plot(x, [r["contraction_rate"] for r in mix], "k--o", ms=3, label="contraction rate")
        ax[j].plot(x, [r["invalid_shortcut_rate"] for r in mix], "k:s", ms=3, label="invalid shortcuts")
        ax[j].set_xticks(x, [str(r["checkpoint"]) for r in mix], fontsize=7)
        ax[j].set_title(name, fontsize=9)
        ax[j].set_xlabel("RL step")
    ax[0].set_ylabel("share of steps")
    ax[-1].legend(fontsize=6, loc="lower right")
    return ax


def plot_rewards(res, ax=None):
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(4.5, 3), layout="constrained")
    for name, run in res["runs"].items():
        r = np.array(run["reward"])
        w = max(1, len(r) // 10)
        ax.plot(np.arange(w, len(r) + 1), np.convolve(r, np.ones(w) / w, mode="valid"), label=name)
    ax.set_xlabel("RL step")
    ax.set_ylabel("training reward (running mean)")
    ax.set_ylim(-0.02, 1.02)
    ax.legend(fontsize=7)
    return ax


def save_figures(res, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    for name, fn in (("passk", plot_passk), ("label_mix", plot_label_mix)):
        ax = fn(res)
        fig = np.atleast_1d(ax)[0].figure
        fig.savefig(out / f"{name}.png", dpi=70)
        plt.close(fig)
