"""Where a chapter's runs execute: the execution parameters (``rnn_common.EXECUTION``), the executor
``penb.executors.for_config`` picks from them, their refusal before any work, and the gpu presets of the
RNN chapters (paper sizes, shared runs, estimated cost) with the book's fallback for chapters without one."""
import json

import pytest

from penb import cli, executors, notebook, presets, status
from penb import runs
from penb import sweeps
from penb.chapters import appendix, frequency, gradient_stability, key_findings, rnn_common
from penb.executors.batched import BatchedExecutor
from penb.executors import LocalExecutor, ProcessExecutor, SubmititExecutor

# the chapters that train through sweeps.chapter_sweep (and so executors.for_config)
RNN_CHAPTERS = ("key_findings", "frequency", "gradient_stability", "appendix_a", "appendix_b",
                "appendix_c", "appendix_d", "lm_appendix")
GPU_CHAPTERS = RNN_CHAPTERS[:-1]
RUN_CONFIGS = {"key_findings": key_findings.analysis.run_configs,
               "frequency": frequency.analysis.run_configs,
               "gradient_stability": gradient_stability.analysis.run_configs,
               "appendix_a": appendix.appendix_a.run_configs,
               "appendix_b": appendix.appendix_b.run_configs,
               "appendix_c": appendix.appendix_c.run_configs,
               "appendix_d": appendix.appendix_d.run_configs}


def _gpu(chapter, **over):
    return presets.resolve(chapter, "gpu", device="cpu", **over)       # explicit: allowed without CUDA


def _keys(configs):
    return {runs.key(c) for c in configs}


# -- the execution parameters ------------------------------------------------------------------------

@pytest.mark.parametrize("chapter", RNN_CHAPTERS)
def test_every_rnn_chapter_has_the_execution_keys_at_every_preset(chapter):
    for name, values in presets.table(chapter).items():
        batched = ({"executor": "batched", "batch_runs": values["batch_runs"]} if name == "slice" else
                   {"batch_runs": values["batch_runs"]} if name.startswith("deep") else {})  # deep: a batch a core
        assert {k: values[k] for k in rnn_common.EXECUTION} == {**rnn_common.EXECUTION, **batched}, (chapter, name)
    declared = notebook.declared_parameters(chapter)                      # one parameter holds them (issue 67)
    assert "execution" in declared and not set(rnn_common.EXECUTION) & set(declared)


@pytest.mark.parametrize("chapter", [c for c in RNN_CHAPTERS if c in RUN_CONFIGS])
def test_execution_keys_never_enter_a_run(chapter):
    """Run configs (and so run keys) are the same whatever the executor."""
    plain = presets.resolve(chapter, "smoke")
    other = presets.resolve(chapter, "smoke", executor="submitit", cluster="local", partition="p",
                            gpus_per_job=0, time_limit_min=5, array_parallelism=2)
    a, b = RUN_CONFIGS[chapter](plain), RUN_CONFIGS[chapter](other)
    assert a == b and [runs.key(c) for c in a] == [runs.key(c) for c in b]
    assert not set(rnn_common.EXECUTION) & {k for c in a for k in runs.normalize(c)}


def test_for_config_follows_the_chapter_parameters(tmp_path):
    cfg = presets.resolve("key_findings", "smoke", executor="submitit", cluster="local")
    ex = executors.for_config(cfg, "runs", 3, store=tmp_path / "store" / "rnn")
    assert isinstance(ex, SubmititExecutor)
    assert ex.folder == str(tmp_path / "store" / "submitit") and ex.cluster == "local"
    assert (ex.gpus_per_job, ex.time_limit_min, ex.array_parallelism) == (1, 240.0, 32)
    ex = executors.for_config(presets.resolve("key_findings", "smoke", executor="submitit", partition="gpu",
                                              gpus_per_job=2, time_limit_min=30, array_parallelism=4))
    assert (ex.partition, ex.gpus_per_job, ex.time_limit_min, ex.array_parallelism) == ("gpu", 2, 30.0, 4)
    assert ex.cluster is None and ex.folder == str(presets_store() / "submitit")

    quick = presets.resolve("key_findings", "quick", device="cpu")             # workers 2
    auto = executors.for_config(quick, "runs", 5)                               # auto: batched, a process a core
    assert isinstance(auto, BatchedExecutor) and (auto.workers, auto.threads, auto.max_runs) == (2, 1, 64)
    assert isinstance(executors.for_config(quick, "runs", 1), LocalExecutor)      # one run: in-process
    assert isinstance(executors.for_config(quick.replace(executor="local"), "runs", 5), LocalExecutor)
    smoke = presets.resolve("key_findings", "smoke")                           # workers 1
    assert executors.for_config(smoke, "runs", 5).workers == 1                   # batched, in this process
    assert isinstance(executors.for_config(smoke.replace(executor="process"), "runs", 5), ProcessExecutor)
    with pytest.raises(ValueError, match="unknown executor 'slurm'"):
        executors.for_config(smoke.replace(executor="slurm"))


def presets_store():
    from penb.store import paths

    return paths.store_dir()


@pytest.mark.parametrize("overrides, match", [
    (dict(executor="slurm"), "unknown executor 'slurm'"),
    (dict(executor=3), "must be str"),
    (dict(cluster="kubernetes"), "unknown cluster 'kubernetes'"),
    (dict(partition=""), "partition must be None or a partition name"),
    (dict(partition=7), "partition must be None or a partition name"),
    (dict(gpus_per_job=-1), "gpus_per_job must be an int >= 0"),
    (dict(gpus_per_job=1.5), "must be int"),
    (dict(time_limit_min=0), "time_limit_min must be a positive number"),
    (dict(time_limit_min=float("inf")), "time_limit_min must be a finite number"),
    (dict(time_limit_min="long"), "must be float"),
    (dict(array_parallelism=0), "array_parallelism must be an int >= 1"),
])
@pytest.mark.parametrize("chapter", RNN_CHAPTERS)
def test_impossible_execution_values_are_refused_by_resolve(chapter, overrides, match):
    with pytest.raises(ValueError, match=match):
        presets.resolve(chapter, "smoke", **overrides)


def test_impossible_execution_combinations_are_refused(monkeypatch):
    import shutil

    import torch

    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(ValueError, match="cluster='slurm' needs Slurm"):
        presets.resolve("key_findings", "smoke", executor="submitit", cluster="slurm")
    assert presets.resolve("key_findings", "smoke", cluster="slurm").cluster == "slurm"  # unused: fine
    monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/" + name)
    assert presets.resolve("key_findings", "smoke", executor="submitit", cluster="slurm").cluster == "slurm"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    with pytest.raises(ValueError, match="gpus_per_job=0 gives the submitit jobs no GPU"):
        presets.resolve("key_findings", "smoke", device="cuda", executor="submitit", gpus_per_job=0)
    # "auto" is the jobs' device, whatever this node has: CPU jobs here (tests/test_slurm.py runs one)
    auto = presets.resolve("key_findings", "smoke", device="auto", executor="submitit", gpus_per_job=0)
    assert auto.device == "auto" and auto.gpus_per_job == 0
    cpu = presets.resolve("key_findings", "smoke", device="cpu", executor="submitit", gpus_per_job=0)
    assert cpu.gpus_per_job == 0


def test_the_command_line_refuses_a_bad_executor_before_the_kernel(tmp_path, monkeypatch):
    monkeypatch.setenv("PENB_EXECUTED_DIR", str(tmp_path))
    assert cli.main(["run", "key_findings", "--preset", "smoke", "-p", "executor", "slurm"]) == 2
    assert not list(tmp_path.iterdir())


@pytest.mark.slow
def test_a_smoke_sweep_runs_through_submitit_chosen_by_parameters(tmp_path, capsys):
    """executor="submitit", cluster="local": the chapter's sweep runs in submitit's subprocesses, its
    logs under <store>/submitit, and the runs land in the store, readable as any other run."""
    cfg = presets.resolve("key_findings", "smoke", executor="submitit", cluster="local", gpus_per_job=0,
                          time_limit_min=10, cores=("gru",))
    configs = key_findings.analysis.run_configs(cfg)[:2]
    store = tmp_path / "store" / "rnn"
    results, before = sweeps.chapter_sweep(configs, cfg, "runs", store=store, progress=False)
    assert before == [False, False] and all(runs.status(c, store) == "done" for c in configs)
    assert [r.key for r in results] == [runs.key(c) for c in configs]
    assert "submitit (local): 2 runs" in capsys.readouterr().out
    assert list((tmp_path / "store" / "submitit").glob("*_result.pkl"))


# -- the gpu presets -----------------------------------------------------------------------------------

@pytest.mark.parametrize("chapter", GPU_CHAPTERS)
def test_gpu_presets_train_paper_sized_models_in_fp32_on_confirmation_seeds(chapter):
    paper, gpu = presets.table(chapter)["paper"], presets.table(chapter)["gpu"]
    assert (gpu["hidden"], gpu["batch_size"]) == (paper["hidden"], paper["batch_size"]) == (512, 512)
    assert gpu["seeds"] == presets.CONFIRMATION_SEEDS[:5]             # the paper's five trials, fresh seeds
    assert gpu["amp"] == "none" and gpu["lr"] == 3e-3 and gpu["workers"] == 4
    assert gpu["device"] == "auto"


def test_gpu_presets_refuse_a_machine_without_cuda(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    for chapter in GPU_CHAPTERS:
        with pytest.raises(ValueError, match="no CUDA device"):
            presets.resolve(chapter, "gpu")
        assert presets.resolve(chapter, "gpu", device="cpu").device == "cpu"


def test_gpu_presets_share_runs_across_chapters():
    """Equal settings give equal runs: gradient stability scores frequency's; appendix A's LSTM reversal
    references are key findings' runs; C's sorting runs are A's and its reversal runs key findings';
    D's vanilla/PE runs are B's (variable length) and C's (fixed length)."""
    kf, fq, gs = (RUN_CONFIGS[c](_gpu(c)) for c in ("key_findings", "frequency", "gradient_stability"))
    assert _keys(gs) <= _keys(fq)
    a, b, c, d = (RUN_CONFIGS[f"appendix_{x}"](_gpu(f"appendix_{x}")) for x in "abcd")
    ref = [x for x in a if x["task"] == "reverse" and x["core"] == "lstm"]
    assert ref and _keys(ref) <= _keys(kf)
    pe_or_vanilla = [x for x in c if x["input_mode"] == "concat"]
    assert _keys([x for x in pe_or_vanilla if x["task"] == "sort"]) <= _keys(a)
    assert _keys([x for x in pe_or_vanilla if x["task"] == "reverse"]) <= _keys(kf)
    dv = [x for x in d if x["encoding"] in ("none", "sinusoidal")]
    assert _keys([x for x in dv if x["task"] == "reverse_variable"]) <= _keys(b)
    assert _keys([x for x in dv if x["task"] == "reverse"]) <= _keys(c)


def test_gpu_presets_fit_their_estimated_budget():
    """Estimated GPU-hours, one run at a time, of each chapter's new runs in book order (the numbers of
    the presets' comments and the README): at most 3 (about one with four runs packed)."""
    seen, hours = set(), {}
    for chapter in GPU_CHAPTERS:
        configs = RUN_CONFIGS[chapter](_gpu(chapter))
        hours[chapter] = executors.gpu_hours([x for x in configs if runs.key(x) not in seen])
        seen |= _keys(configs)
    assert all(h <= 3.0 for h in hours.values()), hours
    assert hours["key_findings"] == pytest.approx(2.61, abs=0.01)
    assert hours["frequency"] == pytest.approx(1.19, abs=0.01) and hours["gradient_stability"] == 0
    assert [round(hours[f"appendix_{x}"], 2) for x in "abcd"] == [1.52, 0.44, 0.44, 0.89]


def test_step_times_are_the_anchors_at_their_vocabularies():
    gru = dict(core="gru", hidden=512, batch_size=512, length=64)
    assert executors.step_seconds({**gru, "vocab_size": 256}) == pytest.approx(0.0140)
    assert executors.step_seconds({**gru, "core": "lstm", "vocab_size": 16384}) == pytest.approx(0.0524)
    assert executors.step_seconds({**gru, "core": "s4d", "vocab_size": 16384}) == pytest.approx(0.0541)
    lstm = [executors.step_seconds({**gru, "core": "lstm", "vocab_size": v}) for v in (256, 4096, 16384)]
    assert lstm == sorted(lstm) and lstm[0] > 0.0140                 # an LSTM's gates cost more than a GRU's
    # the readout's share: LSTM recurrence = 4/3 of the GRU's (3 gates vs 4) at V -> 0
    assert executors.step_seconds({**gru, "core": "lstm", "vocab_size": 0}) == pytest.approx(
        4 / 3 * (0.0140 - executors.READOUT_S * 256 / 16384), rel=1e-3)


# -- PRESET=gpu make book: chapters without a gpu preset run quick --------------------------------------

def test_chapters_without_a_gpu_preset_fall_back_to_quick_on_auto():
    for chapter in presets.chapters():
        chosen, over, note = presets.book_preset(chapter, "gpu")
        if "gpu" in presets.table(chapter):
            assert (chosen, over, note) == ("gpu", {}, "")
        else:
            assert chosen == "quick" and "no 'gpu' preset" in note and "quick" in note
            assert over == ({"device": "auto"} if "device" in presets.table(chapter)["quick"] else {})
        assert presets.book_preset(chapter, "quick") == ("quick", {}, "")
    assert presets.book_preset("encodings", "gpu", settable={"preset"})[1] == {}   # no device to set
    assert presets.book_preset("encodings", "fastest") == ("fastest", {}, "")      # refused later


def test_run_all_plan_passes_only_what_a_notebook_declares():
    for name in notebook.book_chapters():
        _, params, note = cli.run_all_plan(name, "gpu")
        if not note:
            assert params == {"preset": "gpu"}
            continue
        assert params["preset"] == "quick"
        notebook.validate(name, params)                   # declared parameters; device auto: the CPU here
    assert cli.run_all_plan("lm_appendix", None) == ("lm_appendix", {}, "")


def test_status_page_shows_the_preset_a_chapter_ran(tmp_path):
    base = dict(parameters={"preset": "quick"}, device="cpu", wall_s=1.0, date="2026-01-01T00:00:00",
                versions={}, runs={})
    rows = [dict(base, chapter="irie", preset="quick", requested_preset="gpu"),
            dict(base, chapter="key_findings", preset="gpu", requested_preset="gpu"),
            dict(base, chapter="encodings", preset="quick")]                      # an older record
    page = status.render(rows)
    assert "| {doc}`irie` | quick (no gpu preset) |" in page
    assert "| {doc}`key_findings` | gpu |" in page and "| {doc}`encodings` | quick |" in page


def test_a_fallback_chapter_says_so_in_its_output(monkeypatch, capsys):
    monkeypatch.setenv(presets.REQUESTED, "gpu")
    cfg = presets.from_parameters("encodings", {"preset": "quick"})
    assert cfg.preset == "quick"
    assert "preset 'gpu', which this chapter does not have" in capsys.readouterr().out
    monkeypatch.delenv(presets.REQUESTED)
    presets.from_parameters("encodings", {"preset": "quick"})
    assert capsys.readouterr().out == ""


def test_run_chapter_records_the_requested_preset(monkeypatch, tmp_path):
    """``run_chapter(..., requested="gpu")`` writes it to the status record (papermill itself stubbed)."""
    import papermill

    def fake_execute(src, dest, **kw):
        import os
        import shutil

        assert os.environ.get(presets.REQUESTED) == "gpu"          # the kernel inherits it
        shutil.copy(src, dest)

    monkeypatch.setattr(papermill, "execute_notebook", fake_execute)
    notebook.run_chapter("encodings", {"preset": "smoke"}, out_dir=tmp_path, requested="gpu")
    record = json.loads((tmp_path / "encodings.status.json").read_text())
    assert record["preset"] == "smoke" and record["requested_preset"] == "gpu"
    assert presets.REQUESTED not in __import__("os").environ
