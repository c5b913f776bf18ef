"""How claims and verdicts look on a page: badges, one-line claim rows that unfold, the chapters' tables.

One row layout serves the scorecard and every chapter: *where | claim | paper | ours [interval] | verdict*,
one row each (the claim in at most two lines, the other cells in one; long text is cut with an ellipsis
and kept whole in the row's tooltip), with the full
statement, measure, rule, reason and scale folded underneath in a ``<details>`` element. Verdict badges
take their colour from :data:`VERDICT_COLORS`, the one definition the forest plot uses too.

* :func:`badge` -- a verdict word as a coloured badge (HTML);
* :func:`overview` -- a chapter's claims under its Overview, one line each, the registry's details folded;
* :func:`verdict_html` -- a chapter's (or the scorecard's) verdict rows; ``claims.table`` shows them;
* :func:`short` -- the claim as a short phrase (its first sentence).

Every function returns HTML text; :class:`HTML` wraps it for a notebook cell.
"""
from __future__ import annotations

import html
import math
import re
from typing import Iterable, Optional

import pandas as pd

from penb.claims import training
from penb.claims import catalog  # a module, not its names: catalog may be mid-import here (a claim reads its preset)
from penb.claims.grading import DIRECTION, INCONCLUSIVE, NOT_REPRODUCED, NOT_TESTED, REPRODUCED
from penb.claims.recorded import (collect, curves_svg, doubling_words, provenance_words, scale_words, training_mark,
                                  training_state)


# One colour and one marker per verdict word, defined here only: the badges on every page and the points
# of the scorecard's forest plot (penb.claims.forest) read them.
VERDICT_COLORS = {REPRODUCED: "#2e7d32", DIRECTION: "#0277bd", NOT_REPRODUCED: "#c62828",
                  INCONCLUSIVE: "#e39b00", NOT_TESTED: "#757575"}
VERDICT_MARKERS = {REPRODUCED: "o", DIRECTION: "D", NOT_REPRODUCED: "X", INCONCLUSIVE: "s", NOT_TESTED: "."}

# The page's few rules: a row is a grid; the summary line of a <details> row carries its own marker.
CSS = """<style>
.penb-rows{margin:.5em 0 1em 0;font-size:.88em}
.penb-row>summary,.penb-head{display:grid;grid-template-columns:5em minmax(0,1fr) 6.5em 11.5em 8.3em;
 gap:.5em;align-items:center;padding:.25em .2em;border-bottom:1px solid #ddd;list-style:none;cursor:pointer}
.penb-head{font-weight:600;cursor:default;border-bottom:2px solid #999}
.penb-row>summary::-webkit-details-marker{display:none}
.penb-row>summary>span,.penb-head>span{overflow:hidden;white-space:nowrap;text-overflow:ellipsis}
.penb-row>summary>span:nth-child(2){white-space:normal;display:-webkit-box;-webkit-line-clamp:2;
 -webkit-box-orient:vertical;line-height:1.3}
.penb-row>summary>span:first-child::before{content:"\\25B8\\00A0";color:#888}
.penb-row[open]>summary>span:first-child::before{content:"\\25BE\\00A0"}
.penb-row>summary:hover{background:rgba(127,127,127,.08)}
.penb-more{padding:.3em .5em .6em 1.6em;border-bottom:1px solid #ddd}
.penb-more p{margin:.25em 0}
.penb-badge{display:inline-block;padding:.05em .55em;border-radius:.8em;font-size:.85em;font-weight:600;
 white-space:nowrap}
.penb-num{font-variant-numeric:tabular-nums}
.penb-ci{color:#666;font-size:.9em}
.penb-bars{margin:.4em 0 1em 0;font-size:.9em}
.penb-bar-row{display:grid;grid-template-columns:14.5em minmax(0,1fr) 4em;gap:.6em;align-items:center;margin:.2em 0}
.penb-bar{display:flex;height:1.3em;border-radius:.2em;overflow:hidden}
.penb-bar>span{display:flex;align-items:center;justify-content:center;font-size:.8em;font-weight:600}
.penb-legend .penb-badge{margin-right:.4em}
.penb-train{display:block;font-size:.72em;font-weight:600;line-height:1.1;margin-top:.1em}
.penb-row>summary>span:last-child{white-space:normal}
.penb-curves{display:block;margin:.3em 0}
</style>"""

HEADER = ("where", "claim", "paper", "ours [95% interval]", "verdict")
EFFECT_WORD = {"trend": "slope"}      # what ``ours`` names for a rule's effect; the others show a difference


class HTML(str):
    """A string that a notebook displays as HTML (and prints as itself)."""

    def _repr_html_(self) -> str:
        return str(self)


def esc(text) -> str:
    return html.escape("" if text is None else str(text))


def text_color(hex_color: str) -> str:
    """Black or white, whichever reads better on ``hex_color`` (WCAG relative luminance)."""
    rgb = [int(hex_color[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    lum = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    return "#111" if (lum + 0.05) / 0.05 > 1.05 / (lum + 0.05) else "#fff"


def badge(verdict: str) -> str:
    """``verdict`` as a badge in its colour (``data-verdict`` names it for tests and styles)."""
    color = VERDICT_COLORS[verdict]
    return (f'<span class="penb-badge" data-verdict="{esc(verdict)}" '
            f'style="background:{color};color:{text_color(color)}">{esc(verdict)}</span>')


def short(statement: str, limit: int = 120) -> str:
    """The claim as a short phrase: its first sentence (cut at a word near ``limit`` characters)."""
    s = " ".join(str(statement).split())
    for stop in (". ", "; "):
        if stop in s:
            s = s.split(stop)[0]
    s = s.rstrip(".")
    if len(s) > limit:
        s = s[:limit].rsplit(" ", 1)[0] + "\u2026"
    return s


def figure_of(where: str) -> str:
    """The figure, table or section a claim's ``where`` names first: 'Fig. 2' for 'Fig. 2 (bottom row)'."""
    return re.match(r"[^/(]*", where).group().strip() or where


def paper_value(claim) -> str:
    """The text's number with its unit, or '' where it prints none."""
    v = claim.value
    if v is None:
        return ""
    if isinstance(v, float):
        v = f"{v:g}"
    return f"{v} {claim.unit}".strip()


def num(x, digits: int = 3) -> str:
    """A number to ``digits`` significant digits, '' for None or NaN."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    return f"{x:.{digits}g}"


def effect_cells(claim, verdict: str, ours: str, detail: Optional[dict]) -> tuple[str, str]:
    """(ours, interval) for a row: the effect a comparative rule read and its seed-level interval; for other
    rules the rule's own words (cut by the row's ellipsis) and no interval."""
    d = detail or {}
    if d.get("effect") is not None and not _nan(d["effect"]):
        word = EFFECT_WORD.get(claim.rule.kind if claim.rule else "", "\u0394")
        lo, hi = d.get("lo"), d.get("hi")
        interval = "" if _nan(lo) or _nan(hi) else f"[{num(lo, 2)}, {num(hi, 2)}]"
        return f"{word} {d['effect']:+.3g}", interval
    return ("\u2014" if not ours else ours), ""


def _nan(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def _row(cells: list[str], body: str, titles: Optional[list[str]] = None, key: str = "") -> str:
    titles = titles or [""] * len(cells)
    spans = "".join(f'<span title="{esc(t)}">{c}</span>' if t else f"<span>{c}</span>"
                    for c, t in zip(cells, titles))
    return f'<details class="penb-row" data-claim="{esc(key)}"><summary>{spans}</summary>{body}</details>'


def head() -> str:
    return '<div class="penb-head">' + "".join(f"<span>{h}</span>" for h in HEADER) + "</div>"


def row_cells(claim, verdict: str, ours: str, detail: Optional[dict]) -> tuple[list[str], list[str]]:
    """The five cells of a verdict row (HTML: where, short phrase, paper, ours with its interval, badge)
    and their tooltips (the whole text)."""
    where = figure_of(claim.where)
    phrase = short(claim.statement)
    paper = paper_value(claim)
    mine, interval = effect_cells(claim, verdict, ours, detail)

    cells = [esc(where), esc(phrase), esc(paper), f'<span class="penb-num">{esc(mine)}</span> '
             f'<span class="penb-num penb-ci">{esc(interval)}</span>', badge(verdict) + training_mark(detail)]
    state = training_state(detail)
    return cells, [claim.where, claim.statement, paper, f"{mine} {interval}".strip() if interval else
                   (ours or ""), f"{verdict}; models {state}" if state else ""]


def more_html(pairs: Iterable[tuple[str, str]], raw: str = "") -> str:
    """The folded part of a row: labelled paragraphs, empty ones left out (HTML, values escaped), then
    ``raw`` HTML (a small figure)."""
    body = "".join(f"<p><b>{esc(k)}.</b> {esc(v)}</p>" for k, v in pairs if v not in (None, ""))
    return f'<div class="penb-more">{body}{raw}</div>'


def rule_pairs(claim) -> list[tuple[str, str]]:
    """What the registry says of a claim: statement, measure, rule, baseline, smallest effect of interest."""
    sesoi = "" if claim.sesoi is None else f"{claim.sesoi:g} ({claim.sesoi_why})" if claim.sesoi_why else \
        f"{claim.sesoi:g}"
    return [("Claim", claim.statement), ("Paper", paper_value(claim)), ("Measure", claim.measure),
            ("Rule", claim.rule.text if claim.rule else ""), ("Trivial baseline", claim.baseline),
            ("Smallest effect of interest", sesoi), ("Not tested", claim.not_tested)]


def overview(keys: Iterable[str]) -> HTML:
    """A chapter's claims for its Overview: one line each (where, the claim in short, the text's number);
    the statement, measure, rule and baseline fold underneath."""
    rows = []
    for key in keys:
        c = catalog.get(key)
        where = figure_of(c.where)
        spans = (f'<span title="{esc(c.where)}">{esc(where)}</span>'
                 f'<span title="{esc(c.statement)}">{esc(short(c.statement))}</span>'
                 f'<span title="{esc(paper_value(c))}">{esc(paper_value(c))}</span>')
        rows.append(f'<details class="penb-row penb-claim" data-claim="{esc(key)}"><summary '
                    f'style="grid-template-columns:5em minmax(0,1fr) 12em">{spans}</summary>'
                    f'{more_html(rule_pairs(c))}</details>')
    note = (f'<p style="margin-bottom:.2em">The {len(rows)} claims of this chapter, as the registry '
            "<code>penb.claims</code> holds them (click one for its measure, rule and baseline):</p>")
    return HTML(CSS + note + '<div class="penb-rows">' + "".join(rows) + "</div>")


def verdict_html(grades) -> HTML:
    """One row per grade: where, the claim in short, paper, ours, interval, badge; the full statement, our
    numbers, the reason, the seeds a decision needs, the scale graded at (beside the claim's), the runs and
    the rule fold underneath."""
    recorded = collect()                 # what grading recorded: the scale and the runs behind each verdict
    out = [CSS, '<div class="penb-rows">', head()]
    for g in grades:
        c = catalog.get(g.claim)
        cells, titles = row_cells(c, g.verdict, g.ours, g.detail)
        need = (g.detail or {}).get("seeds_needed")
        r = recorded.get(g.claim, {})
        pairs = [("Claim", c.statement), ("Ours", g.ours), ("Why", g.reason),
                 ("Seeds needed", "" if need is None else str(need)),
                 ("Scale", scale_words(r).replace("**", "")), ("Run", provenance_words(r)),
                 ("Measure", c.measure), ("Rule", c.rule.text if c.rule else "")]
        t = (g.detail or {}).get("training")
        if t:
            pairs.insert(3, ("Training", training.words(t)))
        if doubling_words(g.detail):
            pairs.insert(3, ("Doubling", doubling_words(g.detail)))
        out.append(_row(cells, more_html(pairs, curves_svg(t)), titles, g.claim))
    return HTML("".join(out + ["</div>"]))


def verdict_table(frame, grades):
    """``frame`` (``claims.table``'s DataFrame) that a notebook shows as :func:`verdict_html` rows; any
    operation on it gives back a plain DataFrame."""
    class VerdictTable(pd.DataFrame):
        _metadata = ["_grades"]

        @property
        def _constructor(self):
            return pd.DataFrame

        def _repr_html_(self):
            return str(verdict_html(self._grades))

    out = VerdictTable(frame)
    out._grades = list(grades)
    return out
