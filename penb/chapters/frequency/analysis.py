"""Morita's Fig. 3 (Sec. 4.2): accuracy on the dual-frequency test grid, vanilla vs. PE. The chapter's runs.

The test set of a ``dual_frequency`` run (``penb.tasks``) holds, for every target group (FREQUENT/RARE),
disturbant group (all FREQUENT/all RARE) and target position t = 1..L, ``per_cell`` sequences; only the
target's output step is scored, so each test sequence is one right-or-wrong outcome.

* here: :func:`run_configs` lists the runs of a resolved ``frequency`` (or ``gradient_stability``) config,
  :func:`run` trains them (or reuses them from the run store) and keeps the diverged ones apart; the page's
  run and search tables;
* :mod:`~penb.chapters.frequency.grid`: the test-grid counts and per-seed accuracies (``cells``,
  ``per_seed``, ``by_quarter``, ``by_position``);
* :mod:`~penb.chapters.frequency.harm`: the harm of RARE disturbants per seed and its summaries;
* :mod:`~penb.chapters.frequency.grading`: the evidence of every claim of the chapter, graded through
  ``penb.claims`` (``grade_claims``).

The names of those modules are re-exported here, so ``frequency.analysis.<name>`` reaches all of them.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import numpy as np
import pandas as pd

from penb import claims
from penb import runs
from penb import sweeps
from penb.chapters import rnn_common
from penb.chapters.frequency.grading import (EXCEPTION, HARM, ROBUST, diverged_counts,  # noqa: F401
                                             harm_evidence, robust_evidence)
from penb.chapters.frequency import grading
from penb.chapters.frequency.grid import (CONDITIONS, LABELS, RUN, by_position, by_quarter,  # noqa: F401
                                          cell_counts, cells, per_seed, position_seeds, proportion_ci,
                                          quarter_cells, quarter_label, quarter_seeds, quarters, seed_summary)
from penb.chapters.frequency.harm import (contrast, harm, harm_gap, harm_summary, harm_table,  # noqa: F401
                                          paired, seed_harm)
from penb.executors import Executor
from penb.names import model_name, variant_label

SEARCH_LOG = Path(__file__).with_name("search_log.csv")     # the regime search (search_table)
VANILLA, PE = variant_label("none"), variant_label("sinusoidal")


def run_configs(cfg) -> list[dict]:
    """One run config per (core, encoding, seed): the dual-frequency task with its test
    grid of ``4 x length x per_cell`` sequences. Only the training keys of
    ``penb.chapters.frequency.presets`` enter, so ``frequency`` and ``gradient_stability`` agree."""
    common = dict(task="dual_frequency", task_options={"rarity": float(cfg.rarity)},
                  length=cfg.length, betas=tuple(cfg.betas),
                  held_out=4 * cfg.length * cfg.per_cell,
                  checkpoint_every=cfg.checkpoint_every, device=cfg.device, amp=cfg.amp)
    return [dict(common, **rnn_common.settings(cfg, core), core=core,
                 vocab_size=cfg[f"{core}_vocab"], encoding=e, seed=s)
            for core in cfg.cores for e in cfg.encodings for s in cfg.seeds]


def _row(r: runs.RunResult) -> dict:
    c = r.config
    return dict(model=c["core"], vocab=c["vocab_size"], encoding=c["encoding"],
                variant=variant_label(c["encoding"]), seed=c["seed"], diverged=r.diverged,
                diverged_at=r.divergence.get("step", np.nan),
                token_accuracy=r.metrics.get("token_accuracy", np.nan), wall_s=r.wall_s,
                key=r.key, path=str(r.path))


def run(cfg, executor: Optional[Executor] = None, store: Optional[Path] = None,
        progress: bool = True) -> pd.DataFrame:
    """Train or reuse every run of the resolved ``frequency`` (or ``gradient_stability``) config.

    One row per run, in config order: model, vocab, encoding, variant, seed, diverged (bool),
    diverged_at (step, NaN for a valid run), token_accuracy (whole test grid; NaN when diverged),
    wall_s (training time where it was made), key, path (run folder).
    """
    configs = run_configs(cfg)
    todo = rnn_common.all_budgets(configs, cfg)          # N, N/2 (and earlier ones)
    results, _ = sweeps.chapter_sweep(todo, cfg, "Fig. 3 runs", executor, store, progress)
    return _frame(results[:len(configs)])


def _frame(results) -> pd.DataFrame:
    valid, diverged = runs.split_diverged(results)
    order = {r.key: i for i, r in enumerate(results)}
    rows = sorted((_row(r) for r in valid + diverged), key=lambda row: order[row["key"]])
    return pd.DataFrame(rows)


def half_frame(cfg, store: Optional[Path] = None) -> Optional[pd.DataFrame]:
    """The runs of ``cfg`` at half their updates (protocol 4's doubling test), from the store, as :func:`run`
    gives them; None when the preset trains none or they are missing."""
    found = rnn_common.load_half(run_configs(cfg), cfg, store)
    return _frame(found) if found is not None else None


def registry(keys) -> pd.DataFrame:
    """The registry's entries of ``keys`` (``penb.claims``): where, statement, measure, the rule's
    wording (or, for a claim without a rule, the registry's reason) and the trivial baseline;
    index: claim."""
    rows = [(c.key, c.where, c.statement, c.measure, c.rule.text if c.rule else c.not_tested,
             c.baseline) for c in map(claims.get, keys)]
    cols = ["claim", "where", "statement", "measure", "rule", "baseline"]
    return pd.DataFrame(rows, columns=cols).set_index("claim")


def run_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The run table of the page: model, vocab, variant, seed, token_accuracy, diverged,
    diverged_at, wall_s (rounded)."""
    t = frame.assign(model=frame["model"].map(model_name),
                     diverged_at=frame["diverged_at"].astype("Int64"))
    cols = ["model", "vocab", "variant", "seed", "token_accuracy", "diverged", "diverged_at",
            "wall_s"]
    return t[cols].round({"token_accuracy": 4, "wall_s": 1}).set_index(["model", "variant",
                                                                       "seed"])


def search_table(path: Optional[Path] = None) -> pd.DataFrame:
    """The regime search behind the ``quick`` preset (``search_log.csv`` beside this module,
    written by ``scripts/search_frequency.py``): one row per configuration and model tried."""
    path = Path(path) if path is not None else SEARCH_LOG
    return pd.read_csv(path, dtype={"seeds": str}, keep_default_na=False)


def grade_claims(cfg, frame: pd.DataFrame, sh: pd.DataFrame, cells_: pd.DataFrame,
                 half: Optional[pd.DataFrame] = None, quarter: Optional[pd.DataFrame] = None) -> list:
    """:func:`penb.chapters.frequency.grading.grade_claims` with the runs at half the budget (protocol 4's
    doubling test) and at a quarter (protocol 6's horizon): ``half`` and ``quarter`` as :func:`half_frame`
    and :func:`quarter_frame` give them, read from the store when not given."""
    quarter = quarter_frame(cfg) if quarter is None else quarter
    return grading.grade_claims(cfg, frame, sh, cells_, half_inputs(cfg, half), _inputs(quarter))


def quarter_frame(cfg, store: Optional[Path] = None) -> Optional[pd.DataFrame]:
    """The runs of ``cfg`` at a quarter of their updates (``earlier``: protocol 6's horizon), from the store,
    as :func:`run` gives them; None when the preset trains none or they are missing."""
    found = rnn_common.load_quarter(run_configs(cfg), cfg, store)
    return _frame(found) if found is not None else None


def half_inputs(cfg, half: Optional[pd.DataFrame]) -> Optional[tuple]:
    """(frame, seed harm, cells, diverged) of the half-budget runs, as :func:`grade_claims` reads them for
    the full budget; None without them. The evidence of each claim is the same function of these."""
    return _inputs(half_frame(cfg) if half is None else half)


def _inputs(runs: Optional[pd.DataFrame]) -> Optional[tuple]:
    if runs is None or not len(runs):
        return None
    cells_ = cells(runs)
    return runs, seed_harm(cells_, target="all"), cells_, diverged_counts(runs)
