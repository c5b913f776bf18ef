"""A long run's state between segments (issue 65): packed from a run store into a committed folder, restored from it.

* :func:`pack` writes the runs' state (each unfinished run's latest checkpoint, each finished run's result and
  predictions, the WSD trunks' branch points) from the run store into a committed folder
  (``book/archived/<chapter>-<preset>-trunks/``): one ``xz``-compressed tar cut into parts of at most
  ``penb.call.limits.PART_BYTES``, and ``manifest.json`` (the parts' sha256, the run keys, the training code's
  identity, and one entry per segment: commit, host CPU and ISA, torch, updates reached, minutes);
* :func:`restore` puts that state back into a store before the next segment, refusing a folder whose parts do not
  match their hashes, or whose training code identity (:func:`code_identity`) differs from this checkout's (unless
  this code was shown to compute the same: :mod:`penb.long_run.same`).

Training code identity: the sha256 of the sources of the modules that act on an update (:data:`TRAINING_CODE`).
Grading, display and the rest of the code may change between segments; these may not, since a continued trunk must
be the run one uninterrupted process would have made (``tests/test_long_run.py`` checks it bit for bit in fp64).
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import platform
import tarfile
from pathlib import Path
from typing import Optional, Sequence

import torch

from penb import runs, trunks
from penb.call.limits import PART_BYTES
from penb.long_run import same
from penb.store import atomic, paths
from penb.store.paths import checkpoints

# The modules that act on an update (issue 65): the trainer, the models and their kernels, the tasks, the encodings,
# the run's configuration. A change to any of them refuses a continuation (:func:`restore`).
TRAINING_CODE = ("penb/trainer", "penb/models.py", "penb/stacked.py", "penb/recurrence.py", "penb/s4d.py",
                 "penb/transformer.py", "penb/tasks", "penb/encodings", "penb/run_config.py")
PART = "state.tar.xz.part-{:03d}"
MANIFEST = "manifest.json"


def code_identity(root: Optional[Path] = None) -> str:
    """sha256 (16 hex digits) of the ``.py`` sources of :data:`TRAINING_CODE` under ``root`` (this checkout), each
    hashed with its path relative to ``root``, in path order."""
    root = Path(root) if root is not None else paths.REPO
    files = []
    for name in TRAINING_CODE:
        p = root / name
        files += sorted(p.rglob("*.py")) if p.is_dir() else [p]
    h = hashlib.sha256()
    for f in sorted(files):
        h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def host() -> dict:
    """The CPU a segment ran on: its model name and the vector ISA it offers (AMX, AVX-512, AVX2), torch's version."""
    model, flags = platform.processor() or platform.machine(), set()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name") and ":" in line:
                model = line.split(":", 1)[1].strip()
            elif line.startswith("flags") and ":" in line:
                flags = set(line.split(":", 1)[1].split())
    except OSError:
        pass
    isa = [name for name, flag in (("AMX", "amx_tile"), ("AVX-512", "avx512f"), ("AVX2", "avx2")) if flag in flags]
    return {"cpu": model, "isa": isa, "cores": os.cpu_count(), "torch": torch.__version__}


def _members(configs: Sequence[dict], store: Path, trunk_points: bool = True) -> list[tuple[str, Path]]:
    """(name in the tar, file) of the state of ``configs`` in ``store``: a finished run's config, result and
    predictions; an unfinished run's config and latest checkpoint; every WSD trunk's branch points (unless not
    ``trunk_points``)."""
    out, seen = [], set()
    for c in configs:
        d = runs.run_dir(c, store)
        if not d.is_dir():
            continue
        done = (d / "result.json").exists()
        keep = [d / n for n in ("config.json", "result.json", "predictions.npz") if (d / n).exists()]
        if not done and checkpoints(d):
            keep.append(checkpoints(d)[-1][1])
        t = trunks.trunk_dir(c, store)
        if trunk_points and t is not None and t.is_dir() and t not in seen:
            seen.add(t)
            keep += sorted(t.glob("step-*.pt"))
        out += [(str(p.relative_to(store)), p) for p in keep]
    return sorted(set(out))


def pack(folder: Path, configs: Sequence[dict], store: Path, fields: dict, trunk_points: bool = True) -> dict:
    """Write the state of ``configs`` in ``store`` into ``folder`` (the parts and ``manifest.json``: their run keys,
    each run's budget, the update it reached and whether it finished, the parts' sha256, whether the trunks' branch
    points are kept, the other fields from ``fields``); stale parts are removed. Returns the manifest."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:xz", preset=6) as tar:
        for name, p in _members(configs, store, trunk_points):
            info = tar.gettarinfo(str(p), arcname=name)
            info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
            with open(p, "rb") as f:
                tar.addfile(info, f)
    blob = buf.getvalue()
    parts = []
    for i, at in enumerate(range(0, max(len(blob), 1), PART_BYTES), 1):
        chunk = blob[at:at + PART_BYTES]
        atomic.write_bytes(folder / PART.format(i), chunk)
        parts.append({"file": PART.format(i), "bytes": len(chunk), "sha256": hashlib.sha256(chunk).hexdigest()})
    for stale in folder.glob("state.tar.xz.part-*"):
        if stale.name not in {p["file"] for p in parts}:
            stale.unlink()
    at = reached(configs, store)
    manifest = {**fields, "keys": sorted(at), "reached": at, "trunk_points": trunk_points,
                "runs": {runs.key(c): {"steps": c["steps"], "reached": at[runs.key(c)],
                                       "done": (runs.run_dir(c, store) / "result.json").exists()} for c in configs},
                "parts": parts, "state_sha256": hashlib.sha256(blob).hexdigest()}
    atomic.write_json(folder / MANIFEST, manifest)
    return manifest


def read_manifest(folder: Path) -> Optional[dict]:
    f = Path(folder) / MANIFEST
    return json.loads(f.read_text()) if f.exists() else None


def restore(folder: Path, store: Path, identity: Optional[str] = None) -> int:
    """Put the packed state of ``folder`` into ``store`` (files the store lacks, or holds older: a run the store
    has finished is left as it is); returns the files written, 0 where ``folder`` holds none. ``ValueError``, before
    anything is written, for a part that is missing or does not match its hash, or for a training code identity
    other than ``identity`` (default: this checkout's)."""
    manifest = read_manifest(folder)
    if manifest is None:
        return 0
    identity = code_identity() if identity is None else identity
    if not same.continues(manifest.get("code_identity"), identity):
        last = (manifest.get("segments") or [{}])[-1].get("commit", "?")
        raise ValueError(f"{folder} was trained under training code {manifest.get('code_identity')}, this checkout's "
                         f"is {identity} (penb.long_run.TRAINING_CODE changed, not shown the same: "
                         f"penb.long_run.same): a continuation would not be the same run; check out the segments' "
                         f"commit {last} to continue it")
    chunks = []
    for p in manifest["parts"]:
        f = Path(folder) / p["file"]
        if not f.exists() or hashlib.sha256(f.read_bytes()).hexdigest() != p["sha256"]:
            raise ValueError(f"{f} is missing or does not match its sha256 in {folder / MANIFEST}")
        chunks.append(f.read_bytes())
    blob = b"".join(chunks)
    if hashlib.sha256(blob).hexdigest() != manifest["state_sha256"]:
        raise ValueError(f"the parts of {folder} do not join into the packed state (sha256)")
    written = 0
    with tarfile.open(fileobj=io.BytesIO(blob), mode="r:xz") as tar:
        members = tar.getmembers()
        for m in members:                         # every member checked before any is written
            if not m.isfile() or Path(m.name).is_absolute() or ".." in Path(m.name).parts:
                raise ValueError(f"{folder}: unexpected member {m.name!r} in the packed state")
        for m in members:
            target = Path(store) / m.name
            run = Path(store) / Path(m.name).parts[0]
            if target.exists() or (run / "result.json").exists() and target.parent.name == "checkpoints":
                continue
            atomic.write_bytes(target, tar.extractfile(m).read())
            written += 1
    return written


def reached(configs: Sequence[dict], store: Path) -> dict:
    """{run key: the update each run of ``configs`` has reached in ``store``}: its budget when finished, else its
    latest checkpoint, else (a WSD branch not begun) the latest checkpoint of its trunk up to its own decay start,
    where it will begin; 0 where there is none."""
    out = {}
    for c in configs:
        d = runs.run_dir(c, store)
        if (d / "result.json").exists():
            out[runs.key(c)] = c["steps"]
        else:
            saved = checkpoints(d) or [*reversed(trunks.latest(trunks.trunk_dir(c, store), trunks.branch_limit(c)))]
            out[runs.key(c)] = saved[-1][0] if saved else 0
    return out
