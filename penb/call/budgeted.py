"""One time-budgeted driver for GPU work in short calls (issue 51, item 4): the lease and the slice both plan, train,
describe and collect through it, and differ only in what they ask of it.

* :func:`groups`: a call's **groups** in training order, each ``{"configs", "runs", "updates", "seconds",
  "measured"}``: one run each (the lease: paper-sized runs one at a time, in the order given) or the batches of the
  batched executor (the slice: ``penb.executors.batched.in_batches``); the seconds are estimated from the measured rates
  (``penb.executors.cost.batch_update_seconds``), counting for a WSD branch only its decay where the trunk's
  branch point is there (:func:`updates`).
* :func:`drive`: trains the groups through ``penb.runner.train_group`` until a deadline. A group whose estimate
  (scaled by how much slower than estimated the groups so far ran) would end past it is left for the next call;
  a group the deadline reaches mid-way saves a checkpoint of each of its runs and stops (:class:`TimeUp`). After
  every group ``after()`` runs (the caller's collection), so a call cut off keeps what finished.
* :func:`describe`: the groups as a table, with the updates this call made where it trained.
* :func:`collect`: a folder of finished runs (``results.json``, predictions) and a ``manifest.json`` whose common
  fields (device, its name, torch, commit, date, runs, finished, diverged, files) are written here and the
  caller's beside them.
* :class:`Ledger` (the lease's option): the seconds spent over all calls, kept in the store.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Optional, Sequence

from penb import plan, presets, runner, runs, trunks   # runner.train_group, trunks.to_go: tests replace them
from penb.call.archive import made_on, now, source_commit, write_runs
from penb.executors import batched as executor
from penb.executors.cost import batch_update_seconds
from penb.store import atomic
from penb.store.paths import checkpoint_path
from penb.trainer.kernels import stackable
from penb.trunks import branch_limit, branch_points, latest, longest as longest_of, shares_trunk, trunk_dir, trunk_key


class TimeUp(Exception):
    """The deadline came mid-group (raised by the per-update check once the runs in hand are checkpointed)."""


def updates(c: dict, longest: dict) -> int:
    """The updates run ``c`` trains in this call: from its WSD trunk's latest checkpoint at or before its decay
    start where the store holds one (an earlier call's, or one restored from a handed-back folder: the run then
    continues instead of starting over), or from its decay start where the trunk's longest run in this call saves
    that branch point (``penb.trunks.branch_points``) on its way; else all of them. ``longest``: {trunk key: the
    longest run of that trunk among the call's runs}."""
    if not shares_trunk(c):
        return trunks.to_go(c, branch=False)
    top = longest.get(trunk_key(c))
    if top is not None and top["steps"] > c["steps"] and branch_limit(c) in branch_points(top) and \
            runs.status(top) != "done":
        return trunks.to_go(c, branch=True)
    saved = latest(trunk_dir(c, runs.root()), branch_limit(c))
    return trunks.to_go(c, branch=False, start=saved[0][0] if saved else 0)


def groups(configs: Sequence[dict], batched: bool, width: int = 1) -> list[dict]:
    """The groups of normalised ``configs`` in training order (see the module's docstring): with ``batched`` the
    batched executor's batches of at most ``width`` runs (a run that cannot share a batch after them, alone), else
    one run per group in the order given. Only what is not done counts toward a group's updates and seconds."""
    unique = list({runs.key(c): c for c in configs}.values())
    longest = longest_of(unique)
    todo = [b for b, _ in executor.groups(unique, width)] if batched else [[c] for c in unique]
    out = []
    for group in todo:
        left = [c for c in group if runs.status(c) != "done"]        # a call that resumes: only what is left
        n = max((updates(c, longest) for c in left), default=0)
        c = group[0]
        one_batch = batched and stackable(c)
        per, measured = batch_update_seconds(c, max(len(left), 1) if one_batch else 1)
        out.append({"configs": group, "runs": len(group), "updates": n, "measured": measured,
                    "seconds": n * per * (1 if one_batch else len(left))})
    return out


def _stop_at(deadline: float, clock, seen: dict):
    """The per-update check of a group: records where each run started (``seen``: key -> from) and every trainer the
    group makes (one, or one per run where a batch does not pay: ``seen["trainers"]``); at the deadline (unless
    every run has just made its last update) checkpoints each unfinished run at this update, one with a bad update
    since its last log excepted (its next log ends it), and raises :class:`TimeUp`."""
    def check(trainer) -> None:
        if not seen.get("trainers") or seen["trainers"][-1] is not trainer:
            seen.setdefault("trainers", []).append(trainer)
            b = trainer.batch                        # the runs that made this first update: one step back
            moved = set(b.slots) if b is not None else {j for j, r in enumerate(trainer.runs) if r.outcome}
            for j, (r, d) in enumerate(zip(trainer.runs, trainer.run_dirs)):
                seen.setdefault(Path(d).name, r.step - (j in moved))
        if clock() < deadline:
            return
        left = [(r, d) for r, d in zip(trainer.runs, trainer.run_dirs)
                if r.outcome is None and r.step < r.config["steps"]]
        if left:
            trainer.sync()
            for r, d in left:                        # a multiple of checkpoint_every was saved at that update
                if r.step % r.config["checkpoint_every"] and not float(r.acc[3]) > 0:
                    r.save(checkpoint_path(Path(d), r.step))
            raise TimeUp("the deadline came mid-group")
    return check


def drive(groups: Sequence[dict], deadline: float, clock: Callable[[], float], *, fit: bool = True,
          after: Optional[Callable[[], None]] = None, progress: bool = False) -> dict:
    """Train ``groups`` (:func:`groups`) in order until ``deadline`` (by ``clock``, seconds): with ``fit`` a group
    whose scaled estimate would end past the deadline is left whole for the next call (the slice, whose folders
    carry no checkpoints); without, it starts and is cut at the deadline (the lease, whose store keeps them). Returns
    {"trained": [{key, core, vocab, encoding, seed, steps, from, to}] (the updates this call made), "stopped": whether time ran out
    before every group was done, "estimated", "took": the trained groups' estimated and measured seconds}."""
    trained: list[dict] = []
    estimated = took = 0.0
    stopped = False
    for g in groups:
        if all(runs.status(c) == "done" for c in g["configs"]):
            continue
        slower = max(1.0, took / estimated) if estimated else 1.0   # this machine against the estimate
        if clock() >= deadline or (fit and clock() + g["seconds"] * slower > deadline):
            stopped = True                                          # left for the next call
            break
        seen: dict = {}
        t = clock()
        try:
            runner.train_group(g["configs"], runs.root(), progress=progress, callback=_stop_at(deadline, clock, seen),
                               **({"compile": g["compile"]} if "compile" in g else {}))   # a sized call's choice
        except TimeUp:
            stopped = True
        steps = {Path(d).name: r.step for tr in seen.pop("trainers", []) for r, d in zip(tr.runs, tr.run_dirs)}
        for c in g["configs"]:
            k = runs.key(c)
            if k in seen:
                trained.append(dict(key=k, core=c["core"], vocab=c["vocab_size"], encoding=c["encoding"],
                                    seed=c["seed"], steps=c["steps"], **{"from": seen[k], "to": steps[k]}))
        estimated, took = estimated + (g.get("seconds") or 0.0), took + clock() - t
        if after is not None:
            after()
        if stopped:
            break
    return {"trained": trained, "stopped": stopped, "estimated": estimated, "took": took}


def describe(groups: Sequence[dict], head: str, trained: Sequence[dict] = ()) -> str:
    """The groups as lines for the terminal (model, vocabulary, encoding, updates, runs, estimated seconds), then
    the updates this call made (``trained``, from :func:`drive`), then ``head``."""
    lines = [f"{'group':>5}  {'model':<5}{'V':>6}  {'encoding':<11}{'updates':>9}{'runs':>6}{'est. s':>8}"]
    for i, g in enumerate(groups, 1):
        c = g["configs"][0]
        lines.append(f"{i:>5}  {c['core']:<5}{c['vocab_size']:>6}  {c['encoding']:<11}{g['updates']:>9,}"
                     f"{g['runs']:>6}{g['seconds']:>8.0f}" + ("" if g["measured"] else "  (shape not measured)"))
    if trained:
        lines.append("this call trained:")
        lines += [f"  {t['core']} V={t['vocab']} {t['encoding']} seed {t['seed']}: updates {t['from']}-{t['to']}"
                  + (f" of {t['steps']:,}" if "steps" in t else "") for t in trained]
    return "\n".join(lines + [head])


def collect(out: Path, configs: Sequence[dict], commit: str, single: bool = False,
            per_results: Optional[Callable[[dict], dict]] = None, extra_files: Sequence[str] = (), **fields) -> dict:
    """Write the finished runs of ``configs`` into ``out`` (``penb.call.archive.write_runs``: ``results.json`` and
    predictions, one ``predictions.tar`` with ``single``, else parts) and ``manifest.json``: the common fields,
    ``fields`` and ``per_results(results)`` (fields read off the finished runs, called once they are written; its
    "extra_files", like ``extra_files``, names other files the caller wrote there, listed under "files"). ``commit``: the clean commit the
    call ran (else the runs' own). Returns the finished runs' results by key."""
    results, files = write_runs(configs, out, single=single)
    where = made_on(configs, results)
    keys = list(dict.fromkeys(runs.key(c) for c in configs))
    more = per_results(results) if per_results else {}
    extra = [*extra_files, *more.pop("extra_files", [])]
    atomic.write_json(out / "manifest.json", {
        **where, "commit": [commit] if commit else where["runs_commit"], "date": now(),
        "runs": len(keys), "finished": len(results), "complete": len(results) == len(keys),
        "diverged": sum(r.get("status") == "diverged" for r in results.values()),
        "files": ["manifest.json", "results.json", *files, *extra], **fields, **more})
    return results


class Ledger:
    """Seconds spent over all calls of one configuration, in a file of the store (the lease's budget): ``spent_s``
    and, per call, its date, minutes and what it trained. ``adopt(theirs)`` takes a handed-back ledger of the same
    configuration that spent more (a fresh machine: the minutes spent before still count)."""

    def __init__(self, path: Path, config_key: str):
        self.path = Path(path)
        self.book = (json.loads(self.path.read_text()) if self.path.exists()
                     else {"config_key": config_key, "spent_s": 0.0, "steps": []})

    @property
    def spent_s(self) -> float:
        return self.book["spent_s"]

    def adopt(self, theirs: Optional[dict]) -> None:
        if theirs and theirs.get("config_key") == self.book["config_key"] and theirs.get("spent_s", 0) > self.spent_s:
            self.book = theirs

    def add(self, seconds: float, trained: list) -> None:
        self.book["spent_s"] += seconds
        self.book["steps"].append({"date": now(), "minutes": round(seconds / 60, 3), "trained": trained})
        atomic.write_json(self.path, self.book)


def collect_preset(chapter: str, preset: str, out: Path, parameters: Optional[dict] = None,
                   minutes: Optional[float] = None, **fields) -> dict:
    """Write the runs that ``chapter`` plans at ``preset`` (a deep preset's, trained on this machine by ``python -m
    penb run``) from the run store into folder ``out``, as a slice writes its own (``manifest.json``,
    ``results.json``, predictions; no checkpoints), so that ``penb.call.archive.archive`` can execute the chapter on
    them. The manifest names this checkout's clean commit (``penb.call.archive.source_commit``: a dirty tree is refused)
    and says how many runs are finished; ``penb.call.archive.archive`` refuses an incomplete one. Returns the
    manifest. ``minutes``: the wall-clock minutes the training took, where the caller timed it; ``fields``: more of
    the manifest (``penb.long_run.collect``: the segments of the long run that trained the runs)."""
    parameters = dict(parameters or {})
    cfg = presets.resolve(chapter, preset, **parameters)
    configs = plan.configs_for(chapter, cfg)
    commit = source_commit("a collection")
    collect(Path(out), configs, commit, chapter=chapter, preset=preset, parameters=parameters,
                     config_key=cfg.key(), seeds=sorted({c["seed"] for c in configs}),
                     updates={c["core"]: max(x["steps"] for x in configs if x["core"] == c["core"]) for c in configs},
                     keys=list(dict.fromkeys(runs.key(c) for c in configs)),
                     **({"spent_min": round(float(minutes), 1)} if minutes is not None else {}), **fields,
                     made_by=f"python -m penb run {chapter} --preset {preset}, then python -m penb collect")
    return json.loads((Path(out) / "manifest.json").read_text())
