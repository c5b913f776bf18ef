"""Sweeps through a real one-node Slurm cluster (tests/slurm_cluster.py: slurmctld, slurmd and munged from Debian's
packages, started for the session): the chapter's results equal the local executor's bit for bit; a job that
reaches its time limit gets Slurm's warning signal, is requeued and resumes from its checkpoint; a cancelled array
and a rerun train every run to the end once and leave nothing half-written; two sweeps at once over one store train
each run once; ``device="auto"`` is the job's device, recorded by the job.

The job bodies (tests/slurm_jobs.py) trace each attempt; every wait is a poll with a generous guard, never a timed
assertion. Skipped, with the reason, where no cluster can start (not root, no packages); in CI it must start.
"""
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from penb import presets
from penb.store.paths import checkpoints
from penb import runs
from penb import sweeps
from penb.chapters.key_findings import analysis
from penb.executors import SubmititExecutor
from tests import slurm_jobs
from tests.slurm_cluster import slurm_cluster  # noqa: F401 (the session fixture)

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parent.parent
OPTIONS = ("PENB_TEST_PAUSE_S", "PENB_TEST_HOLD_AT", "PENB_TEST_HOLD_SEEDS", "PENB_TEST_BARRIER")


@pytest.fixture
def cluster(slurm_cluster, monkeypatch, tmp_path):  # noqa: F811 (the session fixture, by name)
    """The cluster, with what its jobs need in the environment that sbatch exports (the repository on PYTHONPATH,
    a trace folder), and an empty queue after each test."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p))
    (tmp_path / "trace").mkdir()
    monkeypatch.setenv("PENB_TEST_TRACE", str(tmp_path / "trace"))
    for name in OPTIONS:
        monkeypatch.delenv(name, raising=False)
    yield slurm_cluster
    slurm_cluster.clear(grace_s=30)


def within(cluster, guard_s: float, fn, *args, **kwargs):
    """``fn(*args, **kwargs)``, failing the test (with the daemons' logs) if it has not returned after ``guard_s``: a
    hang guard (a job that is never requeued would otherwise be waited for for ever), not a timing."""
    box = {}

    def call():
        try:
            box["value"] = fn(*args, **kwargs)
        except BaseException as e:  # noqa: BLE001 (handed to the test's thread)
            box["error"] = e

    thread = threading.Thread(target=call, daemon=True)
    thread.start()
    thread.join(guard_s)
    if thread.is_alive():
        queue = cluster.run("squeue", "-o", "%i %T %r %M", check=False).stdout
        cluster.clear()
        pytest.fail(f"still waiting after {guard_s} s; queue:\n{queue}\n{cluster.logs()}")
    if "error" in box:
        raise box["error"]
    return box["value"]


def poll(ready, guard_s: float, what: str, cluster) -> None:
    deadline = time.monotonic() + guard_s
    while not ready():
        if time.monotonic() > deadline:
            pytest.fail(f"no {what} after {guard_s} s\n{cluster.logs()}")
        time.sleep(0.2)


def assert_same_bits(a: runs.RunResult, b: runs.RunResult) -> None:
    assert a.key == b.key and a.metrics == b.metrics and a.history == b.history
    pa, pb = a.predictions(), b.predictions()
    assert set(pa) == set(pb) and all(np.array_equal(pa[k], pb[k]) for k in pa)


def job_logs(folder: Path) -> str:
    return "".join(p.read_text(errors="replace") for p in sorted(Path(folder).glob("*_log.*")))


def slurm_executor(folder, **options) -> SubmititExecutor:
    return SubmititExecutor(folder, cluster="slurm", gpus_per_job=0, **options)


def test_key_findings_on_slurm_gives_the_local_executors_bits(cluster, tmp_path):
    local = presets.resolve("key_findings", "smoke", executor="local")
    slurm = presets.resolve("key_findings", "smoke", executor="submitit", cluster="slurm", gpus_per_job=0)
    configs = analysis.run_configs(slurm)
    assert configs == analysis.run_configs(local) and len(configs) > 1
    analysis.run(local, store=tmp_path / "local" / "rnn", progress=False)
    within(cluster, 900, analysis.run, slurm, store=tmp_path / "slurm" / "rnn", progress=False)
    jobs = {p.name.split("_")[0] for p in (tmp_path / "slurm" / "submitit").glob("*_submitted.pkl")}
    assert len(jobs) == 1, jobs                                   # one job array
    for c in configs:
        a, b = runs.load(c, tmp_path / "local" / "rnn"), runs.load(c, tmp_path / "slurm" / "rnn")
        assert_same_bits(a, b)
        assert b.result["environment"]["pid"] != os.getpid()      # trained in a job, not here


def test_a_job_at_its_time_limit_is_requeued_by_slurm_and_resumes(cluster, tmp_path, monkeypatch):
    configs = slurm_jobs.configs([7])
    (reference,) = sweeps.sweep(configs, store=tmp_path / "ref", progress=False)
    # The first attempt stops at update 25 (its last checkpoint: 20) and waits there. A 1-minute limit with the
    # warning 10 s before it: Slurm sends SIGUSR2 20-50 s into the attempt (its time-limit pass runs every 30 s),
    # submitit checkpoints and requeues the job, and the requeued attempt must resume from update 20.
    monkeypatch.setenv("PENB_TEST_HOLD_AT", "25")
    monkeypatch.setattr(sweeps, "_job", slurm_jobs.sweep_job)
    ex = slurm_executor(tmp_path / "jobs", time_limit_min=1, signal_delay_s=10, max_requeue=3)
    (result,) = within(cluster, 420, sweeps.sweep, configs, ex, store=tmp_path / "store", progress=False)
    assert_same_bits(reference, result)

    trace = tmp_path / "trace"
    first, second, *_ = slurm_jobs.events(trace, result.key, "start")
    assert (first["restart"], first["first_step"]) == (0, 1)
    assert [e["step"] for e in slurm_jobs.events(trace, result.key, "hold")] == [25]
    assert second["job"] == first["job"] and second["restart"] == 1       # the same job, requeued by Slurm
    assert second["first_step"] == 21                                    # from the checkpoint, not from scratch
    assert [e["trained"] for e in slurm_jobs.events(trace, result.key, "end")] == [True]
    logs = job_logs(tmp_path / "jobs")
    assert "Caught signal SIGUSR2" in logs and "timed-out" in logs, logs[-3000:]  # Slurm's signal: none is sent here
    # Slurm's own records of the job (written as each attempt ends; the last one just after the result file)
    states = lambda: [r["JobState"] for r in cluster.records(first["job"])]  # noqa: E731
    poll(lambda: "COMPLETED" in states(), 60, "completion record", cluster)
    assert len(states()) >= 2 and states()[-1] == "COMPLETED" and "COMPLETED" not in states()[:-1], states()


def test_a_cancelled_array_and_a_rerun_finish_every_run_once(cluster, tmp_path, monkeypatch):
    seeds = [11, 12, 13, 14]
    configs = slurm_jobs.configs(seeds)
    keys = [runs.key(c) for c in configs]
    reference = sweeps.sweep(configs, store=tmp_path / "ref", progress=False)
    store, trace = tmp_path / "store", tmp_path / "trace"
    # Two jobs at a time: seed 11 finishes, 12 and 13 stop at update 25 (after the checkpoint at 20), 14 waits
    # behind them; then the array is cancelled. The sweep runs in a process of its own: the cluster keeps no
    # accounting, so submitit cannot learn that its jobs were cancelled, and its sweep waits until interrupted.
    env = {**os.environ, "PENB_TEST_HOLD_AT": "25", "PENB_TEST_HOLD_SEEDS": "12,13"}
    with open(tmp_path / "sweep.log", "wb") as log:
        sweep = subprocess.Popen([sys.executable, "-m", "tests.slurm_jobs", str(store), str(tmp_path / "jobs"), "2",
                                  *map(str, seeds)], env=env, cwd=REPO, stdout=log, stderr=subprocess.STDOUT)
    try:
        poll(lambda: runs.status(configs[0], store) == "done"
             and all(slurm_jobs.events(trace, k, "hold") for k in keys[1:3]), 300, "finished and held runs", cluster)
        (array,) = {slurm_jobs.events(trace, k, "start")[0]["array"] for k in keys[:3]}
        cluster.run("scancel", array)
        poll(lambda: not [j for j in cluster.jobs() if j.startswith(f"{array}_")], 120, "empty queue", cluster)
    finally:
        sweep.kill()
        sweep.wait(timeout=60)
    assert [runs.status(c, store) for c in configs] == ["done", "partial", "partial", "new"]
    for k in keys[1:3]:                           # what the kill left: sound checkpoints, no result
        d = store / k
        assert not (d / "result.json").exists() and not (d / "predictions.npz").exists()
        for _, path in checkpoints(d):
            torch.load(path, weights_only=True)
    done_before = (store / keys[0] / "result.json").read_bytes()

    monkeypatch.setattr(sweeps, "_job", slurm_jobs.sweep_job)
    again = within(cluster, 420, sweeps.sweep, configs, slurm_executor(tmp_path / "jobs2", array_parallelism=2),
                   store=store, progress=False)
    for ref, r in zip(reference, again):
        assert_same_bits(ref, r)
    assert (store / keys[0] / "result.json").read_bytes() == done_before          # reused, not trained again
    for k in keys:
        assert [e["trained"] for e in slurm_jobs.events(trace, k, "end")] == [True]   # finished once
        assert runs.finished(store / k) and not runs.temporaries(store / k)       # nothing half-written
    for k in keys[1:3]:                                                           # resumed from update 20
        assert [e["first_step"] for e in slurm_jobs.events(trace, k, "start")] == [1, 21]
    assert [e["first_step"] for e in slurm_jobs.events(trace, keys[3], "start")] == [1]


def test_two_sweeps_at_once_over_one_store_train_each_run_once(cluster, tmp_path):
    cpus = int(cluster.run("sinfo", "-h", "-N", "-o", "%c").stdout.split()[0])
    assert cpus >= 2, "two jobs must run at once on the test node"
    seeds = [21, 22, 23]
    configs = slurm_jobs.configs(seeds)
    reference = sweeps.sweep(configs, store=tmp_path / "ref", progress=False)
    store, trace = tmp_path / "store", tmp_path / "trace"
    # Each sweep runs one job at a time, in the same order, and a job waits until the other sweep's job for the same
    # run has started too: every run is raced for by two jobs at the same moment.
    env = {**os.environ, "PENB_TEST_BARRIER": "2"}
    logs = [open(tmp_path / f"sweep{i}.log", "wb") for i in (1, 2)]
    procs = [subprocess.Popen([sys.executable, "-m", "tests.slurm_jobs", str(store), str(tmp_path / f"jobs{i}"),
                                "1", *map(str, seeds)], env=env, cwd=REPO, stdout=log, stderr=subprocess.STDOUT)
              for i, log in zip((1, 2), logs)]
    try:
        deadline = time.monotonic() + 420
        while any(s.poll() is None for s in procs) and time.monotonic() < deadline:
            time.sleep(0.5)
    finally:
        for s, log in zip(procs, logs):
            if s.poll() is None:
                s.kill()
            s.wait(timeout=60)
            log.close()
    outputs = [(tmp_path / f"sweep{i}.log").read_text(errors="replace") for i in (1, 2)]
    assert [s.returncode for s in procs] == [0, 0], "\n".join(o[-3000:] for o in outputs) + cluster.logs()
    for c, ref in zip(configs, reference):
        k = runs.key(c)
        assert len(list(trace.glob(f"{k}.arrived.*"))) == 2                   # both sweeps' jobs came for it
        assert sorted(e["trained"] for e in slurm_jobs.events(trace, k, "end")) == [False, True]
        assert len(slurm_jobs.events(trace, k, "start")) == 1                 # one job made updates
        assert_same_bits(ref, runs.load(c, store))


def test_auto_is_the_jobs_device_and_the_job_records_it(cluster, tmp_path, monkeypatch):
    # The submitting process says it has CUDA; the jobs ask for no GPU. "auto" must become the jobs' device (cpu):
    # resolved here, it would be cuda, and the job, on a node without CUDA, would refuse it.
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(sweeps, "_job", slurm_jobs.sweep_job)
    configs = slurm_jobs.configs([31], device="auto")
    (r,) = within(cluster, 300, sweeps.sweep, configs, slurm_executor(tmp_path / "jobs"), store=tmp_path / "store",
                  progress=False)
    env = r.result["environment"]
    (start,) = slurm_jobs.events(tmp_path / "trace", r.key, "start")
    assert r.config["device"] == env["device"] == "cpu" and env["device_name"]
    assert env["pid"] == start["pid"] != os.getpid() and start["job"]           # recorded by the job itself
