"""One command per GPU call (issue 50): the wheel set, the import check, the gpu-check budget, and the device run
rehearsed on the CPU end to end (a clean commit accepted; a changed file or a wrong hash refused)."""
import json
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from penb.call import device_run
from penb.store import paths

REPO = paths.REPO


def load_script(name):
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_wheel_set_drops_the_images_packages_and_keeps_matplotlib_inline(tmp_path):
    names = ["matplotlib-3.11.2-cp312-cp312-manylinux_2_28_x86_64.whl", "matplotlib_inline-0.1.7-py3-none-any.whl",
             "torch-2.11.0-cp312-cp312-manylinux_2_28_x86_64.whl", "nvidia_cublas_cu12-12.4-py3-none-any.whl",
             "typing_extensions-4.12.2-py3-none-any.whl", "docutils-0.21.2-py3-none-any.whl",
             "PyYAML-6.0.2-cp312-cp312-manylinux_2_17_x86_64.whl"]
    for n in names:
        (tmp_path / n).write_bytes(b"")
    subprocess.run(["bash", "scripts/gpu_wheels.sh", str(tmp_path), "--prune-only"], cwd=REPO, check=True,
                   capture_output=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(names[i] for i in (1, 5))


def fake_wheel(folder, name, files):
    with zipfile.ZipFile(folder / f"{name}-1.0-py3-none-any.whl", "w") as z:
        for path, text in files.items():
            z.writestr(path, text)
        z.writestr(f"{name}-1.0.dist-info/METADATA", "")


def test_the_import_check_finds_what_a_wheel_imports_and_nothing_provides(tmp_path, monkeypatch):
    check = load_script("import_check")
    monkeypatch.setattr(check, "KERNEL", ["kern"])
    fake_wheel(tmp_path, "kern", {"kern/__init__.py": "from . import glue\nimport json\n",
                                  "kern/glue.py": "import docutils.utils\ntry:\n    import notthere\nexcept "
                                                  "ImportError:\n    pass\n\ndef f():\n    import lazymod\n"})
    missing = check.check(tmp_path)
    assert "docutils" in missing and "notthere" not in missing and "lazymod" not in missing
    fake_wheel(tmp_path, "docutils", {"docutils/__init__.py": "", "docutils/utils.py": "import os\n"})
    assert "docutils" not in check.check(tmp_path)


@pytest.mark.slow
def test_the_real_wheel_set_imports_every_chapter_under_python_312(tmp_path):
    """make gpu-wheels' set for the GPU image (PyPI, as set-up) and the static check under Python 3.12."""
    found = [str(p) for p in sorted(Path("/root/.pyenv/versions").glob("3.12*/bin/python"))] + [
        shutil.which("python3.12") or ""]
    py312 = next((p for p in found if p and subprocess.run([p, "--version"], capture_output=True).returncode == 0),
                 None)
    if py312 is None:
        pytest.skip("no Python 3.12 on this machine (pyenv's 3.12 is what the GPU image runs)")
    subprocess.run(["bash", "scripts/gpu_wheels.sh", str(tmp_path / "whl")], cwd=REPO, check=True,
                   capture_output=True)
    proc = subprocess.run([str(py312), "scripts/import_check.py", str(tmp_path / "whl")], cwd=REPO,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "every import found" in proc.stdout and "Python 3.12" in proc.stdout


def test_the_gpu_check_steps_fit_its_budget_on_a_fake_clock(tmp_path):
    """Every step runs to its limit (the worst case): the steps together still end inside --budget."""
    check = load_script("gpu_check")
    now = [0.0]

    def runner(cmd, timeout, **kw):
        now[0] += timeout                                     # each step takes all it is allowed
        raise subprocess.TimeoutExpired(cmd, timeout)
    steps = [(f"step {i}", ["true"], 150) for i in range(9)]
    done = check.run_steps(steps, tmp_path, 540.0, {}, clock=lambda: now[0], runner=runner)
    assert now[0] <= 540.0 - check.CLOSE_S
    assert sum(d.get("limit", 0) for d in done) <= 540.0
    assert done[0]["limit"] == 150 and done[-1]["status"] == "not run (out of budget)"


def git_copy(tmp_path):
    """The tracked files of this checkout as a fresh git repository with one commit (a clean 'main')."""
    repo = tmp_path / "repo"
    files = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout.split()
    for f in files:
        if (REPO / f).is_file():
            (repo / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / f, repo / f)
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "clean"]):
        subprocess.run(["git", *cmd], cwd=repo, check=True, env={**env, "PATH": "/usr/bin:/bin"})
    return repo


def test_the_tree_check_accepts_the_commit_and_refuses_a_changed_file_or_a_wrong_hash(tmp_path):
    repo = git_copy(tmp_path)
    out = device_run.pack(repo, shared=tmp_path / "no-shared")
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True).stdout.strip()
    assert device_run.verify(repo) == head
    tree = json.loads((out / "tree.json").read_text())
    assert tree["files"]["penb/trainer/update.py"] == subprocess.run(
        ["git", "hash-object", "penb/trainer/update.py"], cwd=repo, capture_output=True, text=True).stdout.strip()
    (repo / "penb" / "trainer" / "update.py").write_text("# changed\n")
    with pytest.raises(ValueError, match="not commit .* 1 file\\(s\\) changed.*update.py"):
        device_run.verify(repo)
    with pytest.raises(ValueError, match="uncommitted changes"):
        device_run.pack(repo)
    subprocess.run(["git", "checkout", "-q", "--", "."], cwd=repo, check=True)
    tree["files"]["README.md"] = "0" * 40                     # a hash of another commit's file
    (out / "tree.json").write_text(json.dumps(tree))
    with pytest.raises(ValueError, match="README.md"):
        device_run.verify(repo)


@pytest.mark.slow
def test_the_device_run_rehearsed_on_the_cpu_makes_an_archive_the_chapter_shows(tmp_path, monkeypatch):
    """python -m penb device-run at smoke on the CPU, end to end inside its budget: preflight, tree, slice, tests
    (a quick test file stands in for the CUDA tests); at most 8 files; the archive accepted and shown."""
    from penb.call.archive import archive
    from penb.claims import archives
    from penb import presets

    repo = git_copy(tmp_path)
    device_run.pack(repo)
    monkeypatch.setenv("PENB_STORE", str(tmp_path / "store"))
    monkeypatch.setenv("PENB_COMMIT", "")
    monkeypatch.delenv("PENB_WIKITEXT_DIR", raising=False)      # the run sets it for its own process: undone after
    monkeypatch.setattr(device_run, "TESTS", ["tests/test_atomic.py"])
    out = tmp_path / "out"
    record = device_run.run(out, ["key_findings"], 300, "cpu", "smoke", {"cores": ("gru",)}, repo=repo)
    assert [s["step"] for s in record["steps"]] == ["preflight", "tree", "slice", "cuda tests"]
    assert all(s["status"] == "passed" for s in record["steps"]), record["steps"]
    assert sum(s["seconds"] for s in record["steps"]) < 300
    files = sorted(p.name for p in out.iterdir())
    assert len(files) <= device_run.MAX_FILES and "device_run.json" in files and "manifest.json" in files
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True).stdout.strip()
    assert json.loads((out / "manifest.json").read_text())["commit"] == [head]
    dest = archive("key_findings", out, tmp_path / "archived")
    shown = archives.view("key_findings", dest, presets.resolve("key_findings", "quick"), [])
    assert "preset 'smoke'" in shown["header"]


def test_device_run_refuses_a_machine_without_cuda_and_a_tree_without_its_pack(tmp_path, monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(ValueError, match="no CUDA"):
        device_run.run(tmp_path / "out", ["key_findings"], repo=tmp_path)
    with pytest.raises(ValueError, match="device-pack"):
        device_run.run(tmp_path / "out", ["key_findings"], device="cpu", repo=tmp_path)


def test_the_slice_sizes_itself_by_the_measured_rate(tmp_path, monkeypatch):
    """penb.call.fit on a fake device: a measured rate picks the largest base N x 2^j that fits; a faster
    device a larger j; the manifest records the rates, j and the estimate; too slow a device trains less and says
    why (issue 60: never refused)."""
    from penb.call import slice as slicing
    from penb.call import fit as call_fit

    monkeypatch.setenv("PENB_STORE", str(tmp_path / "store"))
    monkeypatch.setenv("PENB_COMMIT", "0123456789abcdef0123456789abcdef01234567")
    ov = {"cores": ("gru",)}
    base = call_fit.base_budgets("key_findings", "smoke", ov)
    assert base == {"gru": 20}

    def chosen(seconds_per_update, minutes=2.0):
        return call_fit.size(["key_findings"], "smoke", ov, minutes, slicing.contents, slicing.OVERHEAD_S,
                                 timer=lambda c: seconds_per_update, clock=lambda: 0.0)

    # 2 minutes - 60 s overhead = 60 s; trunk N plus the N/2 and N/4 branches (0.1 N and 0.05 N): about 1.15 N updates
    slow, fast = chosen(0.2), chosen(0.05)
    assert slow["j"] < fast["j"] <= call_fit.J_MAX
    for s, rate in ((slow, 0.2), (fast, 0.05)):
        n = 20 * 2 ** s["j"]
        assert {c["steps"] for b in s["plan"]["batches"] for c in b["configs"]} <= {n, n // 2, n // 4}
        assert s["estimate_s"] + slicing.OVERHEAD_S <= 120                     # it fits ...
        bigger = call_fit.overrides_at("key_findings", "smoke", s["j"] + 1, ov)
        more = sum(b["updates"] for b in slicing.contents(["key_findings"], "smoke", bigger)["batches"]) * rate
        assert s["j"] == call_fit.J_MAX or more + slicing.OVERHEAD_S > 120  # ... and the next j would not
    crawl = chosen(10.0)                                 # 10 s an update: not even N = 20 fits 60 s
    assert crawl["fallbacks"] and crawl["plan"]["batches"] and crawl["j"] == 0
    assert "not even j = 0 fits" in crawl["fallbacks"][0]["why"]
    out = tmp_path / "out"
    slicing.run(["key_findings"], 2.0, out, "smoke", ov, sized=True, timer=lambda c: 0.01)
    man = json.loads((out / "manifest.json").read_text())
    assert man["sizing"]["j"] >= 1 and man["sizing"]["seconds_per_update"] and man["overhead_s"] == 60.0
    assert man["chapters"]["key_findings"]["complete"]


def test_a_batch_compiles_where_its_updates_pay_and_the_slice_charges_it_so(monkeypatch):
    """penb.trainer.policy.compiles: on CUDA a stacked batch with 2,000 updates or more to go (the H200's 85-92 s
    compile against a 2x faster update), never the one-run module, never the CPU (batch_pays: a GRU batch of 4 runs
    and 200 updates to go, eager); PENB_COMPILE overrides "auto" and a bad value is
    refused; penb.call.fit.estimate charges an eager batch its measured seconds and a compiled one 120 s plus its
    eager seconds over the speed-up measured at its K (10.6x at 10, 2x at 1,024, log-linear between), and a batch
    compiles only where that is below its eager seconds (issue 60), unless PENB_COMPILE=always forces it."""
    import torch

    from penb.call import fit as call_fit
    from penb.trainer import policy

    cuda, cpu = torch.device("cuda"), torch.device("cpu")
    monkeypatch.delenv("PENB_COMPILE", raising=False)
    assert not policy.compiles(cuda, "stacked", 30, 1999) and policy.compiles(cuda, "stacked", 30, 2000)
    assert not policy.compiles(cuda, "module", 1, 10 ** 6)
    assert not policy.compiles(cpu, "stacked", 64, 10 ** 6)                   # the CPU's eager batch is faster
    gru = [{"device": "cpu", "core": "gru"}]
    assert not policy.batch_pays(gru * 3, 10 ** 6) and policy.batch_pays(gru * 4, 200)
    lstm = [{"device": "cpu", "core": "lstm"}]
    assert not policy.batch_pays(gru * 18, 199) and not policy.batch_pays(lstm * 18, 4000)
    small, big = [{"device": "cpu", "core": "lstm", "hidden": 64}], [{"device": "cpu", "core": "lstm", "hidden": 128}]
    assert policy.batch_pays(small * 4, 200) and not policy.batch_pays(small * 3, 200)   # appendix A's LSTM: 1.24x at 4
    assert not policy.batch_pays(big * 18, 4000)                                        # key findings': 0.93x at 18
    monkeypatch.setenv("PENB_COMPILE", "never")
    assert not policy.compiles(cuda, "stacked", 30, 10 ** 6)
    assert policy.compiles(cuda, "stacked", 30, 10 ** 6, when="always")        # an explicit choice stands
    monkeypatch.setenv("PENB_COMPILE", "always")
    assert policy.compiles(cpu, "stacked", 2, 5)
    monkeypatch.setenv("PENB_COMPILE", "sometimes")
    with pytest.raises(ValueError, match="PENB_COMPILE"):
        policy.compiles(cpu, "stacked", 2, 5)
    monkeypatch.delenv("PENB_COMPILE")
    gpu_batch = [{"device": "cuda"}] * 30
    assert call_fit.estimate(gpu_batch, 1000, 0.02) == pytest.approx(20.0)
    import math
    between = math.exp(math.log(10.6) + math.log(30 / 10) / math.log(1024 / 10) * math.log(2.0 / 10.6))
    # 4,000 updates of 20 ms: 80 s eager; compiled, 120 s plus the rest over the speed-up: more, so eager
    assert 120.0 + 80.0 / between > 80.0
    assert call_fit.estimate(gpu_batch, 4000, 0.02) == pytest.approx(80.0)
    assert call_fit.compile_for(gpu_batch, 4000, 0.02) == "never"
    # 40,000 updates: 800 s eager against 120 + 800 / speed-up: compiled
    assert call_fit.estimate(gpu_batch, 40_000, 0.02) == pytest.approx(120.0 + 800.0 / between)
    assert call_fit.compile_for(gpu_batch, 40_000, 0.02) == "always"
    assert call_fit.estimate(gpu_batch[:5], 40_000, 0.02) == pytest.approx(120.0 + 800.0 / 10.6)  # flat below 10
    assert call_fit.estimate([{"device": "cuda"}] * 4096, 40_000, 0.02) == pytest.approx(120.0 + 400.0)
    assert call_fit.estimate([{"device": "cpu"}] * 4, 4000, 0.02) == pytest.approx(80.0)
    assert call_fit.compile_for([{"device": "cpu"}] * 4, 40_000, 0.02) == "never"
    monkeypatch.setenv("PENB_COMPILE", "always")                              # forced: charged as compiled
    assert call_fit.estimate(gpu_batch, 4000, 0.02) == pytest.approx(120.0 + 80.0 / between)
    assert call_fit.compile_for(gpu_batch, 4000, 0.02) == "always"
