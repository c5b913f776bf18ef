"""What the chapter pages share (issue 67): glue a figure, a run count or a verdict;
show a table with its provenance line under it. The words stay in the notebooks.

    cfg = pages.show_config(presets.from_parameters("irie", globals()))  # settle
    pages.figure("kf_fig2", fig, cfg, **extra)               # stamp, glue, close
    grades = pages.verdicts(grades, cfg, "br_v_", **extra)   # table, provenance, glue

Imported by the notebooks and the chapters' page modules only: IPython and myst_nb are
not on the device image, so nothing a device call imports may import this module.
"""
from __future__ import annotations

from contextlib import nullcontext
from typing import Iterable, Optional

import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import display
from myst_nb import glue

from penb import claims, report
from penb.claims import doubling_plot

WIDE = ("display.max_rows", None, "display.max_columns", None, "display.width", 250)


def show_config(cfg):
    """Display ``cfg``'s table of settings against the paper's (``report.config_table``)
    and return ``cfg``: a chapter's settle cell in one line."""
    display(report.config_table(cfg))
    return cfg


def glue_all(values: dict) -> None:
    """Glue every ``{name: value}`` for the page's text, displaying nothing."""
    for name, value in values.items():
        glue(name, value, display=False)


def seeds(prefix: str, cfg) -> dict:
    """``<prefix>_seed_count`` and ``<prefix>_seed_list`` of ``cfg.seeds``, to glue."""
    return {f"{prefix}_seed_count": len(cfg.seeds),
            f"{prefix}_seed_list": ", ".join(map(str, cfg.seeds))}


def figure(name: str, fig, cfg, **extra) -> None:
    """Stamp ``fig`` with the preset and ``extra``, glue it as ``name`` and close it."""
    report.stamp(fig, cfg, **extra)
    glue(name, fig, display=False)
    plt.close(fig)


def show(fig, cfg, **extra) -> None:
    """Stamp ``fig`` with the preset and ``extra``, show it in its cell (whose metadata
    holds the caption) and print the same provenance line under it."""
    report.stamp(fig, cfg, **extra)
    plt.show()
    print(report.provenance(cfg, **extra))


def doubling(grades: list, name: str, cfg, **extra) -> None:
    """The doubling test's figure of ``grades`` (``penb.claims.doubling_plot``), glued
    as ``name``."""
    figure(name, doubling_plot.figure(grades), cfg, **extra)


def run_counts(prefix: str, frame: pd.DataFrame) -> None:
    """Glue ``<prefix>_runs``, ``_diverged`` and ``_run_minutes`` (summed over runs)."""
    glue_all({f"{prefix}_runs": len(frame),
              f"{prefix}_diverged": int(frame["diverged"].sum()),
              f"{prefix}_run_minutes": float(frame["wall_s"].sum() / 60)})


def verdict_name(claim: str, strip: Optional[Iterable[str]] = None) -> str:
    """A claim key as a glue name's tail: ``strip``'s prefixes removed in turn (None:
    the key's first dotted part), dots as underscores."""
    if strip is None:
        claim = claim.split(".", 1)[1]
    for s in strip or ():
        claim = claim.removeprefix(s)
    return claim.replace(".", "_")


def glue_verdicts(grades: list, prefix: str,
                  strip: Optional[Iterable[str]] = None) -> None:
    """Glue each grade's verdict as ``prefix`` + :func:`verdict_name` of its claim."""
    glue_all({prefix + verdict_name(g.claim, strip): g.verdict for g in grades})


def verdicts(grades: list, cfg, prefix: str, strip: Optional[Iterable[str]] = None,
             **extra) -> list:
    """Show the verdict table of ``grades`` with the provenance (and the bootstrap,
    where ``cfg`` has one) under it, and glue every verdict (:func:`glue_verdicts`);
    returns ``grades``."""
    display(claims.table(grades))
    boot = {"bootstrap": cfg.bootstrap} if "bootstrap" in cfg else {}
    print(report.provenance(cfg, **boot, **extra))
    glue_verdicts(grades, prefix, strip)
    return grades


def table(frames, cfg, **extra) -> None:
    """Display a frame, or each of a list of frames, every row, then the provenance."""
    with pd.option_context("display.max_rows", None):
        for f in frames if isinstance(frames, (list, tuple)) else [frames]:
            display(f)
    print(report.provenance(cfg, **extra))


def wide(frame) -> None:
    """Display ``frame`` whole: every row and column, 250 characters a line."""
    with pd.option_context(*WIDE):
        display(frame)


def power(module, whole: bool = True) -> None:
    """A power analysis's table (``module.view()``; ``whole``: every row, 250
    characters a line) and its choice in words (``module.choice_text()``)."""
    with (pd.option_context("display.max_rows", None, "display.width", 250) if whole
          else nullcontext()):
        display(module.view())
    print(module.choice_text())


def archived(views: Iterable[dict]) -> None:
    """Each archived execution as recorded: its header line, then its tables."""
    for view in views:
        print(view["header"])
        for t in view["tables"]:
            display(t)
