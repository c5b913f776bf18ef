"""The scorecard's forest plot: every comparative claim's effect and its seed-level interval at a glance.

The claims measure different things (token accuracy, a distance, a slope per doubling, perplexity), so each
effect and its interval are divided by the claim's own smallest effect of interest (SESOI): on that common
axis 0 is "no effect" and 1 is "the smallest effect that matters", for every row. The numbers are the
verdict's own (``detail`` of each :class:`~penb.claims.grading.Grade`: ``effect``, ``lo``, ``hi``, ``sesoi``),
never a descriptive bootstrap. Points and bars take the verdict's colour and marker from
:mod:`penb.claims.display`; rows are grouped by text and, within a text, by figure.

``forest_rows(table)`` picks and scales the rows (``table``: :func:`penb.claims.scorecard.rows`);
``forest(rows)`` draws them and returns a matplotlib figure.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Optional

from penb.claims.catalog import get
from penb.claims.display import VERDICT_COLORS, VERDICT_MARKERS, figure_of
from penb.claims.sources import BEYOND, HANSEN, IRIE, MORITA
from penb.store import atomic


SYMLOG_ABOVE = 12.0     # beyond this |effect / SESOI| the axis turns logarithmic (linear within +-2)


def _finite(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def source_name(source: str) -> str:
    """'Morita', 'Irie', 'Hansen', or "the book's own hypotheses" for a claim's ``source``."""
    return {MORITA: "Morita", IRIE: "Irie", HANSEN: "Hansen", BEYOND: "the book's own hypotheses"}.get(
        source, source)


def label(r: dict) -> str:
    """A row's label: the claim key without its text's prefix, '(no gain)' where the claim is an absence."""
    c = get(r["key"])
    name = r["key"].split(".", 1)[-1]
    return name + (" (no gain)" if c.rule is not None and c.rule.kind == "no_gain" else "")


def forest_rows(table: list[dict]) -> list[dict]:
    """The rows a forest plot can draw: graded claims whose verdict stored a finite effect and a positive
    SESOI, with ``x`` = effect / SESOI and ``x_lo``, ``x_hi`` (None where the interval is undefined), in
    registry order within each text."""
    out = []
    for r in table:
        d = r.get("detail") or {}
        effect, sesoi = d.get("effect"), d.get("sesoi")
        if not (_finite(effect) and _finite(sesoi) and sesoi > 0):
            continue
        lo, hi = d.get("lo"), d.get("hi")
        ok = _finite(lo) and _finite(hi)
        out.append({**r, "x": effect / sesoi, "x_lo": lo / sesoi if ok else None,
                    "x_hi": hi / sesoi if ok else None, "group": source_name(r["source"]),
                    "figure": figure_of(r["where"]), "label": label(r)})
    order = list(dict.fromkeys(r["group"] for r in out))
    return sorted(out, key=lambda r: order.index(r["group"]))     # stable: registry order within a text


def forest(rows: list[dict], width: float = 7.4):
    """Figure: one row per entry of ``rows`` (from :func:`forest_rows`), grouped under a bold header per
    text, a thin line between figures; x = effect / SESOI with its interval; 0 and 1 drawn as lines."""
    # deferred: matplotlib is heavy, and penb.claims (which every chapter and the CLI import) draws only here
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D  # deferred: matplotlib (as above)
    from matplotlib.ticker import FuncFormatter  # deferred: matplotlib (as above)

    if not rows:
        raise ValueError("a forest plot needs at least one row with an effect")
    ticks, labels, heads, seps, y = [], [], [], [], 0.0
    for i, r in enumerate(rows):
        if i == 0 or r["group"] != rows[i - 1]["group"]:
            y += 0.4 if i else 0.0
            heads.append(len(ticks))
            ticks.append(y)
            labels.append(r["group"])
            y += 1.0
        elif r["figure"] != rows[i - 1]["figure"]:
            seps.append(y - 0.5)
        r["y"] = y
        ticks.append(y)
        labels.append(r["label"])
        y += 1.0
    fig, ax = plt.subplots(figsize=(width, 0.2 * y + 1.3))
    for r in rows:
        color, marker = VERDICT_COLORS[r["verdict"]], VERDICT_MARKERS[r["verdict"]]
        if r["x_lo"] is not None:
            ax.plot([r["x_lo"], r["x_hi"]], [r["y"], r["y"]], color=color, lw=2, solid_capstyle="butt", zorder=2)
        ax.plot([r["x"]], [r["y"]], marker=marker, color=color, ms=6, mec="white", mew=0.6, ls="none", zorder=3)
    for s in seps:
        ax.axhline(s, color="0.88", lw=0.6, zorder=0)
    ax.axvline(0, color="0.25", lw=1, zorder=1)
    ax.axvline(1, color="0.25", lw=1, ls="--", zorder=1)
    ax.set_yticks(ticks, labels, fontsize=8)
    for i in heads:
        ax.get_yticklabels()[i].set_fontweight("bold")
        ax.get_yticklabels()[i].set_fontsize(9)
    ax.set_ylim(y - 0.4, -0.8)
    xs = [v for r in rows for v in (r["x"], r["x_lo"], r["x_hi"]) if v is not None]
    if max(abs(v) for v in xs) > SYMLOG_ABOVE:
        ax.set_xscale("symlog", linthresh=2, linscale=1.5)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.tick_params(axis="y", length=0)
    ax.grid(axis="x", alpha=0.3)
    ax.set_xlabel("effect / smallest effect of interest  (0: no effect, 1: the smallest effect that matters)",
                  fontsize=8)
    seen = list(dict.fromkeys(r["verdict"] for r in rows))
    handles = [Line2D([], [], color=VERDICT_COLORS[v], marker=VERDICT_MARKERS[v], lw=2, ms=6, label=v)
               for v in seen]
    ax.legend(handles=handles, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=len(handles), fontsize=8,
              frameon=False)
    fig.tight_layout()
    return fig


def save(rows: list[dict], path) -> Optional[str]:
    """Draw :func:`forest` of ``rows`` into ``path`` (SVG, reproducible: no date, fixed ids); returns the file
    name, or None (and no file) when there is no row to draw."""
    # deferred: matplotlib is heavy (see forest)
    import matplotlib
    import matplotlib.pyplot as plt  # deferred: matplotlib (as above)

    path = Path(path)
    if not rows:
        path.unlink(missing_ok=True)
        return None
    fig = forest(rows)
    with matplotlib.rc_context({"svg.hashsalt": "penb-forest", "svg.fonttype": "path"}):
        atomic.atomic_write(path, lambda tmp: fig.savefig(tmp, format="svg", metadata={"Date": None}))
    plt.close(fig)
    return path.name
