"""The scorecard: every claim's verdict from the current build, on one page.

A chapter's :func:`penb.claims.grade` calls :func:`record`, which keeps the grade in
``<executed>/<chapter>.grades.json`` (cleared when the chapter starts, so a page never shows a verdict of
an earlier build). :func:`render` joins the registry with those files: a claim that no chapter of this
build graded shows as "not tested", with the registry's reason or "its chapter has not run".
"""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Optional

from penb import atomic, paths


def grades_file(chapter: str, out_dir: Optional[Path] = None) -> Path:
    return Path(out_dir or paths.executed_dir()) / f"{chapter}.grades.json"


def _steps(cfg) -> object:
    per = dict(cfg.get("per_core") or {})
    cores = cfg.get("cores")
    steps = {c: o["steps"] for c, o in per.items() if isinstance(o, dict) and "steps" in o
             and (cores is None or c in cores)}
    if "steps" in cfg:
        return {"all": cfg["steps"], **steps} if steps else cfg["steps"]
    for k in ("iterations", "lm_steps"):
        if k in cfg:
            return cfg[k]
    return None


def _device(name) -> Optional[str]:
    """The device a config ran on ("auto" resolved), or None."""
    if not name:
        return None
    from penb.device import resolve_device

    return resolve_device(name).type


def record(g, cfg=None, **provenance) -> None:
    """Keep grade ``g`` for the scorecard, with the preset, device, seeds and steps behind it."""
    from penb.claims import get

    claim = get(g.claim)
    chapter = getattr(cfg, "chapter", "") or claim.chapter or "unknown"
    prov = {}
    if cfg is not None:
        prov = {"preset": cfg.preset, "device": _device(cfg.get("device")), "seeds": list(cfg["seeds"])
                if "seeds" in cfg else None, "steps": _steps(cfg)}
    prov.update(provenance)
    from penb.claims.grading import PROTOCOL
    from penb.claims.scale import graded_scale, smaller

    scale = graded_scale(g.claim, cfg, provenance)
    path = grades_file(chapter)
    data = json.loads(path.read_text()) if path.exists() else {}
    data[g.claim] = {"verdict": g.verdict, "ours": g.ours, "reason": g.reason, "chapter": chapter, **prov,
                     "protocol": PROTOCOL, "detail": g.detail, "previous": g.previous, "scale": scale,
                     "claim_scale": claim.scale, "smaller_scale": smaller(scale, claim.scale)}
    atomic.write_json(path, data)


def clear(chapter: str, out_dir: Optional[Path] = None) -> None:
    """Forget a chapter's recorded grades (done when the chapter starts executing)."""
    grades_file(chapter, out_dir).unlink(missing_ok=True)


def collect(out_dir: Optional[Path] = None) -> dict[str, dict]:
    """{claim key: recorded grade} over every chapter's grades file in ``out_dir``."""
    out = {}
    for f in sorted(Path(out_dir or paths.executed_dir()).glob("*.grades.json")):
        out.update(json.loads(f.read_text()))
    return out


def rows(out_dir: Optional[Path] = None) -> list[dict]:
    """One row per graded claim of the registry (settings excluded), with this build's verdict."""
    from penb.claims import NOT_TESTED, graded

    found = collect(out_dir)
    out = []
    for c in graded():
        g = found.get(c.key)
        if g is None:
            why = c.not_tested or f"its chapter ({c.chapter}) has not run in this build"
            g = {"verdict": NOT_TESTED, "ours": "", "reason": why, "chapter": c.chapter}
        paper = "" if c.value is None else f"{c.value} {c.unit}".strip()
        out.append({"key": c.key, "source": c.source, "where": c.where, "statement": c.statement, "paper": paper,
                    "kind": c.kind, **g})
    return out


def _cell(text) -> str:
    return str(text if text is not None else "").replace("|", "\\|").replace("\n", " ")


def _provenance(r: dict) -> str:
    if "preset" not in r:
        return ""
    seeds = r.get("seeds")
    seeds = f"{len(seeds)} seeds ({', '.join(map(str, seeds))})" if seeds else ""
    steps = r.get("steps")
    steps = "" if steps is None else (f"{steps:,} steps" if isinstance(steps, int) else
                                       "steps " + ", ".join(f"{k} {v:,}" for k, v in steps.items()))
    return "; ".join(x for x in (r.get("preset"), r.get("device"), seeds, steps) if x)


def render(out_dir: Optional[Path] = None) -> str:
    """MyST markdown of the scorecard page."""
    from penb.claims import VERDICTS
    from penb.claims.sources import BEYOND

    table = rows(out_dir)
    papers = [r for r in table if r["source"] != BEYOND]
    counts = Counter(r["verdict"] for r in papers)
    lines = ["# Scorecard", "",
             "Every claim of the three texts, with this build's verdict. Each claim's measure, rule and trivial "
             "baseline were written in `penb/claims` before its confirmation runs; the verdicts use one "
             "vocabulary: " + ", ".join(f"*{v}*" for v in VERDICTS) + ". Intervals are Student-t intervals over "
             "seeds; *not reproduced* means the interval excludes the claim's smallest effect of interest, and "
             "an *inconclusive* comparison says how many seeds would decide it (see the grading protocol at the "
             "end). Each verdict says the scale it was graded at beside the text's.", "",
             "**Summary:** " + "; ".join(f"{counts.get(v, 0)} {v}" for v in VERDICTS) +
             f" ({len(papers)} claims).", ""]
    for source in dict.fromkeys(r["source"] for r in table):
        part = [r for r in table if r["source"] == source]
        title = "Beyond the papers: the book's own hypotheses" if source == BEYOND else source
        lines += [f"## {title}", ""]
        if source == BEYOND:
            own = Counter(r["verdict"] for r in part)
            lines += ["Questions the three texts leave open, each written in `penb/claims/beyond.py` with its "
                      "measure and rule before its runs and graded by the same rules; *reproduced* means that "
                      "the hypothesis held. These are not counted in the summary above. **Summary:** " +
                      "; ".join(f"{own.get(v, 0)} {v}" for v in VERDICTS) + f" ({len(part)} hypotheses).", ""]
        lines += [f"| where | {'hypothesis' if source == BEYOND else 'claim'} | paper | ours | verdict | run | "
                  "chapter |", "|---|---|---|---|---|---|---|"]
        for r in part:
            chapter = f"{{doc}}`{r['chapter']}`" if r.get("chapter") and "preset" in r else _cell(r.get("chapter"))
            verdict = f"**{r['verdict']}**<br>{_cell(r['reason'])}{_cell(_scale_words(r))}"
            lines.append(f"| {_cell(r['where'])} | {_cell(r['statement'])} | {_cell(r['paper'])} | "
                         f"{_cell(r['ours'])} | {verdict} | {_cell(_provenance(r))} | {chapter} |")
        lines.append("")
    return "\n".join(lines + _protocol_section(table))


def _scale_words(r: dict) -> str:
    """'<br>Graded at vocabulary 32, length 16, ...; the claim's: ...', with the smaller fields said in words."""
    from penb.claims.scale import FIELDS, show

    if not r.get("scale"):
        return ""
    names = {"vocab": "vocabulary", "length": "length", "hidden": "hidden", "updates": "updates"}
    part = lambda sc: ", ".join(f"{names[f]} {show(sc[f])}" for f in FIELDS if f in sc)  # noqa: E731
    text = f"<br>Graded at {part(r['scale'])}"
    if r.get("claim_scale"):
        text += f"; the text's: {part(r['claim_scale'])}"
    if r.get("smaller_scale"):
        text += f". **At a smaller scale than the claim's** ({'; '.join(r['smaller_scale'])})"
    return text + "."


def _protocol_section(table: list[dict]) -> list[str]:
    """The grading protocol in force, its history, and every claim's verdict under each protocol (folded)."""
    from penb.claims import VERDICTS
    from penb.claims.grading import PROTOCOL, PROTOCOLS
    from penb.claims.sources import BEYOND

    def earlier(r, v):
        return (r.get("previous") or {}).get(str(v), {}).get("verdict", r["verdict"])

    lines = ["## Grading protocol", "", f"This build grades under **protocol {PROTOCOL}**. History:", ""]
    lines += [f"* protocol {v}: {text}" for v, text in sorted(PROTOCOLS.items())]
    papers = [r for r in table if r["source"] != BEYOND]
    for v in sorted(PROTOCOLS):
        if v != PROTOCOL:
            counts = Counter(earlier(r, v) for r in papers)
            lines += ["", f"The same runs under protocol {v}: " +
                      "; ".join(f"{counts.get(w, 0)} {w}" for w in VERDICTS) + f" ({len(papers)} claims)."]
    lines += ["", "<details><summary>Every claim's verdict under each protocol</summary>", "",
              "| claim | " + " | ".join(f"protocol {v}" for v in sorted(PROTOCOLS)) + " | seeds needed |",
              "|---|" + "---|" * (len(PROTOCOLS) + 1)]
    for r in table:
        need = (r.get("detail") or {}).get("seeds_needed")
        cells = [earlier(r, v) if v != PROTOCOL else r["verdict"] for v in sorted(PROTOCOLS)]
        lines.append(f"| {r['key']} | " + " | ".join(cells) + f" | {need if need is not None else ''} |")
    return lines + ["", "</details>", ""]


def write_page(out_dir: Optional[Path] = None) -> Path:
    """Write ``scorecard.md`` into the executed folder (the first page after the introduction)."""
    return atomic.write_text(Path(out_dir or paths.executed_dir()) / "scorecard.md", render(out_dir))
