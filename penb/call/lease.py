"""A chapter's GPU runs in short slices, and their archived execution (``python -m penb lease`` / ``archive``).

Many users get a GPU in slices: a queue's debug partition, a card rented by the quarter-hour. A chapter's
``lease`` preset (``key_findings``: Fig. 2's headline comparisons at the paper's size) trains in **steps**. Each

    python -m penb lease CHAPTER --budget-min B --step-min S --out DIR

trains the preset's runs in order (through :mod:`penb.call.budgeted`, the slice's driver too) (each model's largest vocabulary first, the variants of one seed side by side, so
that a step cut short leaves whole pairs) until its S minutes are up, saves a checkpoint of the run in hand and
exits; the next invocation resumes from the store the last one left (``penb.runs``: a partial run resumes from its
last checkpoint). The minutes spent are kept in a ledger in the store, so all steps together train at most B
minutes. Exit status: 0 every run done, 3 runs left and minutes left (invoke it again), 4 runs left but the budget
is spent.

After every step the finished runs are **collected** into DIR, without checkpoints: ``manifest.json`` (chapter,
preset, parameters, device and its name, commit, torch, date, seeds, updates, the ledger), ``results.json`` (each
finished run's ``result.json``, by run key) and ``predictions.tar`` (their held-out predictions, which re-executing
the chapter needs). ``--from DIR`` first puts such a folder's finished runs (and its ledger) into the store, so a
step on a fresh machine trains only what was left.

A step needs torch, numpy, scipy, pandas, matplotlib, tqdm and filelock, not papermill, jupytext or submitit
(nor rapidfuzz: ``penb.metrics`` falls back to plain Python).

**archive** (``python -m penb archive CHAPTER --from DIR``, :mod:`penb.call.archive`, on a machine with the book's
packages) executes the chapter against those runs, training nothing, and writes the small folder that is committed.
"""
from __future__ import annotations

import importlib
import json
import sys
import time
from pathlib import Path
from typing import Callable, Optional

from penb import presets
from penb.call import budgeted
from penb.call.archive import archive, restore, source_commit  # noqa: F401 (archive: python -m penb archive)
from penb.chapters.rnn_common import all_budgets
from penb.progress import watching as progress_line
from penb.store import paths
from penb import runs

DONE, AGAIN, SPENT = 0, 3, 4               # exit status of a step


def ordered_runs(chapter: str, preset: str = "lease", overrides: Optional[dict] = None):
    """(cfg, configs): the resolved config and its normalised run configs in training order: each model (in
    ``cfg.cores`` order) at its largest vocabulary first, then by seed, the variants of a seed together, each
    run before its half budget (protocol 4's doubling test: with WSD the half budget is a branch off the run's
    trunk)."""
    cfg = presets.resolve(chapter, preset, **(overrides or {}))
    analysis = importlib.import_module(f"penb.chapters.{chapter}.analysis")
    cores = list(cfg.get("cores", ()))
    full = analysis.run_configs(cfg)

    def order(c):
        return (cores.index(c["core"]) if c["core"] in cores else len(cores), -c["vocab_size"], c["seed"],
                -c["steps"])
    return cfg, sorted(runs.settle(all_budgets(full, cfg)), key=order)


def ledger_path(cfg) -> Path:
    """The store's record of the minutes spent on ``cfg`` (one file per chapter, preset and configuration)."""
    return paths.store_dir() / "lease" / f"{cfg.chapter}-{cfg.preset}-{cfg.key()}.json"


def step(chapter: str, preset: str = "lease", overrides: Optional[dict] = None, *, budget_min: float,
         step_min: float, out: Optional[Path] = None, source: Optional[Path] = None,
         clock: Callable[[], float] = time.monotonic, progress: bool = True) -> dict:
    """One step: train for at most ``step_min`` minutes (and no more than the ``budget_min`` minutes of all steps),
    then collect the finished runs into ``out``. Returns the status: code (:data:`DONE`, :data:`AGAIN`,
    :data:`SPENT`), runs, left, spent_min, budget_min, groups (the plan) and trained ([{key, core, vocab, encoding,
    seed, from, to}]: the updates this step made). ``clock`` (seconds) is the step's timer; tests pass a fake one.
    The driving is :mod:`penb.call.budgeted`'s, one run per group, with its ledger."""
    if not 0 < step_min <= budget_min:
        raise ValueError(f"need 0 < step-min <= budget-min, got {step_min} and {budget_min}")
    overrides = dict(overrides or {})
    commit = source_commit()                       # before anything trains
    cfg, configs = ordered_runs(chapter, preset, overrides)
    # (presets.resolve has refused the lease preset on a machine without CUDA, unless device was given)
    ledger = budgeted.Ledger(ledger_path(cfg), cfg.key())
    if source is not None:
        restore(source)
        ledger.adopt(json.loads((Path(source) / "manifest.json").read_text()).get("ledger"))
    allowed = min(step_min, budget_min - ledger.spent_s / 60) * 60
    groups = budgeted.groups(configs, batched=False)
    trained: list = []
    if allowed > 0:
        start = clock()
        with progress_line(chapter, len(configs), sum(runs.status(c) == "done" for c in configs), allowed,
                           "the step's minutes (--step-min)", on=progress):
            trained = budgeted.drive(groups, start + allowed, clock, fit=False,
                                     progress=progress and sys.stderr.isatty())["trained"]   # no run bars in a pipe
        ledger.add(clock() - start, trained)
    left = sum(runs.status(c) != "done" for c in configs)
    code = DONE if not left else AGAIN if ledger.spent_s < budget_min * 60 else SPENT
    if out is not None:
        collect(cfg, configs, Path(out), ledger.book, overrides, budget_min, commit)
    return dict(chapter=chapter, preset=cfg.preset, code=code, runs=len(configs), left=left,
                spent_min=ledger.spent_s / 60, budget_min=budget_min, groups=groups, trained=trained)


def describe(status: dict) -> str:
    """A few lines for the terminal: what this step trained (:func:`penb.call.budgeted.describe`), and whether to invoke
    it again."""
    done = status["runs"] - status["left"]
    what = {DONE: "every run is done", AGAIN: "runs are left: invoke the same command again to resume",
            SPENT: "runs are left but the budget is spent: raise --budget-min to go on"}[status["code"]]
    head = (f"lease {status['chapter']}/{status['preset']}: {done} of {status['runs']} runs done, "
            f"{status['spent_min']:.1f} of {status['budget_min']:g} minutes spent; {what} (exit {status['code']})")
    return budgeted.describe(status.get("groups", []), head, [t for t in status["trained"] if "to" in t])


def collect(cfg, configs: list, out: Path, book: dict, parameters: dict, budget_min: float,
            commit: str = "") -> Path:
    """Write the finished runs of ``configs`` into folder ``out`` (see the module's docstring; no checkpoints)
    through :func:`penb.call.budgeted.collect`. ``commit``: the clean commit the step ran (:func:`source_commit`:
    $PENB_COMMIT where the user gave one, as a GPU machine's copy of the tree can carry a stale .git)."""
    budgeted.collect(out, configs, commit, single=True, chapter=cfg.chapter, preset=cfg.preset,
                     parameters=parameters, config_key=cfg.key(), seeds=sorted({c["seed"] for c in configs}),
                     updates={c["core"]: c["steps"] for c in configs}, budget_min=budget_min,
                     spent_min=round(book["spent_s"] / 60, 3), ledger=book)
    return out
