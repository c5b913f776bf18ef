"""The deep preset (issue 58): fixed targets on every host, and a run killed at any moment resumes to what one
uninterrupted run stores (the sweep the preset takes: a WSD trunk per run with N, N/2 and N/4, GRUs of several
vocabularies as one batch, in fp64)."""
import os
import signal
import subprocess
import sys
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


KILL_AFTER = """
import os, signal
import penb.trainer.run as run
saved, save = [], run.Run.save
def dying_save(self, path, trunk=False):
    out = save(self, path, trunk)
    saved.append(trunk)
    if saved.count(False) == {k}:
        os.kill(os.getpid(), signal.SIGKILL)
    return out
run.Run.save = dying_save
"""


def killed_and_rerun(tmp_path, monkeypatch, k: int):
    """The sweep in a process that kills itself (SIGKILL) right after its ``k``-th run checkpoint is written (the
    first batch of four runs writes four at update 20), then rerun here: (the rerun's results, the one uninterrupted
    sweep's). The kill's moment is the process's own, not a race with this one. The rerun resumes exactly the ``k``
    runs the killed process checkpointed, each from update 20 (``Run.resume`` watched)."""
    import penb.trainer.run as run_module

    straight = sweeps.sweep(configs(), batched.BatchedExecutor(4), store=tmp_path / "straight", progress=False)
    killed = tmp_path / "killed"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    code = SWEEP.replace("from tests.test_deep import configs",
                         "import penb.trainer.policy as policy\n"
                         "policy.batch_pays = lambda cs, to_go, when='auto': len(cs) > 1\n"
                         + KILL_AFTER.replace("{k}", str(k)) + "from tests.test_deep import configs")
    p = subprocess.run([sys.executable, "-c", code, str(killed)], env=env, timeout=600)
    assert p.returncode == -signal.SIGKILL
    assert len(list(killed.rglob("checkpoints/step-*.pt"))) == k
    resumed, resume = [], run_module.Run.resume

    def watched(self, run_dir, trunk=False):
        ok = resume(self, run_dir, trunk)
        if ok and not trunk:
            resumed.append(self.step)
        return ok
    monkeypatch.setattr(run_module.Run, "resume", watched)
    again = sweeps.sweep(configs(), batched.BatchedExecutor(4), store=killed, progress=False)
    assert resumed == [20] * k
    assert [r.key for r in again] == [r.key for r in straight]
    return again, straight


def test_a_deep_sweep_killed_after_a_batchs_checkpoints_resumes_to_what_one_uninterrupted_sweep_stores(
        tmp_path, monkeypatch):
    """Killed once the first batch has checkpointed every run at update 20, the rerun resumes the batch as it was
    and stores what a sweep that was never killed stores, exactly: the same runs, histories and held-out
    predictions (fp64, one thread)."""
    from penb.trainer import policy

    monkeypatch.setattr(policy, "batch_pays", lambda cs, to_go, when="auto": len(cs) > 1)
    again, straight = killed_and_rerun(tmp_path, monkeypatch, 4)
    for a, b in zip(again, straight):
        assert a.history == b.history
        pa, pb = (np.load(r.path / "predictions.npz") for r in (a, b))
        assert np.array_equal(pa["predictions"], pb["predictions"])


def test_a_deep_sweep_killed_between_a_batchs_checkpoints_loses_nothing_and_agrees_to_rounding(
        tmp_path, monkeypatch):
    """Killed after three of the first batch's four checkpoints: the rerun resumes three runs at update 20 and the
    fourth from the start, in other batches than the uninterrupted sweep's (a mixed-vocabulary batch and a run alone
    sum their logits in another order), so it agrees to fp64 rounding carried through 400 updates (relative 1e-6),
    not bit for bit; every run finishes and the same runs are stored."""
    from penb.trainer import policy

    monkeypatch.setattr(policy, "batch_pays", lambda cs, to_go, when="auto": len(cs) > 1)
    again, straight = killed_and_rerun(tmp_path, monkeypatch, 3)
    for a, b in zip(again, straight):
        assert [h["step"] for h in a.history] == [h["step"] for h in b.history]
        assert np.allclose([h["loss"] for h in a.history], [h["loss"] for h in b.history], rtol=1e-6, atol=0)
        assert a.metrics["token_accuracy"] == pytest.approx(b.metrics["token_accuracy"], abs=1 / 64)


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
    from penb.call import fit as call_fit

    assert "deep_v2" in call_fit.FIXED_TARGETS
    params = call_fit.call_overrides("deep_v2", None, "cuda")
    cfg = presets.resolve("key_findings", "deep_v2", device="cpu", **params)
    assert cfg.batch_runs >= 40 and rnn_common.settings(cfg, "gru")["steps"] == kf.DEEP_V2_N
