"""Job bodies and a sweep process for the Slurm tests (tests/test_slurm.py). They run inside Slurm jobs, so they
live in a module that the jobs import (the tests put the repository on ``PYTHONPATH``).

:func:`traced_job` is ``penb.sweeps._job`` with a trace: every attempt of a job appends JSON lines to
``<trace>/<run key>.jsonl``: ``start`` at its first update (Slurm's job id, array id and restart count, the pid,
the host and the update it began with, so a resumed attempt shows where it resumed), ``hold`` where it stops, and
``end`` when the run is done (``trained``: whether this job trained it). Options, for the tests:

* ``pause_s``: a sleep after every update (the bits do not change), so that a run lasts long enough;
* ``hold_at``: on a job's first attempt (Slurm's restart count 0), stop at that update and wait until Slurm ends
  the attempt; ``hold_seeds``: only the runs of those seeds;
* ``barrier``: wait, before the run is opened, until that many jobs have arrived at the same run (two sweeps'
  jobs then race for one run at the same moment).

A sweep calls its job as ``_job(config, store, progress)``: :func:`sweep_job` is that, with the options read from
the environment (``PENB_TEST_TRACE``, ``PENB_TEST_PAUSE_S``, ``PENB_TEST_HOLD_AT``, ``PENB_TEST_HOLD_SEEDS``,
``PENB_TEST_BARRIER``), which sbatch exports from the submitting process to its jobs. A test sets those and puts
:func:`sweep_job` in ``penb.sweeps._job``; everything else is the real sweep.

``python -m tests.slurm_jobs STORE FOLDER ARRAY_PARALLELISM SEED...`` is such a sweep of the :data:`TINY` runs in a
process of its own.
"""
from __future__ import annotations

import json
import os
import socket
import sys
import time
from pathlib import Path
from typing import Optional

TINY = dict(vocab_size=6, length=3, hidden=8, batch_size=8, steps=60, warmup=3, held_out=8,
            checkpoint_every=10, log_every=5, device="cpu", core="lstm")
GUARD_S = 300                                   # no wait in a job lasts longer (a hang guard, not a timing)


def configs(seeds, **over) -> list[dict]:
    return [{**TINY, **over, "seed": int(s)} for s in seeds]


def restart_count() -> int:
    """How many times Slurm has requeued this job (0 on its first attempt)."""
    return int(os.environ.get("SLURM_RESTART_COUNT") or 0)


def _note(trace: str, key: str, event: str, **fields) -> None:
    line = dict(event=event, job=os.environ.get("SLURM_JOB_ID"), array=os.environ.get("SLURM_ARRAY_JOB_ID"),
                restart=restart_count(), pid=os.getpid(), host=socket.gethostname(), **fields)
    with open(Path(trace) / f"{key}.jsonl", "a") as f:
        f.write(json.dumps(line) + "\n")


def _wait_for_others(trace: str, key: str, n: int) -> None:
    me = Path(trace) / f"{key}.arrived.{os.environ.get('SLURM_JOB_ID')}"
    me.write_text("")
    deadline = time.monotonic() + GUARD_S
    while len(list(Path(trace).glob(f"{key}.arrived.*"))) < n and time.monotonic() < deadline:
        time.sleep(0.1)


def traced_job(config, store: str, trace: str, pause_s: float = 0.0, hold_at: Optional[int] = None,
               hold_seeds: Optional[list] = None, barrier: int = 0):
    """A submitit job body: ``penb.sweeps._job(config, store)`` with a trace and the test options (see the module)."""
    from penb import runner
    from penb import runs
    from penb import sweeps

    key = runs.key(config)
    hold = hold_at if restart_count() == 0 and (hold_seeds is None or config["seed"] in hold_seeds) else None
    original, started = runner.train_group, []     # where every run trains (penb.runner)

    def callback(trainer):
        if not started:
            started.append(trainer.step)
            _note(trace, key, "start", first_step=trainer.step)
        if pause_s:
            time.sleep(pause_s)
        if trainer.step == hold:
            _note(trace, key, "hold", step=trainer.step)
            deadline = time.monotonic() + GUARD_S        # Slurm ends the attempt long before
            while time.monotonic() < deadline:
                time.sleep(0.1)

    if barrier:
        _wait_for_others(trace, key, barrier)
    runner.train_group = lambda configs, store, progress=False, **kw: original(configs, store, progress,
                                                                               **{**kw, "callback": callback})
    try:
        out = sweeps._job(config, store, False)
    finally:
        runner.train_group = original
    _note(trace, key, "end", trained=out[1])
    return out


def sweep_job(config, store: str, progress: bool = False):
    """``penb.sweeps._job`` as a sweep calls it, traced with the options of the environment (see the module)."""
    env = os.environ.get
    seeds = env("PENB_TEST_HOLD_SEEDS")
    return traced_job(config, store, env("PENB_TEST_TRACE"), float(env("PENB_TEST_PAUSE_S") or 0),
                      int(env("PENB_TEST_HOLD_AT")) if env("PENB_TEST_HOLD_AT") else None,
                      [int(s) for s in seeds.split(",")] if seeds else None, int(env("PENB_TEST_BARRIER") or 0))


def events(trace, key: str, event: Optional[str] = None) -> list[dict]:
    """The trace of run ``key`` (its ``event`` lines only, if given), in order."""
    f = Path(trace) / f"{key}.jsonl"
    lines = [json.loads(line) for line in f.read_text().splitlines()] if f.exists() else []
    return [e for e in lines if event is None or e["event"] == event]


def main(argv: list[str]) -> None:
    """A sweep of the :data:`TINY` runs of ``seeds`` through Slurm, with :func:`sweep_job` as its job body."""
    import torch

    from penb import sweeps
    from penb.executors import SubmititExecutor

    torch.set_num_threads(1)
    store, folder, parallel, *seeds = argv
    ex = SubmititExecutor(folder, cluster="slurm", gpus_per_job=0, time_limit_min=10,
                          array_parallelism=int(parallel))
    sweeps._job = sweep_job
    sweeps.sweep(configs(seeds), ex, store=Path(store), progress=False)
    print("sweep done", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
