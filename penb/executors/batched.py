"""A sweep's GRU/LSTM runs trained K at a time by the one trainer (:mod:`penb.trainer`), into the run store.

* :func:`in_batches` splits normalised configs into batches: one :func:`penb.trainer.group_key` each (one core
  type, hidden size, batch size, length and task; vocabularies, encodings, budgets, schedules and seeds may
  differ), at most ``max_runs`` runs; the runs of one WSD trunk go to successive batches, longest budget first, so that a shorter
  budget starts from the branch point the longer one saved (``penb.trunks``) instead of training the trunk again;
* :func:`schedule` turns a sweep's configs into groups, stage by stage (a batch where it pays, else single runs);
* :class:`BatchedExecutor` trains them through ``penb.runner.train_group`` (the one place that locks, resumes,
  trains and finishes runs) inside ``penb.sweeps.sweep(configs, executor)``: it only schedules.

A chapter's sweep takes it with ``executor="batched"`` (``penb.executors.for_config``, ``batch_runs`` = ``max_runs``;
"auto" on the CPU too), and ``penb.call.slice`` trains its plan's batches through ``penb.runner.train_group`` directly.
"""
from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

from penb import trunks
from penb.executors.pool import ProcessExecutor, _cost
from penb.runner import train_group
from penb import runs
from penb.trainer import group_key, policy
from penb.trainer.kernels import stackable as batchable
from penb.executors.interface import Executor, check_count
from penb.executors.local import LocalExecutor
from penb.executors.cost import flat
from penb.trainer.policy import CPU_BATCH_GAIN, batch_most


def stage(configs: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """{run key: its rank among the budgets of its WSD trunk, longest first (0)}; 0 for a run without a trunk."""
    budgets: dict[str, set] = {}
    for c in configs:
        if trunks.shares_trunk(c):
            budgets.setdefault(trunks.trunk_key(c), set()).add(c["steps"])
    return {runs.key(c): (sorted(budgets[trunks.trunk_key(c)], reverse=True).index(c["steps"])
                          if trunks.shares_trunk(c) else 0) for c in configs}


def in_batches(configs: Sequence[Mapping[str, Any]], max_runs: int = 64) -> list[list]:
    """Batches of normalised ``configs`` (all :func:`batchable`) in training order: the runs of one group key and
    one trunk stage (:func:`stage`) in chunks of at most ``max_runs`` (a lone run is a batch of one); earlier
    stages first, and within a stage longer budgets first."""
    ranks = stage(configs)
    by_key: dict[tuple, list] = {}
    for c in sorted(configs, key=lambda c: -c["steps"]):
        by_key.setdefault((ranks[runs.key(c)], group_key(c)), []).append(c)
    batches = [(rank, b) for (rank, _), g in by_key.items() for b in deal(g, max_runs)]
    return [b for _, b in sorted(batches, key=lambda rb: (rb[0], -rb[1][0]["steps"]))]


def deal(group: list, max_runs: int) -> list[list]:
    """``group`` (one group key and stage, longest budget first) in as few chunks of at most ``max_runs`` runs as
    hold it, dealt in snake order by budget and then vocabulary (the token table and the read-out grow with V), so
    that chunks trained side by side on separate cores cost about the same; one chunk where it fits."""
    if len(group) <= max_runs:
        return [group]
    n = -(-len(group) // max_runs)
    order = sorted(group, key=lambda c: (-c["steps"], -c.get("vocab_size", 0)))
    chunks: list[list] = [[] for _ in range(n)]
    for i, c in enumerate(order):
        lap, j = divmod(i, n)
        chunks[j if lap % 2 == 0 else n - 1 - j].append(c)
    return [sorted(ch, key=lambda c: -c["steps"]) for ch in chunks]


def groups(configs: Sequence[Mapping[str, Any]], max_runs: int,
           ranks: Optional[dict[str, int]] = None) -> list[tuple[list, int]]:
    """(batch, updates it has to go) for every :func:`in_batches` batch of ``configs`` and every run that cannot share
    one (an S4D, a transformer: a batch of its own, after the batches, longest budget first). A branch (a shorter budget
    of a WSD trunk, its :func:`stage` rank in ``ranks`` above 0) trains only its decay; any other run its whole
    budget."""
    ranks = stage(configs) if ranks is None else ranks
    alone = sorted((c for c in configs if not batchable(c)), key=lambda c: -c["steps"])
    todo = in_batches([c for c in configs if batchable(c)], max_runs) + [[c] for c in alone]
    return [(b, max(trunks.to_go(c, branch=bool(ranks[runs.key(c)])) for c in b)) for b in todo]


def pays(configs: Sequence[Mapping[str, Any]], to_go: Optional[int] = None) -> bool:
    """Whether training ``configs`` (one group key) as one stacked batch beats training them one at a time, each with
    its own fused module (``penb.trainer.policy.batch_pays``), with ``to_go`` updates left (default: all of them)."""
    return policy.batch_pays(configs, max(x["steps"] for x in configs) if to_go is None else to_go)


def split(batch: list) -> list[list]:
    """``batch`` in as few parts of as even a size as hold at most ``penb.trainer.policy.batch_most`` runs each (the
    CPU's LSTM: 8; 15 runs go as 8 and 7, 9 as 5 and 4); the whole batch where there is no such limit."""
    most = batch_most(batch)
    if most is None or len(batch) <= most:
        return [batch]
    n = -(-len(batch) // most)
    cuts = [round(i * len(batch) / n) for i in range(n + 1)]
    return [batch[a:b] for a, b in zip(cuts, cuts[1:])]


def group_cost(group: list) -> float:
    """A group's relative CPU time: its runs' cost (``penb.executors.pool._cost``) over the batch's measured CPU gain
    (``penb.trainer.policy.CPU_BATCH_GAIN``; a lone run, or a core without a measured gain: its cost)."""
    return _cost(group) / (CPU_BATCH_GAIN.get(group[0]["core"], 1.0) if len(group) > 1 else 1.0)


def makespan(groups: list[list], workers: int) -> float:
    """The longest worker's share when ``groups`` are dealt longest first by :func:`group_cost` to ``workers``
    processes (as :class:`BatchedExecutor`'s ``penb.executors.pool.ProcessExecutor`` deals them)."""
    loads = [0.0] * workers
    for cost in sorted(map(group_cost, groups), reverse=True):
        loads[loads.index(min(loads))] += cost
    return max(loads)


def spread(groups: list[list], workers: int) -> list[list]:
    """A stage's ``groups``, or the same with every batch of a limited size (``penb.trainer.policy.batch_most``: the
    CPU's LSTM) trained as single runs, whichever :func:`makespan` finishes first on ``workers`` processes: a batch of
    6 LSTMs on one core (1.24x) is slower than its runs over two cores when nothing else fills the second."""
    if workers < 2:
        return groups
    alone = [part for g in groups for part in ([[c] for c in g] if len(g) > 1 and batch_most(g) is not None else [g])]
    return alone if makespan(alone, workers) < makespan(groups, workers) else groups


def schedule(configs: Sequence[Mapping[str, Any]], max_runs: int, workers: int = 1) -> list[list[list]]:
    """The groups a sweep trains, stage by stage: :func:`in_batches`'s batches (any config; a run that cannot share a
    batch, an S4D or a transformer, is a group of its own), each batch that does not :func:`pays` split into single
    runs, each that does into :func:`split`'s parts; with ``workers`` processes, a stage's limited batches trained alone
    where that ends the stage sooner (:func:`spread`).
    Stage s holds the groups whose runs are the s-th longest budget of their WSD trunk (:func:`stage`): a stage
    starts after the one before has saved its branch points. Within a stage the groups are independent."""
    ranks = stage(configs)
    stages: dict[int, list] = {}
    for batch, to_go in groups(configs, max_runs, ranks):
        parts = split(batch) if pays(batch, to_go) else [[c] for c in batch]
        stages.setdefault(ranks[runs.key(batch[0])], []).extend(parts)
    return [spread(stages[s], workers) for s in sorted(stages)]


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
        items = list(items)
        keywords = getattr(fn, "keywords", None) or {}
        if "store" not in keywords:
            raise TypeError("BatchedExecutor runs penb.sweeps.sweep's jobs (a partial of penb.sweeps._job with store=)")
        store, progress = str(keywords["store"]), bool(keywords.get("progress", False))
        trained: dict[str, bool] = {}
        for groups in schedule(flat(items), self.max_runs, self.workers):
            if self.workers > 1 and len(groups) > 1:
                pool = ProcessExecutor(self.workers, self.threads, desc=self.desc, cost=group_cost)
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
