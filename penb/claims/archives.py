"""Archived GPU executions on the scorecard (issue 36): each folder under ``book/archived/`` that ``python -m
penb archive`` wrote (``penb.lease``) is listed with its device, commit, date and the largest budget it reached,
and its recorded verdicts stand beside this build's, claim by claim. Nothing here trains or grades again: the
verdicts are the ones that execution recorded, under the protocol then in force.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

from penb.store import paths


def folders(root: Optional[Path] = None) -> list[Path]:
    """The archived executions under ``root`` (default ``book/archived``), sorted by name."""
    root = Path(root) if root is not None else paths.REPO / "book" / "archived"
    return sorted(p.parent for p in root.glob("*/manifest.json"))


def describe(folder: Path) -> dict:
    """{name, chapter, preset, device, commit, clean, date, largest, verdicts: {claim: verdict}} of one
    archived execution (``largest``: the most updates any of its models made)."""
    from penb.store.identity import CLEAN_COMMIT as COMMIT

    man = json.loads((folder / "manifest.json").read_text())
    grades = folder / f"{man['chapter']}.grades.json"
    verdicts = {k: g.get("verdict", "") for k, g in json.loads(grades.read_text()).items()} if grades.exists() else {}
    commits = man.get("commit") or []
    return dict(name=folder.name, chapter=man["chapter"], preset=man["preset"],
                device=" / ".join(man.get("device_name") or []) or man.get("device", ""),
                commit=" / ".join(commits) or "unknown", clean=bool(commits) and all(COMMIT.match(c) for c in commits),
                date=str(man.get("date", ""))[:10], largest=max((man.get("updates") or {0: 0}).values()),
                verdicts=verdicts)


def section(table: list[dict], root: Optional[Path] = None) -> list[str]:
    """Markdown lines of the scorecard's section on archived executions ([] when there is none): per archive,
    what made it, and a table of its claims with this build's verdict beside the archived one."""
    found = [describe(f) for f in folders(root)]
    if not found:
        return []
    here = {r["key"]: r for r in table}
    lines = ["## Archived GPU executions", "",
             "Executions made on a GPU elsewhere and committed with their recorded verdicts (`book/archived/`): "
             "read as they were recorded, not re-executed by this build. Each verdict stands beside this build's "
             "for the same claim, at a larger scale where the archive's budget is larger.", ""]
    for a in found:
        warn = "" if a["clean"] else (" **Its code is an uncommitted tree** that no reader can check out: a record, "
                                      "not a result anyone can rerun.")
        lines += [f"**{a['name']}**: chapter `{a['chapter']}`, preset `{a['preset']}`, on {a['device']}, code at "
                  f"{a['commit']}, collected {a['date']}; largest budget {a['largest']:,} updates.{warn}", "",
                  "| claim | this build | archived |", "|---|---|---|"]
        for key, verdict in a["verdicts"].items():
            mine = here.get(key, {})
            ours = f"{mine['verdict']} ({mine.get('preset', '?')})" if mine else "not in this build"
            lines.append(f"| {key} | {ours} | {verdict} ({a['preset']}) |")
        lines.append("")
    return lines
