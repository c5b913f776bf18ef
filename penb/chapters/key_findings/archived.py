"""The archived GPU executions of this chapter, shown on the page beside the page's
own run.

Each folder ``book/archived/key_findings-<preset>`` (a lease's, a slice's) is written by
``python -m penb archive key_findings`` from the runs a GPU made (``penb.call.archive``):
its manifest (device, commit, date, preset, seeds, budgets), the runs' results and the
verdicts that execution recorded. :func:`load` reads one for the page, :func:`load_all`
every one; nothing here trains or grades again (``penb.claims.archives.view``).
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from penb.claims import archives
from penb.store import paths
from penb.chapters.key_findings import analysis

FOLDER = paths.REPO / "book" / "archived" / "key_findings-lease"


def summary(results):
    """The archived runs' summary (``analysis.summary_table``, intervals over seeds) at
    each model's full budget N (the doubling test's shorter budgets are left out)."""
    results = list(results)
    full = {}
    for r in results:
        full[r.config["core"]] = max(full.get(r.config["core"], 0), r.config["steps"])
    at_n = [r for r in results if r.config["steps"] == full[r.config["core"]]]
    return analysis.summary_table(analysis.summary(analysis.frame(at_n)))


def load(cfg=None, folder: Optional[Path] = None,
         grades: Optional[list] = None) -> dict:
    """{"header", "tables": [the summary of its runs, its recorded verdicts beside
    ``grades``]} of the archived execution in ``folder`` (default :data:`FOLDER`)."""
    where = folder if folder is not None else FOLDER
    return archives.view(analysis.CHAPTER, where, cfg, grades, summary)


def load_all(cfg=None, grades: Optional[list] = None) -> list[dict]:
    """:func:`load` of every archived execution of this chapter."""
    return archives.views(analysis.CHAPTER, cfg, grades, summary)
