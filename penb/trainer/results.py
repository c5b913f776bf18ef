"""A trained run's results: its held-out predictions and ``result.json``, written where every training path ends.

:func:`finish` tests a run that finished (or records one that diverged) and writes ``predictions.npz`` and
``result.json`` atomically. Every training path ends here through ``penb.runner.train_group`` (one run or a batch).
"""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from penb.metrics import summarize
from penb.progress import emit
from penb.store import atomic
from penb.store.identity import environment
from penb.trainer.run import Diverged, Run


def finish(run: Run, run_dir: Path, start: float, **extra: Any) -> dict:
    """Test a trained run (unless it diverged: ``run.outcome``) and write its ``predictions.npz`` and ``result.json``
    (``status``, ``config``, ``metrics``, ``history``, ``wall_s``, ``environment``; ``wall_s`` counts from ``start``, a ``time.time()``; ``extra`` fields are added at the end)."""
    result = {"config": run.config, "environment": environment(run.config["device"])}
    if isinstance(run.outcome, Diverged):
        result.update(status="diverged", diverged=run.outcome.as_dict(), metrics={}, history=run.history)
    else:
        pred = run.evaluate()
        atomic.write_npz(Path(run_dir) / "predictions.npz", pred)
        result.update(status="done", metrics=summarize(pred), history=run.history)
    result["wall_s"] = round(time.time() - start, 2)
    result.update(extra)
    atomic.write_json(Path(run_dir) / "result.json", result)
    emit({"event": "run", "trained": True})       # every training path ends here: what a watched build counts
    return json.loads(json.dumps(result, default=str))
