"""What the pages of the appendix chapters A-D share: the glue and display blocks that every
notebook used to repeat (issue 22).

    page = Page("c", cfg, frame, L=cfg.length)                # summary + run counts glued
    page.show(fig)                                            # stamp, display, provenance
    grades = page.verdicts(appendix.analysis.grade_c(frame, cfg))

``Page`` computes the chapter's summary over seeds (``summary.summary``), glues the run counts
under ``<prefix>_runs``, ``_reused``, ``_diverged``, ``_minutes``, ``_seeds``, and every grade's
verdict, reason and our number under ``<prefix>_<claim key with dots as underscores>``, ``..._why``,
``..._ours``. The numbers a page prints come from here; the words around them stay in the notebook.

Imported by the notebooks only (``from penb.chapters.appendix.page import Page``), never by the
package's ``__init__``: IPython and myst_nb are not on the device image.
"""
from __future__ import annotations

from typing import Optional

import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import display

from penb import claims, report
from penb.chapters import pages
from penb.chapters.appendix import summary


def glue_name(prefix: str, key: str, part: str = "") -> str:
    """The glue name of a claim's verdict (``part`` "", "why" or "ours"):
    ``glue_name("a", "morita.fig8.gru", "why")`` is ``"a_morita_fig8_gru_why"``."""
    return "_".join(x for x in (prefix, key.replace(".", "_"), part) if x)


def run_counts(frame: pd.DataFrame, cfg) -> dict:
    """{runs, reused, diverged, minutes, seeds} of a chapter's run frame: runs used, found in the
    store before this page ran, diverged, minutes of training summed over runs (one decimal, as
    text) and the seeds per cell."""
    return {"runs": len(frame), "reused": int(frame["reused"].sum()),
            "diverged": int(frame["diverged"].sum()),
            "minutes": f"{frame['wall_s'].sum() / 60:.1f}", "seeds": len(cfg.seeds)}


class Page:
    """One appendix page: its config, its runs and their summary, and the provenance fields
    (``extra``) that its stamps and tables print."""

    def __init__(self, prefix: str, cfg, frame: pd.DataFrame, **extra):
        self.prefix, self.cfg, self.frame, self.extra = prefix, cfg, frame, extra
        self.summ = summary.summary(frame, n_resamples=cfg.bootstrap)
        pages.glue_all({f"{prefix}_{name}": v for name, v in run_counts(frame, cfg).items()})

    def provenance(self, extra: Optional[dict] = None) -> None:
        """Print the provenance line of the preset with ``extra`` (None: the page's fields)."""
        print(report.provenance(self.cfg, **(self.extra if extra is None else extra)))

    def show(self, fig, extra: Optional[dict] = None) -> None:
        """Stamp ``fig`` with the preset and ``extra`` (None: the page's fields), display it,
        close it and print the same provenance under it."""
        report.stamp(fig, self.cfg, **(self.extra if extra is None else extra))
        display(fig)
        plt.close(fig)
        self.provenance(extra)

    def table(self, frame: pd.DataFrame, extra: Optional[dict] = None) -> None:
        """Display ``frame`` and print the provenance under it."""
        display(frame)
        self.provenance(extra)

    def verdicts(self, grades: list, extra: Optional[dict] = None) -> list:
        """Glue every grade's verdict, reason and our number, show the verdict table with the
        provenance under it, and return ``grades``."""
        for g in grades:
            pages.glue_all({glue_name(self.prefix, g.claim): g.verdict,
                            glue_name(self.prefix, g.claim, "why"): g.reason,
                            glue_name(self.prefix, g.claim, "ours"): g.ours or "(none)"})
        self.table(claims.table(grades), extra)
        return grades

    def evidence(self, grades: list, key: str) -> dict:
        """The evidence that grade ``key`` read ({} when the claim was not tested here)."""
        return next((g.evidence for g in grades if g.claim == key), {}) or {}
