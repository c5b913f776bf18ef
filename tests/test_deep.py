"""The deep preset (issue 58): fixed targets on every host, and a run killed at any moment resumes to what one
uninterrupted run stores (the sweep the preset takes: a WSD trunk per run with N, N/2 and N/4, GRUs of several
vocabularies as one batch, in fp64)."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from penb import presets, runs, sweeps
from penb.chapters import rnn_common
from penb.chapters.key_findings import analysis
from penb.chapters.key_findings import presets as kf
from penb.executors import batched


def test_the_deep_preset_is_the_rules_fixed_targets():
    cfg = presets.resolve("key_findings", "deep")
    configs = analysis.run_configs(cfg)
    assert {c["steps"] for c in configs} == {kf.DEEP_N} and {c["amp"] for c in configs} == {"none"}
    assert cfg.seeds == presets.confirmation(kf.DEEP_SEEDS) and set(cfg.gru_vocab) == {32, 64, 128, 256}
    budgets = {c["steps"] for c in rnn_common.all_budgets(configs, cfg)}
    assert budgets == {kf.DEEP_N, kf.DEEP_N // 2, kf.DEEP_N // 4}


@pytest.mark.parametrize("override", [{"per_core": {"gru": {"batch_size": 64, "steps": 8000}}},
                                      {"seeds": presets.confirmation(3)}, {"seeds": presets.SEARCH_SEEDS[:5]},
                                      {"gru_vocab": (32, 512)}, {"earlier": 0}, {"amp": "bf16"},
                                      {"per_core": {"gru": {"batch_size": 64, "steps": kf.DEEP_N, "amp": "bf16"}}}])
def test_the_deep_preset_refuses_host_dependent_budgets(override):
    """Another N, seed count, precision (bf16 runs only where the CPU has AMX), a cell outside the figure or no N/4:
    refused in one line (a subset of the figure's cells is a part of it, issue 65: tests/test_long_run.py)."""
    with pytest.raises(ValueError, match="fixed targets"):
        presets.resolve("key_findings", "deep", **override)


def test_a_figures_batches_share_its_vocabularies_evenly():
    cfg = presets.resolve("key_findings", "deep")
    configs = runs.settle(rnn_common.all_budgets(analysis.run_configs(cfg), cfg))
    for stage in batched.schedule(configs, cfg.batch_runs, cfg.workers):
        assert len(stage) == 2
        counts = [sorted(np.unique([c["vocab_size"] for c in g], return_counts=True)[1]) for g in stage]
        assert counts[0] == counts[1] == [kf.DEEP_SEEDS] * 4


TINY = dict(task="reverse", length=4, hidden=12, batch_size=8, warmup=5, lr=1e-2, held_out=8, core="gru",
            schedule="wsd", checkpoint_every=20, log_every=20, device="cpu", dtype="float64")
SWEEP = """
import sys
from penb import sweeps
from penb.executors.batched import BatchedExecutor
from tests.test_deep import configs
sweeps.sweep(configs(), BatchedExecutor(4), store=sys.argv[1], progress=False)
"""


def configs():
    """A deep figure in miniature: two vocabularies x two encodings, each at N with N/2 and N/4 on its trunk."""
    full = [{**TINY, "vocab_size": v, "encoding": e, "seed": 2001, "steps": 400}
            for v in (5, 9) for e in ("none", "sinusoidal")]
    return full + [{**c, "steps": c["steps"] >> k} for k in (1, 2) for c in full]


def test_a_killed_deep_sweep_resumes_to_what_one_uninterrupted_sweep_stores(tmp_path, monkeypatch):
    """The sweep killed (SIGKILL) once its trunk has saved a checkpoint, then run again, stores what a sweep that was
    never killed stores: the same runs, histories and held-out predictions. Wherever the kill lands, the rerun must
    end the same (the kill's moment decides only how much of it the second process trains)."""
    from penb.trainer import loop

    monkeypatch.setattr(loop, "batch_pays", lambda cs, to_go, when="auto": len(cs) > 1)
    straight = sweeps.sweep(configs(), batched.BatchedExecutor(4), store=tmp_path / "straight", progress=False)
    killed = tmp_path / "killed"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    code = SWEEP.replace("from tests.test_deep import configs",
                         "import penb.trainer.loop as loop\n"
                         "loop.batch_pays = lambda cs, to_go, when='auto': len(cs) > 1\n"
                         "from tests.test_deep import configs")
    p = subprocess.Popen([sys.executable, "-c", code, str(killed)], env=env)
    deadline = time.time() + 120
    while time.time() < deadline and p.poll() is None and not list(killed.rglob("step-*.pt")):
        time.sleep(0.01)
    if p.poll() is None:
        p.send_signal(signal.SIGKILL)
    p.wait()
    again = sweeps.sweep(configs(), batched.BatchedExecutor(4), store=killed, progress=False)
    assert [r.key for r in again] == [r.key for r in straight]
    for a, b in zip(again, straight):
        assert a.history == b.history
        pa, pb = (np.load(r.path / "predictions.npz") for r in (a, b))
        assert np.array_equal(pa["predictions"], pb["predictions"])


# -- DEEP_RULE v2's preset (deep_v2): the same figure, N and seeds from power_analysis_v2.csv -------------------------

def test_the_v2_preset_trains_the_figure_to_v2s_targets_on_seeds_v1_never_read():
    from penb import sizing

    cfg = presets.resolve("key_findings", "deep_v2", device="cpu")
    configs = analysis.run_configs(cfg)
    assert {c["steps"] for c in configs} == {128_000} and {c["amp"] for c in configs} == {"none"}
    assert tuple(cfg.seeds) == sizing.DEEP_V2_SEEDS == (2006, 2007, 2008, 2009, 2010)
    assert not set(cfg.seeds) & set(presets.resolve("key_findings", "deep").seeds)
    assert not set(cfg.seeds) & set(presets.SEARCH_SEEDS + presets.PILOT_SEEDS)
    assert set(cfg.gru_vocab) == {32, 64, 128, 256} and len(configs) == 4 * 2 * 5
    budgets = {c["steps"] for c in rnn_common.all_budgets(configs, cfg)}
    assert budgets == {128_000, 64_000, 32_000}


@pytest.mark.parametrize("override", [{"per_core": {"gru": {"batch_size": 64, "steps": kf.DEEP_N}}},
                                      {"seeds": presets.confirmation(5)}, {"seeds": kf.DEEP_V2_SEEDS[:3]},
                                      {"gru_vocab": (256, 512)}, {"earlier": 0}, {"amp": "bf16"}])
def test_the_v2_preset_refuses_other_targets(override):
    with pytest.raises(ValueError, match="deep_v2 preset's budgets are fixed targets"):
        presets.resolve("key_findings", "deep_v2", device="cpu", **override)


def test_the_v2_preset_is_refused_on_a_machine_without_cuda_unless_the_cpu_is_asked_for(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(ValueError, match="sized for a GPU"):
        presets.resolve("key_findings", "deep_v2")


def test_the_v2_preset_is_what_v2s_rule_reads_off_the_committed_table():
    import pandas as pd

    from penb.power import fig2

    c = fig2.choose(pd.read_csv(fig2.TABLE))
    assert (kf.DEEP_V2_N, len(kf.DEEP_V2_SEEDS)) == (c["N"], c["seeds"])


def test_a_device_call_trains_the_v2_figure_toward_its_targets_in_one_batch_per_shape():
    from penb.call import sizing as call_sizing

    assert "deep_v2" in call_sizing.FIXED_TARGETS
    params = call_sizing.call_overrides("deep_v2", None, "cuda")
    cfg = presets.resolve("key_findings", "deep_v2", device="cpu", **params)
    assert cfg.batch_runs >= 40 and rnn_common.settings(cfg, "gru")["steps"] == kf.DEEP_V2_N
