"""Runs made on a GPU elsewhere, carried back and executed here (``python -m penb archive CHAPTER --from DIR``).

A GPU lease step (``penb.call.lease``) or a GPU slice (``penb.call.slice``) writes a folder of a few files, no
checkpoints:

* ``manifest.json``: what made the runs (device and its name, clean commit, torch, date, preset, parameters, seeds,
  budgets, minutes). A lease's manifest names one ``chapter``; a slice's names several under ``chapters`` (each with
  its preset, parameters, configuration key, run keys and whether all its runs finished);
* ``results.json``: each finished run's ``result.json``, by run key;
* ``predictions.tar`` (a lease) or ``predictions-1.tar``, ``predictions-2.tar``, ... (a slice, each at most
  :data:`PART_BYTES`): the runs' held-out predictions, which re-executing a chapter needs.

:func:`restore` puts such a folder's runs into the run store (each run's key must match its config). :func:`archive`
executes a chapter at the folder's preset against a temporary store made from it, reading the runs as made on their
device (``penb.device.archived``: nothing trains), and writes ``book/archived/<chapter>-<preset>`` (the executed
notebook's status and grades, the manifest, the results): small, and committed. It refuses a folder whose manifest
does not match its runs: another chapter, unfinished runs, an unclean commit, or runs that this code plans for the
manifest's preset and parameters missing from the results (their keys hash each run's whole configuration).
"""
from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import re
import shutil
import tarfile
import tempfile
from pathlib import Path
from typing import Optional
from unittest.mock import patch

from penb.device import ARCHIVED
from penb.store import atomic, identity, paths

from penb import notebook, plan, presets, runs
from penb.claims import history
from penb.call.limits import PART_BYTES     # a part: under the 16 MiB a device call hands back per file
from penb.store.identity import CLEAN_COMMIT as COMMIT
from penb.trunks import FOLDER

KEY = re.compile(r"^[0-9a-f]{16}$")        # a run key (penb.runs.key)


def now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def pack(out: Path, members: list[tuple[str, Path]], single: bool = False) -> list[str]:
    """Write the ``(name in the archive, file)`` members into ``out`` as ``predictions.tar`` (``single``) or as
    ``predictions-1.tar``, ``-2``, ... of at most :data:`PART_BYTES` each (a member never split); earlier parts
    beyond the new count are removed. Returns the file names written."""
    parts: list[list] = [[]]
    size = 0
    for name, path in members:
        n = path.stat().st_size + 1024
        if parts[-1] and size + n > PART_BYTES and not single:
            parts.append([])
            size = 0
        parts[-1].append((name, path))
        size += n
    names = ["predictions.tar"] if single else [f"predictions-{i}.tar" for i in range(1, len(parts) + 1)]
    for fname, part in zip(names, parts):
        def write(tmp: str, part=part) -> None:
            with tarfile.open(tmp, "w") as tar:       # not compressed: the .npz files are
                for name, path in part:
                    tar.add(path, arcname=name)
        atomic.atomic_write(out / fname, write)
    for stale in out.glob("predictions-*.tar"):
        if stale.name not in names:
            stale.unlink()
    return names


def source_commit(what: str = "a lease step") -> str:
    """The clean commit whose code a lease step or a slice runs: ``$PENB_COMMIT`` where the user names one (a GPU
    machine's copy of the tree can carry a stale .git), else the checkout's. ``ValueError`` for a tree with
    uncommitted changes or no commit at all: an archive must name a tree that a reader can check out (issue 36)."""
    named = os.environ.get("PENB_COMMIT", "").strip()
    commit = named or identity.git_commit()
    if not COMMIT.match(commit) or not commit.strip("0"):           # forty zeros name no commit
        where = "$PENB_COMMIT" if named else "this checkout"
        raise ValueError(f"refusing {what} from {where} at {commit or 'no commit'!r}: commit the tree first "
                         f"(or name the clean commit of main it is in PENB_COMMIT), so that the archive names code a "
                         f"reader can check out")
    return commit


def write_runs(configs, out: Path, single: bool = False) -> tuple[dict, list[str]]:
    """Write the finished runs among ``configs`` (each once) into folder ``out``: ``results.json`` and their
    predictions (:func:`pack`), no checkpoints; a temporary file that a killed writer left there is swept first.
    Returns (each finished run's ``result.json`` by run key, the prediction files written)."""
    out.mkdir(parents=True, exist_ok=True)
    for stale in out.glob(".*.tmp"):
        stale.unlink(missing_ok=True)
    results, members = {}, []
    for c in configs:
        d = runs.run_dir(c)
        if runs.status(c) == "done" and d.name not in results:
            results[d.name] = json.loads((d / "result.json").read_text())
            if (d / "predictions.npz").exists():
                members.append((f"{d.name}/predictions.npz", d / "predictions.npz"))
    files = pack(out, members, single)
    atomic.write_json(out / "results.json", results)
    return results, files


def made_on(configs, results: dict) -> dict:
    """What a manifest says of where runs were made: the device type of ``configs`` and, from the finished runs'
    recorded environments, the device names, torch versions and commits (``runs_commit``)."""
    envs = [r.get("environment", {}) for r in results.values()]

    def distinct(k: str) -> list:
        return sorted({str(e.get(k, "")) for e in envs} - {""})
    return {"device": ",".join(sorted({str(c["device"]).split(":")[0] for c in configs})),
            "device_name": distinct("device_name"), "torch": distinct("torch"), "runs_commit": distinct("git_commit")}


def _tars(source: Path) -> list[Path]:
    found = sorted(source.glob("predictions-*.tar"), key=lambda p: int(p.stem.split("-")[1]))
    return found or [source / "predictions.tar"]


def restore(source: Path) -> int:
    """Put the finished runs of a collected folder ``source`` into the run store (those not finished there yet),
    with their predictions; returns how many. A run whose key does not match its config is refused."""
    source = Path(source)
    results = json.loads((source / "results.json").read_text())
    with contextlib.ExitStack() as stack:
        tars = [stack.enter_context(tarfile.open(t)) for t in _tars(source)]
        where = {m: tar for tar in tars for m in tar.getnames()}
        put = 0
        for key, result in results.items():
            if not KEY.match(key) or runs.key(result["config"]) != key:
                raise ValueError(f"{source}: run {key!r} does not match its configuration (another code version?)")
            d = runs.root() / key
            if runs.finished(d):
                continue
            d.mkdir(parents=True, exist_ok=True)
            if result.get("status", "done") == "done":
                name = f"{key}/predictions.npz"
                if name not in where:
                    raise ValueError(f"{source}: run {key} has no predictions in {[t.name for t in _tars(source)]}")
                data = where[name].extractfile(name).read()
                atomic.atomic_write(d / "predictions.npz", lambda tmp: Path(tmp).write_bytes(data))
            atomic.write_json(d / "config.json", result["config"])
            atomic.write_json(d / "result.json", result)
            put += 1
    restore_trunks(source)
    return put


TRUNK_MEMBER = re.compile(r"([0-9a-f]{16})/(step-[0-9]{9}\.pt)")


TRUNK_PART = re.compile(r"trunks-([1-9][0-9]*)\.tar")


def trunk_parts(source: Path) -> list[Path]:
    """A handed-back folder's trunk parts (``trunks-1.tar``, ``-2``, ...: ``penb.call.slice.carry_trunks``), in
    order."""
    found = [p for p in Path(source).glob("trunks-*.tar") if TRUNK_PART.fullmatch(p.name)]
    return sorted(found, key=lambda p: int(TRUNK_PART.fullmatch(p.name).group(1)))


def restore_trunks(source: Path) -> int:
    """Put the trunk checkpoints of a slice's trunk parts (:func:`trunk_parts`) into the store's trunk folders, those
    not there yet; returns how many. Only those parts are read; a member that is not ``<trunk key>/step-<9
    digits>.pt`` is refused (nothing outside the trunk folders is written); a checkpoint's own trunk key is checked
    when a run resumes from it (``penb.trainer.run``)."""
    put = 0
    for part in trunk_parts(source):
        put += _restore_part(part)
    return put


def _restore_part(tar_path: Path) -> int:
    put = 0
    with tarfile.open(tar_path) as tar:
        for m in tar.getmembers():
            match = TRUNK_MEMBER.fullmatch(m.name)
            if not match or not m.isfile():
                raise ValueError(f"{tar_path}: {m.name!r} is not a trunk checkpoint (<trunk key>/step-N.pt)")
            dest = runs.root() / FOLDER / match.group(1) / match.group(2)
            if dest.exists():
                continue
            atomic.write_bytes(dest, tar.extractfile(m).read())
            put += 1
    return put


def manifest(source: Path, chapter: str) -> dict:
    """The manifest of ``source`` as one chapter's: a slice's top-level fields with that chapter's own merged in.
    ``ValueError`` for a folder without one, or one that holds no runs of ``chapter``."""
    source = Path(source)
    if not (source / "manifest.json").is_file():
        raise ValueError(f"{source} holds no GPU runs (no manifest.json): give the folder a lease step or a slice "
                         f"wrote with --out")
    man = json.loads((source / "manifest.json").read_text())
    if "chapters" in man:                                         # a slice: several chapters
        if chapter not in man["chapters"]:
            raise ValueError(f"{source} holds runs of {', '.join(man['chapters'])}, not {chapter!r}")
        man = {**{k: v for k, v in man.items() if k != "chapters"}, **man["chapters"][chapter], "chapter": chapter,
               "with": sorted(man["chapters"])}
    if man["chapter"] != chapter:
        raise ValueError(f"{source} holds runs of {man['chapter']!r}, not {chapter!r}")
    return man


def check_runs(chapter: str, man: dict, results: dict) -> None:
    """``ValueError`` unless every run that this code plans for the manifest's preset and parameters is among
    ``results`` (by run key, which hashes each run's whole configuration and the store version): a mismatch means
    another code version, preset or parameters than the runs were made with. (The manifest's ``config_key`` is not
    compared: it also hashes settings that make no run, such as ``batch_runs``.)"""
    cfg = presets.resolve(chapter, man["preset"], **man["parameters"])
    missing = [k for k in dict.fromkeys(runs.key(c) for c in plan.configs_for(chapter, cfg)) if k not in results]
    if missing:
        raise ValueError(f"the manifest does not match its runs: {len(missing)} of the runs {chapter} plans at "
                         f"{man['preset']!r} are not in results.json (first {missing[0]}); archive it from the "
                         f"commit that made it ({', '.join(man.get('commit') or ['unknown'])})")


CURVE_FROM = 1_000          # the first update an archived curve shows (the chapter's long-run curves, issue 65)
CURVE_PER_DOUBLING = 8      # points kept per doubling of updates past it


def thinned(entries: list, start: int = CURVE_FROM, per_doubling: int = CURVE_PER_DOUBLING) -> list:
    """A run's history ``entries`` (each with a ``step``, in order) on a log grid: for each grid value ``start *
    2**(j / per_doubling)`` the first entry at or past it, and the last entry; nothing before ``start``."""
    out, j = [], 0
    for i, h in enumerate(entries):
        if h["step"] >= start * 2 ** (j / per_doubling) or i == len(entries) - 1:
            out.append(h)
            while h["step"] >= start * 2 ** (j / per_doubling):
                j += 1
    return out


def committed(results: dict, keys: set) -> dict:
    """The runs of ``keys`` as an archive commits them: each result's per-update ``history`` on a log grid from
    1,000 updates (:func:`thinned`, about 70 entries a run of 300,000; the whole histories of a deep preset's 120 runs
    exceed the 2 MB a tracked file may hold). The collected folder keeps the whole histories."""
    return {k: {**r, "history": thinned(list(r.get("history") or []))} for k, r in results.items() if k in keys}


def archive(chapter: str, source: Path, dest: Optional[Path] = None) -> Path:
    """Execute ``chapter`` against the runs collected in ``source`` (training nothing) and write the archived
    execution to ``dest`` (default ``book/archived/<chapter>-<preset>``); returns ``dest``."""
    source = Path(source)
    man = manifest(source, chapter)
    if not man["complete"]:
        missing = man.get("missing") or []
        first = (f" (missing: {len(missing)}, e.g. {missing[0]['core']} V {missing[0]['vocab']} "
                 f"{missing[0]['encoding']} seed {missing[0]['seed']} at {missing[0]['steps']:,} updates)"
                 if missing else "")
        raise ValueError(f"{source} holds {man['finished']} of the {man['runs']} runs of {chapter} at preset "
                         f"{man['preset']!r}{first}: train the rest first (another lease step, or another call "
                         f"with FROM={source})")
    bad = [c for c in man.get("commit") or [""] if not COMMIT.match(c) or not c.strip("0")]
    if bad:
        raise ValueError(f"{source} names the commit {bad[0] or 'none'!r}, a tree no reader can check out: archive "
                         f"only runs made from a clean commit")
    results = json.loads((source / "results.json").read_text())
    made_from = identity.git_commit()                # before this archive rewrites a tracked folder ("+dirty")
    dest = Path(dest) if dest is not None else paths.REPO / "book" / "archived" / f"{chapter}-{man['preset']}"
    if dest.exists() and any(dest.iterdir()) and not (dest / "manifest.json").exists():
        raise ValueError(f"{dest} is not empty and holds no archived execution: choose another --dest")
    with tempfile.TemporaryDirectory() as tmp, \
            patch.dict(os.environ, {"PENB_STORE": str(Path(tmp) / "store"), ARCHIVED: man["device"]}):
        check_runs(chapter, man, results)
        restore(source)
        executed = notebook.run_chapter(chapter, {"preset": man["preset"], **man["parameters"]},
                                        Path(tmp) / "executed").parent
        shutil.rmtree(dest, ignore_errors=True)
        dest.mkdir(parents=True)
        for f in executed.iterdir():                 # the notebook, its status and its recorded grades
            if f.is_file():
                shutil.copy2(f, dest / f.name)
    mine = set(man.get("keys") or results)           # a slice's chapter: its own runs only
    atomic.write_json(dest / "results.json", committed(results, mine))
    man["archived"] = {"date": now(), "commit": made_from, "by": f"python -m penb archive {chapter}"}
    man.pop("keys", None)
    atomic.write_json(dest / "manifest.json", man)
    if dest.parent == paths.REPO / "book" / "archived":   # the book's own: its verdicts join every protocol's table
        for f in dest.glob("*.grades.json"):
            history.add(json.loads(f.read_text()), dest.name, made_from)
    return dest
