"""A fixed-target preset trained on the CPU in segments that survive a new machine (issue 65).

The long run of Fig. 2's headline trains DEEP_RULE v2's cells (``key_findings``, preset ``deep_v2``) by cell, a few
hours at a time, on whatever 2-core machine a session gets. Nothing here trains differently: every update goes
through ``penb.call.budgeted.drive`` and ``penb.runner.train_group``, the runner and batched trainer every run takes.
What this package adds is the state between segments, packed and restored by :mod:`.packed` (its names are
re-exported here), and :func:`segment`: restore, train the cells until a deadline (the runs of each WSD trunk on one
of ``workers`` one-thread processes; at the deadline each unfinished run saves a checkpoint at its current update),
and pack.
"""
from __future__ import annotations

import concurrent.futures as cf
import json
import multiprocessing as mp
import time
from pathlib import Path
from typing import Optional, Sequence

import torch

from penb import plan, presets, runs, sizing, trunks
from penb.call import budgeted
from penb.call.archive import source_commit
from penb.long_run.packed import (MANIFEST, PART, PART_BYTES, TRAINING_CODE, _members, code_identity,  # noqa: F401
                                  host, pack, read_manifest, reached, restore)          # (re-exported)
from penb.store import paths


def by_trunk(configs: Sequence[dict], workers: int) -> list[list[dict]]:
    """``configs`` dealt to ``workers`` shares, the runs of one WSD trunk always in one share (round robin over the
    trunks in order of their first run)."""
    order: dict[str, list] = {}
    for c in configs:
        order.setdefault(trunks.trunk_key(c) if trunks.shares_trunk(c) else runs.key(c), []).append(c)
    shares: list[list[dict]] = [[] for _ in range(max(1, min(workers, len(order))))]
    for i, group in enumerate(order.values()):
        shares[i % len(shares)].extend(group)
    return shares


def _drive_share(share: list, deadline: float) -> dict:
    """In a one-thread worker: train ``share`` (one or more WSD trunks) in the run store (``penb.runs.root()``, the
    parent's ``PENB_STORE``) until ``deadline`` (epoch seconds), its runs as one batch per budget
    (``penb.call.budgeted``)."""
    torch.set_num_threads(1)
    return budgeted.drive(budgeted.groups(share, batched=True, width=len(share)), deadline, time.time, fit=False)


def segment(configs: Sequence[dict], folder: Path, minutes: float, workers: int = 2,
            fields: Optional[dict] = None, commit: str = "", sources: Sequence[Path] = ()) -> dict:
    """One segment: restore ``sources`` (the folders of the presets whose trunks these runs continue) and ``folder``
    into the run store (``penb.runs.root()``), train ``configs`` for at most ``minutes`` on ``workers`` one-thread
    processes, then pack the state back into ``folder`` with this segment appended to its manifest. Returns the
    manifest."""
    store = runs.root()
    _restored([*sources, folder], store)
    identity = code_identity()
    before = reached(configs, store)
    start = time.time()
    deadline = start + 60 * minutes
    shares = by_trunk([c for c in configs if runs.status(c, store) != "done"], workers)
    if any(shares):
        with cf.ProcessPoolExecutor(len(shares), mp_context=mp.get_context("spawn")) as pool:
            list(pool.map(_drive_share, shares, [deadline] * len(shares)))
    old, configs = _with_held(folder, configs, store)           # the folder's other cells are packed back too
    after = reached(configs, store)
    seg = {"commit": commit, "host": host(), "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(start)),
           "minutes": round((time.time() - start) / 60, 1),
           "updates": {k: [before.get(k, v), v] for k, v in after.items() if v != before.get(k, v)}}
    return pack(folder, configs, store, {**(fields or {}), "code_identity": identity,
                                         "segments": [*old.get("segments", []), seg]},
                trunk_points=_trunk_points(configs, store, (fields or {}).get("preset")))


def _with_held(folder: Path, configs: Sequence[dict], store: Path) -> tuple[dict, list[dict]]:
    """(``folder``'s manifest, ``configs`` and the runs it holds beyond them: another cell trained by an earlier
    segment, read back from their restored ``config.json``, so that a pack keeps them)."""
    old = read_manifest(folder) or {}
    have = {runs.key(c) for c in configs}
    held = [json.loads((Path(store) / k / "config.json").read_text()) for k in old.get("keys", [])
            if k not in have and (Path(store) / k / "config.json").exists()]
    return old, [*configs, *held]


def _restored(folders: Sequence[Path], store: Path) -> dict:
    """Restore each of ``folders`` into ``store`` in order, under this checkout's training code identity (refused
    under another); {folder name: files written} for each folder that holds a long run's state."""
    identity = code_identity()
    return {f.name: restore(f, store, identity) for f in folders if read_manifest(f) is not None}


def repack(configs: Sequence[dict], folder: Path, sources: Sequence[Path] = ()) -> dict:
    """Restore ``sources`` and ``folder`` into the run store and pack ``folder`` again from there with this
    checkout's manifest fields, its segments kept and none added (``python -m penb long-run ... --pack-only``): a
    format brought up to date, or the state of a store trained here collected. Refused, as a continuation is, under
    another training code identity."""
    store = runs.root()
    _restored([*sources, folder], store)
    identity = code_identity()
    old, configs = _with_held(folder, configs, store)
    keep = {k: v for k, v in old.items()
            if k not in ("keys", "reached", "runs", "parts", "state_sha256", "trunk_points")}
    return pack(folder, configs, store, {**keep, "code_identity": identity, "segments": old.get("segments", [])},
                trunk_points=_trunk_points(configs, store, old.get("preset")))


def _trunk_points(configs: Sequence[dict], store: Path, preset: Optional[str]) -> bool:
    """Whether a pack keeps the WSD trunks' branch points: while a run of ``configs`` is unfinished, or while a later
    preset continues ``preset``'s trunks (:data:`CONTINUES`). Once the targets are reached and nothing continues
    them, the trunk files go (issue 65); the finished runs' results and predictions stay, so that the archive made
    from them can be executed again under a later protocol (issue 66's three archives could not)."""
    return preset in CONTINUES.values() or any(not (runs.run_dir(c, store) / "result.json").exists()
                                               for c in configs)


def folder_for(chapter: str, preset: str) -> Path:
    """Where a long run's state is committed: ``book/archived/<chapter>-<preset>-trunks``."""
    return paths.REPO / "book" / "archived" / f"{chapter}-{preset}-trunks"


# {preset: the preset whose long-run trunks its runs continue} (penb.sizing: DEEP_RULE v3 continues v2's trunks)
CONTINUES = {"deep_v3": sizing.DEEP_V3_CONTINUES}


def sources_for(chapter: str, preset: str) -> list[Path]:
    """The folders restored before ``preset``'s own: those of the presets it continues, oldest first."""
    out, at = [], CONTINUES.get(preset)
    while at:
        out.insert(0, folder_for(chapter, at))
        at = CONTINUES.get(at)
    return out


def chain(chapter: str, preset: str) -> list[Path]:
    """The folders of ``preset``'s long run in the order they are restored: those it continues, then its own."""
    return [*sources_for(chapter, preset), folder_for(chapter, preset)]


def restore_for(chapters: Sequence[str], preset: str, store: Optional[Path] = None) -> dict:
    """Put the committed long-run state of each of ``chapters`` at ``preset`` (the presets it continues first) into
    ``store`` (default: the run store), so that a device call continues these trunks instead of starting others
    (``penb.call.device_run``); {folder name: files written} for each folder there is."""
    store = Path(store) if store is not None else runs.root()
    return {k: v for chapter in chapters
            for k, v in _restored(chain(chapter, preset), store).items()}


def trained_by(chapter: str, preset: str) -> dict:
    """{folder name: {"code_identity", "segments"}} of the long run behind ``chapter``'s ``preset`` (the presets it
    continues first; {} where none is committed): how its runs were trained, segment by segment (commit, host,
    minutes, updates), for the manifest of an archive made from them."""
    return {f.name: {"code_identity": m.get("code_identity"), "segments": m.get("segments", [])}
            for f in chain(chapter, preset) for m in [read_manifest(f)] if m is not None}


def collect(chapter: str, preset: str, out: Path, parameters: Optional[dict] = None,
            minutes: Optional[float] = None) -> dict:
    """``python -m penb collect``: ``penb.call.budgeted.collect_preset`` with :func:`trained_by` in the manifest
    where a long run trained the runs (``long_run``), so that their archive says each segment's host, commit and
    minutes. Returns the manifest."""
    trained = trained_by(chapter, preset)
    return budgeted.collect_preset(chapter, preset, out, parameters, minutes,
                                   **({"long_run": trained} if trained else {}))


def run(chapter: str, preset: str, parameters: dict, minutes: float, workers: int = 2,
        folder: Optional[Path] = None, pack_only: bool = False) -> dict:
    """``python -m penb long-run``: one segment of ``chapter``'s fixed-target ``preset`` with ``parameters`` (on the
    CPU; a cell subset such as ``gru_vocab=(256,)``, which the chapter's ``check`` accepts only within the preset's
    cells), from this checkout's clean commit. Returns the manifest."""
    commit = source_commit("a long-run segment")
    cfg = presets.resolve(chapter, preset, **{"device": "cpu", **parameters})
    configs = plan.configs_for(chapter, cfg)
    sources = sources_for(chapter, preset)
    if pack_only:
        return repack(configs, folder or folder_for(chapter, preset), sources)
    if not minutes > 0:
        raise ValueError(f"a segment needs --minutes > 0 (got {minutes}); --pack-only packs without training")
    return segment(configs, folder or folder_for(chapter, preset), minutes, workers, commit=commit, sources=sources,
                   fields={"chapter": chapter, "preset": preset, "parameters": {"device": "cpu", **parameters},
                           "config_key": cfg.key(), "made_by": f"python -m penb long-run {chapter} --preset {preset}"})
