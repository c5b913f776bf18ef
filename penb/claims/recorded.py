"""The grades a build recorded, read back, and the words and marks a page shows of them.

The data flows one way: :mod:`penb.claims.scorecard` writes the grade files and builds the scorecard page,
:mod:`penb.claims.display` draws rows for it and for the chapters, and both read what was recorded through
this module, which imports neither.

* :func:`grades_file`, :func:`collect` -- where a chapter's grades live, and all of them;
* :func:`provenance_words`, :func:`scale_words` -- the runs and the scale behind a verdict, in words;
* :func:`training_line`, :func:`doubling_line` -- what the protocol's tests made of a build's rows, counted;
* :func:`training_state`, :func:`training_mark`, :func:`curves_svg` -- the training state of a comparison
  (protocol 3, :mod:`penb.claims.training`): its word, its mark beside the verdict, its learning curves.
"""
from __future__ import annotations

import html
import json
import math
from collections import Counter
from pathlib import Path
from typing import Optional

from penb.claims.outcomes import VERDICTS
from penb.claims.scale import FIELDS, show
from penb.store import paths


def grades_file(chapter: str, out_dir: Optional[Path] = None) -> Path:
    return Path(out_dir or paths.executed_dir()) / f"{chapter}.grades.json"


def collect(out_dir: Optional[Path] = None) -> dict[str, dict]:
    """{claim key: recorded grade} over every chapter's grades file in ``out_dir``."""
    out = {}
    for f in sorted(Path(out_dir or paths.executed_dir()).glob("*.grades.json")):
        out.update(json.loads(f.read_text()))
    return out


def provenance_words(r: dict) -> str:
    """'quick; cpu; fp32; 5 seeds (2001, ...); 2,000 steps' for a recorded grade."""
    if "preset" not in r:
        return ""
    seeds = r.get("seeds")
    seeds = f"{len(seeds)} seeds ({', '.join(map(str, seeds))})" if seeds else ""
    steps = r.get("steps")
    steps = "" if steps is None else (f"{steps:,} steps" if isinstance(steps, int) else
                                       "steps " + ", ".join(f"{k} {v:,}" for k, v in steps.items()))
    return "; ".join(x for x in (r.get("preset"), r.get("device"), r.get("precision"), seeds, steps) if x)


def scale_words(r: dict) -> str:
    """'graded at vocabulary 32, length 16, ...; the text's: ...', with the smaller fields said in words."""
    if not r.get("scale"):
        return ""
    names = {"vocab": "vocabulary", "length": "length", "hidden": "hidden", "updates": "updates"}
    part = lambda sc: ", ".join(f"{names[f]} {show(sc[f])}" for f in FIELDS if f in sc)  # noqa: E731
    text = f"graded at {part(r['scale'])}"
    if r.get("claim_scale"):
        text += f"; the text's: {part(r['claim_scale'])}"
    if r.get("smaller_scale"):
        text += f". **At a smaller scale than the claim's** ({'; '.join(r['smaller_scale'])})"
    return text + "."


# --- the training state of a comparison ------------------------------------------------------------------
MARK_COLORS = {"trained": "#2e7d32", "still learning": "#b26a00", "not recorded": "#757575"}
# protocol 4's doubling test, beside the badge of a claim about trained models
DOUBLING_MARKS = {True: ("settled", "#2e7d32"), False: ("moved", "#b26a00"), None: ("no N/2", "#757575")}
HORIZON_MARK = ("short of the horizon", "#b26a00")   # settled at N, not carried to the text's budget (protocols 6-7)
# why a comparison has no doubling test (Claim.about, penb.claims.ABOUT): its mark and its words
NOT_DOUBLED = {
    "budget": ("at its budget", "no doubling test: the text compares at a fixed budget, read there once the "
                                "training curves have met"),
    "course": ("course", "no doubling test: the text speaks of the course of training, read at the checkpoints "
                         "of the budget shown"),
    "early": ("early", "no doubling test: the text speaks of early training"),
}
CURVE_COLORS = ("#1565c0", "#c62828", "#2e7d32", "#6a1b9a", "#ef6c00", "#00838f")


def training_state(detail: Optional[dict]) -> str:
    """'trained', 'still learning', 'not recorded' (a comparison without a record), or '' (no comparison)."""
    d = detail or {}
    if d.get("training"):
        return d["training"]["state"]
    return "not recorded" if d.get("effect") is not None else ""


def doubling_state(detail: Optional[dict]) -> Optional[bool]:
    """Protocol 4: True when doubling the updates settled the verdict, False when it moved what could overturn
    it, None when there was nothing to test it with (no runs at half the budget); absent: no such claim."""
    rec = (detail or {}).get("doubling")
    if rec is None:
        return None
    return bool(rec["decided"]) if rec.get("moves") else None


def doubling_words(detail: Optional[dict]) -> str:
    """'budgets 1,000 and 2,000 updates: gap moved +0.012 [...] ...' for a row's folded part ('' without)."""
    rec = (detail or {}).get("doubling")
    if not rec:
        return NOT_DOUBLED.get((detail or {}).get("about"), ("", ""))[1]
    n_half, n = rec["budgets"]
    head = f"budgets {n_half:,} and {n:,} updates, smallest effect {rec['sesoi']:g}: " if n else ""
    hz = (detail or {}).get("horizon")
    tail = (f". At the text's budget (the horizon, {hz['horizon']:,} updates): {hz.get('why') or ''} "
            f"({'holds' if hz.get('decided') else 'not shown'})" if hz and hz.get("horizon") else "")
    return head + (rec.get("why") or "") + (" (settled)" if rec["decided"] else " (not settled)") + tail


def not_doubled_words(table: list[dict]) -> str:
    """' N comparisons are not about trained models (...): ...' ('' when there is none)."""
    about = Counter((r.get("detail") or {}).get("about") for r in table if r["verdict"] != "not tested")
    parts = [f"{about[a]} {NOT_DOUBLED[a][0]}" for a in NOT_DOUBLED if about.get(a)]
    return (f" Not about trained models, so read without it: {', '.join(parts)} (the texts' words: a fixed budget, "
            "the course of training, or early training)." if parts else "")


def training_mark(detail: Optional[dict]) -> str:
    """The marks beside a comparative verdict: protocol 4's doubling test (settled, moved, or no N/2 runs) and
    protocol 3's training state, as small coloured words (HTML)."""
    out = ""
    if (detail or {}).get("doubling") is not None:
        word, color = DOUBLING_MARKS[doubling_state(detail)]
        hz = (detail or {}).get("horizon")
        if doubling_state(detail) and hz and not hz.get("decided"):      # one mark per verdict (issue 59): not
            word, color = HORIZON_MARK                                    # "settled" beside "inconclusive"
        out += (f'<span class="penb-train" data-doubling="{html.escape(word)}" style="color:{color}" '
                f'title="protocol 5: doubling the updates">{html.escape(word)}</span>')
    elif (detail or {}).get("about") in NOT_DOUBLED:
        word, why = NOT_DOUBLED[detail["about"]]
        out += (f'<span class="penb-train" data-doubling="{html.escape(word)}" style="color:#757575" '
                f'title="{html.escape(why)}">{html.escape(word)}</span>')
    state = training_state(detail)
    if not state or out:                 # one mark per verdict: the doubling test's (or why there is none) first
        return out
    return out + (f'<span class="penb-train" data-training="{html.escape(state)}" '
                  f'style="color:{MARK_COLORS[state]}">{html.escape(state)}</span>')


def curves_svg(t: Optional[dict], width: int = 300, height: int = 70) -> str:
    """The compared models' mean learning curves (training accuracy, or loss for a language model), small,
    one colour per model, with their second-half rise in the legend (inline SVG; '' without curves)."""
    if not t or not any(m.get("curve") for m in t["models"].values()):
        return ""
    pts = [p for m in t["models"].values() for p in m.get("curve", [])]
    xmax = max(p[0] for p in pts) or 1
    lo, hi = min(p[1] for p in pts), max(p[1] for p in pts)
    if t.get("metric") != "loss":
        lo, hi = min(lo, 0.0), max(hi, 1.0) if hi > 0.5 else hi
    span = (hi - lo) or 1.0
    plot_w, plot_h = width * 0.55, height - 8
    lines, legend = [], []
    for i, (name, m) in enumerate(t["models"].items()):
        color = CURVE_COLORS[i % len(CURVE_COLORS)]
        xy = " ".join(f"{4 + plot_w * s / xmax:.1f},{4 + plot_h * (1 - (v - lo) / span):.1f}"
                      for s, v in m.get("curve", []) if math.isfinite(v))
        if xy:
            lines.append(f'<polyline fill="none" stroke="{color}" stroke-width="1.4" points="{xy}"/>')
        rise = m.get("rise")
        rise = "" if rise is None or not math.isfinite(rise) else f" {rise:+.3f}"
        legend.append(f'<text x="{plot_w + 12:.0f}" y="{12 + 11 * i}" font-size="9" fill="{color}">'
                      f'{html.escape(name)}{rise}</text>')
    half = 4 + plot_w / 2
    frame = (f'<rect x="4" y="4" width="{plot_w:.1f}" height="{plot_h}" fill="none" stroke="#ccc"/>'
             f'<line x1="{half:.1f}" y1="4" x2="{half:.1f}" y2="{4 + plot_h}" stroke="#bbb" stroke-dasharray="2,2"/>')
    what = "training loss" if t.get("metric") == "loss" else "training accuracy"
    title = f"{what} over {t.get('updates', 0):,} updates; dashed: the midpoint"
    return (f'<svg class="penb-curves" role="img" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}"><title>{html.escape(title)}</title>{frame}{"".join(lines)}'
            f'{"".join(legend)}</svg>')


def training_line(table: list[dict]) -> str:
    """The texts' comparative verdicts counted by their models' training state (protocol 3's rise criterion,
    recorded beside each verdict): those on trained models apart from the rest."""
    by = {}
    for r in table:
        state = training_state(r.get("detail")) if r["verdict"] != "not tested" else ""
        if state:
            by.setdefault(state, Counter())[r["verdict"]] += 1
    if not by:
        return "No comparison of the texts' claims was graded in this build."
    total = sum(sum(c.values()) for c in by.values())
    parts = [f"**{state}** ({sum(c.values())}): " + "; ".join(f"{c[v]} {v}" for v in VERDICTS if c.get(v))
             for state, c in sorted(by.items(), key=lambda kv: ("trained", "still learning").index(kv[0])
                                    if kv[0] in ("trained", "still learning") else 2)]
    share = sum(by.get("trained", Counter()).values()) / total
    return (f"**Comparisons by their models' training state** ({total} of the texts' claims graded by a "
            f"comparison; {share:.0%} on trained models by protocol 3's rise criterion): " + " | ".join(parts) +
            ". Under protocol 3 a claim about trained models on models still learning was inconclusive; since "
            "protocol 4 the doubling test decides instead, and the state is shown, not used.")


def doubling_line(table: list[dict]) -> str:
    """How many of the texts' claims about trained models the doubling test settled, and how the rest stand (moved
    by doubling, or no runs at half the budget), then what the horizon made of those it let stand."""
    graded = [r for r in table if r["verdict"] != "not tested" and (r.get("detail") or {}).get("doubling")]
    if not graded:
        return "No claim about trained models was graded in this build."
    by = Counter(doubling_state(r["detail"]) for r in graded)
    models = sum(any(r["detail"]["doubling"]["moves"][q].get("kind") == "model"
                     for q in r["detail"]["doubling"].get("held_by") or ()) for r in graded)
    horizon = [r["detail"]["horizon"] for r in graded if r["detail"].get("horizon")]
    reach = sum(bool(h.get("decided")) for h in horizon)
    one = sum("one doubling only" in (h.get("why") or "") for h in horizon)
    line6 = (f" **The horizon** read the {len(horizon)} verdicts the doubling test let stand at the texts' own "
             f"budgets: {reach} hold there; {len(horizon) - reach} inconclusive ({one} of them with one doubling "
             f"only, no runs at N/4)." if horizon else " **The horizon** had no settled verdict to read.")
    return (f"**The doubling test** ({len(graded)} of the texts' claims about trained models graded): "
            f"{by.get(True, 0)} settled, their verdicts decided; {by.get(False, 0)} moved by more than their "
            f"smallest effect when the updates doubled, so inconclusive ({models} of them because a compared model "
            f"still moved); {by.get(None, 0)} without runs at half the budget, so inconclusive." + line6
            + not_doubled_words(table))
