"""Executors: where the runs of a sweep execute. ``Executor.map(fn, items) -> list`` keeps the order.

* ``local`` (:mod:`.local`): one after another in this process (``threads``: torch threads while it runs);
* ``process`` (:mod:`.pool`): a pool of ``workers`` spawned processes, each with ``threads`` torch threads;
* ``submitit`` (:mod:`.cluster`): one job per run through submitit: a Slurm job array where Slurm is present
  (tested on a real one-node cluster: tests/test_slurm.py), local subprocesses otherwise (``cluster="local"``).
  A job that reaches its time limit (or is preempted) is requeued and resumes from the run's last checkpoint in
  the shared store; the store's per-run locks keep concurrent jobs from training one run twice.

:mod:`.cost` estimates a sweep's GPU-hours (printed before a submitit sweep submits).

A chapter's sweep picks one through :func:`for_config` from its parameters (``executor``, ``cluster``,
``partition``, ``gpus_per_job``, ``time_limit_min``, ``array_parallelism``: ``penb.chapters.rnn_common.EXECUTION``).

A cluster engine plugs in as another subclass whose ``map`` submits ``fn(item)`` jobs (``fn`` and the
items are picklable: the sweep passes a module-level function and plain dicts) and gathers the results.
"""
from __future__ import annotations

import multiprocessing as mp  # noqa: F401 (executors.mp: the pool's start context, which tests replace)
from pathlib import Path

from penb.device import resolve_device
from penb.executors.interface import Executor
from penb.executors.local import LocalExecutor
from penb.executors.batched import BatchedExecutor
from penb.executors.cost import ANCHOR_VOCAB, PAPER_STEP_S, READOUT_S, gpu_hours, step_seconds
from penb.executors.pool import ProcessExecutor, RunFailed, _cost  # noqa: F401 (_cost: tested)
from penb.store import paths

__all__ = ["Executor", "LocalExecutor", "ProcessExecutor", "RunFailed", "SubmititExecutor", "EXECUTORS",
           "for_config", "make_executor", "gpu_hours", "step_seconds", "PAPER_STEP_S", "ANCHOR_VOCAB", "READOUT_S"]


def for_config(cfg, desc: str = "runs", todo: int = 2, store=None) -> Executor:
    """The executor a chapter's sweep uses, chosen by the chapter's parameters (``rnn_common.EXECUTION``):

    * ``executor="auto"`` (also when ``cfg`` has no ``executor`` key), with more than one run to train: on the CPU
      the batched executor's groups (a figure's GRU runs of one shape as one batch where that pays,
      ``penb.trainer.policy.batch_pays``; every other run alone), a stage's groups spread over ``cfg.workers``
      processes of one torch thread each (one per core); on a GPU ``cfg.workers`` processes of one run each,
      packed onto the device at once (a gpu preset's paper-sized batches are not measured yet: a chapter that wants
      them names ``executor="batched"``, as the slices do). With one run: in this process (one thread on the
      CPU). Until the CPU's eager GRU batch (2.6x one run at K = 18, issue 48) the CPU trained one run per core:
      the compiled batch had made key findings 14:00 and frequency 9:00 against 12:38 and 6:24;
    * ``"local"``: in this process; ``"process"``: ``cfg.workers`` processes whatever the number of runs;
    * ``"batched"``: the runs of one shape ``cfg.batch_runs`` at a time as one batched model in this process
      (:class:`penb.executors.batched.BatchedExecutor`), any other run alone;
    * ``"submitit"``: a :class:`SubmititExecutor` (``cluster``, ``partition``, ``gpus_per_job``,
      ``time_limit_min``, ``array_parallelism`` from ``cfg``) whose folder is ``submitit/`` in the run store
      (``store``: the store's ``rnn`` folder when a sweep was pointed elsewhere; its parent holds it)."""
    name = cfg.get("executor", "auto")
    if name not in ("auto", "local", "process", "submitit", "batched"):
        raise ValueError(f"unknown executor {name!r}; valid: auto, local, process, submitit, batched")
    if name == "submitit":
        folder = (Path(store).parent if store is not None else paths.store_dir()) / "submitit"
        return _submitit(folder=folder, cluster=cfg["cluster"], partition=cfg["partition"],
                         gpus_per_job=cfg["gpus_per_job"], time_limit_min=cfg["time_limit_min"],
                         array_parallelism=cfg["array_parallelism"])
    if name == "batched":
        return BatchedExecutor(cfg.batch_runs)
    cpu = resolve_device(cfg.device).type == "cpu"
    if name == "auto" and todo > 1 and cpu:
        return BatchedExecutor(cfg.batch_runs, workers=cfg.workers, threads=1, desc=desc)
    if name == "process" or (name == "auto" and cfg.workers > 1 and todo > 1):
        return ProcessExecutor(cfg.workers, 1, desc=desc)
    return LocalExecutor(threads=1 if cpu else None)


def _submitit(**options) -> Executor:
    from penb.executors.cluster import SubmititExecutor   # deferred: submitit is optional (a GPU image may lack it)

    return SubmititExecutor(**options)


EXECUTORS = {"local": LocalExecutor, "process": ProcessExecutor, "submitit": _submitit}   # submitit: imported when used


def __getattr__(name: str):
    """``SubmititExecutor``, imported on first use: a GPU image without submitit can still run the other executors."""
    if name == "SubmititExecutor":
        from penb.executors.cluster import SubmititExecutor   # deferred: submitit is optional (a GPU image may lack it)

        return SubmititExecutor
    raise AttributeError(f"module 'penb.executors' has no attribute {name!r}")


def make_executor(name: str = "local", **options) -> Executor:
    """The executor registered as ``name`` ("local", "process" or "submitit") with ``options``."""
    if name not in EXECUTORS:
        raise ValueError(f"unknown executor {name!r}; valid: {', '.join(EXECUTORS)}")
    return EXECUTORS[name](**options)
