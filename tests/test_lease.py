"""The GPU lease in short steps (penb.call.lease): a step stops at its minutes and the next resumes; the budget holds;
the collected folder has no checkpoints; a step needs none of the notebook machinery; an archive reads CUDA runs on
a CPU without training anything.

Time is a fake clock (one second per reading), so what a step trains never depends on this machine's load."""
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import numpy as np
import pytest

from penb import runner
from penb import metrics
from penb.store.paths import checkpoints
from penb.call import lease
from penb import runs
from penb.device import ARCHIVED

# smoke: 1 vocabulary x 2 encodings x 2 seeds = 4 runs of 20 updates; these tests time the lease's steps, so
# without protocol 4's half budgets (test_the_plan_trains_each_run_before_its_half_budget has them)
GRU_ONLY = {"cores": ("gru",), "doubling": False}


class FakeClock:
    """Seconds that advance by one at every reading: a step's updates are counted, not timed."""

    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        self.t += 1.0
        return self.t


CLEAN = "0123456789abcdef0123456789abcdef01234567"     # a clean commit, as a step from main would name


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("PENB_STORE", str(tmp_path / "store"))
    monkeypatch.setenv("PENB_COMMIT", CLEAN)         # the tests run from a working tree that may be dirty
    return tmp_path / "store"


@pytest.mark.parametrize("commit", ["3a2a3dd+dirty", "", "not-a-commit"])
def test_a_step_from_a_dirty_tree_is_refused_before_anything_trains(store, monkeypatch, commit):
    """Issue 36: an archive must name a tree a reader can check out; the one archive before named
    '3a2a3dd+dirty'."""
    from penb.store import identity

    monkeypatch.delenv("PENB_COMMIT")
    monkeypatch.setattr(identity, "git_commit", lambda: commit)
    with pytest.raises(ValueError, match="refusing a lease step"):
        lease.step("key_findings", "smoke", GRU_ONLY, budget_min=30, step_min=20, progress=False, clock=FakeClock())
    assert not store.exists() or not list(store.rglob("result.json"))


def test_an_archive_of_a_dirty_tree_is_refused(store, tmp_path):
    out = tmp_path / "out"
    lease.step("key_findings", "smoke", GRU_ONLY, budget_min=30, step_min=20, out=out, progress=False,
               clock=FakeClock())
    assert json.loads((out / "manifest.json").read_text())["commit"] == [CLEAN]
    man = json.loads((out / "manifest.json").read_text())
    (out / "manifest.json").write_text(json.dumps({**man, "commit": ["3a2a3dd+dirty"]}))
    with pytest.raises(ValueError, match="no reader can check out"):
        lease.archive("key_findings", out, tmp_path / "dest")


def _files(folder: Path) -> set:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


def test_a_step_stops_at_its_minutes_and_the_next_resumes(store, tmp_path):
    out, clock = tmp_path / "out", FakeClock()
    cfg, configs = lease.ordered_runs("key_findings", "smoke", GRU_ONLY)
    assert [(c["seed"], c["encoding"]) for c in configs][:2] == [(2001, "none"), (2001, "sinusoidal")]   # pairs

    first = lease.step("key_findings", "smoke", GRU_ONLY, budget_min=10, step_min=0.5, out=out, clock=clock,
                       progress=False)                                    # 30 fake seconds: about 1.5 runs
    assert first["code"] == lease.AGAIN and first["left"] == 3
    cut = first["trained"][-1]
    assert 0 < cut["to"] < 20 and cut["from"] == 0
    d = store / "rnn" / cut["key"]
    assert runs.status(configs[1]) == "partial" and checkpoints(d)[-1][0] == cut["to"]

    man = json.loads((out / "manifest.json").read_text())
    assert (man["complete"], man["finished"], man["runs"]) == (False, 1, 4)
    assert _files(out) == {"manifest.json", "results.json", "predictions.tar"}

    second = lease.step("key_findings", "smoke", GRU_ONLY, budget_min=10, step_min=5, out=out, clock=clock,
                        progress=False)
    assert second["code"] == lease.DONE and second["left"] == 0
    resumed = second["trained"][0]
    assert (resumed["key"], resumed["from"], resumed["to"]) == (cut["key"], cut["to"], 20)   # not from 0

    # the resumed run is the run trained in one go (CPU, one thread: bit for bit)
    whole = runner.run(configs[1], store=tmp_path / "other", progress=False)
    assert runs.load(configs[1]).metrics == whole.metrics and runs.load(configs[1]).history == whole.history

    man = json.loads((out / "manifest.json").read_text())
    assert (man["complete"], man["finished"], man["device"], man["updates"]) == (True, 4, "cpu", {"gru": 20})
    assert man["seeds"] == [2001, 2002] and man["preset"] == "smoke" and man["parameters"] == {"cores": ["gru"], "doubling": False}
    steps = man["ledger"]["steps"]
    assert len(steps) == 2 and man["spent_min"] == pytest.approx(sum(s["minutes"] for s in steps), abs=1e-3)
    assert not [f for f in _files(out) if f.endswith(".pt")]
    with tarfile.open(out / "predictions.tar") as tar:
        assert sorted(tar.getnames()) == sorted(f"{k}/predictions.npz" for k in json.loads(
            (out / "results.json").read_text()))

    third = lease.step("key_findings", "smoke", GRU_ONLY, budget_min=10, step_min=5, clock=clock, progress=False)
    assert third["code"] == lease.DONE and third["trained"] == []


def test_the_plan_trains_each_run_before_its_half_budget():
    cfg, configs = lease.ordered_runs("key_findings", "smoke", {"cores": ("gru",)})
    assert cfg.doubling and cfg.schedule == "wsd" and len(configs) == 8
    halves = [i for i, c in enumerate(configs) if c["steps"] == 10]
    assert len(halves) == 4
    for i in halves:                                 # N before its N/2: the half is a branch off N's trunk
        assert {**configs[i], "steps": 20} in configs[:i]


def test_the_budget_holds_over_steps(store):
    clock = FakeClock()
    first = lease.step("key_findings", "smoke", GRU_ONLY, budget_min=0.4, step_min=0.4, clock=clock, progress=False)
    assert first["code"] == lease.SPENT and first["left"] > 0
    again = lease.step("key_findings", "smoke", GRU_ONLY, budget_min=0.4, step_min=0.4, clock=clock, progress=False)
    assert again["code"] == lease.SPENT and again["trained"] == [] and again["left"] == first["left"]
    more = lease.step("key_findings", "smoke", GRU_ONLY, budget_min=10, step_min=5, clock=clock, progress=False)
    assert more["code"] == lease.DONE


def test_a_fresh_machine_takes_the_finished_runs_and_the_minutes_spent(store, tmp_path, monkeypatch):
    clock, out = FakeClock(), tmp_path / "out"
    lease.step("key_findings", "smoke", GRU_ONLY, budget_min=10, step_min=0.5, out=out, clock=clock, progress=False)
    monkeypatch.setenv("PENB_STORE", str(tmp_path / "fresh"))                # the machine was given back
    st = lease.step("key_findings", "smoke", GRU_ONLY, budget_min=10, step_min=5, source=out, clock=clock,
                    progress=False)
    assert st["code"] == lease.DONE and len(st["trained"]) == 3             # the finished run was not retrained
    assert st["spent_min"] > 0.5


def test_the_lease_preset_refuses_a_machine_without_cuda(store, monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(ValueError, match="no CUDA"):
        lease.step("key_findings", budget_min=16, step_min=8)
    with pytest.raises(ValueError, match="step-min"):
        lease.step("key_findings", "smoke", budget_min=1, step_min=2)


# Not on the GPU machine, and not needed by a step. (submitit is not there either, but it is still imported by
# penb.executors at module level, which every chapter's analysis imports through the claims registry: the lease
# never calls it, and the GPU commands in the README carry its pure-Python wheel until the executors split.)
BLOCK = ("papermill", "jupytext", "rapidfuzz", "ipykernel", "nbclient", "nbformat", "jupyter_client", "myst_nb",
         "IPython")
NO_NOTEBOOKS = f"""
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {BLOCK!r}:
            raise ImportError("not on the GPU machine: " + name)
sys.meta_path.insert(0, Block())
from penb.cli import main
code = main(sys.argv[1:])
print("LOADED", sorted(m for m in sys.modules if m.split(".")[0] in {BLOCK!r}))
sys.exit(code)
"""


def test_a_step_runs_without_the_notebook_machinery(store, tmp_path):
    """As on a GPU machine without papermill, jupytext, rapidfuzz, ...: a whole lease in one step
    (real time, but minutes for seconds of work), and the distances from the plain-Python fallback."""
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-c", NO_NOTEBOOKS, "lease", "key_findings", "--preset", "smoke", "-p",
                           "cores", "('gru',)", "--budget-min", "30", "--step-min", "20", "--out", str(out),
                           "--quiet"], capture_output=True, text=True, env={**os.environ, "PENB_STORE": str(store)})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "LOADED []" in proc.stdout and "8 of 8 runs done" in proc.stdout   # with the N/2 runs
    results = json.loads((out / "results.json").read_text())
    for key, result in results.items():
        with np.load(store / "rnn" / key / "predictions.npz") as f:                 # rapidfuzz, here
            assert result["metrics"]["mean_distance"] == metrics.mean_distance(f["predictions"], f["targets"])


def _as_cuda(source: Path, dest: Path, monkeypatch) -> None:
    """A collected folder of CPU runs rewritten as if trained on a GPU elsewhere (keys, configs, environment)."""
    monkeypatch.setenv(ARCHIVED, "cuda")
    results, found = {}, json.loads((source / "results.json").read_text())
    dest.mkdir()
    with tarfile.open(source / "predictions.tar") as old, tarfile.open(dest / "predictions.tar", "w") as new:
        for key, r in found.items():
            r["config"]["device"] = "cuda"
            r["environment"].update(device="cuda", device_name="Fake GPU 80GB")
            k = runs.key(r["config"])
            results[k] = r
            data = old.extractfile(f"{key}/predictions.npz")
            info = tarfile.TarInfo(f"{k}/predictions.npz")
            info.size = old.getmember(f"{key}/predictions.npz").size
            new.addfile(info, data)
    (dest / "results.json").write_text(json.dumps(results))
    man = json.loads((source / "manifest.json").read_text())
    man.update(device="cuda", device_name=["Fake GPU 80GB"], parameters={**man["parameters"], "device": "auto"})
    (dest / "manifest.json").write_text(json.dumps(man))
    monkeypatch.delenv(ARCHIVED)


def test_nothing_trains_while_an_archive_is_read(store, monkeypatch):
    monkeypatch.setenv(ARCHIVED, "cuda")
    _, configs = lease.ordered_runs("key_findings", "smoke", {**GRU_ONLY, "device": "auto"})
    assert configs[0]["device"] == "cuda"                       # read as CUDA runs on a machine without CUDA
    with pytest.raises(ValueError, match="nothing trains here"):
        runner.run(configs[0], progress=False)
    assert not list(store.rglob("*.pt"))


@pytest.mark.slow
def test_archive_executes_the_chapter_on_cuda_runs_without_cuda(store, tmp_path, monkeypatch):
    import torch

    from penb.chapters.key_findings import archived

    out = tmp_path / "out"
    st = lease.step("key_findings", "smoke", GRU_ONLY, budget_min=30, step_min=20, out=out, progress=False,
                    clock=FakeClock())
    assert st["code"] == lease.DONE
    _as_cuda(out, tmp_path / "gpu", monkeypatch)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(ValueError, match="1 of the 4 runs"):
        man = json.loads((tmp_path / "gpu" / "manifest.json").read_text())
        (tmp_path / "part").mkdir()
        (tmp_path / "part" / "manifest.json").write_text(json.dumps({**man, "complete": False, "finished": 1}))
        lease.archive("key_findings", tmp_path / "part", tmp_path / "never")

    dest = lease.archive("key_findings", tmp_path / "gpu", tmp_path / "archived")
    assert _files(dest) == {"key_findings.ipynb", "key_findings.status.json", "key_findings.grades.json",
                            "manifest.json", "results.json"}                     # no checkpoints, no predictions
    status = json.loads((dest / "key_findings.status.json").read_text())
    assert status["device"] == "cuda" and status["runs"]["trained"] == 0 and status["runs"]["used"] == 4
    assert "4 runs: 4 found in the run store, 0 to train" in (dest / "key_findings.ipynb").read_text()
    assert json.loads((dest / "manifest.json").read_text())["archived"]["commit"] is not None

    shown = archived.load(folder=dest)
    assert "Archived GPU execution" in shown["header"] and "Fake GPU 80GB (cuda)" in shown["header"]
    summary, verdicts = shown["tables"]
    assert len(summary) == 2 and set(summary["seeds"]) == {2}
    assert "morita.fig2.gru" in verdicts.index
    assert archived.load(folder=tmp_path / "absent")["tables"] == []
    assert "uncommitted tree" not in shown["header"]


def test_the_committed_archive_says_its_tree_cannot_be_checked_out():
    """The one archive before issue 36 names '3a2a3dd+dirty': the page says so beside its verdicts."""
    from penb.chapters.key_findings import archived

    man = json.loads((archived.FOLDER / "manifest.json").read_text())
    shown = archived.load(folder=archived.FOLDER)
    assert any("+dirty" in c for c in man["commit"]) == ("uncommitted tree" in shown["header"])
