"""A sweep's GRU/LSTM runs trained K at a time by the one trainer (:mod:`penb.trainer`), into the run store.

* :func:`plan` splits normalised configs into batches: one :func:`penb.trainer.group_key` each (one core type, hidden
  size, batch size, length and task; vocabularies, encodings, budgets, schedules and seeds may differ), at most
  ``max_runs`` runs; the runs of one WSD trunk go to successive batches, longest budget first, so that a shorter
  budget starts from the branch point the longer one saved (``penb.trunks``) instead of training the trunk again;
* :func:`train_group` trains one batch into the store as ``penb.store.runs.run`` would each of its runs: under every
  run's lock, skipping runs found done, resuming from checkpoints or the trunk, and writing each run's
  ``config.json``, checkpoints, ``predictions.npz`` and ``result.json`` through ``penb.trainer``'s own code. A run's
  ``result.json`` has the single run's fields, plus ``"batched": {"runs": K, "wall_s": the batch's training time,
  "compile_s": ...}``; its ``wall_s`` is its share of that time (1/K) plus its own test;
* :class:`BatchedExecutor` plugs both into ``penb.sweeps.sweep(configs, executor)``.

A chapter's sweep takes it with ``executor="batched"`` (``penb.executors.for_config``, ``batch_runs`` = ``max_runs``),
and ``penb.slice`` trains its plan's batches through :func:`train_group` directly.
"""
from __future__ import annotations

import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

from penb import trunks
from penb.store import atomic, runs
from penb.trainer import Trainer, finish, group_key
from penb.trainer.kernels import stackable as batchable
from penb.executors.base import Executor, LocalExecutor, check_count
from penb.executors.cost import flat


def stage(configs: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """{run key: its rank among the budgets of its WSD trunk, longest first (0)}; 0 for a run without a trunk."""
    budgets: dict[str, set] = {}
    for c in configs:
        if trunks.shares_trunk(c):
            budgets.setdefault(trunks.trunk_key(c), set()).add(c["steps"])
    return {runs.key(c): (sorted(budgets[trunks.trunk_key(c)], reverse=True).index(c["steps"])
                          if trunks.shares_trunk(c) else 0) for c in configs}


def plan(configs: Sequence[Mapping[str, Any]], max_runs: int = 64) -> list[list]:
    """Batches of normalised ``configs`` (all :func:`batchable`) in training order: the runs of one group key and
    one trunk stage (:func:`stage`) in chunks of at most ``max_runs`` (a lone run is a batch of one); earlier
    stages first, and within a stage longer budgets first."""
    ranks = stage(configs)
    by_key: dict[tuple, list] = {}
    for c in sorted(configs, key=lambda c: -c["steps"]):
        by_key.setdefault((ranks[runs.key(c)], group_key(c)), []).append(c)
    batches = [(rank, g[i:i + max_runs]) for (rank, _), g in by_key.items() for i in range(0, len(g), max_runs)]
    return [b for _, b in sorted(batches, key=lambda rb: (rb[0], -rb[1][0]["steps"]))]


def pays(configs: Sequence[Mapping[str, Any]], to_go: Optional[int] = None) -> bool:
    """Whether training ``configs`` (one group key) as one stacked batch beats training them one at a time, each with
    its own fused module (``penb.trainer.loop.batch_pays``), with ``to_go`` updates left (default: all of them)."""
    from penb.trainer.loop import batch_pays

    return batch_pays(configs, max(x["steps"] for x in configs) if to_go is None else to_go)


def train_group(configs: Sequence[Mapping[str, Any]], store: Path, progress: bool = False, kernel: str = "auto",
                compile: str = "auto") -> dict[str, bool]:
    """Train the batch ``configs`` (normalised, one group key) in the store folder ``store``; {run key: trained here}.

    The runs' locks are taken in key order (two processes never wait on each other); each run resumes from its own
    checkpoints, else from its trunk's branch point, and the batch trains them together from wherever each
    stands (``penb.trainer.Trainer``). ``kernel`` "auto": one stacked batch where it :func:`pays`, else each run
    alone with its own module (in order); ``kernel``, ``compile``: as ``Trainer`` takes them otherwise."""
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
        if todo:
            for k in todo:
                runs.sweep_temporary(dirs[k])
            alone = kernel == "auto" and not pays([unique[k] for k in todo])
            for part in ([[k] for k in todo] if alone else [todo]):
                start = time.time()
                trainer = Trainer([unique[k] for k in part], [dirs[k] for k in part],
                                  [trunks.trunk_dir(unique[k], store) for k in part],
                                  kernel="auto" if kernel == "auto" else kernel, compile=compile)
                for k, r in zip(part, trainer.runs):
                    atomic.write_json(dirs[k] / "config.json", r.config)
                trainer.run(progress=progress)
                wall = time.time() - start
                extra = {} if len(part) == 1 else {"batched": {"runs": len(part), "wall_s": round(wall, 2),
                                                               "compile_s": round(trainer.compile_s, 2)}}
                for k, r in zip(part, trainer.runs):
                    finish(r, dirs[k], time.time() - wall / len(part), **extra)
    done = {dirs[k].name for k in todo}
    return {runs.key(c): runs.key(c) in done for c in configs}


def schedule(configs: Sequence[Mapping[str, Any]], max_runs: int) -> list[list[list]]:
    """The groups a sweep trains, stage by stage: :func:`plan`'s batches (any config; a run that cannot share a batch,
    an S4D or a transformer, is a group of its own), each batch that does not :func:`pays` split into single runs.
    Stage s holds the groups whose runs are the s-th longest budget of their WSD trunk (:func:`stage`): a stage
    starts after the one before has saved its branch points. Within a stage the groups are independent."""
    from penb.run_config import decay_start

    ranks = stage(configs)
    stages: dict[int, list] = {}
    for batch in plan([c for c in configs if batchable(c)], max_runs) + [[c] for c in configs if not batchable(c)]:
        to_go = max(c["steps"] - (decay_start(c["steps"], c["decay"]) if ranks[runs.key(c)] else 0) for c in batch)
        parts = [batch] if pays(batch, to_go) else [[c] for c in batch]   # a branch trains only its decay
        stages.setdefault(ranks[runs.key(batch[0])], []).extend(parts)
    return [stages[s] for s in sorted(stages)]


def _group_job(configs: list, store: str, progress: bool) -> dict[str, bool]:
    return train_group(configs, Path(store), progress)


class BatchedExecutor(Executor):
    """For ``penb.sweeps.sweep``: every run of the sweep trains in a group of :func:`schedule` (a stacked batch of at
    most ``max_runs`` runs where that pays, else alone), stage by stage, the groups of a stage spread over
    ``workers`` processes of ``threads`` torch threads each (one process: here, in order).

    It reads the store from the sweep's job ``fn`` (``functools.partial(penb.sweeps._job, store=..., progress=...)``)
    and returns what that job returns per item: ``(key, trained)``, or a list of them for a trunk's tuple."""

    def __init__(self, max_runs: int = 64, workers: int = 1, threads: int = 1, desc: Optional[str] = None):
        self.max_runs = check_count("max_runs", max_runs)
        self.workers, self.threads, self.desc = check_count("workers", workers), check_count("threads", threads), desc

    def map(self, fn, items):
        from functools import partial

        from penb.executors.pool import ProcessExecutor

        items = list(items)
        keywords = getattr(fn, "keywords", None) or {}
        if "store" not in keywords:
            raise TypeError("BatchedExecutor runs penb.sweeps.sweep's jobs (a partial of penb.sweeps._job with store=)")
        store, progress = str(keywords["store"]), bool(keywords.get("progress", False))
        trained: dict[str, bool] = {}
        for groups in schedule(flat(items), self.max_runs):
            if self.workers > 1 and len(groups) > 1:
                pool = ProcessExecutor(self.workers, self.threads, desc=self.desc)
                done = pool.map(partial(_group_job, store=store, progress=False), groups)
            else:
                done = LocalExecutor(threads=self.threads).map(partial(_group_job, store=store, progress=progress),
                                                               groups)
            for d in done:
                for k, v in d.items():
                    trained[k] = trained.get(k, False) or v
        out = []
        for it in items:
            pairs = [(runs.key(c), trained[runs.key(c)]) for c in flat([it])]
            out.append(pairs if isinstance(it, tuple) else pairs[0])
        return out
