"""One command per GPU call (issue 50): preflight, the tree checked against its commit, the slice, the CUDA tests.

    python -m penb device-pack                          # here, on a clean commit: .device/ (ignored) for the call
    python -m penb device-run --out $OUT                # there, carrying .device: one call, at most --budget s

A lent GPU machine gets a copy of the working tree, not its ``.git``, and a device command is cut at 600 s, its start
counted. So :func:`pack` writes, here, ``.device/tree.json``: the commit and the git blob id of every file it tracks
(``git ls-tree -r HEAD``), and ``.device/data/``: the WikiText-2 copy that ``lm_appendix`` reads (``../shared`` does
not travel). :func:`run` then does, in order, inside one wall-clock budget:

1. **preflight**: torch, CUDA, the GPU's name and memory (a machine without CUDA is refused unless ``--device cpu``,
   the rehearsal);
2. **the tree**: every file of ``tree.json`` hashed as git hashes a blob and compared; a missing or changed file is
   refused in one line, before anything trains, and the verified commit is what the archive names (``PENB_COMMIT``);
3. **the slice** (``penb.call.slice.run``) of ``--chapters``, with the budget left less what the tests keep, its budgets
   sized on this device (``penb.call.fit``: the largest base N x 2^j that the measured rates fit);
4. **the CUDA tests** (``pytest`` on :data:`TESTS`) in whatever time the slice leaves.

``--out`` gets at most 8 files of at most 16 MiB, 64 MiB in all (``penb.call.limits``): the slice's
``manifest.json``, ``results.json``, ``predictions-*.tar`` and ``trunks-*.tar`` (rewritten after every batch, so a
cut-off call keeps what finished) and ``device_run.json`` (preflight, tree check, each step's status and seconds, the
runs it trained, the sizing's steps down, the tests' last lines), rewritten after every step. A second call with
``--from`` the first call's folder restores its runs and trunks and trains only what is left of the same targets.
:func:`dry_run` sizes a call here, with no device, at the table's rates.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Optional

import torch

from penb.call import fit as call_fit, slice as slicing
from penb.call.limits import CALL_BUDGET_S as BUDGET_S, CARRY_BYTES, FILE_BYTES, MAX_FILES, TEST_RESERVE_S
from penb import long_run
from penb.executors.cost import batch_update_seconds
from penb.store import atomic, paths

PACK = ".device"                    # beside the repository root; ignored by git, carried to the device
REHEARSAL_RATE = "PENB_REHEARSAL_RATE"  # with --device cpu: seconds per update the sizing takes instead of measuring
TESTS = ["tests/test_trainer.py", "tests/test_stacked.py", "tests/test_bf16_cuda.py"]


def blob_id(path: Path) -> str:
    """git's object id of the file at ``path`` (sha1 of ``blob <size>\\0`` and its bytes)."""
    data = Path(path).read_bytes()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def pack(repo: Path = paths.REPO, shared: Optional[Path] = None) -> Path:
    """Write ``<repo>/.device``: ``tree.json`` ({"commit", "files": {path: blob id}}) of HEAD, and ``data/`` (the
    shared WikiText-2). ``ValueError`` for a tree with uncommitted changes: the device must run a commit."""
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True).stdout

    if git("status", "--porcelain", "--untracked-files=no").strip():
        raise ValueError("the tree has uncommitted changes: commit first, so that the device runs a commit a reader "
                         "can check out")
    files = {}
    for line in git("ls-tree", "-r", "HEAD").splitlines():
        meta, name = line.split("\t", 1)
        mode, kind, oid = meta.split()
        if kind == "blob" and mode != "120000":                       # links travel as what they point to
            files[name] = oid
    out = Path(repo) / PACK
    out.mkdir(exist_ok=True)
    atomic.write_json(out / "tree.json", {"commit": git("rev-parse", "HEAD").strip(), "files": files})
    corpus = (shared or paths.shared_dir()) / "data" / "wikitext-2"
    if corpus.is_dir():
        shutil.copytree(corpus, out / "data" / "wikitext-2", dirs_exist_ok=True)
    return out


def verify(repo: Path = paths.REPO) -> str:
    """The commit of ``<repo>/.device/tree.json`` once every file it lists is there with its blob id; ``ValueError``
    (one line) otherwise."""
    manifest = Path(repo) / PACK / "tree.json"
    if not manifest.is_file():
        raise ValueError(f"no {PACK}/tree.json: run `python -m penb device-pack` on the clean commit and carry {PACK}")
    tree = json.loads(manifest.read_text())
    missing = [f for f in tree["files"] if not (Path(repo) / f).is_file()]
    changed = [f for f, oid in tree["files"].items() if f not in missing and blob_id(Path(repo) / f) != oid]
    if missing or changed:
        names = (changed + missing)[:3]
        raise ValueError(f"the tree is not commit {tree['commit'][:12]}: {len(changed)} file(s) changed, "
                         f"{len(missing)} missing (e.g. {', '.join(names)}); commit, then device-pack again")
    return tree["commit"]


def preflight(device: str) -> dict:
    """torch, CUDA and the GPU: {"torch", "python", "device", "name", "memory_gib"}; ``ValueError`` without CUDA
    unless ``device`` is "cpu" (the rehearsal)."""
    info = {"torch": torch.__version__, "python": sys.version.split()[0], "device": device}
    if device == "cuda":
        if not torch.cuda.is_available():
            raise ValueError("no CUDA on this machine: device-run is for a GPU call (--device cpu rehearses it)")
        props = torch.cuda.get_device_properties(0)
        info.update(name=props.name, memory_gib=round(props.total_memory / 2 ** 30, 1))
    return info


def check_out(out: Path) -> None:
    """``ValueError`` if ``out`` holds more than ``MAX_FILES`` files, a file over ``FILE_BYTES`` or more than
    ``CARRY_BYTES`` in all (what the next call carries back in): ``penb.call.limits``."""
    files = [f for f in Path(out).rglob("*") if f.is_file()]
    size = sum(f.stat().st_size for f in files)
    big = [f.name for f in files if f.stat().st_size > FILE_BYTES]
    if len(files) > MAX_FILES or size > CARRY_BYTES or big:
        what = f" ({big[0]} over 16 MiB)" if big else ""
        raise ValueError(f"{out} holds {len(files)} files, {size / 2 ** 20:.1f} MiB{what}: more than a device call "
                         f"hands back ({MAX_FILES} files of {FILE_BYTES / 2 ** 20:.0f} MiB, "
                         f"{CARRY_BYTES / 2 ** 20:.0f} MiB in all)")


def run(out: Path, chapters: list[str], budget_s: float = BUDGET_S, device: str = "cuda", preset: str = "slice",
        overrides: Optional[dict] = None, source: Optional[Path] = None, repo: Path = paths.REPO,
        clock: Callable[[], float] = time.monotonic, tests: bool = True) -> dict:
    """The device call (see the module's docstring); returns what ``device_run.json`` holds."""
    start = clock()
    out = Path(out)
    record: dict = {"budget_s": budget_s, "chapters": chapters, "preset": preset, "steps": []}

    def left() -> float:
        return budget_s - (clock() - start)

    def step(name: str, status: str, t: float, **extra) -> None:
        record["steps"].append({"step": name, "status": status, "seconds": round(clock() - t, 1), **extra})
        out.mkdir(parents=True, exist_ok=True)
        atomic.write_json(out / "device_run.json", record)

    t = clock()
    record["preflight"] = preflight(device)
    step("preflight", "passed", t)
    t = clock()
    commit = verify(repo)
    os.environ["PENB_COMMIT"] = commit                              # what the slice's archive names, now checked
    data = Path(repo) / PACK / "data"
    if data.is_dir():
        os.environ.setdefault("PENB_WIKITEXT_DIR", str(data))
    record["commit"] = commit
    step("tree", "passed", t)
    t = clock()
    restored = long_run.restore_for(chapters, preset)           # the long run's trunks, where it has any (issue 65)
    if restored:
        step("long run", "restored", t, files=restored)
    t = clock()
    minutes = min(slicing.MAX_MINUTES, (left() - (TEST_RESERVE_S if tests else 0)) / 60)
    params = call_fit.call_overrides(preset, overrides, device)
    rate = os.environ.get(REHEARSAL_RATE) if device == "cpu" else None   # the rehearsal's fixed rate: a sizing
    timer = (lambda configs: float(rate)) if rate else None                # that does not depend on the CPU's load
    result = slicing.run(chapters, minutes, out, preset, params, clock=clock, source=source, sized=True, timer=timer)
    step("slice", "passed" if not result["left"] else f"{result['left']} runs left", t,
         finished=result["finished"], runs=result["runs"], estimate_min=round(result["estimate_min"], 2),
         fallbacks=result.get("fallbacks", []), trained=sorted({x["key"] for x in result.get("trained", [])}))
    if tests:
        t = clock()
        limit = int(left())
        if limit < 20:
            step("cuda tests", "not run (out of time)", t)
        else:
            try:
                proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *TESTS],
                                      cwd=repo, capture_output=True, text=True, timeout=limit)
                tail = (proc.stdout + proc.stderr).strip().splitlines()[-5:]
                step("cuda tests", "passed" if proc.returncode == 0 else f"failed (exit {proc.returncode})", t,
                     tail=tail)
            except subprocess.TimeoutExpired:
                step("cuda tests", f"cut at {limit} s", t)
    check_out(out)
    return record


DRY_FACTORS = (0.5, 1.0, 2.0)       # the table's rates, halved and doubled: what a dry run shows


def dry_run(chapters: list[str], budget_s: float = BUDGET_S, preset: str = "slice", overrides: Optional[dict] = None,
            factors=DRY_FACTORS, tests: bool = True) -> list[dict]:
    """What a call would train, sized here with no device (issue 60): ``penb.call.fit.size`` at the table's
    batched rates (``penb.executors.cost.batch_update_seconds``) times each of ``factors``, charged as CUDA charges
    (a compiled batch its allowance), in the minutes ``budget_s`` leaves the slice. One row per factor: {"factor",
    "j", "runs", "batches", "updates", "estimate_min", "fits", "fallbacks"}."""
    minutes = min(slicing.MAX_MINUTES, (budget_s - (TEST_RESERVE_S if tests else 0)) / 60)
    params = call_fit.call_overrides(preset, overrides, "cpu")   # planned here; charged as on CUDA
    rows = []
    for f in factors:
        s = call_fit.size(chapters, preset, params, minutes, slicing.contents, slicing.OVERHEAD_S,
                              timer=lambda configs, f=f: f * batch_update_seconds(configs[0], len(configs))[0],
                              clock=lambda: 0.0, charge_device="cuda")
        batches = s["plan"]["batches"]
        rows.append({"factor": f, "j": s["j"], "runs": sum(b["runs"] for b in batches), "batches": len(batches),
                     "updates": sum(b["updates"] for b in batches), "fits": s["fits"], "fallbacks": s["fallbacks"],
                     "estimate_min": round((s["estimate_s"] + slicing.OVERHEAD_S) / 60, 2)})
    return rows


def dry_run_text(rows: list[dict], minutes: float) -> str:
    """:func:`dry_run`'s rows as lines for the terminal."""
    lines = [f"a call of {minutes:.1f} minutes, sized at the table's rates (penb.executors.cost) times:"]
    for r in rows:
        steps = "; ".join(f"{x['tried']}: {x['why']}" for x in r["fallbacks"]) or "the rule's own choice"
        lines.append(f"  x{r['factor']:g}: j = {r['j']}, {r['batches']} batches, {r['runs']} runs, {r['updates']:,} "
                     f"updates, about {r['estimate_min']:.1f} min{'' if r['fits'] else ' (cut by the deadline)'} "
                     f"({steps})")
    return "\n".join(lines)
