"""Sweeps through submitit's local executor (real subprocesses): a job interrupted mid-run as a time limit
would is requeued, resumes from its checkpoint, and every run finishes once with the same bits."""
from functools import partial

import numpy as np
import pytest

from penb import runs

from penb import sweeps
from penb.executors import SubmititExecutor, gpu_hours
from tests.store_worker import held_job

# the first attempt of the job waits at update 400 until its time limit ends it (tests.store_worker.held_job)
TINY = dict(vocab_size=6, length=3, hidden=8, batch_size=8, steps=1000, warmup=3, held_out=8,
            checkpoint_every=200, log_every=100, device="cpu", core="lstm")


@pytest.mark.slow
def test_an_interrupted_submitit_job_is_requeued_and_resumes(tmp_path):
    configs = [{**TINY, "seed": 31}]
    reference = sweeps.sweep(configs, store=tmp_path / "ref", progress=False)
    store = tmp_path / "store"
    # a 15 s time limit whose warning signal comes 5 s before it: the first attempt holds at update 400 (after
    # a checkpoint), so its job is stopped mid-run, checkpointed by submitit, requeued, and resumes from the store
    ex = SubmititExecutor(tmp_path / "jobs", cluster="local", gpus_per_job=0, time_limit_min=0.25,
                          signal_delay_s=5, max_requeue=8)
    normalised = [runs.normalize(c) for c in configs]
    submitted = ex.submit(partial(held_job, store=str(store), marker=str(tmp_path / "held")), normalised)
    results = [j.result() for j in submitted]
    assert [k for k, _ in results] == [r.key for r in reference]
    again = sweeps.sweep(configs, store=store, progress=False)           # everything is in the store
    for a, b in zip(reference, again):
        assert a.metrics == b.metrics and a.history == b.history
        pa, pb = a.predictions(), b.predictions()
        assert all(np.array_equal(pa[k], pb[k]) for k in pa)
    logs = "".join(p.read_text() for p in (tmp_path / "jobs").glob("*_log.*"))
    assert (tmp_path / "held").exists()                                  # the first attempt did hold
    assert "Requeued" in logs or "requeued" in logs, logs[-3000:]            # it did time out and come back


def test_the_cost_is_estimated_from_paper_step_times():
    paper = dict(core="gru", steps=300_000, batch_size=512, length=64, hidden=512)
    assert gpu_hours([paper]) == pytest.approx(300_000 * 0.014 / 3600)
    assert gpu_hours([{**paper, "hidden": 256}]) == pytest.approx(gpu_hours([paper]) / 4)
    with pytest.raises(ValueError, match="unknown submitit cluster"):
        SubmititExecutor("x", cluster="kubernetes")
