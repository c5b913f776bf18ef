"""The verdicts of every protocol, as they were recorded (issue 66): one committed table, so that the code can hold
only the protocol in force.

Each row is one claim graded under one protocol by one execution: its ``source`` (an archived execution's folder
under ``book/archived``, or ``quick``, the book built at its default preset), chapter, preset, claim, protocol,
verdict, and ``commit``, the commit whose code graded it. A recorded grade holds the verdict of the protocol in
force when it was graded and, beside it, each earlier protocol's (``previous``, written by ``penb.claims.grade``
while the code still held them); both go into the table as they were written, nothing graded again. A claim recorded
"not tested" has no earlier verdicts: it is one row.

``scripts/protocol_history.py`` writes :data:`TABLE` from the archives and, given a built book's executed folder,
its quick verdicts; a new protocol adds rows under its number, never a branch in the code.
"""
from __future__ import annotations

import ast
import csv
import io
import json
from collections import Counter
from pathlib import Path
from typing import Iterable, Optional

from penb.claims import archives
from penb.claims.outcomes import VERDICTS
from penb.claims.protocol import PROTOCOL, PROTOCOLS
from penb.store import atomic, paths


TABLE = paths.REPO / "penb" / "claims" / "protocol_history.csv"
COLUMNS = ("source", "chapter", "preset", "claim", "protocol", "verdict", "commit")


def _previous(grade: dict) -> dict:
    """A recorded grade's earlier verdicts: {protocol: verdict} (an archive may hold ``previous`` as its repr)."""
    p = grade.get("previous") or {}
    p = ast.literal_eval(p) if isinstance(p, str) else p
    return {int(k): v["verdict"] for k, v in p.items()}


def rows_of(grades: dict, source: str, commit: str) -> list[dict]:
    """The table's rows for one execution's recorded ``grades`` ({claim: grade}), graded by ``commit``."""
    out = []
    for claim, g in sorted(grades.items()):
        base = {"source": source, "chapter": g.get("chapter", ""), "preset": g.get("preset", ""), "claim": claim,
                "commit": commit}
        verdicts = {**_previous(g), int(g["protocol"]): g["verdict"]}
        out += [{**base, "protocol": p, "verdict": v} for p, v in sorted(verdicts.items())]
    return out


def from_archives(root: Optional[Path] = None) -> list[dict]:
    """The rows of every archived execution under ``root`` (default ``book/archived``; long-run state skipped)."""
    out = []
    for folder in archives.folders(root):
        man = json.loads((folder / "manifest.json").read_text())
        for f in sorted(folder.glob("*.grades.json")):
            out += rows_of(json.loads(f.read_text()), folder.name, (man.get("archived") or {}).get("commit", ""))
    return out


def from_build(records: Iterable[dict], commit: str, source: str = "quick") -> list[dict]:
    """The rows of a built book's recorded grades (``penb.claims.scorecard.rows``: one dict a claim with ``key``); a
    claim the registry itself marks not tested (no rule, so no grading protocol) has none."""
    return rows_of({r["key"]: r for r in records if "protocol" in r}, source, commit)


def write(rows: list[dict], path: Optional[Path] = None) -> Path:
    """Write ``rows`` (sorted by source, claim, protocol) as CSV, atomically, to ``path`` (default :data:`TABLE`)."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, COLUMNS, lineterminator="\n")
    w.writeheader()
    w.writerows(sorted(rows, key=lambda r: (r["source"], r["claim"], int(r["protocol"]))))
    return atomic.write_text(path or TABLE, buf.getvalue())


def merged(old: list[dict], new: list[dict]) -> list[dict]:
    """``old`` with ``new`` laid over it, row by (source, claim, protocol): a verdict recorded once stays in the
    table when a later execution of the same source no longer records that protocol (after its branch is gone)."""
    def key(r):
        return r["source"], r["claim"], int(r["protocol"])
    return list({**{key(r): r for r in old}, **{key(r): r for r in new}}.values())


def add(grades: dict, source: str, commit: str) -> Path:
    """Lay one execution's recorded ``grades`` ({claim: grade}, graded by ``commit``) over the committed table
    (:func:`merged`, :func:`write`): what an archive and a regrade add."""
    return write(merged(read(), rows_of(grades, source, commit)))


def read(path: Optional[Path] = None) -> list[dict]:
    """The committed table's rows (protocol as an int); [] where it is not there."""
    path = path or TABLE
    if not Path(path).exists():
        return []
    with open(path, newline="") as f:
        return [{**r, "protocol": int(r["protocol"])} for r in csv.DictReader(f)]


def verdict(rows: list[dict], source: str, claim: str, protocol: int) -> Optional[str]:
    """The verdict recorded for ``claim`` by ``source`` under ``protocol`` (None where none is)."""
    for r in rows:
        if r["source"] == source and r["claim"] == claim and r["protocol"] == protocol:
            return r["verdict"]
    return None


SHORT = {"reproduced": "R", "direction only": "D", "not reproduced": "N", "inconclusive": "I", "not tested": "-"}


def section(table: list[dict], papers: list[dict], summary: list[str]) -> list[str]:
    """The scorecard's grading-protocol section: the protocol in force, ``summary`` (what its tests made of this
    build), every protocol's text, the quick build's and the archives' verdicts under each protocol as the committed
    table holds them, and every claim's verdict under each protocol (folded). ``table``: the build's rows
    (``penb.claims.scorecard.rows``); ``papers``: those the headline counts."""
    recorded = read()                   # every protocol's verdicts as committed (issue 66)

    def earlier(r, v):
        """Protocol ``v``'s verdict of this claim's quick build, as the committed table holds it (None if it
        holds none: the code grades under the protocol in force only)."""
        return verdict(recorded, "quick", r["key"], v)

    lines = ["## Grading protocol", "", f"This build grades under **protocol {PROTOCOL}**, the only one in the code; "
             "earlier protocols' verdicts are the committed table `penb/claims/protocol_history.csv`, each with the "
             "commit that graded it.", "", *summary, "", "History:", ""]
    lines += [f"* protocol {v}: {text}" for v, text in sorted(PROTOCOLS.items())]
    commits = sorted({r["commit"] for r in recorded if r["source"] == "quick" and r["protocol"] != PROTOCOL})
    for v in sorted(PROTOCOLS):
        if v != PROTOCOL:
            counts = Counter(earlier(r, v) for r in papers)
            kept = sum(counts[w] for w in VERDICTS)
            lines += ["", f"The quick build under protocol {v} (recorded): " +
                      "; ".join(f"{counts.get(w, 0)} {w}" for w in VERDICTS) + f" ({kept} of {len(papers)} claims"
                      + (f"; graded at {', '.join(c[:7] for c in commits)}" if commits else "") + ")."]
    lines += archived_history(recorded)
    lines += ["", "<details><summary>Every claim's verdict under each protocol</summary>", "",
              "Short forms, so that every protocol fits the page: " + "; ".join(f"{a} {v}" for v, a in SHORT.items())
              + "; a blank: not recorded.", "",
              "| claim | " + " | ".join(f"p{v}" for v in sorted(PROTOCOLS)) + " |",
              "|---|" + "---|" * len(PROTOCOLS)]
    for r in table:
        cells = [SHORT.get(earlier(r, v) if v != PROTOCOL else r["verdict"], " ") for v in sorted(PROTOCOLS)]
        lines.append(f"| {r['key']} | " + " | ".join(cells) + " |")
    return lines + ["", "</details>", ""]


def archived_history(recorded: list[dict]) -> list[str]:
    """Each archived execution's verdicts under each protocol it recorded, counted (this table's rows)."""
    sources = sorted({r["source"] for r in recorded if r["source"] != "quick"})
    if not sources:
        return []
    lines = ["", "The archived executions' verdicts under each protocol they recorded (" +
             "; ".join(f"{a} {v}" for v, a in SHORT.items()) + "; `penb/claims/protocol_history.csv`, with the "
             "commit that graded each):", "",
             "| archive | protocol | " + " | ".join(SHORT.values()) + " |", "|---|---|" + "---|" * len(SHORT)]
    for src in sources:
        mine = [r for r in recorded if r["source"] == src]
        for p in sorted({r["protocol"] for r in mine}):
            counts = Counter(r["verdict"] for r in mine if r["protocol"] == p)
            lines.append(f"| {src} | {p} | " + " | ".join(str(counts.get(v, 0)) for v in SHORT) + " |")
    return lines
