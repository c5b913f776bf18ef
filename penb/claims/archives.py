"""Archived GPU executions on the scorecard (issue 36): each folder under ``book/archived/`` that ``python -m
penb archive`` wrote (``penb.call.lease``) is listed with its device, commit, date and the largest budget it reached,
and its recorded verdicts stand beside this build's, claim by claim. Nothing here trains or grades again: the
verdicts are the ones that execution recorded, under the protocol then in force, or that ``python -m penb regrade``
recorded from its results under a later one (``penb.call.regrade``; the manifest's ``regraded`` says when).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Optional

import pandas as pd

from penb.claims.outcomes import DECIDED
from penb.names import model_name
from penb.store import paths
from penb.store.identity import CLEAN_COMMIT as COMMIT
from penb.store.run_result import opened


DIRTY = (" **Its code is an uncommitted tree** that no reader can check out: read it as a record, not as a result "
         "anyone can rerun (steps from such a tree are now refused).")


LONG_RUN = "-trunks"             # a long run's committed state (penb.long_run), not an archived execution


def folders(root: Optional[Path] = None) -> list[Path]:
    """The archived executions under ``root`` (default ``book/archived``), sorted by name (a long run's state, a
    folder ending in :data:`LONG_RUN`, is not one: :func:`long_runs`)."""
    root = Path(root) if root is not None else paths.REPO / "book" / "archived"
    return sorted(p.parent for p in root.glob("*/manifest.json") if not p.parent.name.endswith(LONG_RUN))


def long_runs(root: Optional[Path] = None) -> list[dict]:
    """The manifests of the long runs whose state is committed under ``root`` (``penb.long_run``: a fixed-target
    preset trained in segments on the CPU), each with its folder's ``name``."""
    root = Path(root) if root is not None else paths.REPO / "book" / "archived"
    return [{**json.loads(p.read_text()), "name": p.parent.name}
            for p in sorted(root.glob(f"*{LONG_RUN}/manifest.json"))]


def long_run_line(root: Optional[Path] = None) -> str:
    """Where each long run stands, in a sentence: its cells, how far its runs have gone toward their budgets, its
    segments and their CPU-minutes ("" where none is committed)."""
    out = []
    for m in long_runs(root):
        segs = m.get("segments") or []
        minutes = sum(s.get("minutes", 0) for s in segs)
        per = m.get("runs") or {}
        top = max((r["reached"] for r in per.values()), default=max((m.get("reached") or {0: 0}).values()))
        done = sum(bool(r.get("done")) for r in per.values())
        budgets = sorted({r["steps"] for r in per.values()})
        out.append(f"the long run `{m['name']}` ({m.get('chapter')}, preset {m.get('preset')}) has trained its "
                   f"deepest trunk to {top:,} updates over "
                   f"{len(segs)} segment{'s' * (len(segs) != 1)} ({minutes:,.0f} minutes of a "
                   f"{'/'.join(sorted({str((x.get('host') or {}).get('cores', '?')) for x in segs})) or '?'}-core CPU)"
                   + (f"; {done} of its {len(per)} runs (budgets {', '.join(f'{b:,}' for b in budgets)}) are "
                      f"finished" if per else ""))
    return "; ".join(out)


def of_chapter(chapter: str, root: Optional[Path] = None) -> list[Path]:
    """The archived executions of ``chapter`` (a lease's or a slice's), sorted by name."""
    return [f for f in folders(root) if json.loads((f / "manifest.json").read_text()).get("chapter") == chapter]


def describe(folder: Path) -> dict:
    """{name, chapter, preset, device, commit, clean, date, largest, verdicts: {claim: verdict}, grades: {claim:
    recorded grade}, manifest} of one archived execution (``largest``: the most updates any of its models made)."""
    man = json.loads((folder / "manifest.json").read_text())
    file = folder / f"{man['chapter']}.grades.json"
    grades = json.loads(file.read_text()) if file.exists() else {}
    commits = man.get("commit") or []
    return dict(name=folder.name, chapter=man["chapter"], preset=man["preset"],
                device=" / ".join(man.get("device_name") or []) or man.get("device", ""),
                commit=" / ".join(commits) or "unknown", clean=bool(commits) and all(COMMIT.match(c) for c in commits),
                date=str(man.get("date", ""))[:10], largest=max((man.get("updates") or {0: 0}).values()),
                verdicts={k: g.get("verdict", "") for k, g in grades.items()}, grades=grades, manifest=man)


def decided_line(found: list[dict], here: dict) -> str:
    """One sentence: how many claims the archives decided (a verdict other than inconclusive or not tested), by
    verdict, counted apart from this build's totals, and how many of those this build left undecided."""
    seen: dict = {}
    for a in found:
        for k, v in a["verdicts"].items():
            seen.setdefault(k, set()).add(v)
    conflicts = sorted(k for k, vs in seen.items() if len(vs & set(DECIDED)) and len(vs) > 1)
    decided = {k: next(iter(vs)) for k, vs in seen.items() if len(vs) == 1 and vs <= set(DECIDED)}
    if not decided and not conflicts:
        return ("The archives decided no claim: every verdict they recorded is inconclusive or not tested. They are "
                "not counted in this build's totals.")
    counts = ", ".join(f"{sum(v == d for v in decided.values())} {d}" for d in DECIDED)
    open_here = sum(here.get(k, {}).get("verdict") not in DECIDED for k in decided)
    n = len(decided)
    clash = (f" Archives disagree on {len(conflicts)} more ({', '.join(conflicts)}): not counted as decided."
             if conflicts else "")
    return (f"**Decided by archives** (counted apart from this build's totals): {n} claim{'s' * (n != 1)} "
            f"({counts}); {open_here} of {'them' if n != 1 else 'it'} undecided or not tested in this build.{clash}")


def section(table: list[dict], root: Optional[Path] = None) -> list[str]:
    """Markdown lines of the scorecard's section on archived executions ([] when there is none): per archive,
    what made it, and a table of its claims with this build's verdict beside the archived one."""
    found = [describe(f) for f in folders(root)]
    if not found:
        return []
    here = {r["key"]: r for r in table}
    lines = ["## Archived executions", "",
             "Executions made on a GPU elsewhere, or by the CPU at a deep preset, and committed with their recorded "
             "verdicts (`book/archived/`): "
             "read as they were recorded, not re-executed by this build. Each verdict stands beside this build's "
             "for the same claim, at a larger scale where the archive's budget is larger.", "",
             decided_line(found, here), ""]
    for a in found:
        warn = "" if a["clean"] else (" **Its code is an uncommitted tree** that no reader can check out: a record, "
                                      "not a result anyone can rerun.")
        again = a["manifest"].get("regraded")
        again = (f" Graded again under protocol {again['protocol']} from its committed results (`python -m penb "
                 f"regrade`, code at {again['commit'][:7]}, {again['date'][:10]})." if again else "")
        lines += [f"**{a['name']}**: chapter `{a['chapter']}`, preset `{a['preset']}`, on {a['device']}, code at "
                  f"{a['commit']}, collected {a['date']}; largest budget {a['largest']:,} updates.{warn}{again}", "",
                  "| claim | this build | archived |", "|---|---|---|"]
        for key, verdict in a["verdicts"].items():
            mine = here.get(key, {})
            ours = f"{mine['verdict']} ({mine.get('preset', '?')})" if mine else "not in this build"
            lines.append(f"| {key} | {ours} | {verdict} ({a['preset']}) |")
        lines.append("")
    return lines


def view(chapter: str, folder: Path, cfg=None, grades: Optional[list] = None,
         summary: Optional[Callable] = None) -> dict:
    """What a chapter's page shows of one archived execution ``folder``: {"header": what made it (or that there is
    none), "tables": [``summary(results)`` where given (the chapter's table of its runs), its recorded verdicts
    beside this page's (``grades``: the page's own, with this page's preset), each recorded doubling move
    (:func:`moves_table`) where there is one, each model's accuracy per budget (:func:`budget_table`) where it holds
    two or more]}. No tables when the folder holds no
    archived execution, or when ``cfg`` (the page's config) is that execution itself (the same preset)."""
    folder = Path(folder)
    try:
        where = folder.relative_to(paths.REPO)
    except ValueError:
        where = folder
    if not (folder / "manifest.json").exists():
        return {"header": f"No archived GPU execution of this chapter is in the repository ({where}/): "
                          f"`python -m penb slice {chapter}` (or a lease) makes one (README, 'GPU in short slices').",
                "tables": []}
    a = describe(folder)
    man = a["manifest"]
    if cfg is not None and cfg.preset == man["preset"]:
        return {"header": f"This page is an execution at preset {man['preset']!r}: it is not shown twice.",
                "tables": []}
    tables = []
    if summary is not None:
        with opened(folder) as results:
            tables.append(summary(results))
    here = {g.claim: g for g in grades or []}
    rows = [{"claim": k, **({f"this page ({cfg.preset})": here[k].verdict} if k in here and cfg is not None else {}),
             f"archived ({man['preset']})": g.get("verdict", ""), "archived: ours": g.get("ours", "")}
            for k, g in a["grades"].items()]
    tables.append(pd.DataFrame(rows).set_index("claim") if rows else pd.DataFrame())
    moved = moves_table(a["grades"])
    if moved is not None:
        tables.append(moved)
    curve = budget_table(json.loads((folder / "results.json").read_text()) if (folder / "results.json").exists()
                         else {})
    if curve is not None:
        tables.append(curve)
    updates = ", ".join(f"{model_name(c)} {n:,}" for c, n in man["updates"].items())
    budgets = man.get("budgets")
    kind = "CPU" if str(man.get("device", "")).startswith("cpu") else "GPU"
    spent = (f", {man['spent_min']:.1f} {kind}-minutes" if isinstance(man.get("spent_min"), (int, float)) else "")
    header = (f"Archived {kind} execution, not re-executed by this build: preset {man['preset']!r} on "
              f"{a['device']} ({man['device']}), code at commit {a['commit']}, runs collected {man['date']}; "
              f"{man['finished']} runs ({man['diverged']} diverged), seeds {', '.join(map(str, man['seeds']))}, "
              f"updates {updates}"
              + (" (budgets " + "; ".join(f"{model_name(c)} {', '.join(f'{n:,}' for n in b)}"
                                          for c, b in budgets.items()) + ")" if budgets else "")
              + spent
              + (" (the whole call's)" if len(man.get("with", [])) > 1 else "")
              + f". Its grades, status and results are in {where}/; the "
              f"executed notebook that `penb archive` writes beside them is not committed (no .ipynb is)."
              + "".join(f" Note: {man[k]}." for k in ("overrides_note", "commit_note") if man.get(k))
              + ("" if a["clean"] else DIRTY))
    return {"header": header, "tables": tables}


def moves_table(grades: dict):
    """How each quantity a recorded doubling test read (a claim's gap, each model behind it) moved over the last
    two doublings of an archive's grades (``{claim: grade dict}``): one row per (claim, quantity) with its move from
    N/4 to N/2 and from N/2 to N (mean over seeds [interval]; empty where the archive trained no N/4), the budget N,
    and whether the last move met the protocol's bound. None when no grade recorded a doubling test. Read from the
    recorded evidence, not recomputed."""
    def text(m):
        return f"{m['mean']:+.3f} [{m['lo']:+.3f}, {m['hi']:+.3f}]" if m else ""

    rows = []
    for claim, g in grades.items():
        d = (g.get("detail") or {}).get("doubling") or {}
        earlier = d.get("earlier_moves") or {}
        for quantity, m in (d.get("moves") or {}).items():
            rows.append({"claim": claim, "quantity": quantity, "N": f"{d['budgets'][-1]:,}",
                         "N/4 -> N/2": text(earlier.get(quantity)), "N/2 -> N": text(m),
                         "last move within the bound": "yes" if m.get("holds") else "no"})
    return pd.DataFrame(rows).set_index(["claim", "quantity"]) if rows else None


def budget_table(results: dict, metric: str = "token_accuracy"):
    """Each model's ``metric`` averaged over seeds at every budget an archive holds (N/4, N/2, N and beyond), per
    vocabulary and encoding, one column per budget (issue 50: slices add up toward trained); None with fewer than
    two budgets. Exploratory, never graded: the graded reading is the doubling test's."""
    rows = [dict(model=model_name(r["config"]["core"]), vocab=r["config"]["vocab_size"],
                 encoding=r["config"]["encoding"], updates=r["config"]["steps"], value=r["metrics"].get(metric))
            for r in results.values() if r.get("status", "done") == "done" and metric in (r.get("metrics") or {})]
    if len({r["updates"] for r in rows}) < 2:
        return None
    table = pd.DataFrame(rows).pivot_table(index=["model", "vocab", "encoding"], columns="updates", values="value",
                                           aggfunc="mean")
    return table.rename(columns=lambda n: f"{n:,} updates").round(3)


def views(chapter: str, cfg=None, grades: Optional[list] = None, summary: Optional[Callable] = None,
          root: Optional[Path] = None) -> list[dict]:
    """:func:`view` of every archived execution of ``chapter`` (one "none" view when there is none)."""
    found = of_chapter(chapter, root)
    base = Path(root) if root is not None else paths.REPO / "book" / "archived"
    return [view(chapter, f, cfg, grades, summary) for f in found] or [view(chapter, base / f"{chapter}-slice", cfg)]
