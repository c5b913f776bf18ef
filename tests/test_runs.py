"""Run store: keys cover every field; a killed run resumes to the same bits; sweeps reuse and validate."""
import json

import numpy as np
import pytest
import torch

from penb.run_config import DEFAULTS, normalize
from penb.store.paths import checkpoints
from penb import runs
from penb import runner, sweeps
from penb.executors import LocalExecutor, ProcessExecutor, make_executor
from penb.trainer import load_model

TINY = dict(vocab_size=6, length=3, hidden=8, batch_size=8, steps=12, warmup=3, held_out=8,
            checkpoint_every=4, log_every=5, device="cpu", seed=7, core="lstm")


class Killed(Exception):
    pass


def assert_same_run(a: runs.RunResult, b: runs.RunResult):
    assert a.metrics == b.metrics and a.history == b.history
    pa, pb = a.predictions(), b.predictions()
    assert set(pa) == set(pb) and all(np.array_equal(pa[k], pb[k]) for k in pa)
    sa, sb = load_model(a).state_dict(), load_model(b).state_dict()
    assert all(torch.equal(sa[k], sb[k]) for k in sa)


def test_key_covers_every_field_and_fills_defaults():
    base = runs.key(TINY)
    assert base == runs.key({**TINY, "betas": [0.9, 0.98], "embed": None})     # defaults made explicit
    assert base == runs.key({**TINY, "device": "cpu"})
    changes = dict(vocab_size=7, length=4, hidden=10, batch_size=9, steps=13, warmup=2, held_out=9,
                   checkpoint_every=5, seed=8, core="gru", encoding="none", lr=2e-3,
                   betas=(0.9, 0.999), eps=1e-8, clip=0.5, weight_decay=0.1, task="sort", s4d_state=32,
                   input_mode="add", embed=8, dtype="float64", task_options={})
    keys = {runs.key({**TINY, k: v}) for k, v in changes.items() if v != TINY.get(k, DEFAULTS[k])}
    assert base not in keys and len(keys) == len(changes) - 1               # task_options {} is the default
    assert runs.key({**TINY, "task": "reverse_variable", "task_options": {"min_length": 2}}) != \
        runs.key({**TINY, "task": "reverse_variable", "task_options": {"min_length": 3}})


def test_key_leaves_out_bookkeeping_and_follows_the_store_version(monkeypatch):
    base = runs.key(TINY)
    assert runs.key({**TINY, "log_every": 1}) == base                        # bookkeeping only
    fields = runs.key_fields(TINY)
    assert "log_every" not in fields and fields["device"] == "cpu" and fields["store_version"] >= 2
    from penb.store import identity                                               # where the key is hashed

    monkeypatch.setattr(identity, "STORE_VERSION", fields["store_version"] + 1)
    assert runs.key(TINY) != base                                            # new code, new runs


def test_killed_run_resumes_to_the_same_bits(tmp_path):
    whole = sweeps.sweep([TINY], store=tmp_path / "a", progress=False)[0]

    def kill_at_6(trainer):
        if trainer.step == 6:
            raise Killed

    d = runs.run_dir(TINY, tmp_path / "b")
    with pytest.raises(Killed):
        runner.train_one(TINY, tmp_path / "b", callback=kill_at_6)
    assert runs.status(TINY, tmp_path / "b") == "partial"
    assert [s for s, _ in checkpoints(d)] == [4]                      # killed between checkpoints
    seen = []
    runner.train_one(TINY, tmp_path / "b", callback=lambda t: seen.append(t.step))
    assert seen[0] == 5                                                     # resumed after step 4
    resumed = runs.load(TINY, tmp_path / "b")
    assert_same_run(whole, resumed)
    assert [s for s, _ in resumed.checkpoints()] == [4, 8, 12]              # every checkpoint kept
    assert json.loads((d / "config.json").read_text())["seed"] == 7


def test_sweep_reuses_finished_runs_and_runs_duplicates_once(tmp_path, monkeypatch):
    configs = runs.grid(TINY, seed=(1, 2))
    calls = []
    from penb import runner

    real = runner.finish                                     # where every trained run ends (penb.runner)
    monkeypatch.setattr(runner, "finish", lambda *a, **k: (calls.append(1), real(*a, **k))[1])
    first = sweeps.sweep(configs + configs[:1], store=tmp_path, progress=False)
    assert len(calls) == 2 and len(first) == 3 and first[0].key == first[2].key
    again = sweeps.sweep(configs, store=tmp_path, progress=False)
    assert len(calls) == 2 and [r.metrics for r in again] == [r.metrics for r in first[:2]]
    frame = runs.to_frame(again)
    assert list(frame["seed"]) == [1, 2] and "token_accuracy" in frame


def test_sweep_validates_everything_before_running(tmp_path):
    with pytest.raises(ValueError, match="unknown core"):
        sweeps.sweep([TINY, {**TINY, "core": "rnn"}], store=tmp_path, progress=False)
    assert runs.status(TINY, tmp_path) == "new"


def test_process_pool_gives_the_same_bits_as_in_process(tmp_path):
    cfg = {**TINY, "seed": 3, "core": "s4d"}
    local = sweeps.sweep([cfg], LocalExecutor(threads=1), store=tmp_path / "local", progress=False)[0]
    pooled = sweeps.sweep([cfg], ProcessExecutor(workers=1, threads=1), store=tmp_path / "pool", progress=False)[0]
    assert local.key == pooled.key
    assert_same_run(local, pooled)


def test_executor_registry_and_bad_options():
    assert isinstance(make_executor("local"), LocalExecutor)
    assert make_executor("local").map(abs, [-1, 2]) == [1, 2]
    with pytest.raises(ValueError, match="unknown executor"):
        make_executor("slurm")
    with pytest.raises(ValueError, match="workers"):
        ProcessExecutor(workers=0)


def test_load_model_checks_the_step(tmp_path):
    r = sweeps.sweep([TINY], store=tmp_path, progress=False)[0]
    assert load_model(r, step=4) is not None
    with pytest.raises(ValueError, match="no checkpoint at step 5"):
        load_model(r, step=5)


def test_key_findings_paper_preset_matches_the_paper():
    from penb import claims, presets
    from penb.chapters import key_findings

    cfg = presets.resolve("key_findings", "paper")
    assert cfg.gru_vocab == claims.get("morita.fig2.gru").extra["vocab"]
    assert cfg.lstm_vocab == claims.get("morita.fig2.lstm").extra["vocab"]
    settings = claims.get("morita.settings").value
    assert (cfg.hidden, cfg.batch_size, cfg.steps, cfg.lr, cfg.warmup, len(cfg.seeds)) == \
        (settings["hidden"], settings["batch"], settings["steps"], settings["lr"], settings["warmup"], settings["seeds"])
    configs = key_findings.analysis.run_configs(cfg)
    assert len(configs) == (4 + 7 + 7) * 2 * 5
    assert len({runs.key(c) for c in configs}) == len(configs)                 # no two share a result
    smoke = key_findings.analysis.run_configs(presets.resolve("key_findings", "smoke"))
    assert all(normalize(c)["steps"] == 20 for c in smoke)


def test_usage_log_counts_reused_and_trained_runs(tmp_path, monkeypatch):
    from penb import notebook

    store, log = tmp_path / "store", tmp_path / "usage.jsonl"
    first = sweeps.sweep([TINY], store=store)[0]                                    # made before the chapter
    monkeypatch.setenv(sweeps.USAGE_LOG, str(log))
    other = {**TINY, "seed": 8}
    sweeps.sweep([TINY, other, other], store=store)                                 # reuse one, train one (once)
    sweeps.sweep([other], store=store)                                              # a second sweep reuses it
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    assert [(x["key"], x["trained"]) for x in lines] == [(first.key, False), (runs.key(other), True),
                                                          (runs.key(other), False)]
    walls = {k: json.loads((store / k / "result.json").read_text())["wall_s"]
             for k in (first.key, runs.key(other))}
    used = notebook.run_usage(log)
    assert used == {"used": 2, "trained": 1, "training_s": round(sum(walls.values()), 1)}
    assert notebook.run_usage(tmp_path / "absent.jsonl") == {"used": 0, "trained": 0, "training_s": 0.0}
