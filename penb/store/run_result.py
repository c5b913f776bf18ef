"""A finished run read back from its store folder: :class:`RunResult` (``penb.runs`` returns them)."""
from __future__ import annotations

import contextlib
import json
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional

import numpy as np

from penb.store.paths import checkpoints
from penb.store.atomic import write_json


@dataclass(frozen=True)
class RunResult:
    """A finished run: its key, folder, full config, headline metrics and training history."""

    key: str
    path: Path
    config: dict
    metrics: dict
    history: list

    @classmethod
    def from_dir(cls, path) -> "RunResult":
        """The finished run stored in folder ``path`` (``FileNotFoundError`` if it has not finished)."""
        path = Path(path)
        result = json.loads((path / "result.json").read_text())
        return cls(path.name, path, result["config"], result["metrics"], result["history"])

    @property
    def result(self) -> dict:
        """The whole ``result.json`` of the run (config, metrics, history, wall_s, ...)."""
        return json.loads((self.path / "result.json").read_text())

    @property
    def diverged(self) -> bool:
        """True when training stopped on a non-finite loss or gradient (no metrics, no predictions)."""
        return self.result.get("status") == "diverged"

    @property
    def divergence(self) -> dict:
        """{"step", "since", "last_finite_loss", "bad_updates"} of a diverged run, else {}."""
        return self.result.get("diverged", {})

    @property
    def wall_s(self) -> float:
        """Training time of the run where it was made, in seconds (NaN when not recorded)."""
        return self.result.get("wall_s", float("nan"))

    def predictions(self) -> dict[str, np.ndarray]:
        """Held-out ``predictions``, ``targets``, ``inputs`` (int [n, T]), ``lengths`` [n] and task info."""
        if self.diverged:
            raise ValueError(f"run {self.key} diverged at step {self.divergence.get('step')}: it has no predictions")
        with np.load(self.path / "predictions.npz") as f:
            return {k: f[k] for k in f.files}

    def checkpoints(self) -> list[tuple[int, Path]]:
        """[(step, path)] of the kept checkpoints."""
        return checkpoints(self.path)

    def row(self) -> dict:
        """A flat dict (config fields + metrics + key) for a table."""
        cfg = {k: (json.dumps(v, sort_keys=True) if isinstance(v, dict) else v) for k, v in self.config.items()}
        return {**cfg, **self.metrics, "diverged": self.diverged, "key": self.key}


@contextlib.contextmanager
def opened(folder: Path) -> Iterator[list]:
    """The runs of an archived or collected ``folder`` as :class:`RunResult` (results only, no predictions),
    valid inside the ``with`` block."""
    results = json.loads((Path(folder) / "results.json").read_text())
    with tempfile.TemporaryDirectory() as tmp:
        found = []
        for key, result in results.items():
            if not re.match(r"^[0-9a-f]{16}$", key):
                raise ValueError(f"{folder}: {key!r} is not a run key")
            (Path(tmp) / key).mkdir()
            write_json(Path(tmp) / key / "result.json", result)
            found.append(RunResult.from_dir(Path(tmp) / key))
        yield found
