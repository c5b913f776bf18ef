"""The archived GPU execution of this chapter, shown on the page beside the page's
own run.

``FOLDER`` (``book/archived/key_findings-lease``) is written by
``python -m penb archive key_findings`` from the runs of a GPU lease (``penb.lease``):
its manifest (device, commit, date, preset, seeds, updates), the runs' results, the
verdicts that execution recorded and its executed notebook. :func:`load` reads it for
the page; nothing here trains or grades again.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import pandas as pd

from penb import lease
from penb.store import paths
from penb.chapters.key_findings import analysis
from penb.names import model_name

FOLDER = paths.REPO / "book" / "archived" / "key_findings-lease"
DIRTY = (" **Its code is an uncommitted tree** that no reader can check out: read "
         "it as a record, not as a result anyone can rerun (lease steps from such a "
         "tree are now refused).")


def load(cfg=None, folder: Optional[Path] = None) -> dict:
    """{"header": what the archived execution is (or that there is none), "tables":
    [the summary of its runs (``analysis.summary_table``, intervals over seeds), its
    recorded verdicts]}; no tables when ``folder`` holds no archived execution or when
    ``cfg`` (the page's config) is that execution itself (same preset)."""
    folder = Path(folder) if folder is not None else FOLDER
    try:
        where = folder.relative_to(paths.REPO)
    except ValueError:
        where = folder
    if not (folder / "manifest.json").exists():
        return {"header": f"No archived GPU execution of this chapter is in the "
                          f"repository ({where}/): `python -m penb lease key_findings` "
                          f"makes one (README, 'GPU in short slices').",
                "tables": []}
    man = json.loads((folder / "manifest.json").read_text())
    if cfg is not None and cfg.preset == man["preset"]:
        return {"header": f"This page is an execution at preset {man['preset']!r}: "
                          f"it is not shown twice.",
                "tables": []}
    with lease.opened(folder) as results:
        frame = analysis.frame(results)
    summary = analysis.summary_table(analysis.summary(frame))
    grades_file = folder / f"{analysis.CHAPTER}.grades.json"
    grades = json.loads(grades_file.read_text()) if grades_file.exists() else {}
    verdicts = pd.DataFrame(
        [{"claim": k, "verdict": g.get("verdict", ""), "ours": g.get("ours", "")}
         for k, g in grades.items()],
        columns=["claim", "verdict", "ours"]).set_index("claim")
    updates = ", ".join(f"{model_name(c)} {n:,}" for c, n in man["updates"].items())
    header = (f"Archived GPU execution, not re-executed by this build: preset "
              f"{man['preset']!r} on "
              f"{' / '.join(man['device_name']) or man['device']} ({man['device']}), "
              f"code at commit {' / '.join(man['commit']) or 'unknown'}, "
              f"runs collected {man['date']}; {man['finished']} runs "
              f"({man['diverged']} diverged), "
              f"seeds {', '.join(map(str, man['seeds']))}, updates {updates}, "
              f"{man['spent_min']:.1f} GPU-minutes of training. "
              f"Its grades, status and results are in {where}/; the executed notebook "
              f"that `penb archive` writes beside them is not committed (no .ipynb is)."
              + "".join(f" Note: {man[k]}." for k in ("overrides_note", "commit_note")
                        if man.get(k))
              + (DIRTY if any(not lease.COMMIT.match(c) for c in man["commit"] or [""])
                 else ""))
    return {"header": header, "tables": [summary, verdicts]}
