"""Executors: where the runs of a sweep execute. ``Executor.map(fn, items) -> list`` keeps the order.

* ``local``: one after another in this process (``threads``: torch threads while it runs);
* ``process``: a pool of ``workers`` spawned processes, each with ``threads`` torch threads.

A cluster engine plugs in as another subclass whose ``map`` submits ``fn(item)`` jobs (``fn`` and the
items are picklable: the sweep passes a module-level function and plain dicts) and gathers the results.
"""
from __future__ import annotations

import concurrent.futures as cf
import multiprocessing as mp
from abc import ABC, abstractmethod
from typing import Any, Callable, Iterable, Optional


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
    import torch

    torch.set_num_threads(threads)


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
        pool = cf.ProcessPoolExecutor(min(self.workers, len(items)), mp_context=mp.get_context(self.start_method),
                                      initializer=_init_worker, initargs=(self.threads,))
        try:
            with tqdm(total=len(items), desc=self.desc, disable=self.desc is None) as bar:
                futures = {pool.submit(fn, items[i]): i for i in order}
                for f in cf.as_completed(futures):
                    if f.exception() is not None:           # fail fast: the first error ends the sweep
                        raise RunFailed(items[futures[f]], f.exception()) from f.exception()
                    bar.update(1)
                results = {i: f.result() for f, i in futures.items()}
        except BaseException:                                # an error or Ctrl-C: drop the queue, stop workers
            _stop(pool)
            raise
        pool.shutdown(wait=True)
        return [results[i] for i in range(len(items))]


class RunFailed(RuntimeError):
    """A job of a sweep failed; ``item`` is its input (a run config) and the cause is chained."""

    def __init__(self, item, error: BaseException):
        self.item = item
        super().__init__(f"a run of the sweep failed ({type(error).__name__}: {error}); its config: {item!r}")


def _stop(pool: cf.ProcessPoolExecutor) -> None:
    """Cancel every queued job and terminate the workers at once (finished runs are already on disk; a run
    cut off mid-way resumes from its last checkpoint next time)."""
    procs = list((getattr(pool, "_processes", None) or {}).values())     # shutdown forgets them
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        if proc.is_alive():
            proc.terminate()


def _cost(item) -> float:
    """Rough relative cost of a run config (sequence-steps x hidden^2); 0 for anything else."""
    if not isinstance(item, dict):
        return 0.0
    return float(item.get("steps", 1) * item.get("batch_size", 1) * item.get("length", 1) * item.get("hidden", 1) ** 2)


def for_config(cfg, desc: str = "runs", todo: int = 2) -> Executor:
    """The executor a chapter uses: ``cfg.workers`` CPU processes of one thread each, with a progress bar,
    when more than one run is to train on the CPU; otherwise in this process (one thread on the CPU)."""
    from penb.device import resolve_device

    cpu = resolve_device(cfg.device).type == "cpu"
    if cfg.workers > 1 and todo > 1 and cpu:
        return ProcessExecutor(cfg.workers, 1, desc=desc)
    return LocalExecutor(threads=1 if cpu else None)


def _check_count(name: str, v, optional: bool = False):
    if optional and v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise ValueError(f"{name} must be a positive int, got {v!r}")
    return v


EXECUTORS = {"local": LocalExecutor, "process": ProcessExecutor}


def make_executor(name: str = "local", **options) -> Executor:
    """The executor registered as ``name`` ("local" or "process") with ``options``."""
    if name not in EXECUTORS:
        raise ValueError(f"unknown executor {name!r}; valid: {', '.join(EXECUTORS)}")
    return EXECUTORS[name](**options)
