"""Irie's Question 4 as an experiment: do trained causal Transformers without PE pick up word order?

Two studies, each a grid of depth (``q4_layers``) x encoding (``none`` / the chapter's ``encoding``,
ADDED to the token embedding) x seeds, trained by ``penb.trainer`` (``core="transformer"``) and stored
and reused by ``penb.sweeps.sweep``:

* **order**: a synthetic task of the RNN chapters (``q4_task``, default ``reverse``: read x_1..x_L,
  then write them reversed), scored by test token accuracy on held-out sequences. For ``reverse`` the
  order-blind ceiling (``penb.chapters.irie.ceiling``) is the best token accuracy any predictor can
  reach that sees only the multiset of the inputs, which is all a one-layer causal Transformer without
  PE sees at an output step (Irie's Question 5).
* **lm**: small language models on the ``lm`` task (``penb.tasks.lm``): trained on the WikiText
  split ``lm_train_split``, perplexity on the split ``lm_test_split``.

This module holds the cells and their run configs (``cells``, ``order_configs``, ``lm_configs``, ``run``;
``half_configs``: the cells of the claims about trained models again at half their updates, protocol 4's
doubling test; ``quarter_configs``: at a quarter, the doubling before it), the grouping of runs by cell (``label``, ``groups``, ``split``) and what a config can grade
(``graded``, ``missing``, ``lm_missing``, ``ceiling_margin``); the grading of ``irie.q4`` and ``irie.q4.order``
is ``penb.chapters.irie.q4_grading``, the tables shown of the runs ``penb.chapters.irie.q4_tables``.
Functions return plain data (lists of run configs, RunResults, DataFrames).
"""
from __future__ import annotations

from penb import claims
from penb import runs
from penb import sweeps
from penb.chapters.irie.budgets import shorter
from penb.chapters.irie.ceiling import binomial_margin, blind_ceiling
from penb.executors import LocalExecutor, ProcessExecutor
from penb.tasks import make_task

ORDER_TASKS = ("reverse", "sort", "predecessor", "reverse_add")
NONE = "none"
CLAIM = "irie.q4"                 # the language models (a fixed budget, once the curves have met)
ORDER = "irie.q4.order"           # the order task (trained models)


def _common(cfg, layers: int, encoding: str, seed: int) -> dict:
    return dict(core="transformer", layers=layers, encoding=encoding, heads=cfg.heads, norm=cfg.norm,
                seed=seed, device=cfg.device, warmup=cfg.q4_warmup, dtype="float32")


def variants(cfg) -> list[tuple[int, str]]:
    """(layers, encoding) pairs in display order: each depth without PE, then with ``cfg.encoding``."""
    return [(n, e) for n in cfg.q4_layers for e in (NONE, cfg.encoding)]


def graded(cfg, study: str) -> list[tuple[int, str]]:
    """The (layers, encoding) cells of ``study`` ("order" or "lm") that Question 4's claims grade: the two-layer
    model without PE on the order task (``irie.q4.order``); without and with PE as language models
    (``irie.q4``)."""
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


def half_cells(cfg) -> dict[str, list[tuple[int, str]]]:
    """{study: the (layers, encoding) cells trained again at half their updates}: the cells of the claims about
    trained models, whose verdicts protocol 4's doubling test reads (``irie.one_layer``: the one-layer order model
    without PE; ``irie.q4.order``: the two-layer one; ``irie.q4.attention``: the two-layer language model without
    PE); none when ``cfg.doubling`` is off."""
    if not cfg.doubling:
        return {"order": [], "lm": []}
    n = claims.get(ORDER).extra["layers"]
    order = one_layer_cells(cfg) + ([] if missing(cfg) else [(n, NONE)])
    return {"order": order, "lm": [] if lm_missing(cfg) else [(n, NONE)]}


def half_configs(cfg, study: str) -> list[dict]:
    """The run configs of ``study``'s :func:`half_cells`, each at half its updates, on every seed of the cell."""
    return _shorter_configs(cfg, study, 1)


def quarter_configs(cfg, study: str) -> list[dict]:
    """As :func:`half_configs`, at a quarter of the updates (issue 58: the doubling before the last, which the
    horizon of protocols 6-7 reads); [] unless ``cfg.earlier``."""
    return _shorter_configs(cfg, study, 2) if cfg.get("earlier", 0) else []


def _shorter_configs(cfg, study: str, k: int) -> list[dict]:
    keep = half_cells(cfg)[study]
    full = order_configs(cfg) if study == "order" else lm_configs(cfg)
    return shorter((c for c in full if (c["layers"], c["encoding"]) in keep), k)


def run(cfg, progress: bool = True) -> dict[str, list]:
    """Train (or reuse) every run of both studies in one sweep: {"order": [...], "lm": [...], "order_half": [...],
    "lm_half": [...], "order_quarter": [...], "lm_quarter": [...]} RunResults (:func:`half_configs`, protocol 4's
    runs at half the updates; :func:`quarter_configs`, at a quarter, empty unless ``cfg.earlier``).

    ``cfg.workers`` > 1 runs them in that many processes with one torch thread each; 1 runs them here.
    The language-model runs go first (they are the longest), so the pool stays busy to the end.
    """
    parts = {"lm": lm_configs(cfg), "lm_half": half_configs(cfg, "lm"), "order": order_configs(cfg),
             "order_half": half_configs(cfg, "order"), "lm_quarter": quarter_configs(cfg, "lm"),
             "order_quarter": quarter_configs(cfg, "order")}
    executor = ProcessExecutor(workers=cfg.workers, threads=1) if cfg.workers > 1 else LocalExecutor(threads=1)
    results = sweeps.sweep([c for configs in parts.values() for c in configs], executor=executor, progress=progress)
    out, i = {}, 0
    for name, configs in parts.items():
        out[name], i = results[i:i + len(configs)], i + len(configs)
    return out


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


# -- what a config can grade -----------------------------------------------------------------------------------
def missing(cfg) -> str:
    """Why ``cfg`` cannot test ``irie.q4.order`` ("" when it can)."""
    n = claims.get(ORDER).extra["layers"]
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


def lm_missing(cfg) -> str:
    """Why ``cfg`` cannot test ``irie.q4`` and ``irie.q4.attention`` ("" when it can)."""
    n = claims.get(CLAIM).extra["layers"]
    return "" if n in cfg.q4_layers else f"the claim compares {n}-layer models, and q4_layers is {cfg.q4_layers}"
