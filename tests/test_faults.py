"""Faults a user can cause, each met by one clear line before any kernel starts (issue 20): a store path that
is a file, unwritable or on a full disk; sizes that cannot fit in memory; stale temporary files in a finished
run folder; a cluster sweep's ``device="auto"`` resolved for the job's node, not the submitting one."""
import json
import subprocess
import sys
from collections import namedtuple

import pytest
import torch

from penb import runner
from penb import preflight
from penb.trainer import Trainer
from penb.store import paths
from penb import runs
from penb import sweeps
from penb.executors import SubmititExecutor
from tests.store_worker import TINY


def _penb(*args, env=None):
    import os

    return subprocess.run([sys.executable, "-m", "penb", *args], capture_output=True, text=True, cwd=paths.REPO,
                          timeout=300, env={**os.environ, **(env or {})})


def _one_line_refusal(proc, message):
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr and message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_a_store_path_that_is_a_file_is_refused_in_one_line(tmp_path):
    store = tmp_path / "store"
    store.write_text("not a folder")
    proc = _penb("run", "key_findings", "--preset", "smoke", "--out", str(tmp_path / "out"),
                 env={"PENB_STORE": str(store)})
    _one_line_refusal(proc, "is a file")
    assert not (tmp_path / "out").exists()                             # no kernel ran


@pytest.mark.parametrize("args, message", [
    (("-p", "hidden", "10000000"), "GiB for one run"),
    (("-p", "lstm_vocab", "(16, 1000000000)"), "GiB for one run"),
])
def test_sizes_that_cannot_fit_in_memory_are_refused_in_one_line(args, message, tmp_path):
    proc = _penb("run", "key_findings", "--preset", "smoke", "--out", str(tmp_path / "out"), *args,
                 env={"PENB_STORE": str(tmp_path / "store")})
    _one_line_refusal(proc, message)
    assert "available" in proc.stderr and not (tmp_path / "out").exists()


def test_the_memory_estimate_is_a_lower_bound_of_the_logits_alone():
    # Independent count: one update's logits at V 16,384, batch 512, length 64 hold 512*64*16384 fp32 numbers.
    logits = 512 * 64 * 16384 * 4
    est = preflight.estimate_bytes({"vocab": 16384, "hidden": 512, "batch_size": 512, "length": 64})
    assert logits < est < 4 * logits


def test_an_unwritable_store_is_refused(tmp_path, monkeypatch):
    def refuse(*a, **k):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(preflight.tempfile, "mkstemp", refuse)
    with pytest.raises(ValueError, match="not writable"):
        preflight.check_store(tmp_path / "store")


def test_a_full_disk_is_refused(tmp_path, monkeypatch):
    Usage = namedtuple("Usage", "total used free")
    monkeypatch.setattr(preflight.shutil, "disk_usage", lambda p: Usage(10**9, 10**9 - 1000, 1000))
    with pytest.raises(ValueError, match="full"):
        preflight.check_store(tmp_path / "store")


def test_a_sweep_checks_its_store_before_any_run(tmp_path):
    (tmp_path / "file").write_text("")
    with pytest.raises(ValueError, match="is a file"):
        sweeps.sweep([{**TINY, "seed": 1}], store=tmp_path / "file" / "rnn", progress=False)


@pytest.mark.parametrize("name", ["result.json.tmp123", ".result.json.ab12.tmp", "predictions.npz.tmp.7",
                                  "checkpoints/.step-2.pt.xyz.tmp"])
def test_stale_temporary_files_in_a_finished_run_are_swept_when_it_is_opened(tmp_path, name):
    config = {**TINY, "seed": 5}
    first = runner.run(config, tmp_path, progress=False)
    stale = first.path / name
    stale.write_text("half")
    again = runner.run(config, tmp_path, progress=False)
    assert not stale.exists() and again.metrics == first.metrics
    assert (first.path / "result.json").exists() and json.loads((first.path / "result.json").read_text())


def test_a_cluster_sweep_resolves_auto_for_the_jobs_device(tmp_path):
    gpu_jobs = SubmititExecutor(tmp_path, cluster="local", gpus_per_job=1)
    cpu_jobs = SubmititExecutor(tmp_path, cluster="local", gpus_per_job=0)
    config = {**TINY, "seed": 1, "device": "auto"}
    assert runs.settle([config], gpu_jobs)[0]["device"] == "cuda"      # even on a node without a GPU
    assert runs.settle([config], cpu_jobs)[0]["device"] == "cpu"
    assert runs.key(runs.settle([config], gpu_jobs)[0]) != runs.key(runs.settle([config], cpu_jobs)[0])


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks a node without CUDA")
def test_a_job_that_lands_on_a_node_without_the_device_says_so(tmp_path):
    settled = runs.settle([{**TINY, "seed": 1, "device": "auto"}], SubmititExecutor(tmp_path, gpus_per_job=1))[0]
    with pytest.raises(ValueError, match="CUDA is not available"):
        Trainer(settled)


def test_the_device_used_is_recorded_with_the_run(tmp_path):
    r = runner.run({**TINY, "seed": 2, "device": "auto"}, tmp_path, progress=False)
    env = r.result["environment"]
    assert env["device"] == ("cuda" if torch.cuda.is_available() else "cpu") and env["device_name"]
