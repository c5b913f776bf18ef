"""An archived execution graded again under the protocol in force from its committed results alone (issue 66:
``python -m penb regrade FOLDER``).

An archive commits each run's ``result.json`` (its metrics, a thinned history), never its held-out predictions, so it
cannot be executed again. Where a chapter's grading reads nothing but the runs' own metrics, it can still be graded
again: :data:`READERS` names those chapters. ``key_findings`` is one: every claim reads each run's token accuracy
or mean distance at N, N/2 and N/4; the predictions feed only the pooled intervals of the page's tables. Frequency's
claims read each run's test grid, made from its predictions, so its archive is not regraded here.

The route is proved where the answer is known before it is used where it is not: :func:`regrade` with
``write=False`` on an archive whose recorded verdicts are already the protocol in force (``key_findings-deep_v2``,
graded by its executed notebook) must give the same verdicts and numbers (``tests/test_regrade.py``).
"""
from __future__ import annotations

import datetime as _dt
import json
import os
import tempfile
from pathlib import Path
from typing import Callable
from unittest.mock import patch

from penb import presets, runs
from penb.chapters import rnn_common
from penb.chapters.key_findings import analysis as key_findings
from penb.claims import history, scorecard
from penb.claims.protocol import PROTOCOL
from penb.device import ARCHIVED
from penb.call.archive import source_commit
from penb.store import atomic
from penb.store.run_result import opened


def _key_findings(found: dict, cfg) -> list:
    """Key findings' grades from ``found`` ({run key: RunResult}) at the runs ``cfg`` plans, N, N/2 and N/4."""
    full = key_findings.run_configs(cfg)
    budgets = [full, rnn_common.half_budgets(full, cfg), rnn_common.earlier_budgets(full, cfg)[:len(full)]]
    frames = [key_findings.frame([found[runs.key(c)] for c in cs]) if cs else None for cs in budgets]
    return key_findings.grade(frames[0], cfg, frames[1], frames[2])


# {chapter: grades from ({run key: RunResult}, resolved config)}: the chapters graded from results alone
READERS: dict[str, Callable] = {"key_findings": _key_findings}


def regrade(folder: Path, write: bool = True) -> dict:
    """The grades of the archived execution ``folder`` under the protocol in force ({claim: recorded grade}), from
    its committed ``results.json``; with ``write``, they replace its ``<chapter>.grades.json`` (the earlier
    protocols' verdicts stay in ``penb/claims/protocol_history.csv``, where this adds the new ones) and its manifest
    says how they were made. ``ValueError`` in one line, before anything is written, for a chapter not in
    :data:`READERS` or runs this code's plan does not find (another schedule, seeds or budgets)."""
    folder = Path(folder)
    man = json.loads((folder / "manifest.json").read_text())
    chapter = man["chapter"]
    if chapter not in READERS:
        raise ValueError(f"{folder.name}: {chapter}'s grading reads the runs' predictions, which an archive does not "
                         f"commit; regrade knows {', '.join(READERS)}")
    with tempfile.TemporaryDirectory() as tmp, \
            patch.dict(os.environ, {"PENB_EXECUTED_DIR": tmp, "PENB_STORE": str(Path(tmp) / "no-store"),
                                    ARCHIVED: man.get("device", "cpu")}):   # the runs' device; no store is read
        cfg = presets.resolve(chapter, man["preset"], **man["parameters"])
        scorecard.clear(chapter)
        with opened(folder) as found:
            by_key = {r.key: r for r in found}
            try:
                READERS[chapter](by_key, cfg)
            except KeyError as missing:
                raise ValueError(f"{folder.name}: run {missing} that this code plans for preset {man['preset']!r} is "
                                 f"not in results.json (runs keyed under other settings)") from None
        grades = json.loads((Path(tmp) / f"{chapter}.grades.json").read_text())
    if write:
        commit = source_commit("a regrade")
        atomic.write_json(folder / f"{chapter}.grades.json", grades)
        man["regraded"] = {"by": "python -m penb regrade", "commit": commit, "protocol": PROTOCOL,
                           "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                           "from": "results.json alone: each run's metrics at N, N/2 and N/4; no predictions, so "
                                   "the pages' pooled intervals are not recomputed, and each model's training "
                                   "readings come from its history thinned to a log grid"}
        atomic.write_json(folder / "manifest.json", man)
        history.add(grades, folder.name, commit)
    return grades
