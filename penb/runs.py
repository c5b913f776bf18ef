"""The runs of the store by configuration: one folder per run configuration, keyed by a hash of the whole
configuration. The store below (``penb.store``: paths, atomic writes, the hash, a run folder read back) knows no
configuration; this module normalises one (``penb.run_config``), adds its task's identity (``penb.tasks``) and
hands the fields to ``penb.store.identity.hashed``.

    <penb.store.paths.store_dir()>/rnn/<key>/
        config.json            the full (normalised) configuration
        checkpoints/step-*.pt  kept checkpoints (model, optimiser, schedule, data generator, history)
        predictions.npz        held-out predictions/targets per sequence (written when training ends)
        result.json            config, headline metrics, loss history; its presence marks the run done

        .lock                  a file lock: one process at a time trains (or resumes) the run

``key(config)`` is the sha256 (16 hex digits) of the canonical JSON of the store version
(``penb.store.identity.STORE_VERSION``) and ``penb.run_config.normalize(config)`` without its bookkeeping:
every field that affects a result (defaults included) and the device's type ("cpu"/"cuda": "cuda" and
"cuda:0" share a run), but not ``log_every``. So no two configurations share a folder, and code that
changes results (a bumped store version) never reuses an old run. ``penb.sweeps.sweep(configs, executor)``
normalises every configuration once, first (``ValueError`` before anything runs), reuses finished runs,
resumes interrupted ones from their last checkpoint, and runs the rest on the executor. A run is
trained under its folder's lock, so two processes on one store train it once; the second waits and
reuses it. All files are written atomically (fsync'd), so a killed sweep leaves either a complete file
or none, and a leftover temporary file is swept before a run resumes. A diverged run is finished too:
its ``RunResult.diverged`` is True and it has no metrics and no predictions.

Bit-identical results (reruns, resumed runs, pooled vs. in-process runs) hold on the CPU for the
same number of torch threads: CPU kernels reduce in a thread-dependent order, so a different thread
count changes the weights in the last bits (about 1e-7 after a few updates). On CUDA, cuDNN RNN
kernels are not guaranteed deterministic; a resumed GPU run agrees only statistically.
"""
from __future__ import annotations

import itertools
import json
import zipfile
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Optional

import numpy as np
import pandas as pd
from filelock import FileLock, Timeout

from functools import lru_cache

from penb.run_config import normalize
from penb.store import identity, paths
from penb.store.identity import BOOKKEEPING, STORE_VERSION, hashed  # noqa: F401 (re-exported)
from penb.store.run_result import RunResult  # noqa: F401 (re-exported: runs.RunResult)
from penb.tasks import make_task

NAMESPACE = "rnn"


def key_fields(config: Mapping[str, Any]) -> dict:
    """What the run key hashes: the store version and the normalised config without bookkeeping, with
    the device reduced to its type, and its task's identity where it has one (the ``lm`` task's corpus)."""
    c = {k: v for k, v in normalize(config).items() if k not in BOOKKEEPING}
    c["device"] = str(c["device"]).split(":")[0]
    task = _task_identity(c["task"], c["vocab_size"], c["length"],
                          json.dumps(c["task_options"], sort_keys=True, default=str))
    return {"store_version": identity.STORE_VERSION, **c, **({"task_identity": task} if task else {})}


@lru_cache(maxsize=256)
def _task_identity(task: str, vocab_size: int, length: int, options: str) -> dict:
    """``Task.identity()`` (e.g. the corpus digests of the ``lm`` task), cached per process."""
    return make_task(task, vocab_size, length, **json.loads(options)).identity()


def key(config: Mapping[str, Any]) -> str:
    """sha256 (16 hex digits) of the canonical JSON of :func:`key_fields` (``penb.store.identity.hashed``)."""
    return hashed(key_fields(config))


def root(store: Optional[Path] = None) -> Path:
    return Path(store) if store is not None else paths.store_dir() / NAMESPACE


def run_dir(config: Mapping[str, Any], store: Optional[Path] = None) -> Path:
    """The folder of ``config`` in the store (``store`` overrides ``store_dir()/rnn``)."""
    return root(store) / key(config)


def status(config: Mapping[str, Any], store: Optional[Path] = None) -> str:
    """"done" (a valid result: finished or diverged), "partial" (checkpoints only) or "new".

    A ``result.json`` that does not parse, or a finished run whose ``predictions.npz`` is not a sound
    archive, does not count as done (the run is trained again, from its checkpoints where it has some).
    """
    d = run_dir(config, store)
    if finished(d):
        return "done"
    return "partial" if paths.checkpoints(d) else "new"


def finished(d: Path) -> bool:
    """True when folder ``d`` holds a valid result: ``result.json`` parses and says "done" or "diverged"
    (a result of the first store layout has no status: done), and a done run's predictions open."""
    try:
        result = json.loads((Path(d) / "result.json").read_text())
        state = result.get("status", "done")
        if state == "diverged":
            return True
        with zipfile.ZipFile(Path(d) / "predictions.npz") as z:
            return state == "done" and z.testzip() is None
    except (OSError, ValueError, zipfile.BadZipFile, AttributeError):
        return False


TEMPORARY = ("*.tmp", "*.tmp[0-9]*", "*.tmp.*", "*~")   # penb's own (.<name>.*.tmp) and other writers'


def temporaries(d: Path) -> set[Path]:
    """The leftover temporary files of killed writes in run folder ``d`` and its checkpoints/: every name of
    :data:`TEMPORARY` (e.g. ``.result.json.x1.tmp``, ``result.json.tmp123``)."""
    return {f for folder in (Path(d), Path(d) / "checkpoints") for pattern in TEMPORARY
            for f in folder.glob(pattern) if f.is_file()}


def sweep_temporary(d: Path) -> int:
    """Remove :func:`temporaries` of run folder ``d``; their count. Call it only while holding the run's lock."""
    found = temporaries(d)
    for tmp in found:
        tmp.unlink(missing_ok=True)
    return len(found)


def load(config: Mapping[str, Any], store: Optional[Path] = None) -> RunResult:
    """The finished run of ``config``; ``FileNotFoundError`` if it has not finished."""
    return RunResult.from_dir(run_dir(config, store))


def _tidy(d: Path) -> None:
    """Sweep a finished run folder's stale temporary files when it is opened, if no process holds its lock."""
    if not temporaries(d):
        return
    try:
        with FileLock(str(d / ".lock"), timeout=0):
            sweep_temporary(d)
    except Timeout:
        pass


def settle(configs: Iterable[Mapping[str, Any]], executor: Any = None) -> list:
    """Each config normalised once, for ``executor``: a cluster executor's jobs resolve ``device="auto"`` to
    the device they will have (``job_device``), not to this machine's."""
    job_device = getattr(executor, "job_device", None)
    return [normalize(c, job_device=job_device) for c in configs]


def split_diverged(results: Iterable[RunResult]) -> tuple[list[RunResult], list[RunResult]]:
    """(valid runs, diverged runs): a chapter summarises the first and shows and counts the second."""
    results = list(results)
    return [r for r in results if not r.diverged], [r for r in results if r.diverged]


def outcomes(results: Iterable[RunResult]) -> list[dict]:
    """One dict per result, in order, for a chapter's run table: ``result``, ``diverged`` (bool),
    ``diverged_at`` (the step at which the loss turned non-finite; NaN for a valid run), ``metrics`` (the
    run's headline metrics; empty for a diverged run), ``wall_s``, ``key``."""
    results = list(results)
    _, gone = split_diverged(results)
    bad = {r.key for r in gone}
    return [dict(result=r, diverged=r.key in bad,
                 diverged_at=r.divergence.get("step", np.nan) if r.key in bad else np.nan,
                 metrics={} if r.key in bad else r.metrics, wall_s=r.wall_s, key=r.key) for r in results]


def grid(base: Mapping[str, Any], **axes: Iterable[Any]) -> list[dict]:
    """Every combination of ``axes`` over ``base``: grid(b, seed=(1, 2), core=("gru",)) -> 2 dicts."""
    names = list(axes)
    return [{**base, **dict(zip(names, values))} for values in itertools.product(*(list(axes[n]) for n in names))]


def to_frame(results: Iterable[RunResult]):
    """A pandas DataFrame with one row per run (see ``RunResult.row``)."""
    return pd.DataFrame([r.row() for r in results])
