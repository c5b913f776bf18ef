"""A sweep's GRU/LSTM runs trained K at a time as one batched model (:mod:`penb.batched`), into the run store.

* :func:`plan` splits normalised configs into batches: one :func:`penb.batched.group_key` each, at most ``max_runs``
  runs, longer budgets first (a WSD trunk is trained to its branch points before the budgets that branch off it);
* :func:`train_group` trains one batch into the store as ``penb.store.runs.run`` would each of its runs: under every run's
  lock, skipping runs found done, resuming from checkpoints or the trunk, and writing each run's ``config.json``,
  checkpoints, ``predictions.npz`` and ``result.json`` through ``penb.train``'s own code. A run's ``result.json``
  has the single run's fields, plus ``"batched": {"runs": K, "wall_s": the batch's training time}``; its ``wall_s``
  is its share of that time (1/K) plus its own test;
* :class:`BatchedExecutor` plugs both into ``penb.sweeps.sweep(configs, executor)``.

A chapter's sweep takes it with ``executor="batched"`` (``penb.executors.for_config``, ``batch_runs`` = ``max_runs``:
the slice presets), and ``penb.slice`` trains its plan's batches through :func:`train_group` directly. The plan of one
batch does not size K to the device's memory (``max_runs`` does, by hand).
"""
from __future__ import annotations

import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

from penb import train, trunks
from penb.store import atomic, runs
from penb.batched import BatchedTrainer, batchable, group_key
from penb.executors.base import Executor, LocalExecutor, check_count
from penb.executors.cost import flat


def plan(configs: Sequence[Mapping[str, Any]], max_runs: int = 16) -> list[list]:
    """Batches of normalised ``configs`` (all :func:`~penb.batched.batchable`) in training order: the runs of one
    group key in chunks of at most ``max_runs`` (a lone run is a batch of one), longer budgets first."""
    by_key: dict[str, list] = {}
    for c in configs:
        by_key.setdefault(group_key(c), []).append(c)
    batches = [g[i:i + max_runs] for g in by_key.values() for i in range(0, len(g), max_runs)]
    return sorted(batches, key=lambda b: -b[0]["steps"])


def train_group(configs: Sequence[Mapping[str, Any]], store: Path, progress: bool = False) -> dict[str, bool]:
    """Train the batch ``configs`` (normalised, one group key) in the store folder ``store``; {run key: trained here}.

    The runs' locks are taken in key order (two processes never wait on each other); runs at one step after
    resuming train as one batch, a lone one as ``Trainer.run``; a run that comes back ``"alone"`` trains again alone
    from its last checkpoint (``penb.train.train``)."""
    from filelock import FileLock

    from penb.device import archived

    store = Path(store)
    unique = list({runs.key(c): c for c in configs}.values())
    dirs = [runs.run_dir(c, store) for c in unique]
    with ExitStack() as locks:
        for d in sorted(dirs):
            d.mkdir(parents=True, exist_ok=True)
            locks.enter_context(FileLock(str(d / ".lock")))
        todo = [k for k, c in enumerate(unique) if runs.status(c, store) != "done"]
        if todo and archived():
            raise ValueError(f"runs {[dirs[k].name for k in todo]} are not in the archived store being read; "
                             f"nothing trains here")
        start = time.time()
        trainers, trunk_dirs = [], []
        for k in todo:
            runs.sweep_temporary(dirs[k])
            t = train.Trainer(unique[k])
            atomic.write_json(dirs[k] / "config.json", t.config)
            trunk_dirs.append(trunks.trunk_dir(t.config, store))
            if not t.resume(dirs[k]):
                t.resume(trunk_dirs[-1], trunk=True)
            trainers.append(t)
        outcomes: dict[int, Any] = {}
        for step in sorted({t.step for t in trainers}):
            idx = [j for j, t in enumerate(trainers) if t.step == step]
            if len(idx) == 1:
                outcomes[idx[0]] = _alone(trainers[idx[0]], dirs[todo[idx[0]]], trunk_dirs[idx[0]], progress)
                continue
            batch = BatchedTrainer([trainers[j] for j in idx], [dirs[todo[j]] for j in idx],
                                   [trunk_dirs[j] for j in idx])
            outcomes.update({idx[m]: o for m, o in batch.run(progress).items()})
        wall = time.time() - start
        for j, t in enumerate(trainers):
            d = dirs[todo[j]]
            if outcomes[j] == "alone":
                train.train(unique[todo[j]], d, progress=progress, trunk=trunk_dirs[j])
                continue
            diverged = outcomes[j] if isinstance(outcomes[j], train.Diverged) else None
            train.finish(t, d, time.time() - wall / len(trainers), diverged,
                         batched={"runs": len(trainers), "wall_s": round(wall, 2)})
    done = {dirs[k].name for k in todo}
    return {runs.key(c): runs.key(c) in done for c in configs}


def _alone(t: train.Trainer, run_dir: Path, trunk: Optional[Path], progress: bool):
    """Train one run as ``penb.train`` does; "done" or its Diverged."""
    try:
        t.run(run_dir, progress=progress, trunk=trunk)
    except train.Diverged as d:
        return d
    return "done"


class BatchedExecutor(Executor):
    """For ``penb.sweeps.sweep``: the items whose runs are all :func:`~penb.batched.batchable` train here in batches of
    at most ``max_runs`` (:func:`plan`, :func:`train_group`); the others go to ``fallback`` (default: this process).

    It reads the store from the sweep's job ``fn`` (``functools.partial(penb.sweeps._job, store=..., progress=...)``)
    and returns what that job returns per item: ``(key, trained)``, or a list of them for a trunk's tuple."""

    def __init__(self, max_runs: int = 16, fallback: Optional[Executor] = None):
        self.max_runs = check_count("max_runs", max_runs)
        self.fallback = fallback

    def map(self, fn, items):
        items = list(items)
        keywords = getattr(fn, "keywords", None) or {}
        if "store" not in keywords:
            raise TypeError("BatchedExecutor runs penb.sweeps.sweep's jobs (a partial of penb.sweeps._job with store=)")
        store, progress = Path(keywords["store"]), bool(keywords.get("progress", False))
        mine = [n for n, it in enumerate(items) if all(batchable(c) for c in flat([it]))]
        trained: dict[str, bool] = {}
        for batch in plan(flat([items[n] for n in mine]), self.max_runs):
            trained.update(train_group(batch, store, progress))
        rest = [n for n in range(len(items)) if n not in set(mine)]
        out = dict(zip(rest, (self.fallback or LocalExecutor()).map(fn, [items[n] for n in rest])))
        for n in mine:
            pairs = [(runs.key(c), trained[runs.key(c)]) for c in flat([items[n]])]
            out[n] = pairs if isinstance(items[n], tuple) else pairs[0]
        return [out[n] for n in range(len(items))]
