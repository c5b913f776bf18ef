"""A pool of spawned processes (``ProcessExecutor``): fail fast on the first error, and on an error or Ctrl-C
cancel the queue and end every worker, so that none outlives the sweep."""
from __future__ import annotations

import concurrent.futures as cf
import contextlib
import multiprocessing as mp
import os
import signal
import threading
from multiprocessing.connection import wait
from typing import Any, Callable, Optional

import torch
from tqdm.auto import tqdm

from penb.executors.interface import Executor, check_count


def _init_worker(threads: int) -> None:
    _exit_with_parent()
    torch.set_num_threads(threads)


def _exit_with_parent() -> None:
    """In a pool worker: end this process as soon as the process that started it ends (a daemon thread
    waits on the parent's sentinel), so that no worker outlives an interrupted or killed sweep."""
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

    With ``desc``, a tqdm bar advances as items finish. Items are submitted costliest first (``cost``, by default
    :func:`_cost`), so the workers tend to end together; results come back in the order of ``items``.
    """

    def __init__(self, workers: int = 2, threads: int = 1, start_method: str = "spawn", desc: Optional[str] = None,
                 cost: Optional[Callable[[Any], float]] = None):
        self.workers = check_count("workers", workers)
        self.threads = check_count("threads", threads)
        if start_method not in mp.get_all_start_methods():
            raise ValueError(f"unknown start method {start_method!r}; valid: {mp.get_all_start_methods()}")
        self.start_method = start_method
        self.desc = desc
        self.cost = _cost if cost is None else cost

    def map(self, fn, items):
        items = list(items)
        if not items:
            return []
        order = sorted(range(len(items)), key=lambda i: -self.cost(items[i]))
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
    """Rough relative cost of a run config (sequence-steps x hidden^2), or of a tuple or list of them (a trunk's
    budgets, a batch); 0 for anything else."""
    if isinstance(item, (tuple, list)):
        return sum(_cost(i) for i in item)
    if not isinstance(item, dict):
        return 0.0
    return float(item.get("steps", 1) * item.get("batch_size", 1) * item.get("length", 1) * item.get("hidden", 1) ** 2)
