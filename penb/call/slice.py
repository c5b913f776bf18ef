"""One short GPU call that trains chapters' runs as batches and hands back what re-executing them needs.

    python -m penb slice key_findings --minutes 8 --out DIR          # on a GPU machine, from a clean commit
    python -m penb archive key_findings --from DIR                   # on any machine with the book's packages

A GPU is often at hand only in slices (a 10-minute command, a debug queue). A chapter's ``slice`` preset is sized to
one such call: small models, many seeds, WSD budgets N/4, N/2 and N on one trunk, all trained as batches of runs
of one shape (``penb.executors.batched``, one batch per shape: ``penb.trainer``). Before anything trains,
:func:`contents` lists the runs, groups them into the batches the executor will train, and estimates each batch's
seconds on one GPU from the measured batched rates (``penb.executors.cost.batch_update_seconds``); a plan whose
estimate plus :data:`OVERHEAD_S` exceeds ``--minutes``, or whose output would not fit :data:`MAX_FILES` files,
is refused in one line. The slice then trains the batches in order (longest budgets first, so each trunk is there
before its branches) and, after every batch, rewrites the output folder (atomically, no checkpoints):

* ``manifest.json``: device, GPU name, clean commit, torch, date, preset, minutes (asked, estimated, spent), and per
  chapter its parameters, configuration key, seeds, budgets, run keys and how many finished;
* ``results.json`` and ``predictions-1.tar``, ``-2``, ... (``penb.call.archive``: at most 15 MiB each).

The planning, driving, description and collection are :mod:`penb.call.budgeted`'s, as the lease's. A call cut off (a
time limit, a kill) leaves the batches finished before it; a batch that would end past the deadline (its estimate
scaled by how much slower than estimated the batches so far ran) is left for the next call, and one the deadline
reaches mid-way stops there (its runs' checkpoints stay in the store, not in the folder). It needs torch, numpy, scipy, pandas, tqdm and filelock: no papermill,
jupytext, ipykernel or submitit (a bare GPU image's packages).
"""
from __future__ import annotations

import json
import tarfile
import time
from pathlib import Path
from typing import Callable, Optional

import torch

from penb import plan, presets, runs
from penb.call import budgeted, fit as call_fit
from penb.call.archive import restore, source_commit, trunk_parts
from penb.call.limits import CARRY_BYTES, MAX_FILES, MAX_MINUTES, OVERHEAD_S, PART_BYTES, PREDICTION_BYTES  # noqa: F401
from penb.executors.cost import BATCHED_SOURCE
from penb.progress import watching
from penb.store import atomic
from penb.trunks import branch_limit, latest, longest, trunk_dir

TRUNKS = "trunks-{}.tar"    # the trunks' last checkpoints in parts, from which a later call continues


def with_slice(preset: str = "slice") -> list[str]:
    """The chapters that have ``preset`` (sorted)."""
    return [c for c in presets.chapters() if preset in presets.table(c)]


def here() -> dict:
    """The overrides that plan a slice on this machine: none with CUDA; ``device="cpu"`` without (planned, not
    trained: the estimate is an H100's either way)."""
    return {} if torch.cuda.is_available() else {"device": "cpu"}


def contents(chapters: list[str], preset: str = "slice", overrides: Optional[dict] = None) -> dict:
    """What a slice of ``chapters`` at ``preset`` trains, before anything trains: {"chapters": {name: {"cfg",
    "configs"}}, "batches": [{"configs", "runs", "updates", "seconds", "measured"}] in training order,
    "seconds" (all batches), "measured" (every batch's shape was measured)}. Runs that two chapters share count
    once. ``ValueError`` for an unknown chapter or parameter, or a chapter without the preset."""
    if not chapters:
        raise ValueError("name at least one chapter, e.g. python -m penb slice key_findings --minutes 8 --out DIR")
    found, seen = {}, {}
    for ch in chapters:
        if ch not in presets.chapters():
            raise ValueError(f"unknown chapter {ch!r}{presets.suggest([ch], presets.chapters())}")
        if preset not in presets.table(ch):
            raise ValueError(f"{ch} has no {preset!r} preset; chapters with one: {', '.join(with_slice(preset))}")
        cfg = presets.resolve(ch, preset, **(overrides or {}))     # (a slice trains batched whatever its executor)
        configs = plan.configs_for(ch, cfg)
        found[ch] = {"cfg": cfg, "configs": configs}
        seen.update({runs.key(c): (c, cfg.batch_runs) for c in configs})
    out = budgeted.groups([c for c, _ in seen.values()], batched=True, width=min(k for _, k in seen.values()))
    return {"chapters": found, "batches": out, "seconds": sum(b["seconds"] for b in out), "overrides": dict(overrides
            or {}), "measured": all(b["measured"] for b in out), "runs": len(seen)}


def _targets(source: Optional[Path]) -> Optional[dict]:
    """The overrides an earlier sized call trained toward (``source``'s manifest), which a call given it keeps
    (``penb.call.fit.size``'s ``fixed``); None without one."""
    man = Path(source) / "manifest.json" if source is not None else None
    if man is None or not man.is_file():
        return None
    sizing = json.loads(man.read_text()).get("sizing") or {}
    return sizing.get("overrides")


def check(p: dict, minutes: float, sized: bool = False) -> None:
    """``ValueError`` (one line) for a slice that cannot fit ``minutes`` on one GPU, or whose output would not fit
    the files a GPU machine hands back. A ``sized`` plan (``penb.call.fit``: it has already trained less where
    the call is short, and says so) is not refused for its minutes."""
    if not 0 < minutes <= MAX_MINUTES:
        raise ValueError(f"--minutes must be in (0, {MAX_MINUTES:g}] (a GPU command's 10 minutes, less the "
                         f"machine's start), got {minutes:g}")
    need = (p["seconds"] + OVERHEAD_S) / 60
    if need > minutes and not sized:
        raise ValueError(f"the slice needs about {need:.1f} minutes on one GPU (training {p['seconds'] / 60:.1f} + "
                         f"{OVERHEAD_S / 60:.0f} of overhead), more than --minutes {minutes:g}: slice fewer chapters "
                         f"per call, or give fewer seeds or updates")
    size = sum(PREDICTION_BYTES * max(1, c["length"] // 16) for b in p["batches"] for c in b["configs"])
    if size > (MAX_FILES - 2) * PART_BYTES:
        raise ValueError(f"the slice's predictions (~{size / 2 ** 20:.0f} MiB) would not fit {MAX_FILES - 2} files "
                         f"of {PART_BYTES / 2 ** 20:.0f} MiB: slice fewer chapters per call")


def describe(p: dict, minutes: Optional[float] = None) -> str:
    """The plan as lines for the terminal (:func:`penb.call.budgeted.describe`: per batch its model, vocabulary,
    encoding, budget, runs and estimate), the total and the rates' source."""
    total = (p["seconds"] + OVERHEAD_S) / 60
    head = (f"{p['runs']} runs of {', '.join(p['chapters'])}: about {total:.1f} minutes on one GPU "
            f"({p['seconds'] / 60:.1f} training + {OVERHEAD_S / 60:.0f} overhead)"
            + (f", of --minutes {minutes:g}" if minutes else ""))
    rates = f"rates: {BATCHED_SOURCE}" + ("" if p["measured"] else "; a shape not measured is scaled up from its "
                                          "model's nearest measured one (penb.executors.cost)")
    return budgeted.describe(p["batches"], head + "\n" + rates)


def run(chapters: list[str], minutes: float, out: Path, preset: str = "slice", overrides: Optional[dict] = None,
        clock: Callable[[], float] = time.monotonic, progress: bool = False, source: Optional[Path] = None,
        sized: bool = False, timer: Optional[Callable] = None) -> dict:
    """Train the slice (see the module's docstring) and write ``out``; returns {"runs", "finished", "left",
    "spent_min", "estimate_min", "out", "trained"} (``trained``: the updates each run made, from
    :func:`penb.call.budgeted.drive`). The finished runs ``out`` already holds (an earlier call's) and those of
    ``source`` (``--from``) go into the store first, so a call on a fresh machine trains only the rest and never
    hands back fewer runs than ``out`` held. ``clock`` (seconds) is the call's timer; tests pass a fake one.
    ``sized``: the budgets come from this device's measured rates (``penb.call.fit``, ``timer`` its measurement)
    instead of the preset's, and the manifest records the sizing."""
    start = clock()
    out = Path(out)
    for folder in [f for f in (source, out) if f is not None and (Path(f) / "results.json").is_file()]:
        restore(folder)                              # an earlier call's runs (a fresh machine has no store)
    sizing = None
    if sized:
        sizing = call_fit.size(chapters, preset, overrides, minutes, contents, OVERHEAD_S,
                                   **({"timer": timer} if timer else {}), clock=clock, fixed=_targets(source))
        p = sizing.pop("plan")
        p["seconds"], p["measured"] = sizing["estimate_s"] + sizing["measure_s"], True
    else:
        p = contents(chapters, preset, overrides)
    p["sizing"] = sizing
    check(p, minutes, sized=sizing is not None)
    commit = source_commit("a slice")                # a clean commit, before anything trains
    out.mkdir(parents=True, exist_ok=True)
    deadline = start + minutes * 60 - OVERHEAD_S / 2   # the rest: evaluation and the last collection
    done = sum(runs.status(c) == "done" for b in p["batches"] for c in b["configs"])
    with watching(",".join(chapters), p["runs"], done, minutes * 60, "--minutes", on=progress):
        driven = budgeted.drive(p["batches"], deadline, clock, fit=sizing is None or sizing["fits"],
                                after=lambda: collect(p, out, commit, minutes, (clock() - start) / 60))
    return {**collect(p, out, commit, minutes, (clock() - start) / 60), "trained": driven["trained"],
            "fallbacks": (sizing or {}).get("fallbacks", [])}


def collect(p: dict, out: Path, commit: str, minutes: float, spent_min: float) -> dict:
    """Write the finished runs of plan ``p`` into ``out`` (:func:`penb.call.budgeted.collect`: manifest, results,
    predictions parts; a temporary file that a killed call left is swept first); the status."""
    configs = [c for b in p["batches"] for c in b["configs"]]

    def read_off(results: dict) -> dict:             # after the runs are written: their chapters, then the trunks
        carried = carry_trunks(configs, out)
        return {"chapters": {ch: _chapter(item, p["overrides"], results) for ch, item in p["chapters"].items()},
                "trunks": carried, "extra_files": [TRUNKS.format(i) for i in range(1, carried["parts"] + 1)]}
    results = budgeted.collect(
        out, configs, commit, per_results=read_off, kind="slice", minutes=minutes,
        estimate_min=round((p["seconds"] + OVERHEAD_S) / 60, 2), spent_min=round(spent_min, 2),
        overhead_s=OVERHEAD_S, **({"sizing": p["sizing"]} if p.get("sizing") else {}))
    return {"runs": p["runs"], "finished": len(results), "left": p["runs"] - len(results),
            "spent_min": spent_min, "estimate_min": (p["seconds"] + OVERHEAD_S) / 60, "out": str(out)}


def _chapter(item: dict, overrides: dict, results: dict) -> dict:
    """A chapter's entry in the slice's manifest: preset, parameters, configuration key, seeds, budgets, run keys,
    how many of them finished (``results``: the finished runs' results by key) or diverged, and what is missing
    (issue 60: a cut call's folder says which runs the next call has to train)."""
    cfg, keys = item["cfg"], list(dict.fromkeys(runs.key(c) for c in item["configs"]))
    finished = sum(k in results for k in keys)
    budgets: dict = {}
    for c in item["configs"]:
        budgets.setdefault(c["core"], set()).add(c["steps"])
    return {"preset": cfg.preset, "parameters": overrides, "config_key": cfg.key(), "runs": len(keys),
            "finished": finished, "complete": finished == len(keys),
            "diverged": sum(results[k].get("status") == "diverged" for k in keys if k in results),
            "seeds": sorted({c["seed"] for c in item["configs"]}),
            "updates": {core: max(s) for core, s in budgets.items()},
            "budgets": {core: sorted(s) for core, s in budgets.items()}, "keys": keys,
            "missing": [dict(key=runs.key(c), core=c["core"], vocab=c["vocab_size"], encoding=c["encoding"],
                             seed=c["seed"], steps=c["steps"])
                        for c in {runs.key(c): c for c in item["configs"]}.values() if runs.key(c) not in results]}


def carry_trunks(configs: list, out: Path) -> dict:
    """Write ``trunks-1.tar``, ``-2``, ... into ``out``: for each WSD trunk of ``configs``, its latest checkpoint at or
    before its longest budget's decay start (0.8 N once that run is done: weights, Adam's moments, step and history;
    an earlier one, or a restored one, while it is not), so that a later slice at 2N continues that trunk from 0.8 N
    instead of starting over (``penb.call.archive.restore_trunks`` puts them back). Trunks go in the order of their
    checkpoints' size, smallest first, into parts of at most ``PART_BYTES``, while the folder stays within
    ``CARRY_BYTES`` (less 256 KiB for the manifest) and ``MAX_FILES`` files (``penb.call.limits``); returns
    {"carried", "of", "bytes", "parts", "steps": {trunk key: step}}. A trunk left out is retrained from 0 by the
    next call."""
    tops = longest(configs)
    found = []
    for key, c in tops.items():                      # done or not: the latest a later call can continue from
        saved = latest(trunk_dir(c, runs.root()), branch_limit(c))
        if saved:
            found.append((saved[0][1].stat().st_size, key, saved[0][0], saved[0][1]))
    old = set(trunk_parts(out))
    others = [f for f in out.iterdir() if f.is_file() and f not in old and not f.name.startswith(".")]
    room = CARRY_BYTES - sum(f.stat().st_size for f in others) - 256 * 2 ** 10
    free = MAX_FILES - len({f.name for f in others} | {"manifest.json"})
    parts: list[list] = []
    for size, key, step, path in sorted(found):
        need = size + 1024                          # the member and its tar header
        if need > min(room, PART_BYTES):
            break
        if not parts or sum(x[3] for x in parts[-1]) + need > PART_BYTES:
            if len(parts) >= free:
                break
            parts.append([])
        parts[-1].append((key, step, path, need))
        room -= need
    for i, part in enumerate(parts, 1):
        def write(tmp: str, part=part) -> None:
            with tarfile.open(tmp, "w") as tar:
                for key, step, path, _ in part:
                    tar.add(path, arcname=f"{key}/{path.name}")
        atomic.atomic_write(out / TRUNKS.format(i), write)
    for stale in old - {out / TRUNKS.format(i) for i in range(1, len(parts) + 1)}:
        stale.unlink()
    chosen = [x for part in parts for x in part]
    return {"carried": len(chosen), "of": len(tops), "bytes": sum(p.stat().st_size for _, _, p, _ in chosen),
            "parts": len(parts), "steps": {key: step for key, step, _, _ in chosen}}
