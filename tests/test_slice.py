"""The GPU slice (issue 43, penb.call.slice): a plan that fits its minutes at the measured batched rate, refused in one
line where it cannot; one call that trains the runs as batches and hands back at most 8 files with no checkpoints;
a call cut off keeps its finished runs; an archive refuses a manifest that does not match its runs.

The slice runs here at the smoke preset on the CPU (what the suite can afford); the slice preset itself is only
planned. Time is a fake clock where a deadline matters, so nothing depends on this machine's load."""
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from penb import presets
from penb.call import slice as slicing
from penb.cli import main
from penb.executors.cost import batch_update_seconds
from penb import runs

CLEAN = "0123456789abcdef0123456789abcdef01234567"     # a clean commit, as a slice from main would name
CPU = {"device": "cpu"}                                 # the slice preset planned on a machine without CUDA


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("PENB_STORE", str(tmp_path / "store"))
    monkeypatch.setenv("PENB_COMMIT", CLEAN)
    return tmp_path / "store"


class FakeClock:
    """Seconds that advance by ``step`` at every reading."""

    def __init__(self, step=1.0):
        self.t, self.step = 1000.0, step

    def __call__(self):
        self.t += self.step
        return self.t


# -- the measured rate and the plan -------------------------------------------------------------------------------
def test_the_estimate_reproduces_the_measured_gpu_rates():
    """benchmarks/results/h200-2026-11-27.txt (the stacked batch, eager): quick GRU 209.3 run-updates/s alone,
    2,700.8 at K=64 and 9,395.8 at K=1,024; quick LSTM 169.9 alone, 3,474.5 at K=256. Run-updates per second = K /
    seconds per batch update, at the measured vocabulary."""
    gru = dict(core="gru", hidden=64, length=16, batch_size=64, vocab_size=32)
    lstm = dict(core="lstm", hidden=128, length=16, batch_size=64, vocab_size=512)
    for cfg, k, rate in ((gru, 1, 209.3), (gru, 64, 2700.8), (gru, 1024, 9395.8), (lstm, 1, 169.9),
                         (lstm, 256, 3474.5)):
        t, measured = batch_update_seconds(cfg, k)
        assert measured and k / t == pytest.approx(rate, rel=1e-9)
    t8, _ = batch_update_seconds(gru, 8)                      # between measured K: between their times
    assert batch_update_seconds(gru, 1)[0] < t8 < batch_update_seconds(gru, 16)[0]
    bigger, measured = batch_update_seconds({**lstm, "batch_size": 128}, 16)
    assert not measured and bigger >= batch_update_seconds(lstm, 16)[0]     # unmeasured: never cheaper


@pytest.mark.parametrize("chapter", ["key_findings", "frequency"])
def test_each_chapters_slice_fits_one_call_with_five_seeds_and_budgets_beyond_quick(chapter):
    p = slicing.contents([chapter], "slice", CPU)
    slicing.check(p, presets.SLICE_MINUTES)                   # raises if it does not fit
    assert p["measured"] or chapter == "frequency"            # frequency's LSTM (batch 128) is scaled, not measured
    assert (p["seconds"] + slicing.OVERHEAD_S) / 60 <= presets.SLICE_MINUTES <= slicing.MAX_MINUTES
    cfg, quick = presets.resolve(chapter, "slice", **CPU), presets.resolve(chapter, "quick")
    from penb.chapters.rnn_common import settings

    assert len(cfg.seeds) >= 5 and set(cfg.seeds) <= set(presets.CONFIRMATION_SEEDS)
    for core in cfg.cores:
        n = settings(cfg, core)["steps"]
        assert n > settings(quick, core)["steps"]
        steps = {c["steps"] for c in p["chapters"][chapter]["configs"] if c["core"] == core}
        assert steps == {n, n // 2, n // 4}                   # two doublings: N/4 -> N/2 -> N
    assert all(len(b["configs"]) <= cfg.batch_runs for b in p["batches"])


def test_a_plan_over_its_minutes_or_the_calls_limit_is_refused_in_one_line():
    p = slicing.contents(["key_findings", "frequency"], "slice", CPU)
    with pytest.raises(ValueError, match=r"needs about \d+\.\d minutes.*more than --minutes 8") as e:
        slicing.check(p, 8)
    assert "\n" not in str(e.value)
    with pytest.raises(ValueError, match="--minutes must be in"):
        slicing.check(slicing.contents(["key_findings"], "smoke"), 12)


def test_the_slice_preset_is_refused_without_cuda(monkeypatch, capsys):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(ValueError, match="no CUDA device"):
        presets.resolve("key_findings", "slice")
    assert main(["slice", "key_findings", "--minutes", "8", "--out", "never"]) == 2
    assert "no CUDA device" in capsys.readouterr().err
    assert not Path("never").exists()


@pytest.mark.parametrize("argv, says", [
    (["slice", "key_findingz", "--minutes", "8", "--out", "x"], "unknown chapter 'key_findingz'"),
    (["slice", "irie", "--minutes", "8", "--out", "x"], "irie has no 'slice' preset"),
    (["slice", "key_findings", "--preset", "smoke", "-p", "hiden", "3", "--minutes", "8", "--out", "x"],
     "unknown parameter"),
])
def test_bad_input_gets_one_line_before_anything_trains(argv, says, capsys, store):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1 and not store.exists()


def test_the_plan_command_prints_the_batches_and_the_estimate(capsys):
    assert main(["plan", "--preset", "slice", "key_findings"]) == 0
    out = capsys.readouterr().out
    assert "minutes on one GPU" in out and "gru" in out and "lstm" in out and "s4d" not in out


# -- one call ------------------------------------------------------------------------------------------------------
def _files(folder: Path) -> dict:
    return {p.name: p.stat().st_size for p in folder.iterdir()}


def test_one_call_hands_back_at_most_eight_small_files_and_no_checkpoint_but_the_trunks(store, tmp_path):
    """At most 8 files of at most 16 MiB, 64 MiB in all (what the next call carries in: the device tool's limits,
    written out here, not read from penb.call.limits); no run's checkpoint, only the WSD trunks' last ones in the
    trunk parts."""
    import tarfile

    out = tmp_path / "out"
    assert main(["slice", "key_findings", "frequency", "--preset", "smoke", "--minutes", "8", "--out", str(out),
                 "--quiet"]) == 0
    files = _files(out)
    assert len(files) <= 8 and sum(files.values()) <= 64 * 2 ** 20 and max(files.values()) <= 16 * 2 ** 20
    assert not [f for f in files if f.endswith(".pt")] and "manifest.json" in files
    names = []
    for part in sorted(f for f in files if f.startswith("trunks")):
        assert re.fullmatch(r"trunks-[1-9][0-9]*\.tar", part), part
        with tarfile.open(out / part) as tar:
            names += tar.getnames()
    assert all(re.match(r"^[0-9a-f]{16}/step-[0-9]{9}\.pt$", n) for n in names)
    assert len(names) == json.loads((out / "manifest.json").read_text())["trunks"]["carried"] > 0
    man = json.loads((out / "manifest.json").read_text())
    assert man["commit"] == [CLEAN] and man["device"] == "cpu" and man["torch"] and man["date"][:4] == "2026"
    assert man["minutes"] == 8 and man["files"] == sorted(files, key=man["files"].index)
    for chapter in ("key_findings", "frequency"):
        c = man["chapters"][chapter]
        assert c["complete"] and c["preset"] == "smoke" and c["seeds"] == [2001, 2002]
        cfg = presets.resolve(chapter, "smoke")
        assert c["config_key"] == cfg.key() and set(c["budgets"]) == set(cfg.cores)
    results = json.loads((out / "results.json").read_text())
    assert all(runs.key(r["config"]) == k for k, r in results.items())


def test_a_call_cut_off_keeps_the_runs_it_finished(store, tmp_path, monkeypatch):
    """The deadline falls after a few batches (each takes a sixth of the call on the fake clock): those runs are
    handed back, the rest are the next call's, and the archive refuses the incomplete folder."""
    from penb import runner

    out = tmp_path / "out"
    clock, real = FakeClock(step=0.0), runner.train_group

    def timed(configs, store, progress=False, callback=None):
        done = real(configs, store, progress, callback=callback)
        clock.t += (8 * 60 - slicing.OVERHEAD_S / 2) / 6
        return done
    monkeypatch.setattr(runner, "train_group", timed)
    st = slicing.run(["key_findings"], 8, out, "smoke", clock=clock)
    assert 0 < st["finished"] < st["runs"]
    man = json.loads((out / "manifest.json").read_text())
    assert not man["chapters"]["key_findings"]["complete"]
    handed = json.loads((out / "results.json").read_text())
    assert len(handed) == st["finished"]
    missing = man["chapters"]["key_findings"]["missing"]                   # the folder says what is left (issue 60)
    assert {m["key"] for m in missing} == set(man["chapters"]["key_findings"]["keys"]) - set(handed)
    from penb.call.archive import archive

    with pytest.raises(ValueError, match=f"holds {st['finished']} of the .*missing: {len(missing)}"):
        archive("key_findings", out, tmp_path / "never")
    monkeypatch.setattr(runner, "train_group", real)
    again = slicing.run(["key_findings"], 8, out, "smoke")             # the next call trains only the rest
    assert again["finished"] == again["runs"]


def test_a_slice_needs_none_of_the_notebook_machinery(store, tmp_path):
    """A bare GPU image has no papermill, jupytext, ipykernel, ipywidgets, myst-nb, rapidfuzz or submitit."""
    code = ("import sys\n"
            "for m in ('papermill', 'jupytext', 'ipykernel', 'ipywidgets', 'myst_nb', 'rapidfuzz', 'submitit',"
            " 'nbclient', 'nbformat', 'IPython'):\n"
            "    sys.modules[m] = None\n"
            "from penb.cli import main\n"
            f"sys.exit(main(['slice', 'key_findings', '--preset', 'smoke', '-p', 'cores', '[\"gru\"]', '--minutes', "
            f"'8', '--out', {str(tmp_path / 'out')!r}, '--quiet']))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads((tmp_path / "out" / "manifest.json").read_text())["chapters"]["key_findings"]["complete"]


# -- the archive ---------------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_an_archive_refuses_a_manifest_that_does_not_match_its_runs_and_executes_one_that_does(store, tmp_path):
    from penb.call.archive import archive

    out = tmp_path / "out"
    slicing.run(["key_findings"], 8, out, "smoke", overrides={"cores": ("gru",)})
    man = json.loads((out / "manifest.json").read_text())
    results = json.loads((out / "results.json").read_text())

    def variant(name, man_=man, results_=results):
        d = tmp_path / name
        d.mkdir()
        for f in out.iterdir():
            (d / f.name).write_bytes(f.read_bytes())
        (d / "manifest.json").write_text(json.dumps(man_))
        (d / "results.json").write_text(json.dumps(results_))
        return d

    with pytest.raises(ValueError, match="not frequency|runs of key_findings, not 'frequency'"):
        archive("frequency", out, tmp_path / "never")
    fewer = dict(list(results.items())[1:])
    with pytest.raises(ValueError, match="does not match its runs"):
        archive("key_findings", variant("fewer", results_=fewer), tmp_path / "never")
    other = json.loads(json.dumps(man))               # other parameters than the runs were made with
    other["chapters"]["key_findings"]["parameters"] = {"cores": ["gru"], "gru_vocab": [16, 32]}
    with pytest.raises(ValueError, match="does not match its runs"):
        archive("key_findings", variant("other", man_=other), tmp_path / "never")
    assert not (tmp_path / "never").exists()

    dest = archive("key_findings", out, tmp_path / "archived")
    assert {"key_findings.grades.json", "manifest.json", "results.json"} <= set(_files(dest))
    grades = json.loads((dest / "key_findings.grades.json").read_text())
    assert "morita.fig2.gru" in grades
    from penb.claims import archives

    shown = archives.view("key_findings", dest, presets.resolve("key_findings", "quick"), [])
    assert "preset 'smoke'" in shown["header"] and "budgets GRU 10, 20" in shown["header"]
    assert f"results are in {dest}/" in shown["header"]
    verdicts = [t for t in shown["tables"] if "archived (smoke)" in t.columns]
    assert len(verdicts) == 1 and set(verdicts[0].index) == set(grades)
    moved = shown["tables"][-2]                  # each recorded doubling move, from the grades' own evidence
    gru = grades["morita.fig2.gru"]["detail"]["doubling"]["moves"]
    assert {q for c, q in moved.index if c == "morita.fig2.gru"} == set(gru)
    assert list(shown["tables"][-1].columns) == ["10 updates", "20 updates"]       # each budget of the archive
    assert ((shown["tables"][-1] >= 0) & (shown["tables"][-1] <= 1)).all().all()


def test_the_earlier_budget_is_a_branch_of_the_same_trunk_and_shown_per_cell(store):
    """``earlier=1`` trains N/4 beside N/2 and N; the table's cell means equal the runs' own accuracies, averaged here
    independently from each run's result."""
    import numpy as np

    from penb.chapters import rnn_common
    from penb.chapters.key_findings import analysis

    cfg = presets.resolve("key_findings", "smoke", cores=("gru",), steps=40, warmup=2, earlier=1)
    frame = analysis.run(cfg, progress=False)
    curve = rnn_common.budget_curve(frame, cfg)
    assert list(curve.columns) == ["10 updates", "20 updates", "40 updates"]
    for (model, vocab, encoding), row in curve.iterrows():
        for n in (10, 20, 40):
            accs = [runs.load({**c, "steps": n}).metrics["token_accuracy"] for c in analysis.run_configs(cfg)
                    if c["vocab_size"] == vocab and c["encoding"] == encoding]
            assert row[f"{n} updates"] == pytest.approx(round(float(np.mean(accs)), 3))
    assert rnn_common.budget_curve(frame, cfg.replace(earlier=0)) is None


def test_the_scorecard_counts_what_archives_decided_apart_from_this_build(tmp_path):
    from penb.claims import archives

    for name, verdicts in (("key_findings-slice", {"morita.fig2.gru": "reproduced", "morita.fig2.lstm":
                                                   "inconclusive", "morita.fig2.level.gru": "not reproduced"}),
                           ("frequency-slice", {"morita.fig3.harm.gru": "not tested"})):
        a = tmp_path / name
        a.mkdir()
        chapter = name.rsplit("-", 1)[0]
        (a / "manifest.json").write_text(json.dumps({
            "chapter": chapter, "preset": "slice", "device": "cuda", "device_name": ["NVIDIA H100"],
            "commit": [CLEAN], "date": "2026-11-28T10:00:00+00:00", "updates": {"gru": 4000}}))
        (a / f"{chapter}.grades.json").write_text(json.dumps({k: {"verdict": v} for k, v in verdicts.items()}))
    table = [{"key": "morita.fig2.gru", "verdict": "inconclusive", "preset": "quick"},
             {"key": "morita.fig2.level.gru", "verdict": "not reproduced", "preset": "quick"}]
    text = "\n".join(archives.section(table, tmp_path))
    assert ("Decided by archives** (counted apart from this build's totals): 2 claims (1 reproduced, 0 direction "
            "only, 1 not reproduced); 1 of them undecided or not tested in this build.") in text
    assert [f.name for f in archives.of_chapter("frequency", tmp_path)] == ["frequency-slice"]


def test_the_gpu_check_runs_every_chapter_the_cuda_tests_and_a_slice(tmp_path):
    """scripts/gpu_check.py (make gpu-check): its steps name files that exist, every chapter of the book on the
    device where the chapter takes one, and it hands back no notebook (a GPU machine returns 8 files)."""
    import importlib.util

    from penb import notebook
    from penb.store import paths

    spec = importlib.util.spec_from_file_location("gpu_check", paths.REPO / "scripts" / "gpu_check.py")
    check = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(check)
    steps = check.steps("cuda", tmp_path)
    named = [s[0] for s in steps]
    assert named[:2] == ["cuda tests", "benchmark"] and named[-1] == "slice at smoke"
    assert [n.removeprefix("chapter ") for n in named[2:-1]] == notebook.book_chapters()
    for name, cmd, limit in steps:
        assert 0 < limit <= 150
        assert all((paths.REPO / a).exists() for a in cmd if a.endswith(".py") and "/" in a)
        if name.startswith("chapter "):
            ch = name.removeprefix("chapter ")
            assert ("device" in cmd) == ("device" in notebook.declared_parameters(ch))
            assert str(tmp_path) not in " ".join(cmd)              # notebooks go to a temporary folder
    assert sum(p.stat().st_size for p in tmp_path.rglob("*")) == 0


def test_a_second_call_on_a_fresh_machine_trains_only_the_rest_and_never_hands_back_less(tmp_path, monkeypatch):
    """A GPU machine starts bare: the runs the out folder holds go into its empty store first, and a call cut off
    sooner than the first leaves the folder with at least what it held (a stale temporary file is swept)."""
    monkeypatch.setenv("PENB_COMMIT", CLEAN)
    out = tmp_path / "out"
    monkeypatch.setenv("PENB_STORE", str(tmp_path / "first"))
    first = slicing.run(["key_findings"], 8, out, "smoke", overrides={"cores": ("gru",)})
    held = set(json.loads((out / "results.json").read_text()))
    assert first["finished"] == first["runs"] == len(held)
    (out / ".predictions-1.tar.abc.tmp").write_bytes(b"half")                # what a kill during a write leaves
    monkeypatch.setenv("PENB_STORE", str(tmp_path / "fresh"))
    p = slicing.contents(["key_findings"], "smoke", {"cores": ("gru",)})
    assert p["seconds"] > 0                                                   # nothing in the fresh store yet
    again = slicing.run(["key_findings"], 8, out, "smoke", overrides={"cores": ("gru",)},
                        clock=FakeClock(step=8 * 60))                         # past the deadline at once
    assert set(json.loads((out / "results.json").read_text())) == held and again["left"] == 0
    assert not list(out.glob(".*.tmp"))
    made = [f for f in (tmp_path / "fresh").rglob("*.pt") if "_trunks" not in f.parts]
    assert not made                                                           # nothing trained: all restored
    trunks = json.loads((out / "manifest.json").read_text())["trunks"]
    assert len(list((tmp_path / "fresh").rglob("_trunks/*/*.pt"))) == trunks["carried"]   # and the trunks
    assert slicing.contents(["key_findings"], "smoke", {"cores": ("gru",)})["seconds"] == 0


def test_a_branch_is_planned_as_its_decay_only_where_the_trunk_saves_that_point(store):
    """WSD: with the trunk's longest run to train, N/2 and N/4 cost their decay branch (penb.trunks.branch_points);
    a budget whose decay start is no branch point (N not divisible by 4) costs all its updates."""
    from penb.run_config import decay_start

    p = slicing.contents(["key_findings"], "smoke", {"cores": ("gru",), "steps": 40, "warmup": 2, "earlier": 1})
    got = {b["configs"][0]["steps"]: b["updates"] for b in p["batches"]}
    assert got == {40: 40, 20: 20 - decay_start(20, 0.2), 10: 10 - decay_start(10, 0.2)}
    odd = slicing.contents(["key_findings"], "smoke", {"cores": ("gru",), "steps": 42, "warmup": 2, "earlier": 1})
    got = {b["configs"][0]["steps"]: b["updates"] for b in odd["batches"]}
    assert got[42] == 42 and got[21] == 21 - decay_start(21, 0.2) and got[10] == 10     # 21 is odd: no N/4 point
    with pytest.raises(ValueError, match="earlier must be 0 or 1"):
        presets.resolve("key_findings", "smoke", steps=80, warmup=2, earlier=2)


def test_a_machine_slower_than_the_estimate_starts_no_batch_that_would_overrun(store, tmp_path, monkeypatch):
    """Each batch's estimate is scaled by how much slower than estimated the batches so far ran. Here an update
    takes 12 s (the estimate: a fraction of a second): the GRU's batch (20 updates) ends after 240 s, and the
    LSTM's, as long, would end past the 450 s the call has for training, so it is left for the next call (before the
    scaling it started, on an estimate of a fraction of a second); the short branch batches after it still fit."""
    from penb import runner

    clock, trained = FakeClock(step=0.5), []
    p = slicing.contents(["key_findings"], "smoke", {"cores": ("gru", "lstm")})
    updates = {(b["configs"][0]["core"], b["configs"][0]["steps"]): b["updates"] for b in p["batches"]}

    def slow(configs, store, progress=False, callback=None):
        trained.append((configs[0]["core"], configs[0]["steps"]))
        clock.t += 12.0 * updates[configs[0]["core"], configs[0]["steps"]]
        return {}
    monkeypatch.setattr(runner, "train_group", slow)
    slicing.run(["key_findings"], 8, tmp_path / "out", "smoke", overrides={"cores": ("gru", "lstm")}, clock=clock)
    assert [b["updates"] for b in p["batches"]][:2] == [20, 20]
    assert trained[0] == ("gru", 20) and ("lstm", 20) not in trained


def test_a_later_slice_continues_the_trunks_it_was_handed_to_the_next_doubling(tmp_path, monkeypatch):
    """Issue 50, item 4: a slice at N hands back each trunk's checkpoint at 0.8 N (trunk parts); a slice at 2N on a
    fresh machine, given that folder, trains each longest run from 0.8 N, not from 0, and its N and N/2 runs come
    restored. A trunk part's member outside the trunk folders is refused."""
    import tarfile

    from penb.call import archive
    from penb.run_config import decay_start

    monkeypatch.setenv("PENB_COMMIT", CLEAN)
    small = {"cores": ("gru",), "steps": 40, "warmup": 2, "earlier": 1}
    monkeypatch.setenv("PENB_STORE", str(tmp_path / "first"))
    first = slicing.run(["key_findings"], 8, tmp_path / "n", "smoke", overrides=small)
    man = json.loads((tmp_path / "n" / "manifest.json").read_text())
    assert first["left"] == 0 and man["trunks"]["carried"] == man["trunks"]["of"] > 0
    assert set(man["trunks"]["steps"].values()) == {decay_start(40, 0.2)}
    monkeypatch.setenv("PENB_STORE", str(tmp_path / "fresh"))
    again = slicing.run(["key_findings"], 8, tmp_path / "2n", "smoke", overrides={**small, "steps": 80},
                        source=tmp_path / "n")
    longest = [t for t in again["trained"] if t["steps"] == 80]
    assert longest and all(t["from"] == decay_start(40, 0.2) and t["to"] == 80 for t in longest)
    assert not [t for t in again["trained"] if t["steps"] == 40]               # N: restored, not retrained
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "x.pt").write_bytes(b"x")
    with tarfile.open(bad / "trunks-1.tar", "w") as tar:
        tar.add(bad / "x.pt", arcname="../../escape.pt")
    with pytest.raises(ValueError, match="not a trunk checkpoint"):
        archive.restore_trunks(bad)
    other = tmp_path / "other"                                              # only the parts are read
    other.mkdir()
    (bad / "trunks-1.tar").rename(other / "trunks.tar")
    assert archive.restore_trunks(other) == 0

