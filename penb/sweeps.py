"""Sweeps: many run configs through an executor into the run store (``penb.runs`` only stores).

``sweep(configs, executor)`` normalises every configuration once, first (``ValueError`` before anything runs), reuses
finished runs, resumes interrupted ones from their last checkpoint, and runs the rest on the executor (``penb.executors``),
the budgets of one WSD trunk as one item (:func:`groups`). ``chapter_sweep`` is a chapter's: it says what it found and
picks the chapter's executor. Each run trains under its folder's lock (``penb.runner.run``), so two processes on one
store train it once.
"""
from __future__ import annotations

import json
import os
from functools import partial
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional

from penb import runner
from penb import trunks
from penb.executors import Executor, LocalExecutor, for_config
from penb.preflight import check_store
from penb.progress import emit
from penb import runs
from penb.runs import RunResult


def _job(item, store: str, progress: bool):
    """Executor job (module level, so it pickles): run one config, its key and whether it trained here; or a
    group of budgets of one trunk (a tuple, longest first: :func:`groups`), that pair per run, as a list."""
    if not isinstance(item, tuple):
        result, trained = runner._run(item, Path(store), progress)
        return result.key, trained
    return [_job(config, store, progress) for config in item]


def groups(configs: list) -> list:
    """The executor's items: each config alone, except WSD runs of one trunk (``penb.trunks``), which form one
    item, a tuple of configs longest budget first, so that one worker trains the trunk once and each shorter
    budget only its decay branch."""
    by_trunk: dict = {}
    items: list = []
    for c in configs:
        if not trunks.shares_trunk(c):
            items.append(c)
            continue
        k = trunks.trunk_key(c)
        if k not in by_trunk:
            by_trunk[k] = len(items)
            items.append([])
        items[by_trunk[k]].append(c)
    return [tuple(sorted(i, key=lambda c: -c["steps"])) if isinstance(i, list) else i for i in items]


def sweep(configs: Iterable[Mapping[str, Any]], executor: Optional[Executor] = None,
          store: Optional[Path] = None, progress: bool = True) -> list[RunResult]:
    """Results of every config, in order: finished runs reused, partial ones resumed, new ones run.

    All configs are validated before any run starts (``ValueError``). Duplicates run once. Per-run
    progress bars show with the in-process executor only.
    """
    configs = runs.settle(configs, executor)                    # the one normalisation of each config
    check_store(runs.root(store))
    todo = {}
    for c in configs:
        if runs.status(c, store) != "done":
            todo.setdefault(runs.key(c), c)
    executor = executor or LocalExecutor()
    distinct = {runs.key(c) for c in configs}
    emit({"event": "sweep", "runs": len(distinct), "found": len(distinct) - len(todo), "todo": len(todo)})
    trained = set()
    if todo:
        job = partial(_job, store=str(runs.root(store)), progress=progress and isinstance(executor, LocalExecutor))
        done = executor.map(job, groups(list(todo.values())))
        trained = {k for d in done for k, t in (d if isinstance(d, list) else [d]) if t}
    results = [runs.load(c, store) for c in configs]
    _log_usage(results, trained)
    return results


def chapter_sweep(configs: list[Mapping[str, Any]], cfg, desc: str, executor: Optional[Executor] = None,
                  store: Optional[Path] = None, progress: bool = True) -> tuple[list[RunResult], list[bool]]:
    """A chapter's sweep: says how many runs are in the store and how many will train, trains them with the
    chapter's executor (``penb.executors.for_config(cfg, desc, todo, store)``: chosen by the chapter's
    ``executor`` parameters) unless ``executor`` is given, and
    returns the results in order with, per config, whether it was in the store before (reused)."""
    if executor is None and cfg.get("executor") == "submitit":
        executor = for_config(cfg, desc, len(configs), store)
    configs = runs.settle(configs, executor)
    before = [runs.status(c, store) == "done" for c in configs]
    todo = len(configs) - sum(before)
    print(f"{len(configs)} runs: {sum(before)} found in the run store, {todo} to train")
    results = sweep(configs, executor or for_config(cfg, desc, todo, store), store=store, progress=progress)
    return results, before


USAGE_LOG = "PENB_RUN_LOG"   # environment variable: a file to which sweep appends one line per run it returned


def _log_usage(results: list[RunResult], trained: set) -> None:
    """Append ``{"key", "trained", "wall_s"}`` per distinct run to the file named by ``$PENB_RUN_LOG`` (if set).

    ``penb.notebook`` sets it while a chapter runs, so the status page can say how many runs a chapter used,
    how many it trained itself and how long their training took where they were made.
    """
    path = os.environ.get(USAGE_LOG)
    if not path:
        return
    seen, lines = set(), []
    for r in results:
        if r.key in seen:
            continue
        seen.add(r.key)
        lines.append(json.dumps({"key": r.key, "trained": r.key in trained, "wall_s": r.wall_s}))
    with open(path, "a") as f:
        f.write("".join(line + "\n" for line in lines))
