"""What the page ``notebooks/irie.py`` shows and glues of Question 4's trained models
(``penb.chapters.irie.q4``): the models' sizes, the run counts, the tables over seeds
and their figures, the exploratory views and the run tables. The words around them stay
in the notebook; the random-model checks are in :mod:`penb.chapters.irie.page`.

``runs`` below is the dict of ``q4.run`` ({"order", "lm", "order_half", "lm_half",
"order_quarter", "lm_quarter"}: lists of ``penb.runs.RunResult``). Imported by the
notebook only (IPython and myst_nb are not on the device image).
"""
from __future__ import annotations

from typing import NamedTuple, Optional

import pandas as pd
from IPython.display import display

from penb import claims
from penb.chapters import pages
from penb.chapters.irie import plots, q4, q4_tables
from penb.report import provenance

ORDER_COLUMNS = ["graded", "seeds", "diverged", "mean", "lo", "hi", "per_seed",
                 "sequence_accuracy"]
LM_COLUMNS = ["graded", "seeds", "diverged", "mean", "lo", "hi", "per_seed", "pooled",
              "para_lo", "para_hi"]
USE_COLUMNS = ["seeds", "mean", "lo", "hi", "per_seed", "ppl_last", "ppl_shuffled",
               "win_lo", "win_hi", "max_abs_change"]


class Results(NamedTuple):
    """Question 4's tables over seeds and the order-blind ceiling they are read
    against (None, margin 0, where the task is not ``reverse``)."""
    order: pd.DataFrame             # q4_tables.order_table: one row per model
    lm: pd.DataFrame                # q4_tables.lm_table: one row per model
    ceiling: Optional[float]
    margin: float


def _steps(cfg) -> dict:
    return {"q4_steps": cfg.q4_steps, "lm_steps": cfg.lm_steps}




def setup(cfg) -> None:
    """The language models' text and tokenizer, every model's size and the provenance;
    glues the rule's margin for curves that have met (``irie_q4_meet``)."""
    meet = claims.get(q4.CLAIM).rule.params["meet_margin"]
    pages.glue_all({"irie_q4_meet": f"{meet:g}"})
    print(q4.lm_task(cfg).describe())
    pages.table(q4_tables.parameter_counts(cfg), cfg, **_steps(cfg))


def run_counts(runs: dict) -> None:
    """Glue the runs (``irie_q4_runs``), those at half and a quarter of the updates
    (``irie_q4_half``, ``irie_q4_quarter``) and the diverged ones
    (``irie_q4_diverged``)."""
    pages.glue_all({
        "irie_q4_runs": sum(len(r) for r in runs.values()),
        "irie_q4_half": len(runs["order_half"]) + len(runs["lm_half"]),
        "irie_q4_quarter": len(runs["order_quarter"]) + len(runs["lm_quarter"]),
        "irie_q4_diverged": sum(r.diverged for rs in runs.values() for r in rs)})


def _cell(table: pd.DataFrame, layers: int, encoding: str, fmt: str) -> str:
    """'mean [lo, hi]' of a row of a Q4 table, or a note when the cell was not run."""
    name = q4.label(layers, encoding)
    if name not in table.index or not table.loc[name, "seeds"]:
        return "(not run at this preset)"
    r = table.loc[name]
    return f"{fmt.format(r['mean'])} [{fmt.format(r.lo)}, {fmt.format(r.hi)}]"


def _glue_cells(res: Results, cfg) -> None:
    """Glue the task, the claim's depth, the ceiling and each model's mean with its
    interval (``irie_q4_<one|deep>_<none|pe>``, ``irie_q4_lm_...``)."""
    deep = claims.get(q4.CLAIM).extra["layers"]
    ceiling = "none computed" if res.ceiling is None else f"{res.ceiling:.3f}"
    task = f"{cfg.q4_task} (V = {cfg.q4_vocab}, L = {cfg.q4_length})"
    values = {"irie_q4_task": task, "irie_q4_deep": deep, "irie_q4_ceiling": ceiling}
    models = {"one_none": (1, "none"), "one_pe": (1, cfg.encoding),
              "deep_none": (deep, "none"), "deep_pe": (deep, cfg.encoding)}
    for name, (n, e) in models.items():
        values[f"irie_q4_{name}"] = _cell(res.order, n, e, "{:.3f}")
        values[f"irie_q4_lm_{name}"] = _cell(res.lm, n, e, "{:.2f}")
    pages.glue_all(values)


def results(runs: dict, cfg) -> Results:
    """The order task's and the language models' tables over seeds, each with its
    provenance (and the ceiling under the order table); glues what the text quotes of
    them (:func:`_glue_cells`)."""
    reverse = cfg.q4_task == "reverse"
    ceiling, margin = q4.ceiling_margin(cfg) if reverse else (None, 0.0)
    res = Results(q4_tables.order_table(runs["order"], cfg),
                  q4_tables.lm_table(runs["lm"], cfg), ceiling, margin)
    display(res.order[ORDER_COLUMNS].round(4))
    task = f"{cfg.q4_task} V={cfg.q4_vocab} L={cfg.q4_length}"
    print(provenance(cfg, task=task, q4_seeds=cfg.q4_seeds, steps=cfg.q4_steps,
                     held_out=cfg.q4_held_out))
    if ceiling is not None:
        print(f"order-blind ceiling E[max count]/L = {ceiling:.4f} "
              f"(+ test noise {margin:.4f}); "
              f"chance 1/V = {1 / cfg.q4_vocab:.4f}")
    display(res.lm[[c for c in LM_COLUMNS if c in res.lm]].round(3))
    corpus = f"{cfg.lm_corpus} train={cfg.lm_train_split} test={cfg.lm_test_split}"
    print(provenance(cfg, corpus=corpus, lm_seeds=cfg.lm_seeds, steps=cfg.lm_steps,
                     T=cfg.lm_length, vocab=cfg.lm_vocab))
    _glue_cells(res, cfg)
    return res


def results_figure(res: Results, cfg) -> None:
    """The graded figure (``plots.results``): order-task accuracy against the ceiling
    and language-model perplexity, every seed a point."""
    fig = plots.results(res.order, res.lm, res.ceiling, res.margin, cfg.q4_vocab,
                        f"{cfg.q4_task}, V={cfg.q4_vocab}, L={cfg.q4_length}",
                        f"{cfg.lm_corpus} LM, test perplexity")
    pages.show(fig, cfg, q4_seeds=cfg.q4_seeds, q4_steps=cfg.q4_steps,
          lm_seeds=cfg.lm_seeds, lm_steps=cfg.lm_steps)


def order_use(runs: dict, cfg) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Not graded: the order task's accuracy per output step
    (``q4_tables.position_accuracy``) and the language models' loss with the earlier
    inputs shuffled (``q4_tables.lm_order_use``, shown with its provenance); returns
    both for :func:`exploratory_figure`."""
    positions = q4_tables.position_accuracy(runs["order"])
    use = q4_tables.lm_order_use(runs["lm"], cfg)
    pages.table(use[USE_COLUMNS].round(4), cfg,
                corpus=f"{cfg.lm_corpus} {cfg.lm_test_split}",
                lm_seeds=cfg.lm_seeds, steps=cfg.lm_steps)
    return positions, use


def exploratory_figure(positions: pd.DataFrame, use: pd.DataFrame, cfg) -> None:
    """The two views of :func:`order_use` (``plots.exploratory``)."""
    pages.show(plots.exploratory(positions, use), cfg, **_steps(cfg))


def training_figure(runs: dict, cfg) -> None:
    """The training curves of the order task and the language models."""
    fig = plots.training(q4_tables.curves(runs["order"]), q4_tables.curves(runs["lm"]))
    pages.show(fig, cfg, **_steps(cfg))


def run_tables(exact: pd.DataFrame, runs: dict, cfg) -> None:
    """The exact claims' numbers per seed (``analysis.exact_table``), then every Q4
    run (``q4_tables.run_table``), each with its provenance."""
    pages.table(exact.map(lambda v: f"{v:.1e}"), cfg, permutations=cfg.permutations)
    pages.table(q4_tables.run_table(runs), cfg, **_steps(cfg))
