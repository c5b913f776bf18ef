"""The run store under stress: divergence, crafted pickles, two processes, SIGKILL mid-sweep, fail-fast pools."""
import json
import os
import pickle
import signal
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np
import pytest
import torch

from penb import runner
from penb.store.paths import checkpoints
from penb.trainer import Trainer
from penb import runs
from penb import sweeps
from penb.executors import ProcessExecutor, RunFailed
from penb.trainer import load_model
from tests.store_worker import TINY, configs, poison_at, wait_for

ROOT = Path(__file__).resolve().parent.parent


def _worker(store, seeds, log=None):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if log is not None:
        env["PENB_RUN_LOG"] = str(log)
    return subprocess.Popen([sys.executable, "-m", "tests.store_worker", str(store), *map(str, seeds)],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_a_run_whose_loss_turns_nan_is_stored_as_diverged(tmp_path):
    config = {**TINY, "seed": 1}
    d = runs.run_dir(config, tmp_path)
    runner.train_one(config, tmp_path, callback=poison_at(12))     # weights NaN after update 12
    assert runs.status(config, tmp_path) == "done"                     # final: not retrained every time
    r = runs.load(config, tmp_path)
    assert r.diverged and r.metrics == {}
    assert r.divergence["step"] == 15 and r.divergence["since"] == 10    # caught at the next log (every 5)
    assert r.divergence["last_finite_loss"] == r.history[-1]["loss"] and r.history[-1]["step"] == 10
    assert all(np.isfinite(h["loss"]) for h in r.history)
    assert not (d / "predictions.npz").exists()
    with pytest.raises(ValueError, match="diverged"):
        r.predictions()
    valid, diverged = runs.split_diverged([r, sweeps.sweep([{**TINY, "seed": 2}], store=tmp_path, progress=False)[0]])
    assert [x.key for x in diverged] == [r.key] and len(valid) == 1 and not valid[0].diverged


class _Plant:
    """A pickle that would create a file when unpickled with weights_only=False."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (Path.touch, (Path(self.marker),))


def test_a_crafted_pickle_in_the_store_is_refused(tmp_path):
    r = sweeps.sweep([{**TINY, "seed": 3}], store=tmp_path, progress=False)[0]
    marker = tmp_path / "code-ran"
    last = r.checkpoints()[-1][1]
    last.write_bytes(pickle.dumps({"model": _Plant(marker)}))
    with pytest.raises(pickle.UnpicklingError, match="[Ww]eights only load failed"):
        load_model(r)
    trainer = Trainer(r.config)
    with pytest.warns(UserWarning, match="unreadable checkpoint"):
        assert trainer.resume(r.path)                                    # falls back to the one before
    assert trainer.step == r.checkpoints()[-2][0]
    assert not marker.exists()


def test_resume_falls_back_when_the_last_checkpoint_is_torn(tmp_path):
    config = {**TINY, "seed": 4}
    whole = sweeps.sweep([config], store=tmp_path / "a", progress=False)[0]
    d = runs.run_dir(config, tmp_path / "b")

    def stop(trainer):
        if trainer.step == 7:
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        runner.train_one(config, tmp_path / "b", callback=stop)
    last = checkpoints(d)[-1][1]
    last.write_bytes(last.read_bytes()[:100])                            # a torn file under the final name
    (d / ".result.json.x.tmp").write_text("")                            # a kill's leftover
    with pytest.warns(UserWarning, match="unreadable checkpoint"):
        resumed = runner.run(config, tmp_path / "b", progress=False)
    assert resumed.metrics == whole.metrics and not list(d.glob(".*.tmp"))


def test_an_empty_result_file_does_not_count_as_done(tmp_path):
    r = sweeps.sweep([{**TINY, "seed": 5}], store=tmp_path, progress=False)[0]
    (r.path / "result.json").write_text("")
    assert runs.status(r.config, tmp_path) == "partial"
    (r.path / "result.json").unlink()
    assert runner.run(r.config, tmp_path, progress=False).metrics == r.metrics


def test_two_processes_on_one_store_train_each_run_once(tmp_path):
    store, seeds = tmp_path / "store", (11, 12, 13)
    logs = [tmp_path / "a.jsonl", tmp_path / "b.jsonl"]
    procs = [_worker(store, seeds, log) for log in logs]
    outs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1][-2000:] for o in outs]
    lines = [[json.loads(x) for x in out.splitlines()] for out, _ in outs]
    assert lines[0] == lines[1] and len(lines[0]) == 3                   # identical results in both
    trained = [json.loads(x)["key"] for log in logs for x in log.read_text().splitlines()
               if json.loads(x)["trained"]]
    assert sorted(trained) == sorted(x["key"] for x in lines[0])         # each run trained exactly once


def test_sigkill_mid_sweep_then_rerun_gives_the_same_bits(tmp_path):
    seeds = (21, 22)
    reference = sweeps.sweep(configs(seeds), store=tmp_path / "ref", progress=False)
    store = tmp_path / "killed"
    for wanted in (3, 9, 17):                                            # kill after so many checkpoints
        p = _worker(store, seeds)
        deadline = time.time() + 120
        while len(list(store.glob("*/checkpoints/step-*.pt"))) < wanted and p.poll() is None:
            assert time.time() < deadline
            time.sleep(0.01)
        p.send_signal(signal.SIGKILL)
        p.wait()
    p = _worker(store, seeds)
    out, err = p.communicate(timeout=300)
    assert p.returncode == 0, err[-2000:]
    again = sweeps.sweep(configs(seeds), store=store, progress=False)
    for a, b in zip(reference, again):
        assert a.key == b.key and a.metrics == b.metrics and a.history == b.history
        pa, pb = a.predictions(), b.predictions()
        assert all(np.array_equal(pa[k], pb[k]) for k in pa)
        sa, sb = load_model(a).state_dict(), load_model(b).state_dict()
        assert all(torch.equal(sa[k], sb[k]) for k in sa)
    assert not list(store.glob("**/.*.tmp"))


def test_a_failing_job_ends_the_sweep_at_once(tmp_path):
    with pytest.raises(RunFailed, match="boom") as err:
        ProcessExecutor(workers=2, threads=1).map(partial(wait_for, str(tmp_path)), [1, 3, 2, 4, 5, 6])
    assert err.value.item == 3
    (tmp_path / "go").write_text("")                                     # release any job still waiting
    assert not list(tmp_path.glob("done-*"))                             # the sweep ended before any job did


def test_ctrl_c_between_a_workers_spawn_and_its_registration_leaves_no_worker(tmp_path, monkeypatch):
    """The window behind the hang of issue 20: a SIGINT right after a worker is spawned, inside
    ``ProcessPoolExecutor.submit``, before the pool knows the worker. No worker may be left alive."""
    from penb import executors
    from tests.store_worker import InterruptedProcess, InterruptedSpawn

    ctx, started = InterruptedSpawn(), InterruptedProcess.started
    started.clear()
    monkeypatch.setattr(executors.mp, "get_context", lambda method=None: ctx)
    try:
        with pytest.raises(KeyboardInterrupt):
            ProcessExecutor(workers=2, threads=1).map(partial(wait_for, str(tmp_path)), [1, 2, 4, 5, 6])
        assert len(started) == 2 and not [p.pid for p in started if _running(p.pid)]
    finally:
        for p in started:                                                # never leave a worker behind
            p.kill()
            p.join()


def _running(pid: int) -> bool:
    """Whether process ``pid`` still runs, read from the OS (/proc): gone or a zombie is not running.

    ``Process.is_alive()`` cannot tell here: when another thread of the parent (the pool's manager thread)
    reaps a worker first, the worker's own ``Popen`` never learns its exit code and reports it alive for ever,
    although the process is gone (seen under load: /proc had no such pid)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[0] != "Z"


def _tagged(tag: str) -> list[int]:
    """Pids of live processes whose environment carries ``PENB_TEST_TAG=tag`` (the sweep and its children)."""
    found = []
    for env in Path("/proc").glob("[0-9]*/environ"):
        try:
            if f"PENB_TEST_TAG={tag}".encode() in env.read_bytes().split(b"\0"):
                found.append(int(env.parent.name))
        except OSError:
            pass
    return found


def _children(pid: int) -> list[int]:
    try:
        return [int(x) for x in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _wait_until(what, guard_s: float = 240.0):
    """Wait for ``what()`` to be true: a hang guard only (minutes), never a verdict on speed."""
    deadline = time.monotonic() + guard_s
    while not what():
        assert time.monotonic() < deadline, "hang guard: the awaited event never came"
        time.sleep(0.02)


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc (Linux)")
@pytest.mark.parametrize("moment", ["before the pool", "while the workers start", "while the jobs run"])
def test_ctrl_c_stops_a_pool_sweep_and_leaves_no_process(tmp_path, moment):
    """SIGINT to the sweep's process alone (as Jupyter's interrupt sends it) at three moments, each found by
    an explicit event: the sweep interrupted, its workers gone, no job finished."""
    tag = f"{os.getpid()}-{tmp_path.name}"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PENB_TEST_TAG": tag}
    with open(tmp_path / "err.txt", "w") as err:
        p = subprocess.Popen([sys.executable, "-m", "tests.store_worker", "--sleepers", str(tmp_path)], cwd=ROOT,
                             env=env, stdout=subprocess.PIPE, stderr=err, text=True)
        try:
            assert p.stdout.readline().strip() == "started"
            if moment == "while the workers start":
                _wait_until(lambda: _children(p.pid) or p.poll() is not None)
            elif moment == "while the jobs run":
                _wait_until(lambda: len(list(tmp_path.glob("ready-*"))) == 2 or p.poll() is not None)
            p.send_signal(signal.SIGINT)
            p.wait(timeout=240)                                          # hang guard
        finally:                                                         # a hung sweep is not left behind
            if p.poll() is None:
                p.kill()
                p.wait()
    assert p.returncode != 0, (tmp_path / "err.txt").read_text()[-2000:]
    assert "KeyboardInterrupt" in (tmp_path / "err.txt").read_text()
    _wait_until(lambda: not _tagged(tag), guard_s=60)                    # no worker outlived the sweep
    assert not list(tmp_path.glob("done-*"))
