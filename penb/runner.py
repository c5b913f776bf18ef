"""The one path from run configs to finished runs in the store (issue 51, item 2): lock, skip what is done, resume,
train, write results, finish, for a group of runs trained together (``penb.trainer``, K >= 1).

Every way a run trains goes through :func:`train_group`: ``penb.runner.run`` (one run: the chapters, the Slurm
jobs, the lease), the batched executor's groups, and the slice's batches. The runs' locks are taken in key order
(two processes never wait on each other); a run found done is skipped; a partial run resumes from its own last
checkpoint, else from its WSD trunk's branch point; ``config.json`` is written before training and
``predictions.npz`` and ``result.json`` after (``penb.trainer.finish``). A run's ``result.json`` has the single run's
fields, plus, for a batch, ``"batched": {"runs": K, "wall_s": the batch's training time, "compile_s": ...}``; its
``wall_s`` is then its share of that time (1/K) plus its own test.
"""
from __future__ import annotations

import json
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Sequence

from filelock import FileLock

from penb import runs, trunks
from penb.device import archived
from penb.store import atomic
from penb.store.run_result import RunResult
from penb.run_config import normalize
from penb.trainer import Trainer, finish, policy


def train_group(configs: Sequence[Mapping[str, Any]], store: Path, progress: bool = False, kernel: str = "auto",
                compile: str = "auto", callback: Optional[Callable] = None) -> dict[str, bool]:
    """Train the batch ``configs`` (normalised, one group key) in the store folder ``store``; {run key: trained here}.

    The runs' locks are taken in key order (two processes never wait on each other); each run resumes from its own
    checkpoints, else from its trunk's branch point, and the batch trains them together from wherever each
    stands (``penb.trainer.Trainer``). ``kernel`` "auto": one stacked batch where it pays
    (``penb.trainer.policy.batch_pays``), else each run alone with its own module (in order); ``kernel``,
    ``compile``: as ``Trainer`` takes them otherwise.
    ``callback(trainer)`` runs after every update (an exception there stops the training, as a kill would)."""
    store = Path(store)
    unique = list({runs.key(c): c for c in configs}.values())
    dirs = [runs.run_dir(c, store) for c in unique]
    with ExitStack() as locks:
        for d in sorted(dirs):
            d.mkdir(parents=True, exist_ok=True)
            locks.enter_context(FileLock(str(d / ".lock")))
        todo = [k for k, c in enumerate(unique) if runs.status(c, store) != "done"]
        if todo and archived():
            raise ValueError(f"runs {[dirs[k].name for k in todo]} are not in the archived store being read; "
                             f"nothing trains here")
        if todo:
            for k in todo:
                runs.sweep_temporary(dirs[k])
            alone = kernel == "auto" and not policy.batch_pays([unique[k] for k in todo],
                                                               max(unique[k]["steps"] for k in todo))
            for part in ([[k] for k in todo] if alone else [todo]):
                start = time.time()
                trainer = Trainer([unique[k] for k in part], [dirs[k] for k in part],
                                  [trunks.trunk_dir(unique[k], store) for k in part],
                                  kernel=kernel, compile=compile)
                for k, r in zip(part, trainer.runs):
                    atomic.write_json(dirs[k] / "config.json", r.config)
                try:
                    trainer.run(callback=callback, progress=progress)
                except Exception:           # a callback's stop (a deadline): the runs that ended are kept
                    _finish(part, trainer, dirs, start, ended_only=True)
                    raise
                _finish(part, trainer, dirs, start)
    done = {dirs[k].name for k in todo}
    return {runs.key(c): runs.key(c) in done for c in configs}


def _finish(part: list, trainer, dirs: list, start: float, ended_only: bool = False) -> None:
    """Write each run's predictions and ``result.json`` (``penb.trainer.finish``); with ``ended_only``, only those
    of the runs that reached their end (done or diverged) before the training stopped."""
    wall = time.time() - start
    extra = {} if len(part) == 1 else {"batched": {"runs": len(part), "wall_s": round(wall, 2),
                                                   "compile_s": round(trainer.compile_s, 2)}}
    for k, r in zip(part, trainer.runs):
        if not ended_only or r.outcome is not None:
            finish(r, dirs[k], time.time() - wall / len(part), **extra)


def train_one(config: Mapping[str, Any], store: Path, callback: Optional[Callable] = None,
              progress: bool = False) -> dict:
    """Train (or resume) the one run ``config`` in the store folder ``store`` through :func:`train_group`, and
    return its ``result.json`` (a diverged run's too). ``callback(trainer)`` runs after every update."""
    c = normalize(config)
    train_group([c], store, progress=progress, callback=callback)
    return json.loads((runs.run_dir(c, store) / "result.json").read_text())


def run(config: Mapping[str, Any], store: Optional[Path] = None, progress: bool = True,
        callback: Optional[Callable] = None) -> RunResult:
    """Run ``config`` unless it is done (resuming it if partial); return its result. ``callback(trainer)``
    runs after every update (``penb.trainer.Trainer.run``; an exception there stops the run, as a kill would)."""
    return _run(normalize(config), store, progress, callback)[0]          # settled once, here


def _run(config: Mapping[str, Any], store: Optional[Path], progress: bool,
         callback: Optional[Callable] = None) -> tuple[RunResult, bool]:
    """:func:`run`, and whether this call trained the run. The run's lock is held while it trains: a second
    process waits for it and then finds it done. While an archived store is read (``penb.device.archived``)
    a run that is not in it raises ``ValueError``: nothing trains."""
    d = runs.run_dir(config, store)
    if runs.status(config, store) == "done":
        runs._tidy(d)
        return runs.load(config, store), False
    if archived():
        raise ValueError(f"run {d.name} ({config['core']} V={config['vocab_size']} {config['encoding']} seed "
                         f"{config['seed']}) is not in the archived store being read; nothing trains here")
    trained = train_group([config], d.parent, progress, callback=callback)[d.name]
    return runs.load(config, store), trained
