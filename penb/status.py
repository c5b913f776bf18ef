"""The book's status page: every executed chapter with its preset, device, wall time and date."""
from __future__ import annotations

import json
from pathlib import Path

from penb.store import atomic, paths
from penb.notebook import book_chapters


def collect(out_dir: Path | None = None) -> list[dict]:
    """Status records of the book's chapters, in book order (missing ones are skipped)."""
    out_dir = Path(out_dir or paths.executed_dir())
    rows = []
    for name in book_chapters():
        f = out_dir / f"{name}.status.json"
        if f.exists():
            rows.append(json.loads(f.read_text()))
    return rows


def _fmt_seconds(s: float) -> str:
    return f"{s:.0f} s" if s < 120 else f"{s / 60:.1f} min"


def preset_cell(r: dict) -> str:
    """The preset a chapter actually ran; where the book asked for another that the chapter lacks (e.g.
    ``gpu``), "quick (no gpu preset)"."""
    ran, asked = r.get("preset", "?"), r.get("requested_preset")
    return f"{ran} (no {asked} preset)" if asked and asked != ran else ran


def render(rows: list[dict]) -> str:
    """MyST markdown for the status page."""
    lines = [
        "# Execution status", "",
        "Every chapter of this book was executed by `python -m penb run` (papermill) before the build;",
        "the build itself executes nothing. This page lists how each chapter was last run.", "",
        "Chapters share trained runs through the run store (a run is keyed by its full configuration), so a",
        "chapter's wall time counts only the runs it trained itself. *Runs* gives the runs it used and, in",
        "brackets, how many of them it trained; *training* is the training time of all the runs it used,",
        "where they were made (one CPU thread each on a CPU): about what the chapter costs from an empty store,",
        "divided by its number of worker processes. *Preset* is the preset the chapter ran: a book built",
        "at `gpu` runs the chapters that have no `gpu` preset at `quick` (device auto), marked here.", "",
        "| chapter | preset | device | wall time | runs (trained) | training | parameters | run on |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        params = ", ".join(f"`{k}={v!r}`" for k, v in r["parameters"].items()) or "defaults"
        used = r.get("runs") or {}
        runs_cell = f"{used['used']} ({used['trained']})" if used.get("used") else "none"
        training = _fmt_seconds(used["training_s"]) if used.get("used") else ""
        lines.append(f"| {{doc}}`{r['chapter']}` | {preset_cell(r)} | {r['device']} | "
                     f"{_fmt_seconds(r['wall_s'])} | {runs_cell} | {training} | {params} | "
                     f"{r['date'].replace('T', ' ')} |")
    total = sum(r["wall_s"] for r in rows)
    lines += ["", f"Total execution time: {_fmt_seconds(total)}.", ""]
    if rows:
        newest = max(rows, key=lambda r: r["date"])
        lines += ["## Package versions", "", "As recorded by the most recent chapter run.", "",
                  "| package | version |", "|---|---|"]
        lines += [f"| {k} | {v} |" for k, v in newest["versions"].items()]
    return "\n".join(lines) + "\n"


def write_page(out_dir: Path | None = None) -> Path:
    """Write ``status.md`` and the scorecard (``scorecard.md``) into the executed folder (both are in the
    book's toc)."""
    # deferred: penb.claims imports matplotlib, which penb.cli (importing this module) must not
    from penb.claims import scorecard

    out_dir = Path(out_dir or paths.executed_dir())
    scorecard.write_page(out_dir)
    return atomic.write_text(out_dir / "status.md", render(collect(out_dir)))
