"""A device call that always pays (issue 60): its limits defined once, a sizing that never trains nothing, and a
folder that stays within what the device tool hands back and carries in."""
import ast
import os
from pathlib import Path

import pytest

from penb.call import device_run, limits as call_limits
from penb.store import paths

REPO = paths.REPO
LIMITS = [n.targets[0].id for n in ast.parse(Path(call_limits.__file__).read_text()).body
          if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Name)]


def test_each_call_limit_is_defined_once():
    """Every module of penb that holds a limit's name holds the very object penb.call.limits defines (it imported
    it, rather than writing a value of its own); since Python shares small ints, no module or script assigns one of
    those names itself either."""
    import importlib
    import pkgutil

    import penb

    assert {"CALL_BUDGET_S", "MAX_FILES", "FILE_BYTES", "PART_BYTES", "CARRY_BYTES", "OVERHEAD_S"} <= set(LIMITS)
    own, seen = [], 0
    for info in pkgutil.walk_packages(penb.__path__, "penb."):
        if info.name.endswith("__main__"):
            continue
        m = importlib.import_module(info.name)
        for name in LIMITS:
            if m is not call_limits and hasattr(m, name):
                seen += 1
                if getattr(m, name) is not getattr(call_limits, name):
                    own.append((info.name, name))
    assert seen >= 3 and not own, own                 # the limits are read elsewhere, and always as imported
    for f in [*(REPO / "scripts").glob("*.py"), *(p for p in (REPO / "penb").rglob("*.py")
                                                   if p != Path(call_limits.__file__))]:
        for node in ast.parse(f.read_text()).body:
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                assert not [t.id for t in targets if isinstance(t, ast.Name) and t.id in LIMITS], f.name
    script = (REPO / "scripts" / "device_call.sh").read_text()
    assert "penb.call.limits" in script and "560" not in script and "540" not in script
    # the device tool's own limits, written out here (not read from the module under test)
    assert call_limits.MAX_FILES == 8 and call_limits.FILE_BYTES == 16 * 2 ** 20
    assert call_limits.CARRY_BYTES == 64 * 2 ** 20 and call_limits.CALL_BUDGET_S < 600
    assert call_limits.PART_BYTES < call_limits.FILE_BYTES


def _sparse(path: Path, size: int) -> None:
    with open(path, "wb") as f:
        f.truncate(size)


def test_the_folder_check_reads_files_parts_and_the_carry(tmp_path):
    mib = 2 ** 20
    ok = tmp_path / "ok"
    ok.mkdir()
    for i in range(4):
        _sparse(ok / f"part-{i}.tar", 15 * mib)                            # 60 MiB in 4 files: carried back in
    device_run.check_out(ok)
    big = tmp_path / "big"
    big.mkdir()
    _sparse(big / "one.tar", 17 * mib)                                      # one file over 16 MiB
    with pytest.raises(ValueError, match="over 16 MiB"):
        device_run.check_out(big)
    full = tmp_path / "full"
    full.mkdir()
    for i in range(5):
        _sparse(full / f"part-{i}.tar", 15 * mib)                           # 75 MiB: more than a call carries in
    with pytest.raises(ValueError, match="64 MiB in all"):
        device_run.check_out(full)
    many = tmp_path / "many"
    many.mkdir()
    for i in range(9):
        (many / f"f{i}").write_bytes(b"x")
    with pytest.raises(ValueError, match="9 files"):
        device_run.check_out(many)


@pytest.mark.parametrize("factor", [0.3, 1.0, 3.0])
@pytest.mark.parametrize("mode", ["eager", "compiled"])
def test_the_sizing_never_trains_nothing(tmp_path, monkeypatch, factor, mode):
    """The slice preset of key findings in one call's minutes, at 0.3x, 1x and 3x the table's rates
    (penb.executors.cost), eager, and compiled as on CUDA (each batch charged the compile allowance): a plan with
    at least one batch; where it is not the rule's first choice, every step down is recorded with why; a plan that
    does not fit is one batch, cut by the deadline."""
    from penb.call import slice as slicing
    from penb.call import fit as call_fit
    from penb.executors.cost import batch_update_seconds
    from penb.executors import cost as policy

    monkeypatch.setenv("PENB_STORE", str(tmp_path / "store"))
    if mode == "compiled":
        monkeypatch.setenv("PENB_COMPILE", "always")
        real = policy.chosen_seconds
        monkeypatch.setattr(policy, "chosen_seconds",
                            lambda device, *a, **k: real(__import__("torch").device("cuda"), *a, **k))

    def timer(configs):
        return factor * batch_update_seconds(configs[0], len(configs))[0]

    minutes = call_limits.CALL_BUDGET_S / 60 - 1
    s = call_fit.size(["key_findings"], "slice", {"device": "cpu"}, minutes, slicing.contents, slicing.OVERHEAD_S,
                          timer=timer, clock=lambda: 0.0)
    batches = s["plan"]["batches"]
    assert batches and sum(b["updates"] for b in batches) > 0
    budget = minutes * 60 - slicing.OVERHEAD_S
    if s["fits"]:
        assert s["estimate_s"] <= budget + 0.1
    else:
        assert len(batches) == 1 and s["fallbacks"]
    for f in s["fallbacks"]:
        assert f["tried"] and f["why"] and f["needs_min"] > 0
    if s["fallbacks"]:                                  # it only trains less where the rule's own j did not fit
        assert s["fallbacks"][0]["needs_min"] > minutes
    if mode == "eager" and factor == 0.3:
        assert s["fallbacks"] == [] and s["j"] >= 1      # a fast device: the rule's own choice
    if mode == "compiled" and factor == 3.0:
        assert s["fallbacks"]                            # 120 s a compiled batch: the ladder is taken


# -- the rehearsal: the real script, twice, on the CPU, as the device image would run it ---------------------------
# The device image has none of these (the guide; penb.call.device_run's wheel set): blocked from import at start-up.
IMAGE_LACKS = ("papermill", "jupytext", "ipykernel", "myst_nb", "matplotlib_inline", "docutils", "nbclient",
               "nbformat", "jupyter_client", "IPython")
BLOCKER = f"""import sys
class _Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {IMAGE_LACKS!r}:
            raise ImportError("not on the device image: " + name)
sys.meta_path.insert(0, _Block())
"""


def _call(repo: Path, out: Path, store: Path, block: Path, chapters: str, source: str = "") -> dict:
    import json
    import subprocess
    import sys

    env = {**os.environ, "PENB_STORE": str(store), "PYTHONPATH": str(block), "PY": sys.executable, "DEV": "cpu",
           "PRESET": "smoke", "NO_TESTS": "1", "PROBE_COMPILE": "never", "PARAMS": "-p cores ('gru',)",
           "PENB_REHEARSAL_RATE": "0.2", "BUDGET": "240", "OUT": str(out), "CHAPTERS": chapters, "FROM": source}
    env.pop("PENB_COMMIT", None)
    proc = subprocess.run(["bash", "scripts/device_call.sh"], cwd=repo, env=env, capture_output=True, text=True,
                          timeout=400)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return json.loads((out / "run" / "device_run.json").read_text())


@pytest.mark.slow
def test_two_calls_rehearsed_on_the_cpu_continue_each_other(tmp_path):
    """scripts/device_call.sh on the CPU at smoke (the GRU), with the packages the device image lacks blocked: the
    tree checked first; a second call on a fresh store, given the first's folder (FROM) and one more chapter,
    restores the first's finished runs and trains none of them again; each folder within what a call hands back,
    and accepted by penb archive where its chapter is complete (on a loaded machine the wall-clock budget may leave
    runs for a next call: the archive then refuses in one line)."""
    import json

    from tests.test_device_run import git_copy
    from penb.call.archive import archive, manifest

    repo = git_copy(tmp_path)
    device_run.pack(repo, shared=tmp_path / "no-shared")
    block = tmp_path / "block"
    block.mkdir()
    (block / "sitecustomize.py").write_text(BLOCKER)
    one = _call(repo, tmp_path / "one", tmp_path / "store-1", block, "key_findings")
    assert [s["step"] for s in one["steps"]] == ["preflight", "tree", "slice"]
    first = one["steps"][-1]
    # the calls stop at a wall-clock budget (the sizing's rate is fixed, the machine's load is not): a loaded machine
    # may leave runs for the next call, which is what FROM is for; what is checked is that the calls continue each other
    assert (first["status"] == "passed" or first["status"].endswith("runs left")) and first["trained"]
    assert first["fallbacks"] == []
    device_run.check_out(tmp_path / "one" / "run")
    kept = set(json.loads((tmp_path / "one" / "run" / "results.json").read_text()))
    two = _call(repo, tmp_path / "two", tmp_path / "store-2", block, "key_findings,frequency",
                str(tmp_path / "one" / "run"))
    second = two["steps"][-1]
    assert (second["status"] == "passed" or second["status"].endswith("runs left")) and second["trained"]
    assert not set(second["trained"]) & kept                                 # the first call's runs: restored
    assert kept <= set(json.loads((tmp_path / "two" / "run" / "results.json").read_text()))
    device_run.check_out(tmp_path / "two" / "run")
    os.environ.pop("PENB_COMMIT", None)
    for chapter, folder in (("key_findings", "one"), ("key_findings", "two"), ("frequency", "two")):
        src, dest = tmp_path / folder / "run", tmp_path / "archived" / f"{chapter}-{folder}"
        if manifest(src, chapter)["complete"]:
            assert archive(chapter, src, dest).is_dir()
        else:                                           # a call cut by its budget: the archive waits for the rest
            with pytest.raises(ValueError, match="train the rest first"):
                archive(chapter, src, dest)


@pytest.mark.parametrize("factor", [0.5, 2.0])
@pytest.mark.parametrize("preset, DEEP_N", [("deep", 32_000), ("deep_v2", 128_000)])
def test_a_call_trains_the_deep_figure_toward_its_fixed_targets(tmp_path, monkeypatch, factor, preset, DEEP_N):
    """Depth first (issue 60, item 2): a fixed-target preset's budgets (DEEP_RULE's 32,000; v2's 128,000) are never
    scaled; a call plans the figure's GRU runs (40 trunks, with N/2 and N/4) in one batch per shape, longest first,
    and where the call is short it trains the first batches (the trunks to N) and leaves the branches for the next
    call."""
    from penb.call import slice as slicing
    from penb.call import fit as call_fit
    from penb.executors.cost import batch_update_seconds

    monkeypatch.setenv("PENB_STORE", str(tmp_path / "store"))
    params = call_fit.call_overrides(preset, None, "cpu")
    assert params["batch_runs"] == call_fit.FIGURE_BATCH
    s = call_fit.size(["key_findings"], preset, params, 8.0, slicing.contents, slicing.OVERHEAD_S,
                          timer=lambda c: factor * batch_update_seconds(c[0], len(c))[0], clock=lambda: 0.0,
                          charge_device="cuda")
    steps = {c["steps"] for b in s["plan"]["batches"] for c in b["configs"]}
    assert steps <= {DEEP_N, DEEP_N // 2, DEEP_N // 4} and DEEP_N in steps
    first = s["plan"]["batches"][0]["configs"]
    assert len(first) == 40 and {c["steps"] for c in first} == {DEEP_N}    # the figure's trunks, one batch
    if s["fallbacks"]:
        assert "fixed targets" in s["fallbacks"][0]["tried"]


def test_updates_to_go_are_computed_in_one_place(tmp_path, monkeypatch):
    """penb.trunks.to_go (and trunk_updates on it) is what the plan, the call's driver and the batched executor read:
    with to_go made to charge one update more, each of them counts one more per run it asks about (behaviour, not
    source text); a trunk of N = 1,000 with its N/2 and N/4 (decay 0.2) costs 1,000 + 100 + 50."""
    from penb import plan, trunks
    from penb.call import budgeted
    from penb.executors import batched as executor
    from penb.run_config import normalize

    group = [{"steps": n, "decay": 0.2} for n in (1000, 500, 250)]
    assert trunks.trunk_updates(group) == 1000 + 100 + 50
    assert trunks.to_go(group[1], branch=True) == 100 and trunks.to_go(group[1], branch=False, start=300) == 200
    monkeypatch.setenv("PENB_STORE", str(tmp_path))
    tiny = dict(task="reverse", vocab_size=8, length=4, hidden=8, batch_size=4, warmup=4, lr=1e-2, held_out=8,
                core="gru", schedule="wsd", decay=0.2, device="cpu", seed=2001, encoding="none")
    configs = [normalize({**tiny, "steps": n}) for n in (1000, 500, 250)]

    def counted():
        return (plan.updates(configs), [n for _, n in executor.groups(configs, 8)],
                [g["updates"] for g in budgeted.groups(configs, batched=True, width=8)])
    before = counted()
    real = trunks.to_go
    monkeypatch.setattr(trunks, "to_go", lambda c, branch, start=0: real(c, branch, start) + 1)
    after = counted()
    assert before[0] == 1000 + 100 + 50 and after[0] == before[0] + 2            # the two branches, through to_go
    assert after[1] == [n + 1 for n in before[1]] and after[2] == [n + 1 for n in before[2]]
