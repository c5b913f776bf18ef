"""The run store: one folder per run configuration, keyed by a hash of the whole configuration.

    <penb.paths.store_dir()>/rnn/<key>/
        config.json            the full (normalised) configuration
        checkpoints/step-*.pt  kept checkpoints (model, optimiser, schedule, data generator, history)
        predictions.npz        held-out predictions/targets per sequence (written when training ends)
        result.json            config, headline metrics, loss history; its presence marks the run done

``key(config)`` is the sha256 (16 hex digits) of the canonical JSON of ``penb.train.normalize(config)``:
every field that affects a result (defaults included, ``device`` resolved), so no two configurations
share a folder. ``sweep(configs, executor)`` validates every configuration first, reuses finished
runs, resumes interrupted ones from their last checkpoint, and runs the rest on the executor. All
files are written atomically, so a killed sweep leaves either a complete file or none.

Bit-identical results (reruns, resumed runs, pooled vs. in-process runs) hold on the CPU for the
same number of torch threads: CPU kernels reduce in a thread-dependent order, so a different thread
count changes the weights in the last bits (about 1e-7 after a few updates). On CUDA, cuDNN RNN
kernels are not guaranteed deterministic; a resumed GPU run agrees only statistically.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import os
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional

import numpy as np

from penb import paths, train
from penb.executors import Executor, LocalExecutor

NAMESPACE = "rnn"


def key(config: Mapping[str, Any]) -> str:
    """sha256 (16 hex digits) of the canonical JSON of the normalised configuration."""
    blob = json.dumps(train.normalize(config), sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def root(store: Optional[Path] = None) -> Path:
    return Path(store) if store is not None else paths.store_dir() / NAMESPACE


def run_dir(config: Mapping[str, Any], store: Optional[Path] = None) -> Path:
    """The folder of ``config`` in the store (``store`` overrides ``store_dir()/rnn``)."""
    return root(store) / key(config)


def status(config: Mapping[str, Any], store: Optional[Path] = None) -> str:
    """"done" (result written), "partial" (checkpoints only) or "new"."""
    d = run_dir(config, store)
    if (d / "result.json").exists():
        return "done"
    return "partial" if train.checkpoints(d) else "new"


@dataclass(frozen=True)
class RunResult:
    """A finished run: its key, folder, full config, headline metrics and training history."""

    key: str
    path: Path
    config: dict
    metrics: dict
    history: list

    @property
    def wall_s(self) -> float:
        """Training time of the run where it was made, in seconds (NaN when not recorded)."""
        return json.loads((self.path / "result.json").read_text()).get("wall_s", float("nan"))

    def predictions(self) -> dict[str, np.ndarray]:
        """Held-out ``predictions``, ``targets``, ``inputs`` (int [n, T]), ``lengths`` [n] and task info."""
        with np.load(self.path / "predictions.npz") as f:
            return {k: f[k] for k in f.files}

    def checkpoints(self) -> list[tuple[int, Path]]:
        """[(step, path)] of the kept checkpoints."""
        return train.checkpoints(self.path)

    def load_model(self, step: Optional[int] = None, device: Optional[str] = None):
        """The model with the weights of checkpoint ``step`` (default: the last), in eval mode."""
        import torch

        found = dict(self.checkpoints())
        step = max(found) if step is None else step
        if step not in found:
            raise ValueError(f"run {self.key} has no checkpoint at step {step}; kept: {sorted(found)}")
        model = train.build_model(self.config, device=device)
        state = torch.load(found[step], map_location="cpu", weights_only=False)
        model.load_state_dict(state["model"])
        return model.eval()

    def row(self) -> dict:
        """A flat dict (config fields + metrics + key) for a table."""
        cfg = {k: (json.dumps(v, sort_keys=True) if isinstance(v, dict) else v) for k, v in self.config.items()}
        return {**cfg, **self.metrics, "key": self.key}


def load(config: Mapping[str, Any], store: Optional[Path] = None) -> RunResult:
    """The finished run of ``config``; ``FileNotFoundError`` if it has not finished."""
    d = run_dir(config, store)
    result = json.loads((d / "result.json").read_text())
    return RunResult(d.name, d, result["config"], result["metrics"], result["history"])


def run(config: Mapping[str, Any], store: Optional[Path] = None, progress: bool = True) -> RunResult:
    """Run ``config`` unless it is done (resuming it if partial); return its result."""
    if status(config, store) != "done":
        train.train(config, run_dir(config, store), progress=progress)
    return load(config, store)


def _job(config: dict, store: str, progress: bool) -> str:
    """Executor job (module level, so it pickles): run one config; return its key."""
    return run(config, Path(store), progress).key


def sweep(configs: Iterable[Mapping[str, Any]], executor: Optional[Executor] = None,
          store: Optional[Path] = None, progress: bool = True) -> list[RunResult]:
    """Results of every config, in order: finished runs reused, partial ones resumed, new ones run.

    All configs are validated before any run starts (``ValueError``). Duplicates run once. Per-run
    progress bars show with the in-process executor only.
    """
    configs = [train.normalize(c) for c in configs]
    todo = {}
    for c in configs:
        if status(c, store) != "done":
            todo.setdefault(key(c), c)
    executor = executor or LocalExecutor()
    if todo:
        job = partial(_job, store=str(root(store)), progress=progress and isinstance(executor, LocalExecutor))
        executor.map(job, list(todo.values()))
    results = [load(c, store) for c in configs]
    _log_usage(results, set(todo))
    return results


def chapter_sweep(configs: list[Mapping[str, Any]], cfg, desc: str, executor: Optional[Executor] = None,
                  store: Optional[Path] = None, progress: bool = True) -> tuple[list[RunResult], list[bool]]:
    """A chapter's sweep: says how many runs are in the store and how many will train, trains them with the
    chapter's executor (``penb.executors.for_config(cfg, desc, todo)``) unless ``executor`` is given, and
    returns the results in order with, per config, whether it was in the store before (reused)."""
    from penb.executors import for_config

    before = [status(c, store) == "done" for c in configs]
    todo = len(configs) - sum(before)
    print(f"{len(configs)} runs: {sum(before)} found in the run store, {todo} to train")
    results = sweep(configs, executor or for_config(cfg, desc, todo), store=store, progress=progress)
    return results, before


USAGE_LOG = "PENB_RUN_LOG"   # environment variable: a file to which sweep appends one line per run it returned


def _log_usage(results: list[RunResult], trained: set) -> None:
    """Append ``{"key", "trained", "wall_s"}`` per distinct run to the file named by ``$PENB_RUN_LOG`` (if set).

    ``penb.execute`` sets it while a chapter runs, so the status page can say how many runs a chapter used,
    how many it trained itself and how long their training took where they were made.
    """
    path = os.environ.get(USAGE_LOG)
    if not path:
        return
    seen, lines = set(), []
    for r in results:
        if r.key in seen:
            continue
        seen.add(r.key)
        lines.append(json.dumps({"key": r.key, "trained": r.key in trained, "wall_s": r.wall_s}))
    with open(path, "a") as f:
        f.write("".join(line + "\n" for line in lines))


def grid(base: Mapping[str, Any], **axes: Iterable[Any]) -> list[dict]:
    """Every combination of ``axes`` over ``base``: grid(b, seed=(1, 2), core=("gru",)) -> 2 dicts."""
    names = list(axes)
    return [{**base, **dict(zip(names, values))} for values in itertools.product(*(list(axes[n]) for n in names))]


def to_frame(results: Iterable[RunResult]):
    """A pandas DataFrame with one row per run (see ``RunResult.row``)."""
    import pandas as pd

    return pd.DataFrame([r.row() for r in results])
