"""Executors: where the runs of a sweep execute. ``Executor.map(fn, items) -> list`` keeps the order.

* ``local``: one after another in this process (``threads``: torch threads while it runs);
* ``process``: a pool of ``workers`` spawned processes, each with ``threads`` torch threads;
* ``submitit``: one job per run through ``submitit.AutoExecutor``: a Slurm job array where Slurm is present,
  local subprocesses otherwise (``cluster="local"``, used by the tests). A job that reaches its time limit
  (or is preempted) is requeued by submitit and resumes from the run's last checkpoint in the shared store;
  the store's per-run locks keep concurrent jobs from training one run twice.

A chapter's sweep picks one through :func:`for_config` from its parameters (``executor``, ``cluster``,
``partition``, ``gpus_per_job``, ``time_limit_min``, ``array_parallelism``: ``penb.chapters.rnn_common.EXECUTION``).

A cluster engine plugs in as another subclass whose ``map`` submits ``fn(item)`` jobs (``fn`` and the
items are picklable: the sweep passes a module-level function and plain dicts) and gathers the results.
"""
from __future__ import annotations

import concurrent.futures as cf
import contextlib
import multiprocessing as mp
import os
import signal
import threading
from abc import ABC, abstractmethod
from typing import Any, Callable, Iterable, Optional

from submitit.helpers import Checkpointable


class Executor(ABC):
    """Runs ``fn`` over ``items``; returns the results in the order of ``items``; errors propagate."""

    @abstractmethod
    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> list:
        ...


class LocalExecutor(Executor):
    """In this process, one item after another."""

    def __init__(self, threads: Optional[int] = None):
        self.threads = _check_count("threads", threads, optional=True)

    def map(self, fn, items):
        import torch

        before = torch.get_num_threads()
        if self.threads:
            torch.set_num_threads(self.threads)
        try:
            return [fn(item) for item in items]
        finally:
            torch.set_num_threads(before)


def _init_worker(threads: int) -> None:
    _exit_with_parent()
    import torch

    torch.set_num_threads(threads)


def _exit_with_parent() -> None:
    """In a pool worker: end this process as soon as the process that started it ends (a daemon thread
    waits on the parent's sentinel), so that no worker outlives an interrupted or killed sweep."""
    from multiprocessing.connection import wait

    parent = mp.parent_process()
    if parent is None:
        return

    def watch():
        wait([parent.sentinel])
        os._exit(1)

    threading.Thread(target=watch, name="penb-exit-with-parent", daemon=True).start()


@contextlib.contextmanager
def _sigint_deferred():
    """Hold back Ctrl-C (SIGINT) while the pool starts its workers and takes the jobs, then raise it.

    A KeyboardInterrupt raised inside ``ProcessPoolExecutor.submit`` can strike between a worker's spawn
    and its registration in the pool, and such a worker escapes :func:`_stop`; deferring the signal over
    that short stretch (well under a second) closes the window. Outside the main thread it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt


class ProcessExecutor(Executor):
    """A pool of ``workers`` fresh (spawned) processes, each with ``threads`` torch threads.

    With ``desc``, a tqdm bar advances as items finish. Items are submitted costliest first (``_cost``), so
    the workers tend to end together; results come back in the order of ``items``.
    """

    def __init__(self, workers: int = 2, threads: int = 1, start_method: str = "spawn", desc: Optional[str] = None):
        self.workers = _check_count("workers", workers)
        self.threads = _check_count("threads", threads)
        if start_method not in mp.get_all_start_methods():
            raise ValueError(f"unknown start method {start_method!r}; valid: {mp.get_all_start_methods()}")
        self.start_method = start_method
        self.desc = desc

    def map(self, fn, items):
        from tqdm.auto import tqdm

        items = list(items)
        if not items:
            return []
        order = sorted(range(len(items)), key=lambda i: -_cost(items[i]))
        others = set(mp.active_children())                   # children that are not this pool's workers
        pool = None
        try:
            with _sigint_deferred():
                pool = cf.ProcessPoolExecutor(min(self.workers, len(items)),
                                              mp_context=mp.get_context(self.start_method),
                                              initializer=_init_worker, initargs=(self.threads,))
                futures = {pool.submit(fn, items[i]): i for i in order}
            with tqdm(total=len(items), desc=self.desc, disable=self.desc is None) as bar:
                for f in cf.as_completed(futures):
                    if f.exception() is not None:           # fail fast: the first error ends the sweep
                        raise RunFailed(items[futures[f]], f.exception()) from f.exception()
                    bar.update(1)
                results = {i: f.result() for f, i in futures.items()}
        except BaseException:                                # an error or Ctrl-C: drop the queue, stop workers
            _stop(pool, others)
            raise
        pool.shutdown(wait=True)
        return [results[i] for i in range(len(items))]


class RunFailed(RuntimeError):
    """A job of a sweep failed; ``item`` is its input (a run config) and the cause is chained."""

    def __init__(self, item, error: BaseException):
        self.item = item
        super().__init__(f"a run of the sweep failed ({type(error).__name__}: {error}); its config: {item!r}")


def _stop(pool: Optional[cf.ProcessPoolExecutor], others: set) -> None:
    """Cancel every queued job and end the workers at once: the pool's own, and any child process started
    since the pool was made (``others``: the children that existed before). Finished runs are already on
    disk; a run cut off mid-way resumes from its last checkpoint next time."""
    if pool is not None:
        pool.shutdown(wait=False, cancel_futures=True)
    procs = [p for p in mp.active_children() if p not in others]
    for proc in procs:
        proc.terminate()
    for proc in procs:
        proc.join(timeout=10)
        if proc.is_alive():
            proc.kill()
            proc.join(timeout=10)


def _cost(item) -> float:
    """Rough relative cost of a run config (sequence-steps x hidden^2); 0 for anything else."""
    if not isinstance(item, dict):
        return 0.0
    return float(item.get("steps", 1) * item.get("batch_size", 1) * item.get("length", 1) * item.get("hidden", 1) ** 2)


def for_config(cfg, desc: str = "runs", todo: int = 2, store=None) -> Executor:
    """The executor a chapter's sweep uses, chosen by the chapter's parameters (``rnn_common.EXECUTION``):

    * ``executor="auto"`` (also when ``cfg`` has no ``executor`` key): ``cfg.workers`` processes of one
      torch thread each, with a progress bar, when more than one run is to train (on the CPU, one per core;
      on a GPU, runs packed onto the device at once); otherwise in this process (one thread on the CPU);
    * ``"local"``: in this process; ``"process"``: ``cfg.workers`` processes whatever the number of runs;
    * ``"submitit"``: a :class:`SubmititExecutor` (``cluster``, ``partition``, ``gpus_per_job``,
      ``time_limit_min``, ``array_parallelism`` from ``cfg``) whose folder is ``submitit/`` in the run store
      (``store``: the store's ``rnn`` folder when a sweep was pointed elsewhere; its parent holds it)."""
    from pathlib import Path

    from penb import paths
    from penb.device import resolve_device

    name = cfg.get("executor", "auto")
    if name not in ("auto", "local", "process", "submitit"):
        raise ValueError(f"unknown executor {name!r}; valid: auto, local, process, submitit")
    if name == "submitit":
        folder = (Path(store).parent if store is not None else paths.store_dir()) / "submitit"
        return SubmititExecutor(folder, cluster=cfg["cluster"], partition=cfg["partition"],
                                gpus_per_job=cfg["gpus_per_job"], time_limit_min=cfg["time_limit_min"],
                                array_parallelism=cfg["array_parallelism"])
    cpu = resolve_device(cfg.device).type == "cpu"
    if name == "process" or (name == "auto" and cfg.workers > 1 and todo > 1):
        return ProcessExecutor(cfg.workers, 1, desc=desc)
    return LocalExecutor(threads=1 if cpu else None)


def _check_count(name: str, v, optional: bool = False):
    if optional and v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise ValueError(f"{name} must be a positive int, got {v!r}")
    return v


class _Requeueable(Checkpointable):
    """A submitit job body: ``fn(item)`` on ``threads`` torch threads. As a ``Checkpointable``, a timed-out
    or preempted job is resubmitted with the same item; the run resumes from its checkpoints in the store,
    so nothing is lost."""

    def __init__(self, fn, threads: int):
        self.fn, self.threads = fn, threads

    def __call__(self, item):
        import torch

        torch.set_num_threads(self.threads)
        return self.fn(item)


# Step times of one update at paper size (h512, batch 512, L64) on one H100 in fp32, as measured
# (shared/anchors/gpu-h100-measurements.md): the GRU at V 256, the LSTM and S4D at V 16,384.
PAPER_STEP_S = {"gru": 0.0140, "lstm": 0.0524, "s4d": 0.0541, "transformer": 0.0524}
ANCHOR_VOCAB = {"gru": 256, "lstm": 16384, "s4d": 16384, "transformer": 16384}
# What the readout and softmax over V add to an update, split off those two measurements: a GRU's gates
# cost 3/4 of an LSTM's, so with R the readout's time at V 16,384 (linear in V),
# 4/3 (14.0 - R/64) + R = 52.4 ms gives R = 34.5 ms (the LSTM's recurrence: 18.0 ms). An estimate, not
# a measurement; the step at another V is the anchor's plus R x (V - anchor V) / 16,384.
READOUT_S = 0.03445


def step_seconds(config) -> float:
    """Estimated seconds of one fp32 update of a run config on one H100: the anchor's time of its core,
    moved to its vocabulary (:data:`READOUT_S`) and scaled by B x L x h^2 from the paper's size."""
    core = config.get("core", "lstm")
    step = PAPER_STEP_S.get(core, 0.05)
    if config.get("vocab_size") is not None:
        step += READOUT_S * (config["vocab_size"] - ANCHOR_VOCAB.get(core, 16384)) / 16384
    scale = config.get("batch_size", 512) * config.get("length", 64) * config.get("hidden", 512) ** 2 / (
        512 * 64 * 512 ** 2)
    return step * scale


def gpu_hours(configs) -> float:
    """A rough GPU-hour estimate of run configs (dicts with core, steps, batch_size, length, hidden and,
    optionally, vocab_size), one run at a time (:func:`step_seconds`)."""
    total = 0.0
    for c in configs:
        if not isinstance(c, dict) or "steps" not in c:
            continue
        total += c["steps"] * step_seconds(c)
    return total / 3600


class SubmititExecutor(Executor):
    """One submitit job per item (a job array on Slurm). ``cluster``: None (auto: Slurm when present, else
    local subprocesses), "slurm", "local" or "debug" (in this process). Prints the sweep's cost first."""

    def __init__(self, folder, cluster: Optional[str] = None, partition: Optional[str] = None,
                 gpus_per_job: int = 1, time_limit_min: float = 240, array_parallelism: int = 32,
                 threads: int = 1, max_requeue: int = 3, signal_delay_s: int = 90):
        self.folder, self.cluster, self.partition = str(folder), cluster, partition
        self.gpus_per_job = _check_count("gpus_per_job", gpus_per_job + 1) - 1       # 0 allowed
        if isinstance(time_limit_min, bool) or not isinstance(time_limit_min, (int, float)) or time_limit_min <= 0:
            raise ValueError(f"time_limit_min must be a positive number of minutes, got {time_limit_min!r}")
        self.time_limit_min = time_limit_min
        self.signal_delay_s = _check_count("signal_delay_s", signal_delay_s)
        self.array_parallelism = _check_count("array_parallelism", array_parallelism)
        self.threads = _check_count("threads", threads)
        self.max_requeue = _check_count("max_requeue", max_requeue + 1) - 1
        if cluster not in (None, "slurm", "local", "debug"):
            raise ValueError(f"unknown submitit cluster {cluster!r}; valid: None (auto), slurm, local, debug")

    def executor(self):
        """The submitit executor: ``LocalExecutor`` for ``cluster="local"`` (its time-limit signal delay can be
        set there), else ``AutoExecutor`` (Slurm when present)."""
        import submitit

        if self.cluster == "local":
            ex = submitit.LocalExecutor(folder=self.folder, max_num_timeout=self.max_requeue)
            ex.update_parameters(timeout_min=self.time_limit_min, gpus_per_node=self.gpus_per_job,
                                 signal_delay_s=self.signal_delay_s)
            return ex
        ex = submitit.AutoExecutor(folder=self.folder, cluster=self.cluster, slurm_max_num_timeout=self.max_requeue)
        params = dict(timeout_min=int(max(1, round(self.time_limit_min))), gpus_per_node=self.gpus_per_job,
                      cpus_per_task=self.threads, slurm_array_parallelism=self.array_parallelism,
                      slurm_signal_delay_s=self.signal_delay_s)
        if self.partition:
            params["slurm_partition"] = self.partition
        ex.update_parameters(**params)
        return ex

    @property
    def job_device(self) -> str:
        """The device a job of this executor has: "cuda" when it asks for GPUs, else "cpu". A sweep resolves
        ``device="auto"`` to it (``penb.run_config.normalize(job_device=...)``), not to the submitting node's."""
        return "cuda" if self.gpus_per_job > 0 else "cpu"

    def map(self, fn, items):
        return [job.result() for job in self.submit(fn, items)]

    def submit(self, fn, items) -> list:
        """Submit one job per item (after printing the cost); the submitit jobs, in the order of ``items``."""
        items = list(items)
        if not items:
            return []
        steps = sum(c.get("steps", 0) for c in items if isinstance(c, dict))
        print(f"submitit ({self.cluster or 'auto'}): {len(items)} runs, {steps:,} updates in all, about "
              f"{gpu_hours(items):.1f} GPU-hours (scaled from H100 fp32 step times at paper size)", flush=True)
        return self.executor().map_array(_Requeueable(fn, self.threads), items)


EXECUTORS = {"local": LocalExecutor, "process": ProcessExecutor, "submitit": SubmititExecutor}


def make_executor(name: str = "local", **options) -> Executor:
    """The executor registered as ``name`` ("local", "process" or "submitit") with ``options``."""
    if name not in EXECUTORS:
        raise ValueError(f"unknown executor {name!r}; valid: {', '.join(EXECUTORS)}")
    return EXECUTORS[name](**options)
