"""Sweeps through submitit: one job per run, a Slurm job array where Slurm is present (``cluster="slurm"``), local
subprocesses otherwise (``cluster="local"``, which the tests without a cluster use).

Slurm sends a job the warning signal (SIGUSR2) ``signal_delay_s`` before its time limit, or up to a minute
earlier (slurmctld checks time limits every 30 s); submitit then requeues the job (``scontrol requeue``), and the
requeued attempt resumes the run from its last checkpoint in the shared store. The cluster holds a requeued job
back for its credential lifetime (``AuthInfo=cred_expire``, 120 s by default) before it starts it again. The
store's per-run locks keep two jobs (of one sweep or of two) from training one run twice. tests/test_slurm.py runs
all of this on a real one-node cluster.
"""
from __future__ import annotations

from typing import Optional

import submitit
import torch
from submitit.helpers import Checkpointable

from penb.executors.interface import Executor, check_count
from penb.executors.cost import flat, gpu_hours


class _Requeueable(Checkpointable):
    """A submitit job body: ``fn(item)`` on ``threads`` torch threads. As a ``Checkpointable``, a timed-out
    or preempted job is resubmitted with the same item; the run resumes from its checkpoints in the store,
    so nothing is lost."""

    def __init__(self, fn, threads: int):
        self.fn, self.threads = fn, threads

    def __call__(self, item):
        torch.set_num_threads(self.threads)
        return self.fn(item)


class SubmititExecutor(Executor):
    """One submitit job per item (a job array on Slurm). ``cluster``: None (auto: Slurm when present, else
    local subprocesses), "slurm", "local" or "debug" (in this process). Prints the sweep's cost first.

    ``time_limit_min``: each job's limit (Slurm takes whole minutes, at least one); ``signal_delay_s``: how long
    before it Slurm warns the job, so that it is requeued (at most ``max_requeue`` times after a time-out) and
    resumes from its last checkpoint. Slurm may send the warning up to a minute before that (its time-limit checks
    run every 30 s): a limit barely longer than the delay plus a minute leaves an attempt little or no work."""

    def __init__(self, folder, cluster: Optional[str] = None, partition: Optional[str] = None,
                 gpus_per_job: int = 1, time_limit_min: float = 240, array_parallelism: int = 32,
                 threads: int = 1, max_requeue: int = 3, signal_delay_s: int = 90):
        self.folder, self.cluster, self.partition = str(folder), cluster, partition
        self.gpus_per_job = check_count("gpus_per_job", gpus_per_job + 1) - 1       # 0 allowed
        if isinstance(time_limit_min, bool) or not isinstance(time_limit_min, (int, float)) or time_limit_min <= 0:
            raise ValueError(f"time_limit_min must be a positive number of minutes, got {time_limit_min!r}")
        self.time_limit_min = time_limit_min
        self.signal_delay_s = check_count("signal_delay_s", signal_delay_s)
        self.array_parallelism = check_count("array_parallelism", array_parallelism)
        self.threads = check_count("threads", threads)
        self.max_requeue = check_count("max_requeue", max_requeue + 1) - 1
        if cluster not in (None, "slurm", "local", "debug"):
            raise ValueError(f"unknown submitit cluster {cluster!r}; valid: None (auto), slurm, local, debug")

    def executor(self):
        """The submitit executor: ``LocalExecutor`` for ``cluster="local"`` (its time-limit signal delay can be
        set there), else ``AutoExecutor`` (Slurm when present)."""
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
        steps = sum(c.get("steps", 0) for c in flat(items) if isinstance(c, dict))
        print(f"submitit ({self.cluster or 'auto'}): {len(flat(items))} runs, {steps:,} updates in all, about "
              f"{gpu_hours(items):.1f} GPU-hours (scaled from H100 fp32 step times at paper size)", flush=True)
        return self.executor().map_array(_Requeueable(fn, self.threads), items)

