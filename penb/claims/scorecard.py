"""The scorecard: every claim's verdict from the current build, on one page.

A chapter's :func:`penb.claims.grade` calls :func:`record`, which keeps the grade in
``<executed>/<chapter>.grades.json`` (cleared when the chapter starts, so a page never shows a verdict of
an earlier build). :func:`render` joins the registry with those files: a claim that no chapter of this
build graded shows as "not tested", with the registry's reason or "its chapter has not run".

The page reads at a glance: counts per text as small stacked bars, a forest plot of every comparative
claim (:mod:`penb.claims.forest`), then one line per claim with its verdict badge
(:mod:`penb.claims.display`) and the full statement, rule, reason, scale and runs folded underneath.
"""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Optional

from penb.claims import archives, history, to_decide, training
from penb.claims.archives import section as archived
from penb.claims.catalog import get, graded
from penb.claims.display import CSS, VERDICT_COLORS, badge, esc, head, row_cells, text_color
from penb.claims.forest import forest_rows, save, source_name
from penb.claims.grading import NOT_TESTED, PROTOCOL, VERDICTS
from penb.claims.outcomes import DECIDED
from penb.claims.recorded import (collect, curves_svg, doubling_line, doubling_words, grades_file,  # noqa: F401
                                  provenance_words, scale_words, training_line)
from penb.claims.scale import graded_scale, smaller
from penb.claims.sources import BEYOND
from penb.device import resolve_device
from penb.store import atomic, paths


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


def _precision(cfg) -> Optional[str]:
    """'fp32', 'bf16', or per model where they differ ('fp32; LSTM bf16'): what the runs trained in."""
    if "amp" not in cfg:
        return None
    word = {"none": "fp32", "bf16": "bf16"}
    base = word.get(cfg["amp"], cfg["amp"])
    cores = cfg.get("cores")
    per = {c: word.get(o["amp"], o["amp"]) for c, o in dict(cfg.get("per_core") or {}).items()
           if isinstance(o, dict) and "amp" in o and (cores is None or c in cores)}
    other = {c: a for c, a in per.items() if a != base}
    return base if not other else "; ".join([base] + [f"{c.upper()} {a}" for c, a in sorted(other.items())])


def _device(name) -> Optional[str]:
    """The device a config ran on ("auto" resolved), or None."""
    if not name:
        return None

    return resolve_device(name).type


def record(g, cfg=None, **provenance) -> None:
    """Keep grade ``g`` for the scorecard, with the preset, device, seeds and steps behind it."""
    claim = get(g.claim)
    chapter = getattr(cfg, "chapter", "") or claim.chapter or "unknown"
    prov = {}
    if cfg is not None:
        seeds = (g.evidence or {}).get("seeds") or (list(cfg["seeds"]) if "seeds" in cfg else None)
        prov = {"preset": cfg.preset, "device": _device(cfg.get("device")), "seeds": seeds,
                "steps": _steps(cfg), "precision": _precision(cfg)}
    prov.update(provenance)

    scale = graded_scale(g.claim, cfg, provenance)
    path = grades_file(chapter)
    data = json.loads(path.read_text()) if path.exists() else {}
    data[g.claim] = {"verdict": g.verdict, "ours": g.ours, "reason": g.reason, "chapter": chapter, **prov,
                     "protocol": PROTOCOL, "detail": g.detail, "scale": scale,
                     "claim_scale": claim.scale, "smaller_scale": smaller(scale, claim.scale)}
    atomic.write_json(path, data)


def clear(chapter: str, out_dir: Optional[Path] = None) -> None:
    """Forget a chapter's recorded grades (done when the chapter starts executing)."""
    grades_file(chapter, out_dir).unlink(missing_ok=True)


def rows(out_dir: Optional[Path] = None) -> list[dict]:
    """One row per graded claim of the registry (settings excluded), with this build's verdict."""
    found = collect(out_dir)
    out = []
    for c in graded():
        g = found.get(c.key)
        if g is None:
            why = c.not_tested or f"its chapter ({c.chapter}) has not run in this build"
            g = {"verdict": NOT_TESTED, "ours": "", "reason": why + against(c, found), "chapter": c.chapter}
        paper = "" if c.value is None else f"{c.value} {c.unit}".strip()
        out.append({"key": c.key, "source": c.source, "where": c.where, "statement": c.statement, "paper": paper,
                    "kind": c.kind, **g, "exploratory": c.exploratory})
    return out


def against(c, found: dict) -> str:
    """For an untested claim that the registry sets other rows against (``extra["against"]``: Irie's view of PEs
    in RNNs against Morita's Fig. 2), those rows' verdicts in this build ('' when it names none)."""
    keys = (c.extra or {}).get("against") or ()
    words = [f"{k} {found[k]['verdict']}" if k in found else f"{k} not graded in this build" for k in keys]
    return f" Set against it in this build: {'; '.join(words)}." if words else ""


FOREST = "scorecard_forest.svg"     # the forest plot, written beside scorecard.md


def _md(text) -> str:
    """``text`` safe inside MyST markdown: one line, markup characters escaped."""
    s = " ".join(str(text if text is not None else "").split())
    for ch in "\\`*_[]<>$|{}":
        s = s.replace(ch, "\\" + ch)
    return s


def _bars(table: list[dict]) -> list[str]:
    """Counts of each verdict per text as small stacked bars (HTML), with a legend of the badges."""
    out = ['<div class="penb-bars">']
    for source in dict.fromkeys(r["source"] for r in table):
        counts = Counter(r["verdict"] for r in table if r["source"] == source)
        total = sum(counts.values())
        parts = "".join(
            f'<span data-verdict="{esc(v)}" title="{counts[v]} {esc(v)}" style="width:{100 * counts[v] / total:.2f}%;'
            f'background:{VERDICT_COLORS[v]};color:{text_color(VERDICT_COLORS[v])}">{counts[v]}</span>'
            for v in VERDICTS if counts.get(v))
        out.append(f'<div class="penb-bar-row" data-source="{esc(source_name(source))}"><span>'
                   f'{esc(source_name(source))}</span><div class="penb-bar">{parts}</div><span>{total}</span></div>')
    out.append('<div class="penb-legend">' + "".join(badge(v) for v in VERDICTS) + "</div></div>")
    return ["\n".join(out), ""]


def _row(r: dict) -> list[str]:
    """One claim: its line (where, short phrase, paper, ours, interval, badge) and, folded, the rest."""
    c = get(r["key"])
    cells, titles = row_cells(c, r["verdict"], r.get("ours"), r.get("detail"))
    spans = "".join(f'<span title="{esc(t)}">{x}</span>' for x, t in zip(cells, titles))
    need = (r.get("detail") or {}).get("seeds_needed")
    t = (r.get("detail") or {}).get("training")
    chapter = f"{{doc}}`{r['chapter']}`" if r.get("chapter") and "preset" in r else _md(r.get("chapter"))
    scale = scale_words(r)
    fields = [("Claim", _md(c.statement)), ("Paper", _md(r["paper"])), ("Ours", _md(r.get("ours"))),
              ("Exploratory", _md(f"counted apart from the headline: {c.exploratory}") if c.exploratory else ""),
              ("Verdict", f"{r['verdict']}: {_md(r['reason'])}"),
              ("Doubling", _md(doubling_words(r.get("detail")))),
              ("Training", _md(training.words(t)) if t else ""),
              ("Seeds needed", "" if need is None else str(need)),
              ("What would decide it", _md(to_decide.words(r.get("detail"), (r.get("claim_scale") or {}).get(
                  "updates")) if r["verdict"] == "inconclusive" else "")),
              ("Measure", _md(c.measure)),
              ("Rule", _md(c.rule.text) if c.rule else ""), ("Scale", scale),
              ("Run", _md(provenance_words(r))), ("Chapter", chapter), ("Registry key", f"`{r['key']}`")]
    tag = ' data-exploratory="yes"' if c.exploratory else ""
    lines = [f'<details class="penb-row" data-claim="{esc(r["key"])}"{tag}><summary>{spans}</summary>',
             '<div class="penb-more">', ""]
    lines += [f"**{k}.** {v}\n" for k, v in fields if v]
    svg = curves_svg(t)
    return lines + ([svg, ""] if svg else []) + ["</div></details>", ""]


def at_a_glance(papers: list[dict], root: Optional[Path] = None) -> str:
    """One plain paragraph (issues 59 and 66): what this build decides and why the rest is open, what the archived
    executions add, where the long run for Fig. 2's headline stands, and what would decide the rest, read off the
    rows' own records and the committed archives (``root``: ``book/archived`` by default; no verdict word written
    here)."""
    decided = [r for r in papers if r["verdict"] in DECIDED]
    open_ = [r for r in papers if r["verdict"] == "inconclusive"]
    untested = sum(r["verdict"] == "not tested" for r in papers)
    trained = [r for r in open_ if (r.get("detail") or {}).get("doubling")]
    moved = sum((r["detail"]["doubling"].get("held_by") or []) != [] and r["detail"]["doubling"].get("moves")
                and not r["detail"]["doubling"].get("decided") for r in trained)
    short = [(r["detail"].get("horizon") or {}) for r in trained]
    left = [h.get("doublings") for h in short if h.get("doublings")]
    budgets = sorted({(r["detail"]["doubling"].get("budgets") or [0, 0])[1] for r in trained} - {0})
    which = ", ".join(sorted(r["key"] for r in decided))
    out = (f"**At a glance.** Of the {len(papers)} claims of the three texts counted here, this build decides "
           f"{len(decided)}{f' ({which})' if decided else ''}; {len(open_)} are inconclusive and {untested} not "
           f"tested.")
    if trained:
        span = (f"{budgets[0]:,}" if len(budgets) == 1 else f"{budgets[0]:,}-{budgets[-1]:,}") if budgets else "?"
        short_of = ("" if not left else f", {min(left)} doubling{'s' * (min(left) != 1)}" if min(left) == max(left)
                    else f", {min(left)}-{max(left)} doublings")
        out += (f" {len(trained)} of the inconclusive ones are about trained models: the runs stop at {span} "
                f"updates{short_of + ' short of the texts' + chr(39) + ' budgets,' if left else ''} and in {moved} "
                f"of them a compared model was still moving when the updates doubled.")
    n_assume = sum(bool((r.get("detail") or {}).get("horizon")) for r in decided)
    if n_assume:
        out += (f" {'The one decided verdict' if n_assume == 1 else f'The {n_assume} decided verdicts'} about "
                f"trained models assume{'s' * (n_assume == 1)} no take-off after the budget "
                f"{'it was' if n_assume == 1 else 'they were'} read at: no test at N sees one.")
    found = [archives.describe(f) for f in archives.folders(root)]
    if found:
        here = {r["key"]: r for r in papers}
        said = archives.decided_line(found, here)
        adds = ("they decide no claim: every verdict they recorded is inconclusive or not tested" if
                said.startswith("The archives decided no claim") else
                said.replace("**Decided by archives** (counted apart from this build's totals): ", "they decide ")
                .rstrip("."))
        n = len(found)
        out += (f" {'The archived execution' if n == 1 else f'The {n} archived executions'} "
                f"({', '.join(a['name'] for a in found)}; the largest budget {max(a['largest'] for a in found):,} "
                f"updates) are counted apart: {adds}.")
    line = archives.long_run_line(root)
    if line:
        out += f" For Fig. 2's headline, {line}."
    return out + _to_decide_words(trained)


def _to_decide_words(trained: list[dict]) -> str:
    """' What would decide them: ...' from :mod:`penb.claims.to_decide`'s estimate of each undecided trained row."""
    est = [to_decide.estimate(r["detail"], (r.get("claim_scale") or {}).get("updates")) for r in trained]
    est = [e for e in est if e is not None]
    if not est:
        return ""
    found = [e for e in est if e["j"] is not None]
    span = ""
    if found:
        lo, hi = min(e["updates"] for e in found), max(e["updates"] for e in found)
        seeds = sorted({e["seeds"] for e in found})
        span = (f" for {len(found)} of them, the moves' own ratios per doubling project a decision at "
                f"{lo:,}{'' if lo == hi else f'-{hi:,}'} updates on {seeds[0]}"
                f"{'' if len(seeds) == 1 else f'-{seeds[-1]}'} seeds;")
    return (f" What would decide them is computed in each row (seeds and updates at 80% power for the doubling "
            f"test, a planning estimate):{span} for {len(est) - len(found)} no budget up to the texts' and no "
            f"practical seed count is projected to, or no earlier doubling was trained to project from.")


def render(out_dir: Optional[Path] = None) -> str:
    """MyST markdown of the scorecard page: counts per text, the forest plot (where ``out_dir`` holds it),
    then one line per claim with its badge and its details folded, then the grading protocol."""
    table = rows(out_dir)
    papers = headline(table)
    counts = Counter(r["verdict"] for r in papers)
    apart = [r for r in table if r["exploratory"]]
    explore = Counter(r["verdict"] for r in apart)
    drawn = forest_rows(table)
    lines = ["# Scorecard", "", CSS, "", at_a_glance(papers), "",
             "Every claim of the three texts, and the book's own hypotheses, with this build's verdict. Each "
             "claim's measure, rule and smallest effect of interest were written in `penb/claims` before its "
             "confirmation runs; intervals are Student-t intervals over seeds (the grading protocol is at the "
             "end). Click a row to unfold the full statement, the rule, the reason for the verdict, the scale it "
             "was graded at and the runs behind it.", "",
             "**The three texts:** " + "; ".join(f"{counts.get(v, 0)} {v}" for v in VERDICTS) +
             f" ({len(papers)} claims).", "",
             f"**Exploratory** (a reading, measure or smallest effect changed after its verdict was seen; shown "
             f"below, counted apart from the line above): " + "; ".join(f"{explore.get(v, 0)} {v}" for v in VERDICTS)
             + f" ({len(apart)} claims).", "",
             "## At a glance", "",
             "Verdicts per text (the book's own hypotheses are not counted with the texts' claims):", ""]
    lines += _bars([r for r in table if not r["exploratory"]])
    if drawn and (Path(out_dir or paths.executed_dir()) / FOREST).exists():
        lines += [f"```{{figure}} {FOREST}", ":name: fig-scorecard-forest", ":width: 100%", "",
                  f"Every comparative claim graded in this build ({len(drawn)} of {len(table)}): the effect the "
                  "rule read (dot) and its 95% Student-t interval over seeds (bar), coloured by the verdict. "
                  "The claims measure different things (accuracy, distance, a slope, perplexity), so each effect "
                  "and interval is divided by the claim's own smallest effect of interest: the solid line is no "
                  "effect (0), the dashed line the smallest effect that matters (1). Beyond 12 the axis is "
                  "logarithmic. For a *(no gain)* claim the text says the effect is absent: it holds when the "
                  "interval stays left of the dashed line. Checks, tolerances and untested claims have no "
                  "effect to draw and are listed below only.", "```", ""]
    else:
        lines += ["No comparative claim was graded in this build, so there is no effect to plot.", ""]
    for source in dict.fromkeys(r["source"] for r in table):
        part = [r for r in table if r["source"] == source]
        title = "Beyond the papers: the book's own hypotheses" if source == BEYOND else source
        lines += [f"## {title}", ""]
        if source == BEYOND:
            lines += ["Questions the three texts leave open, each written in `penb/claims/beyond.py` with its "
                      "measure and rule before its runs and graded by the same rules; *reproduced* means that "
                      "the hypothesis held.", ""]
        lines += [f'<div class="penb-rows" data-source="{source_name(source)}">', head(), ""]
        for r in part:
            lines += _row(r)
        lines += ["</div>", ""]
    papers = headline(table)
    return "\n".join(lines + archived(table) + history.section(
        table, papers, [doubling_line(papers), "", training_line(papers)]))


def headline(table: list[dict]) -> list[dict]:
    """The rows the headline counts read: the three texts' claims, less the exploratory ones (issue 49, item 4)."""
    return [r for r in table if r["source"] != BEYOND and not r.get("exploratory")]


def write_page(out_dir: Optional[Path] = None) -> Path:
    """Write ``scorecard.md`` and its forest plot into the executed folder (the first page after the
    introduction)."""
    out = Path(out_dir or paths.executed_dir())
    save(forest_rows(rows(out)), out / FOREST)
    return atomic.write_text(out / "scorecard.md", render(out))
