"""Irie's Question 4 as an experiment: do trained causal Transformers without PE pick up word order?

Two studies, each a grid of depth (``q4_layers``) x encoding (``none`` / the chapter's ``encoding``,
ADDED to the token embedding) x seeds, trained by ``penb.train`` (``core="transformer"``) and stored
and reused by ``penb.runs.sweep``:

* **order**: a synthetic task of the RNN chapters (``q4_task``, default ``reverse``: read x_1..x_L,
  then write them reversed), scored by test token accuracy on held-out sequences. For ``reverse`` the
  order-blind ceiling (``penb.chapters.irie.ceiling``) is the best token accuracy any predictor can
  reach that sees only the multiset of the inputs, which is all a one-layer causal Transformer without
  PE sees at an output step (Irie's Question 5).
* **lm**: small language models on the ``lm`` task (``penb.tasks.lm``): trained on the WikiText
  split ``lm_train_split``, perplexity on the split ``lm_test_split``.

This module holds the cells and their run configs (``cells``, ``order_configs``, ``lm_configs``, ``run``),
the grouping of runs by cell (``label``, ``groups``, ``split``) and the grading of ``irie.q4``
(``evidence``, ``grade``); the tables shown of the runs are ``penb.chapters.irie.q4_tables``.
Functions return plain data (lists of run configs, RunResults, DataFrames).
"""
from __future__ import annotations

import numpy as np

from penb import claims, runs
from penb.chapters.irie.ceiling import binomial_margin, blind_ceiling
from penb.executors import LocalExecutor, ProcessExecutor

ORDER_TASKS = ("reverse", "sort", "predecessor", "reverse_add")
NONE = "none"
CLAIM = "irie.q4"


def _common(cfg, layers: int, encoding: str, seed: int) -> dict:
    return dict(core="transformer", layers=layers, encoding=encoding, heads=cfg.heads, norm=cfg.norm,
                seed=seed, device=cfg.device, warmup=cfg.q4_warmup, dtype="float32")


def variants(cfg) -> list[tuple[int, str]]:
    """(layers, encoding) pairs in display order: each depth without PE, then with ``cfg.encoding``."""
    return [(n, e) for n in cfg.q4_layers for e in (NONE, cfg.encoding)]


def graded(cfg, study: str) -> list[tuple[int, str]]:
    """The (layers, encoding) cells of ``study`` ("order" or "lm") that the claim ``irie.q4`` grades:
    the two-layer model without PE on the order task; without and with PE as language models."""
    n = claims.get(CLAIM).extra["layers"]
    if n not in cfg.q4_layers:
        return []
    return [(n, NONE)] if study == "order" else [(n, NONE), (n, cfg.encoding)]


def cells(cfg, study: str) -> list[tuple[int, str, tuple]]:
    """(layers, encoding, seeds) of every cell of ``study``: a graded cell (:func:`graded`) runs on
    every seed of the study (``q4_seeds`` or ``lm_seeds``), the others as ``q4_context`` says."""
    seeds = tuple(cfg.q4_seeds if study == "order" else cfg.lm_seeds)
    context = {"all": seeds, "first": seeds[:1], "none": ()}[cfg.q4_context]
    keep = graded(cfg, study)
    if study == "order":                                # irie.one_layer: the one-layer model without PE too
        keep = keep + one_layer_cells(cfg)
    out = [(n, e, seeds if (n, e) in keep else context) for n, e in variants(cfg)]
    return [c for c in out if c[2]]


def one_layer_missing(cfg) -> str:
    """Why ``cfg`` cannot test ``irie.one_layer`` ("" when it can)."""
    if 1 not in cfg.q4_layers:
        return f"q4_layers is {cfg.q4_layers}: no one-layer model"
    if cfg.q4_task != "reverse":
        return f"the order-blind ceiling is derived for reverse only, and q4_task is {cfg.q4_task!r}"
    return ""


def one_layer_cells(cfg) -> list[tuple[int, str]]:
    """The (layers, encoding) cells of the order study that ``irie.one_layer`` grades (``penb.chapters.irie.
    one_layer``, which imports this module): the one-layer model without PE."""
    return [] if one_layer_missing(cfg) else [(1, NONE)]


def order_configs(cfg) -> list[dict]:
    """Run configs of the order study: one per seed of each of :func:`cells`."""
    return [{**_common(cfg, n, e, s), "task": cfg.q4_task, "vocab_size": cfg.q4_vocab, "length": cfg.q4_length,
             "hidden": cfg.q4_dim, "steps": cfg.q4_steps, "batch_size": cfg.q4_batch, "lr": cfg.q4_lr,
             "held_out": cfg.q4_held_out, "checkpoint_every": cfg.q4_steps, "log_every": max(cfg.q4_steps // 50, 1)}
            for n, e, seeds in cells(cfg, "order") for s in seeds]


def lm_task_options(cfg) -> dict:
    return {"corpus": cfg.lm_corpus, "train_split": cfg.lm_train_split, "test_split": cfg.lm_test_split,
            "crop": cfg.lm_crop}


def lm_task(cfg):
    """The ``lm`` task of the chapter (loads the corpus and the tokenizer on first use)."""
    from penb.tasks import make_task

    return make_task("lm", cfg.lm_vocab, cfg.lm_length, **lm_task_options(cfg))


def lm_held_out(cfg) -> int:
    """Test paragraphs scored: ``lm_held_out``, or all usable ones when it is 0."""
    return cfg.lm_held_out or lm_task(cfg).test_paragraphs


def lm_configs(cfg) -> list[dict]:
    """Run configs of the language-model study: one per seed of each of :func:`cells`."""
    held = lm_held_out(cfg)
    return [{**_common(cfg, n, e, s), "task": "lm", "task_options": lm_task_options(cfg), "vocab_size": cfg.lm_vocab,
             "length": cfg.lm_length, "hidden": cfg.q4_dim, "steps": cfg.lm_steps, "batch_size": cfg.lm_batch,
             "lr": cfg.q4_lr, "held_out": held, "checkpoint_every": cfg.lm_steps,
             "log_every": max(cfg.lm_steps // 50, 1)}
            for n, e, seeds in cells(cfg, "lm") for s in seeds]


def run(cfg, progress: bool = True) -> dict[str, list]:
    """Train (or reuse) every run of both studies in one sweep; {"order": [...], "lm": [...]} RunResults.

    ``cfg.workers`` > 1 runs them in that many processes with one torch thread each; 1 runs them here.
    The language-model runs go first (they are the longest), so the pool stays busy to the end.
    """
    order, lm = order_configs(cfg), lm_configs(cfg)
    executor = ProcessExecutor(workers=cfg.workers, threads=1) if cfg.workers > 1 else LocalExecutor(threads=1)
    results = runs.sweep(lm + order, executor=executor, progress=progress)
    return {"lm": results[:len(lm)], "order": results[len(lm):]}


def label(layers: int, encoding: str) -> str:
    """A cell's display name, e.g. "2 layers, no PE"."""
    return f"{layers} layer{'s' if layers > 1 else ''}, {'no PE' if encoding == NONE else encoding + ' PE'}"


def groups(results) -> dict[tuple[int, str], list]:
    """{(layers, encoding): the runs of that cell}."""
    out: dict = {}
    for r in results:
        out.setdefault((r.config["layers"], r.config["encoding"]), []).append(r)
    return out


def split(rs) -> tuple[list, list]:
    """(valid, diverged) runs of ``rs``, each in seed order."""
    return runs.split_diverged(sorted(rs, key=lambda r: r.config["seed"]))


# -- grading -----------------------------------------------------------------------------------
def missing(cfg) -> str:
    """Why ``cfg`` cannot test ``irie.q4`` ("" when it can)."""
    n = claims.get(CLAIM).extra["layers"]
    if n not in cfg.q4_layers:
        return f"the claim compares {n}-layer models, and q4_layers is {cfg.q4_layers}"
    if cfg.q4_task != "reverse":
        return (f"the order-blind ceiling is derived for reverse only, and q4_task is "
                f"{cfg.q4_task!r}")
    return ""


def ceiling_margin(cfg) -> tuple[float, float]:
    """(the order-blind ceiling of ``reverse``, 4 binomial standard deviations of a token accuracy
    at that level on the held-out set): a seed counts as above the ceiling beyond their sum."""
    c = blind_ceiling(cfg.q4_vocab, cfg.q4_length)
    return c, binomial_margin(c, cfg.q4_held_out * cfg.q4_length)


def evidence(results: dict, cfg) -> dict:
    """The evidence of ``irie.q4``'s "check" rule from the runs of :func:`run`: per seed, the
    two-layer model without PE's order-task token accuracy against the order-blind ceiling, and the
    two-layer language models' perplexities without and with PE (seeds valid in both); diverged
    runs of these cells, fewer than ``min_seeds`` valid seeds, or a language model with PE at the
    uniform model's perplexity (the claim's trivial baseline, within ``baseline_margin``) make it
    inconclusive."""
    c = claims.get(CLAIM)
    n, limit, need = c.extra["layers"], c.extra["ppl_ratio"], c.extra["min_seeds"]
    mine: dict = {}
    for s in ("order", "lm"):
        for r in results[s]:
            mine.setdefault((s, r.config["layers"], r.config["encoding"]), []).append(r)
    diverged = {f"{s} {label(n_, e)}": len(split(mine.get((s, n_, e), []))[1])
                for s in ("order", "lm") for n_, e in graded(cfg, s)}
    order = split(mine.get(("order", n, NONE), []))[0]
    acc = {r.config["seed"]: r.metrics["token_accuracy"] for r in order}
    lm = {e: {r.config["seed"]: r.metrics["perplexity"] for r in split(mine.get(("lm", n, e), []))[0]}
          for e in (NONE, cfg.encoding)}
    paired = sorted(set(lm[NONE]) & set(lm[cfg.encoding]))
    none_, pe = [lm[NONE][s] for s in paired], [lm[cfg.encoding][s] for s in paired]
    ceiling, margin = ceiling_margin(cfg)
    above = [a > ceiling + margin for a in acc.values()]
    m_none, m_pe = (float(np.mean(none_)), float(np.mean(pe))) if paired else (np.nan, np.nan)
    ratio = m_none / m_pe
    order_ok, lm_ok = bool(acc) and all(above), ratio <= limit
    mean, lo, hi = claims.seed_interval(list(acc.values()))
    ev = {"passed": order_ok and lm_ok, "order_accuracy": list(acc.values()), "order_seeds": list(acc),
          "ceiling": ceiling, "margin": margin, "ppl_none": none_, "ppl_pe": pe, "lm_seeds": paired,
          "diverged": diverged,
          "detail": (f"order task, {n} layers without PE: token accuracy {claims.fmt(mean, lo, hi)} over "
                     f"{len(acc)} seeds, above the order-blind ceiling {ceiling:.3f} (+{margin:.3f} test "
                     f"noise) in {sum(above)}; language model, {n} layers: perplexity without PE "
                     f"{m_none:.2f}, with PE {m_pe:.2f} (ratio {ratio:.3f}, rule <= "
                     f"{limit:.3f}; under the earlier, unsourced 10% margin: "
                     f"{'within' if ratio <= 1.10 else 'beyond'}) over {len(paired)} seeds"),
          "why": "; ".join(w for w, bad in (
              (f"only {sum(above)} of {len(acc)} seeds above the ceiling on the order task", not order_ok),
              (f"perplexity without PE {ratio - 1:+.1%} against PE, beyond {limit - 1:.1%}", not lm_ok)) if bad)}
    uniform = float(cfg.lm_vocab)                  # the trivial baseline: a uniform model's perplexity
    if any(diverged.values()):
        ev["inconclusive"] = "diverged runs: " + ", ".join(f"{k} {v}" for k, v in diverged.items() if v)
    elif min(len(acc), len(paired)) < need:
        ev["inconclusive"] = (f"{min(len(acc), len(paired))} valid seeds, fewer than the {need} the rule "
                              "needs")
    elif m_pe >= uniform * (1 - c.extra["baseline_margin"]):
        ev["inconclusive"] = (f"the language model with PE sits at the uniform model's perplexity "
                              f"({uniform:.0f}): nothing was learned, so 'within {limit - 1:.1%}' decides "
                              "nothing")
    ev["baseline"] = uniform
    return ev


def training_state(results: dict, cfg) -> dict:
    """The training state of the models ``irie.q4`` reads: the order-task model without PE (training
    accuracy) and the language models with and without PE (training loss, nats), joined."""
    from penb.claims import training

    n = claims.get(CLAIM).extra["layers"]
    ok = lambda s, e: [r for r in split([r for r in results[s] if r.config["layers"] == n  # noqa: E731
                                         and r.config["encoding"] == e])[0]]
    order = training.of_results({f"order task, {label(n, NONE)}": ok("order", NONE)})
    lm = training.of_results({f"LM, {label(n, e)}": ok("lm", e) for e in (NONE, cfg.encoding)}, metric="loss")
    return training.combine([order, lm])


def grade(results: dict, cfg) -> claims.Grade:
    """``irie.q4`` graded on the runs of :func:`run` (or not tested where ``cfg`` cannot test it)."""
    why = missing(cfg)
    if why:
        return claims.not_tested(CLAIM, f"not at this preset: {why}", cfg)
    return claims.grade(CLAIM, evidence(results, cfg), cfg, training=training_state(results, cfg),
                        q4_seeds=list(cfg.q4_seeds),
                        lm_seeds=list(cfg.lm_seeds), q4_steps=cfg.q4_steps, lm_steps=cfg.lm_steps)
