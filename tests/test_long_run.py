"""A fixed-target preset trained on the CPU in segments (penb.long_run, issue 65).

The state between segments is packed into a folder, the store is thrown away (a new machine), and the next segment
restores it and goes on. Checked here: a trunk cut part-way twice, packed, restored into fresh stores and continued
stores what each of its runs stores trained alone in one uninterrupted process, bit for bit (fp64, one thread); a
continuation under another training code, or from a corrupted part, is refused before anything is written; parts
stay within their limit; a fixed-target preset is trained by cell only within its cells; ``by_trunk`` never splits a
trunk. The deadlines are a fake clock's (one tick a reading), so where a segment stops does not depend on the
machine's speed.
"""
import hashlib
import io
import json
import shutil
import tarfile
from pathlib import Path
from unittest.mock import patch

import numpy as np
import pytest
import torch

from penb import long_run, plan, presets, runner, runs, trunks
from penb.call import budgeted, limits
from penb.long_run import same
from penb.run_config import decay_start, normalize
from penb.store import paths
from penb.store.paths import checkpoints

# A WSD trunk in miniature: budgets N, N/2 and N/4 off one trunk; decay 0.5 makes each branch long enough to be cut
# in its middle (D(64) = 32, D(32) = 16, D(16) = 8). checkpoint_every above every budget: the only checkpoints a run
# keeps mid-way are the ones a deadline makes.
TINY = dict(task="reverse", vocab_size=8, length=4, hidden=8, batch_size=4, warmup=4, lr=1e-2, held_out=8,
            core="gru", schedule="wsd", decay=0.5, checkpoint_every=1000, log_every=4, device="cpu",
            dtype="float64", seed=2001)
N = 64


def trunk_configs(encodings=("none", "sinusoidal"), n=N, **over):
    """N with its N/2 and N/4 for each encoding (one trunk each), normalised."""
    full = [{**TINY, **over, "encoding": e, "steps": n} for e in encodings]
    return [normalize({**c, "steps": c["steps"] >> k}) for k in (0, 1, 2) for c in full]


class Ticks:
    """A clock that advances one second at every reading: the driver reads it once an update (and a few times a
    group), so a deadline ``k`` ticks ahead stops the training after a fixed number of updates."""

    def __init__(self):
        self.t = 0.0

    def __call__(self):
        self.t += 1.0
        return self.t


def use_store(monkeypatch, path: Path) -> Path:
    """Point the run store at ``path`` (a machine's); returns the folder the runs go to (``runs.root()``)."""
    monkeypatch.setenv("PENB_STORE", str(path))
    return runs.root()


def drive_segment(configs, folder: Path, ticks: int, workers: int = 2) -> dict:
    """What :func:`penb.long_run.segment` does, in this process, with a fake clock per share instead of the wall
    clock: restore ``folder`` into the store, drive each ``by_trunk`` share as ``_drive_share`` does until ``ticks``
    readings of its clock, pack. Returns the manifest."""
    store = runs.root()
    identity = long_run.code_identity()
    long_run.restore(folder, store, identity)
    before = long_run.reached(configs, store)
    for share in long_run.by_trunk([c for c in configs if runs.status(c, store) != "done"], workers):
        clock = Ticks()
        budgeted.drive(budgeted.groups(share, batched=True, width=len(share)), clock.t + ticks, clock, fit=False)
    after = long_run.reached(configs, store)
    old = long_run.read_manifest(folder) or {}
    seg = {"commit": "test", "updates": {k: [before[k], after[k]] for k in after if after[k] != before[k]}}
    return long_run.pack(folder, configs, store, {"code_identity": identity, "keys": sorted(after), "reached": after,
                                                  "segments": [*old.get("segments", []), seg]})


def tensors(obj, prefix=""):
    """{path: tensor} of every tensor in a (nested) checkpoint."""
    if isinstance(obj, torch.Tensor):
        return {prefix: obj}
    if isinstance(obj, dict):
        return {k: v for key, val in obj.items() for k, v in tensors(val, f"{prefix}/{key}").items()}
    if isinstance(obj, (list, tuple)):
        return {k: v for i, val in enumerate(obj) for k, v in tensors(val, f"{prefix}/{i}").items()}
    return {}


def same_checkpoint(a: Path, b: Path) -> None:
    sa, sb = (torch.load(p, map_location="cpu", weights_only=True) for p in (a, b))
    ta, tb = tensors(sa), tensors(sb)
    assert ta.keys() == tb.keys() and any(k.startswith("/model") for k in ta)
    for k in ta:
        assert ta[k].dtype == tb[k].dtype and torch.equal(ta[k], tb[k]), f"{a.name}: {k} differs"
    assert sa.get("step") == sb.get("step")


def same_result(c, got_store: Path, want_store: Path) -> None:
    """The run's result (status, metrics, history, config) and held-out predictions are the same, exactly."""
    got, want = (json.loads((runs.run_dir(c, s) / "result.json").read_text()) for s in (got_store, want_store))
    assert got["status"] == want["status"] == "done"
    assert got["metrics"] == want["metrics"] and got["history"] == want["history"]
    assert got["config"] == want["config"]
    with np.load(runs.run_dir(c, got_store) / "predictions.npz") as pg, \
            np.load(runs.run_dir(c, want_store) / "predictions.npz") as pw:
        assert sorted(pg.files) == sorted(pw.files)
        for k in pw.files:
            assert pg[k].dtype == pw[k].dtype and np.array_equal(pg[k], pw[k]), f"predictions {k} differ"


@pytest.fixture(scope="module")
def alone(tmp_path_factory):
    """Each run of :func:`trunk_configs` trained alone, from update 0, in a store of its own, in one uninterrupted
    call (no trunk shared, nothing restored): {run key: its store}."""
    base = tmp_path_factory.mktemp("alone")
    out = {}
    for i, c in enumerate(trunk_configs()):
        out[runs.key(c)] = base / str(i)
        runner.train_one(c, out[runs.key(c)])
    return out


def test_a_trunk_packed_restored_and_continued_equals_uninterrupted_runs_bit_for_bit(tmp_path, monkeypatch, alone):
    """Three machines, each thrown away after its segment: the first cuts the N runs inside their trunk, the second
    finishes them and cuts the N/2 runs inside their decay branch, the third finishes everything. Every run then
    stores what it stores trained alone (results, predictions, final weights and Adam moments, the trunks' branch
    points), exactly. One torch thread (tests/conftest.py), as a long run's workers take."""
    assert torch.get_num_threads() == 1
    configs = trunk_configs()
    full, half, quarter = configs[:2], configs[2:4], configs[4:]
    folder = tmp_path / "committed"

    # machine 1: the N runs stop inside their trunk (before their decay start), nothing else started
    store = use_store(monkeypatch, tmp_path / "m1")
    m1 = drive_segment(configs, folder, ticks=30)
    got = long_run.reached(configs, store)
    for c in full:
        assert 0 < got[runs.key(c)] < decay_start(N, TINY["decay"])
        assert runs.status(c, store) == "partial"
    # the branches not begun: as far as the trunk's branch points (8, 16) at or before their decay starts (8, 16)
    u = min(got[runs.key(c)] for c in full)
    assert all(got[runs.key(c)] == (16 if u >= 16 else 8 if u >= 8 else 0) for c in half)
    assert all(got[runs.key(c)] == (8 if u >= 8 else 0) for c in quarter)
    assert m1["reached"] == got and set(m1["segments"][0]["updates"]) == {k for k, v in got.items() if v}
    shutil.rmtree(tmp_path / "m1")

    # machine 2: restored; the N runs finish and the N/2 runs stop inside their decay branch
    store = use_store(monkeypatch, tmp_path / "m2")
    assert long_run.restore(folder, store) > 0
    assert long_run.reached(configs, store) == got                        # the state came back as it was packed
    assert long_run.restore(folder, store) == 0                           # a second restore writes nothing
    m2 = drive_segment(configs, folder, ticks=49)
    got2 = long_run.reached(configs, store)
    for c in full:
        assert got2[runs.key(c)] == N and runs.status(c, store) == "done"
        # a run finished on this machine: its final weights and moments are the uninterrupted run's
        (step, last), = checkpoints(runs.run_dir(c, store))[-1:]
        assert step == N
        same_checkpoint(last, checkpoints(runs.run_dir(c, alone[runs.key(c)]))[-1][1])
    for c in half:
        assert decay_start(N // 2, TINY["decay"]) < got2[runs.key(c)] < N // 2     # cut inside its branch
    assert all(got2[runs.key(c)] == 8 for c in quarter)                 # not begun: at its trunk's branch point
    assert [s["updates"] for s in m2["segments"]] == [m1["segments"][0]["updates"],
                                                      {k: [got[k], got2[k]] for k in got2 if got2[k] != got[k]}]
    shutil.rmtree(tmp_path / "m2")

    # machine 3: restored; everything finishes
    store = use_store(monkeypatch, tmp_path / "m3")
    assert long_run.restore(folder, store) > 0
    assert long_run.reached(configs, store) == got2
    m3 = drive_segment(configs, folder, ticks=10 ** 9)
    assert m3["reached"] == {runs.key(c): c["steps"] for c in configs} and len(m3["segments"]) == 3
    for c in configs:
        same_result(c, store, alone[runs.key(c)])
    for c in half + quarter:                                  # finished here: weights and moments too
        same_checkpoint(checkpoints(runs.run_dir(c, store))[-1][1],
                        checkpoints(runs.run_dir(c, alone[runs.key(c)]))[-1][1])
    for c in full:                                            # the trunks' branch points, as the N run alone saved them
        ours, theirs = trunks.trunk_dir(c, store), trunks.trunk_dir(c, alone[runs.key(c)])
        assert sorted(p.name for p in ours.glob("step-*.pt")) == sorted(p.name for p in theirs.glob("step-*.pt"))
        assert len(list(ours.glob("step-*.pt"))) == len(trunks.branch_points(c)) == 3
        for p in ours.glob("step-*.pt"):
            same_checkpoint(p, theirs / p.name)

    # and the folder alone (a fourth machine) holds the finished runs
    store = use_store(monkeypatch, tmp_path / "m4")
    long_run.restore(folder, store)
    assert all(runs.status(c, store) == "done" for c in configs)
    for c in configs:
        same_result(c, store, alone[runs.key(c)])


def test_one_segment_in_a_worker_process_trains_to_what_runs_alone_store(tmp_path, monkeypatch, alone):
    """``segment`` itself (one spawned one-thread worker): every run finishes (the deadline is half an hour away) and
    stores what it stores trained alone; the manifest records the segment; a second segment trains nothing and
    appends one more entry."""
    configs = trunk_configs(encodings=("none",))
    store = use_store(monkeypatch, tmp_path / "store")
    folder = tmp_path / "committed"
    man = long_run.segment(configs, folder, minutes=30, workers=1, fields={"chapter": "x"}, commit="abc")
    assert man["code_identity"] == long_run.code_identity() and man["chapter"] == "x"
    assert man["reached"] == {runs.key(c): c["steps"] for c in configs} and man["keys"] == sorted(man["reached"])
    (seg,) = man["segments"]
    assert seg["commit"] == "abc" and seg["updates"] == {runs.key(c): [0, c["steps"]] for c in configs}
    assert {"cpu", "isa", "torch"} <= set(seg["host"])
    for c in configs:
        same_result(c, store, alone[runs.key(c)])
    again = long_run.segment(configs, folder, minutes=30, workers=1, commit="def")
    assert [s["commit"] for s in again["segments"]] == ["abc", "def"] and again["segments"][1]["updates"] == {}


@pytest.fixture(scope="module")
def cut_store(tmp_path_factory):
    """A store holding a trunk cut part-way (the N run inside its trunk) and a finished run of another trunk."""
    root = tmp_path_factory.mktemp("cut")
    mp = pytest.MonkeyPatch()
    try:
        store = use_store(mp, root)
        cut = trunk_configs(encodings=("none",))
        clock = Ticks()
        budgeted.drive(budgeted.groups(cut, batched=True, width=3), clock.t + 30, clock, fit=False)
        done = trunk_configs(encodings=("sinusoidal",), n=16, warmup=2)[:1]
        runner.train_one(done[0], store)
    finally:
        mp.undo()
    configs = cut + done
    r = long_run.reached(configs, store)
    assert 0 < r[runs.key(cut[0])] < N and r[runs.key(done[0])] == 16
    return store, configs


def fields():
    return {"code_identity": long_run.code_identity(), "segments": [{"commit": "test"}]}


def files_of(store: Path) -> dict:
    return {str(p.relative_to(store)): p.read_bytes() for p in Path(store).rglob("*") if p.is_file()}


def test_parts_hold_at_most_part_bytes_and_join_back(tmp_path, monkeypatch, cut_store):
    """With a small part limit the state goes out in several parts, none over the limit; restored, every packed
    file comes back byte for byte; a later pack in fewer parts leaves no stale part behind."""
    store, configs = cut_store
    assert long_run.PART_BYTES == limits.PART_BYTES <= limits.FILE_BYTES
    monkeypatch.setattr(long_run.packed, "PART_BYTES", 2048)
    folder = tmp_path / "committed"
    man = long_run.pack(folder, configs, store, fields())
    sizes = [(folder / p["file"]).stat().st_size for p in man["parts"]]
    assert len(sizes) >= 3 and max(sizes) <= 2048 and all(s == 2048 for s in sizes[:-1])
    assert sizes == [p["bytes"] for p in man["parts"]]
    assert sorted(p.name for p in folder.glob("state.tar.xz.part-*")) == [p["file"] for p in man["parts"]]

    # what the state should hold, read off the store by hand: each run's config; a finished run's result and
    # predictions (no checkpoints); an unfinished run's latest checkpoint; every branch point of the trunks
    want = {}
    for c in configs:
        d = runs.run_dir(c, store)
        if not d.is_dir():
            continue
        names = ["config.json", "result.json", "predictions.npz"] if (d / "result.json").exists() else \
            ["config.json", "checkpoints/" + sorted(p.name for p in (d / "checkpoints").glob("*.pt"))[-1]]
        want.update({f"{d.name}/{n}": (d / n).read_bytes() for n in names})
        t = trunks.trunk_dir(c, store)
        want.update({str(p.relative_to(store)): p.read_bytes() for p in t.glob("step-*.pt")})
    fresh = tmp_path / "fresh"
    assert long_run.restore(folder, fresh) == len(want)
    assert files_of(fresh) == want

    monkeypatch.setattr(long_run.packed, "PART_BYTES", 10 ** 7)
    again = long_run.pack(folder, configs, store, fields())
    assert [p["file"] for p in again["parts"]] == ["state.tar.xz.part-001"]
    assert [p.name for p in folder.glob("state.tar.xz.part-*")] == ["state.tar.xz.part-001"]
    other = tmp_path / "other"
    long_run.restore(folder, other)
    assert files_of(other) == want


@pytest.mark.parametrize("damage", ["flip", "missing", "truncated"])
def test_a_corrupted_part_is_refused_before_anything_is_written(tmp_path, monkeypatch, cut_store, damage):
    store, configs = cut_store
    monkeypatch.setattr(long_run.packed, "PART_BYTES", 2048)
    folder = tmp_path / "committed"
    man = long_run.pack(folder, configs, store, fields())
    assert len(man["parts"]) >= 3
    victim = folder / man["parts"][-1]["file"]          # the last: the parts before it are sound and read first
    data = bytearray(victim.read_bytes())
    if damage == "flip":
        data[len(data) // 2] ^= 0x01
        victim.write_bytes(bytes(data))
    elif damage == "missing":
        victim.unlink()
    else:
        victim.write_bytes(bytes(data[:-1]))
    fresh = tmp_path / "fresh"
    with pytest.raises(ValueError, match="sha256"):
        long_run.restore(folder, fresh)
    assert not fresh.exists() or files_of(fresh) == {}


def copy_training_code(dst: Path) -> None:
    for name in long_run.TRAINING_CODE:
        src = paths.REPO / name
        assert src.exists(), f"TRAINING_CODE names {name}, which this checkout lacks"
        if src.is_dir():
            shutil.copytree(src, dst / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            (dst / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst / name)


def test_a_continuation_under_a_changed_training_module_is_refused(tmp_path, cut_store):
    root = tmp_path / "checkout"
    copy_training_code(root)
    ours = long_run.code_identity()
    assert long_run.code_identity(root) == ours and len(ours) == 16      # the same sources under another root
    (root / "penb" / "claims").mkdir(parents=True)
    (root / "penb" / "claims" / "grading.py").write_text("RULE = 1\n")   # grading, display: free to change
    (root / "penb" / "trainer" / "__pycache__").mkdir()
    (root / "penb" / "trainer" / "__pycache__" / "update.cpython-311.pyc").write_bytes(b"\0" * 16)
    (root / "penb" / "trainer" / "NOTES.txt").write_text("not a source")
    assert long_run.code_identity(root) == ours
    identities = {ours}
    for changed in ("penb/trainer/update.py", "penb/models.py", "penb/run_config.py"):
        f = root / changed
        old = f.read_bytes()
        f.write_bytes(old + b"\n# one more line\n")
        identities.add(long_run.code_identity(root))
        f.write_bytes(old)
        assert long_run.code_identity(root) == ours
    new_module = root / "penb" / "tasks" / "extra.py"
    new_module.write_text("X = 1\n")
    identities.add(long_run.code_identity(root))
    assert len(identities) == 5                                            # every change a different identity

    store, configs = cut_store
    folder = tmp_path / "committed"
    long_run.pack(folder, configs, store, fields())
    fresh = tmp_path / "fresh"
    with pytest.raises(ValueError, match="training code"):
        long_run.restore(folder, fresh, identity=long_run.code_identity(root))
    assert not fresh.exists() or files_of(fresh) == {}
    assert long_run.restore(folder, fresh, identity=ours) > 0             # the same code: restored


def test_part_by_cell_training_refuses_a_cell_outside_the_preset():
    """deep_v2 may be trained a cell (or a few) at a time; the runs of a cell are the preset's own runs of that V;
    a cell outside the preset, another seed set, budget or schedule is refused."""
    whole = plan.configs_for("key_findings", presets.resolve("key_findings", "deep_v2", device="cpu"))
    assert len(whole) == 4 * 2 * 5 * 3
    for cells in [(256,), (128, 256), (32,)]:
        part = plan.configs_for("key_findings",
                                presets.resolve("key_findings", "deep_v2", device="cpu", gru_vocab=cells))
        assert sorted(runs.key(c) for c in part) == sorted(runs.key(c) for c in whole if c["vocab_size"] in cells)
    for bad in [dict(gru_vocab=(512,)), dict(gru_vocab=(256, 512)), dict(gru_vocab=(16,)), dict(gru_vocab=()),
                dict(gru_vocab=(256, 256)), dict(seeds=presets.confirmation(5)), dict(seeds=(2006, 2007, 2008)),
                dict(per_core={"gru": {"batch_size": 64, "steps": 64_000}}), dict(earlier=0), dict(schedule="cosine"),
                dict(cores=("gru", "lstm")), dict(amp="bf16")]:
        with pytest.raises(ValueError, match="fixed targets"):
            presets.resolve("key_findings", "deep_v2", device="cpu", **bad)


def test_by_trunk_keeps_a_trunk_in_one_share_and_deals_every_run_once():
    whole = plan.configs_for("key_findings", presets.resolve("key_findings", "deep_v2", device="cpu"))
    cosine = [normalize({**{k: v for k, v in TINY.items() if k not in ("schedule", "decay")}, "steps": s, "seed": 7})
              for s in (16, 32)]                                   # no trunk: each run on its own
    configs = whole[::-1] + cosine

    def trunk_of(c):        # the same run but for its budget (and the fields that act only from its decay on)
        if c.get("schedule") != "wsd":
            return runs.key(c)
        return json.dumps({k: v for k, v in c.items() if k not in ("steps", "checkpoint_every", "log_every")},
                          sort_keys=True, default=str)

    units = {trunk_of(c) for c in configs}
    assert len(units) == 4 * 2 * 5 + 2
    for workers in (1, 2, 3, 7, 100):
        shares = long_run.by_trunk(configs, workers)
        assert len(shares) == min(workers, len(units)) and all(shares)
        assert sorted(runs.key(c) for s in shares for c in s) == sorted(runs.key(c) for c in configs)
        where = {}
        for i, s in enumerate(shares):
            for c in s:
                assert where.setdefault(trunk_of(c), i) == i, "a trunk split over two shares"
        counts = [len({trunk_of(c) for c in s}) for s in shares]
        assert max(counts) - min(counts) <= 1                       # round robin: trunks dealt evenly
    assert long_run.by_trunk([], 2) == [[]]


def test_segments_of_different_cells_keep_each_others_state(tmp_path, monkeypatch):
    """Training a fixed-target preset by cell (``python -m penb long-run ... -p gru_vocab '(256,)'``, then another
    cell) writes every segment into the one folder ``folder_for(chapter, preset)``. A segment of one cell must not
    drop another cell's state from that folder: the next machine would start that cell over (or lose its results)."""
    cell_a = trunk_configs(encodings=("none",), n=16, warmup=2)
    cell_b = trunk_configs(encodings=("none",), n=16, warmup=2, vocab_size=6)
    folder = tmp_path / "committed"
    store = use_store(monkeypatch, tmp_path / "m1")                  # machine 1: cell A
    for c in cell_a:
        runner.train_one(c, store)
    long_run.pack(folder, cell_a, store, fields())
    store = use_store(monkeypatch, tmp_path / "m2")                  # machine 2: cell B (its runs already trained
    for c in cell_b:                                                 # here, so the segment spawns no worker)
        runner.train_one(c, store)
    long_run.segment(cell_b, folder, minutes=1, workers=1)
    store = use_store(monkeypatch, tmp_path / "m3")                  # machine 3: what the folder holds
    long_run.restore(folder, store)
    assert all(runs.status(c, store) == "done" for c in cell_b)
    lost = [c["steps"] for c in cell_a if runs.status(c, store) != "done"]
    assert not lost, f"the segment of cell V=6 dropped cell V=8's finished runs (budgets {lost}) from the folder"


def test_a_packed_member_outside_the_store_is_refused(tmp_path):
    """restore refuses, before writing anything, a member that would land outside the store (an absolute name)."""
    outside = tmp_path / "outside" / "evil.txt"
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:xz") as tar:
        info = tarfile.TarInfo(str(outside))                        # an absolute name
        info.size = 4
        tar.addfile(info, io.BytesIO(b"evil"))
    blob = buf.getvalue()
    folder = tmp_path / "committed"
    folder.mkdir()
    (folder / "state.tar.xz.part-001").write_bytes(blob)
    sha = hashlib.sha256(blob).hexdigest()
    (folder / "manifest.json").write_text(json.dumps({
        **fields(), "parts": [{"file": "state.tar.xz.part-001", "bytes": len(blob), "sha256": sha}],
        "state_sha256": sha}))
    store = tmp_path / "store"
    with pytest.raises(ValueError, match="unexpected member"):
        long_run.restore(folder, store)
    assert not outside.exists() and not store.exists()


def test_the_manifest_says_how_far_each_run_went_and_a_repack_keeps_the_segments(tmp_path, monkeypatch, cut_store):
    """Each run's budget, the update it reached and whether it finished are in the manifest (what the scorecard's
    first paragraph reads); ``--pack-only`` on a fresh machine restores, packs again, adds no segment."""
    store, configs = cut_store
    folder = tmp_path / "committed"
    man = long_run.pack(folder, configs, store, fields())
    cut, done = configs[0], configs[-1]
    assert man["runs"][runs.key(done)] == {"steps": 16, "reached": 16, "done": True}
    got = man["runs"][runs.key(cut)]
    assert got["steps"] == N and 0 < got["reached"] < N and not got["done"]
    use_store(monkeypatch, tmp_path / "fresh")
    again = long_run.repack(configs, folder)
    assert again["segments"] == man["segments"] and again["runs"] == man["runs"]
    assert again["state_sha256"] == man["state_sha256"]          # the same files, the same bytes


def test_a_branch_not_begun_reaches_its_trunks_last_checkpoint_up_to_its_own_decay_start(tmp_path):
    """A run that has no checkpoint of its own begins from the latest trunk checkpoint at or before its decay start,
    so that is how far it has come; past that point the trunk's checkpoints are not its own."""
    n, half = trunk_configs(("none",))[:2]
    assert (decay_start(n["steps"], n["decay"]), decay_start(half["steps"], half["decay"])) == (32, 16)
    folder = trunks.trunk_dir(n, tmp_path)
    folder.mkdir(parents=True)
    for step in (8, 12, 24):
        trunks.path(folder, step).write_bytes(b"")
    got = long_run.reached([n, half], tmp_path)
    assert got == {runs.key(n): 24, runs.key(half): 12}
    assert long_run.reached([n], tmp_path / "empty") == {runs.key(n): 0}


def test_once_every_run_is_done_the_trunk_files_go_unless_a_later_preset_continues_them(tmp_path, monkeypatch):
    """A finished preset that nothing continues packs its runs' results and predictions without the trunks' branch
    points (issue 65: the trunk files go once the targets are reached; the archive stays executable); deep_v2, which
    deep_v3 continues, keeps them."""
    configs = trunk_configs(encodings=("none",), n=32)
    store = use_store(monkeypatch, tmp_path / "m1")
    last = long_run.segment(configs, tmp_path / "last", minutes=30, workers=1, fields={"preset": "deep_v3"})
    kept = long_run.segment(configs, tmp_path / "kept", minutes=30, workers=1, fields={"preset": "deep_v2"})
    assert all(runs.status(c, store) == "done" for c in configs)
    assert (last["trunk_points"], kept["trunk_points"]) == (False, True)

    def names(folder):
        blob = b"".join((folder / p["file"]).read_bytes() for p in long_run.read_manifest(folder)["parts"])
        with tarfile.open(fileobj=io.BytesIO(blob), mode="r:xz") as tar:
            return tar.getnames()
    runs_only = {f"{runs.key(c)}/{n}" for c in configs for n in ("config.json", "result.json", "predictions.npz")}
    assert set(names(tmp_path / "last")) == runs_only
    points = set(names(tmp_path / "kept")) - runs_only
    assert points and all(n.startswith(f"{trunks.FOLDER}/") and n.endswith(".pt") for n in points)


def test_a_partial_archive_grades_only_the_claims_whose_cells_it_holds():
    """Issue 65: a part of deep_v2 at V 256 reads Fig. 2's comparison, distance, level and extra-updates claims (all
    read at the figure's largest V); the trend and the decline, which read every V, are "cells not yet trained". A
    part without V 256 reads none of them; the whole figure, all of them; another preset, never this reason."""
    from penb.chapters.key_findings import grading

    at = lambda key, **p: grading.cells_not_trained(presets.resolve("key_findings", **p), key, "gru")  # noqa: E731
    largest = ("morita.fig2.gru", "morita.fig2.distance.gru", "morita.fig2.level.gru", "morita.sec4_1.more_updates.gru")
    every = ("morita.fig2.trend.gru", "morita.fig2.decline.gru")
    part = dict(preset="deep_v2", device="cpu", gru_vocab=(256,))
    assert all(at(k, **part) == "" for k in largest)
    assert all(at(k, **part).startswith("cells not yet trained: the deep_v2 preset's V 32, 64, 128") for k in every)
    low = dict(part, gru_vocab=(32, 64))
    assert all("V 256 (this part holds V 32, 64" in at(k, **low) for k in largest)
    assert all(at(k, preset="deep_v2", device="cpu") == "" for k in largest + every)
    assert all(at(k, preset="quick") == "" for k in largest + every)


def test_a_continuation_under_code_shown_the_same_is_restored_and_under_code_not_shown_is_refused(tmp_path, cut_store):
    """penb.long_run.same: a state trained under identity A is restored by code B only where an entry B -> A holds
    runs whose digests agree under both trees (a chain B -> A' -> A too); an entry with one differing digest, or
    none at all, lets nothing through."""
    a, b, c = "a" * 16, "b" * 16, "c" * 16
    agree = {"r/0": ["x", "x"], "r/1": ["y", "y"]}
    differ = {"r/0": ["x", "x"], "r/1": ["y", "z"]}
    assert same.continues(a, a, []) and not same.continues(a, b, [])
    assert same.continues(a, b, [{"identity": b, "continues": a, "runs": agree}])
    assert not same.continues(a, b, [{"identity": b, "continues": a, "runs": differ}])
    assert not same.continues(a, b, [{"identity": b, "continues": a, "runs": {}}])
    assert not same.continues(b, a, [{"identity": b, "continues": a, "runs": agree}])   # never backwards
    chain = [{"identity": c, "continues": b, "runs": agree}, {"identity": b, "continues": a, "runs": agree}]
    assert same.continues(a, c, chain) and not same.continues(a, c, chain[:1])
    loop = [{"identity": b, "continues": c, "runs": agree}, {"identity": c, "continues": b, "runs": agree}]
    assert not same.continues(a, b, loop)                                               # a loop ends

    store, configs = cut_store
    folder = tmp_path / "committed"
    long_run.pack(folder, configs, store, fields())
    ours = long_run.code_identity()
    other = "0" * 16
    with pytest.raises(ValueError, match="not shown the same"):
        long_run.restore(folder, tmp_path / "refused", identity=other)
    with patch.object(same, "records", lambda: [{"identity": other, "continues": ours, "runs": agree}]):
        assert long_run.restore(folder, tmp_path / "restored", identity=other) > 0


def test_every_committed_entry_names_two_identities_and_runs():
    """The committed record (scripts/same_training.py): each entry names the code it continues, a different identity,
    and the runs behind it; the entries a restore follows are those whose runs agree."""
    for e in same.records():
        assert len(e["identity"]) == len(e["continues"]) == 16 and e["identity"] != e["continues"]
        assert len(e["runs"]) >= 10 and all(len(d) == 2 for d in e["runs"].values())


def test_this_tree_may_continue_every_committed_long_run_state():
    """The committed long-run states (``book/archived/*-trunks``) were trained under the training code their
    manifests name; a later segment or GPU call continues them only where this tree's training code is that one or
    is shown to compute the same (``penb.long_run.same``). A change to the training code that is not recorded with
    ``scripts/same_training.py --old COMMIT`` fails here, not in the next long run's restore."""
    manifests = sorted((paths.REPO / "book" / "archived").glob("*-trunks/manifest.json"))
    assert manifests
    here = long_run.code_identity()
    refused = [m.parent.name for m in manifests
               if not same.continues(json.loads(m.read_text())["code_identity"], here)]
    assert refused == [], f"training code {here} is not shown the same as {refused} (scripts/same_training.py)"
